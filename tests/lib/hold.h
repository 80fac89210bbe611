/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * hold.h -- hold one thread of this process stopped while the test goes
 * on: the recorder's writer, so that a burst fills a small ring however
 * slow the build (a sanitizer's) and whatever the machine, and the drops
 * a test expects are certain, not a race the writer may win.
 *
 * The writer blocks every signal, so only ptrace can stop it alone: a
 * child process traces the thread (PTRACE_SEIZE, PTRACE_INTERRUPT), says
 * so, and detaches when told to.  Where Yama is built in, this process
 * allows its children to trace it (PR_SET_PTRACER_ANY) first.
 *
 * Invariants: tu_hold_thread returns only once the thread is stopped, or
 * with an error and nothing left behind; tu_release_thread lets it run and
 * reaps the tracer.
 */
#ifndef EMLAT_TEST_HOLD_H
#define EMLAT_TEST_HOLD_H

#include <sys/types.h>

struct tu_held
{
  pid_t tracer;
  int release_fd;
};

/* Stop this process's thread named NAME (its comm), waiting up to 5 s for
   it to appear.  0 when it is stopped; else an errno value (ESRCH: no
   such thread; EPERM: ptrace not permitted here), and the caller should
   say what it then leaves unchecked. */
int tu_hold_thread (const char *name, struct tu_held *h);

/* tu_hold_thread of the recorder's writer ("emlat-writer"), as a check:
   a writer not found fails the test; a writer that cannot be held (ptrace
   refused) is said, with UNCHECKED, what the caller then leaves
   unchecked.  1 when it is held. */
int tu_hold_writer (struct tu_held *h, const char *unchecked);

/* Let the thread held by tu_hold_thread run again. */
void tu_release_thread (struct tu_held *h);

#endif /* EMLAT_TEST_HOLD_H */
