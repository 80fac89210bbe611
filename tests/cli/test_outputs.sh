#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_outputs.sh -- the files the verbs write (report --html, export -o,
# replay --tsv) are created, never followed or clobbered: a symlink is
# refused (its target untouched), an existing file is refused unless
# --force (which replaces a regular file only), a FIFO or a device is
# refused at once (never waited on), and the output gets the permissions of
# its source profile (a 0600 profile gives a 0600 report under umask 022).

set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$SRCDIR/$BUILD ;; esac
EMLAT=${EMLAT:-$BUILD/emlat}
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
umask 022

"$EMLAT" demo -o "$T/p.emlat" -n 1 >/dev/null 2>&1 || { echo "FAIL: emlat demo"; exit 1; }
chmod 600 "$T/p.emlat"

# expect CODE PATTERN CMD...: run CMD (at most 5 s), check its exit code and
# that stderr matches PATTERN ("-": empty).
expect () {
  want=$1 pat=$2
  shift 2
  timeout 5 "$@" >"$T/out" 2>"$T/err"
  got=$?
  [ "$got" = "$want" ] || fail "$*: exit $got, want $want ($(head -c 300 "$T/err"))"
  if [ "$pat" = - ]; then
    [ -s "$T/err" ] && fail "$*: unexpected stderr: $(head -c 300 "$T/err")"
  elif ! grep -q -e "$pat" "$T/err"; then
    fail "$*: stderr lacks '$pat': $(head -c 300 "$T/err")"
  fi
}

mode_of () { stat -c %a "$1"; }

# args VERB OUT [--force]: the emlat arguments that write OUT.
args () {
  case $1 in
    html) echo "report --ascii --html $2 ${3:-} $T/p.emlat" ;;
    export) echo "export --format=jsonl -o $2 ${3:-} $T/p.emlat" ;;
  esac
}

for verb in html export; do
  out=$T/$verb.out
  # A new file, with the profile's permissions.
  # shellcheck disable=SC2046
  expect 0 - "$EMLAT" $(args $verb "$out")
  [ "$(mode_of "$out")" = 600 ] || fail "$verb: mode $(mode_of "$out"), want 600"
  [ -s "$out" ] || fail "$verb: empty output"
  # An existing file is kept without --force ...
  echo keep >"$T/$verb.keep"
  # shellcheck disable=SC2046
  expect 2 "never replaced without --force" "$EMLAT" $(args $verb "$T/$verb.keep")
  [ "$(cat "$T/$verb.keep")" = keep ] || fail "$verb: an existing file was replaced"
  # ... and replaced with it, getting the profile's permissions.
  chmod 644 "$T/$verb.keep"
  # shellcheck disable=SC2046
  expect 0 - "$EMLAT" $(args $verb "$T/$verb.keep" --force)
  [ "$(cat "$T/$verb.keep")" != keep ] || fail "$verb: --force did not replace"
  [ "$(mode_of "$T/$verb.keep")" = 600 ] || fail "$verb: --force left mode $(mode_of "$T/$verb.keep")"
  # A symlink is never followed, not even with --force.
  echo victim >"$T/victim-$verb"
  ln -s "$T/victim-$verb" "$T/$verb.lnk"
  # shellcheck disable=SC2046
  expect 2 "exists" "$EMLAT" $(args $verb "$T/$verb.lnk")
  # shellcheck disable=SC2046
  expect 2 "symbolic link" "$EMLAT" $(args $verb "$T/$verb.lnk" --force)
  [ "$(cat "$T/victim-$verb")" = victim ] || fail "$verb: the symlink's target was written"
  # A FIFO and a device: refused at once.
  mkfifo "$T/$verb.fifo"
  # shellcheck disable=SC2046
  expect 2 "$T/$verb.fifo" "$EMLAT" $(args $verb "$T/$verb.fifo" --force)
  # shellcheck disable=SC2046
  expect 2 "not a regular file" "$EMLAT" $(args $verb /dev/null --force)
  # A directory.
  mkdir "$T/$verb.dir"
  # shellcheck disable=SC2046
  expect 2 "$T/$verb.dir" "$EMLAT" $(args $verb "$T/$verb.dir" --force)
done

# A report of a 0644 profile is 0644.
cp "$T/p.emlat" "$T/q.emlat"
chmod 644 "$T/q.emlat"
expect 0 - "$EMLAT" report --ascii --html "$T/q.html" "$T/q.emlat"
[ "$(mode_of "$T/q.html")" = 644 ] || fail "report of a 0644 profile: mode $(mode_of "$T/q.html")"

# Nothing usable to export: the output file made for it goes again.
printf 'not a profile' >"$T/junk"
expect 2 "$T/junk" "$EMLAT" export --format=jsonl -o "$T/none.jsonl" "$T/junk"
[ -e "$T/none.jsonl" ] && fail "export left an output for an unusable input"

# replay --tsv: never followed or replaced.
echo victim >"$T/victim-tsv"
ln -s "$T/victim-tsv" "$T/t.tsv"
printf 'pause 10ms\n' >"$T/s.script"
timeout 20 "$EMLAT" replay --script "$T/s.script" --settle 50ms -o "$T/r.emlat" --tsv "$T/t.tsv" \
  -- /bin/true >/dev/null 2>"$T/err"
[ "$(cat "$T/victim-tsv")" = victim ] || fail "replay --tsv wrote through a symlink"

[ $fails -eq 0 ] && echo "outputs: all checks passed"
exit $fails
