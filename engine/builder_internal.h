// The builder's private state, shared by builder.c and model_compile.c.
#ifndef TF_BUILDER_INTERNAL_H
#define TF_BUILDER_INTERNAL_H

#include "tightfit.h"

struct tf_builder {
  tf_option opt;
  tf_body_def* bodies;  // user bodies; body id = index + 1
  int nbody, body_cap;
  tf_joint_def* joints;
  int njnt, joint_cap;
  tf_actuator_def* actuators;
  int nu, actuator_cap;
};

#endif  // TF_BUILDER_INTERNAL_H
