// Reading a URDF file into a tf_urdf (urdf.h): libxml2 parses it into a tree (no network, no
// entity substitution, its own messages off and read back from the parser context), links and
// joints are read in file order, then the tree is checked (names unique, every joint's links
// present, one root, no link with two parents) and the serial chain to the tcp link found.
#include "urdf.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tf_math.h"

#define MAX_LINKS 1024  // a humanoid has ~100; more is not a robot description
#define PATH_LEN 2048

typedef struct urdf_ctx {
  const char* file;  // for messages
  const char* dir;   // where relative mesh paths start
  char* err;
  size_t errlen;
  int failed;
  tf_urdf* u;
} urdf_ctx;

// control characters (a name's newline, libxml2's two-line messages) become spaces, so that
// every message stays one line
static void one_line(char* s) {
  for (; *s; s++) {
    if ((unsigned char)*s < 0x20 || *s == 0x7f) *s = ' ';
  }
}

// "<joint name='j3'>" for an element with a name, "<joint name='j3'> <axis>" for an unnamed
// element inside a named one: the file's line and this say where the problem is
static void element_label(const xmlNode* n, char* out, size_t len) {
  xmlChar* name = xmlGetProp(n, (const xmlChar*)"name");
  const xmlNode* up = n->parent;
  if (!name && up && up->type == XML_ELEMENT_NODE) {
    // <collision> / <inertial> inside a link: the link names the place
    for (int depth = 0; depth < 3 && up && up->type == XML_ELEMENT_NODE && !name; depth++) {
      name = xmlGetProp(up, (const xmlChar*)"name");
      if (!name) up = up->parent;
    }
    if (name) {
      snprintf(out, len, "<%s name='%.80s'> <%s>", (const char*)up->name, (const char*)name,
               (const char*)n->name);
      xmlFree(name);
      return;
    }
  }
  if (name) {
    snprintf(out, len, "<%s name='%.80s'>", (const char*)n->name, (const char*)name);
  } else {
    snprintf(out, len, "<%s>", (const char*)n->name);
  }
  xmlFree(name);
}

// the first error wins: later ones are usually consequences
static int fail(urdf_ctx* c, const xmlNode* n, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(urdf_ctx* c, const xmlNode* n, const char* fmt, ...) {
  if (c->failed) return -1;
  c->failed = 1;
  char msg[512], label[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  if (n) {
    element_label(n, label, sizeof(label));
    snprintf(c->err, c->errlen, "%s:%ld: %s: %s", c->file, xmlGetLineNo(n), label, msg);
  } else {
    snprintf(c->err, c->errlen, "%s: %s", c->file, msg);
  }
  one_line(c->err);
  return -1;
}

static int is_element(const xmlNode* n, const char* name) {
  return n->type == XML_ELEMENT_NODE && strcmp((const char*)n->name, name) == 0;
}

// the first child element named name, NULL if none; a second one is an error (URDF allows one)
static xmlNode* only_child(urdf_ctx* c, const xmlNode* n, const char* name) {
  xmlNode* found = NULL;
  for (xmlNode* ch = n->children; ch; ch = ch->next) {
    if (!is_element(ch, name)) continue;
    if (found) {
      fail(c, ch, "a second <%s> (one is allowed here)", name);
      return NULL;
    }
    found = ch;
  }
  return found;
}

// exactly count finite numbers from attribute attr of n into out; 1 read, 0 absent (out
// untouched), -1 bad (the error set)
static int numbers(urdf_ctx* c, const xmlNode* n, const char* attr, double* out, int count) {
  xmlChar* v = xmlGetProp(n, (const xmlChar*)attr);
  if (!v) return 0;
  const char* s = (const char*)v;
  int got = 0, bad = 0;
  double tmp[8];
  while (!bad) {
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
    if (!*s) break;
    char* end = NULL;
    double x = strtod(s, &end);
    if (end == s || !isfinite(x) || got == count) {
      bad = 1;
      break;
    }
    tmp[got++] = x;
    s = end;
  }
  if (bad || got != count) {
    fail(c, n, "%s='%.60s' must be %d finite number%s", attr, (const char*)v, count,
         count > 1 ? "s" : "");
    xmlFree(v);
    return -1;
  }
  xmlFree(v);
  memcpy(out, tmp, sizeof(double) * (size_t)count);
  return 1;
}

// a required single number
static int required_number(urdf_ctx* c, const xmlNode* n, const char* attr, double* out) {
  int r = numbers(c, n, attr, out, 1);
  if (r == 0) return fail(c, n, "%s= is missing", attr);
  return r < 0 ? -1 : 0;
}

// URDF's rpy: fixed axes x, then y, then z: R = Rz(yaw) Ry(pitch) Rx(roll)
static void rpy_quat(double q[4], const double rpy[3]) {
  double qx[4] = {cos(0.5 * rpy[0]), sin(0.5 * rpy[0]), 0, 0};
  double qy[4] = {cos(0.5 * rpy[1]), 0, sin(0.5 * rpy[1]), 0};
  double qz[4] = {cos(0.5 * rpy[2]), 0, 0, sin(0.5 * rpy[2])};
  double t[4];
  tf_quat_mul(t, qz, qy);
  tf_quat_mul(q, t, qx);
}

// an <origin xyz rpy> child of n (absent: identity)
static int read_origin(urdf_ctx* c, const xmlNode* n, double pos[3], double quat[4]) {
  pos[0] = pos[1] = pos[2] = 0;
  quat[0] = 1, quat[1] = quat[2] = quat[3] = 0;
  xmlNode* o = only_child(c, n, "origin");
  if (c->failed) return -1;
  if (!o) return 0;
  double rpy[3] = {0, 0, 0};
  if (numbers(c, o, "xyz", pos, 3) < 0 || numbers(c, o, "rpy", rpy, 3) < 0) return -1;
  rpy_quat(quat, rpy);
  return 0;
}

static char* dup_text(const char* s) {
  size_t n = strlen(s) + 1;
  char* d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

// ---------------------------------------------------------------- links

// R I R^T of a symmetric inertia (ixx iyy izz ixy ixz iyz) by the rotation q
static void rotate_inertia(double out[6], const double in[6], const double q[4]) {
  double r[9], full[9] = {in[0], in[3], in[4], in[3], in[1], in[5], in[4], in[5], in[2]};
  tf_quat_to_mat(r, q);
  double t[9], o[9];
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      double s = 0;
      for (int k = 0; k < 3; k++) s += r[3 * i + k] * full[3 * k + j];
      t[3 * i + j] = s;
    }
  }
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      double s = 0;
      for (int k = 0; k < 3; k++) s += t[3 * i + k] * r[3 * j + k];
      o[3 * i + j] = s;
    }
  }
  out[0] = o[0], out[1] = o[4], out[2] = o[8], out[3] = o[1], out[4] = o[2], out[5] = o[5];
}

static int read_inertial(urdf_ctx* c, const xmlNode* n, tf_urdf_link* link) {
  double pos[3], quat[4];
  if (read_origin(c, n, pos, quat)) return -1;
  xmlNode* mass = only_child(c, n, "mass");
  if (c->failed) return -1;
  if (!mass) return fail(c, n, "<mass> is missing");
  if (required_number(c, mass, "value", &link->mass)) return -1;
  if (!(link->mass > 0)) return fail(c, mass, "mass must be > 0 kg (got %g)", link->mass);
  xmlNode* in = only_child(c, n, "inertia");
  if (c->failed) return -1;
  if (!in) return fail(c, n, "<inertia> is missing");
  static const char* const keys[6] = {"ixx", "iyy", "izz", "ixy", "ixz", "iyz"};
  double inertia[6];
  for (int k = 0; k < 6; k++) {
    if (required_number(c, in, keys[k], &inertia[k])) return -1;
  }
  for (int k = 0; k < 3; k++) {
    if (inertia[k] < 0) return fail(c, in, "%s must be >= 0 kg m^2 (got %g)", keys[k], inertia[k]);
  }
  memcpy(link->com, pos, sizeof(link->com));
  // the identity leaves the file's numbers as written (rotate_inertia would too, but a copy
  // says so)
  if (quat[0] == 1) {
    memcpy(link->inertia, inertia, sizeof(inertia));
  } else {
    rotate_inertia(link->inertia, inertia, quat);
  }
  return 0;
}

// a mesh's file: absolute, file://, package://NAME/REST (DIR/NAME/REST when it exists, else
// DIR/REST: a description's package is most often the URDF's own folder or its parent's),
// else relative to the URDF's folder
static void mesh_path(const urdf_ctx* c, const char* f, char* out, size_t len) {
  if (strncmp(f, "file://", 7) == 0) f += 7;
  if (strncmp(f, "package://", 10) == 0) {
    const char* rest = f + 10;
    struct stat st;
    snprintf(out, len, "%s/%s", c->dir, rest);
    if (stat(out, &st) == 0) return;
    const char* slash = strchr(rest, '/');
    snprintf(out, len, "%s/%s", c->dir, slash ? slash + 1 : rest);
    return;
  }
  if (f[0] == '/') {
    snprintf(out, len, "%s", f);
  } else {
    snprintf(out, len, "%s/%s", c->dir, f);
  }
}

static int read_mesh(urdf_ctx* c, const xmlNode* n, tf_urdf_geom* g) {
  xmlChar* file = xmlGetProp(n, (const xmlChar*)"filename");
  if (!file) return fail(c, n, "filename= is missing");
  char path[PATH_LEN], msg[512];
  mesh_path(c, (const char*)file, path, sizeof(path));
  xmlFree(file);
  double scale[3] = {1, 1, 1};
  // scale is "x y z"; one number for all three is a common slip, read as meant
  xmlChar* sv = xmlGetProp(n, (const xmlChar*)"scale");
  int one = sv && !strchr((const char*)sv, ' ');
  xmlFree(sv);
  if (numbers(c, n, "scale", scale, one ? 1 : 3) < 0) return -1;
  if (one) scale[1] = scale[2] = scale[0];
  if (!(scale[0] > 0 && scale[1] > 0 && scale[2] > 0)) {
    return fail(c, n, "scale must be positive");
  }
  struct stat st;
  if (stat(path, &st) != 0) return fail(c, n, "mesh file '%s' does not exist", path);
  if (tf_mesh_read(&g->mesh, path, msg, sizeof(msg))) return fail(c, n, "%s", msg);
  for (int v = 0; v < g->mesh.nvert; v++) {
    for (int k = 0; k < 3; k++) g->mesh.vert[3 * v + k] *= scale[k];
  }
  return 0;
}

static int read_geometry(urdf_ctx* c, const xmlNode* n, tf_urdf_geom* g) {
  xmlNode* shape = NULL;
  for (xmlNode* ch = n->children; ch; ch = ch->next) {
    if (ch->type != XML_ELEMENT_NODE) continue;
    if (shape) return fail(c, ch, "a second shape in one <geometry>");
    shape = ch;
  }
  if (!shape) return fail(c, n, "no shape (box, cylinder, sphere or mesh)");
  const char* t = (const char*)shape->name;
  if (strcmp(t, "box") == 0) {
    g->shape = TF_URDF_BOX;
    double size[3];
    int r = numbers(c, shape, "size", size, 3);
    if (r == 0) return fail(c, shape, "size= is missing");
    if (r < 0) return -1;
    for (int k = 0; k < 3; k++) {
      if (!(size[k] > 0)) return fail(c, shape, "size must be positive");
      g->size[k] = 0.5 * size[k];
    }
  } else if (strcmp(t, "cylinder") == 0) {
    g->shape = TF_URDF_CYLINDER;
    double length;
    if (required_number(c, shape, "radius", &g->size[0]) ||
        required_number(c, shape, "length", &length)) {
      return -1;
    }
    if (!(g->size[0] > 0 && length > 0)) return fail(c, shape, "radius and length must be > 0");
    g->size[1] = 0.5 * length;
  } else if (strcmp(t, "sphere") == 0) {
    g->shape = TF_URDF_SPHERE;
    if (required_number(c, shape, "radius", &g->size[0])) return -1;
    if (!(g->size[0] > 0)) return fail(c, shape, "radius must be > 0");
  } else if (strcmp(t, "mesh") == 0) {
    g->shape = TF_URDF_MESH;
    return read_mesh(c, shape, g);
  } else {
    return fail(c, shape, "unknown shape (URDF has box, cylinder, sphere and mesh)");
  }
  return 0;
}

static int read_link(urdf_ctx* c, const xmlNode* n, tf_urdf_link* link) {
  link->parent_joint = -1;
  link->line = xmlGetLineNo(n);
  xmlChar* name = xmlGetProp(n, (const xmlChar*)"name");
  if (!name || !name[0]) {
    xmlFree(name);
    return fail(c, n, "name= is missing");
  }
  link->name = dup_text((const char*)name);
  xmlFree(name);
  if (!link->name) return fail(c, n, "out of memory");
  xmlNode* inertial = only_child(c, n, "inertial");
  if (c->failed || (inertial && read_inertial(c, inertial, link))) return -1;
  int count = 0;
  for (xmlNode* ch = n->children; ch; ch = ch->next) count += is_element(ch, "collision");
  if (count == 0) return 0;
  link->geom = calloc((size_t)count, sizeof(tf_urdf_geom));
  if (!link->geom) return fail(c, n, "out of memory");
  for (xmlNode* ch = n->children; ch; ch = ch->next) {
    if (!is_element(ch, "collision")) continue;
    tf_urdf_geom* g = &link->geom[link->ngeom++];
    g->line = xmlGetLineNo(ch);
    if (read_origin(c, ch, g->pos, g->quat)) return -1;
    xmlNode* geometry = only_child(c, ch, "geometry");
    if (c->failed) return -1;
    if (!geometry) return fail(c, ch, "<geometry> is missing");
    if (read_geometry(c, geometry, g)) return -1;
  }
  return 0;
}

// ---------------------------------------------------------------- joints

static int read_joint_type(urdf_ctx* c, const xmlNode* n, tf_urdf_joint* j) {
  xmlChar* type = xmlGetProp(n, (const xmlChar*)"type");
  if (!type) return fail(c, n, "type= is missing");
  static const char* const names[] = {"revolute", "continuous", "prismatic", "fixed"};
  int found = -1;
  for (int k = 0; k < 4; k++) {
    if (strcmp((const char*)type, names[k]) == 0) found = k;
  }
  if (found < 0) {
    fail(c, n, "joint type '%.40s' is not revolute, continuous, prismatic or fixed%s",
         (const char*)type,
         strcmp((const char*)type, "floating") == 0 || strcmp((const char*)type, "planar") == 0
             ? " (an arm's joints have one degree of freedom)"
             : "");
    xmlFree(type);
    return -1;
  }
  xmlFree(type);
  j->type = (tf_urdf_joint_type)found;
  return 0;
}

// <parent link=...> or <child link=...>: the link's index, -1 with the error set
static int joint_link(urdf_ctx* c, const xmlNode* n, const char* which) {
  xmlNode* e = only_child(c, n, which);
  if (c->failed) return -1;
  if (!e) return fail(c, n, "<%s link=...> is missing", which);
  xmlChar* name = xmlGetProp(e, (const xmlChar*)"link");
  if (!name) return fail(c, e, "link= is missing");
  for (int i = 0; i < c->u->nlink; i++) {
    if (strcmp(c->u->link[i].name, (const char*)name) == 0) {
      xmlFree(name);
      return i;
    }
  }
  fail(c, e, "no link named '%.80s'", (const char*)name);
  xmlFree(name);
  return -1;
}

static int read_limits(urdf_ctx* c, const xmlNode* n, tf_urdf_joint* j) {
  xmlNode* limit = only_child(c, n, "limit");
  if (c->failed) return -1;
  int moving_limited = j->type == TF_URDF_REVOLUTE || j->type == TF_URDF_PRISMATIC;
  if (!limit) {
    if (moving_limited)
      return fail(c, n, "a %s joint needs <limit lower upper effort velocity>",
                  j->type == TF_URDF_REVOLUTE ? "revolute" : "prismatic");
    return 0;
  }
  if (numbers(c, limit, "effort", &j->effort, 1) < 0 ||
      numbers(c, limit, "velocity", &j->velocity, 1) < 0) {
    return -1;
  }
  if (j->effort < 0 || j->velocity < 0) return fail(c, limit, "effort and velocity must be >= 0");
  if (!moving_limited) return 0;
  if (numbers(c, limit, "lower", &j->lower, 1) < 0 ||
      numbers(c, limit, "upper", &j->upper, 1) < 0) {
    return -1;
  }
  if (!(j->lower < j->upper)) {
    return fail(c, limit, "lower (%g) must be below upper (%g)", j->lower, j->upper);
  }
  j->limited = 1;
  return 0;
}

static int read_joint(urdf_ctx* c, const xmlNode* n, tf_urdf_joint* j) {
  j->line = xmlGetLineNo(n);
  j->parent = j->child = -1;
  xmlChar* name = xmlGetProp(n, (const xmlChar*)"name");
  if (!name || !name[0]) {
    xmlFree(name);
    return fail(c, n, "name= is missing");
  }
  j->name = dup_text((const char*)name);
  xmlFree(name);
  if (!j->name) return fail(c, n, "out of memory");
  if (read_joint_type(c, n, j) || read_origin(c, n, j->pos, j->quat)) return -1;
  if ((j->parent = joint_link(c, n, "parent")) < 0) return -1;
  if ((j->child = joint_link(c, n, "child")) < 0) return -1;
  if (j->parent == j->child) return fail(c, n, "parent and child are the same link");
  j->axis[0] = 1, j->axis[1] = j->axis[2] = 0;  // URDF's default
  xmlNode* axis = only_child(c, n, "axis");
  if (c->failed) return -1;
  if (axis && numbers(c, axis, "xyz", j->axis, 3) < 0) return -1;
  if (j->type != TF_URDF_FIXED && !(tf_vec3_normalize(j->axis) > 1e-9)) {
    return fail(c, axis ? axis : n, "the axis has zero length");
  }
  if (read_limits(c, n, j)) return -1;
  xmlNode* dyn = only_child(c, n, "dynamics");
  if (c->failed) return -1;
  if (dyn && (numbers(c, dyn, "damping", &j->damping, 1) < 0 ||
              numbers(c, dyn, "friction", &j->friction, 1) < 0)) {
    return -1;
  }
  if (j->damping < 0 || j->friction < 0) return fail(c, dyn, "damping and friction must be >= 0");
  return 0;
}

// ---------------------------------------------------------------- the tree and the chain

static int is_moving(const tf_urdf_joint* j) { return j->type != TF_URDF_FIXED; }

int tf_urdf_past_tcp(const tf_urdf* u, int link) {
  for (int at = link, steps = 0; u->link[at].parent_joint >= 0 && steps <= u->nlink; steps++) {
    at = u->joint[u->link[at].parent_joint].parent;
    if (at == u->tcp) return 1;
  }
  return 0;
}

// the chain from the root to u->tcp: u->chain filled, or -1 with the error set
static int find_chain(urdf_ctx* c, const xmlNode* robot) {
  tf_urdf* u = c->u;
  int moving[MAX_LINKS], n = 0;
  char* on_chain = calloc((size_t)u->njoint + 1, 1);
  if (!on_chain) return fail(c, robot, "out of memory");
  for (int l = u->tcp; u->link[l].parent_joint >= 0;) {
    int j = u->link[l].parent_joint;
    on_chain[j] = 1;
    if (is_moving(&u->joint[j])) moving[n++] = j;
    l = u->joint[j].parent;
  }
  int off = -1;
  for (int j = 0; j < u->njoint && off < 0; j++) {
    // what hangs past the tcp link (a file's own fingers) is left out: the hand replaces it
    int past = u->joint[j].parent == u->tcp || tf_urdf_past_tcp(u, u->joint[j].parent);
    if (!on_chain[j] && !past && is_moving(&u->joint[j])) off = j;
  }
  free(on_chain);
  if (off >= 0) {
    return fail(c, robot,
                "joint '%.80s' (line %ld) moves but is off the chain from '%.80s' to '%.80s': a "
                "serial arm's other links may only be fixed to it",
                u->joint[off].name, u->joint[off].line, u->link[u->root].name,
                u->link[u->tcp].name);
  }
  if (n != TF_PANDA_NJOINT) {
    return fail(c, robot,
                "the chain from '%.80s' to '%.80s' has %d moving joints; the controllers drive "
                "%d",
                u->link[u->root].name, u->link[u->tcp].name, n, TF_PANDA_NJOINT);
  }
  for (int i = 0; i < n; i++) u->chain[i] = moving[n - 1 - i];
  return 0;
}

static int find_tcp(urdf_ctx* c, const xmlNode* robot, const char* tcp) {
  tf_urdf* u = c->u;
  if (tcp) {
    for (int l = 0; l < u->nlink; l++) {
      if (strcmp(u->link[l].name, tcp) == 0) return u->tcp = l, 0;
    }
    return fail(c, robot, "no link named '%.80s' (the tcp)", tcp);
  }
  int leaves = 0, first = -1, second = -1;
  for (int l = 0; l < u->nlink; l++) {
    int parent_of_any = 0;
    for (int j = 0; j < u->njoint && !parent_of_any; j++) parent_of_any = u->joint[j].parent == l;
    if (parent_of_any) continue;
    if (leaves++ == 0) {
      first = l;
    } else if (second < 0) {
      second = l;
    }
  }
  if (leaves != 1) {
    return fail(c, robot,
                "%d links end the tree ('%.60s', '%.60s'%s): name the tcp link (FILE.urdf#LINK)",
                leaves, u->link[first].name, u->link[second].name, leaves > 2 ? ", ..." : "");
  }
  u->tcp = first;
  return 0;
}

static int check_tree(urdf_ctx* c, const xmlNode* robot, const char* tcp) {
  tf_urdf* u = c->u;
  for (int a = 0; a < u->nlink; a++) {
    for (int b = a + 1; b < u->nlink; b++) {
      if (strcmp(u->link[a].name, u->link[b].name) == 0) {
        return fail(c, robot, "two links named '%.80s' (lines %ld and %ld)", u->link[a].name,
                    u->link[a].line, u->link[b].line);
      }
    }
  }
  for (int a = 0; a < u->njoint; a++) {
    for (int b = a + 1; b < u->njoint; b++) {
      if (strcmp(u->joint[a].name, u->joint[b].name) == 0) {
        return fail(c, robot, "two joints named '%.80s' (lines %ld and %ld)", u->joint[a].name,
                    u->joint[a].line, u->joint[b].line);
      }
    }
  }
  for (int j = 0; j < u->njoint; j++) {
    tf_urdf_link* child = &u->link[u->joint[j].child];
    if (child->parent_joint >= 0) {
      return fail(c, robot, "link '%.80s' is the child of joints '%.60s' and '%.60s'", child->name,
                  u->joint[child->parent_joint].name, u->joint[j].name);
    }
    child->parent_joint = j;
  }
  u->root = -1;
  for (int l = 0; l < u->nlink; l++) {
    if (u->link[l].parent_joint >= 0) continue;
    if (u->root >= 0) {
      return fail(c, robot, "links '%.80s' and '%.80s' both lack a parent: one tree is one root",
                  u->link[u->root].name, u->link[l].name);
    }
    u->root = l;
  }
  // n links, n - 1 joints with one parent each and one root: a cycle would leave a link
  // unreachable from the root, so walking up from every link must end at the root
  if (u->root < 0) return fail(c, robot, "the joints form a loop (no root link)");
  for (int l = 0; l < u->nlink; l++) {
    int steps = 0, at = l;
    while (u->link[at].parent_joint >= 0 && steps++ <= u->nlink) {
      at = u->joint[u->link[at].parent_joint].parent;
    }
    if (at != u->root)
      return fail(c, robot, "the joints above link '%.80s' form a loop", u->link[l].name);
  }
  if (find_tcp(c, robot, tcp)) return -1;
  return find_chain(c, robot);
}

static int read_robot(urdf_ctx* c, const xmlNode* robot, const char* tcp) {
  tf_urdf* u = c->u;
  if (!is_element(robot, "robot")) return fail(c, robot, "the root element must be <robot>");
  xmlChar* name = xmlGetProp(robot, (const xmlChar*)"name");
  u->name = dup_text(name ? (const char*)name : "");
  xmlFree(name);
  int nlink = 0, njoint = 0;
  for (xmlNode* n = robot->children; n; n = n->next) {
    nlink += is_element(n, "link");
    njoint += is_element(n, "joint");
  }
  if (nlink == 0) return fail(c, robot, "no <link>");
  if (nlink > MAX_LINKS) return fail(c, robot, "more than %d links", MAX_LINKS);
  if (njoint != nlink - 1) {
    return fail(c, robot, "%d links need %d joints to form one tree (got %d)", nlink, nlink - 1,
                njoint);
  }
  u->link = calloc((size_t)nlink, sizeof(tf_urdf_link));
  u->joint = calloc((size_t)njoint + 1, sizeof(tf_urdf_joint));
  if (!u->name || !u->link || !u->joint) return fail(c, robot, "out of memory");
  // links first: a joint may name a link the file defines after it
  for (xmlNode* n = robot->children; n; n = n->next) {
    if (is_element(n, "link") && read_link(c, n, &u->link[u->nlink++])) return -1;
  }
  for (xmlNode* n = robot->children; n; n = n->next) {
    if (is_element(n, "joint") && read_joint(c, n, &u->joint[u->njoint++])) return -1;
  }
  return check_tree(c, robot, tcp);
}

void tf_urdf_free(tf_urdf* u) {
  if (!u) return;
  for (int l = 0; u->link && l < u->nlink; l++) {
    for (int g = 0; g < u->link[l].ngeom; g++) tf_mesh_free(&u->link[l].geom[g].mesh);
    free(u->link[l].geom);
    free(u->link[l].name);
  }
  for (int j = 0; u->joint && j < u->njoint; j++) free(u->joint[j].name);
  free(u->link);
  free(u->joint);
  free(u->name);
  free(u->file);
  free(u);
}

int tf_urdf_parse(const char* data, size_t size, const char* name, const char* dir, const char* tcp,
                  tf_urdf** out, char* err, size_t errlen) {
  *out = NULL;
  if (size > TF_URDF_MAX_FILE_BYTES) {
    snprintf(err, errlen, "%s: larger than %zu MB", name, TF_URDF_MAX_FILE_BYTES >> 20);
    return -1;
  }
  urdf_ctx c = {.file = name, .dir = dir ? dir : ".", .err = err, .errlen = errlen};
  c.u = calloc(1, sizeof(tf_urdf));
  xmlParserCtxtPtr pc = xmlNewParserCtxt();
  if (!c.u || !pc || !(c.u->file = dup_text(name))) {
    snprintf(err, errlen, "%s: out of memory", name);
    tf_urdf_free(c.u);
    xmlFreeParserCtxt(pc);
    return -1;
  }
  // no network, no entity substitution (NOENT unset), libxml2's own messages off: the parser
  // context keeps the error, reported as one line below
  int flags = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING;
  xmlDocPtr doc = xmlCtxtReadMemory(pc, data, (int)size, name, NULL, flags);
  if (!doc || !xmlDocGetRootElement(doc)) {
    const xmlError* e = xmlCtxtGetLastError(pc);
    char msg[256] = "not an XML document";
    if (e && e->message) {
      snprintf(msg, sizeof(msg), "%s", e->message);
      size_t len = strlen(msg);
      while (len && (msg[len - 1] == '\n' || msg[len - 1] == ' ')) msg[--len] = 0;
    }
    snprintf(err, errlen, "%s:%d: malformed XML: %s", name, e ? e->line : 0, msg);
    one_line(err);
    c.failed = 1;
  } else {
    read_robot(&c, xmlDocGetRootElement(doc), tcp);
  }
  xmlFreeDoc(doc);
  xmlFreeParserCtxt(pc);
  if (c.failed) {
    tf_urdf_free(c.u);
    return -1;
  }
  *out = c.u;
  return 0;
}

int tf_urdf_load(const char* path, const char* tcp, tf_urdf** out, char* err, size_t errlen) {
  *out = NULL;
  struct stat st;
  if (stat(path, &st) != 0) {
    snprintf(err, errlen, "%s: cannot open", path);
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    snprintf(err, errlen, "%s: not a regular file", path);
    return -1;
  }
  if ((size_t)st.st_size > TF_URDF_MAX_FILE_BYTES) {
    snprintf(err, errlen, "%s: larger than %zu MB", path, TF_URDF_MAX_FILE_BYTES >> 20);
    return -1;
  }
  FILE* f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errlen, "%s: cannot open", path);
    return -1;
  }
  size_t cap = (size_t)st.st_size + 1;
  char* data = malloc(cap);
  size_t n = data ? fread(data, 1, cap, f) : 0;
  // a file that grew past its stat size since is refused, not trusted
  int too_big = n == cap;
  fclose(f);
  if (!data || too_big) {
    free(data);
    snprintf(err, errlen, "%s: %s", path, data ? "changed while reading" : "out of memory");
    return -1;
  }
  char dir[PATH_LEN];
  snprintf(dir, sizeof(dir), "%s", path);
  char* slash = strrchr(dir, '/');
  if (slash == dir) {
    dir[1] = 0;  // a file in "/"
  } else if (slash) {
    *slash = 0;
  } else {
    snprintf(dir, sizeof(dir), ".");
  }
  int rc = tf_urdf_parse(data, n, path, dir, tcp, out, err, errlen);
  free(data);
  return rc;
}
