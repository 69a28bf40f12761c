// The interrupt count (interrupts.h). A signal handler can safely do nothing but set a
// volatile sig_atomic_t (no locks, no stdio) and gets no argument through which to reach a
// command's state, so the count is the CLI's one file-scope mutable variable: the handler
// counts, the command polls.
#include "interrupts.h"

#include <string.h>

static volatile sig_atomic_t interrupts;

static void on_interrupt(int sig) {
  (void)sig;
  if (interrupts < 2) interrupts = interrupts + 1;
}

const volatile sig_atomic_t* tf_cli_trap_interrupts(tf_cli_trap* trap, int restart) {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = restart ? SA_RESTART : 0;
  interrupts = 0;
  sigaction(SIGINT, &sa, &trap->old_int);
  sigaction(SIGTERM, &sa, &trap->old_term);
  return &interrupts;
}

void tf_cli_release_interrupts(const tf_cli_trap* trap) {
  sigaction(SIGINT, &trap->old_int, NULL);
  sigaction(SIGTERM, &trap->old_term, NULL);
}
