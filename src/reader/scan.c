/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * scan.c -- the sequential scanner over one .emlat file, in memory or
 * read through a window (window.h) that holds one chunk at a time.
 *
 * Walks the file header (F-10..F-13) and then chunk after chunk (F-20..F-32):
 * framing and CRCs first (src/format/decode.c, in the order of F-26), then
 * classification in the order of F-33 (experimental, invalid type or
 * version, unknown type, newer version, reserved flags, codec, decode), then
 * two passes over a decodable payload: the first validates it completely
 * (F-27: no record of an invalid chunk is ever used), the second hands its
 * records to the visitor.  Sequence gaps (F-23), a missing or repeated
 * SESSION (F-40, F-43) and the final STATS (F-42) are tracked on the way;
 * every diagnostic that is damage (emlat_diag_is_damage, F-94) is counted.
 *
 * Invariants: the offset only grows (each framed chunk is at least 40
 * bytes), so the scan ends; all reads are bounded by the decoder; memory is
 * allocated only for the per-file string-id set of F-62, bounded by
 * max_strings and max_alloc_bytes, and by the window for one chunk (at
 * most 4 KiB of header and max_chunk_payload of payload, read only once
 * its header says so) plus its read-ahead.  A record's pointers (keys,
 * strings) point into the window: valid during the visitor's call only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emlat/emlat_reader.h"
#include "common/endian.h"
#include "format/decode.h"
#include "format/format.h"
#include "reader/budget.h"
#include "reader/limits.h"
#include "reader/scan.h"
#include "reader/u64map.h"

struct scan
{
  const struct emlat_scan_params *p;
  struct emlat_limits lim;
  struct emlat_scan_result *res;
  struct emlat_budget budget;
  struct emlat_u64map strings;  /* string ids defined in this file (F-62) */
  struct emlat_vec chunk_ids;   /* uint64_t: ids of the chunk being validated */
  int chunk_final;              /* stats.final = 1 seen in this STATS chunk */
  int limit;                    /* a limit stopped the scan */
};

static void diag (struct scan *s, enum emlat_diag_kind kind, uint64_t offset,
                  uint64_t a, uint64_t b, const struct emlat_chunk_info *ci,
                  const char *what)
{
  struct emlat_diag d = { kind, s->p->file_index, offset, a, b,
                          ci ? ci->type : 0, ci ? ci->version : 0,
                          what ? what : "" };
  s->res->diagnostics++;
  if (emlat_diag_is_damage (kind))
    s->res->damage++;
  /* The stop overrides any earlier soft problem (see stop()). */
  if (s->res->first_problem.kind == 0 || kind == EMLAT_DIAG_DAMAGE)
    s->res->first_problem = d;
  if (s->p->visitor.on_diag)
    s->p->visitor.on_diag (s->p->visitor.ctx, &d);
}

static void stop (struct scan *s, enum emlat_stop why, uint64_t offset)
{
  s->res->stop = why;
  s->res->stop_offset = offset;
  if (why == EMLAT_STOP_CLEAN)
    return;
  if (why == EMLAT_STOP_VISITOR)
    return; /* the caller asked; it knows */
  diag (s, EMLAT_DIAG_DAMAGE, offset, (uint64_t)why, 0, NULL, emlat_stop_name (why));
}

/* Validation pass callback: collect STRING ids for the F-62 check. */
static int collect_string_id (void *ctx, const struct emlat_chunk_info *ci,
                              const struct emlat_record *r)
{
  struct scan *s = ctx;
  (void)ci;
  if (r->kind != EMLAT_REC_STRING)
    return 0;
  if (emlat_vec_reserve (&s->budget, &s->chunk_ids, s->chunk_ids.n + 1,
                         sizeof (uint64_t), s->lim.max_strings))
    {
      s->limit = 1;
      return 1;
    }
  EMLAT_VEC_AT (s->chunk_ids, uint64_t, s->chunk_ids.n++) = r->u.str.id;
  return 0;
}

static int cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* F-62 for one STRING chunk whose ids are in chunk_ids: no id repeated
   within it or defined by an earlier chunk of the file.  Returns 0 when
   valid (and commits the ids), 1 when invalid, -1 at a limit. */
static int check_string_ids (struct scan *s)
{
  uint64_t *ids = s->chunk_ids.p;
  size_t n = s->chunk_ids.n;
  if (n > 1)
    qsort (ids, n, sizeof *ids, cmp_u64);
  for (size_t i = 0; i < n; i++)
    if ((i > 0 && ids[i] == ids[i - 1]) || emlat_u64map_get (&s->strings, ids[i]))
      return 1;
  if (s->strings.n + n > s->lim.max_strings)
    return -1;
  for (size_t i = 0; i < n; i++)
    {
      uint64_t *v;
      int added;
      if (emlat_u64map_put (&s->strings, &s->budget, ids[i], &v, &added))
        return -1;
    }
  return 0;
}

static int key_is (const struct emlat_kv *kv, const char *key)
{
  size_t n = strlen (key);
  return kv->key_len == n && memcmp (kv->key, key, n) == 0;
}

/* Delivery pass callback: counters, then the visitor. */
static int deliver (void *ctx, const struct emlat_chunk_info *ci, const struct emlat_record *r)
{
  struct scan *s = ctx;
  struct emlat_scan_result *res = s->res;
  res->records++;
  if ((unsigned)r->kind < sizeof res->records_by_kind / sizeof res->records_by_kind[0])
    res->records_by_kind[r->kind]++;
  if (r->kind == EMLAT_REC_LOSS)
    {
      res->loss_records++;
      res->lost_records += r->u.loss.records;
      res->lost_bytes += r->u.loss.bytes;
    }
  else if (r->kind == EMLAT_REC_KV && ci->type == EMLAT_CHUNK_STATS
           && key_is (&r->u.kv, "stats.final"))
    s->chunk_final = r->u.kv.type == EMLAT_KV_UINT && r->u.kv.u == 1;
  if (s->p->visitor.on_record && s->p->visitor.on_record (s->p->visitor.ctx, ci, r))
    return 1;
  return 0;
}

/* Decode one chunk of a known type and version.  Returns 0 to go on,
   1 to stop (visitor or limit). */
static int decode_chunk (struct scan *s, struct emlat_chunk_info *ci, const uint8_t *payload)
{
  struct emlat_dec d;
  int rc;
  s->chunk_ids.n = 0;
  rc = emlat_decode_block (payload, ci->stored, ci,
                           ci->type == EMLAT_CHUNK_STRING ? collect_string_id : NULL, s, &d);
  if (rc > 0 && s->limit)
    return 1;
  if (rc == 0 && ci->type == EMLAT_CHUNK_STRING)
    {
      int v = check_string_ids (s);
      if (v < 0)
        {
          s->limit = 1;
          return 1;
        }
      if (v > 0)
        {
          rc = -1;
          d.why = EMLAT_INVALID_DUPLICATE;
          d.at = 0;
        }
    }
  if (rc < 0)
    {
      s->res->chunks_invalid++;
      diag (s, EMLAT_DIAG_INVALID_CHUNK, ci->offset, (uint64_t)d.why, d.at, ci,
            emlat_invalid_name (d.why));
      if (s->p->visitor.on_chunk && s->p->visitor.on_chunk (s->p->visitor.ctx, ci, 0))
        return 1;
      return 0;
    }
  s->res->chunks_by_type[ci->type]++;
  if (s->p->visitor.on_chunk && s->p->visitor.on_chunk (s->p->visitor.ctx, ci, 1))
    return 1;
  s->chunk_final = 0;
  rc = emlat_decode_block (payload, ci->stored, ci, deliver, s, &d);
  if (ci->type == EMLAT_CHUNK_STATS)
    s->res->final_stats = s->chunk_final;
  return rc != 0;
}

/* A framed chunk that is not used: invalid (F-27) for WHY. */
static void invalid_chunk (struct scan *s, const struct emlat_chunk_info *ci,
                           enum emlat_invalid why)
{
  s->res->chunks_invalid++;
  diag (s, EMLAT_DIAG_INVALID_CHUNK, ci->offset, why, 0, ci, emlat_invalid_name (why));
}

/* Classify a framed chunk in the order of F-33 and decode it if it can be.
   Returns 0 to go on, 1 to stop. */
static int handle_chunk (struct scan *s, struct emlat_chunk_info *ci, const uint8_t *payload)
{
  struct emlat_scan_result *res = s->res;
  uint32_t codec = ci->flags & EMLAT_CH_CODEC_MASK;
  s->res->final_stats = 0; /* any later chunk means the final STATS was not last */
  if (ci->type >= EMLAT_CHUNK_EXPERIMENTAL_MIN) /* F-32: silently, but counted */
    {
      res->chunks_experimental++;
      return s->p->visitor.on_chunk && s->p->visitor.on_chunk (s->p->visitor.ctx, ci, 0);
    }
  if (ci->type == 0 || ci->version == 0) /* F-31: never assigned */
    invalid_chunk (s, ci, EMLAT_INVALID_RANGE);
  else if (ci->type > EMLAT_CHUNK_TYPE_MAX_KNOWN) /* F-31 */
    {
      res->chunks_skipped++;
      diag (s, EMLAT_DIAG_SKIP_TYPE, ci->offset, ci->type, ci->version, ci,
            "unknown chunk type");
    }
  else if (ci->version > emlat_type_version_max (ci->type)) /* F-31: newer */
    {
      res->chunks_skipped++;
      diag (s, EMLAT_DIAG_SKIP_VERSION, ci->offset, ci->type, ci->version, ci,
            "unsupported chunk version");
    }
  else if (ci->flags & ~EMLAT_CH_CODEC_MASK)
    /* Reserved flag bits (F-22a): the framing is sound but the chunk claims
       something this reader does not know, so it is not used (F-27). */
    invalid_chunk (s, ci, EMLAT_INVALID_RESERVED);
  else if (codec != EMLAT_CODEC_NONE) /* F-30: a known chunk's data lost */
    {
      res->chunks_skipped++;
      diag (s, EMLAT_DIAG_SKIP_CODEC, ci->offset, codec, 0, ci, "unsupported codec");
    }
  else
    return decode_chunk (s, ci, payload);
  return s->p->visitor.on_chunk && s->p->visitor.on_chunk (s->p->visitor.ctx, ci, 0);
}

/* Frame the chunk at OFF of W (emlat_frame_chunk on the bytes of that
   chunk only): the header first, then the rest when its sizes are
   plausible, so that a chunk claiming more than the reader allows is never
   read.  Window W holds every byte the framing looks at, up to the end of
   the input, so the verdict is the one the whole file in memory gets. */
static enum emlat_stop frame_at (struct scan *s, struct emlat_window *w, uint64_t off,
                                 struct emlat_chunk_info *ci, const uint8_t **payload,
                                 uint64_t *next)
{
  size_t av;
  const uint8_t *h = emlat_window_get (w, off, EMLAT_CHUNK_HEADER_SIZE, &av);
  if (av >= EMLAT_CHUNK_HEADER_SIZE && memcmp (h + EMLAT_CH_MAGIC, EMLAT_CHUNK_MAGIC, 4) == 0)
    {
      uint32_t hsize = emlat_le32 (h + EMLAT_CH_HEADER_SIZE);
      if (hsize >= EMLAT_CHUNK_HEADER_SIZE && hsize <= EMLAT_CHUNK_HEADER_MAX && !(hsize & 7u))
        {
          h = emlat_window_get (w, off, hsize, &av);
          uint32_t stored = av >= hsize ? emlat_le32 (h + EMLAT_CH_STORED) : UINT32_MAX;
          if (stored <= s->lim.max_chunk_payload && stored <= EMLAT_CHUNK_PAYLOAD_MAX)
            h = emlat_window_get (w, off, (size_t)hsize + stored + EMLAT_PAD8 (stored), &av);
        }
    }
  size_t rel;
  enum emlat_stop why = emlat_frame_chunk (h, av, 0, s->lim.max_chunk_payload, ci, payload,
                                           &rel);
  ci->offset = off;
  *next = off + rel;
  return why;
}

/* The scan of one input through W (emlat_scan, emlat_scan_fd and the
   loader's streamed files). */
void emlat_scan_window (struct emlat_window *w, const struct emlat_scan_params *p,
                        struct emlat_scan_result *res)
{
  struct scan s;
  memset (&s, 0, sizeof s);
  memset (res, 0, sizeof *res);
  s.p = p;
  s.res = res;
  emlat_limits_resolve (p->limits, &s.lim);
  s.budget.limit = s.lim.max_alloc_bytes;

  size_t av;
  const uint8_t *h = emlat_window_get (w, 0, EMLAT_FILE_HEADER_SIZE, &av);
  enum emlat_stop why = w->err ? EMLAT_STOP_IO_ERROR
                               : emlat_parse_file_header (h, av, &res->header);
  if (why != EMLAT_STOP_CLEAN)
    {
      res->file_bytes = emlat_window_length (w);
      stop (&s, why, 0);
      return;
    }
  res->header_ok = 1;
  if (res->header.flags || res->header.reserved) /* F-12 */
    diag (&s, EMLAT_DIAG_HEADER_RESERVED, 0, res->header.flags, res->header.reserved,
          NULL, "reserved header bits");
  if (p->visitor.on_header && p->visitor.on_header (p->visitor.ctx, &res->header))
    {
      res->file_bytes = emlat_window_length (w);
      stop (&s, EMLAT_STOP_VISITOR, 0);
      return;
    }

  uint64_t expect = p->expect_sequence;
  if (expect == 0 && res->header.rotation == 0)
    expect = 1; /* F-23 */
  uint64_t off = EMLAT_FILE_HEADER_SIZE;
  int at_end = 0;
  for (;;)
    {
      emlat_window_get (w, off, 1, &av);
      if (av == 0)
        {
          at_end = !w->err;
          why = w->err == ENOMEM ? EMLAT_STOP_LIMIT : EMLAT_STOP_IO_ERROR;
          break;
        }
      struct emlat_chunk_info ci;
      const uint8_t *payload;
      uint64_t next;
      why = frame_at (&s, w, off, &ci, &payload, &next);
      if (why != EMLAT_STOP_CLEAN)
        {
          /* A read that failed is not damage of the file. */
          if (w->err)
            why = w->err == ENOMEM ? EMLAT_STOP_LIMIT : EMLAT_STOP_IO_ERROR;
          break;
        }
      if (p->decode_types && (ci.type >= 32 || !(p->decode_types >> ci.type & 1u)))
        {
          off = next; /* a type this scan does not want: framed only */
          continue;
        }
      res->chunks++;
      if (res->chunks == 1)
        res->first_sequence = ci.sequence;
      res->last_sequence = ci.sequence;
      if (expect != 0 && ci.sequence != expect) /* F-23: report, keep reading */
        {
          res->sequence_gaps++;
          diag (&s, EMLAT_DIAG_SEQUENCE_GAP, off, expect, ci.sequence, &ci, "sequence gap");
        }
      expect = ci.sequence + 1; /* 0 after UINT64_MAX: unchecked from then on */
      if (ci.type == EMLAT_CHUNK_SESSION)
        {
          res->session_chunks++;
          if (res->session_chunks > 1 || res->chunks > 1) /* F-40: exactly one, first */
            diag (&s, EMLAT_DIAG_EXTRA_SESSION, off, res->session_chunks, 0, &ci,
                  "SESSION not first or repeated");
        }
      if (res->chunks == 1 && ci.type != EMLAT_CHUNK_SESSION) /* F-40 */
        {
          res->missing_session = 1;
          diag (&s, EMLAT_DIAG_MISSING_SESSION, EMLAT_FILE_HEADER_SIZE, 0, 0, &ci,
                "first chunk is not SESSION");
        }
      if (handle_chunk (&s, &ci, payload))
        {
          why = s.limit ? EMLAT_STOP_LIMIT : EMLAT_STOP_VISITOR;
          break;
        }
      off = next;
    }
  res->file_bytes = emlat_window_length (w);
  if (at_end)
    {
      if (res->chunks == 0) /* F-43: a header and nothing else */
        {
          res->missing_session = 1;
          diag (&s, EMLAT_DIAG_MISSING_SESSION, EMLAT_FILE_HEADER_SIZE, 0, 0, NULL,
                "no chunk after the file header");
        }
      stop (&s, EMLAT_STOP_CLEAN, off); /* F-25 */
    }
  else
    stop (&s, why, off);
  emlat_u64map_free (&s.strings, &s.budget);
  emlat_vec_free (&s.budget, &s.chunk_ids, sizeof (uint64_t));
}

EMLAT_API int emlat_scan (const uint8_t *buf, size_t len, const struct emlat_scan_params *p,
                          struct emlat_scan_result *res)
{
  memset (res, 0, sizeof *res);
  if (!p || (!buf && len))
    return -EINVAL;
  struct emlat_window w;
  emlat_window_mem (&w, buf, len);
  emlat_scan_window (&w, p, res);
  return 0;
}

EMLAT_API int emlat_scan_fd (int fd, const struct emlat_scan_params *p,
                             struct emlat_scan_result *res)
{
  memset (res, 0, sizeof *res);
  if (!p || fd < 0)
    return -EINVAL;
  struct stat st;
  if (fstat (fd, &st) != 0)
    return -errno;
  if (S_ISDIR (st.st_mode))
    return -EISDIR;
  struct emlat_limits lim;
  emlat_limits_resolve (p->limits, &lim);
  struct emlat_budget budget = { 0, lim.max_alloc_bytes, 0 };
  struct emlat_window w;
  off_t pos = S_ISREG (st.st_mode) ? lseek (fd, 0, SEEK_CUR) : -1;
  if (pos >= 0)
    emlat_window_fd (&w, fd, 1, (uint64_t)pos,
                     st.st_size > pos ? (uint64_t)(st.st_size - pos) : 0, &budget);
  else
    emlat_window_fd (&w, fd, 0, 0, UINT64_MAX, &budget);
  emlat_scan_window (&w, p, res);
  emlat_window_free (&w);
  return 0;
}
