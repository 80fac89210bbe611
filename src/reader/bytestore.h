/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bytestore.h -- copies of small byte strings that must outlive the chunk
 * they were read from: a streamed file's chunk is gone once the scanner
 * moves on, so the strings and the SESSION and STATS keys and values a
 * profile keeps are copied here.  Copies never move (blocks are chained,
 * not reallocated); every block is charged to a budget.
 */
#ifndef EMLAT_READER_BYTESTORE_H
#define EMLAT_READER_BYTESTORE_H

#include <stddef.h>
#include <stdint.h>

#include "reader/budget.h"

struct emlat_bytestore_block;

struct emlat_bytestore
{
  struct emlat_bytestore_block *head; /* the block being filled, newest first */
};

/* A copy of SRC[0..N) (N may be 0: a valid pointer to nothing), stable
   until emlat_bytestore_free or _clear; NULL when B refused the memory. */
const uint8_t *emlat_bytestore_copy (struct emlat_bytestore *s, struct emlat_budget *b,
                                     const uint8_t *src, size_t n);
/* Forget every copy (they must no longer be used) and free the blocks. */
void emlat_bytestore_clear (struct emlat_bytestore *s, struct emlat_budget *b);
#define emlat_bytestore_free emlat_bytestore_clear

#endif /* EMLAT_READER_BYTESTORE_H */
