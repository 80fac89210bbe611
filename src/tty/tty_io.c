/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tty_io.c -- interposed descriptor calls: read, readv and __read_chk on
 * terminal input; write and writev on terminal output; and the calls that
 * create, copy and close descriptors, which keep the role table of
 * tty_fds.c true.
 *
 * Every wrapper: forwards at once when the library is off, when the library
 * is already working on this thread (tty_self.nest), or when the descriptor has
 * no terminal role; otherwise reads the profiler clock around the real call,
 * records, and returns the real call's result with its errno.
 */
#include "tty.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

typedef ssize_t (*tty_read_fn) (int, void *, size_t);
typedef ssize_t (*tty_read_chk_fn) (int, void *, size_t, size_t);
typedef ssize_t (*tty_readv_fn) (int, const struct iovec *, int);
typedef ssize_t (*tty_write_fn) (int, const void *, size_t);
typedef int (*tty_open_fn) (const char *, int, ...);
typedef int (*tty_openat_fn) (int, const char *, int, ...);
typedef int (*tty_int1_fn) (int);
typedef int (*tty_int2_fn) (int, int);
typedef int (*tty_int3_fn) (int, int, int);
typedef int (*tty_close_range_fn) (unsigned, unsigned, int);
typedef int (*tty_pipe_fn) (int *);
typedef int (*tty_pipe2_fn) (int *, int);
typedef int (*tty_fclose_fn) (FILE *);

/* ------------------------------------------------------------------ */
/* Input                                                               */

/* Each wrapper is the check and a jump: to the real function when the
   call is not traced, to its traced path otherwise, so that an untraced
   call saves no register and a traced one runs the path its kind shares
   with the others (docs/PERFORMANCE.md, "Leaner wrappers"). */
EMLAT_HOT static inline int
tty_traced (int fd, unsigned role)
{
  return tty_active () && !tty_self.nest && (tty_fd_role (fd) & role);
}

/* The traced path of read (ID TR_read), __read_chk (TR_read_chk: BUFLEN
   its fourth argument) and readv (TR_readv: BUF the vector, N its
   count). */
EMLAT_HOT TTY_LINE_ALIGNED __attribute__ ((noinline)) static ssize_t
tty_read_traced (enum tty_real_id id, void *f, int fd, void *buf, size_t n, size_t buflen)
{
  uint64_t t0 = emlat_now ();
  ssize_t r;
  if (EMLAT_LIKELY (id == TR_read))
    r = ((tty_read_fn)f) (fd, buf, n);
  else if (id == TR_read_chk)
    r = ((tty_read_chk_fn)f) (fd, buf, n, buflen);
  else
    r = ((tty_readv_fn)f) (fd, (const struct iovec *)buf, (int)n);
  /* errno only after a failure, and never written back: the record's
     store keeps it (tty.h). */
  int e = r < 0 ? TTY_ERRNO : 0;
  tty_self.nest++;
  tty_ix_read (fd, t0, emlat_now (), r, e);
  tty_self.nest--;
  return r;
}

TTY_EXPORT EMLAT_HOT TTY_LINE_ALIGNED ssize_t
read (int fd, void *buf, size_t n)
{
  void *f = tty_real_hot (TR_read);
  if (!tty_traced (fd, TTY_ROLE_IN))
    return ((tty_read_fn)f) (fd, buf, n);
  return tty_read_traced (TR_read, f, fd, buf, n, 0);
}

/* The _FORTIFY_SOURCE entry point of read. */
TTY_EXPORT ssize_t __read_chk (int fd, void *buf, size_t n, size_t buflen);
TTY_EXPORT EMLAT_HOT_RARE ssize_t
__read_chk (int fd, void *buf, size_t n, size_t buflen)
{
  void *f = tty_real (TR_read_chk);
  if (!tty_traced (fd, TTY_ROLE_IN))
    return ((tty_read_chk_fn)f) (fd, buf, n, buflen);
  return tty_read_traced (TR_read_chk, f, fd, buf, n, buflen);
}

TTY_EXPORT EMLAT_HOT_RARE ssize_t
readv (int fd, const struct iovec *iov, int iovcnt)
{
  void *f = tty_real (TR_readv);
  if (!tty_traced (fd, TTY_ROLE_IN))
    return ((tty_readv_fn)f) (fd, iov, iovcnt);
  return tty_read_traced (TR_readv, f, fd, (void *)iov, (size_t)iovcnt, 0);
}

/* ------------------------------------------------------------------ */
/* Output                                                              */

/* With EMLAT_TTY_SPANS=1, a write's span, which serves the open
   interaction (out of line: off by default). */
__attribute__ ((noinline)) static uint64_t
tty_write_span_begin (void)
{
  return emlat_span_begin (EMLAT_SPAN_TTY_WRITE, tty_ix_ensure ());
}

__attribute__ ((noinline)) static void
tty_write_span_end (uint64_t span, ssize_t r)
{
  if (r > 0)
    emlat_span_count (span, EMLAT_C_TTY_BYTES, (uint64_t)r);
  emlat_span_end (span, r < 0 ? EMLAT_SPAN_ERROR : EMLAT_SPAN_OK, 0);
}

/* The traced path of write (ID TR_write) and writev (TR_writev: BUF the
   vector, N its count).  Without a span a write costs its two clock reads
   and one ring record (tty_ix_write). */
EMLAT_HOT TTY_LINE_ALIGNED __attribute__ ((noinline)) static ssize_t
tty_write_traced (enum tty_real_id id, void *f, int fd, const void *buf, size_t n)
{
  tty_self.nest++;
  uint64_t span = tty_spans () ? tty_write_span_begin () : 0;
  uint64_t t0 = emlat_now ();
  ssize_t r = EMLAT_LIKELY (id == TR_write)
                ? ((tty_write_fn)f) (fd, buf, n)
                : ((tty_readv_fn)f) (fd, (const struct iovec *)buf, (int)n);
  int e = r < 0 ? TTY_ERRNO : 0; /* as in tty_read_traced */
  uint64_t t1 = emlat_now ();
  if (span)
    tty_write_span_end (span, r);
  tty_ix_write (t0, t1, r, e);
  tty_self.nest--;
  return r;
}

TTY_EXPORT EMLAT_HOT TTY_LINE_ALIGNED ssize_t
write (int fd, const void *buf, size_t n)
{
  void *f = tty_real_hot (TR_write);
  if (n == 0 || !tty_traced (fd, TTY_ROLE_OUT))
    return ((tty_write_fn)f) (fd, buf, n);
  return tty_write_traced (TR_write, f, fd, buf, n);
}

TTY_EXPORT EMLAT_HOT_RARE ssize_t
writev (int fd, const struct iovec *iov, int iovcnt)
{
  void *f = tty_real (TR_writev);
  if (!tty_traced (fd, TTY_ROLE_OUT))
    return ((tty_readv_fn)f) (fd, iov, iovcnt);
  return tty_write_traced (TR_writev, f, fd, iov, (size_t)iovcnt);
}

/* ------------------------------------------------------------------ */
/* Descriptor bookkeeping                                              */

static int
tty_open_has_mode (int flags)
{
  return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
}

static void
tty_opened (int fd, const char *path, int flags)
{
  if (fd >= 0 && tty_active ())
    {
      int e = TTY_ERRNO;
      tty_self.nest++;
      tty_fd_opened (fd, path, flags);
      tty_self.nest--;
      TTY_ERRNO = e;
    }
}

#define TTY_OPEN_BODY(ID, CALL)                                                \
  mode_t mode = 0;                                                             \
  if (tty_open_has_mode (flags))                                               \
    {                                                                          \
      va_list ap;                                                              \
      va_start (ap, flags);                                                    \
      mode = va_arg (ap, mode_t);                                              \
      va_end (ap);                                                             \
    }                                                                          \
  int fd = CALL;                                                               \
  tty_opened (fd, path, flags);                                                \
  return fd

TTY_EXPORT int
open (const char *path, int flags, ...)
{
  tty_open_fn f = (tty_open_fn)tty_real (TR_open);
  TTY_OPEN_BODY (TR_open, f (path, flags, mode));
}

TTY_EXPORT int
open64 (const char *path, int flags, ...)
{
  tty_open_fn f = (tty_open_fn)tty_real (TR_open64);
  TTY_OPEN_BODY (TR_open64, f (path, flags, mode));
}

TTY_EXPORT int
openat (int dirfd, const char *path, int flags, ...)
{
  tty_openat_fn f = (tty_openat_fn)tty_real (TR_openat);
  TTY_OPEN_BODY (TR_openat, f (dirfd, path, flags, mode));
}

TTY_EXPORT int
openat64 (int dirfd, const char *path, int flags, ...)
{
  tty_openat_fn f = (tty_openat_fn)tty_real (TR_openat64);
  TTY_OPEN_BODY (TR_openat64, f (dirfd, path, flags, mode));
}

/* Forget FD's role before it goes (the observer must detach first). */
static void
tty_closing (int fd)
{
  if (tty_active () && tty_fd_role (fd))
    {
      tty_self.nest++;
      tty_fd_closing (fd);
      tty_self.nest--;
    }
}

TTY_EXPORT int
close (int fd)
{
  tty_int1_fn f = (tty_int1_fn)tty_real (TR_close);
  tty_closing (fd);
  return f (fd);
}

TTY_EXPORT int
close_range (unsigned first, unsigned last, int flags)
{
  tty_close_range_fn f = (tty_close_range_fn)tty_real (TR_close_range);
  if (tty_active () && !(flags & CLOSE_RANGE_CLOEXEC))
    for (unsigned fd = first; fd <= last && fd < TTY_FD_MAX; fd++)
      tty_closing ((int)fd);
  return f (first, last, flags);
}

TTY_EXPORT int
fclose (FILE *fp)
{
  tty_fclose_fn f = (tty_fclose_fn)tty_real (TR_fclose);
  if (tty_active () && fp)
    tty_closing (fileno_unlocked (fp));
  return f (fp);
}

TTY_EXPORT int
dup (int oldfd)
{
  tty_int1_fn f = (tty_int1_fn)tty_real (TR_dup);
  int fd = f (oldfd);
  if (fd >= 0 && tty_active ())
    tty_fd_dup (oldfd, fd);
  return fd;
}

TTY_EXPORT int
dup2 (int oldfd, int newfd)
{
  tty_int2_fn f = (tty_int2_fn)tty_real (TR_dup2);
  if (oldfd != newfd)
    tty_closing (newfd);
  int fd = f (oldfd, newfd);
  if (fd >= 0 && tty_active ())
    tty_fd_dup (oldfd, fd);
  return fd;
}

TTY_EXPORT int
dup3 (int oldfd, int newfd, int flags)
{
  tty_int3_fn f = (tty_int3_fn)tty_real (TR_dup3);
  if (oldfd != newfd)
    tty_closing (newfd);
  int fd = f (oldfd, newfd, flags);
  if (fd >= 0 && tty_active ())
    tty_fd_dup (oldfd, fd);
  return fd;
}

static void
tty_new_fds (const int *fds, int n)
{
  if (!tty_active ())
    return;
  for (int i = 0; i < n; i++)
    if (fds[i] >= 0)
      {
        tty_fd_set (fds[i], 0);
        tty_epoll_forget (fds[i]);
      }
}

TTY_EXPORT int
pipe (int fds[2])
{
  tty_pipe_fn f = (tty_pipe_fn)tty_real (TR_pipe);
  int r = f (fds);
  if (r == 0)
    tty_new_fds (fds, 2);
  return r;
}

TTY_EXPORT int
pipe2 (int fds[2], int flags)
{
  tty_pipe2_fn f = (tty_pipe2_fn)tty_real (TR_pipe2);
  int r = f (fds, flags);
  if (r == 0)
    tty_new_fds (fds, 2);
  return r;
}

TTY_EXPORT int
socket (int domain, int type, int protocol)
{
  tty_int3_fn f = (tty_int3_fn)tty_real (TR_socket);
  int fd = f (domain, type, protocol);
  if (fd >= 0)
    tty_new_fds (&fd, 1);
  return fd;
}
