/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * replay_workload.c -- built-in workloads as generated scripts, and the
 * synthetic file for the paging workload (see replay_workload.h).
 *
 * Invariants: a generated script has exactly P->keys measured sends; it
 * contains only text written here (no user data); every line it produces
 * is valid in the documented script format.
 */
#include "replay/replay_workload.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const replay_workload_names[] = { "typing", "paging", "editing",
                                              "resize", NULL };

/* Prose for the typing workload: plain ASCII, no quotes or backslashes. */
static const char prose[]
  = "The quiet harbour town woke slowly that morning. Fishing boats drifted "
    "past the breakwater while gulls argued over the nets, and the baker on "
    "the corner set out trays of warm bread. A few children raced along the "
    "sea wall, counting the waves that broke against the old stones, and an "
    "elderly painter unfolded his easel to catch the pale light before the "
    "clouds rolled in from the west. ";

/* Words typed by the editing workload. */
static const char *const edit_words[]
  = { "alpha", "bravo", "delta", "harbour", "lantern", "meadow", "orbit",
      "pepper", "quartz", "ribbon", "signal", "timber", "velvet", "willow" };

struct sb
{
  char *p;
  size_t len, cap;
  int oom;
};

static void sb_printf (struct sb *b, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));

static void sb_printf (struct sb *b, const char *fmt, ...)
{
  va_list ap;
  if (b->oom)
    return;
  for (;;)
    {
      size_t room = b->cap - b->len;
      va_start (ap, fmt);
      int n = vsnprintf (b->p ? b->p + b->len : NULL, room, fmt, ap);
      va_end (ap);
      if (n < 0)
        {
          b->oom = 1;
          return;
        }
      if ((size_t)n < room)
        {
          b->len += (size_t)n;
          return;
        }
      size_t cap = b->cap ? b->cap * 2 : 4096;
      while (cap < b->len + (size_t)n + 1)
        cap *= 2;
      char *q = realloc (b->p, cap);
      if (!q)
        {
          b->oom = 1;
          return;
        }
      b->p = q;
      b->cap = cap;
    }
}

unsigned replay_workload_default_keys (const char *name)
{
  if (strcmp (name, "typing") == 0)
    return 200;
  if (strcmp (name, "paging") == 0)
    return 50;
  if (strcmp (name, "editing") == 0)
    return 120;
  if (strcmp (name, "resize") == 0)
    return 10;
  return 0;
}

static void typing (struct sb *b, const struct replay_workload_params *p)
{
  size_t col = 0, in_line = 0;
  sb_printf (b, "# typing: %u characters of prose at %u wpm\nset wpm %u\n",
             p->keys, p->wpm, p->wpm);
  for (unsigned i = 0; i < p->keys; i++)
    {
      char c = prose[i % (sizeof prose - 1)];
      if (in_line == 0)
        sb_printf (b, "type \"");
      /* A new line after about 60 columns, at a space: RET is typed. */
      if (c == ' ' && col >= 60)
        {
          sb_printf (b, "\\n");
          col = 0;
        }
      else
        {
          sb_printf (b, "%c", c);
          col++;
        }
      if (++in_line == 50 || i + 1 == p->keys)
        {
          sb_printf (b, "\"\n");
          in_line = 0;
        }
    }
}

static void editing (struct sb *b, const struct replay_workload_params *p)
{
  /* One keystroke per atom; a cycle types a word, moves, deletes, retypes,
     undoes and changes line. */
  static const char *const cycle[]
    = { "@word", "key SPC", "key LEFT", "key LEFT", "key LEFT", "key BS",
        "key BS", "@2", "key END", "key C-_", "key RET", "key UP",
        "key HOME", "key DEL", "key RIGHT", "key DOWN", "key END" };
  const size_t ncycle = sizeof cycle / sizeof cycle[0];
  unsigned left = p->keys, k = 0;
  sb_printf (b,
             "# editing: %u keystrokes of typing, cursor motion, deletion and\n"
             "# undo (C-_), at %u wpm; keys 150 ms apart\nset wpm %u\nset gap 150ms\n",
             p->keys, p->wpm, p->wpm);
  for (size_t c = 0; left > 0; c = (c + 1) % ncycle)
    {
      const char *a = cycle[c];
      if (strcmp (a, "@word") == 0 || strcmp (a, "@2") == 0)
        {
          const char *w = strcmp (a, "@2") == 0
                            ? "xy"
                            : edit_words[k++ % (sizeof edit_words / sizeof edit_words[0])];
          size_t n = strlen (w);
          if (n > left)
            n = left;
          sb_printf (b, "type \"%.*s\"\n", (int)n, w);
          left -= (unsigned)n;
        }
      else
        {
          sb_printf (b, "%s\n", a);
          left--;
        }
    }
}

static void resize (struct sb *b, const struct replay_workload_params *p)
{
  static const int dr[] = { -4, 6, 0, -8, 2, 0 };
  static const int dc[] = { -10, 20, 0, -30, 8, 0 };
  sb_printf (b, "# resize: %u window size changes around %ux%u, 500 ms apart\n"
                "set gap 500ms\n",
             p->keys, p->rows, p->cols);
  for (unsigned i = 0; i < p->keys; i++)
    {
      int r = (int)p->rows + dr[i % 6], c = (int)p->cols + dc[i % 6];
      if (dr[i % 6] == 0 && dc[i % 6] == 0)
        r -= 1 + (int)(i % 3); /* never a no-op: the size must change */
      if (r < 5)
        r = 5;
      if (c < 20)
        c = 20;
      sb_printf (b, "resize %dx%d\n", r, c);
    }
}

char *replay_workload_script (const char *name,
                              const struct replay_workload_params *p)
{
  struct sb b = { 0 };
  if (strcmp (name, "typing") == 0)
    typing (&b, p);
  else if (strcmp (name, "paging") == 0)
    sb_printf (&b,
               "# paging: %u page-downs, 200 ms apart (open a large file, e.g.\n"
               "# emlat replay --make-file FILE --lines 100000)\n"
               "set gap 200ms\nkey PGDN*%u\n",
               p->keys, p->keys);
  else if (strcmp (name, "editing") == 0)
    editing (&b, p);
  else if (strcmp (name, "resize") == 0)
    resize (&b, p);
  else
    return NULL;
  if (b.oom)
    {
      free (b.p);
      return NULL;
    }
  return b.p;
}

int replay_make_file (const char *path, uint64_t lines)
{
  static const char *const words[]
    = { "amber", "basin", "cedar", "dune",  "ember", "fjord", "grove",
        "heath", "inlet", "jetty", "knoll", "loch",  "marsh", "nook",
        "oasis", "prairie", "quarry", "ridge", "shoal", "tundra" };
  int fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0)
    return -errno;
  FILE *f = fdopen (fd, "w");
  if (!f)
    {
      int e = errno;
      close (fd);
      return -e;
    }
  uint64_t x = 0x9E3779B97F4A7C15ull; /* fixed seed: the file is reproducible */
  for (uint64_t i = 1; i <= lines; i++)
    {
      fprintf (f, "%08llu", (unsigned long long)i);
      unsigned n = 6 + (unsigned)(x % 8);
      for (unsigned w = 0; w < n; w++)
        {
          x ^= x << 13;
          x ^= x >> 7;
          x ^= x << 17;
          fprintf (f, " %s", words[x % (sizeof words / sizeof words[0])]);
        }
      fputc ('\n', f);
    }
  int e = ferror (f) ? EIO : 0;
  if (fclose (f) && !e)
    e = errno;
  return -e;
}
