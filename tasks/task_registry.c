// The task registry: every assembly task, in the order `tightfit list` shows them.
#include <string.h>

#include "task.h"
#include "task_list.h"

static const tf_task_info* const tasks[] = {TF_TASK_LIST};

int tf_task_count(void) { return (int)(sizeof(tasks) / sizeof(tasks[0])) - 1; }

int tf_task_builtin_count(void) {
  int n = 0;
  while (n < tf_task_count() && !tasks[n]->user_scene) n++;
  return n;
}

const tf_task_info* tf_task_at(int index) {
  return index >= 0 && index < tf_task_count() ? tasks[index] : NULL;
}

const tf_task_info* tf_task_find(const char* name) {
  for (int i = 0; name && i < tf_task_count(); i++) {
    if (strcmp(tasks[i]->name, name) == 0) return tasks[i];
  }
  return NULL;
}

const tf_task_info* tf_task_for_mode(const tf_task_info* task, tf_task_mode mode) {
  if (!task) return NULL;
  if (mode == TF_MODE_RIG) return task;
  return mode == TF_MODE_ROBOT ? task->robot : NULL;
}
