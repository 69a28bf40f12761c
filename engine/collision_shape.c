// Size bounds of the narrow phase's shapes, shared by GJK tolerances, manifolds and time of
// impact.
#include <math.h>

#include "collision.h"
#include "tf_math.h"

double tf_shape_bound(const tf_shape* s) {
  switch (s->type) {
    case TF_GEOM_SPHERE:
      return s->size[0];
    case TF_GEOM_CAPSULE:
      return s->size[0] + s->size[1];
    case TF_GEOM_BOX:
      return tf_vec3_norm(s->size);
    case TF_GEOM_CYLINDER:
      return hypot(s->size[0], s->size[1]);
    case TF_GEOM_HULL:
      return s->hull.rbound;
    case TF_GEOM_MESH:
      return s->mesh.rbound;
    case TF_GEOM_SDF: {
      double far[3];
      for (int k = 0; k < 3; k++) far[k] = fmax(fabs(s->sdf.aabb[k]), fabs(s->sdf.aabb[3 + k]));
      return tf_vec3_norm(far);
    }
    default:
      return INFINITY;
  }
}

double tf_shape_extent(const tf_shape* s) {
  double r = tf_shape_bound(s);
  return isfinite(r) ? r : 0;
}
