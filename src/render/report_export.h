/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_export.h -- the two export formats of `emlat export`
 * (docs/REPORT.md "Export").
 *
 * chrome: one Chrome Trace Event JSON object {"traceEvents": [...]} that
 *   chrome://tracing and the Perfetto UI load: process 1, one track per
 *   emlat thread (tid = thread id, a thread_name metadata event); every
 *   span exactly once as a complete event ("X", ts and dur in
 *   microseconds with nanosecond decimals; a span without end as a lone
 *   "B"); every interaction as an async slice ("b"/"e", cat
 *   "interaction", id = cause id) from its first boundary to its
 *   completion; interaction counters as counter tracks ("C") at the
 *   completion time; every LOSS record as an instant event ("i").
 * jsonl: one JSON object per decoded record, in file order, with raw
 *   timestamps (profiler-clock ns), in the record vocabulary of
 *   `emlat dump --json` (record_json.h); interaction_complete lines also
 *   carry their population and derived metrics.
 */
#ifndef EMLAT_CLI_REPORT_EXPORT_H
#define EMLAT_CLI_REPORT_EXPORT_H

#include <stdio.h>

#include "emlat/emlat_reader.h"

/* Re-scans the files of P twice (its spans, its interactions), spooling
   the events through temporary files when they exceed 64 MiB.  Returns
   0, or a negative errno: -EIO when the JSON writer or the spool's file
   failed, a re-scan's error. */
int report_export_chrome (struct emlat_profile *p, FILE *f);
/* The same, naming traced functions with SYMS (report_syms.h; NULL: a
   symbolizer without --symbols files). */
struct report_syms;
int report_export_chrome_syms (struct emlat_profile *p, FILE *f, struct report_syms *syms);
/* Re-scans the files of P.  Returns 0, or a negative errno when a file
   could not be read again or the JSON writer failed (-EIO). */
int report_export_jsonl (const struct emlat_profile *p, FILE *f);

#endif /* EMLAT_CLI_REPORT_EXPORT_H */
