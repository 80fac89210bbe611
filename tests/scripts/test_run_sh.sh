#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_run_sh.sh -- the test runner (tests/run.sh) against a fake suite whose
# outcomes are known: a pass, a failure, a skip, a hang cut by the timeout
# and a shell test; the verdict lines, the closing line, the exit status, the
# log of a failure (its failed checks first), the environment each test gets, pattern selection and
# --exclude.
#
# Timing tolerance: the hanging test sleeps 60 s under a 1 s timeout; the
# whole fake suite must finish in under 30 s.

set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
fails=0
check () {
  # check DESCRIPTION COMMAND...: run COMMAND, count a failure if it fails.
  desc=$1
  shift
  if "$@"; then :; else
    echo "FAIL: $desc"
    fails=$((fails + 1))
  fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fb=$tmp/build
ft=$tmp/tests
mkdir -p "$fb/tests/alpha" "$fb/tests/beta" "$ft/gamma"

mk () {
  printf '#!/bin/sh\n%s\n' "$2" >"$1"
  chmod +x "$1"
}
mk "$fb/tests/alpha/test_pass" 'echo "BUILD=$BUILD"; echo "EMLAT=$EMLAT"; echo "SRCDIR=$SRCDIR"; pwd; exit 0'
mk "$fb/tests/alpha/test_fail" 'echo "line one"; printf "FAIL t.c:7: x == y\\n  left 1\\n"; i=0; while [ $i -lt 40 ]; do echo "diag $i"; i=$((i + 1)); done; echo "the reason it broke" >&2; exit 3'
mk "$fb/tests/beta/test_skip" 'echo "SKIP: no widget here"; exit 77'
mk "$fb/tests/beta/test_hang" 'sleep 60'
# Not executable: run with sh.  A file not named test_* is ignored.
printf 'read x || true; [ -z "${x:-}" ] && exit 0; exit 1\n' >"$ft/gamma/test_stdin.sh"
mk "$ft/gamma/helper.sh" 'exit 1'
mk "$fb/tests/alpha/not_a_test" 'exit 1'

start=$(date +%s)
env -u EMLAT BUILD=$fb TESTS_DIR=$ft TEST_TIMEOUT=1 sh "$SRCDIR/tests/run.sh" >"$tmp/out" 2>&1
rc=$?
elapsed=$(($(date +%s) - start))
cat "$tmp/out"

check "exit status 1 when a test fails (got $rc)" [ "$rc" -eq 1 ]
check "finished in under 30 s (took $elapsed s)" [ "$elapsed" -lt 30 ]
check "closing line" [ "$(tail -n 1 "$tmp/out")" = "2 passed, 2 failed, 1 skipped" ]
check "pass line" grep -Eq '^PASS  alpha/test_pass +[0-9]+\.[0-9]{2} s$' "$tmp/out"
check "fail line with exit code" grep -Eq '^FAIL  alpha/test_fail .*\(exit 3\)$' "$tmp/out"
check "failure log tail shown" grep -q '  | the reason it broke' "$tmp/out"
check "failed check shown though not in the tail" grep -q '  | FAIL t.c:7: x == y' "$tmp/out"
check "its values shown" grep -q '  |   left 1' "$tmp/out"
check "skip line with reason" grep -Eq '^SKIP  beta/test_skip .*SKIP: no widget here' "$tmp/out"
check "timeout reported" grep -Eq '^FAIL  beta/test_hang .*timed out after 1 s' "$tmp/out"
check "shell test run with stdin empty" grep -Eq '^PASS  gamma/test_stdin.sh ' "$tmp/out"
check "helpers not run" sh -c "! grep -q 'helper\|not_a_test' '$tmp/out'"
check "log per test" grep -q 'the reason it broke' "$fb/test-logs/alpha/test_fail.log"
check "BUILD given" grep -qx "BUILD=$fb" "$fb/test-logs/alpha/test_pass.log"
check "EMLAT given" grep -qx "EMLAT=$fb/emlat" "$fb/test-logs/alpha/test_pass.log"
check "SRCDIR given" grep -qx "SRCDIR=$SRCDIR" "$fb/test-logs/alpha/test_pass.log"
check "run from the source tree" grep -qx "$SRCDIR" "$fb/test-logs/alpha/test_pass.log"

# Pattern selection; only passing tests selected -> exit 0.
BUILD=$fb TESTS_DIR=$ft sh "$SRCDIR/tests/run.sh" test_pass gamma/ >"$tmp/out2" 2>&1
rc=$?
cat "$tmp/out2"
check "selected run passes (got $rc)" [ "$rc" -eq 0 ]
check "selected closing line" [ "$(tail -n 1 "$tmp/out2")" = "2 passed, 0 failed" ]

# Exclusion: by area and by name, combined with selection.
BUILD=$fb TESTS_DIR=$ft TEST_TIMEOUT=1 sh "$SRCDIR/tests/run.sh" --exclude beta/ -x test_fail >"$tmp/out4" 2>&1
rc=$?
cat "$tmp/out4"
check "excluded run passes (got $rc)" [ "$rc" -eq 0 ]
check "excluded closing line" [ "$(tail -n 1 "$tmp/out4")" = "2 passed, 0 failed" ]
check "excluded tests not run" sh -c "! grep -q 'beta/\|test_fail' '$tmp/out4'"
BUILD=$fb TESTS_DIR=$ft sh "$SRCDIR/tests/run.sh" --exclude=alpha/test_pass alpha/ gamma/ >"$tmp/out5" 2>&1
check "exclusion within a selection" [ "$(grep -c '^PASS\|^FAIL' "$tmp/out5")" -eq 2 ]
check "excluded test absent from a selection" sh -c "! grep -q 'test_pass' '$tmp/out5'"
BUILD=$fb TESTS_DIR=$ft sh "$SRCDIR/tests/run.sh" --frob >"$tmp/out6" 2>&1
rc=$?
check "unknown option exits 2 (got $rc)" [ "$rc" -eq 2 ]

# No test at all is a failure, still with the closing line.
BUILD=$fb TESTS_DIR=$ft sh "$SRCDIR/tests/run.sh" no-such-test >"$tmp/out3" 2>&1
rc=$?
check "empty selection fails (got $rc)" [ "$rc" -eq 1 ]
check "empty selection closing line" [ "$(tail -n 1 "$tmp/out3")" = "0 passed, 0 failed" ]

if [ "$fails" -gt 0 ]; then
  echo "$fails checks failed"
  exit 1
fi
echo "all checks passed"
