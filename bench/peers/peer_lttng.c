/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * peer_lttng.c -- LTTng-UST 2.13 with an active session in the peers
 * benchmark.  Per event: the tracepoint emlat_peers:event (peers_tp.h)
 * with the payload (id, value); LTTng's probe reads its own clock
 * (CLOCK_MONOTONIC through its default clock source) and writes a compact
 * binary event into the per-user, per-CPU ring buffer it shares with
 * lttng-consumerd.
 *
 * The session daemon is started by bench/peers/run.sh before this program
 * (the program registers with it at start-up); every session of this
 * program is fresh, made with the lttng command and its defaults:
 *   lttng create NAME --output=DIR
 *   lttng enable-channel --userspace --session=NAME chan
 *   lttng enable-event --userspace --session=NAME --channel=chan emlat_peers:event
 *   lttng start NAME       (then wait until the tracepoint is enabled here)
 *   ... the events ...
 *   lttng stop NAME        (waits until the buffers are consumed)
 *   lttng list NAME --channel=chan   -> "Discarded events: N" = the loss
 *   lttng destroy NAME
 * Default channel: discard mode, per-user buffers, 4 sub-buffers of
 * 512 KiB per CPU, no switch or read timer (printed once as INFO).
 *
 * Consumer CPU: the CPU time (clock_getcpuclockid, all threads) of every
 * lttng-consumerd process descended from the session daemon whose pid
 * run.sh passes in PEERS_SESSIOND_PID, from after `lttng start` until
 * after `lttng destroy`.  Bytes: every file under DIR (data streams,
 * indexes, metadata).  Read back (rec_verify): the lines babeltrace2
 * prints for the trace, one per event (skipped without babeltrace2).
 * Measured by peer_harness.h.
 */
#define PEER_NAME "lttng"
#include "peer_harness.h"

#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include "peers_tp.h"

extern char **environ;

static char lt_session[96], lt_dir[4200];
static unsigned lt_sessions;
static uint64_t lt_cpu0;
static int lt_info_printed;

static inline uint64_t
rec_clock (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void
rec_pair (uint64_t value)
{
  tracepoint (emlat_peers, event, 1, value);
  tracepoint (emlat_peers, event, 2, value);
}

/* Run ARGV (an lttng command); its stdout into OUT (NUL-terminated) when
   OUT is given, else discarded; stderr discarded.  0 when it exits 0. */
static int
run_cmd (char *const argv[], char *out, size_t out_len)
{
  int fds[2] = { -1, -1 };
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init (&fa);
  if (out)
    {
      if (pipe2 (fds, O_CLOEXEC) != 0)
        return -1;
      posix_spawn_file_actions_adddup2 (&fa, fds[1], 1);
    }
  else
    posix_spawn_file_actions_addopen (&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen (&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  int rc = posix_spawnp (&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy (&fa);
  if (out)
    {
      close (fds[1]);
      size_t used = 0;
      ssize_t n;
      while (rc == 0 && used + 1 < out_len
             && (n = read (fds[0], out + used, out_len - 1 - used)) > 0)
        used += (size_t)n;
      out[used] = '\0';
      close (fds[0]);
    }
  if (rc != 0)
    {
      fprintf (stderr, "peer_lttng: cannot run %s: %s\n", argv[0], strerror (rc));
      return -1;
    }
  int status;
  while (waitpid (pid, &status, 0) < 0)
    if (errno != EINTR)
      return -1;
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    {
      fprintf (stderr, "peer_lttng: `%s %s %s` failed\n", argv[0], argv[1],
               argv[2] ? argv[2] : "");
      return -1;
    }
  return 0;
}

/* Lines ARGV prints on stdout, or UINT64_MAX when it cannot run or fails. */
static uint64_t
count_cmd_lines (char *const argv[])
{
  int fds[2];
  if (pipe2 (fds, O_CLOEXEC) != 0)
    return UINT64_MAX;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init (&fa);
  posix_spawn_file_actions_adddup2 (&fa, fds[1], 1);
  posix_spawn_file_actions_addopen (&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  int rc = posix_spawnp (&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy (&fa);
  close (fds[1]);
  uint64_t n = 0;
  static char buf[1 << 16];
  ssize_t got;
  while (rc == 0 && (got = read (fds[0], buf, sizeof buf)) > 0)
    for (const char *p = buf; (p = memchr (p, '\n', (size_t)(buf + got - p))); p++)
      n++;
  close (fds[0]);
  if (rc != 0)
    return UINT64_MAX;
  int status;
  while (waitpid (pid, &status, 0) < 0)
    if (errno != EINTR)
      return UINT64_MAX;
  return WIFEXITED (status) && WEXITSTATUS (status) == 0 ? n : UINT64_MAX;
}

/* Parent pid of PID, or 0. */
static long
parent_of (long pid)
{
  char path[64], buf[512];
  snprintf (path, sizeof path, "/proc/%ld/stat", pid);
  FILE *f = fopen (path, "r");
  if (!f)
    return 0;
  size_t n = fread (buf, 1, sizeof buf - 1, f);
  fclose (f);
  buf[n] = '\0';
  char *p = strrchr (buf, ')'); /* the command may hold spaces */
  long ppid = 0;
  if (!p || sscanf (p + 1, " %*c %ld", &ppid) != 1)
    return 0;
  return ppid;
}

/* CPU time of every lttng-consumerd descended from the session daemon. */
static uint64_t
consumerd_cpu_ns (void)
{
  const char *env = getenv ("PEERS_SESSIOND_PID");
  long sessiond = env ? strtol (env, NULL, 10) : 0;
  uint64_t sum = 0;
  DIR *d = opendir ("/proc");
  if (!d)
    return 0;
  struct dirent *e;
  while ((e = readdir (d)))
    {
      char *end;
      long pid = strtol (e->d_name, &end, 10);
      if (pid <= 0 || *end)
        continue;
      char path[64], comm[64] = "";
      snprintf (path, sizeof path, "/proc/%ld/comm", pid);
      FILE *f = fopen (path, "r");
      if (!f)
        continue;
      if (!fgets (comm, sizeof comm, f))
        comm[0] = '\0';
      fclose (f);
      if (strcmp (comm, "lttng-consumerd\n") != 0)
        continue;
      int ours = !sessiond;
      for (long p = parent_of (pid), depth = 0; p > 1 && depth < 4;
           p = parent_of (p), depth++)
        if (p == sessiond)
          ours = 1;
      clockid_t clk;
      struct timespec ts;
      if (ours && clock_getcpuclockid ((pid_t)pid, &clk) == 0
          && clock_gettime (clk, &ts) == 0)
        sum += (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    }
  closedir (d);
  return sum;
}

/* The value after LABEL in TEXT, trimmed to its line, into OUT. */
static int
field_of (const char *text, const char *label, char *out, size_t len)
{
  const char *p = strstr (text, label);
  if (!p)
    return -1;
  p += strlen (label);
  while (*p == ' ')
    p++;
  size_t n = strcspn (p, "\n");
  if (n >= len)
    n = len - 1;
  memcpy (out, p, n);
  out[n] = '\0';
  return 0;
}

static int
rec_open (const char *dir)
{
  snprintf (lt_session, sizeof lt_session, "emlat-peers-%ld-%u", (long)getpid (),
            lt_sessions);
  snprintf (lt_dir, sizeof lt_dir, "%s/lttng-%u", dir, lt_sessions++);
  char output[4300];
  snprintf (output, sizeof output, "--output=%s", lt_dir);
  char sess_opt[128];
  snprintf (sess_opt, sizeof sess_opt, "--session=%s", lt_session);
  char *create[] = { "lttng", "create", lt_session, output, NULL };
  char *chan[] = { "lttng", "enable-channel", "--userspace", sess_opt, "chan", NULL };
  char *event[] = { "lttng", "enable-event", "--userspace", sess_opt,
                    "--channel=chan", "emlat_peers:event", NULL };
  char *start[] = { "lttng", "start", lt_session, NULL };
  if (run_cmd (create, NULL, 0) != 0 || run_cmd (chan, NULL, 0) != 0
      || run_cmd (event, NULL, 0) != 0 || run_cmd (start, NULL, 0) != 0)
    return -1;
  /* The session daemon pushes the enablement to this process; wait for it
     (no event may be recorded into nothing). */
  for (int i = 0; !tracepoint_enabled (emlat_peers, event); i++)
    {
      if (i == 5000)
        {
          fprintf (stderr, "peer_lttng: the tracepoint was not enabled "
                   "within 5 s (is this process registered with the "
                   "session daemon?)\n");
          return -1;
        }
      sleep_ns (1000000);
    }
  lt_cpu0 = consumerd_cpu_ns ();
  return 0;
}

static int
rec_close (struct rec_result *r)
{
  static char listing[16384];
  char *stop[] = { "lttng", "stop", lt_session, NULL };
  char *list[] = { "lttng", "list", lt_session, "--channel=chan", NULL };
  char *destroy[] = { "lttng", "destroy", lt_session, NULL };
  int rc = run_cmd (stop, NULL, 0);
  if (rc == 0)
    rc = run_cmd (list, listing, sizeof listing);
  char discarded[64] = "";
  if (rc == 0 && field_of (listing, "Discarded events:", discarded,
                           sizeof discarded) != 0)
    {
      fprintf (stderr, "peer_lttng: no \"Discarded events\" in lttng list\n");
      rc = -1;
    }
  if (rc == 0 && !lt_info_printed)
    {
      char mode[64] = "?", size[64] = "?", count[64] = "?", buffering[64] = "?";
      field_of (listing, "Event-loss mode:", mode, sizeof mode);
      field_of (listing, "Sub-buffer size:", size, sizeof size);
      field_of (listing, "Sub-buffer count:", count, sizeof count);
      field_of (listing, "Buffering scheme:", buffering, sizeof buffering);
      printf ("INFO peers_lttng channel: %s, %s sub-buffers of %s per CPU, "
              "%s buffers\n", mode, count, size, buffering);
      lt_info_printed = 1;
    }
  if (run_cmd (destroy, NULL, 0) != 0)
    rc = -1;
  *r = (struct rec_result){ .lost = strtoull (discarded, NULL, 10),
                            .bytes = tree_bytes (lt_dir),
                            .consumer_cpu_ns = consumerd_cpu_ns () - lt_cpu0,
                            .has_consumer = 1 };
  if (rec_verify && rc == 0)
    {
      /* Read the trace back: babeltrace2 prints one line per event. */
      char *bt[] = { "babeltrace2", lt_dir, NULL };
      uint64_t n = count_cmd_lines (bt);
      r->on_disk = n;
      r->has_on_disk = n != UINT64_MAX;
    }
  tree_rm (lt_dir);
  return rc;
}
