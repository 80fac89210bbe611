/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * emlat_types.h -- the vocabulary shared by the producer API (emlat.h), the
 * reader API (emlat_reader.h) and the file format (docs/FORMAT.md).
 *
 * Every enumerator value below is written to disk.  Values are therefore
 * stable: a value may be added, never renumbered or reused.  docs/FORMAT.md
 * section "Enumerations" repeats these tables and is normative; a test
 * (tests/format/test_format_doc.c) checks that the two agree.
 *
 * Index enums (time fields, value fields, counters) name bit positions in the
 * presence masks of an INTERACTION record, so each of them has fewer than 64
 * members.
 */
#ifndef EMLAT_TYPES_H
#define EMLAT_TYPES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Root kind of an interaction (DESIGN.md section 3.1). */
enum emlat_root_kind {
  EMLAT_ROOT_TTY_COMMAND = 1,
  EMLAT_ROOT_SYNTHETIC_COMMAND = 2,
  EMLAT_ROOT_TIMER = 3,
  EMLAT_ROOT_PROCESS_DATA = 4,
  EMLAT_ROOT_PROCESS_SENTINEL = 5,
  EMLAT_ROOT_FILE_NOTIFICATION = 6,
  EMLAT_ROOT_RESIZE = 7,
  EMLAT_ROOT_THREAD_WAKEUP = 8,
  EMLAT_ROOT_MAINTENANCE = 9,
  /* Terminal output with no terminal input behind it, as seen by the
     interposition library (timers, subprocess output of an opaque program). */
  EMLAT_ROOT_UNATTRIBUTED_OUTPUT = 10,
  /* An interaction of the application's own ("request", "frame",
     "keystroke"), named by a string (emlat_app.h); INTERACTION type
     version 2 (docs/FORMAT.md 6.5). */
  EMLAT_ROOT_APPLICATION = 11,
  EMLAT_ROOT_KIND_MAX = 11
};

/* Final status of an interaction. */
enum emlat_ix_status {
  EMLAT_STATUS_NORMAL = 1,
  EMLAT_STATUS_QUIT = 2,
  EMLAT_STATUS_ERROR = 3,
  EMLAT_STATUS_THROW = 4,
  EMLAT_STATUS_SUPERSEDED = 5,
  EMLAT_STATUS_DROPPED = 6,
  EMLAT_STATUS_OPEN = 7, /* never ended: still open at stop or crash */
  EMLAT_STATUS_MAX = 7
};

/* Raw monotonic timestamps of an interaction (DESIGN.md section 4.1).  Each is
   nanoseconds of the session's profiler clock.  The enumerator is the bit
   index in the INTERACTION record's time mask. */
enum emlat_time_field {
  EMLAT_T_INPUT_EARLIEST = 0,
  EMLAT_T_INPUT_LATEST = 1,
  EMLAT_T_INPUT_READY = 2,
  EMLAT_T_READ_BEGIN = 3,
  EMLAT_T_READ_END = 4,
  EMLAT_T_QUEUE_INSERT = 5,
  EMLAT_T_QUEUE_REMOVE = 6,
  EMLAT_T_KEY_DECODE_DONE = 7,
  EMLAT_T_DISPATCH_BEGIN = 8,
  EMLAT_T_ROOT_WORK_END = 9,
  EMLAT_T_PRE_COMMAND_BEGIN = 10,
  EMLAT_T_PRE_COMMAND_END = 11,
  EMLAT_T_COMMAND_BEGIN = 12,
  EMLAT_T_COMMAND_END = 13,
  EMLAT_T_POST_COMMAND_BEGIN = 14,
  EMLAT_T_POST_COMMAND_END = 15,
  EMLAT_T_REDISPLAY_BEGIN = 16,
  EMLAT_T_REDISPLAY_END = 17,
  EMLAT_T_OUTPUT_BEGIN = 18,
  EMLAT_T_OUTPUT_END = 19,
  EMLAT_T_FLUSH_BEGIN = 20,
  EMLAT_T_FLUSH_END = 21,
  /* Arrival bounds of the first physical event of a multi-event key
     sequence; with the decisive bounds they give prefix dwell. */
  EMLAT_T_FIRST_INPUT_EARLIEST = 22,
  EMLAT_T_FIRST_INPUT_LATEST = 23,
  /* When emlat_ix_end was called. */
  EMLAT_T_INTERACTION_END = 24,
  /* External observations made from the master side of a pseudo-terminal by
     `emlat replay` (same clock, another process). */
  EMLAT_T_EXTERNAL_SEND = 25,
  EMLAT_T_EXTERNAL_FIRST_OUTPUT = 26,
  EMLAT_T_EXTERNAL_QUIESCENT = 27,
  /* when the first and the last write(2) of the interaction's output to the terminal began and ended (format 1.1) */
  EMLAT_T_WRITE_FIRST_BEGIN = 28, EMLAT_T_WRITE_FIRST_END = 29,
  EMLAT_T_WRITE_LAST_BEGIN = 30, EMLAT_T_WRITE_LAST_END = 31, EMLAT_T_FIELD_COUNT = 32
};

/* Quality of a timestamp (DESIGN.md section 2.3).  Every time field has a
   default quality (docs/FORMAT.md); a record stores only the exceptions. */
enum emlat_quality {
  EMLAT_Q_OBSERVER_READY = 1,
  EMLAT_Q_MAIN_POLL_READY = 2,
  EMLAT_Q_READ = 3,
  EMLAT_Q_INTERNAL = 4,
  EMLAT_Q_WRITE = 5,
  EMLAT_Q_FLUSH = 6,
  EMLAT_Q_INFERRED = 7,
  EMLAT_Q_EXTERNAL = 8,
  EMLAT_Q_MAX = 8
};

/* Non-time values of an interaction: causal links, identifiers, source
   ranges and thread CPU clock readings.  Bit index in the value mask.  A
   present value may legitimately be zero (a byte offset); absence is the
   mask bit, never a zero. */
enum emlat_value_field {
  EMLAT_V_PARENT_CAUSE = 0,
  EMLAT_V_SCHEDULED_BY_CAUSE = 1,
  EMLAT_V_TERMINAL_ID = 2,
  EMLAT_V_FRAME_ID = 3,
  EMLAT_V_FIRST_SOURCE_BATCH = 4,
  EMLAT_V_FIRST_SOURCE_BEGIN = 5, /* byte offset in batch, inclusive */
  EMLAT_V_FIRST_SOURCE_END = 6,   /* byte offset in batch, exclusive */
  EMLAT_V_DECISIVE_SOURCE_BATCH = 7,
  EMLAT_V_DECISIVE_SOURCE_BEGIN = 8,
  EMLAT_V_DECISIVE_SOURCE_END = 9,
  EMLAT_V_FIRST_REDISPLAY_ID = 10,
  EMLAT_V_LAST_REDISPLAY_ID = 11,
  EMLAT_V_FINAL_OUTPUT_EPOCH = 12,
  EMLAT_V_THREAD_CPU_BEGIN = 13, /* CLOCK_THREAD_CPUTIME_ID ns */
  EMLAT_V_THREAD_CPU_END = 14,
  EMLAT_V_FIELD_COUNT = 15
};

/* Counters of an interaction or a span (DESIGN.md section 6.2). */
enum emlat_counter {
  EMLAT_C_QUEUE_DEPTH_INSERT = 0,
  EMLAT_C_QUEUE_DEPTH_REMOVE = 1,
  EMLAT_C_READ_BATCH_BYTES = 2,
  EMLAT_C_DECODED_EVENTS = 3,
  EMLAT_C_KEY_SEQUENCE_LENGTH = 4,
  EMLAT_C_PREFIX_DEPTH = 5,
  EMLAT_C_EXTRA_READS = 6,
  EMLAT_C_BUFFER_SIZE = 7,
  EMLAT_C_MODIFF_DELTA = 8,
  EMLAT_C_WINDOW_ROWS = 9,
  EMLAT_C_WINDOW_COLS = 10,
  EMLAT_C_WINDOW_COUNT = 11,
  EMLAT_C_GC_COUNT = 12,
  EMLAT_C_GC_NS = 13,
  EMLAT_C_REDISPLAY_ATTEMPTS = 14,
  EMLAT_C_REDISPLAY_PREEMPTIONS = 15,
  EMLAT_C_REDISPLAY_RETRIES = 16,
  EMLAT_C_FRAMES_CONSIDERED = 17,
  EMLAT_C_FRAMES_UPDATED = 18,
  EMLAT_C_WINDOWS_CONSIDERED = 19,
  EMLAT_C_WINDOWS_UPDATED = 20,
  EMLAT_C_ROWS_GENERATED = 21,
  EMLAT_C_ROWS_REUSED = 22,
  EMLAT_C_GLYPHS_EMITTED = 23,
  EMLAT_C_TTY_BYTES = 24,
  EMLAT_C_STDIO_CALLS = 25,
  EMLAT_C_FLUSH_FAILURES = 26,
  EMLAT_C_WRITE_CALLS = 27,
  EMLAT_C_OUTPUT_EPOCHS = 28,
  EMLAT_C_COUNTER_COUNT = 29
};

/* Semantic span kinds (DESIGN.md section 6.1). */
enum emlat_span_kind {
  EMLAT_SPAN_INPUT_READY = 1,
  EMLAT_SPAN_READ = 2,
  EMLAT_SPAN_QUEUE = 3,
  EMLAT_SPAN_KEY_DECODE = 4,
  EMLAT_SPAN_COMMAND_LOOP = 5,
  EMLAT_SPAN_PRE_COMMAND = 6,
  EMLAT_SPAN_COMMAND = 7,
  EMLAT_SPAN_POST_COMMAND = 8,
  EMLAT_SPAN_GC = 9,
  EMLAT_SPAN_EVENT_POLL = 10,
  EMLAT_SPAN_REDISPLAY = 11,
  EMLAT_SPAN_REDISPLAY_DECISION = 12,
  EMLAT_SPAN_DESIRED_MATRIX = 13,
  EMLAT_SPAN_MATRIX_COMPARE = 14,
  EMLAT_SPAN_WINDOW_UPDATE = 15,
  EMLAT_SPAN_TTY_WRITE = 16,
  EMLAT_SPAN_TTY_FLUSH = 17,
  EMLAT_SPAN_WAIT = 18,
  EMLAT_SPAN_TIMER = 19,
  EMLAT_SPAN_PROCESS_FILTER = 20,
  EMLAT_SPAN_PROCESS_SENTINEL = 21,
  EMLAT_SPAN_USER = 22, /* application-defined; detail id names it */
  EMLAT_SPAN_KIND_MAX = 22
};

/* Status of a span. */
enum emlat_span_status {
  EMLAT_SPAN_OK = 0,
  EMLAT_SPAN_QUIT = 1,
  EMLAT_SPAN_ERROR = 2,
  EMLAT_SPAN_THROW = 3,
  /* Ended implicitly: an enclosing span on the same thread ended first
     (a nonlocal exit skipped this span's end).  Written by the writer. */
  EMLAT_SPAN_UNWOUND = 4,
  /* Begin record without end: the span was open at stop or crash.  Set by
     the reader, never stored. */
  EMLAT_SPAN_INCOMPLETE = 5,
  EMLAT_SPAN_STATUS_MAX = 5
};

/* Why records were lost (LOSS records). */
enum emlat_loss_reason {
  EMLAT_LOSS_RING_FULL = 1,    /* producer found its ring full */
  EMLAT_LOSS_NO_RING = 2,      /* no ring left for a new thread */
  EMLAT_LOSS_WRITE_ERROR = 3,  /* write(2) failed: ENOSPC, EIO, EBADF... */
  EMLAT_LOSS_STRING_FULL = 4,  /* string dictionary limit reached */
  EMLAT_LOSS_WRITER_MEMORY = 5,/* writer could not allocate */
  EMLAT_LOSS_RECORD_INVALID = 6,/* a ring record the writer rejected */
  EMLAT_LOSS_REASON_MAX = 6
};

/* Application events (EVENT chunks, docs/FORMAT.md 6.9): what the
   application API of emlat_app.h records besides sections (spans of kind
   user) and application interactions. */
enum emlat_event_tag {
  EMLAT_EV_INSTANT = 1,      /* a point in time */
  EMLAT_EV_COUNTER = 2,      /* a named counter's new integer value */
  EMLAT_EV_COUNTER_F = 3,    /* a named counter's new floating value */
  EMLAT_EV_ASYNC_BEGIN = 4,  /* an async slice (name, id) begins */
  EMLAT_EV_ASYNC_END = 5,    /* ... and ends, on any thread */
  EMLAT_EV_FLOW_BEGIN = 6,   /* a flow leaves this thread */
  EMLAT_EV_FLOW_STEP = 7,    /* passes through it */
  EMLAT_EV_FLOW_END = 8,     /* arrives on it */
  EMLAT_EV_THREAD_NAME = 9,  /* the thread's name from now on */
  EMLAT_EV_PROCESS_NAME = 10,/* the process's name from now on */
  /* Function tracing (-finstrument-functions, docs/API.md): the name is
     the module (a string "BASENAME BUILD-ID"), the id field the function's
     module-relative address. */
  EMLAT_EV_FN_ENTER = 11,
  EMLAT_EV_FN_EXIT = 12,
  EMLAT_EV_TAG_MAX = 12
};

#ifdef __cplusplus
}
#endif

#endif /* EMLAT_TYPES_H */
