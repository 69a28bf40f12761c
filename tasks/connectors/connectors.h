// The connectors task's parameters and their reading into a rig configuration; private to
// tasks/connectors and its tests (the registry sees tf_task_connectors through task_list.h).
#ifndef TF_CONNECTORS_H
#define TF_CONNECTORS_H

#include "connectors_scene.h"

// the schema's entries, in order
enum {
  CN_TYPE = 0,
  CN_CLEARANCE,
  CN_PUSH,
  CN_IMPACT_SPEED,
  CN_PUSH_FORCE,
  CN_MU,
  CN_COLLIDER,
  CN_START_GAP,
  CN_PLUG_MASS,
  CN_MESH_CHORD,
  CN_PINS,
  CN_NPARAM
};

extern const tf_param_spec tf_connectors_params[CN_NPARAM];
extern const tf_task_info tf_task_connectors;

// the rig of environment `index` from parsed values: the centred, straight plug for index 0,
// an offset and tilt drawn from rng otherwise; 0, or -1 with a message naming the key when
// two parameters do not go together (push=speed with no speed, a push with no force)
int tf_connectors_config_from_values(tf_connectors_config* c, const double* values, int index,
                                     tf_rng* rng, char* err, size_t errlen);

#endif  // TF_CONNECTORS_H
