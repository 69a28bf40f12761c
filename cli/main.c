// tightfit: entry point and subcommand dispatch.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "cli.h"
#include "tightfit.h"

void tf_cli_usage(FILE* f) {
  fprintf(f,
          "usage: tightfit <command> [options]\n"
          "\n"
          "commands:\n"
          "  run --scene NAME [--dt H] [--duration T] [--integrator euler|rk4] [--json]\n"
          "                      simulate a reference scene and print its metrics\n"
          "  run --task T [--mode rig|robot] [--controller osc|impedance|ik|pd] [--solver S]\n"
          "      [--dt H] [--substeps N] [--duration T] [--envs N] [--seed N] [--iterations N]\n"
          "      [--relinearize N] [--threads N] [--set key=value ...] [--json]\n"
          "                      run an assembly task's environments with every probe,\n"
          "                      --threads N of them at a time (default 1; same results)\n"
          "  validate [--gate NAME] [--solver pgs|newton|al|admm|fbnewton] [--json]\n"
          "                      run the contact physics gates and compare with their limits\n"
          "  validate --tasks [--gate NAME] [--persist-tol M] [--json]\n"
          "                      run the assembly tasks' physics gates (seating, threads, gears)\n"
          "  video --task T [run options] [--camera wide|closeup|grid|px,py,pz,tx,ty,tz,fovy]\n"
          "      [--fps 30] [--size 640x480] [--threads N] [--thumbnail FILE.png] --out FILE.mp4\n"
          "                      render a run's rollout headless into an H.264 MP4\n"
          "  asset list [--json] the parametric parts and their parameters\n"
          "  asset export PART [--set key=value ...] --out FILE.obj|FILE.stl [--json]\n"
          "                      write a part's watertight mesh\n"
          "  sweep CONFIG.json --out DIR [--jobs N] [--resume] [--force]\n"
          "                      run a JSON grid of task runs into DIR/results.csv, .jsonl\n"
          "  report DIR [--json] write DIR/report.html (table, plots, videos) from a sweep's\n"
          "                      results.jsonl; prints the path written\n"
          "  list [--json]       scenes, gates, solvers, integrators, joints, actuators\n"
          "  --version           print the version\n"
          "  --help              print this help\n");
}

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

int main(int argc, char** argv) {
  if (argc < 2) {
    tf_cli_usage(stderr);
    return TF_EXIT_USAGE;
  }
  const char* cmd = argv[1];
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
    printf("tightfit %s\n", TF_VERSION);
    return TF_EXIT_OK;
  }
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
    tf_cli_usage(stdout);
    return TF_EXIT_OK;
  }
  tf_engine_init();
  if (strcmp(cmd, "run") == 0) return tf_cmd_run(argc - 2, argv + 2);
  if (strcmp(cmd, "list") == 0) return tf_cmd_list(argc - 2, argv + 2);
  if (strcmp(cmd, "validate") == 0) return tf_cmd_validate(argc - 2, argv + 2);
  if (strcmp(cmd, "asset") == 0) return tf_cmd_asset(argc - 2, argv + 2);
  if (strcmp(cmd, "sweep") == 0) return tf_cmd_sweep(argc - 2, argv + 2);
  if (strcmp(cmd, "report") == 0) return tf_cmd_report(argc - 2, argv + 2);
  if (strcmp(cmd, "video") == 0) return tf_cmd_video(argc - 2, argv + 2);
  fprintf(stderr, "tightfit: unknown command '%s'\n", cmd);
  tf_cli_usage(stderr);
  return TF_EXIT_USAGE;
}
