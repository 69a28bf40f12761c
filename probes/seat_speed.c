// The speed a part reaches its seat with (see seat_speed.h).
#include "seat_speed.h"

#include <math.h>

void tf_seat_speed_init(tf_seat_speed* t, double gravity, double touch, double gap, double speed) {
  t->gravity = gravity;
  t->touch = touch;
  t->prev_gap = gap;
  t->prev_speed = speed;
  t->met = 0;
  t->speed = NAN;
}

void tf_seat_speed_observe(tf_seat_speed* t, double gap, double speed) {
  if (t->met) return;
  if (gap <= t->touch) {
    t->met = 1;
    double v2 = t->prev_speed * t->prev_speed + 2 * t->gravity * fmax(t->prev_gap, 0);
    t->speed = v2 > 0 ? sqrt(v2) : 0;
    return;
  }
  t->prev_gap = gap;
  t->prev_speed = speed;
}

double tf_seat_speed_free_fall(double v0, double gap, double gravity, double h, int substeps,
                               double touch) {
  tf_seat_speed t;
  tf_seat_speed_init(&t, gravity, touch, gap, v0);
  double v = v0, y = gap;
  // ten million control steps is far beyond any approach a task sets up
  for (long c = 0; c < 10000000L && !t.met; c++) {
    for (int k = 0; k < substeps; k++) {
      v += gravity * h;
      y -= h * v;
    }
    tf_seat_speed_observe(&t, y, v);
  }
  return t.speed;
}
