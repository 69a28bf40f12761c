// The software rasterizer: a fixed scene (a box base, an involute gear part through its
// surface mesh, sphere, capsule, cylinder, a coloured hull, a hidden measurement copy) against
// a checked-in golden PNG; the same bytes for 1, 2 and 3 threads and across renderers; depth
// order, the ground shadow, the section view, geom colours and the measurement-copy rule; PNG
// round trips and atomic failure on a broken path; thumbnails; cameras and bad input.
//
// To regenerate the golden image after an intended change of the renderer's look, run this
// test with TF_UPDATE_GOLDEN=1 from the repository root, then look at the PNG before checking
// it in.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parts.h"
#include "render.h"
#include "render_internal.h"

#define GOLDEN_PATH "tests/render/golden/render_scene.png"
#define GOLDEN_W 200
#define GOLDEN_H 150

static tf_body_def body_at(const char* name, double x, double y, double z) {
  tf_body_def b = tf_body_def_default();
  b.name = name;
  b.pos[0] = x, b.pos[1] = y, b.pos[2] = z;
  b.mass = 0.01;
  return b;
}

static tf_geom_def geom_of(const char* name, int body, tf_geom_type type, double s0, double s1,
                           double s2) {
  tf_geom_def g = tf_geom_def_default();
  g.name = name;
  g.body = body;
  g.type = type;
  g.size[0] = s0, g.size[1] = s1, g.size[2] = s2;
  return g;
}

// the golden scene; with_measure adds a non-colliding copy of the gear that must not show
static tf_model* golden_model(int with_measure) {
  tf_builder* b = tf_builder_create();
  assert_non_null(b);
  char err[256] = "";
  tf_geom_def g = geom_of("base", 0, TF_GEOM_BOX, 0.045, 0.03, 0.004);
  g.pos[2] = 0.004;
  assert_true(tf_builder_add_geom(b, &g) >= 0);

  tf_part_geometry gear;
  const tf_kv kv[] = {{"module_mm", "1.5"},
                      {"teeth", "14"},
                      {"face_mm", "6"},
                      {"bore_mm", "6"},
                      {"chord_um", "30"}};
  if (tf_part_build("gear", kv, 5, &gear, err, sizeof err)) fail_msg("%s", err);
  int sdf = tf_part_add_to_builder(b, "gear", &gear);
  assert_true(sdf >= 0);
  tf_body_def bd = body_at("gear", 0.012, 0.004, 0.011);
  int gear_body = tf_builder_add_body(b, &bd);
  g = geom_of("gear", gear_body, TF_GEOM_SDF, 0, 0, 0);
  g.sdf = sdf;
  assert_true(tf_builder_add_geom(b, &g) >= 0);
  if (with_measure) {
    g.name = "gear_measure";
    g.contype = g.conaffinity = 0;
    g.pos[2] = 0.004;  // would show as a second, higher gear
    assert_true(tf_builder_add_geom(b, &g) >= 0);
  }

  bd = body_at("ball", -0.028, -0.012, 0.015);
  g = geom_of("ball", tf_builder_add_body(b, &bd), TF_GEOM_SPHERE, 0.007, 0, 0);
  assert_true(tf_builder_add_geom(b, &g) >= 0);

  bd = body_at("capsule", -0.022, 0.016, 0.013);
  bd.quat[0] = cos(0.25 * M_PI), bd.quat[2] = sin(0.25 * M_PI);  // lying along x
  g = geom_of("capsule", tf_builder_add_body(b, &bd), TF_GEOM_CAPSULE, 0.004, 0.012, 0);
  assert_true(tf_builder_add_geom(b, &g) >= 0);

  bd = body_at("can", 0.035, 0.018, 0.016);
  g = geom_of("can", tf_builder_add_body(b, &bd), TF_GEOM_CYLINDER, 0.006, 0.008, 0);
  assert_true(tf_builder_add_geom(b, &g) >= 0);

  // an octahedron hull with its own colour, one corner down on the base
  const double pts[] = {0.008, 0,      0, -0.008, 0, 0,     0, 0.008, 0,
                        0,     -0.008, 0, 0,      0, 0.008, 0, 0,     -0.008};
  int hull = tf_builder_add_hull(b, "octa", pts, 6);
  bd = body_at("octa", 0.034, -0.016, 0.016);
  g = geom_of("octa", tf_builder_add_body(b, &bd), TF_GEOM_HULL, 0, 0, 0);
  g.hull = hull;
  g.rgba[0] = 0.75f, g.rgba[1] = 0.2f, g.rgba[2] = 0.7f, g.rgba[3] = 1;
  assert_true(tf_builder_add_geom(b, &g) >= 0);

  tf_model* m = tf_builder_compile(b, err, sizeof err);
  if (!m) fail_msg("compile: %s", err);
  tf_builder_destroy(b);
  tf_part_geometry_free(&gear);
  return m;
}

typedef struct fixture {
  tf_model* m;
  tf_data* d;
  tf_render_scene* scene;
  tf_camera cam;
} fixture;

static fixture fixture_make(int with_measure) {
  fixture f;
  char err[256] = "";
  f.m = golden_model(with_measure);
  f.d = tf_data_create(f.m);
  assert_non_null(f.d);
  tf_kinematics(f.m, f.d);
  f.scene = tf_render_scene_create(f.m, err, sizeof err);
  if (!f.scene) fail_msg("%s", err);
  double lo[3], hi[3];
  tf_render_scene_bounds(f.scene, f.d, lo, hi);
  tf_camera_wide(&f.cam, lo, hi, (double)GOLDEN_W / GOLDEN_H);
  return f;
}

static void fixture_free(fixture* f) {
  tf_render_scene_destroy(f->scene);
  tf_data_destroy(f->d);
  tf_model_destroy(f->m);
}

// a freshly allocated frame of the fixture rendered with `threads` threads
static tf_image render_with(const fixture* f, int threads, int w, int h) {
  char err[256] = "";
  tf_renderer* r = tf_renderer_create(threads, err, sizeof err);
  if (!r) fail_msg("%s", err);
  tf_image img;
  assert_int_equal(tf_image_alloc(&img, w, h, err, sizeof err), 0);
  tf_camera cam = f->cam;
  if (tf_render(r, f->scene, f->m, f->d, &cam, &img, err, sizeof err)) fail_msg("%s", err);
  tf_renderer_destroy(r);
  return img;
}

static void test_golden_image(void** state) {
  (void)state;
  fixture f = fixture_make(1);
  tf_image img = render_with(&f, 1, GOLDEN_W, GOLDEN_H);
  char err[512] = "";
  const char* update = getenv("TF_UPDATE_GOLDEN");
  if (update && strcmp(update, "1") == 0) {
    if (tf_png_write(GOLDEN_PATH, &img, err, sizeof err)) fail_msg("%s", err);
    printf("wrote %s\n", GOLDEN_PATH);
  }
  tf_image golden;
  if (tf_png_read(&golden, GOLDEN_PATH, err, sizeof err)) {
    fail_msg("%s (run from the repository root; TF_UPDATE_GOLDEN=1 writes it)", err);
  }
  double psnr = tf_image_psnr(&img, &golden);
  printf("golden PSNR %.2f dB\n", psnr);
  if (!(psnr > 40)) {
    tf_png_write("/tmp/test_render_actual.png", &img, err, sizeof err);
    fail_msg("PSNR %.2f dB against %s (<= 40); this run's frame: /tmp/test_render_actual.png", psnr,
             GOLDEN_PATH);
  }
  tf_image_free(&golden);
  tf_image_free(&img);
  fixture_free(&f);
}

// frames at 1, 2 and 3 threads and from a second renderer are the same bytes, at a size
// whose bands and pixel rows do not divide evenly
static void test_same_bytes_any_thread_count(void** state) {
  (void)state;
  fixture f = fixture_make(1);
  const int w = 157, h = 101;
  tf_image one = render_with(&f, 1, w, h);
  tf_image two = render_with(&f, 2, w, h);
  tf_image three = render_with(&f, 3, w, h);
  tf_image again = render_with(&f, 3, w, h);
  size_t n = (size_t)w * h * 3;
  assert_memory_equal(one.rgb, two.rgb, n);
  assert_memory_equal(one.rgb, three.rgb, n);
  assert_memory_equal(one.rgb, again.rgb, n);
  // one renderer reused across sizes and thread counts keeps giving the same frame
  char err[256] = "";
  tf_renderer* r = tf_renderer_create(2, err, sizeof err);
  tf_image big, small;
  assert_int_equal(tf_image_alloc(&big, 320, 240, err, sizeof err), 0);
  assert_int_equal(tf_image_alloc(&small, w, h, err, sizeof err), 0);
  assert_int_equal(tf_render(r, f.scene, f.m, f.d, &f.cam, &big, err, sizeof err), 0);
  assert_int_equal(tf_render(r, f.scene, f.m, f.d, &f.cam, &small, err, sizeof err), 0);
  assert_memory_equal(one.rgb, small.rgb, n);
  tf_renderer_destroy(r);
  tf_image_free(&big);
  tf_image_free(&small);
  tf_image_free(&one);
  tf_image_free(&two);
  tf_image_free(&three);
  tf_image_free(&again);
  fixture_free(&f);
}

// a sub-view of a larger frame holds exactly the frame rendered alone, and nothing outside
// it is touched (the grid camera tiles environments this way)
static void test_render_into_sub_view(void** state) {
  (void)state;
  fixture f = fixture_make(0);
  const int w = 64, h = 48;
  tf_image alone = render_with(&f, 2, w, h);
  char err[256] = "";
  tf_image grid;
  assert_int_equal(tf_image_alloc(&grid, 2 * w, 2 * h, err, sizeof err), 0);
  memset(grid.rgb, 7, (size_t)grid.stride * grid.height);
  tf_image cell = tf_image_sub(&grid, w, h, w, h);
  assert_int_equal(cell.width, w);
  tf_renderer* r = tf_renderer_create(3, err, sizeof err);
  assert_int_equal(tf_render(r, f.scene, f.m, f.d, &f.cam, &cell, err, sizeof err), 0);
  for (int y = 0; y < 2 * h; y++) {
    for (int x = 0; x < 2 * w; x++) {
      const unsigned char* p = grid.rgb + (size_t)y * grid.stride + 3 * x;
      if (x >= w && y >= h) {
        assert_memory_equal(p, alone.rgb + (size_t)(y - h) * alone.stride + 3 * (x - w), 3);
      } else {
        assert_true(p[0] == 7 && p[1] == 7 && p[2] == 7);
      }
    }
  }
  tf_renderer_destroy(r);
  tf_image_free(&grid);
  tf_image_free(&alone);
  fixture_free(&f);
}

// the measurement copy adds no triangles, but a body's only geom shows even when it collides
// with nothing; rgba reaches the model, and a bad one is refused with the geom's name
static void test_visibility_and_colour(void** state) {
  (void)state;
  fixture with = fixture_make(1), without = fixture_make(0);
  assert_int_equal(tf_render_scene_triangles(with.scene), tf_render_scene_triangles(without.scene));
  assert_true(tf_render_scene_triangles(with.scene) > 1000);
  int octa = with.m->ngeom - 1;
  assert_true(fabsf(with.m->geom_rgba[4 * octa] - 0.75f) < 1e-7f);
  assert_true(with.m->geom_rgba[0] == 0 && with.m->geom_rgba[3] == 0);  // the default: palette
  fixture_free(&with);
  fixture_free(&without);

  char err[256] = "";
  tf_builder* b = tf_builder_create();
  tf_body_def bd = body_at("lonely", 0, 0, 0.1);
  tf_geom_def g = geom_of("ghost", tf_builder_add_body(b, &bd), TF_GEOM_SPHERE, 0.01, 0, 0);
  g.contype = g.conaffinity = 0;
  assert_true(tf_builder_add_geom(b, &g) >= 0);
  tf_model* m = tf_builder_compile(b, err, sizeof err);
  assert_non_null(m);
  tf_render_scene* s = tf_render_scene_create(m, err, sizeof err);
  assert_non_null(s);
  assert_true(tf_render_scene_triangles(s) > 2);  // the sphere and the floor
  tf_render_scene_destroy(s);
  tf_model_destroy(m);

  g.name = "too_red";
  g.rgba[0] = 1.5f;
  g.body = 0;
  assert_true(tf_builder_add_geom(b, &g) >= 0);
  assert_null(tf_builder_compile(b, err, sizeof err));
  assert_non_null(strstr(err, "too_red"));
  assert_non_null(strstr(err, "rgba"));
  tf_builder_destroy(b);
}

// the pixel where a world point lands, through the renderer's own camera frame
static void pixel_of(const tf_camera* cam, int w, int h, const double p[3], int* px, int* py) {
  render_view v;
  char err[128];
  assert_int_equal(render_view_setup(&v, cam, w, h, err, sizeof err), 0);
  double rel[3] = {p[0] - v.eye[0], p[1] - v.eye[1], p[2] - v.eye[2]}, c[3];
  c[0] = rel[0] * v.right[0] + rel[1] * v.right[1] + rel[2] * v.right[2];
  c[1] = rel[0] * v.up[0] + rel[1] * v.up[1] + rel[2] * v.up[2];
  c[2] = rel[0] * v.forward[0] + rel[1] * v.forward[1] + rel[2] * v.forward[2];
  int32_t xy[2];
  render_project(&v, c, xy);
  *px = (int)(xy[0] / (RENDER_SS << RENDER_SUBPIXEL_BITS));
  *py = (int)(xy[1] / (RENDER_SS << RENDER_SUBPIXEL_BITS));
}

static const unsigned char* pixel(const tf_image* img, int x, int y) {
  return img->rgb + (size_t)y * img->stride + 3 * x;
}

// two spheres on the line of sight: the near red one hides the far blue one's middle whatever
// their order in the model; the far one shows around it; a floating ball's shadow darkens the
// floor under the key light, and the floor elsewhere stays lit
static void test_depth_order_and_shadow(void** state) {
  (void)state;
  for (int order = 0; order < 2; order++) {
    tf_builder* b = tf_builder_create();
    tf_body_def near = body_at("near", 0, 0, 0.05), far = body_at("far", 0.1, 0, 0.05);
    int body_near = tf_builder_add_body(b, &near), body_far = tf_builder_add_body(b, &far);
    tf_geom_def gn = geom_of("near", body_near, TF_GEOM_SPHERE, 0.01, 0, 0);
    tf_geom_def gf = geom_of("far", body_far, TF_GEOM_SPHERE, 0.04, 0, 0);
    gn.rgba[0] = 1, gn.rgba[3] = 1;
    gf.rgba[2] = 1, gf.rgba[3] = 1;
    assert_true(tf_builder_add_geom(b, order ? &gf : &gn) >= 0);
    assert_true(tf_builder_add_geom(b, order ? &gn : &gf) >= 0);
    tf_geom_def floor = geom_of("floor", 0, TF_GEOM_PLANE, 0, 0, 0);
    assert_true(tf_builder_add_geom(b, &floor) >= 0);
    char err[256] = "";
    tf_model* m = tf_builder_compile(b, err, sizeof err);
    assert_non_null(m);
    tf_builder_destroy(b);
    tf_data* d = tf_data_create(m);
    tf_kinematics(m, d);
    tf_render_scene* s = tf_render_scene_create(m, err, sizeof err);
    assert_non_null(s);
    assert_float_equal(s->ground_z, 0, 0);  // the plane is the ground
    // looking along +x from behind the near sphere, slightly from above
    tf_camera cam = {{-0.3, 0, 0.06}, {0, 0, 0.05}, 30};
    const int w = 120, h = 90;
    tf_image img;
    assert_int_equal(tf_image_alloc(&img, w, h, err, sizeof err), 0);
    tf_renderer* r = tf_renderer_create(2, err, sizeof err);
    assert_int_equal(tf_render(r, s, m, d, &cam, &img, err, sizeof err), 0);
    int cx, cy;
    const double centre[3] = {0, 0, 0.05};
    pixel_of(&cam, w, h, centre, &cx, &cy);
    const unsigned char* c = pixel(&img, cx, cy);
    assert_true(c[0] > 2 * c[2]);  // red
    const double rim[3] = {0.1, 0, 0.05 + 0.03};
    int rx, ry;
    pixel_of(&cam, w, h, rim, &rx, &ry);
    c = pixel(&img, rx, ry);
    assert_true(c[2] > 2 * c[0]);  // blue

    // the far ball's shadow: its centre moved along the key light onto the ground
    render_view v;
    assert_int_equal(render_view_setup(&v, &cam, w, h, err, sizeof err), 0);
    double t = 0.05 / v.light[2];
    const double shadow[3] = {0.1 - t * v.light[0], -t * v.light[1], 0};
    const double lit[3] = {0.1 - t * v.light[0], -t * v.light[1] + 0.12, 0};
    int sx, sy, lx, ly;
    pixel_of(&cam, w, h, shadow, &sx, &sy);
    pixel_of(&cam, w, h, lit, &lx, &ly);
    assert_true(sx >= 0 && sx < w && sy >= 0 && sy < h && lx >= 0 && lx < w && ly >= 0 && ly < h);
    const unsigned char *ps = pixel(&img, sx, sy), *pl = pixel(&img, lx, ly);
    assert_true(ps[0] + ps[1] + ps[2] < 0.75 * (pl[0] + pl[1] + pl[2]));
    tf_renderer_destroy(r);
    tf_image_free(&img);
    tf_render_scene_destroy(s);
    tf_data_destroy(d);
    tf_model_destroy(m);
  }
}

// a red ball hidden inside a blue box: whole, the box hides it; cut through its centre, the
// ball's cut face shows red in the middle of the box's blue cut face, both darker than the lit
// parts, the floor far away is untouched, and the frame is the same at 1 and 3 threads
static void test_section_view(void** state) {
  (void)state;
  tf_builder* b = tf_builder_create();
  tf_body_def bd = body_at("box", 0, 0, 0.05);
  int body = tf_builder_add_body(b, &bd);
  tf_geom_def box = geom_of("box", body, TF_GEOM_BOX, 0.05, 0.05, 0.05);
  box.rgba[2] = 1, box.rgba[3] = 1;
  tf_geom_def ball = geom_of("ball", body, TF_GEOM_SPHERE, 0.03, 0, 0);
  ball.rgba[0] = 1, ball.rgba[3] = 1;
  assert_true(tf_builder_add_geom(b, &box) >= 0 && tf_builder_add_geom(b, &ball) >= 0);
  char err[256] = "";
  tf_model* m = tf_builder_compile(b, err, sizeof err);
  assert_non_null(m);
  tf_builder_destroy(b);
  tf_data* d = tf_data_create(m);
  tf_kinematics(m, d);
  tf_render_scene* s = tf_render_scene_create(m, err, sizeof err);
  assert_non_null(s);
  const double centre[3] = {0, 0, 0.05};
  tf_camera whole;
  tf_camera_closeup(&whole, centre, 0.15, 4.0 / 3);
  tf_camera cut = whole;
  tf_camera_cut(&cut, centre);
  assert_true(cut.section_normal[2] == 0);  // a vertical plane
  const int w = 96, h = 72;
  tf_image a, c1, c3;
  assert_int_equal(tf_image_alloc(&a, w, h, err, sizeof err), 0);
  assert_int_equal(tf_image_alloc(&c1, w, h, err, sizeof err), 0);
  assert_int_equal(tf_image_alloc(&c3, w, h, err, sizeof err), 0);
  tf_renderer *r1 = tf_renderer_create(1, err, sizeof err),
              *r3 = tf_renderer_create(3, err, sizeof err);
  assert_int_equal(tf_render(r1, s, m, d, &whole, &a, err, sizeof err), 0);
  assert_int_equal(tf_render(r1, s, m, d, &cut, &c1, err, sizeof err), 0);
  assert_int_equal(tf_render(r3, s, m, d, &cut, &c3, err, sizeof err), 0);
  assert_memory_equal(c1.rgb, c3.rgb, (size_t)w * h * 3);
  int cx, cy;
  pixel_of(&whole, w, h, centre, &cx, &cy);
  const unsigned char* p = pixel(&a, cx, cy);
  assert_true(p[2] > 2 * p[0]);  // the box's face
  p = pixel(&c1, cx, cy);
  assert_true(p[0] > 2 * p[2]);                 // the ball, cut
  assert_true(p[0] < 200);                      // darker than a lit red face
  const double beside[3] = {0.043, 0.0, 0.09};  // in the box, outside the ball
  int bx, by;
  pixel_of(&cut, w, h, beside, &bx, &by);
  p = pixel(&c1, bx, by);
  assert_true(p[2] > 2 * p[0] && p[2] < 200);  // the box's cut face
  // the bottom corners: floor, whole or not
  assert_memory_equal(pixel(&a, 0, h - 1), pixel(&c1, 0, h - 1), 3);
  assert_memory_equal(pixel(&a, w - 1, h - 1), pixel(&c1, w - 1, h - 1), 3);
  // a bad section is refused
  cut.section_normal[0] = NAN;
  assert_int_equal(tf_render(r1, s, m, d, &cut, &c1, err, sizeof err), -1);
  assert_non_null(strstr(err, "section"));
  tf_renderer_destroy(r1);
  tf_renderer_destroy(r3);
  tf_image_free(&a);
  tf_image_free(&c1);
  tf_image_free(&c3);
  tf_render_scene_destroy(s);
  tf_data_destroy(d);
  tf_model_destroy(m);
}

// a temporary folder of the test's own
static void temp_dir(char* dir, size_t n) {
  snprintf(dir, n, "/tmp/tf_render_test.XXXXXX");
  assert_non_null(mkdtemp(dir));
}

static int files_in(const char* dir) {
  DIR* dp = opendir(dir);
  assert_non_null(dp);
  int n = 0;
  for (struct dirent* e = readdir(dp); e; e = readdir(dp)) {
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
  }
  closedir(dp);
  return n;
}

// a frame survives a PNG round trip exactly; a missing folder or an unwritable one gives a
// message naming the path and leaves no file, temporary or not
static void test_png_round_trip_and_broken_paths(void** state) {
  (void)state;
  fixture f = fixture_make(0);
  tf_image img = render_with(&f, 1, 64, 48);
  char dir[64], path[128], err[512] = "";
  temp_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/frame.png", dir);
  assert_int_equal(tf_png_write(path, &img, err, sizeof err), 0);
  tf_image back;
  assert_int_equal(tf_png_read(&back, path, err, sizeof err), 0);
  assert_int_equal(back.width, 64);
  assert_int_equal(back.height, 48);
  assert_memory_equal(back.rgb, img.rgb, 64 * 48 * 3);
  tf_image_free(&back);
  assert_int_equal(unlink(path), 0);

  snprintf(path, sizeof path, "%s/missing/frame.png", dir);
  assert_int_equal(tf_png_write(path, &img, err, sizeof err), -1);
  assert_non_null(strstr(err, path));
  assert_null(strchr(err, '\n'));
  // a path through a regular file: broken for every user, root included
  char file[96];
  snprintf(file, sizeof file, "%s/plain", dir);
  FILE* fp = fopen(file, "w");
  assert_non_null(fp);
  fclose(fp);
  snprintf(path, sizeof path, "%s/frame.png", file);
  assert_int_equal(tf_png_write(path, &img, err, sizeof err), -1);
  assert_non_null(strstr(err, path));
  assert_int_equal(files_in(dir), 1);  // the plain file only
  unlink(file);
  if (geteuid() != 0) {  // root writes anywhere: the permission case means nothing there
    char locked[96];
    snprintf(locked, sizeof locked, "%s/locked", dir);
    assert_int_equal(mkdir(locked, 0500), 0);
    snprintf(path, sizeof path, "%s/frame.png", locked);
    assert_int_equal(tf_png_write(path, &img, err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    assert_int_equal(files_in(locked), 0);
    rmdir(locked);
  }
  assert_int_equal(files_in(dir), 0);
  assert_int_equal(tf_png_read(&back, path, err, sizeof err), -1);
  assert_non_null(strstr(err, path));
  rmdir(dir);
  tf_image_free(&img);
  fixture_free(&f);
}

// area averaging: a 2x2 checkerboard of 0 / 255 halves to flat grey; a flat image stays flat
// at any ratio; a 640x480 frame's thumbnail keeps the frame's mean colour
static void test_downscale(void** state) {
  (void)state;
  char err[128];
  tf_image src, dst;
  assert_int_equal(tf_image_alloc(&src, 8, 6, err, sizeof err), 0);
  for (int y = 0; y < 6; y++) {
    for (int x = 0; x < 8; x++)
      memset(src.rgb + (size_t)y * src.stride + 3 * x, ((x + y) & 1) * 255, 3);
  }
  assert_int_equal(tf_image_alloc(&dst, 4, 3, err, sizeof err), 0);
  tf_image_downscale(&dst, &src);
  for (int i = 0; i < 4 * 3 * 3; i++) assert_int_equal(dst.rgb[i], 128);
  tf_image_free(&dst);
  memset(src.rgb, 77, (size_t)src.stride * src.height);
  assert_int_equal(tf_image_alloc(&dst, 3, 5, err, sizeof err), 0);
  tf_image_downscale(&dst, &src);
  for (int i = 0; i < 3 * 5 * 3; i++) assert_int_equal(dst.rgb[i], 77);
  tf_image_free(&dst);
  tf_image_free(&src);

  fixture f = fixture_make(0);
  tf_image frame = render_with(&f, 2, 640, 480), thumb;
  assert_int_equal(tf_image_alloc(&thumb, 160, 120, err, sizeof err), 0);
  tf_image_downscale(&thumb, &frame);
  double mean_frame = 0, mean_thumb = 0;
  for (size_t i = 0; i < (size_t)640 * 480 * 3; i++) mean_frame += frame.rgb[i];
  for (size_t i = 0; i < (size_t)160 * 120 * 3; i++) mean_thumb += thumb.rgb[i];
  assert_true(fabs(mean_frame / (640.0 * 480 * 3) - mean_thumb / (160.0 * 120 * 3)) < 0.5);
  tf_image_free(&thumb);
  tf_image_free(&frame);
  fixture_free(&f);
}

static void test_cameras(void** state) {
  (void)state;
  char err[256] = "";
  tf_camera cam;
  assert_int_equal(tf_camera_parse(&cam, "0.1,-0.2,0.3,0,0,0.01,45", err, sizeof err), 0);
  assert_float_equal(cam.pos[1], -0.2, 0);
  assert_float_equal(cam.target[2], 0.01, 0);
  assert_float_equal(cam.fovy, 45, 0);
  const char* bad[] = {"",
                       "1,2,3",
                       "1,2,3,4,5,6,7,8",
                       "1,2,3,1,2,3,40",
                       "0,0,1,0,0,0,180",
                       "0,0,1,0,0,0,x",
                       "0,0,1,0,0,0,40 ",
                       "nan,0,1,0,0,0,40"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err[0] = 0;
    assert_int_equal(tf_camera_parse(&cam, bad[i], err, sizeof err), -1);
    assert_true(strlen(err) > 0);
  }
  // the wide camera sees the whole box: its corners project inside the image
  const double lo[3] = {-0.1, -0.05, 0}, hi[3] = {0.1, 0.05, 0.02};
  tf_camera_wide(&cam, lo, hi, 4.0 / 3);
  assert_int_equal(tf_camera_check(&cam, err, sizeof err), 0);
  for (int k = 0; k < 8; k++) {
    double p[3] = {k & 1 ? hi[0] : lo[0], k & 2 ? hi[1] : lo[1], k & 4 ? hi[2] : lo[2]};
    int px, py;
    pixel_of(&cam, 640, 480, p, &px, &py);
    assert_true(px >= 0 && px < 640 && py >= 0 && py < 480);
  }
  // the close-up looks at its point from a distance that scales with the radius
  const double at[3] = {0.01, 0.02, 0.03};
  tf_camera a, b;
  tf_camera_closeup(&a, at, 0.01, 4.0 / 3);
  tf_camera_closeup(&b, at, 0.02, 4.0 / 3);
  double da = 0, db = 0;
  for (int i = 0; i < 3; i++) {
    assert_float_equal(a.target[i], at[i], 0);
    da += (a.pos[i] - at[i]) * (a.pos[i] - at[i]);
    db += (b.pos[i] - at[i]) * (b.pos[i] - at[i]);
  }
  assert_float_equal(sqrt(db / da), 2, 1e-9);
  // straight down still works (up falls back to +y)
  tf_camera down = {{0, 0, 1}, {0, 0, 0}, 40};
  fixture f = fixture_make(0);
  tf_image img;
  assert_int_equal(tf_image_alloc(&img, 32, 24, err, sizeof err), 0);
  tf_renderer* r = tf_renderer_create(1, err, sizeof err);
  assert_int_equal(tf_render(r, f.scene, f.m, f.d, &down, &img, err, sizeof err), 0);
  tf_renderer_destroy(r);
  tf_image_free(&img);
  fixture_free(&f);
}

// bad sizes, thread counts, cameras and a scene from another model are refused with a message
static void test_bad_input(void** state) {
  (void)state;
  char err[256] = "";
  tf_image img;
  assert_int_equal(tf_image_alloc(&img, 0, 10, err, sizeof err), -1);
  assert_non_null(strstr(err, "0x10"));
  assert_int_equal(tf_image_alloc(&img, 10, TF_IMAGE_MAX_SIDE + 1, err, sizeof err), -1);
  assert_null(tf_renderer_create(0, err, sizeof err));
  assert_non_null(strstr(err, "threads"));
  assert_null(tf_renderer_create(RENDER_MAX_THREADS + 1, err, sizeof err));

  fixture f = fixture_make(0);
  tf_renderer* r = tf_renderer_create(2, err, sizeof err);
  assert_int_equal(tf_image_alloc(&img, 16, 12, err, sizeof err), 0);
  tf_camera cam = f.cam;
  cam.fovy = 0;
  assert_int_equal(tf_render(r, f.scene, f.m, f.d, &cam, &img, err, sizeof err), -1);
  assert_non_null(strstr(err, "fovy"));
  tf_image empty = tf_image_sub(&img, 20, 0, 4, 4);
  assert_int_equal(empty.width, 0);
  assert_int_equal(tf_render(r, f.scene, f.m, f.d, &f.cam, &empty, err, sizeof err), -1);
  assert_non_null(strstr(err, "bad image"));
  fixture other = fixture_make(1);  // one geom more
  assert_int_equal(tf_render(r, f.scene, other.m, other.d, &f.cam, &img, err, sizeof err), -1);
  assert_non_null(strstr(err, "another model"));
  assert_int_equal(tf_png_write("/tmp/x.png", &empty, err, sizeof err), -1);
  fixture_free(&other);
  tf_renderer_destroy(r);
  tf_image_free(&img);
  fixture_free(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_golden_image),
      cmocka_unit_test(test_same_bytes_any_thread_count),
      cmocka_unit_test(test_render_into_sub_view),
      cmocka_unit_test(test_visibility_and_colour),
      cmocka_unit_test(test_depth_order_and_shadow),
      cmocka_unit_test(test_section_view),
      cmocka_unit_test(test_png_round_trip_and_broken_paths),
      cmocka_unit_test(test_downscale),
      cmocka_unit_test(test_cameras),
      cmocka_unit_test(test_bad_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
