// The part registry and the key=value parameter parsing every part shares.
#include "parts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parts_internal.h"

static const tf_part_info* const parts[] = {
    &tf_part_peg,
    &tf_part_hole,
    &tf_part_bolt,
    &tf_part_nut,
    &tf_part_gear,
    &tf_part_connector_plug,
    &tf_part_connector_socket,
};

int tf_part_count(void) { return (int)(sizeof(parts) / sizeof(parts[0])); }

const tf_part_info* tf_part_at(int index) {
  return index >= 0 && index < tf_part_count() ? parts[index] : NULL;
}

const tf_part_info* tf_part_find(const char* name) {
  for (int i = 0; name && i < tf_part_count(); i++) {
    if (strcmp(parts[i]->name, name) == 0) return parts[i];
  }
  return NULL;
}

// index of `value` among the '|'-separated choices, -1 if absent
static int choice_index(const char* choices, const char* value) {
  size_t n = strlen(value);
  int index = 0;
  for (const char* c = choices; *c; index++) {
    const char* end = strchr(c, '|');
    size_t len = end ? (size_t)(end - c) : strlen(c);
    if (len == n && strncmp(c, value, n) == 0) return index;
    if (!end) break;
    c = end + 1;
  }
  return -1;
}

// a comma-separated list of at most max numbers in [lo, hi] (whole numbers when whole);
// returns the count or -1. Only the first nout numbers go to out (it holds nout), whatever
// max allows
static int parse_list(const char* text, double lo, double hi, int max, int whole, double* out,
                      int nout) {
  int n = 0;
  const char* c = text;
  while (1) {
    char* end = NULL;
    double x = strtod(c, &end);
    if (end == c || !isfinite(x) || x < lo || x > hi || n >= max) return -1;
    if (whole && x != floor(x)) return -1;
    if (out && n < nout) out[n] = x;
    n++;
    if (*end == 0) return n;
    if (*end != ',') return -1;
    c = end + 1;
  }
}

int tf_param_parse(const char* what, const char* owner, const tf_param_spec* params, int nparam,
                   const tf_kv* kv, int nkv, double* values, char* err, size_t errlen) {
  return tf_param_parse_texts(what, owner, params, nparam, kv, nkv, 1, values, err, errlen);
}

int tf_param_parse_texts(const char* what, const char* owner, const tf_param_spec* params,
                         int nparam, const tf_kv* kv, int nkv, int check_texts, double* values,
                         char* err, size_t errlen) {
  for (int i = 0; i < nparam; i++) {
    double first = params[i].value;
    if (params[i].list > 0 && params[i].list_default) {
      parse_list(params[i].list_default, params[i].lo, params[i].hi, params[i].list, 0, &first, 1);
    }
    values[i] = first;
  }
  for (int k = 0; k < nkv; k++) {
    int found = -1;
    for (int i = 0; i < nparam && found < 0; i++) {
      if (kv[k].key && strcmp(kv[k].key, params[i].key) == 0) found = i;
    }
    if (found < 0) {
      size_t at = (size_t)snprintf(err, errlen, "%s '%s': unknown parameter '%s' (valid:", what,
                                   owner, kv[k].key ? kv[k].key : "");
      for (int i = 0; i < nparam && at < errlen; i++) {
        at += (size_t)snprintf(err + at, errlen - at, " %s", params[i].key);
      }
      if (at < errlen) snprintf(err + at, errlen - at, ")");
      return -1;
    }
    const tf_param_spec* spec = &params[found];
    const char* text = kv[k].value ? kv[k].value : "";
    if (spec->text) {
      // checked here, so that a sweep refuses a bad file before its first run
      if (check_texts && text[0] && spec->check && spec->check(text, err, errlen)) return -1;
      values[found] = text[0] ? 1 : 0;
      continue;
    }
    if (spec->choices) {
      int index = choice_index(spec->choices, text);
      if (index < 0) {
        snprintf(err, errlen, "%s '%s': %s must be one of %s (got '%s')", what, owner, spec->key,
                 spec->choices, text);
        return -1;
      }
      values[found] = index;
      continue;
    }
    if (spec->list > 0) {
      // the count and whole-ness too, so that a list the task cannot build is refused here,
      // before anything runs, and not by the task's build half way through a sweep
      double first = 0;
      int lo_count = spec->list_min > 1 ? spec->list_min : 1;
      int n = parse_list(text, spec->lo, spec->hi, spec->list, spec->whole, &first, 1);
      if (n < lo_count) {
        snprintf(err, errlen,
                 "%s '%s': %s needs a list of %d to %d %snumbers in [%g, %g], got '%s'", what,
                 owner, spec->key, lo_count, spec->list, spec->whole ? "whole " : "", spec->lo,
                 spec->hi, text);
        return -1;
      }
      values[found] = first;
      continue;
    }
    char* end = NULL;
    double x = strtod(text, &end);
    if (end == text || *end != 0 || !isfinite(x)) {
      snprintf(err, errlen, "%s '%s': %s needs a number, got '%s'", what, owner, spec->key, text);
      return -1;
    }
    if (x < spec->lo || x > spec->hi) {
      snprintf(err, errlen, "%s '%s': %s must be in [%g, %g] %s (got %g)", what, owner, spec->key,
               spec->lo, spec->hi, spec->unit, x);
      return -1;
    }
    values[found] = x;
  }
  return 0;
}

const char* tf_param_text(const tf_param_spec* spec, const tf_kv* kv, int nkv) {
  const char* text = NULL;
  for (int k = 0; k < nkv; k++) {
    if (kv[k].key && strcmp(kv[k].key, spec->key) == 0) text = kv[k].value;
  }
  return text && text[0] ? text : NULL;
}

int tf_param_list(const tf_param_spec* spec, const tf_kv* kv, int nkv, double* out, int max) {
  const char* text = spec->list_default;
  for (int k = 0; k < nkv; k++) {
    if (kv[k].key && strcmp(kv[k].key, spec->key) == 0) text = kv[k].value;
  }
  if (!text) {
    if (max < 1) return -1;
    out[0] = spec->value;
    return 1;
  }
  int limit = spec->list < max ? spec->list : max;
  return parse_list(text, spec->lo, spec->hi, limit > 0 ? limit : 1, 0, out, max);
}

int tf_part_parse(const tf_part_info* part, const tf_kv* kv, int nkv, double* values, char* err,
                  size_t errlen) {
  return tf_param_parse("part", part->name, part->params, part->nparam, kv, nkv, values, err,
                        errlen);
}

double tf_part_mm(double metres) {
  // mm * 1e-3 is monotonic in mm, and metres * 1e3 lands within an ulp or two of where it
  // equals metres: search a few ulps either side for an exact mm, else take the nearest
  double guess = metres * 1e3, best = guess;
  double best_off = fabs(guess * 1e-3 - metres);
  double mm = guess;
  for (int k = 0; k < 4; k++) mm = nextafter(mm, -INFINITY);
  for (int k = 0; k < 9 && best_off > 0; k++, mm = nextafter(mm, INFINITY)) {
    double off = fabs(mm * 1e-3 - metres);
    if (off < best_off) best = mm, best_off = off;
  }
  return best;
}

int tf_part_build(const char* name, const tf_kv* kv, int nkv, tf_part_geometry* out, char* err,
                  size_t errlen) {
  memset(out, 0, sizeof(*out));
  const tf_part_info* part = tf_part_find(name);
  if (!part) {
    size_t at = (size_t)snprintf(err, errlen, "unknown part '%s' (valid:", name ? name : "");
    for (int i = 0; i < tf_part_count() && at < errlen; i++) {
      at += (size_t)snprintf(err + at, errlen - at, " %s", parts[i]->name);
    }
    if (at < errlen) snprintf(err + at, errlen - at, ")");
    return -1;
  }
  double values[64];
  if (part->nparam > 64) {
    snprintf(err, errlen, "part '%s': too many parameters", name);
    return -1;
  }
  if (tf_part_parse(part, kv, nkv, values, err, errlen)) return -1;
  if (part->build(values, out, err, errlen)) {
    tf_part_geometry_free(out);
    return -1;
  }
  return 0;
}

void tf_part_geometry_free(tf_part_geometry* g) {
  if (!g) return;
  free(g->params);
  free(g->vert);
  free(g->face);
  memset(g, 0, sizeof(*g));
}

int tf_part_add_to_builder(tf_builder* b, const char* name, const tf_part_geometry* g) {
  int mesh;
  return tf_part_add_mesh_and_sdf(b, name, g, &mesh);
}

int tf_part_add_mesh_and_sdf(tf_builder* b, const char* name, const tf_part_geometry* g,
                             int* mesh_id) {
  int mesh = tf_builder_add_mesh(b, name, g->vert, g->nvert, g->face, g->nface);
  *mesh_id = mesh;
  if (mesh < 0) return -1;
  tf_sdf_def def;
  tf_part_sdf_def(&def, name, g, mesh);
  return tf_builder_add_sdf(b, &def);
}

void tf_part_sdf_def(tf_sdf_def* def, const char* name, const tf_part_geometry* g, int mesh) {
  memset(def, 0, sizeof(*def));
  def->name = name;
  def->fn = g->fn;
  def->params = g->params;
  def->params_size = g->params_size;
  memcpy(def->aabb, g->aabb, sizeof(def->aabb));
  def->error_bound = g->error_bound;
  def->feature_size = g->feature_size;
  def->unit_gradient = g->unit_gradient;
  def->mesh = mesh;
}
