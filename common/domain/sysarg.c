// SPDX-License-Identifier: GPL-2.0-only
#include "domain/sysarg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "base/ladder.h"
#include "kernel/probe.h"
#include "kernel/strpieces.h"
#include "stream/reader.h"
#include "kernel/session.h"
#include "tool.h"

struct sysarg_ev {
	struct sysarg *sa;
	enum sysarg_role role;
	int call; /* -1 for a C library function: the entry says which call it made */
	struct tep_format_field *arg[SYSARG_MAX_ARGS], *str[SYSARG_MAX_STRS], *ret;
	struct tep_format_field *ptr[SYSARG_MAX_STRS]; /* a companion probe's addresses */
	bool bare;				       /* a companion probe */
};

/* A call in progress: the tool's view, then what is known of its strings, then their bytes
 * (nstrs_max slots of str_size). */
struct call_data {
	struct sysarg_done d;
	bool libc;    /* begun by a C library function: its entry not yet seen */
	bool entered; /* its entry seen */
	/* A C library function's two probes: the strings' (when its record was not too long
	 * for an event) and the companion's, with their addresses. */
	bool str_seen, ptr_seen;
	uint64_t ptr[SYSARG_MAX_STRS];
	bool known[SYSARG_MAX_STRS];
	bool unread[SYSARG_MAX_STRS]; /* its record held the string's place, not its bytes */
	unsigned len[SYSARG_MAX_STRS];
	struct sysarg_strinfo info[SYSARG_MAX_STRS];
	char bytes[];
};

#define MAX_EVS (4 * SYSARG_MAX_CALLS + 64)

static int max_strs(const struct sysarg *sa)
{
	int m = 0;
	for (int c = 0; c < sa->ncalls; c++)
		m = sa->nstrs[c] > m ? sa->nstrs[c] : m;
	return m;
}

static char *slot(const struct sysarg *sa, struct call_data *cd, int i)
{
	return cd->bytes + (size_t)i * sa->str_size;
}

const char *sysarg_str(const struct sysarg *sa, const struct sysarg_done *d, int i, size_t *len)
{
	struct call_data *cd = (struct call_data *)d; /* d is its first member */
	if (i < 0 || i >= SYSARG_MAX_STRS || !cd->known[i])
		return NULL;
	*len = cd->len[i];
	return slot(sa, cd, i);
}

void sysarg_str_info(const struct sysarg *sa, const struct sysarg_done *d, int i,
		     struct sysarg_strinfo *info)
{
	const struct call_data *cd = (const struct call_data *)d;
	*info = (struct sysarg_strinfo){.len = SIZE_MAX};
	if (i < 0 || i >= SYSARG_MAX_STRS)
		return;
	*info = cd->info[i];
	if (cd->known[i] && !info->cut)
		info->len = cd->len[i];
}

/* The strings of a probe's record into the call's slots. A fetch that failed leaves an empty
 * data_loc (or, from some kernels' event probes, the text "(fault)"). So does an empty user
 * string from Linux 5.5 to at least 6.12 (:ustring records its length without the NUL), but
 * the kernel reserved the NUL's byte after it: in a record of one string, a string of length
 * 0 followed by that byte (and the record's padding, to 4 or 8 bytes) is "". One at the
 * record's end, or with more room after it, was not read: a fetch that faulted after the
 * kernel had measured the string leaves its measured room empty (seen on 5.10's kprobes for
 * a path of 4060 bytes, shown as "" before). */
#define EMPTY_ROOM 8
static void take_strings(struct sysarg *sa, const struct sysarg_ev *ei, struct call_data *cd,
			 const struct tep_record *rec)
{
	int fields = 0;
	for (int i = 0; i < SYSARG_MAX_STRS; i++)
		fields += ei->str[i] != NULL;
	for (int i = 0; i < SYSARG_MAX_STRS; i++) {
		if (!ei->str[i])
			continue;
		size_t len = 0;
		const char *s = reader_str(rec, ei->str[i], &len);
		const char *end = (const char *)rec->data + rec->size;
		bool empty = len == 0 && fields == 1 && s > (const char *)rec->data && s < end &&
			     end - s <= EMPTY_ROOM;
		if (!empty &&
		    (len == 0 || (len == sizeof("(fault)") && !memcmp(s, "(fault)", len)))) {
			cd->known[i] = false;
			cd->unread[i] = true;
			cd->info[i].pieced = false;
			continue;
		}
		cd->unread[i] = false;
		cd->len[i] =
			(unsigned)reader_strcpy(slot(sa, cd, i), sa->str_size, rec, ei->str[i]);
		cd->known[i] = true;
		/* A string read in pieces that filled them: its prefix, the rest read from the
		 * caller's memory at the end (as one no record held), or said cut. */
		cd->info[i].pieced = strpieces_cut(ei->str[i], s, len);
	}
}

static void take_args(const struct sysarg_ev *ei, struct call_data *cd,
		      const struct tep_record *rec)
{
	for (int a = 0; a < SYSARG_MAX_ARGS; a++)
		cd->d.args[a] = ei->arg[a] ? reader_num(rec, ei->arg[a]) : 0;
	cd->d.have_args = true;
}

/* --- per event ------------------------------------------------------------------------------ */

static void on_call_end(const struct tep_record *exit, int tid, long long ret, void *call,
			void *ctx)
{
	struct sysarg *sa = ctx;
	struct call_data *cd = syspair_data(call);
	/* EFAULT: the kernel could not read a string either. What a probe recorded for it
	 * may look like "" (4.19 records an unfit data_loc): an empty one is not trusted. */
	for (int i = 0; ret == -EFAULT && i < sa->nstrs[sa->exit_call]; i++)
		if (cd->known[i] && cd->len[i] == 0)
			cd->known[i] = false;
	/* A string no record held (too long for an event, or the kernel said ENAMETOOLONG:
	 * PATH_MAX or more, and a probe's string is then at most a prefix), or whose probe
	 * could not read it though the kernel could (a fetch that faulted): read from the
	 * caller's memory now, while it is still there. */
	bool unread = false, faulted = false, toolong = false;
	int nstrs = sa->nstrs[sa->exit_call];
	for (int i = 0; i < nstrs; i++) {
		bool too_long = ret == -ENAMETOOLONG && nstrs == 1;
		if (cd->known[i] && !too_long && !cd->info[i].pieced)
			continue;
		/* Where it was: the companion's address (uprobes); on the other rungs, the
		 * entry's argument when the probe's record is missing, held no bytes of it
		 * (a fault) or the kernel found it too long. */
		uint64_t at = 0;
		bool fault = !cd->ptr_seen && cd->str_seen && cd->unread[i] && !too_long;
		if (cd->ptr_seen)
			at = cd->ptr[i];
		else if (sa->via != USTR_UPROBE && cd->d.have_args &&
			 (!cd->str_seen || too_long || cd->unread[i]))
			at = (uint64_t)cd->d.args[sa->str_arg[sa->exit_call][i]];
		if (cd->info[i].pieced) /* its prefix, its length not known, unless read late */
			cd->info[i] = (struct sysarg_strinfo){
				.cut = true, .len = SIZE_MAX, .pieced = true};
		if (!at)
			continue;
		if (ret == -EFAULT) {
			faulted |= cd->ptr_seen;
			continue;
		}
		size_t len;
		struct sysarg_strinfo *in = &cd->info[i];
		if (ustr_read_late(tid, at, slot(sa, cd, i), sa->str_size, &len)) {
			cd->known[i] = in->late = true;
			in->pieced = false;
			cd->len[i] = (unsigned)strlen(slot(sa, cd, i));
			in->len = len;
			in->cut = len != cd->len[i];
		} else if (!fault && !cd->info[i].pieced) {
			/* A kprobe's or eprobe's fetch that faulted: not known too long, shown
			 * [unknown] and counted as a fault. */
			in->cut = true;
			in->len = SIZE_MAX;
			toolong |= !cd->known[i];
		}
	}
	/* A string no rung read, whose pointer was not NULL: counted. */
	for (int i = 0; i < nstrs; i++)
		unread |= !cd->known[i] && !cd->info[i].cut &&
			  (!cd->d.have_args || cd->d.args[sa->str_arg[sa->exit_call][i]] != 0);
	sa->stringless += unread && !faulted;
	sa->faulted += faulted;
	sa->toolong += toolong;
	cd->d.call = sa->exit_call;
	cd->d.ret = ret;
	sa->fn(exit, tid, &cd->d, sa->ctx);
}

static struct call_data *begin(struct sysarg *sa, int tid, uint64_t ts, int call)
{
	struct call_data *cd = syspair_data(syspair_enter(&sa->join, tid, ts, call));
	cd->d.call = call;
	cd->d.enter_ns = ts;
	return cd;
}

void sysarg_on_event(struct tep_record *rec, void *ctx)
{
	struct sysarg_ev *ei = ctx;
	struct sysarg *sa = ei->sa;
	int tid = tep_data_pid(sa->tep, rec);
	struct syspair_call *c;
	struct call_data *cd;
	switch (ei->role) {
	case SYSARG_EXIT:
		sa->exit_call = ei->call;
		syspair_exit(&sa->join, rec, tid, reader_num(rec, ei->ret));
		break;
	case SYSARG_ENTER:
		/* After a C library function: the call it made (the first one). */
		c = syspair_current(&sa->join, tid);
		cd = c ? syspair_data(c) : NULL;
		if (cd && cd->libc && !cd->entered) {
			c->kind = ei->call;
			cd->d.call = ei->call;
		} else {
			cd = begin(sa, tid, rec->ts, ei->call);
		}
		cd->entered = true;
		cd->d.enter_ns = rec->ts;
		take_args(ei, cd, rec);
		break;
	case SYSARG_STRS:
		/* The probe on the syscall's own function, right after its entry. */
		c = syspair_current(&sa->join, tid);
		if (c && c->kind == ei->call) {
			take_strings(sa, ei, syspair_data(c), rec);
			((struct call_data *)syspair_data(c))->str_seen = true;
		}
		break;
	case SYSARG_EPROBE:
		cd = begin(sa, tid, rec->ts, ei->call);
		cd->entered = cd->str_seen = true;
		take_args(ei, cd, rec);
		take_strings(sa, ei, cd, rec);
		break;
	case SYSARG_LIBC:
		/* A new call begins (one begun before that made no system call is forgotten;
		 * a function that calls another of the list, stat() fstatat(), begins again
		 * with the same strings), unless this is the other of its function's two
		 * probes: the call begun has the one's part and not this one's (the kernel
		 * calls them in either order; the strings' is missing when too long). */
		c = syspair_current(&sa->join, tid);
		cd = c ? syspair_data(c) : NULL;
		if (!cd || !cd->libc || cd->entered ||
		    (ei->bare ? cd->ptr_seen || !cd->str_seen : cd->str_seen || !cd->ptr_seen)) {
			cd = begin(sa, tid, rec->ts, -1);
			cd->libc = true;
		}
		if (ei->bare) {
			cd->ptr_seen = true;
			for (int i = 0; i < SYSARG_MAX_STRS; i++)
				cd->ptr[i] = ei->ptr[i] ? (uint64_t)reader_num(rec, ei->ptr[i]) : 0;
		} else {
			cd->str_seen = true;
			take_strings(sa, ei, cd, rec);
		}
		break;
	}
}

/* --- the events ------------------------------------------------------------------------------ */

struct sysarg_ev *sysarg_ev(struct sysarg *sa, struct tep_event *ev, enum sysarg_role role,
			    int call)
{
	if (sa->nevs == MAX_EVS)
		return NULL;
	struct sysarg_ev *ei = &sa->evs[sa->nevs++];
	*ei = (struct sysarg_ev){.sa = sa, .role = role, .call = call};
	ei->ret = tep_find_field(ev, "ret");
	for (int i = 0; i < SYSARG_MAX_STRS; i++) {
		char name[8];
		snprintf(name, sizeof(name), "s%d", i);
		ei->str[i] = tep_find_field(ev, name);
		snprintf(name, sizeof(name), "p%d", i);
		ei->ptr[i] = tep_find_field(ev, name);
		ei->bare |= ei->ptr[i] != NULL;
	}
	if (role == SYSARG_EPROBE)
		for (int a = 0; a < SYSARG_MAX_ARGS; a++) {
			char name[8];
			snprintf(name, sizeof(name), "a%d", a);
			ei->arg[a] = tep_find_field(ev, name);
		}
	if (role == SYSARG_ENTER) {
		/* The arguments follow the syscall's number, the first field after the common
		 * ones (named nr or __syscall_nr by version). */
		struct tep_format_field *f = ev->format.fields;
		for (int a = 0; f && (f = f->next) && a < SYSARG_MAX_ARGS; a++)
			ei->arg[a] = f;
	}
	return ei;
}

/*
 * The entries and exits carry the run's filters (this process left out, -n). The events that
 * hold strings carry none: a record of a filtered event is first written to a per-CPU page
 * (trace_buffered_event), and kernels without "tracing: Check length before giving out the
 * filter buffer" (5.15, and the stables that took it; not RHEL 8.1's 4.18) write a string
 * event longer than that page past its end: a 100 KB path made RHEL 8.1's kernel oops in
 * strncpy_from_unsafe. Unfiltered, such an event is refused by the ring buffer and its call
 * is shown without the string. A string event is only used for a call whose (filtered)
 * entry or exit is seen, so the filters still decide what is shown.
 */
static enum tool_code enable_role(struct sysarg *sa, struct tep_event *ev, enum sysarg_role role,
				  int call)
{
	struct sysarg_ev *ei = sysarg_ev(sa, ev, role, call);
	if (!ei)
		return TOOL_FAIL;
	if (role != SYSARG_STRS && role != SYSARG_LIBC)
		return tool_trace(sa->t, ev, NULL, sysarg_on_event, ei);
	if (session_enable(&sa->t->s, ev, NULL) || reader_on(&sa->t->r, ev, sysarg_on_event, ei))
		return TOOL_FAIL;
	return TOOL_OK;
}

/* The argument fields of the entry of call c, 0-based: the index of name, or -1. */
static int arg_index(struct tep_event *enter, const char *name, size_t len)
{
	struct tep_format_field *f = enter->format.fields;
	for (int a = 0; f && (f = f->next); a++)
		if (strlen(f->name) == len && !strncmp(f->name, name, len))
			return a;
	return -1;
}

int sysarg_kprobe_fetch(int arg, bool regs, char *out, size_t len)
{
#if defined(__x86_64__)
	/* struct pt_regs, its address in %di: the syscall ABI's di, si, dx, r10, r8, r9 (not
	 * $arg1: probe.c refuses it for __x64_sys_* before 4.20, as a likely mistake). */
	static const int off[SYSARG_MAX_ARGS] = {112, 104, 96, 56, 72, 64};
	if (arg < 0 || arg >= SYSARG_MAX_ARGS)
		return -1;
	if (regs)
		snprintf(out, len, "+0(+%d(%%di)):ustring", off[arg]);
	else
		snprintf(out, len, "+0($arg%d):ustring", arg + 1);
	return 0;
#else
	(void)arg;
	return -1;
#endif
}

/* 1: a kprobe on each call's own function, reading its strings from user memory at the
 * entry. Since 4.17 (x86-64) it takes the saved user registers. */
static int via_kprobe(void *ctx, const char **why)
{
	struct sysarg *sa = ctx;
	struct tool_run *t = sa->t;
	static const struct {
		const char *fmt;
		bool regs;
	} entries[] = {{"__x64_sys_%s", true}, {"sys_%s", false}};
	char args[128], fetch[64], func[96];
	*why = "no kprobes (CONFIG_KPROBE_EVENTS) in this kernel";
	if (!probe_available(&t->s, PROBE_KPROBE, true))
		return -1;
	*why = "the kprobe rung knows only x86_64's registers";
	if (sysarg_kprobe_fetch(0, true, fetch, sizeof(fetch)))
		return -1;
	*why = "no system call function can be probed with reads of user memory";
	for (size_t e = 0; e < sizeof(entries) / sizeof(*entries); e++) {
		int n = 0, ret;
		for (int c = 0; c < sa->ncalls; c++) {
			if (!sa->nstrs[c] || !syspair_event(&t->s, "enter", sa->calls[c].name))
				continue;
			/* A probe per string: an empty one is told from a fault only alone in
			 * its record (take_strings). */
			snprintf(func, sizeof(func), entries[e].fmt, sa->calls[c].name);
			for (int i = 0; i < sa->nstrs[c]; i++) {
				char name[64];
				sysarg_kprobe_fetch(sa->str_arg[c][i], entries[e].regs, fetch,
						    sizeof(fetch));
				snprintf(args, sizeof(args), "s%d=%s", i, fetch);
				snprintf(name, sizeof(name), "%s_%d", sa->calls[c].name, i);
				struct tep_event *ev =
					probe_try(&t->s, PROBE_KPROBE, 'p', name, func, args);
				if (!ev && !n)
					break; /* not this set of names */
				if (!ev) {
					fprintf(stderr,
						"%s: %s() cannot be probed: the strings of %s() "
						"are "
						"not shown\n",
						t->tool->name, func, sa->calls[c].name);
					break;
				}
				if ((ret = enable_role(sa, ev, SYSARG_STRS, c)))
					return ret;
				n++;
			}
			if (!n)
				break;
		}
		if (!n)
			continue;
		snprintf(sa->what, sizeof(sa->what), "kprobes on %s*",
			 entries[e].regs ? "__x64_sys_" : "sys_");
		for (int c = 0; c < sa->ncalls; c++) {
			struct tep_event *en = syspair_event(&t->s, "enter", sa->calls[c].name);
			if (en && (ret = enable_role(sa, en, SYSARG_ENTER, c)))
				return ret;
		}
		return 0;
	}
	return -1;
}

/* 2: event probes on the entry tracepoints, with every argument and the strings. */
static int via_eprobe(void *ctx, const char **why)
{
	struct sysarg *sa = ctx;
	struct tool_run *t = sa->t;
	char args[1024];
	int n = 0, ret;
	*why = "no event probes on syscall tracepoints (CONFIG_EPROBE_EVENTS) in this kernel";
	for (int c = 0; c < sa->ncalls; c++) {
		struct tep_event *en = syspair_event(&t->s, "enter", sa->calls[c].name);
		if (!en)
			continue;
		size_t o = 0;
		struct tep_format_field *f = en->format.fields;
		for (int a = 0; f && (f = f->next) && a < SYSARG_MAX_ARGS; a++)
			o += (size_t)snprintf(args + o, sizeof(args) - o, "%sa%d=$%s:u64",
					      o ? " " : "", a, f->name);
		for (int i = 0; i < sa->nstrs[c]; i++) {
			f = en->format.fields;
			for (int a = 0; f && (f = f->next) && a < sa->str_arg[c][i]; a++)
				;
			o += (size_t)snprintf(args + o, sizeof(args) - o, " s%d=+0($%s):ustring", i,
					      f ? f->name : "?");
		}
		struct tep_event *ev =
			ustr_eprobe(&t->s, sa->calls[c].name, sa->calls[c].name, o ? args : NULL);
		if (!ev && n == 0)
			return -1;
		if (!ev)
			return TOOL_FAIL;
		if ((ret = enable_role(sa, ev, SYSARG_EPROBE, c)))
			return ret;
		n++;
	}
	snprintf(sa->what, sizeof(sa->what), "event probes on syscalls:sys_enter_*");
	return n ? 0 : -1;
}

/* 3: the C library's functions, before the call; the entries say which call each made. */
static void uprobe_made(struct tep_event *ev, int i, void *ctx)
{
	struct sysarg *sa = ctx;
	if (!sa->failed_trace && enable_role(sa, ev, SYSARG_LIBC, -1))
		sa->failed_trace = true; /* said on stderr */
}

static int via_uprobe(void *ctx, const char **why)
{
	struct sysarg *sa = ctx;
	struct tool_run *t = sa->t;
	int ret;
	*why = "the tool reads no C library functions";
	if (!sa->funcs)
		return -1;
	int n = ustr_uprobes(&t->s, sa->funcs, sa->nfuncs, uprobe_made, sa, sa->lib,
			     sizeof(sa->lib), why);
	if (sa->failed_trace)
		return TOOL_FAIL;
	if (n < 0)
		return -1;
	/* The companions, on the same functions: one more record a call (its 16 bytes and
	 * the addresses; the trap, 22 us on the 6.18 VM, is shared). */
	int nb = sa->nfuncs < SYSARG_MAX_FUNCS ? sa->nfuncs : SYSARG_MAX_FUNCS;
	for (int i = 0; i < nb; i++) {
		snprintf(sa->bare_names[i], sizeof(sa->bare_names[i]), "%s_p",
			 sa->funcs[i].name ? sa->funcs[i].name : sa->funcs[i].sym);
		if (ustr_bare_args(sa->funcs[i].args, sa->bare_args[i], sizeof(sa->bare_args[i])))
			return -1;
		sa->bare[i] =
			(struct ustr_func){sa->funcs[i].sym, sa->bare_args[i], sa->bare_names[i]};
	}
	if (ustr_uprobes(&t->s, sa->bare, nb, uprobe_made, sa, sa->lib, sizeof(sa->lib), why) < 0 ||
	    sa->failed_trace)
		return TOOL_FAIL;
	for (int c = 0; c < sa->ncalls; c++) {
		struct tep_event *en = syspair_event(&t->s, "enter", sa->calls[c].name);
		if (en && (ret = enable_role(sa, en, SYSARG_ENTER, c)))
			return ret;
	}
	snprintf(sa->what, sizeof(sa->what), "uprobes on %d functions of %s", n, sa->lib);
	return 0;
}

int sysarg_init(struct sysarg *sa, const char *tool, struct tep_handle *tep,
		struct tep_event *const *enter, sysarg_fn fn, void *ctx)
{
	sa->tep = tep;
	sa->fn = fn;
	sa->ctx = ctx;
	if (sa->ncalls > SYSARG_MAX_CALLS)
		return -1;
	/* Each call's string arguments, by their index among its arguments. */
	for (int c = 0; c < sa->ncalls; c++) {
		sa->nstrs[c] = 0;
		for (const char *p = sa->calls[c].strs; enter[c] && p && *p;) {
			size_t len = strcspn(p, ",");
			int a = arg_index(enter[c], p, len);
			if (a < 0 || sa->nstrs[c] == SYSARG_MAX_STRS) {
				fprintf(stderr, "%s: syscalls:sys_enter_%s has no argument %.*s\n",
					tool, sa->calls[c].name, (int)len, p);
				return -1;
			}
			sa->str_arg[c][sa->nstrs[c]++] = a;
			p += len + (p[len] == ',');
		}
	}
	sa->evs = calloc(MAX_EVS, sizeof(*sa->evs));
	size_t data = sizeof(struct call_data) + (size_t)max_strs(sa) * sa->str_size;
	return !sa->evs || syspair_init(&sa->join, sa->threads, data, on_call_end, sa) ? -1 : 0;
}

enum tool_code sysarg_setup(struct sysarg *sa, struct tool_run *t, sysarg_fn fn, void *ctx)
{
	static const ladder_rung_fn rungs[] = {via_kprobe, via_eprobe, via_uprobe};
	struct tep_event *enter[SYSARG_MAX_CALLS] = {0};
	int ret, any = 0;
	sa->t = t;
	/* All the calls' formats in one load: the parser's trial (format.h) forks once for
	 * them, not twice a call (30 forks for mountsnoop: 2 s of its start under ASan). */
	char names[2 * SYSARG_MAX_CALLS][96];
	const char *sys[2 * SYSARG_MAX_CALLS], *evs[2 * SYSARG_MAX_CALLS];
	size_t n = 0;
	for (int c = 0; c < sa->ncalls && c < SYSARG_MAX_CALLS; c++)
		for (int dir = 0; dir < 2; dir++, n++) {
			snprintf(names[n], sizeof(names[n]), "sys_%s_%s", dir ? "exit" : "enter",
				 sa->calls[c].name);
			sys[n] = "syscalls";
			evs[n] = names[n];
		}
	session_load_events(&t->s, n, sys, evs);
	for (int c = 0; c < sa->ncalls && c < SYSARG_MAX_CALLS; c++) {
		enter[c] = syspair_event(&t->s, "enter", sa->calls[c].name);
		any += enter[c] && syspair_event(&t->s, "exit", sa->calls[c].name);
	}
	if (!any) {
		fprintf(stderr,
			"%s: tracepoints syscalls:sys_enter_%s and sys_exit_%s not available in "
			"this kernel (CONFIG_FTRACE_SYSCALLS)\n",
			t->tool->name, sa->calls[0].name, sa->calls[0].name);
		return TOOL_FAIL;
	}
	/* Every event here happens in a process: leave ourselves out before any is written. */
	if (sysarg_init(sa, t->tool->name, t->s.tep, enter, fn, ctx) ||
	    reader_on_lost(&t->r, syspair_lost, &sa->join) || session_exclude_self(&t->s))
		return TOOL_FAIL;
	int via = sa->via;
	ret = ladder_climb(rungs, ustr_via_names, USTR_BEST, &via, sa, t->tool->name);
	bool chosen = sa->via != USTR_BEST;
	sa->via = via;
	if (!chosen && ret == -1)
		fprintf(stderr,
			"%s: no way to read the strings of system calls in this kernel: needs "
			"kprobes (CONFIG_KPROBE_EVENTS), event probes (CONFIG_EPROBE_EVENTS) "
			"or uprobes (CONFIG_UPROBE_EVENTS) on a shared C library\n",
			t->tool->name);
	if (ret)
		return ret == -1 ? TOOL_FAIL : ret;
	for (int c = 0; c < sa->ncalls; c++) {
		struct tep_event *ex = syspair_event(&t->s, "exit", sa->calls[c].name);
		if (ex && (ret = enable_role(sa, ex, SYSARG_EXIT, c)))
			return ret;
	}
	if (!chosen && sa->via == USTR_UPROBE)
		fprintf(stderr,
			"%s: no kprobes or event probes in this kernel (CONFIG_KPROBE_EVENTS, "
			"CONFIG_EPROBE_EVENTS): the %s of calls not made through the C library "
			"are not known ([unknown])\n",
			t->tool->name, sa->strings ? sa->strings : "strings");
	return TOOL_OK;
}

void sysarg_report(const struct sysarg *sa)
{
	const char *what = sa->strings ? sa->strings : "strings";
	if (sa->stringless)
		fprintf(stderr,
			"%s: %llu calls were shown with a string not read ([unknown]): %s\n",
			sa->t->tool->name, (unsigned long long)sa->stringless,
			sa->via == USTR_UPROBE ? "not made through the C library's functions" :
						 "a bad address, or a fault");
	if (sa->faulted)
		fprintf(stderr,
			"%s: %llu calls were shown with a string not read ([unknown]): a bad "
			"address\n",
			sa->t->tool->name, (unsigned long long)sa->faulted);
	if (sa->toolong)
		fprintf(stderr,
			"%s: %llu calls had %s longer than a trace event holds, gone from the "
			"caller's memory before they could be read ([unknown: ...])\n",
			sa->t->tool->name, (unsigned long long)sa->toolong, what);
}

void sysarg_free(struct sysarg *sa)
{
	syspair_free(&sa->join);
	free(sa->evs);
	sa->evs = NULL;
}
