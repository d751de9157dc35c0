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

/* Look argv[0] up (a path as given, else in PATH, the user's own; /usr/local/bin:/usr/bin:/bin
 * without one) into c->path, c cleared first, with argv, the command and its arguments.
 * Returns 0, or an errno (ENOENT, EACCES, EISDIR; for a path, that of access()) with nothing
 * started. */
int child_find(struct child *c, char *const *argv);
/* Start the command of c, to be held (stopped) before its exec; this process's SIGCHLD is
 * set to SIG_DFL with SA_NOCLDSTOP. Returns 0, or -1 with one line on stderr (prefixed with
 * tool, the tool's name) when it could not be started. */
int child_start(struct child *c, const char *tool);
/* Wait until the command of c is held: before anything that could trace it is on. Its stop
 * takes 3 to 40 ms on a loaded 2-CPU machine, so the run does its other set-up in between.
 * Returns 0 (at once when it already is), or -1 with one line on stderr (prefixed with tool)
 * when it ended first (reaped). */
int child_held(struct child *c, const char *tool);
/* Let the command of c run (tracing is on), once, after child_held() returned 0. Returns 0:
 * it cannot fail, and tool is not used. */
int child_release(struct child *c, const char *tool);
/* Has the command of c exited (reaped now if so, its status in c->status)? Returns true if
 * so; false while it runs, or when it was never started. */
bool child_ended(struct child *c);
/* After the run: released or not, whether the command of c ran, and how it ended when that
 * was not a success (said on stderr, prefixed with tool; the tool's own status stays its
 * own). One never released ends without running (status 127, nothing said). Stopped before
 * it ended, the tool does not wait long (0.5 s, then says it is still running). Returns 0
 * (when it was never started too), or -1 when it could not be run (its exec failed: said). */
int child_finish(struct child *c, const char *tool);

#endif
