// Closed-form contacts for the primitive pairs: plane, sphere, capsule and box against each
// other, and plane x cylinder. Every pair reduces to a few exact distance computations, most
// of them in the frame of one of the shapes. Gaps are measured between surface points; the
// extra points of a capsule's manifold take the swept sphere at a point of its segment, whose
// near side can lie just inside the capsule (the lowest point of a tilted capsule's upper cap),
// so those gaps err on the deep side.
//
// - Against a plane each shape's deepest features are explicit: the sphere's lowest point,
//   the capsule's two end caps, the box's corners (the four deepest under margin), and for a
//   cylinder the deepest rim point of each cap (a cylinder on its side rests on the line
//   between them) plus four body-fixed rim points of the cap facing the plane, so that a
//   cylinder standing on a cap has a support polygon that does not spin with tiny tilts.
// - Sphere and capsule pairs are distances between points and segments, radii taken off.
//   Segments p1 + s d1, p2 + t d2 are closest where
//       (d1.d1) s - (d1.d2) t = -d1.r,   (d1.d2) s - (d2.d2) t = -d2.r,   r = p1 - p2,
//   clamped to the segments (clamp s, solve t for it, and if t clamps solve s again: exact
//   for this convex quadratic). Capsules within about 1.8 degrees of parallel also touch at
//   the two ends of their overlap (measured along their mean direction, each end paired with
//   its closest point on the other segment), so one lying along another rests on two points.
// - Sphere x box clamps the centre into the box; a centre inside leaves through the face of
//   least penetration.
// - Capsule x box, in the box frame (half-sizes h, segment x(s) = p + s d, |s| <= half-length):
//   the squared distance to the box, sum_k max(|x_k(s)| - h_k, 0)^2, is a convex piecewise
//   quadratic of s whose pieces start where some x_k(s) = +-h_k, and each piece's minimum is
//   closed form. Once the segment reaches the box, its deepest point minimises the convex
//   piecewise-linear g(s) = max_k (|x_k(s)| - h_k), found among the segment ends and the
//   pairwise crossings of g's six lines. A contact on a face clips the segment to the face's
//   side slabs, both clipped ends becoming points with their gaps along the face normal (a
//   capsule lying flat gets two); a segment nearly parallel to the edge it is closest to gets
//   the two ends of the stretch beside that edge.
// - Box x box: the separating axis test over 15 axes (3 + 3 face normals, 9 edge cross
//   products), the gap along unit axis L being
//       |t.L| - sum_k ha_k |A_k.L| - sum_k hb_k |B_k.L|,   t = centre b - centre a
//   (Gottschalk, Lin, Manocha, "OBBTree", SIGGRAPH 1996). The largest gap names the contact.
//   An edge axis must beat the best face by a tolerance and near ties between the two boxes'
//   faces go to the larger face, so that the manifold does not flip between steps nor with
//   the argument order. A face axis makes that face the reference; the other box's face most
//   anti-parallel to it (the incident face) is clipped against the reference face's four side
//   planes (Sutherland-Hodgman), points with gap under margin are kept, and more than four are
//   reduced to four: the deepest, the farthest from it, and the two spanning the largest
//   triangles on either side of that pair. An edge axis gives one point between the two
//   supporting edges. Separated boxes work the same way with positive gaps; when the incident
//   box's nearest corner lies beside the reference face (so the clipped points overstate the
//   distance), the exact closest points, found on one of the 24 edges, join the manifold.
#include "collision_primitive.h"

#include <math.h>

#include "tf_math.h"

// below this length (m) a direction is treated as zero
#define PRIM_TINY 1e-12
// below this distance (m) between witness points their difference is too noisy for a normal
#define PRIM_DIR_MIN 1e-9
// sin^2 of the angle under which segments count as parallel (no unique closest pair)
#define PRIM_PARALLEL 1e-10
// sin^2 of the angle (about 1.8 degrees) under which capsules also touch at their overlap ends
#define PRIM_NEAR_PARALLEL 1e-3
// clipped polygons hold at most 4 + 4 vertices; room to spare for rounding
#define PRIM_POLY_MAX 16

// ---------------------------------------------------------------------------------------------
// small helpers

// k-th axis of a shape's frame in world coordinates (column k of mat)
static void shape_axis(double out[3], const tf_shape* s, int k) {
  out[0] = s->mat[k];
  out[1] = s->mat[3 + k];
  out[2] = s->mat[6 + k];
}

// world point into the shape's frame
static void to_local(double out[3], const tf_shape* s, const double p[3]) {
  double d[3];
  tf_vec3_sub(d, p, s->pos);
  tf_mat3_mul_vec_t(out, s->mat, d);
}

// point of the shape's frame into world coordinates
static void to_world(double out[3], const tf_shape* s, const double p[3]) {
  double d[3];
  tf_mat3_mul_vec(d, s->mat, p);
  tf_vec3_add(out, d, s->pos);
}

// p + s d, the point at parameter s on a line
static void line_point(double out[3], const double p[3], const double d[3], double s) {
  for (int k = 0; k < 3; k++) out[k] = p[k] + s * d[k];
}

// x limited to [lo, hi]
static double clamp(double x, double lo, double hi) { return x < lo ? lo : (x > hi ? hi : x); }

// a side for every number: zero counts as positive, so ties resolve the same way every time
static double side(double x) { return x < 0 ? -1.0 : 1.0; }

// a unit vector along v, or world z when v has no direction (degenerate frames)
static void unit_or_z(double out[3], const double v[3]) {
  tf_vec3_copy(out, v);
  if (tf_vec3_normalize(out) < PRIM_TINY) {
    out[0] = 0;
    out[1] = 0;
    out[2] = 1;
  }
}

// one contact from a surface point of each shape, so pos is always their midpoint
static void set_contact(tf_contact_point* c, const double pa[3], const double pb[3],
                        const double normal[3], double dist) {
  for (int k = 0; k < 3; k++) {
    c->pos[k] = 0.5 * (pa[k] + pb[k]);
    c->normal[k] = normal[k];
  }
  c->dist = dist;
}

// two balls: the contact along the line of centres, or along the unit fallback when the
// centres coincide; returns 1 when the gap is under margin
static int ball_pair(tf_contact_point* out, const double ca[3], double ra, const double cb[3],
                     double rb, const double fallback[3], double margin) {
  double n[3];
  tf_vec3_sub(n, cb, ca);
  double len = tf_vec3_norm(n);
  double dist = len - ra - rb;
  if (dist >= margin) return 0;
  if (len > PRIM_TINY) {
    tf_vec3_scale(n, n, 1.0 / len);
  } else {
    tf_vec3_copy(n, fallback);
  }
  double pa[3], pb[3];
  line_point(pa, ca, n, ra);
  line_point(pb, cb, n, -rb);
  set_contact(out, pa, pb, n, dist);
  return 1;
}

// closest points of the segments p1 + s d1 (|s| <= h1) and p2 + t d2 (|t| <= h2); parallel
// segments take the middle of their overlap (or the nearest ends)
static void segment_closest(double* s_out, double* t_out, const double p1[3], const double d1[3],
                            double h1, const double p2[3], const double d2[3], double h2) {
  double r[3];
  tf_vec3_sub(r, p1, p2);
  double a = tf_vec3_dot(d1, d1), e = tf_vec3_dot(d2, d2), b = tf_vec3_dot(d1, d2);
  double c = tf_vec3_dot(d1, r), f = tf_vec3_dot(d2, r);
  double s = 0, t = 0;
  if (a <= PRIM_TINY && e <= PRIM_TINY) {
    // two points
  } else if (a <= PRIM_TINY) {
    t = clamp(f / e, -h2, h2);
  } else if (e <= PRIM_TINY) {
    s = clamp(-c / a, -h1, h1);
  } else {
    double denom = a * e - b * b;
    if (denom > PRIM_PARALLEL * a * e) {
      s = clamp((b * f - c * e) / denom, -h1, h1);
    } else {
      double mid = -c / a, half = h2 * fabs(b) / a;
      double lo = fmax(-h1, mid - half), hi = fmin(h1, mid + half);
      s = lo <= hi ? 0.5 * (lo + hi) : (mid < 0 ? -h1 : h1);
    }
    t = (f + b * s) / e;
    if (t < -h2 || t > h2) {
      t = clamp(t, -h2, h2);
      s = clamp((b * t - c) / a, -h1, h1);
    }
  }
  *s_out = s;
  *t_out = t;
}

// ---------------------------------------------------------------------------------------------
// plane x shape: a plane's normal is its frame's z, every point of the other shape stands at a
// signed height above it

// signed height of a world point above the plane
static double plane_height(const tf_shape* plane, const double p[3]) {
  double local[3];
  to_local(local, plane, p);
  return local[2];
}

// the contact of a surface point of b at height h over the plane (normal n): the plane point
// under it pairs with it
static void plane_contact(tf_contact_point* out, const double n[3], const double p[3], double h) {
  double under[3];
  line_point(under, p, n, -h);
  set_contact(out, under, p, n, h);
}

// the sphere's lowest point against the plane
int tf_collide_plane_sphere(const tf_shape* plane, const tf_shape* sphere, double margin,
                            tf_contact_point* out) {
  double n[3], low[3];
  shape_axis(n, plane, 2);
  double r = sphere->size[0];
  line_point(low, sphere->pos, n, -r);
  double h = plane_height(plane, sphere->pos) - r;
  if (h >= margin) return 0;
  plane_contact(out, n, low, h);
  return 1;
}

// each end cap's lowest point against the plane (one for a capsule without length)
int tf_collide_plane_capsule(const tf_shape* plane, const tf_shape* capsule, double margin,
                             tf_contact_point* out) {
  double n[3], w[3];
  shape_axis(n, plane, 2);
  shape_axis(w, capsule, 2);
  double r = capsule->size[0], hl = capsule->size[1];
  // a capsule without length has one cap
  int ncap = hl > 0 ? 2 : 1;
  int count = 0;
  for (int i = 0; i < ncap; i++) {
    double end[3], low[3];
    line_point(end, capsule->pos, w, i == 0 ? -hl : hl);
    line_point(low, end, n, -r);
    double h = plane_height(plane, end) - r;
    if (h < margin) plane_contact(out + count++, n, low, h);
  }
  return count;
}

// the corners under margin, the four deepest first
int tf_collide_plane_box(const tf_shape* plane, const tf_shape* box, double margin,
                         tf_contact_point* out) {
  double n[3];
  shape_axis(n, plane, 2);
  double corner[8][3], height[8];
  int order[8], count = 0;
  for (int i = 0; i < 8; i++) {
    double local[3];
    for (int k = 0; k < 3; k++) local[k] = ((i >> k) & 1 ? 1 : -1) * box->size[k];
    to_world(corner[i], box, local);
    height[i] = plane_height(plane, corner[i]);
    if (height[i] >= margin) continue;
    // insertion by height, deepest first; equal heights keep corner order
    int j = count++;
    while (j > 0 && height[order[j - 1]] > height[i]) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = i;
  }
  if (count > 4) count = 4;
  for (int i = 0; i < count; i++) plane_contact(out + i, n, corner[order[i]], height[order[i]]);
  return count;
}

// adds a cylinder rim point under margin unless an earlier point is at the same place
static void plane_rim_point(tf_contact_point* out, int* count, const tf_shape* plane,
                            const double n[3], const double p[3], double tol, double margin) {
  double h = plane_height(plane, p);
  if (h >= margin) return;
  tf_contact_point c;
  plane_contact(&c, n, p, h);
  for (int i = 0; i < *count; i++) {
    double d[3];
    tf_vec3_sub(d, out[i].pos, c.pos);
    if (tf_vec3_norm(d) <= tol) return;
  }
  out[(*count)++] = c;
}

// the deepest rim point of each cap, then the four body-fixed rim points of the lower cap
int tf_collide_plane_cylinder(const tf_shape* plane, const tf_shape* cylinder, double margin,
                              tf_contact_point* out) {
  double n[3], ax[3][3];
  shape_axis(n, plane, 2);
  for (int k = 0; k < 3; k++) shape_axis(ax[k], cylinder, k);
  double r = cylinder->size[0], hl = cylinder->size[1];
  double tol = 1e-7 * (r + hl) + PRIM_TINY;
  // the rim direction pointing down the plane normal (the cylinder's x when it stands upright)
  double nw = tf_vec3_dot(n, ax[2]), down[3];
  for (int k = 0; k < 3; k++) down[k] = nw * ax[2][k] - n[k];
  if (tf_vec3_normalize(down) < PRIM_TINY) tf_vec3_copy(down, ax[0]);
  // the lower cap first; a cylinder exactly on its side has no facing cap
  double low_side = nw > 0 ? -1 : 1;
  int count = 0;
  for (int i = 0; i < 2; i++) {
    double cap[3], p[3];
    line_point(cap, cylinder->pos, ax[2], (i == 0 ? low_side : -low_side) * hl);
    line_point(p, cap, down, r);
    plane_rim_point(out, &count, plane, n, p, tol, margin);
  }
  if (nw != 0) {
    double cap[3];
    line_point(cap, cylinder->pos, ax[2], low_side * hl);
    for (int i = 0; i < 4; i++) {
      double p[3];
      line_point(p, cap, ax[i & 1], (i < 2 ? r : -r));
      plane_rim_point(out, &count, plane, n, p, tol, margin);
    }
  }
  return count;
}

// ---------------------------------------------------------------------------------------------
// sphere and capsule pairs

// along the line of centres; coincident centres separate along a's z
int tf_collide_sphere_sphere(const tf_shape* a, const tf_shape* b, double margin,
                             tf_contact_point* out) {
  double axis[3], fallback[3];
  shape_axis(axis, a, 2);
  unit_or_z(fallback, axis);
  return ball_pair(out, a->pos, a->size[0], b->pos, b->size[0], fallback, margin);
}

// the sphere against the nearest point of the capsule's segment
int tf_collide_sphere_capsule(const tf_shape* sphere, const tf_shape* capsule, double margin,
                              tf_contact_point* out) {
  double w[3], rel[3], q[3], axis[3], fallback[3];
  shape_axis(w, capsule, 2);
  tf_vec3_sub(rel, sphere->pos, capsule->pos);
  double hl = capsule->size[1];
  line_point(q, capsule->pos, w, clamp(tf_vec3_dot(rel, w), -hl, hl));
  // a centre on the segment leaves sideways, along the capsule's x
  shape_axis(axis, capsule, 0);
  unit_or_z(fallback, axis);
  return ball_pair(out, sphere->pos, sphere->size[0], q, capsule->size[0], fallback, margin);
}

// closest points of the segments, plus the overlap ends of nearly parallel ones
int tf_collide_capsule_capsule(const tf_shape* a, const tf_shape* b, double margin,
                               tf_contact_point* out) {
  double d1[3], d2[3];
  shape_axis(d1, a, 2);
  shape_axis(d2, b, 2);
  double h1 = a->size[1], h2 = b->size[1];
  double s_best, t_best;
  segment_closest(&s_best, &t_best, a->pos, d1, h1, b->pos, d2, h2);

  // nearly parallel segments rest on the two ends of their overlap and on the closest pair
  // when it lies between them. The overlap is measured along the mean direction m, where each
  // end belongs to whichever segment stops first; that end is paired with its closest point on
  // the other segment, so both argument orders find the same pairs
  double aa = tf_vec3_dot(d1, d1), ee = tf_vec3_dot(d2, d2), ab = tf_vec3_dot(d1, d2);
  double s_list[3], t_list[3];
  int ns = 0;
  if (aa > PRIM_TINY && ee > PRIM_TINY && 1 - ab * ab / (aa * ee) < PRIM_NEAR_PARALLEL) {
    double m[3], ab_side = side(ab);
    line_point(m, d1, d2, ab_side);
    double ua = fabs(tf_vec3_dot(d1, m)), ub = fabs(tf_vec3_dot(d2, m));
    double ca = tf_vec3_dot(a->pos, m), cb = tf_vec3_dot(b->pos, m);
    double tol = 1e-9 * (1 + h1 + h2);
    double lo = fmax(ca - h1 * ua, cb - h2 * ub), hi = fmin(ca + h1 * ua, cb + h2 * ub);
    if (hi - lo > tol) {
      for (int e = 0; e < 2; e++) {
        double sg = e == 0 ? -1 : 1, p[3], rel[3];
        if (h1 * ua + sg * ca <= h2 * ub + sg * cb) {  // a stops first on this side
          s_list[ns] = sg * h1;
          line_point(p, a->pos, d1, s_list[ns]);
          tf_vec3_sub(rel, p, b->pos);
          t_list[ns] = clamp(tf_vec3_dot(rel, d2) / ee, -h2, h2);
        } else {
          t_list[ns] = sg * ab_side * h2;
          line_point(p, b->pos, d2, t_list[ns]);
          tf_vec3_sub(rel, p, a->pos);
          s_list[ns] = clamp(tf_vec3_dot(rel, d1) / aa, -h1, h1);
        }
        ns++;
      }
      int inner = 1;
      for (int e = 0; e < 2; e++) {
        if (fabs(s_best - s_list[e]) <= tol && fabs(t_best - t_list[e]) <= tol) inner = 0;
      }
      if (inner && 1 - ab * ab / (aa * ee) >= PRIM_PARALLEL) {
        s_list[ns] = s_best;
        t_list[ns++] = t_best;
      }
    }
  }
  if (ns == 0) {
    s_list[ns] = s_best;
    t_list[ns++] = t_best;
  }

  // coincident axis points separate across both axes, oriented from a's centre to b's
  double fallback[3], cross[3], rel[3];
  tf_vec3_cross(cross, d1, d2);
  if (tf_vec3_norm(cross) < 1e-6) shape_axis(cross, a, 0);
  unit_or_z(fallback, cross);
  tf_vec3_sub(rel, b->pos, a->pos);
  if (tf_vec3_dot(fallback, rel) < 0) tf_vec3_scale(fallback, fallback, -1);

  int count = 0;
  for (int i = 0; i < ns; i++) {
    double p1[3], p2[3];
    line_point(p1, a->pos, d1, s_list[i]);
    line_point(p2, b->pos, d2, t_list[i]);
    count += ball_pair(out + count, p1, a->size[0], p2, b->size[0], fallback, margin);
  }
  return count;
}

// ---------------------------------------------------------------------------------------------
// sphere and capsule against a box, in the box frame

// squared distance from a point to the box |x_k| <= h_k
static double box_dist2(const double x[3], const double h[3]) {
  double d2 = 0;
  for (int k = 0; k < 3; k++) {
    double e = fabs(x[k]) - h[k];
    if (e > 0) d2 += e * e;
  }
  return d2;
}

// max_k (|x_k| - h_k): minus the depth of a point inside the box
static double box_depth(const double x[3], const double h[3]) {
  double g = fabs(x[0]) - h[0];
  for (int k = 1; k < 3; k++) g = fmax(g, fabs(x[k]) - h[k]);
  return g;
}

// the centre clamped into the box, or pushed out through the nearest face from inside
int tf_collide_sphere_box(const tf_shape* sphere, const tf_shape* box, double margin,
                          tf_contact_point* out) {
  const double* h = box->size;
  double r = sphere->size[0];
  double c[3], q[3], diff[3], nb[3];  // nb: box frame, out of the box toward the sphere
  to_local(c, box, sphere->pos);
  for (int k = 0; k < 3; k++) {
    q[k] = clamp(c[k], -h[k], h[k]);
    diff[k] = c[k] - q[k];
  }
  double len = tf_vec3_norm(diff), dist;
  if (len > PRIM_TINY) {
    tf_vec3_scale(nb, diff, 1.0 / len);
    dist = len - r;
  } else {
    // the centre is inside: it leaves through the face it is nearest to
    int k = 0;
    for (int i = 1; i < 3; i++) {
      if (h[i] - fabs(c[i]) < h[k] - fabs(c[k])) k = i;
    }
    nb[0] = nb[1] = nb[2] = 0;
    nb[k] = side(c[k]);
    q[k] = nb[k] * h[k];
    dist = -(h[k] - fabs(c[k])) - r;
  }
  if (dist >= margin) return 0;
  double n[3], pa[3], pb[3];
  tf_mat3_mul_vec(n, box->mat, nb);
  tf_vec3_scale(n, n, -1);
  line_point(pa, sphere->pos, n, r);
  to_world(pb, box, q);
  set_contact(out, pa, pb, n, dist);
  return 1;
}

// the s in [-hl, hl] where p + s d comes closest to the box, and that squared distance: a
// convex piecewise quadratic with pieces between the crossings of the face planes
static double segment_box_closest(double* s_out, const double p[3], const double d[3], double hl,
                                  const double h[3]) {
  double cut[8];
  int ncut = 0;
  cut[ncut++] = -hl;
  for (int k = 0; k < 3; k++) {
    if (d[k] == 0) continue;
    for (int sg = -1; sg <= 1; sg += 2) {
      double s = (sg * h[k] - p[k]) / d[k];
      if (s > -hl && s < hl) cut[ncut++] = s;
    }
  }
  cut[ncut++] = hl;
  for (int i = 1; i < ncut; i++) {
    double v = cut[i];
    int j = i;
    for (; j > 0 && cut[j - 1] > v; j--) cut[j] = cut[j - 1];
    cut[j] = v;
  }
  double best = INFINITY, s_best = 0;
  for (int i = 0; i + 1 < ncut; i++) {
    // on this piece each coordinate is either inside its slab or beyond one face for good
    double s0 = cut[i], s1 = cut[i + 1], mid = 0.5 * (s0 + s1);
    double qa = 0, qb = 0;
    for (int k = 0; k < 3; k++) {
      double x = p[k] + mid * d[k];
      if (x >= -h[k] && x <= h[k]) continue;
      double face = x > h[k] ? h[k] : -h[k];
      qa += d[k] * d[k];
      qb += d[k] * (p[k] - face);
    }
    // a piece running parallel to the faces (up to rounding of d) is flat: take its middle
    double s = qa > 1e-18 ? clamp(-qb / qa, s0, s1) : mid;
    double x[3];
    line_point(x, p, d, s);
    double f = box_dist2(x, h);
    if (f < best) {
      best = f;
      s_best = s;
    }
  }
  *s_out = s_best;
  return best;
}

// the s in [-hl, hl] deepest inside the box: g(s) = max_k (|x_k(s)| - h_k) is convex and
// piecewise linear, so its minimum is at an end or where two of its six lines cross
static void segment_box_deepest(double* s_out, const double p[3], const double d[3], double hl,
                                const double h[3]) {
  double la[6], lb[6];  // line i: la + lb s
  for (int k = 0; k < 3; k++) {
    la[2 * k] = p[k] - h[k];
    lb[2 * k] = d[k];
    la[2 * k + 1] = -p[k] - h[k];
    lb[2 * k + 1] = -d[k];
  }
  double x[3], s_best = -hl;
  line_point(x, p, d, -hl);
  double best = box_depth(x, h);
  line_point(x, p, d, hl);
  if (box_depth(x, h) < best) {
    best = box_depth(x, h);
    s_best = hl;
  }
  for (int i = 0; i < 6; i++) {
    for (int j = i + 1; j < 6; j++) {
      if (lb[i] == lb[j]) continue;
      double s = (la[j] - la[i]) / (lb[i] - lb[j]);
      if (!(s > -hl && s < hl)) continue;
      line_point(x, p, d, s);
      double g = box_depth(x, h);
      if (g < best) {
        best = g;
        s_best = s;
      }
    }
  }
  *s_out = s_best;
}

// a capsule touching box face k on side sg: the segment clipped to the face's side slabs,
// each clipped end with its gap along the face normal (p, d in the box frame; s_hit is the
// segment point already known to be over the face)
static int capsule_box_face(tf_contact_point* out, const tf_shape* box, const double p[3],
                            const double d[3], double hl, double r, int k, double sg, double s_hit,
                            double margin) {
  const double* h = box->size;
  double lo = -hl, hi = hl;
  for (int i = 0; i < 3; i++) {
    if (i == k || d[i] == 0) continue;
    double s0 = (-h[i] - p[i]) / d[i], s1 = (h[i] - p[i]) / d[i];
    lo = fmax(lo, fmin(s0, s1));
    hi = fmin(hi, fmax(s0, s1));
  }
  // the known point is over the face; rounding must not clip it away
  lo = fmin(lo, s_hit);
  hi = fmax(hi, s_hit);
  double ends[2] = {lo, hi};
  int nend = 2;
  if (hi - lo <= 1e-9 * (1 + hl)) {
    ends[0] = s_hit;
    nend = 1;
  }
  double nb[3] = {0, 0, 0}, n[3];  // n: world, from the capsule into the box
  nb[k] = -sg;
  tf_mat3_mul_vec(n, box->mat, nb);
  int count = 0;
  for (int e = 0; e < nend; e++) {
    double x[3], xb[3], pa[3], pb[3];
    line_point(x, p, d, ends[e]);
    double gap = sg * x[k] - h[k] - r;
    if (gap >= margin) continue;
    for (int i = 0; i < 3; i++) xb[i] = clamp(x[i], -h[i], h[i]);
    xb[k] = sg * h[k];
    to_world(pa, box, x);
    line_point(pa, pa, n, r);
    to_world(pb, box, xb);
    set_contact(out + count++, pa, pb, n, gap);
  }
  return count;
}

// the segment point of parameter s (box frame) against its closest point of the box, when
// outside the box and under margin
static int capsule_box_point(tf_contact_point* out, const tf_shape* box, const double p[3],
                             const double d[3], double r, double s, double margin) {
  double x[3], q[3], diff[3];
  line_point(x, p, d, s);
  for (int i = 0; i < 3; i++) {
    q[i] = clamp(x[i], -box->size[i], box->size[i]);
    diff[i] = x[i] - q[i];
  }
  double len = tf_vec3_norm(diff);
  if (len <= PRIM_TINY || len - r >= margin) return 0;
  double nb[3], n[3], pa[3], pb[3];
  tf_vec3_scale(nb, diff, -1.0 / len);
  tf_mat3_mul_vec(n, box->mat, nb);
  to_world(pa, box, x);
  line_point(pa, pa, n, r);
  to_world(pb, box, q);
  set_contact(out, pa, pb, n, len - r);
  return 1;
}

// the segment's closest point (or deepest, once it reaches the box), then the manifold of
// the face or edge it is on
int tf_collide_capsule_box(const tf_shape* capsule, const tf_shape* box, double margin,
                           tf_contact_point* out) {
  const double* h = box->size;
  double r = capsule->size[0], hl = capsule->size[1];
  double p[3], w[3], d[3], x[3], s;
  to_local(p, box, capsule->pos);
  shape_axis(w, capsule, 2);
  tf_mat3_mul_vec_t(d, box->mat, w);

  double d2 = segment_box_closest(&s, p, d, hl, h);
  if (d2 > PRIM_TINY * PRIM_TINY) {
    double len = sqrt(d2);
    if (len - r >= margin) return 0;
    line_point(x, p, d, s);
    double q[3], diff[3];
    int k = 0;
    for (int i = 0; i < 3; i++) {
      q[i] = clamp(x[i], -h[i], h[i]);
      diff[i] = x[i] - q[i];
      if (fabs(diff[i]) > fabs(diff[k])) k = i;
    }
    // the coordinates beyond the box: one means a face, two an edge (along the third), three
    // a corner
    int nout = 0, edge = -1;
    for (int i = 0; i < 3; i++) {
      if (fabs(diff[i]) > 1e-6 * fabs(diff[k])) {
        nout++;
      } else {
        edge = i;
      }
    }
    if (nout == 1) return capsule_box_face(out, box, p, d, hl, r, k, side(diff[k]), s, margin);
    // an edge or a corner: this point, plus the ends of the stretch along an edge that the
    // segment runs nearly parallel to (a capsule lying along an edge rests on two points)
    double s_list[3] = {s, 0, 0};
    int ns = 1;
    if (nout == 2 && d[edge] * d[edge] >= (1 - PRIM_NEAR_PARALLEL) * tf_vec3_dot(d, d)) {
      double s0 = (-h[edge] - p[edge]) / d[edge], s1 = (h[edge] - p[edge]) / d[edge];
      double lo = fmin(fmax(-hl, fmin(s0, s1)), s), hi = fmax(fmin(hl, fmax(s0, s1)), s);
      double tol = 1e-9 * (1 + hl);
      if (hi - lo > tol) {
        int parallel = d[edge] * d[edge] >= (1 - PRIM_PARALLEL) * tf_vec3_dot(d, d);
        int inner = fabs(s - lo) > tol && fabs(s - hi) > tol;
        s_list[0] = lo;
        s_list[1] = hi;
        ns = 2;
        if (inner && !parallel) s_list[ns++] = s;
      }
    }
    int count = 0;
    for (int i = 0; i < ns; i++) {
      count += capsule_box_point(out + count, box, p, d, r, s_list[i], margin);
    }
    return count;
  }
  // the segment reaches the box: its deepest point leaves through the nearest face
  segment_box_deepest(&s, p, d, hl, h);
  line_point(x, p, d, s);
  // faces tied at the deepest point (it sits on a kink of g) go to the one the segment runs
  // most parallel to, then to the lower axis: a choice rounding cannot flip
  double g = box_depth(x, h), tol = 1e-9 * (1 + h[0] + h[1] + h[2]);
  int k = -1;
  for (int i = 0; i < 3; i++) {
    if (fabs(x[i]) - h[i] < g - tol) continue;
    if (k < 0 || fabs(d[i]) < fabs(d[k]) - 1e-9) k = i;
  }
  // a deepest point on the box's mid-plane (where |x_k| has its kink) leaves on the side of
  // the capsule's centre, not on the side rounding puts it
  double sg = fabs(x[k]) > tol ? side(x[k]) : side(p[k]);
  return capsule_box_face(out, box, p, d, hl, r, k, sg, s, margin);
}

// ---------------------------------------------------------------------------------------------
// box x box

// gap between two boxes along the unit axis l: centre distance minus both projected radii
static double box_axis_gap(const double l[3], const tf_shape* a, const tf_shape* b) {
  double t[3], la[3], lb[3];
  tf_vec3_sub(t, b->pos, a->pos);
  tf_mat3_mul_vec_t(la, a->mat, l);
  tf_mat3_mul_vec_t(lb, b->mat, l);
  double g = fabs(tf_vec3_dot(t, l));
  for (int k = 0; k < 3; k++) g -= a->size[k] * fabs(la[k]) + b->size[k] * fabs(lb[k]);
  return g;
}

// one Sutherland-Hodgman step: the part of polygon in with sg * x[axis] <= limit
static int clip_polygon(double out[][3], double in[][3], int n, int axis, double sg, double limit) {
  int m = 0;
  for (int i = 0; i < n && m < PRIM_POLY_MAX; i++) {
    const double* p = in[i];
    const double* q = in[(i + 1) % n];
    double dp = sg * p[axis] - limit, dq = sg * q[axis] - limit;
    if (dp <= 0) tf_vec3_copy(out[m++], p);
    if (m < PRIM_POLY_MAX && ((dp < 0 && dq > 0) || (dp > 0 && dq < 0))) {
      double u = dp / (dp - dq);
      for (int k = 0; k < 3; k++) out[m][k] = p[k] + u * (q[k] - p[k]);
      out[m][axis] = sg * limit;
      m++;
    }
  }
  return m;
}

// four of n > 4 manifold points (reference-face coordinates uv, gaps) that keep its depth and
// its spread: the deepest, the farthest from it, and the largest triangles on either side. A
// later candidate replaces an earlier one only when better by a tolerance, so that ties (the
// clipped polygon often has parallel sides) resolve by polygon order, not by rounding
static int reduce_manifold(int keep[4], int n, double uv[][2], const double gap[]) {
  int i0 = 0;
  for (int i = 1; i < n; i++) {
    if (gap[i] < gap[i0] - 1e-9 * (1 + fabs(gap[i0]))) i0 = i;
  }
  int i1 = -1;
  double far2 = 0;
  for (int i = 0; i < n; i++) {
    double du = uv[i][0] - uv[i0][0], dv = uv[i][1] - uv[i0][1];
    if (i != i0 && (i1 < 0 || du * du + dv * dv > far2 * (1 + 1e-9))) {
      far2 = du * du + dv * dv;
      i1 = i;
    }
  }
  double eu = uv[i1][0] - uv[i0][0], ev = uv[i1][1] - uv[i0][1], tol = 1e-9 * far2;
  int ipos = -1, ineg = -1;
  double apos = tol, aneg = -tol;
  for (int i = 0; i < n; i++) {
    if (i == i0 || i == i1) continue;
    double area = eu * (uv[i][1] - uv[i0][1]) - ev * (uv[i][0] - uv[i0][0]);
    if (area > apos + (ipos < 0 ? 0 : tol)) {
      apos = area;
      ipos = i;
    }
    if (area < aneg - (ineg < 0 ? 0 : tol)) {
      aneg = area;
      ineg = i;
    }
  }
  int m = 0;
  keep[m++] = i0;
  keep[m++] = i1;
  if (ipos >= 0) keep[m++] = ipos;
  if (ineg >= 0) keep[m++] = ineg;
  return m;
}

// exact closest points of two separated boxes (pa on a, pb on b): one of the two always lies on
// an edge, so the nearest approach of the 24 edges to the other box finds them
static double box_box_closest(double pa[3], double pb[3], const tf_shape* a, const tf_shape* b) {
  double best = INFINITY;
  for (int pass = 0; pass < 2; pass++) {
    const tf_shape* s = pass == 0 ? a : b;  // the edges of s against the box o
    const tf_shape* o = pass == 0 ? b : a;
    for (int k = 0; k < 3; k++) {
      int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
      double axis[3], d[3];
      shape_axis(axis, s, k);
      tf_mat3_mul_vec_t(d, o->mat, axis);
      for (int e = 0; e < 4; e++) {
        double local[3], c[3], p[3], x[3], q[3], t;
        local[k] = 0;
        local[k1] = (e & 1 ? 1 : -1) * s->size[k1];
        local[k2] = (e & 2 ? 1 : -1) * s->size[k2];
        to_world(c, s, local);
        to_local(p, o, c);
        double d2 = segment_box_closest(&t, p, d, s->size[k], o->size);
        if (d2 >= best) continue;
        best = d2;
        line_point(x, p, d, t);
        for (int i = 0; i < 3; i++) q[i] = clamp(x[i], -o->size[i], o->size[i]);
        to_world(pass == 0 ? pa : pb, o, x);
        to_world(pass == 0 ? pb : pa, o, q);
      }
    }
  }
  return sqrt(best);
}

// the manifold when face `axis` of ref separates best (by sat_gap): the inc box's face most
// anti-parallel to it, clipped to the reference face; flip is +1 when ref is shape a, -1 when
// it is b
static int box_face_contact(tf_contact_point* out, const tf_shape* ref, const tf_shape* inc,
                            int axis, double flip, double sat_gap, double margin) {
  const double* hr = ref->size;
  const double* hi = inc->size;
  double ax_r[3], ax_i[3][3], t[3], nr[3];
  shape_axis(ax_r, ref, axis);
  for (int k = 0; k < 3; k++) shape_axis(ax_i[k], inc, k);
  tf_vec3_sub(t, inc->pos, ref->pos);
  double sg = side(tf_vec3_dot(t, ax_r));
  tf_vec3_scale(nr, ax_r, sg);  // reference face normal, toward the incident box

  // the incident face; a face at a tie (two at 45 degrees) goes to the lower axis, not to rounding
  int j = 0;
  for (int k = 1; k < 3; k++) {
    if (fabs(tf_vec3_dot(nr, ax_i[k])) > fabs(tf_vec3_dot(nr, ax_i[j])) + 1e-9) j = k;
  }
  double sj = -side(tf_vec3_dot(nr, ax_i[j]));
  int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
  static const double corner_sign[4][2] = {{1, 1}, {-1, 1}, {-1, -1}, {1, -1}};
  double face[4][3], poly[PRIM_POLY_MAX][3], tmp[PRIM_POLY_MAX][3];
  for (int c = 0; c < 4; c++) {
    double w[3];
    for (int k = 0; k < 3; k++) {
      w[k] = inc->pos[k] + sj * hi[j] * ax_i[j][k] + corner_sign[c][0] * hi[j1] * ax_i[j1][k] +
             corner_sign[c][1] * hi[j2] * ax_i[j2][k];
    }
    to_local(face[c], ref, w);
    tf_vec3_copy(poly[c], face[c]);
  }
  int u = (axis + 1) % 3, v = (axis + 2) % 3;
  int n = clip_polygon(tmp, poly, 4, u, 1, hr[u]);
  n = clip_polygon(poly, tmp, n, u, -1, hr[u]);
  n = clip_polygon(tmp, poly, n, v, 1, hr[v]);
  n = clip_polygon(poly, tmp, n, v, -1, hr[v]);

  double normal[3];
  tf_vec3_scale(normal, nr, flip);
  double uv[PRIM_POLY_MAX][2], gap[PRIM_POLY_MAX], clip_min = INFINITY;
  int idx[PRIM_POLY_MAX], m = 0;
  for (int i = 0; i < n; i++) {
    double g = sg * poly[i][axis] - hr[axis];
    clip_min = fmin(clip_min, g);
    if (g >= margin) continue;
    uv[m][0] = poly[i][u];
    uv[m][1] = poly[i][v];
    gap[m] = g;
    idx[m++] = i;
  }
  int keep[PRIM_POLY_MAX], count = m;
  if (m > 4) {
    count = reduce_manifold(keep, m, uv, gap);
  } else {
    for (int i = 0; i < m; i++) keep[i] = i;
  }
  for (int i = 0; i < count; i++) {
    double pinc[3], pref[3];
    to_world(pinc, ref, poly[idx[keep[i]]]);
    line_point(pref, pinc, nr, -gap[keep[i]]);
    set_contact(out + i, pref, pinc, normal, gap[keep[i]]);
  }

  // the incident box's lowest corner lies beside the reference face, clipped away: for
  // separated boxes the exact closest points join (or stand in for) the manifold, since the
  // clipped points alone would overstate the distance
  double tol = 1e-9 * (1 + hr[0] + hr[1] + hr[2]);
  if (sat_gap > 0 && clip_min > sat_gap + tol) {
    double pa[3], pb[3], d[3], n_exact[3];
    const tf_shape* a = flip > 0 ? ref : inc;
    const tf_shape* b = flip > 0 ? inc : ref;
    double dist = box_box_closest(pa, pb, a, b);
    if (dist >= margin || dist >= clip_min - tol) return count;
    tf_vec3_sub(d, pb, pa);
    tf_vec3_copy(n_exact, normal);
    if (dist > PRIM_DIR_MIN) tf_vec3_scale(n_exact, d, 1.0 / dist);
    set_contact(out + count, pa, pb, n_exact, dist);
    return count + 1;
  }
  if (count > 0 || sat_gap > 0) return count;
  // overlapping with nothing clipped under margin (possible when an edge axis lost only to
  // the face bias): the incident corner deepest under the reference plane
  int c = 0;
  for (int i = 1; i < 4; i++) {
    if (sg * face[i][axis] < sg * face[c][axis]) c = i;
  }
  double g = sg * face[c][axis] - hr[axis], pinc[3], pref[3];
  to_world(pinc, ref, face[c]);
  line_point(pref, pinc, nr, -g);
  set_contact(out, pref, pinc, normal, g);
  return 1;
}

// the single point of an edge-edge contact along unit axis l (any sign): for overlapping boxes
// the closest points of a's edge farthest along l and b's edge farthest against it; separated
// boxes take their exact closest points, since the edges' own may lie past their ends
static int box_edge_contact(tf_contact_point* out, const tf_shape* a, const tf_shape* b, int i,
                            int j, const double l_in[3], double gap, double margin) {
  double pa[3], pb[3], l[3], t[3];
  tf_vec3_sub(t, b->pos, a->pos);
  tf_vec3_scale(l, l_in, side(tf_vec3_dot(t, l_in)));
  if (gap > 0) {
    double dist = box_box_closest(pa, pb, a, b), d[3];
    if (dist >= margin) return 0;
    tf_vec3_sub(d, pb, pa);
    if (dist > PRIM_DIR_MIN) tf_vec3_scale(l, d, 1.0 / dist);
    set_contact(out, pa, pb, l, dist);
    return 1;
  }
  double ax_a[3][3], ax_b[3][3], ea[3], eb[3];
  for (int k = 0; k < 3; k++) {
    shape_axis(ax_a[k], a, k);
    shape_axis(ax_b[k], b, k);
  }
  tf_vec3_copy(ea, a->pos);
  tf_vec3_copy(eb, b->pos);
  for (int k = 0; k < 3; k++) {
    if (k != i) line_point(ea, ea, ax_a[k], a->size[k] * side(tf_vec3_dot(ax_a[k], l)));
    if (k != j) line_point(eb, eb, ax_b[k], -b->size[k] * side(tf_vec3_dot(ax_b[k], l)));
  }
  double s, u;
  segment_closest(&s, &u, ea, ax_a[i], a->size[i], eb, ax_b[j], b->size[j]);
  line_point(pa, ea, ax_a[i], s);
  line_point(pb, eb, ax_b[j], u);
  set_contact(out, pa, pb, l, gap);
  return 1;
}

// separating axes, then a clipped face manifold or an edge-edge point
int tf_collide_box_box(const tf_shape* a, const tf_shape* b, double margin, tf_contact_point* out) {
  const double* ha = a->size;
  const double* hb = b->size;
  double ax_a[3][3], ax_b[3][3];
  for (int k = 0; k < 3; k++) {
    shape_axis(ax_a[k], a, k);
    shape_axis(ax_b[k], b, k);
  }
  double size = fmin(fmax(ha[0], fmax(ha[1], ha[2])), fmax(hb[0], fmax(hb[1], hb[2])));
  double rounding = 1e-9 * (1 + size);  // within a kind a later axis must win by more

  // every axis bounds the distance from below: a gap at or over margin ends the test
  double gap_a = -INFINITY, gap_b = -INFINITY, gap_e = -INFINITY, edge_l[3] = {0, 0, 1};
  int face_a = 0, face_b = 0, edge_i = -1, edge_j = -1;
  for (int k = 0; k < 3; k++) {
    double g = box_axis_gap(ax_a[k], a, b);
    if (g >= margin) return 0;
    if (g > gap_a + rounding) {
      gap_a = g;
      face_a = k;
    }
  }
  for (int k = 0; k < 3; k++) {
    double g = box_axis_gap(ax_b[k], a, b);
    if (g >= margin) return 0;
    if (g > gap_b + rounding) {
      gap_b = g;
      face_b = k;
    }
  }
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      double l[3];
      tf_vec3_cross(l, ax_a[i], ax_b[j]);
      if (tf_vec3_normalize(l) < 1e-6) continue;  // parallel edges: the face axes cover them
      double g = box_axis_gap(l, a, b);
      if (g >= margin) return 0;
      if (g > gap_e + rounding) {
        gap_e = g;
        edge_i = i;
        edge_j = j;
        tf_vec3_copy(edge_l, l);
      }
    }
  }

  // faces before edges: an edge axis must win clearly, so that near ties keep the same
  // manifold from step to step. Between the two boxes' faces a near tie goes to the larger
  // face (then to a), a rule that does not depend on the argument order
  double tie = 1e-5 * size;
  int use_b = gap_b > gap_a + tie;
  if (fabs(gap_b - gap_a) <= tie) {
    double area_a = ha[(face_a + 1) % 3] * ha[(face_a + 2) % 3];
    double area_b = hb[(face_b + 1) % 3] * hb[(face_b + 2) % 3];
    use_b = area_b > area_a * (1 + 1e-9);
  }
  double gap_face = use_b ? gap_b : gap_a;
  if (edge_i >= 0 && gap_e > gap_face + 1e-3 * size + 0.05 * fabs(gap_face)) {
    return box_edge_contact(out, a, b, edge_i, edge_j, edge_l, gap_e, margin);
  }
  if (use_b) return box_face_contact(out, b, a, face_b, -1, gap_b, margin);
  return box_face_contact(out, a, b, face_a, 1, gap_a, margin);
}
