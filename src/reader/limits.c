/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * limits.c -- default reader limits, sized for a day-long session.
 *
 * A day of continuous recording at a busy 20 interactions/s is under 2 M
 * interactions and, at ~30 spans each, 50 M spans (~600 MB of file at 12
 * bytes per span).  The defaults leave headroom above that while keeping
 * every structure's size bounded.  Memory: a streamed load
 * (EMLAT_LOAD_STREAM) of such a day needs a few tens of MB; a load that
 * keeps every interaction about 300 bytes each (600 MB for the day); 1 GiB
 * of allocation bounds both and refuses what could only be hostile (7 M
 * interactions begun and never completed, say).
 */
#include "emlat/emlat_reader.h"
#include "format/format.h"
#include "reader/limits.h"

EMLAT_API void emlat_limits_default (struct emlat_limits *lim)
{
  lim->max_file_bytes = (uint64_t)4 << 30;
  lim->max_chunk_payload = EMLAT_CHUNK_PAYLOAD_MAX;
  lim->max_files = 100000;
  lim->max_interactions = 20u << 20;
  lim->max_spans = 64u << 20;
  lim->max_open_spans = 4u << 20;
  lim->max_strings = 1u << 20;
  lim->max_string_bytes = 256u << 20;
  lim->max_input_batches = 50u << 20;
  lim->max_losses = 1u << 20;
  lim->max_events = 64u << 20;
  lim->max_diagnostics = 100000;
  lim->max_alloc_bytes = (uint64_t)1 << 30;
}

void emlat_limits_resolve (const struct emlat_limits *in, struct emlat_limits *out)
{
  struct emlat_limits def;
  emlat_limits_default (&def);
  if (!in)
    {
      *out = def;
      return;
    }
  *out = *in;
#define DEFAULT_IF_ZERO(f) if (!out->f) out->f = def.f
  DEFAULT_IF_ZERO (max_file_bytes);
  DEFAULT_IF_ZERO (max_chunk_payload);
  DEFAULT_IF_ZERO (max_files);
  DEFAULT_IF_ZERO (max_interactions);
  DEFAULT_IF_ZERO (max_spans);
  DEFAULT_IF_ZERO (max_open_spans);
  DEFAULT_IF_ZERO (max_strings);
  DEFAULT_IF_ZERO (max_string_bytes);
  DEFAULT_IF_ZERO (max_input_batches);
  DEFAULT_IF_ZERO (max_losses);
  DEFAULT_IF_ZERO (max_events);
  DEFAULT_IF_ZERO (max_diagnostics);
  DEFAULT_IF_ZERO (max_alloc_bytes);
#undef DEFAULT_IF_ZERO
  if (out->max_chunk_payload > EMLAT_CHUNK_PAYLOAD_MAX)
    out->max_chunk_payload = EMLAT_CHUNK_PAYLOAD_MAX;
}
