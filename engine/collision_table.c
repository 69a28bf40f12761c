// The narrow-phase pair table: one function per pair of shape types, stored once with the
// lower tf_geom_type first. A new shape adds a row and a column, never a branch: tf_collide
// looks the pair up, swaps the shapes when they come in the other order and flips the normals
// of what comes back. Pairs without a closed form go to the general convex code.
#include <assert.h>
#include <stddef.h>

#include "collision.h"
#include "collision_convex.h"
#include "collision_primitive.h"

typedef int (*tf_pair_fn)(const tf_shape* a, const tf_shape* b, double margin,
                          tf_contact_point* out);

// [lower type][higher type]; entries below the diagonal stay empty, as does plane x plane
static const tf_pair_fn pair_table[TF_GEOM_NTYPE][TF_GEOM_NTYPE] = {
    [TF_GEOM_PLANE] =
        {
            [TF_GEOM_SPHERE] = tf_collide_plane_sphere,
            [TF_GEOM_CAPSULE] = tf_collide_plane_capsule,
            [TF_GEOM_BOX] = tf_collide_plane_box,
            [TF_GEOM_CYLINDER] = tf_collide_plane_cylinder,
            [TF_GEOM_HULL] = tf_collide_plane_convex,
        },
    [TF_GEOM_SPHERE] =
        {
            [TF_GEOM_SPHERE] = tf_collide_sphere_sphere,
            [TF_GEOM_CAPSULE] = tf_collide_sphere_capsule,
            [TF_GEOM_BOX] = tf_collide_sphere_box,
            [TF_GEOM_CYLINDER] = tf_collide_convex,
            [TF_GEOM_HULL] = tf_collide_convex,
        },
    [TF_GEOM_CAPSULE] =
        {
            [TF_GEOM_CAPSULE] = tf_collide_capsule_capsule,
            [TF_GEOM_BOX] = tf_collide_capsule_box,
            [TF_GEOM_CYLINDER] = tf_collide_convex,
            [TF_GEOM_HULL] = tf_collide_convex,
        },
    [TF_GEOM_BOX] =
        {
            [TF_GEOM_BOX] = tf_collide_box_box,
            [TF_GEOM_CYLINDER] = tf_collide_convex,
            [TF_GEOM_HULL] = tf_collide_convex,
        },
    [TF_GEOM_CYLINDER] =
        {
            [TF_GEOM_CYLINDER] = tf_collide_convex,
            [TF_GEOM_HULL] = tf_collide_convex,
        },
    [TF_GEOM_HULL] =
        {
            [TF_GEOM_HULL] = tf_collide_convex,
        },
};

// the stored entry of a pair, whichever order its types come in
static tf_pair_fn pair_entry(int type1, int type2) {
  assert(type1 >= 0 && type1 < TF_GEOM_NTYPE && type2 >= 0 && type2 < TF_GEOM_NTYPE);
  return type1 <= type2 ? pair_table[type1][type2] : pair_table[type2][type1];
}

int tf_collide_supported(int type1, int type2) { return pair_entry(type1, type2) != NULL; }

int tf_collide(const tf_shape* a, const tf_shape* b, double margin, tf_contact_point* out) {
  return tf_collide_n(a, b, margin, TF_MAX_PAIR_CONTACTS, out, NULL);
}

int tf_collide_n(const tf_shape* a, const tf_shape* b, double margin, int cap,
                 tf_contact_point* out, int* candidates) {
  (void)cap;  // the convex pairs write at most TF_MAX_PAIR_CONTACTS <= any cap
  tf_pair_fn fn = pair_entry(a->type, b->type);
  if (candidates) *candidates = 0;
  if (!fn) return 0;
  int n;
  if (a->type <= b->type) {
    n = fn(a, b, margin, out);
  } else {
    // stored the other way round: run it as (b, a), then point the normals from a to b again
    n = fn(b, a, margin, out);
    for (int i = 0; i < n; i++) {
      for (int k = 0; k < 3; k++) out[i].normal[k] = -out[i].normal[k];
    }
  }
  if (candidates) *candidates = n;
  return n;
}
