#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# install.sh TREE DESTDIR PREFIX VERSION -- install the profiled Emacs
# VERSION (28.2 or 30.1) built in TREE (by build.sh) into
# PREFIX/lib/emlat/emacs-VERSION (DEST) and as PREFIX/bin/emacs-emlat-MAJOR
# (emacs-emlat-28, emacs-emlat-30), staged under DESTDIR (may be empty).
#
# install.sh --uninstall DESTDIR PREFIX VERSION -- remove exactly that:
# DEST, the script, and PREFIX/lib/emlat if nothing else is left in it.
#
# DEST gets the layout of an Emacs build tree (src/emacs and its dump,
# lisp/, etc/, lib-src/, leim/, info/), which Emacs recognises at startup
# as an uninstalled Emacs and takes its Lisp, helper programs and Info
# manuals from (data and DOC through EMACSDATA and EMACSDOC, set by the
# script), so the copy does not depend on the build cache and does not
# touch the system's emacs, its /usr/share/emacs or another version
# installed beside it.  BINDIR/emacs-emlat-MAJOR is a small script that
# runs DEST/src/emacs.
#
# Invariants: DEST is replaced as a whole (written to DEST.new, then
# renamed), so an interrupted install leaves the previous one working;
# the uninstall removes no file the install did not write.
set -eu

if [ "${1:-}" = --uninstall ]; then
  destdir=${2?}
  prefix=${3:?usage: install.sh --uninstall DESTDIR PREFIX VERSION}
  version=${4:?usage: install.sh --uninstall DESTDIR PREFIX VERSION}
  rm -rf "$destdir$prefix/lib/emlat/emacs-$version"
  rm -f "$destdir$prefix/bin/emacs-emlat-${version%%.*}"
  rmdir "$destdir$prefix/lib/emlat" 2>/dev/null || true
  exit 0
fi

tree=${1:?usage: install.sh TREE DESTDIR PREFIX VERSION}
destdir=${2?}
prefix=${3:?}
version=${4:?usage: install.sh TREE DESTDIR PREFIX VERSION}
major=${version%%.*}
run_dir=$prefix/lib/emlat/emacs-$version   # where it runs from
dest=$destdir$run_dir                      # where it is written now
bindir=$destdir$prefix/bin
name=emacs-emlat-$major

[ -x "$tree/src/emacs" ] && [ -f "$tree/src/emacs.pdmp" ] \
  || { echo "emacs/install.sh: no built Emacs in $tree: run make emacs" >&2; exit 1; }
[ -f "$tree/info/latency.info" ] \
  || { echo "emacs/install.sh: no Info manuals in $tree: run make emacs" >&2; exit 1; }

rm -rf "$dest.new"
mkdir -p "$dest.new/src"
cp "$tree/src/emacs" "$tree/src/emacs.pdmp" "$dest.new/src/"
# Lisp sources and byte code, data, helper programs and Info manuals; no
# build leftovers.
(cd "$tree" && tar cf - --exclude='*.o' --exclude='Makefile*' --exclude='*.in' \
   --exclude='deps' lisp etc lib-src leim info) | (cd "$dest.new" && tar xf -)
rm -rf "$dest"
mv "$dest.new" "$dest"

mkdir -p "$bindir"
cat > "$bindir/$name.new" <<WRAPPER
#!/bin/sh
# $name: GNU Emacs $version with emlat's interaction latency profiler.
# Emacs finds its Lisp, helper programs and Info manuals from the layout
# of this directory, but its data and DOC directories only from the
# configured paths or EMACSDATA/EMACSDOC.  Child processes inherit both:
# another Emacs started from this one should be started without them.
EMACSDATA="$run_dir/etc"
EMACSDOC="$run_dir/etc"
export EMACSDATA EMACSDOC
exec "$run_dir/src/emacs" "\$@"
WRAPPER
chmod 0755 "$bindir/$name.new"
mv "$bindir/$name.new" "$bindir/$name"
echo "emacs/install.sh: installed $bindir/$name (files in $dest)" >&2
