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

#define BLOCK_FLOOR 0.02  // m of solid block below the bore's bottom
#define BLOCK_WALL 2e-3   // m: the least wall beside the bore's (or pocket corner's) rim

// "key=value" text for a number, kept alive by the caller's buffer
static void put(tf_kv* kv, char (*text)[32], int i, const char* key, double value) {
  snprintf(text[i], sizeof(text[i]), "%.17g", value);
  kv[i].key = key;
  kv[i].value = text[i];
}

static int build_peg_part(tf_part_geometry* g, const peg_config* c, char* err, size_t errlen) {
  tf_kv kv[5];
  char text[5][32];
  kv[0].key = "shape", kv[0].value = c->square ? "square" : "round";
  put(kv, text, 1, "diameter", c->diameter);
  put(kv, text, 2, "length", c->length);
  put(kv, text, 3, "chamfer", c->chamfer);
  put(kv, text, 4, "chord_um", c->chord * 1e6);
  return tf_part_build("peg", kv, 5, g, err, errlen);
}

// half the block's side: a diameter each side of the axis (CRISP's look), or more when the
// rim (a square pocket's corner) would leave less than BLOCK_WALL
static double block_half(const peg_config* c) {
  double rim = 0.5 * c->diameter + c->clearance + c->chamfer;
  double reach = c->square ? rim * sqrt(2.0) : rim;
  return fmax(c->diameter, reach + BLOCK_WALL);
}

static int build_hole_part(tf_part_geometry* g, const peg_config* c, char* err, size_t errlen) {
  tf_kv kv[8];
  char text[8][32];
  kv[0].key = "shape", kv[0].value = c->square ? "square" : "round";
  put(kv, text, 1, "diameter", c->diameter);
  put(kv, text, 2, "clearance_um", c->clearance * 1e6);
  put(kv, text, 3, "depth", c->depth);
  put(kv, text, 4, "chamfer", c->chamfer);
  put(kv, text, 5, "block_side", 2 * block_half(c));
  put(kv, text, 6, "block_height", c->depth + BLOCK_FLOOR);
  put(kv, text, 7, "chord_um", c->chord * 1e6);
  return tf_part_build("hole", kv, 8, g, err, errlen);
}

// uniform-density peg: mass and principal moments about its centre (body axes)
static void peg_inertia(const peg_config* c, double* mass, double inertia[6]) {
  double half = 0.5 * c->diameter, len = c->length;
  memset(inertia, 0, 6 * sizeof(double));
  if (c->square) {
    double a = c->diameter;
    *mass = c->density * a * a * len;
    inertia[0] = inertia[1] = *mass * (a * a + len * len) / 12;
    inertia[2] = *mass * a * a / 6;
  } else {
    *mass = c->density * M_PI * half * half * len;
    inertia[0] = inertia[1] = *mass * (3 * half * half + len * len) / 12;
    inertia[2] = *mass * half * half / 2;
  }
}

// one geom carrying a collider shape (sdf, mesh or hull id by type) on body; a mesh may carry
// its part's SDF as well (sdf, else -1), which makes its pairs sample both ways
static int add_collider(tf_builder* b, const char* name, int body, tf_geom_type type, int id,
                        int sdf, double mu) {
  tf_geom_def g = tf_geom_def_default();
  g.name = name;
  g.body = body;
  g.type = type;
  g.sdf = type == TF_GEOM_SDF ? id : sdf;
  g.mesh = type == TF_GEOM_MESH ? id : -1;
  g.hull = type == TF_GEOM_HULL ? id : -1;
  g.friction[0] = mu;
  g.condim = 3;
  return tf_builder_add_geom(b, &g);
}

// an analytic SDF geom that collides with nothing: the overlap probe's view of a part
static int add_measure(tf_builder* b, const char* name, int body, int sdf) {
  tf_geom_def g = tf_geom_def_default();
  g.name = name;
  g.body = body;
  g.type = TF_GEOM_SDF;
  g.sdf = sdf;
  g.contype = 0;
  g.conaffinity = 0;
  return tf_builder_add_geom(b, &g);
}

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

  int ok = 1;
  switch (c->collider) {
    case PEG_COLLIDER_SDF:
      ok &= add_collider(b, "hole", 0, TF_GEOM_SDF, sdf_hole, -1, c->mu) >= 0;
      ok &= add_collider(b, "peg", s->body, TF_GEOM_SDF, sdf_peg, -1, c->mu) >= 0;
      break;
    case PEG_COLLIDER_MESH_SDF: {
      int mesh =
          tf_builder_add_mesh(b, "peg_collider", peg->vert, peg->nvert, peg->face, peg->nface);
      ok &= mesh >= 0;
      ok &= add_collider(b, "hole", 0, TF_GEOM_SDF, sdf_hole, -1, c->mu) >= 0;
      ok &= add_collider(b, "peg", s->body, TF_GEOM_MESH, mesh, sdf_peg, c->mu) >= 0;
      break;
    }
    default: {
      int hull_hole = tf_builder_add_hull(b, "hole_hull", hole->vert, hole->nvert);
      int hull_peg = tf_builder_add_hull(b, "peg_hull", peg->vert, peg->nvert);
      ok &= hull_hole >= 0 && hull_peg >= 0;
      ok &= add_collider(b, "hole", 0, TF_GEOM_HULL, hull_hole, -1, c->mu) >= 0;
      ok &= add_collider(b, "peg", s->body, TF_GEOM_HULL, hull_peg, -1, c->mu) >= 0;
      break;
    }
  }
  s->geom_hole_measure = add_measure(b, "hole_measure", 0, sdf_hole);
  s->geom_peg_measure = add_measure(b, "peg_measure", s->body, sdf_peg);
  if (!ok || s->geom_hole_measure < 0 || s->geom_peg_measure < 0) {
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
  memset(&peg, 0, sizeof(peg));
  memset(&hole, 0, sizeof(hole));
  if (build_peg_part(&peg, c, err, errlen) || build_hole_part(&hole, c, err, errlen)) {
    tf_part_geometry_free(&peg);
    tf_part_geometry_free(&hole);
    return -1;
  }
  s->bore_half = 0.5 * c->diameter + c->clearance;

  // probe samples at 4x the collider mesh's stations per ring: sagitta 1/16 of its chord
  double floor_target = c->chord / 16;
  if (peg_samples_peg(&s->samples_peg, c, floor_target) ||
      peg_samples_hole(&s->samples_hole, c, s->bore_half, floor_target)) {
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
  tf_option opt = tf_option_default();
  opt.timestep = physics->dt / physics->substeps;
  opt.solver = physics->solver;
  if (physics->iterations > 0) opt.solver_opt.iterations = physics->iterations;
  // candidates within min_margin are rows whatever their path (resting contact); at the
  // engine's 100 um that takes in the entry chamfer's edge, whose blended normal would brake
  // a peg sliding past it at a 50-100 um clearance. A tenth of the clearance keeps resting
  // contact resting and leaves every farther point to the engine's path test.
  opt.min_margin = fmax(1e-6, fmin(opt.min_margin, 0.1 * c->clearance));
  tf_builder_set_option(b, &opt);
  int rc = fill_builder(b, s, &peg, &hole, err, errlen);
  tf_part_geometry_free(&peg);
  tf_part_geometry_free(&hole);
  if (rc == 0) {
    char cerr[200];
    env->model = tf_builder_compile(b, cerr, sizeof(cerr));
    if (!env->model) {
      snprintf(err, errlen, "task 'peg': %s", cerr);
      rc = -1;
    }
  }
  tf_builder_destroy(b);
  if (rc) return -1;
  env->data = tf_data_create(env->model);
  if (!env->data) {
    snprintf(err, errlen, "task 'peg': out of memory");
    return -1;
  }
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

  tf_probe_spec* p = &env->probe;
  p->tunnel_body = s->body;
  p->axis[0] = 0, p->axis[1] = 0, p->axis[2] = -1;
  p->seat[0] = 0, p->seat[1] = 0, p->seat[2] = -c->depth;
  p->noverlap = 1;
  p->overlap[0][0].geom = s->geom_peg_measure;
  p->overlap[0][0].points = s->samples_peg.points;
  p->overlap[0][0].npoint = s->samples_peg.npoint;
  p->overlap[0][0].floor = s->samples_peg.floor;
  p->overlap[0][1].geom = s->geom_hole_measure;
  p->overlap[0][1].points = s->samples_hole.points;
  p->overlap[0][1].npoint = s->samples_hole.npoint;
  p->overlap[0][1].floor = s->samples_hole.floor;
  return 0;
}
