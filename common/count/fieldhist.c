// SPDX-License-Identifier: GPL-2.0-only
#include "count/fieldhist.h"
#include "stream/field.h"
#include "kernel/session.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

/* A trigger's whole text goes in one write, which the kernel takes below a page; appended
 * (O_TRUNC on a trigger file removes the triggers it has). */
#define TRIGGER_MAX 4000

bool fieldhist_can(void)
{
	char *readme = tracefs_instance_file_read(NULL, "README", NULL);
	bool yes = readme && strstr(readme, "hist:keys");
	free(readme);
	return yes;
}

bool fieldhist_tasks_ok(void)
{
	static int ok = -1;
	if (ok < 0) {
		char *readme = tracefs_instance_file_read(NULL, "README", NULL);
		ok = readme && strstr(readme, "numeric_literal");
		free(readme);
	}
	return ok;
}

bool fieldhist_fits(struct tep_event *ev, const struct tep_format_field *f)
{
	if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING))
		return false;
	if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)
		return false;
	struct field_desc d = field_describe(ev, (struct tep_format_field *)f);
	if (d.kind != FIELD_SIGNED && d.kind != FIELD_UNSIGNED && d.kind != FIELD_POINTER)
		return false;
	if ((d.width && d.width != f->size) || d.is_signed != !!(f->flags & TEP_FIELD_IS_SIGNED))
		return false;
	/* Before Linux 4.17 .log2 read 8 bytes at any field's place (the bytes after a 4-byte
	 * field, left by earlier events, made its values huge: 4.9 in the guests); its
	 * rework came with synthetic events, whose file says it is there. */
	static int reworked = -1;
	if (reworked < 0) {
		const char *dir = tracefs_tracing_dir();
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/synthetic_events", dir ? dir : "");
		reworked = dir && !access(path, F_OK);
	}
	return f->size == 8 || reworked;
}

struct text {
	char *p;
	size_t len, used;
	bool full;
};

static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = t->full ? 0 : vsnprintf(t->p + t->used, t->len - t->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= t->len - t->used)
		t->full = true;
	else
		t->used += (size_t)n;
}

/* True when f is one of v[0..n) (sorted), or (none) when it is none of them: split in two
 * at the middle until 8 are left, so a value is compared about 2 log2(n/8) + 8 times. */
static void tree(struct text *t, const char *f, const uint64_t *v, int n, bool none)
{
	if (n <= 8) {
		put(t, "(");
		for (int i = 0; i < n; i++)
			put(t, "%s%s %s 0x%llx", i ? (none ? " && " : " || ") : "", f,
			    none ? "!=" : "==", (unsigned long long)v[i]);
		put(t, ")");
		return;
	}
	int m = n / 2;
	unsigned long long mid = v[m];
	if (none) {
		put(t, "((%s >= 0x%llx || ", f, mid);
		tree(t, f, v, m, true);
		put(t, ") && (%s < 0x%llx || ", f, mid);
		tree(t, f, v + m, n - m, true);
		put(t, "))");
	} else {
		put(t, "((%s < 0x%llx && ", f, mid);
		tree(t, f, v, m, false);
		put(t, ") || (%s >= 0x%llx && ", f, mid);
		tree(t, f, v + m, n - m, false);
		put(t, "))");
	}
}

int fieldhist_filter(char *buf, size_t len, const char *field, int size, bool is_signed, bool exact)
{
	struct text t = {buf, len, 0, false};
	/* 0 and the powers of two of the positive range; beyond it, below 0 or from 2^63 on */
	uint64_t v[65];
	int n = 0, top = size * 8 - (is_signed || size == 8 ? 2 : 1);
	v[n++] = 0;
	for (int k = 0; k <= top; k++)
		v[n++] = 1ULL << k;
	const char *beyond = is_signed ? "< 0" :
			     size == 8 ? ">= 0x8000000000000000" :
					 NULL,
		   *within = is_signed ? ">= 0" :
			     size == 8 ? "< 0x8000000000000000" :
					 NULL;
	if (exact) {
		if (beyond)
			put(&t, "(%s %s || ", field, beyond);
		tree(&t, field, v, n, false);
		if (beyond)
			put(&t, ")");
	} else {
		if (within)
			put(&t, "%s %s && ", field, within);
		tree(&t, field, v, n, true);
	}
	if (t.full)
		return -1;
	buf[t.used] = 0;
	return 0;
}

/* A value as the kernel keyed it (widened to 64 bits by its sign) into the slots. */
static void add_value(struct hist_log2 *h, uint64_t v, uint64_t n, int size, bool is_signed)
{
	if (is_signed && size < 8 && (v >> (size * 8 - 1)) & 1)
		v |= ~0ULL << (size * 8); /* a kernel that did not widen it */
	if (is_signed && (int64_t)v < 0) {
		h->neg += n;
	} else {
		int k = v ? 64 - __builtin_clzll(v) : 0;
		h->slot[k] += n;
	}
	h->total += n;
}

/* What an entry of a table that only grows counted since before. */
static uint64_t grown(const struct histtable_entry *e, const struct histtable *before)
{
	const struct histtable_entry *b = histtable_find(before, e->key);
	uint64_t was = b ? b->hits : 0;
	return e->hits > was ? e->hits - was : 0;
}

void fieldhist_add(struct hist_log2 *h, const struct histtable *log2_now,
		   const struct histtable *log2_before, const struct histtable *exact_now,
		   const struct histtable *exact_before, int size, bool is_signed,
		   uint64_t *dropped)
{
	for (size_t i = 0; i < log2_now->n; i++) {
		const struct histtable_entry *e = &log2_now->e[i];
		uint64_t n = grown(e, log2_before);
		/* 2^k holds (2^(k-1), 2^k) here, powers of two being the other table's */
		if (n && e->key[0] < HIST_SLOTS) {
			h->slot[e->key[0]] += n;
			h->total += n;
		}
	}
	for (size_t i = 0; i < exact_now->n; i++) {
		const struct histtable_entry *e = &exact_now->e[i];
		uint64_t n = grown(e, exact_before);
		if (n)
			add_value(h, e->key[0], n, size, is_signed);
	}
	if (exact_now->dropped > exact_before->dropped)
		*dropped += exact_now->dropped - exact_before->dropped;
}

bool fieldhist_bins_ok(const struct hist_bins *b)
{
	static int buckets = -1;
	if (b->kind == HIST_LOG2 || (b->kind == HIST_POWER && b->shift))
		return true;
	if (b->kind != HIST_LINEAR)
		return false; /* a power that is not of 2: no kernel bins it */
	if (buckets < 0) {
		char *readme = tracefs_instance_file_read(NULL, "README", NULL);
		buckets = readme && strstr(readme, ".buckets");
		free(readme);
	}
	return buckets;
}

int fieldhist_linear_filter(char *buf, size_t len, const char *field, int size, bool is_signed,
			    uint64_t width, enum fieldhist_part part)
{
	uint64_t top = width * HIST_LINEAR_SLOTS, max = is_signed ? (1ULL << (size * 8 - 1)) - 1 :
							size == 8 ? UINT64_MAX :
								    (1ULL << (size * 8)) - 1;
	bool over = top <= max; /* can a value be beyond the slots of width? */
	int n = 0;
	if (part == FIELDHIST_BELOW) {
		if (!is_signed)
			return 0;
		n = snprintf(buf, len, "%s < 0", field);
	} else if (part == FIELDHIST_BEYOND) {
		if (!over)
			return 0;
		n = snprintf(buf, len, "%s >= %llu", field, (unsigned long long)top);
	} else if (is_signed && over) {
		n = snprintf(buf, len, "%s >= 0 && %s < %llu", field, field,
			     (unsigned long long)top);
	} else if (is_signed || over) {
		n = snprintf(buf, len, "%s %s %llu", field, is_signed ? ">=" : "<",
			     (unsigned long long)(is_signed ? 0 : top));
	} else if (len) {
		*buf = 0; /* every value is in a slot */
	}
	return n < 0 || (size_t)n >= len ? -1 : 1;
}

void fieldhist_add_linear(struct hist_log2 *h, uint64_t width, const struct histtable *slots_now,
			  const struct histtable *slots_before, const struct histtable *beyond_now,
			  const struct histtable *beyond_before, const struct histtable *below_now,
			  const struct histtable *below_before)
{
	const struct histtable *now[3] = {slots_now, beyond_now, below_now},
			       *before[3] = {slots_before, beyond_before, below_before};
	for (int p = 0; p < 3; p++)
		for (size_t i = 0; now[p] && i < now[p]->n; i++) {
			const struct histtable_entry *e = &now[p]->e[i];
			uint64_t n = grown(e, before[p]);
			if (!n)
				continue;
			if (p == FIELDHIST_BELOW)
				h->neg += n;
			else if (p == FIELDHIST_BEYOND || e->key[0] / width >= HIST_LINEAR_SLOTS)
				h->slot[HIST_LINEAR_SLOTS] += n;
			else
				h->slot[e->key[0] / width] += n;
			h->total += n;
		}
}

/* The trigger of part p on event i (base: the run's and the user's filter), into buf: 1, or
 * 0 when the event needs none of that part, -1 when it does not fit. */
static int trigger_text(char *buf, size_t len, const struct fieldhist *kh, int i, const char *base,
			int p)
{
	char filter[TRIGGER_MAX];
	int have = 1;
	if (kh->bins.kind != HIST_LINEAR)
		have = fieldhist_filter(filter, sizeof(filter), kh->field, kh->ev[i].size,
					kh->ev[i].is_signed, p == FIELDHIST_EXACT) ?
			       -1 :
			       1;
	else
		have = fieldhist_linear_filter(filter, sizeof(filter), kh->field, kh->ev[i].size,
					       kh->ev[i].is_signed, kh->bins.n, p);
	if (have <= 0)
		return have;
	if (p == FIELDHIST_SLOTS && kh->bins.kind == HIST_LINEAR && !*filter && !*base)
		return snprintf(buf, len, "%svals=hitcount", kh->which[p]) < (int)len ? 1 : -1;
	int n = snprintf(buf, len, "%svals=hitcount if %s%s%s%s%s", kh->which[p], *base ? "(" : "",
			 base, *base ? ")" : "", *base && *filter ? " && " : "", filter);
	return n > 0 && (size_t)n < len ? 1 : -1;
}

/* Remove the triggers written on events before upto, and upto's before part upto_p. */
static void remove_triggers(struct fieldhist *kh, const char *base, int upto, int upto_p)
{
	char text[TRIGGER_MAX + 1];
	text[0] = '!';
	for (int i = 0; i <= upto && i < kh->nevents; i++)
		for (int p = 0; p < kh->nparts; p++) {
			if (i == upto && p >= upto_p)
				break;
			if (trigger_text(text + 1, sizeof(text) - 1, kh, i, base, p) == 1)
				tracefs_event_file_append(kh->s->inst, kh->events[i]->system,
							  kh->events[i]->name, "trigger", text);
		}
}

int fieldhist_start(struct fieldhist *kh, struct session *s, struct tep_event **events, int nevents,
		    const char *field, const struct hist_bins *bins, const char *filter, char *why,
		    size_t whylen)
{
	memset(kh, 0, sizeof(*kh));
	kh->s = s;
	kh->events = events;
	kh->nevents = nevents;
	kh->field = field;
	kh->bins = *bins;
	if (bins->kind == HIST_LINEAR) {
		kh->nparts = 3;
		snprintf(kh->which[FIELDHIST_SLOTS], sizeof(kh->which[0]),
			 "hist:keys=%s.buckets=%llu:", field, (unsigned long long)bins->n);
		snprintf(kh->which[FIELDHIST_BEYOND], sizeof(kh->which[0]),
			 "hist:keys=%s.log2:", field);
		snprintf(kh->which[FIELDHIST_BELOW], sizeof(kh->which[0]),
			 "hist:keys=common_type:");
	} else {
		kh->nparts = 2;
		snprintf(kh->which[FIELDHIST_LOG2], sizeof(kh->which[0]),
			 "hist:keys=%s.log2:", field);
		snprintf(kh->which[FIELDHIST_EXACT], sizeof(kh->which[0]), "hist:keys=%s:", field);
	}
	if (!(kh->ev = calloc((size_t)nevents, sizeof(*kh->ev)))) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	/* the text as remove_triggers writes it, '!' first, fits a write */
	char base[TRIGGER_MAX], text[TRIGGER_MAX];
	if (session_filter(s, base, sizeof(base), filter, NULL)) {
		snprintf(why, whylen, "the filter is too long for a trigger");
		return -1;
	}
	for (int i = 0; i < nevents; i++) {
		const struct tep_format_field *f = tep_find_field(events[i], field);
		if (!f) {
			snprintf(why, whylen, "%s:%s has no field %s", events[i]->system,
				 events[i]->name, field);
			remove_triggers(kh, base, i, 0);
			return -1;
		}
		kh->ev[i].size = f->size;
		kh->ev[i].is_signed = f->flags & TEP_FIELD_IS_SIGNED;
		for (int p = 0; p < kh->nparts; p++) {
			int have = trigger_text(text, sizeof(text), kh, i, base, p);
			if (have < 0) {
				snprintf(why, whylen, "the filter is too long for a trigger");
				remove_triggers(kh, base, i, p);
				return -1;
			}
			kh->ev[i].has[p] = have;
			if (have &&
			    tracefs_event_file_append(s->inst, events[i]->system, events[i]->name,
						      "trigger", text) < 0) {
				snprintf(why, whylen, "the kernel refused the trigger on %s:%s: %s",
					 events[i]->system, events[i]->name, strerror(errno));
				remove_triggers(kh, base, i, p);
				return -1;
			}
		}
	}
	return 0;
}

int fieldhist_read(struct fieldhist *kh, struct hist_log2 *h, char *why, size_t whylen)
{
	for (int i = 0; i < kh->nevents; i++) {
		struct histtable now[FIELDHIST_PARTS] = {{0}};
		struct fieldhist_event *e = &kh->ev[i];
		/* An event counted between two reads is in one table: this interval's or the
		 * next, in its own slot either way. */
		for (int p = kh->nparts - 1; p >= 0; p--) {
			if (e->has[p] && histtable_read(kh->s->inst, kh->events[i], kh->which[p], 1,
							&now[p], why, whylen)) {
				for (int q = 0; q < kh->nparts; q++)
					histtable_free(&now[q]);
				return -1;
			}
		}
		if (kh->bins.kind == HIST_LINEAR) {
			fieldhist_add_linear(h, kh->bins.n, &now[0], &e->tab[0], &now[1],
					     &e->tab[1], &now[2], &e->tab[2]);
			/* (none can fill by their filters; were one to, it is said all the same) */
			for (int p = 0; p < kh->nparts; p++)
				if (now[p].dropped > e->tab[p].dropped)
					kh->dropped += now[p].dropped - e->tab[p].dropped;
		} else {
			struct hist_log2 log2;
			hist_log2_reset(&log2);
			fieldhist_add(&log2, &now[FIELDHIST_LOG2], &e->tab[FIELDHIST_LOG2],
				      &now[FIELDHIST_EXACT], &e->tab[FIELDHIST_EXACT], e->size,
				      e->is_signed, &kh->dropped);
			hist_bins_from_log2(h, &kh->bins, &log2);
		}
		for (int p = 0; p < kh->nparts; p++) {
			histtable_free(&e->tab[p]);
			e->tab[p] = now[p];
		}
	}
	return 0;
}

void fieldhist_free(struct fieldhist *kh)
{
	for (int i = 0; kh->ev && i < kh->nevents; i++)
		for (int p = 0; p < FIELDHIST_PARTS; p++)
			histtable_free(&kh->ev[i].tab[p]);
	free(kh->ev);
	kh->ev = NULL;
}

/* The trigger text on every event; when one refuses it, removed from those before (why
 * says which and the kernel's reason), -1. */
static int write_each(struct session *s, struct tep_event **events, int nevents, const char *text,
		      char *why, size_t whylen)
{
	for (int i = 0; i < nevents; i++) {
		if (tracefs_event_file_append(s->inst, events[i]->system, events[i]->name,
					      "trigger", text) >= 0)
			continue;
		snprintf(why, whylen, "the kernel refused the trigger on %s:%s: %s",
			 events[i]->system, events[i]->name, strerror(errno));
		size_t len = strlen(text) + 2;
		char *rm = malloc(len);
		for (int j = 0; rm && j < i; j++) {
			snprintf(rm, len, "!%s", text);
			tracefs_event_file_append(s->inst, events[j]->system, events[j]->name,
						  "trigger", rm);
		}
		free(rm);
		return -1;
	}
	return 0;
}

#define COUNT_TRIGGER "hist:keys=common_type:vals=hitcount"

int kerncount_start(struct kerncount *kc, struct session *s, struct tep_event **events, int nevents,
		    const char *filter, char *why, size_t whylen)
{
	memset(kc, 0, sizeof(*kc));
	kc->s = s;
	kc->events = events;
	kc->nevents = nevents;
	char base[TRIGGER_MAX], text[TRIGGER_MAX + 64];
	if (!(kc->seen = calloc((size_t)nevents, sizeof(*kc->seen)))) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	if (session_filter(s, base, sizeof(base), filter, NULL)) {
		snprintf(why, whylen, "the filter is too long for a trigger");
		return -1;
	}
	snprintf(text, sizeof(text), "%s%s%s", COUNT_TRIGGER, *base ? " if " : "", base);
	return write_each(s, events, nevents, text, why, whylen);
}

int kerncount_read(struct kerncount *kc, uint64_t *counts, char *why, size_t whylen)
{
	for (int i = 0; i < kc->nevents; i++) {
		struct histtable h = {0};
		if (histtable_read(kc->s->inst, kc->events[i], COUNT_TRIGGER, 1, &h, why, whylen)) {
			histtable_free(&h);
			return -1;
		}
		/* Hits are the events counted in an entry, Dropped those with none free. */
		uint64_t now = h.hits + h.dropped;
		counts[i] += now > kc->seen[i] ? now - kc->seen[i] : 0;
		kc->seen[i] = now;
		histtable_free(&h);
	}
	return 0;
}

void kerncount_free(struct kerncount *kc)
{
	free(kc->seen);
	kc->seen = NULL;
}

int kernkeys_start(struct kernkeys *kk, struct session *s, struct tep_event **events, int nevents,
		   const char *const *fields, int nkeys, const char *filter, char *why,
		   size_t whylen)
{
	memset(kk, 0, sizeof(*kk));
	kk->s = s;
	kk->events = events;
	kk->nevents = nevents;
	kk->nkeys = nkeys;
	if (nkeys < 1 || nkeys > HISTTABLE_KEYS) {
		snprintf(why, whylen, "%d keys: the kernel's table is read for 1 to %d", nkeys,
			 HISTTABLE_KEYS);
		return -1;
	}
	int n = snprintf(kk->which, sizeof(kk->which), "hist:keys=");
	for (int j = 0; j < nkeys && n < (int)sizeof(kk->which); j++)
		n += snprintf(kk->which + n, sizeof(kk->which) - (size_t)n, "%s%s", j ? "," : "",
			      fields[j]);
	if (n < (int)sizeof(kk->which))
		n += snprintf(kk->which + n, sizeof(kk->which) - (size_t)n, ":vals=hitcount");
	char base[TRIGGER_MAX], text[TRIGGER_MAX + 300];
	if (n >= (int)sizeof(kk->which) || session_filter(s, base, sizeof(base), filter, NULL)) {
		snprintf(why, whylen, "the keys or the filter are too long for a trigger");
		return -1;
	}
	if (!(kk->seen = calloc((size_t)nevents, sizeof(*kk->seen)))) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	snprintf(text, sizeof(text), "%s%s%s", kk->which, *base ? " if " : "", base);
	for (int i = 0; i < nevents; i++)
		kk->seen[i].nkeys = nkeys;
	return write_each(s, events, nevents, text, why, whylen);
}

int kernkeys_read(struct kernkeys *kk,
		  void (*fn)(int idx, const uint64_t *key, uint64_t n, void *ctx), void *ctx,
		  char *why, size_t whylen)
{
	for (int i = 0; i < kk->nevents; i++) {
		struct histtable now = {0};
		if (histtable_read(kk->s->inst, kk->events[i], kk->which, kk->nkeys, &now, why,
				   whylen)) {
			histtable_free(&now);
			return -1;
		}
		for (size_t e = 0; e < now.n; e++) {
			const struct histtable_entry *b =
				histtable_find(&kk->seen[i], now.e[e].key);
			uint64_t before = b ? b->hits : 0;
			if (now.e[e].hits > before)
				fn(i, now.e[e].key, now.e[e].hits - before, ctx);
		}
		if (now.dropped > kk->seen[i].dropped)
			kk->dropped += now.dropped - kk->seen[i].dropped;
		histtable_free(&kk->seen[i]);
		kk->seen[i] = now;
	}
	return 0;
}

void kernkeys_free(struct kernkeys *kk)
{
	for (int i = 0; kk->seen && i < kk->nevents; i++)
		histtable_free(&kk->seen[i]);
	free(kk->seen);
	kk->seen = NULL;
}
