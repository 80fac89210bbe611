/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_export_jsonl.c -- every decoded record of a profile as one JSON
 * object per line (format in report_export.h and docs/REPORT.md).
 *
 * The files are those the profile loaded, in rotation order, skipping the
 * ones it ignored; each is scanned again, one chunk at a time, from
 * wherever the load read it (emlat_profile_rescan, so standard input works
 * too),
 * which delivers only records of chunks that decoded cleanly (F-27), so
 * every line is a record the reader accepted.  The record's keys are those
 * of `emlat dump --json` (render/record_json.c, docs/JSON.md "Records");
 * interaction_complete lines add "population" and "metrics".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/json.h"
#include "render/record_json.h"
#include "render/report_export.h"
#include "emlat/emlat_report.h"
#include "render/report_render.h"
#include "emlat/emlat.h"
#include "format/format.h"

struct jl
{
  struct emlat_json j;
  const char *file;
  const struct emlat_profile *p;
};

/* What export adds to an interaction_complete line: its population and
   the metrics derived from its boundaries (docs/REPORT.md "Metrics"). */
static void
derived_metrics (struct emlat_json *j, const struct emlat_profile *p, const struct emlat_rd_ix *r)
{
  struct emlat_report_times t;
  struct emlat_report_metrics m;
  emlat_report_times_from_record_of (p, r, &t);
  emlat_report_metrics_compute (&t, &m);
  emlat_json_kv_str (j, "population", emlat_report_pop_key (emlat_report_population (&t)));
  emlat_json_key (j, "metrics");
  emlat_json_begin_object (j);
  for (int k = 0; k < EMLAT_RM_COUNT; k++)
    if (m.mask >> k & 1u)
      emlat_json_kv_u64 (j, emlat_report_metric_name ((enum emlat_report_metric)k), m.v[k]);
  emlat_json_end_object (j);
}

static int
on_record (void *ctx, const struct emlat_chunk_info *c, const struct emlat_record *r)
{
  struct jl *x = ctx;
  emlat_json_begin_object (&x->j);
  record_json_keys (&x->j, x->file, c, r);
  if (record_json_has_name (r))
    {
      size_t len = 0;
      uint64_t id = record_json_name_id (r);
      const uint8_t *b = id ? emlat_profile_string (x->p, id, &len) : NULL;
      record_json_name_key (&x->j, b, len);
    }
  if (r->kind == EMLAT_REC_IX_COMPLETE)
    derived_metrics (&x->j, x->p, &r->u.ix);
  emlat_json_end_object (&x->j);
  emlat_json_line (&x->j);
  return x->j.error ? 1 : 0;
}

int
report_export_jsonl (const struct emlat_profile *p, FILE *f)
{
  size_t nf;
  const struct emlat_file_summary *fs = emlat_profile_files (p, &nf);
  struct jl x;
  emlat_json_init (&x.j, f);
  x.p = p;
  for (size_t i = 0; i < nf; i++)
    {
      if (fs[i].ignored || fs[i].read_error || !fs[i].scan.header_ok)
        continue;
      struct emlat_scan_params sp;
      struct emlat_scan_result res;
      memset (&sp, 0, sizeof sp);
      sp.file_index = (uint32_t)i;
      sp.visitor.ctx = &x;
      sp.visitor.on_record = on_record;
      x.file = fs[i].path;
      int rc = emlat_profile_rescan (p, i, &sp, &res);
      if (x.j.error)
        return -EIO;
      if (rc < 0)
        return rc;
    }
  return 0;
}
