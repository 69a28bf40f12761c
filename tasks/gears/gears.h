// The gears task's environment state (private to tasks/gears and its tests): the parsed
// configuration with this environment's perturbations, the scene, and what observe tracks.
#ifndef TF_GEARS_H
#define TF_GEARS_H

#include "gears_scene.h"
#include "seat_speed.h"

// ranges the perturbations of environments > 0 are drawn from (environment 0 has none)
#define TF_GEARS_TILT_MAX (0.2 * 3.14159265358979323846 / 180)  // rad: drop scene tilt
#define TF_GEARS_TURN_FRACTION 0.25  // a follower's turn, as a fraction of its backlash angle

typedef struct tf_gears_state {
  tf_gears_config config;
  tf_gears_scene scene;
  // gear angles about +z, unwrapped from per-step twists
  double angle[TF_GEARS_MAX];
  double quat_prev[TF_GEARS_MAX][4];
  double angle_t0[TF_GEARS_MAX];  // at the first control step at or after the probe's slip_t0
  int started;
  double wobble_max;        // rad: largest tilt of a gear that can tilt
  double shaft_offset_max;  // m: largest lateral distance of a gear's frame from its shaft axis
  double lift_max;          // m: largest height of a gear's frame above its seat (mount=shaft)
  // drop scene: the last state before the gear reached its seat
  tf_seat_speed seat;  // the drop's approach, for the seat speed
  int touched;
  double seat_speed;  // m/s: approach speed extrapolated to the seat by free fall (NaN: never)
  int substeps;       // physics steps per control step
} tf_gears_state;

// m: the deepest the teeth of a meshing pair may go into each other (the rig's success rule:
// half of each flank's gap in a centred mesh, at least 10 um)
double tf_gears_teeth_overlap_allowed(const tf_gears_config* c);

#endif  // TF_GEARS_H
