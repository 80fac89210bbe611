/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * report_syms.c -- symbolization of traced functions with libdw
 * (report_syms.h).
 */
#include "render/report_syms.h"

#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUILD_ID_HEX 80

struct candidate
{
  char *path;
  char hex[BUILD_ID_HEX + 1];
};

struct module
{
  uint64_t id;        /* the profile's string id */
  char base[96];      /* BASENAME, printable */
  char hex[BUILD_ID_HEX + 1];
  Dwfl *dwfl;         /* NULL: no file found */
  Dwfl_Module *mod;
};

struct entry
{
  uint64_t module, offset;
  char *name;         /* NULL: empty slot */
};

struct report_syms
{
  const struct emlat_profile *p;
  struct candidate *cand;
  size_t ncand;
  struct module *mods;
  size_t nmods, capmods;
  struct entry *tab;  /* open addressing, power of two */
  size_t ntab, captab;
};

/* The GNU build id of the ELF file PATH in lower-case hex, or "". */
static void
file_build_id (const char *path, char *hex)
{
  hex[0] = 0;
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  Elf *e = elf_begin (fd, ELF_C_READ_MMAP, NULL);
  if (e)
    {
      const void *id;
      ssize_t n = dwelf_elf_gnu_build_id (e, &id);
      if (n > 0 && n * 2 <= BUILD_ID_HEX)
        for (ssize_t i = 0; i < n; i++)
          sprintf (hex + 2 * i, "%02x", ((const unsigned char *)id)[i]);
      elf_end (e);
    }
  close (fd);
}

struct report_syms *
report_syms_new (const struct emlat_profile *p, const char *const *files, size_t n)
{
  elf_version (EV_CURRENT);
  struct report_syms *s = calloc (1, sizeof *s);
  if (!s)
    return NULL;
  s->p = p;
  s->cand = calloc (n ? n : 1, sizeof *s->cand);
  if (!s->cand)
    {
      free (s);
      return NULL;
    }
  for (size_t i = 0; i < n; i++)
    {
      s->cand[s->ncand].path = strdup (files[i]);
      if (!s->cand[s->ncand].path)
        continue;
      file_build_id (files[i], s->cand[s->ncand].hex);
      s->ncand++;
    }
  return s;
}

static const Dwfl_Callbacks offline_callbacks = {
  .find_elf = dwfl_build_id_find_elf,
  .find_debuginfo = dwfl_standard_find_debuginfo,
  .section_address = dwfl_offline_section_address,
};

/* Open module M's file: a candidate with its build id, else the debug
   file of that build id. */
static void
module_open (struct report_syms *s, struct module *m)
{
  const char *path = NULL;
  char debug[256];
  if (m->hex[0] && strcmp (m->hex, "-") != 0)
    {
      for (size_t i = 0; i < s->ncand && !path; i++)
        if (strcmp (s->cand[i].hex, m->hex) == 0)
          path = s->cand[i].path;
      if (!path && strlen (m->hex) > 2)
        {
          snprintf (debug, sizeof debug, "/usr/lib/debug/.build-id/%.2s/%s.debug", m->hex,
                    m->hex + 2);
          if (access (debug, R_OK) == 0)
            path = debug;
        }
    }
  if (!path)
    return;
  m->dwfl = dwfl_begin (&offline_callbacks);
  if (!m->dwfl)
    return;
  dwfl_report_begin (m->dwfl);
  /* Base 0: an address of the module is its ELF virtual address, which is
     what the recorder stored (the address minus the load bias). */
  m->mod = dwfl_report_elf (m->dwfl, m->base, path, -1, 0, false);
  dwfl_report_end (m->dwfl, NULL, NULL);
  if (!m->mod)
    {
      dwfl_end (m->dwfl);
      m->dwfl = NULL;
    }
}

static struct module *
module_of (struct report_syms *s, uint64_t id)
{
  for (size_t i = 0; i < s->nmods; i++)
    if (s->mods[i].id == id)
      return &s->mods[i];
  if (s->nmods == s->capmods)
    {
      size_t c = s->capmods ? 2 * s->capmods : 8;
      struct module *v = realloc (s->mods, c * sizeof *v);
      if (!v)
        return NULL;
      s->mods = v;
      s->capmods = c;
    }
  struct module *m = &s->mods[s->nmods++];
  memset (m, 0, sizeof *m);
  m->id = id;
  size_t len;
  const uint8_t *b = emlat_profile_string (s->p, id, &len);
  if (!b)
    snprintf (m->base, sizeof m->base, "#%" PRIu64, id);
  else
    {
      /* "BASENAME BUILD-ID": the last space separates them. */
      size_t sp = len;
      while (sp > 0 && b[sp - 1] != ' ')
        sp--;
      size_t bl = sp ? sp - 1 : len;
      size_t k = 0;
      for (size_t i = 0; i < bl && k < sizeof m->base - 1; i++)
        m->base[k++] = b[i] >= 0x20 && b[i] < 0x7f ? (char)b[i] : '?';
      m->base[k] = 0;
      k = 0;
      for (size_t i = sp; sp && i < len && k < BUILD_ID_HEX; i++)
        if ((b[i] >= '0' && b[i] <= '9') || (b[i] >= 'a' && b[i] <= 'f') || b[i] == '-')
          m->hex[k++] = (char)b[i];
      m->hex[k] = 0;
    }
  module_open (s, m);
  return m;
}

static uint64_t
hash2 (uint64_t a, uint64_t b)
{
  uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull);
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ull;
  return h ^ (h >> 32);
}

static int
tab_grow (struct report_syms *s)
{
  size_t c = s->captab ? 2 * s->captab : 256;
  struct entry *t = calloc (c, sizeof *t);
  if (!t)
    return -1;
  for (size_t i = 0; i < s->captab; i++)
    if (s->tab[i].name)
      {
        size_t j = hash2 (s->tab[i].module, s->tab[i].offset) & (c - 1);
        while (t[j].name)
          j = (j + 1) & (c - 1);
        t[j] = s->tab[i];
      }
  free (s->tab);
  s->tab = t;
  s->captab = c;
  return 0;
}

/* The name of (M, OFFSET) as a new string. */
static char *
lookup (struct report_syms *s, uint64_t module, uint64_t offset)
{
  struct module *m = module_of (s, module);
  char buf[512];
  if (m && m->mod)
    {
      GElf_Sym sym;
      GElf_Off off = 0;
      const char *name = dwfl_module_addrinfo (m->mod, (Dwarf_Addr)offset, &off, &sym, NULL,
                                               NULL, NULL);
      /* The function itself, not the symbol nearest before it. */
      if (name && off == 0)
        {
          snprintf (buf, sizeof buf, "%s", name);
          for (char *c = buf; *c; c++)
            if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
              *c = '?';
          return strdup (buf);
        }
    }
  snprintf (buf, sizeof buf, "%s+0x%" PRIx64, m ? m->base : "?", offset);
  return strdup (buf);
}

const char *
report_syms_name (struct report_syms *s, uint64_t module, uint64_t offset)
{
  if (!s)
    return "?";
  if ((s->ntab + 1) * 2 > s->captab && tab_grow (s) != 0)
    return "?";
  size_t j = hash2 (module, offset) & (s->captab - 1);
  while (s->tab[j].name)
    {
      if (s->tab[j].module == module && s->tab[j].offset == offset)
        return s->tab[j].name;
      j = (j + 1) & (s->captab - 1);
    }
  char *name = lookup (s, module, offset);
  if (!name)
    return "?";
  s->tab[j] = (struct entry){ module, offset, name };
  s->ntab++;
  return name;
}

void
report_syms_free (struct report_syms *s)
{
  if (!s)
    return;
  for (size_t i = 0; i < s->captab; i++)
    free (s->tab[i].name);
  free (s->tab);
  for (size_t i = 0; i < s->nmods; i++)
    if (s->mods[i].dwfl)
      dwfl_end (s->mods[i].dwfl);
  free (s->mods);
  for (size_t i = 0; i < s->ncand; i++)
    free (s->cand[i].path);
  free (s->cand);
  free (s);
}
