// The loop a trainer runs (issue 20's acceptance), trained on nothing: 64 environments of the
// cheapest robot mode (the peg under osc), 1,000 policy steps of a fixed random policy
// (splitmix, tasks/task_rng.c) with auto-reset, on one thread and on two: every environment's
// return (the sum of its rewards over the 1,000 steps, episodes after an auto-reset included)
// is the same double on both, and memory does not grow from the 300th step to the last, over
// two rounds of auto-resets (0.5 s episodes at decimation 1: 250 policy steps each; the first
// round, before step 300, rebuilds every environment once): the bytes malloc has handed out
// (mallinfo2, every arena) stay within HEAP_MAX, and the process's resident memory
// (/proc/self/statm) within RSS_MAX. Each loop runs in a process of its own, as a trainer
// runs one batch: a second batch in a process that freed a first one re-touches pages malloc
// had given back, and its resident memory climbs by a few megabytes over the first rounds
// whatever it leaks. Prints the wall time of each loop.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "task.h"
#include "vec_env.h"

#define NENV 64
#define NSTEP 1000
#define WARM 300                 // steps before the first memory reading
#define HEAP_MAX (256.0 * 1024)  // bytes: malloc's in-use bytes may move this much, no more
#define RSS_MAX (4.0 * 1048576)  // bytes: and the resident memory this much (1.6 %)

// what one loop leaves: each environment's return, the episodes that ended, the growth of
// the heap and of the resident memory, and 0 or a message
typedef struct loop_result {
  double returns[NENV];
  int episodes;
  double heap_growth, rss_growth, rss;
  double wall;
  char err[256];
} loop_result;

// resident bytes of this process (/proc/self/statm's second field, in pages)
static double resident_bytes(void) {
  FILE* f = fopen("/proc/self/statm", "r");
  long size = 0, resident = 0;
  if (!f || fscanf(f, "%ld %ld", &size, &resident) != 2) resident = -1;
  if (f) fclose(f);
  return (double)resident * (double)sysconf(_SC_PAGESIZE);
}

// bytes malloc has handed out, over every arena (small chunks and mmapped ones)
static double heap_bytes(void) {
  struct mallinfo2 mi = mallinfo2();
  return (double)mi.uordblks + (double)mi.hblkhd;
}

// the loop on `threads` threads into r (no cmocka calls: it runs in a child process)
static void trainer_loop(const char* threads, loop_result* r) {
  const char* keys[] = {"mode", "threads", "decimation", "duration"};
  const char* values[] = {"robot", threads, "1", "0.5"};
  double t0 = tf_clock();
  tf_vec_env* v = tf_vec_env_create("peg", NENV, keys, values, 4, r->err, sizeof(r->err));
  if (!v) return;
  if (tf_vec_env_reset(v, 2024, r->err, sizeof(r->err))) {
    tf_vec_env_destroy(v);
    return;
  }
  int na = tf_vec_env_action_dim(v);
  static double actions[NENV * 8];
  tf_rng rng;
  tf_rng_seed(&rng, 42, 0);
  double heap = 0, resident = 0;
  for (int t = 0; t < NSTEP; t++) {
    if (t == WARM) heap = heap_bytes(), resident = resident_bytes();
    for (int k = 0; k < NENV * na; k++) actions[k] = tf_rng_uniform(&rng, -1, 1);
    if (tf_vec_env_step(v, actions, r->err, sizeof(r->err))) {
      tf_vec_env_destroy(v);
      return;
    }
    for (int i = 0; i < NENV; i++) {
      r->returns[i] += tf_vec_env_rewards(v)[i];
      r->episodes += tf_vec_env_terminated(v)[i] || tf_vec_env_truncated(v)[i];
    }
  }
  r->heap_growth = heap_bytes() - heap;
  r->rss_growth = resident_bytes() - resident;
  r->rss = resident;
  r->wall = tf_clock() - t0;
  tf_vec_env_destroy(v);
}

// the loop in a child process, its result back through a pipe
static void trainer_process(const char* threads, loop_result* r) {
  int fd[2];
  assert_int_equal(pipe(fd), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    close(fd[0]);
    loop_result* mine = calloc(1, sizeof(loop_result));
    if (mine) trainer_loop(threads, mine);
    ssize_t n = mine ? write(fd[1], mine, sizeof(*mine)) : -1;
    _exit(n == (ssize_t)sizeof(*mine) ? 0 : 1);
  }
  close(fd[1]);
  memset(r, 0, sizeof(*r));
  size_t got = 0;
  while (got < sizeof(*r)) {
    ssize_t n = read(fd[0], (char*)r + got, sizeof(*r) - got);
    if (n <= 0) break;
    got += (size_t)n;
  }
  close(fd[0]);
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  assert_int_equal(got, sizeof(*r));
  if (r->err[0]) print_message("%s thread(s): %s\n", threads, r->err);
  assert_string_equal(r->err, "");
  print_message(
      "%s thread(s): %d policy steps of %d environments in %.1f s, %d episodes ended; "
      "from step %d heap %+.0f kB, resident %+.0f kB (of %.0f MB)\n",
      threads, NSTEP, NENV, r->wall, r->episodes, WARM, r->heap_growth / 1024, r->rss_growth / 1024,
      r->rss / 1048576);
}

static void test_trainer_loop(void** state) {
  (void)state;
  loop_result* r = test_malloc(2 * sizeof(loop_result));
  trainer_process("1", &r[0]);
  trainer_process("2", &r[1]);
  assert_memory_equal(r[0].returns, r[1].returns, sizeof(r[0].returns));
  assert_int_equal(r[0].episodes, r[1].episodes);
  assert_true(r[0].episodes >= 3 * NENV);  // every environment went through three auto-resets
  for (int k = 0; k < 2; k++) {
    assert_true(r[k].heap_growth <= HEAP_MAX);
    assert_true(r[k].rss_growth <= RSS_MAX);
  }
  test_free(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_trainer_loop),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
