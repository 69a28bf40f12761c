// PNG frames and thumbnails through libpng's simplified API (png_image, libpng >= 1.6): no
// setjmp error handling to get wrong, and the same bytes for the same pixels (no time chunk).
// Writes go through an atomic file (assets/file_io.h): a failure never leaves a partial PNG.
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_io.h"
#include "render.h"

int tf_png_write(const char* path, const tf_image* img, char* err, size_t errlen) {
  if (!img->rgb || img->width < 1 || img->height < 1 || img->stride < 3 * img->width) {
    snprintf(err, errlen, "%s: nothing to write (empty image)", path);
    return -1;
  }
  tf_atomic_file file;
  if (tf_atomic_open(&file, path, err, errlen)) return -1;
  png_image png;
  memset(&png, 0, sizeof(png));
  png.version = PNG_IMAGE_VERSION;
  png.width = (png_uint_32)img->width;
  png.height = (png_uint_32)img->height;
  png.format = PNG_FORMAT_RGB;
  if (!png_image_write_to_stdio(&png, file.f, 0, img->rgb, img->stride, NULL)) {
    snprintf(err, errlen, "%s: PNG encoding failed: %s", path, png.message);
    png_image_free(&png);
    tf_atomic_abort(&file);
    return -1;
  }
  return tf_atomic_commit(&file, err, errlen);
}

int tf_png_read(tf_image* img, const char* path, char* err, size_t errlen) {
  png_image png;
  memset(&png, 0, sizeof(png));
  png.version = PNG_IMAGE_VERSION;
  img->rgb = NULL;
  if (!png_image_begin_read_from_file(&png, path)) {
    snprintf(err, errlen, "%s: cannot read PNG: %s", path, png.message);
    return -1;
  }
  png.format = PNG_FORMAT_RGB;
  if (tf_image_alloc(img, (int)png.width, (int)png.height, err, errlen)) {
    png_image_free(&png);
    return -1;
  }
  if (!png_image_finish_read(&png, NULL, img->rgb, img->stride, NULL)) {
    snprintf(err, errlen, "%s: bad PNG data: %s", path, png.message);
    png_image_free(&png);
    tf_image_free(img);
    return -1;
  }
  return 0;
}
