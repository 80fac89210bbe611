/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report_resources.c -- the process's CPU and memory over the run, from the
 * writer's resource samples (emlat_report.h "resources").
 *
 * Invariant: a quantity is computed only from samples that carry its
 * field; totals over the run are last minus first of those, and are
 * absent when the counter went backwards (not the same process's, or not
 * a counter).
 */
#include "emlat/emlat_report.h"

#include <string.h>

EMLAT_API void
emlat_report_resources_of (const struct emlat_profile *p, struct emlat_report_resources *r)
{
  memset (r, 0, sizeof *r);
  size_t n;
  const struct emlat_rd_sample *s = emlat_profile_samples (p, &n);
  r->n_samples = n;
  if (!n)
    return;
  r->t_first = s[0].t;
  r->t_last = s[n - 1].t;
  const uint32_t cpu = 1u << EMLAT_RES_CPU_USER_NS | 1u << EMLAT_RES_CPU_SYS_NS;
  const uint32_t csw = 1u << EMLAT_RES_VOL_CSW | 1u << EMLAT_RES_INVOL_CSW;
  long first_cpu = -1, last_cpu = -1, first_csw = -1, last_csw = -1;
  for (size_t i = 0; i < n; i++)
    {
      const struct emlat_rd_sample *x = &s[i];
      if (x->mask & (1u << EMLAT_RES_RSS_BYTES))
        {
          uint64_t v = x->v[EMLAT_RES_RSS_BYTES];
          if (!r->has_rss)
            r->rss_first = r->rss_min = r->rss_max = v;
          r->has_rss = 1;
          if (v < r->rss_min)
            r->rss_min = v;
          if (v > r->rss_max)
            r->rss_max = v;
          r->rss_last = v;
        }
      if ((x->mask & cpu) == cpu)
        {
          if (first_cpu < 0)
            first_cpu = (long)i;
          last_cpu = (long)i;
        }
      if ((x->mask & csw) == csw)
        {
          if (first_csw < 0)
            first_csw = (long)i;
          last_csw = (long)i;
        }
      if (x->mask & (1u << EMLAT_RES_CPU_SHARE_PPM))
        {
          double v = (double)x->v[EMLAT_RES_CPU_SHARE_PPM] / 1e6;
          if (!r->has_share_max || v > r->cpu_share_max)
            r->cpu_share_max = v;
          r->has_share_max = 1;
        }
    }
  if (first_cpu >= 0 && last_cpu > first_cpu)
    {
      const struct emlat_rd_sample *a = &s[first_cpu], *b = &s[last_cpu];
      if (b->v[EMLAT_RES_CPU_USER_NS] >= a->v[EMLAT_RES_CPU_USER_NS]
          && b->v[EMLAT_RES_CPU_SYS_NS] >= a->v[EMLAT_RES_CPU_SYS_NS] && b->t > a->t)
        {
          r->has_cpu = 1;
          r->cpu_user_ns = b->v[EMLAT_RES_CPU_USER_NS] - a->v[EMLAT_RES_CPU_USER_NS];
          r->cpu_sys_ns = b->v[EMLAT_RES_CPU_SYS_NS] - a->v[EMLAT_RES_CPU_SYS_NS];
          r->cpu_wall_ns = b->t - a->t;
          r->cpu_share_mean = (double)(r->cpu_user_ns + r->cpu_sys_ns) / (double)r->cpu_wall_ns;
        }
    }
  if (first_csw >= 0 && last_csw > first_csw)
    {
      const struct emlat_rd_sample *a = &s[first_csw], *b = &s[last_csw];
      if (b->v[EMLAT_RES_VOL_CSW] >= a->v[EMLAT_RES_VOL_CSW]
          && b->v[EMLAT_RES_INVOL_CSW] >= a->v[EMLAT_RES_INVOL_CSW])
        {
          r->has_csw = 1;
          r->vol_csw = b->v[EMLAT_RES_VOL_CSW] - a->v[EMLAT_RES_VOL_CSW];
          r->invol_csw = b->v[EMLAT_RES_INVOL_CSW] - a->v[EMLAT_RES_INVOL_CSW];
        }
    }
}
