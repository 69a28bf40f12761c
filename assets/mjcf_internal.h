// Private to the MJCF loader (mjcf_load.c, mjcf_util.c) and its tests: the loader's state and
// its helpers.
#ifndef TF_MJCF_INTERNAL_H
#define TF_MJCF_INTERNAL_H

#include <libxml/tree.h>
#include <stddef.h>

#include "mesh_io.h"
#include "tightfit.h"

#define MAX_CLASS 256
#define MAX_UNSUPPORTED 48
#define MAX_MESH 256

typedef struct body_info {
  int id;         // builder body id
  int parent;     // index into ctx.bodies, -1 for children of the world
  int free;       // has a free joint
  int jointed;    // has any joint
  double mass;    // own mass
  double total;   // subtree mass (after propagation)
  xmlNode* node;  // for messages
} body_info;

// nested <include>s deeper than this are refused (each file is included at most once, so the
// nesting is finite anyway; this bounds it)
#define MJCF_MAX_INCLUDE_DEPTH 16

// a file of the model: the main one (parent -1) or one it <include>s; the nodes copied in
// from an included file point at its entry through their _private field, so that messages
// name the file an element came from
typedef struct mjcf_file {
  char* path;  // as opened (the main model's folder joined with file=), or the main name
  int parent;  // index of the file whose <include> brought it in; -1 for the main file
  int known;   // 1 when dev / ino identify it (stat succeeded)
  unsigned long long dev, ino;
} mjcf_file;

typedef struct mjcf_ctx {
  const char* file;  // for messages
  const char* dir;   // where relative paths start
  char* err;
  size_t errlen;
  int failed;
  tf_builder* b;
  // default classes: the <default> element of each, its parent class, its name
  xmlNode* cls_node[MAX_CLASS];
  int cls_parent[MAX_CLASS];
  int ncls;
  int degree;          // compiler angle="degree" (MuJoCo's default)
  char eulerseq[4];    // compiler eulerseq
  char meshdir[1024];  // compiler meshdir
  // asset meshes: their elements, and the builder mesh / sdf once loaded
  xmlNode* mesh_node[MAX_MESH];
  int mesh_id[MAX_MESH];
  int mesh_sdf[MAX_MESH];
  double mesh_volume[MAX_MESH];      // m^3
  double mesh_com[MAX_MESH][3];      // the centroid the vertices were moved by, file frame
  double mesh_inertia[MAX_MESH][9];  // per unit density, about the centroid, mesh axes
  int nmesh;
  char unsupported[MAX_UNSUPPORTED][64];
  int nunsupported;
  int unsupported_more;  // more than MAX_UNSUPPORTED kinds: the list ends in "..."
  body_info* bodies;
  int nbody, capbody;
  int ngeom, njoint, nactuator;  // counters for generated names
  // joint names and builder ids, for the actuators' joint=
  char** jname;
  int* jid;
  int njname, capjname;
  // the main file (entry 0) and the files it includes, each allocated on its own (nodes
  // point at them)
  mjcf_file** files;
  int nfile, capfile;
} mjcf_ctx;

// sets the loader's one error "FILE:LINE: <element>: message" (the first one wins; FILE is
// the included file the element came from, if any); returns -1
int mjcf_fail(mjcf_ctx* c, const xmlNode* node, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
// records one ignored feature; each is listed once however often it occurs
void mjcf_unsupported(mjcf_ctx* c, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
// 1 when n is an element named name
int mjcf_is(const xmlNode* n, const char* name);
// lists the attributes of n that are not in allowed (a NULL-terminated list)
void mjcf_check_attrs(mjcf_ctx* c, const xmlNode* n, const char* const* allowed);
// the default class named name ("main" is the top one when unnamed), -1 if none
int mjcf_class_index(const mjcf_ctx* c, const char* name);
// the attribute on the element, else from its class chain (kind: the element name a default
// class holds the values under; cls -1: none); NULL when unset. Free with xmlFree.
xmlChar* mjcf_attr(const mjcf_ctx* c, const xmlNode* n, const char* kind, int cls,
                   const char* name);
// the class an element's defaults come from: class=, else the inherited childclass
int mjcf_element_class(mjcf_ctx* c, const xmlNode* n, int inherited);
// reads numeric attribute name (own or default) into out, between min and max finite numbers;
// returns the count, 0 when unset or bad (the error then set)
int mjcf_numbers(mjcf_ctx* c, const xmlNode* n, const char* kind, int cls, const char* name,
                 double* out, int min, int max);
// one number, fallback when unset
double mjcf_number(mjcf_ctx* c, const xmlNode* n, const char* kind, int cls, const char* name,
                   double fallback);
// a boolean-ish attribute: 1 true, 0 false, -1 unset or "auto"
int mjcf_tristate(mjcf_ctx* c, const xmlNode* n, const char* kind, int cls, const char* name);
// the frame orientation attributes (quat, euler, axisangle, zaxis) into q, identity if none
void mjcf_orientation(mjcf_ctx* c, const xmlNode* n, const char* kind, int cls, double q[4]);
// volume, centroid and inertia (per unit density, about the centroid) of a closed mesh
void mjcf_mesh_mass(const tf_mesh* mesh, double* volume, double com[3], double inertia[9]);
// adds mass m at pos with inertia (about pos, frame rotated by q) into running sums
void mjcf_accumulate(double* mass, double mc[3], double io[9], double m, const double pos[3],
                     const double q[4], const double inertia[9]);

#endif  // TF_MJCF_INTERNAL_H
