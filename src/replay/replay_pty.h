/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * replay_pty.h -- run a command in a pseudo-terminal that `emlat replay`
 * owns, resize it, hang it up and end it.
 *
 * The child becomes a session leader with the slave as its controlling
 * terminal (setsid + TIOCSCTTY), stdin/stdout/stderr on the slave, the
 * parent's signal mask cleared and dispositions reset.  The master is
 * non-blocking and close-on-exec.  An exec failure is reported back through
 * a close-on-exec pipe, so "cannot run CMD" is an error of the spawn, not a
 * run that ends at once.
 */
#ifndef EMLAT_REPLAY_PTY_H
#define EMLAT_REPLAY_PTY_H

#include <stddef.h>
#include <sys/types.h>

struct replay_pty
{
  int master;  /* -1 after replay_pty_hangup */
  pid_t pid;   /* the child, also its process group and session id */
};

/* Start ARGV[0] (searched in PATH) with environment ENVP in a new
   pseudo-terminal of ROWS x COLS.  Returns 0, or -1 with a message in ERR. */
int replay_pty_spawn (struct replay_pty *p, char *const argv[],
                      char *const envp[], unsigned rows, unsigned cols,
                      char *err, size_t err_size);

/* Set the window size; the kernel sends SIGWINCH to the terminal's
   foreground process group when the size changes.  Returns 0 or -errno. */
int replay_pty_resize (struct replay_pty *p, unsigned rows, unsigned cols);

/* Close the master: the kernel hangs up the terminal and sends SIGHUP (and
   SIGCONT) to the session leader and the foreground process group, as when
   a terminal window is closed. */
void replay_pty_hangup (struct replay_pty *p);

/* Send SIG to the child's process group and to the child itself. */
void replay_pty_signal (struct replay_pty *p, int sig);

#endif /* EMLAT_REPLAY_PTY_H */
