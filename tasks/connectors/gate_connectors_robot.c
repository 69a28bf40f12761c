// The connectors robot-mode gate (issue 7 acceptance), asked of al at dt = 2 ms:
//
// connectors_robot: the Panda picks the DisplayPort-like plug off its rack by the overmold
//   (friction grasp) and seats it in the socket at 100 um clearance a side with the run's
//   default controller (osc), on seeds 0..9 (one environment each; every seed draws the plug's
//   start within 3 mm along the rack and each arm joint within +-3 deg of the ready pose). At
//   least 9 of the 10 must succeed (the rig's definition: the mating face within 0.2 mm of the
//   floor, the overlap probe's peak under 50 um) and none may diverge. The worst overlap, the
//   worst lateral error before inserting and the mean time to seat (over the seeds that
//   seated) are reported with no limit.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connectors_robot.h"
#include "task_gates.h"
#include "task_robot_gate.h"

#define SEEDS 10
#define MIN_SEATED 9
#define AFTER_SCRIPT 0.15  // s the run goes on after the script's last phase

static void run_robot(const tf_task_gate_settings* gs, tf_gate_result* r) {
  memset(r, 0, sizeof(*r));
  tf_run_options o;
  tf_run_options_default(&o);
  tf_task_gate_apply(gs, &o);
  o.task = "connectors";
  o.mode = TF_MODE_ROBOT;
  o.physics.solver = TF_SOLVER_AL;
  o.physics.dt = 0.002;
  o.duration = connectors_robot_script_length(TF_ROBOT_OSC, TF_ROBOT_GRASP_FRICTION) + AFTER_SCRIPT;
  o.set[0].key = "type", o.set[0].value = "dp";
  o.set[1].key = "clearance_um", o.set[1].value = "100";
  o.set[2].key = "controller", o.set[2].value = "osc";
  o.set[3].key = "grasp", o.set[3].value = "friction";
  o.nset = 4;
  tf_robot_gate_seeds s = {.nseed = SEEDS,
                           .nkey = 2,
                           .max_key = {"overlap.peak_m", "robot.align_error_max"},
                           .mean_key = "connectors.seat_time_s"};
  if (tf_robot_gate_run_seeds(&o, &s, r->error, sizeof(r->error))) return;
  r->diverged = s.diverged > 0;
  tf_gate_add(r, "dp.seeds_succeeded", s.succeeded, MIN_SEATED, 0);
  tf_gate_add(r, "dp.overlap_peak_max_m", s.max[0], INFINITY, 1);
  tf_gate_add(r, "dp.align_error_max_m", s.max[1], INFINITY, 1);
  tf_gate_add(r, "dp.seat_time_mean_s", s.mean, INFINITY, 1);
}

const tf_task_gate tf_gate_connectors_robot = {
    "connectors_robot",
    "the Panda (osc, friction grasp) picks the DisplayPort-like plug off its rack and seats it "
    "at 100 um clearance, al at dt 2 ms, seeds 0..9 with randomised starts: at least 9 "
    "succeed (seated, overlap under 50 um), none diverged",
    run_robot,
};
