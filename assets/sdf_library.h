// Analytic signed distance functions: exact primitives and constructive solid geometry over a
// flat node array, evaluated by one generic tf_sdf_fn.
//
// Primitives (each in its own node frame; all exact, with analytic unit gradients):
//   sphere       radius r about the origin
//   box          half-sizes b, centred
//   rounded box  half-sizes b (outer), edge radius r: box(b - r) grown by a ball of radius r
//   cylinder     radius r, capped, z in [-h, h]
//   capsule      the segment z in [-h, h] grown by a ball of radius r
//   torus        major radius R (circle in the xy plane), minor radius r
//   prism        a convex polygon (counter-clockwise, up to TF_SDF_PRISM_MAXVERT vertices)
//                grown by a disc of radius r (rounded corners; 0 = sharp), z in [-h, h]
// A tree is plain data: nodes in one array, children before their parents, indices instead of
// pointers, so its bytes are tf_sdf_def.params and a model can copy them anywhere.
// Each node carries a rigid transform (node frame -> parent frame) that applies to its whole
// subtree, and a bounding sphere in the parent frame that lets a union skip far operands.
//
// CSG and exactness. With exact operand distances dA, dB:
//   union        min(dA, dB)       exact outside (distance to A u B is the smaller one);
//                                  inside a bound: |value| <= |true depth|
//   intersection max(dA, dB)       exact inside; outside a bound: value <= true distance
//   subtraction  max(dA, -dB)      A minus B: exact inside; outside a bound
// The sign is always right and the magnitude is never above the true distance, so a CSG value is
// a conservative distance everywhere. The error is zero on the surface and grows with the
// distance from an edge where surfaces of different operands meet: where two such surfaces meet
// at right angles the value is max(a, b) against the true sqrt(a^2 + b^2), so
// |fn - d| <= (1 - 1/sqrt 2) |d|; where three meet at right angles, (1 - 1/sqrt 3) |d|.
//
// error_bound conventions (tf_part_geometry.error_bound, tf_sdf_def.error_bound): 0 when the
// function is exact everywhere (the primitives, a rigid placement of one); for a CSG tree, the
// largest |fn - d| over points within TF_SDF_ERROR_BAND of the surface, i.e. the edge ratio above
// times the band (TF_SDF_CSG_RATIO_2 or _3 times TF_SDF_ERROR_BAND), checked by the part tests
// against a fine mesh. For flat faces meeting at right angles the ratio holds at any distance;
// curved ones (a hole's rim) add a little far from the edge.
#ifndef TF_SDF_LIBRARY_H
#define TF_SDF_LIBRARY_H

#include <stddef.h>

#define TF_SDF_PRISM_MAXVERT 8
#define TF_SDF_NPARAM 20
// m: the band near the surface over which a CSG part's error_bound is stated (the engine's
// default contact margin)
#define TF_SDF_ERROR_BAND 1e-4
// relative error of CSG edges where two / three operand surfaces meet at right angles
#define TF_SDF_CSG_RATIO_2 0.29289321881345248  // 1 - 1/sqrt(2)
#define TF_SDF_CSG_RATIO_3 0.42264973081037427  // 1 - 1/sqrt(3)

typedef enum tf_sdf_type {
  TF_SDF_SPHERE = 0,    // param: r
  TF_SDF_BOX,           // param: bx, by, bz (half-sizes)
  TF_SDF_ROUNDED_BOX,   // param: bx, by, bz (outer half-sizes), r
  TF_SDF_CYLINDER,      // param: r, h (half-length along z)
  TF_SDF_CAPSULE,       // param: r, h (half-length of the segment along z)
  TF_SDF_TORUS,         // param: R, r
  TF_SDF_PRISM,         // param: h, r, then nvert (x, y) pairs of the inner convex polygon
  TF_SDF_UNION,         // child[0] u child[1]
  TF_SDF_INTERSECTION,  // child[0] n child[1]
  TF_SDF_SUBTRACTION,   // child[0] minus child[1]
  TF_SDF_NTYPE
} tf_sdf_type;

typedef struct tf_sdf_node {
  int type;       // tf_sdf_type
  int child[2];   // CSG operands (indices of earlier nodes), -1 for a primitive
  int nvert;      // prism: polygon vertices (3..TF_SDF_PRISM_MAXVERT)
  double rot[9];  // node frame -> parent frame rotation, row-major
  double pos[3];  // node origin in the parent frame
  double param[TF_SDF_NPARAM];
  double bound[4];  // bounding sphere in the parent frame: centre x y z, radius (set on add)
  double box[6];    // bounding box in the parent frame: lo x y z, hi x y z (set on add)
} tf_sdf_node;

typedef struct tf_sdf_tree {
  int nnode;
  int root;  // the node the tree evaluates (the last one added unless changed)
  int reserved[2];
  tf_sdf_node node[];  // (nnode)
} tf_sdf_tree;

// primitive nodes in their own frame (identity transform)
tf_sdf_node tf_sdf_sphere(double radius);
tf_sdf_node tf_sdf_box(const double half[3]);
tf_sdf_node tf_sdf_rounded_box(const double half[3], double radius);
tf_sdf_node tf_sdf_cylinder(double radius, double half_height);
tf_sdf_node tf_sdf_capsule(double radius, double half_length);
tf_sdf_node tf_sdf_torus(double major, double minor);
// xy: nvert counter-clockwise vertices of a convex polygon, later grown by radius
tf_sdf_node tf_sdf_prism(const double xy[][2], int nvert, double radius, double half_height);
// a CSG node over two nodes already in the tree
tf_sdf_node tf_sdf_csg(tf_sdf_type op, int a, int b);

// places a node in its parent frame: origin pos, orientation quat (w x y z; NULL keeps it);
// call before adding the node
void tf_sdf_node_place(tf_sdf_node* node, const double pos[3], const double quat[4]);

// an empty tree (NULL on allocation failure); free with tf_sdf_tree_free
tf_sdf_tree* tf_sdf_tree_create(void);
void tf_sdf_tree_free(tf_sdf_tree* tree);
// appends a copy of node (its bound computed from its transform and, for CSG, its operands),
// makes it the root; returns its index, or -1 on allocation failure or bad operands
int tf_sdf_tree_add(tf_sdf_tree** tree, const tf_sdf_node* node);
// adds op(a, b) with an identity transform; returns its index or -1
int tf_sdf_tree_op(tf_sdf_tree** tree, tf_sdf_type op, int a, int b);
// adds a balanced union of n nodes (n >= 1); returns its index or -1
int tf_sdf_tree_union_all(tf_sdf_tree** tree, const int* index, int n);
// bytes of the tree as tf_sdf_def.params (header plus nnode nodes)
size_t tf_sdf_tree_size(const tf_sdf_tree* tree);
// 0 if the tree is well formed (types, operand order, parameters, convex prisms, unit rotations,
// size consistent with nnode), else -1 and a message
int tf_sdf_tree_check(const tf_sdf_tree* tree, size_t size, char* err, size_t errlen);

// signed distance of the tree's root at p (geom frame) and its gradient: a tf_sdf_fn over a
// tf_sdf_tree passed as params
double tf_sdf_tree_eval(const void* params, const double p[3], double grad[3]);
// the same for one node of a tree, p in that node's parent frame
double tf_sdf_node_eval(const tf_sdf_tree* tree, int index, const double p[3], double grad[3]);

#endif  // TF_SDF_LIBRARY_H
