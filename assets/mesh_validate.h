// Checks that a triangle mesh bounds a solid before an exact SDF is built from it: finite
// coordinates and valid indices, no zero-area triangle, every edge shared by exactly two
// triangles that walk it in opposite directions (closed and consistently oriented), a positive
// enclosed volume (not inside out), and no two triangles that cross each other. The
// pseudo-normal sign of mesh_bvh.h is exact only on such a mesh, so anything else is refused
// with one line naming the problem and the offending triangle.
#ifndef TF_MESH_VALIDATE_H
#define TF_MESH_VALIDATE_H

#include <stddef.h>

typedef enum tf_mesh_defect_kind {
  TF_MESH_OK = 0,
  TF_MESH_BAD_DATA,           // a non-finite coordinate, an index out of range, bad counts
  TF_MESH_DEGENERATE,         // a zero-area triangle
  TF_MESH_OPEN_EDGE,          // an edge with one triangle (a hole)
  TF_MESH_NONMANIFOLD_EDGE,   // an edge with more than two triangles
  TF_MESH_ORIENTATION,        // two triangles walk their shared edge the same way
  TF_MESH_INSIDE_OUT,         // consistently oriented, but the enclosed volume is negative
  TF_MESH_SELF_INTERSECTION,  // two triangles cross (beyond the corners they share)
  TF_MESH_NO_MEMORY,
} tf_mesh_defect_kind;

// the first defect found (checks run in the order of tf_mesh_defect_kind)
typedef struct tf_mesh_defect {
  int kind;     // tf_mesh_defect_kind
  int face;     // the offending triangle (mesh face index), -1 if none
  int vert[3];  // its vertex indices (as given, not welded)
  int other;    // the second triangle (orientation, self-intersection), else -1
} tf_mesh_defect;

// 0 when the mesh bounds a solid, else -1 with "NAME: problem" naming the triangle and its
// vertices; defect (may be NULL) tells which check failed. Vertices with exactly equal
// positions count as one (STL-style meshes repeat them). Never crashes on bad input.
int tf_mesh_validate(tf_mesh_defect* defect, const double* vert, int nvert, const int* face,
                     int nface, const char* name, char* err, size_t errlen);

// 1 if triangles abc and def cross: an edge of one passing through the inside of the other,
// or, when the two are coplanar, overlapping insides (for two sharing an edge: folded onto each
// other). Corners they share (exactly equal positions) and touching along an edge or at a
// vertex do not count: adjacent triangles always touch.
int tf_triangles_intersect(const double a[3], const double b[3], const double c[3],
                           const double d[3], const double e[3], const double f[3]);

#endif  // TF_MESH_VALIDATE_H
