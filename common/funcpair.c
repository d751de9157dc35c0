// SPDX-License-Identifier: GPL-2.0-only
#include "funcpair.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "ftrace.h"
#include "opt.h"
#include "probe.h"
#include "reader.h"
#include "tool.h"
#include "usym.h"

void funcpair_check_spec(const char *spec)
{
	if (!*spec || strpbrk(spec, " \t\n*?["))
		opt_fail("invalid FUNC: '%s' (a kernel function, or LIB:FUNC)", spec);
}

/* "a1=$arg1:u64 a2=..." for fp->nargs arguments; a uprobe has no $argN (the kernel knows no
 * function entry in user code), so its are given as this architecture's registers. */
static int entry_args(const struct funcpair *fp, char *out, size_t len)
{
	char args[256] = "", why[256];
	size_t o = 0;
	for (int i = 1; i <= fp->nargs; i++)
		o += (size_t)snprintf(args + o, sizeof(args) - o, "%sa%d=$arg%d:u64",
				      i > 1 ? " " : "", i, i);
	if (!fp->user || !fp->nargs) {
		snprintf(out, len, "%s", args);
		return 0;
	}
	int c = probe_args_compat(args, 'p', "", PROBE_NO_ARGN, true, out, len, why, sizeof(why));
	if (c < 0 || (c == 0 && strstr(args, "$arg"))) {
		fprintf(stderr, "%s: cannot fetch the arguments of a user function here: %s\n",
			fp->t->tool->name, c < 0 ? why : "no argument registers known");
		return -1;
	}
	return 0;
}

static int kernel_target(struct funcpair *fp, char *target, size_t len)
{
	if (!probe_available(&fp->t->s, PROBE_KPROBE, false))
		return TOOL_FAIL;
	/* The list may be refused (EPERM): then the kernel decides. */
	if (ftrace_function_traceable(fp->spec) == 0) {
		fprintf(stderr, "%s: %s cannot be traced: not in available_filter_functions\n",
			fp->t->tool->name, fp->spec);
		return TOOL_USAGE;
	}
	snprintf(fp->func, sizeof(fp->func), "%s", fp->spec);
	snprintf(target, len, "%s", fp->spec);
	return TOOL_OK;
}

static int user_target(struct funcpair *fp, char *target, size_t len)
{
	char buf[PATH_MAX + 256], path[PATH_MAX], why[PATH_MAX + 200];
	snprintf(buf, sizeof(buf), "%s", fp->spec);
	char *colon = strrchr(buf, ':');
	*colon = 0;
	const char *symbol = colon + 1;
	if (!*buf || !*symbol)
		opt_fail("invalid FUNC: '%s' (LIB:FUNC, e.g. libc:getaddrinfo)", fp->spec);
	if (usym_target(buf, path, sizeof(path)))
		opt_fail("target not found: '%s' (a path, a program in PATH, or a library)", buf);
	unsigned long long off;
	if (usym_offset(path, symbol, false, &off, why, sizeof(why)))
		opt_fail("%s", why);
	if (strpbrk(path, " \t\n:"))
		opt_fail("the path of '%s' has a space or ':', which uprobe_events cannot take: "
			 "use a link to it",
			 buf);
	if (!probe_available(&fp->t->s, PROBE_UPROBE, false))
		return TOOL_FAIL;
	snprintf(fp->func, sizeof(fp->func), "%s", symbol);
	snprintf(target, len, "%s:0x%llx", path, off);
	return TOOL_OK;
}

int funcpair_probes(struct tool_run *t, struct funcpair *fp, const char *prefix)
{
	char target[PATH_MAX + 64], args[512];
	fp->t = t;
	fp->user = strchr(fp->spec, ':') != NULL;
	int ret = fp->user ? user_target(fp, target, sizeof(target)) :
			     kernel_target(fp, target, sizeof(target));
	if (ret)
		return ret;
	if (entry_args(fp, args, sizeof(args)))
		return TOOL_FAIL;
	snprintf(fp->entry_name, sizeof(fp->entry_name), "%s_entry_%d", prefix, (int)getpid());
	snprintf(fp->ret_name, sizeof(fp->ret_name), "%s_ret_%d", prefix, (int)getpid());
	enum probe_kind kind = fp->user ? PROBE_UPROBE : PROBE_KPROBE;
	if (!(fp->entry = probe_create(&t->s, kind, 'p', fp->entry_name, target,
				       *args ? args : NULL)) ||
	    !(fp->ret = probe_create(&t->s, kind, 'r', fp->ret_name, target,
				     fp->retval ? "ret=$retval:s64" : NULL)))
		return TOOL_USAGE; /* the kernel said why */
	for (int i = 0; i < fp->nargs; i++) {
		char name[16];
		snprintf(name, sizeof(name), "a%d", i + 1);
		if (!(fp->arg[i] = tep_find_field(fp->entry, name)))
			return TOOL_FAIL;
	}
	if (fp->retval && !(fp->retf = tep_find_field(fp->ret, "ret")))
		return TOOL_FAIL;
	/* Per thread: the depth, then DEPTH calls of 1 + nargs words. */
	if (pair_init(&fp->threads, 4096,
		      sizeof(uint64_t) * (1 + FUNCPAIR_DEPTH * (1 + (size_t)fp->nargs))))
		return TOOL_FAIL;
	return TOOL_OK;
}

/* --- per event ------------------------------------------------------------------------------ */

static void on_entry(struct tep_record *rec, void *ctx)
{
	struct funcpair *fp = ctx;
	uint64_t *th = pair_put(&fp->threads, (uint64_t)tep_data_pid(fp->t->s.tep, rec), 0);
	if (th[0] < FUNCPAIR_DEPTH) {
		uint64_t *call = th + 1 + th[0] * (1 + (size_t)fp->nargs);
		call[0] = rec->ts;
		for (int i = 0; i < fp->nargs; i++)
			call[1 + i] = (uint64_t)reader_num(rec, fp->arg[i]);
	}
	th[0]++;
}

static void on_return(struct tep_record *rec, void *ctx)
{
	struct funcpair *fp = ctx;
	uint64_t *th = pair_get(&fp->threads, (uint64_t)tep_data_pid(fp->t->s.tep, rec), 0);
	if (!th || th[0] == 0 || th[0] > FUNCPAIR_DEPTH) {
		fp->unpaired++;
		if (th && th[0] > 0)
			th[0]--;
		return;
	}
	const uint64_t *call = th + 1 + --th[0] * (1 + (size_t)fp->nargs);
	struct funcpair_call c = {call[0], call + 1};
	fp->fn(rec, &c, fp->ctx);
	if (!th[0])
		pair_del(&fp->threads, th);
}

/* A lost entry or return could pair the wrong two: start again. */
static void on_lost(int cpu, long long n, void *ctx)
{
	(void)cpu;
	(void)n;
	pair_clear(&((struct funcpair *)ctx)->threads);
}

int funcpair_trace(struct tool_run *t, struct funcpair *fp, funcpair_fn fn, void *ctx)
{
	int ret;
	fp->fn = fn;
	fp->ctx = ctx;
	if (reader_on_lost(&t->r, on_lost, fp))
		return TOOL_FAIL;
	if ((ret = tool_trace(t, fp->ret, NULL, on_return, fp)) ||
	    (ret = tool_trace(t, fp->entry, NULL, on_entry, fp)))
		return ret;
	return TOOL_OK;
}

long long funcpair_retval(const struct funcpair *fp, const struct tep_record *ret)
{
	return fp->retf ? reader_num(ret, fp->retf) : 0;
}

/* --- the end ------------------------------------------------------------------------------- */

struct missed {
	const char *name;
	unsigned long long n;
};

/* kprobe_profile's nmissed of our kretprobe. */
static void ret_missed(const char *name, unsigned long long hits, unsigned long long missed,
		       void *ctx)
{
	(void)hits;
	struct missed *m = ctx;
	if (!strcmp(name, m->name))
		m->n = missed;
}

void funcpair_report(const struct funcpair *fp, const char *tool)
{
	/* A kretprobe can miss returns: more calls in progress than its instances (maxactive). */
	struct missed m = {fp->ret_name, 0};
	if (!fp->user && fp->ret)
		probe_profile(PROBE_KPROBE, ret_missed, &m);
	if (m.n)
		fprintf(stderr,
			"%s: %llu returns were missed by the kernel (more calls in progress than "
			"the kretprobe's instances): those calls are left out\n",
			tool, m.n);
	if (fp->unpaired)
		fprintf(stderr,
			"%s: %llu returns without their entry (calls that began before the start, "
			"events lost, or recursion deeper than %d) are left out\n",
			tool, (unsigned long long)fp->unpaired, FUNCPAIR_DEPTH);
}

void funcpair_free(struct funcpair *fp)
{
	pair_free(&fp->threads);
}
