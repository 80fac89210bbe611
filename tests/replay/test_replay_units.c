/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_replay_units.c -- the pure parts of `emlat replay`, without a
 * terminal: key names and their bytes, the script parser (every directive,
 * every error with its line), durations, the terminal scanner (answers,
 * cursor tracking, DECCKM, text window, split input) and the built-in
 * workloads (exact keystroke counts, valid scripts).
 *
 * The driver is linked from its internal library (src/replay,
 * libemlat-replay.a), as `emlat replay` links it.
 */
#include "tap.h"

#include "replay/replay_keys.h"
#include "replay/replay_script.h"
#include "replay/replay_term.h"
#include "replay/replay_workload.h"

static void check_key_n (const char *name, int app, const char *bytes,
                         size_t len)
{
  struct replay_key k;
  char out[REPLAY_KEY_MAX_BYTES + 1];
  int rc = replay_key_parse (name, strlen (name), &k);
  CHECK (rc == 0, "key %s parses", name);
  if (rc)
    return;
  size_t n = replay_key_encode (&k, app, out);
  out[n] = 0;
  CHECK (n == len && memcmp (out, bytes, n) == 0,
         "key %s (app %d) encodes as expected", name, app);
}

static void check_key (const char *name, int app, const char *bytes)
{
  check_key_n (name, app, bytes, strlen (bytes));
}

static void keys (void)
{
  check_key ("a", 0, "a");
  check_key ("\xc3\xa9", 0, "\xc3\xa9"); /* é */
  check_key ("C-x", 0, "\x18");
  check_key ("C-X", 0, "\x18");
  check_key_n ("C-@", 0, "", 1); /* one NUL byte */
  check_key_n ("C-SPC", 0, "", 1);
  check_key ("C-?", 0, "\x7f");
  check_key ("M-x", 0, "\033x");
  check_key ("C-M-f", 0, "\033\x06");
  check_key ("RET", 0, "\r");
  check_key ("TAB", 0, "\t");
  check_key ("S-TAB", 0, "\033[Z");
  check_key ("ESC", 0, "\033");
  check_key ("BS", 0, "\x7f");
  check_key ("M-RET", 0, "\033\r");
  check_key ("UP", 0, "\033[A");
  check_key ("UP", 1, "\033OA");
  check_key ("LEFT", 1, "\033OD");
  check_key ("HOME", 0, "\033[H");
  check_key ("END", 1, "\033OF");
  check_key ("C-RIGHT", 0, "\033[1;5C");
  check_key ("C-RIGHT", 1, "\033[1;5C");
  check_key ("M-UP", 0, "\033[1;3A");
  check_key ("PGDN", 0, "\033[6~");
  check_key ("PGUP", 0, "\033[5~");
  check_key ("S-PGDN", 0, "\033[6;2~");
  check_key ("DEL", 0, "\033[3~");
  check_key ("INS", 0, "\033[2~");
  check_key ("F1", 0, "\033OP");
  check_key ("F4", 1, "\033OS");
  check_key ("C-F1", 0, "\033[1;5P");
  check_key ("F5", 0, "\033[15~");
  check_key ("F12", 0, "\033[24~");
  check_key ("-", 0, "-");
  check_key ("C-_", 0, "\x1f");
  check_key ("M--", 0, "\033-");
}

static void bad_keys (void)
{
  static const char *const bad[] = { "", "C-", "RETURN", "C-RET", "S-a",
                                     "C-1", "F13", "ab", "\xff", "C-C-x",
                                     "X-a" };
  struct replay_key k;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    CHECK (replay_key_parse (bad[i], strlen (bad[i]), &k) != 0,
           "key '%s' is rejected", bad[i]);
}

static const struct replay_script_defaults defaults = { 60, 200000000ull,
                                                        10000000000ull };

static int parse (struct replay_script *s, const char *text, unsigned *line,
                  char *err)
{
  memset (s, 0, sizeof *s);
  err[0] = 0;
  *line = 0;
  return replay_script_parse (s, text, strlen (text), &defaults, line, err, 256);
}

static void script_ok (void)
{
  struct replay_script s;
  unsigned line;
  char err[256];
  const char *text = "# a comment\n"
                     "\n"
                     "type \"ab\\n\"            # 3 keystrokes, newline is RET\n"
                     "type \"\xc3\xa9t\xc3\xa9\" wpm 120\n"
                     "set gap 50ms\n"
                     "key C-x C-s*2 \t UP\n"
                     "paste \"one\\ttwo \\\"q\\\" \\x41\\e\"\n"
                     "pause 1.5s\n"
                     "wait \"ready # not a comment\" timeout 3s\n"
                     "expect-quiet 100ms\n"
                     "expect-quiet 20ms timeout 2s\n"
                     "resize 40x120\n"
                     "set wpm 30\n"
                     "type \"z\"";
  int rc = parse (&s, text, &line, err);
  CHECK (rc == 0, "valid script parses (line %u: %s)", line, err);
  if (rc)
    return;
  CHECK_EQ_U64 (s.n, 17);
  CHECK_EQ_U64 (s.keystrokes, 13);
  const struct replay_step *st = s.steps;
  /* type "ab\n" at 60 wpm: 200 ms per character. */
  CHECK (st[0].kind == REPLAY_STEP_TEXT && st[0].len == 1 && st[0].data[0] == 'a'
           && st[0].after_ns == 200000000ull && st[0].line == 3,
         "type 'a'");
  CHECK (st[2].len == 1 && st[2].data[0] == '\r', "newline typed as RET");
  /* UTF-8 characters are one keystroke each, at 120 wpm = 100 ms. */
  CHECK (st[3].len == 2 && st[3].after_ns == 100000000ull && st[4].len == 1
           && st[5].len == 2,
         "UTF-8 characters are single keystrokes");
  CHECK (st[6].kind == REPLAY_STEP_KEY && st[6].key.ch == 'x'
           && st[6].key.mods == REPLAY_MOD_CTRL && st[6].after_ns == 50000000ull,
         "key C-x with gap 50ms");
  CHECK (st[7].kind == REPLAY_STEP_KEY && st[8].kind == REPLAY_STEP_KEY
           && st[8].key.ch == 's' && st[9].key.named == REPLAY_K_UP,
         "C-s*2 repeats, then UP");
  CHECK (st[10].kind == REPLAY_STEP_TEXT && st[10].paste
           && st[10].len == 14 && memcmp (st[10].data, "one\ttwo \"q\" A\033", 14) == 0,
         "paste with escapes");
  CHECK (st[11].kind == REPLAY_STEP_PAUSE && st[11].after_ns == 1500000000ull,
         "pause 1.5s");
  CHECK (st[12].kind == REPLAY_STEP_WAIT_TEXT && st[12].timeout_ns == 3000000000ull
           && strcmp (st[12].data, "ready # not a comment") == 0,
         "wait with timeout; # inside a string");
  CHECK (st[13].kind == REPLAY_STEP_WAIT_QUIET && st[13].after_ns == 100000000ull
           && st[13].timeout_ns == 10000000000ull,
         "expect-quiet with the default timeout");
  CHECK (st[14].timeout_ns == 2000000000ull, "expect-quiet timeout");
  CHECK (st[15].kind == REPLAY_STEP_RESIZE && st[15].rows == 40 && st[15].cols == 120,
         "resize 40x120");
  replay_script_free (&s);
}

static void script_error (const char *text, unsigned want_line, const char *want)
{
  struct replay_script s;
  unsigned line;
  char err[256];
  int rc = parse (&s, text, &line, err);
  CHECK (rc != 0, "script with error on line %u is rejected", want_line);
  CHECK_EQ_U64 (line, want_line);
  CHECK_CONTAINS (err, want);
  replay_script_free (&s);
}

static void script_errors (void)
{
  script_error ("key a\nbogus\n", 2, "unknown directive 'bogus'");
  script_error ("type abc\n", 1, "quoted string");
  script_error ("\n\ntype \"abc\n", 3, "unterminated string");
  script_error ("type \"a\" wpm 0\n", 1, "bad wpm");
  script_error ("type \"a\" speed 3\n", 1, "unexpected 'speed'");
  script_error ("type \"\"\n", 1, "empty string");
  script_error ("type \"\\q\"\n", 1, "unknown escape");
  script_error ("paste \"\\x00\"\n", 1, "bad \\x escape");
  script_error ("key\n", 1, "at least one key");
  script_error ("key C-RET\n", 1, "unencodable key 'C-RET'");
  script_error ("key a*0\n", 1, "bad repeat count");
  script_error ("pause 10\n", 1, "bad duration '10'");
  script_error ("pause 2h\n", 1, "bad duration");
  script_error ("pause 3601s\n", 1, "bad duration");
  script_error ("wait \"x\" timeout\n", 1, "needs a value");
  script_error ("resize 40*120\n", 1, "ROWSxCOLS");
  script_error ("resize 0x80\n", 1, "ROWSxCOLS");
  script_error ("set color red\n", 1, "unknown setting");
  script_error ("key a\n\"x\"\n", 2, "expected a directive");
  script_error ("type \"\xff\"\n", 1, "invalid UTF-8");
  script_error ("type \"a\"x\n", 1, "text after closing quote");
  {
    const char text[] = "key a\nkey \0b\n";
    struct replay_script s;
    unsigned line;
    char err[256];
    memset (&s, 0, sizeof s);
    CHECK (replay_script_parse (&s, text, sizeof text - 1, &defaults, &line, err,
                                sizeof err) != 0 && line == 2,
           "NUL byte rejected on its line");
    replay_script_free (&s);
  }
}

static void durations (void)
{
  uint64_t ns;
  CHECK (replay_parse_duration ("250ms", 5, &ns) == 0 && ns == 250000000ull, "250ms");
  CHECK (replay_parse_duration ("1.5s", 4, &ns) == 0 && ns == 1500000000ull, "1.5s");
  CHECK (replay_parse_duration ("800us", 5, &ns) == 0 && ns == 800000ull, "800us");
  CHECK (replay_parse_duration ("0.25ms", 6, &ns) == 0 && ns == 250000ull, "0.25ms");
  CHECK (replay_parse_duration ("3600s", 5, &ns) == 0, "an hour");
  CHECK (replay_parse_duration ("1.s", 3, &ns) != 0, "1.s");
  CHECK (replay_parse_duration ("ms", 2, &ns) != 0, "ms");
  CHECK (replay_parse_duration ("5m", 2, &ns) != 0, "5m");
  CHECK (replay_parse_duration ("-1s", 3, &ns) != 0, "-1s");
}

static struct replay_term term; /* large: not on the stack */

static void feed (const char *s)
{
  replay_term_feed (&term, s, strlen (s));
}

/* The answers so far equal WANT; they are cleared. */
static void answers (const char *want)
{
  CHECK (term.answer_len == strlen (want)
           && memcmp (term.answer, want, term.answer_len) == 0,
         "answer '%.*s' (want '%s')", (int)term.answer_len, term.answer, want + 1);
  term.answer_len = 0;
}

static void terminal (void)
{
  replay_term_init (&term, 24, 80);
  feed ("\033[c");
  answers ("\033[?62;22c");
  feed ("\033[0c\033[>c\033[>0c");
  answers ("\033[?62;22c\033[>1;10;0c\033[>1;10;0c");
  feed ("\033[5n");
  answers ("\033[0n");
  /* Cursor: home, text, CR/LF, CUP, relative moves. */
  feed ("\033[H\033[6n");
  answers ("\033[1;1R");
  feed ("hello\033[6n");
  answers ("\033[1;6R");
  feed ("\r\n\n\033[6n");
  answers ("\033[3;1R");
  feed ("\033[10;20H\033[2A\033[3C\033[6n");
  answers ("\033[8;23R");
  feed ("\033[200;300H\033[6n");
  answers ("\033[24;80R");
  feed ("\033[?6n");
  answers ("\033[?24;80R");
  /* Wrap pending at the last column, then wrapping onto the next row. */
  feed ("\033[5;79Hab\033[6n");
  answers ("\033[5;80R");
  feed ("c\033[6n");
  answers ("\033[6;2R");
  /* UTF-8: one column per character. */
  feed ("\033[1;1H\xc3\xa9\xe2\x82\xac\033[6n");
  answers ("\033[1;3R");
  /* Save/restore. */
  feed ("\033[4;4H\0337\033[9;9H\0338\033[6n");
  answers ("\033[4;4R");
  /* Window ops and colours, with either string terminator. */
  feed ("\033[18t\033[14t");
  answers ("\033[8;24;80t\033[4;384;640t");
  feed ("\033]11;?\007\033]10;?\033\\");
  answers ("\033]11;rgb:0000/0000/0000\007\033]10;rgb:ffff/ffff/ffff\033\\");
  feed ("\033P+q544e\033\\\033P$qm\033\\\033[>q");
  answers ("\033P0+r\033\\\033P0$r\033\\\033P>|emlat-replay(0.1)\033\\");
  /* DECCKM and its report. */
  CHECK (!term.app_cursor, "normal cursor keys at start");
  feed ("\033[?1h");
  CHECK (term.app_cursor, "DECCKM set");
  feed ("\033[?1$p");
  answers ("\033[?1;1$y");
  feed ("\033[?1l\033[?1$p\033[?2004$p");
  answers ("\033[?1;2$y\033[?2004;0$y");
  /* Not queries: consumed without an answer. */
  feed ("\033[1;31mred\033[0m\033]0;title\007\033(B\033[22;0t\033[?u");
  answers ("");
  /* A query split at every byte boundary is still answered once. */
  const char *q = "\033[>0c";
  for (size_t i = 0; q[i]; i++)
    replay_term_feed (&term, q + i, 1);
  answers ("\033[>1;10;0c");
  CHECK_EQ_U64 (replay_term_answered (&term), 26);

  /* Text window for `wait`: escapes stripped, marked windows. */
  replay_term_init (&term, 24, 80);
  feed ("\033[1mRe\033[0mady\r\n");
  CHECK (replay_term_seen (&term, "Ready", 5), "pattern across an SGR sequence");
  replay_term_mark (&term);
  CHECK (!replay_term_seen (&term, "Ready", 5), "mark starts a new window");
  feed ("more");
  CHECK (replay_term_seen (&term, "more", 4), "new text is seen");
  /* Overlong sequences are consumed and never answered. */
  char big[600];
  memset (big, '1', sizeof big);
  memcpy (big, "\033[", 2);
  big[sizeof big - 2] = 'n';
  big[sizeof big - 1] = 0;
  feed (big);
  answers ("");
  feed ("\033[5n");
  answers ("\033[0n");
  /* The text window stays bounded. */
  char chunk[4096];
  memset (chunk, 'y', sizeof chunk);
  for (int i = 0; i < 40; i++)
    replay_term_feed (&term, chunk, sizeof chunk);
  CHECK_LE_U64 (term.text_len, REPLAY_TEXT_MAX);
}

static void workloads (void)
{
  struct replay_workload_params p = { 0, 60, 24, 80 };
  for (const char *const *w = replay_workload_names; *w; w++)
    for (unsigned keys = 1; keys <= 130; keys += 43)
      {
        struct replay_script s;
        unsigned line = 0;
        char err[256] = "";
        p.keys = keys;
        char *text = replay_workload_script (*w, &p);
        CHECK (text != NULL, "workload %s", *w);
        if (!text)
          continue;
        memset (&s, 0, sizeof s);
        int rc = replay_script_parse (&s, text, strlen (text), &defaults, &line,
                                      err, sizeof err);
        CHECK (rc == 0, "workload %s (%u keys) parses: line %u: %s", *w, keys,
               line, err);
        CHECK_EQ_U64 (s.keystrokes, keys);
        free (text);
        replay_script_free (&s);
      }
  CHECK (replay_workload_script ("nope", &p) == NULL, "unknown workload");
  CHECK_EQ_U64 (replay_workload_default_keys ("typing"), 200);
}

int main (void)
{
  keys ();
  bad_keys ();
  script_ok ();
  script_errors ();
  durations ();
  terminal ();
  workloads ();
  TEST_DONE ();
}
