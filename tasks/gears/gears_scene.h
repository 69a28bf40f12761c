// The gears rig's model (private to tasks/gears): a base plate carrying vertical shafts, and
// 2 to 4 involute spur gears in a row along +x, each on its shaft at the standard centre
// distance from the previous one, flanks centred in the backlash. The input (gear 0) is driven
// by a velocity servo about its shaft; the followers are driven by tooth contact alone.
//
//   mount=hinge  every gear on an ideal hinge about its shaft (no contact with shaft or plate)
//   mount=shaft  the followers are free bodies (6 dof); the input has x, y, z slides, a hinge
//                about its shaft carrying the servo and two tilt hinges (6 dof, the servo's
//                reaction taken by the world). Each gear is held by its bore on the shaft
//                (radial clearance `clearance`) and rests on a shoulder.
//   drop scene   (impact_speed > 0) the input gear alone, a free body, 30 mm above its seat on
//                its shaft, moving down at impact_speed, no drive: the tunnelling question.
//
// The plate (a box) and each shaft (a cylinder standing through the plate) are static geoms
// with exact analytic SDFs of their own: separate geoms, so that each gear-shaft and gear-plate
// pair gets its own contact cap and SDF x SDF start lattice (over one large fixture box the
// lattice's cells outgrew the bore and the gears slid through their shafts).
//
// Each gear rests on a shoulder around its shaft (a wider, short cylinder on the plate): a ring
// of support like a real gearbox's, instead of the whole face on the plate.
//
// Frames: the plate's top face is z = 0, gear 0's shaft axis is x = y = 0, a seated gear's
// frame origin is on its shaft axis at the shoulder's top plus face / 2, gear axes along +z.
#ifndef TF_GEARS_SCENE_H
#define TF_GEARS_SCENE_H

#include "task.h"

#define TF_GEARS_MAX 4                  // gears in a train
#define TF_GEARS_DROP_GAP 0.03          // m: the dropped gear's start above its seat
#define TF_GEARS_DENSITY 7850.0         // kg / m^3: steel
#define TF_GEARS_RAMP 0.1               // s: the input's speed ramps up linearly over this time
#define TF_GEARS_PLATE_THICKNESS 0.008  // m: the base plate below z = 0
#define TF_GEARS_SHOULDER_HEIGHT 0.003  // m: a shoulder's top face (a gear's seat) above the plate
#define TF_GEARS_PAIR_CONTACTS 8        // contacts kept per geom pair (see gears_scene.c)

typedef enum tf_gears_mount { TF_GEARS_HINGE = 0, TF_GEARS_SHAFT } tf_gears_mount;

typedef enum tf_gears_collider {
  TF_GEARS_SDF = 0,   // gears as analytic SDFs (SDF x SDF descent, also against plate, shafts)
  TF_GEARS_MESH_SDF,  // gear meshes sampled in the shafts', shoulders', plate's SDFs (the
                      // Factory way); gear against gear (two moving parts) SDF x SDF
  TF_GEARS_HULL,      // qhull convex hulls of the gear meshes (discs: no teeth, no bore)
} tf_gears_collider;

typedef struct tf_gears_config {
  tf_gears_mount mount;
  double input_speed;  // rad/s: the servo's target (after the ramp)
  double module;       // m
  int ngear;           // 2..TF_GEARS_MAX (drop scene: 1)
  int teeth[TF_GEARS_MAX];
  double backlash;  // m: circular backlash of each meshing pair on the pitch circle
  double mu;        // Coulomb friction of every contact
  tf_gears_collider collider;
  double impact_speed;  // m/s: > 0 selects the drop scene
  double face;          // m: face width
  double bore;          // m: bore diameter
  double clearance;     // m: radial clearance bore - shaft
  double chord;         // m: the collider mesh's chord error (mesh_sdf, hull)
  double servo_kv;      // N m s / rad: velocity servo gain
  double servo_torque;  // N m: the servo's torque cap
  double load;          // N m: a torque on the last gear against its turning (0: none)
  // perturbations of this environment (all zero in environment 0)
  double offset[TF_GEARS_MAX][2];     // m: lateral offset of each gear from its shaft axis
  double tilt[TF_GEARS_MAX];          // rad: tilt of each gear's axis from the shaft ...
  double tilt_azimuth[TF_GEARS_MAX];  // rad: ... about the horizontal axis at this angle
  double turn[TF_GEARS_MAX];          // rad: each follower's turn away from the centred mesh
  // robot mode: a gear that starts off its shaft (1) is a free body at its loose pose, whatever
  // the mount (all 0 in the rig)
  int loose[TF_GEARS_MAX];
  double loose_pos[TF_GEARS_MAX][3], loose_quat[TF_GEARS_MAX][4];  // world
  unsigned loose_conaffinity;  // bits a loose gear's geoms also meet (a stand, the arm)
  int shaft_round_top;  // 1: the shafts end in a hemisphere, a lead-in for a bore put on from
                        // above (robot mode); 0: flat (the rig)
} tf_gears_config;

typedef struct tf_gears_scene {
  tf_model* model;
  int ngear;
  int gear_body[TF_GEARS_MAX];
  int gear_geom[TF_GEARS_MAX];      // the geom the other gears' teeth meet
  int hub_geom[TF_GEARS_MAX];       // the geom shaft, shoulder and plate meet (= gear_geom but
                                    // under mesh_sdf)
  int plate_geom;                   // the base plate (a box SDF)
  int shaft_geom[TF_GEARS_MAX];     // each gear's shaft (a cylinder SDF through the plate)
  int shoulder_geom[TF_GEARS_MAX];  // the shoulder around each shaft a gear rests on
  int actuator;                     // the input's velocity servo, -1 in the drop scene
  double center[TF_GEARS_MAX][3];   // m: each gear's seated frame origin (world)
  double mesh_angle[TF_GEARS_MAX];  // rad: each gear's centred mesh angle about +z
  double start_height;              // m: the dropped gear's frame z at the start
  double shaft_top;                 // m: z of the shafts' top faces
  double* samples[TF_GEARS_MAX];    // (nsample x 3) gear geom frame: the overlap probe's
  int nsample[TF_GEARS_MAX];        // surface samples (a finer mesh's vertices)
  double sample_floor;              // m: the samples' chord error
} tf_gears_scene;

// adds the train to b (plate, shafts, shoulders, gears with their joints, the input's servo):
// the placement into scene (centres, mesh angles), the overlap samples, ids; b's option is the
// caller's. 0, or -1 with a one-line message naming the parameter at fault (the caller frees
// the scene). The rig (tf_gears_scene_build) and robot mode both build their trains with it.
int tf_gears_scene_add(tf_builder* b, tf_gears_scene* scene, const tf_gears_config* config,
                       char* err, size_t errlen);
// builds the model (option from physics) and the overlap samples; 0, or -1 with a one-line
// message naming the parameter at fault. The caller owns scene->model afterwards only if it
// sets scene->model = NULL before tf_gears_scene_free.
int tf_gears_scene_build(tf_gears_scene* scene, const tf_gears_config* config,
                         const tf_physics* physics, char* err, size_t errlen);
// d (of scene->model) to the initial state: tf_data_reset, the perturbations of config, the
// drop's initial speed
// rad: the largest tilt a gear's bore allows on its shaft (mount=shaft), from the bore, the
// radial clearance and the face width (the bore's length)
double tf_gears_tilt_allowed(const tf_gears_config* config);

void tf_gears_scene_reset(const tf_gears_scene* scene, const tf_gears_config* config, tf_data* d);
// fills the probe spec: gear slip (train), tunnel (drop), overlap pairs (teeth first, then
// each gear against its shaft and the plate, as many as the probe holds)
void tf_gears_scene_probe(const tf_gears_scene* scene, const tf_gears_config* config,
                          tf_probe_spec* spec);
// frees the samples (and the model unless handed over)
void tf_gears_scene_free(tf_gears_scene* scene);

// ---------------------------------------------------------------- mass (gears_mass.c)

// mass, centre of mass and inertia (about the com, ixx iyy izz ixy ixz iyz) of a closed,
// outward-facing triangle mesh of uniform density; -1 when the mesh encloses no volume
int tf_gears_mesh_mass(const double* vert, int nvert, const int* face, int nface, double density,
                       double* mass, double com[3], double inertia[6]);

#endif  // TF_GEARS_SCENE_H
