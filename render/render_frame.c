// A frame: the renderer's scratch memory, the threads, and the three stages of
// render_internal.h run one after another (pose, setup, bands).
//
// Threads are started per stage and joined at its end: a join is the barrier, nothing is
// shared between stages but the renderer's arrays, and a thread that fails to start simply
// has its share run by the calling thread (the result is the same, only slower). Starting
// a few threads costs tens of microseconds against milliseconds per stage.
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_internal.h"

tf_renderer* tf_renderer_create(int threads, char* err, size_t errlen) {
  if (threads < 1 || threads > RENDER_MAX_THREADS) {
    snprintf(err, errlen, "render: threads must be in [1, %d] (got %d)", RENDER_MAX_THREADS,
             threads);
    return NULL;
  }
  tf_renderer* r = calloc(1, sizeof(tf_renderer));
  if (!r) {
    snprintf(err, errlen, "render: out of memory");
    return NULL;
  }
  r->threads = threads;
  return r;
}

static void free_bins(render_bin* bins, int n) {
  for (int b = 0; bins && b < n; b++) free(bins[b].idx);
  free(bins);
}

void tf_renderer_destroy(tf_renderer* r) {
  if (!r) return;
  for (int t = 0; t < RENDER_MAX_THREADS; t++) {
    render_chunk* c = &r->chunk[t];
    free(c->tri);
    free(c->clip);
    free(c->shadow);
    free_bins(c->bins, c->nbin);
    free_bins(c->shadow_bins, c->nbin);
    render_band* b = &r->band[t];
    free(b->depth);
    free(b->ref);
    free(b->u);
    free(b->v);
    free(b->shadow);
  }
  free(r->world);
  free(r->view);
  free(r->outcode);
  free(r->fixed);
  free(r->invw);
  free(r->shadow_view);
  free(r->shadow_outcode);
  free(r->shadow_fixed);
  free(r->pose);
  free(r->ground_light);
  free(r);
}

// realloc that keeps the old block on failure; 0 or -1
static int resize(void** p, size_t bytes) {
  void* q = realloc(*p, bytes ? bytes : 1);
  if (!q) return -1;
  *p = q;
  return 0;
}

// bins for nband bands (new ones empty), keeping the old ones' storage
static int ensure_bins(render_bin** bins, int have, int need) {
  if (need <= have) return 0;
  if (resize((void**)bins, sizeof(render_bin) * (size_t)need)) return -1;
  memset(*bins + have, 0, sizeof(render_bin) * (size_t)(need - have));
  return 0;
}

// sizes every array for this scene and image; 0, or -1 when memory ran out
static int ensure_memory(tf_renderer* r, const tf_render_scene* s, const render_view* v,
                         int nband) {
  if (s->nvert > r->capvert) {
    size_t n = (size_t)s->nvert;
    if (resize((void**)&r->world, 3 * n * sizeof(double)) ||
        resize((void**)&r->view, 3 * n * sizeof(double)) || resize((void**)&r->outcode, n) ||
        resize((void**)&r->fixed, 2 * n * sizeof(int32_t)) ||
        resize((void**)&r->invw, n * sizeof(float)) ||
        resize((void**)&r->shadow_view, 3 * n * sizeof(double)) ||
        resize((void**)&r->shadow_outcode, n) ||
        resize((void**)&r->shadow_fixed, 2 * n * sizeof(int32_t))) {
      return -1;
    }
    r->capvert = s->nvert;
  }
  if (s->ngeom > r->capgeom) {
    if (resize((void**)&r->pose, 12 * (size_t)s->ngeom * sizeof(double)) ||
        resize((void**)&r->ground_light, 2 * (size_t)s->ngeom * sizeof(float))) {
      return -1;
    }
    r->capgeom = s->ngeom;
  }
  for (int t = 0; t < r->threads; t++) {
    render_chunk* c = &r->chunk[t];
    if (ensure_bins(&c->bins, c->nbin, nband) || ensure_bins(&c->shadow_bins, c->nbin, nband)) {
      return -1;
    }
    if (nband > c->nbin) c->nbin = nband;
    render_band* b = &r->band[t];
    int need = RENDER_BAND_ROWS * v->width;
    if (need > b->cap) {
      size_t n = (size_t)need;
      if (resize((void**)&b->depth, n * sizeof(float)) ||
          resize((void**)&b->ref, n * sizeof(uint32_t)) ||
          resize((void**)&b->u, n * sizeof(float)) || resize((void**)&b->v, n * sizeof(float)) ||
          resize((void**)&b->shadow, n)) {
        return -1;
      }
      b->cap = need;
    }
  }
  return 0;
}

// each render geom's pose this frame (the floor's is the identity)
static void pose_geoms(const render_frame* f) {
  const tf_render_scene* s = f->scene;
  double* pose = f->renderer->pose;
  for (int k = 0; k < s->ngeom; k++) {
    double* out = pose + 12 * k;
    int g = s->geom[k].geom;
    if (g >= 0) {
      memcpy(out, f->data->geom_xmat + 9 * g, 9 * sizeof(double));
      memcpy(out + 9, f->data->geom_xpos + 3 * g, 3 * sizeof(double));
    } else {
      const double identity[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
      memcpy(out, identity, sizeof(identity));
    }
  }
}

static void to_camera(double out[3], const render_view* v, const double w[3]) {
  double rel[3] = {w[0] - v->eye[0], w[1] - v->eye[1], w[2] - v->eye[2]};
  out[0] = rel[0] * v->right[0] + rel[1] * v->right[1] + rel[2] * v->right[2];
  out[1] = rel[0] * v->up[0] + rel[1] * v->up[1] + rel[2] * v->up[2];
  out[2] = rel[0] * v->forward[0] + rel[1] * v->forward[1] + rel[2] * v->forward[2];
}

// stage 1 over scene vertices [v0, v1)
static void pose_vertices(const render_frame* f, int v0, int v1) {
  const tf_render_scene* s = f->scene;
  tf_renderer* r = f->renderer;
  const render_view* v = &f->view;
  for (int k = 0; k < s->ngeom; k++) {
    const render_geom* rg = &s->geom[k];
    int lo = rg->vert_adr > v0 ? rg->vert_adr : v0;
    int hi = rg->vert_adr + rg->vert_num < v1 ? rg->vert_adr + rg->vert_num : v1;
    const double* R = r->pose + 12 * k;
    const double* p = R + 9;
    for (int i = lo; i < hi; i++) {
      const double* local = s->vert + 3 * i;
      double* w = r->world + 3 * i;
      for (int j = 0; j < 3; j++) {
        w[j] = p[j] + R[3 * j] * local[0] + R[3 * j + 1] * local[1] + R[3 * j + 2] * local[2];
      }
      double* c = r->view + 3 * i;
      to_camera(c, v, w);
      r->outcode[i] = render_outcode(v, c);
      if (!(r->outcode[i] & RENDER_VIEW_PLANES)) {
        render_project(v, c, r->fixed + 2 * i);
        r->invw[i] = (float)(1 / c[2]);
      }
      if (rg->plane) continue;
      // along the light onto the ground; points under the ground stay where they are
      double drop = w[2] > s->ground_z ? (w[2] - s->ground_z) / v->light[2] : 0;
      double g[3] = {w[0] - drop * v->light[0], w[1] - drop * v->light[1],
                     w[2] - drop * v->light[2]};
      double* sc = r->shadow_view + 3 * i;
      to_camera(sc, v, g);
      r->shadow_outcode[i] = render_outcode(v, sc);
      if (!(r->shadow_outcode[i] & RENDER_VIEW_PLANES)) {
        render_project(v, sc, r->shadow_fixed + 2 * i);
      }
    }
  }
}

typedef enum stage { STAGE_POSE, STAGE_SETUP, STAGE_BANDS } stage;

typedef struct worker {
  const render_frame* frame;
  stage stage;
  int index;
  pthread_t thread;
} worker;

// thread `index` of the renderer's threads does its share of the stage
static void run_share(const render_frame* f, stage st, int index) {
  tf_renderer* r = f->renderer;
  int n = r->threads;
  if (st == STAGE_POSE) {
    long long nv = f->scene->nvert;
    pose_vertices(f, (int)(nv * index / n), (int)(nv * (index + 1) / n));
  } else if (st == STAGE_SETUP) {
    long long nt = f->scene->ntri;
    render_setup_chunk(f, &r->chunk[index], (int)(nt * index / n), (int)(nt * (index + 1) / n));
  } else {
    for (int b = index; b < f->nband; b += n) {
      render_raster_band(f, &r->band[index], b);
      render_shade_band(f, &r->band[index], b);
    }
  }
}

static void* worker_main(void* arg) {
  const worker* w = arg;
  run_share(w->frame, w->stage, w->index);
  return NULL;
}

static void run_stage(const render_frame* f, stage st) {
  int n = f->renderer->threads;
  worker w[RENDER_MAX_THREADS];
  int started[RENDER_MAX_THREADS] = {0};
  for (int t = 1; t < n; t++) {
    w[t] = (worker){.frame = f, .stage = st, .index = t};
    started[t] = pthread_create(&w[t].thread, NULL, worker_main, &w[t]) == 0;
  }
  run_share(f, st, 0);
  for (int t = 1; t < n; t++) {
    if (started[t]) {
      pthread_join(w[t].thread, NULL);
    } else {
      run_share(f, st, t);
    }
  }
}

static int check_image(const tf_image* out, char* err, size_t errlen) {
  if (!out || !out->rgb || out->width < 1 || out->height < 1 || out->width > TF_IMAGE_MAX_SIDE ||
      out->height > TF_IMAGE_MAX_SIDE || out->stride < 3 * out->width) {
    snprintf(err, errlen, "render: bad image (%dx%d, stride %d): sides must be in [1, %d]",
             out ? out->width : 0, out ? out->height : 0, out ? out->stride : 0, TF_IMAGE_MAX_SIDE);
    return -1;
  }
  return 0;
}

int tf_render(tf_renderer* r, const tf_render_scene* s, const tf_model* m, const tf_data* d,
              const tf_camera* cam, const tf_image* out, char* err, size_t errlen) {
  if (check_image(out, err, errlen)) return -1;
  if (m->ngeom != s->model_ngeom || m->nbody != s->model_nbody) {
    snprintf(err, errlen, "render: the scene was built for another model (%d geoms, not %d)",
             s->model_ngeom, m->ngeom);
    return -1;
  }
  render_frame f = {.scene = s, .data = d, .renderer = r, .out = out};
  if (render_view_setup(&f.view, cam, out->width, out->height, err, errlen)) return -1;
  f.view.inv_checker = s->checker > 0 ? 1 / s->checker : 0;
  f.nband = (f.view.height + RENDER_BAND_ROWS - 1) / RENDER_BAND_ROWS;
  if (ensure_memory(r, s, &f.view, f.nband)) {
    snprintf(err, errlen, "render: out of memory for a %dx%d frame", out->width, out->height);
    return -1;
  }
  pose_geoms(&f);
  run_stage(&f, STAGE_POSE);
  run_stage(&f, STAGE_SETUP);
  for (int t = 0; t < r->threads; t++) {
    if (r->chunk[t].failed) {
      snprintf(err, errlen, "render: out of memory setting up %d triangles", s->ntri);
      return -1;
    }
  }
  render_shade_prepare(&f);
  run_stage(&f, STAGE_BANDS);
  return 0;
}
