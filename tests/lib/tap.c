/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tap.c -- failure reporting and counting for tests/lib/tap.h.
 *
 * Invariants: a failure report always names file:line and the expression,
 * and shows both values of a comparison; strings and memory are shown
 * escaped and bounded (a failing comparison of megabyte buffers prints the
 * first differing offset and a short window, not the buffers).  Tests are
 * single-threaded where they check, so the counters are plain integers.
 */
#include "tap.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

unsigned long tap_checks;
unsigned long tap_failures;

void
tap_fail (const char *file, int line, const char *what, const char *fmt, ...)
{
  va_list ap;
  tap_failures++;
  printf ("FAIL %s:%d: %s\n  ", file, line, what);
  va_start (ap, fmt);
  vprintf (fmt, ap);
  va_end (ap);
  printf ("\n");
  fflush (stdout);
}

void
tap_diag (const char *fmt, ...)
{
  va_list ap;
  printf ("# ");
  va_start (ap, fmt);
  vprintf (fmt, ap);
  va_end (ap);
  printf ("\n");
  fflush (stdout);
}

int
tap_done (void)
{
  printf ("# %lu checks, %lu failed\n", tap_checks, tap_failures);
  fflush (stdout);
  return tap_failures != 0;
}

void
tap_skip (const char *fmt, ...)
{
  va_list ap;
  printf ("SKIP: ");
  va_start (ap, fmt);
  vprintf (fmt, ap);
  va_end (ap);
  printf ("\n");
  fflush (stdout);
  exit (TEST_SKIP_CODE);
}

int
tap_eq_u64 (const char *file, int line, const char *ea, const char *eb,
            uint64_t a, uint64_t b)
{
  tap_checks++;
  if (a == b)
    return 1;
  char what[512];
  snprintf (what, sizeof what, "%s == %s", ea, eb);
  tap_fail (file, line, what,
            "left  %" PRIu64 " (0x%" PRIx64 ")\n  right %" PRIu64
            " (0x%" PRIx64 ")",
            a, a, b, b);
  return 0;
}

int
tap_eq_i64 (const char *file, int line, const char *ea, const char *eb,
            int64_t a, int64_t b)
{
  tap_checks++;
  if (a == b)
    return 1;
  char what[512];
  snprintf (what, sizeof what, "%s == %s", ea, eb);
  tap_fail (file, line, what, "left  %" PRId64 "\n  right %" PRId64, a, b);
  return 0;
}

int
tap_cmp_u64 (const char *file, int line, const char *ea, const char *op,
             const char *eb, uint64_t a, uint64_t b, int held)
{
  tap_checks++;
  if (held)
    return 1;
  char what[512];
  snprintf (what, sizeof what, "%s %s %s", ea, op, eb);
  tap_fail (file, line, what, "left  %" PRIu64 "\n  right %" PRIu64, a, b);
  return 0;
}

/* Print at most MAX bytes of S (length N) as a C-escaped quoted string. */
static void
print_escaped (const unsigned char *s, size_t n, size_t max)
{
  putchar ('"');
  for (size_t i = 0; i < n && i < max; i++)
    {
      if (s[i] == '"' || s[i] == '\\')
        printf ("\\%c", s[i]);
      else if (s[i] == '\n')
        printf ("\\n");
      else if (isprint (s[i]))
        putchar (s[i]);
      else
        printf ("\\x%02x", s[i]);
    }
  putchar ('"');
  if (n > max)
    printf ("... (%zu bytes)", n);
}

int
tap_eq_str (const char *file, int line, const char *ea, const char *eb,
            const char *a, const char *b)
{
  tap_checks++;
  if ((a == NULL && b == NULL) || (a && b && strcmp (a, b) == 0))
    return 1;
  char what[512];
  snprintf (what, sizeof what, "%s == %s", ea, eb);
  tap_fail (file, line, what, "strings differ");
  printf ("  left  ");
  if (a)
    print_escaped ((const unsigned char *)a, strlen (a), 200);
  else
    printf ("NULL");
  printf ("\n  right ");
  if (b)
    print_escaped ((const unsigned char *)b, strlen (b), 200);
  else
    printf ("NULL");
  printf ("\n");
  fflush (stdout);
  return 0;
}

int
tap_eq_mem (const char *file, int line, const char *ea, const char *eb,
            const void *a, const void *b, size_t n)
{
  tap_checks++;
  const unsigned char *pa = a, *pb = b;
  size_t i = 0;
  while (i < n && pa[i] == pb[i])
    i++;
  if (i == n)
    return 1;
  char what[512];
  snprintf (what, sizeof what, "%s == %s (%zu bytes)", ea, eb, n);
  tap_fail (file, line, what, "first difference at offset %zu", i);
  size_t from = i >= 8 ? i - 8 : 0;
  size_t len = n - from < 24 ? n - from : 24;
  printf ("  left  @%zu:", from);
  for (size_t k = 0; k < len; k++)
    printf (" %02x", pa[from + k]);
  printf ("\n  right @%zu:", from);
  for (size_t k = 0; k < len; k++)
    printf (" %02x", pb[from + k]);
  printf ("\n");
  fflush (stdout);
  return 0;
}

int
tap_contains (const char *file, int line, const char *ehay, const char *hay,
              const char *needle)
{
  tap_checks++;
  if (hay && strstr (hay, needle))
    return 1;
  char what[512];
  snprintf (what, sizeof what, "%s contains \"%s\"", ehay, needle);
  tap_fail (file, line, what, "not found in:");
  printf ("  ");
  if (hay)
    print_escaped ((const unsigned char *)hay, strlen (hay), 600);
  else
    printf ("NULL");
  printf ("\n");
  fflush (stdout);
  return 0;
}
