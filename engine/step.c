// tf_step: one timestep, read like a table of contents.
//
//   euler:  smooth dynamics -> v_free -> collision -> constraint rows -> solve -> integrate
//           -> position pass
//   rk4:    four smooth stages (contact-free models only; integrate.c)
//
// The position pass removes overlap that remains after the velocity solve (a linearised
// split impulse over the contact normals and limits): it moves positions only, so an overlap
// is never turned into separating velocity. Under newton it covers only bodies arriving from
// a gap within the step, which it also stops along the normal: MuJoCo's soft contacts are
// meant to overlap, and MuJoCo has no such pass (see substep_euler).
// Substeps (solver setting) split the step into n equal steps, each with its own collision.
#include <math.h>
#include <string.h>

#include "collision_stage.h"
#include "constraint_stage.h"
#include "model_internal.h"
#include "solver.h"
#include "solver_util.h"
#include "stage_timer.h"

static const tf_solve_fn solvers[TF_SOLVER_N] = {tf_solve_pgs, tf_solve_newton, tf_solve_al,
                                                 tf_solve_admm, tf_solve_fbnewton};

static int all_finite(const double* x, int n) {
  for (int i = 0; i < n; i++) {
    if (!isfinite(x[i])) return 0;
  }
  return 1;
}

// 1 if anything can produce a constraint row
static int has_constraints(const tf_model* m) {
  if (m->neq > 0 || m->ngeom > 1) return 1;
  for (int j = 0; j < m->njnt; j++) {
    if (m->jnt_limited[j]) return 1;
  }
  for (int i = 0; i < m->nv; i++) {
    if (m->dof_frictionloss[i] > 0) return 1;
  }
  return 0;
}

// the problem view of this step's rows
static void make_problem(const tf_model* m, tf_data* d, double h, const double* b,
                         const double* v_free, tf_constraint_problem* p) {
  p->nv = m->nv;
  p->nefc = d->nefc;
  p->nblock = d->nblock;
  p->h = h;
  p->A = d->qA;
  p->A_factor = d->qLD;
  p->b = b;
  p->v_free = v_free;
  p->v0 = d->qvel;
  p->J = d->efc_J;
  p->e = d->efc_e;
  p->pos = d->efc_pos;
  p->mu = d->efc_mu;
  p->bound = d->efc_bound;
  p->block_type = d->efc_block_type;
  p->block_adr = d->efc_block_adr;
  p->block_dim = d->efc_block_dim;
  p->solref = d->efc_solref;
  p->solimp = d->efc_solimp;
  p->v_warm = NULL;
}

// x = A^-1 J^T mu over the given rows, mu >= 0, with J_i x >= -gap_i for each of them
// (complementary to mu_i): a projected Gauss-Seidel on J A^-1 J^T
static void push_apart(tf_data* d, const tf_constraint_problem* p, const int* rows,
                       const double* gap, int n, double* out) {
  int nv = p->nv;
  size_t mark = tf_arena_mark(d);
  double* x = tf_arena_doubles(d, (size_t)n * (size_t)nv);  // A^-1 J_i^T per row
  double* w = tf_arena_doubles(d, (size_t)n * (size_t)n);
  double* mu = tf_arena_doubles(d, (size_t)n);
  for (int i = 0; i < n; i++) {
    memcpy(x + (size_t)i * nv, p->J + (size_t)rows[i] * (size_t)nv, sizeof(double) * nv);
    tf_solve_A(p, x + (size_t)i * nv);
  }
  for (int i = 0; i < n; i++) {
    const double* row = p->J + (size_t)rows[i] * (size_t)nv;
    for (int j = 0; j < n; j++) {
      double s = 0;
      for (int k = 0; k < nv; k++) s += row[k] * x[(size_t)j * nv + k];
      w[i * n + j] = s;
    }
    mu[i] = 0;
  }
  for (int it = 0; it < 200; it++) {
    double change = 0;
    for (int i = 0; i < n; i++) {
      if (w[i * n + i] <= 0) continue;
      double r = gap[i];
      for (int j = 0; j < n; j++) r += w[i * n + j] * mu[j];
      double next = fmax(0, mu[i] - r / w[i * n + i]);
      change = fmax(change, fabs(next - mu[i]) * w[i * n + i]);
      mu[i] = next;
    }
    if (change < 1e-13) break;
  }
  memset(out, 0, sizeof(double) * nv);
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < nv; k++) out[k] += x[(size_t)i * nv + k] * mu[i];
  }
  tf_arena_release(d, mark);
}

// removes the overlap the rows predict after moving with v by h: positions move by
// dq = A^-1 J^T mu with J dq >= -gap wherever the predicted gap is negative (and never
// closing the others past 0), over the normal and limit rows. soft (newton): only over the
// rows whose gap was open by more than min_margin at the step's start, i.e. bodies arriving
// this step (speculative rows, which MuJoCo does not have); those rows also lose their
// approach velocity (J v >= 0), so the soft contact starts at the touch from rest along its
// normal. Resting rows are left to the soft model.
// Then, unless soft, the overlap checks (opt.solver_opt.overlap_checks): the rows are
// linearised at the step's start, and a move along one row's tangent can carry a part into
// another where the rows did not look. A bore on its shaft (50 um of clearance) touches
// along a ring held by rows at a few angles, and a gear knocked sideways by a tooth slid
// along one row's tangent to 21 um inside its shaft between two of them (the corner of the
// polygon the rows make of the ring, c (sqrt 2 - 1)). So at the configuration the step ends
// in, every pair of SDF parts that meet by descent is descended again from its rows'
// material points (collision_driver.c); an overlap deeper than relinearize_tol found there
// becomes a row of its own, measured there, and the pass runs again over all the rows, their
// gaps carried to that configuration to first order: cutting planes on a convex ring, which
// converge on it
// (q_start: the step's start configuration, whose kinematics d holds and keeps holding)
static void position_pass(const tf_model* m, tf_data* d, const tf_constraint_problem* p,
                          const double* v, double h, int soft, const double* q_start) {
  int nv = m->nv;
  size_t mark = tf_arena_mark(d);
  int checks = soft ? 0 : m->opt.solver_opt.overlap_checks;
  // room for every row the checks can add (each adds at most a contact's rows)
  int most = d->nefc + (checks > 0 ? m->nefcmax - d->nefc : 0);
  int* rows = (int*)tf_arena_doubles(d, (size_t)(most > 0 ? most : 1));
  double* gap = tf_arena_doubles(d, (size_t)(most > 0 ? most : 1));
  double* jv = tf_arena_doubles(d, (size_t)(most > 0 ? most : 1));
  double* dx = tf_arena_doubles(d, (size_t)nv);
  int n = 0;
  for (int blk = 0; blk < d->nblock; blk++) {
    int type = d->efc_block_type[blk];
    if (type != TF_EFC_CONTACT && type != TF_EFC_LIMIT) continue;
    int r = d->efc_block_adr[blk];
    if (soft && !(d->efc_pos[r] > m->opt.min_margin)) continue;
    rows[n++] = r;
  }
  for (int i = 0; i < n; i++) {
    const double* row = d->efc_J + (size_t)rows[i] * (size_t)nv;
    jv[i] = 0;
    for (int k = 0; k < nv; k++) jv[i] += row[k] * v[k];
    gap[i] = d->efc_pos[rows[i]] + h * jv[i];
  }
  int pushed = 0, looked = 0;
  if (checks > 0 && !tf_collision_descent_contacts(m, d)) checks = 0;
  for (int pass = 0;; pass++) {
    double worst = 0;
    for (int i = 0; i < n; i++) worst = fmin(worst, gap[i]);
    // nothing to do unless something overlaps by more than numerical noise
    if (worst <= -1e-10) {
      pushed = 1;
      push_apart(d, p, rows, gap, n, dx);
      tf_integrate_pos(m, d->qpos, d->qpos, dx, 1.0);
      for (int i = 0; i < n; i++) {
        const double* row = d->efc_J + (size_t)rows[i] * (size_t)nv;
        for (int k = 0; k < nv; k++) gap[i] += row[k] * dx[k];
      }
    }
    if (pass >= checks) break;
    tf_kinematics(m, d);
    looked = 1;
    int c0 = d->ncon, blk0 = d->nblock;
    int added = tf_collision_at_iterate(m, d, v, h, m->opt.solver_opt.relinearize_tol);
    if (added == 0) break;
    d->overlap_rows += added;
    tf_constraint_rows_append(m, d, c0, NULL, h);
    for (int blk = blk0; blk < d->nblock && n < most; blk++) {
      int r = d->efc_block_adr[blk];
      rows[n] = r;
      gap[n++] = d->efc_pos[r];
    }
  }
  if (looked) {
    // the kinematics back at the step's start, as a step without checks leaves them
    double* q_end = tf_arena_doubles(d, (size_t)m->nq);
    memcpy(q_end, d->qpos, sizeof(double) * (size_t)m->nq);
    memcpy(d->qpos, q_start, sizeof(double) * (size_t)m->nq);
    tf_kinematics(m, d);
    memcpy(d->qpos, q_end, sizeof(double) * (size_t)m->nq);
  }
  if (soft && pushed) {
    // the rows that touched: their row velocity becomes >= 0
    int arrived = 0;
    for (int i = 0; i < n; i++) {
      if (gap[i] > 0) continue;
      rows[arrived] = rows[i];
      jv[arrived++] = jv[i];
    }
    push_apart(d, p, rows, jv, arrived, dx);
    for (int k = 0; k < nv; k++) d->qvel[k] += dx[k];
  }
  tf_arena_release(d, mark);
}

// the solve of the rows in d->efc_*: v and d->efc_lambda, the constraint force and each
// contact's impulses; 0, or -2 when the solver failed or left something non-finite
// (v_warm: NULL, or a velocity near the answer the solve may start from)
static int solve_rows(const tf_model* m, tf_data* d, double h, const double* b,
                      const double* v_free, const double* v_warm, double* v,
                      tf_constraint_problem* problem) {
  int nv = m->nv;
  double t0 = tf_stage_start();
  make_problem(m, d, h, b, v_free, problem);
  problem->v_warm = v_warm;
  tf_solver_stats stats;
  memset(&stats, 0, sizeof(stats));
  int status = solvers[m->opt.solver](m, d, problem, &m->opt.solver_opt, v, d->efc_lambda, &stats);
  if (status != 0 || !all_finite(v, nv) || !all_finite(d->efc_lambda, d->nefc)) {
    tf_stage_add(d, TF_TIMER_SOLVE, t0);
    return -2;
  }
  if (!stats.converged) tf_warn(d, TF_WARN_SOLVER);
  d->solver_iterations = stats.iterations;
  d->solver_primal = stats.primal_residual;
  d->solver_dual = stats.dual_residual;
  tf_mul_JT(problem, d->qfrc_constraint, d->efc_lambda);
  for (int i = 0; i < nv; i++) d->qfrc_constraint[i] /= h;
  for (int c = 0; c < d->ncon; c++) {
    tf_contact* con = d->contact + c;
    for (int k = 0; k < con->condim && con->efc_adr >= 0; k++) {
      con->lambda[k] = d->efc_lambda[con->efc_adr + k];
    }
  }
  tf_stage_add(d, TF_TIMER_SOLVE, t0);
  return 0;
}

// Re-linearisation. The rows are linearised at the step's start, and a step that moves a part
// by a good fraction of a feature (a gear turning a third of a tooth at 10 ms, where its flank
// contact slides 1.5 mm along a curved involute) ends where the rows did not look: the
// linearised gap is off by about slide^2 / (2 R), hundreds of microns. So the pipeline runs
// again at the configuration the solve moves the parts to, q1 = q0 + h v1: collision there,
// rows with the geometry of q1 (tf_constraint_rows_from_iterate turns each position measured
// at q1 into the start value its linearisation implies, so existing overlap still gets no
// velocity), and a new solve from the same smooth dynamics, warm-started from the last
// one's impulses. It repeats while the deepest contact at the iterate overlaps by more than
// relinearize_tol, up to relinearize passes; the kinematics are put back at q0 after it.
// The collision at q1 measures a configuration: the rows there linearise the correction
// h (v - v1) the next solve makes, which is small, so it looks for contacts at q1 at rest
// (zero velocity: no speculative reach). Swept along v1 it would look a whole step beyond
// q1, and time-of-impact rows from that path (a tooth tip reached 10 ms later) lifted gears
// off their shoulders by hundreds of microns.
// The first pass runs even when q1 does not overlap: the start's rows can hold a row that
// q1 does not have (a speculative row on a tooth tip's edge, its normal tilted out of the
// plane), and a solve that pushes along it lifts a gear without overlapping anything (45 um
// in one 10 ms step at 5.25 rad/s); the rows of q1 replace it.
// Returns 1 when the iterate overlaps, 0 when it does not (d holds the collision at q1 for
// both), -1 when q1 is not finite (no collision ran)
static int iterate_overlaps(const tf_model* m, tf_data* d, const double* q0, const double* v,
                            const double* v_rest, double h, double* q1) {
  tf_integrate_pos(m, q1, q0, v, h);
  if (!all_finite(q1, m->nq)) return -1;
  memcpy(d->qpos, q1, sizeof(double) * (size_t)m->nq);
  tf_kinematics(m, d);
  tf_collision(m, d, v_rest, h);
  memcpy(d->qpos, q0, sizeof(double) * (size_t)m->nq);
  double deepest = INFINITY;
  for (int c = 0; c < d->ncon; c++) deepest = fmin(deepest, d->contact[c].dist);
  return deepest < -m->opt.solver_opt.relinearize_tol;
}

// Cutting planes of the passes. A bore on its shaft touches along a ring, and each iterate's
// collision finds it where that iterate's gap is least: the solve holds the gear there and
// lets it slide along the ring into the shaft elsewhere, which the next iterate finds while
// losing the first, so the passes alternated between two angles (-81 and -136 deg, 37 um
// inside the shaft at each of 12 passes at 50 Hz) and the position pass pushed the gear out,
// up by 22-30 um. A contact against a part that cannot move bounds a set of configurations
// that is convex to first order (the disc a bore's centre keeps to on its shaft), so the
// plane an iterate found stays true for the passes after it: each contact of such a pair
// that overlaps at its iterate is kept, with the start value its rows had, and joins every
// later pass's rows. Gears' teeth are not convex (a flank's plane from an earlier iterate held
// two gears apart, 44 teeth skipped at 50 Hz), so only pairs with a static part keep theirs.
// At 50 Hz the gears' passes now end in 3-6 of 12 where every step ran out of them
#define PLANE_SAME_POS 2e-3    // m: a kept contact this close to another ...
#define PLANE_SAME_COS 0.9999  // ... with a normal within 0.8 deg holds its plane
typedef struct cutting_planes {
  tf_contact* contact;
  double* start_pos;  // each kept contact's start value (its normal row's efc_pos)
  int* index;         // the kept contacts a pass appended, in order
  int n, cap;
} cutting_planes;

// arena doubles that hold n contacts (at least one)
static size_t contact_doubles(int n) {
  return (size_t)(n > 0 ? n : 1) * ((sizeof(tf_contact) + sizeof(double) - 1) / sizeof(double));
}

static void planes_init(cutting_planes* cp, const tf_model* m, tf_data* d) {
  cp->cap = m->nconmax;
  cp->contact = (tf_contact*)tf_arena_doubles(d, contact_doubles(cp->cap));
  cp->start_pos = tf_arena_doubles(d, (size_t)cp->cap);
  cp->index = (int*)tf_arena_doubles(d, (size_t)cp->cap);
  cp->n = 0;
}

// 1 when contact a holds the plane b does: the same pair, point and normal (a plane repeated
// makes two rows of one, which a solve that factors its rows' Jacobian, fbnewton, cannot
// tell apart: a 1:10 stack's bottom box, its corners kept at every pass, came apart)
static int same_plane(const tf_contact* a, const tf_contact* b) {
  if (a->geom[0] != b->geom[0] || a->geom[1] != b->geom[1]) return 0;
  double d2 = 0, dot = 0;
  for (int k = 0; k < 3; k++) {
    double e = a->pos[k] - b->pos[k];
    d2 += e * e;
    dot += a->frame[k] * b->frame[k];
  }
  return d2 < PLANE_SAME_POS * PLANE_SAME_POS && dot > PLANE_SAME_COS;
}

// the kept contacts that no contact of the iterate's repeats, after the iterate's own in
// d->contact, as room allows; which they are goes to index, their count is returned
static int planes_append(const cutting_planes* cp, const tf_model* m, tf_data* d, int* index) {
  int found = d->ncon, appended = 0;
  for (int k = 0; k < cp->n && d->ncon < m->nconmax; k++) {
    int repeated = 0;
    for (int c = 0; c < found && !repeated; c++)
      repeated = same_plane(d->contact + c, cp->contact + k);
    if (repeated) continue;
    d->contact[d->ncon++] = cp->contact[k];
    index[appended++] = k;
  }
  return appended;
}

// the appended contacts' normal rows back to their own start values (the iterate's
// linearisation would move them by h J v1 of a later v1)
static void planes_restore(const cutting_planes* cp, tf_data* d, int found, const int* index,
                           int appended, double h) {
  for (int k = 0; k < appended; k++) {
    int r = d->contact[found + k].efc_adr;
    if (r < 0) continue;
    d->efc_pos[r] = cp->start_pos[index[k]];
    d->efc_e[r] = cp->start_pos[index[k]] / h;
  }
}

// this iterate's overlapping contacts against a static part, kept unless kept already or
// their linearisation does not hold back to q0: a plane that puts q0 deeper than anything q0
// overlaps (start_deepest) is taken too far from where it was measured (a box's corner
// under fbnewton's iterate, tipped 2.7 mm into the floor, implied 1.6 mm of overlap at the
// start, and its row threw a 1:10 stack apart)
static void planes_keep(cutting_planes* cp, const tf_model* m, const tf_data* d, int found,
                        double start_deepest) {
  int kept = cp->n;
  double tol = m->opt.solver_opt.relinearize_tol;
  for (int c = 0; c < found && cp->n < cp->cap; c++) {
    const tf_contact* con = d->contact + c;
    if (con->efc_adr < 0 || !(con->dist < -tol)) continue;
    if (!(d->efc_pos[con->efc_adr] >= start_deepest - tol)) continue;
    int b1 = m->geom_bodyid[con->geom[0]], b2 = m->geom_bodyid[con->geom[1]];
    if (!tf_body_is_static(m, b1) && !tf_body_is_static(m, b2)) continue;
    int repeated = 0;
    for (int k = 0; k < kept && !repeated; k++) repeated = same_plane(con, cp->contact + k);
    if (repeated) continue;
    cp->contact[cp->n] = *con;
    cp->start_pos[cp->n++] = d->efc_pos[con->efc_adr];
  }
}

// whether every contact of the collision just run (ncon_recalled of them from pairs that
// recalled their memory) was recalled, and none is speculative
static int start_recalled_rows(const tf_data* d, int ncon_recalled) {
  if (d->ncon == 0 || ncon_recalled < d->ncon) return 0;
  for (int c = 0; c < d->ncon; c++) {
    if (d->contact[c].speculative) return 0;
  }
  return 1;
}

// one semi-implicit Euler step of length h with the full contact pipeline
static int substep_euler(const tf_model* m, tf_data* d, double h) {
  int nq = m->nq, nv = m->nv;
  if (tf_forward_h(m, d, h)) return -1;
  size_t mark = tf_arena_mark(d);
  double* v = tf_arena_doubles(d, (size_t)nv);
  double* q = tf_arena_doubles(d, (size_t)nq);
  for (int i = 0; i < nv; i++) v[i] = d->qvel[i] + h * d->qacc[i];

  int constrained = has_constraints(m);
  tf_constraint_problem problem;
  memset(&problem, 0, sizeof(problem));
  d->relinearize_passes = 0;
  d->overlap_rows = 0;
  if (constrained) {
    double* v_free = tf_arena_doubles(d, (size_t)nv);
    memcpy(v_free, v, sizeof(double) * nv);
    int passes = m->opt.solver_opt.relinearize;
    // under re-linearisation the speculative reach is the motion the parts already have: the
    // iterate's collision meets what the step's forces add. Reached with v_free, a 20 ms
    // step's gravity (h g: 3.9 mm) made every resting gear a speculative arrival on the plate
    // under it, and the start's solve from those rows lifted gears 15-30 um
    // Under re-linearisation the start's rows only seed the first solve: every iterate is
    // searched, and the step ends at one. The previous step ended at its last iterate, moved
    // since by the position pass's push alone (at most about the relinearize_tol it let
    // that iterate overlap), so a pair that moved less than relinearize_tol since its memory
    // (that iterate's search) recalls it, off by at most 2 relinearize_tol, where a search at
    // opt.persist_tol (1 nm) ran the pair's whole search again: a third of a 20 ms gear
    // step's collision time
    double recall_tol = passes > 0 ? m->opt.solver_opt.relinearize_tol : 0;
    int ncon_recalled = tf_collision_recall(m, d, passes > 0 ? d->qvel : v_free, h, recall_tol);
    tf_constraint_rows(m, d, v_free, h);
    if (passes > 0) tf_constraint_rows_close_overlaps(d, h);
    double start_deepest = 0;  // the deepest overlap the step starts with (<= 0)
    for (int c = 0; c < d->ncon; c++) start_deepest = fmin(start_deepest, d->contact[c].dist);
    memset(d->qfrc_constraint, 0, sizeof(double) * nv);
    double* b = tf_arena_doubles(d, (size_t)nv);
    for (int i = 0; i < nv; i++) {
      double s = 0;
      for (int k = 0; k < nv; k++) s += d->qA[i * nv + k] * v_free[k];
      b[i] = s;
    }
    if (d->nefc > 0 && solve_rows(m, d, h, b, v_free, NULL, v, &problem)) {
      tf_arena_release(d, mark);
      return -2;
    }
    // a step that starts touching nothing still looks at its iterate: a falling part whose
    // gap exceeded the start's reach (its present velocity's) landed 5.7 um into the CRISP
    // block within such a step. When that iterate overlaps nothing the step ends as it would
    // have, its contacts forgotten (a door handle against its limits, no contact at all, came
    // out of fbnewton's extra solve 0.4 deg past its stop)
    int free_start = d->ncon == 0;
    // a start whose every row was recalled is the last iterate's rows, measured at rest like
    // every pass's: its solve is a pass, and an iterate it leaves without overlap ends the
    // step (the first pass is there for the speculative rows of a searched start)
    int start_recalled = passes > 0 && start_recalled_rows(d, ncon_recalled);
    if (passes > 0) {
      double* v1 = tf_arena_doubles(d, (size_t)nv);
      double* q0 = tf_arena_doubles(d, (size_t)nq);
      double* v_rest = tf_arena_doubles(d, (size_t)nv);
      memcpy(q0, d->qpos, sizeof(double) * (size_t)nq);
      memset(v_rest, 0, sizeof(double) * (size_t)nv);
      cutting_planes planes;
      planes_init(&planes, m, d);
      // the start's contacts, which every iterate's search also starts from
      // (collision_driver.c: where the pair touched, and the material points); the first
      // iterate's search starts from them already, as the last collision's
      int nstart = d->ncon;
      memcpy(d->contact_start, d->contact, sizeof(tf_contact) * (size_t)nstart);
      for (int pass = 0;; pass++) {
        d->ncon_start = pass > 0 ? nstart : 0;
        int overlaps = iterate_overlaps(m, d, q0, v, v_rest, h, q);
        if (overlaps < 0) break;
        if (free_start && overlaps == 0) {
          d->ncon = 0;
          break;
        }
        int last = (overlaps == 0 && (pass > 0 || start_recalled)) || pass == passes;
        int found = d->ncon;
        // the planes go to the solves, not to the position pass: that one predicts the end's
        // gaps with the rows of the configuration the step ends in
        int appended = last ? 0 : planes_append(&planes, m, d, planes.index);
        memcpy(v1, v, sizeof(double) * nv);
        tf_constraint_rows(m, d, v1, h);
        tf_constraint_rows_from_iterate(m, d, v1, h);
        planes_restore(&planes, d, found, planes.index, appended, h);
        planes_keep(&planes, m, d, found, start_deepest);
        if (last) {
          // the step ends at this iterate (it overlaps by at most relinearize_tol, or the
          // passes are spent): its rows, not the last pass's, are the ones the position pass
          // predicts the end's gaps with. The last pass's rows, linearised one solve
          // earlier, predicted an RJ45-like plug 418 um into its socket's wall where it
          // touched nothing, and the push yawed it 3 deg. The constraint force stays the last
          // solve's; each contact's impulse is its match in that solve (the warm start).
          make_problem(m, d, h, b, v_free, &problem);
          break;
        }
        memset(d->qfrc_constraint, 0, sizeof(double) * nv);
        d->relinearize_passes++;
        if (d->nefc == 0) {
          memcpy(v, v_free, sizeof(double) * nv);
          continue;
        }
        // the last solve's answer nearly meets these rows: the solve starts from it
        if (solve_rows(m, d, h, b, v_free, v1, v, &problem)) {
          d->ncon_start = 0;
          tf_kinematics(m, d);
          tf_arena_release(d, mark);
          return -2;
        }
      }
      d->ncon_start = 0;
      tf_kinematics(m, d);
    }
  }

  double t0 = tf_stage_start();
  double* q_start = tf_arena_doubles(d, (size_t)nq);
  memcpy(q_start, d->qpos, sizeof(double) * (size_t)nq);
  tf_integrate_pos(m, q, d->qpos, v, h);
  int status = -2;
  if (all_finite(v, nv) && all_finite(q, nq)) {
    memcpy(d->qvel, v, sizeof(double) * (size_t)nv);
    memcpy(d->qpos, q, sizeof(double) * (size_t)nq);
    d->time += h;
    status = 0;
  }
  tf_stage_add(d, TF_TIMER_INTEGRATE, t0);
  // newton only on arrivals: its soft contacts hold a body up by the spring of aref acting on
  // the overlap (MuJoCo's steady penetration, R f / (k d)), and MuJoCo has no position pass.
  // Removing that overlap every step would leave only aref's damping to carry the load, at a
  // sinking velocity R f / b that the pass hides in the positions and that adds up in a stack
  // until the boxes pass through each other. A body arriving from a gap (a speculative row,
  // which MuJoCo does not have either) still lands at the surface, stopped along the normal:
  // else an 8 m/s ball would end its first step 5 mm deep in a 5 mm plate
  if (status == 0 && constrained && d->nefc > 0) {
    t0 = tf_stage_start();
    position_pass(m, d, &problem, v, h, m->opt.solver == TF_SOLVER_NEWTON, q_start);
    tf_stage_add(d, TF_TIMER_SOLVE, t0);
  }
  tf_arena_release(d, mark);
  return status;
}

int tf_step(const tf_model* m, tf_data* d) {
  double t0 = tf_clock();
  memset(d->timer, 0, sizeof(d->timer));
  d->arena_top = 0;
  // -1: the mass matrix did not factor (already counted); -2: the state went non-finite
  int status = -2;
  if (all_finite(d->qpos, m->nq) && all_finite(d->qvel, m->nv) && all_finite(d->ctrl, m->nu)) {
    if (m->opt.integrator == TF_INTEGRATOR_RK4) {
      status = tf_step_rk4(m, d);
    } else {
      // a failed substep puts the whole step back
      int nq = m->nq, nv = m->nv, n = m->opt.solver_opt.substeps;
      double* q0 = tf_arena_doubles(d, (size_t)nq);
      double* v0 = tf_arena_doubles(d, (size_t)nv);
      double time0 = d->time;
      memcpy(q0, d->qpos, sizeof(double) * (size_t)nq);
      memcpy(v0, d->qvel, sizeof(double) * (size_t)nv);
      double h = m->opt.timestep / n;
      status = 0;
      for (int s = 0; s < n && status == 0; s++) status = substep_euler(m, d, h);
      if (status != 0) {
        memcpy(d->qpos, q0, sizeof(double) * (size_t)nq);
        memcpy(d->qvel, v0, sizeof(double) * (size_t)nv);
        d->time = time0;
      }
    }
  }
  if (status == -2) tf_warn(d, TF_WARN_BADQACC);
  if (status == 0) d->nstep++;
  d->timer[TF_TIMER_STEP] = tf_clock() - t0;
  return status == 0 ? 0 : -1;
}
