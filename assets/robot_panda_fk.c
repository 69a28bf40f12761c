// Analytic forward kinematics of the Panda's modified-DH (Craig) table: plain 4x4 products,
// no engine, so that the engine's kinematics of the built arm can be checked against it.
#include <math.h>

#include "robot_panda.h"

// row-major 4x4 product out = a * b (out may not alias)
static void mul44(double out[16], const double a[16], const double b[16]) {
  for (int r = 0; r < 4; r++) {
    for (int c = 0; c < 4; c++) {
      double s = 0;
      for (int k = 0; k < 4; k++) s += a[4 * r + k] * b[4 * k + c];
      out[4 * r + c] = s;
    }
  }
}

// Craig's link transform: RotX(alpha) TransX(a) RotZ(theta) TransZ(d)
static void craig_transform(double t[16], double a, double alpha, double d, double theta) {
  double ca = cos(alpha), sa = sin(alpha), ct = cos(theta), st = sin(theta);
  double m[16] = {ct,      -st,     0,   a,        //
                  st * ca, ct * ca, -sa, -sa * d,  //
                  st * sa, ct * sa, ca,  ca * d,   //
                  0,       0,       0,   1};
  for (int k = 0; k < 16; k++) t[k] = m[k];
}

void tf_panda_dh_fk(double frames[TF_PANDA_NFRAME][16], const double q[TF_PANDA_NJOINT]) {
  const tf_panda_params* p = tf_panda_params_get();
  for (int k = 0; k < 16; k++) frames[0][k] = (k % 5 == 0) ? 1 : 0;
  for (int i = 0; i < TF_PANDA_NFRAME - 1; i++) {
    double link[16];
    if (i < TF_PANDA_NJOINT) {
      craig_transform(link, p->dh_a[i], p->dh_alpha[i], p->dh_d[i], q[i]);
    } else {
      craig_transform(link, 0, 0, p->flange_d, 0);
    }
    mul44(frames[i + 1], frames[i], link);
  }
}
