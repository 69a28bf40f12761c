// Mass properties of a gear from its own watertight part mesh (teeth, fillets and bore
// included), so the inertia a servo spins up and the tooth forces move is the part's, not a
// disc's guess.
//
// Divergence theorem over signed tetrahedra: each outward triangle (a, b, c) with the origin
// spans a tetrahedron of signed volume V = a . (b x c) / 6, centroid (a + b + c) / 4 and
// second moments  int x_i x_j dV = V / 20 (sum_k v_k,i v_k,j + s_i s_j),  s = a + b + c
// (the standard tetrahedron moments; see Tonon, J. Math. Stat. 1 (2005) 8-11). Summed over
// a closed mesh the parts outside the solid cancel.
#include <math.h>
#include <string.h>

#include "gears_scene.h"

int tf_gears_mesh_mass(const double* vert, int nvert, const int* face, int nface, double density,
                       double* mass, double com[3], double inertia[6]) {
  double volume = 0, first[3] = {0, 0, 0}, second[3][3];
  memset(second, 0, sizeof(second));
  for (int t = 0; t < nface; t++) {
    const int* f = face + 3 * t;
    for (int k = 0; k < 3; k++) {
      if (f[k] < 0 || f[k] >= nvert) return -1;
    }
    const double* a = vert + 3 * f[0];
    const double* b = vert + 3 * f[1];
    const double* c = vert + 3 * f[2];
    double v = (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                a[2] * (b[0] * c[1] - b[1] * c[0])) /
               6;
    double s[3];
    for (int i = 0; i < 3; i++) s[i] = a[i] + b[i] + c[i];
    volume += v;
    for (int i = 0; i < 3; i++) {
      first[i] += v * s[i] / 4;
      for (int j = 0; j < 3; j++) {
        second[i][j] += v / 20 * (a[i] * a[j] + b[i] * b[j] + c[i] * c[j] + s[i] * s[j]);
      }
    }
  }
  // an open or inside-out mesh encloses no meaningful volume
  if (!(volume > 0) || !isfinite(volume) || !(density > 0)) return -1;
  *mass = density * volume;
  for (int i = 0; i < 3; i++) com[i] = first[i] / volume;
  // second moments about the com, then the inertia tensor tr(S) 1 - S
  double sc[3][3];
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) sc[i][j] = density * (second[i][j] - volume * com[i] * com[j]);
  }
  double trace = sc[0][0] + sc[1][1] + sc[2][2];
  inertia[0] = trace - sc[0][0];
  inertia[1] = trace - sc[1][1];
  inertia[2] = trace - sc[2][2];
  inertia[3] = -sc[0][1];
  inertia[4] = -sc[0][2];
  inertia[5] = -sc[1][2];
  return 0;
}
