// SPDX-License-Identifier: GPL-2.0-only
/* Session setup and teardown against a fake tracefs tree (tracefs_set_tracing_dir). */
#include "helpers.h"

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>

#include <event-parse.h>
#include <tracefs.h>

#include "stream/reader.h"
#include "base/runid.h"
#include "kernel/format.h"
#include "kernel/session.h"
#include "kernel/sweep.h"

static char tree[64];

static int make_tree(void **state)
{
	(void)state;
	strcpy(tree, "/tmp/ftt-fake-XXXXXX");
	assert_non_null(mkdtemp(tree));
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "cp -r %s/block-6.18/events %s/ && mkdir %s/instances", FIXTURES,
		 tree, tree);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(tracefs_set_tracing_dir(tree), 0);
	return 0;
}

static int remove_tree(void **state)
{
	(void)state;
	rm_rf(tree);
	return 0;
}

static bool exists(const char *rel)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	return access(path, F_OK) == 0;
}

static void mkinst(const char *name)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/instances/%s", tree, name);
	assert_int_equal(mkdir(path, 0755), 0);
}

/* Field 22 of /proc/PID/stat, as session.c reads it. */
static unsigned long long start_of(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	assert_non_null(p);
	return strtoull(p + 1, NULL, 10);
}

static void sweep(const void *arg)
{
	sweep_stale(arg);
}

/*
 * Instances of dead ftrace-tools runs go; live ones and other people's stay. A PID that is
 * alive but started at another time is not the owner (PID reuse, or a run in another PID
 * namespace): its instance goes unless it is busy, which a fake tree shows as not empty.
 */
static void test_sweep_stale(void **state)
{
	(void)state;
	pid_t dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	pid_t parent = getppid();
	char stale[96], old_stale[96], mine[96], live[96], reused[96], busy[96], other[96];
	char session[96], roled[96], longer[96], zero[96];
	snprintf(stale, sizeof(stale), "ftrace-tools-iosnoop-%d_123_abcd", (int)dead);
	snprintf(old_stale, sizeof(old_stale), "ftrace-tools-iosnoop-%d", (int)dead);
	/* Names of someone else's that only look like ours: never judged. */
	snprintf(session, sizeof(session), "ftrace-tools-mysession-%d", (int)dead);
	snprintf(longer, sizeof(longer), "ftrace-tools-iosnoop-%d_123_abcde", (int)dead);
	snprintf(zero, sizeof(zero), "ftrace-tools-iosnoop-%d_0123_abcd", (int)dead);
	snprintf(roled, sizeof(roled), "ftrace-tools-iosnoop.names-%d_123_abcd", (int)dead);
	snprintf(mine, sizeof(mine), "ftrace-tools-iolatency-%s", runid_self());
	snprintf(live, sizeof(live), "ftrace-tools-tpoint-%d_%llu_0001", (int)parent,
		 start_of(parent));
	snprintf(reused, sizeof(reused), "ftrace-tools-tpoint-%d_%llu_0002", (int)parent,
		 start_of(parent) + 1);
	snprintf(busy, sizeof(busy), "ftrace-tools-tpoint-%d_%llu_0003", (int)parent,
		 start_of(parent) + 2);
	snprintf(other, sizeof(other), "someone-else-%d", (int)dead);
	const char *names[] = {stale,	old_stale,
			       mine,	live,
			       reused,	busy,
			       other,	"ftrace-tools-iosnoop-notapid",
			       session, "ftrace-tools-20261124",
			       longer,	zero,
			       roled};
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		mkinst(names[i]);
	char rel[160];
	snprintf(rel, sizeof(rel), "instances/%s/tracing_on", busy);
	write_file(tree, rel, "1\n");

	char err[1024];
	run_child(sweep, "test", err, sizeof(err));
	assert_non_null(strstr(err, stale)); /* says what it removed */
	const bool gone[] = {true,  false, false, false, true,	false, false,
			     false, false, false, false, false, true};
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		snprintf(rel, sizeof(rel), "instances/%s", names[i]);
		if (exists(rel) == gone[i])
			fail_msg("%s: %s", names[i], gone[i] ? "not removed" : "removed");
	}
	assert_null(strstr(err, busy)); /* refused: not claimed as removed */
	char said[160];
	snprintf(said, sizeof(said), "(PID %d is gone)", (int)dead);
	assert_non_null(strstr(err, said));
}

static void skeleton(const char *inst)
{
	char rel[256];
	static const struct {
		const char *file, *text;
	} files[] = {
		{"trace_clock", "[local] global counter uptime perf mono mono_raw boot\n"},
		{"buffer_size_kb", "1408\n"},
		{"buffer_percent", "50\n"},
		{"tracing_on", "1\n"},
		{"events/block/block_rq_issue/enable", "0\n"},
		{"events/block/block_rq_issue/filter", "none\n"},
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		snprintf(rel, sizeof(rel), "instances/%s/%s", inst, files[i].file);
		write_file(tree, rel, files[i].text);
	}
}

static char *inst_file(const char *inst, const char *file, char *buf, size_t len)
{
	char rel[256];
	snprintf(rel, sizeof(rel), "instances/%s/%s", inst, file);
	char *s = read_file(tree, rel, buf, len);
	assert_non_null(s);
	s[strcspn(s, "\n")] = 0;
	return s;
}

static void fill_instance(const char *dir)
{
	skeleton(strrchr(dir, '/') + 1); /* a fake tree has no kernel to populate it */
}

/* Start makes a new instance named by the run id, holds its tracing_on open, writes clock,
 * buffer size and wake-up watermark; enable writes filter then enable; a stop turns
 * tracing_on off. */
static void test_start_enable_close(void **state)
{
	(void)state;
	char name[96], buf[256];
	snprintf(name, sizeof(name), "ftrace-tools-test_session-%s", runid_self());
	session_after_mkdir = fill_instance;
	static const char *const systems[] = {"block", NULL};
	struct session s;
	assert_int_equal(session_init(&s, "test_session", systems), 0);
	struct tep_event *ev = session_event(&s, "block", "block_rq_issue", true);
	assert_non_null(ev);
	assert_non_null(session_field(&s, ev, "sector", true));
	assert_null(session_field(&s, ev, "no_such_field", false));
	assert_int_equal(session_start(&s, 2048), 0);
	assert_string_equal(s.name, name);
	assert_true(s.mono);
	assert_string_equal(inst_file(name, "trace_clock", buf, sizeof(buf)), "mono");
	assert_string_equal(inst_file(name, "buffer_size_kb", buf, sizeof(buf)), "2048");
	assert_string_equal(inst_file(name, "buffer_percent", buf, sizeof(buf)), "0");
	assert_int_equal(session_enable(&s, ev, "dev == 265289728"), 0);
	assert_string_equal(inst_file(name, "events/block/block_rq_issue/filter", buf, sizeof(buf)),
			    "dev == 265289728");
	assert_string_equal(inst_file(name, "events/block/block_rq_issue/enable", buf, sizeof(buf)),
			    "1");
	assert_true(s.hold_fd >= 0);
	assert_int_equal(session_stop_recording(&s), 0);
	assert_string_equal(inst_file(name, "tracing_on", buf, sizeof(buf)), "0");
	/* tracefs removes a populated instance with rmdir; a plain directory must be emptied */
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "cd %s/instances/%s && rm -rf ./*", tree, name);
	assert_int_equal(system(cmd), 0);
	session_close(&s);
	char rel[128];
	snprintf(rel, sizeof(rel), "instances/%s", name);
	assert_false(exists(rel));
	assert_null(s.inst);
	assert_int_equal(s.hold_fd, -1);
	session_close(&s); /* twice is harmless */
	session_after_mkdir = NULL;
}

/* session_preload: the formats come with the first load (session_init's single events here,
 * in one trial of the parser), each once. */
static void test_preload(void **state)
{
	(void)state;
	static const char *const sys[] = {"block", "block"}, *const names[] = {"block_rq_complete",
									       "block_rq_insert"};
	static const char *const one[] = {"block:block_rq_issue", NULL};
	struct session s;
	session_preload(2, sys, names);
	assert_int_equal(session_init(&s, "test_session", one), 0);
	assert_non_null(tep_find_event_by_name(s.tep, "block", "block_rq_issue"));
	assert_non_null(tep_find_event_by_name(s.tep, "block", "block_rq_complete"));
	assert_non_null(tep_find_event_by_name(s.tep, "block", "block_rq_insert"));
	assert_int_equal(tep_get_events_count(s.tep), 3);
	session_close(&s);
	/* The tool's own among them: loaded once. */
	static const char *const both[] = {"block:block_rq_insert", "block:block_rq_issue", NULL};
	session_preload(2, sys, names);
	assert_int_equal(session_init(&s, "test_session", both), 0);
	assert_int_equal(tep_get_events_count(s.tep), 3);
	session_close(&s);
}

/* An instance that exists is never taken over: the run fails instead. */
static void test_existing_instance(void **state)
{
	(void)state;
	char name[96];
	snprintf(name, sizeof(name), "ftrace-tools-test_session-%s", runid_self());
	mkinst(name);
	static const char *const systems[] = {"block", NULL};
	struct session s;
	assert_int_equal(session_init(&s, "test_session", systems), 0);
	assert_int_equal(session_start(&s, 0), -1);
	assert_null(s.inst);
	session_close(&s);
	char rel[160];
	snprintf(rel, sizeof(rel), "instances/%s", name);
	assert_true(exists(rel)); /* not ours: left alone */
}

/* In a child: a session started on the fake tree, then its instance emptied (tracefs
 * removes a populated instance with rmdir; a plain directory must be emptied first). */
static void start_then_empty(struct session *s)
{
	static const char *const systems[] = {"block", NULL};
	session_after_mkdir = fill_instance;
	if (session_init(s, "test_session", systems) || session_start(s, 0))
		exit(3);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf %s/*", s->dir);
	if (system(cmd))
		exit(4);
}

static void crash_after_start(const void *arg)
{
	(void)arg;
	struct session s;
	start_then_empty(&s);
	raise(SIGSEGV);
}

/* A fault removes the instance (its emergency step, which also closes the file that holds
 * it) before the process dies of it. */
static void test_fault_removes_instance(void **state)
{
	(void)state;
#ifdef __SANITIZE_ADDRESS__
	/* make check SANITIZE=1: AddressSanitizer's handler reports faults instead (sig.c). */
	skip();
#endif
	char err[512];
	assert_int_equal(run_child(crash_after_start, NULL, err, sizeof(err)), 128 + SIGSEGV);
	assert_non_null(strstr(err, "fatal signal"));
	char path[512];
	snprintf(path, sizeof(path), "%s/instances", tree);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A %s)\"", path);
	assert_int_equal(system(cmd), 0);
}

static void missing_event(const void *arg)
{
	(void)arg;
	static const char *const systems[] = {"block", NULL};
	struct session s;
	if (session_init(&s, "iosnoop", systems))
		exit(3);
	exit(session_event(&s, "block", "block_rq_nonesuch", true) ? 0 : 1);
}

static void missing_field(const void *arg)
{
	(void)arg;
	static const char *const systems[] = {"block", NULL};
	struct session s;
	if (session_init(&s, "iosnoop", systems))
		exit(3);
	struct tep_event *ev = session_event(&s, "block", "block_rq_complete", true);
	exit(session_field(&s, ev, "bytes", true) ? 0 : 1);
}

/* A missing feature is named, with the kernel option that provides it. */
static void test_missing_feature_messages(void **state)
{
	(void)state;
	char err[512];
	assert_int_equal(run_child(missing_event, NULL, err, sizeof(err)), 1);
	assert_string_equal(err, "iosnoop: tracepoint block:block_rq_nonesuch not available in "
				 "this kernel (CONFIG_BLOCK and CONFIG_EVENT_TRACING)\n");
	assert_int_equal(run_child(missing_field, NULL, err, sizeof(err)), 1);
	assert_string_equal(err, "iosnoop: event block:block_rq_complete has no field 'bytes' in "
				 "this kernel\n");
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	static char buf[65536];
	*len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[*len] = 0;
	return buf;
}

/* Formats as the kernel writes them are whole; cut anywhere, or with a field's name gone,
 * they are refused with the reason, never given to libtraceevent's parser (which, in 1.7.1,
 * dereferences NULL on a field line cut after its '['). Without the check this test dies. */
static void test_format_sound(void **state)
{
	(void)state;
	static const char *const files[] = {
		FIXTURES "/formats-6.18/sched/sched_wakeup/format",
		FIXTURES "/block-6.18/events/block/block_rq_issue/format",
		FIXTURES "/proc-6.18/events/sched/sched_process_fork/format",
	};
	char why[128];
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		size_t len;
		const char *whole = slurp(files[i], &len);
		char *fmt = malloc(len + 1);
		assert_non_null(fmt);
		memcpy(fmt, whole, len + 1);
		assert_int_equal(format_sound(fmt, len, why, sizeof(why)), 0);
		int refused = 0;
		for (size_t cut = 0; cut < len; cut++) {
			char *part = malloc(cut + 1);
			memcpy(part, fmt, cut);
			part[cut] = 0;
			if (format_sound(part, cut, why, sizeof(why))) {
				refused++;
				assert_true(why[0] != 0);
			} else {
				struct tep_handle *tep = tep_alloc();
				struct tep_event *ev = NULL;
				tep_parse_format(tep, &ev, part, cut, "test");
				tep_free(tep);
			}
			free(part);
		}
		/* Every cut before the print fmt line's end is refused (none is a whole file). */
		assert_int_equal(refused, (int)len);
		/* A field whose name is gone, the print fmt still naming it. */
		char *bracket = strstr(fmt, "char[] ");
		if (!bracket)
			bracket = strstr(fmt, "comm[");
		assert_non_null(bracket);
		char *semi = strchr(bracket, ';');
		memmove(bracket + 5, semi, strlen(semi) + 1);
		assert_int_equal(format_sound(fmt, strlen(fmt), why, sizeof(why)), -1);
		free(fmt);
		/* An offset the kernel never writes: signed, or int's -1 in digits (it read the
		 * byte before the record, found by fuzz_fmttext). */
		static const char *const bad[][2] = {{"offset:", "offset:-8;"},
						     {"offset:", "offset:4294967295;"},
						     {"offset:", "offset:99999999999999999999;"},
						     {"size:", "size:2147483647;"}};
		for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); b++) {
			const char *key = bad[b][0];
			const char *at = strstr(whole, "\tfield:int common_pid;");
			assert_non_null(at);
			at = strstr(at, key);
			const char *semi2 = strchr(at, ';');
			char *odd = malloc(len + 64);
			assert_non_null(odd);
			int n = snprintf(odd, len + 64, "%.*s%s%s", (int)(at - whole), whole,
					 bad[b][1], semi2 + 1);
			assert_int_equal(format_sound(odd, (size_t)n, why, sizeof(why)), -1);
			free(odd);
		}
	}
}

/* Replace a file of the fake tree with content (len bytes). */
static void put(const char *rel, const char *content, size_t len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(content, 1, len, f), len);
	fclose(f);
}

static void need_complete(const void *arg)
{
	(void)arg;
	static const char *const systems[] = {"block", NULL};
	struct session s;
	if (session_init(&s, "iosnoop", systems))
		exit(3);
	/* The other events of the system load, and say nothing. */
	if (!session_event(&s, "block", "block_rq_issue", true))
		exit(4);
	exit(session_event(&s, "block", "block_rq_complete", true) ? 0 : 1);
}

/*
 * A tracefs with hostile content: a format cut inside a field line, then one of random
 * bytes, for an event a tool needs: one line naming the event and what is wrong, exit 1, no
 * crash (libtraceevent's parser dies on the first). A system of 5,000 events: all listed,
 * all loaded.
 */
static void test_hostile_tree(void **state)
{
	(void)state;
	char err[512];
	const char *rel = "events/block/block_rq_complete/format";
	size_t len;
	char *whole = slurp(FIXTURES "/block-6.18/events/block/block_rq_complete/format", &len);
	char *cut = strstr(whole, "char[");
	assert_non_null(cut);
	put(rel, whole, (size_t)(cut - whole) + 5);
	assert_int_equal(run_child(need_complete, NULL, err, sizeof(err)), 1);
	assert_string_equal(err, "iosnoop: the format of block:block_rq_complete cannot be used "
				 "(line 15 cut short): cannot trace it\n");
	char junk[3000];
	unsigned int seed = 7;
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (char)(rand_r(&seed) & 0xff);
	put(rel, junk, sizeof(junk));
	assert_int_equal(run_child(need_complete, NULL, err, sizeof(err)), 1);
	assert_non_null(strstr(err, "block:block_rq_complete cannot be used ("));
	assert_true(strchr(err, '\n') == err + strlen(err) - 1); /* one line */

	/* Whole, but a print fmt argument libtraceevent 1.7.1's parser dereferences NULL on
	 * (fuzz_fmttext found it): refused after a trial in a child; the system's other events,
	 * tried with it in one child first, still load (need_complete needs block_rq_issue). */
	whole = slurp(FIXTURES "/block-6.18/events/block/block_rq_complete/format", &len);
	char *arg = strstr(whole, "REC->sector, REC->nr_sector");
	assert_non_null(arg);
	char mangled[8192];
	int m = snprintf(mangled, sizeof(mangled), "%.*s__print_symbchar[16]->%s",
			 (int)(arg - whole), whole, arg + 5);
	put(rel, mangled, (size_t)m);
	assert_int_equal(run_child(need_complete, NULL, err, sizeof(err)), 1);
	assert_string_equal(err, "iosnoop: the format of block:block_rq_complete cannot be used "
				 "(libtraceevent's parser dies on it: SIGSEGV in a trial): cannot "
				 "trace it\n");

	/* 5,000 events in one system, each a copy of a real format. */
	const char *issue = slurp(FIXTURES "/block-6.18/events/block/block_rq_issue/format", &len);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/events/many && touch %s/events/many/enable", tree,
		 tree);
	assert_int_equal(system(cmd), 0);
	char *copy = malloc(len + 64);
	assert_non_null(copy);
	for (int i = 0; i < 5000; i++) {
		char dir[128];
		snprintf(dir, sizeof(dir), "events/many/ev%d", i);
		char path[512];
		snprintf(path, sizeof(path), "%s/%s", tree, dir);
		assert_int_equal(mkdir(path, 0755), 0);
		char *name_end = strchr(issue, '\n');
		int n = snprintf(copy, len + 64, "name: ev%d\nID: %d%s", i, 5000 + i,
				 strchr(name_end + 1, '\n'));
		snprintf(path, sizeof(path), "%s/format", dir);
		put(path, copy, (size_t)n);
	}
	free(copy);
	static const char *const many[] = {"many", NULL};
	struct session s;
	assert_int_equal(session_init(&s, "tpoint", many), 0);
	assert_non_null(session_event(&s, "many", "ev0", true));
	assert_non_null(session_event(&s, "many", "ev4999", true));
	tep_free(s.tep);
}

static void files_gone(const void *arg)
{
	(void)arg;
	struct session s;
	start_then_empty(&s);
	struct reader r;
	int ret = reader_open_session(&r, &s, true);
	session_close(&s);
	exit(ret == -1 ? 0 : 5);
}

/* The run's instance emptied under it (a broken tracefs, a hostile root): the reader says
 * what it cannot read, in one line, and the run still removes its instance. */
static void test_files_gone_mid_run(void **state)
{
	(void)state;
	char err[1024];
	assert_int_equal(run_child(files_gone, NULL, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "test_session: cannot read "));
	assert_non_null(strstr(err, "/per_cpu: No such file or directory\n"));
	assert_true(strchr(err, '\n') == err + strlen(err) - 1);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A %s/instances)\"", tree);
	assert_int_equal(system(cmd), 0);
}

/* An EPERM under a kernel locked down for confidentiality says so; otherwise the plain
 * reason. */
static void test_lockdown(void **state)
{
	(void)state;
	char file[128];
	snprintf(file, sizeof(file), "%s/lockdown", tree);
	session_lockdown_file = file;
	write_file(tree, "lockdown", "none [integrity] confidentiality\n");
	assert_string_equal(session_strerror(EPERM), strerror(EPERM));
	write_file(tree, "lockdown", "none integrity [confidentiality]\n");
	assert_non_null(strstr(session_strerror(EPERM), "locked down for confidentiality"));
	assert_non_null(strstr(session_strerror(EACCES), "locked down for confidentiality"));
	assert_string_equal(session_strerror(ENOENT), strerror(ENOENT));
	session_lockdown_file = "/nonexistent";
	assert_string_equal(session_strerror(EPERM), strerror(EPERM));
}

static void buffer(const void *v)
{
	setenv("FTT_BUFFER_KB", v, 1);
	session_buffer_env();
	exit(session_buffer_kb(7) == (size_t)atoll(v) ? 0 : 3);
}

/* FTT_BUFFER_KB: the size every run then uses instead of its own (1024 here, 7 wished);
 * beyond what memory allows, 0 or not a number: a usage error naming why. Unset: the wish. */
static void test_buffer_env(void **state)
{
	(void)state;
	char err[512], big[64];
	assert_int_equal(run_child(buffer, "1024", err, sizeof(err)), 0);
	/* Twice the limit: the memory available moves between this read and the child's (a
	 * limit + 1 failed on a busy machine). */
	snprintf(big, sizeof(big), "%lld", 2 * session_buffer_limit_kb() + 1024);
	assert_usage_error(buffer, big, "at most a quarter of the available memory");
	assert_usage_error(buffer, "0", "must be 1 to");
	assert_usage_error(buffer, "4x", "not a whole number");
	unsetenv("FTT_BUFFER_KB");
	session_buffer_env();
	assert_int_equal(session_buffer_kb(7), 7);
	assert_int_equal(session_buffer_kb(0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_lockdown, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_sweep_stale, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_start_enable_close, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_existing_instance, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_preload, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_fault_removes_instance, make_tree,
						remove_tree),
		cmocka_unit_test_setup_teardown(test_missing_feature_messages, make_tree,
						remove_tree),
		cmocka_unit_test(test_format_sound),
		cmocka_unit_test(test_buffer_env),
		cmocka_unit_test_setup_teardown(test_hostile_tree, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_files_gone_mid_run, make_tree, remove_tree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
