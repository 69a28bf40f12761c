// MuJoCo MJCF models in: an XML file (libxml2) mapped onto the engine's builder. The subset the
// engine can represent is loaded (worldbody tree, free / ball / hinge / slide joints, the
// primitive geoms and closed meshes, inertials or geom-derived masses, motor / position /
// velocity actuators, option timestep and gravity, default classes); every element or
// attribute it cannot represent is named once in a list for the caller to print, never dropped
// silently. Bad input (malformed XML, a missing mesh, a zero-mass free body, a zero joint axis,
// an unknown actuator, NaN) gives -1 / NULL and one line "FILE:LINE: <element>: problem".
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

#endif  // TF_MJCF_H
