// The peg rig's model: a static hole block and a free peg above it, collided the way the
// run's `collider` asks, plus two non-colliding analytic SDF geoms the overlap probe reads
// (so the measurement is the exact geometry whatever the collider is).
//
// Colliders:
//   sdf       both parts as analytic SDFs (TF_GEOM_SDF x TF_GEOM_SDF, the CRISP / MuJoCo
//             SDF-SDF configuration);
//   mesh_sdf  the peg's triangle mesh (chord_um) sampled in the hole's analytic SDF (Factory,
//             CRISP mesh-SDF), and, the peg's mesh carrying the peg's SDF, the hole's mesh in
//             that SDF too (two-way sampling, engine/collision_sdf.c: the hole's rim edge
//             against the peg's side);
//   hull      qhull convex hulls of both part meshes: the hole's hull is the whole block, bore
//             filled, which is what users should see a hull do to a tight fit.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peg.h"

// fills the builder; returns 0 or -1 with a message
static int fill_builder(tf_builder* b, peg_state* s, const tf_part_geometry* peg,
                        const tf_part_geometry* hole, char* err, size_t errlen) {
  const peg_config* c = &s->cfg;
  int sdf_hole = tf_part_add_to_builder(b, "hole", hole);
  int sdf_peg = tf_part_add_to_builder(b, "peg", peg);
  if (sdf_hole < 0 || sdf_peg < 0) {
    snprintf(err, errlen, "task 'peg': out of memory building the parts");
    return -1;
  }

  tf_body_def body = tf_body_def_default();
  body.name = "peg";
  body.parent = 0;
  // the tip centre starts gap above the seat, offset laterally, the axis tilted about x
  body.pos[0] = s->start_offset[0];
  body.pos[1] = s->start_offset[1];
  body.pos[2] = -c->depth + c->gap;
  body.quat[0] = cos(0.5 * s->start_tilt);
  body.quat[1] = sin(0.5 * s->start_tilt);
  body.quat[2] = body.quat[3] = 0;
  body.com[2] = 0.5 * c->length;
  peg_inertia(c, &body.mass, body.inertia);
  s->body = tf_builder_add_body(b, &body);
  tf_joint_def joint = tf_joint_def_default();
  joint.name = "peg_free";
  joint.body = s->body;
  joint.type = TF_JOINT_FREE;
  if (s->body < 0 || tf_builder_add_joint(b, &joint) < 0) {
    snprintf(err, errlen, "task 'peg': out of memory building the model");
    return -1;
  }

  if (peg_add_colliders(b, c, s->body, peg, hole, sdf_peg, sdf_hole, NULL) ||
      peg_add_measures(b, s, sdf_peg, sdf_hole)) {
    snprintf(err, errlen, "task 'peg': out of memory building the model");
    return -1;
  }
  return 0;
}

// the deepest sample of one part's samples (on geom ga) in the other part's SDF (geom gb)
static double deepest_sample(const tf_model* m, const tf_data* d, const peg_samples* samples,
                             int ga, int gb) {
  double deepest = INFINITY;
  const double* R = d->geom_xmat + 9 * ga;
  const double* x = d->geom_xpos + 3 * ga;
  for (int i = 0; i < samples->npoint; i++) {
    const double* p = samples->points + 3 * i;
    double w[3];
    for (int k = 0; k < 3; k++)
      w[k] = x[k] + R[3 * k] * p[0] + R[3 * k + 1] * p[1] + R[3 * k + 2] * p[2];
    deepest = fmin(deepest, tf_geom_sdf(m, d, gb, w, NULL));
  }
  return deepest;
}

// how deep the parts overlap at the start, both ways (m, negative = overlapping): the peg's
// edges in the hole, and the hole's rim in the peg's side
static double start_overlap(const tf_model* m, const tf_data* d, const peg_state* s) {
  return fmin(deepest_sample(m, d, &s->samples_peg, s->geom_peg_measure, s->geom_hole_measure),
              deepest_sample(m, d, &s->samples_hole, s->geom_hole_measure, s->geom_peg_measure));
}

int peg_scene_build(tf_env* env, peg_state* s, const tf_physics* physics, char* err,
                    size_t errlen) {
  const peg_config* c = &s->cfg;
  tf_part_geometry peg, hole;
  if (peg_parts_build(&peg, &hole, c, err, errlen)) return -1;
  if (peg_samples_build(s)) {
    tf_part_geometry_free(&peg);
    tf_part_geometry_free(&hole);
    snprintf(err, errlen, "task 'peg': out of memory building the probe samples");
    return -1;
  }

  tf_builder* b = tf_builder_create();
  if (!b) {
    tf_part_geometry_free(&peg);
    tf_part_geometry_free(&hole);
    snprintf(err, errlen, "task 'peg': out of memory");
    return -1;
  }
  tf_option opt = peg_scene_option(physics, c);
  tf_builder_set_option(b, &opt);
  int rc = fill_builder(b, s, &peg, &hole, err, errlen);
  tf_part_geometry_free(&peg);
  tf_part_geometry_free(&hole);
  if (rc == 0) rc = tf_env_compile(env, b, "peg", err, errlen);
  tf_builder_destroy(b);
  if (rc) return -1;
  tf_data* d = env->data;
  // fired along the insertion axis (the tip's velocity; no spin)
  int dof = env->model->body_dofadr[s->body];
  d->qvel[dof + 2] = -c->impact_speed;
  tf_kinematics(env->model, d);

  double overlap = start_overlap(env->model, d, s);
  if (overlap < 0) {
    snprintf(err, errlen,
             "task 'peg': the peg starts %.1f um inside the hole (environment %d): raise "
             "gap_mm above depth_mm or lower tilt_deg / perturb_tilt_deg / perturb_offset",
             -overlap * 1e6, env->index);
    return -1;
  }

  peg_probe_spec(&env->probe, s);
  return 0;
}
