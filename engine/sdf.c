// Evaluation of signed distance fields: analytic functions directly, grids by trilinear
// interpolation with the analytic gradient of the interpolant.
#include "sdf.h"

#include <math.h>

#include "collision_stage.h"
#include "tf_math.h"

static double grid_value(const tf_sdf_view* s, int i, int j, int k) {
  return (double)
      s->grid[((size_t)k * (size_t)s->res[1] + (size_t)j) * (size_t)s->res[0] + (size_t)i];
}

// trilinear value and gradient inside the node box (p clamped to it by the caller)
static double grid_trilinear(const tf_sdf_view* s, const double p[3], double grad[3]) {
  int idx[3];
  double f[3];
  for (int a = 0; a < 3; a++) {
    double u = (p[a] - s->origin[a]) / s->cell;
    int i = (int)floor(u);
    if (i < 0) i = 0;
    if (i > s->res[a] - 2) i = s->res[a] - 2;
    idx[a] = i;
    f[a] = u - i;
  }
  double c[2][2][2];
  for (int dk = 0; dk < 2; dk++) {
    for (int dj = 0; dj < 2; dj++) {
      for (int di = 0; di < 2; di++)
        c[dk][dj][di] = grid_value(s, idx[0] + di, idx[1] + dj, idx[2] + dk);
    }
  }
  double x = f[0], y = f[1], z = f[2];
  double c00 = c[0][0][0] * (1 - x) + c[0][0][1] * x, c10 = c[0][1][0] * (1 - x) + c[0][1][1] * x;
  double c01 = c[1][0][0] * (1 - x) + c[1][0][1] * x, c11 = c[1][1][0] * (1 - x) + c[1][1][1] * x;
  double c0 = c00 * (1 - y) + c10 * y, c1 = c01 * (1 - y) + c11 * y;
  double value = c0 * (1 - z) + c1 * z;
  if (grad) {
    double dx00 = c[0][0][1] - c[0][0][0], dx10 = c[0][1][1] - c[0][1][0];
    double dx01 = c[1][0][1] - c[1][0][0], dx11 = c[1][1][1] - c[1][1][0];
    double dx0 = dx00 * (1 - y) + dx10 * y, dx1 = dx01 * (1 - y) + dx11 * y;
    grad[0] = (dx0 * (1 - z) + dx1 * z) / s->cell;
    grad[1] = ((c10 - c00) * (1 - z) + (c11 - c01) * z) / s->cell;
    grad[2] = (c1 - c0) / s->cell;
  }
  return value;
}

double tf_sdf_eval(const tf_sdf_view* s, const double p[3], double grad[3]) {
  if (s->fn) {
    // straight into the caller's gradient (once per field query), zeroed first: a function
    // that leaves it reads as a zero gradient
    double g[3];
    double* out = grad ? grad : g;
    out[0] = out[1] = out[2] = 0;
    return s->fn(s->params, p, out);
  }
  // clamp into the node box; outside it add the distance to the box along the way out
  double q[3], out[3], hi[3];
  for (int a = 0; a < 3; a++) {
    hi[a] = s->origin[a] + s->cell * (s->res[a] - 1);
    q[a] = fmin(fmax(p[a], s->origin[a]), hi[a]);
    out[a] = p[a] - q[a];
  }
  double g[3];
  double value = grid_trilinear(s, q, g);
  double away = tf_vec3_norm(out);
  if (away > 0) {
    value += away;
    if (grad) tf_vec3_scale(grad, out, 1.0 / away);
  } else if (grad) {
    tf_vec3_copy(grad, g);
  }
  return value;
}

double tf_shape_sdf(const tf_shape* s, const double world[3], double grad_world[3]) {
  double rel[3], local[3], g[3];
  tf_vec3_sub(rel, world, s->pos);
  tf_mat3_mul_vec_t(local, s->mat, rel);
  double value = tf_sdf_eval(&s->sdf, local, g);
  if (grad_world) tf_mat3_mul_vec(grad_world, s->mat, g);
  return value;
}

int tf_geom_has_sdf(const tf_model* m, int g) {
  if (g < 0 || g >= m->ngeom) return 0;
  int sdf = m->geom_sdfid[g];
  return sdf >= 0;
}

double tf_geom_sdf(const tf_model* m, const tf_data* d, int g, const double world[3],
                   double grad[3]) {
  if (!tf_geom_has_sdf(m, g)) return NAN;
  tf_shape s;
  tf_geom_shape(m, d, g, &s);
  return tf_shape_sdf(&s, world, grad);
}

void tf_geom_sdf_n(const tf_model* m, const tf_data* d, int g, int n, const double* world,
                   double* value) {
  if (!tf_geom_has_sdf(m, g)) {
    for (int i = 0; i < n; i++) value[i] = NAN;
    return;
  }
  tf_shape s;
  tf_geom_shape(m, d, g, &s);
  for (int i = 0; i < n; i++) value[i] = tf_shape_sdf(&s, world + 3 * i, NULL);
}
