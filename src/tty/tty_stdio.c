/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tty_stdio.c -- interposed stdio output on streams whose descriptor is
 * terminal output: fwrite, fputs, fputc, putc, putchar, puts, fflush and
 * their _unlocked variants.
 *
 * Stdio hides its own writes (glibc's internal flush when a buffer fills,
 * or at a newline of a line-buffered stream, calls write through an
 * internal alias that no library can interpose).  So bytes are counted by
 * the stream's buffer level (__fpending, which reads the buffer pointers: no
 * lock, no system call):
 *
 *   left during a call   = pending before + bytes the call added
 *                          - pending after        (timed by the call)
 *   left between calls   = pending after the previous observed call
 *                          - pending before this one, when it shrank
 *                          (timed only as "between the two calls", quality
 *                          inferred; bytes added by inlined putc and flushed
 *                          in the same gap are not seen at all)
 *
 * A successful fflush that emptied a nonempty buffer is a flush (quality
 * flush) and may close the output epoch; a failed one counts as a flush
 * failure.  See docs/TTY.md for what stays invisible.
 */
#include "tty.h"

#include <errno.h>
#include <stdio_ext.h>
#include <string.h>

typedef size_t (*tty_fwrite_fn) (const void *, size_t, size_t, FILE *);
typedef int (*tty_fputs_fn) (const char *, FILE *);
typedef int (*tty_fputc_fn) (int, FILE *);
typedef int (*tty_putchar_fn) (int);
typedef int (*tty_puts_fn) (const char *);
typedef int (*tty_fflush_fn) (FILE *);

/* The wrappers are defined under C names of their own and given the libc
   names as assembler symbols: <stdio.h> makes several of these names
   macros or inline functions. */
#define TTY_STDIO_EXPORT(RTYPE, NAME, PARAMS)                                  \
  TTY_EXPORT RTYPE tty_##NAME PARAMS __asm__ (#NAME);
#define TTY_STDIO_DEF(RTYPE, NAME, PARAMS) RTYPE tty_##NAME PARAMS

static inline int
tty_stream_traced (FILE *fp)
{
  return tty_active () && !tty_self.nest && fp
         && (tty_fd_role (fileno_unlocked (fp)) & TTY_ROLE_OUT);
}

/* One observed stdio call. */
struct tty_sobs
{
  FILE *fp;
  size_t before;
  uint64_t t0;
  uint64_t span;
};

static void
tty_stdio_begin (struct tty_sobs *o, FILE *fp, int is_flush)
{
  tty_self.nest++;
  o->fp = fp;
  o->before = __fpending (fp);
  o->t0 = emlat_now ();
  o->span = 0;
  uint64_t t_prev;
  size_t prev = tty_ix_stream_last (fp, &t_prev);
  if (t_prev && o->before < prev)
    tty_ix_output (t_prev, o->t0, prev - o->before, EMLAT_Q_INFERRED,
                   EMLAT_Q_INFERRED, 1, 0, 0);
  if (tty_spans () && is_flush && o->before > 0)
    o->span = emlat_span_begin (EMLAT_SPAN_TTY_FLUSH, tty_ix_ensure ());
}

/* ADDED: bytes the call put into the stream; OK: it succeeded;
   IS_FLUSH: it was an fflush. */
static void
tty_stdio_end (struct tty_sobs *o, uint64_t added, int ok, int is_flush)
{
  uint64_t t1 = emlat_now ();
  size_t after = __fpending (o->fp);
  uint64_t in = (uint64_t)o->before + added;
  uint64_t left = in > after ? in - after : 0;
  if (o->span)
    {
      if (left)
        emlat_span_count (o->span, EMLAT_C_TTY_BYTES, left);
      emlat_span_end (o->span, ok ? EMLAT_SPAN_OK : EMLAT_SPAN_ERROR, 0);
    }
  tty_ix_output (o->t0, t1, left, EMLAT_Q_WRITE,
                 is_flush ? EMLAT_Q_FLUSH : EMLAT_Q_WRITE, ok, 1,
                 is_flush && !ok);
  tty_ix_stream_save (o->fp, after, t1);
  tty_self.nest--;
}

#define TTY_STDIO_CALL(TYPE, RTYPE, ID, FP, CALL, ADDED, OK, IS_FLUSH)         \
  TYPE f = (TYPE)tty_real (ID);                                                \
  if (!tty_stream_traced (FP))                                                 \
    return CALL;                                                               \
  struct tty_sobs o;                                                           \
  tty_stdio_begin (&o, FP, IS_FLUSH);                                          \
  RTYPE r = CALL;                                                              \
  int e = TTY_ERRNO;                                                           \
  tty_stdio_end (&o, ADDED, OK, IS_FLUSH);                                     \
  TTY_ERRNO = e;                                                               \
  return r

TTY_STDIO_EXPORT (size_t, fwrite, (const void *p, size_t size, size_t n, FILE *fp))
TTY_STDIO_DEF (size_t, fwrite, (const void *p, size_t size, size_t n, FILE *fp))
{
  TTY_STDIO_CALL (tty_fwrite_fn, size_t, TR_fwrite, fp, f (p, size, n, fp),
                  (uint64_t)r * size, r == n, 0);
}

TTY_STDIO_EXPORT (size_t, fwrite_unlocked, (const void *p, size_t size, size_t n, FILE *fp))
TTY_STDIO_DEF (size_t, fwrite_unlocked, (const void *p, size_t size, size_t n, FILE *fp))
{
  TTY_STDIO_CALL (tty_fwrite_fn, size_t, TR_fwrite_unlocked, fp,
                  f (p, size, n, fp), (uint64_t)r * size, r == n, 0);
}

TTY_STDIO_EXPORT (int, fputs, (const char *s, FILE *fp))
TTY_STDIO_DEF (int, fputs, (const char *s, FILE *fp))
{
  TTY_STDIO_CALL (tty_fputs_fn, int, TR_fputs, fp, f (s, fp),
                  r >= 0 ? strlen (s) : 0, r >= 0, 0);
}

TTY_STDIO_EXPORT (int, fputs_unlocked, (const char *s, FILE *fp))
TTY_STDIO_DEF (int, fputs_unlocked, (const char *s, FILE *fp))
{
  TTY_STDIO_CALL (tty_fputs_fn, int, TR_fputs_unlocked, fp, f (s, fp),
                  r >= 0 ? strlen (s) : 0, r >= 0, 0);
}

TTY_STDIO_EXPORT (int, fputc, (int c, FILE *fp))
TTY_STDIO_DEF (int, fputc, (int c, FILE *fp))
{
  TTY_STDIO_CALL (tty_fputc_fn, int, TR_fputc, fp, f (c, fp), r != EOF,
                  r != EOF, 0);
}

TTY_STDIO_EXPORT (int, fputc_unlocked, (int c, FILE *fp))
TTY_STDIO_DEF (int, fputc_unlocked, (int c, FILE *fp))
{
  TTY_STDIO_CALL (tty_fputc_fn, int, TR_fputc_unlocked, fp, f (c, fp),
                  r != EOF, r != EOF, 0);
}

TTY_STDIO_EXPORT (int, putc, (int c, FILE *fp))
TTY_STDIO_DEF (int, putc, (int c, FILE *fp))
{
  TTY_STDIO_CALL (tty_fputc_fn, int, TR_putc, fp, f (c, fp), r != EOF,
                  r != EOF, 0);
}

TTY_STDIO_EXPORT (int, putc_unlocked, (int c, FILE *fp))
TTY_STDIO_DEF (int, putc_unlocked, (int c, FILE *fp))
{
  TTY_STDIO_CALL (tty_fputc_fn, int, TR_putc_unlocked, fp, f (c, fp),
                  r != EOF, r != EOF, 0);
}

TTY_STDIO_EXPORT (int, putchar, (int c))
TTY_STDIO_DEF (int, putchar, (int c))
{
  TTY_STDIO_CALL (tty_putchar_fn, int, TR_putchar, stdout, f (c), r != EOF,
                  r != EOF, 0);
}

TTY_STDIO_EXPORT (int, putchar_unlocked, (int c))
TTY_STDIO_DEF (int, putchar_unlocked, (int c))
{
  TTY_STDIO_CALL (tty_putchar_fn, int, TR_putchar_unlocked, stdout, f (c),
                  r != EOF, r != EOF, 0);
}

TTY_STDIO_EXPORT (int, puts, (const char *s))
TTY_STDIO_DEF (int, puts, (const char *s))
{
  TTY_STDIO_CALL (tty_puts_fn, int, TR_puts, stdout, f (s),
                  r >= 0 ? strlen (s) + 1 : 0, r >= 0, 0);
}

/* fflush (NULL) flushes every stream: observe stdout and stderr. */
static int
tty_fflush_all (tty_fflush_fn f)
{
  FILE *fps[2] = { stdout, stderr };
  int traced[2];
  struct tty_sobs o[2];
  for (int i = 0; i < 2; i++)
    {
      traced[i] = tty_stream_traced (fps[i]);
      if (traced[i])
        {
          tty_stdio_begin (&o[i], fps[i], 1);
          tty_self.nest--; /* let the second stream be checked */
        }
    }
  int r = f (NULL);
  int e = errno;
  for (int i = 0; i < 2; i++)
    if (traced[i])
      {
        tty_self.nest++;
        tty_stdio_end (&o[i], 0, __fpending (fps[i]) == 0, 1);
      }
  errno = e;
  return r;
}

TTY_STDIO_EXPORT (int, fflush, (FILE *fp))
TTY_STDIO_DEF (int, fflush, (FILE *fp))
{
  if (!fp)
    return tty_fflush_all ((tty_fflush_fn)tty_real (TR_fflush));
  TTY_STDIO_CALL (tty_fflush_fn, int, TR_fflush, fp, f (fp), 0, r == 0, 1);
}

TTY_STDIO_EXPORT (int, fflush_unlocked, (FILE *fp))
TTY_STDIO_DEF (int, fflush_unlocked, (FILE *fp))
{
  if (!fp)
    return tty_fflush_all ((tty_fflush_fn)tty_real (TR_fflush_unlocked));
  TTY_STDIO_CALL (tty_fflush_fn, int, TR_fflush_unlocked, fp, f (fp), 0,
                  r == 0, 1);
}
