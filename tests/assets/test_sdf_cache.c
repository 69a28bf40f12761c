// Tests of the grid SDF cache (sdf_cache.h), each in its own temporary cache folder: a hit is
// at least 20x faster than the bake and returns the same bits; truncated, corrupt, stale and
// foreign entries are detected, rebuilt and replaced; TIGHTFIT_CACHE=0 bypasses the cache;
// a folder that cannot be written only costs the store; the default folder follows the
// environment.
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

#include "mesh_reference.h"
#include "sdf_cache.h"

typedef struct fixture {
  char dir[64];
  tf_mesh mesh;
  tf_sdf_bake_options opt;
} fixture;

// a temporary cache folder and a torus to bake
static int setup(void** state) {
  fixture* fx = calloc(1, sizeof(fixture));
  snprintf(fx->dir, sizeof(fx->dir), "/tmp/tf_sdf_cache_XXXXXX");
  if (!mkdtemp(fx->dir)) return -1;
  setenv("TIGHTFIT_CACHE_DIR", fx->dir, 1);
  unsetenv("TIGHTFIT_CACHE");
  char err[256];
  if (tf_mesh_torus(&fx->mesh, 0.03, 0.01, 64, 24, err, sizeof(err))) return -1;
  fx->opt = tf_sdf_bake_options_default();
  fx->opt.nodes = 32;  // coarse: most tests rebake several times
  fx->opt.threads = 0;
  *state = fx;
  return 0;
}

static int teardown(void** state) {
  fixture* fx = *state;
  DIR* d = opendir(fx->dir);
  if (d) {
    struct dirent* e;
    char path[512];
    while ((e = readdir(d)) != NULL) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
      snprintf(path, sizeof(path), "%s/%s", fx->dir, e->d_name);
      if (unlink(path) != 0) rmdir(path);
    }
    closedir(d);
  }
  rmdir(fx->dir);
  tf_mesh_free(&fx->mesh);
  unsetenv("TIGHTFIT_CACHE_DIR");
  unsetenv("TIGHTFIT_CACHE");
  free(fx);
  return 0;
}

// one load of the fixture's mesh; fails the test on error
static void load(tf_sdf_grid* g, tf_sdf_cache_info* info, const fixture* fx) {
  char err[512] = "";
  int rc = tf_sdf_cache_load(g, info, fx->mesh.vert, fx->mesh.nvert, fx->mesh.face, fx->mesh.nface,
                             &fx->opt, err, sizeof(err));
  if (rc) print_message("%s\n", err);
  assert_int_equal(rc, 0);
}

static size_t grid_bytes(const tf_sdf_grid* g) {
  return sizeof(float) * (size_t)g->res[0] * g->res[1] * g->res[2];
}

static void expect_same_grid(const tf_sdf_grid* a, const tf_sdf_grid* b) {
  assert_memory_equal(a->res, b->res, sizeof(a->res));
  assert_memory_equal(a->origin, b->origin, sizeof(a->origin));
  assert_true(a->cell == b->cell && a->error_bound == b->error_bound);
  assert_memory_equal(a->aabb, b->aabb, sizeof(a->aabb));
  assert_memory_equal(a->value, b->value, grid_bytes(a));
}

static long file_size(const char* path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static int count_entries(const char* dir) {
  DIR* d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  struct dirent* e;
  while ((e = readdir(d)) != NULL) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

static void test_hit_is_20x_faster_and_identical(void** state) {
  fixture* fx = *state;
  fx->opt.nodes = 64;
  fx->opt.threads = 1;  // the bake a user without spare cores would see
  tf_sdf_grid baked, loaded;
  tf_sdf_cache_info info;
  load(&baked, &info, fx);
  assert_int_equal(info.source, TF_SDF_CACHE_MISS);
  assert_int_equal(info.stored, 1);
  assert_true(strncmp(info.path, fx->dir, strlen(fx->dir)) == 0);
  assert_int_equal(file_size(info.path), 176 + (long)grid_bytes(&baked));
  double bake_seconds = info.seconds;
  double best = INFINITY;
  for (int i = 0; i < 3; i++) {
    load(&loaded, &info, fx);
    assert_int_equal(info.source, TF_SDF_CACHE_HIT);
    assert_string_equal(info.note, "");
    expect_same_grid(&loaded, &baked);
    tf_sdf_grid_free(&loaded);
    best = fmin(best, info.seconds);
  }
  print_message("  bake %.1f ms, cache hit %.2f ms: %.0fx\n", 1e3 * bake_seconds, 1e3 * best,
                bake_seconds / best);
  assert_true(bake_seconds >= 20 * best);
  assert_int_equal(count_entries(fx->dir), 1);  // no temporary files left
  tf_sdf_grid_free(&baked);
}

// damages the entry with `damage`, loads (expecting a rebuild whose note has `why`), and
// checks the rebuilt entry is whole again
static void expect_rebuild(fixture* fx, const tf_sdf_grid* good, const char* path,
                           void (*damage)(const char* path, long size), const char* why) {
  damage(path, file_size(path));
  tf_sdf_grid g;
  tf_sdf_cache_info info;
  load(&g, &info, fx);
  if (info.source != TF_SDF_CACHE_REBUILT || !strstr(info.note, why)) {
    print_message("source %d, note '%s', wanted '%s'\n", info.source, info.note, why);
    fail();
  }
  assert_non_null(strstr(info.note, path));
  assert_int_equal(info.stored, 1);
  expect_same_grid(&g, good);
  tf_sdf_grid_free(&g);
  load(&g, &info, fx);
  assert_int_equal(info.source, TF_SDF_CACHE_HIT);
  expect_same_grid(&g, good);
  tf_sdf_grid_free(&g);
}

// overwrites n bytes at offset
static void poke(const char* path, long offset, const void* bytes, size_t n) {
  FILE* f = fopen(path, "r+b");
  assert_non_null(f);
  fseek(f, offset, SEEK_SET);
  assert_int_equal(fwrite(bytes, 1, n, f), n);
  fclose(f);
}

static void cut_in_half(const char* path, long size) {
  assert_int_equal(truncate(path, size / 2), 0);
}
static void cut_header(const char* path, long size) {
  (void)size;
  assert_int_equal(truncate(path, 100), 0);
}
static void cut_last_byte(const char* path, long size) {
  assert_int_equal(truncate(path, size - 1), 0);
}
static void flip_payload_byte(const char* path, long size) {
  unsigned char x = 0x5a;
  poke(path, size / 2, &x, 1);
}
static void flip_cell(const char* path, long size) {
  (void)size;
  double cell = 1.0;
  poke(path, 64 + 24, &cell, sizeof(cell));
}
static void old_version(const char* path, long size) {
  (void)size;
  uint32_t version = 0;
  poke(path, 12, &version, sizeof(version));
}
static void not_ours(const char* path, long size) {
  (void)size;
  poke(path, 0, "GARBAGE!", 8);
}
static void append_bytes(const char* path, long size) {
  (void)size;
  FILE* f = fopen(path, "ab");
  assert_non_null(f);
  fputs("tail", f);
  fclose(f);
}

static void test_bad_entries_are_rebuilt(void** state) {
  fixture* fx = *state;
  tf_sdf_grid good;
  tf_sdf_cache_info info;
  load(&good, &info, fx);
  char path[TF_PATH_MAX];
  snprintf(path, sizeof(path), "%s", info.path);
  expect_rebuild(fx, &good, path, cut_in_half, "truncated");
  expect_rebuild(fx, &good, path, cut_header, "truncated (100 bytes");
  expect_rebuild(fx, &good, path, cut_last_byte, "truncated");
  expect_rebuild(fx, &good, path, flip_payload_byte, "corrupt payload");
  expect_rebuild(fx, &good, path, flip_cell, "corrupt header");
  expect_rebuild(fx, &good, path, old_version, "stale: format version 0");
  expect_rebuild(fx, &good, path, not_ours, "not a tightfit SDF cache file");
  expect_rebuild(fx, &good, path, append_bytes, "past the payload");
  tf_sdf_grid_free(&good);
}

static void test_stale_entries_are_not_trusted(void** state) {
  fixture* fx = *state;
  tf_sdf_grid a, b;
  tf_sdf_cache_info ia, ib;
  load(&a, &ia, fx);
  // another resolution is another entry
  fx->opt.nodes = 40;
  assert_int_not_equal(ia.source, TF_SDF_CACHE_HIT);
  load(&b, &ib, fx);
  assert_int_equal(ib.source, TF_SDF_CACHE_MISS);
  assert_string_not_equal(ia.path, ib.path);
  // an entry under the wrong name (as after a hash collision) is detected
  assert_int_equal(rename(ia.path, ib.path), 0);
  tf_sdf_grid_free(&b);
  load(&b, &ib, fx);
  assert_int_equal(ib.source, TF_SDF_CACHE_REBUILT);
  assert_non_null(strstr(ib.note, "stale: made for another mesh or resolution"));
  assert_int_equal(b.res[0], 40);
  // the same mesh moved by a hair is another mesh
  fx->opt.nodes = 32;
  fx->mesh.vert[0] += 1e-12;
  tf_sdf_grid c;
  load(&c, &ib, fx);
  assert_int_equal(ib.source, TF_SDF_CACHE_MISS);
  tf_sdf_grid_free(&a);
  tf_sdf_grid_free(&b);
  tf_sdf_grid_free(&c);
}

static void test_cache_off_bypasses(void** state) {
  fixture* fx = *state;
  setenv("TIGHTFIT_CACHE", "0", 1);
  tf_sdf_grid g;
  tf_sdf_cache_info info;
  load(&g, &info, fx);
  assert_int_equal(info.source, TF_SDF_CACHE_OFF);
  assert_int_equal(info.stored, 0);
  assert_string_equal(info.path, "");
  assert_int_equal(count_entries(fx->dir), 0);
  tf_sdf_grid_free(&g);
  load(&g, &info, fx);  // still not read
  assert_int_equal(info.source, TF_SDF_CACHE_OFF);
  tf_sdf_grid_free(&g);
  setenv("TIGHTFIT_CACHE", "1", 1);
  load(&g, &info, fx);
  assert_int_equal(info.source, TF_SDF_CACHE_MISS);
  assert_int_equal(count_entries(fx->dir), 1);
  tf_sdf_grid_free(&g);
}

static void test_unwritable_folder_only_costs_the_store(void** state) {
  fixture* fx = *state;
  char blocker[128], dir[160];
  snprintf(blocker, sizeof(blocker), "%s/plain_file", fx->dir);
  FILE* f = fopen(blocker, "w");
  assert_non_null(f);
  fclose(f);
  snprintf(dir, sizeof(dir), "%s/sub", blocker);  // a folder below a file cannot exist
  setenv("TIGHTFIT_CACHE_DIR", dir, 1);
  tf_sdf_grid g;
  tf_sdf_cache_info info;
  load(&g, &info, fx);
  assert_int_equal(info.source, TF_SDF_CACHE_MISS);
  assert_int_equal(info.stored, 0);
  assert_non_null(strstr(info.note, "not stored"));
  assert_non_null(strstr(info.note, dir));
  assert_non_null(g.value);
  assert_int_equal(count_entries(fx->dir), 1);  // just the blocker
  tf_sdf_grid_free(&g);
}

static void test_folder_follows_the_environment(void** state) {
  (void)state;
  char dir[TF_PATH_MAX];
  char* home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
  char* xdg = getenv("XDG_CACHE_HOME") ? strdup(getenv("XDG_CACHE_HOME")) : NULL;
  setenv("TIGHTFIT_CACHE_DIR", "/somewhere/cache", 1);
  assert_int_equal(tf_sdf_cache_dir(dir, sizeof(dir)), 1);
  assert_string_equal(dir, "/somewhere/cache");
  unsetenv("TIGHTFIT_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  assert_int_equal(tf_sdf_cache_dir(dir, sizeof(dir)), 1);
  assert_string_equal(dir, "/xdg/tightfit");
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/someone", 1);
  assert_int_equal(tf_sdf_cache_dir(dir, sizeof(dir)), 1);
  assert_string_equal(dir, "/home/someone/.cache/tightfit");
  unsetenv("HOME");
  assert_int_equal(tf_sdf_cache_dir(dir, sizeof(dir)), 1);
  assert_string_equal(dir, ".tightfit-cache");
  setenv("TIGHTFIT_CACHE", "0", 1);
  assert_int_equal(tf_sdf_cache_dir(dir, sizeof(dir)), 0);
  if (home) setenv("HOME", home, 1);
  if (xdg) setenv("XDG_CACHE_HOME", xdg, 1);
  free(home);
  free(xdg);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_hit_is_20x_faster_and_identical, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bad_entries_are_rebuilt, setup, teardown),
      cmocka_unit_test_setup_teardown(test_stale_entries_are_not_trusted, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cache_off_bypasses, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unwritable_folder_only_costs_the_store, setup, teardown),
      cmocka_unit_test_setup_teardown(test_folder_follows_the_environment, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
