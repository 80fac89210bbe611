#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# build.sh -- build the profiled Emacs 28.2 or 30.1 (called by `make
# emacs`), or the same Emacs without emlat's changes (`make emacs-vanilla`,
# the baseline of bench/bench_gate.c).
#
# Environment:
#   EMLAT_ROOT         the emlat clone (emacs/patches, emacs/src, include/)
#   EMLAT_LIB          libemlat.a to link (not used by the vanilla variant)
#   EMLAT_EMACS_VERSION  28.2 or 30.1 (default): which Emacs, hence which patch series
#                      (emacs/patches/VERSION/*.patch)
#   EMLAT_EMACS_VARIANT  profiled (default): emlat's patch series, its files
#                      under emacs/src, emacs/lisp and emacs/doc, libemlat
#                      linked in; vanilla: the same source (Debian's patches
#                      applied), configure line and Lisp, and none of emlat's
#                      changes: no patch, no added file, no libemlat
#   EMLAT_EMACS_CACHE  where source, build tree and stamps live (outside the
#                      clone, so that every clone shares one warm build);
#                      one cache holds one version
#   EMACS_SRC          optional: an Emacs source tree of that version to use
#                      instead of Debian's source package
#   EMLAT_EMACS_LISP   debian (default): byte-compiled Lisp of Debian's
#                      emacs-common package of the same version fills in the
#                      libraries that `make src` does not compile; compile:
#                      byte-compile all of lisp/ here (slow); preloaded: only
#                      the preloaded files are compiled, the rest runs from .el
#   EMLAT_EMACS_JOBS   parallel make jobs (default 2)
#
# Invariants:
#  - The source tree named by EMACS_SRC and the unpacked Debian source
#    ($cache/pristine) are never written; the build happens in $cache/tree.
#  - emlat's changes reach the tree by content: each file touched by the
#    patch series is regenerated from the pristine copy plus the series and
#    copied only when its bytes differ, so an unchanged file keeps its mtime
#    and `make` rebuilds only what the changed files affect.  Files touched
#    by an older series and no longer by the current one are restored.
#  - libemlat and its headers are copied into $cache/emlat (by content too),
#    so the configure line does not depend on where the clone lives; a new
#    libemlat.a forces temacs to be relinked and the dump to be redone.
#  - A cache holds one variant (recorded in $cache/state/variant): asking
#    for the other one in the same cache is refused before anything is
#    touched, so a vanilla build can never be mistaken for a profiled one.
#  - One build per cache at a time: the whole build runs under the cache's
#    exclusive lock ($cache/build.lock, emacs/cache-lock.sh), so clones
#    sharing the default cache take turns; a second build waits, saying so.
set -eu

root=${EMLAT_ROOT:?}
variant=${EMLAT_EMACS_VARIANT:-profiled}
case $variant in
  profiled) lib=${EMLAT_LIB:?} ;;
  vanilla) lib= ;;
  *) echo "emacs/build.sh: EMLAT_EMACS_VARIANT must be profiled or vanilla" >&2; exit 2 ;;
esac
cache=${EMLAT_EMACS_CACHE:?}
jobs=${EMLAT_EMACS_JOBS:-2}
lisp_mode=${EMLAT_EMACS_LISP:-debian}
version=${EMLAT_EMACS_VERSION:-30.1}
here=$root/emacs
state=$cache/state
tree=$cache/tree

# The rest of this script runs again, holding the cache's lock.
if [ "${EMLAT_EMACS_CACHE_LOCKED:-}" != "$cache" ]; then
  EMLAT_EMACS_CACHE_LOCKED=$cache
  export EMLAT_EMACS_CACHE_LOCKED
  exec sh "$here/cache-lock.sh" "$cache" sh "$0" "$@"
fi

t0=$(date +%s)
say () { echo "emacs/build.sh: [$(( $(date +%s) - t0 ))s] $*" >&2; }
die () { say "$*"; exit 1; }

# copy_if_changed SRC DST: copy when the bytes differ; status 0 if copied.
copy_if_changed () {
  if [ -e "$2" ] && cmp -s "$1" "$2"; then return 1; fi
  mkdir -p "$(dirname "$2")"
  cp "$1" "$2"
  return 0
}

[ "$variant" = vanilla ] || [ -f "$lib" ] || die "no $lib: build libemlat first (make lib)"
case $version in
  28.2 | 30.1) ;;
  *) die "EMLAT_EMACS_VERSION must be 28.2 or 30.1, not $version" ;;
esac
[ -d "$here/patches/$version" ] || die "no patch series $here/patches/$version"
mkdir -p "$cache" "$state"
if [ -f "$cache/version" ] && [ "$(cat "$cache/version")" != "$version" ]; then
  die "$cache holds Emacs $(cat "$cache/version"), not $version: give each version its own EMACS_CACHE"
fi
echo "$version" > "$cache/version"
# A cache built before variants existed is a profiled one.
if [ -d "$tree" ] && [ ! -f "$state/variant" ]; then echo profiled > "$state/variant"; fi
if [ -f "$state/variant" ] && [ "$(cat "$state/variant")" != "$variant" ]; then
  die "$cache holds a $(cat "$state/variant") Emacs, not a $variant one: use another EMACS_CACHE"
fi
t_start=$(date +%s)

# 1. The source.
if [ -n "${EMACS_SRC:-}" ]; then
  src=$(cd "$EMACS_SRC" && pwd)
else
  src=$cache/pristine
  if [ ! -d "$src" ]; then
    say "downloading Debian's emacs source (log: $cache/fetch.log)"
    sh "$here/fetch-source.sh" "$src" "$version" >"$cache/fetch.log" 2>&1 \
      || { tail -n 20 "$cache/fetch.log" >&2; die "could not obtain the source"; }
  fi
fi
[ -f "$src/src/keyboard.c" ] || die "$src is not an Emacs source tree"
# 28.2: AC_INIT(GNU Emacs, 28.2, ...); 30.1: AC_INIT([GNU Emacs], [30.1], ...)
grep -Eq "^AC_INIT\(\[?GNU Emacs\]?, \[?$(echo "$version" | sed 's/\./\\./g')\]?," "$src/configure.ac" \
  || die "$src is not Emacs $version (see its configure.ac)"

# 2. The build tree: a copy of the source, made once per source.
if [ ! -d "$tree" ] || [ "$(cat "$state/source" 2>/dev/null)" != "$src" ]; then
  say "copying $src to $tree"
  rm -rf "$tree" "$tree.tmp" "$state"
  mkdir -p "$state"
  cp -a "$src" "$tree.tmp"
  mv "$tree.tmp" "$tree"
  echo "$src" > "$state/source"
fi
echo "$variant" > "$state/variant"

# 3. emlat's changes: the patch series and the new files under emacs/src
#    (none for the vanilla variant).
if [ "$variant" = vanilla ]; then
  patches=
else
  patches=$(ls "$here/patches/$version"/*.patch 2>/dev/null | LC_ALL=C sort || true)
fi
new_touched=$(for p in $patches; do
  sed -n 's|^+++ [^/]*/\([^[:space:]]*\).*$|\1|p' "$p"; done | LC_ALL=C sort -u)
old_touched=$(cat "$state/patched-files" 2>/dev/null || true)
stage=$cache/stage
rm -rf "$stage"
mkdir -p "$stage"
for f in $(printf '%s\n%s\n' "$new_touched" "$old_touched" | LC_ALL=C sort -u); do
  [ -e "$src/$f" ] || continue
  mkdir -p "$stage/$(dirname "$f")"
  cp -p "$src/$f" "$stage/$f"
done
for p in $patches; do
  (cd "$stage" && patch -p1 -s --no-backup-if-mismatch -i "$p") \
    || die "$(basename "$p") does not apply to $src"
done
for f in $(printf '%s\n%s\n' "$new_touched" "$old_touched" | LC_ALL=C sort -u); do
  if [ -e "$stage/$f" ]; then
    if copy_if_changed "$stage/$f" "$tree/$f"; then say "updated $f"; fi
  else
    rm -f "$tree/$f"
  fi
done
printf '%s\n' "$new_touched" > "$state/patched-files"

new_added=
[ "$variant" = vanilla ] \
  || new_added=$(cd "$here/src" && ls -1 *.c *.h 2>/dev/null | LC_ALL=C sort || true)
emlat_lisp=
[ "$variant" = vanilla ] \
  || emlat_lisp=$(cd "$here/lisp" 2>/dev/null && ls -1 *.el 2>/dev/null || true)
for f in $(cat "$state/added-files" 2>/dev/null || true); do
  case " $(echo $new_added) " in *" $f "*) ;; *)
    if [ -e "$src/src/$f" ]; then cp "$src/src/$f" "$tree/src/$f"; else rm -f "$tree/src/$f"; fi ;;
  esac
done
for f in $new_added; do
  if copy_if_changed "$here/src/$f" "$tree/src/$f"; then say "updated src/$f"; fi
done
printf '%s\n' "$new_added" > "$state/added-files"

# Lisp libraries of emlat (emacs/lisp/*.el; none for the vanilla variant)
# go to the tree's lisp/, their options' `:version' set to the version
# built (the files are shared by every version).  A changed one drops its
# stale .elc and loaddefs.el, so that `make src' regenerates the autoloads
# (its ;;;###autoload cookies) and redumps.
mkdir -p "$stage/lisp"
for f in $emlat_lisp; do
  sed -e "s/:version \"[0-9.]*\"/:version \"$version\"/" "$here/lisp/$f" > "$stage/lisp/$f"
  if copy_if_changed "$stage/lisp/$f" "$tree/lisp/$f"; then
    say "updated lisp/$f"
    rm -f "$tree/lisp/${f}c" "$tree/lisp/loaddefs.el"
  fi
done

# The manual of emlat (emacs/doc/*.texi) goes to the tree's doc/misc/,
# where the patch series lists it for `make info' (profiled only).
if [ "$variant" = profiled ]; then
  for f in $(cd "$here/doc" 2>/dev/null && ls -1 *.texi 2>/dev/null || true); do
    if copy_if_changed "$here/doc/$f" "$tree/doc/misc/$f"; then say "updated doc/misc/$f"; fi
  done
fi

# 4. libemlat, at a path that does not depend on the clone (profiled only).
if [ "$variant" = profiled ]; then
  mkdir -p "$cache/emlat/include/emlat" "$cache/emlat/lib"
  for h in "$root"/include/emlat/*.h; do
    copy_if_changed "$h" "$cache/emlat/include/emlat/$(basename "$h")" || true
  done
  # (The analysis API latencysum.c uses is the public emlat_report.h; older
  # caches held internal headers here.)
  rm -rf "$cache/emlat/include/analysis"
  if copy_if_changed "$lib" "$cache/emlat/lib/libemlat.a"; then
    say "new libemlat.a: relinking temacs"
    rm -f "$tree/src/temacs"
  fi
fi

# 5. Configure (again only when the configure line or configure.ac changed).
conf_args="--without-all --without-x --with-x-toolkit=no --with-threads
 --with-file-notification=inotify --with-dumping=pdumper
 --without-native-compilation --without-compress-install"
# The vanilla variant configures with the same options and no emlat
# include directory (its conf_id differs, so a cache never mixes the two).
if [ "$variant" = profiled ]; then
  conf_env="CPPFLAGS=-I$cache/emlat/include"
  make_vars="LATENCY_LIBS=$cache/emlat/lib/libemlat.a -lm -lpthread"
else
  conf_env=
  make_vars=
fi
conf_id=$(printf '%s|%s' "$conf_args" "$conf_env" | tr -s ' \n' '  ')
cd "$tree"
if [ ! -x configure ] || [ configure.ac -nt configure ]; then
  say "autogen.sh"
  ./autogen.sh >"$state/autogen.log" 2>&1 || die "autogen.sh failed: see $state/autogen.log"
  rm -f config.status
fi
if [ ! -f config.status ] || [ "$(cat "$state/configure-id" 2>/dev/null)" != "$conf_id" ]; then
  say "configure (log: $state/configure.log)"
  # shellcheck disable=SC2086
  nice -n 10 ./configure $conf_args ${conf_env:+"$conf_env"} \
    >"$state/configure.log" 2>&1 \
    || die "configure failed: see $state/configure.log"
  echo "$conf_id" > "$state/configure-id"
fi

# A Makefile.in changed by the patch series would make `make' regenerate
# every Makefile while it reads the top one, whose $(shell make -C doc/misc
# echo-sources) then captures config.status's messages and fails with
# "multiple target patterns"; regenerate them before make runs.
for m in $(find . -name Makefile.in); do
  if [ -f "${m%.in}" ] && [ "$m" -nt "${m%.in}" ]; then
    say "config.status (a Makefile.in changed)"
    ./config.status >"$state/config-status.log" 2>&1 \
      || die "config.status failed: see $state/config-status.log"
    break
  fi
done

# 6. Build the C core and the dump; the Lisp the dump preloads is compiled
#    by this step too.  LATENCY_LIBS is the patch's link variable.
say "make src (log: $state/make.log)"
nice -n 10 make -j"$jobs" src ${make_vars:+"$make_vars"} >"$state/make.log" 2>&1 \
  || { tail -n 30 "$state/make.log" >&2; die "make src failed: see $state/make.log"; }

# 7. The other Lisp libraries.
case $lisp_mode in
  debian)
    if [ ! -f "$state/elc-done" ]; then
      debversion=$(cd "$tree" && dpkg-parsechangelog -S Version 2>/dev/null || true)
      [ -n "$debversion" ] || die "no debian/changelog in the source: use EMLAT_EMACS_LISP=compile"
      debdir=$cache/emacs-common-$debversion
      if [ ! -d "$debdir" ]; then
        # Through the cache's private apt tree (fetch-source.sh), which
        # lists the suites the source came from.
        EMLAT_EMACS_CACHE=$cache sh "$here/fetch-source.sh" --common "$debdir" "$debversion" \
          || die "could not download emacs-common $debversion: use EMLAT_EMACS_LISP=compile"
      fi
      n=0
      elcroot=$debdir/x/usr/share/emacs/$version/lisp
      for f in $(cd "$elcroot" && find . -name '*.elc'); do
        # Only a library whose source is in the tree and that the build did
        # not compile itself.
        if [ -f "$tree/lisp/${f%c}" ] && [ ! -e "$tree/lisp/$f" ]; then
          cp "$elcroot/$f" "$tree/lisp/$f"
          n=$((n + 1))
        fi
      done
      touch "$state/elc-done"
      say "added $n byte-compiled libraries from emacs-common $debversion"
    fi ;;
  compile)
    say "make lisp (log: $state/make-lisp.log)"
    nice -n 10 make -j"$jobs" lisp >"$state/make-lisp.log" 2>&1 \
      || die "make lisp failed: see $state/make-lisp.log" ;;
  preloaded) ;;
  *) die "EMLAT_EMACS_LISP must be debian, compile or preloaded" ;;
esac

[ -x "$tree/src/emacs" ] || die "no $tree/src/emacs after the build"
# Byte-compile emlat's Lisp libraries (warnings are errors).
for f in $emlat_lisp; do
  if [ ! -f "$tree/lisp/${f}c" ]; then
    say "byte-compiling lisp/$f"
    "$tree/src/emacs" -Q --batch --eval '(setq byte-compile-error-on-warn t)' \
      -f batch-byte-compile "$tree/lisp/$f" >"$state/elc.log" 2>&1 \
      || { cat "$state/elc.log" >&2; die "byte-compiling lisp/$f failed"; }
  fi
done
# 8. The Info manuals of the tree (`make info': those Debian's source
#    keeps, and emlat's), so that the profiler's manual is checked on
#    every build and installed with it.  Emacs's `make info' depends on
#    `make lisp'; after step 7 and emlat's own libraries every library is
#    compiled (debian, compile), so that costs seconds.  With only the
#    preloaded Lisp it would compile all the rest: then the manuals are
#    built directly (doc/misc, then info/dir), which is what `make info'
#    does besides.
#    makeinfo runs with --force there, so its warnings and errors about
#    emlat's manual are looked for in the log (Debian's transient.texi
#    includes a gpl.texi that its source lacks: that complaint is
#    Debian's, and left alone).  Not for the vanilla variant, which has
#    no manual of emlat's to check.
if [ "$variant" = profiled ]; then
  say "make info (log: $state/make-info.log)"
  if [ "$lisp_mode" = preloaded ]; then
    (nice -n 10 make -C doc/misc info && nice -n 10 make info-dir) >"$state/make-info.log" 2>&1
  else
    nice -n 10 make -j"$jobs" info >"$state/make-info.log" 2>&1
  fi || { tail -n 30 "$state/make-info.log" >&2; die "make info failed: see $state/make-info.log"; }
  for f in $(cd "$here/doc" 2>/dev/null && ls -1 *.texi 2>/dev/null || true); do
    if grep -E "^$f:[0-9]+: " "$state/make-info.log" >&2; then
      die "makeinfo complained about $f (above): see $state/make-info.log"
    fi
  done
  [ -f "$tree/info/latency.info" ] || die "make info built no info/latency.info"
fi

# Each dump adds hard links named after the build number (emacs-30.1.N);
# keep only those of the current binary, so that rebuilds do not pile up.
for f in "$tree"/src/emacs-"$version".*; do
  [ -e "$f" ] || continue
  case $f in *.pdmp) cur=$tree/src/emacs.pdmp ;; *) cur=$tree/src/emacs ;; esac
  [ "$f" -ef "$cur" ] || rm -f "$f"
done
t_end=$(date +%s)
say "$variant Emacs: $tree/src/emacs ($((t_end - t_start)) s)"
