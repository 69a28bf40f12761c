// The peg task's private interface: its configuration, its per-environment state and the
// pieces peg.c wires together (scene build, probe samples, seat tracking). Tests include it
// to look at an environment's start pose.
//
// Frames (world = the hole's frame): the hole block's top face is z = 0, the bore runs down
// to z = -depth along the world z axis. The peg body's frame is the part's frame: its origin
// is the centre of the tip face, its z axis the peg's axis. Seated upright on the bottom, the
// peg frame sits at (0, 0, -depth): that is the tunnel probe's seat, and the insertion axis
// is -z.
#ifndef TF_TASK_PEG_H
#define TF_TASK_PEG_H

#include "seat_speed.h"
#include "task.h"

// m: the tip's lowest point this close to the floor has met it (the seat speed)
#define PEG_SEAT_TOUCH 1e-4
#define PEG_BLOCK_FLOOR 0.02  // m of solid block below the bore's bottom (rig and robot mode)

// the schema's entries, in order (peg.c holds the table)
enum {
  PEG_SHAPE,
  PEG_COLLIDER,
  PEG_CLEARANCE_UM,
  PEG_TILT_DEG,
  PEG_MU,
  PEG_IMPACT_SPEED,
  PEG_GAP_MM,
  PEG_DEPTH_MM,
  PEG_DIAMETER_MM,
  PEG_LENGTH_MM,
  PEG_CHAMFER_MM,
  PEG_DENSITY,
  PEG_PERTURB_OFFSET,
  PEG_PERTURB_TILT_DEG,
  PEG_CHORD_UM,
  PEG_NPARAM
};

enum { PEG_COLLIDER_SDF = 0, PEG_COLLIDER_MESH_SDF, PEG_COLLIDER_HULL };

// the run's parameters in SI units
typedef struct peg_config {
  int square;             // 0 round peg and bore, 1 square peg and pocket
  int collider;           // PEG_COLLIDER_*
  double clearance;       // m, radial (bore radius - peg radius, or half the side difference)
  double tilt;            // rad, env 0's tilt of the peg axis about the world x axis
  double mu;              // sliding friction of the pair
  double impact_speed;    // m/s, initial speed along -z (0: dropped from rest)
  double gap;             // m, the tip's start height above its seat (the hole bottom)
  double depth;           // m, bore depth below the top face
  double diameter;        // m, peg diameter (round) or side (square)
  double length;          // m, peg length
  double chamfer;         // m, 45 deg chamfer at the peg tip and at the hole entry
  double density;         // kg/m^3 of the peg
  double perturb_offset;  // fraction of the clearance: env > 0 lateral offset radius bound
  double perturb_tilt;    // rad, env > 0 tilt perturbation bound
  double chord;           // m, the collider meshes' chord error (mesh_sdf, hull)
} peg_config;

// one side's surface samples for the overlap probe: points on the true surface, part frame
typedef struct peg_samples {
  double* points;  // (npoint x 3)
  int npoint;
  double floor;  // m: chord sagitta of the sampling (0 on flat faces sampled exactly)
} peg_samples;

typedef struct peg_state {
  peg_config cfg;
  int body;              // the peg's body id
  int geom_peg_measure;  // SDF geoms the overlap probe reads (analytic, exact)
  int geom_hole_measure;
  double bore_half;  // m, bore radius (round) or pocket half side (square)
  // the environment's start pose (env 0: centred, tilt cfg.tilt)
  double start_offset[2];  // m, lateral offset of the tip centre from the hole axis
  double start_tilt;       // rad, about the world x axis
  double start_gap;        // m, the tip's lowest point above the hole's floor at the start
  peg_samples samples_peg, samples_hole;
  tf_seat_speed seat;  // the approach, for the seat speed
  int substeps;        // physics steps per control step (the free-fall reference)
} peg_state;

// values (one per schema entry) into SI units, with the checks that span several keys;
// returns 0, or -1 with a one-line message naming the key
int peg_config_from_values(peg_config* c, const double* values, char* err, size_t errlen);

// builds the model and data of one environment into env (start pose from s->start_*), and
// fills s (ids, samples) and env->probe; returns 0, or -1 with a message (env and s hold
// whatever was allocated: the task's destroy and the runner free it)
int peg_scene_build(tf_env* env, peg_state* s, const tf_physics* physics, char* err, size_t errlen);

// ---------------------------------------------------------------- parts (peg_parts.c)

// the peg's collider geom's collision bits where a scene needs its own (robot mode)
typedef struct peg_collision_bits {
  unsigned contype, conaffinity;
} peg_collision_bits;

// the peg and hole parts of c (the block PEG_BLOCK_FLOOR deep under the bore); 0, or -1
// with a message and both freed
int peg_parts_build(tf_part_geometry* peg, tf_part_geometry* hole, const peg_config* c, char* err,
                    size_t errlen);
// uniform-density peg: mass and principal moments about its centre (body axes)
void peg_inertia(const peg_config* c, double* mass, double inertia[6]);
// the colliders c->collider names: the hole's on the world body, the peg's on peg_body (its
// collision bits from peg_bits, NULL: the engine's defaults); sdf_* are the parts' SDF ids;
// 0, or -1 when out of memory
int peg_add_colliders(tf_builder* b, const peg_config* c, int peg_body, const tf_part_geometry* peg,
                      const tf_part_geometry* hole, int sdf_peg, int sdf_hole,
                      const peg_collision_bits* peg_bits);
// the overlap probe's exact, non-colliding SDF geoms of both parts (s->body set); 0 or -1
int peg_add_measures(tf_builder* b, peg_state* s, int sdf_peg, int sdf_hole);
// s->bore_half and the probe samples (at 4x the collider's stations); 0, or -1 out of memory
int peg_samples_build(peg_state* s);
// the engine options of a peg scene: the run's physics, resting contact within a tenth of the
// clearance
tf_option peg_scene_option(const tf_physics* physics, const peg_config* c);
// the tunnel and overlap probes' view of s (ids and samples set)
void peg_probe_spec(tf_probe_spec* p, const peg_state* s);

// the probe samples of the peg and the hole at chord sagitta <= floor_target (round) or
// exactly on the faces (square); returns 0, or -1 when out of memory
int peg_samples_peg(peg_samples* out, const peg_config* c, double floor_target);
int peg_samples_hole(peg_samples* out, const peg_config* c, double bore_half, double floor_target);
void peg_samples_free(peg_samples* s);

// the lowest point of the peg's tip face above the hole's floor plane (m) and the tip
// centre's downward speed (m/s), read off d (kinematics current)
double peg_tip_gap(const peg_state* s, const tf_data* d);
double peg_tip_speed(const peg_state* s, const tf_model* m, const tf_data* d);
// the angle between the peg's axis and the world z axis (rad)
double peg_tilt(const peg_state* s, const tf_data* d);

// the seat of the success rule (rig and robot mode): the tip centre within
// PEG_SEAT_TOLERANCE of the hole's bottom face, the axis within PEG_UPRIGHT_DEG of vertical
#define PEG_SEAT_TOLERANCE 1e-3  // m
#define PEG_UPRIGHT_DEG 1.0      // deg
// the tip centre's distance from the hole's bottom face (a disc, or the pocket's square)
double peg_seat_error(const peg_state* s, const tf_data* d);
int peg_seated(double error, double tilt);
// the seat's failed criteria into a run's why (tf_why_add)
void peg_why_seat(char why[TF_METRIC_TEXT_LEN], double error, double tilt);
// the deepest the peg may sink into the bore over the run (the rig's success rule): half the
// radial clearance (a peg that sank further was not held by the fit), and never under the
// 10 um fit tolerance
#define PEG_OVERLAP_FRACTION 0.5
#define PEG_OVERLAP_FLOOR 10e-6
double peg_overlap_allowed(const peg_config* c);

#endif  // TF_TASK_PEG_H
