// Exact distance queries on a triangle mesh: a bounding volume hierarchy over the triangles
// (flat arrays), the exact closest point on a triangle (Ericson's Voronoi-region method), the
// nearest triangle to a point with branch-and-bound pruning, and the sign from angle-weighted
// pseudo-normals at the closest feature (Baerentzen & Aanaes 2005), which is exact for a
// closed, consistently oriented mesh; an exact generalized winding number decides the rare
// points where the pseudo-normal test is degenerate. See mesh_bvh.c for the math.
#ifndef TF_MESH_BVH_H
#define TF_MESH_BVH_H

#include <stddef.h>

// triangles per leaf at most
#define TF_BVH_LEAF 4

// which part of a triangle holds its closest point to a query
typedef enum tf_tri_feature {
  TF_TRI_FACE = 0,  // the interior
  TF_TRI_VERT_A,    // a vertex
  TF_TRI_VERT_B,
  TF_TRI_VERT_C,
  TF_TRI_EDGE_AB,  // the inside of an edge
  TF_TRI_EDGE_BC,
  TF_TRI_EDGE_CA,
} tf_tri_feature;

typedef struct tf_bvh_node {
  double lo[3], hi[3];  // box of the node's triangles
  int start;  // leaf: first triangle (BVH order); inner: the second child (the first is +1)
  int count;  // leaf: triangles (1..TF_BVH_LEAF); inner: 0
} tf_bvh_node;

// the hierarchy plus the per-feature pseudo-normals; plain data, free with tf_mesh_bvh_free
typedef struct tf_mesh_bvh {
  int nnode;
  tf_bvh_node* node;  // (nnode) depth-first order, node 0 the root
  int ntri;
  double* tri;              // (ntri x 9) corners a, b, c in BVH order
  int* tri_face;            // (ntri) the mesh face of each triangle
  int* tri_vert;            // (ntri x 3) welded vertex ids of the corners
  double* tri_normal;       // (ntri x 3) unit face normal (zero if degenerate)
  double* tri_edge_normal;  // (ntri x 9) unit edge pseudo-normals of ab, bc, ca
  int nvert;                // welded vertices (exactly equal positions merged)
  double* vert_normal;      // (nvert x 3) unit angle-weighted vertex pseudo-normals
  int open_edges;           // edges with one triangle (0 when watertight)
  int nonmanifold_edges;    // edges with more than two triangles, or two with the same direction
  int degenerate_faces;     // zero-area triangles
  double lo[3], hi[3];      // bounds of the mesh
} tf_mesh_bvh;

// builds the hierarchy (median split of the centroids along the widest axis) and the
// pseudo-normals; returns 0, or -1 with a message (bad indices, non-finite vertices, memory)
int tf_mesh_bvh_build(tf_mesh_bvh* out, const double* vert, int nvert, const int* face, int nface,
                      char* err, size_t errlen);
void tf_mesh_bvh_free(tf_mesh_bvh* bvh);

// the closest point of triangle abc to p; returns the tf_tri_feature holding it
int tf_triangle_closest(double out[3], const double p[3], const double a[3], const double b[3],
                        const double c[3]);

// the result of a nearest-triangle query
typedef struct tf_mesh_hit {
  double point[3];  // closest point on the mesh
  double dist2;     // squared distance to it
  int tri;          // triangle in BVH order (a hint for the next query), -1 if none
  int face;         // the mesh face
  int feature;      // tf_tri_feature
} tf_mesh_hit;

// the nearest triangle to p; hint (a tri from an earlier, nearby query, or -1) seeds the bound
void tf_mesh_bvh_nearest(tf_mesh_hit* out, const tf_mesh_bvh* bvh, const double p[3], int hint);

// signed distance to the mesh (negative inside); writes the hit if asked; *fallback (may be
// NULL) is set to 1 when the winding number had to decide the sign
double tf_mesh_bvh_signed_distance(tf_mesh_hit* hit, const tf_mesh_bvh* bvh, const double p[3],
                                   int hint, int* fallback);

// generalized winding number at p: 1 inside, 0 outside a closed mesh (exact sum of solid angles)
double tf_mesh_bvh_winding(const tf_mesh_bvh* bvh, const double p[3]);

#endif  // TF_MESH_BVH_H
