// The part descriptors behind the registry (private to assets/). Each part file defines its
// tf_part_info with its schema and build function.
#ifndef TF_PARTS_INTERNAL_H
#define TF_PARTS_INTERNAL_H

#include "parts.h"

extern const tf_part_info tf_part_peg;
extern const tf_part_info tf_part_hole;
extern const tf_part_info tf_part_bolt;
extern const tf_part_info tf_part_nut;
extern const tf_part_info tf_part_gear;
extern const tf_part_info tf_part_connector_plug;
extern const tf_part_info tf_part_connector_socket;

#endif  // TF_PARTS_INTERNAL_H
