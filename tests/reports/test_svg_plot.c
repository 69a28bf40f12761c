// The SVG plot writer on its own: nice tick steps, the contract a page check relies on (id,
// data-nseries, one <g class="series"> per drawn series, one class="point" per finite point),
// log axes with zeros on the floor, escaping of names and tips, and nothing drawn from NaN.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg_plot.h"

static int count(const char* s, const char* needle) {
  int n = 0;
  size_t len = strlen(needle);
  for (const char* p = strstr(s, needle); p; p = strstr(p + len, needle)) n++;
  return n;
}

// the plot written to memory, NUL terminated; *npoint receives the writer's return
static char* render(const tf_svg_plot* p, int* npoint) {
  char* buf = NULL;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  assert_non_null(f);
  *npoint = tf_svg_plot_write(f, p);
  assert_int_equal(fclose(f), 0);
  return buf;
}

static void test_nice_step(void** state) {
  (void)state;
  assert_float_equal(tf_svg_nice_step(0, 10, 5), 2, 1e-12);
  assert_float_equal(tf_svg_nice_step(0, 1, 5), 0.2, 1e-12);
  assert_float_equal(tf_svg_nice_step(0, 0.03, 5), 0.005, 1e-15);
  assert_float_equal(tf_svg_nice_step(50000, 350000, 5), 50000, 1e-6);
  assert_float_equal(tf_svg_nice_step(0, 7, 5), 1, 1e-12);
  assert_float_equal(tf_svg_nice_step(3, 3, 5), 1, 1e-12);    // empty range: a usable step
  assert_float_equal(tf_svg_nice_step(0, NAN, 5), 1, 1e-12);  // garbage in, still finite
}

static void test_series_and_points(void** state) {
  (void)state;
  const double x1[] = {1, 2, 3}, y1[] = {1, 4, 9};
  const double x2[] = {1, NAN, 3}, y2[] = {2, 5, INFINITY};
  const double x3[] = {NAN}, y3[] = {1};
  const char* tips[] = {"a<b", "c&d", "e"};
  const int bad[] = {0, 1, 0};
  tf_svg_series s[3] = {
      {.name = "al <fast>",
       .npoint = 3,
       .x = x1,
       .y = y1,
       .tip = tips,
       .bad = bad,
       .nline = 3,
       .line_x = x1,
       .line_y = y1},
      {.name = "newton", .npoint = 3, .x = x2, .y = y2, .color = 1, .marker = TF_SVG_CROSS},
      {.name = "empty", .npoint = 1, .x = x3, .y = y3},  // nothing finite: not drawn
  };
  tf_svg_plot p = {
      .id = "plot-test", .title = "t", .xlabel = "x & y", .ylabel = "y", .nseries = 3, .series = s};
  int n = 0;
  char* svg = render(&p, &n);
  assert_int_equal(n, 4);
  assert_non_null(strstr(svg, "<svg id=\"plot-test\""));
  assert_non_null(strstr(svg, "data-nseries=\"2\""));
  assert_non_null(strstr(svg, "data-npoints=\"4\""));
  assert_int_equal(count(svg, "<g class=\"series\""), 2);
  assert_int_equal(count(svg, "class=\"point"), 4);
  assert_int_equal(count(svg, "class=\"point bad\""), 1);
  assert_int_equal(count(svg, "<polyline class=\"line\""), 1);
  assert_non_null(strstr(svg, "data-name=\"al &lt;fast&gt;\""));
  assert_non_null(strstr(svg, "<title>a&lt;b</title>"));
  assert_non_null(strstr(svg, "<title>c&amp;d</title>"));
  assert_non_null(strstr(svg, ">x &amp; y</text>"));
  assert_null(strstr(svg, "nan"));
  assert_null(strstr(svg, "inf"));
  assert_non_null(strstr(svg, "</svg>"));
  free(svg);
}

static void test_log_axis_with_zero(void** state) {
  (void)state;
  const double x[] = {60, 120, 1000}, y[] = {0.3, 0, 1e-4};
  tf_svg_series s = {.name = "s", .npoint = 3, .x = x, .y = y};
  tf_svg_plot p = {.id = "plot-log", .xlog = 1, .ylog = 1, .nseries = 1, .series = &s};
  int n = 0;
  char* svg = render(&p, &n);
  assert_int_equal(n, 3);  // the zero is drawn, on the floor
  assert_non_null(strstr(svg, ">0</text>"));
  assert_non_null(strstr(svg, ">1e-4</text>"));
  assert_non_null(strstr(svg, ">0.1</text>"));
  assert_non_null(strstr(svg, ">50</text>"));  // the x axis starts on the 1-2-5 grid below 60
  assert_non_null(strstr(svg, ">1000</text>"));
  assert_null(strstr(svg, "nan"));
  free(svg);
}

static void test_log_axis_without_positive_values(void** state) {
  (void)state;
  const double x[] = {-1, 0}, y[] = {-2, -3};
  tf_svg_series s = {.name = "s", .npoint = 2, .x = x, .y = y};
  tf_svg_plot p = {.id = "plot-neg", .xlog = 1, .ylog = 1, .nseries = 1, .series = &s};
  int n = 0;
  char* svg = render(&p, &n);
  assert_int_equal(n, 2);  // falls back to linear axes rather than losing the points
  assert_null(strstr(svg, "nan"));
  assert_null(strstr(svg, "inf"));
  free(svg);
}

// values at the ends of the double range must not turn into NaN coordinates
static void test_extreme_values(void** state) {
  (void)state;
  const double x[] = {1e308, -1e308, 5e-324, 0, 2, 1e150}, y[] = {1, 2, 3, 1e-300, 5e-324, 1};
  tf_svg_series s = {
      .name = "s", .npoint = 6, .x = x, .y = y, .nline = 6, .line_x = x, .line_y = y};
  for (int logs = 0; logs < 4; logs++) {
    tf_svg_plot p = {
        .id = "plot-x", .xlog = logs & 1, .ylog = logs >> 1, .nseries = 1, .series = &s};
    int n = 0;
    char* svg = render(&p, &n);
    assert_int_equal(n, 1);  // only (1e150, 1): the rest has a coordinate out of range
    assert_null(strstr(svg, "nan"));
    assert_null(strstr(svg, "inf"));
    free(svg);
  }
}

// more series than the legend has rows: the last row says how many are not listed
static void test_legend_overflow(void** state) {
  (void)state;
  enum { N = 20 };
  const double x[] = {1}, y[] = {1};
  tf_svg_series s[N];
  for (int i = 0; i < N; i++) {
    s[i] = (tf_svg_series){.name = "s", .npoint = 1, .x = x, .y = y, .color = i, .marker = i};
  }
  tf_svg_plot p = {.id = "plot-many", .nseries = N, .series = s};
  int n = 0;
  char* svg = render(&p, &n);
  assert_int_equal(n, N);
  assert_int_equal(count(svg, "<g class=\"series\""), N);  // every series is still drawn
  assert_non_null(strstr(svg, ">+ 4 more</text>"));
  free(svg);
}

static void test_empty_plot(void** state) {
  (void)state;
  tf_svg_plot p = {.id = "plot-empty", .nseries = 0};
  int n = 1;
  char* svg = render(&p, &n);
  assert_int_equal(n, 0);
  assert_non_null(strstr(svg, "data-nseries=\"0\""));
  assert_non_null(strstr(svg, "</svg>"));
  free(svg);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_nice_step),
      cmocka_unit_test(test_series_and_points),
      cmocka_unit_test(test_log_axis_with_zero),
      cmocka_unit_test(test_log_axis_without_positive_values),
      cmocka_unit_test(test_extreme_values),
      cmocka_unit_test(test_legend_overflow),
      cmocka_unit_test(test_empty_plot),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
