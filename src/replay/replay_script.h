/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * replay_script.h -- replay workloads as a flat list of timed steps, and the
 * parser of the script format documented in docs/REPLAY.md.
 *
 * Timing model: every step has a scheduled start.  A SEND or RESIZE step
 * occupies AFTER_NS (its interval) and the next step is scheduled that long
 * after it; a PAUSE only advances the schedule; WAIT_TEXT and WAIT_QUIET end
 * when their condition holds and re-anchor the schedule at that moment.  The
 * schedule is absolute, so a late step does not delay the ones after it.
 *
 * The parser never keeps the script's text beyond the steps it builds, and
 * a step never carries the name of the file it came from.
 */
#ifndef EMLAT_REPLAY_SCRIPT_H
#define EMLAT_REPLAY_SCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include "replay/replay_keys.h"

enum replay_step_kind {
  REPLAY_STEP_TEXT,       /* literal bytes as one keystroke (one character,
                             or a pasted chunk) */
  REPLAY_STEP_KEY,        /* a named key, encoded when it is sent */
  REPLAY_STEP_PAUSE,
  REPLAY_STEP_WAIT_TEXT,  /* until DATA appears in CMD's text output */
  REPLAY_STEP_WAIT_QUIET, /* until no output for AFTER_NS */
  REPLAY_STEP_RESIZE
};

struct replay_step
{
  uint8_t kind;       /* enum replay_step_kind */
  uint8_t paste;      /* TEXT: 1 for `paste`, 0 for one typed character */
  uint16_t rows, cols;/* RESIZE */
  unsigned line;      /* line in the script, for messages */
  uint64_t after_ns;  /* TEXT/KEY/RESIZE: interval; PAUSE: duration;
                         WAIT_QUIET: the quiet time */
  uint64_t timeout_ns;/* WAIT_*: give up after this */
  struct replay_key key;
  char *data;         /* TEXT: bytes; WAIT_TEXT: pattern (owned) */
  size_t len;
};

struct replay_script
{
  struct replay_step *steps;
  size_t n, cap;
  size_t keystrokes; /* TEXT + KEY + RESIZE steps: the measured sends */
};

/* Settings a script starts with; `set` directives change them. */
struct replay_script_defaults
{
  unsigned wpm;            /* typing speed; 5 characters per word */
  uint64_t gap_ns;         /* interval after `key`, `paste` and `resize` */
  uint64_t wait_timeout_ns;/* default timeout of `wait`/`expect-quiet` */
};

#define REPLAY_SCRIPT_MAX_BYTES (1u << 20)
#define REPLAY_SCRIPT_MAX_STEPS 1000000u
#define REPLAY_MAX_WPM 6000u

/* Parse TEXT (LEN bytes) and append its steps to *S.  Returns 0, or -1 with
   *ERR_LINE and ERR (ERR_SIZE bytes) describing the first error; S then
   holds the steps of the lines before it.  NUL bytes are errors. */
int replay_script_parse (struct replay_script *s, const char *text, size_t len,
                         const struct replay_script_defaults *defaults,
                         unsigned *err_line, char *err, size_t err_size);

/* Read FILE (at most REPLAY_SCRIPT_MAX_BYTES) and parse it.  Errors are
   reported the same way; *ERR_LINE is 0 when the file could not be read. */
int replay_script_load (struct replay_script *s, const char *file,
                        const struct replay_script_defaults *defaults,
                        unsigned *err_line, char *err, size_t err_size);

void replay_script_free (struct replay_script *s);

/* Parse a duration such as "250ms", "1.5s", "800us" (LEN bytes) into *NS;
   at most one hour.  Returns 0 or -1. */
int replay_parse_duration (const char *s, size_t len, uint64_t *ns);

#endif /* EMLAT_REPLAY_SCRIPT_H */
