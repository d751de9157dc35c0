// SPDX-License-Identifier: GPL-2.0-only
/*
 * mountsnoop: trace mount(2), umount2(2) and the new mount API (fsopen, fsconfig, fsmount,
 * move_mount, fspick, open_tree, mount_setattr): one line per call, written as the call was
 * made (its strings quoted, its flags named) with its result. The call from its syscall
 * tracepoints, its strings from the best rung the kernel offers (sysarg.h).
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "base/out.h"
#include "base/row.h"
#include "domain/sysarg.h"
#include "tool.h"

/* --- the calls, their arguments and flags ------------------------------------------------ */

struct flag {
	unsigned long long bit;
	const char *name;
};
#define FLAGS_END SPEC(.bit = 0)

static const struct flag ms_flags[] = {
	{1, "MS_RDONLY"},
	{2, "MS_NOSUID"},
	{4, "MS_NODEV"},
	{8, "MS_NOEXEC"},
	{16, "MS_SYNCHRONOUS"},
	{32, "MS_REMOUNT"},
	{64, "MS_MANDLOCK"},
	{128, "MS_DIRSYNC"},
	{256, "MS_NOSYMFOLLOW"},
	{1024, "MS_NOATIME"},
	{2048, "MS_NODIRATIME"},
	{4096, "MS_BIND"},
	{8192, "MS_MOVE"},
	{16384, "MS_REC"},
	{32768, "MS_SILENT"},
	{1 << 16, "MS_POSIXACL"},
	{1 << 17, "MS_UNBINDABLE"},
	{1 << 18, "MS_PRIVATE"},
	{1 << 19, "MS_SLAVE"},
	{1 << 20, "MS_SHARED"},
	{1 << 21, "MS_RELATIME"},
	{1 << 22, "MS_KERNMOUNT"},
	{1 << 23, "MS_I_VERSION"},
	{1 << 24, "MS_STRICTATIME"},
	{1 << 25, "MS_LAZYTIME"},
	{1U << 30, "MS_ACTIVE"},
	{1U << 31, "MS_NOUSER"},
	FLAGS_END,
};
static const struct flag umount_flags[] = {
	{1, "MNT_FORCE"}, {2, "MNT_DETACH"}, {4, "MNT_EXPIRE"}, {8, "UMOUNT_NOFOLLOW"}, FLAGS_END,
};
static const struct flag cloexec_flags[] = {{1, "CLOEXEC"}, FLAGS_END};
static const struct flag attr_flags[] = {
	{1, "MOUNT_ATTR_RDONLY"},
	{2, "MOUNT_ATTR_NOSUID"},
	{4, "MOUNT_ATTR_NODEV"},
	{8, "MOUNT_ATTR_NOEXEC"},
	{0x10, "MOUNT_ATTR_NOATIME"},
	{0x20, "MOUNT_ATTR_STRICTATIME"},
	{0x80, "MOUNT_ATTR_NODIRATIME"},
	{0x100000, "MOUNT_ATTR_IDMAP"},
	{0x200000, "MOUNT_ATTR_NOSYMFOLLOW"},
	FLAGS_END,
};
static const struct flag move_flags[] = {
	{1, "MOVE_MOUNT_F_SYMLINKS"},
	{2, "MOVE_MOUNT_F_AUTOMOUNTS"},
	{4, "MOVE_MOUNT_F_EMPTY_PATH"},
	{0x10, "MOVE_MOUNT_T_SYMLINKS"},
	{0x20, "MOVE_MOUNT_T_AUTOMOUNTS"},
	{0x40, "MOVE_MOUNT_T_EMPTY_PATH"},
	{0x100, "MOVE_MOUNT_SET_GROUP"},
	{0x200, "MOVE_MOUNT_BENEATH"},
	FLAGS_END,
};
static const struct flag fspick_flags[] = {
	{1, "FSPICK_CLOEXEC"},
	{2, "FSPICK_SYMLINK_NOFOLLOW"},
	{4, "FSPICK_NO_AUTOMOUNT"},
	{8, "FSPICK_EMPTY_PATH"},
	FLAGS_END,
};
static const struct flag at_flags[] = {
	{1, "OPEN_TREE_CLONE"},
	{0x100, "AT_SYMLINK_NOFOLLOW"},
	{0x800, "AT_NO_AUTOMOUNT"},
	{0x1000, "AT_EMPTY_PATH"},
	{0x8000, "AT_RECURSIVE"},
	{0x80000, "OPEN_TREE_CLOEXEC"},
	FLAGS_END,
};
static const char *const fsconfig_cmds[] = {
	"FSCONFIG_SET_FLAG",   "FSCONFIG_SET_STRING",	   "FSCONFIG_SET_BINARY",
	"FSCONFIG_SET_PATH",   "FSCONFIG_SET_PATH_EMPTY",  "FSCONFIG_SET_FD",
	"FSCONFIG_CMD_CREATE", "FSCONFIG_CMD_RECONFIGURE", "FSCONFIG_CMD_CREATE_EXCL",
};

/* One argument as the call is written: a string (its slot), a number, a directory (AT_FDCWD
 * named), flags (named), fsconfig's command, an address. */
enum kind { END, STR, NUM, DIRFD, FLAGS, CMD, PTR };
struct arg {
	enum kind kind;
	int i; /* STR: the slot; else the argument's index */
	const struct flag *flags;
};

/* Which string slots are the JSON keys source, target, fstype, key, data (-1: none). */
struct keys {
	int source, target, fstype, key, data, flags;
};

struct call {
	struct sysarg_call sys;
	struct arg args[7];
	struct keys keys;
};

static const struct call calls[] = {
	{{"mount", "dev_name,dir_name,type,data"},
	 {{STR, 0, NULL}, {STR, 1, NULL}, {STR, 2, NULL}, {FLAGS, 3, ms_flags}, {STR, 3, NULL}},
	 {0, 1, 2, -1, 3, 3}},
	{{"umount", "name"}, {{STR, 0, NULL}, {FLAGS, 1, umount_flags}}, {-1, 0, -1, -1, -1, 1}},
	{{"oldumount", "name"}, {{STR, 0, NULL}}, {-1, 0, -1, -1, -1, -1}},
	{{"fsopen", "_fs_name"},
	 {{STR, 0, NULL}, {FLAGS, 1, cloexec_flags}},
	 {-1, -1, 0, -1, -1, 1}},
	{{"fsconfig", "_key,_value"},
	 {{NUM, 0, NULL}, {CMD, 1, NULL}, {STR, 0, NULL}, {STR, 1, NULL}, {NUM, 4, NULL}},
	 {-1, -1, -1, 0, 1, -1}},
	{{"fsmount", NULL},
	 {{NUM, 0, NULL}, {FLAGS, 1, cloexec_flags}, {FLAGS, 2, attr_flags}},
	 {-1, -1, -1, -1, -1, 2}},
	{{"move_mount", "from_pathname,to_pathname"},
	 {{DIRFD, 0, NULL}, {STR, 0, NULL}, {DIRFD, 2, NULL}, {STR, 1, NULL}, {FLAGS, 4, move_flags}},
	 {0, 1, -1, -1, -1, 4}},
	{{"fspick", "path"},
	 {{DIRFD, 0, NULL}, {STR, 0, NULL}, {FLAGS, 2, fspick_flags}},
	 {-1, 0, -1, -1, -1, 2}},
	{{"open_tree", "filename"},
	 {{DIRFD, 0, NULL}, {STR, 0, NULL}, {FLAGS, 2, at_flags}},
	 {0, -1, -1, -1, -1, 2}},
	{{"open_tree_attr", "filename"},
	 {{DIRFD, 0, NULL}, {STR, 0, NULL}, {FLAGS, 2, at_flags}, {PTR, 3, NULL}, {NUM, 4, NULL}},
	 {0, -1, -1, -1, -1, 2}},
	{{"mount_setattr", "path"},
	 {{DIRFD, 0, NULL}, {STR, 0, NULL}, {FLAGS, 2, at_flags}, {PTR, 3, NULL}, {NUM, 4, NULL}},
	 {-1, 0, -1, -1, -1, 2}},
};
#define NCALLS (int)(sizeof(calls) / sizeof(*calls))

/* The C library's functions (glibc 2.36 has the new API's), the strings by slot. */
static const struct ustr_func libc_mounts[] = {
	{"mount", "s0=+0($1):string s1=+0($2):string s2=+0($3):string s3=+0($5):string", NULL},
	{"umount2", "s0=+0($1):string", NULL},
	{"umount", "s0=+0($1):string", NULL},
	{"fsopen", "s0=+0($1):string", NULL},
	{"fsconfig", "s0=+0($3):string s1=+0($4):string", NULL},
	{"move_mount", "s0=+0($2):string s1=+0($4):string", NULL},
	{"fspick", "s0=+0($2):string", NULL},
	{"open_tree", "s0=+0($2):string", NULL},
	{"mount_setattr", "s0=+0($2):string", NULL},
};

static struct sysarg_call sys_calls[NCALLS];

static struct env {
	bool failed; /* -x */
	struct tool_run *t;
	struct sysarg sa;
	struct row row;
	char *text;
	size_t text_size;
	FILE *text_f;
} env = {.sa = {.calls = sys_calls,
		.ncalls = NCALLS,
		.funcs = libc_mounts,
		.nfuncs = sizeof(libc_mounts) / sizeof(*libc_mounts),
		.str_size = PATH_MAX,
		.threads = 64,
		.via = USTR_BEST}};

enum { OPT_VIA = OPT_LONG + 1 };

static const struct row_col cols[] = {
	ROW_COL_TS,
	ROW_COL_WALL,
	{"COMM", "comm", -16, ROW_STR, 0, 0, "the process, its name then"},
	{"PID", "pid", 7, ROW_INT, 0, 0, "its thread ID"},
	{NULL, "call", 0, ROW_WORD, 0, ROW_NOTEXT, "the system call (mount, umount, fsopen...)"},
	{"RET", "ret", 4, ROW_INT, 0, 0, "its result: 0, a file descriptor, or -1 when it failed"},
	{"ERR", "errno", 3, ROW_INT, 0, 0, "the error number when it failed (EBUSY 16...), else 0"},
	{NULL, "source", 0, ROW_STR, 0, ROW_NOTEXT,
	 "mount's device, move_mount's from, open_tree's path; null when none or unread"},
	{NULL, "target", 0, ROW_STR, 0, ROW_NOTEXT,
	 "the mount point: mount's, umount's, move_mount's to, fspick's and mount_setattr's "
	 "path"},
	{NULL, "fstype", 0, ROW_STR, 0, ROW_NOTEXT, "the file system's type: mount's, fsopen's"},
	{NULL, "key", 0, ROW_STR, 0, ROW_NOTEXT, "fsconfig's key"},
	{NULL, "data", 0, ROW_STR, 0, ROW_NOTEXT, "mount's options, fsconfig's value"},
	{NULL, "flags", 0, ROW_UINT, 0, ROW_NOTEXT, "the call's flags as a number"},
	{"CALL", "text", -4, ROW_WORD, 0, 0,
	 "the call as it was made: strings quoted (\\\" \\\\ \\xNN inside), flags named, NULL, or "
	 "[unknown] when a string could not be read"},
};
static const struct row_table table = ROW_TABLE("each mount call", cols);

static const struct opt_spec options[] = {
	TOOL_DURATION,
	TOOL_JSON("one JSON object per call"),
	TOOL_TID,
	TOOL_NAME,
	TOOL_PID,
	TOOL_TIMESTAMP,
	TOOL_WALLCLOCK,
	{'x', NULL, NULL, "only failed calls", 0},
	{OPT_VIA, "via", "MECH",
	 "how to read strings: kprobe, eprobe or uprobe (default: the best\nthe kernel offers)", 0},
	TOOL_JSON_KEYS,
	TOOL_EXEC,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"mountsnoop                # trace mounts and unmounts",
	"mountsnoop -x             # only failed ones",
	"mountsnoop -T -n 'mount*' # by programs named mount..., with wall-clock times",
	"mountsnoop -j -d 60 > m.json  # a minute as JSON lines",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case 'x': env.failed = true; break;
	case OPT_VIA: env.sa.via = opt_choice(arg, ustr_via_names, USTR_BEST, "--via"); break;
	}
}

/* --- output --------------------------------------------------------------------------------- */

/* Flags by name, "|" between, what is left in hex; "0" for none. */
static void put_flags(FILE *f, unsigned long long v, const struct flag *names)
{
	bool any = false;
	/* mount(2)'s flags may carry the old magic number in their top half. */
	if (names == ms_flags && (v & 0xffff0000ULL) == 0xc0ed0000ULL) {
		fputs("MS_MGC_VAL", f);
		v &= ~0xffff0000ULL;
		any = true;
	}
	for (const struct flag *n = names; n->name; n++)
		if (v & n->bit) {
			fprintf(f, "%s%s", any ? "|" : "", n->name);
			v &= ~n->bit;
			any = true;
		}
	if (v || !any)
		fprintf(f, any ? "|0x%llx" : "%#llx", v);
}

/* String slot i of the call: NULL when the pointer was NULL or the read failed (*null says
 * which). */
static const char *string(const struct sysarg_done *d, int i, size_t *len, bool *null)
{
	*null = d->have_args && d->args[env.sa.str_arg[d->call][i]] == 0;
	return *null ? NULL : sysarg_str(&env.sa, d, i, len);
}

static void write_call(FILE *f, const struct sysarg_done *d)
{
	const struct call *c = &calls[d->call];
	fprintf(f, "%s(", c->sys.name);
	for (int a = 0; a < 7 && c->args[a].kind != END; a++) {
		const struct arg *g = &c->args[a];
		long long v = d->args[g->i];
		size_t len = 0;
		bool null;
		const char *s;
		if (a)
			fputs(", ", f);
		if (g->kind != STR && !d->have_args) {
			fputs("?", f);
			continue;
		}
		switch (g->kind) {
		case STR:
			if ((s = string(d, g->i, &len, &null)))
				out_text_arg(f, s, len, true);
			else
				fputs(null ? "NULL" : "[unknown]", f);
			break;
		case DIRFD:
			if ((int)v == -100)
				fputs("AT_FDCWD", f);
			else
				fprintf(f, "%d", (int)v);
			break;
		case FLAGS: put_flags(f, (unsigned long long)v & 0xffffffffULL, g->flags); break;
		case CMD:
			if (v >= 0 &&
			    v < (long long)(sizeof(fsconfig_cmds) / sizeof(*fsconfig_cmds)))
				fputs(fsconfig_cmds[v], f);
			else
				fprintf(f, "%lld", v);
			break;
		case PTR: fprintf(f, "%#llx", (unsigned long long)v); break;
		case NUM: fprintf(f, "%d", (int)v); break;
		case END: break;
		}
	}
	fputc(')', f);
}

static void key_str(const struct sysarg_done *d, int slot)
{
	size_t len = 0;
	bool null;
	const char *s = slot >= 0 ? string(d, slot, &len, &null) : NULL;
	if (s)
		row_bytes(&env.row, s, len);
	else
		row_none(&env.row);
}

static void on_call(const struct tep_record *exit, int tid, const struct sysarg_done *d, void *ctx)
{
	if (env.failed && d->ret >= 0)
		return;
	const struct call *c = &calls[d->call];
	rewind(env.text_f);
	write_call(env.text_f, d);
	fputc(0, env.text_f);
	fflush(env.text_f);
	row_begin(&env.row, exit->ts);
	row_str(&env.row, tool_comm(env.t, tid), 16);
	row_int(&env.row, tid);
	row_word(&env.row, c->sys.name);
	row_int(&env.row, d->ret < 0 ? -1 : d->ret);
	row_int(&env.row, d->ret < 0 ? -d->ret : 0);
	key_str(d, c->keys.source);
	key_str(d, c->keys.target);
	key_str(d, c->keys.fstype);
	key_str(d, c->keys.key);
	key_str(d, c->keys.data);
	if (c->keys.flags >= 0 && d->have_args)
		row_uint(&env.row, (unsigned long long)d->args[c->keys.flags] & 0xffffffffULL);
	else
		row_none(&env.row);
	row_word(&env.row, env.text);
	row_end(&env.row);
}

/* --- setup ---------------------------------------------------------------------------------- */

static enum tool_code setup(struct tool_run *t)
{
	env.t = t;
	for (int c = 0; c < NCALLS; c++)
		sys_calls[c] = calls[c].sys;
	if (!(env.text_f = open_memstream(&env.text, &env.text_size)))
		return TOOL_FAIL;
	env.sa.strings = "strings";
	int ret = sysarg_setup(&env.sa, t, on_call, NULL);
	if (ret)
		return ret;
	snprintf(t->traced, sizeof(t->traced), "mount calls, strings via %s", env.sa.what);
	return TOOL_OK;
}

static void end(struct tool_run *t)
{
	sysarg_report(&env.sa);
}

static void cleanup(struct tool_run *t)
{
	sysarg_free(&env.sa);
	if (env.text_f)
		fclose(env.text_f);
	free(env.text);
}

static const struct tool mountsnoop = {
	.name = "mountsnoop",
	.opts = options,
	.operand_kind = TOOL_OPERAND_DURATION,
	.examples = examples,
	.formats = (const char *const[]){"syscalls:sys_enter_mount", "syscalls:sys_exit_mount",
					 "syscalls:sys_enter_umount", "syscalls:sys_exit_umount",
					 NULL},
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
	return tool_main(&mountsnoop, argc, argv);
}
