/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_help.c -- `emlat help [VERB]`: the verb list with one-line summaries
 * (also `emlat --help`), or VERB's own --help.  The list is built from the
 * registry (cli.h), so a new verb appears in it without an edit here.
 *
 * Exit codes: 0 the text was printed; 1 it could not be written; 2 an
 * unknown verb, an unknown option or more than one VERB.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <stdio.h>

void
emlat_cli_print_usage (FILE *f)
{
  fprintf (f, "usage: emlat VERB [OPTIONS] [ARGS...]\n"
              "       emlat help [VERB]\n"
              "       emlat --help | --version\n"
              "\n"
              "emlat records and reads .emlat interaction-latency profiles.\n"
              "\n"
              "verbs:\n");
  for (const struct emlat_verb *v = emlat_verb_first (); v; v = v->next)
    fprintf (f, "  %-10s %s\n", v->name, v->summary);
  fprintf (f, "\n"
              "Run 'emlat VERB --help' for the options of a verb; options and\n"
              "operands mix in any order, and '--' ends the options.\n"
              "Exit codes: 0 success; 1 the verb's own failure (damaged input\n"
              "that was still processed, data that could not be read, a write\n"
              "error); 2 invalid arguments or unusable input.  See emlat(1).\n");
}

static void
usage (FILE *f)
{
  fputs ("usage: emlat help [VERB]\n"
         "\n"
         "Without VERB, the verbs of emlat with one line each (the same as\n"
         "'emlat --help'); with VERB, its options (the same as\n"
         "'emlat VERB --help').\n"
         "\n"
         "  -h, --help  this text;  -V, --version  the version\n"
         "\n"
         "Exit codes: 0 printed; 1 a write error; 2 an unknown verb or\n"
         "invalid arguments.\n",
         f);
}

static int
help_main (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'V' },
    { NULL, 0, NULL, 0 },
  };
  int c;
  while ((c = getopt_long (argc, argv, ":hV", longopts, NULL)) != -1)
    switch (c)
      {
      case 'h':
        usage (stdout);
        return EMLAT_EXIT_OK;
      case 'V':
        emlat_cli_version ("help");
        return EMLAT_EXIT_OK;
      default:
        return emlat_cli_bad_option ("help", c, argv, longopts);
      }
  if (optind == argc)
    {
      emlat_cli_print_usage (stdout);
      return EMLAT_EXIT_OK;
    }
  if (argc - optind > 1)
    return emlat_cli_usage_error ("help", "unexpected argument '%s'", argv[optind + 1]);
  char *verb_argv[] = { argv[optind], "--help", NULL };
  return emlat_verb_run (argv[optind], 2, verb_argv);
}

EMLAT_VERB (help_verb, "help", "the verbs of emlat, or the options of one verb", help_main)
