// Contact manifolds for general convex pairs and for a plane against a convex shape.
//
// One GJK / EPA query (tf_shape_distance) gives the deepest point: the signed gap d along
// the unit normal n (a to b) and the witnesses pa, pb. One point cannot hold a face at rest,
// so the rest of the manifold comes from the local geometry:
//
// Polytope pairs (box, hull): face clipping. On each side take the face that holds the
// witness and is most aligned with the normal (reference face on a: max n_a . n; incident
// face on b: max -n_b . n). Both are projected along n onto the plane orthogonal to n, the
// incident polygon is clipped to the reference polygon (Sutherland-Hodgman, one half-plane
// per reference edge), and at every vertex x of the overlap the two face planes give the
// heights along n of the surfaces:
//   h_a(x) = (d_a - n_a . x) / (n_a . n),   h_b(x) = (d_b - n_b . x) / (n_b . n),
// so that the point's own gap is h_b - h_a and its surface points are x + h n. Every such
// point is a true pair of surface points (a line along n through the overlap meets both
// faces), the gap is linear over the overlap so its vertices hold the deepest point, and the
// witness of the first query lies inside the overlap; the first point is kept only when the
// clip found nothing as deep. Faces tilted more than ~84 degrees from n are not clipped.
//
// Curved pairs (a cylinder or capsule, no sphere): small-rotation perturbation. b is
// rotated by +-1 degree about two axes orthogonal to n through the first contact and the
// query is repeated; the new deepest points walk to the ends of the contact line or around
// the rim of a resting cap. Each point of b is rotated back to b's real pose and its gap
// measured along the original normal: gap = n . (R^T (q_b - c) + c - q_a).
//
// Sphere pairs keep the single point. Every candidate under the margin is kept, points
// closer than 1e-3 of the smaller shape's extent are merged (the deeper survives), and more
// than TF_MAX_PAIR_CONTACTS are reduced by farthest-point sampling: the deepest first, then
// repeatedly the candidate farthest from those already chosen, which keeps the patch's
// corners.
//
// Plane x convex is closed form: every box corner / hull vertex / capsule end / cylinder rim
// point (four per cap: the lowest and at 90, 180, 270 degrees from it) has gap n . (x - p0)
// to the plane, reduced the same way without a buffer.
#include <math.h>
#include <string.h>

#include "collision_convex.h"
#include "tf_math.h"

#define FACE_MAX_VERT 128                 // hull faces with more corners are not clipped
#define CLIP_MAX (2 * FACE_MAX_VERT + 4)  // clip output bound: m + k vertices
#define CLIP_MIN_ALIGN 0.1                // cos of the largest face tilt from the normal
#define FACE_TOL 1e-7                     // witness-on-face tolerance, times the extent
#define MERGE_REL 1e-3                    // merge distance, times the smaller extent
#define PERTURB_ANGLE (M_PI / 180)        // small rotation for curved shapes (rad)
#define CAND_MAX (CLIP_MAX + 8)

// two unit vectors completing n to a right-handed frame (t1, t2, n)
static void tangent_basis(double t1[3], double t2[3], const double n[3]) {
  double u[3] = {0, 0, 0};
  int axis = 0;
  for (int k = 1; k < 3; k++) {
    if (fabs(n[k]) < fabs(n[axis])) axis = k;
  }
  u[axis] = 1;
  tf_vec3_cross(t1, u, n);
  tf_vec3_normalize(t1);
  tf_vec3_cross(t2, n, t1);
}

// ---------------------------------------------------------------------------------------------
// candidate sets: merge near duplicates, reduce to the most spread

typedef struct contact_set {
  int n;
  double merge2;  // squared merge distance
  tf_contact_point c[CAND_MAX];
} contact_set;

// adds a point unless one is already this close (then the deeper of the two stays)
static void set_add(contact_set* set, const double pos[3], const double normal[3], double dist) {
  for (int i = 0; i < set->n; i++) {
    double d[3];
    tf_vec3_sub(d, set->c[i].pos, pos);
    if (tf_vec3_dot(d, d) <= set->merge2) {
      if (dist < set->c[i].dist) {
        tf_vec3_copy(set->c[i].pos, pos);
        set->c[i].dist = dist;
      }
      return;
    }
  }
  if (set->n == CAND_MAX) return;
  tf_contact_point* c = &set->c[set->n++];
  tf_vec3_copy(c->pos, pos);
  tf_vec3_copy(c->normal, normal);
  c->dist = dist;
}

// writes at most TF_MAX_PAIR_CONTACTS points: the deepest, then farthest-point sampling
static int set_reduce(const contact_set* set, tf_contact_point* out) {
  if (set->n == 0) return 0;
  int chosen[TF_MAX_PAIR_CONTACTS], nchosen = 0;
  int deepest = 0;
  for (int i = 1; i < set->n; i++) {
    if (set->c[i].dist < set->c[deepest].dist) deepest = i;
  }
  chosen[nchosen++] = deepest;
  while (nchosen < TF_MAX_PAIR_CONTACTS && nchosen < set->n) {
    int best = -1;
    double best_d2 = -1;
    for (int i = 0; i < set->n; i++) {
      double near2 = INFINITY;
      for (int k = 0; k < nchosen; k++) {
        double d[3];
        tf_vec3_sub(d, set->c[i].pos, set->c[chosen[k]].pos);
        near2 = fmin(near2, tf_vec3_dot(d, d));
      }
      if (near2 > best_d2) best_d2 = near2, best = i;
    }
    if (best < 0 || !(best_d2 > 0)) break;
    chosen[nchosen++] = best;
  }
  for (int k = 0; k < nchosen; k++) out[k] = set->c[chosen[k]];
  return nchosen;
}

// ---------------------------------------------------------------------------------------------
// polytope faces and clipping

// boxes and hulls have faces to clip; a hull without faces (never built) does not
static int is_polytope(const tf_shape* s) {
  return s->type == TF_GEOM_BOX || (s->type == TF_GEOM_HULL && s->hull.nface > 0);
}

// the face of a box or hull that holds the world point p (within tol) and is most aligned
// with dir (any face when none holds p); writes its world corners counter-clockwise seen
// from outside and its world plane n . x = d; returns the corner count (0: too many)
static int polytope_face(double (*corner)[3], double plane[4], const tf_shape* s,
                         const double dir[3], const double p[3], double tol) {
  double pl[3], dl[3], rel[3];
  tf_vec3_sub(rel, p, s->pos);
  tf_mat3_mul_vec_t(pl, s->mat, rel);
  tf_mat3_mul_vec_t(dl, s->mat, dir);
  double nl[3], dlocal = 0;
  int nc = 0;
  double local[FACE_MAX_VERT][3];
  if (s->type == TF_GEOM_BOX) {
    const double* h = s->size;
    int best = -1, best_on = 0;
    double best_align = -INFINITY;
    for (int f = 0; f < 6; f++) {
      int i = f / 2;
      double sign = (f % 2) ? -1 : 1;
      int on = fabs(sign * pl[i] - h[i]) <= tol;
      double align = sign * dl[i];
      if ((on && !best_on) || (on == best_on && align > best_align)) {
        best = f, best_on = on, best_align = align;
      }
    }
    int i = best / 2, j = (i + 1) % 3, k = (i + 2) % 3;
    double sign = (best % 2) ? -1 : 1;
    static const double quad[4][2] = {{1, 1}, {-1, 1}, {-1, -1}, {1, -1}};
    nl[0] = nl[1] = nl[2] = 0;
    nl[i] = sign;
    dlocal = h[i];
    nc = 4;
    for (int c = 0; c < 4; c++) {
      int q = sign > 0 ? c : 3 - c;  // reversed on the negative face
      local[c][i] = sign * h[i];
      local[c][j] = quad[q][0] * h[j];
      local[c][k] = quad[q][1] * h[k];
    }
  } else {
    const tf_hull_view* hv = &s->hull;
    int best = -1, best_on = 0;
    double best_align = -INFINITY;
    for (int f = 0; f < hv->nface; f++) {
      const double* fp = hv->face_plane + 4 * f;
      int on = fabs(tf_vec3_dot(fp, pl) - fp[3]) <= tol;
      double align = tf_vec3_dot(fp, dl);
      if ((on && !best_on) || (on == best_on && align > best_align)) {
        best = f, best_on = on, best_align = align;
      }
    }
    nc = hv->face_vertnum[best];
    if (nc > FACE_MAX_VERT) return 0;
    tf_vec3_copy(nl, hv->face_plane + 4 * best);
    dlocal = hv->face_plane[4 * best + 3];
    for (int c = 0; c < nc; c++) {
      tf_vec3_copy(local[c], hv->vert + 3 * hv->face_vert[hv->face_vertadr[best] + c]);
    }
  }
  tf_mat3_mul_vec(plane, s->mat, nl);
  plane[3] = dlocal + tf_vec3_dot(plane, s->pos);
  for (int c = 0; c < nc; c++) {
    tf_mat3_mul_vec(corner[c], s->mat, local[c]);
    tf_vec3_add(corner[c], corner[c], s->pos);
  }
  return nc;
}

// clips the polygon in (n points, 2d) to the half-plane left of the directed edge a -> b;
// returns the new count
static int clip_half_plane(double (*out)[2], const double (*in)[2], int n, const double a[2],
                           const double b[2]) {
  double ex = b[0] - a[0], ey = b[1] - a[1];
  int m = 0;
  for (int i = 0; i < n; i++) {
    const double* p = in[i];
    const double* q = in[(i + 1) % n];
    double sp = ex * (p[1] - a[1]) - ey * (p[0] - a[0]);
    double sq = ex * (q[1] - a[1]) - ey * (q[0] - a[0]);
    if (sp >= 0) {
      out[m][0] = p[0], out[m][1] = p[1], m++;
    }
    if ((sp >= 0) != (sq >= 0)) {
      double t = sp / (sp - sq);
      out[m][0] = p[0] + t * (q[0] - p[0]);
      out[m][1] = p[1] + t * (q[1] - p[1]);
      m++;
    }
  }
  return m;
}

// the face-clipped manifold of two polytopes; returns 0 when the faces are too tilted
static int clip_faces(contact_set* set, const tf_shape* a, const tf_shape* b, const double pa[3],
                      const double pb[3], const double n[3], double margin) {
  double fa[FACE_MAX_VERT][3], fb[FACE_MAX_VERT][3], plane_a[4], plane_b[4], neg[3];
  tf_vec3_scale(neg, n, -1);
  int na = polytope_face(fa, plane_a, a, n, pa, FACE_TOL * tf_shape_extent(a));
  int nb = polytope_face(fb, plane_b, b, neg, pb, FACE_TOL * tf_shape_extent(b));
  double ca = tf_vec3_dot(plane_a, n), cb = -tf_vec3_dot(plane_b, n);
  if (na < 3 || nb < 3 || ca < CLIP_MIN_ALIGN || cb < CLIP_MIN_ALIGN) return 0;

  // both polygons in the plane orthogonal to n, counter-clockwise seen from +n
  double t1[3], t2[3], o[3];
  tangent_basis(t1, t2, n);
  tf_vec3_copy(o, pa);
  double ref[FACE_MAX_VERT][2], buf[2][CLIP_MAX][2];
  for (int i = 0; i < na; i++) {
    double d[3];
    tf_vec3_sub(d, fa[i], o);
    ref[i][0] = tf_vec3_dot(d, t1), ref[i][1] = tf_vec3_dot(d, t2);
  }
  for (int i = 0; i < nb; i++) {  // b's face is counter-clockwise about -n: reverse it
    double d[3];
    tf_vec3_sub(d, fb[nb - 1 - i], o);
    buf[0][i][0] = tf_vec3_dot(d, t1), buf[0][i][1] = tf_vec3_dot(d, t2);
  }
  int m = nb, cur = 0;
  for (int i = 0; i < na && m > 0; i++) {
    const double* e0 = ref[i];
    const double* e1 = ref[(i + 1) % na];
    if (e0[0] == e1[0] && e0[1] == e1[1]) continue;
    m = clip_half_plane(buf[1 - cur], (const double(*)[2])buf[cur], m, e0, e1);
    cur = 1 - cur;
  }
  int added = 0;
  for (int i = 0; i < m; i++) {
    double x[3];
    for (int k = 0; k < 3; k++) x[k] = o[k] + buf[cur][i][0] * t1[k] + buf[cur][i][1] * t2[k];
    double ha = (plane_a[3] - tf_vec3_dot(plane_a, x)) / tf_vec3_dot(plane_a, n);
    double hb = (plane_b[3] - tf_vec3_dot(plane_b, x)) / tf_vec3_dot(plane_b, n);
    double gap = hb - ha;
    if (!(gap < margin)) continue;
    double pos[3];
    for (int k = 0; k < 3; k++) pos[k] = x[k] + 0.5 * (ha + hb) * n[k];
    set_add(set, pos, n, gap);
    added++;
  }
  return added;
}

// ---------------------------------------------------------------------------------------------
// perturbation for curved shapes

// the point of a capsule's surface on the side facing direction dir, above the point of its
// segment closest to x (other shapes: x itself)
static void snap_capsule(double out[3], const tf_shape* s, const double x[3], const double dir[3]) {
  if (s->type != TF_GEOM_CAPSULE) {
    tf_vec3_copy(out, x);
    return;
  }
  double axis[3] = {s->mat[2], s->mat[5], s->mat[8]}, rel[3];
  tf_vec3_sub(rel, x, s->pos);
  double t = fmax(-s->size[1], fmin(s->size[1], tf_vec3_dot(rel, axis)));
  for (int k = 0; k < 3; k++) out[k] = s->pos[k] + t * axis[k] + s->size[0] * dir[k];
}

// rotates b by +-PERTURB_ANGLE about the two tangent axes through c and keeps the new
// deepest points, measured back in the real poses along the original normal. A capsule's
// point is moved from its rounded end to the end of its contact line (the segment point
// plus r along the normal): the tilt finds it on the cap at r sin(angle) past the end.
static void perturb(contact_set* set, const tf_shape* a, const tf_shape* b, const double c[3],
                    const double n[3], double margin) {
  double t[2][3], neg[3];
  tangent_basis(t[0], t[1], n);
  tf_vec3_scale(neg, n, -1);
  for (int trial = 0; trial < 4; trial++) {
    double q[4], rot[9], rel[3], qa[3], qb[3], n2[3];
    tf_quat_from_axis_angle(q, t[trial / 2], (trial % 2) ? -PERTURB_ANGLE : PERTURB_ANGLE);
    tf_quat_to_mat(rot, q);
    tf_shape moved = *b;
    tf_mat3_mul(moved.mat, rot, b->mat);
    tf_vec3_sub(rel, b->pos, c);
    tf_mat3_mul_vec(moved.pos, rot, rel);
    tf_vec3_add(moved.pos, moved.pos, c);
    tf_shape_distance(a, &moved, qa, qb, n2);
    // the point of b back in b's real pose
    tf_vec3_sub(rel, qb, c);
    tf_mat3_mul_vec_t(qb, rot, rel);
    tf_vec3_add(qb, qb, c);
    double sa[3], sb[3], d[3], pos[3];
    snap_capsule(sa, a, qa, n);
    snap_capsule(sb, b, qb, neg);
    tf_vec3_sub(d, sb, sa);
    double gap = tf_vec3_dot(n, d);
    if (!(gap < margin)) continue;
    // lateral position from the snapped side, if any
    if (a->type == TF_GEOM_CAPSULE) {
      for (int k = 0; k < 3; k++) pos[k] = sa[k] + 0.5 * gap * n[k];
    } else if (b->type == TF_GEOM_CAPSULE) {
      for (int k = 0; k < 3; k++) pos[k] = sb[k] - 0.5 * gap * n[k];
    } else {
      for (int k = 0; k < 3; k++) pos[k] = 0.5 * (sa[k] + sb[k]);
    }
    set_add(set, pos, n, gap);
  }
}

// ---------------------------------------------------------------------------------------------
// plane x convex

// number of candidate points of b against a plane
static int plane_ncandidate(const tf_shape* b) {
  switch (b->type) {
    case TF_GEOM_SPHERE:
      return 1;
    case TF_GEOM_CAPSULE:
      return 2;
    case TF_GEOM_BOX:
      return 8;
    case TF_GEOM_CYLINDER:
      return 8;
    case TF_GEOM_HULL:
      return b->hull.nvert;
    default:
      return 0;
  }
}

// candidate i of b (world): corners, vertices, the lowest points of round ends, rim points
static void plane_candidate(double x[3], const tf_shape* b, const double n[3], int i) {
  double local[3] = {0, 0, 0};
  const double* s = b->size;
  double axis[3] = {b->mat[2], b->mat[5], b->mat[8]};
  switch (b->type) {
    case TF_GEOM_SPHERE:
      for (int k = 0; k < 3; k++) x[k] = b->pos[k] - s[0] * n[k];
      return;
    case TF_GEOM_CAPSULE: {
      double h = i ? -s[1] : s[1];
      for (int k = 0; k < 3; k++) x[k] = b->pos[k] + h * axis[k] - s[0] * n[k];
      return;
    }
    case TF_GEOM_BOX:
      for (int k = 0; k < 3; k++) local[k] = ((i >> k) & 1) ? -s[k] : s[k];
      break;
    case TF_GEOM_HULL:
      tf_vec3_copy(local, b->hull.vert + 3 * i);
      break;
    case TF_GEOM_CYLINDER: {
      // u: the rim direction pointing most against n; w completes it on the cap
      double u[3], w[3], an = tf_vec3_dot(axis, n);
      for (int k = 0; k < 3; k++) u[k] = an * axis[k] - n[k];
      if (!(tf_vec3_normalize(u) > 1e-12)) tangent_basis(u, w, axis);
      tf_vec3_cross(w, axis, u);
      double h = (i / 4) ? -s[1] : s[1];
      static const double cs[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
      const double* r = cs[i % 4];
      for (int k = 0; k < 3; k++) {
        x[k] = b->pos[k] + h * axis[k] + s[0] * (r[0] * u[k] + r[1] * w[k]);
      }
      return;
    }
    default:
      break;
  }
  tf_mat3_mul_vec(x, b->mat, local);
  tf_vec3_add(x, x, b->pos);
}

// signed height of x above the plane along its normal n
static double plane_gap(const tf_shape* plane, const double n[3], const double x[3]) {
  double d[3];
  tf_vec3_sub(d, x, plane->pos);
  return tf_vec3_dot(n, d);
}

// closed form: every candidate point of b under the margin, the deepest first and then the
// most spread, without a buffer (hulls may have any number of vertices)
int tf_collide_plane_convex(const tf_shape* plane, const tf_shape* b, double margin,
                            tf_contact_point* out) {
  double n[3] = {plane->mat[2], plane->mat[5], plane->mat[8]};
  int m = plane_ncandidate(b);
  double merge = MERGE_REL * tf_shape_extent(b);
  int deepest = -1;
  double deepest_gap = INFINITY;
  for (int i = 0; i < m; i++) {
    double x[3];
    plane_candidate(x, b, n, i);
    double g = plane_gap(plane, n, x);
    if (g < deepest_gap) deepest_gap = g, deepest = i;
  }
  if (deepest < 0 || !(deepest_gap < margin)) return 0;
  double chosen[TF_MAX_PAIR_CONTACTS][3];
  double gaps[TF_MAX_PAIR_CONTACTS];
  int nchosen = 0;
  plane_candidate(chosen[0], b, n, deepest);
  gaps[nchosen++] = deepest_gap;
  // farthest-point sampling over the candidates under the margin
  while (nchosen < TF_MAX_PAIR_CONTACTS) {
    int best = -1;
    double best_d2 = merge * merge, best_gap = 0, best_x[3];
    for (int i = 0; i < m; i++) {
      double x[3];
      plane_candidate(x, b, n, i);
      double g = plane_gap(plane, n, x);
      if (!(g < margin)) continue;
      double near2 = INFINITY;
      for (int k = 0; k < nchosen; k++) {
        double d[3];
        tf_vec3_sub(d, x, chosen[k]);
        near2 = fmin(near2, tf_vec3_dot(d, d));
      }
      if (near2 > best_d2) {
        best_d2 = near2, best = i, best_gap = g;
        tf_vec3_copy(best_x, x);
      }
    }
    if (best < 0) break;
    tf_vec3_copy(chosen[nchosen], best_x);
    gaps[nchosen++] = best_gap;
  }
  for (int k = 0; k < nchosen; k++) {
    for (int i = 0; i < 3; i++) out[k].pos[i] = chosen[k][i] - 0.5 * gaps[k] * n[i];
    tf_vec3_copy(out[k].normal, n);
    out[k].dist = gaps[k];
  }
  return nchosen;
}

// ---------------------------------------------------------------------------------------------
// convex x convex

// the deepest point by GJK / EPA, then the rest of the manifold by face clipping
// (polytopes) or perturbation (cylinders, capsules); planes go to the closed form
int tf_collide_convex(const tf_shape* a, const tf_shape* b, double margin, tf_contact_point* out) {
  if (a->type == TF_GEOM_PLANE && b->type == TF_GEOM_PLANE) return 0;
  if (a->type == TF_GEOM_PLANE) return tf_collide_plane_convex(a, b, margin, out);
  if (b->type == TF_GEOM_PLANE) {
    int count = tf_collide_plane_convex(b, a, margin, out);
    for (int k = 0; k < count; k++) tf_vec3_scale(out[k].normal, out[k].normal, -1);
    return count;
  }
  double pa[3], pb[3], n[3];
  double d = tf_shape_distance(a, b, pa, pb, n);
  if (!(d < margin)) return 0;
  tf_contact_point first;
  for (int k = 0; k < 3; k++) first.pos[k] = 0.5 * (pa[k] + pb[k]);
  tf_vec3_copy(first.normal, n);
  first.dist = d;

  contact_set set;
  set.n = 0;
  double merge = MERGE_REL * fmin(tf_shape_extent(a), tf_shape_extent(b));
  set.merge2 = merge * merge;
  int sphere = a->type == TF_GEOM_SPHERE || b->type == TF_GEOM_SPHERE;
  if (is_polytope(a) && is_polytope(b)) {
    clip_faces(&set, a, b, pa, pb, n, margin);
    double shallowest_ok = d + 1e-9 * (tf_shape_extent(a) + tf_shape_extent(b));
    int deep_enough = 0;
    for (int i = 0; i < set.n; i++) deep_enough |= set.c[i].dist <= shallowest_ok;
    if (!deep_enough) set_add(&set, first.pos, n, d);
  } else if (!sphere) {
    set_add(&set, first.pos, n, d);
    perturb(&set, a, b, first.pos, n, margin);
  } else {
    set_add(&set, first.pos, n, d);
  }
  return set_reduce(&set, out);
}
