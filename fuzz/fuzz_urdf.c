// libFuzzer entry for the URDF loader (urdf.h). Every input is parsed from memory as a URDF
// file whose meshes would lie in a folder that does not exist (no disk); a file that loads is
// built into a model with the Franka Hand, as robot mode builds it. A load or a build must
// either fail with one line that starts with the file's name, or succeed; anything else, like
// a crash, a leak or a sanitizer report, is a bug:
//   make fuzz                      (FUZZ_TIME seconds for each reader)
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "urdf.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static void expect_one_line(const char* err) {
  if (strncmp(err, "fuzz.urdf", 9) != 0 || (err[9] != ':' && err[9] != 0)) abort();
  if (strchr(err, '\n')) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  char err[1024];
  err[0] = 0;
  tf_urdf* u = NULL;
  if (tf_urdf_parse((const char*)data, size, "fuzz.urdf", "/nonexistent", NULL, &u, err,
                    sizeof(err))) {
    expect_one_line(err);
    return 0;
  }
  tf_builder* b = tf_builder_create();
  tf_panda_def def = tf_panda_def_default();
  double lo[TF_PANDA_NJOINT], hi[TF_PANDA_NJOINT];
  tf_urdf_limits(u, lo, hi);
  for (int i = 0; i < TF_PANDA_NJOINT; i++) def.qpos0[i] = lo[i] > 0 || hi[i] < 0 ? lo[i] : 0;
  tf_panda ids;
  if (b && tf_urdf_add(b, u, &def, &ids, err, sizeof(err))) {
    expect_one_line(err);
  } else if (b) {
    tf_model* m = tf_builder_compile(b, err, sizeof(err));
    tf_model_destroy(m);
  }
  tf_builder_destroy(b);
  tf_urdf_free(u);
  return 0;
}
