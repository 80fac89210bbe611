/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * emlat_report.h -- the analysis API of libemlat: what a loaded profile
 * (emlat_reader.h) says about latency, computed the same way for
 * `emlat report`, `emlat compare`, the exports and the Emacs summary
 * primitive.  docs/REPORT.md defines every number.
 *
 * The sections below, in dependency order:
 *   judge      is a profile usable, did reading it lose data;
 *   stats      exact order statistics (nearest rank) of nanosecond samples;
 *   metrics    the derived metrics of one interaction and its population;
 *   tail       which interaction the waterfall shows, and the slowest ones;
 *   model      per root kind and population, every metric's distribution;
 *   overhead   the profiler's own cost as the recorder wrote it;
 *   waterfall  one interaction on a time axis, and the split of its wall time;
 *   bootstrap  confidence intervals of a quantile's difference;
 *   compare    are two sessions comparable, and how did their quantiles move;
 *   names      the work grouped by the names a names-policy session records;
 *   join       the outside view of `emlat replay` matched with the program's.
 *
 * Invariants: every value has a presence flag or mask, and an absent value
 * is never 0; results point into the profile they were computed from, which
 * must outlive them; no function prints anything.
 */
#ifndef EMLAT_REPORT_H
#define EMLAT_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "emlat_reader.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* judge                                                              */
/*
 * what reading a profile lost: the one judgement of `emlat check`,
 * `emlat report`, compare, export and the Emacs summary primitive, so that
 * all of them call the same profile damaged (docs/FORMAT.md F-94).
 *
 *   usable      at least one file of the session has a valid header and no
 *               reader limit stopped the load;
 *   valid       every file read to its end, and no diagnostic of the load
 *               is damage (emlat_diag_is_damage);
 *   damaged     not valid: a file stopped before its end, invalid chunks,
 *               chunks skipped for their codec, sequence gaps, a missing or
 *               repeated SESSION or rotated file, files of another session,
 *               a repeated id, a span that ends before it starts;
 *   unreadable  (a kind of damaged) a file could not be read or has no
 *               valid header, or a reader limit stopped the load.
 *
 * Not damage: LOSS records (the recorder said what it dropped), skipped
 * chunks of unknown types or newer versions, an open interaction, an
 * incomplete span, an orphan end, no final STATS.
 */

enum emlat_report_health {
  EMLAT_HEALTH_VALID = 0,
  EMLAT_HEALTH_DAMAGED = 1,
  EMLAT_HEALTH_UNREADABLE = 2
};

/* 1 when P has a usable session (see above). */
EMLAT_API int emlat_report_usable (const struct emlat_profile *p);
/* The health of the whole load P, the worst of its files' and of the
   load's own diagnostics. */
EMLAT_API enum emlat_report_health emlat_report_health (const struct emlat_profile *p);
/* The health of one file of a load: its scan, and what the load found in
   its records (repeated ids, backwards spans); not the set's problems. */
EMLAT_API enum emlat_report_health
emlat_report_file_health (const struct emlat_file_summary *f);
/* 1 when P is not valid: emlat_report_health (P) != EMLAT_HEALTH_VALID. */
EMLAT_API int emlat_report_damaged (const struct emlat_profile *p);
/* 1 when a diagnostic of kind K is damage: emlat_diag_is_damage (K). */
EMLAT_API int emlat_report_diag_is_damage (enum emlat_diag_kind k);

/* ------------------------------------------------------------------ */
/* stats                                                              */
/*
 * exact order statistics of nanosecond samples: a stable
 * LSD radix sort of uint64_t keys (optionally carrying a uint64_t payload),
 * nearest-rank quantiles and the distribution summary every report prints.
 *
 * The percentile rule (docs/REPORT.md "Percentiles"): for n sorted samples
 * x[1..n] and a fraction p in (0, 1], the p-quantile is x[ceil(p * n)]
 * (nearest rank), computed in integer arithmetic from p = num / den, so the
 * result is always one of the samples and never interpolated.  min is
 * x[1], max is x[n], the median is x[ceil(n / 2)].  p99.9 is reported only
 * when n >= 1000, the smallest n at which its rank (ceil(0.999 n)) differs
 * from the maximum's.
 *
 * Invariants: a summary of n = 0 samples has n = 0 and nothing else valid;
 * totals saturate at UINT64_MAX instead of wrapping (total_saturated says
 * so); the sort is stable, so equal keys keep their input order.
 */

/* Smallest sample count for which p99.9 is reported. */
#define EMLAT_REPORT_P999_MIN_N 1000u

struct emlat_report_dist
{
  uint64_t n;
  uint64_t min, p50, p90, p95, p99, p999, max;
  int has_p999;        /* n >= EMLAT_REPORT_P999_MIN_N */
  uint64_t total;      /* sum of the samples, saturating */
  int total_saturated;
  double mean;         /* total / n (from the exact sum) */
};

/* Sort KEYS[0..N) ascending, stably; PAYLOAD (may be NULL) moves with its
   key.  Returns 0, or -1 when the scratch memory could not be allocated
   (then the arrays are unchanged). */
EMLAT_API int emlat_report_sort_u64 (uint64_t *keys, uint64_t *payload, size_t n);

/* The 0-based index of the nearest-rank NUM/DEN quantile of N >= 1 sorted
   samples: ceil(NUM * N / DEN) - 1, at least 0.  0 < NUM <= DEN. */
EMLAT_API size_t emlat_report_rank_index (size_t n, uint64_t num, uint64_t den);

/* Summarize SORTED[0..N) (ascending) into *D. */
EMLAT_API void emlat_report_dist_of_sorted (const uint64_t *sorted, size_t n, struct emlat_report_dist *d);

/* ------------------------------------------------------------------ */
/* metrics                                                            */
/*
 * the derived metrics of one interaction (DESIGN.md
 * section 5, docs/REPORT.md "Metrics") and its population.
 *
 * An interaction's raw boundaries are first gathered into a struct
 * emlat_report_times (from a loaded profile, or from a decoded INTERACTION record
 * for `emlat export --format=jsonl`), then emlat_report_metrics_compute derives
 * every metric whose boundaries are present.  A metric is present exactly
 * when its bit is set in the mask; an absent metric has no value at all,
 * never 0.  A duration whose end precedes its start is not computed either
 * (it is counted in the inverted mask instead), except where the definition
 * itself clamps at 0 (prefix_dwell_min_ns, main_off_cpu_ns).
 *
 * Populations (docs/REPORT.md "Populations"), decided in this order:
 *   superseded  status is superseded;
 *   flushed     t_flush_end is present (a stdio flush completed its output)
 *               or t_external_first_output is (emlat replay saw output);
 *   no output   every other interaction (including open ones).
 */

enum emlat_report_metric {
  EMLAT_RM_BATCH_READY_WAIT,
  EMLAT_RM_INPUT_QUEUE,
  EMLAT_RM_KEY_DECODE,
  EMLAT_RM_PRE_COMMAND,
  EMLAT_RM_COMMAND,
  EMLAT_RM_POST_COMMAND,
  EMLAT_RM_REDISPLAY_WAIT,
  EMLAT_RM_REDISPLAY,
  EMLAT_RM_TTY_EMIT,
  EMLAT_RM_INPUT_TO_COMMAND_MIN,
  EMLAT_RM_INPUT_TO_COMMAND_MAX,
  EMLAT_RM_INPUT_TO_FLUSH_MIN,
  EMLAT_RM_INPUT_TO_FLUSH_MAX,
  EMLAT_RM_MAIN_CPU,
  EMLAT_RM_MAIN_OFF_CPU,
  EMLAT_RM_PREFIX_DWELL_MIN,
  EMLAT_RM_PREFIX_DWELL_MAX,
  EMLAT_RM_WALL,
  EMLAT_RM_INPUT_UNCERTAINTY,
  EMLAT_RM_EXTERNAL_FIRST_OUTPUT,
  EMLAT_RM_EXTERNAL_QUIESCENT,
  /* The headline (docs/REPORT.md "The headline"): the latency the user
     felt, as bounds.  Lower: from the latest possible arrival of the key
     (t_input_latest) to the earliest moment its output can be in the
     kernel: t_write_first_begin when present, else t_output_begin, else
     t_flush_begin.  Upper: from the earliest possible arrival
     (t_input_earliest) to the moment output is known to be in the kernel:
     t_write_first_end when present, else t_flush_end.  Their difference
     is at least input_uncertainty_ns, the idle time before the key
     arrived that the recording cannot tell apart from the key's own. */
  EMLAT_RM_LATENCY_LOWER,
  EMLAT_RM_LATENCY_UPPER,
  EMLAT_RM_COUNT
};

enum emlat_report_pop { EMLAT_POP_FLUSHED = 0, EMLAT_POP_NO_OUTPUT = 1, EMLAT_POP_SUPERSEDED = 2, EMLAT_POP_COUNT = 3 };

/* The raw boundaries of one interaction. */
struct emlat_report_times
{
  uint32_t status;
  uint32_t tmask;                   /* bit f: t[f] present */
  uint64_t t[EMLAT_T_FIELD_COUNT];
  int has_cpu_begin;
  int has_cpu_end;                  /* an enum emlat_report_cpu_end */
  uint64_t cpu_begin, cpu_end;      /* thread CPU clock readings */
};

/* Whether thread_cpu_end is present, and which wall interval the two
   readings lie in (emlat_report_cpu_window). */
enum emlat_report_cpu_end {
  EMLAT_REPORT_CPU_END_ABSENT = 0,
  /* Read at the last completion boundary: the readings lie in the wall
     interval (t_dispatch_begin .. emlat_report_completion). */
  EMLAT_REPORT_CPU_END_AT_COMPLETION = 1,
  /* Read when the interaction ended (emlat_profile_cpu_end_at_end): the
     readings lie in t_dispatch_begin .. t_interaction_end. */
  EMLAT_REPORT_CPU_END_AT_END = 2
};

struct emlat_report_metrics
{
  uint32_t mask;                    /* bit m: v[m] present */
  uint32_t inverted;                /* bit m: boundaries present, end < start */
  uint32_t clamped;                 /* bit m: a clamped-at-0 metric was negative */
  uint64_t v[EMLAT_RM_COUNT];
};

/* The metric's JSON name ("command_ns") and its label for people
   ("command", "latency, lower bound"; at most EMLAT_REPORT_LABEL_MAX
   characters, no abbreviation left undefined: docs/REPORT.md). */
#define EMLAT_REPORT_LABEL_MAX 22
EMLAT_API const char *emlat_report_metric_name (enum emlat_report_metric m);
EMLAT_API const char *emlat_report_metric_label (enum emlat_report_metric m);
/* "flushed", "no_output", "superseded" (JSON) and "flushed", "no output",
   "superseded" (text). */
EMLAT_API const char *emlat_report_pop_key (enum emlat_report_pop p);
EMLAT_API const char *emlat_report_pop_label (enum emlat_report_pop p);

/* Gather IX's boundaries from P. */
EMLAT_API void emlat_report_times_from_profile (const struct emlat_profile *p,
                                const struct emlat_interaction *ix,
                                struct emlat_report_times *t);
/* Gather a decoded INTERACTION complete record's boundaries; its
   thread_cpu_end counts as read at the completion (AT_COMPLETION) unless
   P, the profile the record belongs to (may be NULL), says otherwise. */
EMLAT_API void emlat_report_times_from_record (const struct emlat_rd_ix *r, struct emlat_report_times *t);
EMLAT_API void emlat_report_times_from_record_of (const struct emlat_profile *p,
                                                  const struct emlat_rd_ix *r,
                                                  struct emlat_report_times *t);

/* The wall interval that the two thread CPU readings lie in: from
   t_dispatch_begin to the completion (emlat_report_completion), or to
   t_interaction_end when thread_cpu_end was read there.  main_off_cpu_ns
   is its length minus main_cpu_ns.  Returns 0 (*FROM and *TO untouched)
   when a reading or a boundary is absent, or the interval is inverted. */
EMLAT_API int emlat_report_cpu_window (const struct emlat_report_times *t, uint64_t *from,
                                       uint64_t *to);

/* The boundary that ends an interaction's wall time: the latest present of
   t_root_work_end, t_redisplay_end and t_flush_end, else t_interaction_end.
   Returns 0 when none is present. */
EMLAT_API int emlat_report_completion (const struct emlat_report_times *t, uint64_t *out);

EMLAT_API void emlat_report_metrics_compute (const struct emlat_report_times *t, struct emlat_report_metrics *m);

/* The phase metrics, in the order of an interaction's life: waiting to be
   read, queue, key decoding, pre-command hooks, command, post-command
   hooks, wait for redisplay, redisplay, terminal output. */
#define EMLAT_REPORT_PHASES 9
EMLAT_API extern const enum emlat_report_metric emlat_report_phases[EMLAT_REPORT_PHASES];
/* The phase that dominated the interaction of metrics M: the present
   phase metric with the largest value (the earlier phase on a tie); -1
   when it has none. */
EMLAT_API int emlat_report_dominant_phase (const struct emlat_report_metrics *m);

/* The thresholds of the first screen's counts (docs/REPORT.md "The first
   screen"): 16 ms, 33 ms and 100 ms, a frame at 60 Hz and at 30 Hz, and
   the delay people notice. */
#define EMLAT_REPORT_THRESHOLDS 3
EMLAT_API extern const uint64_t emlat_report_thresholds_ns[EMLAT_REPORT_THRESHOLDS];
EMLAT_API enum emlat_report_pop emlat_report_population (const struct emlat_report_times *t);

/* ------------------------------------------------------------------ */
/* tail                                                               */
/*
 * which interaction the waterfall shows, and the slowest
 * interactions (docs/REPORT.md "The tail interaction").
 *
 * The tail metric is the first of latency_lower_ns (the headline),
 * input_to_flush_max_ns, external_first_output_ns, command_ns, wall_ns
 * that at least one interaction has.  The interactions having it are ordered by (value,
 * cause id); the tail is the one at the nearest-rank p99 of that order and
 * the slowest are its last EMLAT_REPORT_SLOWEST, slowest first.
 *
 * This is a pass of its own, cheaper than the report model (two
 * boundaries per interaction for the usual metric), so that `emlat report`
 * can fetch the tail's spans on a second thread while it builds the model.
 */

#define EMLAT_REPORT_SLOWEST 20

struct emlat_report_slow
{
  uint64_t cause, value;
};

struct emlat_report_tail
{
  int has;                          /* some interaction has a tail metric */
  enum emlat_report_metric metric;
  uint64_t n, rank;                 /* 1-based rank among n */
  uint64_t cause, value;
  struct emlat_report_slow slow[EMLAT_REPORT_SLOWEST];
  size_t n_slow;
};

/* The order of the candidate metrics. */
#define EMLAT_REPORT_TAIL_CHAIN 5
EMLAT_API extern const enum emlat_report_metric emlat_report_tail_chain[EMLAT_REPORT_TAIL_CHAIN];

/* Fill *T from P.  Returns 0 or -ENOMEM. */
EMLAT_API int emlat_report_tail_pick (const struct emlat_profile *p, struct emlat_report_tail *t);

/* ------------------------------------------------------------------ */
/* model                                                              */
/*
 * everything `emlat report` and `emlat compare` compute
 * from a loaded profile before anything is printed: per root kind and
 * population, the sorted samples and the distribution of every metric;
 * per population, how often each boundary was missing.
 *
 * Root kinds outside 1..EMLAT_ROOT_KIND_MAX (damaged or newer files) are
 * counted as kind 0, "unknown".
 *
 * Application interactions (root kind application, FORMAT.md F-66a) are
 * grouped by name: the first EMLAT_REPORT_APP_NAMES distinct names (by
 * their bytes) get groups of their own at index EMLAT_REPORT_KINDS + i,
 * named by app_names[i]; the others, and unnamed ones, the group of root
 * kind application itself.  n_kind[EMLAT_ROOT_APPLICATION] counts them
 * all; n_kind[EMLAT_REPORT_KINDS + i] those of name i.
 *
 * The tail interaction is picked separately (report_tail.h) and stored
 * in the model by the caller.
 *
 * Invariant: the model points into the profile (it does not copy it), so
 * the profile must outlive it.
 */

#define EMLAT_REPORT_KINDS (EMLAT_ROOT_KIND_MAX + 1)
#define EMLAT_REPORT_APP_NAMES 16
/* Groups of the model: root kinds, then application interaction names. */
#define EMLAT_REPORT_GROUPS (EMLAT_REPORT_KINDS + EMLAT_REPORT_APP_NAMES)

struct emlat_report_series
{
  uint64_t *v;          /* ascending once the model is built */
  size_t n, cap;
};

struct emlat_report_group
{
  uint32_t root_kind;
  enum emlat_report_pop pop;
  uint64_t name;                       /* application interactions: the string
                                          id of their name; 0 otherwise */
  uint64_t n;                          /* interactions in the group */
  struct emlat_report_series s[EMLAT_RM_COUNT];
  struct emlat_report_dist d[EMLAT_RM_COUNT];
  uint64_t inverted[EMLAT_RM_COUNT];         /* boundaries present but reversed */
  uint64_t clamped[EMLAT_RM_COUNT];          /* clamped at 0 */
};

struct emlat_report_model
{
  const struct emlat_profile *p;
  struct emlat_report_group g[EMLAT_REPORT_GROUPS][EMLAT_POP_COUNT];
  uint64_t n_ix;
  uint64_t n_pop[EMLAT_POP_COUNT];
  uint64_t n_status[EMLAT_STATUS_MAX + 1];     /* index 0: out of range */
  uint64_t n_kind[EMLAT_REPORT_GROUPS];
  /* Names of the application groups (string ids), and how many
     application interactions had a name beyond the first
     EMLAT_REPORT_APP_NAMES (counted in the unnamed group). */
  uint64_t app_names[EMLAT_REPORT_APP_NAMES];
  uint32_t n_app_names;
  uint64_t app_names_overflow;
  /* Interactions of each population that have each boundary. */
  uint64_t present_t[EMLAT_POP_COUNT][EMLAT_T_FIELD_COUNT];
  uint64_t present_cpu_begin[EMLAT_POP_COUNT], present_cpu_end[EMLAT_POP_COUNT];
  /* The tail and the slowest interactions (emlat_report_tail_pick, or
     EMLAT_REPORT_MODEL_TAIL); emlat_report_model_build leaves it empty. */
  struct emlat_report_tail tail;
  void *priv;                  /* while building (private) */
};

/* Build *M from P's kept interactions, every sample kept.  Returns 0 or
   -ENOMEM (then *M is freed). */
EMLAT_API int emlat_report_model_build (const struct emlat_profile *p, struct emlat_report_model *m);
EMLAT_API void emlat_report_model_free (struct emlat_report_model *m);

/* Building a model from interactions handed over one at a time, in any
   order, in one pass or a few (for a streamed profile:
   emlat_profile_load_each, emlat_profile_each_interaction).  The numbers
   are those of emlat_report_model_build on the same interactions.

   Flags:
     EMLAT_REPORT_MODEL_LEAD_ONLY  only each group's lead metric
       (emlat_report_group_primary) keeps its samples in s[]; the other
       metrics' distributions (d[]) are exact too, their quantiles found
       from a histogram in bounded memory (docs/REPORT.md, "Percentiles")
       at the cost of usually one more pass; their s[] stay empty.
     EMLAT_REPORT_MODEL_TAIL  also pick the tail and the slowest
       interactions into M->tail (emlat_report_tail_pick's result).
   Passes: emlat_report_model_begin, then emlat_report_model_add for every
   interaction, then emlat_report_model_pass_end; while that returns 1,
   every interaction again through emlat_report_model_add and
   emlat_report_model_pass_end.  0: the model is complete (M->tail after
   the first pass already); -ENOMEM: *M was freed.  P is the profile of
   the interactions (M->p; may be set after emlat_report_model_begin). */
#define EMLAT_REPORT_MODEL_LEAD_ONLY 0x1u
#define EMLAT_REPORT_MODEL_TAIL 0x2u
EMLAT_API int emlat_report_model_begin (struct emlat_report_model *m,
                                        const struct emlat_profile *p, unsigned flags);
EMLAT_API int emlat_report_model_add (struct emlat_report_model *m, const struct emlat_profile *p,
                                      const struct emlat_interaction *ix);
EMLAT_API int emlat_report_model_pass_end (struct emlat_report_model *m);
/* Every pass over P (emlat_profile_each_interaction) with FLAGS.  Returns
   0, -ENOMEM or the iteration's error (then *M is freed). */
EMLAT_API int emlat_report_model_build_each (struct emlat_profile *p, struct emlat_report_model *m,
                                             unsigned flags);

/* The metric a group's latency chart and comparison lead with: the first
   of latency_lower_ns (the headline), input_to_flush_max_ns, external_first_output_ns,
   input_to_command_max_ns, command_ns, wall_ns that the group has samples
   of; -1 when it has none. */
EMLAT_API int emlat_report_group_primary (const struct emlat_report_group *g);

/* The boundaries whose absence the report lists: the time fields
   (0 .. EMLAT_T_FIELD_COUNT - 1), then the main-thread CPU reading at
   dispatch and at completion. */
#define EMLAT_REPORT_BOUNDARIES (EMLAT_T_FIELD_COUNT + 2)
/* The name of boundary B ("t_command_end", "thread_cpu_begin", ...). */
EMLAT_API const char *emlat_report_boundary_name (unsigned b);
/* How many interactions of each population lack boundary B, into MISS;
   returns their total. */
EMLAT_API uint64_t emlat_report_boundary_missing (const struct emlat_report_model *m, unsigned b,
                                                  uint64_t miss[EMLAT_POP_COUNT]);

/* ------------------------------------------------------------------ */
/* overhead                                                           */
/*
 * the profiler's own cost and completeness, as the
 * recorder wrote it: the last STATS entries (FORMAT.md 8.2), the SESSION
 * clock calibration, and the session's span from the file header's start
 * to the last STATS time.
 *
 * Every field has a presence flag: a statistic the file does not carry is
 * reported as not recorded, never as 0.
 */

enum emlat_report_ovh_field {
  EMLAT_OVH_WRITER_CPU_NS,
  EMLAT_OVH_RECORDS_ACCEPTED,
  EMLAT_OVH_RECORDS_WRITTEN,
  EMLAT_OVH_RECORDS_DROPPED,
  EMLAT_OVH_BYTES_WRITTEN,
  EMLAT_OVH_CHUNKS_WRITTEN,
  EMLAT_OVH_THREADS,
  EMLAT_OVH_RING_HIGH_WATER,
  EMLAT_OVH_RING_SLOTS,
  EMLAT_OVH_CLOCK_READ_NS,
  EMLAT_OVH_WRITE_ERRORS,
  EMLAT_OVH_SESSION_NS,        /* stats.time - header monotonic start */
  EMLAT_OVH_COUNT
};

struct emlat_report_overhead
{
  uint32_t mask;         /* bit f: v[f] present */
  uint64_t v[EMLAT_OVH_COUNT];
  int final_stats;       /* stats.final = 1: the session stopped cleanly */
  int has_writer_share;
  double writer_share;   /* writer CPU / session time (one core = 1.0) */
  int writer_in_driver;  /* stats.writer_in_driver = 1: the writer's passes
                            ran in the driver that ran the program (`emlat
                            record`, `emlat replay --interpose`), so its
                            CPU was not the program's */
  int exit_known;        /* stats.exit_code or stats.exit_signal: the driver
                            that finished the profile reaped the process */
  int exit_signal;       /* the signal that ended it, or 0: */
  int exit_code;         /* ... it exited with this status */
};

/* The JSON key of field F ("writer_cpu_ns"). */
EMLAT_API const char *emlat_report_ovh_name (enum emlat_report_ovh_field f);
EMLAT_API void emlat_report_overhead_of (const struct emlat_profile *p, struct emlat_report_overhead *o);

/* ------------------------------------------------------------------ */
/* waterfall                                                          */
/*
 * one interaction laid out on a time axis: its input
 * arrival bounds as an interval, its spans nested by parent, and the split
 * of its wall time (docs/REPORT.md "The tail interaction").
 *
 * The split:
 *   wall            wall_ns: t_dispatch_begin to completion (the latest of
 *                   t_root_work_end, t_redisplay_end, t_flush_end, else
 *                   t_interaction_end);
 *   main CPU        thread_cpu_end - thread_cpu_begin, over the CPU
 *                   window (emlat_report_cpu_window): the wall interval,
 *                   or t_dispatch_begin to t_interaction_end when
 *                   thread_cpu_end was read at the interaction's end;
 *   measured waits  the time covered by wait and event_poll spans on the
 *                   interaction's thread, clipped to the CPU window (to
 *                   the wall interval when there is none; a wait span
 *                   inside another is not counted twice);
 *   unknown off-CPU window - main CPU - measured waits, never negative:
 *                   when the subtraction would go below 0 it is 0 and
 *                   `excess` says by how much CPU + waits exceeded it;
 *   TTY emission    tty_emit_ns = t_flush_end - t_output_begin, part of the
 *                   wall time (it overlaps the CPU and wait parts).
 * Each part is present only when its boundaries are.
 *
 * When the interaction has no spans, its phases (queue, key decode, pre-
 * command, command, post-command, redisplay wait, redisplay, TTY emission)
 * are drawn from its boundaries instead.
 */

enum emlat_report_wf_type { EMLAT_WF_INPUT = 0, EMLAT_WF_FIRST_INPUT = 1, EMLAT_WF_SPAN = 2, EMLAT_WF_PHASE = 3 };

struct emlat_report_wf_row
{
  enum emlat_report_wf_type type;
  const char *name;     /* span kind name or phase name (static), or a named
                           section's name (F-44: printable ASCII, '?' for
                           other bytes, "#ID" when the dictionary lacks
                           it; owned by the waterfall) */
  uint64_t name_id;     /* a named section's string id, 0 otherwise */
  char *priv_name;      /* private: the storage of a section's name */
  int depth;
  uint64_t start, end;
  int has_end;          /* incomplete spans have none */
  uint32_t kind;        /* span kind (EMLAT_WF_SPAN) */
  uint32_t status;      /* span status (EMLAT_WF_SPAN) */
  uint64_t id, parent, thread;
};

struct emlat_report_waterfall
{
  uint64_t cause;
  uint32_t root_kind, status;
  enum emlat_report_pop pop;
  uint64_t thread;
  struct emlat_report_times t;
  struct emlat_report_metrics m;
  uint64_t t0, t1;                 /* the axis; a row may start before t0
                                      (input arrival only), never after t1 */
  struct emlat_report_wf_row *rows;
  size_t n_rows;
  size_t n_spans;
  int spans_error;                 /* negative errno of emlat_profile_ix_spans */
  int has_wall, has_cpu, has_unknown, has_tty_emit;
  uint64_t wall, cpu, waits, unknown, excess, tty_emit;
  size_t n_wait_spans;
  uint32_t counter_mask;           /* the interaction's own counters */
  uint64_t counters[EMLAT_C_COUNTER_COUNT];
  uint32_t span_counter_mask;      /* sums over its spans */
  uint64_t span_counters[EMLAT_C_COUNTER_COUNT];
};

/* Build the waterfall of interaction CAUSE of P.  Returns 0, -ENOENT when P
   has no such interaction, or -ENOMEM.  A failure to fetch the spans is not
   an error: spans_error says so and the phases are drawn instead. */
EMLAT_API int emlat_report_waterfall_build (const struct emlat_profile *p, uint64_t cause,
                            struct emlat_report_waterfall *w);
/* The same with the spans fetched already: SPANS_RC and SPANS are what
   emlat_profile_ix_spans (P, CAUSE, SPANS) returned (fetched at the same
   time as something else, on another thread); SPANS stays the
   caller's. */
EMLAT_API int emlat_report_waterfall_build_spans (const struct emlat_profile *p, uint64_t cause,
                                                  int spans_rc,
                                                  const struct emlat_span_set *spans,
                                                  struct emlat_report_waterfall *w);
/* The waterfall of an interaction known only by its boundaries T (no
   spans, no counters): the rows emlat_report_waterfall_build draws for an
   interaction without spans -- input arrival, then the phases -- with
   the same split and axis; spans_error is -ENOENT.  For a renderer that
   met the interaction in a streamed pass (the HTML report's timeline).
   Returns 0 or -ENOMEM. */
EMLAT_API int emlat_report_waterfall_build_times (uint64_t cause, uint32_t root_kind,
                                                  uint64_t thread,
                                                  const struct emlat_report_times *t,
                                                  struct emlat_report_waterfall *w);
EMLAT_API void emlat_report_waterfall_free (struct emlat_report_waterfall *w);

/* ------------------------------------------------------------------ */
/* bootstrap                                                          */
/*
 * bootstrap confidence intervals for the difference
 * of one quantile between two samples, deterministic for a given seed
 * (docs/REPORT.md "Comparison").
 *
 * Method: percentile bootstrap.  Each of R resamples draws n_A values from
 * A and n_B from B with replacement, takes the nearest-rank q-quantile of
 * each and records delta = qB* - qA*.  The interval is the nearest-rank
 * 2.5th and 97.5th percentile of the R deltas.
 *
 * A resample's k-th order statistic is drawn directly instead of drawing
 * n values: the k-th smallest of n uniform indices floor(n U_i) is
 * floor(n U_(k)), and U_(k) ~ Beta(k, n - k + 1).  This is exact (the
 * mapping U -> floor(n U) is monotone) and costs O(1) per resample, so a
 * million-sample session bootstraps as fast as a small one.
 *
 * The generator is xoshiro256** seeded through splitmix64; Beta variates
 * come from two Gamma variates (Marsaglia and Tsang's method, shape >= 1
 * here since 1 <= k <= n), normals from the polar method.
 */

#define EMLAT_REPORT_BOOT_DEFAULT_RESAMPLES 2000u
#define EMLAT_REPORT_BOOT_DEFAULT_SEED 0x656d6c6174ull /* "emlat" */

struct emlat_report_rng
{
  uint64_t s[4];
};

EMLAT_API void emlat_report_rng_seed (struct emlat_report_rng *r, uint64_t seed);
EMLAT_API uint64_t emlat_report_rng_next (struct emlat_report_rng *r);
/* Uniform in (0, 1), never 0 or 1. */
EMLAT_API double emlat_report_rng_uniform (struct emlat_report_rng *r);
/* Beta(a, b) for a, b >= 1. */
EMLAT_API double emlat_report_rng_beta (struct emlat_report_rng *r, double a, double b);

/* The 0-based index, in a sorted sample of N, of the K-th smallest (K
   1-based) of N draws with replacement. */
EMLAT_API size_t emlat_report_boot_order_stat (struct emlat_report_rng *r, size_t n, size_t k);

struct emlat_report_boot_ci
{
  int64_t delta;     /* qB - qA of the samples themselves */
  int64_t lo, hi;    /* the 95% interval of the bootstrap deltas */
};

/* The interval for quantile NUM/DEN (nearest rank) of sorted A[0..NA) and
   B[0..NB), both non-empty, with RESAMPLES resamples from SEED.  Returns
   0, or -1 when memory for the deltas could not be allocated. */
EMLAT_API int emlat_report_boot_quantile_delta (const uint64_t *a, size_t na, const uint64_t *b, size_t nb,
                                uint64_t num, uint64_t den, unsigned resamples, uint64_t seed,
                                struct emlat_report_boot_ci *ci);

/* ------------------------------------------------------------------ */
/* compare                                                            */
/*
 * is session B comparable with session A, and if so,
 * how did each population's latency quantiles move (docs/REPORT.md
 * "Comparison")?
 *
 * Guards (each failing key is named with both values; a key present in
 * one session and absent in the other fails too):
 *   identity  every SESSION key under program., build. or emacs.;
 *   terminal  tty.term, tty.rows, tty.cols (libemlat-tty),
 *             replay.term, replay.rows, replay.cols (emlat replay),
 *             terminal.type, terminal.rows, terminal.cols (Emacs, demo);
 *   profiler  every SESSION key under profiler.;
 *   workload  replay.workload, demo.workload.
 * Any failing guard makes the sessions not comparable: no delta is
 * computed.
 *
 * Populations (root kind, or application interaction name, x flushed /
 * no output / superseded) are compared
 * only when both sessions have at least EMLAT_REPORT_COMPARE_MIN_N interactions
 * in them; the others are listed with both counts.  In a compared
 * population each metric of input_to_flush_max_ns,
 * external_first_output_ns, input_to_command_max_ns, command_ns, wall_ns
 * with at least EMLAT_REPORT_COMPARE_MIN_N samples on both sides gets the delta
 * B - A of its median, p90 and p99 with a bootstrap 95% interval, and a
 * verdict: slower (the interval is above 0), faster (below 0) or no
 * significant change (it contains 0).
 */

#define EMLAT_REPORT_COMPARE_MIN_N 30u
#define EMLAT_REPORT_COMPARE_METRICS 5
#define EMLAT_REPORT_COMPARE_QUANTILES 3

enum emlat_report_guard { EMLAT_GUARD_IDENTITY, EMLAT_GUARD_TERMINAL, EMLAT_GUARD_PROFILER, EMLAT_GUARD_WORKLOAD };

struct emlat_report_guard_fail
{
  enum emlat_report_guard guard;
  char key[72];
  char a[80], b[80];   /* printable values, "(absent)" when absent */
};

enum emlat_report_verdict { EMLAT_VERDICT_SAME = 0, EMLAT_VERDICT_FASTER = 1, EMLAT_VERDICT_SLOWER = 2 };

struct emlat_report_cmp_quantile
{
  uint64_t a, b;                /* the quantile in A and in B */
  struct emlat_report_boot_ci ci;
  enum emlat_report_verdict verdict;
};

struct emlat_report_cmp_metric
{
  enum emlat_report_metric metric;
  uint64_t n_a, n_b;
  int compared;                 /* both have >= EMLAT_REPORT_COMPARE_MIN_N */
  struct emlat_report_cmp_quantile q[EMLAT_REPORT_COMPARE_QUANTILES];
};

struct emlat_report_cmp_pop
{
  uint32_t root_kind;
  enum emlat_report_pop pop;
  /* An application group's name (root kind application): the string id
     in the profile that has the group (A, or B when only B has it) and its
     bytes there (NULL when that dictionary lacks it); 0 and NULL for the
     other groups.  Groups of two sessions are paired by these bytes. */
  uint64_t name_id;
  const uint8_t *name;
  size_t name_len;
  uint64_t n_a, n_b;
  int compared;
  struct emlat_report_cmp_metric m[EMLAT_REPORT_COMPARE_METRICS];
  size_t n_m;
};

struct emlat_report_comparison
{
  struct emlat_report_guard_fail *fails;
  size_t n_fails;
  struct emlat_report_cmp_pop *pops;
  size_t n_pops;
  size_t n_compared;            /* populations compared */
  unsigned resamples;
  uint64_t seed;
};

EMLAT_API extern const char *const emlat_report_quantile_names[EMLAT_REPORT_COMPARE_QUANTILES];
EMLAT_API const char *emlat_report_guard_name (enum emlat_report_guard g);
EMLAT_API const char *emlat_report_verdict_name (enum emlat_report_verdict v);

/* Compare A (profile PA, model MA) with B.  Returns 0 or -ENOMEM. */
EMLAT_API int emlat_report_compare (const struct emlat_profile *pa, const struct emlat_report_model *ma,
                    const struct emlat_profile *pb, const struct emlat_report_model *mb,
                    unsigned resamples, uint64_t seed, struct emlat_report_comparison *out);
EMLAT_API void emlat_report_comparison_free (struct emlat_report_comparison *c);

/* ------------------------------------------------------------------ */
/* names                                                              */
/*
 * the work of a profile grouped by its name, when the recording named it:
 * only a session whose SESSION key privacy.policy is "names" (an Emacs
 * started with --latency-profile-names, say) does (docs/FORMAT.md F-44,
 * docs/REPORT.md "Names").
 *
 * An interaction's name is the detail of the first span of its own cause
 * of kind command, timer, process_filter or process_sentinel that has one:
 * the command of a key sequence, the function of a timer, the process of a
 * filter or sentinel.  Interactions of one root kind and one name form a
 * group; the interactions of a root kind without a name form that kind's
 * unnamed group.  Each group has the distribution of wall_ns of its
 * interactions that have one (count, median, p90, p99, max, total) and its
 * slowest interaction by that metric.  Groups are ordered by total,
 * largest first, then root kind, then name bytes.
 *
 * A name whose STRING record is missing (F-41) is shown as "#ID".
 *
 * Invariant: the result points into the profile (names are its strings),
 * which must outlive it; a profile that does not record names gives has = 0
 * and costs one SESSION lookup.
 */

#define EMLAT_REPORT_NAME_METRIC EMLAT_RM_WALL

struct emlat_report_name_group
{
  uint32_t root_kind;
  int has_name;                /* 0: the kind's unnamed interactions */
  uint64_t string_id;          /* 0 when unnamed */
  const uint8_t *name;         /* the string's bytes, or NULL */
  size_t name_len;
  uint64_t n;                  /* interactions in the group */
  struct emlat_report_dist d;  /* of EMLAT_REPORT_NAME_METRIC (d.n <= n) */
  uint64_t slowest_cause;      /* 0 when d.n is 0 */
  uint64_t *samples;           /* the d.n samples, ascending */
};

struct emlat_report_names
{
  int has;                     /* the session records names */
  uint64_t named, unnamed;     /* interactions with and without a name */
  struct emlat_report_name_group *g;
  size_t n;
  /* Private: cause -> string id, sorted by cause. */
  uint64_t *priv_cause, *priv_id;
  size_t priv_n;
};

/* Fill *NM from P.  Returns 0 or -ENOMEM (then *NM is freed). */
EMLAT_API int emlat_report_names_build (const struct emlat_profile *p, struct emlat_report_names *nm);
EMLAT_API void emlat_report_names_free (struct emlat_report_names *nm);
/* The string id naming interaction CAUSE, or 0. */
EMLAT_API uint64_t emlat_report_name_id (const struct emlat_report_names *nm, uint64_t cause);
/* The printable name of string ID of P into BUF (NUL-terminated, at most
   N - 1 bytes, truncated): its bytes, or "#ID" when P lacks the string.
   Returns BUF. */
EMLAT_API const char *emlat_report_name_format (const struct emlat_profile *p, uint64_t id,
                                                char *buf, size_t n);

/*
 * Comparing two names sessions (emlat compare): groups are matched by
 * root kind and name bytes (unnamed groups by root kind); a matched pair
 * with at least EMLAT_REPORT_COMPARE_MIN_N samples on both sides gets the
 * delta B - A of the median, p90 and p99 of EMLAT_REPORT_NAME_METRIC with a
 * bootstrap 95% interval and a verdict, as a population does.  Rows follow
 * A's order, then the groups only B has.  Only sessions that both record
 * names and pass the guards are compared by name.
 */
struct emlat_report_cmp_name
{
  uint32_t root_kind;
  int has_name;
  const uint8_t *name;          /* A's string, else B's; NULL if unnamed or
                                   missing (then string_id is A's or B's) */
  size_t name_len;
  uint64_t string_id;
  uint64_t n_a, n_b;            /* interactions; 0 when a side lacks it */
  struct emlat_report_cmp_metric m;   /* m.metric = EMLAT_REPORT_NAME_METRIC */
};

struct emlat_report_name_comparison
{
  int has;                      /* both sessions record names */
  struct emlat_report_cmp_name *rows;
  size_t n;
  size_t n_compared;
};

/* Compare the names of A (profile PA, names NA) with B's, with RESAMPLES
   resamples from SEED.  Returns 0 or -ENOMEM. */
EMLAT_API int emlat_report_compare_names (const struct emlat_profile *pa,
                                          const struct emlat_report_names *na,
                                          const struct emlat_profile *pb,
                                          const struct emlat_report_names *nb, unsigned resamples,
                                          uint64_t seed, struct emlat_report_name_comparison *out);
EMLAT_API void emlat_report_name_comparison_free (struct emlat_report_name_comparison *c);

/* ------------------------------------------------------------------ */
/* resources                                                          */
/*
 * the recording process's CPU and memory over the run, from the writer's
 * resource samples (RESOURCE records, FORMAT.md 6.10; docs/REPORT.md
 * "Resources").  Each quantity is present only when at least the samples
 * it needs carry its field (a field the sampler could not read is absent
 * from that sample): first and last for the totals over the run, one for
 * the extremes.
 */

struct emlat_report_resources
{
  uint64_t n_samples;
  uint64_t t_first, t_last;          /* of the samples (n_samples >= 1) */
  int has_rss;
  uint64_t rss_first, rss_min, rss_max, rss_last; /* bytes */
  int has_cpu;                       /* user and system time of the run:
                                        last minus first sample having both */
  uint64_t cpu_user_ns, cpu_sys_ns, cpu_wall_ns;
  double cpu_share_mean;             /* (user + sys) / wall, cores */
  int has_share_max;
  double cpu_share_max;              /* the largest window's share, cores */
  int has_csw;
  uint64_t vol_csw, invol_csw;       /* during the run */
};

EMLAT_API void emlat_report_resources_of (const struct emlat_profile *p,
                                          struct emlat_report_resources *r);

/* ------------------------------------------------------------------ */
/* functions                                                          */
/*
 * calls of a program traced with -finstrument-functions (EVENT fn_enter /
 * fn_exit records, FORMAT.md 6.9): per thread, in reading order, an exit
 * closes the innermost open call of the same function; calls opened
 * inside it and still open end with it (a longjmp skipped their exits);
 * an exit with no such call (its entry was before recording began) is
 * skipped; a call still open at the end has no end.  A function is its
 * module (a string id) and its module-relative address; the names come
 * from the reader's symbolizer (`emlat report --symbols`).
 */

struct emlat_report_call
{
  uint64_t thread, module, offset;
  uint64_t start, end;          /* end meaningful iff has_end */
  int has_end;
  int depth;                    /* 0 for a thread's outermost traced call */
  int recursive;                /* an enclosing call is of the same function */
};

/* Call FN (CTX, CALL) for every call of P, each exactly once, in the order
   calls end (then those left open).  Returns 0 or -ENOMEM. */
EMLAT_API int emlat_report_calls_walk (const struct emlat_profile *p,
                                       void (*fn) (void *ctx, const struct emlat_report_call *c),
                                       void *ctx);

struct emlat_report_function
{
  uint64_t module, offset;
  uint64_t calls;               /* finished calls */
  uint64_t total_ns;            /* their inclusive time, saturating; a
                                   recursive call's time is in the call
                                   that encloses it, counted once */
  uint64_t max_ns;
};

/* Per function, the finished calls and their inclusive time, largest
   total first, at most MAX entries (the rest are counted in
   *OTHERS).  Returns 0 or -ENOMEM; free *OUT with free(). */
EMLAT_API int emlat_report_functions (const struct emlat_profile *p, size_t max,
                                      struct emlat_report_function **out, size_t *n,
                                      uint64_t *others);

/* ------------------------------------------------------------------ */
/* application                                                        */
/*
 * what the application API (emlat_app.h) recorded, summarized per name
 * (docs/REPORT.md "Sections, counters and events"):
 *
 *   sections   every finished named section (a span of kind user named by
 *              its detail, FORMAT.md F-44) grouped by its name's bytes:
 *              count, total, and the distribution of its durations (the
 *              nearest-rank rule of "stats"); ordered by total, largest
 *              first, then by name;
 *   counters   every counter name (integer and floating series apart):
 *              samples, minimum, maximum, the last value and its time;
 *   events     instants per name; async slices begun and ended; flows
 *              begun and ended.
 *
 * A name id the dictionary lacks is its own group, shown as "#ID" (F-41).
 * Results point into the profile, which must outlive them.
 */

struct emlat_report_section
{
  uint64_t name;                /* the string id (the smallest of its bytes) */
  const uint8_t *bytes;         /* NULL when the dictionary lacks it */
  size_t len;
  struct emlat_report_dist d;   /* of the sections' durations, ns */
};

struct emlat_report_counter
{
  uint64_t name;
  const uint8_t *bytes;
  size_t len;
  int floating;                 /* a counter_f series */
  uint64_t n;
  int64_t imin, imax, ilast;    /* integer series */
  double fmin, fmax, flast;     /* floating series (NaN values are skipped
                                   for min and max) */
  uint64_t t_first, t_last;
};

struct emlat_report_instant
{
  uint64_t name;
  const uint8_t *bytes;
  size_t len;
  uint64_t n;
};

struct emlat_report_app
{
  struct emlat_report_section *sections;
  size_t n_sections;
  uint64_t n_section_samples;   /* named sections in all */
  struct emlat_report_counter *counters;
  size_t n_counters;
  struct emlat_report_instant *instants;
  size_t n_instants;
  uint64_t async_begun, async_ended, flows_begun, flows_ended;
  uint64_t threads_named;       /* thread_name records */
};

/* Summarize P's application records into *A.  Returns 0 or -ENOMEM (then
   *A is empty). */
EMLAT_API int emlat_report_app_build (const struct emlat_profile *p, struct emlat_report_app *a);
EMLAT_API void emlat_report_app_free (struct emlat_report_app *a);

/* ------------------------------------------------------------------ */
/* join                                                               */
/*
 * the outside view joined with the inside one (docs/REPLAY.md "Joining
 * the two profiles", docs/REPORT.md "The outside view"): the key sends of
 * an `emlat replay` driver's profile matched one to one with the program
 * interactions of the program's own profile (the same clock), and per
 * matched key the external latency (t_external_first_output -
 * t_external_send) beside the interaction's latency_lower_ns and
 * latency_upper_ns.
 *
 * The rule: sends in order of t_external_send (then cause), program
 * interactions of root kind tty_command with an input arrival in order of t_input_latest (then
 * t_input_earliest, then cause); send i at s(i), next send at s(i+1), is
 * matched to the first unmatched interaction with t_input_latest >= s(i)
 * and, when known, t_input_earliest < s(i+1) and t_input_earliest <= s(i)
 * + EMLAT_REPORT_JOIN_SLACK_NS (a terminal seen empty later cannot have
 * held the key; the slack covers the driver's write after its stamp).  Interactions passed over
 * are input not from a send; resize sends are counted, not matched.
 *
 * Use: emlat_report_join_init, then every interaction of the driver's
 * profile to emlat_report_join_add_driver and every interaction of the
 * program's to emlat_report_join_add_program (each once, any order: a
 * streamed load), then emlat_report_join_finish.  Memory: a few words per
 * key send and per program interaction with an input arrival.
 *
 * Invariants: a pair's values are present only with their bit in mask;
 * below + inside + above = n_cmp in every group; the groups' n add up to
 * the matched sends.
 */

#define EMLAT_REPORT_JOIN_SLACK_NS 1000000u

/* Root kinds of the join's groups, and the index of the group of all. */
#define EMLAT_REPORT_JOIN_ALL EMLAT_REPORT_KINDS

enum emlat_report_agree {
  EMLAT_AGREE_NONE = 0,   /* not comparable: a value is missing */
  EMLAT_AGREE_INSIDE = 1, /* lower <= external <= upper */
  EMLAT_AGREE_BELOW = 2,  /* external < lower: the lower bound broke */
  EMLAT_AGREE_ABOVE = 3   /* external > upper */
};

#define EMLAT_JOIN_HAS_EXTERNAL 0x1u
#define EMLAT_JOIN_HAS_LOWER 0x2u
#define EMLAT_JOIN_HAS_UPPER 0x4u

struct emlat_report_join_pair
{
  uint64_t send;               /* the send's cause (driver's profile) */
  uint64_t cause;              /* the interaction's (program's profile) */
  uint32_t root_kind;          /* the interaction's, 0 when out of range */
  uint32_t mask;               /* EMLAT_JOIN_HAS_* */
  uint64_t t_send;
  uint64_t external, lower, upper;
  int by_order;                /* read at or after the next send */
  enum emlat_report_agree agree;
};

struct emlat_report_join_group
{
  uint64_t n;                  /* matched keys */
  uint64_t n_cmp;              /* with external, lower and upper */
  uint64_t below, inside, above;
  struct emlat_report_dist external, lower, upper; /* of the n_cmp keys */
  int64_t diff_median, diff_p99, diff_min;        /* external - lower, of
                                                     the n_cmp keys (n_cmp
                                                     > 0) */
};

struct emlat_report_join
{
  int joined;                  /* finish ran */
  uint64_t sends;              /* key sends of the driver */
  uint64_t sends_resize;       /* resize sends: counted, not matched */
  uint64_t sends_matched, sends_unmatched;
  uint64_t driver_other;       /* driver interactions without a send time */
  uint64_t program_ix;         /* the program's interactions */
  uint64_t program_input;      /* of those, tty commands with an input
                                  arrival */
  uint64_t program_matched;
  uint64_t program_not_sent;   /* with an arrival, matched to no send */
  uint64_t program_no_input;   /* other root kinds (timers, ...), or
                                  without an arrival */
  uint64_t by_order;           /* matches decided by order */
  struct emlat_report_join_pair *pairs; /* by send time */
  size_t n_pairs;
  struct emlat_report_join_group g[EMLAT_REPORT_KINDS + 1]; /* by root
                                  kind; [EMLAT_REPORT_JOIN_ALL]: all */
  /* Private: the collected sends and interactions. */
  void *priv_sends, *priv_ix;
  size_t priv_ns, priv_cs, priv_ni, priv_ci;
};

/* 1 when P is an `emlat replay` driver's profile: its SESSION has
   replay.driver. */
EMLAT_API int emlat_report_is_driver (const struct emlat_profile *p);
EMLAT_API void emlat_report_join_init (struct emlat_report_join *j);
/* Collect IX of the driver's profile P / of the program's.  0 or
   -ENOMEM. */
EMLAT_API int emlat_report_join_add_driver (struct emlat_report_join *j,
                                            const struct emlat_profile *p,
                                            const struct emlat_interaction *ix);
EMLAT_API int emlat_report_join_add_program (struct emlat_report_join *j,
                                             const struct emlat_profile *p,
                                             const struct emlat_interaction *ix);
/* Match and compute.  0 or -ENOMEM (then *J is freed). */
EMLAT_API int emlat_report_join_finish (struct emlat_report_join *j);
EMLAT_API void emlat_report_join_free (struct emlat_report_join *j);
/* "inside", "below", "above", or NULL for EMLAT_AGREE_NONE. */
EMLAT_API const char *emlat_report_agree_name (enum emlat_report_agree a);

#ifdef __cplusplus
}
#endif

#endif /* EMLAT_REPORT_H */
