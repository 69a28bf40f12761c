// Probes: observers of a running environment that turn its trajectory into named metrics
// (README.md "What a row holds"; definitions after the Newton / Isaac Lab
// report on contact-rich assembly, seed 004 of the project's references).
//
// Each probe has a pure core that takes plain numbers per control step (so the unit tests
// feed it synthetic trajectories: a fly-through depth series, a frozen part, a driven gear
// that never turns) and a set that reads them off tf_data for a task's environment.
// Metric names are "probe.metric" (tunnel.through, overlap.peak_m, gear_slip.max, ...).
#ifndef TF_PROBES_H
#define TF_PROBES_H

#include "metrics.h"
#include "tightfit.h"

#define TF_PROBE_MAX_GEARS 4
#define TF_PROBE_MAX_OVERLAP 12
// m: how far below its seat a part must end a long step for it to count as a fly-through
// (contact penetration and rounding stay far under it; a part that flew through does not)
#define TF_TUNNEL_BELOW_SEAT 1e-4

// ---------------------------------------------------------------- what a task tells the probes

// surface samples of one part for the overlap probe: points on the part's true surface (not
// a chord mesh's interior), in the frame of `geom`, at 4x or more the collider's density
typedef struct tf_probe_surface {
  int geom;              // the geom (and so the body) carrying the points
  const double* points;  // (npoint x 3) geom frame; owned by the task's environment
  int npoint;
  double floor;  // m: this sampling's own error (how deep the surface between samples can
                 // go below the deepest sample; chord sagitta), added to the SDF's error
} tf_probe_surface;

typedef struct tf_probe_spec {
  // tunnel: depth = (xpos[body] - seat) . (-axis): 0 seated, > 0 not yet in, < 0 past the
  // seat, i.e. inside solid material. body 0: no tunnel probe.
  int tunnel_body;
  double axis[3];       // world insertion direction, unit (e.g. 0 0 -1 for a peg going down)
  double seat[3];       // world position of tunnel_body's frame origin when seated
  double through_m;     // through-penetration: final depth below -through_m (default 2e-3)
  double flythrough_m;  // fly-through: a depth change above this in one control step that
                        // ends below the seat, deeper than TF_TUNNEL_BELOW_SEAT (default 5e-3)

  // overlap: each pair's a-samples in b's SDF and b-samples in a's SDF (a side with no
  // samples or whose other side has no SDF is skipped); a step is "in contact" when the
  // deepest sample is below contact_m (default 1e-6 m above zero: touching counts)
  int noverlap;
  tf_probe_surface overlap[TF_PROBE_MAX_OVERLAP][2];
  // a pair's name (a static string, at most 24 characters) gives it a metric of its own,
  // overlap.<name>_peak_m (its deepest penetration over the run); NULL: only in the totals
  const char* overlap_name[TF_PROBE_MAX_OVERLAP];
  double contact_m;

  // gear slip: gear 0 drives; each gear turns about its world axis (the body's rotation
  // about it, unwrapped); follower f should turn by sign[f] (teeth[0] / teeth[f]) times the
  // input's turn. ngear 0: no gear probe.
  int ngear;
  int gear_body[TF_PROBE_MAX_GEARS];
  double gear_axis[TF_PROBE_MAX_GEARS][3];
  int gear_teeth[TF_PROBE_MAX_GEARS];
  int gear_sign[TF_PROBE_MAX_GEARS];  // +1 / -1; gear_sign[0] = +1
  double slip_t0;                     // s: angle errors count from here (default 0.2)
  double ratio_window;    // s: mean speed ratio over the last window of the run (default 1)
  double min_input_turn;  // rad: the input must turn at least this much (default 0.5)

  // divergence: any |qvel| above this (m/s or rad/s) is a runaway (default 1e3)
  double runaway_speed;
} tf_probe_spec;

// a spec with every probe off and the defaults above filled in
void tf_probe_spec_default(tf_probe_spec* spec);

// ---------------------------------------------------------------- pure cores

typedef struct tf_tunnel_probe {
  double through_m, flythrough_m;
  long nstep;
  double depth_first, depth_prev, depth_min, depth_final;
  double pos_prev[3];
  double travel;    // path length of the body's frame origin
  int flythrough;   // a fly-through step was seen
  double jump_max;  // largest one-step depth change that ended below the seat
  double below_m;   // a step ends "below the seat" when its depth is under -below_m
                    // (TF_TUNNEL_BELOW_SEAT)
} tf_tunnel_probe;

void tf_tunnel_init(tf_tunnel_probe* p, double through_m, double flythrough_m);
void tf_tunnel_observe(tf_tunnel_probe* p, double depth, const double pos[3]);
// tunnel.through (bool), tunnel.flythrough (bool), tunnel.travel_m, tunnel.depth_final_m,
// tunnel.depth_min_m; a probe that saw no step reports NaN and through = flythrough = false
void tf_tunnel_finish(const tf_tunnel_probe* p, tf_metrics* out);

typedef struct tf_overlap_probe {
  double contact_m;
  double floor;  // m: the probe's error floor (sampling plus SDF error)
  long nstep, ncontact;
  double peak;  // deepest penetration seen (>= 0, m)
  double sum;   // sum over steps in contact of that step's deepest penetration
  double last;  // the last step's deepest value as observed (m; +inf before any), for a
                // per-step record (reports/record.h); no metric reads it
} tf_overlap_probe;

void tf_overlap_init(tf_overlap_probe* p, double contact_m, double floor);
// deepest: that step's most negative sample value (m; +inf when nothing was measured)
void tf_overlap_observe(tf_overlap_probe* p, double deepest);
// overlap.peak_m, overlap.mean_m (per-step deepest, averaged over the steps in contact; 0
// when never in contact), overlap.floor_m, overlap.contact_steps
void tf_overlap_finish(const tf_overlap_probe* p, tf_metrics* out);

typedef struct tf_gear_slip_probe {
  int ngear;
  int teeth[TF_PROBE_MAX_GEARS], sign[TF_PROBE_MAX_GEARS];
  double t0, window, min_input_turn;
  long nstep;
  double start[TF_PROBE_MAX_GEARS];  // angles at the first step at or after t0
  int started;
  double err_max[TF_PROBE_MAX_GEARS];  // max |e_f| after t0 (rad)
  // history of (t, angles) kept for the ratio window: a ring of samples
  int nhist, hist_cap, hist_head;
  double* hist;  // (hist_cap x (1 + ngear)), allocated by init
  double t_last, angle_last[TF_PROBE_MAX_GEARS], angle_first[TF_PROBE_MAX_GEARS];
} tf_gear_slip_probe;

// returns 0, or -1 when out of memory; window_steps sizes the window's ring (control
// steps in `window` seconds)
int tf_gear_slip_init(tf_gear_slip_probe* p, int ngear, const int* teeth, const int* sign,
                      double t0, double window, double min_input_turn, long window_steps);
// angles: unwrapped turn of each gear about its axis (rad), gear 0 the input
void tf_gear_slip_observe(tf_gear_slip_probe* p, double t, const double* angles);
// the angle error e_f of follower f (rad, see probe_gear_slip.c) at the last step observed:
// NaN before the measurement starts (t0) and for the input gear (f = 0); for a per-step
// record, the same value the probe's skipped_teeth takes its maximum of
double tf_gear_slip_error(const tf_gear_slip_probe* p, int f);
// gear_slip.max (worst follower's |ratio error| over the window, relative), gear_slip.ratio_error
// per follower as gear_slip.f1 ... , gear_slip.skipped_teeth (worst max |e_f| N_f / (2 pi)),
// gear_slip.input_turn_rad (the input's turn over the ratio window), gear_slip.input_turns
// (bool: the input turned enough; when it did not, max and skipped_teeth are NaN and
// gear_slip.ok false), gear_slip.ok (the input turned and no follower lost a whole pitch)
void tf_gear_slip_finish(const tf_gear_slip_probe* p, tf_metrics* out);
void tf_gear_slip_free(tf_gear_slip_probe* p);

typedef struct tf_contacts_probe {
  long nstep;
  double sum_after, sum_before;
  int max_after, max_before;
  long overflow, merged;
  long pairs_searched, pairs_recalled;
} tf_contacts_probe;

void tf_contacts_init(tf_contacts_probe* p);
// after: contacts kept; before: candidates before reduction; merged: candidates the reduction
// merged into the kept ones (normal); overflow: contacts the buffer could not hold this step
void tf_contacts_observe(tf_contacts_probe* p, int after, int before, int merged, int overflow);
// the step's remembered geom pairs (engine/collision_persist.c) that were searched and that
// recalled their last search instead
void tf_contacts_observe_pairs(tf_contacts_probe* p, int searched, int recalled);
// contacts.mean, contacts.max, contacts.candidates_mean, contacts.candidates_max,
// contacts.merged, contacts.overflow, contacts.recalled (the share of pair searches served
// from the pair's memory; NaN when no pair came within reach)
void tf_contacts_finish(const tf_contacts_probe* p, tf_metrics* out);

typedef struct tf_solver_probe {
  long nstep, nsolve;
  double iters_sum, residual_max;
  int iters_max;
  long capped;  // solves that hit the iteration cap above tolerance
} tf_solver_probe;

void tf_solver_probe_init(tf_solver_probe* p);
// iterations and residual of one solve (a step with no constraint rows: iterations 0, and
// it is not counted as a solve)
void tf_solver_probe_observe(tf_solver_probe* p, int nrow, int iterations, double residual,
                             int capped);
// solver.iters_mean, solver.iters_max, solver.residual_max, solver.capped
void tf_solver_probe_finish(const tf_solver_probe* p, tf_metrics* out);

typedef struct tf_divergence_probe {
  double runaway_speed;
  long nstep;
  long step;  // the step where it diverged, -1 if not
  double time;
  int reason;  // 0 none, 1 NaN / inf, 2 runaway velocity, 3 the engine refused the step
} tf_divergence_probe;

void tf_divergence_init(tf_divergence_probe* p, double runaway_speed);
// one step: its index and time, the largest |qvel|, whether every state value is finite,
// and whether tf_step failed
void tf_divergence_observe(tf_divergence_probe* p, long step, double t, double speed_max,
                           int finite, int step_failed);
int tf_divergence_diverged(const tf_divergence_probe* p);
// divergence.diverged (bool), divergence.step, divergence.time_s, divergence.reason (text:
// "none", "nan", "runaway", "step_failed")
void tf_divergence_finish(const tf_divergence_probe* p, tf_metrics* out);

typedef struct tf_throughput_probe {
  long nstep;                // physics steps
  long ncontrol;             // control steps
  double sim_time;           // s simulated
  double wall;               // s of wall time spent stepping
  double stage[TF_TIMER_N];  // s per engine stage, summed
} tf_throughput_probe;

void tf_throughput_init(tf_throughput_probe* p);
// one physics step: its wall time and the engine's per-stage timers
void tf_throughput_observe(tf_throughput_probe* p, double dt, double wall,
                           const double timer[TF_TIMER_N]);
// throughput.steps_per_s (physics steps), throughput.env_steps_per_s (control steps),
// throughput.realtime_factor, throughput.us_per_step, and throughput.<stage>_us per stage
// (collision_us, solve_us, ...: mean microseconds per physics step)
void tf_throughput_finish(const tf_throughput_probe* p, tf_metrics* out);

// ---------------------------------------------------------------- the set over tf_data

// samples of one overlap side near each other: overlap_order[start .. start + count) of the
// side, within radius of centre (the sampled geom's frame)
typedef struct tf_overlap_cluster {
  int start, count;
  double centre[3];
  double radius;  // m
  double lb;      // m: no sample's value was below it at the pose last seen; NaN: none yet
  double seen_rot[9], seen_centre[3];  // that pose: rotation (sampled -> other geom frame),
                                       // the centre in the other geom's frame
} tf_overlap_cluster;

typedef struct tf_probe_set {
  tf_probe_spec spec;
  tf_tunnel_probe tunnel;
  tf_overlap_probe overlap;
  tf_gear_slip_probe gear_slip;
  tf_contacts_probe contacts;
  tf_solver_probe solver;
  tf_divergence_probe divergence;
  tf_throughput_probe throughput;
  // gear angle unwrapping: the previous orientation of each gear body
  double gear_quat_prev[TF_PROBE_MAX_GEARS][4];
  double gear_angle[TF_PROBE_MAX_GEARS];
  double sdf_error;  // m: the largest error bound among the SDFs the overlap probe reads
  // overlap: per surface sample, its position in the other geom's frame at its last SDF
  // evaluation and the value there (x y z value), so that a sample the 1-Lipschitz bound
  // proves still clear is not evaluated again; allocated by init
  double* overlap_cache;                           // (total samples of measured sides x 4)
  int overlap_cache_adr[TF_PROBE_MAX_OVERLAP][2];  // first cache row of each side, -1: skipped
  long overlap_evaluations;                        // SDF evaluations made (cost, tests)
  // overlap: each measured side's samples in spatial clusters, each with a lower bound of
  // its samples' values at the relative pose it was last looked at (probe_overlap_clusters.c)
  int* overlap_order;                   // (total samples) each side's sample indices by cluster
  tf_overlap_cluster* overlap_cluster;  // every side's clusters
  int overlap_cluster_adr[TF_PROBE_MAX_OVERLAP][2];  // a side's first cluster, -1: skipped
  int overlap_cluster_num[TF_PROBE_MAX_OVERLAP][2];  // and how many
  int solver_warn_prev;  // d->warning[TF_WARN_SOLVER] at the last step, -1 before the first
  double overlap_pair_peak[TF_PROBE_MAX_OVERLAP];  // m: each pair's deepest penetration (>= 0)
  double overlap_pair_last[TF_PROBE_MAX_OVERLAP];  // m: each pair's deepest value at the last
                                                   // control step (a per-step record's)
} tf_probe_set;

// control_dt (s) sizes the gear probe's window ring; returns 0, or -1 with a message (and
// nothing left to free)
int tf_probes_init(tf_probe_set* s, const tf_model* m, const tf_probe_spec* spec, double control_dt,
                   char* err, size_t errlen);
// after each physics step (d's kinematics current): throughput, contacts, solver, divergence
void tf_probes_observe_step(tf_probe_set* s, const tf_model* m, const tf_data* d, double wall,
                            int step_failed);
// after each control step: tunnel, overlap, gear slip
void tf_probes_observe_control(tf_probe_set* s, const tf_model* m, const tf_data* d);
// the overlap probe's parts (probe_overlap_clusters.c): the clusters of every measured side
// (after the cache is laid out; nsample samples in all), 0 or -1 with a message; and the
// step's deepest value over every measured side (+inf when none)
int tf_overlap_clusters_build(tf_probe_set* s, long nsample, char* err, size_t errlen);
double tf_overlap_deepest(tf_probe_set* s, const tf_model* m, const tf_data* d,
                          double* pair_deepest);
// every probe's metrics (probes that are off report nothing)
void tf_probes_finish(const tf_probe_set* s, tf_metrics* out);
void tf_probes_free(tf_probe_set* s);

// ---------------------------------------------------------------- environments

// merges the metrics of n environments into one row: counts of environments for
// tunnel.through, tunnel.flythrough and divergence.diverged; all-of for success and other
// booleans; the worst for peaks and maxima (*.peak_m, *.max, *_max, skipped_teeth,
// residual_max, depth_min_m) and for tunnel.travel_m (the least); the sum for the other
// counts (integer metrics: contacts.overflow, contacts.merged, solver.capped, ...); the mean
// for the rest; texts from the first environment, but "why" from the first that missed
// ("env 3: ... (and 2 more envs)"). Adds envs (the count).
void tf_metrics_merge_envs(tf_metrics* out, const tf_metrics* env, int n);

#endif  // TF_PROBES_H
