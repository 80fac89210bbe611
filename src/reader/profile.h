/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * profile.h -- the inside of struct emlat_profile, shared by the loader
 * (profile_load.c), its finishing pass (profile_finish.c), the accessors
 * (profile_access.c) and the per-interaction span re-scan (ix_spans.c).
 *
 * Memory layout: one array of interactions; their present fields packed in
 * a uint64_t arena (times, then values, then counters, then non-default
 * qualities four bits each), addressed by priv_slot and counted by the
 * popcount of the masks; span aggregates in one array addressed by
 * priv_agg_off/priv_agg_n.  Regular files are streamed, never held
 * (profile_files.c): every scan of the load or a later re-scan
 * (emlat_profile_rescan, emlat_profile_ix_spans) reads them again through
 * a window of one chunk; only buffers handed over and streams read to
 * their end stay in memory.  Strings and the SESSION and STATS entries are
 * therefore copies (bytestore.h).  Everything allocated, and every input
 * buffer kept, is charged to the budget (limits.max_alloc_bytes).
 */
#ifndef EMLAT_PROFILE_H
#define EMLAT_PROFILE_H

#include "emlat/emlat_reader.h"
#include "reader/budget.h"
#include "reader/bytestore.h"
#include "reader/idset.h"
#include "reader/ixstream.h"
#include "reader/spanjoin.h"
#include "reader/u64map.h"

/* One file of the set.  Its bytes are either held in memory (BUF, LEN: a
   caller's buffer, or a stream read to its end; released through RELEASE,
   when not NULL, exactly once by emlat_pfile_release) or streamed from a
   regular file (STREAMED): opened again by PATH for every scan (BY_PATH,
   and then it must still be the file DEV, INO with at least SIZE bytes) or
   read from the descriptor FD the profile keeps, bytes [BASE, BASE +
   SIZE).  A streamed file's length is fixed at its first look: a file
   that grows (a recording still running) is read as it was then. */
struct emlat_pfile
{
  char *path;             /* display name (a copy) */
  const uint8_t *buf;
  size_t len;
  void (*release) (void *ctx, const uint8_t *data, size_t len);
  void *release_ctx;
  int streamed, by_path;
  int fd;                 /* -1 unless kept */
  uint64_t dev, ino, base, size;
  struct emlat_file_header header;
  int header_ok;
  int in_session;         /* of the session loaded (F-81), set by ordering */
  int read_error;
};

struct emlat_string_entry
{
  uint64_t id;
  const uint8_t *bytes;
  uint32_t len;
};

/* A span agg node during loading: singly linked per interaction. */
struct emlat_agg_node
{
  struct emlat_span_agg agg;
  uint32_t next; /* index + 1, 0 = end */
};


struct emlat_profile
{
  struct emlat_limits lim;
  unsigned flags;
  struct emlat_budget budget;

  /* Files in rotation order (ignored ones after), with their summaries. */
  struct emlat_pfile *files;
  struct emlat_file_summary *summaries;
  size_t n_files;
  int have_header;
  struct emlat_file_header header;

  struct emlat_vec session;   /* struct emlat_kv */
  struct emlat_vec stats;     /* struct emlat_kv, of the last STATS chunk */
  struct emlat_bytestore bytes;       /* strings and SESSION keys and values */
  struct emlat_bytestore stats_bytes; /* the last STATS chunk's */
  int session_done;           /* the first SESSION chunk was taken */
  int cpu_end_at_end;         /* SESSION ix.thread_cpu_end_at is
                                 interaction_end (its last entry) */
  struct emlat_vec strings;   /* struct emlat_string_entry, sorted by id at end */
  struct emlat_u64map string_ids; /* id -> index + 1 (load only) */
  uint64_t string_bytes;

  struct emlat_vec ix;        /* struct emlat_interaction */
  struct emlat_u64map ix_ids; /* cause -> index + 1 (load only) */
  struct emlat_vec arena;     /* uint64_t */
  struct emlat_vec aggs;      /* struct emlat_agg_node while loading, then
                                 struct emlat_span_agg */
  struct emlat_span_agg unattributed[EMLAT_SPAN_KIND_MAX + 1];

  struct emlat_spanjoin join; /* begin records awaiting their end */
  struct emlat_idset span_ids;  /* every span id begun or completed (F-92) */
  struct emlat_idset batch_ids; /* every input batch id (F-92) */
  struct emlat_vec spans;     /* struct emlat_span (EMLAT_LOAD_SPANS) */
  struct emlat_vec span_counters; /* uint64_t pool of those spans */

  struct emlat_vec inputs;    /* struct emlat_rd_input */
  struct emlat_vec events;    /* struct emlat_event (profile_app.c) */
  struct emlat_vec named;     /* struct emlat_named_span (profile_app.c) */
  struct emlat_vec samples;   /* struct emlat_rd_sample (profile_app.c) */
  struct emlat_vec losses;    /* struct emlat_loss_entry */
  struct emlat_vec diags;     /* struct emlat_diag */

  struct emlat_profile_totals totals;

  /* EMLAT_LOAD_STREAM: interactions go through IXS, each handed to
     DELIVER (may be NULL) as it becomes final; none is kept. */
  struct emlat_ixstream ixs;
  int (*deliver) (void *ctx, const struct emlat_profile *p, const struct emlat_interaction *ix);
  void *deliver_ctx;
  int deliver_rc;             /* DELIVER's nonzero return, which stopped the load */

  /* Loading state. */
  uint32_t cur_file;
  int taking_session;         /* the current chunk is the SESSION kept */
  int stop_all;               /* a limit: stop reading further files */
};

/* 1 when a diagnostic of kind K is about one file's own chunks or records,
   0 when it is about the set (F-81, F-13) or the reader (a limit). */
int emlat_diag_of_file (enum emlat_diag_kind k);
/* Record a diagnostic (kept up to max_diagnostics, always counted). */
void emlat_profile_diag_push (struct emlat_profile *p, const struct emlat_diag *d);
void emlat_profile_diag (struct emlat_profile *p, enum emlat_diag_kind kind,
                         uint32_t file, uint64_t offset, uint64_t a, uint64_t b,
                         const char *what);
/* Report limit WHAT once and stop loading. */
void emlat_profile_limit (struct emlat_profile *p, const char *what);

/* Files (profile_files.c).  Look at regular file PATH: its identity, size
   and header, into F (BY_PATH); 0 or a negative errno (emlat_input_open's
   refusals included). */
int emlat_pfile_open_path (struct emlat_pfile *f, const char *path);
/* Keep descriptor FD's file from its current offset to its end when it is
   a regular file (a duplicate is kept): 0, or 1 when FD is a stream to be
   read into memory instead, or a negative errno. */
int emlat_pfile_open_fd (struct emlat_pfile *f, int fd);
/* Scan file F with SP into *RES, from memory or from the file again (the
   window charged to B).  0, or a negative errno when it could not be read
   again (-ESTALE: not the same file any more, or shorter). */
int emlat_pfile_scan (const struct emlat_pfile *f, const struct emlat_scan_params *sp,
                      struct emlat_scan_result *res, struct emlat_budget *b);
/* Give file F's bytes back to whoever provided them, close what it kept. */
void emlat_pfile_release (struct emlat_pfile *f);
/* The bytes standing for an empty buffer handed over as NULL. */
const uint8_t *emlat_pfile_empty (void);

/* Load-time helpers of profile_load.c used by the record handlers. */
int emlat_profile_on_record (struct emlat_profile *p, const struct emlat_chunk_info *ci,
                             const struct emlat_record *r);
/* F-92 for a record of the load: 0 when ID is new in SET, 1 when it was
   seen before (a diagnostic of KIND is recorded; the caller ignores the
   record), -1 when SET could not grow past MAX_WORDS or the budget (limit
   LIMIT is recorded; loading stops). */
int emlat_profile_first_id (struct emlat_profile *p, struct emlat_idset *set, uint64_t id,
                            uint64_t max_words, enum emlat_diag_kind kind,
                            const struct emlat_chunk_info *ci, const char *limit);
/* Application records (profile_app.c): an EVENT record, and a finished
   span that may be a named section.  Return 0, or 1 after a limit. */
int emlat_profile_on_event (struct emlat_profile *p, const struct emlat_record *r);
int emlat_profile_on_sample (struct emlat_profile *p, const struct emlat_record *r);
int emlat_profile_on_named_span (struct emlat_profile *p, const struct emlat_span *s);
/* The scan visitor that feeds records, chunks and diagnostics of the
   current file (P->cur_file) into P. */
void emlat_profile_visitor (struct emlat_profile *p, struct emlat_scan_visitor *v);
/* After all files: open spans and interactions, sorting, compaction. */
void emlat_profile_finish (struct emlat_profile *p);
/* Set up P->ixs for a streaming load (profile_load.c). */
void emlat_profile_stream_init (struct emlat_profile *p);
/* The packed fields of IX (an arena slot, or a streamed interaction's). */
static inline const uint64_t *emlat_ix_words (const struct emlat_profile *p,
                                              const struct emlat_interaction *ix)
{
  if (ix->flags & EMLAT_IX_PRIV_DIRECT)
    return (const uint64_t *)(uintptr_t)ix->priv_slot;
  return &EMLAT_VEC_AT (p->arena, uint64_t, ix->priv_slot);
}

/* Number of uint64_t words of an interaction's packed slot. */
static inline uint32_t emlat_ix_slot_words (uint32_t tmask, uint32_t vmask, uint32_t cmask,
                                            uint32_t qmask)
{
  return (uint32_t)(__builtin_popcount (tmask) + __builtin_popcount (vmask)
                    + __builtin_popcount (cmask) + (__builtin_popcount (qmask) + 15) / 16);
}

#endif /* EMLAT_PROFILE_H */
