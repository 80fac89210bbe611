/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * machine.h -- the facts about the machine that a session records once:
 * whether the kernel keeps time with the time-stamp counter (the clock's
 * choice, clock.c), the online processors and the CPU model (SESSION's
 * cpu.count and cpu.model, sysinfo.c).
 *
 * Reading them costs a process about 60 us at its start on a virtual
 * machine (sysfs, /proc/cpuinfo or four CPUIDs that leave the guest:
 * docs/PERFORMANCE.md, "The machine's facts from the driver").  A driver
 * that runs the program and drains its rings (`emlat record`, `emlat
 * replay`: EMLAT_FINISH=drain:PID) reads them once and hands them down in
 * EMLAT_MACHINE, whose value emlat_machine_format writes and
 * emlat_machine_parse checks:
 *
 *   tsc=0|1;cpus=N;model=TEXT
 *
 * N a decimal in 1..EMLAT_MACHINE_CPUS_MAX, TEXT printable ASCII (0x20
 * to 0x7e) of at most EMLAT_MACHINE_MODEL_MAX bytes, possibly empty, to
 * the end of the value.
 *
 * Privacy invariant: the model comes only from the CPUID brand leaves or
 * the "model name" of /proc/cpuinfo; nothing here reads a path, a file
 * name or a value of the user's.
 */
#ifndef EMLAT_MACHINE_H
#define EMLAT_MACHINE_H

#include <stddef.h>

#define EMLAT_MACHINE_MODEL_MAX 255
#define EMLAT_MACHINE_CPUS_MAX 1048576L
/* The longest value emlat_machine_format writes, with its NUL. */
#define EMLAT_MACHINE_VALUE_MAX (sizeof "tsc=0;cpus=1048576;model=" + EMLAT_MACHINE_MODEL_MAX)

struct emlat_machine
{
  int kernel_tsc;                        /* clocksource "tsc": 1, else 0 */
  long cpus;                             /* online processors; 0: unknown */
  char model[EMLAT_MACHINE_MODEL_MAX + 1]; /* "" when unknown */
};

/* 1 when the kernel's current clocksource is "tsc" (raw system calls:
   the interposition library defines open, read and close itself). */
int emlat_machine_kernel_tsc (void);
/* The online processors (sysconf), 0 when unknown. */
long emlat_machine_cpus (void);
/* The CPU model into OUT (CAP > 0 bytes): the brand string, else the
   first "model name" of /proc/cpuinfo, else "". */
void emlat_machine_model (char *out, size_t cap);

/* All three, read in this process. */
void emlat_machine_read (struct emlat_machine *m);
/* M as EMLAT_MACHINE's value into BUF: its length, or -1 when CAP is too
   small (EMLAT_MACHINE_VALUE_MAX always suffices). */
int emlat_machine_format (const struct emlat_machine *m, char *buf, size_t cap);
/* EMLAT_MACHINE's value V into *M: 0, or -1 (M untouched) when V is not
   exactly the grammar above. */
int emlat_machine_parse (const char *v, struct emlat_machine *m);

#endif /* EMLAT_MACHINE_H */
