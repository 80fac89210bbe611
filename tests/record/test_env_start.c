/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_env_start.c -- activation by the environment (DESIGN.md section
 * 11.4, emlat_start_from_env and EMLAT_AUTOSTART in emlat.h), each case in
 * a fresh child process with its own HOME and XDG_STATE_HOME:
 *
 *   EMLAT_TRACE   traces   creates
 *   (absent)      no       nothing: no file, no directory, no thread
 *   ""            no       nothing
 *   0             no       nothing
 *   false         no       nothing
 *   TRUE          no       nothing
 *   yes           no       nothing
 *   " 1"          no       nothing
 *   1             yes      $XDG_STATE_HOME/emlat/emlat-*.emlat
 *   true          yes      the same
 *
 * and, with tracing on: EMLAT_FILE is that exact file (-EEXIST when it
 * exists), EMLAT_DIR a new file in that directory, no XDG_STATE_HOME the
 * default ~/.local/state/emlat; the run's identity (process.pid,
 * process.build_id, process.executable) is the library's whatever the
 * caller's metadata says; a program built with EMLAT_AUTOSTART traces from
 * its constructor and its profile is complete at exit.
 *
 * EMLAT_FILE made empty by the parent that EMLAT_FINISH=reader:PID names
 * (as `emlat record` does) is written into; a file with bytes, a symlink,
 * a directory, a FIFO, or an empty file without that word, is refused.
 *
 * EMLAT_FINISH (emlat_finish_requested): "reader" defers in any process;
 * "reader:PID" only in a child of PID (not in a grandchild: a program
 * under a wrapper finishes its own profile); any other value, a malformed
 * or overflowing PID included, does not.  emlat_drain_requested: only
 * "drain:PID" in a child of PID, and only without EMLAT_FILE.
 *
 * EMLAT_MACHINE (src/common/machine.h) under EMLAT_FINISH=drain:PARENT:
 * SESSION's cpu.model and cpu.count and the clock's choice are the
 * driver's; a malformed value, or reader:PID, leaves them to the program.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/machine.h"
#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"
#include "tap.h"
#include "testutil.h"

/* Entries of DIR (0 when it does not exist), recursively. */
static int
count_entries (const char *dir)
{
  DIR *d = opendir (dir);
  if (!d)
    return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir (d)))
    {
      if (!strcmp (e->d_name, ".") || !strcmp (e->d_name, ".."))
        continue;
      n++;
      char *sub = tu_strf ("%s/%s", dir, e->d_name);
      n += count_entries (sub);
      free (sub);
    }
  closedir (d);
  return n;
}

/* Threads of this process: the entries of /proc/self/task (not
   recursively: a task directory links back to the process). */
static int
threads_now (void)
{
  DIR *d = opendir ("/proc/self/task");
  int n = 0;
  struct dirent *e;
  while (d && (e = readdir (d)))
    n += e->d_name[0] != '.';
  if (d)
    closedir (d);
  return n;
}

/* Run emlat_start_from_env in a child with EMLAT_TRACE = VALUE (NULL:
   unset), HOME and XDG_STATE_HOME under ROOT; the child exits with
   100 + the return value (or 99 when a thread was left behind while off),
   after stopping the session. */
static int
child_start (const char *root, const char *value, const char *file, const char *dir, int xdg)
{
  pid_t pid = fork ();
  if (pid == 0)
    {
      char *home = tu_strf ("%s/home", root), *state = tu_strf ("%s/state", root);
      setenv ("HOME", home, 1);
      if (xdg)
        setenv ("XDG_STATE_HOME", state, 1);
      else
        unsetenv ("XDG_STATE_HOME");
      if (value)
        setenv ("EMLAT_TRACE", value, 1);
      else
        unsetenv ("EMLAT_TRACE");
      if (file)
        setenv ("EMLAT_FILE", file, 1);
      else
        unsetenv ("EMLAT_FILE");
      if (dir)
        setenv ("EMLAT_DIR", dir, 1);
      else
        unsetenv ("EMLAT_DIR");
      int before = threads_now ();
      static const char mine[] = "42";
      struct emlat_meta meta[] = {
        { .key = "process.pid", .type = EMLAT_META_STR, .s = mine, .s_len = 2 },
        { .key = "process.build_id", .type = EMLAT_META_STR, .s = mine, .s_len = 2 },
        { .key = "app.version", .type = EMLAT_META_STR, .s = mine, .s_len = 2 },
      };
      struct emlat_options base = { .meta = meta, .n_meta = 3, .path = "/nonexistent/x" };
      int rc = emlat_start_from_env (&base);
      if (rc == 0 && threads_now () != before)
        _exit (99);
      if (rc == 1)
        {
          uint64_t s = EMLAT_SECTION_BEGIN ("env");
          emlat_section_end (s);
          struct emlat_status st;
          emlat_status (&st);
          if (st.meta_rejected != 2)
            _exit (98);
          emlat_stop ();
        }
      _exit (100 + rc);
    }
  int status = 0;
  waitpid (pid, &status, 0);
  return WIFEXITED (status) ? WEXITSTATUS (status) - 100 : -1000;
}

/* The one profile under DIR (a path to free), or NULL. */
static char *
only_profile (const char *dir)
{
  DIR *d = opendir (dir);
  char *found = NULL;
  int n = 0;
  struct dirent *e;
  while (d && (e = readdir (d)))
    if (strstr (e->d_name, ".emlat") && !strstr (e->d_name, "-ring"))
      {
        n++;
        free (found);
        found = tu_strf ("%s/%s", dir, e->d_name);
      }
  if (d)
    closedir (d);
  if (n != 1)
    {
      free (found);
      return NULL;
    }
  return found;
}

/* The profile PATH has the library's identity and one "env" section. */
static void
check_profile (const char *what, const char *path)
{
  const char *paths[] = { path };
  struct emlat_profile *p = NULL;
  CHECK (path && emlat_profile_load (paths, 1, NULL, 0, &p) == 0 && p, "%s: profile loads", what);
  if (!p)
    return;
  size_t n;
  const struct emlat_kv *kv = emlat_profile_session (p, &n);
  const struct emlat_kv *pid = emlat_kv_find (kv, n, "process.pid");
  const struct emlat_kv *bid = emlat_kv_find (kv, n, "process.build_id");
  const struct emlat_kv *exe = emlat_kv_find (kv, n, "process.executable");
  const struct emlat_kv *app = emlat_kv_find (kv, n, "app.version");
  CHECK (pid && pid->type == 0 && pid->u > 1, "%s: process.pid is the library's", what);
  CHECK (bid && bid->type == 2 && bid->s_len == 40, "%s: process.build_id (40 hex digits)", what);
  CHECK (exe && exe->type == 2 && exe->s_len == strlen ("test_env_start")
           && !memcmp (exe->s, "test_env_start", exe->s_len),
         "%s: process.executable", what);
  CHECK (app && app->type == 2, "%s: the caller's own key is kept", what);
  emlat_profile_named_spans (p, &n);
  CHECK (n == 1, "%s: the section was recorded (%zu)", what, n);
  emlat_profile_free (p);
}

static void
test_values (const char *tmp)
{
  static const char *const off[] = { NULL, "", "0", "false", "TRUE", "yes", " 1", "1 ", "on" };
  for (size_t i = 0; i < sizeof off / sizeof off[0]; i++)
    {
      char *root = tu_strf ("%s/off-%zu", tmp, i);
      mkdir (root, 0700);
      int rc = child_start (root, off[i], NULL, NULL, 1);
      CHECK (rc == 0, "EMLAT_TRACE=%s%s%s: off (%d)", off[i] ? "\"" : "(unset", off[i] ? off[i] : ")",
             off[i] ? "\"" : "", rc);
      CHECK (count_entries (root) == 0, "EMLAT_TRACE=%s: nothing created (%d entries)",
             off[i] ? off[i] : "(unset)", count_entries (root));
      free (root);
    }
  static const char *const on[] = { "1", "true" };
  for (size_t i = 0; i < 2; i++)
    {
      char *root = tu_strf ("%s/on-%zu", tmp, i);
      mkdir (root, 0700);
      int rc = child_start (root, on[i], NULL, NULL, 1);
      CHECK (rc == 1, "EMLAT_TRACE=%s: traces (%d)", on[i], rc);
      char *dir = tu_strf ("%s/state/emlat", root);
      struct stat st;
      CHECK (stat (dir, &st) == 0 && (st.st_mode & 0777) == 0700,
             "EMLAT_TRACE=%s: $XDG_STATE_HOME/emlat made with mode 0700", on[i]);
      char *prof = only_profile (dir);
      check_profile (on[i], prof);
      free (prof);
      free (dir);
      free (root);
    }
}

static void
test_places (const char *tmp)
{
  char *root = tu_strf ("%s/places", tmp);
  mkdir (root, 0700);
  /* EMLAT_FILE: that file; a second run finds it there. */
  char *file = tu_strf ("%s/exact.emlat", root);
  CHECK_EQ_I64 (child_start (root, "1", file, NULL, 1), 1);
  check_profile ("EMLAT_FILE", file);
  CHECK_EQ_I64 (child_start (root, "1", file, NULL, 1), -EEXIST);
  /* EMLAT_DIR: a new file there (created when missing). */
  char *dir = tu_strf ("%s/given/dir", root);
  CHECK_EQ_I64 (child_start (root, "1", NULL, dir, 1), 1);
  char *prof = only_profile (dir);
  check_profile ("EMLAT_DIR", prof);
  free (prof);
  /* No XDG_STATE_HOME: ~/.local/state/emlat. */
  CHECK_EQ_I64 (child_start (root, "1", NULL, NULL, 0), 1);
  char *def = tu_strf ("%s/home/.local/state/emlat", root);
  prof = only_profile (def);
  check_profile ("default", prof);
  free (prof);
  free (def);
  free (dir);
  free (file);
  free (root);
}

/* FILE is a finished profile (its final STATS written) with SPANS named
   spans; WHAT names the case. */
static void
check_finished (const char *file, size_t spans, const char *what)
{
  const char *paths[] = { file };
  struct emlat_profile *p = NULL;
  CHECK_OK (emlat_profile_load (paths, 1, NULL, EMLAT_LOAD_NO_RECOVER, &p));
  if (p)
    {
      CHECK (emlat_profile_totals (p)->clean_stop, "%s: finished (final STATS)", what);
      size_t n;
      emlat_profile_named_spans (p, &n);
      CHECK (n == spans, "%s: %zu named spans (want %zu)", what, n, spans);
      emlat_profile_free (p);
    }
}

/* EMLAT_AUTOSTART: tests/progs/autostart traces from its constructor
   when EMLAT_TRACE says so and finishes its profile at exit. */
static void
test_autostart (const char *tmp)
{
  char *prog = tu_build_path ("tests/progs/autostart");
  char *file = tu_strf ("%s/auto.emlat", tmp);
  for (int on = 0; on < 2; on++)
    {
      pid_t pid = fork ();
      if (pid == 0)
        {
          setenv ("EMLAT_FILE", file, 1);
          if (on)
            setenv ("EMLAT_TRACE", "true", 1);
          else
            unsetenv ("EMLAT_TRACE");
          execl (prog, prog, (char *)NULL);
          _exit (127);
        }
      int status = 0;
      waitpid (pid, &status, 0);
      CHECK (WIFEXITED (status) && WEXITSTATUS (status) == (on ? 1 : 0),
             "autostart program exits %d (traced: %d)", WEXITSTATUS (status), on);
      struct stat st;
      CHECK ((stat (file, &st) == 0) == on, "autostart: a profile exactly when on (%d)", on);
    }
  check_finished (file, 3, "autostart");
  free (file);
  free (prog);
}

/* emlat_start_from_env in a child with EMLAT_TRACE=1, EMLAT_FILE=FILE and
   EMLAT_FINISH=FINISH (unset for NULL): 100 + its return value; a session
   records one section and stops. */
static int
child_adopt (const char *file, const char *finish)
{
  pid_t pid = fork ();
  if (pid == 0)
    {
      setenv ("EMLAT_TRACE", "1", 1);
      setenv ("EMLAT_FILE", file, 1);
      unsetenv ("EMLAT_DIR");
      if (finish)
        setenv ("EMLAT_FINISH", finish, 1);
      else
        unsetenv ("EMLAT_FINISH");
      int rc = emlat_start_from_env (NULL);
      if (rc == 1)
        {
          uint64_t s = EMLAT_SECTION_BEGIN ("adopted");
          emlat_section_end (s);
          emlat_stop ();
        }
      _exit (100 + rc);
    }
  int status = 0;
  waitpid (pid, &status, 0);
  return WIFEXITED (status) ? WEXITSTATUS (status) - 100 : -1000;
}

static long long
file_size (const char *path)
{
  struct stat st;
  return lstat (path, &st) == 0 ? (long long)st.st_size : -1;
}

/* EMLAT_FILE created empty by the parent named in EMLAT_FINISH (what
   `emlat record` and `emlat replay --interpose` do): the child writes
   into it; any other file, or another EMLAT_FINISH, is refused. */
static void
test_adopt (const char *tmp)
{
  char *root = tu_strf ("%s/adopt", tmp);
  mkdir (root, 0700);
  char *mine = tu_strf ("reader:%ld", (long)getpid ());
  char *file = tu_strf ("%s/made-by-parent.emlat", root);
  tu_write_file (file, "", 0);
  CHECK_EQ_I64 (child_adopt (file, mine), 1);
  struct emlat_recovery rec;
  CHECK_OK (emlat_recover (file, &rec));
  check_finished (file, 1, "adopted");
  /* The same file, now a profile: refused, untouched. */
  long long full = file_size (file);
  CHECK_EQ_I64 (child_adopt (file, mine), -EEXIST);
  CHECK_EQ_I64 (file_size (file), full);
  /* An empty file nobody said was made for us: refused. */
  char *empty = tu_strf ("%s/empty.emlat", root);
  tu_write_file (empty, "", 0);
  CHECK_EQ_I64 (child_adopt (empty, NULL), -EEXIST);
  CHECK_EQ_I64 (child_adopt (empty, "reader"), -EEXIST);
  char *other = tu_strf ("reader:%ld", (long)getpid () + 1);
  CHECK_EQ_I64 (child_adopt (empty, other), -EEXIST);
  CHECK_EQ_I64 (file_size (empty), 0);
  /* A file with bytes, a symlink to an empty file, a directory, a FIFO
     (never waited on): refused, with the parent's word or without. */
  char *bytes = tu_strf ("%s/bytes.emlat", root);
  tu_write_file (bytes, "keep", 4);
  CHECK_EQ_I64 (child_adopt (bytes, mine), -EEXIST);
  CHECK_EQ_I64 (file_size (bytes), 4);
  char *link = tu_strf ("%s/link.emlat", root);
  CHECK_EQ_I64 (symlink (empty, link), 0);
  CHECK_EQ_I64 (child_adopt (link, mine), -ELOOP);
  CHECK_EQ_I64 (file_size (empty), 0);
  char *sub = tu_strf ("%s/dir.emlat", root);
  CHECK_EQ_I64 (mkdir (sub, 0700), 0);
  CHECK (child_adopt (sub, mine) < 0, "a directory is not adopted");
  char *fifo = tu_strf ("%s/fifo.emlat", root);
  CHECK_EQ_I64 (mkfifo (fifo, 0600), 0);
  CHECK (child_adopt (fifo, mine) < 0, "a FIFO is not adopted");
  free (fifo);
  free (sub);
  free (link);
  free (bytes);
  free (other);
  free (empty);
  free (file);
  free (mine);
  free (root);
}

/* ASK () (emlat_finish_requested or emlat_drain_requested) in a child
   (GRANDCHILD: in a child of a child) whose environment has
   EMLAT_FINISH=VALUE and EMLAT_FILE=FILE (each unset for NULL). */
static int
asked_in_child (int (*ask) (void), const char *value, const char *file, int grandchild)
{
  pid_t pid = fork ();
  if (pid == 0)
    {
      if (value)
        setenv ("EMLAT_FINISH", value, 1);
      else
        unsetenv ("EMLAT_FINISH");
      if (file)
        setenv ("EMLAT_FILE", file, 1);
      else
        unsetenv ("EMLAT_FILE");
      if (grandchild)
        {
          pid_t g = fork ();
          if (g < 0)
            _exit (9);
          if (g == 0)
            _exit (ask ());
          int st = 0;
          waitpid (g, &st, 0);
          _exit (WIFEXITED (st) ? WEXITSTATUS (st) : 9);
        }
      _exit (ask ());
    }
  int status = 0;
  waitpid (pid, &status, 0);
  return WIFEXITED (status) ? WEXITSTATUS (status) : 9;
}

static int
finish_requested_in_child (const char *value, int grandchild)
{
  return asked_in_child (emlat_finish_requested, value, NULL, grandchild);
}

static void
test_finish (void)
{
  long self = (long)getpid ();
  char *mine = tu_strf ("reader:%ld", self);
  char *other = tu_strf ("reader:%ld", self + 1);
  char *zero = tu_strf ("reader:0%ld", self);
  char *trail = tu_strf ("reader:%ldx", self);
  char *space = tu_strf ("reader: %ld", self);
  char *huge = tu_strf ("reader:%ld00000000000000000000", self);
  char *wrap = tu_strf ("reader:%lld", (long long)self + 4294967296ll);
  const struct { const char *value; int want; } cases[] = {
    { NULL, 0 }, { "", 0 }, { "reader", 1 }, { "Reader", 0 }, { "readers", 0 },
    { "reader:", 0 }, { "reader:1", 0 }, { "never", 0 }, { mine, 1 }, { other, 0 },
    { zero, 0 }, { trail, 0 }, { space, 0 }, { huge, 0 }, { wrap, 0 },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      int got = finish_requested_in_child (cases[i].value, 0);
      CHECK (got == cases[i].want, "EMLAT_FINISH=%s: finish requested %d (want %d)",
             cases[i].value ? cases[i].value : "(unset)", got, cases[i].want);
    }
  /* A grandchild of the process named: a program under a wrapper. */
  CHECK (finish_requested_in_child (mine, 1) == 0,
         "EMLAT_FINISH=%s in a grandchild: not requested", mine);
  CHECK (finish_requested_in_child ("reader", 1) == 1,
         "EMLAT_FINISH=reader in a grandchild: requested");
  free (wrap);
  free (huge);
  free (space);
  free (trail);
  free (zero);
  free (other);
  free (mine);
}

static int
drain_requested_in_child (const char *value, const char *file, int grandchild)
{
  return asked_in_child (emlat_drain_requested, value, file, grandchild);
}

/* emlat_drain_requested: only drain:PID naming the parent, and only when
   the parent did not name the profile (EMLAT_FILE: the parent drains the
   session writing it, not the caller's own). */
static void
test_drain_requested (void)
{
  long self = (long)getpid ();
  char *drain = tu_strf ("drain:%ld", self);
  char *reader = tu_strf ("reader:%ld", self);
  char *other = tu_strf ("drain:%ld", self + 1);
  const struct { const char *value, *file; int want; } cases[] = {
    { drain, NULL, 1 }, { drain, "", 1 }, { drain, "/tmp/x.emlat", 0 }, { reader, NULL, 0 },
    { other, NULL, 0 }, { "drain", NULL, 0 }, { "reader", NULL, 0 }, { "", NULL, 0 },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      int got = drain_requested_in_child (cases[i].value, cases[i].file, 0);
      CHECK (got == cases[i].want, "EMLAT_FINISH=%s EMLAT_FILE=%s: drain requested %d (want %d)",
             cases[i].value, cases[i].file ? cases[i].file : "(unset)", got, cases[i].want);
    }
  CHECK (drain_requested_in_child (drain, NULL, 1) == 0,
         "EMLAT_FINISH=%s in a grandchild: no drain", drain);
  free (other);
  free (reader);
  free (drain);
}

/* tests/progs/autostart as `emlat record` runs a program: EMLAT_FILE
   made empty here, EMLAT_FINISH=FINISH and EMLAT_MACHINE=MACHINE (unset
   for NULL); its profile finished here.  Its SESSION's cpu.model (into
   MODEL, "" when absent), cpu.count (0 when absent) and whether
   clock.via says "tsc". */
static void
machine_run (const char *tmp, const char *finish, const char *machine, char *model,
             size_t cap, uint64_t *cpus, int *via_tsc)
{
  static unsigned n;
  char *prog = tu_build_path ("tests/progs/autostart");
  char *file = tu_strf ("%s/machine-%u.emlat", tmp, n++);
  tu_write_file (file, "", 0);
  pid_t pid = fork ();
  if (pid == 0)
    {
      setenv ("EMLAT_TRACE", "1", 1);
      setenv ("EMLAT_FILE", file, 1);
      setenv ("EMLAT_FINISH", finish, 1);
      if (machine)
        setenv ("EMLAT_MACHINE", machine, 1);
      else
        unsetenv ("EMLAT_MACHINE");
      unsetenv ("EMLAT_CLOCK_VIA");
      execl (prog, prog, (char *)NULL);
      _exit (127);
    }
  int status = 0;
  waitpid (pid, &status, 0);
  CHECK (WIFEXITED (status) && WEXITSTATUS (status) == 1, "machine: the program traced (%d)",
         status);
  struct emlat_recovery rec;
  CHECK_OK (emlat_recover (file, &rec));
  model[0] = 0;
  *cpus = 0;
  *via_tsc = -1;
  const char *paths[] = { file };
  struct emlat_profile *p = NULL;
  CHECK_OK (emlat_profile_load (paths, 1, NULL, EMLAT_LOAD_NO_RECOVER, &p));
  if (p)
    {
      size_t nkv;
      const struct emlat_kv *kv = emlat_profile_session (p, &nkv);
      const struct emlat_kv *m = emlat_kv_find (kv, nkv, "cpu.model");
      if (m && m->s_len < cap)
        {
          memcpy (model, m->s, m->s_len);
          model[m->s_len] = 0;
        }
      const struct emlat_kv *c = emlat_kv_find (kv, nkv, "cpu.count");
      if (c)
        *cpus = c->u;
      const struct emlat_kv *v = emlat_kv_find (kv, nkv, "clock.via");
      if (v)
        *via_tsc = v->s_len == 3 && memcmp (v->s, "tsc", 3) == 0;
      emlat_profile_free (p);
    }
  free (file);
  free (prog);
}

/* EMLAT_MACHINE: under a driver that drains (EMLAT_FINISH=drain:PARENT)
   the program takes the machine's facts from it -- SESSION's CPU model
   and count, and the clock's choice -- instead of reading them; a value
   that is not exactly the grammar of src/common/machine.h, or any other
   EMLAT_FINISH, leaves it to read them itself. */
static void
test_machine (const char *tmp)
{
  struct emlat_machine here;
  emlat_machine_read (&here);
  char *drain = tu_strf ("drain:%ld", (long)getpid ());
  char *reader = tu_strf ("reader:%ld", (long)getpid ());
  char model[EMLAT_MACHINE_MODEL_MAX + 1];
  uint64_t cpus;
  int via_tsc;

  /* Handed down: used as given, and tsc=0 keeps the clock off the
     counter even on a machine whose kernel keeps time with it. */
  machine_run (tmp, drain, "tsc=0;cpus=77;model=Handed Down CPU (R) @ 1.00GHz", model,
               sizeof model, &cpus, &via_tsc);
  CHECK (strcmp (model, "Handed Down CPU (R) @ 1.00GHz") == 0, "the driver's model: '%s'", model);
  CHECK_EQ_I64 ((long long)cpus, 77);
  CHECK_EQ_I64 (via_tsc, 0);
  /* An empty model: no cpu.model entry, as when none is known. */
  machine_run (tmp, drain, "tsc=0;cpus=3;model=", model, sizeof model, &cpus, &via_tsc);
  CHECK (model[0] == 0, "an empty model is no entry: '%s'", model);
  CHECK_EQ_I64 ((long long)cpus, 3);

  /* Refused values, and the right value without a draining parent: the
     program reads the facts itself. */
  const char *bad[] = {
    "tsc=0;cpus=77;model=Bad\tCPU", /* a control character */
    "tsc=2;cpus=77;model=x",          /* tsc is 0 or 1 */
    "tsc=0;cpus=0;model=x",           /* at least one CPU */
    "tsc=0;cpus=077;model=x",         /* no leading zero */
    "tsc=0;cpus=1048577;model=x",     /* too many */
    "tsc=0;cpus=77;model",            /* no '=' */
    "tsc=0;model=x;cpus=77",          /* out of order */
    " tsc=0;cpus=77;model=x",         /* anything before */
    "",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      machine_run (tmp, drain, bad[i], model, sizeof model, &cpus, &via_tsc);
      CHECK (strcmp (model, here.model) == 0, "'%s' refused: model '%s'", bad[i], model);
      CHECK ((long)cpus == here.cpus, "'%s' refused: %llu CPUs", bad[i],
             (unsigned long long)cpus);
    }
  char long_model[EMLAT_MACHINE_MODEL_MAX + 64];
  int k = snprintf (long_model, sizeof long_model, "tsc=0;cpus=5;model=");
  memset (long_model + k, 'M', EMLAT_MACHINE_MODEL_MAX + 1);
  long_model[k + EMLAT_MACHINE_MODEL_MAX + 1] = 0;
  machine_run (tmp, drain, long_model, model, sizeof model, &cpus, &via_tsc);
  CHECK ((long)cpus == here.cpus, "a model of 256 bytes refused");
  long_model[k + EMLAT_MACHINE_MODEL_MAX] = 0; /* 255: taken */
  machine_run (tmp, drain, long_model, model, sizeof model, &cpus, &via_tsc);
  CHECK_EQ_I64 ((long long)cpus, 5);
  CHECK_EQ_I64 ((long long)strlen (model), EMLAT_MACHINE_MODEL_MAX);
  machine_run (tmp, reader, "tsc=0;cpus=77;model=Not A Driver", model, sizeof model, &cpus,
               &via_tsc);
  CHECK (strcmp (model, here.model) == 0 && (long)cpus == here.cpus,
         "reader:PID hands down nothing: '%s', %llu", model, (unsigned long long)cpus);
  machine_run (tmp, drain, NULL, model, sizeof model, &cpus, &via_tsc);
  CHECK (strcmp (model, here.model) == 0 && (long)cpus == here.cpus,
         "without EMLAT_MACHINE: read here ('%s', %llu)", model, (unsigned long long)cpus);
  /* The value the drivers write reads back as the same facts. */
  char v[EMLAT_MACHINE_VALUE_MAX];
  struct emlat_machine back;
  CHECK (emlat_machine_format (&here, v, sizeof v) > 0, "the facts format");
  CHECK_OK (emlat_machine_parse (v, &back));
  CHECK (back.kernel_tsc == here.kernel_tsc && back.cpus == here.cpus
           && strcmp (back.model, here.model) == 0,
         "'%s' reads back", v);
  machine_run (tmp, drain, v, model, sizeof model, &cpus, &via_tsc);
  CHECK (strcmp (model, here.model) == 0 && (long)cpus == here.cpus,
         "the driver's own reading: '%s'", model);
  free (reader);
  free (drain);
}

int
main (void)
{
  const char *tmp = tu_tmpdir ();
  if (!tmp)
    return 1;
  test_drain_requested ();
  test_values (tmp);
  test_places (tmp);
  test_autostart (tmp);
  test_adopt (tmp);
  test_finish ();
  test_machine (tmp);
  TEST_DONE ();
}
