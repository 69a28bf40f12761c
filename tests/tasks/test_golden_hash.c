// Golden state hashes (issue 17's determinism guard, STYLE.md convention 9): every rig and
// every robot mode (the peg's under each controller) steps a fixed number of control steps
// at seed 0 with its default settings, and the hash of its state and contacts
// (engine/state_hash.h) must equal the checked-in value. A change meant not to alter results
// (an optimisation, a refactor, a build flag such as PGO) proves it by leaving the table as it
// is; one meant to alter them updates the table, which TF_GOLDEN_PRINT=1 prints paste-ready.
// One table serves every x86-64 machine: the engine's dense algebra is its own
// (engine/linalg_dense.h), so no library picks a summation order by processor.
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

// the checked-in hashes, one per case in cases[] order
static const uint64_t golden[NCASE] = {
    0xaaee870d30eab525ull,  // peg/rig, 60 steps, ncon 22
    0xe20d6cdf26267199ull,  // connectors/rig, 60 steps, ncon 31
    0x55d747e9868062abull,  // boltnut/rig, 20 steps, ncon 124
    0xc9f0aebba83c2269ull,  // gears/rig, 40 steps, ncon 57
    0x33d998e153fff502ull,  // peg/robot, 700 steps, ncon 12
    0x5be61360ba4a8180ull,  // connectors/robot, 700 steps, ncon 16
    0x053bf51d8d2daab5ull,  // gears/robot, 700 steps, ncon 24
    0xa570ebb629eb07b7ull,  // boltnut/robot, 700 steps, ncon 23
    0xe7d241d80494f03full,  // peg/robot/impedance, 1100 steps, ncon 10
    0x9849c2dd76637e68ull,  // peg/robot/ik, 1350 steps, ncon 12
    0x1889be7344d14f14ull,  // peg/robot/pd, 1350 steps, ncon 12
};

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
  const char* print = getenv("TF_GOLDEN_PRINT");
  if (print && strcmp(print, "1") == 0) {
    printf("static const uint64_t golden[NCASE] = {\n");
    for (int i = 0; i < NCASE; i++) {
      printf("    0x%016" PRIx64 "ull,  // %s, %d steps, ncon %d\n", serial[i].hash, cases[i].name,
             cases[i].nstep, serial[i].ncon);
    }
    printf("};\n");
  }
  int mismatches = 0;
  for (int i = 0; i < NCASE; i++) {
    assert_ran(&cases[i], &serial[i]);
    if (serial[i].ncon <= 0) print_message("golden_hash %s: no contacts\n", cases[i].name);
    assert_true(serial[i].ncon > 0);
    if (serial[i].hash != golden[i]) {
      print_message("golden_hash %s: got 0x%016" PRIx64 " expected 0x%016" PRIx64
                    " (update the table if the change is meant to alter results)\n",
                    cases[i].name, serial[i].hash, golden[i]);
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
