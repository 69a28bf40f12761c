// The Videos section (see report_videos.h). A thumbnail named like a video (run7.png beside
// run7.mp4) becomes that video's poster; other thumbnails are shown as images.
#include "report_videos.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "html_escape.h"

// 1 when name ends with ext (".mp4"), any case
static int has_ext(const char* name, const char* ext) {
  size_t n = strlen(name), e = strlen(ext);
  return n > e && strcasecmp(name + n - e, ext) == 0;
}

static int cmp_name(const void* a, const void* b) {
  return strcmp(*(char* const*)a, *(char* const*)b);
}

// the thumbnail named like video `mp4`, or NULL
static const char* poster_for(const char* mp4, char* const* names, int n) {
  size_t stem = strlen(mp4) - 4;
  for (int i = 0; i < n; i++) {
    if (has_ext(names[i], ".png") && strlen(names[i]) == stem + 4 &&
        strncmp(names[i], mp4, stem) == 0) {
      return names[i];
    }
  }
  return NULL;
}

// 1 when a video is named like this thumbnail (so it was used as a poster)
static int is_poster(const char* png, char* const* names, int n) {
  size_t stem = strlen(png) - 4;
  for (int i = 0; i < n; i++) {
    if (has_ext(names[i], ".mp4") && strlen(names[i]) == stem + 4 &&
        strncmp(names[i], png, stem) == 0) {
      return 1;
    }
  }
  return 0;
}

static void media_src(FILE* f, const char* name) {
  fputs("videos/", f);
  tf_html_url_path(f, name);
}

int tf_report_videos_write(FILE* f, const char* dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/videos", dir);
  DIR* d = opendir(path);
  if (!d) {
    fputs("<!-- videos: no videos/ folder in the results directory -->\n", f);
    return 0;
  }
  char** names = NULL;
  int n = 0, cap = 0;
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    if (!has_ext(e->d_name, ".mp4") && !has_ext(e->d_name, ".png")) continue;
    if (n == cap) {
      int ncap = cap ? 2 * cap : 16;
      char** nn = realloc(names, (size_t)ncap * sizeof *nn);
      if (!nn) break;  // list what fits rather than fail the whole report
      names = nn;
      cap = ncap;
    }
    names[n] = strdup(e->d_name);
    if (names[n]) n++;
  }
  closedir(d);
  if (n == 0) {
    free(names);
    fputs("<!-- videos: none in videos/ -->\n", f);
    return 0;
  }
  qsort(names, (size_t)n, sizeof *names, cmp_name);
  int listed = 0;
  fputs("<section id=\"videos\"><h2>Videos</h2>\n<div class=\"media\">\n", f);
  for (int i = 0; i < n; i++) {
    if (!has_ext(names[i], ".mp4")) continue;
    const char* poster = poster_for(names[i], names, n);
    fputs("<figure class=\"video\"><video controls preload=\"metadata\" src=\"", f);
    media_src(f, names[i]);
    fputs("\"", f);
    if (poster) {
      fputs(" poster=\"", f);
      media_src(f, poster);
      fputs("\"", f);
    }
    fputs("></video><figcaption>", f);
    tf_html_puts(f, names[i]);
    fputs("</figcaption></figure>\n", f);
    listed++;
  }
  for (int i = 0; i < n; i++) {
    if (!has_ext(names[i], ".png") || is_poster(names[i], names, n)) continue;
    fputs("<figure class=\"thumb\"><img src=\"", f);
    media_src(f, names[i]);
    fputs("\" alt=\"", f);
    tf_html_puts(f, names[i]);
    fputs("\"><figcaption>", f);
    tf_html_puts(f, names[i]);
    fputs("</figcaption></figure>\n", f);
    listed++;
  }
  fputs("</div>\n</section>\n", f);
  for (int i = 0; i < n; i++) free(names[i]);
  free(names);
  return listed;
}
