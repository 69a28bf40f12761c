// A persistent contact never hides a new one (issue 17): two rigs run twice in lockstep,
// with pair memories (the default persist_tol) and with a search every step (persist_tol 0),
// and every new feature gets its first row on the same step in both, the two runs being the
// same bits up to there (a pair apart recalls exactly what a search finds):
// - the peg dropped tilted into its bore: the entry chamfer, the bore's wall below it, then
//   its floor come within reach while it falls at up to 0.9 m/s;
// - the gear train (on hinges) spun up from rest with its followers inside their backlash:
//   tooth after tooth enters mesh at speed. On shafts, the bores' resting rows are recalled
//   within 1e-9 m from step 2, and the runs part in the last bits from there.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "state_hash.h"
#include "task.h"

#define MAX_FEATURES 64

// which feature of a pair a contact lies on (a band of the bore, a tooth), task by task
typedef int (*feature_fn)(const tf_model* m, const tf_contact* c);

// each feature of a geom pair met in a run and the first control step it had a contact on
typedef struct first_contacts {
  int npair;
  int geom[MAX_FEATURES][3];  // the pair's geoms and the feature
  int step[MAX_FEATURES];
} first_contacts;

static void note_contacts(first_contacts* fc, const tf_model* m, const tf_data* d, int step,
                          feature_fn feature) {
  for (int i = 0; i < d->ncon; i++) {
    const int* g = d->contact[i].geom;
    int f = feature(m, d->contact + i);
    int k = 0;
    while (k < fc->npair &&
           (fc->geom[k][0] != g[0] || fc->geom[k][1] != g[1] || fc->geom[k][2] != f)) {
      k++;
    }
    if (k < fc->npair) continue;
    assert_true(fc->npair < MAX_FEATURES);
    fc->geom[k][0] = g[0];
    fc->geom[k][1] = g[1];
    fc->geom[k][2] = f;
    fc->step[k] = step;
    fc->npair++;
  }
}

static const char* geom_name(const tf_model* m, int g) { return m->names + m->geom_nameadr[g]; }

// a pair's first step in fc, -1 when it never met
static int first_step(const first_contacts* fc, const int g[3]) {
  for (int k = 0; k < fc->npair; k++) {
    if (fc->geom[k][0] == g[0] && fc->geom[k][1] == g[1] && fc->geom[k][2] == g[2]) {
      return fc->step[k];
    }
  }
  return -1;
}

static tf_env_run* begin(const char* task, double persist_tol, const tf_kv* set, int nset,
                         double duration) {
  tf_run_options o;
  tf_run_options_default(&o);
  o.task = task;
  o.seed = 1;
  o.duration = duration;
  o.physics.persist_tol = persist_tol;
  for (int i = 0; i < nset; i++) o.set[i] = set[i];
  o.nset = nset;
  char err[256] = "";
  tf_env_run* r = tf_env_run_begin(&o, 0, err, sizeof(err));
  if (!r) print_error("%s: %s\n", task, err);
  assert_non_null(r);
  return r;
}

// steps both runs to the end. Asserts that they are the same bits through the step of the
// last new feature's first contact (a pair apart recalls exactly what a search finds; a
// resting pair may differ within persist_tol's reach after), that pairs were recalled in that
// time (the memory took part), and that every pair's every feature met its first contact on
// the same step in both; at least min_features must meet, the last no earlier than min_last.
static void check_lockstep(const char* task, const tf_kv* set, int nset, double duration,
                           feature_fn feature, int min_features, int min_last) {
  tf_env_run* kept = begin(task, 1e-9, set, nset, duration);
  tf_env_run* searched = begin(task, 0, set, nset, duration);
  first_contacts fk = {0}, fs = {0};
  int step = 0, same_until = 0, more = 1;
  int recalled[1024] = {0};  // pairs recalled at each step of the memory run
  while (more) {
    int a = tf_env_run_step(kept);
    int b = tf_env_run_step(searched);
    assert_int_equal(a, b);
    more = a;
    step++;
    const tf_env* ek = tf_env_run_env(kept);
    const tf_env* es = tf_env_run_env(searched);
    note_contacts(&fk, ek->model, ek->data, step, feature);
    note_contacts(&fs, es->model, es->data, step, feature);
    if (step < 1024) recalled[step] = ek->data->npair_recalled;
    int same = tf_state_hash(ek->model, ek->data) == tf_state_hash(es->model, es->data);
    if (same && same_until == step - 1) same_until = step;
  }
  const tf_model* m = tf_env_run_env(kept)->model;
  int last = 0;
  for (int k = 0; k < fs.npair; k++) {
    int sk = first_step(&fk, fs.geom[k]);
    print_message("%s: %s / %s feature %d first contact at step %d (searched every step: %d)\n",
                  task, geom_name(m, fs.geom[k][0]), geom_name(m, fs.geom[k][1]), fs.geom[k][2], sk,
                  fs.step[k]);
    assert_int_equal(sk, fs.step[k]);
    if (fs.step[k] > last) last = fs.step[k];
  }
  int nrecalled = 0;
  for (int i = 1; i <= last && i < 1024; i++) nrecalled += recalled[i];
  print_message("%s: same bits through step %d of %d; %d pair recalls up to step %d\n", task,
                same_until, step, nrecalled, last);
  assert_int_equal(fk.npair, fs.npair);
  assert_true(fs.npair >= min_features);
  assert_true(last >= min_last);
  assert_true(same_until >= last);
  assert_true(nrecalled > 0);
  tf_env_run_end(kept);
  tf_env_run_end(searched);
}

// the peg's contacts with its hole by where on the hole they are: 0 the top face and entry
// chamfer, 1 the bore's wall below it, 2 its floor
static int peg_feature(const tf_model* m, const tf_contact* c) {
  (void)m;
  double z = c->local[0][2];      // the hole is world-fixed: its local point is the world's
  const double chamfer = 0.5e-3;  // the hole's default entry chamfer
  const double depth = 0.02;      // and bore depth
  return z > -chamfer - 0.1e-3 ? 0 : (z > -depth + 0.1e-3 ? 1 : 2);
}

// a tooth pair's contacts by the tooth of the first gear they lie on (its body frame has the
// gear's axis along z); contacts with shafts and shoulders are one feature
static const int train_teeth[] = {60, 40, 60};  // the train the test sets ("teeth")

static int gear_feature(const tf_model* m, const tf_contact* c) {
  const char* a = geom_name(m, c->geom[0]);
  const char* b = geom_name(m, c->geom[1]);
  if (strncmp(a, "gear", 4) != 0 || strncmp(b, "gear", 4) != 0) return 0;
  int gear = a[4] - '0';
  assert_true(gear >= 0 && gear < 3);
  // flank contacts lie a quarter pitch from where round() changes tooth, whichever way the
  // outline is phased
  double pitch = 2 * M_PI / train_teeth[gear];
  long tooth = lround(atan2(c->local[0][1], c->local[0][0]) / pitch);
  return 1 + (int)((tooth + train_teeth[gear]) % train_teeth[gear]);
}

static void test_peg_drop(void** state) {
  (void)state;
  check_lockstep("peg", NULL, 0, 0.2, peg_feature, 2, 30);
}

static void test_gears_enter_mesh(void** state) {
  (void)state;
  static const tf_kv set[] = {{"mount", "hinge"}, {"teeth", "60,40,60"}};
  check_lockstep("gears", set, 2, 0.1, gear_feature, 8, 40);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_peg_drop),
      cmocka_unit_test(test_gears_enter_mesh),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
