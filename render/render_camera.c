// Cameras: the default framings, the command line's free camera, and a camera's frame for
// one image (axes, focal length in samples, the key light).
//
// The key light hangs above and behind the viewer's left shoulder (azimuth fixed to the
// camera, elevation about 57 deg): faces turned to the viewer are lit, and the shadows fall
// forward and to the right, beside the parts instead of hidden behind them.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_internal.h"
#include "tf_math.h"

#define DEFAULT_FOVY 40.0     // deg
#define WIDE_AZIMUTH -65.0    // deg about z from +x: looking from the front (-y), a bit right
#define WIDE_ELEVATION 30.0   // deg above the horizon
#define CLOSE_ELEVATION 20.0  // deg

static double normalize3(double v[3]) {
  double len = sqrt(tf_vec3_dot(v, v));
  if (len > 0) {
    for (int i = 0; i < 3; i++) v[i] /= len;
  }
  return len;
}

// the eye `dist` away from target along the fixed view direction at this elevation
static void place(tf_camera* cam, const double target[3], double dist, double elevation_deg) {
  memset(cam, 0, sizeof(*cam));
  double az = WIDE_AZIMUTH * M_PI / 180, el = elevation_deg * M_PI / 180;
  double dir[3] = {cos(el) * cos(az), cos(el) * sin(az), sin(el)};
  for (int i = 0; i < 3; i++) {
    cam->target[i] = target[i];
    cam->pos[i] = target[i] + dist * dir[i];
  }
  cam->fovy = DEFAULT_FOVY;
}

// distance at which a sphere of this radius fits both the height and the width of the view
static double fit_distance(double radius, double fovy_deg, double aspect) {
  double half_v = 0.5 * fovy_deg * M_PI / 180;
  double half_h = atan((aspect > 0 ? aspect : 1) * tan(half_v));
  return radius / sin(fmin(half_v, half_h));
}

void tf_camera_wide(tf_camera* cam, const double lo[3], const double hi[3], double aspect) {
  double center[3], r2 = 0;
  for (int i = 0; i < 3; i++) {
    center[i] = 0.5 * (lo[i] + hi[i]);
    r2 += 0.25 * (hi[i] - lo[i]) * (hi[i] - lo[i]);
  }
  double radius = fmax(sqrt(r2), 1e-4);
  place(cam, center, fit_distance(radius, DEFAULT_FOVY, aspect), WIDE_ELEVATION);
}

void tf_camera_closeup(tf_camera* cam, const double point[3], double radius, double aspect) {
  double r = radius > 1e-5 ? radius : 1e-5;
  place(cam, point, fit_distance(r, DEFAULT_FOVY, aspect), CLOSE_ELEVATION);
}

int tf_camera_check(const tf_camera* cam, char* err, size_t errlen) {
  for (int i = 0; i < 3; i++) {
    if (!isfinite(cam->pos[i]) || !isfinite(cam->target[i])) {
      snprintf(err, errlen, "camera: position and target must be finite numbers");
      return -1;
    }
  }
  double gap[3] = {cam->target[0] - cam->pos[0], cam->target[1] - cam->pos[1],
                   cam->target[2] - cam->pos[2]};
  if (!(sqrt(tf_vec3_dot(gap, gap)) > 1e-9)) {
    snprintf(err, errlen, "camera: the target must differ from the position");
    return -1;
  }
  if (!(cam->fovy > 0 && cam->fovy < 180)) {
    snprintf(err, errlen, "camera: fovy must be in (0, 180) degrees (got %g)", cam->fovy);
    return -1;
  }
  for (int i = 0; i < 3; i++) {
    if (!isfinite(cam->section_point[i]) || !isfinite(cam->section_normal[i])) {
      snprintf(err, errlen, "camera: the section point and normal must be finite numbers");
      return -1;
    }
  }
  return 0;
}

void tf_camera_cut(tf_camera* cam, const double point[3]) {
  double toward[3] = {cam->pos[0] - point[0], cam->pos[1] - point[1], 0};
  if (normalize3(toward) == 0) {
    // looking straight down at the point: cut along the camera's own forward direction
    toward[0] = cam->pos[0] - cam->target[0], toward[1] = cam->pos[1] - cam->target[1];
    if (normalize3(toward) == 0) toward[0] = 0, toward[1] = -1;
  }
  memcpy(cam->section_point, point, sizeof(cam->section_point));
  memcpy(cam->section_normal, toward, sizeof(cam->section_normal));
}

int tf_camera_parse(tf_camera* cam, const char* text, char* err, size_t errlen) {
  double v[7];
  const char* at = text ? text : "";
  for (int i = 0; i < 7; i++) {
    char* end;
    v[i] = strtod(at, &end);
    int sep_ok = i < 6 ? *end == ',' : *end == '\0';
    if (end == at || !sep_ok) {
      snprintf(err, errlen,
               "camera '%s': expected 7 comma-separated numbers px,py,pz,tx,ty,tz,fovy",
               text ? text : "");
      return -1;
    }
    at = end + 1;
  }
  tf_camera c;
  memset(&c, 0, sizeof(c));
  memcpy(c.pos, v, sizeof(c.pos));
  memcpy(c.target, v + 3, sizeof(c.target));
  c.fovy = v[6];
  if (tf_camera_check(&c, err, errlen)) return -1;
  *cam = c;
  return 0;
}

int render_view_setup(render_view* v, const tf_camera* cam, int width, int height, char* err,
                      size_t errlen) {
  if (tf_camera_check(cam, err, errlen)) return -1;
  memset(v, 0, sizeof(*v));
  memcpy(v->eye, cam->pos, sizeof(v->eye));
  double dist = 0;
  for (int i = 0; i < 3; i++) v->forward[i] = cam->target[i] - cam->pos[i];
  dist = normalize3(v->forward);
  // up is +z unless the view runs along z, where +y takes over
  double world_up[3] = {0, 0, 1};
  if (fabs(v->forward[2]) > 1 - 1e-9) world_up[1] = 1, world_up[2] = 0;
  tf_vec3_cross(v->right, v->forward, world_up);
  normalize3(v->right);
  tf_vec3_cross(v->up, v->right, v->forward);
  v->width = RENDER_SS * width;
  v->height = RENDER_SS * height;
  v->focal = 0.5 * v->height / tan(0.5 * cam->fovy * M_PI / 180);
  v->near = fmax(1e-3 * dist, 1e-6);
  v->guard = v->width > v->height ? v->width : v->height;
  // key light: behind the viewer's left shoulder, high up
  double right_h[3] = {v->right[0], v->right[1], 0};
  if (normalize3(right_h) == 0) right_h[0] = 1;
  const double z[3] = {0, 0, 1};
  double back_h[3];
  tf_vec3_cross(back_h, right_h, z);
  for (int i = 0; i < 3; i++) v->light[i] = -0.5 * right_h[i] + 0.6 * back_h[i] + 1.2 * z[i];
  normalize3(v->light);
  for (int i = 0; i < 3; i++) v->half_vector[i] = v->light[i] - v->forward[i];
  normalize3(v->half_vector);
  // the section in camera coordinates: a world point x is kept when n . (x - p) <= 0, and
  // x = eye + c0 right + c1 up + c2 forward
  double n[3];
  memcpy(n, cam->section_normal, sizeof(n));
  if (normalize3(n) > 0) {
    double eye_side = 0;
    for (int i = 0; i < 3; i++) eye_side += n[i] * (v->eye[i] - cam->section_point[i]);
    v->cut = 1;
    v->section[0] = -tf_vec3_dot(n, v->right);
    v->section[1] = -tf_vec3_dot(n, v->up);
    v->section[2] = -tf_vec3_dot(n, v->forward);
    v->section[3] = -eye_side;
  }
  return 0;
}
