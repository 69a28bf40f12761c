// UV sphere and torus tessellations (see mesh_reference.h).
//
// Sphere: a pole, nlat - 1 rings at polar angles pi i / nlat, a pole; each band between two
// rings is a strip of quads (a, b on the upper ring, c, d below) split as (a, d, c), (a, c, b),
// and the caps are fans; with the azimuth increasing counter-clockwise about +z this winding
// gives outward normals. Torus: (R + r cos v) (cos u, sin u) + r sin v z; the quad
// (u, v), (u + du, v), (u + du, v + dv), (u, v + dv) has d/du x d/dv pointing away from the tube
// axis, so it is split as (00, 10, 11), (00, 11, 01). Every vertex lies on the exact surface,
// so the meshes are inscribed: their chord error is at most about r (1 - cos(pi / n)).
#include "mesh_reference.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// allocates the arrays; returns 0 or -1 with a message
static int allocate(tf_mesh* out, long nvert, long nface, const char* what, char* err,
                    size_t errlen) {
  memset(out, 0, sizeof(*out));
  if (nvert > TF_MESH_MAX_VERTICES || nface > TF_MESH_MAX_TRIANGLES) {
    snprintf(err, errlen, "%s: %ld triangles is over the limit of %d", what, nface,
             TF_MESH_MAX_TRIANGLES);
    return -1;
  }
  out->vert = malloc(sizeof(double) * 3 * (size_t)nvert);
  out->face = malloc(sizeof(int) * 3 * (size_t)nface);
  if (!out->vert || !out->face) {
    tf_mesh_free(out);
    snprintf(err, errlen, "%s: out of memory for %ld triangles", what, nface);
    return -1;
  }
  out->nvert = (int)nvert;
  out->nface = (int)nface;
  return 0;
}

int tf_mesh_sphere(tf_mesh* out, double radius, int nlon, int nlat, char* err, size_t errlen) {
  memset(out, 0, sizeof(*out));
  if (!(radius > 0) || !isfinite(radius) || nlon < 3 || nlat < 2 || nlon > 100000 ||
      nlat > 100000) {
    snprintf(err, errlen, "sphere mesh: needs radius > 0, nlon >= 3, nlat >= 2 (got %g, %d, %d)",
             radius, nlon, nlat);
    return -1;
  }
  long nv = 2 + (long)(nlat - 1) * nlon, nf = 2L * nlon * (nlat - 1);
  if (allocate(out, nv, nf, "sphere mesh", err, errlen)) return -1;
  double* v = out->vert;
  int top = 0, bottom = (int)nv - 1;
  v[0] = 0, v[1] = 0, v[2] = radius;
  for (int i = 1; i < nlat; i++) {
    double theta = M_PI * i / nlat;
    for (int j = 0; j < nlon; j++) {
      double phi = 2 * M_PI * j / nlon;
      double* p = v + 3 * (1 + (size_t)(i - 1) * nlon + j);
      p[0] = radius * sin(theta) * cos(phi);
      p[1] = radius * sin(theta) * sin(phi);
      p[2] = radius * cos(theta);
    }
  }
  double* p = v + 3 * (size_t)bottom;
  p[0] = 0, p[1] = 0, p[2] = -radius;
  int* f = out->face;
  for (int j = 0; j < nlon; j++) {
    int j1 = (j + 1) % nlon;
    *f++ = top, *f++ = 1 + j, *f++ = 1 + j1;
    for (int i = 1; i < nlat - 1; i++) {
      int a = 1 + (i - 1) * nlon + j, b = 1 + (i - 1) * nlon + j1;
      int c = 1 + i * nlon + j1, d = 1 + i * nlon + j;
      *f++ = a, *f++ = d, *f++ = c;
      *f++ = a, *f++ = c, *f++ = b;
    }
    int last = 1 + (nlat - 2) * nlon;
    *f++ = bottom, *f++ = last + j1, *f++ = last + j;
  }
  return 0;
}

int tf_mesh_torus(tf_mesh* out, double major, double minor, int nu, int nv, char* err,
                  size_t errlen) {
  memset(out, 0, sizeof(*out));
  if (!(minor > 0) || !(major > minor) || !isfinite(major) || nu < 3 || nv < 3 || nu > 100000 ||
      nv > 100000) {
    snprintf(err, errlen,
             "torus mesh: needs 0 < minor < major, nu >= 3, nv >= 3 (got %g, %g, %d, %d)", major,
             minor, nu, nv);
    return -1;
  }
  if (allocate(out, (long)nu * nv, 2L * nu * nv, "torus mesh", err, errlen)) return -1;
  for (int i = 0; i < nu; i++) {
    double u = 2 * M_PI * i / nu;
    for (int j = 0; j < nv; j++) {
      double w = 2 * M_PI * j / nv;
      double* p = out->vert + 3 * ((size_t)i * nv + j);
      p[0] = (major + minor * cos(w)) * cos(u);
      p[1] = (major + minor * cos(w)) * sin(u);
      p[2] = minor * sin(w);
    }
  }
  int* f = out->face;
  for (int i = 0; i < nu; i++) {
    int i1 = (i + 1) % nu;
    for (int j = 0; j < nv; j++) {
      int j1 = (j + 1) % nv;
      int p00 = i * nv + j, p10 = i1 * nv + j, p11 = i1 * nv + j1, p01 = i * nv + j1;
      *f++ = p00, *f++ = p10, *f++ = p11;
      *f++ = p00, *f++ = p11, *f++ = p01;
    }
  }
  return 0;
}
