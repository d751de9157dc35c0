// SPDX-License-Identifier: GPL-2.0-only
/*
 * The driver (tool.c) running a tool of the test's own on a fake tracefs tree: the stages in
 * their order, a stage that fails (the instance goes, the tool's cleanup runs), -d and the
 * interval count ending the run, usage errors that change nothing in the tree, --exec, and
 * tool_trace's filters. The instance's CPU buffers are the block fixture's recorded pages, so
 * the handlers see the events the kernel recorded (tests/fixtures/block-6.18/trace.txt).
 */
#define _GNU_SOURCE /* nftw */
#include "helpers.h"

#include <dirent.h>
#include <ftw.h>
#include <time.h>

#include <event-parse.h>
#include <tracefs.h>

#include "base/opt.h"
#include "base/runid.h"
#include "base/state.h"
#include "tool.h"

#define BLOCK FIXTURES "/block-6.18"

static char tree[64], run[96], stages[96];

/* --- the fake tree ------------------------------------------------------------------------- */

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

/* What the kernel would put in a new instance: its files, each event's enable and filter,
 * and as its CPU buffers the fixture's pages (the task-naming instance's are empty). */
static void fill_instance(const char *dir)
{
	static const char *const files[][2] = {
		{"trace_clock", "[local] global counter uptime perf mono mono_raw boot\n"},
		{"buffer_size_kb", "1408\n"},
		{"buffer_percent", "50\n"},
		{"tracing_on", "1\n"},
		{"set_event_pid", ""},
		{"options/event-fork", "0\n"},
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
	strcpy(tree, "/tmp/ftt-tool-XXXXXX");
	assert_non_null(mkdtemp(tree));
	char cmd[4096];
	/* The block events, and the task-naming ones that -n follows. */
	int n = snprintf(
		cmd, sizeof(cmd),
		"cp -r %s/events %s/ && cp -r %s/proc-6.18/events/sched %s/proc-6.18/events/task "
		"%s/events/ && mkdir %s/instances",
		BLOCK, tree, FIXTURES, FIXTURES, tree, tree);
	/* cut short, the command would be another one */
	assert_true(n > 0 && (size_t)n < sizeof(cmd));
	assert_int_equal(system(cmd), 0);
	assert_int_equal(tracefs_set_tracing_dir(tree), 0);
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

/* Every file under the tree with its content, as one string: what a run changed in it. */
static char snapshot_buf[1 << 20];
static size_t snapshot_len;
static int add_to_snapshot(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	if (strstr(path, "/stages") || strstr(path, "/run"))
		return 0; /* the test's own log; the state folder may be made by a sweep */
	snapshot_len +=
		(size_t)snprintf(snapshot_buf + snapshot_len, sizeof(snapshot_buf) - snapshot_len,
				 "%s %o\n", path, st->st_mode);
	if (flag == FTW_F) {
		FILE *f = fopen(path, "r");
		assert_non_null(f);
		snapshot_len += fread(snapshot_buf + snapshot_len, 1,
				      sizeof(snapshot_buf) - 1 - snapshot_len, f);
		fclose(f);
	}
	assert_true(snapshot_len < sizeof(snapshot_buf) - 1);
	return 0;
}

static char *snapshot(void)
{
	snapshot_len = 0;
	assert_int_equal(nftw(tree, add_to_snapshot, 16, FTW_PHYS), 0);
	snapshot_buf[snapshot_len] = 0;
	return strdup(snapshot_buf);
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

/* How many records of event ev the kernel's own rendering of the fixture shows. */
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

/* --- the test's tool --------------------------------------------------------------------- */

/* The stages run, one line each, in the file stages (appended: a child writes it). */
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

static char *stages_run(void)
{
	static char buf[8192];
	assert_non_null(read_file(tree, "stages", buf, sizeof(buf)));
	return buf;
}

/* What the test's tool does at each stage: which one fails, and how. */
static struct {
	const char *fail_at; /* a stage's name */
	int fail_with;	     /* its return */
	bool mark_failed;    /* the handler sets t->failed instead */
} how;

static int issued, completed;

static const struct opt_spec options[] = {
	TOOL_DURATION,
	TOOL_PID,
	TOOL_TID,
	TOOL_NAME,
	TOOL_JSON("one JSON object per event"),
	{'x', NULL, NULL, "the tool's own option", 0},
	TOOL_EXEC,
	TOOL_OPT_END,
};

static int result(const char *name)
{
	stage("%s", name);
	return how.fail_at && !strcmp(how.fail_at, name) ? how.fail_with : TOOL_OK;
}

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	(void)t;
	(void)arg;
	stage("option %c", o->key);
}

static void operands(struct tool_run *t, int argc, char **argv)
{
	stage("operands %d", argc);
	tool_operand_interval(t, argc, argv);
}

/* A fake tree holds plain directories: tracefs's rmdir removes a populated instance, a
 * plain one must be emptied first (before the driver removes it). */
static int unlink_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	if (ftw->level > 0)
		(flag == FTW_DP ? rmdir : unlink)(path);
	return 0;
}

/* Also the task-naming instance's, removed after the tool's. */
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

static enum tool_code prepare(struct tool_run *t)
{
	t->follow_names = false; /* followed for -n only: the driver's choice */
	if (session_on_close(&t->s, SESSION_BEFORE_REMOVE, empty_instances, NULL))
		return TOOL_FAIL;
	snprintf(t->traced, sizeof(t->traced), "fake events");
	return result("prepare");
}

static enum tool_code instance(struct tool_run *t)
{
	char rel[256];
	snprintf(rel, sizeof(rel), "instances/%s", t->s.name);
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	if (access(path, F_OK))
		stage("no instance in instance()");
	return result("instance");
}

static void on_issue(struct tep_record *rec, void *ctx)
{
	(void)rec;
	struct tool_run *t = ctx;
	issued++;
	if (how.mark_failed)
		t->failed = true;
}

static void on_complete(struct tep_record *rec, void *ctx)
{
	(void)rec;
	(void)ctx;
	completed++;
}

static enum tool_code setup(struct tool_run *t)
{
	struct tep_event *issue = tep_find_event_by_name(t->s.tep, "block", "block_rq_issue");
	struct tep_event *complete = tep_find_event_by_name(t->s.tep, "block", "block_rq_complete");
	if (!issue || !complete)
		return TOOL_FAIL;
	if (t->o.pid)
		stage("pid %s", t->o.pid == t->child.pid ? "of the command" : "given");
	int ret = tool_trace(t, issue, NULL, on_issue, t);
	if (!ret)
		ret = tool_trace(t, complete, "error != 0", on_complete, t);
	if (ret)
		return ret;
	return result("setup");
}

static void banner(struct tool_run *t)
{
	(void)t;
	stage("banner");
}

static void header(struct tool_run *t)
{
	(void)t;
	stage("header");
}

static int interval(struct tool_run *t, uint64_t now)
{
	(void)now;
	stage("interval %d", t->intervals);
	return 0;
}

/* Also what the instance holds now, while it is still there. */
static void end(struct tool_run *t)
{
	char buf[1024];
	stage("end issued %d completed %d", issued, completed);
	static const char *const files[] = {"events/block/block_rq_issue/filter",
					    "events/block/block_rq_complete/filter",
					    "events/block/block_rq_issue/enable", "set_event_pid"};
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		char rel[600];
		snprintf(rel, sizeof(rel), "instances/%s/%s", t->s.name, files[i]);
		if (!read_file(tree, rel, buf, sizeof(buf)))
			snprintf(buf, sizeof(buf), "(missing)");
		buf[strcspn(buf, "\n")] = 0;
		stage("%s: %s", files[i], buf);
	}
}

static void cleanup(struct tool_run *t)
{
	(void)t;
	stage("cleanup");
}

static const char *const formats[] = {"block", NULL};

static const struct tool fake = {
	.name = "faketool",
	.opts = options,
	.operands = "[interval [count]]",
	.formats = formats,
	.option = option,
	.operands_fn = operands,
	.prepare = prepare,
	.instance = instance,
	.setup = setup,
	.banner = banner,
	.header = header,
	.interval = interval,
	.end = end,
	.cleanup = cleanup,
};

/* Run the tool in a child on argv (NULL-terminated, without the name); its exit status and
 * stderr. The child is cut off after 60 s (a run that never ends). */
static void run_tool(const void *arg)
{
	char *const *args = arg;
	char *argv[32] = {"faketool"};
	int argc = 1;
	while (args[argc - 1])
		argv[argc] = args[argc - 1], argc++;
	alarm(60);
	exit(tool_main(&fake, argc, argv));
}

static int tool(char *err, size_t len, ...)
{
	static char *args[32];
	va_list ap;
	va_start(ap, len);
	int n = 0;
	while ((args[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	return run_child(run_tool, args, err, len);
}

/* The line of the stages log that begins with prefix (its rest), or NULL. */
static const char *stage_line(const char *prefix)
{
	static char line[1024];
	const char *all = stages_run();
	size_t len = strlen(prefix);
	for (const char *p = all; *p; p = strchr(p, '\n') + 1) {
		if (!strncmp(p, prefix, len)) {
			snprintf(line, sizeof(line), "%.*s", (int)strcspn(p + len, "\n"), p + len);
			return line;
		}
	}
	return NULL;
}

/* --- tests ------------------------------------------------------------------------------- */

/*
 * Stages in their order; two intervals (the count) end the run, end() comes after the last
 * events are read (every block_rq_issue the fixture holds, and no completion: its filter is
 * the kernel's to apply, and here no kernel applies it); the instance is gone at the end.
 */
static void test_stages_in_order(void **state)
{
	(void)state;
	char err[2048];
	int st = tool(err, sizeof(err), "-x", "0.05", "2", NULL);
	if (st != 0)
		fail_msg("exit %d, stderr '%s'", st, err);
	char want[512];
	snprintf(want, sizeof(want),
		 "option x\noperands 2\nprepare\ninstance\nsetup\nbanner\nheader\ninterval "
		 "1\ninterval 2\nend issued %d completed %d\n",
		 fixture_count("block_rq_issue"), fixture_count("block_rq_complete"));
	const char *got = stages_run();
	if (strncmp(got, want, strlen(want)))
		fail_msg("stages:\n%s\nwanted first:\n%s", got, want);
	assert_non_null(strstr(got, "\ncleanup\n"));
	assert_int_equal(instances_in_tree(), 0);
	assert_string_equal(err, ""); /* the banner was the tool's own */
}

/*
 * What tool_trace wrote: the shared filter (this process left out, but not interrupts that
 * land on it) with the tool's own, then enable. -n on an event with a comm field of its own
 * (block_rq_issue's is the submitter's) is checked here on the names the run followed (the
 * kernel's "comm" would be that field); on one without, the kernel filters.
 */
static void test_trace_filters(void **state)
{
	(void)state;
	char err[2048], want[256];
	assert_int_equal(tool(err, sizeof(err), "-d", "0.01", "-n", "ftt-nomatch*", NULL), 0);
	const char *issue = stage_line("events/block/block_rq_issue/filter: ");
	assert_non_null(issue);
	/* The child's PID is not known here: the filter's shape is. */
	assert_int_equal(strncmp(issue, "(common_pid != ", 15), 0);
	assert_non_null(strstr(issue, " || common_flags & 88)"));
	assert_null(strstr(issue, "comm ~"));
	const char *complete = stage_line("events/block/block_rq_complete/filter: ");
	assert_non_null(complete);
	snprintf(want, sizeof(want), "%.*s && (error != 0) && comm ~ \"ftt-nomatch*\"",
		 (int)(strchr(issue, ')') - issue + 1), issue);
	assert_string_equal(complete, want);
	assert_string_equal(stage_line("events/block/block_rq_issue/enable: "), "1");
	/* No task of the recording has that name: its block_rq_issue records were dropped. */
	assert_non_null(strstr(stages_run(), "end issued 0 "));
	write_file(tree, "stages", "");
	assert_int_equal(tool(err, sizeof(err), "-d", "0.01", "-n", "*", NULL), 0);
	snprintf(want, sizeof(want), "end issued %d ", fixture_count("block_rq_issue"));
	assert_non_null(strstr(stages_run(), want));
	assert_int_equal(instances_in_tree(), 0);
}

/* A stage that fails: the run exits with its status, the tool's cleanup runs, end() does
 * not, and the instance is removed. A handler that sets failed: the run ends as it would
 * and exits 1. */
static void test_stage_fails(void **state)
{
	(void)state;
	static const struct {
		const char *stage;
		int ret, exit;
	} cases[] = {
		{"instance", TOOL_FAIL, 1},
		{"setup", TOOL_FAIL, 1},
		{"setup", TOOL_USAGE, 2},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char err[2048];
		write_file(tree, "stages", "");
		how.fail_at = cases[i].stage;
		how.fail_with = cases[i].ret;
		int st = tool(err, sizeof(err), "-d", "5", NULL);
		how.fail_at = NULL;
		if (st != cases[i].exit)
			fail_msg("%s: exit %d, stderr '%s'", cases[i].stage, st, err);
		const char *got = stages_run();
		assert_null(strstr(got, "end "));
		assert_null(strstr(got, "banner"));
		assert_non_null(strstr(got, "cleanup\n"));
		if (instances_in_tree())
			fail_msg("%s failed: the instance was left", cases[i].stage);
	}
	how.mark_failed = true;
	char err[2048];
	write_file(tree, "stages", "");
	assert_int_equal(tool(err, sizeof(err), "-d", "0.01", NULL), 1);
	how.mark_failed = false;
	assert_non_null(strstr(stages_run(), "end issued"));
	assert_int_equal(instances_in_tree(), 0);
}

/*
 * A usage error, by the options, the operands or prepare(): exit 2, one line on stderr, and
 * the tree as it was: no instance made, and not even a dead run's instance swept (the sweep
 * comes after prepare()).
 */
static void test_usage_errors_change_nothing(void **state)
{
	(void)state;
	pid_t dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	char stale[128], rel[160];
	snprintf(stale, sizeof(stale), "ftrace-tools-faketool-%d_123_abcd", (int)dead);
	snprintf(rel, sizeof(rel), "instances/%s/x", stale);
	write_file(tree, rel, "");
	snprintf(rel, sizeof(rel), "%s/instances/%s/x", tree, stale);
	unlink(rel); /* an empty directory: the sweep could remove it */
	char *before = snapshot();
	char pid[16];
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	static char *const cases[][6] = {
		{"-d", "soon", NULL},  {"-d", "-1", NULL},
		{"-p", "0", NULL},     {"-p", "99999999", NULL},
		{"-Z", NULL},	       {"-p", "1", "-L", "1", NULL},
		{"1", "2", "3", NULL}, {"0.5", "0", NULL},
		{"--exec", NULL},      {"-p", "1", "--exec", "/bin/true", NULL},
		{"-n", "[", NULL},     {"-d", "1", "-d", "2", NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char err[2048];
		write_file(tree, "stages", "");
		int st = run_child(run_tool, cases[i], err, sizeof(err));
		if (st != 2 || strchr(err, '\n') != err + strlen(err) - 1 ||
		    strncmp(err, "faketool: ", 10))
			fail_msg("case %zu (%s %s): exit %d, stderr '%s'", i, cases[i][0],
				 cases[i][1] ? cases[i][1] : "", st, err);
		assert_null(strstr(stages_run(), "prepare"));
	}
	how.fail_at = "prepare";
	how.fail_with = TOOL_USAGE;
	char err[2048];
	assert_int_equal(tool(err, sizeof(err), "-d", "1", NULL), 2);
	how.fail_with = TOOL_FAIL;
	assert_int_equal(tool(err, sizeof(err), "-d", "1", NULL), 1);
	how.fail_at = NULL;
	char *after = snapshot();
	assert_string_equal(after, before);
	free(after);
	free(before);
	/* The same run without the usage error sweeps it. */
	assert_int_equal(tool(err, sizeof(err), "-d", "0.01", NULL), 0);
	assert_non_null(strstr(err, stale));
	assert_int_equal(instances_in_tree(), 0);
}

/* A duration by -d and by the operand: a usage error, whichever comes first (the operand
 * won without a word). */
static void duration_operand(const void *arg)
{
	static struct tool_run t;
	char *argv[] = {(char *)arg, NULL};
	t.o.duration = 1000000000;
	tool_operand_duration(&t, 1, argv);
}

static void test_duration_twice(void **state)
{
	(void)state;
	assert_usage_error(duration_operand, "3", "duration given twice: -d and '3'");
	struct tool_run t = {0};
	char *argv[] = {"2.5", NULL};
	tool_operand_duration(&t, 1, argv);
	assert_int_equal(t.o.duration, 2500000000ULL);
}

/* prepare() that did all there was to do (-l, -v): exit 0, nothing made. */
static void test_prepare_done(void **state)
{
	(void)state;
	char err[2048];
	char *before = snapshot();
	how.fail_at = "prepare";
	how.fail_with = TOOL_DONE;
	assert_int_equal(tool(err, sizeof(err), "-d", "1", NULL), 0);
	how.fail_at = NULL;
	char *after = snapshot();
	assert_string_equal(after, before);
	free(after);
	free(before);
	assert_string_equal(stages_run(), "operands 0\nprepare\ncleanup\n");
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* -d ends the run after that long, with every recorded event read, no interval without
 * interval operands; -j leaves out the header. */
static void test_duration_ends_run(void **state)
{
	(void)state;
	char err[2048];
	double t0 = now_s();
	assert_int_equal(tool(err, sizeof(err), "-d", "0.6", "-j", NULL), 0);
	double took = now_s() - t0;
	if (took < 0.6 || took > 10)
		fail_msg("-d 0.6 took %.2f s", took);
	const char *got = stages_run();
	assert_null(strstr(got, "interval"));
	assert_null(strstr(got, "header"));
	char want[64];
	snprintf(want, sizeof(want), "end issued %d ", fixture_count("block_rq_issue"));
	assert_non_null(strstr(got, want));
}

/* Losses the kernel counted are said at the end, with their number: a run whose CPU 1
 * stats read stats says want on stderr. */
static const char *loss_stats;

static void losses(const char *dir)
{
	fill_instance(dir);
	write_file(dir, "per_cpu/cpu1/stats", loss_stats);
}

static void losses_said(const char *stats, const char *want)
{
	char err[2048];
	loss_stats = stats;
	session_after_mkdir = losses;
	assert_int_equal(tool(err, sizeof(err), "-d", "0.01", NULL), 0);
	session_after_mkdir = fill_instance;
	assert_string_equal(err, want);
}

static void test_losses_said(void **state)
{
	(void)state;
	losses_said("entries: 0\noverrun: 12\ncommit overrun: 3\n",
		    "faketool: 15 events were lost in all: the kernel's buffer was "
		    "full (FTT_BUFFER_KB sets a larger one)\n"
		    "faketool: 3 of them were dropped where no page of the buffer "
		    "marks (commit overruns): what they cut is not marked\n");
}

/* Overruns alone are marked where they happened (the next page says so): nothing more. */
static void test_overruns_said(void **state)
{
	(void)state;
	losses_said("entries: 0\noverrun: 12\ncommit overrun: 0\n",
		    "faketool: 12 events were lost in all: the kernel's buffer was "
		    "full (FTT_BUFFER_KB sets a larger one)\n");
}

/*
 * --exec: the command is found before anything is made (not found: exit 1, one line, the
 * tree as it was); it is the run's -p, and its end ends the run; a failing command is said,
 * the tool's status stays its own.
 */
static void test_exec(void **state)
{
	(void)state;
	char err[2048];
	char *before = snapshot();
	assert_int_equal(tool(err, sizeof(err), "--exec", "/nonexistent/cmd", "-x", NULL), 1);
	assert_string_equal(err, "faketool: cannot run '/nonexistent/cmd': No such file or "
				 "directory\n");
	char *after = snapshot();
	assert_string_equal(after, before);
	free(after);
	free(before);
	assert_null(strstr(stages_run(), "prepare"));

	write_file(tree, "stages", "");
	double t0 = now_s();
	assert_int_equal(tool(err, sizeof(err), "--exec", "/bin/sh", "-c", "exit 3", "-x", NULL),
			 0);
	if (now_s() - t0 > 10)
		fail_msg("the run did not end with the command");
	assert_string_equal(err, "faketool: '/bin/sh' exited with status 3\n");
	const char *got = stages_run();
	assert_null(strstr(got, "option x")); /* -x was the command's */
	assert_non_null(strstr(got, "pid of the command\n"));
	const char *pids = stage_line("set_event_pid: ");
	assert_non_null(pids);
	assert_true(atoi(pids) > 0);
	assert_int_equal(instances_in_tree(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stages_in_order, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_trace_filters, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_stage_fails, make_tree, remove_tree),
		cmocka_unit_test(test_duration_twice),
		cmocka_unit_test_setup_teardown(test_usage_errors_change_nothing, make_tree,
						remove_tree),
		cmocka_unit_test_setup_teardown(test_prepare_done, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_duration_ends_run, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_losses_said, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_overruns_said, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_exec, make_tree, remove_tree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
