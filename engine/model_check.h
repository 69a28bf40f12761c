// The checks tf_builder_compile runs on a builder's definitions (engine-private): each returns
// 0, or -1 with a one-line message naming the definition at fault.
#ifndef TF_MODEL_CHECK_H
#define TF_MODEL_CHECK_H

#include <stddef.h>

#include "builder_internal.h"

int tf_check_names(const char* kind, const char* const* names, int n, int first_id, char* err,
                   size_t errlen);
int tf_check_inertia(const tf_body_def* def, double moments[3], double iquat[4], char* err,
                     size_t errlen);
int tf_check_option(const tf_option* opt, char* err, size_t errlen);
int tf_check_body(const tf_builder* b, int i, char* err, size_t errlen);
int tf_check_joint(const tf_builder* b, int i, char* err, size_t errlen);
int tf_check_actuator(const tf_builder* b, int i, char* err, size_t errlen);
int tf_check_geom(const tf_builder* b, int i, char* err, size_t errlen);
int tf_check_equality(const tf_builder* b, int i, char* err, size_t errlen);
int tf_check_mesh(const tf_builder* b, int i, char* err, size_t errlen);
int tf_check_sdf(const tf_builder* b, int i, char* err, size_t errlen);
int tf_check_pairs(const tf_builder* b, char* err, size_t errlen);

#endif  // TF_MODEL_CHECK_H
