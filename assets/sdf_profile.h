// Meridional sections: the distance to parts of revolution and to screw threads from their
// 2D (r, z) profiles, and the meshes swept from those profiles (private to assets/).
//
// A part of revolution or a screw thread is described, in the half-plane at angle theta
// around z, by its section: a polyline in (r, z) with the material on its left. Every vertex
// and every segment also carries its velocity w = d(r, z)/d(theta): zero for a surface of
// revolution, (0, lead) for a thread's corner or flank, something in between for the point
// where a flank is cut by a chamfer. See sdf_profile.c for the distance and its accuracy.
#ifndef TF_SDF_PROFILE_H
#define TF_SDF_PROFILE_H

#define TF_PROFILE_MAXKINK 32  // corners of one thread period
#define TF_PROFILE_MAXLINE 4   // static lines clamping a thread from below or above
#define TF_PROFILE_MAXKEY 8    // features one mesh vertex can be
#define TF_PROFILE_MAXEVENT 4  // feature ends a query remembers
#define TF_PROFILE_MAXCAND 4   // nearest moving features a query polishes

// a vertex of a section: where it is and how it moves as theta turns
typedef struct tf_profile_vertex {
  double p[2];    // (r, z), m
  double w[2];    // d(r, z) / d(theta), m / rad
  double phi[2];  // the turn (rad, relative) over which it stays this vertex; 0, 0: only here
  int key[TF_PROFILE_MAXKEY];  // which features meet here (mesh stitching); nkey of them
  int nkey;
} tf_profile_vertex;

// a feature as seen from the query point: X(s, phi) = turn(phi)(a + s u + phi w), s within
// [(phi - base) ka, len + (phi - base) kb] for a segment (s = 0, u = 0 for a vertex), phi
// within [lo, hi]; (s, phi) its point nearest the query, at dist
typedef struct tf_profile_feature {
  int moving, segment;
  double a[2], u[2], w[2];
  double len, base, ka, kb, lo, hi;
  double s, phi, dist;
  double normal[2];  // outward (r, z) normal
} tf_profile_feature;

// the nearest surface point found so far for one query point
typedef struct tf_profile_query {
  double rho, z;     // the query point in its own half-plane (r >= 0)
  double base;       // angle of the section being queried, relative to the point's (rad)
  double dist;       // distance to the nearest feature so far (m), 3D
  double off[3];     // query point - nearest point, in (e_r, e_theta, e_z) at the query
  double normal[2];  // outward (r, z) normal of the nearest feature, for dist == 0
  int ncand;         // the nearest moving features, ascending
  tf_profile_feature cand[TF_PROFILE_MAXCAND];
  // angles (relative) just past where a feature ended while still coming nearer, and how
  // near it came: the section there may hold a nearer feature that the query's own lacks
  int nevent;
  double event[TF_PROFILE_MAXEVENT];
  double event_dist[TF_PROFILE_MAXEVENT];
} tf_profile_query;

void tf_profile_query_init(tf_profile_query* q, double rho, double z);
// (the features below belong to the section at angle q->base relative to the query point)
// the curve swept by vertex v; normal: an outward normal to report if the point is on it
void tf_profile_query_vertex(tf_profile_query* q, const tf_profile_vertex* v,
                             const double normal[2]);
// the surface swept by segment a -> b whose line moves with w (material on its left unless
// flip)
void tf_profile_query_segment(tf_profile_query* q, const tf_profile_vertex* a,
                              const tf_profile_vertex* b, const double w[2], int flip);
// a polyline of n vertices; segw (n - 1 x 2) the line velocities, NULL for all static
void tf_profile_query_polyline(tf_profile_query* q, const tf_profile_vertex* v, int n,
                               const double* segw, int flip);
// A static polyline (a solid of revolution: every w and phi zero) with what its queries
// share worked out once: the segments' unit directions, lengths and normals and the vertices'
// normals, each with the arithmetic tf_profile_query_polyline does per query
#define TF_PROFILE_STATIC_MAXV 16
typedef struct tf_profile_static {
  int n;
  double p[TF_PROFILE_STATIC_MAXV][2];        // the vertices (r, z)
  double u[TF_PROFILE_STATIC_MAXV][2];        // segment i -> i + 1: unit direction
  double len[TF_PROFILE_STATIC_MAXV];         // its length (0: no segment)
  double uw[TF_PROFILE_STATIC_MAXV];          // u . w with w zero: a signed zero
  double normal[TF_PROFILE_STATIC_MAXV][2];   // its outward normal
  double vnormal[TF_PROFILE_STATIC_MAXV][2];  // vertex i's normal (its segments' mean)
} tf_profile_static;

// the table of n (<= TF_PROFILE_STATIC_MAXV) static vertices, material left unless flip;
// returns 0, or -1 when n is out of range
int tf_profile_static_init(tf_profile_static* t, const tf_profile_vertex* v, int n, int flip);

// the nearest point of the static polyline to (rho, z), into dist, off and normal of q as
// tf_profile_query_init then tf_profile_query_polyline(q, v, n, NULL, flip) leave them, to
// the bit; nothing else of q is set (no candidates, no events: a static feature has neither)
void tf_profile_query_static(tf_profile_query* q, double rho, double z, const tf_profile_static* t);

// polishes the nearest points with Newton steps on the exact distance to their features
// (the closed-form points are exact to second order in the turn)
void tf_profile_query_refine(tf_profile_query* q);
// the outward unit gradient of the distance found (inside: the material side), in x y z, at
// the query point's angle (cos, sin)
void tf_profile_query_gradient(double grad[3], const tf_profile_query* q, double c, double s,
                               int inside);

// ---------------------------------------------------------------- screw threads

// A single-start right-handed thread over z0 <= z <= z1, clamped by static lines: at angle
// theta its section radius is h(z) = min(max(f(z - pitch theta / 2 pi), lo...), hi...),
// with f the periodic profile through the kinks and the lines r = a + b z.
typedef struct tf_profile_thread {
  double pitch;  // m per turn
  int nkink;
  double kink[TF_PROFILE_MAXKINK][2];  // (r, zeta), zeta ascending within [0, pitch)
  double z0, z1;
  int nlo, nhi;
  double lo[TF_PROFILE_MAXLINE][2];  // (a, b): h is at least a + b z
  double hi[TF_PROFILE_MAXLINE][2];  // (a, b): h is at most a + b z
} tf_profile_thread;

// h(z) at angle theta (z clamped to the thread's length)
double tf_profile_thread_radius(const tf_profile_thread* t, double theta, double z);
// the graph of h over [za, zb] (within z0..z1), ascending: vertices with their velocities,
// segw (count - 1 x 2) the velocity of each segment's line; a vertex at za or zb that is
// not z0 / z1 is a cut (no key, moving with its line). Returns the count, -1 if over cap.
int tf_profile_thread_section(tf_profile_vertex* v, double* segw, int cap,
                              const tf_profile_thread* t, double theta, double za, double zb);
// the end vertex of the section at z0 (which = 0) or z1 (which = 1)
void tf_profile_thread_end(tf_profile_vertex* v, const tf_profile_thread* t, double theta,
                           int which);
// the angles in [0, 2 pi) where the section changes its corners (a kink crosses a static
// line or an end); returns the count, -1 if over cap
int tf_profile_thread_events(double* theta, int cap, const tf_profile_thread* t);

// ---------------------------------------------------------------- meshes

typedef struct tf_profile_mesh {
  double* vert;  // (nvert x 3)
  int nvert, capvert;
  int* face;  // (nface x 3)
  int nface, capface;
  int failed;  // an allocation failed or a section outgrew its buffer
} tf_profile_mesh;

int tf_profile_mesh_vertex(tf_profile_mesh* m, double x, double y, double z);
void tf_profile_mesh_face(tf_profile_mesh* m, int a, int b, int c);
void tf_profile_mesh_free(tf_profile_mesh* m);

// the station angles of a turn: uniform with spacing at most dmax, plus the events; returns
// the count written to theta (at most cap), -1 if over cap
int tf_profile_stations(double* theta, int cap, double dmax, const double* events, int nevents);
// the surface swept by a static polyline (material on the left) over a closed turn of
// stations; vertices with r = 0 become single poles. first / last (ntheta) get the
// indices of the first and last profile vertex at each station.
void tf_profile_mesh_lathe(tf_profile_mesh* m, int* first, int* last, const double (*prof)[2],
                           int n, const double* theta, int ntheta);
// the thread surface between z0 and z1 over a closed turn of stations (sorted, including
// every event); flip for material outside (a nut). first / last as for the lathe.
void tf_profile_mesh_thread(tf_profile_mesh* m, int* first, int* last, const tf_profile_thread* t,
                            const double* theta, int ntheta, int flip);
// a ring on a regular polygon (sides, apothem, first flat's normal at angle rot) in the plane
// z: one vertex per station angle plus the corners, in angle order; idx / ang (ntheta +
// sides) receive indices and angles; returns the count
int tf_profile_mesh_polygon_ring(tf_profile_mesh* m, int* idx, double* ang, const double* theta,
                                 int ntheta, int sides, double apothem, double rot, double z);
// the flat annulus between an inner ring at the station angles and an outer polygon ring
// holding the same angles; up: the face looks along +z
void tf_profile_mesh_zip(tf_profile_mesh* m, const int* inner, const double* theta, int ntheta,
                         const int* outer, const double* outer_ang, int nouter, int up);
// quads between two closed rings of n vertices each, a[i] above b[i], facing away from the
// axis (flip: towards it)
void tf_profile_mesh_strip(tf_profile_mesh* m, const int* a, const int* b, int n, int flip);
// triangles from a centre to a closed counter-clockwise ring, facing +z (flip: -z)
void tf_profile_mesh_fan(tf_profile_mesh* m, int centre, const int* ring, int n, int flip);

#endif  // TF_SDF_PROFILE_H
