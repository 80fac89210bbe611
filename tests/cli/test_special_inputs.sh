#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_special_inputs.sh -- a path that names anything but a regular file
# is refused before a byte is read, never waited on (docs/FORMAT.md
# section 12, "Inputs"): for each verb that reads profiles (check, dump,
# report, export in both formats, compare on either side) and each kind of
# input (a FIFO without a writer, a FIFO with a writer that never writes,
# /dev/zero, /dev/null, a directory, a symbolic link to a FIFO, a symbolic
# link to a directory, a Unix socket), the command
#   - finishes within 2 s (each runs under `timeout 5`, so a regression
#     fails instead of hanging the suite),
#   - exits 2,
#   - names the file and what it is on stderr ("is a FIFO", "is a
#     directory", ...), or in the document of check --json;
# (in a set with a readable profile, report reads the rest and exits 1,
# as for a missing file);
# and a stream is still read deliberately as `-`: the same FIFO fed by a
# writer and given as standard input is checked as valid.

set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
EMLAT=${EMLAT:-$SRCDIR/build/emlat}
[ -x "$EMLAT" ] || { echo "FAIL: no emlat binary at $EMLAT"; exit 1; }
command -v timeout >/dev/null 2>&1 || { echo "SKIP: no timeout(1)"; exit 77; }
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }

tmp=$(mktemp -d)
writer=
trap '[ -n "$writer" ] && kill "$writer" 2>/dev/null; rm -rf "$tmp"' EXIT
demo=$tmp/demo.emlat
cp "$SRCDIR/fuzz/corpus/reader/demo.emlat" "$demo"
cd "$tmp" || exit 1

mkfifo fifo fifo-held || { echo "SKIP: mkfifo failed"; exit 77; }
mkdir dir
ln -s fifo link-to-fifo
ln -s dir link-to-dir
# A FIFO whose writer holds it open and never writes: a blocking read
# would wait forever.
sleep 600 >fifo-held &
writer=$!
sock=
if command -v python3 >/dev/null 2>&1 \
   && python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' sock 2>/dev/null; then
  sock=sock
fi

now_ms () { date +%s%3N; }

# refused [-x EXIT] WHAT PATH VERB ARGS...: the verb on PATH (in place of
# @) is refused as WHAT quickly with exit EXIT (default 2) and a message
# naming PATH (on stderr, or in check --json's document).
refused () {
  want=2
  [ "$1" = -x ] && { want=$2; shift 2; }
  what=$1 path=$2
  shift 2
  args=
  for a in "$@"; do
    [ "$a" = @ ] && a=$path
    args="$args $a"
  done
  t0=$(now_ms)
  # shellcheck disable=SC2086
  timeout 5 "$EMLAT" $args >out 2>err </dev/null
  rc=$?
  ms=$(($(now_ms) - t0))
  [ "$rc" -eq "$want" ] || fail "emlat$args: exit $rc, expected $want ($(head -c 200 err))"
  [ "$ms" -lt 2000 ] || fail "emlat$args: took $ms ms"
  grep -q "emlat: $path: .*is $what" err \
    || grep -q "\"path\":\"$path\".*\"read_error\":\"is $what" out \
    || fail "emlat$args: does not name $path as $what: $(head -c 200 err)"
}

for input in "fifo:a FIFO" "fifo-held:a FIFO" "/dev/zero:a character device" \
             "/dev/null:a character device" "dir:a directory" \
             "link-to-fifo:a FIFO" "link-to-dir:a directory" ${sock:+"sock:a socket"}; do
  path=${input%%:*}
  what=${input#*:}
  refused "$what" "$path" check @
  refused "$what" "$path" check --json @
  refused "$what" "$path" dump @
  refused "$what" "$path" dump --json @
  refused "$what" "$path" report @
  refused "$what" "$path" report --json @
  refused "$what" "$path" export --format=chrome @
  refused "$what" "$path" export --format=jsonl @
  refused "$what" "$path" compare @ "$demo"
  refused "$what" "$path" compare "$demo" @
  # In a set with a readable profile it is refused like a missing file:
  # the rest is reported, and the loss makes the exit 1.
  refused -x 1 "$what" "$path" report "$demo" @
done

# A stream given deliberately as standard input is read.
cat "$demo" >fifo &
cat=$!
timeout 5 "$EMLAT" check - <fifo >out 2>err
rc=$?
wait "$cat"
[ "$rc" -eq 0 ] || fail "check - from a FIFO: exit $rc ($(head -c 200 err))"
grep -q '^-: valid$' out || fail "check - from a FIFO: not valid: $(head -c 200 out)"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "ok: special inputs refused, standard input read"
exit 0
