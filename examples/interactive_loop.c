/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * interactive_loop.c -- a small interactive program traced by hand with
 * the application API of libemlat (docs/API.md): each input line is an
 * interaction "command" with named sections (parse, execute, render), a
 * counter of the history length and one of the work queue, an instant for
 * empty lines, and a worker thread that takes "sum N" jobs through a queue,
 * with a flow from the main thread to the worker and a section serving the
 * same interaction there.
 *
 *   EMLAT_TRACE=1 ./interactive_loop             type lines; "quit" ends
 *   EMLAT_TRACE=1 ./interactive_loop --demo 50   50 generated lines
 *
 * Tracing is switched on by EMLAT_TRACE=1 (EMLAT_AUTOSTART below); the
 * profile goes to EMLAT_FILE, EMLAT_DIR or ~/.local/state/emlat, and is
 * complete when the program exits.  `emlat report FILE` shows the
 * commands' latency and the sections per name, `emlat export
 * --format=chrome` the timeline.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <emlat/emlat.h>

EMLAT_AUTOSTART ();

/* A one-slot job queue between the main thread and the worker. */
struct job
{
  long n;
  uint64_t flow, ix;
  int full, quit;
  long result;
};

static struct job job;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;

static void *
worker (void *arg)
{
  (void)arg;
  emlat_thread_name ("worker", 6);
  pthread_mutex_lock (&lock);
  for (;;)
    {
      while (!job.full && !job.quit)
        pthread_cond_wait (&changed, &lock);
      if (job.quit)
        break;
      emlat_flow_end (job.flow);
      /* The job serves the interaction that queued it. */
      uint64_t s = EMLAT_SECTION_BEGIN_FOR ("sum", job.ix);
      long r = 0;
      for (long i = 1; i <= job.n; i++)
        r += i;
      emlat_section_end (s);
      job.result = r;
      job.full = 0;
      pthread_cond_broadcast (&changed);
    }
  pthread_mutex_unlock (&lock);
  return NULL;
}

static void
sleep_us (long us)
{
  struct timespec d = { us / 1000000, (us % 1000000) * 1000 };
  nanosleep (&d, NULL);
}

/* One command: parse, execute (perhaps through the worker), render. */
static void
command (const char *line, long *history)
{
  uint64_t ix = EMLAT_INTERACTION_BEGIN ("command");
  /* The line is read: its arrival bounds are now (a terminal program
     would take them around its read, docs/DESIGN.md section 2.4). */
  emlat_ix_mark (ix, EMLAT_T_INPUT_EARLIEST);
  emlat_ix_mark (ix, EMLAT_T_INPUT_LATEST);
  char word[32] = "";
  long n = 0;
  {
    EMLAT_SCOPE ("parse");
    sscanf (line, "%31s %ld", word, &n);
  }
  char out[128];
  {
    EMLAT_SCOPE ("execute");
    if (word[0] == 0)
      {
        EMLAT_INSTANT ("empty line");
        snprintf (out, sizeof out, "(nothing)");
      }
    else if (strcmp (word, "sum") == 0)
      {
        pthread_mutex_lock (&lock);
        job.n = n;
        job.ix = ix;
        job.flow = EMLAT_FLOW_BEGIN ("sum job");
        job.full = 1;
        EMLAT_COUNTER ("queue", 1);
        pthread_cond_broadcast (&changed);
        while (job.full)
          pthread_cond_wait (&changed, &lock);
        EMLAT_COUNTER ("queue", 0);
        snprintf (out, sizeof out, "sum 1..%ld = %ld", n, job.result);
        pthread_mutex_unlock (&lock);
      }
    else if (strcmp (word, "sleep") == 0)
      {
        sleep_us (n * 1000);
        snprintf (out, sizeof out, "slept %ld ms", n);
      }
    else
      snprintf (out, sizeof out, "unknown command: %s", word);
  }
  {
    EMLAT_SCOPE ("render");
    printf ("%s\n", out);
    fflush (stdout);
  }
  emlat_ix_mark (ix, EMLAT_T_FLUSH_END);
  emlat_interaction_end (ix, EMLAT_STATUS_NORMAL);
  EMLAT_COUNTER ("history", ++*history);
}

int
main (int argc, char **argv)
{
  emlat_process_name ("interactive_loop", 16);
  emlat_thread_name ("main", 4);
  pthread_t th;
  pthread_create (&th, NULL, worker, NULL);
  long history = 0;
  if (argc == 3 && strcmp (argv[1], "--demo") == 0)
    {
      static const char *const lines[] = { "sum 100000", "sleep 2", "", "sum 2000000", "help" };
      long n = atol (argv[2]);
      for (long i = 0; i < n; i++)
        command (lines[i % 5], &history);
    }
  else
    {
      char line[256];
      printf ("commands: sum N, sleep MS, quit\n> ");
      fflush (stdout);
      while (fgets (line, sizeof line, stdin) && strncmp (line, "quit", 4) != 0)
        {
          command (line, &history);
          printf ("> ");
          fflush (stdout);
        }
    }
  pthread_mutex_lock (&lock);
  job.quit = 1;
  pthread_cond_broadcast (&changed);
  pthread_mutex_unlock (&lock);
  pthread_join (th, NULL);
  return 0;
}
