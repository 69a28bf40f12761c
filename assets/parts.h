// Parametric assembly parts: each gives an analytic signed distance (exact, or a tight lower
// bound with a stated error), a watertight triangle mesh at a chosen resolution, and OBJ /
// STL export. Parameters come as key=value strings, checked against the part's schema.
#ifndef TF_PARTS_H
#define TF_PARTS_H

#include <stddef.h>

#include "tightfit.h"

typedef struct tf_kv {
  const char* key;
  const char* value;
} tf_kv;

// what a part build produces; free with tf_part_geometry_free
typedef struct tf_part_geometry {
  tf_sdf_fn fn;  // analytic SDF, geom frame (the part's own frame)
  void* params;  // plain-data parameters for fn (heap)
  size_t params_size;
  double aabb[6];      // lo[3], hi[3] holding the solid
  double error_bound;  // m: |fn - exact distance| near the surface; 0 = exact
  double* vert;        // (nvert x 3) watertight mesh, faces counter-clockwise from outside
  int nvert;
  int* face;  // (nface x 3)
  int nface;
  double chord_error;   // m: largest distance between the mesh and the true surface
  double feature_size;  // m: repeated features' spacing (a thread's pitch), 0 = none
  int unit_gradient;    // fn's gradient is unit to rounding (collision need not normalise it)
} tf_part_geometry;

// one parameter of a part's schema; a parameter with choices takes one of the names
// ("round|square") and its value is the index of the choice
typedef struct tf_param_spec {
  const char* key;
  double value;         // default
  double lo, hi;        // accepted range (inclusive)
  const char* unit;     // "mm", "um", "deg", "" ...
  const char* choices;  // NULL for numbers, else "a|b|c"
  const char* help;
  int list;                  // > 0: a comma-separated list of up to this many numbers, each in
                             // [lo, hi]; its parsed value is the first entry (tf_param_list
                             // gives them all)
  const char* list_default;  // the default list ("60,40,60"); NULL: just `value`
  int list_min;              // a list parameter's fewest numbers (0: 1)
  int whole;                 // 1: every number must be a whole number (tooth counts)
  int text;                  // 1: a text taken as written (a file's path); its parsed value is
                             // 1 when given and not empty, else 0 (tf_param_text gives it)
  // text parameters: checks a given text before anything runs (a file that must load); 0, or
  // -1 with one line in err, which tf_param_parse passes on as it is. NULL: any text
  int (*check)(const char* text, char* err, size_t errlen);
} tf_param_spec;

typedef struct tf_part_info {
  const char* name;
  const char* description;
  const tf_param_spec* params;
  int nparam;
  // builds the part from parsed values (one per schema entry, in order)
  int (*build)(const double* values, tf_part_geometry* out, char* err, size_t errlen);
} tf_part_info;

int tf_part_count(void);
const tf_part_info* tf_part_at(int index);
const tf_part_info* tf_part_find(const char* name);

// parses key=value pairs against a schema (defaults for the rest) into one value per entry;
// `what` and `owner` name it in messages ("task 'gears': ...")
int tf_param_parse(const char* what, const char* owner, const tf_param_spec* params, int nparam,
                   const tf_kv* kv, int nkv, double* values, char* err, size_t errlen);
// the same, with check_texts 0 skipping the text parameters' checks (a sweep has checked each
// distinct text once already; a check may load files)
int tf_param_parse_texts(const char* what, const char* owner, const tf_param_spec* params,
                         int nparam, const tf_kv* kv, int nkv, int check_texts, double* values,
                         char* err, size_t errlen);
// a text parameter's text from the key=value pairs: the last one given, NULL when none (or
// empty)
const char* tf_param_text(const tf_param_spec* spec, const tf_kv* kv, int nkv);
// every entry of a list parameter, from kv or its default; returns the count (<= max) or -1
int tf_param_list(const tf_param_spec* spec, const tf_kv* kv, int nkv, double* out, int max);

// the value to pass for a part's length parameter in mm (`diameter_mm`, ...) that the part's
// conversion, mm * 1e-3, turns back into `metres` bit for bit, so a task's part is the solid
// its metre values describe; where no double does (a few in a hundred derived values, such
// as a sum), the one nearest them (an ulp off)
double tf_part_mm(double metres);

// parses key=value pairs against the part's schema (defaults for the rest) and builds it;
// unknown keys (the message lists the valid ones), bad numbers, values out of range and
// unknown choices give -1 and a one-line message naming the part and the key
int tf_part_build(const char* name, const tf_kv* kv, int nkv, tf_part_geometry* out, char* err,
                  size_t errlen);
void tf_part_geometry_free(tf_part_geometry* geometry);

// the values of a schema after applying kv (shared by tf_part_build and tests)
int tf_part_parse(const tf_part_info* part, const tf_kv* kv, int nkv, double* values, char* err,
                  size_t errlen);

// registers the part's mesh and SDF with a builder; returns the sdf id (its mesh is attached
// as tf_sdf_def.mesh) or -1
int tf_part_add_to_builder(tf_builder* b, const char* name, const tf_part_geometry* geometry);
// the same, writing the mesh's id to *mesh as well (a scene whose collider is the mesh)
int tf_part_add_mesh_and_sdf(tf_builder* b, const char* name, const tf_part_geometry* geometry,
                             int* mesh);
// the builder's SDF definition of a part's analytic SDF (name kept by pointer; mesh: the id of
// a surface mesh of the same solid, -1 none), for scenes that add it themselves
void tf_part_sdf_def(tf_sdf_def* def, const char* name, const tf_part_geometry* geometry, int mesh);

// gears: the centre distance of a pair (m, profile shift 0); the driven gear's angle when the
// driver (at the origin) is at theta1 and the driven one sits at (+a, 0), backlash split
// evenly; the driven gear's turn from centred to drive-flank contact, B / (m z2)
double tf_gear_center_distance(double module, int z1, int z2);
double tf_gear_mesh_angle(int z1, int z2, double theta1);
double tf_gear_backlash_angle(double module, int z2, double backlash);

// connectors: how far the plug travels into its socket when seated (m), -1 if unknown type
double tf_connector_mating_depth(const char* type);

#endif  // TF_PARTS_H
