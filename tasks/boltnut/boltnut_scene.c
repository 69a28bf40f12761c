// The boltnut rig's model: an ISO bolt standing in a base plate (fixed to the world; the
// plate's top face and the bolt's head face both at z = 0, the head inside the plate) and a
// free nut (6 dof, frame origin on the thread axis at its bottom face) engaged on the bolt's
// top turns. No screw joint: the nut's axial motion, tilt and lateral position come from
// thread contact alone.
//
// Why a plate and not the bolt's own head: a nut is tightened onto the part it clamps, and
// the head of an ISO bolt has the nut's across-flats, so a nut screwed onto the bare head
// lands with its corners overhanging the head's edges. There the one-sided mesh x SDF
// sampling sees the head's side wall as the nearest surface once a corner is a few microns
// deep and pushes sideways instead of up (measured: 37-60 um deep at the base, the nut
// tilting and shifting). A plate wider than the nut's corners is a flat landing for every
// collider and keeps that contact out of the thread question.
//
// Start pose. A nut turned by theta about +z at height z is centred on the bolt's thread
// (equal play on both flanks) when z - pitch theta / 2 pi is a multiple of the pitch
// (assets/part_thread.c). Centred, each flank has a normal gap of delta sin 30 = delta / 2
// (delta: the bolt's radial allowance). The flank normal leans 30 deg from the axis, so a
// drop h closes the lower contact by h cos 30 and a lateral offset e by at most e sin 30:
// the true surfaces touch at h = (delta - e) / (2 cos 30). Environment 0 starts there with
// e = 0, `travel_turns` pitches above the plate; the others also turn the start along the
// helix by up to half a turn and offset it laterally by up to delta / 2
// (TF_BOLTNUT_PERTURB_*). A collider is not the true surface (a mesh's facets, a hull), so
// the height is then corrected until the collider itself just touches (settle_height):
// "engaged and at rest" as the simulation sees it, not a few microns of overlap that the
// first step would push out. A hull cannot engage (it fills the bore): it ends up resting
// on the bolt's tip.
//
// Colliders. sdf: both parts' analytic SDFs (SDF x SDF). mesh_sdf: the nut as its coarse
// mesh sampled in the bolt's analytic SDF (Factory / CRISP); the nut's thread wraps around
// the bolt, so its mesh's chords lie on the bore's side of the true surface and a touching
// collider leaves the true flanks a few microns apart (M16 at the default 11 um chord: 5 um).
// hull: qhull hulls of both meshes. Every geom also carries its part's analytic SDF so that the
// overlap probe measures the true surfaces whatever the collider.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boltnut.h"

#define COS30 0.8660254037844386
#define SETTLE_ITERS 12
#define SETTLE_TOL 1e-8    // m: the collider's gap at the start, at most
#define SETTLE_MIN_NZ 0.3  // contacts steeper than this (radial) do not set the height

// the plate's exact signed distance (a box of half-sizes `half` about the geom origin), so
// that the overlap probe can measure the nut in it
typedef struct plate_sdf {
  double half[3];
} plate_sdf;

static double plate_distance(const void* params, const double p[3], double grad[3]) {
  const plate_sdf* b = params;
  double q[3], out = 0, in = -INFINITY;
  int axis = 0;
  for (int k = 0; k < 3; k++) {
    q[k] = fabs(p[k]) - b->half[k];
    out += q[k] > 0 ? q[k] * q[k] : 0;
    if (q[k] > in) in = q[k], axis = k;
  }
  if (in > 0) {
    double d = sqrt(out);
    if (grad) {
      for (int k = 0; k < 3; k++) grad[k] = (q[k] > 0 ? q[k] : 0) * (p[k] < 0 ? -1 : 1) / d;
    }
    return d;
  }
  if (grad) {
    grad[0] = grad[1] = grad[2] = 0;
    grad[axis] = p[axis] < 0 ? -1 : 1;
  }
  return in;
}

int tf_boltnut_add_collider(tf_builder* b, const tf_geom_def* base, int collider, int is_moving,
                            const tf_part_geometry* g, int* sdf_id) {
  int mesh;
  int sdf = tf_part_add_mesh_and_sdf(b, base->name, g, &mesh);
  if (sdf_id) *sdf_id = sdf;
  if (sdf < 0) return -1;
  tf_geom_def gd = *base;
  gd.sdf = sdf;
  if (collider == BN_COLLIDER_HULL) {
    gd.type = TF_GEOM_HULL;
    gd.hull = tf_builder_add_hull(b, base->name, g->vert, g->nvert);
    if (gd.hull < 0) return -1;
  } else if (collider == BN_COLLIDER_MESH_SDF && is_moving) {
    gd.type = TF_GEOM_MESH;
    gd.mesh = mesh;
  } else {
    gd.type = TF_GEOM_SDF;
  }
  return tf_builder_add_geom(b, &gd);
}

// a rig geom's settings: name, body, the thread's friction, condim 3, default collision bits
static tf_geom_def rig_geom(const char* name, int body, double mu) {
  tf_geom_def gd = tf_geom_def_default();
  gd.name = name;
  gd.body = body;
  gd.friction[0] = mu;
  gd.condim = 3;
  return gd;
}

int tf_boltnut_add_plate(tf_builder* b, const tf_boltnut_parts* parts, double mu) {
  double corner = parts->nut.aabb[3], head = -parts->bolt.aabb[2];
  plate_sdf box = {{1.5 * corner, 1.5 * corner, head}};
  tf_sdf_def def;
  memset(&def, 0, sizeof(def));
  def.name = "plate";
  def.fn = plate_distance;
  def.params = &box;
  def.params_size = sizeof(box);
  for (int k = 0; k < 3; k++) def.aabb[k] = -box.half[k], def.aabb[3 + k] = box.half[k];
  def.mesh = -1;
  int sdf = tf_builder_add_sdf(b, &def);
  if (sdf < 0) return -1;
  tf_geom_def gd = tf_geom_def_default();
  gd.name = "plate";
  gd.body = 0;
  gd.type = TF_GEOM_BOX;
  memcpy(gd.size, box.half, sizeof(gd.size));
  gd.pos[2] = -head;
  gd.sdf = sdf;
  gd.friction[0] = mu;
  gd.condim = 3;
  return tf_builder_add_geom(b, &gd);
}

// the model with the nut at pose (pos, quat); writes the body and geom ids into s
static tf_model* build_model(tf_boltnut_state* s, const tf_boltnut_parts* parts, const double* v,
                             const tf_physics* physics, const tf_boltnut_mass* mass,
                             const double pos[3], const double quat[4], char* err, size_t errlen) {
  tf_builder* b = tf_builder_create();
  if (!b) {
    snprintf(err, errlen, "task 'boltnut': out of memory");
    return NULL;
  }
  tf_option opt = tf_physics_option(physics);
  // the thread pair alone fills a pair's cap (128) on a seated nut; the plate's landing
  // needs room of its own, or its rows would be the ones the full buffer drops
  opt.nconmax = 2 * opt.max_pair_contacts + 32;
  tf_builder_set_option(b, &opt);

  int collider = (int)v[BN_COLLIDER];
  double mu = v[BN_MU];
  tf_geom_def bolt = rig_geom("bolt", 0, mu);
  s->bolt_geom = tf_boltnut_add_collider(b, &bolt, collider, 0, &parts->bolt, NULL);
  s->plate_geom = tf_boltnut_add_plate(b, parts, mu);
  tf_body_def bd = tf_body_def_default();
  bd.name = "nut";
  bd.parent = 0;
  memcpy(bd.pos, pos, sizeof(bd.pos));
  memcpy(bd.quat, quat, sizeof(bd.quat));
  bd.mass = mass->mass;
  memcpy(bd.com, mass->com, sizeof(bd.com));
  memcpy(bd.inertia, mass->inertia, sizeof(bd.inertia));
  s->nut_body = tf_builder_add_body(b, &bd);
  tf_joint_def jd = tf_joint_def_default();
  jd.name = "nut_free";
  jd.body = s->nut_body;
  jd.type = TF_JOINT_FREE;
  int joint = s->nut_body >= 0 ? tf_builder_add_joint(b, &jd) : -1;
  tf_geom_def nut = rig_geom("nut", s->nut_body, mu);
  s->nut_geom = joint >= 0 ? tf_boltnut_add_collider(b, &nut, collider, 1, &parts->nut, NULL) : -1;
  tf_model* m = NULL;
  if (s->bolt_geom < 0 || s->plate_geom < 0 || s->nut_geom < 0) {
    snprintf(err, errlen, "task 'boltnut': out of memory building the model");
  } else {
    m = tf_builder_compile(b, err, errlen);
  }
  tf_builder_destroy(b);
  return m;
}

// the height change that makes the collider just touch at the nut's pose in d: one step from
// rest in scratch data reports every contact row with its gap at the start pose; each
// contact whose normal holds the nut up (from the other part into the nut, upwards) asks
// for a raise of -gap / n_z, and the largest one wins (negative: lower). NaN when nothing
// holds the nut up within the contact margin.
static double touch_shift(const tf_model* m, tf_data* scratch, const tf_boltnut_state* s,
                          const double* qpos) {
  tf_data_reset(m, scratch);
  memcpy(scratch->qpos, qpos, sizeof(double) * (size_t)m->nq);
  tf_step(m, scratch);
  double shift = NAN;
  for (int i = 0; i < scratch->ncon; i++) {
    const tf_contact* c = scratch->contact + i;
    if (c->geom[0] != s->nut_geom && c->geom[1] != s->nut_geom) continue;
    // frame row 0 points from geom[0] to geom[1]: into the nut when the nut is geom[1]
    double nz = c->geom[1] == s->nut_geom ? c->frame[2] : -c->frame[2];
    if (nz < SETTLE_MIN_NZ) continue;
    double raise = -c->dist / nz;
    if (!(raise <= shift)) shift = raise;
  }
  return shift;
}

// moves the nut's start height until the collider touches (see the file comment)
static void settle_height(const tf_model* m, const tf_boltnut_state* s, double pos[3]) {
  tf_data* scratch = tf_data_create(m);
  if (!scratch) return;
  double* qpos = malloc(sizeof(double) * (size_t)m->nq);
  if (qpos) {
    memcpy(qpos, m->qpos0, sizeof(double) * (size_t)m->nq);
    int adr = m->jnt_qposadr[m->body_jntadr[s->nut_body]];
    for (int it = 0; it < SETTLE_ITERS; it++) {
      double shift = touch_shift(m, scratch, s, qpos);
      if (!isfinite(shift)) break;
      qpos[adr + 2] += shift;
      if (fabs(shift) < SETTLE_TOL) break;
    }
    pos[2] = qpos[adr + 2];
  }
  free(qpos);
  tf_data_destroy(scratch);
}

// copies a mesh's vertices as probe samples
static double* copy_points(const tf_part_geometry* g) {
  double* p = malloc(sizeof(double) * 3 * (size_t)g->nvert);
  if (p) memcpy(p, g->vert, sizeof(double) * 3 * (size_t)g->nvert);
  return p;
}

void tf_boltnut_free_state(tf_boltnut_state* s) {
  if (!s) return;
  free(s->nut_samples);
  free(s->bolt_samples);
  free(s);
}

double tf_boltnut_axis_speed(const tf_model* m, const tf_data* d, int nut_body) {
  // free joint: qvel[3..5] is the body-frame angular velocity; world z is row 2 of R
  const double* w = d->qvel + m->body_dofadr[nut_body] + 3;
  const double* R = d->xmat + 9 * nut_body;
  return -(R[6] * w[0] + R[7] * w[1] + R[8] * w[2]);
}

// the drive's settings: the servo's gains from the nut's inertia about the axis and the
// control step (see boltnut.c, control)
static void set_drive(tf_boltnut_state* s, const double* v, double control_dt) {
  s->drive = (int)v[BN_DRIVE];
  s->control_dt = control_dt;
  s->drive_speed = 2 * M_PI * v[BN_DRIVE_SPEED];
  s->drive_torque = v[BN_DRIVE_TORQUE];
  // proportional: half the speed error gone per control step on the bare nut; integral: the
  // steady friction torque learnt over about ten control steps (poles near 0.7, well damped)
  s->servo_kp = 0.5 * s->axis_inertia / control_dt;
  s->servo_ki = 0.1 * s->axis_inertia / (control_dt * control_dt);
}

// the overlap probe's pairs: the nut's samples in the bolt's SDF and the bolt's in the
// nut's, and the nut's in the plate's (the plate's flat face cannot reach into the nut
// between the nut's samples, so that side has none)
void tf_boltnut_fill_probe(tf_probe_spec* p, const tf_boltnut_state* s,
                           const tf_boltnut_parts* parts) {
  p->tunnel_body = s->nut_body;
  p->axis[0] = 0, p->axis[1] = 0, p->axis[2] = -1;
  p->seat[0] = 0, p->seat[1] = 0, p->seat[2] = 0;  // bottom face on the plate, on the axis
  p->noverlap = 2;
  tf_probe_surface nut = {s->nut_geom, s->nut_samples, s->n_nut_samples,
                          parts->nut_fine.chord_error};
  tf_probe_surface bolt = {s->bolt_geom, s->bolt_samples, s->n_bolt_samples,
                           parts->bolt_fine.chord_error};
  tf_probe_surface plate = {s->plate_geom, NULL, 0, 0};
  p->overlap[0][0] = nut;
  p->overlap[0][1] = bolt;
  p->overlap[1][0] = nut;
  p->overlap[1][1] = plate;
}

int tf_boltnut_build_scene(tf_env* env, const double* v, const tf_physics* physics, tf_rng* rng,
                           char* err, size_t errlen) {
  tf_boltnut_parts parts;
  if (tf_boltnut_parts_build(&parts, v, err, errlen)) return -1;
  tf_boltnut_state* s = calloc(1, sizeof(*s));
  if (!s) {
    snprintf(err, errlen, "task 'boltnut': out of memory");
    tf_boltnut_parts_free(&parts);
    return -1;
  }
  s->pitch = parts.pitch;
  s->delta = parts.delta;
  s->collider_chord = parts.nut.chord_error;
  s->collider_vertices[0] = parts.nut.nvert;
  s->collider_vertices[1] = parts.bolt.nvert;

  // the start: centred on the helix, dropped onto the flanks
  double phase_turns = 0, lateral = 0, azimuth = 0;
  if (env->index > 0) {
    phase_turns = tf_rng_uniform(rng, -TF_BOLTNUT_PERTURB_TURN, TF_BOLTNUT_PERTURB_TURN);
    lateral = tf_rng_uniform(rng, 0, TF_BOLTNUT_PERTURB_LATERAL * s->delta);
    azimuth = tf_rng_uniform(rng, -M_PI, M_PI);
  }
  s->start_phase = phase_turns;
  s->start_lateral = lateral;
  double turns0 = v[BN_TRAVEL_TURNS] - phase_turns;  // tightening turns to the plate
  double theta0 = 2 * M_PI * turns0;  // about +z: z = pitch theta / 2 pi on the helix
  s->start_pos[0] = lateral * cos(azimuth);
  s->start_pos[1] = lateral * sin(azimuth);
  s->start_pos[2] = turns0 * s->pitch - (s->delta - lateral) / (2 * COS30);
  s->start_quat[0] = cos(0.5 * theta0);
  s->start_quat[1] = 0;
  s->start_quat[2] = 0;
  s->start_quat[3] = sin(0.5 * theta0);

  // the nut's mass properties from its finer mesh (closer to the true solid)
  tf_boltnut_mass mass;
  if (tf_boltnut_mesh_mass(&mass, parts.nut_fine.vert, parts.nut_fine.nvert, parts.nut_fine.face,
                           parts.nut_fine.nface, TF_BOLTNUT_DENSITY)) {
    snprintf(err, errlen, "task 'boltnut': the nut mesh encloses no volume");
    goto fail;
  }
  s->nut_mass = mass.mass;
  // about the thread axis (the body's z) through the frame origin, the com being on it
  s->axis_inertia =
      mass.inertia[2] + mass.mass * (mass.com[0] * mass.com[0] + mass.com[1] * mass.com[1]);

  env->model = build_model(s, &parts, v, physics, &mass, s->start_pos, s->start_quat, err, errlen);
  if (!env->model) goto fail;
  double analytic = s->start_pos[2];
  settle_height(env->model, s, s->start_pos);
  s->settle_shift = s->start_pos[2] - analytic;
  if (s->settle_shift != 0) {
    // compile again so that the model's qpos0 is the start the run uses
    tf_model_destroy(env->model);
    env->model =
        build_model(s, &parts, v, physics, &mass, s->start_pos, s->start_quat, err, errlen);
    if (!env->model) goto fail;
  }
  env->data = tf_data_create(env->model);
  s->nut_samples = copy_points(&parts.nut_fine);
  s->bolt_samples = copy_points(&parts.bolt_fine);
  if (!env->data || !s->nut_samples || !s->bolt_samples) {
    snprintf(err, errlen, "task 'boltnut': out of memory");
    goto fail;
  }
  s->n_nut_samples = parts.nut_fine.nvert;
  s->n_bolt_samples = parts.bolt_fine.nvert;
  tf_boltnut_fill_probe(&env->probe, s, &parts);
  set_drive(s, v, physics->dt);
  tf_boltnut_track_init(&s->track, s->pitch, s->start_pos, s->start_quat);
  env->state = s;
  tf_boltnut_parts_free(&parts);
  return 0;

fail:
  tf_data_destroy(env->data);
  tf_model_destroy(env->model);
  env->data = NULL;
  env->model = NULL;
  tf_boltnut_free_state(s);
  tf_boltnut_parts_free(&parts);
  return -1;
}
