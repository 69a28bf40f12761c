// A small SVG line / scatter plot writer for the HTML report: axes with ticks and grid, linear
// or log axes, series with markers, an optional line and a legend. It knows nothing about
// tightfit; the caller chooses the data. Every element a test or a browser check looks for is
// classed: the <svg> carries the plot's id and data-nseries, each series is a <g class="series">
// and each drawn point an element of class "point" with a hover <title>.
#ifndef TF_SVG_PLOT_H
#define TF_SVG_PLOT_H

#include <stdio.h>

typedef enum tf_svg_marker {
  TF_SVG_CIRCLE = 0,
  TF_SVG_SQUARE,
  TF_SVG_TRIANGLE,
  TF_SVG_DIAMOND,
  TF_SVG_CROSS,
  TF_SVG_NMARKER
} tf_svg_marker;

typedef struct tf_svg_series {
  const char* name;        // legend text
  int npoint;              // markers
  const double* x;         // (npoint) a point with a coordinate that is not finite, or beyond
                           // 1e+-150 (other than 0), is not drawn
  const double* y;         // (npoint)
  const char* const* tip;  // (npoint) hover text of each point, or NULL
  const int* bad;          // (npoint) 1 draws the point with a red ring (a failed run), or NULL
  int nline;               // points of the line through the series; 0: markers only
  const double* line_x;    // (nline) in drawing order
  const double* line_y;    // (nline)
  int color;               // palette index (wraps)
  tf_svg_marker marker;    // marker shape (wraps)
  int dashed;              // 1: dashed line
} tf_svg_series;

typedef struct tf_svg_plot {
  const char* id;      // the <svg> element's id
  const char* title;   // accessible name (<title> of the svg)
  const char* xlabel;  // axis labels, with units
  const char* ylabel;
  int xlog;  // 1: log axis; values <= 0 are drawn at the axis floor, labelled 0
  int ylog;
  int nseries;
  const tf_svg_series* series;  // (nseries)
} tf_svg_plot;

// writes the <svg> element; returns the number of points drawn (0 when nothing was finite)
int tf_svg_plot_write(FILE* f, const tf_svg_plot* p);

// 1 when an axis can hold v: finite, and zero or within 1e-150..1e150 in magnitude (so
// ranges, logarithms and powers of ten stay finite); points outside are not drawn
int tf_svg_plottable(double v);

// "nice" linear tick step (1, 2 or 5 times a power of ten) giving about `want` intervals
// over [lo, hi]; exposed for tests
double tf_svg_nice_step(double lo, double hi, int want);

#endif  // TF_SVG_PLOT_H
