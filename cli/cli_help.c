// The usage text of `tightfit` and of each subcommand. Asked-for help (`tightfit CMD --help`
// or `-h`) goes to stdout with exit 0; an error never prints it, only one line that ends with
// "(see tightfit CMD --help)", so that a script's log shows the problem and not a page.
#include <stdio.h>
#include <string.h>

#include "cli.h"

void tf_cli_usage(FILE* f) {
  fprintf(f,
          "usage: tightfit <command> [options]\n"
          "\n"
          "commands:\n"
          "  run --scene NAME [--dt H] [--duration T] [--integrator euler|rk4] [--json]\n"
          "                      simulate a reference scene and print its metrics\n"
          "  run --scene FILE.xml [--dt H] [--duration T] [--integrator euler|rk4]\n"
          "      [--solver S] [--json]\n"
          "                      load a MuJoCo MJCF model and run it (docs/cli.md)\n"
          "  run --task T [--mode rig|robot] [--controller osc|impedance|ik|pd] [--solver S]\n"
          "      [--dt H] [--substeps N] [--duration T] [--envs N] [--seed N] [--iterations N]\n"
          "      [--relinearize N] [--threads N] [--set key=value ...] [--record FILE.npz]\n"
          "      [--json]        run an assembly task's environments with every probe,\n"
          "                      --threads N of them at a time (default 1; same results);\n"
          "                      --record: every control step into an NPZ file\n"
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
          "  export --task T [--mode rig|robot] [--set key=value ...] --format mjcf --out DIR\n"
          "                      write a task's scene as a MuJoCo model (DIR/model.xml)\n"
          "  sweep CONFIG.json --out DIR [--jobs N] [--resume] [--force]\n"
          "                      run a JSON grid of task runs into DIR/results.csv, .jsonl\n"
          "  merge DIR           join the finished shards of a sweep (--shard K/N) in\n"
          "                      DIR/shards/ into DIR's results, videos and report.html\n"
          "  report DIR [--json] write DIR/report.html (table, plots, videos) from a sweep's\n"
          "                      results.jsonl; prints the path written\n"
          "  list [--json]       scenes, gates, solvers, integrators, joints, actuators\n"
          "  --version           print the version\n"
          "  --help              print this help (tightfit CMD --help: one command's)\n");
}

static const char run_help[] =
    "usage: tightfit run --scene NAME [--dt H] [--duration T] [--integrator euler|rk4] [--json]\n"
    "       tightfit run --scene FILE.xml [--dt H] [--duration T] [--integrator euler|rk4]\n"
    "                    [--solver pgs|newton|al|admm|fbnewton] [--json]\n"
    "       tightfit run --task T [--mode rig|robot] [--controller osc|impedance|ik|pd]\n"
    "                    [--solver pgs|newton|al|admm|fbnewton] [--dt H] [--substeps N]\n"
    "                    [--duration T] [--envs N] [--threads N] [--seed N] [--iterations N]\n"
    "                    [--relinearize N] [--persist-tol M] [--set key=value ...]\n"
    "                    [--record FILE.npz] [--json]\n"
    "       tightfit run --assembly FILE.json [the --task options]\n"
    "\n"
    "--scene runs a contact-free reference scene with a known answer, or a MuJoCo MJCF file\n"
    "(a NAME ending in .xml; timestep and integrator from the file unless given; what the\n"
    "engine cannot represent is listed once on stderr; docs/cli.md); --task runs one\n"
    "configuration of an assembly task and prints its row (tightfit list shows the tasks and\n"
    "their --set keys); --assembly runs a scene of your own parts from an assembly file\n"
    "(task assembly; docs/assemblies.md). A run may take at most 1e8 control steps per\n"
    "environment (--duration / --dt).\n"
    "--record FILE.npz also writes every environment's every control step (poses, velocities,\n"
    "contacts and forces, probe values, solver statistics, stage times; docs/record.md) into\n"
    "an NPZ file that numpy.load reads. The row stays the same; the environments then run one\n"
    "after another. The file appears only when complete; Ctrl-C leaves none and exits 130.\n"
    "Exit status: 0 the run happened, 1 it failed, 2 bad usage or input.\n";

static const char validate_help[] =
    "usage: tightfit validate [--gate NAME] [--solver pgs|newton|al|admm|fbnewton] [--json]\n"
    "       tightfit validate --tasks [--gate NAME] [--persist-tol M] [--json]\n"
    "\n"
    "Runs the contact physics gates (or with --tasks the assembly tasks' gates) and compares\n"
    "each metric with its limit. Exit status 1 when a gate fails.\n";

static const char video_help[] =
    "usage: tightfit video --task T [run options] [--camera "
    "wide|closeup|grid|px,py,pz,tx,ty,tz,fovy]\n"
    "                      [--fps 30] [--size 640x480] [--threads N] [--thumbnail FILE.png]\n"
    "                      --out FILE.mp4 [--json]\n"
    "\n"
    "Renders one run's rollout headless into an H.264 MP4 (run options: tightfit run --help).\n"
    "The file (and the thumbnail) appear only when the video is complete; Ctrl-C removes the\n"
    "partial file and exits 130.\n";

static const char asset_help[] =
    "usage: tightfit asset list [--json]\n"
    "       tightfit asset export PART [--set key=value ...] --out FILE.obj|FILE.stl [--json]\n"
    "\n"
    "list shows every part with its parameters; export writes a part's watertight mesh.\n";

static const char export_help[] =
    "usage: tightfit export --task T [--mode rig|robot] [--controller C] [--set key=value ...]\n"
    "                       [--solver S] [--dt H] [--substeps N] --format mjcf --out DIR\n"
    "                       [--meshes obj|stl]\n"
    "\n"
    "Writes environment 0 of the run (as run --task builds it) as a MuJoCo MJCF model:\n"
    "DIR/model.xml (bodies with explicit inertials, joints, geoms, welds, excludes,\n"
    "actuators, option, and the initial state as keyframe 'initial') and DIR/meshes/ (the\n"
    "parts' meshes; OBJ by default, exact). Numbers round-trip (%.17g). A geom with nothing\n"
    "to write (an analytic SDF without a mesh) is named once on stderr. Exit status: 0\n"
    "written, 1 the task could not be built or a file written, 2 bad usage or input.\n";

static const char sweep_help[] =
    "usage: tightfit sweep CONFIG.json --out DIR [--jobs N] [--resume] [--force]\n"
    "                      [--shard K/N] [--progress human|json] [--rank-timeout S]\n"
    "       mpirun -np N tightfit sweep CONFIG.json --out DIR [...]\n"
    "\n"
    "Runs every combination of a JSON grid and writes one row per run to DIR/results.csv\n"
    "and DIR/results.jsonl, then DIR/report.html. CONFIG.json:\n"
    "  {\"task\": \"gears\" or [\"peg\", \"gears\"], \"mode\": \"rig\", \"duration\": 1.0,\n"
    "   \"envs\": 4, \"seeds\": [1, 2] or 3,\n"
    "   \"grid\": {\"solver\": [\"al\", \"pgs\"], \"dt\": [0.001, 0.01], \"substeps\": [1, 4],\n"
    "            \"iterations\": [50], \"<task parameter>\": [...]},\n"
    "   \"set\": {\"<task parameter>\": value}, \"video\": {...},\n"
    "   \"record\": {\"runs\": [0, 3] or \"all\"}}   (runs by number: DIR/record/<run_id>.npz)\n"
    "\n"
    "  --jobs N   runs at once (default: one per core)\n"
    "  --resume   continue the sweep in DIR: skip the runs results.jsonl already has\n"
    "  --force    start over in DIR: delete its results files first\n"
    "  --shard K/N  run only the K-th of N fixed parts (by run id) into DIR/shards/K, for a\n"
    "             job array; `tightfit merge DIR` joins the finished parts\n"
    "  --progress json  one JSON progress object per line on stdout, for schedulers\n"
    "  --rank-timeout S  under mpirun: a rank silent this long (default 30 s) is taken as\n"
    "             dead and its runs are run again elsewhere (mpirun --enable-recovery)\n"
    "Under mpirun, rank 0 writes DIR and the other ranks run what it hands them, --jobs\n"
    "threads each: the same files and rows as one machine (docs/cluster.md).\n"
    "One sweep at a time may use DIR (a second one is refused while the first runs).\n";

static const char report_help[] =
    "usage: tightfit report DIR [--json]\n"
    "\n"
    "Writes DIR/report.html (table, plots, videos) from a sweep's results.jsonl and prints its\n"
    "path (--json: the path, run counts, plots drawn and skipped lines).\n";

static const char merge_help[] =
    "usage: tightfit merge DIR\n"
    "\n"
    "Joins the shards of a sweep run as N parts (tightfit sweep CONFIG --out DIR --shard K/N,\n"
    "in DIR/shards/1 .. DIR/shards/N) into DIR: results.jsonl (the shards' rows as written,\n"
    "in the config's run order), results.csv, config.json, machine.json (every shard's, and\n"
    "their hosts), record/, the config's videos and report.html, as one sweep would write\n"
    "them, timings aside. Merging again gives the same files.\n"
    "Nothing is written unless every shard of the split is there and finished, all of one\n"
    "split and one config (byte for byte, and the config DIR already holds); each problem\n"
    "is one line naming the shard and the command that fixes it.\n"
    "Exit status: 0 merged, 1 a file could not be written, 2 a check failed or bad usage.\n";

static const char list_help[] =
    "usage: tightfit list [--json]\n"
    "\n"
    "Tasks and their parameters, task gates, scenes, gates, solvers, integrators, joints and\n"
    "actuators.\n";

int tf_cli_help(const char* command, FILE* f) {
  static const struct {
    const char* name;
    const char* text;
  } help[] = {{"run", run_help},     {"validate", validate_help}, {"video", video_help},
              {"asset", asset_help}, {"sweep", sweep_help},       {"report", report_help},
              {"list", list_help},   {"export", export_help},     {"merge", merge_help}};
  for (size_t i = 0; i < sizeof(help) / sizeof(help[0]); i++) {
    if (strcmp(command, help[i].name) == 0) {
      fputs(help[i].text, f);
      return 0;
    }
  }
  return -1;
}

int tf_cli_wants_help(int argc, char** argv) {
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return 1;
  }
  return 0;
}
