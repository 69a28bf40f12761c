// The runs a sweep records step by step, from the config's "record" section:
//
//   "record": {"runs": [0, 3]}     runs by their number in the sweep's expansion order
//                                  (sweep_config.h: 0 is the first run, nrun - 1 the last)
//   "record": {"runs": "all"}      every run
//
// Each chosen run is recorded while it runs (reports/record.h) into DIR/record/<run_id>.npz,
// written whole or not at all; its row is the same as without the recording.
#ifndef TF_SWEEP_RECORD_H
#define TF_SWEEP_RECORD_H

#include <cJSON.h>
#include <stddef.h>

#include "config_errors.h"

// checks the section (NULL: nothing recorded) as part of the config's check, each problem
// into e with its JSON path ("record.runs[1]: ..."), all in one pass. With chosen NULL it
// checks the form only (the run count is not known before the grid expands); with chosen
// ((nrun) flags, zeroed) it also checks each number against nrun and sets the chosen runs'
// flags. 0, or -1 when any problem was found
int tf_sweep_record_select(const cJSON* section, int nrun, unsigned char* chosen,
                           tf_config_errors* e);

// DIR/record, made when missing; checks a file can be created in it. 0, or -1 with
// "PATH: problem"
int tf_sweep_record_prepare(const char* dir, char* err, size_t errlen);

// DIR/record/<run_id>.npz into out
void tf_sweep_record_path(const char* dir, const char* run_id, char* out, size_t n);

// removes what a killed sweep's recordings left in DIR/record (temporary files,
// NAME.npz.tmp.XXXXXX and libzip's NAME.npz.tmp.XXXXXX.XXXXXX); returns the files removed
int tf_sweep_record_clean(const char* dir);

#endif  // TF_SWEEP_RECORD_H
