// The streaming NPZ writer (see npz_write.h).
//
// The npy format (numpy's NEP 1, version 1.0): the magic "\x93NUMPY", the version bytes 1 0,
// a little-endian uint16 header length, then an ASCII Python dict literal
// {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), } padded with spaces and ended
// by '\n' so that the data starts at a multiple of 64 bytes (what numpy itself writes), then
// the data in C order. An npz is a zip of such members named NAME.npy.
#include "npz_write.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

#include "file_io.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the npy headers say little-endian: a big-endian host would need byte swaps"
#endif

#define ERR_LEN 512
#define WRITE_BUFFER (64 << 10)  // stdio buffer of each array's file: few, large writes
#define SLOT_CACHE (16 << 10)    // bytes read ahead per slot while interleaving the slots
#define NPY_ALIGN 64             // the data starts at a multiple of this (numpy's own choice)
#define NPY_HEADER_MAX 512       // the longest header: 6 dimensions of 20 digits and padding

typedef struct npz_array {
  tf_npz_def def;  // def.name points at name
  char name[TF_NPZ_MAX_NAME];
  size_t itemsize;
  size_t rowbytes;   // bytes of one row (of one slot's row for SLOTS)
  FILE* f;           // the unlinked temporary file holding the rows
  long rows;         // rows in the file
  long* slot_rows;   // (nslot) SLOTS: rows of each slot
  long* slot_first;  // (nslot) SLOTS: the file row of each slot's first row
  int slot_last;     // SLOTS: the slot appended last, -1 before any
} npz_array;

struct tf_npz_writer {
  char path[TF_PATH_MAX];
  const volatile sig_atomic_t* cancel;
  npz_array* array;
  int narray, cap;
  char err[ERR_LEN];  // the first error; "" while none
};

// keeps the first error (the later ones are usually its consequences)
static int fail(tf_npz_writer* w, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(tf_npz_writer* w, const char* fmt, ...) {
  if (w->err[0]) return -1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(w->err, sizeof(w->err), fmt, ap);
  va_end(ap);
  return -1;
}

static size_t dtype_size(tf_npz_dtype dtype, int itemsize) {
  switch (dtype) {
    case TF_NPZ_F64:
    case TF_NPZ_I64:
      return 8;
    case TF_NPZ_I32:
      return 4;
    case TF_NPZ_U8:
      return 1;
    case TF_NPZ_BYTES:
      return itemsize > 0 ? (size_t)itemsize : 0;
  }
  return 0;
}

// a temporary file in path's folder, unlinked at once: it lives as long as the descriptor, so
// no exit of any kind leaves it behind. NULL with errno set when it cannot be made
static FILE* temp_file(const char* path) {
  char tmp[TF_PATH_MAX + 16];
  snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) return NULL;
  unlink(tmp);
  FILE* f = fdopen(fd, "w+b");
  if (!f) {
    int e = errno;
    close(fd);
    errno = e;
    return NULL;
  }
  setvbuf(f, NULL, _IOFBF, WRITE_BUFFER);
  return f;
}

tf_npz_writer* tf_npz_open(const char* path, const volatile sig_atomic_t* cancel, char* err,
                           size_t errlen) {
  size_t len = strlen(path);
  if (len == 0) {
    snprintf(err, errlen, "(empty path): cannot write a file without a name");
    return NULL;
  }
  // the temporary names add ".tmp.XXXXXX" and libzip's ".XXXXXX"
  if (len + 24 >= TF_PATH_MAX) {
    snprintf(err, errlen, "%.64s...: path too long", path);
    return NULL;
  }
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    snprintf(err, errlen, "%s: is a folder", path);
    return NULL;
  }
  // the folder must take new files: find out now, before a long run, not at its end
  FILE* probe = temp_file(path);
  if (!probe) {
    snprintf(err, errlen, "%s: cannot create a file in its folder: %s", path, strerror(errno));
    return NULL;
  }
  fclose(probe);
  tf_npz_writer* w = calloc(1, sizeof(*w));
  if (!w) {
    snprintf(err, errlen, "%s: out of memory", path);
    return NULL;
  }
  memcpy(w->path, path, len + 1);
  w->cancel = cancel;
  return w;
}

const char* tf_npz_error(const tf_npz_writer* w) { return w->err; }

// the definition's problem, or NULL when it is sound
static const char* check_def(const tf_npz_writer* w, const tf_npz_def* def) {
  size_t n = def->name ? strlen(def->name) : 0;
  if (n == 0 || n > TF_NPZ_MAX_NAME - 5) return "name must have 1 to 59 characters";
  if (strspn(def->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != n) {
    return "name may hold letters, digits and '_' only";
  }
  for (int i = 0; i < w->narray; i++) {
    if (strcmp(w->array[i].name, def->name) == 0) return "declared twice";
  }
  if ((int)def->dtype < 0 || def->dtype > TF_NPZ_BYTES) return "unknown dtype";
  if (def->dtype == TF_NPZ_BYTES && def->itemsize < 1) return "byte strings need an itemsize";
  if ((int)def->kind < 0 || def->kind > TF_NPZ_WHOLE) return "unknown kind";
  int lead = def->kind == TF_NPZ_ROWS ? 1 : def->kind == TF_NPZ_SLOTS ? 2 : 0;
  if (def->ndim < 0 || def->ndim + lead > TF_NPZ_MAX_DIM) return "too many dimensions";
  if (def->kind == TF_NPZ_SLOTS && def->nslot < 1) return "needs at least one slot";
  double elements = 1;
  for (int k = 0; k < def->ndim; k++) {
    if (def->shape[k] < 0) return "negative dimension";
    elements *= (double)def->shape[k];
  }
  // a row of more than a TiB is a caller's mistake, and would overflow the byte counts
  if (elements * (double)dtype_size(def->dtype, def->itemsize) > 1099511627776.0) {
    return "rows too large";
  }
  return NULL;
}

int tf_npz_declare(tf_npz_writer* w, const tf_npz_def* def) {
  if (w->err[0]) return -1;
  const char* why = check_def(w, def);
  if (why) return fail(w, "%s: array '%s': %s", w->path, def->name ? def->name : "", why);
  if (w->narray == w->cap) {
    int cap = w->cap ? 2 * w->cap : 16;
    npz_array* grown = realloc(w->array, sizeof(npz_array) * (size_t)cap);
    if (!grown) return fail(w, "%s: out of memory", w->path);
    w->array = grown;
    w->cap = cap;
  }
  npz_array* a = &w->array[w->narray];
  memset(a, 0, sizeof(*a));
  a->def = *def;
  snprintf(a->name, sizeof(a->name), "%s", def->name);
  a->def.name = a->name;
  a->itemsize = dtype_size(def->dtype, def->itemsize);
  a->rowbytes = a->itemsize;
  for (int k = 0; k < def->ndim; k++) a->rowbytes *= (size_t)def->shape[k];
  a->slot_last = -1;
  if (def->kind == TF_NPZ_SLOTS) {
    a->slot_rows = calloc((size_t)def->nslot, sizeof(long));
    a->slot_first = calloc((size_t)def->nslot, sizeof(long));
    if (!a->slot_rows || !a->slot_first) {
      free(a->slot_rows);
      free(a->slot_first);
      return fail(w, "%s: out of memory", w->path);
    }
  }
  a->f = temp_file(w->path);
  if (!a->f) {
    int e = errno;
    free(a->slot_rows);
    free(a->slot_first);
    return fail(w, "%s: cannot create a temporary file in its folder: %s", w->path, strerror(e));
  }
  return w->narray++;
}

// nrow rows of a into its file
static int write_rows(tf_npz_writer* w, npz_array* a, const void* rows, long nrow) {
  if (nrow < 0) return fail(w, "%s: array '%s': %ld rows", w->path, a->name, nrow);
  if (a->rowbytes > 0 && nrow > 0 &&
      fwrite(rows, a->rowbytes, (size_t)nrow, a->f) != (size_t)nrow) {
    return fail(w, "%s: cannot write the data of array '%s': %s", w->path, a->name,
                strerror(errno ? errno : EIO));
  }
  a->rows += nrow;
  return 0;
}

int tf_npz_append(tf_npz_writer* w, int id, const void* rows, long nrow) {
  if (w->err[0]) return -1;
  if (id < 0 || id >= w->narray) return fail(w, "%s: no array %d", w->path, id);
  npz_array* a = &w->array[id];
  if (a->def.kind == TF_NPZ_SLOTS) {
    return fail(w, "%s: array '%s' takes rows per slot", w->path, a->name);
  }
  if (a->def.kind == TF_NPZ_WHOLE && a->rows + nrow > 1) {
    return fail(w, "%s: array '%s' is written once", w->path, a->name);
  }
  return write_rows(w, a, rows, nrow);
}

int tf_npz_append_slot(tf_npz_writer* w, int id, int slot, const void* rows, long nrow) {
  if (w->err[0]) return -1;
  if (id < 0 || id >= w->narray) return fail(w, "%s: no array %d", w->path, id);
  npz_array* a = &w->array[id];
  if (a->def.kind != TF_NPZ_SLOTS) {
    return fail(w, "%s: array '%s' has no slots", w->path, a->name);
  }
  if (slot < 0 || slot >= a->def.nslot) {
    return fail(w, "%s: array '%s': slot %d out of range [0, %d)", w->path, a->name, slot,
                a->def.nslot);
  }
  if (slot != a->slot_last) {
    // each slot is one stretch of the file: a slot resumed after another would need a map
    // of stretches that grows with the run
    if (a->slot_rows[slot] > 0) {
      return fail(w, "%s: array '%s': slot %d appended again after slot %d", w->path, a->name, slot,
                  a->slot_last);
    }
    a->slot_first[slot] = a->rows;
    a->slot_last = slot;
  }
  if (write_rows(w, a, rows, nrow)) return -1;
  a->slot_rows[slot] += nrow;
  return 0;
}

int tf_npz_put(tf_npz_writer* w, const char* name, tf_npz_dtype dtype, int itemsize, int ndim,
               const long* shape, const void* data) {
  tf_npz_def def;
  memset(&def, 0, sizeof(def));
  def.name = name;
  def.dtype = dtype;
  def.itemsize = itemsize;
  def.kind = TF_NPZ_WHOLE;
  def.ndim = ndim;
  for (int k = 0; k < ndim && k < TF_NPZ_MAX_DIM; k++) def.shape[k] = shape[k];
  int id = tf_npz_declare(w, &def);
  if (id < 0) return -1;
  return tf_npz_append(w, id, data, 1);
}

static void free_arrays(tf_npz_writer* w) {
  for (int i = 0; i < w->narray; i++) {
    if (w->array[i].f) fclose(w->array[i].f);
    free(w->array[i].slot_rows);
    free(w->array[i].slot_first);
  }
  free(w->array);
  free(w);
}

void tf_npz_abort(tf_npz_writer* w) {
  if (w) free_arrays(w);
}

// ---- the archive

// one member while libzip reads it: the npy header, then the array's data (for SLOTS the
// slots' rows interleaved, each slot read ahead through a small cache)
typedef struct npz_member {
  tf_npz_writer* w;
  npz_array* a;
  char header[NPY_HEADER_MAX];
  size_t hlen;
  long nrow;              // the leading dimension (ROWS, SLOTS)
  zip_uint64_t total;     // header and data bytes
  zip_uint64_t pos;       // bytes handed to libzip so far
  unsigned char* fill;    // SLOTS: one row of the fill value
  unsigned char** cache;  // SLOTS: (nslot) read-ahead rows of each slot, NULL until used
  long* cache_first;      // (nslot) the slot row cache[s] starts at
  long* cache_count;      // (nslot) rows in cache[s]
  long cache_rows;        // rows a cache holds
  zip_error_t error;
  char why[ERR_LEN];  // our own account of a failure, better than libzip's code
} npz_member;

static const char* descr(const npz_array* a, char* buf, size_t n) {
  switch (a->def.dtype) {
    case TF_NPZ_F64:
      return "<f8";
    case TF_NPZ_I32:
      return "<i4";
    case TF_NPZ_I64:
      return "<i8";
    case TF_NPZ_U8:
      return "|u1";
    case TF_NPZ_BYTES:
      snprintf(buf, n, "|S%zu", a->itemsize);
      return buf;
  }
  return "";
}

// the member's header and sizes
static void member_layout(npz_member* s) {
  const npz_array* a = s->a;
  long dims[TF_NPZ_MAX_DIM];
  int ndim = 0;
  s->nrow = a->rows;
  if (a->def.kind == TF_NPZ_SLOTS) {
    s->nrow = 0;
    for (int k = 0; k < a->def.nslot; k++) {
      if (a->slot_rows[k] > s->nrow) s->nrow = a->slot_rows[k];
    }
  }
  if (a->def.kind != TF_NPZ_WHOLE) dims[ndim++] = s->nrow;
  if (a->def.kind == TF_NPZ_SLOTS) dims[ndim++] = a->def.nslot;
  for (int k = 0; k < a->def.ndim; k++) dims[ndim++] = a->def.shape[k];
  char shape[256], type[32];
  size_t at = (size_t)snprintf(shape, sizeof(shape), "(");
  for (int k = 0; k < ndim; k++) {
    at += (size_t)snprintf(shape + at, sizeof(shape) - at, "%s%ld", k ? ", " : "", dims[k]);
  }
  // a one-element tuple needs its comma: (5,)
  snprintf(shape + at, sizeof(shape) - at, "%s)", ndim == 1 ? "," : "");
  int n = snprintf(s->header + 10, sizeof(s->header) - 10,
                   "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                   descr(a, type, sizeof(type)), shape);
  size_t len = 10 + (size_t)n + 1;  // with the closing '\n'
  size_t padded = (len + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
  memset(s->header + 10 + n, ' ', padded - len);
  s->header[padded - 1] = '\n';
  memcpy(s->header, "\x93NUMPY\x01\x00", 8);
  size_t hl = padded - 10;
  s->header[8] = (char)(hl & 0xff);
  s->header[9] = (char)(hl >> 8);
  s->hlen = padded;
  zip_uint64_t data = (zip_uint64_t)a->rowbytes;
  if (a->def.kind == TF_NPZ_ROWS) data *= (zip_uint64_t)s->nrow;
  if (a->def.kind == TF_NPZ_SLOTS) data *= (zip_uint64_t)s->nrow * (zip_uint64_t)a->def.nslot;
  s->total = s->hlen + data;
}

// the fill value as one row of the array's dtype
static int member_fill_row(npz_member* s) {
  const npz_array* a = s->a;
  s->fill = calloc(1, a->rowbytes ? a->rowbytes : 1);
  if (!s->fill) return -1;
  double x = a->def.fill;
  size_t n = a->itemsize ? a->rowbytes / a->itemsize : 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char* e = s->fill + i * a->itemsize;
    // a NaN has no integer value: integer arrays pad with 0 then
    int64_t whole = isfinite(x) ? (int64_t)x : 0;
    if (a->def.dtype == TF_NPZ_F64) {
      memcpy(e, &x, 8);
    } else if (a->def.dtype == TF_NPZ_I64) {
      memcpy(e, &whole, 8);
    } else if (a->def.dtype == TF_NPZ_I32) {
      int32_t v = (int32_t)whole;
      memcpy(e, &v, 4);
    } else if (a->def.dtype == TF_NPZ_U8) {
      *e = (unsigned char)whole;
    }  // byte strings pad with NULs
  }
  return 0;
}

static void member_release(npz_member* s) {
  for (int k = 0; s->cache && k < s->a->def.nslot; k++) free(s->cache[k]);
  free(s->cache);
  free(s->cache_first);
  free(s->cache_count);
  free(s->fill);
  s->cache = NULL;
  s->cache_first = s->cache_count = NULL;
  s->fill = NULL;
}

// records a failure for libzip (code, errno) and for the user (why); returns -1
static zip_int64_t member_fail(npz_member* s, int code, int sys, const char* why) {
  zip_error_set(&s->error, code, sys);
  if (!s->why[0]) {
    snprintf(s->why, sizeof(s->why), "%s%s%s", why, sys ? ": " : "", sys ? strerror(sys) : "");
  }
  return -1;
}

// n bytes at offset off of fd, all of them
static int read_at(int fd, void* buf, size_t n, off_t off) {
  unsigned char* p = buf;
  while (n > 0) {
    ssize_t got = pread(fd, p, n, off);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      if (got == 0) errno = EIO;  // the file is shorter than its rows: it was cut
      return -1;
    }
    p += got, off += got, n -= (size_t)got;
  }
  return 0;
}

// row t of slot k, through the slot's read-ahead cache; NULL with errno on a read error
static const unsigned char* slot_row(npz_member* s, int k, long t) {
  const npz_array* a = s->a;
  if (!s->cache[k]) {
    s->cache[k] = malloc(a->rowbytes * (size_t)s->cache_rows);
    if (!s->cache[k]) {
      errno = ENOMEM;
      return NULL;
    }
    s->cache_count[k] = 0;
  }
  if (t < s->cache_first[k] || t >= s->cache_first[k] + s->cache_count[k]) {
    long n = a->slot_rows[k] - t;
    if (n > s->cache_rows) n = s->cache_rows;
    off_t off = (off_t)(a->slot_first[k] + t) * (off_t)a->rowbytes;
    if (read_at(fileno(a->f), s->cache[k], (size_t)n * a->rowbytes, off)) return NULL;
    s->cache_first[k] = t;
    s->cache_count[k] = n;
  }
  return s->cache[k] + (size_t)(t - s->cache_first[k]) * a->rowbytes;
}

// up to len bytes of the member from s->pos
static zip_int64_t member_read(npz_member* s, unsigned char* out, zip_uint64_t len) {
  if (s->w->cancel && *s->w->cancel) return member_fail(s, ZIP_ER_CANCELLED, 0, "interrupted");
  const npz_array* a = s->a;
  zip_uint64_t done = 0;
  while (done < len && s->pos < s->total) {
    zip_uint64_t n = len - done;
    if (s->pos < s->hlen) {
      if (n > s->hlen - s->pos) n = s->hlen - s->pos;
      memcpy(out + done, s->header + s->pos, n);
    } else if (a->def.kind != TF_NPZ_SLOTS) {
      if (n > s->total - s->pos) n = s->total - s->pos;
      if (read_at(fileno(a->f), out + done, n, (off_t)(s->pos - s->hlen))) {
        return member_fail(s, ZIP_ER_READ, errno, "cannot read back its data");
      }
    } else {
      // output row r is slot r % nslot's row r / nslot
      zip_uint64_t at = s->pos - s->hlen;
      zip_uint64_t r = at / a->rowbytes, within = at % a->rowbytes;
      if (n > a->rowbytes - within) n = a->rowbytes - within;
      int k = (int)(r % (zip_uint64_t)a->def.nslot);
      long t = (long)(r / (zip_uint64_t)a->def.nslot);
      const unsigned char* row = s->fill;
      if (t < a->slot_rows[k]) {
        row = slot_row(s, k, t);
        if (!row) return member_fail(s, ZIP_ER_READ, errno, "cannot read back its data");
      }
      memcpy(out + done, row + within, n);
    }
    done += n;
    s->pos += n;
  }
  return (zip_int64_t)done;
}

static zip_int64_t member_callback(void* user, void* data, zip_uint64_t len, zip_source_cmd_t cmd) {
  npz_member* s = user;
  switch (cmd) {
    case ZIP_SOURCE_OPEN:
      s->pos = 0;
      for (int k = 0; s->cache_count && k < s->a->def.nslot; k++) s->cache_count[k] = 0;
      return 0;
    case ZIP_SOURCE_READ:
      return member_read(s, data, len);
    case ZIP_SOURCE_CLOSE:
      return 0;
    case ZIP_SOURCE_STAT: {
      zip_stat_t* st = ZIP_SOURCE_GET_ARGS(zip_stat_t, data, len, &s->error);
      if (!st) return -1;
      zip_stat_init(st);
      st->size = s->total;
      st->valid |= ZIP_STAT_SIZE;
      return sizeof(*st);
    }
    case ZIP_SOURCE_ERROR:
      return zip_error_to_data(&s->error, data, len);
    case ZIP_SOURCE_FREE:
      return 0;  // the member belongs to tf_npz_close
    case ZIP_SOURCE_SUPPORTS:
      return zip_source_make_command_bitmap(ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE,
                                            ZIP_SOURCE_STAT, ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE, -1);
    default:
      zip_error_set(&s->error, ZIP_ER_OPNOTSUPP, 0);
      return -1;
  }
}

// prepares member s of array a: header, sizes, and for SLOTS the fill row and caches
static int member_init(npz_member* s, tf_npz_writer* w, npz_array* a) {
  memset(s, 0, sizeof(*s));
  s->w = w;
  s->a = a;
  zip_error_init(&s->error);
  member_layout(s);
  if (a->def.kind != TF_NPZ_SLOTS || a->rowbytes == 0) return 0;
  int n = a->def.nslot;
  s->cache_rows = SLOT_CACHE / (long)a->rowbytes;
  if (s->cache_rows < 1) s->cache_rows = 1;
  s->cache = calloc((size_t)n, sizeof(unsigned char*));
  s->cache_first = calloc((size_t)n, sizeof(long));
  s->cache_count = calloc((size_t)n, sizeof(long));
  if (!s->cache || !s->cache_first || !s->cache_count || member_fill_row(s)) return -1;
  return 0;
}

// the archive of every array at tmp (an existing empty file), written by libzip; 0, or -1
// with the message in w->err (libzip removes its own temporary file on failure)
static int write_zip(tf_npz_writer* w, const char* tmp, npz_member* members) {
  int code = 0;
  zip_t* za = zip_open(tmp, ZIP_TRUNCATE, &code);
  if (!za) {
    zip_error_t ze;
    zip_error_init_with_code(&ze, code);
    fail(w, "%s: cannot start the archive: %s", w->path, zip_error_strerror(&ze));
    zip_error_fini(&ze);
    return -1;
  }
  for (int i = 0; i < w->narray; i++) {
    npz_member* s = &members[i];
    if (member_init(s, w, &w->array[i])) {
      zip_discard(za);
      return fail(w, "%s: out of memory", w->path);
    }
    char name[TF_NPZ_MAX_NAME + 8];
    snprintf(name, sizeof(name), "%s.npy", w->array[i].name);
    zip_source_t* src = zip_source_function(za, member_callback, s);
    zip_int64_t index = src ? zip_file_add(za, name, src, ZIP_FL_ENC_UTF_8) : -1;
    if (index < 0 || zip_set_file_compression(za, (zip_uint64_t)index, ZIP_CM_STORE, 0) != 0) {
      fail(w, "%s: cannot add %s: %s", w->path, name, zip_strerror(za));
      if (src && index < 0) zip_source_free(src);
      zip_discard(za);
      return -1;
    }
  }
  if (zip_close(za) == 0) return 0;
  // our own account of a member's failure first: it names the array and the cause
  for (int i = 0; i < w->narray; i++) {
    if (members[i].why[0]) {
      if (w->cancel && *w->cancel) {
        fail(w, "%s: interrupted", w->path);
      } else {
        fail(w, "%s: array '%s': %s", w->path, w->array[i].name, members[i].why);
      }
    }
  }
  fail(w, "%s: cannot write the archive: %s", w->path, zip_strerror(za));
  zip_discard(za);
  return -1;
}

// fsync of a file by name; 0, or -1 with errno
static int sync_path(const char* path) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return -1;
  int rc = fsync(fd);
  int e = errno;
  close(fd);
  errno = e;
  return rc;
}

// the checks and the archive, up to its rename; 0 or -1 with w->err
static int close_checked(tf_npz_writer* w) {
  if (w->err[0]) return -1;
  if (w->narray == 0) return fail(w, "%s: no arrays to write", w->path);
  for (int i = 0; i < w->narray; i++) {
    npz_array* a = &w->array[i];
    if (a->def.kind == TF_NPZ_WHOLE && a->rows != 1) {
      return fail(w, "%s: array '%s' was never written", w->path, a->name);
    }
    // the buffered tail, so that reading the file back sees every row; a full disk shows here
    if (fflush(a->f) != 0 || ferror(a->f)) {
      return fail(w, "%s: cannot write the data of array '%s': %s", w->path, a->name,
                  strerror(errno ? errno : EIO));
    }
  }
  if (w->cancel && *w->cancel) return fail(w, "%s: interrupted", w->path);
  char tmp[TF_PATH_MAX + 16];
  snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", w->path);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    return fail(w, "%s: cannot create a temporary file in its folder: %s", w->path,
                strerror(errno));
  }
  // mkstemp makes the file 0600 and libzip keeps the mode of the file it replaces; a
  // recording is an ordinary file
  if (fchmod(fd, 0644) != 0) {
    // not fatal: the file stays private to the user
  }
  close(fd);
  npz_member* members = calloc((size_t)w->narray, sizeof(npz_member));
  int rc = members ? write_zip(w, tmp, members) : fail(w, "%s: out of memory", w->path);
  for (int i = 0; members && i < w->narray; i++) {
    if (members[i].a) member_release(&members[i]);
    zip_error_fini(&members[i].error);
  }
  free(members);
  if (rc == 0 && sync_path(tmp) != 0) {
    rc = fail(w, "%s: fsync failed: %s", w->path, strerror(errno));
  }
  if (rc == 0 && rename(tmp, w->path) != 0) {
    rc = fail(w, "%s: cannot rename into place: %s", w->path, strerror(errno));
  }
  if (rc != 0) {
    unlink(tmp);
    return -1;
  }
  tf_sync_folder(w->path);
  return 0;
}

int tf_npz_close(tf_npz_writer* w, char* err, size_t errlen) {
  int rc = close_checked(w);
  if (rc) snprintf(err, errlen, "%s", w->err);
  free_arrays(w);
  return rc;
}
