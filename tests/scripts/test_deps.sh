#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_deps.sh -- scripts/deps.sh decides correctly what is missing, using
# scratch package lists (EMLAT_DEPS_LIST) and a scratch tree for the
# "needed when" globs (EMLAT_DEPS_ROOT).  Always in dry-run mode (-n): this
# test never installs anything.  "dpkg" stands for a package that is surely
# installed on Debian; "emlat-no-such-package" for one that surely is not.

set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
deps=$SRCDIR/scripts/deps.sh
if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "SKIP: dpkg-query not available (not a Debian system)"
  exit 77
fi
fails=0
check () {
  desc=$1
  shift
  if "$@"; then :; else
    echo "FAIL: $desc"
    fails=$((fails + 1))
  fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tree"

# run_deps LIST ARGS...: run deps.sh -n with LIST; sets rc and out.
run_deps () {
  printf '%s\n' "$1" >"$tmp/list"
  shift
  out=$(EMLAT_DEPS_LIST=$tmp/list EMLAT_DEPS_ROOT=$tmp/tree sh "$deps" -n "$@" 2>&1)
  rc=$?
}

run_deps '# comment line | with | bars
build | demo check | - | dpkg | always there' check
check "all present: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "all present: silent (got '$out')" [ -z "$out" ]

run_deps 'build | check | - | dpkg emlat-no-such-package | fake' check
check "missing: exit 1 (got $rc)" [ "$rc" -eq 1 ]
check "missing: names the package" sh -c 'echo "$1" | grep -q "^deps.sh: missing Debian packages for make check: emlat-no-such-package$"' x "$out"
check "missing: names its group" sh -c 'echo "$1" | grep -q "^  build: emlat-no-such-package$"' x "$out"
check "missing: says how to install" sh -c 'echo "$1" | grep -q "^  apt-get install --no-install-recommends emlat-no-such-package$"' x "$out"
check "installed package not listed" sh -c '! echo "$1" | grep -q "dpkg"' x "$out"

# Goals select groups.
list='bench | bench | - | emlat-no-such-package | bench only'
run_deps "$list" check
check "other goal's group ignored (got $rc)" [ "$rc" -eq 0 ]
run_deps "$list" bench
check "own goal's group checked (got $rc)" [ "$rc" -eq 1 ]
run_deps "$list" demo bench
check "any of several goals (got $rc)" [ "$rc" -eq 1 ]

# "needed when": only once a matching file exists; "all" takes every group.
list='tty | check | tests/tty/test_* | emlat-no-such-package | later'
run_deps "$list" check
check "group not needed before its tests exist (got $rc)" [ "$rc" -eq 0 ]
run_deps "$list" all
check "all takes every group (got $rc)" [ "$rc" -eq 1 ]
mkdir -p "$tmp/tree/tests/tty"
: >"$tmp/tree/tests/tty/test_readbatch.c"
run_deps "$list" check
check "group needed once its tests exist (got $rc)" [ "$rc" -eq 1 ]

run_deps "$list" bogus
check "unknown goal: exit 2 (got $rc)" [ "$rc" -eq 2 ]

# The real list parses: every group line shows up in --list, with packages.
out=$(sh "$deps" --list)
for g in $(grep -v '^[[:space:]]*#' "$SRCDIR/scripts/deps.list" | grep '|' | cut -d '|' -f 1); do
  check "--list shows group $g" sh -c 'echo "$1" | grep -q "^$2 "' x "$out" "$g"
done
check "--list shows gcc" sh -c 'echo "$1" | grep -q " gcc "' x "$out"

if [ "$fails" -gt 0 ]; then
  echo "$fails checks failed"
  exit 1
fi
echo "all checks passed"
