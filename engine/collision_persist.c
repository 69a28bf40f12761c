// Contacts that persist across steps (collision_persist.h).
//
// A part resting in its seat, a plug held in its socket, a peg waiting in a gripper beside
// its hole: the surfaces touch at the same places step after step, and the search (thousands
// of field queries on a tight fit, nearly every sample within the margin) finds the same
// points again, moved by rounding. So each pair that meets a mesh or an SDF remembers its
// last search: its points as material points, one on each geom in that geom's frame, the
// normal in a fixture's frame (or the second geom's), the geoms' poses and the margin
// searched with.
//
// Recall. With A the first geom's frame and B the second's, A's pose in B is R = R_B^T R_A,
// t = R_B^T (p_A - p_B). Since the search (R_0, t_0) a point x of A (|x| <= r_A, its bounding
// radius) has moved in B by (R - R_0) x + (t - t_0), at most |R - R_0|_F r_A + |t - t_0|,
// and a point y of B in A by at most |R - R_0|_F r_B + |R^T t - R_0^T t_0|. Let delta be the
// larger. While delta <= tol (opt.persist_tol) and the margin (min_margin plus the step's
// speculative reach) exceeds the search's by at most tol, the pair's points are recalled:
// both material points placed with the current poses, the gap measured between them along
// the normal. That is the gap a search would measure at the same places to first order (in
// B's frame the field's point stays, the sampled point moves by at most delta, and the
// surface's curvature bends the difference by delta^2 over its radius). What a search would
// do differently is choose its points among surface samples whose gaps each moved by at most
// delta: a sample it would now add lay at least the search's margin from the other part and
// is now at least margin - 2 tol from it, so it would come within reach of the other surface
// this step only by closing the last 2 tol. Every row is therefore the search's to 2 tol.
// Once the pair moves more (a part pushed, dropped, released), the next step searches again.
//
// The rest of the pipeline sees recalled points exactly as searched ones: the speculative
// test with this step's velocities, the warm start by material point (which recall keeps
// fixed, so it matches by construction).
#include "collision_persist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collision_stage.h"
#include "tf_math.h"

// m: rounding of the values a lower bound of the gap was taken from (at most ~1e-16 of the
// parts' size; a part of a metre rounds at 1e-16 m)
#define CLEAR_SLACK 1e-12

// whether a pair of geom types is searched by sampling or descent (a mesh or SDF on either
// side): the searches worth remembering; primitive and hull pairs are closed forms and GJK
int tf_persist_pairs_build(tf_model* m) {
  m->npersist = 0;
  m->persist_geom = NULL;
  if (!(m->opt.persist_tol > 0)) return 0;
  for (int pass = 0; pass < 2; pass++) {
    int n = 0;
    for (int g1 = 0; g1 < m->ngeom && n < TF_PERSIST_PAIRS_MAX; g1++) {
      int t1 = m->geom_type[g1];
      if (t1 == TF_GEOM_PLANE) continue;
      for (int g2 = g1 + 1; g2 < m->ngeom && n < TF_PERSIST_PAIRS_MAX; g2++) {
        int t2 = m->geom_type[g2];
        if (t2 == TF_GEOM_PLANE) continue;
        int sampled = t1 >= TF_GEOM_MESH || t2 >= TF_GEOM_MESH;
        if (!sampled || !tf_collision_filter(m, g1, g2)) continue;
        if (pass == 1) {
          m->persist_geom[2 * n] = g1;
          m->persist_geom[2 * n + 1] = g2;
        }
        n++;
      }
    }
    if (pass == 0) {
      if (n == 0) return 0;
      m->persist_geom = malloc(sizeof(int) * 2 * (size_t)n);
      if (!m->persist_geom) return -1;
      m->npersist = n;
    }
  }
  return 0;
}

int tf_persist_slot(const tf_model* m, int g1, int g2) {
  // the list is sorted by (g1, g2)
  int lo = 0, hi = m->npersist - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    const int* p = m->persist_geom + 2 * mid;
    if (p[0] == g1 && p[1] == g2) return mid;
    if (p[0] < g1 || (p[0] == g1 && p[1] < g2)) {
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return -1;
}

void tf_persist_forget(const tf_model* m, tf_data* d) {
  for (int i = 0; i < m->npersist; i++) d->pair_memory[i].npoint = -1;
}

// A's pose in B: rot = Rb^T Ra, off = Rb^T (pa - pb)
static void pose_in(double rot[9], double off[3], const double Ra[9], const double pa[3],
                    const double Rb[9], const double pb[3]) {
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      rot[3 * i + j] = Rb[i] * Ra[j] + Rb[3 + i] * Ra[3 + j] + Rb[6 + i] * Ra[6 + j];
    }
  }
  double rel[3];
  tf_vec3_sub(rel, pa, pb);
  tf_mat3_mul_vec_t(off, Rb, rel);
}

// the most any surface point of either geom has moved relative to the other since the
// memory's poses (see the note at the top)
static double relative_motion(const tf_model* m, const tf_pair_memory* mem, int g1, int g2,
                              const tf_shape* s1, const tf_shape* s2) {
  double rot0[9], off0[3], rot[9], off[3];
  pose_in(rot0, off0, mem->mat[0], mem->pos[0], mem->mat[1], mem->pos[1]);
  pose_in(rot, off, s1->mat, s1->pos, s2->mat, s2->pos);
  double turned = 0;
  for (int k = 0; k < 9; k++) turned += (rot[k] - rot0[k]) * (rot[k] - rot0[k]);
  turned = sqrt(turned);
  double moved[3], back[3], back0[3];
  tf_vec3_sub(moved, off, off0);
  // B's origin in A: -R^T t (the sign does not matter for the difference's length)
  tf_mat3_mul_vec_t(back, rot, off);
  tf_mat3_mul_vec_t(back0, rot0, off0);
  tf_vec3_sub(back, back, back0);
  double a = turned * m->geom_rbound[g1] + tf_vec3_norm(moved);
  double b = turned * m->geom_rbound[g2] + tf_vec3_norm(back);
  return fmax(a, b);
}

// the frame a remembered normal turns with: a fixture's (the hole, the socket, the bolt, a
// shaft: a surface that does not move, whose normals do not either), else the second geom's
static const double* normal_frame(const tf_model* m, int g1, const tf_shape* s1,
                                  const tf_shape* s2) {
  return tf_body_is_static(m, m->geom_bodyid[g1]) ? s1->mat : s2->mat;
}

int tf_persist_recall(const tf_model* m, const tf_data* d, int slot, const tf_shape* s1,
                      const tf_shape* s2, double margin, double tol, tf_contact_point* out,
                      int* candidates) {
  const tf_pair_memory* mem = d->pair_memory + slot;
  if (mem->npoint < 0) return -1;
  int g1 = m->persist_geom[2 * slot], g2 = m->persist_geom[2 * slot + 1];
  double moved = relative_motion(m, mem, g1, g2, s1, s2);
  *candidates = mem->candidates;
  // apart: every sampled point's gap fell by at most the motion (twice it, for fields whose
  // slope exceeds 1 a little, such as a grid's interpolant), so a search finds nothing
  if (mem->npoint == 0 && mem->clear - 2 * moved - CLEAR_SLACK > margin) return 0;
  if (!(moved <= tol) || !(margin <= mem->margin + tol)) return -1;
  const tf_pair_point* pts = d->pair_point + (size_t)slot * (size_t)m->opt.max_pair_contacts;
  const double* frame = normal_frame(m, g1, s1, s2);
  for (int i = 0; i < mem->npoint; i++) {
    const tf_pair_point* p = pts + i;
    double q1[3], q2[3], n[3], gap[3];
    tf_mat3_mul_vec(q1, s1->mat, p->local[0]);
    tf_vec3_add(q1, q1, s1->pos);
    tf_mat3_mul_vec(q2, s2->mat, p->local[1]);
    tf_vec3_add(q2, q2, s2->pos);
    tf_mat3_mul_vec(n, frame, p->normal);
    tf_vec3_sub(gap, q2, q1);
    tf_contact_point* c = out + i;
    memset(c, 0, sizeof(*c));
    for (int k = 0; k < 3; k++) c->pos[k] = 0.5 * (q1[k] + q2[k]);
    tf_vec3_copy(c->normal, n);
    c->dist = tf_vec3_dot(gap, n);
    c->side = p->side;
  }
  return mem->npoint;
}

void tf_persist_store(const tf_model* m, tf_data* d, int slot, const tf_shape* s1,
                      const tf_shape* s2, double margin, const tf_contact_point* pts, int n,
                      const tf_collide_stats* stats) {
  tf_pair_memory* mem = d->pair_memory + slot;
  tf_pair_point* out = d->pair_point + (size_t)slot * (size_t)m->opt.max_pair_contacts;
  const double* frame = normal_frame(m, m->persist_geom[2 * slot], s1, s2);
  mem->npoint = n;
  mem->candidates = stats->candidates;
  mem->clear = stats->clear;
  mem->margin = margin;
  tf_vec3_copy(mem->pos[0], s1->pos);
  tf_vec3_copy(mem->pos[1], s2->pos);
  memcpy(mem->mat[0], s1->mat, sizeof(mem->mat[0]));
  memcpy(mem->mat[1], s2->mat, sizeof(mem->mat[1]));
  for (int i = 0; i < n; i++) {
    const tf_contact_point* c = pts + i;
    double q1[3], q2[3], rel[3];
    // the surface points either side of the midpoint, as the collision stage takes them
    for (int k = 0; k < 3; k++) {
      q1[k] = c->pos[k] - 0.5 * c->dist * c->normal[k];
      q2[k] = c->pos[k] + 0.5 * c->dist * c->normal[k];
    }
    tf_pair_point* p = out + i;
    tf_vec3_sub(rel, q1, s1->pos);
    tf_mat3_mul_vec_t(p->local[0], s1->mat, rel);
    tf_vec3_sub(rel, q2, s2->pos);
    tf_mat3_mul_vec_t(p->local[1], s2->mat, rel);
    tf_mat3_mul_vec_t(p->normal, frame, c->normal);
    p->side = c->side;
  }
}
