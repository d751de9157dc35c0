/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sweep: what runs that were killed left in the kernel, removed by the next run of any tool
 * before it makes anything: the top-level settings of a killed owner written back
 * (toplevel.h), the hist triggers that hold an instance (undo.h), then the instances, the
 * synthetic events and the probe groups. Only names exactly of the tools' own form
 * (runid.h) whose run is gone are touched, and each removal is said; a thing another run
 * still holds (an open file, an enabled probe: EBUSY) is left.
 */
#ifndef FTT_SWEEP_H
#define FTT_SWEEP_H

#include <stdbool.h>
#include <stdio.h>

#include "kernel/sweepsay.h"

/* Remove what killed runs left, each thing said on stderr after "tool: " (sweep_default).
 * Returns how many things were removed or written back. */
int sweep_stale(const char *tool);

/* sweep_stale for tool, as how says (NULL: sweep_default). Returns how many things were (with
 * dry: would be) removed or written back. */
int sweep_with(const char *tool, const struct sweep_how *how);

struct runid;
/* Is name an instance of the tools' own form, "ftrace-tools-<tool>[.<role>]-<run id>" (tool
 * [a-z0-9_]+, role [a-z]+)? Returns true if so, its run id in *id. */
bool sweep_instance_name(const char *name, struct runid *id);

#endif
