/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_status_live.c -- emlat_status is current (emlat.h): the slots
 * accepted and the records dropped are the producers' own counters summed
 * by the call, so they are right at any moment, before the writer has
 * drained anything, and they count on across a ring's successive owners.
 *
 *  - one thread records N one-slot records into a 16-slot ring while
 *    the writer thread is held stopped (ptrace from a child process, so
 *    that no pass can drain during the burst, however slow the build):
 *    right after, accepted + dropped == N exactly, and dropped > 0,
 *    without a flush;
 *  - threads that exit hand their rings to later threads (max_threads
 *    2): the sums still add up to every record made;
 *  - after emlat_flush the dropped count equals the sum of the LOSS
 *    records in the file (F-70), and after emlat_stop the last status
 *    still does.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emlat/emlat.h"
#include "scanutil.h"
#include "tap.h"
#include "testutil.h"

enum { N = 1000 };

static void *
burst (void *arg)
{
  (void)arg;
  for (int i = 0; i < N / 2; i++)
    {
      uint64_t s = emlat_span_begin (EMLAT_SPAN_USER, 0);
      emlat_span_end (s, EMLAT_SPAN_OK, 0);
    }
  return NULL;
}

/* The thread id of this process's thread named NAME, or 0. */
static pid_t
thread_named (const char *name)
{
  DIR *d = opendir ("/proc/self/task");
  if (!d)
    return 0;
  pid_t found = 0;
  struct dirent *e;
  while (!found && (e = readdir (d)))
    {
      if (e->d_name[0] == '.')
        continue;
      char path[300], comm[32] = "";
      snprintf (path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
      int fd = open (path, O_RDONLY | O_CLOEXEC);
      if (fd < 0)
        continue;
      ssize_t n = read (fd, comm, sizeof comm - 1);
      close (fd);
      if (n > 0 && comm[n - 1] == '\n')
        comm[n - 1] = 0;
      if (n > 0 && strcmp (comm, name) == 0)
        found = (pid_t)atoi (e->d_name);
    }
  closedir (d);
  return found;
}

/* A thread held stopped by a child process that traces it (the writer
   blocks every signal, so only ptrace can stop it alone). */
struct held_thread
{
  pid_t tracer;
  int release_fd;
};

/* Stop thread TID of this process.  0 when it is stopped, else an errno
   value (ptrace not permitted here, for one). */
static int
hold_thread (pid_t tid, struct held_thread *h)
{
  int to_tracer[2], from_tracer[2];
  if (pipe (to_tracer) != 0)
    return errno;
  if (pipe (from_tracer) != 0)
    {
      close (to_tracer[0]);
      close (to_tracer[1]);
      return errno;
    }
  pid_t child = fork ();
  if (child < 0)
    return errno;
  if (child == 0)
    {
      close (to_tracer[1]);
      close (from_tracer[0]);
      int err = 0, st;
      if (ptrace (PTRACE_SEIZE, tid, 0, 0) != 0 || ptrace (PTRACE_INTERRUPT, tid, 0, 0) != 0)
        err = errno;
      else if (waitpid (tid, &st, __WALL) != tid || !WIFSTOPPED (st))
        err = ECHILD;
      if (write (from_tracer[1], &err, sizeof err) != (ssize_t)sizeof err || err)
        _exit (1);
      char c;
      (void)!read (to_tracer[0], &c, 1);
      ptrace (PTRACE_DETACH, tid, 0, 0);
      _exit (0);
    }
  close (to_tracer[0]);
  close (from_tracer[1]);
  int err = EIO;
  if (read (from_tracer[0], &err, sizeof err) != (ssize_t)sizeof err)
    err = EIO;
  close (from_tracer[0]);
  h->tracer = child;
  h->release_fd = to_tracer[1];
  if (err)
    {
      close (to_tracer[1]);
      waitpid (child, 0, 0);
    }
  return err;
}

/* Let the thread held by hold_thread run again. */
static void
release_thread (struct held_thread *h)
{
  (void)!write (h->release_fd, "x", 1);
  close (h->release_fd);
  waitpid (h->tracer, 0, 0);
}

int
main (void)
{
  const char *dir = tu_tmpdir ();
  if (!dir)
    return 1;
  char *path = tu_strf ("%s/live.emlat", dir);
  struct emlat_options o = { .path = path, .ring_slots = 16, .max_threads = 2 };
  CHECK_OK (emlat_start (&o));
  struct emlat_status st;
  emlat_status (&st);
  CHECK_EQ_U64 (st.session_records, 0);
  CHECK_EQ_U64 (st.records_dropped, 0);

  /* The writer cannot drain during the burst: held stopped.  Where Yama
     is built in, it lets a child trace its parent only when allowed. */
  prctl (PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
  /* The writer names itself once it runs: wait for that (up to 5 s). */
  pid_t writer = 0;
  for (int i = 0; i < 5000 && !(writer = thread_named ("emlat-writer")); i++)
    usleep (1000);
  CHECK (writer > 0, "the writer thread is found by its name");
  struct held_thread held = { 0, -1 };
  int held_err = writer > 0 ? hold_thread (writer, &held) : ESRCH;
  if (held_err)
    TEST_DIAG ("the writer could not be held (%s): whether drops are counted live is not "
               "checked here",
               strerror (held_err));
  burst (NULL);
  emlat_status (&st);
  if (!held_err)
    release_thread (&held);
  TEST_DIAG ("after %d records on this thread: accepted %llu, dropped %llu", N,
             (unsigned long long)st.session_records, (unsigned long long)st.records_dropped);
  CHECK_EQ_U64 (st.session_records + st.records_dropped, N);
  if (!held_err)
    CHECK (st.records_dropped > 0, "a 16-slot ring, its writer held, dropped some of %d records",
           N);

  /* Three more threads, one after the other: the second and third claim
     the ring the first one left (two rings in all). */
  for (int t = 0; t < 3; t++)
    {
      pthread_t th;
      CHECK_OK (pthread_create (&th, NULL, burst, NULL));
      pthread_join (th, NULL);
      emlat_status (&st);
      CHECK (st.session_records + st.records_dropped == (uint64_t)N * (t + 2),
             "after thread %d: accepted %llu + dropped %llu == %d", t,
             (unsigned long long)st.session_records, (unsigned long long)st.records_dropped,
             N * (t + 2));
    }

  CHECK_OK (emlat_flush ());
  emlat_status (&st);
  uint64_t live_dropped = st.records_dropped;
  CHECK_OK (emlat_stop ());
  struct emlat_status last;
  emlat_status (&last);
  CHECK_EQ_U64 (last.active, 0);
  struct tally t;
  struct emlat_scan_result res;
  CHECK_OK (tally_file (path, &t, 100000, &res));
  CHECK_EQ_U64 (t.loss_records, last.records_dropped);
  CHECK (live_dropped == t.loss_records, "the live count after the flush (%llu) is the file's (%llu)",
         (unsigned long long)live_dropped, (unsigned long long)t.loss_records);
  CHECK_EQ_U64 (t.stats_records_accepted, (uint64_t)4 * N - t.loss_records);
  tally_free (&t);
  free (path);
  TEST_DONE ();
}
