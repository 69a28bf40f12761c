// RGB8 images: allocation, sub-views (grid frames, overlays), area-weighted resampling for
// thumbnails, and PSNR for golden-image tests.
//
// Resampling weights are exact integers: along x, destination pixel i covers source
// interval [i sw / dw, (i + 1) sw / dw); scaling both by dw, source pixel j covers
// [j dw, (j + 1) dw) and the overlap of the two is an integer, as is the total (sw per
// column, sh per row). The result is therefore the same on every machine.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "render.h"

int tf_image_alloc(tf_image* img, int width, int height, char* err, size_t errlen) {
  img->rgb = NULL;
  img->width = img->height = img->stride = 0;
  if (width < 1 || height < 1 || width > TF_IMAGE_MAX_SIDE || height > TF_IMAGE_MAX_SIDE) {
    snprintf(err, errlen, "image: size %dx%d is out of range (sides in [1, %d])", width, height,
             TF_IMAGE_MAX_SIDE);
    return -1;
  }
  img->rgb = calloc((size_t)width * (size_t)height, 3);
  if (!img->rgb) {
    snprintf(err, errlen, "image: out of memory for %dx%d", width, height);
    return -1;
  }
  img->width = width;
  img->height = height;
  img->stride = 3 * width;
  return 0;
}

void tf_image_free(tf_image* img) {
  free(img->rgb);
  img->rgb = NULL;
  img->width = img->height = img->stride = 0;
}

tf_image tf_image_sub(const tf_image* img, int x, int y, int width, int height) {
  int x0 = x < 0 ? 0 : x, y0 = y < 0 ? 0 : y;
  int x1 = x + width < img->width ? x + width : img->width;
  int y1 = y + height < img->height ? y + height : img->height;
  tf_image sub = {NULL, 0, 0, img->stride};
  if (x1 <= x0 || y1 <= y0) return sub;
  sub.rgb = img->rgb + (size_t)y0 * (size_t)img->stride + 3 * (size_t)x0;
  sub.width = x1 - x0;
  sub.height = y1 - y0;
  return sub;
}

// overlap weights of destination index i with the source indices it covers: writes the first
// source index and up to max weights, returns their count
static int weights(int i, int src, int dst, int* first, int64_t* w, int max) {
  int64_t lo = (int64_t)i * src, hi = (int64_t)(i + 1) * src;  // in units of 1 / dst source px
  int j0 = (int)(lo / dst), n = 0;
  *first = j0;
  for (int j = j0; (int64_t)j * dst < hi && j < src && n < max; j++) {
    int64_t a = (int64_t)j * dst > lo ? (int64_t)j * dst : lo;
    int64_t b = (int64_t)(j + 1) * dst < hi ? (int64_t)(j + 1) * dst : hi;
    w[n++] = b - a;
  }
  return n;
}

void tf_image_downscale(const tf_image* dst, const tf_image* src) {
  if (dst->width < 1 || dst->height < 1 || src->width < 1 || src->height < 1) return;
  // a destination pixel spans at most ceil(src / dst) + 1 source pixels along each axis
  int maxx = src->width / dst->width + 2, maxy = src->height / dst->height + 2;
  int64_t* wx = malloc(sizeof(int64_t) * (size_t)maxx);
  int64_t* wy = malloc(sizeof(int64_t) * (size_t)maxy);
  if (!wx || !wy) {
    free(wx);
    free(wy);
    return;
  }
  uint64_t total = (uint64_t)src->width * (uint64_t)src->height;
  for (int y = 0; y < dst->height; y++) {
    int sy0, ny = weights(y, src->height, dst->height, &sy0, wy, maxy);
    unsigned char* out = dst->rgb + (size_t)y * (size_t)dst->stride;
    for (int x = 0; x < dst->width; x++) {
      int sx0, nx = weights(x, src->width, dst->width, &sx0, wx, maxx);
      uint64_t sum[3] = {0, 0, 0};
      for (int j = 0; j < ny; j++) {
        const unsigned char* row =
            src->rgb + (size_t)(sy0 + j) * (size_t)src->stride + 3 * (size_t)sx0;
        for (int i = 0; i < nx; i++) {
          uint64_t wgt = (uint64_t)(wx[i] * wy[j]);
          for (int c = 0; c < 3; c++) sum[c] += wgt * row[3 * i + c];
        }
      }
      for (int c = 0; c < 3; c++) out[3 * x + c] = (unsigned char)((sum[c] + total / 2) / total);
    }
  }
  free(wx);
  free(wy);
}

double tf_image_psnr(const tf_image* a, const tf_image* b) {
  if (a->width != b->width || a->height != b->height) return -1;
  double se = 0;
  for (int y = 0; y < a->height; y++) {
    const unsigned char* pa = a->rgb + (size_t)y * (size_t)a->stride;
    const unsigned char* pb = b->rgb + (size_t)y * (size_t)b->stride;
    for (int i = 0; i < 3 * a->width; i++) {
      double d = (double)pa[i] - (double)pb[i];
      se += d * d;
    }
  }
  if (se == 0) return INFINITY;
  double mse = se / (3.0 * a->width * a->height);
  return 10 * log10(255.0 * 255.0 / mse);
}
