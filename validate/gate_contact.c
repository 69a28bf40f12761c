// Contact gates on planes, boxes and hulls (CRISP appendix D setups and our own):
// oblique_slide, hull_slide, rest_box, box_on_box, stack_ratio10 / 100, isotropy, hull_stack.
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gate_util.h"
#include "gates_internal.h"

#define G 9.81

static const double identity[4] = {1, 0, 0, 0};

// steps once; marks the result diverged on failure
static int step_ok(const tf_model* m, tf_data* d, tf_gate_result* r) {
  if (tf_step(m, d) == 0) return 1;
  r->diverged = 1;
  return 0;
}

// corner k (0..7) of a box of half-sizes s at the pose of body b, in world
static void box_corner(const tf_data* d, int b, const double s[3], int k, double out[3]) {
  double local[3] = {(k & 1 ? 1 : -1) * s[0], (k & 2 ? 1 : -1) * s[1], (k & 4 ? 1 : -1) * s[2]};
  const double* R = d->xmat + 9 * b;
  for (int i = 0; i < 3; i++) {
    out[i] = d->xpos[3 * b + i] + R[3 * i] * local[0] + R[3 * i + 1] * local[1] +
             R[3 * i + 2] * local[2];
  }
}

// least-squares slope of y(t)
static double ls_slope(const double* t, const double* y, int n) {
  double st = 0, sy = 0, stt = 0, sty = 0;
  for (int i = 0; i < n; i++) {
    st += t[i], sy += y[i], stt += t[i] * t[i], sty += t[i] * y[i];
  }
  double den = n * stt - st * st;
  return den != 0 ? (n * sty - st * sy) / den : NAN;
}

// deterministic points: xorshift64*, uniform in [-1, 1]
static double uniform(uint64_t* s) {
  *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
  return (double)((*s * 2685821657736338717ull) >> 11) / 9007199254740992.0 * 2 - 1;
}

// a cube's 8 corners plus 200 interior points, for qhull to reduce to the cube again
static int add_cube_hull(tf_builder* b, double half) {
  double pts[208 * 3];
  for (int k = 0; k < 8; k++) {
    pts[3 * k] = (k & 1 ? 1 : -1) * half;
    pts[3 * k + 1] = (k & 2 ? 1 : -1) * half;
    pts[3 * k + 2] = (k & 4 ? 1 : -1) * half;
  }
  uint64_t seed = 0x9E3779B97F4A7C15ull;
  for (int k = 8; k < 208; k++) {
    for (int i = 0; i < 3; i++) pts[3 * k + i] = 0.98 * half * uniform(&seed);
  }
  return tf_builder_add_hull(b, "cube_points", pts, 208);
}

// the oblique-slide scene: a 1 kg, 0.1 m cube (or its hull) on a 30 degree incline
// released at rest 0.1 m above the slope; writes the slope acceleration, the largest corner
// gap once landed, the displacement while stuck, and the fewest contacts once landed
static void run_incline(tf_solver_type solver, const tf_gate_step* step, double mu, int use_hull,
                        double duration, double* accel, double* gap_max, double* stuck_disp,
                        int* min_contacts, tf_gate_result* r) {
  const double tilt = 30 * M_PI / 180, half = 0.05;
  tf_builder* b = tf_gate_builder_step(step, solver, G);
  tf_gate_plane(b, "slope", tilt, mu);
  double n[3] = {sin(tilt), 0, cos(tilt)}, down[3] = {cos(tilt), 0, -sin(tilt)};
  double pos[3] = {n[0] * (0.1 + half), 0, n[2] * (0.1 + half)};
  double quat[4] = {cos(0.5 * tilt), 0, sin(0.5 * tilt), 0};
  double size[3] = {half, half, half};
  int hull = use_hull ? add_cube_hull(b, half) : -1;
  int body = tf_gate_free_geom(b, "cube", use_hull ? TF_GEOM_HULL : TF_GEOM_BOX, size, 1.0, pos,
                               quat, mu, hull);
  tf_model* m = tf_gate_compile(b, r);
  *accel = *gap_max = *stuck_disp = NAN;
  *min_contacts = 0;
  if (!m) return;
  tf_data* d = tf_data_create(m);
  int nsteps = (int)llround(duration / m->opt.timestep);
  double* t = calloc((size_t)nsteps + 1, sizeof(double));
  double* vel = calloc((size_t)nsteps + 1, sizeof(double));
  double t_touch = NAN, p1[3] = {0}, p2[3] = {0};
  int nwin = 0, have_p1 = 0, have_p2 = 0;
  *gap_max = 0;
  *min_contacts = 1 << 30;
  for (int s = 0; s < nsteps && step_ok(m, d, r); s++) {
    tf_kinematics(m, d);
    double gmin = INFINITY, gmaxabs = 0;
    for (int k = 0; k < 4; k++) {  // bottom corners (local z < 0)
      double c[3];
      box_corner(d, body, size, k, c);
      double gap = c[0] * n[0] + c[1] * n[1] + c[2] * n[2];
      gmin = fmin(gmin, gap);
      gmaxabs = fmax(gmaxabs, fabs(gap));
    }
    if (isnan(t_touch) && gmin <= 0) t_touch = d->time;
    if (isnan(t_touch)) continue;
    double since = d->time - t_touch;
    if (since >= 0.05 - 1e-9) {
      *gap_max = fmax(*gap_max, gmaxabs);
      if (d->ncon < *min_contacts) *min_contacts = d->ncon;
    }
    if (since >= 0.05 - 1e-9 && since <= 1.0 + 1e-9) {
      t[nwin] = d->time;
      vel[nwin++] = d->qvel[0] * down[0] + d->qvel[1] * down[1] + d->qvel[2] * down[2];
    }
    if (!have_p1 && since >= 0.1 - 1e-9) memcpy(p1, d->qpos, sizeof(p1)), have_p1 = 1;
    if (!have_p2 && since >= 2.1 - 1e-9) memcpy(p2, d->qpos, sizeof(p2)), have_p2 = 1;
  }
  if (nwin > 2) *accel = ls_slope(t, vel, nwin);
  if (have_p1 && have_p2) {
    double dd[3] = {p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2]};
    *stuck_disp = sqrt(dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2]);
  }
  if (*min_contacts == 1 << 30) *min_contacts = 0;
  free(t);
  free(vel);
  tf_data_destroy(d);
  tf_model_destroy(m);
}

void tf_gate_oblique_slide_at(tf_solver_type solver, const tf_gate_step* step, tf_gate_result* r) {
  const double tilt = 30 * M_PI / 180;
  double expected = G * (sin(tilt) - tan(25 * M_PI / 180) * cos(tilt));
  double accel, gap, disp, unused_disp;
  int contacts;
  run_incline(solver, step, tan(25 * M_PI / 180), 0, 1.5, &accel, &gap, &unused_disp, &contacts, r);
  tf_gate_metric_add(r, "accel_rel_error", fabs(accel - expected) / expected, 0.01, 1);
  tf_gate_metric_add(r, "corner_gap_max_m", gap, 10e-6, 1);
  double a2, g2;
  run_incline(solver, step, tan(tilt), 0, 2.5, &a2, &g2, &disp, &contacts, r);
  tf_gate_metric_add(r, "stick_displacement_m", disp, 10e-6, 1);
}

// CRISP's oblique slide at dt = 10 ms
void tf_gate_oblique_slide(tf_solver_type solver, tf_gate_result* r) {
  tf_gate_step step = {0.01, 0};
  tf_gate_oblique_slide_at(solver, &step, r);
}

void tf_gate_hull_slide(tf_solver_type solver, tf_gate_result* r) {
  const double tilt = 30 * M_PI / 180;
  double expected = G * (sin(tilt) - tan(25 * M_PI / 180) * cos(tilt));
  double accel, gap, disp;
  int contacts;
  tf_gate_step step = {0.01, 0};
  run_incline(solver, &step, tan(25 * M_PI / 180), 1, 1.5, &accel, &gap, &disp, &contacts, r);
  tf_gate_metric_add(r, "accel_rel_error", fabs(accel - expected) / expected, 0.01, 1);
  tf_gate_metric_add(r, "corner_gap_max_m", gap, 10e-6, 1);
  tf_gate_metric_add(r, "min_contacts", contacts, 4, 0);
}

// a 1 kg, 0.1 m cube released 1 mm above a plane at dt = 10 ms
void tf_gate_rest_box(tf_solver_type solver, tf_gate_result* r) {
  const double half = 0.05;
  tf_builder* b = tf_gate_builder(0.01, solver, G);
  tf_gate_plane(b, "floor", 0, 1.0);
  double size[3] = {half, half, half}, pos[3] = {0, 0, half + 1e-3};
  int body = tf_gate_free_geom(b, "cube", TF_GEOM_BOX, size, 1.0, pos, identity, 1.0, -1);
  tf_model* m = tf_gate_compile(b, r);
  if (!m) return;
  tf_data* d = tf_data_create(m);
  double penetration = 0, rise = 0, p_start[3] = {0}, drift = 0, energy_prev = NAN;
  for (int s = 0; s < 250 && step_ok(m, d, r); s++) {
    tf_kinematics(m, d);
    tf_velocity(m, d);
    tf_crba(m, d);
    double e[2];
    tf_energy(m, d, e);
    if (!isnan(energy_prev)) rise = fmax(rise, e[0] + e[1] - energy_prev);
    energy_prev = e[0] + e[1];
    if (d->time < 0.5 - 1e-9) continue;
    for (int k = 0; k < 8; k++) {
      double c[3];
      box_corner(d, body, size, k, c);
      penetration = fmax(penetration, -c[2]);
    }
    if (fabs(d->time - 0.5) < 1e-9) memcpy(p_start, d->qpos, sizeof(p_start));
    double dd[3] = {d->qpos[0] - p_start[0], d->qpos[1] - p_start[1], d->qpos[2] - p_start[2]};
    drift = fmax(drift, sqrt(dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2]));
  }
  tf_gate_metric_add(r, "penetration_max_m", penetration, 1e-6, 1);
  tf_gate_metric_add(r, "drift_m", drift, 1e-6, 1);
  tf_gate_metric_add(r, "energy_rise_max_j", rise, 1e-9, 1);
  tf_data_destroy(d);
  tf_model_destroy(m);
}

// the tilt of body b's z axis from the world z axis (deg)
static double tilt_deg(const tf_data* d, int b) {
  double c = d->xmat[9 * b + 8];
  return acos(fmin(1.0, fmax(-1.0, c))) * 180 / M_PI;
}

// a 0.1 m cube resting on a 0.2 x 0.2 x 0.1 m box on the floor, 5 s at dt = 10 ms
void tf_gate_box_on_box(tf_solver_type solver, tf_gate_result* r) {
  tf_builder* b = tf_gate_builder(0.01, solver, G);
  tf_gate_plane(b, "floor", 0, 1.0);
  double base_size[3] = {0.1, 0.1, 0.05}, base_pos[3] = {0, 0, 0.05};
  double top_size[3] = {0.05, 0.05, 0.05}, top_pos[3] = {0.02, -0.01, 0.15};
  int base = tf_gate_free_geom(b, "base", TF_GEOM_BOX, base_size, 2.0, base_pos, identity, 1.0, -1);
  int top = tf_gate_free_geom(b, "top", TF_GEOM_BOX, top_size, 1.0, top_pos, identity, 1.0, -1);
  tf_model* m = tf_gate_compile(b, r);
  if (!m) return;
  tf_data* d = tf_data_create(m);
  double tilt = 0;
  for (int s = 0; s < 500 && step_ok(m, d, r); s++) {
    tf_kinematics(m, d);
    tilt = fmax(tilt, fmax(tilt_deg(d, base), tilt_deg(d, top)));
  }
  tf_gate_metric_add(r, "tilt_max_deg", tilt, 0.01, 1);
  tf_data_destroy(d);
  tf_model_destroy(m);
}

// CRISP's top-heavy stack: cubes of 0.1 m, masses 1/ratio, 1, ratio kg bottom to top,
// mu = 5, 2.5 s at dt (CRISP's is 1 ms); the top one released with a 5 mm gap
static void run_stack(tf_solver_type solver, double ratio, const tf_gate_step* step,
                      tf_gate_result* r) {
  double dt = step->dt;
  tf_builder* b = tf_gate_builder_step(step, solver, G);
  tf_gate_plane(b, "floor", 0, 5.0);
  double size[3] = {0.05, 0.05, 0.05};
  double masses[3] = {1 / ratio, 1, ratio}, heights[3] = {0.05, 0.15, 0.255};
  const char* names[3] = {"bottom", "middle", "top"};
  int top = 0;
  for (int i = 0; i < 3; i++) {
    double pos[3] = {0, 0, heights[i]};
    top = tf_gate_free_geom(b, names[i], TF_GEOM_BOX, size, masses[i], pos, identity, 5.0, -1);
  }
  tf_model* m = tf_gate_compile(b, r);
  if (!m) return;
  tf_data* d = tf_data_create(m);
  int adr = m->jnt_qposadr[m->body_jntadr[top]];
  double error = 0, lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
  int nsteps = (int)llround(2.5 / dt);
  for (int s = 0; s < nsteps && step_ok(m, d, r); s++) {
    if (d->time < 0.5 - 1e-9) continue;
    double z = d->qpos[adr + 2];
    error = fmax(error, fabs(z - 0.25));
    int half = d->time > 1.5 ? 1 : 0;
    lo[half] = fmin(lo[half], z);
    hi[half] = fmax(hi[half], z);
  }
  tf_gate_metric_add(r, "top_error_max_m", error, 10e-6, 1);
  tf_gate_metric_add(r, "p2p_growth_m", (hi[1] - lo[1]) - (hi[0] - lo[0]), 1e-7, 1);
  tf_data_destroy(d);
  tf_model_destroy(m);
}

void tf_gate_stack_ratio10(tf_solver_type solver, tf_gate_result* r) {
  tf_gate_step step = {0.001, 0};
  run_stack(solver, 10, &step, r);
}
void tf_gate_stack_ratio100(tf_solver_type solver, tf_gate_result* r) {
  tf_gate_step step = {0.001, 0};
  run_stack(solver, 100, &step, r);
}
void tf_gate_stack_ratio10_at(tf_solver_type solver, const tf_gate_step* step, tf_gate_result* r) {
  run_stack(solver, 10, step, r);
}
void tf_gate_stack_ratio100_at(tf_solver_type solver, const tf_gate_step* step, tf_gate_result* r) {
  run_stack(solver, 100, step, r);
}

// a puck (cylinder r 2 cm, h 1 cm, 0.1 kg), mu 0.5, launched at 1 m/s, 30 deg from x:
// an elliptic cone keeps the friction exactly opposite the slip, so it slides straight
void tf_gate_isotropy(tf_solver_type solver, tf_gate_result* r) {
  tf_builder* b = tf_gate_builder(0.005, solver, G);
  tf_gate_plane(b, "floor", 0, 0.5);
  double size[3] = {0.02, 0.005, 0}, pos[3] = {0, 0, 0.005};
  tf_gate_free_geom(b, "puck", TF_GEOM_CYLINDER, size, 0.1, pos, identity, 0.5, -1);
  tf_model* m = tf_gate_compile(b, r);
  if (!m) return;
  tf_data* d = tf_data_create(m);
  const double angle = 30 * M_PI / 180;
  d->qvel[0] = cos(angle);
  d->qvel[1] = sin(angle);
  double worst = 0, travelled = 0;
  for (int s = 0; s < 100 && step_ok(m, d, r); s++) {
    double speed = hypot(d->qvel[0], d->qvel[1]);
    if (speed < 1e-3) continue;
    travelled = hypot(d->qpos[0], d->qpos[1]);
    double dir = atan2(d->qvel[1], d->qvel[0]);
    worst = fmax(worst, fabs(dir - angle) * 180 / M_PI);
  }
  tf_gate_metric_add(r, "direction_error_max_deg", worst, 0.1, 1);
  // it must really slide: 1 m/s at mu g = 4.9 m/s^2 goes 0.102 m
  tf_gate_metric_add(r, "distance_m", travelled, 0.09, 0);
  tf_data_destroy(d);
  tf_model_destroy(m);
}

// five hexagonal-prism hulls stacked face to face, 2 s at dt = 5 ms
void tf_gate_hull_stack(tf_solver_type solver, tf_gate_result* r) {
  const double radius = 0.05, half_height = 0.02;
  tf_builder* b = tf_gate_builder(0.005, solver, G);
  tf_gate_plane(b, "floor", 0, 1.0);
  double pts[12 * 3];
  for (int k = 0; k < 12; k++) {
    double a = (k % 6) * M_PI / 3;
    pts[3 * k] = radius * cos(a);
    pts[3 * k + 1] = radius * sin(a);
    pts[3 * k + 2] = k < 6 ? -half_height : half_height;
  }
  int hull = tf_builder_add_hull(b, "hex_prism", pts, 12);
  double size[3] = {radius, radius, half_height};
  int bodies[5];
  for (int i = 0; i < 5; i++) {
    char name[16] = "prism0";
    name[5] = (char)('0' + i);
    double pos[3] = {0, 0, half_height * (2 * i + 1)};
    bodies[i] = tf_gate_free_geom(b, name, TF_GEOM_HULL, size, 0.5, pos, identity, 1.0, hull);
  }
  tf_model* m = tf_gate_compile(b, r);
  if (!m) return;
  tf_data* d = tf_data_create(m);
  double moved = 0;
  for (int s = 0; s < 400 && step_ok(m, d, r); s++) {
    tf_kinematics(m, d);
    for (int i = 0; i < 5; i++) {
      double dz = d->xpos[3 * bodies[i] + 2] - half_height * (2 * i + 1);
      double dx = d->xpos[3 * bodies[i]], dy = d->xpos[3 * bodies[i] + 1];
      moved = fmax(moved, sqrt(dx * dx + dy * dy + dz * dz));
    }
  }
  tf_gate_metric_add(r, "displacement_max_m", moved, 10e-6, 1);
  tf_data_destroy(d);
  tf_model_destroy(m);
}
