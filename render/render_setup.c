// Triangle setup: clip to the view, project to fixed point, cull back faces, bin by band.
//
// Clipping happens in camera space against five planes: the near plane (depth >= near, so
// 1 / depth stays finite) and the four sides of a guard band one image size beyond each edge
// of the sample grid. Triangles are only clipped when a corner leaves that band, which keeps
// the fixed-point coordinates small enough for exact 64-bit edge functions while triangles
// that merely overhang the image (the floor, a close-up's parts) are rasterised unclipped and
// cut to the image by their sample range. A clipped polygon (up to 8 corners) is fanned into
// triangles whose corners remember their barycentric coordinates in the source triangle, so
// shading interpolates the source's normals whatever the clipping did.
//
// Back faces: meshes are closed and counter-clockwise seen from outside, so a triangle whose
// projection turns clockwise on screen (y down: positive signed area) faces away and is
// dropped. A section view adds a sixth clip plane for the parts (never the ground) and keeps
// their back faces, marked: through the cut one sees the inside of a solid, and the nearest
// back face there stands for the cut face. Shadow triangles are the caster triangles facing the key
// light, each corner moved along the light onto the ground; together they cover the caster's shadow
// once.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render_internal.h"

#define FIXED_ONE (1 << RENDER_SUBPIXEL_BITS)
#define MAX_POLY (3 + RENDER_NPLANE)

double render_plane_distance(const render_view* v, const double p[3], int plane) {
  double half_w = 0.5 * v->width + v->guard, half_h = 0.5 * v->height + v->guard;
  switch (plane) {
    case 0:
      return p[2] - v->near;
    case 1:  // sample x >= -guard
      return v->focal * p[0] + half_w * p[2];
    case 2:  // sample x <= width + guard
      return -v->focal * p[0] + half_w * p[2];
    case 3:  // sample y >= -guard (y runs down the image)
      return -v->focal * p[1] + half_h * p[2];
    case 4:  // sample y <= height + guard
      return v->focal * p[1] + half_h * p[2];
    default:  // the section: the kept side
      return v->section[0] * p[0] + v->section[1] * p[1] + v->section[2] * p[2] + v->section[3];
  }
}

unsigned char render_outcode(const render_view* v, const double p[3]) {
  unsigned char code = 0;
  int nplane = v->cut ? RENDER_NPLANE : RENDER_NPLANE - 1;
  for (int plane = 0; plane < nplane; plane++) {
    if (render_plane_distance(v, p, plane) < 0) code |= (unsigned char)(1 << plane);
  }
  return code;
}

void render_project(const render_view* v, const double p[3], int32_t xy[2]) {
  double sx = 0.5 * v->width + v->focal * p[0] / p[2];
  double sy = 0.5 * v->height - v->focal * p[1] / p[2];
  xy[0] = (int32_t)floor(sx * FIXED_ONE + 0.5);
  xy[1] = (int32_t)floor(sy * FIXED_ONE + 0.5);
}

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

// samples whose centres ((i + 1/2) in sample units) can lie inside; 0 if none on the grid
static int sample_range(const int32_t x[3], const int32_t y[3], const render_view* v, int* xmin,
                        int* xmax, int* ymin, int* ymax) {
  int32_t lx = x[0], hx = x[0], ly = y[0], hy = y[0];
  for (int k = 1; k < 3; k++) {
    lx = x[k] < lx ? x[k] : lx, hx = x[k] > hx ? x[k] : hx;
    ly = y[k] < ly ? y[k] : ly, hy = y[k] > hy ? y[k] : hy;
  }
  const int64_t half = FIXED_ONE / 2;
  int64_t x0 = floor_div((int64_t)lx - half + FIXED_ONE - 1, FIXED_ONE);
  int64_t x1 = floor_div((int64_t)hx - half, FIXED_ONE);
  int64_t y0 = floor_div((int64_t)ly - half + FIXED_ONE - 1, FIXED_ONE);
  int64_t y1 = floor_div((int64_t)hy - half, FIXED_ONE);
  if (x0 < 0) x0 = 0;
  if (y0 < 0) y0 = 0;
  if (x1 > v->width - 1) x1 = v->width - 1;
  if (y1 > v->height - 1) y1 = v->height - 1;
  if (x0 > x1 || y0 > y1) return 0;
  *xmin = (int)x0, *xmax = (int)x1, *ymin = (int)y0, *ymax = (int)y1;
  return 1;
}

// twice the signed screen area (y down): negative for a triangle facing the camera
static int64_t signed_area(const int32_t x[3], const int32_t y[3]) {
  return ((int64_t)x[1] - x[0]) * ((int64_t)y[2] - y[0]) -
         ((int64_t)x[2] - x[0]) * ((int64_t)y[1] - y[0]);
}

static int grow(void** p, int* cap, int need, size_t item) {
  if (need <= *cap) return 0;
  int cap_new = *cap ? *cap : 256;
  while (cap_new < need) cap_new *= 2;
  void* q = realloc(*p, item * (size_t)cap_new);
  if (!q) return -1;
  *p = q;
  *cap = cap_new;
  return 0;
}

static void bin_record(render_chunk* chunk, render_bin* bins, int id, int ymin, int ymax) {
  for (int b = ymin / RENDER_BAND_ROWS; b <= ymax / RENDER_BAND_ROWS; b++) {
    render_bin* bin = &bins[b];
    if (grow((void**)&bin->idx, &bin->cap, bin->n + 1, sizeof(int))) {
      chunk->failed = 1;
      return;
    }
    bin->idx[bin->n++] = id;
  }
}

// a camera-space corner of a clipped polygon and its barycentrics in the source triangle
typedef struct clip_vertex {
  double p[3];
  double bary[3];
} clip_vertex;

// Sutherland-Hodgman against the planes in `planes`; returns the corner count (< 3: gone)
static int clip_polygon(const render_view* v, clip_vertex* poly, int n, unsigned char planes) {
  clip_vertex tmp[MAX_POLY];
  for (int plane = 0; plane < RENDER_NPLANE && n >= 3; plane++) {
    if (!(planes & (1 << plane))) continue;
    int m = 0;
    for (int i = 0; i < n; i++) {
      const clip_vertex *a = &poly[i], *b = &poly[(i + 1) % n];
      double da = render_plane_distance(v, a->p, plane);
      double db = render_plane_distance(v, b->p, plane);
      if (da >= 0) tmp[m++] = *a;
      if ((da >= 0) != (db >= 0)) {
        double t = da / (da - db);
        clip_vertex* c = &tmp[m++];
        for (int k = 0; k < 3; k++) {
          c->p[k] = a->p[k] + t * (b->p[k] - a->p[k]);
          c->bary[k] = a->bary[k] + t * (b->bary[k] - a->bary[k]);
        }
      }
    }
    memcpy(poly, tmp, sizeof(clip_vertex) * (size_t)m);
    n = m;
  }
  return n;
}

// appends a visible triangle record; clip_bary NULL for an unclipped one. Back faces are
// dropped unless keep_back (a cut solid shows its inside through the cut)
static void emit_tri(render_chunk* chunk, const render_view* v, const int32_t x[3],
                     const int32_t y[3], const float invw[3], int src, const float* clip_bary,
                     int keep_back) {
  int64_t area = signed_area(x, y);
  if (area == 0 || (area > 0 && !keep_back)) return;
  int xmin, xmax, ymin, ymax;
  if (!sample_range(x, y, v, &xmin, &xmax, &ymin, &ymax)) return;
  if (chunk->ntri >= RENDER_MAX_CHUNK_RECORDS ||
      grow((void**)&chunk->tri, &chunk->captri, chunk->ntri + 1, sizeof(raster_tri))) {
    chunk->failed = 1;
    return;
  }
  raster_tri* t = &chunk->tri[chunk->ntri];
  memcpy(t->x, x, sizeof(t->x));
  memcpy(t->y, y, sizeof(t->y));
  memcpy(t->invw, invw, sizeof(t->invw));
  t->src = src;
  t->clip = -1;
  t->back = area > 0;
  if (clip_bary) {
    if (grow((void**)&chunk->clip, &chunk->capclip, chunk->nclip + 1, 9 * sizeof(float))) {
      chunk->failed = 1;
      return;
    }
    memcpy(chunk->clip + 9 * chunk->nclip, clip_bary, 9 * sizeof(float));
    t->clip = chunk->nclip++;
  }
  t->xmin = xmin, t->xmax = xmax, t->ymin = ymin, t->ymax = ymax;
  bin_record(chunk, chunk->bins, chunk->ntri++, ymin, ymax);
}

static void emit_shadow(render_chunk* chunk, const render_view* v, const int32_t x[3],
                        const int32_t y[3]) {
  if (signed_area(x, y) == 0) return;
  int xmin, xmax, ymin, ymax;
  if (!sample_range(x, y, v, &xmin, &xmax, &ymin, &ymax)) return;
  if (chunk->nshadow >= RENDER_MAX_CHUNK_RECORDS ||
      grow((void**)&chunk->shadow, &chunk->capshadow, chunk->nshadow + 1, sizeof(shadow_tri))) {
    chunk->failed = 1;
    return;
  }
  shadow_tri* t = &chunk->shadow[chunk->nshadow];
  memcpy(t->x, x, sizeof(t->x));
  memcpy(t->y, y, sizeof(t->y));
  t->xmin = xmin, t->xmax = xmax, t->ymin = ymin, t->ymax = ymax;
  bin_record(chunk, chunk->shadow_bins, chunk->nshadow++, ymin, ymax);
}

// clips source triangle src (camera-space corners p) and emits the pieces
static void emit_clipped(render_chunk* chunk, const render_view* v, const double* p[3], int src,
                         unsigned char planes, int shadow, int keep_back) {
  clip_vertex poly[MAX_POLY];
  for (int k = 0; k < 3; k++) {
    memcpy(poly[k].p, p[k], sizeof(poly[k].p));
    for (int j = 0; j < 3; j++) poly[k].bary[j] = j == k;
  }
  int n = clip_polygon(v, poly, 3, planes);
  int32_t fx[MAX_POLY][2];
  for (int k = 0; k < n; k++) render_project(v, poly[k].p, fx[k]);
  for (int k = 1; k + 1 < n; k++) {
    const int corner[3] = {0, k, k + 1};
    int32_t x[3], y[3];
    float invw[3], bary[9];
    for (int i = 0; i < 3; i++) {
      const clip_vertex* c = &poly[corner[i]];
      x[i] = fx[corner[i]][0];
      y[i] = fx[corner[i]][1];
      invw[i] = (float)(1 / c->p[2]);
      for (int j = 0; j < 3; j++) bary[3 * i + j] = (float)c->bary[j];
    }
    if (shadow) {
      emit_shadow(chunk, v, x, y);
    } else {
      emit_tri(chunk, v, x, y, invw, src, bary, keep_back);
    }
  }
}

// does the world triangle face the key light?
static int faces_light(const double* world, const int* t, const double light[3]) {
  const double *a = world + 3 * t[0], *b = world + 3 * t[1], *c = world + 3 * t[2];
  double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  double w[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  double n[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
  return n[0] * light[0] + n[1] * light[1] + n[2] * light[2] > 0;
}

void render_setup_chunk(const render_frame* f, render_chunk* chunk, int tri_begin, int tri_end) {
  const tf_render_scene* s = f->scene;
  const tf_renderer* r = f->renderer;
  const render_view* v = &f->view;
  chunk->ntri = chunk->nclip = chunk->nshadow = 0;
  chunk->failed = 0;
  for (int b = 0; b < f->nband; b++) chunk->bins[b].n = chunk->shadow_bins[b].n = 0;
  for (int i = tri_begin; i < tri_end && !chunk->failed; i++) {
    const int* t = s->tri + 3 * i;
    const render_geom* rg = &s->geom[s->tri_geom[i]];
    // a section cuts the parts, never the ground
    int cut = v->cut && !rg->plane;
    unsigned char mask = cut ? RENDER_VIEW_PLANES | RENDER_SECTION_PLANE : RENDER_VIEW_PLANES;
    unsigned char all = mask, any = 0;
    for (int k = 0; k < 3; k++) all &= r->outcode[t[k]], any |= r->outcode[t[k]] & mask;
    if (!all) {
      if (!any) {
        int32_t x[3], y[3];
        float invw[3];
        for (int k = 0; k < 3; k++) {
          x[k] = r->fixed[2 * t[k]];
          y[k] = r->fixed[2 * t[k] + 1];
          invw[k] = r->invw[t[k]];
        }
        emit_tri(chunk, v, x, y, invw, i, NULL, cut);
      } else {
        const double* p[3] = {r->view + 3 * t[0], r->view + 3 * t[1], r->view + 3 * t[2]};
        emit_clipped(chunk, v, p, i, any, 0, cut);
      }
    }
    // shadows come from the whole parts: a section is a way of looking, not of lighting
    if (rg->plane || !faces_light(r->world, t, v->light)) continue;
    all = RENDER_VIEW_PLANES, any = 0;
    for (int k = 0; k < 3; k++) {
      all &= r->shadow_outcode[t[k]];
      any |= r->shadow_outcode[t[k]] & RENDER_VIEW_PLANES;
    }
    if (all) continue;
    if (!any) {
      int32_t x[3], y[3];
      for (int k = 0; k < 3; k++) {
        x[k] = r->shadow_fixed[2 * t[k]];
        y[k] = r->shadow_fixed[2 * t[k] + 1];
      }
      emit_shadow(chunk, v, x, y);
    } else {
      const double* p[3] = {r->shadow_view + 3 * t[0], r->shadow_view + 3 * t[1],
                            r->shadow_view + 3 * t[2]};
      emit_clipped(chunk, v, p, i, any, 1, 0);
    }
  }
}
