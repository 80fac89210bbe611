/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_res_render.h -- the resources of the process in `emlat report`
 * (text, JSON value, HTML section) and in `emlat compare` (report_res_render.c).
 */
#ifndef EMLAT_RENDER_REPORT_RES_RENDER_H
#define EMLAT_RENDER_REPORT_RES_RENDER_H

#include <stdio.h>

#include "emlat/emlat_report.h"
#include "render/json.h"

void report_text_resources (const struct emlat_report_resources *r, FILE *f);
/* The value of the key "resources": an object, or null without samples. */
void report_json_resources_value (struct emlat_json *j, const struct emlat_report_resources *r);
void report_html_resources (const struct emlat_report_resources *r, FILE *f);
void report_compare_resources_text (const struct emlat_report_resources *a,
                                    const struct emlat_report_resources *b, FILE *f);

#endif /* EMLAT_RENDER_REPORT_RES_RENDER_H */
