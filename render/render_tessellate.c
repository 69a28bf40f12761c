// Primitive shapes as triangles, in their geom frame, at one fixed resolution: a frame's
// triangle count then depends only on the model, and so does its cost.
//
// Round shapes are surfaces of revolution about z: a profile (r, z) with its outward normal
// (nr, nz) at each point is swept through RENDER_SEGMENTS angles. A quad between profile
// points k, k+1 and angles j, j+1 splits into two triangles that are counter-clockwise seen
// from outside when the profile runs with the solid on its left in the (r, z) half-plane
// (up the outside wall, inward across a top cap, outward across a bottom cap). A profile
// point on the axis (r = 0) makes one of the two triangles degenerate; it is left out.
#include <math.h>

#include "render_internal.h"

#define RENDER_SEGMENTS 48  // around the axis
#define RENDER_RINGS 12     // profile steps over a quarter circle (spheres, capsule ends)

typedef struct profile_point {
  double r, z;    // position in the (radius, height) half-plane
  double nr, nz;  // outward unit normal in that plane
} profile_point;

// sweeps a profile strip of n points around z
static void revolve(render_mesh* mesh, const profile_point* p, int n) {
  int base = mesh->nvert;
  for (int k = 0; k < n; k++) {
    for (int j = 0; j < RENDER_SEGMENTS; j++) {
      double phi = 2 * M_PI * j / RENDER_SEGMENTS;
      render_mesh_vertex(mesh, p[k].r * cos(phi), p[k].r * sin(phi), p[k].z);
    }
  }
  for (int k = 0; k + 1 < n; k++) {
    for (int j = 0; j < RENDER_SEGMENTS; j++) {
      int j1 = (j + 1) % RENDER_SEGMENTS;
      double phi0 = 2 * M_PI * j / RENDER_SEGMENTS, phi1 = 2 * M_PI * j1 / RENDER_SEGMENTS;
      int a = base + k * RENDER_SEGMENTS + j, b = base + k * RENDER_SEGMENTS + j1;
      int c = b + RENDER_SEGMENTS, d = a + RENDER_SEGMENTS;
      double na[3] = {p[k].nr * cos(phi0), p[k].nr * sin(phi0), p[k].nz};
      double nb[3] = {p[k].nr * cos(phi1), p[k].nr * sin(phi1), p[k].nz};
      double nc[3] = {p[k + 1].nr * cos(phi1), p[k + 1].nr * sin(phi1), p[k + 1].nz};
      double nd[3] = {p[k + 1].nr * cos(phi0), p[k + 1].nr * sin(phi0), p[k + 1].nz};
      if (p[k].r > 0) render_mesh_triangle(mesh, a, b, c, na, nb, nc);
      if (p[k + 1].r > 0) render_mesh_triangle(mesh, a, c, d, na, nc, nd);
    }
  }
}

// a half-circle of radius from the bottom pole up to the top pole, as two quarter arcs whose
// centres sit at z_low (lower arc) and z_high (upper arc): a sphere when they coincide, a
// capsule's two ends and its wall when they do not
static void revolve_rounded(render_mesh* mesh, double radius, double z_low, double z_high) {
  profile_point p[2 * (RENDER_RINGS + 1)];
  int n = 0;
  for (int i = 0; i <= RENDER_RINGS; i++) {
    double theta = 0.5 * M_PI * i / RENDER_RINGS;  // from the bottom pole to the equator
    double s = i == RENDER_RINGS ? 1 : sin(theta), c = i == RENDER_RINGS ? 0 : cos(theta);
    p[n++] = (profile_point){radius * s, z_low - radius * c, s, -c};
  }
  int first_upper = z_high > z_low ? 0 : 1;  // a sphere shares the equator ring
  for (int i = first_upper; i <= RENDER_RINGS; i++) {
    double theta = 0.5 * M_PI * i / RENDER_RINGS;  // from the equator to the top pole
    double s = i == RENDER_RINGS ? 1 : sin(theta), c = i == 0 ? 1 : cos(theta);
    if (i == RENDER_RINGS) c = 0;
    p[n++] = (profile_point){radius * c, z_high + radius * s, c, s};
  }
  revolve(mesh, p, n);
}

void render_tessellate_sphere(render_mesh* mesh, double radius) {
  revolve_rounded(mesh, radius, 0, 0);
}

void render_tessellate_capsule(render_mesh* mesh, double radius, double half_length) {
  revolve_rounded(mesh, radius, -half_length, half_length);
}

void render_tessellate_cylinder(render_mesh* mesh, double radius, double half_length) {
  double h = half_length, r = radius;
  profile_point bottom[2] = {{0, -h, 0, -1}, {r, -h, 0, -1}};
  profile_point wall[2] = {{r, -h, 1, 0}, {r, h, 1, 0}};
  profile_point top[2] = {{r, h, 0, 1}, {0, h, 0, 1}};
  revolve(mesh, bottom, 2);
  revolve(mesh, wall, 2);
  revolve(mesh, top, 2);
}

void render_tessellate_box(render_mesh* mesh, const double half[3]) {
  // face of normal s e_a: corners at (u, w) = (-,-) (+,-) (+,+) (-,+) with u x w = e_a run
  // counter-clockwise about +e_a, so the -e_a face takes them in reverse
  static const int su[4] = {-1, 1, 1, -1}, sw[4] = {-1, -1, 1, 1};
  for (int a = 0; a < 3; a++) {
    int u = (a + 1) % 3, w = (a + 2) % 3;
    for (int s = -1; s <= 1; s += 2) {
      double n[3] = {0, 0, 0};
      n[a] = s;
      int id[4];
      for (int k = 0; k < 4; k++) {
        int c = s > 0 ? k : 3 - k;
        double p[3];
        p[a] = s * half[a];
        p[u] = su[c] * half[u];
        p[w] = sw[c] * half[w];
        id[k] = render_mesh_vertex(mesh, p[0], p[1], p[2]);
      }
      render_mesh_triangle(mesh, id[0], id[1], id[2], n, n, n);
      render_mesh_triangle(mesh, id[0], id[2], id[3], n, n, n);
    }
  }
}

void render_tessellate_quad(render_mesh* mesh, double cx, double cy, double half) {
  const double n[3] = {0, 0, 1};
  int a = render_mesh_vertex(mesh, cx - half, cy - half, 0);
  int b = render_mesh_vertex(mesh, cx + half, cy - half, 0);
  int c = render_mesh_vertex(mesh, cx + half, cy + half, 0);
  int d = render_mesh_vertex(mesh, cx - half, cy + half, 0);
  render_mesh_triangle(mesh, a, b, c, n, n, n);
  render_mesh_triangle(mesh, a, c, d, n, n, n);
}
