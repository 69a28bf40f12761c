// The collision stage: broadphase, filtering, narrow phase and speculative contacts.
//
// 1. broadphase: sweep-and-prune along x over world AABBs inflated by each geom's margin
//    and by how far it can move this step (speculative reach); planes are tested apart.
// 2. filtering: same body, two static bodies, parent-child (unless the parent is the
//    world), excluded body pairs, contype / conaffinity bits; included pairs bypass it.
// 3. narrow phase (tf_collide) with the pair's margin = max(min_margin, speculative reach).
// 4. speculative contacts without ghosts: a point farther than min_margin becomes a row only
//    if the shapes' paths over the step really meet (tf_time_of_impact on the predicted
//    motion). Then the contact is taken where the paths first meet: its normal, and the
//    gap measured along that normal between the two body-fixed points, at the current pose.
//    A fast part cannot skip a thin wall; a part passing an edge is not braked by it.
//    Meshes and SDFs are not convex, so their farther points are tested one by one: where
//    one shape carries an SDF the other's surface point is sphere-traced along its relative
//    path over the step (trace_point), else it closes its gap along the normal.
// 5. warm start: each contact inherits the impulse of the previous step's contact of the
//    same geom pair at (nearly) the same body-fixed point.
#include <math.h>
#include <string.h>

#include "collision.h"
#include "collision_persist.h"
#include "collision_sdf.h"
#include "collision_stage.h"
#include "tf_math.h"
#include "model_internal.h"
#include "sdf.h"
#include "stage_timer.h"

int tf_body_is_static(const tf_model* m, int b) {
  for (; b > 0; b = m->body_parentid[b]) {
    if (m->body_dofnum[b] > 0) return 0;
  }
  return 1;
}

static int pair_excluded(const tf_model* m, int b1, int b2) {
  for (int i = 0; i < m->nexclude; i++) {
    int e1 = m->exclude_body[2 * i], e2 = m->exclude_body[2 * i + 1];
    if ((e1 == b1 && e2 == b2) || (e1 == b2 && e2 == b1)) return 1;
  }
  return 0;
}

static int pair_included(const tf_model* m, int g1, int g2) {
  for (int i = 0; i < m->ninclude; i++) {
    int e1 = m->include_geom[2 * i], e2 = m->include_geom[2 * i + 1];
    if ((e1 == g1 && e2 == g2) || (e1 == g2 && e2 == g1)) return 1;
  }
  return 0;
}

int tf_collision_filter(const tf_model* m, int g1, int g2) {
  int b1 = m->geom_bodyid[g1], b2 = m->geom_bodyid[g2];
  if (b1 == b2) return 0;
  if (pair_included(m, g1, g2)) return 1;
  if (tf_body_is_static(m, b1) && tf_body_is_static(m, b2)) return 0;
  if ((m->body_parentid[b1] == b2 && b2 != 0) || (m->body_parentid[b2] == b1 && b1 != 0)) return 0;
  if (pair_excluded(m, b1, b2)) return 0;
  unsigned t1 = m->geom_contype[g1], a1 = m->geom_conaffinity[g1];
  unsigned t2 = m->geom_contype[g2], a2 = m->geom_conaffinity[g2];
  return (t1 & a2) || (t2 & a1);
}

void tf_geom_shape(const tf_model* m, const tf_data* d, int g, tf_shape* s) {
  memset(s, 0, sizeof(*s));
  s->type = m->geom_type[g];
  memcpy(s->size, m->geom_size + 3 * g, 3 * sizeof(double));
  tf_vec3_copy(s->pos, d->geom_xpos + 3 * g);
  memcpy(s->mat, d->geom_xmat + 9 * g, 9 * sizeof(double));
  int h = m->geom_hullid[g];
  if (h >= 0) {
    tf_hull_view* v = &s->hull;
    v->nvert = m->hull_vertnum[h];
    v->vert = m->hull_vert + 3 * m->hull_vertadr[h];
    v->nface = m->hull_facenum[h];
    v->face_plane = m->hull_face_plane + 4 * m->hull_faceadr[h];
    v->face_vertadr = m->hull_face_vertadr + m->hull_faceadr[h];
    v->face_vertnum = m->hull_face_vertnum + m->hull_faceadr[h];
    v->face_vert = m->hull_face_vert + m->hull_facevertadr[h];
    v->rbound = m->hull_rbound[h];
  }
  // the surface mesh: the geom's own, or the one its SDF carries
  int mesh = m->geom_meshid[g], sdf = m->geom_sdfid[g];
  if (mesh < 0 && sdf >= 0) mesh = m->sdf_mesh[sdf];
  if (mesh >= 0) {
    tf_mesh_view* v = &s->mesh;
    v->nvert = m->mesh_vertnum[mesh];
    v->vert = m->mesh_vert + 3 * m->mesh_vertadr[mesh];
    v->nface = m->mesh_facenum[mesh];
    v->face = m->mesh_face + 3 * m->mesh_faceadr[mesh];
    v->rbound = m->mesh_rbound[mesh];
  }
  int tess = m->geom_tessadr[g];
  if (tess >= 0) {
    tf_mesh_view* v = &s->tess;
    v->nvert = m->geom_tessvertnum[g];
    v->vert = m->tess_vert + 3 * (size_t)tess;
    v->nface = m->geom_tessfacenum[g];
    v->face = m->tess_face + 3 * (size_t)m->geom_tessfaceadr[g];
    v->rbound = m->geom_rbound[g];
  }
  if (sdf >= 0) {
    tf_sdf_view* v = &s->sdf;
    v->fn = m->sdf_fn[sdf];
    v->params = m->sdf_param + m->sdf_paramadr[sdf];
    v->grid = m->sdf_res[3 * sdf] > 0 ? m->sdf_grid + m->sdf_gridadr[sdf] : NULL;
    for (int k = 0; k < 3; k++) v->res[k] = m->sdf_res[3 * sdf + k];
    tf_vec3_copy(v->origin, m->sdf_grid_origin + 3 * sdf);
    v->cell = m->sdf_grid_cell[sdf];
    memcpy(v->aabb, m->sdf_aabb + 6 * sdf, 6 * sizeof(double));
    v->error_bound = m->sdf_error_bound[sdf];
    v->feature_size = m->sdf_feature_size[sdf];
    v->unit_gradient = m->sdf_unit_gradient[sdf];
  }
}

// spatial velocity of every body under the joint velocity v (world origin, [w; v_O])
static void body_velocities(const tf_model* m, const tf_data* d, const double* v, double* cvel) {
  memset(cvel, 0, 6 * sizeof(double));
  for (int b = 1; b < m->nbody; b++) {
    double* c = cvel + 6 * b;
    memcpy(c, cvel + 6 * m->body_parentid[b], 6 * sizeof(double));
    int adr = m->body_dofadr[b];
    for (int i = adr; i < adr + m->body_dofnum[b]; i++) {
      for (int k = 0; k < 6; k++) c[k] += d->cdof[6 * i + k] * v[i];
    }
  }
}

// the rigid motion of geom g under its body's spatial velocity
static void geom_motion(const tf_model* m, const tf_data* d, const double* cvel, int g,
                        tf_shape_motion* motion) {
  const double* c = cvel + 6 * m->geom_bodyid[g];
  double wxp[3];
  tf_vec3_cross(wxp, c, d->geom_xpos + 3 * g);
  tf_vec3_copy(motion->omega, c);
  tf_vec3_add(motion->vel, c + 3, wxp);
}

// how far any point of geom g can travel in time h (a bound, planes do not move)
static double geom_reach(const tf_model* m, const tf_shape_motion* motion, int g, double h) {
  if (m->geom_type[g] == TF_GEOM_PLANE) return 0;
  return h * (tf_vec3_norm(motion->vel) + tf_vec3_norm(motion->omega) * m->geom_rbound[g]);
}

// world AABB of a bounded geom: exact for boxes, the bounding sphere otherwise
static void geom_aabb(const tf_model* m, const tf_data* d, int g, double inflate, double lo[3],
                      double hi[3]) {
  const double* p = d->geom_xpos + 3 * g;
  double half[3];
  if (m->geom_type[g] == TF_GEOM_BOX) {
    const double* R = d->geom_xmat + 9 * g;
    const double* s = m->geom_size + 3 * g;
    for (int k = 0; k < 3; k++) {
      half[k] = fabs(R[3 * k]) * s[0] + fabs(R[3 * k + 1]) * s[1] + fabs(R[3 * k + 2]) * s[2];
    }
  } else {
    half[0] = half[1] = half[2] = m->geom_rbound[g];
  }
  for (int k = 0; k < 3; k++) {
    lo[k] = p[k] - half[k] - inflate;
    hi[k] = p[k] + half[k] + inflate;
  }
}

// an orthonormal contact frame with the given normal; the tangent choice is deterministic
static void contact_frame(double frame[9], const double n[3]) {
  tf_vec3_copy(frame, n);
  // start from the world axis least aligned with the normal
  double a[3] = {0, 0, 0};
  int k = fabs(n[0]) < fabs(n[1]) ? (fabs(n[0]) < fabs(n[2]) ? 0 : 2)
                                  : (fabs(n[1]) < fabs(n[2]) ? 1 : 2);
  a[k] = 1;
  double t1[3], t2[3];
  tf_vec3_cross(t1, n, a);
  tf_vec3_normalize(t1);
  tf_vec3_cross(t2, n, t1);
  tf_vec3_copy(frame + 3, t1);
  tf_vec3_copy(frame + 6, t2);
}

// world point -> body frame and back
static void to_body(const tf_data* d, int b, const double world[3], double local[3]) {
  double rel[3];
  tf_vec3_sub(rel, world, d->xpos + 3 * b);
  tf_mat3_mul_vec_t(local, d->xmat + 9 * b, rel);
}

// writes one contact between geoms g1, g2 (normal from g1 to g2) from the surface points
// p1 on g1 and p2 on g2 given in the current pose; returns 0, or -1 if the buffer is full
static int add_contact(const tf_model* m, tf_data* d, int g1, int g2, const double p1[3],
                       const double p2[3], const double normal[3], int speculative) {
  d->ncon_wanted++;
  if (d->ncon >= m->nconmax) {
    tf_warn(d, TF_WARN_CONTACTFULL);
    return -1;
  }
  tf_contact* c = d->contact + d->ncon++;
  memset(c, 0, sizeof(*c));
  c->geom[0] = g1;
  c->geom[1] = g2;
  for (int k = 0; k < 3; k++) c->pos[k] = 0.5 * (p1[k] + p2[k]);
  double n[3] = {normal[0], normal[1], normal[2]};
  tf_vec3_normalize(n);
  contact_frame(c->frame, n);
  double gap[3];
  tf_vec3_sub(gap, p2, p1);
  c->dist = tf_vec3_dot(gap, n);
  c->mu[0] = fmax(m->geom_friction[2 * g1], m->geom_friction[2 * g2]);
  c->mu[1] = fmax(m->geom_friction[2 * g1 + 1], m->geom_friction[2 * g2 + 1]);
  c->condim = m->geom_condim[g1] > m->geom_condim[g2] ? m->geom_condim[g1] : m->geom_condim[g2];
  for (int k = 0; k < 2; k++)
    c->solref[k] = 0.5 * (m->geom_solref[2 * g1 + k] + m->geom_solref[2 * g2 + k]);
  for (int k = 0; k < 3; k++)
    c->solimp[k] = 0.5 * (m->geom_solimp[3 * g1 + k] + m->geom_solimp[3 * g2 + k]);
  c->efc_adr = -1;
  c->speculative = speculative;
  to_body(d, m->geom_bodyid[g1], p1, c->local[0]);
  to_body(d, m->geom_bodyid[g2], p2, c->local[1]);
  return 0;
}

// world position of a point given in body b's frame
static void from_body(const tf_data* d, int b, const double local[3], double world[3]) {
  tf_mat3_mul_vec(world, d->xmat + 9 * b, local);
  tf_vec3_add(world, world, d->xpos + 3 * b);
}

// contact points of a geom pair found at an advanced pose (time t) within margin of
// touching: each point's two body-fixed surface points are carried back to the current pose
static void add_toi_contacts(const tf_model* m, tf_data* d, int g1, int g2, const tf_shape* s1,
                             const tf_shape* s2, const tf_shape_motion* m1,
                             const tf_shape_motion* m2, double t, double margin) {
  tf_shape a1, a2;
  tf_shape_advance(&a1, s1, m1, t);
  tf_shape_advance(&a2, s2, m2, t);
  tf_contact_point pts[TF_COLLIDE_MAX];
  int n = tf_collide_n(&a1, &a2, margin, m->opt.max_pair_contacts, pts, NULL);
  for (int i = 0; i < n; i++) {
    // surface points at time t, in each geom's frame at time t, then placed with the
    // geom's current pose: the same material points now
    double q1[3], q2[3], l1[3], l2[3], rel[3];
    for (int k = 0; k < 3; k++) {
      q1[k] = pts[i].pos[k] - 0.5 * pts[i].dist * pts[i].normal[k];
      q2[k] = pts[i].pos[k] + 0.5 * pts[i].dist * pts[i].normal[k];
    }
    tf_vec3_sub(rel, q1, a1.pos);
    tf_mat3_mul_vec_t(l1, a1.mat, rel);
    tf_vec3_sub(rel, q2, a2.pos);
    tf_mat3_mul_vec_t(l2, a2.mat, rel);
    tf_mat3_mul_vec(q1, s1->mat, l1);
    tf_vec3_add(q1, q1, s1->pos);
    tf_mat3_mul_vec(q2, s2->mat, l2);
    tf_vec3_add(q2, q2, s2->pos);
    // the normal is the one where the paths meet
    if (add_contact(m, d, g1, g2, q1, q2, pts[i].normal, 1)) return;
  }
}

// field evaluations of one speculative point's path (a point gliding along a wall at
// clearance c takes path / c of them)
#define TRACE_ITERS 2048

static int shape_has_sdf(const tf_shape* s) { return s->sdf.fn != NULL || s->sdf.grid != NULL; }

// A non-convex pair's farther point p closes its gap along p's normal only while the surface
// ahead is that normal's plane: a peg's tip passing a bore's chamfer, or a peg above the rim
// at a large step, closes along the edge's oblique normal and yet never meets it (the ghost
// contact that brakes a part on a surface not in its way). So when one shape carries an SDF,
// the other shape's surface point is sphere-traced through it along its path relative to the
// field's material points over the step (first order, as the rest of the speculative test):
// steps of phi / |v_rel| never pass a surface (phi is 1-Lipschitz). The point becomes a row
// only if its path really reaches the surface (within tol, as tf_time_of_impact), and then
// with the normal and the field's surface point where it does, and its gap along that normal
// now; passing within the always-margin of an edge is not reaching it. Returns 1 with the
// row's points (p1 on s1, p2 on s2), normal (s1 to s2) and the time it meets, 0 when the
// path passes, -1 when neither shape has an SDF or the trace ran out of steps (the caller
// keeps the straight-line test). The field is s2's when it has one, else s1's; a point of a
// pair sampled both ways says whose surface it lies on (p->side), and is traced through the
// other's field, the one it was measured in: traced through the peg's own field, the hole
// floor's point under a landing peg met the peg's chamfer and took its 45 deg normal.
static int trace_point(const tf_shape* s1, const tf_shape_motion* m1, const tf_shape* s2,
                       const tf_shape_motion* m2, const tf_contact_point* p, double h, double tol,
                       double p1[3], double p2[3], double normal[3], double* t_meet) {
  int field_is_2 = shape_has_sdf(s2);
  if (p->side > 0 && shape_has_sdf(s1)) field_is_2 = 0;  // s2's point, measured in s1's field
  if (!field_is_2 && !shape_has_sdf(s1)) return -1;
  const tf_shape* f = field_is_2 ? s2 : s1;
  const tf_shape* x = field_is_2 ? s1 : s2;
  const tf_shape_motion* mf = field_is_2 ? m2 : m1;
  const tf_shape_motion* mx = field_is_2 ? m1 : m2;
  // the other shape's surface point: p's normal points from s1 to s2
  double q[3], r[3], w[3], vx[3], vf[3], vrel[3];
  double side = field_is_2 ? -0.5 : 0.5;
  for (int k = 0; k < 3; k++) q[k] = p->pos[k] + side * p->dist * p->normal[k];
  tf_vec3_sub(r, q, x->pos);
  tf_vec3_cross(w, mx->omega, r);
  tf_vec3_add(vx, mx->vel, w);
  tf_vec3_sub(r, q, f->pos);
  tf_vec3_cross(w, mf->omega, r);
  tf_vec3_add(vf, mf->vel, w);
  tf_vec3_sub(vrel, vx, vf);
  double speed = tf_vec3_norm(vrel), t = 0;
  for (int it = 0; it < TRACE_ITERS; it++) {
    double at[3], g[3];
    for (int k = 0; k < 3; k++) at[k] = q[k] + t * vrel[k];
    double phi = tf_shape_sdf(f, at, g);
    if (!isfinite(phi)) return -1;
    if (phi <= tol) {
      if (tf_vec3_normalize(g) <= 0) return -1;
      // the field's material point met, and the gradient there pointing out of the field
      double s[3];
      for (int k = 0; k < 3; k++) s[k] = at[k] - phi * g[k];
      double sign = field_is_2 ? -1 : 1;
      for (int k = 0; k < 3; k++) normal[k] = sign * g[k];
      tf_vec3_copy(p1, field_is_2 ? q : s);
      tf_vec3_copy(p2, field_is_2 ? s : q);
      *t_meet = t;
      return 1;
    }
    if (speed * (h - t) < phi - tol) return 0;
    t += phi / speed;
  }
  return -1;
}

// warm starts for pair (g1, g2)'s descent from the contacts given: each one's material
// points where they are now; under re-linearisation also where it touched in space. An
// iterate lies a whole step's motion from the collision before it, and the material points
// that touched there have moved on with their parts (a gear's teeth by a tooth pitch at
// 50 Hz), where the next pair of teeth meets on the same line of action: from the material
// points alone the iterates' searches missed tooth pairs 170-230 um deep, which the next
// step's collision found
static void warm_starts(const tf_model* m, const tf_data* d, int g1, int g2, const tf_contact* con,
                        int ncon, double* warm, int* nwarm) {
  int in_space = m->opt.solver_opt.relinearize > 0;
  for (int j = 0; j < ncon && *nwarm < TF_COLLIDE_MAX; j++) {
    const tf_contact* c = con + j;
    if (c->geom[0] != g1 || c->geom[1] != g2) continue;
    double p1[3], p2[3];
    from_body(d, m->geom_bodyid[g1], c->local[0], p1);
    from_body(d, m->geom_bodyid[g2], c->local[1], p2);
    double* w = warm + 3 * (*nwarm)++;
    for (int k = 0; k < 3; k++) w[k] = 0.5 * (p1[k] + p2[k]);
    if (in_space && *nwarm < TF_COLLIDE_MAX) {
      w = warm + 3 * (*nwarm)++;
      for (int k = 0; k < 3; k++) w[k] = c->pos[k];
    }
  }
}

// one run of the collision stage: the bodies' velocities, the step, the motion within which
// a pair recalls its memory (at least opt.persist_tol), and the contacts that came from
// pairs that recalled
typedef struct collision_run {
  const double* cvel;
  double h;
  double recall_tol;
  int ncon_recalled;
} collision_run;

// a pair's contact points within margin: its memory of the last search while that holds
// (collision_persist.c), else a search and its reduction (timed inside; over the pair's cap
// the points that the speculative test below will reject go first, from the motions m1, m2
// over the step h: a gear pair's cap of 8 had kept far flanks 0.3-0.8 mm apart, and dropped
// the entering tooth pair 1 um apart, which then sank 30 um in); *candidates gets the
// search's count before the reduction
static int search_pair(const tf_model* m, tf_data* d, const collision_run* run, int g1, int g2,
                       const tf_shape* s1, const tf_shape* s2, const tf_shape_motion* m1,
                       const tf_shape_motion* m2, double margin, double always,
                       tf_contact_point* pts, int* candidates) {
  int slot = tf_persist_slot(m, g1, g2);
  *candidates = 0;
  double t0 = tf_stage_start();
  double tol = fmax(m->opt.persist_tol, run->recall_tol);
  int n = slot >= 0 ? tf_persist_recall(m, d, slot, s1, s2, margin, tol, pts, candidates) : -1;
  if (n >= 0) {
    d->npair_recalled++;
    tf_stage_add(d, TF_TIMER_PERSIST, t0);
    return n;
  }
  // the pair's contacts of the last step, where they are now: warm starts for a descent
  double warm[3 * TF_COLLIDE_MAX];
  tf_collide_stats stats = {.warm = warm,
                            .nwarm = 0,
                            .touching = m->opt.solver_opt.relinearize > 0,
                            .approach = {.h = run->h, .margin = always}};
  // s1's velocity field relative to s2's: v(p) = v1 + w1 x (p - x1) - v2 - w2 x (p - x2)
  double w[3];
  tf_approach* a = &stats.approach;
  tf_vec3_sub(a->ang, m1->omega, m2->omega);
  tf_vec3_sub(a->lin, m1->vel, m2->vel);
  tf_vec3_cross(w, m1->omega, s1->pos);
  tf_vec3_sub(a->lin, a->lin, w);
  tf_vec3_cross(w, m2->omega, s2->pos);
  tf_vec3_add(a->lin, a->lin, w);
  warm_starts(m, d, g1, g2, d->contact_prev, d->ncon_prev, warm, &stats.nwarm);
  warm_starts(m, d, g1, g2, d->contact_start, d->ncon_start, warm, &stats.nwarm);
  n = tf_collide_n_stats(s1, s2, margin, m->opt.max_pair_contacts, pts, &stats);
  d->timer[TF_TIMER_SEARCH] += tf_stage_since(t0) - stats.reduce_s;
  d->timer[TF_TIMER_REDUCE] += stats.reduce_s;
  *candidates = stats.candidates;
  if (slot >= 0) {
    d->npair_searched++;
    double t1 = tf_stage_start();
    tf_persist_store(m, d, slot, s1, s2, margin, pts, n, &stats);
    tf_stage_add(d, TF_TIMER_PERSIST, t1);
  }
  return n;
}

// narrow phase for one candidate pair: its search and reduction (timed inside), then its
// speculative rows
static void collide_pair_rows(const tf_model* m, tf_data* d, const collision_run* run, int g1,
                              int g2) {
  const double* cvel = run->cvel;
  double h = run->h;
  tf_shape s1, s2;
  tf_geom_shape(m, d, g1, &s1);
  tf_geom_shape(m, d, g2, &s2);
  tf_shape_motion m1, m2;
  geom_motion(m, d, cvel, g1, &m1);
  geom_motion(m, d, cvel, g2, &m2);
  double always = m->opt.min_margin + m->geom_margin[g1] + m->geom_margin[g2];
  double reach = geom_reach(m, &m1, g1, h) + geom_reach(m, &m2, g2, h);
  double margin = always + reach;
  tf_contact_point pts[TF_COLLIDE_MAX];
  int candidates = 0, n = -1;
  if (m->opt.solver_opt.relinearize > 0 && reach > 0) {
    // under re-linearisation the collision at the step's iterate sees where the step takes
    // a pair, so one that touches now needs no speculative rows, and its search keeps to what
    // touches: searched out to its reach, a gear's teeth (4.7 mm of reach at 5 rad/s and
    // 20 ms) filled the pair's cap with points spread over the reach, which were then dropped
    // as speculative. A pair apart at rest is searched again with its reach: a falling
    // part's time of impact keeps it out of a thin wall it could cross within the step
    n = search_pair(m, d, run, g1, g2, &s1, &s2, &m1, &m2, always, always, pts, &candidates);
    if (n == 0) n = -1;
  }
  if (n < 0)
    n = search_pair(m, d, run, g1, g2, &s1, &s2, &m1, &m2, margin, always, pts, &candidates);
  d->ncon_candidates += candidates;
  d->ncon_dropped += candidates - n;
  int speculative = 0, touching = 0;
  for (int i = 0; i < n; i++) {
    const tf_contact_point* p = &pts[i];
    if (p->dist > always) {
      speculative = 1;
      continue;
    }
    touching = 1;
    double p1[3], p2[3];
    for (int k = 0; k < 3; k++) {
      p1[k] = p->pos[k] - 0.5 * p->dist * p->normal[k];
      p2[k] = p->pos[k] + 0.5 * p->dist * p->normal[k];
    }
    if (add_contact(m, d, g1, g2, p1, p2, p->normal, 0)) return;
  }
  if (!speculative) return;
  // time of impact needs two convex distances; meshes and SDFs are not convex, so their
  // farther points take the per-point approach test below, like a touching manifold
  int nonconvex = m->geom_type[g1] >= TF_GEOM_MESH || m->geom_type[g2] >= TF_GEOM_MESH;
  if (touching || nonconvex) {
    // already touching, so a time of impact would answer 0 and re-add the same points. The
    // manifold's farther points (a tilted box's lifted corners) share the touching face's
    // normal, along which their straight-line approach is their real path: each becomes a
    // row if it closes its gap within the step
    double t_first = INFINITY;  // earliest meeting of a traced point (non-convex pairs)
    for (int i = 0; i < n; i++) {
      const tf_contact_point* p = &pts[i];
      if (p->dist <= always) continue;
      double v1[3], v2[3], r[3], w[3];
      tf_vec3_sub(r, p->pos, s1.pos);
      tf_vec3_cross(w, m1.omega, r);
      tf_vec3_add(v1, m1.vel, w);
      tf_vec3_sub(r, p->pos, s2.pos);
      tf_vec3_cross(w, m2.omega, r);
      tf_vec3_add(v2, m2.vel, w);
      double closing = tf_vec3_dot(v1, p->normal) - tf_vec3_dot(v2, p->normal);
      if (p->dist - closing * h > always) continue;
      double p1[3], p2[3];
      if (nonconvex) {
        double n_meet[3];
        double t_meet = 0;
        int met = trace_point(&s1, &m1, &s2, &m2, p, h, 0.25 * m->opt.min_margin, p1, p2, n_meet,
                              &t_meet);
        if (met == 0) continue;
        if (met == 1) {
          t_first = fmin(t_first, t_meet);
          if (add_contact(m, d, g1, g2, p1, p2, n_meet, 1)) return;
          continue;
        }
      }
      for (int k = 0; k < 3; k++) {
        p1[k] = p->pos[k] - 0.5 * p->dist * p->normal[k];
        p2[k] = p->pos[k] + 0.5 * p->dist * p->normal[k];
      }
      if (add_contact(m, d, g1, g2, p1, p2, p->normal, 1)) return;
    }
    // the traced points are the few the reducer kept at the current pose, not the manifold
    // the shapes will have when they meet (a peg landing flat kept one tip point of its rim
    // and tilted onto the rest): add that manifold too, as a convex pair's time of impact does.
    // Under re-linearisation the traced points' rows still stop the first meeting (a thin
    // wall stays uncrossed), and the rest of the face is the iterate's: its collision finds
    // it where the step takes the pair, and the next pass solves with it. The manifold's
    // search reaches out to the step's remaining reach: a peg landing on its hole's chamfer
    // at 20 ms searched 7 mm around, 11 % of the whole run's instructions for one search
    if (t_first <= h && !touching && m->opt.solver_opt.relinearize == 0) {
      // at the first meeting the rest of the face lands within the step's remaining reach
      double rest = (h - t_first) / h * reach;
      add_toi_contacts(m, d, g1, g2, &s1, &s2, &m1, &m2, t_first, always + rest);
    }
    return;
  }
  // a separated pair: the farther points count only if the paths over the step really meet
  double normal[3], pa[3], pb[3];
  double t = tf_time_of_impact(&s1, &m1, &s2, &m2, h, 0.25 * m->opt.min_margin, normal, pa, pb);
  if (t <= h) add_toi_contacts(m, d, g1, g2, &s1, &s2, &m1, &m2, t, m->opt.min_margin + 1e-9);
}

// collide_pair_rows, timed: what its search, reduction and memory did not take is the
// speculative part
static void collide_pair(const tf_model* m, tf_data* d, collision_run* run, int g1, int g2) {
  double t0 = tf_stage_start();
  double before =
      d->timer[TF_TIMER_SEARCH] + d->timer[TF_TIMER_REDUCE] + d->timer[TF_TIMER_PERSIST];
  int ncon0 = d->ncon, searched0 = d->npair_searched, recalled0 = d->npair_recalled;
  collide_pair_rows(m, d, run, g1, g2);
  if (d->npair_recalled > recalled0 && d->npair_searched == searched0)
    run->ncon_recalled += d->ncon - ncon0;
  double after = d->timer[TF_TIMER_SEARCH] + d->timer[TF_TIMER_REDUCE] + d->timer[TF_TIMER_PERSIST];
  d->timer[TF_TIMER_SPECULATIVE] += tf_stage_since(t0) - (after - before);
}

// the rows of a pair the overlap checks start from, and their starts with the midpoints
#define ITERATE_ROWS 16
#define ITERATE_STARTS (ITERATE_ROWS + ITERATE_ROWS * (ITERATE_ROWS - 1) / 2)
// two rows' normals this close to parallel (within 2.6 deg) make no corner between them
#define CORNER_COS 0.999

int tf_collision_descent_contacts(const tf_model* m, const tf_data* d) {
  for (int i = 0; i < d->ncon; i++) {
    const tf_contact* c = d->contact + i;
    if (m->geom_type[c->geom[0]] == TF_GEOM_SDF && m->geom_type[c->geom[1]] == TF_GEOM_SDF)
      return 1;
  }
  return 0;
}

int tf_collision_at_iterate(const tf_model* m, tf_data* d, const double* v, double h, double tol) {
  double t0 = tf_stage_start();
  int ncon0 = d->ncon, added = 0;
  size_t mark = tf_arena_mark(d);
  double* cvel = tf_arena_doubles(d, 6 * (size_t)m->nbody);
  body_velocities(m, d, v, cvel);
  for (int i = 0; i < ncon0; i++) {
    int g1 = d->contact[i].geom[0], g2 = d->contact[i].geom[1];
    if (m->geom_type[g1] != TF_GEOM_SDF || m->geom_type[g2] != TF_GEOM_SDF) continue;
    int first = 1;  // each pair once, at its first contact
    for (int j = 0; j < i && first; j++) {
      first = d->contact[j].geom[0] != g1 || d->contact[j].geom[1] != g2;
    }
    if (!first) continue;
    // a pair that moved by more than a quarter of its repeated features' spacing this step
    // (a gear turning half a tooth at 10 ms) could overlap a copy other than the one its rows
    // hold, and pushing that apart completes a skipped tooth: such a pair is not checked
    double spacing =
        fmax(m->sdf_feature_size[m->geom_sdfid[g1]], m->sdf_feature_size[m->geom_sdfid[g2]]);
    tf_shape_motion m1, m2;
    geom_motion(m, d, cvel, g1, &m1);
    geom_motion(m, d, cvel, g2, &m2);
    double moved = geom_reach(m, &m1, g1, h) + geom_reach(m, &m2, g2, h);
    if (spacing > 0 && moved > 0.25 * spacing) continue;
    // the pair's rows, each at the midpoint of its two material points where the
    // configuration puts them, and the midpoints between every two of them whose normals
    // differ (the first ITERATE_ROWS): their half-spaces meet at a corner there, which may lie
    // inside the true surface (a bore on its shaft overlaps between two rows of its ring);
    // rows with one normal (a flank's, a face's) make no corner between them
    double starts[3 * ITERATE_STARTS], normals[3 * ITERATE_ROWS];
    int n = 0;
    for (int j = i; j < ncon0 && n < ITERATE_ROWS; j++) {
      const tf_contact* c = d->contact + j;
      if (c->geom[0] != g1 || c->geom[1] != g2) continue;
      double p1[3], p2[3];
      from_body(d, m->geom_bodyid[g1], c->local[0], p1);
      from_body(d, m->geom_bodyid[g2], c->local[1], p2);
      for (int k = 0; k < 3; k++) starts[3 * n + k] = 0.5 * (p1[k] + p2[k]);
      tf_vec3_copy(normals + 3 * n, c->frame);
      n++;
    }
    int nrow = n;
    for (int a = 0; a < nrow; a++) {
      for (int b = a + 1; b < nrow; b++) {
        if (fabs(tf_vec3_dot(normals + 3 * a, normals + 3 * b)) > CORNER_COS) continue;
        for (int k = 0; k < 3; k++)
          starts[3 * n + k] = 0.5 * (starts[3 * a + k] + starts[3 * b + k]);
        n++;
      }
    }
    tf_shape s1, s2;
    tf_geom_shape(m, d, g1, &s1);
    tf_geom_shape(m, d, g2, &s2);
    tf_contact_point pts[TF_COLLIDE_MAX];
    // the rows descend (a tooth pair turns on); the corners are measured where they are
    int found = tf_sdf_descend_from(&s1, &s2, starts, n, nrow, -tol, pts, TF_COLLIDE_MAX);
    for (int k = 0; k < found; k++) {
      double p1[3], p2[3];
      for (int r = 0; r < 3; r++) {
        p1[r] = pts[k].pos[r] - 0.5 * pts[k].dist * pts[k].normal[r];
        p2[r] = pts[k].pos[r] + 0.5 * pts[k].dist * pts[k].normal[r];
      }
      if (add_contact(m, d, g1, g2, p1, p2, pts[k].normal, 0)) break;
      added++;
    }
  }
  tf_arena_release(d, mark);
  // a search of the collision stage's, outside its own call
  double spent = tf_stage_since(t0);
  d->timer[TF_TIMER_COLLISION] += spent;
  d->timer[TF_TIMER_SEARCH] += spent;
  return added;
}

// warm start: impulses of the previous step's contacts at the same body-fixed points
static void match_previous(const tf_model* m, tf_data* d) {
  for (int i = 0; i < d->ncon; i++) {
    tf_contact* c = d->contact + i;
    double best = 1e-6;  // squared matching radius: 1 mm
    const tf_contact* match = NULL;
    for (int j = 0; j < d->ncon_prev; j++) {
      const tf_contact* p = d->contact_prev + j;
      if (p->geom[0] != c->geom[0] || p->geom[1] != c->geom[1]) continue;
      double diff[3];
      tf_vec3_sub(diff, p->local[0], c->local[0]);
      double dd = tf_vec3_dot(diff, diff);
      if (dd < best) {
        best = dd;
        match = p;
      }
    }
    if (!match) continue;
    // carry the tangential impulse through world space into the new tangent basis
    double tw[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++)
      tw[k] = match->lambda[1] * match->frame[3 + k] + match->lambda[2] * match->frame[6 + k];
    c->lambda[0] = match->lambda[0];
    c->lambda[1] = tf_vec3_dot(tw, c->frame + 3);
    c->lambda[2] = tf_vec3_dot(tw, c->frame + 6);
    c->lambda[3] = match->lambda[3];
  }
  (void)m;
}

// the collision parts that are timed where they happen
static double timed_parts(const tf_data* d) {
  return d->timer[TF_TIMER_SEARCH] + d->timer[TF_TIMER_REDUCE] + d->timer[TF_TIMER_SPECULATIVE] +
         d->timer[TF_TIMER_PERSIST];
}

// the collision stage's total since t0; the broadphase is what the timed parts did not take
// since they read parts0 (timers add up over a step's substeps)
static void finish_timers(tf_data* d, double t0, double parts0) {
  double total = tf_stage_since(t0);
  d->timer[TF_TIMER_COLLISION] += total;
  d->timer[TF_TIMER_BROADPHASE] += total - (timed_parts(d) - parts0);
}

void tf_collision(const tf_model* m, tf_data* d, const double* v_predicted, double h) {
  tf_collision_recall(m, d, v_predicted, h, 0);
}

int tf_collision_recall(const tf_model* m, tf_data* d, const double* v_predicted, double h,
                        double recall_tol) {
  double t0 = tf_stage_start(), parts0 = timed_parts(d);
  // keep the last step's contacts for warm starts
  memcpy(d->contact_prev, d->contact, sizeof(tf_contact) * (size_t)d->ncon);
  d->ncon_prev = d->ncon;
  d->ncon = 0;
  d->ncon_wanted = 0;
  d->ncon_candidates = 0;
  d->ncon_dropped = 0;
  d->npair_searched = d->npair_recalled = 0;
  int ng = m->ngeom;
  if (ng < 2) {
    finish_timers(d, t0, parts0);
    return 0;
  }
  size_t mark = tf_arena_mark(d);
  double* cvel = tf_arena_doubles(d, 6 * (size_t)m->nbody);
  double* box = tf_arena_doubles(d, 6 * (size_t)ng);  // lo[3], hi[3] per geom
  int* order = (int*)tf_arena_doubles(d, (size_t)ng);
  body_velocities(m, d, v_predicted, cvel);
  collision_run run = {.cvel = cvel, .h = h, .recall_tol = recall_tol, .ncon_recalled = 0};
  int nbounded = 0;
  for (int g = 0; g < ng; g++) {
    tf_shape_motion mo;
    geom_motion(m, d, cvel, g, &mo);
    double inflate = m->opt.min_margin + m->geom_margin[g] + geom_reach(m, &mo, g, h);
    if (m->geom_type[g] == TF_GEOM_PLANE) continue;
    geom_aabb(m, d, g, inflate, box + 6 * g, box + 6 * g + 3);
    // insertion sort by the lower x bound: geoms stay nearly sorted from step to step
    int k = nbounded++;
    while (k > 0 && box[6 * order[k - 1]] > box[6 * g]) {
      order[k] = order[k - 1];
      k--;
    }
    order[k] = g;
  }
  // planes against every bounded geom whose inflated box reaches below them
  for (int p = 0; p < ng; p++) {
    if (m->geom_type[p] != TF_GEOM_PLANE) continue;
    const double* n = d->geom_xmat + 9 * p;  // third column is the normal
    double normal[3] = {n[2], n[5], n[8]};
    for (int i = 0; i < nbounded; i++) {
      int g = order[i];
      if (!tf_collision_filter(m, p, g)) continue;
      double centre[3], half[3], rel[3];
      for (int k = 0; k < 3; k++) {
        centre[k] = 0.5 * (box[6 * g + k] + box[6 * g + 3 + k]);
        half[k] = 0.5 * (box[6 * g + 3 + k] - box[6 * g + k]);
      }
      tf_vec3_sub(rel, centre, d->geom_xpos + 3 * p);
      double extent =
          fabs(normal[0]) * half[0] + fabs(normal[1]) * half[1] + fabs(normal[2]) * half[2];
      if (tf_vec3_dot(rel, normal) - extent <= 0) collide_pair(m, d, &run, p, g);
    }
  }
  // sweep and prune along x
  for (int i = 0; i < nbounded; i++) {
    int a = order[i];
    for (int j = i + 1; j < nbounded; j++) {
      int b = order[j];
      if (box[6 * b] > box[6 * a + 3]) break;
      int overlap = 1;
      for (int k = 1; k < 3; k++) {
        overlap &= box[6 * b + k] <= box[6 * a + 3 + k] && box[6 * a + k] <= box[6 * b + 3 + k];
      }
      if (!overlap || !tf_collision_filter(m, a, b)) continue;
      // a fixed geom order keeps contacts (and results) independent of the sort
      if (a < b) {
        collide_pair(m, d, &run, a, b);
      } else {
        collide_pair(m, d, &run, b, a);
      }
    }
  }
  double t_match = tf_stage_start();
  match_previous(m, d);
  tf_stage_add(d, TF_TIMER_PERSIST, t_match);
  tf_arena_release(d, mark);
  finish_timers(d, t0, parts0);
  return run.ncon_recalled;
}
