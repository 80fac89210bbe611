/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bytestore.c -- see bytestore.h.  Invariant: a block's USED bytes are
 * copies handed out; a copy larger than a quarter block gets a block of
 * its own, so at most a quarter of each block is wasted.
 */
#include "reader/bytestore.h"

#include <stdlib.h>
#include <string.h>

#define BLOCK_BYTES 65536u

struct emlat_bytestore_block
{
  struct emlat_bytestore_block *next;
  size_t cap, used;
  uint8_t data[];
};

static struct emlat_bytestore_block *
block_new (struct emlat_budget *b, size_t cap)
{
  size_t bytes = sizeof (struct emlat_bytestore_block) + cap;
  if (emlat_budget_take (b, bytes) != 0)
    return NULL;
  struct emlat_bytestore_block *k = malloc (bytes);
  if (!k)
    {
      emlat_budget_give (b, bytes);
      return NULL;
    }
  k->next = NULL;
  k->cap = cap;
  k->used = 0;
  return k;
}

const uint8_t *
emlat_bytestore_copy (struct emlat_bytestore *s, struct emlat_budget *b, const uint8_t *src,
                      size_t n)
{
  struct emlat_bytestore_block *k = s->head;
  if (!k || k->cap - k->used < n)
    {
      int own = n > BLOCK_BYTES / 4;
      struct emlat_bytestore_block *nk = block_new (b, own ? n : BLOCK_BYTES);
      if (!nk)
        return NULL;
      if (own && k)
        {
          /* Keep filling the current block; the big copy goes behind it. */
          nk->next = k->next;
          k->next = nk;
        }
      else
        {
          nk->next = k;
          s->head = nk;
        }
      k = nk;
    }
  uint8_t *dst = k->data + k->used;
  if (n)
    memcpy (dst, src, n);
  k->used += n;
  return dst;
}

void
emlat_bytestore_clear (struct emlat_bytestore *s, struct emlat_budget *b)
{
  for (struct emlat_bytestore_block *k = s->head, *next; k; k = next)
    {
      next = k->next;
      if (b)
        emlat_budget_give (b, sizeof *k + k->cap);
      free (k);
    }
  s->head = NULL;
}
