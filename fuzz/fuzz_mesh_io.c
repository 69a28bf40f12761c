// libFuzzer entry for the mesh readers (mesh_io.h). Every input goes through the OBJ and the
// STL parser from memory (no disk). A parse must either fail with a one-line message that
// starts with the file's name, or yield a mesh that passes tf_mesh_check (finite vertices,
// indices in range); anything else, like a crash or a sanitizer report, is a bug:
//   make fuzz                      (60 s; FUZZ_TIME=600 make fuzz for longer)
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_io.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

// the parse's contract, or abort so the fuzzer keeps the input
static void check(int rc, tf_mesh* m, const char* err, const char* name) {
  char again[256];
  if (rc == 0) {
    if (tf_mesh_check(m->vert, m->nvert, m->face, m->nface, name, again, sizeof(again))) abort();
    tf_mesh_free(m);
    return;
  }
  if (m->vert || m->face) abort();  // a failed parse hands nothing out
  if (strncmp(err, name, strlen(name)) != 0 || err[strlen(name)] != ':') abort();
  if (strchr(err, '\n')) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  char err[256];
  tf_mesh m;
  err[0] = 0;
  check(tf_mesh_parse_obj(&m, (const char*)data, size, "fuzz.obj", err, sizeof(err)), &m, err,
        "fuzz.obj");
  err[0] = 0;
  check(tf_mesh_parse_stl(&m, data, size, "fuzz.stl", err, sizeof(err)), &m, err, "fuzz.stl");
  return 0;
}
