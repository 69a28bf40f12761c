// The renderer's private types, shared by its files (render_*.c) and their test only.
//
// A frame runs three stages, each split over the renderer's threads with a barrier between:
//   1. pose   (render_frame.c)  scene vertices to world, view and ground-shadow positions,
//                               split by vertex ranges;
//   2. setup  (render_setup.c)  each triangle clipped to the view (near plane, a guard band,
//                               the section plane if any), projected to fixed-point sample
//                               coordinates, back faces culled (kept, marked, in a section),
//                               binned by horizontal band; thread t sets up the t-th contiguous
//                               range of triangles (its "chunk");
//   3. bands  (render_raster.c, render_shade.c)  each band of sample rows rasterised with a
//                               depth test, shadow coverage marked, shaded and resolved 2x2 to
//                               pixels; bands go to threads round robin.
// Determinism: stage 3 walks the chunks in order and each chunk's records in triangle order,
// so every band sees every triangle in the global order whatever the chunking, and edge
// functions are exact integers evaluated from absolute coordinates; a sample's value therefore
// does not depend on the thread count or on which thread drew it. Caches in the shading are
// keyed by record and hold values computed from the record alone.
#ifndef TF_RENDER_INTERNAL_H
#define TF_RENDER_INTERNAL_H

#include <stdint.h>

#include "render.h"

#define RENDER_SS 2                // supersampling: samples per pixel side
#define RENDER_BAND_ROWS 32        // sample rows per band (16 pixel rows)
#define RENDER_SUBPIXEL_BITS 8     // fixed point: 1/256 of a sample
#define RENDER_MAX_THREADS 64      // a sample's reference keeps the chunk in 6 bits
#define RENDER_REF_CHUNK_SHIFT 26  // ... and the record index in the 26 below
#define RENDER_REF_NONE UINT32_MAX
#define RENDER_MAX_CHUNK_RECORDS ((1 << RENDER_REF_CHUNK_SHIFT) - 2)

// ---------------------------------------------------------------- scene

typedef struct render_geom {
  int geom;      // model geom id; -1 for the floor, which lives in the world frame
  int body;      // model body id; -1 for the floor
  int plane;     // 1 for planes and the floor: drawn as a finite square, left out of bounds
  int receiver;  // 1 for the ground (the floor or a horizontal plane): takes shadows, casts none
  float rgb[3];  // albedo
  int vert_adr, vert_num;  // the geom's range of scene vertices
  int tri_adr, tri_num;    // the geom's range of scene triangles
} render_geom;

struct tf_render_scene {
  int model_ngeom;  // the model's counts, so that a frame can refuse another model's data
  int model_nbody;
  int ngeom;
  render_geom* geom;  // (ngeom) drawn geoms in model order, the floor last
  int nvert;
  double* vert;  // (nvert x 3) positions in the geom frame
  int ntri;
  int* tri;                 // (ntri x 3) scene vertex ids, counter-clockwise seen from outside
  int* tri_geom;            // (ntri) render geom of each triangle
  float* normal;            // (ntri x 9) unit normal at each corner, geom frame
  unsigned char* tri_flat;  // (ntri) 1 when the three corner normals are the same
  double ground_z;          // world height of the ground that shadows fall on
  double checker;           // m: side of the floor's checker squares (0: plain floor)
};

// a growable triangle mesh with corner normals, filled by the tessellators
typedef struct render_mesh {
  double* vert;  // (nvert x 3)
  int nvert, capvert;
  int* tri;       // (ntri x 3)
  float* normal;  // (ntri x 9)
  int ntri, captri;
  int failed;  // an allocation failed: the mesh is incomplete
} render_mesh;

// appends a vertex and returns its id (relative to the mesh), -1 after a failed allocation
int render_mesh_vertex(render_mesh* mesh, double x, double y, double z);
// appends a triangle of vertex ids with a normal per corner (geom frame, unit)
void render_mesh_triangle(render_mesh* mesh, int a, int b, int c, const double na[3],
                          const double nb[3], const double nc[3]);
void render_mesh_free(render_mesh* mesh);

// primitives in their geom frame (tightfit.h's tf_geom_type sizes), at a fixed resolution
void render_tessellate_sphere(render_mesh* mesh, double radius);
void render_tessellate_capsule(render_mesh* mesh, double radius, double half_length);
void render_tessellate_cylinder(render_mesh* mesh, double radius, double half_length);
void render_tessellate_box(render_mesh* mesh, const double half[3]);
// a square of side 2 half in the plane z = 0 around (cx, cy), facing +z
void render_tessellate_quad(render_mesh* mesh, double cx, double cy, double half);

// appends a triangle mesh (vertex ids relative to vert) with normals smoothed across edges
// whose faces meet at less than the crease angle, sharp across the rest
void render_mesh_append_smooth(render_mesh* mesh, const double* vert, int nvert, const int* face,
                               int nface);

// appends the surface of SDF geom g (no mesh attached) by surface nets over its box; d holds
// any pose of the model (kinematics done), used only to evaluate the SDF
void render_mesh_append_sdf(render_mesh* mesh, const tf_model* m, const tf_data* d, int g);

// ---------------------------------------------------------------- frame

// the camera of one frame, in the units the stages need
typedef struct render_view {
  double eye[3];
  double right[3], up[3], forward[3];  // orthonormal camera axes (world)
  double focal;                        // samples per unit of (lateral / depth)
  double near;                         // m: nearest drawn depth
  int width, height;                   // sample grid (RENDER_SS x the image)
  double guard;                        // samples of guard band beyond each image side
  double light[3];                     // unit, toward the key light (world)
  double half_vector[3];               // unit, between the light and the viewer (highlights)
  double inv_checker;                  // 1 / the floor's checker side (0: plain floor)
  int cut;                             // 1: parts are cut by the section plane
  double section[4];                   // camera space: a point c is kept when
                                       // section . (c, 1) >= 0
} render_view;

// a triangle ready to rasterise: fixed-point corners, covered sample range, attributes
typedef struct raster_tri {
  int32_t x[3], y[3];  // corners in 1/2^RENDER_SUBPIXEL_BITS sample units
  float invw[3];       // 1 / view depth at each corner (perspective-correct interpolation)
  int src;             // scene triangle
  int clip;            // -1: the corners are the source triangle's; else the clipped corners'
                       // source barycentrics are chunk clip[9 clip .. 9 clip + 8]
  int back;            // 1: a back face, seen only through a section cut (drawn as the cut)
  int xmin, xmax, ymin, ymax;  // samples whose centres may be inside (inclusive)
} raster_tri;

// a triangle of a part's shadow on the ground: coverage only
typedef struct shadow_tri {
  int32_t x[3], y[3];
  int xmin, xmax, ymin, ymax;
} shadow_tri;

// record ids of one band, in triangle order
typedef struct render_bin {
  int* idx;
  int n, cap;
} render_bin;

// what one thread's setup produced for its range of triangles
typedef struct render_chunk {
  raster_tri* tri;
  int ntri, captri;
  float* clip;  // (nclip x 9)
  int nclip, capclip;
  shadow_tri* shadow;
  int nshadow, capshadow;
  render_bin* bins;         // (nbin) by band
  render_bin* shadow_bins;  // (nbin)
  int nbin;
  int failed;  // out of memory: the frame fails
} render_chunk;

// one thread's scratch for a band of samples
typedef struct render_band {
  float* depth;   // 1 / view depth of the nearest surface so far, 0 = nothing
  uint32_t* ref;  // chunk << RENDER_REF_CHUNK_SHIFT | record, RENDER_REF_NONE: sky
  float* u;       // perspective-correct barycentrics of record corners 1 and 2
  float* v;
  unsigned char* shadow;  // 1 where a shadow triangle covers the sample
  int cap;                // samples allocated
} render_band;

struct tf_renderer {
  int threads;
  render_chunk chunk[RENDER_MAX_THREADS];
  render_band band[RENDER_MAX_THREADS];
  // per scene vertex, this frame: world position; camera coordinates (right, up, depth), the
  // view planes it lies outside of and, inside them all, its fixed-point sample position and
  // 1 / depth; the same for the point's shadow on the ground (casters only)
  double* world;           // (nvert x 3)
  double* view;            // (nvert x 3)
  unsigned char* outcode;  // (nvert) bit p set: outside view plane p
  int32_t* fixed;          // (nvert x 2)
  float* invw;             // (nvert)
  double* shadow_view;     // (nvert x 3)
  unsigned char* shadow_outcode;
  int32_t* shadow_fixed;  // (nvert x 2)
  int capvert;
  double* pose;         // (ngeom x 12) rotation (row-major) and position of each render geom
  float* ground_light;  // (ngeom x 2) light on a receiver's flat face: lit, in shadow
  int capgeom;
};

// everything the stages of one frame share (read-only during a stage)
typedef struct render_frame {
  const tf_render_scene* scene;
  const tf_data* data;
  tf_renderer* renderer;
  const tf_image* out;
  render_view view;
  int nband;
} render_frame;

// stage 1 helpers: signed distance of a camera-space point to clip plane `plane` (0 near,
// 1-4 the guard band's left, right, top, bottom, 5 the section; >= 0 inside), the outcode of
// all six (the section's bit only when the view cuts), and the fixed-point sample position of
// a point inside the view planes
#define RENDER_NPLANE 6
#define RENDER_VIEW_PLANES 0x1f  // outcode bits of the near plane and the guard band
#define RENDER_SECTION_PLANE 0x20
double render_plane_distance(const render_view* v, const double p[3], int plane);
unsigned char render_outcode(const render_view* v, const double p[3]);
void render_project(const render_view* v, const double p[3], int32_t xy[2]);

// stage 2 for chunk t: triangles [tri_begin, tri_end)
void render_setup_chunk(const render_frame* f, render_chunk* chunk, int tri_begin, int tri_end);
// stage 3 for one band: rasterise into the thread's band scratch
void render_raster_band(const render_frame* f, render_band* band, int b);
// before stage 3: the light on every receiver (flat, so one value per frame)
void render_shade_prepare(const render_frame* f);
// ... then shade its samples and write the band's pixel rows into f->out
void render_shade_band(const render_frame* f, const render_band* band, int b);

// the camera's frame for an image of width x height pixels; -1 with a message if unusable
int render_view_setup(render_view* v, const tf_camera* cam, int width, int height, char* err,
                      size_t errlen);

#endif  // TF_RENDER_INTERNAL_H
