/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tty_real.c -- where the interposed functions find the functions they
 * stand in for: dlsym (RTLD_NEXT, name), resolved all at once by the
 * constructor and on demand for calls made before it ran (other libraries'
 * constructors may write to the terminal first).
 *
 * Invariant: a slot, once set, holds the same pointer forever; a lookup
 * that fails aborts, because the program cannot continue without the
 * function it called.
 */
#include "tty.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

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
         own symbol would recurse, so report with the raw message only if
         write itself resolved. */
      void *w = atomic_load_explicit (&tty_hot.real[TR_write],
                                      memory_order_relaxed);
      if (w)
        (void)((ssize_t (*) (int, const void *, size_t))w) (2, msg,
                                                           sizeof msg - 1);
      abort ();
    }
  /* relaxed: see tty_real(); racing resolvers store the same value. */
  atomic_store_explicit (&tty_hot.real[id], p, memory_order_relaxed);
  return p;
}

void
tty_real_resolve_all (void)
{
  for (int i = 0; i < TR_COUNT; i++)
    (void)tty_real ((enum tty_real_id)i);
}
