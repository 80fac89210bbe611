#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# tests/run.sh -- run emlat's test suite and say plainly what passed.
#
#   BUILD=build sh tests/run.sh [--exclude PATTERN]... [PATTERN...]
#
# Runs every compiled test program $BUILD/tests/<area>/test_* and every shell
# test tests/<area>/test_*.sh, one at a time, each under a timeout
# (TEST_TIMEOUT seconds, default 300), from the top of the source tree, with
# stdin from /dev/null and stdout+stderr in $BUILD/test-logs/<area>/<test>.log.
# With PATTERNs, only tests whose name (e.g. unit/test_crc32c) contains one of
# them run; a test whose name contains an --exclude PATTERN (also
# --exclude=PATTERN, -x PATTERN) does not run (`make test-lib` excludes
# emacs/).
#
# Every test sees in its environment: BUILD (absolute build directory),
# EMLAT (the emlat binary of that build), SRCDIR (the source tree).
#
# EMLAT_EMACS_BINS="VERSION=BINARY ..." (`make test-emacs` sets it, one
# entry per Emacs version emlat patches): every shell test of tests/emacs/
# runs once per entry, named emacs/test_NAME.sh@VERSION, with EMACS_BIN and
# EMACS_VERSION set to that entry in its environment.
#
# One line per test: PASS, FAIL or SKIP, its name and its seconds.  Exit code
# 77 means SKIP (a facility genuinely unavailable here; the test prints why);
# a timeout is a FAIL.  The tail of a failed test's log follows its line.
# The last line is exactly "N passed, N failed" (", N skipped" appended when
# any were skipped).  Exit status: 0 when nothing failed and at least one
# test ran, 2 for an unknown option, else 1.
#
# Invariants: POSIX sh (make runs it with sh); no test is started twice; a
# test's exit status alone decides its verdict.

set -u

root=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in
  /*) ;;
  *) BUILD=$(pwd)/$BUILD ;;
esac
TESTS_DIR=${TESTS_DIR:-$root/tests}
TEST_TIMEOUT=${TEST_TIMEOUT:-300}
EMLAT=${EMLAT:-$BUILD/emlat}
SRCDIR=${SRCDIR:-$root}
export BUILD EMLAT SRCDIR

logs=$BUILD/test-logs
passed=0
failed=0
skipped=0
failed_names=

# Leading options: the exclusions, newline-separated.
excludes=
while [ $# -gt 0 ]; do
  case $1 in
    -x | --exclude)
      [ $# -ge 2 ] || { echo "run.sh: $1 needs a PATTERN" >&2; exit 2; }
      excludes="$excludes
$2"
      shift 2 ;;
    --exclude=*)
      excludes="$excludes
${1#--exclude=}"
      shift ;;
    --) shift; break ;;
    -*) echo "run.sh: unknown option $1 (usage: run.sh [--exclude PATTERN]... [PATTERN...])" >&2; exit 2 ;;
    *) break ;;
  esac
done

# selected NAME [PATTERN...]: true when there is no pattern or one matches.
selected () {
  sel_name=$1
  shift
  [ $# -eq 0 ] && return 0
  for sel_pat in "$@"; do
    case $sel_name in
      *"$sel_pat"*) return 0 ;;
    esac
  done
  return 1
}

# excluded NAME: true when NAME contains one of the --exclude patterns.
excluded () {
  ex_name=$1
  set -f
  ex_ifs=$IFS
  IFS='
'
  # shellcheck disable=SC2086
  set -- $excludes
  IFS=$ex_ifs
  set +f
  for ex_pat in "$@"; do
    case $ex_name in
      *"$ex_pat"*) return 0 ;;
    esac
  done
  return 1
}

now () {
  date +%s.%N
}

# run_one NAME KIND PATH: KIND is c (a program) or sh (a shell test).
run_one () {
  name=$1
  kind=$2
  path=$3
  log=$logs/$name.log
  mkdir -p "$(dirname "$log")"
  start=$(now)
  if [ "$kind" = sh ] && [ ! -x "$path" ]; then
    (cd "$root" && exec timeout -k 10 "$TEST_TIMEOUT" sh "$path") \
      </dev/null >"$log" 2>&1
  else
    (cd "$root" && exec timeout -k 10 "$TEST_TIMEOUT" "$path") \
      </dev/null >"$log" 2>&1
  fi
  rc=$?
  secs=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
  case $rc in
    0)
      passed=$((passed + 1))
      printf 'PASS  %-44s %7s s\n' "$name" "$secs"
      ;;
    77)
      skipped=$((skipped + 1))
      why=$(grep -m 1 -i 'skip' "$log" | cut -c 1-100)
      printf 'SKIP  %-44s %7s s  %s\n' "$name" "$secs" "$why"
      ;;
    *)
      failed=$((failed + 1))
      failed_names="$failed_names $name"
      case $rc in
        124 | 137) what="timed out after $TEST_TIMEOUT s" ;;
        *)
          if [ "$rc" -gt 128 ]; then
            what="killed by signal $((rc - 128))"
          else
            what="exit $rc"
          fi
          ;;
      esac
      printf 'FAIL  %-44s %7s s  (%s)\n' "$name" "$secs" "$what"
      # The failed checks first (a long log's tail may not hold them),
      # each with the line of values tests/lib/tap.c prints after it.
      if grep -q '^FAIL ' "$log"; then
        echo "  --- failed checks in $log"
        grep -A1 '^FAIL ' "$log" | grep -v '^--$' | head -n 20 | sed 's/^/  | /'
      fi
      echo "  --- last lines of $log"
      tail -n 25 "$log" | sed 's/^/  | /'
      ;;
  esac
}

found=0
for path in "$BUILD"/tests/*/test_*; do
  [ -f "$path" ] && [ -x "$path" ] || continue
  area=$(basename "$(dirname "$path")")
  name=$area/$(basename "$path")
  selected "$name" "$@" || continue
  excluded "$name" && continue
  found=$((found + 1))
  run_one "$name" c "$path"
done
for path in "$TESTS_DIR"/*/test_*.sh; do
  [ -f "$path" ] || continue
  area=$(basename "$(dirname "$path")")
  name=$area/$(basename "$path")
  selected "$name" "$@" || continue
  excluded "$name" && continue
  if [ "$area" = emacs ] && [ -n "${EMLAT_EMACS_BINS:-}" ]; then
    base=$name
    for entry in $EMLAT_EMACS_BINS; do
      EMACS_VERSION=${entry%%=*}
      EMACS_BIN=${entry#*=}
      export EMACS_VERSION EMACS_BIN
      found=$((found + 1))
      run_one "$base@$EMACS_VERSION" sh "$path"
    done
    continue
  fi
  found=$((found + 1))
  run_one "$name" sh "$path"
done

if [ "$found" -eq 0 ]; then
  if [ $# -gt 0 ]; then
    echo "run.sh: no test matches: $*"
  else
    echo "run.sh: no tests found in $BUILD/tests or $TESTS_DIR (run make tests-build)"
  fi
fi
if [ "$failed" -gt 0 ]; then
  echo "failed:$failed_names"
fi
if [ "$skipped" -gt 0 ]; then
  echo "$passed passed, $failed failed, $skipped skipped"
else
  echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ] && [ "$found" -gt 0 ]
