// SPDX-License-Identifier: GPL-2.0-only
/*
 * User strings (ustr.c): the fetch templates expanded to the ABI's registers, and the rungs'
 * probes on a fake tracefs tree: uprobes on the C library once per address, an event probe
 * on a syscall's entry, kprobes only where the kernel has them. (The climb from rung to
 * rung is ladder.c's: test_ladder.)
 *
 * As in test_funcpair: libtracefs 1.6 answers whether a kind of probe exists from the
 * system's tracefs (a rung the running kernel lacks is skipped, saying so), and the probe
 * files here are a pipe, so every definition written is kept in order.
 */
#define _GNU_SOURCE /* pipe2 */
#include "helpers.h"

#include <stdint.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "base/runid.h"
#include "kernel/session.h"
#include "base/state.h"
#include "domain/ustr.h"
#include "stream/usym.h"

static char tree[64];
static int defs[2] = {-1, -1};
static struct session s;

static void put_format(const char *name, int id)
{
	char rel[256], text[1024];
	snprintf(rel, sizeof(rel), "events/ftt_%s/%s/format", runid_self(), name);
	snprintf(text, sizeof(text),
		 "name: %s\nID: %d\nformat:\n"
		 "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		 "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		 "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		 "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		 "\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
		 "\tfield:__data_loc char[] file;\toffset:16;\tsize:4;\tsigned:1;\n\n"
		 "print fmt: \"(%%lx) file=\\\"%%s\\\"\", REC->__probe_ip, __get_str(file)\n",
		 name, id);
	write_file(tree, rel, text);
}

static int make_tree(void **state)
{
	(void)state;
	strcpy(tree, "/tmp/ftt-ustr-XXXXXX");
	assert_non_null(mkdtemp(tree));
	char cmd[4096];
	int n = snprintf(cmd, sizeof(cmd), "cp -r %s/block-6.18/events %s/", FIXTURES, tree);
	/* cut short, the command would be another one */
	assert_true(n > 0 && (size_t)n < sizeof(cmd));
	assert_int_equal(system(cmd), 0);
	assert_int_equal(pipe2(defs, O_NONBLOCK | O_CLOEXEC), 0);
	char link[128], fd[64];
	snprintf(fd, sizeof(fd), "/proc/%d/fd/%d", (int)getpid(), defs[1]);
	static const char *const files[] = {"uprobe_events", "kprobe_events", "dynamic_events"};
	for (int i = 0; i < 3; i++) {
		snprintf(link, sizeof(link), "%s/%s", tree, files[i]);
		assert_int_equal(symlink(fd, link), 0);
	}
	write_file(tree, "README", "\t$arg<N>\t: Fetch the Nth function argument\n\tustring\n");
	put_format("open64", 4001);
	put_format("openat", 4002);
	put_format("path", 4003);
	assert_int_equal(tracefs_set_tracing_dir(tree), 0);
	static char run[128];
	snprintf(run, sizeof(run), "%s/run", tree);
	state_dir_for_tests = run;
	state_fake_tracefs = true;
	static const char *const systems[] = {"block", NULL};
	assert_int_equal(session_init(&s, "us", systems), 0);
	return 0;
}

static int remove_tree(void **state)
{
	(void)state;
	session_close(&s); /* the probes' removal lines go to the pipe */
	close(defs[0]);
	close(defs[1]);
	rm_rf(tree);
	return 0;
}

static const char *definitions(void)
{
	static char buf[8192];
	ssize_t n = read(defs[0], buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	return buf;
}

/* --- templates ---------------------------------------------------------------------------- */

static void test_expand(void **state)
{
	(void)state;
	char out[128];
#if defined(__x86_64__)
	assert_int_equal(ustr_expand("file=+0($2):string flags=$3:u64", out, sizeof(out)), 0);
	assert_string_equal(out, "file=+0(%si):string flags=%dx:u64");
	assert_int_equal(ustr_expand("a=$1 b=$6 $$1 $0 $", out, sizeof(out)), 0);
	assert_string_equal(out, "a=%di b=%r9 $%di $0 $");
	/* exactly the room it needs, NUL included; one byte less is refused */
	assert_int_equal(ustr_expand("x=$1", out, 6), 0);
	assert_string_equal(out, "x=%di");
	assert_int_equal(ustr_expand("x=$1", out, 5), -1);
#else
	skip(); /* the registers are x86-64's here */
#endif
	/* a 7th argument is on the stack: no register to name */
	assert_int_equal(ustr_expand("x=$7", out, sizeof(out)), -1);
	/* 100 KB of template into 128 bytes: refused, nothing written past them */
	size_t big = 100 * 1024;
	char *tmpl = malloc(big + 1);
	assert_non_null(tmpl);
	for (size_t i = 0; i < big; i += 2)
		memcpy(tmpl + i, "$1", 2);
	tmpl[big] = 0;
	char guarded[sizeof(out) + 16];
	memset(guarded, 'G', sizeof(guarded));
	assert_int_equal(ustr_expand(tmpl, guarded, sizeof(out)), -1);
	for (size_t i = sizeof(out); i < sizeof(guarded); i++)
		assert_int_equal(guarded[i], 'G');
	free(tmpl);
}

/* --- the rungs' probes -------------------------------------------------------------------- */

static bool kernel_has(const char *file, const char *config)
{
	if (tracefs_file_exists(NULL, file))
		return true;
	print_message("the running kernel has no %s (%s): skipped\n", file, config);
	return false;
}

struct made {
	int n, idx[8];
	const char *name[8];
};

static void on_made(struct tep_event *ev, int i, void *ctx)
{
	struct made *m = ctx;
	m->idx[m->n] = i;
	m->name[m->n++] = ev->name;
}

/* One uprobe per address of the C library's functions: an alias (open, the same function as
 * open64) and a function it lacks are left out, made() told the index of each made; the
 * template as registers; removed when the session closes. */
/* The companion's fetches: each string's address, by its slot; nothing else kept. */
static void test_bare_args(void **state)
{
	(void)state;
	char out[96];
	assert_int_equal(ustr_bare_args("s0=+0($2):string", out, sizeof(out)), 0);
	assert_string_equal(out, "p0=$2:u64");
	assert_int_equal(ustr_bare_args("s0=+0($1):string s1=+0($2):string s3=+0($5):string", out,
					sizeof(out)),
			 0);
	assert_string_equal(out, "p0=$1:u64 p1=$2:u64 p3=$5:u64");
	assert_int_equal(ustr_bare_args("x=$1 s0=+0(%si):string end=$comm", out, sizeof(out)), 0);
	assert_string_equal(out, "p0=%si:u64");
	assert_int_equal(ustr_bare_args("s0=+0($1):string s1=+0($2):string", out, 12), -1);
}

/* A string read late from a task's memory (this process's): its first bytes, its length to
 * the NUL past what is kept; a task that is not there: false. */
static void test_read_late(void **state)
{
	(void)state;
	static char big[200000];
	char buf[4096];
	size_t len = 0;
	memset(big, 'b', sizeof(big) - 1);
	big[6000] = 0;
	assert_true(ustr_read_late((int)getpid(), (uintptr_t)big, buf, sizeof(buf), &len));
	assert_int_equal(strlen(buf), 4095);
	assert_int_equal(len, 6000);
	big[6000] = 'b'; /* over 128 KB: its length not known */
	assert_true(ustr_read_late((int)getpid(), (uintptr_t)big, buf, sizeof(buf), &len));
	assert_int_equal(len, SIZE_MAX);
	assert_true(ustr_read_late((int)getpid(), (uintptr_t) "short", buf, sizeof(buf), &len));
	assert_string_equal(buf, "short");
	assert_int_equal(len, 5);
	assert_false(ustr_read_late(999999999, (uintptr_t)big, buf, sizeof(buf), &len));
}

static void test_uprobes(void **state)
{
	(void)state;
	if (!kernel_has("uprobe_events", "CONFIG_UPROBE_EVENTS"))
		skip();
#if !defined(__x86_64__)
	skip();
#endif
	char lib[1024], why[256], want[4096];
	unsigned long long off64, off, offat;
	assert_int_equal(usym_target("libc", lib, sizeof(lib)), 0);
	assert_int_equal(usym_offset(lib, "open64", false, &off64, why, sizeof(why)), 0);
	assert_int_equal(usym_offset(lib, "open", false, &off, why, sizeof(why)), 0);
	assert_int_equal(usym_offset(lib, "openat", false, &offat, why, sizeof(why)), 0);
	assert_int_equal(off, off64); /* what this test is about: one function, two names */
	static const struct ustr_func fs[] = {
		{"open64", "file=+0($1):string", NULL},
		{"open", "file=+0($1):string", NULL},
		{"ftt_no_such_function", "file=+0($1):string", NULL},
		{"openat", "file=+0($2):string", NULL},
	};
	struct made m = {0};
	char found[1024];
	const char *reason = NULL;
	assert_int_equal(ustr_uprobes(&s, fs, 4, on_made, &m, found, sizeof(found), &reason), 2);
	assert_string_equal(found, lib);
	assert_int_equal(m.n, 2);
	assert_int_equal(m.idx[0], 0);
	assert_string_equal(m.name[0], "open64");
	assert_int_equal(m.idx[1], 3);
	assert_string_equal(m.name[1], "openat");
	snprintf(want, sizeof(want),
		 "p:ftt_%s/open64 %s:0x%016llx file=+0(%%di):string\n"
		 "p:ftt_%s/openat %s:0x%016llx file=+0(%%si):string\n",
		 runid_self(), lib, off64, runid_self(), lib, offat);
	assert_string_equal(definitions(), want);
	session_close(&s);
	snprintf(want, sizeof(want), "-:ftt_%s/openat-:ftt_%s/open64", runid_self(), runid_self());
	assert_string_equal(definitions(), want);

	/* none of them: -1, and why */
	static const struct ustr_func none[] = {{"ftt_no_such_function", "x=$1", NULL}};
	memset(&m, 0, sizeof(m));
	assert_int_equal(ustr_uprobes(&s, none, 1, on_made, &m, found, sizeof(found), &reason), -1);
	assert_string_equal(reason, "the C library has none of the functions");
	assert_int_equal(m.n, 0);
	assert_string_equal(definitions(), "");
}

/* An event probe on the syscall's entry tracepoint, in the run's group. */
static void test_eprobe(void **state)
{
	(void)state;
	if (!kernel_has("dynamic_events", "CONFIG_DYNAMIC_EVENTS"))
		skip();
	struct tep_event *ev = ustr_eprobe(&s, "path", "openat", "file=+0($filename):ustring");
	assert_non_null(ev);
	assert_string_equal(ev->name, "path");
	char want[512];
	snprintf(want, sizeof(want),
		 "e:ftt_%s/path syscalls.sys_enter_openat "
		 "file=+0($filename):ustring\n",
		 runid_self());
	assert_string_equal(definitions(), want);
}

/* kprobes where the kernel has them: the first function it takes; none where it has none,
 * quietly (the next rung is tried). */
static void test_kprobe(void **state)
{
	(void)state;
	static const struct ustr_kfunc fs[] = {
		{'p', "do_filp_open", "path=+0(+8(%si)):string"},
		{'r', "getname", "file=+0(+0($retval)):string"},
	};
	int which = -1;
	if (!tracefs_file_exists(NULL, "kprobe_events")) {
		fflush(stderr);
		int saved = dup(2), p[2];
		assert_int_equal(pipe(p), 0);
		dup2(p[1], 2);
		close(p[1]);
		struct tep_event *ev = ustr_kprobe(&s, "path", fs, 2, &which);
		fflush(stderr);
		dup2(saved, 2);
		close(saved);
		fcntl(p[0], F_SETFL, O_NONBLOCK);
		char err[512];
		ssize_t n = read(p[0], err, sizeof(err) - 1);
		close(p[0]);
		assert_null(ev);
		assert_int_equal(which, -1);
		assert_true(n <= 0); /* nothing said */
		assert_string_equal(definitions(), "");
		return;
	}
	struct tep_event *ev = ustr_kprobe(&s, "path", fs, 2, &which);
	assert_non_null(ev);
	assert_int_equal(which, 0);
	char want[512];
	snprintf(want, sizeof(want), "p:ftt_%s/path do_filp_open path=+0(+8(%%si)):string\n",
		 runid_self());
	assert_string_equal(definitions(), want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_bare_args),
		cmocka_unit_test(test_read_late),
		cmocka_unit_test_setup_teardown(test_uprobes, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_eprobe, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_kprobe, make_tree, remove_tree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
