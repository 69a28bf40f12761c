// Robot mode's shared pieces (docs/robot.md): the work cell (a table and a
// Panda with its gripper on it), the controller a run names (`controller` = osc | impedance |
// ik | pd), a scripted mover that drives the tool centre point (TCP) along min-jerk segments
// with any of the four, the payload's weight compensation and the gripper. Each task's
// <task>_robot.c builds its parts into the cell and scripts its phases with these.
//
// The mover: a segment runs from the pose last commanded to a target pose over a duration,
// with the min-jerk blend s(tau) on the position (a straight line) and on the rotation (a
// slerp). The task-space controllers (osc, impedance, ik) get the blended pose every control
// step. pd is a joint-space controller: the mover solves the target's joint angles by damped
// least squares on the engine's own kinematics (a scratch tf_data of the same model) and
// hands the controller a min-jerk keyframe pair; its path is straight in joint space, which
// stays close to the line for the short moves the scripts make.
//
// Payload: a grasped part is not in the arm's kinematic tree, so no controller's gravity
// model knows its weight. As the robot does when told its load (libfranka's setLoad), the
// mover adds J_c^T (0, 0, m g) to the motor torques, J_c the Jacobian of the payload's
// centre of mass through the hand, read off the state each step.
#ifndef TF_TASK_ROBOT_H
#define TF_TASK_ROBOT_H

#include "controller.h"
#include "robot_panda.h"
#include "task.h"
#include "urdf.h"

// the `controller` parameter's choices, in schema order (index = tf_robot_controller)
#define TF_ROBOT_CONTROLLER_CHOICES "osc|impedance|ik|pd"
typedef enum tf_robot_controller {
  TF_ROBOT_OSC = 0,
  TF_ROBOT_IMPEDANCE,
  TF_ROBOT_IK,
  TF_ROBOT_PD,
  TF_ROBOT_NCONTROLLER
} tf_robot_controller;

// the `grasp` parameter's choices: held by the fingers' friction, or welded to the hand
#define TF_ROBOT_GRASP_CHOICES "friction|weld"
enum { TF_ROBOT_GRASP_FRICTION = 0, TF_ROBOT_GRASP_WELD };

// the `robot_urdf` parameter every robot mode's schema ends with: a URDF file whose 7-joint
// serial arm stands in for the built-in Panda (urdf.h), the Franka Hand on its tcp link; the
// file is loaded and built once when the run's options are checked, so a bad one stops the
// run before it starts
#define TF_ROBOT_URDF_PARAM                                                               \
  {                                                                                       \
    "robot_urdf", 0, 0, 1, "path", NULL,                                                  \
        "a URDF file (FILE.urdf, or FILE.urdf#LINK to end the arm at LINK): its 7-joint " \
        "serial arm in place of the built-in Panda, the Franka Hand on that link "        \
        "(docs/robot.md)",                                                                \
        .text = 1, .check = tf_urdf_check                                                 \
  }

// the cell: the table's top, the arm's base on it and the arm's start configuration
typedef struct tf_robot_cell {
  double table_top;                 // m: z of the table's top face
  double table_lo[2], table_hi[2];  // m: the table's extent in x and y
  double base[2];                   // m: the arm's base (link 0) on the table, x and y
  double q_start[TF_PANDA_NJOINT];  // rad: nominal start configuration
  double q_perturb;                 // rad: each joint's start drawn within +-this
  double finger_opening;            // m: each finger's start opening
  double finger_friction;           // sliding friction of the finger pads
  int continuous_joint7;            // 1: joint 7 without a limit (screwing)
  const char* urdf;                 // the arm's URDF file (robot_urdf); NULL: the built-in Panda
} tf_robot_cell;

// a Franka-like cell: table top at z = table_top, the base at (base_x, base_y), the "ready"
// configuration, fingers open, no perturbation
tf_robot_cell tf_robot_cell_default(void);

typedef struct tf_robot {
  tf_panda panda;
  tf_urdf* urdf;  // the cell's URDF arm as loaded (NULL: the built-in Panda); tf_robot_free frees
  tf_arm arm;
  tf_robot_controller kind;
  tf_controller* ctrl;
  tf_data* scratch;                 // the IK's own data (pd), allocated with the robot
  double q_start[TF_PANDA_NJOINT];  // the drawn start configuration
  // the segment being followed (task space) and the pose last commanded
  double t0, t1;
  double from_pos[3], from_quat[4], to_pos[3], to_quat[4];
  int ik_failed;  // pd: segments whose joint target did not reach its pose (counted)
  // payload compensation: body, its mass (0: none)
  int payload_body;
  double payload_mass;
  double gripper;  // m: the commanded opening (both fingers)
} tf_robot;

// Adds the table and the arm (start configuration drawn from rng when q_perturb > 0) to b.
// Returns 0, or -1 with a message.
int tf_robot_cell_build(tf_builder* b, const tf_robot_cell* cell, tf_rng* rng, tf_robot* r,
                        char* err, size_t errlen);

// Adds a stand to b: a static grey box of half side half at (xy[0], xy[1]), from z = bottom up
// to z = top, colliding with the arm and with whatever contype names (the part's grip geom).
// Returns its geom id, or -1 when the builder is out of memory.
int tf_robot_add_stand(tf_builder* b, const double xy[2], double half, double bottom, double top,
                       unsigned contype);

// The TCP pose of a joint configuration of the cell's arm, by the DH table (before compile:
// where a welded part must start). pos/quat in world.
void tf_robot_cell_tcp(const tf_robot_cell* cell, const double q[TF_PANDA_NJOINT], double pos[3],
                       double quat[4]);

// The TCP pose of the drawn start configuration r->q_start of the arm tf_robot_cell_build put
// into the cell (a URDF arm's by its file, the Panda's by tf_robot_cell_tcp). pos/quat in world.
void tf_robot_start_tcp(const tf_robot* r, const tf_robot_cell* cell, double pos[3],
                        double quat[4]);

// After compile: the controller of the run's kind (gains for the Panda), the IK's scratch
// data; the commanded pose := the TCP's pose in d. 0, or -1 with a message.
int tf_robot_start(tf_robot* r, const tf_model* m, tf_data* d, tf_robot_controller kind, char* err,
                   size_t errlen);
void tf_robot_free(tf_robot* r);

// a min-jerk segment from the pose last commanded to (pos, quat) over duration (s), from d's
// time; duration <= 0 jumps the command there
void tf_robot_move(tf_robot* r, const tf_model* m, const tf_data* d, const double pos[3],
                   const double quat[4], double duration);
// the same from the TCP's measured pose (after contact has moved it away from the command)
void tf_robot_move_from_here(tf_robot* r, const tf_model* m, tf_data* d, const double pos[3],
                             const double quat[4], double duration);
// the pose commanded at the end of the current segment
void tf_robot_target(const tf_robot* r, double pos[3], double quat[4]);
// the pose the mover commands at time t (s) on its current segment (what tf_robot_step hands
// the controller at d->time = t)
void tf_robot_command(const tf_robot* r, double t, double pos[3], double quat[4]);
// commands exactly (pos, quat) from d's time on: a segment of no length that starts and ends
// there (pd: its joints solved as tf_robot_move solves a jump's); the policy interface's
// per-control-step target (task_robot_policy.c)
void tf_robot_hold(tf_robot* r, const tf_model* m, const tf_data* d, const double pos[3],
                   const double quat[4]);

// one control step: the segment's pose at d's time into the controller, its torques into
// d->ctrl, plus the payload's weight. 0, or -1 when the controller gave non-finite torques.
int tf_robot_step(tf_robot* r, const tf_model* m, tf_data* d);

// the gripper: both fingers toward opening / 2 (below the part: a squeeze at the force limit)
void tf_robot_grip(tf_robot* r, tf_data* d, double opening);
// the payload whose weight the arm carries (mass 0: none)
void tf_robot_payload(tf_robot* r, int body, double mass);

// the TCP's world pose now (kinematics of d current)
void tf_robot_tcp(const tf_robot* r, const tf_model* m, const tf_data* d, double pos[3],
                  double quat[4]);

// solves the 6 x 6 symmetric positive definite a x = b in place (Cholesky; a overwritten, b
// becomes x); 0, or -1 when a is not positive definite
int tf_robot_solve6(double a[36], double b[6]);

// small pose algebra the scripts share (quaternions w x y z; the rest is in tf_math.h)
// the pose of frame B in frame A's coordinates: (A^-1 B)
void tf_robot_relative(double pos[3], double quat[4], const double a_pos[3], const double a_quat[4],
                       const double b_pos[3], const double b_quat[4]);
// the pose of A given B's world pose and B's pose in A: A = B (A^-1 B)^-1
void tf_robot_compose_inverse(double pos[3], double quat[4], const double b_pos[3],
                              const double b_quat[4], const double rel_pos[3],
                              const double rel_quat[4]);

// ---------------------------------------------------------------- the pick-and-insert script

// The script every robot-mode task runs (task_robot_script.c), one phase after another at
// fixed times: above the part with the fingers open, down to the grasp, close and squeeze,
// lift, carry the part over its seat, look again and align, go down past the seat (the
// controller's own compliance finishes the insertion against the part's lead-ins), open the
// fingers where the arm stands, withdraw. The part's pose is read off the state as a robot
// with pose estimation would see it (Factory's observations are the same: hand and part
// poses): on its stand for the grasp, and in the hand after the lift and before inserting,
// so that the part, not the hand, is placed over its seat. Nothing else is privileged: the
// arm moves by its controller's torques, the part by contact.
enum {
  TF_ROBOT_APPROACH,  // above the part, fingers open
  TF_ROBOT_DESCEND,   // down to the grasp
  TF_ROBOT_CLOSE,     // fingers close, then squeeze
  TF_ROBOT_LIFT,
  TF_ROBOT_CARRY,    // the part over its seat, upright
  TF_ROBOT_ALIGN,    // the same target from a fresh look at the part in the hand, then still
  TF_ROBOT_INSERT,   // down to just past the seat
  TF_ROBOT_RELEASE,  // fingers open, the arm holds where it is
  TF_ROBOT_RETREAT,  // up and away
  TF_ROBOT_DONE,     // hold
  TF_ROBOT_NPHASE
};

// what the script knows of the part and its seat (world frame: the seat's axis is z, the
// part goes in along -z, upright: its own z axis up)
typedef struct tf_robot_part {
  int body;           // the part's body
  double mass;        // kg: the payload the arm carries once it holds the part
  double grip[3];     // m: the TCP's place in the part's frame in the grasp
  double width;       // m: the part between the pads where they hold it
  int yaw_order;      // the part's symmetry about its axis: 0 round (any yaw), n: n-fold
  double seat[3];     // m: world position of the part's frame when inserted
  double carry;       // m: the part's frame above its seat after the carry
  double align;       // m: the same before inserting
  double push;        // m: the insertion's target past the seat
  double align_hold;  // s (at osc's pace) added to the align phase's stillness; 0 none
  double fine_gain;   // per control step: during the align phase's stillness the target moves
                      // by this fraction of the part's lateral error from its seat's axis
                      // (a visual-servoing loop for lead-ins narrower than the arm's
                      // tracking); 0 none
  double seat_yaw;    // rad: the seat's yaw, a part that is not round goes in at this plus a
                      // multiple of 2 pi / yaw_order (a gear: a meshing phase); 0 for most
  int grasp_any_yaw;  // 1: the pads meet the part at any yaw (a gear's teeth go all round) and
                      // the hand keeps its own, though the seat's yaw is yaw_order-fold
} tf_robot_part;

typedef struct tf_robot_script {
  tf_robot_part part;
  int weld;                                 // the part starts welded in the hand
  double phase_start[TF_ROBOT_NPHASE + 1];  // s: each phase's start (zero length: skipped)
  int phase;                                // the phase running now (-1 before the first)
  double grasp_pos[3], grasp_quat[4];       // the part in the TCP's frame when the lift began
  int grasped;                              // the grasp has been measured
  int lifted;                               // the part rose with the hand
  double lifted_from;                       // m: the part's height when the lift began
  double slip;         // m: largest drift of the part in the TCP frame since the lift
  double align_error;  // m: the part's lateral distance from its seat's axis at insertion
  double align_move;   // s: the align phase's move; its stillness follows
  double pace;         // the controller's pace: phase lengths over osc's
} tf_robot_script;

// the script for a part, the run's controller and grasp (weld: the pick and the release are
// skipped); phases start at d->time 0
void tf_robot_script_init(tf_robot_script* s, const tf_robot_part* part,
                          tf_robot_controller controller, int weld);
// seconds from the start to the end of the last phase for a part (NULL: no align_hold), a
// controller and a grasp (a task's default duration covers the slowest controller's)
double tf_robot_script_length(const tf_robot_part* part, tf_robot_controller controller, int weld);
// before each control step: enters the phases whose time has come, then tf_robot_step
void tf_robot_script_control(tf_robot_script* s, tf_robot* r, const tf_model* m, tf_data* d);
// the same without tf_robot_step: the phases' segments, the gripper and the payload set on r,
// the arm not moved. The scripted policy runs it on a copy of the script and its robot
// (task_robot_policy.c) to read off the command the script would give.
void tf_robot_script_plan(tf_robot_script* s, tf_robot* r, const tf_model* m, tf_data* d);
// after each control step: the grasp's slip
void tf_robot_script_observe(tf_robot_script* s, const tf_robot* r, const tf_model* m,
                             const tf_data* d);
// robot.lifted, robot.grasp_slip_max (m), robot.align_error_max (m), robot.ik_failures
void tf_robot_script_metrics(const tf_robot_script* s, const tf_robot* r, tf_metrics* out);
// a missed robot run's "why" after its task's criteria (tf_why_add): what the script saw go
// wrong: the pick did not lift the part, the run ended at time t before the script's end (s;
// NaN: not known ahead), the pd mover's IK missed
void tf_robot_script_why(const tf_robot_script* s, const tf_robot* r, double t, double end,
                         char why[TF_METRIC_TEXT_LEN]);

#endif  // TF_TASK_ROBOT_H
