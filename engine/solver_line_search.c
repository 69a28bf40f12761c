// The exact line search the Newton-type solvers (al, newton) share: along a descent
// direction their objectives are convex and piecewise quadratic, so the step is the root of
// the monotone derivative phi'(alpha), found by 1-D Newton kept inside a bracket (finite on
// the quadratic pieces: Newton lands on the root once in its piece).
#include <math.h>

#include "solver_util.h"

double tf_line_search_root(tf_directional_fn directional, void* ctx, double g0, int maxit) {
  double lo = 0, hi = INFINITY, alpha = 1;
  for (int it = 0; it < maxit; it++) {
    double g, gp;
    directional(ctx, alpha, &g, &gp);
    if (fabs(g) <= 1e-13 * fabs(g0)) return alpha;
    if (g < 0) {
      lo = alpha;
    } else {
      hi = alpha;
    }
    if (hi - lo <= 1e-15 * hi) break;
    double next = alpha - g / gp;
    if (!(next > lo && next < hi)) next = isinf(hi) ? 2 * lo : 0.5 * (lo + hi);
    alpha = next;
  }
  // unconverged bracket: its lower end still descends (phi' < 0 up to it)
  return lo > 0 ? lo : alpha;
}
