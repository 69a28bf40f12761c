// Building a loaded URDF arm into a tf_builder as tf_panda ids (urdf.h), its forward
// kinematics without the engine, and the up-front check a run makes of a file.
//
// Every link belongs to one engine body: the root to the base, a moving joint's child to its
// own body, a fixed joint's child to its parent's body at the joint's fixed offset. Frames
// compose as URDF's do; an identity offset is kept as exact copies (not a product with 1 and
// 0), so that a file written from the Panda's DH table builds the same numbers as
// tf_panda_add.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_message.h"
#include "sdf_bake.h"
#include "tf_math.h"
#include "urdf.h"

#define NAME_LEN 256
#define NBODY (TF_PANDA_NJOINT + 1)  // the base and one body per moving joint

typedef struct frame {
  double pos[3], quat[4];
} frame;

static int is_identity(const frame* f) {
  return f->pos[0] == 0 && f->pos[1] == 0 && f->pos[2] == 0 && f->quat[0] == 1 && f->quat[1] == 0 &&
         f->quat[2] == 0 && f->quat[3] == 0;
}

// out = a then b (b's pose given in a's frame)
static void compose(frame* out, const frame* a, const double pos[3], const double quat[4]) {
  if (is_identity(a)) {
    memcpy(out->pos, pos, sizeof(out->pos));
    memcpy(out->quat, quat, sizeof(out->quat));
    return;
  }
  double r[3];
  tf_quat_rotate(r, a->quat, pos);
  for (int k = 0; k < 3; k++) out->pos[k] = a->pos[k] + r[k];
  tf_quat_mul(out->quat, a->quat, quat);
  tf_quat_normalize(out->quat);
}

// where each link lives: its body slot (0 base, i + 1 the child of chain joint i) and its
// frame in that body
typedef struct link_place {
  int slot;
  frame at;
} link_place;

// places every link, parents before children (the tree was checked: this ends)
static int place_links(const tf_urdf* u, link_place* place) {
  for (int l = 0; l < u->nlink; l++) place[l].slot = -1;
  place[u->root].slot = 0;
  memset(&place[u->root].at, 0, sizeof(frame));
  place[u->root].at.quat[0] = 1;
  for (int i = 0; i < TF_PANDA_NJOINT; i++) {
    int c = u->joint[u->chain[i]].child;
    place[c].slot = i + 1;
    memset(&place[c].at, 0, sizeof(frame));
    place[c].at.quat[0] = 1;
  }
  for (int placed = 1; placed;) {
    placed = 0;
    for (int j = 0; j < u->njoint; j++) {
      const tf_urdf_joint* jt = &u->joint[j];
      if (jt->type != TF_URDF_FIXED || place[jt->child].slot >= 0 || place[jt->parent].slot < 0 ||
          tf_urdf_past_tcp(u, jt->child)) {
        continue;
      }
      place[jt->child].slot = place[jt->parent].slot;
      compose(&place[jt->child].at, &place[jt->parent].at, jt->pos, jt->quat);
      placed = 1;
    }
  }
  for (int l = 0; l < u->nlink; l++) {
    if (place[l].slot < 0 && !tf_urdf_past_tcp(u, l)) return -1;  // past the tcp: left out
  }
  return 0;
}

// R I R^T (ixx iyy izz ixy ixz iyz) for the rotation q
static void rotate_inertia(double out[6], const double in[6], const double q[4]) {
  if (q[0] == 1) {
    memcpy(out, in, 6 * sizeof(double));
    return;
  }
  double r[9], f[9] = {in[0], in[3], in[4], in[3], in[1], in[5], in[4], in[5], in[2]}, t[9], o[9];
  tf_quat_to_mat(r, q);
  tf_mat3_mul(t, r, f);
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      double s = 0;
      for (int k = 0; k < 3; k++) s += t[3 * i + k] * r[3 * j + k];
      o[3 * i + j] = s;
    }
  }
  out[0] = o[0], out[1] = o[4], out[2] = o[8], out[3] = o[1], out[4] = o[2], out[5] = o[5];
}

// a point of a link's frame in its body's
static void link_point(double out[3], const frame* at, const double p[3]) {
  frame f;
  compose(&f, at, p, at->quat);
  memcpy(out, f.pos, sizeof(f.pos));
}

// the body of slot s: its links' masses added about their joint centre of mass (one link: its
// own numbers, moved into the body's frame)
static void body_inertial(const tf_urdf* u, const link_place* place, int s, tf_body_def* body) {
  double mass = 0, mc[3] = {0, 0, 0};
  int count = 0;
  body->mass = 0;  // no link with mass: none (the builder's default would hide it)
  memset(body->com, 0, sizeof(body->com));
  memset(body->inertia, 0, sizeof(body->inertia));
  for (int l = 0; l < u->nlink; l++) {
    if (place[l].slot != s || !(u->link[l].mass > 0)) continue;
    double c[3];
    link_point(c, &place[l].at, u->link[l].com);
    mass += u->link[l].mass;
    for (int k = 0; k < 3; k++) mc[k] += u->link[l].mass * c[k];
    if (count++ == 0) {
      body->mass = u->link[l].mass;
      memcpy(body->com, c, sizeof(c));
      rotate_inertia(body->inertia, u->link[l].inertia, place[l].at.quat);
    }
  }
  if (count <= 1) return;
  body->mass = mass;
  for (int k = 0; k < 3; k++) body->com[k] = mc[k] / mass;
  double total[6] = {0, 0, 0, 0, 0, 0};
  for (int l = 0; l < u->nlink; l++) {
    if (place[l].slot != s || !(u->link[l].mass > 0)) continue;
    double c[3], in[6], d[3], m = u->link[l].mass;
    link_point(c, &place[l].at, u->link[l].com);
    rotate_inertia(in, u->link[l].inertia, place[l].at.quat);
    for (int k = 0; k < 3; k++) d[k] = c[k] - body->com[k];
    double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    // parallel axes: I + m (|d|^2 E - d d^T)
    total[0] += in[0] + m * (d2 - d[0] * d[0]);
    total[1] += in[1] + m * (d2 - d[1] * d[1]);
    total[2] += in[2] + m * (d2 - d[2] * d[2]);
    total[3] += in[3] - m * d[0] * d[1];
    total[4] += in[4] - m * d[0] * d[2];
    total[5] += in[5] - m * d[1] * d[2];
  }
  memcpy(body->inertia, total, sizeof(total));
}

static int valid_def(const tf_urdf* u, const tf_panda_def* def, char* err, size_t errlen) {
  if (!def->prefix) return tf_fail(err, errlen, "%s: prefix is NULL (use \"\" for none)", u->file);
  if (strlen(def->prefix) > 64) return tf_fail(err, errlen, "%s: prefix is too long", u->file);
  double qn = 0;
  for (int k = 0; k < 4; k++) qn += def->base_quat[k] * def->base_quat[k];
  if (!(qn > 1e-12) || !isfinite(qn)) return tf_fail(err, errlen, "%s: base_quat is zero", u->file);
  for (int k = 0; k < 3; k++) {
    if (!isfinite(def->base_pos[k]))
      return tf_fail(err, errlen, "%s: base_pos is not finite", u->file);
  }
  double lo[TF_PANDA_NJOINT], hi[TF_PANDA_NJOINT];
  tf_urdf_limits(u, lo, hi);
  for (int i = 0; i < TF_PANDA_NJOINT; i++) {
    const tf_urdf_joint* j = &u->joint[u->chain[i]];
    int limited = j->limited && !(i == TF_PANDA_NJOINT - 1 && def->continuous_joint7);
    if (!isfinite(def->qpos0[i]) || (limited && (def->qpos0[i] < lo[i] || def->qpos0[i] > hi[i]))) {
      return tf_fail(err, errlen,
                     "%s:%ld: <joint name='%.80s'>: the start position %g is outside [%g, %g]",
                     u->file, j->line, j->name, def->qpos0[i], lo[i], hi[i]);
    }
    if (!(def->armature[i] >= 0) || !isfinite(def->armature[i]) || !(def->damping[i] >= 0) ||
        !isfinite(def->damping[i])) {
      return tf_fail(err, errlen, "%s: armature[%d] and damping[%d] must be >= 0", u->file, i, i);
    }
  }
  if (!(def->margin >= 0) || !isfinite(def->margin)) {
    return tf_fail(err, errlen, "%s: margin must be >= 0 m (got %g)", u->file, def->margin);
  }
  return 0;
}

// the base and the chain's bodies, joints and motors, in chain order (as tf_panda_add)
static int add_bodies(tf_builder* b, const tf_urdf* u, const tf_panda_def* def,
                      const link_place* place, tf_panda* out, char* err, size_t errlen) {
  char name[NAME_LEN], jname[NAME_LEN], aname[NAME_LEN];
  for (int s = 0; s < NBODY; s++) {
    int link = s == 0 ? u->root : u->joint[u->chain[s - 1]].child;
    const tf_urdf_link* ln = &u->link[link];
    tf_body_def body = tf_body_def_default();
    snprintf(name, sizeof(name), "%s%s", def->prefix, ln->name);
    body.name = name;
    body_inertial(u, place, s, &body);
    if (!(body.mass > 0)) {
      return tf_fail(err, errlen,
                     "%s:%ld: <link name='%.80s'>: %s has no mass (no <inertial> on it or on the "
                     "links fixed to it)",
                     u->file, ln->line, ln->name, s == 0 ? "the base" : "a moving link");
    }
    if (s == 0) {
      body.parent = 0;
      memcpy(body.pos, def->base_pos, sizeof(body.pos));
      memcpy(body.quat, def->base_quat, sizeof(body.quat));
      out->base = tf_builder_add_body(b, &body);
      if (out->base < 0) return tf_fail(err, errlen, "%s: out of memory", u->file);
      continue;
    }
    int i = s - 1;
    const tf_urdf_joint* jt = &u->joint[u->chain[i]];
    frame at;
    compose(&at, &place[jt->parent].at, jt->pos, jt->quat);
    body.parent = i == 0 ? out->base : out->link[i - 1];
    // the parent link's body: the previous slot (the chain's fixed links merged into it)
    memcpy(body.pos, at.pos, sizeof(body.pos));
    memcpy(body.quat, at.quat, sizeof(body.quat));
    out->link[i] = tf_builder_add_body(b, &body);
    if (out->link[i] < 0) return tf_fail(err, errlen, "%s: out of memory", u->file);

    snprintf(jname, sizeof(jname), "%s%s", def->prefix, jt->name);
    tf_joint_def joint = tf_joint_def_default();
    joint.name = jname;
    joint.body = out->link[i];
    joint.type = jt->type == TF_URDF_PRISMATIC ? TF_JOINT_SLIDE : TF_JOINT_HINGE;
    memcpy(joint.axis, jt->axis, sizeof(joint.axis));
    joint.armature = def->armature[i];
    joint.damping = jt->damping + def->damping[i];
    joint.frictionloss = jt->friction;
    joint.limited = jt->limited && !(i == TF_PANDA_NJOINT - 1 && def->continuous_joint7);
    joint.range[0] = jt->lower;
    joint.range[1] = jt->upper;
    joint.qpos0[0] = def->qpos0[i];
    out->joint[i] = tf_builder_add_joint(b, &joint);

    snprintf(aname, sizeof(aname), "%s%s_motor", def->prefix, jt->name);
    tf_actuator_def motor = tf_actuator_def_default();
    motor.name = aname;
    motor.type = TF_ACT_MOTOR;
    motor.joint = out->joint[i];
    motor.gear = 1;
    if (jt->effort > 0) {
      motor.forcerange[0] = -jt->effort;
      motor.forcerange[1] = jt->effort;
    }
    out->actuator[i] = tf_builder_add_actuator(b, &motor);
    if (out->joint[i] < 0 || out->actuator[i] < 0) {
      return tf_fail(err, errlen, "%s: out of memory", u->file);
    }
  }
  return 0;
}

// one <collision> of a link onto body as an arm geom; 0 or -1
static int add_geom(tf_builder* b, const tf_urdf* u, const tf_panda_def* def, int body,
                    const link_place* place, int l, int k, tf_panda* out, char* err,
                    size_t errlen) {
  const tf_urdf_geom* ug = &u->link[l].geom[k];
  char name[NAME_LEN];
  snprintf(name, sizeof(name), "%s%s_collision%d", def->prefix, u->link[l].name, k);
  tf_geom_def g = tf_panda_arm_geom(def, body);
  g.name = name;
  frame at;
  compose(&at, &place[l].at, ug->pos, ug->quat);
  memcpy(g.pos, at.pos, sizeof(g.pos));
  memcpy(g.quat, at.quat, sizeof(g.quat));
  memcpy(g.size, ug->size, sizeof(g.size));
  static const tf_geom_type types[] = {TF_GEOM_BOX, TF_GEOM_CYLINDER, TF_GEOM_SPHERE, TF_GEOM_MESH};
  g.type = types[ug->shape];
  if (ug->shape == TF_URDF_MESH) {
    char msg[400];
    tf_sdf_bake_options bo = tf_sdf_bake_options_default();
    bo.threads = 1;
    tf_sdf_grid grid;
    if (tf_sdf_bake(&grid, NULL, ug->mesh.vert, ug->mesh.nvert, ug->mesh.face, ug->mesh.nface, &bo,
                    msg, sizeof(msg))) {
      return tf_fail(err, errlen, "%s:%ld: <link name='%.80s'> <mesh>: %s", u->file, ug->line,
                     u->link[l].name, msg);
    }
    g.mesh =
        tf_builder_add_mesh(b, name, ug->mesh.vert, ug->mesh.nvert, ug->mesh.face, ug->mesh.nface);
    tf_sdf_def sd;
    tf_sdf_grid_def(&sd, &grid, name, g.mesh);
    g.sdf = g.mesh < 0 ? -1 : tf_builder_add_sdf(b, &sd);
    tf_sdf_grid_free(&grid);
    if (g.sdf < 0) return tf_fail(err, errlen, "%s: out of memory", u->file);
  }
  int id = tf_builder_add_geom(b, &g);
  if (id < 0) return tf_fail(err, errlen, "%s: out of memory", u->file);
  if (out->geom_count == 0) out->geom_first = id;
  out->geom_count = id - out->geom_first + 1;
  return 0;
}

void tf_urdf_limits(const tf_urdf* u, double lower[TF_PANDA_NJOINT],
                    double upper[TF_PANDA_NJOINT]) {
  for (int i = 0; i < TF_PANDA_NJOINT; i++) {
    const tf_urdf_joint* j = &u->joint[u->chain[i]];
    lower[i] = j->limited ? j->lower : -INFINITY;
    upper[i] = j->limited ? j->upper : INFINITY;
  }
}

int tf_urdf_add(tf_builder* b, const tf_urdf* u, const tf_panda_def* def, tf_panda* out, char* err,
                size_t errlen) {
  memset(out, -1, sizeof(*out));
  out->geom_count = 0;
  if (valid_def(u, def, err, errlen)) return -1;
  link_place* place = calloc((size_t)u->nlink, sizeof(link_place));
  if (!place) return tf_fail(err, errlen, "%s: out of memory", u->file);
  int rc = place_links(u, place) ? tf_fail(err, errlen,
                                           "%s: a link hangs off the chain by a "
                                           "moving joint",
                                           u->file)
                                 : add_bodies(b, u, def, place, out, err, errlen);
  // the geoms after the bodies, body by body, then the gripper: one contiguous id range
  for (int s = 0; s < NBODY && rc == 0; s++) {
    int body = s == 0 ? out->base : out->link[s - 1];
    for (int l = 0; l < u->nlink && rc == 0; l++) {
      if (place[l].slot != s) continue;
      for (int k = 0; k < u->link[l].ngeom && rc == 0; k++) {
        rc = add_geom(b, u, def, body, place, l, k, out, err, errlen);
      }
    }
  }
  if (rc == 0) {
    const link_place* tcp = &place[u->tcp];
    int body = tcp->slot == 0 ? out->base : out->link[tcp->slot - 1];
    if (def->gripper) {
      rc = tf_panda_add_gripper(b, def, body, tcp->at.pos,
                                is_identity(&tcp->at) ? NULL : tcp->at.quat, out, err, errlen);
      out->tcp_quat[0] = 1;
      out->tcp_quat[1] = out->tcp_quat[2] = out->tcp_quat[3] = 0;
    } else {
      out->tcp_body = body;
      memcpy(out->tcp_pos, tcp->at.pos, sizeof(out->tcp_pos));
      memcpy(out->tcp_quat, tcp->at.quat, sizeof(out->tcp_quat));
    }
  }
  if (rc == 0 && def->self_collision && tf_panda_exclude_neighbours(b, out)) {
    rc = tf_fail(err, errlen, "%s: out of memory", u->file);
  }
  free(place);
  return rc;
}

void tf_urdf_fk(const tf_urdf* u, const double q[TF_PANDA_NJOINT], double pos[3], double quat[4]) {
  // the joints from the tcp up to the root, then walked down
  int path[1024], n = 0;
  for (int l = u->tcp; u->link[l].parent_joint >= 0 && n < 1024;) {
    path[n++] = u->link[l].parent_joint;
    l = u->joint[u->link[l].parent_joint].parent;
  }
  frame f;
  memset(&f, 0, sizeof(f));
  f.quat[0] = 1;
  for (int k = n - 1; k >= 0; k--) {
    const tf_urdf_joint* j = &u->joint[path[k]];
    frame g;
    compose(&g, &f, j->pos, j->quat);
    int i = -1;
    for (int c = 0; c < TF_PANDA_NJOINT; c++) {
      if (u->chain[c] == path[k]) i = c;
    }
    if (i >= 0 && j->type == TF_URDF_PRISMATIC) {
      double d[3] = {j->axis[0] * q[i], j->axis[1] * q[i], j->axis[2] * q[i]};
      const double one[4] = {1, 0, 0, 0};
      compose(&f, &g, d, one);
    } else if (i >= 0) {
      double r[4], zero[3] = {0, 0, 0};
      tf_quat_from_axis_angle(r, j->axis, q[i]);
      compose(&f, &g, zero, r);
    } else {
      f = g;
    }
  }
  memcpy(pos, f.pos, sizeof(f.pos));
  memcpy(quat, f.quat, sizeof(f.quat));
}

int tf_urdf_load_spec(const char* spec, tf_urdf** out, char* err, size_t errlen) {
  const char* hash = strrchr(spec, '#');
  if (!hash) return tf_urdf_load(spec, NULL, out, err, errlen);
  size_t n = (size_t)(hash - spec);
  char* path = malloc(n + 1);
  if (!path) return tf_fail(err, errlen, "%s: out of memory", spec);
  memcpy(path, spec, n);
  path[n] = 0;
  int rc = hash[1] ? tf_urdf_load(path, hash + 1, out, err, errlen)
                   : tf_fail(err, errlen, "%s: no link named after '#'", spec);
  free(path);
  return rc;
}

int tf_urdf_check(const char* path, char* err, size_t errlen) {
  tf_urdf* u = NULL;
  if (tf_urdf_load_spec(path, &u, err, errlen)) return -1;
  tf_panda_def def = tf_panda_def_default();
  double lo[TF_PANDA_NJOINT], hi[TF_PANDA_NJOINT];
  tf_urdf_limits(u, lo, hi);
  // the Panda's ready pose where the file allows it, else the nearest allowed
  for (int i = 0; i < TF_PANDA_NJOINT; i++) def.qpos0[i] = fmin(hi[i], fmax(lo[i], def.qpos0[i]));
  tf_builder* b = tf_builder_create();
  tf_panda ids;
  int rc = b ? tf_urdf_add(b, u, &def, &ids, err, errlen)
             : tf_fail(err, errlen, "%s: out of memory", path);
  if (rc == 0) {
    char msg[400];
    tf_model* m = tf_builder_compile(b, msg, sizeof(msg));
    if (!m) {
      for (char* p = msg; *p; p++) {
        if ((unsigned char)*p < 0x20) *p = ' ';
      }
      rc = tf_fail(err, errlen, "%s: %s", path, msg);
    }
    tf_model_destroy(m);
  }
  tf_builder_destroy(b);
  tf_urdf_free(u);
  return rc;
}
