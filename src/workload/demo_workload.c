/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * demo_workload.c -- a simulated terminal editor session for `emlat demo`,
 * recorded through the public producer API the way a real integration
 * (Emacs, DESIGN.md section 2 to section 6) records one.
 *
 * The main thread plays the editor's command loop.  Between interactions it
 * waits for terminal input (an event-poll span); "the user" types while it
 * waits (a sleep), so the wait ends with the descriptor found readable and a
 * read of one batch of bytes.  Each key of a batch becomes a TTY-command
 * interaction: queue insert/remove, key decoding, pre-command, command and
 * post-command, then either a redisplay that writes and flushes terminal
 * output, or, when more input is already pending, no redisplay at all (the
 * interaction is superseded).  The script covers typing, cursor keys (3-byte
 * escape sequences), CPU-bound commands with a GC inside, commands that
 * sleep, a two-key sequence with think time between the keys (prefix
 * dwell), typeahead behind a slow command, a command that signals an error,
 * one interrupted by C-g (quit), a nonlocal exit that skips a span's end
 * (throw, unwound span), a keyboard macro replaying synthetic commands as
 * nested roots, a command with nothing to display, a terminal resize and an
 * idle auto-save.  A second thread plays timers and a subprocess: a fixed
 * number of timer and process-output interactions (some scheduled by the
 * last command) with their own redisplay and output, and a process sentinel
 * before it exits; the main thread joins it before returning.
 *
 * Invariants: the bytes "typed" and "displayed" are simulated in memory and
 * written to /dev/null; none of them is ever passed to the recorder (the
 * demo's privacy test looks for them in the file).  The sequence of
 * recorder calls depends only on the seed; costs are real time.  The whole
 * session takes about 3 s.
 */
#include "workload/demo_workload.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "emlat/emlat.h"

/* What the simulated user types: printable text, never recorded. */
static const char typed_text[] =
  "private-demo-text: the quick brown fox jumps over the lazy dog";

/* ------------------------------------------------------------------ */
/* Deterministic randomness and real costs                             */

struct rng
{
  uint64_t s;
};

/* splitmix64: a full-period 64-bit generator, enough for choosing costs. */
static uint64_t
rng_next (struct rng *r)
{
  uint64_t z = (r->s += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static uint64_t
rng_range (struct rng *r, uint64_t lo, uint64_t hi)
{
  return lo + rng_next (r) % (hi - lo + 1);
}

static volatile uint64_t burn_sink;

/* Spend NS of CPU time on the calling thread (wall time, spinning). */
static void
burn_ns (uint64_t ns)
{
  uint64_t end = emlat_now () + ns;
  uint64_t x = burn_sink;
  while (emlat_now () < end)
    for (int i = 0; i < 256; i++)
      x = x * 6364136223846793005u + 1442695040888963407u;
  burn_sink = x;
}

/* Sleep NS of wall time off-CPU. */
static void
sleep_ns (uint64_t ns)
{
  struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u),
                         .tv_nsec = (long)(ns % 1000000000u) };
  while (nanosleep (&ts, &ts) != 0 && errno == EINTR)
    ;
}

#define US 1000u
#define MS 1000000u

/* ------------------------------------------------------------------ */
/* The simulated editor                                                */

/* One terminal read batch and the events decoded from it. */
struct batch
{
  uint64_t id;
  uint64_t t_known_empty, t_first_ready, t_read_begin, t_read_end;
  unsigned bytes;
  unsigned events;       /* keys decoded from the batch */
  unsigned ev_begin[16]; /* byte range of each key within the batch */
  unsigned ev_end[16];
  uint64_t t_queue_insert[16];
  char data[64];         /* the simulated bytes (never recorded) */
};

struct editor
{
  struct rng rng;
  struct demo_tally *tally;
  FILE *tty;                /* simulated terminal output: /dev/null */
  uint64_t t_known_empty;   /* when the last drain found no input */
  size_t text_pos;          /* next character of typed_text */
  uint64_t next_redisplay_id;
  uint64_t output_epoch;
  uint64_t buffer_size;
  unsigned rows, cols, windows;
  unsigned queue_depth;
  /* The most recent TTY command, read by the timer thread to link the
     timers that command scheduled.  Relaxed: only the id value is
     exchanged, no other memory is published through it. */
  _Atomic uint64_t last_command;
};

/* Command kinds of the script. */
enum demo_cmd
{
  CMD_SELF_INSERT, /* type one character */
  CMD_MOTION,      /* a cursor key: a 3-byte escape sequence */
  CMD_FILL,        /* CPU-bound: 8-16 ms, with a GC inside */
  CMD_SHELL,       /* sleeps: waits 15-30 ms for a subprocess */
  CMD_SAVE,        /* C-x C-s: two keys with think time between them */
  CMD_ERROR,       /* signals an error (beginning of buffer) */
  CMD_QUIT,        /* interrupted by C-g while waiting */
  CMD_THROW,       /* nonlocal exit out of a nested span */
  CMD_NOOP,        /* changes nothing: redisplay emits no bytes */
  CMD_MACRO,       /* replays three commands as synthetic nested roots */
};

static uint64_t
span_begin (struct editor *ed, enum emlat_span_kind kind, uint64_t cause)
{
  ed->tally->spans++;
  return emlat_span_begin (kind, cause);
}

static uint64_t
span_begin_cpu (struct editor *ed, enum emlat_span_kind kind, uint64_t cause)
{
  ed->tally->spans++;
  return emlat_span_begin_cpu (kind, cause);
}

static uint64_t
ix_begin (struct demo_tally *t, enum emlat_root_kind kind, uint64_t parent,
          uint64_t scheduled_by)
{
  t->interactions++;
  t->by_kind[kind]++;
  return emlat_ix_begin (kind, parent, scheduled_by);
}

/* End interaction CAUSE with STATUS (an EMLAT_STATUS_* value). */
static void
ix_end (struct demo_tally *t, uint64_t cause, int status)
{
  t->by_status[status]++;
  emlat_ix_end (cause, status);
}

/* Wait for input while the user types N keys (each KEY_BYTES long), then
   read them as one batch.  Records the event-poll and read spans and the
   INPUT batch. */
static void
read_batch (struct editor *ed, struct batch *b, unsigned n, unsigned key_bytes,
            uint64_t think_ns)
{
  memset (b, 0, sizeof *b);
  uint64_t poll = span_begin (ed, EMLAT_SPAN_EVENT_POLL, 0);
  b->t_known_empty = ed->t_known_empty;
  if (think_ns)
    sleep_ns (think_ns);
  b->t_first_ready = emlat_now ();
  emlat_span_end (poll, EMLAT_SPAN_OK, 0);

  uint64_t rd = span_begin (ed, EMLAT_SPAN_READ, 0);
  b->t_read_begin = emlat_now ();
  for (unsigned k = 0; k < n && b->bytes + key_bytes <= sizeof b->data; k++)
    {
      b->ev_begin[k] = b->bytes;
      if (key_bytes == 3)
        memcpy (b->data + b->bytes, "\033[B", 3);
      else
        {
          b->data[b->bytes] = typed_text[ed->text_pos];
          ed->text_pos = (ed->text_pos + 1) % (sizeof typed_text - 1);
        }
      b->bytes += key_bytes;
      b->ev_end[k] = b->bytes;
      b->events++;
    }
  b->t_read_end = emlat_now ();
  emlat_span_count (rd, EMLAT_C_READ_BATCH_BYTES, b->bytes);
  emlat_span_end (rd, EMLAT_SPAN_OK, 0);

  /* Each decoded event goes into the keyboard queue. */
  uint64_t q = span_begin (ed, EMLAT_SPAN_QUEUE, 0);
  for (unsigned k = 0; k < b->events; k++)
    {
      burn_ns (2 * US);
      b->t_queue_insert[k] = emlat_now ();
      ed->queue_depth++;
    }
  emlat_span_end (q, EMLAT_SPAN_OK, 0);

  b->id = emlat_input_batch_id ();
  struct emlat_input_batch ib = {
    .batch_id = b->id,
    .mask = EMLAT_IB_KNOWN_EMPTY | EMLAT_IB_FIRST_READY | EMLAT_IB_READ_BEGIN
            | EMLAT_IB_READ_END | EMLAT_IB_BYTES,
    .ready_quality = EMLAT_Q_MAIN_POLL_READY,
    .t_known_empty = b->t_known_empty,
    .t_first_ready = b->t_first_ready,
    .t_read_begin = b->t_read_begin,
    .t_read_end = b->t_read_end,
    .bytes = b->bytes,
  };
  emlat_input_batch (&ib);
  ed->tally->input_batches++;
  ed->tally->input_bytes += b->bytes;
}

/* Record the arrival bounds of event K of batch B as the decisive input
   (or, FIRST, as the first event of a key sequence). */
static void
set_input_fields (uint64_t cause, const struct batch *b, unsigned k, int first)
{
  /* The first byte after an empty state arrived no later than the poll saw
     it; later bytes of the batch only no later than the read. */
  int first_byte = b->ev_begin[k] == 0;
  uint64_t latest = first_byte ? b->t_first_ready : b->t_read_end;
  enum emlat_quality q = first_byte ? EMLAT_Q_MAIN_POLL_READY : EMLAT_Q_READ;
  if (first)
    {
      emlat_ix_time (cause, EMLAT_T_FIRST_INPUT_EARLIEST, b->t_known_empty);
      emlat_ix_time_q (cause, EMLAT_T_FIRST_INPUT_LATEST, latest, q);
      emlat_ix_value (cause, EMLAT_V_FIRST_SOURCE_BATCH, b->id);
      emlat_ix_value (cause, EMLAT_V_FIRST_SOURCE_BEGIN, b->ev_begin[k]);
      emlat_ix_value (cause, EMLAT_V_FIRST_SOURCE_END, b->ev_end[k]);
      return;
    }
  emlat_ix_time (cause, EMLAT_T_INPUT_EARLIEST, b->t_known_empty);
  emlat_ix_time_q (cause, EMLAT_T_INPUT_LATEST, latest, q);
  emlat_ix_time (cause, EMLAT_T_INPUT_READY, b->t_first_ready);
  emlat_ix_time (cause, EMLAT_T_READ_BEGIN, b->t_read_begin);
  emlat_ix_time (cause, EMLAT_T_READ_END, b->t_read_end);
  emlat_ix_time (cause, EMLAT_T_QUEUE_INSERT, b->t_queue_insert[k]);
  emlat_ix_value (cause, EMLAT_V_DECISIVE_SOURCE_BATCH, b->id);
  emlat_ix_value (cause, EMLAT_V_DECISIVE_SOURCE_BEGIN, b->ev_begin[k]);
  emlat_ix_value (cause, EMLAT_V_DECISIVE_SOURCE_END, b->ev_end[k]);
  emlat_ix_count (cause, EMLAT_C_READ_BATCH_BYTES, b->bytes);
  emlat_ix_count (cause, EMLAT_C_DECODED_EVENTS, b->events);
}

/* Take one event off the keyboard queue for CAUSE. */
static void
queue_remove (struct editor *ed, uint64_t cause)
{
  emlat_ix_count (cause, EMLAT_C_QUEUE_DEPTH_INSERT, ed->queue_depth);
  emlat_ix_mark (cause, EMLAT_T_QUEUE_REMOVE);
  ed->queue_depth--;
  emlat_ix_count (cause, EMLAT_C_QUEUE_DEPTH_REMOVE, ed->queue_depth);
}

/* Write N bytes of terminal output through stdio and flush them, as the
   output epoch of CAUSE.  Returns nothing: /dev/null does not fail. */
static void
emit_output (struct editor *ed, uint64_t cause, unsigned n)
{
  static const char screen[] =
    "\033[24;1H\033[K\033[7m-UUU:**--F1  demo.txt   All L1  (Text)\033[m"
    "\033[1;1H\033[K\033[2J\033[H";
  ed->output_epoch++;
  uint64_t w = span_begin (ed, EMLAT_SPAN_TTY_WRITE, cause);
  emlat_ix_mark (cause, EMLAT_T_OUTPUT_BEGIN);
  unsigned left = n, calls = 0;
  while (left > 0)
    {
      unsigned piece = left < sizeof screen - 1 ? left : sizeof screen - 1;
      fwrite (screen, 1, piece, ed->tty);
      left -= piece;
      calls++;
    }
  emlat_ix_mark (cause, EMLAT_T_OUTPUT_END);
  emlat_span_count (w, EMLAT_C_TTY_BYTES, n);
  emlat_span_count (w, EMLAT_C_STDIO_CALLS, calls);
  emlat_span_end (w, EMLAT_SPAN_OK, 0);

  uint64_t f = span_begin (ed, EMLAT_SPAN_TTY_FLUSH, cause);
  emlat_ix_mark (cause, EMLAT_T_FLUSH_BEGIN);
  fflush (ed->tty);
  emlat_ix_mark (cause, EMLAT_T_FLUSH_END);
  emlat_span_count (f, EMLAT_C_WRITE_CALLS, 1 + n / 4096);
  emlat_span_end (f, EMLAT_SPAN_OK, 0);

  emlat_ix_value (cause, EMLAT_V_FINAL_OUTPUT_EPOCH, ed->output_epoch);
  emlat_ix_count (cause, EMLAT_C_OUTPUT_EPOCHS, 1);
  emlat_ix_count (cause, EMLAT_C_TTY_BYTES, n);
  emlat_ix_count (cause, EMLAT_C_STDIO_CALLS, calls + 1);
  emlat_ix_count (cause, EMLAT_C_WRITE_CALLS, 1 + n / 4096);
  emlat_ix_count (cause, EMLAT_C_FLUSH_FAILURES, 0);
  ed->tally->flushed++;
}

/* Redisplay for CAUSE: build, compare and update WINDOWS windows, then emit
   BYTES of output (none when BYTES is 0). */
static void
redisplay (struct editor *ed, uint64_t cause, unsigned windows, unsigned bytes)
{
  uint64_t id = ++ed->next_redisplay_id;
  uint64_t r = span_begin (ed, EMLAT_SPAN_REDISPLAY, cause);
  emlat_ix_mark (cause, EMLAT_T_REDISPLAY_BEGIN);
  emlat_ix_value (cause, EMLAT_V_FIRST_REDISPLAY_ID, id);
  emlat_ix_value (cause, EMLAT_V_LAST_REDISPLAY_ID, id);

  uint64_t d = span_begin (ed, EMLAT_SPAN_DESIRED_MATRIX, cause);
  unsigned rows_gen = 1 + (unsigned)rng_range (&ed->rng, 0, ed->rows / 4);
  burn_ns (rows_gen * 6 * US);
  emlat_span_count (d, EMLAT_C_ROWS_GENERATED, rows_gen);
  emlat_span_end (d, EMLAT_SPAN_OK, 0);

  uint64_t c = span_begin (ed, EMLAT_SPAN_MATRIX_COMPARE, cause);
  burn_ns (rng_range (&ed->rng, 20, 60) * US);
  emlat_span_end (c, EMLAT_SPAN_OK, 0);

  unsigned updated = bytes ? windows : 0;
  for (unsigned w = 0; w < updated; w++)
    {
      uint64_t u = span_begin (ed, EMLAT_SPAN_WINDOW_UPDATE, cause);
      burn_ns (rng_range (&ed->rng, 10, 40) * US);
      emlat_span_count (u, EMLAT_C_GLYPHS_EMITTED, bytes / windows);
      emlat_span_end (u, EMLAT_SPAN_OK, 0);
    }
  emlat_ix_count (cause, EMLAT_C_REDISPLAY_ATTEMPTS, 1);
  emlat_ix_count (cause, EMLAT_C_REDISPLAY_PREEMPTIONS, 0);
  emlat_ix_count (cause, EMLAT_C_FRAMES_CONSIDERED, 1);
  emlat_ix_count (cause, EMLAT_C_FRAMES_UPDATED, updated ? 1 : 0);
  emlat_ix_count (cause, EMLAT_C_WINDOWS_CONSIDERED, windows);
  emlat_ix_count (cause, EMLAT_C_WINDOWS_UPDATED, updated);
  emlat_ix_count (cause, EMLAT_C_ROWS_GENERATED, rows_gen);
  emlat_ix_count (cause, EMLAT_C_ROWS_REUSED, ed->rows - rows_gen);
  emlat_ix_count (cause, EMLAT_C_GLYPHS_EMITTED, bytes);
  emlat_ix_mark (cause, EMLAT_T_REDISPLAY_END);
  emlat_span_end (r, EMLAT_SPAN_OK, 0);
  if (bytes)
    emit_output (ed, cause, bytes);
}

/* A garbage collection inside CAUSE's command. */
static void
gc (struct editor *ed, uint64_t cause)
{
  uint64_t t0 = emlat_now ();
  uint64_t g = span_begin_cpu (ed, EMLAT_SPAN_GC, cause);
  burn_ns (rng_range (&ed->rng, 2, 5) * MS);
  emlat_span_end (g, EMLAT_SPAN_OK, 0);
  emlat_ix_count (cause, EMLAT_C_GC_COUNT, 1);
  emlat_ix_count (cause, EMLAT_C_GC_NS, emlat_now () - t0);
}

/* The body of command CMD for CAUSE; returns the span status. */
static int
command_body (struct editor *ed, uint64_t cause, enum demo_cmd cmd)
{
  switch (cmd)
    {
    case CMD_SELF_INSERT:
      burn_ns (rng_range (&ed->rng, 30, 150) * US);
      ed->buffer_size++;
      return EMLAT_SPAN_OK;
    case CMD_MOTION:
    case CMD_NOOP:
      burn_ns (rng_range (&ed->rng, 20, 80) * US);
      return EMLAT_SPAN_OK;
    case CMD_FILL:
      burn_ns (rng_range (&ed->rng, 4, 8) * MS);
      gc (ed, cause);
      burn_ns (rng_range (&ed->rng, 2, 6) * MS);
      return EMLAT_SPAN_OK;
    case CMD_SHELL:
      {
        uint64_t w = span_begin (ed, EMLAT_SPAN_WAIT, cause);
        sleep_ns (rng_range (&ed->rng, 15, 30) * MS);
        emlat_span_end (w, EMLAT_SPAN_OK, 0);
        return EMLAT_SPAN_OK;
      }
    case CMD_SAVE:
      sleep_ns (rng_range (&ed->rng, 3, 6) * MS);
      return EMLAT_SPAN_OK;
    case CMD_ERROR:
      burn_ns (rng_range (&ed->rng, 50, 120) * US);
      return EMLAT_SPAN_ERROR;
    case CMD_QUIT:
      {
        uint64_t w = span_begin (ed, EMLAT_SPAN_WAIT, cause);
        sleep_ns (40 * MS);
        emlat_span_end (w, EMLAT_SPAN_QUIT, 0);
        return EMLAT_SPAN_QUIT;
      }
    case CMD_THROW:
      {
        /* The inner span's end is skipped by the throw; ending the command
           span unwinds it. */
        uint64_t u = span_begin (ed, EMLAT_SPAN_USER, cause);
        burn_ns (rng_range (&ed->rng, 200, 600) * US);
        (void)u;
        ed->tally->spans_unwound++;
        return EMLAT_SPAN_THROW;
      }
    case CMD_MACRO:
      for (int k = 0; k < 3; k++)
        {
          uint64_t sub = ix_begin (ed->tally, EMLAT_ROOT_SYNTHETIC_COMMAND,
                                   cause, 0);
          uint64_t s = span_begin (ed, EMLAT_SPAN_COMMAND, sub);
          emlat_ix_mark (sub, EMLAT_T_COMMAND_BEGIN);
          burn_ns (rng_range (&ed->rng, 100, 400) * US);
          ed->buffer_size += 5;
          emlat_ix_mark (sub, EMLAT_T_COMMAND_END);
          emlat_span_end (s, EMLAT_SPAN_OK, 0);
          emlat_ix_mark (sub, EMLAT_T_ROOT_WORK_END);
          ix_end (ed->tally, sub, EMLAT_STATUS_NORMAL);
        }
      return EMLAT_SPAN_OK;
    }
  return EMLAT_SPAN_OK;
}

static int
interaction_status (int span_status)
{
  switch (span_status)
    {
    case EMLAT_SPAN_ERROR:
      return EMLAT_STATUS_ERROR;
    case EMLAT_SPAN_QUIT:
      return EMLAT_STATUS_QUIT;
    case EMLAT_SPAN_THROW:
      return EMLAT_STATUS_THROW;
    default:
      return EMLAT_STATUS_NORMAL;
    }
}

/* Run one TTY command: event K of batch B (with FIRST_B/FIRST_K the first
   key of a two-key sequence, else NULL).  PENDING: more input is already
   queued, so the redisplay is skipped and the interaction superseded. */
static void
tty_command (struct editor *ed, enum demo_cmd cmd, const struct batch *b,
             unsigned k, const struct batch *first_b, int pending)
{
  uint64_t cause = ix_begin (ed->tally, EMLAT_ROOT_TTY_COMMAND, 0, 0);
  emlat_ix_value (cause, EMLAT_V_TERMINAL_ID, 1);
  emlat_ix_value (cause, EMLAT_V_FRAME_ID, 1);
  uint64_t decode = span_begin (ed, EMLAT_SPAN_KEY_DECODE, cause);
  if (first_b)
    {
      set_input_fields (cause, first_b, 0, 1);
      emlat_ix_count (cause, EMLAT_C_KEY_SEQUENCE_LENGTH, 2);
      emlat_ix_count (cause, EMLAT_C_PREFIX_DEPTH, 1);
      emlat_ix_count (cause, EMLAT_C_EXTRA_READS, 1);
    }
  else
    {
      emlat_ix_count (cause, EMLAT_C_KEY_SEQUENCE_LENGTH, 1);
      emlat_ix_count (cause, EMLAT_C_PREFIX_DEPTH, 0);
    }
  set_input_fields (cause, b, k, 0);
  queue_remove (ed, cause);
  burn_ns (rng_range (&ed->rng, 10, 40) * US);
  emlat_ix_mark (cause, EMLAT_T_KEY_DECODE_DONE);
  emlat_span_end (decode, EMLAT_SPAN_OK, 0);
  /* Wall time and main-thread CPU cover the same window (REPORT.md
     "Metrics": main_off_cpu = wall - CPU): both start at dispatch. */
  emlat_ix_value (cause, EMLAT_V_THREAD_CPU_BEGIN, emlat_thread_cpu_now ());
  emlat_ix_mark (cause, EMLAT_T_DISPATCH_BEGIN);

  uint64_t loop = span_begin (ed, EMLAT_SPAN_COMMAND_LOOP, cause);
  uint64_t pre = span_begin (ed, EMLAT_SPAN_PRE_COMMAND, cause);
  emlat_ix_mark (cause, EMLAT_T_PRE_COMMAND_BEGIN);
  burn_ns (rng_range (&ed->rng, 10, 40) * US);
  emlat_ix_mark (cause, EMLAT_T_PRE_COMMAND_END);
  emlat_span_end (pre, EMLAT_SPAN_OK, 0);

  uint64_t size_before = ed->buffer_size;
  uint64_t cmd_span = span_begin_cpu (ed, EMLAT_SPAN_COMMAND, cause);
  emlat_ix_mark (cause, EMLAT_T_COMMAND_BEGIN);
  int span_status = command_body (ed, cause, cmd);
  emlat_ix_mark (cause, EMLAT_T_COMMAND_END);
  emlat_span_end (cmd_span, span_status, cmd);

  uint64_t post = span_begin (ed, EMLAT_SPAN_POST_COMMAND, cause);
  emlat_ix_mark (cause, EMLAT_T_POST_COMMAND_BEGIN);
  burn_ns (rng_range (&ed->rng, 10, 60) * US);
  emlat_ix_mark (cause, EMLAT_T_POST_COMMAND_END);
  emlat_span_end (post, EMLAT_SPAN_OK, 0);
  emlat_span_end (loop, EMLAT_SPAN_OK, 0);
  emlat_ix_mark (cause, EMLAT_T_ROOT_WORK_END);

  emlat_ix_count (cause, EMLAT_C_BUFFER_SIZE, ed->buffer_size);
  emlat_ix_count (cause, EMLAT_C_MODIFF_DELTA, ed->buffer_size - size_before);
  emlat_ix_count (cause, EMLAT_C_WINDOW_ROWS, ed->rows - 2);
  emlat_ix_count (cause, EMLAT_C_WINDOW_COLS, ed->cols);
  emlat_ix_count (cause, EMLAT_C_WINDOW_COUNT, ed->windows);

  /* read_char's redisplay decision. */
  uint64_t dec = span_begin (ed, EMLAT_SPAN_REDISPLAY_DECISION, cause);
  burn_ns (5 * US);
  emlat_span_end (dec, EMLAT_SPAN_OK, pending ? 1 : 0);
  int status = interaction_status (span_status);
  if (pending)
    status = EMLAT_STATUS_SUPERSEDED;
  else
    {
      unsigned bytes = 0;
      if (cmd == CMD_SELF_INSERT || cmd == CMD_MOTION)
        bytes = (unsigned)rng_range (&ed->rng, 8, 40);
      else if (cmd != CMD_NOOP)
        bytes = (unsigned)rng_range (&ed->rng, 120, 900);
      redisplay (ed, cause, ed->windows, bytes);
    }
  emlat_ix_value (cause, EMLAT_V_THREAD_CPU_END, emlat_thread_cpu_now ());
  ix_end (ed->tally, cause, status);
  /* Relaxed: see struct editor. */
  atomic_store_explicit (&ed->last_command, cause, memory_order_relaxed);
}

/* The main loop's drain found no more input. */
static void
input_drained (struct editor *ed)
{
  ed->t_known_empty = emlat_now ();
}

/* Type N keys of CMD one batch each, with typing-speed think time. */
static void
type_keys (struct editor *ed, enum demo_cmd cmd, unsigned n)
{
  struct batch b;
  for (unsigned i = 0; i < n; i++)
    {
      read_batch (ed, &b, 1, cmd == CMD_MOTION ? 3 : 1,
                  rng_range (&ed->rng, 15, 45) * MS);
      tty_command (ed, cmd, &b, 0, NULL, 0);
      input_drained (ed);
    }
}

/* A slow command during which the user types N keys ahead: they arrive in
   one batch; all but the last are superseded. */
static void
slow_then_typeahead (struct editor *ed, enum demo_cmd slow, unsigned n)
{
  struct batch b;
  read_batch (ed, &b, 1, 1, rng_range (&ed->rng, 20, 40) * MS);
  tty_command (ed, slow, &b, 0, NULL, 0);
  /* No drain: the keys typed meanwhile are already waiting, so the poll
     returns at once and the batch's known-empty time is the last drain,
     before the slow command. */
  read_batch (ed, &b, n, 1, 0);
  for (unsigned k = 0; k < b.events; k++)
    tty_command (ed, CMD_SELF_INSERT, &b, k, NULL, k + 1 < b.events);
  input_drained (ed);
}

/* C-x, think time, C-s: one interaction with a prefix dwell. */
static void
two_key_sequence (struct editor *ed)
{
  struct batch first, second;
  read_batch (ed, &first, 1, 1, rng_range (&ed->rng, 20, 40) * MS);
  /* The first key is decoded as a prefix; the sequence waits for more. */
  input_drained (ed);
  read_batch (ed, &second, 1, 1, rng_range (&ed->rng, 150, 250) * MS);
  /* The prefix key left the queue when decoding began. */
  ed->queue_depth--;
  tty_command (ed, CMD_SAVE, &second, 0, &first, 0);
  input_drained (ed);
}

/* A resize: SIGWINCH handled as its own root with a full repaint. */
static void
resize (struct editor *ed, unsigned rows, unsigned cols)
{
  sleep_ns (rng_range (&ed->rng, 20, 40) * MS);
  uint64_t cause = ix_begin (ed->tally, EMLAT_ROOT_RESIZE, 0, 0);
  ed->rows = rows;
  ed->cols = cols;
  burn_ns (300 * US);
  emlat_ix_mark (cause, EMLAT_T_ROOT_WORK_END);
  emlat_ix_count (cause, EMLAT_C_WINDOW_ROWS, rows - 2);
  emlat_ix_count (cause, EMLAT_C_WINDOW_COLS, cols);
  emlat_ix_count (cause, EMLAT_C_WINDOW_COUNT, ed->windows);
  redisplay (ed, cause, ed->windows, rows * cols);
  ix_end (ed->tally, cause, EMLAT_STATUS_NORMAL);
}

/* Idle auto-save: internal maintenance without terminal output. */
static void
auto_save (struct editor *ed)
{
  sleep_ns (rng_range (&ed->rng, 20, 40) * MS);
  uint64_t cause = ix_begin (ed->tally, EMLAT_ROOT_MAINTENANCE, 0,
                             atomic_load_explicit (&ed->last_command,
                                                   memory_order_relaxed));
  uint64_t s = span_begin (ed, EMLAT_SPAN_USER, cause);
  sleep_ns (rng_range (&ed->rng, 2, 4) * MS);
  emlat_span_end (s, EMLAT_SPAN_OK, 0);
  emlat_ix_mark (cause, EMLAT_T_ROOT_WORK_END);
  ix_end (ed->tally, cause, EMLAT_STATUS_NORMAL);
}

/* ------------------------------------------------------------------ */
/* The timer and subprocess thread                                     */

struct background
{
  struct editor *ed;
  struct demo_tally tally; /* merged into the main tally after join */
  struct rng rng;
};

/* Rounds of the background thread: a fixed number, so that the session's
   structure does not depend on how long the main script takes. */
#define BACKGROUND_ROUNDS 14

static void *
background_main (void *arg)
{
  struct background *bg = arg;
  struct demo_tally *t = &bg->tally;
  t->threads = 1;
  for (unsigned round = 1; round <= BACKGROUND_ROUNDS; round++)
    {
      sleep_ns (rng_range (&bg->rng, 120, 200) * MS);
      /* Relaxed: see struct editor. */
      uint64_t sched = atomic_load_explicit (&bg->ed->last_command,
                                             memory_order_relaxed);
      int is_timer = round % 3 != 0;
      uint64_t cause = ix_begin (t, is_timer ? EMLAT_ROOT_TIMER
                                             : EMLAT_ROOT_PROCESS_DATA,
                                 0, is_timer && round % 2 ? sched : 0);
      uint64_t s = emlat_span_begin (is_timer ? EMLAT_SPAN_TIMER
                                              : EMLAT_SPAN_PROCESS_FILTER,
                                     cause);
      t->spans++;
      burn_ns (rng_range (&bg->rng, 100, 700) * US);
      emlat_span_end (s, EMLAT_SPAN_OK, 0);
      emlat_ix_mark (cause, EMLAT_T_ROOT_WORK_END);
      if (round % 2 == 0)
        {
          /* Mode-line clock or process output shown: its own redisplay. */
          uint64_t r = emlat_span_begin (EMLAT_SPAN_REDISPLAY, cause);
          t->spans++;
          emlat_ix_mark (cause, EMLAT_T_REDISPLAY_BEGIN);
          burn_ns (rng_range (&bg->rng, 50, 200) * US);
          emlat_ix_mark (cause, EMLAT_T_REDISPLAY_END);
          emlat_span_end (r, EMLAT_SPAN_OK, 0);
          uint64_t f = emlat_span_begin (EMLAT_SPAN_TTY_FLUSH, cause);
          t->spans++;
          emlat_ix_mark (cause, EMLAT_T_OUTPUT_BEGIN);
          emlat_ix_mark (cause, EMLAT_T_OUTPUT_END);
          emlat_ix_mark (cause, EMLAT_T_FLUSH_BEGIN);
          burn_ns (20 * US);
          emlat_ix_mark (cause, EMLAT_T_FLUSH_END);
          emlat_ix_count (cause, EMLAT_C_TTY_BYTES,
                          rng_range (&bg->rng, 20, 80));
          emlat_span_end (f, EMLAT_SPAN_OK, 0);
          t->flushed++;
        }
      ix_end (t, cause, EMLAT_STATUS_NORMAL);
    }
  /* The subprocess exits: its sentinel runs, then this thread ends before
     the session stops (its ring is drained at thread exit). */
  uint64_t cause = ix_begin (t, EMLAT_ROOT_PROCESS_SENTINEL, 0, 0);
  uint64_t s = emlat_span_begin (EMLAT_SPAN_PROCESS_SENTINEL, cause);
  t->spans++;
  burn_ns (200 * US);
  emlat_span_end (s, EMLAT_SPAN_OK, 0);
  emlat_ix_mark (cause, EMLAT_T_ROOT_WORK_END);
  ix_end (t, cause, EMLAT_STATUS_NORMAL);
  return NULL;
}

/* ------------------------------------------------------------------ */
/* The script                                                          */

static void
script (struct editor *ed)
{
  struct batch b;
  type_keys (ed, CMD_SELF_INSERT, 14);
  type_keys (ed, CMD_MOTION, 4);
  slow_then_typeahead (ed, CMD_FILL, 4);
  type_keys (ed, CMD_SELF_INSERT, 8);
  two_key_sequence (ed);
  auto_save (ed);
  input_drained (ed);
  type_keys (ed, CMD_MOTION, 3);
  type_keys (ed, CMD_ERROR, 1);
  type_keys (ed, CMD_SHELL, 1);
  type_keys (ed, CMD_NOOP, 2);
  resize (ed, 40, 120);
  input_drained (ed);
  type_keys (ed, CMD_SELF_INSERT, 10);
  slow_then_typeahead (ed, CMD_SHELL, 3);
  type_keys (ed, CMD_MACRO, 1);
  type_keys (ed, CMD_THROW, 1);
  type_keys (ed, CMD_FILL, 2);
  /* A command interrupted by C-g: the quit key arrives while it waits. */
  read_batch (ed, &b, 1, 1, 30 * MS);
  tty_command (ed, CMD_QUIT, &b, 0, NULL, 0);
  input_drained (ed);
  type_keys (ed, CMD_SELF_INSERT, 12);
  slow_then_typeahead (ed, CMD_FILL, 5);
  type_keys (ed, CMD_MOTION, 3);
}

int
demo_workload_run (uint64_t seed, struct demo_tally *tally)
{
  memset (tally, 0, sizeof *tally);
  FILE *tty = fopen ("/dev/null", "we");
  if (!tty)
    return -errno;
  static char tty_buf[4096];
  setvbuf (tty, tty_buf, _IOFBF, sizeof tty_buf);

  struct editor ed = {
    .rng = { seed },
    .tally = tally,
    .tty = tty,
    .rows = 24,
    .cols = 80,
    .windows = 2,
    .buffer_size = 1200,
  };
  atomic_init (&ed.last_command, 0);
  struct background bg = { .ed = &ed, .rng = { seed ^ 0x5bd1e995u } };
  pthread_t thread;
  int rc = pthread_create (&thread, NULL, background_main, &bg);
  if (rc != 0)
    {
      fclose (tty);
      return -rc;
    }
  tally->threads = 1;
  input_drained (&ed);
  script (&ed);
  pthread_join (thread, NULL);
  fclose (tty);

  /* Merge the background thread's tally. */
  const struct demo_tally *o = &bg.tally;
  tally->interactions += o->interactions;
  for (int i = 0; i <= EMLAT_ROOT_KIND_MAX; i++)
    tally->by_kind[i] += o->by_kind[i];
  for (int i = 0; i <= EMLAT_STATUS_MAX; i++)
    tally->by_status[i] += o->by_status[i];
  tally->spans += o->spans;
  tally->flushed += o->flushed;
  tally->threads += o->threads;
  return 0;
}
