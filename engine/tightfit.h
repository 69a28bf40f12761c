// tightfit engine: the public API of the physics layer.
//
// The shape follows the MuJoCo split: a mutable, friendly tf_builder compiles into an
// immutable tf_model (flat arrays, indices not pointers, shareable between threads); each
// environment owns a tf_data holding everything that changes, carved from one allocation.
// Nothing in a step allocates, prints or touches global state.
//
// Conventions: SI units, double precision, z up, gravity along -z by default, quaternions
// (w, x, y, z). Spatial vectors are 6-vectors expressed in world axes about the world origin:
// a motion (angular w, linear v_O) where v_O is the velocity of the body point at the origin,
// and a force (moment about the origin n_O, force f).
#ifndef TIGHTFIT_H
#define TIGHTFIT_H

#include <stddef.h>
#include <stdint.h>

#define TF_VERSION "0.1.0"

// ---------------------------------------------------------------- enums

typedef enum tf_joint_type {
  TF_JOINT_FREE = 0,  // 7 qpos (pos, quat) / 6 dof (world linear velocity, body angular velocity)
  TF_JOINT_BALL,      // 4 qpos (quat) / 3 dof (angular velocity in the child frame)
  TF_JOINT_HINGE,     // 1 / 1: rotation about an axis through an anchor
  TF_JOINT_SLIDE,     // 1 / 1: translation along an axis
  TF_JOINT_NTYPE
} tf_joint_type;

typedef enum tf_integrator {
  TF_INTEGRATOR_EULER = 0,  // semi-implicit Euler; damping and servo gains implicit (default)
  TF_INTEGRATOR_RK4,        // classic RK4 (Munthe-Kaas on rotations); contact-free reference
  TF_INTEGRATOR_N
} tf_integrator;

typedef enum tf_actuator_type {
  TF_ACT_MOTOR = 0,  // force = gear * ctrl
  TF_ACT_POSITION,   // force = kp (ctrl - q) - kv qdot
  TF_ACT_VELOCITY,   // force = kv (ctrl - qdot)
  TF_ACT_NTYPE
} tf_actuator_type;

typedef enum tf_geom_type {
  TF_GEOM_PLANE = 0,  // infinite plane z = 0 of the geom frame, solid below (static only)
  TF_GEOM_SPHERE,     // size[0] radius
  TF_GEOM_CAPSULE,    // size[0] radius, size[1] half-length of the segment along z
  TF_GEOM_BOX,        // size[0..2] half-sizes
  TF_GEOM_CYLINDER,   // size[0] radius, size[1] half-length along z
  TF_GEOM_HULL,       // convex hull built by qhull from a point set (tf_builder_add_hull)
  TF_GEOM_MESH,       // triangle mesh (tf_builder_add_mesh); collides through a baked SDF
  TF_GEOM_SDF,        // signed distance field, analytic or grid (tf_builder_add_sdf)
  TF_GEOM_NTYPE
} tf_geom_type;

typedef enum tf_solver_type {
  TF_SOLVER_PGS = 0,   // projected Gauss-Seidel on the dual, elliptic cones
  TF_SOLVER_NEWTON,    // soft convex primal Newton (MuJoCo's formulation)
  TF_SOLVER_AL,        // augmented Lagrangian + semismooth Newton (CRISP's CANAL)
  TF_SOLVER_ADMM,      // subsystem-split ADMM (CRISP's SubADMM)
  TF_SOLVER_FBNEWTON,  // non-smooth Newton on Fischer-Burmeister residuals (Ostrich)
  TF_SOLVER_N
} tf_solver_type;

typedef enum tf_equality_type {
  TF_EQ_CONNECT = 0,  // a point of body1 stays on a point of body2 (3 rows)
  TF_EQ_WELD,         // body2 keeps its pose relative to body1 at qpos0 (6 rows)
  TF_EQ_NTYPE
} tf_equality_type;

typedef enum tf_timer {
  TF_TIMER_STEP = 0,
  TF_TIMER_KINEMATICS,   // poses, com, motion axes, body velocities
  TF_TIMER_CRBA,         // joint-space inertia
  TF_TIMER_RNEA,         // bias forces (Coriolis, centrifugal, gravity)
  TF_TIMER_PASSIVE,      // springs, dampers, actuators, applied wrenches
  TF_TIMER_FACTOR,       // Cholesky of M (plus implicit terms) and the solve
  TF_TIMER_COLLISION,    // the whole collision stage: the five parts below
  TF_TIMER_BROADPHASE,   // collision: bounds, sort, sweep and prune, pair filters
  TF_TIMER_SEARCH,       // collision: narrow-phase search (sampling, descents, closed forms)
  TF_TIMER_REDUCE,       // collision: reduction of many-point pairs to their rows
  TF_TIMER_SPECULATIVE,  // collision: speculative rows (traced paths, times of impact)
  TF_TIMER_PERSIST,      // collision: matching last step's contacts (warm starts)
  TF_TIMER_CONSTRAINT,   // assembling the constraint rows
  TF_TIMER_SOLVE,        // the contact / constraint solver, position correction
  TF_TIMER_INTEGRATE,
  TF_TIMER_N
} tf_timer;

typedef enum tf_warning {
  TF_WARN_BADQACC = 0,  // NaN / inf in the state or acceleration: the state was not advanced
  TF_WARN_SINGULAR,     // the mass matrix failed to factor (not positive definite)
  TF_WARN_CONTACTFULL,  // more contacts than the buffer holds: the extra ones counted, not kept
  TF_WARN_EFCFULL,      // more constraint rows than the buffer holds
  TF_WARN_SOLVER,       // the solver hit its iteration cap above tolerance
  TF_WARN_N
} tf_warning;

// seconds on a monotonic clock (the per-stage timers, bake and run wall times)
double tf_clock(void);

// ---------------------------------------------------------------- builder

// Definitions passed to the builder. Start from tf_*_def_default(): zero is a real value
// (zero damping, zero stiffness) so every field has a meaning.
typedef struct tf_body_def {
  const char* name;   // unique, non-empty
  int parent;         // body id returned by tf_builder_add_body, 0 = world
  double pos[3];      // frame origin in the parent frame at qpos0 (m)
  double quat[4];     // frame orientation in the parent frame (w, x, y, z), normalised on compile
  double mass;        // kg, > 0
  double com[3];      // centre of mass in the body frame (m)
  double inertia[6];  // about the com, body axes: ixx iyy izz ixy ixz iyz (kg m^2);
                      // all zero = point mass, else positive definite with the triangle inequality
} tf_body_def;

typedef struct tf_joint_def {
  const char* name;  // unique, non-empty
  int body;          // the body this joint moves relative to its parent
  tf_joint_type type;
  double pos[3];        // anchor in the body frame (hinge, ball); ignored for free
  double axis[3];       // hinge / slide axis in the body frame; normalised, must be non-zero
  double armature;      // rotor inertia added to each dof's diagonal of M (kg m^2 or kg)
  double damping;       // viscous, N m s / rad or N s / m (implicit under euler)
  double stiffness;     // spring toward springref, N m / rad or N / m (not for free joints)
  double springref;     // hinge / slide spring rest position (rad or m)
  double qpos0[7];      // initial joint position; hinge / slide use [0], ball [0..3] (quat);
                        // (all zero = identity); free joints take the body's pos / quat
  int limited;          // hinge / slide: 1 to keep q within range
  double range[2];      // rad or m, range[0] < range[1]
  double frictionloss;  // dry friction, N m or N (the largest friction force)
} tf_joint_def;

typedef struct tf_actuator_def {
  const char* name;
  tf_actuator_type type;
  int joint;             // hinge or slide joint id
  double gear;           // transmission ratio: joint force = gear * actuator force
  double kp;             // position gain (position servo), N m / rad
  double kv;             // velocity gain (position and velocity servos), N m s / rad
  double forcerange[2];  // clamp of the actuator force; [0, 0] = unlimited
} tf_actuator_def;

typedef struct tf_geom_def {
  const char* name;  // unique, non-empty
  int body;          // 0 = world (static)
  tf_geom_type type;
  double size[3];  // see tf_geom_type
  double pos[3];   // in the body frame
  double quat[4];
  int hull;            // hull id for TF_GEOM_HULL
  int mesh;            // mesh id for TF_GEOM_MESH (its surface), -1 if none
  int sdf;             // sdf id for TF_GEOM_SDF, or a baked SDF of a TF_GEOM_MESH; -1 if none
  double friction[2];  // sliding mu, torsional mu (m, condim 4); a pair takes the larger
  int condim;          // 1 frictionless, 3 sliding friction, 4 plus torsional
  unsigned contype;    // a pair collides if (contype1 & conaffinity2) | (contype2 & conaffinity1)
  unsigned conaffinity;
  double margin;     // extra detection distance (m) on top of the speculative margin
  double solref[2];  // newton only: time constant (s), damping ratio
  double solimp[3];  // newton only: d0, dwidth, width (m)
  float rgba[4];     // colour for the renderer, each in [0, 1]; all zero = a fixed palette
                     // colour picked by body. Alpha is kept but the renderer is opaque.
} tf_geom_def;

// an analytic signed distance (negative inside) at p in the geom frame, with its gradient
// (unit length near the surface); params is the model's copy of tf_sdf_def.params
typedef double (*tf_sdf_fn)(const void* params, const double p[3], double grad[3]);

typedef struct tf_sdf_def {
  const char* name;
  tf_sdf_fn fn;        // analytic SDF, or NULL for a grid SDF
  const void* params;  // bytes copied on compile (plain data, no pointers)
  size_t params_size;
  const float* grid;  // grid SDF values, res[0] x res[1] x res[2] nodes, x fastest
  int res[3];
  double grid_origin[3];  // geom-frame position of node (0, 0, 0)
  double grid_cell;       // node spacing (m)
  double aabb[6];         // lo[3], hi[3]: a box holding the solid, geom frame
  double error_bound;     // m: how far the value may be from the true distance near the
                          // surface (0: exact); a bound is never above the true distance
  int mesh;               // a surface mesh of the same solid for sampling, -1 if none
  double feature_size;    // m: distance between repeated features that each need rows, e.g. a
                          // thread's pitch; 0 = none
  int unit_gradient;      // 1: fn returns a unit gradient (to rounding), so collision checks
                          // its length instead of normalising it on every query
} tf_sdf_def;

typedef struct tf_equality_def {
  const char* name;
  tf_equality_type type;
  int body1, body2;  // body2 may be 0 (the world)
  double anchor[3];  // connect: the point in body1's frame
} tf_equality_def;

typedef struct tf_solver_settings {
  int iterations;        // iteration cap (outer iterations for al); default 100
  double tolerance;      // stop when the residuals fall under it; default 1e-10
  int substeps;          // pgs: constraint substeps per step; default 1
  double penalty;        // al / admm: penalty weight beta; 0 = from the problem's scale
  int inner_iterations;  // al: Newton iterations per augmented-Lagrangian step; default 30
  // re-linearisation inside the step (engine/step.c): after a solve, collision again at the
  // configuration the solve moves the parts to, rows linearised there, solved again; one
  // pass always, then up to this many while that configuration's deepest overlap exceeds
  // relinearize_tol. Default 0 (contacts linearised at the step's start only)
  int relinearize;
  double relinearize_tol;  // m, default 1e-6
  // overlap checks at the step's end (engine/step.c): where two SDF parts meet by descent,
  // the descent from their rows' points looks again at the configuration the step ends in,
  // and each overlap deeper than relinearize_tol adds a row to the position pass, which runs
  // again; up to this many times. Default 3; 0 off
  int overlap_checks;
} tf_solver_settings;

typedef struct tf_option {
  double timestep;    // s, > 0
  double gravity[3];  // m / s^2
  tf_integrator integrator;
  int implicit_servo;     // 1: damping, stiffness and servo gains enter the velocity solve
                          // (euler only; default). 0: explicit, kept to show why it matters.
  tf_solver_type solver;  // default al
  tf_solver_settings solver_opt;
  double min_margin;      // m: candidates this close are always rows (resting contact); 1e-4
  int max_pair_contacts;  // contacts kept per geom pair after reduction (default 128, <= 128)
  int nconmax;            // contact buffer per data (default 128); overflow is counted
  // m: a geom pair that meets a mesh or an SDF keeps its contacts from one search to the next
  // while its parts move less than this relative to each other (and its speculative reach
  // grows by no more); 0 searches every pair every step (engine/collision_persist.c)
  double persist_tol;
} tf_option;

typedef struct tf_builder tf_builder;

tf_body_def tf_body_def_default(void);
tf_joint_def tf_joint_def_default(void);
tf_actuator_def tf_actuator_def_default(void);
tf_option tf_option_default(void);
tf_geom_def tf_geom_def_default(void);
tf_equality_def tf_equality_def_default(void);
tf_solver_settings tf_solver_settings_default(void);

tf_builder* tf_builder_create(void);
void tf_builder_destroy(tf_builder* b);
void tf_builder_set_option(tf_builder* b, const tf_option* opt);
// each returns the new object's id (bodies from 1; 0 is the world), or -1 on allocation failure
int tf_builder_add_body(tf_builder* b, const tf_body_def* def);
int tf_builder_add_joint(tf_builder* b, const tf_joint_def* def);
int tf_builder_add_actuator(tf_builder* b, const tf_actuator_def* def);
int tf_builder_add_geom(tf_builder* b, const tf_geom_def* def);
int tf_builder_add_equality(tf_builder* b, const tf_equality_def* def);
// a convex hull of npoints points (x y z, in the geom frame), built on compile with qhull;
// returns the hull id for tf_geom_def.hull
int tf_builder_add_hull(tf_builder* b, const char* name, const double* points, int npoints);
// a triangle mesh (vertices x y z, faces as vertex index triples, counter-clockwise seen
// from outside), copied; returns the mesh id for tf_geom_def.mesh / tf_sdf_def.mesh
int tf_builder_add_mesh(tf_builder* b, const char* name, const double* vert, int nvert,
                        const int* face, int nface);
// a signed distance field, copied (params and grid); returns the sdf id for tf_geom_def.sdf
int tf_builder_add_sdf(tf_builder* b, const tf_sdf_def* def);
// never collide geoms of these two bodies / always consider this geom pair
int tf_builder_exclude_pair(tf_builder* b, int body1, int body2);
int tf_builder_include_pair(tf_builder* b, int geom1, int geom2);

// ---------------------------------------------------------------- model

// Immutable after compile. Arrays are flat; the shape of each is in its comment.
typedef struct tf_model {
  int nq;     // generalised positions
  int nv;     // degrees of freedom
  int nbody;  // bodies, including the world (id 0)
  int njnt;
  int nu;  // actuators
  int ngeom;
  int nhull;
  int nhullvert;      // vertices of all hulls
  int nhullface;      // faces of all hulls
  int nhullfacevert;  // face-vertex indices of all hulls
  int nmesh;
  int nmeshvert;  // vertices of all meshes
  int nmeshface;  // triangles of all meshes
  int nsdf;
  size_t nsdfparam;  // bytes of all analytic SDF parameters
  size_t nsdfgrid;   // values of all grid SDFs
  int neq;           // equality constraints
  int nexclude;      // excluded body pairs
  int ninclude;      // explicitly included geom pairs
  int nconmax;       // contacts each data holds
  int nefcmax;       // constraint rows each data holds
  tf_option opt;

  // bodies
  int* body_parentid;    // (nbody)
  int* body_jntadr;      // (nbody) first joint, -1 if none
  int* body_jntnum;      // (nbody)
  int* body_dofadr;      // (nbody) first dof, -1 if none
  int* body_dofnum;      // (nbody)
  int* body_nameadr;     // (nbody) offset into names
  double* body_pos;      // (nbody x 3) offset in the parent frame
  double* body_quat;     // (nbody x 4)
  double* body_mass;     // (nbody)
  double* body_ipos;     // (nbody x 3) com in the body frame
  double* body_iquat;    // (nbody x 4) principal axes of inertia in the body frame
  double* body_inertia;  // (nbody x 3) principal moments about the com

  // joints
  int* jnt_type;          // (njnt) tf_joint_type
  int* jnt_bodyid;        // (njnt)
  int* jnt_qposadr;       // (njnt)
  int* jnt_dofadr;        // (njnt)
  int* jnt_nameadr;       // (njnt)
  double* jnt_pos;        // (njnt x 3)
  double* jnt_axis;       // (njnt x 3) unit
  double* jnt_stiffness;  // (njnt)
  double* jnt_springref;  // (njnt)

  // dofs
  int* dof_bodyid;           // (nv)
  int* dof_jntid;            // (nv)
  int* dof_parentid;         // (nv) previous dof on the path to the world, -1 at a root
  double* dof_armature;      // (nv)
  double* dof_damping;       // (nv)
  double* dof_frictionloss;  // (nv)
  int* jnt_limited;          // (njnt)
  double* jnt_range;         // (njnt x 2)

  // geoms
  int* geom_type;              // (ngeom) tf_geom_type
  int* geom_bodyid;            // (ngeom)
  int* geom_hullid;            // (ngeom) -1 unless a hull
  int* geom_condim;            // (ngeom)
  unsigned* geom_contype;      // (ngeom)
  unsigned* geom_conaffinity;  // (ngeom)
  int* geom_nameadr;           // (ngeom)
  double* geom_size;           // (ngeom x 3)
  double* geom_pos;            // (ngeom x 3) in the body frame
  double* geom_quat;           // (ngeom x 4)
  double* geom_friction;       // (ngeom x 2) sliding, torsional
  double* geom_margin;         // (ngeom)
  double* geom_solref;         // (ngeom x 2)
  double* geom_solimp;         // (ngeom x 3)
  double* geom_rbound;         // (ngeom) bounding-sphere radius about the geom origin (0: plane)
  float* geom_rgba;            // (ngeom x 4) render colour; all zero = palette by body

  // primitive tessellations: the surface samples of a sphere, capsule, box or cylinder geom
  // that may touch an SDF or mesh geom (collision_sdf.c measures them in its field), made
  // once here rather than every step (mesh_primitive.h); vertices in the geom frame
  int ntessvert;          // vertices of all tessellations
  int ntessface;          // triangles of all tessellations
  int* geom_tessadr;      // (ngeom) first vertex of the geom's tessellation, -1: none
  int* geom_tessvertnum;  // (ngeom)
  int* geom_tessfaceadr;  // (ngeom) first triangle
  int* geom_tessfacenum;  // (ngeom)
  double* tess_vert;      // (ntessvert x 3)
  int* tess_face;         // (ntessface x 3) vertex indices within the geom's own

  // the geom pairs whose contacts persist across steps (opt.persist_tol > 0): pairs that may
  // meet with a mesh or an SDF on either side, at most 256 (engine/collision_persist.h)
  int npersist;
  int* persist_geom;  // (npersist x 2) g1 < g2, sorted

  // hulls (vertices and faces of all hulls, each hull's a contiguous range)
  int* hull_vertadr;        // (nhull)
  int* hull_vertnum;        // (nhull)
  int* hull_faceadr;        // (nhull)
  int* hull_facenum;        // (nhull)
  int* hull_facevertadr;    // (nhull) start of the hull's face-vertex indices
  double* hull_rbound;      // (nhull)
  double* hull_vert;        // (nhullvert x 3) in the geom frame
  double* hull_face_plane;  // (nhullface x 4) outward normal, offset
  int* hull_face_vertadr;   // (nhullface) relative to the hull's face-vertex start
  int* hull_face_vertnum;   // (nhullface)
  int* hull_face_vert;      // (nhullfacevert) relative to the hull's first vertex

  // meshes
  int* mesh_vertadr;    // (nmesh)
  int* mesh_vertnum;    // (nmesh)
  int* mesh_faceadr;    // (nmesh)
  int* mesh_facenum;    // (nmesh)
  double* mesh_rbound;  // (nmesh) largest vertex norm
  double* mesh_vert;    // (nmeshvert x 3)
  int* mesh_face;       // (nmeshface x 3) relative to the mesh's first vertex

  // signed distance fields
  tf_sdf_fn* sdf_fn;         // (nsdf) NULL for grids
  size_t* sdf_paramadr;      // (nsdf) byte offset into sdf_param
  size_t* sdf_gridadr;       // (nsdf) offset into sdf_grid
  int* sdf_res;              // (nsdf x 3)
  int* sdf_mesh;             // (nsdf) mesh id or -1
  double* sdf_grid_origin;   // (nsdf x 3)
  double* sdf_grid_cell;     // (nsdf)
  double* sdf_aabb;          // (nsdf x 6)
  double* sdf_error_bound;   // (nsdf)
  double* sdf_feature_size;  // (nsdf) m: repeated features' spacing, 0 = none
  int* sdf_unit_gradient;    // (nsdf) 1: fn's gradient is unit to rounding
  unsigned char* sdf_param;  // (nsdfparam) 16-byte aligned per sdf
  float* sdf_grid;           // (nsdfgrid)
  int* geom_meshid;          // (ngeom)
  int* geom_sdfid;           // (ngeom)

  // equality constraints
  int* eq_type;        // (neq) tf_equality_type
  int* eq_body1;       // (neq)
  int* eq_body2;       // (neq)
  int* eq_nameadr;     // (neq)
  double* eq_anchor1;  // (neq x 3) point in body1's frame
  double* eq_anchor2;  // (neq x 3) the same point in body2's frame at qpos0
  double* eq_relquat;  // (neq x 4) body1-to-body2 rotation at qpos0 (weld)

  // collision filtering
  int* exclude_body;  // (nexclude x 2)
  int* include_geom;  // (ninclude x 2)

  // actuators
  int* actuator_type;           // (nu) tf_actuator_type
  int* actuator_jntid;          // (nu)
  int* actuator_nameadr;        // (nu)
  double* actuator_gear;        // (nu)
  double* actuator_kp;          // (nu)
  double* actuator_kv;          // (nu)
  double* actuator_forcerange;  // (nu x 2)

  double* qpos0;   // (nq) initial configuration
  char* names;     // all names, NUL separated
  void* buffer;    // the single allocation behind every array above
  size_t nbuffer;  // bytes in the single allocation behind the arrays
  size_t narena;   // bytes of scratch each tf_data gets
} tf_model;

// Compiles the builder's content into a model. On bad input returns NULL and writes a
// one-line message naming the offending body / joint / actuator into err.
tf_model* tf_builder_compile(const tf_builder* b, char* err, size_t errlen);
void tf_model_destroy(tf_model* m);

// name lookups, -1 if absent
int tf_name_to_body(const tf_model* m, const char* name);
int tf_name_to_joint(const tf_model* m, const char* name);
int tf_name_to_actuator(const tf_model* m, const char* name);
const char* tf_body_name(const tf_model* m, int body);
const char* tf_joint_name(const tf_model* m, int joint);

// ---------------------------------------------------------------- data

// one contact between two geoms, written by the collision stage
typedef struct tf_contact {
  double pos[3];    // midpoint between the surfaces (world)
  double frame[9];  // rows: normal (geom[0] -> geom[1]), tangent 1, tangent 2
  double dist;      // signed gap along the normal now (m); negative = overlap
  double mu[2];     // sliding and torsional friction of the pair
  int condim;       // 1, 3 or 4
  int geom[2];
  int efc_adr;         // first constraint row, -1 if none
  int speculative;     // 1 when the row came from a time-of-impact query
  double local[2][3];  // the contact point on each body, in that body's frame
  double lambda[4];    // impulse of the last solve (warm start; normal first)
  double solref[2];    // newton only
  double solimp[3];
} tf_contact;

// a geom pair's last search (engine/collision_persist.c): the geoms' poses and the margin
// it searched with, and its point count (-1: none kept, search next time)
typedef struct tf_pair_memory {
  int npoint;
  int candidates;  // the search's candidates before reduction
  double margin;
  double clear;      // a lower bound of the gap over the sampled surfaces (-INFINITY: none)
  double pos[2][3];  // both geoms' world poses at the search
  double mat[2][9];
} tf_pair_memory;

// one remembered contact point: the material point on each geom, in that geom's frame
typedef struct tf_pair_point {
  double local[2][3];
  double normal[3];  // from the first geom to the second, in a static geom's frame (else the
                     // second geom's)
  int side;          // tf_contact_point.side
} tf_pair_point;

typedef struct tf_data {
  // state
  double time;
  double* qpos;  // (nq)
  double* qvel;  // (nv)
  // inputs
  double* ctrl;          // (nu)
  double* qfrc_applied;  // (nv) user generalised forces
  double* xfrc_applied;  // (nbody x 6) user wrenches at the com, world axes: force, torque

  // written by kinematics
  double* xpos;     // (nbody x 3) body frame origin
  double* xquat;    // (nbody x 4)
  double* xmat;     // (nbody x 9) row-major rotation
  double* xipos;    // (nbody x 3) centre of mass
  double* ximat;    // (nbody x 9) principal inertia frame
  double* xanchor;  // (njnt x 3) joint anchor in world
  double* xaxis;    // (njnt x 3) joint axis in world
  double* cdof;     // (nv x 6) motion axis of each dof (spatial, world origin)
  double* cinert;  // (nbody x 10) spatial inertia about the origin: m, m c, I_O (xx yy zz xy xz yz)
  double* cvel;    // (nbody x 6) body spatial velocity
  double* cdof_dot;  // (nv x 6) time derivative of cdof

  // written by dynamics
  double* crb;             // (nbody x 10) composite inertia of each subtree
  double* qM;              // (nv x nv) joint-space inertia, armature included
  double* qA;              // (nv x nv) M + h D + h^2 K: the matrix of the last velocity solve
  double* qLD;             // (nv x nv) its Cholesky factor (column-major lower)
  double* qfrc_bias;       // (nv) c(q, v): Coriolis, centrifugal and gravity
  double* qfrc_passive;    // (nv) springs and dampers (explicit values)
  double* qfrc_actuator;   // (nv)
  double* actuator_force;  // (nu)
  double* qacc;            // (nv) acceleration used by the last step

  // written by collision
  double* geom_xpos;            // (ngeom x 3)
  double* geom_xmat;            // (ngeom x 9)
  int ncon;                     // contacts of the last step
  tf_contact* contact;          // (nconmax)
  int ncon_wanted;              // contacts found, including those the buffer could not hold
  int ncon_candidates;          // contact candidates before per-pair reduction
  int ncon_dropped;             // candidates the reduction dropped
  int ncon_prev;                // the previous step's contacts, for warm starts
  tf_contact* contact_prev;     // (nconmax)
  int ncon_start;               // re-linearisation (step.c): the step's start contacts, where
  tf_contact* contact_start;    // its iterates' searches start too (nconmax; 0 outside it)
  int npair_searched;           // remembered pairs (model.persist_geom) searched in the last step
  int npair_recalled;           // ... and those that recalled their memory instead
  tf_pair_memory* pair_memory;  // (npersist)
  tf_pair_point* pair_point;    // (npersist x max_pair_contacts)

  // written by the constraint stage and the solver
  int nefc;  // constraint rows of the last step
  int nblock;
  double* efc_J;            // (nefcmax x nv)
  double* efc_e;            // (nefcmax) row error for the hard solvers
  double* efc_pos;          // (nefcmax) row position error
  double* efc_mu;           // (nefcmax) friction coefficient of tangential contact rows
  double* efc_bound;        // (nefcmax) joint friction: largest impulse
  double* efc_lambda;       // (nefcmax) impulses of the last solve
  int* efc_block_type;      // (nefcmax) per block: tf_efc_type
  int* efc_block_adr;       // (nefcmax)
  int* efc_block_dim;       // (nefcmax)
  int* efc_block_id;        // (nefcmax) contact / joint / equality index of each block
  double* efc_solref;       // (nefcmax x 2)
  double* efc_solimp;       // (nefcmax x 3)
  double* qfrc_constraint;  // (nv) J^T lambda / h of the last step
  int solver_iterations;    // of the last solve
  int relinearize_passes;   // extra passes (collision and solve) the last step took
  int overlap_rows;         // contacts the last step's overlap checks added
  double solver_primal;     // residuals of the last solve
  double solver_dual;

  // diagnostics
  double timer[TF_TIMER_N];     // seconds spent per stage in the last step
  int warning[TF_WARN_N];       // counts since reset
  int warning_step[TF_WARN_N];  // step index of the first occurrence, -1 if none
  long nstep;                   // steps taken since reset

  // scratch: a stack of bytes, reset at the start of every top-level call
  void* buffer;  // the single allocation behind every array above
  unsigned char* arena;
  size_t narena;
  size_t arena_top;
  size_t arena_peak;
} tf_data;

tf_data* tf_data_create(const tf_model* m);
void tf_data_destroy(tf_data* d);
// back to qpos0, zero velocity, controls and applied forces, time 0
void tf_data_reset(const tf_model* m, tf_data* d);
// copy state and inputs (not scratch) between two data of the same model
void tf_data_copy_state(const tf_model* m, tf_data* dst, const tf_data* src);

// ---------------------------------------------------------------- pipeline

// advance one timestep with the model's integrator; returns 0, or -1 if the state went bad
// (the state is then left as it was and d->warning[TF_WARN_BADQACC] counts it)
int tf_step(const tf_model* m, tf_data* d);
// everything up to the accelerations, without advancing time
int tf_forward(const tf_model* m, tf_data* d);

// the stages, each callable alone (tf_forward calls them in this order)
void tf_kinematics(const tf_model* m, tf_data* d);  // poses, com, cdof, cinert
void tf_velocity(const tf_model* m, tf_data* d);    // cvel, cdof_dot
// body's velocity from d's kinematics (cdof current) and qvel, summed over the dofs on its
// path to the world: out = (velocity of its frame origin, angular velocity), world axes
void tf_body_velocity(const tf_model* m, const tf_data* d, int body, double out[6]);
void tf_crba(const tf_model* m, tf_data* d);  // crb, qM
// inverse dynamics: result = M qacc + c(q, v) (qacc NULL: zero, i.e. the bias forces)
void tf_rnea(const tf_model* m, tf_data* d, double* result, const double* qacc);
void tf_passive(const tf_model* m, tf_data* d);    // qfrc_passive
void tf_actuation(const tf_model* m, tf_data* d);  // actuator_force, qfrc_actuator

// positions: qpos_out = qpos (+) scale * qvel, with the exponential map on quaternions
void tf_integrate_pos(const tf_model* m, double* qpos_out, const double* qpos, const double* qvel,
                      double scale);
// qvel that carries qpos_a to qpos_b in unit time (inverse of tf_integrate_pos with scale 1)
void tf_difference_pos(const tf_model* m, double* qvel, const double* qpos_a, const double* qpos_b);

// ---------------------------------------------------------------- measurements

// kinetic (0.5 v^T M v) and potential (gravity + joint springs) energy; needs kinematics
// and crba of the current state
void tf_energy(const tf_model* m, const tf_data* d, double energy[2]);
// total spatial momentum about the world origin: angular[3], linear[3]; needs tf_velocity
void tf_momentum(const tf_model* m, const tf_data* d, double momentum[6]);
// signed distance of geom g's SDF (analytic or grid; its own, or the baked SDF of a mesh
// geom) at a world point, with the gradient in world axes (grad may be NULL), at the geom's
// pose in d (needs kinematics). NaN when the geom carries no SDF.
double tf_geom_sdf(const tf_model* m, const tf_data* d, int g, const double world[3],
                   double grad[3]);
// the same at n world points (n x 3) into value (n), the geom's view made once: what
// tf_geom_sdf gives at each, bit for bit (NaN everywhere when g carries no SDF)
void tf_geom_sdf_n(const tf_model* m, const tf_data* d, int g, int n, const double* world,
                   double* value);
// 1 when geom g carries an SDF that tf_geom_sdf can evaluate
int tf_geom_has_sdf(const tf_model* m, int g);

// ---------------------------------------------------------------- names

const char* tf_integrator_name(tf_integrator integrator);
// -1 if unknown
int tf_integrator_from_name(const char* name);
const char* tf_timer_name(tf_timer timer);
const char* tf_solver_name(tf_solver_type solver);
int tf_solver_from_name(const char* name);
const char* tf_geom_type_name(tf_geom_type type);

#endif  // TIGHTFIT_H
