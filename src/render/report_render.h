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

struct report_ctx
{
  const struct emlat_profile *p;
  const struct emlat_report_model *m;
  struct emlat_report_overhead ovh;
  const struct emlat_report_waterfall *w;   /* NULL: no waterfall */
  const char *w_why;                  /* "tail" or "requested" */
  int damaged;                        /* the reader lost data (exit 1) */
  int unicode;                        /* Unicode bars and sparklines */
  int per_interaction;                /* JSON: every interaction's metrics */
  const struct emlat_report_app *app; /* the application API's records per
                                         name; NULL: not built */
  struct emlat_report_resources res;  /* the process's CPU and memory */
  struct report_syms *syms;           /* names traced functions (NULL:
                                         module+offset); report_syms.h */
};

void report_text (const struct report_ctx *c, FILE *f);
/* Returns 0, or -1 when the JSON writer reported misuse or overflow. */
int report_json (const struct report_ctx *c, FILE *f);
int report_html (const struct report_ctx *c, FILE *f);

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

#endif /* EMLAT_CLI_REPORT_RENDER_H */
