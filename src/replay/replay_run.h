/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * replay_run.h -- the event loop of `emlat replay`: one thread, one ppoll,
 * that sends the workload on schedule, reads everything CMD writes, answers
 * terminal queries, measures, and ends CMD.
 *
 * Phases: start-up (until output has been quiet for SETTLE_NS, at most
 * SETTLE_MAX_NS), the steps, drain (until the last send's output is quiet,
 * at most DRAIN_MAX_NS), linger (CMD may exit by itself), then the ending
 * ladder: hang up the terminal, SIGTERM after GRACE_NS, SIGKILL after
 * another GRACE_NS.  The overall TIMEOUT_NS, a failed `wait`, or a signal to
 * the driver skip to SIGTERM.  If CMD exits at any point the run ends.
 *
 * The caller blocks SIGCHLD, SIGINT, SIGTERM and SIGHUP in every thread
 * before any thread is created (replay_run_block_signals); the loop unblocks
 * them only inside ppoll, so a signal always interrupts the wait.
 */
#ifndef EMLAT_REPLAY_RUN_H
#define EMLAT_REPLAY_RUN_H

#include <stdint.h>

#include "replay/replay_measure.h"
#include "replay/replay_pty.h"
#include "replay/replay_script.h"
#include "replay/replay_term.h"

struct replay_config
{
  unsigned rows, cols;
  uint64_t quiet_ns;
  uint64_t settle_ns, settle_max_ns;
  uint64_t drain_max_ns;
  uint64_t linger_ns;
  uint64_t grace_ns;
  uint64_t timeout_ns; /* whole run, from spawn */
  /* Called once when CMD has exited and before it is reaped (NULL: none):
     CMD is a zombie, still readable in /proc (its last CPU times). */
  void (*before_reap) (void *arg);
  void *before_reap_arg;
};

/* How the run ended. */
enum replay_why {
  REPLAY_END_COMPLETED,   /* every step ran */
  REPLAY_END_CMD_EXITED,  /* CMD ended before the workload did */
  REPLAY_END_TIMEOUT,     /* the overall timeout */
  REPLAY_END_WAIT_FAILED, /* a wait/expect-quiet timed out */
  REPLAY_END_INTERRUPTED, /* the driver got SIGINT/SIGTERM/SIGHUP */
  REPLAY_END_IO_ERROR     /* the terminal failed */
};

/* The last thing the driver did to CMD before it ended. */
enum replay_action { REPLAY_ACT_NONE, REPLAY_ACT_HANGUP, REPLAY_ACT_TERM,
                     REPLAY_ACT_KILL };

struct replay_result
{
  enum replay_why why;
  enum replay_action action;
  int sent_hangup, sent_term, sent_kill; /* what the ladder did */
  int wait_status;         /* from wait4 */
  int reaped;              /* CMD was reaped */
  /* CPU time of CMD and the children it waited for (wait4 rusage; valid
     when reaped). */
  uint64_t cmd_user_ns, cmd_sys_ns;
  size_t steps_done, steps_total;
  unsigned failed_line;    /* the step that failed or was running */
  int settled;             /* start-up output went quiet in time */
  uint64_t t_spawn, t_workload, t_end;
  uint64_t keys_sent;      /* sends whose first byte was written */
  uint64_t bytes_sent;     /* keystroke bytes (not answers) */
  uint64_t answer_bytes;
  int io_errno;
};

/* Block the signals the loop waits for (call before creating threads). */
int replay_run_block_signals (void);

/* Run SCRIPT against the already spawned CMD in P.  Fills M (initialized by
   the caller with the quiet time), T and R. */
void replay_run (const struct replay_config *cfg,
                 const struct replay_script *script, struct replay_pty *p,
                 struct replay_term *t, struct replay_measure *m,
                 struct replay_result *r);

#endif /* EMLAT_REPLAY_RUN_H */
