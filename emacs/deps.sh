#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
#
# deps.sh -- make sure the Debian packages that `make emacs` needs are
# installed: the tools to download and unpack Debian's emacs source package
# (dpkg-dev), to regenerate its configure script (autoconf, automake), to
# satisfy its configure (texinfo: the Debian source has no prebuilt manuals)
# and the libraries of the minimal terminal-only build (libncurses-dev).
#
# Invariants: those of scripts/deps.sh: nothing missing means a quick
# dpkg-query and exit 0; as root the missing packages are installed with
# the system's own apt configuration; otherwise they are named, exit 1.
set -eu

# The package list lives in scripts/deps.list (group "emacs"), the project's
# one list of Debian dependencies.
exec sh "$(dirname "$0")/../scripts/deps.sh" emacs
