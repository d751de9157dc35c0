#include "tracer.h"
#include "agg.h"
#include "comm.h"
#include "hist.h"
#include "opt.h"
#include "out.h"
#include "pair.h"
#include "reader.h"
#include "session.h"
#include "sig.h"
#include "usym.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

const struct option tracer_longopts[] = {
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{"json", no_argument, NULL, 'j'},
	{"hist", required_argument, NULL, TRACER_OPT_HIST},
	{NULL, 0, NULL, 0},
};

const char tracer_usage[] =
	"   -c          count events per second instead of printing each (with -k or --hist:\n"
	"               print them every second, not only at the end)\n"
	"   -k KEY[,KEY...]  count by fields of the event (pid, comm, any field of its\n"
	"               format), top first, printed at the end\n"
	"   --hist FIELD  log2 histogram of a numeric field, printed at the end (with -k:\n"
	"               one per key)\n"
	"   -d SECS     trace for this many seconds, then exit\n"
	"   -H          print a header row\n"
	"   -j, --json  one JSON object per event, with every field of its format\n"
	"   -L TID      only this thread\n"
	"   -n NAME     only processes whose name matches (glob)\n"
	"   -p PID      only this process (all its threads, also new ones)\n"
	"   -s          kernel stack trace of each event\n"
	"   -U          user-space stack trace of each event (walked by frame pointers)\n"
	"   -T          TIME column: wall-clock time HH:MM:SS\n"
	"   -v          print the format of the event(s) and exit\n"
	"   -h, --help  this usage\n"
	"   -V, --version  the version\n";

bool tracer_parse_opt(struct tracer_opts *o, int c, const char *arg)
{
	switch (c) {
	case 'c':
		o->count = true;
		return true;
	case 'd':
		o->duration = opt_seconds(arg, "duration");
		return true;
	case 'H':
		o->header = true;
		return true;
	case 'k':
		o->keys = arg;
		return true;
	case TRACER_OPT_HIST:
		o->hist = arg;
		return true;
	case 'j':
		o->json = true;
		return true;
	case 'L':
		o->tid = (pid_t)opt_int(arg, 1, 1 << 30, "TID");
		return true;
	case 'n':
		if (strpbrk(arg, "\"\\\n"))
			opt_fail("invalid NAME: '%s' (no quotes or backslashes)", arg);
		o->name = arg;
		return true;
	case 'p':
		o->pid = opt_live_pid(arg);
		return true;
	case 's':
		o->stack = true;
		return true;
	case 'U':
		o->ustack = true;
		return true;
	case 'T':
		o->wallclock = true;
		return true;
	case 'v':
		o->format = true;
		return true;
	}
	return false;
}

void tracer_check_opts(const struct tracer_opts *o)
{
	if (o->pid && o->tid)
		opt_fail("-p and -L exclude each other");
	if ((o->keys || o->hist || o->count) && (o->stack || o->ustack))
		opt_fail("-%c prints every event: not with -c, -k or --hist", o->stack ? 's' : 'U');
}

int tracer_print_formats(struct session *s, struct tep_event **events, int nevents)
{
	for (int i = 0; i < nevents; i++) {
		char *fmt = tracefs_event_file_read(NULL, events[i]->system, events[i]->name,
						    "format", NULL);
		if (!fmt) {
			fprintf(stderr, "%s: cannot read the format of %s:%s\n", s->tool,
				events[i]->system, events[i]->name);
			return 1;
		}
		fputs(fmt, stdout);
		free(fmt);
	}
	return 0;
}

/* --- kernel symbols for -s ------------------------------------------------------------------ */

/* Sorted addresses, and each name's offset in one blob of names: 12 bytes per symbol plus
 * its name, not a malloc'd string each (tpoint -s stayed under 9 MB of memory, bench/). */
struct ksym {
	unsigned long long addr;
	unsigned int name; /* offset in ksym_names */
};
static struct ksym *ksyms;
static size_t nksyms;
static char *ksym_names;

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void ksyms_load(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	if (!f)
		return;
	size_t cap = 0, ncap = 0, nlen = 0;
	char line[512], name[256], type;
	unsigned long long addr;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || !addr)
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		size_t len = strlen(name) + 1;
		if (nksyms == cap || nlen + len > ncap) {
			size_t c = nksyms == cap ? (cap ? cap * 2 : 65536) : cap;
			size_t nc = nlen + len > ncap ? (ncap ? ncap * 2 : 1 << 21) : ncap;
			struct ksym *k = realloc(ksyms, c * sizeof(*ksyms));
			char *n = k ? realloc(ksym_names, nc) : NULL;
			if (k)
				ksyms = k;
			if (!n)
				break;
			ksym_names = n;
			cap = c;
			ncap = nc;
		}
		memcpy(ksym_names + nlen, name, len);
		ksyms[nksyms].addr = addr;
		ksyms[nksyms].name = (unsigned int)nlen;
		nksyms++;
		nlen += len;
	}
	fclose(f);
	qsort(ksyms, nksyms, sizeof(*ksyms), cmp_ksym);
}

static const char *ksym_name(unsigned long long addr, unsigned long long *off)
{
	size_t lo = 0, hi = nksyms;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (ksyms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	*off = addr - ksyms[lo - 1].addr;
	return ksym_names + ksyms[lo - 1].name;
}

/* --- per-event output ------------------------------------------------------------------------ */

static struct {
	const struct tracer_opts *o;
	struct tep_handle *tep;
	struct trace_seq seq;
	struct tep_event *stack_ev, *ustack_ev;
	struct tep_format_field *stack_caller, *ustack_caller, *ustack_tgid;
	int nevents;
	struct tep_event **events;
	uint64_t *counts;
	struct comm_table *names;
	int ticks; /* tables printed by -c so far */
} t;

static void print_stack(struct tep_record *rec)
{
	struct tep_format_field *f = t.stack_caller;
	if (!f)
		return;
	/* caller[] fills the rest of the record (its declared size is a minimum). */
	int n = (rec->size - f->offset) / 8;
	if (t.o->json)
		printf(",\"stack\":[");
	for (int i = 0; i < n; i++) {
		unsigned long long addr, off = 0;
		memcpy(&addr, (char *)rec->data + f->offset + i * 8, 8);
		if (!addr || addr == ~0ULL)
			break;
		const char *name = ksym_name(addr, &off);
		if (t.o->json) {
			printf("%s\"", i ? "," : "");
			if (name)
				printf("%s+0x%llx", name, off);
			else
				printf("0x%llx", addr);
			putchar('"');
		} else if (name) {
			printf(" => %s+0x%llx\n", name, off);
		} else {
			printf(" => 0x%llx\n", addr);
		}
	}
	if (t.o->json)
		putchar(']');
}

/* -U: the user stack the kernel recorded after the event (at most 8 frames, walked by
 * frame pointers), each address named from the process's maps and ELF symbols. */
static void print_ustack(struct tep_record *rec)
{
	struct tep_format_field *f = t.ustack_caller;
	int tgid = (int)reader_num(rec, t.ustack_tgid);
	int n = (f->offset + f->size <= rec->size ? f->size : rec->size - f->offset) / 8;
	char buf[PATH_MAX + 160];
	if (t.o->json)
		printf(",\"ustack\":[");
	else
		puts(" <user stack>"); /* after a kernel stack (-s), where one ends */
	for (int i = 0; i < n; i++) {
		unsigned long long addr;
		memcpy(&addr, (char *)rec->data + f->offset + i * 8, 8);
		if (!addr || addr == ~0ULL)
			break;
		usym_addr(tgid, addr, buf, sizeof(buf));
		if (t.o->json) {
			if (i)
				putchar(',');
			out_json_str(stdout, buf, sizeof(buf));
		} else {
			printf(" => %s\n", buf);
		}
	}
	if (t.o->json)
		putchar(']');
}

/* The stacks recorded right after the event on its CPU (reader_trailer). */
static void print_stacks(struct tep_record *rec)
{
	const struct reader_trailers *tr = reader_record_trailers(rec);
	for (int i = 0; tr && i < tr->n; i++) {
		if (t.stack_ev && tr->id[i] == t.stack_ev->id)
			print_stack(tr->rec[i]);
		else if (t.ustack_ev && tr->id[i] == t.ustack_ev->id)
			print_ustack(tr->rec[i]);
	}
}

static void json_field(struct tep_record *rec, struct tep_format_field *f, bool first)
{
	const char *data = rec->data;
	printf("%s\"%s\":", first ? "" : ",", f->name);
	if ((f->flags & TEP_FIELD_IS_DYNAMIC) ||
	    ((f->flags & TEP_FIELD_IS_ARRAY) && (f->flags & TEP_FIELD_IS_STRING || f->elementsize == 1))) {
		size_t len;
		const char *str = reader_str(rec, f, &len);
		out_json_str(stdout, str, len);
		return;
	}
	if (f->flags & TEP_FIELD_IS_ARRAY) {
		int es = f->elementsize ? f->elementsize : 1;
		putchar('[');
		for (int i = 0; i < f->size / es; i++)
			printf("%s%llu", i ? "," : "",
			       tep_read_number(t.tep, data + f->offset + i * es, es));
		putchar(']');
		return;
	}
	if (f->flags & TEP_FIELD_IS_SIGNED)
		printf("%lld", reader_num(rec, f));
	else
		printf("%llu", (unsigned long long)reader_num(rec, f));
}

/* --- aggregation: -k and --hist ------------------------------------------------------------- */

#define MAX_KEYS 4
#define KEY_STR 32 /* bytes kept of a string key */

enum key_kind { KEY_PID, KEY_COMM, KEY_FIELD };

static struct {
	bool on;
	int nkeys;
	struct {
		const char *name;
		enum key_kind kind;
		bool str;
		size_t off, size; /* where in the key */
		struct tep_format_field *f[TRACER_MAX_EVENTS]; /* per event; comm: NULL = lookup */
	} k[MAX_KEYS];
	size_t keysize;
	struct agg agg;
	struct tep_format_field *hf[TRACER_MAX_EVENTS]; /* --hist */
	struct hist_log2 h;
	char keybuf[4 + MAX_KEYS * KEY_STR];
} ag;

static bool field_is_str(const struct tep_format_field *f)
{
	return (f->flags & TEP_FIELD_IS_DYNAMIC) || (f->flags & TEP_FIELD_IS_STRING) ||
	       ((f->flags & TEP_FIELD_IS_ARRAY) && f->elementsize == 1);
}

/* Resolve -k and --hist against the events' formats; 2 (usage) with a message if one is
 * missing or of the wrong kind. */
static int agg_setup(struct session *s, struct tep_event **events, int nevents,
		     const struct tracer_opts *o)
{
	static char list[512];
	memset(&ag, 0, sizeof(ag));
	if (o->hist) {
		for (int i = 0; i < nevents; i++) {
			struct tep_format_field *f = tep_find_field(events[i], o->hist);
			if (!f || field_is_str(f) || (f->flags & TEP_FIELD_IS_ARRAY)) {
				fprintf(stderr, "%s: --hist %s: %s:%s has no numeric field '%s' (-v shows the fields)\n",
					s->tool, o->hist, events[i]->system, events[i]->name, o->hist);
				return 2;
			}
			ag.hf[i] = f;
		}
		ag.on = true;
	}
	if (!o->keys)
		return 0;
	snprintf(list, sizeof(list), "%s", o->keys);
	ag.keysize = 4; /* the event's index */
	char *save = NULL;
	for (char *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		if (ag.nkeys == MAX_KEYS) {
			fprintf(stderr, "%s: -k: at most %d keys\n", s->tool, MAX_KEYS);
			return 2;
		}
		typeof(ag.k[0]) *k = &ag.k[ag.nkeys++];
		k->name = name;
		k->kind = !strcmp(name, "pid") || !strcmp(name, "common_pid") ? KEY_PID :
			  !strcmp(name, "comm") ? KEY_COMM : KEY_FIELD;
		k->str = k->kind == KEY_COMM;
		for (int i = 0; i < nevents && k->kind != KEY_PID; i++) {
			struct tep_format_field *f = tep_find_field(events[i], name);
			if (k->kind == KEY_FIELD &&
			    (!f || ((f->flags & TEP_FIELD_IS_ARRAY) && !field_is_str(f)))) {
				fprintf(stderr, "%s: -k %s: %s:%s has no field '%s' usable as a key (-v shows the fields)\n",
					s->tool, name, events[i]->system, events[i]->name, name);
				return 2;
			}
			if (f && field_is_str(f))
				k->str = true;
			k->f[i] = f;
		}
		k->off = ag.keysize;
		k->size = k->str ? KEY_STR : 8;
		ag.keysize += k->size;
	}
	if (!ag.nkeys) {
		fprintf(stderr, "%s: -k: no key given\n", s->tool);
		return 2;
	}
	if (agg_init(&ag.agg, ag.keysize, o->hist ? sizeof(struct hist_log2) : 0))
		return 1;
	ag.on = true;
	return 0;
}

static bool keys_need_comm(void)
{
	for (int j = 0; j < ag.nkeys; j++)
		if (ag.k[j].kind == KEY_COMM && !ag.k[j].f[0])
			return true;
	return false;
}

/* --hist: a signed field's negative values (errors returned) get a row of their own. */
static void hist_add(struct hist_log2 *h, struct tep_record *rec, int idx)
{
	long long v = reader_num(rec, ag.hf[idx]);
	if (ag.hf[idx]->flags & TEP_FIELD_IS_SIGNED)
		hist_log2_add_signed(h, v);
	else
		hist_log2_add(h, (uint64_t)v);
}

static void agg_event(struct tep_record *rec, int idx)
{
	if (t.o->hist && !ag.nkeys) {
		hist_add(&ag.h, rec, idx);
		return;
	}
	char *key = ag.keybuf;
	memset(key, 0, ag.keysize);
	memcpy(key, &idx, 4);
	for (int j = 0; j < ag.nkeys; j++) {
		char *dst = key + ag.k[j].off;
		struct tep_format_field *f = ag.k[j].f[idx];
		if (ag.k[j].kind == KEY_PID) {
			uint64_t pid = (uint64_t)tep_data_pid(t.tep, rec);
			memcpy(dst, &pid, 8);
		} else if (f && ag.k[j].str) {
			size_t len;
			const char *str = reader_str(rec, f, &len);
			len = strnlen(str, len);
			memcpy(dst, str, len < KEY_STR ? len : KEY_STR);
		} else if (f) {
			uint64_t v = (uint64_t)reader_num(rec, f);
			memcpy(dst, &v, 8);
		} else { /* comm of an event without one */
			strncpy(dst, comm_get(t.names, tep_data_pid(t.tep, rec)), KEY_STR);
		}
	}
	struct hist_log2 *h = agg_add(&ag.agg, key, 1);
	if (!h)
		sig_request_stop(); /* out of memory: end with what was counted */
	else if (t.o->hist)
		hist_add(h, rec, idx);
}

/* A numeric key as the field is typed: pid and signed fields signed (ret=-2, not 2^64-2). */
static void print_key_num(const char *key, int j, int idx, const char *fmt_s, const char *fmt_u)
{
	uint64_t v;
	memcpy(&v, key + ag.k[j].off, 8);
	if (ag.k[j].kind == KEY_PID || (ag.k[j].f[idx]->flags & TEP_FIELD_IS_SIGNED))
		printf(fmt_s, (long long)v);
	else
		printf(fmt_u, (unsigned long long)v);
}

/* One key: a row of the count table, or with --hist the key's histogram under its name. */
static void print_key_row(const void *keyp, uint64_t count, const void *val, void *ctx)
{
	const char *key = keyp;
	const char *when = ctx;
	int idx;
	memcpy(&idx, key, 4);
	struct tep_event *ev = t.events[idx];
	if (t.o->json) {
		printf("{\"time\":\"%s\",\"event\":\"%s:%s\",\"keys\":{", when, ev->system, ev->name);
		for (int j = 0; j < ag.nkeys; j++) {
			printf("%s\"%s\":", j ? "," : "", ag.k[j].name);
			if (ag.k[j].str)
				out_json_str(stdout, key + ag.k[j].off, KEY_STR);
			else
				print_key_num(key, j, idx, "%lld", "%llu");
		}
		printf("},\"count\":%llu", (unsigned long long)count);
		if (t.o->hist) {
			printf(",\"field\":\"%s\",\"hist\":", t.o->hist);
			hist_log2_json(stdout, val);
		}
		printf("}\n");
		return;
	}
	if (t.o->hist) { /* "[event ]key=value key=value:", then the histogram */
		if (t.nevents > 1)
			printf("%s ", ev->name);
		for (int j = 0; j < ag.nkeys; j++) {
			printf("%s%s=", j ? " " : "", ag.k[j].name);
			if (ag.k[j].str)
				out_text(stdout, key + ag.k[j].off, KEY_STR, 0);
			else
				print_key_num(key, j, idx, "%lld", "%llu");
		}
		printf(":\n");
		hist_log2_print(stdout, val, t.o->hist, "count");
		return;
	}
	if (t.nevents > 1)
		printf("%-32s ", ev->name);
	for (int j = 0; j < ag.nkeys; j++) {
		if (ag.k[j].str) {
			out_text(stdout, key + ag.k[j].off, KEY_STR, 16);
			putchar(' ');
		} else {
			print_key_num(key, j, idx, "%12lld ", "%12llu ");
		}
	}
	printf("%12llu\n", (unsigned long long)count);
}

static int print_aggs(uint64_t now, void *ctx)
{
	(void)ctx;
	t.ticks++;
	char when[16];
	out_wallclock(now, when);
	if (t.o->hist && !ag.nkeys) {
		if (t.o->json) {
			printf("{\"time\":\"%s\",\"field\":\"%s\",\"hist\":", when, t.o->hist);
			hist_log2_json(stdout, &ag.h);
			printf("}\n");
		} else {
			printf("\n%s\n", when);
			hist_log2_print(stdout, &ag.h, t.o->hist, "count");
		}
		hist_log2_reset(&ag.h);
		return 0;
	}
	if (!t.o->json)
		printf("\n%s\n", when);
	if (!t.o->json && !t.o->hist) {
		if (t.nevents > 1)
			printf("%-32s ", "EVENT");
		for (int j = 0; j < ag.nkeys; j++)
			printf(ag.k[j].str ? "%-16s " : "%12s ", ag.k[j].name);
		printf("%12s\n", "COUNT");
	}
	agg_sorted(&ag.agg, print_key_row, when);
	agg_reset(&ag.agg);
	return 0;
}

static void on_event(struct tep_record *rec, void *ctx)
{
	int idx = (int)(intptr_t)ctx;
	if (ag.on) {
		agg_event(rec, idx);
		return;
	}
	if (t.o->count) {
		t.counts[idx]++;
		return;
	}
	struct tep_event *ev = t.events[idx];
	int pid = tep_data_pid(t.tep, rec);
	const char *comm = comm_get(t.names, pid);
	char when[16];
	if (t.o->json) {
		printf("{\"time\":\"%s\",\"ts\":%.6f,\"cpu\":%d,\"pid\":%d,\"comm\":",
		       out_wallclock(rec->ts, when), rec->ts / 1e9, rec->cpu, pid);
		out_json_str(stdout, comm, 16);
		printf(",\"event\":\"%s:%s\",\"fields\":{", ev->system, ev->name);
		for (struct tep_format_field *f = ev->format.fields; f; f = f->next)
			json_field(rec, f, f == ev->format.fields);
		putchar('}');
		print_stacks(rec);
		printf("}\n");
		return;
	}
	if (t.o->wallclock)
		printf("%-8s ", out_wallclock(rec->ts, when));
	printf("%16s-%-7d [%03d] %6llu.%06llu: %s: ", comm, pid, rec->cpu,
	       rec->ts / 1000000000ULL, (rec->ts / 1000) % 1000000ULL, ev->name);
	trace_seq_reset(&t.seq);
	tep_print_event(t.tep, &t.seq, rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&t.seq);
	fwrite(t.seq.buffer, 1, t.seq.len, stdout);
	putchar('\n');
	print_stacks(rec);
}

static bool counted_since_tick(void)
{
	if (ag.on)
		return ag.nkeys ? ag.agg.used > 0 : ag.h.total > 0;
	for (int i = 0; i < t.nevents; i++)
		if (t.counts[i])
			return true;
	return false;
}

static int print_counts(uint64_t now, void *ctx)
{
	(void)ctx;
	t.ticks++;
	char when[16];
	out_wallclock(now, when);
	if (!t.o->json)
		printf("\n%s\n%-40s %12s\n", when, "EVENT", "COUNT");
	for (int i = 0; i < t.nevents; i++) {
		char name[160];
		snprintf(name, sizeof(name), "%s:%s", t.events[i]->system, t.events[i]->name);
		if (t.o->json)
			printf("{\"time\":\"%s\",\"event\":\"%s\",\"count\":%llu}\n", when, name,
			       (unsigned long long)t.counts[i]);
		else
			printf("%-40s %12llu\n", name, (unsigned long long)t.counts[i]);
		t.counts[i] = 0;
	}
	return 0;
}

/* Syscall tracepoints and uprobes fire only in process context (see session_exclude_self). */
static bool process_context_only(const struct session *s, struct tep_event **events, int n)
{
	for (int i = 0; i < n; i++)
		if (!probe_is_uprobe(s, events[i]) && strcmp(events[i]->system, "syscalls"))
			return false;
	return true;
}

/* A filter the kernel rejects: show why (the filter file holds the parse error). */
static int enable_filtered(struct session *s, struct tep_event *ev, const char *filter,
			   const char *user)
{
	if (*filter && tracefs_event_file_write(s->inst, ev->system, ev->name, "filter", filter) < 0) {
		char *why = tracefs_event_file_read(s->inst, ev->system, ev->name, "filter", NULL);
		fprintf(stderr, "%s: the kernel rejected the filter '%s' on %s:%s%s\n", s->tool,
			user ? user : filter, ev->system, ev->name, why && *why ? "; it says:" : "");
		if (why && *why) /* the filter, a caret under the fault, and the reason */
			fputs(why, stderr);
		free(why);
		return 2;
	}
	return session_enable(s, ev, NULL) ? 1 : 0;
}

int tracer_run(struct session *s, struct tep_event **events, int nevents, const char *filter,
	       const char *what, const struct tracer_opts *o)
{
	memset(&t, 0, sizeof(t));
	t.o = o;
	t.tep = s->tep;
	t.events = events;
	t.nevents = nevents;
	t.counts = calloc(nevents, sizeof(*t.counts));
	trace_seq_init(&t.seq);
	struct reader r;
	int ret = 1;
	if (!t.counts)
		goto out;
	if ((ret = agg_setup(s, events, nevents, o)))
		goto out;
	ret = 1;
	s->keep_clock = o->count || o->keys || o->hist;
	if (s->inst == NULL && session_start(s, session_flood_buffer_kb()))
		goto out;
	if (session_set_pids(s, o->pid, o->tid) ||
	    (process_context_only(s, events, nevents) && session_exclude_self(s)))
		goto out;
	char full[4096];
	if (session_filter(s, full, sizeof(full), filter, o->name)) {
		fprintf(stderr, "%s: filter too long\n", s->tool);
		ret = 2;
		goto out;
	}
	if (o->stack) {
		t.stack_ev = tep_find_event_by_name(s->tep, "ftrace", "kernel_stack");
		t.stack_caller = t.stack_ev ? tep_find_field(t.stack_ev, "caller") : NULL;
		if (!t.stack_caller) {
			fprintf(stderr, "%s: no ftrace:kernel_stack event for -s (CONFIG_STACKTRACE)\n",
				s->tool);
			goto out;
		}
		ksyms_load();
		if (tracefs_option_enable(s->inst, TRACEFS_OPTION_STACKTRACE)) {
			fprintf(stderr, "%s: cannot enable stack traces: %s\n", s->tool,
				strerror(errno));
			goto out;
		}
	}
	if (o->ustack) {
		t.ustack_ev = tep_find_event_by_name(s->tep, "ftrace", "user_stack");
		t.ustack_caller = t.ustack_ev ? tep_find_field(t.ustack_ev, "caller") : NULL;
		t.ustack_tgid = t.ustack_ev ? tep_find_field(t.ustack_ev, "tgid") : NULL;
		if (!t.ustack_caller || !t.ustack_tgid ||
		    !tracefs_option_is_supported(s->inst, TRACEFS_OPTION_USERSTACKTRACE)) {
			fprintf(stderr, "%s: no user stack traces in this kernel for -U (CONFIG_USER_STACKTRACE_SUPPORT)\n",
				s->tool);
			goto out;
		}
		if (tracefs_option_enable(s->inst, TRACEFS_OPTION_USERSTACKTRACE)) {
			fprintf(stderr, "%s: cannot enable user stack traces: %s\n", s->tool,
				strerror(errno));
			goto out;
		}
	}
	/* After the options: an event enabled before stacktrace was on has no stack. */
	for (int i = 0; i < nevents; i++)
		if ((ret = enable_filtered(s, events[i], full, filter)))
			goto out;
	ret = 1;
	bool counting = o->count || ag.on;
	for (int i = 0; i < nevents && !o->json && !counting; i++)
		if (events[i]->print_fmt.format && strstr(events[i]->print_fmt.format, "%p")) {
			session_load_symbols(s);
			break;
		}
	/* Counts need no time order across CPUs: each CPU's buffer is read as it comes. */
	/* Names are needed when printed or counted by: followed in time order then. */
	bool names = !counting || (ag.on && keys_need_comm());
	if (names && !(t.names = comm_follow(s)))
		goto out;
	if (reader_open_session(&r, s, !counting || names))
		goto out;
	if (t.names && comm_attach(t.names, &r))
		goto out;
	for (int i = 0; i < nevents; i++)
		if (reader_on(&r, events[i], on_event, (void *)(intptr_t)i))
			goto toomany;
	if ((t.stack_ev && reader_trailer(&r, t.stack_ev)) ||
	    (t.ustack_ev && reader_trailer(&r, t.ustack_ev)))
		goto toomany;

	out_init();
	out_clock_init();
	fprintf(stderr, "%s %s. Ctrl-C to end.\n", counting ? "Counting" : "Tracing", what);
	if (o->header && !o->json && !counting)
		printf("%s%16s-%-7s [%s] %13s  %s\n", o->wallclock ? "TIME     " : "", "COMM", "PID",
		       "CPU", "TIMESTAMP", "EVENT: FIELDS");
	reader_tick_fn tick = ag.on ? print_aggs : print_counts;
	ret = reader_run(&r, o->duration, o->count ? 1000000000ULL : 0, o->count ? tick : NULL,
			 NULL, out_flush) ? 1 : 0;
	/* The partial last interval; not an empty one when -d ended right on a tick. */
	if (counting && !out_closed() && (!t.ticks || counted_since_tick()))
		tick(reader_now(), NULL);
	out_flush();
	goto out;
toomany:
	fprintf(stderr, "%s: too many events at once (at most %d)\n", s->tool, TRACER_MAX_EVENTS);
out:
	trace_seq_destroy(&t.seq);
	comm_free(t.names);
	usym_addr_free();
	free(t.counts);
	agg_free(&ag.agg);
	ag.on = false;
	return ret;
}

int tracer_probe(const char *tool, enum probe_kind kind, const struct probe_def *pd,
		 const char *target, const char *filter, const struct tracer_opts *o)
{
	static const char *const systems[] = {"ftrace", NULL};
	struct session s = {0};
	int ret = 1;
	char alias[64];
	if (*pd->alias)
		snprintf(alias, sizeof(alias), "%s", pd->alias);
	else
		probe_default_alias(pd->target, pd->type, alias, sizeof(alias));
	/* Signals are caught before the probe exists, so no Ctrl-C can strand it. */
	if (session_init(&s, tool, systems))
		goto out;
	s.keep_clock = o->count || o->keys || o->hist;
	if (!probe_available(&s, kind, false) || session_start(&s, session_flood_buffer_kb()))
		goto out;
	struct tep_event *ev = probe_create(&s, kind, pd->type, alias, target, pd->args);
	if (!ev) {
		ret = 2; /* the kernel said why: a definition it does not accept */
		goto out;
	}
	char what[700];
	snprintf(what, sizeof(what), "%s:%s (%s)", ev->system, ev->name, pd->target);
	if (o->format)
		ret = tracer_print_formats(&s, &ev, 1);
	else
		ret = tracer_run(&s, &ev, 1, filter, what, o);
out:
	session_close(&s);
	return ret;
}
