// The peg's pose against its seat: the tip's gap above the floor and its approach speed,
// which probes/seat_speed.h turns into the speed the peg reaches its seat with. The gap is
// the lowest point of the tip face, so a tilted peg meets the floor when its corner does.
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
