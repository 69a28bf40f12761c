// The largest passing dt per task and setting (report_largest_dt.h). A dt passes for a setting
// when every run of it at that dt passed (tf_report_outcome: status ok, success, nothing
// tunnelled); the throughput at the largest one is the mean realtime_factor of its runs.
#include "report_largest_dt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html_escape.h"
#include "report_table.h"

#define MAX_SETTINGS 256
#define MAX_DTS 32
#define NAME_LEN 32

// one task and setting, with what each of its dts gave
typedef struct setting {
  char task[NAME_LEN], mode[NAME_LEN], solver[NAME_LEN];
  double substeps, relinearize;
  int ndt;
  double dt[MAX_DTS];
  int runs[MAX_DTS], passed[MAX_DTS];
  double rtf_sum[MAX_DTS];
} setting;

static void copy_text(char* out, const cJSON* row, const char* key) {
  const char* s = tf_results_text(row, key);
  snprintf(out, NAME_LEN, "%s", s ? s : "");
}

// the setting row belongs to, added when new; NULL when the table is full
static setting* find_setting(setting* all, int* n, const cJSON* row) {
  setting key;
  memset(&key, 0, sizeof(key));
  copy_text(key.task, row, "task");
  copy_text(key.mode, row, "mode");
  copy_text(key.solver, row, "solver");
  if (!tf_results_number(row, "substeps", &key.substeps)) key.substeps = 1;
  if (!tf_results_number(row, "relinearize", &key.relinearize)) key.relinearize = 0;
  for (int i = 0; i < *n; i++) {
    setting* s = &all[i];
    if (strcmp(s->task, key.task) == 0 && strcmp(s->mode, key.mode) == 0 &&
        strcmp(s->solver, key.solver) == 0 && s->substeps == key.substeps &&
        s->relinearize == key.relinearize) {
      return s;
    }
  }
  if (*n >= MAX_SETTINGS) return NULL;
  all[*n] = key;
  return &all[(*n)++];
}

// the slot of dt in s, added when new; -1 when full
static int dt_slot(setting* s, double dt) {
  for (int k = 0; k < s->ndt; k++) {
    if (s->dt[k] == dt) return k;
  }
  if (s->ndt >= MAX_DTS) return -1;
  s->dt[s->ndt] = dt;
  return s->ndt++;
}

// whether the rows hold more than one dt at all
static int dt_varies(const tf_results* r) {
  double first = NAN;
  for (int i = 0; i < r->nrow; i++) {
    double dt;
    if (!tf_results_number(r->row[i], "dt", &dt)) continue;
    if (isnan(first)) first = dt;
    if (dt != first) return 1;
  }
  return 0;
}

static void write_row(FILE* f, const setting* s) {
  int best = -1, npass = 0;
  for (int k = 0; k < s->ndt; k++) {
    if (s->passed[k] != s->runs[k]) continue;
    npass++;
    if (best < 0 || s->dt[k] > s->dt[best]) best = k;
  }
  fputs("<tr class=\"", f);
  fputs(best >= 0 ? "pass" : "miss", f);
  fputs("\"><td>", f);
  tf_html_puts(f, s->task);
  fputs("</td><td>", f);
  tf_html_puts(f, s->mode);
  fputs("</td><td>", f);
  tf_html_puts(f, s->solver);
  fprintf(f, "</td><td>%g</td><td>%g</td>", s->substeps, s->relinearize);
  if (best >= 0) {
    double rtf = s->rtf_sum[best] / s->runs[best];
    fprintf(f, "<td>%g</td><td>%.3g</td>", 1e3 * s->dt[best], rtf);
  } else {
    fputs("<td>none</td><td></td>", f);
  }
  fprintf(f, "<td>%d of %d</td></tr>\n", npass, s->ndt);
}

int tf_report_largest_dt_write(FILE* f, const tf_results* r) {
  if (!dt_varies(r)) return 0;
  setting* all = calloc(MAX_SETTINGS, sizeof(setting));
  if (!all) return 0;
  int n = 0;
  for (int i = 0; i < r->nrow; i++) {
    const cJSON* row = r->row[i];
    double dt;
    if (!tf_results_number(row, "dt", &dt)) continue;
    setting* s = find_setting(all, &n, row);
    if (!s) continue;
    int k = dt_slot(s, dt);
    if (k < 0) continue;
    s->runs[k]++;
    if (tf_report_outcome(row) == TF_RUN_PASS) s->passed[k]++;
    double rtf = 0;
    if (tf_results_number(row, "realtime_factor", &rtf) && isfinite(rtf)) s->rtf_sum[k] += rtf;
  }
  fputs(
      "<section id=\"largest-dt\"><h2>Largest passing dt</h2>\n"
      "<p>Per task and setting, the largest control step at which every run passed, and the "
      "simulated seconds per wall second there (the mean over those runs).</p>\n"
      "<table id=\"largest\"><thead><tr><th>task</th><th>mode</th><th>solver</th>"
      "<th>substeps</th><th>relinearize</th><th>largest dt (ms)</th>"
      "<th>sim s per wall s</th><th>dts passing</th></tr></thead><tbody>\n",
      f);
  for (int i = 0; i < n; i++) write_row(f, &all[i]);
  fputs("</tbody></table></section>\n", f);
  free(all);
  return n;
}
