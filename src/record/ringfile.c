/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ringfile.c -- creating, mapping, locking and reading the ring file (see
 * ringfile.h and docs/FORMAT.md section 15).
 *
 * The file is sparse: ftruncate sets its size and only the pages a thread
 * touches take memory and disk.  Checkpoints are written with pwrite(2)
 * outside the mapping, so that an area can grow by moving to the end of the
 * file without remapping what producers use.
 */
#include "record/ringfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "common/crc32c.h"
#include "record/checkpoint.h"
#include "record/ring.h"
#include "record/ringrec.h"

uint32_t
emlat_rf_layout (void)
{
  /* Everything a recovering reader reinterprets: the ring control block,
     the record types it may find in the slots and the checkpoint's
     records. */
  const uint64_t sizes[] = {
    sizeof (struct emlat_ring),
    offsetof (struct emlat_ring, head),
    offsetof (struct emlat_ring, tail),
    offsetof (struct emlat_ring, state),
    offsetof (struct emlat_ring, drop_records),
    offsetof (struct emlat_ring, mask),
    offsetof (struct emlat_ring, hw_wakes),
    offsetof (struct emlat_ring, thread_id),
    sizeof (struct emlat_rf_header),
    EMLAT_CKPT_LAYOUT_WORDS,
    EMLAT_RR_TYPE_END,
    EMLAT_RR_REVISION,
  };
  uint64_t ck[EMLAT_CKPT_LAYOUT_COUNT];
  emlat_ckpt_layout (ck);
  return emlat_crc32c (emlat_crc32c (0, sizes, sizeof sizes), ck, sizeof ck);
}

#define SHM_DIR "/dev/shm"
#define TMPFS_MAGIC_NUMBER 0x01021994

static void
uuid_text (const uint8_t u[16], char out[33])
{
  static const char hex[] = "0123456789abcdef";
  for (int i = 0; i < 16; i++)
    {
      out[2 * i] = hex[u[i] >> 4];
      out[2 * i + 1] = hex[u[i] & 15];
    }
  out[32] = 0;
}

int
emlat_rf_path (char *out, size_t cap, int where, const char *profile, const uint8_t uuid[16])
{
  int n;
  if (where == EMLAT_RF_IN_SHM)
    {
      char u[33];
      uuid_text (uuid, u);
      n = snprintf (out, cap, "%s/emlat-%s.ring", SHM_DIR, u);
    }
  else
    n = snprintf (out, cap, "%s-ring", profile);
  return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

/* emlat_rf_path into a new heap string *OUT of the path's own length.
   0, -ENAMETOOLONG or -ENOMEM. */
static int
path_new (char **out, int where, const char *profile, const uint8_t uuid[16])
{
  *out = 0;
  size_t cap = where == EMLAT_RF_IN_SHM ? sizeof SHM_DIR "/emlat-.ring" + 32
                                        : strlen (profile) + sizeof "-ring";
  if (cap > EMLAT_RF_PATH_MAX)
    return -ENAMETOOLONG;
  char *p = malloc (cap);
  if (!p)
    return -ENOMEM;
  int rc = emlat_rf_path (p, cap, where, profile, uuid);
  if (rc != 0)
    {
      free (p);
      return rc;
    }
  *out = p;
  return 0;
}

/* Whether /dev/shm is a tmpfs with SIZE bytes to spare: pages of a memory
   file system are cheap to fault in (no journal, no writeback) and survive
   the process. */
static int
shm_usable (uint64_t size)
{
  struct statfs fs;
  /* statfs alone: statvfs would ask the kernel a second time. */
  if (statfs (SHM_DIR, &fs) != 0 || (unsigned long)fs.f_type != TMPFS_MAGIC_NUMBER
      || access (SHM_DIR, W_OK | X_OK) != 0)
    return 0;
  uint64_t unit = fs.f_frsize ? (uint64_t)fs.f_frsize : (uint64_t)fs.f_bsize;
  return (uint64_t)fs.f_bavail * unit >= size;
}

/* Whether a file of SIZE bytes stays under RLIMIT_FSIZE (beyond it,
   ftruncate and page faults raise SIGXFSZ or SIGBUS in the host). */
static int
size_allowed (uint64_t size)
{
  struct rlimit rl;
  return getrlimit (RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY
         || (uint64_t)rl.rlim_cur >= size;
}

static uint64_t
round_page (uint64_t n)
{
  return (n + EMLAT_RF_PAGE - 1) & ~(uint64_t)(EMLAT_RF_PAGE - 1);
}

static uint32_t
static_crc (const struct emlat_rf_header *h)
{
  return emlat_crc32c (0, h, offsetof (struct emlat_rf_header, static_crc));
}

/* The file's descriptor: a new file, or a stale one nobody holds. */
static int
open_for_session (const char *path)
{
  int fd = open (path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0 && errno == EEXIST)
    {
      /* Left by a session whose profile is gone (or being replaced): take
         it only if no process records into it. */
      fd = open (path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
      if (fd < 0)
        return -errno;
      struct stat st;
      if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
        {
          close (fd);
          return -EEXIST;
        }
      if (flock (fd, LOCK_EX | LOCK_NB) != 0)
        {
          close (fd);
          return -EBUSY;
        }
      if (ftruncate (fd, 0) != 0)
        {
          int e = errno;
          close (fd);
          return -e;
        }
      return fd;
    }
  if (fd < 0)
    return -errno;
  if (flock (fd, LOCK_EX | LOCK_NB) != 0)
    {
      int e = errno;
      close (fd);
      unlink (path);
      return -e;
    }
  return fd;
}

int
emlat_rf_create (struct emlat_ringfile *rf, const char *profile, const uint8_t uuid[16],
                 uint32_t nrings, uint64_t nslots, uint64_t mono0, uint64_t realtime0,
                 uint32_t chunk_bytes, uint64_t rotate_bytes, uint32_t flags)
{
  memset (rf, 0, sizeof *rf);
  rf->fd = -1;
  uint64_t rings_off = EMLAT_RF_PAGE;
  uint64_t prologue_off = round_page (rings_off + (uint64_t)nrings * sizeof (struct emlat_ring));
  uint64_t strings_off = prologue_off + EMLAT_RF_PROLOGUE_CAP;
  uint64_t slots_off = round_page (strings_off + EMLAT_RF_STRINGS_CAP);
  uint64_t slot_bytes = 32;
  uint64_t ckpt_base = round_page (slots_off + (uint64_t)nrings * nslots * slot_bytes);
  uint64_t size = ckpt_base + 2 * (uint64_t)EMLAT_RF_CKPT_INIT;
  if (!size_allowed (size))
    return -EFBIG;
  /* In /dev/shm when it can hold the rings (no fault ever needs disk
     space); else beside the profile, with the whole file allocated now,
     so that no producer's store can ever fault for want of space. */
  int where = shm_usable (size) ? EMLAT_RF_IN_SHM : EMLAT_RF_BESIDE;
  int rc = path_new (&rf->path, where, profile, uuid);
  if (rc != 0)
    return rc;
  int fd = open_for_session (rf->path);
  if (fd < 0)
    {
      emlat_rf_free_path (rf);
      return fd;
    }
  if (ftruncate (fd, (off_t)size) != 0)
    {
      rc = -errno;
      goto fail;
    }
  if (where == EMLAT_RF_BESIDE && fallocate (fd, 0, 0, (off_t)size) != 0)
    {
      rc = -errno;
      goto fail;
    }
  void *m = mmap (0, ckpt_base, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (m == MAP_FAILED)
    {
      rc = -errno;
      goto fail;
    }
  rf->fd = fd;
  rf->map = m;
  rf->map_bytes = ckpt_base;
  rf->file_end = size;
  struct emlat_rf_header *h = rf->h = m;
  memcpy (h->magic, EMLAT_RF_MAGIC, 8);
  h->version = EMLAT_RF_VERSION;
  h->layout = emlat_rf_layout ();
  memcpy (h->uuid, uuid, 16);
  h->pid = (uint64_t)getpid ();
  h->mono0 = mono0;
  h->realtime0 = realtime0;
  h->nrings = nrings;
  h->slot_bytes = (uint32_t)slot_bytes;
  h->nslots = nslots;
  h->rings_off = rings_off;
  h->ring_stride = sizeof (struct emlat_ring);
  h->prologue_off = prologue_off;
  h->prologue_cap = EMLAT_RF_PROLOGUE_CAP;
  h->strings_off = strings_off;
  h->strings_cap = EMLAT_RF_STRINGS_CAP;
  h->slots_off = slots_off;
  h->ckpt_base = ckpt_base;
  h->chunk_bytes = chunk_bytes;
  h->rotate_bytes = rotate_bytes;
  /* A driver finds a DRIVEN file in /dev/shm only (by its name, or by
     the process's id): beside the profile, the process drains itself. */
  h->flags = where == EMLAT_RF_IN_SHM ? flags : flags & ~EMLAT_RF_DRIVEN;
  h->static_crc = static_crc (h);
  char cwd[2048];
  if (profile[0] == '/')
    snprintf (h->profile, sizeof h->profile, "%s", profile);
  else if (getcwd (cwd, sizeof cwd)
           && (size_t)snprintf (h->profile, sizeof h->profile, "%s/%s", cwd, profile)
                >= sizeof h->profile)
    h->profile[0] = 0;
  /* Relaxed: nothing reads the live fields before the session is
     published (session.c, release store of the generation). */
  atomic_store_explicit (&h->state, EMLAT_RF_RECORDING, memory_order_relaxed);
  for (int k = 0; k < 2; k++)
    {
      h->ckpt[k].off = ckpt_base + (uint64_t)k * EMLAT_RF_CKPT_INIT;
      h->ckpt[k].cap = EMLAT_RF_CKPT_INIT;
    }
  return 0;
fail:
  close (fd);
  unlink (rf->path);
  emlat_rf_free_path (rf);
  rf->fd = -1;
  return rc;
}

static int
header_ok (const struct emlat_rf_header *h, uint64_t file_size)
{
  if (memcmp (h->magic, EMLAT_RF_MAGIC, 8) != 0 || h->version != EMLAT_RF_VERSION
      || h->static_crc != static_crc (h))
    return -EINVAL;
  if (h->layout != emlat_rf_layout ())
    return -EPROTO; /* another build's layout: not interpreted */
  if (h->slot_bytes != 32 || h->nrings == 0 || h->nrings > 4096 || h->nslots < 16
      || h->nslots > (1u << 24) || (h->nslots & (h->nslots - 1))
      || h->ring_stride != sizeof (struct emlat_ring) || h->rings_off != EMLAT_RF_PAGE)
    return -EINVAL;
  uint64_t prologue_off = round_page (h->rings_off + (uint64_t)h->nrings * h->ring_stride);
  uint64_t strings_off = prologue_off + EMLAT_RF_PROLOGUE_CAP;
  uint64_t slots_off = round_page (strings_off + EMLAT_RF_STRINGS_CAP);
  uint64_t ckpt_base = round_page (slots_off + (uint64_t)h->nrings * h->nslots * 32);
  if (h->prologue_off != prologue_off || h->prologue_cap != EMLAT_RF_PROLOGUE_CAP
      || h->strings_off != strings_off || h->strings_cap != EMLAT_RF_STRINGS_CAP
      || h->slots_off != slots_off || h->ckpt_base != ckpt_base || file_size < ckpt_base)
    return -EINVAL;
  return 0;
}

/* The drainers' lock (ringfile.h): a write lock on byte 0 owned by the
   open file description, so that it is released when the description is
   (the last descriptor closed and the mapping gone) or explicitly. */
static int
drainer_lock (int fd, short type)
{
  struct flock l = { .l_type = type, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1 };
  if (fcntl (fd, F_OFD_SETLK, &l) == 0)
    return 0;
  return errno == EAGAIN || errno == EACCES ? -EBUSY : -errno;
}

/* Whether a drainer holds the file (a test: the lock is not taken). */
static int
drainer_lock_held (int fd)
{
  struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1 };
  return fcntl (fd, F_OFD_GETLK, &l) == 0 && l.l_type != F_UNLCK;
}

/* emlat_rf_open on the file open as FD: checked, locked and mapped into
   RF.  0, or a negative errno with FD closed. */
static int
open_mapped (struct emlat_ringfile *rf, int fd, const uint8_t uuid[16], int mode)
{
  int rc;
  struct stat st;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      close (fd);
      return -EINVAL;
    }
  if (mode == EMLAT_RF_OPEN_RECOVER && flock (fd, LOCK_EX | LOCK_NB) != 0)
    {
      rc = errno == EWOULDBLOCK ? -EBUSY : -errno;
      close (fd);
      return rc;
    }
  rc = drainer_lock (fd, F_WRLCK);
  if (rc != 0)
    {
      close (fd);
      return rc;
    }
  struct emlat_rf_header hdr;
  if ((uint64_t)st.st_size < EMLAT_RF_PAGE || pread (fd, &hdr, sizeof hdr, 0) != (ssize_t)sizeof hdr)
    {
      close (fd);
      return -EINVAL;
    }
  rc = header_ok (&hdr, (uint64_t)st.st_size);
  if (rc == 0 && memcmp (hdr.uuid, uuid, 16) != 0)
    rc = -ESTALE; /* another session's (the name is the profile's) */
  if (rc == 0 && mode == EMLAT_RF_OPEN_DRAIN && !(hdr.flags & EMLAT_RF_DRIVEN))
    rc = -EPERM; /* its process drains it itself */
  if (rc != 0)
    {
      close (fd);
      return rc;
    }
  void *m = mmap (0, hdr.ckpt_base, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (m == MAP_FAILED)
    {
      rc = -errno;
      close (fd);
      return rc;
    }
  rf->fd = fd;
  rf->map = m;
  rf->map_bytes = hdr.ckpt_base;
  rf->file_end = (uint64_t)st.st_size;
  rf->h = m;
  return 0;
}

int
emlat_rf_open (struct emlat_ringfile *rf, const char *profile, const uint8_t uuid[16],
               int mode)
{
  if (mode != EMLAT_RF_OPEN_RECOVER && mode != EMLAT_RF_OPEN_DRAIN)
    return -EINVAL;
  memset (rf, 0, sizeof *rf);
  rf->fd = -1;
  int fd = -1, rc = -ENOENT;
  char *path = 0;
  for (int where = EMLAT_RF_IN_SHM; where <= EMLAT_RF_BESIDE && fd < 0; where++)
    {
      free (path);
      rc = path_new (&path, where, profile, uuid);
      if (rc != 0)
        return rc;
      fd = open (path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
      if (fd < 0)
        rc = -errno;
    }
  if (fd < 0)
    {
      free (path);
      return rc;
    }
  rc = open_mapped (rf, fd, uuid, mode);
  if (rc != 0)
    {
      free (path);
      return rc;
    }
  rf->path = path;
  return 0;
}

struct emlat_ring *
emlat_rf_ring (const struct emlat_ringfile *rf, uint32_t i)
{
  return (struct emlat_ring *)((char *)rf->map + rf->h->rings_off + (uint64_t)i * rf->h->ring_stride);
}

void *
emlat_rf_slots (const struct emlat_ringfile *rf, uint32_t i)
{
  return (char *)rf->map + rf->h->slots_off + (uint64_t)i * rf->h->nslots * rf->h->slot_bytes;
}

int
emlat_rf_string_add (struct emlat_ringfile *rf, const void *s, uint32_t len)
{
  struct emlat_rf_header *h = rf->h;
  /* Relaxed: only the caller (under the session lock) stores these. */
  uint64_t used = atomic_load_explicit (&h->strings_bytes, memory_order_relaxed);
  uint64_t n = atomic_load_explicit (&h->strings_count, memory_order_relaxed);
  if (used + 4 + len > h->strings_cap)
    return -ENOSPC;
  /* pwrite, not a store into the mapping: a file system without space
     answers ENOSPC instead of a SIGBUS. */
  struct iovec iov[2] = { { &len, 4 }, { (void *)s, len } };
  ssize_t w = pwritev (rf->fd, iov, len ? 2 : 1, (off_t)(h->strings_off + used));
  if (w != (ssize_t)(4 + len))
    return w < 0 ? -errno : -ENOSPC;
  atomic_store_explicit (&h->strings_bytes, used + 4 + len, memory_order_relaxed);
  /* Release: the bytes above are in place before the count says so. */
  atomic_store_explicit (&h->strings_count, n + 1, memory_order_release);
  return 0;
}

uint64_t
emlat_rf_strings (const struct emlat_ringfile *rf, uint64_t from,
                  void (*fn) (void *ctx, uint64_t id, const void *s, uint32_t len), void *ctx)
{
  const struct emlat_rf_header *h = rf->h;
  /* Acquire: pairs with the release store of the count. */
  uint64_t n = atomic_load_explicit (&((struct emlat_rf_header *)h)->strings_count,
                                     memory_order_acquire);
  uint64_t at = 0, walked = 0;
  const char *base = (const char *)rf->map + h->strings_off;
  for (uint64_t id = 1; id <= n; id++)
    {
      uint32_t len;
      if (at + 4 > h->strings_cap)
        break;
      memcpy (&len, base + at, 4);
      if (len > 4096 || at + 4 + len > h->strings_cap)
        break; /* damaged: stop, never read beyond the log */
      if (id >= from)
        {
          fn (ctx, id, base + at + 4, len);
          walked++;
        }
      at += 4 + len;
    }
  return walked;
}

int
emlat_rf_prologue_write (struct emlat_ringfile *rf, const struct iovec *v, int n, size_t len)
{
  struct emlat_rf_header *h = rf->h;
  if (len > h->prologue_cap || n > 64)
    return -EFBIG;
  uint32_t crc = 0;
  for (int i = 0; i < n; i++)
    crc = emlat_crc32c (crc, v[i].iov_base, v[i].iov_len);
  /* pwrite, not stores into the mapping: a file system without space
     answers ENOSPC instead of a SIGBUS.  A few KiB into tmpfs: one call
     writes it all, or the area is not used. */
  ssize_t w = pwritev (rf->fd, v, n, (off_t)h->prologue_off);
  if (w != (ssize_t)len)
    return w < 0 ? -errno : -ENOSPC;
  h->prologue_crc = crc;
  /* Release: the bytes and their CRC are in place before the length says
     the area is kept (loaded with acquire in emlat_rf_prologue_read). */
  atomic_store_explicit (&h->prologue_len, (uint32_t)len, memory_order_release);
  return 0;
}

int
emlat_rf_prologue_read (const struct emlat_ringfile *rf, void **out, size_t *len)
{
  struct emlat_rf_header *h = rf->h;
  *out = 0;
  *len = 0;
  /* Acquire: pairs with the release in emlat_rf_prologue_write. */
  uint32_t n = atomic_load_explicit (&h->prologue_len, memory_order_acquire);
  if (n == 0)
    return 0;
  if (n > h->prologue_cap || h->prologue_off + n > rf->file_end)
    return -EINVAL;
  void *buf = malloc (n);
  if (!buf)
    return -ENOMEM;
  if (pread (rf->fd, buf, n, (off_t)h->prologue_off) != (ssize_t)n
      || emlat_crc32c (0, buf, n) != h->prologue_crc)
    {
      free (buf);
      return -EINVAL;
    }
  *out = buf;
  *len = n;
  return 0;
}

int
emlat_rf_ckpt_write (struct emlat_ringfile *rf, uint64_t seq, const struct iovec *v, int n,
                     size_t len)
{
  struct emlat_rf_header *h = rf->h;
  /* The slot not holding the newest checkpoint.  Relaxed loads: only the
     writer thread stores the slots. */
  uint64_t s0 = atomic_load_explicit (&h->ckpt[0].seq, memory_order_relaxed);
  uint64_t s1 = atomic_load_explicit (&h->ckpt[1].seq, memory_order_relaxed);
  struct emlat_rf_ckpt_slot *slot = &h->ckpt[s0 <= s1 ? 0 : 1];
  if (len > slot->cap)
    {
      /* Move this area to the end of the file, twice as large as needed. */
      uint64_t cap = round_page ((uint64_t)len * 2);
      uint64_t off = rf->file_end;
      if (ftruncate (rf->fd, (off_t)(off + cap)) != 0)
        return -errno;
      rf->file_end = off + cap;
      slot->off = off;
      slot->cap = cap;
    }
  /* The pieces in order, with as few calls as the kernel allows; the CRC
     of the body is that of the pieces chained. */
  uint32_t crc = 0;
  size_t done = 0;
  for (int i = 0; i < n; i++)
    crc = emlat_crc32c (crc, v[i].iov_base, v[i].iov_len);
  int k = 0;
  size_t skip = 0; /* bytes of v[k] already written */
  while (done < len && k < n)
    {
      struct iovec part[64];
      int np = 0;
      for (int i = k; i < n && np < 64; i++, np++)
        {
          part[np].iov_base = (char *)v[i].iov_base + (i == k ? skip : 0);
          part[np].iov_len = v[i].iov_len - (i == k ? skip : 0);
        }
      ssize_t w = pwritev (rf->fd, part, np, (off_t)(slot->off + done));
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        return w < 0 ? -errno : -EIO;
      done += (size_t)w;
      size_t left = (size_t)w;
      while (k < n && left >= v[k].iov_len - skip)
        {
          left -= v[k].iov_len - skip;
          skip = 0;
          k++;
        }
      skip += left;
    }
  if (done != len)
    return -EIO;
  slot->len = len;
  slot->crc = crc;
  /* Release: the body (written above) and off/len/crc are in place before
     the sequence number makes this slot the newest. */
  atomic_store_explicit (&slot->seq, seq, memory_order_release);
  return 0;
}

int
emlat_rf_ckpt_read (struct emlat_ringfile *rf, void **out, size_t *out_len, uint64_t *out_seq)
{
  struct emlat_rf_header *h = rf->h;
  int order[2] = { 0, 1 };
  /* Acquire: pairs with the release of seq in emlat_rf_ckpt_write. */
  uint64_t s0 = atomic_load_explicit (&h->ckpt[0].seq, memory_order_acquire);
  uint64_t s1 = atomic_load_explicit (&h->ckpt[1].seq, memory_order_acquire);
  if (s1 > s0)
    {
      order[0] = 1;
      order[1] = 0;
    }
  for (int k = 0; k < 2; k++)
    {
      struct emlat_rf_ckpt_slot *slot = &h->ckpt[order[k]];
      uint64_t seq = k == 0 ? (s0 > s1 ? s0 : s1) : (s0 > s1 ? s1 : s0);
      if (seq == 0 || slot->len == 0 || slot->len > slot->cap || slot->len > (1ull << 31)
          || slot->off + slot->len > rf->file_end)
        continue;
      void *buf = malloc (slot->len);
      if (!buf)
        return -ENOMEM;
      if (pread (rf->fd, buf, slot->len, (off_t)slot->off) == (ssize_t)slot->len
          && emlat_crc32c (0, buf, slot->len) == slot->crc)
        {
          *out = buf;
          *out_len = slot->len;
          *out_seq = seq;
          return 0;
        }
      free (buf);
    }
  return -ENOENT;
}

/* Call FN (PATH, FD, HEADER, CTX) for each of this user's regular files
   in /dev/shm named like a ring file whose header starts with our magic;
   FD is open read-only (no lock taken) and closed after FN.  Counts in
   *UNWRITTEN (when not null) this user's files named so whose header is
   not there yet (shorter, or without the magic: a session creating its
   file).  Returns -errno when the directory cannot be read, else 0. */
static int
each_shm_ring_counting (void (*fn) (const char *path, int fd, struct emlat_rf_header *h,
                                    void *ctx),
                        void *ctx, int *unwritten)
{
  DIR *d = opendir (SHM_DIR);
  if (!d)
    return -errno;
  struct dirent *e;
  char path[512];
  while ((e = readdir (d)))
    {
      size_t n = strlen (e->d_name);
      if (strncmp (e->d_name, "emlat-", 6) != 0 || n < 11 || strcmp (e->d_name + n - 5, ".ring") != 0
          || (size_t)snprintf (path, sizeof path, "%s/%s", SHM_DIR, e->d_name) >= sizeof path)
        continue;
      int fd = open (path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
      if (fd < 0)
        continue;
      struct stat st;
      struct emlat_rf_header h;
      if (fstat (fd, &st) == 0 && S_ISREG (st.st_mode) && st.st_uid == geteuid ())
        {
          if (pread (fd, &h, sizeof h, 0) == (ssize_t)sizeof h
              && memcmp (h.magic, EMLAT_RF_MAGIC, 8) == 0)
            {
              h.profile[sizeof h.profile - 1] = 0;
              fn (path, fd, &h, ctx);
            }
          else if (unwritten)
            (*unwritten)++;
        }
      close (fd);
    }
  closedir (d);
  return 0;
}

static int
each_shm_ring (void (*fn) (const char *path, int fd, struct emlat_rf_header *h, void *ctx),
               void *ctx)
{
  return each_shm_ring_counting (fn, ctx, 0);
}

/* Unlocked (no process records) and its profile gone: remove it. */
static void
sweep_one (const char *path, int fd, struct emlat_rf_header *h, void *ctx)
{
  (void)ctx;
  if (flock (fd, LOCK_EX | LOCK_NB) == 0 && !drainer_lock_held (fd) && h->profile[0] == '/'
      && access (h->profile, F_OK) != 0 && errno == ENOENT)
    unlink (path);
}

void
emlat_rf_sweep_orphans (void)
{
  each_shm_ring (sweep_one, 0);
}

/* emlat_rf_each_of_process: the process asked for, the caller's function,
   the count. */
struct of_process
{
  uint64_t pid;
  void (*fn) (const char *profile, void *ctx);
  void *ctx;
  int found;
};

static void
of_process_one (const char *path, int fd, struct emlat_rf_header *h, void *ctx)
{
  (void)path;
  (void)fd;
  struct of_process *op = ctx;
  if (h->static_crc == static_crc (h) && h->pid == op->pid && h->profile[0] == '/')
    {
      op->found++;
      op->fn (h->profile, op->ctx);
    }
}

int
emlat_rf_each_of_process (uint64_t pid, void (*fn) (const char *profile, void *ctx), void *ctx)
{
  struct of_process op = { pid, fn, ctx, 0 };
  int rc = each_shm_ring (of_process_one, &op);
  return rc < 0 ? rc : op.found;
}

/* emlat_rf_driven_of_process: the search and what it found. */
struct driven_search
{
  uint64_t pid;
  char *out;
  size_t cap;
  uint8_t *uuid;
  int found, pending;
  int unwritten;            /* files whose header is not all there yet */
  uint8_t pending_uuid[16]; /* of the first file still starting */
};

static void
driven_one (const char *path, int fd, struct emlat_rf_header *h, void *ctx)
{
  (void)path;
  struct driven_search *ds = ctx;
  if (h->static_crc != static_crc (h))
    {
      ds->unwritten++; /* the magic is there, the rest not yet */
      return;
    }
  if (ds->found || h->pid != ds->pid
      || !(h->flags & EMLAT_RF_DRIVEN) || h->layout != emlat_rf_layout ())
    return;
  /* Relaxed: a copy, read again below once the session said it is ready. */
  if (atomic_load_explicit (&h->state, memory_order_relaxed) != EMLAT_RF_RECORDING)
    return;
  if (!atomic_load_explicit (&h->driver_ready, memory_order_relaxed))
    {
      if (!ds->pending)
        memcpy (ds->pending_uuid, h->uuid, 16);
      ds->pending = 1; /* its session is starting */
      return;
    }
  /* The session stored driver_ready (release) after everything else in
     its header, the profile's path included: a copy taken after one that
     saw it holds the whole path. */
  struct emlat_rf_header again;
  if (pread (fd, &again, sizeof again, 0) != (ssize_t)sizeof again)
    return;
  again.profile[sizeof again.profile - 1] = 0;
  if (again.profile[0] != '/' || strlen (again.profile) >= ds->cap)
    return;
  strcpy (ds->out, again.profile);
  memcpy (ds->uuid, again.uuid, 16);
  ds->found = 1;
}

int
emlat_rf_driven_of_process (uint64_t pid, char *profile, size_t cap, uint8_t uuid[16],
                            int *pending, int *unwritten)
{
  struct driven_search ds = { pid, profile, cap, uuid, 0, 0, 0, { 0 } };
  *pending = 0;
  *unwritten = 0;
  int rc = each_shm_ring_counting (driven_one, &ds, &ds.unwritten);
  if (rc < 0)
    return rc;
  *pending = ds.pending;
  *unwritten = ds.unwritten;
  if (!ds.found && ds.pending)
    memcpy (uuid, ds.pending_uuid, 16);
  return ds.found ? 0 : -ENOENT;
}

int
emlat_rf_wait_ready (const uint8_t uuid[16], int timeout_ms)
{
  char path[128];
  int rc = emlat_rf_path (path, sizeof path, EMLAT_RF_IN_SHM, "", uuid);
  if (rc != 0)
    return rc;
  int fd = open (path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return -errno;
  struct stat st;
  void *m = MAP_FAILED;
  if (fstat (fd, &st) == 0 && S_ISREG (st.st_mode) && (uint64_t)st.st_size >= EMLAT_RF_PAGE)
    m = mmap (0, EMLAT_RF_PAGE, PROT_READ, MAP_SHARED, fd, 0);
  close (fd);
  if (m == MAP_FAILED)
    return -EINVAL;
  struct emlat_rf_header *h = m;
  rc = -ESTALE;
  if (memcmp (h->uuid, uuid, 16) == 0)
    {
      /* Acquire: pairs with the session's release store of the word
         (session.c, call_driver), which also wakes this wait: a shared
         futex word of the file, whichever mapping waits on it. */
      struct timespec ts = { timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L };
      if (!atomic_load_explicit (&h->driver_ready, memory_order_acquire)
          && atomic_load_explicit (&h->state, memory_order_relaxed) == EMLAT_RF_RECORDING)
        syscall (SYS_futex, &h->driver_ready, FUTEX_WAIT, 0, &ts, 0, 0);
      rc = atomic_load_explicit (&h->driver_ready, memory_order_acquire) ? 0 : -ETIMEDOUT;
    }
  munmap (m, EMLAT_RF_PAGE);
  return rc;
}

/* emlat_rf_find_by_profile: the profile's file and what was found. */
struct by_profile
{
  dev_t dev;
  ino_t ino;
  uint8_t *uuid;
  int found;
};

static void
by_profile_one (const char *path, int fd, struct emlat_rf_header *h, void *ctx)
{
  (void)path;
  (void)fd;
  struct by_profile *bp = ctx;
  struct stat st;
  /* Relaxed: a copy of the header; whoever recovers the file reads the
     length again under the file's locks. */
  if (bp->found || h->static_crc != static_crc (h) || !(h->flags & EMLAT_RF_DRIVEN)
      || h->layout != emlat_rf_layout ()
      || atomic_load_explicit (&h->prologue_len, memory_order_relaxed) == 0
      || h->profile[0] != '/' || stat (h->profile, &st) != 0 || st.st_dev != bp->dev
      || st.st_ino != bp->ino)
    return;
  memcpy (bp->uuid, h->uuid, 16);
  bp->found = 1;
}

int
emlat_rf_find_by_profile (const char *profile, uint8_t uuid[16])
{
  struct stat st;
  if (stat (profile, &st) != 0)
    return -errno;
  struct by_profile bp = { st.st_dev, st.st_ino, uuid, 0 };
  int rc = each_shm_ring (by_profile_one, &bp);
  if (rc < 0)
    return rc;
  return bp.found ? 0 : -ENOENT;
}

void
emlat_rf_free_path (struct emlat_ringfile *rf)
{
  free (rf->path);
  rf->path = 0;
}

void
emlat_rf_close (struct emlat_ringfile *rf, int remove)
{
  if (rf->map)
    munmap (rf->map, rf->map_bytes);
  if (remove && rf->path)
    unlink (rf->path);
  emlat_rf_free_path (rf);
  /* The drainers' lock goes with the open file description: the mapping
     was its last other reference. */
  if (rf->fd >= 0)
    close (rf->fd);
  rf->map = 0;
  rf->h = 0;
  rf->fd = -1;
}

void
emlat_rf_detach (struct emlat_ringfile *rf, int remove)
{
  /* The mapping stays (state.h: a straggling producer may still store into
     its ring); closing the descriptor releases the lock, and an unlinked
     file's pages are freed when the process ends. */
  if (remove && rf->path)
    unlink (rf->path);
  if (rf->fd >= 0)
    {
      /* The mapping keeps the open file description, and with it the
         lock, alive: release the lock itself, so that a reader (even in
         this process) may recover the file now. */
      flock (rf->fd, LOCK_UN);
      close (rf->fd);
    }
  rf->fd = -1;
}
