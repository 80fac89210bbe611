/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * emlat_reader.h -- the reader API of libemlat: .emlat files back into data.
 *
 * Two levels, both following docs/FORMAT.md (rules F-n):
 *
 *  1. The scanner (emlat_scan: a file held in memory; emlat_scan_fd: one
 *     read through a window of one chunk) walks one file chunk by chunk
 *     and calls a visitor for the file header, each chunk and each decoded
 *     record.  It validates every byte it uses, never reads outside the
 *     buffer, allocates only for the per-file string-id check (bounded by
 *     the limits), and always terminates: each step consumes at least one
 *     byte or stops.  A chunk's records are delivered only after the whole
 *     payload decoded cleanly (F-27), so a visitor never sees a record of an
 *     invalid chunk.
 *
 *  2. The profile (emlat_profile_load) reads a rotated set of files of one
 *     session -- from paths, from buffers in memory
 *     (emlat_profile_load_buffers) or from a stream such as a pipe or
 *     standard input (emlat_profile_load_fd), with the same result for the
 *     same bytes -- and materializes what reports need: session metadata, strings,
 *     one compact summary per interaction (fields packed by presence mask;
 *     an absent boundary is never read as 0), span aggregates per
 *     interaction, optionally every span, input batches, LOSS records, the
 *     last STATS entries and a list of diagnostics.  Every allocation is
 *     counted against struct emlat_limits; reaching a limit stops loading
 *     with an EMLAT_DIAG_LIMIT diagnostic, never an unbounded allocation.
 *     Only regular files are opened by path (a FIFO, a device, a socket or
 *     a directory is refused before a byte is read); they are streamed,
 *     never held.  With EMLAT_LOAD_STREAM a load keeps no interaction at
 *     all, with the same totals and diagnostics: the interactions and
 *     spans are then handed over one at a time (emlat_profile_load_each,
 *     emlat_profile_each_interaction, emlat_profile_each_span), in memory
 *     that does not grow with them.
 *
 * Timestamps are profiler-clock nanoseconds (F-4); they are returned as
 * decoded, not relative to anything.  Identifiers are 0 when absent (F-5).
 * Pointers into a profile stay valid until emlat_profile_free.
 */
#ifndef EMLAT_READER_H
#define EMLAT_READER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "emlat_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef EMLAT_API
#if defined(EMLAT_BUILDING_LIBRARY) && defined(__GNUC__)
#define EMLAT_API __attribute__((visibility("default")))
#else
#define EMLAT_API
#endif
#endif

/* ------------------------------------------------------------------ */
/* Limits                                                              */

/* Bounds on what a reader will read and allocate.  emlat_limits_default
   fills values sane for a day-long session on a desktop machine; a zero
   field means "use the default".  The fuzzer uses small ones. */
struct emlat_limits
{
  uint64_t max_file_bytes;     /* one file held in memory: a stream read to
                                  its end or a buffer handed over (default
                                  4 GiB); a stream read allocates no more.
                                  A regular file is streamed through one
                                  chunk's window, never held, and not
                                  bounded by it */
  uint32_t max_chunk_payload;  /* stored payload bytes, <= 16 MiB (F-22) */
  uint64_t max_files;          /* files in one rotated set (default 100000) */
  uint64_t max_interactions;   /* distinct cause ids (default 20 M) */
  uint64_t max_spans;          /* spans materialized with EMLAT_LOAD_SPANS or
                                  fetched by emlat_profile_ix_spans (64 M) */
  uint64_t max_open_spans;     /* begin records awaiting their end (4 M) */
  uint64_t max_strings;        /* dictionary entries (default 1 M) */
  uint64_t max_string_bytes;   /* dictionary bytes (default 256 MiB) */
  uint64_t max_input_batches;  /* default 50 M */
  uint64_t max_losses;         /* LOSS records kept (default 1 M) */
  uint64_t max_diagnostics;    /* kept; more are only counted (100000) */
  uint64_t max_alloc_bytes;    /* the memory limit of a load: every
                                  allocation it makes (the window a file is
                                  read through included) and every buffer
                                  it keeps, read by the reader or handed
                                  over; also bounds each re-scan (default
                                  1 GiB) */
  uint64_t max_events;         /* EVENT records kept, and RESOURCE records
                                  kept (default 64 M each) */
};

EMLAT_API void emlat_limits_default (struct emlat_limits *lim);

/* ------------------------------------------------------------------ */
/* File and chunk headers                                              */

struct emlat_file_header
{
  uint16_t major, minor;
  uint32_t flags;       /* F-12: reported when nonzero, otherwise ignored */
  uint8_t uuid[16];
  uint64_t rotation;    /* rotation sequence (F-80) */
  uint64_t realtime_start;
  uint64_t monotonic_start;
  uint32_t crc;
  uint32_t reserved;
};

struct emlat_chunk_info
{
  uint64_t offset;       /* of the chunk header in its file */
  uint16_t type, version;
  uint32_t flags;        /* bits 0..7 codec */
  uint32_t header_size;
  uint32_t stored, uncompressed;
  uint64_t sequence;
  /* Record block header (6.1); valid in on_record and, for decodable
     chunks, in on_chunk. */
  uint64_t base_time;
  uint64_t thread;
  uint64_t count;
};

/* Why a scan stopped (F-10, F-11, F-25, F-26).  Everything before
   stop_offset was read; only EMLAT_STOP_CLEAN is an undamaged end. */
enum emlat_stop {
  EMLAT_STOP_CLEAN = 0,            /* end of file at a chunk boundary */
  EMLAT_STOP_TRUNCATED_HEADER = 1, /* file header < 64 or chunk header < 40 bytes */
  EMLAT_STOP_BAD_MAGIC = 2,        /* file or chunk magic */
  EMLAT_STOP_BAD_VERSION = 3,      /* format major version other than 1 */
  EMLAT_STOP_HEADER_CRC = 4,       /* file or chunk header CRC */
  EMLAT_STOP_IMPOSSIBLE_SIZE = 5,  /* header size (F-21) or payload size (F-22) */
  EMLAT_STOP_TRUNCATED_PAYLOAD = 6,/* payload or padding past the end */
  EMLAT_STOP_NONZERO_PADDING = 7,
  EMLAT_STOP_PAYLOAD_CRC = 8,
  EMLAT_STOP_IO_ERROR = 9,         /* the file could not be read */
  EMLAT_STOP_LIMIT = 10,           /* a struct emlat_limits bound */
  EMLAT_STOP_VISITOR = 11          /* a visitor callback asked to stop */
};
EMLAT_API const char *emlat_stop_name (enum emlat_stop s);

/* The session UUID U (file header bytes 16..31, FORMAT.md F-11) as
   8-4-4-4-12 lower-case hex into OUT, NUL-terminated. */
EMLAT_API void emlat_uuid_format (const uint8_t u[16], char out[37]);

/* Why a well-framed chunk's payload is invalid (F-27). */
enum emlat_invalid {
  EMLAT_INVALID_NONE = 0,
  EMLAT_INVALID_VARINT = 1,    /* longer than 10 bytes or overflowing (F-2, F-3) */
  EMLAT_INVALID_SHORT = 2,     /* payload ends before the record count (F-50) */
  EMLAT_INVALID_TRAILING = 3,  /* bytes left after the records (F-50) */
  EMLAT_INVALID_RESERVED = 4,  /* reserved bits set */
  EMLAT_INVALID_RANGE = 5,     /* a value out of its range */
  EMLAT_INVALID_SCHEMA = 6,    /* schema version != type version (6.1) */
  EMLAT_INVALID_BLOCK = 7,     /* block base time / thread id not allowed */
  EMLAT_INVALID_DUPLICATE = 8  /* an id or index repeated where it must be
                                  unique: a string id in a file (F-62), a
                                  quality's field or a span's counter in
                                  one record (6.5, 6.6) */
};
EMLAT_API const char *emlat_invalid_name (enum emlat_invalid r);

/* ------------------------------------------------------------------ */
/* Decoded records                                                     */

enum emlat_rec_kind {
  EMLAT_REC_KV = 1,          /* SESSION or STATS entry (6.2, 6.8) */
  EMLAT_REC_STRING = 2,      /* 6.3 */
  EMLAT_REC_INPUT = 3,       /* 6.4 */
  EMLAT_REC_IX_BEGIN = 4,    /* 6.5 tag 2 */
  EMLAT_REC_IX_COMPLETE = 5, /* 6.5 tag 1 */
  EMLAT_REC_SPAN_COMPLETE = 6,
  EMLAT_REC_SPAN_BEGIN = 7,
  EMLAT_REC_SPAN_END = 8,
  EMLAT_REC_LOSS = 9,        /* 6.7 */
  EMLAT_REC_EVENT = 10,      /* 6.9 (format 1.1) */
  EMLAT_REC_SAMPLE = 11      /* 6.10 (format 1.1) */
};

/* A key/value entry.  KEY and S point into the scanned buffer (or the
   profile) and are not NUL-terminated (F-7). */
struct emlat_kv
{
  const uint8_t *key;
  uint32_t key_len;
  uint32_t type;     /* 0 unsigned, 1 signed, 2 string */
  uint64_t u;
  int64_t i;
  const uint8_t *s;
  uint32_t s_len;
};

struct emlat_rd_input
{
  uint64_t batch_id;
  uint64_t thread;
  uint32_t mask;          /* EMLAT_IB_* bits of emlat.h: 0x01 known-empty,
                             0x02 first-ready, 0x04 read-begin, 0x08
                             read-end, 0x10 bytes */
  uint32_t ready_quality; /* iff 0x02 */
  uint64_t t_known_empty, t_first_ready, t_read_begin, t_read_end;
  uint64_t bytes;
};

/* Interaction begin record.  T_DISPATCH_BEGIN is always present. */
struct emlat_rd_ix_begin
{
  uint64_t cause;
  uint32_t root_kind;   /* 0 = unknown */
  uint64_t parent, scheduled_by; /* 0 = none */
  uint64_t t_dispatch_begin;
  uint64_t name;        /* string id naming it (INTERACTION version 2), 0 = none */
};

/* Interaction complete record, unpacked: arrays indexed by field; only
   entries whose mask bit is set are meaningful. */
struct emlat_rd_ix
{
  uint64_t cause;
  uint32_t root_kind;
  uint32_t status;
  uint32_t time_mask, value_mask, counter_mask;
  uint64_t t[EMLAT_T_FIELD_COUNT];
  uint8_t q[EMLAT_T_FIELD_COUNT];    /* quality, default filled in (F-64) */
  uint32_t q_explicit_mask;          /* fields whose quality was stored */
  uint64_t v[EMLAT_V_FIELD_COUNT];
  uint64_t c[EMLAT_C_COUNTER_COUNT];
  uint64_t name;                     /* string id (version 2), 0 = none */
};

/* An EVENT record (6.9): tag (enum emlat_event_tag), the string id of its
   name (0 = unnamed), its time; ID for async slices and flows; IV the
   value of an integer counter, FV of a floating one. */
struct emlat_rd_event
{
  uint32_t tag;
  uint64_t name;
  uint64_t t;
  uint64_t id;
  int64_t iv;
  double fv;
};

/* A RESOURCE record (6.10): one sample of the recording process taken by
   the writer at time T; v[f] is meaningful iff bit f of MASK is set (a
   field the sampler could not read is absent, never 0). */
enum emlat_resource_field {
  EMLAT_RES_RSS_BYTES = 0,     /* resident set size */
  EMLAT_RES_CPU_USER_NS = 1,   /* process user CPU time since it started */
  EMLAT_RES_CPU_SYS_NS = 2,    /* process system CPU time */
  EMLAT_RES_CPU_SHARE_PPM = 3, /* CPU time / wall time since the previous
                                  sample, parts per million of one core */
  EMLAT_RES_VOL_CSW = 4,       /* voluntary context switches */
  EMLAT_RES_INVOL_CSW = 5,     /* involuntary context switches */
  EMLAT_RES_FIELD_COUNT = 6
};
struct emlat_rd_sample
{
  uint64_t t;
  uint32_t mask;
  uint64_t v[EMLAT_RES_FIELD_COUNT];
};

/* Span record flags. */
#define EMLAT_RD_SPAN_CPU 0x1u      /* cpu is set */
#define EMLAT_RD_SPAN_DETAIL 0x2u   /* detail is set */
#define EMLAT_RD_SPAN_COUNTERS 0x4u /* n_counters >= 1 */

struct emlat_rd_span
{
  uint32_t kind;        /* 0 in end records (not stored there) */
  uint32_t status;      /* 0..4 */
  uint32_t flags;       /* EMLAT_RD_SPAN_* */
  uint64_t id;
  uint64_t parent;      /* 0 = none; 0 in end records */
  uint64_t cause;       /* 0 = none; 0 in end records */
  uint64_t start;       /* complete and begin records */
  uint64_t end;         /* complete (start + duration) and end records */
  uint64_t cpu;         /* complete: CPU duration; begin/end: absolute reading */
  uint64_t detail;
  uint32_t n_counters;
  uint8_t counter_id[EMLAT_C_COUNTER_COUNT];
  uint64_t counter_val[EMLAT_C_COUNTER_COUNT];
};

struct emlat_rd_loss
{
  uint64_t stream;      /* thread id, 0 = the writer */
  uint32_t reason;      /* enum emlat_loss_reason */
  uint64_t first, last; /* profiler clock ns */
  uint64_t records, bytes;
};

struct emlat_record
{
  enum emlat_rec_kind kind;
  uint16_t chunk_type;  /* SESSION or STATS for EMLAT_REC_KV */
  uint64_t thread;      /* the record's thread (F-52), 0 if none */
  union
  {
    struct emlat_kv kv;
    struct { uint64_t id; const uint8_t *bytes; uint32_t len; } str;
    struct emlat_rd_input input;
    struct emlat_rd_ix_begin ix_begin;
    struct emlat_rd_ix ix;
    struct emlat_rd_span span;
    struct emlat_rd_loss loss;
    struct emlat_rd_event event;
    struct emlat_rd_sample sample;
  } u;
};

/* ------------------------------------------------------------------ */
/* Diagnostics: everything a reader reports that is not a record       */

enum emlat_diag_kind {
  /* Scanner, per file. */
  EMLAT_DIAG_DAMAGE = 1,          /* a = enum emlat_stop; reading stopped */
  EMLAT_DIAG_SKIP_TYPE = 2,       /* unknown type (F-31): type, version */
  EMLAT_DIAG_SKIP_VERSION = 3,    /* newer or zero type version (F-31) */
  EMLAT_DIAG_SKIP_CODEC = 4,      /* unsupported codec (F-30): a = codec */
  EMLAT_DIAG_SKIP_EXPERIMENTAL = 5,/* 0x8000..0xffff (F-32); counted only,
                                     never delivered to on_diag */
  EMLAT_DIAG_INVALID_CHUNK = 6,   /* F-27: a = enum emlat_invalid,
                                     b = offset of the bad byte in payload;
                                     also type 0 or type version 0 (F-31)
                                     and reserved flag bits (F-22a), b = 0 */
  EMLAT_DIAG_SEQUENCE_GAP = 7,    /* F-23: a = expected, b = found */
  EMLAT_DIAG_MISSING_SESSION = 8, /* F-40: first chunk is not SESSION, or
                                     the file has no chunk at all */
  EMLAT_DIAG_EXTRA_SESSION = 9,   /* F-40: a second SESSION chunk */
  EMLAT_DIAG_HEADER_RESERVED = 10,/* F-12: a = flags, b = reserved */
  /* Profile, per set. */
  EMLAT_DIAG_ROTATION_MISSING = 20, /* F-81: a = missing sequence */
  EMLAT_DIAG_ROTATION_DUPLICATE = 21,/* F-81: a = repeated sequence; file ignored */
  EMLAT_DIAG_MIXED_SESSION = 22,  /* F-81: file of another session; ignored */
  EMLAT_DIAG_START_MISMATCH = 23, /* F-13: start times differ from file 0 */
  EMLAT_DIAG_ORPHAN_END = 24,     /* F-68: a = span id */
  EMLAT_DIAG_INCOMPLETE_SPAN = 25,/* F-68: a = span id, b = cause */
  EMLAT_DIAG_OPEN_INTERACTION = 26,/* F-65: a = cause id */
  EMLAT_DIAG_DUPLICATE_COMPLETE = 27,/* F-65, F-92: a = cause id; later one ignored */
  EMLAT_DIAG_DUPLICATE_SPAN = 28, /* F-92: a = span id seen twice; later ignored */
  EMLAT_DIAG_STRING_CONFLICT = 29,/* a = string id redefined differently */
  EMLAT_DIAG_LIMIT = 30,          /* a = which limit (name in detail) */
  EMLAT_DIAG_NO_FINAL_STATS = 31, /* F-42: not stopped cleanly */
  EMLAT_DIAG_DUPLICATE_BEGIN = 32,/* F-92: a = cause id; later one ignored */
  EMLAT_DIAG_DUPLICATE_INPUT = 33,/* F-92: a = batch id; later one ignored */
  EMLAT_DIAG_SPAN_BACKWARDS = 34  /* F-93: a = span id, b = cause; its end
                                     precedes its start; not used */
};

struct emlat_diag
{
  enum emlat_diag_kind kind;
  uint32_t file;        /* index into the set (order of rotation) */
  uint64_t offset;      /* byte offset in that file, UINT64_MAX if none */
  uint64_t a, b;        /* kind-specific, see above */
  uint16_t type, version; /* chunk type and version where one applies */
  const char *what;     /* static text: reason or limit name; never NULL */
};

EMLAT_API const char *emlat_diag_kind_name (enum emlat_diag_kind k);
/* 1 when a diagnostic of kind K means the profile is damaged: reading lost
   data or found data that breaks a rule of docs/FORMAT.md (F-94 lists the
   kinds); 0 for what is only reported (skipped unknown types and newer
   versions, reserved header bits, the traces of a crash or of recorded
   loss). */
EMLAT_API int emlat_diag_is_damage (enum emlat_diag_kind k);
/* One line describing D (no file name, no newline); returns the length
   snprintf would have written. */
EMLAT_API int emlat_diag_format (const struct emlat_diag *d, char *buf, size_t n);

/* ------------------------------------------------------------------ */
/* Level 1: the scanner                                                */

/* Visitor callbacks; any may be NULL.  Returning nonzero stops the scan
   with EMLAT_STOP_VISITOR. */
struct emlat_scan_visitor
{
  void *ctx;
  int (*on_header) (void *ctx, const struct emlat_file_header *h);
  /* Every chunk that passed framing and CRC checks, whether it will be
     decoded, skipped or found invalid.  DECODED is 1 when its records
     follow. */
  int (*on_chunk) (void *ctx, const struct emlat_chunk_info *c, int decoded);
  int (*on_record) (void *ctx, const struct emlat_chunk_info *c,
                    const struct emlat_record *r);
  /* Skips, invalid chunks, gaps, missing SESSION, reserved header bits, and
     finally the damage that stopped the scan (never for a clean end). */
  void (*on_diag) (void *ctx, const struct emlat_diag *d);
};

/* Counters of one scan. */
struct emlat_scan_result
{
  enum emlat_stop stop;
  uint64_t stop_offset;        /* where reading stopped (file size if clean) */
  int header_ok;               /* file header valid (F-10, F-11) */
  struct emlat_file_header header;
  uint64_t file_bytes;
  uint64_t chunks;             /* framed chunks, including skipped/invalid */
  uint64_t chunks_by_type[10]; /* decoded chunks by type 1..9 (index 0 unused) */
  uint64_t chunks_skipped;     /* F-30, F-31 */
  uint64_t chunks_experimental;/* F-32 */
  uint64_t chunks_invalid;     /* F-27 */
  uint64_t records;            /* delivered records */
  uint64_t records_by_kind[10];/* by enum emlat_rec_kind */
  uint64_t sequence_gaps;
  uint64_t first_sequence, last_sequence; /* 0 when no chunk */
  int missing_session;
  uint64_t session_chunks;
  int final_stats;             /* last chunk is STATS with stats.final=1 */
  uint64_t loss_records, lost_records, lost_bytes;
  uint64_t diagnostics;        /* diagnostics reported (damage included) */
  /* The damage that stopped the scan if any, else the first other
     diagnostic (skip, invalid chunk, gap, ...), else none (kind 0). */
  struct emlat_diag first_problem;
  uint64_t damage;             /* diagnostics that are damage
                                  (emlat_diag_is_damage), the stop included */
};

struct emlat_scan_params
{
  const struct emlat_limits *limits; /* NULL: defaults */
  struct emlat_scan_visitor visitor;
  uint32_t file_index;               /* copied into diagnostics */
  /* Expected sequence of the first chunk: 0 derives it (1 when the header's
     rotation is 0, else unchecked). */
  uint64_t expect_sequence;
  /* 0: decode every chunk.  Else bit T set: decode the chunks of type T
     only; the others are framed and checked (their CRCs: damage still
     stops the scan where it would) but neither decoded nor shown to the
     visitor, and the result's counters do not count them.  For a re-scan
     that wants one kind of record (the spans, the interactions). */
  uint32_t decode_types;
};

/* Scan LEN bytes at BUF as one .emlat file.  Fills *RES.  Returns 0 when
   the scan ran (damage and limits are not errors: see res->stop), -EINVAL
   for bad arguments. */
EMLAT_API int emlat_scan (const uint8_t *buf, size_t len,
                          const struct emlat_scan_params *p,
                          struct emlat_scan_result *res);

/* Scan the file open on FD as emlat_scan scans a buffer, without holding
   it in memory: a regular file is read with pread(2) from the
   descriptor's current offset to the size it has now (the offset is not
   moved), anything else with read(2) to its end; through one buffer of at
   most one chunk plus 1 MiB read ahead (charged to p->limits'
   max_alloc_bytes), the 64-byte file header read alone first, so an input
   that is not a profile costs one small read.  Pointers in the records
   (keys, strings) are valid during the visitor's call only.  A read error
   stops the scan with EMLAT_STOP_IO_ERROR.  Returns 0 when the scan ran,
   -EINVAL, -EISDIR, or the errno of fstat. */
EMLAT_API int emlat_scan_fd (int fd, const struct emlat_scan_params *p,
                             struct emlat_scan_result *res);

/* Read PATH into memory (at most lim->max_file_bytes).  Returns 0 and sets
   *BUF (free with free()) and *LEN, or a negative errno: -EFBIG past the
   limit (no more than the limit was allocated), -EISDIR. */
EMLAT_API int emlat_read_file (const char *path, const struct emlat_limits *lim,
                               uint8_t **buf, size_t *len);
/* Read FD (a pipe, a terminal, a socket or a file) from its current
   position to its end, the same way: the buffer grows with the input and
   never past lim->max_file_bytes, whatever the stream holds.  FD is left
   open. */
EMLAT_API int emlat_read_fd (int fd, const struct emlat_limits *lim, uint8_t **buf,
                             size_t *len);

/* Decode the 64-byte file header of BUF.  Returns EMLAT_STOP_CLEAN when it
   is valid, else the reason (F-10, F-11). */
EMLAT_API enum emlat_stop emlat_parse_file_header (const uint8_t *buf, size_t len,
                                                   struct emlat_file_header *h);

/* ------------------------------------------------------------------ */
/* Recovery of a ring file (FORMAT.md section 15)                      */

/* A recording process keeps its rings in a ring file (in /dev/shm, or
   beside the profile) until its writer has drained them.  A process that
   died, or stopped with EMLAT_OPT_DEFER_FINISH, leaves it behind, holding
   every record the profile lacks.  emlat_recover writes them into the
   profile, exactly as the writer would have at emlat_stop, and removes
   the ring file.  emlat_profile_load does it first unless
   EMLAT_LOAD_NO_RECOVER is given. */
struct emlat_recovery
{
  int found;            /* the profile had a ring file */
  int process_stopped;  /* its process had called emlat_stop */
  int broken;           /* it could not be used (its writer gave it up, or it
                           was left before the first checkpoint): removed,
                           the profile keeps what it had */
  uint64_t records;     /* ring records written into the profile */
};

/* Recover the ring file of the session whose file PROFILE is (any file of
   a rotated set).  Returns 0 (also when there was none: R->found is 0),
   -EBUSY when a process still records into it, -EPROTO when another build
   of libemlat wrote it (it is left as it is), or a negative errno. */
EMLAT_API int emlat_recover (const char *profile, struct emlat_recovery *r);

/* As emlat_recover, for a profile whose recording process has exited and
   was reaped by the caller with wait status WAIT_STATUS (as waitpid
   reports it): the STATS written then also say how the process ended,
   stats.exit_code for an exit and stats.exit_signal for a signal
   (FORMAT.md 8.2).  A negative WAIT_STATUS means not known (the caller
   could not reap it): as emlat_recover.  A profile with no ring file left
   is not changed. */
EMLAT_API int emlat_recover_exited (const char *profile, int wait_status,
                                    struct emlat_recovery *r);

/* Recover every ring file in /dev/shm that process PID left behind (it
   died, or stopped with EMLAT_OPT_DEFER_FINISH), whatever its profile is
   called: what a program's parent calls once the program exited, when it
   does not know the program's profiles (`emlat replay` does).  R (may be
   NULL) sums the recoveries: found counts the ring files, process_stopped
   those whose process had stopped.  A ring file kept beside its profile
   (no room in /dev/shm) is not found here; emlat_recover with the
   profile's name, or the next emlat_profile_load of it, recovers it.
   Returns 0, -EINVAL for a PID below 1, or the first error of
   emlat_recover (the others are still recovered). */
EMLAT_API int emlat_recover_process (pid_t pid, struct emlat_recovery *r);

/* As emlat_recover_process, with PID's wait status (as emlat_recover_exited). */
EMLAT_API int emlat_recover_process_exited (pid_t pid, int wait_status,
                                            struct emlat_recovery *r);

/* Remove this user's ring files in /dev/shm whose recording process is
   gone and whose profile no longer exists: nothing can use them any more.
   emlat_profile_load does it once per process; the recording library
   never does (it would cost the traced program a directory scan). */
EMLAT_API void emlat_recover_sweep (void);

/* ------------------------------------------------------------------ */
/* Level 2: the profile                                                */

struct emlat_profile; /* opaque */

/* Flags of emlat_profile_load. */
#define EMLAT_LOAD_SPANS 0x1u   /* also materialize every span */
#define EMLAT_LOAD_NO_RECOVER 0x2u /* emlat_profile_load: read the files as
                                      they are, even when a ring file holds
                                      more (emlat_recover) */
#define EMLAT_LOAD_STREAM 0x4u  /* keep no interaction (nor input batch,
                                   nor span: EMLAT_LOAD_SPANS is ignored):
                                   the load counts, checks and diagnoses
                                   them exactly as without this flag, so
                                   the totals and diagnostics are the same,
                                   in memory that does not grow with the
                                   interactions; read them with
                                   emlat_profile_each_interaction (or
                                   emlat_profile_load_each) */

/* Per-file summary of a loaded set, in rotation order. */
struct emlat_file_summary
{
  const char *path;
  struct emlat_scan_result scan;
  int ignored;          /* duplicate or other session: not read (F-81) */
  int read_error;       /* errno when the file could not be read, else 0 */
  uint64_t damage;      /* diagnostics of the load that are damage and are
                           about this file's own chunks and records (F-94);
                           set-level ones (rotation, other session, start
                           times, limits) are not counted here */
};

/* Span aggregate of one kind within one interaction (inclusive durations
   of spans with an end; unwound spans included). */
struct emlat_span_agg
{
  uint32_t kind;
  uint32_t count;
  uint64_t total_ns;
};

#define EMLAT_IX_HAS_BEGIN 0x1u    /* a begin record was seen */
#define EMLAT_IX_HAS_COMPLETE 0x2u /* a complete record was seen */

/* One interaction.  Field values live in the profile's arena; read them
   with emlat_profile_ix_time/value/counter, which report presence. */
struct emlat_interaction
{
  uint64_t cause;
  uint64_t thread;
  uint32_t root_kind;   /* 0 unknown */
  uint32_t status;      /* EMLAT_STATUS_OPEN when only a begin was seen */
  uint32_t flags;       /* EMLAT_IX_HAS_* */
  uint32_t time_mask, value_mask, counter_mask;
  uint32_t q_mask;      /* fields with a non-default quality */
  uint32_t file;        /* file of the defining record */
  uint64_t offset;      /* its chunk's offset */
  uint64_t name;        /* string id naming an application interaction
                           (INTERACTION version 2), 0 = none */
  /* Private: packed storage. */
  uint64_t priv_slot;
  uint32_t priv_agg_off, priv_agg_n;
};

/* A materialized span (EMLAT_LOAD_SPANS or emlat_profile_ix_spans). */
#define EMLAT_SPAN_HAS_END 0x1u      /* end known (complete or end record) */
#define EMLAT_SPAN_HAS_CPU 0x2u      /* cpu_ns is a thread-CPU duration */
#define EMLAT_SPAN_HAS_DETAIL 0x4u
struct emlat_span
{
  uint64_t id, parent, cause, thread;
  uint64_t start, end;  /* end meaningful iff EMLAT_SPAN_HAS_END */
  uint64_t cpu_ns;
  uint64_t detail;
  uint32_t kind;
  uint32_t status;      /* 0..4, or EMLAT_SPAN_INCOMPLETE */
  uint32_t flags;       /* EMLAT_SPAN_HAS_* */
  uint32_t counter_mask;/* counters present (the last value if repeated) */
  uint64_t counter_off; /* their values, ascending bit order, in the counter
                           pool that came with the span array */
};

/* Counter C of span S whose values live in POOL: 1 and *OUT if present. */
EMLAT_API int emlat_span_counter (const struct emlat_span *s, const uint64_t *pool,
                                  enum emlat_counter c, uint64_t *out);

/* Spans of one interaction, from emlat_profile_ix_spans. */
struct emlat_span_set
{
  struct emlat_span *spans;
  size_t n;
  uint64_t *counters;   /* the counter pool of these spans */
  size_t n_counters;
};
EMLAT_API void emlat_span_set_free (struct emlat_span_set *set);

struct emlat_loss_entry
{
  struct emlat_rd_loss loss;
  uint32_t file;
  uint64_t offset;
};

struct emlat_profile_totals
{
  uint64_t files_read;
  uint64_t chunks, records;
  uint64_t interactions, interactions_open;
  uint64_t spans_complete;     /* complete records + joined begin/end */
  uint64_t spans_unwound;      /* of those, status unwound */
  uint64_t spans_incomplete;   /* begin without end (F-68) */
  uint64_t spans_orphan_end;   /* end without begin (F-68) */
  uint64_t spans_no_cause;     /* cause 0 */
  uint64_t spans_unknown_cause;/* cause with no interaction record */
  uint64_t input_batches;
  uint64_t loss_records, lost_records, lost_bytes;
  uint64_t chunks_invalid, chunks_skipped, sequence_gaps;
  uint64_t damaged_files;      /* scan stopped other than cleanly */
  uint64_t diagnostics, diagnostics_dropped;
  uint64_t alloc_bytes;        /* accounted allocation at the end of load */
  int clean_stop;              /* F-42: the last file ends with final STATS */
  int limit_hit;               /* loading stopped at a limit */
  uint64_t damage;             /* diagnostics of the load that are damage
                                  (emlat_diag_is_damage), kept or dropped */
};

/* Load PATHS[0..N) as one session.  Files are grouped by UUID: the session
   of the first readable file is loaded, others are reported and ignored
   (F-81).  Returns 0 with *OUT set (damage, limits and unreadable files are
   diagnostics, not errors), -EINVAL for bad arguments or -ENOMEM when the
   profile itself could not be allocated.

   Each path must name a regular file: anything else is refused before a
   byte is read (read_error EISDIR for a directory, ENODEV for a FIFO, a
   socket or a device).  Files are read one after the other, each through
   a window of one chunk (its 64-byte header alone first), never held in
   memory; they are read again, by path, for every later re-scan.  Limits
   (LIM, NULL for the defaults) bound what is allocated, not only what is
   decoded; a limit stops loading (an EMLAT_DIAG_LIMIT diagnostic naming
   it), and the files after it are listed with read_error ECANCELED.  More
   than max_files paths: nothing is read. */
EMLAT_API int emlat_profile_load (const char *const *paths, size_t n,
                                  const struct emlat_limits *lim, unsigned flags,
                                  struct emlat_profile **out);

/* One file of a set handed over in memory (emlat_profile_load_buffers).
   It is read exactly as the same bytes in a file would be; NAME stands for
   the path in emlat_profile_files and in what callers print. */
struct emlat_buffer
{
  const uint8_t *data;  /* the file's bytes (may be NULL when LEN is 0) */
  size_t len;
  const char *name;     /* display name, copied; NULL: "(memory)" */
  int error;            /* nonzero: the caller could not read this file;
                           an errno reported as its read_error (EFBIG as
                           the max_file_bytes limit); DATA is not read */
  /* NULL: the caller owns DATA and keeps it valid and unchanged until
     emlat_profile_free (the profile points into it).  Otherwise the
     profile owns it from the call on and calls RELEASE (RELEASE_CTX, DATA,
     LEN) exactly once: from emlat_profile_free, or before the load returns
     for a file it does not keep (refused at a limit, not reached, or the
     load failed).  A mapped file comes with munmap in RELEASE. */
  void (*release) (void *ctx, const uint8_t *data, size_t len);
  void *release_ctx;
};

/* Load FILES[0..N) as one session, as emlat_profile_load loads N files
   holding the same bytes: the same totals, interactions and diagnostics.
   Every limit applies as it does to files: a buffer longer than
   max_file_bytes, or than what max_alloc_bytes has left, is refused (and
   released) with read_error EFBIG and an EMLAT_DIAG_LIMIT diagnostic; the
   bytes of each buffer kept count toward max_alloc_bytes.  Returns as
   emlat_profile_load does; buffers with a release function are released
   by then or by emlat_profile_free, on every return (with -EINVAL only
   when FILES is NULL is nothing released). */
EMLAT_API int emlat_profile_load_buffers (const struct emlat_buffer *files, size_t n,
                                          const struct emlat_limits *lim, unsigned flags,
                                          struct emlat_profile **out);

/* Load one file read from FD to its end (emlat_read_fd: a pipe, standard
   input, a socket or a regular file; FD is left open) as a set of one,
   named NAME (copied; NULL: "-").  The read allocates at most
   max_file_bytes (and no more than max_alloc_bytes allows): a longer
   stream is refused with read_error EFBIG and an EMLAT_DIAG_LIMIT
   diagnostic "max_file_bytes", after reading one byte past the limit.
   Returns as emlat_profile_load does. */
EMLAT_API int emlat_profile_load_fd (int fd, const char *name, const struct emlat_limits *lim,
                                     unsigned flags, struct emlat_profile **out);

/* One input of emlat_profile_load_inputs: a path, read as
   emlat_profile_load reads it (FD < 0), or a descriptor, read as
   emlat_profile_load_fd reads it (FD >= 0; left open; a duplicate is kept
   while the profile lives when it is a regular file).  NAME is the
   display name (NULL: PATH, or "-" for a descriptor). */
struct emlat_input
{
  const char *path;
  int fd;
  const char *name;
};

/* Load INPUTS[0..N) as one session, each as the entry point for its kind
   would load it (the ring files of paths recovered first unless
   EMLAT_LOAD_NO_RECOVER).  Returns as emlat_profile_load does. */
EMLAT_API int emlat_profile_load_inputs (const struct emlat_input *inputs, size_t n,
                                         const struct emlat_limits *lim, unsigned flags,
                                         struct emlat_profile **out);

/* Receives one interaction of a profile: IX and its fields (read with
   emlat_profile_ix_time and the other accessors, with P) are valid during
   the call only.  A nonzero return stops the iteration and is returned. */
typedef int (*emlat_interaction_fn) (void *ctx, const struct emlat_profile *p,
                                     const struct emlat_interaction *ix);

/* Load INPUTS as emlat_profile_load_inputs does with EMLAT_LOAD_STREAM,
   and hand each interaction of the session to FN once, as it becomes
   final: at its (first) complete record, or at the end of the set for an
   open one (a begin record only), in the order its cause was first seen.
   The interactions are those a load keeping them would keep, field for
   field (emlat_profile_interactions), in file order instead of cause
   order.  When a limit stops the load, FN has seen only part of them.
   Returns as emlat_profile_load does, or FN's nonzero return (then *OUT
   is NULL). */
EMLAT_API int emlat_profile_load_each (const struct emlat_input *inputs, size_t n,
                                       const struct emlat_limits *lim, unsigned flags,
                                       emlat_interaction_fn fn, void *ctx,
                                       struct emlat_profile **out);
/* Every interaction of P, once each, to FN: of a profile that keeps them,
   in cause order; of a streamed one (EMLAT_LOAD_STREAM), by scanning its
   files again (emlat_profile_rescan), in the order emlat_profile_load_each
   gives, with the interactions whose cause is in KEEP[0..N_KEEP) kept in
   P from then on (emlat_profile_find_interaction and
   emlat_profile_interactions see them, sorted by cause).  Memory: what
   the load needed for interactions, for the scan's time.  Not to be run
   while another thread uses P's interactions (other re-scans may run).
   Returns 0, FN's nonzero return, -ECANCELED (a limit stopped the load:
   the set is not whole), -ENOMEM (keeping), -EFBIG (a limit of the scan)
   or emlat_profile_rescan's error. */
EMLAT_API int emlat_profile_each_interaction (struct emlat_profile *p, const uint64_t *keep,
                                              size_t n_keep, emlat_interaction_fn fn, void *ctx);
EMLAT_API void emlat_profile_free (struct emlat_profile *p);

EMLAT_API const struct emlat_profile_totals *
emlat_profile_totals (const struct emlat_profile *p);
EMLAT_API const struct emlat_file_summary *
emlat_profile_files (const struct emlat_profile *p, size_t *n);
EMLAT_API const struct emlat_diag *
emlat_profile_diags (const struct emlat_profile *p, size_t *n);
/* The bytes of file I (rotation order, as emlat_profile_files) when the
   profile holds them in memory (a buffer handed over, a stream read to its
   end), valid until emlat_profile_free; NULL (*LEN = 0) for a regular
   file, which is streamed, never held, and for a file not read. */
EMLAT_API const uint8_t *emlat_profile_file_data (const struct emlat_profile *p, size_t i,
                                                  size_t *len);
/* Scan file I of P again with PARAMS (emlat_scan's contract), from
   wherever the load read it: memory, the descriptor it keeps, or the path,
   opened again, which must still name the same file (device and inode)
   with at least the length the load read; exactly the bytes the load read
   are scanned.  The window is charged to a budget of its own
   (max_alloc_bytes), so that re-scans of one profile may run on several
   threads.  Returns 0 (the scan ran: see RES), -EINVAL (no such file, or
   one that was not read), -ESTALE (the path names another file now, or a
   shorter one) or the errno of opening it. */
EMLAT_API int emlat_profile_rescan (const struct emlat_profile *p, size_t i,
                                    const struct emlat_scan_params *params,
                                    struct emlat_scan_result *res);
/* The session's header (of its first file read), or NULL if none. */
EMLAT_API const struct emlat_file_header *
emlat_profile_header (const struct emlat_profile *p);

/* SESSION entries (of the first file read) and the entries of the last
   STATS chunk. */
EMLAT_API const struct emlat_kv *emlat_profile_session (const struct emlat_profile *p,
                                                        size_t *n);
EMLAT_API const struct emlat_kv *emlat_profile_stats (const struct emlat_profile *p,
                                                      size_t *n);
/* Nonzero when the session's thread_cpu_end values were read when each
   interaction ended (before t_interaction_end), not at its last completion
   boundary: SESSION ix.thread_cpu_end_at = interaction_end (FORMAT.md
   8.1.1, its last entry). */
EMLAT_API int emlat_profile_cpu_end_at_end (const struct emlat_profile *p);
/* The entry KEY of an entry list, or NULL. */
EMLAT_API const struct emlat_kv *emlat_kv_find (const struct emlat_kv *kv, size_t n,
                                                const char *key);

/* String ID's bytes (not NUL-terminated) and length, or NULL. */
EMLAT_API const uint8_t *emlat_profile_string (const struct emlat_profile *p,
                                               uint64_t id, size_t *len);

/* Interactions, sorted by cause id (of a streamed profile only those
   kept by emlat_profile_each_interaction). */
EMLAT_API const struct emlat_interaction *
emlat_profile_interactions (const struct emlat_profile *p, size_t *n);
EMLAT_API const struct emlat_interaction *
emlat_profile_find_interaction (const struct emlat_profile *p, uint64_t cause);

/* Each returns 1 and stores the field when present, 0 when absent (and
   leaves *OUT alone).  Q may be NULL. */
EMLAT_API int emlat_profile_ix_time (const struct emlat_profile *p,
                                     const struct emlat_interaction *ix,
                                     enum emlat_time_field f, uint64_t *out,
                                     enum emlat_quality *q);
EMLAT_API int emlat_profile_ix_value (const struct emlat_profile *p,
                                      const struct emlat_interaction *ix,
                                      enum emlat_value_field f, uint64_t *out);
EMLAT_API int emlat_profile_ix_counter (const struct emlat_profile *p,
                                        const struct emlat_interaction *ix,
                                        enum emlat_counter c, uint64_t *out);
/* TO - FROM when both boundaries are present and TO >= FROM (FORMAT.md 10);
   else 0 and *OUT untouched. */
EMLAT_API int emlat_profile_ix_duration (const struct emlat_profile *p,
                                         const struct emlat_interaction *ix,
                                         enum emlat_time_field from,
                                         enum emlat_time_field to, uint64_t *out);
/* The span aggregates of IX, one per kind seen, ascending kind. */
EMLAT_API const struct emlat_span_agg *
emlat_profile_ix_aggs (const struct emlat_profile *p,
                       const struct emlat_interaction *ix, size_t *n);

/* Span aggregates of spans without cause (CAUSE 0) or whose cause has no
   interaction; indexed by kind 0..EMLAT_SPAN_KIND_MAX. */
EMLAT_API const struct emlat_span_agg *
emlat_profile_unattributed_aggs (const struct emlat_profile *p);

/* Every span (only with EMLAT_LOAD_SPANS; else *n = 0), sorted by id, and
   the counter pool their counter_off index (POOL may be NULL). */
EMLAT_API const struct emlat_span *emlat_profile_spans (const struct emlat_profile *p,
                                                        size_t *n,
                                                        const uint64_t **pool);
/* Every span of interaction CAUSE, found by re-scanning the loaded files,
   begin/end joined (a begin without end is EMLAT_SPAN_INCOMPLETE), sorted by
   start time then id.  Returns 0 and fills *SET (free with
   emlat_span_set_free), or a negative errno: -E2BIG past limits.max_spans
   or limits.max_open_spans, -ENOMEM. */
EMLAT_API int emlat_profile_ix_spans (const struct emlat_profile *p, uint64_t cause,
                                      struct emlat_span_set *set);
/* Receives one span: S and POOL (its counters: emlat_span_counter (S,
   POOL, ...)) are valid during the call only.  A nonzero return stops the
   walk and is returned. */
typedef int (*emlat_span_fn) (void *ctx, const struct emlat_span *s, const uint64_t *pool);
/* Every span of P, once each, found by re-scanning its files as
   emlat_profile_ix_spans does: the spans EMLAT_LOAD_SPANS would keep (a
   begin without end last, as incomplete), in the order they finish, not
   by id; memory for the spans still open and the span-id set only.
   Returns 0, FN's nonzero return, -E2BIG (max_spans words of the id set,
   max_open_spans), -ECANCELED (a limit stopped the load) or
   emlat_profile_rescan's error. */
EMLAT_API int emlat_profile_each_span (const struct emlat_profile *p, emlat_span_fn fn, void *ctx);

EMLAT_API const struct emlat_rd_input *
emlat_profile_inputs (const struct emlat_profile *p, size_t *n);

/* The resource samples of the session (RESOURCE records, FORMAT.md
   6.10) in reading order (which is time order); at most
   limits.max_events. */
EMLAT_API const struct emlat_rd_sample *emlat_profile_samples (const struct emlat_profile *p,
                                                               size_t *n);
EMLAT_API const char *emlat_resource_field_name (unsigned f);

/* The application events of the session (EVENT records, FORMAT.md 6.9) in
   reading order, each with its thread; at most limits.max_events. */
struct emlat_event
{
  uint64_t thread;
  struct emlat_rd_event ev;
};
EMLAT_API const struct emlat_event *emlat_profile_events (const struct emlat_profile *p,
                                                          size_t *n);

/* Every finished span of kind user that has a name (its detail, F-44): the
   sections of the application API (emlat_app.h), in the order they were
   read, for the per-name report (emlat_report_sections).  Unwound ones
   are included; incomplete ones are not (they have no end). */
struct emlat_named_span
{
  uint64_t name;        /* string id; may be one the dictionary lacks */
  uint64_t duration;    /* end - start, ns */
  uint64_t thread, cause;
};
EMLAT_API const struct emlat_named_span *
emlat_profile_named_spans (const struct emlat_profile *p, size_t *n);
EMLAT_API const struct emlat_loss_entry *
emlat_profile_losses (const struct emlat_profile *p, size_t *n);

/* Default quality of time field F (FORMAT.md 7.3), 0 if F is out of range. */
EMLAT_API enum emlat_quality emlat_time_default_quality (enum emlat_time_field f);

/* Names of enumerators for printing ("?" when out of range). */
EMLAT_API const char *emlat_chunk_type_name (unsigned type);
EMLAT_API const char *emlat_root_kind_name (unsigned k);
EMLAT_API const char *emlat_status_name (unsigned s);
EMLAT_API const char *emlat_span_kind_name (unsigned k);
EMLAT_API const char *emlat_span_status_name (unsigned s);
EMLAT_API const char *emlat_time_field_name (unsigned f);
EMLAT_API const char *emlat_value_field_name (unsigned f);
EMLAT_API const char *emlat_counter_name (unsigned c);
EMLAT_API const char *emlat_quality_name (unsigned q);
EMLAT_API const char *emlat_loss_reason_name (unsigned r);
EMLAT_API const char *emlat_event_tag_name (unsigned t);

#ifdef __cplusplus
}
#endif

#endif /* EMLAT_READER_H */
