// The model the solver suites' problems run in (test_solver_al_newton.c, test_solver_fbnewton.c
// through solver_fixture.h, and test_solver_pgs_admm.c): the solvers only need its data's arena.
// Include after cmocka.h and tightfit.h.
#ifndef TF_TEST_SOLVER_MODEL_H
#define TF_TEST_SOLVER_MODEL_H

#include <stdio.h>

#include "compile_model.h"

// a model of njoint bodies (1 kg, inertia 0.01), each on one of the given joints to the world,
// plus npad bodies without joints (each adds 16 doubles of scratch and no dof)
static inline tf_model* solver_model(const tf_joint_type* joints, int njoint, int npad) {
  tf_builder* b = tf_builder_create();
  char name[32];
  for (int i = 0; i < njoint; i++) {
    tf_body_def body = tf_body_def_default();
    snprintf(name, sizeof(name), "body%d", i);
    body.name = name;
    body.mass = 1;
    body.inertia[0] = body.inertia[1] = body.inertia[2] = 0.01;
    int id = tf_builder_add_body(b, &body);
    assert_true(id > 0);
    tf_joint_def joint = tf_joint_def_default();
    snprintf(name, sizeof(name), "joint%d", i);
    joint.name = name;
    joint.body = id;
    joint.type = joints[i];
    assert_true(tf_builder_add_joint(b, &joint) >= 0);
  }
  for (int i = 0; i < npad; i++) {
    tf_body_def body = tf_body_def_default();
    snprintf(name, sizeof(name), "pad%d", i);
    body.name = name;
    body.mass = 1;
    assert_true(tf_builder_add_body(b, &body) > 0);
  }
  return compile_model(b);
}

#endif  // TF_TEST_SOLVER_MODEL_H
