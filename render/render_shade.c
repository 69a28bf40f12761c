// Shading a band's samples and resolving them 2x2 into pixels.
//
// Light: a sky-to-ground hemispheric ambient, the key light (Lambert, cut by the ground
// shadow on receivers), a headlight fill so faces turned from the key never go black, and
// a faint highlight on parts so metal reads as metal. Colours stay in [0, 1] display units;
// a pixel is the mean of its four samples, rounded once to 8 bits. In a section view the
// inside of a cut solid (its back faces, seen through the cut) is drawn flat, darker and
// hatched, as engineering drawings show a section.
//
// A pixel whose four samples show the same triangle (most of a part's interior) is shaded
// once at the mean of their barycentrics: the lighting is smooth across a pixel anyway, and
// it is four times cheaper. On the floor only the lighting is shared: the checker and the
// shadow are still taken per sample, so their edges stay antialiased.
#include <math.h>
#include <string.h>

#include "render_internal.h"

#define AMBIENT_SKY 0.40f     // ambient on a face looking straight up
#define AMBIENT_GROUND 0.24f  // ... and straight down
#define KEY 0.55f             // key light strength
#define FILL 0.22f            // headlight strength
#define HIGHLIGHT 0.10f       // peak of the highlight on parts
#define CHECKER_DARK 0.92f    // albedo factor of the floor's dark squares
#define CUT_LIGHT 0.55f       // a section's cut face: the part's albedo this dark ...
#define CUT_HATCH 0.75f       // ... and darker again on hatch lines
#define CUT_HATCH_PERIOD 6    // pixels between hatch lines (45 deg, screen space)

static const float sky_top[3] = {0.70f, 0.78f, 0.88f}, sky_horizon[3] = {0.90f, 0.92f, 0.95f};

// where a sample lies: its record, render geom and barycentrics in the source triangle
typedef struct surface_point {
  const raster_tri* tri;
  const render_geom* geom;
  int geom_index;
  float b[3];
} surface_point;

static void locate(surface_point* sp, const render_frame* f, uint32_t ref, float u, float v) {
  const render_chunk* chunk = &f->renderer->chunk[ref >> RENDER_REF_CHUNK_SHIFT];
  const raster_tri* t = &chunk->tri[ref & ((1u << RENDER_REF_CHUNK_SHIFT) - 1)];
  float corner[3] = {1 - u - v, u, v};
  if (t->clip >= 0) {
    const float* cb = chunk->clip + 9 * t->clip;
    for (int j = 0; j < 3; j++) {
      sp->b[j] = corner[0] * cb[j] + corner[1] * cb[3 + j] + corner[2] * cb[6 + j];
    }
  } else {
    for (int j = 0; j < 3; j++) sp->b[j] = corner[j];
  }
  sp->tri = t;
  sp->geom_index = f->scene->tri_geom[t->src];
  sp->geom = &f->scene->geom[sp->geom_index];
}

// the world normal at a surface point, interpolated and normalised
static void normal_at(float n[3], const render_frame* f, const surface_point* sp) {
  const float* nc = f->scene->normal + 9 * (size_t)sp->tri->src;
  const float* b = sp->b;
  float nl[3];
  for (int i = 0; i < 3; i++) nl[i] = b[0] * nc[i] + b[1] * nc[3 + i] + b[2] * nc[6 + i];
  const double* R = f->renderer->pose + 12 * sp->geom_index;
  for (int i = 0; i < 3; i++) {
    n[i] = (float)R[3 * i] * nl[0] + (float)R[3 * i + 1] * nl[1] + (float)R[3 * i + 2] * nl[2];
  }
  float len2 = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
  if (len2 > 0) {
    float inv = 1 / sqrtf(len2);
    n[0] *= inv, n[1] *= inv, n[2] *= inv;
  }
}

// the light falling on a unit normal (ambient, key unless shadowed, fill) and the highlight
static float lighting(const render_view* view, const float n[3], int shadowed, float* highlight) {
  float ndl =
      n[0] * (float)view->light[0] + n[1] * (float)view->light[1] + n[2] * (float)view->light[2];
  float ndf = -(n[0] * (float)view->forward[0] + n[1] * (float)view->forward[1] +
                n[2] * (float)view->forward[2]);
  float key = ndl > 0 && !shadowed ? ndl : 0;
  float fill = ndf > 0 ? ndf : 0;
  float up = 0.5f + 0.5f * n[2];
  *highlight = 0;
  if (key > 0) {
    const double* h = view->half_vector;
    float ndh = n[0] * (float)h[0] + n[1] * (float)h[1] + n[2] * (float)h[2];
    if (ndh > 0) {
      float p = ndh * ndh;  // ndh^32 by squaring: exact and cheap
      p *= p, p *= p, p *= p, p *= p;
      *highlight = HIGHLIGHT * p;
    }
  }
  return AMBIENT_GROUND + (AMBIENT_SKY - AMBIENT_GROUND) * up + KEY * key + FILL * fill;
}

void render_shade_prepare(const render_frame* f) {
  const tf_render_scene* s = f->scene;
  for (int k = 0; k < s->ngeom; k++) {
    if (!s->geom[k].receiver) continue;
    // a receiver is a square facing its geom frame's +z
    const double* R = f->renderer->pose + 12 * k;
    float n[3] = {(float)R[2], (float)R[5], (float)R[8]}, highlight;
    f->renderer->ground_light[2 * k] = lighting(&f->view, n, 0, &highlight);
    f->renderer->ground_light[2 * k + 1] = lighting(&f->view, n, 1, &highlight);
  }
}

// what neighbouring pixels can share, keyed by record (so the values depend only on the
// record, never on the order pixels are shaded in): a floor record's checker map, and the
// colour of a flat-shaded record (one normal, so one colour)
typedef struct shade_cache {
  uint32_t floor_ref;
  float c[6];
  uint32_t flat_ref;
  float flat_rgb[3];
} shade_cache;

// world x, y over the checker side on a record as an affine function of its (u, v):
// x = c[0] + u c[1] + v c[2], y = c[3] + u c[4] + v c[5] (source corners through the clip
// map, if any)
static const float* floor_map(shade_cache* cache, const render_frame* f, const surface_point* sp,
                              uint32_t ref) {
  if (cache->floor_ref == ref) return cache->c;
  cache->floor_ref = ref;
  float* c = cache->c;
  const tf_render_scene* s = f->scene;
  const int* tri = s->tri + 3 * (size_t)sp->tri->src;
  const double* world = f->renderer->world;
  double corner[3][2];  // world x, y of the record's corners
  const render_chunk* chunk = &f->renderer->chunk[ref >> RENDER_REF_CHUNK_SHIFT];
  for (int k = 0; k < 3; k++) {
    float b[3] = {k == 0, k == 1, k == 2};
    if (sp->tri->clip >= 0) memcpy(b, chunk->clip + 9 * sp->tri->clip + 3 * k, sizeof(b));
    corner[k][0] = corner[k][1] = 0;
    for (int i = 0; i < 3; i++) {
      corner[k][0] += b[i] * world[3 * tri[i]];
      corner[k][1] += b[i] * world[3 * tri[i] + 1];
    }
  }
  // in checker squares, so that the checker test needs no scaling; a plain floor is one
  // square (all zero)
  double inv = f->view.inv_checker;
  for (int j = 0; j < 2; j++) {
    c[3 * j] = (float)(corner[0][j] * inv);
    c[3 * j + 1] = (float)((corner[1][j] - corner[0][j]) * inv);
    c[3 * j + 2] = (float)((corner[2][j] - corner[0][j]) * inv);
  }
  return c;
}

// the floor's albedo factor at (u, v): dark and light checker squares by world x, y
// (c is pre-scaled by 1 / the checker side, so squares are unit squares)
static inline float checker(const float c[6], float u, float v) {
  float fx = c[0] + u * c[1] + v * c[2], fy = c[3] + u * c[4] + v * c[5];
  if (!(fabsf(fx) < 1e9f && fabsf(fy) < 1e9f)) return 1;  // beyond int: no checker
  // floor by truncation and a correction: far cheaper than floor() on every floor sample
  int cx = (int)fx, cy = (int)fy;
  cx -= fx < (float)cx, cy -= fy < (float)cy;
  return (cx + cy) & 1 ? CHECKER_DARK : 1;
}

// a part's colour at a surface point (no shadow on parts: the shadow falls on the ground);
// a back face is only ever seen through a section cut, so it is drawn as the cut face: flat,
// darker, hatched by pixel (px, py)
static void part_colour(float out[3], const render_frame* f, shade_cache* cache, uint32_t ref,
                        const surface_point* sp, int px, int py) {
  if (sp->tri->back) {
    float light = CUT_LIGHT * ((px + py) % CUT_HATCH_PERIOD == 0 ? CUT_HATCH : 1);
    for (int i = 0; i < 3; i++) out[i] = sp->geom->rgb[i] * light;
    return;
  }
  int flat = f->scene->tri_flat[sp->tri->src];
  if (flat && cache->flat_ref == ref) {
    for (int i = 0; i < 3; i++) out[i] = cache->flat_rgb[i];
    return;
  }
  float n[3], highlight;
  normal_at(n, f, sp);
  float light = lighting(&f->view, n, 0, &highlight);
  for (int i = 0; i < 3; i++) out[i] = sp->geom->rgb[i] * light + highlight;
  if (flat) {
    cache->flat_ref = ref;
    for (int i = 0; i < 3; i++) cache->flat_rgb[i] = out[i];
  }
}

// one sample's colour
static void shade(float out[3], const render_frame* f, shade_cache* cache, uint32_t ref, float u,
                  float v, int shadowed, int px, int py) {
  surface_point sp;
  locate(&sp, f, ref, u, v);
  if (sp.geom->receiver) {
    const float* c = floor_map(cache, f, &sp, ref);
    float light = f->renderer->ground_light[2 * sp.geom_index + (shadowed ? 1 : 0)];
    light *= checker(c, u, v);
    for (int i = 0; i < 3; i++) out[i] = sp.geom->rgb[i] * light;
    return;
  }
  part_colour(out, f, cache, ref, &sp, px, py);
}

// the sum of a pixel's four samples when all show the same triangle (ref): a part is lit
// once at their mean barycentrics; on the ground, the checker and the shadow stay per sample
static void shade_uniform(float sum[3], const render_frame* f, shade_cache* cache,
                          const render_band* band, const size_t s[4], int px, int py) {
  uint32_t ref = band->ref[s[0]];
  float u = 0.25f * (band->u[s[0]] + band->u[s[1]] + band->u[s[2]] + band->u[s[3]]);
  float v = 0.25f * (band->v[s[0]] + band->v[s[1]] + band->v[s[2]] + band->v[s[3]]);
  surface_point sp;
  locate(&sp, f, ref, u, v);
  const float* rgb = sp.geom->rgb;
  if (!sp.geom->receiver) {
    float c[3];
    part_colour(c, f, cache, ref, &sp, px, py);
    for (int i = 0; i < 3; i++) sum[i] = 4 * c[i];
    return;
  }
  const float* ground = f->renderer->ground_light + 2 * sp.geom_index;
  const float* c = floor_map(cache, f, &sp, ref);
  float total = 0;
  for (int k = 0; k < 4; k++) {
    total += checker(c, band->u[s[k]], band->v[s[k]]) * ground[band->shadow[s[k]] ? 1 : 0];
  }
  for (int i = 0; i < 3; i++) sum[i] = rgb[i] * total;
}

static unsigned char to_byte(float sum4) {
  float x = 0.25f * sum4;
  if (!(x > 0)) return 0;
  if (x >= 1) return 255;
  return (unsigned char)(x * 255 + 0.5f);
}

void render_shade_band(const render_frame* f, const render_band* band, int b) {
  const render_view* view = &f->view;
  const tf_image* out = f->out;
  int y0 = b * RENDER_BAND_ROWS;
  int y1 = y0 + RENDER_BAND_ROWS < view->height ? y0 + RENDER_BAND_ROWS : view->height;
  int w = view->width;
  shade_cache cache = {RENDER_REF_NONE, {0}, RENDER_REF_NONE, {0}};
  for (int py = y0 / RENDER_SS; py < y1 / RENDER_SS; py++) {
    unsigned char* dst = out->rgb + (size_t)py * (size_t)out->stride;
    float t = (float)py / (float)(out->height > 1 ? out->height - 1 : 1);
    float sky[3];
    for (int i = 0; i < 3; i++) sky[i] = sky_top[i] + (sky_horizon[i] - sky_top[i]) * t;
    size_t row0 = (size_t)(RENDER_SS * py - y0) * (size_t)w;
    for (int px = 0; px < out->width; px++) {
      size_t s[4] = {row0 + 2 * (size_t)px, row0 + 2 * (size_t)px + 1,
                     row0 + (size_t)w + 2 * (size_t)px, row0 + (size_t)w + 2 * (size_t)px + 1};
      float sum[3] = {0, 0, 0}, c[3];
      uint32_t ref = band->ref[s[0]];
      if (ref != RENDER_REF_NONE && band->ref[s[1]] == ref && band->ref[s[2]] == ref &&
          band->ref[s[3]] == ref) {
        shade_uniform(sum, f, &cache, band, s, px, py);
      } else {
        for (int k = 0; k < 4; k++) {
          if (band->ref[s[k]] == RENDER_REF_NONE) {
            for (int i = 0; i < 3; i++) sum[i] += sky[i];
          } else {
            shade(c, f, &cache, band->ref[s[k]], band->u[s[k]], band->v[s[k]], band->shadow[s[k]],
                  px, py);
            for (int i = 0; i < 3; i++) sum[i] += c[i];
          }
        }
      }
      for (int i = 0; i < 3; i++) dst[3 * px + i] = to_byte(sum[i]);
    }
  }
}
