/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cli_util.c -- the verb registry and what every verb of the `emlat`
 * command shares (declared in cli.h): the error message format, the
 * messages for a bad option, the one parser of numeric option values, and
 * the version line.
 *
 * Verbs register from constructors before main() runs, so the registry is a
 * plain singly linked list kept sorted by name (the order `emlat --help`
 * prints); there is no thread yet and no lock is needed.  Registering two
 * verbs of the same name is a programming error and aborts at start-up.
 *
 * emlat_verb_run resets getopt's state before running a verb, so one verb
 * can run another (demo runs check and dump) and each parses its own
 * arguments from the start; it also sets opterr to 0, so that getopt
 * prints nothing and every option error is emlat_cli_bad_option's one
 * line in the common format.
 */
#include "cli/cli.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sys/stat.h>
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
  opterr = 0;
  int rc = v->run (argc, argv);
  fflush (stdout);
  return rc;
}

/* "emlat: [FILE: ][UNIT N: ]message\n"; UNIT NULL omits the position. */
static void
message (const char *file, const char *unit, uint64_t pos, const char *fmt, va_list ap)
{
  /* Whatever the verb printed so far comes first. */
  fflush (stdout);
  fputs ("emlat: ", stderr);
  if (file)
    fprintf (stderr, "%s: ", file);
  if (unit)
    fprintf (stderr, "%s %" PRIu64 ": ", unit, pos);
  vfprintf (stderr, fmt, ap);
  fputc ('\n', stderr);
}

void
emlat_cli_error (const char *file, uint64_t offset, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  message (file, offset == UINT64_MAX ? NULL : "offset", offset, fmt, ap);
  va_end (ap);
}

void
emlat_cli_error_line (const char *file, unsigned line, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  message (file, "line", line, fmt, ap);
  va_end (ap);
}

int
emlat_cli_usage_error (const char *verb, const char *fmt, ...)
{
  char what[512];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (what, sizeof what, fmt, ap);
  va_end (ap);
  emlat_cli_error (NULL, UINT64_MAX, "%s (see emlat %s --help)", what, verb);
  return EMLAT_EXIT_USAGE;
}

/* The long option of LONGOPTS that ARG ("--name=value", possibly an
   abbreviation) named, when it has value VAL and takes no argument. */
static const struct option *
long_without_value (const struct option *longopts, const char *arg, int val)
{
  if (strncmp (arg, "--", 2) != 0 || !strchr (arg, '='))
    return NULL;
  size_t n = strcspn (arg + 2, "=");
  for (const struct option *o = longopts; o && o->name; o++)
    if (o->val == val && o->has_arg == no_argument && strncmp (o->name, arg + 2, n) == 0)
      return o;
  return NULL;
}

/* "--NAME[=value]" that getopt_long did not take: an abbreviation of
   several options, or none. */
static int
unknown_long (const char *verb, const char *arg, const struct option *longopts)
{
  size_t n = strcspn (arg + 2, "=");
  char names[256] = "";
  size_t used = 0;
  int matches = 0;
  for (const struct option *o = longopts; o && o->name; o++)
    if (strncmp (o->name, arg + 2, n) == 0 && used < sizeof names)
      {
        int w = snprintf (names + used, sizeof names - used, "%s--%s", matches ? ", " : "",
                          o->name);
        if (w > 0)
          used += (size_t)w;
        matches++;
      }
  if (matches > 1)
    return emlat_cli_usage_error (verb, "ambiguous option '%.*s': %s", (int)n + 2, arg, names);
  return emlat_cli_usage_error (verb, "unknown option '%.*s'", (int)n + 2, arg);
}

int
emlat_cli_bad_option (const char *verb, int c, char *const argv[],
                      const struct option *longopts)
{
  /* glibc leaves optind past a long option and past a short option that
     lacks its value; an unknown short option inside a group ("-jZ") is
     named by optopt alone. */
  const char *arg = optind > 0 ? argv[optind - 1] : "";
  int is_long = strncmp (arg, "--", 2) == 0 && arg[2];
  if (c == 1)
    return emlat_cli_usage_error (verb, "unexpected argument '%s'", optarg);
  if (c == ':')
    {
      if (is_long)
        return emlat_cli_usage_error (verb, "option '%s' needs a value", arg);
      return emlat_cli_usage_error (verb, "option '-%c' needs a value", optopt);
    }
  if (optopt == 0 && is_long)
    return unknown_long (verb, arg, longopts);
  const struct option *o = long_without_value (longopts, arg, optopt);
  if (o)
    return emlat_cli_usage_error (verb, "option '--%s' takes no value", o->name);
  if (optopt > 0 && optopt < 256 && isprint (optopt))
    return emlat_cli_usage_error (verb, "unknown option '-%c'", optopt);
  return emlat_cli_usage_error (verb, "unknown option '%s'", arg);
}

int
emlat_cli_parse_u64 (const char *arg, uint64_t min, uint64_t max, uint64_t *out)
{
  unsigned base = 10;
  const char *s = arg;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
    {
      base = 16;
      s += 2;
    }
  if (*s == 0)
    return -1;
  uint64_t v = 0;
  for (; *s; s++)
    {
      unsigned d;
      if (*s >= '0' && *s <= '9')
        d = (unsigned)(*s - '0');
      else if (base == 16 && *s >= 'a' && *s <= 'f')
        d = (unsigned)(*s - 'a' + 10);
      else if (base == 16 && *s >= 'A' && *s <= 'F')
        d = (unsigned)(*s - 'A' + 10);
      else
        return -1;
      if (v > (UINT64_MAX - d) / base)
        return -1;
      v = v * base + d;
    }
  if (v < min || v > max)
    return -1;
  *out = v;
  return 0;
}

int
emlat_cli_opt_u64 (const char *verb, const char *opt, const char *arg, uint64_t min,
                   uint64_t max, uint64_t *out)
{
  if (emlat_cli_parse_u64 (arg, min, max, out) == 0)
    return 0;
  if (max == UINT64_MAX && min == 0)
    emlat_cli_usage_error (verb, "option '%s' wants a whole number, not '%s'", opt, arg);
  else if (max == UINT64_MAX)
    emlat_cli_usage_error (verb, "option '%s' wants a whole number of at least %" PRIu64
                           ", not '%s'", opt, min, arg);
  else
    emlat_cli_usage_error (verb, "option '%s' wants a whole number from %" PRIu64 " to %" PRIu64
                           ", not '%s'", opt, min, max, arg);
  return -1;
}

void
emlat_cli_version (const char *verb)
{
  if (verb && *verb)
    printf ("emlat %s %s\n", verb, EMLAT_VERSION_STRING);
  else
    printf ("emlat %s\n", EMLAT_VERSION_STRING);
}


FILE *
emlat_cli_create_output (const char *path, int force, mode_t mode, int *created)
{
  *created = 0;
  /* O_NONBLOCK: opening a FIFO for writing must not wait for a reader
     (with no reader it fails at once; with one, fstat refuses it). */
  int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
  int fd = open (path, flags | O_EXCL, mode);
  if (fd >= 0)
    *created = 1;
  else if (errno == EEXIST && force)
    fd = open (path, flags, mode);
  if (fd < 0)
    {
      int e = errno;
      emlat_cli_error (path, UINT64_MAX, "cannot create: %s%s", strerror (e),
                       e == EEXIST ? " (an output is never replaced without --force)"
                       : e == ELOOP ? " (an output never follows a symbolic link)"
                                    : "");
      return NULL;
    }
  struct stat st;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      emlat_cli_error (path, UINT64_MAX, "cannot create: not a regular file");
      close (fd);
      if (*created)
        unlink (path);
      return NULL;
    }
  if (ftruncate (fd, 0) != 0 || fchmod (fd, mode) != 0
      || fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK) != 0)
    {
      emlat_cli_error (path, UINT64_MAX, "cannot create: %s", strerror (errno));
      close (fd);
      return NULL;
    }
  FILE *f = fdopen (fd, "w");
  if (!f)
    {
      emlat_cli_error (path, UINT64_MAX, "cannot create: %s", strerror (errno));
      close (fd);
    }
  return f;
}

void
emlat_cli_discard (FILE *f, const char *path, int created)
{
  if (f)
    fclose (f);
  if (created)
    unlink (path);
}

int
emlat_cli_reserve_profile (const char *path)
{
  int fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
  if (fd < 0)
    return -errno;
  close (fd);
  return 0;
}

int
emlat_cli_profile_written (const char *path)
{
  struct stat st;
  if (lstat (path, &st) != 0)
    return 0;
  if (S_ISREG (st.st_mode) && st.st_size == 0)
    {
      unlink (path);
      return 0;
    }
  return 1;
}

mode_t
emlat_cli_output_mode (const char *path)
{
  struct stat st;
  if (!path || strcmp (path, "-") == 0 || stat (path, &st) != 0)
    return 0600;
  return st.st_mode & 0666;
}
