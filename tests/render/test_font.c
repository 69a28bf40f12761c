// The overlay font: every glyph present and distinct, text measured and placed pixel for
// pixel, the box blended with rounded integer arithmetic, UTF-8 decoded (micro sign, '?' for
// the rest), and drawing clipped at every border: a text drawn partly or wholly outside an
// image, at any scale, matches the same text drawn inside a larger canvas and never touches a
// byte outside the image (the buffers are allocated to the byte; run under valgrind).
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "font.h"

#define NPRINTABLE (126 - 32 + 1)

// the style used for exact pixel checks: scale 1, no padding, no box, white ink
static tf_text_style plain_style(void) {
  tf_text_style s = tf_text_style_default();
  s.scale = 1;
  s.padding = 0;
  s.box_alpha = 0;
  s.color[0] = s.color[1] = s.color[2] = 255;
  return s;
}

static int ink_count(const uint8_t rows[TF_FONT_GLYPH_H]) {
  int n = 0;
  for (int r = 0; r < TF_FONT_GLYPH_H; r++) {
    for (int c = 0; c < TF_FONT_GLYPH_W; c++) n += rows[r] >> c & 1;
  }
  return n;
}

static void test_glyphs_distinct(void** state) {
  (void)state;
  // printable ASCII, then the micro and degree signs
  uint8_t g[NPRINTABLE + 2][TF_FONT_GLYPH_H];
  for (int i = 0; i < NPRINTABLE; i++) assert_int_equal(tf_font_glyph(g[i], 32u + i), 1);
  assert_int_equal(tf_font_glyph(g[NPRINTABLE], 0xB5), 1);
  assert_int_equal(tf_font_glyph(g[NPRINTABLE + 1], 0xB0), 1);
  assert_int_equal(ink_count(g[0]), 0);  // space
  for (int i = 1; i < NPRINTABLE + 2; i++) {
    if (ink_count(g[i]) == 0) fail_msg("glyph %d is blank", i);
    for (int r = 0; r < TF_FONT_GLYPH_H; r++) {
      assert_true(g[i][r] < 1u << TF_FONT_GLYPH_W);  // no bits past the glyph's width
    }
  }
  for (int i = 0; i < NPRINTABLE + 2; i++) {
    for (int j = i + 1; j < NPRINTABLE + 2; j++) {
      if (memcmp(g[i], g[j], sizeof g[i]) == 0) fail_msg("glyphs %d and %d are the same", i, j);
    }
  }
  // only descenders reach below the baseline, and every letter has one row on the cap line
  // or the x-height line, so lines of text sit on one baseline
  const char* descenders = "gjpqy,;_";
  for (int i = 1; i < NPRINTABLE; i++) {
    int below = g[i][7] | g[i][8];
    if (below && !strchr(descenders, 32 + i)) fail_msg("'%c' reaches below the baseline", 32 + i);
    if (strchr("gjpqy_", 32 + i) && !below) fail_msg("'%c' has no descender", 32 + i);
  }
}

static void test_glyph_fallback(void** state) {
  (void)state;
  uint8_t q[TF_FONT_GLYPH_H], g[TF_FONT_GLYPH_H];
  tf_font_glyph(q, '?');
  const uint32_t missing[] = {0, 9, 10, 31, 127, 0xE9, 0x263A, 0xFFFD, 0x10FFFF};
  for (size_t i = 0; i < sizeof missing / sizeof missing[0]; i++) {
    assert_int_equal(tf_font_glyph(g, missing[i]), 0);
    assert_memory_equal(g, q, sizeof q);
  }
}

static void test_measure(void** state) {
  (void)state;
  tf_text_style s = plain_style();
  int w, h;
  tf_font_measure(&w, &h, "", &s);
  assert_int_equal(w, 0);
  assert_int_equal(h, 0);
  tf_font_measure(&w, &h, "AB", &s);
  assert_int_equal(w, 2 * TF_FONT_ADVANCE_X - 1);
  assert_int_equal(h, TF_FONT_GLYPH_H);
  tf_font_measure(&w, &h, "A\nBCD\n", &s);  // the widest line counts; a last empty line too
  assert_int_equal(w, 3 * TF_FONT_ADVANCE_X - 1);
  assert_int_equal(h, 2 * TF_FONT_ADVANCE_Y + TF_FONT_GLYPH_H);
  tf_font_measure(&w, &h, "\xc2\xb5m", &s);  // one UTF-8 character is one column
  assert_int_equal(w, 2 * TF_FONT_ADVANCE_X - 1);
  s.scale = 3;
  s.padding = 2;
  tf_font_measure(&w, &h, "depth", &s);
  assert_int_equal(w, 3 * (5 * TF_FONT_ADVANCE_X - 1) + 2 * 2 * 3);
  assert_int_equal(h, 3 * TF_FONT_GLYPH_H + 2 * 2 * 3);
}

// a width x height RGB image of one colour, rows stride bytes apart, allocated to the byte
static uint8_t* image(int width, int height, int stride, uint8_t value) {
  size_t n = (size_t)stride * (size_t)(height - 1) + 3 * (size_t)width;
  uint8_t* p = malloc(n);
  assert_non_null(p);
  memset(p, value, n);
  return p;
}

static void test_draw_exact_pixels(void** state) {
  (void)state;
  tf_text_style s = plain_style();
  const int w = 20, h = 12;
  uint8_t* img = image(w, h, 3 * w, 0);
  tf_font_draw(img, w, h, 3 * w, 1, 2, "Hg", &s);
  uint8_t H[TF_FONT_GLYPH_H], G[TF_FONT_GLYPH_H];
  tf_font_glyph(H, 'H');
  tf_font_glyph(G, 'g');
  for (int y = 0; y < h; y++) {
    for (int x = 0; x < w; x++) {
      int r = y - 2, c = x - 1, ink = 0;
      if (r >= 0 && r < TF_FONT_GLYPH_H && c >= 0 && c < TF_FONT_GLYPH_W) {
        ink = H[r] >> (TF_FONT_GLYPH_W - 1 - c) & 1;
      }
      c -= TF_FONT_ADVANCE_X;
      if (r >= 0 && r < TF_FONT_GLYPH_H && c >= 0 && c < TF_FONT_GLYPH_W) {
        ink = G[r] >> (TF_FONT_GLYPH_W - 1 - c) & 1;
      }
      for (int k = 0; k < 3; k++) {
        if (img[3 * (y * w + x) + k] != (ink ? 255 : 0)) fail_msg("pixel (%d, %d)", x, y);
      }
    }
  }
  free(img);
}

static void test_draw_scaled_with_box(void** state) {
  (void)state;
  tf_text_style s = tf_text_style_default();  // scale 2, padding 2, box alpha 160
  const int w = 40, h = 40;
  uint8_t* img = image(w, h, 3 * w, 255);
  tf_font_draw(img, w, h, 3 * w, 3, 5, "|", &s);
  int bw, bh;
  tf_font_measure(&bw, &bh, "|", &s);
  assert_int_equal(bw, 2 * 5 + 2 * 4);
  // the box: rounded blend of its colour over white
  uint8_t boxed = (uint8_t)((s.box_color[0] * 160 + 255 * 95 + 127) / 255);
  assert_int_equal(img[3 * (5 * w + 3)], boxed);                      // the box's top-left pixel
  assert_int_equal(img[3 * ((5 + bh - 1) * w + 3 + bw - 1)], boxed);  // bottom-right
  assert_int_equal(img[3 * (4 * w + 3)], 255);                        // just above it
  assert_int_equal(img[3 * (5 * w + 2)], 255);                        // just left of it
  assert_int_equal(img[3 * ((5 + bh) * w + 3)], 255);                 // just below it
  assert_int_equal(img[3 * (5 * w + 3 + bw)], 255);                   // just right of it
  // '|' is the middle column, all 7 rows: a 2 x 14 bar of ink after the 4-pixel padding
  for (int y = 0; y < 7 * 2; y++) {
    for (int x = 0; x < 2; x++) {
      const uint8_t* p = img + 3 * ((5 + 4 + y) * w + 3 + 4 + 2 * 2 + x);
      assert_memory_equal(p, s.color, 3);
    }
  }
  free(img);
}

static void test_utf8(void** state) {
  (void)state;
  tf_text_style s = plain_style();
  const int w = 12, h = 9;
  uint8_t* a = image(w, h, 3 * w, 0);
  uint8_t* b = image(w, h, 3 * w, 0);
  uint8_t mu[TF_FONT_GLYPH_H];
  tf_font_glyph(mu, 0xB5);
  tf_font_draw(a, w, h, 3 * w, 0, 0, "\xc2\xb5", &s);
  for (int r = 0; r < TF_FONT_GLYPH_H; r++) {
    for (int c = 0; c < TF_FONT_GLYPH_W; c++) {
      assert_int_equal(a[3 * (r * w + c)], (mu[r] >> (4 - c) & 1) ? 255 : 0);
    }
  }
  // a stray continuation byte and a truncated sequence are one '?' each
  memset(a, 0, 3 * w * h);
  tf_font_draw(a, w, h, 3 * w, 0, 0, "\x80\xe2\x82", &s);
  tf_font_draw(b, w, h, 3 * w, 0, 0, "??", &s);
  assert_memory_equal(a, b, 3 * w * h);
  free(a);
  free(b);
}

// draws text at (x, y) into a small image and at (x + m, y + m) into a canvas m pixels larger
// on every side; the small image must equal the canvas's middle, and the padding bytes at the
// end of each row (stride > 3 * width) must stay untouched
static void check_clip(const char* text, int x, int y, const tf_text_style* s) {
  const int w = 23, h = 17, stride = 3 * w + 5, m = 64;
  const int cw = w + 2 * m, ch = h + 2 * m;
  uint8_t* small = image(w, h, stride, 77);
  uint8_t* canvas = image(cw, ch, 3 * cw, 77);
  tf_font_draw(small, w, h, stride, x, y, text, s);
  tf_font_draw(canvas, cw, ch, 3 * cw, x + m, y + m, text, s);
  for (int r = 0; r < h; r++) {
    const uint8_t* a = small + (size_t)r * stride;
    const uint8_t* b = canvas + (size_t)(r + m) * 3 * cw + 3 * m;
    if (memcmp(a, b, 3 * w) != 0)
      fail_msg("'%s' at (%d, %d) scale %d: row %d", text, x, y, s->scale, r);
    if (r < h - 1) {
      for (int k = 3 * w; k < stride; k++) assert_int_equal(a[k], 77);
    }
  }
  free(small);
  free(canvas);
}

static void test_clipping(void** state) {
  (void)state;
  const char* texts[] = {"peg  al  dt=2ms  t=0.412s  depth=12.3\xc2\xb5m", "Wg\nj_|\n\n@#", "y"};
  const int scales[] = {1, 2, 5};
  for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++) {
    for (size_t k = 0; k < sizeof scales / sizeof scales[0]; k++) {
      tf_text_style s = tf_text_style_default();
      s.scale = scales[k];
      for (int y = -40; y <= 20; y += 7) {
        for (int x = -60; x <= 26; x += 9) check_clip(texts[t], x, y, &s);
      }
    }
  }
}

// far off the image, at the largest scale, with a long text: nothing is drawn, nothing wraps
static void test_extreme_positions(void** state) {
  (void)state;
  tf_text_style s = tf_text_style_default();
  s.scale = TF_FONT_MAX_SCALE;
  const int w = 16, h = 16;
  uint8_t* img = image(w, h, 3 * w, 9);
  uint8_t* ref = image(w, h, 3 * w, 9);
  char* long_text = malloc(100001);
  assert_non_null(long_text);
  memset(long_text, 'M', 100000);
  long_text[100000] = 0;
  const int far[][2] = {{INT_MAX, 0},       {0, INT_MAX},       {INT_MIN, 0}, {0, INT_MIN},
                        {INT_MAX, INT_MAX}, {INT_MIN, INT_MIN}, {w, 0},       {0, h}};
  for (size_t i = 0; i < sizeof far / sizeof far[0]; i++) {
    tf_font_draw(img, w, h, 3 * w, far[i][0], far[i][1], long_text, &s);
    assert_memory_equal(img, ref, 3 * w * h);
  }
  int bw, bh;
  tf_font_measure(&bw, &bh, long_text, &s);
  assert_int_equal(
      bw, (100000 * TF_FONT_ADVANCE_X - 1) * TF_FONT_MAX_SCALE + 2 * s.padding * TF_FONT_MAX_SCALE);
  // 6 million columns at scale 32 pass INT_MAX: clamped, not wrapped
  char* longer = malloc(6000001);
  assert_non_null(longer);
  memset(longer, 'M', 6000000);
  longer[6000000] = 0;
  tf_font_measure(&bw, &bh, longer, &s);
  assert_int_equal(bw, INT_MAX / 2);
  assert_int_equal(bh, TF_FONT_GLYPH_H * TF_FONT_MAX_SCALE + 2 * s.padding * TF_FONT_MAX_SCALE);
  free(longer);
  // covering the whole image from far up-left: every pixel in the box
  tf_font_draw(img, w, h, 3 * w, -1000, -5, long_text, &s);
  assert_memory_not_equal(img, ref, 3 * w * h);
  free(long_text);
  free(img);
  free(ref);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_glyphs_distinct),
      cmocka_unit_test(test_glyph_fallback),
      cmocka_unit_test(test_measure),
      cmocka_unit_test(test_draw_exact_pixels),
      cmocka_unit_test(test_draw_scaled_with_box),
      cmocka_unit_test(test_utf8),
      cmocka_unit_test(test_clipping),
      cmocka_unit_test(test_extreme_positions),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
