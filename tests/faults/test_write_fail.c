/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_write_fail.c -- a write error never blocks or crashes the host
 * program: it becomes loss accounting and an error in the status.
 *
 *  1. File size limit (RLIMIT_FSIZE, EFBIG) in a child: writes fail while the
 *     limit holds; the recorder rolls the file back to its last complete
 *     chunk, counts what it could not write, and once the limit is lifted
 *     writes a LOSS record (reason write_error) for exactly those records:
 *     produced == in file + lost.
 *  2. A full filesystem (ENOSPC): a 192 KiB tmpfs mounted in a private mount
 *     namespace (root only; skipped with the reason otherwise).
 *  3. A closed descriptor: the host closes the recorder's file and opens
 *     another file that reuses the number; the recorder must notice (device
 *     and inode differ), never write into the host's file, and report EBADF.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emlat/emlat.h"
#include "scanutil.h"
#include "tap.h"
#include "testutil.h"

/* Record N span pairs in bursts with flushes; returns pairs produced. */
static uint64_t
produce (int bursts, int pairs)
{
  uint64_t n = 0;
  for (int b = 0; b < bursts; b++)
    {
      for (int i = 0; i < pairs; i++)
        {
          uint64_t s = emlat_span_begin (EMLAT_SPAN_USER, 0);
          emlat_span_end (s, EMLAT_SPAN_OK, 0);
          n++;
        }
      emlat_flush ();
    }
  return n;
}

/* Child body for cases 1 and 2: record into PATH while writes fail, then
   (when LIFT) let them succeed again.  Exit code encodes failures. */
static int
fail_then_recover (const char *path, int use_rlimit, void (*lift) (void))
{
  signal (SIGXFSZ, SIG_IGN);
  struct emlat_options o = { .path = path, .ring_slots = 1u << 16 };
  if (emlat_start (&o) != 0)
    return 10;
  struct rlimit old, lim;
  getrlimit (RLIMIT_FSIZE, &old);
  if (use_rlimit)
    {
      lim = old;
      lim.rlim_cur = 64 * 1024;
      setrlimit (RLIMIT_FSIZE, &lim);
    }
  uint64_t produced = produce (40, 2000);
  struct emlat_status st;
  emlat_status (&st);
  int bad = 0;
  if (st.write_errors == 0)
    bad |= 1;
  if (st.records_dropped == 0)
    bad |= 2;
  if (st.last_error != (use_rlimit ? EFBIG : ENOSPC))
    bad |= 4;
  printf ("# while failing: write_errors=%llu dropped=%llu last_error=%d\n",
          (unsigned long long)st.write_errors, (unsigned long long)st.records_dropped,
          st.last_error);
  if (use_rlimit)
    setrlimit (RLIMIT_FSIZE, &old);
  if (lift)
    lift ();
  produced += produce (2, 100);
  /* Writes work again: a flush now succeeds (it reports only failures of
     the passes it waited for). */
  if (emlat_flush () != 0)
    bad |= 512;
  int rc = emlat_stop ();
  if (rc != -(use_rlimit ? EFBIG : ENOSPC))
    bad |= 8;
  emlat_status (&st);
  printf ("# produced %llu pairs, dropped %llu records, stop=%d\n",
          (unsigned long long)produced, (unsigned long long)st.records_dropped, rc);
  struct tally t;
  struct emlat_scan_result res;
  if (tally_file (path, &t, 0, &res) != 0)
    return 11;
  printf ("# file: stop=%s chunks=%llu complete=%llu begin=%llu end=%llu lost=%llu (write_error %llu)\n",
          emlat_stop_name (res.stop), (unsigned long long)res.chunks,
          (unsigned long long)t.span_complete, (unsigned long long)t.span_begin,
          (unsigned long long)t.span_end, (unsigned long long)t.loss_records,
          (unsigned long long)t.loss_records_by_reason[EMLAT_LOSS_WRITE_ERROR]);
  if (res.stop != EMLAT_STOP_CLEAN)
    bad |= 16;
  if (t.loss_records_by_reason[EMLAT_LOSS_WRITE_ERROR] == 0)
    bad |= 32;
  if (2 * t.span_complete + t.span_begin + t.span_end + t.loss_records != 2 * produced)
    bad |= 64;
  if (t.loss_records != st.records_dropped)
    bad |= 128;
  if (!t.stats_final)
    bad |= 256;
  tally_free (&t);
  if (bad)
    printf ("# failed properties: 0x%x\n", bad);
  return bad ? 1 : 0;
}

static int
run_child (int (*body) (void *), void *arg)
{
  fflush (stdout);
  pid_t pid = fork ();
  if (pid == 0)
    {
      int r = body (arg);
      fflush (stdout);
      _exit (r);
    }
  int status;
  waitpid (pid, &status, 0);
  return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
}

static int
case_rlimit (void *arg)
{
  return fail_then_recover (arg, 1, 0);
}

static const char *tmpfs_dir;
static void
free_space (void)
{
  char *filler = tu_strf ("%s/filler", tmpfs_dir);
  unlink (filler);
  free (filler);
}

static int
case_enospc (void *arg)
{
  (void)arg;
  if (unshare (CLONE_NEWNS) != 0 || mount (0, "/", 0, MS_REC | MS_PRIVATE, 0) != 0)
    return 77;
  if (mount ("emlat-test", tmpfs_dir, "tmpfs", 0, "size=192k") != 0)
    return 77;
  /* Fill most of it, so the recorder hits ENOSPC early. */
  char *filler = tu_strf ("%s/filler", tmpfs_dir);
  int fd = open (filler, O_WRONLY | O_CREAT, 0600);
  char block[4096] = { 0 };
  for (int i = 0; i < 40; i++)
    if (write (fd, block, sizeof block) != (ssize_t)sizeof block)
      break;
  close (fd);
  free (filler);
  char *path = tu_strf ("%s/enospc.emlat", tmpfs_dir);
  int rc = fail_then_recover (path, 0, free_space);
  free (path);
  return rc;
}

/* The recorder's descriptor for PATH, found in /proc/self/fd. */
static int
find_fd (const char *path)
{
  DIR *d = opendir ("/proc/self/fd");
  struct dirent *e;
  int found = -1;
  char link[4096];
  while (d && (e = readdir (d)))
    {
      char *p = tu_strf ("/proc/self/fd/%s", e->d_name);
      ssize_t n = readlink (p, link, sizeof link - 1);
      free (p);
      if (n > 0)
        {
          link[n] = 0;
          if (strcmp (link, path) == 0)
            found = atoi (e->d_name);
        }
    }
  if (d)
    closedir (d);
  return found;
}

int
main (void)
{
  const char *dir = tu_tmpdir ();

  /* 1. */
  char *path = tu_strf ("%s/fsize.emlat", dir);
  CHECK_EQ_I64 (run_child (case_rlimit, path), 0);
  free (path);

  /* 2. */
  tmpfs_dir = tu_strf ("%s/tmpfs", dir);
  mkdir (tmpfs_dir, 0700);
  int rc = run_child (case_enospc, 0);
  if (rc == 77)
    TEST_DIAG ("ENOSPC case skipped: cannot mount a tmpfs here (needs root and mount "
               "namespaces); the RLIMIT_FSIZE case covers the same path");
  else
    CHECK_EQ_I64 (rc, 0);

  /* 3. */
  path = tu_strf ("%s/closed.emlat", dir);
  char *victim = tu_strf ("%s/host-file", dir);
  CHECK_EQ_I64 (emlat_start (&(struct emlat_options){ .path = path }), 0);
  produce (1, 100);
  int fd = find_fd (path);
  CHECK (fd >= 0, "found the recorder's descriptor");
  close (fd);
  int host = open (victim, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  CHECK_EQ_I64 (host, fd); /* the host reuses the number */
  produce (3, 1000);
  emlat_span_end (emlat_span_begin (EMLAT_SPAN_USER, 0), EMLAT_SPAN_OK, 0);
  CHECK_EQ_I64 (emlat_flush (), -EBADF);
  struct emlat_status st;
  emlat_status (&st);
  CHECK_EQ_I64 (st.last_error, EBADF);
  CHECK_GT_U64 (st.records_dropped, 0);
  CHECK_EQ_I64 (emlat_stop (), -EBADF);
  struct stat sb;
  CHECK_EQ_I64 (fstat (host, &sb), 0);
  CHECK_EQ_U64 ((uint64_t)sb.st_size, 0); /* not one byte of ours */
  CHECK_EQ_I64 (fcntl (host, F_GETFD), 0); /* still open: we did not close it */
  close (host);
  /* What was written before the close is intact. */
  struct tally t;
  struct emlat_scan_result res;
  CHECK_EQ_I64 (tally_file (path, &t, 0, &res), 0);
  CHECK_EQ_U64 (res.stop, EMLAT_STOP_CLEAN);
  CHECK_EQ_U64 (res.header_ok, 1);
  tally_free (&t);
  free (path);
  free (victim);
  TEST_DONE ();
}
