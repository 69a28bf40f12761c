// A screw thread's meridional section at any angle, its envelope and the angles where its
// kinks meet the static lines (the design is in sdf_profile.c's header).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile_internal.h"

// the smallest global kink index whose z is above z
static long kink_after(const tf_profile_thread* t, double s, double z) {
  long g = (long)floor((z - s) / t->pitch - 1.0) * t->nkink;
  while (kink_z(t, s, g) <= z) g++;
  return g;
}

// the line of thread segment g (from kink g to kink g + 1)
static env_line thread_line(const tf_profile_thread* t, double s, long g) {
  double za = kink_z(t, s, g), zb = kink_z(t, s, g + 1);
  double ra = kink_r(t, g), rb = kink_r(t, g + 1);
  env_line l;
  l.b = (rb - ra) / (zb - za);
  l.a = ra - l.b * za;
  l.moving = 1, l.g = g, l.sid = -1;
  return l;
}

// the envelope at z from the profile segment there and the static lines
double tf_profile_thread_radius(const tf_profile_thread* t, double theta, double z) {
  z = clampd(z, t->z0, t->z1);
  double s = lead_of(t) * theta;
  env_line lines[1 + 2 * TF_PROFILE_MAXLINE];
  lines[0] = thread_line(t, s, kink_after(t, s, z) - 1);
  static_lines(lines + 1, t);
  return envelope(t, lines, z, NULL);
}

// the key of the crossing of a line with static line `end` (a static id or an end)
static int key_line(const env_line* l, int end) {
  if (l->moving) return (int)(((l->g + KEY_OFF) << 5) | (1 + end));
  int lo = l->sid < end ? l->sid : end, hi = l->sid < end ? end : l->sid;
  return (1 << 30) | (lo << 5) | hi;
}

// the key of the crossing of two envelope lines
static int key_pair(const env_line* l1, const env_line* l2) {
  if (l1->moving && l2->moving) return (int)((((l1->g > l2->g ? l1->g : l2->g)) + KEY_OFF) << 5);
  if (l1->moving) return key_line(l1, l2->sid);
  return key_line(l2, l1->sid);
}

// velocity of the crossing of two lines: each line r - b z = a moves with da/dphi
static void crossing_velocity(double w[2], const env_line* l1, const env_line* l2, double lead) {
  if (l1->moving && l2->moving) {
    w[0] = 0, w[1] = lead;
    return;
  }
  double c1 = l1->moving ? -l1->b * lead : 0, c2 = l2->moving ? -l2->b * lead : 0;
  double den = l2->b - l1->b;
  double wz = fabs(den) > 1e-12 ? (c1 - c2) / den : 0;
  w[0] = c1 + l1->b * wz, w[1] = wz;
}

// velocity of the point where a line meets an end plane z = const
static void end_velocity(double w[2], const env_line* l, double lead) {
  w[0] = l->moving ? -l->b * lead : 0, w[1] = 0;
}

// velocity of a point carried by the line itself (a cut of the window)
static void line_velocity(double w[2], const env_line* l, double lead) {
  w[0] = 0, w[1] = l->moving ? lead : 0;
}

// keeps c0 + phi c1 >= 0 within the range phi
static void limit(double phi[2], double c0, double c1) {
  if (c1 > 0) phi[0] = maxd(phi[0], -c0 / c1);
  if (c1 < 0) phi[1] = mind(phi[1], -c0 / c1);
}

// the turn range over which a vertex at p moving with w stays where it is on the envelope:
// within the thread's length, on the kept side of every static line other than its own
// (own1, own2: sids, -1 for none) and, if it slides along thread segment g (on_seg), between
// that segment's ends
static void vertex_range(double phi[2], const tf_profile_thread* t, const env_line* st, int ns,
                         double s, const double p[2], const double w[2], int own1, int own2,
                         int on_seg, long g) {
  phi[0] = -PHI_MAX, phi[1] = PHI_MAX;
  if (w[0] == 0 && w[1] == 0 && !on_seg) {
    // a point of static lines alone: whether the thread covers it at other angles is not
    // worked out, so it only counts where it was found
    phi[0] = phi[1] = 0;
    return;
  }
  limit(phi, p[1] - t->z0, w[1]);
  limit(phi, t->z1 - p[1], -w[1]);
  for (int j = 0; j < ns; j++) {
    if (st[j].sid == own1 || st[j].sid == own2) continue;
    double c0 = p[0] - st[j].a - st[j].b * p[1], c1 = w[0] - st[j].b * w[1];
    if (j < t->nlo) {
      limit(phi, c0, c1);
    } else {
      limit(phi, -c0, -c1);
    }
  }
  if (on_seg) {
    double lead = lead_of(t);
    limit(phi, p[1] - kink_z(t, s, g), w[1] - lead);
    limit(phi, kink_z(t, s, g + 1) - p[1], lead - w[1]);
  }
  phi[0] = mind(phi[0], 0), phi[1] = maxd(phi[1], 0);
}

// appends a vertex (and the velocity of the segment before it); 0, or -1 when full
static int emit(tf_profile_vertex* v, double* segw, int* count, int cap, double r, double z,
                const double w[2], int key, const double wseg[2]) {
  if (*count >= cap) return -1;
  tf_profile_vertex* x = &v[*count];
  x->p[0] = r, x->p[1] = z, x->w[0] = w[0], x->w[1] = w[1];
  x->phi[0] = x->phi[1] = 0;
  x->nkey = key ? 1 : 0;
  x->key[0] = key;
  if (*count > 0 && segw) segw[2 * (*count - 1)] = wseg[0], segw[2 * (*count - 1) + 1] = wseg[1];
  (*count)++;
  return 0;
}

// walks the profile segments through [za, zb]; within each, the lines' crossings split it
// into pieces with one active line, and each change of active line is a vertex
int tf_profile_thread_section(tf_profile_vertex* v, double* segw, int cap,
                              const tf_profile_thread* t, double theta, double za, double zb) {
  if (za < t->z0) za = t->z0;
  if (zb > t->z1) zb = t->z1;
  if (za > zb) return 0;
  double lead = lead_of(t), s = lead * theta;
  env_line lines[1 + 2 * TF_PROFILE_MAXLINE];
  int nstat = static_lines(lines + 1, t), nl = 1 + nstat;
  long g = kink_after(t, s, za) - 1;
  int count = 0, started = 0;
  // cur is the active line once started; until then it is only compared, never used
  env_line cur = thread_line(t, s, g);
  double x = za, w[2], wl[2];
  for (;;) {
    lines[0] = thread_line(t, s, g);
    double zk = kink_z(t, s, g + 1);
    double xb = zk < zb ? zk : zb;
    double bp[2 + (1 + 2 * TF_PROFILE_MAXLINE) * (1 + 2 * TF_PROFILE_MAXLINE)];
    int nb = 0;
    bp[nb++] = x;
    for (int i = 0; i < nl; i++) {
      for (int j = i + 1; j < nl; j++) {
        if (lines[i].b == lines[j].b) continue;
        double zc = (lines[j].a - lines[i].a) / (lines[i].b - lines[j].b);
        if (zc > x && zc < xb) bp[nb++] = zc;
      }
    }
    sort_doubles(bp + 1, nb - 1);
    bp[nb++] = xb;
    for (int k = 0; k + 1 < nb; k++) {
      if (bp[k + 1] <= bp[k] && !(nb == 2 && !started)) continue;
      int which;
      envelope(t, lines, 0.5 * (bp[k] + bp[k + 1]), &which);
      env_line act = lines[which];
      int same = act.moving == cur.moving && (act.moving ? act.g == cur.g : act.sid == cur.sid);
      if (!started) {
        double r = act.a + act.b * bp[k];
        int key = 0;
        if (bp[k] == t->z0) {
          end_velocity(w, &act, lead);
          key = key_line(&act, END0);
        } else {
          line_velocity(w, &act, lead);
        }
        if (emit(v, segw, &count, cap, r, bp[k], w, key, w)) return -1;
        vertex_range(v[count - 1].phi, t, lines + 1, nstat, s, v[count - 1].p, w,
                     act.moving ? -1 : act.sid, -1, act.moving, act.g);
        started = 1;
      } else if (!same) {
        double r, z = bp[k];
        int kink = act.moving && cur.moving;
        if (kink) {
          r = kink_r(t, act.g), z = kink_z(t, s, act.g);
        } else {
          r = act.a + act.b * z;
        }
        crossing_velocity(w, &cur, &act, lead);
        line_velocity(wl, &cur, lead);
        if (emit(v, segw, &count, cap, r, z, w, key_pair(&cur, &act), wl)) return -1;
        const env_line* th = act.moving ? &act : &cur;
        vertex_range(v[count - 1].phi, t, lines + 1, nstat, s, v[count - 1].p, w,
                     cur.moving ? -1 : cur.sid, act.moving ? -1 : act.sid, !kink && th->moving,
                     th->g);
      }
      cur = act;
    }
    if (xb >= zb) break;
    x = xb;
    g++;
  }
  // the last vertex
  double r = cur.a + cur.b * zb;
  int key = 0;
  line_velocity(wl, &cur, lead);
  if (zb == t->z1) {
    end_velocity(w, &cur, lead);
    key = key_line(&cur, END1);
  } else {
    memcpy(w, wl, sizeof(w));
  }
  if (emit(v, segw, &count, cap, r, zb, w, key, wl)) return -1;
  vertex_range(v[count - 1].phi, t, lines + 1, nstat, s, v[count - 1].p, w,
               cur.moving ? -1 : cur.sid, -1, cur.moving, cur.g);
  return count;
}

// the first or last vertex of a short section at that end
void tf_profile_thread_end(tf_profile_vertex* v, const tf_profile_thread* t, double theta,
                           int which) {
  tf_profile_vertex buf[64];
  double eps = fmin(t->pitch / 64, 0.5 * (t->z1 - t->z0));
  int n = which ? tf_profile_thread_section(buf, NULL, 64, t, theta, t->z1 - eps, t->z1)
                : tf_profile_thread_section(buf, NULL, 64, t, theta, t->z0, t->z0 + eps);
  if (n <= 0) {
    memset(v, 0, sizeof(*v));
    return;
  }
  *v = which ? buf[n - 1] : buf[0];
}

// angle in [0, 2 pi) at which a thread point at zeta reaches z
static double reach_angle(const tf_profile_thread* t, double zeta, double z) {
  double a = fmod((z - zeta) / lead_of(t), TWO_PI);
  return a < 0 ? a + TWO_PI : a;
}

// every kink against every static line and end, every flank through every static corner
int tf_profile_thread_events(double* theta, int cap, const tf_profile_thread* t) {
  env_line st[2 * TF_PROFILE_MAXLINE + 2];
  int ns = static_lines(st, t);
  int n = 0;
  double rmin = INFINITY, rmax = -INFINITY;
  for (int k = 0; k < t->nkink; k++) {
    rmin = fmin(rmin, t->kink[k][0]), rmax = fmax(rmax, t->kink[k][0]);
  }
  // a kink crossing a static line or an end
  for (int k = 0; k < t->nkink; k++) {
    double zs[2 * TF_PROFILE_MAXLINE + 2];
    int nz = 0;
    for (int j = 0; j < ns; j++) {
      if (st[j].b != 0) zs[nz++] = (t->kink[k][0] - st[j].a) / st[j].b;
    }
    zs[nz++] = t->z0, zs[nz++] = t->z1;
    for (int j = 0; j < nz; j++) {
      if (zs[j] < t->z0 || zs[j] > t->z1) continue;
      if (n >= cap) return -1;
      theta[n++] = reach_angle(t, t->kink[k][1], zs[j]);
    }
  }
  // a flank passing through a corner of the static lines (two lines, or a line and an end)
  double corner[(2 * TF_PROFILE_MAXLINE + 2) * (2 * TF_PROFILE_MAXLINE + 2)][2];
  int nc = 0;
  for (int i = 0; i < ns; i++) {
    for (int j = i + 1; j < ns; j++) {
      if (st[i].b == st[j].b) continue;
      double z = (st[j].a - st[i].a) / (st[i].b - st[j].b);
      corner[nc][0] = st[i].a + st[i].b * z, corner[nc++][1] = z;
    }
    corner[nc][0] = st[i].a + st[i].b * t->z0, corner[nc++][1] = t->z0;
    corner[nc][0] = st[i].a + st[i].b * t->z1, corner[nc++][1] = t->z1;
  }
  for (int c = 0; c < nc; c++) {
    double r = corner[c][0], z = corner[c][1];
    if (z < t->z0 || z > t->z1 || r < rmin || r > rmax) continue;
    for (int k = 0; k < t->nkink; k++) {
      double r0 = t->kink[k][0], z0 = t->kink[k][1];
      double r1 = t->kink[(k + 1) % t->nkink][0];
      double z1 = t->kink[(k + 1) % t->nkink][1] + (k + 1 == t->nkink ? t->pitch : 0);
      if (r0 == r1 || (r - r0) * (r - r1) > 0) continue;
      if (n >= cap) return -1;
      theta[n++] = reach_angle(t, z0 + (r - r0) / (r1 - r0) * (z1 - z0), z);
    }
  }
  sort_doubles(theta, n);
  return n;
}
