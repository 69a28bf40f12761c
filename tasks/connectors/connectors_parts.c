// The connectors task's parts and their geoms, shared by the rig's scene (connectors_scene.c)
// and robot mode's (connectors_robot_scene.c): the plug and socket parts, the colliders the
// run's `collider` names, the overlap probe's exact SDF geoms and its surface samples. Both
// scenes add these in the same order, so the pair meets the same way in either mode.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "connectors_scene.h"

// the probe's mesh against the collider's: 1/16 of the chord error gives four times the
// vertices along every arc (a sagitta falls with the square of the step)
#define PROBE_CHORD_RATIO 16

static const char* const type_names[3] = {"dsub", "dp", "rj45"};

const char* tf_connectors_type_name(int type) {
  return type >= 0 && type < 3 ? type_names[type] : "dp";
}

// one part of the pair at the given chord error
static int build_part(tf_part_geometry* g, const char* part, const tf_connectors_config* c,
                      double chord_um, char* err, size_t errlen) {
  char clearance[32], chord[32];
  snprintf(clearance, sizeof(clearance), "%.17g", c->clearance_um);
  snprintf(chord, sizeof(chord), "%.17g", chord_um);
  tf_kv kv[4] = {{"type", tf_connectors_type_name(c->type)},
                 {"clearance_um", clearance},
                 {"chord_um", chord},
                 {"pins", c->pinless ? "no" : "yes"}};
  return tf_part_build(part, kv, 4, g, err, errlen);
}

int tf_connectors_parts_build(tf_part_geometry* plug, tf_part_geometry* socket,
                              const tf_connectors_config* c, char* err, size_t errlen) {
  memset(plug, 0, sizeof(*plug));
  memset(socket, 0, sizeof(*socket));
  if (build_part(plug, "connector_plug", c, c->mesh_chord_um, err, errlen) == 0 &&
      build_part(socket, "connector_socket", c, c->mesh_chord_um, err, errlen) == 0) {
    return 0;
  }
  tf_part_geometry_free(plug);
  tf_part_geometry_free(socket);
  return -1;
}

int tf_connectors_add_parts(tf_builder* b, const tf_part_geometry* plug,
                            const tf_part_geometry* socket, tf_connectors_ids* ids) {
  ids->plug_sdf = tf_part_add_mesh_and_sdf(b, "plug", plug, &ids->plug_mesh);
  ids->socket_sdf = tf_part_add_mesh_and_sdf(b, "socket", socket, &ids->socket_mesh);
  return ids->plug_sdf >= 0 && ids->socket_sdf >= 0 ? 0 : -1;
}

// the part's collision geom on `body`: its SDF, its mesh carrying its SDF (the moving plug:
// sampled both ways against the other's SDF), or its hull, which carries no SDF
static int add_collider(tf_builder* b, const char* name, int body, const tf_part_geometry* g,
                        int sdf, int mesh, const tf_connectors_config* c,
                        const tf_connectors_bits* bits) {
  tf_geom_def geom = tf_geom_def_default();
  geom.name = name;
  geom.body = body;
  geom.friction[0] = c->mu;
  geom.condim = c->mu > 0 ? 3 : 1;
  if (bits) geom.contype = bits->contype, geom.conaffinity = bits->conaffinity;
  if (c->collider == TF_CONNECTORS_HULL) {
    geom.type = TF_GEOM_HULL;
    geom.hull = tf_builder_add_hull(b, name, g->vert, g->nvert);
    if (geom.hull < 0) return -1;
  } else if (c->collider == TF_CONNECTORS_MESH_SDF && body != 0) {
    geom.type = TF_GEOM_MESH;
    geom.mesh = mesh;
    geom.sdf = sdf;
  } else {
    geom.type = TF_GEOM_SDF;
    geom.sdf = sdf;
  }
  return tf_builder_add_geom(b, &geom);
}

int tf_connectors_add_colliders(tf_builder* b, const tf_connectors_config* c, int plug_body,
                                const tf_part_geometry* plug, const tf_part_geometry* socket,
                                const tf_connectors_bits* plug_bits, tf_connectors_ids* ids) {
  ids->socket_geom =
      add_collider(b, "socket", 0, socket, ids->socket_sdf, ids->socket_mesh, c, NULL);
  ids->plug_geom =
      add_collider(b, "plug", plug_body, plug, ids->plug_sdf, ids->plug_mesh, c, plug_bits);
  return ids->socket_geom >= 0 && ids->plug_geom >= 0 ? 0 : -1;
}

// a geom that never collides (contype and conaffinity 0) carrying the part's analytic SDF on
// `body`: what the overlap probe measures in, whatever the collider is
static int add_measure(tf_builder* b, const char* name, int body, int sdf) {
  tf_geom_def geom = tf_geom_def_default();
  geom.name = name;
  geom.body = body;
  geom.type = TF_GEOM_SDF;
  geom.sdf = sdf;
  geom.contype = 0;
  geom.conaffinity = 0;
  return tf_builder_add_geom(b, &geom);
}

int tf_connectors_add_measures(tf_builder* b, int plug_body, tf_connectors_ids* ids) {
  ids->socket_measure = add_measure(b, "socket_measure", 0, ids->socket_sdf);
  ids->plug_measure = add_measure(b, "plug_measure", plug_body, ids->plug_sdf);
  return ids->socket_measure >= 0 && ids->plug_measure >= 0 ? 0 : -1;
}

int tf_connectors_probe_samples(const tf_connectors_config* c, tf_connectors_samples* out,
                                char* err, size_t errlen) {
  memset(out, 0, sizeof(*out));
  out->spacing = TF_CONNECTORS_PROBE_SPACING;
  tf_part_geometry fine[2];
  const char* parts[2] = {"connector_plug", "connector_socket"};
  for (int side = 0; side < 2; side++) {
    if (build_part(&fine[side], parts[side], c, c->mesh_chord_um / PROBE_CHORD_RATIO, err,
                   errlen)) {
      if (side) tf_part_geometry_free(&fine[0]);
      return -1;
    }
  }
  int status = tf_connectors_surface_samples(&fine[0], out->spacing, &out->plug, &out->nplug) ||
               tf_connectors_surface_samples(&fine[1], out->spacing, &out->socket, &out->nsocket);
  out->floor = fmax(fine[0].chord_error, fine[1].chord_error);
  tf_part_geometry_free(&fine[0]);
  tf_part_geometry_free(&fine[1]);
  if (status) snprintf(err, errlen, "task 'connectors': out of memory for the probe's samples");
  return status ? -1 : 0;
}
