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

/* The folder (made, mode 0700, when make): its path in buf, or NULL with errno. A folder
 * that is not to be trusted is said on stderr (prefixed with tool), and with make every
 * other failure too. */
const char *state_dir(char *buf, size_t len, bool make, const char *tool);

/* Open NAME in the folder dir with flags (O_CREAT makes it 0600; never a link): a file that
 * is not this user's, mode 0600 with one link, is closed and refused (EPERM). */
int state_open(const char *dir, const char *name, int flags);

/* Is path a file a replayed line may write: absolute, no "." or ".." part, under the tracing
 * folder tracing (or, when tracing is NULL, tracefs's), on tracefs? */
bool state_tracefs_file(const char *path, const char *tracing);

#endif
