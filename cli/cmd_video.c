// `tightfit video --task T [run options] [--camera wide|closeup|grid|px,py,pz,tx,ty,tz,fovy]
// [--fps 30] [--size 640x480] [--threads N] [--thumbnail FILE.png] --out FILE.mp4`: a rollout
// video of one run, rendered headless (render/video_run.h).
#include <cJSON.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "task.h"
#include "video_run.h"
#include "json_exact.h"

#define EXIT_INTERRUPTED 130  // the shell's code for a command ended by Ctrl-C (128 + SIGINT)

// Ctrl-C / SIGTERM seen. A handler may only set a volatile sig_atomic_t and gets no argument
// to reach the render's state, so this is the file's one mutable variable: the render loop
// polls it (tf_video_options.cancel) and removes its partial file itself.
static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig) {
  (void)sig;
  interrupted = 1;
}

static int usage(const char* fmt, const char* arg) {
  fprintf(stderr, "tightfit video: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n");
  return TF_EXIT_USAGE;
}

// the --json line, built by cJSON so that any path (quotes, backslashes, control bytes) is
// a valid JSON string
static int print_json(const char* out, int frames, const tf_video_options* v) {
  cJSON* o = cJSON_CreateObject();
  if (!o) return -1;
  cJSON_AddStringToObject(o, "video", out);
  if (v->thumbnail) cJSON_AddStringToObject(o, "thumbnail", v->thumbnail);
  cJSON_AddNumberToObject(o, "frames", frames);
  cJSON_AddNumberToObject(o, "fps", v->fps);
  cJSON_AddNumberToObject(o, "width", v->width);
  cJSON_AddNumberToObject(o, "height", v->height);
  char* text = tf_json_print(o, 0);
  cJSON_Delete(o);
  if (!text) return -1;
  printf("%s\n", text);
  cJSON_free(text);
  return 0;
}

int tf_cmd_video(int argc, char** argv) {
  tf_video_options v;
  tf_video_options_default(&v);
  const char* out = NULL;
  // the video's own options; everything else is a run option
  char** rest = malloc(sizeof(char*) * (size_t)(argc + 1));
  if (!rest) return TF_EXIT_FAIL;
  int nrest = 0, json = 0;
  for (int i = 0; i < argc; i++) {
    const char* opt = argv[i];
    int mine = strcmp(opt, "--camera") == 0 || strcmp(opt, "--fps") == 0 ||
               strcmp(opt, "--size") == 0 || strcmp(opt, "--threads") == 0 ||
               strcmp(opt, "--out") == 0 || strcmp(opt, "--thumbnail") == 0;
    if (!mine) {
      rest[nrest++] = argv[i];
      continue;
    }
    if (i + 1 >= argc) {
      free(rest);
      return usage("%s needs a value", opt);
    }
    const char* value = argv[++i];
    double x;
    char err[256];
    if (strcmp(opt, "--out") == 0) {
      out = value;
    } else if (strcmp(opt, "--thumbnail") == 0) {
      v.thumbnail = value;
    } else if (strcmp(opt, "--camera") == 0) {
      if (strcmp(value, "wide") == 0) {
        v.view = TF_VIEW_WIDE;
      } else if (strcmp(value, "closeup") == 0) {
        v.view = TF_VIEW_CLOSEUP;
      } else if (strcmp(value, "grid") == 0) {
        v.view = TF_VIEW_GRID;
      } else if (tf_camera_parse(&v.camera, value, err, sizeof(err)) == 0) {
        v.view = TF_VIEW_FREE;
      } else {
        free(rest);
        fprintf(stderr, "tightfit video: --camera: wide, closeup, grid or %s\n", err);
        return TF_EXIT_USAGE;
      }
    } else if (strcmp(opt, "--fps") == 0) {
      if (tf_cli_parse_whole("video", "--fps", value, 1, 240, &x)) {
        free(rest);
        return TF_EXIT_USAGE;
      }
      v.fps = (int)x;
    } else if (strcmp(opt, "--threads") == 0) {
      if (tf_cli_parse_whole("video", "--threads", value, 1, 64, &x)) {
        free(rest);
        return TF_EXIT_USAGE;
      }
      v.threads = (int)x;
    } else {  // --size WxH
      int w = 0, h = 0;
      char tail = 0;
      if (sscanf(value, "%dx%d%c", &w, &h, &tail) != 2) {
        free(rest);
        return usage("--size needs WIDTHxHEIGHT, e.g. 640x480, got '%s'", value);
      }
      v.width = w, v.height = h;
    }
  }
  tf_run_options o;
  int rc = tf_cli_parse_run_options("video", nrest, rest, &o, &json);
  free(rest);
  if (rc) return TF_EXIT_USAGE;
  if (!out) return usage("%s", "--out FILE.mp4 is required (see tightfit video --help)");
  int frames = 0;
  char err[512];
  // Ctrl-C / SIGTERM: the render stops at the next frame and removes its temporary file
  struct sigaction sa, old_int, old_term;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  interrupted = 0;
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  v.cancel = &interrupted;
  rc = tf_video_render_run(&o, &v, out, &frames, err, sizeof(err));
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  if (rc && interrupted) {
    fprintf(stderr, "tightfit video: interrupted; %s not written\n", out);
    return EXIT_INTERRUPTED;
  }
  if (rc) {
    fprintf(stderr, "tightfit video: %s\n", err);
    return TF_EXIT_USAGE;
  }
  if (json) {
    if (print_json(out, frames, &v)) {
      fprintf(stderr, "tightfit video: out of memory\n");
      return TF_EXIT_FAIL;
    }
  } else {
    printf("wrote %s (%d frames, %d fps, %dx%d)\n", out, frames, v.fps, v.width, v.height);
  }
  return TF_EXIT_OK;
}
