// The MP4 writer against Debian's ffprobe: a 64-frame 320x240 30 fps video of a moving
// pattern with an overlay is H.264, 320x240, 30/1, 64 frames, yuv420p, 64/30 s long; the same
// frames give the same bytes; and every way to fail (odd or zero size, bad frame rate, a
// missing, unwritable or non-folder parent, a folder as the target, a short frame row, no
// frames, an abort) returns -1 with a one-line message and leaves no file behind, nor touches
// a file already at the destination.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "font.h"
#include "video_mp4.h"

// ---- a scratch folder per test

typedef struct fixture {
  char dir[64];
} fixture;

static int setup(void** state) {
  fixture* fx = calloc(1, sizeof *fx);
  if (!fx) return -1;
  snprintf(fx->dir, sizeof fx->dir, "/tmp/tf_video_mp4_XXXXXX");
  if (!mkdtemp(fx->dir)) return -1;
  *state = fx;
  return 0;
}

static int teardown(void** state) {
  fixture* fx = *state;
  chmod(fx->dir, 0700);
  DIR* d = opendir(fx->dir);
  if (d) {
    struct dirent* e;
    char path[512];
    while ((e = readdir(d)) != NULL) {
      if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2]))) {
        continue;
      }
      snprintf(path, sizeof path, "%s/%s", fx->dir, e->d_name);
      if (rmdir(path) != 0) unlink(path);
    }
    closedir(d);
  }
  rmdir(fx->dir);
  free(fx);
  return 0;
}

// entries in a folder other than . and ..
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

// ---- frames

// frame i of a synthetic scene: diagonal colour bands scrolling right, a white square
// crossing the frame, and the overlay a rollout video carries
static void draw_frame(uint8_t* rgb, int w, int h, int stride, int i, int fps) {
  for (int y = 0; y < h; y++) {
    for (int x = 0; x < w; x++) {
      uint8_t* p = rgb + (size_t)y * stride + 3 * x;
      int band = (x + y + 4 * i) / 16;
      p[0] = (uint8_t)(band * 37);
      p[1] = (uint8_t)(band * 91 + y);
      p[2] = (uint8_t)(255 - x * 255 / w);
    }
  }
  int side = h / 6, sx = (i * 5) % (w - side), sy = h / 2 - side / 2;
  for (int y = sy; y < sy + side; y++) memset(rgb + (size_t)y * stride + 3 * sx, 255, 3 * side);
  char text[128];
  snprintf(text, sizeof text, "peg  al  dt=2ms  t=%.3fs\ndepth=%.1f\xc2\xb5m", (double)i / fps,
           0.2 * i);
  tf_text_style style = tf_text_style_default();
  style.scale = 1;
  tf_font_draw(rgb, w, h, stride, 4, 4, text, &style);
}

// writes an n-frame video; 0, or -1 with err
static int write_video(const char* path, int w, int h, int fps, int n, char* err, size_t errlen) {
  tf_video_mp4* v;
  if (tf_video_mp4_open(&v, path, w, h, fps, err, errlen) != 0) return -1;
  int stride = 3 * w + 8;  // rows with padding, as a renderer's buffer may have
  uint8_t* rgb = calloc((size_t)stride * h, 1);
  assert_non_null(rgb);
  for (int i = 0; i < n; i++) {
    draw_frame(rgb, w, h, stride, i, fps);
    if (tf_video_mp4_add_frame(v, rgb, stride, err, errlen) != 0) {
      free(rgb);
      tf_video_mp4_abort(v);
      return -1;
    }
  }
  assert_int_equal(tf_video_mp4_frames(v), n);
  free(rgb);
  return tf_video_mp4_close(v, err, errlen);
}

// ---- ffprobe

// ffprobe's JSON for the file (stream 0's fields and the format's duration), or a failure
static cJSON* probe(const char* path) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "ffprobe -v error -select_streams v:0 -count_frames -show_entries "
           "stream=codec_name,width,height,r_frame_rate,nb_read_frames,pix_fmt:format=duration "
           "-of json '%s' 2>&1",
           path);
  FILE* p = popen(cmd, "r");
  assert_non_null(p);
  char buf[8192];
  size_t n = fread(buf, 1, sizeof buf - 1, p);
  buf[n] = 0;
  int rc = pclose(p);
  if (rc != 0) fail_msg("ffprobe failed (is Debian's ffmpeg installed?): %s", buf);
  cJSON* json = cJSON_Parse(buf);
  if (!json) fail_msg("ffprobe printed no JSON: %s", buf);
  return json;
}

static const char* field_string(const cJSON* obj, const char* name) {
  const cJSON* f = cJSON_GetObjectItemCaseSensitive(obj, name);
  if (!cJSON_IsString(f)) fail_msg("ffprobe: no string field %s", name);
  return f->valuestring;
}

static int field_int(const cJSON* obj, const char* name) {
  const cJSON* f = cJSON_GetObjectItemCaseSensitive(obj, name);
  if (!cJSON_IsNumber(f)) fail_msg("ffprobe: no number field %s", name);
  return f->valueint;
}

// checks what ffprobe reports against what was written
static void expect_probe(const char* path, int w, int h, int fps, int frames) {
  cJSON* json = probe(path);
  const cJSON* streams = cJSON_GetObjectItemCaseSensitive(json, "streams");
  assert_int_equal(cJSON_GetArraySize(streams), 1);
  const cJSON* s = cJSON_GetArrayItem(streams, 0);
  assert_string_equal(field_string(s, "codec_name"), "h264");
  assert_int_equal(field_int(s, "width"), w);
  assert_int_equal(field_int(s, "height"), h);
  char rate[32];
  snprintf(rate, sizeof rate, "%d/1", fps);
  assert_string_equal(field_string(s, "r_frame_rate"), rate);
  assert_string_equal(field_string(s, "pix_fmt"), "yuv420p");
  assert_int_equal(atoi(field_string(s, "nb_read_frames")), frames);
  const cJSON* format = cJSON_GetObjectItemCaseSensitive(json, "format");
  double duration = atof(field_string(format, "duration"));
  if (duration < (double)frames / fps - 1e-3 || duration > (double)frames / fps + 1e-3) {
    fail_msg("duration %.6f s, expected %.6f s", duration, (double)frames / fps);
  }
  cJSON_Delete(json);
}

static long file_size(const char* path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

// ---- tests

static void test_video_is_valid(void** state) {
  fixture* fx = *state;
  char path[128], err[512] = "";
  snprintf(path, sizeof path, "%s/rollout.mp4", fx->dir);
  if (write_video(path, 320, 240, 30, 64, err, sizeof err) != 0) fail_msg("%s", err);
  expect_probe(path, 320, 240, 30, 64);
  assert_int_equal(count_entries(fx->dir), 1);  // no temporary file left beside it
  assert_true(file_size(path) > 10000);         // a moving pattern, not empty frames
  assert_int_equal(access(path, R_OK), 0);
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0644);  // readable by a report's web server
}

static void test_other_rates_and_sizes(void** state) {
  fixture* fx = *state;
  char path[128], err[512] = "";
  snprintf(path, sizeof path, "%s/small:24fps.mp4", fx->dir);  // ':' is not a protocol here
  if (write_video(path, 66, 34, 24, 5, err, sizeof err) != 0) fail_msg("%s", err);
  expect_probe(path, 66, 34, 24, 5);
  snprintf(path, sizeof path, "%s/one.mp4", fx->dir);
  if (write_video(path, 2, 2, 1, 1, err, sizeof err) != 0) fail_msg("%s", err);
  expect_probe(path, 2, 2, 1, 1);
}

static void test_same_bytes(void** state) {
  fixture* fx = *state;
  char a[128], b[128], err[512] = "";
  snprintf(a, sizeof a, "%s/a.mp4", fx->dir);
  snprintf(b, sizeof b, "%s/b.mp4", fx->dir);
  if (write_video(a, 160, 120, 30, 40, err, sizeof err) != 0) fail_msg("%s", err);
  if (write_video(b, 160, 120, 30, 40, err, sizeof err) != 0) fail_msg("%s", err);
  long n = file_size(a);
  assert_true(n > 0);
  assert_int_equal(file_size(b), n);
  FILE* fa = fopen(a, "rb");
  FILE* fb = fopen(b, "rb");
  char* da = malloc((size_t)n);
  char* db = malloc((size_t)n);
  assert_int_equal(fread(da, 1, (size_t)n, fa), (size_t)n);
  assert_int_equal(fread(db, 1, (size_t)n, fb), (size_t)n);
  assert_memory_equal(da, db, (size_t)n);
  fclose(fa);
  fclose(fb);
  free(da);
  free(db);
}

// opening fails with a message naming the path and mentioning `needle`; nothing is created
static void expect_open_error(const char* dir, const char* path, int w, int h, int fps,
                              const char* needle) {
  tf_video_mp4* v = (tf_video_mp4*)&v;  // must be reset to NULL
  char err[512] = "";
  assert_int_equal(tf_video_mp4_open(&v, path, w, h, fps, err, sizeof err), -1);
  assert_null(v);
  if (!strstr(err, path) || !strstr(err, needle)) {
    fail_msg("message \"%s\" lacks \"%s\" or \"%s\"", err, path, needle);
  }
  assert_null(strchr(err, '\n'));
  assert_int_equal(count_entries(dir), 0);
}

static void test_bad_sizes_and_rates(void** state) {
  fixture* fx = *state;
  char path[128];
  snprintf(path, sizeof path, "%s/bad.mp4", fx->dir);
  expect_open_error(fx->dir, path, 321, 240, 30, "even");
  expect_open_error(fx->dir, path, 320, 239, 30, "even");
  expect_open_error(fx->dir, path, 0, 240, 30, "size");
  expect_open_error(fx->dir, path, 320, -2, 30, "size");
  expect_open_error(fx->dir, path, TF_VIDEO_MP4_MAX_SIDE + 2, 240, 30, "size");
  expect_open_error(fx->dir, path, 320, 240, 0, "frame rate");
  expect_open_error(fx->dir, path, 320, 240, TF_VIDEO_MP4_MAX_FPS + 1, "frame rate");
}

static void test_bad_paths(void** state) {
  fixture* fx = *state;
  char path[192];
  snprintf(path, sizeof path, "%s/missing/x.mp4", fx->dir);  // a folder that does not exist
  expect_open_error(fx->dir, path, 320, 240, 30, "No such file");
  char blocker[128];
  snprintf(blocker, sizeof blocker, "%s/plain_file", fx->dir);
  FILE* f = fopen(blocker, "w");
  assert_non_null(f);
  fclose(f);
  snprintf(path, sizeof path, "%s/x.mp4", blocker);  // a file where a folder should be
  tf_video_mp4* v;
  char err[512] = "";
  assert_int_equal(tf_video_mp4_open(&v, path, 320, 240, 30, err, sizeof err), -1);
  assert_non_null(strstr(err, "Not a directory"));
  assert_int_equal(count_entries(fx->dir), 1);  // the blocker only
  unlink(blocker);
  // the target is a folder
  snprintf(path, sizeof path, "%s/sub.mp4", fx->dir);
  assert_int_equal(mkdir(path, 0755), 0);
  assert_int_equal(tf_video_mp4_open(&v, path, 320, 240, 30, err, sizeof err), -1);
  assert_non_null(strstr(err, "folder"));
  assert_int_equal(count_entries(fx->dir), 1);
  rmdir(path);
  expect_open_error(fx->dir, "", 320, 240, 30, "empty path");
  // a folder nobody may write in, not even root: /proc
  assert_int_equal(tf_video_mp4_open(&v, "/proc/tightfit_test.mp4", 320, 240, 30, err, sizeof err),
                   -1);
  assert_non_null(strstr(err, "/proc/tightfit_test.mp4"));
  assert_int_equal(access("/proc/tightfit_test.mp4", F_OK), -1);
  // a read-only folder (root writes anyway, so only checked for other users)
  if (geteuid() != 0) {
    assert_int_equal(chmod(fx->dir, 0555), 0);
    snprintf(path, sizeof path, "%s/x.mp4", fx->dir);
    expect_open_error(fx->dir, path, 320, 240, 30, "Permission denied");
    chmod(fx->dir, 0700);
  }
}

// frames that fail, a video without frames and an abort: no file, and an older file at the
// destination survives untouched
static void test_failures_leave_nothing(void** state) {
  fixture* fx = *state;
  char path[128], err[512] = "";
  snprintf(path, sizeof path, "%s/keep.mp4", fx->dir);
  FILE* f = fopen(path, "w");
  assert_non_null(f);
  fputs("previous video", f);
  fclose(f);
  const long before = file_size(path);
  uint8_t rgb[3 * 64 * 48] = {0};

  tf_video_mp4* v;
  assert_int_equal(tf_video_mp4_open(&v, path, 64, 48, 30, err, sizeof err), 0);
  assert_string_equal(tf_video_mp4_encoder(v), "libx264");
  assert_int_equal(count_entries(fx->dir), 2);  // the old file and the temporary one
  assert_int_equal(tf_video_mp4_close(v, err, sizeof err), -1);  // no frames
  assert_non_null(strstr(err, "no frames"));
  assert_int_equal(count_entries(fx->dir), 1);
  assert_int_equal(file_size(path), before);

  assert_int_equal(tf_video_mp4_open(&v, path, 64, 48, 30, err, sizeof err), 0);
  assert_int_equal(tf_video_mp4_add_frame(v, rgb, 3 * 64, err, sizeof err), 0);
  assert_int_equal(tf_video_mp4_add_frame(v, rgb, 3 * 64 - 1, err, sizeof err), -1);
  assert_non_null(strstr(err, "shorter"));
  assert_int_equal(tf_video_mp4_add_frame(v, NULL, 3 * 64, err, sizeof err), -1);
  assert_int_equal(tf_video_mp4_frames(v), 1);
  assert_int_equal(tf_video_mp4_close(v, err, sizeof err), 0);  // a bad call is not a bad file
  expect_probe(path, 64, 48, 30, 1);

  assert_int_equal(tf_video_mp4_open(&v, path, 64, 48, 30, err, sizeof err), 0);
  for (int i = 0; i < 10; i++) {
    assert_int_equal(tf_video_mp4_add_frame(v, rgb, 3 * 64, err, sizeof err), 0);
  }
  tf_video_mp4_abort(v);  // Ctrl-C
  assert_int_equal(count_entries(fx->dir), 1);
  expect_probe(path, 64, 48, 30, 1);  // still the one-frame video
  tf_video_mp4_abort(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_video_is_valid, setup, teardown),
      cmocka_unit_test_setup_teardown(test_other_rates_and_sizes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_same_bytes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bad_sizes_and_rates, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bad_paths, setup, teardown),
      cmocka_unit_test_setup_teardown(test_failures_leave_nothing, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
