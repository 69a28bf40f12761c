// MuJoCo MJCF models in: an XML file (libxml2) mapped onto the engine's builder. The subset the
// engine can represent is loaded (worldbody tree, free / ball / hinge / slide joints, the
// primitive geoms and closed meshes, inertials or geom-derived masses, motor / position /
// velocity actuators, option timestep and gravity, default classes, <include>d files; joint
// coordinates as MuJoCo's, the body at its XML frame at q = ref); every element or attribute
// it cannot represent is named once in a list for the caller to print, never dropped
// silently. Bad input (malformed XML, a missing mesh or included file, an include cycle, a
// zero-mass free body, a zero joint axis, an unknown actuator, NaN) gives -1 / NULL and one
// line "FILE:LINE: <element>: problem".
#ifndef TF_MJCF_H
#define TF_MJCF_H

#include <stddef.h>

#include "tightfit.h"

// files larger than this are refused before parsing (an MJCF model is a few hundred KB)
#define TF_MJCF_MAX_FILE_BYTES ((size_t)64 << 20)

typedef struct tf_mjcf_options {
  double timestep;  // s; NaN (default): the file's <option timestep>, else MuJoCo's 0.002
  int solver;       // tf_solver_type; -1 (default): the engine's default
  int integrator;   // tf_integrator; -1 (default): the file's <option integrator>, else euler
} tf_mjcf_options;

tf_mjcf_options tf_mjcf_options_default(void);

// Loads and compiles the model at path. On success returns the model and writes into
// unsupported a one-line list of what was ignored ("" when nothing was), e.g.
// "<tendon>, <sensor>, geom attribute 'group'". On failure returns NULL with one line in err.
tf_model* tf_mjcf_load(const char* path, const tf_mjcf_options* opt, char* err, size_t errlen,
                       char* unsupported, size_t unsupportedlen);

// the same from memory; name stands for the file in messages and dir is where meshdir and
// mesh file names are resolved from ("." if NULL)
tf_model* tf_mjcf_parse(const char* data, size_t size, const char* name, const char* dir,
                        const tf_mjcf_options* opt, char* err, size_t errlen, char* unsupported,
                        size_t unsupportedlen);

// MJCF out (mjcf_write.c): a compiled model as DIR/model.xml plus DIR/meshes/, for MuJoCo
typedef struct tf_mjcf_write_options {
  const char* model;   // <mujoco model=...>; default "tightfit"
  int stl;             // 1: meshes as binary STL (float coordinates); 0 (default): OBJ, exact
  const double* qpos;  // (nq) the initial state for <keyframe name="initial">; NULL: none
  const double* qvel;  // (nv) its velocities; NULL: none
} tf_mjcf_write_options;

tf_mjcf_write_options tf_mjcf_write_options_default(void);

// the engine type geom g is written as: its own for a primitive, the primitive for an SDF that
// is one unrotated primitive of the SDF library, TF_GEOM_MESH for a hull, a mesh or another SDF
// with a surface mesh; -1 when it cannot be written (an analytic SDF without a mesh)
int tf_mjcf_geom_export_type(const tf_model* m, int g);
// tf_mjcf_geom_export_type(m, g) >= 0
int tf_mjcf_geom_exportable(const tf_model* m, int g);

// Writes m into dir (made if missing): model.xml (bodies as a tree with explicit inertials,
// joints, geoms, meshes, welds, contact excludes, actuators, option, keyframe) and
// meshes/*.obj|stl, each file atomically, model.xml last. Geoms that cannot be written are
// listed in skipped ("" when none: "geom 'x' (an SDF without a surface mesh), ..."). Returns
// 0, or -1 with one line "PATH: problem" in err.
int tf_mjcf_write(const tf_model* m, const char* dir, const tf_mjcf_write_options* opt,
                  char* skipped, size_t skippedlen, char* err, size_t errlen);

#endif  // TF_MJCF_H
