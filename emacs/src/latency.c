/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Interaction-latency profiler: Lisp primitives and probe bodies.

Copyright (C) 2025 the emlat authors.

This file is part of GNU Emacs.

GNU Emacs is free software: you can redistribute it and/or modify
it under the terms of the GNU General Public License as published by
the Free Software Foundation, either version 3 of the License, or (at
your option) any later version.

GNU Emacs is distributed in the hope that it will be useful,
but WITHOUT ANY WARRANTY; without even the implied warranty of
MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
GNU General Public License for more details.

You should have received a copy of the GNU General Public License
along with GNU Emacs.  If not, see <https://www.gnu.org/licenses/>.  */

/* The profiler records, for every interaction (a key sequence and
   the command it runs), when its input arrived, when each phase of
   the command loop ran, which redisplay served it and when its
   terminal output was flushed.  Records go through libemlat, whose
   recording calls never allocate, lock or make a system call.

   Invariants:

   - Everything here runs on the thread that holds the Lisp global
     lock, so the state below needs no synchronization, except the
     three functions documented as called from a signal handler, which
     only store a time into an atomic variable.

   - Besides key sequences, timers, process output, process sentinels,
     special events (file notifications) and terminal resizes are roots
     of work.  A root that begins while nothing is open owns the
     redisplay done before the event loop waits again; one that begins
     inside another interaction ends with its own work and names that
     interaction as its parent while it is still working.

   - Open interactions form a stack: a command that reads from the
     minibuffer runs a nested command loop whose interactions are
     pushed above it.  Callers name an interaction by the serial
     number returned by `latency_key_sequence_done', never by its
     position, so a stale serial (after a restart of the profile or an
     unwinding) finds nothing and does nothing.

   - An interaction ends at the redisplay decision that follows it in
     read_char: after the redisplay it caused and the flush of that
     redisplay's output, or as superseded when Emacs skipped that
     redisplay because input was pending.  An unavailable boundary is
     never recorded as zero; it is not recorded at all.

   - An open interaction's fields are gathered in its stack entry and
     recorded with one emlat_ix_commit: when it ends (with its status),
     when Emacs begins to wait in wait_reading_process_output while it
     is open, and before the session stops or rotates.  A field is
     gathered only into an entry on the stack; a probe that names an
     interaction no longer open (the redisplay's counters, when its
     interaction ended during it) records one-field calls, as before.
     So a SIGKILL loses at most the fields the open interactions
     gathered since Emacs last began to wait.

   - The profile never contains typed text, buffer contents, file
     names, environment values or the terminal device name.  Input is
     described by batch number, byte offsets, counts and times only.
     Lisp symbol names are recorded only by a session started under the
     names policy (`latency-profile-names', latencynames.c), and then
     only the names of commands, timer functions, hook functions and
     processes, as the detail of the span of their work.  */

#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <ignore-value.h>
#include <emlat/emlat.h>

#include "lisp.h"
#include "sysstdio.h"
#include "blockinput.h"
#include "coding.h"
#include "frame.h"
#include "termchar.h"
#include "termhooks.h"
#include "keyboard.h"
#include "fingerprint.h"
#include "buffer.h"
#include "window.h"
#include "process.h"
#include "c-ctype.h"
#include "latency.h"

bool latency_profiling;
intmax_t latency_windows_considered, latency_windows_updated;
intmax_t latency_rows_generated, latency_glyphs;
intmax_t latency_rows_reused, latency_preemptions;
static intmax_t latency_frames_updated;

/* Times stored by the handlers of SIGIO (input available), SIGINT (C-g
   on the controlling terminal) and SIGWINCH (terminal resize), or 0.
   A handler runs on the main thread (deliver_process_signal forwards
   it there) between any two of its instructions, and the reader is
   that same thread, so the variables need only be lock-free atomics,
   accessed with relaxed order: they publish no other memory.  */
static atomic_uint_least64_t latency_sigio_time;
static atomic_uint_least64_t latency_sigint_time;
static atomic_uint_least64_t latency_sigwinch_time;

/* ------------------------------------------------------------------ */
/* Input provenance.  */

/* A read batch of a terminal, kept while its bytes may still be in the
   input queue.  */
struct latency_batch
{
  uint64_t id;
  uint64_t t_known_empty;	/* 0 when not known */
  uint64_t t_ready;		/* first readable observation, or 0 */
  enum emlat_quality ready_quality; /* and who made it */
  uint64_t t_read_begin;
  uint64_t t_read_end;
};

/* Recent batches, indexed by id modulo the size.  */
enum { LATENCY_BATCHES = 256 };
static struct latency_batch latency_batches[LATENCY_BATCHES];

/* Last time each terminal descriptor was found empty, and the first
   time the main thread's poll saw it readable after that, or 0.  Slot
   I is in use, its descriptor known empty since T_EMPTY, while bit I
   of latency_empty_used is set; a read, or the descriptor's detach,
   frees it.  */
enum { LATENCY_TTYS = 8 };
static struct
{
  int fd;
  uint64_t t_empty;
  uint64_t t_ready;
} latency_empty[LATENCY_TTYS];
static unsigned int latency_empty_used;

/* The slot of latency_empty in use for terminal descriptor FD, or -1.
   Visits only the slots in use: with one terminal, one or none.  */
static int
latency_empty_slot (int fd)
{
  int i = 0;
  for (unsigned int used = latency_empty_used; used; used >>= 1, i++)
    if ((used & 1) && latency_empty[i].fd == fd)
      return i;
  return -1;
}

/* The batch being stored by tty_read_avail_input and the offset of the
   byte about to be stored, or batch 0.  */
static uint64_t latency_store_batch;
static uint64_t latency_store_batch_pending;
static ptrdiff_t latency_store_offset;

/* Provenance of each slot of kbd_buffer: batch (0 for an event that
   did not come from terminal bytes), byte offset, insertion time and
   the queue's depth then.  Indexed like kbd_buffer.  One entry of 24
   bytes per slot, so that a keystroke's insertion and removal touch
   one cache line instead of one page of each of four arrays.  */
enum { LATENCY_QUEUE = 4096 };
static struct
{
  uint64_t batch;
  uint64_t inserted;
  uint32_t offset;
  uint32_t depth;
} latency_slots[LATENCY_QUEUE];

/* Number of events in the ring from slot FROM up to slot TO.  */
static uint32_t
latency_queue_span (ptrdiff_t from, ptrdiff_t to)
{
  return (to - from + LATENCY_QUEUE) % LATENCY_QUEUE;
}

/* A range of bytes of one batch: one physical event.  */
struct latency_source
{
  uint64_t batch;		/* 0 when absent */
  uint64_t t_signal;		/* for C-g by SIGINT (no batch): its time */
  uint32_t begin, end;		/* [begin, end) */
  uint64_t t_insert, t_remove;	/* queue times of its last byte */
  uint32_t depth_insert;	/* events queued after its insertion */
  uint32_t depth_remove;	/* events queued before its removal */
};

/* Bytes dequeued since the last complete event, and the first and
   last events of the key sequence being read.  */
static struct latency_source latency_pending_event;
static struct latency_source latency_first_event;
static struct latency_source latency_decisive_event;
static int latency_sequence_events;

/* Queue times of the last event removed from the queue that did not
   come from terminal bytes (a file notification, say).  */
static uint64_t latency_event_t_insert, latency_event_t_remove;

/* Recent events read from terminal bytes, with their sources, so that
   an event a command puts back into `unread-command-events' keeps its
   provenance when it is read again.  An entry is matched with `EQ' and
   only during the key sequence that read it or the next one; it is
   never dereferenced, so the garbage collector need not know of it.  */
enum { LATENCY_RECENT = 16 };
static struct
{
  Lisp_Object event;
  intmax_t generation;		/* latency_generation when read */
  struct latency_source source;	/* batch 0: free */
} latency_recent[LATENCY_RECENT];
static int latency_recent_next;
/* Key sequences completed so far.  */
static intmax_t latency_generation;

/* Objects that stand for deferred work (timers and processes), with
   the interaction that was being served when the work was scheduled:
   the timer activated, the process made.  Matched with `EQ', newest
   first, and never dereferenced, like latency_recent.  A repeating
   timer is scheduled again by its own run.  */
enum { LATENCY_SCHEDULED = 64 };
static struct
{
  Lisp_Object object;
  uint64_t cause;		/* 0: scheduled while nothing was open */
  bool used;
} latency_scheduled[LATENCY_SCHEDULED];
static int latency_scheduled_next;

/* The read interval and size of the last read of process output, for
   the root that disposes of it; read end 0 when none.  */
static uint64_t latency_process_t_begin, latency_process_t_end;
static ptrdiff_t latency_process_bytes;

/* ------------------------------------------------------------------ */
/* Open interactions.  */

enum latency_phase
{
  LATENCY_DISPATCHED,
  LATENCY_PRE_COMMAND,
  LATENCY_COMMAND,
  LATENCY_POST_COMMAND,
  LATENCY_ROOT_WORK,		/* a root other than a key sequence */
  LATENCY_FINISHED		/* root work done, awaiting redisplay */
};

struct latency_interaction
{
  intmax_t serial;
  uint64_t cause;
  enum latency_phase phase;
  enum emlat_ix_status status;
  bool nonlocal;		/* left its command by a nonlocal exit */
  uint64_t span;		/* open phase span, or 0 */
  bool have_redisplay, have_output;
  /* True once output after the root work was flushed.  */
  bool flushed;
  /* True once output written during its own work (a timer's `message',
     say) was flushed: its output and flush fields then describe that
     output until output after the root work replaces them.  */
  bool work_flushed;
  /* True once the first write of its output was stamped
     (t_write_first_begin/end).  */
  bool have_write;
  /* A root other than a key sequence that began while nothing was
     open: it awaits the redisplay done before Emacs waits again.  */
  bool owner;
  /* True if its thread CPU time was read when it began, so that it is
     read again when it ends (`latency-profile-thread-cpu').  */
  bool cpu;
  EMACS_INT gcs_at_begin;
  modiff_count modiff_at_begin;
  /* Under the names policy: the string id naming its work (the
     command, the timer's function, the process), and the open span of
     a root's work that carries it, or 0.  */
  uint64_t name;
  uint64_t name_span;
  /* The counters of F set or added to since its last commit
     (latency_ix_commit); F keeps every counter's running total.  */
  uint32_t counters_dirty;
  /* Its fields, gathered here as the probes learn them and recorded
     with one emlat_ix_commit when it ends, and, for what a crash would
     lose, whenever Emacs begins to wait while it is open
     (latency_commit_open): one ring record where there was one per
     field.  Last, so that a push clears only what precedes it.  */
  struct emlat_ix_fields f;
};

enum { LATENCY_DEPTH = 64 };
static struct latency_interaction latency_stack[LATENCY_DEPTH];
static int latency_depth;
static intmax_t latency_serial;

/* The hook functions running now, innermost last: the span of each,
   the id of its name, and whether it returned.  */
enum { LATENCY_HOOKS = 32 };
static struct
{
  uint64_t span, name;
  bool done;
} latency_hooks[LATENCY_HOOKS];
static int latency_hook_depth;

/* Redisplay and output state.  */
static uint64_t latency_redisplay_span;
static uint64_t latency_redisplay_id;
static uint64_t latency_redisplay_cause;
/* True once the current redisplay began to update the terminal.  */
static bool latency_redisplay_updating;
static uint64_t latency_gc_span;
static uint64_t latency_gc_t0;
static uint64_t latency_written_epoch, latency_completed_epoch;
uint64_t latency_pending_bytes;
/* True while terminal output only adds to latency_pending_bytes
   (latency_note_tty_output's fast path, latency.h): some bytes are
   pending in an open output epoch and the innermost interaction needs
   no output mark.  Cleared by whatever could change that: a successful
   flush, and a new innermost interaction or phase (latency_push,
   latency_pop and every move to LATENCY_FINISHED).  */
bool latency_output_settled;
/* When the first bytes not yet flushed were handed to stdio (read
   right after that call), and the end of the last successful flush:
   stdio may write before the flush when its buffer fills
   (latency_tty_flush).  */
static uint64_t latency_pending_t, latency_flushed_t;
/* Whether that first call handed so few bytes to the emptied buffer
   that stdio cannot have written any in it (LATENCY_STDIO_SMALL).  */
static bool latency_pending_small;
/* Fewer bytes than any terminal stream's stdio buffer holds (BUFSIZ,
   or what `tty--set-output-buffer-size' chose).  */
enum { LATENCY_STDIO_SMALL = 128 };

uint64_t
latency_now (void)
{
  return emlat_now ();
}

/* Forget all state of a previous session.  */
static void
latency_reset (void)
{
  memset (latency_batches, 0, sizeof latency_batches);
  memset (latency_empty, 0, sizeof latency_empty);
  latency_empty_used = 0;
  memset (latency_slots, 0, sizeof latency_slots);
  latency_store_batch = latency_store_batch_pending = 0;
  memset (&latency_pending_event, 0, sizeof latency_pending_event);
  memset (&latency_first_event, 0, sizeof latency_first_event);
  memset (&latency_decisive_event, 0, sizeof latency_decisive_event);
  latency_sequence_events = 0;
  latency_event_t_insert = latency_event_t_remove = 0;
  memset (latency_recent, 0, sizeof latency_recent);
  memset (latency_scheduled, 0, sizeof latency_scheduled);
  latency_process_t_end = 0;
  atomic_store_explicit (&latency_sigio_time, 0, memory_order_relaxed);
  atomic_store_explicit (&latency_sigint_time, 0, memory_order_relaxed);
  atomic_store_explicit (&latency_sigwinch_time, 0, memory_order_relaxed);
  latency_depth = 0;
  latency_hook_depth = 0;
  latency_redisplay_span = latency_redisplay_cause = 0;
  latency_gc_span = 0;
  latency_written_epoch = latency_completed_epoch = 0;
  latency_pending_bytes = 0;
  latency_output_settled = false;
  latency_pending_t = latency_flushed_t = 0;
}

/* The innermost open interaction, or NULL.  */
static struct latency_interaction *
latency_top (void)
{
  return latency_depth > 0 ? &latency_stack[latency_depth - 1] : NULL;
}

/* The cause that work done now serves: the innermost open
   interaction, or 0.  */
static uint64_t
latency_serving_cause (void)
{
  struct latency_interaction *top = latency_top ();
  return top ? top->cause : 0;
}

/* The stack index of the interaction with serial SERIAL, or -1.  */
static int
latency_find (intmax_t serial)
{
  for (int i = latency_depth - 1; i >= 0; i--)
    if (latency_stack[i].serial == serial)
      return i;
  return -1;
}

/* Gathering an open interaction's fields: each sets the field of IX
   as the one-field call of emlat.h of the same name would (a field set
   twice keeps its last value and quality; a counter is set, or added
   to from 0 when absent); latency_ix_commit records them.  */
static void
latency_ix_time (struct latency_interaction *ix, enum emlat_time_field f,
		 uint64_t t)
{
  emlat_ixf_time (&ix->f, f, t);
}

static void
latency_ix_time_q (struct latency_interaction *ix, enum emlat_time_field f,
		   uint64_t t, enum emlat_quality q)
{
  emlat_ixf_time_q (&ix->f, f, t, q);
}

/* Set time field F of IX to now and return now.  */
static uint64_t
latency_ix_mark (struct latency_interaction *ix, enum emlat_time_field f)
{
  uint64_t t = emlat_now ();
  emlat_ixf_time (&ix->f, f, t);
  return t;
}

static void
latency_ix_value (struct latency_interaction *ix, enum emlat_value_field f,
		  uint64_t v)
{
  emlat_ixf_value (&ix->f, f, v);
}

/* The first thread CPU reading of IX, which has just begun, if
   `latency-profile-thread-cpu' is non-nil: a system call, as no thread
   CPU clock is served without one.  Without it IX has no CPU time, and
   the report none of its time off CPU.  */
static void
latency_ix_cpu_begin (struct latency_interaction *ix)
{
  ix->cpu = latency_profile_thread_cpu;
  if (ix->cpu)
    latency_ix_value (ix, EMLAT_V_THREAD_CPU_BEGIN, emlat_thread_cpu_now ());
}

static void
latency_ix_count (struct latency_interaction *ix, enum emlat_counter c,
		  uint64_t v)
{
  emlat_ixf_count (&ix->f, c, v);
  ix->counters_dirty |= 1u << c;
}

static void
latency_ix_add (struct latency_interaction *ix, enum emlat_counter c,
		uint64_t d)
{
  emlat_ixf_add (&ix->f, c, d);
  ix->counters_dirty |= 1u << c;
}

/* Record the fields IX gathered since its last commit, in one ring
   record, and end it with STATUS unless STATUS is 0.  The time and
   value fields are forgotten once recorded; the counters keep their
   totals (a later commit sets a counter to its total, and carries only
   the counters changed since: the writer keeps the others).  */
static void
latency_ix_commit (struct latency_interaction *ix, enum emlat_ix_status status)
{
  uint32_t counters = ix->f.cmask;
  ix->f.cmask = ix->counters_dirty;
  if (status || ix->f.tmask || ix->f.vmask || ix->f.cmask)
    emlat_ix_commit (ix->cause, &ix->f, status);
  ix->f.cmask = counters;
  ix->f.tmask = ix->f.vmask = ix->f.qmask = 0;
  ix->counters_dirty = 0;
}

/* Record what every open interaction gathered so far.  Called where
   Emacs begins to wait, and before the session stops or rotates, so
   that a crash (or a file closed meanwhile) loses only what was
   gathered since.  */
static void
latency_commit_open (void)
{
  for (int i = 0; i < latency_depth; i++)
    latency_ix_commit (&latency_stack[i], 0);
}

/* Push a new open interaction of cause CAUSE, in phase PHASE, and
   return it.  The caller checked that the stack has room.  */
static struct latency_interaction *
latency_push (uint64_t cause, enum latency_phase phase)
{
  struct latency_interaction *ix = &latency_stack[latency_depth++];
  memset (ix, 0, offsetof (struct latency_interaction, f));
  emlat_ixf_clear (&ix->f);
  ix->serial = ++latency_serial;
  ix->cause = cause;
  ix->phase = phase;
  ix->status = EMLAT_STATUS_NORMAL;
  ix->gcs_at_begin = gcs_done;
  ix->modiff_at_begin = MODIFF;
  latency_output_settled = false;
  return ix;
}

/* End the interaction on top of the stack and pop it.  */
static void
latency_pop (void)
{
  struct latency_interaction *ix = latency_top ();
  if (!ix)
    return;
  if (ix->span)
    emlat_span_end (ix->span, EMLAT_SPAN_THROW,
		    ix->phase == LATENCY_COMMAND ? ix->name : 0);
  if (ix->name_span)
    emlat_span_end (ix->name_span, EMLAT_SPAN_THROW, ix->name);
  if (ix->phase != LATENCY_FINISHED)
    latency_ix_mark (ix, EMLAT_T_ROOT_WORK_END);
  latency_ix_count (ix, EMLAT_C_GC_COUNT, gcs_done - ix->gcs_at_begin);
  if (BUFFERP (XWINDOW (selected_window)->contents))
    {
      struct buffer *b = XBUFFER (XWINDOW (selected_window)->contents);
      latency_ix_count (ix, EMLAT_C_BUFFER_SIZE, BUF_Z (b) - BUF_BEG (b));
      if (b == current_buffer)
	latency_ix_count (ix, EMLAT_C_MODIFF_DELTA,
			  MODIFF - ix->modiff_at_begin);
    }
  /* Its second and last thread CPU reading (the first was taken when
     it began), read before the end that the commit below stamps: the
     CPU time it measures lies within t_dispatch_begin..t_interaction_end
     (the session says so: SESSION key ix.thread_cpu_end_at).  */
  if (ix->cpu)
    latency_ix_value (ix, EMLAT_V_THREAD_CPU_END, emlat_thread_cpu_now ());
  /* Its fields, and its end at now.  */
  latency_ix_commit (ix, ix->status);
  latency_depth--;
  latency_output_settled = false;
}

/* Pop every interaction above stack index I.  */
static void
latency_pop_above (int i)
{
  while (latency_depth > i + 1)
    latency_pop ();
}

/* ------------------------------------------------------------------ */
/* The input observer thread (emlat's DESIGN.md section 2.5).

   An optional thread that polls the terminal descriptors without
   reading them and notes the first time each is readable after the
   main thread's drain found it empty: while the main thread is busy,
   that is a tight upper bound on when the first byte of a batch
   arrived.  It never reads, never changes descriptor flags and never
   calls Emacs; it records one `input_ready' span (with its CPU time)
   per observation into its own ring, so that its cost is measured
   apart from the main thread's.

   Synchronization (C11 atomics; the main thread is the one holding the
   Lisp global lock):

   | variable         | written by                  | read by       |
   |------------------+-----------------------------+---------------|
   | fd[i]            | main (attach, detach)       | observer      |
   | word[i]          | main (arm, take),           | both          |
   |                  | observer (fire, give up)    |               |
   | t_ready[i]       | observer, before it fires   | main, fired   |
   | detach_request   | main                        | observer      |
   | detach_done      | observer                    | main          |
   | stop             | main                        | observer      |

   The hand-off of one descriptor is its word, a generation and a
   state: word = generation << 2 | IDLE, ARMED or FIRED.

   main, drain found it empty:  unless ARMED, word = (gen + 1, ARMED).
   main, read bytes from it:    w = exchange (word, (gen + 1, IDLE));
                                if w was FIRED, the observation is
                                t_ready.
   observer, word w ARMED:      poll; on readable, look again with a
                                zero timeout; still readable: t_ready
                                = now; CAS (word, w -> (w's gen, FIRED)).

   Every read that takes bytes makes a new generation, so the observer's
   CAS fails if Emacs read anything between the observer's load of the
   word and its store: an observation that may be of bytes already
   read (the observer woke late, on a busy or slow machine) is
   dropped, never taken for the next key's arrival.  One that
   succeeds saw bytes still unread at its second look, before NOW, and
   no read took them before the CAS, so NOW bounds their arrival; a
   read that began before NOW is not given it (latency_tty_read keeps
   only an observation no later than the read's start).  Only the
   observer writes t_ready, one descriptor at a time, and the main
   thread reads it only after its exchange took a FIRED word, which
   the CAS released after the store; the observer writes it again only
   for a generation the main thread arms after that read.

   A descriptor is detached before it is closed: the main thread clears
   fd[i], bumps detach_request and wakes the observer through a pipe;
   the observer acknowledges in detach_done only after it built a poll
   set without that descriptor, so a poll that named it has returned.
   Every wake byte is consumed before the next poll set is built, so the
   build that follows the main thread's request sees it.

   The gate: the observer's CPU time may not exceed LATENCY_OBSERVER_GATE
   of the wall time since it started (the continuous-mode CPU budget of
   DESIGN.md section 8.5); the main thread checks this at most once a second,
   when it rearms, and stops the observer for good if not.  */

enum latency_observer_state
{
  LATENCY_OBSERVER_OFF,		/* not requested */
  LATENCY_OBSERVER_ON,
  LATENCY_OBSERVER_GATED,	/* stopped: above its CPU budget */
  LATENCY_OBSERVER_UNAVAILABLE	/* could not be started */
};

/* The observer's CPU budget, as a fraction of wall time.  */
#define LATENCY_OBSERVER_GATE 0.01

static struct
{
  /* Owned by the main thread.  */
  enum latency_observer_state state;
  pthread_t thread;
  bool running;
  int wake[2];			/* main writes, observer reads */
  clockid_t cpu_clock;
  uint64_t t_start, t_checked, cpu_ns;

  /* Shared: see the table above.  */
  atomic_int fd[LATENCY_TTYS];	/* -1: free */
  atomic_uint_least64_t word[LATENCY_TTYS];
  atomic_uint_least64_t t_ready[LATENCY_TTYS];
  atomic_uint_least64_t detach_request, detach_done;
  atomic_bool stop;
} latency_observer;

/* The states of an observer word (the table above).  */
enum
{
  LATENCY_OBS_IDLE,		/* not watched until the next arm */
  LATENCY_OBS_ARMED,		/* watched: found empty, nothing read since */
  LATENCY_OBS_FIRED,		/* observed readable: t_ready is its time */
  LATENCY_OBS_STATE = 3
};

/* WORD's next generation in state STATE.  */
static uint_least64_t
latency_obs_next (uint_least64_t word, int state)
{
  return ((word >> 2) + 1) << 2 | state;
}

/* Wake the observer.  */
static void
latency_observer_wake (void)
{
  char c = 0;
  /* A full pipe already holds a wake byte.  */
  ignore_value (write (latency_observer.wake[1], &c, 1));
}

static void *
latency_observer_main (void *arg)
{
  struct pollfd p[LATENCY_TTYS + 1];
  int slot[LATENCY_TTYS + 1];
  uint_least64_t word[LATENCY_TTYS + 1];

  while (!atomic_load_explicit (&latency_observer.stop, memory_order_acquire))
    {
      /* Acquire: pairs with the release increment of a detach, made
	 after the main thread cleared the descriptor.  */
      uint_least64_t request
	= atomic_load_explicit (&latency_observer.detach_request,
				memory_order_acquire);
      int n = 0;
      p[n++] = (struct pollfd) { .fd = latency_observer.wake[0],
				 .events = POLLIN };
      for (int i = 0; i < LATENCY_TTYS; i++)
	{
	  /* Acquire: pairs with the main thread's release stores of fd
	     and of the word when it arms.  */
	  int fd = atomic_load_explicit (&latency_observer.fd[i],
					 memory_order_acquire);
	  uint_least64_t w
	    = atomic_load_explicit (&latency_observer.word[i],
				    memory_order_acquire);
	  if (fd >= 0 && (w & LATENCY_OBS_STATE) == LATENCY_OBS_ARMED)
	    {
	      slot[n] = i;
	      word[n] = w;
	      p[n++] = (struct pollfd) { .fd = fd, .events = POLLIN };
	    }
	}
      /* Release: the poll set just built no longer names a descriptor
	 detached up to REQUEST.  */
      atomic_store_explicit (&latency_observer.detach_done, request,
			     memory_order_release);

      if (poll (p, n, -1) < 0)
	{
	  if (errno == EINTR || errno == EAGAIN)
	    continue;
	  break;
	}
      if (p[0].revents)
	{
	  char buf[64];
	  while (read (latency_observer.wake[0], buf, sizeof buf) > 0)
	    continue;
	}
      for (int k = 1; k < n; k++)
	{
	  uint_least64_t w = word[k];
	  if (p[k].revents & POLLNVAL)
	    {
	      /* Not open: never happens to a descriptor detached before
		 closing, but do not spin on it.  Relaxed: nothing is
		 published; the next arm watches it again.  */
	      atomic_compare_exchange_strong_explicit
		(&latency_observer.word[slot[k]], &w,
		 (w & ~(uint_least64_t) LATENCY_OBS_STATE) | LATENCY_OBS_IDLE,
		 memory_order_relaxed, memory_order_relaxed);
	      continue;
	    }
	  if (!(p[k].revents & (POLLIN | POLLHUP | POLLERR)))
	    continue;
	  /* Still readable?  This thread may have woken late, after the
	     main thread read the bytes; then it polls again.  The time
	     is taken after this look, so that it follows the arrival of
	     whatever the look found.  */
	  struct pollfd again = { .fd = p[k].fd, .events = POLLIN };
	  if (!(p[k].revents & (POLLHUP | POLLERR))
	      && poll (&again, 1, 0) == 0)
	    continue;
	  uint64_t now = emlat_now ();
	  int i = slot[k];
	  uint64_t span = emlat_span_begin_cpu (EMLAT_SPAN_INPUT_READY, 0);
	  /* Relaxed: published by the release CAS below.  */
	  atomic_store_explicit (&latency_observer.t_ready[i], now,
				 memory_order_relaxed);
	  /* Release: the main thread reads t_ready after its exchange
	     took the FIRED word.  Fails if it read since W: the
	     observation may be of bytes already read, and is dropped.  */
	  atomic_compare_exchange_strong_explicit
	    (&latency_observer.word[i], &w,
	     (w & ~(uint_least64_t) LATENCY_OBS_STATE) | LATENCY_OBS_FIRED,
	     memory_order_release, memory_order_relaxed);
	  emlat_span_end (span, EMLAT_SPAN_OK, 0);
	}
    }
  return arg;
}

/* Start the observer thread, if `latency-profile-input-observer' asks
   for it.  */
static void
latency_observer_start (void)
{
  memset (&latency_observer, 0, sizeof latency_observer);
  for (int i = 0; i < LATENCY_TTYS; i++)
    atomic_init (&latency_observer.fd[i], -1);
  latency_observer.state = LATENCY_OBSERVER_OFF;
  if (!latency_profile_input_observer)
    return;
  latency_observer.state = LATENCY_OBSERVER_UNAVAILABLE;
  if (pipe2 (latency_observer.wake, O_CLOEXEC | O_NONBLOCK) != 0)
    return;
  /* Like the writer thread, the observer takes no signal meant for
     Emacs.  */
  sigset_t all, old;
  sigfillset (&all);
  pthread_sigmask (SIG_BLOCK, &all, &old);
  int r = pthread_create (&latency_observer.thread, NULL,
			  latency_observer_main, NULL);
  pthread_sigmask (SIG_SETMASK, &old, NULL);
  if (r != 0
      || pthread_getcpuclockid (latency_observer.thread,
				&latency_observer.cpu_clock) != 0)
    {
      if (r == 0)
	{
	  atomic_store_explicit (&latency_observer.stop, true,
				 memory_order_release);
	  latency_observer_wake ();
	  pthread_join (latency_observer.thread, NULL);
	}
      emacs_close (latency_observer.wake[0]);
      emacs_close (latency_observer.wake[1]);
      return;
    }
  latency_observer.running = true;
  latency_observer.state = LATENCY_OBSERVER_ON;
  latency_observer.t_start = latency_observer.t_checked = emlat_now ();
}

/* The CPU time of the observer thread so far.  */
static uint64_t
latency_observer_cpu (void)
{
  struct timespec ts;
  if (latency_observer.running
      && clock_gettime (latency_observer.cpu_clock, &ts) == 0)
    latency_observer.cpu_ns = ts.tv_sec * (uint64_t) 1000000000 + ts.tv_nsec;
  return latency_observer.cpu_ns;
}

/* Stop the observer thread, leaving its state as NEW_STATE.  */
static void
latency_observer_stop (enum latency_observer_state new_state)
{
  if (!latency_observer.running)
    return;
  latency_observer_cpu ();
  /* Release: pairs with the observer's acquire load of stop.  */
  atomic_store_explicit (&latency_observer.stop, true, memory_order_release);
  latency_observer_wake ();
  pthread_join (latency_observer.thread, NULL);
  emacs_close (latency_observer.wake[0]);
  emacs_close (latency_observer.wake[1]);
  latency_observer.running = false;
  latency_observer.state = new_state;
}

/* Arm the observer for terminal descriptor FD, just found empty at
   T_EMPTY, unless it is armed already; attach FD first if it is new.  */
static void
latency_observer_arm (int fd, uint64_t t_empty)
{
  int slot = -1, free_slot = -1;
  for (int i = 0; i < LATENCY_TTYS; i++)
    {
      /* Relaxed: only the main thread writes fd.  */
      int f = atomic_load_explicit (&latency_observer.fd[i],
				    memory_order_relaxed);
      if (f == fd)
	slot = i;
      else if (f < 0 && free_slot < 0)
	free_slot = i;
    }
  if (slot >= 0)
    {
      /* Relaxed: the observer changes only an ARMED word, which this
	 leaves alone.  */
      uint_least64_t w = atomic_load_explicit (&latency_observer.word[slot],
					       memory_order_relaxed);
      if ((w & LATENCY_OBS_STATE) != LATENCY_OBS_ARMED)
	{
	  /* A FIRED word not taken (no read since) is dropped: its
	     bytes, if any, were not there for this drain.  Release:
	     pairs with the observer's acquire load of the word.  */
	  atomic_store_explicit (&latency_observer.word[slot],
				 latency_obs_next (w, LATENCY_OBS_ARMED),
				 memory_order_release);
	  latency_observer_wake ();
	}
    }
  else if (free_slot >= 0)
    {
      /* Relaxed: published by the release store of fd, which the
	 observer loads first.  */
      uint_least64_t w
	= atomic_load_explicit (&latency_observer.word[free_slot],
				memory_order_relaxed);
      atomic_store_explicit (&latency_observer.word[free_slot],
			     latency_obs_next (w, LATENCY_OBS_ARMED),
			     memory_order_relaxed);
      atomic_store_explicit (&latency_observer.fd[free_slot], fd,
			     memory_order_release);
      latency_observer_wake ();
    }

  /* The gate, checked at most once a second.  */
  if (t_empty - latency_observer.t_checked >= 1000000000)
    {
      latency_observer.t_checked = t_empty;
      uint64_t wall = t_empty - latency_observer.t_start;
      if (latency_observer_cpu () > LATENCY_OBSERVER_GATE * wall)
	latency_observer_stop (LATENCY_OBSERVER_GATED);
    }
}

/* Note that the main thread read bytes from descriptor FD: the
   observer's readable observation of FD since it was armed, or 0; FD is
   not watched again until a drain finds it empty.  */
static uint64_t
latency_observer_take (int fd)
{
  for (int i = 0; i < LATENCY_TTYS; i++)
    /* Relaxed: only the main thread writes fd.  */
    if (atomic_load_explicit (&latency_observer.fd[i], memory_order_relaxed)
	== fd)
      {
	/* Relaxed load: only the main thread changes the generation.
	   Acquire exchange: pairs with the observer's release CAS,
	   made after its store of t_ready.  */
	uint_least64_t w
	  = atomic_load_explicit (&latency_observer.word[i],
				  memory_order_relaxed);
	w = atomic_exchange_explicit (&latency_observer.word[i],
				      latency_obs_next (w, LATENCY_OBS_IDLE),
				      memory_order_acquire);
	return ((w & LATENCY_OBS_STATE) == LATENCY_OBS_FIRED
		? atomic_load_explicit (&latency_observer.t_ready[i],
					memory_order_relaxed)
		: 0);
      }
  return 0;
}

/* Note that terminal descriptor FD is about to be closed or replaced:
   it is no longer known empty (a terminal that reuses the number starts
   unknown, and the slot is free for it); detach it from the observer,
   and wait until the observer no longer polls it.  */
void
latency_tty_detach (int fd)
{
  int slot = latency_empty_slot (fd);
  if (slot >= 0)
    latency_empty_used &= ~(1u << slot);
  if (!latency_observer.running)
    return;
  bool found = false;
  for (int i = 0; i < LATENCY_TTYS; i++)
    /* Relaxed: only the main thread writes fd.  */
    if (atomic_load_explicit (&latency_observer.fd[i], memory_order_relaxed)
	== fd)
      {
	/* Relaxed: published by the release increment below.  */
	atomic_store_explicit (&latency_observer.fd[i], -1,
			       memory_order_relaxed);
	found = true;
      }
  if (!found)
    return;
  /* Release: pairs with the observer's acquire load of the request.  */
  uint_least64_t request
    = atomic_fetch_add_explicit (&latency_observer.detach_request, 1,
				 memory_order_release) + 1;
  latency_observer_wake ();
  /* Acquire: pairs with the observer's release store of detach_done.
     The observer answers within one wake-up; after a second, give up
     on it rather than on the terminal.  */
  for (int n = 0; n < 10000; n++)
    {
      if (atomic_load_explicit (&latency_observer.detach_done,
				memory_order_acquire) >= request)
	return;
      struct timespec ms = { 0, 100000 };
      nanosleep (&ms, NULL);
    }
  latency_observer_stop (LATENCY_OBSERVER_UNAVAILABLE);
}

/* ------------------------------------------------------------------ */
/* Terminal input probes.  */

/* Note that terminal descriptor FD had no bytes to read at NOW; a time
   older than the one known changes nothing.  */
static void
latency_tty_empty_at (int fd, uint64_t now)
{
  int i = latency_empty_slot (fd);
  if (i >= 0)
    {
      if (now < latency_empty[i].t_empty)
	return;
    }
  else
    {
      /* The first free slot; none: more terminals known empty at once
	 than there are slots, and this one is not noted.  */
      i = 0;
      while (i < LATENCY_TTYS && (latency_empty_used >> i & 1))
	i++;
      if (i < LATENCY_TTYS)
	{
	  latency_empty_used |= 1u << i;
	  latency_empty[i].fd = fd;
	}
    }
  if (i < LATENCY_TTYS)
    {
      latency_empty[i].t_empty = now;
      latency_empty[i].t_ready = 0;
    }
  /* The drain found the descriptor empty: the observer may watch for
     the next byte.  */
  if (latency_observer.running)
    latency_observer_arm (fd, now);
}

/* Note that terminal descriptor FD had no bytes to read.  */
void
latency_tty_known_empty (int fd)
{
  latency_tty_empty_at (fd, emlat_now ());
}

/* When the central poll that is waiting began, and its timeout in
   nanoseconds (UINT64_MAX: none).  */
static _Thread_local uint64_t latency_poll_t0, latency_poll_timeout_ns;

/* Note that the central poll, which watched terminal descriptor FD,
   returned NFDS (>= 0) without reporting it readable: the kernel found
   it empty in its last scan, which came after the poll began, and, when
   the poll timed out (NFDS 0), after its timeout expired.  The known-
   empty time of a drain, without a system call of its own (emlat's
   docs/TTY.md, "Arrival bounds": the same rule as libemlat-tty.so).  */
void
latency_tty_polled_empty (int fd, int nfds)
{
  uint64_t t = latency_poll_t0;
  if (!t)
    return;
  if (nfds == 0 && latency_poll_timeout_ns != UINT64_MAX)
    {
      uint64_t end = t + latency_poll_timeout_ns;
      /* The expiry cannot precede the return: if the clocks say it
	 does, keep the poll's start.  */
      if (end >= t && end <= emlat_now ())
	t = end;
    }
  latency_tty_empty_at (fd, t);
}

/* Note that the main thread's poll (the select of
   wait_reading_process_output) found terminal descriptor FD readable.
   Only the first such observation after the descriptor was found empty
   counts.  */
void
latency_tty_ready (int fd)
{
  int i = latency_empty_slot (fd);
  if (i >= 0 && !latency_empty[i].t_ready)
    latency_empty[i].t_ready = emlat_now ();
}

/* Called from the SIGIO handler, and where Emacs runs that handler
   itself: terminal input is available.  Keeps the first time until a
   read takes it.  Async-signal-safe.  */
void
latency_input_signal (void)
{
  uint_least64_t none = 0;
  /* Relaxed: see latency_sigio_time.  */
  atomic_compare_exchange_strong_explicit (&latency_sigio_time, &none,
					   emlat_now (),
					   memory_order_relaxed,
					   memory_order_relaxed);
}

/* Note that a read of terminal descriptor FD that began at T_BEGIN
   returned NREAD.  Records the batch before any byte is stored, since
   storing a byte can leave tty_read_avail_input nonlocally.  */
void
latency_tty_read (int fd, uint64_t t_begin, ptrdiff_t nread)
{
  uint64_t t_end = emlat_now ();
  latency_store_batch_pending = 0;
  if (nread <= 0)
    return;
  /* Taken at every read that took bytes, so that an observation made
     before it is never left for the next batch.  */
  uint64_t observed = (latency_observer.running
		       ? latency_observer_take (fd) : 0);
  if (!t_begin)
    return;

  struct emlat_input_batch b = { 0 };
  b.batch_id = emlat_input_batch_id ();
  if (!b.batch_id)
    return;
  b.mask = EMLAT_IB_READ_BEGIN | EMLAT_IB_READ_END | EMLAT_IB_BYTES;
  b.t_read_begin = t_begin;
  b.t_read_end = t_end;
  b.bytes = nread;
  /* Relaxed: see latency_sigio_time.  */
  uint64_t t_signal = atomic_exchange_explicit (&latency_sigio_time, 0,
						memory_order_relaxed);
  int i = latency_empty_slot (fd);
  if (i >= 0)
    {
      /* The bytes arrived after the descriptor was last seen empty.
	 Once read, it is no longer known to be empty.  */
      b.mask |= EMLAT_IB_KNOWN_EMPTY;
      b.t_known_empty = latency_empty[i].t_empty;
      latency_empty_used &= ~(1u << i);
      /* The first readable observation since then: by the observer
	 thread, the main thread's poll or SIGIO, whichever came
	 first and before the read.  */
      uint64_t ready = latency_empty[i].t_ready;
      if (t_signal >= b.t_known_empty && t_signal <= t_begin
	  && (!ready || t_signal < ready))
	ready = t_signal;
      b.ready_quality = EMLAT_Q_MAIN_POLL_READY;
      if (observed >= b.t_known_empty && observed <= t_begin
	  && (!ready || observed < ready))
	{
	  ready = observed;
	  b.ready_quality = EMLAT_Q_OBSERVER_READY;
	}
      if (ready)
	{
	  b.mask |= EMLAT_IB_FIRST_READY;
	  b.t_first_ready = ready;
	}
    }
  emlat_input_batch (&b);

  struct latency_batch *kept = &latency_batches[b.batch_id % LATENCY_BATCHES];
  kept->id = b.batch_id;
  kept->t_known_empty = (b.mask & EMLAT_IB_KNOWN_EMPTY) ? b.t_known_empty : 0;
  kept->t_ready = (b.mask & EMLAT_IB_FIRST_READY) ? b.t_first_ready : 0;
  kept->ready_quality = b.ready_quality;
  kept->t_read_begin = t_begin;
  kept->t_read_end = t_end;
  latency_store_batch_pending = b.batch_id;
}

/* Note that byte OFFSET of the batch just read is about to be stored
   in the input queue, or, if OFFSET is negative, that the bytes of the
   batch have all been stored.  */
void
latency_tty_byte (ptrdiff_t offset)
{
  latency_store_batch = offset >= 0 ? latency_store_batch_pending : 0;
  latency_store_offset = offset;
}

/* Note that an event was stored in slot SLOT of kbd_buffer, whose
   oldest event is in slot FETCH.  The byte announced by
   latency_tty_byte, if any, is its provenance; the announcement is used
   at most once.  kbd_buffer has LATENCY_QUEUE slots.  */
void
latency_queue_insert (ptrdiff_t slot, ptrdiff_t fetch)
{
  if (slot < 0 || slot >= LATENCY_QUEUE)
    return;
  latency_slots[slot].batch = latency_store_batch;
  latency_slots[slot].offset = latency_store_offset;
  latency_slots[slot].inserted = emlat_now ();
  latency_slots[slot].depth = latency_queue_span (fetch, slot) + 1;
  latency_store_batch = 0;
}

/* Note that the keystroke in slot SLOT of kbd_buffer was removed from
   the queue, whose next free slot is STORE.  Its byte joins the event
   being decoded.  */
void
latency_queue_remove (ptrdiff_t slot, ptrdiff_t store)
{
  if (slot < 0 || slot >= LATENCY_QUEUE)
    return;
  if (!latency_slots[slot].batch)
    {
      /* Not from terminal bytes: kept for a root that dispatches it,
	 such as a file notification.  */
      latency_event_t_insert = latency_slots[slot].inserted;
      latency_event_t_remove = latency_event_t_insert ? emlat_now () : 0;
      return;
    }
  uint64_t batch = latency_slots[slot].batch;
  uint32_t offset = latency_slots[slot].offset;
  struct latency_source *ev = &latency_pending_event;
  if (ev->batch == batch && ev->end == offset)
    ev->end = offset + 1;
  else
    {
      ev->batch = batch;
      ev->begin = offset;
      ev->end = offset + 1;
    }
  ev->t_insert = latency_slots[slot].inserted;
  ev->t_remove = emlat_now ();
  ev->depth_insert = latency_slots[slot].depth;
  ev->depth_remove = latency_queue_span (slot, store);
  latency_slots[slot].batch = 0;
}

/* True when the first event of the key sequence being read has no
   known physical source, so that no later event can stand for it.  */
static bool latency_first_lost;

/* Note that the key sequence being read got an event from source SRC,
   physical, or, if SRC is NULL, of unknown provenance.  */
static void
latency_note_event (const struct latency_source *src)
{
  if (!src)
    {
      /* Explicitly lost: an unknown event is never decisive, and a
	 sequence that begins with one has no first source.  */
      if (!latency_sequence_events)
	latency_first_lost = true;
      memset (&latency_decisive_event, 0, sizeof latency_decisive_event);
    }
  else
    {
      if (!latency_first_event.batch && !latency_first_event.t_signal
	  && !latency_first_lost)
	latency_first_event = *src;
      latency_decisive_event = *src;
    }
  latency_sequence_events++;
}

/* Note that read_char got the complete event EVENT from the input
   queue: the bytes removed since the last event are its source.  */
void
latency_event_read (Lisp_Object event)
{
  if (latency_pending_event.batch)
    {
      latency_note_event (&latency_pending_event);
      latency_recent[latency_recent_next].event = event;
      latency_recent[latency_recent_next].generation = latency_generation;
      latency_recent[latency_recent_next].source = latency_pending_event;
      latency_recent_next = (latency_recent_next + 1) % LATENCY_RECENT;
    }
  else
    latency_sequence_events++;
  memset (&latency_pending_event, 0, sizeof latency_pending_event);
}

/* Note that read_char took EVENT from `unread-command-events'.  If it
   is an event recently read from terminal bytes and put back (by
   `sit-for', say), it keeps its source; otherwise its provenance is
   unknown and the key sequence it ends is synthetic.  */
void
latency_event_reread (Lisp_Object event)
{
  for (int k = 1; k <= LATENCY_RECENT; k++)
    {
      int j = (latency_recent_next - k + LATENCY_RECENT) % LATENCY_RECENT;
      if (latency_recent[j].source.batch
	  && latency_recent[j].generation >= latency_generation - 1
	  && EQ (latency_recent[j].event, event))
	{
	  latency_note_event (&latency_recent[j].source);
	  latency_recent[j].source.batch = 0;
	  return;
	}
    }
  latency_note_event (NULL);
}

static void
latency_forget_sequence (void)
{
  memset (&latency_first_event, 0, sizeof latency_first_event);
  memset (&latency_decisive_event, 0, sizeof latency_decisive_event);
  latency_sequence_events = 0;
  latency_first_lost = false;
}

/* Note that read_key_sequence begins to read a key sequence: events
   read before, by a command for instance, are not part of it.  */
void
latency_key_sequence_begin (void)
{
  latency_forget_sequence ();
}

/* The kept batch with id ID, or NULL when it has been overwritten.  */
static struct latency_batch *
latency_batch (uint64_t id)
{
  struct latency_batch *b = &latency_batches[id % LATENCY_BATCHES];
  return b->id == id ? b : NULL;
}

/* Record in interaction IX the arrival bounds of the event SRC read
   in batch B, as the time fields EARLIEST and LATEST.  The bytes
   arrived after the descriptor was last seen empty, if it was, and
   were in the kernel no later than the end of the read that returned
   them.  The first readable observation is a tighter upper bound, but
   only for the first byte after an empty state (DESIGN.md section 2.4): when
   the event is that one byte alone.  */
static void
latency_arrival (struct latency_interaction *ix,
		 const struct latency_batch *b,
		 const struct latency_source *src,
		 enum emlat_time_field earliest, enum emlat_time_field latest)
{
  if (b->t_known_empty)
    latency_ix_time (ix, earliest, b->t_known_empty);
  if (b->t_known_empty && b->t_ready && src->begin == 0 && src->end == 1)
    latency_ix_time_q (ix, latest, b->t_ready, b->ready_quality);
  else
    latency_ix_time (ix, latest, b->t_read_end);
}

/* Record the source and the input arrival bounds of interaction
   IX.  */
static void
latency_record_sources (struct latency_interaction *ix)
{
  struct latency_source *first = &latency_first_event;
  struct latency_source *last = &latency_decisive_event;
  if (!last->batch && !last->t_signal)
    return;

  if (last->t_signal)
    /* C-g by SIGINT: its byte never reached the input queue, and it
       arrived no later than the signal handler ran.  */
    latency_ix_time_q (ix, EMLAT_T_INPUT_LATEST, last->t_signal,
		       EMLAT_Q_INTERNAL);
  else
    {
      latency_ix_value (ix, EMLAT_V_DECISIVE_SOURCE_BATCH, last->batch);
      latency_ix_value (ix, EMLAT_V_DECISIVE_SOURCE_BEGIN, last->begin);
      latency_ix_value (ix, EMLAT_V_DECISIVE_SOURCE_END, last->end);
      latency_ix_time (ix, EMLAT_T_QUEUE_INSERT, last->t_insert);
      latency_ix_time (ix, EMLAT_T_QUEUE_REMOVE, last->t_remove);
      latency_ix_count (ix, EMLAT_C_QUEUE_DEPTH_INSERT, last->depth_insert);
      latency_ix_count (ix, EMLAT_C_QUEUE_DEPTH_REMOVE, last->depth_remove);
      struct latency_batch *b = latency_batch (last->batch);
      if (b)
	{
	  latency_ix_time (ix, EMLAT_T_READ_BEGIN, b->t_read_begin);
	  latency_ix_time (ix, EMLAT_T_READ_END, b->t_read_end);
	  if (b->t_ready)
	    latency_ix_time_q (ix, EMLAT_T_INPUT_READY, b->t_ready,
			       b->ready_quality);
	  latency_arrival (ix, b, last, EMLAT_T_INPUT_EARLIEST,
			   EMLAT_T_INPUT_LATEST);
	}
    }

  /* The first event is recorded only when it is not the decisive one:
     a key sequence of one event has no prefix.  */
  if (first->batch == last->batch && first->begin == last->begin
      && first->t_signal == last->t_signal)
    return;
  if (first->t_signal)
    latency_ix_time_q (ix, EMLAT_T_FIRST_INPUT_LATEST, first->t_signal,
		       EMLAT_Q_INTERNAL);
  else if (first->batch)
    {
      latency_ix_value (ix, EMLAT_V_FIRST_SOURCE_BATCH, first->batch);
      latency_ix_value (ix, EMLAT_V_FIRST_SOURCE_BEGIN, first->begin);
      latency_ix_value (ix, EMLAT_V_FIRST_SOURCE_END, first->end);
      struct latency_batch *fb = latency_batch (first->batch);
      if (fb)
	latency_arrival (ix, fb, first, EMLAT_T_FIRST_INPUT_EARLIEST,
			 EMLAT_T_FIRST_INPUT_LATEST);
    }
}

/* ------------------------------------------------------------------ */
/* Command-loop probes.  */

/* The rows of text of window W: window_internal_height (W), its lines
   less its mode, header and tab lines.  For a leaf window that is
   neither a minibuffer nor a pseudo window and has no window
   parameters, which is the window a key is typed in, computed here
   from the buffer's formats and the window's height: what
   window_wants_mode_line, window_wants_header_line and
   window_wants_tab_line then decide, without their three look-ups of a
   window parameter and their repeated tests (tests/emacs/
   test_emacs_windows.sh compares the two).  Any other window:
   window_internal_height.  */
static int
latency_window_rows (struct window *w)
{
  if (!NILP (w->window_parameters) || !WINDOW_LEAF_P (w)
      || MINI_WINDOW_P (w) || WINDOW_PSEUDO_P (w))
    return window_internal_height (w);
  struct buffer *b = XBUFFER (WINDOW_BUFFER (w));
  int height = WINDOW_PIXEL_HEIGHT (w);
  int line = WINDOW_FRAME_LINE_HEIGHT (w);
  /* The mode line prevails over the header line, and both over the
     tab line, when the window is too low for all.  */
  int lines = !NILP (BVAR (b, mode_line_format)) && height > line;
  lines += (!NILP (BVAR (b, header_line_format))
	    && height > (lines + 1) * line);
  lines += (!NILP (BVAR (b, tab_line_format))
	    && height > (lines + 1) * line);
  return w->total_lines - lines;
}

/* Begin the interaction of a key sequence of NKEYS keys just read by
   the command loop.  Return its serial number, or 0.  */
intmax_t
latency_key_sequence_done (int nkeys)
{
  uint64_t now = emlat_now ();

  /* Interactions whose redisplay decision never came (keyboard macros,
     unread events) end here, without output.  */
  while (latency_depth > 0 && latency_top ()->phase == LATENCY_FINISHED)
    latency_pop ();
  if (latency_depth == LATENCY_DEPTH)
    {
      latency_forget_sequence ();
      return 0;
    }

  uint64_t parent = latency_serving_cause ();
  bool physical = (latency_decisive_event.batch != 0
		   || latency_decisive_event.t_signal != 0);
  latency_generation++;
  /* A C-g that arrives from now on is typed during this command.
     Relaxed: see latency_sigint_time.  */
  atomic_store_explicit (&latency_sigint_time, 0, memory_order_relaxed);
  enum emlat_root_kind kind = (physical && NILP (Vexecuting_kbd_macro)
			       ? EMLAT_ROOT_TTY_COMMAND
			       : EMLAT_ROOT_SYNTHETIC_COMMAND);
  uint64_t cause = emlat_ix_begin (kind, parent, 0);
  if (!cause)
    {
      latency_forget_sequence ();
      return 0;
    }
  struct latency_interaction *ix = latency_push (cause, LATENCY_DISPATCHED);
  latency_ix_time (ix, EMLAT_T_KEY_DECODE_DONE, now);
  latency_ix_cpu_begin (ix);
  latency_ix_count (ix, EMLAT_C_KEY_SEQUENCE_LENGTH, nkeys);
  latency_ix_count (ix, EMLAT_C_PREFIX_DEPTH, nkeys > 0 ? nkeys - 1 : 0);
  latency_ix_count (ix, EMLAT_C_DECODED_EVENTS, latency_sequence_events);
  if (kind == EMLAT_ROOT_TTY_COMMAND)
    latency_record_sources (ix);
  latency_forget_sequence ();

  struct frame *f = SELECTED_FRAME ();
  if (FRAME_LIVE_P (f))
    {
      latency_ix_count (ix, EMLAT_C_WINDOW_ROWS,
			latency_window_rows (XWINDOW (selected_window)));
      latency_ix_count (ix, EMLAT_C_WINDOW_COLS,
			window_body_width (XWINDOW (selected_window), false));
      latency_ix_value (ix, EMLAT_V_TERMINAL_ID, FRAME_TERMINAL (f)->id);
    }
  return ix->serial;
}

/* Set the time field that ends the phase IX is in, if it has one, to
   T.  */
static void
latency_phase_ended (struct latency_interaction *ix, uint64_t t)
{
  if (ix->phase == LATENCY_PRE_COMMAND)
    latency_ix_time (ix, EMLAT_T_PRE_COMMAND_END, t);
  else if (ix->phase == LATENCY_COMMAND)
    latency_ix_time (ix, EMLAT_T_COMMAND_END, t);
  else if (ix->phase == LATENCY_POST_COMMAND)
    latency_ix_time (ix, EMLAT_T_POST_COMMAND_END, t);
}

/* The detail of the span of the phase IX is in: the command's name for
   the command (0 unless names are recorded), else 0.  */
static uint64_t
latency_phase_detail (struct latency_interaction *ix)
{
  return ix->phase == LATENCY_COMMAND ? ix->name : 0;
}

/* Move interaction SERIAL from the phase it is in to phase PHASE, whose
   span is of kind KIND and whose begin is time field T_BEGIN, at one
   instant: one clock read is the end of the phase left (its span's, with
   status ok, and its time field's) and the begin of PHASE (its span's and
   T_BEGIN).  The command loop moves from one phase to the next without
   work in between.  */
static void
latency_enter_phase (intmax_t serial, enum latency_phase phase,
		     enum emlat_span_kind kind, enum emlat_time_field t_begin)
{
  int i = latency_find (serial);
  if (i < 0)
    return;
  latency_pop_above (i);
  struct latency_interaction *ix = &latency_stack[i];
  uint64_t t;
  if (ix->span)
    ix->span = emlat_span_switch (ix->span, EMLAT_SPAN_OK,
				  latency_phase_detail (ix), kind, ix->cause,
				  &t);
  else
    ix->span = emlat_span_begin_timed (kind, ix->cause, &t);
  latency_phase_ended (ix, t);
  ix->phase = phase;
  latency_ix_time (ix, t_begin, t);
}

/* The pre-command hooks of interaction SERIAL begin.  */
void
latency_pre_command (intmax_t serial)
{
  latency_enter_phase (serial, LATENCY_PRE_COMMAND, EMLAT_SPAN_PRE_COMMAND,
		       EMLAT_T_PRE_COMMAND_BEGIN);
}

/* The pre-command hooks of interaction SERIAL ended; its command
   begins.  */
void
latency_command (intmax_t serial)
{
  /* The command is named by `real-this-command', the command the
     command loop calls (after remapping); nil runs `undefined'.  */
  if (latency_naming)
    {
      int i = latency_find (serial);
      if (i >= 0)
	latency_stack[i].name
	  = latency_name_of_function (NILP (Vreal_this_command)
				      ? Qundefined : Vreal_this_command);
    }
  latency_enter_phase (serial, LATENCY_COMMAND, EMLAT_SPAN_COMMAND,
		       EMLAT_T_COMMAND_BEGIN);
  /* Events that the command reads itself are not part of the next key
     sequence.  */
  latency_forget_sequence ();
}

/* The command of interaction SERIAL ended; its post-command hooks
   begin.  */
void
latency_post_command (intmax_t serial)
{
  latency_enter_phase (serial, LATENCY_POST_COMMAND, EMLAT_SPAN_POST_COMMAND,
		       EMLAT_T_POST_COMMAND_BEGIN);
}

/* End the phase interaction IX is in, whose span ends with status
   SPAN_STATUS, and its root work, at one instant.  */
static void
latency_leave_phase (struct latency_interaction *ix,
		     enum emlat_span_status span_status)
{
  uint64_t t = (ix->span
		? emlat_span_end_timed (ix->span, span_status,
					latency_phase_detail (ix))
		: emlat_now ());
  ix->span = 0;
  latency_phase_ended (ix, t);
  ix->phase = LATENCY_FINISHED;
  latency_output_settled = false;
  latency_ix_time (ix, EMLAT_T_ROOT_WORK_END, t);
}

/* Note that the post-command hooks of interaction SERIAL ended, and
   with them the command loop's work for it; it now awaits its
   redisplay.  */
void
latency_command_finished (intmax_t serial)
{
  int i = latency_find (serial);
  if (i < 0)
    return;
  latency_pop_above (i);
  struct latency_interaction *ix = &latency_stack[i];
  if (ix->phase != LATENCY_FINISHED)
    latency_leave_phase (ix, EMLAT_SPAN_OK);
}

/* Unwind function of the command loop: interaction SERIAL left the
   command loop by a nonlocal exit unless it is already finished.  Its
   status is `throw' until cmd_error says it was an error or a quit.  */
void
latency_command_unwind (intmax_t serial)
{
  int i = latency_find (serial);
  if (i < 0)
    return;
  latency_pop_above (i);
  struct latency_interaction *ix = &latency_stack[i];
  if (ix->phase == LATENCY_FINISHED)
    return;
  latency_leave_phase (ix, EMLAT_SPAN_THROW);
  ix->nonlocal = true;
  ix->status = EMLAT_STATUS_THROW;
}

/* Note that the command loop caught an error: a quit if QUIT.  It
   refines the status of the interaction that just left nonlocally.  */
void
latency_command_error (bool quit)
{
  struct latency_interaction *ix = latency_top ();
  if (ix && ix->nonlocal && ix->status == EMLAT_STATUS_THROW)
    ix->status = quit ? EMLAT_STATUS_QUIT : EMLAT_STATUS_ERROR;
  if (!quit)
    return;

  /* A C-g typed on the controlling terminal while the command ran (a
     signal stored since its key sequence was read) quit it.  The C-g
     is then an interaction of its own, whose work was the quit and
     whose output ("Quit") the following redisplay shows: the command
     it ended is finished now, without output.  Relaxed: see
     latency_sigint_time.  */
  uint64_t t = atomic_exchange_explicit (&latency_sigint_time, 0,
					 memory_order_relaxed);
  if (!t || !ix || ix->status != EMLAT_STATUS_QUIT
      || ix->phase != LATENCY_FINISHED || ix->owner)
    return;
  latency_pop ();
  if (latency_depth == LATENCY_DEPTH)
    return;
  uint64_t cause = emlat_ix_begin (EMLAT_ROOT_TTY_COMMAND,
				   latency_serving_cause (), 0);
  if (!cause)
    return;
  ix = latency_push (cause, LATENCY_FINISHED);
  latency_ix_time_q (ix, EMLAT_T_INPUT_LATEST, t, EMLAT_Q_INTERNAL);
  latency_ix_cpu_begin (ix);
  latency_ix_count (ix, EMLAT_C_KEY_SEQUENCE_LENGTH, 1);
  latency_ix_mark (ix, EMLAT_T_ROOT_WORK_END);
}

/* ------------------------------------------------------------------ */
/* Roots other than key sequences.  */

/* Begin the work of a root of kind KIND and push its interaction;
   return it, or NULL.  A root that begins while another interaction is
   open is nested in it: its parent is that interaction if it is still
   working (not awaiting its redisplay), and it ends with its own work.
   A root that begins while nothing is open owns the redisplay done
   before the event loop waits again (DESIGN.md section 3.5).  An idle root
   that finished before any redisplay began leaves that redisplay to
   this one: one redisplay then shows the work of both.  */
static struct latency_interaction *
latency_root_push (enum emlat_root_kind kind, uint64_t scheduled_by)
{
  struct latency_interaction *top = latency_top ();
  if (top && top->owner && top->phase == LATENCY_FINISHED
      && !top->have_redisplay)
    {
      latency_pop ();
      top = latency_top ();
    }
  if (latency_depth == LATENCY_DEPTH)
    return NULL;
  uint64_t parent = (top && top->phase != LATENCY_FINISHED
		     ? top->cause : 0);
  uint64_t cause = emlat_ix_begin (kind, parent, scheduled_by);
  if (!cause)
    return NULL;
  struct latency_interaction *ix = latency_push (cause, LATENCY_ROOT_WORK);
  ix->owner = !top;
  latency_ix_cpu_begin (ix);
  return ix;
}

/* Note that OBJECT, a timer just activated or a process just made,
   will run work later on behalf of the interaction served now.  */
void
latency_note_scheduled (Lisp_Object object)
{
  latency_scheduled[latency_scheduled_next].object = object;
  latency_scheduled[latency_scheduled_next].cause = latency_serving_cause ();
  latency_scheduled[latency_scheduled_next].used = true;
  latency_scheduled_next = (latency_scheduled_next + 1) % LATENCY_SCHEDULED;
}

/* The interaction that scheduled the work of OBJECT, or 0.  */
static uint64_t
latency_scheduled_by (Lisp_Object object)
{
  for (int k = 1; k <= LATENCY_SCHEDULED; k++)
    {
      int j = ((latency_scheduled_next - k + LATENCY_SCHEDULED)
	       % LATENCY_SCHEDULED);
      if (latency_scheduled[j].used
	  && EQ (latency_scheduled[j].object, object))
	return latency_scheduled[j].cause;
    }
  return 0;
}

/* Begin the work of TIMER, which became due LATE ago.  Return the
   serial number of its interaction, or 0.  The due time is inferred
   from the timer's own (real-time) clock and is both arrival bounds.  */
intmax_t
latency_timer_begin (Lisp_Object timer, struct timespec late)
{
  struct latency_interaction *ix
    = latency_root_push (EMLAT_ROOT_TIMER, latency_scheduled_by (timer));
  if (!ix)
    return 0;
  /* Under the names policy, a timer span names the timer's function
     (slot 5 of the timer vector, `timer--function').  */
  if (latency_naming && VECTORP (timer) && ASIZE (timer) > 5)
    {
      ix->name = latency_name_of_function (AREF (timer, 5));
      ix->name_span = emlat_span_begin (EMLAT_SPAN_TIMER, ix->cause);
    }
  uint64_t now = emlat_now ();
  if (late.tv_sec >= 0 && late.tv_sec < 1000000)
    {
      uint64_t late_ns = late.tv_sec * (uint64_t) 1000000000 + late.tv_nsec;
      if (late_ns < now)
	{
	  latency_ix_time_q (ix, EMLAT_T_INPUT_EARLIEST, now - late_ns,
			     EMLAT_Q_INFERRED);
	  latency_ix_time_q (ix, EMLAT_T_INPUT_LATEST, now - late_ns,
			     EMLAT_Q_INFERRED);
	}
    }
  return ix->serial;
}

/* Note that a read of process output that began at T_BEGIN returned
   NBYTES.  */
void
latency_process_read (uint64_t t_begin, ptrdiff_t nbytes)
{
  latency_process_t_begin = t_begin;
  latency_process_t_end = t_begin && nbytes > 0 ? emlat_now () : 0;
  latency_process_bytes = nbytes;
}

/* Begin the filter of process PROC with the output just read, or, if
   SENTINEL, its sentinel.  Return the serial number of its
   interaction, or 0.  The output was in the pipe no later than the end
   of its read.  */
intmax_t
latency_process_begin (Lisp_Object proc, bool sentinel)
{
  struct latency_interaction *ix
    = latency_root_push ((sentinel ? EMLAT_ROOT_PROCESS_SENTINEL
			  : EMLAT_ROOT_PROCESS_DATA),
			 latency_scheduled_by (proc));
  /* Under the names policy, a filter or sentinel span names the
     process.  */
  if (ix && latency_naming && PROCESSP (proc))
    {
      ix->name = latency_name_of_string (XPROCESS (proc)->name);
      ix->name_span = emlat_span_begin ((sentinel
					 ? EMLAT_SPAN_PROCESS_SENTINEL
					 : EMLAT_SPAN_PROCESS_FILTER),
					ix->cause);
    }
  if (ix && !sentinel && latency_process_t_end)
    {
      latency_ix_time (ix, EMLAT_T_READ_BEGIN, latency_process_t_begin);
      latency_ix_time (ix, EMLAT_T_READ_END, latency_process_t_end);
      latency_ix_time (ix, EMLAT_T_INPUT_LATEST, latency_process_t_end);
      latency_ix_count (ix, EMLAT_C_READ_BATCH_BYTES, latency_process_bytes);
    }
  latency_process_t_end = 0;
  return ix ? ix->serial : 0;
}

/* Begin the handler of EVENT, a special event that read_char
   dispatches itself: a file notification, a thread event, or another
   event of `special-event-map'.  Return the serial number of its
   interaction, or 0.  The event became observable when it was queued.  */
intmax_t
latency_special_event_begin (Lisp_Object event)
{
  enum emlat_root_kind kind = EMLAT_ROOT_MAINTENANCE;
#ifdef USE_FILE_NOTIFY
  if (CONSP (event) && EQ (XCAR (event), Qfile_notify))
    kind = EMLAT_ROOT_FILE_NOTIFICATION;
#endif
#ifdef THREADS_ENABLED
  if (CONSP (event) && EQ (XCAR (event), Qthread_event))
    kind = EMLAT_ROOT_THREAD_WAKEUP;
#endif
  struct latency_interaction *ix = latency_root_push (kind, 0);
  if (ix && latency_event_t_remove)
    {
      latency_ix_time (ix, EMLAT_T_QUEUE_INSERT, latency_event_t_insert);
      latency_ix_time (ix, EMLAT_T_QUEUE_REMOVE, latency_event_t_remove);
      latency_ix_time_q (ix, EMLAT_T_INPUT_LATEST, latency_event_t_insert,
			 EMLAT_Q_INTERNAL);
    }
  latency_event_t_insert = latency_event_t_remove = 0;
  return ix ? ix->serial : 0;
}

/* Called from the SIGWINCH handler.  Async-signal-safe.  */
void
latency_resize_signal (void)
{
  /* Relaxed: see latency_sigwinch_time.  */
  atomic_store_explicit (&latency_sigwinch_time, emlat_now (),
			 memory_order_relaxed);
}

/* Begin carrying out a terminal size change.  Return the serial number
   of its interaction, or 0.  A change signalled by SIGWINCH arrived no
   later than its handler ran.  */
intmax_t
latency_resize_begin (void)
{
  struct latency_interaction *ix = latency_root_push (EMLAT_ROOT_RESIZE, 0);
  /* Relaxed: see latency_sigwinch_time.  */
  uint64_t t = atomic_exchange_explicit (&latency_sigwinch_time, 0,
					 memory_order_relaxed);
  if (!ix)
    return 0;
  if (t)
    latency_ix_time_q (ix, EMLAT_T_INPUT_LATEST, t, EMLAT_Q_INTERNAL);
  struct frame *f = SELECTED_FRAME ();
  if (FRAME_LIVE_P (f))
    latency_ix_value (ix, EMLAT_V_TERMINAL_ID, FRAME_TERMINAL (f)->id);
  return ix->serial;
}

/* Note that the work of root SERIAL is done.  A nested root ends here;
   an idle root awaits its redisplay.  */
void
latency_root_end (intmax_t serial)
{
  int i = latency_find (serial);
  if (i < 0)
    return;
  latency_pop_above (i);
  struct latency_interaction *ix = &latency_stack[i];
  if (ix->phase == LATENCY_FINISHED)
    return;
  if (ix->name_span)
    {
      emlat_span_end (ix->name_span,
		      (ix->status == EMLAT_STATUS_ERROR ? EMLAT_SPAN_ERROR
		       : ix->nonlocal ? EMLAT_SPAN_THROW : EMLAT_SPAN_OK),
		      ix->name);
      ix->name_span = 0;
    }
  ix->phase = LATENCY_FINISHED;
  latency_output_settled = false;
  latency_ix_mark (ix, EMLAT_T_ROOT_WORK_END);
  if (!ix->owner)
    {
      latency_pop ();
      return;
    }
  if (latency_redisplay_span && !latency_redisplay_cause)
    {
      /* The root ran inside a redisplay that served nothing (a size
	 change carried out by redisplay): the rest of that redisplay
	 serves the root.  */
      latency_redisplay_cause = ix->cause;
      ix->have_redisplay = true;
      latency_ix_mark (ix, EMLAT_T_REDISPLAY_BEGIN);
      latency_ix_value (ix, EMLAT_V_FIRST_REDISPLAY_ID, latency_redisplay_id);
      latency_ix_value (ix, EMLAT_V_LAST_REDISPLAY_ID, latency_redisplay_id);
      latency_ix_add (ix, EMLAT_C_REDISPLAY_ATTEMPTS, 1);
    }
}

/* Unwind function of a root: root SERIAL left its work by a nonlocal
   exit unless it already ended.  */
void
latency_root_unwind (intmax_t serial)
{
  int i = latency_find (serial);
  if (i < 0 || latency_stack[i].phase == LATENCY_FINISHED)
    return;
  if (latency_stack[i].status == EMLAT_STATUS_NORMAL)
    latency_stack[i].status = EMLAT_STATUS_THROW;
  latency_stack[i].nonlocal = true;
  latency_root_end (serial);
}

/* Note that a process filter or sentinel signaled an error, which its
   caller caught.  */
void
latency_root_error (void)
{
  struct latency_interaction *ix = latency_top ();
  if (ix && ix->phase == LATENCY_ROOT_WORK)
    ix->status = EMLAT_STATUS_ERROR;
}

/* Note read_char's decision about the redisplay that follows a
   command: SUPERSEDED if it was skipped because input was pending.
   The finished interaction awaiting that redisplay ends here.  */
void
latency_redisplay_decided (bool superseded)
{
  struct latency_interaction *ix = latency_top ();
  if (!ix || ix->phase != LATENCY_FINISHED)
    return;
  if (superseded && ix->status == EMLAT_STATUS_NORMAL)
    ix->status = EMLAT_STATUS_SUPERSEDED;
  latency_pop ();
}

/* ------------------------------------------------------------------ */
/* Hook functions, named under the names policy.  */

/* Begin the span of FN, a function the command loop's hooks run
   (safe_run_hooks), named by FN.  Return the span id, or 0.  */
intmax_t
latency_hook_begin (Lisp_Object fn)
{
  if (latency_hook_depth == LATENCY_HOOKS)
    return 0;
  uint64_t name = latency_name_of_function (fn);
  uint64_t span = emlat_span_begin (EMLAT_SPAN_USER, latency_serving_cause ());
  if (!span)
    return 0;
  latency_hooks[latency_hook_depth].span = span;
  latency_hooks[latency_hook_depth].name = name;
  latency_hooks[latency_hook_depth].done = false;
  latency_hook_depth++;
  return span;
}

/* Note that the hook function of span SPAN returned.  */
void
latency_hook_done (intmax_t span)
{
  for (int i = latency_hook_depth - 1; i >= 0; i--)
    if (latency_hooks[i].span == span)
      {
	latency_hooks[i].done = true;
	return;
      }
}

/* Unwind function of a hook function's span SPAN: end it, and the
   spans of hook functions it ran that a nonlocal exit left open.  */
void
latency_hook_unwind (intmax_t span)
{
  for (int i = latency_hook_depth - 1; i >= 0; i--)
    if (latency_hooks[i].span == span)
      {
	while (latency_hook_depth > i)
	  {
	    latency_hook_depth--;
	    emlat_span_end (latency_hooks[latency_hook_depth].span,
			    (latency_hooks[latency_hook_depth].done
			     ? EMLAT_SPAN_OK : EMLAT_SPAN_THROW),
			    latency_hooks[latency_hook_depth].name);
	  }
	return;
      }
}

/* ------------------------------------------------------------------ */
/* Event poll probes.  */

/* The open poll span of this thread.  Lisp threads release the global
   lock inside the poll, so several threads can be polling at once.  */
static _Thread_local uint64_t latency_poll_span;

/* Note that wait_reading_process_output is about to block in select.
   The span serves the innermost open interaction (a command waiting in
   sit-for, say), or nothing when Emacs is idle.  */
void
latency_poll_begin (struct timespec timeout)
{
  /* Emacs waits again: idle roots have had their redisplay.  */
  struct latency_interaction *top;
  while ((top = latency_top ()) && top->owner
	 && top->phase == LATENCY_FINISHED)
    latency_pop ();
  /* What the interactions still open (a command in `sit-for', one that
     reads from the minibuffer) gathered so far goes to the ring now, so
     that a crash while Emacs waits loses none of it.  */
  latency_commit_open ();
  if (latency_poll_span)
    emlat_span_end (latency_poll_span, EMLAT_SPAN_THROW, 0);
  /* The poll begins after its span does (latency_tty_polled_empty
     takes this time as a lower bound): one clock read for both.  */
  uint64_t t0;
  latency_poll_span = emlat_span_begin_timed (EMLAT_SPAN_EVENT_POLL,
					      latency_serving_cause (), &t0);
  latency_poll_timeout_ns
    = (timeout.tv_sec < 0 || timeout.tv_nsec < 0 ? 0
       : timeout.tv_sec >= 1000000000 ? UINT64_MAX
       : (uint64_t) timeout.tv_sec * 1000000000 + timeout.tv_nsec);
  latency_poll_t0 = t0;
}

/* Note that select returned NFDS.  The span's detail is the number of
   ready descriptors, or 0.  */
void
latency_poll_end (int nfds)
{
  if (!latency_poll_span)
    return;
  emlat_span_end (latency_poll_span, EMLAT_SPAN_OK, nfds > 0 ? nfds : 0);
  latency_poll_span = 0;
}

/* Called from the SIGINT handler: C-g was typed on the controlling
   terminal, where it is a signal and never a byte of input.
   Async-signal-safe.  */
void
latency_quit_signal (void)
{
  /* Relaxed: see latency_sigint_time.  */
  atomic_store_explicit (&latency_sigint_time, emlat_now (),
			 memory_order_relaxed);
}

/* Note that a C-g left read_char's wait by a longjmp, skipping the end
   of the poll.  read_char returns C-g as the event that ended the
   wait: a physical event if it came by SIGINT, whose time is then its
   arrival bound, and of unknown provenance otherwise.  */
void
latency_quit_landing (void)
{
  if (latency_poll_span)
    {
      emlat_span_end (latency_poll_span, EMLAT_SPAN_QUIT, 0);
      latency_poll_span = 0;
    }
  /* Relaxed: see latency_sigint_time.  */
  uint64_t t = atomic_exchange_explicit (&latency_sigint_time, 0,
					 memory_order_relaxed);
  struct latency_source src = { .t_signal = t };
  latency_note_event (t ? &src : NULL);
}

/* ------------------------------------------------------------------ */
/* Redisplay and GC probes.  */

void
latency_redisplay_begin (void)
{
  struct latency_interaction *ix = latency_top ();
  uint64_t cause = ix ? ix->cause : 0;
  latency_redisplay_cause = cause;
  latency_redisplay_id++;
  latency_redisplay_updating = false;
  latency_windows_considered = latency_windows_updated = 0;
  latency_rows_generated = latency_glyphs = latency_frames_updated = 0;
  latency_rows_reused = latency_preemptions = 0;
  uint64_t t;
  latency_redisplay_span = emlat_span_begin_timed (EMLAT_SPAN_REDISPLAY,
						   cause, &t);
  if (ix)
    {
      /* Every redisplay serving the cause counts; the time fields
	 describe the redisplay after its root work (the one that shows
	 its result), not one done inside the command, and not one that
	 follows output already flushed (a message shown by the echo
	 area's own update), whose flush they would precede.  */
      if (!ix->have_redisplay && ix->phase == LATENCY_FINISHED
	  && !ix->flushed)
	{
	  /* The span's begin: one clock read.  */
	  latency_ix_time (ix, EMLAT_T_REDISPLAY_BEGIN, t);
	  latency_ix_value (ix, EMLAT_V_FIRST_REDISPLAY_ID,
			    latency_redisplay_id);
	  ix->have_redisplay = true;
	}
      latency_ix_value (ix, EMLAT_V_LAST_REDISPLAY_ID, latency_redisplay_id);
      latency_ix_add (ix, EMLAT_C_REDISPLAY_ATTEMPTS, 1);
    }
}

/* Note that redisplay finished a frame's desired matrix and begins to
   update the terminal.  For the interaction, redisplay ends here: the
   output and its flush are boundaries of their own.  */
void
latency_redisplay_update (void)
{
  struct latency_interaction *ix = latency_top ();
  latency_frames_updated++;
  if (latency_redisplay_span && !latency_redisplay_updating
      && ix && ix->cause == latency_redisplay_cause && ix->have_redisplay)
    {
      latency_ix_mark (ix, EMLAT_T_REDISPLAY_END);
      latency_redisplay_updating = true;
    }
}

void
latency_redisplay_end (void)
{
  if (!latency_redisplay_span)
    return;
  /* The redisplay's work, in ascending order of counter, as
     emlat_span_counts takes it.  */
  enum
  {
    work_mask = (1u << EMLAT_C_REDISPLAY_PREEMPTIONS
		 | 1u << EMLAT_C_FRAMES_UPDATED
		 | 1u << EMLAT_C_WINDOWS_CONSIDERED
		 | 1u << EMLAT_C_WINDOWS_UPDATED
		 | 1u << EMLAT_C_ROWS_GENERATED
		 | 1u << EMLAT_C_ROWS_REUSED
		 | 1u << EMLAT_C_GLYPHS_EMITTED)
  };
  verify (EMLAT_C_REDISPLAY_PREEMPTIONS < EMLAT_C_FRAMES_UPDATED
	  && EMLAT_C_FRAMES_UPDATED < EMLAT_C_WINDOWS_CONSIDERED
	  && EMLAT_C_WINDOWS_CONSIDERED < EMLAT_C_WINDOWS_UPDATED
	  && EMLAT_C_WINDOWS_UPDATED < EMLAT_C_ROWS_GENERATED
	  && EMLAT_C_ROWS_GENERATED < EMLAT_C_ROWS_REUSED
	  && EMLAT_C_ROWS_REUSED < EMLAT_C_GLYPHS_EMITTED);
  uint64_t values[] = {
    latency_preemptions, latency_frames_updated,
    latency_windows_considered, latency_windows_updated,
    latency_rows_generated, latency_rows_reused, latency_glyphs,
  };
  verify (ARRAYELTS (values) == 7);
  /* The counters in one record, which also adds them to the counters of
     the interaction the redisplay served (its cause), if that has not
     ended.  */
  emlat_span_counts_served (latency_redisplay_span, work_mask, values);
  emlat_span_end (latency_redisplay_span, EMLAT_SPAN_OK, 0);
  latency_redisplay_span = 0;
  struct latency_interaction *ix = latency_top ();
  if (!latency_redisplay_updating
      && ix && ix->cause == latency_redisplay_cause && ix->have_redisplay)
    latency_ix_mark (ix, EMLAT_T_REDISPLAY_END);
  latency_redisplay_updating = false;
}

void
latency_gc_begin (void)
{
  latency_gc_t0 = emlat_now ();
  latency_gc_span = emlat_span_begin_cpu (EMLAT_SPAN_GC,
					  latency_serving_cause ());
}

void
latency_gc_end (void)
{
  if (!latency_gc_span)
    return;
  emlat_span_end (latency_gc_span, EMLAT_SPAN_OK, 0);
  latency_gc_span = 0;
  struct latency_interaction *ix = latency_top ();
  if (ix)
    latency_ix_add (ix, EMLAT_C_GC_NS, emlat_now () - latency_gc_t0);
}

/* ------------------------------------------------------------------ */
/* Terminal output probes.  */

/* Note that N bytes were handed to a terminal's stdio stream.  The
   first byte after a completed flush opens a new output epoch.  The
   probe calls it only when latency_output_settled is false (latency.h):
   it is called for every byte of cursor motion, and must stay cheap.  */
void
latency_tty_output (ptrdiff_t n)
{
  if (n <= 0)
    return;
  if (latency_written_epoch == latency_completed_epoch)
    latency_written_epoch++;
  struct latency_interaction *ix = latency_top ();
  if (ix && !ix->have_output && ix->phase == LATENCY_FINISHED)
    {
      /* The first byte of the output that follows the root work.  */
      latency_ix_mark (ix, EMLAT_T_OUTPUT_BEGIN);
      ix->have_output = true;
    }
  if (!latency_pending_bytes)
    {
      latency_pending_t = emlat_now ();
      latency_pending_small = n <= LATENCY_STDIO_SMALL;
    }
  latency_pending_bytes += n;
  /* Bytes are pending in the open epoch and the mark, if any, is made.  */
  latency_output_settled = true;
}

/* Flush STREAM, a terminal's output stream.  A successful flush
   completes the greatest written output epoch.

   The write bounds (FORMAT.md F-66b) of the innermost open interaction,
   the one whose work produced the output, whatever its phase: when
   STREAM still holds every byte handed to it since the last flush, the
   first write(2) of these bytes is inside fflush, so it began after T0
   and ended before T1 (quality flush).  When it holds fewer, stdio
   wrote some when its buffer filled, before T0 and after the call that
   handed the first of these bytes if that call was too small to fill
   the buffer, else after the end of the last flush: the first write
   then lies in that interval (quality inferred).  */
int
latency_tty_flush (FILE *stream)
{
  if (!latency_pending_bytes)
    return fflush (stream);

  struct latency_interaction *ix = latency_top ();
  uint64_t cause = ix ? ix->cause : 0;
  /* The flush time fields describe the output after the root work.  */
  bool final = ix && ix->phase == LATENCY_FINISHED;
  /* T0 and T1 are the flush span's begin and end (one clock read
     each): they enclose fflush.  */
  uint64_t t0;
  uint64_t span = emlat_span_begin_timed (EMLAT_SPAN_TTY_FLUSH, cause, &t0);
  bool wrote_before = __fpending (stream) < latency_pending_bytes;
  int r = fflush (stream);
  if (r == 0)
    {
      emlat_span_count (span, EMLAT_C_TTY_BYTES, latency_pending_bytes);
      uint64_t t1 = emlat_span_end_timed (span, EMLAT_SPAN_OK, 0);
      latency_completed_epoch = latency_written_epoch;
      if (final && !ix->have_output)
	{
	  /* Bytes written before the root work ended, flushed now.  */
	  latency_ix_time (ix, EMLAT_T_OUTPUT_BEGIN, t0);
	  ix->have_output = true;
	}
      if (final || (ix && !ix->flushed && !ix->work_flushed))
	{
	  /* Output after the root work, or, until there is some, the
	     output the root's own work flushed (a timer's `message'):
	     either makes the interaction flushed.  */
	  if (!final)
	    latency_ix_time (ix, EMLAT_T_OUTPUT_BEGIN,
			     latency_pending_t ? latency_pending_t : t0);
	  latency_ix_time (ix, EMLAT_T_OUTPUT_END, t0);
	  latency_ix_time (ix, EMLAT_T_FLUSH_BEGIN, t0);
	  latency_ix_time (ix, EMLAT_T_FLUSH_END, t1);
	  latency_ix_value (ix, EMLAT_V_FINAL_OUTPUT_EPOCH,
			    latency_completed_epoch);
	  if (final)
	    ix->flushed = true;
	  else
	    ix->work_flushed = true;
	}
      if (ix)
	{
	  uint64_t wb = t0, we = t1;
	  enum emlat_quality q = EMLAT_Q_FLUSH;
	  if (wrote_before)
	    {
	      wb = (latency_pending_small && latency_pending_t
		    ? latency_pending_t : latency_flushed_t);
	      we = t0;
	      q = EMLAT_Q_INFERRED;
	    }
	  if (!ix->have_write && wb)
	    {
	      latency_ix_time_q (ix, EMLAT_T_WRITE_FIRST_BEGIN, wb, q);
	      latency_ix_time_q (ix, EMLAT_T_WRITE_FIRST_END, we, q);
	      ix->have_write = true;
	    }
	  latency_ix_time_q (ix, EMLAT_T_WRITE_LAST_BEGIN, t0, EMLAT_Q_FLUSH);
	  latency_ix_time_q (ix, EMLAT_T_WRITE_LAST_END, t1, EMLAT_Q_FLUSH);
	  latency_ix_add (ix, EMLAT_C_TTY_BYTES, latency_pending_bytes);
	  latency_ix_add (ix, EMLAT_C_OUTPUT_EPOCHS, 1);
	}
      latency_pending_bytes = 0;
      latency_output_settled = false;
      latency_flushed_t = t1;
    }
  else
    {
      emlat_span_end (span, EMLAT_SPAN_ERROR, 0);
      if (ix)
	latency_ix_add (ix, EMLAT_C_FLUSH_FAILURES, 1);
    }
  return r;
}

/* ------------------------------------------------------------------ */
/* Session metadata.  */

enum { LATENCY_MAX_META = 32 };

struct latency_meta
{
  struct emlat_meta entry[LATENCY_MAX_META];
  size_t n;
  char text[4096];		/* storage for string values */
  size_t used;
};

static void
meta_uint (struct latency_meta *m, const char *key, uint64_t v)
{
  if (m->n < LATENCY_MAX_META)
    m->entry[m->n++] = (struct emlat_meta) { .key = key,
					      .type = EMLAT_META_UINT,
					      .u = v };
}

/* Add string entry KEY = the LEN bytes at S, copied.  */
static void
meta_str (struct latency_meta *m, const char *key, const char *s, size_t len)
{
  if (m->n >= LATENCY_MAX_META || sizeof m->text - m->used < len)
    return;
  char *copy = m->text + m->used;
  memcpy (copy, s, len);
  m->used += len;
  m->entry[m->n++] = (struct emlat_meta) { .key = key,
					    .type = EMLAT_META_STR,
					    .s = copy, .s_len = len };
}

/* Add the words of the configure options that are options (begin with
   "--") and name no file, so that no local path is recorded.  */
static void
meta_configure_options (struct latency_meta *m)
{
  if (!STRINGP (Vsystem_configuration_options))
    return;
  const char *p = SSDATA (Vsystem_configuration_options);
  char buf[1024];
  size_t n = 0;
  while (*p)
    {
      while (*p == ' ' || *p == '\'')
	p++;
      const char *w = p;
      while (*p && *p != ' ' && *p != '\'')
	p++;
      size_t len = p - w;
      if (len > 2 && w[0] == '-' && w[1] == '-' && !memchr (w, '/', len)
	  && n + len + 1 < sizeof buf)
	{
	  if (n)
	    buf[n++] = ' ';
	  memcpy (buf + n, w, len);
	  n += len;
	}
    }
  meta_str (m, "emacs.configure_options", buf, n);
}

/* Add what is known about the terminal of the selected frame: its type
   and capabilities, never its device name.  */
static void
meta_terminal (struct latency_meta *m)
{
  struct frame *f = SELECTED_FRAME ();
  if (!FRAME_LIVE_P (f) || !FRAME_TERMCAP_P (f))
    {
      meta_str (m, "terminal.kind", "none", 4);
      return;
    }
  struct tty_display_info *tty = FRAME_TTY (f);
  meta_str (m, "terminal.kind", "tty", 3);
  if (tty->type)
    {
      /* A terminal type is a terminfo name; anything else is not
	 recorded.  */
      size_t len = strlen (tty->type);
      bool ok = len > 0 && len <= 64;
      for (size_t i = 0; ok && i < len; i++)
	ok = c_isalnum (tty->type[i]) || strchr ("+-._", tty->type[i]);
      if (ok)
	meta_str (m, "terminal.type", tty->type, len);
    }
  meta_uint (m, "terminal.colors", tty->TN_max_colors);
  meta_uint (m, "terminal.cols", FRAME_COLS (f));
  meta_uint (m, "terminal.rows", FRAME_TOTAL_LINES (f));
  meta_uint (m, "terminal.baud", baud_rate);
  if (tty->input)
    {
      struct stat st;
      int fd = fileno (tty->input);
      /* The initial terminal is opened as /dev/tty (5, 0), which says
	 nothing about the device behind it; standard input does.  */
      if (fstat (fd, &st) == 0 && S_ISCHR (st.st_mode)
	  && major (st.st_rdev) == 5 && minor (st.st_rdev) == 0
	  && isatty (STDIN_FILENO))
	fd = STDIN_FILENO;
      /* Unix98 pseudo-terminal slaves have majors 136 to 143.  */
      if (fstat (fd, &st) == 0 && S_ISCHR (st.st_mode))
	meta_uint (m, "terminal.pty",
		   major (st.st_rdev) >= 136 && major (st.st_rdev) <= 143);
    }
  struct coding_system *coding = TERMINAL_TERMINAL_CODING (FRAME_TERMINAL (f));
  if (coding)
    {
      Lisp_Object base = CODING_ATTR_BASE_NAME (CODING_ID_ATTRS (coding->id));
      meta_uint (m, "terminal.coding_utf8", EQ (base, Qutf_8));
    }
}

/* Collect the SESSION metadata in M.  */
static void
latency_session_meta (struct latency_meta *m)
{
  m->n = m->used = 0;
  meta_str (m, "recorder", "emacs", 5);
  if (STRINGP (Vemacs_version))
    meta_str (m, "emacs.version", SSDATA (Vemacs_version),
	      SBYTES (Vemacs_version));
  Lisp_Object build
    = find_symbol_value (intern_c_string ("emacs-build-number"));
  if (FIXNATP (build))
    meta_uint (m, "emacs.build_number", XFIXNAT (build));
  Lisp_Object revision
    = find_symbol_value (intern_c_string ("emacs-repository-version"));
  if (STRINGP (revision))
    meta_str (m, "emacs.revision", SSDATA (revision), SBYTES (revision));
  char hex[2 * sizeof fingerprint];
  for (int i = 0; i < sizeof fingerprint; i++)
    {
      hex[2 * i] = "0123456789abcdef"[fingerprint[i] >> 4];
      hex[2 * i + 1] = "0123456789abcdef"[fingerprint[i] & 15];
    }
  meta_str (m, "emacs.dump_fingerprint", hex, sizeof hex);
  if (STRINGP (Vsystem_configuration_features))
    meta_str (m, "emacs.configure_features",
	      SSDATA (Vsystem_configuration_features),
	      SBYTES (Vsystem_configuration_features));
  meta_configure_options (m);
  meta_uint (m, "emacs.interactive", !noninteractive);
  meta_uint (m, "gc.cons_threshold", gc_cons_threshold);
  if (FLOATP (Vgc_cons_percentage))
    {
      char buf[32];
      int n = snprintf (buf, sizeof buf, "%g",
			XFLOAT_DATA (Vgc_cons_percentage));
      meta_str (m, "gc.cons_percentage", buf, n);
    }
  /* libemlat adds the clock, OS and CPU identity itself.  */
  meta_terminal (m);
  /* Only whether a remote login variable is set, never its value.  */
  meta_uint (m, "env.ssh_present",
	     getenv ("SSH_CONNECTION") || getenv ("SSH_CLIENT")
	     || getenv ("SSH_TTY"));
  meta_uint (m, "latency.input_observer", latency_profile_input_observer);
  /* The privacy policy, replacing libemlat's "default" (a later entry
     replaces an earlier one): "names" when this session records the
     names of commands, timer and hook functions and processes.  */
  meta_uint (m, "latency.names", latency_profile_names);
  /* Whether interactions read the thread CPU clock, as they began when
     the session started (`latency-profile-thread-cpu').  */
  meta_uint (m, "latency.thread_cpu", latency_profile_thread_cpu);
  /* An interaction's second thread CPU reading is taken when it ends,
     not at its completion boundary (latency_pop).  */
  meta_str (m, "ix.thread_cpu_end_at", "interaction_end", 15);
  if (latency_profile_names)
    meta_str (m, "privacy.policy", "names", 5);
}

/* ------------------------------------------------------------------ */
/* Starting and stopping.  */

/* Start a session writing to PATH, or to a new file in directory DIR
   if PATH is NULL.  FROM_COMMAND_LINE is true for --latency-profile.
   Return 0 or a negative errno value.  */
static int
latency_start (const char *path, const char *dir, bool from_command_line)
{
  static struct latency_meta meta;
  latency_session_meta (&meta);
  struct emlat_options opt = { 0 };
  opt.path = path;
  opt.dir = dir;
  opt.meta = meta.entry;
  opt.n_meta = meta.n;
  /* No writer period: the writer drains only when a ring passes its
     high-water mark (a quarter full), on a flush and at the end, so an
     idle Emacs costs nothing.  Records are safe before that: they live
     in the ring file, which a reader of the profile recovers if Emacs
     dies (emlat's docs/DESIGN.md).  Under a program that finishes the
     profile itself once Emacs exited (EMLAT_FINISH: `emlat replay' and
     `emlat record' set it), Emacs leaves the last records in the ring
     file and pays nothing for them when it stops.  */
  if (emlat_finish_requested ())
    opt.flags |= EMLAT_OPT_DEFER_FINISH;
  /* Under `emlat replay', the driver also drains the rings of the
     session started from the command line while Emacs records, and
     Emacs runs no writer thread for it (emlat's docs/DESIGN.md 8.7).
     The driver drains one session, found by Emacs's process id: a
     later one, started from Lisp, has its own writer.  */
  if (from_command_line && emlat_drain_requested ())
    opt.flags |= EMLAT_OPT_DRIVER_DRAINS;

  /* The writer thread inherits this mask: no signal meant for Emacs
     may be delivered to it.  */
  sigset_t all, old;
  sigfillset (&all);
  pthread_sigmask (SIG_BLOCK, &all, &old);
  int r = emlat_start (&opt);
  pthread_sigmask (SIG_SETMASK, &old, NULL);
  if (r == 0)
    {
      latency_reset ();
      latency_names_start (latency_profile_names);
      latency_observer_start ();
      latency_profiling = true;
      latency_profile__recording = true;
    }
  return r;
}

/* The file of the active session, as a Lisp string, or nil.  */
static Lisp_Object
latency_current_file (void)
{
  struct emlat_status st;
  emlat_status (&st);
  if (!st.active || !st.path[0])
    return Qnil;
  return DECODE_FILE (build_unibyte_string (st.path));
}

/* Start the profile requested by --latency-profile[=FILE]; ARG is
   FILE, or empty.  Called once the initial terminal exists.  Failure
   is reported as a delayed warning, since no command loop runs
   yet.  */
void
latency_start_from_command_line (const char *arg)
{
  if (noninteractive || will_dump_p ())
    return;
  const char *dir = NULL;
  if (!*arg)
    {
      dir = getenv ("TMPDIR");
      if (!dir || !*dir)
	dir = "/tmp";
    }
  int r = latency_start (*arg ? arg : NULL, dir, true);
  if (r < 0)
    {
      AUTO_STRING (format, "Could not start the latency profile: %s");
      Lisp_Object msg = CALLN (Fformat, format,
			       build_string (emacs_strerror (-r)));
      Vdelayed_warnings_list = Fcons (list2 (Qlatency_profile, msg),
				      Vdelayed_warnings_list);
    }
}

/* Stop the session, if any, when Emacs exits normally.  */
void
latency_shut_down (void)
{
  if (!latency_profiling)
    return;
  /* The interactions still open, such as the command that killed
     Emacs, end with Emacs.  */
  while (latency_depth > 0)
    {
      struct latency_interaction *ix = latency_top ();
      if (ix->phase != LATENCY_FINISHED)
	latency_leave_phase (ix, EMLAT_SPAN_OK);
      latency_pop ();
    }
  latency_profiling = false;
  latency_profile__recording = false;
  latency_names_stop ();
  latency_observer_stop (latency_observer.state);
  emlat_stop ();
}

DEFUN ("latency-profile-start", Flatency_profile_start,
       Slatency_profile_start, 0, 2, "i\np",
       doc: /* Start recording a latency profile into FILE.
FILE must not exist; it is created with mode 0600.  If FILE is nil, a
new file named after the date and process is created in
`latency-profile-directory', or in `temporary-file-directory' if that
is nil.  Return the name of the file.

The profile records when terminal input arrived, how long each command
and its hooks ran, which redisplay followed and when its output was
flushed.  It contains no typed text, buffer contents or file names.
It contains no command names either, unless `latency-profile-names' is
non-nil: then it names the command of each key sequence, the function
of each timer, the process of each filter and sentinel and each function
the command loop's hooks run.  Interactively, FILE is nil and
INTERACTIVE non-nil, which shows where the profile goes.  Use
`latency-profile-report' to see the profile while it is recorded and
`latency-profile-stop' to finish it.

usage: (latency-profile-start &optional FILE)  */)
  (Lisp_Object file, Lisp_Object interactive)
{
  if (latency_profiling)
    error ("A latency profile is already being recorded");
  if (will_dump_p ())
    error ("Cannot record a latency profile while dumping");

  int r;
  Lisp_Object target;
  if (!NILP (file))
    {
      CHECK_STRING (file);
      target = Fexpand_file_name (file, Qnil);
      r = latency_start (SSDATA (ENCODE_FILE (target)), NULL, false);
    }
  else
    {
      target = Vlatency_profile_directory;
      if (NILP (target))
	target = Vtemporary_file_directory;
      CHECK_STRING (target);
      target = Fexpand_file_name (target, Qnil);
      r = latency_start (NULL, SSDATA (ENCODE_FILE (target)), false);
    }
  if (r < 0)
    report_file_errno ("Starting latency profile", target, -r);
  Lisp_Object name = latency_current_file ();
  if (!NILP (interactive))
    {
      AUTO_STRING (format, "Recording a latency profile into %s%s");
      AUTO_STRING (with_names, " (with names)");
      AUTO_STRING (without, "");
      CALLN (Fmessage, format, name,
	     latency_naming ? with_names : without);
    }
  return name;
}

DEFUN ("latency-profile-stop", Flatency_profile_stop,
       Slatency_profile_stop, 0, 1, "p",
       doc: /* Stop recording the latency profile and close its file.
Return the name of the file, or nil if no profile was being recorded.
Interactions that are still running, such as the command that called
this function, are left open in the file.  Interactively, INTERACTIVE
is non-nil, which says where the profile is.

usage: (latency-profile-stop)  */)
  (Lisp_Object interactive)
{
  if (!latency_profiling)
    {
      if (!NILP (interactive))
	message1 ("No latency profile is being recorded");
      return Qnil;
    }
  Lisp_Object file = latency_current_file ();
  /* The interactions left open keep the fields they gathered.  */
  latency_commit_open ();
  latency_profiling = false;
  latency_profile__recording = false;
  latency_names_stop ();
  latency_observer_stop (latency_observer.state);
  int r = emlat_stop ();
  if (r < 0 && r != -ENOENT)
    report_file_errno ("Writing latency profile", file, -r);
  if (!NILP (interactive))
    {
      AUTO_STRING (format, "Latency profile written to %s");
      CALLN (Fmessage, format, file);
    }
  return file;
}

DEFUN ("latency-profile-rotate", Flatency_profile_rotate,
       Slatency_profile_rotate, 0, 0, "",
       doc: /* Finish the current latency profile file and continue in a new one.
Return the name of the new file.  Signal an error if no profile is
being recorded.  */)
  (void)
{
  if (!latency_profiling)
    error ("No latency profile is being recorded");
  latency_commit_open ();
  int r = emlat_rotate ();
  if (r < 0)
    report_file_errno ("Rotating latency profile", latency_current_file (),
		       -r);
  return latency_current_file ();
}

DEFUN ("latency--note-scheduled", Flatency__note_scheduled,
       Slatency__note_scheduled, 1, 1, 0,
       doc: /* Note that OBJECT, a timer, will run work later.
The latency profile then names the interaction being served now as the
one that scheduled the timer's run.  Called by `timer--activate' while
`latency-profile--recording' is non-nil.  Return nil.  */)
  (Lisp_Object object)
{
  if (latency_profiling)
    latency_note_scheduled (object);
  return Qnil;
}

DEFUN ("latency-profile-status", Flatency_profile_status,
       Slatency_profile_status, 0, 0, 0,
       doc: /* Return a plist describing the latency profile.
The properties are `:active' (t while recording), `:file' (the current
file, or nil), `:records' (records accepted), `:written' (records in
the file), `:losses' (records lost), `:bytes' (file bytes), `:files'
\(files of the session, counting rotations), `:threads' (recording
threads), `:writer-cpu-ns' (CPU time of the writer thread),
`:clock-read-ns' (cost of one clock reading), `:write-errors',
`:observer' (the state of the input observer thread: `off' when
`latency-profile-input-observer' did not ask for it, `on', `gated' when
it was stopped because it used more than 1% of a CPU, or `unavailable'
when it could not be started or stopped answering) and
`:observer-cpu-ns' (the CPU time of the observer thread) and `:names'
\(t when the session records names: see `latency-profile-names').  The
counters describe the last session when none is active.  */)
  (void)
{
  struct emlat_status st;
  emlat_status (&st);
  Lisp_Object observer = Qoff;
  switch (latency_observer.state)
    {
    case LATENCY_OBSERVER_OFF: observer = Qoff; break;
    case LATENCY_OBSERVER_ON: observer = Qon; break;
    case LATENCY_OBSERVER_GATED: observer = Qgated; break;
    case LATENCY_OBSERVER_UNAVAILABLE: observer = Qunavailable; break;
    }
  Lisp_Object file = (st.active && st.path[0]
		      ? DECODE_FILE (build_unibyte_string (st.path)) : Qnil);
  return list (QCactive, st.active ? Qt : Qnil,
	       QCfile, file,
	       QCrecords, make_uint (st.session_records),
	       QCwritten, make_uint (st.records_written),
	       QClosses, make_uint (st.records_dropped),
	       QCbytes, make_uint (st.bytes_written),
	       QCfiles, make_uint (st.files),
	       QCthreads, make_uint (st.threads),
	       QCwriter_cpu_ns, make_uint (st.writer_cpu_ns),
	       QCclock_read_ns, make_uint (st.clock_read_ns),
	       QCwrite_errors, make_uint (st.write_errors),
	       QCobserver, observer,
	       QCobserver_cpu_ns, make_uint (latency_observer_cpu ()),
	       QCnames, latency_naming ? Qt : Qnil);
}

void
syms_of_latency (void)
{
  DEFSYM (Qlatency_profile, "latency-profile");
  DEFSYM (QCactive, ":active");
  DEFSYM (QCfile, ":file");
  DEFSYM (QCrecords, ":records");
  DEFSYM (QCwritten, ":written");
  DEFSYM (QClosses, ":losses");
  DEFSYM (QCbytes, ":bytes");
  DEFSYM (QCfiles, ":files");
  DEFSYM (QCthreads, ":threads");
  DEFSYM (QCwriter_cpu_ns, ":writer-cpu-ns");
  DEFSYM (QCclock_read_ns, ":clock-read-ns");
  DEFSYM (QCwrite_errors, ":write-errors");
  DEFSYM (QCobserver, ":observer");
  DEFSYM (Qoff, "off");
  DEFSYM (Qon, "on");
  DEFSYM (Qgated, "gated");
  DEFSYM (Qunavailable, "unavailable");
  DEFSYM (QCobserver_cpu_ns, ":observer-cpu-ns");
  DEFSYM (QCnames, ":names");

  DEFVAR_BOOL ("latency-profile-input-observer",
	       latency_profile_input_observer,
	       doc: /* Non-nil means a latency profile watches input from a thread.
A profile started while this is non-nil runs an input observer thread:
it polls each terminal without reading from it and notes when input
first became readable while Emacs was busy, which bounds the arrival of
a key more tightly than the time Emacs read it.  The observer's CPU
time is reported by `latency-profile-status'; it stops itself if it
uses more than 1% of a CPU.  */);
  latency_profile_input_observer = false;

  DEFVAR_BOOL ("latency-profile-names", latency_profile_names,
	       doc: /* Non-nil means a latency profile records the names of its work.
A profile started while this is non-nil (or with the command-line
option `--latency-profile-names') names, by their symbol names, the
command of each key sequence (`real-this-command'), the function of
each timer and each function that the command loop's hooks, such as
`pre-command-hook' and `post-command-hook', run; and the process of
each process filter and sentinel by its name.  A function that is not
a symbol is named "(anonymous)".  Each name is stored once in the
profile, whose privacy policy then says "names".  Names can reveal the
packages and commands you use, which is why the default is nil; the
profile holds no other text either way.  */);
  latency_profile_names = false;

  DEFVAR_BOOL ("latency-profile-thread-cpu", latency_profile_thread_cpu,
	       doc: /* Non-nil means a latency profile records each interaction's CPU time.
While this is non-nil, the main thread's CPU clock is read when an
interaction begins and when it ends, which tells how much of its time
Emacs spent computing and how much it spent off the CPU: waiting for
the system, for other processes, or for a CPU.  Each reading is a
system call, as the kernel serves no thread CPU clock without one:
from a fraction of a microsecond to about 2 with cold caches on a
virtual machine, two per interaction, which can be a few tenths of a
percent of the CPU time of a short command.  With nil
the profile records no CPU time, and its report none of the time off
the CPU.  Changing it affects the interactions that begin afterwards.  */);
  latency_profile_thread_cpu = true;

  DEFVAR_BOOL ("latency-profile--recording", latency_profile__recording,
	       doc: /* Non-nil while a latency profile is being recorded.
Set by `latency-profile-start' and `latency-profile-stop'; do not set it
yourself.  Lisp code that schedules deferred work, such as
`timer--activate', tests it before telling the profile.  */);
  latency_profile__recording = false;

  defsubr (&Slatency__note_scheduled);

  DEFVAR_LISP ("latency-profile-directory", Vlatency_profile_directory,
	       doc: /* Directory for latency profiles started without a file name.
If nil, `temporary-file-directory' is used.  */);
  Vlatency_profile_directory = Qnil;

  defsubr (&Slatency_profile_start);
  defsubr (&Slatency_profile_stop);
  defsubr (&Slatency_profile_rotate);
  defsubr (&Slatency_profile_status);
}
