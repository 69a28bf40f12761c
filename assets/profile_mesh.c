// Meshes swept from meridional sections: lathed profiles, threads over their stations
// (every crease an edge, stations stitched by feature keys), rings, strips and fans.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile_internal.h"

#define MERGE_TOL 1e-12  // m: vertices this close are one vertex of the mesh

// room for one more item of `size` bytes in *p (capacity *cap, count n); -1 and failed when
// memory runs out
static int grow(tf_profile_mesh* m, void** p, int* cap, int n, size_t size) {
  if (n < *cap) return 0;
  int c = *cap ? 2 * *cap : 256;
  void* q = realloc(*p, size * (size_t)c);
  if (!q) return m->failed = 1, -1;
  *p = q, *cap = c;
  return 0;
}

// appends a vertex; 0 (and failed) when memory runs out
int tf_profile_mesh_vertex(tf_profile_mesh* m, double x, double y, double z) {
  if (grow(m, (void**)&m->vert, &m->capvert, m->nvert, 3 * sizeof(double))) return 0;
  double* p = m->vert + 3 * (size_t)m->nvert;
  p[0] = x, p[1] = y, p[2] = z;
  return m->nvert++;
}

// appends a triangle; degenerate ones (a repeated index, at a pole) are dropped
void tf_profile_mesh_face(tf_profile_mesh* m, int a, int b, int c) {
  if (a == b || b == c || a == c) return;
  if (grow(m, (void**)&m->face, &m->capface, m->nface, 3 * sizeof(int))) return;
  int* f = m->face + 3 * (size_t)m->nface++;
  f[0] = a, f[1] = b, f[2] = c;
}

// releases a mesh that was not handed over
void tf_profile_mesh_free(tf_profile_mesh* m) {
  free(m->vert);
  free(m->face);
  memset(m, 0, sizeof(*m));
}

// uniform stations with those next to an event dropped, merged with the events
int tf_profile_stations(double* theta, int cap, double dmax, const double* events, int nevents) {
  // a little finer than dmax, so that dropping a station beside an event keeps the spacing
  int nu = (int)ceil(TWO_PI / (0.95 * dmax));
  if (nu < 3) nu = 3;
  double near = 0.05 * TWO_PI / nu;
  int n = 0;
  for (int e = 0; e < nevents; e++) {
    if (n >= cap) return -1;
    theta[n++] = events[e];
  }
  for (int i = 0, e = 0; i < nu; i++) {
    double u = TWO_PI * i / nu, gap = INFINITY;
    while (e < nevents && events[e] < u) e++;
    if (nevents > 0) {
      // circular distance to the events on either side
      double after = e < nevents ? events[e] - u : events[0] + TWO_PI - u;
      double before = e > 0 ? u - events[e - 1] : u + TWO_PI - events[nevents - 1];
      gap = fmin(after, before);
    }
    if (gap < near) continue;
    if (n >= cap) return -1;
    theta[n++] = u;
  }
  sort_doubles(theta, n);
  int k = 0;
  for (int i = 0; i < n; i++) {
    if (k > 0 && theta[i] - theta[k - 1] < 1e-9) continue;
    theta[k++] = theta[i];
  }
  while (k > 1 && theta[0] + TWO_PI - theta[k - 1] < 1e-9) k--;
  return k;
}

// rings per profile vertex, quads between neighbouring rings
void tf_profile_mesh_lathe(tf_profile_mesh* m, int* first, int* last, const double (*prof)[2],
                           int n, const double* theta, int ntheta) {
  int* idx = malloc(sizeof(int) * (size_t)n * (size_t)ntheta);
  if (!idx) {
    m->failed = 1;
    return;
  }
  for (int j = 0; j < n; j++) {
    if (prof[j][0] <= 0) {
      int pole = tf_profile_mesh_vertex(m, 0, 0, prof[j][1]);
      for (int i = 0; i < ntheta; i++) idx[j * ntheta + i] = pole;
      continue;
    }
    for (int i = 0; i < ntheta; i++) {
      idx[j * ntheta + i] = tf_profile_mesh_vertex(m, prof[j][0] * cos(theta[i]),
                                                   prof[j][0] * sin(theta[i]), prof[j][1]);
    }
  }
  for (int i = 0; i < ntheta; i++) {
    int i1 = (i + 1) % ntheta;
    for (int j = 0; j + 1 < n; j++) {
      int a0 = idx[j * ntheta + i], b0 = idx[j * ntheta + i1];
      int a1 = idx[(j + 1) * ntheta + i], b1 = idx[(j + 1) * ntheta + i1];
      tf_profile_mesh_face(m, a0, b0, a1);
      tf_profile_mesh_face(m, a1, b0, b1);
    }
    first[i] = idx[i];
    last[i] = idx[(n - 1) * ntheta + i];
  }
  free(idx);
}

// one station of a thread mesh: the section's vertices (coincident ones merged) and their
// mesh indices
typedef struct station {
  tf_profile_vertex* v;
  int* idx;
  int n;
} station;

// whether two vertices of neighbouring stations are the same feature
static int share_key(const tf_profile_vertex* a, const tf_profile_vertex* b) {
  for (int i = 0; i < a->nkey; i++) {
    for (int j = 0; j < b->nkey; j++) {
      if (a->key[i] == b->key[j]) return 1;
    }
  }
  return 0;
}

// adds a key once, up to TF_PROFILE_MAXKEY
static void add_key(tf_profile_vertex* v, int key) {
  for (int i = 0; i < v->nkey; i++) {
    if (v->key[i] == key) return;
  }
  if (v->nkey < TF_PROFILE_MAXKEY) v->key[v->nkey++] = key;
}

// within MERGE_TOL in both coordinates
static int near_point(double r0, double z0, double r1, double z1) {
  return fabs(r0 - r1) < MERGE_TOL && fabs(z0 - z1) < MERGE_TOL;
}

// at an event station a kink lies on a static line: the one vertex there is the kink and
// the crossings of both its segments with the line, so it takes all their keys
static void alias_keys(tf_profile_vertex* v, const tf_profile_thread* t, double s) {
  env_line st[2 * TF_PROFILE_MAXLINE];
  int ns = static_lines(st, t);
  int nkey = v->nkey;
  for (int i = 0; i < nkey; i++) {
    int key = v->key[i];
    if (key & (1 << 30)) continue;
    long g = (long)(key >> 5) - KEY_OFF;
    int type = key & 31;
    if (type > 0) {
      // the crossing of segment g with a static line, at one of the segment's ends?
      for (long e = g; e <= g + 1; e++) {
        if (!near_point(v->p[0], v->p[1], kink_r(t, e), kink_z(t, s, e))) continue;
        add_key(v, (int)((e + KEY_OFF) << 5));
        add_key(v, (int)(((e == g ? g - 1 : g + 1) + KEY_OFF) << 5 | type));
      }
      continue;
    }
    // a kink on a static line or an end
    for (int j = 0; j < ns + 2; j++) {
      int on, sid;
      if (j < ns) {
        on = fabs(v->p[0] - (st[j].a + st[j].b * v->p[1])) < MERGE_TOL, sid = st[j].sid;
      } else {
        double zend = j == ns ? t->z0 : t->z1;
        on = fabs(v->p[1] - zend) < MERGE_TOL, sid = j == ns ? END0 : END1;
      }
      if (!on) continue;
      add_key(v, (int)(((g - 1 + KEY_OFF) << 5) | (1 + sid)));
      add_key(v, (int)(((g + KEY_OFF) << 5) | (1 + sid)));
    }
  }
}

// a kink lying on a static line (or an end) at angle theta, where the envelope only touches
// it: the section has no vertex there, but the mesh needs one to end the kink's crease;
// inserts such kinks into v (n of cap) in z order and returns the new count
static int insert_touches(tf_profile_vertex* v, int n, int cap, const tf_profile_thread* t,
                          double theta) {
  env_line st[2 * TF_PROFILE_MAXLINE];
  int ns = static_lines(st, t);
  double s = lead_of(t) * theta;
  for (int k = 0; k < t->nkink; k++) {
    for (int j = 0; j < ns + 2; j++) {
      double z;
      if (j < ns) {
        if (st[j].b == 0) continue;
        z = (t->kink[k][0] - st[j].a) / st[j].b;
      } else {
        z = j == ns ? t->z0 : t->z1;
      }
      double per = floor((z - t->kink[k][1] - s) / t->pitch + 0.5);
      long g = (long)per * t->nkink + k;
      double zk = kink_z(t, s, g), rk = t->kink[k][0];
      if (fabs(zk - z) >= MERGE_TOL || zk < t->z0 || zk > t->z1) continue;
      if (fabs(tf_profile_thread_radius(t, theta, zk) - rk) >= MERGE_TOL) continue;
      int at = 0, dup = 0;
      while (at < n && v[at].p[1] < zk - MERGE_TOL) at++;
      for (int i = at; i < n && v[i].p[1] <= zk + MERGE_TOL; i++)
        dup |= near_point(v[i].p[0], v[i].p[1], rk, zk);
      if (dup || n >= cap) continue;
      memmove(v + at + 1, v + at, sizeof(*v) * (size_t)(n - at));
      memset(&v[at], 0, sizeof(v[at]));
      v[at].p[0] = rk, v[at].p[1] = zk, v[at].w[1] = lead_of(t);
      v[at].key[0] = (int)((g + KEY_OFF) << 5), v[at].nkey = 1;
      n++;
    }
  }
  return n;
}

// the section at theta with coincident vertices merged (their keys pooled)
static int station_section(station* st, int cap, const tf_profile_thread* t, double theta) {
  int n = tf_profile_thread_section(st->v, NULL, cap, t, theta, t->z0, t->z1);
  if (n < 0) return -1;
  int k = 0;
  for (int i = 0; i < n; i++) {
    if (k > 0 && near_point(st->v[i].p[0], st->v[i].p[1], st->v[k - 1].p[0], st->v[k - 1].p[1])) {
      for (int j = 0; j < st->v[i].nkey; j++) add_key(&st->v[k - 1], st->v[i].key[j]);
      continue;
    }
    st->v[k++] = st->v[i];
  }
  k = insert_touches(st->v, k, cap, t, theta);
  double s = lead_of(t) * theta;
  for (int i = 0; i < k; i++) alias_keys(&st->v[i], t, s);
  st->n = k;
  return k;
}

// a triangle, reversed when flip
static void tri(tf_profile_mesh* m, int a, int b, int c, int flip) {
  if (flip) {
    tf_profile_mesh_face(m, a, c, b);
  } else {
    tf_profile_mesh_face(m, a, b, c);
  }
}

// triangles between station a (one angle) and station b (the next), both ascending in z
static void stitch(tf_profile_mesh* m, const station* a, const station* b, int flip) {
  enum { WINDOW = 6 };
  int i = 0, j = 0;
  while (i < a->n - 1 || j < b->n - 1) {
    // the next pair of vertices that are the same feature
    int ni = a->n - 1, nj = b->n - 1, best = 1 << 30;
    for (int di = 0; di <= WINDOW && i + di < a->n; di++) {
      for (int dj = 0; dj <= WINDOW && j + dj < b->n; dj++) {
        if ((di == 0 && dj == 0) || di + dj >= best) continue;
        if (share_key(&a->v[i + di], &b->v[j + dj])) ni = i + di, nj = j + dj, best = di + dj;
      }
    }
    while (i < ni || j < nj) {
      if (i < ni && (j == nj || a->v[i + 1].p[1] <= b->v[j + 1].p[1])) {
        tri(m, a->idx[i], b->idx[j], a->idx[i + 1], flip);
        i++;
      } else {
        tri(m, a->idx[i], b->idx[j], b->idx[j + 1], flip);
        j++;
      }
    }
  }
}

// sections at every station, stitched to the next; the last stitches back to the first
void tf_profile_mesh_thread(tf_profile_mesh* m, int* first, int* last, const tf_profile_thread* t,
                            const double* theta, int ntheta, int flip) {
  double span = t->z1 - t->z0;
  int cap = (int)((span / t->pitch + 3) * t->nkink * (2 + t->nlo + t->nhi)) + 16;
  station st[3];
  memset(st, 0, sizeof(st));
  for (int k = 0; k < 3; k++) {
    st[k].v = malloc(sizeof(tf_profile_vertex) * (size_t)cap);
    st[k].idx = malloc(sizeof(int) * (size_t)cap);
    if (!st[k].v || !st[k].idx) m->failed = 1;
  }
  // st[0]: station 0 (kept for closing the turn), st[1] / st[2]: the previous and next
  if (!m->failed && station_section(&st[0], cap, t, theta[0]) < 0) m->failed = 1;
  for (int i = 0; !m->failed && i < ntheta; i++) {
    station* a = i == 0 ? &st[0] : &st[1 + (i + 1) % 2];
    station* b = &st[1 + i % 2];
    if (i == 0) {
      for (int k = 0; k < st[0].n; k++) {
        double r = st[0].v[k].p[0];
        st[0].idx[k] =
            tf_profile_mesh_vertex(m, r * cos(theta[0]), r * sin(theta[0]), st[0].v[k].p[1]);
      }
      first[0] = st[0].idx[0], last[0] = st[0].idx[st[0].n - 1];
    }
    if (i + 1 < ntheta) {
      if (station_section(b, cap, t, theta[i + 1]) < 0) {
        m->failed = 1;
        break;
      }
      for (int k = 0; k < b->n; k++) {
        double r = b->v[k].p[0];
        b->idx[k] =
            tf_profile_mesh_vertex(m, r * cos(theta[i + 1]), r * sin(theta[i + 1]), b->v[k].p[1]);
      }
      first[i + 1] = b->idx[0], last[i + 1] = b->idx[b->n - 1];
    } else {
      // a full turn later the section is station 0's again, its kinks one period on
      b->n = st[0].n;
      for (int k = 0; k < st[0].n; k++) {
        b->v[k] = st[0].v[k];
        b->idx[k] = st[0].idx[k];
        for (int j = 0; j < b->v[k].nkey; j++) {
          if (!(b->v[k].key[j] & (1 << 30))) b->v[k].key[j] += t->nkink << 5;
        }
      }
    }
    stitch(m, a, b, flip);
  }
  for (int k = 0; k < 3; k++) {
    free(st[k].v);
    free(st[k].idx);
  }
}

// station angles and corners merged in angle order, each pushed out to the polygon
int tf_profile_mesh_polygon_ring(tf_profile_mesh* m, int* idx, double* ang, const double* theta,
                                 int ntheta, int sides, double apothem, double rot, double z) {
  double step = TWO_PI / sides;
  double corner[64];
  for (int k = 0; k < sides; k++) {
    double a = fmod(rot + 0.5 * step + k * step, TWO_PI);
    corner[k] = a < 0 ? a + TWO_PI : a;
  }
  sort_doubles(corner, sides);
  int n = 0, c = 0;
  for (int i = 0; i <= ntheta; i++) {
    double a = i < ntheta ? theta[i] : INFINITY;
    for (; c < sides && corner[c] <= a; c++) {
      if (fabs(corner[c] - a) < 1e-12) continue;  // the station is the corner
      ang[n++] = corner[c];
    }
    if (i < ntheta) ang[n++] = a;
  }
  for (int i = 0; i < n; i++) {
    double k = floor((ang[i] - rot) / step + 0.5);
    double off = ang[i] - rot - k * step;
    double r = apothem / cos(off);
    idx[i] = tf_profile_mesh_vertex(m, r * cos(ang[i]), r * sin(ang[i]), z);
  }
  return n;
}

// per station gap: a fan from the inner vertex over the outer chain, then a closing one
void tf_profile_mesh_zip(tf_profile_mesh* m, const int* inner, const double* theta, int ntheta,
                         const int* outer, const double* outer_ang, int nouter, int up) {
  int* at = malloc(sizeof(int) * (size_t)ntheta);
  if (!at) {
    m->failed = 1;
    return;
  }
  for (int i = 0, o = 0; i < ntheta; i++) {
    while (o < nouter && outer_ang[o] != theta[i]) o++;
    at[i] = o < nouter ? o : 0;
  }
  for (int i = 0; i < ntheta; i++) {
    int i1 = (i + 1) % ntheta;
    for (int o = at[i]; o != at[i1]; o = (o + 1) % nouter) {
      tri(m, inner[i], outer[o], outer[(o + 1) % nouter], !up);
    }
    tri(m, inner[i], outer[at[i1]], inner[i1], !up);
  }
  free(at);
}

// two triangles per station gap
void tf_profile_mesh_strip(tf_profile_mesh* m, const int* a, const int* b, int n, int flip) {
  for (int i = 0; i < n; i++) {
    int i1 = (i + 1) % n;
    tri(m, b[i], b[i1], a[i], flip);
    tri(m, a[i], b[i1], a[i1], flip);
  }
}

// one triangle per ring edge
void tf_profile_mesh_fan(tf_profile_mesh* m, int centre, const int* ring, int n, int flip) {
  for (int i = 0; i < n; i++) tri(m, centre, ring[i], ring[(i + 1) % n], flip);
}
