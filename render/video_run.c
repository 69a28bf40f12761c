// A rollout video of one run (see video_run.h).
#include "video_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "font.h"
#include "video_mp4.h"

#define MAX_VIEWS 4
#define THUMB_WIDTH 160

void tf_video_options_default(tf_video_options* v) {
  memset(v, 0, sizeof(*v));
  v->view = TF_VIEW_CLOSEUP;
  v->fps = 30;
  v->width = 640;
  v->height = 480;
  v->threads = 1;
}

// one environment on screen: its run, its scene, its camera and its part of the frame
typedef struct view {
  tf_env_run* run;
  tf_render_scene* scene;
  tf_camera camera;
  tf_image image;
  int done;
} view;

// the overlay's live probe value: what the task's question watches
static void live_value(char* out, size_t n, const tf_env_run* r) {
  const tf_env* env = tf_env_run_env(r);
  const tf_probe_set* p = tf_env_run_probes(r);
  if (env->probe.ngear > 0) {
    // the worst follower's angle error so far, in tooth pitches of that follower (1: a
    // tooth skipped)
    double worst = 0;
    for (int f = 1; f < p->gear_slip.ngear; f++) {
      worst = fmax(worst, p->gear_slip.err_max[f] * p->gear_slip.teeth[f] / (2 * M_PI));
    }
    snprintf(out, n, "slip %.3f teeth", worst);
  } else if (env->probe.tunnel_body > 0 && p->tunnel.nstep > 0) {
    snprintf(out, n, "depth %.3f mm  overlap %.1f um", 1e3 * p->tunnel.depth_final,
             1e6 * p->overlap.peak);
  } else {
    snprintf(out, n, "overlap %.1f um", 1e6 * p->overlap.peak);
  }
}

static void overlay(const tf_image* img, const tf_env_run* r, const char* status) {
  const tf_physics* ph = tf_env_run_physics(r);
  const tf_env* env = tf_env_run_env(r);
  char live[96], text[256];
  live_value(live, sizeof(live), r);
  snprintf(text, sizeof(text), "%s  %s  dt=%gms  env %d\nt=%.3fs  %s%s%s", tf_env_run_task(r)->name,
           tf_solver_name(ph->solver), 1e3 * ph->dt, env->index, env->data->time, live,
           status[0] ? "  " : "", status);
  tf_text_style style = tf_text_style_default();
  if (img->width < 400) style.scale = 1;
  tf_font_draw(img->rgb, img->width, img->height, img->stride, 4, 4, text, &style);
}

static int check_options(const tf_video_options* v, char* err, size_t errlen) {
  if (v->fps < 1 || v->fps > 240) {
    snprintf(err, errlen, "fps must be in [1, 240] (got %d)", v->fps);
    return -1;
  }
  if (v->width < 16 || v->height < 16 || v->width > 4096 || v->height > 4096 || v->width % 2 ||
      v->height % 2) {
    snprintf(err, errlen, "size must be even, 16 to 4096 pixels a side (got %dx%d)", v->width,
             v->height);
    return -1;
  }
  if (v->threads < 1 || v->threads > 64) {
    snprintf(err, errlen, "threads must be in [1, 64] (got %d)", v->threads);
    return -1;
  }
  if (v->view == TF_VIEW_FREE && tf_camera_check(&v->camera, err, errlen)) return -1;
  return 0;
}

static void free_views(view* views, int n) {
  for (int i = 0; i < n; i++) {
    tf_render_scene_destroy(views[i].scene);
    tf_env_run_end(views[i].run);
  }
}

// a THUMB_WIDTH-pixel-wide PNG of the last frame (tf_png_write: temporary file and rename)
static int write_thumbnail(const tf_video_options* v, const tf_image* frame, char* err,
                           size_t errlen) {
  tf_image thumb = {0};
  int th = v->height * THUMB_WIDTH / v->width;
  th += th % 2;
  if (tf_image_alloc(&thumb, THUMB_WIDTH, th, err, errlen)) return -1;
  tf_image_downscale(&thumb, frame);
  int rc = tf_png_write(v->thumbnail, &thumb, err, errlen);
  tf_image_free(&thumb);
  return rc;
}

int tf_video_render_run(const tf_run_options* o, const tf_video_options* v, const char* path,
                        int* frames, char* err, size_t errlen) {
  if (frames) *frames = 0;
  if (check_options(v, err, errlen)) return -1;
  tf_run_options opt = *o;
  int nview = v->view == TF_VIEW_GRID ? MAX_VIEWS : 1;
  if (nview > opt.envs) opt.envs = nview;
  view views[MAX_VIEWS];
  memset(views, 0, sizeof(views));
  tf_image frame = {0};
  if (tf_image_alloc(&frame, v->width, v->height, err, errlen)) return -1;
  // the panes: the whole frame, or its four quadrants
  int pw = nview == 1 ? v->width : v->width / 2, ph = nview == 1 ? v->height : v->height / 2;
  for (int i = 0; i < nview; i++) {
    views[i].run = tf_env_run_begin(&opt, i, err, errlen);
    if (!views[i].run) {
      free_views(views, i);
      tf_image_free(&frame);
      return -1;
    }
    const tf_env* env = tf_env_run_env(views[i].run);
    views[i].scene = tf_render_scene_create(env->model, err, errlen);
    if (!views[i].scene) {
      free_views(views, i + 1);
      tf_image_free(&frame);
      return -1;
    }
    views[i].image = tf_image_sub(&frame, (i % 2) * pw, (i / 2) * ph, pw, ph);
    double aspect = (double)pw / ph;
    if (v->view == TF_VIEW_FREE) {
      views[i].camera = v->camera;
    } else if (v->view == TF_VIEW_WIDE) {
      tf_render_task_wide(&views[i].camera, views[i].scene, env, aspect);
    } else {
      tf_render_task_closeup(&views[i].camera, views[i].scene, env, aspect);
    }
  }
  tf_renderer* renderer = tf_renderer_create(v->threads, err, errlen);
  tf_video_mp4* mp4 = NULL;
  if (!renderer || tf_video_mp4_open(&mp4, path, v->width, v->height, v->fps, err, errlen)) {
    tf_renderer_destroy(renderer);
    free_views(views, nview);
    tf_image_free(&frame);
    return -1;
  }
  double duration = tf_env_run_duration(views[0].run);
  // frame k shows time k / fps, up to the run's end: duration * fps + 1 frames
  long nframe = lround(floor(duration * v->fps + 1e-9)) + 1;
  int rc = 0;
  for (long k = 0; k < nframe && rc == 0; k++) {
    double t = (double)k / v->fps;
    for (int i = 0; i < nview && rc == 0; i++) {
      view* w = &views[i];
      const tf_env* env = tf_env_run_env(w->run);
      // advance to the last control step at or before t (half a control step of slack
      // keeps rounding from skipping the step that lands on t)
      double dt = tf_env_run_physics(w->run)->dt;
      while (!w->done && env->data->time + 0.5 * dt <= t) w->done = !tf_env_run_step(w->run);
      if (tf_render(renderer, w->scene, env->model, env->data, &w->camera, &w->image, err,
                    errlen)) {
        rc = -1;
        break;
      }
      const tf_probe_set* p = tf_env_run_probes(w->run);
      overlay(&w->image, w->run, tf_divergence_diverged(&p->divergence) ? "DIVERGED" : "");
    }
    if (rc == 0 && tf_video_mp4_add_frame(mp4, frame.rgb, frame.stride, err, errlen)) rc = -1;
    if (rc == 0 && v->cancel && *v->cancel) {
      snprintf(err, errlen, "%s: interrupted", path);
      rc = -1;
    }
  }
  if (rc == 0) {
    if (frames) *frames = tf_video_mp4_frames(mp4);
    if (tf_video_mp4_close(mp4, err, errlen)) rc = -1;
  } else {
    tf_video_mp4_abort(mp4);  // removes the temporary file
  }
  // the thumbnail only for a video that is in place, so that a failed video never leaves
  // one; a thumbnail that cannot be written takes the video with it (one outcome, not half)
  if (rc == 0 && v->thumbnail && write_thumbnail(v, &frame, err, errlen)) {
    unlink(path);
    rc = -1;
  }
  tf_renderer_destroy(renderer);
  free_views(views, nview);
  tf_image_free(&frame);
  return rc;
}
