/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Probes of the interaction-latency profiler.

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

/* Each probe is a test of `latency_profiling' followed by a call, as
   with MALLOC_PROBE: when no profile is being recorded a probe costs
   one load and one branch, and allocates, signals and records
   nothing.  The functions behind the probes are in latency.c.  They
   never call Lisp, never quit and never allocate, except the
   command-loop functions that are documented as doing so.  */

#ifndef EMACS_LATENCY_H
#define EMACS_LATENCY_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "lisp.h"

INLINE_HEADER_BEGIN

/* True while a latency profile is being recorded.  */
extern bool latency_profiling;

/* The profiler clock, in nanoseconds.  */
extern uint64_t latency_now (void);

/* Terminal input (keyboard.c, process.c).  */
extern void latency_tty_known_empty (int);
extern void latency_tty_ready (int);
extern void latency_tty_polled_empty (int, int);
extern void latency_tty_detach (int);
extern void latency_tty_read (int, uint64_t, ptrdiff_t);
extern void latency_tty_byte (ptrdiff_t);
extern void latency_queue_insert (ptrdiff_t, ptrdiff_t);
extern void latency_queue_remove (ptrdiff_t, ptrdiff_t);
extern void latency_key_sequence_begin (void);
extern void latency_event_read (Lisp_Object);
extern void latency_event_reread (Lisp_Object);

/* The command loop (keyboard.c).  */
extern intmax_t latency_key_sequence_done (int);
extern void latency_pre_command (intmax_t);
extern void latency_command (intmax_t);
extern void latency_post_command (intmax_t);
extern void latency_command_finished (intmax_t);
extern void latency_command_unwind (intmax_t);
extern void latency_command_error (bool);
extern void latency_redisplay_decided (bool);

/* Roots other than key sequences: timers and special events
   (keyboard.c), process output and sentinels (process.c), terminal
   resizes (dispnew.c).  */
extern void latency_note_scheduled (Lisp_Object);
extern intmax_t latency_timer_begin (Lisp_Object, struct timespec);
extern void latency_process_read (uint64_t, ptrdiff_t);
extern intmax_t latency_process_begin (Lisp_Object, bool);
extern intmax_t latency_special_event_begin (Lisp_Object);
extern intmax_t latency_resize_begin (void);
extern void latency_root_end (intmax_t);
extern void latency_root_unwind (intmax_t);
extern void latency_root_error (void);

/* Called from signal handlers: they only store the time.  */
extern void latency_input_signal (void);
extern void latency_quit_signal (void);
extern void latency_resize_signal (void);

/* The central event poll (process.c) and C-g while waiting
   (keyboard.c).  */
extern void latency_poll_begin (struct timespec);
extern void latency_poll_end (int);
extern void latency_quit_landing (void);

/* Redisplay and GC (xdisp.c, alloc.c).  */
extern void latency_redisplay_begin (void);
extern void latency_redisplay_end (void);
extern void latency_redisplay_update (void);
extern void latency_gc_begin (void);
extern void latency_gc_end (void);

/* Terminal output (term.c, cm.c, dispnew.c, sysdep.c).  */
extern void latency_tty_output (ptrdiff_t);
extern int latency_tty_flush (FILE *);

/* Session (emacs.c).  */
extern void latency_start_from_command_line (const char *);
extern void latency_shut_down (void);

/* Names, recorded only under the names policy (latencynames.c): true
   while the session records them.  The command loop's hooks name each
   function they run (keyboard.c); the unwind function ends its span
   after a nonlocal exit, or normally once latency_hook_done said so.  */
extern bool latency_naming;
extern void latency_names_start (bool);
extern void latency_names_stop (void);
extern uint64_t latency_name_of_function (Lisp_Object);
extern uint64_t latency_name_of_string (Lisp_Object);
extern intmax_t latency_hook_begin (Lisp_Object);
extern void latency_hook_done (intmax_t);
extern void latency_hook_unwind (intmax_t);

/* Work of the current redisplay: windows considered and not skipped,
   glyph rows produced and their glyphs, frame rows left as they were,
   terminal updates cut short by pending input.  Reset when a redisplay
   begins and reported when it ends.  */
extern intmax_t latency_windows_considered, latency_windows_updated;
extern intmax_t latency_rows_generated, latency_glyphs;
extern intmax_t latency_rows_reused, latency_preemptions;

/* Add N to *COUNTER, one of the work counters above.  A function
   rather than a macro, so that its cost is that of this file for a
   profiler of Emacs itself (emlat's bench/emacs_hooks_ir.sh).  */
INLINE void
latency_count (intmax_t *counter, intmax_t n)
{
  if (latency_profiling)
    *counter += n;
}
#define LATENCY_COUNT(counter, n) latency_count (&(counter), n)

/* Terminal output's fast path (latency.c): while
   `latency_output_settled', N more bytes only add to
   `latency_pending_bytes'.  */
extern bool latency_output_settled;
extern uint64_t latency_pending_bytes;

/* Note that N bytes were handed to the stdio stream of a terminal.  */
INLINE void
latency_note_tty_output (ptrdiff_t n)
{
  if (latency_profiling)
    {
      if (latency_output_settled && n > 0)
	latency_pending_bytes += n;
      else
	latency_tty_output (n);
    }
}
#define LATENCY_TTY_OUTPUT(n) latency_note_tty_output (n)

/* Flush the stdio stream of a terminal; return what fflush returns.
   Every flush of terminal output goes through here, so that a
   profile knows when the bytes of each redisplay left Emacs.  */
INLINE int
tty_fflush (FILE *stream)
{
  return latency_profiling ? latency_tty_flush (stream) : fflush (stream);
}

INLINE_HEADER_END

#endif /* EMACS_LATENCY_H */
