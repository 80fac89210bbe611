/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_html_timeline.h -- the HTML report's timeline section, the
 * container of a clicked interaction's waterfall and the JSON the page's
 * script draws them from (report_html_timeline.c), and the script itself
 * (report_html_script.c).
 */
#ifndef EMLAT_RENDER_REPORT_HTML_TIMELINE_H
#define EMLAT_RENDER_REPORT_HTML_TIMELINE_H

#include <stdio.h>

#include "render/report_render.h"

/* The sections "timeline-section" and "interaction" and the data block.
   Returns 0 or -1 when memory ran out. */
int report_html_timeline (const struct report_ctx *c, FILE *f);
/* The page's one script: the zoomable timeline, the waterfall of a clicked
   mark (or of #cause=ID at load), tooltips. */
void report_html_script (FILE *f);

#endif /* EMLAT_RENDER_REPORT_HTML_TIMELINE_H */
