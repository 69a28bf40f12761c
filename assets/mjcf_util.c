// The MJCF loader's helpers (mjcf_internal.h): messages, attribute lookup through default
// classes, number lists, orientations, and the mass properties of meshes and geoms.
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mjcf_internal.h"
#include "tf_math.h"

// control characters (an attribute value's newline, libxml2's two-line messages) become
// spaces, so that every message stays one line
static void one_line(char* s) {
  for (; *s; s++) {
    if ((unsigned char)*s < 0x20 || *s == 0x7f) *s = ' ';
  }
}

// the first error wins: later ones are usually consequences
int mjcf_fail(mjcf_ctx* c, const xmlNode* node, const char* fmt, ...) {
  if (c->failed) return -1;
  c->failed = 1;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  one_line(msg);
  if (node) {
    const mjcf_file* from = node->_private;
    snprintf(c->err, c->errlen, "%s:%ld: <%s>: %s", from ? from->path : c->file, xmlGetLineNo(node),
             (const char*)node->name, msg);
  } else {
    snprintf(c->err, c->errlen, "%s: %s", c->file, msg);
  }
  return -1;
}

// records one ignored feature; each is listed once however often it occurs
void mjcf_unsupported(mjcf_ctx* c, const char* fmt, ...) {
  char item[64];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(item, sizeof(item), fmt, ap);
  va_end(ap);
  one_line(item);
  for (int i = 0; i < c->nunsupported; i++) {
    if (strcmp(c->unsupported[i], item) == 0) return;
  }
  if (c->nunsupported < MAX_UNSUPPORTED) {
    memcpy(c->unsupported[c->nunsupported++], item, sizeof(item));
  } else {
    c->unsupported_more = 1;
  }
}

int mjcf_is(const xmlNode* n, const char* name) {
  return n->type == XML_ELEMENT_NODE && strcmp((const char*)n->name, name) == 0;
}

// lists the attributes of n that are not in allowed (a NULL-terminated list)
void mjcf_check_attrs(mjcf_ctx* c, const xmlNode* n, const char* const* allowed) {
  for (const xmlAttr* a = n->properties; a; a = a->next) {
    int ok = 0;
    for (int i = 0; allowed[i] && !ok; i++) ok = strcmp((const char*)a->name, allowed[i]) == 0;
    if (!ok) mjcf_unsupported(c, "%s attribute '%s'", (const char*)n->name, (const char*)a->name);
  }
}

// ---------------------------------------------------------------- attributes and numbers

int mjcf_class_index(const mjcf_ctx* c, const char* name) {
  for (int i = 0; i < c->ncls; i++) {
    xmlChar* v = xmlGetProp(c->cls_node[i], (const xmlChar*)"class");
    int match = v ? strcmp((const char*)v, name) == 0 : strcmp(name, "main") == 0;
    xmlFree(v);
    if (match) return i;
  }
  return -1;
}

// the attribute on the element, else from its class chain (kind: the element name a default
// class holds the values under); NULL when unset. Free with xmlFree.
xmlChar* mjcf_attr(const mjcf_ctx* c, const xmlNode* n, const char* kind, int cls,
                   const char* name) {
  xmlChar* v = xmlGetProp(n, (const xmlChar*)name);
  for (int k = cls; !v && k >= 0 && k < c->ncls; k = c->cls_parent[k]) {
    for (xmlNode* d = c->cls_node[k]->children; d && !v; d = d->next) {
      if (mjcf_is(d, kind)) v = xmlGetProp(d, (const xmlChar*)name);
    }
  }
  return v;
}

// the class an element's defaults come from: class=, else the inherited childclass
int mjcf_element_class(mjcf_ctx* c, const xmlNode* n, int inherited) {
  xmlChar* v = xmlGetProp(n, (const xmlChar*)"class");
  if (!v) return inherited;
  int k = mjcf_class_index(c, (const char*)v);
  if (k < 0) mjcf_fail(c, n, "unknown default class '%s'", (const char*)v);
  xmlFree(v);
  return k < 0 ? 0 : k;
}

// parses between min and max finite numbers from s; returns the count or -1 (error set)
static int parse_numbers(mjcf_ctx* c, const xmlNode* n, const char* name, const xmlChar* s,
                         double* out, int min, int max) {
  const char* p = (const char*)s;
  int count = 0;
  for (;;) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ',') p++;
    if (!*p) break;
    if (count == max) return mjcf_fail(c, n, "%s: more than %d numbers", name, max);
    char* end;
    double x = strtod(p, &end);
    if (end == p) return mjcf_fail(c, n, "%s: '%s' is not a number", name, (const char*)s);
    if (!isfinite(x)) return mjcf_fail(c, n, "%s: non-finite number in '%s'", name, (const char*)s);
    out[count++] = x;
    p = end;
  }
  if (count < min) return mjcf_fail(c, n, "%s: needs %d numbers, has %d", name, min, count);
  return count;
}

// reads numeric attribute `name` (own or default) into out; returns the count, 0 when unset
int mjcf_numbers(mjcf_ctx* c, const xmlNode* n, const char* kind, int cls, const char* name,
                 double* out, int min, int max) {
  xmlChar* v = mjcf_attr(c, n, kind, cls, name);
  if (!v) return 0;
  int k = parse_numbers(c, n, name, v, out, min, max);
  xmlFree(v);
  return k < 0 ? 0 : k;
}

double mjcf_number(mjcf_ctx* c, const xmlNode* n, const char* kind, int cls, const char* name,
                   double fallback) {
  double x = fallback;
  mjcf_numbers(c, n, kind, cls, name, &x, 1, 1);
  return x;
}

// a boolean-ish attribute: 1 true, 0 false, -1 unset or "auto"
int mjcf_tristate(mjcf_ctx* c, const xmlNode* n, const char* kind, int cls, const char* name) {
  xmlChar* v = mjcf_attr(c, n, kind, cls, name);
  if (!v) return -1;
  int r = -1;
  if (strcmp((const char*)v, "true") == 0) {
    r = 1;
  } else if (strcmp((const char*)v, "false") == 0) {
    r = 0;
  } else if (strcmp((const char*)v, "auto") != 0) {
    mjcf_fail(c, n, "%s: '%s' is not true, false or auto", name, (const char*)v);
  }
  xmlFree(v);
  return r;
}

// radians from an angle in the compiler's unit
static double angle(const mjcf_ctx* c, double a) { return c->degree ? a * M_PI / 180 : a; }

// the orientation attributes of a frame (quat, euler, axisangle, zaxis) into q
void mjcf_orientation(mjcf_ctx* c, const xmlNode* n, const char* kind, int cls, double q[4]) {
  double v[4];
  tf_quat_identity(q);
  if (mjcf_numbers(c, n, kind, cls, "quat", v, 4, 4)) {
    memcpy(q, v, sizeof(v));
    if (tf_quat_normalize(q) == 0) mjcf_fail(c, n, "quat is zero");
  } else if (mjcf_numbers(c, n, kind, cls, "euler", v, 3, 3)) {
    for (int i = 0; i < 3; i++) {
      char ch = c->eulerseq[i];
      double axis[3] = {0, 0, 0};
      axis[(ch | 32) - 'x'] = 1;
      double r[4], out[4];
      tf_quat_from_axis_angle(r, axis, angle(c, v[i]));
      // lowercase: about the rotated axes (post-multiply); uppercase: about fixed axes
      if (ch >= 'a') {
        tf_quat_mul(out, q, r);
      } else {
        tf_quat_mul(out, r, q);
      }
      memcpy(q, out, sizeof(out));
    }
  } else if (mjcf_numbers(c, n, kind, cls, "axisangle", v, 4, 4)) {
    if (tf_vec3_normalize(v) == 0) {
      mjcf_fail(c, n, "axisangle has a zero axis");
      return;
    }
    tf_quat_from_axis_angle(q, v, angle(c, v[3]));
  } else if (mjcf_numbers(c, n, kind, cls, "zaxis", v, 3, 3)) {
    if (tf_vec3_normalize(v) == 0) {
      mjcf_fail(c, n, "zaxis is zero");
      return;
    }
    const double z[3] = {0, 0, 1};
    tf_quat_between(q, z, v);
  }
}

// volume, centroid and inertia (per unit density, about the centroid) of a closed mesh by
// signed tetrahedra from the origin (the divergence theorem applied per face)
void mjcf_mesh_mass(const tf_mesh* mesh, double* volume, double com[3], double inertia[9]) {
  double v = 0, first[3] = {0, 0, 0}, second[6] = {0, 0, 0, 0, 0, 0};  // xx yy zz xy xz yz
  for (int f = 0; f < mesh->nface; f++) {
    const double* a = mesh->vert + 3 * mesh->face[3 * f];
    const double* b = mesh->vert + 3 * mesh->face[3 * f + 1];
    const double* d = mesh->vert + 3 * mesh->face[3 * f + 2];
    double cr[3];
    tf_vec3_cross(cr, b, d);
    double vol = tf_vec3_dot(a, cr) / 6;
    v += vol;
    for (int i = 0; i < 3; i++) first[i] += vol * (a[i] + b[i] + d[i]) / 4;
    // integral of x_i x_j over the tetrahedron (0, a, b, d)
    static const int pi[6] = {0, 1, 2, 0, 0, 1}, pj[6] = {0, 1, 2, 1, 2, 2};
    for (int k = 0; k < 6; k++) {
      int i = pi[k], j = pj[k];
      double s = a[i] * a[j] + b[i] * b[j] + d[i] * d[j];
      double t = (a[i] + b[i] + d[i]) * (a[j] + b[j] + d[j]);
      second[k] += vol * (s + t) / 20;
    }
  }
  *volume = v;
  for (int i = 0; i < 3; i++) com[i] = v != 0 ? first[i] / v : 0;
  // second moments about the centroid, then I = tr(S) E - S
  double s[9];
  static const int idx[3][3] = {{0, 3, 4}, {3, 1, 5}, {4, 5, 2}};
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) s[3 * i + j] = second[idx[i][j]] - v * com[i] * com[j];
  }
  double tr = s[0] + s[4] + s[8];
  for (int k = 0; k < 9; k++) inertia[k] = (k % 4 == 0 ? tr : 0) - s[k];
}

// adds a geom's mass (m at pos, inertia I about it in the geom frame rotated by q) into the
// body's running sums: mass, first moment, and the inertia about the body origin
void mjcf_accumulate(double* mass, double mc[3], double io[9], double m, const double pos[3],
                     const double q[4], const double inertia[9]) {
  double r[9], ri[9], rot[9];
  tf_quat_to_mat(r, q);
  // R I R^T
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      ri[3 * i + j] = 0;
      for (int k = 0; k < 3; k++) ri[3 * i + j] += r[3 * i + k] * inertia[3 * k + j];
    }
  }
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      rot[3 * i + j] = 0;
      for (int k = 0; k < 3; k++) rot[3 * i + j] += ri[3 * i + k] * r[3 * j + k];
    }
  }
  double d2 = tf_vec3_dot(pos, pos);
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      io[3 * i + j] += rot[3 * i + j] + m * ((i == j ? d2 : 0) - pos[i] * pos[j]);
    }
  }
  *mass += m;
  for (int i = 0; i < 3; i++) mc[i] += m * pos[i];
}
