#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_cli_shell.sh -- the contract of the `emlat` command itself (main.c,
# cli_util.c): the verb list, --help and --version on the command and on
# every registered verb, `help VERB`, exit code 2 with a message for no
# verb, an unknown verb or an unknown option, and exit 1 when standard
# output cannot be written.

set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
EMLAT=${EMLAT:-$SRCDIR/build/emlat}
if [ ! -x "$EMLAT" ]; then
  echo "FAIL: no emlat binary at $EMLAT"
  exit 1
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
has () { printf '%s\n' "$1" | grep -q -- "$2"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

version=$(sed -n 's/^#define EMLAT_VERSION_STRING "\(.*\)"$/\1/p' "$SRCDIR/include/emlat/emlat.h")
check "version found in emlat.h" [ -n "$version" ]

# run ARGS...: sets rc, out, err.
run () {
  "$EMLAT" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  out=$(cat "$tmp/out")
  err=$(cat "$tmp/err")
}

run --help
check "--help exits 0 (got $rc)" [ "$rc" -eq 0 ]
check "--help prints usage" has "$out" '^usage: emlat VERB'
check "--help lists demo" has "$out" '^  demo  *[a-z]'
check "--help prints nothing on stderr" [ -z "$err" ]
help_out=$out
verbs=$(printf '%s\n' "$out" | sed -n '/^verbs:$/,/^$/p' | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')
check "verbs listed" [ -n "$verbs" ]
check "verbs in name order" [ "$verbs" = "$(printf '%s\n' "$verbs" | LC_ALL=C sort)" ]

run -h
check "-h same as --help" [ "$out" = "$help_out" ]
run help
check "help same as --help" [ "$out" = "$help_out" ]

run --version
check "--version exits 0 (got $rc)" [ "$rc" -eq 0 ]
check "--version line (got '$out')" [ "$out" = "emlat $version" ]
run -V
check "-V line" [ "$out" = "emlat $version" ]

run
check "no verb: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "no verb: usage on stderr" has "$err" '^usage: emlat VERB'
check "no verb: nothing on stdout" [ -z "$out" ]

run frobnicate --now
check "unknown verb: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "unknown verb: message" [ "$err" = "emlat: unknown verb 'frobnicate' (see emlat --help)" ]

run --frobnicate
check "unknown option: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "unknown option: message" has "$err" "^emlat: unknown option '--frobnicate'"

run help frobnicate
check "help of unknown verb: exit 2 (got $rc)" [ "$rc" -eq 2 ]

# Every verb answers --help and --version the same way.
for v in $verbs; do
  run "$v" --help
  check "$v --help exits 0 (got $rc)" [ "$rc" -eq 0 ]
  check "$v --help prints its usage" has "$out" "^usage: emlat $v"
  vhelp=$out
  run help "$v"
  check "help $v same as $v --help" [ "$out" = "$vhelp" ]
  run "$v" --version
  check "$v --version exits 0 (got $rc)" [ "$rc" -eq 0 ]
  check "$v --version line (got '$out')" [ "$out" = "emlat $v $version" ]
  run "$v" --no-such-option-for-any-verb
  check "$v with an unknown option: exit 2 (got $rc)" [ "$rc" -eq 2 ]
done

# Output that cannot be written is an error, not a silent truncation.
if [ -w /dev/full ]; then
  "$EMLAT" --help >/dev/full 2>"$tmp/err"
  rc=$?
  check "write error: exit 1 (got $rc)" [ "$rc" -eq 1 ]
  check "write error: message" grep -q '^emlat: write error on standard output' "$tmp/err"
fi

if [ "$fails" -gt 0 ]; then
  echo "$fails checks failed"
  exit 1
fi
echo "all checks passed"
