// Serial arms from URDF files, built into a tf_builder as the same tf_panda ids the built-in
// Panda fills (robot_panda.h), so every controller and task script drives them unchanged.
//
// What is read (urdf_load.c; libxml2, no network, no entities): <robot>, <link> with its
// <inertial> (origin xyz rpy, mass, inertia ixx..izz about the com in the origin's axes) and
// <collision> elements (origin; geometry box / cylinder / sphere / mesh filename scale; a
// mesh's filename relative to the URDF's folder, package://NAME/... as NAME/... there or
// the rest of the path there), <joint> revolute / continuous / prismatic / fixed with origin
// xyz rpy (fixed axes: R = Rz(yaw) Ry(pitch) Rx(roll)), parent, child, axis (URDF's default
// 1 0 0), limit lower upper effort velocity, dynamics damping friction. <visual>, <material>,
// <gazebo>, <transmission> and the like are for other tools and are skipped.
//
// The arm is the serial chain from the root link to the tcp link (the one named, else the
// tree's only leaf): it must hold exactly TF_PANDA_NJOINT moving joints. Links past the tcp
// link (a file's own hand and fingers) are left out: the Franka Hand takes their place. Fixed
// joints merge their child into the parent's body (URDF's own convention: a fixed joint is no
// degree of freedom): masses and inertias add about the joint centre of mass, collision geoms move
// into the body's frame. Links off the chain may hang off it by fixed joints only.
//
// Building (urdf_build.c): the root and what is fixed to it become the base, welded at the
// def's base pose; each moving joint a body with a hinge (revolute, continuous) or slide
// (prismatic), the def's armature, the file's damping and friction (frictionloss), and a
// torque motor clamped to the limit's effort; collision geoms as the built-in arm's (ARM /
// ENV bits, the def's margin), meshes through an SDF baked from their triangles; then, with
// def->gripper, the Franka Hand on the tcp link's frame exactly as tf_panda_add mounts it on
// the flange (turned by hand_yaw, TCP 0.1034 m along z). Without the gripper the TCP is the
// tcp link's frame.
//
// Every problem is one line "FILE:LINE: <element name='...'>: problem" (or "FILE: problem").
#ifndef TF_URDF_H
#define TF_URDF_H

#include <stddef.h>

#include "mesh_io.h"
#include "robot_panda.h"
#include "tightfit.h"

// files larger than this are refused before parsing (a robot's URDF is tens of KB)
#define TF_URDF_MAX_FILE_BYTES ((size_t)16 << 20)

typedef enum tf_urdf_shape {
  TF_URDF_BOX = 0,
  TF_URDF_CYLINDER,
  TF_URDF_SPHERE,
  TF_URDF_MESH
} tf_urdf_shape;

// one <collision>, in its link's frame
typedef struct tf_urdf_geom {
  tf_urdf_shape shape;
  double pos[3], quat[4];
  double size[3];  // box: half sizes; cylinder: radius, half length (z); sphere: radius
  tf_mesh mesh;    // mesh: the file's triangles, scaled (link frame units: m)
  long line;
} tf_urdf_geom;

typedef struct tf_urdf_link {
  char* name;
  double mass;        // kg, 0 without <inertial>
  double com[3];      // m, link frame
  double inertia[6];  // about the com, link axes: ixx iyy izz ixy ixz iyz
  tf_urdf_geom* geom;
  int ngeom;
  int parent_joint;  // -1 for the root
  long line;
} tf_urdf_link;

typedef enum tf_urdf_joint_type {
  TF_URDF_REVOLUTE = 0,
  TF_URDF_CONTINUOUS,
  TF_URDF_PRISMATIC,
  TF_URDF_FIXED
} tf_urdf_joint_type;

typedef struct tf_urdf_joint {
  char* name;
  tf_urdf_joint_type type;
  int parent, child;       // link indices
  double pos[3], quat[4];  // the child's frame in the parent's at q = 0
  double axis[3];          // unit, child frame
  int limited;             // revolute, prismatic: lower / upper hold
  double lower, upper;     // rad or m
  double effort;           // N m or N: the motor's clamp (0: none given)
  double velocity;         // rad/s or m/s (read, kept; the engine does not cap speeds)
  double damping;          // N m s / rad or N s / m
  double friction;         // N m or N (dry friction: the joint's frictionloss)
  long line;
} tf_urdf_joint;

typedef struct tf_urdf {
  char* file;  // as given, for messages
  char* name;  // <robot name>
  tf_urdf_link* link;
  int nlink;
  tf_urdf_joint* joint;
  int njoint;
  int root, tcp;               // link indices
  int chain[TF_PANDA_NJOINT];  // the moving joints from the root to the tcp link
} tf_urdf;

// Reads path (meshes too) and resolves the chain to the link named tcp (NULL: the only leaf).
// 0 and *out (free with tf_urdf_free), or -1 with one line in err.
int tf_urdf_load(const char* path, const char* tcp, tf_urdf** out, char* err, size_t errlen);
// the same from memory: name stands for the file in messages, dir is where relative mesh
// paths start ("." if NULL)
int tf_urdf_parse(const char* data, size_t size, const char* name, const char* dir, const char* tcp,
                  tf_urdf** out, char* err, size_t errlen);
void tf_urdf_free(tf_urdf* u);

// Adds the arm (and the gripper when def->gripper) to b at the def's base pose, filling out as
// tf_panda_add does. def->qpos0 must lie within the file's limits (def->continuous_joint7
// lifts the seventh's); armature comes from the def, damping and friction from the file.
// 0, or -1 with one line.
int tf_urdf_add(tf_builder* b, const tf_urdf* u, const tf_panda_def* def, tf_panda* out, char* err,
                size_t errlen);

// the moving joints' limits (lower, upper; -inf / inf when unlimited)
void tf_urdf_limits(const tf_urdf* u, double lower[TF_PANDA_NJOINT], double upper[TF_PANDA_NJOINT]);

// Forward kinematics of the file, without the engine: the tcp link's frame (pos, quat) in the
// root link's frame at joint positions q.
void tf_urdf_fk(const tf_urdf* u, const double q[TF_PANDA_NJOINT], double pos[3], double quat[4]);

// 1 when link hangs below the tcp link: left out of the arm (the Franka Hand replaces a file's
// own gripper)
int tf_urdf_past_tcp(const tf_urdf* u, int link);

// tf_urdf_load of a robot_urdf value: "FILE.urdf" (the tcp link is the tree's only leaf) or
// "FILE.urdf#LINK" (the arm ends at LINK, the hand mounted on it)
int tf_urdf_load_spec(const char* spec, tf_urdf** out, char* err, size_t errlen);

// Loads a robot_urdf value (tf_urdf_load_spec) and builds the arm (gripper included) alone
// into a scratch model, compiled: every problem a run would meet, before it runs. 0, or -1
// with one line.
int tf_urdf_check(const char* spec, char* err, size_t errlen);

#endif  // TF_URDF_H
