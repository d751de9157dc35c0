// SPDX-License-Identifier: GPL-2.0-only
/*
 * Task names followed in-band (comm.c) on ring-buffer pages recorded from Linux 6.18
 * (tests/fixtures/proc-6.18, recorded by record-proc.sh): a bash that opens /dev/null, execs
 * cat (renamed to "cat"), which opens /nonexistent/ftt-a; a python3 that renames itself to
 * "ftt\nrenamed" and opens /dev/null. The kernel's own text rendering of the same pages
 * (trace.txt) names every event of both with their last name: the oracle here is the order
 * of the events.
 */
#include "helpers.h"

#include <event-parse.h>
#include <tracefs.h>

#include "stream/comm.h"
#include "stream/reader.h"

#define PROC FIXTURES "/proc-6.18"

static const char *const systems[] = {"sched", "task", "syscalls", "fttrec", NULL};

struct seen {
	struct comm_table *t;
	int n;
	struct {
		int pid, source;
		char path[256];
		char comm[32];
	} ev[512];
};

static struct tep_handle *tep;
/* From the kernel's own records, for the expectations of the task-information test:
 * each task_newtask's creator, child, flags and time; who got renamed to ftt-thread. */
static struct created {
	int creator, child;
	unsigned long long flags, ts;
} created[256];
static int ncreated, thread_tid;

static unsigned char newtask_data[256];
static int newtask_size;

static void copy_newtask(struct tep_record *rec, void *ctx)
{
	(void)ctx;
	if (!newtask_size && rec->size <= (int)sizeof(newtask_data)) {
		memcpy(newtask_data, rec->data, (size_t)rec->size);
		newtask_size = rec->size;
	}
	struct tep_event *ev = tep_find_event_by_record(tep, rec);
	if (ncreated < 256)
		created[ncreated++] = (struct created){
			tep_data_pid(tep, rec), (int)reader_num(rec, tep_find_field(ev, "pid")),
			(unsigned long long)reader_num(rec, tep_find_field(ev, "clone_flags")),
			rec->ts};
}

static void copy_rename(struct tep_record *rec, void *ctx)
{
	(void)ctx;
	struct tep_event *ev = tep_find_event_by_record(tep, rec);
	char name[32];
	reader_strcpy(name, sizeof(name), rec, tep_find_field(ev, "newcomm"));
	if (!strcmp(name, "ftt-thread"))
		thread_tid = (int)reader_num(rec, tep_find_field(ev, "pid"));
}

static unsigned char fork_data[256];
static int fork_size;

/* A copy of the first fork record, for the PID-reuse test. */
static void copy_fork(struct tep_record *rec, void *ctx)
{
	(void)ctx;
	if (!fork_size && rec->size <= (int)sizeof(fork_data)) {
		memcpy(fork_data, rec->data, (size_t)rec->size);
		fork_size = rec->size;
	}
}

static void record_open(struct tep_record *rec, void *ctx)
{
	struct seen *s = ctx;
	if (s->n == 512)
		return;
	int pid = tep_data_pid(tep, rec);
	struct tep_event *ev = tep_find_event_by_record(tep, rec);
	struct tep_format_field *f = tep_find_field(ev, "file");
	s->ev[s->n].pid = pid;
	snprintf(s->ev[s->n].comm, sizeof(s->ev[s->n].comm), "%s", comm_get(s->t, pid));
	s->ev[s->n].source = comm_source(s->t, pid);
	reader_strcpy(s->ev[s->n].path, sizeof(s->ev[s->n].path), rec, f);
	s->n++;
}

static void read_fixture(struct seen *s)
{
	tep = fixture_tep(PROC, systems);
	assert_non_null(tep);
	struct tep_event *fork = tep_find_event_by_name(tep, "sched", "sched_process_fork");
	struct tep_event *ren = tep_find_event_by_name(tep, "task", "task_rename");
	struct tep_event *newtask = tep_find_event_by_name(tep, "task", "task_newtask");
	struct tep_event *o64 = tep_find_event_by_name(tep, "fttrec", "open64");
	struct tep_event *oat = tep_find_event_by_name(tep, "fttrec", "openat64");
	assert_non_null(fork);
	assert_non_null(ren);
	assert_non_null(o64);
	assert_non_null(oat);
	memset(s, 0, sizeof(*s));
	s->t = comm_new(fork, ren, newtask);
	assert_non_null(s->t);
	struct reader r;
	assert_int_equal(reader_open(&r, tep, PROC, 4096, true), 0);
	assert_int_equal(comm_attach(s->t, &r), 0);
	assert_int_equal(reader_on(&r, fork, copy_fork, NULL), 0);
	assert_int_equal(reader_on(&r, newtask, copy_newtask, s), 0);
	assert_int_equal(reader_on(&r, ren, copy_rename, s), 0);
	assert_int_equal(reader_on(&r, o64, record_open, s), 0);
	assert_int_equal(reader_on(&r, oat, record_open, s), 0);
	assert_int_equal(reader_drain(&r), 0);
	reader_close(&r);
}

static int find(struct seen *s, const char *path, int nth)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->ev[i].path, path) && nth-- == 0)
			return i;
	fail_msg("no open of %s in the fixture", path);
	return -1;
}

/* The name at each event is the name the task had then: before and after exec. */
static void test_exec_renames(void **state)
{
	(void)state;
	static struct seen s;
	read_fixture(&s);
	int cat = find(&s, "/nonexistent/ftt-a", 0);
	int pid = s.ev[cat].pid;
	assert_string_equal(s.ev[cat].comm, "cat");
	assert_int_equal(s.ev[cat].source, 1); /* from the events, not /proc */
	/* The same task's first open (its 2>/dev/null, before exec): the name it had then,
	 * its parent's (fork). */
	int first = -1;
	for (int i = 0; i < s.n && first < 0; i++)
		if (s.ev[i].pid == pid)
			first = i;
	assert_true(first >= 0 && first < cat);
	assert_string_equal(s.ev[first].path, "/dev/null");
	assert_string_equal(s.ev[first].comm, "bash");
	comm_free(s.t);
	tep_free(tep);
}

/* A name set with prctl, newline and all, from that point on; before it, python3's. */
static void test_prctl_rename_whole(void **state)
{
	(void)state;
	static struct seen s;
	read_fixture(&s);
	int pid = -1, renamed = -1, before = -1;
	for (int i = 0; i < s.n; i++)
		if (!strcmp(s.ev[i].comm, "ftt\nrenamed")) {
			renamed = i;
			pid = s.ev[i].pid;
			break;
		}
	assert_true(renamed >= 0);
	assert_string_equal(s.ev[renamed].path, "/dev/null");
	for (int i = 0; i < renamed; i++)
		if (s.ev[i].pid == pid)
			before = i;
	assert_true(before >= 0);
	assert_string_equal(s.ev[before].comm, "python3");
	comm_free(s.t);
	tep_free(tep);
}

/* A PID used again is a new task: its fork gives it its parent's name, whatever the old
 * task with that PID was called (a reused PID was shown with an earlier process's name). */
static void test_pid_reuse(void **state)
{
	(void)state;
	static struct seen s;
	read_fixture(&s);
	int cat = find(&s, "/nonexistent/ftt-a", 0);
	int pid = s.ev[cat].pid;
	assert_string_equal(comm_get(s.t, pid), "cat");
	assert_true(fork_size > 0);
	struct tep_event *fork = tep_find_event_by_name(tep, "sched", "sched_process_fork");
	struct tep_format_field *child = tep_find_field(fork, "child_pid");
	struct tep_format_field *cc = tep_find_field(fork, "child_comm");
	memcpy(fork_data + child->offset, &pid, 4);
	struct tep_record rec = {.data = fork_data, .size = fork_size};
	size_t len;
	char want[32];
	const char *name = reader_str(&rec, cc, &len);
	snprintf(want, sizeof(want), "%.*s", (int)strnlen(name, len), name);
	comm_on_fork(&rec, s.t);
	assert_string_equal(comm_get(s.t, pid), want);
	assert_string_not_equal(want, "cat");
	comm_free(s.t);
	tep_free(tep);
}

/* Threads and processes told apart (CLONE_THREAD), their parent and start from the events:
 * names_target's thread is a thread of names_target, whose parent is the recorder's shell. */
static void test_tasks(void **state)
{
	(void)state;
	static struct seen s;
	ncreated = thread_tid = 0;
	read_fixture(&s);
	assert_true(thread_tid > 0);
	const struct created *thr = NULL, *proc = NULL;
	for (int i = 0; i < ncreated; i++)
		if (created[i].child == thread_tid)
			thr = &created[i];
	assert_non_null(thr);
	assert_true(thr->flags & 0x00010000); /* CLONE_THREAD */
	for (int i = 0; i < ncreated; i++)
		if (created[i].child == thr->creator)
			proc = &created[i];
	assert_non_null(proc); /* names_target itself, made by the shell */
	struct comm_task ti, pi;
	assert_int_equal(comm_task(s.t, thread_tid, &ti), 0);
	assert_int_equal(comm_task(s.t, thr->creator, &pi), 0);
	assert_int_equal(ti.tgid, thr->creator);
	assert_int_equal(pi.tgid, thr->creator);
	assert_int_equal(ti.ppid, proc->creator);
	assert_int_equal(pi.ppid, proc->creator);
	assert_int_equal(ti.start_ns, thr->ts);
	assert_int_equal(pi.start_ns, proc->ts);
	comm_free(s.t);
	tep_free(tep);
}

/* After a loss nothing in the table can be trusted: names are read again (from /proc). */
static void test_lost_clears(void **state)
{
	(void)state;
	static struct seen s;
	read_fixture(&s);
	int cat = find(&s, "/nonexistent/ftt-a", 0);
	int pid = s.ev[cat].pid;
	assert_int_equal(comm_source(s.t, pid), 1);
	comm_on_lost(0, 10, s.t);
	assert_int_equal(comm_source(s.t, pid), 0);
	/* The recorded task is long gone: not "cat" from a table that may be stale. */
	comm_get(s.t, pid);
	assert_true(comm_source(s.t, pid) != 1);
	/* PID 0 is the idle task, named as the kernel names it. */
	assert_string_equal(comm_get(s.t, 0), "<idle>");
	comm_free(s.t);
	tep_free(tep);
}

/* Children made while the table grows: each named as its creator was (the creator's entry
 * was read after the child's was made, from the table just freed: ASan under SANITIZE=1). */
static void test_newtask_grows(void **state)
{
	(void)state;
	static struct seen s;
	newtask_size = 0;
	read_fixture(&s);
	assert_true(newtask_size > 0);
	struct tep_event *ev = tep_find_event_by_name(tep, "task", "task_newtask");
	struct tep_format_field *pid = tep_find_field(ev, "pid");
	struct tep_record rec = {.data = newtask_data, .size = newtask_size, .ts = 1};
	int creator = tep_data_pid(tep, &rec);
	char want[32];
	int source = 0;
	for (int child = 100000; child < 104000; child++) {
		int32_t v = child;
		memcpy(newtask_data + pid->offset, &v, sizeof(v));
		comm_on_newtask(&rec, s.t);
		/* (the creator as the first child found it: a creator of the fixture is read
		 * again from /proc there, where a task of this machine may have its PID now) */
		if (child == 100000) {
			snprintf(want, sizeof(want), "%s", comm_get(s.t, creator));
			source = comm_source(s.t, creator);
		}
		assert_int_equal(comm_source(s.t, child), source);
	}
	assert_string_equal(comm_get(s.t, 103999), want);
	comm_free(s.t);
	tep_free(tep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exec_renames), cmocka_unit_test(test_prctl_rename_whole),
		cmocka_unit_test(test_pid_reuse),    cmocka_unit_test(test_tasks),
		cmocka_unit_test(test_lost_clears),  cmocka_unit_test(test_newtask_grows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
