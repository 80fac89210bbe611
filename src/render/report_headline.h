/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_headline.h -- the first screen of `emlat report` (docs/REPORT.md
 * "The first screen"): "how fast is it?" answered per root kind in one
 * line (n, median, p90, p99, max of the headline and the counts over 16,
 * 33 and 100 ms), then the five slowest interactions with the phase that
 * dominated each.  The same content in text, JSON and HTML.
 *
 * The headline is latency_lower_ns; a kind without it (no key arrival,
 * no output) is shown by its group's lead metric instead, named.
 * Invariant: the counts are read from the lead metric's kept samples
 * (emlat_report_model keeps them under EMLAT_REPORT_MODEL_LEAD_ONLY),
 * so they are exact.
 */
#ifndef EMLAT_RENDER_REPORT_HEADLINE_H
#define EMLAT_RENDER_REPORT_HEADLINE_H

#include <stdio.h>

#include "render/json.h"
#include "render/report_render.h"

/* Slowest interactions on the first screen. */
#define REPORT_HEADLINE_SLOWEST 5

struct report_headline_row
{
  const struct emlat_report_group *g; /* the group shown for the kind */
  int metric;                          /* its lead metric; -1: none */
  uint64_t over[EMLAT_REPORT_THRESHOLDS];
};

struct report_headline_slow
{
  uint64_t cause;
  unsigned kind;
  struct emlat_report_metrics m;
  int phase;                           /* dominant phase metric, or -1 */
};

/* The rows, one per root kind (and application name) that has
   interactions, into ROWS (EMLAT_REPORT_GROUPS of them at most). */
size_t report_headline_rows (const struct report_ctx *c, struct report_headline_row *rows);
/* The first REPORT_HEADLINE_SLOWEST of the slowest interactions. */
size_t report_headline_slowest (const struct report_ctx *c,
                                struct report_headline_slow out[REPORT_HEADLINE_SLOWEST]);

void report_text_headline (const struct report_ctx *c, FILE *f);
/* The key "headline" and its object. */
void report_json_headline (struct emlat_json *j, const struct report_ctx *c);
void report_html_headline (const struct report_ctx *c, FILE *f);

#endif /* EMLAT_RENDER_REPORT_HEADLINE_H */
