#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_demo.sh -- `emlat demo`: records a valid-looking profile of the
# synthetic session quickly, with the same structure every run, never
# overwrites a file, makes a private directory without -o, keeps the
# simulated typed text and the paths out of the file, and runs check and
# dump when they are built.
#
# Timing tolerance: the demo sleeps about 3 s; it must finish within 30 s.

set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
EMLAT=${EMLAT:-$SRCDIR/build/emlat}
fails=0
check () {
  desc=$1
  shift
  if "$@"; then :; else
    echo "FAIL: $desc"
    fails=$((fails + 1))
  fi
}
has () { grep -q -- "$2" "$1"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

start=$(date +%s)
"$EMLAT" demo -o "$tmp/a.emlat" -n 5 >"$tmp/out" 2>"$tmp/err"
rc=$?
elapsed=$(($(date +%s) - start))
cat "$tmp/out" "$tmp/err"
check "demo exits 0 (got $rc)" [ "$rc" -eq 0 ]
check "demo took under 30 s (took $elapsed s)" [ "$elapsed" -lt 30 ]
check "the file exists" [ -f "$tmp/a.emlat" ]
check "the file is private (mode 600)" [ "$(stat -c %a "$tmp/a.emlat")" = 600 ]
check "file magic" [ "$(head -c 8 "$tmp/a.emlat" | od -An -tx1 | tr -d ' \n')" = 454d4c4154000d0a ]
check "says where" has "$tmp/out" "^  $tmp/a.emlat\$"
check "no loss" has "$tmp/out" '^libemlat: [0-9]* records written, 0 dropped'
check "every status of the script" has "$tmp/out" \
  'statuses: [0-9]* normal, 1 quit, 1 error, 1 throw, [1-9][0-9]* superseded'
check "both threads" has "$tmp/out" ', 2 threads$'
for kind in 'tty command' 'synthetic command' timer 'process data' 'process sentinel' resize maintenance; do
  check "records a $kind interaction" has "$tmp/out" "[0-9] $kind"
done
check "nothing on stderr" [ ! -s "$tmp/err" ]

# Privacy: the simulated typed text, the file's own path and the host name
# (when long enough not to occur by chance) are not in it.
secrets="private-demo-text|quick brown|$tmp|a.emlat"
host=$(hostname)
[ ${#host} -ge 6 ] && secrets="$secrets|$host"
IFS='|'
set -- $secrets
unset IFS
for secret in "$@"; do
  check "file does not contain '$secret'" sh -c '! grep -qaF -- "$1" "$2"' x "$secret" "$tmp/a.emlat"
done

# Same structure on a second run; the file is never overwritten.
cp "$tmp/a.emlat" "$tmp/copy"
"$EMLAT" demo -o "$tmp/a.emlat" >"$tmp/out2" 2>"$tmp/err2"
rc=$?
check "existing file: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "existing file: message names it" has "$tmp/err2" "^emlat: $tmp/a.emlat: cannot record: File exists"
check "existing file untouched" cmp -s "$tmp/a.emlat" "$tmp/copy"
"$EMLAT" demo -o "$tmp/b.emlat" -n 5 >"$tmp/out3" 2>&1
structure () { grep -E '^recorded|statuses:|spans \(' "$1" | sed 's/ in [0-9.]* s:/:/'; }
check "same structure twice" [ "$(structure "$tmp/out")" = "$(structure "$tmp/out3")" ]
"$EMLAT" demo -o "$tmp/c.emlat" --seed 12345 -n 5 >"$tmp/out4" 2>&1
check "--seed accepted" [ -f "$tmp/c.emlat" ]

# Without -o: a new private directory under TMPDIR.
mkdir "$tmp/t"
TMPDIR=$tmp/t "$EMLAT" demo -n 5 >"$tmp/out5" 2>&1
rc=$?
check "default location: exit 0 (got $rc)" [ "$rc" -eq 0 ]
path=$(sed -n 's/^  \(.*\.emlat\)$/\1/p' "$tmp/out5" | head -n 1)
case $path in
  "$tmp"/t/emlat-demo-*/demo.emlat) ok=1 ;;
  *) ok=0 ;;
esac
check "default path under TMPDIR (got '$path')" [ "$ok" -eq 1 ]
check "default file exists" [ -f "$path" ]
check "default directory private" [ "$(stat -c %a "$(dirname "$path")")" = 700 ]

# Usage errors.
"$EMLAT" demo -n lots >/dev/null 2>&1
check "bad -n: exit 2" [ $? -eq 2 ]
"$EMLAT" demo surplus >/dev/null 2>&1
check "extra argument: exit 2" [ $? -eq 2 ]

# check and dump, once they are part of the command.
verbs=$("$EMLAT" --help | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')
if printf '%s\n' "$verbs" | grep -qx check; then
  check "demo shows check" has "$tmp/out" "^\$ emlat check $tmp/a.emlat"
  check "check did not fail" sh -c '! grep -q "emlat check exited" "$1"' x "$tmp/out"
  "$EMLAT" check "$tmp/a.emlat" >/dev/null 2>&1
  check "emlat check says valid (exit 0)" [ $? -eq 0 ]
else
  check "demo says check is missing" has "$tmp/out" 'emlat check is not part of this build yet'
fi
if printf '%s\n' "$verbs" | grep -qx dump; then
  check "demo shortens the dump to 5 lines" has "$tmp/out" '^\.\.\. [0-9]* more lines (emlat dump '
else
  check "demo says dump is missing" has "$tmp/out" 'emlat dump is not part of this build yet'
fi

if [ "$fails" -gt 0 ]; then
  echo "$fails checks failed"
  exit 1
fi
echo "all checks passed"
