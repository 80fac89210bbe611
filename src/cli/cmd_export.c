/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_export.c -- `emlat export --format=chrome|jsonl [-o OUT] FILE...`:
 * a profile (one session, a rotated set allowed) as a Chrome/Perfetto
 * trace or as JSON lines (formats in report_export.h, docs/REPORT.md).
 *
 * Exit codes: 0 exported a profile that was read completely; 1 exported,
 * but reading lost data (problems on stderr with file and offset);
 * 2 invalid arguments, no usable file, or the output could not be
 * written.  An unwritable -o file is refused before any loading.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "render/report_export.h"
#include "cli/load.h"

static void
usage (FILE *f)
{
  fprintf (f,
           "usage: emlat export --format=chrome|jsonl [-o OUT] FILE...\n"
           "\n"
           "Export a profile (one session; give every file of a rotated set).\n"
           "FILE - reads standard input.\n"
           "\n"
           "  --format=chrome  Chrome Trace Event JSON for the Perfetto UI and\n"
           "                   chrome://tracing: a track per thread, spans,\n"
           "                   interactions as async slices by cause id, counters,\n"
           "                   LOSS records as instant events\n"
           "  --format=jsonl   one JSON object per record, raw timestamps (ns),\n"
           "                   interactions with their derived metrics\n"
           "  -o OUT           write to OUT instead of stdout\n"
           "  -h, --help       this text;  -V, --version  the version\n"
           "\n"
           "Exit codes: 0 exported; 1 exported, but reading lost data (see\n"
           "stderr); 2 invalid arguments, nothing usable, or a write error.\n");
}

static int
export_main (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "format", required_argument, NULL, 'f' },
    { "output", required_argument, NULL, 'o' },
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'V' },
    { NULL, 0, NULL, 0 },
  };
  const char *format = NULL, *out = NULL;
  int c;
  while ((c = getopt_long (argc, argv, "+f:o:hV", longopts, NULL)) != -1)
    switch (c)
      {
      case 'f':
        format = optarg;
        break;
      case 'o':
        out = optarg;
        break;
      case 'h':
        usage (stdout);
        return EMLAT_EXIT_OK;
      case 'V':
        emlat_cli_version ("export");
        return EMLAT_EXIT_OK;
      default:
        usage (stderr);
        return EMLAT_EXIT_USAGE;
      }
  int chrome;
  if (!format)
    {
      emlat_cli_error (NULL, UINT64_MAX, "export: --format=chrome or --format=jsonl is required");
      return EMLAT_EXIT_USAGE;
    }
  if (strcmp (format, "chrome") == 0)
    chrome = 1;
  else if (strcmp (format, "jsonl") == 0)
    chrome = 0;
  else
    {
      emlat_cli_error (NULL, UINT64_MAX, "export: unknown format '%s' (chrome or jsonl)", format);
      return EMLAT_EXIT_USAGE;
    }
  if (optind >= argc)
    {
      emlat_cli_error (NULL, UINT64_MAX, "export: no FILE given");
      usage (stderr);
      return EMLAT_EXIT_USAGE;
    }
  FILE *f = stdout;
  if (out && !(f = fopen (out, "w")))
    {
      emlat_cli_error (out, UINT64_MAX, "export: cannot write: %s", strerror (errno));
      return EMLAT_EXIT_USAGE;
    }
  const char *const *paths = (const char *const *)(argv + optind);
  size_t n = (size_t)(argc - optind);
  struct emlat_profile *p = NULL;
  int result = EMLAT_EXIT_USAGE;
  int rc = report_load (paths, n, chrome ? EMLAT_LOAD_SPANS : 0, isatty (STDERR_FILENO), &p);
  if (rc != 0)
    {
      emlat_cli_error (paths[0], UINT64_MAX, "export: cannot load: %s", strerror (-rc));
      goto out;
    }
  report_print_problems (p, "export");
  if (!emlat_report_usable (p))
    {
      emlat_cli_error (n == 1 ? paths[0] : NULL, UINT64_MAX,
                       "export: no readable .emlat file (or a reader limit was reached)");
      goto out;
    }
  rc = chrome ? report_export_chrome (p, f) : report_export_jsonl (p, f);
  if (rc != 0)
    {
      emlat_cli_error (out, UINT64_MAX, "export: writing failed");
      goto out;
    }
  if (fflush (f) != 0 || ferror (f))
    {
      emlat_cli_error (out, UINT64_MAX, "export: writing failed: %s", strerror (errno));
      goto out;
    }
  result = emlat_report_damaged (p) ? EMLAT_EXIT_FAIL : EMLAT_EXIT_OK;
out:
  if (out && fclose (f) != 0 && result != EMLAT_EXIT_USAGE)
    {
      emlat_cli_error (out, UINT64_MAX, "export: closing failed: %s", strerror (errno));
      result = EMLAT_EXIT_USAGE;
    }
  emlat_profile_free (p);
  return result;
}

EMLAT_VERB (export_verb, "export",
            "export a profile as a Chrome/Perfetto trace or as JSON lines", export_main)
