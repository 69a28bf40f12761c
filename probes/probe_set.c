// The probe set of one environment: reads tf_data after each physics step (throughput,
// contacts, solver, divergence) and after each control step (tunnel, overlap, gear slip) and
// feeds the pure cores.
//
// Overlap. Each measured side's samples p_i (geom frame of part A) go to world through A's
// pose and into part B's SDF phi_B. An SDF is 1-Lipschitz, so a sample whose value was v at
// B-frame position x_0 still has phi_B(x) >= v - |x - x_0|: while that bound stays above the
// contact threshold the sample cannot be the step's deepest and is not evaluated again. A
// grid interpolant is within its error bound e of a true distance, so its bound loses 2 e,
// which the threshold adds. The step's deepest value is the minimum over evaluated values and
// bounds: whenever a step is in contact, the samples that decide it were all evaluated.
// Samples are looked at in spatial clusters, each skipped whole while a bound of its own
// proves it clear (probe_overlap_clusters.c).
//
// Gear angles. A gear's turn about its world axis is the twist part of its rotation (the
// swing-twist split): the incremental rotation dq = q_now q_prev^-1 between two control steps
// has twist angle 2 atan2(dq_v . axis, dq_w), wrapped to (-pi, pi], and the angles are the
// running sums of those increments, so whole turns are counted without a branch cut. A gear
// may turn less than half a turn per control step (else it aliases, as any sampled angle).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_message.h"

#include "probes.h"

static const double pi = 3.14159265358979323846264338327950288;

// a sampled window longer than this many control steps is a spec error, not a memory request
#define MAX_WINDOW_STEPS 10000000L

void tf_probe_spec_default(tf_probe_spec* spec) {
  memset(spec, 0, sizeof(*spec));
  spec->tunnel_body = 0;
  spec->axis[2] = -1;
  spec->through_m = 2e-3;
  spec->flythrough_m = 5e-3;
  spec->noverlap = 0;
  spec->contact_m = 1e-6;
  spec->ngear = 0;
  for (int g = 0; g < TF_PROBE_MAX_GEARS; g++) {
    spec->gear_axis[g][2] = 1;
    spec->gear_sign[g] = 1;
  }
  spec->slip_t0 = 0.2;
  spec->ratio_window = 1;
  spec->min_input_turn = 0.5;
  spec->runaway_speed = 1e3;
}

// scales v to unit length; 0 when it has none to scale
static int normalise(double v[3]) {
  double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (!(n > 0) || !isfinite(n)) return 0;
  for (int k = 0; k < 3; k++) v[k] /= n;
  return 1;
}

// the error bound of the SDF geom g carries (the caller checked it has one)
static double sdf_error_of(const tf_model* m, int g) {
  return m->sdf_error_bound[m->geom_sdfid[g]];
}

// checks the tunnel and gear parts of s->spec, normalising their axes in place
static int check_tunnel_and_gears(tf_probe_set* s, const tf_model* m, double control_dt, char* err,
                                  size_t errlen) {
  tf_probe_spec* sp = &s->spec;
  if (sp->tunnel_body < 0 || sp->tunnel_body >= m->nbody) {
    return tf_fail(err, errlen, "probes: tunnel body %d is not a body of the model (0..%d)",
                   sp->tunnel_body, m->nbody - 1);
  }
  if (sp->tunnel_body > 0 && !normalise(sp->axis)) {
    return tf_fail(err, errlen, "probes: the tunnel's insertion axis is zero");
  }
  if (sp->ngear < 0 || sp->ngear == 1 || sp->ngear > TF_PROBE_MAX_GEARS) {
    return tf_fail(err, errlen, "probes: %d gears; a gear probe needs 2 to %d", sp->ngear,
                   TF_PROBE_MAX_GEARS);
  }
  if (sp->ngear == 0) return 0;
  if (!(control_dt > 0) || !(sp->ratio_window > 0)) {
    return tf_fail(err, errlen, "probes: the gear probe needs a positive control step and window");
  }
  for (int g = 0; g < sp->ngear; g++) {
    if (sp->gear_body[g] < 1 || sp->gear_body[g] >= m->nbody) {
      return tf_fail(err, errlen, "probes: gear %d: body %d is not a moving body", g,
                     sp->gear_body[g]);
    }
    if (!normalise(sp->gear_axis[g])) return tf_fail(err, errlen, "probes: gear %d: zero axis", g);
    if (sp->gear_teeth[g] < 1) {
      return tf_fail(err, errlen, "probes: gear %d: %d teeth", g, sp->gear_teeth[g]);
    }
    if (sp->gear_sign[g] != 1 && sp->gear_sign[g] != -1) {
      return tf_fail(err, errlen, "probes: gear %d: sign %d is not +1 or -1", g, sp->gear_sign[g]);
    }
  }
  if (sp->gear_sign[0] != 1) return tf_fail(err, errlen, "probes: the driving gear's sign is -1");
  return 0;
}

// checks the overlap pairs and lays out the sample cache; returns the number of samples
// measured, or -1
static long plan_overlap(tf_probe_set* s, const tf_model* m, double* floor, char* err,
                         size_t errlen) {
  const tf_probe_spec* sp = &s->spec;
  *floor = 0;
  if (sp->noverlap < 0 || sp->noverlap > TF_PROBE_MAX_OVERLAP) {
    return tf_fail(err, errlen, "probes: %d overlap pairs; at most %d", sp->noverlap,
                   TF_PROBE_MAX_OVERLAP);
  }
  long total = 0;
  for (int k = 0; k < sp->noverlap; k++) {
    int measured = 0;
    for (int side = 0; side < 2; side++) {
      const tf_probe_surface* a = &sp->overlap[k][side];
      const tf_probe_surface* b = &sp->overlap[k][1 - side];
      if (a->geom < 0 || a->geom >= m->ngeom) {
        return tf_fail(err, errlen, "probes: overlap pair %d: geom %d is not a geom of the model",
                       k, a->geom);
      }
      if (a->npoint < 0 || (a->npoint > 0 && !a->points) || !(a->floor >= 0)) {
        return tf_fail(err, errlen,
                       "probes: overlap pair %d side %d: bad samples (%d points, "
                       "floor %g)",
                       k, side, a->npoint, a->floor);
      }
      if (b->geom >= 0 && b->geom < m->ngeom && b->geom == a->geom) {
        return tf_fail(err, errlen, "probes: overlap pair %d: both sides are geom %d", k, a->geom);
      }
      if (a->npoint == 0 || b->geom < 0 || b->geom >= m->ngeom || !tf_geom_has_sdf(m, b->geom)) {
        continue;
      }
      s->overlap_cache_adr[k][side] = (int)total;
      total += a->npoint;
      double e = sdf_error_of(m, b->geom);
      s->sdf_error = fmax(s->sdf_error, e);
      *floor = fmax(*floor, a->floor + e);
      measured = 1;
    }
    // a pair that measures nothing would report "never in contact": a silent pass
    if (!measured) {
      return tf_fail(err, errlen,
                     "probes: overlap pair %d: no side has samples and an SDF on the "
                     "other side (geoms %d, %d)",
                     k, sp->overlap[k][0].geom, sp->overlap[k][1].geom);
    }
  }
  if (total > 0x7fffffffL) return tf_fail(err, errlen, "probes: %ld overlap samples", total);
  return total;
}

int tf_probes_init(tf_probe_set* s, const tf_model* m, const tf_probe_spec* spec, double control_dt,
                   char* err, size_t errlen) {
  memset(s, 0, sizeof(*s));
  s->spec = *spec;
  s->solver_warn_prev = -1;
  for (int k = 0; k < TF_PROBE_MAX_OVERLAP; k++) {
    s->overlap_cache_adr[k][0] = s->overlap_cache_adr[k][1] = -1;
  }
  tf_probe_spec* sp = &s->spec;
  if (check_tunnel_and_gears(s, m, control_dt, err, errlen)) return -1;
  if (!(sp->runaway_speed > 0)) {
    return tf_fail(err, errlen, "probes: runaway speed %g is not positive", sp->runaway_speed);
  }
  double floor = 0;
  long nsample = plan_overlap(s, m, &floor, err, errlen);
  if (nsample < 0) return -1;

  if (nsample > 0) {
    s->overlap_cache = malloc(sizeof(double) * 4 * (size_t)nsample);
    if (!s->overlap_cache) return tf_fail(err, errlen, "probes: out of memory");
    // NaN values: nothing evaluated yet, so the first step evaluates every sample
    for (long i = 0; i < 4 * nsample; i++) s->overlap_cache[i] = NAN;
    if (tf_overlap_clusters_build(s, nsample, err, errlen)) {
      tf_probes_free(s);
      return -1;
    }
  }
  if (sp->ngear > 0) {
    double steps = ceil(sp->ratio_window / control_dt - 1e-9);
    if (!(steps <= (double)MAX_WINDOW_STEPS)) {
      tf_probes_free(s);
      return tf_fail(err, errlen, "probes: a %g s ratio window is %g control steps of %g s",
                     sp->ratio_window, steps, control_dt);
    }
    if (tf_gear_slip_init(&s->gear_slip, sp->ngear, sp->gear_teeth, sp->gear_sign, sp->slip_t0,
                          sp->ratio_window, sp->min_input_turn, (long)steps)) {
      tf_probes_free(s);
      return tf_fail(err, errlen, "probes: out of memory");
    }
  }
  tf_tunnel_init(&s->tunnel, sp->through_m, sp->flythrough_m);
  tf_overlap_init(&s->overlap, sp->contact_m, floor);
  tf_contacts_init(&s->contacts);
  tf_solver_probe_init(&s->solver);
  tf_divergence_init(&s->divergence, sp->runaway_speed);
  tf_throughput_init(&s->throughput);
  return 0;
}

// the larger of two values, NaN when either is (fmax would hide a NaN residual)
static double max_or_nan(double a, double b) {
  if (isnan(a) || isnan(b)) return NAN;
  return a > b ? a : b;
}

void tf_probes_observe_step(tf_probe_set* s, const tf_model* m, const tf_data* d, double wall,
                            int step_failed) {
  // a refused step left the state (and its time) where it was
  tf_throughput_observe(&s->throughput, step_failed ? 0.0 : m->opt.timestep, wall, d->timer);

  int overflow = d->ncon_wanted - d->ncon;
  tf_contacts_observe(&s->contacts, d->ncon, d->ncon_candidates, d->ncon_dropped,
                      overflow > 0 ? overflow : 0);
  tf_contacts_observe_pairs(&s->contacts, d->npair_searched, d->npair_recalled);

  // the engine counts capped solves since reset: this step capped when the count grew. On
  // the first step the count's history is unknown, so its first occurrence must be this step
  int warn = d->warning[TF_WARN_SOLVER];
  int capped = s->solver_warn_prev < 0 ? warn > 0 && d->warning_step[TF_WARN_SOLVER] >= d->nstep - 1
                                       : warn > s->solver_warn_prev;
  s->solver_warn_prev = warn;
  tf_solver_probe_observe(&s->solver, d->nefc, d->solver_iterations,
                          max_or_nan(d->solver_primal, d->solver_dual), capped);

  int finite = 1;
  double speed = 0;
  for (int i = 0; i < m->nq; i++) finite &= isfinite(d->qpos[i]) != 0;
  for (int i = 0; i < m->nv; i++) {
    finite &= isfinite(d->qvel[i]) != 0;
    speed = fmax(speed, fabs(d->qvel[i]));
  }
  tf_divergence_observe(&s->divergence, s->divergence.nstep, d->time, speed, finite, step_failed);
}

// advances each gear's unwrapped angle by the twist of its rotation since the last call
static void unwrap_gears(tf_probe_set* s, const tf_data* d) {
  const tf_probe_spec* sp = &s->spec;
  int first = s->gear_slip.nstep == 0;
  for (int g = 0; g < sp->ngear; g++) {
    const double* q = d->xquat + 4 * sp->gear_body[g];
    double* p = s->gear_quat_prev[g];
    if (!first) {
      // dq = q p^-1: w = q_w p_w + q_v . p_v, v = p_w q_v - q_w p_v - q_v x p_v
      double w = q[0] * p[0] + q[1] * p[1] + q[2] * p[2] + q[3] * p[3];
      double v[3] = {
          p[0] * q[1] - q[0] * p[1] - (q[2] * p[3] - q[3] * p[2]),
          p[0] * q[2] - q[0] * p[2] - (q[3] * p[1] - q[1] * p[3]),
          p[0] * q[3] - q[0] * p[3] - (q[1] * p[2] - q[2] * p[1]),
      };
      const double* axis = sp->gear_axis[g];
      double twist = 2 * atan2(v[0] * axis[0] + v[1] * axis[1] + v[2] * axis[2], w);
      // q and -q are one rotation: the twist of either is the same angle modulo 2 pi
      if (twist > pi) twist -= 2 * pi;
      if (twist <= -pi) twist += 2 * pi;
      s->gear_angle[g] += twist;
    }
    for (int k = 0; k < 4; k++) p[k] = q[k];
  }
}

void tf_probes_observe_control(tf_probe_set* s, const tf_model* m, const tf_data* d) {
  const tf_probe_spec* sp = &s->spec;
  s->throughput.ncontrol++;
  if (sp->tunnel_body > 0) {
    const double* pos = d->xpos + 3 * sp->tunnel_body;
    double depth = 0;
    for (int k = 0; k < 3; k++) depth -= (pos[k] - sp->seat[k]) * sp->axis[k];
    tf_tunnel_observe(&s->tunnel, depth, pos);
  }
  if (sp->noverlap > 0) {
    double pair[TF_PROBE_MAX_OVERLAP];
    tf_overlap_observe(&s->overlap, tf_overlap_deepest(s, m, d, pair));
    for (int k = 0; k < sp->noverlap; k++) {
      if (-pair[k] > s->overlap_pair_peak[k]) s->overlap_pair_peak[k] = -pair[k];
      s->overlap_pair_last[k] = pair[k];
    }
  }
  if (sp->ngear > 0) {
    unwrap_gears(s, d);
    tf_gear_slip_observe(&s->gear_slip, d->time, s->gear_angle);
  }
}

void tf_probes_finish(const tf_probe_set* s, tf_metrics* out) {
  const tf_probe_spec* sp = &s->spec;
  if (sp->tunnel_body > 0) tf_tunnel_finish(&s->tunnel, out);
  if (sp->noverlap > 0) tf_overlap_finish(&s->overlap, out);
  for (int k = 0; k < sp->noverlap; k++) {
    if (!sp->overlap_name[k]) continue;
    char name[TF_METRIC_NAME];
    snprintf(name, sizeof(name), "overlap.%.24s_peak_m", sp->overlap_name[k]);
    tf_metrics_set(out, name, s->overlap_pair_peak[k]);
  }
  if (sp->ngear > 0) tf_gear_slip_finish(&s->gear_slip, out);
  tf_contacts_finish(&s->contacts, out);
  tf_solver_probe_finish(&s->solver, out);
  tf_divergence_finish(&s->divergence, out);
  tf_throughput_finish(&s->throughput, out);
}

void tf_probes_free(tf_probe_set* s) {
  tf_gear_slip_free(&s->gear_slip);
  free(s->overlap_cache);
  s->overlap_cache = NULL;
  free(s->overlap_order);
  s->overlap_order = NULL;
  free(s->overlap_cluster);
  s->overlap_cluster = NULL;
}
