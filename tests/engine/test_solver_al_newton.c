// The al (CANAL) and newton (MuJoCo-style soft) solvers on hand-built constraint problems
// with closed-form answers: a box resting on a plane on its four bottom corners, the same box
// on a 30 degree incline (sliding at g (sin 30 - mu cos 30), sticking at mu = tan 30),
// frictionless sliding, a joint limit, joint friction breakaway, an equality, isotropic
// friction against an oblique slip, warm starts, a top-heavy stack, fast sliding at mu 1.5
// with torsional friction, random problems of every block type, and newton's soft answers
// (penetration velocity from its impedance, approach to al as the constraints stiffen, the
// relaxed cone's lift-off while sliding, creep, speculative rows, the steady overlap that
// holds a load, isotropic friction).
//
// The problems are written by hand, so each answer is known in closed form, with the fixture
// both solver suites share (solver_fixture.h).
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linalg_dense.h"
#include "model_internal.h"
#include "solver.h"
#include "solver_fixture.h"
#include "tightfit.h"
}
}

// ---------------------------------------------------------------- al

// resting box: zero velocity to 1e-12, normal impulses carry m g h, nothing tangential
static void test_al_box_rests(void** state) {
  env* e = *state;
  fixture f;
  double g[3] = {0, 0, -G};
  box_on_plane(&f, g, NULL, 0.01, 0.5, 0);
  tf_solver_settings s = settings();
  s.tolerance = 1e-13;  // the checks below ask for 1e-12
  result r = solve(e, tf_solve_al, &f, &s, NULL);
  report("al box rests", &r);
  assert_int_equal(r.rc, 0);
  assert_true(r.stats.converged);
  for (int blk = 0; blk < f.nblock; blk++) {
    assert_true(fabs(row_velocity(&f, r.v, f.adr[blk])) < 1e-12);
  }
  for (int k = 0; k < 6; k++) assert_true(fabs(r.v[k]) < 1e-12);
  double n, t[2];
  contact_sums(&f, r.lambda, &n, t);
  assert_true(fabs(n - box_mass * G * f.h) < 1e-12 * box_mass * G * f.h);
  assert_true(fabs(t[0]) < 1e-12 && fabs(t[1]) < 1e-12);
  assert_in_cones(&f, r.lambda);
  assert_true(r.stats.primal_residual < 1e-10 && r.stats.dual_residual < 1e-10);
}

// the box on an incline of the given angle, from rest, h = 10 ms
static void incline(fixture* f, double angle, double mu, int dim1) {
  double g[3];
  incline_gravity(g, angle);
  box_on_plane(f, g, NULL, 0.01, mu, dim1);
}

// mu = tan 25 on 30 degrees: one step of sliding at g (sin 30 - mu cos 30) = 0.9434 m/s^2
static void test_al_incline_slides(void** state) {
  env* e = *state;
  fixture f;
  double mu = tan(25 * DEG);
  incline(&f, 30 * DEG, mu, 0);
  tf_solver_settings s = settings();
  result r = solve(e, tf_solve_al, &f, &s, NULL);
  report("al incline mu=tan25 slides", &r);
  assert_int_equal(r.rc, 0);
  assert_true(r.stats.converged);
  double expect = f.h * G * (sin(30 * DEG) - mu * cos(30 * DEG));
  print_message("    slide velocity %.12f expected %.12f (accel %.6f m/s^2)\n", r.v[0], expect,
                r.v[0] / f.h);
  assert_true(fabs(r.v[0] - expect) < 1e-6 * expect);
  for (int k = 1; k < 6; k++) assert_true(fabs(r.v[k]) < 1e-10);
  double n, t[2];
  contact_sums(&f, r.lambda, &n, t);
  assert_true(fabs(n - box_mass * G * cos(30 * DEG) * f.h) < 1e-9);
  assert_true(fabs(t[0] + mu * n) < 1e-9);
  assert_in_cones(&f, r.lambda);
}

// mu = tan 30 on 30 degrees: the friction cone's edge, which must still stick
static void test_al_incline_sticks_at_cone_edge(void** state) {
  env* e = *state;
  fixture f;
  incline(&f, 30 * DEG, tan(30 * DEG), 0);
  // at the default tolerance, then at a tight one (the answer is exactly v = 0: gravity's
  // pull along the slope equals the largest friction the cone allows)
  for (int tight = 0; tight <= 1; tight++) {
    tf_solver_settings s = settings();
    if (tight) s.tolerance = 1e-13;
    result r = solve(e, tf_solve_al, &f, &s, NULL);
    report(tight ? "al mu=tan30 sticks (tol 1e-13)" : "al incline mu=tan30 sticks", &r);
    assert_int_equal(r.rc, 0);
    double vmax = 0;
    for (int k = 0; k < 6; k++) vmax = fmax(vmax, fabs(r.v[k]));
    print_message("    largest velocity %.3e\n", vmax);
    assert_true(vmax < (tight ? 1e-12 : 1e-10));
    assert_true(r.stats.converged);
    assert_in_cones(&f, r.lambda);
    double n, t[2];
    contact_sums(&f, r.lambda, &n, t);
    assert_true(fabs(-t[0] - tan(30 * DEG) * n) < 1e-9 * n);  // on the cone's edge
  }
}

// mu = 0 as dim-3 contacts with zero coefficients and as dim-1 contacts: g sin 30
static void test_al_frictionless(void** state) {
  env* e = *state;
  double expect = 0.01 * G * sin(30 * DEG);
  for (int dim1 = 0; dim1 <= 1; dim1++) {
    fixture f;
    incline(&f, 30 * DEG, 0, dim1);  // dim 3 with mu = 0, then dim 1
    tf_solver_settings s = settings();
    result r = solve(e, tf_solve_al, &f, &s, NULL);
    report(dim1 ? "al frictionless (dim 1)" : "al frictionless (dim 3, mu 0)", &r);
    assert_int_equal(r.rc, 0);
    assert_true(r.stats.converged);
    assert_true(fabs(r.v[0] - expect) < 1e-10 * expect);
    for (int k = 1; k < 6; k++) assert_true(fabs(r.v[k]) < 1e-10);
    for (int blk = 0; blk < f.nblock; blk++) {
      for (int k = 1; k < f.dim[blk]; k++) assert_true(r.lambda[f.adr[blk] + k] == 0);
    }
  }
}

// a hinge (inertia 0.5) turning at -2 rad/s toward its lower limit 1 mrad away
static void hinge_limit(fixture* f, double vel) {
  fixture_init(f, 1, 0.01);
  f->A[0] = 0.5;
  f->v0[0] = f->v_free[0] = vel;
  begin_block(f, TF_EFC_LIMIT);
  double row = 1, gap = 0.001;
  add_row(f, &row, gap / f->h, gap, 0, 0);
  fixture_finish(f);
}

// a speculative limit row stops the hinge exactly at the limit; moving away it lets go
static void test_al_limit(void** state) {
  env* e = *state;
  fixture f;
  hinge_limit(&f, -2);
  tf_solver_settings s = settings();
  result r = solve(e, tf_solve_al, &f, &s, NULL);
  report("al limit", &r);
  assert_true(r.stats.converged);
  assert_true(fabs(r.v[0] + 0.1) < 1e-10);  // reaches the limit exactly at the step's end
  assert_true(fabs(r.lambda[0] - 0.5 * 1.9) < 1e-10);
  // moving away: the limit lets go
  hinge_limit(&f, 2);
  r = solve(e, tf_solve_al, &f, &s, NULL);
  assert_true(fabs(r.v[0] - 2) < 1e-14 && r.lambda[0] == 0);
}

// a slide (mass 2) pushed by force F for one step against dry friction 3 N
static void slide_friction(fixture* f, double force) {
  fixture_init(f, 1, 0.01);
  f->A[0] = 2;
  f->v_free[0] = f->h * force / 2;
  begin_block(f, TF_EFC_FRICTION);
  double row = 1;
  add_row(f, &row, 0, 0, 0, 3 * f->h);
  fixture_finish(f);
}

// dry friction 3 N: 2.9 N sticks with the impulse balancing it, 3.5 N slides against 3 N
static void test_al_joint_friction_breakaway(void** state) {
  env* e = *state;
  tf_solver_settings s = settings();
  fixture f;
  slide_friction(&f, 2.9);  // below breakaway: stuck
  result r = solve(e, tf_solve_al, &f, &s, NULL);
  report("al joint friction F=2.9", &r);
  assert_true(r.stats.converged);
  assert_true(fabs(r.v[0]) < 1e-10);
  assert_true(fabs(r.lambda[0] + 2.9 * f.h) < 1e-10);
  slide_friction(&f, 3.5);  // above: moves at (F - 3) h / m
  r = solve(e, tf_solve_al, &f, &s, NULL);
  report("al joint friction F=3.5", &r);
  assert_true(r.stats.converged);
  assert_true(fabs(r.v[0] - 0.5 * f.h / 2) < 1e-12);
  assert_true(fabs(r.lambda[0] + 3 * f.h) < 1e-14);
}

// a connect equality: the box's corner (0.2, 0.1, -0.05) pinned, 1 mm off, plus gravity and
// a spin
static void box_pinned(fixture* f) {
  double g[3] = {0, 0, -G}, v0[6] = {0.3, -0.2, 0.1, 1, -2, 0.5};
  box_body(f, g, v0, 0.01);
  double r[3] = {0.2, 0.1, -0.05};
  begin_block(f, TF_EFC_EQUALITY);
  for (int k = 0; k < 3; k++) {
    double d[3] = {0, 0, 0}, rxd[3], row[6];
    d[k] = 1;
    cross(rxd, r, d);
    for (int c = 0; c < 3; c++) {
      row[c] = d[c];
      row[c + 3] = rxd[c];
    }
    double pos = k == 2 ? 0.001 : 0;
    add_row(f, row, pos / f->h, pos, 0, 0);
  }
  fixture_finish(f);
}

// the pinned corner ends the step with J v + e = 0 on all three rows
static void test_al_equality(void** state) {
  env* e = *state;
  fixture f;
  box_pinned(&f);
  tf_solver_settings s = settings();
  result r = solve(e, tf_solve_al, &f, &s, NULL);
  report("al equality (connect)", &r);
  assert_true(r.stats.converged);
  for (int i = 0; i < 3; i++) {
    assert_true(fabs(row_velocity(&f, r.v, i) + f.e[i]) < 1e-10);
  }
  assert_true(r.stats.dual_residual < 1e-10 && r.stats.primal_residual < 1e-10);
}

// friction on a slip at 30 degrees to the tangent rows is exactly opposite the slip and of
// size mu N (an elliptic, not pyramidal, cone)
static void test_al_isotropic_friction(void** state) {
  env* e = *state;
  fixture f;
  double g[3] = {0, 0, -G}, slip = 30 * DEG;
  double v0[6] = {cos(slip), sin(slip), 0, 0, 0, 0};
  box_on_plane(&f, g, v0, 0.01, 0.5, 0);
  tf_solver_settings s = settings();
  result r = solve(e, tf_solve_al, &f, &s, NULL);
  report("al isotropy (30 deg slip)", &r);
  assert_true(r.stats.converged);
  double n, t[2];
  contact_sums(&f, r.lambda, &n, t);
  double along = t[0] * cos(slip) + t[1] * sin(slip);
  double across = -t[0] * sin(slip) + t[1] * cos(slip);
  print_message("    friction along %.15f across %.3e (|t| / mu n - 1 = %.2e)\n", along, across,
                sqrt(t[0] * t[0] + t[1] * t[1]) / (0.5 * n) - 1);
  assert_true(along < 0);
  assert_true(fabs(across) < 1e-10 * fabs(along));
  assert_true(fabs(-along - 0.5 * n) < 1e-10 * n);
  double speed = 1 - 0.5 * G * f.h;
  assert_true(fabs(r.v[0] - speed * cos(slip)) < 1e-10);
  assert_true(fabs(r.v[1] - speed * sin(slip)) < 1e-10);
}

// warm starts: the solver's own answer needs no iteration, the previous step's answer helps
static void test_al_warm_start(void** state) {
  env* e = *state;
  fixture f;
  incline(&f, 30 * DEG, tan(25 * DEG), 0);
  tf_solver_settings s = settings();
  result cold = solve(e, tf_solve_al, &f, &s, NULL);
  result warm = solve(e, tf_solve_al, &f, &s, cold.lambda);
  report("al cold", &cold);
  report("al warm (own answer)", &warm);
  assert_true(warm.stats.converged);
  assert_true(warm.stats.iterations < cold.stats.iterations);
  assert_true(fabs(warm.v[0] - cold.v[0]) < 1e-12);
  // a warm start from a nearby problem (the previous step's slide, slightly slower) helps too
  fixture f2;
  double g[3];
  incline_gravity(g, 30 * DEG);
  double v0[6] = {cold.v[0], 0, 0, 0, 0, 0};
  box_on_plane(&f2, g, v0, 0.01, tan(25 * DEG), 0);
  result next_cold = solve(e, tf_solve_al, &f2, &s, NULL);
  result next_warm = solve(e, tf_solve_al, &f2, &s, cold.lambda);
  report("al next step cold", &next_cold);
  report("al next step warm", &next_warm);
  assert_true(next_warm.stats.converged && next_cold.stats.converged);
  assert_true(next_warm.stats.iterations <= next_cold.stats.iterations);
  assert_true(fabs(next_warm.v[0] - 2 * cold.v[0]) < 1e-10);
}

// no rows: both solvers return v_free
static void test_al_empty(void** state) {
  env* e = *state;
  fixture f;
  double g[3] = {0, 0, -G};
  box_body(&f, g, NULL, 0.01);
  fixture_finish(&f);
  tf_solver_settings s = settings();
  result r = solve(e, tf_solve_al, &f, &s, NULL);
  assert_int_equal(r.rc, 0);
  for (int k = 0; k < 6; k++) assert_true(r.v[k] == f.v_free[k]);
  r = solve(e, tf_solve_newton, &f, &s, NULL);
  assert_int_equal(r.rc, 0);
  for (int k = 0; k < 6; k++) assert_true(r.v[k] == f.v_free[k]);
}

// a contact between body a (dofs from dof_a, -1 = the world) at ra and body b (dof_b) at rb,
// offsets from each com in world axes; the normal n points from a into b
static void add_contact2(fixture* f, int dof_a, const double ra[3], int dof_b, const double rb[3],
                         const double* dirs[], int dim, const double* mu) {
  begin_block(f, TF_EFC_CONTACT);
  for (int k = 0; k < dim; k++) {
    double row[NVMAX] = {0}, rxd[3];
    for (int side = 0; side < 2; side++) {
      int dof = side ? dof_b : dof_a;
      if (dof < 0) continue;
      double sign = side ? 1 : -1;
      const double* r = side ? rb : ra;
      if (k < 3) {
        cross(rxd, r, dirs[k]);
        for (int c = 0; c < 3; c++) {
          row[dof + c] = sign * dirs[k][c];
          row[dof + 3 + c] = sign * rxd[c];
        }
      } else {  // torsion: relative spin about the normal
        for (int c = 0; c < 3; c++) row[dof + 3 + c] = sign * dirs[0][c];
      }
    }
    add_row(f, row, 0, 0, k == 0 ? 0 : mu[k - 1], 0);
  }
}

// two stacked boxes, the top one `ratio` times heavier (CRISP's top-heavy stack), mu = 5
static void stack(fixture* f, double ratio) {
  fixture_init(f, 12, 0.001);
  double masses[2] = {1, ratio}, half[3] = {0.05, 0.05, 0.05};
  for (int body = 0; body < 2; body++) {
    double m = masses[body], inertia = m / 3 * (2 * half[0] * half[0]);
    for (int k = 0; k < 3; k++) {
      f->A[(6 * body + k) * 12 + 6 * body + k] = m;
      f->A[(6 * body + 3 + k) * 12 + 6 * body + 3 + k] = inertia;
    }
    f->v_free[6 * body + 2] = -G * f->h;
  }
  static const double n[3] = {0, 0, 1}, t1[3] = {1, 0, 0}, t2[3] = {0, 1, 0};
  const double* dirs[3] = {n, t1, t2};
  double mu[2] = {5, 5};
  for (int level = 0; level < 2; level++) {
    for (int sx = -1; sx <= 1; sx += 2) {
      for (int sy = -1; sy <= 1; sy += 2) {
        double rb[3] = {sx * half[0], sy * half[1], -half[2]};
        double ra[3] = {sx * half[0], sy * half[1], half[2]};
        add_contact2(f, level == 0 ? -1 : 0, ra, level == 0 ? 0 : 6, rb, dirs, 3, mu);
      }
    }
  }
  fixture_finish(f);
}

// CRISP's top-heavy stack (mass ratios 10 and 100, mu 5, 1 ms): everything at rest
static void test_al_top_heavy_stack(void** state) {
  env* e = *state;
  tf_solver_settings s = settings();
  for (int r = 0; r < 2; r++) {
    double ratio = r == 0 ? 10 : 100;
    fixture f;
    stack(&f, ratio);
    result res = solve(e, tf_solve_al, &f, &s, NULL);
    report(r == 0 ? "al stack 1:10" : "al stack 1:100", &res);
    assert_true(res.stats.converged);
    double vmax = 0;
    for (int k = 0; k < 12; k++) vmax = fmax(vmax, fabs(res.v[k]));
    print_message("    largest velocity %.3e\n", vmax);
    assert_true(vmax < 1e-10);
    double ground = 0, top = 0;
    for (int blk = 0; blk < 8; blk++) {
      if (blk < 4) {
        ground += res.lambda[f.adr[blk]];
      } else {
        top += res.lambda[f.adr[blk]];
      }
    }
    print_message("    ground %.15f top %.15f expected %.15f %.15f\n", ground, top,
                  (1 + ratio) * G * f.h, ratio * G * f.h);
    assert_true(fabs(ground - (1 + ratio) * G * f.h) < 1e-7 * (1 + ratio) * G * f.h);
    assert_true(fabs(top - ratio * G * f.h) < 1e-7 * ratio * G * f.h);
    assert_in_cones(&f, res.lambda);
  }
}

// mu = 1.5 sliding at 2 m/s: the plain De Saxce cascade would contract only by
// mu^2 / (1 + mu^2) = 0.69 per outer iteration; the Newton step on it keeps the count low.
// Torsional friction (condim 4) rides along without changing the answer.
static void test_al_high_friction_slide(void** state) {
  env* e = *state;
  fixture f;
  double g[3] = {0, 0, -G}, v0[6] = {2, 0, 0, 0, 0, 0};
  box_body(&f, g, v0, 0.01);
  static const double n[3] = {0, 0, 1}, t1[3] = {1, 0, 0}, t2[3] = {0, 1, 0};
  const double* dirs[3] = {n, t1, t2};
  double mu[3] = {1.5, 1.5, 0.01};
  for (int sx = -1; sx <= 1; sx += 2) {
    for (int sy = -1; sy <= 1; sy += 2) {
      double r[3] = {sx * box_half[0], sy * box_half[1], -box_half[2]};
      add_contact2(&f, -1, r, 0, r, dirs, 4, mu);
    }
  }
  fixture_finish(&f);
  tf_solver_settings s = settings();
  result r = solve(e, tf_solve_al, &f, &s, NULL);
  report("al mu=1.5 slide, condim 4", &r);
  assert_true(r.stats.converged);
  assert_true(r.stats.iterations <= 10);
  double expect = 2 - 1.5 * G * f.h;
  print_message("    velocity %.12f expected %.12f\n", r.v[0], expect);
  assert_true(fabs(r.v[0] - expect) < 1e-10);
  for (int k = 1; k < 6; k++) assert_true(fabs(r.v[k]) < 1e-10);
  assert_in_cones(&f, r.lambda);
}

// a deterministic pseudo-random number in [-1, 1)
static double rnd(uint64_t* state) {
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(*state >> 11) / (double)(1ull << 52) - 1;
}

// random problems with every block type: a random SPD A (nv 12), three frictional contacts
// with random rows, a limit, a joint friction row and a 2-row equality; both solvers must
// converge, al to the hard NCP (its residuals under tolerance), with impulses in their sets
static void random_problem(fixture* f, uint64_t* seed) {
  int nv = 12;
  fixture_init(f, nv, 0.01);
  double B[12 * 12];
  for (int k = 0; k < nv * nv; k++) B[k] = rnd(seed);
  for (int i = 0; i < nv; i++) {
    for (int j = 0; j < nv; j++) {
      double sum = i == j ? 0.5 : 0;
      for (int k = 0; k < nv; k++) sum += B[i * nv + k] * B[j * nv + k];
      f->A[i * nv + j] = sum;
    }
    f->v0[i] = 0.3 * rnd(seed);
    f->v_free[i] = f->v0[i] + 0.2 * rnd(seed);
  }
  double row[12];
  for (int c = 0; c < 3; c++) {
    begin_block(f, TF_EFC_CONTACT);
    double mu = 0.3 + 0.5 * fabs(rnd(seed)), gap = c == 0 ? 0.002 : 0;
    for (int k = 0; k < 3; k++) {
      for (int i = 0; i < nv; i++) row[i] = rnd(seed);
      add_row(f, row, k == 0 ? gap / f->h : 0, k == 0 ? gap : 0, k == 0 ? 0 : mu, 0);
    }
  }
  for (int i = 0; i < nv; i++) row[i] = rnd(seed);
  begin_block(f, TF_EFC_LIMIT);
  add_row(f, row, 0, 0, 0, 0);
  for (int i = 0; i < nv; i++) row[i] = i == 3 ? 1 : 0;
  begin_block(f, TF_EFC_FRICTION);
  add_row(f, row, 0, 0, 0, 0.05);
  begin_block(f, TF_EFC_EQUALITY);
  for (int k = 0; k < 2; k++) {
    for (int i = 0; i < nv; i++) row[i] = rnd(seed);
    add_row(f, row, 0.01 * rnd(seed), 0.001 * rnd(seed), 0, 0);
  }
  fixture_finish(f);
}

// 200 random problems (fixed seed): every solve converges, impulses in their sets
static void test_random_problems(void** state) {
  env* e = *state;
  uint64_t seed = 12345;
  int worst_al = 0, worst_nt = 0;
  double worst_primal = 0, worst_dual = 0;
  for (int trial = 0; trial < 200; trial++) {
    fixture f;
    random_problem(&f, &seed);
    tf_solver_settings s = settings();
    result al = solve(e, tf_solve_al, &f, &s, NULL);
    assert_int_equal(al.rc, 0);
    if (!al.stats.converged) report("al random (not converged)", &al);
    assert_true(al.stats.converged);
    assert_true(al.stats.primal_residual < 1e-9);
    assert_in_cones(&f, al.lambda);
    assert_true(fabs(al.lambda[f.adr[4]]) <= f.bound[f.adr[4]] * (1 + 1e-12));
    assert_true(al.lambda[f.adr[3]] >= 0);
    worst_al = al.stats.iterations > worst_al ? al.stats.iterations : worst_al;
    worst_primal = fmax(worst_primal, al.stats.primal_residual);
    worst_dual = fmax(worst_dual, al.stats.dual_residual);
    result nt = solve(e, tf_solve_newton, &f, &s, NULL);
    assert_int_equal(nt.rc, 0);
    assert_true(nt.stats.converged);
    assert_in_cones(&f, nt.lambda);
    worst_nt = nt.stats.iterations > worst_nt ? nt.stats.iterations : worst_nt;
  }
  print_message(
      "  200 random problems: al at most %d outer iterations (primal <= %.1e, dual <= "
      "%.1e), newton at most %d iterations\n",
      worst_al, worst_primal, worst_dual, worst_nt);
}

// ---------------------------------------------------------------- newton

// the same solref / solimp on every block
static void set_soft(fixture* f, double timeconst, double dampratio, double d0, double dwidth,
                     double width) {
  for (int k = 0; k < f->nblock; k++) {
    f->solref[2 * k] = timeconst;
    f->solref[2 * k + 1] = dampratio;
    f->solimp[3 * k] = d0;
    f->solimp[3 * k + 1] = dwidth;
    f->solimp[3 * k + 2] = width;
  }
}

// J_i A^-1 J_i^T for the box (diagonal A)
static double delassus_diag(const fixture* f, int i) {
  double s = 0;
  for (int k = 0; k < f->nv; k++) {
    double j = f->J[(size_t)i * (size_t)f->nv + k];
    s += j * j / f->A[k * f->nv + k];
  }
  return s;
}

// the resting box sinks at the velocity its impedance predicts
static void test_newton_box_rests_softly(void** state) {
  env* e = *state;
  fixture f;
  double g[3] = {0, 0, -G};
  box_on_plane(&f, g, NULL, 0.01, 0.5, 0);
  tf_solver_settings s = settings();
  result r = solve(e, tf_solve_newton, &f, &s, NULL);
  report("newton box rests", &r);
  assert_int_equal(r.rc, 0);
  assert_true(r.stats.converged);
  // at pos 0, d = d0 = 0.9; the four identical rows are quadratic with R = (1-d)/d Ahat, the
  // tangential rows stay at zero slip, so m (vz - vz_free) = -4 vz / R
  double d = 0.9, R = (1 - d) / d * delassus_diag(&f, 0);
  double vz = box_mass * f.v_free[2] / (box_mass + 4 / R);
  print_message("    sink velocity %.6e expected %.6e (free %.4e)\n", r.v[2], vz, f.v_free[2]);
  assert_true(fabs(r.v[2] - vz) < 1e-12 * fabs(vz));
  for (int k = 0; k < 6; k++) {
    if (k != 2) assert_true(fabs(r.v[k]) < 1e-14);
  }
  for (int blk = 0; blk < 4; blk++) {
    assert_true(fabs(r.lambda[f.adr[blk]] + vz / R) < 1e-12 * fabs(vz / R));
  }
  assert_in_cones(&f, r.lambda);
  assert_true(r.stats.primal_residual > 0);  // soft: the hard residual shows the sinking
}

// as the impedance goes to 1 the soft answer goes to the hard one where the two models agree
// (rest, sticking); sliding keeps MuJoCo's convex-relaxation artifact: the normal velocity
// tends to mu |slip| (the box glides up off the slope) instead of 0
static void test_newton_stiff_approaches_al(void** state) {
  env* e = *state;
  tf_solver_settings s = settings();
  for (int scene = 0; scene < 2; scene++) {
    double prev = INFINITY;
    for (int stiff = 0; stiff < 3; stiff++) {
      double d = stiff == 0 ? 0.99 : stiff == 1 ? 0.999 : 0.9999;
      fixture f;
      if (scene == 0) {
        double g[3] = {0, 0, -G};
        box_on_plane(&f, g, NULL, 0.01, 0.5, 0);
      } else {
        incline(&f, 30 * DEG, tan(35 * DEG), 0);
      }
      set_soft(&f, 0.02, 1, d, d, 0.001);
      result al = solve(e, tf_solve_al, &f, &s, NULL);
      result nt = solve(e, tf_solve_newton, &f, &s, NULL);
      assert_int_equal(nt.rc, 0);
      assert_true(nt.stats.converged);
      double diff = 0;
      for (int k = 0; k < 6; k++) diff = fmax(diff, fabs(nt.v[k] - al.v[k]));
      char name[64];
      snprintf(name, sizeof(name), "newton d=%g %s", d, scene == 0 ? "rest" : "mu=tan35 stick");
      report(name, &nt);
      print_message("    |v_newton - v_al| = %.3e (h g = %.3e)\n", diff, f.h * G);
      assert_true(diff < 0.2 * prev);
      prev = diff;
      assert_in_cones(&f, nt.lambda);
    }
    assert_true(prev < 2e-4 * 0.01 * G);
  }
  // sliding: the stiff answer satisfies J_n v = mu |J_t v| at every contact (the relaxed cone)
  fixture f;
  double mu = tan(25 * DEG);
  incline(&f, 30 * DEG, mu, 0);
  set_soft(&f, 0.02, 1, 0.9999, 0.9999, 0.001);
  result nt = solve(e, tf_solve_newton, &f, &s, NULL);
  report("newton d=0.9999 mu=tan25 slide", &nt);
  for (int blk = 0; blk < f.nblock; blk++) {
    int adr = f.adr[blk];
    double vn = row_velocity(&f, nt.v, adr), vt = row_velocity(&f, nt.v, adr + 1);
    if (blk == 0)
      print_message("    normal %.6e  mu |slip| %.6e  slip %.6e\n", vn, mu * fabs(vt), vt);
    assert_true(fabs(vn - mu * fabs(vt)) < 1e-2 * mu * fabs(vt));
  }
}

// at mu = tan 30 the soft friction cannot hold the box exactly: it creeps (MuJoCo's artifact)
static void test_newton_creeps_at_cone_edge(void** state) {
  env* e = *state;
  fixture f;
  incline(&f, 30 * DEG, tan(30 * DEG), 0);
  tf_solver_settings s = settings();
  result r = solve(e, tf_solve_newton, &f, &s, NULL);
  report("newton mu=tan30 (creep)", &r);
  assert_true(r.stats.converged);
  print_message("    creep velocity %.3e, sink %.3e\n", r.v[0], r.v[2]);
  assert_true(r.v[0] > 0 && r.v[0] < 0.2 * f.h * G * sin(30 * DEG));
  assert_in_cones(&f, r.lambda);
}

// joint friction (Huber cost), a soft limit and a soft equality
static void test_newton_joint_friction_and_limit(void** state) {
  env* e = *state;
  tf_solver_settings s = settings();
  fixture f;
  slide_friction(&f, 3.5);
  result r = solve(e, tf_solve_newton, &f, &s, NULL);
  report("newton joint friction F=3.5", &r);
  // saturated: the same answer as the hard model (the Huber cost is linear there)
  assert_true(fabs(r.v[0] - 0.5 * f.h / 2) < 1e-14);
  assert_true(fabs(r.lambda[0] + 3 * f.h) < 1e-15);
  slide_friction(&f, 2.9);
  r = solve(e, tf_solve_newton, &f, &s, NULL);
  report("newton joint friction F=2.9", &r);
  // stuck, softly: impulse -v / R with R = (1 - d0) / d0 / m, so v = v_free m / (m + 1 / R)
  double R = (1 - 0.9) / 0.9 / 2, expect = f.v_free[0] * 2 / (2 + 1 / R);
  assert_true(fabs(r.v[0] - expect) < 1e-14);
  assert_true(fabs(r.lambda[0]) < 2.9 * f.h);
  hinge_limit(&f, -2);
  r = solve(e, tf_solve_newton, &f, &s, NULL);
  report("newton limit", &r);
  assert_true(r.stats.converged);
  assert_true(r.lambda[0] > 0 && r.v[0] > -2);
  // the stop 1 mm away is a speculative row (MuJoCo has none there): no spring yet, the step
  // may close the gap but not pass it, soft as at the touch (d0): on this one row
  // v = (1 - d0) v_free + d0 (-gap / h)
  assert_true(fabs(r.v[0] - (0.1 * -2 + 0.9 * (-0.001 / f.h))) < 1e-12);
  // a step that stays short of the stop meets no force (a spring on the gap braked it early)
  hinge_limit(&f, -0.05);
  r = solve(e, tf_solve_newton, &f, &s, NULL);
  assert_true(r.stats.converged);
  assert_true(r.lambda[0] == 0 && r.v[0] == f.v_free[0]);
  // at MuJoCo's steady overlap R F / (k d) the spring of aref alone holds a load F pressing
  // into the stop: the row does not move (overlap past solimp's width, so d = dwidth)
  {
    fixture g;
    fixture_init(&g, 1, 0.01);
    g.A[0] = 2;
    double load = 200, d = 0.95, k = 1 / (d * d * 0.02 * 0.02);
    double R = (1 - d) / d / g.A[0], overlap = R * load / (k * d), row = 1;
    g.v_free[0] = -g.h * load / g.A[0];
    begin_block(&g, TF_EFC_LIMIT);
    add_row(&g, &row, 0, -overlap, 0, 0);
    fixture_finish(&g);
    r = solve(e, tf_solve_newton, &g, &s, NULL);
    report("newton limit, steady overlap", &r);
    print_message("    overlap %.4e m, velocity %.3e, impulse %.12f (h F %.12f)\n", overlap, r.v[0],
                  r.lambda[0], g.h * load);
    assert_true(overlap > 0.001);
    assert_true(fabs(r.v[0]) < 1e-12);
    assert_true(fabs(r.lambda[0] - g.h * load) < 1e-12);
  }
  // pinned box: a soft equality pulls the point toward the target row velocity
  box_pinned(&f);
  r = solve(e, tf_solve_newton, &f, &s, NULL);
  report("newton equality", &r);
  assert_true(r.stats.converged);
  for (int i = 0; i < 3; i++) {
    double vel = row_velocity(&f, r.v, i), free_vel = row_velocity(&f, f.v_free, i);
    assert_true(fabs(vel) < fabs(free_vel) || fabs(free_vel) < 1e-12);
  }
}

// the elliptic cone is isotropic in the soft model too. A slip at 30 degrees to the tangent
// rows: a point mass on one contact, then a square box (equal footprint and inertia about x
// and y) on its four corners; each contact's friction impulse is exactly opposite the slip,
// the velocity keeps its direction and nothing turns about the normal. (A soft model lets
// the box pitch under its friction, so on a rectangle with unequal inertias the corners'
// loads, and with them a small yaw, depend on the slip direction: MuJoCo shows the same.)
static void test_newton_isotropic_friction(void** state) {
  env* e = *state;
  static const double n[3] = {0, 0, 1}, t1[3] = {1, 0, 0}, t2[3] = {0, 1, 0};
  const double* dirs[3] = {n, t1, t2};
  double slip = 30 * DEG, mu[2] = {0.5, 0.5}, half = 0.1, m = 2, h = 0.01;
  for (int box = 0; box <= 1; box++) {
    fixture f;
    fixture_init(&f, box ? 6 : 3, h);
    for (int k = 0; k < f.nv; k++) {
      f.A[k * f.nv + k] = k < 3 ? m : m / 3 * (2 * half * half);
      f.v0[k] = k == 0 ? cos(slip) : k == 1 ? sin(slip) : 0;
      f.v_free[k] = f.v0[k] - (k == 2 ? G * h : 0);
    }
    for (int c = 0; c < (box ? 4 : 1); c++) {
      double r[3] = {c & 1 ? half : -half, c & 2 ? half : -half, -half};
      if (!box) {
        begin_block(&f, TF_EFC_CONTACT);
        for (int k = 0; k < 3; k++) add_row(&f, dirs[k], 0, 0, k == 0 ? 0 : mu[0], 0);
      } else {
        add_contact2(&f, -1, r, 0, r, dirs, 3, mu);
      }
    }
    fixture_finish(&f);
    tf_solver_settings s = settings();
    result r = solve(e, tf_solve_newton, &f, &s, NULL);
    report(box ? "newton isotropy (square box)" : "newton isotropy (point)", &r);
    assert_int_equal(r.rc, 0);
    assert_true(r.stats.converged);
    assert_in_cones(&f, r.lambda);
    double worst = 0;
    for (int blk = 0; blk < f.nblock; blk++) {
      const double* l = r.lambda + f.adr[blk];
      double along = l[1] * cos(slip) + l[2] * sin(slip);
      double across = -l[1] * sin(slip) + l[2] * cos(slip);
      assert_true(l[0] > 0 && along < 0);
      worst = fmax(worst, fabs(across) / fabs(along));
    }
    print_message("    |across| / |along| <= %.2e, speed %.6f, direction change %.2e deg\n", worst,
                  hypot(r.v[0], r.v[1]), (atan2(r.v[1], r.v[0]) - slip) / DEG);
    assert_true(worst < 1e-12);
    assert_true(fabs(atan2(r.v[1], r.v[0]) - slip) < 1e-12);
    assert_true(hypot(r.v[0], r.v[1]) < 1);  // friction slows it
    if (box) assert_true(fabs(r.v[5]) < 1e-12);
  }
}

// warm start from its own answer: no Newton step left
static void test_newton_warm_start(void** state) {
  env* e = *state;
  fixture f;
  incline(&f, 30 * DEG, tan(25 * DEG), 0);
  tf_solver_settings s = settings();
  result cold = solve(e, tf_solve_newton, &f, &s, NULL);
  result warm = solve(e, tf_solve_newton, &f, &s, cold.lambda);
  report("newton cold", &cold);
  report("newton warm", &warm);
  assert_true(warm.stats.iterations <= 1 && warm.stats.iterations < cold.stats.iterations);
  assert_true(fabs(warm.v[0] - cold.v[0]) < 1e-12);
}

// ---------------------------------------------------------------- arena

// the scratch each solver takes, against the formulas in their design notes (doubles):
// al nv^2 + (5 + maxdim) nv + 7 nefc + 2 nblock + pivots, newton nv^2 + (5 + maxdim) nv +
// 6 nefc, each one arena block (64-byte aligned)
static void test_arena_use(void** state) {
  env* e = *state;
  fixture f;
  incline(&f, 30 * DEG, tan(25 * DEG), 0);
  tf_solver_settings s = settings();
  result a = solve(e, tf_solve_al, &f, &s, NULL);
  result n = solve(e, tf_solve_newton, &f, &s, NULL);
  size_t nv = 6, nefc = 12, nblock = 4, maxdim = 3;
  size_t al_doubles = nv * nv + (5 + maxdim) * nv + 7 * nefc + 2 * nblock + (nv + 1) / 2;
  size_t newton_doubles = nv * nv + (5 + maxdim) * nv + 6 * nefc;
  print_message(
      "  arena: al %zu B (formula %zu), newton %zu B (formula %zu), nv 6 nefc 12; "
      "a one-free-body model's arena holds %zu B\n",
      a.arena_peak, 8 * al_doubles, n.arena_peak, 8 * newton_doubles, e->d->narena);
  assert_true(a.arena_peak <= 8 * al_doubles + 64);
  assert_true(n.arena_peak <= 8 * newton_doubles + 64);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_al_box_rests),
      cmocka_unit_test(test_al_incline_slides),
      cmocka_unit_test(test_al_incline_sticks_at_cone_edge),
      cmocka_unit_test(test_al_frictionless),
      cmocka_unit_test(test_al_limit),
      cmocka_unit_test(test_al_joint_friction_breakaway),
      cmocka_unit_test(test_al_equality),
      cmocka_unit_test(test_al_isotropic_friction),
      cmocka_unit_test(test_al_warm_start),
      cmocka_unit_test(test_al_empty),
      cmocka_unit_test(test_al_top_heavy_stack),
      cmocka_unit_test(test_al_high_friction_slide),
      cmocka_unit_test(test_random_problems),
      cmocka_unit_test(test_newton_box_rests_softly),
      cmocka_unit_test(test_newton_stiff_approaches_al),
      cmocka_unit_test(test_newton_creeps_at_cone_edge),
      cmocka_unit_test(test_newton_joint_friction_and_limit),
      cmocka_unit_test(test_newton_isotropic_friction),
      cmocka_unit_test(test_newton_warm_start),
      cmocka_unit_test(test_arena_use),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
