// Tests of the overlap checks at the end of a step (step.c's position pass with
// opt.solver_opt.overlap_checks): a collar on a shaft with 50 um of clearance, free to slide
// across it and turn on it (not to tilt), pushed around the shaft by a turning force, touches
// along a ring that the step's rows hold at a few angles only. Without the checks the collar
// slides along one row's tangent into the shaft between two rows (the polygon's corner); with
// them every step ends out of the shaft to within the checks' tolerance. Measured against the
// exact geometry: the bore is a cylinder about the collar's axis, and it does not tilt, so
// its deepest point in the shaft is its offset less the clearance: 31 um without the checks
// and 1.0 um with them (29 rows added over 500 steps).
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "tightfit.h"

#define SHAFT_R 4e-3     // m
#define CLEARANCE 50e-6  // m, radial
#define COLLAR_R 10e-3   // m: outer radius
#define COLLAR_H 5e-3    // m: half-height
#define SHAFT_H 20e-3    // m: half-length
#define PUSH 5.0         // N
#define TURN 150.0       // rad/s: the push's direction turns at this rate

typedef struct ring_param {
  double inner, outer, half;  // inner 0: a solid cylinder of radius outer
} ring_param;

// exact distance to a ring (or cylinder) of the given radii extruded over |z| <= half
static double ring_fn(const void* params, const double p[3], double grad[3]) {
  const ring_param* r = params;
  double rho = hypot(p[0], p[1]);
  double radial[2] = {rho > 0 ? p[0] / rho : 1, rho > 0 ? p[1] / rho : 0};
  double d_out = rho - r->outer, d_in = r->inner > 0 ? r->inner - rho : -INFINITY;
  double d2 = fmax(d_out, d_in), s2 = d_out >= d_in ? 1 : -1;  // s2: which way d2 grows
  double dz = fabs(p[2]) - r->half, sz = p[2] >= 0 ? 1 : -1;
  double g2[3] = {s2 * radial[0], s2 * radial[1], 0}, gz[3] = {0, 0, sz};
  if (d2 > 0 && dz > 0) {
    double n = hypot(d2, dz);
    for (int k = 0; k < 3; k++) grad[k] = (d2 * g2[k] + dz * gz[k]) / n;
    return n;
  }
  if (d2 > dz) {
    memcpy(grad, g2, sizeof(g2));
    return d2;
  }
  memcpy(grad, gz, sizeof(gz));
  return dz;
}

static int add_ring_sdf(tf_builder* b, const char* name, const ring_param* r) {
  tf_sdf_def sd;
  memset(&sd, 0, sizeof(sd));
  sd.name = name;
  sd.fn = ring_fn;
  sd.params = r;
  sd.params_size = sizeof(*r);
  for (int k = 0; k < 2; k++) sd.aabb[k] = -r->outer, sd.aabb[3 + k] = r->outer;
  sd.aabb[2] = -r->half, sd.aabb[5] = r->half;
  sd.mesh = -1;
  return tf_builder_add_sdf(b, &sd);
}

static const ring_param shaft_ring = {0, SHAFT_R, SHAFT_H};
static const ring_param collar_ring = {SHAFT_R + CLEARANCE, COLLAR_R, COLLAR_H};

static tf_model* collar_scene(int checks, int* collar) {
  tf_builder* b = tf_builder_create();
  tf_option opt = tf_option_default();
  opt.timestep = 1e-3;
  opt.gravity[2] = 0;
  opt.solver_opt.overlap_checks = checks;
  opt.max_pair_contacts = 8;
  tf_builder_set_option(b, &opt);
  tf_geom_def shaft = tf_geom_def_default();
  shaft.name = "shaft";
  shaft.type = TF_GEOM_SDF;
  shaft.sdf = add_ring_sdf(b, "shaft", &shaft_ring);
  shaft.friction[0] = 0.1;
  shaft.condim = 3;
  assert_true(tf_builder_add_geom(b, &shaft) >= 0);
  tf_body_def body = tf_body_def_default();
  body.name = "collar";
  body.mass = 0.02;
  body.inertia[0] = body.inertia[1] = 1e-6;
  body.inertia[2] = 1.5e-6;
  *collar = tf_builder_add_body(b, &body);
  // free to slide across the shaft and turn on it, not to tilt: the ring alone
  static const char* const names[3] = {"collar_x", "collar_y", "collar_spin"};
  for (int k = 0; k < 3; k++) {
    tf_joint_def joint = tf_joint_def_default();
    joint.name = names[k];
    joint.body = *collar;
    joint.type = k < 2 ? TF_JOINT_SLIDE : TF_JOINT_HINGE;
    joint.axis[0] = k == 0, joint.axis[1] = k == 1, joint.axis[2] = k == 2;
    tf_builder_add_joint(b, &joint);
  }
  tf_geom_def g = tf_geom_def_default();
  g.name = "collar";
  g.body = *collar;
  g.type = TF_GEOM_SDF;
  g.sdf = add_ring_sdf(b, "collar", &collar_ring);
  g.friction[0] = 0.1;
  g.condim = 3;
  tf_builder_add_geom(b, &g);
  char err[256] = "";
  tf_model* m = tf_builder_compile(b, err, sizeof(err));
  tf_builder_destroy(b);
  if (!m) print_error("compile: %s\n", err);
  assert_non_null(m);
  return m;
}

// the deepest the collar's bore reaches into the shaft: its axis's offset from the shaft's
// at the bore's top and bottom rims (the same while it cannot tilt), less the clearance (0
// when clear)
static double bore_overlap(const tf_data* d, int collar) {
  const double* x = d->xpos + 3 * collar;
  const double* R = d->xmat + 9 * collar;
  double worst = 0;
  for (int side = -1; side <= 1; side += 2) {
    double rim[3];
    for (int k = 0; k < 3; k++) rim[k] = x[k] + side * COLLAR_H * R[3 * k + 2];
    worst = fmax(worst, hypot(rim[0], rim[1]) - CLEARANCE);
  }
  return worst;
}

// the collar pushed around the shaft for 0.5 s; the deepest bore overlap over its steps
static double push_around(int checks, int* rows) {
  int collar;
  tf_model* m = collar_scene(checks, &collar);
  tf_data* d = tf_data_create(m);
  double worst = 0;
  *rows = 0;
  for (int i = 0; i < 500; i++) {
    double t = d->time;
    d->xfrc_applied[6 * collar] = PUSH * cos(TURN * t);
    d->xfrc_applied[6 * collar + 1] = PUSH * sin(TURN * t);
    assert_int_equal(tf_step(m, d), 0);
    *rows += d->overlap_rows;
    tf_kinematics(m, d);
    worst = fmax(worst, bore_overlap(d, collar));
  }
  tf_data_destroy(d);
  tf_model_destroy(m);
  return worst;
}

static void test_collar_stays_out(void** state) {
  (void)state;
  int rows_on, rows_off;
  double on = push_around(3, &rows_on), off = push_around(0, &rows_off);
  print_message(
      "collar pushed around its shaft: deepest bore overlap %.3e m with the checks "
      "(%d rows added), %.3e m without\n",
      on, rows_on, off);
  assert_int_equal(rows_off, 0);
  assert_true(rows_on > 0);
  // without: into the polygon's corners (a square's are c (sqrt 2 - 1) = 21 um deep), which
  // the test exercises; with: out to the checks' tolerance (1 um) and its rounding
  assert_true(off > 15e-6);
  assert_true(on < 2e-6);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_collar_stays_out),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
