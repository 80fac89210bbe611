/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * encode_event.c -- the EVENT record encoder (docs/FORMAT.md 6.9): instants,
 * named counters, async slices, flows, thread and process names of the
 * application API (emlat_app.h); and the RESOURCE record encoder (6.10),
 * the writer's samples of the process.
 *
 * Invariants: the chunk's block names the thread (an EVENT block's thread
 * id is never 0, F-53), so a record has no [thread]; the time is a delta
 * from prev_t (F-51) and updates it; a record is at most five varints and
 * eight bytes, asked for before it is written.
 */
#include <string.h>

#include "common/endian.h"
#include "common/leb128.h"
#include "format/encode.h"
#include "format/format.h"

int
emlat_enc_event (struct emlat_cb *cb, const struct emlat_enc_event *e, uint64_t represents)
{
  uint8_t *p = emlat_cb_room (cb, 5 * EMLAT_VARINT_MAX + 8);
  if (!p)
    return -1;
  size_t n = emlat_put_uvarint (p, e->tag);
  n += emlat_put_uvarint (p + n, e->name);
  n += emlat_put_svarint (p + n, (int64_t)(e->t - cb->prev_t));
  cb->prev_t = e->t;
  if (EMLAT_EVENT_HAS_ID (e->tag) || EMLAT_EVENT_IS_FN (e->tag))
    n += emlat_put_uvarint (p + n, e->id);
  if (e->tag == EMLAT_EV_COUNTER)
    n += emlat_put_svarint (p + n, e->iv);
  else if (e->tag == EMLAT_EV_COUNTER_F)
    {
      uint64_t bits;
      memcpy (&bits, &e->fv, 8);
      emlat_put64 (p + n, bits);
      n += 8;
    }
  emlat_cb_commit (cb, n, represents, e->t);
  return 0;
}

_Static_assert (EMLAT_RES_FIELDS == EMLAT_RES_FIELDS_MAX, "resource fields");

int
emlat_enc_sample (struct emlat_cb *cb, const struct emlat_enc_sample *s)
{
  uint8_t *p = emlat_cb_room (cb, (2 + EMLAT_RES_FIELDS) * EMLAT_VARINT_MAX);
  if (!p)
    return -1;
  size_t n = emlat_put_svarint (p, (int64_t)(s->t - cb->prev_t));
  cb->prev_t = s->t;
  uint32_t mask = s->mask & EMLAT_RES_MASK_ALL;
  n += emlat_put_uvarint (p + n, mask);
  for (unsigned i = 0; i < EMLAT_RES_FIELDS; i++)
    if (mask & (1u << i))
      n += emlat_put_uvarint (p + n, s->v[i]);
  emlat_cb_commit (cb, n, 0, s->t);
  return 0;
}
