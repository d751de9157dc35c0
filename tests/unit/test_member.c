// SPDX-License-Identifier: GPL-2.0-only
/* member.h: the threads of this test's own process, a thread that exits, and others. */
#define _GNU_SOURCE
#include "helpers.h"

#include <pthread.h>
#include <sys/syscall.h>

#include "domain/member.h"

static void *tid_of_thread(void *arg)
{
	*(pid_t *)arg = (pid_t)syscall(SYS_gettid);
	return NULL;
}

static pid_t thread_tid(void)
{
	pthread_t t;
	pid_t tid = 0;
	assert_int_equal(pthread_create(&t, NULL, tid_of_thread, &tid), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	return tid;
}

static void test_own_threads(void **state)
{
	(void)state;
	struct member m;
	assert_int_equal(member_init(&m, getpid()), 0);
	assert_true(member_of(&m, getpid()));
	/* A thread that has exited and was never asked about: once /proc no longer has it
	 * (the join returns a little before the kernel lets the thread go), not counted. */
	pid_t gone = thread_tid();
	assert_true(gone > 0 && gone != getpid());
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/task/%d", (int)gone);
	for (int i = 0; i < 1000 && access(path, F_OK) == 0; i++)
		usleep(1000);
	assert_false(member_of(&m, gone));
	member_free(&m);
}

/* Asked while it runs, then remembered after it exits. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void *waiting(void *arg)
{
	*(pid_t *)arg = (pid_t)syscall(SYS_gettid);
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void test_remembered(void **state)
{
	(void)state;
	struct member m;
	assert_int_equal(member_init(&m, getpid()), 0);
	pthread_mutex_lock(&lock);
	pthread_t t;
	volatile pid_t tid = 0;
	assert_int_equal(pthread_create(&t, NULL, waiting, (void *)&tid), 0);
	while (!tid)
		usleep(1000);
	assert_true(member_of(&m, tid));
	pthread_mutex_unlock(&lock);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_true(member_of(&m, tid));
	member_free(&m);
}

static void test_others(void **state)
{
	(void)state;
	struct member m;
	assert_int_equal(member_init(&m, getpid()), 0);
	assert_false(member_of(&m, getppid()));
	assert_false(member_of(&m, 0));
	assert_false(member_of(&m, -1));
	assert_false(member_of(&m, 0x7fffffff));
	member_free(&m);
	/* Another process's: its thread, not ours. */
	assert_int_equal(member_init(&m, getppid()), 0);
	assert_true(member_of(&m, getppid()));
	assert_false(member_of(&m, getpid()));
	member_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_threads),
		cmocka_unit_test(test_remembered),
		cmocka_unit_test(test_others),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
