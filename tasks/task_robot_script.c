// The pick-and-insert script of robot mode (see task_robot.h): fixed phase times scaled by the
// controller's pace, entered one after another; each phase's entry sets the mover's next
// segment, the gripper and the payload.
#include <math.h>
#include <string.h>

#include "task_robot.h"
#include "tf_math.h"

#define MAX_OPENING 0.08       // m: the gripper's full opening
#define APPROACH_ABOVE 0.08    // m: the pre-grasp pose above the grasp
#define LIFT_HEIGHT 0.08       // m
#define RETREAT_HEIGHT 0.08    // m
#define SQUEEZE_AT 0.6         // of the close phase: the fingers reach the part, then squeeze
#define TOUCH_MARGIN 2e-3      // m: the fingers close at their rated speed to this under the width
#define SETTLE 0.3             // of the approach, descend and align phases: holding still
#define PACE_JOINT 2.0         // ik and pd run the script this many times slower than osc
#define PACE_IMPEDANCE 1.6     // and impedance this many times
#define INSERT_SLOW_JOINT 2.0  // and ik and pd insert this many times slower again

// the phase lengths (s) at osc's pace: a friction grasp (pick and place), a weld (place only)
static const double phase_length[2][TF_ROBOT_NPHASE] = {
    {0.7, 0.4, 0.35, 0.4, 0.7, 0.4, 0.6, 0.2, 0.3, 0},
    {0, 0, 0, 0, 1.2, 0.4, 0.6, 0, 0, 0},
};

// the script's pace: osc cancels the arm's dynamics and tracks the segments closely; the
// others lag their reference in proportion to its speed (ik: no velocity feed-forward) or its
// acceleration (pd, impedance: no inertia model, and impedance's TCP spring is underdamped
// with the arm's mass), and the lag must stay well under a lead-in (a chamfer) when the part
// meets its seat and under the pads' half width when the fingers close
static double pace_of(tf_robot_controller controller) {
  static const double pace[TF_ROBOT_NCONTROLLER] = {[TF_ROBOT_OSC] = 1,
                                                    [TF_ROBOT_IMPEDANCE] = PACE_IMPEDANCE,
                                                    [TF_ROBOT_IK] = PACE_JOINT,
                                                    [TF_ROBOT_PD] = PACE_JOINT};
  return pace[controller];
}

// phase i's length at osc's pace for a part (NULL: no hold of its own)
static double length_at_osc(const tf_robot_part* part, int weld, int i) {
  double hold = part && i == TF_ROBOT_ALIGN ? part->align_hold : 0;
  return phase_length[weld][i] + hold;
}

// phase i's length for a controller: its pace, and the joint-space controllers' insertion
// slower still: their reference's acceleration shows as a sideways lag along the way down
// (the arm's joints lag by different amounts), and at the lead-in it must stay under the
// clearance
static double length_for(const tf_robot_part* part, tf_robot_controller controller, int weld,
                         int i) {
  int joint = controller == TF_ROBOT_IK || controller == TF_ROBOT_PD;
  double slow = joint && i == TF_ROBOT_INSERT ? INSERT_SLOW_JOINT : 1;
  return pace_of(controller) * slow * length_at_osc(part, weld, i);
}

void tf_robot_script_init(tf_robot_script* s, const tf_robot_part* part,
                          tf_robot_controller controller, int weld) {
  memset(s, 0, sizeof(*s));
  s->part = *part;
  s->weld = weld != 0;
  s->phase_start[0] = 0;
  for (int i = 0; i < TF_ROBOT_NPHASE; i++) {
    s->phase_start[i + 1] = s->phase_start[i] + length_for(part, controller, s->weld, i);
  }
  s->pace = pace_of(controller);
  s->align_move = s->pace * (1 - SETTLE) * phase_length[s->weld][TF_ROBOT_ALIGN];
  s->phase = -1;
  s->align_error = NAN;
}

double tf_robot_script_length(const tf_robot_part* part, tf_robot_controller controller, int weld) {
  double sum = 0;
  for (int i = 0; i < TF_ROBOT_NPHASE; i++) sum += length_for(part, controller, weld != 0, i);
  return sum;
}

// a phase's length in this script (s)
static double length_of(const tf_robot_script* s, int phase) {
  return s->phase_start[phase + 1] - s->phase_start[phase];
}

// the angle of x's horizontal part (rad)
static double yaw_of(const double quat[4]) {
  double x[3];
  tf_quat_rotate(x, quat, (const double[3]){1, 0, 0});
  return atan2(x[1], x[0]);
}

// a turn about the world's vertical by angle (rad), applied to quat
static void turn_about_z(double quat[4], double angle) {
  double turn[4] = {cos(0.5 * angle), 0, 0, sin(0.5 * angle)};
  tf_quat_mul(quat, turn, quat);
}

// the TCP's orientation for the grasp: pointing down as in the ready pose, turned about the
// vertical so that the pads meet the part's faces across its y (the pads are symmetric under
// half a turn; a square meets them on either pair of faces); a round part takes any yaw
static void grasp_orientation(const tf_robot_script* s, const double part_quat[4], double quat[4]) {
  tf_robot_cell cell = tf_robot_cell_default();
  double pos[3];
  tf_robot_cell_tcp(&cell, cell.q_start, pos, quat);
  int order = s->part.yaw_order;
  if (order == 0 || s->part.grasp_any_yaw) return;
  double period = order % 4 == 0 ? M_PI / 2 : M_PI;
  double dyaw = yaw_of(part_quat) - yaw_of(quat);
  dyaw -= period * round(dyaw / period);
  turn_about_z(quat, dyaw);
}

// the part upright: its current orientation turned the shortest way to a vertical axis, and
// a part that is not round turned to the seat's yaw (to the nearest of its symmetric ones,
// seat_yaw plus a multiple of the symmetry's period)
static void upright_pose(const tf_robot_script* s, const tf_data* d, double quat[4]) {
  const double* q = d->xquat + 4 * s->part.body;
  double axis[3], turn[4];
  tf_quat_rotate(axis, q, (const double[3]){0, 0, 1});
  tf_quat_between(turn, axis, (const double[3]){0, 0, 1});
  tf_quat_mul(quat, turn, q);
  int order = s->part.yaw_order;
  if (order == 0) return;
  double period = 2 * M_PI / order, off = yaw_of(quat) - s->part.seat_yaw;
  turn_about_z(quat, period * round(off / period) - off);
}

// the part's pose in the TCP's frame now
static void part_in_hand(const tf_robot_script* s, const tf_robot* r, const tf_model* m,
                         const tf_data* d, double pos[3], double quat[4]) {
  double tcp[3], tq[4];
  tf_robot_tcp(r, m, d, tcp, tq);
  tf_robot_relative(pos, quat, tcp, tq, d->xpos + 3 * s->part.body, d->xquat + 4 * s->part.body);
}

// the TCP pose that puts the part upright with its frame `height` above its seat, from how it
// sits in the hand now
static void place_pose(const tf_robot_script* s, const tf_robot* r, const tf_model* m,
                       const tf_data* d, double height, double pos[3], double quat[4]) {
  double rel[3], rq[4], at[3], up[4];
  part_in_hand(s, r, m, d, rel, rq);
  upright_pose(s, d, up);
  for (int k = 0; k < 3; k++) at[k] = s->part.seat[k];
  at[2] += height;
  tf_robot_compose_inverse(pos, quat, at, up, rel, rq);
}

static void place(const tf_robot_script* s, tf_robot* r, const tf_model* m, const tf_data* d,
                  double height, double duration) {
  double pos[3], quat[4];
  place_pose(s, r, m, d, height, pos, quat);
  tf_robot_move(r, m, d, pos, quat, duration);
}

// the actions that start a phase
static void enter_phase(tf_robot_script* s, tf_robot* r, const tf_model* m, tf_data* d) {
  const tf_robot_part* p = &s->part;
  const double* x = d->xpos + 3 * p->body;
  const double* q = d->xquat + 4 * p->body;
  double pos[3], quat[4];
  switch (s->phase) {
    case TF_ROBOT_APPROACH:
    case TF_ROBOT_DESCEND:
      // the grasp, as the part stands now
      tf_quat_rotate(pos, q, p->grip);
      for (int k = 0; k < 3; k++) pos[k] += x[k];
      if (s->phase == TF_ROBOT_APPROACH) pos[2] += APPROACH_ABOVE;
      grasp_orientation(s, q, quat);
      tf_robot_grip(r, d, MAX_OPENING);
      tf_robot_move(r, m, d, pos, quat, (1 - SETTLE) * length_of(s, s->phase));
      break;
    case TF_ROBOT_LIFT:
      part_in_hand(s, r, m, d, s->grasp_pos, s->grasp_quat);
      s->grasped = 1;
      tf_robot_payload(r, p->body, p->mass);
      tf_robot_target(r, pos, quat);
      pos[2] += LIFT_HEIGHT;
      tf_robot_move(r, m, d, pos, quat, length_of(s, TF_ROBOT_LIFT));
      break;
    case TF_ROBOT_CARRY:
      // the pick (when there was one) lifted the part off its stand by half the lift or more
      s->lifted = s->weld || x[2] - s->lifted_from > 0.5 * LIFT_HEIGHT;
      if (!s->grasped) {  // weld: the grasp is the build's
        part_in_hand(s, r, m, d, s->grasp_pos, s->grasp_quat);
        s->grasped = 1;
      }
      place(s, r, m, d, p->carry, length_of(s, TF_ROBOT_CARRY));
      break;
    case TF_ROBOT_ALIGN:
      place(s, r, m, d, p->align, s->align_move);
      break;
    case TF_ROBOT_INSERT:
      s->align_error = hypot(x[0] - p->seat[0], x[1] - p->seat[1]);
      place(s, r, m, d, -p->push, length_of(s, TF_ROBOT_INSERT));
      break;
    case TF_ROBOT_RELEASE:
      // hold where the arm is (not where it was pushing to), let go of the part's weight
      tf_robot_payload(r, -1, 0);
      tf_kinematics(m, d);
      tf_robot_tcp(r, m, d, pos, quat);
      tf_robot_move_from_here(r, m, d, pos, quat, 0);
      tf_robot_grip(r, d, MAX_OPENING);
      break;
    case TF_ROBOT_RETREAT:
      tf_robot_target(r, pos, quat);
      pos[2] += RETREAT_HEIGHT;
      tf_robot_move(r, m, d, pos, quat, length_of(s, TF_ROBOT_RETREAT));
      break;
    default:
      break;
  }
}

// the align phase's stillness: the target follows the part's lateral error from its seat's
// axis, a fraction a step (an integrator on what the camera sees)
static void fine_align(tf_robot_script* s, tf_robot* r, const tf_model* m, tf_data* d) {
  const tf_robot_part* p = &s->part;
  const double* x = d->xpos + 3 * p->body;
  double pos[3], quat[4];
  tf_robot_target(r, pos, quat);
  // the slower controllers get a slower loop: its rate stays under their bandwidth
  double gain = p->fine_gain / (s->pace * s->pace);
  for (int k = 0; k < 2; k++) pos[k] += gain * (p->seat[k] - x[k]);
  tf_robot_move(r, m, d, pos, quat, 0);
}

// the phases whose time has come, the close's grip and the align's fine loop (no arm step)
void tf_robot_script_plan(tf_robot_script* s, tf_robot* r, const tf_model* m, tf_data* d) {
  double t = d->time, half_step = 0.5 * m->opt.timestep;
  // enter every phase whose start has come; a phase of zero length is skipped
  while (s->phase + 1 < TF_ROBOT_NPHASE && t + half_step >= s->phase_start[s->phase + 1]) {
    s->phase++;
    if (s->phase == TF_ROBOT_LIFT) s->lifted_from = d->xpos[3 * s->part.body + 2];
    int skipped = length_of(s, s->phase) <= 0 && s->phase != TF_ROBOT_DONE;
    if (!skipped) enter_phase(s, r, m, d);
  }
  if (s->phase == TF_ROBOT_CLOSE) {
    // close at about the fingers' rated speed onto the part, then squeeze at the force limit
    double u = (t - s->phase_start[TF_ROBOT_CLOSE]) / (SQUEEZE_AT * length_of(s, TF_ROBOT_CLOSE));
    double touch = s->part.width - TOUCH_MARGIN;
    tf_robot_grip(r, d, u < 1 ? MAX_OPENING + u * (touch - MAX_OPENING) : 0);
  }
  if (s->phase == TF_ROBOT_ALIGN && s->part.fine_gain > 0 &&
      t + half_step >= s->phase_start[TF_ROBOT_ALIGN] + s->align_move) {
    fine_align(s, r, m, d);
  }
}

void tf_robot_script_control(tf_robot_script* s, tf_robot* r, const tf_model* m, tf_data* d) {
  tf_robot_script_plan(s, r, m, d);
  tf_robot_step(r, m, d);
}

void tf_robot_script_observe(tf_robot_script* s, const tf_robot* r, const tf_model* m,
                             const tf_data* d) {
  if (!s->grasped || s->phase >= TF_ROBOT_RELEASE) return;
  double pos[3], quat[4];
  part_in_hand(s, r, m, d, pos, quat);
  double dx = pos[0] - s->grasp_pos[0], dy = pos[1] - s->grasp_pos[1],
         dz = pos[2] - s->grasp_pos[2];
  s->slip = fmax(s->slip, sqrt(dx * dx + dy * dy + dz * dz));
}

void tf_robot_script_metrics(const tf_robot_script* s, const tf_robot* r, tf_metrics* out) {
  tf_metrics_set_bool(out, "robot.lifted", s->lifted);
  tf_metrics_set(out, "robot.grasp_slip_max", s->slip);
  tf_metrics_set(out, "robot.align_error_max", s->align_error);
  tf_metrics_set_int(out, "robot.ik_failures", r->ik_failed);
}

void tf_robot_script_why(const tf_robot_script* s, const tf_robot* r, double t, double end,
                         char why[TF_METRIC_TEXT_LEN]) {
  static const char* name[TF_ROBOT_NPHASE] = {
      [TF_ROBOT_APPROACH] = "approach", [TF_ROBOT_DESCEND] = "descend",
      [TF_ROBOT_CLOSE] = "close",       [TF_ROBOT_LIFT] = "lift",
      [TF_ROBOT_CARRY] = "carry",       [TF_ROBOT_ALIGN] = "align",
      [TF_ROBOT_INSERT] = "insert",     [TF_ROBOT_RELEASE] = "release",
      [TF_ROBOT_RETREAT] = "retreat",   [TF_ROBOT_DONE] = "done"};
  // the carry's entry judges the lift
  if (s->phase >= TF_ROBOT_CARRY && !s->lifted) tf_why_add(why, "the pick did not lift the part");
  if (s->phase < TF_ROBOT_DONE) {
    const char* phase = s->phase < 0 ? "start" : name[s->phase];
    if (isfinite(end)) {
      tf_why_add(why, "run ended at %.2f s in the %s phase, before the script's end (%.2f s)", t,
                 phase, end);
    } else {
      tf_why_add(why, "run ended at %.2f s in the %s phase, before the script's end", t, phase);
    }
  }
  if (r->ik_failed > 0) tf_why_add(why, "IK missed %d segments", r->ik_failed);
}
