// Each part of an assembly as a solid the scene can use: its SDF (a library part's analytic
// one, or the exact SDF of a mesh file's triangles, assets/mesh_sdf.h), its surface mesh, its
// mass properties from that mesh (uniform density, or scaled to the given mass) and the
// overlap probe's surface samples:
//   library part: the vertices of the same part meshed at a 16x finer chord (at least the
//     schema's smallest), floor its chord error (as the gears task does);
//   mesh part: the mesh's vertices and edge midpoints, floor the part's declared "chord" (how
//     far the file's triangles are from the surface they stand for; 0 when they are the part).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assembly.h"
#include "gears/gears_scene.h"  // tf_gears_mesh_mass: mass properties of a closed mesh
#include "mesh_io.h"
#include "mesh_sdf.h"

void asm_solid_free(asm_solid* s) {
  free(s->params);
  free(s->vert);
  free(s->face);
  free(s->samples);
  memset(s, 0, sizeof(*s));
}

// the part's kv pairs, with chord_um replaced by chord (um) when chord > 0
static int part_kv(const asm_part* q, tf_kv* kv, char (*text)[32], double chord_um) {
  int n = 0;
  for (int i = 0; i < q->nkv; i++) {
    if (chord_um > 0 && strcmp(q->key[i], "chord_um") == 0) continue;
    kv[n].key = q->key[i];
    kv[n].value = q->value[i];
    n++;
  }
  if (chord_um > 0) {
    snprintf(text[0], sizeof(text[0]), "%.17g", chord_um);
    kv[n].key = "chord_um";
    kv[n].value = text[0];
    n++;
  }
  return n;
}

static int build_library(asm_solid* out, const asm_part* q, char* err, size_t errlen) {
  tf_kv kv[ASM_MAX_KV + 1];
  char text[1][32];
  char why[512];
  tf_part_geometry g;
  int n = part_kv(q, kv, text, 0);
  if (tf_part_build(q->part, kv, n, &g, why, sizeof(why))) {
    snprintf(err, errlen, "task 'assembly': part '%s': %s", q->name, why);
    return -1;
  }
  out->fn = g.fn;
  out->params = g.params;
  out->params_size = g.params_size;
  memcpy(out->aabb, g.aabb, sizeof(out->aabb));
  out->error_bound = g.error_bound;
  out->unit_gradient = g.unit_gradient;
  out->feature_size = g.feature_size;
  out->vert = g.vert, out->nvert = g.nvert;
  out->face = g.face, out->nface = g.nface;
  out->chord = g.chord_error;
  g.params = NULL, g.vert = NULL, g.face = NULL;
  tf_part_geometry_free(&g);
  // the probe's samples: a finer mesh of the same part
  const tf_part_info* info = tf_part_find(q->part);
  const tf_param_spec* spec = NULL;
  for (int i = 0; info && i < info->nparam; i++)
    if (strcmp(info->params[i].key, "chord_um") == 0) spec = &info->params[i];
  if (!spec) {
    // no chord to refine: the collider's own vertices
    out->samples = malloc(sizeof(double) * 3 * (size_t)out->nvert);
    if (!out->samples) return -1;
    memcpy(out->samples, out->vert, sizeof(double) * 3 * (size_t)out->nvert);
    out->nsample = out->nvert;
    out->sample_floor = out->chord;
    return 0;
  }
  double fine = fmax(spec->lo, fmin(out->chord * 1e6 / 16, 0.5));
  n = part_kv(q, kv, text, fine);
  if (tf_part_build(q->part, kv, n, &g, why, sizeof(why))) {
    snprintf(err, errlen, "task 'assembly': part '%s': probe samples: %s", q->name, why);
    return -1;
  }
  out->samples = g.vert;
  out->nsample = g.nvert;
  out->sample_floor = g.chord_error;
  g.vert = NULL;
  tf_part_geometry_free(&g);
  return 0;
}

static int build_mesh(asm_solid* out, const asm_part* q, char* err, size_t errlen) {
  tf_mesh mesh;
  char why[512];
  if (tf_mesh_read(&mesh, q->mesh, why, sizeof(why))) {
    snprintf(err, errlen, "task 'assembly': part '%s': %s", q->name, why);
    return -1;
  }
  for (int i = 0; i < mesh.nvert; i++) {
    for (int k = 0; k < 3; k++) {
      double* v = &mesh.vert[3 * i + k];
      *v = *v * q->mesh_unit * q->scale + q->offset[k];
    }
  }
  tf_mesh_sdf sdf;
  if (tf_mesh_sdf_build(&sdf, NULL, mesh.vert, mesh.nvert, mesh.face, mesh.nface, q->mesh, why,
                        sizeof(why))) {
    snprintf(err, errlen, "task 'assembly': part '%s': %s", q->name, why);
    tf_mesh_free(&mesh);
    return -1;
  }
  out->fn = tf_mesh_sdf_eval;
  out->params = sdf.params;
  out->params_size = sdf.params_size;
  memcpy(out->aabb, sdf.aabb, sizeof(out->aabb));
  out->error_bound = 0;
  out->unit_gradient = 1;
  out->feature_size = 0;
  out->vert = mesh.vert, out->nvert = mesh.nvert;
  out->face = mesh.face, out->nface = mesh.nface;
  out->chord = q->chord;
  // samples: vertices and each edge's midpoint once (a closed mesh walks every edge both ways)
  size_t cap = (size_t)mesh.nvert + 3 * (size_t)mesh.nface;
  out->samples = malloc(sizeof(double) * 3 * cap);
  if (!out->samples) {
    snprintf(err, errlen, "task 'assembly': out of memory");
    return -1;
  }
  memcpy(out->samples, mesh.vert, sizeof(double) * 3 * (size_t)mesh.nvert);
  int n = mesh.nvert;
  for (int t = 0; t < mesh.nface; t++) {
    for (int k = 0; k < 3; k++) {
      int a = mesh.face[3 * t + k], b = mesh.face[3 * t + (k + 1) % 3];
      if (a >= b) continue;
      for (int c = 0; c < 3; c++)
        out->samples[3 * n + c] = 0.5 * (mesh.vert[3 * a + c] + mesh.vert[3 * b + c]);
      n++;
    }
  }
  out->nsample = n;
  out->sample_floor = q->chord;
  return 0;
}

int asm_solid_build(asm_solid* out, const asm_file* f, int p, char* err, size_t errlen) {
  memset(out, 0, sizeof(*out));
  const asm_part* q = &f->part[p];
  int rc = q->library ? build_library(out, q, err, errlen) : build_mesh(out, q, err, errlen);
  if (rc) return -1;
  if (tf_gears_mesh_mass(out->vert, out->nvert, out->face, out->nface, q->density, &out->mass,
                         out->com, out->inertia)) {
    snprintf(err, errlen, "task 'assembly': part '%s': its mesh encloses no volume", q->name);
    return -1;
  }
  if (q->mass > 0) {
    double k = q->mass / out->mass;
    out->mass = q->mass;
    for (int i = 0; i < 6; i++) out->inertia[i] *= k;
  }
  return 0;
}
