// `tightfit export --task T [run options] --format mjcf --out DIR`: a task's scene (environment
// 0 of the run, as `run --task` builds it, at its initial state) written as a MuJoCo model,
// DIR/model.xml plus DIR/meshes/ (assets/mjcf_write.c), so that it opens in MuJoCo.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "file_io.h"
#include "mjcf.h"
#include "task.h"

static int usage_error(const char* what, const char* arg) {
  fprintf(stderr, "tightfit export: ");
  fprintf(stderr, what, arg);
  fprintf(stderr, " (see tightfit export --help)\n");
  return TF_EXIT_USAGE;
}

int tf_cmd_export(int argc, char** argv) {
  // --format, --out and --meshes are export's own; the rest are the run options
  const char* format = NULL;
  const char* out = NULL;
  const char* meshes = "obj";
  char** rest = malloc(sizeof(char*) * (size_t)(argc + 1));
  if (!rest) return TF_EXIT_FAIL;
  int nrest = 0;
  for (int i = 0; i < argc; i++) {
    const char** own = strcmp(argv[i], "--format") == 0   ? &format
                       : strcmp(argv[i], "--out") == 0    ? &out
                       : strcmp(argv[i], "--meshes") == 0 ? &meshes
                                                          : NULL;
    if (!own) {
      rest[nrest++] = argv[i];
    } else if (i + 1 >= argc) {
      free(rest);
      return usage_error("%s needs a value", argv[i]);
    } else {
      *own = argv[++i];
    }
  }
  tf_run_options o;
  int json;
  int parsed = tf_cli_parse_run_options("export", nrest, rest, &o, &json);
  free(rest);
  if (parsed) return TF_EXIT_USAGE;
  // the run's row is never printed here, so --json would promise output that never comes
  if (json) return usage_error("%s", "--json is not an export option");
  if (!format) return usage_error("%s", "--format is required (valid: mjcf)");
  if (strcmp(format, "mjcf") != 0) return usage_error("unknown format '%s' (valid: mjcf)", format);
  if (!out || !out[0]) return usage_error("%s", "--out DIR is required");
  if (strcmp(meshes, "obj") != 0 && strcmp(meshes, "stl") != 0) {
    return usage_error("--meshes must be obj or stl, got '%s'", meshes);
  }
  // the options are checked before the folder is made, so a typo leaves nothing behind
  char err[1024];
  const tf_task_info* task;
  double values[TF_TASK_MAX_PARAMS], duration;
  tf_physics physics;
  if (tf_run_resolve(&o, &task, values, &physics, &duration, err, sizeof(err))) {
    fprintf(stderr, "tightfit export: %s\n", err);
    return TF_EXIT_USAGE;
  }
  if (tf_mkdir_p(out, err, sizeof(err)) || access(out, W_OK) != 0) {
    if (access(out, W_OK) != 0) snprintf(err, sizeof(err), "%s: not a writable folder", out);
    fprintf(stderr, "tightfit export: %s\n", err);
    return TF_EXIT_USAGE;
  }
  o.envs = 1;
  tf_env_run* run = tf_env_run_begin(&o, 0, err, sizeof(err));
  if (!run) {
    fprintf(stderr, "tightfit export: %s\n", err);
    return TF_EXIT_FAIL;
  }
  const tf_env* env = tf_env_run_env(run);
  const tf_model* m = env->model;
  tf_mjcf_write_options wo = tf_mjcf_write_options_default();
  wo.model = o.task;
  wo.stl = strcmp(meshes, "stl") == 0;
  wo.qpos = env->data->qpos;
  wo.qvel = env->data->qvel;
  char skipped[1024];
  int rc = tf_mjcf_write(m, out, &wo, skipped, sizeof(skipped), err, sizeof(err));
  if (rc) {
    fprintf(stderr, "tightfit export: %s\n", err);
  } else {
    if (skipped[0]) fprintf(stderr, "tightfit export: not exportable, left out: %s\n", skipped);
    int ngeom = 0;
    for (int g = 0; g < m->ngeom; g++) ngeom += tf_mjcf_geom_exportable(m, g);
    printf("%s/model.xml: %d bodies, %d joints, %d geoms, %d actuators\n", out, m->nbody - 1,
           m->njnt, ngeom, m->nu);
  }
  tf_env_run_end(run);
  return rc ? TF_EXIT_FAIL : TF_EXIT_OK;
}
