// SPDX-License-Identifier: GPL-2.0-only
/*
 * fsslower: the reads, writes, opens and fsyncs of one file system that took at least a
 * threshold (10 ms by default), timed at the file system's own file operations, as bcc's
 * ext4slower: when each ended, the task, R, W, O or S, the bytes, the offset, the latency
 * and the file's name. Installed also as ext4slower, xfsslower, btrfsslower and nfsslower:
 * the name it is run by chooses the file system (fsslower: --fs, ext4 by default).
 *
 * Each operation is a kprobe and a kretprobe on the file system's function for it (found in
 * /proc/kallsyms at the start), paired per thread here (funcpair.h). Without kprobes, what
 * the file system's own tracepoints time from entry to exit: ext4's fsyncs
 * (ext4_sync_file_enter and _exit, with the inode's number instead of the name).
 */
#define _GNU_SOURCE /* strerrorname_np: glibc 2.32 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <event-parse.h>

#include "base/row.h"
#include "join/funcpair.h"
#include "kernel/probe.h"
#include "stream/ksym.h"
#include "stream/reader.h"
#include "tool.h"

/* --- settings and options --------------------------------------------------------------------- */

/* The operations, in the order of the T column's letters. How the entry reaches the file:
 * a read_iter or write_iter through its kiocb (ki_filp at 0, ki_pos at 8 since 3.16), open
 * as its second argument (inode, file), fsync as its first. */
enum { OP_R, OP_W, OP_O, OP_S, OPS };
enum file_at { AT_KIOCB, AT_ARG1, AT_ARG2 };
static const struct {
	char letter[2];
	const char *what;
	enum file_at at;
} ops[OPS] = {
	{"R", "reads", AT_KIOCB},
	{"W", "writes", AT_KIOCB},
	{"O", "opens", AT_ARG2},
	{"S", "fsyncs", AT_ARG1},
};

/* Each file system's file_operations for the four, and the system of its tracepoints that
 * pair an fsync's entry and exit (NULL: none). */
static const struct fsdef {
	const char *name;
	const char *func[OPS];
	const char *sync_tp; /* <sys>:<sys>_sync_file_enter and _exit */
} fss[] = {
	{"ext4",
	 {"ext4_file_read_iter", "ext4_file_write_iter", "ext4_file_open", "ext4_sync_file"},
	 "ext4"},
	{"xfs",
	 {"xfs_file_read_iter", "xfs_file_write_iter", "xfs_file_open", "xfs_file_fsync"},
	 NULL},
	{"btrfs",
	 {"btrfs_file_read_iter", "btrfs_file_write_iter", "btrfs_file_open", "btrfs_sync_file"},
	 NULL},
	{"nfs", {"nfs_file_read", "nfs_file_write", "nfs_file_open", "nfs_file_fsync"}, NULL},
};
static const char *const fs_names[] = {"ext4", "xfs", "btrfs", "nfs", NULL};
#define NFS (int)(sizeof(fss) / sizeof(*fss))

static struct env {
	int fs;		 /* index in fss */
	bool fs_given;	 /* --fs */
	int alias;	 /* run as <fs>slower: its index, else -1 */
	bool verbose;	 /* -v */
	uint64_t min_ns; /* the operand */
	struct funcpair fp[OPS];
	bool on[OPS];	      /* traced */
	bool by_tp[OPS];      /* by the file system's tracepoints, not kprobes */
	const char *why[OPS]; /* not traced: why */
	char fetch_file[OPS][48], fetch_name[OPS][64];
	struct tep_format_field *ino; /* the tracepoint's inode number */
	struct tool_run *t;
	struct row row;
} env = {.min_ns = 10 * 1000000ULL, .alias = -1};

enum { OPT_FS = OPT_LONG + 1 };

static const struct opt_spec options[] = {
	TOOL_DURATION,
	{OPT_FS, "fs", "FS",
	 "the file system: ext4, xfs, btrfs or nfs (default: ext4, or\nthe "
	 "one in the name it is run by: xfsslower)",
	 0},
	TOOL_JSON("one JSON object per slow operation"),
	TOOL_TID,
	TOOL_NAME,
	TOOL_PID,
	TOOL_WALLCLOCK,
	{'v', NULL, NULL, "say which functions or events time each operation, and exit", 0},
	TOOL_JSON_KEYS,
	TOOL_EXEC,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"fsslower                  # ext4's operations slower than 10 ms",
	"fsslower 1                # slower than 1 ms",
	"fsslower -v --fs xfs      # which functions would time xfs's operations",
	"fsslower -p 181 -T 5      # PID 181's over 5 ms, with wall-clock times",
	"fsslower -j -d 10 0 > f.json # every operation for 10 seconds, as JSON lines",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case OPT_FS:
		env.fs = opt_choice(arg, fs_names, NFS, "--fs");
		env.fs_given = true;
		break;
	case 'v': env.verbose = true; break;
	}
}

static void operands(struct tool_run *t, int argc, char **argv)
{
	if (argc > 0)
		env.min_ns = (uint64_t)opt_int(argv[0], 0, 1LL << 31, "MIN_MS") * 1000000ULL;
	if (argc > 1)
		opt_fail("unexpected argument: '%s' (see -h)", argv[1]);
}

static void check(struct tool_run *t)
{
	if (env.alias >= 0 && env.fs_given && env.fs != env.alias)
		opt_fail("--fs %s: %s traces %s only (fsslower --fs %s)", fss[env.fs].name,
			 t->tool->name, fss[env.alias].name, fss[env.fs].name);
	if (env.alias >= 0)
		env.fs = env.alias;
}

/* --- per event -------------------------------------------------------------------------------- */

static const struct row_col cols[] = {
	{"TIME(s)", "ts", -14, ROW_TIME, 6, 0,
	 "trace-clock seconds (CLOCK_MONOTONIC) when the operation returned"},
	ROW_COL_WALL,
	{"COMM", "comm", -16, ROW_STR, 0, 0, "the task, its name then"},
	{"PID", "pid", 7, ROW_INT, 0, 0, "its process ID"},
	{NULL, "tid", 0, ROW_INT, 0, ROW_NOTEXT, "its thread ID"},
	{"T", "op", 1, ROW_WORD, 0, 0, "R a read, W a write, O an open, S an fsync"},
	{NULL, "func", 0, ROW_WORD, 0, ROW_NOTEXT,
	 "the function (kprobes) or the entry's tracepoint that timed it"},
	{"BYTES", NULL, 7, ROW_WORD, 0, ROW_NOJSON, NULL},
	{NULL, "bytes", 0, ROW_UINT, 0, ROW_NOTEXT,
	 "what a read or write returned (bytes); null for opens, fsyncs and failures"},
	{NULL, "errno", 0, ROW_INT, 0, ROW_NOTEXT, "the error number when it failed, else 0"},
	{"OFF_KB", NULL, 7, ROW_WORD, 0, ROW_NOJSON, NULL},
	{NULL, "offset", 0, ROW_INT, 0, ROW_NOTEXT,
	 "the file offset a read or write began at (bytes); null for the others"},
	{"LAT(ms)", NULL, 8, ROW_FLOAT, 2, ROW_NOJSON, NULL},
	{NULL, "lat_ns", 0, ROW_UINT, 0, ROW_NOTEXT,
	 "nanoseconds from the operation's entry to its return"},
	{"FILENAME", NULL, -8, ROW_STR, 0, ROW_NOJSON, NULL},
	{NULL, "file", 0, ROW_STR, 0, ROW_NOTEXT,
	 "the file's name (its last component, as the dentry has it); null where not known "
	 "(the tracepoints: ino)"},
	{NULL, "ino", 0, ROW_UINT, 0, ROW_NOTEXT,
	 "the inode's number (the tracepoints'); null with kprobes"},
};
static const struct row_table table = ROW_TABLE("each slow operation, at its return", cols);

/* A failure's name, as the kernel's code: EIO, ERESTARTSYS (a signal came), E<n>. */
static void error_name(long long ret, char *out, size_t len)
{
	static const char *const restart[] = {"ERESTARTSYS", "ERESTARTNOINTR", "ERESTARTNOHAND",
					      NULL, "ERESTART_RESTARTBLOCK"};
	if (-ret >= 512 && -ret <= 516 && restart[-ret - 512])
		snprintf(out, len, "%s", restart[-ret - 512]);
	else if (-ret < 4096 && strerrorname_np((int)-ret))
		snprintf(out, len, "%s", strerrorname_np((int)-ret));
	else
		snprintf(out, len, "E%lld", -ret);
}

static void on_op(struct tep_record *ret, const struct funcpair_call *c, void *ctx)
{
	int op = (int)(intptr_t)ctx;
	if (c->ns < env.min_ns)
		return;
	struct funcpair *fp = &env.fp[op];
	struct tool_run *t = env.t;
	int tid = tep_data_pid(t->s.tep, ret);
	long long rv = funcpair_retval(fp, ret);
	bool rw = op == OP_R || op == OP_W;
	char bytes[32], off[32];
	if (rv < 0)
		error_name(rv, bytes, sizeof(bytes));
	else if (rw)
		snprintf(bytes, sizeof(bytes), "%lld", rv);
	else
		snprintf(bytes, sizeof(bytes), "-");
	long long offset = rw && fp->nargs ? (long long)c->args[0] : 0;
	if (rw && fp->nargs)
		snprintf(off, sizeof(off), "%lld", offset / 1024);
	else
		snprintf(off, sizeof(off), "-");
	struct row *r = &env.row;
	row_begin(r, ret->ts);
	row_str(r, tool_comm(t, tid), 16);
	row_int(r, tool_tgid(t, tid));
	row_int(r, tid);
	row_word(r, ops[op].letter);
	row_word(r, fp->func);
	row_word(r, bytes);
	if (rw && rv >= 0)
		row_uint(r, (unsigned long long)rv);
	else
		row_none(r);
	row_int(r, rv < 0 ? -rv : 0);
	row_word(r, off);
	if (rw && fp->nargs)
		row_int(r, offset);
	else
		row_none(r);
	row_float(r, c->ns / 1e6);
	row_uint(r, c->ns);
	unsigned long long ino = env.by_tp[op] && env.ino ? reader_num(ret, env.ino) : 0;
	if (c->str) {
		row_bytes(r, c->str, strnlen(c->str, fp->str_size));
		row_bytes(r, c->str, strnlen(c->str, fp->str_size));
	} else if (env.by_tp[op]) {
		char name[48];
		snprintf(name, sizeof(name), "[ino %llu]", ino);
		row_word(r, name);
		row_none(r);
	} else { /* the kernel could not read the name */
		row_word(r, "?");
		row_none(r);
	}
	if (env.by_tp[op])
		row_uint(r, ino);
	else
		row_none(r);
	row_end(r);
}

/* --- set up ----------------------------------------------------------------------------------- */

/* Where struct file keeps f_path.dentry: after f_u (16 bytes) and f_path.mnt until Linux
 * 6.12 reordered struct file (f_path at 64, as 6.18's BTF says); d_name.name is at 40 of
 * struct dentry in all of them (x86-64, without lock debugging). */
static int dentry_offset(void)
{
	struct utsname u;
	int major = 0, minor = 0;
	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return 72;
	return major > 6 || (major == 6 && minor >= 12) ? 72 : 24;
}

/* Operation op by a kprobe pair on the file system's function. */
static int by_kprobes(struct tool_run *t, int op, const struct ksyms *k)
{
	const char *func = fss[env.fs].func[op];
	struct funcpair *fp = &env.fp[op];
	if (!k || !ksym_addr(k, func)) {
		env.why[op] = "not in /proc/kallsyms";
		return TOOL_OK;
	}
	if (env.verbose) {
		env.on[op] = true;
		return TOOL_OK;
	}
	static const char *const prefix[OPS] = {"fsr", "fsw", "fso", "fss"};
	char *file = env.fetch_file[op];
	size_t len = sizeof(env.fetch_file[op]);
	if (ops[op].at == AT_KIOCB) {
		snprintf(file, len, "+0($arg1)");
		fp->nargs = 1;
		fp->arg_fetch[0] = "+8($arg1)"; /* ki_pos */
	} else
		snprintf(file, len, "$arg%d", ops[op].at == AT_ARG2 ? 2 : 1);
	snprintf(env.fetch_name[op], sizeof(env.fetch_name[op]), "+40(+%d(%s))", dentry_offset(),
		 file);
	fp->spec = func;
	fp->retval = true;
	fp->str_fetch = env.fetch_name[op];
	fp->str_size = 256; /* NAME_MAX and its NUL */
	int ret = funcpair_probes(t, fp, prefix[op]);
	if (ret)
		return ret;
	env.on[op] = true;
	return TOOL_OK;
}

/* Operation op by the file system's own tracepoints (<sys>_sync_file_enter and _exit). */
static int by_tracepoints(struct tool_run *t, int op)
{
	const char *sys = fss[env.fs].sync_tp;
	env.why[op] = "kprobes not available (CONFIG_KPROBE_EVENTS)";
	if (op != OP_S || !sys)
		return TOOL_OK;
	char enter[64], exit_[64];
	snprintf(enter, sizeof(enter), "%s_sync_file_enter", sys);
	snprintf(exit_, sizeof(exit_), "%s_sync_file_exit", sys);
	struct tep_event *en = session_load_event(&t->s, sys, enter);
	struct tep_event *ex = session_load_event(&t->s, sys, exit_);
	if (!en || !ex) {
		env.why[op] = "kprobes not available (CONFIG_KPROBE_EVENTS), nor its tracepoints";
		return TOOL_OK;
	}
	int ret = funcpair_events(t, &env.fp[op], en, ex, "ret");
	if (ret)
		return ret;
	if (!(env.ino = tep_find_field(ex, "ino")))
		return TOOL_FAIL;
	env.on[op] = env.by_tp[op] = true;
	return TOOL_OK;
}

static int prepare(struct tool_run *t)
{
	env.t = t;
	const struct fsdef *fs = &fss[env.fs];
	bool kprobes = probe_available(&t->s, PROBE_KPROBE, true);
	struct ksyms *k = kprobes ? ksym_load() : NULL;
	int ret = TOOL_OK, n = 0;
	for (int op = 0; op < OPS && !ret; op++) {
		ret = kprobes ? by_kprobes(t, op, k) : by_tracepoints(t, op);
		n += env.on[op];
	}
	ksym_free(k);
	if (ret)
		return ret;
	if (env.verbose) {
		for (int op = 0; op < OPS; op++) {
			if (!env.on[op])
				printf("%s  %-7s not traced (%s): %s\n", ops[op].letter,
				       ops[op].what, fs->func[op], env.why[op]);
			else if (env.by_tp[op])
				printf("%s  %-7s %s:%s and %s (tracepoints)\n", ops[op].letter,
				       ops[op].what, fs->sync_tp, env.fp[op].entry->name,
				       env.fp[op].ret->name);
			else
				printf("%s  %-7s %s (kprobe and kretprobe)\n", ops[op].letter,
				       ops[op].what, fs->func[op]);
		}
		if (n)
			return TOOL_DONE;
	}
	if (!n) {
		fprintf(stderr, "%s: nothing of %s can be traced: %s\n", t->tool->name, fs->name,
			kprobes ? "none of its functions is in /proc/kallsyms (not loaded?)" :
				  "kprobes not available in this kernel (CONFIG_KPROBE_EVENTS)");
		return TOOL_FAIL;
	}
	/* One line for what is left out. */
	char out[256] = "", in[128] = "";
	size_t o = 0, i = 0;
	for (int op = 0; op < OPS; op++)
		if (!env.on[op])
			o += (size_t)snprintf(out + o, sizeof(out) - o, "%s%s (%s)", o ? ", " : "",
					      ops[op].what,
					      kprobes ? fs->func[op] : ops[op].letter);
		else
			i += (size_t)snprintf(in + i, sizeof(in) - i, "%s%s", i ? ", " : "",
					      ops[op].what);
	if (*out)
		fprintf(stderr, "%s: %s not traced: %s; tracing %s\n", t->tool->name, out,
			kprobes ? "not in /proc/kallsyms" :
				  "they need kprobes (CONFIG_KPROBE_EVENTS)",
			in);
	if (kprobes) /* every read and write of the file system is recorded, slow or not */
		t->buffer_kb = session_flood_buffer_kb();
	snprintf(t->traced, sizeof(t->traced), "%s of %s taking %llu ms or more (%s)", in, fs->name,
		 (unsigned long long)(env.min_ns / 1000000), kprobes ? "kprobes" : "tracepoints");
	return TOOL_OK;
}

static int setup(struct tool_run *t)
{
	row_init(&env.row, &table, stdout, t->o.json, true, t->o.wallclock);
	for (int op = 0; op < OPS; op++) {
		if (!env.on[op])
			continue;
		int ret = funcpair_trace(t, &env.fp[op], on_op, (void *)(intptr_t)op);
		if (ret)
			return ret;
	}
	return TOOL_OK;
}

/* --- at the end ------------------------------------------------------------------------------- */

static void end(struct tool_run *t)
{
	for (int op = 0; op < OPS; op++)
		if (env.on[op])
			funcpair_report(&env.fp[op], t->tool->name, 0);
}

static void cleanup(struct tool_run *t)
{
	for (int op = 0; op < OPS; op++)
		funcpair_free(&env.fp[op]);
}

static const struct tool fsslower = {
	.name = "fsslower",
	.opts = options,
	.operands = "[MIN_MS]",
	.operand_help = "   MIN_MS      show operations of at least this many milliseconds\n"
			"               (default 10; 0: every one)\n",
	.examples = examples,
	.rows = (const struct row_table *const[]){&table, NULL},
	.option = option,
	.operands_fn = operands,
	.check = check,
	.prepare = prepare,
	.setup = setup,
	.row = &env.row,
	.end = end,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	/* ext4slower, xfsslower, btrfsslower, nfsslower: links to this program. */
	static char name[32];
	const char *base = strrchr(argv[0], '/');
	base = base ? base + 1 : argv[0];
	struct tool tool = fsslower;
	for (int i = 0; i < NFS; i++) {
		snprintf(name, sizeof(name), "%sslower", fss[i].name);
		if (!strcmp(base, name)) {
			env.alias = i;
			tool.name = name;
			break;
		}
	}
	return tool_main(&tool, argc, argv);
}
