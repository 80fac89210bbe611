/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ringfile.h -- the ring file: the recording threads' rings kept in a
 * file-backed shared mapping (in /dev/shm, or beside the profile), so that
 * a record is in the kernel's page cache the moment a producer publishes
 * it.
 * A process that dies by any signal leaves its ring file behind; the next
 * reader (recover.c) writes what the file does not yet hold into the
 * profile.  The byte layout is docs/FORMAT.md section 15 (rules F-100..).
 *
 * Layout (offsets in bytes, all page-aligned but the header fields):
 *   0              the header (struct emlat_rf_header, one page)
 *   rings_off      nrings ring control blocks (struct emlat_ring, ring.h)
 *   prologue_off   the profile's start as a DRIVEN session encoded it (its
 *                  file header, SESSION and STRING chunks), for the driver
 *                  or a recovery to write into the profile: the recording
 *                  process writes nothing into its profile itself
 *   strings_off    the string log: per string a u32 length and its bytes
 *   slots_off      nrings x nslots slots of 32 bytes (the rings' records)
 *   ckpt_base      checkpoint areas of the writer (checkpoint.c), written
 *                  with pwrite(2) and relocated to the end when they grow
 *
 * Invariants:
 *  - The recording process holds an exclusive flock(2) on the file for the
 *    whole session; a reader that can take the lock knows no process is
 *    writing it.  The descriptor is close-on-exec and closed in a fork
 *    child, so the lock dies with the recorder.
 *  - Whoever drains the rings from outside the recording process -- a
 *    reader recovering them, or the driver that drains them while the
 *    process lives (a DRIVEN file, drain.c) -- holds a write lock on the
 *    file's first byte (an open file description lock, fcntl(2)
 *    F_OFD_SETLK, independent of flock on Linux): at most one does, and
 *    a recovery never runs while a driver still drains.
 *  - Static header fields are written before the mapping is handed to any
 *    producer and never change; live fields are atomics (memory orders at
 *    each use).
 *  - The layout word binds the file to the in-memory structures of this
 *    library build (struct sizes): a file of another layout is not
 *    interpreted, only reported.
 */
#ifndef EMLAT_RINGFILE_H
#define EMLAT_RINGFILE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "record/ring.h"

#define EMLAT_RF_MAGIC "EMLATRNG"
#define EMLAT_RF_VERSION 1u
#define EMLAT_RF_PAGE 4096u
/* String log capacity: every string the session may define (session.c:
   at most 2^20 strings, 64 MiB in all) with its length word. */
#define EMLAT_RF_STRINGS_CAP ((64u << 20) + (4u << 20))
/* Capacity of the profile's start kept for a DRIVEN session (a SESSION
   larger than this is written into the profile by the process itself). */
#define EMLAT_RF_PROLOGUE_CAP (64u << 10)
/* First capacity of each checkpoint area. */
#define EMLAT_RF_CKPT_INIT (1u << 20)

/* Static header flags. */
#define EMLAT_RF_DRIVEN 0x1u /* the recording process runs no writer: its
                                driver drains the rings (DESIGN.md section
                                8.7, drain.c); only in /dev/shm */
#define EMLAT_RF_NO_MAP_AHEAD 0x2u /* EMLAT_OPT_NO_MAP_AHEAD: the driver of a
                                      DRIVEN file maps nothing ahead */

/* Session states (header.state). */
enum emlat_rf_state {
  EMLAT_RF_RECORDING = 1, /* a process records (or died recording) */
  EMLAT_RF_STOPPED = 2,   /* emlat_stop left the last records to a reader */
  EMLAT_RF_BROKEN = 3,    /* a checkpoint could not be written: the file
                             cannot be trusted for recovery */
};

struct emlat_rf_ckpt_slot
{
  /* Published last, with release: a slot is valid when its body's CRC
     matches; of two valid slots the higher seq wins. */
  _Atomic uint64_t seq;
  uint64_t off, cap, len;
  uint32_t crc, pad;
};

struct emlat_rf_header
{
  /* Static: bytes 0..151, CRC-protected. */
  char magic[8];
  uint32_t version;
  uint32_t layout;        /* emlat_rf_layout () of the writing build */
  uint8_t uuid[16];       /* the session's (profile file header F-11) */
  uint64_t pid;
  uint64_t mono0, realtime0;
  uint32_t nrings, slot_bytes;
  uint64_t nslots;
  uint64_t rings_off, ring_stride;
  uint64_t strings_off, strings_cap;
  uint64_t slots_off;
  uint64_t ckpt_base;
  uint32_t chunk_bytes, flags;
  uint64_t rotate_bytes;
  uint64_t prologue_off, prologue_cap;
  uint32_t static_crc;    /* CRC32C of bytes 0 .. offsetof (static_crc) */
  uint32_t pad0;

  /* Live. */
  _Alignas (64) _Atomic uint32_t state;
  /* Strings published to the log: count and bytes used, stored with
     release after the string's bytes (session.c); loaded with acquire. */
  _Atomic uint64_t strings_count, strings_bytes;
  /* The producers' shared counters (no_ring drops, thread ids). */
  struct emlat_shared_counters shared;
  /* At a deferred stop: the writer's CPU time and wake-ups until then. */
  _Atomic uint64_t stop_writer_cpu_ns, stop_wakeups, stop_highwater_wakes, stop_ahead_wakes;

  /* A DRIVEN file: the words the recording process and its driver share
     (session.c and drain.c; each use states its memory order). */
  _Atomic uint32_t driver_ready;  /* 1 once the first checkpoint is saved
                                     (a futex word the driver waits on) */
  _Atomic uint32_t flush_req;     /* flushes asked for (a count) */
  _Atomic uint32_t flush_done;    /* the count of them answered: every
                                     record published before the request
                                     is in the profile (a futex word the
                                     flushing process waits on) */
  uint32_t pad1;
  _Atomic uint64_t strings_refused; /* emlat_string calls refused */
  /* The driver's status after its last pass (emlat_status). */
  _Atomic uint64_t d_records_written, d_records_dropped, d_bytes_written, d_chunks_written;
  _Atomic uint64_t d_ring_high_water, d_writer_cpu_ns, d_write_errors;
  _Atomic int64_t d_last_error;
  /* The profile's start (a DRIVEN session's file header, SESSION and
     STRING chunks): its length, stored with release after the bytes and
     their CRC32C (0: the process wrote it into the profile itself). */
  _Atomic uint32_t prologue_len;
  uint32_t prologue_crc;

  _Alignas (64) struct emlat_rf_ckpt_slot ckpt[2];

  /* The profile's absolute path (NUL-terminated, empty if too long): lets
     a later session remove a ring file whose profile is gone.  Never in a
     profile. */
  char profile[2048];
};
_Static_assert (sizeof (struct emlat_rf_header) <= EMLAT_RF_PAGE, "header fits a page");

/* One ring file, mapped. */
struct emlat_ringfile
{
  int fd;                   /* -1: none (anonymous memory, or closed) */
  void *map;                /* the whole file but the checkpoint areas */
  size_t map_bytes;
  uint64_t file_end;        /* where a relocated checkpoint area goes */
  char *path;               /* the file's path (malloc'd: a few bytes for a
                               session's start to touch, not a 4 KiB
                               buffer); 0 when none */
  struct emlat_rf_header *h;
};

/* A hash of the structure layouts this build writes into ring files and
   checkpoints. */
uint32_t emlat_rf_layout (void);

/* Where a ring file lives: in /dev/shm, named after the session
   ("/dev/shm/emlat-UUID.ring"), when it is a tmpfs with room; else beside
   the profile ("PROFILE-ring"). */
enum { EMLAT_RF_IN_SHM = 0, EMLAT_RF_BESIDE = 1 };
int emlat_rf_path (char *out, size_t cap, int where, const char *profile,
                   const uint8_t uuid[16]);
/* The longest ring file path taken, with its NUL (-ENAMETOOLONG beyond). */
#define EMLAT_RF_PATH_MAX 4096

/* Create and map the ring file for a new session: NRINGS rings of NSLOTS
   slots.  An existing file is replaced only when no process holds its lock
   (a stale one); else -EBUSY.  Returns 0 or a negative errno; on error
   nothing is left behind (RF holds no path either: so for emlat_rf_open). */
int emlat_rf_create (struct emlat_ringfile *rf, const char *profile, const uint8_t uuid[16],
                     uint32_t nrings, uint64_t nslots, uint64_t mono0, uint64_t realtime0,
                     uint32_t chunk_bytes, uint64_t rotate_bytes, uint32_t flags);

/* How a ring file is opened by a process that did not create it. */
enum emlat_rf_open_mode {
  EMLAT_RF_OPEN_RECOVER = 1, /* the recording process is gone: its flock
                                and the drainers' lock, without waiting
                                (-EBUSY when a process still records into
                                it, or a driver still drains it) */
  EMLAT_RF_OPEN_DRAIN = 2    /* the recording process lives and the file is
                                DRIVEN: the drainers' lock only (-EBUSY
                                when another drains it) */
};
/* Open and map (shared, writable) the ring file of session UUID, whose
   profile is at PROFILE (the first file of its set), as MODE says.
   Validates the static header.  Returns 0, -ENOENT when there is none,
   -EPROTO for a ring file of another build, -ESTALE for another
   session's, or a negative errno. */
int emlat_rf_open (struct emlat_ringfile *rf, const char *profile, const uint8_t uuid[16],
                   int mode);

/* Ring control block I and the slots of ring I. */
struct emlat_ring *emlat_rf_ring (const struct emlat_ringfile *rf, uint32_t i);
void *emlat_rf_slots (const struct emlat_ringfile *rf, uint32_t i);

/* Append a string to the log (caller serializes).  0 or -ENOSPC. */
int emlat_rf_string_add (struct emlat_ringfile *rf, const void *s, uint32_t len);
/* Walk the published strings: call FN (CTX, ID, BYTES, LEN) for ids FROM
   (1-based) on; stops at the first damaged entry.  Returns the number
   walked. */
uint64_t emlat_rf_strings (const struct emlat_ringfile *rf, uint64_t from,
                           void (*fn) (void *ctx, uint64_t id, const void *s, uint32_t len),
                           void *ctx);

struct iovec;
/* Keep the profile's start, the N pieces V (LEN bytes in all), in the
   prologue area for whoever drains or recovers the file to write into the
   profile.  0, -EFBIG when it does not fit, or a negative errno. */
int emlat_rf_prologue_write (struct emlat_ringfile *rf, const struct iovec *v, int n, size_t len);
/* The kept profile's start: 0 with *OUT (malloc'd) and *LEN, 0 with *LEN
   = 0 when there is none, -EINVAL when its length or CRC is wrong. */
int emlat_rf_prologue_read (const struct emlat_ringfile *rf, void **out, size_t *len);
/* The UUID of a ring file in /dev/shm that keeps the start of the profile
   PROFILE (the same file: device and inode), for a profile the driver or
   the process never wrote into.  0, -ENOENT, or a negative errno. */
int emlat_rf_find_by_profile (const char *profile, uint8_t uuid[16]);

/* Write a checkpoint body of LEN bytes, the N pieces V in order, into the
   inactive slot and publish it with sequence SEQ.  Returns 0 or a negative
   errno. */
int emlat_rf_ckpt_write (struct emlat_ringfile *rf, uint64_t seq, const struct iovec *v, int n,
                         size_t len);
/* The newest valid checkpoint, read into a new buffer (*BUF, *LEN; free
   it); -ENOENT when there is none. */
int emlat_rf_ckpt_read (struct emlat_ringfile *rf, void **buf, size_t *len, uint64_t *seq);

/* Remove this user's ring files in /dev/shm that no process holds and
   whose profile no longer exists (nobody can recover them any more).
   Costs a directory scan: readers do it (emlat_recover_sweep), never a
   recording process. */
void emlat_rf_sweep_orphans (void);

/* Call FN (PROFILE, CTX) for each of this user's ring files in /dev/shm
   whose static header is valid and names process PID as its recorder;
   PROFILE is the absolute path the header holds.  FN runs while this
   scan holds the file open read-only, without its lock (FN may lock,
   recover and remove it).  Returns how many were found, or a negative
   errno when the directory cannot be read. */
int emlat_rf_each_of_process (uint64_t pid, void (*fn) (const char *profile, void *ctx),
                              void *ctx);

/* The profile of process PID's DRIVEN session (F-105) that is recording
   and ready to be drained: the absolute path its ring file in /dev/shm
   holds, copied into PROFILE (CAP bytes), and the session's UUID in
   UUID.  0; -ENOENT when there is none, with *PENDING 1 and UUID that
   of a DRIVEN file of the process still starting (emlat_rf_wait_ready);
   or a negative errno when the directory cannot be read.  The first
   found wins.  *UNWRITTEN: how many ring files of this user had no whole
   header yet (any process's: one may be PID's, just created). */
int emlat_rf_driven_of_process (uint64_t pid, char *profile, size_t cap, uint8_t uuid[16],
                                int *pending, int *unwritten);

/* Wait up to TIMEOUT_MS until the session UUID, whose ring file is in
   /dev/shm, says it is ready to be drained (driver_ready, a shared futex
   word the session wakes).  0 when it is; -ETIMEDOUT (also when the
   session ended first, or the wait was interrupted); -ESTALE for a file
   of another session; or a negative errno. */
int emlat_rf_wait_ready (const uint8_t uuid[16], int timeout_ms);

/* Unmap and close (the lock is released); REMOVE also unlinks the file.
   The path is released: RF holds nothing afterwards. */
void emlat_rf_close (struct emlat_ringfile *rf, int remove);
/* Close the file (releasing the lock; REMOVE unlinks it) but keep the
   mapping, for a session that ends while straggling producers may still
   store into their rings (state.h: pools are never unmapped).  The path
   is kept (a later detach may remove the file): emlat_rf_free_path
   releases it. */
void emlat_rf_detach (struct emlat_ringfile *rf, int remove);
void emlat_rf_free_path (struct emlat_ringfile *rf);

#endif /* EMLAT_RINGFILE_H */
