/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * limits.h -- resolving struct emlat_limits: zero fields take the defaults,
 * the chunk payload bound never exceeds the format's 16 MiB (F-22).
 */
#ifndef EMLAT_READER_LIMITS_H
#define EMLAT_READER_LIMITS_H

#include "emlat/emlat_reader.h"

void emlat_limits_resolve (const struct emlat_limits *in, struct emlat_limits *out);

#endif /* EMLAT_READER_LIMITS_H */
