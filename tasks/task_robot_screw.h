// A wrist turn for robot mode (issue 7: "screw it down by turning the wrist"): the TCP turns
// about a vertical axis at a steady rate, tightening (clockwise seen from above, about -z, as
// a right-hand thread goes down), while its height follows the held part down with a small
// preload.
//
// The command every control step: the TCP's pose at the turn's start, turned about the
// vertical through `axis` by the angle turned so far (so that a part held off the TCP's own
// axis turns about the thread's axis, not around it), at the height that holds the part where
// it is now less `push`. The height is read off the part's pose as the script reads it for the
// placing (pose estimation), so the TCP follows the part down at whatever rate the thread
// advances it, one pitch per turn once it is caught, and the controller's stiffness turns
// `push` into a steady axial force whether or not the thread has caught yet. The turn's rate
// rises from zero over `ramp` seconds (no step in the wrist's speed). The mover gets a jump to
// the new pose each step (tf_robot_move with no duration): pd solves the joints for every
// step's pose, warm-started from its reference, so joint 7 (continuous in a screwing cell)
// keeps unwinding past any half turn.
#ifndef TF_TASK_ROBOT_SCREW_H
#define TF_TASK_ROBOT_SCREW_H

#include "task_robot.h"

typedef struct tf_robot_screw {
  double axis[2];            // m: the vertical axis turned about (x, y)
  double speed;              // rad / s: the steady rate, tightening positive (about -z)
  double ramp;               // s: the rate rises from 0 over this
  double push;               // m: the command's height under the part-following height
  int body;                  // the held part
  double t0;                 // s: the turn's start
  double t_last;             // s: the last update
  double angle;              // rad: the turn commanded so far (tightening positive)
  double pos0[3], quat0[4];  // the TCP command the turn starts from
  double offset;             // m: the TCP's height above the part's frame at the start
  int running;
} tf_robot_screw;

// starts turning from the pose commanded now (the end of the last segment): the part `body`
// held in the hand, the axis (x, y), the steady rate (rad / s, tightening), the ramp (s) and
// the preload offset (m)
void tf_robot_screw_start(tf_robot_screw* w, const tf_robot* r, const tf_model* m, tf_data* d,
                          int body, const double axis[2], double speed, double ramp, double push);
// before each control step while running: the next command into the mover
void tf_robot_screw_update(tf_robot_screw* w, tf_robot* r, const tf_model* m, const tf_data* d);
// stops turning: the command stays at the last pose
void tf_robot_screw_stop(tf_robot_screw* w);
// the turn commanded so far (turns, tightening positive)
double tf_robot_screw_turns(const tf_robot_screw* w);

#endif  // TF_TASK_ROBOT_SCREW_H
