/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_export.c -- `emlat export --format=chrome|jsonl [-o OUT] FILE...`:
 * a profile (one session, a rotated set allowed) as a Chrome/Perfetto
 * trace or as JSON lines (formats in report_export.h, docs/REPORT.md).
 *
 * Exit codes: 0 exported a profile that was read completely; 1 exported,
 * but reading lost data (problems on stderr with file and offset), or the
 * output had a write error; 2 invalid arguments, no usable file, or an -o
 * file that cannot be created (refused before any loading).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "render/report_export.h"
#include "render/report_syms.h"
#include "cli/load.h"

static void
usage (FILE *f)
{
  fprintf (f,
           "usage: emlat export --format=chrome|jsonl [-o OUT [--force]] FILE...\n"
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
           "  -o, --output OUT write to OUT instead of stdout: a new file (never\n"
           "                   a symlink followed), with the profile's own\n"
           "                   permissions\n"
           "  --force          replace an existing OUT (a regular file)\n"
           "  --symbols FILE   name the functions of a -finstrument-functions\n"
           "                   trace from FILE (a binary or debug file, matched\n"
           "                   by build id; repeatable); otherwise module+offset\n"
           "  -h, --help       this text;  -V, --version  the version\n"
           "\n"
           "Exit codes: 0 exported; 1 exported, but reading lost data (each\n"
           "problem on stderr), or a write error; 2 invalid arguments, nothing\n"
           "usable, or an OUT that cannot be created.\n");
}

static int
export_main (int argc, char **argv)
{
  enum { O_FORCE = 256, O_SYMBOLS };
  static const struct option longopts[] = {
    { "symbols", required_argument, NULL, O_SYMBOLS },
    { "format", required_argument, NULL, 'f' },
    { "output", required_argument, NULL, 'o' },
    { "force", no_argument, NULL, O_FORCE },
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'V' },
    { NULL, 0, NULL, 0 },
  };
  const char *format = NULL, *out = NULL;
  const char *symbols[64];
  size_t nsymbols = 0;
  int c, force = 0, created = 0;
  while ((c = getopt_long (argc, argv, ":f:o:hV", longopts, NULL)) != -1)
    switch (c)
      {
      case 'f':
        format = optarg;
        break;
      case 'o':
        out = optarg;
        break;
      case O_FORCE:
        force = 1;
        break;
      case O_SYMBOLS:
        if (nsymbols == sizeof symbols / sizeof symbols[0])
          return emlat_cli_usage_error ("export", "at most 64 --symbols files");
        symbols[nsymbols++] = optarg;
        break;
      case 'h':
        usage (stdout);
        return EMLAT_EXIT_OK;
      case 'V':
        emlat_cli_version ("export");
        return EMLAT_EXIT_OK;
      default:
        return emlat_cli_bad_option ("export", c, argv, longopts);
      }
  int chrome;
  if (!format)
    return emlat_cli_usage_error ("export", "--format=chrome or --format=jsonl is required");
  if (strcmp (format, "chrome") == 0)
    chrome = 1;
  else if (strcmp (format, "jsonl") == 0)
    chrome = 0;
  else
    return emlat_cli_usage_error ("export", "unknown format '%s' (chrome or jsonl)", format);
  if (optind >= argc)
    return emlat_cli_usage_error ("export", "no FILE given");
  const char *const *paths = (const char *const *)(argv + optind);
  FILE *f = stdout;
  if (out
      && !(f = emlat_cli_create_output (out, force, emlat_cli_output_mode (paths[0]), &created)))
    return EMLAT_EXIT_USAGE;
  size_t n = (size_t)(argc - optind);
  struct emlat_profile *p = NULL;
  int result = report_load_usable (paths, n, EMLAT_LOAD_STREAM, &p);
  if (result != 0)
    goto out;
  result = EMLAT_EXIT_FAIL;
  struct report_syms *syms = chrome ? report_syms_new (p, symbols, nsymbols) : NULL;
  int rc = chrome ? report_export_chrome_syms (p, f, syms) : report_export_jsonl (p, f);
  report_syms_free (syms);
  if (rc != 0)
    {
      emlat_cli_error (out, UINT64_MAX, "export failed: %s", strerror (-rc));
      goto out;
    }
  /* A write error on stdout is main's to report; one on OUT is ours. */
  if (out && (fflush (f) != 0 || ferror (f)))
    {
      emlat_cli_error (out, UINT64_MAX, "write error: %s", strerror (errno));
      goto out;
    }
  result = emlat_report_damaged (p) ? EMLAT_EXIT_FAIL : EMLAT_EXIT_OK;
out:
  if (out && result == EMLAT_EXIT_USAGE)
    /* Nothing usable was exported: the file we created goes again. */
    emlat_cli_discard (f, out, created);
  else if (out && fclose (f) != 0 && result == EMLAT_EXIT_OK)
    {
      emlat_cli_error (out, UINT64_MAX, "write error: %s", strerror (errno));
      result = EMLAT_EXIT_FAIL;
    }
  emlat_profile_free (p);
  return result;
}

EMLAT_VERB (export_verb, "export",
            "export a profile as a Chrome/Perfetto trace or as JSON lines", export_main)
