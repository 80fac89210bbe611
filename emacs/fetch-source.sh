#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# fetch-source.sh DEST -- obtain the Emacs 28.2 source of Debian's `emacs`
# source package and unpack it (Debian patches applied) into DEST.
#
# Invariants:
#  - The system's apt configuration is never modified.  A private apt tree
#    under $EMLAT_EMACS_CACHE/apt holds deb-src entries derived from the
#    system's own deb entries (deb822 *.sources and one-line sources.list),
#    its own package lists and its own package cache.
#  - DEST is created atomically: unpacked into DEST.tmp, then renamed, so an
#    interrupted run never leaves a half-unpacked tree that looks complete.
#  - Only version 28.2 is accepted (the patches are for 28.2).
set -eu

dest=${1:?usage: fetch-source.sh DEST}
cache=${EMLAT_EMACS_CACHE:?EMLAT_EMACS_CACHE must name the cache directory}
want_version=28.2

apt_dir=$cache/apt
mkdir -p "$apt_dir/sources.list.d" "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$cache/download"

# Derive deb-src entries from the system's deb entries.
srcfile=$apt_dir/sources.list.d/emlat-src.sources
: > "$srcfile.new"
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] || continue
  sed -e 's/^Types:.*$/Types: deb-src/' "$f" >> "$srcfile.new"
  printf '\n' >> "$srcfile.new"
done
listfile=$apt_dir/sources.list.d/emlat-src.list
: > "$listfile.new"
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
  [ -f "$f" ] || continue
  sed -n -e 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$f" >> "$listfile.new"
done
mv "$srcfile.new" "$srcfile"
mv "$listfile.new" "$listfile"
if ! grep -q '^Types: deb-src' "$srcfile" && ! [ -s "$listfile" ]; then
  echo "fetch-source.sh: no Debian deb entries found in /etc/apt; set EMACS_SRC=DIR" >&2
  exit 1
fi

aptopts="-o Dir::Etc::SourceList=/dev/null
 -o Dir::Etc::SourceParts=$apt_dir/sources.list.d
 -o Dir::State::Lists=$apt_dir/lists
 -o Dir::Cache=$apt_dir/cache
 -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
 -o APT::Sandbox::User=root"

# shellcheck disable=SC2086
apt-get $aptopts -q update >&2

cd "$cache/download"
# shellcheck disable=SC2086
version=$(apt-cache $aptopts showsrc emacs | sed -n 's/^Version: //p' | sort -V | tail -n 1)
case $version in
  1:$want_version*|$want_version*) ;;
  *) echo "fetch-source.sh: Debian offers emacs $version, not $want_version; set EMACS_SRC=DIR" >&2
     exit 1 ;;
esac
# shellcheck disable=SC2086
apt-get $aptopts -q source --download-only "emacs=$version" >&2

dsc=$(ls -1 "$cache"/download/emacs_*.dsc | head -n 1)
rm -rf "$dest.tmp"
dpkg-source --no-check --no-copy -x "$dsc" "$dest.tmp" >&2
rm -rf "$dest"
mv "$dest.tmp" "$dest"
echo "fetch-source.sh: unpacked $(basename "$dsc") into $dest" >&2
