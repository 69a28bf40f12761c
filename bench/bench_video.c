// Video benchmark: H.264 encode speed of the MP4 writer at 640x480 on one thread (its only
// mode), frames per second over 150 frames (5 s at 30 fps) of a moving synthetic scene with
// an overlay, colour conversion, encoding, muxing and the final fsync included; the best of
// three runs. Also the overlay's cost per frame (a two-line caption at scale 2). The frames
// are drawn before the clock starts, so only the writer is timed. Prints one JSON object.
// `--quick`: 30 frames, one run.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_stats.h"
#include "font.h"
#include "video_mp4.h"

#define WIDTH 640
#define HEIGHT 480
#define FPS 30

// frame i: scrolling colour bands, a moving bright block, smooth shading (what a rendered
// scene roughly looks like to an encoder: flat areas, edges and motion)
static void draw_scene(uint8_t* rgb, int i) {
  for (int y = 0; y < HEIGHT; y++) {
    for (int x = 0; x < WIDTH; x++) {
      uint8_t* p = rgb + 3 * (y * WIDTH + x);
      int band = (x + 2 * y + 3 * i) / 40;
      p[0] = (uint8_t)(60 + (band % 5) * 30);
      p[1] = (uint8_t)(80 + y / 4);
      p[2] = (uint8_t)(200 - x / 4);
    }
  }
  int side = 96, sx = (i * 7) % (WIDTH - side), sy = 200 + (int)(40 * sin(0.2 * i));
  for (int y = sy; y < sy + side; y++) memset(rgb + 3 * (y * WIDTH + sx), 230, 3 * side);
}

static void caption(char* text, size_t n, int i) {
  snprintf(text, n, "peg  al  dt=2ms  t=%.3fs\ndepth=%.1f\xc2\xb5m", (double)i / FPS, 0.1 * i);
}

int main(int argc, char** argv) {
  int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  const int nframes = quick ? 30 : 150, rounds = quick ? 1 : 3;
  const size_t frame_bytes = 3 * WIDTH * HEIGHT;
  uint8_t* frames = malloc(frame_bytes * nframes);
  if (!frames) return 1;
  tf_text_style style = tf_text_style_default();
  char text[128];
  double overlay_best = INFINITY;
  for (int i = 0; i < nframes; i++) {
    draw_scene(frames + frame_bytes * i, i);
    caption(text, sizeof text, i);
    double t0 = bench_now();
    tf_font_draw(frames + frame_bytes * i, WIDTH, HEIGHT, 3 * WIDTH, 8, 8, text, &style);
    overlay_best = fmin(overlay_best, bench_now() - t0);
  }

  char dir[] = "/tmp/tf_bench_video_XXXXXX", path[64], err[512];
  if (!mkdtemp(dir)) return 1;
  snprintf(path, sizeof path, "%s/bench.mp4", dir);
  double best = INFINITY;
  const char* encoder = "?";
  char encoder_name[32] = "";
  for (int r = 0; r < rounds; r++) {
    tf_video_mp4* v;
    double t0 = bench_now();
    int rc = tf_video_mp4_open(&v, path, WIDTH, HEIGHT, FPS, err, sizeof err);
    if (rc == 0) {
      snprintf(encoder_name, sizeof encoder_name, "%s", tf_video_mp4_encoder(v));
      for (int i = 0; i < nframes && rc == 0; i++) {
        rc = tf_video_mp4_add_frame(v, frames + frame_bytes * i, 3 * WIDTH, err, sizeof err);
      }
      if (rc == 0) {
        rc = tf_video_mp4_close(v, err, sizeof err);
      } else {
        tf_video_mp4_abort(v);
      }
    }
    if (rc != 0) {
      fprintf(stderr, "bench_video: %s\n", err);
      rmdir(dir);
      free(frames);
      return 1;
    }
    best = fmin(best, bench_now() - t0);
    encoder = encoder_name;
  }
  struct stat st;
  long bytes = stat(path, &st) == 0 ? (long)st.st_size : -1;
  unlink(path);
  rmdir(dir);
  free(frames);
  printf(
      "{\"bench\": \"video\", \"width\": %d, \"height\": %d, \"fps\": %d, \"frames\": %d, "
      "\"encoder\": \"%s\", \"threads\": 1,\n"
      " \"encode_fps\": %.1f, \"encode_ms_per_frame\": %.3f, \"realtime_factor_at_30fps\": %.2f,"
      "\n \"file_bytes\": %ld, \"kbit_per_s\": %.1f, \"overlay_us_per_frame\": %.1f}\n",
      WIDTH, HEIGHT, FPS, nframes, encoder, nframes / best, 1e3 * best / nframes,
      nframes / best / FPS, bytes, bytes * 8.0 / 1e3 / ((double)nframes / FPS), 1e6 * overlay_best);
  return 0;
}
