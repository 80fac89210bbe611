/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tty_real.c -- where the interposed functions find the functions they
 * stand in for: dlsym (RTLD_NEXT, name), resolved all at once by the
 * constructor and on demand for calls made before it ran (other libraries'
 * constructors may write to the terminal first); and the words every
 * traced call reads (struct tty_hot_words, tty.h).
 *
 * The slots of the functions a key runs (TR_read .. TR_select, on the
 * first line of tty_hot) start out holding a stand-in of the same type that
 * resolves the slot and calls the real function, so that their wrappers
 * load the slot and call it with no test (tty_real_hot): one branch and a
 * call with its saved registers fewer on every call.  The other slots
 * start empty and are resolved by tty_real on first use.
 *
 * Invariant: a slot, once resolved, holds the same pointer forever; a
 * lookup that fails aborts, because the program cannot continue without
 * the function it called.
 */
#include "tty.h"

#include <dlfcn.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/select.h>
#include <unistd.h>

typedef ssize_t (*tty_read_fn) (int, void *, size_t);
typedef ssize_t (*tty_write_fn) (int, const void *, size_t);
typedef int (*tty_poll_fn) (struct pollfd *, nfds_t, int);
typedef int (*tty_select_fn) (int, fd_set *, fd_set *, fd_set *, struct timeval *);

/* The stand-ins: each resolves its slot and calls what it found.  They
   run at most a few times, before the constructor's resolution. */
static ssize_t
tty_first_read (int fd, void *buf, size_t n)
{
  return ((tty_read_fn)tty_real_resolve (TR_read)) (fd, buf, n);
}

static ssize_t
tty_first_write (int fd, const void *buf, size_t n)
{
  return ((tty_write_fn)tty_real_resolve (TR_write)) (fd, buf, n);
}

static int
tty_first_poll (struct pollfd *fds, nfds_t n, int timeout)
{
  return ((tty_poll_fn)tty_real_resolve (TR_poll)) (fds, n, timeout);
}

static int
tty_first_select (int nfds, fd_set *r, fd_set *w, fd_set *e, struct timeval *tv)
{
  return ((tty_select_fn)tty_real_resolve (TR_select)) (nfds, r, w, e, tv);
}

/* The flags, the hot slots and the roles of descriptors 0 to 15 fill
   the first cache line. */
_Static_assert (offsetof (struct tty_hot_words, fd_roles) + 16 == 64,
                "the hot slots and the first roles share the flags' cache line");

struct tty_hot_words tty_hot __attribute__ ((aligned (64))) = {
  .obs_src = -1,
  .hot_real = {
    [TR_read] = (void *)tty_first_read,
    [TR_write] = (void *)tty_first_write,
    [TR_poll] = (void *)tty_first_poll,
    [TR_select] = (void *)tty_first_select,
  },
};

static const char *const tty_real_names[TR_COUNT] = {
  [TR_read] = "read", [TR_readv] = "readv", [TR_read_chk] = "__read_chk",
  [TR_write] = "write", [TR_writev] = "writev",
  [TR_select] = "select", [TR_pselect] = "pselect", [TR_poll] = "poll",
  [TR_ppoll] = "ppoll", [TR_epoll_wait] = "epoll_wait",
  [TR_epoll_pwait] = "epoll_pwait", [TR_epoll_ctl] = "epoll_ctl",
  [TR_open] = "open", [TR_open64] = "open64", [TR_openat] = "openat",
  [TR_openat64] = "openat64", [TR_close] = "close",
  [TR_close_range] = "close_range", [TR_dup] = "dup", [TR_dup2] = "dup2",
  [TR_dup3] = "dup3", [TR_pipe] = "pipe", [TR_pipe2] = "pipe2",
  [TR_socket] = "socket", [TR_fclose] = "fclose",
  [TR_fwrite] = "fwrite", [TR_fwrite_unlocked] = "fwrite_unlocked",
  [TR_fputs] = "fputs", [TR_fputs_unlocked] = "fputs_unlocked",
  [TR_fputc] = "fputc", [TR_fputc_unlocked] = "fputc_unlocked",
  [TR_putc] = "putc", [TR_putc_unlocked] = "putc_unlocked",
  [TR_putchar] = "putchar", [TR_putchar_unlocked] = "putchar_unlocked",
  [TR_puts] = "puts", [TR_fflush] = "fflush",
  [TR_fflush_unlocked] = "fflush_unlocked",
  [TR_execve] = "execve", [TR_execvpe] = "execvpe", [TR_fexecve] = "fexecve",
  [TR_posix_spawn] = "posix_spawn", [TR_posix_spawnp] = "posix_spawnp",
};

void *
tty_real_resolve (enum tty_real_id id)
{
  void *p = dlsym (RTLD_NEXT, tty_real_names[id]);
  if (!p)
    {
      static const char msg[] = "libemlat-tty: a libc function is missing\n";
      /* No interposed function here: syscall-level write through libc's
         own symbol would recurse, so report through write's slot (its
         stand-in resolves it), unless write itself is what is missing. */
      void *w = atomic_load_explicit (tty_slot (TR_write),
                                      memory_order_relaxed);
      if (id != TR_write && w)
        (void)((ssize_t (*) (int, const void *, size_t))w) (2, msg,
                                                           sizeof msg - 1);
      abort ();
    }
  /* relaxed: see tty_real(); racing resolvers store the same value. */
  atomic_store_explicit (tty_slot (id), p, memory_order_relaxed);
  return p;
}

void
tty_real_resolve_all (void)
{
  for (int i = 0; i < TR_COUNT; i++)
    (void)tty_real_resolve ((enum tty_real_id)i); /* the stand-ins too */
}
