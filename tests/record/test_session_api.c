/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_session_api.c -- the setup contract of emlat.h: option validation,
 * safe file creation (0600, O_EXCL, never through a symlink), one session at
 * a time, calls without a session, status before/after, the flush contract
 * (a record made before emlat_flush is in the file when it returns), a
 * fork child that does not record into its parent's session, directory
 * mode naming, strings and SESSION metadata filtering.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emlat/emlat.h"
#include "scanutil.h"
#include "tap.h"
#include "testutil.h"

struct kvfind
{
  const char *key;
  int found;
  char sval[256];
  uint64_t uval;
  int bad_key; /* a key that must never appear */
};

static int
find_kv (void *ctx, const struct emlat_chunk_info *c, const struct emlat_record *r)
{
  struct kvfind *f = ctx;
  (void)c;
  if (r->kind != EMLAT_REC_KV || r->chunk_type != 1)
    return 0;
  if (r->u.kv.key_len == strlen (f->key) && memcmp (r->u.kv.key, f->key, r->u.kv.key_len) == 0)
    {
      f->found = 1;
      f->uval = r->u.kv.u;
      size_t n = r->u.kv.s_len < sizeof f->sval - 1 ? r->u.kv.s_len : sizeof f->sval - 1;
      if (r->u.kv.s)
        memcpy (f->sval, r->u.kv.s, n);
      f->sval[n] = 0;
    }
  if (r->u.kv.key_len >= 6 && memcmp (r->u.kv.key, "emlat.", 6) == 0)
    f->bad_key = 1;
  if (r->u.kv.key_len == 7 && memcmp (r->u.kv.key, "Bad Key", 7) == 0)
    f->bad_key = 1;
  return 0;
}

static struct kvfind
session_key (const char *path, const char *key)
{
  struct kvfind f = { .key = key };
  uint8_t *buf;
  size_t len;
  if (emlat_read_file (path, 0, &buf, &len) == 0)
    {
      struct emlat_scan_params p = { 0 };
      p.visitor.ctx = &f;
      p.visitor.on_record = find_kv;
      struct emlat_scan_result res;
      emlat_scan (buf, len, &p, &res);
      free (buf);
    }
  return f;
}

int
main (void)
{
  const char *dir = tu_tmpdir ();
  char *path = tu_strf ("%s/api.emlat", dir);

  /* Without a session every call is harmless and returns 0. */
  CHECK_EQ_I64 (emlat_active (), 0);
  CHECK_EQ_U64 (emlat_ix_begin (EMLAT_ROOT_TIMER, 0, 0), 0);
  CHECK_EQ_U64 (emlat_span_begin (EMLAT_SPAN_GC, 0), 0);
  emlat_span_end (0, EMLAT_SPAN_OK, 0);
  CHECK_EQ_U64 (emlat_string ("x", 1), 0);
  CHECK_EQ_U64 (emlat_input_batch_id (), 0);
  CHECK_EQ_I64 (emlat_stop (), -ENOENT);
  CHECK_EQ_I64 (emlat_flush (), -ENOENT);
  CHECK_EQ_I64 (emlat_rotate (), -ENOENT);
  CHECK (emlat_now () > 0, "the clock works without a session");
  CHECK_EQ_STR (emlat_version (), EMLAT_VERSION_STRING);

  /* Bad options. */
  CHECK_EQ_I64 (emlat_start (0), -EINVAL);
  CHECK_EQ_I64 (emlat_start (&(struct emlat_options){ 0 }), -EINVAL);
  CHECK_EQ_I64 (emlat_start (&(struct emlat_options){ .path = path, .ring_slots = 1000 }), -EINVAL);
  CHECK_EQ_I64 (emlat_start (&(struct emlat_options){ .path = path, .chunk_bytes = 100 }), -EINVAL);
  CHECK_EQ_I64 (emlat_start (&(struct emlat_options){ .path = "/nonexistent-dir/x.emlat" }), -ENOENT);
  CHECK (access (path, F_OK) != 0, "a failed start leaves no file");

  /* Symlinks are refused even with OVERWRITE; existing files need it. */
  char *link = tu_strf ("%s/link.emlat", dir);
  char *target = tu_strf ("%s/target", dir);
  CHECK_EQ_I64 (symlink (target, link), 0);
  CHECK_EQ_I64 (emlat_start (&(struct emlat_options){ .path = link }), -EEXIST);
  CHECK_EQ_I64 (emlat_start (&(struct emlat_options){ .path = link, .flags = EMLAT_OPT_OVERWRITE }), -ELOOP);
  CHECK (access (target, F_OK) != 0, "nothing created through the symlink");
  tu_write_file (target, "keep", 4);
  CHECK_EQ_I64 (emlat_start (&(struct emlat_options){ .path = target }), -EEXIST);

  /* A FIFO or a device is refused at once, never waited on (a FIFO opened
     for writing blocks until a reader comes). */
  char *fifo = tu_strf ("%s/fifo.emlat", dir);
  CHECK_EQ_I64 (mkfifo (fifo, 0600), 0);
  uint64_t t0 = tu_now_ns ();
  int frc = emlat_start (&(struct emlat_options){ .path = fifo, .flags = EMLAT_OPT_OVERWRITE });
  CHECK (frc == -ENXIO || frc == -EINVAL, "a FIFO profile path is refused (%d)", frc);
  CHECK (tu_now_ns () - t0 < 2000000000u, "and at once");
  if (frc == 0)
    emlat_stop ();
  CHECK_EQ_I64 (emlat_start (&(struct emlat_options){ .path = "/dev/null",
                                                      .flags = EMLAT_OPT_OVERWRITE }),
                -EINVAL);
  free (fifo);

  /* A session with metadata, some of it refused. */
  struct emlat_meta meta[] = {
    { .key = "app.name", .type = EMLAT_META_STR, .s = "api-test", .s_len = 8 },
    { .key = "app.rows", .type = EMLAT_META_UINT, .u = 24 },
    { .key = "emlat.reserved", .type = EMLAT_META_UINT, .u = 1 },
    { .key = "Bad Key", .type = EMLAT_META_UINT, .u = 1 },
  };
  umask (0);
  CHECK_EQ_I64 (emlat_start (&(struct emlat_options){ .path = path, .meta = meta, .n_meta = 4 }), 0);
  umask (022);
  CHECK_EQ_I64 (emlat_start (&(struct emlat_options){ .path = path }), -EALREADY);
  struct stat sb;
  CHECK_EQ_I64 (stat (path, &sb), 0);
  CHECK_EQ_U64 (sb.st_mode & 0777, 0600);
  struct emlat_status st;
  emlat_status (&st);
  CHECK_EQ_I64 (st.active, 1);
  CHECK_EQ_U64 (st.meta_rejected, 2);
  CHECK_EQ_STR (st.path, path);

  /* The flush contract. */
  uint64_t s1 = emlat_string ("detail-one", 10);
  CHECK_EQ_U64 (s1, 1);
  uint64_t sp = emlat_span_begin (EMLAT_SPAN_USER, 0);
  emlat_span_end (sp, EMLAT_SPAN_OK, s1);
  uint64_t c = emlat_ix_begin (EMLAT_ROOT_TTY_COMMAND, 0, 0);
  emlat_ix_end (c, EMLAT_STATUS_NORMAL);
  CHECK_EQ_I64 (emlat_flush (), 0);
  struct tally t;
  struct emlat_scan_result res;
  CHECK_EQ_I64 (tally_file (path, &t, 1 << 20, &res), 0);
  CHECK_EQ_U64 (t.span_complete, 1);
  CHECK_EQ_U64 (t.ix_complete, 1);
  CHECK_EQ_U64 (t.strings, 1);
  CHECK_EQ_U64 (res.final_stats, 0);
  tally_free (&t);

  /* A fork child records nothing into the parent's session. */
  pid_t pid = fork ();
  if (pid == 0)
    {
      int bad = emlat_active () != 0;
      for (int i = 0; i < 1000; i++)
        bad |= emlat_span_begin (EMLAT_SPAN_USER, 0) != 0;
      bad |= emlat_stop () != -ENOENT;
      _exit (bad);
    }
  int wst;
  waitpid (pid, &wst, 0);
  CHECK (WIFEXITED (wst) && WEXITSTATUS (wst) == 0, "fork child is not recording");

  CHECK_EQ_I64 (emlat_stop (), 0);
  emlat_status (&st);
  CHECK_EQ_I64 (st.active, 0);
  CHECK_GT_U64 (st.records_written, 0);
  CHECK_EQ_U64 (st.records_dropped, 0);
  CHECK_EQ_I64 (tally_file (path, &t, 1 << 20, &res), 0);
  CHECK_EQ_U64 (res.stop, EMLAT_STOP_CLEAN);
  CHECK_EQ_U64 (res.final_stats, 1);
  CHECK_EQ_U64 (t.span_complete, 1);
  tally_free (&t);
  struct kvfind f = session_key (path, "app.name");
  CHECK (f.found && strcmp (f.sval, "api-test") == 0, "caller metadata is written");
  CHECK_EQ_U64 (f.bad_key, 0);
  f = session_key (path, "clock.id");
  CHECK (f.found && strncmp (f.sval, "CLOCK_MONOTONIC", 15) == 0, "clock identity is written");
  f = session_key (path, "privacy.policy");
  CHECK (f.found && strcmp (f.sval, "default") == 0, "privacy policy is written");

  /* Directory mode: a fresh timestamped name, never an existing file. */
  CHECK_EQ_I64 (emlat_start (&(struct emlat_options){ .dir = dir }), 0);
  emlat_status (&st);
  CHECK (strncmp (st.path, dir, strlen (dir)) == 0 && strstr (st.path, "/emlat-") != 0,
         "directory mode names the file (%s)", st.path);
  char *first = tu_strf ("%s", st.path);
  CHECK_EQ_I64 (emlat_stop (), 0);
  CHECK_EQ_I64 (emlat_start (&(struct emlat_options){ .dir = dir }), 0);
  emlat_status (&st);
  CHECK (strcmp (st.path, first) != 0, "a second session gets another name");
  CHECK_EQ_I64 (emlat_stop (), 0);
  free (first);

  /* A directory-mode start that fails after the name was reserved (the
     file size limit refuses the header) leaves nothing in the directory.
     In a child: the limit and the ignored SIGXFSZ stay there. */
  char *faildir = tu_strf ("%s/fail", dir);
  CHECK_EQ_I64 (mkdir (faildir, 0700), 0);
  pid = fork ();
  if (pid == 0)
    {
      signal (SIGXFSZ, SIG_IGN);
      struct rlimit lim = { 16, 16 };
      int ok = setrlimit (RLIMIT_FSIZE, &lim) == 0
               && emlat_start (&(struct emlat_options){ .dir = faildir }) == -EFBIG;
      _exit (ok ? 0 : 1);
    }
  waitpid (pid, &wst, 0);
  CHECK (WIFEXITED (wst) && WEXITSTATUS (wst) == 0,
         "a start whose header cannot be written fails with EFBIG");
  DIR *d = opendir (faildir);
  int entries = 0;
  for (struct dirent *e; d && (e = readdir (d));)
    entries += strcmp (e->d_name, ".") != 0 && strcmp (e->d_name, "..") != 0;
  if (d)
    closedir (d);
  CHECK (d && entries == 0, "a failed directory-mode start leaves no file (%d)", entries);

  /* The same when the rings cannot be mapped (an address-space limit a
     few MiB above the current size): the start fails after the name was
     reserved, before the first file is written. */
  pid = fork ();
  if (pid == 0)
    {
      unsigned long pages = 0;
      FILE *statm = fopen ("/proc/self/statm", "r");
      if (!statm || fscanf (statm, "%lu", &pages) != 1)
        _exit (2);
      fclose (statm);
      rlim_t cap = (rlim_t)pages * (rlim_t)sysconf (_SC_PAGESIZE) + (8u << 20);
      struct rlimit lim = { cap, cap };
      int rc = setrlimit (RLIMIT_AS, &lim) == 0 ? emlat_start (&(struct emlat_options){ .dir = faildir }) : 1;
      _exit (rc == -ENOMEM ? 0 : 3);
    }
  waitpid (pid, &wst, 0);
  CHECK (WIFEXITED (wst) && WEXITSTATUS (wst) == 0,
         "a start whose rings cannot be mapped fails with ENOMEM (%d)",
         WIFEXITED (wst) ? WEXITSTATUS (wst) : -1);
  d = opendir (faildir);
  entries = 0;
  for (struct dirent *e; d && (e = readdir (d));)
    entries += strcmp (e->d_name, ".") != 0 && strcmp (e->d_name, "..") != 0;
  if (d)
    closedir (d);
  CHECK (d && entries == 0, "a start that cannot map its rings leaves no file (%d)", entries);
  free (faildir);
  free (path);
  free (link);
  free (target);
  TEST_DONE ();
}
