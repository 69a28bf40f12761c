// The peg task's parts and their geoms, shared by the rig's scene (peg_scene.c) and robot
// mode's (peg_robot_scene.c): the peg and hole parts for a configuration, the peg's inertia,
// the colliders the run's `collider` names, the overlap probe's exact SDF geoms, the probe
// samples and the probe spec. Both scenes add the same geoms in the same order, so a rig and
// a robot run see the same contact between peg and hole.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "peg.h"

#define BLOCK_WALL 2e-3  // m: the least wall beside the bore's (or pocket corner's) rim

// "key=value" text for a number, kept alive by the caller's buffer
static void put(tf_kv* kv, char (*text)[32], int i, const char* key, double value) {
  snprintf(text[i], sizeof(text[i]), "%.17g", value);
  kv[i].key = key;
  kv[i].value = text[i];
}

// the same for a length the part takes in mm: the mm value the part turns back into exactly
// these metres (the run's physics must not hang on how the part reads its units)
static void put_mm(tf_kv* kv, char (*text)[32], int i, const char* key, double metres) {
  put(kv, text, i, key, tf_part_mm(metres));
}

// half the block's side: a diameter each side of the axis (CRISP's look), or more when the
// rim (a square pocket's corner) would leave less than BLOCK_WALL
static double block_half(const peg_config* c) {
  double rim = 0.5 * c->diameter + c->clearance + c->chamfer;
  double reach = c->square ? rim * sqrt(2.0) : rim;
  return fmax(c->diameter, reach + BLOCK_WALL);
}

int peg_parts_build(tf_part_geometry* peg, tf_part_geometry* hole, const peg_config* c, char* err,
                    size_t errlen) {
  memset(peg, 0, sizeof(*peg));
  memset(hole, 0, sizeof(*hole));
  tf_kv kv[8];
  char text[8][32];
  kv[0].key = "shape", kv[0].value = c->square ? "square" : "round";
  put_mm(kv, text, 1, "diameter_mm", c->diameter);
  put_mm(kv, text, 2, "length_mm", c->length);
  put_mm(kv, text, 3, "chamfer_mm", c->chamfer);
  put(kv, text, 4, "chord_um", c->chord * 1e6);
  int rc = tf_part_build("peg", kv, 5, peg, err, errlen);
  if (rc == 0) {
    put(kv, text, 2, "clearance_um", c->clearance * 1e6);
    put_mm(kv, text, 3, "depth_mm", c->depth);
    put_mm(kv, text, 4, "chamfer_mm", c->chamfer);
    put_mm(kv, text, 5, "block_side_mm", 2 * block_half(c));
    put_mm(kv, text, 6, "block_height_mm", c->depth + PEG_BLOCK_FLOOR);
    put(kv, text, 7, "chord_um", c->chord * 1e6);
    rc = tf_part_build("hole", kv, 8, hole, err, errlen);
  }
  if (rc) {
    tf_part_geometry_free(peg);
    tf_part_geometry_free(hole);
  }
  return rc;
}

void peg_inertia(const peg_config* c, double* mass, double inertia[6]) {
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
                        int sdf, double mu, const peg_collision_bits* bits) {
  tf_geom_def g = tf_geom_def_default();
  if (bits) g.contype = bits->contype, g.conaffinity = bits->conaffinity;
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

int peg_add_colliders(tf_builder* b, const peg_config* c, int peg_body, const tf_part_geometry* peg,
                      const tf_part_geometry* hole, int sdf_peg, int sdf_hole,
                      const peg_collision_bits* peg_bits) {
  int ok = 1;
  switch (c->collider) {
    case PEG_COLLIDER_SDF:
      ok &= add_collider(b, "hole", 0, TF_GEOM_SDF, sdf_hole, -1, c->mu, NULL) >= 0;
      ok &= add_collider(b, "peg", peg_body, TF_GEOM_SDF, sdf_peg, -1, c->mu, peg_bits) >= 0;
      break;
    case PEG_COLLIDER_MESH_SDF: {
      int mesh =
          tf_builder_add_mesh(b, "peg_collider", peg->vert, peg->nvert, peg->face, peg->nface);
      ok &= mesh >= 0;
      ok &= add_collider(b, "hole", 0, TF_GEOM_SDF, sdf_hole, -1, c->mu, NULL) >= 0;
      ok &= add_collider(b, "peg", peg_body, TF_GEOM_MESH, mesh, sdf_peg, c->mu, peg_bits) >= 0;
      break;
    }
    default: {
      int hull_hole = tf_builder_add_hull(b, "hole_hull", hole->vert, hole->nvert);
      int hull_peg = tf_builder_add_hull(b, "peg_hull", peg->vert, peg->nvert);
      ok &= hull_hole >= 0 && hull_peg >= 0;
      ok &= add_collider(b, "hole", 0, TF_GEOM_HULL, hull_hole, -1, c->mu, NULL) >= 0;
      ok &= add_collider(b, "peg", peg_body, TF_GEOM_HULL, hull_peg, -1, c->mu, peg_bits) >= 0;
      break;
    }
  }
  return ok ? 0 : -1;
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

int peg_add_measures(tf_builder* b, peg_state* s, int sdf_peg, int sdf_hole) {
  s->geom_hole_measure = add_measure(b, "hole_measure", 0, sdf_hole);
  s->geom_peg_measure = add_measure(b, "peg_measure", s->body, sdf_peg);
  return s->geom_hole_measure >= 0 && s->geom_peg_measure >= 0 ? 0 : -1;
}

int peg_samples_build(peg_state* s) {
  const peg_config* c = &s->cfg;
  s->bore_half = 0.5 * c->diameter + c->clearance;
  // probe samples at 4x the collider mesh's stations per ring: sagitta 1/16 of its chord
  double floor_target = c->chord / 16;
  return peg_samples_peg(&s->samples_peg, c, floor_target) ||
                 peg_samples_hole(&s->samples_hole, c, s->bore_half, floor_target)
             ? -1
             : 0;
}

tf_option peg_scene_option(const tf_physics* physics, const peg_config* c) {
  tf_option opt = tf_physics_option(physics);
  // candidates within min_margin are rows whatever their path (resting contact); at the
  // engine's 100 um that takes in the entry chamfer's edge, whose blended normal would brake
  // a peg sliding past it at a 50-100 um clearance. A tenth of the clearance keeps resting
  // contact resting and leaves every farther point to the engine's path test.
  opt.min_margin = fmax(1e-6, fmin(opt.min_margin, 0.1 * c->clearance));
  return opt;
}

void peg_probe_spec(tf_probe_spec* p, const peg_state* s) {
  p->tunnel_body = s->body;
  p->axis[0] = 0, p->axis[1] = 0, p->axis[2] = -1;
  p->seat[0] = 0, p->seat[1] = 0, p->seat[2] = -s->cfg.depth;
  p->noverlap = 1;
  p->overlap[0][0].geom = s->geom_peg_measure;
  p->overlap[0][0].points = s->samples_peg.points;
  p->overlap[0][0].npoint = s->samples_peg.npoint;
  p->overlap[0][0].floor = s->samples_peg.floor;
  p->overlap[0][1].geom = s->geom_hole_measure;
  p->overlap[0][1].points = s->samples_hole.points;
  p->overlap[0][1].npoint = s->samples_hole.npoint;
  p->overlap[0][1].floor = s->samples_hole.floor;
}
