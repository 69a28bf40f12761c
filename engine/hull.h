// Convex hulls of point sets, built with qhull (reentrant libqhull_r), kept as vertices plus
// polygonal faces (coplanar triangles merged) for support queries and face clipping.
#ifndef TF_HULL_H
#define TF_HULL_H

#include <stddef.h>

typedef struct tf_hull_data {
  int nvert;
  double* vert;  // (nvert x 3) hull vertices only (interior points dropped)
  int nface;
  double* face_plane;  // (nface x 4) outward unit normal n, offset d: n . x <= d inside
  int* face_vertadr;   // (nface)
  int* face_vertnum;   // (nface)
  int nfacevert;
  int* face_vert;  // (nfacevert) counter-clockwise seen from outside
  double rbound;   // largest vertex norm
} tf_hull_data;

// builds the hull of n points (x y z); on degenerate input (fewer than 4 points, all
// coplanar or collinear, NaN) returns -1 with a one-line message naming the mesh
int tf_hull_build(const double* points, int n, const char* name, tf_hull_data* out, char* err,
                  size_t errlen);
void tf_hull_free(tf_hull_data* hull);

#endif  // TF_HULL_H
