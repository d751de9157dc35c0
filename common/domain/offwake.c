// SPDX-License-Identifier: GPL-2.0-only
#include "domain/offwake.h"
#include "domain/schedev.h"
#include "join/span.h"
#include "stream/ksym.h"
#include "kernel/session.h"
#include "stream/comm.h"
#include "stream/reader.h"
#include "base/opt.h"
#include "base/out.h"
#include "count/pprof.h"
#include "tool.h"

#include <event-parse.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>

void offwake_trailers_init(struct offwake_trailers *tr, struct tep_event *kev,
			   struct tep_event *uev, const struct ksyms *ksyms, const char *top)
{
	memset(tr, 0, sizeof(*tr));
	tr->kev = kev;
	tr->uev = uev;
	tr->kcaller = kev ? tep_find_field(kev, "caller") : NULL;
	tr->ucaller = uev ? tep_find_field(uev, "caller") : NULL;
	tr->ksyms = ksyms;
	tr->top = top;
}

/* The first of st's 8 innermost kernel frames in function top (ksyms' names), or -1. */
static int top_by_name(const struct ksyms *ksyms, const char *top, const struct offwake_stack *st)
{
	for (int i = 0; ksyms && top && i < st->nk && i < 8; i++) {
		unsigned long long off;
		const char *name = ksym_find(ksyms, st->k[i], &off);
		if (name && !strcmp(name, top))
			return i;
	}
	return -1;
}

void offwake_stack_trim(struct offwake_trailers *tr, struct offwake_stack *st)
{
	if (!tr->ksyms || !tr->top)
		return;
	int top = -1;
	for (int i = 0; i < st->nk && i < 8 && top < 0; i++)
		for (int j = 0; j < 4 && tr->top_ret[j]; j++)
			if (st->k[i] == tr->top_ret[j])
				top = i;
	if (top < 0 && (top = top_by_name(tr->ksyms, tr->top, st)) >= 0)
		for (int j = 0; j < 4; j++)
			if (!tr->top_ret[j]) {
				tr->top_ret[j] = st->k[top];
				break;
			}
	if (top > 0) {
		memmove(st->k, st->k + top, (size_t)(st->nk - top) * sizeof(*st->k));
		st->nk = (int16_t)(st->nk - top);
	}
}

void offwake_stack_read(struct offwake_trailers *tr, const struct tep_record *rec,
			struct offwake_stack *st)
{
	const struct reader_trailers *t = reader_record_trailers(rec);
	for (int i = 0; t && i < t->n; i++) {
		if (tr->kev && t->id[i] == tr->kev->id) {
			st->nk = (int16_t)folded_frames(t->rec[i], tr->kcaller, true, st->k,
							FOLDED_KFRAMES);
			offwake_stack_trim(tr, st);
		} else if (tr->uev && t->id[i] == tr->uev->id)
			st->nu = (int16_t)folded_frames(t->rec[i], tr->ucaller, false, st->u,
							FOLDED_UFRAMES);
	}
}

/* Under -p, -L (schedev.h) and --cgroup the kernel also records the switches and wake-ups
 * between the run's tasks and others: the others' are not the run's. A lookup per event
 * under --cgroup (the answers are kept), nothing more without. */
static bool traced(const struct sched_events *se, long long tid)
{
	return sched_traced(se, tid) && (!se->t || tool_in_cgroup(se->t, (pid_t)tid));
}

long long offwake_switch(struct sched_events *se, struct span *s, struct tep_record *rec,
			 bool end_next)
{
	long long prev = reader_num(rec, se->prev_pid), next = reader_num(rec, se->next_pid);
	size_t len = 0;
	const char *comm = reader_str(rec, se->next_comm, &len);
	/* A switch not recorded: the task that left unseen has no start (its switch in is not
	 * counted); prev was switched in unseen: its time off the CPU before ended unseen. */
	if (sched_chain_step(&se->chain, rec->cpu, prev, next, comm, len) >= 0 && prev > 0)
		span_drop(s, (uint64_t)prev, 0);
	/* the idle task tells how this kernel encodes the states (schedev.h) */
	if (prev == 0)
		sched_idle_switch(se, reader_num(rec, se->prev_state));
	/* under -p the other tasks of the switches recorded are not the run's */
	if (next > 0 && traced(se, next)) {
		if (end_next)
			span_end(s, rec, (uint64_t)next, 0, rec->ts);
		else
			span_drop(s, (uint64_t)next, 0);
	}
	return prev > 0 && traced(se, prev) ? prev : -1;
}

/* --- sums by pair ----------------------------------------------------------------------- */

struct sum {
	uint64_t ns;
	/* "A\0B\0": the pair's names without their kernel frames, named when the pair is first
	 * seen, while its processes have their maps; NULL once the line is made */
	char *users;
	char *line; /* the pair's line, made at its first print (kernel frames named then) */
};

int offwake_sums_init(struct offwake_sums *w, const struct ksyms *ksyms, bool reverse_b,
		      const char *top_a, const char *top_b)
{
	memset(w, 0, sizeof(*w));
	w->ksyms = ksyms;
	w->reverse_b = reverse_b;
	w->top[0] = top_a;
	w->top[1] = top_b;
	return agg_init(&w->a, sizeof(w->key), sizeof(struct sum));
}

/* The key's copy of a stack: only what was recorded, the rest zero (equal stacks, equal
 * keys). */
static void key_stack(struct offwake_stack *d, const struct offwake_stack *s)
{
	memset(d, 0, sizeof(*d));
	if (!s)
		return;
	memcpy(d->comm, s->comm, sizeof(d->comm));
	d->tgid = s->tgid;
	d->nk = s->nk < 0 ? 0 : s->nk > FOLDED_KFRAMES ? FOLDED_KFRAMES : s->nk;
	d->nu = s->nu < 0 ? 0 : s->nu > FOLDED_UFRAMES ? FOLDED_UFRAMES : s->nu;
	memcpy(d->k, s->k, (size_t)d->nk * sizeof(*d->k));
	memcpy(d->u, s->u, (size_t)d->nu * sizeof(*d->u));
}

/* "a;b;c" as "c;b;a", in place. */
static void reverse_segments(char *s)
{
	size_t n = strlen(s);
	char *t = malloc(n + 1);
	if (!t)
		return;
	size_t o = 0;
	for (char *end = s + n; end > s;) {
		char *semi = end;
		while (semi > s && semi[-1] != ';')
			semi--;
		if (o)
			t[o++] = ';';
		memcpy(t + o, semi, (size_t)(end - semi));
		o += (size_t)(end - semi);
		end = semi > s ? semi - 1 : s;
	}
	t[o] = 0;
	memcpy(s, t, o + 1);
	free(t);
}

/* The pair in w's key without their kernel frames: "A\0B\0", malloc'd; NULL: out of memory. */
static char *name_users(const struct offwake_sums *w)
{
	const struct offwake_stack *a = &w->key[0], *b = &w->key[1];
	char *na = folded_name(NULL, a->comm, a->tgid, NULL, 0, a->u, a->nu);
	char *nb = folded_name(NULL, b->comm, b->tgid, NULL, 0, b->u, b->nu);
	char *users = NULL;
	size_t la = na ? strlen(na) + 1 : 0, lb = nb ? strlen(nb) + 1 : 0;
	if (na && nb && (users = malloc(la + lb))) {
		memcpy(users, na, la);
		memcpy(users + la, nb, lb);
	}
	free(na);
	free(nb);
	return users;
}

/* The kernel frames of st named (";f_[k]" each, root first) after the frames above top (the
 * tracepoint's and ftrace's) are cut, when top is among the first 8. NULL: out of memory. */
static char *name_kernel(const struct ksyms *ksyms, const char *top, const struct offwake_stack *st)
{
	int from = top_by_name(ksyms, top, st);
	if (from < 0)
		from = 0;
	/* a comm of "" names nothing: the text is the frames alone */
	return folded_name(ksyms, "", 0, st->k + from, st->nk - from, NULL, 0);
}

/* The line of the pair key (2 stacks) whose other names are users (name_users'), kernel
 * frames named now. NULL: out of memory. */
static char *name_pair(const struct offwake_sums *w, const struct offwake_stack *key,
		       const char *users)
{
	const char *ua = users, *ub = users + strlen(users) + 1;
	char *ka = name_kernel(w->ksyms, w->top[0], &key[0]);
	char *kb = name_kernel(w->ksyms, w->top[1], &key[1]);
	char *line = NULL, *nb = NULL;
	size_t la = strlen(ua), lb = strlen(ub);
	if (ka && kb && (nb = malloc(lb + strlen(kb) + 1)) &&
	    (line = malloc(la + strlen(ka) + lb + strlen(kb) + 5))) {
		strcpy(nb, ub);
		strcat(nb, kb);
		if (w->reverse_b)
			reverse_segments(nb);
		strcpy(line, ua);
		strcat(line, ka);
		strcat(line, ";--;");
		strcat(line, nb);
	}
	free(ka);
	free(kb);
	free(nb);
	return line;
}

int offwake_add(struct offwake_sums *w, const struct offwake_stack *a,
		const struct offwake_stack *b, uint64_t ns)
{
	key_stack(&w->key[0], a);
	key_stack(&w->key[1], b);
	struct sum *v = agg_add(&w->a, w->key, 1);
	if (!v)
		return -1;
	v->ns += ns;
	if (!v->line && !v->users && !(v->users = name_users(w)))
		return -1;
	return 0;
}

struct visit {
	const struct offwake_sums *w;
	struct sum *s;
	uint64_t *count;
	size_t n;
};

static void collect(const void *key, uint64_t count, const void *val, void *ctx)
{
	struct visit *v = ctx;
	struct sum *s = (struct sum *)val; /* the table's own value: its line made now */
	if (!s->line && s->users && (s->line = name_pair(v->w, key, s->users))) {
		free(s->users);
		s->users = NULL;
	}
	if (s->line) {
		v->s[v->n] = *s;
		v->count[v->n++] = count;
	}
}

struct merged {
	const char *line;
	uint64_t count, ns;
};

static int by_line(const void *a, const void *b)
{
	return strcmp(((const struct merged *)a)->line, ((const struct merged *)b)->line);
}

static int by_time(const void *a, const void *b)
{
	const struct merged *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	return strcmp(x->line, y->line);
}

size_t offwake_visit(struct offwake_sums *w,
		     void (*fn)(const char *line, uint64_t count, uint64_t ns, void *ctx),
		     void *ctx)
{
	size_t cap = w->a.used ? w->a.used : 1;
	struct visit v = {w, calloc(cap, sizeof(*v.s)), calloc(cap, sizeof(*v.count)), 0};
	struct merged *m = calloc(cap, sizeof(*m));
	size_t n = 0;
	if (v.s && v.count && m) {
		agg_sorted(&w->a, collect, &v);
		for (size_t i = 0; i < v.n; i++)
			m[i] = (struct merged){v.s[i].line, v.count[i], v.s[i].ns};
		qsort(m, v.n, sizeof(*m), by_line);
		/* Pairs that differ only in offsets or processes are one line. */
		for (size_t i = 0; i < v.n; i++) {
			if (n && !strcmp(m[n - 1].line, m[i].line)) {
				m[n - 1].count += m[i].count;
				m[n - 1].ns += m[i].ns;
			} else
				m[n++] = m[i];
		}
		qsort(m, n, sizeof(*m), by_time);
		for (size_t i = 0; i < n; i++)
			fn(m[i].line, m[i].count, m[i].ns, ctx);
	}
	free(v.s);
	free(v.count);
	free(m);
	return n;
}

static void free_line(const void *key, uint64_t count, const void *val, void *ctx)
{
	(void)key, (void)count, (void)ctx;
	free(((const struct sum *)val)->line);
	free(((const struct sum *)val)->users);
}

void offwake_reset(struct offwake_sums *w)
{
	agg_sorted(&w->a, free_line, NULL);
	agg_reset(&w->a);
}

void offwake_sums_free(struct offwake_sums *w)
{
	if (!w->a.slots)
		return;
	agg_sorted(&w->a, free_line, NULL);
	agg_free(&w->a);
	memset(&w->a, 0, sizeof(w->a));
}

/* --- the frames of a visited line ------------------------------------------------------------ */

void offwake_frames(const char *s, size_t len, bool leaf_first, bool kernel,
		    void (*fn)(const char *f, size_t n, void *ctx), void *ctx)
{
	const char *end = s + len;
	if (leaf_first) { /* f1;f2;...;name */
		for (const char *b = s; b < end;) {
			const char *e = memchr(b, ';', (size_t)(end - b));
			if (!e) /* the name */
				break;
			size_t l = (size_t)(e - b);
			bool k = l > 4 && !strncmp(b + l - 4, "_[k]", 4);
			if (k == kernel)
				fn(b, k ? l - 4 : l, ctx);
			b = e + 1;
		}
		return;
	}
	for (const char *e = end; e > s;) { /* name;root;...;leaf */
		const char *b = e;
		while (b > s && b[-1] != ';')
			b--;
		if (b == s) /* the name */
			break;
		size_t l = (size_t)(e - b);
		bool k = l > 4 && !strncmp(b + l - 4, "_[k]", 4);
		if (k == kernel)
			fn(b, k ? l - 4 : l, ctx);
		e = b - 1;
	}
}

struct json_frames {
	FILE *out;
	bool any;
};

static void json_frame(const char *f, size_t n, void *ctx)
{
	struct json_frames *j = ctx;
	char buf[1024];
	if (n >= sizeof(buf) / 4)
		n = sizeof(buf) / 4 - 1;
	size_t l = folded_unescape(f, n, buf);
	fputs(j->any ? "," : "", j->out);
	out_json_bytes(j->out, buf, l);
	j->any = true;
}

void offwake_json_frames(FILE *out, const char *s, size_t len, bool leaf_first, bool kernel)
{
	struct json_frames j = {out, false};
	fputc('[', out);
	offwake_frames(s, len, leaf_first, kernel, json_frame, &j);
	fputc(']', out);
}

/* --- wake-ups -------------------------------------------------------------------------------- */

int offwake_waking_load(struct session *s, struct offwake_waking *w)
{
	memset(w, 0, sizeof(*w));
	if (!(w->ev = session_load_event(s, "sched", "sched_waking"))) {
		fprintf(stderr, "%s: no sched:sched_waking in this kernel (Linux 4.3)\n", s->tool);
		return -1;
	}
	if (!(w->pid = session_field(s, w->ev, "pid", true)) ||
	    !(w->comm = session_field(s, w->ev, "comm", true)))
		return -1;
	return 0;
}

long long offwake_woken(struct sched_events *se, struct span *sp, const struct offwake_waking *w,
			struct tep_record *rec)
{
	long long tid = reader_num(rec, w->pid);
	int pid = tep_data_pid(se->t->s.tep, rec);
	if (sched_chain_seen(&se->chain, rec->cpu, tid, pid) >= 0)
		span_drop(sp, (uint64_t)tid, 0);
	return tid > 0 && traced(se, tid) ? tid : -1;
}

enum tool_code offwake_trace(struct tool_run *t, struct sched_events *se,
			     const struct offwake_waking *w, struct span *s, size_t data,
			     span_done_fn done,
			     void (*on_switch)(struct tep_record *rec, void *ctx),
			     void (*on_waking)(struct tep_record *rec, void *ctx))
{
	se->chain.off = t->o.pid || t->o.tid || t->cgroup;
	se->t = t;
	if (span_init_run(t, s, 4096, data, SPAN_LOSS_ALL, done, NULL) ||
	    reader_on_lost(&t->r, sched_chain_lost, &se->chain) ||
	    session_enable(&t->s, w->ev, NULL) || session_enable(&t->s, se->sw, NULL) ||
	    reader_on(&t->r, w->ev, on_waking, NULL) || reader_on(&t->r, se->sw, on_switch, NULL))
		return TOOL_FAIL;
	return TOOL_OK;
}

void offwake_waker(struct tool_run *t, struct offwake_trailers *tr, const struct tep_record *rec,
		   struct offwake_stack *st)
{
	int pid = tep_data_pid(t->s.tep, (struct tep_record *)rec);
	struct comm_task info;
	snprintf(st->comm, sizeof(st->comm), "%s", tool_comm(t, pid));
	st->tgid = t->names && comm_task(t->names, pid, &info) == 0 ? info.tgid : pid;
	st->nk = st->nu = 0;
	offwake_stack_read(tr, rec, st);
}

/* --- the output of wakeuptime and offwaketime ----------------------------------------------- */

void offwake_output_check(const struct offwake_output *o, bool json, uint64_t interval)
{
	if (o->folded && json)
		opt_fail("--folded prints folded lines: not with -j");
	if (o->max_ns && o->min_ns > o->max_ns)
		opt_fail("-m %llu is more than -M %llu", (unsigned long long)(o->min_ns / 1000),
			 (unsigned long long)(o->max_ns / 1000));
	if (o->pprof && interval)
		opt_fail("--pprof writes one profile of the run: not with an interval");
}

bool offwake_output_keeps(struct offwake_output *o, uint64_t ns)
{
	if (ns >= o->min_ns && (!o->max_ns || ns <= o->max_ns))
		return true;
	o->left_out++;
	return false;
}

void offwake_output_start(struct offwake_output *o)
{
	struct timespec w;
	clock_gettime(CLOCK_REALTIME, &w);
	o->start_wall = (uint64_t)w.tv_sec * 1000000000ULL + (uint64_t)w.tv_nsec;
	o->start_mono = reader_now();
}

static void fold_line(const char *line, uint64_t count, uint64_t ns, void *ctx)
{
	fprintf(ctx, "%s %llu\n", line, (unsigned long long)(ns / 1000));
}

struct shown {
	struct offwake_output *o;
	void *ctx;
};

/* A reader gone (| head): nothing more is written (each write would be a SIGPIPE, a second
 * stop). Flushed per line: a line's text at most once a write. */
static void show_line(const char *line, uint64_t count, uint64_t ns, void *ctx)
{
	struct shown *s = ctx;
	if (out_closed() || out_flush())
		return;
	if (s->o->folded)
		fold_line(line, count, ns, stdout);
	else
		s->o->fn(line, count, ns, s->ctx);
}

/* The name of a stack of a line (one side of ";--;", len bytes), unescaped into buf: the
 * first frame, or the last (leaf_first). */
static void side_name(const char *s, size_t len, bool leaf_first, char *buf)
{
	const char *n = s, *e = s + len;
	if (leaf_first) {
		for (const char *p = s; p < e; p++)
			if (*p == ';')
				n = p + 1;
	} else {
		const char *semi = memchr(s, ';', len);
		e = semi ? semi : e;
	}
	size_t l = (size_t)(e - n);
	buf[folded_unescape(n, l < 64 ? l : 64, buf)] = 0;
}

struct prom_add {
	struct offwake_output *o;
	bool leaf_first;
};

/* --prom: a line's time and count under its two names. */
static void prom_line(const char *line, uint64_t count, uint64_t ns, void *ctx)
{
	struct prom_add *pa = ctx;
	const char *sep = strstr(line, ";--;");
	if (!sep)
		return;
	char a[4 * 64 + 1], b[4 * 64 + 1], labels[1024];
	side_name(line, (size_t)(sep - line), false, a);
	side_name(sep + 4, strlen(sep + 4), pa->leaf_first, b);
	struct prom_series *ps =
		prom_series(&pa->o->prom, prom_labels(labels, sizeof(labels), pa->o->label_a, a,
						      pa->o->label_b, b, NULL));
	if (!ps) {
		pa->o->prom_lost++;
		return;
	}
	ps->count += count;
	ps->sum += ns;
}

static void prom_write(struct offwake_output *o, struct tool_run *t)
{
	struct prom_add pa = {o, o->sums.reverse_b};
	offwake_visit(&o->sums, prom_line, &pa);
	struct prom *p = tool_prom(t);
	if (!p)
		return;
	char secs[96], count[96];
	snprintf(secs, sizeof(secs), "ftrace_tools_%s_blocked_seconds_total", t->tool->name);
	snprintf(count, sizeof(count), "ftrace_tools_%s_wakeups_total", t->tool->name);
	prom_family(p, secs, "counter",
		    "Time blocked, by the blocked task's and its waker's names.");
	for (size_t i = 0; i < o->prom.n; i++)
		prom_scaled(p, secs, o->prom.s[i]->labels, o->prom.s[i]->sum, PROM_NS);
	prom_family(p, count, "counter", "Wake-ups that ended a time blocked, by the same names.");
	for (size_t i = 0; i < o->prom.n; i++)
		prom_uint(p, count, o->prom.s[i]->labels, o->prom.s[i]->count);
	prom_commit(p);
	prom_say_lost(&o->prom_lost, t->tool->name, "lines");
}

void offwake_output_free(struct offwake_output *o)
{
	offwake_sums_free(&o->sums);
	prom_set_free(&o->prom);
}

int offwake_output_print(struct offwake_output *o, struct tool_run *t, uint64_t now,
			 const char *none)
{
	int ret = 0;
	if (t->o.interval && !t->o.json && !o->folded) {
		char when[16];
		printf("%s\n", out_wallclock(now, when));
	}
	if (o->pprof) {
		char *buf = NULL;
		size_t size = 0;
		FILE *mem = open_memstream(&buf, &size);
		if (mem) {
			offwake_visit(&o->sums, fold_line, mem);
			fclose(mem);
		}
		if (!mem || pprof_write_folded(o->pprof, buf, size, "blocked", 1, o->start_wall,
					       o->start_mono ? now - o->start_mono : 0)) {
			fprintf(stderr, "%s: cannot write %s: %s\n", t->tool->name, o->pprof,
				strerror(errno));
			ret = -1;
		}
		free(buf);
	}
	if (t->prom)
		prom_write(o, t);
	struct shown s = {o, NULL};
	if (!offwake_visit(&o->sums, show_line, &s) && !t->o.json && !o->folded)
		out_none(stdout, none);
	offwake_reset(&o->sums);
	return ret;
}
