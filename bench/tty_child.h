/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tty_child.h -- what bench_tty_cold and bench_tty_footprint do alike
 * around the pager child they run on a pseudo-terminal: create its
 * profile empty, as `emlat record` does; make the terminal's slave the
 * child's standard descriptors; finish its profile once it exited; read
 * the --finish option that chooses how.
 * Messages are prefixed with WHO, the program.
 *
 * Invariants: the helpers run in the bench (tty_child_attach in the
 * forked child before exec); a profile is finished at most once and
 * never read here.
 */
#ifndef EMLAT_BENCH_TTY_CHILD_H
#define EMLAT_BENCH_TTY_CHILD_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emlat/emlat_reader.h"

/* Create PROFILE empty for the child, which adopts it
   (EMLAT_OPT_ADOPT_EMPTY under EMLAT_FINISH=drain:PID): 0, or -1. */
static int
tty_child_profile_create (const char *profile)
{
  int fd = open (profile, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    return -1;
  close (fd);
  return 0;
}

/* In the forked child: a session of its own, the slave at SLAVE_PATH as
   its standard input, output and error (it becomes the controlling
   terminal).  Exits with 2 when the slave cannot be opened. */
static void
tty_child_attach (const char *slave_path)
{
  setsid ();
  int s = open (slave_path, O_RDWR);
  if (s < 0)
    _exit (2);
  dup2 (s, 0);
  dup2 (s, 1);
  dup2 (s, 2);
  if (s > 2)
    close (s);
}

/* The child PID exited with wait status ST: its profile PROFILE finished
   as `emlat record` finishes it -- first a session found by the child's
   process id (its ring file, when no drainer had attached to it), then
   the profile's own ring file (emlat_recover also removes the ring file
   it names in /dev/shm).  A profile still empty (a floor library, which
   writes none) is left alone.  Returns 0 when the profile holds a
   finished session, 1 when it is empty, -1 when it cannot be finished. */
static int
tty_child_finish (const char *who, pid_t pid, int st, const char *profile)
{
  emlat_recover_process_exited (pid, st, NULL);
  struct stat pst;
  if (stat (profile, &pst) != 0 || pst.st_size == 0)
    return 1;
  struct emlat_recovery rec;
  int rc = emlat_recover (profile, &rec);
  if (rc != 0)
    {
      fprintf (stderr, "%s: %s: cannot finish: %s\n", who, profile, strerror (-rc));
      return -1;
    }
  return 0;
}

/* --finish VALUE: drain (0 in *READER: the bench drains the child's rings,
   as `emlat record` does) or reader (1: the child's own writer thread).
   0, or -1 with a message. */
static int
tty_child_parse_finish (const char *who, const char *value, int *reader)
{
  if (strcmp (value, "reader") == 0 || strcmp (value, "drain") == 0)
    {
      *reader = value[0] == 'r';
      return 0;
    }
  fprintf (stderr, "%s: --finish %s: drain or reader\n", who, value);
  return -1;
}

/* A new directory NAME-XXXXXX (mkdtemp) under $TMPDIR, or /tmp when it is
   unset or empty, into DIR of SIZE bytes.  0, or -1 with a message. */
static int
tty_child_mkdtemp (const char *who, const char *name, char *dir, size_t size)
{
  const char *tmp = getenv ("TMPDIR");
  int n = snprintf (dir, size, "%s/%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
  if (n < 0 || (size_t)n >= size || !mkdtemp (dir))
    {
      fprintf (stderr, "%s: cannot create a directory in %s: %s\n", who,
               tmp && *tmp ? tmp : "/tmp", n >= 0 && (size_t)n < size ? strerror (errno) : "path too long");
      return -1;
    }
  return 0;
}

#endif /* EMLAT_BENCH_TTY_CHILD_H */
