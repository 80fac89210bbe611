/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz_replay_script.c -- libFuzzer target for the replay script parser
 * (src/replay/replay_script.c, format in docs/REPLAY.md) on arbitrary text.
 *
 * Invariants checked beyond "no crash, no leak, no UB": the parser returns
 * 0 or -1; a failure leaves a non-empty message and the line it happened
 * on; the steps (of the whole script, or of the lines before the error)
 * keep the promises of replay_script.h: TEXT steps are non-empty, carry no
 * newline (sent as RET) and, when typed, one UTF-8 character; every KEY
 * step has a terminal encoding; a resize is 1..9999 each way; durations
 * are at most one hour; steps are in line order; the keystroke count is
 * the number of TEXT, KEY and RESIZE steps.
 * Seeded with the built-in workloads (`emlat replay --print-script`) and
 * the directives of docs/REPLAY.md (fuzz/corpus/replay_script).  Also built
 * without libFuzzer by tests/reader/test_fuzz_corpus.c, which replays the
 * corpus through emlat_fuzz_replay_script_one.
 */
#include <stdlib.h>
#include <string.h>

#include "replay/replay_keys.h"
#include "replay/replay_script.h"

int emlat_fuzz_replay_script_one (const uint8_t *data, size_t size);
#ifndef EMLAT_FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
#endif

#define SCRIPT_HOUR_NS 3600000000000ull

static void check_step (const struct replay_step *st, unsigned last_line)
{
  if (st->line == 0 || st->line > last_line)
    abort ();
  char enc[REPLAY_KEY_MAX_BYTES];
  switch ((enum replay_step_kind)st->kind)
    {
    case REPLAY_STEP_TEXT:
      if (!st->data || st->len == 0 || memchr (st->data, '\n', st->len))
        abort ();
      if (!st->paste && st->len > 4)
        abort ();
      break;
    case REPLAY_STEP_KEY:
      for (int app = 0; app < 2; app++)
        {
          size_t n = replay_key_encode (&st->key, app, enc);
          if (n == 0 || n > REPLAY_KEY_MAX_BYTES)
            abort ();
        }
      break;
    case REPLAY_STEP_PAUSE:
      if (st->after_ns > SCRIPT_HOUR_NS)
        abort ();
      break;
    case REPLAY_STEP_WAIT_TEXT:
      if (!st->data || st->timeout_ns > SCRIPT_HOUR_NS)
        abort ();
      break;
    case REPLAY_STEP_WAIT_QUIET:
      if (st->after_ns > SCRIPT_HOUR_NS || st->timeout_ns > SCRIPT_HOUR_NS)
        abort ();
      break;
    case REPLAY_STEP_RESIZE:
      if (st->rows < 1 || st->rows > 9999 || st->cols < 1 || st->cols > 9999)
        abort ();
      break;
    default:
      abort ();
    }
}

int emlat_fuzz_replay_script_one (const uint8_t *data, size_t size)
{
  static const char empty[1];
  const char *text = size ? (const char *)data : empty;
  struct replay_script s;
  memset (&s, 0, sizeof s);
  struct replay_script_defaults d = { 60, 200000000ull, 10000000000ull };
  unsigned err_line = 0;
  char err[256];
  err[0] = 0;
  int rc = replay_script_parse (&s, text, size, &d, &err_line, err, sizeof err);
  if (rc != 0 && rc != -1)
    abort ();
  if (rc == -1 && (err[0] == 0 || err_line == 0 || !memchr (err, 0, sizeof err)))
    abort ();
  unsigned lines = 1;
  for (size_t i = 0; i < size; i++)
    lines += data[i] == '\n';
  unsigned last_line = rc ? err_line : lines;
  size_t keystrokes = 0;
  if (s.n > s.cap || s.n > REPLAY_SCRIPT_MAX_STEPS)
    abort ();
  for (size_t i = 0; i < s.n; i++)
    {
      check_step (&s.steps[i], last_line);
      if (i && s.steps[i].line < s.steps[i - 1].line)
        abort ();
      keystrokes += s.steps[i].kind == REPLAY_STEP_TEXT || s.steps[i].kind == REPLAY_STEP_KEY
                    || s.steps[i].kind == REPLAY_STEP_RESIZE;
    }
  if (keystrokes != s.keystrokes)
    abort ();
  replay_script_free (&s);
  return 0;
}

#ifndef EMLAT_FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  return emlat_fuzz_replay_script_one (data, size);
}
#endif
