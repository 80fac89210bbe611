/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Interaction-latency profiler: summaries of a recorded profile.

Copyright (C) 2025 the emlat authors.

This file is part of GNU Emacs.

GNU Emacs is free software: you can redistribute it and/or modify
it under the terms of the GNU General Public License as published by
the Free Software Foundation, either version 3 of the License, or (at
your option) any later version.

GNU Emacs is distributed in the hope that it will be useful,
but WITHOUT ANY WARRANTY; without even the implied warranty of
MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
GNU General Public License for more details.

You should have received a copy of the GNU General Public License
along with GNU Emacs.  If not, see <https://www.gnu.org/licenses/>.  */

/* `latency-profile-summary' reads a profile written by the recorder
   of latency.c (or by any other libemlat producer) and returns what
   the report of lisp/latency-report.el shows: per root kind and
   population the distribution of every derived metric, the waterfall
   of the tail interaction, the profiler's overhead, the loss records
   and the boundaries that were not recorded.

   Invariants:

   - The numbers are computed by libemlat's report code, the same
     functions `emlat report' calls, so the two always agree.  This
     file only converts them to Lisp.

   - The result holds summaries, never one Lisp object per record: its
     size depends on the number of metrics, groups, waterfall rows and
     loss records, not on the number of interactions.

   - An absent value is nil, never 0.

   - Everything the library allocated is freed on every exit,
     including a nonlocal exit while the result is built.  */

#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <emlat/emlat.h>
#include <emlat/emlat_reader.h>
#include <emlat/emlat_report.h>

#include "lisp.h"
#include "coding.h"
#include "latency.h"

/* What the library allocated for one summary.  */
struct latency_summary
{
  struct emlat_profile *profile;
  struct emlat_report_model model;
  bool model_built;
  struct emlat_report_waterfall waterfall;
  bool waterfall_built;
  struct emlat_report_names names;
  char **paths;
  ptrdiff_t npaths;
};

static void
free_summary (void *arg)
{
  struct latency_summary *s = arg;
  if (s->waterfall_built)
    emlat_report_waterfall_free (&s->waterfall);
  if (s->model_built)
    emlat_report_model_free (&s->model);
  emlat_report_names_free (&s->names);
  if (s->profile)
    emlat_profile_free (s->profile);
  for (ptrdiff_t i = 0; i < s->npaths; i++)
    xfree (s->paths[i]);
  xfree (s->paths);
  xfree (s);
}

/* The symbol named NAME with each underscore replaced by a hyphen, so
   that "input_to_flush_max_ns" becomes `input-to-flush-max-ns'.  */
static Lisp_Object
name_symbol (const char *name)
{
  char buf[80];
  size_t n = strlen (name);
  if (n >= sizeof buf)
    n = sizeof buf - 1;
  for (size_t i = 0; i < n; i++)
    buf[i] = name[i] == '_' ? '-' : name[i];
  buf[n] = '\0';
  return intern (buf);
}

/* V as an integer if HAS, else nil.  */
static Lisp_Object
opt_uint (bool has, uint64_t v)
{
  return has ? make_uint (v) : Qnil;
}

static Lisp_Object
file_name_of (const char *path)
{
  return path ? DECODE_FILE (build_unibyte_string (path)) : Qnil;
}

static Lisp_Object
population_symbol (enum emlat_report_pop pop)
{
  return name_symbol (emlat_report_pop_key (pop));
}

static Lisp_Object
kind_symbol (uint32_t kind)
{
  return name_symbol (emlat_root_kind_name (kind <= EMLAT_ROOT_KIND_MAX
					    ? kind : 0));
}

static Lisp_Object
dist_plist (const struct emlat_report_dist *d)
{
  bool h = d->n > 0;
  return list (QCn, make_uint (d->n),
	       QCmin, opt_uint (h, d->min),
	       QCmedian, opt_uint (h, d->p50),
	       QCp90, opt_uint (h, d->p90),
	       QCp95, opt_uint (h, d->p95),
	       QCp99, opt_uint (h, d->p99),
	       QCp99_9, opt_uint (d->has_p999, d->p999),
	       QCmax, opt_uint (h, d->max),
	       QCmean, h ? make_float (d->mean) : Qnil,
	       QCtotal, opt_uint (h && !d->total_saturated, d->total));
}

/* An alist (METRIC . COUNT) of the nonzero COUNTS.  */
static Lisp_Object
metric_counts (const uint64_t counts[EMLAT_RM_COUNT])
{
  Lisp_Object result = Qnil;
  for (int i = EMLAT_RM_COUNT - 1; i >= 0; i--)
    if (counts[i])
      result = Fcons (Fcons (name_symbol (emlat_report_metric_name (i)),
			     make_uint (counts[i])),
		      result);
  return result;
}

/* An alist (METRIC . VALUE) of the metrics present in M.  */
static Lisp_Object
present_metrics (const struct emlat_report_metrics *m)
{
  Lisp_Object result = Qnil;
  for (int i = EMLAT_RM_COUNT - 1; i >= 0; i--)
    if (m->mask >> i & 1u)
      result = Fcons (Fcons (name_symbol (emlat_report_metric_name (i)),
			     make_uint (m->v[i])),
		      result);
  return result;
}

static Lisp_Object
counter_alist (uint32_t mask, const uint64_t *v)
{
  Lisp_Object result = Qnil;
  for (int c = EMLAT_C_COUNTER_COUNT - 1; c >= 0; c--)
    if (mask >> c & 1u)
      result = Fcons (Fcons (name_symbol (emlat_counter_name (c)),
			     make_uint (v[c])),
		      result);
  return result;
}

static Lisp_Object
files_list (const struct emlat_profile *p)
{
  size_t nf;
  const struct emlat_file_summary *f = emlat_profile_files (p, &nf);
  Lisp_Object result = Qnil;
  for (size_t i = nf; i-- > 0; )
    result = Fcons (list (QCpath, file_name_of (f[i].path),
			  QCignored, f[i].ignored ? Qt : Qnil,
			  QCread_error, (f[i].read_error
					 ? build_string (emacs_strerror
							 (f[i].read_error))
					 : Qnil),
			  QCstop, name_symbol (emlat_stop_name (f[i].scan.stop)),
			  QCstop_offset, make_uint (f[i].scan.stop_offset)),
		    result);
  return result;
}

static Lisp_Object
session_meta (const struct emlat_profile *p)
{
  size_t n;
  const struct emlat_kv *kv = emlat_profile_session (p, &n);
  Lisp_Object result = Qnil;
  for (size_t i = n; i-- > 0; )
    {
      Lisp_Object value;
      if (kv[i].type == 0)
	value = make_uint (kv[i].u);
      else if (kv[i].type == 1)
	value = make_int (kv[i].i);
      else
	value = make_string ((const char *) kv[i].s, kv[i].s_len);
      result = Fcons (Fcons (make_string ((const char *) kv[i].key,
					  kv[i].key_len),
			     value),
		      result);
    }
  return result;
}

static Lisp_Object
interaction_counts (const struct emlat_report_model *m)
{
  Lisp_Object by_status = Qnil, by_kind = Qnil;
  by_status = Fcons (Fcons (intern ("unknown"), make_uint (m->n_status[0])),
		     by_status);
  for (unsigned s = EMLAT_STATUS_MAX; s >= 1; s--)
    by_status = Fcons (Fcons (name_symbol (emlat_status_name (s)),
			      make_uint (m->n_status[s])),
		       by_status);
  for (int k = EMLAT_REPORT_KINDS - 1; k >= 0; k--)
    by_kind = Fcons (Fcons (kind_symbol (k), make_uint (m->n_kind[k])),
		     by_kind);
  return list (QCtotal, make_uint (m->n_ix),
	       QCflushed, make_uint (m->n_pop[EMLAT_POP_FLUSHED]),
	       QCno_output, make_uint (m->n_pop[EMLAT_POP_NO_OUTPUT]),
	       QCsuperseded, make_uint (m->n_pop[EMLAT_POP_SUPERSEDED]),
	       QCby_status, by_status,
	       QCby_root_kind, by_kind);
}

static Lisp_Object
groups_list (const struct emlat_report_model *m)
{
  Lisp_Object result = Qnil;
  for (int k = EMLAT_REPORT_KINDS - 1; k >= 0; k--)
    for (int q = EMLAT_POP_COUNT - 1; q >= 0; q--)
      {
	const struct emlat_report_group *g = &m->g[k][q];
	if (!g->n)
	  continue;
	Lisp_Object metrics = Qnil;
	for (int i = EMLAT_RM_COUNT - 1; i >= 0; i--)
	  metrics = Fcons (Fcons (name_symbol (emlat_report_metric_name (i)),
				  dist_plist (&g->d[i])),
			   metrics);
	int lead = emlat_report_group_primary (g);
	result = Fcons (list (QCroot_kind, kind_symbol (g->root_kind),
			      QCpopulation, population_symbol (g->pop),
			      QCinteractions, make_uint (g->n),
			      QCprimary_metric,
			      (lead >= 0
			       ? name_symbol (emlat_report_metric_name (lead))
			       : Qnil),
			      QCmetrics, metrics,
			      QCinverted, metric_counts (g->inverted),
			      QCclamped, metric_counts (g->clamped)),
			result);
      }
  return result;
}

/* The name of string ID of P as a Lisp string (the bytes the profile
   holds, as Emacs wrote them), or "#ID" when P lacks the string.  */
static Lisp_Object
profile_name (const struct emlat_profile *p, uint64_t id)
{
  size_t len;
  const uint8_t *bytes = emlat_profile_string (p, id, &len);
  if (bytes)
    return make_string ((const char *) bytes, len);
  char buf[32];
  return build_string (emlat_report_name_format (p, id, buf, sizeof buf));
}

static Lisp_Object
slowest_plist (const struct emlat_profile *p, const struct emlat_report_tail *t,
	       const struct emlat_report_names *nm)
{
  Lisp_Object items = Qnil, names = Qnil;
  for (size_t i = t->n_slow; i-- > 0; )
    {
      items = Fcons (Fcons (make_uint (t->slow[i].cause),
			    make_uint (t->slow[i].value)),
		     items);
      uint64_t id = nm->has ? emlat_report_name_id (nm, t->slow[i].cause) : 0;
      if (id)
	names = Fcons (Fcons (make_uint (t->slow[i].cause),
			      profile_name (p, id)),
		       names);
    }
  return list (QCmetric,
	       t->has ? name_symbol (emlat_report_metric_name (t->metric)) : Qnil,
	       QCinteractions, items,
	       QCnames, names);
}

/* The work by name of a names session, or nil.  */
static Lisp_Object
names_plist (const struct emlat_profile *p, const struct emlat_report_names *nm)
{
  if (!nm->has)
    return Qnil;
  Lisp_Object groups = Qnil;
  for (size_t i = nm->n; i-- > 0; )
    {
      const struct emlat_report_name_group *g = &nm->g[i];
      groups = Fcons (list (QCroot_kind, kind_symbol (g->root_kind),
			    QCname, (g->has_name
				     ? profile_name (p, g->string_id) : Qnil),
			    QCinteractions, make_uint (g->n),
			    QCdist, dist_plist (&g->d),
			    QCslowest_cause, opt_uint (g->slowest_cause != 0,
						       g->slowest_cause)),
		      groups);
    }
  return list (QCpolicy, intern ("names"),
	       QCmetric, name_symbol (emlat_report_metric_name
				      (EMLAT_REPORT_NAME_METRIC)),
	       QCnamed, make_uint (nm->named),
	       QCunnamed, make_uint (nm->unnamed),
	       QCgroups, groups);
}

static Lisp_Object
waterfall_rows (const struct emlat_report_waterfall *w)
{
  static const char *const types[] = { "input", "first_input", "span",
				       "phase" };
  Lisp_Object result = Qnil;
  for (size_t i = w->n_rows; i-- > 0; )
    {
      const struct emlat_report_wf_row *r = &w->rows[i];
      bool span = r->type == EMLAT_WF_SPAN;
      result = Fcons (list (QCtype, name_symbol (types[r->type]),
			    QCname, build_string (r->name),
			    QCdepth, make_int (r->depth),
			    QCstart, make_uint (r->start),
			    QCend, opt_uint (r->has_end, r->end),
			    QCthread, make_uint (r->thread),
			    QCid, span ? make_uint (r->id) : Qnil,
			    QCparent, span ? make_uint (r->parent) : Qnil,
			    QCstatus, (span
				       ? name_symbol (emlat_span_status_name
						      (r->status))
				       : Qnil)),
		      result);
    }
  return result;
}

static Lisp_Object
tail_plist (const struct emlat_report_waterfall *w, const struct emlat_report_tail *t,
	    bool requested)
{
  Lisp_Object times = Qnil;
  for (int f = EMLAT_T_FIELD_COUNT - 1; f >= 0; f--)
    if (w->t.tmask >> f & 1u)
      times = Fcons (Fcons (name_symbol (emlat_time_field_name (f)),
			    make_uint (w->t.t[f])),
		     times);
  bool is_tail = !requested;
  uint64_t c0 = 0, c1 = 0;
  bool window = w->has_cpu && emlat_report_cpu_window (&w->t, &c0, &c1);
  Lisp_Object split
    = list (QCwall, opt_uint (w->has_wall, w->wall),
	    QCmain_cpu, opt_uint (w->has_cpu, w->cpu),
	    QCcpu_window, opt_uint (window, c1 - c0),
	    QCmeasured_wait, make_uint (w->waits),
	    QCwait_spans, make_uint (w->n_wait_spans),
	    QCunknown_off_cpu, opt_uint (w->has_unknown, w->unknown),
	    QCunknown_off_cpu_excess, opt_uint (w->has_unknown, w->excess),
	    QCtty_emit, opt_uint (w->has_tty_emit, w->tty_emit));
  return list (QCreason, intern (requested ? "requested" : "tail"),
	       QCmetric, (is_tail
			  ? name_symbol (emlat_report_metric_name (t->metric))
			  : Qnil),
	       QCrank, opt_uint (is_tail, t->rank),
	       QCof, opt_uint (is_tail, t->n),
	       QCvalue, opt_uint (is_tail, t->value),
	       QCcause, make_uint (w->cause),
	       QCroot_kind, kind_symbol (w->root_kind),
	       QCpopulation, population_symbol (w->pop),
	       QCstatus, name_symbol (emlat_status_name (w->status)),
	       QCthread, make_uint (w->thread),
	       QCtimes, times,
	       QCmetrics, present_metrics (&w->m),
	       QCaxis, Fcons (make_uint (w->t0), make_uint (w->t1)),
	       QCspans_error, (w->spans_error
			       ? build_string (emacs_strerror (-w->spans_error))
			       : Qnil),
	       QCrows, waterfall_rows (w),
	       QCsplit, split,
	       QCcounters, counter_alist (w->counter_mask, w->counters),
	       QCspan_counters, counter_alist (w->span_counter_mask,
					       w->span_counters));
}

static Lisp_Object
overhead_alist (const struct emlat_profile *p)
{
  struct emlat_report_overhead o;
  emlat_report_overhead_of (p, &o);
  Lisp_Object result
    = list (Fcons (intern ("writer-share-of-core"),
		   o.has_writer_share ? make_float (o.writer_share) : Qnil),
	    Fcons (intern ("final-stats"), o.final_stats ? Qt : Qnil),
	    Fcons (intern ("writer-in-driver"), o.writer_in_driver ? Qt : Qnil),
	    Fcons (intern ("exit-code"),
		   opt_uint (o.exit_known && !o.exit_signal, o.exit_code)),
	    Fcons (intern ("exit-signal"),
		   opt_uint (o.exit_known && o.exit_signal, o.exit_signal)));
  for (int f = EMLAT_OVH_COUNT - 1; f >= 0; f--)
    result = Fcons (Fcons (name_symbol (emlat_report_ovh_name (f)),
			   opt_uint (o.mask >> f & 1u, o.v[f])),
		    result);
  return result;
}

static Lisp_Object
losses_plist (const struct emlat_profile *p)
{
  size_t n, nf;
  const struct emlat_loss_entry *l = emlat_profile_losses (p, &n);
  const struct emlat_file_summary *fs = emlat_profile_files (p, &nf);
  const struct emlat_profile_totals *t = emlat_profile_totals (p);
  Lisp_Object intervals = Qnil;
  for (size_t i = n; i-- > 0; )
    intervals
      = Fcons (list (QCstream, make_uint (l[i].loss.stream),
		     QCreason,
		     name_symbol (emlat_loss_reason_name (l[i].loss.reason)),
		     QCfirst, make_uint (l[i].loss.first),
		     QClast, make_uint (l[i].loss.last),
		     QCrecords, make_uint (l[i].loss.records),
		     QCbytes, make_uint (l[i].loss.bytes),
		     QCfile, file_name_of (l[i].file < nf
					   ? fs[l[i].file].path : NULL),
		     QCoffset, make_uint (l[i].offset)),
	       intervals);
  return list (QCloss_records, make_uint (t->loss_records),
	       QClost_records, make_uint (t->lost_records),
	       QClost_bytes, make_uint (t->lost_bytes),
	       QCintervals, intervals);
}

static Lisp_Object
unavailable_alist (const struct emlat_report_model *m)
{
  Lisp_Object result = Qnil;
  for (int q = EMLAT_POP_COUNT - 1; q >= 0; q--)
    {
      uint64_t n = m->n_pop[q];
      Lisp_Object missing
	= list (Fcons (intern ("thread-cpu-begin"),
		       make_uint (n - m->present_cpu_begin[q])),
		Fcons (intern ("thread-cpu-end"),
		       make_uint (n - m->present_cpu_end[q])));
      for (int f = EMLAT_T_FIELD_COUNT - 1; f >= 0; f--)
	missing = Fcons (Fcons (name_symbol (emlat_time_field_name (f)),
				make_uint (n - m->present_t[q][f])),
			 missing);
      result = Fcons (Fcons (population_symbol (q),
			     list (QCinteractions, make_uint (n),
				   QCmissing, missing)),
		      result);
    }
  return result;
}

static Lisp_Object
diagnostics_list (const struct emlat_profile *p)
{
  size_t nd, nf;
  const struct emlat_diag *d = emlat_profile_diags (p, &nd);
  const struct emlat_file_summary *fs = emlat_profile_files (p, &nf);
  Lisp_Object result = Qnil;
  for (size_t i = nd; i-- > 0; )
    {
      char buf[256];
      struct emlat_diag x = d[i];
      x.offset = UINT64_MAX;
      emlat_diag_format (&x, buf, sizeof buf);
      result = Fcons (list (QCkind,
			    name_symbol (emlat_diag_kind_name (d[i].kind)),
			    QCfile, file_name_of (d[i].file < nf
						  ? fs[d[i].file].path : NULL),
			    QCoffset, opt_uint (d[i].offset != UINT64_MAX,
						d[i].offset),
			    QCmessage, build_string (buf)),
		      result);
    }
  return result;
}

static Lisp_Object
session_uuid (const struct emlat_profile *p)
{
  const struct emlat_file_header *h = emlat_profile_header (p);
  if (!h)
    return Qnil;
  static const char hex[] = "0123456789abcdef";
  char out[37];
  int k = 0;
  for (int i = 0; i < 16; i++)
    {
      if (i == 4 || i == 6 || i == 8 || i == 10)
	out[k++] = '-';
      out[k++] = hex[h->uuid[i] >> 4];
      out[k++] = hex[h->uuid[i] & 15];
    }
  return make_unibyte_string (out, k);
}

/* The interaction id CAUSE names (an integer in 1..2^64-1).  */
static uint64_t
summary_cause (Lisp_Object cause, Lisp_Object files)
{
  uintmax_t want = 0;
  CHECK_INTEGER (cause);
  if (!integer_to_uintmax (cause, &want) || want == 0 || want > UINT64_MAX)
    args_out_of_range (cause, files);
  return want;
}

/* Expand and encode the NFILES names of FILES into S->paths; return the
   first, expanded, for error messages.  */
static Lisp_Object
summary_paths (struct latency_summary *s, Lisp_Object files, ptrdiff_t nfiles)
{
  s->paths = xzalloc (nfiles * sizeof *s->paths);
  Lisp_Object first = Qnil;
  for (Lisp_Object tail = files; CONSP (tail); tail = XCDR (tail))
    {
      Lisp_Object file = XCAR (tail);
      CHECK_STRING (file);
      file = Fexpand_file_name (file, Qnil);
      if (NILP (first))
	first = file;
      s->paths[s->npaths++] = xstrdup (SSDATA (ENCODE_FILE (file)));
    }
  return first;
}

/* Read the profile of S->paths into S->profile.  Signal a file error
   if a file cannot be read, an error if nothing usable was found.  */
static void
summary_load (struct latency_summary *s, Lisp_Object first)
{
  /* A profile being recorded by this Emacs holds what the writer has
     drained so far: drain the rest, so that the summary covers every
     interaction that ended before this call.  */
  if (latency_profiling)
    emlat_flush ();
  int r = emlat_profile_load ((const char *const *) s->paths, s->npaths,
			      NULL, 0, &s->profile);
  if (r < 0)
    report_file_errno ("Reading latency profile", first, -r);
  const struct emlat_profile *p = s->profile;
  if (!emlat_report_usable (p))
    {
      /* A file that could not be read at all is a file error.  */
      size_t nf;
      const struct emlat_file_summary *f = emlat_profile_files (p, &nf);
      for (size_t i = 0; i < nf; i++)
	if (f[i].read_error)
	  report_file_errno ("Reading latency profile",
			     file_name_of (f[i].path), f[i].read_error);
      error (emlat_profile_totals (p)->limit_hit
	     ? "A reader limit stopped loading the latency profile"
	     : "No readable latency profile");
    }
}

/* Pick the tail interaction into *TAIL, build the report model and the
   waterfall of the tail interaction, or of WANT when REQUESTED.  */
static void
summary_analyze (struct latency_summary *s, struct emlat_report_tail *tail,
		 bool requested, uint64_t want)
{
  const struct emlat_profile *p = s->profile;
  if (emlat_report_tail_pick (p, tail) != 0)
    memory_full (0);
  if (emlat_report_model_build (p, &s->model) != 0)
    memory_full (0);
  s->model_built = true;
  s->model.tail = *tail;
  if (emlat_report_names_build (p, &s->names) != 0)
    memory_full (0);
  if (requested || tail->has)
    {
      int r = emlat_report_waterfall_build (p, requested ? want : tail->cause,
					    &s->waterfall);
      if (r == -ENOENT)
	error ("No interaction with cause id %"PRIu64" in the profile",
	       want);
      if (r != 0)
	memory_full (0);
      s->waterfall_built = true;
    }
}

/* The value of `latency-profile-summary' for S.  */
static Lisp_Object
summary_plist (struct latency_summary *s,
	       const struct emlat_report_tail *tail, bool requested)
{
  const struct emlat_profile *p = s->profile;
  const struct emlat_profile_totals *t = emlat_profile_totals (p);
  return list (QCsession, session_uuid (p),
	       QCfiles, files_list (p),
	       QCdamaged, emlat_report_damaged (p) ? Qt : Qnil,
	       QCsession_meta, session_meta (p),
	       QCinteractions, interaction_counts (&s->model),
	       QCspans, list (QCcomplete, make_uint (t->spans_complete),
			      QCincomplete, make_uint (t->spans_incomplete),
			      QCorphan_ends, make_uint (t->spans_orphan_end)),
	       QCinput_batches, make_uint (t->input_batches),
	       QCgroups, groups_list (&s->model),
	       QCnames, names_plist (p, &s->names),
	       QCslowest, slowest_plist (p, tail, &s->names),
	       QCtail, (s->waterfall_built
			? tail_plist (&s->waterfall, tail, requested)
			: Qnil),
	       QCoverhead, overhead_alist (p),
	       QClosses, losses_plist (p),
	       QCunavailable, unavailable_alist (&s->model),
	       QCdiagnostics, diagnostics_list (p));
}

DEFUN ("latency-profile-summary", Flatency_profile_summary,
       Slatency_profile_summary, 1, 2, 0,
       doc: /* Return summaries of the latency profile in FILES.
FILES is a file name, or a list of the file names of one rotated
session.  The profile is read completely and summarized; the result
holds no object per interaction, and its numbers equal those of
`emlat report' on the same files.

The value is a plist.  Absent values are nil, never 0; times are
nanoseconds of the profiler clock.  Its properties are:

`:session'        the session identifier (a string), or nil.
`:files'          one plist per file: `:path', `:ignored', `:read-error',
                  `:stop' (why reading ended, `clean' at its end),
                  `:stop-offset'.
`:damaged'        non-nil if reading lost data (a damaged or missing file).
`:session-meta'   alist (KEY . VALUE) of the session metadata.
`:interactions'   plist `:total', `:flushed', `:no-output',
                  `:superseded', `:by-status' and `:by-root-kind'
                  (alists of counts).
`:spans'          plist `:complete', `:incomplete', `:orphan-ends'.
`:input-batches'  the number of terminal input batches.
`:groups'         one plist per root kind and population that has
                  interactions: `:root-kind', `:population' (`flushed',
                  `no-output' or `superseded'), `:interactions',
                  `:primary-metric', `:metrics' (alist METRIC . DIST where
                  DIST is a plist `:n', `:min', `:median', `:p90', `:p95',
                  `:p99', `:p99.9' (only when n >= 1000), `:max', `:mean',
                  `:total'), `:inverted' and `:clamped' (alists of counts).
                  Quantiles are exact nearest-rank values.
`:names'          nil, unless the session records names (its privacy
                  policy is `names': see `latency-profile-names'); then a
                  plist `:policy', `:metric' (`wall-ns'), `:named',
                  `:unnamed' and `:groups', one plist per root kind and
                  name, largest total first: `:root-kind', `:name' (a
                  string, or nil for the kind's unnamed interactions),
                  `:interactions', `:dist' (as in `:metrics'),
                  `:slowest-cause'.
`:slowest'        plist `:metric', `:interactions', a list of
                  (CAUSE . VALUE), slowest first, and `:names', an alist
                  (CAUSE . NAME) of those that have a name.
`:tail'           the waterfall of the tail interaction (the nearest-rank
                  p99 of the tail metric), or of interaction CAUSE when
                  CAUSE is non-nil; nil if there is none.  A plist:
                  `:reason' (`tail' or `requested'), `:metric', `:rank',
                  `:of', `:value', `:cause', `:root-kind', `:population',
                  `:status', `:thread', `:times' (alist of its boundaries),
                  `:metrics' (alist of its present metrics), `:axis'
                  (START . END), `:spans-error', `:rows' (plists `:type'
                  (`input', `first-input', `span' or `phase'), `:name',
                  `:depth', `:start', `:end', `:thread', `:id', `:parent',
                  `:status'), `:split' (plist `:wall', `:main-cpu',
                  `:cpu-window', `:measured-wait', `:wait-spans',
                  `:unknown-off-cpu', `:unknown-off-cpu-excess',
                  `:tty-emit'), `:counters' and
                  `:span-counters' (alists of redisplay and output
                  counters).
`:overhead'       alist of the profiler's own cost (writer CPU, records,
                  bytes, clock read cost, ...).
`:losses'         plist `:loss-records', `:lost-records', `:lost-bytes',
                  `:intervals' (plists `:stream', `:reason', `:first',
                  `:last', `:records', `:bytes', `:file', `:offset').
`:unavailable'    alist (POPULATION . PLIST) where PLIST has
                  `:interactions' and `:missing', an alist of how many
                  interactions lack each boundary.
`:diagnostics'    plists `:kind', `:file', `:offset', `:message' of what
                  the reader found.

Signal a `file-error' if FILES cannot be read and an error if they
contain no usable profile or CAUSE names no interaction.  */)
  (Lisp_Object files, Lisp_Object cause)
{
  if (STRINGP (files))
    files = list1 (files);
  CHECK_LIST (files);
  ptrdiff_t nfiles = list_length (files);
  if (nfiles == 0)
    xsignal1 (Qwrong_type_argument, files);
  bool requested = !NILP (cause);
  uint64_t want = requested ? summary_cause (cause, files) : 0;

  struct latency_summary *s = xzalloc (sizeof *s);
  /* ptrdiff_t in Emacs 28, specpdl_ref from Emacs 29 on.  */
  __typeof__ (SPECPDL_INDEX ()) count = SPECPDL_INDEX ();
  record_unwind_protect_ptr (free_summary, s);
  Lisp_Object first = summary_paths (s, files, nfiles);
  summary_load (s, first);
  struct emlat_report_tail tail;
  summary_analyze (s, &tail, requested, want);
  return unbind_to (count, summary_plist (s, &tail, requested));
}

void
syms_of_latencysum (void)
{
  DEFSYM (QCsession, ":session");
  DEFSYM (QCfiles, ":files");
  DEFSYM (QCdamaged, ":damaged");
  DEFSYM (QCsession_meta, ":session-meta");
  DEFSYM (QCinteractions, ":interactions");
  DEFSYM (QCspans, ":spans");
  DEFSYM (QCinput_batches, ":input-batches");
  DEFSYM (QCgroups, ":groups");
  DEFSYM (QCslowest, ":slowest");
  DEFSYM (QCnames, ":names");
  DEFSYM (QCpolicy, ":policy");
  DEFSYM (QCnamed, ":named");
  DEFSYM (QCunnamed, ":unnamed");
  DEFSYM (QCdist, ":dist");
  DEFSYM (QCslowest_cause, ":slowest-cause");
  DEFSYM (QCtail, ":tail");
  DEFSYM (QCoverhead, ":overhead");
  DEFSYM (QClosses, ":losses");
  DEFSYM (QCunavailable, ":unavailable");
  DEFSYM (QCdiagnostics, ":diagnostics");

  DEFSYM (QCpath, ":path");
  DEFSYM (QCignored, ":ignored");
  DEFSYM (QCread_error, ":read-error");
  DEFSYM (QCstop, ":stop");
  DEFSYM (QCstop_offset, ":stop-offset");

  DEFSYM (QCtotal, ":total");
  DEFSYM (QCflushed, ":flushed");
  DEFSYM (QCno_output, ":no-output");
  DEFSYM (QCsuperseded, ":superseded");
  DEFSYM (QCby_status, ":by-status");
  DEFSYM (QCby_root_kind, ":by-root-kind");
  DEFSYM (QCcomplete, ":complete");
  DEFSYM (QCincomplete, ":incomplete");
  DEFSYM (QCorphan_ends, ":orphan-ends");

  DEFSYM (QCroot_kind, ":root-kind");
  DEFSYM (QCpopulation, ":population");
  DEFSYM (QCprimary_metric, ":primary-metric");
  DEFSYM (QCmetrics, ":metrics");
  DEFSYM (QCinverted, ":inverted");
  DEFSYM (QCclamped, ":clamped");
  DEFSYM (QCn, ":n");
  DEFSYM (QCmin, ":min");
  DEFSYM (QCmedian, ":median");
  DEFSYM (QCp90, ":p90");
  DEFSYM (QCp95, ":p95");
  DEFSYM (QCp99, ":p99");
  DEFSYM (QCp99_9, ":p99.9");
  DEFSYM (QCmax, ":max");
  DEFSYM (QCmean, ":mean");

  DEFSYM (QCmetric, ":metric");
  DEFSYM (QCreason, ":reason");
  DEFSYM (QCrank, ":rank");
  DEFSYM (QCof, ":of");
  DEFSYM (QCvalue, ":value");
  DEFSYM (QCcause, ":cause");
  DEFSYM (QCstatus, ":status");
  DEFSYM (QCthread, ":thread");
  DEFSYM (QCtimes, ":times");
  DEFSYM (QCaxis, ":axis");
  DEFSYM (QCspans_error, ":spans-error");
  DEFSYM (QCrows, ":rows");
  DEFSYM (QCsplit, ":split");
  DEFSYM (QCcounters, ":counters");
  DEFSYM (QCspan_counters, ":span-counters");
  DEFSYM (QCtype, ":type");
  DEFSYM (QCname, ":name");
  DEFSYM (QCdepth, ":depth");
  DEFSYM (QCstart, ":start");
  DEFSYM (QCend, ":end");
  DEFSYM (QCid, ":id");
  DEFSYM (QCparent, ":parent");
  DEFSYM (QCwall, ":wall");
  DEFSYM (QCmain_cpu, ":main-cpu");
  DEFSYM (QCcpu_window, ":cpu-window");
  DEFSYM (QCmeasured_wait, ":measured-wait");
  DEFSYM (QCwait_spans, ":wait-spans");
  DEFSYM (QCunknown_off_cpu, ":unknown-off-cpu");
  DEFSYM (QCunknown_off_cpu_excess, ":unknown-off-cpu-excess");
  DEFSYM (QCtty_emit, ":tty-emit");

  DEFSYM (QCloss_records, ":loss-records");
  DEFSYM (QClost_records, ":lost-records");
  DEFSYM (QClost_bytes, ":lost-bytes");
  DEFSYM (QCintervals, ":intervals");
  DEFSYM (QCstream, ":stream");
  DEFSYM (QCfirst, ":first");
  DEFSYM (QClast, ":last");
  DEFSYM (QCrecords, ":records");
  DEFSYM (QCbytes, ":bytes");
  DEFSYM (QCfile, ":file");
  DEFSYM (QCoffset, ":offset");
  DEFSYM (QCmissing, ":missing");
  DEFSYM (QCkind, ":kind");
  DEFSYM (QCmessage, ":message");

  defsubr (&Slatency_profile_summary);
}
