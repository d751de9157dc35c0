/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * undo: what the next run must write if this one is killed (SIGKILL) between two changes
 * that a killed run's name cannot be found by. A hist trigger with variables holds its
 * instance (the kernel refuses rmdir until it is removed), and only the exact trigger
 * written with '!' removes it; so the lines that remove them are kept, before the triggers
 * are written, in a file of this run (state.h: root's, 0600), locked with flock(2) while the
 * run lives. The sweep of every run (sweep.h) writes the lines of each file whose lock is free, then
 * removes it. A file is found only by runs that see the same directory: a run in another
 * container is never judged dead by its file.
 */
#ifndef FTT_UNDO_H
#define FTT_UNDO_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct undo {
	const char *tool;
	int fd; /* the file, locked; -1: none */
	char path[PATH_MAX];
};

/* Make and lock this run's file for tool into u. Returns 0, or -1 with one line on stderr
 * (u->fd then -1). Frees: undo_end(u). */
int undo_begin(struct undo *u, const char *tool);

/* If this run is killed, the next writes line to the tracefs file path (absolute): kept in
 * the file of u, on disk (fdatasync) before it returns. Added before the change it undoes.
 * Returns 0, or -1 with one line on stderr (no file, a tab or newline in path or line, 8 KiB
 * or more, a write that failed). */
int undo_add(struct undo *u, const char *path, const char *line);

/* The changes are undone by this run: the file of u goes (emptied, removed, unlocked). Safe
 * to call more than once, and after a failed undo_begin(). */
void undo_end(struct undo *u);

/* The sweep: the lines of every file whose owner is gone written, in order (each only to a
 * file inside tracefs; one whose file is gone is skipped), then the file removed (kept when a
 * line could not be written); said on stderr, prefixed with tool. A file that is not to be
 * trusted (state.h) is said and left. Returns the number of files undone (of which a line
 * was written). */
int undo_recover(const char *tool);
struct sweep_how;
/* The same for tool, as how, a sweep's how, says (sweepsay.h; NULL: as undo_recover): with
 * how->dry, what it would write is counted and said, nothing written or removed. Returns as
 * undo_recover() does (with how->dry, the files it would undo). */
int undo_recover_how(const char *tool, const struct sweep_how *how);

#endif
