/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_tty_process.c -- the process-level rules of libemlat-tty.so:
 *  - activation (DESIGN.md section 11.4): only EMLAT_TRACE = "1" or "true" records;
 *    "0", "", "TRUE", "yes", " 1" create no file and no directory;
 *  - the default file goes to $XDG_STATE_HOME/emlat/ (mode 0700);
 *  - exec'd children run untraced: LD_PRELOAD no longer names the library,
 *    unless EMLAT_TRACE_CHILDREN=1;
 *  - a fork child neither records into nor stops the parent's session: the
 *    profile ends cleanly and holds only the parent's bytes;
 *  - traced calls preserve errno (success, EAGAIN, EINTR, stdio);
 *  - SESSION metadata names the program and the terminal, never a path;
 *  - calls made before the library's constructor ran (another preloaded
 *    library's constructor: tests/preload/early_calls.c) reach the real
 *    functions through the stand-ins of tty_real.c, and the session that
 *    starts afterwards records as usual.
 */
#include "profile_view.h"
#include "pty_harness.h"

#include <dirent.h>
#include <sys/stat.h>

static int
run_probe (char *const *env, const char *mode, char *out, size_t n)
{
  char *probe = ph_build_abs ("tests/progs/tty_probe");
  char *argv[] = { probe, (char *)mode, NULL };
  struct ph_child c;
  int rc = -1;
  if (ph_spawn (&c, argv, env) == 0)
    rc = ph_finish (&c, 10000);
  if (out && n > 0)
    {
      size_t k = c.out_len < n - 1 ? c.out_len : n - 1;
      memcpy (out, c.out, k);
      out[k] = '\0';
    }
  free (probe);
  return rc;
}

static int
dir_entries (const char *path)
{
  DIR *d = opendir (path);
  if (!d)
    return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir (d)))
    if (e->d_name[0] != '.')
      n++;
  closedir (d);
  return n;
}

static void
test_activation (void)
{
  const char *dir = tu_tmpdir ();
  char *so = ph_build_abs ("libemlat-tty.so");
  char *lib = tu_strf ("LD_PRELOAD=%s", so);
  char *xdg = tu_strf ("XDG_STATE_HOME=%s/state", dir);
  char *state = tu_strf ("%s/state", dir);
  const char *off[] = { "EMLAT_TRACE=0", "EMLAT_TRACE=", "EMLAT_TRACE=TRUE",
                        "EMLAT_TRACE=yes", "EMLAT_TRACE= 1", "EMLAT_TRACE=1 " };
  for (size_t i = 0; i < sizeof off / sizeof off[0]; i++)
    {
      char *env[] = { lib, (char *)off[i], xdg, NULL };
      CHECK_EQ_I64 (run_probe (env, "ticks", NULL, 0), 0);
      struct stat st;
      CHECK (stat (state, &st) != 0, "%s created %s", off[i], state);
    }
  /* Off without the library's variable at all. */
  {
    char *env[] = { lib, xdg, NULL };
    CHECK_EQ_I64 (run_probe (env, "ticks", NULL, 0), 0);
    struct stat st;
    CHECK (stat (state, &st) != 0, "no EMLAT_TRACE created %s", state);
  }
  /* "true" records into the default directory, made with mode 0700. */
  {
    char *env[] = { lib, (char *)"EMLAT_TRACE=true", xdg, NULL };
    CHECK_EQ_I64 (run_probe (env, "ticks", NULL, 0), 0);
    char *em = tu_strf ("%s/emlat", state);
    struct stat st;
    CHECK (stat (em, &st) == 0 && (st.st_mode & 0777) == 0700,
           "%s exists with mode 0700", em);
    CHECK_EQ_I64 (dir_entries (em), 1);
    free (em);
  }
  free (so);
  free (lib);
  free (xdg);
  free (state);
}

static void
test_children (void)
{
  const char *dir = tu_tmpdir ();
  char out[4096];
  char *file = tu_strf ("%s/env.emlat", dir);
  CHECK_EQ_I64 (run_probe (ph_trace_env (file, NULL), "env", out, sizeof out), 0);
  CHECK_CONTAINS (out, "PRELOAD=-;");
  char *file2 = tu_strf ("%s/env2.emlat", dir);
  CHECK_EQ_I64 (run_probe (ph_trace_env (file2, "EMLAT_TRACE_CHILDREN=1"),
                           "env", out, sizeof out),
                0);
  CHECK_CONTAINS (out, "libemlat-tty.so;");
  free (file);
  free (file2);
}

static void
test_fork (void)
{
  char *file = tu_strf ("%s/fork.emlat", tu_tmpdir ());
  char out[4096];
  CHECK_EQ_I64 (run_probe (ph_trace_env (file, NULL), "fork", out, sizeof out), 0);
  CHECK_CONTAINS (out, "child");
  CHECK_CONTAINS (out, "parent");
  struct pv v;
  if (pv_load (&v, file) != 0)
    return;
  pv_print (&v);
  CHECK (emlat_profile_totals (v.p)->clean_stop, "stopped cleanly");
  uint64_t total = 0;
  for (size_t i = 0; i < v.n_ix; i++)
    {
      uint64_t b;
      if (pv_counter (&v, &v.ix[i], EMLAT_C_TTY_BYTES, &b))
        total += b;
    }
  CHECK_EQ_U64 (total, strlen ("parent\r\n"));
  const struct emlat_kv *kv = pv_session (&v, "process.pid");
  CHECK (kv != NULL, "process.pid present");
  pv_free (&v);
  free (file);
}

static void
test_errno_and_meta (void)
{
  char *file = tu_strf ("%s/errno.emlat", tu_tmpdir ());
  char out[4096];
  CHECK_EQ_I64 (run_probe (ph_trace_env (file, NULL), "errno", out, sizeof out), 0);
  CHECK_CONTAINS (out, "ERRNO OK");
  struct pv v;
  if (pv_load (&v, file) != 0)
    return;
  const struct emlat_kv *kv = pv_session (&v, "program.name");
  CHECK (kv && kv->s_len == 9 && memcmp (kv->s, "tty_probe", 9) == 0,
         "program.name is the base name");
  kv = pv_session (&v, "tty.stdin");
  CHECK (kv && kv->s_len == 3 && memcmp (kv->s, "pty", 3) == 0,
         "stdin is a pty");
  kv = pv_session (&v, "tty.rows");
  CHECK (kv && kv->u == 24, "rows");
  kv = pv_session (&v, "tty.cols");
  CHECK (kv && kv->u == 80, "cols");
  kv = pv_session (&v, "tty.term");
  CHECK (kv && kv->s_len == 5 && memcmp (kv->s, "xterm", 5) == 0, "TERM");
  /* No path of any kind in the file: not the terminal's, not the
     program's, not the profile's. */
  uint8_t *buf;
  size_t len;
  CHECK_OK (tu_read_file (file, &buf, &len));
  CHECK (!memmem (buf, len, "/dev/", 5), "no device path");
  CHECK (!memmem (buf, len, "tests/progs", 11), "no program path");
  CHECK (!memmem (buf, len, tu_tmpdir (), strlen (tu_tmpdir ())),
         "no profile path");
  free (buf);
  pv_free (&v);
  free (file);
}

/* The text of the file in DIR whose name begins with PREFIX ("" when
   there is none). */
static char *
read_prefixed (const char *dir, const char *prefix)
{
  DIR *d = opendir (dir);
  char *text = NULL;
  struct dirent *e;
  while (d && !text && (e = readdir (d)))
    if (strncmp (e->d_name, prefix, strlen (prefix)) == 0)
      {
        char *path = tu_strf ("%s/%s", dir, e->d_name);
        uint8_t *buf;
        size_t len;
        if (tu_read_file (path, &buf, &len) == 0)
          {
            text = tu_strf ("%.*s", (int)len, (const char *)buf);
            free (buf);
          }
        free (path);
      }
  if (d)
    closedir (d);
  return text ? text : tu_strf ("%s", "");
}

static void
test_early_calls (void)
{
  char *dir = tu_strf ("%s/early", tu_tmpdir ());
  CHECK (mkdir (dir, 0700) == 0, "mkdir %s", dir);
  char *file = tu_strf ("%s/early.emlat", dir);
  char *so = ph_build_abs ("libemlat-tty.so");
  char *early = ph_build_abs ("tests/preload/libearly_calls.so");
  char *preload = tu_strf ("LD_PRELOAD=%s %s", so, early);
  char *fentry = tu_strf ("EMLAT_FILE=%s", file);
  char *ldout = tu_strf ("LD_DEBUG_OUTPUT=%s/ld", dir);
  char *env[] = { preload, (char *)"EMLAT_TRACE=1", fentry, (char *)"TERM=xterm",
                  (char *)"LD_DEBUG=libs", ldout, NULL };
  char out[4096];
  CHECK_EQ_I64 (run_probe (env, "errno", out, sizeof out), 0);
  CHECK_CONTAINS (out, "EARLY OK");
  CHECK_CONTAINS (out, "ERRNO OK");
  /* The early calls ran before the library's constructor: the dynamic
     linker initialised early_calls.so first. */
  char *ld = read_prefixed (dir, "ld.");
  const char *e_at = NULL, *t_at = NULL;
  for (const char *q = strstr (ld, "calling init: "); q; q = strstr (q + 1, "calling init: "))
    {
      const char *eol = strchr (q, '\n');
      size_t n = eol ? (size_t)(eol - q) : strlen (q);
      if (!e_at && memmem (q, n, "libearly_calls.so", 17))
        e_at = q;
      if (!t_at && memmem (q, n, "libemlat-tty.so", 15))
        t_at = q;
    }
  CHECK (e_at && t_at && e_at < t_at,
         "early_calls.so initialised before libemlat-tty.so (%s)",
         e_at && t_at ? "order reversed" : "init lines missing");
  struct pv v;
  if (pv_load (&v, file) == 0)
    {
      CHECK (emlat_profile_totals (v.p)->clean_stop, "stopped cleanly");
      CHECK (v.n_ix > 0, "the session after the early calls recorded interactions");
      pv_free (&v);
    }
  free (ld);
  free (ldout);
  free (fentry);
  free (preload);
  free (early);
  free (so);
  free (file);
  free (dir);
}

int
main (void)
{
  test_activation ();
  test_children ();
  test_fork ();
  test_errno_and_meta ();
  test_early_calls ();
  TEST_DONE ();
}
