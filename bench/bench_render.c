// Renderer benchmark: milliseconds per 640x480 frame of each task's close-up (env 0, built
// through tf_task_run_env and stepped a few control steps), on one thread and on two, plus
// the wide view on one thread and the scene's triangle count and build time. The close-up is
// tf_render_task_closeup's (the gear mesh, or the leading end of the peg, nut or plug). Times
// are the best of several frames. Prints
// one JSON object; `--out DIR` also writes each task's wide, close-up and section (the close-up
// cut through the moving part, tf_render_task_cut) frames as PNG.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_stats.h"
#include "render.h"
#include "task.h"

#define WIDTH 640
#define HEIGHT 480
#define FRAMES 10  // timed frames per setting (the best one counts), after one warm-up frame

static double clock_s(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// best wall-clock milliseconds per frame over FRAMES frames, and the calling thread's best CPU
// milliseconds (all of a one-thread frame's work, whatever else the machine runs); -1 on error
static double time_frames(const tf_env* env, const tf_render_scene* scene, const tf_camera* cam,
                          int threads, tf_image* img, double* cpu_ms) {
  char err[256];
  tf_renderer* r = tf_renderer_create(threads, err, sizeof err);
  if (!r) return -1;
  double best = INFINITY, best_cpu = INFINITY;
  for (int i = 0; i <= FRAMES; i++) {
    double t0 = bench_now(), c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
    if (tf_render(r, scene, env->model, env->data, cam, img, err, sizeof err)) {
      fprintf(stderr, "bench_render: %s\n", err);
      tf_renderer_destroy(r);
      return -1;
    }
    if (i > 0) {
      best = fmin(best, bench_now() - t0);
      best_cpu = fmin(best_cpu, clock_s(CLOCK_THREAD_CPUTIME_ID) - c0);
    }
  }
  tf_renderer_destroy(r);
  if (cpu_ms) *cpu_ms = 1e3 * best_cpu;
  return 1e3 * best;
}

static void write_png(const char* dir, const char* task, const char* view, const tf_image* img) {
  if (!dir) return;
  char path[1024], err[1200];
  snprintf(path, sizeof path, "%s/%s_%s.png", dir, task, view);
  if (tf_png_write(path, img, err, sizeof err)) fprintf(stderr, "bench_render: %s\n", err);
}

int main(int argc, char** argv) {
  const char* out_dir = argc > 2 && strcmp(argv[1], "--out") == 0 ? argv[2] : NULL;
  tf_metrics* row = malloc(sizeof(tf_metrics));
  tf_image img;
  char err[512];
  if (!row || tf_image_alloc(&img, WIDTH, HEIGHT, err, sizeof err)) return 1;
  printf("{\n  \"bench\": \"render\", \"width\": %d, \"height\": %d, \"tasks\": [\n", WIDTH,
         HEIGHT);
  int status = 0;
  for (int t = 0; t < tf_task_builtin_count(); t++) {
    const tf_task_info* task = tf_task_at(t);
    tf_run_options o;
    tf_run_options_default(&o);
    o.task = task->name;
    o.duration = 3 * task->default_dt;  // a few control steps: the parts in their start pose
    tf_env env;
    if (tf_task_run_env(&o, 0, &env, row, err, sizeof err)) {
      fprintf(stderr, "bench_render: %s: %s\n", task->name, err);
      status = 1;
      continue;
    }
    tf_kinematics(env.model, env.data);
    double t0 = bench_now();
    tf_render_scene* scene = tf_render_scene_create(env.model, err, sizeof err);
    double build_ms = 1e3 * (bench_now() - t0);
    if (!scene) {
      fprintf(stderr, "bench_render: %s: %s\n", task->name, err);
      tf_env_free(task, &env);
      status = 1;
      continue;
    }
    tf_camera close, wide;
    tf_render_task_closeup(&close, scene, &env, (double)WIDTH / HEIGHT);
    tf_render_task_wide(&wide, scene, &env, (double)WIDTH / HEIGHT);
    double cpu_ms = -1;
    double wide_ms = time_frames(&env, scene, &wide, 1, &img, NULL);
    write_png(out_dir, task->name, "wide", &img);
    double two_ms = time_frames(&env, scene, &close, 2, &img, NULL);
    double one_ms = time_frames(&env, scene, &close, 1, &img, &cpu_ms);
    write_png(out_dir, task->name, "closeup", &img);
    tf_camera cut = close;
    tf_render_task_cut(&cut, scene, &env);
    double cut_ms = time_frames(&env, scene, &cut, 1, &img, NULL);
    write_png(out_dir, task->name, "section", &img);
    printf(
        "    {\"task\": \"%s\", \"triangles\": %d, \"scene_build_ms\": %.2f, "
        "\"closeup_ms_1thread\": %.2f, \"closeup_cpu_ms_1thread\": %.2f, "
        "\"closeup_ms_2threads\": %.2f, \"wide_ms_1thread\": %.2f, "
        "\"section_ms_1thread\": %.2f}%s\n",
        task->name, tf_render_scene_triangles(scene), build_ms, one_ms, cpu_ms, two_ms, wide_ms,
        cut_ms, t + 1 < tf_task_builtin_count() ? "," : "");
    if (one_ms < 0 || two_ms < 0 || wide_ms < 0 || cut_ms < 0) status = 1;
    tf_render_scene_destroy(scene);
    tf_env_free(task, &env);
  }
  printf("  ]\n}\n");
  tf_image_free(&img);
  free(row);
  return status;
}
