// MJCF loading: libxml2 parses the file into a tree (no network, no entity substitution, its
// own messages suppressed and read back from the parser context), <include>s are expanded in
// it, then one recursive walk of <worldbody> adds bodies, joints and geoms to a tf_builder.
//
// Semantics follow MuJoCo's documentation of the format:
// - sizes are half-sizes and radii, as the engine's; capsule and cylinder "fromto" give the
//   segment, so pos is its midpoint, size[1] half its length and the geom z axis along it;
// - angles (euler, axisangle, hinge range / ref / springref) are degrees unless
//   <compiler angle="radian">; euler follows compiler eulerseq (lowercase: rotating axes);
// - an attribute missing on an element comes from its default class: class=, else the nearest
//   ancestor body's childclass, else the top <default>; a class inherits from its parent;
// - a body without <inertial> takes its mass from its geoms (density 1000 kg/m^3 unless
//   density= or mass= says otherwise), combined about their joint centre of mass;
// - a mesh's vertices are moved to its volume centroid and the geom frame by as much, so it
//   stays where the file puts it (MuJoCo also turns it onto its principal axes; here the full
//   inertia tensor is kept instead, which gives the same body inertia); it collides through
//   an SDF baked from its triangles;
// - a hinge / slide coordinate q is MuJoCo's: the body is at its XML frame at q = ref (qpos0),
//   and q starts there; the engine's body frame is the one at q = 0, so the XML frame is moved
//   by -ref about / along the joints (move_frame_by_refs) and range, springref and servo
//   targets, all values of q, are kept as they are;
// - <include file> is replaced by the children of that file's root <mujoco> (the file relative
//   to the main model's folder, each file once, no cycles, at most MJCF_MAX_INCLUDE_DEPTH deep);
//   the copied elements remember their file for messages.
#include "mjcf.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mesh_io.h"
#include "mjcf_internal.h"
#include "sdf_bake.h"
#include "tf_math.h"

static const char* const BODY_ATTRS[] = {"name",      "pos",   "quat",       "euler",
                                         "axisangle", "zaxis", "childclass", NULL};
static const char* const INERTIAL_ATTRS[] = {"pos",  "quat",        "euler",       "axisangle",
                                             "mass", "diaginertia", "fullinertia", NULL};
static const char* const JOINT_ATTRS[] = {
    "name",    "class",    "type",      "axis", "pos",       "range",        "limited",
    "damping", "armature", "stiffness", "ref",  "springref", "frictionloss", NULL};
static const char* const GEOM_ATTRS[] = {
    "name",      "class", "type",     "size",    "fromto",      "pos",    "quat",    "euler",
    "axisangle", "zaxis", "friction", "contype", "conaffinity", "condim", "density", "mass",
    "mesh",      "rgba",  "margin",   "solref",  "solimp",      NULL};
static const char* const ACT_ATTRS[] = {"name",      "class",       "joint",      "gear",
                                        "ctrlrange", "ctrllimited", "forcerange", "forcelimited",
                                        "kp",        "kv",          NULL};

// ---------------------------------------------------------------- defaults, compiler, option

static void read_defaults(mjcf_ctx* c, xmlNode* n, int parent) {
  if (c->ncls == MAX_CLASS) {
    mjcf_fail(c, n, "more than %d default classes", MAX_CLASS);
    return;
  }
  xmlChar* name = xmlGetProp(n, (const xmlChar*)"class");
  if (parent >= 0 && !name) mjcf_fail(c, n, "a nested default needs a class");
  if (name && mjcf_class_index(c, (const char*)name) >= 0) {
    mjcf_fail(c, n, "default class '%s' defined twice", (const char*)name);
  }
  xmlFree(name);
  int k = c->ncls++;
  c->cls_node[k] = n;
  c->cls_parent[k] = parent;
  for (xmlNode* ch = n->children; ch; ch = ch->next) {
    if (ch->type != XML_ELEMENT_NODE) continue;
    if (mjcf_is(ch, "default")) {
      read_defaults(c, ch, k);
    } else if (mjcf_is(ch, "joint")) {
      mjcf_check_attrs(c, ch, JOINT_ATTRS);
    } else if (mjcf_is(ch, "geom")) {
      mjcf_check_attrs(c, ch, GEOM_ATTRS);
    } else if (mjcf_is(ch, "motor") || mjcf_is(ch, "position") || mjcf_is(ch, "velocity")) {
      mjcf_check_attrs(c, ch, ACT_ATTRS);
    } else {
      mjcf_unsupported(c, "<default> <%s>", (const char*)ch->name);
    }
  }
}

static void read_compiler(mjcf_ctx* c, const xmlNode* n) {
  static const char* const allowed[] = {"angle", "meshdir", "eulerseq", "autolimits", NULL};
  mjcf_check_attrs(c, n, allowed);
  xmlChar* v = xmlGetProp(n, (const xmlChar*)"angle");
  if (v) {
    if (strcmp((const char*)v, "radian") == 0) {
      c->degree = 0;
    } else if (strcmp((const char*)v, "degree") == 0) {
      c->degree = 1;
    } else {
      mjcf_fail(c, n, "angle '%s' is not radian or degree", (const char*)v);
    }
    xmlFree(v);
  }
  v = xmlGetProp(n, (const xmlChar*)"eulerseq");
  if (v) {
    size_t len = strlen((const char*)v);
    int ok = len == 3;
    for (size_t i = 0; ok && i < 3; i++) ok = strchr("xyzXYZ", v[i]) != NULL;
    if (ok) {
      memcpy(c->eulerseq, v, 4);
    } else {
      mjcf_fail(c, n, "eulerseq '%s' is not three of xyzXYZ", (const char*)v);
    }
    xmlFree(v);
  }
  v = xmlGetProp(n, (const xmlChar*)"meshdir");
  if (v) {
    snprintf(c->meshdir, sizeof(c->meshdir), "%s", (const char*)v);
    xmlFree(v);
  }
}

static void read_option(mjcf_ctx* c, const xmlNode* n, tf_option* opt, int* integrator) {
  static const char* const allowed[] = {"timestep", "gravity", "integrator", NULL};
  mjcf_check_attrs(c, n, allowed);
  opt->timestep = mjcf_number(c, n, "", -1, "timestep", opt->timestep);
  if (!(opt->timestep > 0)) mjcf_fail(c, n, "timestep must be positive");
  mjcf_numbers(c, n, "", -1, "gravity", opt->gravity, 3, 3);
  xmlChar* v = xmlGetProp(n, (const xmlChar*)"integrator");
  if (v) {
    if (strcmp((const char*)v, "Euler") == 0) {
      *integrator = TF_INTEGRATOR_EULER;
    } else if (strcmp((const char*)v, "RK4") == 0) {
      *integrator = TF_INTEGRATOR_RK4;
    } else {
      mjcf_unsupported(c, "option integrator '%s'", (const char*)v);
    }
    xmlFree(v);
  }
  for (xmlNode* ch = n->children; ch; ch = ch->next) {
    if (ch->type == XML_ELEMENT_NODE) mjcf_unsupported(c, "<option> <%s>", (const char*)ch->name);
  }
}

// ---------------------------------------------------------------- meshes

static void read_assets(mjcf_ctx* c, const xmlNode* n) {
  for (xmlNode* ch = n->children; ch; ch = ch->next) {
    if (ch->type != XML_ELEMENT_NODE) continue;
    if (!mjcf_is(ch, "mesh")) {
      mjcf_unsupported(c, "<asset> <%s>", (const char*)ch->name);
      continue;
    }
    static const char* const allowed[] = {"name", "file", "scale", NULL};
    mjcf_check_attrs(c, ch, allowed);
    if (c->nmesh == MAX_MESH) {
      mjcf_fail(c, ch, "more than %d meshes", MAX_MESH);
      return;
    }
    c->mesh_node[c->nmesh] = ch;
    c->mesh_id[c->nmesh++] = -1;
  }
}

// the mesh's name: name=, else the file name without folder and extension
static void mesh_name(const xmlNode* n, char* out, size_t len) {
  xmlChar* v = xmlGetProp(n, (const xmlChar*)"name");
  if (v) {
    snprintf(out, len, "%s", (const char*)v);
  } else {
    v = xmlGetProp(n, (const xmlChar*)"file");
    const char* f = v ? (const char*)v : "";
    const char* slash = strrchr(f, '/');
    snprintf(out, len, "%s", slash ? slash + 1 : f);
    char* dot = strrchr(out, '.');
    if (dot) *dot = 0;
  }
  xmlFree(v);
}

// loads asset mesh k on first use: read, recentre, bake its SDF, add both to the builder
static int load_mesh(mjcf_ctx* c, int k, const xmlNode* geom) {
  if (c->mesh_id[k] >= 0) return 0;
  const xmlNode* n = c->mesh_node[k];
  xmlChar* file = xmlGetProp(n, (const xmlChar*)"file");
  if (!file) return mjcf_fail(c, n, "mesh needs a file");
  char path[2048];
  const char* f = (const char*)file;
  if (f[0] == '/') {
    snprintf(path, sizeof(path), "%s", f);
  } else if (c->meshdir[0] == '/') {
    snprintf(path, sizeof(path), "%s/%s", c->meshdir, f);
  } else if (c->meshdir[0]) {
    snprintf(path, sizeof(path), "%s/%s/%s", c->dir, c->meshdir, f);
  } else {
    snprintf(path, sizeof(path), "%s/%s", c->dir, f);
  }
  xmlFree(file);
  tf_mesh mesh = {0};
  char msg[512];
  if (tf_mesh_read(&mesh, path, msg, sizeof(msg))) return mjcf_fail(c, n, "%s", msg);
  double scale[3] = {1, 1, 1};
  mjcf_numbers(c, n, "", -1, "scale", scale, 3, 3);
  if (!(scale[0] > 0 && scale[1] > 0 && scale[2] > 0)) {
    tf_mesh_free(&mesh);
    return mjcf_fail(c, n, "scale must be positive");
  }
  for (int v = 0; v < mesh.nvert; v++) {
    for (int i = 0; i < 3; i++) mesh.vert[3 * v + i] *= scale[i];
  }
  double* com = c->mesh_com[k];
  mjcf_mesh_mass(&mesh, &c->mesh_volume[k], com, c->mesh_inertia[k]);
  if (!(c->mesh_volume[k] > 0)) {
    tf_mesh_free(&mesh);
    return mjcf_fail(c, geom, "mesh '%s' encloses no volume (open or inside out)", path);
  }
  for (int v = 0; v < mesh.nvert; v++) {
    for (int i = 0; i < 3; i++) mesh.vert[3 * v + i] -= com[i];
  }
  tf_sdf_bake_options bo = tf_sdf_bake_options_default();
  bo.threads = 1;
  tf_sdf_grid grid;
  if (tf_sdf_bake(&grid, NULL, mesh.vert, mesh.nvert, mesh.face, mesh.nface, &bo, msg,
                  sizeof(msg))) {
    tf_mesh_free(&mesh);
    return mjcf_fail(c, n, "%s: %s", path, msg);
  }
  char name[256];
  mesh_name(n, name, sizeof(name));
  c->mesh_id[k] = tf_builder_add_mesh(c->b, name, mesh.vert, mesh.nvert, mesh.face, mesh.nface);
  tf_sdf_def sd;
  tf_sdf_grid_def(&sd, &grid, name, c->mesh_id[k]);
  c->mesh_sdf[k] = c->mesh_id[k] < 0 ? -1 : tf_builder_add_sdf(c->b, &sd);
  tf_sdf_grid_free(&grid);
  tf_mesh_free(&mesh);
  if (c->mesh_sdf[k] < 0) return mjcf_fail(c, n, "out of memory");
  return 0;
}

static int find_mesh(mjcf_ctx* c, const char* name) {
  for (int k = 0; k < c->nmesh; k++) {
    char own[256];
    mesh_name(c->mesh_node[k], own, sizeof(own));
    if (strcmp(own, name) == 0) return k;
  }
  return -1;
}

// ---------------------------------------------------------------- bodies, joints, geoms

// fills g (body, name left to the caller) and the geom's mass and inertia (geom frame) from a
// <geom>; returns 0, 1 when the geom is skipped (unsupported type), -1 on error
static int geom_def(mjcf_ctx* c, xmlNode* n, int body, int cls, tf_geom_def* g, double* gmass,
                    double gi[9]) {
  *g = tf_geom_def_default();
  g->body = body;
  *gmass = 0;
  memset(gi, 0, 9 * sizeof(double));
  xmlChar* type = mjcf_attr(c, n, "geom", cls, "type");
  char t[32];
  snprintf(t, sizeof(t), "%s", type ? (const char*)type : "sphere");
  xmlFree(type);
  double size[3] = {0, 0, 0};
  int nsize = mjcf_numbers(c, n, "geom", cls, "size", size, 0, 3);
  mjcf_numbers(c, n, "geom", cls, "pos", g->pos, 3, 3);
  mjcf_orientation(c, n, "geom", cls, g->quat);
  double fromto[6];
  int has_fromto = mjcf_numbers(c, n, "geom", cls, "fromto", fromto, 6, 6) == 6;
  int meshk = -1;
  if (strcmp(t, "plane") == 0) {
    g->type = TF_GEOM_PLANE;
    if (body != 0)
      return mjcf_fail(c, n, "a plane must belong to the worldbody (planes are static)");
  } else if (strcmp(t, "sphere") == 0) {
    g->type = TF_GEOM_SPHERE;
    if (nsize < 1) return mjcf_fail(c, n, "sphere needs size (radius)");
  } else if (strcmp(t, "capsule") == 0 || strcmp(t, "cylinder") == 0) {
    g->type = t[1] == 'a' ? TF_GEOM_CAPSULE : TF_GEOM_CYLINDER;
    if (has_fromto) {
      if (nsize < 1) return mjcf_fail(c, n, "%s with fromto needs size (radius)", t);
      double axis[3] = {fromto[3] - fromto[0], fromto[4] - fromto[1], fromto[5] - fromto[2]};
      double len = tf_vec3_normalize(axis);
      if (len == 0) return mjcf_fail(c, n, "fromto has zero length");
      for (int i = 0; i < 3; i++) g->pos[i] = 0.5 * (fromto[i] + fromto[3 + i]);
      const double z[3] = {0, 0, 1};
      tf_quat_between(g->quat, z, axis);
      size[1] = 0.5 * len;
    } else if (nsize < 2) {
      return mjcf_fail(c, n, "%s needs size (radius, half-length) or fromto", t);
    }
  } else if (strcmp(t, "box") == 0) {
    g->type = TF_GEOM_BOX;
    if (nsize < 3) return mjcf_fail(c, n, "box needs size (three half-sizes)");
  } else if (strcmp(t, "mesh") == 0) {
    g->type = TF_GEOM_MESH;
    xmlChar* mn = mjcf_attr(c, n, "geom", cls, "mesh");
    meshk = mn ? find_mesh(c, (const char*)mn) : -1;
    if (!mn) return mjcf_fail(c, n, "a mesh geom needs mesh=");
    if (meshk < 0) mjcf_fail(c, n, "no asset mesh named '%s'", (const char*)mn);
    xmlFree(mn);
    if (meshk < 0 || load_mesh(c, meshk, n)) return -1;
    g->mesh = c->mesh_id[meshk];
    g->sdf = c->mesh_sdf[meshk];
    // the vertices were moved by -centroid, so the geom frame moves by +centroid: the mesh
    // stays where the file puts it (MuJoCo compensates the same way)
    double off[3];
    tf_quat_rotate(off, g->quat, c->mesh_com[meshk]);
    for (int i = 0; i < 3; i++) g->pos[i] += off[i];
  } else {
    // ellipsoid, hfield, sdf: the engine has no such shape
    mjcf_unsupported(c, "geom type '%s'", t);
    return c->failed ? -1 : 1;
  }
  if (has_fromto && g->type != TF_GEOM_CAPSULE && g->type != TF_GEOM_CYLINDER) {
    mjcf_unsupported(c, "geom fromto on a %s", t);
  }
  if (g->type != TF_GEOM_PLANE && g->type != TF_GEOM_MESH) {
    for (int i = 0; i < 3; i++) {
      if (size[i] < 0) return mjcf_fail(c, n, "negative size");
      g->size[i] = size[i];
    }
  }
  double fr[3] = {1, 0.005, 0.0001};
  int nfr = mjcf_numbers(c, n, "geom", cls, "friction", fr, 1, 3);
  g->friction[0] = fr[0];
  if (nfr >= 2) g->friction[1] = fr[1];
  if (fr[0] < 0 || fr[1] < 0) return mjcf_fail(c, n, "negative friction");
  g->condim = (int)mjcf_number(c, n, "geom", cls, "condim", 3);
  if (g->condim != 1 && g->condim != 3 && g->condim != 4) {
    mjcf_unsupported(c, "geom condim %d", g->condim);
    g->condim = 3;
  }
  double ct = mjcf_number(c, n, "geom", cls, "contype", 1);
  double ca = mjcf_number(c, n, "geom", cls, "conaffinity", 1);
  if (!(ct >= 0 && ca >= 0 && ct <= 4294967295.0 && ca <= 4294967295.0)) {
    return mjcf_fail(c, n, "contype / conaffinity out of range");
  }
  g->contype = (unsigned)ct;
  g->conaffinity = (unsigned)ca;
  g->margin = mjcf_number(c, n, "geom", cls, "margin", 0);
  mjcf_numbers(c, n, "geom", cls, "solref", g->solref, 2, 2);
  double si[5];
  if (mjcf_numbers(c, n, "geom", cls, "solimp", si, 3, 5)) memcpy(g->solimp, si, sizeof(g->solimp));
  double rgba[4];
  if (mjcf_numbers(c, n, "geom", cls, "rgba", rgba, 4, 4)) {
    for (int i = 0; i < 4; i++) g->rgba[i] = (float)fmin(fmax(rgba[i], 0), 1);
  }
  if (c->failed) return -1;
  if (g->type == TF_GEOM_PLANE) return 0;

  // the solid's volume and inertia per unit mass, geom frame
  double r = size[0], h = size[1], vol = 0, in[3] = {0, 0, 0}, full[9] = {0};
  switch (g->type) {
    case TF_GEOM_SPHERE:
      vol = 4.0 / 3 * M_PI * r * r * r;
      in[0] = in[1] = in[2] = 0.4 * r * r;
      break;
    case TF_GEOM_BOX:
      vol = 8 * size[0] * size[1] * size[2];
      in[0] = (size[1] * size[1] + size[2] * size[2]) / 3;
      in[1] = (size[0] * size[0] + size[2] * size[2]) / 3;
      in[2] = (size[0] * size[0] + size[1] * size[1]) / 3;
      break;
    case TF_GEOM_CYLINDER:
      vol = M_PI * r * r * 2 * h;
      in[0] = in[1] = (3 * r * r + 4 * h * h) / 12;
      in[2] = r * r / 2;
      break;
    case TF_GEOM_CAPSULE: {
      // a cylinder of length 2h plus a sphere split into two end caps
      double vc = M_PI * r * r * 2 * h, vs = 4.0 / 3 * M_PI * r * r * r, len = 2 * h;
      vol = vc + vs;
      double ix =
          vc * (len * len / 12 + r * r / 4) + vs * (0.4 * r * r + len * len / 4 + 3 * len * r / 8);
      in[0] = in[1] = vol > 0 ? ix / vol : 0;
      in[2] = vol > 0 ? (vc * r * r / 2 + vs * 0.4 * r * r) / vol : 0;
      break;
    }
    case TF_GEOM_MESH: {
      vol = c->mesh_volume[meshk];
      for (int k = 0; k < 9; k++) full[k] = c->mesh_inertia[meshk][k] / vol;
      break;
    }
    default:
      break;
  }
  double mattr = mjcf_number(c, n, "geom", cls, "mass", NAN);
  if (!isnan(mattr)) {
    if (mattr < 0) return mjcf_fail(c, n, "negative mass");
    *gmass = mattr;
  } else {
    double density = mjcf_number(c, n, "geom", cls, "density", 1000);
    if (density < 0) return mjcf_fail(c, n, "negative density");
    *gmass = density * vol;
  }
  if (g->type != TF_GEOM_MESH) full[0] = in[0], full[4] = in[1], full[8] = in[2];
  for (int k = 0; k < 9; k++) gi[k] = *gmass * full[k];
  return c->failed ? -1 : 0;
}

// one joint of a body, read before the body is added (its ref moves the body frame)
typedef struct parsed_joint {
  tf_joint_def def;  // name and body set when added
  char name[256];
  double ref;  // hinge / slide: MuJoCo's qpos0, the coordinate at which the body is at its XML
               // frame (rad or m); 0 otherwise
  xmlNode* node;
} parsed_joint;

// reads a <joint> / <freejoint> into pj; returns 0, or -1 with the error set
static int read_joint(mjcf_ctx* c, xmlNode* n, int cls, parsed_joint* pj) {
  tf_joint_def j = tf_joint_def_default();
  char* name = pj->name;
  size_t namelen = sizeof(pj->name);
  pj->node = n;
  pj->ref = 0;
  xmlChar* v = xmlGetProp(n, (const xmlChar*)"name");
  if (v) {
    snprintf(name, namelen, "%s", (const char*)v);
  } else {
    snprintf(name, namelen, "#joint%d", c->njoint);
  }
  xmlFree(v);
  c->njoint++;
  int freejoint = mjcf_is(n, "freejoint");
  if (freejoint) {
    static const char* const allowed[] = {"name", NULL};
    mjcf_check_attrs(c, n, allowed);
    j.type = TF_JOINT_FREE;
  } else {
    mjcf_check_attrs(c, n, JOINT_ATTRS);
    xmlChar* type = mjcf_attr(c, n, "joint", cls, "type");
    const char* t = type ? (const char*)type : "hinge";
    if (strcmp(t, "free") == 0) {
      j.type = TF_JOINT_FREE;
    } else if (strcmp(t, "ball") == 0) {
      j.type = TF_JOINT_BALL;
    } else if (strcmp(t, "hinge") == 0) {
      j.type = TF_JOINT_HINGE;
    } else if (strcmp(t, "slide") == 0) {
      j.type = TF_JOINT_SLIDE;
    } else {
      mjcf_fail(c, n, "joint '%s': unknown type '%s'", name, t);
    }
    xmlFree(type);
  }
  if (c->failed) return -1;
  int scalar = j.type == TF_JOINT_HINGE || j.type == TF_JOINT_SLIDE;
  double to_rad = j.type == TF_JOINT_HINGE && c->degree ? M_PI / 180 : 1;
  if (!freejoint) {
    mjcf_numbers(c, n, "joint", cls, "pos", j.pos, 3, 3);
    double axis[3] = {0, 0, 1};
    mjcf_numbers(c, n, "joint", cls, "axis", axis, 3, 3);
    if (scalar && tf_vec3_norm(axis) == 0) {
      return mjcf_fail(c, n, "joint '%s': axis is zero (a %s joint needs one)", name,
                       j.type == TF_JOINT_HINGE ? "hinge" : "slide");
    }
    memcpy(j.axis, axis, sizeof(axis));
    j.damping = mjcf_number(c, n, "joint", cls, "damping", 0);
    j.armature = mjcf_number(c, n, "joint", cls, "armature", 0);
    j.frictionloss = mjcf_number(c, n, "joint", cls, "frictionloss", 0);
    j.stiffness = mjcf_number(c, n, "joint", cls, "stiffness", 0);
    if (j.damping < 0 || j.armature < 0 || j.frictionloss < 0 || j.stiffness < 0) {
      return mjcf_fail(c, n, "joint '%s': negative damping, armature, frictionloss or stiffness",
                       name);
    }
    if (j.type == TF_JOINT_FREE && j.stiffness > 0) mjcf_unsupported(c, "free joint stiffness");
    if (j.type == TF_JOINT_FREE) j.stiffness = 0;
    double range[2];
    int has_range = mjcf_numbers(c, n, "joint", cls, "range", range, 2, 2) == 2;
    int limited = mjcf_tristate(c, n, "joint", cls, "limited");
    // MuJoCo's autolimits: an unset limited follows whether a range is given
    if (limited < 0) limited = has_range;
    if (c->failed) return -1;
    if (limited && !has_range) return mjcf_fail(c, n, "joint '%s': limited without range", name);
    if (limited && scalar) {
      if (!(range[0] < range[1])) return mjcf_fail(c, n, "joint '%s': range is empty", name);
      j.limited = 1;
      j.range[0] = range[0] * to_rad;
      j.range[1] = range[1] * to_rad;
    } else if (limited) {
      mjcf_unsupported(c, "%s joint range", j.type == TF_JOINT_BALL ? "ball" : "free");
    }
    if (scalar) {
      // MuJoCo's joint coordinate: the body is at its XML frame at q = ref, and q starts there
      // (qpos0); range, springref and servo targets are values of the same q, so they pass
      // through as they are (the body frame is moved instead: move_frame_by_refs)
      pj->ref = mjcf_number(c, n, "joint", cls, "ref", 0) * to_rad;
      j.qpos0[0] = pj->ref;
      j.springref = mjcf_number(c, n, "joint", cls, "springref", 0) * to_rad;
    }
  }
  pj->def = j;
  return c->failed ? -1 : 0;
}

// Where MuJoCo puts a body at its XML frame when each hinge / slide coordinate equals its ref
// (T = T_xml J1(q1 - r1) J2(q2 - r2) ...), the engine puts it at its frame at q = 0
// (T = T_body J1(q1) J2(q2) ...). With A_k = J_k(-r_k), which commutes with J_k, MuJoCo's
// product equals T_xml C_0 J'_1(q1) ... J'_n(qn) with C_k = A_{k+1} ... A_n (C_n = identity)
// and J'_k = C_k^-1 J_k C_k, joint k with its anchor and axis mapped by C_k^-1. So the engine
// body frame becomes T_xml C_0 and each joint gets C_k^-1 of its anchor and axis: every q (and with
// it ranges, spring references, servo targets) means what it means in MuJoCo. Nothing changes when
// every ref is 0. A ball joint before a hinge with a ref would be turned by C_k, which its
// quaternion coordinates cannot follow: refused.
static int move_frame_by_refs(mjcf_ctx* c, tf_body_def* def, parsed_joint* pj, int nj) {
  int any = 0;
  for (int k = 0; k < nj; k++) any |= pj[k].ref != 0;
  if (!any) return 0;
  double cq[4] = {1, 0, 0, 0}, ct[3] = {0, 0, 0};  // C_k, a rigid transform
  int moved = 0, turned = 0;
  for (int k = nj - 1; k >= 0; k--) {
    tf_joint_def* j = &pj[k].def;
    if (j->type == TF_JOINT_FREE) continue;
    if (j->type == TF_JOINT_BALL && turned) {
      return mjcf_fail(c, pj[k].node,
                       "joint '%s': a ball joint before a hinge with ref on the same body is "
                       "not supported",
                       pj[k].name);
    }
    double p[3], a[3];
    tf_vec3_copy(p, j->pos);
    tf_vec3_copy(a, j->axis);
    tf_vec3_normalize(a);
    if (moved) {
      // C_k^-1: x -> R^T (x - t)
      double inv[4], d[3];
      tf_quat_conj(inv, cq);
      tf_vec3_sub(d, p, ct);
      tf_quat_rotate(j->pos, inv, d);
      tf_quat_rotate(j->axis, inv, a);
    }
    if (pj[k].ref == 0 || j->type == TF_JOINT_BALL) continue;
    // A_k = J_k(-ref) with the joint's own anchor and axis; C_{k-1} = A_k C_k
    double aq[4] = {1, 0, 0, 0}, at[3];
    if (j->type == TF_JOINT_HINGE) {
      double rp[3];
      tf_quat_from_axis_angle(aq, a, -pj[k].ref);
      tf_quat_rotate(rp, aq, p);
      tf_vec3_sub(at, p, rp);
      turned = 1;
    } else {
      tf_vec3_scale(at, a, -pj[k].ref);
    }
    double nq[4], rt[3];
    tf_quat_mul(nq, aq, cq);
    tf_quat_normalize(nq);
    tf_quat_rotate(rt, aq, ct);
    tf_vec3_add(ct, at, rt);
    memcpy(cq, nq, sizeof(nq));
    moved = 1;
  }
  // T_body = T_xml C_0
  double off[3], q[4];
  tf_quat_rotate(off, def->quat, ct);
  tf_vec3_add(def->pos, def->pos, off);
  tf_quat_mul(q, def->quat, cq);
  tf_quat_normalize(q);
  memcpy(def->quat, q, sizeof(q));
  return 0;
}

// adds a joint read by read_joint to body, and its name for the actuators
static int add_joint(mjcf_ctx* c, parsed_joint* pj, int body) {
  tf_joint_def j = pj->def;
  const char* name = pj->name;
  xmlNode* n = pj->node;
  j.name = name;
  j.body = body;
  int id = tf_builder_add_joint(c->b, &j);
  if (id < 0) return mjcf_fail(c, n, "out of memory");
  if (c->njname == c->capjname) {
    int cap = c->capjname ? 2 * c->capjname : 16;
    char** names = realloc(c->jname, (size_t)cap * sizeof(*names));
    if (names) c->jname = names;
    int* ids = realloc(c->jid, (size_t)cap * sizeof(*ids));
    if (ids) c->jid = ids;
    if (!names || !ids) return mjcf_fail(c, n, "out of memory");
    c->capjname = cap;
  }
  c->jname[c->njname] = strdup(name);
  if (!c->jname[c->njname]) return mjcf_fail(c, n, "out of memory");
  c->jid[c->njname++] = id;
  return 0;
}

// the body's mass, centre of mass and inertia about it: <inertial> if present, else its geoms
static int body_mass(mjcf_ctx* c, xmlNode* n, int childclass, tf_body_def* def) {
  double mass = 0, mc[3] = {0, 0, 0}, io[9] = {0};
  xmlNode* inertial = NULL;
  for (xmlNode* ch = n->children; ch && !c->failed; ch = ch->next) {
    if (mjcf_is(ch, "inertial")) inertial = ch;
    if (!mjcf_is(ch, "geom")) continue;
    tf_geom_def g;
    double gm, gi[9];
    if (geom_def(c, ch, 1, mjcf_element_class(c, ch, childclass), &g, &gm, gi) == 0) {
      mjcf_accumulate(&mass, mc, io, gm, g.pos, g.quat, gi);
    }
  }
  if (c->failed) return -1;
  memset(def->inertia, 0, sizeof(def->inertia));
  memset(def->com, 0, sizeof(def->com));
  if (inertial) {
    mjcf_check_attrs(c, inertial, INERTIAL_ATTRS);
    def->mass = mjcf_number(c, inertial, "", -1, "mass", NAN);
    if (isnan(def->mass)) return mjcf_fail(c, inertial, "needs mass");
    if (def->mass < 0) return mjcf_fail(c, inertial, "negative mass");
    mjcf_numbers(c, inertial, "", -1, "pos", def->com, 3, 3);
    double q[4], d[3] = {0, 0, 0}, full[6];
    mjcf_orientation(c, inertial, "", -1, q);
    if (mjcf_numbers(c, inertial, "", -1, "fullinertia", full, 6, 6)) {
      // MuJoCo's order ixx iyy izz ixy ixz iyz is the engine's
      memcpy(def->inertia, full, sizeof(full));
    } else if (mjcf_numbers(c, inertial, "", -1, "diaginertia", d, 3, 3)) {
      double zero[3] = {0, 0, 0}, rot[9] = {0}, diag[9] = {d[0], 0, 0, 0, d[1], 0, 0, 0, d[2]};
      double m0 = 0, mc0[3] = {0, 0, 0};
      mjcf_accumulate(&m0, mc0, rot, 0, zero, q, diag);
      def->inertia[0] = rot[0], def->inertia[1] = rot[4], def->inertia[2] = rot[8];
      def->inertia[3] = rot[1], def->inertia[4] = rot[2], def->inertia[5] = rot[5];
    } else {
      return mjcf_fail(c, inertial, "needs diaginertia or fullinertia");
    }
    return c->failed ? -1 : 0;
  }
  def->mass = mass;
  if (mass <= 0) return 0;
  for (int i = 0; i < 3; i++) def->com[i] = mc[i] / mass;
  // parallel axis from the body origin to the com
  double d2 = tf_vec3_dot(def->com, def->com);
  double ic[9];
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      ic[3 * i + j] = io[3 * i + j] - mass * ((i == j ? d2 : 0) - def->com[i] * def->com[j]);
    }
  }
  def->inertia[0] = ic[0], def->inertia[1] = ic[4], def->inertia[2] = ic[8];
  def->inertia[3] = ic[1], def->inertia[4] = ic[2], def->inertia[5] = ic[5];
  return 0;
}

static int add_geoms(mjcf_ctx* c, xmlNode* n, int body, int childclass) {
  for (xmlNode* ch = n->children; ch && !c->failed; ch = ch->next) {
    if (!mjcf_is(ch, "geom")) continue;
    mjcf_check_attrs(c, ch, GEOM_ATTRS);
    tf_geom_def g;
    double gm, gi[9];
    if (geom_def(c, ch, body, mjcf_element_class(c, ch, childclass), &g, &gm, gi) != 0) continue;
    char name[256];
    xmlChar* v = xmlGetProp(ch, (const xmlChar*)"name");
    if (v) {
      snprintf(name, sizeof(name), "%s", (const char*)v);
    } else {
      snprintf(name, sizeof(name), "#geom%d", c->ngeom);
    }
    xmlFree(v);
    c->ngeom++;
    g.name = name;
    if (tf_builder_add_geom(c->b, &g) < 0) return mjcf_fail(c, ch, "out of memory");
  }
  return c->failed ? -1 : 0;
}

static int read_bodies(mjcf_ctx* c, xmlNode* n, int parent_info, int parent_id, int childclass);

// one <body>: its frame and mass, then joints, geoms and child bodies
static int read_body(mjcf_ctx* c, xmlNode* n, int parent_info, int parent_id, int childclass) {
  mjcf_check_attrs(c, n, BODY_ATTRS);
  xmlChar* cc = xmlGetProp(n, (const xmlChar*)"childclass");
  if (cc) {
    int k = mjcf_class_index(c, (const char*)cc);
    if (k < 0) mjcf_fail(c, n, "unknown childclass '%s'", (const char*)cc);
    xmlFree(cc);
    if (k < 0) return -1;
    childclass = k;
  }
  tf_body_def def = tf_body_def_default();
  char name[256];
  xmlChar* v = xmlGetProp(n, (const xmlChar*)"name");
  if (v) {
    snprintf(name, sizeof(name), "%s", (const char*)v);
  } else {
    snprintf(name, sizeof(name), "#body%d", c->nbody + 1);
  }
  xmlFree(v);
  def.name = name;
  def.parent = parent_id;
  mjcf_numbers(c, n, "", -1, "pos", def.pos, 3, 3);
  mjcf_orientation(c, n, "", -1, def.quat);
  if (body_mass(c, n, childclass, &def)) return -1;
  // the joints first: their ref moves the body frame
  int nj = 0;
  for (xmlNode* ch = n->children; ch; ch = ch->next) {
    nj += mjcf_is(ch, "joint") || mjcf_is(ch, "freejoint");
  }
  parsed_joint* pj = nj ? calloc((size_t)nj, sizeof(*pj)) : NULL;
  if (nj && !pj) return mjcf_fail(c, n, "out of memory");
  int k = 0, is_free = 0;
  for (xmlNode* ch = n->children; ch && !c->failed; ch = ch->next) {
    if (mjcf_is(ch, "joint") || mjcf_is(ch, "freejoint")) {
      if (read_joint(c, ch, mjcf_element_class(c, ch, childclass), &pj[k]) == 0) {
        is_free |= pj[k].def.type == TF_JOINT_FREE;
      }
      k++;
    }
  }
  if (c->failed || move_frame_by_refs(c, &def, pj, nj)) {
    free(pj);
    return -1;
  }
  double own = def.mass;
  // a massless body (MuJoCo allows one whose subtree has mass) gets a token mass the engine
  // accepts; a moving subtree with no mass at all is refused after the walk
  if (def.mass <= 0) {
    def.mass = 1e-9;
    memset(def.inertia, 0, sizeof(def.inertia));
  }
  int id = tf_builder_add_body(c->b, &def);
  if (id >= 0 && c->nbody == c->capbody) {
    int cap = c->capbody ? 2 * c->capbody : 16;
    body_info* grown = realloc(c->bodies, (size_t)cap * sizeof(*grown));
    if (grown) {
      c->bodies = grown;
      c->capbody = cap;
    }
  }
  if (id < 0 || c->nbody == c->capbody) {
    free(pj);
    return mjcf_fail(c, n, "out of memory");
  }
  int self = c->nbody++;
  c->bodies[self] = (body_info){id, parent_info, is_free, nj > 0, own, own, n};
  for (int i = 0; i < nj && !c->failed; i++) add_joint(c, &pj[i], id);
  free(pj);
  if (!c->failed) add_geoms(c, n, id, childclass);
  if (!c->failed) read_bodies(c, n, self, id, childclass);
  return c->failed ? -1 : 0;
}

// the child bodies of n, and the elements a body may hold that are not loaded
static int read_bodies(mjcf_ctx* c, xmlNode* n, int parent_info, int parent_id, int childclass) {
  for (xmlNode* ch = n->children; ch && !c->failed; ch = ch->next) {
    if (ch->type != XML_ELEMENT_NODE) continue;
    if (mjcf_is(ch, "body")) {
      read_body(c, ch, parent_info, parent_id, childclass);
    } else if (mjcf_is(ch, "inertial") && parent_id == 0) {
      mjcf_unsupported(c, "worldbody <inertial>");
    } else if (mjcf_is(ch, "joint") || mjcf_is(ch, "freejoint")) {
      if (parent_id == 0) mjcf_fail(c, ch, "the worldbody cannot have joints");
    } else if (!mjcf_is(ch, "geom") && !mjcf_is(ch, "inertial")) {
      mjcf_unsupported(c, "<%s>", (const char*)ch->name);
    }
  }
  return c->failed ? -1 : 0;
}

// subtree masses, children before parents (they were added after them), then the check that
// every moving subtree has mass
static int check_masses(mjcf_ctx* c) {
  for (int i = c->nbody - 1; i >= 0; i--) {
    if (c->bodies[i].parent >= 0) c->bodies[c->bodies[i].parent].total += c->bodies[i].total;
  }
  for (int i = 0; i < c->nbody && !c->failed; i++) {
    const body_info* bi = &c->bodies[i];
    if (bi->jointed && !(bi->total > 0)) {
      xmlChar* name = xmlGetProp(bi->node, (const xmlChar*)"name");
      mjcf_fail(c, bi->node, "body '%s' has zero mass and %s", name ? (const char*)name : "",
                bi->free ? "a free joint" : "a joint");
      xmlFree(name);
    }
  }
  return c->failed ? -1 : 0;
}

// ---------------------------------------------------------------- actuators

static int read_actuators(mjcf_ctx* c, xmlNode* n) {
  for (xmlNode* ch = n->children; ch && !c->failed; ch = ch->next) {
    if (ch->type != XML_ELEMENT_NODE) continue;
    tf_actuator_def a = tf_actuator_def_default();
    const char* kind = (const char*)ch->name;
    if (mjcf_is(ch, "motor")) {
      a.type = TF_ACT_MOTOR;
    } else if (mjcf_is(ch, "position")) {
      a.type = TF_ACT_POSITION;
    } else if (mjcf_is(ch, "velocity")) {
      a.type = TF_ACT_VELOCITY;
    } else {
      static const char* const mujoco_types[] = {"general", "intvelocity", "damper", "cylinder",
                                                 "muscle",  "adhesion",    "plugin", NULL};
      int known = 0;
      for (int i = 0; mujoco_types[i] && !known; i++) known = strcmp(kind, mujoco_types[i]) == 0;
      return mjcf_fail(c, ch,
                       known ? "actuator type '%s' is not supported (motor, position, velocity)"
                             : "unknown actuator type '%s'",
                       kind);
    }
    mjcf_check_attrs(c, ch, ACT_ATTRS);
    int cls = mjcf_element_class(c, ch, 0);
    char name[256];
    xmlChar* v = xmlGetProp(ch, (const xmlChar*)"name");
    if (v) {
      snprintf(name, sizeof(name), "%s", (const char*)v);
    } else {
      snprintf(name, sizeof(name), "#actuator%d", c->nactuator);
    }
    xmlFree(v);
    c->nactuator++;
    a.name = name;
    xmlChar* joint = xmlGetProp(ch, (const xmlChar*)"joint");
    if (!joint)
      return mjcf_fail(c, ch, "actuator '%s' needs joint= (other transmissions unsupported)", name);
    a.joint = -1;
    for (int i = 0; i < c->njname && a.joint < 0; i++) {
      if (strcmp(c->jname[i], (const char*)joint) == 0) a.joint = c->jid[i];
    }
    if (a.joint < 0)
      mjcf_fail(c, ch, "actuator '%s': no joint named '%s'", name, (const char*)joint);
    xmlFree(joint);
    double gear[6] = {1, 0, 0, 0, 0, 0};
    mjcf_numbers(c, ch, kind, cls, "gear", gear, 1, 6);
    for (int i = 1; i < 6; i++) {
      if (gear[i] != 0) mjcf_unsupported(c, "actuator gear beyond the first component");
    }
    a.gear = gear[0];
    if (a.type == TF_ACT_POSITION) {
      a.kp = mjcf_number(c, ch, kind, cls, "kp", 1);
      a.kv = mjcf_number(c, ch, kind, cls, "kv", 0);
    } else if (a.type == TF_ACT_VELOCITY) {
      a.kv = mjcf_number(c, ch, kind, cls, "kv", 1);
    }
    if (a.kp < 0 || a.kv < 0) return mjcf_fail(c, ch, "actuator '%s': negative kp or kv", name);
    double range[2];
    int has = mjcf_numbers(c, ch, kind, cls, "forcerange", range, 2, 2) == 2;
    int limited = mjcf_tristate(c, ch, kind, cls, "forcelimited");
    if ((limited < 0 ? has : limited) && has) {
      if (!(range[0] < range[1]))
        return mjcf_fail(c, ch, "actuator '%s': forcerange is empty", name);
      memcpy(a.forcerange, range, sizeof(range));
    }
    has = mjcf_numbers(c, ch, kind, cls, "ctrlrange", range, 2, 2) == 2;
    limited = mjcf_tristate(c, ch, kind, cls, "ctrllimited");
    if ((limited < 0 ? has : limited) && has) {
      if (!(range[0] < range[1]))
        return mjcf_fail(c, ch, "actuator '%s': ctrlrange is empty", name);
      if (a.type == TF_ACT_MOTOR) {
        // a motor's force is its control, so clamping one clamps the other
        if (a.forcerange[0] == 0 && a.forcerange[1] == 0) {
          memcpy(a.forcerange, range, sizeof(range));
        } else {
          a.forcerange[0] = fmax(a.forcerange[0], range[0]);
          a.forcerange[1] = fmin(a.forcerange[1], range[1]);
        }
      } else {
        mjcf_unsupported(c, "%s ctrlrange (controls are not clamped)", kind);
      }
    }
    if (c->failed) return -1;
    if (tf_builder_add_actuator(c->b, &a) < 0) return mjcf_fail(c, ch, "out of memory");
  }
  return c->failed ? -1 : 0;
}

// ---------------------------------------------------------------- files and includes

// reads the regular file at path whole into *data (free it); returns NULL, or the problem
static const char* read_whole(const char* path, char** data, size_t* size, struct stat* st) {
  *data = NULL;
  *size = 0;
  if (stat(path, st) != 0) return "cannot open";
  if (!S_ISREG(st->st_mode)) return "not a regular file";
  _Static_assert(TF_MJCF_MAX_FILE_BYTES == (size_t)64 << 20, "the message below");
  if ((size_t)st->st_size > TF_MJCF_MAX_FILE_BYTES) return "larger than 64 MB";
  FILE* f = fopen(path, "rb");
  if (!f) return "cannot open";
  size_t cap = (size_t)st->st_size + 1;
  char* buf = malloc(cap);
  size_t n = buf ? fread(buf, 1, cap, f) : 0;
  fclose(f);
  if (!buf) return "out of memory";
  // a file that grew past its stat size since (a pipe, a growing log) is refused, not trusted
  if (n == cap) {
    free(buf);
    return "changed while reading";
  }
  *data = buf;
  *size = n;
  return NULL;
}

// no network, no entity substitution (NOENT unset), libxml2's own messages off: the parser
// context keeps the error, which is reported as one line
static const int XML_FLAGS = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING;

// the parser's last error as one line, and its line number
static void xml_error(xmlParserCtxtPtr pc, char* msg, size_t len, int* line) {
  const xmlError* e = xmlCtxtGetLastError(pc);
  snprintf(msg, len, "not an XML document");
  *line = e ? e->line : 0;
  if (e && e->message) {
    snprintf(msg, len, "%s", e->message);
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' ')) msg[--n] = 0;
    // some of libxml2's messages have a second line (the offending bytes)
    for (char* p = msg; *p; p++) {
      if (*p == '\n') *p = ' ';
    }
  }
}

// adds a file entry (path copied); its index, or -1 when out of memory
static int add_file(mjcf_ctx* c, const char* path, int parent, const struct stat* st) {
  if (c->nfile == c->capfile) {
    int cap = c->capfile ? 2 * c->capfile : 8;
    mjcf_file** grown = realloc(c->files, (size_t)cap * sizeof(*grown));
    if (!grown) return -1;
    c->files = grown;
    c->capfile = cap;
  }
  mjcf_file* f = calloc(1, sizeof(*f));
  if (!f || !(f->path = strdup(path))) {
    free(f);
    return -1;
  }
  f->parent = parent;
  if (st) {
    f->known = 1;
    f->dev = (unsigned long long)st->st_dev;
    f->ino = (unsigned long long)st->st_ino;
  }
  c->files[c->nfile] = f;
  return c->nfile++;
}

static void mark_tree(xmlNode* n, mjcf_file* f) {
  for (; n; n = n->next) {
    n->_private = f;
    if (n->type == XML_ELEMENT_NODE) mark_tree(n->children, f);
  }
}

// <include file>: the children of the file's root <mujoco>, copied in place of the element
// (MuJoCo's meta-element; file is relative to the main model's folder, nested includes are
// expanded as the walk reaches them, a file is included at most once and never inside itself).
// Returns the first node copied in (the walk goes on from there), else the element's next.
static xmlNode* include_file(mjcf_ctx* c, xmlDoc* doc, xmlNode* inc) {
  static const char* const allowed[] = {"file", NULL};
  mjcf_check_attrs(c, inc, allowed);
  const mjcf_file* from = inc->_private;
  int parent = 0;
  for (int i = 0; from && i < c->nfile; i++) {
    if (c->files[i] == from) parent = i;
  }
  xmlChar* file = xmlGetProp(inc, (const xmlChar*)"file");
  if (!file || !file[0]) {
    xmlFree(file);
    mjcf_fail(c, inc, "needs file=");
    return NULL;
  }
  char path[2048];
  const char* f = (const char*)file;
  if (f[0] == '/' || strcmp(c->dir, ".") == 0) {
    snprintf(path, sizeof(path), "%s", f);
  } else {
    snprintf(path, sizeof(path), "%s/%s", c->dir, f);
  }
  xmlFree(file);
  int depth = 0;
  for (int i = parent; i > 0; i = c->files[i]->parent) depth++;
  if (depth >= MJCF_MAX_INCLUDE_DEPTH) {
    mjcf_fail(c, inc, "'%s': includes nested more than %d deep", path, MJCF_MAX_INCLUDE_DEPTH);
    return NULL;
  }
  char* data;
  size_t size;
  struct stat st;
  const char* problem = read_whole(path, &data, &size, &st);
  if (problem) {
    mjcf_fail(c, inc, "included file '%s': %s", path, problem);
    return NULL;
  }
  for (int i = 0; i < c->nfile; i++) {
    const mjcf_file* g = c->files[i];
    if (!g->known || g->dev != (unsigned long long)st.st_dev ||
        g->ino != (unsigned long long)st.st_ino) {
      continue;
    }
    int open = 0;
    for (int k = parent; k >= 0 && !open; k = c->files[k]->parent) open = k == i;
    if (open) {
      mjcf_fail(c, inc, "'%s' includes '%s' again (an include cycle)", from ? from->path : c->file,
                path);
    } else {
      mjcf_fail(c, inc, "'%s' is already included (a file is included at most once)", path);
    }
    free(data);
    return NULL;
  }
  xmlParserCtxtPtr pc = xmlNewParserCtxt();
  xmlDocPtr part = pc ? xmlCtxtReadMemory(pc, data, (int)size, path, NULL, XML_FLAGS) : NULL;
  free(data);
  xmlNode* root = part ? xmlDocGetRootElement(part) : NULL;
  xmlNode* first = NULL;
  int k = -1;
  if (!pc) {
    mjcf_fail(c, inc, "out of memory");
  } else if (!root) {
    char msg[256];
    int line;
    xml_error(pc, msg, sizeof(msg), &line);
    mjcf_fail(c, inc, "included file %s:%d: malformed XML: %s", path, line, msg);
  } else if (!mjcf_is(root, "mujoco")) {
    mjcf_fail(c, inc, "included file '%s': the root element is <%s>, not <mujoco>", path,
              (const char*)root->name);
  } else if ((k = add_file(c, path, parent, &st)) < 0) {
    mjcf_fail(c, inc, "out of memory");
  } else {
    // elements only: text and comments mean nothing in MJCF (and adjacent text would merge)
    for (xmlNode* ch = root->children; ch && !c->failed; ch = ch->next) {
      if (ch->type != XML_ELEMENT_NODE) continue;
      xmlNode* copy = xmlDocCopyNode(ch, doc, 1);
      if (!copy) {
        mjcf_fail(c, inc, "out of memory");
        break;
      }
      copy->_private = c->files[k];
      mark_tree(copy->children, c->files[k]);
      xmlAddPrevSibling(inc, copy);
      if (!first) first = copy;
    }
  }
  xmlFreeDoc(part);
  xmlFreeParserCtxt(pc);
  if (c->failed) return NULL;
  xmlNode* next = first ? first : inc->next;
  xmlUnlinkNode(inc);
  xmlFreeNode(inc);
  return next;
}

// replaces every <include> below n by what it includes, depth first in document order
static int expand_includes(mjcf_ctx* c, xmlDoc* doc, xmlNode* n) {
  xmlNode* ch = n->children;
  while (ch && !c->failed) {
    if (mjcf_is(ch, "include")) {
      ch = include_file(c, doc, ch);
    } else {
      if (ch->type == XML_ELEMENT_NODE) expand_includes(c, doc, ch);
      ch = ch->next;
    }
  }
  return c->failed ? -1 : 0;
}

// ---------------------------------------------------------------- the document

static int read_model(mjcf_ctx* c, xmlNode* root, const tf_mjcf_options* opt) {
  if (!mjcf_is(root, "mujoco")) return mjcf_fail(c, root, "the root element must be <mujoco>");
  struct stat st;
  if (add_file(c, c->file, -1, stat(c->file, &st) == 0 ? &st : NULL) < 0) {
    return mjcf_fail(c, NULL, "out of memory");
  }
  if (expand_includes(c, root->doc, root)) return -1;
  static const char* const allowed[] = {"model", NULL};
  mjcf_check_attrs(c, root, allowed);
  tf_option o = tf_option_default();
  o.timestep = 0.002;  // MuJoCo's default
  int integrator = TF_INTEGRATOR_EULER;
  // first the elements everything else depends on, whatever their order in the file
  for (xmlNode* ch = root->children; ch && !c->failed; ch = ch->next) {
    if (mjcf_is(ch, "compiler")) {
      read_compiler(c, ch);
    } else if (mjcf_is(ch, "option")) {
      read_option(c, ch, &o, &integrator);
    } else if (mjcf_is(ch, "default")) {
      if (c->ncls > 0) {
        mjcf_fail(c, ch, "more than one top-level <default>");
      } else {
        read_defaults(c, ch, -1);
      }
    } else if (mjcf_is(ch, "asset")) {
      read_assets(c, ch);
    }
  }
  if (c->failed) return -1;
  if (!isnan(opt->timestep)) o.timestep = opt->timestep;
  if (opt->integrator >= 0) integrator = opt->integrator;
  o.integrator = (tf_integrator)integrator;
  if (opt->solver >= 0) o.solver = (tf_solver_type)opt->solver;
  tf_builder_set_option(c->b, &o);
  for (xmlNode* ch = root->children; ch && !c->failed; ch = ch->next) {
    if (mjcf_is(ch, "worldbody")) {
      add_geoms(c, ch, 0, 0);
      if (!c->failed) read_bodies(c, ch, -1, 0, 0);
    }
  }
  for (xmlNode* ch = root->children; ch && !c->failed; ch = ch->next) {
    if (mjcf_is(ch, "actuator")) read_actuators(c, ch);
  }
  for (xmlNode* ch = root->children; ch && !c->failed; ch = ch->next) {
    if (ch->type != XML_ELEMENT_NODE) continue;
    if (!mjcf_is(ch, "compiler") && !mjcf_is(ch, "option") && !mjcf_is(ch, "default") &&
        !mjcf_is(ch, "asset") && !mjcf_is(ch, "worldbody") && !mjcf_is(ch, "actuator")) {
      mjcf_unsupported(c, "<%s>", (const char*)ch->name);
    }
  }
  if (c->failed) return -1;
  return check_masses(c);
}

tf_mjcf_options tf_mjcf_options_default(void) {
  tf_mjcf_options o = {NAN, -1, -1};
  return o;
}

tf_model* tf_mjcf_parse(const char* data, size_t size, const char* name, const char* dir,
                        const tf_mjcf_options* opt, char* err, size_t errlen, char* unsup,
                        size_t unsuplen) {
  tf_mjcf_options def = tf_mjcf_options_default();
  if (!opt) opt = &def;
  if (unsup && unsuplen) unsup[0] = 0;
  if (size > TF_MJCF_MAX_FILE_BYTES || size > (size_t)INT32_MAX) {
    snprintf(err, errlen, "%s: larger than %zu MB", name, TF_MJCF_MAX_FILE_BYTES >> 20);
    return NULL;
  }
  mjcf_ctx* c = calloc(1, sizeof(*c));
  xmlParserCtxtPtr pc = xmlNewParserCtxt();
  if (!c || !pc) {
    snprintf(err, errlen, "%s: out of memory", name);
    free(c);
    xmlFreeParserCtxt(pc);
    return NULL;
  }
  c->file = name;
  c->dir = dir ? dir : ".";
  c->err = err;
  c->errlen = errlen;
  c->degree = 1;
  memcpy(c->eulerseq, "xyz", 4);
  xmlDocPtr doc = xmlCtxtReadMemory(pc, data, (int)size, name, NULL, XML_FLAGS);
  tf_model* m = NULL;
  if (!doc || !xmlDocGetRootElement(doc)) {
    char msg[256];
    int line;
    xml_error(pc, msg, sizeof(msg), &line);
    snprintf(err, errlen, "%s:%d: malformed XML: %s", name, line, msg);
  } else {
    c->b = tf_builder_create();
    if (!c->b) {
      snprintf(err, errlen, "%s: out of memory", name);
    } else if (read_model(c, xmlDocGetRootElement(doc), opt) == 0) {
      char msg[400];
      m = tf_builder_compile(c->b, msg, sizeof(msg));
      if (!m) {
        // the message may quote a name from the file, which may hold any character
        for (char* p = msg; *p; p++) {
          if ((unsigned char)*p < 0x20) *p = ' ';
        }
        snprintf(err, errlen, "%s: %s", name, msg);
      }
    }
  }
  if (m && unsup && unsuplen) {
    size_t at = 0;
    for (int i = 0; i < c->nunsupported && at < unsuplen; i++) {
      int k = snprintf(unsup + at, unsuplen - at, "%s%s", i ? ", " : "", c->unsupported[i]);
      if (k < 0) break;
      at += (size_t)k;
    }
    if (c->unsupported_more && at < unsuplen) snprintf(unsup + at, unsuplen - at, ", ...");
  }
  if (c->b) tf_builder_destroy(c->b);
  for (int i = 0; i < c->njname; i++) free(c->jname[i]);
  free(c->jname);
  free(c->jid);
  free(c->bodies);
  for (int i = 0; i < c->nfile; i++) {
    free(c->files[i]->path);
    free(c->files[i]);
  }
  free(c->files);
  free(c);
  xmlFreeDoc(doc);
  xmlFreeParserCtxt(pc);
  return m;
}

tf_model* tf_mjcf_load(const char* path, const tf_mjcf_options* opt, char* err, size_t errlen,
                       char* unsup, size_t unsuplen) {
  if (unsup && unsuplen) unsup[0] = 0;
  char* data;
  size_t n;
  struct stat st;
  const char* problem = read_whole(path, &data, &n, &st);
  if (problem) {
    snprintf(err, errlen, "%s: %s", path, problem);
    return NULL;
  }
  char dir[1024];
  snprintf(dir, sizeof(dir), "%s", path);
  char* slash = strrchr(dir, '/');
  if (slash) {
    *slash = 0;
  } else {
    snprintf(dir, sizeof(dir), ".");
  }
  tf_model* m = tf_mjcf_parse(data, n, path, dir, opt, err, errlen, unsup, unsuplen);
  free(data);
  return m;
}
