// The `tightfit` command's subcommands and shared helpers.
#ifndef TF_CLI_H
#define TF_CLI_H

#include <stdio.h>

// exit statuses: 0 ok, 1 the run failed, 2 bad usage or bad input
enum { TF_EXIT_OK = 0, TF_EXIT_FAIL = 1, TF_EXIT_USAGE = 2 };

int tf_cmd_run(int argc, char** argv);
int tf_cmd_run_task(int argc, char** argv);
int tf_cmd_video(int argc, char** argv);
int tf_cmd_list(int argc, char** argv);
int tf_cmd_validate(int argc, char** argv);
int tf_cmd_asset(int argc, char** argv);
int tf_cmd_export(int argc, char** argv);
int tf_cmd_sweep(int argc, char** argv);
int tf_cmd_report(int argc, char** argv);
int tf_cmd_merge(int argc, char** argv);

// writes the top-level usage to f
void tf_cli_usage(FILE* f);
// writes one command's usage to f; -1 for an unknown command
int tf_cli_help(const char* command, FILE* f);
// 1 when --help or -h is among the arguments
int tf_cli_wants_help(int argc, char** argv);

// parses a finite number in [lo, hi]; on failure prints "tightfit: OPTION ..." and returns -1
int tf_cli_parse_number(const char* option, const char* text, double lo, double hi, double* out);

// the same without a message: 0, or -1 when text is not a finite number in [lo, hi]
int tf_cli_number(const char* text, double lo, double hi, double* out);

// a whole number in [lo, hi]; on failure prints ONE line "tightfit COMMAND: OPTION needs a
// whole number in [lo, hi], got 'TEXT'" and returns -1
int tf_cli_parse_whole(const char* command, const char* option, const char* text, double lo,
                       double hi, double* out);

// parses `run --task` options (argv's --set values are split in place); -1 after printing
// one line "tightfit COMMAND: ..." on a bad option (COMMAND: "run" or "video")
struct tf_run_options;
int tf_cli_parse_run_options(const char* command, int argc, char** argv, struct tf_run_options* o,
                             int* json);

#endif  // TF_CLI_H
