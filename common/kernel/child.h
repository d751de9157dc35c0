/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * child: the command of --exec. Found before anything is traced (a name that is not there is
 * said then, changing nothing), started but held until tracing is on (stopped by a
 * SIGSTOP of its own, so its PID is the run's -p before its first event and nothing it
 * does before its execve is traced: child.c), then watched: the run ends when
 * it exits, and how it ended is said when that was not a success.
 */
#ifndef FTT_CHILD_H
#define FTT_CHILD_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

struct child {
	char *const *argv;   /* the command and its arguments (NULL-terminated) */
	char path[PATH_MAX]; /* argv[0], found in PATH: the only PATH search of the tools */
	pid_t pid;	     /* 0: not started */
	volatile int *go;    /* shared with it, while it is held: 1 lets it run, 0 not */
	int err;	     /* a pipe: exec's errno */
	int out;	     /* its standard output (-1: this tool's) */
	int status;
	bool held, ended, released;
};

/* Look argv[0] up (a path as given, else in PATH, the user's own). 0, or errno (ENOENT,
 * EACCES, EISDIR) with nothing started. */
int child_find(struct child *c, char *const *argv);
/* Start it, to be held (stopped) before its exec. -1 with one line on stderr (prefixed
 * with tool). */
int child_start(struct child *c, const char *tool);
/* Wait until it is held: before anything that could trace it is on. Its stop takes 3 to
 * 40 ms on a loaded 2-CPU machine, so the run does its other set-up in between. -1 with
 * one line on stderr. */
int child_held(struct child *c, const char *tool);
/* Let it run (tracing is on). -1 with one line on stderr. */
int child_release(struct child *c, const char *tool);
/* Has it exited (reaped now if so)? */
bool child_ended(struct child *c);
/* After the run: released or not, whether it ran, and how it ended when that was not a
 * success (said; the tool's own status stays its own). Stopped before it ended, the tool
 * does not wait long. -1 when it could not be run. */
int child_finish(struct child *c, const char *tool);

#endif
