// A triangle mesh for an SDF geom that carries no surface mesh (analytic fixtures such as a
// gear train's plate and shafts), by surface nets (Gibson, "Constrained elastic surface
// nets", 1998) over the SDF's box.
//
// The box (padded by one cell, so the grid's rim lies outside the solid) is sampled on a grid
// of about RENDER_SDF_CELLS cells along its longest side and at least RENDER_SDF_MIN_CELLS
// along every side (thin plates keep their thickness). Every cell whose corners change sign
// gets one vertex: the mean of the zero crossings on its edges, moved onto the surface by one
// Newton step along the gradient and kept inside its cell. Every grid edge whose ends change
// sign gets a quad joining the four cells around it, turned so that it faces from inside to
// outside. The result is closed and counter-clockwise from outside; sharp edges come out as
// narrow bevels one cell wide, which the crease-angle normals then shade as edges.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render_internal.h"

#define RENDER_SDF_CELLS 40
#define RENDER_SDF_MIN_CELLS 6
#define RENDER_SDF_MAX_CELLS 160

typedef struct sdf_grid {
  const tf_model* m;
  const tf_data* d;
  int g;
  int n[3];      // cells per axis
  double lo[3];  // node (0, 0, 0), geom frame
  double h[3];   // cell size per axis
} sdf_grid;

// the geom's SDF at a point of its own frame, with the gradient in that frame (grad may be
// NULL); d holds the geom's pose
static double sdf_local(const sdf_grid* s, const double p[3], double grad[3]) {
  const double* R = s->d->geom_xmat + 9 * s->g;
  const double* x = s->d->geom_xpos + 3 * s->g;
  double w[3], gw[3];
  for (int i = 0; i < 3; i++)
    w[i] = x[i] + R[3 * i] * p[0] + R[3 * i + 1] * p[1] + R[3 * i + 2] * p[2];
  double phi = tf_geom_sdf(s->m, s->d, s->g, w, gw);
  if (grad) {
    for (int i = 0; i < 3; i++) grad[i] = R[i] * gw[0] + R[3 + i] * gw[1] + R[6 + i] * gw[2];
  }
  return phi;
}

static size_t node_id(const sdf_grid* s, int i, int j, int k) {
  return ((size_t)k * (size_t)(s->n[1] + 1) + (size_t)j) * (size_t)(s->n[0] + 1) + (size_t)i;
}

static size_t cell_id(const sdf_grid* s, int i, int j, int k) {
  return ((size_t)k * (size_t)s->n[1] + (size_t)j) * (size_t)s->n[0] + (size_t)i;
}

// the surface vertex of cell (i, j, k) into v; 0 when the cell holds no surface
static int cell_vertex(const sdf_grid* s, const double* phi, int i, int j, int k, double v[3]) {
  double sum[3] = {0, 0, 0};
  int count = 0;
  // the 12 edges: for each axis a, the 4 edges along a
  for (int a = 0; a < 3; a++) {
    int b = (a + 1) % 3, c = (a + 2) % 3;
    for (int e = 0; e < 4; e++) {
      int o0[3] = {0, 0, 0};
      o0[b] = e & 1, o0[c] = e >> 1;
      int o1[3] = {o0[0], o0[1], o0[2]};
      o1[a] = 1;
      double p0 = phi[node_id(s, i + o0[0], j + o0[1], k + o0[2])];
      double p1 = phi[node_id(s, i + o1[0], j + o1[1], k + o1[2])];
      if ((p0 < 0) == (p1 < 0)) continue;
      double t = p0 / (p0 - p1);
      for (int q = 0; q < 3; q++) sum[q] += o0[q] + t * (o1[q] - o0[q]);
      count++;
    }
  }
  if (!count) return 0;
  double cell_lo[3] = {s->lo[0] + i * s->h[0], s->lo[1] + j * s->h[1], s->lo[2] + k * s->h[2]};
  for (int q = 0; q < 3; q++) v[q] = cell_lo[q] + s->h[q] * sum[q] / count;
  // one Newton step onto the surface, kept in the cell so that neighbouring quads never fold
  double grad[3];
  double f = sdf_local(s, v, grad);
  double g2 = grad[0] * grad[0] + grad[1] * grad[1] + grad[2] * grad[2];
  if (isfinite(f) && g2 > 1e-12) {
    for (int q = 0; q < 3; q++) {
      double moved = v[q] - f * grad[q] / g2;
      double lo = cell_lo[q], hi = cell_lo[q] + s->h[q];
      v[q] = moved < lo ? lo : moved > hi ? hi : moved;
    }
  }
  return 1;
}

// one quad per sign-changing grid edge, from the cell vertices around it
static int quads(const sdf_grid* s, const double* phi, const int* vid, int* face) {
  int nface = 0;
  for (int a = 0; a < 3; a++) {
    int b = (a + 1) % 3, c = (a + 2) % 3;  // (b, c, a) is right-handed
    int end[3] = {s->n[0] + 1, s->n[1] + 1, s->n[2] + 1};
    end[a] = s->n[a];
    for (int k = 0; k < end[2]; k++) {
      for (int j = 0; j < end[1]; j++) {
        for (int i = 0; i < end[0]; i++) {
          int at[3] = {i, j, k}, next[3] = {i, j, k};
          next[a]++;
          if (at[b] == 0 || at[c] == 0 || at[b] == s->n[b] || at[c] == s->n[c]) continue;
          double p0 = phi[node_id(s, at[0], at[1], at[2])];
          double p1 = phi[node_id(s, next[0], next[1], next[2])];
          if ((p0 < 0) == (p1 < 0)) continue;
          // cells around the edge, counter-clockwise about +a in the (b, c) plane
          static const int db[4] = {-1, 0, 0, -1}, dc[4] = {-1, -1, 0, 0};
          int q[4], ok = 1;
          for (int r = 0; r < 4; r++) {
            int cell[3] = {at[0], at[1], at[2]};
            cell[b] += db[r], cell[c] += dc[r];
            q[r] = vid[cell_id(s, cell[0], cell[1], cell[2])];
            ok &= q[r] >= 0;
          }
          if (!ok) continue;
          if (!(p0 < 0)) {  // the outside is toward -a: turn the quad over
            int t = q[1];
            q[1] = q[3], q[3] = t;
          }
          int* f = face + 3 * nface;
          f[0] = q[0], f[1] = q[1], f[2] = q[2];
          f[3] = q[0], f[4] = q[2], f[5] = q[3];
          nface += 2;
        }
      }
    }
  }
  return nface;
}

void render_mesh_append_sdf(render_mesh* mesh, const tf_model* m, const tf_data* d, int g) {
  if (mesh->failed) return;
  const double* box = m->sdf_aabb + 6 * m->geom_sdfid[g];
  sdf_grid s = {.m = m, .d = d, .g = g};
  double longest = 0;
  for (int a = 0; a < 3; a++) longest = fmax(longest, box[3 + a] - box[a]);
  if (!(longest > 0) || !isfinite(longest)) return;
  for (int a = 0; a < 3; a++) {
    double extent = box[3 + a] - box[a];
    int n = (int)ceil(extent / longest * RENDER_SDF_CELLS);
    n = n < RENDER_SDF_MIN_CELLS   ? RENDER_SDF_MIN_CELLS
        : n > RENDER_SDF_MAX_CELLS ? RENDER_SDF_MAX_CELLS
                                   : n;
    s.h[a] = fmax(extent, 1e-9) / n;
    s.n[a] = n + 2;  // a padding cell each side
    s.lo[a] = box[a] - s.h[a];
  }
  size_t nnode = (size_t)(s.n[0] + 1) * (size_t)(s.n[1] + 1) * (size_t)(s.n[2] + 1);
  size_t ncell = (size_t)s.n[0] * (size_t)s.n[1] * (size_t)s.n[2];
  double* phi = malloc(sizeof(double) * nnode);
  int* vid = malloc(sizeof(int) * ncell);
  double* vert = malloc(sizeof(double) * 3 * ncell);
  int* face = malloc(sizeof(int) * 3 * 6 * ncell);  // at most 3 edges per cell, 2 triangles each
  if (!phi || !vid || !vert || !face) {
    mesh->failed = 1;
    goto done;
  }
  for (int k = 0; k <= s.n[2]; k++) {
    for (int j = 0; j <= s.n[1]; j++) {
      for (int i = 0; i <= s.n[0]; i++) {
        double p[3] = {s.lo[0] + i * s.h[0], s.lo[1] + j * s.h[1], s.lo[2] + k * s.h[2]};
        double f = sdf_local(&s, p, NULL);
        phi[node_id(&s, i, j, k)] = isfinite(f) ? f : 1;
      }
    }
  }
  int nvert = 0;
  for (int k = 0; k < s.n[2]; k++) {
    for (int j = 0; j < s.n[1]; j++) {
      for (int i = 0; i < s.n[0]; i++) {
        size_t c = cell_id(&s, i, j, k);
        vid[c] = cell_vertex(&s, phi, i, j, k, vert + 3 * (size_t)nvert) ? nvert++ : -1;
      }
    }
  }
  int nface = quads(&s, phi, vid, face);
  render_mesh_append_smooth(mesh, vert, nvert, face, nface);
done:
  free(phi);
  free(vid);
  free(vert);
  free(face);
}
