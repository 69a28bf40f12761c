// tf_data: the mutable state of one environment, carved from a single allocation together
// with its scratch arena, so that a step never calls malloc and many data share one model.
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collision_persist.h"
#include "tf_math.h"
#include "model_internal.h"

size_t tf_arena_size(const tf_model* m) {
  size_t nq = (size_t)m->nq, nv = (size_t)m->nv, nb = (size_t)m->nbody;
  size_t nefc = (size_t)m->nefcmax, ng = (size_t)m->ngeom;
  // rk4 stages and states, the implicit system matrix, rnea's accelerations and forces
  size_t doubles = 3 * nv * nv + 4 * nq + 16 * nv + 16 * nb;
  // contact step: broadphase boxes and pairs, the constraint problem, and the solvers'
  // scratch: dense Delassus / Hessians (nefc^2 and nv^2), a few J-sized and row vectors
  doubles += 8 * ng + 4 * ng * ng;
  doubles += nefc * nefc + 4 * nefc * nv + 40 * nefc + 8 * nv * nv + 40 * nv;
  // re-linearisation (step.c): the kept cutting planes, nconmax, with their start values
  // and indices
  size_t per_contact = (sizeof(tf_contact) + sizeof(double) - 1) / sizeof(double);
  doubles += (per_contact + 2) * (size_t)m->nconmax;
  return doubles * sizeof(double) + 64 * 128;
}

typedef struct layout {
  unsigned char* base;
  size_t size;
} layout;

static void* carve(layout* l, size_t bytes) {
  size_t offset = (l->size + 63) & ~(size_t)63;
  l->size = offset + bytes;
  return l->base ? l->base + offset : NULL;
}

static void lay_out_data(const tf_model* m, tf_data* d, layout* l) {
  size_t nq = (size_t)m->nq, nv = (size_t)m->nv, nb = (size_t)m->nbody;
  size_t nj = (size_t)m->njnt, nu = (size_t)m->nu;
#define TF_DOUBLES(field, n) d->field = carve(l, sizeof(double) * (n))
  TF_DOUBLES(qpos, nq);
  TF_DOUBLES(qvel, nv);
  TF_DOUBLES(ctrl, nu);
  TF_DOUBLES(qfrc_applied, nv);
  TF_DOUBLES(xfrc_applied, 6 * nb);
  TF_DOUBLES(xpos, 3 * nb);
  TF_DOUBLES(xquat, 4 * nb);
  TF_DOUBLES(xmat, 9 * nb);
  TF_DOUBLES(xipos, 3 * nb);
  TF_DOUBLES(ximat, 9 * nb);
  TF_DOUBLES(xanchor, 3 * nj);
  TF_DOUBLES(xaxis, 3 * nj);
  TF_DOUBLES(cdof, 6 * nv);
  TF_DOUBLES(cinert, 10 * nb);
  TF_DOUBLES(cvel, 6 * nb);
  TF_DOUBLES(cdof_dot, 6 * nv);
  TF_DOUBLES(crb, 10 * nb);
  TF_DOUBLES(qM, nv * nv);
  TF_DOUBLES(qA, nv * nv);
  TF_DOUBLES(qLD, nv * nv);
  TF_DOUBLES(qfrc_bias, nv);
  TF_DOUBLES(qfrc_passive, nv);
  TF_DOUBLES(qfrc_actuator, nv);
  TF_DOUBLES(actuator_force, nu);
  TF_DOUBLES(qacc, nv);
  size_t ng = (size_t)m->ngeom, ncon = (size_t)m->nconmax, nefc = (size_t)m->nefcmax;
  TF_DOUBLES(geom_xpos, 3 * ng);
  TF_DOUBLES(geom_xmat, 9 * ng);
  d->contact = carve(l, sizeof(tf_contact) * ncon);
  d->contact_prev = carve(l, sizeof(tf_contact) * ncon);
  d->contact_start = carve(l, sizeof(tf_contact) * ncon);
  size_t npersist = (size_t)m->npersist;
  d->pair_memory = carve(l, sizeof(tf_pair_memory) * npersist);
  d->pair_point = carve(l, sizeof(tf_pair_point) * npersist * (size_t)m->opt.max_pair_contacts);
  TF_DOUBLES(efc_J, nefc * nv);
  TF_DOUBLES(efc_e, nefc);
  TF_DOUBLES(efc_pos, nefc);
  TF_DOUBLES(efc_mu, nefc);
  TF_DOUBLES(efc_bound, nefc);
  TF_DOUBLES(efc_lambda, nefc);
  d->efc_block_type = carve(l, sizeof(int) * nefc);
  d->efc_block_adr = carve(l, sizeof(int) * nefc);
  d->efc_block_dim = carve(l, sizeof(int) * nefc);
  d->efc_block_id = carve(l, sizeof(int) * nefc);
  TF_DOUBLES(efc_solref, 2 * nefc);
  TF_DOUBLES(efc_solimp, 3 * nefc);
  TF_DOUBLES(qfrc_constraint, nv);
#undef TF_DOUBLES
  d->arena = carve(l, m->narena);
  d->narena = m->narena;
}

tf_data* tf_data_create(const tf_model* m) {
  tf_data* d = calloc(1, sizeof(tf_data));
  if (!d) return NULL;
  layout l = {NULL, 0};
  lay_out_data(m, d, &l);
  size_t size = l.size;
  l.base = calloc(1, size);
  if (!l.base) {
    free(d);
    return NULL;
  }
  l.size = 0;
  lay_out_data(m, d, &l);
  d->buffer = l.base;
  tf_data_reset(m, d);
  return d;
}

void tf_data_destroy(tf_data* d) {
  if (!d) return;
  free(d->buffer);
  free(d);
}

void tf_data_reset(const tf_model* m, tf_data* d) {
  d->time = 0;
  memcpy(d->qpos, m->qpos0, sizeof(double) * (size_t)m->nq);
  memset(d->qvel, 0, sizeof(double) * (size_t)m->nv);
  memset(d->ctrl, 0, sizeof(double) * (size_t)m->nu);
  memset(d->qfrc_applied, 0, sizeof(double) * (size_t)m->nv);
  memset(d->xfrc_applied, 0, sizeof(double) * 6 * (size_t)m->nbody);
  memset(d->qacc, 0, sizeof(double) * (size_t)m->nv);
  memset(d->timer, 0, sizeof(d->timer));
  memset(d->warning, 0, sizeof(d->warning));
  for (int i = 0; i < TF_WARN_N; i++) d->warning_step[i] = -1;
  d->nstep = 0;
  d->arena_top = 0;
  d->arena_peak = 0;
  d->ncon = d->ncon_prev = d->ncon_wanted = d->ncon_start = 0;
  d->npair_searched = d->npair_recalled = 0;
  tf_persist_forget(m, d);
  d->nefc = d->nblock = 0;
  d->solver_iterations = 0;
  d->solver_primal = d->solver_dual = 0;
  memset(d->qfrc_constraint, 0, sizeof(double) * (size_t)m->nv);
  tf_kinematics(m, d);
}

void tf_data_copy_state(const tf_model* m, tf_data* dst, const tf_data* src) {
  dst->time = src->time;
  memcpy(dst->qpos, src->qpos, sizeof(double) * (size_t)m->nq);
  memcpy(dst->qvel, src->qvel, sizeof(double) * (size_t)m->nv);
  memcpy(dst->ctrl, src->ctrl, sizeof(double) * (size_t)m->nu);
  memcpy(dst->qfrc_applied, src->qfrc_applied, sizeof(double) * (size_t)m->nv);
  memcpy(dst->xfrc_applied, src->xfrc_applied, sizeof(double) * 6 * (size_t)m->nbody);
  memcpy(dst->qacc, src->qacc, sizeof(double) * (size_t)m->nv);
  dst->nstep = src->nstep;
  // dst's parts are elsewhere now: its pairs search afresh
  tf_persist_forget(m, dst);
}

size_t tf_arena_mark(const tf_data* d) { return d->arena_top; }

void tf_arena_release(tf_data* d, size_t mark) {
  assert(mark <= d->arena_top);
  d->arena_top = mark;
}

double* tf_arena_doubles(tf_data* d, size_t n) {
  size_t offset = (d->arena_top + 63) & ~(size_t)63;
  size_t end = offset + n * sizeof(double);
  if (end > d->narena) {
    // the arena is sized from the model at compile time: running out is an engine bug
    fprintf(stderr, "tightfit: internal error: arena of %zu bytes exhausted\n", d->narena);
    abort();
  }
  d->arena_top = end;
  if (end > d->arena_peak) d->arena_peak = end;
  return (double*)(d->arena + offset);
}

double tf_clock(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void tf_warn(tf_data* d, tf_warning w) {
  if (d->warning[w]++ == 0) d->warning_step[w] = (int)d->nstep;
}
