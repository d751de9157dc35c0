// SPDX-License-Identifier: GPL-2.0-only
/*
 * A function's calls as entry and return probes (funcpair.c), on a fake tracefs tree: the
 * probes funcpair_probes defines for a C library function, then the pairing of ring-buffer
 * pages built here in the kernel's layout (a uprobe's and a uretprobe's records, as Linux 6.x
 * writes them): nested calls of a thread paired each with its own entry, threads apart, a
 * thread that moved CPUs, recursion deeper than the table, returns without an entry, and a
 * loss that clears what could pair the wrong two; a string argument kept with its call (cut,
 * empty, or a fault); the report at the end.
 *
 * libtracefs 1.6 answers tracefs_file_exists(NULL, ...) from the system's tracefs even when
 * pointed at another tree: whether uprobes are available is the running kernel's answer
 * (without CONFIG_UPROBE_EVENTS the probe tests are skipped, saying so). Its "append" opens
 * without O_APPEND (tracefs appends by itself): uprobe_events here is a pipe, so every line
 * written is kept, in order.
 */
#define _GNU_SOURCE /* nftw */
#include "helpers.h"

#include <ftw.h>
#include <stdint.h>

#include <event-parse.h>
#include <tracefs.h>

#include "join/funcpair.h"
#include "base/opt.h"
#include "stream/reader.h"
#include "base/runid.h"
#include "base/state.h"
#include "tool.h"
#include "stream/usym.h"

#define ENTRY_ID 3001
#define RET_ID 3002

static char tree[64], pages[96], entry_name[32], ret_name[32];
static int defs[2] = {-1, -1}; /* the pipe uprobe_events writes into */

static const struct tool fake = {.name = "fp"};
static struct tool_run t;
static struct funcpair fp;

static void put_formats(void)
{
	char rel[256], text[2048];
	static const char *const common =
		"format:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n";
	snprintf(rel, sizeof(rel), "events/ftt_%s/%s/format", runid_self(), entry_name);
	snprintf(text, sizeof(text),
		 "name: %s\nID: %d\n%s"
		 "\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
		 "\tfield:u64 a1;\toffset:16;\tsize:8;\tsigned:0;\n"
		 "\tfield:__data_loc char[] str;\toffset:24;\tsize:4;\tsigned:1;\n"
		 "\tfield:u64 m0;\toffset:32;\tsize:8;\tsigned:0;\n"
		 "\tfield:u64 m1;\toffset:40;\tsize:8;\tsigned:0;\n"
		 "\tfield:u64 m2;\toffset:48;\tsize:8;\tsigned:0;\n\n"
		 "print fmt: \"(%%lx) a1=%%Lu str=\\\"%%s\\\"\", REC->__probe_ip, REC->a1, "
		 "__get_str(str)\n",
		 entry_name, ENTRY_ID, common);
	write_file(tree, rel, text);
	snprintf(rel, sizeof(rel), "events/ftt_%s/%s/format", runid_self(), ret_name);
	snprintf(text, sizeof(text),
		 "name: %s\nID: %d\n%s"
		 "\tfield:unsigned long __probe_func;\toffset:8;\tsize:8;\tsigned:0;\n"
		 "\tfield:unsigned long __probe_ret_ip;\toffset:16;\tsize:8;\tsigned:0;\n"
		 "\tfield:s64 ret;\toffset:24;\tsize:8;\tsigned:1;\n\n"
		 "print fmt: \"(%%lx <- %%lx) ret=%%Ld\", REC->__probe_func, REC->__probe_ret_ip, "
		 "REC->ret\n",
		 ret_name, RET_ID, common);
	write_file(tree, rel, text);
}

/* A new instance, as the kernel fills it: the probes' files among its events. */
static void fill_instance(const char *dir)
{
	char rel[256];
	write_file(dir, "tracing_on", "1\n");
	write_file(dir, "trace_clock", "[local] global mono\n");
	const char *names[] = {entry_name, ret_name};
	for (int i = 0; i < 2; i++) {
		snprintf(rel, sizeof(rel), "events/ftt_%s/%s/enable", runid_self(), names[i]);
		write_file(dir, rel, "0\n");
		snprintf(rel, sizeof(rel), "events/ftt_%s/%s/filter", runid_self(), names[i]);
		write_file(dir, rel, "none\n");
	}
}

static int make_tree(void **state)
{
	(void)state;
	strcpy(tree, "/tmp/ftt-funcpair-XXXXXX");
	assert_non_null(mkdtemp(tree));
	snprintf(pages, sizeof(pages), "%s/pages", tree);
	char cmd[4096];
	int n = snprintf(cmd, sizeof(cmd), "cp -r %s/block-6.18/events %s/ && mkdir %s/instances",
			 FIXTURES, tree, tree);
	/* cut short, the command would be another one */
	assert_true(n > 0 && (size_t)n < sizeof(cmd));
	assert_int_equal(system(cmd), 0);
	assert_int_equal(pipe2(defs, O_NONBLOCK | O_CLOEXEC), 0);
	char link[128], fd[64];
	snprintf(fd, sizeof(fd), "/proc/%d/fd/%d", (int)getpid(), defs[1]);
	/* libtracefs 1.6 writes definitions to dynamic_events where it exists */
	static const char *const files[] = {"uprobe_events", "dynamic_events"};
	for (int i = 0; i < 2; i++) {
		snprintf(link, sizeof(link), "%s/%s", tree, files[i]);
		assert_int_equal(symlink(fd, link), 0);
	}
	write_file(tree, "README", "\t$arg<N>\t: Fetch the Nth function argument\n\tustring\n");
	snprintf(entry_name, sizeof(entry_name), "fp_entry_%d", (int)getpid());
	snprintf(ret_name, sizeof(ret_name), "fp_ret_%d", (int)getpid());
	put_formats();
	assert_int_equal(tracefs_set_tracing_dir(tree), 0);
	static char run[128];
	snprintf(run, sizeof(run), "%s/run", tree);
	state_dir_for_tests = run;
	state_fake_tracefs = true;
	session_after_mkdir = fill_instance;
	static const char *const systems[] = {"block", NULL};
	memset(&t, 0, sizeof(t));
	t.tool = &fake;
	assert_int_equal(session_init(&t.s, "fp", systems), 0);
	assert_int_equal(session_start(&t.s, 0), 0);
	memset(&fp, 0, sizeof(fp));
	return 0;
}

/* What was written to uprobe_events since the last call. */
static const char *definitions(void)
{
	static char buf[8192];
	ssize_t n = read(defs[0], buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	return buf;
}

static bool have_uprobes(void)
{
	if (tracefs_file_exists(NULL, "uprobe_events"))
		return true;
	print_message("the running kernel has no uprobe_events (CONFIG_UPROBE_EVENTS): "
		      "skipped\n");
	return false;
}

static int unlink_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	if (ftw->level > 0)
		(flag == FTW_DP ? rmdir : unlink)(path);
	return 0;
}

static int remove_tree(void **state)
{
	(void)state;
	funcpair_free(&fp);
	/* A plain directory, not tracefs: emptied before the session removes it. */
	if (t.s.dir)
		nftw(t.s.dir, unlink_one, 16, FTW_DEPTH | FTW_PHYS);
	session_close(&t.s);
	session_after_mkdir = NULL;
	close(defs[0]);
	close(defs[1]);
	rm_rf(tree);
	return 0;
}

/* --- ring-buffer pages, as the kernel lays them out ---------------------------------------- */

struct page {
	unsigned char b[4096];
	size_t len;    /* of the data, after the 16-byte header */
	uint64_t last; /* the time of the last record (the first's delta is from the page's) */
	long long missed;
};

static void page_start(struct page *p, uint64_t ts, long long missed)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->b, &ts, 8);
	p->last = ts;
	p->missed = missed;
}

/* One record: a 4-byte header (length in words, 27-bit time delta), then its data. */
static void page_add(struct page *p, uint64_t ts, const void *data, size_t len)
{
	assert_true(len % 4 == 0 && len <= 112 && ts >= p->last && ts - p->last < (1u << 27));
	uint32_t hdr = (uint32_t)(len / 4) | (uint32_t)((ts - p->last) << 5);
	assert_true(16 + p->len + 4 + len + 8 <= sizeof(p->b));
	memcpy(p->b + 16 + p->len, &hdr, 4);
	memcpy(p->b + 20 + p->len, data, len);
	p->len += 4 + len;
	p->last = ts;
}

struct common {
	uint16_t type;
	uint8_t flags, preempt;
	int32_t pid;
};

/* An entry with its string argument: len bytes of s, after the fixed fields (len 0: none, as
 * the kernel records a fetch that faulted). */
static void entry_str(struct page *p, uint64_t ts, int tid, uint64_t a1, const char *s, size_t len)
{
	struct {
		struct common c;
		uint64_t ip, a1;
		uint32_t str;
		char data[84];
	} e = {{ENTRY_ID, 0, 0, tid}, 0xffffffff81000000ULL, a1, (uint32_t)(len << 16 | 28), {0}};
	assert_true(len <= sizeof(e.data));
	memcpy(e.data, s, len);
	page_add(p, ts, &e, (28 + len + 3) & ~(size_t)3);
}

static void entry(struct page *p, uint64_t ts, int tid, uint64_t a1)
{
	entry_str(p, ts, tid, a1, "", 0);
}

static void ret(struct page *p, uint64_t ts, int tid, int64_t value)
{
	struct {
		struct common c;
		uint64_t func, ret_ip;
		int64_t ret;
	} r = {{RET_ID, 0, 0, tid}, 0xffffffff81000000ULL, 0xffffffff81000100ULL, value};
	page_add(p, ts, &r, sizeof(r));
}

/* Append the page to CPU cpu's buffer; a page with missed > 0 says the kernel overwrote that
 * many events before it (RB_MISSED_EVENTS, the count stored after the data). */
static void page_end(struct page *p, int cpu)
{
	unsigned long long commit = p->len;
	if (p->missed) {
		commit |= (1ULL << 31) | (1ULL << 30);
		memcpy(p->b + 16 + p->len, &p->missed, 8);
	}
	memcpy(p->b + 8, &commit, 8);
	char path[160];
	snprintf(path, sizeof(path), "%s/per_cpu/cpu%d", pages, cpu);
	char cmd[200];
	snprintf(cmd, sizeof(cmd), "mkdir -p %s", path);
	assert_int_equal(system(cmd), 0);
	strcat(path, "/trace_pipe_raw");
	FILE *f = fopen(path, "a");
	assert_non_null(f);
	assert_int_equal(fwrite(p->b, 1, sizeof(p->b), f), sizeof(p->b));
	fclose(f);
}

/* --- pairing ------------------------------------------------------------------------------ */

struct call {
	int tid;
	uint64_t entry_ts, ns, a1;
	long long ret;
	char str[16]; /* "(null)" when none came */
	size_t str_len;
};
static struct call calls[64];
static int ncalls;

static void on_call(struct tep_record *r, const struct funcpair_call *c, void *ctx)
{
	(void)ctx;
	assert_true(ncalls < 64);
	calls[ncalls] = (struct call){
		tep_data_pid(t.s.tep, r), c->entry_ts, c->ns, fp.nargs ? c->args[0] : 0,
		funcpair_retval(&fp, r),  "",	       0};
	if (fp.str_arg) {
		snprintf(calls[ncalls].str, sizeof(calls[ncalls].str), "%s",
			 c->str ? c->str : "(null)");
		calls[ncalls].str_len = c->str_len;
	}
	ncalls++;
}

static void probes(void)
{
	if (!have_uprobes())
		skip();
	fp.spec = "libc:getpid";
	fp.nargs = 1;
	fp.retval = true;
	assert_int_equal(funcpair_probes(&t, &fp, "fp"), TOOL_OK);
}

/* Read the pages (both CPUs merged in time order) through funcpair_trace's handlers. */
static void read_pages(void)
{
	ncalls = 0;
	for (int cpu = 0; cpu < 2; cpu++) { /* a CPU without events has an empty buffer */
		char rel[64];
		snprintf(rel, sizeof(rel), "pages/per_cpu/cpu%d/trace_pipe_raw", cpu);
		char path[160];
		snprintf(path, sizeof(path), "%s/%s", tree, rel);
		if (access(path, F_OK))
			write_file(tree, rel, "");
	}
	assert_int_equal(reader_open(&t.r, t.s.tep, pages, 4096, true), 0);
	assert_int_equal(funcpair_trace(&t, &fp, on_call, NULL), TOOL_OK);
	assert_int_equal(reader_drain(&t.r), 0);
	reader_close(&t.r);
}

static void want_call(int i, int tid, uint64_t entry_ts, uint64_t ns, uint64_t a1, long long rv)
{
	assert_true(i < ncalls);
	const struct call *c = &calls[i];
	if (c->tid != tid || c->entry_ts != entry_ts || c->ns != ns || c->a1 != a1 || c->ret != rv)
		fail_msg("call %d: tid %d entry %llu took %llu a1 %llu ret %lld; wanted tid %d "
			 "entry %llu took %llu a1 %llu ret %lld",
			 i, calls[i].tid, (unsigned long long)calls[i].entry_ts,
			 (unsigned long long)calls[i].ns, (unsigned long long)calls[i].a1,
			 calls[i].ret, tid, (unsigned long long)entry_ts, (unsigned long long)ns,
			 (unsigned long long)a1, rv);
}

/* The probes: the return's defined first (at one address the kernel runs the newest
 * probe's handler first: the entry's must see the stack before the return probe changes
 * it), in this run's group, the argument as this machine's register (a uprobe has no
 * $argN); removed at the end, the entry's first (the last made). */
static void test_probes_defined(void **state)
{
	(void)state;
	char lib[1024], why[256], want[8192];
	unsigned long long off;
	assert_int_equal(usym_target("libc", lib, sizeof(lib)), 0);
	assert_int_equal(usym_offset(lib, "getpid", false, &off, why, sizeof(why)), 0);
	probes();
#if defined(__x86_64__)
	const char *a1 = "%di";
#elif defined(__aarch64__)
	const char *a1 = "%x0";
#else
	skip();
	const char *a1 = "";
#endif
	snprintf(want, sizeof(want),
		 "r:ftt_%s/%s %s:0x%016llx ret=$retval:s64\np:ftt_%s/%s %s:0x%016llx a1=%s:u64\n",
		 runid_self(), ret_name, lib, off, runid_self(), entry_name, lib, off, a1);
	assert_string_equal(definitions(), want);
	assert_string_equal(fp.func, "getpid");
	assert_true(fp.user);
	funcpair_free(&fp);
	memset(&fp, 0, sizeof(fp));
	nftw(t.s.dir, unlink_one, 16, FTW_DEPTH | FTW_PHYS);
	session_close(&t.s);
	/* each a write of its own, without a newline, as libtracefs writes them */
	snprintf(want, sizeof(want), "-:ftt_%s/%s-:ftt_%s/%s", runid_self(), entry_name,
		 runid_self(), ret_name);
	assert_string_equal(definitions(), want);
}

/* A string argument: fetched at the entry, its address the argument's register. */
static void test_probes_string(void **state)
{
	(void)state;
	char lib[1024], why[256], want[8192];
	unsigned long long off;
	if (!have_uprobes())
		skip();
	assert_int_equal(usym_target("libc", lib, sizeof(lib)), 0);
	assert_int_equal(usym_offset(lib, "getpid", false, &off, why, sizeof(why)), 0);
#if defined(__x86_64__)
	const char *a2 = "%si";
#elif defined(__aarch64__)
	const char *a2 = "%x1";
#else
	skip();
	const char *a2 = "";
#endif
	fp.spec = "libc:getpid";
	fp.str_arg = 2;
	fp.str_size = 8;
	assert_int_equal(funcpair_probes(&t, &fp, "fp"), TOOL_OK);
	snprintf(want, sizeof(want),
		 "r:ftt_%s/%s %s:0x%016llx \np:ftt_%s/%s %s:0x%016llx str=+0(%s):string\n",
		 runid_self(), ret_name, lib, off, runid_self(), entry_name, lib, off, a2);
	assert_string_equal(definitions(), want);
	assert_non_null(fp.strf);
	/* the kernel cannot carry a string through its pairing */
	assert_false(funcpair_kernel(&t, &fp));
}

/* Fetches of the tool's own instead of $argN (fsslower's: a field of the first argument,
 * the name behind the second's pointers): given as this architecture's registers. */
static void test_probes_fetch(void **state)
{
	(void)state;
	if (!have_uprobes())
		skip();
	char lib[4096], why[256], want[16384];
	unsigned long long off;
	assert_int_equal(usym_target("libc", lib, sizeof(lib)), 0);
	assert_int_equal(usym_offset(lib, "getpid", false, &off, why, sizeof(why)), 0);
#if defined(__x86_64__)
	const char *a1 = "%di", *a2 = "%si";
#elif defined(__aarch64__)
	const char *a1 = "%x0", *a2 = "%x1";
#else
	skip();
	const char *a1 = "", *a2 = "";
#endif
	fp.spec = "libc:getpid";
	fp.nargs = 1;
	fp.arg_fetch[0] = "+8($arg1)";
	fp.str_fetch = "+40(+72($arg2))";
	fp.str_size = 8;
	assert_int_equal(funcpair_probes(&t, &fp, "fp"), TOOL_OK);
	snprintf(want, sizeof(want),
		 "r:ftt_%s/%s %s:0x%016llx \np:ftt_%s/%s %s:0x%016llx a1=+8(%s):u64 "
		 "str=+40(+72(%s)):string\n",
		 runid_self(), ret_name, lib, off, runid_self(), entry_name, lib, off, a1, a2);
	assert_string_equal(definitions(), want);
	assert_non_null(fp.strf);
	assert_false(funcpair_kernel(&t, &fp));
}

/* Memory an argument points to: one u64 fetch per word at the entry, at the argument's
 * register plus 8 per word; the kernel cannot carry them through its pairing. */
static void test_probes_memory(void **state)
{
	(void)state;
	char lib[1024], why[256], want[8192];
	unsigned long long off;
	if (!have_uprobes())
		skip();
	assert_int_equal(usym_target("libc", lib, sizeof(lib)), 0);
	assert_int_equal(usym_offset(lib, "getpid", false, &off, why, sizeof(why)), 0);
#if defined(__x86_64__)
	const char *a2 = "%si";
#elif defined(__aarch64__)
	const char *a2 = "%x1";
#else
	skip();
	const char *a2 = "";
#endif
	fp.spec = "libc:getpid";
	fp.nargs = 1;
	fp.mem_arg = 2;
	fp.mem_words = 3;
	assert_int_equal(funcpair_probes(&t, &fp, "fp"), TOOL_OK);
	snprintf(want, sizeof(want),
		 "r:ftt_%s/%s %s:0x%016llx \np:ftt_%s/%s %s:0x%016llx a1=%s:u64 "
		 "m0=+0(%s):u64 m1=+8(%s):u64 m2=+16(%s):u64\n",
		 runid_self(), ret_name, lib, off, runid_self(), entry_name, lib, off,
		 a2[2] == 'i' ? "%di" : "%x0", a2, a2, a2);
	assert_string_equal(definitions(), want);
	assert_non_null(fp.memf[2]);
	assert_false(funcpair_kernel(&t, &fp));
}

/* More fetches at the return: after its value, as given; the kernel cannot pair such calls. */
static void test_probes_ret_extra(void **state)
{
	(void)state;
	char lib[1024], why[256], want[8192];
	unsigned long long off;
	if (!have_uprobes())
		skip();
	assert_int_equal(usym_target("libc", lib, sizeof(lib)), 0);
	assert_int_equal(usym_offset(lib, "getpid", false, &off, why, sizeof(why)), 0);
	fp.spec = "libc:getpid";
	fp.retval = true;
	fp.ret_extra = "sp=%sp:u64 w0=+0(%sp):u64";
	assert_int_equal(funcpair_probes(&t, &fp, "fp"), TOOL_OK);
	snprintf(want, sizeof(want),
		 "r:ftt_%s/%s %s:0x%016llx ret=$retval:s64 sp=%%sp:u64 w0=+0(%%sp):u64\n"
		 "p:ftt_%s/%s %s:0x%016llx \n",
		 runid_self(), ret_name, lib, off, runid_self(), entry_name, lib, off);
	assert_string_equal(definitions(), want);
	assert_false(funcpair_kernel(&t, &fp));
}

/* Each call with the string its entry had: the first str_size - 1 bytes of a longer one and
 * its whole length, an empty one, and none where the kernel's read faulted. */
static void test_string_kept(void **state)
{
	(void)state;
	if (!have_uprobes())
		skip();
	fp.spec = "libc:getpid";
	fp.str_arg = 1;
	fp.str_size = 8;
	assert_int_equal(funcpair_probes(&t, &fp, "fp"), TOOL_OK);
	struct page p;
	page_start(&p, 1000000, 0);
	entry_str(&p, 1001000, 10, 0, "localhost", 10);
	entry_str(&p, 1001100, 20, 0, "a b", 4);
	ret(&p, 1001200, 20, 0);
	entry_str(&p, 1001300, 20, 0, "", 1);
	ret(&p, 1001400, 20, 0);
	entry_str(&p, 1001500, 20, 0, "", 0);
	ret(&p, 1001600, 20, 0);
	ret(&p, 1002000, 10, 0);
	page_end(&p, 0);
	read_pages();
	assert_int_equal(ncalls, 4);
	assert_string_equal(calls[0].str, "a b");
	assert_int_equal(calls[0].str_len, 3);
	assert_string_equal(calls[1].str, "");
	assert_int_equal(calls[1].str_len, 0);
	assert_string_equal(calls[2].str, "(null)");
	assert_string_equal(calls[3].str, "localho");
	assert_int_equal(calls[3].str_len, 9);
	assert_int_equal(calls[3].tid, 10);
}

static void probe_missing_symbol(const void *arg)
{
	(void)arg;
	fp.spec = "libc:ftt_no_such_function";
	exit(funcpair_probes(&t, &fp, "fp"));
}

/* A symbol the library does not have is a usage error, said in one line; nothing is
 * defined. */
static void test_probes_refused(void **state)
{
	(void)state;
	if (!have_uprobes())
		skip();
	/* No instance: the child's exit would remove the test's (a fake tree's must be
	 * emptied first). */
	nftw(t.s.dir, unlink_one, 16, FTW_DEPTH | FTW_PHYS);
	session_close(&t.s);
	static const char *const systems[] = {"block", NULL};
	assert_int_equal(session_init(&t.s, "fp", systems), 0);
	assert_usage_error(probe_missing_symbol, NULL, "ftt_no_such_function");
	assert_string_equal(definitions(), "");
}

static void check_spec(const void *arg)
{
	funcpair_check_spec(arg);
	exit(0);
}

/* One function, not a glob or a list. */
static void test_spec(void **state)
{
	(void)state;
	char err[256];
	assert_int_equal(run_child(check_spec, "vfs_read", err, sizeof(err)), 0);
	assert_int_equal(run_child(check_spec, "libc:getaddrinfo", err, sizeof(err)), 0);
	static const char *const bad[] = {"", "vfs_*", "vfs_rea?", "vfs_[rw]*",
					  "vfs_read vfs_write"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		assert_usage_error(check_spec, bad[i], "invalid FUNC");
}

/*
 * Two threads, one calling itself and moving to the other CPU before its outer call
 * returns: each return is paired with its own thread's innermost open call (its entry's
 * time and argument), in time order across CPUs; a return with no entry is counted, not
 * paired.
 */
static void test_nested_calls_per_thread(void **state)
{
	(void)state;
	probes();
	struct page p;
	page_start(&p, 1000000, 0);
	entry(&p, 1001000, 10, 1);
	entry(&p, 1001100, 20, 2);
	entry(&p, 1001200, 10, 3); /* thread 10 calls itself */
	ret(&p, 1001500, 10, -3);
	page_end(&p, 0);
	page_start(&p, 1000000, 0);
	ret(&p, 1001600, 20, 20);
	ret(&p, 1002000, 10, 10); /* on the other CPU */
	ret(&p, 1002100, 30, 0);  /* its entry came before the start */
	page_end(&p, 1);
	read_pages();
	assert_int_equal(ncalls, 3);
	want_call(0, 10, 1001200, 300, 3, -3);
	want_call(1, 20, 1001100, 500, 2, 20);
	want_call(2, 10, 1001000, 1000, 1, 10);
	assert_int_equal(fp.unpaired, 1);
}

/* Recursion deeper than the table: the calls past FUNCPAIR_DEPTH are not kept, their
 * returns counted unpaired; every other return still finds its own entry. */
static void test_deeper_than_table(void **state)
{
	(void)state;
	probes();
	struct page p;
	page_start(&p, 5000000, 0);
	const int depth = FUNCPAIR_DEPTH + 2;
	for (int i = 0; i < depth; i++)
		entry(&p, 5000000 + 10 * (uint64_t)i, 10, (uint64_t)i);
	for (int i = depth - 1; i >= 0; i--)
		ret(&p, 6000000 - 10 * (uint64_t)i, 10, i);
	page_end(&p, 0);
	read_pages();
	assert_int_equal(ncalls, FUNCPAIR_DEPTH);
	assert_int_equal(fp.unpaired, depth - FUNCPAIR_DEPTH);
	for (int i = 0; i < FUNCPAIR_DEPTH; i++) {
		int call = FUNCPAIR_DEPTH - 1 - i; /* innermost kept first */
		want_call(i, 10, 5000000 + 10 * (uint64_t)call,
			  6000000 - 10 * (uint64_t)call - (5000000 + 10 * (uint64_t)call),
			  (uint64_t)call, call);
	}
}

/* Events lost between an entry and its return: the open calls are forgotten (the return
 * after the loss may not be that entry's), so it is counted unpaired, not paired with the
 * wrong entry; pairing goes on after. */
static void test_loss_clears(void **state)
{
	(void)state;
	probes();
	struct page p;
	page_start(&p, 1000000, 0);
	entry(&p, 1001000, 10, 1);
	entry(&p, 1001100, 20, 2);
	page_end(&p, 0);
	page_start(&p, 1002000, 5); /* 5 events overwritten before this page */
	ret(&p, 1003000, 10, 1);
	entry(&p, 1004000, 10, 4);
	ret(&p, 1004100, 10, 4);
	page_end(&p, 0);
	page_start(&p, 1000000, 0);
	ret(&p, 1005000, 20, 2); /* on the other CPU, after the loss */
	page_end(&p, 1);
	read_pages();
	assert_int_equal(ncalls, 1);
	want_call(0, 10, 1004000, 100, 4, 4);
	assert_int_equal(fp.unpaired, 2);
}

/* At the end, on stderr, the returns found without their entry. */
static void test_report(void **state)
{
	(void)state;
	probes();
	fp.unpaired = 3;
	char path[128];
	snprintf(path, sizeof(path), "%s/stderr", tree);
	fflush(stderr);
	int saved = dup(2), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(saved >= 0 && fd >= 0);
	dup2(fd, 2);
	close(fd);
	funcpair_report(&fp, "fp", 0);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	char buf[1024];
	assert_string_equal(read_file(tree, "stderr", buf, sizeof(buf)),
			    "fp: 3 returns without their entry (calls that began before the start, "
			    "events lost, or recursion deeper than 16) are left out\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_probes_defined, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_probes_refused, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_probes_string, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_string_kept, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_probes_fetch, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_probes_memory, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_probes_ret_extra, make_tree, remove_tree),
		cmocka_unit_test(test_spec),
		cmocka_unit_test_setup_teardown(test_nested_calls_per_thread, make_tree,
						remove_tree),
		cmocka_unit_test_setup_teardown(test_deeper_than_table, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_loss_clears, make_tree, remove_tree),
		cmocka_unit_test_setup_teardown(test_report, make_tree, remove_tree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
