// Rasterising one band of sample rows: depth-tested coverage of the visible triangles, then
// the shadow triangles' coverage.
//
// Coverage uses exact integer edge functions on fixed-point corners (Pineda, "A parallel
// algorithm for polygon rasterization", SIGGRAPH 1988) with the top-left fill rule: a sample
// centre on an edge shared by two triangles belongs to exactly one of them, so closed meshes
// show no cracks and no double hits. Each row starts from the edge values at its first sample
// computed from absolute coordinates, and steps are exact integer additions, so a sample's
// result does not depend on where its band starts.
//
// The depth test keeps the largest 1 / depth (strictly: the first of equal depths in triangle
// order wins). Attributes are interpolated perspective-correct: the stored (u, v) are the
// barycentrics of record corners 1 and 2 in camera space.
#include <string.h>

#include "render_internal.h"

#define FIXED_ONE (1 << RENDER_SUBPIXEL_BITS)
#define FIXED_HALF (FIXED_ONE / 2)

// the three edge functions of a triangle, oriented so the inside is >= 0
typedef struct edges {
  int64_t a[3], b[3];  // e_k(p) = a_k (px - x_k') + b_k (py - y_k'), k' = (k + 1) % 3
  int64_t bias[3];     // 0 on top and left edges, -1 elsewhere (the fill rule)
  int64_t area;        // e_0 + e_1 + e_2 everywhere: twice the triangle's area, > 0
} edges;

// 0 for a degenerate triangle
static int edges_setup(edges* e, const int32_t x[3], const int32_t y[3]) {
  for (int k = 0; k < 3; k++) {
    int i = (k + 1) % 3, j = (k + 2) % 3;
    e->a[k] = (int64_t)y[i] - y[j];
    e->b[k] = (int64_t)x[j] - x[i];
  }
  e->area = e->a[0] * ((int64_t)x[0] - x[1]) + e->b[0] * ((int64_t)y[0] - y[1]);
  if (e->area == 0) return 0;
  if (e->area < 0) {
    for (int k = 0; k < 3; k++) e->a[k] = -e->a[k], e->b[k] = -e->b[k];
    e->area = -e->area;
  }
  for (int k = 0; k < 3; k++) {
    int top_left = e->a[k] > 0 || (e->a[k] == 0 && e->b[k] > 0);
    e->bias[k] = top_left ? 0 : -1;
  }
  return 1;
}

// edge values (bias included) at the centre of sample (sx, sy)
static void edges_at(int64_t out[3], const edges* e, const int32_t x[3], const int32_t y[3], int sx,
                     int sy) {
  int64_t px = (int64_t)sx * FIXED_ONE + FIXED_HALF, py = (int64_t)sy * FIXED_ONE + FIXED_HALF;
  for (int k = 0; k < 3; k++) {
    int i = (k + 1) % 3;
    out[k] = e->a[k] * (px - x[i]) + e->b[k] * (py - y[i]) + e->bias[k];
  }
}

static int64_t ceil_div_pos(int64_t a, int64_t b) { return (a + b - 1) / b; }  // a >= 0, b > 0

// the samples [*lo, *hi] of row sy (starting from edge values e at sample xmin) where all
// three edge functions are >= 0, found exactly by integer division; 0 if none. Narrow
// triangles skip the divisions: testing a few samples is cheaper, and gives the same set.
static int row_span(const int64_t e[3], const int64_t step[3], int xmin, int xmax, int* lo,
                    int* hi) {
  int64_t first = 0, last = xmax - xmin;
  if (last < 8) {
    while (first <= last &&
           ((e[0] + step[0] * first) | (e[1] + step[1] * first) | (e[2] + step[2] * first)) < 0) {
      first++;
    }
    while (last >= first &&
           ((e[0] + step[0] * last) | (e[1] + step[1] * last) | (e[2] + step[2] * last)) < 0) {
      last--;
    }
  } else {
    for (int k = 0; k < 3 && first <= last; k++) {
      if (step[k] > 0) {
        if (e[k] < 0) {
          int64_t need = ceil_div_pos(-e[k], step[k]);
          first = need > first ? need : first;
        }
      } else if (step[k] < 0) {
        if (e[k] < 0) return 0;
        int64_t room = e[k] / -step[k];
        last = room < last ? room : last;
      } else if (e[k] < 0) {
        return 0;
      }
    }
  }
  if (first > last) return 0;
  *lo = xmin + (int)first;
  *hi = xmin + (int)last;
  return 1;
}

static void raster_tri_band(const raster_tri* t, uint32_t ref, render_band* band, int y0, int y1,
                            int width) {
  edges e;
  if (!edges_setup(&e, t->x, t->y)) return;
  int ymin = t->ymin > y0 ? t->ymin : y0, ymax = t->ymax < y1 - 1 ? t->ymax : y1 - 1;
  const float inv_area = 1.0f / (float)e.area;
  const float w0 = t->invw[0], w1 = t->invw[1], w2 = t->invw[2];
  int64_t step[3];
  for (int k = 0; k < 3; k++) step[k] = e.a[k] * FIXED_ONE;
  for (int sy = ymin; sy <= ymax; sy++) {
    int64_t v[3];
    int lo, hi;
    edges_at(v, &e, t->x, t->y, t->xmin, sy);
    if (!row_span(v, step, t->xmin, t->xmax, &lo, &hi)) continue;
    for (int k = 0; k < 3; k++) v[k] += step[k] * (lo - t->xmin) - e.bias[k];
    size_t row = (size_t)(sy - y0) * (size_t)width;
    float* depth = band->depth + row;
    for (int sx = lo; sx <= hi; sx++) {
      float b0 = (float)v[0] * inv_area;
      float b1 = (float)v[1] * inv_area;
      float b2 = (float)v[2] * inv_area;
      float invw = b0 * w0 + b1 * w1 + b2 * w2;
      if (invw > depth[sx]) {
        size_t i = row + (size_t)sx;
        float z = 1 / invw;
        depth[sx] = invw;
        band->ref[i] = ref;
        band->u[i] = b1 * w1 * z;
        band->v[i] = b2 * w2 * z;
      }
      v[0] += step[0], v[1] += step[1], v[2] += step[2];
    }
  }
}

static void shadow_tri_band(const shadow_tri* t, render_band* band, int y0, int y1, int width) {
  edges e;
  if (!edges_setup(&e, t->x, t->y)) return;
  int ymin = t->ymin > y0 ? t->ymin : y0, ymax = t->ymax < y1 - 1 ? t->ymax : y1 - 1;
  int64_t step[3];
  for (int k = 0; k < 3; k++) step[k] = e.a[k] * FIXED_ONE;
  for (int sy = ymin; sy <= ymax; sy++) {
    int64_t v[3];
    int lo, hi;
    edges_at(v, &e, t->x, t->y, t->xmin, sy);
    if (!row_span(v, step, t->xmin, t->xmax, &lo, &hi)) continue;
    memset(band->shadow + (size_t)(sy - y0) * (size_t)width + lo, 1, (size_t)(hi - lo + 1));
  }
}

void render_raster_band(const render_frame* f, render_band* band, int b) {
  const render_view* view = &f->view;
  const tf_renderer* r = f->renderer;
  int y0 = b * RENDER_BAND_ROWS;
  int y1 = y0 + RENDER_BAND_ROWS < view->height ? y0 + RENDER_BAND_ROWS : view->height;
  size_t n = (size_t)(y1 - y0) * (size_t)view->width;
  memset(band->depth, 0, n * sizeof(float));
  memset(band->ref, 0xff, n * sizeof(uint32_t));  // RENDER_REF_NONE
  memset(band->shadow, 0, n);
  for (int c = 0; c < r->threads; c++) {
    const render_chunk* chunk = &r->chunk[c];
    const render_bin* bin = &chunk->bins[b];
    uint32_t base = (uint32_t)c << RENDER_REF_CHUNK_SHIFT;
    for (int i = 0; i < bin->n; i++) {
      raster_tri_band(&chunk->tri[bin->idx[i]], base | (uint32_t)bin->idx[i], band, y0, y1,
                      view->width);
    }
  }
  for (int c = 0; c < r->threads; c++) {
    const render_chunk* chunk = &r->chunk[c];
    const render_bin* bin = &chunk->shadow_bins[b];
    for (int i = 0; i < bin->n; i++) {
      shadow_tri_band(&chunk->shadow[bin->idx[i]], band, y0, y1, view->width);
    }
  }
}
