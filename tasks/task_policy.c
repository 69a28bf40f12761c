// Pieces every task's policy interface shares (task_policy.h): Factory's keypoint reward, a
// part's pose against its target, and a control step's overlap off the overlap probe.
#include <math.h>

#include "task_policy.h"
#include "tf_math.h"

// Factory's squashing pairs (a in 1/m, b): baseline, coarse, fine
static const double squash[3][2] = {{5, 4}, {50, 2}, {100, 0}};

double tf_policy_keypoint_reward(const double pos[3], const double quat[4],
                                 const double target_pos[3], const double target_quat[4],
                                 double span, double* distance) {
  double axis[3], target_axis[3];
  tf_quat_rotate(axis, quat, (const double[3]){0, 0, 1});
  tf_quat_rotate(target_axis, target_quat, (const double[3]){0, 0, 1});
  double sum = 0;
  for (int k = 0; k < TF_POLICY_KEYPOINTS; k++) {
    double along = span * k / (TF_POLICY_KEYPOINTS - 1), e[3];
    for (int i = 0; i < 3; i++) {
      e[i] = (pos[i] + along * axis[i]) - (target_pos[i] + along * target_axis[i]);
    }
    sum += tf_vec3_norm(e);
  }
  double d = sum / TF_POLICY_KEYPOINTS, r = 0;
  for (int k = 0; k < 3; k++) {
    double a = squash[k][0], b = squash[k][1];
    r += 1 / (exp(a * d) + b + exp(-a * d));
  }
  if (distance) *distance = d;
  return r;
}

void tf_policy_relative_pose(double out[7], const double pos[3], const double quat[4],
                             const double target_pos[3], const double target_quat[4]) {
  double inv[4], e[3] = {pos[0] - target_pos[0], pos[1] - target_pos[1], pos[2] - target_pos[2]};
  tf_quat_conj(inv, target_quat);
  tf_quat_rotate(out, inv, e);
  tf_quat_mul(out + 3, inv, quat);
  tf_quat_normalize(out + 3);
  // q and -q are one rotation: the one with w >= 0, so the observation does not flip
  if (out[3] < 0) {
    for (int k = 3; k < 7; k++) out[k] = -out[k];
  }
}

double tf_policy_overlap_step(const tf_probe_set* probes, long ncontact_before, double sum_before) {
  // the probe adds a step's depth to its sum only when the step was in contact
  if (probes->spec.noverlap <= 0 || probes->overlap.ncontact == ncontact_before) return 0;
  return fmax(0, probes->overlap.sum - sum_before);
}
