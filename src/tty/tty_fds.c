/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tty_fds.c -- which descriptors are the terminal.
 *
 * A role byte per descriptor number (0..TTY_FD_MAX-1): input (reads and
 * waits are observed), output (writes and stdio flushes are observed), or
 * both.  Roles are set by isatty on 0/1/2 at start and by interposed opens
 * of terminal device paths; copied by dup/dup2/dup3; cleared by close,
 * close_range, fclose and by any other interposed call that returns a new
 * descriptor (open of another path, pipe, socket).  A descriptor closed by
 * a path the library cannot see (see docs/TTY.md) keeps its role until its
 * number is reused through one of those calls.
 *
 * A second table remembers, per epoll descriptor, the registration data of
 * a terminal input descriptor added to it, so that epoll_wait results can
 * be recognised.
 *
 * Every access is a relaxed atomic: the tables are hints about descriptor
 * numbers, which are racy between threads by nature, and publish no other
 * data.
 */
#include "tty.h"

#include <fcntl.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>


/* Per epoll descriptor: the watched input fd + 1 (0 none) and its data. */
EMLAT_BIG_BSS static atomic_int tty_epoll_fd[TTY_FD_MAX];
EMLAT_BIG_BSS static _Atomic uint64_t tty_epoll_data[TTY_FD_MAX];

void
tty_fd_set (int fd, unsigned role)
{
  if ((unsigned)fd >= TTY_FD_MAX)
    return;
  /* relaxed: see the file comment. */
  atomic_store_explicit (&tty_hot.fd_roles[fd], (unsigned char)role,
                         memory_order_relaxed);
}

void
tty_fd_scan_std (void)
{
  if (isatty (0))
    tty_fd_set (0, TTY_ROLE_IN);
  if (isatty (1))
    tty_fd_set (1, TTY_ROLE_OUT);
  if (isatty (2))
    tty_fd_set (2, TTY_ROLE_OUT);
}

/* Paths that may name a terminal: /dev/tty, /dev/ttyN..., /dev/pts/N,
   /dev/console.  Only these cost an isatty check after the open. */
static int
tty_path_may_be_terminal (const char *path)
{
  return path
         && (strncmp (path, "/dev/tty", 8) == 0
             || strncmp (path, "/dev/pts/", 9) == 0
             || strcmp (path, "/dev/console") == 0);
}

void
tty_fd_opened (int fd, const char *path, int flags)
{
  unsigned role = 0;
  if (tty_path_may_be_terminal (path) && isatty (fd))
    {
      int acc = flags & O_ACCMODE;
      if (acc == O_RDONLY || acc == O_RDWR)
        role |= TTY_ROLE_IN;
      if (acc == O_WRONLY || acc == O_RDWR)
        role |= TTY_ROLE_OUT;
    }
  tty_fd_set (fd, role);
  tty_epoll_forget (fd);
  if (role & TTY_ROLE_IN)
    tty_observer_attach (fd);
}

void
tty_fd_closing (int fd)
{
  if ((unsigned)fd >= TTY_FD_MAX)
    return;
  if (tty_fd_role (fd) & TTY_ROLE_IN)
    tty_observer_detach_fd (fd);
  tty_fd_set (fd, 0);
  tty_epoll_forget (fd);
}

void
tty_fd_dup (int oldfd, int newfd)
{
  tty_fd_set (newfd, tty_fd_role (oldfd));
}

int
tty_fd_first_input (void)
{
  for (int fd = 0; fd < TTY_FD_MAX; fd++)
    if (tty_fd_role (fd) & TTY_ROLE_IN)
      return fd;
  return -1;
}

void
tty_epoll_noted (int epfd, int op, int fd, uint32_t events, uint64_t data)
{
  if ((unsigned)epfd >= TTY_FD_MAX)
    return;
  /* relaxed throughout: see the file comment. */
  int cur = atomic_load_explicit (&tty_epoll_fd[epfd], memory_order_relaxed);
  if (op == EPOLL_CTL_DEL)
    {
      if (cur == fd + 1)
        atomic_store_explicit (&tty_epoll_fd[epfd], 0, memory_order_relaxed);
      return;
    }
  if (!(tty_fd_role (fd) & TTY_ROLE_IN) || !(events & EPOLLIN))
    {
      if (cur == fd + 1) /* EPOLL_CTL_MOD dropped EPOLLIN */
        atomic_store_explicit (&tty_epoll_fd[epfd], 0, memory_order_relaxed);
      return;
    }
  atomic_store_explicit (&tty_epoll_data[epfd], data, memory_order_relaxed);
  atomic_store_explicit (&tty_epoll_fd[epfd], fd + 1, memory_order_relaxed);
}

int
tty_epoll_watches (int epfd, uint64_t *data)
{
  if ((unsigned)epfd >= TTY_FD_MAX)
    return 0;
  int fd1 = atomic_load_explicit (&tty_epoll_fd[epfd], memory_order_relaxed);
  if (fd1 == 0 || !(tty_fd_role (fd1 - 1) & TTY_ROLE_IN))
    return 0;
  *data = atomic_load_explicit (&tty_epoll_data[epfd], memory_order_relaxed);
  return 1;
}

void
tty_epoll_forget (int fd)
{
  if ((unsigned)fd >= TTY_FD_MAX)
    return;
  /* FD as an epoll descriptor is gone or new. */
  atomic_store_explicit (&tty_epoll_fd[fd], 0, memory_order_relaxed);
}
