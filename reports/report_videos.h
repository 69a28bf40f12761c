// The report's Videos section: rollout videos (DIR/videos/*.mp4) and thumbnails
// (DIR/videos/*.png) linked by relative path, so the report stays small and opens the files
// beside it. Private to the reports layer; the issue that renders videos extends this file.
#ifndef TF_REPORT_VIDEOS_H
#define TF_REPORT_VIDEOS_H

#include <stdio.h>

// writes the section when DIR/videos holds any .mp4 or .png, else only an HTML comment;
// returns the number of videos plus stand-alone thumbnails listed
int tf_report_videos_write(FILE* f, const char* dir);

#endif  // TF_REPORT_VIDEOS_H
