#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_test_deps.sh -- test programs have dependency files: a changed test
# header rebuilds exactly the test programs that include it (directly or
# through another header), and no test includes a header of another area.
#
# For each header below, `make -n -W HEADER tests-build` (make's "what if
# HEADER were new", which touches nothing) must list a compile of every
# test or helper program whose source includes HEADER, and of no other
# program.  The includers are found by grep over tests/, following headers
# that include headers.  Run from the source tree against the build
# tests/run.sh names (BUILD), which must be up to date (make tests-build).
set -eu

root=${SRCDIR:-$(pwd)}
cd "$root"
BUILD=${BUILD:-build}
# The build's own spelling of its directory: the dependency files name
# their targets as the compiler's -o did (relative when built from here).
case $BUILD in
  "$root"/*) build=${BUILD#"$root"/} ;;
  *) build=$BUILD ;;
esac
fail () { echo "FAIL: $*"; exit 1; }

[ -d "$build/tests" ] || fail "no $build/tests: run make tests-build first"
stale=$(make -s -n BUILD="$build" tests-build 2>&1 | grep -c -- ' -o ' || true)
[ "$stale" -eq 0 ] || fail "$build is not up to date ($stale programs to rebuild): run make tests-build"

# includers FILE...: the .c files under tests/ that include one of FILEs,
# through any chain of tests/ headers.
includers () {
  todo=$*
  seen=
  while [ -n "$todo" ]; do
    set -- $todo
    todo=
    for h in "$@"; do
      case " $seen " in *" $h "*) continue ;; esac
      seen="$seen $h"
      for f in $(grep -l "#include \"$(basename "$h")\"" tests/*/*.c tests/*/*.h 2>/dev/null); do
        case $f in
          *.h) todo="$todo $f" ;;
          *.c) echo "$f" ;;
        esac
      done
    done
  done | LC_ALL=C sort -u
}

checked=0
for header in tests/lib/scanutil.h tests/lib/collect.h tests/lib/replay_test.h \
              tests/report/jsonv.h tests/progs/pty_raw.h tests/tty/pty_harness.h; do
  [ -f "$header" ] || fail "$header is missing"
  want=$(includers "$header" | grep -v '^tests/lib/' | sed "s|^\(.*\)\.c$|$build/\1|")
  [ -n "$want" ] || fail "nothing includes $header (the test is out of date)"
  got=$(make -s -n BUILD="$build" -W "$header" tests-build 2>&1 \
        | sed -n 's|.* -o \('"$build"'/tests/[^ ]*\) .*|\1|p' | LC_ALL=C sort -u)
  if [ "$want" != "$got" ]; then
    echo "header: $header"
    echo "programs that include it:"; echo "$want" | sed 's/^/  /'
    echo "programs make would rebuild:"; echo "$got" | sed 's/^/  /'
    fail "touching $header does not rebuild exactly its includers"
  fi
  echo "ok: $header rebuilds $(echo "$want" | wc -l) programs"
  checked=$((checked + 1))
done

# A header of the test library rebuilds every test through the library's
# objects (tap.h is included by tests/lib/tap.c).
got=$(make -s -n BUILD="$build" -W tests/lib/tap.h tests-build 2>&1 | grep -c -- " -o $build/tests/" || true)
n=$(ls tests/*/test_*.c | wc -l)
[ "$got" -ge "$n" ] || fail "touching tests/lib/tap.h rebuilds $got programs, fewer than the $n tests"
echo "ok: tests/lib/tap.h rebuilds $got programs"

# Helpers shared across areas live in tests/lib: no test reaches into
# another area's folder.
cross=$(grep -n '#include "\.\./' tests/*/*.c tests/*/*.h | grep -v '"\.\./\.\./fuzz/' || true)
[ -z "$cross" ] || { echo "$cross"; fail "a test includes a header of another area (move it to tests/lib)"; }

echo "ok: $checked headers, no cross-area include"
