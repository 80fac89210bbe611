/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * main.c -- the `emlat` command: dispatch on the verb in argv[1].
 *
 *   emlat VERB [ARGS...]     run VERB (its own --help and --version)
 *   emlat help [VERB]        the verb list, or VERB --help (cmd_help.c)
 *   emlat --help | -h        the verb list with one-line summaries
 *   emlat --version | -V     the version
 *
 * Verbs register themselves with EMLAT_VERB in their own file (cli.h); this
 * file has no table of them.  Exit codes (README "Exit codes"): 0 success,
 * 1 the verb's own failure, 2 invalid arguments or unusable input.  A failed
 * write to standard output (a full disk, a closed pipe with SIGPIPE ignored)
 * turns a success into exit 1 with a message, so that output is never
 * silently truncated.
 */
#include "cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int
dispatch (int argc, char **argv)
{
  if (argc < 2)
    {
      emlat_cli_print_usage (stderr);
      return EMLAT_EXIT_USAGE;
    }
  const char *verb = argv[1];
  if (strcmp (verb, "--help") == 0 || strcmp (verb, "-h") == 0)
    {
      emlat_cli_print_usage (stdout);
      return EMLAT_EXIT_OK;
    }
  if (strcmp (verb, "--version") == 0 || strcmp (verb, "-V") == 0)
    {
      emlat_cli_version (NULL);
      return EMLAT_EXIT_OK;
    }
  if (verb[0] == '-')
    {
      emlat_cli_error (NULL, UINT64_MAX,
                       "unknown option '%s' (see emlat --help)", verb);
      return EMLAT_EXIT_USAGE;
    }
  return emlat_verb_run (verb, argc - 1, argv + 1);
}

int
main (int argc, char **argv)
{
  int rc = dispatch (argc, argv);
  if (fflush (stdout) != 0 || ferror (stdout))
    {
      int e = errno;
      emlat_cli_error (NULL, UINT64_MAX, "write error on standard output: %s",
                       strerror (e));
      if (rc == EMLAT_EXIT_OK)
        rc = EMLAT_EXIT_FAIL;
    }
  return rc;
}
