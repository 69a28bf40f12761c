// The pieces every policy interface shares (tasks/task_policy.c): Factory's keypoint reward
// (0.917 on target, falling with the keypoints' mean distance, blind to a turn about the
// part's axis), a part's pose in its target's frame, and a body's velocity from the joints'.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>

#include "task_policy.h"
#include "tf_math.h"

static const double origin[3] = {0, 0, 0}, identity[4] = {1, 0, 0, 0};

static void test_keypoint_reward(void** state) {
  (void)state;
  double d = -1;
  double on = tf_policy_keypoint_reward(origin, identity, origin, identity, 0.1, &d);
  assert_true(d == 0);
  assert_true(fabs(on - (1.0 / 6 + 1.0 / 4 + 1.0 / 2)) < 1e-15);
  // a turn about the axis moves no keypoint
  double turned[4], axis[3] = {0, 0, 1};
  tf_quat_from_axis_angle(turned, axis, 1.0);
  assert_true(fabs(tf_policy_keypoint_reward(origin, turned, origin, identity, 0.1, &d) - on) <
              1e-15);
  // 1 mm, 1 cm and 10 cm off: less each time; the mean distance is the offset
  double last = on;
  for (double off = 1e-3; off < 0.2; off *= 10) {
    double pos[3] = {off, 0, 0};
    double r = tf_policy_keypoint_reward(pos, identity, origin, identity, 0.1, &d);
    assert_true(fabs(d - off) < 1e-15);
    assert_true(r < last && r > 0);
    last = r;
  }
  // tilted about the frame's origin: the keypoints up the axis move, the first does not
  double tilted[4], x[3] = {1, 0, 0};
  tf_quat_from_axis_angle(tilted, x, 0.1);
  tf_policy_keypoint_reward(origin, tilted, origin, identity, 0.3, &d);
  double chord = 2 * sin(0.05);  // per metre up the axis
  assert_true(fabs(d - chord * (0 + 0.1 + 0.2 + 0.3) / 4) < 1e-12);
}

static void test_relative_pose(void** state) {
  (void)state;
  double target[3] = {1, 2, 3}, tq[4], z[3] = {0, 0, 1};
  tf_quat_from_axis_angle(tq, z, M_PI / 2);
  // the part 1 along the target's x (world y), turned as the target is
  double pos[3] = {1, 3, 3}, out[7];
  tf_policy_relative_pose(out, pos, tq, target, tq);
  assert_true(fabs(out[0] - 1) < 1e-12 && fabs(out[1]) < 1e-12 && fabs(out[2]) < 1e-12);
  assert_true(fabs(out[3] - 1) < 1e-12);
  // w >= 0 whichever sign the part's quaternion has
  double neg[4] = {-tq[0], -tq[1], -tq[2], -tq[3]};
  tf_policy_relative_pose(out, pos, neg, target, tq);
  assert_true(out[3] > 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_keypoint_reward),
      cmocka_unit_test(test_relative_pose),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
