/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * state: the folder of the run state files (undo.h, toplevel.h), which a later run replays
 * as root. It is /run/ftrace-tools (tmpfs: gone at a reboot, as the kernel's settings are),
 * never under /tmp and never moved by the environment: the folder must be this user's (root's)
 * with mode 0700 in a /run that only root writes, each file this user's, mode 0600, one link,
 * opened without following links. Anything else is refused with one line, never replayed.
 * A replayed write goes only to a file inside tracefs.
 */
#ifndef FTT_STATE_H
#define FTT_STATE_H

#include <stdbool.h>
#include <stddef.h>

/* The folder (made, mode 0700, when make): its path into buf, len bytes. Returns buf
 * (the caller's), or NULL with errno: ENAMETOOLONG, ENOENT (no /run that only root writes; or
 * no folder yet), EPERM (a folder not to be trusted), or mkdir's. A folder that is not to be
 * trusted is said on stderr (prefixed with tool); with make, a /run not to be trusted and a
 * folder that cannot be made too. */
const char *state_dir(char *buf, size_t len, bool make, const char *tool);

/* Open name in the folder dir with flags (O_CREAT makes it 0600; never a link; close-on-exec).
 * Returns the file descriptor (the caller closes it), or -1 with errno: open's, ENAMETOOLONG,
 * or EPERM for a file that is not this user's regular file with one link and no permission for
 * group or others (closed and refused). */
int state_open(const char *dir, const char *name, int flags);

/* Is path a file a replayed line may write: absolute, no "." or ".." or empty part, under the
 * tracing folder tracing (or, when tracing is NULL, tracefs's as libtracefs finds it), on
 * tracefs or debugfs (not checked with state_fake_tracefs, the tests')? Returns true or
 * false. */
bool state_tracefs_file(const char *path, const char *tracing);

#endif
