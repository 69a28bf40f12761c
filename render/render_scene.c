// The scene: what a model looks like, built once per model and posed per frame from tf_data.
//
// Which geoms show: tasks keep exact analytic copies of their parts as geoms that collide
// with nothing (contype == conaffinity == 0) for the overlap probe; drawing them would double
// every part (and z-fight with it), so they are left out, unless such a geom is the only one
// on its body (then it is the body's only picture). An SDF geom is drawn through the surface
// mesh attached to its SDF (or, without one, a surface-nets mesh of the SDF itself), a mesh
// geom through its mesh, a hull from its polygonal faces.
//
// The ground: shadows need a floor. A horizontal plane of the model is the ground; without
// one a floor square is laid at the lowest point of the scene at qpos0 (the parts rest on it
// rather than float). Planes are infinite, so they are drawn as squares a few scene sizes
// across, centred under the scene.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_internal.h"

#define FLOOR_SCENE_SIZES 6.0  // half side of the floor / plane squares, in scene radii
// the floor and planes are drawn this far (in scene radii) below where they are, so a face
// resting on them (seen from inside through a section cut) never z-fights with them
#define GROUND_DROP 1e-3

// pleasant, distinct albedos for moving bodies; the world's static parts are steel grey
static const float body_palette[][3] = {
    {0.90f, 0.52f, 0.18f}, {0.22f, 0.50f, 0.85f}, {0.33f, 0.68f, 0.38f}, {0.84f, 0.30f, 0.28f},
    {0.58f, 0.40f, 0.78f}, {0.86f, 0.72f, 0.26f}, {0.22f, 0.66f, 0.68f}, {0.86f, 0.46f, 0.62f},
};
static const float world_albedo[3] = {0.60f, 0.63f, 0.68f};
static const float floor_albedo[3] = {0.84f, 0.84f, 0.82f};

static void palette_colour(float out[3], int body) {
  const float* c = world_albedo;
  if (body > 0) {
    int n = (int)(sizeof(body_palette) / sizeof(body_palette[0]));
    c = body_palette[(body - 1) % n];
  }
  memcpy(out, c, 3 * sizeof(float));
}

static int geom_is_drawn(const tf_model* m, int g, const int* geoms_on_body) {
  if (m->geom_contype[g] == 0 && m->geom_conaffinity[g] == 0 &&
      geoms_on_body[m->geom_bodyid[g]] > 1) {
    return 0;
  }
  switch (m->geom_type[g]) {
    case TF_GEOM_MESH:
      return m->geom_meshid[g] >= 0;
    case TF_GEOM_SDF:
      return m->geom_sdfid[g] >= 0;
    default:
      return 1;
  }
}

// the model's own mesh `id` with creased normals
static void append_model_mesh(render_mesh* mesh, const tf_model* m, int id) {
  render_mesh_append_smooth(mesh, m->mesh_vert + 3 * m->mesh_vertadr[id], m->mesh_vertnum[id],
                            m->mesh_face + 3 * m->mesh_faceadr[id], m->mesh_facenum[id]);
}

// a hull's polygons fanned into triangles, flat shaded with the face normal
static void append_hull(render_mesh* mesh, const tf_model* m, int h) {
  int base = mesh->nvert;
  const double* vert = m->hull_vert + 3 * m->hull_vertadr[h];
  for (int v = 0; v < m->hull_vertnum[h]; v++) {
    render_mesh_vertex(mesh, vert[3 * v], vert[3 * v + 1], vert[3 * v + 2]);
  }
  const int* face_vert = m->hull_face_vert + m->hull_facevertadr[h];
  for (int f = m->hull_faceadr[h]; f < m->hull_faceadr[h] + m->hull_facenum[h]; f++) {
    double n[3] = {m->hull_face_plane[4 * f], m->hull_face_plane[4 * f + 1],
                   m->hull_face_plane[4 * f + 2]};
    const int* fv = face_vert + m->hull_face_vertadr[f];
    for (int k = 1; k + 1 < m->hull_face_vertnum[f]; k++) {
      render_mesh_triangle(mesh, base + fv[0], base + fv[k], base + fv[k + 1], n, n, n);
    }
  }
}

static void append_geom(render_mesh* mesh, const tf_model* m, const tf_data* d, int g) {
  const double* size = m->geom_size + 3 * g;
  switch (m->geom_type[g]) {
    case TF_GEOM_SPHERE:
      render_tessellate_sphere(mesh, size[0]);
      break;
    case TF_GEOM_CAPSULE:
      render_tessellate_capsule(mesh, size[0], size[1]);
      break;
    case TF_GEOM_CYLINDER:
      render_tessellate_cylinder(mesh, size[0], size[1]);
      break;
    case TF_GEOM_BOX:
      render_tessellate_box(mesh, size);
      break;
    case TF_GEOM_HULL:
      append_hull(mesh, m, m->geom_hullid[g]);
      break;
    case TF_GEOM_MESH:
      append_model_mesh(mesh, m, m->geom_meshid[g]);
      break;
    case TF_GEOM_SDF:
      if (m->sdf_mesh[m->geom_sdfid[g]] >= 0) {
        append_model_mesh(mesh, m, m->sdf_mesh[m->geom_sdfid[g]]);
      } else {
        render_mesh_append_sdf(mesh, m, d, g);
      }
      break;
    default:
      break;  // planes are laid once the scene's extent is known
  }
}

// world position of a geom-frame point under the pose (R row-major, p)
static void to_world(double out[3], const double* R, const double* p, const double* local) {
  for (int i = 0; i < 3; i++) {
    out[i] = p[i] + R[3 * i] * local[0] + R[3 * i + 1] * local[1] + R[3 * i + 2] * local[2];
  }
}

static void geom_pose(const tf_data* d, const render_geom* rg, const double** R, const double** p) {
  static const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, origin[3] = {0, 0, 0};
  *R = rg->geom >= 0 ? d->geom_xmat + 9 * rg->geom : identity;
  *p = rg->geom >= 0 ? d->geom_xpos + 3 * rg->geom : origin;
}

// box around the drawn, bounded geoms of `body` (-1: every body) at d's pose; 0 if any
static int scene_box(const tf_render_scene* s, const tf_data* d, int body, double lo[3],
                     double hi[3]) {
  int any = 0;
  for (int i = 0; i < 3; i++) lo[i] = INFINITY, hi[i] = -INFINITY;
  for (int k = 0; k < s->ngeom; k++) {
    const render_geom* rg = &s->geom[k];
    if (rg->plane || (body >= 0 && rg->body != body)) continue;
    const double *R, *p;
    geom_pose(d, rg, &R, &p);
    for (int v = rg->vert_adr; v < rg->vert_adr + rg->vert_num; v++) {
      double w[3];
      to_world(w, R, p, s->vert + 3 * v);
      for (int i = 0; i < 3; i++) lo[i] = fmin(lo[i], w[i]), hi[i] = fmax(hi[i], w[i]);
      any = 1;
    }
  }
  return any ? 0 : -1;
}

void tf_render_scene_bounds(const tf_render_scene* s, const tf_data* d, double lo[3],
                            double hi[3]) {
  if (scene_box(s, d, -1, lo, hi)) {
    for (int i = 0; i < 3; i++) lo[i] = -0.05, hi[i] = 0.05;
  }
}

int tf_render_body_bounds(const tf_render_scene* s, const tf_data* d, int body, double lo[3],
                          double hi[3]) {
  double l[3], h[3];
  if (body < 0 || scene_box(s, d, body, l, h)) return -1;
  memcpy(lo, l, sizeof(l));
  memcpy(hi, h, sizeof(h));
  return 0;
}

int tf_render_body_sphere(const tf_render_scene* s, const tf_data* d, int body, double center[3],
                          double* radius) {
  double lo[3], hi[3];
  if (tf_render_body_bounds(s, d, body, lo, hi)) return -1;
  double r2 = 0;
  for (int i = 0; i < 3; i++) {
    center[i] = 0.5 * (lo[i] + hi[i]);
    r2 += 0.25 * (hi[i] - lo[i]) * (hi[i] - lo[i]);
  }
  *radius = sqrt(r2);
  return 0;
}

int tf_render_scene_triangles(const tf_render_scene* s) { return s->ntri; }

// a round step near x: 1, 2 or 5 times a power of ten
static double nice_length(double x) {
  double p = pow(10, floor(log10(x)));
  double f = x / p;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

// adds render geom k's record for the triangles and vertices appended since (vert0, tri0)
static void close_geom(tf_render_scene* s, const render_mesh* mesh, int vert0, int tri0) {
  render_geom* rg = &s->geom[s->ngeom++];
  rg->vert_adr = vert0;
  rg->vert_num = mesh->nvert - vert0;
  rg->tri_adr = tri0;
  rg->tri_num = mesh->ntri - tri0;
}

// lays the planes and, without a horizontal plane, the floor, around the posed scene
static void add_ground(tf_render_scene* s, render_mesh* mesh, const tf_model* m, const tf_data* d,
                       const int* drawn) {
  double lo[3], hi[3], center[3], r2 = 0;
  tf_render_scene_bounds(s, d, lo, hi);
  for (int i = 0; i < 3; i++) {
    center[i] = 0.5 * (lo[i] + hi[i]);
    r2 += 0.25 * (hi[i] - lo[i]) * (hi[i] - lo[i]);
  }
  double radius = fmax(sqrt(r2), 1e-3), half = FLOOR_SCENE_SIZES * radius;
  int ground = 0;
  s->ground_z = lo[2];
  for (int g = 0; g < m->ngeom; g++) {
    if (!drawn[g] || m->geom_type[g] != TF_GEOM_PLANE) continue;
    const double* R = d->geom_xmat + 9 * g;
    const double* p = d->geom_xpos + 3 * g;
    // the scene's centre in the plane's frame, dropped onto the plane
    double rel[3] = {center[0] - p[0], center[1] - p[1], center[2] - p[2]};
    double lx = R[0] * rel[0] + R[3] * rel[1] + R[6] * rel[2];
    double ly = R[1] * rel[0] + R[4] * rel[1] + R[7] * rel[2];
    int vert0 = mesh->nvert, tri0 = mesh->ntri;
    render_tessellate_quad(mesh, lx, ly, half);
    for (int v = vert0; v < mesh->nvert; v++) mesh->vert[3 * v + 2] = -GROUND_DROP * radius;
    render_geom* rg = &s->geom[s->ngeom];
    rg->geom = g;
    rg->body = m->geom_bodyid[g];
    rg->plane = 1;
    rg->receiver = !ground && R[8] > 0.999;  // the first plane facing up is the ground
    if (rg->receiver) ground = 1, s->ground_z = p[2];
    close_geom(s, mesh, vert0, tri0);
  }
  if (!ground) {
    int vert0 = mesh->nvert, tri0 = mesh->ntri;
    render_tessellate_quad(mesh, center[0], center[1], half);
    for (int v = vert0; v < mesh->nvert; v++) mesh->vert[3 * v + 2] = lo[2] - GROUND_DROP * radius;
    render_geom* rg = &s->geom[s->ngeom];
    rg->geom = rg->body = -1;
    rg->plane = rg->receiver = 1;
    memcpy(rg->rgb, floor_albedo, sizeof(rg->rgb));
    close_geom(s, mesh, vert0, tri0);
  }
  s->checker = nice_length(radius / 3);
}

// moves the mesh's arrays into the scene and tags each triangle with its geom
static int take_mesh(tf_render_scene* s, render_mesh* mesh) {
  s->nvert = mesh->nvert;
  s->vert = mesh->vert;
  s->ntri = mesh->ntri;
  s->tri = mesh->tri;
  s->normal = mesh->normal;
  mesh->vert = NULL, mesh->tri = NULL, mesh->normal = NULL;
  s->tri_geom = malloc(sizeof(int) * (size_t)(s->ntri > 0 ? s->ntri : 1));
  s->tri_flat = malloc((size_t)(s->ntri > 0 ? s->ntri : 1));
  if (!s->tri_geom || !s->tri_flat) return -1;
  for (int k = 0; k < s->ngeom; k++) {
    for (int t = 0; t < s->geom[k].tri_num; t++) s->tri_geom[s->geom[k].tri_adr + t] = k;
  }
  for (int t = 0; t < s->ntri; t++) {
    const float* n = s->normal + 9 * (size_t)t;
    s->tri_flat[t] = !memcmp(n, n + 3, 3 * sizeof(float)) && !memcmp(n, n + 6, 3 * sizeof(float));
  }
  return 0;
}

static void set_colour(render_geom* rg, const tf_model* m) {
  if (rg->geom < 0) return;  // the floor has its own
  const float* rgba = m->geom_rgba + 4 * rg->geom;
  if (rgba[0] == 0 && rgba[1] == 0 && rgba[2] == 0 && rgba[3] == 0) {
    if (rg->receiver) {
      memcpy(rg->rgb, floor_albedo, sizeof(rg->rgb));  // a ground plane looks like the floor
    } else {
      palette_colour(rg->rgb, rg->body);
    }
  } else {
    memcpy(rg->rgb, rgba, 3 * sizeof(float));
  }
}

tf_render_scene* tf_render_scene_create(const tf_model* m, char* err, size_t errlen) {
  tf_render_scene* s = calloc(1, sizeof(tf_render_scene));
  int* on_body = calloc((size_t)m->nbody, sizeof(int));
  int* drawn = calloc((size_t)m->ngeom + 1, sizeof(int));
  tf_data* d = tf_data_create(m);
  render_mesh mesh = {0};
  if (!s || !on_body || !drawn || !d) goto fail;
  s->model_ngeom = m->ngeom;
  s->model_nbody = m->nbody;
  s->geom = calloc((size_t)m->ngeom + 1, sizeof(render_geom));
  if (!s->geom) goto fail;
  for (int g = 0; g < m->ngeom; g++) on_body[m->geom_bodyid[g]]++;
  // the pose at qpos0 places the planes and the floor
  tf_kinematics(m, d);
  for (int g = 0; g < m->ngeom; g++) {
    drawn[g] = geom_is_drawn(m, g, on_body);
    if (!drawn[g] || m->geom_type[g] == TF_GEOM_PLANE) continue;
    int vert0 = mesh.nvert, tri0 = mesh.ntri;
    append_geom(&mesh, m, d, g);
    render_geom* rg = &s->geom[s->ngeom];
    rg->geom = g;
    rg->body = m->geom_bodyid[g];
    close_geom(s, &mesh, vert0, tri0);
  }
  // bounds read the scene's vertices: let them see the mesh built so far
  s->vert = mesh.vert;
  add_ground(s, &mesh, m, d, drawn);
  s->vert = NULL;
  if (mesh.failed || take_mesh(s, &mesh)) goto fail;
  for (int k = 0; k < s->ngeom; k++) set_colour(&s->geom[k], m);
  free(on_body);
  free(drawn);
  tf_data_destroy(d);
  return s;
fail:
  snprintf(err, errlen, "render: out of memory building the scene (%d geoms)", m->ngeom);
  render_mesh_free(&mesh);
  tf_render_scene_destroy(s);
  free(on_body);
  free(drawn);
  if (d) tf_data_destroy(d);
  return NULL;
}

void tf_render_scene_destroy(tf_render_scene* s) {
  if (!s) return;
  free(s->geom);
  free(s->vert);
  free(s->tri);
  free(s->tri_geom);
  free(s->tri_flat);
  free(s->normal);
  free(s);
}
