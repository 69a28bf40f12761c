// The peg's pose against its seat: the tip's gap above the floor and its approach speed,
// which probes/seat_speed.h turns into the speed the peg reaches its seat with. The gap is
// the lowest point of the tip face, so a tilted peg meets the floor when its corner does.
// And the seat of the success rule, which rig and robot mode share.
#include <math.h>

#include "peg.h"

double peg_tip_gap(const peg_state* s, const tf_data* d) {
  const double* R = d->xmat + 9 * s->body;
  const double* x = d->xpos + 3 * s->body;
  double reach = 0.5 * s->cfg.diameter - s->cfg.chamfer;  // the tip face's half size
  // how far below its centre the tip face reaches: a disc by the axis's horizontal part, a
  // square by its lowest corner
  double below =
      s->cfg.square ? reach * (fabs(R[6]) + fabs(R[7])) : reach * sqrt(fmax(0, 1 - R[8] * R[8]));
  return x[2] - below + s->cfg.depth;
}

double peg_tip_speed(const peg_state* s, const tf_model* m, const tf_data* d) {
  // a free joint's linear velocity is the body frame origin's, i.e. the tip centre's
  return -d->qvel[m->body_dofadr[s->body] + 2];
}

double peg_tilt(const peg_state* s, const tf_data* d) {
  double cz = d->xmat[9 * s->body + 8];
  return acos(fmax(-1, fmin(1, cz)));
}

double peg_seat_error(const peg_state* s, const tf_data* d) {
  const double* x = d->xpos + 3 * s->body;
  double dz = x[2] + s->cfg.depth, out;
  if (s->cfg.square) {
    double ox = fmax(0, fabs(x[0]) - s->bore_half), oy = fmax(0, fabs(x[1]) - s->bore_half);
    out = sqrt(ox * ox + oy * oy);
  } else {
    out = fmax(0, hypot(x[0], x[1]) - s->bore_half);
  }
  return hypot(out, dz);
}

int peg_seated(double error, double tilt) {
  return error <= PEG_SEAT_TOLERANCE && tilt <= PEG_UPRIGHT_DEG * M_PI / 180;
}

void peg_why_seat(char why[TF_METRIC_TEXT_LEN], double error, double tilt) {
  if (!(error <= PEG_SEAT_TOLERANCE)) {
    tf_why_add(why, "not seated: tip %.2f mm from the hole's bottom > %g mm", error * 1e3,
               PEG_SEAT_TOLERANCE * 1e3);
  }
  if (!(tilt <= PEG_UPRIGHT_DEG * M_PI / 180)) {
    tf_why_add(why, "tilted %.2f deg > %g deg", tilt * 180 / M_PI, PEG_UPRIGHT_DEG);
  }
}

double peg_overlap_allowed(const peg_config* c) {
  return fmax(PEG_OVERLAP_FRACTION * c->clearance, PEG_OVERLAP_FLOOR);
}
