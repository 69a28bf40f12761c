// Triangle meshes on disk: OBJ and STL (binary and ASCII) readers, exact vertex welding, and
// OBJ / binary STL writers. Readers reject every malformed input with -1 and a one-line
// message "FILE:LINE: problem" (binary STL: "FILE:byte OFFSET: problem"); they never trust a
// count before checking it against the data, cap sizes, and refuse NaN / inf vertices and
// out-of-range indices. Writers are atomic (file_io.h): a failed write leaves no file.
// Each reader has a memory variant (tf_mesh_parse_*) so fuzzers and tests need no disk.
#ifndef TF_MESH_IO_H
#define TF_MESH_IO_H

#include <stddef.h>

// limits every reader enforces (a 50M-triangle binary STL is 2.5 GB)
#define TF_MESH_MAX_TRIANGLES 50000000
#define TF_MESH_MAX_VERTICES 50000000
#define TF_MESH_MAX_FILE_BYTES ((size_t)4 << 30)

// a plain triangle mesh; free with tf_mesh_free
typedef struct tf_mesh {
  double* vert;  // (nvert x 3) positions
  int nvert;
  int* face;  // (nface x 3) vertex indices, counter-clockwise seen from outside
  int nface;
} tf_mesh;

void tf_mesh_free(tf_mesh* mesh);

// reads by extension (.obj, .stl; case-insensitive)
int tf_mesh_read(tf_mesh* out, const char* path, char* err, size_t errlen);
// OBJ: 'v' and 'f' lines; polygons are fan-triangulated; negative (relative) indices and the
// v/vt/vn forms are accepted; other statements (vt, vn, g, o, s, usemtl, ...) are ignored
int tf_mesh_read_obj(tf_mesh* out, const char* path, char* err, size_t errlen);
// STL, binary or ASCII (told apart by the binary size rule, then the 'solid' keyword);
// coincident vertices are welded (tf_mesh_weld)
int tf_mesh_read_stl(tf_mesh* out, const char* path, char* err, size_t errlen);

// the same from memory; name stands for the file in messages
int tf_mesh_parse_obj(tf_mesh* out, const char* data, size_t size, const char* name, char* err,
                      size_t errlen);
int tf_mesh_parse_stl(tf_mesh* out, const unsigned char* data, size_t size, const char* name,
                      char* err, size_t errlen);

// merges vertices with exactly equal positions (+0 and -0 are equal); deterministic: the
// merged vertex keeps the position of its first occurrence and vertices keep the order of
// their first occurrence. Returns 0, or -1 (out of memory; the mesh is left unchanged)
int tf_mesh_weld(tf_mesh* mesh, char* err, size_t errlen);

// the welding map alone: map[i] is the new index of vertex i (nvert entries), *nunique the
// number of distinct positions; returns 0 or -1 (out of memory)
int tf_vertex_weld_map(int* map, int* nunique, const double* vert, int nvert);

// checks counts, finite vertices and face indices in range; returns 0, or -1 with "NAME: problem"
int tf_mesh_check(const double* vert, int nvert, const int* face, int nface, const char* name,
                  char* err, size_t errlen);

// OBJ with %.17g coordinates (exact round trip), atomically
int tf_mesh_write_obj(const char* path, const tf_mesh* mesh, char* err, size_t errlen);
// binary STL (float coordinates, normals from the vertex order), atomically; the 80-byte
// header never starts with "solid", so readers cannot mistake it for ASCII
int tf_mesh_write_stl(const char* path, const tf_mesh* mesh, char* err, size_t errlen);

#endif  // TF_MESH_IO_H
