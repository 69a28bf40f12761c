// The Franka Emika Panda: a 7-DOF arm with a parallel-jaw gripper, built into a tf_builder
// from the robot's published numbers, and an analytic forward kinematics of its DH table
// that does not touch the engine (the reference the engine's kinematics is tested against).
//
// Frames follow Franka's modified-DH (Craig) table: body `link<i>` carries DH frame i, its
// hinge turns about the frame's z axis through its origin, and the flange sits 0.107 m along
// link 7's z. The hand is mounted on the flange turned by -45 deg about z (as on the robot);
// its tool centre point (TCP) lies 0.1034 m further along z, between the finger pads.
#ifndef TF_ROBOT_PANDA_H
#define TF_ROBOT_PANDA_H

#include <stddef.h>

#include "tightfit.h"

#define TF_PANDA_NJOINT 7
#define TF_PANDA_NFRAME 9  // DH frames: base (0), links 1..7, flange (8)

// Collision bits of the arm's geoms. The arm's own geoms carry contype ARM and touch the
// ENV bit only (so links never collide with each other unless self_collision asks);
// everything else in a scene keeps the engine's default 1 and therefore touches the arm.
#define TF_PANDA_CONTYPE_ARM 2u
#define TF_PANDA_CONTYPE_ENV 1u

// the published numbers, one entry per joint / link (see robot_panda_params.c for sources)
typedef struct tf_panda_params {
  double dh_a[TF_PANDA_NJOINT];                    // m, Craig a_{i-1}
  double dh_d[TF_PANDA_NJOINT];                    // m
  double dh_alpha[TF_PANDA_NJOINT];                // rad, Craig alpha_{i-1}
  double flange_d;                                 // m: flange along link 7's z
  double q_min[TF_PANDA_NJOINT];                   // rad
  double q_max[TF_PANDA_NJOINT];                   // rad
  double qd_max[TF_PANDA_NJOINT];                  // rad / s
  double tau_max[TF_PANDA_NJOINT];                 // N m
  double link_mass[TF_PANDA_NJOINT + 1];           // kg, link 0 (base) .. link 7
  double link_com[TF_PANDA_NJOINT + 1][3];         // m, in the link's DH frame
  double link_inertia[TF_PANDA_NJOINT + 1][6];     // kg m^2 about the com, link axes:
                                                   // ixx iyy izz ixy ixz iyz
  double hand_mass, hand_com[3], hand_inertia[6];  // the Franka Hand, in the hand frame
  double finger_mass, finger_inertia[6];
  double hand_yaw;       // rad: hand about the flange's z
  double tcp_offset;     // m: TCP along the hand's z from the flange
  double finger_base;    // m: finger frames along the hand's z
  double finger_travel;  // m: opening of one finger, 0 (closed) .. travel
  double finger_force;   // N: continuous grasp force
  double finger_speed;   // m / s: largest finger speed
} tf_panda_params;

const tf_panda_params* tf_panda_params_get(void);

// how to add a Panda; start from tf_panda_def_default()
typedef struct tf_panda_def {
  const char* prefix;  // prepended to every name ("panda_" -> "panda_link3"); not NULL
  double base_pos[3];  // link 0 in the parent (world) frame (m)
  double base_quat[4];
  double qpos0[TF_PANDA_NJOINT];     // initial joint angles (rad), within the limits
  double armature[TF_PANDA_NJOINT];  // rotor inertia per joint (kg m^2); default 0.1
  double damping[TF_PANDA_NJOINT];   // viscous joint damping (N m s / rad); default 0
  int continuous_joint7;   // 1: joint 7 has no limit (screwing without regrasp, as Factory did)
  int gripper;             // 1: the Franka Hand with two prismatic fingers (default)
  double finger_opening;   // initial opening of each finger (m), 0 .. 0.04
  double finger_force;     // force limit of each finger's servo (N); default 70 (continuous)
  double finger_kp;        // finger servo stiffness (N / m)
  double finger_kv;        // finger servo damping (N s / m)
  double finger_friction;  // sliding friction of the finger pads
  int self_collision;      // 1: links collide with each other (neighbours within 2 excluded)
  double margin;           // extra contact detection distance of the arm's geoms (m)
} tf_panda_def;

tf_panda_def tf_panda_def_default(void);

// ids of what tf_panda_add created (valid in the compiled model: ids are kept)
typedef struct tf_panda {
  int base;                       // body: link 0, welded to the parent (world)
  int link[TF_PANDA_NJOINT];      // bodies: links 1..7
  int joint[TF_PANDA_NJOINT];     // hinges 1..7
  int actuator[TF_PANDA_NJOINT];  // torque motors 1..7 (ctrl = N m)
  int hand;                       // body, -1 without gripper
  int finger[2];                  // bodies (left +y, right -y of the hand), -1 if none
  int finger_joint[2];            // slides: opening of each finger (m)
  int finger_actuator[2];         // position servos (ctrl = target opening, m)
  int tcp_body;                   // hand, or link 7 without the gripper
  double tcp_pos[3];              // TCP in tcp_body's frame
  double tcp_quat[4];             // TCP axes in tcp_body's frame
  int geom_first, geom_count;     // the arm's geoms are contiguous
} tf_panda;

// Adds the arm (and gripper) to b at the def's base pose, under the world. Returns 0, or -1
// with a one-line message (bad def, or the builder ran out of memory).
int tf_panda_add(tf_builder* b, const tf_panda_def* def, tf_panda* out, char* err, size_t errlen);

// The pieces of tf_panda_add that another arm's builder reuses (urdf.h):
// the arm's geom defaults (collision bits ARM / ENV, the def's margin) on body
tf_geom_def tf_panda_arm_geom(const tf_panda_def* def, int body);
// the Franka Hand and its two fingers on a flange: body parent, the flange frame (pos, quat)
// in it; the hand turned by hand_yaw about the flange's z, the TCP tcp_offset along it. Sets
// out's hand, finger*, tcp_body and tcp_pos, and counts the pads into out's geom range (the
// arm's geoms must come just before). 0, or -1 with a one-line message.
int tf_panda_add_gripper(tf_builder* b, const tf_panda_def* def, int parent, const double pos[3],
                         const double quat[4], tf_panda* out, char* err, size_t errlen);
// self_collision's exclusions: the bodies within two places of each other along out's chain
// (base, links, hand, fingers); 0 or -1 (out of memory)
int tf_panda_exclude_neighbours(tf_builder* b, const tf_panda* out);

// finger servo targets for a gripper opening: each finger to opening / 2 (m). A target below
// the object (or below 0) saturates the servos at their force limit: a constant squeeze.
void tf_panda_set_gripper(const tf_panda* p, tf_data* d, double opening);

// Analytic forward kinematics of the DH table, independent of the engine: frames[i] is the
// pose of DH frame i in the base frame as a row-major 4x4 homogeneous matrix (0 = base,
// 1..7 = links, 8 = flange).
void tf_panda_dh_fk(double frames[TF_PANDA_NFRAME][16], const double q[TF_PANDA_NJOINT]);

#endif  // TF_ROBOT_PANDA_H
