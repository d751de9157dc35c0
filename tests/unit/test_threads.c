// SPDX-License-Identifier: GPL-2.0-only
/*
 * A process's threads (threads.c): read from /proc/PID/task while 900 threads of this test
 * wait, handed over as lists of IDs of less than a size, one thread alone (-L), a process
 * gone, and a callback that fails.
 */
#include "helpers.h"

#include <errno.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "base/threads.h"

/* -p of a process with many threads: every one handed over, far past 4 KB of IDs (funcgraph
 * kept only what fit in 4 KB, ~500 threads, without a word). */
#define MANY_THREADS 900
static pid_t thread_ids[MANY_THREADS];
static int thread_pipe[2];
static pthread_barrier_t threads_up;

static void *blocked_thread(void *arg)
{
	thread_ids[(long)arg] = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&threads_up);
	char c;
	while (read(thread_pipe[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

struct seen {
	int n, lists;
	size_t longest;
	size_t chunk, last; /* lists of less than chunk bytes; the last one's length */
	pid_t ids[MANY_THREADS + 8];
	int fail_at;
};

static int collect(void *ctx, const char *ids)
{
	struct seen *s = ctx;
	if (s->lists++ == s->fail_at)
		return -1;
	if (strlen(ids) > s->longest)
		s->longest = strlen(ids);
	/* Each list as long as it could be: the next one's first ID did not fit. */
	if (s->chunk && s->last)
		assert_true(s->last + 1 + strcspn(ids, " ") >= s->chunk);
	s->last = strlen(ids);
	for (char *end; *ids; ids = end) {
		long id = strtol(ids, &end, 10);
		assert_true(end > ids && (*end == ' ' || !*end));
		if (s->n < MANY_THREADS + 8)
			s->ids[s->n] = (pid_t)id;
		s->n++;
		if (*end)
			end++;
	}
	return 0;
}

static void reset(struct seen *s, int fail_at)
{
	s->n = s->lists = 0;
	s->longest = 0;
	s->chunk = s->last = 0;
	s->fail_at = fail_at;
}

static bool has(const struct seen *s, pid_t id)
{
	for (int i = 0; i < s->n && i < MANY_THREADS + 8; i++)
		if (s->ids[i] == id)
			return true;
	return false;
}

static void test_each_task(void **state)
{
	(void)state;
	pthread_t t[MANY_THREADS];
	assert_int_equal(pipe(thread_pipe), 0);
	pthread_barrier_init(&threads_up, NULL, MANY_THREADS + 1);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (long i = 0; i < MANY_THREADS; i++)
		assert_int_equal(pthread_create(&t[i], &attr, blocked_thread, (void *)i), 0);
	pthread_barrier_wait(&threads_up);

	/* read: every one, this process's own ID among them, none twice */
	pid_t *tids;
	size_t n;
	assert_int_equal(threads_read(getpid(), &tids, &n), 0);
	assert_int_equal(n, MANY_THREADS + 1);
	static struct seen all;
	reset(&all, -1);
	for (size_t i = 0; i < n; i++) {
		assert_false(has(&all, tids[i]));
		all.ids[all.n++] = tids[i];
	}
	assert_true(has(&all, getpid()));
	for (int i = 0; i < MANY_THREADS; i++)
		assert_true(has(&all, thread_ids[i]));
	free(tids);

	static struct seen s;
	/* in one list */
	reset(&s, -1);
	assert_int_equal(threads_each_list("test", getpid(), 0, 0, collect, &s), 0);
	assert_int_equal(s.lists, 1);
	assert_int_equal(s.n, MANY_THREADS + 1);
	assert_true(has(&s, getpid()));
	for (int i = 0; i < MANY_THREADS; i++)
		assert_true(has(&s, thread_ids[i]));
	/* in lists of less than 64 bytes (set_ftrace_pid before 4.10) */
	reset(&s, -1);
	assert_int_equal(threads_each_list("test", getpid(), 0, 64, collect, &s), 0);
	assert_int_equal(s.n, MANY_THREADS + 1);
	assert_true(s.lists > 1 && s.longest < 64 && s.longest > 40);
	for (int i = 0; i < MANY_THREADS; i++)
		assert_true(has(&s, thread_ids[i]));

	/* -L: that thread alone */
	reset(&s, -1);
	assert_int_equal(threads_each_list("test", getpid(), thread_ids[7], 64, collect, &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.ids[0], thread_ids[7]);

	/* every size of list: each one less than it, and full */
	for (size_t chunk = 8; chunk <= 80; chunk++) {
		reset(&s, -1);
		s.chunk = chunk;
		assert_int_equal(threads_each_list("test", getpid(), 0, chunk, collect, &s), 0);
		assert_int_equal(s.n, MANY_THREADS + 1);
		assert_true(s.longest < chunk);
	}

	/* lists shorter than one ID: one ID a list, none dropped */
	reset(&s, -1);
	assert_int_equal(threads_each_list("test", getpid(), 0, 2, collect, &s), 0);
	assert_int_equal(s.n, MANY_THREADS + 1);
	assert_int_equal(s.lists, MANY_THREADS + 1);

	/* add fails: stops there, -1 */
	reset(&s, 3);
	assert_int_equal(threads_each_list("test", getpid(), 0, 64, collect, &s), -1);
	assert_int_equal(s.lists, 4);

	close(thread_pipe[1]);
	for (int i = 0; i < MANY_THREADS; i++)
		pthread_join(t[i], NULL);
	close(thread_pipe[0]);
	pthread_attr_destroy(&attr);
	pthread_barrier_destroy(&threads_up);

	/* a process gone: said, -1 */
	pid_t gone = fork();
	if (!gone)
		_exit(0);
	waitpid(gone, NULL, 0);
	reset(&s, -1);
	assert_int_equal(threads_each_list("test", gone, 0, 0, collect, &s), -1);
	assert_int_equal(s.lists, 0);
	tids = (pid_t *)&s; /* set to NULL on failure: nothing to free */
	errno = 0;
	assert_int_equal(threads_read(gone, &tids, &n), -1);
	assert_int_equal(errno, ENOENT);
	assert_null(tids);
	assert_int_equal(n, 0);
}

/* The message of a process gone: one line, with the tool's name. */
static void gone_message(const void *arg)
{
	struct seen s;
	reset(&s, -1);
	_exit(threads_each_list("mytool", *(const pid_t *)arg, 0, 0, collect, &s) ? 1 : 0);
}

static void test_gone_said(void **state)
{
	(void)state;
	pid_t gone = fork();
	if (!gone)
		_exit(0);
	waitpid(gone, NULL, 0);
	char err[512], want[128];
	assert_int_equal(run_child(gone_message, &gone, err, sizeof(err)), 1);
	snprintf(want, sizeof(want),
		 "mytool: cannot read the threads of PID %d (/proc/%d/task): the process has "
		 "exited\n",
		 (int)gone, (int)gone);
	assert_string_equal(err, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_task),
		cmocka_unit_test(test_gone_said),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
