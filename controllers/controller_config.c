// Controller configuration: defaults with units, the checks that refuse a bad config with a
// message naming the field, and the registry of controller and IK method names.
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "controller_internal.h"

int tf_ctrl_fail(char* err, size_t errlen, const char* fmt, ...) {
  if (err && errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return -1;
}

static const tf_ctrl_kind_info kinds[TF_CTRL_N] = {
    {"pd", "joint PD on min-jerk keyframes, optional gravity compensation", NEED_GRAVITY,
     tf_ctrl_pd},
    {"ik", "differential IK (pinv, transpose, dls, svd) into a joint PD",
     NEED_JACOBIAN | NEED_PINV | NEED_GRAVITY, tf_ctrl_ik},
    {"id", "joint-space inverse dynamics: M (qdd_r + Kp e + Kd de) + c", NEED_MASS | NEED_BIAS,
     tf_ctrl_id},
    {"impedance", "task-space impedance: J^T (K e - D v) + g, null-space posture",
     NEED_JACOBIAN | NEED_PINV | NEED_GRAVITY, tf_ctrl_impedance},
    {"osc", "operational-space control: J^T Lambda (Kp e - Kd v - Jdot qd) + c, posture",
     NEED_JACOBIAN | NEED_MASS | NEED_BIAS | NEED_JDOT, tf_ctrl_osc},
    {"force", "open-loop or closed-loop (P) force control of the TCP wrench",
     NEED_JACOBIAN | NEED_PINV | NEED_GRAVITY | NEED_WRENCH, tf_ctrl_force},
    {"hybrid", "hybrid force-motion: selection matrix between impedance / osc and force",
     NEED_JACOBIAN | NEED_PINV | NEED_GRAVITY | NEED_WRENCH | NEED_MASS | NEED_BIAS | NEED_JDOT,
     tf_ctrl_hybrid},
};

static const char* const ik_names[TF_IK_N] = {"pinv", "transpose", "dls", "svd"};

const tf_ctrl_kind_info* tf_ctrl_kind_info_get(tf_controller_kind kind) {
  return (kind >= 0 && kind < TF_CTRL_N) ? &kinds[kind] : NULL;
}

const char* tf_controller_kind_name(tf_controller_kind kind) {
  return (kind >= 0 && kind < TF_CTRL_N) ? kinds[kind].name : "unknown";
}

const char* tf_controller_kind_description(tf_controller_kind kind) {
  return (kind >= 0 && kind < TF_CTRL_N) ? kinds[kind].description : "";
}

int tf_controller_kind_from_name(const char* name) {
  for (int k = 0; name && k < TF_CTRL_N; k++) {
    if (strcmp(name, kinds[k].name) == 0) return k;
  }
  return -1;
}

const char* tf_ik_method_name(tf_ik_method method) {
  return (method >= 0 && method < TF_IK_N) ? ik_names[method] : "unknown";
}

int tf_ik_method_from_name(const char* name) {
  for (int k = 0; name && k < TF_IK_N; k++) {
    if (strcmp(name, ik_names[k]) == 0) return k;
  }
  return -1;
}

tf_controller_config tf_controller_config_default(tf_controller_kind kind) {
  // stiffness: libfranka's joint impedance example (N m / rad); damping (N m s / rad): its
  // values for joints 1-4, and about 1.3 x critical for the wrist's inertia here (armature
  // 0.1 kg m^2), where libfranka's 30 25 15 would overdamp it (time constant kd / kp up to
  // 0.3 s). The eighth entry repeats the wrist's for arms with one more joint
  static const double kp[NJ] = {600, 600, 600, 600, 250, 150, 50, 50};
  static const double kd[NJ] = {50, 50, 50, 50, 15, 11, 6, 6};
  tf_controller_config cfg;
  memset(&cfg, 0, sizeof(cfg));
  cfg.kind = kind;
  cfg.decimation = 1;
  cfg.gravity_compensation = 1;
  for (int i = 0; i < NJ; i++) {
    cfg.joint_kp[i] = kp[i];
    cfg.joint_kd[i] = kd[i];
    cfg.null_kp[i] = 10;
    cfg.null_kd[i] = 2;
  }
  cfg.id_kp = 400;
  cfg.id_kd = 40;
  cfg.ik_method = TF_IK_DLS;
  cfg.ik_damping = 0.05;
  cfg.ik_svd_threshold = 0.1;
  cfg.ik_length = 0.3;
  cfg.ik_gain = 1;
  cfg.ik_max_pos_error = 0.1;
  cfg.ik_max_rot_error = 0.5;
  cfg.ik_null_gain = 0;  // off: a null-space pull moves the joints, and their damping drags the TCP
  for (int k = 0; k < 6; k++) {
    int lin = k < 3;
    cfg.task_kp[k] = lin ? 1000 : 60;
    cfg.task_kd[k] = lin ? 80 : 4;
    cfg.osc_kp[k] = 400;
    cfg.osc_kd[k] = 40;
    cfg.force_kp[k] = 0.5;
    cfg.force_kd[k] = lin ? 20 : 1;
    cfg.selection[k] = 1;
  }
  // hybrid's usual split: push along z (the insertion axis), move along the rest
  if (kind == TF_CTRL_HYBRID) cfg.selection[2] = 0;
  cfg.hybrid_motion = TF_HYBRID_IMPEDANCE;
  return cfg;
}

// n gains of `field` must be finite and >= 0
static int check_gains(const char* kind, const char* field, const double* g, int n, char* err,
                       size_t errlen) {
  for (int i = 0; i < n; i++) {
    if (!(g[i] >= 0) || !isfinite(g[i])) {
      return tf_ctrl_fail(err, errlen, "controller '%s': %s[%d] must be finite and >= 0 (got %g)",
                          kind, field, i, g[i]);
    }
  }
  return 0;
}

static int check_flag(const char* kind, const char* field, int v, char* err, size_t errlen) {
  if (v != 0 && v != 1) {
    return tf_ctrl_fail(err, errlen, "controller '%s': %s must be 0 or 1 (got %d)", kind, field, v);
  }
  return 0;
}

static int check_positive(const char* kind, const char* field, double v, char* err, size_t errlen) {
  if (!(v > 0) || !isfinite(v)) {
    return tf_ctrl_fail(err, errlen, "controller '%s': %s must be finite and > 0 (got %g)", kind,
                        field, v);
  }
  return 0;
}

int tf_controller_config_check(const tf_controller_config* cfg, int njoint, char* err,
                               size_t errlen) {
  if (cfg->kind < 0 || cfg->kind >= TF_CTRL_N) {
    return tf_ctrl_fail(err, errlen,
                        "controller: kind %d is unknown (pd, ik, id, impedance, osc, force, "
                        "hybrid)",
                        (int)cfg->kind);
  }
  if (njoint < 1 || njoint > NJ) {
    return tf_ctrl_fail(err, errlen, "controller: the arm must have 1..%d joints (got %d)", NJ,
                        njoint);
  }
  const char* k = kinds[cfg->kind].name;
  if (cfg->decimation < 1 || cfg->decimation > 10000) {
    return tf_ctrl_fail(err, errlen,
                        "controller '%s': decimation must be in 1..10000 physics steps per "
                        "update (got %d)",
                        k, cfg->decimation);
  }
  if (check_flag(k, "gravity_compensation", cfg->gravity_compensation, err, errlen) ||
      check_gains(k, "joint_kp", cfg->joint_kp, njoint, err, errlen) ||
      check_gains(k, "joint_kd", cfg->joint_kd, njoint, err, errlen) ||
      check_gains(k, "id_kp", &cfg->id_kp, 1, err, errlen) ||
      check_gains(k, "id_kd", &cfg->id_kd, 1, err, errlen) ||
      check_gains(k, "task_kp", cfg->task_kp, 6, err, errlen) ||
      check_gains(k, "task_kd", cfg->task_kd, 6, err, errlen) ||
      check_gains(k, "osc_kp", cfg->osc_kp, 6, err, errlen) ||
      check_gains(k, "osc_kd", cfg->osc_kd, 6, err, errlen) ||
      check_gains(k, "null_kp", cfg->null_kp, njoint, err, errlen) ||
      check_gains(k, "null_kd", cfg->null_kd, njoint, err, errlen) ||
      check_gains(k, "force_kp", cfg->force_kp, 6, err, errlen) ||
      check_gains(k, "force_kd", cfg->force_kd, 6, err, errlen) ||
      check_flag(k, "force_feedback", cfg->force_feedback, err, errlen)) {
    return -1;
  }
  if (cfg->ik_method < 0 || cfg->ik_method >= TF_IK_N) {
    return tf_ctrl_fail(err, errlen,
                        "controller '%s': ik_method %d is unknown (pinv, transpose, dls, svd)", k,
                        (int)cfg->ik_method);
  }
  if (!(cfg->ik_damping >= 0) || !isfinite(cfg->ik_damping)) {
    return tf_ctrl_fail(err, errlen, "controller '%s': ik_damping must be finite and >= 0 (got %g)",
                        k, cfg->ik_damping);
  }
  if ((cfg->ik_method == TF_IK_DLS || cfg->ik_method == TF_IK_SVD) && cfg->kind == TF_CTRL_IK &&
      check_positive(k, "ik_damping (dls and svd need a damping)", cfg->ik_damping, err, errlen)) {
    return -1;
  }
  if (check_positive(k, "ik_svd_threshold", cfg->ik_svd_threshold, err, errlen) ||
      check_positive(k, "ik_length", cfg->ik_length, err, errlen) ||
      check_positive(k, "ik_gain", cfg->ik_gain, err, errlen) ||
      check_positive(k, "ik_max_pos_error", cfg->ik_max_pos_error, err, errlen) ||
      check_positive(k, "ik_max_rot_error", cfg->ik_max_rot_error, err, errlen)) {
    return -1;
  }
  if (!(cfg->ik_null_gain >= 0 && cfg->ik_null_gain <= 1)) {
    return tf_ctrl_fail(err, errlen, "controller '%s': ik_null_gain must be in [0, 1] (got %g)", k,
                        cfg->ik_null_gain);
  }
  for (int i = 0; i < 6; i++) {
    if (cfg->selection[i] != 0 && cfg->selection[i] != 1) {
      return tf_ctrl_fail(err, errlen,
                          "controller '%s': selection[%d] must be 0 (force) or 1 (motion) (got %g)",
                          k, i, cfg->selection[i]);
    }
  }
  if (cfg->hybrid_motion < 0 || cfg->hybrid_motion >= TF_HYBRID_N) {
    return tf_ctrl_fail(err, errlen,
                        "controller '%s': hybrid_motion %d is unknown (0 impedance, 1 osc)", k,
                        (int)cfg->hybrid_motion);
  }
  return 0;
}
