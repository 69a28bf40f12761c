// Closed-form contact functions for the primitive pairs (private; the pair table in
// collision_table.c dispatches to them, tests call them directly). Shape a is always the one
// of lower tf_geom_type; normals point from a to b, dist is the signed gap along the normal and
// pos the midpoint between the surfaces. Each returns the number of points written to out,
// all with dist < margin, at most TF_MAX_PAIR_CONTACTS.
#ifndef TF_COLLISION_PRIMITIVE_H
#define TF_COLLISION_PRIMITIVE_H

#include "collision.h"

// the sphere's deepest point (1)
int tf_collide_plane_sphere(const tf_shape* plane, const tf_shape* sphere, double margin,
                            tf_contact_point* out);
// the two end caps (up to 2)
int tf_collide_plane_capsule(const tf_shape* plane, const tf_shape* capsule, double margin,
                             tf_contact_point* out);
// the deepest corners (up to 4)
int tf_collide_plane_box(const tf_shape* plane, const tf_shape* box, double margin,
                         tf_contact_point* out);
// the deepest rim point of each cap, plus four rim points of the cap facing the plane (up to 6)
int tf_collide_plane_cylinder(const tf_shape* plane, const tf_shape* cylinder, double margin,
                              tf_contact_point* out);
// along the line of centres (1)
int tf_collide_sphere_sphere(const tf_shape* a, const tf_shape* b, double margin,
                             tf_contact_point* out);
// the sphere against the closest point of the capsule's segment (1)
int tf_collide_sphere_capsule(const tf_shape* sphere, const tf_shape* capsule, double margin,
                              tf_contact_point* out);
// the closest point of the box, or the nearest face when the centre is inside (1)
int tf_collide_sphere_box(const tf_shape* sphere, const tf_shape* box, double margin,
                          tf_contact_point* out);
// closest points of the segments; nearly parallel overlapping segments add the overlap's ends
// (up to 3)
int tf_collide_capsule_capsule(const tf_shape* a, const tf_shape* b, double margin,
                               tf_contact_point* out);
// the segment's closest (or deepest) point; on a face the ends of the segment over it, along an
// edge the ends of the stretch beside it (up to 3)
int tf_collide_capsule_box(const tf_shape* capsule, const tf_shape* box, double margin,
                           tf_contact_point* out);
// separating axes, then the incident face clipped to the reference face (up to 4, plus the exact
// closest points of separated boxes whose nearest corner lies beside the reference face), or
// one edge-edge point
int tf_collide_box_box(const tf_shape* a, const tf_shape* b, double margin, tf_contact_point* out);

#endif  // TF_COLLISION_PRIMITIVE_H
