// The reference scenes and their registry. Each builder states the exact setup the gates
// assume, so the CLI, the tests and the benchmark all run the same physics.
#include "scenes.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static tf_builder* new_builder(double dt, tf_integrator integrator, double gravity_z) {
  tf_builder* b = tf_builder_create();
  if (!b) return NULL;
  tf_option opt = tf_option_default();
  opt.timestep = dt;
  opt.integrator = integrator;
  opt.gravity[2] = gravity_z;
  tf_builder_set_option(b, &opt);
  return b;
}

static tf_model* finish(tf_builder* b, char* err, size_t errlen) {
  if (!b) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  tf_model* m = tf_builder_compile(b, err, errlen);
  tf_builder_destroy(b);
  return m;
}

// a 1 kg point mass hanging 1 m below a hinge about y, released from 0.05 rad
static tf_model* build_pendulum(double dt, tf_integrator integrator, char* err, size_t errlen) {
  tf_builder* b = new_builder(dt, integrator, -TF_GRAVITY);
  if (!b) return finish(b, err, errlen);
  tf_body_def body = tf_body_def_default();
  body.name = "bob";
  body.mass = 1;
  body.com[2] = -TF_PENDULUM_LENGTH;
  memset(body.inertia, 0, sizeof(body.inertia));
  int id = tf_builder_add_body(b, &body);
  tf_joint_def hinge = tf_joint_def_default();
  hinge.name = "pivot";
  hinge.body = id;
  hinge.axis[0] = 0, hinge.axis[1] = 1, hinge.axis[2] = 0;
  hinge.qpos0[0] = 0.05;
  tf_builder_add_joint(b, &hinge);
  return finish(b, err, errlen);
}

// two 1 kg point masses on 1 m massless links, released at rest from theta1 = 90 deg,
// theta2 = 0, angles from the downward vertical
static tf_model* build_double_pendulum(double dt, tf_integrator integrator, char* err,
                                       size_t errlen) {
  tf_builder* b = new_builder(dt, integrator, -TF_GRAVITY);
  if (!b) return finish(b, err, errlen);
  int parent = 0;
  const char* bodies[2] = {"link1", "link2"};
  const char* joints[2] = {"shoulder", "elbow"};
  for (int i = 0; i < 2; i++) {
    tf_body_def body = tf_body_def_default();
    body.name = bodies[i];
    body.parent = parent;
    body.pos[2] = i == 0 ? 0 : -1.0;
    body.mass = 1;
    body.com[2] = -1.0;
    memset(body.inertia, 0, sizeof(body.inertia));
    parent = tf_builder_add_body(b, &body);
    tf_joint_def hinge = tf_joint_def_default();
    hinge.name = joints[i];
    hinge.body = parent;
    hinge.axis[0] = 0, hinge.axis[1] = 1, hinge.axis[2] = 0;
    hinge.qpos0[0] = i == 0 ? M_PI / 2 : 0;
    tf_builder_add_joint(b, &hinge);
  }
  return finish(b, err, errlen);
}

// a 7-joint arm-like chain (axes alternating z / y, 0.3 m links of 1 kg, armature) plus a
// free-flying 0.5 kg cube: the engine benchmark's model
static tf_model* build_chain7(double dt, tf_integrator integrator, char* err, size_t errlen) {
  static const double qpos0[7] = {0.3, -0.5, 0.2, -1.0, 0.4, 0.8, -0.3};
  tf_builder* b = new_builder(dt, integrator, -TF_GRAVITY);
  if (!b) return finish(b, err, errlen);
  int parent = 0;
  for (int i = 0; i < 7; i++) {
    char name[32];
    tf_body_def body = tf_body_def_default();
    snprintf(name, sizeof(name), "link%d", i + 1);
    body.name = name;
    body.parent = parent;
    body.pos[2] = i == 0 ? 0.1 : 0.3;
    body.mass = 1.0;
    body.com[2] = 0.15;
    double rod = 1.0 * 0.3 * 0.3 / 12 + 5e-4;  // slender rod plus a little thickness
    body.inertia[0] = rod, body.inertia[1] = rod, body.inertia[2] = 1e-3;
    body.inertia[3] = 0, body.inertia[4] = 0, body.inertia[5] = 0;
    parent = tf_builder_add_body(b, &body);
    tf_joint_def hinge = tf_joint_def_default();
    snprintf(name, sizeof(name), "joint%d", i + 1);
    hinge.name = name;
    hinge.body = parent;
    hinge.axis[0] = 0, hinge.axis[1] = i % 2 ? 1 : 0, hinge.axis[2] = i % 2 ? 0 : 1;
    hinge.armature = 0.01;
    hinge.qpos0[0] = qpos0[i];
    tf_builder_add_joint(b, &hinge);
  }
  tf_body_def cube = tf_body_def_default();
  cube.name = "cube";
  cube.pos[0] = 1.0, cube.pos[2] = 1.0;
  cube.mass = 0.5;
  double ic = 0.5 * 0.1 * 0.1 / 6;
  cube.inertia[0] = ic, cube.inertia[1] = ic, cube.inertia[2] = ic;
  int id = tf_builder_add_body(b, &cube);
  tf_joint_def free_joint = tf_joint_def_default();
  free_joint.name = "cube_free";
  free_joint.body = id;
  free_joint.type = TF_JOINT_FREE;
  tf_builder_add_joint(b, &free_joint);
  return finish(b, err, errlen);
}

static void init_chain7(const tf_model* m, tf_data* d) {
  int adr = m->jnt_dofadr[tf_name_to_joint(m, "cube_free")];
  const double qvel[6] = {0.1, 0.0, 0.5, 1.0, 2.0, 3.0};
  memcpy(d->qvel + adr, qvel, sizeof(qvel));
}

// a free body with I = diag(1, 2, 3) kg m^2 spun about its intermediate axis, no gravity:
// the Dzhanibekov (tennis racket) flip
static tf_model* build_spinning_body(double dt, tf_integrator integrator, char* err,
                                     size_t errlen) {
  tf_builder* b = new_builder(dt, integrator, 0.0);
  if (!b) return finish(b, err, errlen);
  tf_body_def body = tf_body_def_default();
  body.name = "body";
  body.mass = 1;
  body.inertia[0] = 1, body.inertia[1] = 2, body.inertia[2] = 3;
  int id = tf_builder_add_body(b, &body);
  tf_joint_def free_joint = tf_joint_def_default();
  free_joint.name = "free";
  free_joint.body = id;
  free_joint.type = TF_JOINT_FREE;
  tf_builder_add_joint(b, &free_joint);
  return finish(b, err, errlen);
}

static void init_spinning_body(const tf_model* m, tf_data* d) {
  (void)m;
  d->qvel[3] = 0.01;
  d->qvel[4] = 2 * M_PI;
  d->qvel[5] = 0.01;
}

static void init_none(const tf_model* m, tf_data* d) {
  (void)m;
  (void)d;
}

static const tf_scene scenes[] = {
    {"pendulum", "1 kg point mass on a 1 m hinge, 0.05 rad amplitude", 1e-3, 11.0, build_pendulum,
     init_none},
    {"double_pendulum", "two 1 kg point masses on 1 m links, released from 90 deg", 1e-3, 10.0,
     build_double_pendulum, init_none},
    {"chain7", "7-joint chain (alternating z / y axes) plus a free-flying cube", 1e-3, 2.0,
     build_chain7, init_chain7},
    {"spinning_body", "free body I = diag(1,2,3) spun about its middle axis (Dzhanibekov)", 1e-4,
     5.0, build_spinning_body, init_spinning_body},
};

int tf_scene_count(void) { return (int)(sizeof(scenes) / sizeof(scenes[0])); }

const tf_scene* tf_scene_at(int index) {
  return index >= 0 && index < tf_scene_count() ? &scenes[index] : NULL;
}

const tf_scene* tf_scene_find(const char* name) {
  for (int i = 0; name && i < tf_scene_count(); i++) {
    if (strcmp(scenes[i].name, name) == 0) return &scenes[i];
  }
  return NULL;
}
