/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cli_util.c -- the verb registry and the shared error and version output of
 * the `emlat` command (declared in cli.h).
 *
 * Verbs register from constructors before main() runs, so the registry is a
 * plain singly linked list kept sorted by name (the order `emlat --help`
 * prints); there is no thread yet and no lock is needed.  Registering two
 * verbs of the same name is a programming error and aborts at start-up.
 *
 * emlat_verb_run resets getopt's state before running a verb, so one verb
 * can run another (demo runs check and dump) and each parses its own
 * arguments from the start.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"

static struct emlat_verb *verbs;

void
emlat_verb_register (struct emlat_verb *v)
{
  struct emlat_verb **at = &verbs;
  while (*at && strcmp ((*at)->name, v->name) < 0)
    at = &(*at)->next;
  if (*at && strcmp ((*at)->name, v->name) == 0)
    {
      fprintf (stderr, "emlat: verb '%s' registered twice\n", v->name);
      abort ();
    }
  v->next = *at;
  *at = v;
}

const struct emlat_verb *
emlat_verb_find (const char *name)
{
  for (const struct emlat_verb *v = verbs; v; v = v->next)
    if (strcmp (v->name, name) == 0)
      return v;
  return NULL;
}

const struct emlat_verb *
emlat_verb_first (void)
{
  return verbs;
}

int
emlat_verb_run (const char *name, int argc, char **argv)
{
  const struct emlat_verb *v = emlat_verb_find (name);
  if (!v)
    {
      emlat_cli_error (NULL, UINT64_MAX, "unknown verb '%s' (see emlat --help)",
                       name);
      return EMLAT_EXIT_USAGE;
    }
  /* glibc: optind = 0 reinitializes getopt completely (including the
     position inside a group of short options). */
  optind = 0;
  opterr = 1;
  int rc = v->run (argc, argv);
  fflush (stdout);
  return rc;
}

void
emlat_cli_error (const char *file, uint64_t offset, const char *fmt, ...)
{
  va_list ap;
  /* Whatever the verb printed so far comes first. */
  fflush (stdout);
  fputs ("emlat: ", stderr);
  if (file)
    fprintf (stderr, "%s: ", file);
  if (offset != UINT64_MAX)
    fprintf (stderr, "offset %" PRIu64 ": ", offset);
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fputc ('\n', stderr);
}

void
emlat_cli_version (const char *verb)
{
  if (verb && *verb)
    printf ("emlat %s %s\n", verb, EMLAT_VERSION_STRING);
  else
    printf ("emlat %s\n", EMLAT_VERSION_STRING);
}

void
emlat_cli_uuid (const uint8_t u[16], char out[37])
{
  emlat_uuid_format (u, out);
}
