// SPDX-License-Identifier: GPL-2.0-only
#include "tracer/tracer.h"
#include "stream/comm.h"
#include "stream/evprint.h"
#include "base/row.h"
#include "stream/folded.h"
#include "count/keys.h"
#include "count/fieldhist.h"
#include "stream/ksym.h"
#include "base/out.h"
#include "kernel/probe.h"
#include "base/sig.h"
#include "stream/usym.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

/* The name of event i as -c, -j and --prom give it (tracer.h: names). */
static const char *event_label(const struct tracer *tr, int i, char *buf, size_t len)
{
	const struct tep_event *ev = tr->events[i];
	if (tr->names && tr->names[i])
		return tr->names[i];
	if (!strcmp(ev->system, probe_group()))
		return ev->name;
	snprintf(buf, len, "%s:%s", ev->system, ev->name);
	return buf;
}

static struct tracer *tracer_of(struct tool_run *t)
{
	return t->tool->state;
}

void tracer_option(struct tracer *tr, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case 'c': tr->count = true; break;
	case 'H': tr->header = true; break;
	case 'k': tr->keys = arg; break;
	case TRACER_OPT_HIST: tr->hist = arg; break;
	case 's': tr->stack = true; break;
	case 'U': tr->ustack = true; break;
	case 'v': tr->format = true; break;
	case TRACER_OPT_FOLDED: tr->folded = true; break;
	case TRACER_OPT_USER_SPACE: tr->user_space = true; break;
	/* checked here: a bad value is an error even when a later one replaces it */
	case TRACER_OPT_POWER:
		tr->power = true;
		hist_bins_set(&tr->bins, HIST_POWER,
			      (uint64_t)opt_int(arg, 2, (long long)HIST_POWER_MAX, "base"));
		break;
	case TRACER_OPT_LINEAR:
		tr->linear = true;
		hist_bins_set(&tr->bins, HIST_LINEAR,
			      (uint64_t)opt_int(arg, 1, (long long)HIST_LINEAR_MAX, "width"));
		break;
	}
}

static enum tool_code print_formats(struct tool_run *t, struct tracer *tr)
{
	for (int i = 0; i < tr->nevents; i++) {
		char *fmt = tracefs_event_file_read(NULL, tr->events[i]->system,
						    tr->events[i]->name, "format", NULL);
		if (!fmt) {
			fprintf(stderr, "%s: cannot read the format of %s:%s\n", t->tool->name,
				tr->events[i]->system, tr->events[i]->name);
			return TOOL_FAIL;
		}
		fputs(fmt, stdout);
		free(fmt);
	}
	return TOOL_DONE;
}

static bool counting(const struct tracer *tr)
{
	return tr->count || tr->keys || tr->hist;
}

void tracer_check(struct tracer *tr)
{
	if (counting(tr) && tr->folded)
		opt_fail("--folded counts stacks: not with -c, -k or --hist");
	if (counting(tr) && (tr->stack || tr->ustack))
		opt_fail("-%c prints every event: not with -c, -k or --hist",
			 tr->stack ? 's' : 'U');
	if (tr->folded && !tr->stack && !tr->ustack)
		opt_fail("--folded counts the stacks of -s or -U: give one or both");
	if (tr->user_space && !tr->hist && !tr->count && !tr->keys)
		opt_fail("--user-space is where -c, -k and --hist count: give one");
	if ((tr->power || tr->linear) && !tr->hist)
		opt_fail("--%s bins the histogram of --hist: give it",
			 tr->power ? "power" : "linear");
	if (tr->power && tr->linear)
		opt_fail("--power and --linear exclude each other");
}

/* -c, -k or --hist on up to 16 events is counted in the kernel where it has hist triggers
 * (and reads the fields as this tool does), and with -p, -L, --exec or --cgroup where its
 * triggers see those tasks alone; not -n, a name the triggers' filter cannot match on every
 * kernel (4.9's filters know no comm), nor --record, which keeps the events. */
static bool in_kernel(const struct tool_run *t, const struct tracer *tr)
{
	bool tasks = t->o.pid || t->o.tid || t->o.exec || t->cgroup;
	return tr->nevents <= 16 && !tr->user_space && !tr->by_tracer && !t->o.name &&
	       !t->record_path && fieldhist_can() && (!tasks || fieldhist_tasks_ok());
}

/* -k alone by up to 3 numeric keys (pid, fields the kernel reads as this tool does): their
 * names in the kernel's trigger, in fields; how many (0: not in the kernel). */
static int keys_in_kernel(const struct tool_run *t, const struct tracer *tr, const char **fields)
{
	int n = 0;
	if (!tr->keys || tr->hist || !in_kernel(t, tr))
		return 0;
	for (int i = 0; i < tr->nevents; i++) {
		const struct tep_format_field *f[HISTTABLE_KEYS];
		if ((n = keys_fields(tr->k, i, f, HISTTABLE_KEYS)) < 1)
			return 0;
		for (int j = 0; j < n; j++) {
			if (f[j] && !fieldhist_fits(tr->events[i], f[j]))
				return 0;
			/* one name for every event: the trigger's text is read back by it */
			if (i && strcmp(fields[j], f[j] ? f[j]->name : "common_pid"))
				return 0;
			fields[j] = f[j] ? f[j]->name : "common_pid";
		}
	}
	return n;
}

static bool hist_in_kernel(const struct tool_run *t, const struct tracer *tr)
{
	if (!tr->hist || tr->keys || !in_kernel(t, tr) || !fieldhist_bins_ok(&tr->bins))
		return false;
	for (int i = 0; i < tr->nevents; i++) {
		const struct tep_format_field *f = tep_find_field(tr->events[i], tr->hist);
		if (!f || !fieldhist_fits(tr->events[i], f))
			return false;
	}
	return true;
}

enum tool_code tracer_prepare(struct tool_run *t)
{
	struct tracer *tr = tracer_of(t);
	tr->t = t;
	if (tr->folded && t->o.json) {
		fprintf(stderr, "%s: --folded prints folded lines: not with -j\n", t->tool->name);
		return TOOL_USAGE;
	}
	/* --hist's fields are of no known unit (a histogram's le and _sum would be guesses),
	 * and where the kernel's hist triggers count them their values' sum is not known. */
	if (t->prom_path && ((!tr->count && !tr->keys) || tr->hist)) {
		fprintf(stderr,
			"%s: --prom writes the counts of -c or -k: not without one, nor with "
			"--hist\n",
			t->tool->name);
		return TOOL_USAGE;
	}
	if (tr->keys || tr->hist) {
		char why[600];
		if (!(tr->k = keys_new(tr->events, tr->nevents, tr->keys, tr->hist, why,
				       sizeof(why)))) {
			fprintf(stderr, "%s: %s %s\n", t->tool->name,
				tr->hist && !tr->keys ? "--hist" : "-k", why);
			return TOOL_USAGE;
		}
		keys_set_bins(tr->k, &tr->bins);
		if (tr->bins.kind != HIST_LOG2) { /* the banner says the slots, as perf-stat-hist */
			char name[64];
			size_t n = strlen(t->traced);
			hist_bins_name(&tr->bins, name, sizeof(name));
			snprintf(t->traced + n, sizeof(t->traced) - n, ", %s in %s slots", tr->hist,
				 name);
		}
	}
	/* Names are needed when events are printed or counted by name; they are followed in
	 * time order then. Counts need no order across CPUs, nor the trace clock switch
	 * (which resets the buffers: ~30 ms of start-up). */
	bool names = !counting(tr) || (tr->k && keys_need_comm(tr->k));
	t->follow_names = names;
	t->ordered = names;
	t->s.keep_clock = !names;
	if (tr->format) {
		int ret = print_formats(t, tr);
		session_say_memory(stdout, t->tool->name, t->buffer_kb,
				   names ? comm_buffer_kb_said() : 0);
		if (!t->s.keep_clock)
			session_say_clock(stdout, t->tool->name);
		return ret;
	}
	tr->counts = calloc((size_t)tr->nevents, sizeof(*tr->counts));
	tr->ctx = calloc((size_t)tr->nevents, sizeof(*tr->ctx));
	if (!tr->counts || !tr->ctx)
		return TOOL_FAIL;
	if (tr->count)
		t->o.interval = 1000000000ULL;
	if (hist_in_kernel(t, tr) && !(tr->kh = calloc(1, sizeof(*tr->kh))))
		return TOOL_FAIL;
	if (tr->count && !tr->hist && !tr->keys && in_kernel(t, tr) &&
	    !(tr->kc = calloc(1, sizeof(*tr->kc))))
		return TOOL_FAIL;
	if ((tr->nkfields = keys_in_kernel(t, tr, tr->kfields)) &&
	    !(tr->kk = calloc(1, sizeof(*tr->kk))))
		return TOOL_FAIL;
	return TOOL_OK;
}

/*
 * The field of an event that says where its kernel stack was taken, in a function whose
 * frame (and the tracing's before it) the stack starts with: the function tracer's ip, a
 * kprobe's __probe_ip (uprobes have one too: a user address, which no kernel frame is near).
 * Stacks are printed from the caller on. NULL for other events.
 */
static const struct tep_format_field *stack_at_of(const struct tracer *tr,
						  const struct tep_event *ev)
{
	return tep_find_field((struct tep_event *)ev, tr->by_tracer ? "ip" : "__probe_ip");
}

static const struct tep_format_field *stack_at(const struct tracer *tr, struct tep_record *rec)
{
	int id = tep_data_type(tr->t->s.tep, rec);
	for (int i = 0; i < tr->nevents; i++)
		if (tr->events[i]->id == id)
			return stack_at_of(tr, tr->events[i]);
	return NULL;
}

/* A folded kernel stack starts at the function the event was taken in (the leaf of its
 * flame), without the tracing's frames before it, and with its caller where the kernel's
 * stack lacks it (entry_caller). The frames left in k; how many. */
static int fold_from_function(const struct tracer *tr, struct tep_record *rec,
			      unsigned long long *k, int nk)
{
	const struct tep_format_field *at = stack_at(tr, rec);
	int from = at ? evprint_kstack_callers(k, nk, (unsigned long long)reader_num(rec, at)) : 0;
	if (!from)
		return nk;
	unsigned long long caller =
		tr->entry_caller ? (unsigned long long)reader_num(rec, tr->entry_caller) : 0;
	if (caller && (from == nk || k[from] != caller)) {
		if (nk == FOLDED_KFRAMES)
			nk--; /* the root's end: frames nearest the event are kept */
		memmove(k + from + 1, k + from, (size_t)(nk - from) * sizeof(*k));
		k[from] = caller;
		nk++;
	}
	from--; /* the function's own frame */
	memmove(k, k + from, (size_t)(nk - from) * sizeof(*k));
	return nk - from;
}

/* --folded: the event's stacks (its trailers), counted under its task's name. */
static void fold(struct tracer *tr, struct tep_record *rec)
{
	const struct reader_trailers *t = reader_record_trailers(rec);
	unsigned long long k[FOLDED_KFRAMES], u[FOLDED_UFRAMES];
	int nk = 0, nu = 0, tgid = 0;
	for (int i = 0; t && i < t->n; i++) {
		if (tr->kstack_ev && t->id[i] == tr->kstack_ev->id) {
			nk = folded_frames(t->rec[i], tr->kcaller, true, k, FOLDED_KFRAMES);
			nk = fold_from_function(tr, rec, k, nk);
		} else if (tr->ustack_ev && t->id[i] == tr->ustack_ev->id) {
			nu = folded_frames(t->rec[i], tr->ucaller, false, u, FOLDED_UFRAMES);
			tgid = (int)reader_num(t->rec[i], tr->utgid);
			tr->ustacks++;
		}
	}
	int pid = tep_data_pid(tr->t->s.tep, rec);
	if (folded_add(tr->fold, tool_comm(tr->t, pid), tgid, k, nk, u, nu))
		sig_request_stop(); /* out of memory: end with what was counted */
}

static void on_event(struct tep_record *rec, void *ctx)
{
	const struct tracer_event *e = ctx;
	struct tracer *tr = e->tr;
	/* A tracer's records have no filter: this process's own calls (its reads of the
	 * buffers) are dropped here, and -n is checked on the names. */
	if (tr->by_tracer) {
		int pid = tep_data_pid(tr->t->s.tep, rec);
		if (pid == tr->self ||
		    (tr->t->o.name && fnmatch(tr->t->o.name, tool_comm(tr->t, pid), 0)))
			return;
	}
	if (tr->k) {
		const char *comm = keys_need_comm(tr->k) ?
					   tool_comm(tr->t, tep_data_pid(tr->t->s.tep, rec)) :
					   "";
		if (keys_add(tr->k, rec, e->idx, comm))
			sig_request_stop(); /* out of memory: end with what was counted */
	} else if (tr->count) {
		tr->counts[e->idx]++;
	} else if (tr->fold) {
		fold(tr, rec);
	} else {
		evprint_event(tr->p, rec, tool_comm(tr->t, tep_data_pid(tr->t->s.tep, rec)));
	}
}

/* Syscall tracepoints and uprobes fire only in process context (see session_exclude_self). */
static bool process_context_only(struct tool_run *t, struct tracer *tr)
{
	for (int i = 0; i < tr->nevents; i++)
		if (!probe_is_uprobe(&t->s, tr->events[i]) &&
		    strcmp(tr->events[i]->system, "syscalls"))
			return false;
	return true;
}

/* -c or --hist counted in the kernel no more (or never). */
static void drop_in_kernel(struct tracer *tr)
{
	if (tr->kh)
		fieldhist_free(tr->kh);
	if (tr->kc)
		kerncount_free(tr->kc);
	if (tr->kk)
		kernkeys_free(tr->kk);
	free(tr->kh);
	free(tr->kc);
	free(tr->kk);
	tr->kh = NULL;
	tr->kc = NULL;
	tr->kk = NULL;
}

/* -c or --hist in the kernel: its triggers written (true), or refused (a filter the kernel
 * says what is wrong with when it is written on the events after this): counted here. */
static bool start_in_kernel(struct tool_run *t, struct tracer *tr)
{
	char why[300];
	int ret = tr->kh ? fieldhist_start(tr->kh, &t->s, tr->events, tr->nevents, tr->hist,
					   &tr->bins, tr->filter, why, sizeof(why)) :
		  tr->kc ? kerncount_start(tr->kc, &t->s, tr->events, tr->nevents, tr->filter, why,
					   sizeof(why)) :
			   kernkeys_start(tr->kk, &t->s, tr->events, tr->nevents, tr->kfields,
					  tr->nkfields, tr->filter, why, sizeof(why));
	if (ret) {
		drop_in_kernel(tr);
		return false;
	}
	size_t n = strlen(t->traced);
	snprintf(t->traced + n, sizeof(t->traced) - n, " (counted in the kernel)");
	return true;
}

enum tool_code tracer_setup(struct tool_run *t)
{
	struct tracer *tr = tracer_of(t);
	struct tep_event *kstack = NULL, *ustack = NULL;
	int ret;
	if (process_context_only(t, tr) && session_exclude_self(&t->s))
		return TOOL_FAIL;
	if ((tr->kh || tr->kc || tr->kk) && start_in_kernel(t, tr))
		return TOOL_OK;
	/* Before the events: an event enabled while stacktrace was off has no stack. */
	if ((ret = tool_stacks(t, tr->stack, tr->ustack, tr->by_tracer, &kstack, &ustack)))
		return ret;
	if (kstack) /* without kallsyms, addresses */
		tr->ksyms = ksym_load();
	if (tr->folded) {
		if (!(tr->fold = folded_new(tr->ksyms)))
			return TOOL_FAIL;
		tr->kstack_ev = kstack;
		tr->ustack_ev = ustack;
		tr->kcaller = kstack ? tep_find_field(kstack, "caller") : NULL;
		tr->ucaller = ustack ? tep_find_field(ustack, "caller") : NULL;
		tr->utgid = ustack ? tep_find_field(ustack, "tgid") : NULL;
	} else if (!counting(tr)) {
		if (!(tr->p = evprint_new(t->s.tep, t->o.json, t->o.wallclock)))
			return TOOL_FAIL;
		evprint_stacks(tr->p, kstack, tr->ksyms, ustack);
		for (int i = 0; t->o.json && i < tr->nevents; i++) {
			char buf[160];
			const char *name = event_label(tr, i, buf, sizeof(buf));
			if (name != buf && evprint_name(tr->p, tr->events[i], name))
				return TOOL_FAIL;
		}
		for (int i = 0; kstack && i < tr->nevents; i++) {
			const struct tep_format_field *at = stack_at_of(tr, tr->events[i]);
			if (at &&
			    evprint_kstack_from_caller(tr->p, tr->events[i], at, tr->entry_caller))
				return TOOL_FAIL;
		}
		/* A return probe's stack starts at its trampoline (the tracing's own). Only
		 * then: another tool's return probe on a caller puts the trampoline in the
		 * middle of a stack. */
		static const char *const trampolines[] = {"arch_rethook_trampoline",
							  "__kretprobe_trampoline",
							  "kretprobe_trampoline", NULL};
		for (int i = 0; kstack && i < tr->nevents; i++)
			if (tep_find_field(tr->events[i], "__probe_ret_ip"))
				evprint_kstack_after(tr->p, trampolines);
		/* Formats that print addresses as symbols (%ps) or strings by pointer; not the
		 * function tracer's records, which functrace prints itself (the kernel's
		 * symbols into the library took 4.5 s of its start in the 6.12 guest). */
		for (int i = 0; i < tr->nevents && !t->o.json && !tr->by_tracer; i++)
			if (tr->events[i]->print_fmt.format &&
			    strstr(tr->events[i]->print_fmt.format, "%p")) {
				session_load_symbols(&t->s);
				break;
			}
	}
	tr->self = getpid();
	for (int i = 0; i < tr->nevents; i++) {
		tr->ctx[i] = (struct tracer_event){tr, i};
		/* Records a tracer writes (ftrace:function) are not enabled or filtered. */
		if (tr->by_tracer ?
			    reader_on(&t->r, tr->events[i], on_event, &tr->ctx[i]) :
			    (ret = tool_trace(t, tr->events[i], tr->filter, on_event, &tr->ctx[i])))
			return tr->by_tracer ? TOOL_FAIL : ret;
	}
	return TOOL_OK;
}

void tracer_banner(struct tool_run *t)
{
	fprintf(stderr, "%s %s. Ctrl-C to end.\n",
		counting(tracer_of(t)) || tracer_of(t)->folded ? "Counting" : "Tracing", t->traced);
}

void tracer_header(struct tool_run *t)
{
	struct tracer *tr = tracer_of(t);
	if (tr->header && tr->p)
		evprint_header(tr->p);
}

/* -c in JSON: an object per event each interval. */
static const struct row_col count_cols[] = {ROW_COL_WHEN, KEYS_COL_EVENT, KEYS_COL_COUNT};
const struct row_table tracer_count_keys = ROW_TABLE("each event's count (-c)", count_cols);

/* --prom: -c's or -k's counts of the interval added to the totals, and the file written. */
static void prom_counts(struct tracer *tr)
{
	char name[160], labels[256];
	if (tr->k && keys_prom_add(tr->k, &tr->prom, &tr->prom_cut)) {
		fprintf(stderr, "%s: out of memory for --prom's series: counts left out\n",
			tr->t->tool->name);
		tr->t->failed = true;
	}
	for (int i = 0; !tr->k && i < tr->nevents; i++) {
		struct prom_series *ps = prom_series(
			&tr->prom, prom_labels(labels, sizeof(labels), "event",
					       event_label(tr, i, name, sizeof(name)), NULL));
		if (ps)
			ps->count += tr->counts[i];
	}
	struct prom *p = tool_prom(tr->t);
	if (!p)
		return;
	char family[96];
	snprintf(family, sizeof(family), "ftrace_tools_%s_events_total", tr->t->tool->name);
	prom_family(p, family, "counter", "Events counted (-c), by event (and -k's keys).");
	for (size_t i = 0; i < tr->prom.n; i++)
		prom_uint(p, family, tr->prom.s[i]->labels, tr->prom.s[i]->count);
	prom_commit(p);
}

static void print_counts(struct tracer *tr, const char *when)
{
	struct row w;
	if (tr->t->prom)
		prom_counts(tr);
	row_init(&w, &tracer_count_keys, stdout, true, false, false);
	if (!tr->t->o.json) {
		out_table_gap(stdout);
		printf("%s\n%-40s %12s\n", when, "EVENT", "COUNT");
	}
	for (int i = 0; i < tr->nevents; i++) {
		char buf[160];
		const char *name = event_label(tr, i, buf, sizeof(buf));
		if (tr->t->o.json) {
			row_begin(&w, 0);
			row_word(&w, when);
			row_str(&w, name, strlen(name));
			row_uint(&w, tr->counts[i]);
			row_end(&w);
		} else
			printf("%-40s %12llu\n", name, (unsigned long long)tr->counts[i]);
		tr->counts[i] = 0;
	}
}

/* A key's count read from the kernel's table. */
static void add_keys(int idx, const uint64_t *key, uint64_t n, void *ctx)
{
	struct tracer *tr = ctx;
	if (keys_add_values(tr->k, idx, key, n))
		sig_request_stop(); /* out of memory: end with what was counted */
}

/* -c, -k or --hist in the kernel: what its tables counted since the last read, into the
 * counts, the keys or the histogram. */
static void pull(struct tool_run *t, struct tracer *tr)
{
	char why[300];
	if ((tr->kh && fieldhist_read(tr->kh, keys_total(tr->k), why, sizeof(why))) ||
	    (tr->kc && kerncount_read(tr->kc, tr->counts, why, sizeof(why))) ||
	    (tr->kk && kernkeys_read(tr->kk, add_keys, tr, why, sizeof(why)))) {
		fprintf(stderr, "%s: %s\n", t->tool->name, why);
		t->failed = true;
		sig_request_stop();
	}
}

/* What was counted, as the table of the interval ending now. */
static void print_interval(struct tool_run *t, struct tracer *tr, uint64_t now)
{
	char when[16];
	out_wallclock(now, when);
	if (tr->k) {
		if (t->prom)
			prom_counts(tr);
		keys_print(tr->k, when, t->o.json);
	} else
		print_counts(tr, when);
}

int tracer_interval(struct tool_run *t, uint64_t now)
{
	struct tracer *tr = tracer_of(t);
	pull(t, tr);
	print_interval(t, tr, now);
	return 0;
}

static bool counted(const struct tracer *tr)
{
	if (tr->k)
		return !keys_empty(tr->k);
	for (int i = 0; i < tr->nevents; i++)
		if (tr->counts[i])
			return true;
	return false;
}

/* The partial last interval (-c), or everything (-k, --hist without -c); not an empty one
 * when -d ended right on a tick. */
void tracer_end(struct tool_run *t)
{
	struct tracer *tr = tracer_of(t);
	pull(t, tr); /* once: whether anything was counted, then its table */
	if (counting(tr) && (!t->intervals || counted(tr)))
		print_interval(t, tr, reader_now());
	uint64_t dropped = tr->kh ? tr->kh->dropped : tr->kk ? tr->kk->dropped : 0;
	if (dropped)
		fprintf(stderr,
			"%s: %llu events not counted: the kernel's table of %s was full "
			"(--user-space counts every one)\n",
			t->tool->name, (unsigned long long)dropped, tr->kh ? "values" : "keys");
	if (tr->prom_cut)
		fprintf(stderr,
			"%s: %llu events left out of --prom's file: their keys' values are too "
			"long for labels\n",
			t->tool->name, (unsigned long long)tr->prom_cut);
	if (tr->fold)
		folded_print(tr->fold, stdout);
	evprint_say_without_ustack(
		t->tool->name, "events",
		tr->fold ? (tr->ustack && !tr->ustacks ? folded_total(tr->fold) : 0) :
			   evprint_without_ustack(tr->p));
}

void tracer_cleanup(struct tool_run *t)
{
	struct tracer *tr = tracer_of(t);
	keys_free(tr->k);
	drop_in_kernel(tr);
	evprint_free(tr->p);
	folded_free(tr->fold);
	ksym_free(tr->ksyms);
	usym_addr_free();
	free(tr->counts);
	prom_set_free(&tr->prom);
	free(tr->ctx);
	tr->k = NULL;
	tr->p = NULL;
	tr->fold = NULL;
	tr->ksyms = NULL;
	tr->counts = NULL;
	tr->ctx = NULL;
}
