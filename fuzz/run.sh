#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# fuzz/run.sh SECONDS -- build the reader's libFuzzer target with clang and
# run it for SECONDS (default 60) on a temporary copy of fuzz/corpus/reader
# (the repository corpus is never modified).  The library sources are
# compiled with -fsanitize=fuzzer-no-link,address,undefined into
# $BUILD/fuzz (default build/fuzz).  Exits nonzero when the build fails or
# libFuzzer finds a crash, leak, timeout or sanitizer report; the crashing
# input is kept in $BUILD/fuzz/artifacts.
set -eu

seconds=${1:-60}
case $seconds in
  ''|*[!0-9]*) echo "usage: fuzz/run.sh SECONDS" >&2; exit 2 ;;
esac
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build=$top/$build ;; esac
out=$build/fuzz
clang=${CLANG:-clang}

if ! command -v "$clang" >/dev/null 2>&1; then
  echo "fuzz/run.sh: $clang not found (apt-get install clang)" >&2
  exit 2
fi

mkdir -p "$out/obj" "$out/artifacts"
flags="-std=c17 -D_GNU_SOURCE -I$top/include -I$top/src -g -O1 -fno-omit-frame-pointer \
  -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all \
  -Wall -Wextra -Werror -Wno-unused-command-line-argument"
objs=
for src in "$top"/src/common/*.c "$top"/src/format/*.c "$top"/src/reader/*.c; do
  obj=$out/obj/$(basename "$(dirname "$src")")_$(basename "$src" .c).o
  if [ ! -e "$obj" ] || [ "$src" -nt "$obj" ] || [ -n "$(find "$top/include" "$top/src/common" "$top/src/format" "$top/src/reader" -name '*.h' -newer "$obj" 2>/dev/null)" ]; then
    # shellcheck disable=SC2086
    nice -n 10 "$clang" $flags -c "$src" -o "$obj"
  fi
  objs="$objs $obj"
done
# shellcheck disable=SC2086
nice -n 10 "$clang" $flags -fsanitize=fuzzer "$top/fuzz/fuzz_reader.c" $objs -o "$out/fuzz_reader" -lm -pthread

work=$(mktemp -d "${TMPDIR:-/tmp}/emlat-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
mkdir -p "$work/corpus"
if [ -d "$top/fuzz/corpus/reader" ]; then
  cp "$top"/fuzz/corpus/reader/* "$work/corpus/" 2>/dev/null || true
fi

echo "fuzz/run.sh: fuzzing the reader for ${seconds}s ($(ls "$work/corpus" | wc -l) seed files)"
set +e
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  nice -n 10 "$out/fuzz_reader" -max_total_time="$seconds" -max_len=65536 -timeout=10 \
  -rss_limit_mb=1024 -print_final_stats=1 -artifact_prefix="$out/artifacts/" \
  "$work/corpus" > "$out/fuzz.log" 2>&1
rc=$?
set -e
tail -n 15 "$out/fuzz.log"
if [ $rc -ne 0 ]; then
  echo "fuzz/run.sh: libFuzzer failed (exit $rc); see $out/fuzz.log and $out/artifacts/" >&2
  exit 1
fi
echo "fuzz/run.sh: no failure in ${seconds}s"
