// The HTML report page (see report.h): reads the results directory, lays out the sections
// (header, machine, skipped lines, a dt sweep's largest passing dt, runs table, plots, videos,
// config, files) and writes the page through a temporary file that is renamed into place only
// when complete.
#include "report.h"

#include <cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "html_escape.h"
#include "report_plots.h"
#include "report_largest_dt.h"
#include "report_table.h"
#include "report_videos.h"
#include "tightfit.h"
#include "json_exact.h"

enum { PATH_LEN = 4096, SIDE_FILE_MAX = 16 << 20 };

// the optional JSON files beside results.jsonl, as read
typedef struct side_file {
  const char* name;  // "config.json"
  int present;
  char* text;                  // raw text when present (owned)
  cJSON* json;                 // parsed, or NULL when not valid JSON (owned)
  char error[PATH_LEN + 128];  // why it could not be read, shown in its section
} side_file;

typedef struct page {
  const char* dir;
  char title[256];  // the directory's last component
  const tf_results* results;
  side_file config, machine;
  int has_csv;
  int counts[TF_RUN_NOUTCOME];
  int nplot, nmedia;
} page;

static const char style_css[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px;color:#222}\n"
    "h1{font-size:1.5em;margin:0 0 4px}\n"
    "h2{font-size:1.2em;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:2px}\n"
    "h3{font-size:1em;margin:0 0 4px}\n"
    ".sub,.caption,.dim{color:#666}\n"
    ".caption{font-size:12px;max-width:720px}\n"
    "table{border-collapse:collapse;font-size:13px}\n"
    "th,td{border:1px solid #ddd;padding:2px 6px;text-align:left;white-space:nowrap}\n"
    "#runs th{background:#f2f2f2;cursor:pointer;position:sticky;top:0}\n"
    "#runs th.asc::after{content:' \\25B2'}#runs th.desc::after{content:' \\25BC'}\n"
    "td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
    "tr.pass,.k-pass{background:#e3f4e1}tr.miss,.k-miss{background:#fff3d1}\n"
    "tr.fail,.k-fail{background:#fbe0e0}\n"
    ".k-pass,.k-miss,.k-fail{padding:0 4px;border-radius:3px}\n"
    "td.bad,td.status-failed,td.status-diverged,td.no{color:#b00000;font-weight:600}\n"
    "td.status-ok,td.yes{color:#176f17}\n"
    "td.cmd code{user-select:all;font-size:12px}\n"
    ".scroll{overflow-x:auto;max-height:80vh}\n"
    ".plots{display:flex;flex-wrap:wrap;gap:20px}\n"
    ".plot-box{flex:1 1 560px;max-width:760px}\n"
    ".panels{display:flex;flex-direction:column;gap:10px}\n"
    "svg.plot{width:100%;height:auto;display:block}\n"
    "svg.plot .point{cursor:default}\n"
    ".nodata{color:#777;font-style:italic}\n"
    ".warn{color:#8a5300}\n"
    "pre{background:#f6f6f6;padding:8px 10px;overflow:auto;max-height:60vh;font-size:12px}\n"
    "figure{display:inline-block;margin:6px;vertical-align:top}\n"
    "video,figure img{max-width:480px;display:block}\n";

// sorts the runs table by a clicked header (numbers by data-v, texts naturally, blanks last).
// Marks <body data-js="ok"> when it has run through, and with #selftest in the URL sorts by
// every column both ways first, so a headless browser can prove the script does not throw.
static const char sort_js[] =
    "(function () {\n"
    "  'use strict';\n"
    "  var table = document.getElementById('runs');\n"
    "  var heads = [];\n"
    "  function key(cell) {\n"
    "    if (!cell) return null;\n"
    "    var v = cell.getAttribute('data-v');\n"
    "    if (v !== null && v !== '' && isFinite(Number(v))) return Number(v);\n"
    "    var t = (cell.textContent || '').trim();\n"
    "    return t === '' ? null : t;\n"
    "  }\n"
    "  function compare(a, b, dir) {\n"
    "    if (a === null || b === null) return (a === null) - (b === null);\n"
    "    if (typeof a === 'number' && typeof b === 'number') return dir * (a - b);\n"
    "    return dir * String(a).localeCompare(String(b), undefined, {numeric: true});\n"
    "  }\n"
    "  function sortBy(col, dir) {\n"
    "    var body = table.tBodies[0];\n"
    "    var rows = Array.prototype.map.call(body.rows, function (r, i) {\n"
    "      return {row: r, i: i, k: key(r.cells[col])};\n"
    "    });\n"
    "    rows.sort(function (a, b) { return compare(a.k, b.k, dir) || a.i - b.i; });\n"
    "    rows.forEach(function (x) { body.appendChild(x.row); });\n"
    "    heads.forEach(function (h) { h.classList.remove('asc', 'desc'); });\n"
    "    heads[col].classList.add(dir > 0 ? 'asc' : 'desc');\n"
    "  }\n"
    "  if (table && table.tHead && table.tHead.rows.length && table.tBodies.length) {\n"
    "    heads = Array.prototype.slice.call(table.tHead.rows[0].cells);\n"
    "    heads.forEach(function (th, col) {\n"
    "      th.addEventListener('click', function () {\n"
    "        sortBy(col, th.classList.contains('asc') ? -1 : 1);\n"
    "      });\n"
    "    });\n"
    "    if (location.hash === '#selftest') {\n"
    "      var n = table.tBodies[0].rows.length;\n"
    "      heads.forEach(function (th, col) { sortBy(col, 1); sortBy(col, -1); });\n"
    "      if (table.tBodies[0].rows.length !== n) throw new Error('selftest lost rows');\n"
    "      document.body.setAttribute('data-selftest', 'ok');\n"
    "    }\n"
    "  }\n"
    "  document.body.setAttribute('data-js', 'ok');\n"
    "})();\n";

// reads a whole small file; 1 read, 0 absent, -1 error (message in err)
static int read_text(const char* path, char** out, char* err, size_t errlen) {
  *out = NULL;
  FILE* f = fopen(path, "rb");
  if (!f) {
    if (errno == ENOENT) return 0;
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return -1;
  }
  size_t cap = 4096, n = 0;
  char* buf = malloc(cap);
  int status = 1;
  while (buf) {
    if (n + 1 >= cap) {
      if (cap >= SIDE_FILE_MAX) {
        snprintf(err, errlen, "%s: larger than %d MiB", path, SIDE_FILE_MAX >> 20);
        status = -1;
        break;
      }
      char* nb = realloc(buf, cap * 2);
      if (!nb) break;
      buf = nb;
      cap *= 2;
    }
    size_t got = fread(buf + n, 1, cap - 1 - n, f);
    n += got;
    if (got == 0) break;
  }
  if (status == 1 && (!buf || ferror(f))) {
    snprintf(err, errlen, "%s: %s", path, buf ? "read failed" : "out of memory");
    status = -1;
  }
  fclose(f);
  if (status != 1) {
    free(buf);
    return status;
  }
  buf[n] = 0;
  *out = buf;
  return 1;
}

// reads an optional JSON file; a corrupt one is shown as text with a note, never fatal
static void side_file_load(side_file* s, const char* dir, const char* name) {
  char path[PATH_LEN];
  memset(s, 0, sizeof *s);
  s->name = name;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (read_text(path, &s->text, s->error, sizeof s->error) != 1) return;
  s->present = 1;
  s->json = cJSON_Parse(s->text);
}

static void side_file_free(side_file* s) {
  free(s->text);
  cJSON_Delete(s->json);
  memset(s, 0, sizeof *s);
}

// a scalar JSON value as text (strings bare, others as JSON); malloc'd
static char* value_text(const cJSON* v) {
  if (cJSON_IsString(v)) return strdup(v->valuestring);
  return tf_json_print(v, 0);
}

static void write_header(FILE* f, const page* p) {
  fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n", f);
  fputs("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n", f);
  fputs("<title>tightfit report: ", f);
  tf_html_puts(f, p->title);
  fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", style_css);
  fputs("<header>\n<h1>tightfit report: ", f);
  tf_html_puts(f, p->title);
  fputs("</h1>\n<p class=\"sub\">", f);
  tf_html_puts(f, p->dir);
  const cJSON* m = p->machine.json;
  const char* version = tf_results_text(m, "version");
  if (!version) version = tf_results_text(m, "tightfit_version");
  const char* host = tf_results_text(m, "hostname");
  const char* date = tf_results_text(m, "date");
  if (version) {
    fputs(" &middot; ", f);
    tf_html_printf(f, "swept with tightfit %s", version);
  }
  if (host) tf_html_printf(f, " on %s", host);
  if (date) tf_html_printf(f, ", %s", date);
  fputs("</p>\n</header>\n", f);
}

// machine.json as a key / value table, whatever keys it has
static void write_machine(FILE* f, const page* p) {
  fputs("<section id=\"machine\"><h2>Machine</h2>\n", f);
  if (!p->machine.present) {
    if (p->machine.error[0]) {
      fputs("<p class=\"warn\">", f);
      tf_html_puts(f, p->machine.error);
      fputs("</p>\n</section>\n", f);
    } else {
      fputs("<p class=\"nodata\">no machine.json in this directory</p>\n</section>\n", f);
    }
    return;
  }
  if (!cJSON_IsObject(p->machine.json)) {
    fputs("<p class=\"warn\">machine.json is not a JSON object; its text:</p>\n<pre>", f);
    tf_html_puts(f, p->machine.text);
    fputs("</pre>\n</section>\n", f);
    return;
  }
  fputs("<table class=\"kv\">\n", f);
  for (const cJSON* v = p->machine.json->child; v; v = v->next) {
    char* s = value_text(v);
    fputs("<tr><th>", f);
    tf_html_puts(f, v->string);
    fputs("</th><td>", f);
    tf_html_puts(f, s);
    fputs("</td></tr>\n", f);
    free(s);
  }
  fputs("</table>\n</section>\n", f);
}

static void write_skipped(FILE* f, const tf_results* r) {
  if (r->nskipped == 0) return;
  fprintf(f,
          "<section id=\"skipped\"><h2>Skipped lines</h2>\n<p class=\"warn\">%d line%s of "
          "results.jsonl could not be read and %s left out:</p>\n<ul>\n",
          r->nskipped, r->nskipped == 1 ? "" : "s", r->nskipped == 1 ? "is" : "are");
  for (int i = 0; i < r->nskip_kept; i++) {
    fprintf(f, "<li>line %d: ", r->skip[i].line);
    tf_html_puts(f, r->skip[i].why);
    fputs("</li>\n", f);
  }
  if (r->nskipped > r->nskip_kept) {
    fprintf(f, "<li>and %d more</li>\n", r->nskipped - r->nskip_kept);
  }
  fputs("</ul>\n</section>\n", f);
}

static void write_config(FILE* f, const page* p) {
  fputs("<section id=\"config\"><h2>Sweep config</h2>\n", f);
  if (!p->config.present) {
    if (p->config.error[0]) {
      fputs("<p class=\"warn\">", f);
      tf_html_puts(f, p->config.error);
      fputs("</p>\n</section>\n", f);
    } else {
      fputs("<p class=\"nodata\">no config.json in this directory</p>\n</section>\n", f);
    }
    return;
  }
  char* pretty = p->config.json ? tf_json_print(p->config.json, 1) : NULL;
  if (!pretty) fputs("<p class=\"warn\">config.json is not valid JSON; its text:</p>\n", f);
  fputs("<details open><summary>config.json</summary>\n<pre>", f);
  tf_html_puts(f, pretty ? pretty : p->config.text);
  fputs("</pre></details>\n</section>\n", f);
  if (pretty) cJSON_free(pretty);
}

static void write_files(FILE* f, const page* p) {
  fputs("<section id=\"files\"><h2>Files</h2>\n<p>", f);
  if (p->has_csv) fputs("<a href=\"results.csv\">results.csv</a> &middot; ", f);
  fputs("<a href=\"results.jsonl\">results.jsonl</a>", f);
  if (p->config.present) fputs(" &middot; <a href=\"config.json\">config.json</a>", f);
  if (p->machine.present) fputs(" &middot; <a href=\"machine.json\">machine.json</a>", f);
  fprintf(f, "</p>\n<p class=\"dim\">Written by <code>tightfit report</code> %s.</p>\n</section>\n",
          TF_VERSION);
}

static void write_page(FILE* f, page* p) {
  write_header(f, p);
  write_machine(f, p);
  write_skipped(f, p->results);
  // a dt sweep's answer, the largest step each setting passes at, before the rows it comes
  // from: a 320-run table would push it a few screens down
  tf_report_largest_dt_write(f, p->results);
  fputs("<section id=\"summary\"><h2>Runs</h2>\n", f);
  tf_report_table_write(f, p->results, p->counts);
  fputs("</section>\n", f);
  fputs("<section id=\"plots-section\"><h2>Plots</h2>\n", f);
  p->nplot = tf_report_plots_write(f, p->results);
  fputs("</section>\n", f);
  p->nmedia = tf_report_videos_write(f, p->dir);
  write_config(f, p);
  write_files(f, p);
  fprintf(f, "<script>\n%s</script>\n</body>\n</html>\n", sort_js);
}

// writes the page to a temporary file beside the target and renames it into place
static int write_atomic(const char* target, const char* dir, page* p, char* err, size_t errlen) {
  char tmp[PATH_LEN];
  if (snprintf(tmp, sizeof tmp, "%s/.report.html.XXXXXX", dir) >= (int)sizeof tmp) {
    snprintf(err, errlen, "%s: path too long", dir);
    return -1;
  }
  int fd = mkstemp(tmp);
  if (fd < 0) {
    snprintf(err, errlen, "%s: cannot create a file here: %s", dir, strerror(errno));
    return -1;
  }
  // mkstemp makes the file private; a report is meant to be read by others
  if (fchmod(fd, 0644) != 0) {
    // not fatal: the report is still correct, only less widely readable
  }
  FILE* f = fdopen(fd, "w");
  if (!f) {
    snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
    close(fd);
    unlink(tmp);
    return -1;
  }
  write_page(f, p);
  int failed = fflush(f) != 0 || ferror(f);
  int saved = errno;
  // the data must be on disk before the rename publishes it, or a crash could leave an empty
  // report.html in place of the previous good one
  if (!failed && fsync(fileno(f)) != 0) {
    failed = 1;
    saved = errno;
  }
  if (fclose(f) != 0 && !failed) {
    failed = 1;
    saved = errno;
  }
  if (failed) {
    snprintf(err, errlen, "%s: write failed: %s", target, strerror(saved ? saved : EIO));
    unlink(tmp);
    return -1;
  }
  if (rename(tmp, target) != 0) {
    snprintf(err, errlen, "%s: %s", target, strerror(errno));
    unlink(tmp);
    return -1;
  }
  return 0;
}

// the directory's last path component, for the page title ("runs/gears/" -> "gears")
static void dir_title(char* out, size_t n, const char* dir) {
  size_t len = strlen(dir);
  while (len > 1 && dir[len - 1] == '/') len--;
  size_t start = len;
  while (start > 0 && dir[start - 1] != '/') start--;
  snprintf(out, n, "%.*s", (int)(len - start), dir + start);
  if (!out[0]) snprintf(out, n, "%s", dir);
}

int tf_report_write(const char* dir, char* err, size_t errlen) {
  return tf_report_write_info(dir, NULL, err, errlen);
}

int tf_report_write_info(const char* dir, tf_report_info* info, char* err, size_t errlen) {
  if (info) memset(info, 0, sizeof *info);
  if (!dir || !dir[0]) {
    snprintf(err, errlen, "no results directory given");
    return -1;
  }
  struct stat st;
  if (stat(dir, &st) != 0) {
    snprintf(err, errlen, "%s: %s", dir, strerror(errno));
    return -1;
  }
  if (!S_ISDIR(st.st_mode)) {
    snprintf(err, errlen, "%s: not a directory (give the folder a sweep wrote)", dir);
    return -1;
  }
  char results_path[PATH_LEN], target[PATH_LEN], csv_path[PATH_LEN];
  if (snprintf(results_path, sizeof results_path, "%s/results.jsonl", dir) >= PATH_LEN ||
      snprintf(target, sizeof target, "%s/report.html", dir) >= PATH_LEN ||
      snprintf(csv_path, sizeof csv_path, "%s/results.csv", dir) >= PATH_LEN) {
    snprintf(err, errlen, "%s: path too long", dir);
    return -1;
  }
  if (stat(results_path, &st) != 0 && errno == ENOENT) {
    snprintf(err, errlen, "%s: not found (write it with `tightfit sweep CONFIG.json --out %s`)",
             results_path, dir);
    return -1;
  }
  tf_results results;
  if (tf_results_load(&results, results_path, err, errlen) != 0) {
    tf_results_free(&results);
    return -1;
  }
  if (results.nrow == 0) {
    if (results.nskipped > 0) {
      snprintf(err, errlen, "%s: no readable run (%d corrupt line%s, first: line %d, %s)",
               results_path, results.nskipped, results.nskipped == 1 ? "" : "s",
               results.skip[0].line, results.skip[0].why);
    } else {
      snprintf(err, errlen, "%s: no runs in it yet", results_path);
    }
    tf_results_free(&results);
    return -1;
  }

  page p = {.dir = dir, .results = &results};
  dir_title(p.title, sizeof p.title, dir);
  side_file_load(&p.config, dir, "config.json");
  side_file_load(&p.machine, dir, "machine.json");
  p.has_csv = access(csv_path, F_OK) == 0;
  int status = write_atomic(target, dir, &p, err, errlen);

  if (info && status == 0) {
    snprintf(info->path, sizeof info->path, "%s", target);
    info->nrun = results.nrow;
    info->npass = p.counts[TF_RUN_PASS];
    info->nmiss = p.counts[TF_RUN_MISS];
    info->nfail = p.counts[TF_RUN_FAIL];
    info->nplot = p.nplot;
    info->nmedia = p.nmedia;
    info->nskipped = results.nskipped;
    info->nskip_kept = results.nskip_kept;
    memcpy(info->skip, results.skip, sizeof info->skip);
  }
  side_file_free(&p.config);
  side_file_free(&p.machine);
  tf_results_free(&results);
  return status;
}
