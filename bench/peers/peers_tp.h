/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * peers_tp.h -- the LTTng-UST tracepoint provider of the peers benchmark
 * (bench/peers/peer_lttng.c): one event, emlat_peers:event, with the same
 * payload every peer records (a 32-bit event id and a 64-bit value); the
 * timestamp is LTTng's own (its clock read in the probe).
 *
 * Read several times by <lttng/tracepoint-event.h>, as every provider
 * header is (lttng-ust(3)); peers_tp.c instantiates the probe.
 */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER emlat_peers

#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./peers_tp.h"

#if !defined(PEERS_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define PEERS_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

TRACEPOINT_EVENT (emlat_peers, event,
                  TP_ARGS (uint32_t, id, uint64_t, value),
                  TP_FIELDS (ctf_integer (uint32_t, id, id)
                             ctf_integer (uint64_t, value, value)))

#endif /* PEERS_TP_H */

#include <lttng/tracepoint-event.h>
