// Small fixed-size vector, matrix, quaternion and spatial-vector routines: the one math
// header every layer uses (engine, controllers, tasks, rendering).
// Output first, fixed lengths in brackets, inputs const. Matrices are row-major.
#ifndef TF_MATH_H
#define TF_MATH_H

void tf_vec3_copy(double out[3], const double a[3]);
void tf_vec3_add(double out[3], const double a[3], const double b[3]);
void tf_vec3_sub(double out[3], const double a[3], const double b[3]);
void tf_vec3_scale(double out[3], const double a[3], double s);
void tf_vec3_cross(double out[3], const double a[3], const double b[3]);
double tf_vec3_dot(const double a[3], const double b[3]);
double tf_vec3_norm(const double a[3]);
// returns the norm before normalising; leaves a zero vector unchanged
double tf_vec3_normalize(double a[3]);

void tf_mat3_mul_vec(double out[3], const double mat[9], const double v[3]);
void tf_mat3_mul_vec_t(double out[3], const double mat[9], const double v[3]);
void tf_mat3_mul(double out[9], const double a[9], const double b[9]);

void tf_quat_identity(double q[4]);
void tf_quat_mul(double out[4], const double a[4], const double b[4]);
void tf_quat_conj(double out[4], const double q[4]);
double tf_quat_normalize(double q[4]);
void tf_quat_rotate(double out[3], const double q[4], const double v[3]);
void tf_quat_to_mat(double mat[9], const double q[4]);
// quaternion of a rotation matrix (Shepperd's method, stable for every angle)
void tf_mat_to_quat(double q[4], const double mat[9]);
// unit quaternion exp(rotvec / 2): rotation by |rotvec| about rotvec
void tf_quat_from_rotvec(double q[4], const double rotvec[3]);
// inverse of the above: the rotation vector of q, in (-pi, pi]
void tf_quat_to_rotvec(double rotvec[3], const double q[4]);
void tf_quat_from_axis_angle(double q[4], const double axis[3], double angle);
// rotation vector of the rotation taking orientation `from` to `to` (world axes):
// log(to * from^-1), the shorter way round
void tf_quat_rotation_error(double out[3], const double to[4], const double from[4]);
// the shortest rotation taking unit vector a onto unit vector b
void tf_quat_between(double out[4], const double a[3], const double b[3]);

// spatial algebra (motion = [w; v], force = [n; f], both about the world origin)
// out = a x b (motion cross motion)
void tf_cross_motion(double out[6], const double a[6], const double b[6]);
// out = a x* f (motion cross force)
void tf_cross_force(double out[6], const double a[6], const double f[6]);
double tf_dot6(const double a[6], const double b[6]);
// out = I * v for a 10-parameter spatial inertia (m, h = m c, I_O sym 6)
void tf_inertia_mul_motion(double out[6], const double inert[10], const double v[6]);
// the 10-parameter inertia about the origin of a body with mass m, com c (world) and
// world-axes inertia Ic about the com (full 3x3)
void tf_inertia_from_com(double inert[10], double m, const double c[3], const double ic[9]);

#endif  // TF_MATH_H
