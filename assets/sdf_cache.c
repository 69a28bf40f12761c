// The grid SDF cache (see sdf_cache.h).
//
// Key: FNV-1a 64 (h = 0xcbf29ce484222325; for each byte: h ^= byte, h *= 0x100000001b3) over a
// tag, the format version, the vertex and face counts, the vertex doubles and face ints as
// stored in memory, and the bake's nodes and padding. The entry's file is
// <dir>/sdf-<key in hex>.tfsdf.
//
// File layout (host byte order, flagged by a byte-order mark; offsets in bytes):
//     0 magic "TFSDFGRD"          8 u32 0x01020304 (byte order)   12 u32 version
//    16 u64 key                  24 i32 nvert, nface, nodes, padding, res[3], open edges,
//                                       non-manifold edges, 0
//    64 f64 origin[3], cell, aabb[6], error_bound
//   152 u64 payload bytes       160 u64 FNV-1a of the payload     168 u64 FNV-1a of bytes 0..167
//   176 payload: res[0] res[1] res[2] float32 values, x fastest
// A load trusts nothing until it has checked: the size against the header (truncated or
// padded), the magic, byte order and version (stale format), the header checksum, the key
// and the counts and resolution it repeats (stale: another mesh or resolution, or a hash
// collision), the payload size against res, then the payload checksum. Any failure rebakes
// and overwrites the entry atomically.
#include "sdf_cache.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error_message.h"

#define HEADER_BYTES 176
#define BYTE_ORDER_MARK 0x01020304u
static const char magic[8] = {'T', 'F', 'S', 'D', 'F', 'G', 'R', 'D'};

// FNV-1a 64 over n bytes, continuing from h
static uint64_t fnv1a(uint64_t h, const void* data, size_t n) {
  const unsigned char* b = data;
  for (size_t i = 0; i < n; i++) {
    h ^= b[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

#define FNV_OFFSET 0xcbf29ce484222325ull

uint64_t tf_sdf_cache_key(const double* vert, int nvert, const int* face, int nface,
                          const tf_sdf_bake_options* opt) {
  int32_t head[5] = {TF_SDF_CACHE_VERSION, nvert, nface, opt->nodes, opt->padding};
  uint64_t h = fnv1a(FNV_OFFSET, "tightfit-sdf-grid", 17);
  h = fnv1a(h, head, sizeof(head));
  h = fnv1a(h, vert, sizeof(double) * 3 * (size_t)(nvert > 0 ? nvert : 0));
  return fnv1a(h, face, sizeof(int) * 3 * (size_t)(nface > 0 ? nface : 0));
}

int tf_sdf_cache_dir(char* out, size_t outlen) {
  const char* off = getenv("TIGHTFIT_CACHE");
  if (off && (strcmp(off, "0") == 0 || strcmp(off, "off") == 0 || strcmp(off, "false") == 0)) {
    if (outlen) out[0] = 0;
    return 0;
  }
  const char* dir = getenv("TIGHTFIT_CACHE_DIR");
  const char* xdg = getenv("XDG_CACHE_HOME");
  const char* home = getenv("HOME");
  if (dir && dir[0]) {
    snprintf(out, outlen, "%s", dir);
  } else if (xdg && xdg[0] == '/') {
    snprintf(out, outlen, "%s/tightfit", xdg);
  } else if (home && home[0]) {
    snprintf(out, outlen, "%s/.cache/tightfit", home);
  } else {
    snprintf(out, outlen, ".tightfit-cache");
  }
  return 1;
}

// the header fields, in the order of the layout above
typedef struct entry_header {
  uint64_t key;
  int32_t counts[10];   // nvert, nface, nodes, padding, res[3], open, non-manifold, 0
  double geometry[11];  // origin[3], cell, aabb[6], error_bound
  uint64_t payload_bytes;
  uint64_t payload_sum;
} entry_header;

static void encode_header(unsigned char out[HEADER_BYTES], const entry_header* h) {
  uint32_t bom = BYTE_ORDER_MARK, version = TF_SDF_CACHE_VERSION;
  memset(out, 0, HEADER_BYTES);
  memcpy(out, magic, 8);
  memcpy(out + 8, &bom, 4);
  memcpy(out + 12, &version, 4);
  memcpy(out + 16, &h->key, 8);
  memcpy(out + 24, h->counts, 40);
  memcpy(out + 64, h->geometry, 88);
  memcpy(out + 152, &h->payload_bytes, 8);
  memcpy(out + 160, &h->payload_sum, 8);
  uint64_t sum = fnv1a(FNV_OFFSET, out, 168);
  memcpy(out + 168, &sum, 8);
}

// checks the header bytes; returns 0, or -1 with the reason in note
static int decode_header(entry_header* h, const unsigned char in[HEADER_BYTES], char* note,
                         size_t notelen) {
  uint32_t bom, version;
  uint64_t sum;
  memcpy(&bom, in + 8, 4);
  memcpy(&version, in + 12, 4);
  memcpy(&sum, in + 168, 8);
  if (memcmp(in, magic, 8) != 0) return tf_fail(note, notelen, "not a tightfit SDF cache file");
  if (bom != BYTE_ORDER_MARK)
    return tf_fail(note, notelen, "written on a machine of another byte order");
  if (version != TF_SDF_CACHE_VERSION) {
    return tf_fail(note, notelen, "stale: format version %u (this build uses %d)", version,
                   TF_SDF_CACHE_VERSION);
  }
  if (sum != fnv1a(FNV_OFFSET, in, 168)) return tf_fail(note, notelen, "corrupt header (checksum)");
  memset(h, 0, sizeof(*h));
  memcpy(&h->key, in + 16, 8);
  memcpy(h->counts, in + 24, 40);
  memcpy(h->geometry, in + 64, 88);
  memcpy(&h->payload_bytes, in + 152, 8);
  memcpy(&h->payload_sum, in + 160, 8);
  return 0;
}

// reads an entry; returns 0 (loaded), 1 (no entry) or -1 (bad entry, reason in note)
static int read_entry(tf_sdf_grid* out, int* open_edges, const char* path, uint64_t key, int nvert,
                      int nface, const tf_sdf_bake_options* opt, char* note, size_t notelen) {
  memset(out, 0, sizeof(*out));
  FILE* f = fopen(path, "rb");
  if (!f) {
    if (errno == ENOENT || errno == ENOTDIR) return 1;
    return tf_fail(note, notelen, "cannot open: %s", strerror(errno));
  }
  struct stat st;
  unsigned char bytes[HEADER_BYTES];
  entry_header h;
  memset(&h, 0, sizeof(h));
  int rc = -1;
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
    tf_fail(note, notelen, "not a regular file");
  } else if ((unsigned long long)st.st_size < HEADER_BYTES) {
    tf_fail(note, notelen, "truncated (%lld bytes, the header alone is %d)", (long long)st.st_size,
            HEADER_BYTES);
  } else if (fread(bytes, 1, HEADER_BYTES, f) != HEADER_BYTES) {
    tf_fail(note, notelen, "read error");
  } else if (decode_header(&h, bytes, note, notelen) == 0) {
    const int32_t* c = h.counts;
    uint64_t nodes = 1;
    int res_ok = 1;
    for (int a = 0; a < 3; a++) {
      res_ok = res_ok && c[4 + a] >= 2 && c[4 + a] <= 4096;
      nodes *= res_ok ? (uint64_t)c[4 + a] : 0;
    }
    int geometry_ok = isfinite(h.geometry[3]) && h.geometry[3] > 0;
    for (int k = 0; k < 11; k++) geometry_ok = geometry_ok && isfinite(h.geometry[k]);
    uint64_t want = HEADER_BYTES + h.payload_bytes;
    if (h.key != key || c[0] != nvert || c[1] != nface || c[2] != opt->nodes ||
        c[3] != opt->padding) {
      tf_fail(note, notelen, "stale: made for another mesh or resolution");
    } else if (!res_ok || !geometry_ok || h.payload_bytes != sizeof(float) * nodes) {
      tf_fail(note, notelen, "corrupt header (grid size or placement)");
    } else if ((uint64_t)st.st_size < want) {
      tf_fail(note, notelen, "truncated (%lld of %llu bytes)", (long long)st.st_size,
              (unsigned long long)want);
    } else if ((uint64_t)st.st_size > want) {
      tf_fail(note, notelen, "corrupt (%llu bytes past the payload)",
              (unsigned long long)((uint64_t)st.st_size - want));
    } else if (!(out->value = malloc((size_t)h.payload_bytes))) {
      tf_fail(note, notelen, "out of memory for %llu bytes", (unsigned long long)h.payload_bytes);
    } else if (fread(out->value, 1, (size_t)h.payload_bytes, f) != (size_t)h.payload_bytes) {
      tf_fail(note, notelen, "read error in the payload");
    } else if (fnv1a(FNV_OFFSET, out->value, (size_t)h.payload_bytes) != h.payload_sum) {
      tf_fail(note, notelen, "corrupt payload (checksum)");
    } else {
      for (int a = 0; a < 3; a++) {
        out->res[a] = c[4 + a];
        out->origin[a] = h.geometry[a];
      }
      out->cell = h.geometry[3];
      memcpy(out->aabb, h.geometry + 4, sizeof(out->aabb));
      out->error_bound = h.geometry[10];
      *open_edges = c[7] + c[8];
      rc = 0;
    }
  }
  fclose(f);
  if (rc) tf_sdf_grid_free(out);
  return rc;
}

// writes an entry atomically; returns 0, or -1 with the reason in note
static int write_entry(const char* dir, const char* path, const tf_sdf_grid* g, uint64_t key,
                       int nvert, int nface, const tf_sdf_bake_options* opt,
                       const tf_sdf_bake_stats* stats, char* note, size_t notelen) {
  if (tf_mkdir_p(dir, note, notelen)) return -1;
  entry_header h;
  memset(&h, 0, sizeof(h));
  h.key = key;
  int32_t counts[9] = {nvert,
                       nface,
                       opt->nodes,
                       opt->padding,
                       g->res[0],
                       g->res[1],
                       g->res[2],
                       stats->open_edges,
                       stats->nonmanifold_edges};
  memcpy(h.counts, counts, sizeof(counts));
  for (int a = 0; a < 3; a++) h.geometry[a] = g->origin[a];
  h.geometry[3] = g->cell;
  memcpy(h.geometry + 4, g->aabb, sizeof(g->aabb));
  h.geometry[10] = g->error_bound;
  size_t n = (size_t)g->res[0] * (size_t)g->res[1] * (size_t)g->res[2];
  h.payload_bytes = sizeof(float) * n;
  h.payload_sum = fnv1a(FNV_OFFSET, g->value, sizeof(float) * n);
  unsigned char bytes[HEADER_BYTES];
  encode_header(bytes, &h);
  tf_atomic_file file;
  if (tf_atomic_open(&file, path, note, notelen)) return -1;
  fwrite(bytes, 1, sizeof(bytes), file.f);
  fwrite(g->value, sizeof(float), n, file.f);
  return tf_atomic_commit(&file, note, notelen);
}

int tf_sdf_cache_load(tf_sdf_grid* out, tf_sdf_cache_info* info, const double* vert, int nvert,
                      const int* face, int nface, const tf_sdf_bake_options* opt, char* err,
                      size_t errlen) {
  double start = tf_clock();
  tf_sdf_cache_info local;
  if (!info) info = &local;
  memset(info, 0, sizeof(*info));
  memset(out, 0, sizeof(*out));
  char dir[TF_PATH_MAX - 64];
  if (!tf_sdf_cache_dir(dir, sizeof(dir))) {
    info->source = TF_SDF_CACHE_OFF;
    int rc = tf_sdf_bake(out, &info->bake, vert, nvert, face, nface, opt, err, errlen);
    info->seconds = tf_clock() - start;
    return rc;
  }
  uint64_t key = tf_sdf_cache_key(vert, nvert, face, nface, opt);
  snprintf(info->path, sizeof(info->path), "%s/sdf-%016llx.tfsdf", dir, (unsigned long long)key);
  char why[256] = "";
  int open_edges = 0;
  int found = read_entry(out, &open_edges, info->path, key, nvert, nface, opt, why, sizeof(why));
  if (found == 0) {
    if (open_edges && !opt->allow_open) {
      tf_sdf_grid_free(out);
      // the bake refuses this mesh; let it say so in its own words
    } else {
      info->source = TF_SDF_CACHE_HIT;
      info->seconds = tf_clock() - start;
      return 0;
    }
  }
  if (tf_sdf_bake(out, &info->bake, vert, nvert, face, nface, opt, err, errlen)) {
    info->seconds = tf_clock() - start;
    return -1;
  }
  info->source = found == 1 ? TF_SDF_CACHE_MISS : TF_SDF_CACHE_REBUILT;
  if (found < 0) snprintf(info->note, sizeof(info->note), "%s: %s; rebuilt", info->path, why);
  char store[256];
  if (write_entry(dir, info->path, out, key, nvert, nface, opt, &info->bake, store,
                  sizeof(store))) {
    size_t len = strlen(info->note);
    snprintf(info->note + len, sizeof(info->note) - len, "%snot stored: %s", len ? "; " : "",
             store);
  } else {
    info->stored = 1;
  }
  info->seconds = tf_clock() - start;
  return 0;
}
