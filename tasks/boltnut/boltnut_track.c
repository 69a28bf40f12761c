// Tracking the nut: its turns about the bolt axis (the twist of its orientation about z,
// unwrapped step by step), its advance down the axis, and the advance per turn fitted over
// the steady part of the motion.
//
// Steady part. Advance against turns is a straight line of slope one pitch wherever the nut
// runs on one flank. Two stretches are not: the first quarter turn (the nut settles onto a
// flank, the servo spins up) and the stop at the base (the bottom face meets the head and
// the flank contact moves across the play). The fit takes the samples after the first
// quarter turn while the bottom face is at least a quarter pitch above the base, and is a
// least-squares slope, so that the ripple of a faceted collider mesh averages out.
#include <math.h>
#include <string.h>

#include "boltnut.h"

#define STEADY_START_TURNS 0.25
#define STEADY_BASE_PITCHES 0.25
#define FIT_MIN_SPAN_TURNS 0.5

// twist of q about +z (swing-twist decomposition), in (-pi, pi]
static double twist_z(const double q[4]) { return 2 * atan2(q[3], q[0]); }

void tf_boltnut_track_init(tf_boltnut_track* t, double pitch, const double pos[3],
                           const double quat[4]) {
  memset(t, 0, sizeof(*t));
  t->pitch = pitch;
  t->start_z = pos[2];
  t->height = pos[2];
  memcpy(t->start_pos, pos, sizeof(t->start_pos));
  memcpy(t->start_quat, quat, sizeof(t->start_quat));
  t->yaw_prev = twist_z(quat);
  t->fit_turn_lo = INFINITY;
  t->fit_turn_hi = -INFINITY;
  t->reach_time = NAN;
}

void tf_boltnut_track_observe(tf_boltnut_track* t, double time, const double pos[3],
                              const double quat[4]) {
  double yaw = twist_z(quat);
  // one control step turns the nut by far less than half a turn: the nearest branch is right
  t->angle -= remainder(yaw - t->yaw_prev, 2 * M_PI);
  t->yaw_prev = yaw;
  t->advance = t->start_z - pos[2];
  t->height = pos[2];
  if (isnan(t->reach_time) && pos[2] <= t->pitch) t->reach_time = time;

  // tilt: the nut's z axis against the world's, R22 = 1 - 2 (x^2 + y^2)
  double sxy = sqrt(quat[1] * quat[1] + quat[2] * quat[2]);
  double tilt = 2 * atan2(sxy, sqrt(quat[0] * quat[0] + quat[3] * quat[3]));
  t->tilt_max = fmax(t->tilt_max, tilt);
  t->lateral_max = fmax(t->lateral_max, hypot(pos[0], pos[1]));
  double dx = pos[0] - t->start_pos[0], dy = pos[1] - t->start_pos[1],
         dz = pos[2] - t->start_pos[2];
  t->moved_max = fmax(t->moved_max, sqrt(dx * dx + dy * dy + dz * dz));
  // rotation from the start: q_rel = conj(q0) q, angle 2 atan2(|v|, |w|) (exact near zero)
  const double* a = t->start_quat;
  double w = a[0] * quat[0] + a[1] * quat[1] + a[2] * quat[2] + a[3] * quat[3];
  double vx = a[0] * quat[1] - a[1] * quat[0] - a[2] * quat[3] + a[3] * quat[2];
  double vy = a[0] * quat[2] + a[1] * quat[3] - a[2] * quat[0] - a[3] * quat[1];
  double vz = a[0] * quat[3] - a[1] * quat[2] + a[2] * quat[1] - a[3] * quat[0];
  double rot = 2 * atan2(sqrt(vx * vx + vy * vy + vz * vz), fabs(w));
  t->rotated_max = fmax(t->rotated_max, rot);

  double turns = tf_boltnut_track_turns(t);
  if (fabs(turns) >= STEADY_START_TURNS && pos[2] >= STEADY_BASE_PITCHES * t->pitch) {
    t->nfit++;
    t->sx += turns;
    t->sy += t->advance;
    t->sxx += turns * turns;
    t->sxy += turns * t->advance;
    t->fit_turn_lo = fmin(t->fit_turn_lo, turns);
    t->fit_turn_hi = fmax(t->fit_turn_hi, turns);
  }
}

double tf_boltnut_track_turns(const tf_boltnut_track* t) { return t->angle / (2 * M_PI); }

double tf_boltnut_track_fit_span(const tf_boltnut_track* t) {
  return t->nfit > 0 ? t->fit_turn_hi - t->fit_turn_lo : 0;
}

double tf_boltnut_track_advance_per_turn(const tf_boltnut_track* t) {
  if (t->nfit < 2 || tf_boltnut_track_fit_span(t) < FIT_MIN_SPAN_TURNS) return NAN;
  double n = (double)t->nfit;
  double mx = t->sx / n, my = t->sy / n;
  double vxx = t->sxx / n - mx * mx, vxy = t->sxy / n - mx * my;
  return vxx > 0 ? vxy / vxx : NAN;
}
