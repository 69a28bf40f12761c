// Contacts that persist across steps (private to the collision stage; tests include it).
//
// A geom pair that meets a mesh or an SDF keeps its last search's points in its memory
// (tf_data.pair_memory), each as a material point on both geoms in their own frames. While
// the pair's relative motion since that search stays under opt.persist_tol and its
// speculative margin has not grown by more, the next step recalls them instead of searching:
// both material points are placed with the geoms' current poses and the gap is measured
// between them along the normal. collision_persist.c says why that is exact to the tolerance.
#ifndef TF_COLLISION_PERSIST_H
#define TF_COLLISION_PERSIST_H

#include "collision.h"

// the most pairs a model keeps memories for (the rest are searched every step)
#define TF_PERSIST_PAIRS_MAX 256

// the list of remembered pairs into m->persist_geom (m->npersist): 0, or -1 out of memory
int tf_persist_pairs_build(tf_model* m);

// the memory slot of geoms g1 < g2, or -1 when the pair keeps none
int tf_persist_slot(const tf_model* m, int g1, int g2);

// forgets every pair's memory (reset, a state copied in)
void tf_persist_forget(const tf_model* m, tf_data* d);

// the points of slot's last search, recalled at the shapes' current poses (s1, s2 the
// pair's geoms): none when that search found nothing and its lower bound of the gap still
// exceeds margin by the motion since (what a search would find, exactly), else its points
// when the pair moved less than tol since and margin exceeds the search's by no more.
// Returns their count (their candidates into *candidates), or -1 when the pair must be
// searched
int tf_persist_recall(const tf_model* m, const tf_data* d, int slot, const tf_shape* s1,
                      const tf_shape* s2, double margin, double tol, tf_contact_point* out,
                      int* candidates);

// remembers a search of slot's pair at the shapes' current poses: its n points, candidates
// and lower bound of the gap (tf_collide_stats)
void tf_persist_store(const tf_model* m, tf_data* d, int slot, const tf_shape* s1,
                      const tf_shape* s2, double margin, const tf_contact_point* pts, int n,
                      const tf_collide_stats* stats);

#endif  // TF_COLLISION_PERSIST_H
