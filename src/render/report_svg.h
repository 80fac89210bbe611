/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_svg.h -- inline SVG charts for the HTML report: a latency CDF and
 * a histogram on a logarithmic time axis, and the waterfall of one
 * interaction.  Plain SVG 1.1 elements only (no script, no external
 * reference), so the page stays self-contained and renders without
 * network access.
 *
 * Invariants: every chart is one <svg> element with the given id and a
 * <title>; numbers shown in text are also in data-* attributes so tests
 * can find them in the DOM; a CDF of more than REPORT_SVG_CDF_POINTS
 * samples is drawn through that many evenly spaced ranks (always including
 * the minimum and the maximum); a CDF has at most REPORT_SVG_CDF_TIPS
 * points and a histogram bar, a waterfall row as many, whose <title> gives
 * the exact value in ns and formatted (the tooltips).
 */
#ifndef EMLAT_CLI_REPORT_SVG_H
#define EMLAT_CLI_REPORT_SVG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "emlat/emlat_report.h"

#define REPORT_SVG_CDF_POINTS 400
/* Hover points of a CDF, each with its exact value in a <title>. */
#define REPORT_SVG_CDF_TIPS 50

/* Write S (N bytes, any bytes) HTML-escaped; control bytes become '?'. */
void report_html_escape (FILE *f, const char *s, size_t n);

void report_svg_cdf (FILE *f, const char *id, const char *title, const uint64_t *sorted,
                     size_t n, const char *color);
void report_svg_hist (FILE *f, const char *id, const char *title, const uint64_t *sorted,
                      size_t n, const char *color);
void report_svg_waterfall (FILE *f, const char *id, const struct emlat_report_waterfall *w);

#endif /* EMLAT_CLI_REPORT_SVG_H */
