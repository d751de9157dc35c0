// SPDX-License-Identifier: GPL-2.0-only
/*
 * How a run stops (sig.c): the stop count, nohup, the emergency steps run by a fault and by a
 * second stop while the output is stalled (in order, once, with the process's files closed
 * first), and signal names and default actions against what the kernel does.
 * (test_undo checks the order of steps put before others.)
 */
#define _GNU_SOURCE /* sigabbrev_np */
#include "helpers.h"

#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <time.h>

#include "base/sig.h"

static char dir[64], log_path[128], rm_path[128], replaced[128];

static int make_dir(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/ftt-sig-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(log_path, sizeof(log_path), "%s/log", dir);
	snprintf(rm_path, sizeof(rm_path), "%s/instance", dir);
	snprintf(replaced, sizeof(replaced), "%s/replaced", dir);
	write_file(dir, "log", "");
	write_file(dir, "replaced", "what was there\n");
	assert_int_equal(mkdir(rm_path, 0755), 0);
	return 0;
}

static int remove_dir(void **state)
{
	(void)state;
	rm_rf(dir);
	return 0;
}

/*
 * Steps as a run registers them: the instance's removal (registered after the writes, run
 * before them), two appended lines, one replaced file, one forgotten. A write through the
 * instance's directory shows the rmdir ran first: it finds nothing there.
 */
static void register_steps(void)
{
	char via[192];
	snprintf(via, sizeof(via), "%s/../log", rm_path);
	if (sig_on_emergency_write(log_path, "first\n") < 0 ||
	    sig_on_emergency_write(via, "through the instance\n") < 0)
		exit(90);
	int forgotten = sig_on_emergency_write(log_path, "forgotten\n");
	if (forgotten < 0 || sig_on_emergency_replace(replaced, "new\n") < 0 ||
	    sig_on_emergency_write(log_path, "last\n") < 0 || sig_on_emergency_rmdir(rm_path) < 0)
		exit(90);
	sig_forget(forgotten);
}

static void steps_were_run(void)
{
	char buf[256];
	assert_string_equal(read_file(dir, "log", buf, sizeof(buf)), "first\nlast\n");
	assert_string_equal(read_file(dir, "replaced", buf, sizeof(buf)), "new\n");
	assert_int_equal(access(rm_path, F_OK), -1);
}

static void steps_were_not_run(void)
{
	char buf[256];
	assert_string_equal(read_file(dir, "log", buf, sizeof(buf)), "");
	assert_string_equal(read_file(dir, "replaced", buf, sizeof(buf)), "what was there\n");
	assert_int_equal(access(rm_path, F_OK), 0);
}

/* sig_emergency itself: the steps in order, once (a second call writes nothing more), with
 * every file but 0-2 closed first (an open file keeps an instance busy). */
static void emergency_twice(const void *arg)
{
	(void)arg;
	register_steps();
	int fd = open(log_path, O_RDONLY);
	if (fd < 3)
		exit(91);
	sig_emergency();
	if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
		exit(92);
	sig_emergency();
	exit(0);
}

static void test_emergency_steps(void **state)
{
	(void)state;
	char err[512];
	assert_int_equal(run_child(emergency_twice, NULL, err, sizeof(err)), 0);
	steps_were_run();
}

/* Each stop signal adds one stop request, up to 2 ("now"); signals whose default is not to
 * end the process change nothing. SIGHUP stays ignored when it was (nohup). */
static void count_stops(const void *arg)
{
	bool nohup = arg != NULL;
	/* Both ways set here: the test itself may run under nohup (SIGHUP ignored, inherited). */
	signal(SIGHUP, nohup ? SIG_IGN : SIG_DFL);
	if (sig_install("t"))
		exit(90);
	raise(SIGCHLD);
	raise(SIGWINCH);
	if (sig_stop != 0)
		exit(91);
	raise(SIGHUP);
	if (sig_stop != (nohup ? 0 : 1))
		exit(92);
	raise(SIGPIPE); /* a closed output: a quiet stop */
	raise(SIGTERM);
	if (sig_stop != 2)
		exit(93);
	alarm(0); /* the second stop's deadline (tested below) */
	raise(SIGINT);
	raise(SIGRTMIN);
	exit(sig_stop == 2 ? 0 : 94);
}

static void test_stop_count(void **state)
{
	(void)state;
	char err[512];
	assert_int_equal(run_child(count_stops, NULL, err, sizeof(err)), 0);
	assert_int_equal(run_child(count_stops, "nohup", err, sizeof(err)), 0);
	assert_string_equal(err, "");
	steps_were_not_run();
}

/* A stop from the program itself is one signal, never taking back a second. */
static void requests(const void *arg)
{
	(void)arg;
	sig_request_stop();
	sig_request_stop();
	if (sig_stop != 1)
		exit(91);
	sig_request_stop_now();
	sig_request_stop();
	exit(sig_stop == 2 ? 0 : 92);
}

static void test_requests(void **state)
{
	(void)state;
	char err[512];
	assert_int_equal(run_child(requests, NULL, err, sizeof(err)), 0);
}

/*
 * Output stalled (a pipe nobody reads): after the second Ctrl-C the process must not wait
 * for the write. The second sets a one-second deadline (a write stuck anywhere, even inside
 * printf), a third during the write ends it at once: each runs the emergency steps, says so
 * in one line, and exits 1.
 */
static void stalled_writer(const void *arg)
{
	int out = *(const int *)arg;
	register_steps();
	if (sig_install("t"))
		exit(90);
	char buf[65536];
	memset(buf, 'x', sizeof(buf));
	sig_blocking_begin();
	for (;;)
		if (write(out, buf, sizeof(buf)) < 0 && errno != EINTR)
			exit(91);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int stall_then_signal(int signals, double *took)
{
	int p[2], e[2];
	assert_int_equal(pipe(p), 0);
	assert_int_equal(pipe(e), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(e[1], 2);
		close(p[0]);
		close(e[0]);
		alarm(10); /* never reached when the deadline works */
		stalled_writer(&p[1]);
	}
	close(p[1]);
	close(e[1]);
	usleep(200000); /* the pipe is full by now */
	double t0 = now_s();
	for (int i = 0; i < signals; i++) {
		kill(pid, SIGINT);
		usleep(50000);
	}
	int st;
	waitpid(pid, &st, 0);
	*took = now_s() - t0;
	char err[512];
	ssize_t n = read(e[0], err, sizeof(err) - 1);
	err[n > 0 ? n : 0] = 0;
	close(p[0]);
	close(e[0]);
	assert_string_equal(err, "t: stopped at once while writing output; what was still "
				 "recorded is not shown\n");
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void test_stalled_output(void **state)
{
	(void)state;
	double took;
	assert_int_equal(stall_then_signal(2, &took), 1);
	if (took < 0.9 || took > 5)
		fail_msg("ended %.2f s after the second stop, not after its 1 s deadline", took);
	steps_were_run();
	remove_dir(state);
	make_dir(state);
	assert_int_equal(stall_then_signal(3, &took), 1);
	if (took > 0.9)
		fail_msg("a third stop during the write took %.2f s", took);
	steps_were_run();
}

/* A fault: the steps run, one line says so, and the process dies of the signal (a core
 * dump, the exit status of a crash). */
static void crash(const void *arg)
{
	register_steps();
	if (sig_install("t"))
		exit(90);
	if (arg)
		abort();
	raise(SIGSEGV);
	exit(91);
}

static void test_fault(void **state)
{
	(void)state;
#ifdef __SANITIZE_ADDRESS__
	/* make check SANITIZE=1: the sanitizers' handlers report faults instead (sig.c). */
	skip();
#endif
	char err[512];
	assert_int_equal(run_child(crash, NULL, err, sizeof(err)), 128 + SIGSEGV);
	assert_string_equal(err, "t: fatal signal; the ftrace instance and probes of this run were "
				 "removed\n");
	steps_were_run();
	remove_dir(state);
	make_dir(state);
	assert_int_equal(run_child(crash, "abort", err, sizeof(err)), 128 + SIGABRT);
	steps_were_run();
}

/* What each signal does by default, as the kernel does it: a child raises it. */
static void raise_default(const void *arg)
{
	int sig = *(const int *)arg;
	/* A group of its own: the kernel discards job-control stops sent to an orphaned
	 * process group, which the test's own may be. */
	setpgid(0, 0);
	signal(sig, SIG_DFL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	struct rlimit none = {0, 0};
	setrlimit(RLIMIT_CORE, &none); /* no core files from the test */
	raise(sig);
	_exit(0);
}

static char kernel_default(int sig)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		raise_default(&sig);
	int st;
	assert_int_equal(waitpid(pid, &st, WUNTRACED), pid);
	if (WIFSTOPPED(st)) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return 'S';
	}
	if (WIFEXITED(st))
		return 'I';
	assert_int_equal(WTERMSIG(st), sig);
	return 'T';
}

static void test_names_and_defaults(void **state)
{
	(void)state;
	char buf[16], want[32];
	for (int sig = 1; sig < 32; sig++) {
		const char *abbrev = sigabbrev_np(sig);
		if (!abbrev)
			continue; /* no signal 32 of the C library's own */
		/* SIGIO and SIGPOLL are one: the C library names it SIGPOLL, the kernel's
		 * headers and ps SIGIO. */
		snprintf(want, sizeof(want), "SIG%s", strcmp(abbrev, "POLL") ? abbrev : "IO");
		assert_string_equal(sig_name(sig, buf), want);
		if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		char d = sig_default(sig), k = kernel_default(sig);
		if (d == 'C') /* the core's file is the system's choice: it ends the process */
			d = 'T';
		if (d != k)
			fail_msg("%s: sig_default says %c, the kernel does %c", want, d, k);
	}
	/* The kernel's real-time signals count from 32 (the C library keeps some for itself). */
	assert_string_equal(sig_name(32, buf), "SIGRT0");
	assert_string_equal(sig_name(64, buf), "SIGRT32");
	assert_string_equal(sig_name(65, buf), "65");
	assert_string_equal(sig_name(-1, buf), "-1");
	assert_int_equal(sig_default(SIGRTMIN), 'T');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_emergency_steps, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_stop_count, make_dir, remove_dir),
		cmocka_unit_test(test_requests),
		cmocka_unit_test_setup_teardown(test_stalled_output, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_fault, make_dir, remove_dir),
		cmocka_unit_test(test_names_and_defaults),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
