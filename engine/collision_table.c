// The narrow-phase pair table: one function per pair of shape types, stored once with the
// lower tf_geom_type first. A new shape adds a row and a column, never a branch: tf_collide
// looks the pair up, swaps the shapes when they come in the other order and flips the normals
// of what comes back. Pairs without a closed form go to the general convex code; pairs with an
// SDF or a triangle mesh go to collision_sdf.c, which finds many candidates and reduces them
// to the per-pair cap itself. A geom may carry both a mesh and an SDF: the entry picks which
// one a pair uses. The geom's type says what it is first: two TF_GEOM_SDF geoms meet by
// descent on both fields (the `sdf` collider), whatever meshes their SDFs carry; a
// TF_GEOM_MESH is a surface sampled in the other's field, and when it carries its own SDF
// and the other shape a surface mesh, the other's surface is sampled in its field too
// (two-way sampling, collision_sdf.c; both meshes baked likewise). A mesh without an SDF, or
// an SDF without a mesh, keeps one-way sampling.
//
// Two kinds of entry: a "few" function writes at most TF_MAX_PAIR_CONTACTS points and knows no
// cap (tf_collide_n reduces its points with contact_reduce.h when they exceed the cap), a
// "many" function takes the cap and reports its candidate count.
#include <assert.h>
#include <stddef.h>
#include <math.h>
#include <string.h>

#include "collision.h"
#include "collision_convex.h"
#include "collision_primitive.h"
#include "collision_sdf.h"
#include "contact_reduce.h"
#include "stage_timer.h"

typedef int (*tf_pair_fn)(const tf_shape* a, const tf_shape* b, double margin,
                          tf_contact_point* out);
typedef int (*tf_pair_many_fn)(const tf_shape* a, const tf_shape* b, double margin, int cap,
                               tf_contact_point* out, tf_collide_stats* stats);

typedef struct pair_entry {
  tf_pair_fn few;
  tf_pair_many_fn many;
} pair_entry;

#define FEW(fn) \
  { fn, NULL }
#define MANY(fn) \
  { NULL, fn }

// [lower type][higher type]; entries below the diagonal stay empty, as does plane x plane
static const pair_entry pair_table[TF_GEOM_NTYPE][TF_GEOM_NTYPE] = {
    [TF_GEOM_PLANE] =
        {
            [TF_GEOM_SPHERE] = FEW(tf_collide_plane_sphere),
            [TF_GEOM_CAPSULE] = FEW(tf_collide_plane_capsule),
            [TF_GEOM_BOX] = FEW(tf_collide_plane_box),
            [TF_GEOM_CYLINDER] = FEW(tf_collide_plane_cylinder),
            [TF_GEOM_HULL] = FEW(tf_collide_plane_convex),
            [TF_GEOM_MESH] = MANY(tf_collide_primitive_mesh),
            [TF_GEOM_SDF] = MANY(tf_collide_plane_sdf),
        },
    [TF_GEOM_SPHERE] =
        {
            [TF_GEOM_SPHERE] = FEW(tf_collide_sphere_sphere),
            [TF_GEOM_CAPSULE] = FEW(tf_collide_sphere_capsule),
            [TF_GEOM_BOX] = FEW(tf_collide_sphere_box),
            [TF_GEOM_CYLINDER] = FEW(tf_collide_convex),
            [TF_GEOM_HULL] = FEW(tf_collide_convex),
            [TF_GEOM_MESH] = MANY(tf_collide_primitive_mesh),
            [TF_GEOM_SDF] = MANY(tf_collide_shape_sdf),
        },
    [TF_GEOM_CAPSULE] =
        {
            [TF_GEOM_CAPSULE] = FEW(tf_collide_capsule_capsule),
            [TF_GEOM_BOX] = FEW(tf_collide_capsule_box),
            [TF_GEOM_CYLINDER] = FEW(tf_collide_convex),
            [TF_GEOM_HULL] = FEW(tf_collide_convex),
            [TF_GEOM_MESH] = MANY(tf_collide_primitive_mesh),
            [TF_GEOM_SDF] = MANY(tf_collide_shape_sdf),
        },
    [TF_GEOM_BOX] =
        {
            [TF_GEOM_BOX] = FEW(tf_collide_box_box),
            [TF_GEOM_CYLINDER] = FEW(tf_collide_convex),
            [TF_GEOM_HULL] = FEW(tf_collide_convex),
            [TF_GEOM_MESH] = MANY(tf_collide_primitive_mesh),
            [TF_GEOM_SDF] = MANY(tf_collide_shape_sdf),
        },
    [TF_GEOM_CYLINDER] =
        {
            [TF_GEOM_CYLINDER] = FEW(tf_collide_convex),
            [TF_GEOM_HULL] = FEW(tf_collide_convex),
            [TF_GEOM_MESH] = MANY(tf_collide_primitive_mesh),
            [TF_GEOM_SDF] = MANY(tf_collide_shape_sdf),
        },
    [TF_GEOM_HULL] =
        {
            [TF_GEOM_HULL] = FEW(tf_collide_convex),
            [TF_GEOM_MESH] = MANY(tf_collide_hull_mesh),
            [TF_GEOM_SDF] = MANY(tf_collide_shape_sdf),
        },
    [TF_GEOM_MESH] =
        {
            [TF_GEOM_MESH] = MANY(tf_collide_mesh_mesh),
            [TF_GEOM_SDF] = MANY(tf_collide_mesh_sdf),
        },
    [TF_GEOM_SDF] =
        {
            [TF_GEOM_SDF] = MANY(tf_collide_sdf_sdf),
        },
};

// the stored entry of a pair, whichever order its types come in
static const pair_entry* pair_lookup(int type1, int type2) {
  assert(type1 >= 0 && type1 < TF_GEOM_NTYPE && type2 >= 0 && type2 < TF_GEOM_NTYPE);
  return type1 <= type2 ? &pair_table[type1][type2] : &pair_table[type2][type1];
}

int tf_collide_supported(int type1, int type2) {
  const pair_entry* e = pair_lookup(type1, type2);
  return e->few != NULL || e->many != NULL;
}

int tf_collide(const tf_shape* a, const tf_shape* b, double margin, tf_contact_point* out) {
  return tf_collide_n(a, b, margin, TF_MAX_PAIR_CONTACTS, out, NULL);
}

// runs an entry on shapes in table order
static int run_entry(const pair_entry* e, const tf_shape* a, const tf_shape* b, double margin,
                     int cap, tf_contact_point* out, tf_collide_stats* stats) {
  if (e->many) return e->many(a, b, margin, cap, out, stats);
  tf_contact_point few[TF_MAX_PAIR_CONTACTS];
  memset(few, 0, sizeof(few));  // the same bytes (padding too) whatever a function leaves unset
  int n = e->few(a, b, margin, few);
  stats->candidates = n;
  if (n > cap) {
    double t0 = tf_stage_start();
    n = tf_contact_reduce(out, few, n, cap, a->mat, NULL);
    stats->reduce_s += tf_stage_since(t0);
  } else {
    for (int i = 0; i < n; i++) out[i] = few[i];
  }
  for (int i = 0; i < n; i++) out[i].side = 0;  // closed forms and convex pairs sample nothing
  return n;
}

int tf_collide_n_stats(const tf_shape* a, const tf_shape* b, double margin, int cap,
                       tf_contact_point* out, tf_collide_stats* stats) {
  assert(cap >= 1 && cap <= TF_COLLIDE_MAX);
  const pair_entry* e = pair_lookup(a->type, b->type);
  int n = 0;
  stats->candidates = 0;
  stats->reduce_s = 0;
  stats->clear = -INFINITY;
  if (e->few || e->many) {
    if (a->type <= b->type) {
      n = run_entry(e, a, b, margin, cap, out, stats);
    } else {
      // stored the other way round: run it as (b, a) (b's velocity field relative to a's is
      // the negated one), then point the normals from a to b again
      tf_approach as_given = stats->approach;
      for (int k = 0; k < 3; k++) stats->approach.lin[k] *= -1, stats->approach.ang[k] *= -1;
      n = run_entry(e, b, a, margin, cap, out, stats);
      stats->approach = as_given;
      for (int i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++) out[i].normal[k] = -out[i].normal[k];
        out[i].side = -out[i].side;
      }
    }
  }
  return n;
}

int tf_collide_n(const tf_shape* a, const tf_shape* b, double margin, int cap,
                 tf_contact_point* out, int* candidates) {
  tf_collide_stats stats = {.warm = NULL, .nwarm = 0};
  int n = tf_collide_n_stats(a, b, margin, cap, out, &stats);
  if (candidates) *candidates = stats.candidates;
  return n;
}
