// The mutable builder: collects body / joint / actuator definitions in the order given.
// Validation happens once, in tf_builder_compile (model_compile.c), so that every error
// is reported with the name of the object it concerns.
#include "builder_internal.h"

#include <stdlib.h>
#include <string.h>

tf_body_def tf_body_def_default(void) {
  tf_body_def def;
  memset(&def, 0, sizeof(def));
  def.quat[0] = 1;
  def.mass = 1;
  def.inertia[0] = def.inertia[1] = def.inertia[2] = 1e-3;
  return def;
}

tf_joint_def tf_joint_def_default(void) {
  tf_joint_def def;
  memset(&def, 0, sizeof(def));
  def.range[0] = -1;
  def.range[1] = 1;
  def.type = TF_JOINT_HINGE;
  def.axis[2] = 1;
  def.qpos0[0] = 0;
  return def;
}

tf_actuator_def tf_actuator_def_default(void) {
  tf_actuator_def def;
  memset(&def, 0, sizeof(def));
  def.type = TF_ACT_MOTOR;
  def.gear = 1;
  return def;
}

tf_option tf_option_default(void) {
  tf_option opt;
  memset(&opt, 0, sizeof(opt));
  opt.timestep = 2e-3;
  opt.gravity[2] = -9.81;
  opt.integrator = TF_INTEGRATOR_EULER;
  opt.implicit_servo = 1;
  opt.solver = TF_SOLVER_AL;
  opt.solver_opt = tf_solver_settings_default();
  opt.min_margin = 1e-4;
  opt.max_pair_contacts = 128;
  opt.nconmax = 128;
  opt.persist_tol = 1e-9;
  return opt;
}

tf_solver_settings tf_solver_settings_default(void) {
  tf_solver_settings s;
  memset(&s, 0, sizeof(s));
  s.iterations = 100;
  s.tolerance = 1e-10;
  s.substeps = 1;
  s.penalty = 0;
  s.inner_iterations = 30;
  s.relinearize = 0;
  s.relinearize_tol = 1e-6;
  s.overlap_checks = 3;
  return s;
}

tf_geom_def tf_geom_def_default(void) {
  tf_geom_def def;
  memset(&def, 0, sizeof(def));
  def.type = TF_GEOM_SPHERE;
  def.size[0] = 0.05;
  def.quat[0] = 1;
  def.hull = -1;
  def.mesh = -1;
  def.sdf = -1;
  def.friction[0] = 1.0;
  def.friction[1] = 0.0;
  def.condim = 3;
  def.contype = 1;
  def.conaffinity = 1;
  // MuJoCo's defaults for its soft contacts, used by the newton solver only
  def.solref[0] = 0.02;
  def.solref[1] = 1.0;
  def.solimp[0] = 0.9;
  def.solimp[1] = 0.95;
  def.solimp[2] = 0.001;
  return def;
}

tf_equality_def tf_equality_def_default(void) {
  tf_equality_def def;
  memset(&def, 0, sizeof(def));
  def.type = TF_EQ_CONNECT;
  return def;
}

tf_builder* tf_builder_create(void) {
  tf_builder* b = calloc(1, sizeof(tf_builder));
  if (!b) return NULL;
  b->opt = tf_option_default();
  return b;
}

static void free_name(const char* name) { free((void*)name); }

void tf_builder_destroy(tf_builder* b) {
  if (!b) return;
  for (int i = 0; i < b->nbody; i++) free_name(b->bodies[i].name);
  for (int i = 0; i < b->njnt; i++) free_name(b->joints[i].name);
  for (int i = 0; i < b->nu; i++) free_name(b->actuators[i].name);
  for (int i = 0; i < b->ngeom; i++) free_name(b->geoms[i].name);
  for (int i = 0; i < b->neq; i++) free_name(b->equalities[i].name);
  for (int i = 0; i < b->nhull; i++) {
    free(b->hulls[i].name);
    free(b->hulls[i].points);
  }
  for (int i = 0; i < b->nmesh; i++) {
    free(b->meshes[i].name);
    free(b->meshes[i].vert);
    free(b->meshes[i].face);
  }
  for (int i = 0; i < b->nsdf; i++) {
    free(b->sdfs[i].name);
    free(b->sdfs[i].params);
    free(b->sdfs[i].grid);
  }
  free(b->meshes);
  free(b->sdfs);
  free(b->bodies);
  free(b->joints);
  free(b->actuators);
  free(b->geoms);
  free(b->equalities);
  free(b->hulls);
  free(b->exclude);
  free(b->include);
  free(b);
}

void tf_builder_set_option(tf_builder* b, const tf_option* opt) { b->opt = *opt; }

// grows a definition array to hold one more element; 0 on success
static int grow(void** array, int* capacity, int count, size_t elem) {
  if (count < *capacity) return 0;
  int cap = *capacity ? 2 * *capacity : 16;
  void* p = realloc(*array, (size_t)cap * elem);
  if (!p) return -1;
  *array = p;
  *capacity = cap;
  return 0;
}

// the builder owns a copy of every name, so callers may pass temporaries
static const char* copy_name(const char* name) {
  if (!name) return NULL;
  size_t n = strlen(name) + 1;
  char* s = malloc(n);
  if (s) memcpy(s, name, n);
  return s;
}

int tf_builder_add_body(tf_builder* b, const tf_body_def* def) {
  if (grow((void**)&b->bodies, &b->body_cap, b->nbody, sizeof(tf_body_def))) return -1;
  tf_body_def copy = *def;
  copy.name = copy_name(def->name);
  if (def->name && !copy.name) return -1;
  b->bodies[b->nbody] = copy;
  return ++b->nbody;  // the world is body 0
}

int tf_builder_add_joint(tf_builder* b, const tf_joint_def* def) {
  if (grow((void**)&b->joints, &b->joint_cap, b->njnt, sizeof(tf_joint_def))) return -1;
  tf_joint_def copy = *def;
  copy.name = copy_name(def->name);
  if (def->name && !copy.name) return -1;
  b->joints[b->njnt] = copy;
  return b->njnt++;
}

int tf_builder_add_actuator(tf_builder* b, const tf_actuator_def* def) {
  if (grow((void**)&b->actuators, &b->actuator_cap, b->nu, sizeof(tf_actuator_def))) return -1;
  tf_actuator_def copy = *def;
  copy.name = copy_name(def->name);
  if (def->name && !copy.name) return -1;
  b->actuators[b->nu] = copy;
  return b->nu++;
}

int tf_builder_add_geom(tf_builder* b, const tf_geom_def* def) {
  if (grow((void**)&b->geoms, &b->geom_cap, b->ngeom, sizeof(tf_geom_def))) return -1;
  tf_geom_def copy = *def;
  copy.name = copy_name(def->name);
  if (def->name && !copy.name) return -1;
  b->geoms[b->ngeom] = copy;
  return b->ngeom++;
}

int tf_builder_add_equality(tf_builder* b, const tf_equality_def* def) {
  if (grow((void**)&b->equalities, &b->eq_cap, b->neq, sizeof(tf_equality_def))) return -1;
  tf_equality_def copy = *def;
  copy.name = copy_name(def->name);
  if (def->name && !copy.name) return -1;
  b->equalities[b->neq] = copy;
  return b->neq++;
}

int tf_builder_add_hull(tf_builder* b, const char* name, const double* points, int npoints) {
  if (npoints < 0 || (npoints > 0 && !points)) return -1;
  if (grow((void**)&b->hulls, &b->hull_cap, b->nhull, sizeof(tf_builder_hull))) return -1;
  tf_builder_hull h = {NULL, NULL, npoints};
  h.name = (char*)copy_name(name ? name : "hull");
  h.points = malloc(sizeof(double) * 3 * (size_t)(npoints > 0 ? npoints : 1));
  if (!h.name || !h.points) {
    free(h.name);
    free(h.points);
    return -1;
  }
  if (npoints > 0) memcpy(h.points, points, sizeof(double) * 3 * (size_t)npoints);
  b->hulls[b->nhull] = h;
  return b->nhull++;
}

// appends a pair of ints to a growable array of pairs
static int add_pair(int** array, int* count, int* capacity, int first, int second) {
  if (grow((void**)array, capacity, 2 * *count + 1, sizeof(int))) return -1;
  (*array)[2 * *count] = first;
  (*array)[2 * *count + 1] = second;
  return (*count)++;
}

int tf_builder_exclude_pair(tf_builder* b, int body1, int body2) {
  return add_pair(&b->exclude, &b->nexclude, &b->exclude_cap, body1, body2);
}

int tf_builder_include_pair(tf_builder* b, int geom1, int geom2) {
  return add_pair(&b->include, &b->ninclude, &b->include_cap, geom1, geom2);
}

int tf_builder_add_mesh(tf_builder* b, const char* name, const double* vert, int nvert,
                        const int* face, int nface) {
  if (nvert < 0 || nface < 0 || (nvert > 0 && !vert) || (nface > 0 && !face)) return -1;
  if (grow((void**)&b->meshes, &b->mesh_cap, b->nmesh, sizeof(tf_builder_mesh))) return -1;
  tf_builder_mesh mesh = {NULL, NULL, nvert, NULL, nface};
  mesh.name = (char*)copy_name(name ? name : "mesh");
  mesh.vert = malloc(sizeof(double) * 3 * (size_t)(nvert > 0 ? nvert : 1));
  mesh.face = malloc(sizeof(int) * 3 * (size_t)(nface > 0 ? nface : 1));
  if (!mesh.name || !mesh.vert || !mesh.face) {
    free(mesh.name);
    free(mesh.vert);
    free(mesh.face);
    return -1;
  }
  if (nvert) memcpy(mesh.vert, vert, sizeof(double) * 3 * (size_t)nvert);
  if (nface) memcpy(mesh.face, face, sizeof(int) * 3 * (size_t)nface);
  b->meshes[b->nmesh] = mesh;
  return b->nmesh++;
}

int tf_builder_add_sdf(tf_builder* b, const tf_sdf_def* def) {
  if (grow((void**)&b->sdfs, &b->sdf_cap, b->nsdf, sizeof(tf_builder_sdf))) return -1;
  tf_builder_sdf sdf;
  memset(&sdf, 0, sizeof(sdf));
  sdf.def = *def;
  sdf.name = (char*)copy_name(def->name ? def->name : "sdf");
  size_t nparam = def->params && def->params_size ? def->params_size : 0;
  size_t ngrid = 0;
  if (def->grid && def->res[0] > 0 && def->res[1] > 0 && def->res[2] > 0) {
    ngrid = (size_t)def->res[0] * (size_t)def->res[1] * (size_t)def->res[2];
  }
  sdf.params = nparam ? malloc(nparam) : NULL;
  sdf.grid = ngrid ? malloc(sizeof(float) * ngrid) : NULL;
  if (!sdf.name || (nparam && !sdf.params) || (ngrid && !sdf.grid)) {
    free(sdf.name);
    free(sdf.params);
    free(sdf.grid);
    return -1;
  }
  if (nparam) memcpy(sdf.params, def->params, nparam);
  if (ngrid) memcpy(sdf.grid, def->grid, sizeof(float) * ngrid);
  sdf.def.name = sdf.name;
  sdf.def.params = sdf.params;
  sdf.def.params_size = nparam;
  sdf.def.grid = sdf.grid;
  b->sdfs[b->nsdf] = sdf;
  return b->nsdf++;
}
