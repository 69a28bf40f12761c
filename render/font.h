// Built-in bitmap font for video overlays ("peg  al  dt=2ms  t=0.412s  depth=12.3um"): 5x9
// glyphs (7 rows of capitals above the baseline, 2 of descenders below) on a 6x11 cell,
// magnified by a whole factor, drawn over a dark translucent box so that text stays legible on
// any scene. Covers printable ASCII (32..126) plus the micro and degree signs; text is UTF-8,
// any other character draws as '?'. No files, no font library, same pixels everywhere.
#ifndef TF_FONT_H
#define TF_FONT_H

#include <stdint.h>

#define TF_FONT_GLYPH_W 5     // glyph bitmap width, pixels at scale 1
#define TF_FONT_GLYPH_H 9     // glyph bitmap height: 7 above the baseline, 2 below
#define TF_FONT_ADVANCE_X 6   // pen advance per character: the glyph plus one blank column
#define TF_FONT_ADVANCE_Y 11  // line advance: the glyph plus two blank rows
#define TF_FONT_MAX_SCALE 32  // largest magnification accepted

// how text is drawn; start from tf_text_style_default()
typedef struct tf_text_style {
  int scale;             // pixel magnification, 1..TF_FONT_MAX_SCALE (2 typical at 640x480)
  uint8_t color[3];      // text colour, RGB (near-white by default)
  uint8_t box_color[3];  // background box colour, RGB (near-black by default)
  int box_alpha;         // box opacity, 0 (no box) .. 255 (opaque); 160 typical
  int padding;           // box margin around the text, pixels at scale 1 (2 typical)
} tf_text_style;

tf_text_style tf_text_style_default(void);

// the glyph of a Unicode code point: bit (TF_FONT_GLYPH_W - 1 - c) of rows[r] is pixel (c, r),
// row 0 on top. Returns 1, or 0 when the font lacks it (rows then hold '?')
int tf_font_glyph(uint8_t rows[TF_FONT_GLYPH_H], uint32_t codepoint);

// the size in pixels of the box tf_font_draw fills for text ('\n' starts a new line): 0 x 0
// for empty text; sizes beyond INT_MAX / 2 are clamped there
void tf_font_measure(int* width, int* height, const char* text, const tf_text_style* style);

// draws text with the top-left corner of its box at (x, y) onto an RGB8 image (height rows of
// width pixels, 3 bytes each, rows stride bytes apart). Any part outside the image is clipped,
// so (x, y) may be negative or past the edges; pixels outside the box are never touched
void tf_font_draw(uint8_t* rgb, int width, int height, int stride, int x, int y, const char* text,
                  const tf_text_style* style);

#endif  // TF_FONT_H
