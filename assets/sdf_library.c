// Exact primitive SDFs and CSG trees over a flat node array (see sdf_library.h for the math of
// the CSG bounds).
//
// Primitive formulas, with q the point in the node frame:
//   box: u = |q| - b (per axis); outside (some u > 0) d = |max(u, 0)|, gradient
//     sign(q) max(u, 0) / d; inside d = max(u), gradient along that axis.
//   rounded box: box(b - r) - r (the Minkowski sum of the inner box and a ball is exact).
//   cylinder, prism: the extrusion of an exact 2D distance d2 over z in [-h, h]:
//     dz = |z| - h; both > 0: sqrt(d2^2 + dz^2), else max(d2, dz) (exact, the nearest point is
//     on the wall, on a cap, or on their edge).
//   convex polygon (prism section): outside, the distance to the nearest edge segment; inside,
//     the largest signed distance to the edge lines (exact for a convex polygon); grown by r.
//   capsule: distance to the segment minus r. torus: |(|q_xy| - R, z)| - r.
// Gradients at the few points where the distance is not differentiable (the centre of a sphere,
// the axis of a torus) pick a fixed unit direction so they stay unit length.
#include "sdf_library.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// sign that maps 0 to +1 (a gradient must have a direction)
static double sgn(double x) { return x < 0 ? -1.0 : 1.0; }

// the identity rotation (row-major)
static void identity(double rot[9]) {
  memset(rot, 0, 9 * sizeof(double));
  rot[0] = rot[4] = rot[8] = 1;
}

// a node with no operands and an identity transform
static tf_sdf_node blank(tf_sdf_type type) {
  tf_sdf_node n;
  memset(&n, 0, sizeof(n));
  n.type = type;
  n.child[0] = n.child[1] = -1;
  identity(n.rot);
  return n;
}

// primitive constructors: the parameters in the node, an identity placement
tf_sdf_node tf_sdf_sphere(double radius) {
  tf_sdf_node n = blank(TF_SDF_SPHERE);
  n.param[0] = radius;
  return n;
}

tf_sdf_node tf_sdf_box(const double half[3]) {
  tf_sdf_node n = blank(TF_SDF_BOX);
  for (int k = 0; k < 3; k++) n.param[k] = half[k];
  return n;
}

tf_sdf_node tf_sdf_rounded_box(const double half[3], double radius) {
  tf_sdf_node n = blank(TF_SDF_ROUNDED_BOX);
  for (int k = 0; k < 3; k++) n.param[k] = half[k];
  n.param[3] = radius;
  return n;
}

tf_sdf_node tf_sdf_cylinder(double radius, double half_height) {
  tf_sdf_node n = blank(TF_SDF_CYLINDER);
  n.param[0] = radius;
  n.param[1] = half_height;
  return n;
}

tf_sdf_node tf_sdf_capsule(double radius, double half_length) {
  tf_sdf_node n = blank(TF_SDF_CAPSULE);
  n.param[0] = radius;
  n.param[1] = half_length;
  return n;
}

tf_sdf_node tf_sdf_torus(double major, double minor) {
  tf_sdf_node n = blank(TF_SDF_TORUS);
  n.param[0] = major;
  n.param[1] = minor;
  return n;
}

tf_sdf_node tf_sdf_prism(const double xy[][2], int nvert, double radius, double half_height) {
  tf_sdf_node n = blank(TF_SDF_PRISM);
  if (nvert < 0) nvert = 0;
  if (nvert > TF_SDF_PRISM_MAXVERT) nvert = TF_SDF_PRISM_MAXVERT + 1;  // rejected by check
  n.nvert = nvert;
  n.param[0] = half_height;
  n.param[1] = radius;
  for (int i = 0; i < nvert && i < TF_SDF_PRISM_MAXVERT; i++) {
    n.param[2 + 2 * i] = xy[i][0];
    n.param[3 + 2 * i] = xy[i][1];
  }
  return n;
}

// a CSG node over two earlier nodes
tf_sdf_node tf_sdf_csg(tf_sdf_type op, int a, int b) {
  tf_sdf_node n = blank(op);
  n.child[0] = a;
  n.child[1] = b;
  return n;
}

// the rotation matrix of a (not necessarily unit) quaternion, scaled by 2 / |q|^2
void tf_sdf_node_place(tf_sdf_node* node, const double pos[3], const double quat[4]) {
  if (pos) memcpy(node->pos, pos, 3 * sizeof(double));
  if (!quat) return;
  double w = quat[0], x = quat[1], y = quat[2], z = quat[3];
  double s = w * w + x * x + y * y + z * z;
  s = s > 0 ? 2 / s : 0;
  double* r = node->rot;
  r[0] = 1 - s * (y * y + z * z), r[1] = s * (x * y - w * z), r[2] = s * (x * z + w * y);
  r[3] = s * (x * y + w * z), r[4] = 1 - s * (x * x + z * z), r[5] = s * (y * z - w * x);
  r[6] = s * (x * z - w * y), r[7] = s * (y * z + w * x), r[8] = 1 - s * (x * x + y * y);
}

// ---------------------------------------------------------------- primitives

// the exact extrusion of a 2D distance (d2, its gradient g2) over z in [-h, h]
static double extrude(double d2, const double g2[2], double z, double h, double grad[3]) {
  double dz = fabs(z) - h, sz = sgn(z);
  if (d2 > 0 && dz > 0) {
    double d = sqrt(d2 * d2 + dz * dz);
    grad[0] = g2[0] * d2 / d, grad[1] = g2[1] * d2 / d, grad[2] = sz * dz / d;
    return d;
  }
  if (d2 >= dz) {
    grad[0] = g2[0], grad[1] = g2[1], grad[2] = 0;
    return d2;
  }
  grad[0] = grad[1] = 0, grad[2] = sz;
  return dz;
}

// distance to the origin minus r; the +z direction at the centre
static double sphere(const double* prm, const double q[3], double g[3]) {
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
  if (n > 0) {
    for (int k = 0; k < 3; k++) g[k] = q[k] / n;
  } else {
    g[0] = g[1] = 0, g[2] = 1;
  }
  return n - prm[0];
}

// exact box of half-sizes b
static double box(const double b[3], const double q[3], double g[3]) {
  double u[3], out[3], outside = 0;
  int axis = 0;
  for (int k = 0; k < 3; k++) {
    u[k] = fabs(q[k]) - b[k];
    out[k] = u[k] > 0 ? u[k] : 0;
    outside += out[k] * out[k];
    if (u[k] > u[axis]) axis = k;
  }
  if (outside > 0) {
    double d = sqrt(outside);
    for (int k = 0; k < 3; k++) g[k] = sgn(q[k]) * out[k] / d;
    return d;
  }
  g[0] = g[1] = g[2] = 0;
  g[axis] = sgn(q[axis]);
  return u[axis];
}

// the inner box grown by r (exact Minkowski sum)
static double rounded_box(const double* prm, const double q[3], double g[3]) {
  double inner[3] = {prm[0] - prm[3], prm[1] - prm[3], prm[2] - prm[3]};
  return box(inner, q, g) - prm[3];
}

// unit radial direction of q in the xy plane (x axis on the z axis) and its length
static double radial(const double q[3], double u[2]) {
  double rho = sqrt(q[0] * q[0] + q[1] * q[1]);
  if (rho > 0) {
    u[0] = q[0] / rho, u[1] = q[1] / rho;
  } else {
    u[0] = 1, u[1] = 0;
  }
  return rho;
}

// a disc of radius r extruded over [-h, h]
static double cylinder(const double* prm, const double q[3], double g[3]) {
  double u[2];
  double d2 = radial(q, u) - prm[0];
  return extrude(d2, u, q[2], prm[1], g);
}

// distance to the segment on the z axis minus r
static double capsule(const double* prm, const double q[3], double g[3]) {
  double c = q[2] > prm[1] ? prm[1] : q[2] < -prm[1] ? -prm[1] : q[2];
  double v[3] = {q[0], q[1], q[2] - c};
  double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (n > 0) {
    for (int k = 0; k < 3; k++) g[k] = v[k] / n;
  } else {
    g[0] = 1, g[1] = g[2] = 0;
  }
  return n - prm[0];
}

// distance to the core circle minus r
static double torus(const double* prm, const double q[3], double g[3]) {
  double u[2];
  double a = radial(q, u) - prm[0], b = q[2];
  double n = sqrt(a * a + b * b);
  if (n > 0) {
    g[0] = u[0] * a / n, g[1] = u[1] * a / n, g[2] = b / n;
  } else {
    g[0] = u[0], g[1] = u[1], g[2] = 0;
  }
  return n - prm[1];
}

// exact 2D distance to a convex counter-clockwise polygon and its gradient
static double convex_polygon(const double* xy, int n, const double p[2], double g[2]) {
  double inside = -INFINITY, best = INFINITY;
  double gin[2] = {1, 0}, gout[2] = {1, 0};
  for (int i = 0; i < n; i++) {
    const double* a = xy + 2 * i;
    const double* b = xy + 2 * ((i + 1) % n);
    double ex = b[0] - a[0], ey = b[1] - a[1];
    double len2 = ex * ex + ey * ey, len = sqrt(len2);
    double nx = ey / len, ny = -ex / len;  // outward for counter-clockwise order
    double px = p[0] - a[0], py = p[1] - a[1];
    double s = px * nx + py * ny;
    if (s > inside) inside = s, gin[0] = nx, gin[1] = ny;
    double t = (px * ex + py * ey) / len2;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double dx = px - t * ex, dy = py - t * ey;
    double dd = dx * dx + dy * dy;
    if (dd < best) {
      best = dd;
      double dn = sqrt(dd);
      if (dn > 0) {
        gout[0] = dx / dn, gout[1] = dy / dn;
      } else {
        gout[0] = nx, gout[1] = ny;
      }
    }
  }
  if (inside <= 0) {
    g[0] = gin[0], g[1] = gin[1];
    return inside;
  }
  g[0] = gout[0], g[1] = gout[1];
  return sqrt(best);
}

// a rounded convex polygon extruded over [-h, h]
static double prism(const double* prm, int nvert, const double q[3], double g[3]) {
  double g2[2];
  double d2 = convex_polygon(prm + 2, nvert, q, g2) - prm[1];
  return extrude(d2, g2, q[2], prm[0], g);
}

// ---------------------------------------------------------------- evaluation

// a lower bound on node n's value at q (its parent's frame): the distance to its bounding
// sphere, or to its bounding box where q lies outside that and it is larger (a node's value
// is at least the distance to any set holding its solid). Both keep 1e-12 m (and 1e-12 of
// the size) to spare, so that a bound rounded up never passes a value rounded down: culling
// with it skips only operands that cannot decide the result, and the result stays the bits
// of evaluating them
static double lower_bound(const tf_sdf_node* n, const double q[3]) {
  double c[3] = {q[0] - n->bound[0], q[1] - n->bound[1], q[2] - n->bound[2]};
  double lower =
      sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]) - n->bound[3] - (1e-12 + 1e-12 * n->bound[3]);
  double out = 0;
  for (int k = 0; k < 3; k++) {
    double e =
        q[k] < n->box[k] ? n->box[k] - q[k] : (q[k] > n->box[3 + k] ? q[k] - n->box[3 + k] : 0);
    out += e * e;
  }
  if (out > 0) {
    double d = sqrt(out);
    if (d > lower) lower = d;
  }
  return lower;
}

// value of node i at p in its parent frame; children see p in node i's frame
static double eval_node(const tf_sdf_node* nodes, int i, const double p[3], double grad[3]) {
  const tf_sdf_node* n = &nodes[i];
  const double* r = n->rot;
  double d[3] = {p[0] - n->pos[0], p[1] - n->pos[1], p[2] - n->pos[2]};
  double q[3] = {r[0] * d[0] + r[3] * d[1] + r[6] * d[2], r[1] * d[0] + r[4] * d[1] + r[7] * d[2],
                 r[2] * d[0] + r[5] * d[1] + r[8] * d[2]};
  double g[3] = {0, 0, 1}, value;
  switch (n->type) {
    case TF_SDF_SPHERE:
      value = sphere(n->param, q, g);
      break;
    case TF_SDF_BOX:
      value = box(n->param, q, g);
      break;
    case TF_SDF_ROUNDED_BOX:
      value = rounded_box(n->param, q, g);
      break;
    case TF_SDF_CYLINDER:
      value = cylinder(n->param, q, g);
      break;
    case TF_SDF_CAPSULE:
      value = capsule(n->param, q, g);
      break;
    case TF_SDF_TORUS:
      value = torus(n->param, q, g);
      break;
    case TF_SDF_PRISM:
      value = prism(n->param, n->nvert, q, g);
      break;
    case TF_SDF_UNION:
    case TF_SDF_INTERSECTION:
    case TF_SDF_SUBTRACTION: {
      double ga[3], gb[3];
      const tf_sdf_node* nb = &nodes[n->child[1]];
      double lower = lower_bound(nb, q);
      int use_b = 0;
      double a = 0, b = 0;
      if (n->type == TF_SDF_UNION) {
        // min(a, b), a on ties: the operand nearer by its bound first, and the other only
        // where its bound does not already lose (strictly, for a: a tie keeps a)
        double lower_a = lower_bound(&nodes[n->child[0]], q);
        if (lower < lower_a) {
          b = eval_node(nodes, n->child[1], q, gb);
          if (lower_a > b) {
            use_b = 1;
          } else {
            a = eval_node(nodes, n->child[0], q, ga);
            use_b = b < a;
          }
        } else {
          a = eval_node(nodes, n->child[0], q, ga);
          if (lower < a) {
            b = eval_node(nodes, n->child[1], q, gb);
            use_b = b < a;
          }
        }
        value = use_b ? b : a;
        memcpy(g, use_b ? gb : ga, sizeof(g));
        break;
      }
      a = eval_node(nodes, n->child[0], q, ga);
      if (n->type == TF_SDF_INTERSECTION) {
        b = eval_node(nodes, n->child[1], q, gb);
        use_b = b > a;
        value = use_b ? b : a;
      } else {
        if (-lower > a) {
          b = eval_node(nodes, n->child[1], q, gb);
          use_b = -b > a;
          if (use_b) gb[0] = -gb[0], gb[1] = -gb[1], gb[2] = -gb[2];
        }
        value = use_b ? -b : a;
      }
      memcpy(g, use_b ? gb : ga, sizeof(g));
      break;
    }
    default:
      value = INFINITY;
      break;
  }
  if (grad) {
    grad[0] = r[0] * g[0] + r[1] * g[1] + r[2] * g[2];
    grad[1] = r[3] * g[0] + r[4] * g[1] + r[5] * g[2];
    grad[2] = r[6] * g[0] + r[7] * g[1] + r[8] * g[2];
  }
  return value;
}

// one subtree, for tests and for building bigger trees
double tf_sdf_node_eval(const tf_sdf_tree* tree, int index, const double p[3], double grad[3]) {
  return eval_node(tree->node, index, p, grad);
}

// the tf_sdf_fn of a tree: its root
double tf_sdf_tree_eval(const void* params, const double p[3], double grad[3]) {
  const tf_sdf_tree* tree = (const tf_sdf_tree*)params;
  return eval_node(tree->node, tree->root, p, grad);
}

// ---------------------------------------------------------------- building

// bounding sphere (centre, radius) of a node in its own frame
static void local_bound(const tf_sdf_node* nodes, const tf_sdf_node* n, double s[4]) {
  const double* p = n->param;
  s[0] = s[1] = s[2] = 0;
  switch (n->type) {
    case TF_SDF_SPHERE:
      s[3] = p[0];
      break;
    case TF_SDF_BOX:
    case TF_SDF_ROUNDED_BOX:
      s[3] = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
      break;
    case TF_SDF_CYLINDER:
      s[3] = sqrt(p[0] * p[0] + p[1] * p[1]);
      break;
    case TF_SDF_CAPSULE:
      s[3] = p[0] + p[1];
      break;
    case TF_SDF_TORUS:
      s[3] = p[0] + p[1];
      break;
    case TF_SDF_PRISM: {
      // centre at the middle of the polygon's box, radius to the farthest vertex
      double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
      for (int i = 0; i < n->nvert; i++) {
        for (int k = 0; k < 2; k++) {
          lo[k] = fmin(lo[k], p[2 + 2 * i + k]);
          hi[k] = fmax(hi[k], p[2 + 2 * i + k]);
        }
      }
      s[0] = 0.5 * (lo[0] + hi[0]), s[1] = 0.5 * (lo[1] + hi[1]);
      double far = 0;
      for (int i = 0; i < n->nvert; i++) {
        double dx = p[2 + 2 * i] - s[0], dy = p[3 + 2 * i] - s[1];
        far = fmax(far, dx * dx + dy * dy);
      }
      s[3] = sqrt(far + p[0] * p[0]) + p[1];
      break;
    }
    case TF_SDF_UNION: {
      const double* a = nodes[n->child[0]].bound;
      const double* b = nodes[n->child[1]].bound;
      double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
      double dist = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
      if (dist + b[3] <= a[3]) {
        memcpy(s, a, 4 * sizeof(double));
      } else if (dist + a[3] <= b[3]) {
        memcpy(s, b, 4 * sizeof(double));
      } else {
        double radius = 0.5 * (dist + a[3] + b[3]);
        double t = (radius - a[3]) / dist;
        for (int k = 0; k < 3; k++) s[k] = a[k] + t * d[k];
        s[3] = radius;
      }
      break;
    }
    case TF_SDF_INTERSECTION: {
      const double* a = nodes[n->child[0]].bound;
      const double* b = nodes[n->child[1]].bound;
      memcpy(s, a[3] <= b[3] ? a : b, 4 * sizeof(double));
      break;
    }
    case TF_SDF_SUBTRACTION:
      memcpy(s, nodes[n->child[0]].bound, 4 * sizeof(double));
      break;
    default:
      s[3] = INFINITY;
      break;
  }
}

// bounding box (lo, hi) of a node in its own frame
static void local_box(const tf_sdf_node* nodes, const tf_sdf_node* n, double lo[3], double hi[3]) {
  const double* p = n->param;
  double half[3] = {INFINITY, INFINITY, INFINITY};
  switch (n->type) {
    case TF_SDF_SPHERE:
      half[0] = half[1] = half[2] = p[0];
      break;
    case TF_SDF_BOX:
    case TF_SDF_ROUNDED_BOX:
      half[0] = p[0], half[1] = p[1], half[2] = p[2];
      break;
    case TF_SDF_CYLINDER:
      half[0] = half[1] = p[0], half[2] = p[1];
      break;
    case TF_SDF_CAPSULE:
      half[0] = half[1] = p[0], half[2] = p[1] + p[0];
      break;
    case TF_SDF_TORUS:
      half[0] = half[1] = p[0] + p[1], half[2] = p[1];
      break;
    case TF_SDF_PRISM:
      // the polygon's box grown by the rounding, over z in [-h, h]
      for (int k = 0; k < 2; k++) lo[k] = INFINITY, hi[k] = -INFINITY;
      for (int i = 0; i < n->nvert; i++) {
        for (int k = 0; k < 2; k++) {
          lo[k] = fmin(lo[k], p[2 + 2 * i + k] - p[1]);
          hi[k] = fmax(hi[k], p[2 + 2 * i + k] + p[1]);
        }
      }
      lo[2] = -p[0], hi[2] = p[0];
      return;
    case TF_SDF_UNION:
    case TF_SDF_INTERSECTION:
    case TF_SDF_SUBTRACTION: {
      // the children's boxes are in this node's frame: their union, their overlap, the first
      const double* a = nodes[n->child[0]].box;
      const double* b = nodes[n->child[1]].box;
      for (int k = 0; k < 3; k++) {
        if (n->type == TF_SDF_UNION) {
          lo[k] = fmin(a[k], b[k]), hi[k] = fmax(a[3 + k], b[3 + k]);
        } else if (n->type == TF_SDF_INTERSECTION) {
          lo[k] = fmax(a[k], b[k]), hi[k] = fmin(a[3 + k], b[3 + k]);
        } else {
          lo[k] = a[k], hi[k] = a[3 + k];
        }
      }
      return;
    }
    default:
      break;
  }
  for (int k = 0; k < 3; k++) lo[k] = -half[k], hi[k] = half[k];
}

// node n's own-frame box (lo, hi) placed in its parent frame: the box of its eight corners,
// grown by 1e-12 m and 1e-12 of its size so that rounding never cuts into the solid
static void place_box(tf_sdf_node* n, const double lo[3], const double hi[3]) {
  const double* r = n->rot;
  double out_lo[3] = {INFINITY, INFINITY, INFINITY}, out_hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int c = 0; c < 8; c++) {
    double x[3] = {c & 1 ? hi[0] : lo[0], c & 2 ? hi[1] : lo[1], c & 4 ? hi[2] : lo[2]};
    for (int k = 0; k < 3; k++) {
      double w = r[3 * k] * x[0] + r[3 * k + 1] * x[1] + r[3 * k + 2] * x[2] + n->pos[k];
      out_lo[k] = fmin(out_lo[k], w), out_hi[k] = fmax(out_hi[k], w);
    }
  }
  for (int k = 0; k < 3; k++) {
    double pad = 1e-12 + 1e-12 * (fabs(out_lo[k]) + fabs(out_hi[k]));
    // an empty overlap (lo > hi) bounds nothing: keep it infinite rather than wrong
    if (!(out_lo[k] <= out_hi[k]) || !isfinite(out_lo[k]) || !isfinite(out_hi[k])) {
      out_lo[k] = -INFINITY, out_hi[k] = INFINITY;
      pad = 0;
    }
    n->box[k] = out_lo[k] - pad, n->box[3 + k] = out_hi[k] + pad;
  }
}

// the parameter checks of one primitive; returns a message or NULL
static const char* check_primitive(const tf_sdf_node* n) {
  const double* p = n->param;
  for (int k = 0; k < TF_SDF_NPARAM; k++) {
    if (!isfinite(p[k])) return "non-finite parameter";
  }
  switch (n->type) {
    case TF_SDF_SPHERE:
      return p[0] > 0 ? NULL : "sphere radius must be > 0";
    case TF_SDF_BOX:
      return p[0] > 0 && p[1] > 0 && p[2] > 0 ? NULL : "box half-sizes must be > 0";
    case TF_SDF_ROUNDED_BOX:
      return p[3] >= 0 && p[0] >= p[3] && p[1] >= p[3] && p[2] >= p[3] && p[0] > 0 && p[1] > 0 &&
                     p[2] > 0
                 ? NULL
                 : "rounded box needs half-sizes >= radius >= 0";
    case TF_SDF_CYLINDER:
    case TF_SDF_CAPSULE:
      return p[0] > 0 && p[1] >= 0 ? NULL : "cylinder / capsule needs radius > 0, half-length >= 0";
    case TF_SDF_TORUS:
      return p[0] > p[1] && p[1] > 0 ? NULL : "torus needs major > minor > 0";
    case TF_SDF_PRISM: {
      if (n->nvert < 3 || n->nvert > TF_SDF_PRISM_MAXVERT) return "prism needs 3..8 vertices";
      if (!(p[0] > 0) || !(p[1] >= 0)) return "prism needs half-height > 0 and radius >= 0";
      for (int i = 0; i < n->nvert; i++) {
        const double* a = p + 2 + 2 * i;
        const double* b = p + 2 + 2 * ((i + 1) % n->nvert);
        const double* c = p + 2 + 2 * ((i + 2) % n->nvert);
        double cross = (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]);
        if (!(cross > 0)) return "prism polygon must be convex and counter-clockwise";
      }
      return NULL;
    }
    default:
      return "unknown node type";
  }
}

// an empty tree with no root
tf_sdf_tree* tf_sdf_tree_create(void) {
  tf_sdf_tree* t = calloc(1, sizeof(tf_sdf_tree));
  if (t) t->root = -1;
  return t;
}

void tf_sdf_tree_free(tf_sdf_tree* tree) { free(tree); }

// header plus the nodes: what the engine copies
size_t tf_sdf_tree_size(const tf_sdf_tree* tree) {
  return sizeof(tf_sdf_tree) + (size_t)tree->nnode * sizeof(tf_sdf_node);
}

// grows the node array by one (trees are small) and bounds the new node in its parent frame
int tf_sdf_tree_add(tf_sdf_tree** tree, const tf_sdf_node* node) {
  tf_sdf_tree* t = *tree;
  if (!t || node->type < 0 || node->type >= TF_SDF_NTYPE) return -1;
  int csg = node->type >= TF_SDF_UNION;
  for (int k = 0; k < 2 && csg; k++) {
    if (node->child[k] < 0 || node->child[k] >= t->nnode) return -1;
  }
  if (!csg && check_primitive(node)) return -1;
  tf_sdf_tree* grown =
      realloc(t, sizeof(tf_sdf_tree) + (size_t)(t->nnode + 1) * sizeof(tf_sdf_node));
  if (!grown) return -1;
  *tree = t = grown;
  int index = t->nnode++;
  tf_sdf_node* n = &t->node[index];
  *n = *node;
  if (!csg) n->child[0] = n->child[1] = -1;
  double s[4];
  local_bound(t->node, n, s);
  const double* r = n->rot;
  for (int k = 0; k < 3; k++) {
    n->bound[k] = r[3 * k] * s[0] + r[3 * k + 1] * s[1] + r[3 * k + 2] * s[2] + n->pos[k];
  }
  n->bound[3] = s[3];
  double lo[3], hi[3];
  local_box(t->node, n, lo, hi);
  place_box(n, lo, hi);
  t->root = index;
  return index;
}

// a CSG node with an identity placement
int tf_sdf_tree_op(tf_sdf_tree** tree, tf_sdf_type op, int a, int b) {
  if (op < TF_SDF_UNION || op > TF_SDF_SUBTRACTION) return -1;
  tf_sdf_node n = tf_sdf_csg(op, a, b);
  return tf_sdf_tree_add(tree, &n);
}

// halves recursively so that bounding spheres cull whole groups
int tf_sdf_tree_union_all(tf_sdf_tree** tree, const int* index, int n) {
  if (n <= 0) return -1;
  if (n == 1) return index[0];
  int half = n / 2;
  int a = tf_sdf_tree_union_all(tree, index, half);
  int b = tf_sdf_tree_union_all(tree, index + half, n - half);
  if (a < 0 || b < 0) return -1;
  return tf_sdf_tree_op(tree, TF_SDF_UNION, a, b);
}

// the evaluator trusts the tree; this is where bad bytes are caught
int tf_sdf_tree_check(const tf_sdf_tree* tree, size_t size, char* err, size_t errlen) {
  if (!tree || size < sizeof(tf_sdf_tree) || tree->nnode < 1 ||
      size != sizeof(tf_sdf_tree) + (size_t)tree->nnode * sizeof(tf_sdf_node)) {
    snprintf(err, errlen, "sdf tree: size does not match its node count");
    return -1;
  }
  if (tree->root < 0 || tree->root >= tree->nnode) {
    snprintf(err, errlen, "sdf tree: root %d out of range", tree->root);
    return -1;
  }
  for (int i = 0; i < tree->nnode; i++) {
    const tf_sdf_node* n = &tree->node[i];
    const char* msg = NULL;
    if (n->type >= TF_SDF_UNION && n->type <= TF_SDF_SUBTRACTION) {
      for (int k = 0; k < 2; k++) {
        if (n->child[k] < 0 || n->child[k] >= i) msg = "operands must be earlier nodes";
      }
    } else {
      msg = check_primitive(n);
    }
    // the rotation must be orthonormal (rigid placements keep distances exact)
    for (int a = 0; a < 3 && !msg; a++) {
      for (int b = 0; b < 3; b++) {
        double dot = 0;
        for (int k = 0; k < 3; k++) dot += n->rot[3 * k + a] * n->rot[3 * k + b];
        if (fabs(dot - (a == b)) > 1e-9) msg = "rotation is not orthonormal";
      }
    }
    if (msg) {
      snprintf(err, errlen, "sdf tree: node %d: %s", i, msg);
      return -1;
    }
  }
  return 0;
}
