/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fileout.h -- the .emlat output file: safe creation, rotation names, and
 * appending with writev (FORMAT.md F-24, F-80).
 *
 * Invariants: the file is created with mode 0600, O_NOFOLLOW|O_CLOEXEC and
 * O_EXCL unless overwriting (or adopting an empty file) was asked for, and
 * is never a symlink.  Bytes
 * are only appended; after a failed or short write the file is truncated back
 * to the last complete chunk, so a later successful write never follows a
 * partial chunk.  Before each write the descriptor is checked to still be the
 * file we opened (same device and inode): a host program that closes "all
 * descriptors" and reuses the number must never receive our bytes.
 *
 * Ownership: an emlat_out owns its path, a heap string of fewer than
 * EMLAT_OUT_PATH_MAX bytes (a string, not a 4 KiB buffer, so that a
 * session's start touches a few bytes of it: docs/PERFORMANCE.md, "A
 * start's pages").  The open calls take an emlat_out that holds no path
 * (new, zeroed or released by emlat_out_free) and set it only when they
 * succeed; emlat_out_close keeps it (the file's name outlives its
 * descriptor: a failed start removes the file by it).
 */
#ifndef EMLAT_FILEOUT_H
#define EMLAT_FILEOUT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

struct emlat_out
{
  int fd;           /* -1 when closed or lost */
  dev_t dev;
  ino_t ino;
  uint64_t size;    /* bytes of complete chunks in this file */
  int lost;         /* the descriptor was closed or replaced under us */
  char *path;       /* the file's path (malloc'd); 0 before any open */
};

/* The longest path the open calls take, with its NUL: longer ones are
   refused with -ENAMETOOLONG. */
#define EMLAT_OUT_PATH_MAX 4096

/* How emlat_out_open treats an existing PATH. */
enum emlat_out_mode
{
  EMLAT_OUT_NEW,         /* refused: -EEXIST (O_EXCL) */
  EMLAT_OUT_OVERWRITE,   /* a regular file is truncated and reused */
  EMLAT_OUT_ADOPT_EMPTY, /* an empty regular file of this user is reused
                            (created by the process that will finish the
                            profile); any other: -EEXIST */
};
/* Open PATH for a new file; returns 0 or a negative errno. */
int emlat_out_open (struct emlat_out *o, const char *path, enum emlat_out_mode mode);
/* Name of rotated file SEQ (>= 1) for BASE (F-80) into OUT. */
int emlat_out_rotated_name (char *out, size_t cap, const char *base, uint64_t seq);
/* A new file name in DIR: DIR/emlat-YYYYmmdd-HHMMSS-PID[-N].emlat opened
   with O_EXCL.  Returns 0 or a negative errno. */
int emlat_out_open_in_dir (struct emlat_out *o, const char *dir);
/* Append IOV (all of it, or nothing: on error the file is truncated back).
   Returns 0 or a negative errno. */
int emlat_out_append (struct emlat_out *o, const struct iovec *iov, int iovcnt);
/* Close the descriptor (if still ours); the path is kept. */
void emlat_out_close (struct emlat_out *o);
/* Close, and release the path: O holds nothing afterwards. */
void emlat_out_free (struct emlat_out *o);
/* PATH as EMLAT_OUT_ADOPT_EMPTY would take it, for a process that writes
   nothing into it itself (its driver does, DESIGN.md 8.7): an existing
   empty regular file of this user is checked and left closed (O->fd -1,
   its path, device and inode kept); a missing one is created (and left
   open, as emlat_out_open does).  Returns 0 or a negative errno (-EEXIST
   for a file with bytes or of another user, -ELOOP for a symlink). */
int emlat_out_adopt_unopened (struct emlat_out *o, const char *path);
/* Open the existing regular file PATH to append after its first SIZE bytes
   (what follows is cut off: an unfinished pass of a dead writer).  With
   START (LEN bytes: the file's header and first chunks, kept by a session
   that did not write them itself), a file shorter than LEN is cut to
   nothing and START written first.  Returns 0 or a negative errno. */
int emlat_out_reopen (struct emlat_out *o, const char *path, uint64_t size, const void *start,
                      size_t len);

#endif /* EMLAT_FILEOUT_H */
