// An assembly file into an asm_file (assembly.h; the format: docs/assemblies.md). Every check
// names its JSON path and goes on past a problem, so that one pass lists every problem:
// "peg.json: parts.peg.density: must be a number in [1, 1e+05] (got -3)". Mesh files are read
// and checked to bound a solid (mesh_validate.h) and library parts' parameters go through
// their own schemas here, so that nothing fails once a run has started.
#include <cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "assembly.h"
#include "file_io.h"
#include "mesh_io.h"
#include "mesh_validate.h"
#include "tf_math.h"
#include "urdf.h"

#define DEG (M_PI / 180)

typedef struct asm_errors {
  char* out;
  size_t cap, at;
  int n, more;
  const char* file;
} asm_errors;

// one problem "path: msg" appended when it fits whole (keeping room for the count of those that
// do not); the file is named once, at the start
__attribute__((format(printf, 3, 4))) static int fail(asm_errors* e, const char* path,
                                                      const char* fmt, ...) {
  char msg[768], line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  int len =
      snprintf(line, sizeof(line), "%s%s%s%s", e->at ? "; " : "", path, path[0] ? ": " : "", msg);
  size_t room = strlen(e->file) + 2 + 24 + 48;  // the head and the tail finish_errors adds
  if (e->n >= ASM_MAX_ERRORS || len < 0 || e->at + (size_t)len + room + 1 > e->cap) {
    e->more++;
    e->n++;
    return -1;
  }
  memcpy(e->out + e->at, line, (size_t)len + 1);
  e->at += (size_t)len;
  e->n++;
  return -1;
}

// path + "." + key into out
// (cut to fit: paths are for messages)
static const char* join(char* out, size_t n, const char* path, const char* key) {
  size_t at = 0;
  for (const char* c = path; *c && at + 1 < n; c++) out[at++] = *c;
  if (path[0] && at + 1 < n) out[at++] = '.';
  for (const char* c = key; *c && at + 1 < n; c++) out[at++] = *c;
  if (n) out[at] = 0;
  return out;
}

// unknown keys (with the valid ones listed) and repeated keys of object o at path; extra: more
// valid keys (a library part's parameters), may be NULL
static void check_keys(const cJSON* o, const char* path, const char* const* valid, int nvalid,
                       const tf_part_info* extra, asm_errors* e) {
  for (const cJSON* a = o->child; a; a = a->next) {
    char p[256];
    join(p, sizeof(p), path, a->string);
    for (const cJSON* b = o->child; b != a; b = b->next) {
      if (strcmp(a->string, b->string) == 0) {
        fail(e, p, "key given twice");
        break;
      }
    }
    int known = 0;
    for (int i = 0; i < nvalid && !known; i++) known = strcmp(a->string, valid[i]) == 0;
    for (int i = 0; extra && i < extra->nparam && !known; i++)
      known = strcmp(a->string, extra->params[i].key) == 0;
    if (known) continue;
    char list[1024];
    size_t at = 0;
    list[0] = 0;
    for (int i = 0; i < nvalid && at < sizeof(list); i++)
      at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%s", i ? ", " : "", valid[i]);
    for (int i = 0; extra && i < extra->nparam && at < sizeof(list); i++)
      at += (size_t)snprintf(list + at, sizeof(list) - at, ", %s", extra->params[i].key);
    fail(e, p, "unknown key (valid: %s)", list);
  }
}

// a number at o[key] in [lo, hi]: 1 and *out when present and good, 0 when absent, -1 bad
static int number(const cJSON* o, const char* key, const char* path, double lo, double hi,
                  double* out, asm_errors* e) {
  const cJSON* v = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!v) return 0;
  char p[256];
  join(p, sizeof(p), path, key);
  if (!cJSON_IsNumber(v)) return fail(e, p, "must be a number");
  double x = v->valuedouble;
  if (!isfinite(x)) return fail(e, p, "must be a finite number");
  if (x < lo || x > hi) return fail(e, p, "must be a number in [%g, %g] (got %g)", lo, hi, x);
  *out = x;
  return 1;
}

// three finite numbers at o[key]; nonzero: the vector must not be zero (an axis)
static int vec3(const cJSON* o, const char* key, const char* path, int nonzero, double out[3],
                asm_errors* e) {
  const cJSON* v = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!v) return 0;
  char p[256];
  join(p, sizeof(p), path, key);
  if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3) return fail(e, p, "must be [x, y, z]");
  double x[3];
  for (int i = 0; i < 3; i++) {
    const cJSON* c = cJSON_GetArrayItem(v, i);
    if (!cJSON_IsNumber(c) || !isfinite(c->valuedouble)) {
      return fail(e, p, "entry %d must be a finite number", i);
    }
    x[i] = c->valuedouble;
  }
  if (nonzero && tf_vec3_norm(x) == 0) return fail(e, p, "must not be zero (an axis)");
  memcpy(out, x, sizeof(x));
  return 1;
}

// a string at o[key] among choices ("a|b|c"): its index, -2 when absent, -1 bad
static int choice(const cJSON* o, const char* key, const char* path, const char* choices,
                  asm_errors* e) {
  const cJSON* v = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!v) return -2;
  char p[256];
  join(p, sizeof(p), path, key);
  if (cJSON_IsString(v)) {
    const char* c = choices;
    for (int i = 0; c; i++) {
      size_t len = strcspn(c, "|");
      if (strlen(v->valuestring) == len && strncmp(c, v->valuestring, len) == 0) return i;
      c = c[len] ? c + len + 1 : NULL;
    }
  }
  fail(e, p, "must be one of %s", choices);
  return -1;
}

// the index of part `name` (a string at o[key]); -2 absent, -1 bad
static int part_ref(const asm_file* f, const cJSON* o, const char* key, const char* path,
                    asm_errors* e) {
  const cJSON* v = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!v) return -2;
  char p[256];
  join(p, sizeof(p), path, key);
  if (!cJSON_IsString(v)) {
    fail(e, p, "must be a part's name");
    return -1;
  }
  for (int i = 0; i < f->npart; i++) {
    if (strcmp(f->part[i].name, v->valuestring) == 0) return i;
  }
  char list[512];
  size_t at = 0;
  list[0] = 0;
  for (int i = 0; i < f->npart && at < sizeof(list); i++)
    at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%s", i ? ", " : "", f->part[i].name);
  fail(e, p, "unknown part '%s' (parts: %s)", v->valuestring, list);
  return -1;
}

static double unit_of(const char* name) {
  if (strcmp(name, "m") == 0) return 1;
  if (strcmp(name, "mm") == 0) return 1e-3;
  if (strcmp(name, "um") == 0) return 1e-6;
  if (strcmp(name, "cm") == 0) return 1e-2;
  if (strcmp(name, "in") == 0) return 0.0254;
  return 0;
}

static int units(const cJSON* o, const char* key, const char* path, double* out, asm_errors* e) {
  int c = choice(o, key, path, "m|mm|um|cm|in", e);
  static const char* const names[] = {"m", "mm", "um", "cm", "in"};
  if (c >= 0) *out = unit_of(names[c]);
  return c;
}

// rotations about the world x, then y, then z axes (degrees)
static void quat_rpy(double q[4], const double rpy_deg[3]) {
  static const double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0}, ez[3] = {0, 0, 1};
  double qx[4], qy[4], qz[4], t[4];
  tf_quat_from_axis_angle(qx, ex, rpy_deg[0] * DEG);
  tf_quat_from_axis_angle(qy, ey, rpy_deg[1] * DEG);
  tf_quat_from_axis_angle(qz, ez, rpy_deg[2] * DEG);
  tf_quat_mul(t, qy, qx);
  tf_quat_mul(q, qz, t);
}

// the folder of path ("" for none) joined with rel, unless rel is absolute
static void resolve(char* out, size_t n, const char* file, const char* rel) {
  const char* slash = strrchr(file, '/');
  size_t at = 0;
  if (rel[0] != '/' && slash) {
    for (const char* c = file; c <= slash && at + 1 < n; c++) out[at++] = *c;
  }
  for (const char* c = rel; *c && at + 1 < n; c++) out[at++] = *c;
  if (n) out[at] = 0;
}

static const char* const part_keys[] = {
    "mesh",  "part", "units",  "scale", "offset",  "pos",      "rpy_deg", "quat",
    "mount", "axis", "anchor", "mass",  "density", "friction", "chord",   "grid_nodes",
};
#define NPART_KEYS ((int)(sizeof(part_keys) / sizeof(part_keys[0])))

// a mesh file: read, checked to bound a solid
static void check_mesh(const char* file, const char* path, asm_errors* e) {
  tf_mesh mesh;
  char why[512];
  if (tf_mesh_read(&mesh, file, why, sizeof(why))) {
    fail(e, path, "%s", why);
    return;
  }
  if (tf_mesh_validate(NULL, mesh.vert, mesh.nvert, mesh.face, mesh.nface, file, why,
                       sizeof(why))) {
    fail(e, path, "not a closed solid: %s", why);
  }
  tf_mesh_free(&mesh);
}

static void parse_part(asm_file* f, asm_part* q, const cJSON* o, const char* path, int check_files,
                       asm_errors* e) {
  char p[256];
  if (!cJSON_IsObject(o)) {
    fail(e, path, "must be an object {\"mesh\": FILE} or {\"part\": NAME, ...}");
    return;
  }
  const cJSON* mesh = cJSON_GetObjectItemCaseSensitive(o, "mesh");
  const cJSON* lib = cJSON_GetObjectItemCaseSensitive(o, "part");
  const tf_part_info* info = NULL;
  if (!!mesh == !!lib) {
    fail(e, path,
         "needs exactly one of \"mesh\" (an OBJ or STL file) and \"part\" (a library "
         "part: tightfit asset list)");
  } else if (mesh && !cJSON_IsString(mesh)) {
    fail(e, join(p, sizeof(p), path, "mesh"), "must be a file name (.obj or .stl)");
  } else if (lib && !cJSON_IsString(lib)) {
    fail(e, join(p, sizeof(p), path, "part"), "must be a library part's name");
  } else if (lib) {
    info = tf_part_find(lib->valuestring);
    if (!info) {
      char list[512];
      size_t at = 0;
      for (int i = 0; i < tf_part_count() && at < sizeof(list); i++)
        at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%s", i ? ", " : "",
                               tf_part_at(i)->name);
      fail(e, join(p, sizeof(p), path, "part"), "unknown library part '%s' (valid: %s)",
           lib->valuestring, list);
    } else {
      q->library = 1;
      snprintf(q->part, sizeof(q->part), "%s", info->name);
    }
  } else {
    resolve(q->mesh, sizeof(q->mesh), f->path, mesh->valuestring);
    size_t len = strlen(q->mesh);
    int ext = len > 4 && (strcasecmp(q->mesh + len - 4, ".obj") == 0 ||
                          strcasecmp(q->mesh + len - 4, ".stl") == 0);
    if (!ext) {
      fail(e, join(p, sizeof(p), path, "mesh"), "must name an .obj or .stl file (got '%s')",
           mesh->valuestring);
    } else if (check_files) {
      check_mesh(q->mesh, join(p, sizeof(p), path, "mesh"), e);
    }
  }
  check_keys(o, path, part_keys, NPART_KEYS, info, e);
  // a library part's parameters: the keys that are not the part's own
  if (info) {
    for (const cJSON* a = o->child; a; a = a->next) {
      int common = 0;
      for (int i = 0; i < NPART_KEYS && !common; i++) common = strcmp(a->string, part_keys[i]) == 0;
      if (common) continue;
      int param = 0;
      for (int i = 0; i < info->nparam && !param; i++)
        param = !strcmp(a->string, info->params[i].key);
      if (!param) continue;  // check_keys named it
      join(p, sizeof(p), path, a->string);
      if (q->nkv >= ASM_MAX_KV) {
        fail(e, p, "too many parameters");
        continue;
      }
      char text[ASM_VALUE_LEN];
      if (cJSON_IsNumber(a) && isfinite(a->valuedouble)) {
        snprintf(text, sizeof(text), "%.17g", a->valuedouble);
      } else if (cJSON_IsString(a) && strlen(a->valuestring) < sizeof(text)) {
        snprintf(text, sizeof(text), "%s", a->valuestring);
      } else if (cJSON_IsArray(a)) {
        // a list parameter: numbers joined by commas
        size_t at = 0;
        int bad = 0;
        text[0] = 0;
        for (const cJSON* c = a->child; c && !bad; c = c->next) {
          bad = !cJSON_IsNumber(c) || !isfinite(c->valuedouble);
          if (!bad)
            at += (size_t)snprintf(text + at, sizeof(text) - at, "%s%.17g", at ? "," : "",
                                   c->valuedouble);
          bad |= at >= sizeof(text);
        }
        if (bad) {
          fail(e, p, "must be a list of finite numbers");
          continue;
        }
      } else {
        fail(e, p, "must be a finite number, a name or a list of numbers");
        continue;
      }
      snprintf(q->key[q->nkv], ASM_NAME_LEN, "%s", a->string);
      snprintf(q->value[q->nkv], ASM_VALUE_LEN, "%s", text);
      tf_kv kv = {q->key[q->nkv], q->value[q->nkv]};
      double values[128];
      char why[512];
      if (info->nparam <= 128 && tf_part_parse(info, &kv, 1, values, why, sizeof(why))) {
        fail(e, p, "%s", why);
        continue;
      }
      q->nkv++;
    }
  }
  q->mesh_unit = f->unit;
  units(o, "units", path, &q->mesh_unit, e);
  if (lib && cJSON_GetObjectItemCaseSensitive(o, "units")) {
    fail(e, join(p, sizeof(p), path, "units"), "a library part is in its own units (mm keys)");
  }
  q->scale = 1;
  number(o, "scale", path, 1e-6, 1e6, &q->scale, e);
  double v[3];
  if (vec3(o, "offset", path, 0, v, e) > 0) tf_vec3_scale(q->offset, v, f->unit);
  if (lib && (cJSON_GetObjectItemCaseSensitive(o, "scale") ||
              cJSON_GetObjectItemCaseSensitive(o, "offset"))) {
    fail(e, path, "scale and offset are for mesh parts (a library part takes its parameters)");
  }
  if (vec3(o, "pos", path, 0, v, e) > 0) tf_vec3_scale(q->pos, v, f->unit);
  tf_quat_identity(q->quat);
  const cJSON* rpy = cJSON_GetObjectItemCaseSensitive(o, "rpy_deg");
  const cJSON* quat = cJSON_GetObjectItemCaseSensitive(o, "quat");
  if (rpy && quat) fail(e, path, "give one of rpy_deg and quat");
  if (vec3(o, "rpy_deg", path, 0, v, e) > 0) quat_rpy(q->quat, v);
  if (quat) {
    join(p, sizeof(p), path, "quat");
    int ok = cJSON_IsArray(quat) && cJSON_GetArraySize(quat) == 4;
    double w[4] = {0, 0, 0, 0};
    for (int i = 0; ok && i < 4; i++) {
      const cJSON* c = cJSON_GetArrayItem(quat, i);
      ok = cJSON_IsNumber(c) && isfinite(c->valuedouble);
      if (ok) w[i] = c->valuedouble;
    }
    if (!ok || tf_quat_normalize(w) == 0) {
      fail(e, p, "must be [w, x, y, z], finite and not zero");
    } else {
      memcpy(q->quat, w, sizeof(w));
    }
  }
  int m = choice(o, "mount", path, "fixed|free|hinge|slide", e);
  q->mount = m >= 0 ? (asm_mount)m : ASM_FIXED;
  int has_axis = vec3(o, "axis", path, 1, q->axis, e);
  if (has_axis > 0) tf_vec3_normalize(q->axis);
  if ((q->mount == ASM_HINGE || q->mount == ASM_SLIDE) && has_axis == 0) {
    fail(e, join(p, sizeof(p), path, "axis"), "missing: a %s mount needs its axis [x, y, z]",
         q->mount == ASM_HINGE ? "hinge" : "slide");
  }
  if (has_axis > 0 && q->mount != ASM_HINGE && q->mount != ASM_SLIDE) {
    fail(e, join(p, sizeof(p), path, "axis"), "only a hinge or slide mount has an axis");
  }
  memcpy(q->anchor, q->pos, sizeof(q->anchor));
  if (vec3(o, "anchor", path, 0, v, e) > 0) {
    tf_vec3_scale(q->anchor, v, f->unit);
    if (q->mount != ASM_HINGE) fail(e, join(p, sizeof(p), path, "anchor"), "only a hinge has one");
  }
  q->mass = 0;
  q->density = 7800;
  int has_mass = number(o, "mass", path, 1e-9, 1e6, &q->mass, e);
  int has_density = number(o, "density", path, 1, 1e5, &q->density, e);
  if (has_mass > 0 && has_density > 0) fail(e, path, "give one of mass and density");
  q->mu = NAN;
  number(o, "friction", path, 0, 10, &q->mu, e);
  q->chord = 0;
  double chord;
  if (number(o, "chord", path, 0, 1e9, &chord, e) > 0) q->chord = chord * f->unit;
  double nodes = 0;
  if (number(o, "grid_nodes", path, 16, 512, &nodes, e) > 0) {
    if (lib) {
      fail(e, join(p, sizeof(p), path, "grid_nodes"), "a library part's SDF is analytic (no grid)");
    } else if (nodes != floor(nodes)) {
      fail(e, join(p, sizeof(p), path, "grid_nodes"), "must be a whole number (got %g)", nodes);
    }
    q->grid_nodes = (int)nodes;
  }
}

static void parse_parts(asm_file* f, const cJSON* parts, int check_files, asm_errors* e) {
  if (!parts) {
    fail(e, "parts", "missing: {\"NAME\": {\"mesh\": FILE} or {\"part\": NAME, ...}, ...}");
    return;
  }
  if (!cJSON_IsObject(parts) || !parts->child) {
    fail(e, "parts", "must be an object of parts by name, at least one");
    return;
  }
  for (const cJSON* a = parts->child; a; a = a->next) {
    char path[256];
    join(path, sizeof(path), "parts", a->string);
    if (f->npart >= ASM_MAX_PARTS) {
      fail(e, path, "more than %d parts", ASM_MAX_PARTS);
      break;
    }
    if (!a->string[0] || strlen(a->string) >= ASM_NAME_LEN || strchr(a->string, '.')) {
      fail(e, path, "a part's name must be 1 to %d characters, no '.'", ASM_NAME_LEN - 1);
      continue;
    }
    int twice = 0;
    for (int i = 0; i < f->npart && !twice; i++) twice = !strcmp(f->part[i].name, a->string);
    if (twice) {
      fail(e, path, "a second part of that name");
      continue;
    }
    asm_part* q = &f->part[f->npart++];
    snprintf(q->name, sizeof(q->name), "%s", a->string);
    parse_part(f, q, a, path, check_files, e);
  }
}

static void parse_drive(asm_file* f, const cJSON* o, asm_errors* e) {
  f->drive.type = ASM_DRIVE_GRAVITY;
  f->drive.part = -1;
  f->drive.kv = 1;
  f->drive.limit = 0;
  f->drive.ramp = 0.1;
  if (!o) return;
  if (!cJSON_IsObject(o)) {
    fail(e, "drive", "must be an object {\"type\": ...}");
    return;
  }
  static const char* const keys[] = {"type",   "part", "speed", "force",
                                     "torque", "kv",   "limit", "ramp_s"};
  check_keys(o, "drive", keys, (int)(sizeof(keys) / sizeof(keys[0])), NULL, e);
  int t = choice(o, "type", "drive", "gravity|velocity|torque|push", e);
  if (t == -2) fail(e, "drive.type", "missing (gravity, velocity, torque or push)");
  if (t < 0) return;
  f->drive.type = (asm_drive_type)t;
  int p = part_ref(f, o, "part", "drive", e);
  if (t != ASM_DRIVE_GRAVITY && p == -2) fail(e, "drive.part", "missing: the driven part");
  if (t == ASM_DRIVE_GRAVITY && p != -2) fail(e, "drive.part", "gravity drives every part");
  if (p >= 0) f->drive.part = p;
  int has_speed = number(o, "speed", "drive", -1e3, 1e3, &f->drive.speed, e);
  int has_force = number(o, "force", "drive", -1e6, 1e6, &f->drive.force, e);
  int has_torque = number(o, "torque", "drive", -1e6, 1e6, &f->drive.torque, e);
  int has_kv = number(o, "kv", "drive", 1e-9, 1e9, &f->drive.kv, e);
  int has_limit = number(o, "limit", "drive", 0, 1e9, &f->drive.limit, e);
  int has_ramp = number(o, "ramp_s", "drive", 0, 100, &f->drive.ramp, e);
  const asm_part* q = p >= 0 ? &f->part[p] : NULL;
  switch (t) {
    case ASM_DRIVE_VELOCITY:
      if (has_speed == 0) fail(e, "drive.speed", "missing: the servo's target (rad/s or m/s)");
      if (has_force > 0 || has_torque > 0)
        fail(e, "drive",
             "a velocity servo takes speed, kv, "
             "limit, ramp_s");
      if (q && q->mount != ASM_HINGE && q->mount != ASM_SLIDE)
        fail(e, "drive.part", "a velocity servo drives a hinge or slide part");
      break;
    case ASM_DRIVE_TORQUE:
      if (has_torque == 0) fail(e, "drive.torque", "missing (N m on a hinge, N on a slide)");
      if (has_speed > 0 || has_force > 0 || has_kv > 0 || has_limit > 0)
        fail(e, "drive", "a torque drive takes torque and ramp_s");
      if (q && q->mount != ASM_HINGE && q->mount != ASM_SLIDE)
        fail(e, "drive.part", "a torque drive drives a hinge or slide part");
      break;
    case ASM_DRIVE_PUSH:
      if (has_speed == 0 && has_force == 0)
        fail(e, "drive", "a push needs speed (m/s at the start) or force (N), or both");
      if (has_torque > 0 || has_kv > 0 || has_limit > 0 || has_ramp > 0)
        fail(e, "drive", "a push takes speed and force");
      if (q && q->mount != ASM_FREE && q->mount != ASM_SLIDE)
        fail(e, "drive.part", "a push drives a free or slide part");
      break;
    default:
      if (has_speed > 0 || has_force > 0 || has_torque > 0 || has_kv > 0 || has_limit > 0 ||
          has_ramp > 0)
        fail(e, "drive", "gravity takes no other key");
  }
}

static void parse_insertion(asm_file* f, const cJSON* o, asm_errors* e) {
  f->insertion.part = -1;
  if (!o) return;
  if (!cJSON_IsObject(o)) {
    fail(e, "insertion", "must be an object {\"part\": ..., \"axis\": ..., \"seat\": ...}");
    return;
  }
  static const char* const keys[] = {"part",      "axis",      "seat",
                                     "part_axis", "tolerance", "upright_deg"};
  check_keys(o, "insertion", keys, (int)(sizeof(keys) / sizeof(keys[0])), NULL, e);
  int p = part_ref(f, o, "part", "insertion", e);
  if (p == -2) fail(e, "insertion.part", "missing: the part that goes in");
  if (p >= 0 && f->part[p].mount == ASM_FIXED)
    fail(e, "insertion.part", "part '%s' is fixed: the inserted part must move", f->part[p].name);
  double axis[3] = {0, 0, -1}, seat[3] = {0, 0, 0};
  if (vec3(o, "axis", "insertion", 1, axis, e) == 0)
    fail(e, "insertion.axis", "missing: the insertion direction [x, y, z] (world)");
  if (vec3(o, "seat", "insertion", 0, seat, e) == 0)
    fail(e, "insertion.seat", "missing: where the part's frame origin is when seated");
  tf_vec3_normalize(axis);
  memcpy(f->insertion.axis, axis, sizeof(axis));
  tf_vec3_scale(f->insertion.seat, seat, f->unit);
  memcpy(f->insertion.part_axis, axis, sizeof(axis));
  if (vec3(o, "part_axis", "insertion", 1, f->insertion.part_axis, e) > 0)
    tf_vec3_normalize(f->insertion.part_axis);
  double tol = 1e-3 / f->unit, upright = 1;
  number(o, "tolerance", "insertion", 0, 1e9, &tol, e);
  number(o, "upright_deg", "insertion", 0, 180, &upright, e);
  f->insertion.tolerance = tol * f->unit;
  f->insertion.upright = upright * DEG;
  if (p >= 0) f->insertion.part = p;
}

static void parse_probes(asm_file* f, const cJSON* o, asm_errors* e) {
  f->tunnel = f->insertion.part;
  f->slip_t0 = 0.2;
  f->ratio_window = 1;
  int given_overlap = 0;
  if (o && !cJSON_IsObject(o)) {
    fail(e, "probes", "must be an object {\"tunnel\", \"overlap\", \"gears\"}");
    o = NULL;
  }
  if (o) {
    static const char* const keys[] = {"tunnel", "overlap", "gears", "slip_t0", "ratio_window"};
    check_keys(o, "probes", keys, (int)(sizeof(keys) / sizeof(keys[0])), NULL, e);
    const cJSON* t = cJSON_GetObjectItemCaseSensitive(o, "tunnel");
    if (t && (cJSON_IsFalse(t) || cJSON_IsNull(t))) {
      f->tunnel = -1;
    } else if (t) {
      int p = part_ref(f, o, "tunnel", "probes", e);
      if (p >= 0 && f->part[p].mount == ASM_FIXED) fail(e, "probes.tunnel", "a fixed part");
      if (p >= 0 && f->insertion.part < 0)
        fail(e, "probes.tunnel", "needs \"insertion\" (its axis and seat)");
      if (p >= 0) f->tunnel = p;
    }
    number(o, "slip_t0", "probes", 0, 3600, &f->slip_t0, e);
    number(o, "ratio_window", "probes", 1e-6, 3600, &f->ratio_window, e);
    const cJSON* ov = cJSON_GetObjectItemCaseSensitive(o, "overlap");
    if (ov) {
      given_overlap = 1;
      if (!cJSON_IsArray(ov)) {
        fail(e, "probes.overlap", "must be a list of part pairs [[\"a\", \"b\"], ...]");
      } else if (cJSON_GetArraySize(ov) > TF_PROBE_MAX_OVERLAP) {
        fail(e, "probes.overlap", "at most %d pairs", TF_PROBE_MAX_OVERLAP);
      } else {
        int i = 0;
        for (const cJSON* pair = ov->child; pair; pair = pair->next, i++) {
          char p[64];
          snprintf(p, sizeof(p), "probes.overlap[%d]", i);
          if (!cJSON_IsArray(pair) || cJSON_GetArraySize(pair) != 2) {
            fail(e, p, "must be a pair of part names [\"a\", \"b\"]");
            continue;
          }
          int ab[2] = {-1, -1};
          for (int k = 0; k < 2; k++) {
            const cJSON* item = cJSON_GetArrayItem(pair, k);
            if (!cJSON_IsString(item)) {
              fail(e, p, "entry %d must be a part's name", k);
              continue;
            }
            for (int q = 0; q < f->npart && ab[k] < 0; q++)
              if (!strcmp(f->part[q].name, item->valuestring)) ab[k] = q;
            if (ab[k] < 0) fail(e, p, "unknown part '%s'", item->valuestring);
          }
          if (ab[0] >= 0 && ab[0] == ab[1]) fail(e, p, "a part with itself");
          if (ab[0] >= 0 && ab[1] >= 0 && ab[0] != ab[1]) {
            f->overlap[f->noverlap][0] = ab[0];
            f->overlap[f->noverlap][1] = ab[1];
            f->noverlap++;
          }
        }
      }
    }
    const cJSON* g = cJSON_GetObjectItemCaseSensitive(o, "gears");
    if (g) {
      if (!cJSON_IsArray(g) || cJSON_GetArraySize(g) < 2 || cJSON_GetArraySize(g) > ASM_MAX_GEARS) {
        fail(e, "probes.gears",
             "must be a list of 2 to %d gears, the input first: "
             "[{\"part\": NAME, \"teeth\": N}, ...]",
             ASM_MAX_GEARS);
      } else {
        int i = 0;
        for (const cJSON* gear = g->child; gear; gear = gear->next, i++) {
          char p[64];
          snprintf(p, sizeof(p), "probes.gears[%d]", i);
          if (!cJSON_IsObject(gear)) {
            fail(e, p, "must be {\"part\": NAME, \"teeth\": N}");
            continue;
          }
          static const char* const gkeys[] = {"part", "teeth", "sign"};
          check_keys(gear, p, gkeys, 3, NULL, e);
          int q = part_ref(f, gear, "part", p, e);
          if (q == -2) fail(e, p, "part: missing");
          if (q >= 0 && f->part[q].mount != ASM_HINGE && f->part[q].mount != ASM_FREE)
            fail(e, p, "part '%s' must turn: a hinge or free mount", f->part[q].name);
          double teeth = 0, sign = i % 2 ? -1 : 1;
          if (number(gear, "teeth", p, 3, 1000, &teeth, e) == 0) fail(e, p, "teeth: missing");
          if (teeth != floor(teeth)) fail(e, p, "teeth: must be a whole number");
          if (number(gear, "sign", p, -1, 1, &sign, e) > 0 && sign != 1 && sign != -1)
            fail(e, p, "sign: must be 1 or -1");
          f->gear_part[f->ngear] = q;
          f->gear_teeth[f->ngear] = (int)teeth;
          f->gear_sign[f->ngear] = sign < 0 ? -1 : 1;
          f->ngear++;
        }
        if (f->ngear > 0 && f->gear_sign[0] != 1)
          fail(e, "probes.gears[0].sign", "the input is +1");
      }
    }
  }
  if (!given_overlap) {
    // every pair with a moving part, while the probe has room
    for (int i = 0; i < f->npart; i++) {
      for (int j = i + 1; j < f->npart && f->noverlap < TF_PROBE_MAX_OVERLAP; j++) {
        if (f->part[i].mount == ASM_FIXED && f->part[j].mount == ASM_FIXED) continue;
        f->overlap[f->noverlap][0] = i;
        f->overlap[f->noverlap][1] = j;
        f->noverlap++;
      }
    }
  }
}

static void parse_success(asm_file* f, const cJSON* o, asm_errors* e) {
  f->rule = f->insertion.part >= 0 ? ASM_RULE_SEATED : f->ngear ? ASM_RULE_GEARS : ASM_RULE_NONE;
  f->overlap_max = 50e-6;
  f->slip_max = 0.05;
  if (!o) return;
  if (!cJSON_IsObject(o)) {
    fail(e, "success", "must be an object {\"rule\": \"seated\"|\"gears\"|\"none\", ...}");
    return;
  }
  static const char* const keys[] = {"rule", "overlap_max", "slip_max"};
  check_keys(o, "success", keys, 3, NULL, e);
  int r = choice(o, "rule", "success", "seated|gears|none", e);
  if (r >= 0) f->rule = (asm_rule)r;
  if (r == ASM_RULE_SEATED && f->insertion.part < 0)
    fail(e, "success.rule", "seated needs \"insertion\" (the part, its axis and seat)");
  if (r == ASM_RULE_GEARS && f->ngear < 2)
    fail(e, "success.rule", "gears needs \"probes\": {\"gears\": [...]}");
  double om;
  if (number(o, "overlap_max", "success", 0, 1e9, &om, e) > 0) f->overlap_max = om * f->unit;
  number(o, "slip_max", "success", 0, 10, &f->slip_max, e);
}

// "robot": {"urdf": FILE, "tcp": LINK, "gripper": {"opening_mm", "force_n"}} and "grasp":
// {"pos": [x, y, z], "width_mm": w}: robot mode's (assembly_robot.c); the rig ignores them
static void parse_robot(asm_file* f, const cJSON* o, const cJSON* g, int check_files,
                        asm_errors* e) {
  f->robot.opening = NAN;
  f->robot.force = NAN;
  f->grasp.width = NAN;
  if (o && !cJSON_IsObject(o)) {
    fail(e, "robot", "must be an object {\"urdf\": ..., \"tcp\": ..., \"gripper\": {...}}");
  } else if (o) {
    static const char* const keys[] = {"urdf", "tcp", "gripper"};
    check_keys(o, "robot", keys, 3, NULL, e);
    const cJSON* u = cJSON_GetObjectItemCaseSensitive(o, "urdf");
    const cJSON* t = cJSON_GetObjectItemCaseSensitive(o, "tcp");
    if (u && (!cJSON_IsString(u) || !u->valuestring[0]))
      fail(e, "robot.urdf", "must be a URDF file's name");
    if (t && (!cJSON_IsString(t) || !t->valuestring[0] || strchr(t->valuestring, '#')))
      fail(e, "robot.tcp", "must be a link's name");
    if (t && !u) fail(e, "robot.tcp", "needs \"urdf\" (a link of that arm)");
    if (u && cJSON_IsString(u) && u->valuestring[0]) {
      char path[ASM_PATH_LEN];
      resolve(path, sizeof(path), f->path, u->valuestring);
      int n = cJSON_IsString(t)
                  ? snprintf(f->robot.urdf, sizeof(f->robot.urdf), "%s#%s", path, t->valuestring)
                  : snprintf(f->robot.urdf, sizeof(f->robot.urdf), "%s", path);
      if (n < 0 || (size_t)n >= sizeof(f->robot.urdf)) {
        fail(e, "robot.urdf", "path too long");
        f->robot.urdf[0] = 0;
      } else if (check_files) {
        char why[512];
        if (tf_urdf_check(f->robot.urdf, why, sizeof(why))) fail(e, "robot.urdf", "%s", why);
      }
    }
    const cJSON* gr = cJSON_GetObjectItemCaseSensitive(o, "gripper");
    if (gr && !cJSON_IsObject(gr)) {
      fail(e, "robot.gripper", "must be an object {\"opening_mm\": ..., \"force_n\": ...}");
    } else if (gr) {
      static const char* const gkeys[] = {"opening_mm", "force_n"};
      check_keys(gr, "robot.gripper", gkeys, 2, NULL, e);
      double v;
      if (number(gr, "opening_mm", "robot.gripper", 0, 80, &v, e) > 0) f->robot.opening = v * 1e-3;
      if (number(gr, "force_n", "robot.gripper", 1, 1000, &v, e) > 0) f->robot.force = v;
    }
  }
  if (g && !cJSON_IsObject(g)) {
    fail(e, "grasp", "must be an object {\"pos\": [x, y, z], \"width_mm\": w}");
  } else if (g) {
    static const char* const keys[] = {"pos", "width_mm"};
    check_keys(g, "grasp", keys, 2, NULL, e);
    double pos[3];
    if (vec3(g, "pos", "grasp", 0, pos, e) > 0) {
      tf_vec3_scale(f->grasp.pos, pos, f->unit);
      f->grasp.given = 1;
    }
    double w;
    if (number(g, "width_mm", "grasp", 0.1, 80, &w, e) > 0) f->grasp.width = w * 1e-3;
  }
}

// "FILE: " (and "N problems: " when several) before the problems, "; ... and N more" after;
// fail() kept room for both
static void finish_errors(asm_errors* e, const char* prefix) {
  if (!e->n || !e->cap) return;
  char head[ASM_PATH_LEN + 64];
  int h = e->n > 1 ? snprintf(head, sizeof(head), "%s%d problems: ", prefix, e->n)
                   : snprintf(head, sizeof(head), "%s", prefix);
  char tail[48] = "";
  if (e->more) snprintf(tail, sizeof(tail), "; ... and %d more", e->more);
  if ((size_t)h + e->at + strlen(tail) + 1 > e->cap) {
    // a buffer too small for even the head: as much of the head as fits
    snprintf(e->out, e->cap, "%s", head);
    return;
  }
  memmove(e->out + h, e->out, e->at + 1);
  memcpy(e->out, head, (size_t)h);
  memcpy(e->out + h + e->at, tail, strlen(tail) + 1);
}

static void line_column(const char* text, const char* at, int* line, int* column) {
  *line = 1, *column = 1;
  for (const char* c = text; c < at && *c; c++) {
    if (*c == '\n') {
      (*line)++;
      *column = 1;
    } else {
      (*column)++;
    }
  }
}

static int load(asm_file* f, const char* path, int check_files, char* err, size_t errlen) {
  memset(f, 0, sizeof(*f));
  char prefix[ASM_PATH_LEN + 4];
  snprintf(prefix, sizeof(prefix), "%s: ", path);
  asm_errors e = {err, errlen, 0, 0, 0, path};
  if (errlen) err[0] = 0;
  if (strlen(path) >= sizeof(f->path)) {
    snprintf(err, errlen, "assembly file path too long");
    return -1;
  }
  snprintf(f->path, sizeof(f->path), "%s", path);
  unsigned char* data = NULL;
  size_t size = 0;
  char why[1024];
  if (tf_file_read(&data, &size, path, ASM_MAX_FILE, why, sizeof(why))) {
    snprintf(err, errlen, "%s", why);
    return -1;
  }
  const char* end = NULL;
  cJSON* root = cJSON_ParseWithOpts((const char*)data, &end, 1);
  if (!root) {
    int line, column;
    line_column((const char*)data, end ? end : (const char*)data, &line, &column);
    snprintf(err, errlen, "%s: line %d, column %d: not valid JSON", path, line, column);
    free(data);
    return -1;
  }
  free(data);
  if (!cJSON_IsObject(root)) {
    fail(&e, "(top level)", "must be a JSON object {\"parts\": ...}");
    cJSON_Delete(root);
    finish_errors(&e, prefix);
    return -1;
  }
  static const char* const keys[] = {
      "description", "units", "collider",  "gravity", "friction", "min_margin", "pair_contacts",
      "parts",       "drive", "insertion", "success", "probes",   "robot",      "grasp"};
  check_keys(root, "", keys, (int)(sizeof(keys) / sizeof(keys[0])), NULL, &e);
  const cJSON* d = cJSON_GetObjectItemCaseSensitive(root, "description");
  if (d && !cJSON_IsString(d)) fail(&e, "description", "must be a string");
  f->unit = 1;
  units(root, "units", "", &f->unit, &e);
  int c = choice(root, "collider", "", "sdf|mesh_sdf", &e);
  f->collider = c >= 0 ? (asm_collider)c : ASM_COLLIDER_MESH_SDF;
  f->gravity[2] = -9.81;
  vec3(root, "gravity", "", 0, f->gravity, &e);
  f->mu = 0.1;
  number(root, "friction", "", 0, 10, &f->mu, &e);
  f->min_margin = NAN;
  double mm;
  if (number(root, "min_margin", "", 0, 1e9, &mm, &e) > 0) f->min_margin = mm * f->unit;
  double pc = 0;
  if (number(root, "pair_contacts", "", 1, 64, &pc, &e) > 0 && pc != floor(pc))
    fail(&e, "pair_contacts", "must be a whole number");
  f->pair_contacts = (int)pc;
  parse_parts(f, cJSON_GetObjectItemCaseSensitive(root, "parts"), check_files, &e);
  int moving = 0;
  for (int i = 0; i < f->npart; i++) moving += f->part[i].mount != ASM_FIXED;
  if (f->npart > 0 && !moving && e.n == 0) fail(&e, "parts", "every part is fixed: nothing moves");
  parse_drive(f, cJSON_GetObjectItemCaseSensitive(root, "drive"), &e);
  parse_insertion(f, cJSON_GetObjectItemCaseSensitive(root, "insertion"), &e);
  parse_probes(f, cJSON_GetObjectItemCaseSensitive(root, "probes"), &e);
  parse_success(f, cJSON_GetObjectItemCaseSensitive(root, "success"), &e);
  parse_robot(f, cJSON_GetObjectItemCaseSensitive(root, "robot"),
              cJSON_GetObjectItemCaseSensitive(root, "grasp"), check_files, &e);
  if (f->drive.type == ASM_DRIVE_PUSH && f->drive.part >= 0 && f->insertion.part < 0)
    fail(&e, "drive", "a push goes along the insertion axis: needs \"insertion\"");
  cJSON_Delete(root);
  finish_errors(&e, prefix);
  return e.n ? -1 : 0;
}

int asm_file_load(asm_file* f, const char* path, int check_files, char* err, size_t errlen) {
  return load(f, path, check_files, err, errlen);
}
