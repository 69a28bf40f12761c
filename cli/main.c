// tightfit: entry point and subcommand dispatch.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "cli.h"
#include "tightfit.h"

int tf_cli_parse_number(const char* option, const char* text, double lo, double hi, double* out) {
  char* end = NULL;
  double x = text ? strtod(text, &end) : NAN;
  if (!text || end == text || *end != 0 || !isfinite(x)) {
    fprintf(stderr, "tightfit: %s needs a number, got '%s'\n", option, text ? text : "");
    return -1;
  }
  if (x < lo || x > hi) {
    fprintf(stderr, "tightfit: %s must be in [%g, %g], got %g\n", option, lo, hi, x);
    return -1;
  }
  *out = x;
  return 0;
}

int tf_cli_number(const char* text, double lo, double hi, double* out) {
  char* end = NULL;
  double x = text ? strtod(text, &end) : NAN;
  if (!text || end == text || *end != 0 || !isfinite(x) || x < lo || x > hi) return -1;
  *out = x;
  return 0;
}

int tf_cli_parse_whole(const char* command, const char* option, const char* text, double lo,
                       double hi, double* out) {
  double x;
  if (tf_cli_number(text, lo, hi, &x) || x != floor(x)) {
    fprintf(stderr, "tightfit %s: %s needs a whole number in [%.17g, %.17g], got '%s'\n", command,
            option, lo, hi, text ? text : "");
    return -1;
  }
  *out = x;
  return 0;
}

int main(int argc, char** argv) {
  static const struct {
    const char* name;
    int (*fn)(int argc, char** argv);
  } commands[] = {{"run", tf_cmd_run},     {"list", tf_cmd_list},     {"validate", tf_cmd_validate},
                  {"asset", tf_cmd_asset}, {"sweep", tf_cmd_sweep},   {"report", tf_cmd_report},
                  {"video", tf_cmd_video}, {"export", tf_cmd_export}, {"merge", tf_cmd_merge}};
  if (argc < 2) {
    fprintf(stderr, "tightfit: no command given (see tightfit --help)\n");
    return TF_EXIT_USAGE;
  }
  const char* cmd = argv[1];
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
    printf("tightfit %s\n", TF_VERSION);
    return TF_EXIT_OK;
  }
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
    // `tightfit help CMD`: that command's usage
    if (argc >= 3 && tf_cli_help(argv[2], stdout) == 0) return TF_EXIT_OK;
    tf_cli_usage(stdout);
    return TF_EXIT_OK;
  }
  for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
    if (strcmp(cmd, commands[i].name) != 0) continue;
    // every command answers --help / -h anywhere among its arguments, before any check
    if (tf_cli_wants_help(argc - 2, argv + 2)) {
      tf_cli_help(cmd, stdout);
      return TF_EXIT_OK;
    }
    return commands[i].fn(argc - 2, argv + 2);
  }
  fprintf(stderr,
          "tightfit: unknown command '%s' (valid: run, validate, video, asset, export, sweep, "
          "merge, report, list; see tightfit --help)\n",
          cmd);
  return TF_EXIT_USAGE;
}
