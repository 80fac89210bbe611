/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * session.h -- the one recording session of the process, shared by the
 * public setup calls (session.c) and the writer thread (writer.c).
 *
 * Locking: `lock` protects the request fields (flush/stop/rotate), the
 * string dictionary, and the status snapshot.  The writer holds it only
 * briefly at the start and end of a pass, never while draining rings or
 * writing; producers never take it.  Everything under "writer-private" is
 * touched only by the writer thread (and by session start/stop before the
 * thread exists / after it was joined).
 */
#ifndef EMLAT_SESSION_H
#define EMLAT_SESSION_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/machine.h"
#include "emlat/emlat.h"
#include "format/encode.h"
#include "record/fileout.h"
#include "record/ixtable.h"
#include "record/ringfile.h"
#include "record/sample.h"
#include "record/spans.h"
#include "record/state.h"
#include "record/ttymodel.h"

struct emlat_meta_kv
{
  char key[EMLAT_KEY_MAX + 1];
  int type;
  uint64_t u;
  int64_t i;
  char *s;
  size_t s_len;
};

struct emlat_string_def
{
  char *s;
  uint32_t len;
};

/* Entries of the pending-loss list allocated at session start: more than
   there are loss reasons, so that it never needs memory to record a loss
   (writer.c, loss_entry). */
#define EMLAT_LOSSES_MIN 16
_Static_assert (EMLAT_LOSSES_MIN > EMLAT_LOSS_REASON_MAX,
                "a full loss list has two entries of one reason");

/* The session's status as of the writer's last pass, under the session
   lock: struct emlat_status but the path, which the session keeps as a
   heap string (st_path) rather than a 4 KiB buffer (a session's start
   touches a few bytes of it: docs/PERFORMANCE.md, "A start's pages"). */
struct emlat_status_snap
{
  int active;
  uint64_t session_records, records_written, records_dropped, bytes_written;
  uint64_t chunks_written, files, threads, ring_high_water, ring_slots;
  uint64_t writer_cpu_ns, clock_read_ns, meta_rejected;
  int last_error;
  uint64_t write_errors;
};

/* Writer-private per-ring state. */
struct emlat_ring_ws
{
  uint64_t thread;        /* owner whose state this is; 0 = none */
  struct emlat_span_state spans;
  struct emlat_tty_model tty; /* the ring's terminal calls (ttymodel.h) */
  uint64_t drops_reported, drop_bytes_reported;
  uint64_t hw_seen;       /* the ring's hw_wakes already counted */
  uint64_t ahead_seen;    /* the ring's ahead_wakes already counted */
};

struct emlat_session
{
  pthread_mutex_t lock;
  pthread_cond_t done; /* flushers wait here; the writer waits on the
                          doorbell (state.h) */
  pthread_t writer;
  int writer_running;

  /* Options, fixed for the session. */
  uint64_t gen;
  struct emlat_pool *pool;
  uint32_t ring_slots, max_threads, chunk_bytes, drain_us, stats_ms;
  uint64_t rotate_bytes;
  int overwrite;
  int adopt_empty;          /* EMLAT_OPT_ADOPT_EMPTY (the first file only) */
  int defer_finish;         /* EMLAT_OPT_DEFER_FINISH */
  int driven;               /* EMLAT_OPT_DRIVER_DRAINS in effect: no writer
                               thread here; the ring file is DRIVEN */
  int start_in_ring;        /* the profile's start is kept in the ring
                               file, not written (F-106, writer.c) */
  int external;             /* this process drains another's ring file
                               (drain.c): requests and status go through
                               the ring file's header */
  int writer_in_driver;     /* a driver draining a DRIVEN ring file, or the
                               recovery finishing one: the process had no
                               writer (STATS stats.writer_in_driver) */
  pid_t sample_pid;         /* the process resource samples describe (0:
                               this one) */
  uint32_t flush_asked;     /* external: the flush requests seen ... */
  uint32_t flush_answered;  /* ... and answered (writer.c) */
  struct emlat_ringfile ring; /* fd -1: rings in anonymous memory */
  char *base_path;          /* the profile's path, the first file of its set
                               (malloc'd) */
  uint8_t uuid[16];
  uint64_t realtime0, mono0;
  struct emlat_meta_kv *meta;
  size_t nmeta;
  size_t n_own_meta;        /* meta[0..n_own_meta): the recorder's own keys */
  /* The machine's facts as the driver handed them down (EMLAT_MACHINE,
     read only under EMLAT_OPT_DRIVER_DRAINS; machine.h), when it did:
     SESSION's cpu entries then come from it, not from this process. */
  int have_driver_machine;
  struct emlat_machine driver_machine;
  uint64_t meta_rejected;

  /* Under lock. */
  struct emlat_string_def *strings; /* strings[i] has id i + 1 */
  size_t nstrings, strings_cap;
  uint64_t string_bytes;
  uint64_t strings_refused, strings_refused_reported;
  uint64_t passes_started, passes_done;
  uint64_t flush_target; /* the writer runs passes until passes_started
                            reaches it without waiting */
  int stop_req, rotate_req;
  int rotate_result;
  struct emlat_status_snap st; /* snapshot, updated at the end of each pass */
  char *st_path;              /* its current file (malloc'd), or 0 */
  uint64_t st_writer_dropped; /* writer_dropped as of that snapshot */

  /* Writer-private. */
  struct emlat_out out;
  uint64_t rotation;
  uint64_t chunk_seq;       /* last sequence number written */
  size_t strings_in_file;   /* strings already written (current file) */
  struct emlat_ring_ws *ws; /* per ring */
  struct emlat_ixtable ix;
  struct emlat_arena arena;
  struct emlat_chunk_list chunks;
  struct emlat_enc_input *inputs;
  size_t ninputs, inputs_cap;
  struct emlat_app_event *app_events; /* this pass's APP records (app_drain.c) */
  struct emlat_sampler sampler;       /* resource samples (sample.c) */
  size_t napp_events, app_events_cap;
  uint64_t pass;
  uint64_t last_pass_t;     /* when the last pass began */
  uint64_t last_stats_t;
  uint64_t ckpt_seq;        /* checkpoints written to the ring file */
  uint64_t wakeups;         /* the writer's returns from waiting */
  uint64_t highwater_wakes; /* of them, doorbell rings at high water */
  uint64_t ahead_wakes;     /* futex wakes producers made for mapping ahead */
  int populate_unsupported; /* MADV_POPULATE_WRITE refused (EINVAL): no
                               mapping ahead (writer.c, map_pages) */
  size_t page_bytes;        /* the system's page size */
  int map_ahead;            /* the writer maps rings ahead (not
                               EMLAT_OPT_NO_MAP_AHEAD) */
  uint64_t checkpoints_failed; /* the ring file was given up (writer.c) */
  uint64_t encodings_deferred; /* passes whose LOSS or STATS chunk could not be
                                  encoded for want of memory (writer.c) */
  int recovering;           /* recover.c runs the passes of a dead process */
  int recovered_stopped;    /* ... which had called emlat_stop */
  int exit_known;           /* ... whose wait status the caller gave: */
  int exit_status;          /* ... as waitpid reported it (STATS
                               stats.exit_code or stats.exit_signal) */
  /* Loss accounting not yet written as LOSS records (at least
     EMLAT_LOSSES_MIN entries from session start; writer.c). */
  struct emlat_pending_loss
  {
    uint64_t stream;
    unsigned reason;
    uint64_t first, last, records, bytes;
  } *losses;
  size_t nlosses, losses_cap;
  uint64_t noring_reported, noring_bytes_reported;
  uint64_t retired_accepted; /* unused: heads count on across owners */
  uint64_t writer_dropped;   /* records lost by the writer itself (not
                                ring_full, not no_ring) */
  /* Counters for STATS and status (copied into st under the lock by the
     writer's publish_status: emlat_status reads st under it). */
  uint64_t records_accepted; /* ring slots published, at the last pass */
  uint64_t records_written, records_dropped, bytes_written, chunks_written;
  uint64_t ring_high_water, write_errors, writer_cpu_ns;
  int last_error;
  int first_error;
};

extern struct emlat_session *emlat_g_session;

/* Writer thread body (writer.c). */
void *emlat_writer_main (void *arg);
/* Open the first file and write header + SESSION (writer.c, called by
   emlat_start before the thread starts); a driven session keeps them in
   its ring file instead (start_in_ring).  Returns 0 or a negative errno. */
int emlat_writer_open_first (struct emlat_session *s);
/* The ring file that kept the profile's start was given up (its first
   checkpoint failed): write the start into the profile after all.
   Returns 0 or a negative errno (the profile is then removed). */
int emlat_writer_start_in_profile (struct emlat_session *s);
/* Final pass, final STATS, close (called by the writer thread at stop,
   and by recovery). */
void emlat_writer_finish (struct emlat_session *s);
/* Account RECORDS ring records (BYTES bytes) of STREAM lost for REASON
   between FIRST and LAST (writer.c; F-70). */
void emlat_writer_loss (struct emlat_session *s, uint64_t stream, unsigned reason,
                        uint64_t first, uint64_t last, uint64_t records, uint64_t bytes);
/* A new input batch of the pass for THREAD's ring (its words for the
   caller to fill), or NULL when memory ran out (its ring record of NSLOTS
   slots counted lost, writer_memory).  Writer thread only. */
struct emlat_enc_input *emlat_writer_input (struct emlat_session *s, uint64_t thread,
                                            unsigned nslots);
/* Whether the pool is file-backed and this session's state can be
   checkpointed; the first checkpoint (writer.c, called by emlat_start
   after the first file was written). */
int emlat_writer_checkpoint_first (struct emlat_session *s);

#endif /* EMLAT_SESSION_H */
