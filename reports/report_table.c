// The summary table (see report_table.h).
//
// Columns come from the data, not from a fixed schema, because each task brings its own
// parameters and metrics: the run's identity (task, solver, dt, ...), then the task parameters
// that vary across the sweep (constant ones are listed once above the table), then status and
// the headline metrics that at least one run reports, then the command that reproduces the
// run. Every numeric cell carries its raw value in data-v so that the sorting script orders
// numbers as numbers.
#include "report_table.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "html_escape.h"
#include "json_exact.h"

enum { MAX_COLUMNS = 80, MAX_PARAMS = 40, MAX_TASK_METRICS = 8, KEY_MAX = 64 };

typedef enum column_kind {
  COL_TEXT = 0,  // string or number as it is
  COL_NUMBER,    // number, scaled, formatted for reading
  COL_DT,        // the control timestep, with 1/N when it is a whole rate
  COL_STATUS,    // "ok" / "diverged" / "failed", classed for colour
  COL_SUCCESS,   // boolean as yes / no
  COL_WHY,       // what missed: the task's "why", else the status and error of a failed run
  COL_STEPS,     // env steps per second, from the throughput probe or the run's own count
  COL_RTF,       // real-time factor, likewise
  COL_COMMAND,   // the reproduce command, in <code>
} column_kind;

typedef struct column {
  char key[KEY_MAX];  // JSON key
  char head[96];      // header, trusted HTML (ours) or an escaped key
  column_kind kind;
  double scale;     // COL_NUMBER: shown value = value * scale
  double bad_from;  // a number >= bad_from marks the cell bad (red); 0 = never
} column;

// settings every run has: a column when they vary across the sweep, else listed once above
// the table like a constant task parameter
static const char* const setting_keys[] = {"mode",     "substeps", "iterations",
                                           "duration", "envs",     "seed"};
// keys that identify a run; everything else without a dot before "status" is a task parameter
static const char* const identity_keys[] = {"run_id",   "command", "task",     "mode",
                                            "solver",   "dt",      "substeps", "iterations",
                                            "duration", "envs",    "seed"};
// result keys without a dot that are not parameters
static const char* const result_keys[] = {"status",          "success", "success_envs",
                                          "steps_per_s",     "error",   "message",
                                          "realtime_factor", "wall_s",  "why"};
// probe families: their dotted metrics are shown by the fixed headline columns, not as task
// metrics
static const char* const probe_families[] = {"tunnel.", "overlap.",    "gear_slip.", "contacts.",
                                             "solver.", "throughput.", "divergence."};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static int in_list(const char* key, const char* const* list, int n) {
  for (int i = 0; i < n; i++) {
    if (strcmp(key, list[i]) == 0) return 1;
  }
  return 0;
}

static int has_prefix_in(const char* key, const char* const* list, int n) {
  for (int i = 0; i < n; i++) {
    if (strncmp(key, list[i], strlen(list[i])) == 0) return 1;
  }
  return 0;
}

// 1 when any row has a non-null value for key
static int any_value(const tf_results* r, const char* key) {
  for (int i = 0; i < r->nrow; i++) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(r->row[i], key);
    if (v && !cJSON_IsNull(v)) return 1;
  }
  return 0;
}

tf_run_outcome tf_report_outcome(const cJSON* row) {
  const char* status = tf_results_text(row, "status");
  if (status && strcmp(status, "ok") != 0) return TF_RUN_FAIL;
  double through = 0, fly = 0;
  int has_t = tf_results_number(row, "tunnel.through", &through);
  int has_f = tf_results_number(row, "tunnel.flythrough", &fly);
  if ((has_t && through > 0) || (has_f && fly > 0)) return TF_RUN_FAIL;
  int success = 0;
  if (!tf_results_bool(row, "success", &success)) return TF_RUN_UNKNOWN;
  return success ? TF_RUN_PASS : TF_RUN_MISS;
}

const char* tf_report_outcome_name(tf_run_outcome o) {
  static const char* const names[TF_RUN_NOUTCOME] = {"pass", "miss", "fail", "unknown"};
  return o >= 0 && o < TF_RUN_NOUTCOME ? names[o] : "unknown";
}

static column* add_column(column* cols, int* n, const char* key, const char* head,
                          column_kind kind) {
  if (*n >= MAX_COLUMNS) return NULL;
  column* c = &cols[(*n)++];
  memset(c, 0, sizeof *c);
  snprintf(c->key, sizeof c->key, "%s", key);
  snprintf(c->head, sizeof c->head, "%s", head);
  c->kind = kind;
  c->scale = 1;
  return c;
}

// a metric column, shown only when some run reports it
static void add_metric(column* cols, int* n, const tf_results* r, const char* key, const char* head,
                       double scale, double bad_from) {
  if (!any_value(r, key)) return;
  column* c = add_column(cols, n, key, head, COL_NUMBER);
  if (!c) return;
  c->scale = scale;
  c->bad_from = bad_from;
}

// whether a parameter takes more than one value across the runs that have it
static int param_varies(const tf_results* r, const char* key) {
  char* first = NULL;
  int varies = 0;
  for (int i = 0; i < r->nrow && !varies; i++) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(r->row[i], key);
    if (!v) continue;
    char* s = tf_json_print(v, 0);
    if (!s) continue;
    if (!first) {
      first = s;
      continue;
    }
    varies = strcmp(first, s) != 0;
    cJSON_free(s);
  }
  if (first) cJSON_free(first);
  return varies;
}

// the run settings present, then task parameters in first-seen order: keys without a dot, not
// identity or result keys, that come before "status" in their row (after it they are results)
static int find_params(const tf_results* r, char keys[][KEY_MAX]) {
  int n = 0;
  // the run settings first, in their usual order, when any run has them
  for (int k = 0; k < COUNT(setting_keys); k++) {
    if (any_value(r, setting_keys[k])) snprintf(keys[n++], KEY_MAX, "%s", setting_keys[k]);
  }
  for (int i = 0; i < r->nrow; i++) {
    for (const cJSON* v = r->row[i]->child; v; v = v->next) {
      if (!v->string || strcmp(v->string, "status") == 0) break;
      if (strchr(v->string, '.') || in_list(v->string, identity_keys, COUNT(identity_keys)) ||
          in_list(v->string, result_keys, COUNT(result_keys))) {
        continue;
      }
      int seen = 0;
      for (int k = 0; k < n && !seen; k++) seen = strcmp(keys[k], v->string) == 0;
      if (!seen && n < MAX_PARAMS && strlen(v->string) < KEY_MAX) {
        snprintf(keys[n++], KEY_MAX, "%s", v->string);
      }
    }
  }
  return n;
}

// task metrics: dotted keys outside the probe families ("peg.depth_m"), first-seen order
static void add_task_metrics(column* cols, int* n, const tf_results* r) {
  char keys[MAX_TASK_METRICS][KEY_MAX];
  int nkey = 0;
  for (int i = 0; i < r->nrow; i++) {
    for (const cJSON* v = r->row[i]->child; v; v = v->next) {
      if (!v->string || !strchr(v->string, '.') || !cJSON_IsNumber(v)) continue;
      if (has_prefix_in(v->string, probe_families, COUNT(probe_families))) continue;
      int seen = 0;
      for (int k = 0; k < nkey && !seen; k++) seen = strcmp(keys[k], v->string) == 0;
      if (!seen && nkey < MAX_TASK_METRICS && strlen(v->string) < KEY_MAX) {
        snprintf(keys[nkey++], KEY_MAX, "%s", v->string);
      }
    }
  }
  for (int k = 0; k < nkey; k++) {
    column* c = add_column(cols, n, keys[k], keys[k], COL_NUMBER);
    if (c) c->head[0] = 0;  // written escaped from the key
  }
}

static int choose_columns(const tf_results* r, column* cols, char params[][KEY_MAX], int* nconst) {
  int n = 0;
  add_column(cols, &n, "run_id", "run", COL_TEXT);
  if (any_value(r, "task")) add_column(cols, &n, "task", "task", COL_TEXT);
  if (any_value(r, "solver")) add_column(cols, &n, "solver", "solver", COL_TEXT);
  if (any_value(r, "dt")) add_column(cols, &n, "dt", "dt (s)", COL_DT);
  int nparam = find_params(r, params);
  *nconst = 0;
  for (int k = 0; k < nparam; k++) {
    if (param_varies(r, params[k])) {
      add_column(cols, &n, params[k], "", COL_TEXT);  // header: the key, escaped
    } else if (k != *nconst) {
      // constant parameters are moved to the front of params[] for the line above the table
      char tmp[KEY_MAX];
      memcpy(tmp, params[k], KEY_MAX);
      memmove(params[*nconst + 1], params[*nconst], (size_t)(k - *nconst) * KEY_MAX);
      memcpy(params[*nconst], tmp, KEY_MAX);
      (*nconst)++;
    } else {
      (*nconst)++;
    }
  }
  add_column(cols, &n, "status", "status", COL_STATUS);
  if (any_value(r, "success")) add_column(cols, &n, "success", "success", COL_SUCCESS);
  // the why column carries a failed run's error, so the error column is only for rows without it
  int why = any_value(r, "success") || any_value(r, "why");
  if (why) add_column(cols, &n, "why", "why", COL_WHY);
  add_metric(cols, &n, r, "success_envs", "envs ok", 1, 0);
  if (!why && any_value(r, "error")) add_column(cols, &n, "error", "error", COL_TEXT);
  add_metric(cols, &n, r, "tunnel.through", "tunnelled envs", 1, 1);
  add_metric(cols, &n, r, "tunnel.flythrough", "fly-through envs", 1, 1);
  add_metric(cols, &n, r, "overlap.peak_m", "overlap peak (&micro;m)", 1e6, 0);
  add_metric(cols, &n, r, "overlap.mean_m", "overlap mean (&micro;m)", 1e6, 0);
  add_metric(cols, &n, r, "gear_slip.max", "slip max", 1, 0);
  add_metric(cols, &n, r, "gear_slip.skipped_teeth", "skipped teeth", 1, 1);
  add_metric(cols, &n, r, "contacts.overflow", "contact overflow", 1, 1);
  add_metric(cols, &n, r, "solver.residual_max", "residual max", 1, 0);
  add_task_metrics(cols, &n, r);
  if (any_value(r, "throughput.env_steps_per_s") || any_value(r, "steps_per_s")) {
    add_column(cols, &n, "throughput.env_steps_per_s", "env steps/s", COL_STEPS);
  }
  if (any_value(r, "throughput.realtime_factor") || any_value(r, "realtime_factor")) {
    add_column(cols, &n, "throughput.realtime_factor", "&times; real time", COL_RTF);
  }
  if (any_value(r, "command")) add_column(cols, &n, "command", "reproduce", COL_COMMAND);
  return n;
}

// a number for reading: whole numbers plainly, large rates without exponent, else 4 digits
static void format_number(char* buf, size_t n, double v) {
  double a = fabs(v);
  if (a < 1e15 && v == floor(v)) {
    snprintf(buf, n, "%.0f", v);
  } else if (a >= 1e4 && a < 1e12) {
    snprintf(buf, n, "%.0f", v);
  } else {
    snprintf(buf, n, "%.4g", v);
  }
}

static void number_cell(FILE* f, double v, double scale, double bad_from) {
  char text[64];
  double shown = v * scale;
  format_number(text, sizeof text, shown);
  int bad = bad_from > 0 && v >= bad_from;
  fprintf(f, "<td class=\"num%s\" data-v=\"%.17g\">%s</td>", bad ? " bad" : "", shown, text);
}

// a cell for whatever JSON value a text column holds
static void text_cell(FILE* f, const cJSON* v) {
  if (!v || cJSON_IsNull(v)) {
    fputs("<td></td>", f);
  } else if (cJSON_IsString(v)) {
    fputs("<td>", f);
    tf_html_puts(f, v->valuestring);
    fputs("</td>", f);
  } else if (cJSON_IsNumber(v) && isfinite(v->valuedouble)) {
    char text[64];
    format_number(text, sizeof text, v->valuedouble);
    fprintf(f, "<td class=\"num\" data-v=\"%.17g\">%s</td>", v->valuedouble, text);
  } else {
    char* s = tf_json_print(v, 0);
    fputs("<td>", f);
    tf_html_puts(f, s);
    fputs("</td>", f);
    if (s) cJSON_free(s);
  }
}

// the reason a run did not pass, in words (empty for a pass): a failed or diverged run's status
// and error come first, since the task's own "why" judged a state the run never finished; then
// the task's "why" (of environment 0, so "k of n environments" covers a miss elsewhere)
void tf_report_why(char* buf, size_t n, const cJSON* row) {
  buf[0] = 0;
  const char* status = tf_results_text(row, "status");
  const char* error = tf_results_text(row, "error");
  const char* why = tf_results_text(row, "why");
  double through = 0, fly = 0, ok_envs = 0, envs = 0;
  if (status && strcmp(status, "ok") != 0) {
    snprintf(buf, n, "%s%s%s", status, error && error[0] ? ": " : "", error ? error : "");
  } else if (tf_results_number(row, "tunnel.through", &through) && through > 0) {
    snprintf(buf, n, "tunnelled in %.0f env%s", through, through == 1 ? "" : "s");
  } else if (tf_results_number(row, "tunnel.flythrough", &fly) && fly > 0) {
    snprintf(buf, n, "flew through in %.0f env%s", fly, fly == 1 ? "" : "s");
  } else if (tf_report_outcome(row) != TF_RUN_MISS) {
    return;
  } else if (why && why[0]) {
    snprintf(buf, n, "%s", why);
  } else if (tf_results_number(row, "success_envs", &ok_envs) &&
             tf_results_number(row, "envs", &envs)) {
    snprintf(buf, n, "%.0f of %.0f envs succeeded", ok_envs, envs);
  }
}

// the first of two keys that holds a finite number
static int number_either(const cJSON* row, const char* a, const char* b, double* out) {
  return tf_results_number(row, a, out) || tf_results_number(row, b, out);
}

static void write_cell(FILE* f, const column* c, const cJSON* row, int line) {
  const cJSON* v = cJSON_GetObjectItemCaseSensitive(row, c->key);
  double x = 0;
  switch (c->kind) {
    case COL_NUMBER:
      if (tf_results_number(row, c->key, &x)) {
        number_cell(f, x, c->scale, c->bad_from);
      } else {
        fputs("<td></td>", f);
      }
      return;
    case COL_DT:
      if (tf_results_number(row, c->key, &x) && x > 0) {
        char text[64];
        format_number(text, sizeof text, x);
        double rate = 1 / x;
        fprintf(f, "<td class=\"num\" data-v=\"%.17g\">%s", x, text);
        if (rate >= 1 && rate <= 1e7 && fabs(rate - round(rate)) < 1e-6 * rate) {
          fprintf(f, " <span class=\"dim\">(1/%.0f)</span>", round(rate));
        }
        fputs("</td>", f);
      } else {
        text_cell(f, v);
      }
      return;
    case COL_STATUS: {
      const char* s = tf_results_text(row, "status");
      // the class is built from letters only, so an odd status cannot break the markup
      char cls[32] = "none";
      if (s) {
        size_t k = 0;
        for (const char* p = s; *p && k + 1 < sizeof cls; p++) {
          if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')) cls[k++] = *p;
        }
        cls[k] = 0;
        if (k == 0) snprintf(cls, sizeof cls, "other");
      }
      fprintf(f, "<td class=\"status-%s\">", cls);
      tf_html_puts(f, s ? s : "");
      fputs("</td>", f);
      return;
    }
    case COL_SUCCESS: {
      int ok = 0;
      if (tf_results_bool(row, "success", &ok)) {
        fprintf(f, "<td class=\"%s\">%s</td>", ok ? "yes" : "no", ok ? "yes" : "no");
      } else {
        fputs("<td></td>", f);
      }
      return;
    }
    case COL_WHY: {
      char why[512];
      tf_report_why(why, sizeof why, row);
      fputs("<td class=\"why\">", f);
      tf_html_puts(f, why);
      fputs("</td>", f);
      return;
    }
    case COL_STEPS:
      if (number_either(row, "throughput.env_steps_per_s", "steps_per_s", &x)) {
        number_cell(f, x, 1, 0);
      } else {
        fputs("<td></td>", f);
      }
      return;
    case COL_RTF:
      if (number_either(row, "throughput.realtime_factor", "realtime_factor", &x)) {
        number_cell(f, x, 1, 0);
      } else {
        fputs("<td></td>", f);
      }
      return;
    case COL_COMMAND:
      if (cJSON_IsString(v)) {
        fputs("<td class=\"cmd\"><code>", f);
        tf_html_puts(f, v->valuestring);
        fputs("</code></td>", f);
      } else {
        fputs("<td></td>", f);
      }
      return;
    case COL_TEXT:
      // a run without an id is named by its line in results.jsonl
      if (strcmp(c->key, "run_id") == 0 && (!v || cJSON_IsNull(v))) {
        fprintf(f, "<td class=\"num\" data-v=\"%d\">line %d</td>", line, line);
      } else {
        text_cell(f, v);
      }
      return;
  }
}

// the value of key in the first row that has it (of task, when task is not NULL)
static const cJSON* first_value(const tf_results* r, const char* key, const char* task) {
  for (int i = 0; i < r->nrow; i++) {
    const char* t = tf_results_text(r->row[i], "task");
    if (task && (!t || strcmp(t, task) != 0)) continue;
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(r->row[i], key);
    if (v) return v;
  }
  return NULL;
}

// whether every row has key
static int every_row_has(const tf_results* r, const char* key) {
  for (int i = 0; i < r->nrow; i++) {
    if (!cJSON_GetObjectItemCaseSensitive(r->row[i], key)) return 0;
  }
  return 1;
}

// ", <b>key</b> = value" (no comma first)
static void write_constant(FILE* f, const cJSON* v, const char* key, int first) {
  char* s = v && !cJSON_IsString(v) ? tf_json_print(v, 0) : NULL;
  fputs(first ? "<b>" : ", <b>", f);
  tf_html_puts(f, key);
  fputs("</b> = ", f);
  tf_html_puts(f, cJSON_IsString(v) ? v->valuestring : s ? s : "");
  if (s) cJSON_free(s);
}

// "mu = 0.3, collider = sdf": parameters with one value in every run that has them, shown once.
// With several tasks, each task's own parameters get a line of their own, so peg's
// clearance_um is never read as bolt-nut's; what every run shares (mode, duration) comes first
static void write_constants(FILE* f, const tf_results* r, char params[][KEY_MAX], int nconst) {
  if (nconst == 0) return;
  char tasks[MAX_PARAMS][KEY_MAX];
  int ntask = 0;
  for (int i = 0; i < r->nrow; i++) {
    const char* t = tf_results_text(r->row[i], "task");
    int seen = !t;
    for (int k = 0; k < ntask && !seen; k++) seen = strcmp(tasks[k], t) == 0;
    if (!seen && ntask < MAX_PARAMS && strlen(t) < KEY_MAX)
      snprintf(tasks[ntask++], KEY_MAX, "%s", t);
  }
  if (ntask <= 1) {
    fputs("<p class=\"fixed\">Fixed in this sweep: ", f);
    for (int k = 0; k < nconst; k++)
      write_constant(f, first_value(r, params[k], NULL), params[k], !k);
    fputs("</p>\n", f);
    return;
  }
  int shared = 0;
  for (int k = 0; k < nconst; k++) {
    if (!every_row_has(r, params[k])) continue;
    fputs(shared ? "" : "<p class=\"fixed\">Fixed in this sweep, every task: ", f);
    write_constant(f, first_value(r, params[k], NULL), params[k], !shared);
    shared++;
  }
  if (shared) fputs("</p>\n", f);
  for (int t = 0; t < ntask; t++) {
    int n = 0;
    for (int k = 0; k < nconst; k++) {
      if (every_row_has(r, params[k])) continue;
      const cJSON* v = first_value(r, params[k], tasks[t]);
      if (!v) continue;
      if (!n) {
        fputs("<p class=\"fixed\" data-task=\"", f);
        tf_html_puts(f, tasks[t]);
        fputs("\">Fixed for ", f);
        tf_html_puts(f, tasks[t]);
        fputs(": ", f);
      }
      write_constant(f, v, params[k], !n);
      n++;
    }
    if (n) fputs("</p>\n", f);
  }
}

void tf_report_table_write(FILE* f, const tf_results* r, int counts[TF_RUN_NOUTCOME]) {
  int count[TF_RUN_NOUTCOME] = {0};
  for (int i = 0; i < r->nrow; i++) count[tf_report_outcome(r->row[i])]++;
  if (counts) memcpy(counts, count, sizeof count);

  column cols[MAX_COLUMNS];
  char params[MAX_PARAMS][KEY_MAX];
  int nconst = 0;
  int ncol = choose_columns(r, cols, params, &nconst);

  fprintf(f,
          "<p class=\"counts\">%d runs: <span class=\"k-pass\">%d pass</span>, "
          "<span class=\"k-miss\">%d ran but missed the task</span>, "
          "<span class=\"k-fail\">%d failed, diverged or tunnelled</span>",
          r->nrow, count[TF_RUN_PASS], count[TF_RUN_MISS], count[TF_RUN_FAIL]);
  if (count[TF_RUN_UNKNOWN]) fprintf(f, ", %d without a success flag", count[TF_RUN_UNKNOWN]);
  fputs(". Click a column header to sort.</p>\n", f);
  write_constants(f, r, params, nconst);

  fputs("<div class=\"scroll\"><table id=\"runs\">\n<thead><tr>", f);
  for (int c = 0; c < ncol; c++) {
    fputs("<th title=\"", f);
    tf_html_puts(f, cols[c].key);
    fputs("\">", f);
    if (cols[c].head[0]) {
      fputs(cols[c].head, f);  // our own markup (entities)
    } else {
      tf_html_puts(f, cols[c].key);
    }
    fputs("</th>", f);
  }
  fputs("</tr></thead>\n<tbody>\n", f);
  for (int i = 0; i < r->nrow; i++) {
    fprintf(f, "<tr class=\"run %s\" data-line=\"%d\">",
            tf_report_outcome_name(tf_report_outcome(r->row[i])), r->line[i]);
    for (int c = 0; c < ncol; c++) write_cell(f, &cols[c], r->row[i], r->line[i]);
    fputs("</tr>\n", f);
  }
  fputs("</tbody>\n</table></div>\n", f);
}
