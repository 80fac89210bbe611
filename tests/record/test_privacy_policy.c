/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test_privacy_policy.c -- a recording layer states its own privacy policy
 * (docs/FORMAT.md 8.1, F-44, F-60): a session started with the SESSION
 * entry privacy.policy = "names" in emlat_options.meta has exactly one
 * privacy.policy entry, "names", in its SESSION chunk; a session without
 * it has exactly one, "default".  Strings interned in a names session are
 * STRING records, and the reports resolve a command span's detail to its
 * name only in a names session (emlat_report_names_build), for every
 * interaction whether the load keeps them or streams them (as the
 * command's loads do).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emlat/emlat.h"
#include "emlat/emlat_reader.h"
#include "emlat/emlat_report.h"
#include "tap.h"
#include "testutil.h"

struct count
{
  int n;
  char value[64];
};

static int
on_record (void *ctx, const struct emlat_chunk_info *c, const struct emlat_record *r)
{
  struct count *k = ctx;
  (void)c;
  if (r->kind == EMLAT_REC_KV && r->chunk_type == 1 && r->u.kv.key_len == 14
      && memcmp (r->u.kv.key, "privacy.policy", 14) == 0)
    {
      k->n++;
      size_t n = r->u.kv.s_len < sizeof k->value - 1 ? r->u.kv.s_len : sizeof k->value - 1;
      memcpy (k->value, r->u.kv.s, n);
      k->value[n] = 0;
    }
  return 0;
}

#define COMMANDS 40

/* Record COMMANDS tty commands whose command span's detail is the string
   "forward-char", into PATH, with POLICY (NULL: none). */
static void
record (const char *path, const char *policy)
{
  struct emlat_meta meta[] = { { .key = "privacy.policy", .type = EMLAT_META_STR,
                                 .s = policy, .s_len = policy ? strlen (policy) : 0 } };
  struct emlat_options o = { .path = path, .meta = policy ? meta : NULL, .n_meta = policy ? 1 : 0 };
  CHECK_EQ_I64 (emlat_start (&o), 0);
  uint64_t name = emlat_string ("forward-char", 12);
  CHECK (name != 0, "emlat_string");
  for (int i = 0; i < COMMANDS; i++)
    {
      uint64_t c = emlat_ix_begin (EMLAT_ROOT_TTY_COMMAND, 0, 0);
      uint64_t s = emlat_span_begin (EMLAT_SPAN_COMMAND, c);
      emlat_span_end (s, EMLAT_SPAN_OK, name);
      emlat_ix_end (c, EMLAT_STATUS_NORMAL);
    }
  CHECK_EQ_I64 (emlat_stop (), 0);
}

static void
check (const char *path, const char *want_policy, int want_named)
{
  uint8_t *buf;
  size_t len;
  CHECK_EQ_I64 (emlat_read_file (path, NULL, &buf, &len), 0);
  struct count k = { 0 };
  struct emlat_scan_params sp = { 0 };
  struct emlat_scan_result res;
  sp.visitor.ctx = &k;
  sp.visitor.on_record = on_record;
  CHECK_EQ_I64 (emlat_scan (buf, len, &sp, &res), 0);
  free (buf);
  CHECK_EQ_I64 (k.n, 1);
  CHECK_EQ_STR (k.value, want_policy);

  for (int stream = 0; stream < 2; stream++)
    {
      struct emlat_profile *p;
      const char *paths[] = { path };
      CHECK_EQ_I64 (emlat_profile_load (paths, 1, NULL, stream ? EMLAT_LOAD_STREAM : 0, &p), 0);
      struct emlat_report_names nm;
      CHECK_EQ_I64 (emlat_report_names_build (p, &nm), 0);
      CHECK_EQ_I64 (nm.has, want_named);
      if (want_named)
        {
          CHECK_EQ_U64 (nm.named, COMMANDS);
          CHECK_EQ_U64 (nm.n, 1);
          char name[32];
          CHECK_EQ_STR (emlat_report_name_format (p, emlat_report_name_id (&nm, 1), name,
                                                  sizeof name),
                        "forward-char");
          CHECK_EQ_U64 (nm.g[0].n, COMMANDS);
          CHECK (nm.g[0].has_name && nm.g[0].name_len == 12, "the group is named");
        }
      else
        CHECK_EQ_U64 (nm.n, 0);
      emlat_report_names_free (&nm);
      emlat_profile_free (p);
    }
}

int
main (void)
{
  const char *dir = tu_tmpdir ();
  char *names = tu_strf ("%s/names.emlat", dir), *plain = tu_strf ("%s/default.emlat", dir);
  record (names, "names");
  record (plain, NULL);
  check (names, "names", 1);
  check (plain, "default", 0);
  free (names);
  free (plain);
  TEST_DONE ();
}
