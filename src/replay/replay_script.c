/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * replay_script.c -- the parser of replay scripts (docs/REPLAY.md).
 *
 * One directive per line; tokens are bare words or double-quoted strings
 * with C-like escapes; `#` outside a string starts a comment.  Every error
 * names the line and stops the parse.  Invariants: a step's DATA is owned
 * by the step (freed by replay_script_free); TEXT steps are never empty;
 * `type` makes one step per UTF-8 character, with newline sent as RET (what
 * a terminal sends for Enter).
 */
#include "replay/replay_script.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_TOKENS 64

struct token
{
  const char *p; /* bare: into the line; quoted: decoded, into scratch */
  size_t len;
  int quoted;
};

struct parser
{
  struct replay_script *s;
  struct replay_script_defaults d;
  unsigned line;
  char *err;
  size_t err_size;
};

static int fail (struct parser *ps, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));

static int fail (struct parser *ps, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  if (ps->err_size)
    vsnprintf (ps->err, ps->err_size, fmt, ap);
  va_end (ap);
  return -1;
}

static int tok_is (const struct token *t, const char *word)
{
  return !t->quoted && strlen (word) == t->len && memcmp (t->p, word, t->len) == 0;
}

static int parse_uint (const char *p, size_t len, uint64_t max, uint64_t *out)
{
  uint64_t v = 0;
  if (len == 0 || len > 19)
    return -1;
  for (size_t i = 0; i < len; i++)
    {
      if (p[i] < '0' || p[i] > '9')
        return -1;
      v = v * 10 + (uint64_t)(p[i] - '0');
    }
  if (v > max)
    return -1;
  *out = v;
  return 0;
}

int replay_parse_duration (const char *s, size_t len, uint64_t *ns)
{
  size_t i = 0, unit_at;
  uint64_t whole = 0, frac = 0, frac_div = 1, mult;
  while (i < len && s[i] >= '0' && s[i] <= '9')
    {
      if (i >= 12)
        return -1;
      whole = whole * 10 + (uint64_t)(s[i++] - '0');
    }
  if (i == 0)
    return -1;
  if (i < len && s[i] == '.')
    {
      size_t start = ++i;
      while (i < len && s[i] >= '0' && s[i] <= '9')
        {
          if (i - start >= 9)
            return -1;
          frac = frac * 10 + (uint64_t)(s[i++] - '0');
          frac_div *= 10;
        }
      if (i == start)
        return -1;
    }
  unit_at = i;
  size_t ulen = len - unit_at;
  const char *u = s + unit_at;
  if (ulen == 2 && memcmp (u, "ms", 2) == 0)
    mult = 1000000ull;
  else if (ulen == 2 && memcmp (u, "us", 2) == 0)
    mult = 1000ull;
  else if (ulen == 1 && u[0] == 's')
    mult = 1000000000ull;
  else
    return -1;
  uint64_t v = whole * mult + frac * mult / frac_div;
  if (whole > 3600ull * 1000000 || v > 3600ull * 1000000000ull)
    return -1;
  *ns = v;
  return 0;
}

static int hexval (char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* Split LINE into tokens; quoted strings are decoded into SCRATCH (at least
   the line's length).  Returns the token count or -1. */
static int tokenize (struct parser *ps, const char *line, size_t len,
                     char *scratch, struct token *toks)
{
  size_t i = 0, sc = 0;
  int n = 0;
  for (;;)
    {
      while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
        i++;
      if (i >= len || line[i] == '#')
        return n;
      if (n == MAX_TOKENS)
        return fail (ps, "too many words (at most %d)", MAX_TOKENS);
      struct token *t = &toks[n++];
      if (line[i] == '"')
        {
          t->quoted = 1;
          t->p = scratch + sc;
          size_t start = sc;
          i++;
          for (;;)
            {
              if (i >= len)
                return fail (ps, "unterminated string");
              char c = line[i++];
              if (c == '"')
                break;
              if (c == '\\')
                {
                  if (i >= len)
                    return fail (ps, "unterminated string");
                  char e = line[i++];
                  switch (e)
                    {
                    case '\\': c = '\\'; break;
                    case '"': c = '"'; break;
                    case 'n': c = '\n'; break;
                    case 'r': c = '\r'; break;
                    case 't': c = '\t'; break;
                    case 'e': c = '\033'; break;
                    case 'x':
                      {
                        int h1 = i < len ? hexval (line[i]) : -1;
                        int h2 = i + 1 < len ? hexval (line[i + 1]) : -1;
                        if (h1 < 0 || h2 < 0 || (h1 | h2) == 0)
                          return fail (ps, "bad \\x escape (two hex digits, not 00)");
                        c = (char)(h1 * 16 + h2);
                        i += 2;
                        break;
                      }
                    default:
                      return fail (ps, "unknown escape \\%c", e);
                    }
                }
              scratch[sc++] = c;
            }
          t->len = sc - start;
          if (i < len && line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
            return fail (ps, "text after closing quote");
        }
      else
        {
          t->quoted = 0;
          t->p = line + i;
          while (i < len && line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
            i++;
          t->len = (size_t)(line + i - t->p);
        }
    }
}

static struct replay_step *push (struct parser *ps, enum replay_step_kind kind)
{
  struct replay_script *s = ps->s;
  if (s->n >= REPLAY_SCRIPT_MAX_STEPS)
    {
      fail (ps, "more than %u steps", REPLAY_SCRIPT_MAX_STEPS);
      return NULL;
    }
  if (s->n == s->cap)
    {
      size_t cap = s->cap ? s->cap * 2 : 64;
      struct replay_step *v = realloc (s->steps, cap * sizeof *v);
      if (!v)
        {
          fail (ps, "out of memory");
          return NULL;
        }
      s->steps = v;
      s->cap = cap;
    }
  struct replay_step *st = &s->steps[s->n++];
  memset (st, 0, sizeof *st);
  st->kind = (uint8_t)kind;
  st->line = ps->line;
  if (kind == REPLAY_STEP_TEXT || kind == REPLAY_STEP_KEY
      || kind == REPLAY_STEP_RESIZE)
    s->keystrokes++;
  return st;
}

static int set_data (struct parser *ps, struct replay_step *st, const char *p,
                     size_t len)
{
  st->data = malloc (len + 1);
  if (!st->data)
    return fail (ps, "out of memory");
  memcpy (st->data, p, len);
  st->data[len] = 0;
  st->len = len;
  return 0;
}

/* Copy T into a TEXT payload with newline sent as RET. */
static int set_text (struct parser *ps, struct replay_step *st, const char *p,
                     size_t len)
{
  if (set_data (ps, st, p, len))
    return -1;
  for (size_t i = 0; i < len; i++)
    if (st->data[i] == '\n')
      st->data[i] = '\r';
  return 0;
}

static size_t utf8_len (const unsigned char *p, size_t avail)
{
  size_t need = p[0] < 0x80 ? 1
                : (p[0] & 0xE0) == 0xC0 ? 2
                : (p[0] & 0xF0) == 0xE0 ? 3
                : (p[0] & 0xF8) == 0xF0 ? 4
                                        : 0;
  if (need == 0 || need > avail)
    return 0;
  for (size_t i = 1; i < need; i++)
    if ((p[i] & 0xC0) != 0x80)
      return 0;
  return need;
}

static int want_string (struct parser *ps, const struct token *t, const char *what)
{
  if (!t->quoted)
    return fail (ps, "%s: expected a \"quoted string\"", what);
  if (t->len == 0)
    return fail (ps, "%s: empty string", what);
  return 0;
}

static int want_duration (struct parser *ps, const struct token *t, uint64_t *ns,
                          const char *what)
{
  if (t->quoted || replay_parse_duration (t->p, t->len, ns))
    return fail (ps, "%s: bad duration '%.*s' (e.g. 250ms, 1.5s, 800us; at most 1 hour)",
                 what, (int)(t->len > 40 ? 40 : t->len), t->p);
  return 0;
}

/* "KEYWORD VALUE" options after the main argument. */
static int options (struct parser *ps, const struct token *t, int n,
                    const char *keyword, uint64_t *value, int is_duration,
                    const char *what)
{
  for (int i = 0; i < n; i += 2)
    {
      if (!tok_is (&t[i], keyword))
        return fail (ps, "%s: unexpected '%.*s' (only '%s' may follow)", what,
                     (int)(t[i].len > 40 ? 40 : t[i].len), t[i].p, keyword);
      if (i + 1 >= n)
        return fail (ps, "%s: '%s' needs a value", what, keyword);
      if (is_duration)
        {
          if (want_duration (ps, &t[i + 1], value, what))
            return -1;
        }
      else if (t[i + 1].quoted
               || parse_uint (t[i + 1].p, t[i + 1].len, REPLAY_MAX_WPM, value)
               || *value == 0)
        return fail (ps, "%s: bad %s (1..%u)", what, keyword, REPLAY_MAX_WPM);
    }
  return 0;
}

/* One function per directive: T[0] is the directive's name, T[1..N) its
   arguments.  Each returns 0, or -1 after fail(). */

/* type "TEXT" [wpm N]: one TEXT step per character, at N words a minute. */
static int dir_type (struct parser *ps, const struct token *t, int n)
{
  uint64_t wpm = ps->d.wpm;
  if (n < 2 || want_string (ps, &t[1], "type")
      || options (ps, t + 2, n - 2, "wpm", &wpm, 0, "type"))
    return n < 2 ? fail (ps, "type: expected a \"quoted string\"") : -1;
  uint64_t interval = 12000000000ull / wpm; /* 60 s / (5 * wpm) */
  const unsigned char *p = (const unsigned char *)t[1].p;
  size_t len = t[1].len;
  for (size_t i = 0; i < len;)
    {
      size_t cl = utf8_len (p + i, len - i);
      if (!cl)
        return fail (ps, "type: invalid UTF-8 in string");
      struct replay_step *st = push (ps, REPLAY_STEP_TEXT);
      if (!st || set_text (ps, st, (const char *)p + i, cl))
        return -1;
      st->after_ns = interval;
      i += cl;
    }
  return 0;
}

/* paste "TEXT": one TEXT step. */
static int dir_paste (struct parser *ps, const struct token *t, int n)
{
  if (n != 2)
    return fail (ps, "paste: expected exactly one \"quoted string\"");
  if (want_string (ps, &t[1], "paste"))
    return -1;
  struct replay_step *st = push (ps, REPLAY_STEP_TEXT);
  if (!st || set_text (ps, st, t[1].p, t[1].len))
    return -1;
  st->paste = 1;
  st->after_ns = ps->d.gap_ns;
  return 0;
}

/* key NAME[*COUNT]...: one KEY step per key press. */
static int dir_key (struct parser *ps, const struct token *t, int n)
{
  if (n < 2)
    return fail (ps, "key: expected at least one key name");
  for (int i = 1; i < n; i++)
    {
      struct replay_key k;
      uint64_t count = 1;
      size_t len = t[i].len;
      const char *star = NULL;
      if (t[i].quoted)
        return fail (ps, "key: key names are not quoted");
      for (size_t j = 1; j < len; j++)
        if (t[i].p[j] == '*')
          star = t[i].p + j;
      if (star)
        {
          len = (size_t)(star - t[i].p);
          if (parse_uint (star + 1, t[i].len - len - 1, 100000, &count)
              || count == 0)
            return fail (ps, "key: bad repeat count in '%.*s' (1..100000)",
                         (int)(t[i].len > 40 ? 40 : t[i].len), t[i].p);
        }
      if (replay_key_parse (t[i].p, len, &k))
        return fail (ps, "key: unknown or unencodable key '%.*s'",
                     (int)(len > 40 ? 40 : len), t[i].p);
      for (uint64_t c = 0; c < count; c++)
        {
          struct replay_step *st = push (ps, REPLAY_STEP_KEY);
          if (!st)
            return -1;
          st->key = k;
          st->after_ns = ps->d.gap_ns;
        }
    }
  return 0;
}

/* pause DURATION */
static int dir_pause (struct parser *ps, const struct token *t, int n)
{
  uint64_t ns;
  if (n != 2)
    return fail (ps, "pause: expected one duration");
  if (want_duration (ps, &t[1], &ns, "pause"))
    return -1;
  struct replay_step *st = push (ps, REPLAY_STEP_PAUSE);
  if (!st)
    return -1;
  st->after_ns = ns;
  return 0;
}

/* wait "TEXT" [timeout DURATION] */
static int dir_wait (struct parser *ps, const struct token *t, int n)
{
  uint64_t to = ps->d.wait_timeout_ns;
  if (n < 2)
    return fail (ps, "wait: expected a \"quoted string\"");
  if (want_string (ps, &t[1], "wait")
      || options (ps, t + 2, n - 2, "timeout", &to, 1, "wait"))
    return -1;
  struct replay_step *st = push (ps, REPLAY_STEP_WAIT_TEXT);
  if (!st || set_data (ps, st, t[1].p, t[1].len))
    return -1;
  st->timeout_ns = to;
  return 0;
}

/* expect-quiet DURATION [timeout DURATION] */
static int dir_expect_quiet (struct parser *ps, const struct token *t, int n)
{
  uint64_t q, to = ps->d.wait_timeout_ns;
  if (n < 2)
    return fail (ps, "expect-quiet: expected a duration");
  if (want_duration (ps, &t[1], &q, "expect-quiet")
      || options (ps, t + 2, n - 2, "timeout", &to, 1, "expect-quiet"))
    return -1;
  struct replay_step *st = push (ps, REPLAY_STEP_WAIT_QUIET);
  if (!st)
    return -1;
  st->after_ns = q;
  st->timeout_ns = to;
  return 0;
}

/* resize ROWSxCOLS */
static int dir_resize (struct parser *ps, const struct token *t, int n)
{
  uint64_t r, c;
  const char *x;
  if (n != 2 || t[1].quoted)
    return fail (ps, "resize: expected ROWSxCOLS, e.g. 40x120");
  x = memchr (t[1].p, 'x', t[1].len);
  if (!x || parse_uint (t[1].p, (size_t)(x - t[1].p), 9999, &r)
      || parse_uint (x + 1, t[1].len - (size_t)(x - t[1].p) - 1, 9999, &c)
      || r == 0 || c == 0)
    return fail (ps, "resize: expected ROWSxCOLS with 1..9999 each, e.g. 40x120");
  struct replay_step *st = push (ps, REPLAY_STEP_RESIZE);
  if (!st)
    return -1;
  st->rows = (uint16_t)r;
  st->cols = (uint16_t)c;
  st->after_ns = ps->d.gap_ns;
  return 0;
}

/* set wpm N | set gap DURATION | set timeout DURATION */
static int dir_set (struct parser *ps, const struct token *t, int n)
{
  if (n != 3)
    return fail (ps, "set: expected 'set wpm N', 'set gap DURATION' or 'set timeout DURATION'");
  if (tok_is (&t[1], "wpm"))
    {
      uint64_t w;
      if (t[2].quoted || parse_uint (t[2].p, t[2].len, REPLAY_MAX_WPM, &w) || !w)
        return fail (ps, "set wpm: expected 1..%u", REPLAY_MAX_WPM);
      ps->d.wpm = (unsigned)w;
      return 0;
    }
  if (tok_is (&t[1], "gap"))
    return want_duration (ps, &t[2], &ps->d.gap_ns, "set gap");
  if (tok_is (&t[1], "timeout"))
    return want_duration (ps, &t[2], &ps->d.wait_timeout_ns, "set timeout");
  return fail (ps, "set: unknown setting (wpm, gap or timeout)");
}

static const struct
{
  const char *name;
  int (*parse) (struct parser *ps, const struct token *t, int n);
} directives[] = {
  { "type", dir_type },
  { "paste", dir_paste },
  { "key", dir_key },
  { "pause", dir_pause },
  { "wait", dir_wait },
  { "expect-quiet", dir_expect_quiet },
  { "resize", dir_resize },
  { "set", dir_set },
};

/* The line T[0..N) (N >= 1): a directive and its arguments. */
static int directive (struct parser *ps, struct token *t, int n)
{
  const struct token *d = &t[0];
  if (d->quoted)
    return fail (ps, "expected a directive, found a string");
  for (size_t i = 0; i < sizeof directives / sizeof directives[0]; i++)
    if (tok_is (d, directives[i].name))
      return directives[i].parse (ps, t, n);
  return fail (ps, "unknown directive '%.*s'", (int)(d->len > 40 ? 40 : d->len),
               d->p);
}

int replay_script_parse (struct replay_script *s, const char *text, size_t len,
                         const struct replay_script_defaults *defaults,
                         unsigned *err_line, char *err, size_t err_size)
{
  struct parser ps = { s, *defaults, 0, err, err_size };
  struct token toks[MAX_TOKENS];
  char *scratch = NULL;
  size_t pos = 0;
  int rc = 0;

  if (memchr (text, 0, len))
    {
      const char *z = memchr (text, 0, len);
      ps.line = 1;
      for (const char *q = text; q < z; q++)
        ps.line += *q == '\n';
      *err_line = ps.line;
      return fail (&ps, "NUL byte in script");
    }
  scratch = malloc (len + 1);
  if (!scratch)
    {
      *err_line = 0;
      return fail (&ps, "out of memory");
    }
  while (pos < len)
    {
      const char *nl = memchr (text + pos, '\n', len - pos);
      size_t ll = nl ? (size_t)(nl - (text + pos)) : len - pos;
      ps.line++;
      int n = tokenize (&ps, text + pos, ll, scratch, toks);
      if (n < 0 || (n > 0 && directive (&ps, toks, n)))
        {
          rc = -1;
          break;
        }
      pos += ll + (nl ? 1 : 0);
    }
  free (scratch);
  if (rc)
    *err_line = ps.line;
  return rc;
}

int replay_script_load (struct replay_script *s, const char *file,
                        const struct replay_script_defaults *defaults,
                        unsigned *err_line, char *err, size_t err_size)
{
  int fd = open (file, O_RDONLY | O_CLOEXEC);
  char *buf;
  size_t len = 0;
  *err_line = 0;
  if (fd < 0)
    {
      snprintf (err, err_size, "cannot open: %s", strerror (errno));
      return -1;
    }
  buf = malloc (REPLAY_SCRIPT_MAX_BYTES + 1);
  if (!buf)
    {
      close (fd);
      snprintf (err, err_size, "out of memory");
      return -1;
    }
  int failed = 0;
  for (;;)
    {
      ssize_t r = read (fd, buf + len, REPLAY_SCRIPT_MAX_BYTES + 1 - len);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        {
          snprintf (err, err_size, "cannot read: %s", strerror (errno));
          failed = 1;
          break;
        }
      if (r == 0)
        break;
      len += (size_t)r;
      if (len > REPLAY_SCRIPT_MAX_BYTES)
        {
          snprintf (err, err_size, "larger than %u bytes", REPLAY_SCRIPT_MAX_BYTES);
          failed = 1;
          break;
        }
    }
  close (fd);
  int rc = -1;
  if (!failed)
    rc = replay_script_parse (s, buf, len, defaults, err_line, err, err_size);
  free (buf);
  return rc;
}

void replay_script_free (struct replay_script *s)
{
  for (size_t i = 0; i < s->n; i++)
    free (s->steps[i].data);
  free (s->steps);
  s->steps = NULL;
  s->n = s->cap = s->keystrokes = 0;
}
