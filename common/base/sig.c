// SPDX-License-Identifier: GPL-2.0-only
#include "base/sig.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

volatile sig_atomic_t sig_stop;
static volatile sig_atomic_t blocking;
static char tool[64] = "ftrace-tools";

struct step {
	struct step *volatile next;
	volatile sig_atomic_t done;
	char *path, *line; /* line NULL: rmdir(path) */
	int flags;	   /* of the write's open: O_APPEND or O_TRUNC */
	bool decrement;	   /* not a line: the u16 at offset of path lowered by one */
	off_t offset;
};
/* Linked, never reallocated: the handler may walk it at any moment. A step is fully built
 * before one pointer store makes it reachable. byhandle (the main program's only) finds a
 * step by its handle, which stays its own when another is inserted before it. */
static struct step *volatile steps;
static struct step *last;
static struct step **byhandle;
static int nsteps, cap;

/* Signals whose default action ends the process and that can be caught. SIGPIPE is among
 * them: a closed output ends the run quietly. */
static const int stop_signals[] = {
	SIGHUP,	   SIGINT,  SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM,
	SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGIO,   SIGPWR,	SIGPIPE,
#ifdef SIGSTKFLT
	SIGSTKFLT,
#endif
};
/* Faults: the program is broken; clean the kernel up, then die as the signal says. */
static const int fault_signals[]
	__attribute__((unused)) = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS};

static void say(const char *msg)
{
	ssize_t n = write(STDERR_FILENO, tool, strlen(tool));
	n = write(STDERR_FILENO, msg, strlen(msg));
	(void)n;
}

/* Open files keep an instance busy (the kernel refuses rmdir): close all but 0-2. */
static void close_files(void)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0)
		return;
#endif
	struct rlimit rl;
	long max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536 ? (long)rl.rlim_cur :
									       65536;
	for (long fd = 3; fd < max; fd++)
		close((int)fd);
}

void sig_emergency(void)
{
	close_files();
	for (struct step *s = steps; s; s = s->next) {
		if (s->done)
			continue;
		s->done = 1;
		if (s->decrement) {
			int fd = open(s->path, O_RDWR | O_CLOEXEC);
			uint16_t v;
			if (fd >= 0 && pread(fd, &v, sizeof(v), s->offset) == (ssize_t)sizeof(v) &&
			    v) {
				v--;
				if (pwrite(fd, &v, sizeof(v), s->offset) != (ssize_t)sizeof(v))
					v = 0; /* (nothing more to do in a handler) */
			}
			if (fd >= 0)
				close(fd);
			continue;
		}
		if (!s->line) {
			rmdir(s->path);
			continue;
		}
		int fd = open(s->path, O_WRONLY | s->flags | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* The kernel may take a list one word per write (set_graph_function). */
		for (const char *p = s->line, *end = p + strlen(p); p < end;) {
			ssize_t n = write(fd, p, (size_t)(end - p));
			if (n <= 0)
				break;
			p += n;
		}
		close(fd);
	}
}

static void on_stop(int sig)
{
	if (sig_stop >= 2 && (blocking || sig == SIGALRM)) {
		/* Blocked in a write (a pipe nobody reads), or still not done a second after the
		 * second stop: end here. */
		sig_emergency();
		say(": stopped at once while writing output; what was still recorded is not "
		    "shown\n");
		_exit(1);
	}
	if (sig_stop < 2 && ++sig_stop == 2) {
		int e = errno;
		/* The main loop ends the run at its next step; output that blocks anywhere (a
		 * full pipe inside printf) would keep it from that step: SIGALRM ends it then. */
		alarm(1);
		errno = e;
	}
}

static __attribute__((unused)) void on_fault(int sig)
{
	sig_emergency();
	say(": fatal signal; the ftrace instance and probes of this run were removed\n");
	signal(sig, SIG_DFL);
	raise(sig); /* delivered with the default action when this handler returns */
}

int sig_install(const char *name)
{
	if (name) {
		strncpy(tool, name, sizeof(tool) - 1);
		tool[sizeof(tool) - 1] = 0;
	}
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	/* SA_RESTART: an output write interrupted by Ctrl-C resumes instead of failing with
	 * EINTR; poll() returns EINTR all the same (it is never restarted). */
	sa.sa_flags = SA_RESTART;
	sa.sa_handler = on_stop;
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(*stop_signals); i++) {
		int s = stop_signals[i];
		if (s == SIGHUP && sigaction(s, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue; /* nohup: keep tracing when the terminal goes */
		if (sigaction(s, &sa, NULL))
			return -1;
	}
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
		sigaction(s, &sa, NULL); /* some may be taken by the C library: not fatal */
#if !defined(__SANITIZE_ADDRESS__) && !defined(FTT_SANITIZE)
	/* Under the sanitizers their own handlers report the fault. */
	sa.sa_handler = on_fault;
	sa.sa_flags = SA_RESETHAND;
	for (size_t i = 0; i < sizeof(fault_signals) / sizeof(*fault_signals); i++)
		if (sigaction(fault_signals[i], &sa, NULL))
			return -1;
#endif
	return 0;
}

void sig_request_stop(void)
{
	if (!sig_stop)
		sig_stop = 1;
}

void sig_request_stop_now(void)
{
	sig_stop = 2;
}

void sig_blocking_begin(void)
{
	blocking = 1;
}

void sig_blocking_end(void)
{
	blocking = 0;
}

/* Link s in before the step of handle before, at the start (FIRST), or at the end (-1). */
#define FIRST (-2)
static int link_step(struct step *s, int before)
{
	if (nsteps == cap) {
		int c = cap ? cap * 2 : 32;
		struct step **more = realloc(byhandle, (size_t)c * sizeof(*more));
		if (!more)
			return -1;
		byhandle = more;
		cap = c;
	}
	struct step *at = before == FIRST		 ? steps :
			  before >= 0 && before < nsteps ? byhandle[before] :
							   NULL;
	if (!at) {
		if (last)
			last->next = s;
		else
			steps = s;
		last = s;
	} else {
		s->next = at;
		if (steps == at) {
			steps = s;
		} else {
			struct step *p = steps;
			while (p->next != at)
				p = p->next;
			p->next = s;
		}
	}
	byhandle[nsteps] = s;
	return nsteps++;
}

static int add(const char *path, const char *line, int flags, int before)
{
	struct step *s = calloc(1, sizeof(*s));
	if (!s || !(s->path = strdup(path)) || (line && !(s->line = strdup(line)))) {
		if (s)
			free(s->path);
		free(s);
		return -1;
	}
	s->flags = flags;
	int h = link_step(s, before);
	if (h < 0) {
		free(s->path);
		free(s->line);
		free(s);
	}
	return h;
}

int sig_on_emergency_decrement(const char *path, unsigned long long offset)
{
	/* (reachable a moment as an rmdir step: of a file, which fails and harms nothing) */
	int h = add(path, NULL, 0, -1);
	if (h >= 0) {
		byhandle[h]->offset = (off_t)offset;
		byhandle[h]->decrement = true;
	}
	return h;
}

int sig_on_emergency_rmdir(const char *path)
{
	return add(path, NULL, 0, FIRST);
}

int sig_on_emergency_replace(const char *path, const char *line)
{
	return add(path, line, O_TRUNC, -1);
}

int sig_on_emergency_write(const char *path, const char *line)
{
	return add(path, line, O_APPEND, -1);
}

int sig_on_emergency_write_before(int before, const char *path, const char *line)
{
	return add(path, line, O_APPEND, before);
}

void sig_forget(int handle)
{
	if (handle >= 0 && handle < nsteps)
		byhandle[handle]->done = 1;
}

const char *sig_name(int sig, char buf[16])
{
	static const struct {
		int sig;
		const char *name;
	} names[] = {
		{SIGHUP, "SIGHUP"},	  {SIGINT, "SIGINT"},	{SIGQUIT, "SIGQUIT"},
		{SIGILL, "SIGILL"},	  {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"},
		{SIGBUS, "SIGBUS"},	  {SIGFPE, "SIGFPE"},	{SIGKILL, "SIGKILL"},
		{SIGUSR1, "SIGUSR1"},	  {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"},
		{SIGPIPE, "SIGPIPE"},	  {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"},
		{SIGCHLD, "SIGCHLD"},	  {SIGCONT, "SIGCONT"}, {SIGSTOP, "SIGSTOP"},
		{SIGTSTP, "SIGTSTP"},	  {SIGTTIN, "SIGTTIN"}, {SIGTTOU, "SIGTTOU"},
		{SIGURG, "SIGURG"},	  {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"},
		{SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"}, {SIGWINCH, "SIGWINCH"},
		{SIGIO, "SIGIO"},	  {SIGPWR, "SIGPWR"},	{SIGSYS, "SIGSYS"},
#ifdef SIGSTKFLT
		{SIGSTKFLT, "SIGSTKFLT"},
#endif
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (names[i].sig == sig)
			return names[i].name;
	/* The kernel's real-time signals count from 32 (the C library's SIGRTMIN is later:
	 * it keeps the first ones for itself). */
	if (sig >= 32 && sig <= 64)
		snprintf(buf, 16, "SIGRT%d", sig - 32);
	else
		snprintf(buf, 16, "%d", sig);
	return buf;
}

char sig_default(int sig)
{
	switch (sig) {
	case SIGCHLD:
	case SIGCONT:
	case SIGURG:
	case SIGWINCH: return 'I';
	case SIGSTOP:
	case SIGTSTP:
	case SIGTTIN:
	case SIGTTOU: return 'S';
	case SIGQUIT:
	case SIGILL:
	case SIGTRAP:
	case SIGABRT:
	case SIGBUS:
	case SIGFPE:
	case SIGSEGV:
	case SIGXCPU:
	case SIGXFSZ:
	case SIGSYS: return 'C';
	}
	return 'T';
}
