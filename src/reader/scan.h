/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * scan.h -- the scanner (scan.c) over a window (window.h), for the
 * loader's streamed files and re-scans; emlat_scan and emlat_scan_fd
 * (emlat_reader.h) are the public forms.
 */
#ifndef EMLAT_READER_SCAN_H
#define EMLAT_READER_SCAN_H

#include "emlat/emlat_reader.h"
#include "reader/window.h"

/* Scan the input of W as one .emlat file (emlat_scan's contract).  A read
   error stops it with EMLAT_STOP_IO_ERROR, a window the budget could not
   grow with EMLAT_STOP_LIMIT. */
void emlat_scan_window (struct emlat_window *w, const struct emlat_scan_params *p,
                        struct emlat_scan_result *res);

#endif /* EMLAT_READER_SCAN_H */
