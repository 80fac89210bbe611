/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * input_open.h -- opening a path that is to be read as a profile, safely:
 * whatever the path names, the open never blocks and nothing is read from
 * anything but a regular file.
 *
 * The path's type is first taken from stat(2), so that a special file is
 * refused without being opened at all; a regular file is then opened with
 * O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, so that a path swapped for
 * a FIFO without a writer, a terminal or a device in between cannot hold
 * the open either, and the type of the file actually opened is checked
 * again with fstat(2) (symbolic links are followed: the file finally
 * opened is what counts); anything but a regular file is closed again
 * before a byte is read.  A
 * stream is read deliberately, through a descriptor the caller hands over
 * (emlat_profile_load_fd, the `-` operand of the command), never by
 * naming it.
 *
 * Used by every reader of a profile: the loader, the re-scans of a loaded
 * set, recovery's look at a profile's header, and the command's header
 * peek; so it lives with the code the recorder and the reader share.
 */
#ifndef EMLAT_INPUT_OPEN_H
#define EMLAT_INPUT_OPEN_H

#include <sys/stat.h>

/* Open PATH for reading as described above.  Returns the descriptor (the
   file offset at 0; O_NONBLOCK is still set, which changes nothing for a
   regular file) and fills *ST, or a negative errno: -EISDIR for a
   directory, -ENODEV for a FIFO, a socket, a character or a block device
   (ST->st_mode then says which), or the open's or fstat's error. */
int emlat_input_open (const char *path, struct stat *st);

/* What a refused input is, for a message: "a directory", "a FIFO", "a
   socket", "a character device", "a block device"; NULL for a regular
   file or an unknown type.  MODE is a st_mode. */
const char *emlat_input_type_name (mode_t mode);

#endif /* EMLAT_INPUT_OPEN_H */
