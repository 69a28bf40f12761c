// The wrist turn of robot mode (see task_robot_screw.h).
#include "task_robot_screw.h"
#include "tf_math.h"

#include <math.h>
#include <string.h>

void tf_robot_screw_start(tf_robot_screw* w, const tf_robot* r, const tf_model* m, tf_data* d,
                          int body, const double axis[2], double speed, double ramp, double push) {
  memset(w, 0, sizeof(*w));
  w->axis[0] = axis[0], w->axis[1] = axis[1];
  w->speed = speed;
  w->ramp = ramp;
  w->push = push;
  w->body = body;
  w->t0 = w->t_last = d->time;
  tf_robot_target(r, w->pos0, w->quat0);
  // the grasp's height: the TCP measured against the part, not the command (which pushes)
  double tcp[3], tq[4];
  tf_kinematics(m, d);
  tf_robot_tcp(r, m, d, tcp, tq);
  w->offset = tcp[2] - d->xpos[3 * body + 2];
  w->running = 1;
}

void tf_robot_screw_update(tf_robot_screw* w, tf_robot* r, const tf_model* m, const tf_data* d) {
  if (!w->running) return;
  double t = d->time;
  // the rate at the middle of the step, so that the angle integrates the ramp exactly for a
  // linear rise
  double mid = 0.5 * (t + w->t_last) - w->t0;
  double rate = w->ramp > 0 ? w->speed * fmin(1, fmax(0, mid / w->ramp)) : w->speed;
  w->angle += rate * (t - w->t_last);
  w->t_last = t;
  // about -z by angle: a turn about +z by -angle
  double c = cos(w->angle), s = sin(w->angle);
  double turn[4] = {cos(0.5 * w->angle), 0, 0, -sin(0.5 * w->angle)};
  double rx = w->pos0[0] - w->axis[0], ry = w->pos0[1] - w->axis[1];
  double pos[3] = {w->axis[0] + c * rx + s * ry, w->axis[1] - s * rx + c * ry,
                   d->xpos[3 * w->body + 2] + w->offset - w->push};
  double quat[4];
  tf_quat_mul(quat, turn, w->quat0);
  tf_robot_move(r, m, d, pos, quat, 0);
}

void tf_robot_screw_stop(tf_robot_screw* w) { w->running = 0; }

double tf_robot_screw_turns(const tf_robot_screw* w) { return w->angle / (2 * M_PI); }
