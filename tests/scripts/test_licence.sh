#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_licence.sh -- the library any program may link is LGPL-2.1-or-later
# and nothing under another licence is compiled into it (README.md,
# "License").
#
# Checks:
#   1. COPYING.LESSER holds the GNU LGPL version 2.1, COPYING the GPL v3;
#   2. every file of the library's folders (src/common, src/format,
#      src/record, src/reader, src/analysis) and every public header
#      (include/emlat/) carries SPDX-License-Identifier: LGPL-2.1-or-later,
#      and every file of the other parts (src/cli, src/render, src/replay,
#      src/workload, src/tty, emacs/src) carries GPL-3.0-or-later;
#   3. every header a library source includes (the compiler's own list,
#      cc -MM with the library's flags) is one of the library's files or a
#      system header: a GPL header cannot leak into libemlat's objects;
#   4. every compilation unit of the built libemlat.so (its DWARF) and
#      every member of libemlat.a is a source of the library's folders;
#   5. README.md's licence section names both licences and the parts.
# Positive control: check 3 runs first on a scratch copy of the tree in
# which a library source includes a header of src/render; it must fail.

set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-$SRCDIR/build}
CC=${CC:-cc}
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

LIB_DIRS="src/common src/format src/record src/reader src/analysis"
GPL_DIRS="src/cli src/render src/replay src/workload src/tty"
LGPL='SPDX-License-Identifier: LGPL-2.1-or-later'
GPL='SPDX-License-Identifier: GPL-3.0-or-later'

bad () {
  echo "FAIL: $*"
  fail=1
}

# The SPDX line of FILE is within its first two lines and names LICENCE.
has_spdx () {
  head -n 2 "$1" | grep -q "$2"
}

# Check 3 over tree ROOT: print every non-LGPL header a library source of
# ROOT includes; return 1 if there is one.
headers_of_library () {
  root=$1
  rc=0
  for d in $LIB_DIRS; do
    for c in "$root/$d"/*.c; do
      [ -f "$c" ] || continue
      deps=$(cd "$root" && $CC -std=c17 -D_GNU_SOURCE -DEMLAT_BUILDING_LIBRARY -Iinclude -Isrc \
               -MM "${c#"$root"/}" 2>"$tmp/cc.err") || {
        echo "cannot list the headers of $c: $(head -n 1 "$tmp/cc.err")"
        rc=1
        continue
      }
      for h in $(printf '%s\n' "$deps" | tr ' \\' '\n\n' | grep '\.h$'); do
        case $h in
          /*) continue ;; # a system header
        esac
        if ! has_spdx "$root/$h" "$LGPL"; then
          echo "${c#"$root"/} includes $h, which is not LGPL-2.1-or-later"
          rc=1
        fi
      done
    done
  done
  return $rc
}

# --- positive control --------------------------------------------------
mkdir -p "$tmp/tree"
(cd "$SRCDIR" && tar cf - include src) | (cd "$tmp/tree" && tar xf -)
printf '#include "render/json.h"\n' >>"$tmp/tree/src/common/clock.c"
if headers_of_library "$tmp/tree" >"$tmp/control.out"; then
  bad "positive control: a library source including a GPL header was not caught"
elif ! grep -q 'src/common/clock.c includes src/render/json.h' "$tmp/control.out"; then
  bad "positive control: the report does not name the offending include"
  cat "$tmp/control.out"
else
  echo "ok - positive control: a GPL header included by the library is caught"
fi

# --- 1. licence texts --------------------------------------------------
if head -n 3 "$SRCDIR/COPYING.LESSER" | grep -q 'GNU LESSER GENERAL PUBLIC LICENSE' \
   && head -n 3 "$SRCDIR/COPYING.LESSER" | grep -q 'Version 2.1'; then
  echo "ok - COPYING.LESSER is the LGPL 2.1"
else
  bad "COPYING.LESSER is not the GNU LGPL version 2.1"
fi
if head -n 3 "$SRCDIR/COPYING" | grep -q 'GNU GENERAL PUBLIC LICENSE' \
   && head -n 3 "$SRCDIR/COPYING" | grep -q 'Version 3'; then
  echo "ok - COPYING is the GPL 3"
else
  bad "COPYING is not the GNU GPL version 3"
fi

# --- 2. SPDX lines -----------------------------------------------------
n=0
for d in $LIB_DIRS include/emlat; do
  for f in "$SRCDIR/$d"/*; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    has_spdx "$f" "$LGPL" || bad "${f#"$SRCDIR"/} is in the library but not LGPL-2.1-or-later"
  done
done
[ $n -gt 40 ] || bad "only $n library files found"
echo "ok - $n library files and public headers checked for LGPL-2.1-or-later"
n=0
for d in $GPL_DIRS emacs/src; do
  for f in "$SRCDIR/$d"/*.[ch]; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    has_spdx "$f" "$GPL" || bad "${f#"$SRCDIR"/} is not GPL-3.0-or-later"
  done
done
echo "ok - $n files of the command, renderers, replay, workload, tty and Emacs parts checked for GPL-3.0-or-later"

# --- 3. included headers -----------------------------------------------
if headers_of_library "$SRCDIR" >"$tmp/headers.out"; then
  echo "ok - every header the library's sources include is LGPL or a system header"
else
  cat "$tmp/headers.out"
  bad "the library includes headers under another licence"
fi

# --- 4. what is linked into libemlat -----------------------------------
in_lib_dirs () {
  for d in $LIB_DIRS; do
    case $1 in
      "$d"/*) return 0 ;;
    esac
  done
  return 1
}
so=$BUILD/libemlat.so.0
if [ -f "$so" ] && command -v readelf >/dev/null 2>&1; then
  readelf --debug-dump=info "$so" 2>/dev/null \
    | awk '/DW_TAG_compile_unit/ { cu = 1; next } cu && /DW_AT_name/ { print $NF; cu = 0 }' \
    >"$tmp/cus"
  ncu=$(wc -l <"$tmp/cus")
  [ "$ncu" -gt 20 ] || bad "libemlat.so has only $ncu compilation units in its DWARF"
  while read -r cu; do
    in_lib_dirs "$cu" || bad "libemlat.so contains $cu, which is not a library source"
  done <"$tmp/cus"
  echo "ok - the $ncu compilation units of libemlat.so are library sources"
else
  bad "$so or readelf missing: build first (make all)"
fi
a=$BUILD/libemlat.a
if [ -f "$a" ]; then
  for m in $(ar t "$a"); do
    found=0
    for d in $LIB_DIRS; do
      [ -f "$SRCDIR/$d/${m%.o}.c" ] && found=1
    done
    [ $found = 1 ] || bad "libemlat.a member $m has no source in the library's folders"
  done
  echo "ok - every member of libemlat.a is built from the library's folders"
else
  bad "$a missing: build first"
fi

# --- 5. README ---------------------------------------------------------
sect=$(cd "$SRCDIR" && sed -n '/^## Licen[cs]e/,/^## /p' README.md)
for w in LGPL-2.1-or-later GPL-3.0-or-later COPYING.LESSER libemlat src/tty emacs; do
  printf '%s\n' "$sect" | grep -q -- "$w" || bad "README's licence section does not mention $w"
done
echo "ok - README's licence section names the licences and the parts"

exit $fail
