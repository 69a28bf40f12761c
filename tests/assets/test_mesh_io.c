// Tests of the mesh readers and writers (mesh_io.h) and the atomic file helpers they use:
// OBJ and STL round trips, the OBJ forms readers meet in the wild, every class of malformed
// input rejected with "FILE:LINE: problem" (binary STL: the byte offset), deterministic
// welding, and writes that leave nothing behind when they fail.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_io.h"
#include "mesh_io.h"
#include "mesh_reference.h"

// a fresh temporary folder for one test
static void make_temp_dir(char out[64]) {
  snprintf(out, 64, "/tmp/tf_mesh_io_XXXXXX");
  assert_non_null(mkdtemp(out));
}

// entries of a folder, . and .. aside
static int count_entries(const char* dir) {
  DIR* d = opendir(dir);
  assert_non_null(d);
  int n = 0;
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) n++;
  }
  closedir(d);
  return n;
}

// removes a temporary folder and the plain files and empty folders in it
static void remove_temp_dir(const char* dir) {
  DIR* d = opendir(dir);
  if (!d) return;
  struct dirent* e;
  char path[512];
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
    if (unlink(path) != 0) rmdir(path);
  }
  closedir(d);
  rmdir(dir);
}

static void write_bytes(const char* path, const void* data, size_t n) {
  FILE* f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, n, f), n);
  fclose(f);
}

// fails the test unless the message contains the needle
static void expect_message(const char* err, const char* needle) {
  if (!strstr(err, needle)) {
    print_message("message '%s' lacks '%s'\n", err, needle);
    fail();
  }
}

// parses OBJ text that must be rejected with a message containing needle
static void expect_obj_reject(const char* text, const char* needle) {
  tf_mesh m;
  char err[256] = "";
  int rc = tf_mesh_parse_obj(&m, text, strlen(text), "bad.obj", err, sizeof(err));
  if (rc == 0) {
    print_message("accepted: %s\n", text);
    tf_mesh_free(&m);
    fail();
  }
  assert_null(m.vert);
  expect_message(err, needle);
}

// the same for STL bytes
static void expect_stl_reject(const void* data, size_t n, const char* needle) {
  tf_mesh m;
  char err[256] = "";
  int rc = tf_mesh_parse_stl(&m, data, n, "bad.stl", err, sizeof(err));
  if (rc == 0) {
    tf_mesh_free(&m);
    print_message("accepted STL expected to fail with '%s'\n", needle);
    fail();
  }
  assert_null(m.vert);
  expect_message(err, needle);
}

// each face of a has the same corner positions as the same face of b
static void expect_same_geometry(const tf_mesh* a, const tf_mesh* b, double tol) {
  assert_int_equal(a->nface, b->nface);
  for (int f = 0; f < a->nface; f++) {
    for (int c = 0; c < 3; c++) {
      const double* p = a->vert + 3 * a->face[3 * f + c];
      const double* q = b->vert + 3 * b->face[3 * f + c];
      for (int k = 0; k < 3; k++) assert_true(fabs(p[k] - q[k]) <= tol);
    }
  }
}

static void test_obj_round_trip_is_exact(void** state) {
  (void)state;
  char dir[64], path[128], err[256];
  make_temp_dir(dir);
  snprintf(path, sizeof(path), "%s/torus.obj", dir);
  tf_mesh torus, back;
  assert_int_equal(tf_mesh_torus(&torus, 0.3, 0.1, 24, 12, err, sizeof(err)), 0);
  assert_int_equal(tf_mesh_write_obj(path, &torus, err, sizeof(err)), 0);
  assert_int_equal(tf_mesh_read(&back, path, err, sizeof(err)), 0);
  assert_int_equal(back.nvert, torus.nvert);
  assert_int_equal(back.nface, torus.nface);
  assert_memory_equal(back.vert, torus.vert, sizeof(double) * 3 * (size_t)torus.nvert);
  assert_memory_equal(back.face, torus.face, sizeof(int) * 3 * (size_t)torus.nface);
  assert_int_equal(count_entries(dir), 1);  // no temporary file left behind
  tf_mesh_free(&torus);
  tf_mesh_free(&back);
  remove_temp_dir(dir);
}

static void test_stl_round_trips_weld_back(void** state) {
  (void)state;
  char dir[64], path[128], err[256];
  make_temp_dir(dir);
  tf_mesh sphere, back;
  assert_int_equal(tf_mesh_sphere(&sphere, 0.05, 16, 8, err, sizeof(err)), 0);
  // float-representable coordinates, so the binary round trip is exact
  for (int k = 0; k < 3 * sphere.nvert; k++) sphere.vert[k] = (float)sphere.vert[k];

  snprintf(path, sizeof(path), "%s/sphere.STL", dir);
  assert_int_equal(tf_mesh_write_stl(path, &sphere, err, sizeof(err)), 0);
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_size, 84 + 50 * sphere.nface);
  assert_int_equal(tf_mesh_read(&back, path, err, sizeof(err)), 0);
  assert_int_equal(back.nvert, sphere.nvert);  // every shared corner welded back
  expect_same_geometry(&back, &sphere, 0.0);
  tf_mesh_free(&back);

  // the same mesh as ASCII STL, written by hand
  snprintf(path, sizeof(path), "%s/sphere_ascii.stl", dir);
  FILE* f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f, "solid sphere\n");
  for (int t = 0; t < sphere.nface; t++) {
    fprintf(f, "  facet normal 0 0 0\n    outer loop\n");
    for (int c = 0; c < 3; c++) {
      const double* p = sphere.vert + 3 * sphere.face[3 * t + c];
      fprintf(f, "      vertex %.17g %.17g %.17g\n", p[0], p[1], p[2]);
    }
    fprintf(f, "    endloop\n  endfacet\n");
  }
  fprintf(f, "endsolid sphere\n");
  fclose(f);
  assert_int_equal(tf_mesh_read_stl(&back, path, err, sizeof(err)), 0);
  assert_int_equal(back.nvert, sphere.nvert);
  expect_same_geometry(&back, &sphere, 0.0);
  tf_mesh_free(&back);
  tf_mesh_free(&sphere);
  remove_temp_dir(dir);
}

static void test_obj_forms_in_the_wild(void** state) {
  (void)state;
  const char* text =
      "# exported by something\r\n"
      "mtllib parts.mtl\r\n"
      "o block\n"
      "v 0 0 0\n"
      "v 1 0 0 1.0\n"          // with w
      "v 1 1 0 0.5 0.5 0.5\n"  // with a colour
      "v\t0 1 0   # trailing comment\n"
      "v 0 0 1\n"
      "vt 0 0\nvt 1 0\nvt 1 1\n"
      "vn 0 0 1\n"
      "g sides\ns off\nusemtl steel\n"
      "f 1/1/1 2/2/1 3/3/1 4/1/1\n"  // a quad with v/vt/vn
      "f -5//1 -4//1 -1//1\n"        // relative indices, v//vn
      "f 2/1 3/2 5/3\n"              // v/vt
      "f 3 4 5 2 1\n"                // a pentagon
      "l 1 2\n"
      "curv 0 1 1 2\n";
  tf_mesh m;
  char err[256] = "";
  int rc = tf_mesh_parse_obj(&m, text, strlen(text), "wild.obj", err, sizeof(err));
  if (rc) print_message("%s\n", err);
  assert_int_equal(rc, 0);
  assert_int_equal(m.nvert, 5);
  assert_int_equal(m.nface, 2 + 1 + 1 + 3);
  const int expect[] = {0, 1, 2, 0, 2, 3, 0, 1, 4, 1, 2, 4, 2, 3, 4, 2, 4, 1, 2, 1, 0};
  assert_memory_equal(m.face, expect, sizeof(expect));
  assert_true(m.vert[3 * 3 + 1] == 1.0);
  tf_mesh_free(&m);
}

static void test_obj_rejects_malformed_with_line(void** state) {
  (void)state;
  expect_obj_reject("v 0 0 0\nv 1 0 0\nv 0 1\nf 1 2 3\n", "bad.obj:3: a vertex needs 3");
  expect_obj_reject("v 0 0 0\nv 1 x 0\n", "bad.obj:2: 'x' is not a number");
  expect_obj_reject("v 0 0 nan\n", "bad.obj:1: vertex coordinate 'nan' is not finite");
  expect_obj_reject("v 0 0 inf\n", "bad.obj:1: vertex coordinate 'inf' is not finite");
  expect_obj_reject("v 0 0 1e999\n", "bad.obj:1: vertex coordinate '1e999' is not finite");
  expect_obj_reject("v 0 0 0 1 2 3 4 5\n", "bad.obj:1: a vertex has 3 to 7 numbers");
  expect_obj_reject("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", "bad.obj:4: vertex index 4 is out");
  expect_obj_reject("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", "bad.obj:4: vertex index 0");
  expect_obj_reject("v 0 0 0\nv 1 0 0\nf -1 -2 -3\nv 0 1 0\n",
                    "bad.obj:3: relative vertex index -3");
  expect_obj_reject("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n", "bad.obj:4: a face needs at least 3");
  expect_obj_reject("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3/x\n", "bad.obj:4: '3/x' is not a vertex");
  expect_obj_reject("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3/\n", "bad.obj:4: '3/' is not a vertex");
  expect_obj_reject("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3/1/2/3\n", "bad.obj:4:");
  expect_obj_reject("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 99999999999999999999\n", "bad.obj:4:");
  expect_obj_reject("v 0 0 0\nv 1 0 0\nv 0 1 0\n", "bad.obj:3: no faces");
  expect_obj_reject("", "bad.obj:1: no faces");
  const char nul[] = "v 0 0 0\nv 1 0\0 0\n";
  tf_mesh m;
  char err[256];
  assert_int_equal(tf_mesh_parse_obj(&m, nul, sizeof(nul) - 1, "bad.obj", err, sizeof(err)), -1);
  expect_message(err, "bad.obj:2: NUL byte");
}

// a minimal ASCII STL tetrahedron with one spot replaced
static const char* tetra_ascii =
    "solid t\n"
    "facet normal 0 0 -1\n outer loop\n  vertex 0 0 0\n  vertex 0 1 0\n  vertex 1 0 0\n"
    " endloop\nendfacet\n"
    "facet normal 0 -1 0\n outer loop\n  vertex 0 0 0\n  vertex 1 0 0\n  vertex 0 0 1\n"
    " endloop\nendfacet\n"
    "facet normal -1 0 0\n outer loop\n  vertex 0 0 0\n  vertex 0 0 1\n  vertex 0 1 0\n"
    " endloop\nendfacet\n"
    "facet normal 1 1 1\n outer loop\n  vertex 1 0 0\n  vertex 0 1 0\n  vertex 0 0 1\n"
    " endloop\nendfacet\n"
    "endsolid t\n";

// tetra_ascii with the first occurrence of `from` replaced by `to`
static void expect_tetra_variant_rejected(const char* from, const char* to, const char* needle) {
  char text[2048];
  const char* at = strstr(tetra_ascii, from);
  assert_non_null(at);
  size_t head = (size_t)(at - tetra_ascii);
  snprintf(text, sizeof(text), "%.*s%s%s", (int)head, tetra_ascii, to, at + strlen(from));
  expect_stl_reject(text, strlen(text), needle);
}

static void test_stl_ascii_grammar(void** state) {
  (void)state;
  tf_mesh m;
  char err[256] = "";
  assert_int_equal(tf_mesh_parse_stl(&m, (const unsigned char*)tetra_ascii, strlen(tetra_ascii),
                                     "t.stl", err, sizeof(err)),
                   0);
  assert_int_equal(m.nface, 4);
  assert_int_equal(m.nvert, 4);  // welded
  tf_mesh_free(&m);
  expect_tetra_variant_rejected(" endloop\nendfacet\nfacet normal 0 -1", " endfacet\n",
                                "bad.stl:7: expected 'endloop', found 'endfacet'");
  expect_tetra_variant_rejected("  vertex 1 0 0\n endloop",
                                "  vertex 1 0 0\n  vertex 2 2 2\n endloop",
                                "bad.stl:7: expected 'endloop', found 'vertex'");
  expect_tetra_variant_rejected("vertex 0 1 0\n  vertex 1 0 0", "vertex 0 q 0\n  vertex 1 0 0",
                                "bad.stl:5: expected a number, found 'q'");
  expect_tetra_variant_rejected("vertex 0 1 0\n  vertex 1 0 0", "vertex 0 nan 0\n  vertex 1 0 0",
                                "bad.stl:5: vertex coordinate 'nan' is not finite");
  expect_tetra_variant_rejected("outer loop", "outer",
                                "bad.stl:4: expected 'loop', found 'vertex'");
  expect_tetra_variant_rejected("endsolid t\n", "",
                                "bad.stl:30: expected 'facet' or 'endsolid', found the end");
  expect_tetra_variant_rejected(
      "endsolid t\n", "endsolid t\ngarbage\n",
      "bad.stl:31: expected 'solid' or the end of the file, found 'garbage'");
  expect_tetra_variant_rejected("facet normal 1 1 1", "facet normal 1 1",
                                "bad.stl:24: expected a number, found 'outer'");
  expect_stl_reject("solid empty\nendsolid empty\n", 27, "bad.stl:3: no facets");
  expect_stl_reject("hello", 5, "bad.stl:byte 0: 5 bytes is too short");
}

// a binary STL of n triangles (vertices i, i+1, i+2 along x), its size exact
static unsigned char* binary_stl(uint32_t n, size_t* size) {
  *size = 84 + 50 * (size_t)n;
  unsigned char* b = calloc(1, *size);
  assert_non_null(b);
  memcpy(b, "solid but actually binary", 25);  // common in the wild
  b[80] = (unsigned char)n, b[81] = (unsigned char)(n >> 8);
  b[82] = (unsigned char)(n >> 16), b[83] = (unsigned char)(n >> 24);
  for (uint32_t t = 0; t < n; t++) {
    for (int v = 0; v < 3; v++) {
      float p[3] = {(float)(t + (uint32_t)v), 0.0f, 0.0f};  // a strip: neighbours share 2
      memcpy(b + 84 + 50 * t + 12 + 12 * v, p, sizeof(p));
    }
  }
  return b;
}

static void test_stl_binary_rejects_with_offset(void** state) {
  (void)state;
  size_t size;
  unsigned char* b = binary_stl(3, &size);
  tf_mesh m;
  char err[256] = "";
  assert_int_equal(tf_mesh_parse_stl(&m, b, size, "ok.stl", err, sizeof(err)), 0);
  assert_int_equal(m.nface, 3);
  assert_int_equal(m.nvert, 3 + 1 + 1);  // neighbours share corners once welded
  tf_mesh_free(&m);

  expect_stl_reject(
      b, size - 7,
      "bad.stl:byte 80: binary STL header promises 3 triangles (234 bytes) but the file has 227");
  float nan_value = NAN;
  memcpy(b + 84 + 50 + 12 + 12 + 4, &nan_value, 4);  // triangle 1, vertex 1, y
  expect_stl_reject(b, size, "bad.stl:byte 162: triangle 1, vertex 1: coordinate is not finite");
  float inf_value = INFINITY;
  memcpy(b + 84 + 50 + 12 + 12 + 4, &inf_value, 4);
  expect_stl_reject(b, size, "bad.stl:byte 162:");
  free(b);

  b = binary_stl(0, &size);
  expect_stl_reject(b, size, "bad.stl:byte 80: binary STL with no triangles");
  // a header claiming more triangles than the cap is refused before anything is allocated
  b[80] = 0xff, b[81] = 0xff, b[82] = 0xff, b[83] = 0x7f;
  expect_stl_reject(b, size, "over the limit of 50000000");
  free(b);
}

static void test_weld_is_exact_and_deterministic(void** state) {
  (void)state;
  double vert[] = {1, 2, 3, 0, 0, 0, 1, 2, 3, -0.0, 0, 0, 1, 2, 3.0000000000000004, 0, 0, 0};
  int face[] = {0, 1, 4, 2, 3, 5};
  tf_mesh m;
  m.nvert = 6, m.nface = 2;
  m.vert = malloc(sizeof(vert));
  m.face = malloc(sizeof(face));
  memcpy(m.vert, vert, sizeof(vert));
  memcpy(m.face, face, sizeof(face));
  assert_int_equal(tf_mesh_weld(&m, NULL, 0), 0);
  assert_int_equal(m.nvert, 3);  // (1,2,3), (0,0,0) = (-0,0,0), and the nearly equal one kept
  const int want_face[] = {0, 1, 2, 0, 1, 1};
  assert_memory_equal(m.face, want_face, sizeof(want_face));
  const double want_vert[] = {1, 2, 3, 0, 0, 0, 1, 2, 3.0000000000000004};
  assert_memory_equal(m.vert, want_vert, sizeof(want_vert));
  tf_mesh_free(&m);
  int map[6], nunique;
  assert_int_equal(tf_vertex_weld_map(map, &nunique, vert, 6), 0);
  const int want_map[] = {0, 1, 0, 1, 2, 1};
  assert_memory_equal(map, want_map, sizeof(want_map));
}

static void test_failed_writes_leave_nothing(void** state) {
  (void)state;
  char dir[64], path[128], err[512];
  make_temp_dir(dir);
  tf_mesh m;
  assert_int_equal(tf_mesh_sphere(&m, 1.0, 8, 4, err, sizeof(err)), 0);

  // the rename fails (the destination is a folder): the temporary file must go
  snprintf(path, sizeof(path), "%s/taken", dir);
  assert_int_equal(mkdir(path, 0755), 0);
  assert_int_equal(tf_mesh_write_obj(path, &m, err, sizeof(err)), -1);
  expect_message(err, path);
  assert_int_equal(tf_mesh_write_stl(path, &m, err, sizeof(err)), -1);
  expect_message(err, path);
  assert_int_equal(count_entries(dir), 1);  // just the folder

  // a folder that does not exist
  snprintf(path, sizeof(path), "%s/missing/mesh.obj", dir);
  assert_int_equal(tf_mesh_write_obj(path, &m, err, sizeof(err)), -1);
  expect_message(err, path);

  // an unwritable folder (root writes anyway, so only checked for other users)
  snprintf(path, sizeof(path), "%s/readonly", dir);
  assert_int_equal(mkdir(path, 0555), 0);
  if (geteuid() != 0) {
    char file[160];
    snprintf(file, sizeof(file), "%s/mesh.stl", path);
    assert_int_equal(tf_mesh_write_stl(file, &m, err, sizeof(err)), -1);
    expect_message(err, file);
    assert_int_equal(count_entries(path), 0);
  }

  // an invalid mesh is refused before any file exists
  snprintf(path, sizeof(path), "%s/bad.obj", dir);
  m.face[4] = m.nvert;
  assert_int_equal(tf_mesh_write_obj(path, &m, err, sizeof(err)), -1);
  expect_message(err, "out of range");
  m.face[4] = 0;
  m.vert[1] = 1e300;  // fine for OBJ, too large for float32 STL
  snprintf(path, sizeof(path), "%s/big.stl", dir);
  assert_int_equal(tf_mesh_write_stl(path, &m, err, sizeof(err)), -1);
  expect_message(err, "float32");
  assert_int_equal(count_entries(dir), 2);  // taken/ and readonly/

  tf_mesh_free(&m);
  snprintf(path, sizeof(path), "%s/readonly", dir);
  chmod(path, 0755);
  remove_temp_dir(dir);
}

static void test_read_errors_name_the_file(void** state) {
  (void)state;
  char dir[64], path[128], err[512];
  make_temp_dir(dir);
  tf_mesh m;
  snprintf(path, sizeof(path), "%s/none.obj", dir);
  assert_int_equal(tf_mesh_read(&m, path, err, sizeof(err)), -1);
  expect_message(err, path);
  expect_message(err, "cannot open");
  snprintf(path, sizeof(path), "%s/mesh.ply", dir);
  write_bytes(path, "ply\n", 4);
  assert_int_equal(tf_mesh_read(&m, path, err, sizeof(err)), -1);
  expect_message(err, "unknown mesh format");
  snprintf(path, sizeof(path), "%s/sub.stl", dir);
  assert_int_equal(mkdir(path, 0755), 0);
  assert_int_equal(tf_mesh_read(&m, path, err, sizeof(err)), -1);
  expect_message(err, "is a folder");
  snprintf(path, sizeof(path), "%s/broken.obj", dir);
  write_bytes(path, "v 0 0 0\nf 1 1\n", 14);
  assert_int_equal(tf_mesh_read(&m, path, err, sizeof(err)), -1);
  char want[160];
  snprintf(want, sizeof(want), "%s:2: a face needs at least 3", path);
  expect_message(err, want);
  remove_temp_dir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_obj_round_trip_is_exact),
      cmocka_unit_test(test_stl_round_trips_weld_back),
      cmocka_unit_test(test_obj_forms_in_the_wild),
      cmocka_unit_test(test_obj_rejects_malformed_with_line),
      cmocka_unit_test(test_stl_ascii_grammar),
      cmocka_unit_test(test_stl_binary_rejects_with_offset),
      cmocka_unit_test(test_weld_is_exact_and_deterministic),
      cmocka_unit_test(test_failed_writes_leave_nothing),
      cmocka_unit_test(test_read_errors_name_the_file),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
