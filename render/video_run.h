// A rollout video of one run: the task's environments stepped control step by control step,
// rendered headless at a fixed frame rate with an overlay (task, solver, dt, simulated time
// and a live probe value), encoded to H.264 MP4, and a PNG thumbnail of the last frame.
#ifndef TF_VIDEO_RUN_H
#define TF_VIDEO_RUN_H

#include <signal.h>
#include <stddef.h>

#include "render.h"
#include "task.h"

typedef enum tf_video_view {
  TF_VIEW_WIDE = 0,  // the whole rig
  TF_VIEW_CLOSEUP,   // where the parts meet (peg tip, nut, gear mesh, plug pins)
  TF_VIEW_GRID,      // four environments in a 2 x 2 grid, close-ups
  TF_VIEW_FREE,      // the camera given
} tf_video_view;

typedef struct tf_video_options {
  tf_video_view view;
  tf_camera camera;       // TF_VIEW_FREE only
  int fps;                // 1 to 240
  int width, height;      // even, 16 to 4096
  int threads;            // render threads (1 to 64)
  const char* thumbnail;  // PNG path for a 160-pixel-wide thumbnail of the last frame, or NULL;
                          // written (atomically) only once the video is in place
  const volatile sig_atomic_t* cancel;  // or NULL: when it reads non-zero (a Ctrl-C handler
                                        // set it) the render stops at the next frame and
                                        // fails with "interrupted", leaving no file
} tf_video_options;

void tf_video_options_default(tf_video_options* v);

// renders run o into an MP4 at path (written to a temporary name and renamed: a failure
// leaves no file, and no thumbnail either). The video lasts the run's duration at fps (frame k
// shows simulated time k / fps, the run's state at the last control step at or before it). With
// TF_VIEW_GRID the run gets 4 environments. Returns 0, or -1 with a one-line message (bad options,
// an unwritable path, a task that does not build); frames written is set when not NULL.
int tf_video_render_run(const tf_run_options* o, const tf_video_options* v, const char* path,
                        int* frames, char* err, size_t errlen);

#endif  // TF_VIDEO_RUN_H
