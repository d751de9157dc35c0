// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE /* pipe2 */
#include "tool.h"
#include "comm.h"
#include "ftrace.h"
#include "out.h"
#include "sig.h"
#include "sweep.h"
#include "toplevel.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

/* What tool_trace has to check in user space before a tool's handler sees a record. */
struct check {
	struct tool_run *t;
	reader_event_fn fn;
	void *ctx;
	const char *name; /* -n, when the kernel could not filter on it */
	struct check *next;
};
static struct check *checks;

static void shared_option(const struct opt_spec *o, const char *arg, void *ctx)
{
	struct tool_run *t = ctx;
	switch (o->id) {
	case TOOL_OPT_DURATION: t->o.duration = opt_seconds(arg, "duration"); break;
	case TOOL_OPT_PID: t->o.pid = opt_live_pid(arg); break;
	case TOOL_OPT_TID: t->o.tid = opt_live_tid(arg); break;
	case TOOL_OPT_NAME: t->o.name = opt_glob(arg, "NAME"); break;
	case TOOL_OPT_JSON: t->o.json = true; break;
	case TOOL_OPT_TIMESTAMP: t->o.timestamp = true; break;
	case TOOL_OPT_WALLCLOCK: t->o.wallclock = true; break;
	default:
		if (!t->tool->option)
			opt_fail("option -%c is not handled", o->key);
		t->tool->option(t, o, arg);
	}
}

void tool_operand_duration(struct tool_run *t, int argc, char **argv)
{
	if (argc > 0)
		t->o.duration = opt_seconds(argv[0], "duration");
	if (argc > 1)
		opt_fail("unexpected argument: '%s' (see -h)", argv[1]);
}

void tool_operand_interval(struct tool_run *t, int argc, char **argv)
{
	if (argc > 0)
		t->o.interval = opt_seconds(argv[0], "interval");
	if (argc > 1)
		t->o.count = opt_int(argv[1], 1, 1LL << 40, "count");
	if (argc > 2)
		opt_fail("unexpected argument: '%s' (see -h)", argv[2]);
}

int tool_stacks(struct tool_run *t, bool kernel, bool user, bool func, struct tep_event **kstack,
		struct tep_event **ustack)
{
	*kstack = *ustack = NULL;
	if (kernel) {
		*kstack = session_load_event(&t->s, "ftrace", "kernel_stack");
		if (!*kstack || !tep_find_field(*kstack, "caller")) {
			fprintf(stderr,
				"%s: no ftrace:kernel_stack event for -s (CONFIG_STACKTRACE)\n",
				t->tool->name);
			return TOOL_FAIL;
		}
		/* The function tracer's option is the kernel's on most kernels: ftrace.h. */
		if (func && ftrace_func_stack_on(t->s.inst, t->tool->name))
			return TOOL_FAIL;
		if (!func && tracefs_option_enable(t->s.inst, TRACEFS_OPTION_STACKTRACE)) {
			fprintf(stderr, "%s: cannot enable stack traces: %s\n", t->tool->name,
				strerror(errno));
			return TOOL_FAIL;
		}
	}
	if (user) {
		*ustack = session_load_event(&t->s, "ftrace", "user_stack");
		if (!*ustack || !tep_find_field(*ustack, "caller") ||
		    !tep_find_field(*ustack, "tgid") ||
		    !tracefs_option_is_supported(t->s.inst, TRACEFS_OPTION_USERSTACKTRACE)) {
			fprintf(stderr,
				"%s: no user stack traces in this kernel for -U "
				"(CONFIG_USER_STACKTRACE_SUPPORT)\n",
				t->tool->name);
			return TOOL_FAIL;
		}
		if (tracefs_option_enable(t->s.inst, TRACEFS_OPTION_USERSTACKTRACE)) {
			fprintf(stderr, "%s: cannot enable user stack traces: %s\n", t->tool->name,
				strerror(errno));
			return TOOL_FAIL;
		}
	}
	if ((*kstack && reader_trailer(&t->r, *kstack)) ||
	    (*ustack && reader_trailer(&t->r, *ustack)))
		return TOOL_FAIL;
	return TOOL_OK;
}

const char *tool_comm(struct tool_run *t, int pid)
{
	return t->names ? comm_get(t->names, pid) : "<...>";
}

static void checked(struct tep_record *rec, void *ctx)
{
	struct check *c = ctx;
	struct tool_run *t = c->t;
	if (fnmatch(c->name, tool_comm(t, tep_data_pid(t->s.tep, rec)), 0))
		return;
	c->fn(rec, c->ctx);
}

/* Write a filter; on rejection, the kernel's reason (the filter file holds it) on stderr. */
static int write_filter(struct tool_run *t, struct tep_event *ev, const char *filter,
			const char *shown, bool quiet)
{
	if (!*filter ||
	    tracefs_event_file_write(t->s.inst, ev->system, ev->name, "filter", filter) >= 0)
		return 0;
	if (quiet)
		return -1;
	char *why = tracefs_event_file_read(t->s.inst, ev->system, ev->name, "filter", NULL);
	fprintf(stderr, "%s: the kernel rejected the filter '%s' on %s:%s%s\n", t->tool->name,
		shown, ev->system, ev->name, why && *why ? "; it says:" : "");
	if (why && *why) /* the filter, a caret under the fault, and the reason */
		fputs(why, stderr);
	free(why);
	return -1;
}

int tool_trace(struct tool_run *t, struct tep_event *ev, const char *filter, reader_event_fn fn,
	       void *ctx)
{
	char full[8192];
	if (session_filter(&t->s, full, sizeof(full), filter, NULL)) {
		fprintf(stderr, "%s: filter too long\n", t->tool->name);
		return TOOL_USAGE;
	}
	const char *shown = filter && *filter ? filter : full;
	/* -n: the kernel's "comm" is the task's name, unless the event has a field of that
	 * name (sched_wakeup's is the woken task's). The COMM field that names the task there
	 * was accepted but matched nothing on Debian's 6.1 and 6.12 (vmcheck), and 5.10 has
	 * none: for such events the name is checked here, on the in-band names. */
	const char *name = NULL;
	size_t before = strlen(full);
	if (t->o.name && tep_find_field(ev, "comm"))
		name = t->o.name;
	else if (t->o.name)
		snprintf(full + before, sizeof(full) - before, "%scomm ~ \"%s\"",
			 *full ? " && " : "", t->o.name);
	/* Filters know "comm" from Linux 4.11 on (4.9 says "Illegal operation for field
	 * type"): there the name is checked here too. */
	bool written = t->o.name && !name && !write_filter(t, ev, full, shown, true);
	if (t->o.name && !name && !written) {
		full[before] = 0;
		name = t->o.name;
	}
	if (!written && write_filter(t, ev, full, shown, false))
		return TOOL_USAGE;
	/* Not tracefs_event_enable(): it matches patterns against every event of the system,
	 * a stat() each, ~130 ms for syscalls on eventfs (6.18). */
	if (tracefs_event_file_write(t->s.inst, ev->system, ev->name, "enable", "1") < 0) {
		fprintf(stderr, "%s: cannot enable %s:%s: %s\n", t->tool->name, ev->system,
			ev->name, strerror(errno));
		return TOOL_FAIL;
	}
	if (!name)
		return reader_on(&t->r, ev, fn, ctx) ? TOOL_FAIL : TOOL_OK;
	struct check *p = malloc(sizeof(*p));
	if (!p || reader_on(&t->r, ev, checked, p)) {
		free(p);
		return TOOL_FAIL;
	}
	*p = (struct check){.t = t, .fn = fn, .ctx = ctx, .name = name, .next = checks};
	checks = p;
	return TOOL_OK;
}

static int tick(uint64_t now, void *ctx)
{
	struct tool_run *t = ctx;
	t->intervals++;
	int last = t->tool->interval ? t->tool->interval(t, now) : 0;
	if (!last && t->o.count && t->intervals >= t->o.count)
		last = 1;
	t->last_interval = last;
	return last;
}

/* --exec: the command, made now but held until tracing is on (it waits to read a byte), so
 * that its PID is the -p of the run before its first event. */
static int exec_start(struct tool_run *t)
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
		fprintf(stderr, "%s: cannot start '%s': %s\n", t->tool->name, t->o.exec[0],
			strerror(errno));
		return -1;
	}
	if (pid == 0) {
		char c;
		/* The command's signals as the shell would leave them (this tool's handlers
		 * would remove its ftrace instance); those ignored stay ignored. */
		for (int s = 1; s < NSIG; s++) {
			struct sigaction sa;
			if (sigaction(s, NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
				signal(s, SIG_DFL);
		}
		close(go[1]);
		close(err[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);		 /* the tool failed before tracing: not run */
		execvp(t->exec_path, t->o.exec); /* a path: no search, a script run by sh */
		int e = errno;
		if (write(err[1], &e, sizeof(e)) != sizeof(e))
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	t->child = pid;
	t->child_go = go[1];
	t->child_err = err[0];
	t->o.pid = pid;
	return 0;
}

static int exec_done(void *ctx)
{
	struct tool_run *t = ctx;
	if (!t->child_done && waitpid(t->child, &t->child_status, WNOHANG) == t->child)
		t->child_done = true;
	return t->child_done;
}

/* Every wake-up: the tool's wake(), and whether the command of --exec has ended. */
static int wake(void *ctx)
{
	struct tool_run *t = ctx;
	if (t->tool->wake)
		t->tool->wake(t, reader_now());
	return t->child ? exec_done(t) : 0;
}

/* After the run: whether the command ran, and how it ended when that was not a success
 * (the tool's own status stays its own). Stopped before the command ended (-d, a count,
 * Ctrl-C), the tool does not wait long for it. Returns -1 when it could not be run. */
static int exec_end(struct tool_run *t)
{
	const char *tool = t->tool->name, *cmd = t->o.exec ? t->o.exec[0] : "";
	char buf[16];
	if (!t->child)
		return 0;
	if (t->child_go >= 0)
		close(t->child_go); /* never released: it ends without running */
	int e = 0;
	bool ran = t->child_go < 0;
	ssize_t n = read(t->child_err, &e, sizeof(e)); /* EOF at exec, or the errno */
	close(t->child_err);
	if (ran && n == sizeof(e)) {
		waitpid(t->child, NULL, 0);
		fprintf(stderr, "%s: cannot run '%s': %s\n", tool, cmd, strerror(e));
		return -1;
	}
	for (int i = 0; i < 50 && !exec_done(t); i++)
		usleep(10000); /* after Ctrl-C it is ending too */
	if (!t->child_done)
		fprintf(stderr, "%s: '%s' (PID %d) is still running, no longer traced\n", tool, cmd,
			(int)t->child);
	else if (WIFEXITED(t->child_status) && WEXITSTATUS(t->child_status) && ran)
		fprintf(stderr, "%s: '%s' exited with status %d\n", tool, cmd,
			WEXITSTATUS(t->child_status));
	else if (WIFSIGNALED(t->child_status) && ran)
		fprintf(stderr, "%s: '%s' was killed by signal %d (%s)\n", tool, cmd,
			WTERMSIG(t->child_status), sig_name(WTERMSIG(t->child_status), buf));
	return 0;
}

/* --exec's command, looked for before anything is traced: a name that is not there is said
 * then, changing nothing (errno when it is not found or cannot be run). Its path in found:
 * the command's own calls do not include a search of PATH. */
static int exec_find(const char *cmd, char found[PATH_MAX])
{
	if (strchr(cmd, '/')) {
		struct stat st;
		snprintf(found, PATH_MAX, "%s", cmd);
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
		if (snprintf(found, PATH_MAX, "%.*s/%s", (int)len, len ? p : ".", cmd) < PATH_MAX) {
			struct stat st;
			if (access(found, X_OK) == 0 && stat(found, &st) == 0 &&
			    S_ISREG(st.st_mode))
				return 0;
			if (errno == EACCES)
				err = EACCES;
		}
		p = colon ? colon + 1 : NULL;
	}
	return err;
}

static void release_top(void *arg)
{
	toplevel_release(arg);
}

static int run(struct tool_run *t)
{
	const struct tool *tool = t->tool;
	int ret;
	if (session_init(&t->s, tool->name, tool->formats))
		return TOOL_FAIL;
	if (sig_install(tool->name)) {
		fprintf(stderr, "%s: cannot install signal handlers: %s\n", tool->name,
			strerror(errno));
		return TOOL_FAIL;
	}
	if (tool->prepare && (ret = tool->prepare(t)))
		return ret == TOOL_DONE ? TOOL_OK : ret;
	/* After prepare(): a usage error it finds changes nothing in the kernel. */
	sweep_stale(tool->name);
	if (session_start(&t->s, opt_buffer_kb ? opt_buffer_kb : t->buffer_kb) ||
	    (t->o.exec && exec_start(t)) || session_set_pids(&t->s, t->o.pid, t->o.tid))
		return TOOL_FAIL;
	if (tool->instance && (ret = tool->instance(t)))
		return ret;
	/* -n names the task when the event happened; the names are followed for it too. */
	if ((t->follow_names || t->o.name) && !(t->names = comm_follow(&t->s, t->o.pid, t->o.tid)))
		return TOOL_FAIL;
	if (t->top ? reader_open_toplevel(&t->r, &t->s, t->top->on_fd, t->ordered || t->names) :
		     reader_open_session(&t->r, &t->s, t->ordered || t->names))
		return TOOL_FAIL;
	/* After the reader's close (registered as it opened): the kernel will not change the
	 * tracer while its buffers are open (EBUSY). */
	if (t->top && session_on_close(&t->s, SESSION_BEFORE_REMOVE, release_top, t->top))
		return TOOL_FAIL;
	if (t->names && comm_attach(t->names, &t->r))
		return TOOL_FAIL;
	if (tool->setup && (ret = tool->setup(t)))
		return ret;
	out_init();
	out_clock_init();
	if (tool->banner)
		tool->banner(t);
	else
		fprintf(stderr, "Tracing %s. Ctrl-C to end.\n", t->what);
	if (tool->header && !t->o.json)
		tool->header(t);
	t->r.done = wake;
	t->r.done_ctx = t;
	if (t->child) {
		out_flush(); /* the command's output comes after the header */
		if (write(t->child_go, "g", 1) != 1) {
			fprintf(stderr, "%s: cannot start '%s': %s\n", tool->name, t->o.exec[0],
				strerror(errno));
			return TOOL_FAIL;
		}
		close(t->child_go);
		t->child_go = -1;
	}
	ret = reader_run(&t->r, t->o.duration, t->o.interval, tick, t, out_flush) ? TOOL_FAIL :
										    TOOL_OK;
	if (tool->end && !out_closed())
		tool->end(t);
	if (out_flush() < 0 || t->failed)
		ret = TOOL_FAIL;
	return ret;
}

int tool_main(const struct tool *tool, int argc, char **argv)
{
	static struct tool_run t;
	memset(&t, 0, sizeof(t));
	t.tool = tool;
	t.follow_names = true;
	t.ordered = true;
	t.s.hold_fd = -1;
	opt_init(argv[0]);
	opt_tool = tool->name; /* the tool's own name in messages, however it was called */
	struct opt_usage u = {tool->name, tool->opts,	      tool->operands,
			      tool->more, tool->operand_help, tool->examples};
	/* --exec takes the rest of the command line, wherever it is: its own options are not
	 * the tool's. */
	t.child_go = t.child_err = -1;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--exec")) {
			bool declared = false;
			for (const struct opt_spec *o = tool->opts; o && o->key; o++)
				declared |= o->id == TOOL_OPT_EXEC;
			if (!declared)
				break; /* getopt says it is unknown */
			if (i + 1 == argc)
				opt_fail("--exec: no command given (see -h)");
			t.o.exec = argv + i + 1;
			argv[i] = NULL;
			argc = i;
			break;
		}
	int first = opt_parse(argc, argv, &u, shared_option, &t);
	if (tool->operands_fn)
		tool->operands_fn(&t, argc - first, argv + first);
	else if (first < argc)
		opt_fail("unexpected argument: '%s' (see -h)", argv[first]);
	if (t.o.pid && t.o.tid)
		opt_fail("-p and -L exclude each other");
	if (t.o.exec && (t.o.pid || t.o.tid))
		opt_fail("--exec traces the command it starts: not with -p or -L");
	int e = t.o.exec ? exec_find(t.o.exec[0], t.exec_path) : 0;
	if (e) {
		fprintf(stderr, "%s: cannot run '%s': %s\n", tool->name, t.o.exec[0], strerror(e));
		return TOOL_FAIL;
	}
	int ret = run(&t);
	if (exec_end(&t) && ret == TOOL_OK)
		ret = TOOL_FAIL;
	session_close(&t.s);
	comm_free(t.names);
	t.names = NULL;
	for (struct check *c = checks, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	checks = NULL;
	if (tool->cleanup)
		tool->cleanup(&t);
	if (out_failed() || t.failed || (t.top && t.top->failed))
		ret = TOOL_FAIL;
	return ret;
}
