// Fixed-size vector, rotation and spatial algebra used throughout the engine.
#include "tf_math.h"

#include <math.h>
#include <string.h>

void tf_vec3_copy(double out[3], const double a[3]) { memcpy(out, a, 3 * sizeof(double)); }

void tf_vec3_add(double out[3], const double a[3], const double b[3]) {
  out[0] = a[0] + b[0];
  out[1] = a[1] + b[1];
  out[2] = a[2] + b[2];
}

void tf_vec3_sub(double out[3], const double a[3], const double b[3]) {
  out[0] = a[0] - b[0];
  out[1] = a[1] - b[1];
  out[2] = a[2] - b[2];
}

void tf_vec3_scale(double out[3], const double a[3], double s) {
  out[0] = a[0] * s;
  out[1] = a[1] * s;
  out[2] = a[2] * s;
}

void tf_vec3_cross(double out[3], const double a[3], const double b[3]) {
  double t0 = a[1] * b[2] - a[2] * b[1];
  double t1 = a[2] * b[0] - a[0] * b[2];
  double t2 = a[0] * b[1] - a[1] * b[0];
  out[0] = t0;
  out[1] = t1;
  out[2] = t2;
}

double tf_vec3_dot(const double a[3], const double b[3]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

double tf_vec3_norm(const double a[3]) { return sqrt(tf_vec3_dot(a, a)); }

double tf_vec3_normalize(double a[3]) {
  double n = tf_vec3_norm(a);
  if (n > 0) tf_vec3_scale(a, a, 1.0 / n);
  return n;
}

void tf_mat3_mul_vec(double out[3], const double mat[9], const double v[3]) {
  double t0 = mat[0] * v[0] + mat[1] * v[1] + mat[2] * v[2];
  double t1 = mat[3] * v[0] + mat[4] * v[1] + mat[5] * v[2];
  double t2 = mat[6] * v[0] + mat[7] * v[1] + mat[8] * v[2];
  out[0] = t0;
  out[1] = t1;
  out[2] = t2;
}

void tf_mat3_mul_vec_t(double out[3], const double mat[9], const double v[3]) {
  double t0 = mat[0] * v[0] + mat[3] * v[1] + mat[6] * v[2];
  double t1 = mat[1] * v[0] + mat[4] * v[1] + mat[7] * v[2];
  double t2 = mat[2] * v[0] + mat[5] * v[1] + mat[8] * v[2];
  out[0] = t0;
  out[1] = t1;
  out[2] = t2;
}

void tf_mat3_mul(double out[9], const double a[9], const double b[9]) {
  double r[9];
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      r[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
    }
  }
  memcpy(out, r, sizeof(r));
}

void tf_quat_identity(double q[4]) {
  q[0] = 1;
  q[1] = q[2] = q[3] = 0;
}

void tf_quat_mul(double out[4], const double a[4], const double b[4]) {
  double r0 = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  double r1 = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  double r2 = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  double r3 = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
  out[0] = r0;
  out[1] = r1;
  out[2] = r2;
  out[3] = r3;
}

void tf_quat_conj(double out[4], const double q[4]) {
  out[0] = q[0];
  out[1] = -q[1];
  out[2] = -q[2];
  out[3] = -q[3];
}

double tf_quat_normalize(double q[4]) {
  double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (n > 0) {
    for (int i = 0; i < 4; i++) q[i] /= n;
  } else {
    tf_quat_identity(q);
  }
  return n;
}

void tf_quat_rotate(double out[3], const double q[4], const double v[3]) {
  // v + 2 w (u x v) + 2 u x (u x v), u the vector part
  double u[3] = {q[1], q[2], q[3]};
  double t[3], t2[3];
  tf_vec3_cross(t, u, v);
  tf_vec3_scale(t, t, 2.0);
  tf_vec3_cross(t2, u, t);
  out[0] = v[0] + q[0] * t[0] + t2[0];
  out[1] = v[1] + q[0] * t[1] + t2[1];
  out[2] = v[2] + q[0] * t[2] + t2[2];
}

void tf_quat_to_mat(double mat[9], const double q[4]) {
  double w = q[0], x = q[1], y = q[2], z = q[3];
  mat[0] = 1 - 2 * (y * y + z * z);
  mat[1] = 2 * (x * y - w * z);
  mat[2] = 2 * (x * z + w * y);
  mat[3] = 2 * (x * y + w * z);
  mat[4] = 1 - 2 * (x * x + z * z);
  mat[5] = 2 * (y * z - w * x);
  mat[6] = 2 * (x * z - w * y);
  mat[7] = 2 * (y * z + w * x);
  mat[8] = 1 - 2 * (x * x + y * y);
}

void tf_mat_to_quat(double q[4], const double m[9]) {
  double tr = m[0] + m[4] + m[8];
  if (tr > 0) {
    double s = sqrt(tr + 1.0) * 2;
    q[0] = 0.25 * s;
    q[1] = (m[7] - m[5]) / s;
    q[2] = (m[2] - m[6]) / s;
    q[3] = (m[3] - m[1]) / s;
  } else if (m[0] > m[4] && m[0] > m[8]) {
    double s = sqrt(1.0 + m[0] - m[4] - m[8]) * 2;
    q[0] = (m[7] - m[5]) / s;
    q[1] = 0.25 * s;
    q[2] = (m[1] + m[3]) / s;
    q[3] = (m[2] + m[6]) / s;
  } else if (m[4] > m[8]) {
    double s = sqrt(1.0 + m[4] - m[0] - m[8]) * 2;
    q[0] = (m[2] - m[6]) / s;
    q[1] = (m[1] + m[3]) / s;
    q[2] = 0.25 * s;
    q[3] = (m[5] + m[7]) / s;
  } else {
    double s = sqrt(1.0 + m[8] - m[0] - m[4]) * 2;
    q[0] = (m[3] - m[1]) / s;
    q[1] = (m[2] + m[6]) / s;
    q[2] = (m[5] + m[7]) / s;
    q[3] = 0.25 * s;
  }
  if (q[0] < 0) {
    for (int i = 0; i < 4; i++) q[i] = -q[i];
  }
  tf_quat_normalize(q);
}

void tf_quat_from_rotvec(double q[4], const double rotvec[3]) {
  double angle = tf_vec3_norm(rotvec);
  double half = 0.5 * angle;
  // sin(half) / angle, with its series near zero so tiny rotations keep full precision
  double s = angle > 1e-8 ? sin(half) / angle : 0.5 - angle * angle / 48.0;
  q[0] = cos(half);
  q[1] = rotvec[0] * s;
  q[2] = rotvec[1] * s;
  q[3] = rotvec[2] * s;
}

void tf_quat_to_rotvec(double rotvec[3], const double q_in[4]) {
  double q[4] = {q_in[0], q_in[1], q_in[2], q_in[3]};
  if (q[0] < 0) {
    for (int i = 0; i < 4; i++) q[i] = -q[i];
  }
  double sin_half = sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  double angle = 2.0 * atan2(sin_half, q[0]);
  double s = sin_half > 1e-12 ? angle / sin_half : 2.0 / q[0];
  rotvec[0] = q[1] * s;
  rotvec[1] = q[2] * s;
  rotvec[2] = q[3] * s;
}

void tf_quat_from_axis_angle(double q[4], const double axis[3], double angle) {
  double a[3] = {axis[0], axis[1], axis[2]};
  tf_vec3_normalize(a);
  double s = sin(0.5 * angle);
  q[0] = cos(0.5 * angle);
  q[1] = a[0] * s;
  q[2] = a[1] * s;
  q[3] = a[2] * s;
}

void tf_cross_motion(double out[6], const double a[6], const double b[6]) {
  // [w; v] x [w2; v2] = [w x w2; w x v2 + v x w2]
  double r[6], t[3];
  tf_vec3_cross(r, a, b);
  tf_vec3_cross(r + 3, a, b + 3);
  tf_vec3_cross(t, a + 3, b);
  tf_vec3_add(r + 3, r + 3, t);
  memcpy(out, r, sizeof(r));
}

void tf_cross_force(double out[6], const double a[6], const double f[6]) {
  // [w; v] x* [n; f] = [w x n + v x f; w x f]
  double r[6], t[3];
  tf_vec3_cross(r, a, f);
  tf_vec3_cross(t, a + 3, f + 3);
  tf_vec3_add(r, r, t);
  tf_vec3_cross(r + 3, a, f + 3);
  memcpy(out, r, sizeof(r));
}

double tf_dot6(const double a[6], const double b[6]) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

void tf_inertia_mul_motion(double out[6], const double in[10], const double v[6]) {
  // n = I_O w + h x v_O ; f = m v_O - h x w, with h = m c the first moment
  const double m = in[0];
  const double* h = in + 1;
  const double* io = in + 4;  // xx yy zz xy xz yz
  const double* w = v;
  const double* vo = v + 3;
  double hxv[3], hxw[3];
  tf_vec3_cross(hxv, h, vo);
  tf_vec3_cross(hxw, h, w);
  double r[6];
  r[0] = io[0] * w[0] + io[3] * w[1] + io[4] * w[2] + hxv[0];
  r[1] = io[3] * w[0] + io[1] * w[1] + io[5] * w[2] + hxv[1];
  r[2] = io[4] * w[0] + io[5] * w[1] + io[2] * w[2] + hxv[2];
  r[3] = m * vo[0] - hxw[0];
  r[4] = m * vo[1] - hxw[1];
  r[5] = m * vo[2] - hxw[2];
  memcpy(out, r, sizeof(r));
}

void tf_inertia_from_com(double in[10], double m, const double c[3], const double ic[9]) {
  // parallel axis: I_O = Ic + m (|c|^2 1 - c c^T)
  double cc = tf_vec3_dot(c, c);
  in[0] = m;
  in[1] = m * c[0];
  in[2] = m * c[1];
  in[3] = m * c[2];
  in[4] = ic[0] + m * (cc - c[0] * c[0]);
  in[5] = ic[4] + m * (cc - c[1] * c[1]);
  in[6] = ic[8] + m * (cc - c[2] * c[2]);
  in[7] = ic[1] - m * c[0] * c[1];
  in[8] = ic[2] - m * c[0] * c[2];
  in[9] = ic[5] - m * c[1] * c[2];
}

void tf_quat_rotation_error(double out[3], const double to[4], const double from[4]) {
  double inv[4] = {from[0], -from[1], -from[2], -from[3]}, rel[4];
  tf_quat_mul(rel, to, inv);
  double n = sqrt(rel[0] * rel[0] + rel[1] * rel[1] + rel[2] * rel[2] + rel[3] * rel[3]);
  if (n > 0) {
    for (int k = 0; k < 4; k++) rel[k] /= n;
  }
  // q and -q are the same rotation: take w >= 0 for the angle in [0, pi]
  if (rel[0] < 0) {
    for (int k = 0; k < 4; k++) rel[k] = -rel[k];
  }
  double s = sqrt(rel[1] * rel[1] + rel[2] * rel[2] + rel[3] * rel[3]);
  // angle / sin(angle / 2) without cancellation near zero: 2 atan2(s, w) / s
  double scale = s > 1e-12 ? 2 * atan2(s, rel[0]) / s : 2 / (rel[0] > 0 ? rel[0] : 1);
  for (int k = 0; k < 3; k++) out[k] = scale * rel[1 + k];
}

void tf_quat_between(double out[4], const double a[3], const double b[3]) {
  double c[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  double w = 1 + a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  if (w < 1e-12) {
    // opposite: half a turn about an axis normal to a (a x x, or a x y when a is near x)
    double axis[3] = {0, a[2], -a[1]};
    if (fabs(a[0]) > 0.9) axis[0] = -a[2], axis[1] = 0, axis[2] = a[0];
    out[0] = 0, out[1] = axis[0], out[2] = axis[1], out[3] = axis[2];
  } else {
    out[0] = w, out[1] = c[0], out[2] = c[1], out[3] = c[2];
  }
  tf_quat_normalize(out);
}
