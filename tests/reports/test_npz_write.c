// The NPZ writer: the archive read back with libzip has one stored member per array, each a
// valid npy 1.0 header (64-byte aligned) followed by the exact bytes appended, slots
// interleaved and padded; numpy.load reads it (Debian's numpy, for /usr/bin/python3); and
// every failure (a missing folder, a full disk, an interrupt, an abort) leaves nothing in the
// folder, temporary files included.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zip.h>

#include "test_folder.h"
#include "npz_write.h"

// member name of the archive at path, whole, into a heap buffer
static unsigned char* member(const char* path, const char* name, size_t* size, int* method) {
  int code = 0;
  zip_t* za = zip_open(path, ZIP_RDONLY, &code);
  assert_non_null(za);
  zip_stat_t st;
  assert_int_equal(zip_stat(za, name, 0, &st), 0);
  *method = st.comp_method;
  unsigned char* data = malloc(st.size + 1);
  zip_file_t* f = zip_fopen(za, name, 0);
  assert_non_null(f);
  assert_int_equal(zip_fread(f, data, st.size), (zip_int64_t)st.size);
  zip_fclose(f);
  zip_discard(za);
  *size = st.size;
  return data;
}

// checks the member's npy header says dict (up to its padding) and returns where data starts
static size_t check_header(const unsigned char* m, size_t size, const char* dict) {
  assert_true(size >= 10);
  assert_memory_equal(m, "\x93NUMPY\x01\x00", 8);
  size_t hlen = (size_t)m[8] | (size_t)m[9] << 8;
  assert_int_equal((10 + hlen) % 64, 0);
  assert_true(10 + hlen <= size);
  assert_int_equal(m[10 + hlen - 1], '\n');
  size_t n = strlen(dict);
  assert_memory_equal(m + 10, dict, n);
  for (size_t i = 10 + n; i < 10 + hlen - 1; i++) assert_int_equal(m[i], ' ');
  return 10 + hlen;
}

// a small file of every kind: rows (3 x 2 doubles), a scalar, names, and 3 slots of 2, 0, 3
// rows of int32 pairs (fill -1)
static void write_sample(const char* path) {
  char err[512];
  tf_npz_writer* w = tf_npz_open(path, NULL, err, sizeof(err));
  assert_non_null(w);
  tf_npz_def rows = {.name = "pos", .dtype = TF_NPZ_F64, .kind = TF_NPZ_ROWS, .ndim = 1};
  rows.shape[0] = 2;
  int id = tf_npz_declare(w, &rows);
  assert_int_equal(id, 0);
  const double a[6] = {1, 2, 3, 4, 5, 6};
  assert_int_equal(tf_npz_append(w, id, a, 1), 0);
  assert_int_equal(tf_npz_append(w, id, a + 2, 2), 0);
  const double dt = 0.002;
  assert_int_equal(tf_npz_put(w, "dt", TF_NPZ_F64, 0, 0, NULL, &dt), 0);
  const char names[2][6] = {"world", "peg"};
  long two = 2;
  assert_int_equal(tf_npz_put(w, "names", TF_NPZ_BYTES, 6, 1, &two, names), 0);
  tf_npz_def slots = {.name = "ncon", .dtype = TF_NPZ_I32, .kind = TF_NPZ_SLOTS, .ndim = 1};
  slots.shape[0] = 2;
  slots.nslot = 3;
  slots.fill = -1;
  int sid = tf_npz_declare(w, &slots);
  const int32_t s0[4] = {1, 2, 3, 4}, s2[6] = {10, 11, 12, 13, 14, 15};
  assert_int_equal(tf_npz_append_slot(w, sid, 0, s0, 2), 0);
  assert_int_equal(tf_npz_append_slot(w, sid, 2, s2, 1), 0);
  assert_int_equal(tf_npz_append_slot(w, sid, 2, s2 + 2, 2), 0);
  assert_string_equal(tf_npz_error(w), "");
  assert_int_equal(tf_npz_close(w, err, sizeof(err)), 0);
}

static void test_round_trip(void** state) {
  (void)state;
  char dir[64], path[128];
  test_make_folder(dir, "tightfit_npz");
  snprintf(path, sizeof(path), "%s/a.npz", dir);
  write_sample(path);
  assert_int_equal(test_folder_entries(dir), 1);  // the archive alone: no temporary file left

  size_t size;
  int method;
  unsigned char* m = member(path, "pos.npy", &size, &method);
  assert_int_equal(method, ZIP_CM_STORE);
  size_t at = check_header(m, size, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }");
  const double a[6] = {1, 2, 3, 4, 5, 6};
  assert_int_equal(size - at, sizeof(a));
  assert_memory_equal(m + at, a, sizeof(a));
  free(m);

  m = member(path, "dt.npy", &size, &method);
  at = check_header(m, size, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }");
  double dt;
  assert_int_equal(size - at, 8);
  memcpy(&dt, m + at, 8);
  assert_true(dt == 0.002);
  free(m);

  m = member(path, "names.npy", &size, &method);
  at = check_header(m, size, "{'descr': '|S6', 'fortran_order': False, 'shape': (2,), }");
  assert_int_equal(size - at, 12);
  assert_memory_equal(m + at, "world\0peg\0\0\0", 12);
  free(m);

  // slots interleaved per row: (t, slot); slot 1 never ran, slot 0 stopped after 2 rows
  m = member(path, "ncon.npy", &size, &method);
  at = check_header(m, size, "{'descr': '<i4', 'fortran_order': False, 'shape': (3, 3, 2), }");
  const int32_t want[18] = {1, 2, -1, -1, 10, 11, 3, 4, -1, -1, 12, 13, -1, -1, -1, -1, 14, 15};
  assert_int_equal(size - at, sizeof(want));
  assert_memory_equal(m + at, want, sizeof(want));
  free(m);
  test_remove_tree(dir);
}

// runs a Python program with Debian's numpy (the machine's default python3 may not see it)
static int run_python(const char* program, const char* arg) {
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    execl("/usr/bin/python3", "python3", "-c", program, arg, (char*)NULL);
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_numpy_loads(void** state) {
  (void)state;
  char dir[64], path[128];
  test_make_folder(dir, "tightfit_npz");
  snprintf(path, sizeof(path), "%s/a.npz", dir);
  write_sample(path);
  static const char program[] =
      "import sys, numpy as np\n"
      "z = np.load(sys.argv[1])\n"
      "assert sorted(z.files) == ['dt', 'names', 'ncon', 'pos'], z.files\n"
      "assert z['pos'].dtype == np.float64 and z['pos'].shape == (3, 2)\n"
      "assert (z['pos'] == np.arange(1, 7).reshape(3, 2)).all()\n"
      "assert z['dt'].shape == () and z['dt'] == 0.002\n"
      "assert list(z['names']) == [b'world', b'peg']\n"
      "n = z['ncon']\n"
      "assert n.dtype == np.int32 and n.shape == (3, 3, 2)\n"
      "assert (n[:, 1] == -1).all() and (n[2, 0] == -1).all()\n"
      "assert (n[:, 2].ravel() == np.arange(10, 16)).all()\n";
  assert_int_equal(run_python(program, path), 0);
  test_remove_tree(dir);
}

// many rows in several slots: the read-ahead caches refill many times while interleaving
static void test_long_slots(void** state) {
  (void)state;
  char dir[64], path[128], err[512];
  test_make_folder(dir, "tightfit_npz");
  snprintf(path, sizeof(path), "%s/long.npz", dir);
  tf_npz_writer* w = tf_npz_open(path, NULL, err, sizeof(err));
  assert_non_null(w);
  enum { NSLOT = 3, T = 5000 };
  tf_npz_def def = {.name = "x", .dtype = TF_NPZ_F64, .kind = TF_NPZ_SLOTS, .ndim = 1};
  def.shape[0] = 3;
  def.nslot = NSLOT;
  def.fill = NAN;
  int id = tf_npz_declare(w, &def);
  for (int k = 0; k < NSLOT; k++) {
    for (long t = 0; t < T - k; t++) {
      double row[3] = {(double)k, (double)t, (double)(t * NSLOT + k)};
      assert_int_equal(tf_npz_append_slot(w, id, k, row, 1), 0);
    }
  }
  assert_int_equal(tf_npz_close(w, err, sizeof(err)), 0);
  size_t size;
  int method;
  unsigned char* m = member(path, "x.npy", &size, &method);
  size_t at =
      check_header(m, size, "{'descr': '<f8', 'fortran_order': False, 'shape': (5000, 3, 3), }");
  assert_int_equal(size - at, sizeof(double) * 3 * NSLOT * T);
  const double* x = (const double*)(m + at);
  for (long t = 0; t < T; t++) {
    for (int k = 0; k < NSLOT; k++) {
      const double* row = x + 3 * (t * NSLOT + k);
      if (t < T - k) {
        assert_true(row[0] == k && row[1] == t && row[2] == t * NSLOT + k);
      } else {
        assert_true(isnan(row[0]) && isnan(row[1]) && isnan(row[2]));
      }
    }
  }
  free(m);
  test_remove_tree(dir);
}

static void test_bad_paths(void** state) {
  (void)state;
  char err[512], dir[64], path[128];
  assert_null(tf_npz_open("/tmp/tightfit_no_such_folder/x/a.npz", NULL, err, sizeof(err)));
  assert_non_null(strstr(err, "/tmp/tightfit_no_such_folder/x/a.npz: cannot create a file"));
  assert_null(strchr(err, '\n'));
  test_make_folder(dir, "tightfit_npz");
  assert_null(tf_npz_open(dir, NULL, err, sizeof(err)));
  assert_non_null(strstr(err, "is a folder"));
  // a read-only folder (root may write anyway: then only the first checks stand)
  chmod(dir, 0555);
  snprintf(path, sizeof(path), "%s/a.npz", dir);
  tf_npz_writer* w = tf_npz_open(path, NULL, err, sizeof(err));
  if (geteuid() != 0) {
    assert_null(w);
    assert_non_null(strstr(err, "Permission denied"));
  }
  tf_npz_abort(w);
  chmod(dir, 0755);
  assert_int_equal(test_folder_entries(dir), 0);
  test_remove_tree(dir);
}

static void test_bad_declarations(void** state) {
  (void)state;
  char err[512], dir[64], path[128];
  test_make_folder(dir, "tightfit_npz");
  snprintf(path, sizeof(path), "%s/a.npz", dir);
  tf_npz_writer* w = tf_npz_open(path, NULL, err, sizeof(err));
  tf_npz_def def = {.name = "bad name", .dtype = TF_NPZ_F64};
  assert_int_equal(tf_npz_declare(w, &def), -1);
  assert_non_null(strstr(tf_npz_error(w), "array 'bad name'"));
  // the first error sticks: a good declaration after it fails too, and close writes nothing
  def.name = "good";
  assert_int_equal(tf_npz_declare(w, &def), -1);
  assert_int_equal(tf_npz_close(w, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "bad name"));
  assert_int_equal(test_folder_entries(dir), 0);

  // slots in one stretch each; a whole array written once; an archive needs an array
  w = tf_npz_open(path, NULL, err, sizeof(err));
  tf_npz_def s = {.name = "s", .dtype = TF_NPZ_I64, .kind = TF_NPZ_SLOTS, .nslot = 2};
  int id = tf_npz_declare(w, &s);
  int64_t v = 1;
  assert_int_equal(tf_npz_append_slot(w, id, 0, &v, 1), 0);
  assert_int_equal(tf_npz_append_slot(w, id, 1, &v, 1), 0);
  assert_int_equal(tf_npz_append_slot(w, id, 0, &v, 1), -1);
  assert_non_null(strstr(tf_npz_error(w), "slot 0 appended again after slot 1"));
  tf_npz_abort(w);
  w = tf_npz_open(path, NULL, err, sizeof(err));
  assert_int_equal(tf_npz_close(w, err, sizeof(err)), -1);
  assert_non_null(strstr(err, "no arrays"));
  assert_int_equal(test_folder_entries(dir), 0);
  test_remove_tree(dir);
}

// an abort after rows were written, and an interrupt before close, leave an empty folder
static void test_abort_and_interrupt(void** state) {
  (void)state;
  char err[512], dir[64], path[128];
  test_make_folder(dir, "tightfit_npz");
  snprintf(path, sizeof(path), "%s/a.npz", dir);
  tf_npz_writer* w = tf_npz_open(path, NULL, err, sizeof(err));
  tf_npz_def def = {.name = "x", .dtype = TF_NPZ_U8};
  int id = tf_npz_declare(w, &def);
  unsigned char bytes[1000] = {0};
  assert_int_equal(tf_npz_append(w, id, bytes, 1000), 0);
  assert_int_equal(test_folder_entries(dir), 0);  // rows live in unlinked files
  tf_npz_abort(w);
  assert_int_equal(test_folder_entries(dir), 0);

  volatile sig_atomic_t cancel = 0;
  w = tf_npz_open(path, &cancel, err, sizeof(err));
  id = tf_npz_declare(w, &def);
  assert_int_equal(tf_npz_append(w, id, bytes, 1000), 0);
  cancel = 1;
  assert_int_equal(tf_npz_close(w, err, sizeof(err)), -1);
  assert_string_equal(strstr(err, "interrupted"), "interrupted");
  assert_int_equal(test_folder_entries(dir), 0);
  test_remove_tree(dir);
}

// a disk that fills up (a file size limit: writes past it fail with EFBIG) while the rows are
// written or while the archive is: one line naming the file, and nothing left in the folder.
// In a child process, whose limit does not reach the test runner
static void full_disk(long limit, long rows) {
  char dir[64], path[128];
  test_make_folder(dir, "tightfit_npz");
  snprintf(path, sizeof(path), "%s/full.npz", dir);
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = {(rlim_t)limit, (rlim_t)limit};
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(10);
    char err[512];
    tf_npz_writer* w = tf_npz_open(path, NULL, err, sizeof(err));
    if (!w) _exit(11);
    tf_npz_def def = {.name = "x", .dtype = TF_NPZ_F64, .kind = TF_NPZ_ROWS, .ndim = 1};
    def.shape[0] = 16;
    int id = tf_npz_declare(w, &def);
    double row[16] = {0};
    for (long i = 0; i < rows; i++) tf_npz_append(w, id, row, 1);
    int rc = tf_npz_close(w, err, sizeof(err));
    // one line that names the file
    if (rc == 0 || strncmp(err, path, strlen(path)) != 0 || strchr(err, '\n')) _exit(12);
    _exit(0);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
  assert_int_equal(test_folder_entries(dir), 0);
  test_remove_tree(dir);
}

static void test_full_disk(void** state) {
  (void)state;
  full_disk(100000, 10000);  // the rows (1.3 MB) do not fit
  full_disk(640010, 5000);   // the rows (640 kB) fit, the archive (with its headers) does not
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip),       cmocka_unit_test(test_numpy_loads),
      cmocka_unit_test(test_long_slots),       cmocka_unit_test(test_bad_paths),
      cmocka_unit_test(test_bad_declarations), cmocka_unit_test(test_abort_and_interrupt),
      cmocka_unit_test(test_full_disk),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
