# SPDX-License-Identifier: GPL-3.0-or-later
#
# rings.sh -- sourced by shell tests that check their programs leave no
# ring file in /dev/shm.  A ring file's header keeps the absolute path of
# its profile (docs/FORMAT.md, the ring file), so the files a test's own
# programs left are told apart from those of other processes, such as
# tests running beside it, which come and go meanwhile.
#
#   rings_list > FILE         the ring files now, sorted by name
#   rings_left FILE DIR       the ring files not in FILE whose profile is
#                             under DIR, one name a line

rings_list () {
  ls /dev/shm 2>/dev/null | grep '^emlat-.*\.ring$' | LC_ALL=C sort
}

rings_left () {
  rings_list | LC_ALL=C comm -13 "$1" - | while read -r ring; do
    # The header is the file's first page.
    head -c 4096 "/dev/shm/$ring" 2>/dev/null | grep -a -q -F -- "$2/" && echo "$ring"
  done
}
