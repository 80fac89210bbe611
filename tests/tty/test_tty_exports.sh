#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_tty_exports.sh -- libemlat-tty.so exports exactly the C library calls
# listed in its version script (src/tty/libemlat-tty.map), and carries no
# reader or analysis code: a preloaded library adds to every traced program
# only what it interposes.

set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$SRCDIR/$BUILD ;; esac
lib=$BUILD/libemlat-tty.so
map=$SRCDIR/src/tty/libemlat-tty.map
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }
[ -f "$lib" ] || { echo "FAIL: no $lib (make all)"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The names of the map's global section.
sed -n '/global:/,/local:/p' "$map" | grep -v 'global:\|local:' |
  tr ';' '\n' | tr -d ' \t' | grep -v '^$' | sort >"$tmp/want"
# What the library defines in its dynamic symbol table (sanitizer builds
# add their runtime's interceptors under names of their own: __asan_,
# __ubsan_, __tsan_, __sanitizer_; those are not ours).
nm -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//' |
  grep -v '^__\(a\|ub\|t\|l\)san_\|^__sanitizer_\|^_init$\|^_fini$' | sort -u >"$tmp/got"
[ -s "$tmp/want" ] || fail "no names in $map"
if ! cmp -s "$tmp/want" "$tmp/got"; then
  echo "exported but not in the map:"; comm -13 "$tmp/want" "$tmp/got" | sed 's/^/  /'
  echo "in the map but not exported:"; comm -23 "$tmp/want" "$tmp/got" | sed 's/^/  /'
  fail "libemlat-tty.so exports differ from $map"
fi
# No emlat_ symbol leaks: a program that links libemlat itself keeps its own.
if grep -q '^emlat_' "$tmp/got"; then fail "emlat_ symbols exported"; fi
# The reader and the analysis are not linked in.
if nm "$lib" 2>/dev/null | grep -q 'emlat_profile_load\|emlat_report_model_build\|emlat_scan$'; then
  fail "reader or analysis code linked into the preload library"
fi
echo "$(wc -l <"$tmp/got") symbols exported, $(wc -c <"$lib") bytes"
[ $fails -eq 0 ] && echo "tty exports: all checks passed"
exit $fails
