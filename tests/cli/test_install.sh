#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_install.sh -- `make install` honours PREFIX and DESTDIR, installs the
# command, both libraries, the public headers and a pkg-config file that a
# program can build against (recording, reading and the analysis API); the shared library exports only the public
# API (emlat_* symbols); the manual pages (man/*.1 in share/man/man1, *.3
# in man3, with the version filled in) and the bash completion
# (share/bash-completion/completions/emlat); `make uninstall` removes what
# install put there.

set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$SRCDIR/$BUILD ;; esac
fails=0
fail () { echo "FAIL: $*"; fails=$((fails + 1)); }
if nm "$BUILD/libemlat.a" 2>/dev/null | grep -q __asan_; then
  echo "SKIP: this build is instrumented with AddressSanitizer; installing it and"
  echo "linking a plain program against it is not meaningful (the plain run covers it)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/root
prefix=/opt/emlat-test

if ! make -s -C "$SRCDIR" BUILD="$BUILD" PREFIX=$prefix DESTDIR="$dest" install >"$tmp/log" 2>&1; then
  cat "$tmp/log"
  fail "make install"
  exit 1
fi
for f in bin/emlat lib/libemlat.a lib/libemlat.so.0 lib/libemlat.so \
         include/emlat/emlat.h include/emlat/emlat_types.h include/emlat/emlat_reader.h \
         include/emlat/emlat_report.h \
         lib/pkgconfig/emlat.pc; do
  [ -e "$dest$prefix/$f" ] || fail "missing $prefix/$f"
done
[ -e "$dest$prefix/lib/libemlat-tty.so" ] || fail "missing libemlat-tty.so"

# Every page of man/ in its section, the version filled in, and completion.
version=$(sed -n 's/^#define EMLAT_VERSION_STRING "\(.*\)"$/\1/p' "$SRCDIR/include/emlat/emlat.h")
npages=0
for page in "$SRCDIR"/man/*.[1-9]; do
  name=${page##*/}
  installed=$dest$prefix/share/man/man${name##*.}/$name
  npages=$((npages + 1))
  if [ -f "$installed" ]; then
    grep -q "emlat $version" "$installed" || fail "$name: version not filled in"
    ! grep -q '@VERSION@' "$installed" || fail "$name: @VERSION@ left"
  else
    fail "missing share/man/man${name##*.}/$name"
  fi
done
[ "$npages" -ge 3 ] || fail "only $npages manual pages under man/"
for name in man1/emlat.1 man1/emlat-report.1 man3/libemlat.3; do
  [ -f "$dest$prefix/share/man/$name" ] || fail "missing share/man/$name"
done
if command -v man >/dev/null 2>&1; then
  MANPATH="$dest$prefix/share/man" man -P cat emlat-report 2>/dev/null | grep -q 'emlat-report' ||
    fail "man does not find emlat-report in the installed tree"
fi
[ -f "$dest$prefix/share/bash-completion/completions/emlat" ] || fail "missing bash completion"
bash -c '. "$1" && complete -p emlat' x "$dest$prefix/share/bash-completion/completions/emlat" \
  >/dev/null 2>&1 || fail "the installed completion does not register for emlat"
grep -q "^prefix=$prefix\$" "$dest$prefix/lib/pkgconfig/emlat.pc" || fail "pkg-config prefix"
"$dest$prefix/bin/emlat" --version >/dev/null || fail "installed emlat --version"

# Only the public API is exported from the shared library (and the two
# hooks -finstrument-functions calls, docs/API.md "Function tracing").
bad=$(nm -D --defined-only "$dest$prefix/lib/libemlat.so.0" | awk '$2 ~ /^[TDBR]$/ {print $3}' |
      grep -v '^emlat_' | grep -v '^_init$' | grep -v '^_fini$' |
      grep -v '^__cyg_profile_func_enter$' | grep -v '^__cyg_profile_func_exit$' || true)
[ -z "$bad" ] || fail "non-API symbols exported: $bad"
nm -D --defined-only "$dest$prefix/lib/libemlat.so.0" | grep -q ' T emlat_span_begin$' ||
  fail "emlat_span_begin not exported"

# A program built with the installed pkg-config file, against the shared
# library, records a span and reads it back.
cat >"$tmp/prog.c" <<'PROG'
#include <emlat/emlat.h>
#include <emlat/emlat_reader.h>
#include <emlat/emlat_report.h>
#include <stdio.h>
#include <stdlib.h>
int main (int argc, char **argv)
{
  (void)argc;
  struct emlat_options o = { .path = argv[1] };
  if (emlat_start (&o) != 0) return 1;
  emlat_span_end (emlat_span_begin (EMLAT_SPAN_USER, 0), EMLAT_SPAN_OK, 0);
  if (emlat_stop () != 0) return 2;
  uint8_t *buf; size_t len;
  if (emlat_read_file (argv[1], 0, &buf, &len) != 0) return 3;
  struct emlat_scan_params p = { 0 };
  struct emlat_scan_result r;
  emlat_scan (buf, len, &p, &r);
  free (buf);
  /* The analysis API (emlat_report.h) from the shared library too. */
  const char *paths[] = { argv[1] };
  struct emlat_profile *prof;
  if (emlat_profile_load (paths, 1, NULL, 0, &prof) != 0) return 5;
  struct emlat_report_model m;
  if (!emlat_report_usable (prof) || emlat_report_model_build (prof, &m) != 0) return 6;
  emlat_report_model_free (&m);
  emlat_profile_free (prof);
  printf ("%llu\n", (unsigned long long)r.records_by_kind[EMLAT_REC_SPAN_COMPLETE]);
  return r.stop == EMLAT_STOP_CLEAN ? 0 : 4;
}
PROG
export PKG_CONFIG_PATH="$dest$prefix/lib/pkgconfig"
export PKG_CONFIG_SYSROOT_DIR="$dest"
if cc -o "$tmp/prog" "$tmp/prog.c" $(pkg-config --cflags --libs emlat) 2>"$tmp/cc.log"; then
  out=$(LD_LIBRARY_PATH="$dest$prefix/lib" "$tmp/prog" "$tmp/p.emlat") || fail "installed program failed"
  [ "$out" = 1 ] || fail "installed program read $out complete spans, want 1"
  LD_LIBRARY_PATH="$dest$prefix/lib" ldd "$tmp/prog" | grep -q "libemlat.so.0 => $dest$prefix/lib" ||
    fail "program not linked against the installed shared library"
else
  cat "$tmp/cc.log"
  fail "compile against the installed pkg-config file"
fi

make -s -C "$SRCDIR" BUILD="$BUILD" PREFIX=$prefix DESTDIR="$dest" uninstall >/dev/null 2>&1 || fail "make uninstall"
left=$(find "$dest$prefix" -type f 2>/dev/null)
[ -z "$left" ] || fail "left after uninstall: $left"

[ $fails -eq 0 ] && echo "install: all checks passed"
exit $fails
