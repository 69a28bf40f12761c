// The steps every task scene takes to turn its builder into an environment: the engine
// options a run's physics settings name, and the model and data compiled from the builder
// with the task's name on any message.
#include <stdio.h>

#include "task.h"

tf_option tf_physics_option(const tf_physics* physics) {
  tf_option opt = tf_option_default();
  opt.timestep = physics->dt / physics->substeps;
  opt.solver = physics->solver;
  if (physics->iterations > 0) opt.solver_opt.iterations = physics->iterations;
  opt.solver_opt.relinearize = physics->relinearize;
  opt.persist_tol = physics->persist_tol;
  return opt;
}

int tf_env_compile(tf_env* env, tf_builder* b, const char* task, char* err, size_t errlen) {
  char why[200];
  env->model = tf_builder_compile(b, why, sizeof(why));
  if (!env->model) {
    snprintf(err, errlen, "task '%s': %s", task, why);
    return -1;
  }
  env->data = tf_data_create(env->model);
  if (!env->data) {
    snprintf(err, errlen, "task '%s': out of memory", task);
    return -1;
  }
  return 0;
}
