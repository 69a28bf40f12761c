// The connectors rig's model: a socket fixed at the world origin (opening at z = 0, facing +z)
// and a plug above it on x, y, z slides and a ball joint (6 dof, so that the shell alone
// centres and straightens it), pushed down its insertion axis -z by a velocity servo with a
// force cap, a constant force, or gravity alone. Private to tasks/connectors.
#ifndef TF_CONNECTORS_SCENE_H
#define TF_CONNECTORS_SCENE_H

#include "task.h"

typedef enum tf_connectors_push {
  TF_CONNECTORS_PUSH_SPEED = 0,  // velocity servo at impact_speed, force capped at push_force
  TF_CONNECTORS_PUSH_FORCE,      // constant push_force down the axis
  TF_CONNECTORS_PUSH_GRAVITY,    // no drive: the plug's weight (and its initial speed)
} tf_connectors_push;

typedef enum tf_connectors_collider {
  TF_CONNECTORS_SDF = 0,   // both parts as analytic SDFs (SDF x SDF descent)
  TF_CONNECTORS_MESH_SDF,  // the plug's mesh sampled in the socket's analytic SDF
  TF_CONNECTORS_HULL,      // convex hulls of both meshes (the socket's fills its cavity)
} tf_connectors_collider;

typedef struct tf_connectors_config {
  int type;             // 0 dsub, 1 dp, 2 rj45 (the parts' `type` choice)
  double clearance;     // m: per-side shell gap (pin holes get 50 um more)
  double clearance_um;  // the same in um, as the parts take it
  tf_connectors_push push;
  double impact_speed;  // m/s: initial speed down the axis, and the servo's target speed
  double push_force;    // N: the servo's force cap, or the constant push
  double mu;            // Coulomb friction of the pair
  tf_connectors_collider collider;
  double start_gap;      // m: from the pin tips to the socket opening at the start
  double plug_mass;      // kg
  double mesh_chord_um;  // um: the collider meshes' chord error (the probe's is 16x finer)
  int pinless;           // 1: shells alone, no pins nor pin holes (pins=no; 0 in robot mode)
  double offset[2];      // m: the plug's lateral offset at the start (x, y)
  double tilt;           // rad: the plug's initial tilt about a horizontal axis ...
  double tilt_azimuth;   // rad: ... at this angle from +x
} tf_connectors_config;

// the pair's ids in a model: the parts' SDFs and meshes, their colliders and the overlap
// probe's non-colliding analytic SDF geoms
typedef struct tf_connectors_ids {
  int plug_sdf, plug_mesh, socket_sdf, socket_mesh;
  int plug_geom, socket_geom;
  int plug_measure, socket_measure;
} tf_connectors_ids;

// the overlap probe's samples of both parts' true surfaces (geom frames)
typedef struct tf_connectors_samples {
  double* plug;  // (nplug x 3)
  int nplug;
  double* socket;  // (nsocket x 3)
  int nsocket;
  double floor;    // m: the samples' chord error
  double spacing;  // m: largest distance between samples on a flat face
} tf_connectors_samples;

// the plug collider's collision bits where a scene needs its own (robot mode)
typedef struct tf_connectors_bits {
  unsigned contype, conaffinity;
} tf_connectors_bits;

#define TF_CONNECTORS_PROBE_SPACING 1e-3  // m: the probe's largest sample spacing on a face

typedef struct tf_connectors_scene {
  tf_model* model;
  int plug_body;
  tf_connectors_ids ids;
  int slide_dof[3];     // x, y, z slide dofs of the plug
  int ball_qposadr;     // the ball joint's quaternion in qpos
  int actuator;         // the push (-1 under gravity)
  double mating_depth;  // m
  double seat[3];       // world position of the plug frame when seated
  double start_height;  // m: plug frame z at the start
  tf_connectors_samples samples;
} tf_connectors_scene;

// builds the model (option from physics) and the overlap samples; 0, or -1 with a one-line
// message naming the parameter at fault. The model then belongs to the caller (free it with
// tf_model_destroy); scene->model points to it.
int tf_connectors_scene_build(tf_connectors_scene* scene, const tf_connectors_config* config,
                              const tf_physics* physics, char* err, size_t errlen);
// d (of scene->model) to the initial state: tf_data_reset, then the tilt, the initial speed
// down the axis and the push's control
void tf_connectors_scene_reset(const tf_connectors_scene* scene, const tf_connectors_config* config,
                               tf_data* d);
// frees the samples (not the model)
void tf_connectors_scene_free(tf_connectors_scene* scene);

// ---------------------------------------------------------------- the pair (connectors_parts.c)

// the parts' `type` name of a type index (0 dsub, 1 dp, 2 rj45)
const char* tf_connectors_type_name(int type);
// plug and socket at the collider's chord error; 0, or -1 with a message and both freed
int tf_connectors_parts_build(tf_part_geometry* plug, tf_part_geometry* socket,
                              const tf_connectors_config* config, char* err, size_t errlen);
// registers both parts' meshes and SDFs (ids' sdf and mesh ids); 0, or -1 out of memory
int tf_connectors_add_parts(tf_builder* b, const tf_part_geometry* plug,
                            const tf_part_geometry* socket, tf_connectors_ids* ids);
// the socket's collider on the world body and the plug's on plug_body, as config's collider
// names (plug_bits NULL: the engine's collision bits); 0, or -1 out of memory
int tf_connectors_add_colliders(tf_builder* b, const tf_connectors_config* config, int plug_body,
                                const tf_part_geometry* plug, const tf_part_geometry* socket,
                                const tf_connectors_bits* plug_bits, tf_connectors_ids* ids);
// the overlap probe's geoms of both parts; 0, or -1 out of memory
int tf_connectors_add_measures(tf_builder* b, int plug_body, tf_connectors_ids* ids);
// the probe's samples from meshes 16x finer than the collider's; 0, or -1 with a message
int tf_connectors_probe_samples(const tf_connectors_config* config, tf_connectors_samples* out,
                                char* err, size_t errlen);

// samples of the part's true surface for the overlap probe: the mesh's vertices and points
// spread over its triangles no farther apart than `spacing`, hidden faces of a union dropped;
// 0, or -1 when out of memory (*points then NULL)
int tf_connectors_surface_samples(const tf_part_geometry* g, double spacing, double** points,
                                  int* npoint);

#endif  // TF_CONNECTORS_SCENE_H
