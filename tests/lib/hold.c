/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * hold.c -- holding a thread of this process stopped (hold.h).
 */
#include "hold.h"
#include "tap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* The tracer: stop TID, report 0 or an errno value on REPORT_FD, wait for
   a byte (or the end) on RELEASE_FD, detach. */
static void __attribute__ ((noreturn))
tracer_main (pid_t tid, int report_fd, int release_fd)
{
  int err = 0, st;
  if (ptrace (PTRACE_SEIZE, tid, 0, 0) != 0 || ptrace (PTRACE_INTERRUPT, tid, 0, 0) != 0)
    err = errno;
  else if (waitpid (tid, &st, __WALL) != tid || !WIFSTOPPED (st))
    err = ECHILD;
  if (write (report_fd, &err, sizeof err) != (ssize_t)sizeof err || err)
    _exit (1);
  char c;
  (void)!read (release_fd, &c, 1);
  ptrace (PTRACE_DETACH, tid, 0, 0);
  _exit (0);
}

int
tu_hold_thread (const char *name, struct tu_held *h)
{
  h->tracer = 0;
  h->release_fd = -1;
  pid_t tid = 0;
  /* A thread names itself once it runs. */
  for (int i = 0; i < 5000 && !(tid = thread_named (name)); i++)
    usleep (1000);
  if (!tid)
    return ESRCH;
  /* Yama, where built in, lets a child trace its parent only when
     allowed (EINVAL without Yama: nothing to allow). */
  prctl (PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
  int to_tracer[2], from_tracer[2];
  if (pipe2 (to_tracer, O_CLOEXEC) != 0)
    return errno;
  if (pipe2 (from_tracer, O_CLOEXEC) != 0)
    {
      int e = errno;
      close (to_tracer[0]);
      close (to_tracer[1]);
      return e;
    }
  pid_t child = fork ();
  if (child == 0)
    {
      close (to_tracer[1]);
      close (from_tracer[0]);
      tracer_main (tid, from_tracer[1], to_tracer[0]);
    }
  int err = child < 0 ? errno : EIO;
  close (to_tracer[0]);
  close (from_tracer[1]);
  if (child > 0 && read (from_tracer[0], &err, sizeof err) != (ssize_t)sizeof err)
    err = EIO;
  close (from_tracer[0]);
  if (err)
    {
      close (to_tracer[1]);
      if (child > 0)
        waitpid (child, 0, 0);
      return err;
    }
  h->tracer = child;
  h->release_fd = to_tracer[1];
  return 0;
}

int
tu_hold_writer (struct tu_held *h, const char *unchecked)
{
  int err = tu_hold_thread ("emlat-writer", h);
  CHECK (err != ESRCH, "the writer thread is found by its name");
  if (err && err != ESRCH)
    TEST_DIAG ("the writer could not be held (%s): %s", strerror (err), unchecked);
  return err == 0;
}

void
tu_release_thread (struct tu_held *h)
{
  if (h->release_fd < 0)
    return;
  (void)!write (h->release_fd, "x", 1);
  close (h->release_fd);
  waitpid (h->tracer, 0, 0);
  h->release_fd = -1;
  h->tracer = 0;
}
