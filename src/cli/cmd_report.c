/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_report.c -- `emlat report FILE...`: what a profile says about
 * latency.  Loads the files as one session (a rotated set), builds the
 * report model (report_model.c) and the waterfall of the tail interaction
 * or of --interaction ID (report_waterfall.c), and renders text, JSON and/or
 * HTML (report_render.h).  docs/REPORT.md documents every number.
 *
 * In memory that does not grow with the interactions (docs/PERFORMANCE.md):
 * the load streams them (EMLAT_LOAD_STREAM) into the model's first pass,
 * which keeps only each group's lead metric and the tail's candidates;
 * the tail is then known, and a second thread fetches its spans (a
 * re-scan of the files) while this one runs the model's remaining pass,
 * which also keeps the few interactions the report shows (the tail's, the
 * slowest).  --per-interaction, which lists them all by cause, spools
 * them in the first pass (render/spool.h: a temporary file past 64 MiB).
 *
 * Two sessions, one of them an `emlat replay` driver's (SESSION
 * replay.driver), are joined (docs/REPLAY.md "Joining the two profiles"):
 * the driver's files are streamed first into the join's collection of
 * sends, then the program's into the model and the join's collection of
 * interactions; files of one session are one rotated set as always.
 *
 * Exit codes: 0 the report covers a profile that was read completely;
 * 1 the report was produced but reading lost data (damage, missing
 * rotated files, skipped chunks; each problem is on stderr with its file
 * and offset), memory ran out, or an output could not be written; 2
 * invalid arguments, no usable file, a reader limit reached, an unknown
 * --interaction, or an --html file that cannot be created.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/load.h"
#include "render/report_render.h"
#include "render/spool.h"
#include "render/report_syms.h"
#include "render/report_marks.h"

static void
usage (FILE *f)
{
  fprintf (f,
           "usage: emlat report [--json] [--html OUT.html [--force]] [--interaction ID] FILE...\n"
           "\n"
           "Report the interaction latencies of an .emlat profile (one session;\n"
           "give every file of a rotated set): per root kind, distributions of\n"
           "the flushed, no-output and superseded interactions; the waterfall of\n"
           "the p99 interaction; profiler overhead, losses and the boundaries\n"
           "that were not recorded; for a profile that records names, the work\n"
           "by name.  docs/REPORT.md explains every number.\n"
           "A program's profile and the profile `emlat replay` wrote of the same\n"
           "run (either order) are joined: the outside view beside the inside one\n"
           "(docs/REPLAY.md, \"Joining the two profiles\").\n"
           "FILE - reads standard input.\n"
           "\n"
           "  --json              one JSON document on stdout instead of text\n"
           "  --per-interaction   with --json: every interaction's metrics too\n"
           "  --html OUT.html     also write a self-contained HTML page: a new\n"
           "                      file (never a symlink followed), with the\n"
           "                      profile's own permissions\n"
           "  --force             replace an existing OUT.html (a regular file)\n"
           "  --interaction ID    show the waterfall of cause ID instead\n"
           "  --unicode, --ascii  force or refuse Unicode bars (default: Unicode\n"
           "                      when stdout is a terminal)\n"
           "  --symbols FILE      name the functions of a -finstrument-functions\n"
           "                      trace from FILE (a binary or debug file,\n"
           "                      matched by build id; repeatable)\n"
           "  -h, --help          this text;  -V, --version  the version\n"
           "\n"
           "Exit codes: 0 reported; 1 reported, but reading lost data (each\n"
           "problem on stderr), or a write error; 2 invalid arguments, nothing\n"
           "usable to report, an unknown --interaction, or an OUT.html that\n"
           "cannot be created.\n");
}

struct report_opts
{
  int json, per_ix, unicode; /* unicode -1: when stdout is a terminal */
  int force;
  const char *html;
  uint64_t want; /* --interaction, 0 when not given */
  const char *const *paths;
  size_t n;
  const char *symbols[64];
  size_t nsymbols;
};

/* Fills O from ARGV.  Returns -1 to go on, or the exit code. */
static int
parse_options (int argc, char **argv, struct report_opts *o)
{
  enum { O_PER_IX = 256, O_UNICODE, O_ASCII, O_HTML, O_IX, O_FORCE, O_SYMBOLS };
  static const struct option longopts[] = {
    { "symbols", required_argument, NULL, O_SYMBOLS },
    { "json", no_argument, NULL, 'j' },
    { "per-interaction", no_argument, NULL, O_PER_IX },
    { "html", required_argument, NULL, O_HTML },
    { "force", no_argument, NULL, O_FORCE },
    { "interaction", required_argument, NULL, O_IX },
    { "unicode", no_argument, NULL, O_UNICODE },
    { "ascii", no_argument, NULL, O_ASCII },
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'V' },
    { NULL, 0, NULL, 0 },
  };
  int c;
  while ((c = getopt_long (argc, argv, ":jhV", longopts, NULL)) != -1)
    switch (c)
      {
      case 'j':
        o->json = 1;
        break;
      case O_PER_IX:
        o->per_ix = 1;
        break;
      case O_HTML:
        o->html = optarg;
        break;
      case O_FORCE:
        o->force = 1;
        break;
      case O_SYMBOLS:
        if (o->nsymbols == sizeof o->symbols / sizeof o->symbols[0])
          return emlat_cli_usage_error ("report", "at most 64 --symbols files");
        o->symbols[o->nsymbols++] = optarg;
        break;
      case O_IX:
        if (emlat_cli_opt_u64 ("report", "--interaction", optarg, 1, UINT64_MAX, &o->want) != 0)
          return EMLAT_EXIT_USAGE;
        break;
      case O_UNICODE:
        o->unicode = 1;
        break;
      case O_ASCII:
        o->unicode = 0;
        break;
      case 'h':
        usage (stdout);
        return EMLAT_EXIT_OK;
      case 'V':
        emlat_cli_version ("report");
        return EMLAT_EXIT_OK;
      default:
        return emlat_cli_bad_option ("report", c, argv, longopts);
      }
  if (optind >= argc)
    return emlat_cli_usage_error ("report", "no FILE given");
  if (o->per_ix && !o->json)
    return emlat_cli_usage_error ("report", "--per-interaction needs --json");
  if (o->unicode < 0)
    o->unicode = isatty (STDOUT_FILENO);
  o->paths = (const char *const *)(argv + optind);
  o->n = (size_t)(argc - optind);
  return -1;
}

/* The HTML page; an OUT that cannot be created is an unusable argument (2),
   a failed write the verb's own failure (1). */
static int
write_html (const struct report_ctx *c, const struct report_opts *o)
{
  int created;
  FILE *f = emlat_cli_create_output (o->html, o->force, emlat_cli_output_mode (o->paths[0]),
                                     &created);
  if (!f)
    return EMLAT_EXIT_USAGE;
  int rc = report_html (c, f);
  if (fclose (f) != 0 || rc != 0)
    {
      emlat_cli_error (o->html, UINT64_MAX, "writing the HTML page failed");
      return EMLAT_EXIT_FAIL;
    }
  return EMLAT_EXIT_OK;
}

/* The spans of the waterfall's interaction, fetched on a second thread
   (a re-scan of the files) while this one builds the model. */
struct spans_job
{
  const struct emlat_profile *p;
  uint64_t cause;
  struct emlat_span_set set;
  int rc;
};

static void *
spans_thread (void *arg)
{
  struct spans_job *j = arg;
  j->rc = emlat_profile_ix_spans (j->p, j->cause, &j->set);
  return NULL;
}

/* What one report is made of; report_free releases what was built. */
struct report
{
  struct emlat_profile *p;
  struct emlat_report_model m;
  struct emlat_report_waterfall w;
  struct emlat_report_names names;
  struct emlat_report_app app;
  int have_model, have_w, have_app;
  int per_ix;                 /* --per-interaction: every interaction spooled */
  int html;                   /* --html: the timeline's marks collected */
  struct report_marks marks;
  struct emlat_profile *pd;   /* the replay driver's profile, when joined */
  struct emlat_report_join join;
  int joining;
  struct spool per_ix_spool;
  struct report_ctx ctx;
};

static int
model_add (void *ctx, const struct emlat_profile *p, const struct emlat_interaction *ix)
{
  return emlat_report_model_add (ctx, p, ix);
}

/* The first pass: the model, every interaction's metrics for
   --per-interaction, the HTML timeline's marks for --html (a bounded
   sample: report_marks.h). */
static int
first_pass_add (void *ctx, const struct emlat_profile *p, const struct emlat_interaction *ix)
{
  struct report *r = ctx;
  int rc = emlat_report_model_add (&r->m, p, ix);
  if (rc == 0 && r->joining)
    rc = emlat_report_join_add_program (&r->join, p, ix);
  if (rc == 0 && r->per_ix)
    rc = report_per_ix_put (&r->per_ix_spool, p, ix);
  if (rc == 0 && r->html)
    rc = report_marks_add (&r->marks, p, ix);
  return rc;
}

static int
driver_add (void *ctx, const struct emlat_profile *p, const struct emlat_interaction *ix)
{
  return emlat_report_join_add_driver (ctx, p, ix);
}

/* The session UUID of the file PATH from its 64-byte header: 1 and U, or
   0 when it has none readable (it then stays with the first session, whose
   load reports it). */
static int
file_uuid (const char *path, uint8_t u[16])
{
  if (cli_is_stdin (path))
    return 0;
  int fd = open (path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return 0;
  uint8_t b[64];
  ssize_t n = read (fd, b, sizeof b);
  close (fd);
  struct emlat_file_header h;
  if (n != (ssize_t)sizeof b || emlat_parse_file_header (b, sizeof b, &h) != EMLAT_STOP_CLEAN)
    return 0;
  memcpy (u, h.uuid, 16);
  return 1;
}

/* Stops the peek at the first interaction: the SESSION came before. */
static int
peek_stop (void *ctx, const struct emlat_profile *p, const struct emlat_interaction *ix)
{
  (void)ix;
  *(int *)ctx = emlat_report_is_driver (p);
  return 1;
}

/* 1 when PATH is an `emlat replay` driver's profile, read only up to its
   first interaction. */
static int
file_is_driver (const char *path)
{
  struct emlat_input in = { .path = path, .fd = -1, .name = path };
  struct emlat_profile *p = NULL;
  int driver = 0;
  int rc = emlat_profile_load_each (&in, 1, NULL, EMLAT_LOAD_STREAM | EMLAT_LOAD_NO_RECOVER,
                                    peek_stop, &driver, &p);
  if (rc == 0 && p)
    driver = emlat_report_is_driver (p);
  emlat_profile_free (p);
  return driver;
}

/* The operands split for a join: when they hold exactly two sessions and
   exactly one is a driver's, its files into DRV (*ND of them), the
   program's into PRG (*NP), and 1; else 0 (one set, as always). */
static int
split_join (const struct report_opts *o, const char **prg, size_t *np, const char **drv,
            size_t *nd)
{
  uint8_t u0[16], u1[16], u[16];
  int have1 = 0, first = 1;
  size_t side[o->n > 0 ? o->n : 1];
  if (o->n < 2)
    return 0;
  for (size_t i = 0; i < o->n; i++)
    {
      int has = file_uuid (o->paths[i], u);
      side[i] = 0;
      if (!has)
        continue;
      if (first)
        {
          memcpy (u0, u, 16);
          first = 0;
        }
      else if (memcmp (u, u0, 16) != 0)
        {
          if (!have1)
            {
              memcpy (u1, u, 16);
              have1 = 1;
            }
          else if (memcmp (u, u1, 16) != 0)
            return 0; /* three sessions */
          side[i] = 1;
        }
    }
  if (!have1)
    return 0;
  int d[2] = { -1, -1 };
  for (size_t i = 0; i < o->n; i++)
    if (d[side[i]] < 0 && (side[i] == 1 || file_uuid (o->paths[i], u)))
      d[side[i]] = file_is_driver (o->paths[i]);
  if (d[0] < 0 || d[1] < 0 || d[0] == d[1])
    return 0;
  size_t driver_side = d[1] ? 1 : 0;
  *np = *nd = 0;
  for (size_t i = 0; i < o->n; i++)
    if (side[i] == driver_side)
      drv[(*nd)++] = o->paths[i];
    else
      prg[(*np)++] = o->paths[i];
  return 1;
}

/* The causes whose interactions the report shows: the waterfall's and the
   slowest.  Returns how many, into KEEP. */
static size_t
shown_causes (const struct emlat_report_tail *t, uint64_t cause,
              uint64_t keep[EMLAT_REPORT_SLOWEST + 1])
{
  size_t n = 0;
  if (cause)
    keep[n++] = cause;
  for (size_t i = 0; i < t->n_slow; i++)
    keep[n++] = t->slow[i].cause;
  return n;
}

/* The model's remaining passes over R->p, the first one keeping the
   interactions the report shows (KEEP).  MRC: what the first pass's end
   returned.  Returns 0, or a negative errno (the model is then freed). */
static int
model_passes (struct report *r, int mrc, const uint64_t *keep, size_t n_keep)
{
  int first = 1;
  if (mrc == 0 && n_keep == 0)
    return 0; /* complete, and nothing to keep: no pass */
  while (mrc >= 0 && (mrc == 1 || first))
    {
      int rc = emlat_profile_each_interaction (r->p, keep, first ? n_keep : 0,
                                               mrc == 1 ? model_add : NULL, &r->m);
      first = 0;
      if (rc)
        {
          if (mrc == 1)
            emlat_report_model_free (&r->m);
          return rc;
        }
      if (mrc == 1)
        mrc = emlat_report_model_pass_end (&r->m);
      else
        break;
    }
  return mrc < 0 ? mrc : 0;
}

/* Load R->p, streaming its interactions into the model (its first pass),
   then its other passes and the waterfall (see the top of the file) into
   R->ctx.  Returns -1 when built, else the exit code. */
static int
build (const struct report_opts *o, struct report *r)
{
  /* --per-interaction lists every interaction by cause: spooled (spool.h). */
  r->per_ix = o->per_ix;
  spool_init (&r->per_ix_spool);
  r->html = o->html != NULL;
  report_marks_init (&r->marks);
  if (emlat_report_model_begin (&r->m, NULL,
                                EMLAT_REPORT_MODEL_TAIL | EMLAT_REPORT_MODEL_LEAD_ONLY)
      != 0)
    {
      emlat_cli_error (NULL, UINT64_MAX, "out of memory");
      return EMLAT_EXIT_FAIL;
    }
  const char *prg[o->n], *drv[o->n];
  size_t np = o->n, nd = 0;
  const char *const *paths = o->paths;
  emlat_report_join_init (&r->join);
  if (split_join (o, prg, &np, drv, &nd))
    {
      r->joining = 1;
      paths = prg;
      int drc = report_load_each_usable (drv, nd, EMLAT_LOAD_STREAM, driver_add, &r->join,
                                         &r->pd);
      if (drc != 0)
        {
          emlat_report_model_free (&r->m);
          return drc;
        }
    }
  int rc = report_load_each_usable (paths, np, EMLAT_LOAD_STREAM, first_pass_add, r, &r->p);
  if (rc != 0)
    {
      emlat_report_model_free (&r->m);
      return rc;
    }
  if (r->joining && emlat_report_join_finish (&r->join) != 0)
    {
      emlat_report_model_free (&r->m);
      emlat_cli_error (NULL, UINT64_MAX, "out of memory");
      return EMLAT_EXIT_FAIL;
    }
  r->m.p = r->p;
  int mrc = emlat_report_model_pass_end (&r->m); /* the tail is known from here */
  if (mrc < 0)
    {
      emlat_cli_error (NULL, UINT64_MAX, "out of memory");
      return EMLAT_EXIT_FAIL;
    }
  struct emlat_report_tail tail = r->m.tail;
  struct spans_job job = { .p = r->p, .cause = o->want ? o->want : tail.cause, .rc = -ENOENT };
  int want_w = o->want || tail.has, threaded = 0;
  pthread_t th;
  if (want_w)
    threaded = pthread_create (&th, NULL, spans_thread, &job) == 0;
  uint64_t keep[EMLAT_REPORT_SLOWEST + 1];
  rc = model_passes (r, mrc, keep, shown_causes (&tail, want_w ? job.cause : 0, keep));
  if (want_w && !threaded)
    spans_thread (&job);
  else if (want_w)
    pthread_join (th, NULL);
  int wrc = -ENOENT;
  if (want_w && rc == 0)
    wrc = emlat_report_waterfall_build_spans (r->p, job.cause, job.rc, &job.set, &r->w);
  if (job.rc == 0)
    emlat_span_set_free (&job.set);
  if (rc != 0)
    {
      emlat_cli_error (NULL, UINT64_MAX, "%s",
                       rc == -ENOMEM ? "out of memory" : strerror (-rc));
      return EMLAT_EXIT_FAIL;
    }
  r->have_model = 1;
  r->have_w = wrc == 0;
  r->ctx = (struct report_ctx){ .p = r->p, .m = &r->m, .damaged = emlat_report_damaged (r->p),
                                .unicode = o->unicode, .per_interaction = o->per_ix,
                                .per_ix = o->per_ix ? &r->per_ix_spool : NULL,
                                .marks = r->html ? &r->marks : NULL };
  if (r->joining)
    {
      r->ctx.pd = r->pd;
      r->ctx.join = &r->join;
      r->ctx.damaged |= emlat_report_damaged (r->pd);
    }
  emlat_report_overhead_of (r->p, &r->ctx.ovh);
  if (emlat_report_names_build (r->p, &r->names) != 0)
    {
      emlat_cli_error (NULL, UINT64_MAX, "out of memory");
      return EMLAT_EXIT_FAIL;
    }
  r->ctx.names = &r->names;
  emlat_report_resources_of (r->p, &r->ctx.res);
  r->ctx.syms = report_syms_new (r->p, o->symbols, o->nsymbols);
  if (emlat_report_app_build (r->p, &r->app) != 0)
    {
      emlat_cli_error (NULL, UINT64_MAX, "out of memory");
      return EMLAT_EXIT_FAIL;
    }
  r->have_app = 1;
  r->ctx.app = &r->app;
  if (!want_w)
    return -1;
  if (wrc == -ENOENT)
    {
      emlat_cli_error (o->paths[0], UINT64_MAX, "no interaction with cause id %" PRIu64,
                       job.cause);
      return EMLAT_EXIT_USAGE;
    }
  if (wrc != 0)
    {
      emlat_cli_error (NULL, UINT64_MAX, "out of memory");
      return EMLAT_EXIT_FAIL;
    }
  r->ctx.w = &r->w;
  r->ctx.w_why = o->want ? "requested" : "tail";
  return -1;
}

/* Text or JSON on stdout, then the HTML page.  Returns -1 or the exit
   code.  A write error on stdout is main's to report. */
static int
render (const struct report_opts *o, const struct report *r)
{
  if (o->json)
    {
      if (report_json (&r->ctx, stdout) != 0)
        {
          emlat_cli_error (NULL, UINT64_MAX, "JSON output failed");
          return EMLAT_EXIT_FAIL;
        }
    }
  else
    report_text (&r->ctx, stdout);
  if (o->html)
    {
      int rc = write_html (&r->ctx, o);
      if (rc != EMLAT_EXIT_OK)
        return rc;
      if (!o->json)
        printf ("\nHTML report: %s\n", o->html);
    }
  return -1;
}

static void
report_free (struct report *r)
{
  spool_free (&r->per_ix_spool);
  report_marks_free (&r->marks);
  if (r->have_w)
    emlat_report_waterfall_free (&r->w);
  if (r->have_model)
    emlat_report_model_free (&r->m);
  emlat_report_names_free (&r->names);
  if (r->have_app)
    emlat_report_app_free (&r->app);
  report_syms_free (r->ctx.syms);
  emlat_report_join_free (&r->join);
  emlat_profile_free (r->pd);
  emlat_profile_free (r->p);
}

static int
report_main (int argc, char **argv)
{
  struct report_opts o = { .unicode = -1 };
  int rc = parse_options (argc, argv, &o);
  if (rc >= 0)
    return rc;
  struct report r = { 0 };
  rc = build (&o, &r);
  if (rc < 0)
    rc = render (&o, &r);
  if (rc < 0)
    rc = r.ctx.damaged ? EMLAT_EXIT_FAIL : EMLAT_EXIT_OK;
  report_free (&r);
  return rc;
}

EMLAT_VERB (report_verb, "report",
            "latency distributions, tail waterfall, overhead and losses of a profile",
            report_main)
