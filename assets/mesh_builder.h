// A growable triangle mesh for the part builders: vertices and triangles appended one by one
// (private to assets/). The arrays are plain malloc'd memory that a tf_part_geometry takes
// over.
#ifndef TF_MESH_BUILDER_H
#define TF_MESH_BUILDER_H

typedef struct tf_mesh_builder {
  double* vert;  // (nvert x 3)
  int nvert, vcap;
  int* face;  // (nface x 3)
  int nface, fcap;
} tf_mesh_builder;

// appends a vertex; returns its index, or -1 when out of memory
int tf_mesh_builder_vertex(tf_mesh_builder* m, double x, double y, double z);
// appends a triangle; 0, or -1 when out of memory
int tf_mesh_builder_triangle(tf_mesh_builder* m, int a, int b, int c);
void tf_mesh_builder_free(tf_mesh_builder* m);

#endif  // TF_MESH_BUILDER_H
