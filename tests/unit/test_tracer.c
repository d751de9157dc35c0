// SPDX-License-Identifier: GPL-2.0-only
/*
 * The generic tracer (tracer.c) behind tpoint, kprobe and uprobe, as a tool of the test's own
 * built on its stages, run by the driver on a fake tracefs tree whose instance buffers are
 * the block fixture's recorded pages: every event printed (text and JSON), counted (-c),
 * counted by key and as histograms (-k, --hist), each count checked against the kernel's
 * own rendering of the pages (tests/fixtures/block-6.18/trace.txt); how each mode sets the
 * run up (names, order, trace clock); -v; options that exclude each other and keys the
 * events lack, refused before anything is made; -s without kernel stacks.
 */
#define _GNU_SOURCE /* nftw */
#include "helpers.h"

#include <dirent.h>
#include <ftw.h>

#include <event-parse.h>
#include <tracefs.h>

#include "base/opt.h"
#include "base/state.h"
#include "kernel/session.h"
#include "stream/comm.h"
#include "tracer/tracer.h"

#define BLOCK FIXTURES "/block-6.18"

static char tree[64], stages[96];

/* --- the fake tree (as in test_tool) ------------------------------------------------------- */

static void copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "r"), *out = fopen(to, "w");
	assert_non_null(in);
	assert_non_null(out);
	char buf[8192];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, out), n);
	fclose(in);
	fclose(out);
}

/* A new instance: its files, each event's enable and filter, the fixture's pages as its
 * CPU buffers (the task-naming instance's empty). */
static void fill_instance(const char *dir)
{
	static const char *const files[][2] = {
		{"trace_clock", "[local] global counter uptime perf mono mono_raw boot\n"},
		{"buffer_size_kb", "1408\n"},
		{"buffer_percent", "50\n"},
		{"tracing_on", "1\n"},
		{"per_cpu/cpu0/stats", "entries: 0\noverrun: 0\n"},
		{"per_cpu/cpu1/stats", "entries: 0\noverrun: 0\n"},
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++)
		write_file(dir, files[i][0], files[i][1]);
	char path[4096], rel[1024];
	snprintf(path, sizeof(path), "%s/events", tree);
	DIR *systems = opendir(path);
	assert_non_null(systems);
	struct dirent *sys, *ev;
	while ((sys = readdir(systems))) {
		snprintf(path, sizeof(path), "%s/events/%s", tree, sys->d_name);
		DIR *events = sys->d_name[0] != '.' ? opendir(path) : NULL;
		while (events && (ev = readdir(events))) {
			if (ev->d_name[0] == '.' || !strcmp(ev->d_name, "enable"))
				continue;
			snprintf(rel, sizeof(rel), "events/%s/%s/enable", sys->d_name, ev->d_name);
			write_file(dir, rel, "0\n");
			snprintf(rel, sizeof(rel), "events/%s/%s/filter", sys->d_name, ev->d_name);
			write_file(dir, rel, "none\n");
		}
		if (events)
			closedir(events);
	}
	closedir(systems);
	bool names = strstr(dir, ".names-") != NULL;
	for (int cpu = 0; cpu < 2; cpu++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", BLOCK, cpu);
		snprintf(rel, sizeof(rel), "%s/per_cpu/cpu%d/trace_pipe_raw", dir, cpu);
		if (names)
			write_file(dir, rel + strlen(dir) + 1, "");
		else
			copy_file(path, rel);
	}
}

static int make_tree(void **state)
{
	(void)state;
	strcpy(tree, "/tmp/ftt-tracer-XXXXXX");
	assert_non_null(mkdtemp(tree));
	char cmd[4096];
	int n = snprintf(
		cmd, sizeof(cmd),
		"cp -r %s/events %s/ && cp -r %s/proc-6.18/events/sched %s/proc-6.18/events/task "
		"%s/events/ && mkdir %s/instances",
		BLOCK, tree, FIXTURES, FIXTURES, tree, tree);
	/* cut short, the command would be another one */
	assert_true(n > 0 && (size_t)n < sizeof(cmd));
	assert_int_equal(system(cmd), 0);
	assert_int_equal(tracefs_set_tracing_dir(tree), 0);
	static char run[128];
	snprintf(run, sizeof(run), "%s/run", tree);
	snprintf(stages, sizeof(stages), "%s/stages", tree);
	write_file(tree, "stages", "");
	state_dir_for_tests = run;
	state_fake_tracefs = true;
	session_after_mkdir = fill_instance;
	return 0;
}

static int remove_tree(void **state)
{
	(void)state;
	rm_rf(tree);
	return 0;
}

static int unlink_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	if (ftw->level > 0)
		(flag == FTW_DP ? rmdir : unlink)(path);
	return 0;
}

/* A fake tree's instances are plain directories: emptied before the driver removes them. */
static void empty_instances(void *arg)
{
	(void)arg;
	char path[128];
	snprintf(path, sizeof(path), "%s/instances", tree);
	DIR *d = opendir(path);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		char inst[512];
		snprintf(inst, sizeof(inst), "%s/%s", path, de->d_name);
		if (de->d_name[0] != '.')
			nftw(inst, unlink_one, 16, FTW_DEPTH | FTW_PHYS);
	}
	if (d)
		closedir(d);
}

static int instances_in_tree(void)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/instances", tree);
	DIR *d = opendir(path);
	assert_non_null(d);
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

static int fixture_count(const char *ev)
{
	FILE *f = fopen(BLOCK "/trace.txt", "r");
	assert_non_null(f);
	char line[512], tag[64];
	snprintf(tag, sizeof(tag), " %s: ", ev);
	int n = 0;
	while (fgets(line, sizeof(line), f))
		n += line[0] != '#' && strstr(line, tag) != NULL;
	fclose(f);
	assert_true(n > 0);
	return n;
}

static void stage(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	line[n++] = '\n';
	int fd = open(stages, O_WRONLY | O_APPEND);
	if (fd < 0 || write(fd, line, (size_t)n) != n)
		abort();
	close(fd);
}

/* --- the test's tool: SYS:EVENT... on the tracer's stages --------------------------------- */

static struct tracer tr;
static struct tep_event *events[8];
static char *specs[8];
static int nspecs;

static const struct opt_spec options[] = {
	TRACER_OPTIONS,
	TOOL_OPT_END,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	(void)t;
	tracer_option(&tr, o, arg);
}

static void operands(struct tool_run *t, int argc, char **argv)
{
	(void)t;
	if (argc < 1 || argc > 8)
		opt_fail("give 1 to 8 SYS:EVENT");
	for (int i = 0; i < argc; i++)
		specs[i] = argv[i];
	nspecs = argc;
	tracer_check(&tr);
}

static enum tool_code prepare(struct tool_run *t)
{
	if (session_on_close(&t->s, SESSION_BEFORE_REMOVE, empty_instances, NULL))
		return TOOL_FAIL;
	for (int i = 0; i < nspecs; i++) {
		char sys[64];
		snprintf(sys, sizeof(sys), "%.*s", (int)strcspn(specs[i], ":"), specs[i]);
		if (!(events[i] = tep_find_event_by_name(t->s.tep, sys, strchr(specs[i], ':') + 1)))
			return TOOL_FAIL;
	}
	tr.events = events;
	tr.nevents = nspecs;
	snprintf(t->traced, sizeof(t->traced), "block events");
	return tracer_prepare(t);
}

/* How the run was set up, as the instance shows it before the events are on. */
static enum tool_code setup(struct tool_run *t)
{
	char buf[256], rel[512];
	snprintf(rel, sizeof(rel), "instances/%s/trace_clock", t->s.name);
	if (!read_file(tree, rel, buf, sizeof(buf)))
		return TOOL_FAIL;
	buf[strcspn(buf, "\n")] = 0;
	stage("names %d ordered %d clock %s interval %llu", t->follow_names, t->ordered, buf,
	      (unsigned long long)t->o.interval);
	return tracer_setup(t);
}

static void cleanup(struct tool_run *t)
{
	tracer_cleanup(t);
	stage("cleanup");
}

static const char *const formats[] = {"block", NULL};

static const struct tool fake = {
	.name = "tt",
	.opts = options,
	.operands = "SYSTEM:EVENT...",
	.formats = formats,
	.state = &tr,
	.option = option,
	.operands_fn = operands,
	.prepare = prepare,
	.setup = setup,
	.banner = tracer_banner,
	.header = tracer_header,
	.interval = tracer_interval,
	.end = tracer_end,
	.cleanup = cleanup,
};

/* Run the tool in a child; its exit status, stdout and stderr (files of the tree). */
static char out[1 << 16], err[4096];
static int tool(const char *first, ...)
{
	const char *args[32] = {"tt", first};
	int argc = 2;
	va_list ap;
	va_start(ap, first);
	while ((args[argc] = va_arg(ap, const char *)))
		argc++;
	va_end(ap);
	write_file(tree, "stages", "");
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char path[128];
		snprintf(path, sizeof(path), "%s/stdout", tree);
		int o = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		snprintf(path, sizeof(path), "%s/stderr", tree);
		int e = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (o < 0 || e < 0)
			_exit(99);
		dup2(o, 1);
		dup2(e, 2);
		close(o);
		close(e);
		alarm(60);
		exit(tool_main(&fake, argc, (char **)args));
	}
	int st;
	waitpid(pid, &st, 0);
	assert_non_null(read_file(tree, "stdout", out, sizeof(out)));
	assert_non_null(read_file(tree, "stderr", err, sizeof(err)));
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static const char *stages_run(void)
{
	static char buf[4096];
	assert_non_null(read_file(tree, "stages", buf, sizeof(buf)));
	return buf;
}

/* The number after "key" on the line of stdout that begins with line_start. */
static long long number_on_line(const char *line_start, const char *key)
{
	size_t len = strlen(line_start);
	for (const char *p = out; *p; p = strchr(p, '\n') + 1) {
		const char *end = strchr(p, '\n');
		assert_non_null(end);
		if (strncmp(p, line_start, len))
			continue;
		const char *k = strstr(p, key);
		if (k && k < end)
			return strtoll(k + strlen(key), NULL, 10);
	}
	fail_msg("no line '%s...' with '%s' in:\n%s", line_start, key, out);
	return -1;
}

static int lines_with(const char *what)
{
	int n = 0;
	for (const char *p = out; *p; p = strchr(p, '\n') + 1) {
		const char *end = strchr(p, '\n');
		assert_non_null(end);
		const char *w = strstr(p, what);
		n += w && w < end;
	}
	return n;
}

/* --- tests ------------------------------------------------------------------------------- */

/* -c: one count per event, exact; neither names nor time order nor the trace clock's switch
 * (which resets the buffers): the instance's clock is left as found. */
static void test_counts(void **state)
{
	(void)state;
	int issued = fixture_count("block_rq_issue"),
	    completed = fixture_count("block_rq_complete");
	assert_int_equal(
		tool("-c", "-d", "0.2", "block:block_rq_issue", "block:block_rq_complete", NULL),
		0);
	assert_string_equal(err, "Counting block events. Ctrl-C to end.\n");
	assert_int_equal(number_on_line("block:block_rq_issue ", " "), issued);
	assert_int_equal(number_on_line("block:block_rq_complete ", " "), completed);
	assert_non_null(strstr(out, "EVENT"));
	const char *st = stages_run();
	if (!strstr(st, "names 0 ordered 0 clock [local] global counter uptime perf mono mono_raw "
			"boot interval 1000000000\n"))
		fail_msg("set up as: %s", st);
	assert_int_equal(instances_in_tree(), 0);

	assert_int_equal(tool("-c", "-j", "-d", "0.2", "block:block_rq_issue", NULL), 0);
	assert_int_equal(lines_with("{\"time\":\""), 1);
	assert_int_equal(number_on_line("{", "\"event\":\"block:block_rq_issue\",\"count\":"),
			 issued);
}

/* Every event printed: one line each (JSON: one object each, its event named), names
 * followed and CPUs merged in time order on the mono clock. */
static void test_every_event(void **state)
{
	(void)state;
	int issued = fixture_count("block_rq_issue"),
	    completed = fixture_count("block_rq_complete");
	assert_int_equal(
		tool("-j", "-d", "0.2", "block:block_rq_issue", "block:block_rq_complete", NULL),
		0);
	assert_string_equal(err, "Tracing block events. Ctrl-C to end.\n");
	assert_int_equal(lines_with("\"event\":\"block:block_rq_issue\""), issued);
	assert_int_equal(lines_with("\"event\":\"block:block_rq_complete\""), completed);
	assert_int_equal(lines_with("{\"ts\":"), issued + completed);
	/* in time order, as the kernel's rendering shows them */
	double last = 0;
	for (const char *p = strstr(out, "\"ts\":"); p; p = strstr(p + 1, "\"ts\":")) {
		double ts = strtod(p + 5, NULL);
		assert_true(ts >= last);
		last = ts;
	}
	assert_non_null(strstr(stages_run(), "names 1 ordered 1 clock mono interval 0\n"));

	assert_int_equal(tool("-d", "0.2", "block:block_rq_issue", NULL), 0);
	assert_int_equal(lines_with(": block_rq_issue: "), issued);
	int lines = 0;
	for (const char *p = out; (p = strchr(p, '\n')); p++)
		lines++;
	assert_int_equal(lines, issued);
	assert_int_equal(instances_in_tree(), 0);
}

/* -k: counted by a field, the counts adding up to the events; --hist: every event in one
 * of the histogram's rows. */
static void test_keys_and_hist(void **state)
{
	(void)state;
	int issued = fixture_count("block_rq_issue");
	assert_int_equal(tool("-j", "-k", "rwbs", "-d", "0.2", "block:block_rq_issue", NULL), 0);
	long long sum = 0;
	for (const char *p = strstr(out, "\"count\":"); p; p = strstr(p + 1, "\"count\":"))
		sum += strtoll(p + 8, NULL, 10);
	if (sum != issued)
		fail_msg("-k rwbs counted %lld of %d events:\n%s", sum, issued, out);
	assert_non_null(strstr(out, "\"WS\""));
	/* counting by a field: no names needed, no order */
	assert_non_null(strstr(stages_run(), "names 0 ordered 0 "));

	assert_int_equal(tool("-d", "0.2", "--hist", "nr_sector", "block:block_rq_issue", NULL), 0);
	sum = 0;
	for (const char *p = out; *p; p = strchr(p, '\n') + 1) {
		long long lo, hi, n;
		if (sscanf(p, " %lld -> %lld : %lld", &lo, &hi, &n) == 3)
			sum += n;
	}
	if (sum != issued)
		fail_msg("--hist nr_sector has %lld of %d events:\n%s", sum, issued, out);
}

/* -v: the events' formats as the kernel wrote them, and nothing made. */
static void test_formats(void **state)
{
	(void)state;
	assert_int_equal(tool("-v", "block:block_rq_issue", "block:block_rq_complete", NULL), 0);
	char want[16384], one[8192];
	assert_non_null(read_file(BLOCK, "events/block/block_rq_issue/format", want, sizeof(want)));
	assert_non_null(
		read_file(BLOCK, "events/block/block_rq_complete/format", one, sizeof(one)));
	strcat(want, one);
	/* Then what a run takes of the kernel's memory (the flood buffer and the names'). */
	size_t len = strlen(want);
	assert_memory_equal(out, want, len);
	char memory[512];
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	/* the new instance's buffers, not resized */
	size_t kb = SESSION_DEFAULT_BUFFER_KB, nkb = comm_buffer_kb_said();
	const char *why;
	bool local = session_local_clock_synced(&why);
	/* Then which clock orders the CPUs' events. */
	int n = snprintf(
		memory, sizeof(memory),
		"tt: a run takes %zu KB per CPU of ring buffer for its events and %zu KB "
		"per CPU for the task-naming events, on %ld CPUs: %.1f MB of kernel memory "
		"(FTT_BUFFER_KB sets the size per CPU)\n",
		kb, nkb, ncpus, (double)(kb + nkb) * (double)ncpus / 1024);
	if (local)
		snprintf(
			memory + n, sizeof(memory) - n,
			"tt: events ordered across CPUs by the trace clock local (sched_clock: the "
			"TSC, constant and in use as the clocksource), mapped to "
			"CLOCK_MONOTONIC\n");
	else
		snprintf(
			memory + n, sizeof(memory) - n,
			"tt: events ordered across CPUs by the trace clock mono (CLOCK_MONOTONIC): "
			"local is not used because %s\n",
			why);
	assert_string_equal(out + len, memory);
	assert_string_equal(err, "");
	assert_string_equal(stages_run(), "cleanup\n");
	assert_int_equal(instances_in_tree(), 0);
}

/* Options that exclude each other, and keys the event lacks: a usage error in one line,
 * before anything is made. */
static void test_usage_errors(void **state)
{
	(void)state;
	static const char *const cases[][5] = {
		{"-c", "-s", NULL},
		{"-k", "rwbs", "-U", NULL},
		{"--folded", NULL},
		{"--folded", "-s", "-c", NULL},
		{"--folded", "-s", "-j", NULL},
		{"-k", "no_such_field", NULL},
		{"--hist", "rwbs", NULL}, /* not a number */
		{"--hist", "no_such_field", NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		const char *a[5] = {0};
		for (int j = 0; cases[i][j]; j++)
			a[j] = cases[i][j];
		/* the event last: after the options */
		int n = 0;
		while (a[n])
			n++;
		a[n] = "block:block_rq_issue";
		int st = tool(a[0], a[1], a[2], a[3], a[4], NULL);
		if (st != 2 || strncmp(err, "tt: ", 4) ||
		    strchr(err, '\n') != err + strlen(err) - 1)
			fail_msg("%s %s: exit %d, stderr '%s'", cases[i][0],
				 cases[i][1] ? cases[i][1] : "", st, err);
		assert_null(strstr(stages_run(), "names"));
		assert_int_equal(instances_in_tree(), 0);
	}
}

/* -s where the kernel has no stack events: the option named by its CONFIG_, exit 1, and the
 * instance removed. */
static void test_no_kernel_stacks(void **state)
{
	(void)state;
	assert_int_equal(tool("-s", "-d", "0.2", "block:block_rq_issue", NULL), 1);
	assert_string_equal(err, "tt: no ftrace:kernel_stack event for -s (CONFIG_STACKTRACE)\n");
	assert_int_equal(instances_in_tree(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_counts, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_every_event, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_keys_and_hist, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_formats, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_usage_errors, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_no_kernel_stacks, make_tree, remove_tree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
