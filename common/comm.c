// SPDX-License-Identifier: GPL-2.0-only
#include "comm.h"
#include "reader.h"
#include "session.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#define COMM_LEN 16 /* TASK_COMM_LEN: 15 bytes and a NUL, on every kernel of the matrix */

enum source { UNKNOWN, EVENT, PROC, SAVED };

struct entry {
	int32_t key; /* pid + 1; 0: empty */
	uint8_t source;
	char comm[COMM_LEN];
};

struct comm_table {
	struct session ns; /* the instance that records the naming events (comm_follow) */
	struct entry *e;
	uint32_t mask, used;
	struct tep_event *fork, *rename;
	struct tep_format_field *parent_comm, *parent_pid, *child_comm, *child_pid;
	struct tep_format_field *rename_pid, *newcomm;
	char *saved; /* saved_cmdlines, read once when first needed */
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
	t->e[i].key = key;
	t->e[i].source = UNKNOWN;
	t->e[i].comm[0] = 0;
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

/* Events lost: a rename or fork may be among them. Names are read again from /proc. */
void comm_on_lost(int cpu, long long n, void *ctx)
{
	struct comm_table *t = ctx;
	(void)cpu;
	(void)n;
	if (t->e)
		memset(t->e, 0, (size_t)(t->mask + 1) * sizeof(*t->e));
	t->used = 0;
}

/* /proc/PID/comm holds the name and a newline; a name may hold a newline of its own. */
static bool from_proc(int pid, char *buf, size_t *len)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, COMM_LEN + 1);
	close(fd);
	if (n <= 0)
		return false;
	if (buf[n - 1] == '\n')
		n--;
	*len = (size_t)n;
	return true;
}

/* saved_cmdlines ("PID NAME" per line, best effort and never cleared): only for a task that
 * existed before the run and exited before its first event was read. */
static bool from_saved(struct comm_table *t, int pid, const char **name, size_t *len)
{
	if (!t->saved && !(t->saved = tracefs_instance_file_read(NULL, "saved_cmdlines", NULL)))
		t->saved = strdup("");
	for (const char *l = t->saved; l && *l;) {
		char *end;
		long p = strtol(l, &end, 10);
		const char *eol = strchr(l, '\n');
		if (p == pid && *end == ' ') {
			*name = end + 1;
			*len = eol ? (size_t)(eol - *name) : strlen(*name);
			return true;
		}
		l = eol ? eol + 1 : NULL;
	}
	return false;
}

const char *comm_get(struct comm_table *t, int pid)
{
	struct entry *e = slot(t, pid, false);
	if (e)
		return e->comm;
	char buf[COMM_LEN + 2];
	const char *name = buf;
	size_t len;
	enum source src = PROC;
	if (pid == 0) {
		name = "<idle>"; /* the swapper tasks: named alike in every kernel's own output */
		len = 6;
	} else if (!from_proc(pid, buf, &len)) {
		src = SAVED;
		if (!from_saved(t, pid, &name, &len))
			return strcpy(t->unknown, "<...>");
	}
	set(t, pid, name, len, src);
	e = slot(t, pid, false);
	return e ? e->comm : strcpy(t->unknown, "<...>");
}

int comm_source(struct comm_table *t, int pid)
{
	struct entry *e = slot(t, pid, false);
	return e ? e->source : UNKNOWN;
}

struct comm_table *comm_new(struct tep_event *fork, struct tep_event *rename)
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
	if (rename) {
		t->rename_pid =
			tep_find_field(rename, "pid"); /* absent: the writer renamed itself */
		t->newcomm = tep_find_field(rename, "newcomm");
		if (!t->newcomm)
			t->rename = NULL;
	}
	return t;
}

/* The names of the threads of process pid (0: of every process) now, from /proc. */
static void snapshot(struct comm_table *t, pid_t pid)
{
	char path[64], buf[COMM_LEN + 2];
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
				size_t len;
				if (tid > 0 && from_proc(tid, buf, &len))
					set(t, tid, buf, len, PROC);
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

/* Per CPU: forks and renames are rare, and the reader takes them every wake-up. */
#define NAMES_BUFFER_KB 512

struct comm_table *comm_follow(struct session *s, pid_t pid, pid_t tid)
{
	struct tep_event *fork = session_load_event(s, "sched", "sched_process_fork");
	struct tep_event *rename = session_load_event(s, "task", "task_rename");
	struct comm_table *t = comm_new(fork, rename);
	char filter[128];
	if (!t || !t->fork || !t->rename) {
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
	if (session_start(&t->ns, NAMES_BUFFER_KB) ||
	    session_filter(&t->ns, filter, sizeof(filter), NULL, NULL) ||
	    session_enable(&t->ns, t->fork, filter) || session_enable(&t->ns, t->rename, filter)) {
		comm_free(t);
		return NULL;
	}
	/* The tasks that exist now, after the naming events are on and before the tool's are:
	 * a rename before this read is in the name read, one after it in the events, and no
	 * event of the tool comes before it. (Named when first seen instead, a task renamed
	 * between its event and the lookup showed its later name.) */
	if (tid) {
		char buf[COMM_LEN + 2];
		size_t len;
		if (from_proc((int)tid, buf, &len))
			set(t, (int)tid, buf, len, PROC);
	} else {
		snapshot(t, pid);
	}
	return t;
}

int comm_attach(struct comm_table *t, struct reader *r)
{
	if (reader_on(r, t->fork, comm_on_fork, t) || reader_on(r, t->rename, comm_on_rename, t))
		return -1;
	if (!t->ns.inst) /* a fixture tree: the naming events are among the others */
		return reader_on_lost(r, comm_on_lost, t);
	int src = reader_add_session(r, &t->ns, "task-naming events");
	return src < 0 ? -1 : reader_on_lost_of(r, src, comm_on_lost, t);
}

void comm_free(struct comm_table *t)
{
	if (!t)
		return;
	session_close(&t->ns);
	free(t->e);
	free(t->saved);
	free(t);
}
