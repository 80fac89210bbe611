/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_report.c -- `emlat report FILE...`: what a profile says about
 * latency.  Loads the files as one session (a rotated set), builds the
 * report model (report_model.c) and the waterfall of the tail interaction
 * or of --interaction ID (report_waterfall.c), and renders text, JSON and/or
 * HTML (report_render.h).  docs/REPORT.md documents every number.
 *
 * The waterfall's spans are fetched by re-scanning the files, which costs
 * about as much as building the model; on a large profile both run at
 * once: the tail is picked first (report_tail.c), then a second thread
 * builds the waterfall while this one builds the model.  Both only read
 * the profile.
 *
 * Exit codes: 0 the report covers a profile that was read completely;
 * 1 the report was produced but reading lost data (damage, missing
 * rotated files; each problem is on stderr with its file and offset);
 * 2 invalid arguments, no usable file, a reader limit reached, an unknown
 * --interaction, or the output could not be written.
 */
#include <errno.h>
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

static void
usage (FILE *f)
{
  fprintf (f,
           "usage: emlat report [--json] [--html OUT.html] [--interaction ID] FILE...\n"
           "\n"
           "Report the interaction latencies of an .emlat profile (one session;\n"
           "give every file of a rotated set): per root kind, distributions of\n"
           "the flushed, no-output and superseded interactions; the waterfall of\n"
           "the p99 interaction; profiler overhead, losses and the boundaries\n"
           "that were not recorded.  docs/REPORT.md explains every number.\n"
           "FILE - reads standard input.\n"
           "\n"
           "  --json              one JSON document on stdout instead of text\n"
           "  --per-interaction   with --json: every interaction's metrics too\n"
           "  --html OUT.html     also write a self-contained HTML page\n"
           "  --interaction ID    show the waterfall of cause ID instead\n"
           "  --unicode, --ascii  force or refuse Unicode bars (default: Unicode\n"
           "                      when stdout is a terminal)\n"
           "  -h, --help          this text;  -V, --version  the version\n"
           "\n"
           "Exit codes: 0 reported; 1 reported, but reading lost data (see\n"
           "stderr); 2 invalid arguments or nothing usable to report.\n");
}

static int
parse_u64 (const char *s, uint64_t *v)
{
  char *end;
  errno = 0;
  unsigned long long x = strtoull (s, &end, 0);
  if (errno || end == s || *end || s[0] == '-')
    return -1;
  *v = x;
  return 0;
}

static int
write_html (const struct report_ctx *c, const char *out)
{
  FILE *f = fopen (out, "w");
  if (!f)
    {
      emlat_cli_error (out, UINT64_MAX, "report: cannot write: %s", strerror (errno));
      return -1;
    }
  int rc = report_html (c, f);
  if (fclose (f) != 0 || rc != 0)
    {
      emlat_cli_error (out, UINT64_MAX, "report: writing the HTML page failed");
      return -1;
    }
  return 0;
}

struct wf_job
{
  const struct emlat_profile *p;
  uint64_t cause;
  struct emlat_report_waterfall w;
  int rc;
};

static void *
wf_thread (void *arg)
{
  struct wf_job *j = arg;
  j->rc = emlat_report_waterfall_build (j->p, j->cause, &j->w);
  return NULL;
}

static int
report_main (int argc, char **argv)
{
  enum { O_PER_IX = 256, O_UNICODE, O_ASCII, O_HTML, O_IX };
  static const struct option longopts[] = {
    { "json", no_argument, NULL, 'j' },
    { "per-interaction", no_argument, NULL, O_PER_IX },
    { "html", required_argument, NULL, O_HTML },
    { "interaction", required_argument, NULL, O_IX },
    { "unicode", no_argument, NULL, O_UNICODE },
    { "ascii", no_argument, NULL, O_ASCII },
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'V' },
    { NULL, 0, NULL, 0 },
  };
  int json = 0, per_ix = 0, unicode = -1, c;
  const char *html = NULL;
  uint64_t want = 0;
  int have_want = 0;
  while ((c = getopt_long (argc, argv, "+jhV", longopts, NULL)) != -1)
    switch (c)
      {
      case 'j':
        json = 1;
        break;
      case O_PER_IX:
        per_ix = 1;
        break;
      case O_HTML:
        html = optarg;
        break;
      case O_IX:
        if (parse_u64 (optarg, &want) != 0 || want == 0)
          {
            emlat_cli_error (NULL, UINT64_MAX,
                             "report: --interaction wants a cause id (>= 1), not '%s'", optarg);
            return EMLAT_EXIT_USAGE;
          }
        have_want = 1;
        break;
      case O_UNICODE:
        unicode = 1;
        break;
      case O_ASCII:
        unicode = 0;
        break;
      case 'h':
        usage (stdout);
        return EMLAT_EXIT_OK;
      case 'V':
        emlat_cli_version ("report");
        return EMLAT_EXIT_OK;
      default:
        usage (stderr);
        return EMLAT_EXIT_USAGE;
      }
  if (optind >= argc)
    {
      emlat_cli_error (NULL, UINT64_MAX, "report: no FILE given");
      usage (stderr);
      return EMLAT_EXIT_USAGE;
    }
  if (per_ix && !json)
    {
      emlat_cli_error (NULL, UINT64_MAX, "report: --per-interaction needs --json");
      return EMLAT_EXIT_USAGE;
    }
  if (unicode < 0)
    unicode = isatty (STDOUT_FILENO);

  const char *const *paths = (const char *const *)(argv + optind);
  size_t n = (size_t)(argc - optind);
  struct emlat_profile *p = NULL;
  int rc = report_load (paths, n, 0, isatty (STDERR_FILENO), &p);
  if (rc != 0)
    {
      emlat_cli_error (paths[0], UINT64_MAX, "report: cannot load: %s", strerror (-rc));
      return EMLAT_EXIT_USAGE;
    }
  int result = EMLAT_EXIT_USAGE;
  struct emlat_report_model m;
  struct emlat_report_waterfall w;
  int have_model = 0, have_w = 0;
  report_print_problems (p, "report");
  if (!emlat_report_usable (p))
    {
      emlat_cli_error (n == 1 ? paths[0] : NULL, UINT64_MAX,
                       emlat_profile_totals (p)->limit_hit
                         ? "report: a reader limit stopped loading; nothing reported"
                         : "report: no readable .emlat file; nothing reported");
      goto out;
    }
  struct emlat_report_tail tail;
  if (emlat_report_tail_pick (p, &tail) != 0)
    {
      emlat_cli_error (NULL, UINT64_MAX, "report: out of memory");
      goto out;
    }
  struct wf_job job = { .p = p, .cause = have_want ? want : tail.cause, .rc = -ENOENT };
  int want_w = have_want || tail.has, threaded = 0;
  pthread_t th;
  if (want_w)
    threaded = pthread_create (&th, NULL, wf_thread, &job) == 0;
  int mrc = emlat_report_model_build (p, &m);
  if (want_w)
    {
      if (threaded)
        pthread_join (th, NULL);
      else
        wf_thread (&job);
      have_w = job.rc == 0;
      w = job.w;
    }
  if (mrc != 0)
    {
      emlat_cli_error (NULL, UINT64_MAX, "report: out of memory");
      goto out;
    }
  have_model = 1;
  m.tail = tail;
  struct report_ctx ctx = { .p = p, .m = &m, .damaged = emlat_report_damaged (p),
                            .unicode = unicode, .per_interaction = per_ix };
  emlat_report_overhead_of (p, &ctx.ovh);
  if (want_w)
    {
      if (job.rc == -ENOENT)
        {
          emlat_cli_error (paths[0], UINT64_MAX, "report: no interaction with cause id %" PRIu64,
                           job.cause);
          goto out;
        }
      if (job.rc != 0)
        {
          emlat_cli_error (NULL, UINT64_MAX, "report: out of memory");
          goto out;
        }
      ctx.w = &w;
      ctx.w_why = have_want ? "requested" : "tail";
    }
  if (json)
    {
      if (report_json (&ctx, stdout) != 0)
        {
          emlat_cli_error (NULL, UINT64_MAX, "report: JSON output failed");
          goto out;
        }
    }
  else
    report_text (&ctx, stdout);
  if (html)
    {
      if (write_html (&ctx, html) != 0)
        goto out;
      if (!json)
        printf ("\nHTML report: %s\n", html);
    }
  if (fflush (stdout) != 0 || ferror (stdout))
    {
      emlat_cli_error (NULL, UINT64_MAX, "report: cannot write to stdout");
      goto out;
    }
  result = ctx.damaged ? EMLAT_EXIT_FAIL : EMLAT_EXIT_OK;
out:
  if (have_w)
    emlat_report_waterfall_free (&w);
  if (have_model)
    emlat_report_model_free (&m);
  emlat_profile_free (p);
  return result;
}

EMLAT_VERB (report_verb, "report",
            "latency distributions, tail waterfall, overhead and losses of a profile",
            report_main)
