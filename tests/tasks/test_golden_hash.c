// Golden state hashes (issue 17's determinism guard, STYLE.md convention 9): every rig and
// every robot mode (the peg's under each controller) steps a fixed number of control steps
// at seed 0 with its default settings, and the hash of its state and contacts
// (engine/state_hash.h) must equal the checked-in value. A change meant not to alter results
// (an optimisation, a refactor, a build flag such as PGO) proves it by leaving the table as it
// is; one meant to alter them updates the table, which TF_GOLDEN_PRINT=1 prints paste-ready
// (one table per OpenBLAS kernel family, see golden[]).
// Each case stops where contacts are active (asserted), so the hash covers the contact code,
// not only free flight. The same case run twice in one process, and the whole table computed
// on two threads at once, give the same hashes: the engine keeps no shared mutable state.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "state_hash.h"
#include "task.h"

// one task run: the task, its mode, at most one key=value pair, and the control steps taken
// before hashing (each case's default dt; every one ends with contacts active)
typedef struct golden_case {
  const char* name;  // "<task>/<mode>[/<controller>]", as the table names it
  const char* task;
  tf_task_mode mode;
  const char* key;  // NULL: the task's defaults
  const char* value;
  int nstep;
} golden_case;

static const golden_case cases[] = {
    // rigs: the peg in its bore, the plug in its socket, the nut on its thread, the gears on
    // their shafts and in mesh (contacts from step 31, 21, 1 and 1; the teeth's from 10)
    {"peg/rig", "peg", TF_MODE_RIG, NULL, NULL, 60},
    {"connectors/rig", "connectors", TF_MODE_RIG, NULL, NULL, 60},
    {"boltnut/rig", "boltnut", TF_MODE_RIG, NULL, NULL, 20},
    {"gears/rig", "gears", TF_MODE_RIG, "mount", "shaft", 40},
    // robot modes: the fingers closed on the part while it still stands on its stand or rails
    // (the grasp begins at step 658 to 679 under osc, 1051 under impedance, 1312 under ik and
    // pd): the arm, its controller and the finger contacts under load
    {"peg/robot", "peg", TF_MODE_ROBOT, NULL, NULL, 700},
    {"connectors/robot", "connectors", TF_MODE_ROBOT, NULL, NULL, 700},
    {"gears/robot", "gears", TF_MODE_ROBOT, NULL, NULL, 700},
    {"boltnut/robot", "boltnut", TF_MODE_ROBOT, NULL, NULL, 700},
    {"peg/robot/impedance", "peg", TF_MODE_ROBOT, "controller", "impedance", 1100},
    {"peg/robot/ik", "peg", TF_MODE_ROBOT, "controller", "ik", 1350},
    {"peg/robot/pd", "peg", TF_MODE_ROBOT, "controller", "pd", 1350},
};
#define NCASE ((int)(sizeof(cases) / sizeof(cases[0])))

// The checked-in hashes per OpenBLAS kernel family (openblas_get_corename()), one per case in
// cases[] order. OpenBLAS picks its kernels by the processor at load time, and each family
// sums in its own order, so the same run gives other last bits on another family (a Sapphire
// Rapids Xeon that OpenBLAS 0.3.21 does not know runs Prescott's kernels; a Skylake-SP runs
// SkylakeX's). Each family's table was made on one machine with OPENBLAS_CORETYPE set;
// TF_GOLDEN_PRINT=1 prints the running family's row, paste-ready.
typedef struct golden_table {
  const char* core;
  uint64_t hash[NCASE];
} golden_table;

static const golden_table golden[] = {
    {"Prescott",
     {0x62cedec7e0a3f19aull, 0xcae173a10c277731ull, 0xbf4fe44a45c43da9ull, 0xbf9d4f9dff9be3a7ull,
      0x6df550cf06e3e8d5ull, 0x72fe3efddd539bffull, 0xf3bb418160d4821bull, 0x867b29ace8d9af0cull,
      0xeb139c25b8966ee4ull, 0x67768c63babeb852ull, 0x523b9b144e671055ull}},
    {"Core2",
     {0x76f3fdddc607afc9ull, 0xcae173a10c277731ull, 0x66fe07f1d2f57936ull, 0xa136c5a15ec5c42cull,
      0x0969055ea6d5c3caull, 0xa0643d2254e51beeull, 0xe486766bf04151feull, 0x2806f15142cbd3cdull,
      0xd96dccc211ff75cbull, 0x202e796439cef739ull, 0xc850bbb0d1a479cfull}},
    {"Penryn",
     {0x8698e1689ca5ad1bull, 0xcae173a10c277731ull, 0xdfb48da0a8b430ecull, 0xc9b585492002471dull,
      0x8f21f353fcc11e53ull, 0x8633c5ab5eadbc8bull, 0x75f15668a6818c97ull, 0xbd3d41534bac4fafull,
      0xc2d0c44737021ed5ull, 0xfd9ddadfeb66de5eull, 0x44f662b5973165d3ull}},
    {"Nehalem",
     {0xc34a63be11a30136ull, 0xcae173a10c277731ull, 0xbe731db07cf6cb67ull, 0x0032e58c8a8e4c3dull,
      0x0af8c6817d0cf2f8ull, 0x6baf4e480f1a0f85ull, 0xf79dbdad53afa169ull, 0x8f1cf65d6e4e4cb6ull,
      0x5b63cb5cdc0a3d95ull, 0xc40dadbc969f3d37ull, 0x4affbbd9e3a25e95ull}},
    {"Sandybridge",
     {0x037413f8746e95c8ull, 0xcae173a10c277731ull, 0x1a853cbdbab03684ull, 0x31a942c3d7895b28ull,
      0x0e6c21444716d328ull, 0xe176deba61b2311full, 0x6282186c7507866full, 0x2981406b229f7588ull,
      0x94c52f901486bf91ull, 0x0154da750d167d60ull, 0x8f77df0d6d7782cfull}},
    {"Haswell",
     {0x3429f237517d4b74ull, 0xcae173a10c277731ull, 0x57c86b9d6251469cull, 0x3aa2eb192b21ff00ull,
      0x6a4e598e71517996ull, 0xd2db04b49f6b82d5ull, 0x749f836957efc587ull, 0x34ce3bf2fe2e132bull,
      0x0c63a12e83c418a2ull, 0x99daa86aae5390f6ull, 0x1ad047cda5c98de1ull}},
    {"Zen",
     {0x3429f237517d4b74ull, 0xcae173a10c277731ull, 0x57c86b9d6251469cull, 0x3aa2eb192b21ff00ull,
      0x6a4e598e71517996ull, 0xd2db04b49f6b82d5ull, 0x749f836957efc587ull, 0x34ce3bf2fe2e132bull,
      0x0c63a12e83c418a2ull, 0x99daa86aae5390f6ull, 0x1ad047cda5c98de1ull}},
    {"SkylakeX",
     {0xa9e694d68c7a177aull, 0xdba3a751c823699full, 0xf7956c56609424cdull, 0x4da809226c9706f1ull,
      0x392e7691f3c91b67ull, 0xaeb5ee6ae88d4e33ull, 0x45b9fc67a0e015a2ull, 0x66682b1123f2119bull,
      0x70150605a617505bull, 0xea95454c082fe56bull, 0xc07e6b821d208319ull}},
    {"Cooperlake",
     {0xa9e694d68c7a177aull, 0xdba3a751c823699full, 0xf7956c56609424cdull, 0x4da809226c9706f1ull,
      0x392e7691f3c91b67ull, 0xaeb5ee6ae88d4e33ull, 0x45b9fc67a0e015a2ull, 0x66682b1123f2119bull,
      0x70150605a617505bull, 0xea95454c082fe56bull, 0xc07e6b821d208319ull}},
    {"Atom",
     {0x7b9919ebea03b4e8ull, 0xf4c4615dc3a85c0bull, 0x3a40e16572cfac36ull, 0x121c773ca8a044deull,
      0xa49a4c4a75857bf8ull, 0xee048b3aaab92f3eull, 0x123c14a0b4aa80a9ull, 0xf891504d117f5ddfull,
      0xf5777d17da84f758ull, 0x4a16e8b6c35b9329ull, 0xa0f9c37015322a0full}},
    {"Barcelona",
     {0x76f3fdddc607afc9ull, 0xcae173a10c277731ull, 0x66fe07f1d2f57936ull, 0xa136c5a15ec5c42cull,
      0x3ff4fc67c0df8753ull, 0x5974785c2f41f29cull, 0x3b2225c7e263f4f0ull, 0x4379379fb2ddf28dull,
      0xd96dccc211ff75cbull, 0x202e796439cef739ull, 0xc850bbb0d1a479cfull}},
};
#define NGOLDEN ((int)(sizeof(golden) / sizeof(golden[0])))

// what one run of a case gave: its hash and contacts at the hashing step, or a failure
typedef struct golden_result {
  uint64_t hash;
  int ncon;
  int ok;         // 1 when the run built and took all its steps
  char err[256];  // why not, otherwise
} golden_result;

// runs case c and hashes its final state; touches no cmocka state, so threads may call it
static void run_case(const golden_case* c, golden_result* out) {
  memset(out, 0, sizeof(*out));
  tf_run_options o;
  tf_run_options_default(&o);
  o.task = c->task;
  o.mode = c->mode;
  o.seed = 0;
  if (c->key) {
    o.set[0].key = c->key;
    o.set[0].value = c->value;
    o.nset = 1;
  }
  tf_env_run* r = tf_env_run_begin(&o, 0, out->err, sizeof(out->err));
  if (!r) return;
  for (int i = 0; i < c->nstep; i++) {
    // 1 while the run goes on: the case must end before the task's duration, undiverged
    if (!tf_env_run_step(r)) {
      snprintf(out->err, sizeof(out->err), "the run stopped after %d of %d steps", i + 1, c->nstep);
      tf_env_run_end(r);
      return;
    }
  }
  const tf_env* env = tf_env_run_env(r);
  out->hash = tf_state_hash(env->model, env->data);
  out->ncon = env->data->ncon;
  out->ok = 1;
  tf_env_run_end(r);
}

// the table computed once, serially, for the tests to compare against
static golden_result serial[NCASE];

static int setup(void** state) {
  (void)state;
  tf_engine_init();
  for (int i = 0; i < NCASE; i++) run_case(&cases[i], &serial[i]);
  return 0;
}

// a case that failed to run fails the test, naming it
static void assert_ran(const golden_case* c, const golden_result* r) {
  if (!r->ok) print_message("golden_hash %s: %s\n", c->name, r->err);
  assert_true(r->ok);
}

// the checked-in table names the cases in order; every case ran with contacts active and
// hashed as checked in. All mismatches are printed before the test fails.
static void test_golden(void** state) {
  (void)state;
  const char* core = openblas_get_corename();
  const golden_table* table = NULL;
  for (int k = 0; k < NGOLDEN; k++) {
    if (strcmp(golden[k].core, core) == 0) table = &golden[k];
  }
  const char* print = getenv("TF_GOLDEN_PRINT");
  if (print && strcmp(print, "1") == 0) {
    printf("    {\"%s\",\n     {", core);
    for (int i = 0; i < NCASE; i++) {
      printf("0x%016" PRIx64 "ull%s  // %s, %d steps, ncon %d\n      ", serial[i].hash,
             i + 1 < NCASE ? "," : "}},", cases[i].name, cases[i].nstep, serial[i].ncon);
    }
    printf("\n");
  }
  if (!table) {
    print_message(
        "golden_hash: no table for OpenBLAS kernel family '%s' (make one with "
        "TF_GOLDEN_PRINT=1 on a machine that runs it)\n",
        core);
  }
  assert_non_null(table);
  int mismatches = 0;
  for (int i = 0; i < NCASE; i++) {
    assert_ran(&cases[i], &serial[i]);
    if (serial[i].ncon <= 0) print_message("golden_hash %s: no contacts\n", cases[i].name);
    assert_true(serial[i].ncon > 0);
    if (serial[i].hash != table->hash[i]) {
      print_message("golden_hash %s (%s kernels): got 0x%016" PRIx64 " expected 0x%016" PRIx64
                    " (update the table if the change is meant to alter results)\n",
                    cases[i].name, core, serial[i].hash, table->hash[i]);
      mismatches++;
    }
  }
  assert_int_equal(mismatches, 0);
}

// a rig and a robot case run again in the same process hash the same
static void test_repeat(void** state) {
  (void)state;
  const int again[] = {0, 4};
  for (size_t k = 0; k < sizeof(again) / sizeof(again[0]); k++) {
    const golden_case* c = &cases[again[k]];
    golden_result r;
    run_case(c, &r);
    assert_ran(c, &r);
    assert_ran(c, &serial[again[k]]);
    if (r.hash != serial[again[k]].hash) {
      print_message("golden_hash %s: second run 0x%016" PRIx64 ", first 0x%016" PRIx64 "\n",
                    c->name, r.hash, serial[again[k]].hash);
    }
    assert_true(r.hash == serial[again[k]].hash);
  }
}

// one of two threads: every other case, starting at its index
typedef struct golden_thread {
  int first;
  golden_result* results;  // (NCASE)
} golden_thread;

static void* thread_main(void* arg) {
  golden_thread* t = arg;
  for (int i = t->first; i < NCASE; i += 2) run_case(&cases[i], &t->results[i]);
  return NULL;
}

// the table computed on two threads at once equals the serial one
static void test_threads(void** state) {
  (void)state;
  static golden_result threaded[NCASE];
  golden_thread t[2] = {{0, threaded}, {1, threaded}};
  pthread_t id[2];
  for (int k = 0; k < 2; k++) assert_int_equal(pthread_create(&id[k], NULL, thread_main, &t[k]), 0);
  for (int k = 0; k < 2; k++) assert_int_equal(pthread_join(id[k], NULL), 0);
  int mismatches = 0;
  for (int i = 0; i < NCASE; i++) {
    assert_ran(&cases[i], &threaded[i]);
    if (threaded[i].hash != serial[i].hash) {
      print_message("golden_hash %s: on 2 threads 0x%016" PRIx64 ", serially 0x%016" PRIx64 "\n",
                    cases[i].name, threaded[i].hash, serial[i].hash);
      mismatches++;
    }
  }
  assert_int_equal(mismatches, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_golden),
      cmocka_unit_test(test_repeat),
      cmocka_unit_test(test_threads),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
