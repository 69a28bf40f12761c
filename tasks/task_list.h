// The tasks the registry lists (task_registry.c), in the order `tightfit list` shows them:
// each task's folder defines its tf_task_info; one declaration and one list entry per task.
#ifndef TF_TASK_LIST_H
#define TF_TASK_LIST_H

#include "task.h"

extern const tf_task_info tf_task_peg;
extern const tf_task_info tf_task_boltnut;
extern const tf_task_info tf_task_gears;
extern const tf_task_info tf_task_connectors;
extern const tf_task_info tf_task_assembly;  // tasks/assembly: a scene from an assembly file

// the built-in tasks first, then those built from a user's file (tf_task_builtin_count); the
// list ends with NULL so that the array is never empty (one task a line)
// clang-format off
#define TF_TASK_LIST    \
  &tf_task_peg,         \
  &tf_task_boltnut,     \
  &tf_task_gears,       \
  &tf_task_connectors,  \
  &tf_task_assembly,    \
  NULL
// clang-format on
#endif  // TF_TASK_LIST_H
