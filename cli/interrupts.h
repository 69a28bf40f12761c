// Ctrl-C and SIGTERM for the commands that run long (sweep, video): a handler that counts
// them (up to 2: "stop starting runs", then "drop the ones in flight") into the process's one
// interrupt flag, installed for a stretch of work and put back after it.
#ifndef TF_CLI_INTERRUPTS_H
#define TF_CLI_INTERRUPTS_H

#include <signal.h>

// the handlers a trap replaced, to put back
typedef struct tf_cli_trap {
  struct sigaction old_int, old_term;
} tf_cli_trap;

// zeroes the count and counts SIGINT / SIGTERM from here on (restart: 1 to restart
// interrupted system calls, as a poll loop wants); returns the count to poll, which a render
// may also take as its cancel flag
const volatile sig_atomic_t* tf_cli_trap_interrupts(tf_cli_trap* trap, int restart);

// puts back the handlers trap replaced
void tf_cli_release_interrupts(const tf_cli_trap* trap);

#endif  // TF_CLI_INTERRUPTS_H
