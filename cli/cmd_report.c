// `tightfit report DIR [--json]`: writes DIR/report.html from a sweep's results and prints
// its path (or, with --json, the path and what went into it). Corrupt lines of results.jsonl
// are warned about on stderr, one line each, and left out; they never stop the report.
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json_exact.h"
#include "report.h"

// one line: what is wrong, and where the usage is
static void usage_error(const char* what, const char* arg) {
  fprintf(stderr, "tightfit report: %s '%s' (see tightfit report --help)\n", what, arg);
}

static void print_json(const tf_report_info* info) {
  cJSON* o = cJSON_CreateObject();
  if (!o) return;
  cJSON_AddStringToObject(o, "path", info->path);
  cJSON_AddNumberToObject(o, "runs", info->nrun);
  cJSON_AddNumberToObject(o, "pass", info->npass);
  cJSON_AddNumberToObject(o, "miss", info->nmiss);
  cJSON_AddNumberToObject(o, "fail", info->nfail);
  cJSON_AddNumberToObject(o, "plots", info->nplot);
  cJSON_AddNumberToObject(o, "media", info->nmedia);
  cJSON_AddNumberToObject(o, "skipped_lines", info->nskipped);
  cJSON* skipped = cJSON_AddArrayToObject(o, "skipped");
  for (int i = 0; skipped && i < info->nskip_kept; i++) {
    cJSON* s = cJSON_CreateObject();
    if (!s) break;
    cJSON_AddNumberToObject(s, "line", info->skip[i].line);
    cJSON_AddStringToObject(s, "why", info->skip[i].why);
    cJSON_AddItemToArray(skipped, s);
  }
  tf_json_puts(stdout, o);
  cJSON_Delete(o);
}

int tf_cmd_report(int argc, char** argv) {
  const char* dir = NULL;
  int json = 0;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0) {
      json = 1;
    } else if (argv[i][0] == '-' && argv[i][1] != 0) {
      usage_error("unknown option", argv[i]);
      return TF_EXIT_USAGE;
    } else if (dir) {
      usage_error("one results directory only, got a second", argv[i]);
      return TF_EXIT_USAGE;
    } else {
      dir = argv[i];
    }
  }
  if (!dir) {
    fprintf(stderr,
            "tightfit report: needs the results directory of a sweep (see tightfit report "
            "--help)\n");
    return TF_EXIT_USAGE;
  }
  // the info carries the skipped-line list; heap, not stack, as it is a few KiB
  tf_report_info* info = malloc(sizeof *info);
  if (!info) {
    fprintf(stderr, "tightfit report: out of memory\n");
    return TF_EXIT_FAIL;
  }
  char err[512];
  if (tf_report_write_info(dir, info, err, sizeof err) != 0) {
    fprintf(stderr, "tightfit report: %s\n", err);
    free(info);
    return TF_EXIT_USAGE;
  }
  for (int i = 0; i < info->nskip_kept; i++) {
    fprintf(stderr, "tightfit report: %s/results.jsonl line %d: %s (skipped)\n", dir,
            info->skip[i].line, info->skip[i].why);
  }
  if (info->nskipped > info->nskip_kept) {
    fprintf(stderr, "tightfit report: and %d more corrupt lines skipped\n",
            info->nskipped - info->nskip_kept);
  }
  if (json) {
    print_json(info);
  } else {
    printf("%s\n", info->path);
  }
  free(info);
  return TF_EXIT_OK;
}
