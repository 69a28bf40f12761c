// The report's plots (see report_plots.h).
//
// Each plot reads two columns per run (x, y), puts the run in a series by solver (and, where
// the plot asks for it, by dt, task or statistic), and draws every run as a dot plus a line
// through one value per x: the worst run for the physics plots (slip, tunnelling, overlap),
// because one bad seed is what decides whether a setting is safe, and the median for
// throughput, where seeds only add timing noise. A solver keeps its colour in every plot.
//
// Tasks never share an axis: a sweep of several tasks gets a panel per task (an <svg> with id
// "<plot>-<task>"), since bolt-nut's 50 um and peg's 100 um clearance are different
// experiments on different scales, and a line between them would draw a trend that no sweep
// measured. A task whose runs all sit at one x shows no trend either, so its points are left
// out with a one-line note saying so; when no task is left the plot is that note.
#include "report_plots.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html_escape.h"
#include "svg_plot.h"

const char* const tf_report_plot_ids[TF_REPORT_NPLOT] = {"plot-slip", "plot-tunnel", "plot-overlap",
                                                         "plot-throughput"};

enum { MAX_GROUPS = 16, MAX_LABELS = 32, LABEL_MAX = 48, NAME_MAX_LEN = 112, TIP_MAX = 200 };

typedef struct point {
  double x, y;
  int bad;  // from a failed or diverged run
  char tip[TIP_MAX];
} point;

// one series being collected
typedef struct group {
  char name[NAME_MAX_LEN];
  char task[LABEL_MAX];  // the task of every run in the series ("?" when rows do not say)
  int color;
  tf_svg_marker marker;
  int dashed;
  int n, cap;
  point* pts;  // (n)
} group;

typedef struct plot_data {
  int ngroup;
  int nomem;  // a point could not be stored
  group g[MAX_GROUPS];
} plot_data;

// distinct texts (solvers, tasks, dt labels) in first-seen order
typedef struct labels {
  int n;
  char name[MAX_LABELS][LABEL_MAX];
} labels;

// which value of each x the line goes through
typedef enum aggregate { AGG_MAX = 0, AGG_MEDIAN } aggregate;

// what one plot shows and how it is labelled; headings and captions are our own HTML
typedef struct plot_spec {
  const char* id;
  const char* heading;
  const char* title;
  const char* xlabel;
  const char* ylabel;
  const char* needs;  // the columns it needs, for the "no data" note
  const char* caption;
  int xlog, ylog;  // 1 log, 0 linear, -1 log when the values span 20x or more
  aggregate agg;
} plot_spec;

static int label_add(labels* l, const char* s) {
  if (!s) s = "?";
  for (int i = 0; i < l->n; i++) {
    if (strncmp(l->name[i], s, LABEL_MAX - 1) == 0) return i;
  }
  if (l->n == MAX_LABELS) return MAX_LABELS - 1;  // the rest share the last style
  snprintf(l->name[l->n], LABEL_MAX, "%s", s);
  return l->n++;
}

static int label_find(const labels* l, const char* s) {
  if (!s) s = "?";
  for (int i = 0; i < l->n; i++) {
    if (strncmp(l->name[i], s, LABEL_MAX - 1) == 0) return i;
  }
  return l->n > 0 ? l->n - 1 : 0;
}

static const char* row_task(const cJSON* row) {
  const char* s = tf_results_text(row, "task");
  return s ? s : "?";
}

// the series of that name within the row's task
static group* group_get(plot_data* d, const cJSON* row, const char* name, int color, int marker,
                        int dashed) {
  const char* task = row_task(row);
  for (int i = 0; i < d->ngroup; i++) {
    if (strncmp(d->g[i].name, name, NAME_MAX_LEN - 1) == 0 &&
        strncmp(d->g[i].task, task, LABEL_MAX - 1) == 0) {
      return &d->g[i];
    }
  }
  // past the limit, further series are merged so the legend stays readable (or dropped once
  // every slot is taken: an "other" series never mixes tasks)
  if (d->ngroup >= MAX_GROUPS - 1 && strcmp(name, "other") != 0) {
    return group_get(d, row, "other", 7, TF_SVG_CROSS, 0);
  }
  if (d->ngroup >= MAX_GROUPS) return NULL;
  group* g = &d->g[d->ngroup++];
  memset(g, 0, sizeof *g);
  snprintf(g->name, sizeof g->name, "%s", name);
  snprintf(g->task, sizeof g->task, "%s", task);
  g->color = color;
  g->marker = (tf_svg_marker)(marker % TF_SVG_NMARKER);
  g->dashed = dashed;
  return g;
}

static void add_point(plot_data* d, group* g, double x, double y, int bad, const char* tip) {
  // only what the plot can draw, so that "no data" and the drawn series agree
  if (!g || !tf_svg_plottable(x) || !tf_svg_plottable(y)) return;
  if (g->n == g->cap) {
    int ncap = g->cap ? 2 * g->cap : 16;
    point* np = realloc(g->pts, (size_t)ncap * sizeof *np);
    if (!np) {
      d->nomem = 1;
      return;
    }
    g->pts = np;
    g->cap = ncap;
  }
  point* p = &g->pts[g->n++];
  p->x = x;
  p->y = y;
  p->bad = bad;
  snprintf(p->tip, sizeof p->tip, "%s", tip);
}

static void plot_data_free(plot_data* d) {
  for (int i = 0; i < d->ngroup; i++) free(d->g[i].pts);
  d->ngroup = 0;
}

// a failed or diverged run: its points get a red ring
static int row_bad(const cJSON* row) {
  const char* s = tf_results_text(row, "status");
  return s && strcmp(s, "ok") != 0;
}

// how a run is named in a tooltip: its run_id, else its line in results.jsonl
static void run_name(char* buf, size_t n, const cJSON* row, int line) {
  const cJSON* id = cJSON_GetObjectItemCaseSensitive(row, "run_id");
  if (cJSON_IsString(id)) {
    snprintf(buf, n, "run %s", id->valuestring);
  } else if (cJSON_IsNumber(id)) {
    snprintf(buf, n, "run %g", id->valuedouble);
  } else {
    snprintf(buf, n, "line %d", line);
  }
}

// dt as users write it: "1/1000" when the rate is whole, else seconds
static void dt_label(char* buf, size_t n, const cJSON* row) {
  double dt = 0;
  if (!tf_results_number(row, "dt", &dt) || dt <= 0) {
    snprintf(buf, n, "?");
    return;
  }
  double rate = 1 / dt;
  if (rate >= 1 && rate <= 1e7 && fabs(rate - round(rate)) < 1e-6 * rate) {
    snprintf(buf, n, "1/%.0f", round(rate));
  } else {
    snprintf(buf, n, "%.4g", dt);
  }
}

static const char* row_solver(const cJSON* row) {
  const char* s = tf_results_text(row, "solver");
  return s ? s : "?";
}

// (a) slip against the control step rate, one series per solver
static void data_slip(const tf_results* r, const labels* solvers, plot_data* d) {
  for (int i = 0; i < r->nrow; i++) {
    const cJSON* row = r->row[i];
    double dt, slip;
    if (!tf_results_number(row, "dt", &dt) || dt <= 0) continue;
    if (!tf_results_number(row, "gear_slip.max", &slip)) continue;
    const char* solver = row_solver(row);
    int si = label_find(solvers, solver);
    char who[64], tip[TIP_MAX], dtl[32];
    run_name(who, sizeof who, row, r->line[i]);
    dt_label(dtl, sizeof dtl, row);
    snprintf(tip, sizeof tip, "%s: %s, dt %s s (%.4g Hz), slip %.3g%s", who, solver, dtl, 1 / dt,
             slip, row_bad(row) ? " (failed run)" : "");
    add_point(d, group_get(d, row, solver, si, si, 0), 1 / dt, slip, row_bad(row), tip);
  }
}

// tunnelled environments of a run: through-penetration plus fly-through, either may be null
static int tunnelled(const cJSON* row, double* out) {
  double t = 0, fly = 0;
  int ht = tf_results_number(row, "tunnel.through", &t);
  int hf = tf_results_number(row, "tunnel.flythrough", &fly);
  *out = (ht ? t : 0) + (hf ? fly : 0);
  return ht || hf;
}

// (b) tunnelled environments against impact speed, per solver, and per dt when dt varies
static void data_tunnel(const tf_results* r, const labels* solvers, plot_data* d) {
  labels dts = {0};
  for (int i = 0; i < r->nrow; i++) {
    double v, y;
    if (!tf_results_number(r->row[i], "impact_speed", &v) || !tunnelled(r->row[i], &y)) continue;
    char dtl[32];
    dt_label(dtl, sizeof dtl, r->row[i]);
    label_add(&dts, dtl);
  }
  for (int i = 0; i < r->nrow; i++) {
    const cJSON* row = r->row[i];
    double v, y;
    if (!tf_results_number(row, "impact_speed", &v) || !tunnelled(row, &y)) continue;
    const char* solver = row_solver(row);
    int si = label_find(solvers, solver);
    char dtl[32], name[NAME_MAX_LEN], who[64], tip[TIP_MAX];
    dt_label(dtl, sizeof dtl, row);
    int di = label_find(&dts, dtl);
    if (dts.n > 1) {
      snprintf(name, sizeof name, "%s, dt %s", solver, dtl);
    } else {
      snprintf(name, sizeof name, "%s", solver);
    }
    run_name(who, sizeof who, row, r->line[i]);
    snprintf(tip, sizeof tip, "%s: %s, dt %s s, impact %.4g m/s, %g tunnelled%s", who, solver, dtl,
             v, y, row_bad(row) ? " (failed run)" : "");
    add_point(d, group_get(d, row, name, si, dts.n > 1 ? di : si, 0), v, y, row_bad(row), tip);
  }
}

// (c) peak (solid) and mean (dashed) overlap in micrometres against clearance, per solver
static void data_overlap(const tf_results* r, const labels* solvers, plot_data* d) {
  static const char* const keys[2] = {"overlap.peak_m", "overlap.mean_m"};
  static const char* const what[2] = {"peak", "mean"};
  for (int i = 0; i < r->nrow; i++) {
    const cJSON* row = r->row[i];
    double c;
    if (!tf_results_number(row, "clearance_um", &c)) continue;
    const char* solver = row_solver(row);
    int si = label_find(solvers, solver);
    char who[64];
    run_name(who, sizeof who, row, r->line[i]);
    for (int k = 0; k < 2; k++) {
      double m;
      if (!tf_results_number(row, keys[k], &m)) continue;
      char name[NAME_MAX_LEN], tip[TIP_MAX];
      snprintf(name, sizeof name, "%s %s", solver, what[k]);
      snprintf(tip, sizeof tip, "%s: %s, clearance %.4g \u00b5m, %s overlap %.4g \u00b5m%s", who,
               solver, c, what[k], m * 1e6, row_bad(row) ? " (failed run)" : "");
      group* g = group_get(d, row, name, si, k ? TF_SVG_TRIANGLE : TF_SVG_CIRCLE, k);
      add_point(d, g, c, m * 1e6, row_bad(row), tip);
    }
  }
}

static int steps_per_s(const cJSON* row, double* out) {
  return tf_results_number(row, "throughput.env_steps_per_s", out) ||
         tf_results_number(row, "steps_per_s", out);
}

// (d) throughput against dt, per solver and task, the task's marker when there are several
static void data_throughput(const tf_results* r, const labels* solvers, plot_data* d) {
  labels tasks = {0};
  for (int i = 0; i < r->nrow; i++) {
    double dt, s;
    if (!tf_results_number(r->row[i], "dt", &dt) || !steps_per_s(r->row[i], &s)) continue;
    label_add(&tasks, tf_results_text(r->row[i], "task"));
  }
  for (int i = 0; i < r->nrow; i++) {
    const cJSON* row = r->row[i];
    double dt, s;
    if (!tf_results_number(row, "dt", &dt) || dt <= 0 || !steps_per_s(row, &s)) continue;
    const char* solver = row_solver(row);
    const char* task = tf_results_text(row, "task");
    int si = label_find(solvers, solver);
    int ti = label_find(&tasks, task);
    char who[64], tip[TIP_MAX];
    run_name(who, sizeof who, row, r->line[i]);
    snprintf(tip, sizeof tip, "%s: %s, %s, dt %.4g s, %.4g env steps/s%s", who, task ? task : "?",
             solver, dt, s, row_bad(row) ? " (failed run)" : "");
    add_point(d, group_get(d, row, solver, si, tasks.n > 1 ? ti : si, 0), dt, s, row_bad(row), tip);
  }
}

static int cmp_point_x(const void* a, const void* b) {
  double xa = ((const point*)a)->x, xb = ((const point*)b)->x;
  return (xa > xb) - (xa < xb);
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

// one line point per distinct x (points sorted by x first); ys is scratch of g->n
static int group_line(group* g, aggregate agg, double* lx, double* ly, double* ys) {
  if (g->n == 0) return 0;
  qsort(g->pts, (size_t)g->n, sizeof *g->pts, cmp_point_x);
  int nline = 0;
  for (int i = 0; i < g->n;) {
    int j = i;
    while (j < g->n && g->pts[j].x == g->pts[i].x) {
      ys[j - i] = g->pts[j].y;
      j++;
    }
    int m = j - i;
    double y = ys[0];
    if (agg == AGG_MAX) {
      for (int k = 1; k < m; k++) y = ys[k] > y ? ys[k] : y;
    } else {
      qsort(ys, (size_t)m, sizeof *ys, cmp_double);
      y = m % 2 ? ys[m / 2] : 0.5 * (ys[m / 2 - 1] + ys[m / 2]);
    }
    lx[nline] = g->pts[i].x;
    ly[nline] = y;
    nline++;
    i = j;
  }
  return nline;
}

// log when every value is positive and they span at least 20x
static int auto_log(const plot_data* d, int coord) {
  double lo = INFINITY, hi = -INFINITY;
  for (int s = 0; s < d->ngroup; s++) {
    for (int i = 0; i < d->g[s].n; i++) {
      double v = coord ? d->g[s].pts[i].y : d->g[s].pts[i].x;
      if (!(v > 0)) return 0;
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
  }
  return hi >= lo && hi >= 20 * lo;
}

static void note(FILE* f, const plot_spec* s, const char* why) {
  fprintf(f, "<p class=\"nodata\" data-plot=\"%s\">%s: ", s->id, why);
  fputs(s->needs, f);
  fputs("</p>\n", f);
}

// 1 when the points of every series of task share one x
static int task_x_fixed(const plot_data* d, const char* task, double* x) {
  int seen = 0;
  for (int i = 0; i < d->ngroup; i++) {
    const group* g = &d->g[i];
    if (strcmp(g->task, task) != 0) continue;
    for (int k = 0; k < g->n; k++) {
      if (!seen) *x = g->pts[k].x;
      if (seen && g->pts[k].x != *x) return 0;
      seen = 1;
    }
  }
  return seen;
}

// leaves out the series of tasks whose runs all sit at one x, a note for each; returns the
// number of tasks left
static int split_tasks(FILE* f, const plot_spec* s, plot_data* d) {
  labels tasks = {0};
  for (int i = 0; i < d->ngroup; i++) label_add(&tasks, d->g[i].task);
  int left = 0;
  for (int t = 0; t < tasks.n; t++) {
    double x = 0;
    if (!task_x_fixed(d, tasks.name[t], &x)) {
      left++;
      continue;
    }
    fputs("<p class=\"nodata fixed-x\" data-plot=\"", f);
    fputs(s->id, f);
    fputs("\" data-task=\"", f);
    tf_html_puts(f, tasks.name[t]);
    fputs("\">not drawn for <b>", f);
    tf_html_puts(f, tasks.name[t]);
    fprintf(f, "</b>: every run has %s = %.4g, so there is no trend to show</p>\n", s->xlabel, x);
    int kept = 0;
    for (int i = 0; i < d->ngroup; i++) {
      if (strcmp(d->g[i].task, tasks.name[t]) == 0) {
        free(d->g[i].pts);
      } else {
        d->g[kept++] = d->g[i];
      }
    }
    d->ngroup = kept;
  }
  return left;
}

// one panel: the series of task (all series when task is NULL) as one SVG plot, its id the
// plot's (with "-<task>" when it is one of several panels); 1 when written, 0 out of memory
static int draw_panel(FILE* f, const plot_spec* s, plot_data* d, const char* task) {
  group* pick[MAX_GROUPS];
  int npick = 0;
  for (int i = 0; i < d->ngroup; i++) {
    if (!task || strcmp(d->g[i].task, task) == 0) pick[npick++] = &d->g[i];
  }
  char id[NAME_MAX_LEN], title[2 * NAME_MAX_LEN];
  snprintf(id, sizeof id, "%s%s%.40s", s->id, task ? "-" : "", task ? task : "");
  snprintf(title, sizeof title, "%s%s%.40s", s->title, task ? ": " : "", task ? task : "");
  tf_svg_series series[MAX_GROUPS];
  // one block of doubles per group: x, y, line x, line y, scratch; then tips and flags
  double* num[MAX_GROUPS] = {0};
  const char** tips[MAX_GROUPS] = {0};
  int* bad[MAX_GROUPS] = {0};
  int ok = 1;
  for (int i = 0; i < npick && ok; i++) {
    group* g = pick[i];
    num[i] = malloc(5 * (size_t)g->n * sizeof(double));
    tips[i] = malloc((size_t)g->n * sizeof(const char*));
    bad[i] = malloc((size_t)g->n * sizeof(int));
    if (!num[i] || !tips[i] || !bad[i]) {
      ok = 0;
      break;
    }
    double *x = num[i], *y = x + g->n, *lx = y + g->n, *ly = lx + g->n, *ys = ly + g->n;
    int nline = group_line(g, s->agg, lx, ly, ys);
    for (int k = 0; k < g->n; k++) {
      x[k] = g->pts[k].x;
      y[k] = g->pts[k].y;
      tips[i][k] = g->pts[k].tip;
      bad[i][k] = g->pts[k].bad;
    }
    series[i] = (tf_svg_series){
        .name = g->name,
        .npoint = g->n,
        .x = x,
        .y = y,
        .tip = tips[i],
        .bad = bad[i],
        .nline = nline,
        .line_x = lx,
        .line_y = ly,
        .color = g->color,
        .marker = g->marker,
        .dashed = g->dashed,
    };
  }
  if (ok) {
    tf_svg_plot p = {
        .id = id,
        .title = title,
        .xlabel = s->xlabel,
        .ylabel = s->ylabel,
        .xlog = s->xlog < 0 ? auto_log(d, 0) : s->xlog,
        .ylog = s->ylog < 0 ? auto_log(d, 1) : s->ylog,
        .nseries = npick,
        .series = series,
    };
    tf_svg_plot_write(f, &p);
  }
  for (int i = 0; i < npick; i++) {
    free(num[i]);
    free(tips[i]);
    free(bad[i]);
  }
  return ok;
}

// builds the series from the collected groups and writes the plot box; 1 when drawn
static int plot_emit(FILE* f, const plot_spec* s, plot_data* d) {
  // a series whose every point was out of range was opened but holds nothing: drop it
  int kept = 0;
  for (int i = 0; i < d->ngroup; i++) {
    if (d->g[i].n > 0) {
      d->g[kept++] = d->g[i];
    } else {
      free(d->g[i].pts);
    }
  }
  d->ngroup = kept;
  int npoint = 0;
  for (int i = 0; i < d->ngroup; i++) npoint += d->g[i].n;
  fprintf(f, "<section class=\"plot-box\"><h3>%s</h3>\n", s->heading);
  if (d->nomem) {
    note(f, s, "plot left out, out of memory");
    fputs("</section>\n", f);
    return 0;
  }
  if (npoint == 0) {
    note(f, s, "no data for this plot");
    fputs("</section>\n", f);
    return 0;
  }
  if (split_tasks(f, s, d) == 0) {
    fputs("</section>\n", f);
    return 0;
  }
  // one panel per task when several are left, so that no axis mixes two tasks' scales
  labels tasks = {0};
  for (int i = 0; i < d->ngroup; i++) label_add(&tasks, d->g[i].task);
  int ok = 1;
  if (tasks.n <= 1) {
    ok = draw_panel(f, s, d, NULL);
  } else {
    fputs("<div class=\"panels\">\n", f);
    for (int t = 0; t < tasks.n && ok; t++) ok = draw_panel(f, s, d, tasks.name[t]);
    fputs("</div>\n", f);
  }
  if (ok) {
    fprintf(f, "<p class=\"caption\">%s</p>\n", s->caption);
  } else {
    note(f, s, "plot left out, out of memory");
  }
  fputs("</section>\n", f);
  return ok;
}

static const plot_spec specs[TF_REPORT_NPLOT] = {
    {"plot-slip", "Gear slip vs control step rate", "gear slip against control step rate",
     "control step rate 1/dt (Hz)", "gear_slip.max (speed-ratio error)",
     "needs runs with <code>gear_slip.max</code> and <code>dt</code>",
     "The worst follower's speed-ratio error against the control step rate, one series per "
     "solver. Dots: every run (red ring: failed or diverged); line: the worst run at each rate. "
     "A slip of exactly 0 sits on the axis floor, labelled 0.",
     1, 1, AGG_MAX},
    {"plot-tunnel", "Tunnelled environments vs impact speed",
     "tunnelled environments against impact speed", "impact speed (m/s)",
     "tunnelled environments (through + fly-through)",
     "needs runs with <code>impact_speed</code> and <code>tunnel.through</code> or "
     "<code>tunnel.flythrough</code>",
     "Environments whose part ended through the seat or flew through it in one step, per solver "
     "(and per dt when the sweep varies it). Dots: every run; line: the worst run at each "
     "speed.",
     0, 0, AGG_MAX},
    {"plot-overlap", "Overlap vs clearance", "overlap against clearance", "clearance (\u00b5m)",
     "overlap (\u00b5m)",
     "needs runs with <code>clearance_um</code> and <code>overlap.peak_m</code> or "
     "<code>overlap.mean_m</code>",
     "Penetration measured by the overlap probe, independent of the collider: peak (solid, "
     "circles) and mean over the steps in contact (dashed, triangles), per solver. Line: the "
     "worst run at each clearance.",
     -1, -1, AGG_MAX},
    {"plot-throughput", "Throughput vs dt", "throughput against timestep", "dt (s)",
     "environment steps per second",
     "needs runs with <code>dt</code> and <code>throughput.env_steps_per_s</code> or "
     "<code>steps_per_s</code>",
     "Environment steps per second of wall-clock time, per solver (and per task when there are "
     "several). Dots: every run; line: the median run at each dt.",
     1, -1, AGG_MEDIAN},
};

typedef void (*collect_fn)(const tf_results* r, const labels* solvers, plot_data* d);

int tf_report_plots_write(FILE* f, const tf_results* r) {
  static const collect_fn collect[TF_REPORT_NPLOT] = {data_slip, data_tunnel, data_overlap,
                                                      data_throughput};
  // solvers in first-seen order over all runs, so a solver keeps its colour across plots
  labels solvers = {0};
  for (int i = 0; i < r->nrow; i++) label_add(&solvers, row_solver(r->row[i]));

  plot_data* d = malloc(sizeof *d);
  if (!d) {
    fputs("<p class=\"nodata\">plots left out: out of memory</p>\n", f);
    return 0;
  }
  int drawn = 0;
  fputs("<div class=\"plots\">\n", f);
  for (int k = 0; k < TF_REPORT_NPLOT; k++) {
    memset(d, 0, sizeof *d);
    collect[k](r, &solvers, d);
    drawn += plot_emit(f, &specs[k], d);
    plot_data_free(d);
  }
  fputs("</div>\n", f);
  free(d);
  return drawn;
}
