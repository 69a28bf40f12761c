// libFuzzer entry for the MJCF loader (mjcf.h). Every input is parsed from memory as an MJCF
// file whose meshes would lie in a folder that does not exist (no disk). A load must either
// fail with one line that starts with the file's name, or yield a model; anything else, like
// a crash, a leak or a sanitizer report, is a bug:
//   make fuzz                      (FUZZ_TIME seconds for each reader)
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mjcf.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  char err[1024], ignored[2048];
  err[0] = 0;
  tf_model* m = tf_mjcf_parse((const char*)data, size, "fuzz.xml", "/nonexistent", NULL, err,
                              sizeof(err), ignored, sizeof(ignored));
  if (m) {
    if (strchr(ignored, '\n')) abort();
    tf_model_destroy(m);
    return 0;
  }
  if (strncmp(err, "fuzz.xml", 8) != 0 || (err[8] != ':' && err[8] != 0)) abort();
  if (strchr(err, '\n')) abort();
  return 0;
}
