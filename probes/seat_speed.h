// The speed a part reaches its seat with, for the ghost-braking check of the tunnelling
// gates (a speculative or rim contact that brakes a part on its way in).
//
// Measured from the trajectory, not from any contact: after every control step the tracker
// keeps the part's height h above its seat and its approach speed v. The first step that
// ends with h <= touch is the one in which the part met the seat; the step before it still
// moved freely as far as the seat is concerned, so the seat speed is that state carried over
// the remaining gap by free fall, v_seat = sqrt(v^2 + 2 g max(h, 0)).
//
// Two references: the analytic sqrt(v0^2 + 2 g d), and the same measurement taken on the
// integrator's own contact-free fall (semi-implicit Euler, tf_seat_speed_free_fall). Their
// difference is the integrator's error, not braking: at dt = 10 ms and v0 = 0.5 m/s over
// 30 mm it is 2.3 %, because Euler's positions run ahead of its velocities by half a step.
// Braking is v_seat against the second reference.
#ifndef TF_SEAT_SPEED_H
#define TF_SEAT_SPEED_H

typedef struct tf_seat_speed {
  double gravity;  // m/s^2 along the approach
  double touch;    // m: this close to the seat has met it
  double prev_gap, prev_speed;
  int met;
  double speed;  // m/s; NaN until met
} tf_seat_speed;

void tf_seat_speed_init(tf_seat_speed* t, double gravity, double touch, double gap, double speed);
// after each control step: the height above the seat and the approach speed
void tf_seat_speed_observe(tf_seat_speed* t, double gap, double speed);

// the same measurement on a contact-free fall from (gap, v0) with semi-implicit Euler at
// physics step h, substeps per control step; NaN if it never arrives
double tf_seat_speed_free_fall(double v0, double gap, double gravity, double h, int substeps,
                               double touch);

#endif  // TF_SEAT_SPEED_H
