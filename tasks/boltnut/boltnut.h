// The boltnut task's private pieces (see boltnut.c for the task itself): the parameter
// indices, the scene (model, start pose, probe samples), the drives and the nut's tracking.
#ifndef TF_BOLTNUT_H
#define TF_BOLTNUT_H

#include "task.h"

// parameter indices, in the schema's order (boltnut.c)
enum {
  BN_SIZE,
  BN_FIT,
  BN_CLEARANCE,
  BN_MU,
  BN_DRIVE,
  BN_DRIVE_SPEED,
  BN_DRIVE_TORQUE,
  BN_COLLIDER,
  BN_TRAVEL_TURNS,
  BN_ENGAGED_TURNS,
  BN_MESH_CHORD,
  BN_NPARAM
};

enum { BN_DRIVE_GRAVITY = 0, BN_DRIVE_TORQUE_ONLY, BN_DRIVE_SERVO };
enum { BN_COLLIDER_SDF = 0, BN_COLLIDER_MESH_SDF, BN_COLLIDER_HULL };

#define TF_BOLTNUT_DENSITY 7850.0       // kg / m^3: steel
#define TF_BOLTNUT_SERVO_CAP 2.0        // N m: the velocity servo's torque limit (issue 5)
#define TF_BOLTNUT_PERTURB_TURN 0.5     // env > 0: start phase within +-0.5 turn along the helix
#define TF_BOLTNUT_PERTURB_LATERAL 0.5  // env > 0: lateral offset within this x delta
// the rig's success rule: the advance per turn within 1 % of the pitch, and the threads'
// deepest overlap over the run at most half the flank gap delta / 2 (a nut sunk further into
// the bolt's flanks was not carried by them)
#define TF_BOLTNUT_PITCH_TOL 0.01
#define TF_BOLTNUT_OVERLAP_FRACTION 0.25

extern const tf_param_spec tf_boltnut_params[BN_NPARAM];

// ---------------------------------------------------------------- mass properties

typedef struct tf_boltnut_mass {
  double volume;      // m^3
  double mass;        // kg
  double com[3];      // m, mesh frame
  double inertia[6];  // about the com, mesh axes: ixx iyy izz ixy ixz iyz (kg m^2)
} tf_boltnut_mass;

// uniform-density mass properties of a closed, outward-facing triangle mesh; -1 when the
// mesh encloses no positive volume or a face index is out of range
int tf_boltnut_mesh_mass(tf_boltnut_mass* out, const double* vert, int nvert, const int* face,
                         int nface, double density);

// ---------------------------------------------------------------- tracking

// the nut's motion as the task sees it: turns about the bolt axis and advance down it, both
// positive when tightening (a right-hand thread turns clockwise seen from above, i.e. about
// -z, as it goes down), and the steady-part fit of advance against turns
typedef struct tf_boltnut_track {
  double pitch;    // m
  double start_z;  // m: the nut frame's height at the start
  double start_quat[4];
  double start_pos[3];
  double yaw_prev;     // rad: the last twist about +z (wrapped)
  double angle;        // rad: unwrapped turn about -z since the start
  double advance;      // m: start_z - z
  double height;       // m: the nut's bottom face (its frame origin) above the base (z = 0)
  double tilt_max;     // rad: largest angle between the nut's axis and the bolt's
  double lateral_max;  // m: largest distance of the nut's frame origin from the bolt axis
  double moved_max;    // m: largest distance of the frame origin from its start
  double rotated_max;  // rad: largest rotation angle from the start orientation
  double reach_time;   // s: when the bottom face first came within one pitch of the base
                       // (NaN: never)
  // least-squares sums of advance (m) against turns over the steady part
  long nfit;
  double sx, sy, sxx, sxy, fit_turn_lo, fit_turn_hi;
} tf_boltnut_track;

// starts tracking at the nut's pose (frame origin pos, orientation quat)
void tf_boltnut_track_init(tf_boltnut_track* t, double pitch, const double pos[3],
                           const double quat[4]);
// one sample of the nut's pose after a control step at time `time` (s)
void tf_boltnut_track_observe(tf_boltnut_track* t, double time, const double pos[3],
                              const double quat[4]);
// the turns (signed, tightening positive)
double tf_boltnut_track_turns(const tf_boltnut_track* t);
// the steady part's advance per turn (m): least-squares slope of advance against turns over
// the samples after the first quarter turn and while the nut's bottom face is at least a
// quarter pitch above the base; NaN when that part spans less than half a turn
double tf_boltnut_track_advance_per_turn(const tf_boltnut_track* t);
// the turns the steady part spans (0 when empty)
double tf_boltnut_track_fit_span(const tf_boltnut_track* t);

// ---------------------------------------------------------------- parts

// the bolt and the nut at the collider's resolution and at the overlap probe's
typedef struct tf_boltnut_parts {
  tf_part_geometry bolt, nut;            // collider meshes (`mesh_chord_um`) and SDFs
  tf_part_geometry bolt_fine, nut_fine;  // probe samples: >= 4x the vertices, chord <= 1 um
  double pitch;                          // m
  double delta;                          // m: the thread allowance, measured on the built bolt
  double nut_height;                     // m
  double length;                         // m: the bolt's threaded length (travel + engagement)
} tf_boltnut_parts;

// builds the parts for the run's parameters; -1 with a one-line message naming the key
int tf_boltnut_parts_build(tf_boltnut_parts* p, const double* values, char* err, size_t errlen);
void tf_boltnut_parts_free(tf_boltnut_parts* p);

// ---------------------------------------------------------------- scene

// one environment's task state (env->state)
typedef struct tf_boltnut_state {
  int nut_body, bolt_geom, plate_geom, nut_geom;
  double pitch;         // m
  double delta;         // m: the thread allowance the bolt was built with
  double axis_inertia;  // kg m^2: the nut's inertia about the thread axis
  double nut_mass;      // kg
  double start_pos[3];  // the nut frame's start pose (world)
  double start_quat[4];
  double start_phase;    // turns: env > 0's drawn start turn along the helix (down positive)
  double start_lateral;  // m: env > 0's drawn lateral offset
  double settle_shift;   // m: the collider's correction of the analytic start height
  // drives
  int drive;
  double control_dt;        // s
  double drive_speed;       // rad / s about -z (servo target)
  double drive_torque;      // N m about -z (torque drive)
  double servo_kp;          // N m s / rad
  double servo_ki;          // N m / rad
  double servo_integral;    // N m: the servo's integral term
  double servo_torque;      // N m: the last command (about -z)
  double servo_torque_max;  // N m: the largest |command| seen
  // probe samples (geom frames), owned here
  double* nut_samples;
  int n_nut_samples;
  double* bolt_samples;
  int n_bolt_samples;
  double collider_chord;     // m: the nut collider mesh's largest distance from the surface
  int collider_vertices[2];  // vertices of the nut's and the bolt's collider meshes
                             // (the probe samples' density reference)
  tf_boltnut_track track;
} tf_boltnut_state;

// scene pieces robot mode shares with the rig (boltnut_scene.c):
// a geom of a part in the chosen collider (BN_COLLIDER_*; is_moving: the nut, which is the
// mesh side of mesh_sdf), on the name, body, pose, friction and collision bits of base; every
// kind carries the part's analytic SDF (the overlap probe), whose id goes to *sdf_id (when not
// NULL). The geom id, or -1.
int tf_boltnut_add_collider(tf_builder* b, const tf_geom_def* base, int collider, int is_moving,
                            const tf_part_geometry* g, int* sdf_id);
// the base plate on body 0: top face at z = 0, wider than the nut's corners, deep enough to
// hold the bolt's head (its bottom at z = -2 x the head's height); an exact box SDF rides
// along for the overlap probe. The geom id, or -1.
int tf_boltnut_add_plate(tf_builder* b, const tf_boltnut_parts* parts, double mu);
// the probes of s's nut, bolt and plate geoms and samples (the nut's tunnel toward the plate)
void tf_boltnut_fill_probe(tf_probe_spec* p, const tf_boltnut_state* s,
                           const tf_boltnut_parts* parts);

// builds the bolt, the nut and the model for environment env->index (perturbed from rng for
// index > 0) and fills env->model, env->data, env->probe and env->state; returns 0, or -1
// with a one-line message
int tf_boltnut_build_scene(tf_env* env, const double* values, const tf_physics* physics,
                           tf_rng* rng, char* err, size_t errlen);
void tf_boltnut_free_state(tf_boltnut_state* s);

// the nut's angular velocity about -z (rad / s, tightening positive), from d's state
double tf_boltnut_axis_speed(const tf_model* m, const tf_data* d, int nut_body);

#endif  // TF_BOLTNUT_H
