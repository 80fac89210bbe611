/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_text_wf.h -- the text rendering of the tail waterfall: one row per
 * input bound or span on a 40-column time axis, then the split of the wall
 * time and the interaction's redisplay and output counters.
 */
#ifndef EMLAT_CLI_REPORT_TEXT_WF_H
#define EMLAT_CLI_REPORT_TEXT_WF_H

#include <stdio.h>

#include "render/report_render.h"

void report_text_waterfall (const struct report_ctx *c, FILE *f);

#endif /* EMLAT_CLI_REPORT_TEXT_WF_H */
