// The boltnut robot-mode gate (issue 7 acceptance), asked of al at dt = 2 ms:
//
// boltnut_robot: the Panda (osc, continuous joint 7) picks the M16 nut off its stand by
//   friction across two flats, sets it on the bolt's thread start and screws it down by
//   turning its wrist, on seeds 0..9 (one environment each; every seed draws the nut's start
//   within 3 mm of the stand's centre and turned by any angle, and each arm joint within
//   +-3 deg of the ready pose). The rig's M16 parts at its defaults (mesh_sdf collider, 50 um
//   allowance, mu 0.1) with three pitches of thread. At least 9 of the 10 must end screwed
//   down (boltnut_robot.c's success: the nut's bottom face within a tenth of a pitch of the
//   plate, coaxial, upright, the turns consistent with the advance) and none may diverge. The
//   worst penetration of the true surfaces, the worst grasp slip, and the fewest and most
//   turns the nut made are reported with no limit.
//
// A seed's run stops once the script has withdrawn the arm and held for AFTER_SCRIPT (the
// turning ends when the nut is down, so the runs differ in length).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boltnut_robot.h"
#include "task_gates.h"
#include "task_robot_gate.h"

#define SEEDS 10
#define MIN_SCREWED 9
#define AFTER_SCRIPT 0.1  // s the run goes on after the script's last phase

// the script has withdrawn the arm and held AFTER_SCRIPT
static int script_done(const tf_env* env) {
  const boltnut_robot_state* s = env->state;
  const tf_robot_script* sc = &s->script;
  return sc->phase == TF_ROBOT_DONE &&
         env->data->time >= sc->phase_start[TF_ROBOT_DONE] + AFTER_SCRIPT;
}

static void run_robot(const tf_task_gate_settings* gs, tf_gate_result* r) {
  memset(r, 0, sizeof(*r));
  tf_run_options o;
  tf_run_options_default(&o);
  tf_task_gate_apply(gs, &o);
  o.task = "boltnut";
  o.mode = TF_MODE_ROBOT;
  o.physics.solver = TF_SOLVER_AL;
  o.physics.dt = 0.002;
  o.set[0].key = "size", o.set[0].value = "M16";
  o.set[1].key = "controller", o.set[1].value = "osc";
  o.set[2].key = "grasp", o.set[2].value = "friction";
  o.nset = 3;
  tf_robot_gate_seeds s = {.nseed = SEEDS,
                           .nkey = 3,
                           .max_key = {"overlap.peak_m", "robot.grasp_slip_max", "boltnut.turns"},
                           .nmin = 1,
                           .min_key = {"boltnut.turns"},
                           .stop = script_done};
  if (tf_robot_gate_run_seeds(&o, &s, r->error, sizeof(r->error))) return;
  r->diverged = s.diverged > 0;
  tf_gate_add(r, "m16.seeds_screwed", s.succeeded, MIN_SCREWED, 0);
  tf_gate_add(r, "m16.overlap_peak_max_m", s.max[0], INFINITY, 1);
  tf_gate_add(r, "m16.grasp_slip_max_m", s.max[1], INFINITY, 1);
  tf_gate_add(r, "m16.turns_min", s.min[0], -INFINITY, 0);
  tf_gate_add(r, "m16.turns_max", s.max[2], INFINITY, 1);
}

const tf_task_gate tf_gate_boltnut_robot = {
    "boltnut_robot",
    "the Panda (osc, friction grasp, continuous joint 7) picks the M16 nut off its stand and "
    "screws it down to the base by turning its wrist, al at dt 2 ms, seeds 0..9 with "
    "randomised starts: at least 9 screwed down, none diverged",
    run_robot,
};
