// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE /* pipe2 */
#include "kernel/child.h"
#include "base/sig.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int child_find(struct child *c, char *const *argv)
{
	const char *cmd = argv[0];
	memset(c, 0, sizeof(*c));
	c->argv = argv;
	c->err = c->out = -1;
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

/*
 * The command is held stopped (SIGSTOP, which it sends itself) rather than in a read of a
 * pipe: a task that stops in the delivery of a signal has made its last system call (the
 * kill's exit is traced before the stop: the kernel traces a call's exit, then delivers
 * signals) and leaves the stop with none, so once tracing is on nothing of it is seen
 * before its execve but the wake-up that lets it run. A read would show its exit (every
 * run: syscount counted a read the command never made) and its entry too when the child
 * was slow to reach it (a guest's single CPU: tpoint -c said 2 where -j printed 1).
 * Measured, and not taken: the command's exec made by a second thread of a process whose
 * leader has exited (the kernel's de_thread gives it the leader's PID, the one the filter
 * names, so its waiting is not seen): the instance's PID filter is a flag per CPU set
 * when a task is switched in, and after such an exec it is the thread's until the next
 * switch: on 6.18 every event of /bin/true was lost.
 *
 * Whether it may go is a word in a shared page, read without a system call once it is
 * continued: go (1), not (2: never released; it exits 127 without running), or not yet (0:
 * continued by another, it stops again unless this tool is gone; PR_SET_PDEATHSIG
 * continues it when the tool dies before releasing it). The tool's SIGCHLD has
 * SA_NOCLDSTOP: a continued child would otherwise signal it, an event of the child's.
 */
int child_start(struct child *c, const char *tool)
{
	int err[2];
	pid_t pid = -1, parent = getpid();
	volatile int *go =
		mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct sigaction quiet = {.sa_handler = SIG_DFL, .sa_flags = SA_NOCLDSTOP};
	if (go != MAP_FAILED && sigaction(SIGCHLD, &quiet, NULL) == 0) {
		*go = 0;
		if (pipe2(err, O_CLOEXEC) == 0) {
			pid = fork();
			if (pid < 0) {
				close(err[0]);
				close(err[1]);
			}
		}
		if (pid < 0)
			munmap((void *)go, sizeof(int));
	} else if (go != MAP_FAILED) {
		munmap((void *)go, sizeof(int));
	}
	if (pid < 0) {
		fprintf(stderr, "%s: cannot start '%s': %s\n", tool, c->argv[0], strerror(errno));
		return -1;
	}
	if (pid == 0) {
		/* The command's signals as the shell would leave them (this tool's handlers
		 * would remove its ftrace instance); those ignored stay ignored. */
		for (int s = 1; s < NSIG; s++) {
			struct sigaction sa;
			if (sigaction(s, NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
				signal(s, SIG_DFL);
		}
		close(err[0]);
		if (c->out >= 0 && c->out != STDOUT_FILENO && dup2(c->out, STDOUT_FILENO) < 0)
			_exit(127);
		if (prctl(PR_SET_PDEATHSIG, SIGCONT) || getppid() != parent)
			_exit(127);
		/* Continued by another (a shell's fg after Ctrl-Z): stopped again, unless this
		 * tool is gone. */
		for (int v; (v = __atomic_load_n(go, __ATOMIC_ACQUIRE)) != 1;) {
			if (v || getppid() != parent)
				_exit(127); /* the tool failed before tracing: not run */
			raise(SIGSTOP);
		}
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
	close(err[1]);
	c->pid = pid;
	c->go = go;
	c->err = err[0];
	return 0;
}

/* Wait for its stop (once): 0 stopped, -1 it ended (reaped) or is not ours. */
static int wait_stopped(struct child *c)
{
	int st;
	pid_t w;
	if (c->held)
		return 0;
	while ((w = waitpid(c->pid, &st, WUNTRACED)) < 0 && errno == EINTR)
		;
	if (w != c->pid || !WIFSTOPPED(st)) {
		c->ended = true; /* reaped, or not ours to signal */
		c->status = w == c->pid ? st : 0;
		munmap((void *)c->go, sizeof(int));
		c->go = NULL;
		return -1;
	}
	c->held = true;
	return 0;
}

int child_held(struct child *c, const char *tool)
{
	if (wait_stopped(c) == 0)
		return 0;
	fprintf(stderr, "%s: cannot start '%s': it ended before it could be traced\n", tool,
		c->argv[0]);
	return -1;
}

static void child_continue(struct child *c, int go)
{
	__atomic_store_n(c->go, go, __ATOMIC_RELEASE);
	munmap((void *)c->go, sizeof(int));
	c->go = NULL;
	if (!c->ended)
		kill(c->pid, SIGCONT);
}

int child_release(struct child *c, const char *tool)
{
	child_continue(c, 1);
	c->released = true;
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
	/* Never released: it ends without running. Once stopped: a SIGCONT sent before its
	 * stop would leave it stopped. */
	if (c->go && wait_stopped(c) == 0)
		child_continue(c, 2);
	int e = 0;
	bool ran = c->released;
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
