/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * interpose_match.h -- matching the sends of `emlat replay` with the
 * interactions libemlat-tty.so recorded inside the program, by time
 * (docs/TTY.md, "Replay sends and program interactions"):
 *
 *   send i owns the window [t_send(i), t_send(i+1)) (the last one is open
 *   ended); an input batch belongs to the window its read END falls in
 *   (a read that ends after the send may have begun before it: a blocking
 *   read); a TTY-command interaction belongs to the window of its FIRST
 *   source batch.  The interactions of one window are the send's group.
 *
 *   Byte rule: the bytes of a window's batches are exactly the send's bytes
 *   (tsv column sent_bytes).  Coalescing: a send the program read together
 *   with later ones (it was busy, or read more than one send at once) has
 *   an empty window, and the next nonempty window holds exactly the sum of
 *   the sends since the last nonempty one.  A send read in several batches
 *   (less reads ESC [ 6 ~ one byte at a time) is a group of several
 *   interactions: the library sees reads, not keys.
 *
 * Invariants: pure functions of the loaded profiles and the tsv table; no
 * time is measured here.
 */
#ifndef EMLAT_INTERPOSE_MATCH_H
#define EMLAT_INTERPOSE_MATCH_H

#include "interpose_run.h"

#define IM_MAX_SENDS 512
#define IM_ABSENT UINT64_MAX

struct im_send
{
  uint64_t t_send, t_first, t_quiet; /* IM_ABSENT when absent */
  uint64_t sent_bytes;               /* from the tsv */
  uint32_t status;
  /* The program's side. */
  uint64_t read_bytes;   /* bytes of the batches in the window */
  size_t n_batches;
  size_t n_ix;           /* TTY-command interactions in the group */
  uint64_t in_latest;    /* T_INPUT_LATEST of the group's first interaction */
  uint64_t out_begin;    /* earliest T_OUTPUT_BEGIN in the group */
  uint64_t flush_begin;  /* T_FLUSH_BEGIN/END of the group's last flush */
  uint64_t flush_end;
  uint64_t in_earliest;  /* T_INPUT_EARLIEST of the group's first interaction */
  /* The write bounds (FORMAT.md F-66b): the group's earliest first write,
     its beginning and end. */
  uint64_t wfirst_begin, wfirst_end;
  int coalesced;         /* empty window, bytes read in a later one */
};

struct im_match
{
  struct im_send s[IM_MAX_SENDS];
  size_t n;
  uint64_t bytes_before;   /* read before the first send: query answers */
  size_t ix_before;        /* TTY-command interactions before it */
  size_t ix_unmatched;     /* TTY-command interactions without a batch */
  size_t ix_open;          /* never completed (the process was killed): the
                              reader has only their begin record */
  size_t ix_tty;           /* all TTY-command interactions */
  size_t ix_unattributed;  /* unattributed-output interactions */
  size_t coalesced, split; /* sends with empty / multi-interaction groups */
};

/* The tsv's sent_bytes column (7th), rows in send order; returns rows. */
static inline size_t im_tsv_sent (const char *path, uint64_t *out, size_t max)
{
  uint8_t *buf;
  size_t len, n = 0;
  if (tu_read_file (path, &buf, &len) != 0)
    {
      CHECK (0, "read %s", path);
      return 0;
    }
  char *save = NULL;
  for (char *line = strtok_r ((char *)buf, "\n", &save); line && n < max;
       line = strtok_r (NULL, "\n", &save))
    {
      if (line[0] == '#')
        continue;
      char *col = line;
      for (int k = 0; k < 6 && col; k++)
        {
          col = strchr (col, '\t');
          if (col)
            col++;
        }
      if (col)
        out[n++] = strtoull (col, NULL, 10);
    }
  free (buf);
  return n;
}

/* The window of time T: the index of the last send at or before T, or -1
   (before the first send). */
static inline long im_window (const struct im_match *m, uint64_t t)
{
  long w = -1;
  for (size_t i = 0; i < m->n; i++)
    if (m->s[i].t_send <= t)
      w = (long)i;
  return w;
}

static inline void im_build (struct im_match *m, const struct ir_run *r)
{
  memset (m, 0, sizeof *m);
  const struct rt_profile *d = &r->drv, *p = &r->prog;
  for (size_t i = 0; i < d->n_ix && m->n < IM_MAX_SENDS; i++)
    {
      const struct emlat_interaction *ix = &d->ix[i];
      uint64_t ts = rt_time (d, ix, EMLAT_T_EXTERNAL_SEND);
      if (ts == IM_ABSENT)
        continue;
      struct im_send *s = &m->s[m->n++];
      s->t_send = ts;
      s->t_first = rt_time (d, ix, EMLAT_T_EXTERNAL_FIRST_OUTPUT);
      s->t_quiet = rt_time (d, ix, EMLAT_T_EXTERNAL_QUIESCENT);
      s->status = ix->status;
      s->in_latest = s->out_begin = s->flush_begin = s->flush_end = IM_ABSENT;
      s->in_earliest = s->wfirst_begin = s->wfirst_end = IM_ABSENT;
    }
  static uint64_t sent[IM_MAX_SENDS];
  size_t rows = im_tsv_sent (r->tsv, sent, IM_MAX_SENDS);
  CHECK_EQ_U64 (rows, m->n);
  for (size_t i = 0; i < m->n && i < rows; i++)
    m->s[i].sent_bytes = sent[i];

  size_t nb;
  const struct emlat_rd_input *b = emlat_profile_inputs (p->p, &nb);
  for (size_t k = 0; k < nb; k++)
    {
      long w = im_window (m, b[k].t_read_end);
      if (w < 0)
        m->bytes_before += b[k].bytes;
      else
        {
          m->s[w].read_bytes += b[k].bytes;
          m->s[w].n_batches++;
        }
    }

  for (size_t i = 0; i < p->n_ix; i++)
    {
      const struct emlat_interaction *ix = &p->ix[i];
      if (ix->root_kind == EMLAT_ROOT_UNATTRIBUTED_OUTPUT)
        m->ix_unattributed++;
      if (ix->root_kind != EMLAT_ROOT_TTY_COMMAND)
        continue;
      m->ix_tty++;
      uint64_t first_batch;
      const struct emlat_rd_input *fb = NULL;
      if (emlat_profile_ix_value (p->p, ix, EMLAT_V_FIRST_SOURCE_BATCH,
                                  &first_batch))
        for (size_t k = 0; k < nb && !fb; k++)
          if (b[k].batch_id == first_batch)
            fb = &b[k];
      if (!fb)
        {
          if (ix->status == EMLAT_STATUS_OPEN)
            m->ix_open++;
          else
            m->ix_unmatched++;
          continue;
        }
      long w = im_window (m, fb->t_read_end);
      if (w < 0)
        {
          m->ix_before++;
          continue;
        }
      struct im_send *s = &m->s[w];
      s->n_ix++;
      /* Interactions are in cause order, which is the order they opened. */
      if (s->in_latest == IM_ABSENT)
        {
          s->in_latest = rt_time (p, ix, EMLAT_T_INPUT_LATEST);
          s->in_earliest = rt_time (p, ix, EMLAT_T_INPUT_EARLIEST);
        }
      uint64_t wb = rt_time (p, ix, EMLAT_T_WRITE_FIRST_BEGIN);
      if (wb != IM_ABSENT && (s->wfirst_begin == IM_ABSENT || wb < s->wfirst_begin))
        {
          s->wfirst_begin = wb;
          s->wfirst_end = rt_time (p, ix, EMLAT_T_WRITE_FIRST_END);
        }
      uint64_t ob = rt_time (p, ix, EMLAT_T_OUTPUT_BEGIN);
      if (ob != IM_ABSENT && (s->out_begin == IM_ABSENT || ob < s->out_begin))
        s->out_begin = ob;
      uint64_t fe = rt_time (p, ix, EMLAT_T_FLUSH_END);
      if (fe != IM_ABSENT && (s->flush_end == IM_ABSENT || fe > s->flush_end))
        {
          s->flush_end = fe;
          s->flush_begin = rt_time (p, ix, EMLAT_T_FLUSH_BEGIN);
        }
    }

  /* Coalescing: an empty window (its bytes are owed to a later one,
     im_check_counts verifies they arrive there). */
  for (size_t i = 0; i < m->n; i++)
    {
      struct im_send *s = &m->s[i];
      if (s->read_bytes == 0 && s->sent_bytes > 0)
        {
          s->coalesced = 1;
          m->coalesced++;
        }
      else if (s->n_ix > 1)
        m->split++;
    }
}

/* The byte rule and the interaction count rule (see the top). */
static inline void im_check_counts (const struct im_match *m, const char *name)
{
  uint64_t owed = 0, total_sent = 0, total_read = 0;
  size_t groups = 0, ix_in = 0;
  for (size_t i = 0; i < m->n; i++)
    {
      const struct im_send *s = &m->s[i];
      owed += s->sent_bytes;
      total_sent += s->sent_bytes;
      total_read += s->read_bytes;
      ix_in += s->n_ix;
      if (s->coalesced)
        continue;
      CHECK (s->read_bytes == owed,
             "%s: send %zu: the program read exactly the bytes sent since the "
             "last batch (%llu read, %llu owed)", name, i,
             (unsigned long long)s->read_bytes, (unsigned long long)owed);
      CHECK (s->n_ix >= 1 && s->n_ix <= s->n_batches,
             "%s: send %zu: 1..%zu interactions (one per batch at most), got %zu",
             name, i, s->n_batches, s->n_ix);
      groups++;
      owed = 0;
    }
  CHECK_EQ_U64 (total_read, total_sent);
  CHECK_EQ_U64 (groups + m->coalesced, m->n);
  /* Every TTY-command interaction is accounted for: before the workload
     (reading query answers), or in exactly one send's group. */
  CHECK_EQ_U64 (m->ix_unmatched, 0);
  CHECK_EQ_U64 (m->ix_before + ix_in + m->ix_open, m->ix_tty);
  CHECK_LE_U64 (m->ix_open, 1);
  CHECK (ix_in <= total_sent, "%s: at most one interaction per byte sent", name);
  TEST_DIAG ("%s: %zu sends, %llu bytes; %zu groups, %zu interactions in "
             "them (%zu sends split over several), %zu coalesced; before the "
             "workload %llu bytes / %zu interactions; %zu unattributed-output "
             "interactions", name, m->n, (unsigned long long)total_sent, groups,
             ix_in, m->split, m->coalesced, (unsigned long long)m->bytes_before,
             m->ix_before, m->ix_unattributed);
}

static int im_cmp_i64 (const void *a, const void *b)
{
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* Nearest-rank percentile PCT of V[0..N) (sorted in place). */
static inline int64_t im_pct (int64_t *v, size_t n, unsigned pct)
{
  qsort (v, n, sizeof *v, im_cmp_i64);
  size_t k = (n * pct + 99) / 100;
  return v[k ? k - 1 : 0];
}

#endif /* EMLAT_INTERPOSE_MATCH_H */
