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
#include "interrupts.h"
#include "json_exact.h"
#include "video_run.h"

#define EXIT_INTERRUPTED 130  // the shell's code for a command ended by Ctrl-C (128 + SIGINT)

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
  int rc = tf_json_puts(stdout, o);
  cJSON_Delete(o);
  return rc;
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
  // Ctrl-C / SIGTERM: the render polls the count every frame (tf_video_options.cancel),
  // stops and removes its temporary file
  tf_cli_trap trap;
  v.cancel = tf_cli_trap_interrupts(&trap, 0);
  rc = tf_video_render_run(&o, &v, out, &frames, err, sizeof(err));
  tf_cli_release_interrupts(&trap);
  if (rc && *v.cancel) {
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
