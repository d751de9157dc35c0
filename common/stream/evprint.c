// SPDX-License-Identifier: GPL-2.0-only
#include "stream/evprint.h"
#include "stream/folded.h"
#include "stream/field.h"
#include "stream/ksym.h"
#include "base/out.h"
#include "stream/printfmt.h"
#include "stream/reader.h"
#include "base/row.h"
#include "base/runid.h"
#include "kernel/strpieces.h"
#include "stream/usym.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

/* The fields of one event, described once (field_describe reads the print format). */
struct evfields {
	int n;
	struct tep_format_field **f;
	struct field_desc *d;
	int need;	       /* bytes a record needs for its fixed fields */
	char name[160];	       /* SYSTEM:NAME */
	struct printfmt *plan; /* its text without libtraceevent's printer, or NULL */
	char **jkey;	       /* -j: each field's ',"NAME":' (no comma for the first) */
	size_t *jkeylen;
	char jevent[6 * 160 + 2]; /* -j: the event's name as a JSON string */
	size_t jeventlen;
	size_t namelen;	 /* of the event's own name */
	uint64_t pieced; /* fields (of the first 64) that are a probe's string read in pieces */
};

/* JSON: one object per event (its fields under "fields", as the format names them), then
 * its stacks as members. */
static const struct row_col event_cols[] = {
	ROW_COL_TS,
	ROW_COL_WALL,
	{NULL, "cpu", 0, ROW_INT, 0, 0, "the CPU the event was recorded on"},
	{NULL, "pid", 0, ROW_INT, 0, 0, "the thread it happened in"},
	{NULL, "comm", 0, ROW_STR, 0, 0, "its name then, exact"},
	{NULL, "event", 0, ROW_STR, 0, 0, "the event, SYSTEM:NAME"},
	{NULL, "fields", 0, ROW_JSON, 0, 0,
	 "an object: every field of the event's format by its name, numbers as numbers, strings "
	 "exact, arrays as arrays"},
};
const struct row_table evprint_event_keys = ROW_TABLE("each event", event_cols);
static const struct row_col kstack_cols[] = {
	{NULL, "stack", 0, ROW_JSON, 0, ROW_NOTEXT,
	 "-s: the kernel stack, innermost first, each frame \"function+0xOFFSET\" (an address "
	 "where no symbol is known); absent without -s"},
};
const struct row_table evprint_kstack_keys = ROW_TABLE("kernel stacks", kstack_cols);
static const struct row_col ustack_cols[] = {
	{NULL, "ustack", 0, ROW_JSON, 0, ROW_NOTEXT,
	 "-U: the user stack, innermost first, each frame named from the process's maps; "
	 "absent without -U or when none was recorded"},
};
const struct row_table evprint_ustack_keys = ROW_TABLE("user stacks", ustack_cols);

struct evprint {
	struct tep_handle *tep;
	struct row row; /* JSON's objects */
	bool json, wallclock;
	struct trace_seq seq;
	struct tep_event *kstack, *ustack;
	struct tep_format_field *kcaller, *ucaller, *utgid;
	struct ksyms *ksyms;
	const char *const *kskip; /* frames through the first of these are left out */
	struct kfrom { /* events whose stacks start at their caller (kstack_from_caller) */
		int id;
		const struct tep_format_field *at, *caller;
	} * kfrom;
	int nkfrom;
	struct evfields *by_id; /* indexed by event id */
	int nids;
	unsigned long long events, ustacks; /* printed, and with a user stack */
};

bool evprint_json_by_row;

struct evprint *evprint_new(struct tep_handle *tep, bool json, bool wallclock)
{
	struct evprint *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->tep = tep;
	p->json = json;
	p->wallclock = wallclock;
	if (json)
		row_init(&p->row, &evprint_event_keys, stdout, true, true, true);
	trace_seq_init(&p->seq);
	return p;
}

static struct evfields *fields_of(struct evprint *p, struct tep_event *ev);

int evprint_name(struct evprint *p, struct tep_event *ev, const char *name)
{
	struct evfields *e = fields_of(p, ev);
	if (!e)
		return -1;
	snprintf(e->name, sizeof(e->name), "%s", name);
	if (p->json)
		e->jeventlen =
			out_json_bytes_buf(e->jevent, e->name, strnlen(e->name, sizeof(e->name)));
	return 0;
}

void evprint_stacks(struct evprint *p, struct tep_event *kstack, struct ksyms *ksyms,
		    struct tep_event *ustack)
{
	p->kstack = kstack;
	p->ksyms = ksyms;
	p->kcaller = kstack ? tep_find_field(kstack, "caller") : NULL;
	p->ustack = ustack;
	p->ucaller = ustack ? tep_find_field(ustack, "caller") : NULL;
	p->utgid = ustack ? tep_find_field(ustack, "tgid") : NULL;
}

static struct evfields *fields_of(struct evprint *p, struct tep_event *ev)
{
	if (ev->id >= p->nids) {
		int n = ev->id + 64;
		struct evfields *more = realloc(p->by_id, (size_t)n * sizeof(*more));
		if (!more)
			return NULL;
		memset(more + p->nids, 0, (size_t)(n - p->nids) * sizeof(*more));
		p->by_id = more;
		p->nids = n;
	}
	struct evfields *e = &p->by_id[ev->id];
	if (e->f)
		return e;
	e->n = 0;
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next)
		e->n++;
	e->f = calloc((size_t)e->n + 1, sizeof(*e->f));
	e->d = calloc((size_t)e->n + 1, sizeof(*e->d));
	if (!e->f || !e->d) {
		free(e->f);
		free(e->d);
		e->f = NULL;
		return NULL;
	}
	int i = 0;
	e->need = 0;
	snprintf(e->name, sizeof(e->name), "%s:%s", ev->system, ev->name);
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next, i++) {
		e->f[i] = f;
		e->d[i] = field_describe(ev, f);
		/* A string of this run's probes is __data_loc unless read in pieces (strpieces.h). */
		if (i < 64 && e->d[i].kind == FIELD_STRING && !(f->flags & TEP_FIELD_IS_DYNAMIC) &&
		    !strncmp(ev->system, RUNID_GROUP_PREFIX, strlen(RUNID_GROUP_PREFIX)))
			e->pieced |= 1ULL << i;
		if (f->offset + f->size > e->need)
			e->need = f->offset + f->size;
	}
	e->namelen = strlen(ev->name);
	if (!p->json)
		e->plan = printfmt_compile(p->tep, ev);
	else if ((e->jkey = calloc((size_t)e->n + 1, sizeof(*e->jkey))) &&
		 (e->jkeylen = calloc((size_t)e->n + 1, sizeof(*e->jkeylen)))) {
		for (i = 0; i < e->n; i++) {
			size_t len = strlen(e->f[i]->name) + 5;
			if ((e->jkey[i] = malloc(len)))
				e->jkeylen[i] = (size_t)snprintf(
					e->jkey[i], len, "%s\"%s\":", i ? "," : "", e->f[i]->name);
		}
		e->jeventlen =
			out_json_bytes_buf(e->jevent, e->name, strnlen(e->name, sizeof(e->name)));
	}
	return e;
}

/*
 * Does rec hold every field its format names, each dynamic one where it says, each string
 * with its NUL? The print format (libtraceevent) reads them unchecked; the kernel's records
 * always fit, one that does not (fuzz_format made some) is shown field by field, from what
 * it holds.
 */
static bool fits(const struct evfields *e, const struct tep_record *rec)
{
	if (rec->size < e->need)
		return false;
	const char *data = rec->data;
	for (int i = 0; i < e->n; i++) {
		const struct tep_format_field *f = e->f[i];
		uint32_t off = (uint32_t)f->offset, n = (uint32_t)f->size;
		if (f->flags & TEP_FIELD_IS_DYNAMIC) {
			uint32_t v;
			if (!reader_fits(rec->size, f->offset, 4))
				return false; /* a format whose __data_loc is not 4 bytes */
			memcpy(&v, data + f->offset, 4);
			off = v & 0xffff, n = v >> 16;
			if (f->flags & TEP_FIELD_IS_RELATIVE)
				off += (uint32_t)(f->offset + f->size);
			if (off + n > (uint32_t)rec->size)
				return false;
		} else if (!reader_fits(rec->size, f->offset, f->size)) {
			return false;
		}
		/* A string is printed up to its NUL, which must be in it. */
		if (e->d[i].kind == FIELD_STRING && !memchr(data + off, 0, n))
			return false;
	}
	return true;
}

/* Is field i of rec a string read in pieces that was longer than was read? */
static bool cut(const struct evfields *e, int i, const struct tep_record *rec)
{
	size_t len;
	if (i >= 64 || !(e->pieced >> i & 1))
		return false;
	const char *s = reader_str(rec, e->f[i], &len);
	return strpieces_cut(e->f[i], s, len);
}

static bool any_cut(const struct evfields *e, const struct tep_record *rec)
{
	for (int i = 0; e->pieced && i < e->n && i < 64; i++)
		if (cut(e, i, rec))
			return true;
	return false;
}

/* Kernel frames, named from kallsyms. */
void evprint_kstack(struct evprint *p, const unsigned long long *a, int n)
{
	int from = 0;
	for (int i = 0; p->kskip && i < n && !from; i++) {
		unsigned long long off;
		const char *name = ksym_find(p->ksyms, a[i], &off);
		for (int k = 0; name && p->kskip[k] && !from; k++)
			if (!strcmp(name, p->kskip[k]))
				from = i + 1;
	}
	if (p->json)
		fputs(",\"stack\":[", stdout);
	for (int i = from; i < n; i++) {
		unsigned long long off = 0;
		const char *name = ksym_find(p->ksyms, a[i], &off);
		if (p->json)
			fputs(i > from ? ",\"" : "\"", stdout);
		else
			fputs(" => ", stdout);
		if (name)
			printf("%s+0x%llx", name, off);
		else
			printf("0x%llx", a[i]);
		fputs(p->json ? "\"" : "\n", stdout);
	}
	if (p->json)
		putchar(']');
}

int evprint_kstack_callers(const unsigned long long *a, int n, unsigned long long at)
{
	/* The return address of the call into the tracing: at+1 after a kprobe's int3, at+5
	 * after the call to fentry (at: the call's own address), at+9 with an ENDBR64 before
	 * it; a caller's return address so near the function's start is impossible. */
	for (int i = 0; at && i < n && i < 3; i++)
		if (a[i] > at && a[i] - at <= 16)
			return i + 1;
	return 0;
}

int evprint_kstack_caller_first(unsigned long long *a, int n, int from, unsigned long long caller)
{
	/* Only where the function's own frame was found (a stack of its entry), in its place. */
	if (from > 0 && caller && (from == n || a[from] != caller))
		a[--from] = caller;
	return from;
}

/* A kernel stack trailer of event rec: from its caller where the event says where it was
 * taken. */
static void kernel_stack(struct evprint *p, struct tep_record *ev, struct tep_record *rec)
{
	unsigned long long a[512]; /* the kernel keeps 128 with 4 KiB pages */
	int n = folded_frames(rec, p->kcaller, true, a, 512), from = 0;
	for (int i = 0; i < p->nkfrom; i++)
		if (p->kfrom[i].id == tep_data_type(p->tep, ev)) {
			const struct kfrom *k = &p->kfrom[i];
			from = evprint_kstack_callers(a, n,
						      (unsigned long long)reader_num(ev, k->at));
			if (k->caller)
				from = evprint_kstack_caller_first(
					a, n, from, (unsigned long long)reader_num(ev, k->caller));
			break;
		}
	evprint_kstack(p, a + from, n - from);
}

/* User frames (at most 8, walked by frame pointers), named from the process's maps. */
static void user_stack(struct evprint *p, struct tep_record *rec)
{
	int tgid = (int)reader_num(rec, p->utgid);
	unsigned long long a[FOLDED_UFRAMES];
	int n = folded_frames(rec, p->ucaller, false, a, FOLDED_UFRAMES);
	char buf[PATH_MAX + 160];
	if (p->json)
		fputs(",\"ustack\":[", stdout);
	else
		puts(" <user stack>"); /* after a kernel stack (-s), where one ends */
	for (int i = 0; i < n; i++) {
		usym_addr(tgid, a[i], buf, sizeof(buf));
		if (p->json) {
			if (i)
				putchar(',');
			out_json_str(stdout, buf, sizeof(buf));
		} else {
			printf(" => %s\n", buf);
		}
	}
	if (p->json)
		putchar(']');
}

static void stacks(struct evprint *p, struct tep_record *rec)
{
	const struct reader_trailers *tr = reader_record_trailers(rec);
	p->events++;
	for (int i = 0; tr && i < tr->n; i++) {
		if (p->kstack && p->kcaller && tr->id[i] == p->kstack->id)
			kernel_stack(p, rec, tr->rec[i]);
		else if (p->ustack && p->ucaller && p->utgid && tr->id[i] == p->ustack->id) {
			user_stack(p, tr->rec[i]);
			p->ustacks++;
		}
	}
}

void evprint_kstack_after(struct evprint *p, const char *const *names)
{
	p->kskip = names;
}

int evprint_kstack_from_caller(struct evprint *p, const struct tep_event *ev,
			       const struct tep_format_field *at,
			       const struct tep_format_field *caller)
{
	struct kfrom *more = realloc(p->kfrom, (size_t)(p->nkfrom + 1) * sizeof(*more));
	if (!more)
		return -1;
	p->kfrom = more;
	p->kfrom[p->nkfrom++] = (struct kfrom){ev->id, at, caller};
	return 0;
}

void evprint_trailers(struct evprint *p, struct tep_record *rec)
{
	stacks(p, rec);
}

void evprint_say_without_ustack(const char *tool, const char *what, unsigned long long n)
{
	if (n)
		fprintf(stderr,
			"%s: -U: none of the %llu %s shown came with a user stack: this kernel "
			"records none for the run's instance\n",
			tool, n, what);
}

unsigned long long evprint_without_ustack(const struct evprint *p)
{
	return p && p->ustack && !p->ustacks ? p->events : 0;
}

void evprint_header(struct evprint *p)
{
	if (p->json)
		return;
	printf("%s%16s-%-7s [%s] %13s  %s\n", p->wallclock ? "TIME     " : "", "COMM", "PID", "CPU",
	       "TIMESTAMP", "EVENT: FIELDS");
}

/* "%16s-%-7d [%03d] %6llu.%06llu: " of the name (escaped), the thread, the CPU and the time,
 * as the kernel's own text starts a line (the event's name follows), into line (at least
 * EVPRINT_PREFIX_MAX bytes): printf took a fifth of a line's cost in a flood. */
#define EVPRINT_PREFIX_MAX 160
static size_t prefix(char *line, const char *comm, int pid, const struct tep_record *rec)
{
	char name[80], num[24], *end = num + sizeof(num), *d;
	size_t o = 0, len = out_text_buf(name, sizeof(name), comm, 16), n;
	for (; o + len < 16; o++) /* right-aligned in 16 columns */
		line[o] = ' ';
	memcpy(line + o, name, len);
	o += len;
	line[o++] = '-';
	d = out_dec(end, pid);
	memcpy(line + o, d, n = (size_t)(end - d));
	o += n;
	for (; n < 7; n++)
		line[o++] = ' ';
	line[o++] = ' ';
	line[o++] = '[';
	d = out_udec(end, (unsigned int)rec->cpu);
	for (n = (size_t)(end - d); n < 3; n++)
		line[o++] = '0';
	memcpy(line + o, d, (size_t)(end - d));
	o += (size_t)(end - d);
	line[o++] = ']';
	line[o++] = ' ';
	d = out_udec(end, rec->ts / 1000000000ULL);
	for (n = (size_t)(end - d); n < 6; n++)
		line[o++] = ' ';
	memcpy(line + o, d, (size_t)(end - d));
	o += (size_t)(end - d);
	line[o++] = '.';
	d = out_udec(end, (rec->ts / 1000) % 1000000ULL);
	for (n = (size_t)(end - d); n < 6; n++)
		line[o++] = '0';
	memcpy(line + o, d, (size_t)(end - d));
	o += (size_t)(end - d);
	line[o++] = ':';
	line[o++] = ' ';
	return o;
}

/* The prefix and the event's name, of any length, written out (the paths that do not make
 * the line in one buffer). */
static void print_prefix(const char *comm, int pid, const struct tep_record *rec, const char *event)
{
	char line[EVPRINT_PREFIX_MAX];
	fwrite(line, 1, prefix(line, comm, pid, rec), stdout);
	fputs(event, stdout);
	fputs(": ", stdout);
}

/*
 * -j's object for an event without stacks, built in one buffer and written at once: what
 * the row (evprint_event_keys) writes through a dozen stdio calls, byte for byte
 * (test_evprint compares the two). False when a field is of a kind it does not write, or the
 * object does not fit: the row writes it then.
 */
static bool json_line(const struct evfields *e, const struct tep_record *rec, int pid,
		      const char *comm)
{
	static char line[1 << 16];
	char num[24], *end = num + sizeof(num), *d, when[16];
	size_t o = 0, n;
#define PUT(s, len)                           \
	do {                                  \
		if (o + (len) > sizeof(line)) \
			return false;         \
		memcpy(line + o, (s), (len)); \
		o += (len);                   \
	} while (0)
	PUT("{\"ts\":", 6);
	o += out_seconds_buf(line + o, rec->ts);
	PUT(",\"time\":\"", 9);
	out_wallclock(rec->ts, when);
	PUT(when, strlen(when));
	PUT("\",\"cpu\":", 8);
	d = out_dec(end, rec->cpu);
	PUT(d, (size_t)(end - d));
	PUT(",\"pid\":", 7);
	d = out_dec(end, pid);
	PUT(d, (size_t)(end - d));
	PUT(",\"comm\":", 8);
	n = strnlen(comm, 16);
	if (o + 6 * n + 2 > sizeof(line))
		return false;
	o += out_json_bytes_buf(line + o, comm, n);
	PUT(",\"event\":", 9);
	PUT(e->jevent, e->jeventlen);
	PUT(",\"fields\":{", 11);
	for (int i = 0; i < e->n; i++) {
		size_t len;
		const void *data = field_data(rec, e->f[i], &e->d[i], &len);
		if (!e->jkey[i])
			return false;
		PUT(e->jkey[i], e->jkeylen[i]);
		int w = field_json_buf(line + o, sizeof(line) - o, &e->d[i], data, len);
		if (w < 0)
			return false;
		o += (size_t)w;
	}
	PUT("}", 1);
	PUT(row_tags, row_tags_len);
	PUT("}\n", 2);
#undef PUT
	fwrite(line, 1, o, stdout);
	return true;
}

void evprint_event(struct evprint *p, struct tep_record *rec, const char *comm)
{
	struct tep_event *ev = tep_find_event_by_record(p->tep, rec);
	int pid = tep_data_pid(p->tep, rec);
	char when[16];
	if (!ev)
		return;
	if (p->json) {
		struct evfields *e = fields_of(p, ev);
		const struct reader_trailers *tr = reader_record_trailers(rec);
		if (e && e->jkey && e->jkeylen && (!tr || !tr->n) && !evprint_json_by_row &&
		    !any_cut(e, rec) && json_line(e, rec, pid, comm)) {
			p->events++;
			return;
		}
		struct row *w = &p->row;
		row_begin(w, rec->ts);
		row_int(w, rec->cpu);
		row_int(w, pid);
		row_str(w, comm, 16);
		row_str(w, e ? e->name : ev->name, e ? sizeof(e->name) : strlen(ev->name));
		FILE *f = row_json(w);
		putc('{', f);
		for (int i = 0; e && i < e->n; i++) {
			size_t len;
			const void *data = field_data(rec, e->f[i], &e->d[i], &len);
			if (e->jkey && e->jkey[i])
				fputs(e->jkey[i], f);
			else
				fprintf(f, "%s\"%s\":", i ? "," : "", e->f[i]->name);
			field_json(f, &e->d[i], data, len);
			if (cut(e, i, rec)) /* its first bytes only: said beside it */
				fprintf(f, ",\"%s_cut\":true", e->f[i]->name);
		}
		putc('}', f);
		row_end_open(w);
		stacks(p, rec);
		row_close(w);
		return;
	}
	if (p->wallclock)
		printf("%-8s ", out_wallclock(rec->ts, when));
	struct evfields *e = fields_of(p, ev);
	if (e && !fits(e, rec)) {
		print_prefix(comm, pid, rec, ev->name);
		for (int i = 0; i < e->n; i++) {
			size_t len;
			const void *data = field_data(rec, e->f[i], &e->d[i], &len);
			printf("%s%s=", i ? " " : "", e->f[i]->name);
			if (len) /* else not in the record: nothing, not a made-up 0 */
				field_text(stdout, &e->d[i], data, len, 0);
			if (cut(e, i, rec))
				printf(" %s_cut=1", e->f[i]->name);
		}
		putchar('\n');
		stacks(p, rec);
		return;
	}
	/* The whole line in one buffer and one write: the prefix, the text (escaped by the
	 * plan), the newline. */
	char line[EVPRINT_PREFIX_MAX + 256 + 8192 + 1];
	size_t namelen = e ? e->namelen : strlen(ev->name), o = 0;
	int n = -1;
	if (e && e->plan && namelen < 256) {
		o = prefix(line, comm, pid, rec);
		memcpy(line + o, ev->name, namelen);
		o += namelen;
		line[o++] = ':';
		line[o++] = ' ';
		n = printfmt_render(e->plan, rec, line + o, 8192);
	}
	if (n >= 0) {
		o += (size_t)n;
		line[o++] = '\n';
		fwrite(line, 1, o, stdout);
	} else {
		trace_seq_reset(&p->seq);
		tep_print_event(p->tep, &p->seq, rec, "%s", TEP_PRINT_INFO);
		trace_seq_terminate(&p->seq);
		print_prefix(comm, pid, rec, ev->name);
		out_text_line(stdout, p->seq.buffer, p->seq.len);
		putchar('\n');
	}
	stacks(p, rec);
}

void evprint_free(struct evprint *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->nids; i++) {
		free(p->by_id[i].f);
		free(p->by_id[i].d);
		printfmt_free(p->by_id[i].plan);
		for (int k = 0; p->by_id[i].jkey && k < p->by_id[i].n; k++)
			free(p->by_id[i].jkey[k]);
		free(p->by_id[i].jkey);
		free(p->by_id[i].jkeylen);
	}
	free(p->by_id);
	free(p->kfrom);
	trace_seq_destroy(&p->seq);
	free(p);
}
