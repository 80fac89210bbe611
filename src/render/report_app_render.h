/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_app_render.h -- the application API's part of `emlat report`
 * (report_app_render.c): the sections, counters and events block of the
 * text, JSON and HTML reports, and the label of a latency group, which
 * for an application interaction is its name.
 */
#ifndef EMLAT_RENDER_REPORT_APP_RENDER_H
#define EMLAT_RENDER_REPORT_APP_RENDER_H

#include <stdio.h>

#include "render/json.h"
#include "render/report_render.h"

/* G's label: "tty command", ..., or "NAME (application)" in BUF. */
const char *report_group_label (const struct report_ctx *c, const struct emlat_report_group *g,
                                char *buf, size_t n);
/* The label of interaction CAUSE of root kind KIND (0..max): its root
   kind's, or for an application interaction "NAME (application)" in BUF. */
const char *report_ix_label (const struct report_ctx *c, uint64_t cause, unsigned kind, char *buf,
                             size_t n);
/* 1 when A is NULL or holds nothing to show. */
int report_app_empty (const struct emlat_report_app *a);
void report_text_app (const struct report_ctx *c, FILE *f);
/* The key "application" and its value (null without a summary). */
void report_json_app (struct emlat_json *j, const struct report_ctx *c);
void report_html_app (const struct report_ctx *c, FILE *f);
/* The functions of a -finstrument-functions trace: the top 20 by
   inclusive time, named by C->syms (module+offset without it); nothing in
   text and HTML, an empty "top" in JSON, without such records. */
void report_text_functions (const struct report_ctx *c, FILE *f);
void report_json_functions (struct emlat_json *j, const struct report_ctx *c);
void report_html_functions (const struct report_ctx *c, FILE *f);

#endif /* EMLAT_RENDER_REPORT_APP_RENDER_H */
