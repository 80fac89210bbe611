/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tty.h -- internals shared by the files of libemlat-tty.so, the LD_PRELOAD
 * library that records terminal input and output of an unmodified program
 * through the producer API (include/emlat/emlat.h).  See docs/TTY.md.
 *
 * Invariants:
 *  - The library is on only when EMLAT_TRACE was exactly "1" or "true" at
 *    load and the session started (tty_session.c).  When it is off, every
 *    interposed call costs one relaxed load and a branch before forwarding.
 *  - Interposed calls never allocate, lock or make a system call beyond the
 *    call they forward (clock reads are vDSO), and never change errno.  The
 *    recorder's producer calls keep it themselves (record/state.h), so the
 *    traced paths of read, write and the waits read it only after a failed
 *    call and never write it back: a successful call leaves errno's line
 *    alone (docs/PERFORMANCE.md, "nano's calls priced"); the other paths
 *    save and restore it around their own work.
 *  - tty_self.nest (per thread) is nonzero while the library itself is working on
 *    this thread; interposed calls made then (from a signal handler, from the
 *    observer thread, from session start and stop) are forwarded untraced.
 *  - A traced call stores one terminal call record in its thread's ring
 *    (tty_ix.c, ttycall.h); the interaction model runs where the ring is
 *    read (ttymodel.c).  No state is shared between threads except the
 *    descriptor tables (tty_fds.c) and the observer's hand-off words
 *    (tty_observer.c), all accessed with atomics.
 */
#ifndef EMLAT_TTY_H
#define EMLAT_TTY_H

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "emlat/emlat.h"
#include "common/hot.h"
#include "record/ttycall.h"

#define TTY_EXPORT __attribute__ ((visibility ("default")))
/* The functions a key runs begin on a cache line: a function of 65 to
   128 bytes then spans two lines, not three (docs/PERFORMANCE.md,
   "Leaner wrappers"). */
#define TTY_LINE_ALIGNED __attribute__ ((aligned (64)))
/* The library is loaded at start-up (LD_PRELOAD), so its thread-local
   variables live in the static TLS block: initial-exec access is one
   %fs-relative load, no __tls_get_addr call. */
#define TTY_TLS __attribute__ ((tls_model ("initial-exec")))

/* ------------------------------------------------------------------ */
/* The real functions (tty_real.c)                                     */

/* The functions stood in for.  The four a key runs come first: their
   slots share the hot words' cache line (struct tty_hot_words). */
enum tty_real_id {
  TR_read, TR_write, TR_poll, TR_select,
  TR_read_chk, TR_writev, TR_readv, TR_pselect, TR_ppoll,
  TR_epoll_wait, TR_epoll_pwait, TR_epoll_ctl,
  TR_open, TR_open64, TR_openat, TR_openat64, TR_close, TR_close_range,
  TR_dup, TR_dup2, TR_dup3, TR_pipe, TR_pipe2, TR_socket, TR_fclose,
  TR_fwrite, TR_fwrite_unlocked, TR_fputs, TR_fputs_unlocked,
  TR_fputc, TR_fputc_unlocked, TR_putc, TR_putc_unlocked,
  TR_putchar, TR_putchar_unlocked, TR_puts,
  TR_fflush, TR_fflush_unlocked,
  TR_execve, TR_execvpe, TR_fexecve, TR_posix_spawn, TR_posix_spawnp,
  TR_COUNT
};
#define TTY_HOT_SLOTS 4 /* TR_read .. TR_select */
#define TTY_FD_MAX 1024 /* descriptors at or above are never traced */

/* ------------------------------------------------------------------ */
/* The words every traced call reads (tty_real.c)                      */

/* Read by every interposed call, so kept together: a key after idle finds
   one cold line of them, not six (docs/PERFORMANCE.md, "Leaner
   wrappers").  Aligned to a cache line; on its first line: the flags,
   the four slots of the functions a key runs and the roles of
   descriptors 0 to 15. */
struct tty_hot_words
{
  /* 1 while recording.  Written by the constructor, the atexit handler and
     the fork child handler. */
  atomic_int on;
  /* 1 when EMLAT_TTY_SPANS=1 asked for a span per terminal write, stdio
     flush and wait (docs/TTY.md, "Turning it on").  Off by default: the
     interaction already carries what they measure (output bounds, write
     bounds, bytes, calls), and each span costs three ring records and two
     clock reads per call (docs/PERFORMANCE.md).  Written once by the
     constructor before the library turns on; read-only after. */
  int spans;
  /* The program's descriptor the observer watches, -1 none
     (tty_observer.c). */
  atomic_int obs_src;
  int unused;
  /* The next definition of each function (libc's), resolved on first use
     (tty_real.c), through tty_slot: the four a key runs here, the others
     in rest_real.  A slot, once resolved, holds the same pointer
     forever. */
  _Atomic (void *) hot_real[TTY_HOT_SLOTS];
  /* The terminal role of each descriptor below TTY_FD_MAX (TTY_ROLE_IN,
     TTY_ROLE_OUT; tty_fds.c). */
  _Atomic unsigned char fd_roles[TTY_FD_MAX];
  _Atomic (void *) rest_real[TR_COUNT - TTY_HOT_SLOTS];
};
extern struct tty_hot_words tty_hot;

static inline int
tty_active (void)
{
  /* relaxed: a flag with no data published behind it; the session it
     guards is itself thread-safe (emlat.h). */
  return atomic_load_explicit (&tty_hot.on, memory_order_relaxed);
}

static inline int
tty_spans (void)
{
  return tty_hot.spans;
}

/* ------------------------------------------------------------------ */
/* The words of each thread (tty_session.c)                            */

#define TTY_STREAMS 4

/* A stdio stream's buffer level after the last observed call on it
   (tty_ix.c). */
struct tty_stream_seen
{
  FILE *fp;
  size_t pending; /* __fpending after the last observed call */
  uint64_t t;     /* when */
};

/* One thread-local block for all of them, so that a traced call finds
   its thread's words through one offset in the GOT, not one per word. */
struct tty_thread_words
{
  /* Nonzero while the library itself is working on this thread: interposed
     calls made then (from a signal handler, the observer thread, session
     start and stop) are forwarded untraced. */
  unsigned nest;
  /* The pending observation that the input was empty (tty_ix.c): 0 none,
     1 a wait's, 2 a read's; and when. */
  unsigned empty_kind;
  uint64_t empty_t;
  /* The address of the thread's errno, cached (tty_errno). */
  int *errno_at;
  struct tty_stream_seen streams[TTY_STREAMS];
};
extern __thread struct tty_thread_words tty_self TTY_TLS;

/* The calling thread's errno, through its address cached here: errno is
   libc's __errno_location (), a call through the PLT into another page of
   libc; the cached address is one load from this library's thread-local
   block, which the call touches anyway (docs/PERFORMANCE.md, "What a key
   touches").  The address of a thread's errno does not change
   while the thread lives; a new thread's cache starts empty (NULL). */
static inline int *
tty_errno (void)
{
  int *p = tty_self.errno_at;
  if (__builtin_expect (p == NULL, 0))
    p = tty_self.errno_at = &errno;
  return p;
}
#define TTY_ERRNO (*tty_errno ())

/* ------------------------------------------------------------------ */
/* The real functions (tty_real.c)                                     */

void *tty_real_resolve (enum tty_real_id id);
void tty_real_resolve_all (void);

/* The slot of function ID. */
static inline _Atomic (void *) *
tty_slot (enum tty_real_id id)
{
  return id < TTY_HOT_SLOTS ? &tty_hot.hot_real[id] : &tty_hot.rest_real[id - TTY_HOT_SLOTS];
}

/* The next definition of function ID (libc's), resolved on first use. */
static inline void *
tty_real (enum tty_real_id id)
{
  /* relaxed: every resolver stores the same dlsym result; the pointer's
     target is immutable code. */
  void *p = atomic_load_explicit (tty_slot (id), memory_order_relaxed);
  return EMLAT_LIKELY (p) ? p : tty_real_resolve (id);
}

/* The same for the functions a key runs (ID below TTY_HOT_SLOTS), whose
   slots are never empty: until resolved they hold a stand-in that
   resolves them (tty_real.c). */
static inline void *
tty_real_hot (enum tty_real_id id)
{
  /* relaxed: as in tty_real. */
  return atomic_load_explicit (&tty_hot.hot_real[id], memory_order_relaxed);
}

/* ------------------------------------------------------------------ */
/* Terminal descriptors (tty_fds.c)                                    */

#define TTY_ROLE_IN 1u  /* terminal input: reads and waits are observed */
#define TTY_ROLE_OUT 2u /* terminal output: writes and stdio are observed */

static inline unsigned
tty_fd_role (int fd)
{
  if ((unsigned)fd >= TTY_FD_MAX)
    return 0;
  /* relaxed: descriptor numbers are inherently racy between threads; the
     role is a hint that only selects whether a call is observed. */
  return atomic_load_explicit (&tty_hot.fd_roles[fd], memory_order_relaxed);
}

void tty_fd_set (int fd, unsigned role);
/* isatty on 0, 1 and 2 (0 input, 1 and 2 output).  Setup time. */
void tty_fd_scan_std (void);
/* After a successful open of PATH with FLAGS returned FD. */
void tty_fd_opened (int fd, const char *path, int flags);
/* Before FD is closed or replaced: detach the observer, forget the role. */
void tty_fd_closing (int fd);
/* After dup of OLDFD to NEWFD. */
void tty_fd_dup (int oldfd, int newfd);
/* The first descriptor with the input role, or -1. */
int tty_fd_first_input (void);

/* epoll registrations of terminal input (tty_fds.c). */
void tty_epoll_noted (int epfd, int op, int fd, uint32_t events, uint64_t data);
/* Whether EPFD watches terminal input; its registration data in *DATA. */
int tty_epoll_watches (int epfd, uint64_t *data);
void tty_epoll_forget (int fd);

/* ------------------------------------------------------------------ */
/* Programs this one executes (tty_exec.c)                             */

/* Set at activation (tty_session.c): the library recorded in this process,
   and whether EMLAT_TRACE_CHILDREN=1 asked for its children too. */
extern int tty_scrub_children_env;

/* ENVP without this library's variables and without this library in
   LD_PRELOAD (a new array; the strings but LD_PRELOAD's are ENVP's), or
   NULL when ENVP needs no change or memory ran out.  Release with
   tty_env_free. */
char **tty_env_scrubbed (char *const envp[]);
void tty_env_free (char **env);

/* A diagnostic for the user (never written to the program's terminal):
   appended to the file EMLAT_LOG names, if any. */
void tty_log (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

/* ------------------------------------------------------------------ */
/* The observer thread (tty_observer.c)                                */

/* Turn the observer on, with its CPU budget: at most BUDGET_PPM millionths
   of the wall time since it started (10000 = 1 %, DESIGN.md section 8.5).
   Over budget it stops for good (tty_observer.c, "The gate"). */
void tty_observer_enable (uint32_t budget_ppm);
int tty_observer_enabled (void);
/* Observe input descriptor FD (setup path: dups it and may start the
   thread).  Ignored when disabled or already observing. */
void tty_observer_attach (int fd);
/* FD is about to be closed or replaced: stop observing it. */
void tty_observer_detach_fd (int fd);
/* The descriptor observed, or -1. */
static inline int
tty_observer_source (void)
{
  /* relaxed: a descriptor number compared with the one being read. */
  return atomic_load_explicit (&tty_hot.obs_src, memory_order_relaxed);
}
/* A read consumed input from the observed descriptor: returns 1 and the
   first readable observation since the previous consuming read in *T, or 0;
   either way the observer is rearmed. */
int tty_observer_take (uint64_t *t);
/* The main thread found the input empty: discard a pending observation. */
void tty_observer_rearm (void);
void tty_observer_stop (void);

/* ------------------------------------------------------------------ */
/* The calls, recorded (tty_ix.c; ttycall.h, ttymodel.c)               */

/* A call record's operation and flags in one word, for tty_ix_put. */
#define TTY_OPF(op, flags) ((uint32_t)(op) | (uint32_t)(flags) << 8)

/* Store one call record (ttycall.h: OPF's operation and flags, AUX, T0,
   T1, VALUE) in the thread's ring, the thread's pending observation that
   the input was empty first.  Every record the library stores goes
   through this one function (but a read's with the observer's time), so
   a key runs one copy of the store's code however many calls it makes
   (docs/PERFORMANCE.md, "Leaner wrappers"). */
void tty_ix_put (uint32_t opf, uint32_t aux, uint64_t t0, uint64_t t1, uint64_t value);

/* The input was found empty at T by a wait (KIND 1) or a read (KIND 2):
   kept in the thread until its next record (tty_ix.c, "The last
   observation that the input was empty"). */
static inline void
tty_ix_note_empty (uint64_t t, unsigned kind)
{
  if (tty_observer_source () >= 0) /* observing: a pending observation is stale */
    tty_observer_rearm ();
  tty_self.empty_t = t;
  tty_self.empty_kind = kind;
}

/* A wait for terminal input (a poll, select or epoll call watching it with
   a nonzero timeout) begins at T: the current interaction is complete. */
static inline void
tty_ix_wait_begin (uint64_t t)
{
  tty_ix_put (TTY_OPF (EMLAT_TTY_WAIT_BEGIN, 0), 0, t, 0, 0);
}

/* A wait call that watched terminal input returned.  READY: it reported the
   input readable.  EMPTY_AT: when it found it not readable (only when
   !READY; T0 <= EMPTY_AT <= T1).  BLOCKED: it lasted at least
   EMLAT_TTY_BLOCK_NS (ttycall.h).  T0/T1 its interval. */
static inline void
tty_ix_wait_end (uint64_t t0, uint64_t t1, int ready, uint64_t empty_at, int blocked)
{
  if (!ready)
    tty_ix_note_empty (empty_at, 1);
  else
    tty_ix_put (TTY_OPF (EMLAT_TTY_WAIT_END,
                         EMLAT_TTY_F_READY | (blocked ? EMLAT_TTY_F_BLOCKED : 0)),
                0, t0, t1, 0);
}

/* A read of the observed descriptor over [T0, T1] returned BYTES > 0: its
   record with the observer's readable time, if it has one (tty_ix.c). */
void tty_ix_read_observed (uint64_t t0, uint64_t t1, uint64_t bytes);

/* A read of terminal input descriptor FD over [T0, T1] returned R (errno
   ERR when R < 0). */
static inline void
tty_ix_read (int fd, uint64_t t0, uint64_t t1, ssize_t r, int err)
{
  if (r <= 0)
    {
      if (r == 0 || err == EAGAIN || err == EWOULDBLOCK)
        tty_ix_note_empty (t1, 2); /* found empty */
      /* EINTR, EIO...: no input, nothing learned, nothing stored */
    }
  else if (EMLAT_UNLIKELY (fd == tty_observer_source ()))
    tty_ix_read_observed (t0, t1, (uint64_t)r);
  else
    tty_ix_put (TTY_OPF (EMLAT_TTY_READ, 0), 0, t0, t1, (uint64_t)r);
}

/* A write or writev of terminal output over [T0, T1] returned R (errno ERR
   when R < 0). */
static inline void
tty_ix_write (uint64_t t0, uint64_t t1, ssize_t r, int err)
{
  unsigned flags = EMLAT_TTY_F_WRITE_CALL;
  if (r < 0 && err != EINTR)
    flags |= EMLAT_TTY_F_WRITE_FAILED;
  if (r > 0)
    flags |= EMLAT_TTY_F_OK;
  tty_ix_put (TTY_OPF (EMLAT_TTY_OUTPUT, flags),
              r > 0 ? EMLAT_Q_WRITE | EMLAT_Q_WRITE << 8 : 0, t0, t1,
              r > 0 ? (uint64_t)r : 0);
}

/* Stdio: BYTES terminal bytes left the program over [T0, T1] (Q0, Q1: the
   quality of the two times; OK: the call that emitted them succeeded, so
   it may close the epoch as its last successful write or flush), and
   STDIO_CALL: it is the end of an observed stdio call (FLUSH_FAILED: an
   fflush that failed). */
void tty_ix_output (uint64_t t0, uint64_t t1, uint64_t bytes,
                    enum emlat_quality q0, enum emlat_quality q1, int ok,
                    int stdio_call, int flush_failed);
/* A span that serves the thread's open interaction follows
   (EMLAT_TTY_SPANS=1): its cause (ringrec.h, EMLAT_CAUSE_OPEN_TTY), an
   unattributed-output interaction opened if none is. */
uint64_t tty_ix_ensure (void);
/* Stdio bookkeeping per stream: the buffer level after the last observed
   call on FP, and when it was taken (0 when FP was not seen). */
size_t tty_ix_stream_last (FILE *fp, uint64_t *t);
void tty_ix_stream_save (FILE *fp, size_t pending, uint64_t t);
/* Close this thread's open interaction (at stop). */
void tty_ix_close_thread (uint64_t t);

#endif /* EMLAT_TTY_H */
