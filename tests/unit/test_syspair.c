// SPDX-License-Identifier: GPL-2.0-only
/*
 * The per-thread join of a system call's start and its result (syspair.c), as opensnoop's third
 * rung uses it: uprobes on the C library's open64/openat64 (with the path) start a call, the
 * syscalls:sys_exit_openat tracepoint ends it. On ring-buffer pages recorded from Linux 6.18
 * (tests/fixtures/proc-6.18); the expected result of each call is read from the kernel's own
 * text rendering of the same pages (trace.txt: the thread's next "sys_openat -> 0x..." line).
 */
#include "helpers.h"

#include <event-parse.h>
#include <tracefs.h>

#include "stream/reader.h"
#include "join/syspair.h"

#define PROC FIXTURES "/proc-6.18"

static const char *const systems[] = {"sched", "task", "syscalls", "fttrec", NULL};

struct data {
	char path[256];
};

struct joins {
	struct tep_handle *tep;
	struct syspair j;
	struct tep_event *exit_ev;
	const char *lose_after; /* a loss right after the start of the call with this path */
	int n;
	struct {
		int tid;
		long long ret;
		char path[256];
	} done[256];
};

static void ended(const struct tep_record *rec, int tid, long long ret, void *call, void *ctx)
{
	struct joins *s = ctx;
	(void)rec;
	if (s->n == 256)
		return;
	s->done[s->n].tid = tid;
	s->done[s->n].ret = ret;
	snprintf(s->done[s->n].path, sizeof(s->done[s->n].path), "%s",
		 ((struct data *)syspair_data(call))->path);
	s->n++;
}

static void on_start(struct tep_record *rec, void *ctx)
{
	struct joins *s = ctx;
	int tid = tep_data_pid(s->tep, rec);
	struct syspair_call *c = syspair_enter(&s->j, tid, rec->ts, 0);
	struct data *d = syspair_data(c);
	reader_strcpy(d->path, sizeof(d->path), rec,
		      tep_find_field(tep_find_event_by_record(s->tep, rec), "file"));
	if (s->lose_after && !strcmp(d->path, s->lose_after))
		syspair_lost(rec->cpu, -1, &s->j); /* what the reader does when a page says so */
}

static void on_exit_(struct tep_record *rec, void *ctx)
{
	struct joins *s = ctx;
	syspair_exit(&s->j, rec, tep_data_pid(s->tep, rec),
		     reader_num(rec, tep_find_field(s->exit_ev, "ret")));
}

static void join(struct joins *s, const char *lose_after)
{
	memset(s, 0, sizeof(*s));
	s->lose_after = lose_after;
	s->tep = fixture_tep(PROC, systems);
	assert_non_null(s->tep);
	s->exit_ev = tep_find_event_by_name(s->tep, "syscalls", "sys_exit_openat");
	assert_non_null(s->exit_ev);
	assert_int_equal(syspair_init(&s->j, 64, sizeof(struct data), ended, s), 0);
	struct reader r;
	assert_int_equal(reader_open(&r, s->tep, PROC, 4096, true), 0);
	assert_int_equal(
		reader_on(&r, tep_find_event_by_name(s->tep, "fttrec", "open64"), on_start, s), 0);
	assert_int_equal(
		reader_on(&r, tep_find_event_by_name(s->tep, "fttrec", "openat64"), on_start, s),
		0);
	assert_int_equal(reader_on(&r, s->exit_ev, on_exit_, s), 0);
	assert_int_equal(reader_on_lost(&r, syspair_lost, &s->j), 0);
	assert_int_equal(reader_drain(&r), 0);
	reader_close(&r);
}

/* From trace.txt: after the line "<tid> ... open64: ... file="<path>"", the result on the
 * thread's next "sys_openat -> 0x..." line. */
static long long expected(int tid, const char *path, int nth)
{
	FILE *f = fopen(PROC "/trace.txt", "r");
	assert_non_null(f);
	char line[1024], want_open[300], tidtag[32];
	snprintf(want_open, sizeof(want_open), "file=\"%s\"", path);
	snprintf(tidtag, sizeof(tidtag), "-%d ", tid);
	bool in = false;
	long long ret = 1LL << 62;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, tidtag))
			continue;
		if (!in && strstr(line, want_open) && nth-- == 0)
			in = true;
		else if (in && strstr(line, "sys_openat -> 0x")) {
			ret = (long long)strtoull(strstr(line, "0x"), NULL, 16);
			break;
		}
	}
	fclose(f);
	return ret;
}

static void test_results_match_the_kernel(void **state)
{
	(void)state;
	static struct joins s;
	join(&s, NULL);
	assert_true(s.n > 10);
	int checked = 0, ftt = -1;
	for (int i = 0; i < s.n; i++) {
		int nth = 0;
		for (int k = 0; k < i; k++)
			nth += s.done[k].tid == s.done[i].tid &&
			       !strcmp(s.done[k].path, s.done[i].path);
		long long want = expected(s.done[i].tid, s.done[i].path, nth);
		if (want != s.done[i].ret)
			fail_msg("tid %d %s: joined result %lld, the kernel's %lld", s.done[i].tid,
				 s.done[i].path, s.done[i].ret, want);
		checked++;
		if (!strcmp(s.done[i].path, "/nonexistent/ftt-a"))
			ftt = i;
	}
	assert_true(ftt >= 0);
	assert_int_equal(s.done[ftt].ret, -2); /* ENOENT */
	/* ld.so opens without the C library: exits without a start, counted. */
	assert_true(s.j.span.unpaired > 0);
	syspair_free(&s.j);
	tep_free(s.tep);
}

/* A loss between a call's start and its exit: that exit joins nothing (it is counted), and
 * no later call gets a wrong path. Without the reset, ftt-a's exit would still be joined. */
static void test_loss_clears_the_join(void **state)
{
	(void)state;
	static struct joins a, b;
	join(&a, NULL);
	join(&b, "/nonexistent/ftt-a");
	assert_int_equal(b.j.span.cleared, 1);
	assert_int_equal(b.n, a.n - 1);
	assert_int_equal(b.j.span.unpaired, a.j.span.unpaired + 1);
	for (int i = 0; i < b.n; i++)
		assert_string_not_equal(b.done[i].path, "/nonexistent/ftt-a");
	syspair_free(&a.j);
	syspair_free(&b.j);
	tep_free(a.tep);
	tep_free(b.tep);
}

static void count_done(const struct tep_record *rec, int tid, long long ret, void *call, void *ctx)
{
	(void)rec;
	(void)call;
	int *seen = ctx;
	seen[0] = tid;
	seen[1] = (int)ret;
	seen[2] = *(int *)syspair_data(call);
}

/* An exec by a thread that is not the leader: the call started as thread 12 ends as 10 (the
 * kernel gives it the leader's ID) with what it held; 12 has no call left. */
static void test_move(void **state)
{
	(void)state;
	struct syspair j;
	int seen[3] = {0, 0, 0};
	struct tep_record rec = {.ts = 5};
	assert_int_equal(syspair_init(&j, 64, sizeof(int), count_done, seen), 0);
	*(int *)syspair_data(syspair_enter(&j, 12, 1, 0)) = 4242;
	syspair_enter(&j, 10, 1, 0); /* the leader's own call, lost in the exec */
	struct syspair_call *c = syspair_move(&j, 12, 10);
	assert_non_null(c);
	assert_int_equal(*(int *)syspair_data(c), 4242);
	assert_null(syspair_current(&j, 12));
	assert_null(syspair_move(&j, 99, 10));
	syspair_exit(&j, &rec, 10, 0);
	assert_int_equal(seen[0], 10);
	assert_int_equal(seen[2], 4242);
	assert_null(syspair_current(&j, 10));
	/* Into a full set of the table: the call moves, nothing else is lost. */
	for (int tid = 1000; tid < 1400; tid++)
		syspair_enter(&j, tid, 1, 0);
	for (int tid = 1000; tid < 1400; tid++) {
		int before = syspair_current(&j, tid) != NULL;
		if (!before)
			continue;
		*(int *)syspair_data(syspair_current(&j, tid)) = tid;
		c = syspair_move(&j, tid, tid + 100000);
		if (c)
			assert_int_equal(*(int *)syspair_data(c), tid);
		assert_null(syspair_current(&j, tid));
	}
	syspair_free(&j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_results_match_the_kernel),
		cmocka_unit_test(test_loss_clears_the_join),
		cmocka_unit_test(test_move),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
