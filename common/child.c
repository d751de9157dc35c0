// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE /* pipe2 */
#include "child.h"
#include "sig.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int child_find(struct child *c, char *const *argv)
{
	const char *cmd = argv[0];
	memset(c, 0, sizeof(*c));
	c->argv = argv;
	c->go = c->err = -1;
	if (strchr(cmd, '/')) {
		struct stat st;
		snprintf(c->path, sizeof(c->path), "%s", cmd);
		if (access(cmd, X_OK))
			return errno;
		return stat(cmd, &st) == 0 && S_ISDIR(st.st_mode) ? EISDIR : 0;
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	int err = ENOENT;
	for (const char *p = path; p;) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);
		if (snprintf(c->path, sizeof(c->path), "%.*s/%s", (int)len, len ? p : ".", cmd) <
		    (int)sizeof(c->path)) {
			struct stat st;
			if (access(c->path, X_OK) == 0 && stat(c->path, &st) == 0 &&
			    S_ISREG(st.st_mode))
				return 0;
			if (errno == EACCES)
				err = EACCES;
		}
		p = colon ? colon + 1 : NULL;
	}
	return err;
}

int child_start(struct child *c, const char *tool)
{
	int go[2], err[2];
	pid_t pid = -1;
	if (pipe2(go, O_CLOEXEC) == 0) {
		if (pipe2(err, O_CLOEXEC) == 0) {
			pid = fork();
			if (pid < 0) {
				close(err[0]);
				close(err[1]);
			}
		}
		if (pid < 0) {
			close(go[0]);
			close(go[1]);
		}
	}
	if (pid < 0) {
		fprintf(stderr, "%s: cannot start '%s': %s\n", tool, c->argv[0], strerror(errno));
		return -1;
	}
	if (pid == 0) {
		char b;
		/* The command's signals as the shell would leave them (this tool's handlers
		 * would remove its ftrace instance); those ignored stay ignored. */
		for (int s = 1; s < NSIG; s++) {
			struct sigaction sa;
			if (sigaction(s, NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
				signal(s, SIG_DFL);
		}
		close(go[1]);
		close(err[0]);
		if (read(go[0], &b, 1) != 1)
			_exit(127);	 /* the tool failed before tracing: not run */
		execv(c->path, c->argv); /* a path: no search of PATH here */
		int e = errno;
		if (e == ENOEXEC) {
			/* A script without #!: what a shell would do, with the shell named. */
			const char *sh[4096 / sizeof(char *)];
			size_t n = 0;
			sh[n++] = "/bin/sh";
			sh[n++] = c->path;
			for (size_t i = 1; c->argv[i] && n + 1 < sizeof(sh) / sizeof(*sh); i++)
				sh[n++] = c->argv[i];
			sh[n] = NULL;
			execv("/bin/sh", (char *const *)sh);
			e = errno;
		}
		if (write(err[1], &e, sizeof(e)) != sizeof(e))
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	c->pid = pid;
	c->go = go[1];
	c->err = err[0];
	return 0;
}

int child_release(struct child *c, const char *tool)
{
	if (write(c->go, "g", 1) != 1) {
		fprintf(stderr, "%s: cannot start '%s': %s\n", tool, c->argv[0], strerror(errno));
		return -1;
	}
	close(c->go);
	c->go = -1;
	return 0;
}

bool child_ended(struct child *c)
{
	if (!c->ended && c->pid > 0 && waitpid(c->pid, &c->status, WNOHANG) == c->pid)
		c->ended = true;
	return c->ended;
}

int child_finish(struct child *c, const char *tool)
{
	const char *cmd = c->argv ? c->argv[0] : "";
	char buf[16];
	if (!c->pid)
		return 0;
	if (c->go >= 0)
		close(c->go); /* never released: it ends without running */
	int e = 0;
	bool ran = c->go < 0;
	c->go = -1;
	ssize_t n = read(c->err, &e, sizeof(e)); /* EOF at exec, or the errno */
	close(c->err);
	c->err = -1;
	if (ran && n == sizeof(e)) {
		waitpid(c->pid, NULL, 0);
		fprintf(stderr, "%s: cannot run '%s': %s\n", tool, cmd, strerror(e));
		return -1;
	}
	for (int i = 0; i < 50 && !child_ended(c); i++)
		usleep(10000); /* after Ctrl-C it is ending too */
	if (!c->ended)
		fprintf(stderr, "%s: '%s' (PID %d) is still running, no longer traced\n", tool, cmd,
			(int)c->pid);
	else if (WIFEXITED(c->status) && WEXITSTATUS(c->status) && ran)
		fprintf(stderr, "%s: '%s' exited with status %d\n", tool, cmd,
			WEXITSTATUS(c->status));
	else if (WIFSIGNALED(c->status) && ran)
		fprintf(stderr, "%s: '%s' was killed by signal %d (%s)\n", tool, cmd,
			WTERMSIG(c->status), sig_name(WTERMSIG(c->status), buf));
	return 0;
}
