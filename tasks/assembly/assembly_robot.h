// The `assembly` task's robot mode, private (assembly_robot.c, docs/assemblies.md "Robot
// mode"): the file's scene set in robot mode's work cell (task_robot.h) and the Panda (or the
// run's URDF arm) picking the file's inserted part off a stand and inserting it with robot
// mode's pick-and-insert script.
//
// The cell's frame: the file's scene is shifted (not turned) so that the seat lies on the
// world's z axis, 0.55 m in front of the arm's base, and the fixed parts' highest point is at
// z = 0; the table's top is the fixed parts' lowest point. The stand, a box from the table up to
// z = 0, stands beside them at (ASMR_STAND_X, ASMR_STAND_Y), the inserted part upright on it in
// the file's orientation. The insertion must go down the world's -z (insertion.axis [0, 0, -1])
// with the part's own -z (insertion.part_axis [0, 0, -1]): the script holds a part upright
// along its own z.
#ifndef TF_TASK_ASSEMBLY_ROBOT_H
#define TF_TASK_ASSEMBLY_ROBOT_H

#include "assembly.h"
#include "task_robot.h"

#define ASMR_STAND_X 0.0  // m: the stand's centre in the cell
#define ASMR_STAND_Y 0.2

typedef struct asm_robot_state {
  asm_state a;  // first: the rig's helpers (asm_finish_rule, asm_seat_error) read it
  tf_robot robot;
  tf_robot_script script;
  tf_robot_controller controller;
  int grasp;         // TF_ROBOT_GRASP_*
  int part;          // the inserted part (the file's insertion.part)
  double shift[3];   // m: the file's frame to the cell's (added to every position)
  double stand[2];   // m: the stand's centre (x, y)
  double start[3];   // m: the inserted part's start position (cell frame)
  double grip[3];    // m: the TCP in the part's frame in the grasp
  double width;      // m: the part between the pads there
  double mass;       // kg of the inserted part
  double seat_time;  // s: first time the part was seated (NaN: never)
} asm_robot_state;

#endif  // TF_TASK_ASSEMBLY_ROBOT_H
