#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# fetch-source.sh DEST VERSION -- obtain the Emacs VERSION (28.2 or 30.1)
# source of Debian's `emacs` source package and unpack it (Debian patches
# applied) into DEST.
#
#   fetch-source.sh DEST VERSION             the source, unpacked into DEST
#   fetch-source.sh --common DIR DEBVERSION  Debian's emacs-common binary
#                                            package DEBVERSION, unpacked
#                                            into DIR/x (build.sh's Lisp)
#
# Where the versions come from (on Debian 12, bookworm): 28.2 is the
# release's own emacs; 30.1 is in bookworm-backports (1:30.1+1-6~bpo12+1)
# and in the next release, Debian 13 trixie (1:30.1+1-6+deb13u1, the same
# Debian packaging plus security fixes).  For 30.1 the private tree lists
# both, and the newest 30.1 whose files can all be downloaded is taken.
#
# Invariants:
#  - The system's apt configuration is never modified.  A private apt tree
#    under $EMLAT_EMACS_CACHE/apt holds deb and deb-src entries derived from
#    the system's own deb entries (deb822 *.sources and one-line
#    sources.list) -- for 30.1 also the release's backports suite and the
#    next release's suites -- its own package lists and its own package
#    cache.  Downloaded files are checked by apt against the hashes of the
#    signed index, as for any apt download.
#  - A source package is unpacked with `dpkg-source -x`; when the mirror
#    serves the upstream and Debian tarballs but not the .dsc (seen on this
#    project's mirror for 30.1), they are unpacked as dpkg-source does for
#    format 3.0 (quilt): the upstream tarball, debian/ over it, then
#    debian/patches/series applied in order.
#  - DEST is created atomically: unpacked into DEST.tmp, then renamed, so an
#    interrupted run never leaves a half-unpacked tree that looks complete.
#  - Only the requested upstream version is accepted (each patch series is
#    for one version); the newest Debian revision of it is taken.
set -eu

cache=${EMLAT_EMACS_CACHE:?EMLAT_EMACS_CACHE must name the cache directory}
apt_dir=$cache/apt
codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")

# next_release CODENAME: the Debian release after CODENAME.
next_release () {
  case $1 in
    bullseye) echo bookworm ;;
    bookworm) echo trixie ;;
    trixie) echo forky ;;
    *) echo "" ;;
  esac
}

aptopts="-o Dir::Etc::SourceList=/dev/null
 -o Dir::Etc::SourceParts=$apt_dir/sources.list.d
 -o Dir::State::Lists=$apt_dir/lists
 -o Dir::Cache=$apt_dir/cache
 -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
 -o APT::Sandbox::User=root"

# write_sources EXTRA: the private entries (EXTRA nonempty: with the
# backports and next-release suites), then the private package lists.
write_sources () {
  extra=$1
  next=$(next_release "$codename")
  mkdir -p "$apt_dir/sources.list.d" "$apt_dir/lists/partial" \
    "$apt_dir/cache/archives/partial"
  srcfile=$apt_dir/sources.list.d/emlat-src.sources
  : > "$srcfile.new"
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    if [ -n "$extra" ] && [ -n "$codename" ]; then
      # The release's suites gain their backports and next-release
      # counterparts: bookworm -> bookworm-backports trixie,
      # bookworm-security -> trixie-security.
      awk -v c="$codename" -v n="$next" '
        /^Types:/ { print "Types: deb deb-src"; next }
        /^Suites:/ {
          line = $0
          for (i = 2; i <= NF; i++) {
            if ($i == c) line = line " " c "-backports" (n != "" ? " " n : "")
            else if (n != "" && $i == c "-security") line = line " " n "-security"
          }
          print line; next
        }
        { print }' "$f" >> "$srcfile.new"
    else
      sed -e 's/^Types:.*$/Types: deb deb-src/' "$f" >> "$srcfile.new"
    fi
    printf '\n' >> "$srcfile.new"
  done
  listfile=$apt_dir/sources.list.d/emlat-src.list
  : > "$listfile.new"
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    sed -n -e 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$f" >> "$listfile.new"
    if [ -n "$extra" ] && [ -n "$codename" ]; then
      for suite in "$codename-backports" $next; do
        sed -n -e "s/^[[:space:]]*deb[[:space:]]\\(.*[[:space:]]\\)$codename[[:space:]]\\(.*\\)\$/deb \\1$suite \\2\\ndeb-src \\1$suite \\2/p" \
          "$f" >> "$listfile.new"
      done
    fi
  done
  mv "$srcfile.new" "$srcfile"
  mv "$listfile.new" "$listfile"
  if ! grep -q '^Types:' "$srcfile" && ! [ -s "$listfile" ]; then
    echo "fetch-source.sh: no Debian deb entries found in /etc/apt; set EMACS_SRC=DIR" >&2
    exit 1
  fi
  # shellcheck disable=SC2086
  apt-get $aptopts -q update >&2
}

# unpack_quilt DIR VERSION: DIR.tmp from the upstream and Debian tarballs
# of VERSION in the current directory, as dpkg-source -x does for 3.0
# (quilt).  Status 1 when a tarball is missing.
unpack_quilt () {
  upstream=${2#*:}
  upstream=${upstream%-*}
  orig=$(ls -1 emacs_"$upstream".orig.tar.* 2>/dev/null | head -n 1)
  deb=$(ls -1 emacs_"${2#*:}".debian.tar.* 2>/dev/null | head -n 1)
  [ -n "$orig" ] && [ -n "$deb" ] || return 1
  rm -rf "$1.tmp"
  mkdir -p "$1.tmp"
  tar -C "$1.tmp" --strip-components=1 -xf "$orig"
  rm -rf "$1.tmp/debian"
  tar -C "$1.tmp" -xf "$deb"
  grep -q '^3.0 (quilt)' "$1.tmp/debian/source/format" || {
    echo "fetch-source.sh: $deb is not of format 3.0 (quilt)" >&2; return 1; }
  sed -e 's/#.*//' "$1.tmp/debian/patches/series" | while read -r p opt; do
    [ -n "$p" ] || continue
    (cd "$1.tmp" && patch ${opt:--p1} -t -F 0 -N -s --no-backup-if-mismatch \
       -E -i "debian/patches/$p") >&2 \
      || { echo "fetch-source.sh: debian/patches/$p does not apply" >&2; exit 1; }
  done
}

if [ "${1:-}" = --common ]; then
  dir=${2:?usage: fetch-source.sh --common DIR DEBVERSION}
  debversion=${3:?usage: fetch-source.sh --common DIR DEBVERSION}
  case $debversion in
    1:28.2* | 28.2*) extra= ;;
    *) extra=extra ;;
  esac
  ls "$apt_dir"/lists/*_Packages >/dev/null 2>&1 || write_sources "$extra"
  rm -rf "$dir.tmp"
  mkdir -p "$dir.tmp"
  # shellcheck disable=SC2086
  (cd "$dir.tmp" && apt-get $aptopts -q download "emacs-common=$debversion" >&2 \
     && dpkg-deb -x emacs-common_*.deb x && rm -f emacs-common_*.deb) || exit 1
  rm -rf "$dir"
  mv "$dir.tmp" "$dir"
  exit 0
fi

dest=${1:?usage: fetch-source.sh DEST VERSION}
want_version=${2:?usage: fetch-source.sh DEST VERSION}
case $want_version in
  28.2) write_sources "" ;;
  *) write_sources extra ;;
esac
mkdir -p "$cache/download"
cd "$cache/download"

# The Debian versions of the wanted upstream version, newest first.
# shellcheck disable=SC2086
versions=$(apt-cache $aptopts showsrc emacs | sed -n 's/^Version: //p' \
  | grep -E "^(1:)?$(echo "$want_version" | sed 's/\./\\./g')\\+" | sort -Vru)
if [ -z "$versions" ]; then
  # shellcheck disable=SC2086
  echo "fetch-source.sh: Debian offers emacs $(apt-cache $aptopts showsrc emacs | sed -n 's/^Version: //p' | tr '\n' ' ')but not $want_version; set EMACS_SRC=DIR" >&2
  exit 1
fi
for version in $versions; do
  # shellcheck disable=SC2086
  apt-get $aptopts -q source --download-only "emacs=$version" >&2 || true
  dsc=$(ls -1 emacs_"${version#*:}".dsc 2>/dev/null || true)
  if [ -n "$dsc" ]; then
    rm -rf "$dest.tmp"
    dpkg-source --no-check --no-copy -x "$dsc" "$dest.tmp" >&2
  elif unpack_quilt "$dest" "$version"; then
    echo "fetch-source.sh: no .dsc for $version; unpacked its tarballs as dpkg-source would" >&2
  else
    echo "fetch-source.sh: emacs $version could not be downloaded completely" >&2
    continue
  fi
  rm -rf "$dest"
  mv "$dest.tmp" "$dest"
  echo "$version" > "$dest/.debian-version"
  echo "fetch-source.sh: unpacked emacs $version into $dest" >&2
  exit 0
done
echo "fetch-source.sh: no Debian version of emacs $want_version could be downloaded; set EMACS_SRC=DIR" >&2
exit 1
