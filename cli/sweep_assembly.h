// A sweep config's "assembly": "FILE.json" (docs/assemblies.md): sugar for task assembly with
// "set": {"assembly": FILE.json}, the path taken relative to the config file's folder.
#ifndef TF_SWEEP_ASSEMBLY_H
#define TF_SWEEP_ASSEMBLY_H

#include <stddef.h>

// text (a config's JSON) with a top-level "assembly" key rewritten: *out the config as task
// "assembly" with set.assembly the file's absolute path (a relative one joined to
// config_path's folder; NULL config_path: to the working folder), malloc'd; *out NULL when there is
// nothing to rewrite (no such key, or text that is not a JSON object: the config's own parse
// reports it). 0, or -1 with a one-line "assembly: problem"
int tf_sweep_assembly_rewrite(const char* text, const char* config_path, char** out, char* err,
                              size_t errlen);

#endif  // TF_SWEEP_ASSEMBLY_H
