// Tessellation of the primitives.
//
// Round shapes (sphere, capsule, cylinder) are surfaces of revolution: a profile polyline in
// the (rho, z) half-plane runs from the bottom pole (rho = 0) to the top pole and is swept
// around z in S segments. Vertex (ring i, segment j) = (rho_i cos(2 pi j / S),
// rho_i sin(2 pi j / S), z_i); the poles are single vertices closed by triangle fans, the rings
// between them joined by quads split into two triangles. With the profile going upward and the
// angle counter-clockwise about z, (i, j) -> (i, j+1) -> (i+1, j+1) faces outward.
//   sphere:   a half circle of S / 2 arcs, vertices on the true surface
//   capsule:  quarter circles of S / 4 arcs around each end centre, the side split in between
//   cylinder: cap centre -> rim (split radially), the side split along z, rim -> cap centre
// S grows with the circumference (2 pi r / spacing, a multiple of 4) between
// TF_PRIM_MIN_SEGMENTS and TF_PRIM_MAX_SEGMENTS; the straight parts are split so that rings are
// at most about spacing apart, as far as TF_PRIM_MAX_PROFILE allows.
// Boxes: the surface points of a lattice of up to TF_PRIM_MAX_BOX_DIV pieces per edge, each face
// a grid of quads split into two triangles; edges and corners shared between faces.
#include "mesh_primitive.h"

#include <math.h>

// pieces a straight stretch of this length is split into, between 1 and most
static int pieces(double length, double spacing, int most) {
  if (most < 1) most = 1;
  if (!(spacing > 0) || !(length > 0)) return 1;
  double n = ceil(length / spacing - 1e-9);
  if (n < 1) n = 1;
  return n > most ? most : (int)n;
}

// segments around the axis for a circle of radius r: a multiple of 4 within the limits
static int segments(double r, double spacing) {
  int s = TF_PRIM_MIN_SEGMENTS;
  if (spacing > 0 && r > 0) {
    double want = ceil(2 * M_PI * r / spacing);
    if (want > TF_PRIM_MAX_SEGMENTS) want = TF_PRIM_MAX_SEGMENTS;
    if (want > s) s = (int)want;
  }
  s = (s + 3) / 4 * 4;
  return s > TF_PRIM_MAX_SEGMENTS ? TF_PRIM_MAX_SEGMENTS : s;
}

// appends n points of the arc of radius r about (0, zc), angles a0 -> a1, end excluded
static int arc(double* rho, double* z, int np, double r, double zc, double a0, double a1, int n) {
  for (int k = 0; k < n; k++) {
    double a = a0 + (a1 - a0) * k / n;
    rho[np] = r * cos(a);
    z[np] = zc + r * sin(a);
    np++;
  }
  return np;
}

// appends n points of the straight stretch (rho0, z0) -> (rho1, z1), end excluded
static int line(double* rho, double* z, int np, double rho0, double z0, double rho1, double z1,
                int n) {
  for (int k = 0; k < n; k++) {
    double t = (double)k / n;
    rho[np] = rho0 + (rho1 - rho0) * t;
    z[np] = z0 + (z1 - z0) * t;
    np++;
  }
  return np;
}

// the profile of a round shape, poles included; returns the point count
static int profile(double* rho, double* z, int type, const double size[3], int s, double spacing) {
  double r = size[0], h = type == TF_GEOM_SPHERE ? 0 : size[1];
  int np = 0;
  if (type == TF_GEOM_SPHERE) {
    np = arc(rho, z, np, r, 0, -M_PI / 2, M_PI / 2, s / 2);
  } else if (type == TF_GEOM_CAPSULE) {
    // two quarter circles of s / 4 arcs each plus the side
    int side = pieces(2 * h, spacing, TF_PRIM_MAX_PROFILE - 1 - s / 2);
    np = arc(rho, z, np, r, -h, -M_PI / 2, 0, s / 4);
    np = line(rho, z, np, r, -h, r, h, h > 0 ? side : 0);
    np = arc(rho, z, np, r, h, 0, M_PI / 2, s / 4);
  } else {
    // cylinder: radial steps on each cap, the side between the rims
    int cap = pieces(r, spacing, 4);
    int side = pieces(2 * h, spacing, TF_PRIM_MAX_PROFILE - 1 - 2 * cap);
    np = line(rho, z, np, 0, -h, r, -h, cap);
    np = line(rho, z, np, r, -h, r, h, side);
    np = line(rho, z, np, r, h, 0, h, cap);
  }
  rho[np] = 0;  // the top pole
  z[np] = type == TF_GEOM_SPHERE ? r : (type == TF_GEOM_CAPSULE ? h + r : h);
  rho[0] = 0;  // exact poles, whatever the trigonometry gave
  return np + 1;
}

// sweeps the profile around z
static int revolve(double* vert, int* face, int* nface, const double* rho, const double* z, int np,
                   int s) {
  int rings = np - 2, nv = 0, nf = 0;
  // bottom pole, rings, top pole
  vert[0] = 0, vert[1] = 0, vert[2] = z[0];
  nv = 1;
  for (int i = 1; i <= rings; i++) {
    for (int j = 0; j < s; j++) {
      double a = 2 * M_PI * j / s;
      double* v = vert + 3 * nv++;
      v[0] = rho[i] * cos(a);
      v[1] = rho[i] * sin(a);
      v[2] = z[i];
    }
  }
  int top = nv;
  vert[3 * top] = 0, vert[3 * top + 1] = 0, vert[3 * top + 2] = z[np - 1];
  nv++;
  // ring i (1-based), segment j -> vertex index
#define RING(i, j) (1 + ((i)-1) * s + ((j) % s))
  for (int j = 0; j < s; j++) {
    int* f = face + 3 * nf++;
    f[0] = 0, f[1] = RING(1, j + 1), f[2] = RING(1, j);
  }
  for (int i = 1; i < rings; i++) {
    for (int j = 0; j < s; j++) {
      int a = RING(i, j), b = RING(i, j + 1), c = RING(i + 1, j + 1), d = RING(i + 1, j);
      int* f = face + 3 * nf++;
      f[0] = a, f[1] = b, f[2] = c;
      f = face + 3 * nf++;
      f[0] = a, f[1] = c, f[2] = d;
    }
  }
  for (int j = 0; j < s; j++) {
    int* f = face + 3 * nf++;
    f[0] = top, f[1] = RING(rings, j), f[2] = RING(rings, j + 1);
  }
#undef RING
  *nface = nf;
  return nv;
}

// the surface points of an (n0+1) x (n1+1) x (n2+1) lattice over the box, shared by the faces
// that meet at them; face k, side sg spans axes u = k+1, v = k+2 (swapped on the - side)
static int box_mesh(double* vert, int* face, int* nface, const double h[3], double spacing) {
  enum { SIDE = TF_PRIM_MAX_BOX_DIV + 1 };
  int n[3], id[SIDE * SIDE * SIDE], nv = 0, nf = 0;
  for (int k = 0; k < 3; k++) n[k] = pieces(2 * h[k], spacing, TF_PRIM_MAX_BOX_DIV);
#define LATTICE(c) ((c)[0] + SIDE * ((c)[1] + SIDE * (c)[2]))
  for (int c2 = 0; c2 <= n[2]; c2++) {
    for (int c1 = 0; c1 <= n[1]; c1++) {
      for (int c0 = 0; c0 <= n[0]; c0++) {
        int c[3] = {c0, c1, c2}, surface = 0;
        for (int k = 0; k < 3; k++) surface |= c[k] == 0 || c[k] == n[k];
        id[LATTICE(c)] = -1;
        if (!surface) continue;
        for (int k = 0; k < 3; k++) vert[3 * nv + k] = -h[k] + 2 * h[k] * c[k] / n[k];
        id[LATTICE(c)] = nv++;
      }
    }
  }
  for (int k = 0; k < 3; k++) {
    for (int sg = 1; sg >= -1; sg -= 2) {
      int u = (k + 1) % 3, v = (k + 2) % 3;
      if (sg < 0) u = (k + 2) % 3, v = (k + 1) % 3;
      for (int j = 0; j < n[v]; j++) {
        for (int i = 0; i < n[u]; i++) {
          int c[4][3];
          for (int q = 0; q < 4; q++) {
            c[q][k] = sg > 0 ? n[k] : 0;
            c[q][u] = i + (q == 1 || q == 2);
            c[q][v] = j + (q >= 2);
          }
          int a = id[LATTICE(c[0])], b = id[LATTICE(c[1])], cc = id[LATTICE(c[2])];
          int d = id[LATTICE(c[3])];
          int* f = face + 3 * nf++;
          f[0] = a, f[1] = b, f[2] = cc;
          f = face + 3 * nf++;
          f[0] = a, f[1] = cc, f[2] = d;
        }
      }
    }
  }
#undef LATTICE
  *nface = nf;
  return nv;
}

int tf_primitive_mesh(double* vert, int* face, int* nface, int type, const double size[3],
                      double spacing) {
  *nface = 0;
  if (type == TF_GEOM_BOX) return box_mesh(vert, face, nface, size, spacing);
  if (type != TF_GEOM_SPHERE && type != TF_GEOM_CAPSULE && type != TF_GEOM_CYLINDER) return 0;
  double rho[TF_PRIM_MAX_PROFILE], z[TF_PRIM_MAX_PROFILE];
  int s = segments(size[0], spacing);
  int np = profile(rho, z, type, size, s, spacing);
  return revolve(vert, face, nface, rho, z, np, s);
}

int tf_hull_triangles(int* face, int maxface, const tf_hull_view* hull) {
  int nf = 0;
  for (int f = 0; f < hull->nface; f++) {
    const int* fv = hull->face_vert + hull->face_vertadr[f];
    for (int k = 1; k + 1 < hull->face_vertnum[f]; k++) {
      if (nf < maxface) {
        face[3 * nf] = fv[0];
        face[3 * nf + 1] = fv[k];
        face[3 * nf + 2] = fv[k + 1];
      }
      nf++;
    }
  }
  return nf;
}
