// SPDX-License-Identifier: GPL-2.0-only
#include "domain/fsops.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include <event-parse.h>

#include "base/opt.h"
#include "kernel/probe.h"
#include "kernel/session.h"
#include "stream/ksym.h"
#include "tool.h"

const char *const fsops_fs_names[FSOPS_NFS + 1] = {"ext4", "xfs", "btrfs", "nfs", NULL};

/* How the entry reaches the file: a read_iter or write_iter through its kiocb (ki_filp at 0,
 * ki_pos at 8 since 3.16), open as its second argument (inode, file), fsync as its first. */
enum file_at { AT_KIOCB, AT_ARG1, AT_ARG2 };
static const struct {
	const char *letter, *what;
	enum file_at at;
} ops[FSOPS_N] = {
	{"R", "reads", AT_KIOCB},
	{"W", "writes", AT_KIOCB},
	{"O", "opens", AT_ARG2},
	{"S", "fsyncs", AT_ARG1},
};

/* Each file system's file_operations for the four, and the system of its tracepoints that
 * pair an fsync's entry and exit (<sys>_sync_file_enter and _exit; NULL: none). */
static const struct {
	const char *func[FSOPS_N];
	const char *sync_tp;
} fss[FSOPS_NFS] = {
	{{"ext4_file_read_iter", "ext4_file_write_iter", "ext4_file_open", "ext4_sync_file"},
	 "ext4"},
	{{"xfs_file_read_iter", "xfs_file_write_iter", "xfs_file_open", "xfs_file_fsync"}, NULL},
	{{"btrfs_file_read_iter", "btrfs_file_write_iter", "btrfs_file_open", "btrfs_sync_file"},
	 NULL},
	{{"nfs_file_read", "nfs_file_write", "nfs_file_open", "nfs_file_fsync"}, NULL},
};

const char *fsops_letter(int op)
{
	return ops[op].letter;
}

const char *fsops_what(int op)
{
	return ops[op].what;
}

const char *fsops_func(int fs, int op)
{
	return fss[fs].func[op];
}

int fsops_alias(const char *argv0, const char *suffix)
{
	const char *base = strrchr(argv0, '/');
	base = base ? base + 1 : argv0;
	size_t n = strlen(base), s = strlen(suffix);
	if (n <= s || strcmp(base + n - s, suffix))
		return -1;
	for (int i = 0; i < FSOPS_NFS; i++)
		if (strlen(fsops_fs_names[i]) == n - s && !strncmp(base, fsops_fs_names[i], n - s))
			return i;
	return -1;
}

int fsops_tool_name(const char *argv0, const char *suffix, char *name, size_t len)
{
	int fs = fsops_alias(argv0, suffix);
	if (fs >= 0)
		snprintf(name, len, "%s%s", fsops_fs_names[fs], suffix);
	return fs;
}

void fsops_check(struct fsops *f, int alias, bool fs_given, const char *tool, const char *base)
{
	const char *fs = fsops_fs_names[f->fs];
	if (alias >= 0 && fs_given && f->fs != alias)
		opt_fail("--fs %s: %s traces %s only (%s --fs %s)", fs, tool, fsops_fs_names[alias],
			 base, fs);
	if (alias >= 0)
		f->fs = alias;
}

/* After f_u (16 bytes) and f_path.mnt until Linux 6.12 reordered struct file (f_path at 64,
 * as 6.18's BTF says). */
int fsops_dentry_offset(const char *release)
{
	int major = 0, minor = 0;
	if (sscanf(release, "%d.%d", &major, &minor) != 2)
		return 72;
	return major > 6 || (major == 6 && minor >= 12) ? 72 : 24;
}

/* The pointer d_name.name is at 40 of struct dentry from 4.9 to 6.18 (x86-64, without lock
 * debugging); a string fetch +0(P) reads at the address P holds (+40(D) alone would read the
 * dentry's own bytes from there: seen in the 4.19 guest, the pointers then d_iname). */
void fsops_name_fetch(int op, int dentry, char *out, size_t len)
{
	if (ops[op].at == AT_KIOCB)
		snprintf(out, len, "+0(+40(+%d(+0($arg1))))", dentry);
	else
		snprintf(out, len, "+0(+40(+%d($arg%d)))", dentry, ops[op].at == AT_ARG2 ? 2 : 1);
}

int fsops_plan(struct fsops *f, bool kprobes, const struct ksyms *k, const struct ksyms *kdata,
	       int dentry, bool have_sync_tp)
{
	int n = 0;
	size_t o = 0;
	f->kprobes = kprobes;
	f->generic = false;
	f->traced[0] = 0;
	for (int op = 0; op < FSOPS_N; op++) {
		f->on[op] = f->by_tp[op] = false;
		if (kprobes) {
			f->on[op] = k && ksym_addr(k, fss[f->fs].func[op]);
			f->why[op] = f->on[op] ? NULL : "not in /proc/kallsyms";
		} else if (op == FSOPS_S && fss[f->fs].sync_tp && have_sync_tp) {
			f->on[op] = f->by_tp[op] = true;
			f->why[op] = NULL;
		} else
			f->why[op] = "kprobes not available (CONFIG_KPROBE_EVENTS)";
		if (kprobes && !f->on[op] && op == FSOPS_R && k &&
		    ksym_addr(k, "generic_file_read_iter")) {
			char fops[64];
			snprintf(fops, sizeof(fops), "%s_file_operations", fsops_fs_names[f->fs]);
			f->fops = kdata ? ksym_addr(kdata, fops) : 0;
			f->generic = f->on[op] = f->fops && dentry == 24;
			f->why[op] = f->on[op] ?
					     NULL :
				     dentry != 24 ?
					     "not in /proc/kallsyms" :
					     "not in /proc/kallsyms, and generic_file_read_iter's "
					     "calls cannot be told apart without the address of "
					     "its file_operations (CONFIG_KALLSYMS_ALL)";
		}
		if (f->on[op] && o < sizeof(f->traced))
			o += (size_t)snprintf(f->traced + o, sizeof(f->traced) - o, "%s%s",
					      n ? ", " : "", ops[op].what);
		n += f->on[op];
	}
	return n;
}

void fsops_left_out(const struct fsops *f, char *out, size_t len)
{
	size_t o = 0;
	out[0] = 0;
	for (int op = 0; op < FSOPS_N && o < len; op++)
		if (!f->on[op])
			o += (size_t)snprintf(out + o, len - o, "%s%s (%s)", o ? ", " : "",
					      ops[op].what,
					      f->kprobes ? fss[f->fs].func[op] : ops[op].letter);
	if (*out && o < len)
		snprintf(out + o, len - o, " not traced: %s; tracing %s",
			 f->kprobes ? "not in /proc/kallsyms" :
				      "they need kprobes (CONFIG_KPROBE_EVENTS)",
			 f->traced);
}

/* Operation op by a kprobe pair on the file system's function. */
static enum tool_code by_kprobes(struct tool_run *t, struct fsops *f, int op, int dentry)
{
	static const char *const prefix[FSOPS_N] = {"fsr", "fsw", "fso", "fss"};
	struct funcpair *fp = &f->fp[op];
	fp->spec = fss[f->fs].func[op];
	fp->retval = true;
	if (op == FSOPS_R && f->generic) {
		/* every file system's reads: the file's f_op (at 40 before 6.12) tells */
		fp->spec = "generic_file_read_iter";
		fp->nargs = 2;
		fp->arg_fetch[0] = "+8($arg1)"; /* ki_pos */
		fp->arg_fetch[1] = "+40(+0($arg1))";
	}
	if (f->names) {
		if (ops[op].at == AT_KIOCB && !fp->nargs) {
			fp->nargs = 1;
			fp->arg_fetch[0] = "+8($arg1)"; /* ki_pos */
		}
		fsops_name_fetch(op, dentry, f->fetch_name[op], sizeof(f->fetch_name[op]));
		fp->str_fetch = f->fetch_name[op];
		fp->str_size = 256; /* NAME_MAX and its NUL */
	}
	return funcpair_probes(t, fp, prefix[op]);
}

/* ext4's fsyncs by its tracepoints. */
static enum tool_code by_tracepoints(struct tool_run *t, struct fsops *f, int op)
{
	const char *sys = fss[f->fs].sync_tp;
	char enter[64], exit_[64];
	snprintf(enter, sizeof(enter), "%s_sync_file_enter", sys);
	snprintf(exit_, sizeof(exit_), "%s_sync_file_exit", sys);
	struct tep_event *en = session_load_event(&t->s, sys, enter);
	struct tep_event *ex = session_load_event(&t->s, sys, exit_);
	if (!en || !ex) {
		fprintf(stderr, "%s: %s:%s not available in this kernel (CONFIG_EXT4_FS)\n",
			t->tool->name, sys, en ? exit_ : enter);
		return TOOL_FAIL;
	}
	int ret = funcpair_events(t, &f->fp[op], en, ex, "ret");
	if (ret)
		return ret;
	if (!(f->ino = tep_find_field(ex, "ino")))
		fprintf(stderr, "%s: %s has no field ino\n", t->tool->name, exit_);
	return f->ino ? TOOL_OK : TOOL_FAIL;
}

static void say_plan(const struct fsops *f)
{
	for (int op = 0; op < FSOPS_N; op++) {
		const char *func = fss[f->fs].func[op];
		if (!f->on[op])
			printf("%s  %-7s not traced (%s): %s\n", ops[op].letter, ops[op].what, func,
			       f->why[op]);
		else if (f->by_tp[op])
			printf("%s  %-7s %s:%s_sync_file_enter and %s_sync_file_exit "
			       "(tracepoints)\n",
			       ops[op].letter, ops[op].what, fss[f->fs].sync_tp, fss[f->fs].sync_tp,
			       fss[f->fs].sync_tp);
		else if (op == FSOPS_R && f->generic)
			printf("%s  %-7s generic_file_read_iter, the calls on %s_file_operations "
			       "(kprobe and kretprobe)\n",
			       ops[op].letter, ops[op].what, fsops_fs_names[f->fs]);
		else
			printf("%s  %-7s %s (kprobe and kretprobe)\n", ops[op].letter, ops[op].what,
			       func);
	}
}

enum tool_code fsops_prepare(struct tool_run *t, struct fsops *f)
{
	const char *name = t->tool->name, *fs = fsops_fs_names[f->fs];
	bool kprobes = probe_available(&t->s, PROBE_KPROBE, true);
	struct ksyms *k = kprobes ? ksym_load() : NULL;
	struct ksyms *kdata = kprobes ? ksym_load_data() : NULL;
	struct utsname u;
	int dentry = fsops_dentry_offset(uname(&u) ? "" : u.release);
	bool tp = false;
	if (!kprobes && fss[f->fs].sync_tp) {
		char enter[64];
		snprintf(enter, sizeof(enter), "%s_sync_file_enter", fss[f->fs].sync_tp);
		tp = session_load_event(&t->s, fss[f->fs].sync_tp, enter) != NULL;
	}
	int n = fsops_plan(f, kprobes, k, kdata, dentry, tp);
	ksym_free(k);
	ksym_free(kdata);
	if (f->verbose)
		say_plan(f);
	if (!n) {
		fprintf(stderr, "%s: nothing of %s can be traced: %s\n", name, fs,
			kprobes ? "none of its functions is in /proc/kallsyms (not loaded?)" :
				  "kprobes not available in this kernel (CONFIG_KPROBE_EVENTS)");
		return TOOL_FAIL;
	}
	if (f->verbose)
		return TOOL_DONE;
	for (int op = 0; op < FSOPS_N; op++) {
		if (!f->on[op])
			continue;
		int ret = f->by_tp[op] ? by_tracepoints(t, f, op) : by_kprobes(t, f, op, dentry);
		if (ret)
			return ret;
	}
	char out[512];
	fsops_left_out(f, out, sizeof(out));
	if (*out)
		fprintf(stderr, "%s: %s\n", name, out);
	return TOOL_OK;
}

/* Each call paired: to the tool's fn, but a generic read of another file system's file. */
static void on_call(struct tep_record *ret, const struct funcpair_call *c, void *ctx)
{
	const struct fsops_op *o = ctx;
	if (o->op == FSOPS_R && o->f->generic && c->args[1] != o->f->fops)
		return;
	o->f->fn(ret, c, (void *)(intptr_t)o->op);
}

enum tool_code fsops_trace(struct tool_run *t, struct fsops *f, funcpair_fn fn)
{
	f->fn = fn;
	for (int op = 0; op < FSOPS_N; op++) {
		if (!f->on[op])
			continue;
		f->ctx[op].f = f;
		f->ctx[op].op = op;
		int ret = funcpair_trace(t, &f->fp[op], on_call, &f->ctx[op]);
		if (ret)
			return ret;
	}
	return TOOL_OK;
}

void fsops_report(struct fsops *f, const char *tool)
{
	for (int op = 0; op < FSOPS_N; op++)
		if (f->on[op])
			funcpair_report(&f->fp[op], tool, 0);
}

void fsops_free(struct fsops *f)
{
	for (int op = 0; op < FSOPS_N; op++)
		funcpair_free(&f->fp[op]);
}
