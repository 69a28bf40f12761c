// OBJ and STL readers and writers (see mesh_io.h for the contract).
//
// Parsing never trusts the input: lines and tokens are bounded by the buffer (numbers are
// copied into a small NUL-terminated buffer before strtod, so strtod cannot run past a token),
// every count is checked against the bytes that are really there before anything is
// allocated from it, and every index is range-checked before it is stored.
//
// OBJ is read in two passes: the first counts the 'v' statements so that a positive index
// can be checked against the file's vertex count wherever the face appears; a negative index
// -k means the k-th vertex before the face (OBJ's relative form) and is checked against the
// vertices read so far. A polygon v0 v1 ... vn-1 becomes the fan (v0, vi, vi+1).
//
// STL comes in two encodings. Binary: an 80-byte header, a little-endian uint32 triangle
// count n, then n records of 50 bytes (normal, three vertices as float32 LE, a uint16), so a
// valid file has exactly 84 + 50 n bytes. ASCII: "solid name / facet normal nx ny nz / outer
// loop / vertex x y z (x3) / endloop / endfacet / ... / endsolid name". Many binary headers
// start with "solid", so the size rule decides first; a file is ASCII only if it starts with
// "solid" and contains no NUL byte. STL stores each triangle's corners separately, so the
// reader welds exactly equal positions back into shared vertices (sort by position, stable on
// the index, so the result does not depend on the sort's internals).
#include "mesh_io.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_message.h"
#include "file_io.h"

void tf_mesh_free(tf_mesh* mesh) {
  if (!mesh) return;
  free(mesh->vert);
  free(mesh->face);
  mesh->vert = NULL;
  mesh->face = NULL;
  mesh->nvert = mesh->nface = 0;
}

// ---------------------------------------------------------------- growing arrays

// a mesh under construction, growing by doubling
typedef struct mesh_build {
  double* vert;
  size_t nvert, vcap;
  int* face;
  size_t nface, fcap;
} mesh_build;

// makes room for one more vertex; returns -1 when out of memory
static int add_vertex(mesh_build* m, const double v[3]) {
  if (m->nvert == m->vcap) {
    size_t cap = m->vcap ? 2 * m->vcap : 256;
    double* grown = realloc(m->vert, sizeof(double) * 3 * cap);
    if (!grown) return -1;
    m->vert = grown;
    m->vcap = cap;
  }
  memcpy(m->vert + 3 * m->nvert, v, sizeof(double) * 3);
  m->nvert++;
  return 0;
}

// makes room for one more triangle; returns -1 when out of memory
static int add_face(mesh_build* m, int a, int b, int c) {
  if (m->nface == m->fcap) {
    size_t cap = m->fcap ? 2 * m->fcap : 256;
    int* grown = realloc(m->face, sizeof(int) * 3 * cap);
    if (!grown) return -1;
    m->face = grown;
    m->fcap = cap;
  }
  int* f = m->face + 3 * m->nface;
  f[0] = a, f[1] = b, f[2] = c;
  m->nface++;
  return 0;
}

// hands the arrays to out (shrunk to size)
static void finish(tf_mesh* out, mesh_build* m) {
  double* v = realloc(m->vert, sizeof(double) * 3 * (m->nvert ? m->nvert : 1));
  int* f = realloc(m->face, sizeof(int) * 3 * (m->nface ? m->nface : 1));
  out->vert = v ? v : m->vert;
  out->face = f ? f : m->face;
  out->nvert = (int)m->nvert;
  out->nface = (int)m->nface;
  memset(m, 0, sizeof(*m));
}

static void build_free(mesh_build* m) {
  free(m->vert);
  free(m->face);
  memset(m, 0, sizeof(*m));
}

// ---------------------------------------------------------------- tokens

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// the next whitespace-separated token in [*p, end); returns 0 when none is left
static int next_token(const char** p, const char* end, const char** tok, size_t* len) {
  const char* s = *p;
  while (s < end && is_space(*s)) s++;
  if (s == end) {
    *p = s;
    return 0;
  }
  const char* t = s;
  while (t < end && !is_space(*t)) t++;
  *tok = s;
  *len = (size_t)(t - s);
  *p = t;
  return 1;
}

// a number token (strtod syntax, the whole token); returns 0 or -1
static int parse_number(double* out, const char* tok, size_t len) {
  char buf[72];
  if (len == 0 || len >= sizeof(buf)) return -1;
  memcpy(buf, tok, len);
  buf[len] = 0;
  char* end = NULL;
  *out = strtod(buf, &end);
  return end == buf + len ? 0 : -1;
}

// a decimal integer with an optional sign, at most 18 digits; returns 0 or -1
static int parse_integer(long long* out, const char* s, size_t len) {
  size_t i = 0;
  int negative = 0;
  if (i < len && (s[i] == '-' || s[i] == '+')) negative = s[i++] == '-';
  if (i == len || len - i > 18) return -1;
  long long v = 0;
  for (; i < len; i++) {
    if (s[i] < '0' || s[i] > '9') return -1;
    v = 10 * v + (s[i] - '0');
  }
  *out = negative ? -v : v;
  return 0;
}

// a token made printable for a message: at most 24 characters, others shown as '?'
static void quote(char out[32], const char* tok, size_t len) {
  size_t n = len < 24 ? len : 24;
  for (size_t i = 0; i < n; i++) out[i] = isprint((unsigned char)tok[i]) ? tok[i] : '?';
  if (len > n) {
    memcpy(out + n, "...", 3);
    n += 3;
  }
  out[n] = 0;
}

static int token_is(const char* tok, size_t len, const char* word) {
  return strlen(word) == len && strncmp(tok, word, len) == 0;
}

// the same ignoring ASCII case (STL keywords)
static int token_is_nocase(const char* tok, size_t len, const char* word) {
  if (strlen(word) != len) return 0;
  for (size_t i = 0; i < len; i++) {
    if (tolower((unsigned char)tok[i]) != word[i]) return 0;
  }
  return 1;
}

// ---------------------------------------------------------------- OBJ

// one line of a text buffer, without its newline and without a '#' comment
typedef struct text_line {
  const char* s;
  const char* e;
  long number;  // 1-based
  int has_nul;
} text_line;

// the next line from *pos; returns 0 at the end of the data
static int next_line(const char* data, size_t size, size_t* pos, long* number, text_line* out) {
  if (*pos >= size) return 0;
  const char* s = data + *pos;
  const char* nl = memchr(s, '\n', size - *pos);
  const char* e = nl ? nl : data + size;
  *pos = nl ? (size_t)(nl - data) + 1 : size;
  out->number = ++*number;
  out->has_nul = memchr(s, 0, (size_t)(e - s)) != NULL;
  const char* hash = memchr(s, '#', (size_t)(e - s));
  out->s = s;
  out->e = hash ? hash : e;
  return 1;
}

// one vertex reference of an 'f' statement: "i", "i/j", "i//k" or "i/j/k"; writes the
// position index; returns 0 or -1 (malformed)
static int parse_face_ref(long long* index, const char* tok, size_t len) {
  const char* part[3] = {tok, tok, tok};
  size_t plen[3] = {0, 0, 0};
  int nparts = 0;
  const char* s = tok;
  const char* end = tok + len;
  for (;;) {
    const char* slash = memchr(s, '/', (size_t)(end - s));
    if (nparts == 3) return -1;
    part[nparts] = s;
    plen[nparts] = slash ? (size_t)(slash - s) : (size_t)(end - s);
    nparts++;
    if (!slash) break;
    s = slash + 1;
  }
  long long unused;
  if (parse_integer(index, part[0], plen[0])) return -1;
  // "i/j": j present; "i//k": j empty, k present; "i/j/k": both
  if (nparts >= 2 && plen[1] && parse_integer(&unused, part[1], plen[1])) return -1;
  if (nparts == 2 && plen[1] == 0) return -1;
  if (nparts == 3 && parse_integer(&unused, part[2], plen[2])) return -1;
  return 0;
}

// pass 1: how many 'v' statements the buffer holds
static size_t obj_count_vertices(const char* data, size_t size) {
  size_t pos = 0, n = 0;
  long number = 0;
  text_line line;
  while (next_line(data, size, &pos, &number, &line)) {
    const char* p = line.s;
    const char* tok;
    size_t len;
    if (next_token(&p, line.e, &tok, &len) && token_is(tok, len, "v")) n++;
  }
  return n;
}

// a 'v' statement: 3 coordinates, then optionally w or a colour (up to 7 numbers in all)
static int obj_vertex(mesh_build* m, const text_line* line, const char* p, const char* name,
                      char* err, size_t errlen) {
  double v[3];
  int count = 0;
  const char* tok;
  size_t len;
  while (next_token(&p, line->e, &tok, &len)) {
    char q[32];
    double x;
    quote(q, tok, len);
    if (parse_number(&x, tok, len)) {
      return tf_fail(err, errlen, "%s:%ld: '%s' is not a number", name, line->number, q);
    }
    if (count < 3 && !isfinite(x)) {
      return tf_fail(err, errlen, "%s:%ld: vertex coordinate '%s' is not finite", name,
                     line->number, q);
    }
    if (count < 3) v[count] = x;
    if (++count > 7) {
      return tf_fail(err, errlen, "%s:%ld: a vertex has 3 to 7 numbers, found more", name,
                     line->number);
    }
  }
  if (count < 3) {
    return tf_fail(err, errlen, "%s:%ld: a vertex needs 3 coordinates, found %d", name,
                   line->number, count);
  }
  if (m->nvert >= TF_MESH_MAX_VERTICES) {
    return tf_fail(err, errlen, "%s:%ld: more than %d vertices (the limit)", name, line->number,
                   TF_MESH_MAX_VERTICES);
  }
  if (add_vertex(m, v)) return tf_fail(err, errlen, "%s:%ld: out of memory", name, line->number);
  return 0;
}

// an 'f' statement: at least 3 references, fan-triangulated
static int obj_face(mesh_build* m, size_t total_vertices, const text_line* line, const char* p,
                    const char* name, char* err, size_t errlen) {
  int first = -1, prev = -1, count = 0;
  const char* tok;
  size_t len;
  while (next_token(&p, line->e, &tok, &len)) {
    char q[32];
    long long index;
    quote(q, tok, len);
    if (parse_face_ref(&index, tok, len)) {
      return tf_fail(err, errlen, "%s:%ld: '%s' is not a vertex reference (i, i/j, i//k or i/j/k)",
                     name, line->number, q);
    }
    long long resolved;
    if (index == 0) {
      return tf_fail(err, errlen, "%s:%ld: vertex index 0 (OBJ indices start at 1)", name,
                     line->number);
    } else if (index > 0) {
      if (index > (long long)total_vertices) {
        return tf_fail(err, errlen,
                       "%s:%ld: vertex index %lld is out of range (the file has %zu vertices)",
                       name, line->number, index, total_vertices);
      }
      resolved = index - 1;
    } else {
      resolved = (long long)m->nvert + index;
      if (resolved < 0) {
        return tf_fail(
            err, errlen,
            "%s:%ld: relative vertex index %lld reaches before the first vertex (%zu so far)", name,
            line->number, index, m->nvert);
      }
    }
    int v = (int)resolved;
    count++;
    if (count == 1) {
      first = v;
    } else if (count >= 3) {
      if (m->nface >= TF_MESH_MAX_TRIANGLES) {
        return tf_fail(err, errlen, "%s:%ld: more than %d triangles (the limit)", name,
                       line->number, TF_MESH_MAX_TRIANGLES);
      }
      if (add_face(m, first, prev, v)) {
        return tf_fail(err, errlen, "%s:%ld: out of memory", name, line->number);
      }
    }
    prev = v;
  }
  if (count < 3) {
    return tf_fail(err, errlen, "%s:%ld: a face needs at least 3 vertices, found %d", name,
                   line->number, count);
  }
  return 0;
}

int tf_mesh_parse_obj(tf_mesh* out, const char* data, size_t size, const char* name, char* err,
                      size_t errlen) {
  memset(out, 0, sizeof(*out));
  if (!name) name = "(memory)";
  if (size > TF_MESH_MAX_FILE_BYTES) {
    return tf_fail(err, errlen, "%s:1: %zu bytes is over the limit of %zu", name, size,
                   TF_MESH_MAX_FILE_BYTES);
  }
  size_t total = obj_count_vertices(data, size);
  mesh_build m = {0};
  size_t pos = 0;
  long number = 0;
  text_line line;
  while (next_line(data, size, &pos, &number, &line)) {
    if (line.has_nul) {
      build_free(&m);
      return tf_fail(err, errlen, "%s:%ld: NUL byte in a text file (is this a binary file?)", name,
                     line.number);
    }
    const char* p = line.s;
    const char* tok;
    size_t len;
    if (!next_token(&p, line.e, &tok, &len)) continue;
    int rc = 0;
    if (token_is(tok, len, "v")) {
      rc = obj_vertex(&m, &line, p, name, err, errlen);
    } else if (token_is(tok, len, "f")) {
      rc = obj_face(&m, total, &line, p, name, err, errlen);
    }
    if (rc) {
      build_free(&m);
      return -1;
    }
  }
  if (m.nface == 0) {
    build_free(&m);
    return tf_fail(err, errlen, "%s:%ld: no faces ('f' lines) in the file", name,
                   number ? number : 1);
  }
  finish(out, &m);
  return 0;
}

// ---------------------------------------------------------------- STL

static uint32_t le32(const unsigned char* b) {
  return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static float le_float(const unsigned char* b) {
  uint32_t u = le32(b);
  float f;
  memcpy(&f, &u, sizeof(f));
  return f;
}

// binary STL, its size already checked against the count
static int stl_binary(mesh_build* m, const unsigned char* data, uint32_t n, const char* name,
                      char* err, size_t errlen) {
  m->vert = malloc(sizeof(double) * 9 * (size_t)n);
  m->face = malloc(sizeof(int) * 3 * (size_t)n);
  if (!m->vert || !m->face)
    return tf_fail(err, errlen, "%s: out of memory for %u triangles", name, n);
  m->vcap = m->nvert = 3 * (size_t)n;
  m->fcap = m->nface = n;
  for (size_t t = 0; t < n; t++) {
    const unsigned char* rec = data + 84 + 50 * t;
    for (int k = 0; k < 9; k++) {
      float x = le_float(rec + 12 + 4 * k);
      if (!isfinite(x)) {
        return tf_fail(err, errlen,
                       "%s:byte %zu: triangle %zu, vertex %d: coordinate is not finite", name,
                       (size_t)(84 + 50 * t + 12 + 4 * k), t, k / 3);
      }
      m->vert[9 * t + k] = x;
    }
    for (int k = 0; k < 3; k++) m->face[3 * t + k] = (int)(3 * t + (size_t)k);
  }
  return 0;
}

// a tokenizer over a whole ASCII STL buffer that tracks line numbers
typedef struct stl_lexer {
  const char* p;
  const char* end;
  long line;
  long tok_line;  // line of the last token
  const char* tok;
  size_t len;
} stl_lexer;

// the next token; returns 0 at the end of the data
static int lex(stl_lexer* lx) {
  while (lx->p < lx->end && (is_space(*lx->p) || *lx->p == '\n')) {
    if (*lx->p == '\n') lx->line++;
    lx->p++;
  }
  if (lx->p == lx->end) {
    lx->tok_line = lx->line;
    return 0;
  }
  lx->tok = lx->p;
  while (lx->p < lx->end && !is_space(*lx->p) && *lx->p != '\n') lx->p++;
  lx->len = (size_t)(lx->p - lx->tok);
  lx->tok_line = lx->line;
  return 1;
}

// skips the rest of the current line (the name after solid / endsolid)
static void lex_skip_line(stl_lexer* lx) {
  while (lx->p < lx->end && *lx->p != '\n') lx->p++;
}

// the next token must be the keyword
static int expect(stl_lexer* lx, const char* word, const char* name, char* err, size_t errlen) {
  if (!lex(lx)) {
    return tf_fail(err, errlen, "%s:%ld: expected '%s', found the end of the file", name,
                   lx->tok_line, word);
  }
  if (!token_is_nocase(lx->tok, lx->len, word)) {
    char q[32];
    quote(q, lx->tok, lx->len);
    return tf_fail(err, errlen, "%s:%ld: expected '%s', found '%s'", name, lx->tok_line, word, q);
  }
  return 0;
}

// three numbers (finite ones when finite_only)
static int expect_numbers(stl_lexer* lx, double v[3], int finite_only, const char* name, char* err,
                          size_t errlen) {
  for (int k = 0; k < 3; k++) {
    if (!lex(lx)) {
      return tf_fail(err, errlen, "%s:%ld: expected a number, found the end of the file", name,
                     lx->tok_line);
    }
    char q[32];
    quote(q, lx->tok, lx->len);
    if (parse_number(&v[k], lx->tok, lx->len)) {
      return tf_fail(err, errlen, "%s:%ld: expected a number, found '%s'", name, lx->tok_line, q);
    }
    if (finite_only && !isfinite(v[k])) {
      return tf_fail(err, errlen, "%s:%ld: vertex coordinate '%s' is not finite", name,
                     lx->tok_line, q);
    }
  }
  return 0;
}

// one "facet ... endfacet" block after its 'facet' keyword
static int stl_facet(mesh_build* m, stl_lexer* lx, const char* name, char* err, size_t errlen) {
  double v[3];
  if (expect(lx, "normal", name, err, errlen)) return -1;
  if (expect_numbers(lx, v, 0, name, err, errlen)) return -1;  // the normal is not used
  if (expect(lx, "outer", name, err, errlen) || expect(lx, "loop", name, err, errlen)) return -1;
  long line = lx->tok_line;
  if (m->nface >= TF_MESH_MAX_TRIANGLES) {
    return tf_fail(err, errlen, "%s:%ld: more than %d triangles (the limit)", name, line,
                   TF_MESH_MAX_TRIANGLES);
  }
  for (int k = 0; k < 3; k++) {
    if (expect(lx, "vertex", name, err, errlen)) return -1;
    if (expect_numbers(lx, v, 1, name, err, errlen)) return -1;
    if (add_vertex(m, v)) return tf_fail(err, errlen, "%s:%ld: out of memory", name, lx->tok_line);
  }
  if (expect(lx, "endloop", name, err, errlen) || expect(lx, "endfacet", name, err, errlen)) {
    return -1;
  }
  int base = (int)m->nvert - 3;
  if (add_face(m, base, base + 1, base + 2)) {
    return tf_fail(err, errlen, "%s:%ld: out of memory", name, line);
  }
  return 0;
}

// ASCII STL: one or more "solid ... endsolid" blocks
static int stl_ascii(mesh_build* m, const char* data, size_t size, const char* name, char* err,
                     size_t errlen) {
  stl_lexer lx = {data, data + size, 1, 1, NULL, 0};
  int nsolid = 0;
  for (;;) {
    if (!lex(&lx)) {
      if (nsolid) break;
      return tf_fail(err, errlen, "%s:%ld: expected 'solid', found the end of the file", name,
                     lx.tok_line);
    }
    if (!token_is_nocase(lx.tok, lx.len, "solid")) {
      char q[32];
      quote(q, lx.tok, lx.len);
      return tf_fail(err, errlen, "%s:%ld: expected 'solid'%s, found '%s'", name, lx.tok_line,
                     nsolid ? " or the end of the file" : "", q);
    }
    lex_skip_line(&lx);
    nsolid++;
    for (;;) {
      if (!lex(&lx)) {
        return tf_fail(err, errlen,
                       "%s:%ld: expected 'facet' or 'endsolid', found the end of the file", name,
                       lx.tok_line);
      }
      if (token_is_nocase(lx.tok, lx.len, "endsolid")) {
        lex_skip_line(&lx);
        break;
      }
      if (!token_is_nocase(lx.tok, lx.len, "facet")) {
        char q[32];
        quote(q, lx.tok, lx.len);
        return tf_fail(err, errlen, "%s:%ld: expected 'facet' or 'endsolid', found '%s'", name,
                       lx.tok_line, q);
      }
      if (stl_facet(m, &lx, name, err, errlen)) return -1;
    }
  }
  if (m->nface == 0)
    return tf_fail(err, errlen, "%s:%ld: no facets in the file", name, lx.tok_line);
  return 0;
}

// does the buffer start (after whitespace) with the keyword "solid"?
static int starts_with_solid(const unsigned char* data, size_t size) {
  size_t i = 0;
  while (i < size && (is_space((char)data[i]) || data[i] == '\n')) i++;
  if (size - i < 5 || !token_is_nocase((const char*)data + i, 5, "solid")) return 0;
  return size - i == 5 || is_space((char)data[i + 5]) || data[i + 5] == '\n';
}

int tf_mesh_parse_stl(tf_mesh* out, const unsigned char* data, size_t size, const char* name,
                      char* err, size_t errlen) {
  memset(out, 0, sizeof(*out));
  if (!name) name = "(memory)";
  if (size > TF_MESH_MAX_FILE_BYTES) {
    return tf_fail(err, errlen, "%s:byte 0: %zu bytes is over the limit of %zu", name, size,
                   TF_MESH_MAX_FILE_BYTES);
  }
  mesh_build m = {0};
  int rc;
  uint32_t n = size >= 84 ? le32(data + 80) : 0;
  int binary_size = size >= 84 && (uint64_t)size == 84 + 50 * (uint64_t)n;
  if (binary_size || (size >= 84 && !(starts_with_solid(data, size) && !memchr(data, 0, size)))) {
    if (n > TF_MESH_MAX_TRIANGLES) {
      return tf_fail(err, errlen, "%s:byte 80: %u triangles is over the limit of %d", name, n,
                     TF_MESH_MAX_TRIANGLES);
    }
    if (!binary_size) {
      return tf_fail(
          err, errlen,
          "%s:byte 80: binary STL header promises %u triangles (%llu bytes) but the file "
          "has %zu bytes (truncated or not an STL file)",
          name, n, (unsigned long long)(84 + 50 * (uint64_t)n), size);
    }
    if (n == 0) return tf_fail(err, errlen, "%s:byte 80: binary STL with no triangles", name);
    rc = stl_binary(&m, data, n, name, err, errlen);
  } else if (starts_with_solid(data, size) && !memchr(data, 0, size)) {
    rc = stl_ascii(&m, (const char*)data, size, name, err, errlen);
  } else {
    return tf_fail(err, errlen,
                   "%s:byte 0: %zu bytes is too short for a binary STL (84 bytes at least) and it "
                   "is not ASCII STL (no 'solid' keyword)",
                   name, size);
  }
  if (rc) {
    build_free(&m);
    return -1;
  }
  finish(out, &m);
  if (tf_mesh_weld(out, err, errlen)) {
    tf_mesh_free(out);
    return tf_fail(err, errlen, "%s: out of memory welding vertices", name);
  }
  return 0;
}

// ---------------------------------------------------------------- welding

typedef struct weld_item {
  double x[3];
  int index;
} weld_item;

// lexicographic on the position, then on the index (a total order: deterministic result)
static int weld_cmp(const void* pa, const void* pb) {
  const weld_item* a = pa;
  const weld_item* b = pb;
  for (int k = 0; k < 3; k++) {
    if (a->x[k] < b->x[k]) return -1;
    if (a->x[k] > b->x[k]) return 1;
  }
  return (a->index > b->index) - (a->index < b->index);
}

int tf_vertex_weld_map(int* map, int* nunique, const double* vert, int nvert) {
  *nunique = 0;
  if (nvert <= 0) return 0;
  weld_item* items = malloc(sizeof(weld_item) * (size_t)nvert);
  int* rep = malloc(sizeof(int) * (size_t)nvert);
  if (!items || !rep) {
    free(items);
    free(rep);
    return -1;
  }
  for (int i = 0; i < nvert; i++) {
    memcpy(items[i].x, vert + 3 * (size_t)i, sizeof(double) * 3);
    items[i].index = i;
  }
  qsort(items, (size_t)nvert, sizeof(weld_item), weld_cmp);
  // each run of equal positions points at its lowest index (the first of the run)
  int first = 0;
  for (int s = 0; s < nvert; s++) {
    if (s > 0 && (items[s].x[0] != items[s - 1].x[0] || items[s].x[1] != items[s - 1].x[1] ||
                  items[s].x[2] != items[s - 1].x[2])) {
      first = s;
    }
    rep[items[s].index] = items[first].index;
  }
  // new ids in order of first occurrence; rep[i] <= i, so rep[i] already has its id
  int next = 0;
  for (int i = 0; i < nvert; i++) map[i] = rep[i] == i ? next++ : map[rep[i]];
  free(items);
  free(rep);
  *nunique = next;
  return 0;
}

int tf_mesh_weld(tf_mesh* mesh, char* err, size_t errlen) {
  if (mesh->nvert <= 0) return 0;
  int* map = malloc(sizeof(int) * (size_t)mesh->nvert);
  int nunique = 0;
  if (!map || tf_vertex_weld_map(map, &nunique, mesh->vert, mesh->nvert)) {
    free(map);
    return tf_fail(err, errlen, "out of memory welding %d vertices", mesh->nvert);
  }
  double* vert = malloc(sizeof(double) * 3 * (size_t)(nunique ? nunique : 1));
  if (!vert) {
    free(map);
    return tf_fail(err, errlen, "out of memory welding %d vertices", mesh->nvert);
  }
  // ids were handed out in order of first occurrence: id `next` first appears where map == next
  int next = 0;
  for (int i = 0; i < mesh->nvert; i++) {
    if (map[i] == next) {
      memcpy(vert + 3 * (size_t)next, mesh->vert + 3 * (size_t)i, sizeof(double) * 3);
      next++;
    }
  }
  for (size_t k = 0; k < 3 * (size_t)mesh->nface; k++) mesh->face[k] = map[mesh->face[k]];
  free(mesh->vert);
  free(map);
  mesh->vert = vert;
  mesh->nvert = nunique;
  return 0;
}

// ---------------------------------------------------------------- files

// the file's extension in lower case ("" if none)
static void extension(char out[8], const char* path) {
  const char* dot = strrchr(path, '.');
  const char* slash = strrchr(path, '/');
  out[0] = 0;
  if (!dot || (slash && dot < slash) || strlen(dot + 1) >= 8) return;
  size_t i = 0;
  for (; dot[1 + i]; i++) out[i] = (char)tolower((unsigned char)dot[1 + i]);
  out[i] = 0;
}

int tf_mesh_read_obj(tf_mesh* out, const char* path, char* err, size_t errlen) {
  memset(out, 0, sizeof(*out));
  unsigned char* data;
  size_t size;
  if (tf_file_read(&data, &size, path, TF_MESH_MAX_FILE_BYTES, err, errlen)) return -1;
  int rc = tf_mesh_parse_obj(out, (const char*)data, size, path, err, errlen);
  free(data);
  return rc;
}

int tf_mesh_read_stl(tf_mesh* out, const char* path, char* err, size_t errlen) {
  memset(out, 0, sizeof(*out));
  unsigned char* data;
  size_t size;
  if (tf_file_read(&data, &size, path, TF_MESH_MAX_FILE_BYTES, err, errlen)) return -1;
  int rc = tf_mesh_parse_stl(out, data, size, path, err, errlen);
  free(data);
  return rc;
}

int tf_mesh_read(tf_mesh* out, const char* path, char* err, size_t errlen) {
  char ext[8];
  extension(ext, path);
  if (strcmp(ext, "obj") == 0) return tf_mesh_read_obj(out, path, err, errlen);
  if (strcmp(ext, "stl") == 0) return tf_mesh_read_stl(out, path, err, errlen);
  memset(out, 0, sizeof(*out));
  return tf_fail(err, errlen, "%s: unknown mesh format (use a .obj or .stl file)", path);
}

int tf_mesh_check(const double* vert, int nvert, const int* face, int nface, const char* name,
                  char* err, size_t errlen) {
  if (nvert <= 0 || nface <= 0 || !vert || !face) {
    return tf_fail(err, errlen, "%s: empty mesh (%d vertices, %d triangles)", name, nvert, nface);
  }
  if (nvert > TF_MESH_MAX_VERTICES || nface > TF_MESH_MAX_TRIANGLES) {
    return tf_fail(err, errlen, "%s: %d vertices / %d triangles is over the limit of %d / %d", name,
                   nvert, nface, TF_MESH_MAX_VERTICES, TF_MESH_MAX_TRIANGLES);
  }
  for (size_t k = 0; k < 3 * (size_t)nvert; k++) {
    if (!isfinite(vert[k])) {
      return tf_fail(err, errlen, "%s: vertex %zu is not finite", name, k / 3);
    }
  }
  for (size_t k = 0; k < 3 * (size_t)nface; k++) {
    if (face[k] < 0 || face[k] >= nvert) {
      return tf_fail(err, errlen, "%s: triangle %zu uses vertex %d, out of range (%d vertices)",
                     name, k / 3, face[k], nvert);
    }
  }
  return 0;
}

int tf_mesh_write_obj(const char* path, const tf_mesh* mesh, char* err, size_t errlen) {
  if (tf_mesh_check(mesh->vert, mesh->nvert, mesh->face, mesh->nface, path, err, errlen)) return -1;
  tf_atomic_file file;
  if (tf_atomic_open(&file, path, err, errlen)) return -1;
  fprintf(file.f, "# tightfit mesh: %d vertices, %d triangles\n", mesh->nvert, mesh->nface);
  for (int i = 0; i < mesh->nvert; i++) {
    const double* v = mesh->vert + 3 * (size_t)i;
    fprintf(file.f, "v %.17g %.17g %.17g\n", v[0], v[1], v[2]);
  }
  for (int i = 0; i < mesh->nface; i++) {
    const int* f = mesh->face + 3 * (size_t)i;
    fprintf(file.f, "f %d %d %d\n", f[0] + 1, f[1] + 1, f[2] + 1);
  }
  return tf_atomic_commit(&file, err, errlen);
}

static void put_le32(unsigned char* b, uint32_t v) {
  b[0] = (unsigned char)v, b[1] = (unsigned char)(v >> 8);
  b[2] = (unsigned char)(v >> 16), b[3] = (unsigned char)(v >> 24);
}

static void put_le_float(unsigned char* b, float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof(u));
  put_le32(b, u);
}

int tf_mesh_write_stl(const char* path, const tf_mesh* mesh, char* err, size_t errlen) {
  if (tf_mesh_check(mesh->vert, mesh->nvert, mesh->face, mesh->nface, path, err, errlen)) return -1;
  for (size_t k = 0; k < 3 * (size_t)mesh->nvert; k++) {
    if (fabs(mesh->vert[k]) > FLT_MAX) {
      return tf_fail(err, errlen, "%s: vertex %zu does not fit STL's float32 coordinates", path,
                     k / 3);
    }
  }
  tf_atomic_file file;
  if (tf_atomic_open(&file, path, err, errlen)) return -1;
  unsigned char header[84];
  memset(header, ' ', 80);
  memcpy(header, "tightfit binary STL", 19);
  put_le32(header + 80, (uint32_t)mesh->nface);
  fwrite(header, 1, sizeof(header), file.f);
  for (int t = 0; t < mesh->nface; t++) {
    const double* p[3];
    for (int k = 0; k < 3; k++) p[k] = mesh->vert + 3 * (size_t)mesh->face[3 * (size_t)t + k];
    double u[3], w[3], n[3];
    for (int k = 0; k < 3; k++) u[k] = p[1][k] - p[0][k], w[k] = p[2][k] - p[0][k];
    n[0] = u[1] * w[2] - u[2] * w[1];
    n[1] = u[2] * w[0] - u[0] * w[2];
    n[2] = u[0] * w[1] - u[1] * w[0];
    double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    unsigned char rec[50];
    for (int k = 0; k < 3; k++) put_le_float(rec + 4 * k, len > 0 ? (float)(n[k] / len) : 0.0f);
    for (int v = 0; v < 3; v++) {
      for (int k = 0; k < 3; k++) put_le_float(rec + 12 + 12 * v + 4 * k, (float)p[v][k]);
    }
    rec[48] = rec[49] = 0;
    fwrite(rec, 1, sizeof(rec), file.f);
  }
  return tf_atomic_commit(&file, err, errlen);
}
