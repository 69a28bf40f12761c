// `tightfit run --task T ...`: one run of an assembly task (all its environments, stepped on
// --threads threads) and one JSON object of its metrics on stdout (with --json), or a short
// summary. `--record FILE.npz` also writes every environment's every control step into an
// NPZ file (reports/record.h, docs/record.md).
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "interrupts.h"
#include "metrics_format.h"
#include "record.h"
#include "task.h"

#define EXIT_INTERRUPTED 130  // the shell's code for a command ended by Ctrl-C (128 + SIGINT)

static int fail_usage(const char* command, const char* fmt, const char* arg) {
  fprintf(stderr, "tightfit %s: ", command);
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n");
  return -1;
}

int tf_cli_parse_run_options(const char* command, int argc, char** argv, tf_run_options* o,
                             int* json) {
  tf_run_options_default(o);
  *json = 0;
  const char* controller = NULL;
  int assembly = 0;
  for (int i = 0; i < argc; i++) {
    const char* opt = argv[i];
    if (strcmp(opt, "--json") == 0) {
      *json = 1;
      continue;
    }
    static const char* const with_value[] = {
        "--task",     "--mode",       "--solver",      "--dt",          "--substeps",
        "--duration", "--envs",       "--threads",     "--seed",        "--iterations",
        "--set",      "--controller", "--relinearize", "--persist-tol", "--assembly"};
    int known = 0;
    for (size_t k = 0; k < sizeof(with_value) / sizeof(with_value[0]); k++) {
      known |= strcmp(opt, with_value[k]) == 0;
    }
    if (!known) return fail_usage(command, "unknown option '%s' (see tightfit run --help)", opt);
    if (i + 1 >= argc) return fail_usage(command, "%s needs a value", opt);
    const char* value = argv[++i];
    double x;
    if (strcmp(opt, "--task") == 0) {
      o->task = value;
    } else if (strcmp(opt, "--assembly") == 0) {
      // --assembly FILE.json: --task assembly --set assembly=FILE.json (docs/assemblies.md)
      if (o->nset >= TF_TASK_MAX_SET) return fail_usage(command, "%s", "too many --set options");
      o->set[o->nset].key = "assembly";
      o->set[o->nset].value = value;
      o->nset++;
      assembly = 1;
    } else if (strcmp(opt, "--mode") == 0) {
      if (strcmp(value, "rig") == 0) {
        o->mode = TF_MODE_RIG;
      } else if (strcmp(value, "robot") == 0) {
        o->mode = TF_MODE_ROBOT;
      } else {
        return fail_usage(command, "unknown mode '%s' (valid: rig, robot)", value);
      }
    } else if (strcmp(opt, "--controller") == 0) {
      controller = value;
    } else if (strcmp(opt, "--solver") == 0) {
      int s = tf_solver_from_name(value);
      if (s < 0) {
        return fail_usage(command, "unknown solver '%s' (valid: pgs, newton, al, admm, fbnewton)",
                          value);
      }
      o->physics.solver = (tf_solver_type)s;
    } else if (strcmp(opt, "--dt") == 0) {
      if (tf_cli_parse_number("--dt", value, 1e-7, 1.0, &x)) return -1;
      o->physics.dt = x;
    } else if (strcmp(opt, "--substeps") == 0) {
      if (tf_cli_parse_whole(command, "--substeps", value, 1, 1000, &x)) return -1;
      o->physics.substeps = (int)x;
    } else if (strcmp(opt, "--duration") == 0) {
      if (tf_cli_parse_number("--duration", value, 1e-6, 3600, &x)) return -1;
      o->duration = x;
    } else if (strcmp(opt, "--envs") == 0) {
      if (tf_cli_parse_whole(command, "--envs", value, 1, 256, &x)) return -1;
      o->envs = (int)x;
    } else if (strcmp(opt, "--threads") == 0) {
      // one line whatever is wrong with it: not a number, not whole, out of range
      char* end = NULL;
      long n = strtol(value, &end, 10);
      if (end == value || *end || n < 1 || n > TF_TASK_MAX_THREADS) {
        fprintf(stderr, "tightfit %s: --threads needs a whole number in [1, %d], got '%s'\n",
                command, TF_TASK_MAX_THREADS, value);
        return -1;
      }
      o->threads = (int)n;
    } else if (strcmp(opt, "--seed") == 0) {
      if (tf_cli_parse_whole(command, "--seed", value, 0, 9007199254740992.0, &x)) return -1;
      o->seed = (uint64_t)x;
    } else if (strcmp(opt, "--iterations") == 0) {
      if (tf_cli_parse_whole(command, "--iterations", value, 0, 100000, &x)) return -1;
      o->physics.iterations = (int)x;
    } else if (strcmp(opt, "--relinearize") == 0) {
      if (tf_cli_parse_whole(command, "--relinearize", value, 0, 100, &x)) return -1;
      o->physics.relinearize = (int)x;
    } else if (strcmp(opt, "--persist-tol") == 0) {
      if (tf_cli_parse_number("--persist-tol", value, 0, 1e-3, &x)) return -1;
      o->physics.persist_tol = x;
    } else {  // --set key=value
      const char* eq = strchr(value, '=');
      if (!eq || eq == value) return fail_usage(command, "--set needs key=value, got '%s'", value);
      if (o->nset >= TF_TASK_MAX_SET) return fail_usage(command, "%s", "too many --set options");
      // the key is cut out of argv in place: argv outlives the run
      char* key = (char*)value;
      key[eq - value] = 0;
      o->set[o->nset].key = key;
      o->set[o->nset].value = eq + 1;
      o->nset++;
    }
  }
  if (assembly && o->task && strcmp(o->task, "assembly") != 0)
    return fail_usage(command, "--assembly runs task assembly, not '%s'", o->task);
  if (assembly) o->task = "assembly";
  if (!o->task) return fail_usage(command, "%s", "--task is required");
  if (controller) {
    // robot mode's `controller` task parameter (so sweeps grid over it like any other key);
    // the task's schema checks the name
    if (o->mode != TF_MODE_ROBOT)
      return fail_usage(command, "%s", "--controller needs --mode robot");
    if (o->nset >= TF_TASK_MAX_SET) return fail_usage(command, "%s", "too many --set options");
    o->set[o->nset].key = "controller";
    o->set[o->nset].value = controller;
    o->nset++;
  }
  return 0;
}

// the run recorded into path: 0 with the row, or the exit status after printing one line
// (Ctrl-C or SIGTERM stops the run at the next control step and leaves no file)
static int run_recorded(const tf_run_options* o, const char* path, tf_metrics* row) {
  char err[1024];
  tf_cli_trap trap;
  const volatile sig_atomic_t* cancel = tf_cli_trap_interrupts(&trap, 0);
  int written = 0;
  int rc = tf_record_run(o, path, cancel, row, &written, err, sizeof(err));
  tf_cli_release_interrupts(&trap);
  if (rc != TF_RECORD_OK && *cancel) {
    fprintf(stderr, "tightfit run: interrupted; %s not written\n", path);
    return EXIT_INTERRUPTED;
  }
  if (rc != TF_RECORD_OK) {
    fprintf(stderr, "tightfit run: %s\n", err);
    return rc == TF_RECORD_REFUSED ? TF_EXIT_USAGE : TF_EXIT_FAIL;
  }
  return 0;
}

int tf_cmd_run_task(int argc, char** argv) {
  // --record FILE.npz is run's own option; the rest are the run options video shares
  const char* record = NULL;
  char** rest = malloc(sizeof(char*) * (size_t)(argc + 1));
  if (!rest) return TF_EXIT_FAIL;
  int nrest = 0;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--record") != 0) {
      rest[nrest++] = argv[i];
    } else if (i + 1 >= argc) {
      free(rest);
      fail_usage("run", "%s needs a value (FILE.npz)", "--record");
      return TF_EXIT_USAGE;
    } else {
      record = argv[++i];
    }
  }
  tf_run_options o;
  int json;
  int parsed = tf_cli_parse_run_options("run", nrest, rest, &o, &json);
  free(rest);
  if (parsed) return TF_EXIT_USAGE;
  char err[2048];  // an assembly file's problems come all at once
  if (record && tf_record_path_check(record, err, sizeof(err))) {
    fprintf(stderr, "tightfit run: --record: %s\n", err);
    return TF_EXIT_USAGE;
  }
  tf_metrics* row = malloc(sizeof(tf_metrics));
  if (!row) {
    fprintf(stderr, "tightfit run: out of memory\n");
    return TF_EXIT_FAIL;
  }
  if (record) {
    int status = run_recorded(&o, record, row);
    if (status) {
      free(row);
      return status;
    }
  } else if (tf_task_run(&o, row, err, sizeof(err))) {
    fprintf(stderr, "tightfit run: %s\n", err);
    free(row);
    return TF_EXIT_USAGE;
  }
  const char* status = tf_metrics_text(row, "status");
  int failed = status && strcmp(status, "failed") == 0;
  if (failed) {
    fprintf(stderr, "tightfit run: %s%s%s%s\n", tf_metrics_text(row, "error"), record ? "; " : "",
            record ? record : "", record ? " not written" : "");
  }
  if (json) {
    char* line = tf_metrics_json_line(row);
    if (!line) {
      fprintf(stderr, "tightfit run: out of memory\n");
      free(row);
      return TF_EXIT_FAIL;
    }
    printf("%s\n", line);
    free(line);
  } else {
    for (int i = 0; i < row->n; i++) {
      char cell[128];
      tf_metric_csv_cell(&row->item[i], cell, sizeof(cell));
      printf("%-34s %s\n", row->item[i].name, cell);
    }
  }
  free(row);
  return failed ? TF_EXIT_FAIL : TF_EXIT_OK;
}
