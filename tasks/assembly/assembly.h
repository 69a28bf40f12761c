// The `assembly` task's private interface: an assembly file (docs/assemblies.md) describes a
// scene without C: parts as mesh files (OBJ, STL) or library parts with parameters, their
// poses, mass or density, mounts and friction; a drive; the insertion axis, seat and success
// rule; and the probes that apply. `tightfit run --assembly FILE.json` is
// `tightfit run --task assembly --set assembly=FILE.json`.
//
// One idea per file:
//   assembly_parse.c     the file into an asm_file: every problem "FILE: json.path: problem",
//                        all of them in one pass, before anything runs
//   assembly_override.c  the run's --set / grid keys over the file (mu, scale, clearance_um..)
//   assembly_parts.c     each part's solid: its SDF, mesh, mass and overlap-probe samples
//   assembly_scene.c     the model: bodies, mounts, colliders, the drive's actuator, probes
//   assembly_task.c      the task entry: schema, build, control, observe, finish
//   assembly_robot.c     robot mode: the scene in the Panda's cell, picked and inserted
//                        (assembly_robot.h)
//
// Units: every length in the file is in its "units" (m by default); inside the task all is SI.
// Frames: world z up (gravity -z by default); a part's pose places its own frame (the mesh's
// coordinates, or the library part's frame) in the world.
#ifndef TF_TASK_ASSEMBLY_H
#define TF_TASK_ASSEMBLY_H

#include <stddef.h>

#include "task.h"

#define ASM_MAX_PARTS 8
#define ASM_MAX_KV 24            // a library part's parameters
#define ASM_NAME_LEN 32          // part names, library part names, parameter keys
#define ASM_VALUE_LEN 64         // a library parameter's value as text
#define ASM_PATH_LEN 1024        // resolved file paths
#define ASM_MAX_GEARS 4          // TF_PROBE_MAX_GEARS
#define ASM_MAX_ERRORS 20        // problems listed before "... and N more"
#define ASM_MAX_FILE (4u << 20)  // bytes of JSON

typedef enum asm_mount { ASM_FIXED = 0, ASM_FREE, ASM_HINGE, ASM_SLIDE } asm_mount;
typedef enum asm_drive_type {
  ASM_DRIVE_GRAVITY = 0,  // nothing but gravity (and a start speed, if any)
  ASM_DRIVE_VELOCITY,     // a velocity servo on a hinge / slide part
  ASM_DRIVE_TORQUE,       // a constant torque (hinge) or force (slide) on its joint
  ASM_DRIVE_PUSH,         // a free part pushed along the insertion axis: a start speed, a force
} asm_drive_type;
typedef enum asm_rule { ASM_RULE_SEATED = 0, ASM_RULE_GEARS, ASM_RULE_NONE } asm_rule;
typedef enum asm_collider { ASM_COLLIDER_SDF = 0, ASM_COLLIDER_MESH_SDF } asm_collider;

typedef struct asm_part {
  char name[ASM_NAME_LEN];
  int library;              // 1: a library part (parts.h), 0: a mesh file
  char part[ASM_NAME_LEN];  // library: the part's name
  int nkv;                  // library: its parameters as key=value text
  char key[ASM_MAX_KV][ASM_NAME_LEN];
  char value[ASM_MAX_KV][ASM_VALUE_LEN];
  char mesh[ASM_PATH_LEN];  // mesh: the file (resolved against the assembly's folder)
  double mesh_unit;         // m per mesh coordinate
  double scale;             // the mesh scaled about its own origin
  double offset[3];         // m: the mesh's coordinates shifted (its own frame)
  double pos[3];            // m: the part frame's origin in the world
  double quat[4];           // the part frame's orientation in the world
  asm_mount mount;
  double axis[3];      // hinge / slide: unit axis, world
  double anchor[3];    // hinge: a point on the axis, world (m)
  double mass;         // kg, > 0 when given (else from density)
  double density;      // kg/m^3
  double mu;           // sliding friction (NaN: the file's "friction")
  double chord;        // m: how far the mesh may be from the surface it stands for
  int grid_nodes;      // mesh parts: 0: the collider's SDF is exact to the triangles; N: a
                       // grid baked with N nodes along the longest side (cached on disk); the
                       // overlap probe measures with the exact SDF either way
  double start_speed;  // m/s along the insertion axis (push at a speed), set by the drive
} asm_part;

typedef struct asm_file {
  char path[ASM_PATH_LEN];
  double unit;  // m per file length unit
  asm_collider collider;
  double gravity[3];  // m/s^2
  double mu;          // every part's friction unless the part says
  double min_margin;  // m: resting-contact margin, NaN: the engine's
  int pair_contacts;  // contacts kept per geom pair, 0: the engine's
  int npart;
  asm_part part[ASM_MAX_PARTS];
  struct {
    asm_drive_type type;
    int part;       // -1 none
    double speed;   // velocity: rad/s or m/s; push: start speed along the insertion axis
    double force;   // push: N along the insertion axis at the centre of mass
    double torque;  // torque drive: N m (hinge) or N (slide)
    double kv;      // velocity servo gain
    double limit;   // velocity servo's force / torque cap (0: none)
    double ramp;    // s: the servo's target ramps up over this
  } drive;
  struct {
    int part;             // -1: no insertion
    double axis[3];       // world, unit
    double seat[3];       // m: the part frame's origin when seated
    double part_axis[3];  // the part's own axis that lines up with `axis` when seated
    double tolerance;     // m
    double upright;       // rad: the largest tilt of part_axis from axis when seated
  } insertion;
  asm_rule rule;
  double overlap_max;  // m
  double slip_max;     // relative
  int tunnel;          // the tunnel probe's part, -1 none
  int noverlap;
  int overlap[TF_PROBE_MAX_OVERLAP][2];
  int ngear;
  int gear_part[ASM_MAX_GEARS];
  int gear_teeth[ASM_MAX_GEARS];
  int gear_sign[ASM_MAX_GEARS];
  double slip_t0;       // s
  double ratio_window;  // s
  // robot mode (assembly_robot.c): the file's "robot" and "grasp" sections
  struct {
    char urdf[ASM_PATH_LEN];  // "": the built-in Panda; else the URDF (resolved), "#LINK" added
    double opening;           // m: the gripper's start opening (both fingers), NaN: default
    double force;             // N: each finger's force limit, NaN: the Panda's
  } robot;
  struct {
    int given;      // 1: "grasp.pos" given (else the part's centre)
    double pos[3];  // m: where the TCP holds the inserted part, in the part's frame
    double width;   // m: the part between the pads there, NaN: from its bounding box
  } grasp;
} asm_file;

// parses and checks the whole file (check_files: mesh files read and checked to bound a
// solid; library parts' parameters against their schemas always); 0, or -1 with every problem
// as "FILE: json.path: problem" joined by "; " (at most ASM_MAX_ERRORS, then "... and N more")
int asm_file_load(asm_file* f, const char* path, int check_files, char* err, size_t errlen);

// the `assembly` parameter's check (tf_param_spec.check): asm_file_load with every mesh read
// and checked
int asm_file_check(const char* path, char* err, size_t errlen);

// the run's task parameters over the file: values (the schema's, NaN where not given), set
// (the raw pairs, for the list `offset_mm`); 0 or -1 with "task 'assembly': ..."
int asm_apply_overrides(asm_file* f, const tf_param_spec* params, int nparam, const double* values,
                        const tf_kv* set, int nset, char* err, size_t errlen);

// ---------------------------------------------------------------- parts (assembly_parts.c)

// one part's solid for the scene: its SDF definition's parameters, a surface mesh (part frame,
// m), mass properties and the overlap probe's samples
typedef struct asm_solid {
  tf_sdf_fn fn;
  void* params;  // malloc'd
  size_t params_size;
  double aabb[6];
  double error_bound;
  int unit_gradient;
  double feature_size;
  double* vert;  // (nvert x 3)
  int nvert;
  int* face;  // (nface x 3)
  int nface;
  double chord;  // m: the mesh's distance from the surface the part stands for
  double mass, com[3], inertia[6];
  double* samples;  // (nsample x 3) part frame
  int nsample;
  double sample_floor;  // m
} asm_solid;

// builds part p of f; 0, or -1 with "task 'assembly': part 'NAME': ..."
int asm_solid_build(asm_solid* out, const asm_file* f, int p, char* err, size_t errlen);
void asm_solid_free(asm_solid* s);

// ---------------------------------------------------------------- scene (assembly_scene.c)

typedef struct asm_state {
  asm_file file;
  int body[ASM_MAX_PARTS];     // 0 for fixed parts
  int measure[ASM_MAX_PARTS];  // the overlap probe's non-colliding SDF geom of each part
  int joint[ASM_MAX_PARTS];    // the mount's joint, -1 none
  int actuator;                // the drive's, -1 none
  double load;                 // N m on the last gear against its turning (load_nm; 0: none)
  asm_solid solid[ASM_MAX_PARTS];
  int sdf[ASM_MAX_PARTS];                       // each part's SDF definition in the model
  char overlap_name[TF_PROBE_MAX_OVERLAP][25];  // overlap.<a>_<b>_peak_m
  // observe
  double start_depth;
  double angle[ASM_MAX_GEARS], quat_prev[ASM_MAX_GEARS][4], angle_t0[ASM_MAX_GEARS];
  int started;
} asm_state;

// collision bits of a part's collider geom (robot mode's cell; NULL: the engine's defaults)
typedef struct asm_bits {
  unsigned contype, conaffinity;
} asm_bits;

// adds part p of s->file to b: its solid (s->solid[p]), body and mount, collider (bits: moving
// parts' collider bits, NULL: the engine's) and the overlap probe's geom; 0 or -1 with a message
int asm_scene_add_part(tf_builder* b, asm_state* s, int p, const asm_bits* bits, char* err,
                       size_t errlen);
// env->probe from s's file and ids
void asm_probe_spec(tf_probe_spec* p, asm_state* s);

// builds env's model, data and probe spec from s->file; 0 or -1 with a message
int asm_scene_build(tf_env* env, asm_state* s, const tf_physics* physics, char* err, size_t errlen);
// the seated check: the insertion part's distance from its seat (m) and tilt (rad)
double asm_seat_error(const asm_state* s, const tf_data* d);
double asm_tilt(const asm_state* s, const tf_data* d);

// ---------------------------------------------------------------- task (assembly_task.c)

// the schema's entries: the rig's (A_ASSEMBLY .. A_CHORD), then robot mode's own
enum {
  A_ASSEMBLY,
  A_COLLIDER,
  A_MU,
  A_SCALE,
  A_OFFSET,
  A_TILT,
  A_SPEED,
  A_FORCE,
  A_TORQUE,
  A_CLEARANCE,
  A_BACKLASH,
  A_CHORD,
  A_START_OFFSET,
  A_START_TILT,
  A_LOAD,
  A_N,  // the rig's schema ends here
  A_CONTROLLER = A_N,
  A_GRASP,
  A_PERTURB_MM,
  A_PERTURB_DEG,
  A_ROBOT_URDF,
  A_ROBOT_N
};
extern const tf_param_spec asm_robot_params[A_ROBOT_N];

// the run's file: loaded from the `assembly` parameter, the run's keys over it; 0 or -1
int asm_load_for_run(tf_env* env, asm_state* s, const tf_param_spec* params, int nparam,
                     const double* values, char* err, size_t errlen);
// the rig's metrics and success rule for env (its state an asm_state, or a struct that starts
// with one): "success", "why" and assembly.*
void asm_finish_rule(tf_env* env, tf_metrics* out);

#endif  // TF_TASK_ASSEMBLY_H
