// Closed-form signed distances of the primitives, in the geom frame.
//
//   sphere    |p| - r
//   capsule   |p - (0, 0, clamp(z, -h, h))| - r
//   box       q = |p| - h:  |max(q, 0)| outside, max_k q_k inside
//   cylinder  the box formula on (rho - r, |z| - h) in the (rho, z) half-plane
//   plane     z
// The gradient is the unit vector from the nearest surface point (outside) or toward the
// nearest face (inside); at the medial axis, where it is undefined, a fixed choice is made
// (lowest axis, +x, +z) so that results are deterministic.
#include "sdf_primitive.h"

#include <math.h>

#include "tf_math.h"

// +1 for non-negative values: a point on a symmetry plane takes the positive side
static double side(double x) { return x >= 0 ? 1.0 : -1.0; }

// |p| - r
static double sphere_sdf(double r, const double p[3], double g[3]) {
  double n = tf_vec3_norm(p);
  if (n > 0) {
    tf_vec3_scale(g, p, 1 / n);
  } else {
    g[0] = 0, g[1] = 0, g[2] = 1;
  }
  return n - r;
}

// distance to the segment, minus the radius
static double capsule_sdf(double r, double h, const double p[3], double g[3]) {
  double v[3] = {p[0], p[1], p[2] - fmin(fmax(p[2], -h), h)};
  double n = tf_vec3_norm(v);
  if (n > 0) {
    tf_vec3_scale(g, v, 1 / n);
  } else {
    g[0] = 1, g[1] = 0, g[2] = 0;
  }
  return n - r;
}

// exact box distance: the outside part from the positive excesses, the inside part from the
// nearest face
static double box_sdf(const double h[3], const double p[3], double g[3]) {
  double q[3], out = 0;
  int k_max = 0;
  for (int k = 0; k < 3; k++) {
    q[k] = fabs(p[k]) - h[k];
    if (q[k] > 0) out += q[k] * q[k];
    if (q[k] > q[k_max]) k_max = k;
  }
  if (out > 0) {
    double d = sqrt(out);
    for (int k = 0; k < 3; k++) g[k] = q[k] > 0 ? side(p[k]) * q[k] / d : 0;
    return d;
  }
  g[0] = g[1] = g[2] = 0;
  g[k_max] = side(p[k_max]);
  return q[k_max];
}

// the 2D box formula in (rho, z)
static double cylinder_sdf(double r, double h, const double p[3], double g[3]) {
  double rho = hypot(p[0], p[1]);
  double radial[2] = {1, 0};
  if (rho > 0) radial[0] = p[0] / rho, radial[1] = p[1] / rho;
  double dr = rho - r, dz = fabs(p[2]) - h, sz = side(p[2]);
  if (dr > 0 || dz > 0) {
    double a = fmax(dr, 0), b = fmax(dz, 0), d = hypot(a, b);
    g[0] = a * radial[0] / d, g[1] = a * radial[1] / d, g[2] = b * sz / d;
    return d;
  }
  if (dr >= dz) {
    g[0] = radial[0], g[1] = radial[1], g[2] = 0;
    return dr;
  }
  g[0] = 0, g[1] = 0, g[2] = sz;
  return dz;
}

double tf_primitive_sdf(int type, const double size[3], const double p[3], double grad[3]) {
  switch (type) {
    case TF_GEOM_PLANE:
      grad[0] = 0, grad[1] = 0, grad[2] = 1;
      return p[2];
    case TF_GEOM_SPHERE:
      return sphere_sdf(size[0], p, grad);
    case TF_GEOM_CAPSULE:
      return capsule_sdf(size[0], size[1], p, grad);
    case TF_GEOM_BOX:
      return box_sdf(size, p, grad);
    case TF_GEOM_CYLINDER:
      return cylinder_sdf(size[0], size[1], p, grad);
    default:
      grad[0] = grad[1] = grad[2] = 0;
      return INFINITY;
  }
}

void tf_primitive_aabb(double lo[3], double hi[3], int type, const double size[3]) {
  double half[3] = {INFINITY, INFINITY, INFINITY};
  switch (type) {
    case TF_GEOM_PLANE:
      for (int k = 0; k < 3; k++) lo[k] = -INFINITY, hi[k] = INFINITY;
      hi[2] = 0;
      return;
    case TF_GEOM_SPHERE:
      half[0] = half[1] = half[2] = size[0];
      break;
    case TF_GEOM_CAPSULE:
      half[0] = half[1] = size[0];
      half[2] = size[0] + size[1];
      break;
    case TF_GEOM_BOX:
      for (int k = 0; k < 3; k++) half[k] = size[k];
      break;
    case TF_GEOM_CYLINDER:
      half[0] = half[1] = size[0];
      half[2] = size[1];
      break;
    default:
      break;
  }
  for (int k = 0; k < 3; k++) lo[k] = -half[k], hi[k] = half[k];
}

double tf_hull_sdf_bound(const tf_hull_view* hull, const double p[3], double grad[3]) {
  double best = -INFINITY;
  grad[0] = 0, grad[1] = 0, grad[2] = 1;
  for (int f = 0; f < hull->nface; f++) {
    const double* pl = hull->face_plane + 4 * f;
    double d = tf_vec3_dot(pl, p) - pl[3];
    if (d > best) {
      best = d;
      tf_vec3_copy(grad, pl);
    }
  }
  return best;
}
