// Validation of a builder's definitions before anything is laid out: each check returns 0,
// or -1 with a one-line message naming the definition at fault (tf_fail), so a bad model is
// refused with a reason instead of crashing the compile or a later step.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linalg_dense.h"
#include "builder_internal.h"
#include "tf_math.h"
#include "error_message.h"
#include "model_check.h"

static int all_finite(const double* x, int n) {
  for (int i = 0; i < n; i++) {
    if (!isfinite(x[i])) return 0;
  }
  return 1;
}

static const char* safe_name(const char* name) { return name ? name : "(unnamed)"; }

// names must be present, non-empty and unique within their kind; first_id is the id of
// names[0] (bodies count from 1, the world being 0)
int tf_check_names(const char* kind, const char* const* names, int n, int first_id, char* err,
                   size_t errlen) {
  for (int i = 0; i < n; i++) {
    if (!names[i] || !names[i][0]) {
      return tf_fail(err, errlen, "%s %d: name is missing or empty", kind, first_id + i);
    }
    for (int j = 0; j < i; j++) {
      if (strcmp(names[i], names[j]) == 0) {
        return tf_fail(err, errlen, "%s '%s': name used twice", kind, names[i]);
      }
    }
  }
  return 0;
}

// principal moments and axes of a body's inertia; point masses (all zero) pass through
int tf_check_inertia(const tf_body_def* def, double moments[3], double iquat[4], char* err,
                     size_t errlen) {
  const double* in = def->inertia;
  const char* name = safe_name(def->name);
  if (!all_finite(in, 6)) return tf_fail(err, errlen, "body '%s': inertia is not finite", name);
  int zero = 1;
  for (int i = 0; i < 6; i++) zero &= in[i] == 0;
  if (zero) {
    moments[0] = moments[1] = moments[2] = 0;
    tf_quat_identity(iquat);
    return 0;
  }
  double full[9] = {in[0], in[3], in[4], in[3], in[1], in[5], in[4], in[5], in[2]};
  double w[3], a[9];
  if (tf_sym3_eigen(w, a, full) != 0) {
    return tf_fail(err, errlen, "body '%s': inertia could not be diagonalised", name);
  }
  double scale = fmax(fabs(w[0]), fmax(fabs(w[1]), fabs(w[2])));
  if (w[0] <= 1e-12 * scale) {
    return tf_fail(err, errlen,
                   "body '%s': inertia is not positive definite (smallest principal moment %g)",
                   name, w[0]);
  }
  for (int i = 0; i < 3; i++) {
    double others = w[(i + 1) % 3] + w[(i + 2) % 3];
    if (w[i] > others * (1 + 1e-9)) {
      return tf_fail(err, errlen,
                     "body '%s': principal moments %g %g %g violate the triangle inequality", name,
                     w[0], w[1], w[2]);
    }
  }
  // eigenvectors are the columns of a; make them a right-handed frame
  double det = a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) +
               a[2] * (a[3] * a[7] - a[4] * a[6]);
  if (det < 0) {
    for (int r = 0; r < 3; r++) a[3 * r + 2] = -a[3 * r + 2];
  }
  tf_mat_to_quat(iquat, a);
  memcpy(moments, w, sizeof(w));
  return 0;
}

int tf_check_option(const tf_option* opt, char* err, size_t errlen) {
  if (!(isfinite(opt->timestep) && opt->timestep > 0)) {
    return tf_fail(err, errlen, "option: timestep must be > 0 (got %g)", opt->timestep);
  }
  if (!all_finite(opt->gravity, 3)) return tf_fail(err, errlen, "option: gravity is not finite");
  if ((int)opt->integrator < 0 || opt->integrator >= TF_INTEGRATOR_N) {
    return tf_fail(err, errlen, "option: unknown integrator %d", (int)opt->integrator);
  }
  if ((int)opt->solver < 0 || opt->solver >= TF_SOLVER_N) {
    return tf_fail(err, errlen, "option: unknown solver %d", (int)opt->solver);
  }
  const tf_solver_settings* so = &opt->solver_opt;
  if (so->iterations < 1 || so->inner_iterations < 1 || so->substeps < 1) {
    return tf_fail(err, errlen, "option: solver iterations and substeps must be >= 1");
  }
  if (!isfinite(so->tolerance) || so->tolerance < 0 || !isfinite(so->penalty) || so->penalty < 0) {
    return tf_fail(err, errlen, "option: solver tolerance and penalty must be finite and >= 0");
  }
  if (so->relinearize < 0 || so->relinearize > 100 || !isfinite(so->relinearize_tol) ||
      so->relinearize_tol < 0) {
    return tf_fail(err, errlen,
                   "option: relinearize must be in [0, 100] and relinearize_tol finite and >= 0");
  }
  if (so->overlap_checks < 0 || so->overlap_checks > 100) {
    return tf_fail(err, errlen, "option: overlap_checks must be in [0, 100] (got %d)",
                   so->overlap_checks);
  }
  if (!isfinite(opt->min_margin) || opt->min_margin < 0) {
    return tf_fail(err, errlen, "option: min_margin must be >= 0 (got %g)", opt->min_margin);
  }
  if (opt->max_pair_contacts < 1 || opt->max_pair_contacts > 128) {
    return tf_fail(err, errlen, "option: max_pair_contacts must be in [1, 128] (got %d)",
                   opt->max_pair_contacts);
  }
  if (!isfinite(opt->persist_tol) || opt->persist_tol < 0 || opt->persist_tol > 1e-3) {
    return tf_fail(err, errlen, "option: persist_tol must be in [0, 1e-3] m (got %g)",
                   opt->persist_tol);
  }
  if (opt->nconmax < 1 || opt->nconmax > 1000000) {
    return tf_fail(err, errlen, "option: nconmax must be in [1, 1e6] (got %d)", opt->nconmax);
  }
  return 0;
}

int tf_check_body(const tf_builder* b, int i, char* err, size_t errlen) {
  const tf_body_def* def = &b->bodies[i];
  const char* name = safe_name(def->name);
  int id = i + 1;
  if (def->parent < 0 || def->parent >= id) {
    return tf_fail(err, errlen, "body '%s': parent %d must be an earlier body or 0 (world)", name,
                   def->parent);
  }
  if (!all_finite(def->pos, 3) || !all_finite(def->quat, 4) || !all_finite(def->com, 3)) {
    return tf_fail(err, errlen, "body '%s': position, orientation or com is not finite", name);
  }
  double qn = sqrt(tf_vec3_dot(def->quat + 1, def->quat + 1) + def->quat[0] * def->quat[0]);
  if (qn < 1e-10) return tf_fail(err, errlen, "body '%s': orientation quaternion is zero", name);
  if (!isfinite(def->mass) || def->mass <= 0) {
    return tf_fail(err, errlen, "body '%s': mass must be > 0 (got %g)", name, def->mass);
  }
  return 0;
}

int tf_check_joint(const tf_builder* b, int i, char* err, size_t errlen) {
  const tf_joint_def* def = &b->joints[i];
  const char* name = safe_name(def->name);
  if (def->body < 1 || def->body > b->nbody) {
    return tf_fail(err, errlen, "joint '%s': body %d does not exist", name, def->body);
  }
  if (i > 0 && def->body < b->joints[i - 1].body) {
    return tf_fail(err, errlen, "joint '%s': joints must be added in body order", name);
  }
  if ((int)def->type < 0 || def->type >= TF_JOINT_NTYPE) {
    return tf_fail(err, errlen, "joint '%s': unknown type %d", name, (int)def->type);
  }
  if (!all_finite(def->pos, 3) || !all_finite(def->axis, 3) || !all_finite(def->qpos0, 7)) {
    return tf_fail(err, errlen, "joint '%s': position, axis or qpos0 is not finite", name);
  }
  double props[4] = {def->armature, def->damping, def->stiffness, def->springref};
  if (!all_finite(props, 4)) {
    return tf_fail(err, errlen, "joint '%s': armature, damping or stiffness is not finite", name);
  }
  const char* prop_names[3] = {"armature", "damping", "stiffness"};
  for (int k = 0; k < 3; k++) {
    if (props[k] < 0)
      return tf_fail(err, errlen, "joint '%s': %s must be >= 0 (got %g)", name, prop_names[k],
                     props[k]);
  }
  if ((def->type == TF_JOINT_HINGE || def->type == TF_JOINT_SLIDE) &&
      tf_vec3_norm(def->axis) < 1e-10) {
    return tf_fail(err, errlen, "joint '%s': axis is zero", name);
  }
  if (!isfinite(def->frictionloss) || def->frictionloss < 0) {
    return tf_fail(err, errlen, "joint '%s': frictionloss must be >= 0 (got %g)", name,
                   def->frictionloss);
  }
  if (def->limited) {
    if (def->type != TF_JOINT_HINGE && def->type != TF_JOINT_SLIDE) {
      return tf_fail(err, errlen, "joint '%s': only hinge and slide joints can be limited", name);
    }
    if (!all_finite(def->range, 2) || !(def->range[0] < def->range[1])) {
      return tf_fail(err, errlen, "joint '%s': range must be finite with range[0] < range[1]",
                     name);
    }
  }
  if (def->type == TF_JOINT_FREE) {
    const tf_body_def* body = &b->bodies[def->body - 1];
    if (body->parent != 0) {
      return tf_fail(err, errlen, "joint '%s': a free joint needs a body whose parent is the world",
                     name);
    }
    int count = 0;
    for (int j = 0; j < b->njnt; j++) count += b->joints[j].body == def->body;
    if (count != 1) {
      return tf_fail(err, errlen, "joint '%s': a free joint must be its body's only joint", name);
    }
    if (def->stiffness != 0) {
      return tf_fail(err, errlen, "joint '%s': a free joint cannot have stiffness", name);
    }
  }
  return 0;
}

int tf_check_actuator(const tf_builder* b, int i, char* err, size_t errlen) {
  const tf_actuator_def* def = &b->actuators[i];
  const char* name = safe_name(def->name);
  if ((int)def->type < 0 || def->type >= TF_ACT_NTYPE) {
    return tf_fail(err, errlen, "actuator '%s': unknown type %d", name, (int)def->type);
  }
  if (def->joint < 0 || def->joint >= b->njnt) {
    return tf_fail(err, errlen, "actuator '%s': joint %d does not exist", name, def->joint);
  }
  int jtype = b->joints[def->joint].type;
  if (jtype != TF_JOINT_HINGE && jtype != TF_JOINT_SLIDE) {
    return tf_fail(err, errlen, "actuator '%s': joint '%s' must be a hinge or a slide", name,
                   safe_name(b->joints[def->joint].name));
  }
  double props[5] = {def->gear, def->kp, def->kv, def->forcerange[0], def->forcerange[1]};
  if (!all_finite(props, 5))
    return tf_fail(err, errlen, "actuator '%s': a gain is not finite", name);
  if (def->gear == 0) return tf_fail(err, errlen, "actuator '%s': gear is zero", name);
  if (def->kp < 0 || def->kv < 0)
    return tf_fail(err, errlen, "actuator '%s': gains must be >= 0", name);
  if (def->forcerange[0] > def->forcerange[1]) {
    return tf_fail(err, errlen, "actuator '%s': forcerange is reversed", name);
  }
  return 0;
}

int tf_check_geom(const tf_builder* b, int i, char* err, size_t errlen) {
  const tf_geom_def* def = &b->geoms[i];
  const char* name = safe_name(def->name);
  if (def->body < 0 || def->body > b->nbody) {
    return tf_fail(err, errlen, "geom '%s': body %d does not exist", name, def->body);
  }
  if ((int)def->type < 0 || def->type >= TF_GEOM_NTYPE) {
    return tf_fail(err, errlen, "geom '%s': unknown type %d", name, (int)def->type);
  }
  if (!all_finite(def->size, 3) || !all_finite(def->pos, 3) || !all_finite(def->quat, 4)) {
    return tf_fail(err, errlen, "geom '%s': size, position or orientation is not finite", name);
  }
  if (tf_vec3_norm(def->quat + 1) + fabs(def->quat[0]) < 1e-10) {
    return tf_fail(err, errlen, "geom '%s': orientation quaternion is zero", name);
  }
  // how many leading size entries must be positive, per type
  static const int nsize[TF_GEOM_NTYPE] = {0, 1, 2, 3, 2, 0, 0, 0};
  for (int k = 0; k < nsize[def->type]; k++) {
    if (def->size[k] <= 0) {
      return tf_fail(err, errlen, "geom '%s': size[%d] of a %s must be > 0 (got %g)", name, k,
                     tf_geom_type_name(def->type), def->size[k]);
    }
  }
  if (def->type == TF_GEOM_PLANE && def->body != 0) {
    return tf_fail(err, errlen, "geom '%s': a plane must belong to the world (body 0)", name);
  }
  if (def->type == TF_GEOM_HULL && (def->hull < 0 || def->hull >= b->nhull)) {
    return tf_fail(err, errlen, "geom '%s': hull %d does not exist", name, def->hull);
  }
  if (def->type == TF_GEOM_MESH && (def->mesh < 0 || def->mesh >= b->nmesh)) {
    return tf_fail(err, errlen, "geom '%s': mesh %d does not exist", name, def->mesh);
  }
  if (def->type == TF_GEOM_SDF && (def->sdf < 0 || def->sdf >= b->nsdf)) {
    return tf_fail(err, errlen, "geom '%s': sdf %d does not exist", name, def->sdf);
  }
  if (def->mesh < -1 || def->mesh >= b->nmesh || def->sdf < -1 || def->sdf >= b->nsdf) {
    return tf_fail(err, errlen, "geom '%s': mesh %d or sdf %d does not exist", name, def->mesh,
                   def->sdf);
  }
  if (!all_finite(def->friction, 2) || def->friction[0] < 0 || def->friction[1] < 0) {
    return tf_fail(err, errlen, "geom '%s': friction must be finite and >= 0", name);
  }
  if (def->condim != 1 && def->condim != 3 && def->condim != 4) {
    return tf_fail(err, errlen, "geom '%s': condim must be 1, 3 or 4 (got %d)", name, def->condim);
  }
  if (!isfinite(def->margin) || def->margin < 0) {
    return tf_fail(err, errlen, "geom '%s': margin must be >= 0 (got %g)", name, def->margin);
  }
  if (!all_finite(def->solref, 2) || def->solref[0] <= 0 || def->solref[1] <= 0) {
    return tf_fail(err, errlen, "geom '%s': solref needs a time constant and damping ratio > 0",
                   name);
  }
  if (!all_finite(def->solimp, 3) || def->solimp[0] <= 0 || def->solimp[0] >= 1 ||
      def->solimp[1] <= 0 || def->solimp[1] >= 1 || def->solimp[2] <= 0) {
    return tf_fail(err, errlen, "geom '%s': solimp needs 0 < d0, dwidth < 1 and width > 0", name);
  }
  for (int k = 0; k < 4; k++) {
    // written as a negated range test so that NaN fails it too
    if (!(def->rgba[k] >= 0 && def->rgba[k] <= 1)) {
      return tf_fail(err, errlen, "geom '%s': rgba[%d] must be in [0, 1] (got %g)", name, k,
                     (double)def->rgba[k]);
    }
  }
  return 0;
}

int tf_check_equality(const tf_builder* b, int i, char* err, size_t errlen) {
  const tf_equality_def* def = &b->equalities[i];
  const char* name = safe_name(def->name);
  if ((int)def->type < 0 || def->type >= TF_EQ_NTYPE) {
    return tf_fail(err, errlen, "equality '%s': unknown type %d", name, (int)def->type);
  }
  if (def->body1 < 1 || def->body1 > b->nbody || def->body2 < 0 || def->body2 > b->nbody) {
    return tf_fail(err, errlen, "equality '%s': bodies %d and %d must exist (body1 not the world)",
                   name, def->body1, def->body2);
  }
  if (def->body1 == def->body2) {
    return tf_fail(err, errlen, "equality '%s': body1 and body2 are the same body", name);
  }
  if (!all_finite(def->anchor, 3))
    return tf_fail(err, errlen, "equality '%s': anchor is not finite", name);
  return 0;
}

int tf_check_mesh(const tf_builder* b, int i, char* err, size_t errlen) {
  const tf_builder_mesh* mesh = &b->meshes[i];
  if (mesh->nvert < 3 || mesh->nface < 1) {
    return tf_fail(err, errlen, "mesh '%s': needs at least 3 vertices and 1 face (got %d, %d)",
                   mesh->name, mesh->nvert, mesh->nface);
  }
  if (!all_finite(mesh->vert, 3 * mesh->nvert)) {
    return tf_fail(err, errlen, "mesh '%s': a vertex is not finite", mesh->name);
  }
  for (int f = 0; f < 3 * mesh->nface; f++) {
    if (mesh->face[f] < 0 || mesh->face[f] >= mesh->nvert) {
      return tf_fail(err, errlen, "mesh '%s': face %d uses vertex %d of %d", mesh->name, f / 3,
                     mesh->face[f], mesh->nvert);
    }
  }
  return 0;
}

int tf_check_sdf(const tf_builder* b, int i, char* err, size_t errlen) {
  const tf_sdf_def* def = &b->sdfs[i].def;
  const char* name = safe_name(def->name);
  int grid = def->grid != NULL;
  if (!def->fn == !grid) {
    return tf_fail(err, errlen, "sdf '%s': give either an analytic function or a grid", name);
  }
  if (!all_finite(def->aabb, 6) || !(def->aabb[0] < def->aabb[3] && def->aabb[1] < def->aabb[4] &&
                                     def->aabb[2] < def->aabb[5])) {
    return tf_fail(err, errlen, "sdf '%s': aabb must be finite with lo < hi", name);
  }
  if (!isfinite(def->error_bound) || def->error_bound < 0) {
    return tf_fail(err, errlen, "sdf '%s': error_bound must be >= 0", name);
  }
  if (!isfinite(def->feature_size) || def->feature_size < 0) {
    return tf_fail(err, errlen, "sdf '%s': feature_size must be finite and >= 0", name);
  }
  if (def->mesh < -1 || def->mesh >= b->nmesh) {
    return tf_fail(err, errlen, "sdf '%s': mesh %d does not exist", name, def->mesh);
  }
  if (grid) {
    if (def->res[0] < 2 || def->res[1] < 2 || def->res[2] < 2) {
      return tf_fail(err, errlen, "sdf '%s': a grid needs at least 2 nodes per axis", name);
    }
    if (!all_finite(def->grid_origin, 3) || !(isfinite(def->grid_cell) && def->grid_cell > 0)) {
      return tf_fail(err, errlen, "sdf '%s': grid origin and cell must be finite, cell > 0", name);
    }
    size_t n = (size_t)def->res[0] * (size_t)def->res[1] * (size_t)def->res[2];
    for (size_t k = 0; k < n; k++) {
      if (!isfinite(def->grid[k])) {
        return tf_fail(err, errlen, "sdf '%s': grid value %zu is not finite", name, k);
      }
    }
  }
  return 0;
}

int tf_check_pairs(const tf_builder* b, char* err, size_t errlen) {
  for (int i = 0; i < b->nexclude; i++) {
    int b1 = b->exclude[2 * i], b2 = b->exclude[2 * i + 1];
    if (b1 < 0 || b1 > b->nbody || b2 < 0 || b2 > b->nbody) {
      return tf_fail(err, errlen, "exclude pair %d: bodies %d and %d must exist", i, b1, b2);
    }
  }
  for (int i = 0; i < b->ninclude; i++) {
    int g1 = b->include[2 * i], g2 = b->include[2 * i + 1];
    if (g1 < 0 || g1 >= b->ngeom || g2 < 0 || g2 >= b->ngeom || g1 == g2) {
      return tf_fail(err, errlen, "include pair %d: geoms %d and %d must be two existing geoms", i,
                     g1, g2);
    }
  }
  return 0;
}
