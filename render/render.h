// Headless software rasterizer for rollout frames: no display, no GPU, no OpenGL.
//
// Three objects, each built once and reused for every frame of a video:
//   tf_render_scene  one triangle mesh per visible geom of a tf_model (primitives tessellated
//                    at a fixed resolution, hulls from their faces, meshes as they are, SDF
//                    geoms through their attached surface mesh or, without one, surface nets
//                    of the SDF), a colour per geom, and a floor to catch shadows when the
//                    model has no horizontal plane;
//   tf_camera        eye, target and vertical field of view (up is +z);
//   tf_renderer      the scratch memory and the thread count of the frame pipeline.
// A frame poses the scene from tf_data (geom_xpos / geom_xmat: run tf_kinematics first, since
// after tf_step they still hold the pose the step started from) and writes RGB8 into a
// tf_image: 2x2 supersampling, depth buffer, Lambert + ambient with a key light and a
// headlight fill, the shadow of every part projected onto the ground. The output is
// bit-identical for any thread count and on every run. A scene is read-only while rendering,
// so renderers in parallel threads may share one; a renderer draws one frame at a time.
//
// Typical use (one environment, a video of frames):
//   tf_render_scene* scene = tf_render_scene_create(m, err, sizeof err);
//   tf_renderer* r = tf_renderer_create(threads, err, sizeof err);
//   tf_image frame;  tf_image_alloc(&frame, 640, 480, err, sizeof err);
//   double lo[3], hi[3];  tf_render_scene_bounds(scene, d, lo, hi);
//   tf_camera cam;  tf_camera_wide(&cam, lo, hi, 640.0 / 480);
//   each frame: tf_kinematics(m, d); tf_render(r, scene, m, d, &cam, &frame, err, sizeof err);
//   tf_png_write("frame.png", &frame, err, sizeof err);
// A grid of environments renders each one into a sub-view of one frame (tf_image_sub).
#ifndef TF_RENDER_H
#define TF_RENDER_H

#include <stddef.h>

#include "tightfit.h"

struct tf_env;  // tasks/task.h

#define TF_IMAGE_MAX_SIDE 8192  // pixels: the largest width or height accepted

// ---------------------------------------------------------------- images

// an RGB8 image or a view into one: `height` rows top to bottom, `stride` bytes apart, 3 bytes
// (r, g, b) per pixel
typedef struct tf_image {
  unsigned char* rgb;
  int width;
  int height;
  int stride;  // bytes between the starts of two rows, >= 3 * width
} tf_image;

// allocates a zeroed width x height image (stride 3 * width); sides in [1, TF_IMAGE_MAX_SIDE];
// returns 0, or -1 with a one-line message
int tf_image_alloc(tf_image* img, int width, int height, char* err, size_t errlen);
// frees an image from tf_image_alloc or tf_png_read (not a sub-view) and zeroes it
void tf_image_free(tf_image* img);
// a view of the rectangle (x, y, width, height) of img, sharing its pixels; the rectangle is
// clipped to the image (an empty one gives width or height 0)
tf_image tf_image_sub(const tf_image* img, int x, int y, int width, int height);
// area-weighted resampling of src into dst (thumbnails: any ratio, exact integer weights)
void tf_image_downscale(const tf_image* dst, const tf_image* src);
// peak signal-to-noise ratio in dB between two images of the same size over all channels;
// INFINITY when identical, -1 when the sizes differ
double tf_image_psnr(const tf_image* a, const tf_image* b);

// writes img as an 8-bit RGB PNG, atomically (a temporary file renamed into place: a failure
// leaves no file behind); returns 0, or -1 with "PATH: problem"
int tf_png_write(const char* path, const tf_image* img, char* err, size_t errlen);
// reads any PNG as RGB8 into a new image (free with tf_image_free); 0, or -1 with a message
int tf_png_read(tf_image* img, const char* path, char* err, size_t errlen);

// ---------------------------------------------------------------- scene

typedef struct tf_render_scene tf_render_scene;

// builds the meshes of every visible geom of m: geoms with contype == 0 and conaffinity == 0
// (measurement copies) are left out unless one is the only geom on its body; an SDF geom
// without a surface mesh is meshed from its SDF at a fixed resolution. Colours: geom_rgba, or
// a palette colour by body when it is all zero. Returns NULL with a one-line message on
// failure.
tf_render_scene* tf_render_scene_create(const tf_model* m, char* err, size_t errlen);
void tf_render_scene_destroy(tf_render_scene* s);
// triangles drawn per frame (the floor included), for benchmarks
int tf_render_scene_triangles(const tf_render_scene* s);
// axis-aligned box around every visible geom (not the floor or planes) at d's pose; an empty
// scene gives a 0.1 m box at the origin
void tf_render_scene_bounds(const tf_render_scene* s, const tf_data* d, double lo[3], double hi[3]);
// the box around one body's visible geoms at d's pose; 0, or -1 (untouched) when the body
// shows nothing
int tf_render_body_bounds(const tf_render_scene* s, const tf_data* d, int body, double lo[3],
                          double hi[3]);
// bounding sphere (centre of the box, half its diagonal) of one body's visible geoms at d's
// pose; returns 0, or -1 (centre and radius untouched) when the body shows nothing
int tf_render_body_sphere(const tf_render_scene* s, const tf_data* d, int body, double center[3],
                          double* radius);

// ---------------------------------------------------------------- cameras

typedef struct tf_camera {
  double pos[3];     // eye (m, world)
  double target[3];  // the point looked at; up is +z, or +y when looking straight up or down
  double fovy;       // vertical field of view (deg), in (0, 180)
  // section view: every part (not the floor) is cut by the plane through section_point with
  // normal section_normal, and the side the normal points to is taken away; a cut solid
  // shows its cut face darker and hatched. A zero normal (the default) keeps the parts whole.
  double section_point[3];
  double section_normal[3];
} tf_camera;

// the default overview: looks down at 30 deg from the front (-y, a little toward +x) at the
// box's centre, far enough that the box's bounding sphere fits the view at this aspect
// (width / height)
void tf_camera_wide(tf_camera* cam, const double lo[3], const double hi[3], double aspect);
// a close-up from the same direction at 20 deg: the sphere (point, radius) fills the view.
// Both give a camera without a section.
void tf_camera_closeup(tf_camera* cam, const double point[3], double radius, double aspect);
// the task cameras of one environment (a tf_env from tasks/task.h, built from the same model
// as s, at its current pose): wide frames every visible part; the close-up frames where the
// parts meet: the mesh between the first two gears of a gear train, else the leading end of
// the tunnel probe's moving part (peg tip, nut bottom, plug pins) along the insertion axis,
// else the whole scene
void tf_render_task_wide(tf_camera* cam, const tf_render_scene* s, const struct tf_env* env,
                         double aspect);
void tf_render_task_closeup(tf_camera* cam, const tf_render_scene* s, const struct tf_env* env,
                            double aspect);
// a section view of cam: takes away everything between the camera and the vertical plane
// through point that faces the camera, to look inside a bore, a nut or a socket
void tf_camera_cut(tf_camera* cam, const double point[3]);
// the cut of the task's close-up: through the moving part's axis (peg, nut, plug), so the
// part and the hole, thread or socket around it show in section; none for a gear train
void tf_render_task_cut(tf_camera* cam, const tf_render_scene* s, const struct tf_env* env);
// parses "px,py,pz,tx,ty,tz,fovy" (the CLI's --camera pos,target,fovy; no section); 0, or -1
// with a message
int tf_camera_parse(tf_camera* cam, const char* text, char* err, size_t errlen);
// 0 when the camera is usable (finite, eye away from the target, fovy in (0, 180), a finite
// section), else -1 with a message
int tf_camera_check(const tf_camera* cam, char* err, size_t errlen);

// ---------------------------------------------------------------- frames

typedef struct tf_renderer tf_renderer;

// a renderer splitting each frame over `threads` threads (1 to 64, the calling thread being one
// of them); NULL with a message on bad input or no memory
tf_renderer* tf_renderer_create(int threads, char* err, size_t errlen);
void tf_renderer_destroy(tf_renderer* r);

// renders the scene at d's pose (geom_xpos / geom_xmat, so after tf_kinematics)
// seen from cam into out (any size up to TF_IMAGE_MAX_SIDE, a sub-view is fine). The same
// inputs give the same bytes for every thread count. Returns 0, or -1 with a one-line message
// (bad camera, image, model mismatch, no memory); out is then unspecified.
int tf_render(tf_renderer* r, const tf_render_scene* s, const tf_model* m, const tf_data* d,
              const tf_camera* cam, const tf_image* out, char* err, size_t errlen);

#endif  // TF_RENDER_H
