// Task cameras: where to look in a task environment, from what its probe spec says moves.
//
// A gear train is judged at its mesh, so the close-up centres on the point where the first
// two gears' pitch circles meet (approximated by their bounding spheres' radii) and frames
// half the smaller gear. An insertion (peg, nut, plug) is judged where the moving part's
// leading end meets the fixed part, so the close-up centres on that end: the moving part's
// box pushed along the insertion axis to its face, framed at 1.5 times the part's radius
// across the axis, which keeps the rim of the hole, the thread entry or the socket in view.
// The cut for a section view goes through that part's axis: half the part and half of what
// it goes into are taken away, and the fit shows in section.
#include <math.h>

#include "render.h"
#include "task.h"

void tf_render_task_wide(tf_camera* cam, const tf_render_scene* s, const tf_env* env,
                         double aspect) {
  double lo[3], hi[3];
  tf_render_scene_bounds(s, env->data, lo, hi);
  tf_camera_wide(cam, lo, hi, aspect);
}

// the close-up on the mesh of gears 0 and 1; 0, or -1 when they show nothing
static int gear_mesh(tf_camera* cam, const tf_render_scene* s, const tf_env* env, double aspect) {
  const tf_probe_spec* p = &env->probe;
  double c0[3], c1[3], r0, r1;
  if (tf_render_body_sphere(s, env->data, p->gear_body[0], c0, &r0) ||
      tf_render_body_sphere(s, env->data, p->gear_body[1], c1, &r1) || !(r0 + r1 > 0)) {
    return -1;
  }
  double at[3], t = r0 / (r0 + r1);
  for (int i = 0; i < 3; i++) at[i] = c0[i] + t * (c1[i] - c0[i]);
  tf_camera_closeup(cam, at, 0.5 * fmin(r0, r1), aspect);
  return 0;
}

// the close-up on the moving part's leading end; 0, or -1 when it shows nothing
static int leading_end(tf_camera* cam, const tf_render_scene* s, const tf_env* env, double aspect) {
  const tf_probe_spec* p = &env->probe;
  double lo[3], hi[3];
  if (tf_render_body_bounds(s, env->data, p->tunnel_body, lo, hi)) return -1;
  double a[3] = {p->axis[0], p->axis[1], p->axis[2]};
  double len = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  if (!(len > 0)) a[0] = a[1] = 0, a[2] = -1, len = 1;
  double reach = 0, lateral2 = 0, at[3];
  for (int i = 0; i < 3; i++) {
    a[i] /= len;
    double half = 0.5 * (hi[i] - lo[i]);
    reach += fabs(a[i]) * half;
    lateral2 += half * half * (1 - a[i] * a[i]);
  }
  for (int i = 0; i < 3; i++) at[i] = 0.5 * (lo[i] + hi[i]) + reach * a[i];
  tf_camera_closeup(cam, at, 1.5 * sqrt(lateral2), aspect);
  return 0;
}

void tf_render_task_closeup(tf_camera* cam, const tf_render_scene* s, const tf_env* env,
                            double aspect) {
  const tf_probe_spec* p = &env->probe;
  if (p->ngear >= 2 && gear_mesh(cam, s, env, aspect) == 0) return;
  if (p->tunnel_body > 0 && leading_end(cam, s, env, aspect) == 0) return;
  tf_render_task_wide(cam, s, env, aspect);
}

void tf_render_task_cut(tf_camera* cam, const tf_render_scene* s, const tf_env* env) {
  const tf_probe_spec* p = &env->probe;
  double lo[3], hi[3];
  if (p->ngear >= 2 || p->tunnel_body <= 0 ||
      tf_render_body_bounds(s, env->data, p->tunnel_body, lo, hi)) {
    return;  // a gear mesh is seen from outside
  }
  double at[3];
  for (int i = 0; i < 3; i++) at[i] = 0.5 * (lo[i] + hi[i]);
  tf_camera_cut(cam, at);
}
