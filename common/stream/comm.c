// SPDX-License-Identifier: GPL-2.0-only
#include "stream/comm.h"
#include "stream/reader.h"
#include "kernel/session.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <linux/sched.h> /* CLONE_*: the same on every architecture */
#include <tracefs.h>

#define COMM_LEN 16 /* TASK_COMM_LEN: 15 bytes and a NUL, on every kernel of the matrix */

enum source { UNKNOWN, EVENT, PROC, SAVED };

struct entry {
	int32_t key; /* pid + 1; 0: empty */
	uint8_t source;
	char comm[COMM_LEN];
	int32_t tgid, ppid; /* 0: not known */
	uint64_t start_ns;  /* trace clock (CLOCK_MONOTONIC); 0: not known */
};

struct comm_table {
	struct session ns; /* the instance that records the naming events (comm_follow) */
	struct entry *e;
	uint32_t mask, used;
	struct tep_event *fork, *rename, *newtask;
	struct tep_format_field *parent_comm, *parent_pid, *child_comm, *child_pid;
	struct tep_format_field *rename_pid, *newcomm;
	struct tep_format_field *new_pid, *new_flags;
	int64_t boot_to_mono; /* CLOCK_BOOTTIME - CLOCK_MONOTONIC, ns: /proc start times */
	char *saved;	      /* saved_cmdlines, read once when first needed */
	char unknown[COMM_LEN];
};

static uint32_t hash(int32_t key)
{
	return (uint32_t)key * 2654435761u;
}

static int grow(struct comm_table *t)
{
	uint32_t n = t->mask ? (t->mask + 1) * 2 : 1024;
	struct entry *e = calloc(n, sizeof(*e));
	if (!e)
		return -1;
	for (uint32_t i = 0; t->e && i <= t->mask; i++) {
		if (!t->e[i].key)
			continue;
		uint32_t j = hash(t->e[i].key) & (n - 1);
		while (e[j].key)
			j = (j + 1) & (n - 1);
		e[j] = t->e[i];
	}
	free(t->e);
	t->e = e;
	t->mask = n - 1;
	return 0;
}

/* The entry of pid, or NULL; with create, made (empty name) when absent. */
static struct entry *slot(struct comm_table *t, int pid, bool create)
{
	int32_t key = pid + 1;
	if (create && (t->used + 1) * 2 > t->mask + 1 && grow(t))
		return NULL;
	if (!t->e)
		return NULL;
	uint32_t i = hash(key) & t->mask;
	while (t->e[i].key && t->e[i].key != key)
		i = (i + 1) & t->mask;
	if (t->e[i].key)
		return &t->e[i];
	if (!create)
		return NULL;
	memset(&t->e[i], 0, sizeof(t->e[i]));
	t->e[i].key = key;
	t->used++;
	return &t->e[i];
}

static void set(struct comm_table *t, int pid, const char *name, size_t len, enum source src)
{
	struct entry *e = slot(t, pid, true);
	if (!e)
		return;
	len = strnlen(name, len);
	if (len >= COMM_LEN)
		len = COMM_LEN - 1;
	memcpy(e->comm, name, len);
	e->comm[len] = 0;
	e->source = (uint8_t)src;
}

static void set_field(struct comm_table *t, int pid, const struct tep_record *rec,
		      const struct tep_format_field *f)
{
	size_t len;
	const char *s = reader_str(rec, f, &len);
	set(t, pid, s, len, EVENT);
}

/* A new task (process or thread) has its parent's name; its PID may have been someone
 * else's: the entry is replaced. */
void comm_on_fork(struct tep_record *rec, void *ctx)
{
	struct comm_table *t = ctx;
	set_field(t, (int)reader_num(rec, t->parent_pid), rec, t->parent_comm);
	set_field(t, (int)reader_num(rec, t->child_pid), rec, t->child_comm);
}

/* exec (the new program's name) or a rename; the task renamed is in pid, which differs from
 * the writer for pthread_setname_np on another thread (/proc/PID/task/TID/comm). */
void comm_on_rename(struct tep_record *rec, void *ctx)
{
	struct comm_table *t = ctx;
	int pid = t->rename_pid ? (int)reader_num(rec, t->rename_pid) :
				  tep_data_pid(t->rename->tep, rec);
	set_field(t, pid, rec, t->newcomm);
}

static void load_task(struct comm_table *t, int pid);

/* A new task, before its fork event: a thread (CLONE_THREAD) of its creator's process, or a
 * process whose parent is the creator's process (CLONE_PARENT: the creator's parent). */
void comm_on_newtask(struct tep_record *rec, void *ctx)
{
	struct comm_table *t = ctx;
	int creator = tep_data_pid(t->newtask->tep, rec);
	int child = (int)reader_num(rec, t->new_pid);
	unsigned long long flags = (unsigned long long)reader_num(rec, t->new_flags);
	struct entry *c = slot(t, creator, false);
	if (!c || !c->tgid) {
		load_task(t, creator);
		c = slot(t, creator, false);
	}
	/* A creator not known (gone from /proc: a fixture, or lost events) is taken for the
	 * main thread of its process, as creators mostly are. */
	int32_t tgid = c && c->tgid ? c->tgid : creator, ppid = c ? c->ppid : 0;
	char comm[COMM_LEN] = "";
	if (c)
		memcpy(comm, c->comm, COMM_LEN);
	/* All of the creator's entry copied before the child's is made: that may grow the
	 * table, and c point into the freed one (ASan, filetop over the whole machine). */
	int source = c ? c->source : UNKNOWN;
	struct entry *e = slot(t, child, true);
	if (!e)
		return;
	memcpy(e->comm, comm, COMM_LEN);
	e->source = source;
	e->tgid = flags & CLONE_THREAD ? tgid : child;
	e->ppid = flags & (CLONE_THREAD | CLONE_PARENT) ? ppid : tgid;
	e->start_ns = rec->ts;
}

/* Events lost: a rename or fork may be among them. Names are read again from /proc. */
void comm_on_lost(int cpu, long long n, void *ctx)
{
	struct comm_table *t = ctx;
	if (t->e)
		memset(t->e, 0, (size_t)(t->mask + 1) * sizeof(*t->e));
	t->used = 0;
}

/* A file of /proc, NUL-terminated, into buf; its length or -1. */
static ssize_t read_proc(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	if (n >= 0)
		buf[n] = 0;
	return n;
}

/* What /proc/TID/stat says of a task: its name (whole: between the first '(' and the last
 * ')'), parent (field 4) and start (field 22, clock ticks since boot). tgid: the process it
 * is a thread of, when the caller knows it (0: from /proc/TID/status). */
static bool from_stat(struct comm_table *t, int tid, int tgid, struct entry *out)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	if (read_proc(path, buf, sizeof(buf)) <= 0)
		return false;
	char *open_ = strchr(buf, '('), *close_ = strrchr(buf, ')');
	if (!open_ || !close_ || close_ < open_)
		return false;
	size_t len = (size_t)(close_ - open_ - 1);
	memset(out->comm, 0, COMM_LEN);
	memcpy(out->comm, open_ + 1, len < COMM_LEN ? len : COMM_LEN - 1);
	char *p = close_;
	unsigned long long start = 0;
	for (int field = 2; p && field < 22; field++) {
		p = strchr(p + 1, ' ');
		if (p && field == 3)
			out->ppid = (int32_t)strtol(p + 1, NULL, 10);
	}
	if (p)
		start = strtoull(p + 1, NULL, 10);
	long hz = sysconf(_SC_CLK_TCK);
	int64_t boot_ns =
		(int64_t)(start * (1000000000ULL / (unsigned long long)(hz > 0 ? hz : 100)));
	out->start_ns = boot_ns > t->boot_to_mono ? (uint64_t)(boot_ns - t->boot_to_mono) : 1;
	out->tgid = tgid;
	if (!tgid) {
		snprintf(path, sizeof(path), "/proc/%d/status", tid);
		const char *tg =
			read_proc(path, buf, sizeof(buf)) > 0 ? strstr(buf, "\nTgid:") : NULL;
		out->tgid = tg ? (int32_t)strtol(tg + 6, NULL, 10) : tid;
	}
	return true;
}

/* saved_cmdlines ("PID NAME" per line, best effort and never cleared): only for a task that
 * existed before the run and exited before its first event was read. */
static bool from_saved(struct comm_table *t, int pid, const char **name, size_t *len)
{
	if (!t->saved && !(t->saved = tracefs_instance_file_read(NULL, "saved_cmdlines", NULL)))
		t->saved = strdup("");
	/* Each line's PID read here, digit by digit: strtol and strchr on what is left of a
	 * buffer of thousands of lines each look at all of it under ASan's strict string
	 * checks (make check SANITIZE=1: test_comm took 12 minutes). */
	for (const char *l = t->saved; l && *l;) {
		long long p = 0;
		const char *c = l;
		for (; *c >= '0' && *c <= '9'; c++)
			p = p < 1LL << 40 ? p * 10 + (*c - '0') : p;
		const char *eol = c;
		while (*eol && *eol != '\n')
			eol++;
		if (c > l && p == pid && *c == ' ') {
			*name = c + 1;
			*len = (size_t)(eol - *name);
			return true;
		}
		l = *eol ? eol + 1 : NULL;
	}
	return false;
}

/* A task first seen now (not in the snapshot, nor in the events: after a loss). */
static void load_task(struct comm_table *t, int pid)
{
	struct entry got = {0};
	const char *name = NULL;
	size_t len = 0;
	if (pid == 0) { /* the swapper tasks: named alike in every kernel's own output */
		struct entry *e = slot(t, 0, true);
		if (e) {
			strcpy(e->comm, "<idle>");
			e->source = PROC;
		}
		return;
	}
	if (from_stat(t, pid, 0, &got)) {
		struct entry *e = slot(t, pid, true);
		if (e) {
			got.key = e->key;
			got.source = PROC;
			*e = got;
		}
		return;
	}
	if (from_saved(t, pid, &name, &len))
		set(t, pid, name, len, SAVED);
}

const char *comm_get(struct comm_table *t, int pid)
{
	struct entry *e = slot(t, pid, false);
	if (!e) {
		load_task(t, pid);
		e = slot(t, pid, false);
	}
	return e && e->comm[0] ? e->comm : strcpy(t->unknown, "<...>");
}

int comm_task(struct comm_table *t, int pid, struct comm_task *info)
{
	struct entry *e = slot(t, pid, false);
	if (!e || !e->tgid) {
		load_task(t, pid);
		e = slot(t, pid, false);
	}
	if (!e || !e->tgid)
		return -1;
	info->tgid = e->tgid;
	info->ppid = e->ppid;
	info->start_ns = e->start_ns;
	return 0;
}

int comm_source(struct comm_table *t, int pid)
{
	struct entry *e = slot(t, pid, false);
	return e ? e->source : UNKNOWN;
}

struct comm_table *comm_new(struct tep_event *fork, struct tep_event *rename,
			    struct tep_event *newtask)
{
	struct comm_table *t = calloc(1, sizeof(*t));
	if (!t || grow(t)) {
		free(t);
		return NULL;
	}
	t->ns.hold_fd = -1;
	t->ns.emergency = -1;
	t->fork = fork;
	t->rename = rename;
	if (fork) {
		t->parent_comm = tep_find_field(fork, "parent_comm");
		t->parent_pid = tep_find_field(fork, "parent_pid");
		t->child_comm = tep_find_field(fork, "child_comm");
		t->child_pid = tep_find_field(fork, "child_pid");
		if (!t->parent_comm || !t->parent_pid || !t->child_comm || !t->child_pid)
			t->fork = NULL;
	}
	if (newtask) {
		t->new_pid = tep_find_field(newtask, "pid");
		t->new_flags = tep_find_field(newtask, "clone_flags");
		if (t->new_pid && t->new_flags)
			t->newtask = newtask;
	}
	struct timespec b, m;
	clock_gettime(CLOCK_BOOTTIME, &b);
	clock_gettime(CLOCK_MONOTONIC, &m);
	t->boot_to_mono = ((int64_t)b.tv_sec - m.tv_sec) * 1000000000LL + (b.tv_nsec - m.tv_nsec);
	if (rename) {
		/* absent: the writer renamed itself */
		t->rename_pid = tep_find_field(rename, "pid");
		t->newcomm = tep_find_field(rename, "newcomm");
		if (!t->newcomm)
			t->rename = NULL;
	}
	return t;
}

/* The threads of process pid (0: of every process) now, from /proc: name, process, parent
 * and start. */
static void snapshot(struct comm_table *t, pid_t pid)
{
	char path[64];
	DIR *procs = pid ? NULL : opendir("/proc");
	struct dirent *p = NULL;
	while (pid || (procs && (p = readdir(procs)))) {
		int proc = pid ? (int)pid : atoi(p->d_name);
		if (proc > 0) {
			snprintf(path, sizeof(path), "/proc/%d/task", proc);
			DIR *tasks = opendir(path);
			struct dirent *th;
			while (tasks && (th = readdir(tasks))) {
				int tid = atoi(th->d_name);
				struct entry got = {0};
				struct entry *e;
				if (tid > 0 && from_stat(t, tid, proc, &got) &&
				    (e = slot(t, tid, true))) {
					got.key = e->key;
					got.source = PROC;
					*e = got;
				}
			}
			if (tasks)
				closedir(tasks);
		}
		if (pid)
			break;
	}
	if (procs)
		closedir(procs);
}

const char *const comm_format_sys[COMM_NFORMATS] = {"sched", "task", "task"};
const char *const comm_format_names[COMM_NFORMATS] = {"sched_process_fork", "task_rename",
						      "task_newtask"};

struct comm_table *comm_follow(struct session *s, pid_t pid, pid_t tid)
{
	/* At once: the parser's trial (format.c, a child process) runs once for the three
	 * (and none here when the driver preloaded them with the tool's). */
	session_load_events(s, COMM_NFORMATS, comm_format_sys, comm_format_names);
	struct tep_event *fork = session_load_event(s, "sched", "sched_process_fork");
	struct tep_event *rename = session_load_event(s, "task", "task_rename");
	struct tep_event *newtask = session_load_event(s, "task", "task_newtask");
	struct comm_table *t = comm_new(fork, rename, newtask);
	char filter[128];
	if (!t) {
		fprintf(stderr, "%s: out of memory for the task names\n", s->tool);
		return NULL;
	}
	if (!t->fork || !t->rename) {
		fprintf(stderr,
			"%s: no %s event in this kernel to follow task names "
			"(CONFIG_EVENT_TRACING)\n",
			s->tool, t && t->fork ? "task:task_rename" : "sched:sched_process_fork");
		comm_free(t);
		return NULL;
	}
	/* An instance of their own: the tool's keeps exactly the user's events (its losses are
	 * counted exactly; a user's filter on fork events cannot hide names), the two merged in
	 * time order by the reader (same trace clock). */
	session_init_shared(&t->ns, s->tool, "names", s->tep);
	t->ns.keep_clock = s->keep_clock;
	/* The tool's clock: mono where it was switched (no local there, or one asked for),
	 * else local as it kept (the reader maps both by the tool's pairing). */
	t->ns.want_mono = !s->clock_mapped;
	if (session_start(&t->ns, comm_buffer_kb()) ||
	    session_filter(&t->ns, filter, sizeof(filter), NULL, NULL) ||
	    (t->newtask && session_enable(&t->ns, t->newtask, filter)) ||
	    session_enable(&t->ns, t->fork, filter) || session_enable(&t->ns, t->rename, filter)) {
		comm_free(t);
		return NULL;
	}
	/* The tasks that exist now, after the naming events are on and before the tool's are:
	 * a rename before this read is in the name read, one after it in the events, and no
	 * event of the tool comes before it. (Named when first seen instead, a task renamed
	 * between its event and the lookup showed its later name.) */
	if (tid)
		load_task(t, (int)tid);
	else
		snapshot(t, pid);
	return t;
}

size_t comm_buffer_kb(void)
{
	return sysconf(_SC_NPROCESSORS_CONF) > COMM_SHRINK_CPUS ? COMM_BUFFER_KB : 0;
}

size_t comm_buffer_kb_said(void)
{
	return comm_buffer_kb() ? COMM_BUFFER_KB : SESSION_DEFAULT_BUFFER_KB;
}

int comm_attach(struct comm_table *t, struct reader *r)
{
	if ((t->newtask && reader_on(r, t->newtask, comm_on_newtask, t)) ||
	    reader_on(r, t->fork, comm_on_fork, t) || reader_on(r, t->rename, comm_on_rename, t))
		return -1;
	if (!t->ns.inst) /* a fixture tree: the naming events are among the others */
		return reader_on_lost(r, comm_on_lost, t);
	int src = reader_add_session(r, &t->ns, "task-naming events");
	return src < 0 ? -1 : reader_on_lost_of(r, src, comm_on_lost, t);
}

int comm_free(struct comm_table *t)
{
	if (!t)
		return 0;
	int ret = session_close(&t->ns);
	free(t->e);
	free(t->saved);
	free(t);
	return ret;
}
