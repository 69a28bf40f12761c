// An assembly's model: one body per moving part (its mount a free joint, a hinge or a slide
// about a world axis), fixed parts on the world body; each part one collider geom and one
// non-colliding SDF geom the overlap probe reads (as the built-in tasks do, so that the
// measurement is the part's SDF whatever the collider); the drive's actuator; the probe spec.
//
// Colliders ("collider" in the file): mesh_sdf (default) puts each moving part's surface mesh,
// carrying its SDF, against the other parts' SDFs (two-way sampling, as the peg task's
// mesh_sdf); sdf makes every part an SDF geom (SDF x SDF, as the gears task's sdf). Fixed
// parts are SDF geoms either way.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assembly.h"
#include "sdf_cache.h"
#include "tf_math.h"

static int oom(char* err, size_t errlen) {
  snprintf(err, errlen, "task 'assembly': out of memory building the model");
  return -1;
}

// a tf_part_geometry view of a solid (for the parts API's builder helpers); owns nothing
static tf_part_geometry view(const asm_solid* s) {
  tf_part_geometry g;
  memset(&g, 0, sizeof(g));
  g.fn = s->fn;
  g.params = s->params;
  g.params_size = s->params_size;
  memcpy(g.aabb, s->aabb, sizeof(g.aabb));
  g.error_bound = s->error_bound;
  g.vert = s->vert, g.nvert = s->nvert;
  g.face = s->face, g.nface = s->nface;
  g.chord_error = s->chord;
  g.feature_size = s->feature_size;
  g.unit_gradient = s->unit_gradient;
  return g;
}

int asm_scene_add_part(tf_builder* b, asm_state* s, int p, const asm_bits* bits, char* err,
                       size_t errlen) {
  const asm_file* f = &s->file;
  const asm_part* q = &f->part[p];
  asm_solid* solid = &s->solid[p];
  // (a solid built beforehand, robot mode's, is used as it is)
  if (!solid->vert && asm_solid_build(solid, f, p, err, errlen)) return -1;
  tf_part_geometry g = view(solid);
  int mesh = -1;
  int sdf = tf_part_add_mesh_and_sdf(b, q->name, &g, &mesh);
  if (sdf < 0) return oom(err, errlen);
  s->sdf[p] = sdf;
  // a mesh part may collide through a grid baked from its triangles (cached on disk) instead
  // of its exact SDF; the overlap probe keeps measuring with the exact one
  int collider_sdf = sdf;
  if (!q->library && q->grid_nodes > 0) {
    tf_sdf_bake_options opt = tf_sdf_bake_options_default();
    opt.nodes = q->grid_nodes;
    opt.threads = 1;  // environments build on the run's threads already
    tf_sdf_grid grid;
    char why[512];
    if (tf_sdf_cache_load(&grid, NULL, solid->vert, solid->nvert, solid->face, solid->nface, &opt,
                          why, sizeof(why))) {
      snprintf(err, errlen, "task 'assembly': part '%s': grid_nodes: %s", q->name, why);
      return -1;
    }
    char grid_name[ASM_NAME_LEN + 8];
    snprintf(grid_name, sizeof(grid_name), "%s_grid", q->name);
    tf_sdf_def def;
    tf_sdf_grid_def(&def, &grid, grid_name, mesh);
    collider_sdf = tf_builder_add_sdf(b, &def);
    tf_sdf_grid_free(&grid);
    if (collider_sdf < 0) return oom(err, errlen);
  }
  s->joint[p] = -1;
  int body = 0;
  if (q->mount != ASM_FIXED) {
    tf_body_def def = tf_body_def_default();
    def.name = q->name;
    def.parent = 0;
    memcpy(def.pos, q->pos, sizeof(def.pos));
    memcpy(def.quat, q->quat, sizeof(def.quat));
    def.mass = solid->mass;
    memcpy(def.com, solid->com, sizeof(def.com));
    memcpy(def.inertia, solid->inertia, sizeof(def.inertia));
    if ((body = tf_builder_add_body(b, &def)) < 0) return oom(err, errlen);
    tf_joint_def j = tf_joint_def_default();
    char name[ASM_NAME_LEN + 8];
    snprintf(name, sizeof(name), "%s_mount", q->name);
    j.name = name;
    j.body = body;
    double R[9];
    tf_quat_to_mat(R, q->quat);
    if (q->mount == ASM_FREE) {
      j.type = TF_JOINT_FREE;
    } else {
      j.type = q->mount == ASM_HINGE ? TF_JOINT_HINGE : TF_JOINT_SLIDE;
      tf_mat3_mul_vec_t(j.axis, R, q->axis);  // world axis into the body frame
      double rel[3];
      tf_vec3_sub(rel, q->anchor, q->pos);
      tf_mat3_mul_vec_t(j.pos, R, rel);
    }
    if ((s->joint[p] = tf_builder_add_joint(b, &j)) < 0) return oom(err, errlen);
  }
  s->body[p] = body;
  // the collider
  tf_geom_def geom = tf_geom_def_default();
  geom.name = q->name;
  geom.body = body;
  int as_mesh = body != 0 && f->collider == ASM_COLLIDER_MESH_SDF;
  geom.type = as_mesh ? TF_GEOM_MESH : TF_GEOM_SDF;
  geom.mesh = as_mesh ? mesh : -1;
  geom.sdf = collider_sdf;
  if (body == 0) {
    memcpy(geom.pos, q->pos, sizeof(geom.pos));
    memcpy(geom.quat, q->quat, sizeof(geom.quat));
  }
  geom.friction[0] = isnan(q->mu) ? f->mu : q->mu;
  geom.condim = 3;
  if (bits && body != 0) {
    geom.contype = bits->contype;
    geom.conaffinity = bits->conaffinity;
  }
  if (tf_builder_add_geom(b, &geom) < 0) return oom(err, errlen);
  // the overlap probe's view: the same SDF, colliding with nothing
  char name[ASM_NAME_LEN + 8];
  snprintf(name, sizeof(name), "%s_measure", q->name);
  geom.name = name;
  geom.type = TF_GEOM_SDF;
  geom.mesh = -1;
  geom.sdf = sdf;
  geom.contype = 0;
  geom.conaffinity = 0;
  if ((s->measure[p] = tf_builder_add_geom(b, &geom)) < 0) return oom(err, errlen);
  return 0;
}

static int add_drive(tf_builder* b, asm_state* s) {
  const asm_file* f = &s->file;
  s->actuator = -1;
  if (f->drive.type != ASM_DRIVE_VELOCITY && f->drive.type != ASM_DRIVE_TORQUE) return 0;
  tf_actuator_def a = tf_actuator_def_default();
  a.name = "drive";
  a.joint = s->joint[f->drive.part];
  a.gear = 1;
  if (f->drive.type == ASM_DRIVE_VELOCITY) {
    a.type = TF_ACT_VELOCITY;
    a.kv = f->drive.kv;
    a.forcerange[0] = -f->drive.limit;
    a.forcerange[1] = f->drive.limit;
  } else {
    a.type = TF_ACT_MOTOR;
  }
  s->actuator = tf_builder_add_actuator(b, &a);
  return s->actuator < 0 ? -1 : 0;
}

void asm_probe_spec(tf_probe_spec* p, asm_state* s) {
  const asm_file* f = &s->file;
  if (f->tunnel >= 0) {
    p->tunnel_body = s->body[f->tunnel];
    memcpy(p->axis, f->insertion.axis, sizeof(p->axis));
    memcpy(p->seat, f->insertion.seat, sizeof(p->seat));
  }
  p->noverlap = f->noverlap;
  for (int i = 0; i < f->noverlap; i++) {
    for (int side = 0; side < 2; side++) {
      int q = f->overlap[i][side];
      tf_probe_surface* ps = &p->overlap[i][side];
      ps->geom = s->measure[q];
      ps->points = s->solid[q].samples;
      ps->npoint = s->solid[q].nsample;
      ps->floor = s->solid[q].sample_floor;
    }
    // formatted aside, then copied: the part names live in the same state as the name
    char name[sizeof(s->overlap_name[i])];
    snprintf(name, sizeof(name), "%.11s_%.11s", f->part[f->overlap[i][0]].name,
             f->part[f->overlap[i][1]].name);
    memcpy(s->overlap_name[i], name, sizeof(name));
    p->overlap_name[i] = s->overlap_name[i];
  }
  p->ngear = f->ngear;
  for (int i = 0; i < f->ngear; i++) {
    const asm_part* q = &f->part[f->gear_part[i]];
    p->gear_body[i] = s->body[f->gear_part[i]];
    if (q->mount == ASM_HINGE) {
      memcpy(p->gear_axis[i], q->axis, sizeof(p->gear_axis[i]));
    } else {
      // a free gear turns about its own z axis as placed
      static const double z[3] = {0, 0, 1};
      tf_quat_rotate(p->gear_axis[i], q->quat, z);
    }
    p->gear_teeth[i] = f->gear_teeth[i];
    p->gear_sign[i] = f->gear_sign[i];
  }
  p->slip_t0 = f->slip_t0;
  p->ratio_window = f->ratio_window;
}

int asm_scene_build(tf_env* env, asm_state* s, const tf_physics* physics, char* err,
                    size_t errlen) {
  const asm_file* f = &s->file;
  tf_builder* b = tf_builder_create();
  if (!b) return oom(err, errlen);
  tf_option opt = tf_physics_option(physics);
  memcpy(opt.gravity, f->gravity, sizeof(opt.gravity));
  if (!isnan(f->min_margin)) opt.min_margin = fmax(1e-7, f->min_margin);
  if (f->pair_contacts > 0) {
    opt.max_pair_contacts = f->pair_contacts;
    int pairs = f->npart * (f->npart - 1) / 2;
    int need = 2 * f->pair_contacts * (pairs > 1 ? pairs : 1);
    if (need > opt.nconmax) opt.nconmax = need;
  }
  tf_builder_set_option(b, &opt);
  int rc = 0;
  for (int p = 0; p < f->npart && rc == 0; p++) rc = asm_scene_add_part(b, s, p, NULL, err, errlen);
  if (rc == 0 && add_drive(b, s)) rc = oom(err, errlen);
  if (rc == 0) rc = tf_env_compile(env, b, "assembly", err, errlen);
  tf_builder_destroy(b);
  if (rc) return -1;
  // a push at a speed: the start velocity along the insertion axis
  tf_data* d = env->data;
  const tf_model* m = env->model;
  if (f->drive.type == ASM_DRIVE_PUSH && f->drive.speed != 0) {
    int p = f->drive.part;
    int dof = m->jnt_dofadr[s->joint[p]];
    const double* axis = f->insertion.axis;
    if (f->part[p].mount == ASM_FREE) {
      for (int k = 0; k < 3; k++) d->qvel[dof + k] = f->drive.speed * axis[k];
    } else {
      d->qvel[dof] = f->drive.speed * tf_vec3_dot(f->part[p].axis, axis);
    }
  }
  tf_kinematics(m, d);
  asm_probe_spec(&env->probe, s);
  return 0;
}

double asm_seat_error(const asm_state* s, const tf_data* d) {
  int b = s->body[s->file.insertion.part];
  double r[3];
  tf_vec3_sub(r, d->xpos + 3 * b, s->file.insertion.seat);
  return tf_vec3_norm(r);
}

double asm_tilt(const asm_state* s, const tf_data* d) {
  int b = s->body[s->file.insertion.part];
  double now[3];
  tf_mat3_mul_vec(now, d->xmat + 9 * b, s->file.insertion.part_axis);
  double c = tf_vec3_dot(now, s->file.insertion.axis);
  return acos(fmax(-1, fmin(1, c)));
}
