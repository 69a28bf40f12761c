// Robot arm controllers: the public API of the controllers layer.
//
// One interface for every controller (the set the Factory paper describes, sec. "Robot
// controllers"): it reads the state of an arm from (model, data), computes joint torques and
// writes them into d->ctrl of the arm's torque motors. Gains live in one documented config
// (tf_controller_config_default, checked by tf_controller_config_check). The controller runs
// at its own rate: tf_controller_update is called before every physics step and recomputes
// the torques every `decimation` calls, holding them in between (a zero-order hold, as a real
// 1 kHz torque loop over a faster simulation).
//
//   kind        torque                                                        target
//   pd          Kp (q_r - q) + Kd (qd_r - qd) [+ g(q)]                        joint keyframes
//   ik          Kp dq - Kd qd [+ g(q)],  dq = J# e  (pinv|transpose|dls|svd)   TCP pose
//   id          M (qdd_r + Kp (q_r - q) + Kd (qd_r - qd)) + c(q, qd)          joint keyframes
//   impedance   J^T (K e - D v) [+ g(q)] + N^T tau_posture                    TCP pose
//   osc         J^T Lambda (Kp e - Kd v - Jdot qd) + c(q, qd) + N_dyn^T tau_p  TCP pose
//   force       J^T (F_d [+ Kf (F_d - F)] - D v) [+ g(q)] + N^T tau_posture   TCP wrench
//   hybrid      J^T (S F_motion + (I - S) F_force) + ...                      pose and wrench
//
// e is the TCP pose error (position, then axis-angle of R_target R^T, world axes), v the TCP
// twist (linear, angular), J the geometric Jacobian of the TCP (rows: linear, angular) over
// the arm's joints, g the gravity torques (tf_rnea at zero velocity and acceleration), c the
// full bias (tf_rnea), M the joint-space inertia (tf_crba) and Lambda = (J M^-1 J^T)^-1.
// N^T = I - J^T J^+^T projects a posture torque into the null space (dynamically consistent
// with Jbar = M^-1 J^T Lambda for osc). F is the wrench the robot exerts at the TCP, estimated
// from the constraint and applied forces on the arm's joints (as the real robot estimates it
// from its joint torque sensors).
#ifndef TF_CONTROLLER_H
#define TF_CONTROLLER_H

#include <stddef.h>

#include "robot_panda.h"
#include "tightfit.h"

#define TF_ARM_MAX_JOINTS 8
#define TF_CONTROLLER_MAX_KEYFRAMES 64

// ---------------------------------------------------------------- the arm

// which joints, motors and tool point a controller drives (ids in the compiled model)
typedef struct tf_arm {
  int njoint;                       // 1 .. TF_ARM_MAX_JOINTS
  int joint[TF_ARM_MAX_JOINTS];     // hinge or slide joints, base to tip
  int actuator[TF_ARM_MAX_JOINTS];  // motor actuator of each joint: joint force = gear * ctrl
  int tcp_body;                     // the body carrying the tool centre point
  double tcp_pos[3];                // TCP in tcp_body's frame (m)
  double tcp_quat[4];               // TCP axes in tcp_body's frame
} tf_arm;

// the Panda's joints, motors and TCP
tf_arm tf_arm_from_panda(const tf_panda* panda);
// 0, or -1 with a message: ids out of range, a joint that does not move the TCP, an actuator
// that is not a motor on its joint
int tf_arm_check(const tf_model* m, const tf_arm* arm, char* err, size_t errlen);

// TCP pose (world) of the current kinematics in d (tf_kinematics must have run)
void tf_arm_tcp_pose(const tf_model* m, const tf_data* d, const tf_arm* arm, double pos[3],
                     double quat[4]);
// geometric Jacobian of the TCP (6 x arm->njoint, row-major; rows vx vy vz wx wy wz) from the
// motion axes cdof (tf_kinematics must have run)
void tf_arm_jacobian(const tf_model* m, const tf_data* d, const tf_arm* arm, double* jac);

// ---------------------------------------------------------------- configuration

typedef enum tf_controller_kind {
  TF_CTRL_PD = 0,     // joint PD on min-jerk keyframes
  TF_CTRL_IK,         // differential IK into a joint PD
  TF_CTRL_ID,         // joint-space inverse dynamics (computed torque)
  TF_CTRL_IMPEDANCE,  // task-space impedance
  TF_CTRL_OSC,        // operational-space control
  TF_CTRL_FORCE,      // open-loop / closed-loop (P) force control
  TF_CTRL_HYBRID,     // hybrid force-motion with a selection matrix
  TF_CTRL_N
} tf_controller_kind;

typedef enum tf_ik_method {
  TF_IK_PINV = 0,   // J^T (J J^T)^-1 e (Cholesky; damped by 1e-9 if singular)
  TF_IK_TRANSPOSE,  // alpha J^T e, alpha = <e, J J^T e> / |J J^T e|^2 (Buss)
  TF_IK_DLS,        // J^T (J J^T + lambda^2 I)^-1 e (Levenberg-Marquardt)
  TF_IK_SVD,        // sum sigma_i / (sigma_i^2 + lambda_i^2) v_i u_i^T e, lambda_i^2 =
                    // lambda^2 (1 - (sigma_i / eps)^2) below eps (adaptive damping)
  TF_IK_N
} tf_ik_method;

typedef enum tf_hybrid_motion {
  TF_HYBRID_IMPEDANCE = 0,  // motion axes by the impedance law
  TF_HYBRID_OSC,            // motion axes by operational-space control
  TF_HYBRID_N
} tf_hybrid_motion;

// Every gain in one struct; each controller reads the fields its row in the table above
// names. Per-joint arrays are indexed like tf_arm.joint; task-space arrays are (x, y, z, rx,
// ry, rz) in world axes. Defaults (tf_controller_config_default) suit the Panda at dt 1-2 ms.
typedef struct tf_controller_config {
  tf_controller_kind kind;
  int decimation;            // physics steps per control update, >= 1 (1: every step)
  int gravity_compensation;  // 1: add g(q) (pd, ik, impedance, force, hybrid w/ impedance)

  // joint space: pd and ik (torque gains; stiffness from libfranka's joint impedance example)
  double joint_kp[TF_ARM_MAX_JOINTS];  // N m / rad   (default 600 600 600 600 250 150 50)
  double joint_kd[TF_ARM_MAX_JOINTS];  // N m s / rad (default 50 50 50 50 15 11 6)
  // joint space: id (acceleration gains, the same for every joint)
  double id_kp;  // 1 / s^2 (default 400: 20 rad/s)
  double id_kd;  // 1 / s   (default 40: critically damped)

  // differential IK
  tf_ik_method ik_method;
  double ik_damping;        // lambda of dls and the largest lambda of svd (default 0.05)
  double ik_svd_threshold;  // eps: svd damps singular values below it (default 0.1)
  double ik_gain;           // scale of the joint step J# e (default 1; transpose converges
                            // slowly in J's weak directions and wants about 3)
  double ik_max_pos_error;  // m: the position error fed to the IK is clipped to it (0.1)
  double ik_max_rot_error;  // rad: the same for the rotation error (0.5)
  double ik_null_gain;      // 0..1: fraction of the posture error added in the null space
                            // (default 0: its motion drags the TCP through the joint damping)
  double ik_length;         // m: position errors and Jacobian rows are divided by it, so that
                            // 1 rad weighs as much as this distance (transpose, dls and svd
                            // depend on the units; pinv does not). Default 0.3

  // task space: impedance (stiffness and damping), force damping
  double task_kp[6];  // N / m, N m / rad (default 1000 x3, 60 x3)
  double task_kd[6];  // N s / m, N m s / rad (default 80 x3, 4 x3)
  // task space: osc (acceleration gains)
  double osc_kp[6];  // 1 / s^2 (default 400: 20 rad/s)
  double osc_kd[6];  // 1 / s   (default 40)
  // null-space posture (impedance, osc, force, hybrid): torque toward the posture, projected
  double null_kp[TF_ARM_MAX_JOINTS];  // N m / rad (default 10)
  double null_kd[TF_ARM_MAX_JOINTS];  // N m s / rad (default 2)

  // force control
  int force_feedback;  // 0: open loop (F_d only); 1: closed-loop P on the force error
  double force_kp[6];  // closed-loop gain on F_d - F (dimensionless, default 0.5)
  double force_kd[6];  // damping of the TCP's motion on force axes, N s / m, N m s / rad
  // hybrid: 1 = the axis is motion-controlled, 0 = force-controlled (world axes)
  double selection[6];
  tf_hybrid_motion hybrid_motion;
} tf_controller_config;

tf_controller_config tf_controller_config_default(tf_controller_kind kind);
// 0, or -1 with a message naming the field, its value and what it must be
int tf_controller_config_check(const tf_controller_config* cfg, int njoint, char* err,
                               size_t errlen);

// registry: names for the CLI, sweeps and reports ("pd", "ik", "id", "impedance", "osc",
// "force", "hybrid"; "pinv", "transpose", "dls", "svd")
const char* tf_controller_kind_name(tf_controller_kind kind);
const char* tf_controller_kind_description(tf_controller_kind kind);
int tf_controller_kind_from_name(const char* name);  // -1 if unknown
const char* tf_ik_method_name(tf_ik_method method);
int tf_ik_method_from_name(const char* name);  // -1 if unknown

// ---------------------------------------------------------------- the controller

typedef struct tf_controller tf_controller;

// Creates a controller for arm in model m (all memory allocated here: updates allocate
// nothing). One controller drives one tf_data (it keeps targets and workspace); any number
// of controllers may share a model. NULL with a message on a bad config or arm, or out of
// memory.
tf_controller* tf_controller_create(const tf_model* m, const tf_arm* arm,
                                    const tf_controller_config* cfg, char* err, size_t errlen);
void tf_controller_destroy(tf_controller* c);
const tf_controller_config* tf_controller_config_of(const tf_controller* c);

// Targets := the current state of d: joint keyframe and posture = q, pose = the TCP pose,
// wrench = 0; the decimation counter restarts (the next update computes).
void tf_controller_reset(tf_controller* c, const tf_model* m, tf_data* d);

// joint trajectory: keyframes (time s, q) with min-jerk interpolation between consecutive
// ones (zero velocity and acceleration at each keyframe); before the first / after the last
// the first / last is held. times strictly increasing, q is (n x njoint). 0 or -1 + message.
int tf_controller_set_keyframes(tf_controller* c, int n, const double* times, const double* q,
                                char* err, size_t errlen);
// min-jerk from the current joint positions at d->time to q over duration (s)
int tf_controller_move_joints(tf_controller* c, const tf_model* m, const tf_data* d,
                              const double* q, double duration, char* err, size_t errlen);
// joint reference at time t: positions, velocities, accelerations (each njoint; may be NULL)
void tf_controller_joint_reference(const tf_controller* c, double t, double* q, double* qd,
                                   double* qdd);
// TCP pose target (world), for ik, impedance, osc and hybrid
void tf_controller_set_pose(tf_controller* c, const double pos[3], const double quat[4]);
// wrench the robot should exert at the TCP (N, N m, world axes), for force and hybrid
void tf_controller_set_wrench(tf_controller* c, const double wrench[6]);
// null-space posture (njoint) for ik, impedance, osc, force and hybrid
void tf_controller_set_posture(tf_controller* c, const double* q);

// Call before every tf_step: every decimation-th call computes new torques from the state in
// d; every call writes the held torques into d->ctrl. 0, or -1 when the state gave
// non-finite torques (zero torques are then held).
int tf_controller_update(tf_controller* c, const tf_model* m, tf_data* d);
// computes now, whatever the decimation counter says (benchmarks, tests); same return
int tf_controller_compute(tf_controller* c, const tf_model* m, tf_data* d);
// the torques last computed (njoint), clamped to the motors' ranges
const double* tf_controller_torque(const tf_controller* c);
// the TCP wrench the robot exerts, as last estimated (6; force and hybrid update it)
const double* tf_controller_measured_wrench(const tf_controller* c);

// min-jerk blend s(tau) = 10 tau^3 - 15 tau^4 + 6 tau^5 on [0, 1] with its first and second
// derivatives in tau (any may be NULL); tau is clamped to [0, 1]
void tf_min_jerk(double tau, double* s, double* ds, double* dds);

#endif  // TF_CONTROLLER_H
