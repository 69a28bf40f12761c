// The peg robot-mode gate (issue 7 acceptance), asked of al at dt = 2 ms:
//
// peg_robot: the Panda picks the peg (50 x 100 mm steel, the rig's CRISP peg) off its stand by
//   friction and inserts it into the hole at 100 um radial clearance with the run's default
//   controller (osc), on seeds 0..9 (one environment each; every seed draws the peg's start
//   within 3 mm of the stand's centre and each arm joint within +-3 deg of the ready pose).
//   At least 9 of the 10 must end seated (the rig's success: tip within 1 mm of the hole's
//   bottom, axis within 1 deg of vertical) and none may diverge. The worst penetration of
//   peg and bore, the worst grasp slip and the mean time to seat (over the seeds that seated)
//   are reported with no limit.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peg_robot.h"
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
  o.task = "peg";
  o.mode = TF_MODE_ROBOT;
  o.physics.solver = TF_SOLVER_AL;
  o.physics.dt = 0.002;
  o.duration = tf_robot_script_length(NULL, TF_ROBOT_OSC, 0) + AFTER_SCRIPT;
  o.set[0].key = "clearance_um", o.set[0].value = "100";
  o.set[1].key = "controller", o.set[1].value = "osc";
  o.set[2].key = "grasp", o.set[2].value = "friction";
  o.nset = 3;
  tf_robot_gate_seeds s = {.nseed = SEEDS,
                           .nkey = 2,
                           .max_key = {"overlap.peak_m", "robot.grasp_slip_max"},
                           .mean_key = "robot.seat_time_s"};
  if (tf_robot_gate_run_seeds(&o, &s, r->error, sizeof(r->error))) return;
  r->diverged = s.diverged > 0;
  tf_gate_add(r, "c100.seeds_seated", s.succeeded, MIN_SEATED, 0);
  tf_gate_add(r, "c100.overlap_peak_max_m", s.max[0], INFINITY, 1);
  tf_gate_add(r, "c100.grasp_slip_max_m", s.max[1], INFINITY, 1);
  tf_gate_add(r, "c100.seat_time_mean_s", s.mean, INFINITY, 1);
}

const tf_task_gate tf_gate_peg_robot = {
    "peg_robot",
    "the Panda (osc, friction grasp) picks the peg off its stand and inserts it at 100 um "
    "clearance, al at dt 2 ms, seeds 0..9 with randomised starts: at least 9 seated, none "
    "diverged",
    run_robot,
};
