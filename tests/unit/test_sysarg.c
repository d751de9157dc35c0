// SPDX-License-Identifier: GPL-2.0-only
/*
 * System calls with their strings (sysarg.c): the join of an entry, the event that read the
 * strings and the exit, per thread, through each rung (a kprobe on the syscall's function, an
 * event probe, a C library function), with the strings a fetch could not read, a loss of
 * events, and strings longer than kept. The formats of the syscall tracepoints and of a
 * uprobe with string fetches are Linux 6.18's (read from its tracefs); the kprobe and eprobe
 * events have the same layout of string fields (__data_loc char[]). Records are built here
 * field by field, as the kernel lays them out.
 */
#include "helpers.h"

#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include <event-parse.h>

#include "domain/sysarg.h"

#define COMMON                                                                         \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"         \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"         \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char enter_fmt[] =
	"name: sys_enter_newfstatat\nID: 854\nformat:\n" COMMON
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:struct stat * statbuf;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:int flag;\toffset:40;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"dfd: 0x%08lx, filename: 0x%08lx, statbuf: 0x%08lx, flag: 0x%08lx\", "
	"((unsigned long)(REC->dfd)), ((unsigned long)(REC->filename)), ((unsigned "
	"long)(REC->statbuf)), ((unsigned long)(REC->flag))\n";
static const char exit_fmt[] = "name: sys_exit_newfstatat\nID: 853\nformat:\n" COMMON
			       "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
			       "\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n\n"
			       "print fmt: \"0x%lx\", REC->ret\n";
static const char mount_fmt[] =
	"name: sys_enter_mount\nID: 940\nformat:\n" COMMON
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:char * dev_name;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:char * dir_name;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:char * type;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long flags;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:void * data;\toffset:48;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"dev_name: 0x%08lx\", ((unsigned long)(REC->dev_name))\n";
/* The probe on __x64_sys_newfstatat, or a uprobe on fstatat64: one string. */
static const char strs_fmt[] =
	"name: newfstatat\nID: 2326\nformat:\n" COMMON
	"\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:__data_loc char[] s0;\toffset:16;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"(%lx) s0=\\\"%s\\\"\", REC->__probe_ip, __get_str(s0)\n";
/* The probe on __x64_sys_mount: four strings. */
static const char mstrs_fmt[] = "name: mount\nID: 2327\nformat:\n" COMMON
				"\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
				"\tfield:__data_loc char[] s0;\toffset:16;\tsize:4;\tsigned:1;\n"
				"\tfield:__data_loc char[] s1;\toffset:20;\tsize:4;\tsigned:1;\n"
				"\tfield:__data_loc char[] s2;\toffset:24;\tsize:4;\tsigned:1;\n"
				"\tfield:__data_loc char[] s3;\toffset:28;\tsize:4;\tsigned:1;\n\n"
				"print fmt: \"(%lx)\", REC->__probe_ip\n";
/* The companion of a uprobe on fstatat64: the string's address alone (ustr_bare_args). */
static const char bare_fmt[] = "name: fstatat64_p\nID: 2329\nformat:\n" COMMON
			       "\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
			       "\tfield:u64 p0;\toffset:16;\tsize:8;\tsigned:0;\n\n"
			       "print fmt: \"(%lx) p0=%Lu\", REC->__probe_ip, REC->p0\n";
/* An event probe on sys_enter_newfstatat: the arguments and the string. */
static const char eprobe_fmt[] = "name: enewfstatat\nID: 2328\nformat:\n" COMMON
				 "\tfield:unsigned long a0;\toffset:8;\tsize:8;\tsigned:0;\n"
				 "\tfield:unsigned long a1;\toffset:16;\tsize:8;\tsigned:0;\n"
				 "\tfield:unsigned long a2;\toffset:24;\tsize:8;\tsigned:0;\n"
				 "\tfield:unsigned long a3;\toffset:32;\tsize:8;\tsigned:0;\n"
				 "\tfield:__data_loc char[] s0;\toffset:40;\tsize:4;\tsigned:1;\n\n"
				 "print fmt: \"%lx\", REC->a0\n";

struct got {
	int call, tid;
	bool have_args;
	long long args[SYSARG_MAX_ARGS], ret;
	bool known[SYSARG_MAX_STRS];
	char str[SYSARG_MAX_STRS][4096];
	size_t len[SYSARG_MAX_STRS];
	struct sysarg_strinfo info[SYSARG_MAX_STRS];
};

struct fix {
	struct tep_handle *tep;
	struct tep_event *enter, *exit, *strs, *mount, *mstrs, *eprobe, *bare;
	struct sysarg sa;
	struct sysarg_ev *ev_enter, *ev_exit, *ev_strs, *ev_libc, *ev_eprobe, *ev_mount, *ev_mstrs,
		*ev_mexit, *ev_bare;
	int n;
	struct got got[16];
	unsigned char data[1024];
	int pad; /* bytes the next string events reserve after their strings */
	struct tep_record rec;
	uint64_t ts;
};

static const struct sysarg_call calls[] = {{"newfstatat", "filename"},
					   {"mount", "dev_name,dir_name,type,data"}};

static void on_call(const struct tep_record *exit, int tid, const struct sysarg_done *d, void *ctx)
{
	struct fix *f = ctx;
	(void)exit;
	assert_true(f->n < 16);
	struct got *g = &f->got[f->n++];
	g->call = d->call;
	g->tid = tid;
	g->have_args = d->have_args;
	memcpy(g->args, d->args, sizeof(g->args));
	g->ret = d->ret;
	for (int i = 0; i < SYSARG_MAX_STRS; i++) {
		size_t len = 0;
		const char *s = sysarg_str(&f->sa, d, i, &len);
		g->known[i] = s != NULL;
		sysarg_str_info(&f->sa, d, i, &g->info[i]);
		if (s) {
			assert_true(len < sizeof(g->str[i]));
			memcpy(g->str[i], s, len);
			g->str[i][len] = 0;
			g->len[i] = len;
			assert_int_equal(s[len], 0); /* kept with its NUL */
		}
	}
}

static struct tep_event *parse(struct tep_handle *tep, const char *fmt, const char *sys)
{
	assert_int_equal(tep_parse_event(tep, fmt, strlen(fmt), sys), 0);
	const char *name = fmt + strlen("name: ");
	char buf[64];
	snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(name, "\n"), name);
	struct tep_event *ev = tep_find_event_by_name(tep, sys, buf);
	assert_non_null(ev);
	return ev;
}

static int setup(void **state, size_t str_size)
{
	struct fix *f = calloc(1, sizeof(*f));
	f->tep = tep_alloc();
	f->enter = parse(f->tep, enter_fmt, "syscalls");
	f->exit = parse(f->tep, exit_fmt, "syscalls");
	f->mount = parse(f->tep, mount_fmt, "syscalls");
	f->strs = parse(f->tep, strs_fmt, "ftt");
	f->mstrs = parse(f->tep, mstrs_fmt, "ftt");
	f->eprobe = parse(f->tep, eprobe_fmt, "ftt");
	f->bare = parse(f->tep, bare_fmt, "ftt");
	f->sa = (struct sysarg){.calls = calls, .ncalls = 2, .str_size = str_size, .threads = 64};
	struct tep_event *enters[] = {f->enter, f->mount};
	assert_int_equal(sysarg_init(&f->sa, "test", f->tep, enters, on_call, f), 0);
	f->ev_enter = sysarg_ev(&f->sa, f->enter, SYSARG_ENTER, 0);
	f->ev_exit = sysarg_ev(&f->sa, f->exit, SYSARG_EXIT, 0);
	f->ev_strs = sysarg_ev(&f->sa, f->strs, SYSARG_STRS, 0);
	f->ev_libc = sysarg_ev(&f->sa, f->strs, SYSARG_LIBC, -1);
	f->ev_eprobe = sysarg_ev(&f->sa, f->eprobe, SYSARG_EPROBE, 0);
	f->ev_bare = sysarg_ev(&f->sa, f->bare, SYSARG_LIBC, -1);
	f->ev_mount = sysarg_ev(&f->sa, f->mount, SYSARG_ENTER, 1);
	f->ev_mstrs = sysarg_ev(&f->sa, f->mstrs, SYSARG_STRS, 1);
	f->ev_mexit = sysarg_ev(&f->sa, f->exit, SYSARG_EXIT, 1);
	f->ts = 1000;
	*state = f;
	return 0;
}
static int setup_paths(void **state)
{
	return setup(state, 4096);
}
static int setup_short(void **state)
{
	return setup(state, 16);
}

static int teardown(void **state)
{
	struct fix *f = *state;
	sysarg_free(&f->sa);
	tep_free(f->tep);
	free(f);
	return 0;
}

/* --- records ------------------------------------------------------------------------------- */

static void put(struct fix *f, struct tep_event *ev, const char *name, long long v)
{
	struct tep_format_field *fl = tep_find_field(ev, name);
	assert_non_null(fl);
	memcpy(f->data + fl->offset, &v, (size_t)fl->size); /* little-endian */
}

/* A record of ev by thread tid: its numeric fields as name=value pairs ("dfd", -100, ...,
 * NULL), its strings s0.. as given (len: bytes with the NUL; 0: a fetch that faulted, an
 * empty data_loc), then handed to the event's handler. */
static void event(struct fix *f, struct sysarg_ev *ei, struct tep_event *ev, int tid,
		  const char *const *strs, const size_t *lens, ...)
{
	memset(f->data, 0, sizeof(f->data));
	unsigned short type = (unsigned short)ev->id;
	memcpy(f->data, &type, 2);
	memcpy(f->data + 4, &tid, 4);
	va_list ap;
	va_start(ap, lens);
	const char *name;
	while ((name = va_arg(ap, const char *)))
		put(f, ev, name, va_arg(ap, long long));
	va_end(ap);
	int end = 0;
	for (struct tep_format_field *fl = ev->format.fields; fl; fl = fl->next)
		end = fl->offset + fl->size > end ? fl->offset + fl->size : end;
	for (int i = 0; strs && strs[i]; i++) {
		char s[16];
		snprintf(s, sizeof(s), "s%d", i);
		struct tep_format_field *fl = tep_find_field(ev, s);
		assert_non_null(fl);
		unsigned loc = (unsigned)lens[i] << 16 | (unsigned)end;
		memcpy(f->data + fl->offset, &loc, 4);
		memcpy(f->data + end, strs[i], lens[i]);
		end += (int)lens[i];
	}
	if (strs)
		end += f->pad;
	f->rec = (struct tep_record){.ts = f->ts++, .size = end, .data = f->data};
	sysarg_on_event(&f->rec, ei);
}

#define NUMS(...) __VA_ARGS__, NULL

static void enter(struct fix *f, int tid, int dfd, int flag)
{
	event(f, f->ev_enter, f->enter, tid, NULL, NULL,
	      NUMS("dfd", (long long)(unsigned)dfd, "filename", 0x7ffd1000LL, "flag",
		   (long long)flag));
}
static void strs1(struct fix *f, struct sysarg_ev *ei, int tid, const char *s, size_t len)
{
	const char *ss[] = {s, NULL};
	if (ei == f->ev_eprobe)
		event(f, ei, f->eprobe, tid, ss, &len,
		      NUMS("a0", 0xffffff9cLL, "a1", 0x7ffd1000LL, "a3", 0x100LL));
	else
		event(f, ei, f->strs, tid, ss, &len, NULL);
}
static void leave(struct fix *f, int tid, long long ret)
{
	event(f, f->ev_exit, f->exit, tid, NULL, NULL, NUMS("ret", ret));
}

/* --- tests ---------------------------------------------------------------------------------- */

/* Rung 1: the entry, the kprobe's strings right after it, the exit. */
static void test_kprobe_rung(void **state)
{
	struct fix *f = *state;
	enter(f, 10, -100, 0x100);
	strs1(f, f->ev_strs, 10, "/etc/x y\n", 10);
	leave(f, 10, -2);
	assert_int_equal(f->n, 1);
	struct got *g = &f->got[0];
	assert_int_equal(g->call, 0);
	assert_int_equal(g->tid, 10);
	assert_true(g->have_args);
	assert_int_equal((int)g->args[0], -100);
	assert_int_equal(g->args[3], 0x100);
	assert_int_equal(g->ret, -2);
	assert_true(g->known[0]);
	assert_string_equal(g->str[0], "/etc/x y\n");
	assert_int_equal(f->sa.stringless, 0);
}

/* Two threads at once, their events interleaved: each call keeps its own string. */
static void test_threads(void **state)
{
	struct fix *f = *state;
	enter(f, 1, -100, 0);
	enter(f, 2, 3, 0x1000);
	strs1(f, f->ev_strs, 2, "two", 4);
	strs1(f, f->ev_strs, 1, "one", 4);
	leave(f, 2, 0);
	leave(f, 1, -13);
	assert_int_equal(f->n, 2);
	assert_int_equal(f->got[0].tid, 2);
	assert_string_equal(f->got[0].str[0], "two");
	assert_int_equal((int)f->got[0].args[0], 3);
	assert_int_equal(f->got[1].tid, 1);
	assert_string_equal(f->got[1].str[0], "one");
	assert_int_equal(f->got[1].ret, -13);
}

/* A fetch that faulted: an empty data_loc, or the text "(fault)" (some kernels' event
 * probes): not known, counted. An empty string (its NUL only) is a string: fstat() is
 * fstatat(fd, "", AT_EMPTY_PATH). */
static void test_faults_and_empty(void **state)
{
	struct fix *f = *state;
	enter(f, 5, -100, 0);
	strs1(f, f->ev_strs, 5, "", 0);
	leave(f, 5, -14);
	enter(f, 5, -100, 0);
	strs1(f, f->ev_strs, 5, "(fault)", 8);
	leave(f, 5, -14);
	enter(f, 5, 4, 0x1000);
	strs1(f, f->ev_strs, 5, "", 1);
	leave(f, 5, 0);
	/* 5.5 to 6.12: :ustring records "" with length 0, its NUL's byte reserved after. */
	f->pad = 4;
	enter(f, 5, 4, 0x1000);
	strs1(f, f->ev_strs, 5, "", 0);
	leave(f, 5, 0);
	/* An "" the kernel could not read (EFAULT) is not trusted (4.19 records one). */
	enter(f, 5, -100, 0);
	strs1(f, f->ev_strs, 5, "", 1);
	leave(f, 5, -EFAULT);
	assert_int_equal(f->n, 5);
	assert_false(f->got[0].known[0]);
	assert_false(f->got[1].known[0]);
	assert_true(f->got[2].known[0]);
	assert_int_equal(f->got[2].len[0], 0);
	assert_true(f->got[3].known[0]);
	assert_int_equal(f->got[3].len[0], 0);
	assert_false(f->got[4].known[0]);
	assert_int_equal(f->sa.stringless, 3);
}

/* A fetch that faulted after the kernel measured the string (5.10's kprobes, a path of 4060
 * bytes): an empty string with the measured room after it, not "". Read late from the caller
 * while it is there (the kernel read it: ENOENT); when it is gone, not known, counted as a
 * fault, not as too long. */
static void test_fault_with_room(void **state)
{
	struct fix *f = *state;
	static const char path[] = "/tmp/a/0000000/0000000";
	int me = (int)getpid();
	f->pad = 900; /* within this record buffer; 5.10 left 4061 */
	event(f, f->ev_enter, f->enter, 999999999, NULL, NULL,
	      NUMS("dfd", 0xffffff9cLL, "filename", 0x7ffd1000LL, "flag", 0LL));
	strs1(f, f->ev_strs, 999999999, "", 0);
	leave(f, 999999999, -2);
	event(f, f->ev_enter, f->enter, me, NULL, NULL,
	      NUMS("dfd", 0xffffff9cLL, "filename", (long long)(uintptr_t)path, "flag", 0LL));
	strs1(f, f->ev_strs, me, "", 0);
	leave(f, me, -2);
	assert_int_equal(f->n, 2);
	assert_false(f->got[0].known[0]);
	assert_false(f->got[0].info[0].cut);
	assert_true(f->got[1].known[0]);
	assert_string_equal(f->got[1].str[0], path);
	assert_true(f->got[1].info[0].late);
	assert_false(f->got[1].info[0].cut);
	assert_int_equal(f->got[1].info[0].len, strlen(path));
	assert_int_equal(f->sa.stringless, 1);
	assert_int_equal(f->sa.toolong, 0);
}

/* A kprobe's record for another call than the thread is in, or with no call: ignored. */
static void test_strings_of_another_call(void **state)
{
	struct fix *f = *state;
	strs1(f, f->ev_strs, 7, "/none", 6);
	enter(f, 7, -100, 0);
	event(f, f->ev_mstrs, f->mstrs, 7, (const char *const[]){"a", "b", "c", "d", NULL},
	      (const size_t[]){2, 2, 2, 2}, NULL);
	leave(f, 7, 0);
	assert_int_equal(f->n, 1);
	assert_false(f->got[0].known[0]);
}

/* Rung 3: the C library's function first (the strings), then the entry says which call it
 * made. A call made without it (a static program) has no strings; a function that made no
 * call is forgotten when the next begins; stat() calling fstatat() begins again. */
static void test_libc_rung(void **state)
{
	struct fix *f = *state;
	f->sa.via = USTR_UPROBE;
	strs1(f, f->ev_libc, 3, "/lib", 5);
	enter(f, 3, -100, 0);
	leave(f, 3, 0);
	enter(f, 3, -100, 0); /* not through the C library */
	leave(f, 3, -2);
	strs1(f, f->ev_libc, 3, "/stale", 7); /* made no call */
	strs1(f, f->ev_libc, 3, "/stat", 6);
	strs1(f, f->ev_libc, 3, "/stat", 6); /* fstatat64 inside stat */
	enter(f, 3, -100, 0);
	leave(f, 3, 0);
	assert_int_equal(f->n, 3);
	assert_string_equal(f->got[0].str[0], "/lib");
	assert_int_equal(f->got[0].call, 0);
	assert_true(f->got[0].have_args);
	assert_false(f->got[1].known[0]);
	assert_int_equal(f->got[1].ret, -2);
	assert_string_equal(f->got[2].str[0], "/stat");
	assert_int_equal(f->sa.stringless, 1);
}

/* Rung 3 with the companions: a C library function's two records (in either order) are one
 * call; one whose string record is missing (too long for an event) still was made through
 * the C library, its string read from the caller's memory after the call (here: this
 * process's), or, the caller gone, marked cut, never counted as not through the C library. */
static void test_libc_companion(void **state)
{
	struct fix *f = *state;
	static char longer[5000];
	memset(longer, 'a', sizeof(longer) - 1);
	longer[0] = '/';
	f->sa.via = USTR_UPROBE;
	int me = (int)getpid();
	/* string, then companion; companion, then string */
	strs1(f, f->ev_libc, me, "/one", 5);
	event(f, f->ev_bare, f->bare, me, NULL, NULL, NUMS("p0", 0x1000LL));
	enter(f, me, -100, 0);
	leave(f, me, -2);
	event(f, f->ev_bare, f->bare, me, NULL, NULL, NUMS("p0", 0x1000LL));
	strs1(f, f->ev_libc, me, "/two", 5);
	enter(f, me, -100, 0);
	leave(f, me, 0);
	/* the string's record missing: read late, whole (4999 bytes, 4095 kept) */
	event(f, f->ev_bare, f->bare, me, NULL, NULL, NUMS("p0", (long long)(uintptr_t)longer));
	enter(f, me, -100, 0);
	leave(f, me, -ENAMETOOLONG);
	/* the same from a thread that is gone */
	event(f, f->ev_bare, f->bare, 999999999, NULL, NULL, NUMS("p0", 0x1000LL));
	enter(f, 999999999, -100, 0);
	leave(f, 999999999, -2);
	/* a bad address */
	event(f, f->ev_bare, f->bare, me, NULL, NULL, NUMS("p0", 1LL));
	strs1(f, f->ev_libc, me, "", 0);
	enter(f, me, -100, 0);
	leave(f, me, -EFAULT);
	assert_int_equal(f->n, 5);
	assert_string_equal(f->got[0].str[0], "/one");
	assert_false(f->got[0].info[0].cut);
	assert_int_equal(f->got[0].info[0].len, 4);
	assert_string_equal(f->got[1].str[0], "/two");
	assert_true(f->got[2].known[0]);
	assert_true(f->got[2].info[0].cut);
	assert_true(f->got[2].info[0].late);
	assert_int_equal(f->got[2].info[0].len, 4999);
	assert_false(f->got[3].known[0]);
	assert_true(f->got[3].info[0].cut);
	assert_int_equal(f->got[3].info[0].len, SIZE_MAX);
	assert_false(f->got[4].known[0]);
	assert_false(f->got[4].info[0].cut);
	assert_int_equal(f->sa.stringless, 0);
	assert_int_equal(f->sa.toolong, 1);
	assert_int_equal(f->sa.faulted, 1);
}

/* Rung 2: the event probe holds the arguments and the string. */
static void test_eprobe_rung(void **state)
{
	struct fix *f = *state;
	strs1(f, f->ev_eprobe, 4, "/e", 3);
	leave(f, 4, 0);
	assert_int_equal(f->n, 1);
	assert_int_equal((int)f->got[0].args[0], -100);
	assert_int_equal(f->got[0].args[3], 0x100);
	assert_string_equal(f->got[0].str[0], "/e");
}

/* Lost events forget every call in progress: its exit is not joined to an older entry's
 * strings, and is counted. */
static void test_loss(void **state)
{
	struct fix *f = *state;
	enter(f, 8, -100, 0);
	strs1(f, f->ev_strs, 8, "/before", 8);
	syspair_lost(0, 12, &f->sa.join);
	leave(f, 8, 0);
	assert_int_equal(f->n, 0);
	assert_int_equal(f->sa.join.span.unpaired, 1);
	assert_int_equal(f->sa.join.span.cleared, 1);
}

/* A string longer than kept is cut, with its NUL. */
static void test_cut(void **state)
{
	struct fix *f = *state;
	enter(f, 9, -100, 0);
	strs1(f, f->ev_strs, 9, "/0123456789abcdefghij", 22);
	leave(f, 9, 0);
	assert_int_equal(f->n, 1);
	assert_int_equal(f->got[0].len[0], 15);
	assert_string_equal(f->got[0].str[0], "/0123456789abcd");
}

/* mount(2): four strings, by their fields' places (dev_name, dir_name, type, then data, the
 * fifth argument). */
static void test_mount_slots(void **state)
{
	struct fix *f = *state;
	assert_int_equal(f->sa.nstrs[1], 4);
	assert_int_equal(f->sa.str_arg[1][0], 0);
	assert_int_equal(f->sa.str_arg[1][1], 1);
	assert_int_equal(f->sa.str_arg[1][2], 2);
	assert_int_equal(f->sa.str_arg[1][3], 4);
	assert_int_equal(f->sa.str_arg[0][0], 1);
	event(f, f->ev_mount, f->mount, 11, NULL, NULL,
	      NUMS("dev_name", 0x1000LL, "dir_name", 0x2000LL, "type", 0LL, "flags", 0xc0ed0006LL));
	event(f, f->ev_mstrs, f->mstrs, 11,
	      (const char *const[]){"my fs", "/mnt", "", "a=\xff", NULL},
	      (const size_t[]){6, 5, 0, 4}, NULL);
	event(f, f->ev_mexit, f->exit, 11, NULL, NULL, NUMS("ret", 0LL));
	assert_int_equal(f->n, 1);
	struct got *g = &f->got[0];
	assert_int_equal(g->call, 1);
	assert_string_equal(g->str[0], "my fs");
	assert_string_equal(g->str[1], "/mnt");
	assert_false(g->known[2]); /* NULL type: no string */
	assert_string_equal(g->str[3], "a=\xff");
	assert_int_equal(g->args[2], 0);
	assert_int_equal(g->args[3], 0xc0ed0006LL);
	assert_int_equal(f->sa.stringless, 0); /* a NULL pointer is not a string unread */
}

/* A string argument the tracepoint does not have: said, refused. */
static void test_unknown_field(void **state)
{
	(void)state;
	struct tep_handle *tep = tep_alloc();
	struct tep_event *en = parse(tep, enter_fmt, "syscalls");
	static const struct sysarg_call bad[] = {{"newfstatat", "filename,pathname"}};
	struct sysarg sa = {.calls = bad, .ncalls = 1, .str_size = 64, .threads = 4};
	struct tep_event *enters[] = {en};
	assert_int_equal(sysarg_init(&sa, "test", tep, enters, on_call, NULL), -1);
	sysarg_free(&sa);
	tep_free(tep);
}

static void test_kprobe_fetch(void **state)
{
	(void)state;
	char buf[64];
#if defined(__x86_64__)
	assert_int_equal(sysarg_kprobe_fetch(0, true, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "+0(+112(%di)):ustring");
	assert_int_equal(sysarg_kprobe_fetch(3, true, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "+0(+56(%di)):ustring"); /* r10, the syscall ABI's 4th */
	assert_int_equal(sysarg_kprobe_fetch(4, false, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "+0($arg5):ustring");
	assert_int_equal(sysarg_kprobe_fetch(6, true, buf, sizeof(buf)), -1);
#else
	assert_int_equal(sysarg_kprobe_fetch(0, true, buf, sizeof(buf)), -1);
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_kprobe_rung, setup_paths, teardown),
		cmocka_unit_test_setup_teardown(test_threads, setup_paths, teardown),
		cmocka_unit_test_setup_teardown(test_faults_and_empty, setup_paths, teardown),
		cmocka_unit_test_setup_teardown(test_fault_with_room, setup_paths, teardown),
		cmocka_unit_test_setup_teardown(test_strings_of_another_call, setup_paths,
						teardown),
		cmocka_unit_test_setup_teardown(test_libc_rung, setup_paths, teardown),
		cmocka_unit_test_setup_teardown(test_libc_companion, setup_paths, teardown),
		cmocka_unit_test_setup_teardown(test_eprobe_rung, setup_paths, teardown),
		cmocka_unit_test_setup_teardown(test_loss, setup_paths, teardown),
		cmocka_unit_test_setup_teardown(test_cut, setup_short, teardown),
		cmocka_unit_test_setup_teardown(test_mount_slots, setup_paths, teardown),
		cmocka_unit_test(test_unknown_field),
		cmocka_unit_test(test_kprobe_fetch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
