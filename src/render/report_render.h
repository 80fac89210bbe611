/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_render.h -- the three renderings of one `emlat report`: text for
 * a terminal or a pipe (report_text.c), one JSON document
 * (report_json.c, schema in docs/REPORT.md) and one self-contained HTML
 * page (report_html.c with report_svg.c).  All three show the same
 * content, computed beforehand into the model and the waterfall; a
 * renderer only formats.
 */
#ifndef EMLAT_CLI_REPORT_RENDER_H
#define EMLAT_CLI_REPORT_RENDER_H

#include <stdio.h>

#include "emlat/emlat_report.h"
#include "emlat/emlat_reader.h"

/* Text lines of the text report's loss section before it says "N more". */
#define REPORT_TEXT_MAX_LOSSES 50

struct spool;
struct report_marks;

struct report_ctx
{
  const struct emlat_profile *p;
  const struct emlat_report_model *m;
  struct emlat_report_overhead ovh;
  const struct emlat_report_waterfall *w;   /* NULL: no waterfall */
  const char *w_why;                  /* "tail" or "requested" */
  int damaged;                        /* the reader lost data (exit 1) */
  int unicode;                        /* Unicode bars and sparklines */
  int per_interaction;                /* JSON: every interaction's metrics, */
  struct spool *per_ix;               /* put here by report_per_ix_put */
  const struct emlat_report_names *names;   /* NULL or has 0: no names */
  const struct emlat_report_app *app; /* the application API's records per
                                         name; NULL: not built */
  struct emlat_report_resources res;  /* the process's CPU and memory */
  struct report_syms *syms;           /* names traced functions (NULL:
                                         module+offset); report_syms.h */
  const struct report_marks *marks;   /* the HTML timeline's interactions
                                         (report_marks.h); NULL: none */
  const struct emlat_profile *pd;     /* the replay driver's profile and */
  const struct emlat_report_join *join; /* the join; NULL: not joined */
};

void report_text (const struct report_ctx *c, FILE *f);
/* Returns 0, or -1 when the JSON writer reported misuse or overflow. */
int report_json (const struct report_ctx *c, FILE *f);
int report_html (const struct report_ctx *c, FILE *f);
/* A table cell of a duration: the formatted value, with the exact
   nanoseconds in data-ns and the tooltip; "-" when HAS is 0. */
void report_html_dur_cell (FILE *f, int has, uint64_t ns);
/* Put IX of P into S for the JSON report's per-interaction list, which
   lists them by cause (S sorts them: they may come in any order).  0 or a
   negative errno. */
int report_per_ix_put (struct spool *s, const struct emlat_profile *p,
                       const struct emlat_interaction *ix);

/* The outside view joined (report_joined.c, docs/REPORT.md "The outside
   view"): the text section (nothing when not joined), the "joined" member
   (null then), and the HTML section (report_html_joined.c; nothing then). */
struct emlat_json;
void report_text_joined (const struct report_ctx *c, FILE *f);
void report_json_joined (struct emlat_json *j, const struct report_ctx *c);
void report_html_joined (const struct report_ctx *c, FILE *f);

/* Shared helpers. */
/* "tty_command" etc. for root kind K (0: "unknown"). */
const char *report_kind_key (unsigned k);
/* "tty command" etc. */
const char *report_kind_label (unsigned k);
/* The first SESSION string entry KEY as a NUL-terminated copy in BUF
   (truncated to N - 1 bytes), or NULL when absent or not a string. */
const char *report_session_str (const struct emlat_profile *p, const char *key, char *buf,
                                size_t n);
int report_session_uint (const struct emlat_profile *p, const char *key, uint64_t *out);
/* Whether the waterfall W shows its "dispatch to end" row, and its
   interval: when the thread CPU was read at the interaction's end, so
   that the CPU readings, the waits and the unknown rest are of that
   interval rather than of the wall time (emlat_report_cpu_window). */
int report_cpu_window_row (const struct emlat_report_waterfall *w, uint64_t *from, uint64_t *to);

/* Names (report_names.c): buffer size for one name. */
#define REPORT_NAME_LEN 4097
struct emlat_json;
/* The name of interaction CAUSE into BUF, or NULL when it has none. */
const char *report_ix_name (const struct report_ctx *c, uint64_t cause, char *buf, size_t n);
/* The "Work by name" section; nothing without names. */
void report_text_names (const struct report_ctx *c, FILE *f);
/* The "names" member: null without names. */
void report_json_names (struct emlat_json *j, const struct report_ctx *c);
/* The "Work by name" section of the HTML page; nothing without names. */
void report_html_names (const struct report_ctx *c, FILE *f);
/* A distribution object as in the groups of report_json.c. */
void report_json_dist (struct emlat_json *j, const struct emlat_report_dist *d);

/* `emlat compare` by name (compare_names.c): a text section (nothing
   unless both sessions record names and are comparable) and the "names"
   member (null then). */
void compare_text_names (const struct emlat_profile *pa, const struct emlat_profile *pb,
                         const struct emlat_report_name_comparison *nc, FILE *f);
void compare_json_names (struct emlat_json *j, const struct emlat_profile *pa,
                         const struct emlat_profile *pb,
                         const struct emlat_report_name_comparison *nc);

#endif /* EMLAT_CLI_REPORT_RENDER_H */
