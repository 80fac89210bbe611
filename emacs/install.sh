#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# install.sh TREE DESTDIR PREFIX -- install the profiled Emacs built in TREE
# (by build.sh) into PREFIX/lib/emlat/emacs-28.2 (DEST) and as
# PREFIX/bin/emacs-emlat, staged under DESTDIR (may be empty).
#
# DEST gets the layout of an Emacs build tree (src/emacs and its dump,
# lisp/, etc/, lib-src/, leim/), which Emacs recognises at startup as an
# uninstalled Emacs and takes its Lisp and helper programs from (data and
# DOC through EMACSDATA and EMACSDOC, set by the script), so
# the copy does not depend on the build cache and does not touch the
# system's emacs or its /usr/share/emacs.  BINDIR/emacs-emlat is a small
# script that runs DEST/src/emacs.
#
# Invariants: DEST is replaced as a whole (written to DEST.new, then
# renamed), so an interrupted install leaves the previous one working.
set -eu

tree=${1:?usage: install.sh TREE DESTDIR PREFIX}
destdir=${2?}
prefix=${3:?}
run_dir=$prefix/lib/emlat/emacs-28.2   # where it runs from
dest=$destdir$run_dir                  # where it is written now
bindir=$destdir$prefix/bin

[ -x "$tree/src/emacs" ] && [ -f "$tree/src/emacs.pdmp" ] \
  || { echo "emacs/install.sh: no built Emacs in $tree: run make emacs" >&2; exit 1; }

rm -rf "$dest.new"
mkdir -p "$dest.new/src"
cp "$tree/src/emacs" "$tree/src/emacs.pdmp" "$dest.new/src/"
# Lisp sources and byte code, data and helper programs; no build leftovers.
(cd "$tree" && tar cf - --exclude='*.o' --exclude='Makefile*' --exclude='*.in' \
   --exclude='deps' lisp etc lib-src leim) | (cd "$dest.new" && tar xf -)
rm -rf "$dest"
mv "$dest.new" "$dest"

mkdir -p "$bindir"
cat > "$bindir/emacs-emlat.new" <<WRAPPER
#!/bin/sh
# emacs-emlat: GNU Emacs 28.2 with emlat's interaction latency profiler.
# Emacs finds its Lisp and helper programs from the layout of this
# directory, but its data and DOC directories only from the configured
# paths or EMACSDATA/EMACSDOC.  Child processes inherit both: another
# Emacs started from this one should be started without them.
EMACSDATA="$run_dir/etc"
EMACSDOC="$run_dir/etc"
export EMACSDATA EMACSDOC
exec "$run_dir/src/emacs" "\$@"
WRAPPER
chmod 0755 "$bindir/emacs-emlat.new"
mv "$bindir/emacs-emlat.new" "$bindir/emacs-emlat"
echo "emacs/install.sh: installed $bindir/emacs-emlat (files in $dest)" >&2
