// Compiles a builder into an immutable tf_model: validates every definition through
// model_check.c (a message that names the body / joint / actuator at fault, never a crash),
// lays out the flat arrays in a single allocation, fills them, and checks that M is positive
// definite.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linalg_dense.h"
#include "builder_internal.h"
#include "error_message.h"
#include "tf_math.h"
#include "collision_persist.h"
#include "collision_sdf.h"
#include "collision_stage.h"
#include "hull.h"
#include "mesh_primitive.h"
#include "model_check.h"
#include "model_internal.h"

int tf_joint_nq(int type) {
  static const int nq[TF_JOINT_NTYPE] = {7, 4, 1, 1};
  return nq[type];
}

int tf_joint_nv(int type) {
  static const int nv[TF_JOINT_NTYPE] = {6, 3, 1, 1};
  return nv[type];
}

// carves aligned arrays out of one buffer; with base NULL it only measures
typedef struct layout {
  unsigned char* base;
  size_t size;
} layout;

static void* carve(layout* l, size_t bytes) {
  size_t offset = (l->size + 63) & ~(size_t)63;  // cache-line aligned
  l->size = offset + bytes;
  return l->base ? l->base + offset : NULL;
}

static void lay_out_model(tf_model* m, layout* l, size_t names_size) {
  int nb = m->nbody, nj = m->njnt, nv = m->nv, nu = m->nu;
#define TF_INTS(field, n) m->field = carve(l, sizeof(int) * (size_t)(n))
#define TF_DOUBLES(field, n) m->field = carve(l, sizeof(double) * (size_t)(n))
  TF_INTS(body_parentid, nb);
  TF_INTS(body_jntadr, nb);
  TF_INTS(body_jntnum, nb);
  TF_INTS(body_dofadr, nb);
  TF_INTS(body_dofnum, nb);
  TF_INTS(body_nameadr, nb);
  TF_DOUBLES(body_pos, 3 * nb);
  TF_DOUBLES(body_quat, 4 * nb);
  TF_DOUBLES(body_mass, nb);
  TF_DOUBLES(body_ipos, 3 * nb);
  TF_DOUBLES(body_iquat, 4 * nb);
  TF_DOUBLES(body_inertia, 3 * nb);
  TF_INTS(jnt_type, nj);
  TF_INTS(jnt_bodyid, nj);
  TF_INTS(jnt_qposadr, nj);
  TF_INTS(jnt_dofadr, nj);
  TF_INTS(jnt_nameadr, nj);
  TF_DOUBLES(jnt_pos, 3 * nj);
  TF_DOUBLES(jnt_axis, 3 * nj);
  TF_DOUBLES(jnt_stiffness, nj);
  TF_DOUBLES(jnt_springref, nj);
  TF_INTS(dof_bodyid, nv);
  TF_INTS(dof_jntid, nv);
  TF_INTS(dof_parentid, nv);
  TF_DOUBLES(dof_armature, nv);
  TF_DOUBLES(dof_damping, nv);
  TF_INTS(actuator_type, nu);
  TF_INTS(actuator_jntid, nu);
  TF_INTS(actuator_nameadr, nu);
  TF_DOUBLES(actuator_gear, nu);
  TF_DOUBLES(actuator_kp, nu);
  TF_DOUBLES(actuator_kv, nu);
  TF_DOUBLES(actuator_forcerange, 2 * nu);
  TF_DOUBLES(dof_frictionloss, nv);
  TF_INTS(jnt_limited, nj);
  TF_DOUBLES(jnt_range, 2 * nj);
  int ng = m->ngeom, nh = m->nhull, ne = m->neq;
  TF_INTS(geom_type, ng);
  TF_INTS(geom_bodyid, ng);
  TF_INTS(geom_hullid, ng);
  TF_INTS(geom_condim, ng);
  m->geom_contype = carve(l, sizeof(unsigned) * (size_t)ng);
  m->geom_conaffinity = carve(l, sizeof(unsigned) * (size_t)ng);
  TF_INTS(geom_nameadr, ng);
  TF_DOUBLES(geom_size, 3 * ng);
  TF_DOUBLES(geom_pos, 3 * ng);
  TF_DOUBLES(geom_quat, 4 * ng);
  TF_DOUBLES(geom_friction, 2 * ng);
  TF_DOUBLES(geom_margin, ng);
  TF_DOUBLES(geom_solref, 2 * ng);
  TF_DOUBLES(geom_solimp, 3 * ng);
  TF_DOUBLES(geom_rbound, ng);
  TF_INTS(geom_tessadr, ng);
  TF_INTS(geom_tessvertnum, ng);
  TF_INTS(geom_tessfaceadr, ng);
  TF_INTS(geom_tessfacenum, ng);
  m->geom_rgba = carve(l, sizeof(float) * 4 * (size_t)ng);
  TF_INTS(hull_vertadr, nh);
  TF_INTS(hull_vertnum, nh);
  TF_INTS(hull_faceadr, nh);
  TF_INTS(hull_facenum, nh);
  TF_INTS(hull_facevertadr, nh);
  TF_DOUBLES(hull_rbound, nh);
  TF_DOUBLES(hull_vert, 3 * m->nhullvert);
  TF_DOUBLES(hull_face_plane, 4 * m->nhullface);
  TF_INTS(hull_face_vertadr, m->nhullface);
  TF_INTS(hull_face_vertnum, m->nhullface);
  TF_INTS(hull_face_vert, m->nhullfacevert);
  int nm = m->nmesh, ns = m->nsdf;
  TF_INTS(mesh_vertadr, nm);
  TF_INTS(mesh_vertnum, nm);
  TF_INTS(mesh_faceadr, nm);
  TF_INTS(mesh_facenum, nm);
  TF_DOUBLES(mesh_rbound, nm);
  TF_DOUBLES(mesh_vert, 3 * m->nmeshvert);
  TF_INTS(mesh_face, 3 * m->nmeshface);
  m->sdf_fn = carve(l, sizeof(tf_sdf_fn) * (size_t)ns);
  m->sdf_paramadr = carve(l, sizeof(size_t) * (size_t)ns);
  m->sdf_gridadr = carve(l, sizeof(size_t) * (size_t)ns);
  TF_INTS(sdf_res, 3 * ns);
  TF_INTS(sdf_mesh, ns);
  TF_DOUBLES(sdf_grid_origin, 3 * ns);
  TF_DOUBLES(sdf_grid_cell, ns);
  TF_DOUBLES(sdf_aabb, 6 * ns);
  TF_DOUBLES(sdf_error_bound, ns);
  TF_DOUBLES(sdf_feature_size, ns);
  TF_INTS(sdf_unit_gradient, ns);
  m->sdf_param = carve(l, m->nsdfparam);
  m->sdf_grid = carve(l, sizeof(float) * m->nsdfgrid);
  TF_INTS(geom_meshid, ng);
  TF_INTS(geom_sdfid, ng);
  TF_INTS(eq_type, ne);
  TF_INTS(eq_body1, ne);
  TF_INTS(eq_body2, ne);
  TF_INTS(eq_nameadr, ne);
  TF_DOUBLES(eq_anchor1, 3 * ne);
  TF_DOUBLES(eq_anchor2, 3 * ne);
  TF_DOUBLES(eq_relquat, 4 * ne);
  TF_INTS(exclude_body, 2 * m->nexclude);
  TF_INTS(include_geom, 2 * m->ninclude);
  TF_DOUBLES(qpos0, m->nq);
  m->names = carve(l, names_size);
#undef TF_INTS
#undef TF_DOUBLES
}

static int append_name(tf_model* m, size_t* at, const char* name) {
  int adr = (int)*at;
  size_t n = strlen(name) + 1;
  memcpy(m->names + *at, name, n);
  *at += n;
  return adr;
}

// fills every model array from validated definitions
static void fill_model(const tf_builder* b, tf_model* m, const double (*moments)[3],
                       const double (*iquats)[4], const tf_hull_data* hulls) {
  size_t at = 0;
  // world body
  m->body_parentid[0] = -1;
  m->body_nameadr[0] = append_name(m, &at, "world");
  memset(m->body_pos, 0, 3 * sizeof(double));
  tf_quat_identity(m->body_quat);
  m->body_mass[0] = 0;
  memset(m->body_ipos, 0, 3 * sizeof(double));
  tf_quat_identity(m->body_iquat);
  memset(m->body_inertia, 0, 3 * sizeof(double));
  for (int i = 0; i < b->nbody; i++) {
    const tf_body_def* def = &b->bodies[i];
    int id = i + 1;
    m->body_parentid[id] = def->parent;
    m->body_nameadr[id] = append_name(m, &at, def->name);
    tf_vec3_copy(m->body_pos + 3 * id, def->pos);
    memcpy(m->body_quat + 4 * id, def->quat, 4 * sizeof(double));
    tf_quat_normalize(m->body_quat + 4 * id);
    m->body_mass[id] = def->mass;
    tf_vec3_copy(m->body_ipos + 3 * id, def->com);
    memcpy(m->body_iquat + 4 * id, iquats[i], 4 * sizeof(double));
    tf_vec3_copy(m->body_inertia + 3 * id, moments[i]);
  }
  for (int i = 0; i < m->nbody; i++) {
    m->body_jntadr[i] = -1;
    m->body_jntnum[i] = 0;
    m->body_dofadr[i] = -1;
    m->body_dofnum[i] = 0;
  }

  int qadr = 0, vadr = 0;
  for (int j = 0; j < b->njnt; j++) {
    const tf_joint_def* def = &b->joints[j];
    int body = def->body, type = def->type;
    m->jnt_type[j] = type;
    m->jnt_bodyid[j] = body;
    m->jnt_qposadr[j] = qadr;
    m->jnt_dofadr[j] = vadr;
    m->jnt_nameadr[j] = append_name(m, &at, def->name);
    tf_vec3_copy(m->jnt_pos + 3 * j, type == TF_JOINT_FREE ? (double[3]){0, 0, 0} : def->pos);
    double axis[3] = {def->axis[0], def->axis[1], def->axis[2]};
    if (tf_vec3_normalize(axis) == 0) axis[2] = 1;  // unused by free and ball joints
    tf_vec3_copy(m->jnt_axis + 3 * j, axis);
    m->jnt_stiffness[j] = def->stiffness;
    m->jnt_springref[j] = def->springref;
    m->jnt_limited[j] = def->limited;
    m->jnt_range[2 * j] = def->limited ? def->range[0] : 0;
    m->jnt_range[2 * j + 1] = def->limited ? def->range[1] : 0;
    if (m->body_jntadr[body] < 0) {
      m->body_jntadr[body] = j;
      m->body_dofadr[body] = vadr;
    }
    m->body_jntnum[body]++;
    m->body_dofnum[body] += tf_joint_nv(type);
    // initial positions
    double* q0 = m->qpos0 + qadr;
    if (type == TF_JOINT_FREE) {
      tf_vec3_copy(q0, m->body_pos + 3 * body);
      memcpy(q0 + 3, m->body_quat + 4 * body, 4 * sizeof(double));
    } else if (type == TF_JOINT_BALL) {
      // an all-zero qpos0 (the default) means the identity orientation
      memcpy(q0, def->qpos0, 4 * sizeof(double));
      tf_quat_normalize(q0);
    } else {
      q0[0] = def->qpos0[0];
    }
    for (int k = 0; k < tf_joint_nv(type); k++) {
      int dof = vadr + k;
      m->dof_bodyid[dof] = body;
      m->dof_jntid[dof] = j;
      m->dof_armature[dof] = def->armature;
      m->dof_damping[dof] = def->damping;
      m->dof_frictionloss[dof] = def->frictionloss;
      if (k > 0 || m->body_dofadr[body] != vadr) {
        m->dof_parentid[dof] = dof - 1;
      } else {
        // the last dof of the nearest ancestor that has any
        int p = m->body_parentid[body];
        while (p > 0 && m->body_dofnum[p] == 0) p = m->body_parentid[p];
        m->dof_parentid[dof] = p > 0 ? m->body_dofadr[p] + m->body_dofnum[p] - 1 : -1;
      }
    }
    qadr += tf_joint_nq(type);
    vadr += tf_joint_nv(type);
  }

  for (int a = 0; a < b->nu; a++) {
    const tf_actuator_def* def = &b->actuators[a];
    m->actuator_type[a] = def->type;
    m->actuator_jntid[a] = def->joint;
    m->actuator_nameadr[a] = append_name(m, &at, def->name);
    m->actuator_gear[a] = def->gear;
    m->actuator_kp[a] = def->kp;
    m->actuator_kv[a] = def->kv;
    m->actuator_forcerange[2 * a] = def->forcerange[0];
    m->actuator_forcerange[2 * a + 1] = def->forcerange[1];
  }

  int vadr_h = 0, fadr = 0, fvadr = 0;
  for (int h = 0; h < b->nhull; h++) {
    const tf_hull_data* hull = &hulls[h];
    m->hull_vertadr[h] = vadr_h;
    m->hull_vertnum[h] = hull->nvert;
    m->hull_faceadr[h] = fadr;
    m->hull_facenum[h] = hull->nface;
    m->hull_facevertadr[h] = fvadr;
    m->hull_rbound[h] = hull->rbound;
    memcpy(m->hull_vert + 3 * vadr_h, hull->vert, sizeof(double) * 3 * (size_t)hull->nvert);
    memcpy(m->hull_face_plane + 4 * fadr, hull->face_plane,
           sizeof(double) * 4 * (size_t)hull->nface);
    memcpy(m->hull_face_vertadr + fadr, hull->face_vertadr, sizeof(int) * (size_t)hull->nface);
    memcpy(m->hull_face_vertnum + fadr, hull->face_vertnum, sizeof(int) * (size_t)hull->nface);
    memcpy(m->hull_face_vert + fvadr, hull->face_vert, sizeof(int) * (size_t)hull->nfacevert);
    vadr_h += hull->nvert;
    fadr += hull->nface;
    fvadr += hull->nfacevert;
  }

  int mv = 0, mf = 0;
  for (int i = 0; i < b->nmesh; i++) {
    const tf_builder_mesh* mesh = &b->meshes[i];
    m->mesh_vertadr[i] = mv;
    m->mesh_vertnum[i] = mesh->nvert;
    m->mesh_faceadr[i] = mf;
    m->mesh_facenum[i] = mesh->nface;
    memcpy(m->mesh_vert + 3 * mv, mesh->vert, sizeof(double) * 3 * (size_t)mesh->nvert);
    memcpy(m->mesh_face + 3 * mf, mesh->face, sizeof(int) * 3 * (size_t)mesh->nface);
    double r = 0;
    for (int k = 0; k < mesh->nvert; k++) r = fmax(r, tf_vec3_norm(mesh->vert + 3 * k));
    m->mesh_rbound[i] = r;
    mv += mesh->nvert;
    mf += mesh->nface;
  }
  size_t padr = 0, gadr = 0;
  for (int i = 0; i < b->nsdf; i++) {
    const tf_sdf_def* def = &b->sdfs[i].def;
    m->sdf_fn[i] = def->fn;
    m->sdf_paramadr[i] = padr;
    if (def->params_size) memcpy(m->sdf_param + padr, def->params, def->params_size);
    padr += (def->params_size + 15) & ~(size_t)15;
    m->sdf_gridadr[i] = gadr;
    size_t n = def->grid ? (size_t)def->res[0] * (size_t)def->res[1] * (size_t)def->res[2] : 0;
    if (n) memcpy(m->sdf_grid + gadr, def->grid, sizeof(float) * n);
    gadr += n;
    for (int k = 0; k < 3; k++) m->sdf_res[3 * i + k] = def->grid ? def->res[k] : 0;
    m->sdf_mesh[i] = def->mesh;
    tf_vec3_copy(m->sdf_grid_origin + 3 * i, def->grid_origin);
    m->sdf_grid_cell[i] = def->grid_cell;
    memcpy(m->sdf_aabb + 6 * i, def->aabb, 6 * sizeof(double));
    m->sdf_error_bound[i] = def->error_bound;
    m->sdf_feature_size[i] = def->feature_size;
    m->sdf_unit_gradient[i] = def->fn != NULL && def->unit_gradient != 0;
  }

  for (int g = 0; g < b->ngeom; g++) {
    const tf_geom_def* def = &b->geoms[g];
    m->geom_type[g] = def->type;
    m->geom_meshid[g] = def->mesh;
    m->geom_sdfid[g] = def->sdf;
    m->geom_bodyid[g] = def->body;
    m->geom_hullid[g] = def->type == TF_GEOM_HULL ? def->hull : -1;
    m->geom_condim[g] = def->condim;
    m->geom_contype[g] = def->contype;
    m->geom_conaffinity[g] = def->conaffinity;
    m->geom_nameadr[g] = append_name(m, &at, def->name);
    memcpy(m->geom_size + 3 * g, def->size, 3 * sizeof(double));
    tf_vec3_copy(m->geom_pos + 3 * g, def->pos);
    memcpy(m->geom_quat + 4 * g, def->quat, 4 * sizeof(double));
    tf_quat_normalize(m->geom_quat + 4 * g);
    memcpy(m->geom_friction + 2 * g, def->friction, 2 * sizeof(double));
    m->geom_margin[g] = def->margin;
    memcpy(m->geom_solref + 2 * g, def->solref, 2 * sizeof(double));
    memcpy(m->geom_solimp + 3 * g, def->solimp, 3 * sizeof(double));
    memcpy(m->geom_rgba + 4 * g, def->rgba, 4 * sizeof(float));
    const double* sz = def->size;
    double rbound = 0;
    switch (def->type) {
      case TF_GEOM_SPHERE:
        rbound = sz[0];
        break;
      case TF_GEOM_CAPSULE:
        rbound = sz[0] + sz[1];
        break;
      case TF_GEOM_BOX:
        rbound = tf_vec3_norm(sz);
        break;
      case TF_GEOM_CYLINDER:
        rbound = sqrt(sz[0] * sz[0] + sz[1] * sz[1]);
        break;
      case TF_GEOM_HULL:
        rbound = hulls[def->hull].rbound;
        break;
      case TF_GEOM_MESH:
        rbound = m->mesh_rbound[def->mesh];
        break;
      case TF_GEOM_SDF: {
        // the farthest corner of the solid's box from the geom origin
        const double* box = m->sdf_aabb + 6 * def->sdf;
        double far[3];
        for (int k = 0; k < 3; k++) far[k] = fmax(fabs(box[k]), fabs(box[3 + k]));
        rbound = tf_vec3_norm(far);
        break;
      }
      default:
        break;  // planes are unbounded: the broadphase treats them apart
    }
    m->geom_rbound[g] = rbound;
  }

  for (int e = 0; e < b->neq; e++) {
    const tf_equality_def* def = &b->equalities[e];
    m->eq_type[e] = def->type;
    m->eq_body1[e] = def->body1;
    m->eq_body2[e] = def->body2;
    m->eq_nameadr[e] = append_name(m, &at, def->name ? def->name : "");
    tf_vec3_copy(m->eq_anchor1 + 3 * e, def->anchor);
  }
  if (b->nexclude) memcpy(m->exclude_body, b->exclude, sizeof(int) * 2 * (size_t)b->nexclude);
  if (b->ninclude) memcpy(m->include_geom, b->include, sizeof(int) * 2 * (size_t)b->ninclude);
}

// equality constraints hold the relative placement they have at qpos0
static int set_equality_references(tf_model* m, char* err, size_t errlen) {
  if (m->neq == 0) return 0;
  tf_data* d = tf_data_create(m);
  if (!d) return tf_fail(err, errlen, "out of memory");
  for (int e = 0; e < m->neq; e++) {
    int b1 = m->eq_body1[e], b2 = m->eq_body2[e];
    double world[3], rel[3], q1inv[4];
    tf_quat_rotate(world, d->xquat + 4 * b1, m->eq_anchor1 + 3 * e);
    tf_vec3_add(world, world, d->xpos + 3 * b1);
    tf_vec3_sub(rel, world, d->xpos + 3 * b2);
    tf_quat_conj(q1inv, d->xquat + 4 * b2);
    tf_quat_rotate(m->eq_anchor2 + 3 * e, q1inv, rel);
    tf_quat_conj(q1inv, d->xquat + 4 * b1);
    tf_quat_mul(m->eq_relquat + 4 * e, q1inv, d->xquat + 4 * b2);
  }
  tf_data_destroy(d);
  return 0;
}

// M must be positive definite at qpos0, or no step can be taken: name the joint whose dof
// lost its pivot (a free joint on a point mass, a hinge through a point mass's centre, ...)
static int check_mass_matrix(tf_model* m, char* err, size_t errlen) {
  if (m->nv == 0) return 0;
  tf_data* d = tf_data_create(m);
  if (!d) return tf_fail(err, errlen, "out of memory");
  tf_kinematics(m, d);
  tf_crba(m, d);
  int nv = m->nv, status = 0;
  memcpy(d->qLD, d->qM, sizeof(double) * (size_t)(nv * nv));
  double scale = 0;
  for (int i = 0; i < nv; i++) scale = fmax(scale, d->qM[i * nv + i]);
  int info = tf_cholesky(nv, d->qLD);
  int bad = info > 0 ? info - 1 : -1;
  // a pivot that survives but is negligible against the largest one is singular all the same
  for (int i = 0; info == 0 && i < nv; i++) {
    if (d->qLD[i * nv + i] * d->qLD[i * nv + i] <= 1e-14 * scale) {
      bad = i;
      break;
    }
  }
  if (bad >= 0) {
    int j = m->dof_jntid[bad];
    status =
        tf_fail(err, errlen,
                "joint '%s': the mass matrix is singular at its dof %d (does body '%s' need "
                "mass or rotational inertia?)",
                tf_joint_name(m, j), bad - m->jnt_dofadr[j], tf_body_name(m, m->jnt_bodyid[j]));
  }
  tf_data_destroy(d);
  return status;
}

// whether primitive geom g may meet a geom measured by sampling (an SDF or a mesh): only
// those pairs read its tessellation
static int samples_against_field(const tf_model* m, int g) {
  for (int h = 0; h < m->ngeom; h++) {
    int t = m->geom_type[h];
    if ((t == TF_GEOM_SDF || t == TF_GEOM_MESH) && tf_collision_filter(m, g, h)) return 1;
  }
  return 0;
}

// the tessellations of the primitive geoms that sample against a field, into one block
// (vertices, then faces); 0, or -1 when out of memory
static int tessellate_primitives(tf_model* m) {
  double vert[3 * TF_PRIM_MESH_MAX_VERT];
  int face[3 * TF_PRIM_MESH_MAX_FACE];
  int nvert = 0, nface = 0;
  for (int pass = 0; pass < 2; pass++) {
    nvert = nface = 0;
    for (int g = 0; g < m->ngeom; g++) {
      int t = m->geom_type[g];
      if (pass == 0) {
        m->geom_tessadr[g] = -1;
        m->geom_tessvertnum[g] = m->geom_tessfaceadr[g] = m->geom_tessfacenum[g] = 0;
        int primitive = t == TF_GEOM_SPHERE || t == TF_GEOM_CAPSULE || t == TF_GEOM_BOX ||
                        t == TF_GEOM_CYLINDER;
        if (!primitive || !samples_against_field(m, g)) continue;
      } else if (m->geom_tessadr[g] < 0) {
        continue;
      }
      int nf = 0;
      int nv = tf_primitive_mesh(vert, face, &nf, t, m->geom_size + 3 * g, TF_SDF_SAMPLE_SPACING);
      if (pass == 0) {
        m->geom_tessadr[g] = nvert;
        m->geom_tessvertnum[g] = nv;
        m->geom_tessfaceadr[g] = nface;
        m->geom_tessfacenum[g] = nf;
      } else {
        memcpy(m->tess_vert + 3 * (size_t)nvert, vert, sizeof(double) * 3 * (size_t)nv);
        memcpy(m->tess_face + 3 * (size_t)nface, face, sizeof(int) * 3 * (size_t)nf);
      }
      nvert += nv;
      nface += nf;
    }
    if (pass == 0) {
      m->ntessvert = nvert;
      m->ntessface = nface;
      if (nvert == 0) return 0;
      m->tess_vert = malloc(sizeof(double) * 3 * (size_t)nvert + sizeof(int) * 3 * (size_t)nface);
      if (!m->tess_vert) return -1;
      m->tess_face = (int*)(m->tess_vert + 3 * (size_t)nvert);
    }
  }
  return 0;
}

tf_model* tf_builder_compile(const tf_builder* b, char* err, size_t errlen) {
  if (err && errlen) err[0] = 0;
  if (tf_check_option(&b->opt, err, errlen)) return NULL;

  int n = b->nbody > b->njnt ? b->nbody : b->njnt;
  n = n > b->nu ? n : b->nu;
  n = n > b->ngeom ? n : b->ngeom;
  tf_hull_data* hulls = NULL;
  int nhulls_built = 0;
  const char** names = malloc(sizeof(char*) * (size_t)(n + 1));
  double(*moments)[3] = malloc(sizeof(double[3]) * (size_t)(b->nbody + 1));
  double(*iquats)[4] = malloc(sizeof(double[4]) * (size_t)(b->nbody + 1));
  tf_model* m = NULL;
  if (!names || !moments || !iquats) {
    tf_fail(err, errlen, "out of memory");
    goto done;
  }
  for (int i = 0; i < b->nbody; i++) names[i] = b->bodies[i].name;
  if (tf_check_names("body", names, b->nbody, 1, err, errlen)) goto done;
  for (int i = 0; i < b->nbody; i++) {
    if (strcmp(b->bodies[i].name, "world") == 0) {
      tf_fail(err, errlen, "body 'world': the name is reserved for body 0");
      goto done;
    }
  }
  for (int i = 0; i < b->njnt; i++) names[i] = b->joints[i].name;
  if (tf_check_names("joint", names, b->njnt, 0, err, errlen)) goto done;
  for (int i = 0; i < b->nu; i++) names[i] = b->actuators[i].name;
  if (tf_check_names("actuator", names, b->nu, 0, err, errlen)) goto done;

  size_t names_size = 6;  // "world"
  for (int i = 0; i < b->nbody; i++) {
    if (tf_check_body(b, i, err, errlen)) goto done;
    if (tf_check_inertia(&b->bodies[i], moments[i], iquats[i], err, errlen)) goto done;
    names_size += strlen(b->bodies[i].name) + 1;
  }
  int nq = 0, nv = 0;
  for (int j = 0; j < b->njnt; j++) {
    if (tf_check_joint(b, j, err, errlen)) goto done;
    names_size += strlen(b->joints[j].name) + 1;
    nq += tf_joint_nq(b->joints[j].type);
    nv += tf_joint_nv(b->joints[j].type);
  }
  for (int a = 0; a < b->nu; a++) {
    if (tf_check_actuator(b, a, err, errlen)) goto done;
    names_size += strlen(b->actuators[a].name) + 1;
  }
  for (int i = 0; i < b->ngeom; i++) names[i] = b->geoms[i].name;
  if (tf_check_names("geom", names, b->ngeom, 0, err, errlen)) goto done;
  for (int g = 0; g < b->ngeom; g++) {
    if (tf_check_geom(b, g, err, errlen)) goto done;
    names_size += strlen(b->geoms[g].name) + 1;
  }
  for (int e = 0; e < b->neq; e++) {
    if (tf_check_equality(b, e, err, errlen)) goto done;
    names_size += (b->equalities[e].name ? strlen(b->equalities[e].name) : 0) + 1;
  }
  if (tf_check_pairs(b, err, errlen)) goto done;
  int nmeshvert = 0, nmeshface = 0;
  for (int i = 0; i < b->nmesh; i++) {
    if (tf_check_mesh(b, i, err, errlen)) goto done;
    nmeshvert += b->meshes[i].nvert;
    nmeshface += b->meshes[i].nface;
  }
  size_t nsdfparam = 0, nsdfgrid = 0;
  for (int i = 0; i < b->nsdf; i++) {
    if (tf_check_sdf(b, i, err, errlen)) goto done;
    const tf_sdf_def* def = &b->sdfs[i].def;
    nsdfparam += (def->params_size + 15) & ~(size_t)15;
    if (def->grid) nsdfgrid += (size_t)def->res[0] * (size_t)def->res[1] * (size_t)def->res[2];
  }
  if (b->opt.integrator == TF_INTEGRATOR_RK4) {
    int constrained = b->neq > 0;
    for (int j = 0; j < b->njnt; j++) {
      constrained |= b->joints[j].limited || b->joints[j].frictionloss > 0;
    }
    int collidable = 0;
    for (int g = 0; g < b->ngeom; g++) {
      collidable += (b->geoms[g].contype | b->geoms[g].conaffinity) != 0;
    }
    if (constrained || collidable > 1) {
      tf_fail(err, errlen,
              "option: rk4 is for contact-free models (no collidable geoms, limits, joint "
              "friction or equalities); use euler");
      goto done;
    }
  }
  hulls = calloc((size_t)(b->nhull + 1), sizeof(tf_hull_data));
  if (!hulls) {
    tf_fail(err, errlen, "out of memory");
    goto done;
  }
  int nhullvert = 0, nhullface = 0, nhullfacevert = 0;
  for (int h = 0; h < b->nhull; h++) {
    const tf_builder_hull* src = &b->hulls[h];
    if (tf_hull_build(src->points, src->npoints, src->name, &hulls[h], err, errlen)) goto done;
    nhulls_built = h + 1;
    nhullvert += hulls[h].nvert;
    nhullface += hulls[h].nface;
    nhullfacevert += hulls[h].nfacevert;
  }

  m = calloc(1, sizeof(tf_model));
  if (!m) {
    tf_fail(err, errlen, "out of memory");
    goto done;
  }
  m->nq = nq;
  m->nv = nv;
  m->nbody = b->nbody + 1;
  m->njnt = b->njnt;
  m->nu = b->nu;
  m->ngeom = b->ngeom;
  m->nhull = b->nhull;
  m->nhullvert = nhullvert;
  m->nhullface = nhullface;
  m->nhullfacevert = nhullfacevert;
  m->nmesh = b->nmesh;
  m->nmeshvert = nmeshvert;
  m->nmeshface = nmeshface;
  m->nsdf = b->nsdf;
  m->nsdfparam = nsdfparam;
  m->nsdfgrid = nsdfgrid;
  m->neq = b->neq;
  m->nexclude = b->nexclude;
  m->ninclude = b->ninclude;
  m->opt = b->opt;
  m->nconmax = b->opt.nconmax > 0 ? b->opt.nconmax : 1;
  // rows: up to 4 per contact, a limit and a friction row per dof, 6 per equality
  m->nefcmax = 4 * m->nconmax + 2 * nv + 6 * b->neq;
  layout l = {NULL, 0};
  lay_out_model(m, &l, names_size);
  m->nbuffer = l.size;
  l.base = malloc(l.size);
  l.size = 0;
  if (!l.base) {
    free(m);
    m = NULL;
    tf_fail(err, errlen, "out of memory");
    goto done;
  }
  lay_out_model(m, &l, names_size);
  m->buffer = l.base;
  m->narena = tf_arena_size(m);
  fill_model(b, m, (const double(*)[3])moments, (const double(*)[4])iquats, hulls);
  if (tessellate_primitives(m) || tf_persist_pairs_build(m)) {
    tf_fail(err, errlen, "out of memory");
    tf_model_destroy(m);
    m = NULL;
    goto done;
  }
  if (check_mass_matrix(m, err, errlen) || set_equality_references(m, err, errlen)) {
    tf_model_destroy(m);
    m = NULL;
  }

done:
  for (int h = 0; h < nhulls_built; h++) tf_hull_free(&hulls[h]);
  free(hulls);
  free(names);
  free(moments);
  free(iquats);
  return m;
}

void tf_model_destroy(tf_model* m) {
  if (!m) return;
  free(m->tess_vert);  // the tessellations' one block (its faces follow the vertices)
  free(m->persist_geom);
  free(m->buffer);
  free(m);
}

static int find_name(const tf_model* m, const int* adr, int n, const char* name) {
  if (!name) return -1;
  for (int i = 0; i < n; i++) {
    if (strcmp(m->names + adr[i], name) == 0) return i;
  }
  return -1;
}

int tf_name_to_body(const tf_model* m, const char* name) {
  return find_name(m, m->body_nameadr, m->nbody, name);
}

int tf_name_to_joint(const tf_model* m, const char* name) {
  return find_name(m, m->jnt_nameadr, m->njnt, name);
}

int tf_name_to_actuator(const tf_model* m, const char* name) {
  return find_name(m, m->actuator_nameadr, m->nu, name);
}

const char* tf_body_name(const tf_model* m, int body) { return m->names + m->body_nameadr[body]; }

const char* tf_joint_name(const tf_model* m, int joint) { return m->names + m->jnt_nameadr[joint]; }
