// SPDX-License-Identifier: GPL-2.0-only
/*
 * filetop: the files read and written most, a table every interval: process, reads, writes,
 * KB read and written, type and name. From the syscall tracepoints alone (no kprobes on this
 * kind of kernel): each read/write call's entry (the descriptor) and exit (the bytes), and
 * each descriptor named from the event stream by fdtab.h: the opens with their path (read
 * by sysarg.h's ladder, as statsnoop reads its paths), dup, dup2, dup3, fcntl F_DUPFD,
 * close, close_range, exec, fork and exit, and /proc/PID/fd for what was open at the start.
 * A descriptor never seen made is shown as such ("[fd N: not seen opened]"), never by a
 * name it may no longer have.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dirent.h>
#include <event-parse.h>

#include "stream/comm.h"
#include "domain/fdtab.h"
#include "base/out.h"
#include "count/prom.h"
#include "stream/reader.h"
#include "base/row.h"
#include "domain/sysarg.h"
#include "join/sysc.h"
#include "tool.h"

/* The calls joined here (the opens are sysarg's), the entry's fields each needs. */
enum kind { K_READ, K_WRITE, K_DUP, K_DUP2, K_DUP3, K_FCNTL, K_CLOSE, K_CLOSE_RANGE };
static const struct call {
	const char *name;
	enum kind kind;
	const char *f[3];
} calls[] = {
	{"read", K_READ, {"fd"}},
	{"pread64", K_READ, {"fd"}},
	{"readv", K_READ, {"fd"}},
	{"preadv", K_READ, {"fd"}},
	{"preadv2", K_READ, {"fd"}},
	{"write", K_WRITE, {"fd"}},
	{"pwrite64", K_WRITE, {"fd"}},
	{"writev", K_WRITE, {"fd"}},
	{"pwritev", K_WRITE, {"fd"}},
	{"pwritev2", K_WRITE, {"fd"}},
	{"dup", K_DUP, {"fildes"}},
	{"dup2", K_DUP2, {"oldfd", "newfd"}},
	{"dup3", K_DUP3, {"oldfd", "newfd", "flags"}},
	{"fcntl", K_FCNTL, {"fd", "cmd", "arg"}},
	{"close", K_CLOSE, {"fd"}},
	{"close_range", K_CLOSE_RANGE, {"fd", "max_fd", "flags"}},
};
#define NCALLS (int)(sizeof(calls) / sizeof(*calls))

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

enum sort { S_ALL, S_READS, S_WRITES, S_RBYTES, S_WBYTES };
static const char *const sort_names[] = {"all", "reads", "writes", "rbytes", "wbytes"};

static struct env {
	bool all;	/* -a */
	bool no_clear;	/* -C */
	long long rows; /* -r */
	enum sort sort; /* -s */
	bool clearing;
	struct tool_run *t;
	struct sysarg sa;
	struct sysc join;
	struct fdtab tab;
	struct ev {
		struct tep_event *enter, *exit;
		struct tep_format_field *f[3], *ret;
	} ev[NCALLS];
	struct tep_event *newtask, *exec, *exit;
	struct tep_format_field *newtask_pid, *newtask_flags, *exec_pid, *exit_pid, *exit_dead;
	struct fdtab_file **used; /* files read or written this interval, each held */
	size_t nused, capused;
	uint64_t unnamed; /* calls on descriptors not seen made, this run */
	struct row row;
	struct prom_set prom[2]; /* --prom: every shown file's reads, writes from the start */
	uint64_t prom_lost;	 /* rows not kept for --prom: out of memory */
} env = {.rows = 20,
	 .sa = {.calls = opens,
		.ncalls = 4,
		.funcs = libc_opens,
		.nfuncs = sizeof(libc_opens) / sizeof(*libc_opens),
		.str_size = PATH_MAX,
		.threads = 1024,
		.via = USTR_BEST}};

enum { OPT_VIA = OPT_LONG + 1 };

static const struct opt_spec options[] = {
	{'a', NULL, NULL, "all file types (default: regular files only)", 0},
	{'C', NULL, NULL, "do not clear the screen between tables", 0},
	TOOL_DURATION,
	TOOL_JSON("one JSON object per row"),
	TOOL_PID,
	{'r', NULL, "ROWS", "print at most ROWS rows a table (default 20; 0: all)", 0},
	{'s', NULL, "SORT", "sort by all (bytes, the default), reads, writes, rbytes or\nwbytes",
	 0},
	{OPT_VIA, "via", "MECH",
	 "how to read paths: kprobe, eprobe or uprobe (default: the best the\nkernel offers)", 0},
	TOOL_JSON_KEYS,
	TOOL_EXEC,
	TOOL_PROM,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"filetop                   # every second, the top 20 regular files",
	"filetop -a -C 5           # every 5 seconds, all types, the screen not cleared",
	"filetop -s reads -r 10    # the 10 files read most often",
	"filetop -p 181 -j 1 10 > f.json  # PID 181's, ten seconds of JSON lines",
	"filetop -C --prom filetop.prom 15 > /dev/null # counters for node_exporter",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case 'a': env.all = true; break;
	case 'C': env.no_clear = true; break;
	case 'r': env.rows = opt_int(arg, 0, 1LL << 30, "ROWS"); break;
	case 's': env.sort = opt_choice(arg, sort_names, 5, "-s"); break;
	case OPT_VIA: env.sa.via = opt_choice(arg, ustr_via_names, USTR_BEST, "--via"); break;
	}
}

/* --- the tables ----------------------------------------------------------------------------- */

static int tgid_of(int tid)
{
	struct comm_task ti;
	return comm_task(env.t->names, tid, &ti) ? tid : ti.tgid;
}

/* The type of what fd became by an open of path: looked at now, after the open, so only
 * trusted when fd still leads to a name that ends with the path; else what an absolute path
 * leads to now; else not known. Only the type: the name is the open's. */
static char late_type(int tgid, int fd, const char *path, size_t len)
{
	char link[PATH_MAX + 64], target[PATH_MAX];
	struct stat st;
	snprintf(link, sizeof(link), "/proc/%d/fd/%d", tgid, fd);
	ssize_t n = readlink(link, target, sizeof(target));
	if (n > 0 && (size_t)n < sizeof(target) && (size_t)n >= len &&
	    !memcmp(target + n - len, path, len) && !stat(link, &st))
		return fdtab_type(st.st_mode);
	/* gone (a process that ended): what an absolute path leads to now */
	if (path[0] == '/' && !memchr(path, 0, len) && !stat(path, &st))
		return fdtab_type(st.st_mode);
	return '?';
}

static void on_open(const struct tep_record *exit, int tid, const struct sysarg_done *d, void *ctx)
{
	if (d->ret < 0)
		return;
	int tgid = tgid_of(tid), fd = (int)d->ret;
	size_t len = 0;
	const char *path = sysarg_str(&env.sa, d, 0, &len);
	struct sysarg_strinfo info;
	sysarg_str_info(&env.sa, d, 0, &info);
	/* openat2's flags are in user memory: taken as close-on-exec, so that an exec forgets
	 * it (unknown after, rather than a name it may no longer have) */
	long long flags = d->call == O_OPEN ? d->args[1] : d->call == O_OPENAT ? d->args[2] : 0;
	bool cloexec = d->call == O_OPENAT2 || !d->have_args || (flags & O_CLOEXEC);
	if (!path || info.cut) {
		/* not read, or not whole: a stand-in that says so */
		char name[96];
		int n = snprintf(name, sizeof(name), "[fd %d: its path not read]", fd);
		struct fdtab_file *f =
			fdtab_open(&env.tab, tgid, fd, name, (size_t)n, '?', cloexec);
		if (f)
			f->unnamed = true;
		return;
	}
	fdtab_open(&env.tab, tgid, fd, path, len, late_type(tgid, fd, path, len), cloexec);
}

struct args {
	long long a[3];
};

static void on_enter(struct tep_record *rec, void *ctx)
{
	struct ev *e = ctx;
	int i = (int)(e - env.ev), tid = tep_data_pid(env.t->s.tep, rec);
	long long a[3] = {0, 0, 0};
	for (int k = 0; k < 3; k++)
		if (e->f[k])
			a[k] = reader_num(rec, e->f[k]);
	if (calls[i].kind == K_CLOSE) {
		fdtab_close(&env.tab, tgid_of(tid), (int)a[0]);
		return;
	}
	if (calls[i].kind == K_CLOSE_RANGE) {
		/* CLOSE_RANGE_CLOEXEC (1 << 2) marks instead of closing */
		fdtab_close_range(&env.tab, tgid_of(tid), (unsigned)a[0], (unsigned)a[1],
				  a[2] & (1 << 2));
		return;
	}
	struct sysc_call *c = sysc_enter(&env.join, tid, rec->ts, i);
	if (c)
		memcpy(sysc_data(c), a, sizeof(a));
}

static void on_exit_call(struct tep_record *rec, void *ctx)
{
	struct ev *e = ctx;
	sysc_exit(&env.join, rec, tep_data_pid(env.t->s.tep, rec), reader_num(rec, e->ret));
}

static void use(struct fdtab_file *f, int tid, bool write, long long bytes)
{
	if (!f->listed) {
		if (env.nused == env.capused) {
			size_t cap = env.capused ? env.capused * 2 : 256;
			struct fdtab_file **more = realloc(env.used, cap * sizeof(*more));
			if (!more)
				return;
			env.used = more;
			env.capused = cap;
		}
		fdtab_hold(f);
		f->listed = true;
		env.used[env.nused++] = f;
	}
	snprintf(f->comm, sizeof(f->comm), "%s", tool_comm(env.t, tid));
	if (write) {
		f->writes++;
		f->wbytes += (uint64_t)bytes;
	} else {
		f->reads++;
		f->rbytes += (uint64_t)bytes;
	}
}

static void ended(const struct tep_record *rec, int tid, long long ret, void *call, void *ctx)
{
	struct sysc_call *c = call;
	const long long *a = ((struct args *)sysc_data(c))->a;
	int tgid = tgid_of(tid);
	switch (calls[c->kind].kind) {
	case K_READ:
	case K_WRITE: {
		if (ret < 0)
			return;
		struct fdtab_file *f = fdtab_get(&env.tab, tgid, (int)a[0]);
		if (!f) {
			/* a stand-in, kept until the descriptor is closed or made again */
			char name[96];
			int n = snprintf(name, sizeof(name), "[fd %d: not seen opened]", (int)a[0]);
			if ((f = fdtab_open(&env.tab, tgid, (int)a[0], name, (size_t)n, '?', true)))
				f->unnamed = true;
			env.unnamed++;
		}
		if (f)
			use(f, tid, calls[c->kind].kind == K_WRITE, ret);
		break;
	}
	case K_DUP:
		if (ret >= 0)
			fdtab_dup(&env.tab, tgid, (int)a[0], (int)ret, false);
		break;
	case K_DUP2:
	case K_DUP3:
		/* dup2(fd, fd) changes nothing, its close-on-exec flag included */
		if (ret >= 0 && a[0] != a[1])
			fdtab_dup(&env.tab, tgid, (int)a[0], (int)ret,
				  calls[c->kind].kind == K_DUP3 && (a[2] & O_CLOEXEC));
		break;
	case K_FCNTL:
		if (ret >= 0 && (a[1] == F_DUPFD || a[1] == F_DUPFD_CLOEXEC))
			fdtab_dup(&env.tab, tgid, (int)a[0], (int)ret, a[1] == F_DUPFD_CLOEXEC);
		else if (ret >= 0 && a[1] == F_SETFD)
			fdtab_set_cloexec(&env.tab, tgid, (int)a[0], a[2] & FD_CLOEXEC);
		break;
	default: break;
	}
}

/* A new task: a thread shares its process's table; a process gets a copy of its parent's;
 * one that shares it without being a thread (CLONE_FILES alone) makes both unknowable. */
static void on_newtask(struct tep_record *rec, void *ctx)
{
	unsigned long long flags = (unsigned long long)reader_num(rec, env.newtask_flags);
	int parent = tgid_of(tep_data_pid(env.t->s.tep, rec)),
	    child = (int)reader_num(rec, env.newtask_pid);
	if (flags & 0x00010000) /* CLONE_THREAD */
		return;
	if (flags & 0x00000400) { /* CLONE_FILES */
		fdtab_exit(&env.tab, parent);
		fdtab_exit(&env.tab, child);
		return;
	}
	fdtab_fork(&env.tab, parent, child);
}

static void on_exec(struct tep_record *rec, void *ctx)
{
	fdtab_exec(&env.tab, (int)reader_num(rec, env.exec_pid));
}

static void on_task_exit(struct tep_record *rec, void *ctx)
{
	int tid = (int)reader_num(rec, env.exit_pid);
	bool dead = env.exit_dead ? reader_num(rec, env.exit_dead) != 0 : tgid_of(tid) == tid;
	if (dead)
		fdtab_exit(&env.tab, tgid_of(tid));
}

static void on_lost(int cpu, long long n, void *ctx)
{
	fdtab_forget(&env.tab);
}

/* --- the run -------------------------------------------------------------------------------- */

static const struct row_col cols[] = {
	ROW_COL_WHEN,
	{"PID", "pid", 7, ROW_INT, 0, 0, "the process"},
	{"COMM", "comm", -16, ROW_STR, 0, 0, "its name, at its last read or write of the file"},
	{"READS", "reads", 6, ROW_UINT, 0, 0, "read calls that returned (0 bytes too)"},
	{"WRITES", "writes", 6, ROW_UINT, 0, 0, "write calls that returned"},
	{"R_KB", NULL, 8, ROW_UINT, 0, ROW_NOJSON, NULL},
	{"W_KB", NULL, 8, ROW_UINT, 0, ROW_NOJSON, NULL},
	{NULL, "read_bytes", 0, ROW_UINT, 0, ROW_NOTEXT, "bytes read"},
	{NULL, "write_bytes", 0, ROW_UINT, 0, ROW_NOTEXT, "bytes written"},
	{"T", "type", 1, ROW_WORD, 0, 0,
	 "R a regular file, S a socket, O other, ? not known (looked at too late)"},
	{"FILE", "file", -4, ROW_STR, 0, 0,
	 "the path as opened (or /proc's name of a file open at the start); a descriptor not "
	 "seen made: \"[fd N: not seen opened]\""},
	{NULL, "named", 0, ROW_JSON, 0, ROW_NOTEXT,
	 "false when file is such a stand-in, not a name"},
};
static const struct row_table table = ROW_TABLE("each file, each interval", cols);

static int prepare(struct tool_run *t)
{
	env.t = t;
	for (int i = 0; i < NCALLS; i++) {
		struct ev *e = &env.ev[i];
		e->enter = sysc_event(&t->s, "enter", calls[i].name);
		bool at_entry = calls[i].kind == K_CLOSE || calls[i].kind == K_CLOSE_RANGE;
		e->exit = at_entry ? NULL : sysc_event(&t->s, "exit", calls[i].name);
		if (e->exit && !(e->ret = tep_find_field(e->exit, "ret")))
			e->enter = NULL;
		for (int k = 0; k < 3 && e->enter && calls[i].f[k]; k++)
			if (!(e->f[k] = tep_find_field(e->enter, calls[i].f[k])))
				e->enter = NULL;
	}
	if (!env.ev[0].enter || !env.ev[0].exit) {
		fprintf(stderr, "filetop: no syscall tracepoints in this kernel "
				"(CONFIG_FTRACE_SYSCALLS, Linux 2.6.33)\n");
		return TOOL_FAIL;
	}
	env.newtask = session_load_event(&t->s, "task", "task_newtask");
	env.exec = session_load_event(&t->s, "sched", "sched_process_exec");
	env.exit = session_load_event(&t->s, "sched", "sched_process_exit");
	if (!env.newtask || !env.exec || !env.exit) {
		fprintf(stderr, "filetop: tracepoints task:task_newtask, sched:sched_process_exec "
				"and sched_process_exit needed (Linux 3.4)\n");
		return TOOL_FAIL;
	}
	env.newtask_pid = tep_find_field(env.newtask, "pid");
	env.newtask_flags = tep_find_field(env.newtask, "clone_flags");
	env.exec_pid = tep_find_field(env.exec, "pid");
	env.exit_pid = tep_find_field(env.exit, "pid");
	env.exit_dead = tep_find_field(env.exit, "group_dead"); /* 6.x; else the leader's end */
	if (fdtab_init(&env.tab) || sysc_init(&env.join, 4096, sizeof(struct args), ended, NULL))
		return TOOL_FAIL;
	t->buffer_kb = session_flood_buffer_kb();
	return TOOL_OK;
}

/* What was open at the start: /proc/PID/fd of the process (-p) or of every process. */
static void read_proc(struct tool_run *t)
{
	if (t->o.pid) {
		fdtab_read_proc(&env.tab, "/proc", t->o.pid);
		return;
	}
	DIR *d = opendir("/proc");
	for (struct dirent *e; d && (e = readdir(d));) {
		int pid = atoi(e->d_name);
		if (pid > 0 && pid != getpid())
			fdtab_read_proc(&env.tab, "/proc", pid);
	}
	if (d)
		closedir(d);
}

static int setup(struct tool_run *t)
{
	int ret;
	row_init(&env.row, &table, stdout, t->o.json, false, false);
	env.clearing = !t->o.json && !env.no_clear && isatty(STDOUT_FILENO);
	env.sa.strings = "paths";
	if ((ret = sysarg_setup(&env.sa, t, on_open, NULL)))
		return ret;
	if (reader_on_lost(&t->r, sysc_lost, &env.join) || reader_on_lost(&t->r, on_lost, NULL))
		return TOOL_FAIL;
	for (int i = 0; i < NCALLS; i++) {
		struct ev *e = &env.ev[i];
		if (!e->enter)
			continue;
		/* the exit first: an entry is kept only while its exit can be seen */
		if ((e->exit && (ret = tool_trace(t, e->exit, NULL, on_exit_call, e))) ||
		    (ret = tool_trace(t, e->enter, NULL, on_enter, e)))
			return ret;
	}
	if ((ret = tool_trace(t, env.newtask, NULL, on_newtask, NULL)) ||
	    (ret = tool_trace(t, env.exec, NULL, on_exec, NULL)) ||
	    (ret = tool_trace(t, env.exit, NULL, on_task_exit, NULL)))
		return ret;
	read_proc(t);
	snprintf(t->traced, sizeof(t->traced), "reads and writes by file, paths via %s",
		 env.sa.what);
	return TOOL_OK;
}

static uint64_t key(const struct fdtab_file *f)
{
	switch (env.sort) {
	case S_READS: return f->reads;
	case S_WRITES: return f->writes;
	case S_RBYTES: return f->rbytes;
	case S_WBYTES: return f->wbytes;
	default: return f->rbytes + f->wbytes;
	}
}

static int by_key(const void *a, const void *b)
{
	const struct fdtab_file *x = *(struct fdtab_file *const *)a,
				*y = *(struct fdtab_file *const *)b;
	uint64_t kx = key(x), ky = key(y);
	if (kx != ky)
		return kx < ky ? 1 : -1;
	if (x->reads + x->writes != y->reads + y->writes)
		return x->reads + x->writes < y->reads + y->writes ? 1 : -1;
	return x->tgid - y->tgid;
}

static bool shown(const struct fdtab_file *f)
{
	return env.all || f->type == 'R' || (f->type == '?' && !f->unnamed);
}

/* --prom: a file's interval added to its series (by process, name, type and path): reads
 * and their bytes in one set, writes and theirs in the other, the same labels in both. */
static void prom_add(const struct fdtab_file *f)
{
	/* a path of PATH_MAX bytes, each escaped to at most 3 (U+FFFD) */
	static char labels[3 * PATH_MAX + 256];
	char pid[16], type[2] = {f->type, 0};
	char comm[sizeof(f->comm) + 1];
	snprintf(pid, sizeof(pid), "%d", f->tgid);
	snprintf(comm, sizeof(comm), "%.*s", (int)sizeof(f->comm), f->comm);
	/* the name is len bytes and a NUL: one with a NUL in it (never a path) is cut there */
	prom_labels(labels, sizeof(labels), "pid", pid, "comm", comm, "type", type, "file", f->name,
		    NULL);
	struct prom_series *r = prom_series(&env.prom[0], labels),
			   *w = r ? prom_series(&env.prom[1], labels) : NULL;
	if (!w) {
		env.prom_lost++;
		return;
	}
	r->count += f->reads;
	r->sum += f->rbytes;
	w->count += f->writes;
	w->sum += f->wbytes;
}

/* --prom: the totals written, four counters a file. */
static void prom_write(struct tool_run *t)
{
	struct prom *p = tool_prom(t);
	if (!p)
		return;
	static const char *const names[] = {
		"ftrace_tools_filetop_reads_total", "ftrace_tools_filetop_writes_total",
		"ftrace_tools_filetop_read_bytes_total", "ftrace_tools_filetop_write_bytes_total"};
	static const char *const helps[] = {
		"Read calls that returned, by process, file type and file.",
		"Write calls that returned, by process, file type and file.",
		"Bytes those reads returned.", "Bytes those writes returned."};
	for (int k = 0; k < 4; k++) {
		const struct prom_set *set = &env.prom[k % 2];
		prom_family(p, names[k], "counter", helps[k]);
		for (size_t i = 0; i < set->n; i++)
			prom_uint(p, names[k], set->s[i]->labels,
				  k < 2 ? set->s[i]->count : set->s[i]->sum);
	}
	prom_commit(p);
}

static int interval(struct tool_run *t, uint64_t now)
{
	char when[16], type[2] = "";
	out_wallclock(now, when);
	qsort(env.used, env.nused, sizeof(*env.used), by_key);
	if (!t->o.json) {
		if (env.clearing)
			fputs("\033[H\033[2J", stdout);
		else
			out_table_gap(stdout);
		printf("%s\n", when);
		row_header(&env.row);
	}
	long long printed = 0;
	for (size_t i = 0; i < env.nused; i++) {
		struct fdtab_file *f = env.used[i];
		if (t->prom && shown(f))
			prom_add(f);
		if (shown(f) && (!env.rows || printed < env.rows)) {
			printed++;
			struct row *r = &env.row;
			row_begin(r, 0);
			row_word(r, when);
			row_int(r, f->tgid);
			row_str(r, f->comm, sizeof(f->comm));
			row_uint(r, f->reads);
			row_uint(r, f->writes);
			row_uint(r, f->rbytes / 1024);
			row_uint(r, f->wbytes / 1024);
			row_uint(r, f->rbytes);
			row_uint(r, f->wbytes);
			type[0] = f->type;
			row_word(r, type);
			if (f->unnamed)
				row_word(r, f->name);
			else
				row_bytes(r, f->name, f->len);
			FILE *j = row_json(r);
			if (j)
				fputs(f->unnamed ? "false" : "true", j);
			row_end(r);
		}
		f->reads = f->writes = f->rbytes = f->wbytes = 0;
		f->listed = false;
		fdtab_put(f);
	}
	env.nused = 0;
	if (t->prom)
		prom_write(t);
	if (env.prom_lost) {
		fprintf(stderr,
			"filetop: WARNING: %llu files not counted in --prom's file (out "
			"of memory)\n",
			(unsigned long long)env.prom_lost);
		env.prom_lost = 0;
	}
	fflush(stdout);
	return 0;
}

static void end(struct tool_run *t)
{
	if (!t->last_interval)
		interval(t, reader_now());
	sysarg_report(&env.sa);
}

static void cleanup(struct tool_run *t)
{
	for (size_t i = 0; i < env.nused; i++)
		fdtab_put(env.used[i]);
	free(env.used);
	sysarg_free(&env.sa);
	sysc_free(&env.join);
	fdtab_free(&env.tab);
	prom_set_free(&env.prom[0]);
	prom_set_free(&env.prom[1]);
}

static const struct tool filetop = {
	.name = "filetop",
	.opts = options,
	.operand_kind = TOOL_OPERAND_INTERVALS,
	.interval_prints = "tables",
	.interval_default_s = 1,
	.examples = examples,
	.rows = (const struct row_table *const[]){&table, NULL},
	.option = option,
	.prepare = prepare,
	.setup = setup,
	.interval = interval,
	.end = end,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&filetop, argc, argv);
}
