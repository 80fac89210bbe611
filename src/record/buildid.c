/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * buildid.c -- build ids of loaded modules from their mapped PT_NOTE
 * segments (buildid.h).  Notes are bounds-checked against their segment:
 * the memory is the loader's, but a malformed note must not lead a read
 * past it.
 */
#include "record/buildid.h"

#include <elf.h>
#include <link.h>
#include <string.h>

/* The NT_GNU_BUILD_ID note of the module INFO into ID; its length or 0. */
static size_t
note_build_id (const struct dl_phdr_info *info, uint8_t *id)
{
  for (int i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
      if (ph->p_type != PT_NOTE)
        continue;
      const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
      size_t left = ph->p_memsz;
      while (left >= sizeof (ElfW (Nhdr)))
        {
          const ElfW (Nhdr) *nh = (const void *)p;
          size_t namesz = (nh->n_namesz + 3u) & ~3u, descsz = (nh->n_descsz + 3u) & ~3u;
          size_t total = sizeof *nh + namesz + descsz;
          if (namesz < nh->n_namesz || descsz < nh->n_descsz || total > left)
            break;
          if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4
              && memcmp (p + sizeof *nh, "GNU", 4) == 0 && nh->n_descsz > 0)
            {
              size_t n = nh->n_descsz < EMLAT_BUILD_ID_MAX ? nh->n_descsz : EMLAT_BUILD_ID_MAX;
              memcpy (id, p + sizeof *nh + namesz, n);
              return n;
            }
          p += total;
          left -= total;
        }
    }
  return 0;
}

struct find
{
  uintptr_t addr;
  int want_exe, found;
  struct emlat_module_id *m;
  uint8_t *id;
  size_t id_len;
};

static int
visit (struct dl_phdr_info *info, size_t size, void *ctx)
{
  struct find *f = ctx;
  (void)size;
  if (f->want_exe)
    {
      /* The first module the loader lists is the executable. */
      f->id_len = note_build_id (info, f->id);
      f->found = 1;
      return 1;
    }
  for (int i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
      if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
        continue;
      uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
      if (f->addr < lo || f->addr >= hi)
        continue;
      f->m->base = info->dlpi_addr;
      f->m->lo = lo;
      f->m->hi = hi;
      f->m->build_id_len = (uint32_t)note_build_id (info, f->m->build_id);
      f->m->path = info->dlpi_name ? info->dlpi_name : "";
      f->found = 1;
      return 1;
    }
  return 0;
}

size_t
emlat_exe_build_id (uint8_t *id)
{
  struct find f = { .want_exe = 1, .id = id };
  dl_iterate_phdr (visit, &f);
  return f.found ? f.id_len : 0;
}

int
emlat_module_of (const void *addr, struct emlat_module_id *m)
{
  struct find f = { .addr = (uintptr_t)addr, .m = m };
  memset (m, 0, sizeof *m);
  dl_iterate_phdr (visit, &f);
  return f.found ? 0 : -1;
}

void
emlat_hex (const uint8_t *id, size_t len, char *out)
{
  static const char hex[] = "0123456789abcdef";
  for (size_t i = 0; i < len; i++)
    {
      out[2 * i] = hex[id[i] >> 4];
      out[2 * i + 1] = hex[id[i] & 15];
    }
  out[2 * len] = 0;
}
