#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_tty_hot_page.sh -- the code a terminal key runs in libemlat-tty.so
# lies on one page (src/tty/hot.ld, src/common/hot.h): the symbols the
# link script sets around the EMLAT_HOT code, emlat_hot_key_start and
# emlat_hot_key_end, are on the same 4 KiB page, the first at its start;
# the wrappers of read, write, poll, select and pselect and the clock read
# lie between them; the rarer calls' (readv, writev, ppoll, epoll_wait,
# epoll_pwait) after them.
#
# SKIP (77) in a sanitizer build, whose instrumented code is larger and
# never timed.
set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$SRCDIR/$BUILD ;; esac
lib=$BUILD/libemlat-tty.so
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }
[ -f "$lib" ] || { echo "FAIL: no $lib (make all)"; exit 1; }
if nm -D "$lib" | grep -q '__\(a\|t\)san_'; then
  echo "SKIP: sanitizer build"
  exit 77
fi
syms=$(nm "$lib") || { echo "FAIL: nm $lib"; exit 1; }
# addr NAME: the address of NAME in the library, in decimal (empty if none).
addr () {
  printf '%s\n' "$syms" | awk -v n="$1" '$3==n {print $1; exit}' |
    while read -r hex; do printf '%d\n' "0x$hex"; done
}
start=$(addr emlat_hot_key_start)
end=$(addr emlat_hot_key_end)
[ -n "$start" ] && [ -n "$end" ] || { echo "FAIL: no emlat_hot_key_start/end in $lib"; exit 1; }
[ $((start % 4096)) -eq 0 ] || fail "the hot code starts at $start, not on a page's start"
[ "$end" -gt "$start" ] || fail "no hot code ($start to $end)"
[ $(((end - 1) / 4096)) -eq $((start / 4096)) ] \
  || fail "the hot code spans $((end - start)) bytes, more than a page"
for f in read write poll select pselect emlat_now; do
  a=$(addr "$f")
  [ -n "$a" ] || { fail "no $f in $lib"; continue; }
  [ "$a" -ge "$start" ] && [ "$a" -lt "$end" ] || fail "$f at $a, outside the hot page ($start to $end)"
done
for f in readv writev ppoll epoll_wait epoll_pwait; do
  a=$(addr "$f")
  [ -n "$a" ] || { fail "no $f in $lib"; continue; }
  [ "$a" -ge "$end" ] || fail "$f at $a, on the hot page ($start to $end)"
done
[ $fails -eq 0 ] && echo "ok: a key's code in libemlat-tty.so is on one page ($((end - start)) bytes)" && exit 0
exit 1
