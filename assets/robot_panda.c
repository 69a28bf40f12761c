// Builds the Panda into a tf_builder: one body per DH frame, hinge joints about each frame's
// z with the published limits, torque motors clamped to the published torque limits, capsules
// that approximate each link's shape, and the Franka Hand with two prismatic fingers whose
// flat pads are boxes. The capsules are not the robot's meshes: a link is one or two capsules
// around its joint housings and its tube, placed from the DH geometry and sized by eye (each
// link's centre of mass lies inside them); they double as the shapes a renderer draws.
//
// Body i's frame is DH frame i. Craig's link transform RotX(alpha) TransX(a) RotZ(theta)
// TransZ(d) splits into a fixed part, body pos = (a, -sin(alpha) d, cos(alpha) d) and body
// quat = RotX(alpha), followed by the hinge's rotation about z (which commutes with TransZ(d)).
// The engine's pose of body i is therefore exactly the DH frame i.
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_message.h"

#include "robot_panda.h"

#define NAME_LEN 96
#define MAX_LINK_CAPSULES 2
#define NCHAIN 10  // link 0..7, hand, fingers: positions along the chain for self-collision

// a capsule between two points of a link's frame
typedef struct link_capsule {
  double a[3], b[3];
  double radius;
} link_capsule;

// per body (links 0..7, hand): up to two capsules; radius 0 ends the list
static const link_capsule link_shapes[TF_PANDA_NJOINT + 2][MAX_LINK_CAPSULES] = {
    // link 0: the base column up to joint 1's housing
    {{{0, 0, 0.06}, {0, 0, 0.16}, 0.075}, {{-0.12, 0, 0.05}, {0, 0, 0.05}, 0.055}},
    // link 1: column from the base to the shoulder (joint 2 axis at the origin)
    {{{0, 0, -0.19}, {0, 0, 0}, 0.06}},
    // link 2: shoulder housing along joint 2's axis (z) and the start of the upper arm (-y)
    {{{0, 0, -0.06}, {0, 0, 0.06}, 0.06}, {{0, 0, 0}, {0, -0.15, 0}, 0.06}},
    // link 3: upper arm (down to -z) and the elbow housing along joint 4's axis (y here)
    {{{0, 0, -0.16}, {0, 0, -0.02}, 0.06}, {{0.0825, 0.04, 0}, {0.0825, -0.04, 0}, 0.055}},
    // link 4: elbow housing along joint 4 (z) and the bend toward the forearm
    {{{0, 0, -0.04}, {0, 0, 0.04}, 0.055}, {{0, 0, 0}, {-0.0825, 0.12, 0}, 0.055}},
    // link 5: forearm below the wrist (joint 5 axis is the forearm's, -z from the origin)
    {{{0, 0, -0.27}, {0, 0, -0.02}, 0.055}},
    // link 6: wrist housing along joint 6 (z) and the offset to joint 7 (+x)
    {{{0, 0, -0.05}, {0, 0, 0.05}, 0.05}, {{0, 0, 0}, {0.088, 0, 0}, 0.045}},
    // link 7: joint 7 housing down to the flange (+z)
    {{{0, 0, -0.03}, {0, 0, 0.07}, 0.045}},
    // hand: the gripper body across the fingers' travel (y)
    {{{0, -0.08, 0.035}, {0, 0.08, 0.035}, 0.03}},
};

// finger pad: a box in the finger frame whose inner face lies on the finger's y = 0 plane, so
// that the gap between the pads equals the sum of the two openings
static const double pad_half[3] = {0.009, 0.005, 0.0175};
static const double pad_centre_z = 0.040;

tf_panda_def tf_panda_def_default(void) {
  const tf_panda_params* p = tf_panda_params_get();
  tf_panda_def def;
  memset(&def, 0, sizeof(def));
  def.prefix = "panda_";
  def.base_quat[0] = 1;
  // Franka's "ready" pose: elbow up, flange pointing down
  static const double ready[TF_PANDA_NJOINT] = {
      0, -0.78539816339744831, 0, -2.3561944901923448, 0, 1.5707963267948966, 0.78539816339744831};
  for (int i = 0; i < TF_PANDA_NJOINT; i++) {
    def.qpos0[i] = ready[i];
    def.armature[i] = 0.1;  // MuJoCo Menagerie's value: reflected rotor inertia of the drives
  }
  def.gripper = 1;
  def.finger_opening = p->finger_travel;
  def.finger_force = p->finger_force;
  def.finger_kp = 2000;  // saturates at 70 N 35 mm short of its target
  def.finger_kv = 100;   // time constant kv / kp = 0.05 s
  def.finger_friction = 1.0;
  return def;
}

static void make_name(char out[NAME_LEN], const char* prefix, const char* fmt, ...) {
  size_t n = (size_t)snprintf(out, NAME_LEN, "%s", prefix);
  if (n >= NAME_LEN) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(out + n, NAME_LEN - n, fmt, ap);
  va_end(ap);
}

// unit quaternion rotating +z onto the unit vector u
static void quat_z_to(double q[4], const double u[3]) {
  double w = 1 + u[2];
  if (w < 1e-12) {  // u = -z: any half turn about a horizontal axis
    q[0] = 0, q[1] = 1, q[2] = 0, q[3] = 0;
    return;
  }
  // (1 + z.u, z x u), normalised: half the angle between z and u
  double v[4] = {w, -u[1], u[0], 0};
  double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  for (int k = 0; k < 4; k++) q[k] = v[k] / n;
}

static int valid_gripper_def(const tf_panda_def* def, char* err, size_t errlen);

static int valid_def(const tf_panda_def* def, char* err, size_t errlen) {
  const tf_panda_params* p = tf_panda_params_get();
  if (!def->prefix) return tf_fail(err, errlen, "panda: prefix is NULL (use \"\" for none)");
  if (strlen(def->prefix) > NAME_LEN - 24) {
    return tf_fail(err, errlen, "panda: prefix '%s' is too long", def->prefix);
  }
  double qn = 0;
  for (int k = 0; k < 4; k++) qn += def->base_quat[k] * def->base_quat[k];
  if (!(qn > 1e-12) || !isfinite(qn)) return tf_fail(err, errlen, "panda: base_quat is zero");
  for (int k = 0; k < 3; k++) {
    if (!isfinite(def->base_pos[k])) return tf_fail(err, errlen, "panda: base_pos is not finite");
  }
  for (int i = 0; i < TF_PANDA_NJOINT; i++) {
    int limited = !(i == TF_PANDA_NJOINT - 1 && def->continuous_joint7);
    if (!isfinite(def->qpos0[i]) ||
        (limited && (def->qpos0[i] < p->q_min[i] || def->qpos0[i] > p->q_max[i]))) {
      return tf_fail(err, errlen, "panda: qpos0[%d] = %g rad is outside joint %d's range [%g, %g]",
                     i, def->qpos0[i], i + 1, p->q_min[i], p->q_max[i]);
    }
    if (!(def->armature[i] >= 0) || !isfinite(def->armature[i])) {
      return tf_fail(err, errlen, "panda: armature[%d] must be >= 0 kg m^2 (got %g)", i,
                     def->armature[i]);
    }
    if (!(def->damping[i] >= 0) || !isfinite(def->damping[i])) {
      return tf_fail(err, errlen, "panda: damping[%d] must be >= 0 N m s/rad (got %g)", i,
                     def->damping[i]);
    }
  }
  if (!(def->margin >= 0) || !isfinite(def->margin)) {
    return tf_fail(err, errlen, "panda: margin must be >= 0 m (got %g)", def->margin);
  }
  if (def->gripper) return valid_gripper_def(def, err, errlen);
  return 0;
}

// the gripper's settings (tf_panda_add and tf_panda_add_gripper)
static int valid_gripper_def(const tf_panda_def* def, char* err, size_t errlen) {
  const tf_panda_params* p = tf_panda_params_get();
  if (!(def->finger_opening >= 0 && def->finger_opening <= p->finger_travel)) {
    return tf_fail(err, errlen, "panda: finger_opening must be in [0, %g] m (got %g)",
                   p->finger_travel, def->finger_opening);
  }
  if (!(def->finger_force > 0) || !isfinite(def->finger_force)) {
    return tf_fail(err, errlen, "panda: finger_force must be > 0 N (got %g)", def->finger_force);
  }
  if (!(def->finger_kp > 0) || !isfinite(def->finger_kp) || !(def->finger_kv >= 0) ||
      !isfinite(def->finger_kv)) {
    return tf_fail(err, errlen, "panda: finger_kp must be > 0 and finger_kv >= 0 (got %g, %g)",
                   def->finger_kp, def->finger_kv);
  }
  if (!(def->finger_friction >= 0) || !isfinite(def->finger_friction)) {
    return tf_fail(err, errlen, "panda: finger_friction must be >= 0 (got %g)",
                   def->finger_friction);
  }
  return 0;
}

// the arm's geom defaults: collision bits and margin
tf_geom_def tf_panda_arm_geom(const tf_panda_def* def, int body) {
  tf_geom_def g = tf_geom_def_default();
  g.body = body;
  g.contype = TF_PANDA_CONTYPE_ARM;
  g.conaffinity = TF_PANDA_CONTYPE_ENV | (def->self_collision ? TF_PANDA_CONTYPE_ARM : 0u);
  g.margin = def->margin;
  return g;
}

// counts a new geom into the arm's contiguous range; -1 if the builder failed
static int record_geom(tf_panda* out, int id) {
  if (id < 0) return -1;
  if (out->geom_count == 0) out->geom_first = id;
  out->geom_count = id - out->geom_first + 1;
  return 0;
}

// adds the capsules of link_shapes[shape] to body; returns 0 or -1
static int add_capsules(tf_builder* b, const tf_panda_def* def, int body, int shape,
                        const char* body_name, tf_panda* out) {
  for (int c = 0; c < MAX_LINK_CAPSULES && link_shapes[shape][c].radius > 0; c++) {
    const link_capsule* cap = &link_shapes[shape][c];
    char name[NAME_LEN + 16];
    snprintf(name, sizeof(name), "%s_capsule%d", body_name, c);
    tf_geom_def g = tf_panda_arm_geom(def, body);
    g.name = name;
    g.type = TF_GEOM_CAPSULE;
    double axis[3], len = 0;
    for (int k = 0; k < 3; k++) {
      axis[k] = cap->b[k] - cap->a[k];
      g.pos[k] = 0.5 * (cap->a[k] + cap->b[k]);
      len += axis[k] * axis[k];
    }
    len = sqrt(len);
    for (int k = 0; k < 3; k++) axis[k] /= len;
    quat_z_to(g.quat, axis);
    g.size[0] = cap->radius;
    g.size[1] = 0.5 * len;
    if (record_geom(out, tf_builder_add_geom(b, &g))) return -1;
  }
  return 0;
}

static void set_inertial(tf_body_def* body, double mass, const double com[3],
                         const double inertia[6]) {
  body->mass = mass;
  memcpy(body->com, com, sizeof(body->com));
  memcpy(body->inertia, inertia, sizeof(body->inertia));
}

// the hand on a flange (body parent, the flange's frame (pos, quat) in it; NULL quat: the
// body's axes) and its two fingers; returns 0 or -1
static int add_gripper(tf_builder* b, const tf_panda_def* def, int parent, const double pos[3],
                       const double quat[4], tf_panda* out) {
  const tf_panda_params* p = tf_panda_params_get();
  char name[NAME_LEN];
  make_name(name, def->prefix, "hand");
  tf_body_def hand = tf_body_def_default();
  hand.name = name;
  hand.parent = parent;
  memcpy(hand.pos, pos, sizeof(hand.pos));
  hand.quat[0] = cos(0.5 * p->hand_yaw);
  hand.quat[3] = sin(0.5 * p->hand_yaw);
  if (quat) {
    // the flange's axes, then the mounting yaw about its z
    const double* f = quat;
    double c = hand.quat[0], s = hand.quat[3];
    hand.quat[0] = f[0] * c - f[3] * s;
    hand.quat[1] = f[1] * c + f[2] * s;
    hand.quat[2] = f[2] * c - f[1] * s;
    hand.quat[3] = f[3] * c + f[0] * s;
  }
  set_inertial(&hand, p->hand_mass, p->hand_com, p->hand_inertia);
  out->hand = tf_builder_add_body(b, &hand);
  if (out->hand < 0 || add_capsules(b, def, out->hand, TF_PANDA_NJOINT + 1, name, out)) {
    return -1;
  }

  static const char* const side[2] = {"left", "right"};
  for (int f = 0; f < 2; f++) {
    double sign = f == 0 ? 1.0 : -1.0;
    char body_name[NAME_LEN], joint_name[NAME_LEN], act_name[NAME_LEN], geom_name[NAME_LEN];
    make_name(body_name, def->prefix, "finger_%s", side[f]);
    make_name(joint_name, def->prefix, "finger_%s_slide", side[f]);
    make_name(act_name, def->prefix, "finger_%s_servo", side[f]);
    make_name(geom_name, def->prefix, "finger_%s_pad", side[f]);
    tf_body_def finger = tf_body_def_default();
    finger.name = body_name;
    finger.parent = out->hand;
    finger.pos[2] = p->finger_base;
    const double com[3] = {0, sign * pad_half[1], pad_centre_z};
    set_inertial(&finger, p->finger_mass, com, p->finger_inertia);
    out->finger[f] = tf_builder_add_body(b, &finger);
    if (out->finger[f] < 0) return -1;

    tf_joint_def slide = tf_joint_def_default();
    slide.name = joint_name;
    slide.body = out->finger[f];
    slide.type = TF_JOINT_SLIDE;
    slide.axis[0] = 0, slide.axis[1] = sign, slide.axis[2] = 0;
    slide.limited = 1;
    slide.range[0] = 0;
    slide.range[1] = p->finger_travel;
    slide.qpos0[0] = def->finger_opening;
    out->finger_joint[f] = tf_builder_add_joint(b, &slide);
    if (out->finger_joint[f] < 0) return -1;

    tf_geom_def pad = tf_panda_arm_geom(def, out->finger[f]);
    pad.name = geom_name;
    pad.type = TF_GEOM_BOX;
    memcpy(pad.size, pad_half, sizeof(pad_half));
    pad.pos[1] = sign * pad_half[1];
    pad.pos[2] = pad_centre_z;
    pad.friction[0] = def->finger_friction;
    pad.condim = 4;  // torsional friction: a pinched part resists turning about the grasp axis
    pad.friction[1] = 0.01 * def->finger_friction;
    if (record_geom(out, tf_builder_add_geom(b, &pad))) return -1;

    tf_actuator_def servo = tf_actuator_def_default();
    servo.name = act_name;
    servo.type = TF_ACT_POSITION;
    servo.joint = out->finger_joint[f];
    servo.kp = def->finger_kp;
    servo.kv = def->finger_kv;
    servo.forcerange[0] = -def->finger_force;
    servo.forcerange[1] = def->finger_force;
    out->finger_actuator[f] = tf_builder_add_actuator(b, &servo);
    if (out->finger_actuator[f] < 0) return -1;
  }
  out->tcp_body = out->hand;
  out->tcp_pos[0] = out->tcp_pos[1] = 0;
  out->tcp_pos[2] = p->tcp_offset;
  return 0;
}

// chain position of a body for self-collision exclusion (fingers share the last slot)
static int chain_slot(const tf_panda* out, int body) {
  if (body == out->base) return 0;
  for (int i = 0; i < TF_PANDA_NJOINT; i++) {
    if (body == out->link[i]) return i + 1;
  }
  return body == out->hand ? TF_PANDA_NJOINT + 1 : NCHAIN - 1;
}

// bodies within two links of each other along the chain overlap by construction: their
// capsules meet at the joint housings
int tf_panda_exclude_neighbours(tf_builder* b, const tf_panda* out) {
  int bodies[NCHAIN + 1], n = 0;
  bodies[n++] = out->base;
  for (int i = 0; i < TF_PANDA_NJOINT; i++) bodies[n++] = out->link[i];
  if (out->hand >= 0) {
    bodies[n++] = out->hand;
    bodies[n++] = out->finger[0];
    bodies[n++] = out->finger[1];
  }
  for (int i = 0; i < n; i++) {
    for (int j = i + 1; j < n; j++) {
      int gap = abs(chain_slot(out, bodies[i]) - chain_slot(out, bodies[j]));
      if (gap <= 2 && tf_builder_exclude_pair(b, bodies[i], bodies[j]) < 0) return -1;
    }
  }
  return 0;
}

int tf_panda_add(tf_builder* b, const tf_panda_def* def, tf_panda* out, char* err, size_t errlen) {
  const tf_panda_params* p = tf_panda_params_get();
  memset(out, -1, sizeof(*out));
  out->geom_count = 0;
  if (valid_def(def, err, errlen)) return -1;
  char name[NAME_LEN];
  make_name(name, def->prefix, "link0");
  tf_body_def base = tf_body_def_default();
  base.name = name;
  base.parent = 0;
  memcpy(base.pos, def->base_pos, sizeof(base.pos));
  memcpy(base.quat, def->base_quat, sizeof(base.quat));
  set_inertial(&base, p->link_mass[0], p->link_com[0], p->link_inertia[0]);
  out->base = tf_builder_add_body(b, &base);
  if (out->base < 0) return tf_fail(err, errlen, "panda: out of memory");

  int parent = out->base;
  for (int i = 0; i < TF_PANDA_NJOINT && parent >= 0; i++) {
    char body_name[NAME_LEN], joint_name[NAME_LEN], act_name[NAME_LEN];
    make_name(body_name, def->prefix, "link%d", i + 1);
    make_name(joint_name, def->prefix, "joint%d", i + 1);
    make_name(act_name, def->prefix, "joint%d_motor", i + 1);
    double ca = cos(p->dh_alpha[i]), sa = sin(p->dh_alpha[i]);
    tf_body_def link = tf_body_def_default();
    link.name = body_name;
    link.parent = parent;
    link.pos[0] = p->dh_a[i];
    link.pos[1] = -sa * p->dh_d[i];
    link.pos[2] = ca * p->dh_d[i];
    link.quat[0] = cos(0.5 * p->dh_alpha[i]);
    link.quat[1] = sin(0.5 * p->dh_alpha[i]);
    link.quat[2] = link.quat[3] = 0;
    set_inertial(&link, p->link_mass[i + 1], p->link_com[i + 1], p->link_inertia[i + 1]);
    out->link[i] = parent = tf_builder_add_body(b, &link);
    if (parent < 0) break;

    tf_joint_def hinge = tf_joint_def_default();
    hinge.name = joint_name;
    hinge.body = out->link[i];
    hinge.type = TF_JOINT_HINGE;
    hinge.axis[0] = hinge.axis[1] = 0, hinge.axis[2] = 1;
    hinge.armature = def->armature[i];
    hinge.damping = def->damping[i];
    hinge.limited = !(i == TF_PANDA_NJOINT - 1 && def->continuous_joint7);
    hinge.range[0] = p->q_min[i];
    hinge.range[1] = p->q_max[i];
    hinge.qpos0[0] = def->qpos0[i];
    out->joint[i] = tf_builder_add_joint(b, &hinge);

    tf_actuator_def motor = tf_actuator_def_default();
    motor.name = act_name;
    motor.type = TF_ACT_MOTOR;
    motor.joint = out->joint[i];
    motor.gear = 1;
    motor.forcerange[0] = -p->tau_max[i];
    motor.forcerange[1] = p->tau_max[i];
    out->actuator[i] = tf_builder_add_actuator(b, &motor);
    if (out->joint[i] < 0 || out->actuator[i] < 0)
      return tf_fail(err, errlen, "panda: out of memory");
  }
  if (parent < 0) return tf_fail(err, errlen, "panda: out of memory");

  // the link geoms after the links, then the gripper: the arm's geoms form one id range
  for (int i = 0; i <= TF_PANDA_NJOINT; i++) {
    int body = i == 0 ? out->base : out->link[i - 1];
    make_name(name, def->prefix, "link%d", i);
    if (add_capsules(b, def, body, i, name, out))
      return tf_fail(err, errlen, "panda: out of memory");
  }
  const double flange[3] = {0, 0, p->flange_d};
  if (def->gripper && add_gripper(b, def, out->link[TF_PANDA_NJOINT - 1], flange, NULL, out)) {
    return tf_fail(err, errlen, "panda: out of memory");
  }
  if (!def->gripper) {
    out->tcp_body = out->link[TF_PANDA_NJOINT - 1];
    out->tcp_pos[0] = out->tcp_pos[1] = 0;
    out->tcp_pos[2] = p->flange_d;
  }
  out->tcp_quat[0] = 1;
  out->tcp_quat[1] = out->tcp_quat[2] = out->tcp_quat[3] = 0;
  if (def->self_collision && tf_panda_exclude_neighbours(b, out)) {
    return tf_fail(err, errlen, "panda: out of memory");
  }
  return 0;
}

int tf_panda_add_gripper(tf_builder* b, const tf_panda_def* def, int parent, const double pos[3],
                         const double quat[4], tf_panda* out, char* err, size_t errlen) {
  if (valid_gripper_def(def, err, errlen)) return -1;
  if (add_gripper(b, def, parent, pos, quat, out))
    return tf_fail(err, errlen, "panda: out of memory");
  return 0;
}

void tf_panda_set_gripper(const tf_panda* p, tf_data* d, double opening) {
  for (int f = 0; f < 2; f++) {
    if (p->finger_actuator[f] >= 0) d->ctrl[p->finger_actuator[f]] = 0.5 * opening;
  }
}
