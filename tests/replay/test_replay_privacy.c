/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_replay_privacy.c -- a replay profile holds no typed text, pasted
 * text, program output, script name, command argument or path.
 *
 * The script (whose file name carries a marker) types and pastes unique
 * marker strings into `cat` on a cooked terminal, so they also come back
 * as output; CMD's argument carries another marker.  Every byte of the
 * profile is then searched for each marker as given, case-folded, and as
 * UTF-16 (little and big endian).  A positive control checks that the
 * search finds a marker that is there (the profile's own metadata value
 * "xterm-256color").
 */
#include "replay_test.h"

#include <ctype.h>

static int contains_folded (const uint8_t *hay, size_t n, const char *needle)
{
  size_t m = strlen (needle);
  for (size_t i = 0; i + m <= n; i++)
    {
      size_t k = 0;
      while (k < m && tolower (hay[i + k]) == tolower ((unsigned char)needle[k]))
        k++;
      if (k == m)
        return 1;
    }
  return 0;
}

static int contains_utf16 (const uint8_t *hay, size_t n, const char *needle,
                           int big_endian)
{
  size_t m = strlen (needle);
  uint8_t pat[256];
  if (2 * m > sizeof pat)
    return 0;
  for (size_t i = 0; i < m; i++)
    {
      pat[2 * i + (big_endian ? 1 : 0)] = (uint8_t)needle[i];
      pat[2 * i + (big_endian ? 0 : 1)] = 0;
    }
  return memmem (hay, n, pat, 2 * m) != NULL;
}

int main (void)
{
  const char *dir = tu_tmpdir ();
  if (!dir)
    return 1;
  static const char *const markers[] = { "Zephyrmarker91", "PastedMarkerQ42",
                                         "ArgMarkerJ77", "ScriptNameK55",
                                         "emlat-test" /* the temp dir */ };
  char *script = tu_strf ("%s/ScriptNameK55.script", dir);
  char *prof = tu_strf ("%s/priv.emlat", dir);
  const char *text = "set gap 60ms\n"
                     "type \"Zephyrmarker91 secret\\n\" wpm 600\n"
                     "paste \"PastedMarkerQ42\\n\"\n"
                     "key C-d\n";
  CHECK_OK (tu_write_file (script, text, strlen (text)));
  char *args[] = { "--script", script, "-o", prof, "--", "/bin/sh", "-c",
                   "exec cat", "ArgMarkerJ77", NULL };
  struct tu_result r;
  if (rt_replay (args, 60000, &r))
    {
      free (script);
      free (prof);
      return 1;
    }
  CHECK_EQ_I64 (r.exit_code, 0);
  /* The markers really went through the terminal: cat echoed them. */
  CHECK_CONTAINS (r.out, "24 planned, 24 sent, 24 measured");

  uint8_t *buf;
  size_t n;
  if (tu_read_file (prof, &buf, &n) == 0)
    {
      CHECK_GT_U64 (n, 64);
      CHECK (contains_folded (buf, n, "XTERM-256COLOR"),
             "positive control: the search finds metadata that is there");
      for (size_t i = 0; i < sizeof markers / sizeof markers[0]; i++)
        {
          CHECK (!memmem (buf, n, markers[i], strlen (markers[i])),
                 "marker %s absent", markers[i]);
          CHECK (!contains_folded (buf, n, markers[i]),
                 "marker %s absent case-folded", markers[i]);
          CHECK (!contains_utf16 (buf, n, markers[i], 0)
                   && !contains_utf16 (buf, n, markers[i], 1),
                 "marker %s absent as UTF-16", markers[i]);
        }
      CHECK (!contains_folded (buf, n, "secret"), "typed word absent");
      free (buf);
    }
  tu_result_free (&r);
  free (script);
  free (prof);
  TEST_DONE ();
}
