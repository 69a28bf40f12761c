// Mass properties of a closed triangle mesh of uniform density: the nut's mass, centre of
// mass and inertia come from its own watertight part mesh rather than a hex-prism guess,
// so the nut's inertia about the thread axis (which sets how fast gravity spins it down)
// includes the bore and the countersinks.
//
// Each outward triangle (a, b, c) and the origin span a signed tetrahedron; summing their
// volume integrals gives the solid's (divergence theorem). For a tetrahedron with vertices
// 0, a, b, c and volume V = det[a b c] / 6, the second moments are
//   int x_i x_j dV = V / 20 (sum_k v_k,i v_k,j + (sum_k v_k,i)(sum_k v_k,j)),  k over a, b, c
// (Tonon 2004, "Explicit exact formulas for the 3-D tetrahedron inertia tensor"), which for
// i = j is the familiar V / 10 (a_i^2 + b_i^2 + c_i^2 + a_i b_i + b_i c_i + c_i a_i).
#include <math.h>
#include <string.h>

#include "boltnut.h"

int tf_boltnut_mesh_mass(tf_boltnut_mass* out, const double* vert, int nvert, const int* face,
                         int nface, double density) {
  memset(out, 0, sizeof(*out));
  double vol = 0, first[3] = {0, 0, 0}, second[3][3] = {{0}};
  for (int t = 0; t < nface; t++) {
    const int* f = face + 3 * t;
    if (f[0] < 0 || f[1] < 0 || f[2] < 0 || f[0] >= nvert || f[1] >= nvert || f[2] >= nvert)
      return -1;
    const double *a = vert + 3 * f[0], *b = vert + 3 * f[1], *c = vert + 3 * f[2];
    double det = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                 a[2] * (b[0] * c[1] - b[1] * c[0]);
    double v = det / 6;
    vol += v;
    double s[3];
    for (int i = 0; i < 3; i++) {
      s[i] = a[i] + b[i] + c[i];
      first[i] += v * s[i] / 4;
    }
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) {
        second[i][j] += v / 20 * (a[i] * a[j] + b[i] * b[j] + c[i] * c[j] + s[i] * s[j]);
      }
    }
  }
  // an open or inside-out mesh has no meaningful volume
  if (!(vol > 0) || !isfinite(vol)) return -1;
  out->volume = vol;
  out->mass = density * vol;
  for (int i = 0; i < 3; i++) out->com[i] = first[i] / vol;
  // second moments about the com (parallel axis), then I = tr(S) 1 - S
  double sc[3][3];
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++)
      sc[i][j] = density * (second[i][j] - vol * out->com[i] * out->com[j]);
  }
  double tr = sc[0][0] + sc[1][1] + sc[2][2];
  out->inertia[0] = tr - sc[0][0];
  out->inertia[1] = tr - sc[1][1];
  out->inertia[2] = tr - sc[2][2];
  out->inertia[3] = -sc[0][1];
  out->inertia[4] = -sc[0][2];
  out->inertia[5] = -sc[1][2];
  return 0;
}
