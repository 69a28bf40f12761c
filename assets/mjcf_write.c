// MJCF out: a compiled tf_model written as a MuJoCo model (DIR/model.xml) plus its meshes
// (DIR/meshes/), so that a scene validated here opens in MuJoCo as it is.
//
// What maps how, and why:
// - every number is printed with %.17g, so each double reads back bit for bit;
// - angles are radians (<compiler angle="radian">): no degree conversion to round;
// - every body gets an explicit <inertial> (com, principal axes, mass, principal moments: the
//   model's own body_ipos / body_iquat / body_mass / body_inertia), so masses are exact and
//   nothing is derived from geoms on either side;
// - bodies are written depth first, children in id order, which is the order MuJoCo numbers
//   them and their joints in; the keyframe's qpos follows that order;
// - the engine puts a body at its XML frame when its hinge / slide coordinate is 0 (MuJoCo
//   at q = ref), so ref is left at 0 and the initial configuration goes into a keyframe;
// - an SDF that is one unrotated primitive of the SDF library (the gear fixture's plate,
//   shafts and shoulders) becomes that primitive, exactly;
// - hulls, mesh geoms and other SDF geoms with a surface mesh become mesh geoms (MuJoCo collides a
//   mesh through its convex hull: a bore is filled there, not here); an analytic SDF with no
//   mesh has nothing to write and is named in the skipped list;
// - welds carry their anchors and relative rotation (MuJoCo's anchor / relpose), so they hold
//   the engine's placement rather than one recomputed at MuJoCo's qpos0.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_io.h"
#include "mesh_io.h"
#include "mjcf.h"
#include "sdf_library.h"
#include "tf_math.h"

tf_mjcf_write_options tf_mjcf_write_options_default(void) {
  tf_mjcf_write_options o = {"tightfit", 0, NULL, NULL};
  return o;
}

// the surface a geom is exported with: a mesh id (>= 0), a hull id encoded as -2 - id, or -1
// when it has none (analytic SDF without a mesh)
static int geom_surface(const tf_model* m, int g) {
  switch (m->geom_type[g]) {
    case TF_GEOM_HULL:
      return -2 - m->geom_hullid[g];
    case TF_GEOM_MESH:
    case TF_GEOM_SDF:
      if (m->geom_meshid[g] >= 0) return m->geom_meshid[g];
      if (m->geom_sdfid[g] >= 0) return m->sdf_mesh[m->geom_sdfid[g]];
      return -1;
    default:
      return -1;
  }
}

// a geom's SDF when it is one primitive of the SDF library in an unrotated node: its engine
// shape type, sizes and the node's offset in the geom frame; -1 otherwise
static int sdf_primitive(const tf_model* m, int g, double size[3], double offset[3]) {
  int sdf = m->geom_sdfid[g];
  if (m->geom_type[g] != TF_GEOM_SDF || sdf < 0 || m->sdf_fn[sdf] != tf_sdf_tree_eval) return -1;
  const tf_sdf_tree* tree = (const tf_sdf_tree*)(m->sdf_param + m->sdf_paramadr[sdf]);
  if (tree->nnode != 1 || tree->root != 0) return -1;
  const tf_sdf_node* n = &tree->node[0];
  static const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  if (memcmp(n->rot, identity, sizeof(identity)) != 0) return -1;
  memcpy(offset, n->pos, 3 * sizeof(double));
  memset(size, 0, 3 * sizeof(double));
  switch (n->type) {
    case TF_SDF_SPHERE:
      size[0] = n->param[0];
      return TF_GEOM_SPHERE;
    case TF_SDF_BOX:
      memcpy(size, n->param, 3 * sizeof(double));
      return TF_GEOM_BOX;
    case TF_SDF_CYLINDER:
    case TF_SDF_CAPSULE:
      size[0] = n->param[0], size[1] = n->param[1];
      return n->type == TF_SDF_CYLINDER ? TF_GEOM_CYLINDER : TF_GEOM_CAPSULE;
    default:
      return -1;
  }
}

int tf_mjcf_geom_export_type(const tf_model* m, int g) {
  int t = m->geom_type[g];
  if (t <= TF_GEOM_CYLINDER) return t;
  double size[3], offset[3];
  int prim = sdf_primitive(m, g, size, offset);
  if (prim >= 0) return prim;
  return geom_surface(m, g) == -1 ? -1 : TF_GEOM_MESH;
}

int tf_mjcf_geom_exportable(const tf_model* m, int g) {
  return tf_mjcf_geom_export_type(m, g) >= 0;
}

// XML text with the five special characters escaped (names may hold any of them)
static void put_text(FILE* f, const char* s) {
  for (; *s; s++) {
    switch (*s) {
      case '&':
        fputs("&amp;", f);
        break;
      case '<':
        fputs("&lt;", f);
        break;
      case '>':
        fputs("&gt;", f);
        break;
      case '"':
        fputs("&quot;", f);
        break;
      case '\'':
        fputs("&apos;", f);
        break;
      default:
        // control bytes are not allowed in XML 1.0 even escaped; a space keeps the name legible
        fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
    }
  }
}

static void put_attr(FILE* f, const char* key, const char* value) {
  fprintf(f, " %s=\"", key);
  put_text(f, value);
  fputc('"', f);
}

static void put_nums(FILE* f, const char* key, const double* v, int n) {
  fprintf(f, " %s=\"", key);
  for (int i = 0; i < n; i++) fprintf(f, "%s%.17g", i ? " " : "", v[i]);
  fputc('"', f);
}

static void indent(FILE* f, int depth) {
  for (int i = 0; i < depth; i++) fputs("  ", f);
}

static const char* body_name(const tf_model* m, int b) {
  return b == 0 ? "world" : tf_body_name(m, b);
}

// the exported mesh of a surface id as a tf_mesh: a model mesh as it is, a hull's polygons
// fanned into triangles (allocated: *owned set to 1)
static int surface_mesh(const tf_model* m, int surf, tf_mesh* out, int* owned) {
  *owned = 0;
  if (surf >= 0) {
    out->vert = m->mesh_vert + 3 * (size_t)m->mesh_vertadr[surf];
    out->nvert = m->mesh_vertnum[surf];
    out->face = m->mesh_face + 3 * (size_t)m->mesh_faceadr[surf];
    out->nface = m->mesh_facenum[surf];
    return 0;
  }
  int h = -2 - surf;
  int nf = m->hull_facenum[h], fadr = m->hull_faceadr[h];
  const int* fv = m->hull_face_vert + m->hull_facevertadr[h];
  int ntri = 0;
  for (int k = 0; k < nf; k++) ntri += m->hull_face_vertnum[fadr + k] - 2;
  out->vert = m->hull_vert + 3 * (size_t)m->hull_vertadr[h];
  out->nvert = m->hull_vertnum[h];
  out->face = malloc(3 * sizeof(int) * (size_t)(ntri > 0 ? ntri : 1));
  out->nface = 0;
  if (!out->face) return -1;
  *owned = 1;
  for (int k = 0; k < nf; k++) {
    const int* poly = fv + m->hull_face_vertadr[fadr + k];
    int n = m->hull_face_vertnum[fadr + k];
    const double* plane = m->hull_face_plane + 4 * (size_t)(fadr + k);
    for (int i = 1; i + 1 < n; i++) {
      int a = poly[0], b = poly[i], c = poly[i + 1];
      // a polygon's vertex order is not promised: each triangle is turned to face along the
      // face's outward normal, as the mesh writers and MuJoCo expect
      const double* pa = out->vert + 3 * a;
      const double* pb = out->vert + 3 * b;
      const double* pc = out->vert + 3 * c;
      double u[3], v[3];
      for (int j = 0; j < 3; j++) u[j] = pb[j] - pa[j], v[j] = pc[j] - pa[j];
      double nx = u[1] * v[2] - u[2] * v[1], ny = u[2] * v[0] - u[0] * v[2],
             nz = u[0] * v[1] - u[1] * v[0];
      int flip = nx * plane[0] + ny * plane[1] + nz * plane[2] < 0;
      int* t = out->face + 3 * out->nface++;
      t[0] = a, t[1] = flip ? c : b, t[2] = flip ? b : c;
    }
  }
  return 0;
}

static void surface_name(char* out, size_t len, int surf) {
  if (surf >= 0) {
    snprintf(out, len, "mesh%d", surf);
  } else {
    snprintf(out, len, "hull%d", -2 - surf);
  }
}

// writes DIR/meshes/<name>.<ext> for every surface a geom uses, once each
static int write_meshes(const tf_model* m, const char* dir, int stl, char* err, size_t errlen) {
  int nsurf = m->nmesh + m->nhull;
  if (nsurf == 0) return 0;
  char* done = calloc((size_t)nsurf, 1);
  if (!done) return snprintf(err, errlen, "out of memory"), -1;
  char path[TF_PATH_MAX];
  int made = 0, rc = 0;
  for (int g = 0; g < m->ngeom && rc == 0; g++) {
    if (tf_mjcf_geom_export_type(m, g) != TF_GEOM_MESH) continue;
    int surf = geom_surface(m, g);
    if (surf == -1) continue;
    int slot = surf >= 0 ? surf : m->nmesh + (-2 - surf);
    if (done[slot]) continue;
    done[slot] = 1;
    if (!made) {
      snprintf(path, sizeof(path), "%s/meshes", dir);
      if (tf_mkdir_p(path, err, errlen)) {
        rc = -1;
        break;
      }
      made = 1;
    }
    char name[32];
    surface_name(name, sizeof(name), surf);
    snprintf(path, sizeof(path), "%s/meshes/%s.%s", dir, name, stl ? "stl" : "obj");
    tf_mesh mesh;
    int owned;
    if (surface_mesh(m, surf, &mesh, &owned)) {
      rc = -1;
      snprintf(err, errlen, "out of memory");
      break;
    }
    rc = stl ? tf_mesh_write_stl(path, &mesh, err, errlen)
             : tf_mesh_write_obj(path, &mesh, err, errlen);
    if (owned) free(mesh.face);
  }
  free(done);
  return rc;
}

static void write_joint(FILE* f, const tf_model* m, int j, int depth) {
  static const char* const types[] = {"free", "ball", "hinge", "slide"};
  int type = m->jnt_type[j], dof = m->jnt_dofadr[j];
  indent(f, depth);
  fputs("<joint", f);
  put_attr(f, "name", tf_joint_name(m, j));
  put_attr(f, "type", types[type]);
  if (type != TF_JOINT_FREE) {
    put_nums(f, "pos", m->jnt_pos + 3 * j, 3);
    put_nums(f, "axis", m->jnt_axis + 3 * j, 3);
  }
  if (type == TF_JOINT_HINGE || type == TF_JOINT_SLIDE) {
    fputs(m->jnt_limited[j] ? " limited=\"true\"" : " limited=\"false\"", f);
    if (m->jnt_limited[j]) put_nums(f, "range", m->jnt_range + 2 * j, 2);
    put_nums(f, "stiffness", m->jnt_stiffness + j, 1);
    put_nums(f, "springref", m->jnt_springref + j, 1);
  }
  put_nums(f, "damping", m->dof_damping + dof, 1);
  put_nums(f, "armature", m->dof_armature + dof, 1);
  put_nums(f, "frictionloss", m->dof_frictionloss + dof, 1);
  fputs("/>\n", f);
}

static void write_geom(FILE* f, const tf_model* m, int g, int depth) {
  static const char* const types[] = {"plane", "sphere", "capsule", "box", "cylinder"};
  int type = m->geom_type[g];
  const double* size = m->geom_size + 3 * g;
  double pos[3], psize[3], offset[3];
  memcpy(pos, m->geom_pos + 3 * g, sizeof(pos));
  int prim = sdf_primitive(m, g, psize, offset);
  if (prim >= 0) {
    // the primitive's own node offset moves the geom frame along, in the geom's axes
    double off[3];
    tf_quat_rotate(off, m->geom_quat + 4 * g, offset);
    for (int i = 0; i < 3; i++) pos[i] += off[i];
    type = prim;
    size = psize;
  }
  indent(f, depth);
  fputs("<geom", f);
  put_attr(f, "name", m->names + m->geom_nameadr[g]);
  if (type <= TF_GEOM_CYLINDER) {
    put_attr(f, "type", types[type]);
    if (type == TF_GEOM_PLANE) {
      // MuJoCo draws a plane with zero half-sizes as infinite; the third size is its grid
      // spacing, which must be positive
      double s[3] = {size[0], size[1], size[2] > 0 ? size[2] : 1};
      put_nums(f, "size", s, 3);
    } else {
      static const int nsize[] = {0, 1, 2, 3, 2};
      put_nums(f, "size", size, nsize[type]);
    }
  } else {
    char name[32];
    surface_name(name, sizeof(name), geom_surface(m, g));
    put_attr(f, "type", "mesh");
    put_attr(f, "mesh", name);
  }
  put_nums(f, "pos", pos, 3);
  put_nums(f, "quat", m->geom_quat + 4 * g, 4);
  // MuJoCo's third (rolling) coefficient at its default: the engine has none
  double fr[3] = {m->geom_friction[2 * g], m->geom_friction[2 * g + 1], 0.0001};
  put_nums(f, "friction", fr, 3);
  fprintf(f, " condim=\"%d\" contype=\"%u\" conaffinity=\"%u\"", m->geom_condim[g],
          m->geom_contype[g], m->geom_conaffinity[g]);
  put_nums(f, "margin", m->geom_margin + g, 1);
  put_nums(f, "solref", m->geom_solref + 2 * g, 2);
  put_nums(f, "solimp", m->geom_solimp + 3 * g, 3);
  const float* c = m->geom_rgba + 4 * g;
  if (c[0] != 0 || c[1] != 0 || c[2] != 0 || c[3] != 0) {
    double rgba[4] = {c[0], c[1], c[2], c[3]};
    put_nums(f, "rgba", rgba, 4);
  }
  fputs("/>\n", f);
}

// the geoms of body b (the world's too), each exportable one written, the others listed once
static void write_geoms(FILE* f, const tf_model* m, int b, int depth, char* skipped,
                        size_t skippedlen) {
  for (int g = 0; g < m->ngeom; g++) {
    if (m->geom_bodyid[g] != b) continue;
    if (tf_mjcf_geom_exportable(m, g)) {
      write_geom(f, m, g, depth);
    } else if (skipped && skippedlen) {
      size_t at = strlen(skipped);
      if (at < skippedlen) {
        snprintf(skipped + at, skippedlen - at, "%sgeom '%s' (an SDF without a surface mesh)",
                 at ? ", " : "", m->names + m->geom_nameadr[g]);
      }
    }
  }
}

// body b and its subtree, depth first; order[] collects the bodies as MuJoCo will number them
static void write_body(FILE* f, const tf_model* m, int b, int depth, int* order, int* norder,
                       char* skipped, size_t skippedlen) {
  order[(*norder)++] = b;
  indent(f, depth);
  fputs("<body", f);
  put_attr(f, "name", tf_body_name(m, b));
  put_nums(f, "pos", m->body_pos + 3 * b, 3);
  put_nums(f, "quat", m->body_quat + 4 * b, 4);
  fputs(">\n", f);
  indent(f, depth + 1);
  fputs("<inertial", f);
  put_nums(f, "pos", m->body_ipos + 3 * b, 3);
  put_nums(f, "quat", m->body_iquat + 4 * b, 4);
  put_nums(f, "mass", m->body_mass + b, 1);
  put_nums(f, "diaginertia", m->body_inertia + 3 * b, 3);
  fputs("/>\n", f);
  for (int j = m->body_jntadr[b]; j >= 0 && j < m->body_jntadr[b] + m->body_jntnum[b]; j++) {
    write_joint(f, m, j, depth + 1);
  }
  write_geoms(f, m, b, depth + 1, skipped, skippedlen);
  for (int c = b + 1; c < m->nbody; c++) {
    if (m->body_parentid[c] == b)
      write_body(f, m, c, depth + 1, order, norder, skipped, skippedlen);
  }
  indent(f, depth);
  fputs("</body>\n", f);
}

static void write_actuators(FILE* f, const tf_model* m) {
  if (m->nu == 0) return;
  static const char* const types[] = {"motor", "position", "velocity"};
  fputs("  <actuator>\n", f);
  for (int u = 0; u < m->nu; u++) {
    int type = m->actuator_type[u];
    fprintf(f, "    <%s", types[type]);
    put_attr(f, "name", m->names + m->actuator_nameadr[u]);
    put_attr(f, "joint", tf_joint_name(m, m->actuator_jntid[u]));
    put_nums(f, "gear", m->actuator_gear + u, 1);
    if (type == TF_ACT_POSITION) put_nums(f, "kp", m->actuator_kp + u, 1);
    if (type != TF_ACT_MOTOR) put_nums(f, "kv", m->actuator_kv + u, 1);
    const double* fr = m->actuator_forcerange + 2 * u;
    if (fr[0] != 0 || fr[1] != 0) {
      fputs(" forcelimited=\"true\"", f);
      put_nums(f, "forcerange", fr, 2);
    }
    fputs("/>\n", f);
  }
  fputs("  </actuator>\n", f);
}

static void write_equalities(FILE* f, const tf_model* m) {
  if (m->neq == 0) return;
  fputs("  <equality>\n", f);
  for (int e = 0; e < m->neq; e++) {
    int weld = m->eq_type[e] == TF_EQ_WELD;
    fprintf(f, "    <%s", weld ? "weld" : "connect");
    const char* name = m->names + m->eq_nameadr[e];
    if (name[0]) put_attr(f, "name", name);
    put_attr(f, "body1", body_name(m, m->eq_body1[e]));
    put_attr(f, "body2", body_name(m, m->eq_body2[e]));
    if (weld) {
      // MuJoCo's weld: anchor in body2's frame, relpose = the same point in body1's frame and
      // body2's orientation relative to body1 (the engine's eq_anchor2 / anchor1 / relquat)
      put_nums(f, "anchor", m->eq_anchor2 + 3 * e, 3);
      double rel[7];
      memcpy(rel, m->eq_anchor1 + 3 * e, 3 * sizeof(double));
      memcpy(rel + 3, m->eq_relquat + 4 * e, 4 * sizeof(double));
      put_nums(f, "relpose", rel, 7);
    } else {
      put_nums(f, "anchor", m->eq_anchor1 + 3 * e, 3);
    }
    fputs("/>\n", f);
  }
  fputs("  </equality>\n", f);
}

static void write_contact(FILE* f, const tf_model* m) {
  if (m->nexclude == 0 && m->ninclude == 0) return;
  fputs("  <contact>\n", f);
  for (int i = 0; i < m->ninclude; i++) {
    int g1 = m->include_geom[2 * i], g2 = m->include_geom[2 * i + 1];
    if (!tf_mjcf_geom_exportable(m, g1) || !tf_mjcf_geom_exportable(m, g2)) continue;
    fputs("    <pair", f);
    put_attr(f, "geom1", m->names + m->geom_nameadr[g1]);
    put_attr(f, "geom2", m->names + m->geom_nameadr[g2]);
    fputs("/>\n", f);
  }
  for (int i = 0; i < m->nexclude; i++) {
    fputs("    <exclude", f);
    put_attr(f, "body1", body_name(m, m->exclude_body[2 * i]));
    put_attr(f, "body2", body_name(m, m->exclude_body[2 * i + 1]));
    fputs("/>\n", f);
  }
  fputs("  </contact>\n", f);
}

// the initial state in MuJoCo's joint order (bodies depth first, a body's joints in order)
static void write_keyframe(FILE* f, const tf_model* m, const int* order, int norder,
                           const double* qpos, const double* qvel) {
  if (m->nq == 0 || (!qpos && !qvel)) return;
  static const int nq[] = {7, 4, 1, 1}, nv[] = {6, 3, 1, 1};
  fputs("  <keyframe>\n    <key name=\"initial\"", f);
  for (int pass = 0; pass < 2; pass++) {
    const double* src = pass ? qvel : qpos;
    if (!src) continue;
    fprintf(f, " %s=\"", pass ? "qvel" : "qpos");
    int first = 1;
    for (int k = 0; k < norder; k++) {
      int b = order[k];
      for (int j = m->body_jntadr[b]; j >= 0 && j < m->body_jntadr[b] + m->body_jntnum[b]; j++) {
        int t = m->jnt_type[j];
        int adr = pass ? m->jnt_dofadr[j] : m->jnt_qposadr[j];
        for (int i = 0; i < (pass ? nv[t] : nq[t]); i++) {
          fprintf(f, "%s%.17g", first ? "" : " ", src[adr + i]);
          first = 0;
        }
      }
    }
    fputc('"', f);
  }
  fputs("/>\n  </keyframe>\n", f);
}

static int write_xml(const tf_model* m, const char* dir, const tf_mjcf_write_options* opt,
                     char* skipped, size_t skippedlen, char* err, size_t errlen) {
  int* order = malloc(sizeof(int) * (size_t)m->nbody);
  if (!order) return snprintf(err, errlen, "out of memory"), -1;
  char path[TF_PATH_MAX];
  snprintf(path, sizeof(path), "%s/model.xml", dir);
  tf_atomic_file af;
  if (tf_atomic_open(&af, path, err, errlen)) {
    free(order);
    return -1;
  }
  FILE* f = af.f;
  fputs("<mujoco", f);
  put_attr(f, "model", opt->model ? opt->model : "tightfit");
  fputs(">\n", f);
  fputs("  <compiler angle=\"radian\" autolimits=\"true\" meshdir=\"meshes\"/>\n", f);
  fprintf(f, "  <option timestep=\"%.17g\"", m->opt.timestep);
  put_nums(f, "gravity", m->opt.gravity, 3);
  fprintf(f, " integrator=\"%s\"/>\n", m->opt.integrator == TF_INTEGRATOR_RK4 ? "RK4" : "Euler");
  int nsurf = m->nmesh + m->nhull;
  char* listed = calloc((size_t)(nsurf > 0 ? nsurf : 1), 1);
  if (!listed) {
    tf_atomic_abort(&af);
    free(order);
    return snprintf(err, errlen, "out of memory"), -1;
  }
  int any = 0;
  for (int g = 0; g < m->ngeom; g++) {
    int surf = tf_mjcf_geom_export_type(m, g) == TF_GEOM_MESH ? geom_surface(m, g) : -1;
    if (surf == -1) continue;
    int slot = surf >= 0 ? surf : m->nmesh + (-2 - surf);
    if (listed[slot]) continue;
    listed[slot] = 1;
    if (!any) fputs("  <asset>\n", f);
    any = 1;
    char name[32];
    surface_name(name, sizeof(name), surf);
    fprintf(f, "    <mesh name=\"%s\" file=\"%s.%s\"/>\n", name, name, opt->stl ? "stl" : "obj");
  }
  free(listed);
  if (any) fputs("  </asset>\n", f);
  fputs("  <worldbody>\n", f);
  write_geoms(f, m, 0, 2, skipped, skippedlen);
  int norder = 0;
  order[norder++] = 0;
  for (int b = 1; b < m->nbody; b++) {
    if (m->body_parentid[b] == 0) write_body(f, m, b, 2, order, &norder, skipped, skippedlen);
  }
  fputs("  </worldbody>\n", f);
  write_contact(f, m);
  write_equalities(f, m);
  write_actuators(f, m);
  write_keyframe(f, m, order, norder, opt->qpos, opt->qvel);
  fputs("</mujoco>\n", f);
  free(order);
  return tf_atomic_commit(&af, err, errlen);
}

int tf_mjcf_write(const tf_model* m, const char* dir, const tf_mjcf_write_options* opt,
                  char* skipped, size_t skippedlen, char* err, size_t errlen) {
  tf_mjcf_write_options def = tf_mjcf_write_options_default();
  if (!opt) opt = &def;
  if (skipped && skippedlen) skipped[0] = 0;
  if (strlen(dir) + 32 >= TF_PATH_MAX) {
    snprintf(err, errlen, "%s: path too long", dir);
    return -1;
  }
  if (tf_mkdir_p(dir, err, errlen)) return -1;
  // meshes first: model.xml appears only once everything it names is in place
  if (write_meshes(m, dir, opt->stl, err, errlen)) return -1;
  return write_xml(m, dir, opt, skipped, skippedlen, err, errlen);
}
