// SPDX-License-Identifier: GPL-2.0-only
/*
 * fdtrack: descriptor tables kept from a run's events (fdtrack.h). Moved out of filetop, whose
 * event handlers these were, so that fileslower names its descriptors the same way.
 */
#include "domain/fdtrack.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event-parse.h>
#include <linux/sched.h> /* CLONE_*: the same on every architecture */

#include "stream/comm.h"
#include "kernel/session.h"
#include "stream/reader.h"
#include "tool.h"

/* The calls joined here (the opens are sysarg's), the entry's fields each needs. */
enum kind { K_DUP, K_DUP2, K_DUP3, K_FCNTL, K_CLOSE, K_CLOSE_RANGE };
static const struct call {
	const char *name;
	const char *f[3];
} calls[FDTRACK_CALLS] = {
	[K_DUP] = {"dup", {"fildes"}},
	[K_DUP2] = {"dup2", {"oldfd", "newfd"}},
	[K_DUP3] = {"dup3", {"oldfd", "newfd", "flags"}},
	[K_FCNTL] = {"fcntl", {"fd", "cmd", "arg"}},
	[K_CLOSE] = {"close", {"fd"}},
	[K_CLOSE_RANGE] = {"close_range", {"fd", "max_fd", "flags"}},
};

/* The opens, their path by sysarg's ladder; the C library's functions for its uprobe rung. */
enum { O_OPEN, O_OPENAT, O_OPENAT2, O_CREAT_CALL };
static const struct sysarg_call opens[] = {
	{"open", "filename"},
	{"openat", "filename"},
	{"openat2", "filename"},
	{"creat", "pathname"},
};
static const struct ustr_func libc_opens[] = {
	{"open64", "s0=+0($1):string", NULL},	    {"open", "s0=+0($1):string", NULL},
	{"__open64_2", "s0=+0($1):string", NULL},   {"__open_2", "s0=+0($1):string", NULL},
	{"openat64", "s0=+0($2):string", NULL},	    {"openat", "s0=+0($2):string", NULL},
	{"__openat64_2", "s0=+0($2):string", NULL}, {"__openat_2", "s0=+0($2):string", NULL},
	{"creat64", "s0=+0($1):string", NULL},	    {"creat", "s0=+0($1):string", NULL},
};

struct args {
	long long a[3];
};

int fdtrack_tgid(struct fdtrack *ft, int tid)
{
	struct comm_task ti;
	return comm_task(ft->t->names, tid, &ti) ? tid : ti.tgid;
}

char fdtrack_late_type(const char *proc, int tgid, int fd, const char *path, size_t len)
{
	char link[PATH_MAX + 64], target[PATH_MAX];
	struct stat st;
	snprintf(link, sizeof(link), "%s/%d/fd/%d", proc, tgid, fd);
	ssize_t n = readlink(link, target, sizeof(target));
	if (n > 0 && (size_t)n < sizeof(target) && (size_t)n >= len &&
	    !memcmp(target + n - len, path, len) && !stat(link, &st))
		return fdtab_type(st.st_mode);
	/* gone (a process that ended): what an absolute path leads to now */
	if (len && path[0] == '/' && !memchr(path, 0, len) && !stat(path, &st))
		return fdtab_type(st.st_mode);
	return '?';
}

static void on_open(const struct tep_record *exit, int tid, const struct sysarg_done *d, void *ctx)
{
	struct fdtrack *ft = ctx;
	if (d->ret < 0)
		return;
	int tgid = fdtrack_tgid(ft, tid), fd = (int)d->ret;
	size_t len = 0;
	const char *path = sysarg_str(&ft->sa, d, 0, &len);
	struct sysarg_strinfo info;
	sysarg_str_info(&ft->sa, d, 0, &info);
	/* openat2's flags are in user memory: taken as close-on-exec, so that an exec forgets
	 * it (unknown after, rather than a name it may no longer have) */
	long long flags = d->call == O_OPEN ? d->args[1] : d->call == O_OPENAT ? d->args[2] : 0;
	bool cloexec = d->call == O_OPENAT2 || !d->have_args || (flags & O_CLOEXEC);
	if (!path || info.cut) {
		/* not read, or not whole: a stand-in that says so */
		char name[96];
		int n = snprintf(name, sizeof(name), "[fd %d: its path not read]", fd);
		struct fdtab_file *f =
			fdtab_open(&ft->tab, tgid, fd, name, (size_t)n, '?', cloexec);
		if (f)
			f->unnamed = true;
		return;
	}
	fdtab_open(&ft->tab, tgid, fd, path, len, fdtrack_late_type("/proc", tgid, fd, path, len),
		   cloexec);
}

static void on_enter(struct tep_record *rec, void *ctx)
{
	struct fdtrack_ev *e = ctx;
	struct fdtrack *ft = e->ft;
	int tid = tep_data_pid(ft->t->s.tep, rec);
	long long a[3] = {0, 0, 0};
	for (int k = 0; k < 3; k++)
		if (e->f[k])
			a[k] = reader_num(rec, e->f[k]);
	if (e->kind == K_CLOSE) {
		fdtab_close(&ft->tab, fdtrack_tgid(ft, tid), (int)a[0]);
		return;
	}
	if (e->kind == K_CLOSE_RANGE) {
		/* CLOSE_RANGE_CLOEXEC (1 << 2) marks instead of closing */
		fdtab_close_range(&ft->tab, fdtrack_tgid(ft, tid), (unsigned)a[0], (unsigned)a[1],
				  a[2] & (1 << 2));
		return;
	}
	struct syspair_call *c = syspair_enter(&ft->join, tid, rec->ts, e->kind);
	if (c)
		memcpy(syspair_data(c), a, sizeof(a));
}

static void on_exit_call(struct tep_record *rec, void *ctx)
{
	struct fdtrack_ev *e = ctx;
	struct fdtrack *ft = e->ft;
	syspair_exit(&ft->join, rec, tep_data_pid(ft->t->s.tep, rec), reader_num(rec, e->ret));
}

void fdtrack_apply(struct fdtrack *ft, int tgid, int which, const long long a[3], long long ret)
{
	if (ret < 0)
		return;
	switch (which) {
	case K_DUP: fdtab_dup(&ft->tab, tgid, (int)a[0], (int)ret, false); break;
	case K_DUP2:
	case K_DUP3:
		/* dup2(fd, fd) changes nothing, its close-on-exec flag included */
		if (a[0] != a[1])
			fdtab_dup(&ft->tab, tgid, (int)a[0], (int)ret,
				  which == K_DUP3 && (a[2] & O_CLOEXEC));
		break;
	case K_FCNTL:
		if (a[1] == F_DUPFD || a[1] == F_DUPFD_CLOEXEC)
			fdtab_dup(&ft->tab, tgid, (int)a[0], (int)ret, a[1] == F_DUPFD_CLOEXEC);
		else if (a[1] == F_SETFD)
			fdtab_set_cloexec(&ft->tab, tgid, (int)a[0], a[2] & FD_CLOEXEC);
		break;
	default: break;
	}
}

static void ended(const struct tep_record *rec, int tid, long long ret, void *call, void *ctx)
{
	struct fdtrack *ft = ctx;
	struct syspair_call *c = call;
	fdtrack_apply(ft, fdtrack_tgid(ft, tid), c->kind, ((struct args *)syspair_data(c))->a, ret);
}

struct fdtab_file *fdtrack_file(struct fdtrack *ft, int tgid, int fd)
{
	struct fdtab_file *f = fdtab_get(&ft->tab, tgid, fd);
	if (f)
		return f;
	char name[96];
	int n = snprintf(name, sizeof(name), "[fd %d: not seen opened]", fd);
	if ((f = fdtab_open(&ft->tab, tgid, fd, name, (size_t)n, '?', true)))
		f->unnamed = true;
	ft->unnamed++;
	return f;
}

/* A new task: a thread shares its process's table; a process gets a copy of its parent's;
 * one that shares it without being a thread (CLONE_FILES alone) makes both unknowable. */
static void on_newtask(struct tep_record *rec, void *ctx)
{
	struct fdtrack *ft = ctx;
	unsigned long long flags = (unsigned long long)reader_num(rec, ft->newtask_flags);
	int parent = fdtrack_tgid(ft, tep_data_pid(ft->t->s.tep, rec)),
	    child = (int)reader_num(rec, ft->newtask_pid);
	if (flags & CLONE_THREAD)
		return;
	if (flags & CLONE_FILES) {
		fdtab_exit(&ft->tab, parent);
		fdtab_exit(&ft->tab, child);
		return;
	}
	fdtab_fork(&ft->tab, parent, child);
}

static void on_exec(struct tep_record *rec, void *ctx)
{
	struct fdtrack *ft = ctx;
	fdtab_exec(&ft->tab, (int)reader_num(rec, ft->exec_pid));
}

static void on_task_exit(struct tep_record *rec, void *ctx)
{
	struct fdtrack *ft = ctx;
	int tid = (int)reader_num(rec, ft->exit_pid);
	bool dead =
		ft->exit_dead ? reader_num(rec, ft->exit_dead) != 0 : fdtrack_tgid(ft, tid) == tid;
	if (dead)
		fdtab_exit(&ft->tab, fdtrack_tgid(ft, tid));
}

static void on_lost(int cpu, long long n, void *ctx)
{
	struct fdtrack *ft = ctx;
	fdtab_forget(&ft->tab);
}

/* --- the read and write family -------------------------------------------------------------- */

const struct fdtrack_rw_call fdtrack_rw_calls[FDTRACK_RW_CALLS] = {
	{"read", false},    {"pread64", false}, {"readv", false},   {"preadv", false},
	{"preadv2", false}, {"write", true},	{"pwrite64", true}, {"writev", true},
	{"pwritev", true},  {"pwritev2", true},
};

static void on_rw_enter(struct tep_record *rec, void *ctx)
{
	struct fdtrack_rw_ev *e = ctx;
	struct fdtrack *ft = e->ft;
	struct syspair_call *c =
		syspair_enter(&ft->rw, tep_data_pid(ft->t->s.tep, rec), rec->ts, e->kind);
	if (c)
		*(int *)syspair_data(c) = (int)reader_num(rec, e->fd);
}

static void on_rw_exit(struct tep_record *rec, void *ctx)
{
	struct fdtrack_rw_ev *e = ctx;
	syspair_exit(&e->ft->rw, rec, tep_data_pid(e->ft->t->s.tep, rec), reader_num(rec, e->ret));
}

static void rw_ended(const struct tep_record *rec, int tid, long long ret, void *call, void *ctx)
{
	struct fdtrack *ft = ctx;
	struct syspair_call *c = call;
	ft->rw_done(rec, tid, ret, c, *(int *)syspair_data(c), ft->rw_ctx);
}

int fdtrack_rw(struct fdtrack *ft, fdtrack_rw_fn done, void *ctx)
{
	for (int i = 0; i < FDTRACK_RW_CALLS; i++) {
		struct fdtrack_rw_ev *e = &ft->rwev[i];
		e->ft = ft;
		e->kind = i;
		e->enter = syspair_event(&ft->t->s, "enter", fdtrack_rw_calls[i].name);
		e->exit = syspair_event(&ft->t->s, "exit", fdtrack_rw_calls[i].name);
		if (!e->exit || !(e->ret = tep_find_field(e->exit, "ret")) || !e->enter ||
		    !(e->fd = tep_find_field(e->enter, "fd")))
			e->enter = NULL;
	}
	if (!ft->rwev[0].enter) {
		fprintf(stderr,
			"%s: no syscall tracepoints in this kernel "
			"(CONFIG_FTRACE_SYSCALLS, Linux 2.6.33)\n",
			ft->tool);
		return -1;
	}
	ft->rw_done = done;
	ft->rw_ctx = ctx;
	return syspair_init(&ft->rw, 4096, sizeof(int), rw_ended, ft);
}

/* --- the run ---------------------------------------------------------------------------------- */

int fdtrack_prepare(struct fdtrack *ft, struct tool_run *t, const char *tool)
{
	ft->t = t;
	ft->tool = tool;
	ft->sa.calls = opens;
	ft->sa.ncalls = (int)(sizeof(opens) / sizeof(*opens));
	ft->sa.funcs = libc_opens;
	ft->sa.nfuncs = (int)(sizeof(libc_opens) / sizeof(*libc_opens));
	ft->sa.str_size = PATH_MAX;
	ft->sa.threads = 1024;
	for (int i = 0; i < FDTRACK_CALLS; i++) {
		struct fdtrack_ev *e = &ft->ev[i];
		e->ft = ft;
		e->kind = i;
		e->enter = syspair_event(&t->s, "enter", calls[i].name);
		bool at_entry = i == K_CLOSE || i == K_CLOSE_RANGE;
		e->exit = at_entry ? NULL : syspair_event(&t->s, "exit", calls[i].name);
		if (e->exit && !(e->ret = tep_find_field(e->exit, "ret")))
			e->enter = NULL;
		for (int k = 0; k < 3 && e->enter && calls[i].f[k]; k++)
			if (!(e->f[k] = tep_find_field(e->enter, calls[i].f[k])))
				e->enter = NULL;
	}
	if (!ft->ev[K_CLOSE].enter) {
		fprintf(stderr,
			"%s: no syscall tracepoints in this kernel "
			"(CONFIG_FTRACE_SYSCALLS, Linux 2.6.33)\n",
			tool);
		return -1;
	}
	ft->newtask = session_load_event(&t->s, "task", "task_newtask");
	ft->exec = session_load_event(&t->s, "sched", "sched_process_exec");
	ft->exit = session_load_event(&t->s, "sched", "sched_process_exit");
	if (!ft->newtask || !ft->exec || !ft->exit) {
		fprintf(stderr,
			"%s: tracepoints task:task_newtask, sched:sched_process_exec "
			"and sched_process_exit needed (Linux 3.4)\n",
			tool);
		return -1;
	}
	ft->newtask_pid = tep_find_field(ft->newtask, "pid");
	ft->newtask_flags = tep_find_field(ft->newtask, "clone_flags");
	ft->exec_pid = tep_find_field(ft->exec, "pid");
	ft->exit_pid = tep_find_field(ft->exit, "pid");
	ft->exit_dead = tep_find_field(ft->exit, "group_dead"); /* 6.x; else the leader's end */
	if (fdtab_init(&ft->tab) || syspair_init(&ft->join, 1024, sizeof(struct args), ended, ft))
		return -1;
	return 0;
}

/* What was open at the start: /proc/PID/fd of the process (-p) or of every process. */
static void read_proc(struct fdtrack *ft, struct tool_run *t)
{
	if (t->o.pid) {
		fdtab_read_proc(&ft->tab, "/proc", t->o.pid);
		return;
	}
	DIR *d = opendir("/proc");
	for (struct dirent *e; d && (e = readdir(d));) {
		int pid = atoi(e->d_name);
		if (pid > 0 && pid != getpid())
			fdtab_read_proc(&ft->tab, "/proc", pid);
	}
	if (d)
		closedir(d);
}

enum tool_code fdtrack_setup(struct fdtrack *ft, struct tool_run *t)
{
	int ret;
	ft->sa.strings = "paths";
	if ((ret = sysarg_setup(&ft->sa, t, on_open, ft)))
		return ret;
	if (reader_on_lost(&t->r, syspair_lost, &ft->join) || reader_on_lost(&t->r, on_lost, ft))
		return TOOL_FAIL;
	for (int i = 0; i < FDTRACK_CALLS; i++) {
		struct fdtrack_ev *e = &ft->ev[i];
		if (!e->enter)
			continue;
		/* the exit first: an entry is kept only while its exit can be seen */
		if ((e->exit && (ret = tool_trace(t, e->exit, NULL, on_exit_call, e))) ||
		    (ret = tool_trace(t, e->enter, NULL, on_enter, e)))
			return ret;
	}
	if ((ret = tool_trace(t, ft->newtask, NULL, on_newtask, ft)) ||
	    (ret = tool_trace(t, ft->exec, NULL, on_exec, ft)) ||
	    (ret = tool_trace(t, ft->exit, NULL, on_task_exit, ft)))
		return ret;
	read_proc(ft, t);
	if (!ft->rw_done)
		return TOOL_OK;
	if (reader_on_lost(&t->r, syspair_lost, &ft->rw))
		return TOOL_FAIL;
	for (int i = 0; i < FDTRACK_RW_CALLS; i++) {
		struct fdtrack_rw_ev *e = &ft->rwev[i];
		/* the exit first: an entry is kept only while its exit can be seen */
		if (e->enter && ((ret = tool_trace(t, e->exit, NULL, on_rw_exit, e)) ||
				 (ret = tool_trace(t, e->enter, NULL, on_rw_enter, e))))
			return ret;
	}
	return TOOL_OK;
}

void fdtrack_report(const struct fdtrack *ft)
{
	const struct sysarg *sa = &ft->sa;
	/* sysarg's words are of calls shown; here the opens are not shown, their descriptors
	 * are, under a stand-in */
	uint64_t unread = sa->stringless + sa->faulted + sa->toolong;
	if (unread)
		fprintf(stderr,
			"%s: the paths of %llu opens were not read (%s): their descriptors are "
			"\"[fd N: its path not read]\"\n",
			ft->tool, (unsigned long long)unread,
			sa->via == USTR_UPROBE && sa->stringless ?
				"not made through the C library's functions" :
				"a bad address, a fault, or longer than a trace event holds");
}

void fdtrack_free(struct fdtrack *ft)
{
	sysarg_free(&ft->sa);
	syspair_free(&ft->join);
	if (ft->rw_done)
		syspair_free(&ft->rw);
	fdtab_free(&ft->tab);
}
