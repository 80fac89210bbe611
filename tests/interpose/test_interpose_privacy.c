/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_interpose_privacy.c -- libemlat-tty.so inside real programs records
 * no text, no file name and no program output.
 *
 * Under `emlat replay --interpose`: vim opens a file whose name carries a
 * marker, has marker text typed into it (which it echoes) and writes it;
 * nano opens another marker-named file and gets marker text typed; less
 * shows a marker-named file whose every line holds a content marker (so
 * the program prints it).  The temporary directory's name is a marker too.
 * Every byte of both profiles of every run (the program's and the
 * driver's) is searched for every marker: as given, ASCII case-folded, as
 * UTF-16 little and big endian, and UTF-16LE case-folded.
 *
 * Positive control: the same scanner finds each marker in a scratch buffer
 * that holds it in each of those encodings (and the raw search does not
 * find the upper-cased copy, so folding is really exercised); and the
 * markers really reached the terminal: the driver saw the programs print
 * them (checked through `wait` steps in the scripts).
 *
 * SKIP (77) only when none of vim, nano and less is installed.
 */
#include "interpose_run.h"

#include <ctype.h>
#include <sys/stat.h>

enum { ENC_RAW, ENC_FOLD, ENC_U16LE, ENC_U16BE, ENC_U16LE_FOLD, ENC_COUNT };
static const char *const enc_name[ENC_COUNT] = { "raw", "case-folded",
                                                 "UTF-16LE", "UTF-16BE",
                                                 "UTF-16LE case-folded" };

/* Whether HAY holds NEEDLE in encoding ENC. */
static int scan (const uint8_t *hay, size_t n, const char *needle, int enc)
{
  size_t m = strlen (needle);
  int wide = enc == ENC_U16LE || enc == ENC_U16BE || enc == ENC_U16LE_FOLD;
  int fold = enc == ENC_FOLD || enc == ENC_U16LE_FOLD;
  size_t step = wide ? 2 : 1;
  for (size_t i = 0; i + m * step <= n; i++)
    {
      size_t k = 0;
      for (; k < m; k++)
        {
          uint8_t want = (uint8_t)needle[k];
          uint8_t lo, hi;
          if (!wide)
            lo = hay[i + k], hi = 0;
          else if (enc == ENC_U16BE)
            hi = hay[i + 2 * k], lo = hay[i + 2 * k + 1];
          else
            lo = hay[i + 2 * k], hi = hay[i + 2 * k + 1];
          if (hi != 0)
            break;
          if (fold ? tolower (lo) != tolower (want) : lo != want)
            break;
        }
      if (k == m)
        return 1;
    }
  return 0;
}

static const char *const markers[] = {
  "VimTypedMarkQ81", "VimFileMarkN63", "NanoTypedMarkK27", "NanoFileMarkW45",
  "LessContentMarkJ19", "LessFileMarkH52", "PrivDirMarkT08",
};
#define N_MARKERS (sizeof markers / sizeof markers[0])

/* Positive control: every encoding of every marker is found by its own
   search; an upper-cased copy escapes the raw search. */
static void control (void)
{
  for (size_t i = 0; i < N_MARKERS; i++)
    {
      const char *mk = markers[i];
      size_t m = strlen (mk);
      uint8_t buf[512];
      size_t o = 0;
      memcpy (buf + o, "..", 2), o += 2;
      for (size_t k = 0; k < m; k++) /* upper-cased, for the fold */
        buf[o++] = (uint8_t)toupper ((unsigned char)mk[k]);
      buf[o++] = '|';
      for (size_t k = 0; k < m; k++)
        buf[o++] = (uint8_t)mk[k], buf[o++] = 0;
      buf[o++] = '|';
      for (size_t k = 0; k < m; k++)
        buf[o++] = 0, buf[o++] = (uint8_t)mk[k];
      buf[o++] = '|';
      for (size_t k = 0; k < m; k++)
        buf[o++] = (uint8_t)toupper ((unsigned char)mk[k]), buf[o++] = 0;
      CHECK (!scan (buf, o, mk, ENC_RAW), "control: raw search misses %s "
             "upper-cased", mk);
      memcpy (buf + o, mk, m), o += m;
      for (int e = 0; e < ENC_COUNT; e++)
        CHECK (scan (buf, o, mk, e), "control: %s search finds %s", enc_name[e],
               mk);
    }
}

static void scan_file (const char *path, const char *what)
{
  uint8_t *buf;
  size_t n;
  int rc = tu_read_file (path, &buf, &n);
  CHECK (rc == 0, "read %s profile %s: %d", what, path, rc);
  if (rc)
    return;
  CHECK_GT_U64 (n, 64);
  /* A value that is there is found (the profile's own metadata). */
  CHECK (scan (buf, n, "XTERM-256color", ENC_FOLD), "%s: the scanner finds "
         "metadata that is there", what);
  size_t found = 0;
  for (size_t i = 0; i < N_MARKERS; i++)
    for (int e = 0; e < ENC_COUNT; e++)
      if (scan (buf, n, markers[i], e))
        {
          found++;
          CHECK (0, "%s: marker %s present (%s)", what, markers[i], enc_name[e]);
        }
  TEST_DIAG ("%s: %zu bytes scanned, %zu marker hits", what, n, found);
  free (buf);
}

static void run (const char *dir, const char *name, const char *text,
                 char *const *cmd)
{
  char *script = tu_strf ("%s/%s.script", dir, name);
  CHECK_OK (tu_write_file (script, text, strlen (text)));
  char *opts[] = { "--script", script, "--term", "xterm-256color", NULL };
  struct ir_run r;
  if (ir_replay (&r, dir, name, opts, cmd, NULL, 120000) == 0)
    {
      CHECK_CONTAINS (r.res.out, "result:        completed");
      CHECK_GT_U64 (r.prog.n_ix, 3);
      scan_file (r.tty_profile, name);
      char *what = tu_strf ("%s (driver)", name);
      scan_file (r.profile, what);
      free (what);
    }
  ir_free (&r);
  free (script);
}

int main (void)
{
  const char *base = tu_tmpdir ();
  if (!base)
    return 1;
  control ();
  const char *vim = ir_vim (), *nano = ir_nano (), *less = ir_less ();
  if (!vim && !nano && !less)
    {
      TEST_SKIP ("vim, nano and less are not installed (Debian packages vim, "
                 "nano, less: sh scripts/deps.sh check)");
      return TEST_SKIP_CODE;
    }
  char *dir = tu_strf ("%s/PrivDirMarkT08", base);
  CHECK_OK (mkdir (dir, 0700));

  if (vim)
    {
      char *file = tu_strf ("%s/VimFileMarkN63.txt", dir);
      char *cmd[] = { (char *)vim, "-u", "NONE", "-i", "NONE", "-N", "-n",
                      file, NULL };
      run (dir, "vim",
           "wait \"VimFileMarkN63\"\n"
           "set gap 100ms\n"
           "key i\n"
           "type \"VimTypedMarkQ81 words\" wpm 200\n"
           "wait \"VimTypedMarkQ81\"\n"
           "key ESC\n"
           "type \":wq\\n\" wpm 200\n",
           cmd);
      uint8_t *b;
      size_t n;
      if (tu_read_file (file, &b, &n) == 0)
        {
          CHECK (memmem (b, n, "VimTypedMarkQ81", 15) != NULL,
                 "vim wrote the typed marker into the marker-named file");
          free (b);
        }
      else
        CHECK (0, "vim wrote %s", file);
      free (file);
    }
  else
    TEST_DIAG ("SKIP part: vim is not installed (Debian package vim)");

  if (nano)
    {
      char *file = tu_strf ("%s/NanoFileMarkW45.txt", dir);
      char *cmd[] = { (char *)nano, "--ignorercfiles", file, NULL };
      run (dir, "nano",
           "wait \"NanoFileMarkW45\"\n"
           "set gap 100ms\n"
           "type \"NanoTypedMarkK27\" wpm 200\n"
           "wait \"NanoTypedMarkK27\"\n"
           "key C-x\n"
           "key n\n",
           cmd);
      free (file);
    }
  else
    TEST_DIAG ("SKIP part: nano is not installed (Debian package nano)");

  if (less)
    {
      char *file = tu_strf ("%s/LessFileMarkH52.txt", dir);
      char content[64 * 40];
      size_t o = 0;
      for (int i = 0; i < 60; i++)
        o += (size_t)snprintf (content + o, sizeof content - o,
                               "line %02d LessContentMarkJ19\n", i);
      CHECK_OK (tu_write_file (file, content, o));
      char *cmd[] = { (char *)less, file, NULL };
      run (dir, "less",
           "wait \"LessContentMarkJ19\"\n"
           "set gap 150ms\n"
           "key SPC PGDN\n"
           "key q\n",
           cmd);
      free (file);
    }
  else
    TEST_DIAG ("SKIP part: less is not installed (Debian package less)");
  free (dir);
  TEST_DONE ();
}
