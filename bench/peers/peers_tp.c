/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * peers_tp.c -- instantiates the LTTng-UST probe of peers_tp.h (the
 * provider's code and its registration constructor) in peer_lttng.
 */
#define TRACEPOINT_CREATE_PROBES
#define TRACEPOINT_DEFINE
#include "peers_tp.h"
