/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * replay_term.c -- query answering, approximate cursor tracking and text
 * extraction over CMD's output stream (see replay_term.h).
 *
 * The parser follows the usual ECMA-48 states (ground, ESC, CSI, OSC,
 * DCS/other strings).  Every character counts one column (no wide-character
 * table); writing into the last column leaves the wrap pending, as xterm
 * does.  Only report requests are answered; everything else is consumed.
 */
#include "replay/replay_term.h"

#include <stdio.h>
#include <string.h>

enum { S_GROUND, S_ESC, S_ESC_INT, S_CSI, S_OSC, S_DCS, S_IGNSTR, S_STR_ESC };

/* The identity (docs/REPLAY.md "Terminal identity"). */
#define DA1_ANSWER "\033[?62;22c"
#define DA2_ANSWER "\033[>1;10;0c"
#define XTVERSION_ANSWER "\033P>|emlat-replay(0.1)\033\\"

void replay_term_init (struct replay_term *t, unsigned rows, unsigned cols)
{
  memset (t, 0, sizeof *t);
  t->rows = rows ? rows : 1;
  t->cols = cols ? cols : 1;
  t->row = t->col = 1;
  t->saved_row = t->saved_col = 1;
  t->top = 1;
  t->bottom = t->rows;
}

static unsigned clampu (unsigned v, unsigned lo, unsigned hi)
{
  return v < lo ? lo : v > hi ? hi : v;
}

void replay_term_resize (struct replay_term *t, unsigned rows, unsigned cols)
{
  t->rows = rows ? rows : 1;
  t->cols = cols ? cols : 1;
  t->row = clampu (t->row, 1, t->rows);
  t->col = clampu (t->col, 1, t->cols);
  t->top = 1;
  t->bottom = t->rows;
}

static void answer (struct replay_term *t, enum replay_query q, const char *s,
                    size_t n)
{
  if (t->answer_len + n > sizeof t->answer)
    {
      t->answers_dropped++;
      return;
    }
  memcpy (t->answer + t->answer_len, s, n);
  t->answer_len += n;
  t->answered[q]++;
}

static void answerf (struct replay_term *t, enum replay_query q, const char *fmt,
                     unsigned a, unsigned b)
{
  char buf[64];
  int n = snprintf (buf, sizeof buf, fmt, a, b);
  if (n > 0 && (size_t)n < sizeof buf)
    answer (t, q, buf, (size_t)n);
}

static void text_put (struct replay_term *t, char c)
{
  if (t->text_len == sizeof t->text)
    {
      size_t drop = sizeof t->text / 2;
      memmove (t->text, t->text + drop, sizeof t->text - drop);
      t->text_len -= drop;
      t->text_mark = t->text_mark > drop ? t->text_mark - drop : 0;
    }
  t->text[t->text_len++] = c;
}

void replay_term_mark (struct replay_term *t)
{
  t->text_mark = t->text_len;
}

int replay_term_seen (const struct replay_term *t, const char *pat, size_t len)
{
  size_t avail = t->text_len - t->text_mark;
  return len > 0 && len <= avail
         && memmem (t->text + t->text_mark, avail, pat, len) != NULL;
}

uint64_t replay_term_answered (const struct replay_term *t)
{
  uint64_t n = 0;
  for (int i = 0; i < REPLAY_Q_COUNT; i++)
    n += t->answered[i];
  return n;
}

static void linefeed (struct replay_term *t)
{
  if (t->row == t->bottom)
    return; /* scrolls */
  if (t->row < t->rows)
    t->row++;
}

static void put_char (struct replay_term *t)
{
  if (t->col > t->cols)
    {
      t->col = 1;
      linefeed (t);
    }
  t->col++;
}

/* C0 controls; they act in every state but the string states. */
static void control (struct replay_term *t, unsigned char c)
{
  switch (c)
    {
    case '\r':
      t->col = 1;
      break;
    case '\n':
    case '\v':
    case '\f':
      linefeed (t);
      text_put (t, '\n');
      break;
    case '\b':
      if (t->col > t->cols)
        t->col = t->cols;
      if (t->col > 1)
        t->col--;
      break;
    case '\t':
      t->col = clampu (((t->col - 1) / 8 + 1) * 8 + 1, 1, t->cols);
      break;
    default:
      break;
    }
}

/* Numeric parameters of a CSI sequence; absent ones are 0. */
static unsigned params (const char *s, size_t n, unsigned *p, unsigned max)
{
  unsigned k = 0;
  unsigned long v = 0;
  int any = 0;
  for (size_t i = 0; i < n; i++)
    {
      char c = s[i];
      if (c >= '0' && c <= '9')
        {
          v = v * 10 + (unsigned long)(c - '0');
          if (v > 65535)
            v = 65535;
          any = 1;
        }
      else if (c == ';' || c == ':')
        {
          if (k < max)
            p[k++] = (unsigned)v;
          v = 0;
          any = 1;
        }
    }
  if (any && k < max)
    p[k++] = (unsigned)v;
  for (unsigned i = k; i < max; i++)
    p[i] = 0;
  return k;
}

/* CSI with a private marker: '>' (DA2, XTVERSION) and '?' (CPR, modes
   DECCKM and the alternate screen's cursor save). */
static void csi_private (struct replay_term *t, char marker, char final,
                         const unsigned *p, unsigned np)
{
  if (marker == '>')
    {
      if (final == 'c' && p[0] == 0)
        answer (t, REPLAY_Q_DA2, DA2_ANSWER, sizeof DA2_ANSWER - 1);
      else if (final == 'q' && p[0] == 0)
        answer (t, REPLAY_Q_XTVERSION, XTVERSION_ANSWER,
                sizeof XTVERSION_ANSWER - 1);
      return;
    }
  if (final == 'n' && p[0] == 6)
    answerf (t, REPLAY_Q_CPR, "\033[?%u;%uR", t->row,
             clampu (t->col, 1, t->cols));
  else if (final == 'h' || final == 'l')
    for (unsigned i = 0; i < np; i++)
      {
        if (p[i] == 1)
          t->app_cursor = final == 'h';
        else if (p[i] == 1049 && final == 'h')
          t->saved_row = t->row, t->saved_col = t->col;
        else if (p[i] == 1049)
          t->row = t->saved_row, t->col = t->saved_col;
      }
}

/* The queries of a plain CSI: DA1 (c), DSR and CPR (n), window size (t). */
static void csi_query (struct replay_term *t, char final, const unsigned *p)
{
  switch (final)
    {
    case 'c':
      if (p[0] == 0)
        answer (t, REPLAY_Q_DA1, DA1_ANSWER, sizeof DA1_ANSWER - 1);
      break;
    case 'n':
      if (p[0] == 5)
        answer (t, REPLAY_Q_DSR, "\033[0n", 4);
      else if (p[0] == 6)
        answerf (t, REPLAY_Q_CPR, "\033[%u;%uR", t->row,
                 clampu (t->col, 1, t->cols));
      break;
    case 't':
      if (p[0] == 18)
        answerf (t, REPLAY_Q_WINOPS, "\033[8;%u;%ut", t->rows, t->cols);
      else if (p[0] == 19)
        answerf (t, REPLAY_Q_WINOPS, "\033[9;%u;%ut", t->rows, t->cols);
      else if (p[0] == 14)
        answerf (t, REPLAY_Q_WINOPS, "\033[4;%u;%ut", t->rows * 16, t->cols * 8);
      else if (p[0] == 16)
        answerf (t, REPLAY_Q_WINOPS, "\033[6;%u;%ut", 16, 8);
      else if (p[0] == 11)
        answer (t, REPLAY_Q_WINOPS, "\033[1t", 4);
      break;
    default:
      break;
    }
}

/* The cursor movements of a plain CSI, the scrolling margins and the
   cursor save and restore; A is the default-1 first argument. */
static void csi_cursor (struct replay_term *t, char final, const unsigned *p,
                        unsigned np, unsigned a)
{
  switch (final)
    {
    case 'A':
      t->row = clampu (t->row > a ? t->row - a : 1, 1, t->rows);
      t->col = clampu (t->col, 1, t->cols);
      break;
    case 'B':
      t->row = clampu (t->row + a, 1, t->rows);
      t->col = clampu (t->col, 1, t->cols);
      break;
    case 'C':
    case 'a':
      t->col = clampu (t->col + a, 1, t->cols);
      break;
    case 'D':
      t->col = clampu (t->col > a ? clampu (t->col, 1, t->cols) - a : 1, 1, t->cols);
      break;
    case 'E':
      t->row = clampu (t->row + a, 1, t->rows);
      t->col = 1;
      break;
    case 'F':
      t->row = clampu (t->row > a ? t->row - a : 1, 1, t->rows);
      t->col = 1;
      break;
    case 'G':
    case '`':
      t->col = clampu (a, 1, t->cols);
      break;
    case 'd':
      t->row = clampu (a, 1, t->rows);
      break;
    case 'H':
    case 'f':
      t->row = clampu (p[0] ? p[0] : 1, 1, t->rows);
      t->col = clampu (p[1] ? p[1] : 1, 1, t->cols);
      break;
    case 'b': /* REP: repeat the preceding character */
      t->col = clampu (t->col + a, 1, t->cols + 1);
      break;
    case 'r':
      {
        unsigned top = p[0] ? p[0] : 1;
        unsigned bot = p[1] ? p[1] : t->rows;
        if (top < bot && bot <= t->rows)
          {
            t->top = top;
            t->bottom = bot;
          }
        t->row = t->col = 1;
        break;
      }
    case 's':
      if (np == 0)
        t->saved_row = t->row, t->saved_col = t->col;
      break;
    case 'u':
      if (np == 0)
        t->row = t->saved_row, t->col = t->saved_col;
      break;
    default:
      break;
    }
}

/* A complete CSI sequence t->seq ending in FINAL. */
static void csi (struct replay_term *t, char final)
{
  const char *s = t->seq;
  size_t n = t->seq_len;
  char marker = 0, inter = 0;
  unsigned p[16];
  if (n && strchr ("<=>?", s[0]))
    marker = s[0], s++, n--;
  for (size_t i = 0; i < n; i++)
    if (s[i] >= 0x20 && s[i] <= 0x2F)
      inter = s[i];
  unsigned np = params (s, n, p, 16);
  unsigned a = p[0] ? p[0] : 1; /* default-1 argument */

  if (inter == '$' && final == 'p')
    {
      /* DECRQM: only DECCKM is reported as known. */
      if (marker == '?')
        answerf (t, REPLAY_Q_DECRQM, "\033[?%u;%u$y", p[0],
                 p[0] == 1 ? (t->app_cursor ? 1u : 2u) : 0u);
      else
        answerf (t, REPLAY_Q_DECRQM, "\033[%u;%u$y", p[0], 0);
      return;
    }
  if (inter)
    return;
  if (marker)
    {
      if (marker == '>' || marker == '?')
        csi_private (t, marker, final, p, np);
      return; /* '<' and '=' sequences are ignored */
    }
  if (final == 'c' || final == 'n' || final == 't')
    csi_query (t, final, p);
  else
    csi_cursor (t, final, p, np, a);
}

static void osc (struct replay_term *t, int st_terminated)
{
  const char *term = st_terminated ? "\033\\" : "\007";
  static const char *const color[3] = { "rgb:ffff/ffff/ffff",
                                        "rgb:0000/0000/0000",
                                        "rgb:ffff/ffff/ffff" };
  char buf[64];
  if (t->seq_len == 4 && t->seq[0] == '1' && t->seq[1] >= '0'
      && t->seq[1] <= '2' && t->seq[2] == ';' && t->seq[3] == '?')
    {
      int which = t->seq[1] - '0';
      int n = snprintf (buf, sizeof buf, "\033]1%d;%s%s", which, color[which], term);
      answer (t, REPLAY_Q_COLOR, buf, (size_t)n);
    }
}

static void dcs (struct replay_term *t)
{
  if (t->seq_len >= 2 && t->seq[0] == '+' && t->seq[1] == 'q')
    answer (t, REPLAY_Q_DCS, "\033P0+r\033\\", 7);
  else if (t->seq_len >= 2 && t->seq[0] == '$' && t->seq[1] == 'q')
    answer (t, REPLAY_Q_DCS, "\033P0$r\033\\", 7);
}

static void esc_final (struct replay_term *t, unsigned char c)
{
  switch (c)
    {
    case '7':
      t->saved_row = t->row, t->saved_col = t->col;
      break;
    case '8':
      t->row = t->saved_row, t->col = t->saved_col;
      break;
    case 'D':
      linefeed (t);
      break;
    case 'E':
      t->col = 1;
      linefeed (t);
      break;
    case 'M':
      if (t->row > t->top)
        t->row--;
      break;
    case 'Z':
      answer (t, REPLAY_Q_DA1, DA1_ANSWER, sizeof DA1_ANSWER - 1);
      break;
    case 'c':
      {
        unsigned r = t->rows, co = t->cols;
        t->row = t->col = 1;
        t->saved_row = t->saved_col = 1;
        t->app_cursor = 0;
        replay_term_resize (t, r, co);
        break;
      }
    default:
      break;
    }
}

static void collect (struct replay_term *t, char c)
{
  if (t->seq_len < sizeof t->seq)
    t->seq[t->seq_len++] = c;
  else
    t->seq_overflow = 1;
}

static void begin_seq (struct replay_term *t, int state)
{
  t->state = state;
  t->seq_len = 0;
  t->seq_overflow = 0;
}

void replay_term_feed (struct replay_term *t, const char *buf, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      unsigned char c = (unsigned char)buf[i];
      switch (t->state)
        {
        case S_GROUND:
          if (c == 0x1B)
            begin_seq (t, S_ESC);
          else if (c < 0x20 || c == 0x7F)
            control (t, c);
          else
            {
              text_put (t, (char)c);
              /* One column per character: count lead bytes only. */
              if ((c & 0xC0) != 0x80)
                put_char (t);
            }
          break;
        case S_ESC:
          if (c == '[')
            begin_seq (t, S_CSI);
          else if (c == ']')
            begin_seq (t, S_OSC);
          else if (c == 'P')
            begin_seq (t, S_DCS);
          else if (c == 'X' || c == '^' || c == '_')
            begin_seq (t, S_IGNSTR);
          else if (c >= 0x20 && c <= 0x2F)
            t->state = S_ESC_INT;
          else if (c == 0x1B)
            begin_seq (t, S_ESC);
          else if (c < 0x20)
            control (t, c);
          else
            {
              esc_final (t, c);
              t->state = S_GROUND;
            }
          break;
        case S_ESC_INT:
          if (c >= 0x30 && c <= 0x7E)
            t->state = S_GROUND;
          else if (c == 0x1B)
            begin_seq (t, S_ESC);
          else if (c < 0x20)
            control (t, c);
          break;
        case S_CSI:
          if (c >= 0x40 && c <= 0x7E)
            {
              if (!t->seq_overflow)
                csi (t, (char)c);
              t->state = S_GROUND;
            }
          else if (c == 0x1B)
            begin_seq (t, S_ESC);
          else if (c == 0x18 || c == 0x1A)
            t->state = S_GROUND;
          else if (c < 0x20)
            control (t, c);
          else
            collect (t, (char)c);
          break;
        case S_OSC:
        case S_DCS:
        case S_IGNSTR:
          if (c == 0x07 && t->state == S_OSC)
            {
              if (!t->seq_overflow)
                osc (t, 0);
              t->state = S_GROUND;
            }
          else if (c == 0x1B)
            {
              /* Remember which string we are in: ST is ESC '\'. */
              t->str_state = t->state;
              t->state = S_STR_ESC;
            }
          else if (c == 0x18 || c == 0x1A)
            t->state = S_GROUND;
          else
            collect (t, (char)c);
          break;
        case S_STR_ESC:
          {
            int which = t->str_state;
            t->state = S_GROUND;
            if (c == '\\' && !t->seq_overflow)
              {
                if (which == S_OSC)
                  osc (t, 1);
                else if (which == S_DCS)
                  dcs (t);
              }
            else if (c != '\\')
              {
                /* A new escape sequence interrupted the string. */
                begin_seq (t, S_ESC);
                i--;
              }
            break;
          }
        default:
          t->state = S_GROUND;
          break;
        }
    }
}
