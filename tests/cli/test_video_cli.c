// `tightfit video` end to end: the MP4 is valid (ffprobe: h264, the size and fps asked for,
// one frame per 1 / fps of simulated time plus the first), the thumbnail exists, and a broken
// output path or an unwritable folder gives exit 2 with a message and no file left behind.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <dirent.h>

#include "cli_exec.h"

static char* make_dir(void) {
  char* dir = strdup("/tmp/tightfit_video_XXXXXX");
  assert_non_null(mkdtemp(dir));
  return dir;
}

static int count_entries(const char* dir) {
  DIR* d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  struct dirent* e;
  while ((e = readdir(d))) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

static void remove_dir(const char* dir) {
  DIR* d = opendir(dir);
  if (!d) return;
  struct dirent* e;
  char path[512];
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
    remove(path);
  }
  closedir(d);
  rmdir(dir);
}

// ffprobe's answer for the first video stream: codec,width,height,rate,frames
static void probe(const char* file, char* out, size_t n) {
  char cmd[1024];
  snprintf(cmd, sizeof(cmd),
           "ffprobe -v error -select_streams v:0 -count_frames -show_entries "
           "stream=codec_name,width,height,r_frame_rate,nb_read_frames,pix_fmt -of "
           "csv=p=0 '%s'",
           file);
  FILE* p = popen(cmd, "r");
  assert_non_null(p);
  size_t got = fread(out, 1, n - 1, p);
  out[got] = 0;
  assert_int_equal(pclose(p), 0);
  char* nl = strchr(out, '\n');
  if (nl) *nl = 0;
}

static void test_video_valid(void** state) {
  (void)state;
  char* dir = make_dir();
  char mp4[256], png[256];
  snprintf(mp4, sizeof(mp4), "%s/peg.mp4", dir);
  snprintf(png, sizeof(png), "%s/peg.png", dir);
  // 0.2 s at 25 fps: frames at t = 0, 0.04, ..., 0.2
  const char* args[] = {"video", "--task",      "peg",     "--duration", "0.2",     "--fps",
                        "25",    "--size",      "320x240", "--camera",   "closeup", "--out",
                        mp4,     "--thumbnail", png,       NULL};
  cli_exec_result r = cli_exec(args);
  assert_true(r.exited);
  if (r.code != 0) print_message("%s", r.err);
  assert_int_equal(r.code, 0);
  cli_exec_free(&r);
  char info[256];
  probe(mp4, info, sizeof(info));
  print_message("ffprobe: %s\n", info);
  assert_string_equal(info, "h264,320,240,yuv420p,25/1,6");
  FILE* f = fopen(png, "rb");
  assert_non_null(f);
  fclose(f);
  assert_int_equal(count_entries(dir), 2);  // no temporary file left
  remove_dir(dir);
  free(dir);
}

static void test_video_grid(void** state) {
  (void)state;
  char* dir = make_dir();
  char mp4[256];
  snprintf(mp4, sizeof(mp4), "%s/grid.mp4", dir);
  const char* args[] = {"video",  "--task",  "connectors", "--duration", "0.1",   "--fps", "20",
                        "--size", "160x120", "--camera",   "grid",       "--out", mp4,     NULL};
  cli_exec_result r = cli_exec(args);
  assert_int_equal(r.code, 0);
  cli_exec_free(&r);
  char info[256];
  probe(mp4, info, sizeof(info));
  assert_string_equal(info, "h264,160,120,yuv420p,20/1,3");
  remove_dir(dir);
  free(dir);
}

// a missing folder, a file where a folder should be, an odd size: exit 2, one line, no file
static void test_video_bad_output(void** state) {
  (void)state;
  char* dir = make_dir();
  char missing[256], blocker[256], under[300], odd[256];
  snprintf(missing, sizeof(missing), "%s/no/such/dir/out.mp4", dir);
  snprintf(blocker, sizeof(blocker), "%s/file", dir);
  snprintf(under, sizeof(under), "%s/out.mp4", blocker);
  snprintf(odd, sizeof(odd), "%s/odd.mp4", dir);
  FILE* f = fopen(blocker, "w");
  assert_non_null(f);
  fclose(f);
  const char* paths[] = {missing, under};
  for (int i = 0; i < 2; i++) {
    const char* args[] = {"video", "--task", "peg", "--duration", "0.05", "--out", paths[i], NULL};
    cli_exec_result r = cli_exec(args);
    assert_true(r.exited);
    assert_int_equal(r.code, 2);
    assert_non_null(strstr(r.err, "tightfit video: "));
    assert_non_null(strchr(r.err, '\n'));
    assert_int_equal(strchr(r.err, '\n')[1], 0);  // one line
    cli_exec_free(&r);
  }
  const char* args[] = {"video",  "--task",  "peg",   "--duration", "0.05",
                        "--size", "321x240", "--out", odd,          NULL};
  cli_exec_result r = cli_exec(args);
  assert_int_equal(r.code, 2);
  assert_non_null(strstr(r.err, "even"));
  cli_exec_free(&r);
  assert_int_equal(count_entries(dir), 1);  // only the blocker file
  remove_dir(dir);
  free(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_video_valid),
      cmocka_unit_test(test_video_grid),
      cmocka_unit_test(test_video_bad_output),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
