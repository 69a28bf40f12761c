// Builds the gears rig's model (see gears_scene.h): parts, fixture, joints, servo, probe spec.
//
// Placement: gear i sits at x_i = x_{i-1} + m (z_{i-1} + z_i) / 2 (standard centre distance,
// profile shift 0) and turns to tf_gear_mesh_angle of its driver's angle, so every pair starts
// with its backlash split evenly between the two flanks (no contact, no overlap at t = 0).
// Each gear part is thinned by half the backlash, so each pair has the whole of it.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gears_scene.h"
#include "sdf_library.h"

#define PLATE_MARGIN 0.01  // m: plate beyond the tip circles
#define PLATE_THICKNESS TF_GEARS_PLATE_THICKNESS
#define SHAFT_ABOVE 0.01      // m: shafts rise this far above the dropped gear's top face
#define SHOULDER_WIDTH 0.003  // m: a shoulder's radius beyond the bore
#define SHOULDER_HEIGHT TF_GEARS_SHOULDER_HEIGHT
// contacts kept per geom pair: each pair touches along a line (a tooth flank over the face
// width) or a ring (bore on shaft, face on shoulder), which 8 spread points hold; 16 gave the
// same slip and skipped-teeth figures at every rate of the gate and twice al's solve time
#define PAIR_CONTACTS TF_GEARS_PAIR_CONTACTS

// the part's key=value strings for gear i (numbers printed exactly)
static int build_gear(tf_part_geometry* g, const tf_gears_config* c, int teeth, double chord,
                      char* err, size_t errlen) {
  char module[32], z[32], face[32], bore[32], backlash[32], chord_um[32];
  snprintf(module, sizeof(module), "%.17g", c->module * 1e3);
  snprintf(z, sizeof(z), "%d", teeth);
  snprintf(face, sizeof(face), "%.17g", c->face * 1e3);
  snprintf(bore, sizeof(bore), "%.17g", c->bore * 1e3);
  snprintf(backlash, sizeof(backlash), "%.17g", c->backlash * 1e3);
  snprintf(chord_um, sizeof(chord_um), "%.17g", chord * 1e6);
  tf_kv kv[] = {{"module_mm", module},     {"teeth", z},
                {"face_mm", face},         {"bore_mm", bore},
                {"backlash_mm", backlash}, {"chord_um", chord_um}};
  char why[256];
  if (tf_part_build("gear", kv, (int)(sizeof(kv) / sizeof(kv[0])), g, why, sizeof(why))) {
    snprintf(err, errlen,
             "task 'gears': a %d-tooth gear with module_mm %g, bore_mm %g, backlash_mm %g "
             "cannot be built: %s",
             teeth, c->module * 1e3, c->bore * 1e3, c->backlash * 1e3, why);
    return -1;
  }
  return 0;
}

// rotation about +z by a, then a tilt by t about the horizontal axis at azimuth phi
static void gear_quat(double q[4], double a, double t, double phi) {
  double spin[4] = {cos(0.5 * a), 0, 0, sin(0.5 * a)};
  double tilt[4] = {cos(0.5 * t), sin(0.5 * t) * cos(phi), sin(0.5 * t) * sin(phi), 0};
  // q = tilt * spin
  q[0] = tilt[0] * spin[0] - tilt[1] * spin[1] - tilt[2] * spin[2] - tilt[3] * spin[3];
  q[1] = tilt[0] * spin[1] + tilt[1] * spin[0] + tilt[2] * spin[3] - tilt[3] * spin[2];
  q[2] = tilt[0] * spin[2] - tilt[1] * spin[3] + tilt[2] * spin[0] + tilt[3] * spin[1];
  q[3] = tilt[0] * spin[3] + tilt[1] * spin[2] - tilt[2] * spin[1] + tilt[3] * spin[0];
}

// collision bits: teeth geoms meet teeth geoms, hub geoms meet the fixture (shafts, shoulders,
// plate), and neither meets the other kind; a geom that does both carries both bits
#define BIT_FIXTURE 1u
#define BIT_TEETH 2u

// a gear geom of the given type; hull and mesh ids as the type needs, sdf always
static int gear_geom(tf_builder* b, const tf_gears_config* c, const char* name, int body,
                     tf_geom_type type, int hull, int mesh, int sdf, unsigned contype,
                     unsigned conaffinity) {
  tf_geom_def geom = tf_geom_def_default();
  geom.name = name;
  geom.body = body;
  geom.type = type;
  geom.hull = hull;
  geom.mesh = mesh;
  geom.sdf = sdf;
  geom.friction[0] = c->mu;
  geom.friction[1] = 0;
  geom.condim = 3;
  geom.contype = contype;
  geom.conaffinity = conaffinity;
  return tf_builder_add_geom(b, &geom);
}

// gear i's collision geoms for the chosen collider: *teeth meets the other gears, *hub the
// fixture (the same geom unless mesh_sdf), and a loose gear's meet loose_conaffinity too; 0 or
// -1
static int add_gear_geoms(tf_builder* b, const tf_gears_config* c, int i, int body,
                          const tf_part_geometry* g, int* teeth, int* hub) {
  char name[32], hub_name[32];
  snprintf(name, sizeof(name), "gear%d", i);
  snprintf(hub_name, sizeof(hub_name), "gear%d_hub", i);
  tf_sdf_def sdf;
  tf_part_sdf_def(&sdf, name, g, -1);
  unsigned extra = c->loose[i] ? c->loose_conaffinity : 0u;
  unsigned both = BIT_FIXTURE | BIT_TEETH | extra;
  if (c->collider == TF_GEARS_HULL) {
    // the hull collides; the exact SDF rides along (no mesh) only so that the overlap probe
    // can measure the true teeth, which no hull pair function reads
    int hull = tf_builder_add_hull(b, name, g->vert, g->nvert);
    int id = tf_builder_add_sdf(b, &sdf);
    if (hull < 0 || id < 0) return -1;
    *teeth = *hub = gear_geom(b, c, name, body, TF_GEOM_HULL, hull, -1, id, BIT_TEETH, both);
    return *teeth < 0 ? -1 : 0;
  }
  int mesh = tf_builder_add_mesh(b, name, g->vert, g->nvert, g->face, g->nface);
  if (mesh < 0) return -1;
  sdf.mesh = mesh;
  int id = tf_builder_add_sdf(b, &sdf);
  if (id < 0) return -1;
  if (c->collider == TF_GEARS_SDF) {
    *teeth = *hub = gear_geom(b, c, name, body, TF_GEOM_SDF, -1, -1, id, BIT_TEETH, both);
    return *teeth < 0 ? -1 : 0;
  }
  // mesh_sdf: the gear's mesh in the fixture's SDFs (bore on shaft, face on shoulder: the
  // sampled side carries the corners, the field side is smooth). Two gears are both moving
  // parts with corners at their tips, so their teeth meet SDF x SDF: a flank sampled in the
  // other gear's field next to its tip corner takes the corner's normal (radial to that gear)
  // and locks the pair (gears.c, colliders), whichever gear is sampled.
  *teeth = gear_geom(b, c, name, body, TF_GEOM_SDF, -1, -1, id, BIT_TEETH, BIT_TEETH | extra);
  *hub = gear_geom(b, c, hub_name, body, TF_GEOM_MESH, -1, mesh, id, 0, BIT_FIXTURE);
  return *teeth < 0 || *hub < 0 ? -1 : 0;
}

// the joints of gear i; the servo's joint id for the input (else -1), via *spin
static int add_gear_joints(tf_builder* b, const tf_gears_config* c, int i, int body, int* spin) {
  char name[48];
  *spin = -1;
  int drop = c->impact_speed > 0;
  if (drop || (c->mount == TF_GEARS_SHAFT && i > 0) || c->loose[i]) {
    tf_joint_def j = tf_joint_def_default();
    snprintf(name, sizeof(name), "gear%d_free", i);
    j.name = name;
    j.body = body;
    j.type = TF_JOINT_FREE;
    return tf_builder_add_joint(b, &j) < 0 ? -1 : 0;
  }
  if (c->mount == TF_GEARS_HINGE) {
    tf_joint_def j = tf_joint_def_default();
    snprintf(name, sizeof(name), "gear%d_hinge", i);
    j.name = name;
    j.body = body;
    j.type = TF_JOINT_HINGE;
    j.axis[0] = 0, j.axis[1] = 0, j.axis[2] = 1;
    int id = tf_builder_add_joint(b, &j);
    if (i == 0) *spin = id;
    return id < 0 ? -1 : 0;
  }
  // the driven input on its shaft: 6 dof like a free body, but with a hinge about its own
  // axis for the velocity servo (an actuator needs a hinge) whose reaction goes to the world
  static const char* const suffix[6] = {"x", "y", "z", "spin", "tilt_x", "tilt_y"};
  static const double axis[6][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1},
                                    {0, 0, 1}, {1, 0, 0}, {0, 1, 0}};
  for (int k = 0; k < 6; k++) {
    tf_joint_def j = tf_joint_def_default();
    snprintf(name, sizeof(name), "gear%d_%s", i, suffix[k]);
    j.name = name;
    j.body = body;
    j.type = k < 3 ? TF_JOINT_SLIDE : TF_JOINT_HINGE;
    memcpy(j.axis, axis[k], sizeof(j.axis));
    int id = tf_builder_add_joint(b, &j);
    if (id < 0) return -1;
    if (k == 3) *spin = id;
  }
  return 0;
}

// a static geom with an exact analytic SDF of one primitive node (sdf_library), placed at pos;
// half: the node's box half-sizes (its aabb, tight: the SDF x SDF lattice spans it)
static int add_static_sdf(tf_builder* b, const char* name, const tf_sdf_node* node,
                          const double half[3], const double pos[3], double mu) {
  tf_sdf_tree* tree = tf_sdf_tree_create();
  if (!tree || tf_sdf_tree_add(&tree, node) < 0) {
    tf_sdf_tree_free(tree);
    return -1;
  }
  tf_sdf_def sdf;
  memset(&sdf, 0, sizeof(sdf));
  sdf.name = name;
  sdf.fn = tf_sdf_tree_eval;
  sdf.params = tree;
  sdf.params_size = tf_sdf_tree_size(tree);
  for (int k = 0; k < 3; k++) sdf.aabb[k] = -half[k], sdf.aabb[3 + k] = half[k];
  sdf.error_bound = 0;  // one primitive: exact
  sdf.mesh = -1;
  tf_geom_def geom = tf_geom_def_default();
  geom.name = name;
  geom.body = 0;
  geom.type = TF_GEOM_SDF;
  memcpy(geom.pos, pos, sizeof(geom.pos));
  geom.sdf = tf_builder_add_sdf(b, &sdf);
  tf_sdf_tree_free(tree);
  geom.friction[0] = mu;
  geom.friction[1] = 0;
  geom.condim = 3;
  geom.contype = BIT_FIXTURE;
  geom.conaffinity = 0;  // static: meets only the gears' hub bits
  return geom.sdf < 0 ? -1 : tf_builder_add_geom(b, &geom);
}

// the plate under every tip circle and a shaft per gear of the train, through the plate
static int add_fixture(tf_builder* b, tf_gears_scene* s, const tf_gears_config* c) {
  double lo = INFINITY, hi = -INFINITY, ymax = 0;
  for (int i = 0; i < c->ngear; i++) {
    double tip = 0.5 * c->module * c->teeth[i] + c->module;
    lo = fmin(lo, s->center[i][0] - tip);
    hi = fmax(hi, s->center[i][0] + tip);
    ymax = fmax(ymax, tip);
  }
  double half[3] = {0.5 * (hi - lo) + PLATE_MARGIN, ymax + PLATE_MARGIN, 0.5 * PLATE_THICKNESS};
  double pos[3] = {0.5 * (lo + hi), 0, -0.5 * PLATE_THICKNESS};
  tf_sdf_node plate = tf_sdf_box(half);
  if ((s->plate_geom = add_static_sdf(b, "plate", &plate, half, pos, c->mu)) < 0) return -1;
  double top = SHOULDER_HEIGHT + c->face + TF_GEARS_DROP_GAP + SHAFT_ABOVE;
  s->shaft_top = top;
  double radius = 0.5 * c->bore - c->clearance;
  for (int i = 0; i < c->ngear; i++) {
    char name[32];
    snprintf(name, sizeof(name), "shaft%d", i);
    double size[3] = {radius, radius, 0.5 * (top + PLATE_THICKNESS)};
    // a round top: the same extent, its last radius a hemisphere
    tf_sdf_node shaft = c->shaft_round_top ? tf_sdf_capsule(radius, size[2] - radius)
                                           : tf_sdf_cylinder(radius, size[2]);
    double at[3] = {s->center[i][0], s->center[i][1], 0.5 * (top - PLATE_THICKNESS)};
    if ((s->shaft_geom[i] = add_static_sdf(b, name, &shaft, size, at, c->mu)) < 0) return -1;
    // the shoulder the gear rests on: a ring of contact around the bore, as on a real
    // gearbox shaft, rather than the whole face on the plate (thousands of candidates a step)
    snprintf(name, sizeof(name), "shoulder%d", i);
    double rs = 0.5 * c->bore + SHOULDER_WIDTH;
    double ssize[3] = {rs, rs, 0.5 * (SHOULDER_HEIGHT + PLATE_THICKNESS)};
    tf_sdf_node shoulder = tf_sdf_cylinder(rs, ssize[2]);
    double sat[3] = {s->center[i][0], s->center[i][1], 0.5 * (SHOULDER_HEIGHT - PLATE_THICKNESS)};
    if ((s->shoulder_geom[i] = add_static_sdf(b, name, &shoulder, ssize, sat, c->mu)) < 0)
      return -1;
  }
  return 0;
}

int tf_gears_scene_add(tf_builder* b, tf_gears_scene* s, const tf_gears_config* c, char* err,
                       size_t errlen) {
  s->actuator = -1;
  int drop = c->impact_speed > 0;
  s->ngear = drop ? 1 : c->ngear;
  if (!(0.5 * c->bore - c->clearance > 0.5e-3)) {
    snprintf(err, errlen,
             "task 'gears': clearance_um %g leaves no shaft in a %g mm bore (bore_mm / 2 - "
             "clearance must exceed 0.5 mm)",
             c->clearance * 1e6, c->bore * 1e3);
    return -1;
  }
  // placement along +x, each gear at its driver's mesh angle
  double theta = 0;
  for (int i = 0; i < c->ngear; i++) {
    if (i > 0) {
      s->center[i][0] =
          s->center[i - 1][0] + tf_gear_center_distance(c->module, c->teeth[i - 1], c->teeth[i]);
      theta = tf_gear_mesh_angle(c->teeth[i - 1], c->teeth[i], theta);
    }
    s->center[i][2] = SHOULDER_HEIGHT + 0.5 * c->face;
    s->mesh_angle[i] = theta;
  }
  s->start_height = s->center[0][2] + (drop ? TF_GEARS_DROP_GAP : 0);

  tf_part_geometry parts[TF_GEARS_MAX];
  memset(parts, 0, sizeof(parts));
  int status = -1;
  if (add_fixture(b, s, c)) goto oom;

  double sample_chord = fmin(c->chord / 16, 0.5e-6);
  int spin_joint = -1;
  for (int i = 0; i < s->ngear; i++) {
    if (build_gear(&parts[i], c, c->teeth[i], c->chord, err, errlen)) goto done;
    tf_part_geometry fine;
    if (build_gear(&fine, c, c->teeth[i], sample_chord, err, errlen)) goto done;
    // the overlap probe's samples: the finer mesh's vertices (16x finer chord: 4x the
    // collider's density along every curved piece), its chord error the probe's floor
    s->samples[i] = fine.vert;
    s->nsample[i] = fine.nvert;
    s->sample_floor = fmax(s->sample_floor, fine.chord_error);
    fine.vert = NULL;
    tf_part_geometry_free(&fine);

    double mass, com[3], inertia[6];
    if (tf_gears_mesh_mass(parts[i].vert, parts[i].nvert, parts[i].face, parts[i].nface,
                           TF_GEARS_DENSITY, &mass, com, inertia)) {
      snprintf(err, errlen, "task 'gears': gear %d's mesh encloses no volume", i);
      goto done;
    }
    char name[32];
    snprintf(name, sizeof(name), "gear%d", i);
    tf_body_def body = tf_body_def_default();
    body.name = name;
    body.parent = 0;
    body.mass = mass;
    memcpy(body.com, com, sizeof(com));
    memcpy(body.inertia, inertia, sizeof(inertia));
    int loose = !drop && c->loose[i];
    int ideal = !drop && c->mount == TF_GEARS_HINGE && !loose;
    if (loose) {
      memcpy(body.pos, c->loose_pos[i], sizeof(body.pos));
      memcpy(body.quat, c->loose_quat[i], sizeof(body.quat));
    } else {
      body.pos[0] = s->center[i][0] + (ideal ? 0 : c->offset[i][0]);
      body.pos[1] = s->center[i][1] + (ideal ? 0 : c->offset[i][1]);
      body.pos[2] = i == 0 ? s->start_height : s->center[i][2];
      gear_quat(body.quat, s->mesh_angle[i] + c->turn[i], ideal ? 0 : c->tilt[i],
                c->tilt_azimuth[i]);
    }
    int id = tf_builder_add_body(b, &body);
    if (id < 0) goto oom;
    s->gear_body[i] = id;
    int spin;
    if (add_gear_joints(b, c, i, id, &spin)) goto oom;
    if (i == 0) spin_joint = spin;
    if (add_gear_geoms(b, c, i, id, &parts[i], &s->gear_geom[i], &s->hub_geom[i])) goto oom;
    // an ideal hinge holds the gear where it would sit: no contact with plate and shaft
    if (ideal && tf_builder_exclude_pair(b, id, 0) < 0) goto oom;
  }
  if (spin_joint >= 0) {
    tf_actuator_def a = tf_actuator_def_default();
    a.name = "input_servo";
    a.type = TF_ACT_VELOCITY;
    a.joint = spin_joint;
    a.gear = 1;
    a.kv = c->servo_kv;
    a.forcerange[0] = -c->servo_torque;
    a.forcerange[1] = c->servo_torque;
    if ((s->actuator = tf_builder_add_actuator(b, &a)) < 0) goto oom;
  }
  status = 0;
  goto done;
oom:
  snprintf(err, errlen, "task 'gears': out of memory building the model");
done:
  for (int i = 0; i < TF_GEARS_MAX; i++) tf_part_geometry_free(&parts[i]);
  return status;
}

int tf_gears_scene_build(tf_gears_scene* s, const tf_gears_config* c, const tf_physics* physics,
                         char* err, size_t errlen) {
  memset(s, 0, sizeof(*s));
  s->actuator = -1;
  tf_builder* b = tf_builder_create();
  if (!b) {
    snprintf(err, errlen, "task 'gears': out of memory");
    return -1;
  }
  int ngear = c->impact_speed > 0 ? 1 : c->ngear;
  tf_option opt = tf_physics_option(physics);
  opt.max_pair_contacts = PAIR_CONTACTS;
  // every pair that can touch (teeth, gear-shaft, gear-shoulder, gear-plate) may fill its cap
  // twice (a touching manifold plus the one a time of impact adds); a full buffer drops
  // contacts (counted in contacts.overflow), which let a landing gear sink into its shoulder
  opt.nconmax = 2 * opt.max_pair_contacts * (4 * ngear - 1);
  tf_builder_set_option(b, &opt);
  int status = tf_gears_scene_add(b, s, c, err, errlen);
  if (status == 0) {
    s->model = tf_builder_compile(b, err, errlen);
    if (!s->model) status = -1;
  }
  tf_builder_destroy(b);
  if (status) tf_gears_scene_free(s);
  return status;
}

void tf_gears_scene_reset(const tf_gears_scene* s, const tf_gears_config* c, tf_data* d) {
  const tf_model* m = s->model;
  tf_data_reset(m, d);
  if (c->impact_speed > 0) {
    // the free joint's linear dofs are world axes: down the shaft
    int j = m->body_jntadr[s->gear_body[0]];
    d->qvel[m->jnt_dofadr[j] + 2] = -c->impact_speed;
  }
}

void tf_gears_scene_probe(const tf_gears_scene* s, const tf_gears_config* c, tf_probe_spec* spec) {
  if (c->impact_speed > 0) {
    spec->tunnel_body = s->gear_body[0];
    spec->axis[0] = 0, spec->axis[1] = 0, spec->axis[2] = -1;
    memcpy(spec->seat, s->center[0], sizeof(spec->seat));
  } else {
    spec->ngear = s->ngear;
    for (int i = 0; i < s->ngear; i++) {
      spec->gear_body[i] = s->gear_body[i];
      spec->gear_axis[i][0] = 0, spec->gear_axis[i][1] = 0, spec->gear_axis[i][2] = 1;
      spec->gear_teeth[i] = c->teeth[i];
      spec->gear_sign[i] = i % 2 ? -1 : 1;
    }
  }
  // overlap: the teeth pairs first (the question of a gear train), then each gear against its
  // shoulder (its seat), its shaft, then the plate, where it touches them (not on ideal
  // hinges), while the probe has room
  // each pair by name (overlap.<name>_peak_m): gears.c reads the bores' and the teeth's
  static const char* const teeth_name[TF_GEARS_MAX - 1] = {"teeth_01", "teeth_12", "teeth_23"};
  static const char* const fixture_name[3][TF_GEARS_MAX] = {
      {"shoulder_0", "shoulder_1", "shoulder_2", "shoulder_3"},
      {"shaft_0", "shaft_1", "shaft_2", "shaft_3"},
      {"plate_0", "plate_1", "plate_2", "plate_3"}};
  int n = 0;
  for (int i = 0; i + 1 < s->ngear && n < TF_PROBE_MAX_OVERLAP; i++, n++) {
    spec->overlap_name[n] = teeth_name[i];
    for (int side = 0; side < 2; side++) {
      tf_probe_surface* p = &spec->overlap[n][side];
      p->geom = s->gear_geom[i + side];
      p->points = s->samples[i + side];
      p->npoint = s->nsample[i + side];
      p->floor = s->sample_floor;
    }
  }
  int all_on_fixture = c->impact_speed > 0 || c->mount == TF_GEARS_SHAFT;
  for (int k = 0; k < 3 * s->ngear && n < TF_PROBE_MAX_OVERLAP; k++) {
    int i = k % s->ngear, what = k / s->ngear;
    // a loose gear (robot mode) ends on its shaft whatever the mount
    if (!all_on_fixture && !c->loose[i]) continue;
    spec->overlap_name[n] = fixture_name[what][i];
    tf_probe_surface* p = &spec->overlap[n][0];
    p->geom = s->hub_geom[i];
    p->points = s->samples[i];
    p->npoint = s->nsample[i];
    p->floor = s->sample_floor;
    tf_probe_surface* f = &spec->overlap[n][1];
    f->geom = what == 0 ? s->shoulder_geom[i] : what == 1 ? s->shaft_geom[i] : s->plate_geom;
    f->points = NULL;
    f->npoint = 0;
    f->floor = 0;
    n++;
  }
  spec->noverlap = n;
}

void tf_gears_scene_free(tf_gears_scene* s) {
  for (int i = 0; i < TF_GEARS_MAX; i++) {
    free(s->samples[i]);
    s->samples[i] = NULL;
    s->nsample[i] = 0;
  }
  tf_model_destroy(s->model);
  s->model = NULL;
}

double tf_gears_tilt_allowed(const tf_gears_config* c) {
  // a bore of radius R and length w (the face) tilted by t on a shaft of radius r = R - c
  // touches it at both ends, on opposite sides, when (w / 2) sin t + r cos t = R
  double big = 0.5 * c->bore, r = big - c->clearance, half = 0.5 * c->face;
  return asin(big / hypot(half, r)) - atan2(r, half);
}
