// Controllers layer, private: the controller object, the arm state each update gathers, the
// per-kind compute functions and the small dense algebra they share.
#ifndef TF_CONTROLLER_INTERNAL_H
#define TF_CONTROLLER_INTERNAL_H

#include "controller.h"

#define NJ TF_ARM_MAX_JOINTS

// what a controller kind needs from the state (bits of tf_ctrl_kind_info.needs)
enum {
  NEED_JACOBIAN = 1,  // J, TCP twist, pose error
  NEED_GRAVITY = 2,   // g(q)
  NEED_BIAS = 4,      // c(q, qd)
  NEED_MASS = 8,      // M (arm block) and M^-1 (arm block of the tree's inverse)
  NEED_JDOT = 16,     // Jdot qd
  NEED_WRENCH = 32,   // the TCP wrench estimate
  NEED_PINV = 64,     // K = (J J^T)^-1 J, for null-space projection and the wrench estimate
};

// the arm's state at one control update
typedef struct tf_arm_state {
  double q[NJ], qd[NJ];
  double pos[3], quat[4];  // TCP pose (world)
  double twist[6];         // TCP linear and angular velocity (world)
  double jac[6 * NJ];      // 6 x n, row-major
  double jdot_qd[6];       // TCP acceleration at zero joint acceleration, gravity excluded
  double grav[NJ];         // g(q)
  double bias[NJ];         // c(q, qd)
  double mass[NJ * NJ];    // M, arm block (n x n)
  double minv[NJ * NJ];    // arm block of the arm tree's M^-1 (n x n)
  double pinv_k[6 * NJ];   // K = (J J^T)^-1 J, column-major 6 x n (J^+ = K^T)
  double error[6];         // pose error: target - current (position, axis-angle)
} tf_arm_state;

struct tf_controller {
  tf_controller_config cfg;
  tf_arm arm;
  int n;      // arm joints
  int nv;     // model dofs
  int needs;  // NEED_* bits of this configuration
  int qposadr[NJ], dofadr[NJ];
  double gear[NJ];
  double ctrl_lo[NJ], ctrl_hi[NJ];  // motor ctrl range, lo >= hi: none
  int limited[NJ];
  double q_lo[NJ], q_hi[NJ];

  // the arm's kinematic tree (arm, gripper and anything mounted on them): its dofs index M
  int ntree;
  int* tree_dof;        // (ntree)
  int arm_in_tree[NJ];  // position of each arm dof in tree_dof
  double* tree_mass;    // (ntree x ntree) factor of M's tree block
  double* tree_rhs;     // (ntree x n) M^-1 columns of the arm dofs
  double* scratch_nv;   // (nv) rnea output
  double* saved_qvel;   // (nv)

  // targets
  int nkey;
  double key_time[TF_CONTROLLER_MAX_KEYFRAMES];
  double key_q[TF_CONTROLLER_MAX_KEYFRAMES * NJ];
  double pose_pos[3], pose_quat[4];
  double wrench[6];
  double posture[NJ];

  // output
  double torque[NJ];
  double measured[6];
  long calls;
  tf_arm_state st;
};

typedef int (*tf_ctrl_compute_fn)(tf_controller* c, const tf_model* m, tf_data* d, double* tau);

typedef struct tf_ctrl_kind_info {
  const char* name;
  const char* description;
  int needs;  // NEED_* bits
  tf_ctrl_compute_fn compute;
} tf_ctrl_kind_info;

const tf_ctrl_kind_info* tf_ctrl_kind_info_get(tf_controller_kind kind);

// per-kind torques into tau (n); 0, or -1 when the algebra failed
int tf_ctrl_pd(tf_controller* c, const tf_model* m, tf_data* d, double* tau);
int tf_ctrl_ik(tf_controller* c, const tf_model* m, tf_data* d, double* tau);
int tf_ctrl_id(tf_controller* c, const tf_model* m, tf_data* d, double* tau);
int tf_ctrl_impedance(tf_controller* c, const tf_model* m, tf_data* d, double* tau);
int tf_ctrl_osc(tf_controller* c, const tf_model* m, tf_data* d, double* tau);
int tf_ctrl_force(tf_controller* c, const tf_model* m, tf_data* d, double* tau);
int tf_ctrl_hybrid(tf_controller* c, const tf_model* m, tf_data* d, double* tau);

// gathers the state the needs ask for (kinematics and velocities of d are refreshed)
int tf_ctrl_state_update(tf_controller* c, const tf_model* m, tf_data* d, int needs);
// the IK's joint step dq (n) for the pose error e (6) with the configured method
int tf_ctrl_ik_step(tf_controller* c, const double e[6], double* dq);

// shared task-space pieces (controller_task.c)
// tau += N^T tau0 for the posture torque tau0, N^T = I - J^T K with K = (J J^T)^-1 J
void tf_ctrl_add_null_torque(const tf_controller* c, double* tau);
// tau0 = null_kp (posture - q) - null_kd qd
void tf_ctrl_posture_torque(const tf_controller* c, double* tau0);
// tau += J^T f
void tf_ctrl_add_jt(const tf_controller* c, const double f[6], double* tau);
// the force part of force / hybrid control: F_d [+ Kf (F_d - F)] - D v
void tf_ctrl_force_command(const tf_controller* c, double f[6]);
// Lambda (6 x 6, row-major) = (J M^-1 J^T)^-1; 0 or -1
int tf_ctrl_task_inertia(const tf_controller* c, double lambda[36]);
// tau += N_dyn^T tau0: tau0 - J^T Lambda J M^-1 tau0
void tf_ctrl_add_dynamic_null_torque(const tf_controller* c, const double lambda[36], double* tau);

// writes a message into err (if any) and returns -1
int tf_ctrl_fail(char* err, size_t errlen, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

// small dense algebra (controller_math.c); matrices row-major unless named column-major
// solves the symmetric positive definite (n x n) a x = b for nrhs right-hand sides stored
// column by column; a and b are overwritten (a by its factor). 0, or -1 if not positive
// definite (then a is left partly factored)
int tf_ctrl_spd_solve(int n, double* a, int nrhs, double* b);
// the singular value decomposition J = U diag(s) V^T of the 6 x n jac (row-major, n <= NJ):
// u (6 x 6) and v (n x 6) row-major with the singular vectors as columns, s unsorted and
// zero past J's rank (a zero s_r's v_r is zero). 0, or -1 if it did not converge
int tf_ctrl_svd6(double s[6], double u[36], double* v, const double* jac, int n);
// out (6 x 6, symmetric) = J J^T + damping I for J (6 x n, row-major)
void tf_ctrl_jjt(double out[36], const double* jac, int n, double damping);

#endif  // TF_CONTROLLER_INTERNAL_H
