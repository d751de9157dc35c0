// SPDX-License-Identifier: GPL-2.0-only
#include "join/span.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <event-parse.h>
#include <tracefs.h>

#include "kernel/histtable.h"
#include "stream/reader.h"
#include "base/runid.h"
#include "kernel/session.h"
#include "base/sig.h"
#include "tool.h"

int span_init(struct span *s, size_t entries, size_t data_size, enum span_loss loss,
	      span_done_fn done, void *ctx)
{
	memset(s, 0, sizeof(*s));
	s->data_size = data_size;
	s->loss = loss;
	s->done = done;
	s->ctx = ctx;
	return pair_init(&s->starts, entries, sizeof(struct span_start) + data_size);
}

int span_init_run(struct tool_run *t, struct span *s, size_t entries, size_t data_size,
		  enum span_loss loss, span_done_fn done, void *ctx)
{
	if (span_init(s, entries, data_size, loss, done, ctx))
		return -1;
	return tool_on_lost(t, span_lost, s);
}

void span_free(struct span *s)
{
	pair_free(&s->starts);
}

static void *fill(struct span *s, struct span_start *st, uint64_t ts, int cpu, int kind)
{
	memset(st, 0, sizeof(*st) + s->data_size);
	st->ts = ts;
	st->cpu = cpu;
	st->kind = kind;
	return span_data(st);
}

void *span_begin(struct span *s, uint64_t k1, uint64_t k2, uint64_t ts, int cpu, int kind)
{
	if (pair_get(&s->starts, k1, k2))
		s->replaced++;
	return fill(s, pair_put(&s->starts, k1, k2), ts, cpu, kind);
}

void *span_begin_once(struct span *s, uint64_t k1, uint64_t k2, uint64_t ts, int cpu, int kind,
		      bool *fresh)
{
	struct span_start *st = pair_get(&s->starts, k1, k2);
	*fresh = !st;
	if (st)
		return span_data(st);
	return fill(s, pair_put(&s->starts, k1, k2), ts, cpu, kind);
}

struct span_start *span_find(struct span *s, uint64_t k1, uint64_t k2)
{
	return pair_get(&s->starts, k1, k2);
}

int span_end(struct span *s, const struct tep_record *rec, uint64_t k1, uint64_t k2, uint64_t ts)
{
	struct span_start *st = pair_get(&s->starts, k1, k2);
	if (!st) {
		s->unpaired++;
		return 0;
	}
	s->paired++;
	if (s->done)
		s->done(rec, st, ts > st->ts ? ts - st->ts : 0, span_data(st), s->ctx);
	pair_del(&s->starts, st);
	return 1;
}

struct span_start *span_move(struct span *s, uint64_t k1, uint64_t k2, uint64_t nk1, uint64_t nk2)
{
	struct span_start *st = pair_get(&s->starts, k1, k2);
	if (!st || (k1 == nk1 && k2 == nk2))
		return st;
	struct span_start *n = pair_put(&s->starts, nk1, nk2);
	/* The put may have evicted the start being moved (same set, full): look again. */
	if ((st = pair_get(&s->starts, k1, k2))) {
		memcpy(n, st, sizeof(*st) + s->data_size);
		pair_del(&s->starts, st);
		return n;
	}
	pair_del(&s->starts, n);
	return NULL;
}

void span_drop(struct span *s, uint64_t k1, uint64_t k2)
{
	struct span_start *st = pair_get(&s->starts, k1, k2);
	if (st)
		pair_del(&s->starts, st);
}

/* SPAN_LOSS_CPU: the starts of the CPU that lost events. */
static bool of_cpu(void *value, void *ctx)
{
	return ((struct span_start *)value)->cpu == *(int *)ctx;
}

void span_lost(int cpu, long long n, void *ctx)
{
	struct span *s = ctx;
	s->losses++;
	if (s->loss == SPAN_LOSS_CPU && cpu >= 0)
		s->cleared += pair_del_if(&s->starts, of_cpu, &cpu);
	else
		s->cleared += pair_del_if(&s->starts, NULL, NULL);
}

void span_report(const struct span *s, const char *tool, const char *what)
{
	if (!s->unpaired && !s->cleared && !s->starts.evicted)
		return;
	char why[256];
	size_t n = (size_t)snprintf(why, sizeof(why), "begun before tracing");
	if (s->cleared)
		n += (size_t)snprintf(why + n, sizeof(why) - n,
				      ", or after lost events (%llu starts forgotten then)",
				      (unsigned long long)s->cleared);
	if (s->starts.evicted)
		snprintf(why + n, sizeof(why) - n, ", or evicted from a full table (%llu)",
			 (unsigned long long)s->starts.evicted);
	fprintf(stderr, "%s: %llu of %llu %s found no start (%s): not counted\n", tool,
		(unsigned long long)s->unpaired, (unsigned long long)(s->unpaired + s->paired),
		what, why);
}

/* --- paired in the kernel ------------------------------------------------------------------ */

/* Before 6.1 (tested: 4.18, 4.19 have hist triggers with synthetic events, 6.1 and 6.12 were
 * right), two runs whose triggers sit on the same events in two instances hold each other:
 * the first to end cannot remove its instance or synthetic event (EBUSY), seen on 4.19 with
 * two runqlat at once. There the pairs are made here, unless the events are the run's own
 * (its probes): no other run's triggers sit on them. */
static bool kernel_from_6_1(void)
{
	struct utsname u;
	int major = 0, minor = 0;
	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return false;
	return major > 6 || (major == 6 && minor >= 1);
}

bool span_kernel_can(enum span_kmode mode, bool own)
{
	if (!own && !kernel_from_6_1())
		return false;
	char *readme = tracefs_instance_file_read(NULL, "README", NULL);
	/* Numeric literals in hist expressions (5.16) are listed as such in the README. */
	bool can = readme && strstr(readme, "hist:keys") &&
		   tracefs_file_exists(NULL, "synthetic_events") &&
		   (mode != SPAN_K_HIST || strstr(readme, "numeric_literal"));
	free(readme);
	return can;
}

/* Appends to buf (size len) at *o; -1 once it does not fit. */
static int add(char *buf, size_t len, size_t *o, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int add(char *buf, size_t len, size_t *o, const char *fmt, ...)
{
	if (*o >= len)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf + *o, len - *o, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - *o) {
		*o = len;
		return -1;
	}
	*o += (size_t)n;
	return 0;
}

/* "; char comm[16]" or "; pid_t pid": a field of a synthetic event's definition. */
static int add_def_field(char *buf, size_t len, size_t *o, const struct span_kfield *f)
{
	const char *br = strchr(f->type, '[');
	if (br)
		return add(buf, len, o, "; %.*s %s%s", (int)(br - f->type), f->type, f->name, br);
	return add(buf, len, o, "; %s %s", f->type, f->name);
}

static struct span_ktrig *new_trig(struct span_kernel *k, const char *sys, const char *event)
{
	struct span_ktrig *tr = &k->trig[k->ntrig++];
	memset(tr, 0, sizeof(*tr));
	snprintf(tr->sys, sizeof(tr->sys), "%s", sys);
	snprintf(tr->event, sizeof(tr->event), "%s", event);
	tr->emergency = -1;
	return tr;
}

static bool several(const struct span_kernel *k)
{
	return k->nstarts > 1;
}

static int build_synth(struct span_kernel *k, const char *id)
{
	static const char *const suffix[3] = {"", "s", "d"};
	size_t o;
	for (int i = 0; i < 3; i++)
		snprintf(k->synth[i], sizeof(k->synth[i]), RUNID_GROUP_PREFIX "%s_%s%s", id,
			 k->name, suffix[i]);
	o = 0;
	int bad = add(k->def[0], sizeof(k->def[0]), &o, "%s u64 lat; u64 t0%s", k->synth[0],
		      k->mode == SPAN_K_HIST ? "; u64 b" : "");
	for (int i = 0; i < k->ncarry; i++)
		bad |= add_def_field(k->def[0], sizeof(k->def[0]), &o, &k->carry[i]);
	for (int i = 0; i < k->nfields; i++)
		bad |= add_def_field(k->def[0], sizeof(k->def[0]), &o, &k->fields[i]);
	k->def[1][0] = k->def[2][0] = 0;
	if (several(k)) {
		o = 0;
		bad |= add(k->def[1], sizeof(k->def[1]), &o, "%s %s key; u64 ts", k->synth[1],
			   k->key_type);
		for (int i = 0; i < k->ncarry; i++)
			bad |= add_def_field(k->def[1], sizeof(k->def[1]), &o, &k->carry[i]);
	}
	if (k->drop_key) {
		o = 0;
		bad |= add(k->def[2], sizeof(k->def[2]), &o, "%s u64 gone", k->synth[2]);
	}
	return bad ? -1 : 0;
}

/* The triggers, in the order they are written: the starts' table first (the first trigger
 * with a timestamp turns the buffer to absolute timestamps on 4.x: no start may be taken
 * before), the pairs' table, the drop and the end, then what fires the start event. */
static int build_triggers(struct span_kernel *k, const char *clock)
{
	const char *n = k->name;
	size_t table = k->table ? k->table : SPAN_K_TABLE;
	char unit[32] = "";
	int bad = 0;
	size_t o;
	if (k->mode == SPAN_K_HIST)
		snprintf(unit, sizeof(unit), "%llu", (unsigned long long)k->unit_ns);
	k->ntrig = 0;
	/* The start's table: its time twice (an expression reads a variable once and clears
	 * it: lat reads one, t0 is the other), its time in units minus one (the bucket of the
	 * histogram mode: the kernel's log2 rounds up), its carried fields. */
	const struct span_kstart *s0 = &k->start[0];
	struct span_ktrig *tr = several(k) ? new_trig(k, "synthetic", k->synth[1]) :
					     new_trig(k, s0->ev->system, s0->ev->name);
	const char *ts = several(k) ? "ts" : "common_timestamp";
	o = 0;
	bad |= add(tr->text, sizeof(tr->text), &o, "hist:keys=%s:%s0=%s,%s1=%s",
		   several(k) ? "key" : s0->key, n, ts, n, ts);
	if (*unit)
		bad |= add(tr->text, sizeof(tr->text), &o, ",%su=%s/%s-1", n, ts, unit);
	for (int i = 0; i < k->ncarry; i++)
		bad |= add(tr->text, sizeof(tr->text), &o, ",%sc%d=%s", n, i,
			   several(k) ? k->carry[i].name : s0->carry[i]);
	bad |= add(tr->text, sizeof(tr->text), &o, ":size=%zu:clock=%s", table, clock);
	if (!several(k) && s0->filter)
		bad |= add(tr->text, sizeof(tr->text), &o, " if %s", s0->filter);
	snprintf(tr->which, sizeof(tr->which), "%s0=", n);
	char match[160];
	snprintf(match, sizeof(match), "%s.%s", several(k) ? "synthetic" : s0->ev->system,
		 several(k) ? k->synth[1] : s0->ev->name);

	/* The pairs' table: the histogram, or a count of the pairs by log2 of lat. */
	tr = new_trig(k, "synthetic", k->synth[0]);
	k->pair_trig = k->ntrig - 1;
	o = 0;
	if (k->mode == SPAN_K_HIST)
		bad |= add(tr->text, sizeof(tr->text), &o,
			   "hist:keys=%s%sb.log2:vals=hitcount,b:size=%zu",
			   k->hist_keys ? k->hist_keys : "", k->hist_keys ? "," : "", table);
	else
		bad |= add(tr->text, sizeof(tr->text), &o, "hist:keys=lat.log2");
	snprintf(tr->which, sizeof(tr->which), "%s.log2", k->mode == SPAN_K_HIST ? "b" : "lat");

	if (k->drop_key) {
		tr = new_trig(k, k->end->system, k->end->name);
		o = 0;
		bad |= add(
			tr->text, sizeof(tr->text), &o,
			"hist:keys=%s:%sg=common_timestamp-$%s0:size=%zu:clock=%s:onmatch(%s).%s("
			"$%sg)",
			k->drop_key, n, n, table, clock, match, k->synth[2], n);
		if (k->drop_filter)
			bad |= add(tr->text, sizeof(tr->text), &o, " if %s", k->drop_filter);
		snprintf(tr->which, sizeof(tr->which), "%sg=", n);
	}

	tr = new_trig(k, k->end->system, k->end->name);
	k->end_trig = k->ntrig - 1;
	o = 0;
	bad |= add(tr->text, sizeof(tr->text), &o, "hist:keys=%s:%slat=common_timestamp-$%s0",
		   k->end_key, n, n);
	if (*unit)
		bad |= add(tr->text, sizeof(tr->text), &o, ",%sb=common_timestamp/%s-$%su", n, unit,
			   n);
	bad |= add(tr->text, sizeof(tr->text), &o, ":size=%zu:clock=%s:onmatch(%s).%s($%slat,$%s1",
		   table, clock, match, k->synth[0], n, n);
	if (*unit)
		bad |= add(tr->text, sizeof(tr->text), &o, ",$%sb", n);
	for (int i = 0; i < k->ncarry; i++)
		bad |= add(tr->text, sizeof(tr->text), &o, ",$%sc%d", n, i);
	for (int i = 0; i < k->nfields; i++)
		bad |= add(tr->text, sizeof(tr->text), &o, ",%s", k->fields[i].from);
	bad |= add(tr->text, sizeof(tr->text), &o, ")");
	if (k->end_filter)
		bad |= add(tr->text, sizeof(tr->text), &o, " if %s", k->end_filter);
	snprintf(tr->which, sizeof(tr->which), "%slat=", n);

	/* Each start event fires the start event of the run with its key and its time. */
	for (int i = 0; several(k) && i < k->nstarts; i++) {
		const struct span_kstart *s = &k->start[i];
		tr = new_trig(k, s->ev->system, s->ev->name);
		o = 0;
		bad |= add(
			tr->text, sizeof(tr->text), &o,
			"hist:keys=%s:%st=common_timestamp:size=%zu:clock=%s:onmatch(%s.%s).%s(%s,"
			"$%st",
			s->key, n, table, clock, s->ev->system, s->ev->name, k->synth[1], s->key,
			n);
		for (int c = 0; c < k->ncarry; c++)
			bad |= add(tr->text, sizeof(tr->text), &o, ",%s", s->carry[c]);
		bad |= add(tr->text, sizeof(tr->text), &o, ")");
		if (s->filter)
			bad |= add(tr->text, sizeof(tr->text), &o, " if %s", s->filter);
		snprintf(tr->which, sizeof(tr->which), "%st=", n);
	}
	return bad ? -1 : 0;
}

int span_kernel_build(struct span_kernel *k, const char *id, const char *clock)
{
	if (!k->name || k->nstarts < 1 || k->nstarts > SPAN_K_STARTS || !k->end || !k->end_key ||
	    (several(k) && !k->key_type) || k->ncarry > SPAN_K_CARRY ||
	    k->nfields > SPAN_K_FIELDS || (k->mode == SPAN_K_HIST && !k->unit_ns)) {
		fprintf(stderr, "span: an in-kernel pairing described without all it needs\n");
		return -1;
	}
	if (build_synth(k, id) || build_triggers(k, clock)) {
		fprintf(stderr, "span: the in-kernel pairing %s does not fit its buffers\n",
			k->name);
		return -1;
	}
	return 0;
}

/* After the instance (it may have had the pair event enabled): the synthetic events. */
static void remove_synths(void *arg)
{
	struct span_kernel *k = arg;
	for (int i = 0; i < 3; i++) {
		if (!k->synth_made[i])
			continue;
		char line[128];
		snprintf(line, sizeof(line), "!%s\n", k->synth[i]);
		if (session_append("synthetic_events", line)) {
			fprintf(stderr, "%s: cannot remove synthetic event %s: %s\n",
				k->t->tool->name, k->synth[i], strerror(errno));
			k->t->failed = true;
			continue;
		}
		k->synth_made[i] = false;
		sig_forget(k->synth_emergency[i]);
	}
}

bool span_kernel_make(struct tool_run *t, struct span_kernel *k)
{
	k->t = t;
	for (int i = 0; i < 3; i++) {
		k->synth_made[i] = false;
		k->synth_emergency[i] = -1;
	}
	k->undo.fd = -1;
	k->ntrig = 0;
	if (!span_kernel_can(k->mode, k->own) || span_kernel_build(k, runid_self(), "mono"))
		return false;
	char path[4096];
	snprintf(path, sizeof(path), "%s/synthetic_events", tracefs_tracing_dir());
	if (session_on_close(&t->s, SESSION_AFTER_REMOVE, remove_synths, k))
		return false;
	for (int i = 0; i < 3; i++) {
		if (!k->def[i][0])
			continue;
		char line[sizeof(k->def[i]) + 1], rm[128];
		snprintf(line, sizeof(line), "%s\n", k->def[i]);
		snprintf(rm, sizeof(rm), "!%s\n", k->synth[i]);
		if (session_append("synthetic_events", line)) {
			fprintf(stderr,
				"%s: the kernel refused the synthetic event '%s': %s; paired here "
				"instead\n",
				t->tool->name, k->def[i], strerror(errno));
			remove_synths(k);
			return false;
		}
		k->synth_made[i] = true;
		/* After the instance's removal (it may have the event enabled). */
		k->synth_emergency[i] = sig_on_emergency_write(path, rm);
	}
	if (!(k->pair_ev = session_load_event(&t->s, "synthetic", k->synth[0])) ||
	    !(k->lat = tep_find_field(k->pair_ev, "lat")) ||
	    !(k->t0 = tep_find_field(k->pair_ev, "t0"))) {
		fprintf(stderr, "%s: cannot read the format of synthetic event %s; paired here\n",
			t->tool->name, k->synth[0]);
		remove_synths(k);
		return false;
	}
	return true;
}

/* Before the instance goes (the triggers hold it): in the other order than written, so no
 * trigger is removed while another refers to its variables or fires its event. */
static void remove_triggers(void *arg)
{
	struct span_kernel *k = arg;
	bool left = false;
	for (int i = k->ntrig - 1; i >= 0; i--) {
		struct span_ktrig *tr = &k->trig[i];
		if (!tr->set)
			continue;
		char line[sizeof(tr->text) + 1];
		snprintf(line, sizeof(line), "!%s", tr->text);
		if (tracefs_event_file_append(k->t->s.inst, tr->sys, tr->event, "trigger", line) <
		    0) {
			fprintf(stderr, "%s: cannot remove the hist trigger of %s:%s: %s\n",
				k->t->tool->name, tr->sys, tr->event, strerror(errno));
			k->t->failed = true;
			left = true;
			continue;
		}
		tr->set = false;
		sig_forget(tr->emergency);
	}
	if (!left)
		undo_end(&k->undo);
}

struct pair_cb {
	void (*fn)(struct tep_record *pair, void *ctx);
	void *ctx;
};

static void on_pair(struct tep_record *rec, void *ctx)
{
	struct pair_cb *cb = ctx;
	cb->fn(rec, cb->ctx);
}

/* A table's Hits and Dropped. */
static int table_counts(struct span_kernel *k, int i, uint64_t *hits, uint64_t *dropped)
{
	struct span_ktrig *tr = &k->trig[i];
	char *text = tracefs_event_file_read(k->t->s.inst, tr->sys, tr->event, "hist", NULL);
	/* Only its totals, after its trigger info line. */
	const char *tot = text ? strstr(text, tr->which) : NULL;
	int ret = -1;
	if (tot) {
		const char *hs = strstr(tot, "Hits:"), *ds = strstr(tot, "Dropped:");
		if (hs && ds) {
			*hits = strtoull(hs + 5, NULL, 10);
			*dropped = strtoull(ds + 8, NULL, 10);
			ret = 0;
		}
	}
	free(text);
	return ret;
}

static int counts_now(struct span_kernel *k, uint64_t *ends, uint64_t *pairs, uint64_t *dropped)
{
	uint64_t hits, drop;
	*dropped = 0;
	for (int i = 0; i < k->ntrig; i++) {
		if (!k->trig[i].set || table_counts(k, i, &hits, &drop))
			return -1;
		if (i == k->end_trig)
			*ends = hits;
		if (i == k->pair_trig)
			*pairs = hits;
		*dropped = drop > *dropped ? drop : *dropped;
	}
	return 0;
}

enum tool_code span_kernel_trace(struct tool_run *t, struct span_kernel *k, const char *filter,
				 void (*fn)(struct tep_record *pair, void *ctx), void *ctx)
{
	char clock[32];
	if (session_clock(&t->s, clock, sizeof(clock)) || span_kernel_build(k, runid_self(), clock))
		return TOOL_FAIL;
	/* Kept before they are written: a killed run's are removed by the next run, and on a
	 * fault before the instance is removed; in the order they are removed. */
	if (undo_begin(&k->undo, t->tool->name) ||
	    session_on_close(&t->s, SESSION_BEFORE_REMOVE, remove_triggers, k))
		return TOOL_FAIL;
	for (int i = k->ntrig - 1; i >= 0; i--) {
		struct span_ktrig *tr = &k->trig[i];
		char rm[sizeof(tr->text) + 1], path[sizeof(tr->path)];
		/* Written here, then copied: gcc 12 at -O0 cannot tell tr->path from tr->sys
		 * and tr->event (all in *k) and warns that they overlap (-Wrestrict). */
		snprintf(path, sizeof(path), "%s/events/%s/%s/trigger", t->s.dir, tr->sys,
			 tr->event);
		memcpy(tr->path, path, sizeof(path));
		snprintf(rm, sizeof(rm), "!%s", tr->text);
		if (undo_add(&k->undo, tr->path, rm) ||
		    (tr->emergency = sig_on_emergency_write_before(t->s.emergency, tr->path, rm)) <
			    0)
			return TOOL_FAIL;
	}
	for (int i = 0; i < k->ntrig; i++) {
		struct span_ktrig *tr = &k->trig[i];
		if (tracefs_event_file_append(t->s.inst, tr->sys, tr->event, "trigger", tr->text) <
		    0) {
			fprintf(stderr,
				"%s: the kernel rejected the hist trigger '%s' on %s:%s: %s\n",
				t->tool->name, tr->text, tr->sys, tr->event, strerror(errno));
			return TOOL_FAIL;
		}
		tr->set = true;
	}
	if (k->mode == SPAN_K_PAIRS && fn) {
		static struct pair_cb cb;
		cb = (struct pair_cb){fn, ctx};
		if (session_enable(&t->s, k->pair_ev, filter) ||
		    reader_on(&t->r, k->pair_ev, on_pair, &cb))
			return TOOL_FAIL;
	}
	/* What the tables counted while the triggers were being written is not the run's. */
	if (counts_now(k, &k->base_ends, &k->base_pairs, &k->base_dropped)) {
		fprintf(stderr, "%s: cannot read the kernel's tables of %s\n", t->tool->name,
			k->synth[0]);
		return TOOL_FAIL;
	}
	if (k->mode == SPAN_K_HIST) {
		char why[256];
		int nkeys = 1;
		for (const char *p = k->hist_keys; p && *p; p++)
			nkeys += *p == ',';
		nkeys += k->hist_keys ? 1 : 0;
		if (!(k->base = calloc(1, sizeof(*k->base))) ||
		    histtable_read(t->s.inst, k->pair_ev, k->trig[k->pair_trig].which, nkeys,
				   k->base, why, sizeof(why))) {
			fprintf(stderr, "%s: %s\n", t->tool->name, k->base ? why : "out of memory");
			return TOOL_FAIL;
		}
	}
	return TOOL_OK;
}

struct tep_format_field *span_kernel_field(const struct span_kernel *k, const char *name)
{
	return k->pair_ev ? tep_find_field(k->pair_ev, name) : NULL;
}

int span_kernel_hist(struct span_kernel *k, struct histtable *h)
{
	char why[256];
	if (!k->base || histtable_read(k->t->s.inst, k->pair_ev, k->trig[k->pair_trig].which,
				       k->base->nkeys, h, why, sizeof(why))) {
		fprintf(stderr, "%s: %s\n", k->t->tool->name,
			k->base ? why : "no histogram in the kernel");
		return -1;
	}
	histtable_sub(h, k->base);
	return 0;
}

int span_kernel_counts(struct span_kernel *k, uint64_t *ends, uint64_t *pairs, uint64_t *dropped)
{
	if (counts_now(k, ends, pairs, dropped))
		return -1;
	*ends -= k->base_ends < *ends ? k->base_ends : *ends;
	*pairs -= k->base_pairs < *pairs ? k->base_pairs : *pairs;
	*dropped -= k->base_dropped < *dropped ? k->base_dropped : *dropped;
	return 0;
}

void span_kernel_report(struct span_kernel *k, const char *tool, const char *what)
{
	uint64_t ends, pairs, dropped;
	if (span_kernel_counts(k, &ends, &pairs, &dropped)) {
		fprintf(stderr,
			"%s: cannot read the kernel's tables: the pairs not made are not "
			"known\n",
			tool);
		return;
	}
	if (ends > pairs)
		fprintf(stderr,
			"%s: %llu of %llu %s found no start (begun before tracing): not counted\n",
			tool, (unsigned long long)(ends - pairs), (unsigned long long)ends, what);
	if (dropped)
		fprintf(stderr,
			"%s: at least %llu %s or their starts are left out: a table of the "
			"kernel's "
			"(%zu keys) was full\n",
			tool, (unsigned long long)dropped, what,
			k->table ? k->table : SPAN_K_TABLE);
}

void span_kernel_free(struct span_kernel *k)
{
	if (k->base)
		histtable_free(k->base);
	free(k->base);
	k->base = NULL;
}
