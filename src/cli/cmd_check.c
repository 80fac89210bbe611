/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_check.c -- `emlat check FILE...`: is each recording readable, and
 * what did reading it lose?
 *
 * Files are grouped by session UUID (a rotated set is checked as one
 * session, F-81); each group is loaded with emlat_profile_load (report_load:
 * "-" is standard input) and judged by the library (emlat_report_health:
 * the damage of docs/FORMAT.md F-94, the same judgement as report's):
 *
 *   valid                  every chunk read, nothing invalid or missing;
 *   damaged but recovered  the file header is sound and reading kept what
 *                          came before the damage (F-26), or skipped
 *                          invalid chunks (F-27) or chunks it cannot
 *                          decode (F-30, F-31: data lost), or chunks/files
 *                          are missing (F-23, F-81), or records repeat ids
 *                          (F-92);
 *   unreadable             no usable header, an I/O error, or a reader
 *                          limit stopped the load.
 *
 * Which diagnostics are damage is the library's judgement
 * (emlat_report_diag_is_damage), the same for report, export and compare.
 *
 * Exit: 0 all valid, 1 some damaged but recovered (none unreadable) or a
 * write error, 2 some unreadable or a usage error.  Problems go to stderr
 * through emlat_cli_error (file and offset); the summary goes to stdout,
 * or one JSON object per set with --json.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/load.h"
#include "common/input_open.h"
#include "render/json.h"
#include "render/report_fmt.h"
#include "render/record_json.h"
#include "emlat/emlat_reader.h"
#include "emlat/emlat_report.h"
#include "format/format.h"

enum verdict { V_VALID = 0, V_DAMAGED = 1, V_UNREADABLE = 2 };

static const char *verdict_name (enum verdict v)
{
  return v == V_VALID ? "valid" : v == V_DAMAGED ? "damaged but recovered" : "unreadable";
}

static const char *verdict_key (enum verdict v)
{
  return v == V_VALID ? "valid" : v == V_DAMAGED ? "damaged" : "unreadable";
}


/* The library's judgement, the same for every verb (docs/FORMAT.md F-94). */
static enum verdict file_verdict (const struct emlat_file_summary *f)
{
  return (enum verdict)emlat_report_file_health (f);
}

static enum verdict set_verdict (const struct emlat_profile *p)
{
  return (enum verdict)emlat_report_health (p);
}

static const struct emlat_diag *first_damage (const struct emlat_profile *p, uint32_t file)
{
  size_t nd, nf;
  const struct emlat_diag *d = emlat_profile_diags (p, &nd);
  const struct emlat_file_summary *f = emlat_profile_files (p, &nf);
  /* The stop of the file first: it is what lost the most.  Its scan keeps
     it even when the file was ignored (then not in the set's list). */
  if (file < nf && f[file].scan.stop != EMLAT_STOP_CLEAN && f[file].scan.first_problem.kind)
    return &f[file].scan.first_problem;
  /* Then problems inside the file, records included (F-92, F-93); the
     set-level ones (rotation, other session, start, limit) are reported
     once, after the files. */
  for (size_t i = 0; i < nd; i++)
    if (d[i].file == file && emlat_diag_is_damage (d[i].kind)
        && !(d[i].kind >= EMLAT_DIAG_ROTATION_MISSING && d[i].kind <= EMLAT_DIAG_START_MISMATCH)
        && d[i].kind != EMLAT_DIAG_LIMIT)
      return &d[i];
  return NULL;
}

/* D's message without its offset (emlat_cli_error prints that). */
static void diag_text (const struct emlat_diag *d, char *buf, size_t n)
{
  struct emlat_diag c = *d;
  c.offset = UINT64_MAX;
  emlat_diag_format (&c, buf, n);
}

static void print_chunk_counts (const struct emlat_scan_result *s)
{
  printf ("  chunks %" PRIu64, s->chunks);
  const char *sep = ": ";
  for (unsigned t = 1; t <= EMLAT_CHUNK_TYPE_MAX_KNOWN; t++)
    if (s->chunks_by_type[t])
      {
        printf ("%s%s %" PRIu64, sep, emlat_chunk_type_name (t), s->chunks_by_type[t]);
        sep = ", ";
      }
  if (s->chunks_skipped)
    printf ("%sskipped %" PRIu64, sep, s->chunks_skipped), sep = ", ";
  if (s->chunks_experimental)
    printf ("%sexperimental %" PRIu64, sep, s->chunks_experimental), sep = ", ";
  if (s->chunks_invalid)
    printf ("%sinvalid %" PRIu64, sep, s->chunks_invalid);
  printf ("\n");
}

static void report_text (const struct emlat_profile *p, enum verdict v)
{
  size_t nf, nd;
  const struct emlat_file_summary *f = emlat_profile_files (p, &nf);
  const struct emlat_diag *d = emlat_profile_diags (p, &nd);
  const struct emlat_profile_totals *t = emlat_profile_totals (p);
  const struct emlat_file_header *h = emlat_profile_header (p);
  char uuid[37] = "?";
  if (h)
    emlat_uuid_format (h->uuid, uuid);
  if (nf > 1)
    printf ("session %s (%zu files): %s\n", uuid, nf, verdict_name (v));
  for (size_t i = 0; i < nf; i++)
    {
      const struct emlat_scan_result *s = &f[i].scan;
      enum verdict fv = file_verdict (&f[i]);
      printf ("%s: %s%s\n", f[i].path, f[i].ignored ? "ignored, " : "", verdict_name (fv));
      if (f[i].read_error)
        {
          char why[160];
          emlat_cli_error (f[i].path, UINT64_MAX, "%s",
                           cli_read_error (f[i].path, f[i].read_error, why, sizeof why));
          continue;
        }
      if (!s->header_ok)
        {
          emlat_cli_error (f[i].path, s->stop_offset, "%s", emlat_stop_name (s->stop));
          continue;
        }
      char fu[37];
      emlat_uuid_format (s->header.uuid, fu);
      printf ("  format %u.%u, session %s, rotation %" PRIu64 ", %" PRIu64 " bytes\n",
              s->header.major, s->header.minor, fu, s->header.rotation, s->file_bytes);
      print_chunk_counts (s);
      printf ("  records %" PRIu64 "\n", s->records);
      printf ("  losses: %" PRIu64 " LOSS records, %" PRIu64 " records lost\n",
              s->loss_records, s->lost_records);
      printf ("  stopped cleanly: %s\n", s->final_stats ? "yes (final STATS)"
                                         : "no final STATS (crash, kill or still recording)");
      const struct emlat_diag *dm = first_damage (p, (uint32_t)i);
      if (dm)
        {
          char buf[256];
          emlat_diag_format (dm, buf, sizeof buf);
          printf ("  first damage: %s\n", buf);
          if (s->stop != EMLAT_STOP_CLEAN)
            printf ("  read %" PRIu64 " chunks before offset %" PRIu64 "\n", s->chunks,
                    s->stop_offset);
          diag_text (dm, buf, sizeof buf);
          emlat_cli_error (f[i].path, dm->offset, "%s", buf);
        }
    }
  /* How the process ended, when the driver that finished the profile
     reaped it (STATS stats.exit_code or stats.exit_signal). */
  struct emlat_report_overhead ovh;
  emlat_report_overhead_of (p, &ovh);
  if (ovh.exit_known)
    {
      char how[REPORT_EXIT_LEN];
      printf ("  program ended: %s\n", report_fmt_exit (ovh.exit_signal, ovh.exit_code, how));
    }
  printf ("  interactions %" PRIu64 " (%" PRIu64 " open); spans %" PRIu64 " (%" PRIu64
          " unwound, %" PRIu64 " incomplete, %" PRIu64 " orphan ends); input batches %" PRIu64
          "\n",
          t->interactions, t->interactions_open, t->spans_complete, t->spans_unwound,
          t->spans_incomplete, t->spans_orphan_end, t->input_batches);
  for (size_t i = 0; i < nd; i++)
    if (d[i].kind >= EMLAT_DIAG_ROTATION_MISSING && d[i].kind <= EMLAT_DIAG_START_MISMATCH)
      {
        char buf[256];
        diag_text (&d[i], buf, sizeof buf);
        const char *path = d[i].file < nf ? f[d[i].file].path : NULL;
        emlat_cli_error (path, d[i].offset, "%s", buf);
      }
    else if (d[i].kind == EMLAT_DIAG_LIMIT)
      emlat_cli_error (NULL, UINT64_MAX, "reader limit reached: %s", d[i].what);
}

static void json_diag (struct emlat_json *j, const struct emlat_diag *d,
                       const struct emlat_file_summary *f, size_t nf)
{
  emlat_json_begin_object (j);
  record_json_diag_keys (j, d, d->file < nf ? f[d->file].path : NULL);
  emlat_json_end_object (j);
}

/* One element of "files": every key always present, null when the file
   could not be read far enough to know it (docs/JSON.md). */
static void json_file (struct emlat_json *j, const struct emlat_profile *p, size_t i)
{
  size_t nf;
  const struct emlat_file_summary *f = emlat_profile_files (p, &nf);
  const struct emlat_scan_result *s = &f[i].scan;
  int read = !f[i].read_error;
  emlat_json_begin_object (j);
  emlat_json_kv_str (j, "path", f[i].path);
  emlat_json_kv_str (j, "verdict", verdict_key (file_verdict (&f[i])));
  emlat_json_key (j, "ignored");
  emlat_json_bool (j, f[i].ignored);
  char why[160];
  emlat_json_kv_str (j, "read_error",
                     read ? NULL : cli_read_error (f[i].path, f[i].read_error, why, sizeof why));
  emlat_json_kv_u64_opt (j, "rotation", read && s->header_ok, s->header.rotation);
  emlat_json_kv_u64_opt (j, "bytes", read, s->file_bytes);
  emlat_json_kv_str (j, "stop", read ? emlat_stop_name (s->stop) : NULL);
  emlat_json_kv_u64_opt (j, "stop_offset", read, s->stop_offset);
  emlat_json_kv_u64_opt (j, "chunks", read, s->chunks);
  emlat_json_key (j, "chunks_by_type");
  if (read)
    {
      emlat_json_begin_object (j);
      for (unsigned ty = 1; ty <= EMLAT_CHUNK_TYPE_MAX_KNOWN; ty++)
        emlat_json_kv_u64 (j, emlat_chunk_type_name (ty), s->chunks_by_type[ty]);
      emlat_json_end_object (j);
    }
  else
    emlat_json_null (j);
  emlat_json_kv_u64_opt (j, "chunks_skipped", read, s->chunks_skipped);
  emlat_json_kv_u64_opt (j, "chunks_experimental", read, s->chunks_experimental);
  emlat_json_kv_u64_opt (j, "chunks_invalid", read, s->chunks_invalid);
  emlat_json_kv_u64_opt (j, "records", read, s->records);
  emlat_json_kv_u64_opt (j, "loss_records", read, s->loss_records);
  emlat_json_kv_u64_opt (j, "lost_records", read, s->lost_records);
  emlat_json_key (j, "final_stats");
  if (read)
    emlat_json_bool (j, s->final_stats);
  else
    emlat_json_null (j);
  emlat_json_key (j, "first_damage");
  const struct emlat_diag *dm = read ? first_damage (p, (uint32_t)i) : NULL;
  if (dm)
    json_diag (j, dm, f, nf);
  else
    emlat_json_null (j);
  emlat_json_end_object (j);
}

static void report_json (const struct emlat_profile *p, enum verdict v)
{
  size_t nf, nd;
  const struct emlat_file_summary *f = emlat_profile_files (p, &nf);
  const struct emlat_diag *d = emlat_profile_diags (p, &nd);
  const struct emlat_profile_totals *t = emlat_profile_totals (p);
  const struct emlat_file_header *h = emlat_profile_header (p);
  struct emlat_json j;
  emlat_json_init (&j, stdout);
  emlat_json_begin_object (&j);
  char uuid[37];
  if (h)
    emlat_uuid_format (h->uuid, uuid);
  emlat_json_kv_str (&j, "session", h ? uuid : NULL);
  emlat_json_kv_str (&j, "verdict", verdict_key (v));
  emlat_json_key (&j, "files");
  emlat_json_begin_array (&j);
  for (size_t i = 0; i < nf; i++)
    json_file (&j, p, i);
  emlat_json_end_array (&j);
  struct emlat_report_overhead ovh;
  emlat_report_overhead_of (p, &ovh);
  emlat_json_kv_u64_opt (&j, "exit_code", ovh.exit_known && !ovh.exit_signal,
                         (uint64_t)ovh.exit_code);
  emlat_json_kv_u64_opt (&j, "exit_signal", ovh.exit_known && ovh.exit_signal,
                         (uint64_t)ovh.exit_signal);
  emlat_json_key (&j, "interactions");
  emlat_json_begin_object (&j);
  emlat_json_kv_u64 (&j, "total", t->interactions);
  emlat_json_kv_u64 (&j, "open", t->interactions_open);
  emlat_json_end_object (&j);
  emlat_json_key (&j, "spans");
  emlat_json_begin_object (&j);
  emlat_json_kv_u64 (&j, "complete", t->spans_complete);
  emlat_json_kv_u64 (&j, "unwound", t->spans_unwound);
  emlat_json_kv_u64 (&j, "incomplete", t->spans_incomplete);
  emlat_json_kv_u64 (&j, "orphan_ends", t->spans_orphan_end);
  emlat_json_end_object (&j);
  emlat_json_kv_u64 (&j, "input_batches", t->input_batches);
  emlat_json_kv_u64 (&j, "loss_records", t->loss_records);
  emlat_json_kv_u64 (&j, "lost_records", t->lost_records);
  emlat_json_key (&j, "clean_stop");
  emlat_json_bool (&j, t->clean_stop);
  emlat_json_key (&j, "diagnostics");
  emlat_json_begin_array (&j);
  for (size_t i = 0; i < nd; i++)
    json_diag (&j, &d[i], f, nf);
  emlat_json_end_array (&j);
  emlat_json_kv_u64 (&j, "diagnostics_dropped", t->diagnostics_dropped);
  emlat_json_end_object (&j);
  emlat_json_line (&j);
}

/* The session UUID of PATH ("-": standard input), or -1 when its header
   cannot be read. */
static int read_uuid (const char *path, uint8_t uuid[16])
{
  uint8_t h[EMLAT_FILE_HEADER_SIZE];
  ssize_t n = -1;
  if (cli_is_stdin (path))
    {
      int fd = cli_stdin_fd ();
      off_t base = fd >= 0 ? lseek (fd, 0, SEEK_CUR) : -1;
      if (base >= 0)
        n = pread (fd, h, sizeof h, base);
    }
  else
    {
      struct stat st;
      int fd = emlat_input_open (path, &st); /* never blocks on a FIFO */
      if (fd < 0)
        return -1;
      n = pread (fd, h, sizeof h, 0);
      close (fd);
    }
  struct emlat_file_header fh;
  if (n < 0 || emlat_parse_file_header (h, (size_t)n, &fh) != EMLAT_STOP_CLEAN)
    return -1;
  memcpy (uuid, fh.uuid, 16);
  return 0;
}

static void usage (FILE *f)
{
  fprintf (f,
           "usage: emlat check [--json] FILE...\n"
           "\n"
           "Check .emlat recordings.  Files of one session (rotated files) are\n"
           "checked together as one set.  For each file: valid, damaged but\n"
           "recovered, or unreadable; chunk counts by type, records, losses,\n"
           "whether the recording stopped cleanly, and the first damage with its\n"
           "byte offset.  FILE - reads standard input (one file, read once).\n"
           "\n"
           "  --json      one JSON object per session set on stdout\n"
           "  -h, --help  this text;  -V, --version  the version\n"
           "\n"
           "Exit codes: 0 every file valid; 1 some file damaged but recovered\n"
           "(chunks invalid, undecodable or missing, rotated files missing; each\n"
           "problem on stderr), or a write error; 2 some file missing or\n"
           "unreadable, or invalid arguments.\n");
}

static int run_check (int argc, char **argv)
{
  static const struct option opts[] = {
    { "json", no_argument, NULL, 'j' },
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'V' },
    { NULL, 0, NULL, 0 },
  };
  int json = 0, c;
  while ((c = getopt_long (argc, argv, ":jhV", opts, NULL)) != -1)
    switch (c)
      {
      case 'j':
        json = 1;
        break;
      case 'h':
        usage (stdout);
        return EMLAT_EXIT_OK;
      case 'V':
        emlat_cli_version ("check");
        return EMLAT_EXIT_OK;
      default:
        return emlat_cli_bad_option ("check", c, argv, opts);
      }
  int n = argc - optind;
  if (n <= 0)
    return emlat_cli_usage_error ("check", "no FILE given");
  char **files = argv + optind;
  uint8_t (*uuids)[16] = calloc ((size_t)n, 16);
  int *ok = calloc ((size_t)n, sizeof *ok), *done = calloc ((size_t)n, sizeof *done);
  const char **group = calloc ((size_t)n, sizeof *group);
  if (!uuids || !ok || !done || !group)
    {
      emlat_cli_error (NULL, UINT64_MAX, "out of memory");
      free (uuids), free (ok), free (done), free (group);
      return EMLAT_EXIT_FAIL;
    }
  for (int i = 0; i < n; i++)
    ok[i] = read_uuid (files[i], uuids[i]) == 0;
  enum verdict worst = V_VALID;
  for (int i = 0; i < n; i++)
    {
      if (done[i])
        continue;
      /* A set: this file and every later one of the same session. */
      size_t g = 0;
      group[g++] = files[i];
      done[i] = 1;
      for (int k = i + 1; ok[i] && k < n; k++)
        if (!done[k] && ok[k] && memcmp (uuids[i], uuids[k], 16) == 0)
          {
            group[g++] = files[k];
            done[k] = 1;
          }
      struct emlat_profile *p;
      int rc = report_load (group, g, EMLAT_LOAD_STREAM, 0, &p);
      if (rc)
        {
          emlat_cli_error (files[i], UINT64_MAX, "cannot load: %s", strerror (-rc));
          worst = V_UNREADABLE;
          continue;
        }
      enum verdict v = set_verdict (p);
      if (json)
        report_json (p, v);
      else
        report_text (p, v);
      if (v > worst)
        worst = v;
      emlat_profile_free (p);
    }
  free (uuids), free (ok), free (done), free (group);
  return worst == V_VALID ? EMLAT_EXIT_OK : worst == V_DAMAGED ? EMLAT_EXIT_FAIL
                                                               : EMLAT_EXIT_USAGE;
}

EMLAT_VERB (check_verb, "check", "check .emlat files: valid, damaged but recovered, or unreadable",
            run_check)
