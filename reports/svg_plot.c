// SVG line / scatter plots (see svg_plot.h). Layout is fixed in SVG user units and the
// element scales through its viewBox, so the page's CSS decides the size on screen.
#include "svg_plot.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "html_escape.h"

// geometry in SVG user units: the plot area, with room for tick labels and the legend
enum {
  PLOT_W = 720,
  PLOT_H = 400,
  PLOT_LEFT = 78,
  PLOT_RIGHT = 540,
  PLOT_TOP = 16,
  PLOT_BOTTOM = 344,
  LEGEND_X = 556,
  LEGEND_NAME_MAX = 26,
  LEGEND_ROWS = 17,  // as many as fit beside the plot area
  INSET = 8,         // data keep clear of the frame, so a point at the range's end stays visible
};

// Okabe-Ito colours (distinct to colour-blind readers), yellow left out: too faint on white
static const char* const palette[] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7",
                                      "#e69f00", "#56b4e9", "#000000", "#7f7f7f"};
enum { NPALETTE = sizeof palette / sizeof palette[0] };

// one axis: the data range and how it maps onto pixels
typedef struct axis {
  int log;          // 1: lo and hi are log10 of the values
  int clamped;      // log only: values <= 0 exist and sit on the floor decade
  double lo, hi;    // range in data units (linear) or log10 units (log)
  double step;      // linear only: tick spacing
  double px0, px1;  // pixel position of lo and hi
} axis;

double tf_svg_nice_step(double lo, double hi, int want) {
  double raw = (hi - lo) / (want > 0 ? want : 1);
  if (!(raw > 0) || !isfinite(raw)) return 1;
  double mag = pow(10, floor(log10(raw)));
  double r = raw / mag;
  double nice = r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10;
  return nice * mag;
}

// a value an axis can hold: finite, and within 1e+-150 of zero (or zero), so that ranges,
// steps, logarithms and powers of ten stay finite and nonzero; nothing physical lies beyond
int tf_svg_plottable(double v) {
  double m = fabs(v);
  return isfinite(v) && m <= 1e150 && (m == 0 || m >= 1e-150);
}

// a point is drawn when both coordinates are plottable (non-positive ones clamp on log axes)
static int drawable(double x, double y) { return tf_svg_plottable(x) && tf_svg_plottable(y); }

// the plottable values of one coordinate (0: x, 1: y) over all markers and lines
typedef struct range {
  int nfinite;          // finite values
  int npos;             // finite and > 0
  double lo, hi;        // over finite values
  double poslo, poshi;  // over values > 0
} range;

static void range_add(range* r, double v) {
  if (!tf_svg_plottable(v)) return;
  if (r->nfinite == 0 || v < r->lo) r->lo = v;
  if (r->nfinite == 0 || v > r->hi) r->hi = v;
  r->nfinite++;
  if (v > 0) {
    if (r->npos == 0 || v < r->poslo) r->poslo = v;
    if (r->npos == 0 || v > r->poshi) r->poshi = v;
    r->npos++;
  }
}

static range data_range(const tf_svg_plot* p, int coord) {
  range r = {0};
  for (int s = 0; s < p->nseries; s++) {
    const tf_svg_series* se = &p->series[s];
    // only points that will be drawn decide the range
    for (int i = 0; i < se->npoint; i++) {
      if (drawable(se->x[i], se->y[i])) range_add(&r, coord ? se->y[i] : se->x[i]);
    }
    for (int i = 0; i < se->nline; i++) {
      if (drawable(se->line_x[i], se->line_y[i])) {
        range_add(&r, coord ? se->line_y[i] : se->line_x[i]);
      }
    }
  }
  return r;
}

// chooses the axis range: whole decades on a log axis, nice steps on a linear one
// the 1-2-5 grid a log axis snaps to: the largest grid value <= v (dir -1) or smallest >= v
static double grid125(double v, int dir) {
  static const double m[] = {1, 2, 5, 10};
  double e = floor(log10(v) + 1e-9), best = dir < 0 ? pow(10, e) : pow(10, e + 1);
  for (int k = 0; k < 4; k++) {
    double g = m[k] * pow(10, e);
    if (dir < 0 && g <= v * (1 + 1e-9)) best = g;
    if (dir > 0 && g >= v * (1 - 1e-9)) return g;
  }
  return best;
}

// chooses the axis range: the 1-2-5 values around the data on a log axis, nice steps on a
// linear one; centre puts a single value mid-axis (x), else a range of zeros reads 0..1 (counts)
static axis axis_make(const range* r, int want_log, int centre, double px0, double px1) {
  axis a = {0};
  a.px0 = px0;
  a.px1 = px1;
  // a log axis needs at least one positive value; otherwise it falls back to linear
  if (want_log && r->npos > 0) {
    a.log = 1;
    double lo = grid125(r->poslo, -1), hi = grid125(r->poshi, +1);
    if (hi <= lo * (1 + 1e-9)) {
      lo = grid125(lo * 0.99, -1);
      hi = grid125(hi * 1.01, +1);
    }
    a.lo = log10(lo);
    a.hi = log10(hi);
    // zeros get the decade below the data to themselves, labelled 0
    if (r->npos < r->nfinite) {
      a.clamped = 1;
      a.lo = floor(a.lo + 1e-9) - 1;
    }
    return a;
  }
  double lo = r->nfinite ? r->lo : 0, hi = r->nfinite ? r->hi : 1;
  if (hi <= lo) {
    if (lo == 0 && !centre) {
      hi = 1;  // all zero: counts, show 0..1 rather than a negative half
    } else {
      double pad = lo == 0 ? 1 : fabs(lo) * 0.1;
      lo -= pad;
      hi += pad;
    }
  }
  double step = tf_svg_nice_step(lo, hi, 5);
  a.step = step;
  a.lo = floor(lo / step + 1e-9) * step;
  a.hi = ceil(hi / step - 1e-9) * step;
  if (a.hi <= a.lo) a.hi = a.lo + step;
  return a;
}

// pixel position of value v; non-positive values on a log axis sit on its floor
static double axis_px(const axis* a, double v) {
  double t;
  if (a->log) {
    t = v > 0 ? (log10(v) - a->lo) / (a->hi - a->lo) : 0;
  } else {
    t = (v - a->lo) / (a->hi - a->lo);
  }
  return a->px0 + t * (a->px1 - a->px0);
}

// a tick label: plain decimals in a readable range, else mantissa e exponent ("2e-5")
static void tick_label(char* buf, size_t n, double v) {
  double m = fabs(v);
  if (m == 0) {
    snprintf(buf, n, "0");
  } else if (m >= 1 && m < 1e7 && v == floor(v)) {
    snprintf(buf, n, "%.0f", v);  // whole rates and counts read best without an exponent
  } else if (m >= 1e-3 && m < 1e5) {
    snprintf(buf, n, "%.6g", v);
  } else {
    int e = (int)floor(log10(m) + 1e-9);
    snprintf(buf, n, "%.3ge%d", v / pow(10, e), e);
  }
}

// one tick: grid line across the plot and its label outside the axis
static void tick(FILE* f, int vertical_axis, double px, const char* label) {
  if (vertical_axis) {
    fprintf(f,
            "<line class=\"grid\" stroke=\"#e4e4e4\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>",
            PLOT_LEFT, px, PLOT_RIGHT, px);
    fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" dy=\"4\">", PLOT_LEFT - 6, px);
  } else {
    fprintf(f,
            "<line class=\"grid\" stroke=\"#e4e4e4\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>",
            px, PLOT_TOP, px, PLOT_BOTTOM);
    fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", px, PLOT_BOTTOM + 16);
  }
  tf_html_puts(f, label);
  fputs("</text>\n", f);
}

static void axis_ticks(FILE* f, const axis* a, int vertical_axis) {
  char label[32];
  if (a->log) {
    if (a->clamped) tick(f, vertical_axis, a->px0, "0");
    // 1, 2, 5 in each decade over short ranges; over long ones every decade, then every k-th
    int e0 = (int)floor(a->lo + 1e-9), e1 = (int)ceil(a->hi - 1e-9);
    int ndec = e1 - e0;
    int every = ndec > 8 ? (ndec + 7) / 8 : 1;
    int nt = 0;
    for (int e = e0; e <= e1; e++) {
      for (int k = 1; k <= 5; k = k == 1 ? 2 : k + 3) {
        if (k > 1 && ndec > 2) break;
        if (k == 1 && (e - e0) % every != 0) continue;
        double v = k * pow(10, e), t = log10(v);
        if (t < a->lo - 1e-9 || t > a->hi + 1e-9) continue;
        if (a->clamped && t < a->lo + 1e-9) continue;  // the floor is labelled 0
        tick_label(label, sizeof label, v);
        tick(f, vertical_axis, axis_px(a, v), label);
        nt++;
      }
    }
    // a range inside one 1-2-5 step (0.001 to 0.002) gets plain steps between its ends
    if (nt < 3 && !a->clamped) {
      double lo = pow(10, a->lo), hi = pow(10, a->hi), step = tf_svg_nice_step(lo, hi, 4);
      for (double v = ceil(lo / step + 1e-9) * step; v < hi * (1 - 1e-9); v += step) {
        if (v <= lo * (1 + 1e-9)) continue;
        tick_label(label, sizeof label, v);
        tick(f, vertical_axis, axis_px(a, v), label);
      }
    }
    return;
  }
  double step = a->step;
  long k0 = lround(a->lo / step), k1 = lround(a->hi / step);
  for (long k = k0; k <= k1 && k - k0 <= 20; k++) {
    double v = k * step;
    tick_label(label, sizeof label, fabs(v) < step * 1e-9 ? 0 : v);
    tick(f, vertical_axis, axis_px(a, v), label);
  }
}

// a marker of the given shape at (x, y); cls is "point" for data, something else in the legend
static void marker(FILE* f, tf_svg_marker m, double x, double y, const char* cls, int bad,
                   const char* tip) {
  const char* ring = bad ? " stroke=\"#d00\" stroke-width=\"2\"" : "";
  const char* tag = "path";
  switch ((tf_svg_marker)(m % TF_SVG_NMARKER)) {
    case TF_SVG_CIRCLE:
      tag = "circle";
      fprintf(f, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"currentColor\"%s",
              cls, x, y, ring);
      break;
    case TF_SVG_SQUARE:
      tag = "rect";
      fprintf(f,
              "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\" "
              "fill=\"currentColor\"%s",
              cls, x - 3.5, y - 3.5, ring);
      break;
    case TF_SVG_TRIANGLE:
      fprintf(f,
              "<path class=\"%s\" d=\"M%.1f,%.1f L%.1f,%.1f L%.1f,%.1f Z\" fill=\"currentColor\"%s",
              cls, x, y - 5, x + 4.5, y + 3.5, x - 4.5, y + 3.5, ring);
      break;
    case TF_SVG_DIAMOND:
      fprintf(f,
              "<path class=\"%s\" d=\"M%.1f,%.1f L%.1f,%.1f L%.1f,%.1f L%.1f,%.1f Z\" "
              "fill=\"currentColor\"%s",
              cls, x, y - 5, x + 5, y, x, y + 5, x - 5, y, ring);
      break;
    default:
      fprintf(f,
              "<path class=\"%s\" d=\"M%.1f,%.1f L%.1f,%.1f M%.1f,%.1f L%.1f,%.1f\" fill=\"none\" "
              "stroke=\"%s\" stroke-width=\"2\"",
              cls, x - 4, y - 4, x + 4, y + 4, x - 4, y + 4, x + 4, y - 4,
              bad ? "#d00" : "currentColor");
      break;
  }
  if (tip && tip[0]) {
    fputs("><title>", f);
    tf_html_puts(f, tip);
    fprintf(f, "</title></%s>", tag);
  } else {
    fputs("/>", f);
  }
}

static int series_points(const tf_svg_series* se) {
  int n = 0;
  for (int i = 0; i < se->npoint; i++) n += drawable(se->x[i], se->y[i]);
  return n;
}

static int series_line_points(const tf_svg_series* se) {
  int n = 0;
  for (int i = 0; i < se->nline; i++) n += drawable(se->line_x[i], se->line_y[i]);
  return n;
}

// a series appears (group, legend entry) when it has a point or a line to show
static int series_drawn(const tf_svg_series* se) {
  return series_points(se) > 0 || series_line_points(se) >= 2;
}

static void series_write(FILE* f, const tf_svg_series* se, const axis* ax, const axis* ay) {
  fputs("<g class=\"series\" data-name=\"", f);
  tf_html_puts(f, se->name);
  fprintf(f, "\" style=\"color:%s\">\n", palette[(unsigned)se->color % NPALETTE]);
  if (series_line_points(se) >= 2) {
    fprintf(f,
            "<polyline class=\"line\" fill=\"none\" stroke=\"currentColor\" stroke-width=\"1.5\"%s "
            "points=\"",
            se->dashed ? " stroke-dasharray=\"5,4\"" : "");
    for (int i = 0; i < se->nline; i++) {
      if (!drawable(se->line_x[i], se->line_y[i])) continue;
      fprintf(f, "%.1f,%.1f ", axis_px(ax, se->line_x[i]), axis_px(ay, se->line_y[i]));
    }
    fputs("\"/>\n", f);
  }
  for (int i = 0; i < se->npoint; i++) {
    if (!drawable(se->x[i], se->y[i])) continue;
    int bad = se->bad && se->bad[i];
    marker(f, se->marker, axis_px(ax, se->x[i]), axis_px(ay, se->y[i]), bad ? "point bad" : "point",
           bad, se->tip ? se->tip[i] : NULL);
    fputc('\n', f);
  }
  fputs("</g>\n", f);
}

static void legend_write(FILE* f, const tf_svg_plot* p) {
  fprintf(f, "<g class=\"legend\">\n");
  int row = 0, shown = 0;
  for (int s = 0; s < p->nseries; s++) shown += series_drawn(&p->series[s]);
  for (int s = 0; s < p->nseries; s++) {
    const tf_svg_series* se = &p->series[s];
    if (!series_drawn(se)) continue;
    double y = PLOT_TOP + 10 + 18.0 * row;
    if (row == LEGEND_ROWS - 1 && shown > LEGEND_ROWS) {
      // the rest are still drawn and named in their points' tooltips
      fprintf(f, "<text x=\"%d\" y=\"%.1f\" dy=\"4\" fill=\"#222\">+ %d more</text>\n", LEGEND_X, y,
              shown - row);
      break;
    }
    row++;
    fprintf(f, "<g style=\"color:%s\">", palette[(unsigned)se->color % NPALETTE]);
    if (se->nline > 0) {
      fprintf(f,
              "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"currentColor\" "
              "stroke-width=\"1.5\"%s/>",
              LEGEND_X, y, LEGEND_X + 22, y, se->dashed ? " stroke-dasharray=\"5,4\"" : "");
    }
    marker(f, se->marker, LEGEND_X + 11, y, "legend-mark", 0, NULL);
    char name[LEGEND_NAME_MAX + 4];
    snprintf(name, sizeof name, "%s", se->name ? se->name : "");
    if (se->name && strlen(se->name) > LEGEND_NAME_MAX) strcpy(name + LEGEND_NAME_MAX - 1, "...");
    fprintf(f, "<text x=\"%d\" y=\"%.1f\" dy=\"4\" fill=\"#222\">", LEGEND_X + 28, y);
    tf_html_puts(f, name);
    fputs("</text></g>\n", f);
  }
  fputs("</g>\n", f);
}

int tf_svg_plot_write(FILE* f, const tf_svg_plot* p) {
  range rx = data_range(p, 0), ry = data_range(p, 1);
  axis ax = axis_make(&rx, p->xlog, 1, PLOT_LEFT + INSET, PLOT_RIGHT - INSET);
  axis ay = axis_make(&ry, p->ylog, 0, PLOT_BOTTOM - INSET, PLOT_TOP + INSET);
  int nseries = 0, npoint = 0;
  for (int s = 0; s < p->nseries; s++) {
    int n = series_points(&p->series[s]);
    npoint += n;
    nseries += series_drawn(&p->series[s]);
  }

  fputs("<svg id=\"", f);
  tf_html_puts(f, p->id);
  fprintf(f,
          "\" class=\"plot\" data-nseries=\"%d\" data-npoints=\"%d\" "
          "xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
          "role=\"img\" font-family=\"sans-serif\" font-size=\"12\">\n",
          nseries, npoint, PLOT_W, PLOT_H, PLOT_W, PLOT_H);
  fputs("<title>", f);
  tf_html_puts(f, p->title);
  fputs("</title>\n<g class=\"axes\" fill=\"#333\">\n", f);
  axis_ticks(f, &ax, 0);
  axis_ticks(f, &ay, 1);
  fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#555\"/>\n",
          PLOT_LEFT, PLOT_TOP, PLOT_RIGHT - PLOT_LEFT, PLOT_BOTTOM - PLOT_TOP);
  fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", (PLOT_LEFT + PLOT_RIGHT) / 2,
          PLOT_BOTTOM + 38);
  tf_html_puts(f, p->xlabel);
  fprintf(f,
          "</text>\n<text transform=\"translate(16,%d) rotate(-90)\" text-anchor=\"middle\" "
          ">",
          (PLOT_TOP + PLOT_BOTTOM) / 2);
  tf_html_puts(f, p->ylabel);
  fputs("</text>\n</g>\n", f);
  for (int s = 0; s < p->nseries; s++) {
    const tf_svg_series* se = &p->series[s];
    if (!series_drawn(se)) continue;
    series_write(f, se, &ax, &ay);
  }
  legend_write(f, p);
  fputs("</svg>\n", f);
  return npoint;
}
