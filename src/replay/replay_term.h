/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * replay_term.h -- the little terminal that `emlat replay` pretends to be.
 *
 * It scans everything CMD writes, as a stream split at arbitrary points, and
 * (1) answers the queries a program sends at start-up and later, with the
 * fixed identity documented in docs/REPLAY.md ("Terminal identity"),
 * (2) tracks the cursor approximately, enough for cursor position reports,
 * (3) tracks the cursor-key mode (DECCKM) that key encoding depends on, and
 * (4) keeps the printable text (escape and control sequences removed) that
 * `wait "pattern"` directives search.
 *
 * Invariants: answers are appended to a bounded buffer the caller drains
 * (never lost silently: overflow is counted); sequences longer than the
 * collection limits are consumed and ignored, never answered; the text
 * window keeps at most REPLAY_TEXT_MAX bytes.  Nothing here records.
 */
#ifndef EMLAT_REPLAY_TERM_H
#define EMLAT_REPLAY_TERM_H

#include <stddef.h>
#include <stdint.h>

#define REPLAY_ANSWER_MAX 1024
#define REPLAY_SEQ_MAX 256
#define REPLAY_TEXT_MAX 65536

/* Kinds of answered queries, for the summary. */
enum replay_query {
  REPLAY_Q_DA1, REPLAY_Q_DA2, REPLAY_Q_DSR, REPLAY_Q_CPR, REPLAY_Q_WINOPS,
  REPLAY_Q_XTVERSION, REPLAY_Q_DECRQM, REPLAY_Q_COLOR, REPLAY_Q_DCS,
  REPLAY_Q_COUNT
};

struct replay_term
{
  unsigned rows, cols;
  unsigned row, col;        /* 1-based; col == cols + 1 means wrap pending */
  unsigned saved_row, saved_col;
  unsigned top, bottom;     /* scrolling region */
  int app_cursor;           /* DECCKM */
  /* Parser state. */
  int state;
  char seq[REPLAY_SEQ_MAX];
  size_t seq_len;
  int seq_overflow;
  int str_state;            /* the string state an ESC interrupted */
  /* Answers waiting to be written to CMD. */
  char answer[REPLAY_ANSWER_MAX];
  size_t answer_len;
  uint64_t answers_dropped;
  uint64_t answered[REPLAY_Q_COUNT];
  /* Printable text since the start (window of the last REPLAY_TEXT_MAX). */
  char text[REPLAY_TEXT_MAX];
  size_t text_len;
  size_t text_mark;         /* start of the `wait` search window */
};

void replay_term_init (struct replay_term *t, unsigned rows, unsigned cols);

/* Scan N output bytes. */
void replay_term_feed (struct replay_term *t, const char *p, size_t n);

/* The window changed size (clamps the cursor and the scrolling region). */
void replay_term_resize (struct replay_term *t, unsigned rows, unsigned cols);

/* Start the `wait` search window at the current end of the text. */
void replay_term_mark (struct replay_term *t);

/* Nonzero when PAT (LEN bytes) occurs in the text since the mark. */
int replay_term_seen (const struct replay_term *t, const char *pat, size_t len);

/* Total answered queries. */
uint64_t replay_term_answered (const struct replay_term *t);

#endif /* EMLAT_REPLAY_TERM_H */
