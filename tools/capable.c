// SPDX-License-Identifier: GPL-2.0-only
/*
 * capable: each capability check the kernel makes (cap_capable(), which every capable(),
 * ns_capable() and file-capability check reaches), one line: the task, the capability, whether
 * the check is audited, and the verdict. From a kprobe and a kretprobe on cap_capable()
 * paired per thread (funcpair.h), or where there are no kprobes from the tracepoint
 * capability:cap_capable (Linux 6.14), which does not say whether a check is audited.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include <event-parse.h>

#include "stream/evprint.h"
#include "join/funcpair.h"
#include "stream/ksym.h"
#include "kernel/probe.h"
#include "base/row.h"
#include "tool.h"
#include "stream/usym.h"

/* capabilities(7), by number (linux/capability.h). */
static const char *const cap_names[] = {
	"CAP_CHOWN",
	"CAP_DAC_OVERRIDE",
	"CAP_DAC_READ_SEARCH",
	"CAP_FOWNER",
	"CAP_FSETID",
	"CAP_KILL",
	"CAP_SETGID",
	"CAP_SETUID",
	"CAP_SETPCAP",
	"CAP_LINUX_IMMUTABLE",
	"CAP_NET_BIND_SERVICE",
	"CAP_NET_BROADCAST",
	"CAP_NET_ADMIN",
	"CAP_NET_RAW",
	"CAP_IPC_LOCK",
	"CAP_IPC_OWNER",
	"CAP_SYS_MODULE",
	"CAP_SYS_RAWIO",
	"CAP_SYS_CHROOT",
	"CAP_SYS_PTRACE",
	"CAP_SYS_PACCT",
	"CAP_SYS_ADMIN",
	"CAP_SYS_BOOT",
	"CAP_SYS_NICE",
	"CAP_SYS_RESOURCE",
	"CAP_SYS_TIME",
	"CAP_SYS_TTY_CONFIG",
	"CAP_MKNOD",
	"CAP_LEASE",
	"CAP_AUDIT_WRITE",
	"CAP_AUDIT_CONTROL",
	"CAP_SETFCAP",
	"CAP_MAC_OVERRIDE",
	"CAP_MAC_ADMIN",
	"CAP_SYSLOG",
	"CAP_WAKE_ALARM",
	"CAP_BLOCK_SUSPEND",
	"CAP_AUDIT_READ",
	"CAP_PERFMON",
	"CAP_BPF",
	"CAP_CHECKPOINT_RESTORE",
};
#define NCAPS (int)(sizeof(cap_names) / sizeof(*cap_names))

static struct env {
	bool failed;	 /* -x */
	bool audit_only; /* --audit */
	bool stack, ustack;
	/* Before Linux 5.1 cap_capable()'s fourth argument is `int audit` (1: audited); from
	 * 5.1 `unsigned opts` (CAP_OPT_NOAUDIT 2, CAP_OPT_INSETID 4), and so in stable kernels
	 * that took the change (4.19.222 has it): told by security_capable_noaudit(), which
	 * the change removed. */
	bool audit_arg;
	struct funcpair fp;   /* kprobes */
	struct tep_event *tp; /* or the tracepoint */
	struct tep_format_field *tp_cap, *tp_ret;
	struct tool_run *t;
	struct row row;
	struct evprint *stacks;
	struct ksyms *ksyms;
	struct tep_event *kstack_ev, *ustack_ev;
} env;

enum { OPT_AUDIT = OPT_LONG + 1 };

static const struct row_col cols[] = {
	ROW_COL_TS,
	ROW_COL_WALL,
	{"PID", "pid", 7, ROW_INT, 0, 0, "the thread that was checked"},
	{"COMM", "comm", -16, ROW_STR, 0, 0, "its name then"},
	{"CAP", "cap", 4, ROW_INT, 0, 0, "the capability's number"},
	{"NAME", "name", -22, ROW_WORD, 0, 0, "its name (capabilities(7)); null when unknown"},
	{"AUDIT", "audit", 5, ROW_INT, 0, 0,
	 "1 when a denial would be audited, 0 when not; null where the tracepoint is used"},
	{NULL, "insetid", 0, ROW_INT, 0, ROW_NOTEXT,
	 "1 for a check made while setting a file's set-ID bits (Linux 5.1, kprobes); else 0 or "
	 "null"},
	{NULL, "ret", 0, ROW_INT, 0, ROW_NOTEXT, "cap_capable()'s return: 0, or -1 (-EPERM)"},
	{"VERDICT", "verdict", -5, ROW_WORD, 0, 0, "allow or deny"},
};
static const struct row_table table = ROW_TABLE("each capability check", cols);

static const struct opt_spec options[] = {
	TOOL_DURATION,
	TOOL_JSON("one JSON object per check"),
	TOOL_TID,
	TOOL_NAME,
	TOOL_PID,
	{'s', NULL, NULL, "the kernel stack of each check", 0},
	TOOL_TIMESTAMP,
	TOOL_WALLCLOCK,
	{'U', NULL, NULL, "the user stack of each check (walked by frame\npointers, 8 frames)", 0},
	{'x', NULL, NULL, "only checks that were denied", 0},
	{OPT_AUDIT, "audit", NULL,
	 "only checks whose denial would be audited (bcc's\ndefault; needs kprobes)", 0},
	TOOL_JSON_KEYS,
	TOOL_EXEC,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"capable                   # every capability check",
	"capable -x                # only denied checks",
	"capable --audit -T        # audited ones (as bcc's default), with times",
	"capable -s -p 181         # PID 181's checks with their kernel stacks",
	"capable -j -d 10 > c.json # 10 seconds as JSON lines",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case 'x': env.failed = true; break;
	case 's': env.stack = true; break;
	case 'U': env.ustack = true; break;
	case OPT_AUDIT: env.audit_only = true; break;
	}
}

/* --- per check ------------------------------------------------------------------------------ */

/* One check: audit and insetid -1 when unknown; the stacks of kstack (held, n frames) or of
 * the record's trailers. */
static void print_check(struct tep_record *rec, uint64_t ts, int cap, int audit, int insetid,
			int ret, const unsigned long long *kstack, int nk)
{
	if ((env.failed && ret == 0) || (env.audit_only && audit != 1))
		return;
	int tid = reader_pid(rec);
	row_begin(&env.row, ts);
	row_int(&env.row, tid);
	row_str(&env.row, tool_comm(env.t, tid), 16);
	row_int(&env.row, cap);
	if (cap >= 0 && cap < NCAPS)
		row_word(&env.row, cap_names[cap]);
	else
		row_none(&env.row);
	if (audit >= 0)
		row_int(&env.row, audit);
	else
		row_none(&env.row);
	if (insetid >= 0)
		row_int(&env.row, insetid);
	else
		row_none(&env.row);
	row_int(&env.row, ret);
	row_word(&env.row, ret == 0 ? "allow" : "deny");
	/* Text: the stacks' lines after the line; JSON: their members inside the object. */
	row_end_open(&env.row);
	if (env.stack && kstack)
		evprint_kstack(env.stacks, kstack, nk);
	if (env.stacks)
		evprint_trailers(env.stacks, rec);
	row_close(&env.row);
}

static void on_call(struct tep_record *ret, const struct funcpair_call *c, void *ctx)
{
	unsigned opts = (unsigned)c->args[3];
	int audit = env.audit_arg ? opts == 1 : !(opts & 2);
	int insetid = env.audit_arg ? -1 : !!(opts & 4);
	print_check(ret, c->entry_ts, (int)c->args[2], audit, insetid,
		    (int)funcpair_retval(&env.fp, ret), c->kstack, c->nkstack);
}

static void on_tracepoint(struct tep_record *rec, void *ctx)
{
	print_check(rec, rec->ts, (int)reader_num(rec, env.tp_cap), -1, -1,
		    (int)reader_num(rec, env.tp_ret), NULL, 0);
}

/* --- setup ---------------------------------------------------------------------------------- */

static bool before(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;
	if (uname(&u) || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma < major || (ma == major && mi < minor);
}

static enum tool_code prepare(struct tool_run *t)
{
	int ret;
	env.t = t;
	if (probe_available(&t->s, PROBE_KPROBE, true)) {
		env.fp.spec = "cap_capable";
		env.fp.nargs = 4;
		env.fp.retval = true;
		struct ksyms *k = ksym_load();
		env.audit_arg = k ? ksym_addr(k, "security_capable_noaudit") != 0 : before(5, 1);
		ksym_free(k);
		if ((ret = funcpair_probes(t, &env.fp, "cap")))
			return ret;
		snprintf(t->traced, sizeof(t->traced),
			 "capability checks (kprobes on cap_capable)");
	} else {
		env.tp = session_event(&t->s, "capability", "cap_capable", false);
		env.tp_cap = env.tp ? tep_find_field(env.tp, "cap") : NULL;
		env.tp_ret = env.tp ? tep_find_field(env.tp, "ret") : NULL;
		if (!env.tp_cap || !env.tp_ret) {
			fprintf(stderr, "capable: needs kprobes (CONFIG_KPROBE_EVENTS) or the "
					"tracepoint capability:cap_capable (Linux 6.14), and this "
					"kernel has neither\n");
			return TOOL_FAIL;
		}
		if (env.audit_only) {
			fprintf(stderr,
				"capable: --audit needs kprobes (CONFIG_KPROBE_EVENTS): the "
				"tracepoint capability:cap_capable does not say whether a "
				"check is audited\n");
			return TOOL_FAIL;
		}
		snprintf(t->traced, sizeof(t->traced),
			 "capability checks (tracepoint capability:cap_capable; no kprobes, "
			 "AUDIT unknown)");
	}
	if (env.stack)
		env.ksyms = ksym_load(); /* without kallsyms, addresses */
	return TOOL_OK;
}

static enum tool_code setup(struct tool_run *t)
{
	int ret = tool_stacks(t, env.stack, env.ustack, false, &env.kstack_ev, &env.ustack_ev);
	if (ret)
		return ret;
	if (env.kstack_ev || env.ustack_ev) {
		/* The frames of the probe itself, down to cap_capable(), are the tracing's. */
		static const char *const skip[] = {"cap_capable", NULL};
		if (!(env.stacks = evprint_new(t->s.tep, t->o.json, t->o.wallclock)))
			return TOOL_FAIL;
		/* With kprobes the entry's kernel stack is held by funcpair (the return's stops
		 * at the kretprobe's trampoline before 5.15); the tracepoint's is its own. */
		evprint_stacks(env.stacks, env.tp ? env.kstack_ev : NULL, env.ksyms, env.ustack_ev);
		evprint_kstack_after(env.stacks, skip);
		env.fp.kstack_ev = env.kstack_ev;
	}
	if (env.tp)
		return tool_trace(t, env.tp, NULL, on_tracepoint, NULL);
	return funcpair_trace(t, &env.fp, on_call, NULL);
}

static void end(struct tool_run *t)
{
	if (!env.tp)
		funcpair_report(&env.fp, "capable", reader_trailers_read(&t->r, env.ustack_ev));
	evprint_say_without_ustack(t->tool->name, "checks", evprint_without_ustack(env.stacks));
}

static void cleanup(struct tool_run *t)
{
	funcpair_free(&env.fp);
	evprint_free(env.stacks);
	ksym_free(env.ksyms);
	usym_addr_free();
}

static const struct tool capable = {
	.name = "capable",
	.opts = options,
	.operand_kind = TOOL_OPERAND_DURATION,
	.examples = examples,
	.formats = (const char *const[]){"capability:cap_capable", NULL},
	.rows = (const struct row_table *const[]){&table, &evprint_kstack_keys,
						  &evprint_ustack_keys, NULL},
	.option = option,
	.prepare = prepare,
	.setup = setup,
	.table = &table,
	.row = &env.row,
	.end = end,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&capable, argc, argv);
}
