// Growable triangle meshes: capacity doubles, so building a mesh of n triangles costs O(n).
#include "mesh_builder.h"

#include <stdlib.h>

int tf_mesh_builder_vertex(tf_mesh_builder* m, double x, double y, double z) {
  if (m->nvert == m->vcap) {
    int cap = m->vcap ? 2 * m->vcap : 1024;
    double* grown = realloc(m->vert, (size_t)cap * 3 * sizeof(double));
    if (!grown) return -1;
    m->vert = grown, m->vcap = cap;
  }
  double* v = m->vert + 3 * m->nvert;
  v[0] = x, v[1] = y, v[2] = z;
  return m->nvert++;
}

int tf_mesh_builder_triangle(tf_mesh_builder* m, int a, int b, int c) {
  if (m->nface == m->fcap) {
    int cap = m->fcap ? 2 * m->fcap : 2048;
    int* grown = realloc(m->face, (size_t)cap * 3 * sizeof(int));
    if (!grown) return -1;
    m->face = grown, m->fcap = cap;
  }
  int* f = m->face + 3 * m->nface++;
  f[0] = a, f[1] = b, f[2] = c;
  return 0;
}

void tf_mesh_builder_free(tf_mesh_builder* m) {
  free(m->vert);
  free(m->face);
  m->vert = NULL;
  m->face = NULL;
  m->nvert = m->vcap = m->nface = m->fcap = 0;
}
