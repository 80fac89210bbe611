#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_emacs_cache_lock.sh -- builds of the profiled Emacs that share a cache
# take turns (emacs/cache-lock.sh, emacs/build.sh), shown without building
# Emacs, in a scratch cache:
#   - two concurrent `cache-lock.sh CACHE COMMAND` with a stand-in COMMAND
#     that logs its start, sleeps 1 s and logs its end: the logs do not
#     interleave, the second says it waits (naming the holder's process),
#     and the two together take at least 2 s;
#   - emacs/build.sh waits for a lock held on its cache before doing
#     anything (it then stops at its first check, a missing libemlat.a).
#
# Timing tolerance: only lower bounds (the lock makes things slower, never
# faster), so a loaded machine cannot fail it.
set -eu

SRCDIR=${SRCDIR:-$(pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail () { echo "FAIL: $*"; exit 1; }
command -v flock >/dev/null 2>&1 || fail "flock(1) (util-linux) is not installed"

cache=$tmp/cache
log=$tmp/log
stand_in='echo "start $1" >> "$2"; sleep 1; echo "end $1" >> "$2"'

t0=$(date +%s)
sh "$SRCDIR/emacs/cache-lock.sh" "$cache" sh -c "$stand_in" _ A "$log" 2>"$tmp/a.err" &
a=$!
sh "$SRCDIR/emacs/cache-lock.sh" "$cache" sh -c "$stand_in" _ B "$log" 2>"$tmp/b.err" &
b=$!
wait $a || fail "first locked command failed: $(cat "$tmp/a.err")"
wait $b || fail "second locked command failed: $(cat "$tmp/b.err")"
serial=$(( $(date +%s) - t0 ))
cat "$log" "$tmp/a.err" "$tmp/b.err"

order=$(tr '\n' ' ' < "$log")
case $order in
  "start A end A start B end B " | "start B end B start A end A ") ;;
  *) fail "the two commands overlapped: $order" ;;
esac
[ "$serial" -ge 2 ] || fail "two 1 s commands under one lock took $serial s"
waits=$(cat "$tmp/a.err" "$tmp/b.err" | grep -c 'another build holds .*build.lock (process [0-9]*); waiting for it' || true)
[ "$waits" -eq 1 ] || fail "expected one waiting message, got $waits"
[ -f "$cache/build.lock" ] || fail "no $cache/build.lock"

# A locked command's exit status is kept.
rc=0
sh "$SRCDIR/emacs/cache-lock.sh" "$cache" sh -c 'exit 7' || rc=$?
[ "$rc" -eq 7 ] || fail "cache-lock.sh returned $rc for a command that exited 7"

# build.sh takes the same lock before anything else.
flock "$cache/build.lock" sh -c ': > "$1"; sleep 2' _ "$tmp/held" &
holder=$!
i=0
while [ ! -e "$tmp/held" ]; do
  i=$((i + 1))
  [ "$i" -lt 500 ] || fail "the stand-in holder never took the lock"
  sleep 0.01
done
t0=$(date +%s)
rc=0
EMLAT_ROOT=$SRCDIR EMLAT_LIB=$tmp/no-such-libemlat.a EMLAT_EMACS_CACHE=$cache \
  sh "$SRCDIR/emacs/build.sh" 2>"$tmp/build.err" || rc=$?
elapsed=$(( $(date +%s) - t0 ))
wait $holder
cat "$tmp/build.err"
[ "$rc" -eq 1 ] || fail "build.sh without libemlat.a exited $rc, not 1"
grep -q 'waiting for it' "$tmp/build.err" || fail "build.sh did not wait for the held lock"
grep -q 'no-such-libemlat.a' "$tmp/build.err" || fail "build.sh did not go on after the lock"
[ "$elapsed" -ge 1 ] || fail "build.sh finished in $elapsed s while the lock was held for 2 s"
echo "ok: locked commands serialize (2 x 1 s took $serial s), build.sh waits for the lock"
