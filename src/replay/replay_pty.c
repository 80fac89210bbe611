/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * replay_pty.c -- the pseudo-terminal of `emlat replay` (see replay_pty.h).
 *
 * posix_openpt rather than forkpty: no libutil, and the slave is opened in
 * the parent before fork so the child cannot race the parent's setup.  The
 * child between fork and exec calls only async-signal-safe functions (the
 * parent is multithreaded: the recorder's writer thread runs).
 */
#include "replay/replay_pty.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

static void child_fail (int fd, int e)
{
  ssize_t r = write (fd, &e, sizeof e);
  (void)r;
  _exit (127);
}

int replay_pty_spawn (struct replay_pty *p, char *const argv[],
                      char *const envp[], unsigned rows, unsigned cols,
                      char *err, size_t err_size)
{
  char name[128];
  int slave = -1, pipefd[2] = { -1, -1 };
  struct winsize ws = { (unsigned short)rows, (unsigned short)cols, 0, 0 };

  p->pid = -1;
  p->master = posix_openpt (O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (p->master < 0)
    {
      snprintf (err, err_size, "posix_openpt: %s", strerror (errno));
      return -1;
    }
  if (grantpt (p->master) || unlockpt (p->master)
      || ptsname_r (p->master, name, sizeof name))
    {
      snprintf (err, err_size, "pseudo-terminal setup: %s", strerror (errno));
      goto fail;
    }
  slave = open (name, O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (slave < 0)
    {
      snprintf (err, err_size, "cannot open the pseudo-terminal: %s",
                strerror (errno));
      goto fail;
    }
  if (ioctl (p->master, TIOCSWINSZ, &ws) < 0)
    {
      snprintf (err, err_size, "TIOCSWINSZ: %s", strerror (errno));
      goto fail;
    }
  if (pipe2 (pipefd, O_CLOEXEC) < 0)
    {
      snprintf (err, err_size, "pipe: %s", strerror (errno));
      goto fail;
    }

  p->pid = fork ();
  if (p->pid < 0)
    {
      snprintf (err, err_size, "fork: %s", strerror (errno));
      goto fail;
    }
  if (p->pid == 0)
    {
      sigset_t none;
      struct sigaction dfl;
      memset (&dfl, 0, sizeof dfl);
      dfl.sa_handler = SIG_DFL;
      for (int s = 1; s < NSIG; s++)
        sigaction (s, &dfl, NULL); /* fails harmlessly for KILL/STOP */
      sigemptyset (&none);
      sigprocmask (SIG_SETMASK, &none, NULL);
      if (setsid () < 0)
        child_fail (pipefd[1], errno);
      if (ioctl (slave, TIOCSCTTY, 0) < 0)
        child_fail (pipefd[1], errno);
      if (dup2 (slave, 0) < 0 || dup2 (slave, 1) < 0 || dup2 (slave, 2) < 0)
        child_fail (pipefd[1], errno);
      /* dup2 clears close-on-exec on 0..2.  Everything above them, ours
         and whatever the driver inherited, must not reach CMD; marking
         rather than closing keeps the error pipe usable until exec. */
      close_range (3, ~0u, CLOSE_RANGE_CLOEXEC);
      execvpe (argv[0], argv, envp);
      child_fail (pipefd[1], errno);
    }

  close (slave);
  slave = -1;
  close (pipefd[1]);
  pipefd[1] = -1;
  {
    int e = 0;
    ssize_t r;
    do
      r = read (pipefd[0], &e, sizeof e);
    while (r < 0 && errno == EINTR);
    close (pipefd[0]);
    pipefd[0] = -1;
    if (r == (ssize_t)sizeof e)
      {
        snprintf (err, err_size, "cannot run %s: %s", argv[0], strerror (e));
        waitpid (p->pid, NULL, 0);
        p->pid = -1;
        goto fail;
      }
  }
  int fl = fcntl (p->master, F_GETFL);
  if (fl < 0 || fcntl (p->master, F_SETFL, fl | O_NONBLOCK) < 0)
    {
      snprintf (err, err_size, "fcntl: %s", strerror (errno));
      replay_pty_signal (p, SIGKILL);
      waitpid (p->pid, NULL, 0);
      p->pid = -1;
      goto fail;
    }
  return 0;

fail:
  if (slave >= 0)
    close (slave);
  if (pipefd[0] >= 0)
    close (pipefd[0]);
  if (pipefd[1] >= 0)
    close (pipefd[1]);
  close (p->master);
  p->master = -1;
  return -1;
}

int replay_pty_resize (struct replay_pty *p, unsigned rows, unsigned cols)
{
  struct winsize ws = { (unsigned short)rows, (unsigned short)cols, 0, 0 };
  if (p->master < 0)
    return -EBADF;
  return ioctl (p->master, TIOCSWINSZ, &ws) < 0 ? -errno : 0;
}

void replay_pty_hangup (struct replay_pty *p)
{
  if (p->master >= 0)
    close (p->master);
  p->master = -1;
}

void replay_pty_signal (struct replay_pty *p, int sig)
{
  if (p->pid <= 0)
    return;
  kill (-p->pid, sig);
  kill (p->pid, sig);
}
