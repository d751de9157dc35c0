/* Session setup and teardown against a fake tracefs tree (tracefs_set_tracing_dir). */
#include "helpers.h"

#include <event-parse.h>
#include <tracefs.h>

#include "session.h"

static char tree[64];

static int make_tree(void **state)
{
	(void)state;
	strcpy(tree, "/tmp/ftt-fake-XXXXXX");
	assert_non_null(mkdtemp(tree));
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "cp -r %s/block-6.18/events %s/ && mkdir %s/instances",
		 FIXTURES, tree, tree);
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

/* Instances of dead ftrace-tools runs go; live ones and other people's stay. */
static void test_sweep_stale(void **state)
{
	(void)state;
	pid_t dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	char stale[64], mine[64], live[64], other[64];
	snprintf(stale, sizeof(stale), "ftrace-tools-iosnoop-%d", (int)dead);
	snprintf(mine, sizeof(mine), "ftrace-tools-iolatency-%d", (int)getpid());
	snprintf(live, sizeof(live), "ftrace-tools-iosnoop-%d", (int)getppid());
	snprintf(other, sizeof(other), "someone-else-%d", (int)dead);
	mkinst(stale);
	mkinst(mine);
	mkinst(live);
	mkinst(other);
	mkinst("ftrace-tools-iosnoop-notapid");

	char err[512];
	int st = run_child((void (*)(const void *))(void *)session_sweep_stale, "test", err,
			   sizeof(err));
	(void)st;
	assert_non_null(strstr(err, stale)); /* says what it removed */
	char rel[128];
	snprintf(rel, sizeof(rel), "instances/%s", stale);
	assert_false(exists(rel));
	snprintf(rel, sizeof(rel), "instances/%s", mine);
	assert_true(exists(rel));
	snprintf(rel, sizeof(rel), "instances/%s", live);
	assert_true(exists(rel));
	snprintf(rel, sizeof(rel), "instances/%s", other);
	assert_true(exists(rel));
	assert_true(exists("instances/ftrace-tools-iosnoop-notapid"));
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

/* Start writes clock, buffer size and wake-up watermark; enable writes filter then enable. */
static void test_start_enable_close(void **state)
{
	(void)state;
	char name[64], buf[256];
	snprintf(name, sizeof(name), "ftrace-tools-test_session-%d", (int)getpid());
	skeleton(name); /* a fake tree has no kernel to populate a new instance */
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
	/* tracefs removes a populated instance with rmdir; a plain directory must be emptied */
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "cd %s/instances/%s && rm -rf ./*", tree, name);
	assert_int_equal(system(cmd), 0);
	session_close(&s);
	char rel[128];
	snprintf(rel, sizeof(rel), "instances/%s", name);
	assert_false(exists(rel));
	assert_null(s.inst);
	session_close(&s); /* twice is harmless */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sweep_stale, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_start_enable_close, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_missing_feature_messages, make_tree,
						remove_tree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
