#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# deps.sh -- make sure the Debian packages that `make emacs` needs are
# installed: the tools to download and unpack Debian's emacs source package
# (dpkg-dev), to regenerate its configure script (autoconf, automake), to
# satisfy its configure (texinfo: the Debian source has no prebuilt manuals)
# and the libraries of the minimal terminal-only build (libncurses-dev).
#
# Invariants: nothing missing means one dpkg-query call and exit 0; as root
# the missing packages (and only those) are installed with the system's own
# apt configuration, which is not edited; otherwise the missing packages are
# named and the exit status is 1.
set -eu

pkgs="gcc make dpkg-dev autoconf automake texinfo libncurses-dev pkg-config xz-utils"

missing=
for p in $pkgs; do
  st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$st" = installed ] || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "emacs/deps.sh: missing Debian packages:$missing" >&2
  echo "emacs/deps.sh: install them with: sudo apt-get install$missing" >&2
  exit 1
fi
echo "emacs/deps.sh: installing$missing" >&2
apt-get update -q >&2
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing >&2
