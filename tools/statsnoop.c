// SPDX-License-Identifier: GPL-2.0-only
/*
 * statsnoop: trace the stat family of system calls (stat, lstat, fstatat, statx, statfs, in
 * each of their kernel names) with the path, the result and the process. The call from its
 * syscall tracepoints, the path from the best rung the kernel offers (sysarg.h: a kprobe on
 * the syscall's function, an event probe on its entry, or uprobes on the C library's stat
 * functions).
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <event-parse.h>

#include "base/out.h"
#include "base/row.h"
#include "domain/sysarg.h"
#include "tool.h"

/* Every kernel name of the calls: each traced where the kernel has it (x86-64 has newstat,
 * newlstat, newfstatat, statx, statfs; 32-bit ones stat64, fstatat64, statfs64...). */
static const struct sysarg_call calls[] = {
	{"newstat", "filename"},   {"newlstat", "filename"}, {"newfstatat", "filename"},
	{"statx", "filename"},	   {"statfs", "pathname"},   {"stat", "filename"},
	{"lstat", "filename"},	   {"stat64", "filename"},   {"lstat64", "filename"},
	{"fstatat64", "filename"}, {"statfs64", "pathname"},
};
#define NCALLS (int)(sizeof(calls) / sizeof(*calls))

/* The C library's stat functions, the path in s0. From glibc 2.33 stat(), lstat() and fstat()
 * are __fstatat64() with AT_FDCWD, AT_SYMLINK_NOFOLLOW or AT_EMPTY_PATH: a uprobe on it sees
 * them all (one on stat() too would trap each call twice: 22 us a trap on the 6.18 VM);
 * before 2.33 they are __xstat() and friends, which make the call themselves. */
static const struct ustr_func libc_stats[] = {
	{"fstatat64", "s0=+0($2):string", NULL},    {"fstatat", "s0=+0($2):string", NULL},
	{"statx", "s0=+0($2):string", NULL},	    {"statfs", "s0=+0($1):string", NULL},
	{"statfs64", "s0=+0($1):string", NULL},	    {"__xstat", "s0=+0($2):string", NULL},
	{"__xstat64", "s0=+0($2):string", NULL},    {"__lxstat", "s0=+0($2):string", NULL},
	{"__lxstat64", "s0=+0($2):string", NULL},   {"__fxstatat", "s0=+0($3):string", NULL},
	{"__fxstatat64", "s0=+0($3):string", NULL},
};

static struct env {
	bool failed;   /* -x */
	bool extended; /* -e */
	struct tool_run *t;
	struct sysarg sa;
	struct row row;
} env = {.sa = {.calls = calls,
		.ncalls = NCALLS,
		.funcs = libc_stats,
		.nfuncs = sizeof(libc_stats) / sizeof(*libc_stats),
		.str_size = PATH_MAX,
		.threads = 1024,
		.via = USTR_BEST}};

enum { OPT_VIA = OPT_LONG + 1 };

static const struct row_col cols[] = {
	ROW_COL_TS,
	ROW_COL_WALL,
	{"COMM", "comm", -16, ROW_STR, 0, 0, "the process, its name then"},
	{"PID", "pid", 7, ROW_INT, 0, 0, "its thread ID"},
	{"CALL", "call", -10, ROW_WORD, 0, ROW_OPTIONAL,
	 "the system call, as the kernel names it (newfstatat, statx...; -e)"},
	{NULL, "dfd", 0, ROW_INT, 0, ROW_NOTEXT,
	 "the directory a relative path starts from (-100: the current one, AT_FDCWD); null for "
	 "calls without one"},
	{"FLAGS", "flags", -6, ROW_HEX, 0, ROW_OPTIONAL,
	 "its flags (AT_SYMLINK_NOFOLLOW 0x100, AT_EMPTY_PATH 0x1000...; -e); null for calls "
	 "without"},
	{"RET", "ret", 4, ROW_INT, 0, 0, "0, or -1 when it failed"},
	{"ERR", "errno", 3, ROW_INT, 0, 0, "the error number when it failed (ENOENT 2...), else 0"},
	{"PATH", "path", -4, ROW_STR, 0, 0,
	 "the path as the process passed it (\"\" an empty one; null when it could not be read)"},
	{NULL, "path_cut", 0, ROW_JSON, 0, ROW_NOTEXT,
	 "true when the path was longer than what is shown (or than a trace event holds)"},
	{NULL, "path_len", 0, ROW_UINT, 0, ROW_NOTEXT, "its length in bytes; null when not known"},
	{NULL, "path_late", 0, ROW_JSON, 0, ROW_NOTEXT,
	 "true when it was read from the caller's memory after the call"},
};
static const struct row_table table = ROW_TABLE("each stat call", cols);

static const struct opt_spec options[] = {
	TOOL_DURATION,
	{'e', NULL, NULL, "CALL and FLAGS columns", 0},
	TOOL_JSON("one JSON object per call"),
	TOOL_TID,
	TOOL_NAME,
	TOOL_PID,
	TOOL_TIMESTAMP,
	TOOL_WALLCLOCK,
	{'x', NULL, NULL, "only failed calls", 0},
	{OPT_VIA, "via", "MECH",
	 "how to read paths: kprobe, eprobe or uprobe (default: the best the\nkernel offers)", 0},
	TOOL_JSON_KEYS,
	TOOL_EXEC,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"statsnoop                 # trace stat calls",
	"statsnoop -x              # only failed ones",
	"statsnoop -e -p 181       # PID 181's, with the call and its flags",
	"statsnoop -T -n 'bash'    # processes named bash, with wall-clock times",
	"statsnoop -j -d 10 > s.json   # 10 seconds as JSON lines",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case 'e': env.extended = true; break;
	case 'x': env.failed = true; break;
	case OPT_VIA: env.sa.via = opt_choice(arg, ustr_via_names, USTR_BEST, "--via"); break;
	}
}

/* The argument of a call named field, from its entry's fields by index: newfstatat(dfd,
 * filename, statbuf, flag), statx(dfd, filename, flags, mask, buffer). */
static int flags_arg(int call)
{
	const char *n = calls[call].name;
	if (!strcmp(n, "newfstatat") || !strcmp(n, "fstatat64"))
		return 3;
	return strcmp(n, "statx") ? -1 : 2;
}

static void json_bool(struct row *r, bool v)
{
	FILE *json = row_json(r);
	if (json)
		fputs(v ? "true" : "false", json);
}

/* PATH, then in text what is known of a path longer than shown ([cut: N bytes], [late]), in
 * JSON its keys. A path too long for a trace event and gone before it could be read: its
 * length at least PATH_MAX when the kernel said ENAMETOOLONG. */
static void path_column(const char *path, size_t len, const struct sysarg_strinfo *in,
			long long ret)
{
	static char text[4 * PATH_MAX + 64];
	struct row *r = &env.row;
	size_t n = 0;
	if (!path && r->json)
		row_none(r);
	else if (!path && !in->cut)
		row_word(r, "[unknown]");
	else if (!path)
		row_word(r, ret == -ENAMETOOLONG ? "[unknown: 4096 bytes or more]" :
						   "[unknown: longer than a trace event holds]");
	else if (!len && !r->json)
		row_word(r, "\"\"");
	else if (r->json || (!in->cut && !in->late))
		row_bytes(r, path, len);
	else {
		n = out_text_buf(text, sizeof(text), path, len);
		/* (ENAMETOOLONG: PATH_MAX or more, or a name over NAME_MAX; a prefix read in
		 * pieces cannot tell which) */
		if (in->cut && in->len == SIZE_MAX && ret == -ENAMETOOLONG && !in->pieced)
			n += (size_t)snprintf(text + n, sizeof(text) - n,
					      " [cut: %d bytes or more]", PATH_MAX);
		else if (in->cut && in->len == SIZE_MAX)
			n += (size_t)snprintf(text + n, sizeof(text) - n, " [cut]");
		else if (in->cut)
			n += (size_t)snprintf(text + n, sizeof(text) - n, " [cut: %zu bytes]",
					      in->len);
		if (in->late)
			snprintf(text + n, sizeof(text) - n, " [late]");
		row_word(r, text);
	}
	json_bool(r, in->cut);
	if (in->len != SIZE_MAX && (path || in->cut))
		row_uint(r, in->len);
	else
		row_none(r);
	json_bool(r, in->late);
}

static void on_call(const struct tep_record *exit, int tid, const struct sysarg_done *d, void *ctx)
{
	if (env.failed && d->ret >= 0)
		return;
	size_t len = 0;
	const char *path = sysarg_str(&env.sa, d, 0, &len);
	struct sysarg_strinfo info;
	sysarg_str_info(&env.sa, d, 0, &info);
	int fl = flags_arg(d->call);
	bool at = fl >= 0; /* the *at calls take a directory first */
	row_begin(&env.row, exit->ts);
	row_str(&env.row, tool_comm(env.t, tid), 16);
	row_int(&env.row, tid);
	row_word(&env.row, calls[d->call].name);
	if (at && d->have_args)
		row_int(&env.row, (int)d->args[0]);
	else
		row_none(&env.row);
	if (at && d->have_args)
		row_hex(&env.row, (unsigned)d->args[fl]);
	else
		row_none(&env.row);
	row_int(&env.row, d->ret < 0 ? -1 : d->ret);
	row_int(&env.row, d->ret < 0 ? -d->ret : 0);
	path_column(path, len, &info, d->ret);
	row_end(&env.row);
}

static enum tool_code setup(struct tool_run *t)
{
	env.t = t;
	row_show(&env.row, "call", env.extended);
	row_show(&env.row, "flags", env.extended);
	env.sa.strings = "paths";
	int ret = sysarg_setup(&env.sa, t, on_call, NULL);
	if (ret)
		return ret;
	snprintf(t->traced, sizeof(t->traced), "stat calls, paths via %s", env.sa.what);
	return TOOL_OK;
}

static void end(struct tool_run *t)
{
	sysarg_report(&env.sa);
}

static void cleanup(struct tool_run *t)
{
	sysarg_free(&env.sa);
}

static const struct tool statsnoop = {
	.name = "statsnoop",
	.opts = options,
	.operand_kind = TOOL_OPERAND_DURATION,
	.examples = examples,
	.formats =
		(const char *const[]){"syscalls:sys_enter_newstat", "syscalls:sys_exit_newstat",
				      "syscalls:sys_enter_newlstat", "syscalls:sys_exit_newlstat",
				      "syscalls:sys_enter_newfstatat",
				      "syscalls:sys_exit_newfstatat", "syscalls:sys_enter_statx",
				      "syscalls:sys_exit_statx", "syscalls:sys_enter_statfs",
				      "syscalls:sys_exit_statfs", NULL},
	.rows = (const struct row_table *const[]){&table, NULL},
	.option = option,
	.setup = setup,
	.table = &table,
	.row = &env.row,
	.end = end,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&statsnoop, argc, argv);
}
