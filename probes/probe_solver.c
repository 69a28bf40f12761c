// Solver probe: iterations and residuals of the constraint solves, and how many solves hit
// the iteration cap above tolerance (their impulses are not the solution the model defines).
#include <math.h>

#include "probes.h"

void tf_solver_probe_init(tf_solver_probe* p) {
  p->nstep = p->nsolve = 0;
  p->iters_sum = 0;
  p->residual_max = 0;
  p->iters_max = 0;
  p->capped = 0;
}

void tf_solver_probe_observe(tf_solver_probe* p, int nrow, int iterations, double residual,
                             int capped) {
  p->nstep++;
  // a step without rows ran no solver: counting it would make a sparse-contact run look
  // cheap per solve
  if (nrow <= 0) return;
  p->nsolve++;
  p->iters_sum += iterations;
  if (iterations > p->iters_max) p->iters_max = iterations;
  // a NaN residual must show, so no fmax
  if (!(residual <= p->residual_max)) p->residual_max = residual;
  if (capped) p->capped++;
}

void tf_solver_probe_finish(const tf_solver_probe* p, tf_metrics* out) {
  int solved = p->nsolve > 0;
  tf_metrics_set(out, "solver.iters_mean", solved ? p->iters_sum / (double)p->nsolve : NAN);
  tf_metrics_set_int(out, "solver.iters_max", p->iters_max);
  tf_metrics_set(out, "solver.residual_max", solved ? p->residual_max : NAN);
  tf_metrics_set_int(out, "solver.capped", p->capped);
}
