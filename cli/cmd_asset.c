// `tightfit asset`: the parametric parts. `list` shows each part's parameters with defaults,
// ranges and units; `export PART [--set key=value ...] --out FILE.obj|FILE.stl` writes its
// watertight mesh (atomically: a failed export leaves no file).
#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "mesh_io.h"
#include "parts.h"
#include "json_exact.h"

enum { MAX_SETS = 64 };

static int list_parts(int json) {
  if (!json) {
    for (int i = 0; i < tf_part_count(); i++) {
      const tf_part_info* p = tf_part_at(i);
      printf("%s: %s\n", p->name, p->description);
      for (int k = 0; k < p->nparam; k++) {
        const tf_param_spec* s = &p->params[k];
        if (s->choices) {
          printf("  %-16s %-22s %s\n", s->key, s->choices, s->help);
        } else {
          printf("  %-16s %-10g [%g, %g] %-4s %s\n", s->key, s->value, s->lo, s->hi, s->unit,
                 s->help);
        }
      }
    }
    return TF_EXIT_OK;
  }
  cJSON* root = cJSON_CreateArray();
  for (int i = 0; i < tf_part_count(); i++) {
    const tf_part_info* p = tf_part_at(i);
    cJSON* o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", p->name);
    cJSON_AddStringToObject(o, "description", p->description);
    cJSON* params = cJSON_AddArrayToObject(o, "params");
    for (int k = 0; k < p->nparam; k++) {
      const tf_param_spec* s = &p->params[k];
      cJSON* q = cJSON_CreateObject();
      cJSON_AddStringToObject(q, "key", s->key);
      cJSON_AddNumberToObject(q, "default", s->value);
      if (s->choices) {
        cJSON_AddStringToObject(q, "choices", s->choices);
      } else {
        cJSON_AddNumberToObject(q, "min", s->lo);
        cJSON_AddNumberToObject(q, "max", s->hi);
        cJSON_AddStringToObject(q, "unit", s->unit);
      }
      cJSON_AddStringToObject(q, "help", s->help);
      cJSON_AddItemToArray(params, q);
    }
    cJSON_AddItemToArray(root, o);
  }
  tf_json_puts(stdout, root);
  cJSON_Delete(root);
  return TF_EXIT_OK;
}

// 1 if path ends with ext, ignoring case
static int has_extension(const char* path, const char* ext) {
  size_t n = strlen(path), e = strlen(ext);
  return n > e && strcasecmp(path + n - e, ext) == 0;
}

// the --json line, built by cJSON so that any path (quotes, backslashes, control bytes) is a
// valid JSON string, its numbers exact (tf_json_puts; a non-finite error is null)
static int print_export_json(const char* part, const char* out, const tf_part_geometry* g) {
  cJSON* o = cJSON_CreateObject();
  if (!o) return -1;
  cJSON_AddStringToObject(o, "part", part);
  cJSON_AddStringToObject(o, "out", out);
  cJSON_AddNumberToObject(o, "vertices", g->nvert);
  cJSON_AddNumberToObject(o, "triangles", g->nface);
  cJSON_AddNumberToObject(o, "chord_error_m", g->chord_error);
  cJSON_AddNumberToObject(o, "sdf_error_bound_m", g->error_bound);
  int rc = tf_json_puts(stdout, o);
  cJSON_Delete(o);
  return rc;
}

static int export_part(int argc, char** argv) {
  const char* part = NULL;
  const char* out = NULL;
  int json = 0, nset = 0;
  tf_kv sets[MAX_SETS];
  char* owned[MAX_SETS];
  int status = TF_EXIT_USAGE;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0) {
      json = 1;
    } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
      out = argv[++i];
    } else if (strcmp(argv[i], "--set") == 0 && i + 1 < argc) {
      const char* kv = argv[++i];
      const char* eq = strchr(kv, '=');
      if (!eq || eq == kv || nset >= MAX_SETS) {
        fprintf(stderr, "tightfit asset export: --set needs key=value, got '%s'\n", kv);
        goto done;
      }
      char* copy = strdup(kv);
      if (!copy) goto done;
      copy[eq - kv] = 0;
      owned[nset] = copy;
      sets[nset].key = copy;
      sets[nset].value = copy + (eq - kv) + 1;
      nset++;
    } else if (argv[i][0] != '-' && !part) {
      part = argv[i];
    } else {
      fprintf(stderr,
              "tightfit asset export: unknown option or missing value '%s' (see tightfit asset "
              "--help)\n",
              argv[i]);
      goto done;
    }
  }
  if (!part || !out) {
    fprintf(stderr,
            "tightfit asset export: needs PART and --out FILE.obj|FILE.stl (see tightfit asset "
            "--help)\n");
    goto done;
  }
  int stl = has_extension(out, ".stl");
  if (!stl && !has_extension(out, ".obj")) {
    fprintf(stderr, "tightfit asset export: --out must end in .obj or .stl, got '%s'\n", out);
    goto done;
  }
  char err[512];
  tf_part_geometry g;
  if (tf_part_build(part, sets, nset, &g, err, sizeof(err))) {
    fprintf(stderr, "tightfit asset export: %s\n", err);
    goto done;
  }
  tf_mesh mesh = {g.vert, g.nvert, g.face, g.nface};
  int written = stl ? tf_mesh_write_stl(out, &mesh, err, sizeof(err))
                    : tf_mesh_write_obj(out, &mesh, err, sizeof(err));
  if (written) {
    fprintf(stderr, "tightfit asset export: %s\n", err);
  } else {
    status = TF_EXIT_OK;
    if (json) {
      if (print_export_json(part, out, &g)) {
        fprintf(stderr, "tightfit asset export: out of memory\n");
        status = TF_EXIT_FAIL;
      }
    } else {
      printf("%s: %d vertices, %d triangles, chord error %.3g m -> %s\n", part, g.nvert, g.nface,
             g.chord_error, out);
    }
  }
  tf_part_geometry_free(&g);
done:
  for (int i = 0; i < nset; i++) free(owned[i]);
  return status;
}

int tf_cmd_asset(int argc, char** argv) {
  if (argc >= 1 && strcmp(argv[0], "list") == 0) {
    int json = argc >= 2 && strcmp(argv[1], "--json") == 0;
    if (argc > 2 || (argc == 2 && !json)) {
      fprintf(stderr, "tightfit asset list: unknown option '%s' (see tightfit asset --help)\n",
              argv[argc - 1]);
      return TF_EXIT_USAGE;
    }
    return list_parts(json);
  }
  if (argc >= 1 && strcmp(argv[0], "export") == 0) return export_part(argc - 1, argv + 1);
  fprintf(stderr,
          "tightfit asset: expected 'list' or 'export', got '%s' (see tightfit asset --help)\n",
          argc ? argv[0] : "");
  return TF_EXIT_USAGE;
}
