// The videos a sweep renders after its runs, from the config's "video" section:
//
//   "video": {"select": "worst",   "worst" (default): per task the worst run, "best": per
//                                  task the best, "both": best and worst per task, "failed":
//                                  every run that failed, diverged or missed its task, "all"
//             "camera": "closeup", "closeup" (default), "wide" or "grid"
//             "fps": 30, "size": "640x480", "max": 8}   at most max videos (default 8)
//
// A run is worse when it failed or diverged, then when it missed its task (success false),
// then by its tunnelled environments, its gear slip and its peak overlap; the best is the
// other end. Each video goes to DIR/videos/<run_id>.mp4 with a thumbnail <run_id>.png, which
// report.html embeds.
#ifndef TF_SWEEP_VIDEO_H
#define TF_SWEEP_VIDEO_H

#include <cJSON.h>
#include <stddef.h>

#include "config_errors.h"
#include "sweep_config.h"
#include "video_run.h"

typedef enum { TF_PICK_WORST = 0, TF_PICK_BEST, TF_PICK_BOTH, TF_PICK_FAILED, TF_PICK_ALL } tf_pick;

typedef struct tf_sweep_video {
  int on;  // the config has a video section
  tf_pick pick;
  int max;
  tf_video_options options;
} tf_sweep_video;

// checks the section (NULL: no videos) as part of the config's check (sweep_config.c): each
// problem goes into e with its JSON path ("video.fps: must be ..."), all in one pass; a
// repeated key is not named here (the config check does that). 0, or -1 when any was found
int tf_sweep_video_check(const cJSON* section, tf_config_errors* e);

// reads the section (NULL: no videos) with the same checks, so a section that passed
// tf_sweep_video_check reads without error; -1 with the first problem's message
int tf_sweep_video_parse(tf_sweep_video* v, const cJSON* section, char* err, size_t errlen);

// renders the chosen runs of a finished sweep in dir; returns the number of videos written,
// or -1 with a message (a failed video stops the rest: its error is the message)
int tf_sweep_video_render(const tf_sweep_video* v, const tf_sweep_plan* plan, const char* dir,
                          char* err, size_t errlen);

// removes what unfinished videos left in dir/videos: temporary files (NAME.tmp.XXXXXX) and
// thumbnails whose video is missing; returns the number of files removed
int tf_sweep_video_clean(const char* dir);

#endif  // TF_SWEEP_VIDEO_H
