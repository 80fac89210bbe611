#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# cache-lock.sh -- run a command while holding the exclusive lock of an Emacs
# build cache (used by emacs/build.sh for the whole build).
#
#   sh emacs/cache-lock.sh CACHE COMMAND [ARG...]
#
# Every clone of emlat builds into the same cache by default
# (~/.cache/emlat/emacs-28.2), and two builds in one tree at once clobber
# each other (an emacs.pdmp of 0 bytes was seen).  The lock is flock(1)
# (util-linux) on CACHE/build.lock; while another process holds it this
# script says so on stderr, with that process's id, and waits.  Exits with
# COMMAND's status.
#
# Invariants: the lock is held from before COMMAND starts until it and this
# script have ended, and only then released; the kernel releases it when
# the holders die, so a killed build leaves no stale lock behind.  The file
# holds the id of the last process that took the lock (for the message
# only; the lock is the flock, never the file's content).
set -eu

[ $# -ge 2 ] || { echo "usage: cache-lock.sh CACHE COMMAND [ARG...]" >&2; exit 2; }
cache=$1
shift
mkdir -p "$cache"
lock=$cache/build.lock

# Descriptor 9 stays open (and locked) in this shell while COMMAND runs.
exec 9>>"$lock"
if ! flock -n 9; then
  holder=$(cat "$lock" 2>/dev/null || true)
  echo "emacs/cache-lock.sh: another build holds $lock${holder:+ (process $holder)}; waiting for it" >&2
  t0=$(date +%s)
  flock 9
  echo "emacs/cache-lock.sh: got $lock after $(( $(date +%s) - t0 )) s" >&2
fi
echo $$ > "$lock"

status=0
"$@" || status=$?
exit $status
