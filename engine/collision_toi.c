// Times of impact by conservative advancement (Mirtich, "Impulse-based dynamic simulation of
// rigid body systems", PhD thesis 1996, ch. 3; Zhang, Redon, Lee and Kim, "Continuous
// collision detection for articulated models using Taylor models and temporal culling",
// SIGGRAPH 2007).
//
// Each shape moves rigidly over the step: its frame origin with constant velocity v, its
// frame rotated about that origin by exp([w] t) (world axes), so a surface point at offset r
// from the origin moves with velocity v + w x r and |r| <= rbound.
//
// At time t the shapes are d apart with unit normal n (a to b), so a plane with normal n
// separates them by d: n . (x_b - x_a) >= d for every pair of surface points. That bound
// can shrink no faster than
//   mu = max(0, -n . (v_b - v_a)) + |w_a| rbound_a + |w_b| rbound_b,
// because n . (x_b - x_a) changes at n . (v_b - v_a) + n . (w_b x r_b - w_a x r_a). The
// distance, never below that bound, therefore stays positive until t + d / mu: advancing by
// d / mu never steps over a contact. Only the closing part of n . (v_b - v_a) counts (not
// its absolute value): a receding translation cannot shrink the bound, so such a pair ends at
// once with no impact instead of crawling to the horizon. Repeat until d <= tolerance (impact at
// t), or until mu = 0 or t passes the horizon (no impact: horizon + 1). Head-on translation lands
// on the contact in one step (mu is then the exact closing speed); a grazing pass takes big steps
// as n turns away from the velocity.
//
// A plane has no bounded radius; its rotation term uses the distance from its frame origin to
// the farthest point of the other shape over the rest of the horizon instead. At the
// iteration cap the current time is returned as the impact: early, never late.
#include <float.h>
#include <math.h>
#include <string.h>

#include "collision.h"
#include "tf_math.h"

#define TOI_MAX_ITER 512

// translation by vel t, then rotation of the frame by exp(omega t) about its own origin
void tf_shape_advance(tf_shape* out, const tf_shape* s, const tf_shape_motion* motion, double t) {
  tf_shape moved = *s;
  double rotvec[3], q[4], rot[9];
  for (int k = 0; k < 3; k++) {
    moved.pos[k] = s->pos[k] + motion->vel[k] * t;
    rotvec[k] = motion->omega[k] * t;
  }
  tf_quat_from_rotvec(q, rotvec);
  tf_quat_to_mat(rot, q);
  tf_mat3_mul(moved.mat, rot, s->mat);
  *out = moved;
}

// how fast the rotation of shape s can close the gap to shape other, over what is left of
// the horizon
static double rotation_speed(const tf_shape* s, const tf_shape_motion* ms, const tf_shape* other,
                             const tf_shape_motion* mo, double remaining) {
  double w = tf_vec3_norm(ms->omega);
  if (w == 0) return 0;
  if (s->type != TF_GEOM_PLANE) return w * tf_shape_bound(s);
  // a turning plane: its points that matter lie within reach of the other shape
  double d[3], dv[3];
  tf_vec3_sub(d, other->pos, s->pos);
  tf_vec3_sub(dv, mo->vel, ms->vel);
  double reach = tf_vec3_norm(d) + tf_shape_bound(other) + tf_vec3_norm(dv) * remaining;
  return w * reach;
}

// conservative advancement: step by distance over the bound on the closing speed
double tf_time_of_impact(const tf_shape* a, const tf_shape_motion* ma, const tf_shape* b,
                         const tf_shape_motion* mb, double horizon, double tolerance,
                         double normal[3], double pa[3], double pb[3]) {
  double t = 0, dv[3];
  tf_vec3_sub(dv, mb->vel, ma->vel);
  for (int iter = 0; iter < TOI_MAX_ITER; iter++) {
    tf_shape sa, sb;
    double n[3], qa[3], qb[3];
    tf_shape_advance(&sa, a, ma, t);
    tf_shape_advance(&sb, b, mb, t);
    double d = tf_shape_distance(&sa, &sb, qa, qb, n);
    if (d <= tolerance || iter == TOI_MAX_ITER - 1) {
      tf_vec3_copy(normal, n);
      tf_vec3_copy(pa, qa);
      tf_vec3_copy(pb, qb);
      return t;
    }
    double remaining = horizon - t;
    double mu = fmax(0, -tf_vec3_dot(n, dv)) + rotation_speed(&sa, ma, &sb, mb, remaining) +
                rotation_speed(&sb, mb, &sa, ma, remaining);
    // never NaN: a NaN distance or speed ends the search as no impact
    if (!(mu > 0) || !(d / mu <= remaining)) return horizon + 1;
    t += d / mu;
  }
  return horizon + 1;  // not reached: the last iteration returns t
}
