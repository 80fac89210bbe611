/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * names.c -- printable names of the reader's and the format's enumerations,
 * the one-line description of a diagnostic, and the printed session UUID.
 *
 * Invariant: every function returns a static string and accepts any value,
 * answering "?" for one it does not know, because the values come from
 * untrusted files.
 */
#include <stdio.h>

#include "emlat/emlat_reader.h"

#define NAME_OF(table, v)                                                      \
  ((v) < sizeof (table) / sizeof (table)[0] && (table)[v] ? (table)[v] : "?")

EMLAT_API const char *emlat_stop_name (enum emlat_stop s)
{
  static const char *const names[] = {
    "clean end", "truncated header", "bad magic", "unsupported major version",
    "header CRC mismatch", "impossible size", "truncated payload",
    "nonzero padding", "payload CRC mismatch", "I/O error", "limit reached",
    "stopped by caller",
  };
  return NAME_OF (names, (unsigned)s);
}

EMLAT_API const char *emlat_invalid_name (enum emlat_invalid r)
{
  static const char *const names[] = {
    "valid", "bad varint", "payload too short for its records",
    "bytes left after the records", "reserved bits set", "value out of range",
    "schema version differs from type version", "block header not allowed",
    "id or index repeated",
  };
  return NAME_OF (names, (unsigned)r);
}

EMLAT_API const char *emlat_chunk_type_name (unsigned type)
{
  static const char *const names[] = {
    NULL, "SESSION", "STRING", "INPUT", "INTERACTION", "SPAN", "LOSS", "STATS", "EVENT", "RESOURCE",
  };
  return NAME_OF (names, type);
}

EMLAT_API const char *emlat_root_kind_name (unsigned k)
{
  static const char *const names[] = {
    "unknown", "tty_command", "synthetic_command", "timer", "process_data",
    "process_sentinel", "file_notification", "resize", "thread_wakeup",
    "maintenance", "unattributed_output", "application",
  };
  return NAME_OF (names, k);
}

EMLAT_API const char *emlat_status_name (unsigned s)
{
  static const char *const names[] = {
    NULL, "normal", "quit", "error", "throw", "superseded", "dropped", "open",
  };
  return NAME_OF (names, s);
}

EMLAT_API const char *emlat_span_kind_name (unsigned k)
{
  static const char *const names[] = {
    NULL, "input_ready", "read", "queue", "key_decode", "command_loop",
    "pre_command", "command", "post_command", "gc", "event_poll", "redisplay",
    "redisplay_decision", "desired_matrix", "matrix_compare", "window_update",
    "tty_write", "tty_flush", "wait", "timer", "process_filter",
    "process_sentinel", "user",
  };
  return NAME_OF (names, k);
}

EMLAT_API const char *emlat_span_status_name (unsigned s)
{
  static const char *const names[] = {
    "ok", "quit", "error", "throw", "unwound", "incomplete",
  };
  return NAME_OF (names, s);
}

EMLAT_API const char *emlat_time_field_name (unsigned f)
{
  static const char *const names[] = {
    "t_input_earliest", "t_input_latest", "t_input_ready", "t_read_begin",
    "t_read_end", "t_queue_insert", "t_queue_remove", "t_key_decode_done",
    "t_dispatch_begin", "t_root_work_end", "t_pre_command_begin",
    "t_pre_command_end", "t_command_begin", "t_command_end",
    "t_post_command_begin", "t_post_command_end", "t_redisplay_begin",
    "t_redisplay_end", "t_output_begin", "t_output_end", "t_flush_begin",
    "t_flush_end", "t_first_input_earliest", "t_first_input_latest",
    "t_interaction_end", "t_external_send", "t_external_first_output",
    "t_external_quiescent", "t_write_first_begin", "t_write_first_end",
    "t_write_last_begin", "t_write_last_end",
  };
  return NAME_OF (names, f);
}

EMLAT_API const char *emlat_value_field_name (unsigned f)
{
  static const char *const names[] = {
    "parent_cause", "scheduled_by_cause", "terminal_id", "frame_id",
    "first_source_batch", "first_source_begin", "first_source_end",
    "decisive_source_batch", "decisive_source_begin", "decisive_source_end",
    "first_redisplay_id", "last_redisplay_id", "final_output_epoch",
    "thread_cpu_begin", "thread_cpu_end",
  };
  return NAME_OF (names, f);
}

EMLAT_API const char *emlat_counter_name (unsigned c)
{
  static const char *const names[] = {
    "queue_depth_insert", "queue_depth_remove", "read_batch_bytes",
    "decoded_events", "key_sequence_length", "prefix_depth", "extra_reads",
    "buffer_size", "modiff_delta", "window_rows", "window_cols",
    "window_count", "gc_count", "gc_ns", "redisplay_attempts",
    "redisplay_preemptions", "redisplay_retries", "frames_considered",
    "frames_updated", "windows_considered", "windows_updated",
    "rows_generated", "rows_reused", "glyphs_emitted", "tty_bytes",
    "stdio_calls", "flush_failures", "write_calls", "output_epochs",
  };
  return NAME_OF (names, c);
}

EMLAT_API const char *emlat_quality_name (unsigned q)
{
  static const char *const names[] = {
    NULL, "observer_ready", "main_poll_ready", "read", "internal", "write",
    "flush", "inferred", "external",
  };
  return NAME_OF (names, q);
}

EMLAT_API const char *emlat_loss_reason_name (unsigned r)
{
  static const char *const names[] = {
    NULL, "ring_full", "no_ring", "write_error", "string_full",
    "writer_memory", "record_invalid",
  };
  return NAME_OF (names, r);
}

EMLAT_API const char *emlat_event_tag_name (unsigned t)
{
  static const char *const names[] = {
    NULL, "instant", "counter", "counter_f", "async_begin", "async_end",
    "flow_begin", "flow_step", "flow_end", "thread_name", "process_name",
    "fn_enter", "fn_exit",
  };
  return NAME_OF (names, t);
}

EMLAT_API const char *emlat_resource_field_name (unsigned f)
{
  static const char *const names[] = {
    "rss_bytes", "cpu_user_ns", "cpu_sys_ns", "cpu_share_ppm", "voluntary_csw",
    "involuntary_csw",
  };
  return NAME_OF (names, f);
}

EMLAT_API const char *emlat_diag_kind_name (enum emlat_diag_kind k)
{
  switch (k)
    {
    case EMLAT_DIAG_DAMAGE: return "damage";
    case EMLAT_DIAG_SKIP_TYPE: return "skipped unknown chunk type";
    case EMLAT_DIAG_SKIP_VERSION: return "skipped unsupported chunk version";
    case EMLAT_DIAG_SKIP_CODEC: return "skipped unsupported codec";
    case EMLAT_DIAG_SKIP_EXPERIMENTAL: return "skipped experimental chunk";
    case EMLAT_DIAG_INVALID_CHUNK: return "invalid chunk";
    case EMLAT_DIAG_SEQUENCE_GAP: return "chunk sequence gap";
    case EMLAT_DIAG_MISSING_SESSION: return "missing SESSION";
    case EMLAT_DIAG_EXTRA_SESSION: return "extra SESSION";
    case EMLAT_DIAG_HEADER_RESERVED: return "reserved header bits set";
    case EMLAT_DIAG_ROTATION_MISSING: return "rotated file missing";
    case EMLAT_DIAG_ROTATION_DUPLICATE: return "rotated file repeated";
    case EMLAT_DIAG_MIXED_SESSION: return "file of another session";
    case EMLAT_DIAG_START_MISMATCH: return "session start differs";
    case EMLAT_DIAG_ORPHAN_END: return "span end without begin";
    case EMLAT_DIAG_INCOMPLETE_SPAN: return "incomplete span";
    case EMLAT_DIAG_OPEN_INTERACTION: return "open interaction";
    case EMLAT_DIAG_DUPLICATE_COMPLETE: return "interaction completed twice";
    case EMLAT_DIAG_DUPLICATE_SPAN: return "span recorded twice";
    case EMLAT_DIAG_STRING_CONFLICT: return "string redefined";
    case EMLAT_DIAG_LIMIT: return "limit reached";
    case EMLAT_DIAG_NO_FINAL_STATS: return "no final STATS";
    case EMLAT_DIAG_DUPLICATE_BEGIN: return "interaction begun twice";
    case EMLAT_DIAG_DUPLICATE_INPUT: return "input batch recorded twice";
    case EMLAT_DIAG_SPAN_BACKWARDS: return "span ends before it starts";
    }
  return "?";
}

EMLAT_API int emlat_diag_format (const struct emlat_diag *d, char *buf, size_t n)
{
  const char *k = emlat_diag_kind_name (d->kind);
  char at[40] = "";
  if (d->offset != UINT64_MAX)
    snprintf (at, sizeof at, "offset %llu: ", (unsigned long long)d->offset);
  unsigned long long a = d->a, b = d->b;
  switch (d->kind)
    {
    case EMLAT_DIAG_DAMAGE:
      return snprintf (buf, n, "%s%s", at, emlat_stop_name ((enum emlat_stop)d->a));
    case EMLAT_DIAG_SKIP_TYPE:
    case EMLAT_DIAG_SKIP_VERSION:
    case EMLAT_DIAG_SKIP_EXPERIMENTAL:
      return snprintf (buf, n, "%s%s (type %u, version %u)", at, k, d->type, d->version);
    case EMLAT_DIAG_SKIP_CODEC:
      return snprintf (buf, n, "%s%s %llu (type %u): data lost", at, k, a, d->type);
    case EMLAT_DIAG_INVALID_CHUNK:
      return snprintf (buf, n, "%sinvalid %s chunk: %s at payload byte %llu", at,
                       emlat_chunk_type_name (d->type),
                       emlat_invalid_name ((enum emlat_invalid)d->a), b);
    case EMLAT_DIAG_SEQUENCE_GAP:
      return snprintf (buf, n, "%s%s: expected %llu, found %llu", at, k, a, b);
    case EMLAT_DIAG_HEADER_RESERVED:
      return snprintf (buf, n, "%s%s (flags 0x%llx, reserved 0x%llx)", at, k, a, b);
    case EMLAT_DIAG_ROTATION_MISSING:
    case EMLAT_DIAG_ROTATION_DUPLICATE:
      return snprintf (buf, n, "%s%s: rotation sequence %llu", at, k, a);
    case EMLAT_DIAG_ORPHAN_END:
    case EMLAT_DIAG_DUPLICATE_SPAN:
      return snprintf (buf, n, "%s%s: span %llu", at, k, a);
    case EMLAT_DIAG_INCOMPLETE_SPAN:
    case EMLAT_DIAG_SPAN_BACKWARDS:
      return snprintf (buf, n, "%s%s: span %llu (cause %llu)", at, k, a, b);
    case EMLAT_DIAG_OPEN_INTERACTION:
    case EMLAT_DIAG_DUPLICATE_COMPLETE:
    case EMLAT_DIAG_DUPLICATE_BEGIN:
      return snprintf (buf, n, "%s%s: cause %llu", at, k, a);
    case EMLAT_DIAG_DUPLICATE_INPUT:
      return snprintf (buf, n, "%s%s: batch %llu", at, k, a);
    case EMLAT_DIAG_STRING_CONFLICT:
      return snprintf (buf, n, "%s%s: string %llu", at, k, a);
    case EMLAT_DIAG_LIMIT:
      return snprintf (buf, n, "%s%s: %s", at, k, d->what);
    default:
      return snprintf (buf, n, "%s%s", at, k);
    }
}

EMLAT_API void emlat_uuid_format (const uint8_t u[16], char out[37])
{
  static const char hex[] = "0123456789abcdef";
  int k = 0;
  for (int i = 0; i < 16; i++)
    {
      if (i == 4 || i == 6 || i == 8 || i == 10)
        out[k++] = '-';
      out[k++] = hex[u[i] >> 4];
      out[k++] = hex[u[i] & 15];
    }
  out[k] = 0;
}
