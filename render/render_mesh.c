// The renderer's triangle meshes: a growable list of vertices and triangles with a normal at
// each triangle corner, and the normals of a plain triangle mesh (a part's surface).
//
// Corner normals let one vertex be smooth on a curved flank and sharp on an edge at once:
// a corner's normal averages the area-weighted normals of the faces around its vertex that
// lie within RENDER_CREASE_DEG of its own face, so a gear's involute flank or a thread's
// helix shades smoothly while the tooth tips, chamfers and box edges stay crisp.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render_internal.h"

#define RENDER_CREASE_DEG 40.0

static int grow(void** p, int* cap, int need, size_t item) {
  if (need <= *cap) return 0;
  int cap_new = *cap ? *cap : 64;
  while (cap_new < need) cap_new *= 2;
  void* q = realloc(*p, item * (size_t)cap_new);
  if (!q) return -1;
  *p = q;
  *cap = cap_new;
  return 0;
}

int render_mesh_vertex(render_mesh* mesh, double x, double y, double z) {
  if (mesh->failed ||
      grow((void**)&mesh->vert, &mesh->capvert, mesh->nvert + 1, 3 * sizeof(double))) {
    mesh->failed = 1;
    return -1;
  }
  double* v = mesh->vert + 3 * mesh->nvert;
  v[0] = x;
  v[1] = y;
  v[2] = z;
  return mesh->nvert++;
}

void render_mesh_triangle(render_mesh* mesh, int a, int b, int c, const double na[3],
                          const double nb[3], const double nc[3]) {
  if (mesh->failed || a < 0 || b < 0 || c < 0) {
    mesh->failed = 1;
    return;
  }
  int cap = mesh->captri;
  if (grow((void**)&mesh->tri, &cap, mesh->ntri + 1, 3 * sizeof(int)) ||
      grow((void**)&mesh->normal, &mesh->captri, mesh->ntri + 1, 9 * sizeof(float))) {
    mesh->failed = 1;
    return;
  }
  int* t = mesh->tri + 3 * mesh->ntri;
  t[0] = a;
  t[1] = b;
  t[2] = c;
  float* n = mesh->normal + 9 * mesh->ntri;
  const double* corner[3] = {na, nb, nc};
  for (int k = 0; k < 3; k++) {
    for (int i = 0; i < 3; i++) n[3 * k + i] = (float)corner[k][i];
  }
  mesh->ntri++;
}

void render_mesh_free(render_mesh* mesh) {
  free(mesh->vert);
  free(mesh->tri);
  free(mesh->normal);
  memset(mesh, 0, sizeof(*mesh));
}

// twice the area times the unit normal of face f
static void face_cross(double out[3], const double* vert, const int* f) {
  const double *a = vert + 3 * f[0], *b = vert + 3 * f[1], *c = vert + 3 * f[2];
  double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  double w[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  out[0] = u[1] * w[2] - u[2] * w[1];
  out[1] = u[2] * w[0] - u[0] * w[2];
  out[2] = u[0] * w[1] - u[1] * w[0];
}

static void normalize_or(double v[3], const double fallback[3]) {
  double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (len > 0) {
    for (int i = 0; i < 3; i++) v[i] /= len;
  } else {
    memcpy(v, fallback, 3 * sizeof(double));
  }
}

void render_mesh_append_smooth(render_mesh* mesh, const double* vert, int nvert, const int* face,
                               int nface) {
  if (mesh->failed) return;
  double* cross = malloc(sizeof(double) * 3 * (size_t)(nface > 0 ? nface : 1));
  int* start = calloc((size_t)nvert + 1, sizeof(int));
  int* around = malloc(sizeof(int) * 3 * (size_t)(nface > 0 ? nface : 1));
  int* fill = calloc((size_t)nvert + 1, sizeof(int));
  if (!cross || !start || !around || !fill) {
    mesh->failed = 1;
    goto done;
  }
  // faces around each vertex (compressed rows, in face order so sums are reproducible)
  for (int f = 0; f < nface; f++) {
    face_cross(cross + 3 * f, vert, face + 3 * f);
    for (int k = 0; k < 3; k++) start[face[3 * f + k] + 1]++;
  }
  for (int v = 0; v < nvert; v++) start[v + 1] += start[v];
  for (int f = 0; f < nface; f++) {
    for (int k = 0; k < 3; k++) {
      int v = face[3 * f + k];
      around[start[v] + fill[v]++] = f;
    }
  }
  int base = mesh->nvert;
  for (int v = 0; v < nvert; v++) {
    render_mesh_vertex(mesh, vert[3 * v], vert[3 * v + 1], vert[3 * v + 2]);
  }
  const double cos_crease = cos(RENDER_CREASE_DEG * M_PI / 180);
  const double up[3] = {0, 0, 1};
  for (int f = 0; f < nface; f++) {
    double own[3];
    memcpy(own, cross + 3 * f, sizeof(own));
    normalize_or(own, up);
    double corner[3][3];
    for (int k = 0; k < 3; k++) {
      int v = face[3 * f + k];
      double sum[3] = {0, 0, 0};
      for (int i = start[v]; i < start[v + 1]; i++) {
        const double* c = cross + 3 * around[i];
        double len = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
        if (!(len > 0)) continue;
        if ((c[0] * own[0] + c[1] * own[1] + c[2] * own[2]) < cos_crease * len) continue;
        for (int j = 0; j < 3; j++) sum[j] += c[j];
      }
      normalize_or(sum, own);
      memcpy(corner[k], sum, sizeof(sum));
    }
    render_mesh_triangle(mesh, base + face[3 * f], base + face[3 * f + 1], base + face[3 * f + 2],
                         corner[0], corner[1], corner[2]);
  }
done:
  free(cross);
  free(start);
  free(around);
  free(fill);
}
