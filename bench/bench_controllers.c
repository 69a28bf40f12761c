// Controller benchmark: microseconds per controller call (tf_controller_compute: the state
// gathering through the engine's stages plus the control law) for every controller and IK
// method on the Panda with its gripper, and one physics step of the same arm (al, dt 2 ms,
// no contacts) as the baseline the ratio is taken against. Each figure is the minimum and
// median over batches of calls from the same state; over_step compares the minimums (the
// medians move with other load on the machine). Prints one JSON object.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_stats.h"
#include "controller.h"
#include "robot_panda.h"
#include "tightfit.h"

enum { BATCHES = 25, BATCH_CALLS = 2000 };

typedef struct timing {
  double min_us, median_us;
} timing;

static timing summarise(double* per_call) {
  bench_sort_doubles(per_call, BATCHES);
  return (timing){per_call[0], per_call[BATCHES / 2]};
}

// the arm in a moving state (ready pose, joints turning) so every term is non-trivial
static void set_state(const tf_model* m, tf_data* d, const tf_panda* panda) {
  tf_data_reset(m, d);
  for (int k = 0; k < TF_PANDA_NJOINT; k++) {
    d->qvel[m->jnt_dofadr[panda->joint[k]]] = 0.3 * (k % 2 ? 1 : -1);
  }
}

static int time_controller(const tf_model* m, tf_data* d, const tf_panda* panda,
                           const tf_controller_config* cfg, timing* out) {
  tf_arm arm = tf_arm_from_panda(panda);
  char err[256];
  tf_controller* c = tf_controller_create(m, &arm, cfg, err, sizeof(err));
  if (!c) {
    fprintf(stderr, "bench_controllers: %s\n", err);
    return -1;
  }
  set_state(m, d, panda);
  tf_controller_reset(c, m, d);
  // a target away from the state, so the laws do real work
  double pos[3], quat[4], wrench[6] = {0, 0, -5, 0, 0, 0};
  tf_kinematics(m, d);
  tf_arm_tcp_pose(m, d, &arm, pos, quat);
  pos[0] += 0.05;
  tf_controller_set_pose(c, pos, quat);
  tf_controller_set_wrench(c, wrench);
  double per_call[BATCHES];
  for (int b = -2; b < BATCHES; b++) {  // two warm-up batches
    double t0 = bench_now();
    for (int i = 0; i < BATCH_CALLS; i++) {
      if (tf_controller_compute(c, m, d)) {
        fprintf(stderr, "bench_controllers: %s failed\n", tf_controller_kind_name(cfg->kind));
        tf_controller_destroy(c);
        return -1;
      }
    }
    if (b >= 0) per_call[b] = 1e6 * (bench_now() - t0) / BATCH_CALLS;
  }
  *out = summarise(per_call);
  tf_controller_destroy(c);
  return 0;
}

static int time_step(const tf_model* m, tf_data* d, const tf_panda* panda, timing* out) {
  double per_call[BATCHES];
  for (int b = -2; b < BATCHES; b++) {
    set_state(m, d, panda);
    double t0 = bench_now();
    for (int i = 0; i < BATCH_CALLS / 4; i++) {
      if (tf_step(m, d)) return -1;
    }
    if (b >= 0) per_call[b] = 1e6 * (bench_now() - t0) / (BATCH_CALLS / 4);
  }
  *out = summarise(per_call);
  return 0;
}

int main(void) {
  tf_builder* b = tf_builder_create();
  tf_option opt = tf_option_default();
  opt.timestep = 0.002;
  tf_builder_set_option(b, &opt);
  tf_panda_def def = tf_panda_def_default();
  tf_panda panda;
  char err[256];
  if (tf_panda_add(b, &def, &panda, err, sizeof(err))) {
    fprintf(stderr, "bench_controllers: %s\n", err);
    return 1;
  }
  tf_model* m = tf_builder_compile(b, err, sizeof(err));
  tf_builder_destroy(b);
  if (!m) {
    fprintf(stderr, "bench_controllers: %s\n", err);
    return 1;
  }
  tf_data* d = tf_data_create(m);
  timing step;
  if (time_step(m, d, &panda, &step)) {
    fprintf(stderr, "bench_controllers: a step failed\n");
    return 1;
  }
  printf(
      "{\n  \"bench\": \"controllers\",\n  \"model\": \"panda + gripper (nv %d), al, dt 2 ms\",\n",
      m->nv);
  printf("  \"batches\": %d,\n  \"calls_per_batch\": %d,\n", BATCHES, BATCH_CALLS);
  printf("  \"physics_step_us\": {\"min\": %.4f, \"median\": %.4f},\n  \"us_per_call\": {\n",
         step.min_us, step.median_us);
  int first = 1, status = 0;
  for (int k = 0; k < TF_CTRL_N && status == 0; k++) {
    int variants = k == TF_CTRL_IK ? TF_IK_N : (k == TF_CTRL_HYBRID ? TF_HYBRID_N : 1);
    for (int v = 0; v < variants && status == 0; v++) {
      tf_controller_config cfg = tf_controller_config_default((tf_controller_kind)k);
      char name[64];
      snprintf(name, sizeof(name), "%s", tf_controller_kind_name((tf_controller_kind)k));
      if (k == TF_CTRL_IK) {
        cfg.ik_method = (tf_ik_method)v;
        snprintf(name, sizeof(name), "ik_%s", tf_ik_method_name((tf_ik_method)v));
      } else if (k == TF_CTRL_HYBRID) {
        cfg.hybrid_motion = (tf_hybrid_motion)v;
        snprintf(name, sizeof(name), "hybrid_%s", v ? "osc" : "impedance");
      }
      timing t;
      status = time_controller(m, d, &panda, &cfg, &t);
      if (status) break;
      printf("%s    \"%s\": {\"min\": %.4f, \"median\": %.4f, \"over_step\": %.3f}",
             first ? "" : ",\n", name, t.min_us, t.median_us, t.min_us / step.min_us);
      first = 0;
    }
  }
  printf("\n  }\n}\n");
  tf_data_destroy(d);
  tf_model_destroy(m);
  return status ? 1 : 0;
}
