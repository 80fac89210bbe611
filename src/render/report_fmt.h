/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_fmt.h -- small text building blocks shared by the report, compare
 * and HTML renderers: human durations, log-bucketed histograms, bars and
 * sparklines in Unicode (for a terminal) or plain ASCII (for pipes and
 * files), how a process ended.
 *
 * Invariants: every formatter writes a NUL-terminated string into a
 * caller buffer of the stated size and never more; a duration string is at
 * most 7 characters ("999.9ms"), so tables can use fixed columns; the
 * histogram's buckets are geometric between the smallest and the largest
 * sample (a bucket holds [edge_i, edge_i+1), the last one includes the
 * maximum), so every sample lands in exactly one bucket.
 */
#ifndef EMLAT_CLI_REPORT_FMT_H
#define EMLAT_CLI_REPORT_FMT_H

#include <stddef.h>
#include <stdint.h>

#define REPORT_DUR_LEN 16

/* NS as "850ns", "12.3us", "1.20ms", "153ms", "2.05s". */
const char *report_fmt_dur (uint64_t ns, char buf[REPORT_DUR_LEN]);
/* A signed duration with its sign, "+1.20ms" / "-850us" / "0ns". */
const char *report_fmt_sdur (int64_t ns, char buf[REPORT_DUR_LEN]);

/* A histogram of SORTED[0..N) (ascending, N >= 1) in NB geometric buckets
   from max(1, min) to max: COUNTS[0..NB) and EDGES[0..NB] (EDGES[NB] is
   the maximum). */
void report_log_hist (const uint64_t *sorted, size_t n, unsigned nb, uint64_t *counts,
                      double *edges);

/* A sparkline of COUNTS[0..NB): one character per bucket, height relative
   to the largest count, a nonzero count never drawn empty.  UNICODE
   selects block characters, else ASCII.  OUT holds at least 4 * NB + 1
   bytes. */
void report_sparkline (const uint64_t *counts, unsigned nb, int unicode, char *out);

/* A horizontal bar of VALUE / FULL of WIDTH columns (Unicode eighths or
   ASCII '#').  OUT holds at least 3 * WIDTH + 1 bytes. */
void report_bar (uint64_t value, uint64_t full, unsigned width, int unicode, char *out);

#define REPORT_EXIT_LEN 64

/* How a profiled process ended, when its STATS say (SIGNAL nonzero: the
   signal that ended it; else CODE, its exit status): "exited with status
   0", "killed by SIGKILL (signal 9)". */
const char *report_fmt_exit (int signal, int code, char buf[REPORT_EXIT_LEN]);
/* The same as a report's aside: " (the program exited with status 0)",
   " (the program was killed by ...)", or "" when not KNOWN. */
#define REPORT_ENDED_LEN (REPORT_EXIT_LEN + 24)
const char *report_fmt_ended (int known, int signal, int code, char buf[REPORT_ENDED_LEN]);

#endif /* EMLAT_CLI_REPORT_FMT_H */
