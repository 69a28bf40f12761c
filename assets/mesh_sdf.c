// Exact mesh SDF: a tf_mesh_bvh flattened into one relocatable block.
//
// Layout: a header (magic, counts, byte offsets from the block's start, bounds), then node,
// tri, tri_face, tri_vert, tri_normal, tri_edge_normal and vert_normal, each at an offset that
// is a multiple of 16 so doubles stay aligned wherever the model copies the block (it keeps
// every SDF's params 16-byte aligned, engine/model_compile.c). Offsets rather than pointers
// make the block position independent; a query rebuilds a tf_mesh_bvh view pointing into it
// (a dozen stores) and runs the BVH's own nearest-triangle and pseudo-normal sign code, so
// there is one implementation of the distance, shared with the grid bake.
//
// Value and gradient. With c the closest point and d = |p - c|, the signed distance is +-d and
// its gradient is sign * (p - c) / d, exact and unit wherever the closest point is unique (the
// distance function is differentiable there); where c lies inside a face that is the face's
// unit normal, returned as stored (constant over the face's region, no rounding noise). On the
// surface (d = 0) the direction is undefined; the closest feature's angle-weighted
// pseudo-normal is the outward normal of the face there, and a consistent average on an edge
// or at a vertex.
#include "mesh_sdf.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error_message.h"
#include "mesh_bvh.h"

#define MESH_SDF_MAGIC 0x4653444du  // "MSDF"

typedef struct mesh_sdf_header {
  uint32_t magic;
  int32_t nnode, ntri, nvert;
  uint64_t node, tri, tri_face, tri_vert, tri_normal, tri_edge_normal, vert_normal;  // offsets
  double lo[3], hi[3];
} mesh_sdf_header;

static size_t align16(size_t n) { return (n + 15) & ~(size_t)15; }

// a pointer into the block (the view never writes through it)
static void* at(const void* base, uint64_t offset) {
  return (void*)((uintptr_t)base + (uintptr_t)offset);
}

// the BVH view of a block
static void view_of(tf_mesh_bvh* v, const mesh_sdf_header* h) {
  v->nnode = h->nnode;
  v->node = at(h, h->node);
  v->ntri = h->ntri;
  v->tri = at(h, h->tri);
  v->tri_face = at(h, h->tri_face);
  v->tri_vert = at(h, h->tri_vert);
  v->tri_normal = at(h, h->tri_normal);
  v->tri_edge_normal = at(h, h->tri_edge_normal);
  v->nvert = h->nvert;
  v->vert_normal = at(h, h->vert_normal);
  v->open_edges = v->nonmanifold_edges = v->degenerate_faces = 0;
  memcpy(v->lo, h->lo, sizeof(v->lo));
  memcpy(v->hi, h->hi, sizeof(v->hi));
}

int tf_mesh_sdf_build(tf_mesh_sdf* out, tf_mesh_defect* defect, const double* vert, int nvert,
                      const int* face, int nface, const char* name, char* err, size_t errlen) {
  memset(out, 0, sizeof(*out));
  if (!name) name = "mesh";
  if (tf_mesh_validate(defect, vert, nvert, face, nface, name, err, errlen)) return -1;
  tf_mesh_bvh bvh;
  char berr[256];
  if (tf_mesh_bvh_build(&bvh, vert, nvert, face, nface, berr, sizeof(berr))) {
    return tf_fail(err, errlen, "%s: %s", name, berr);
  }
  size_t nt = (size_t)bvh.ntri;
  size_t sizes[7] = {sizeof(tf_bvh_node) * (size_t)bvh.nnode,
                     sizeof(double) * 9 * nt,
                     sizeof(int) * nt,
                     sizeof(int) * 3 * nt,
                     sizeof(double) * 3 * nt,
                     sizeof(double) * 9 * nt,
                     sizeof(double) * 3 * (size_t)bvh.nvert};
  const void* src[7] = {bvh.node,       bvh.tri,        bvh.tri_face,
                        bvh.tri_vert,   bvh.tri_normal, bvh.tri_edge_normal,
                        bvh.vert_normal};
  uint64_t offset[7];
  size_t total = align16(sizeof(mesh_sdf_header));
  for (int i = 0; i < 7; i++) {
    offset[i] = total;
    total += align16(sizes[i]);
  }
  unsigned char* block = aligned_alloc(16, total);
  if (!block) {
    tf_mesh_bvh_free(&bvh);
    return tf_fail(err, errlen, "%s: out of memory for the exact SDF (%zu bytes)", name, total);
  }
  memset(block, 0, total);
  mesh_sdf_header h = {MESH_SDF_MAGIC,
                       bvh.nnode,
                       bvh.ntri,
                       bvh.nvert,
                       offset[0],
                       offset[1],
                       offset[2],
                       offset[3],
                       offset[4],
                       offset[5],
                       offset[6],
                       {bvh.lo[0], bvh.lo[1], bvh.lo[2]},
                       {bvh.hi[0], bvh.hi[1], bvh.hi[2]}};
  memcpy(block, &h, sizeof(h));
  for (int i = 0; i < 7; i++) {
    if (sizes[i]) memcpy(block + offset[i], src[i], sizes[i]);
  }
  out->params = block;
  out->params_size = total;
  for (int k = 0; k < 3; k++) out->aabb[k] = bvh.lo[k], out->aabb[3 + k] = bvh.hi[k];
  out->ntri = bvh.ntri;
  tf_mesh_bvh_free(&bvh);
  return 0;
}

void tf_mesh_sdf_free(tf_mesh_sdf* sdf) {
  if (!sdf) return;
  free(sdf->params);
  memset(sdf, 0, sizeof(*sdf));
}

double tf_mesh_sdf_eval(const void* params, const double p[3], double grad[3]) {
  const mesh_sdf_header* h = params;
  tf_mesh_bvh v;
  view_of(&v, h);
  tf_mesh_hit hit;
  double d = tf_mesh_bvh_signed_distance(&hit, &v, p, -1, NULL);
  if (!grad) return d;
  // closest point inside a face: p - c lies along the face's normal, so the gradient is that
  // normal exactly. (p - c) / d would say the same to rounding, but p and c are metres-scale
  // coordinates a fraction of a micron apart near a contact, so it carries ~1e-17 / d of
  // noise (1e-10 at 0.1 um); the SDF x SDF descent's Barzilai-Borwein step reads that noise
  // between two points on the same pair of facets as a curvature ~0 and jumped a whole lattice
  // cell (a tooth pitch) off the contact, so loaded mesh gears lost their rows for a step
  if (hit.tri >= 0 && hit.feature == TF_TRI_FACE) {
    memcpy(grad, v.tri_normal + 3 * (size_t)hit.tri, sizeof(double) * 3);
    return d;
  }
  double diff[3] = {p[0] - hit.point[0], p[1] - hit.point[1], p[2] - hit.point[2]};
  double len = sqrt(diff[0] * diff[0] + diff[1] * diff[1] + diff[2] * diff[2]);
  if (len > 0) {
    double s = (d < 0 ? -1.0 : 1.0) / len;
    for (int k = 0; k < 3; k++) grad[k] = s * diff[k];
    return d;
  }
  // on the surface: the pseudo-normal of the feature holding p
  const double* n;
  if (hit.tri < 0) {
    grad[0] = grad[1] = grad[2] = 0;
    return d;
  }
  if (hit.feature == TF_TRI_FACE) {
    n = v.tri_normal + 3 * (size_t)hit.tri;
  } else if (hit.feature <= TF_TRI_VERT_C) {
    n = v.vert_normal + 3 * (size_t)v.tri_vert[3 * hit.tri + (hit.feature - TF_TRI_VERT_A)];
  } else {
    n = v.tri_edge_normal + 9 * (size_t)hit.tri + 3 * (size_t)(hit.feature - TF_TRI_EDGE_AB);
  }
  memcpy(grad, n, sizeof(double) * 3);
  return d;
}

void tf_mesh_sdf_def(tf_sdf_def* def, const tf_mesh_sdf* sdf, const char* name, int mesh) {
  memset(def, 0, sizeof(*def));
  def->name = name;
  def->fn = tf_mesh_sdf_eval;
  def->params = sdf->params;
  def->params_size = sdf->params_size;
  memcpy(def->aabb, sdf->aabb, sizeof(def->aabb));
  def->error_bound = 0;
  def->mesh = mesh;
  def->unit_gradient = 1;
}
