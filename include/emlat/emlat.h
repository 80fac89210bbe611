/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * emlat.h -- the producer API of libemlat, the interaction-latency recorder.
 *
 * A process has at most one recording session.  emlat_start() opens the
 * .emlat file, creates its ring file beside it (PROFILE-ring) and starts the
 * writer thread; every other call records into the calling thread's
 * single-producer ring and returns.
 *
 * Durability: the rings live in the ring file, a shared mapping, so a
 * record is in the kernel's page cache the moment the call that made it
 * returns.  A process that dies (SIGKILL, a crash, abort, SIGHUP) loses
 * nothing it recorded: the next reader of the profile (emlat_profile_load,
 * every `emlat` verb) finds the ring file and writes what the profile
 * lacks (emlat_recover in emlat_reader.h).  The writer thread therefore
 * sleeps until it is needed: when a ring fills past its high-water mark (a
 * quarter of the ring), a thread exits,
 * or emlat_flush / emlat_rotate / emlat_stop ask; an idle recorder costs
 * no CPU at all.
 *
 * Cost contract of every recording call (emlat_ix_*, emlat_span_*,
 * emlat_input_batch, emlat_now): no allocation, no lock, no system call, no
 * formatting, no symbol lookup.  The call reads the profiler clock (vDSO),
 * stores into the calling thread's ring and publishes the new ring head with
 * one release store.  The only exceptions are named in the function's
 * comment: the *_cpu variants read CLOCK_THREAD_CPUTIME_ID (a real system
 * call, about 1.3 us: use them at coarse boundaries only), a thread's very
 * first record claims a preallocated ring with a compare-and-swap and
 * registers a thread-exit handler (pthread_setspecific), and the record
 * that takes a ring past its high-water mark wakes the writer if it sleeps
 * (a futex wake, made only while the writer sleeps, counted in STATS as
 * stats.highwater_wakes).
 *
 * When no session is active every recording call is a load, a compare and a
 * return; calls that return an identifier return 0, which the other calls
 * accept and ignore.  A thread that finds every ring taken records nothing:
 * each of its calls is counted as a no_ring loss, and the identifiers it
 * gets (a cause, a span handle) make the later calls that use them counted
 * too.  A full ring never blocks: the record is counted as
 * dropped and the writer turns the count into a LOSS record.
 *
 * Setup calls (emlat_start, emlat_stop, emlat_rotate, emlat_flush,
 * emlat_status, emlat_string) may lock and allocate; they are not for hot
 * paths.  They are thread-safe.
 */
#ifndef EMLAT_H
#define EMLAT_H

#include <stddef.h>
#include <stdint.h>

#include "emlat_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(EMLAT_BUILDING_LIBRARY) && defined(__GNUC__)
#define EMLAT_API __attribute__((visibility("default")))
#else
#define EMLAT_API
#endif

#define EMLAT_VERSION_MAJOR 0
#define EMLAT_VERSION_MINOR 1
#define EMLAT_VERSION_PATCH 0
#define EMLAT_VERSION_STRING "0.1.0"

/* The library's version string, e.g. "0.1.0". */
EMLAT_API const char *emlat_version (void);

/* ------------------------------------------------------------------ */
/* Session                                                             */

/* Flags for emlat_options.flags. */
#define EMLAT_OPT_OVERWRITE 0x1u /* replace an existing regular file (still
                                    never follows a symlink) */
#define EMLAT_OPT_DEFER_FINISH 0x2u /* emlat_stop does not drain: the records
                                       not yet in the profile stay in the ring
                                       file, which the next reader writes into
                                       the profile (costs the recording
                                       process nothing at exit) */
#define EMLAT_OPT_MEMORY_RINGS 0x4u /* rings in anonymous memory, no ring
                                       file: what a crash loses is what the
                                       writer had not drained yet */
#define EMLAT_OPT_NO_MAP_AHEAD 0x8u /* the writer does not map a ring's
                                       first lap ahead of its thread
                                       (docs/DESIGN.md 14): the thread takes
                                       a page fault per 4 KiB of records,
                                       and nothing is resident ahead */
#define EMLAT_OPT_ADOPT_EMPTY 0x10u /* with path: an empty regular file of
                                       this user already there is written
                                       into instead of refused (the one
                                       `emlat record` and `emlat replay
                                       --interpose` create for the program
                                       they run, so that the program pays
                                       no file creation); a file with
                                       bytes in it is still refused */
#define EMLAT_OPT_DRIVER_DRAINS 0x20u /* with EMLAT_OPT_DEFER_FINISH: the
                                       process that runs this one drains
                                       the rings while it records (`emlat
                                       record`, `emlat replay`:
                                       docs/DESIGN.md 8.7, when
                                       emlat_drain_requested), so the
                                       session starts no writer thread
                                       and writes nothing into its
                                       profile (the driver writes its
                                       start: FORMAT.md F-106).
                                       Ignored (a writer thread as usual)
                                       without a ring file in /dev/shm or
                                       with rotate_bytes.  Without
                                       a driver, nothing drains: records
                                       beyond the rings are lost (LOSS
                                       ring_full) and the next reader
                                       writes the rest.  The driver also
                                       hands down the machine's facts in
                                       EMLAT_MACHINE (its clock source,
                                       CPU count and model, DESIGN.md
                                       8.7): with this flag emlat_start
                                       takes them from there, when the
                                       value is well formed, instead of
                                       reading them */

/* The default sizes of struct emlat_options (docs/PERFORMANCE.md says how
   they were chosen): 131072 slots of 32 bytes per recording thread, and
   128 rings, so that the sparse ring file stays at 512 MiB of address
   space, of which only the pages threads touch take memory (and, in a
   ring's first lap, at most 128 KiB that the writer maps ahead of its
   thread so that the thread takes no page faults: docs/DESIGN.md 14). */
#define EMLAT_DEFAULT_RING_SLOTS 131072u
#define EMLAT_DEFAULT_MAX_THREADS 128u

/* One SESSION metadata entry supplied by the recording layer.  Keys must
   match [a-z0-9_.]{1,64}; string values are at most 1024 bytes.  Entries
   that break these rules are not written and are counted in the status.
   The library never reads the environment or a terminal path on its own. */
enum emlat_meta_type { EMLAT_META_UINT = 0, EMLAT_META_SINT = 1, EMLAT_META_STR = 2 };
struct emlat_meta
{
  const char *key;
  enum emlat_meta_type type;
  uint64_t u;
  int64_t i;
  const char *s; /* UTF-8, not necessarily NUL-terminated */
  size_t s_len;
};

struct emlat_options
{
  /* Where to write.  If path is set, exactly that file (created with mode
     0600, O_EXCL unless EMLAT_OPT_OVERWRITE or EMLAT_OPT_ADOPT_EMPTY,
     O_NOFOLLOW always).  Else if
     dir is set, a new file named emlat-YYYYmmdd-HHMMSS-PID.emlat in it.
     One of the two is required. */
  const char *path;
  const char *dir;
  uint32_t flags;
  /* Sizes; 0 selects the default shown.  See docs/PERFORMANCE.md for how the
     defaults were chosen. */
  uint32_t ring_slots;        /* per thread, power of two; default
                                 EMLAT_DEFAULT_RING_SLOTS (4 MiB, resident
                                 only as it is used, and 128 KiB ahead) */
  uint32_t max_threads;       /* rings preallocated; default
                                 EMLAT_DEFAULT_MAX_THREADS (threads that
                                 come and go need rings while the writer
                                 drains those of exited ones) */
  uint32_t chunk_bytes;       /* max payload per chunk; default 65536 */
  uint64_t rotate_bytes;      /* start a new file past this; 0 = never */
  uint32_t drain_interval_us; /* a writer pass at most this long after the
                                 last one while records wait (the writer
                                 then wakes once per period even when
                                 idle); default 0: none, the ring file
                                 keeps them */
  uint32_t stats_interval_ms; /* STATS chunk period; default 1000 */
  /* Session metadata written into the SESSION chunk. */
  const struct emlat_meta *meta;
  size_t n_meta;
  /* Resource samples of the process (RSS, CPU user and system time, CPU
     share, context switches; RESOURCE records, docs/FORMAT.md 6.10),
     taken by the writer thread, never by a timer or signal in the
     program: one at start, one at stop, and in between one every
     sample_interval_ms (the writer then wakes that often even when the
     program records nothing).  0 (the default): no period of their own;
     a sample is taken with a writer pass that happens at least
     stats_interval_ms after the last one, so an idle program still costs
     no wake-up (DESIGN.md section 8.6). */
  uint32_t sample_interval_ms;
};

/* Start a session.  Returns 0, or a negative errno value: -EALREADY when a
   session is active, -EINVAL for bad options, -EEXIST when the file exists
   (and EMLAT_OPT_OVERWRITE is not set; with EMLAT_OPT_ADOPT_EMPTY, when it
   is not an empty regular file of this user), -ELOOP for a symlink, or the error
   of open(2)/mmap(2)/pthread_create(3).  On error nothing is left behind. */
EMLAT_API int emlat_start (const struct emlat_options *opt);

/* Start a session when the environment asks for one (DESIGN.md section
   11.4), the way every emlat layer is switched on: only when EMLAT_TRACE
   is exactly "1" or "true".  For any other value, or none, it returns 0
   and creates nothing: no file, no directory, no thread.  On, the profile
   is EMLAT_FILE (that file, created new: -EEXIST if it exists, unless it
   is empty and EMLAT_FINISH=reader:PID or drain:PID names this process's
   parent, which made it: EMLAT_OPT_ADOPT_EMPTY, and with drain:PID also
   EMLAT_OPT_DRIVER_DRAINS), else a new
   file in EMLAT_DIR, else in $XDG_STATE_HOME/emlat or
   ~/.local/state/emlat; the directory is created (mode 0700) if needed.
   BASE (may be NULL) gives the other options (sizes, flags, metadata);
   its path and dir are ignored.  EMLAT_FINISH adds
   EMLAT_OPT_DEFER_FINISH when emlat_finish_requested says so (`emlat
   replay` and `emlat record` set it: they finish the profile once the
   program exited, emlat_recover_process).
   Returns 1 when a session started, 0 when
   tracing is off, or a negative errno of emlat_start (-EALREADY when a
   session is active).  These are the only environment variables the
   library reads, and only in this call (and emlat_autostart).  Under
   `emlat record` the interposition library owns EMLAT_FILE: a program
   that also starts from the environment gets -EEXIST there and should
   pass EMLAT_DIR instead. */
EMLAT_API int emlat_start_from_env (const struct emlat_options *base);

/* 1 when EMLAT_TRACE is exactly "1" or "true". */
EMLAT_API int emlat_trace_requested (void);

/* 1 when EMLAT_FINISH is "reader:PID" or "drain:PID" and PID is this
   process's parent, or exactly "reader": the program's parent finishes its
   profile once it exited (emlat_recover_process, by this process's id), so
   a recorder that starts a session of its own should pass
   EMLAT_OPT_DEFER_FINISH, as emlat_start_from_env, the interposition
   library and the profiled Emacs do.  `emlat replay` and `emlat record`
   set "drain:" and their own process id ("drain": they also drain the
   rings of a session that writes the EMLAT_FILE they created, while the
   program records: EMLAT_OPT_DRIVER_DRAINS); a process that a wrapper
   started (a shell, strace, valgrind), whose ring file they would not
   find, gets 0 and finishes its profile itself.  Any other value: 0. */
EMLAT_API int emlat_finish_requested (void);

/* 1 when EMLAT_FINISH is "drain:PID", PID is this process's parent and
   EMLAT_FILE is not set: that parent (`emlat replay` without
   --interpose) drains the rings of the first session this process
   starts on a profile of its own naming while it records, finding it by
   this process's id, so a recorder that starts its session itself may
   pass EMLAT_OPT_DRIVER_DRAINS with EMLAT_OPT_DEFER_FINISH and run no
   writer thread.  The parent drains one session: pass the flag to the
   first one only (the profiled Emacs passes it for --latency-profile).
   With EMLAT_FILE set the parent drains the session writing that file
   (emlat_start_from_env and the interposition library ask for it
   themselves): 0, as otherwise. */
EMLAT_API int emlat_drain_requested (void);

/* emlat_start_from_env (NULL) once per process, and emlat_stop at exit
   (atexit) when it started a session; the result of the first call. */
EMLAT_API int emlat_autostart (void);

/* Opt in to tracing from the environment at load: write
     EMLAT_AUTOSTART ();
   once, at file scope, in the program.  A constructor then calls
   emlat_autostart before main (GCC and Clang). */
#define EMLAT_AUTOSTART()                                                      \
  __attribute__ ((constructor)) static void emlat_autostart_ctor_ (void)      \
  {                                                                            \
    emlat_autostart ();                                                        \
  }                                                                            \
  struct emlat_autostart_semicolon_

/* Stop the session: drain every ring, write the final STATS chunk, close the
   file, remove the ring file and join the writer (with
   EMLAT_OPT_DEFER_FINISH: close both files and leave the draining to the
   next reader).  Returns 0, -ENOENT when no session is active, or the first
   write error of the session as a negative errno (the file is still
   closed).  Spans and interactions still open are left as begin records,
   which the reader reports as incomplete. */
EMLAT_API int emlat_stop (void);

/* Finish the current file and continue in the next rotated file of the same
   session.  Returns 0 or a negative errno (-ENOTSUP in a session a driver
   drains: EMLAT_OPT_DRIVER_DRAINS). */
EMLAT_API int emlat_rotate (void);

/* The flush contract: when emlat_flush returns 0, every record that any
   thread recorded before the call started is in the file (write(2) returned;
   no fsync).  Returns -ENOENT without a session, or a negative errno; in a
   session a driver drains (EMLAT_OPT_DRIVER_DRAINS), -ETIMEDOUT when the
   driver did not answer within 5 s. */
EMLAT_API int emlat_flush (void);

struct emlat_status
{
  int active;
  uint64_t session_records;   /* ring slots accepted so far: current, summed
                                 from every ring's counter by the call */
  uint64_t records_written;   /* ring records encoded into the file (as of
                                 the writer's last pass) */
  uint64_t records_dropped;   /* lost for any reason: current -- what
                                 producers dropped so far (full ring, no
                                 ring), counted where they dropped it, plus
                                 what the writer lost; after emlat_flush it
                                 equals the sum of the LOSS records */
  uint64_t bytes_written;     /* file bytes, all rotated files */
  uint64_t chunks_written;
  uint64_t files;             /* 1 + rotations */
  uint64_t threads;           /* rings ever claimed */
  uint64_t ring_high_water;   /* max slots used in any ring, seen at drain */
  uint64_t ring_slots;
  uint64_t writer_cpu_ns;
  uint64_t clock_read_ns;     /* calibrated cost of one emlat_now() */
  uint64_t meta_rejected;     /* SESSION entries refused */
  int last_error;             /* errno of the last write error, 0 if none */
  uint64_t write_errors;
  char path[4096];            /* current file */
};

/* Fill *st.  Works with and without an active session (then active == 0 and
   the counters describe the last session).  session_records and
   records_dropped are current at any time, without waiting for the writer
   (per-ring counters summed by the call); the other counters are those of
   the writer's last pass. */
EMLAT_API void emlat_status (struct emlat_status *st);

/* Nonzero while a session is active. */
EMLAT_API int emlat_active (void);

/* ------------------------------------------------------------------ */
/* Clocks                                                              */

/* The profiler clock in nanoseconds: CLOCK_MONOTONIC_RAW where it works,
   else CLOCK_MONOTONIC.  Valid (and the same clock) before, during and after
   a session.  No system call on Linux: from a session's start on, read
   through the time-stamp counter where the kernel keeps time with it
   (x86-64), else through the vDSO; EMLAT_CLOCK_VIA=vdso in the environment
   keeps it on the vDSO (docs/DESIGN.md 2.1). */
EMLAT_API uint64_t emlat_now (void);

/* The calling thread's CPU time in nanoseconds (CLOCK_THREAD_CPUTIME_ID).
   A real system call: coarse boundaries only. */
EMLAT_API uint64_t emlat_thread_cpu_now (void);

/* ------------------------------------------------------------------ */
/* Strings (setup time only)                                           */

/* Intern LEN bytes as a STRING record and return its id (>= 1), or 0 when
   no session is active, LEN > 4096, or the dictionary is full (counted as
   loss).  Takes a lock and copies: call once per distinct string, keep the
   id.  Default Emacs and terminal recordings pass no strings at all. */
EMLAT_API uint64_t emlat_string (const char *s, size_t len);

/* ------------------------------------------------------------------ */
/* Interactions                                                        */

/* Begin an interaction of KIND and return its cause id (>= 1, monotonically
   increasing within the session), or 0.  PARENT is the enclosing
   interaction of a nested synchronous root, SCHEDULED_BY the interaction
   that scheduled this deferred work; 0 for none.  Records
   EMLAT_T_DISPATCH_BEGIN = now. */
EMLAT_API uint64_t emlat_ix_begin (enum emlat_root_kind kind, uint64_t parent,
                                   uint64_t scheduled_by);
/* As emlat_ix_begin, with EMLAT_T_DISPATCH_BEGIN = T (profiler clock ns)
   instead of now: for a layer that has just read the clock (the end of the
   read that brought the input), one clock read fewer.  T 0 means now. */
EMLAT_API uint64_t emlat_ix_begin_at (enum emlat_root_kind kind, uint64_t parent,
                                      uint64_t scheduled_by, uint64_t t);

/* Set time field F of interaction CAUSE to T (profiler clock ns) with the
   field's default quality, or with quality Q.  Setting a field twice keeps
   the last value. */
EMLAT_API void emlat_ix_time (uint64_t cause, enum emlat_time_field f, uint64_t t);
EMLAT_API void emlat_ix_time_q (uint64_t cause, enum emlat_time_field f,
                                uint64_t t, enum emlat_quality q);
/* Set time field F to now and return now. */
EMLAT_API uint64_t emlat_ix_mark (uint64_t cause, enum emlat_time_field f);

/* Set value field F (links, ids, source ranges, thread CPU readings). */
EMLAT_API void emlat_ix_value (uint64_t cause, enum emlat_value_field f, uint64_t v);

/* Set counter C to V, or add D to it (absent counters start at 0). */
EMLAT_API void emlat_ix_count (uint64_t cause, enum emlat_counter c, uint64_t v);
EMLAT_API void emlat_ix_add (uint64_t cause, enum emlat_counter c, uint64_t d);

/* End interaction CAUSE with STATUS; records EMLAT_T_INTERACTION_END = now.
   Fields set after the end are ignored by the writer. */
EMLAT_API void emlat_ix_end (uint64_t cause, enum emlat_ix_status status);

/* Many fields in one record.  A recording layer that learns an
   interaction's fields one by one may gather them in a struct
   emlat_ix_fields (its own memory, e.g. thread-local) and record them with
   one emlat_ix_commit instead of one call per field: one ring record of up
   to 21 slots instead of a record per field, which costs the program and
   the writer several times less.  The fields are set as by emlat_ix_time_q,
   emlat_ix_value and emlat_ix_count (a counter is set, not added).  A field
   gathered but not committed before the process dies is lost; fields
   recorded one by one are not. */
struct emlat_ix_fields
{
  uint32_t tmask;                      /* bit f: t[f] is set */
  uint32_t vmask;                      /* bit f: v[f] is set */
  uint32_t cmask;                      /* bit c: c[c] is set */
  uint32_t qmask;                      /* bit f: q[f] is not the default */
  uint8_t q[EMLAT_T_FIELD_COUNT];      /* 0: the field's default quality */
  uint64_t t[EMLAT_T_FIELD_COUNT];
  uint64_t v[EMLAT_V_FIELD_COUNT];
  uint64_t c[EMLAT_C_COUNTER_COUNT];
};

static inline void
emlat_ixf_clear (struct emlat_ix_fields *f)
{
  f->tmask = f->vmask = f->cmask = f->qmask = 0;
}

static inline void
emlat_ixf_time_q (struct emlat_ix_fields *f, enum emlat_time_field k, uint64_t t,
                  enum emlat_quality q)
{
  if ((unsigned)k < EMLAT_T_FIELD_COUNT)
    {
      f->t[k] = t;
      f->q[k] = (uint8_t)q;
      f->tmask |= 1u << k;
      if (q)
        f->qmask |= 1u << k;
      else
        f->qmask &= ~(1u << k);
    }
}

static inline void
emlat_ixf_time (struct emlat_ix_fields *f, enum emlat_time_field k, uint64_t t)
{
  emlat_ixf_time_q (f, k, t, (enum emlat_quality)0);
}

static inline void
emlat_ixf_value (struct emlat_ix_fields *f, enum emlat_value_field k, uint64_t v)
{
  if ((unsigned)k < EMLAT_V_FIELD_COUNT)
    {
      f->v[k] = v;
      f->vmask |= 1u << k;
    }
}

static inline void
emlat_ixf_count (struct emlat_ix_fields *f, enum emlat_counter k, uint64_t v)
{
  if ((unsigned)k < EMLAT_C_COUNTER_COUNT)
    {
      f->c[k] = v;
      f->cmask |= 1u << k;
    }
}

static inline void
emlat_ixf_add (struct emlat_ix_fields *f, enum emlat_counter k, uint64_t d)
{
  if ((unsigned)k < EMLAT_C_COUNTER_COUNT)
    {
      f->c[k] = (f->cmask & (1u << k) ? f->c[k] : 0) + d;
      f->cmask |= 1u << k;
    }
}

/* Record every field set in F for interaction CAUSE, in one ring record.
   With STATUS nonzero the interaction also ends with STATUS at now (as
   emlat_ix_end).  F may be reused afterwards. */
EMLAT_API void emlat_ix_commit (uint64_t cause, const struct emlat_ix_fields *f,
                                enum emlat_ix_status status);
/* As emlat_ix_commit, with the end (STATUS nonzero) at END instead of now:
   one clock read fewer for a layer that knows when the interaction ended.
   END 0 means now; END is ignored when STATUS is 0. */
EMLAT_API void emlat_ix_commit_at (uint64_t cause, const struct emlat_ix_fields *f,
                                   enum emlat_ix_status status, uint64_t end);

/* ------------------------------------------------------------------ */
/* Spans                                                               */

/* Begin a span of KIND serving interaction CAUSE (0 for none) and return a
   handle for it (nonzero), or 0.  The handle is (span id << 1) | CPU flag:
   the span's id in the file, unique within the session, is handle >> 1.  The parent is the innermost
   span of this thread that is still open; the writer derives it from the
   ring's order, so the call stores only kind, id, cause and time. */
EMLAT_API uint64_t emlat_span_begin (enum emlat_span_kind kind, uint64_t cause);

/* As emlat_span_begin, and also read the thread CPU clock (system call). */
EMLAT_API uint64_t emlat_span_begin_cpu (enum emlat_span_kind kind, uint64_t cause);

/* End span SPAN with STATUS and DETAIL (a string id or any small number; 0
   for none).  Ending a span also ends, as EMLAT_SPAN_UNWOUND, every span of
   this thread opened inside it and not yet ended.  A span begun with
   emlat_span_begin_cpu reads the thread CPU clock again here. */
EMLAT_API void emlat_span_end (uint64_t span, enum emlat_span_status status,
                               uint64_t detail);

/* As emlat_span_begin and emlat_span_end, and hand back the time the
   record carries (profiler clock ns; the clock read by the call when it
   records nothing, so the time is always valid): a caller that also
   needs the time of the boundary, for an interaction's time field, reads
   the clock once, and the field and the span agree to the nanosecond.
   The begin stores it in *T (T must not be NULL); the end returns it. */
EMLAT_API uint64_t emlat_span_begin_timed (enum emlat_span_kind kind, uint64_t cause,
                                           uint64_t *t);
EMLAT_API uint64_t emlat_span_end_timed (uint64_t span, enum emlat_span_status status,
                                         uint64_t detail);

/* End span SPAN with STATUS and DETAIL and begin a span of KIND serving
   CAUSE at the same instant: as emlat_span_end_timed then
   emlat_span_begin_timed, except that both records carry one clock read,
   stored in *T (T must not be NULL), and the call costs about one of
   them.  For consecutive phases (a command's hooks, the command, its
   after-hooks).  SPAN 0 ends nothing; a span begun with
   emlat_span_begin_cpu reads the thread CPU clock at its end as usual.
   Returns the new span's handle, or 0. */
EMLAT_API uint64_t emlat_span_switch (uint64_t span, enum emlat_span_status status,
                                      uint64_t detail, enum emlat_span_kind kind,
                                      uint64_t cause, uint64_t *t);

/* Attach counter C = V to span SPAN (a delta relevant to its kind).  Call
   before emlat_span_end. */
EMLAT_API void emlat_span_count (uint64_t span, enum emlat_counter c, uint64_t v);

/* Attach several counters to span SPAN at once, as emlat_span_count for
   each: bit c of MASK set means counter c, whose value is the next of
   VALUES, in ascending order of c (VALUES[0] belongs to the lowest set
   bit).  Bits at or above EMLAT_C_COUNTER_COUNT are ignored.  One ring
   record of at most 8 slots instead of one per counter. */
EMLAT_API void emlat_span_counts (uint64_t span, uint32_t mask, const uint64_t *values);

/* As emlat_span_counts, and also add the same counts to the counters of
   the interaction SPAN serves (its cause), as emlat_ix_add would, if
   that interaction has not ended when the writer reads the record (the
   writer adds them: the call costs what emlat_span_counts does).  For
   counters that describe both a span and the interaction it serves (a
   redisplay's work): one record instead of one for each. */
EMLAT_API void emlat_span_counts_served (uint64_t span, uint32_t mask,
                                         const uint64_t *values);

/* ------------------------------------------------------------------ */
/* Terminal input batches                                              */

/* A new input batch id (>= 1), or 0 without a session. */
EMLAT_API uint64_t emlat_input_batch_id (void);

/* Presence bits of emlat_input_batch.mask. */
#define EMLAT_IB_KNOWN_EMPTY 0x01u
#define EMLAT_IB_FIRST_READY 0x02u
#define EMLAT_IB_READ_BEGIN 0x04u
#define EMLAT_IB_READ_END 0x08u
#define EMLAT_IB_BYTES 0x10u

/* One terminal read batch: when the descriptor was last known empty, when it
   was first seen readable (with that observation's quality: observer or
   main-poll), the read(2) interval and how many bytes it returned.  Never
   the bytes. */
struct emlat_input_batch
{
  uint64_t batch_id;
  uint32_t mask;                 /* EMLAT_IB_* */
  enum emlat_quality ready_quality;
  uint64_t t_known_empty;
  uint64_t t_first_ready;
  uint64_t t_read_begin;
  uint64_t t_read_end;
  uint64_t bytes;
};

/* Record an input batch (two ring slots).  The batch's times are the
   caller's; the clock is read only to date a loss: when B->mask lacks
   EMLAT_IB_READ_END (the time a LOSS record would carry should the ring be
   full), and when the thread finds no free ring. */
EMLAT_API void emlat_input_batch (const struct emlat_input_batch *b);

#ifdef __cplusplus
}
#endif

/* The application API: named sections, instants, counters, async slices,
   flows, thread and process names, application interactions. */
#include "emlat_app.h"

#endif /* EMLAT_H */
