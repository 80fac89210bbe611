#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# test_emacs_install.sh -- `make install-emacs' and `make uninstall-emacs'
# (emacs/install.sh) for the version of EMACS_BIN.
#
# Installs the built tree of EMACS_BIN into a new PREFIX (with a DESTDIR
# too, for the staging case) as PREFIX/bin/emacs-emlat-MAJOR, then:
#   - the installed script runs that Emacs, which takes its Lisp, data
#     and Info manuals from the installed copy, not from the build cache:
#     the report code loads, `latency-profile-summary' exists, and
#     `info' opens "(latency)Latency Profiles";
#   - a file the install did not write (another program in bin/, another
#     version's directory under lib/emlat/) survives the uninstall, which
#     removes exactly what the install wrote (the file lists before the
#     install and after the uninstall are equal);
#   - with DESTDIR, every file lands under DESTDIR and the script names
#     the final PREFIX path.
#
# Exits 77 (SKIP) when the profiled Emacs has not been built.
# Environment: SRCDIR, EMACS_BIN, EMACS_VERSION.
set -eu

SRCDIR=${SRCDIR:-.}
cache=${EMACS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/emlat/emacs-${EMACS_VERSION:-30.1}}
EMACS_BIN=${EMACS_BIN:-$cache/tree/src/emacs}

if [ ! -x "$EMACS_BIN" ]; then
  echo "SKIP: no profiled Emacs at $EMACS_BIN (run 'make emacs' first)"
  exit 77
fi
fail () { echo "FAIL: $*"; exit 1; }
tree=$(cd "$(dirname "$EMACS_BIN")/.." && pwd)
version=$(sed -n 's/^AC_INIT(\[\{0,1\}GNU Emacs\]\{0,1\}, \[\{0,1\}\([0-9.]*\).*/\1/p' "$tree/configure.ac")
major=${version%%.*}
[ -n "$version" ] || fail "cannot tell the version of $tree"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

# Files that are not the install's: they must survive the uninstall.
mkdir -p "$prefix/bin" "$prefix/lib/emlat/emacs-other"
echo other > "$prefix/bin/other-program"
echo other > "$prefix/lib/emlat/emacs-other/file"
(cd "$tmp" && find prefix | LC_ALL=C sort) > "$tmp/before"

sh "$SRCDIR/emacs/install.sh" "$tree" "" "$prefix" "$version" 2> "$tmp/install.log" \
  || { cat "$tmp/install.log"; fail "install.sh"; }
script=$prefix/bin/emacs-emlat-$major
[ -x "$script" ] || fail "no $script"
dest=$prefix/lib/emlat/emacs-$version
for f in src/emacs src/emacs.pdmp lisp/latency-report.elc etc/DOC info/latency.info info/dir; do
  [ -e "$dest/$f" ] || fail "not installed: $f"
done

"$script" -Q --batch --eval '
(progn
  (require (quote info))
  (require (quote latency-report))
  (let ((lib (locate-library "latency-report"))
        (prefix (car command-line-args-left)))
    (unless (string-prefix-p prefix lib)
      (error "latency-report from %s, not under %s" lib prefix))
    (unless (string-prefix-p prefix (expand-file-name data-directory))
      (error "data-directory %s is not under %s" data-directory prefix))
    (unless (fboundp (quote latency-profile-summary))
      (error "no latency-profile-summary"))
    (info "(latency)Latency Profiles")
    (unless (string-prefix-p prefix (expand-file-name Info-current-file))
      (error "the manual came from %s" Info-current-file))
    (princ (format "installed Emacs %s runs from %s\n" emacs-version
                   (file-name-directory lib)))
    (kill-emacs 0)))' "$dest" > "$tmp/run.log" 2>&1 \
  || { cat "$tmp/run.log"; fail "the installed Emacs does not run from its copy"; }
cat "$tmp/run.log"

sh "$SRCDIR/emacs/install.sh" --uninstall "" "$prefix" "$version" \
  || fail "install.sh --uninstall"
(cd "$tmp" && find prefix | LC_ALL=C sort) > "$tmp/after"
diff "$tmp/before" "$tmp/after" || fail "the uninstall did not remove exactly what the install wrote"

# Staged: everything under DESTDIR, the script naming PREFIX.
sh "$SRCDIR/emacs/install.sh" "$tree" "$tmp/stage" /opt/emlat-test "$version" 2> "$tmp/install.log" \
  || { cat "$tmp/install.log"; fail "install.sh with DESTDIR"; }
[ -x "$tmp/stage/opt/emlat-test/bin/emacs-emlat-$major" ] || fail "DESTDIR: no script"
[ -x "$tmp/stage/opt/emlat-test/lib/emlat/emacs-$version/src/emacs" ] || fail "DESTDIR: no binary"
grep -q "^exec \"/opt/emlat-test/lib/emlat/emacs-$version/src/emacs\"" \
  "$tmp/stage/opt/emlat-test/bin/emacs-emlat-$major" || fail "DESTDIR: the script does not name PREFIX"
[ ! -e /opt/emlat-test ] || fail "DESTDIR: wrote outside DESTDIR"
sh "$SRCDIR/emacs/install.sh" --uninstall "$tmp/stage" /opt/emlat-test "$version"
[ -z "$(find "$tmp/stage" -type f)" ] || fail "DESTDIR: files left after the uninstall"
echo "ok: emacs-emlat-$major installed, run from its copy, uninstalled exactly"
