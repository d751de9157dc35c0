// SPDX-License-Identifier: GPL-2.0-only
/*
 * tcpconnect: each active TCP connect (connect(2), a TCP Fast Open sendto), one line per
 * connection: the process that made it, as it was named then, and both ends. From the state
 * changes of sockets: CLOSE to SYN_SENT happens in the connecting task (its PID and name);
 * the source port is chosen after that change, so the line is written at the socket's next
 * change (ESTABLISHED, or CLOSE when refused or timed out), which has it; attempts still
 * waiting when tracing ends are written then.
 */
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "base/agg.h"
#include "stream/comm.h"
#include "stream/reader.h"
#include "base/row.h"
#include "domain/sock.h"
#include "join/span.h"
#include "tool.h"

static struct env {
	struct sock_ports ports; /* -P */
	bool count;		 /* -c */
	pid_t pid;		 /* -p */
	const char *name;	 /* -n */
	struct tool_run *t;
	struct sock_states st;
	struct span connects; /* by socket address: from SYN_SENT to the next change */
	struct agg counts;    /* -c: by struct count_key */
	struct row row;
	uint64_t shown;
} env;

/* What a connect's start keeps until its source port is known. */
struct attempt {
	int pid, tid;
	char comm[16];
	struct sock_tuple tup;
};

struct count_key {
	int family;
	unsigned char saddr[16], daddr[16];
	uint16_t dport;
};

static const struct row_col cols[] = {
	ROW_COL_TS,
	ROW_COL_WALL,
	{"PID", "pid", 7, ROW_INT, 0, 0, "the process that connected"},
	{NULL, "tid", 0, ROW_INT, 0, ROW_NOTEXT, "its thread"},
	{"COMM", "comm", -16, ROW_STR, 0, 0, "the thread's name when it connected"},
	{"IP", "ip", 2, ROW_INT, 0, 0, "4 or 6 (an IPv6 socket to a v4-mapped address: 4)"},
	{"SADDR", "saddr", -15, ROW_WORD, 0, 0, "the source address"},
	{"SPORT", "sport", 5, ROW_UINT, 0, 0, "the source port (0: none chosen yet)"},
	{"DADDR", "daddr", -15, ROW_WORD, 0, 0, "the destination address"},
	{"DPORT", "dport", 5, ROW_UINT, 0, 0, "the destination port"},
	{NULL, "state", 0, ROW_WORD, 0, ROW_NOTEXT,
	 "what the connect came to: ESTABLISHED, CLOSE (refused, timed out, aborted), or "
	 "SYN_SENT (still waiting when tracing ended)"},
	{NULL, "lat_ms", 0, ROW_FLOAT, 3, ROW_NOTEXT,
	 "from the connect to that outcome, milliseconds (null: still waiting)"},
};
static const struct row_table table = ROW_TABLE("each connect", cols);

static const struct row_col count_cols[] = {
	{"SADDR", "saddr", -15, ROW_WORD, 0, 0, "the source address"},
	{"DADDR", "daddr", -15, ROW_WORD, 0, 0, "the destination address"},
	{"DPORT", "dport", 5, ROW_UINT, 0, 0, "the destination port"},
	{"CONNECTS", "count", 8, ROW_UINT, 0, 0, "connects to it (-c)"},
};
static const struct row_table count_table = ROW_TABLE("each destination, with -c", count_cols);

enum { OPT_PORTS = 'P' };

static const struct opt_spec options[] = {
	{'c', NULL, NULL, "count connects by source, destination and port; print at the end", 0},
	TOOL_DURATION,
	TOOL_JSON("one JSON object per connect (or per destination with -c)"),
	{'n', NULL, "NAME", "only connects by threads whose name matches (glob), as\nit was then",
	 0},
	{'p', NULL, "PID", "only connects by this process", 0},
	{OPT_PORTS, NULL, "PORTS", "only connects to these destination ports (80,443)", 0},
	TOOL_TIMESTAMP,
	TOOL_WALLCLOCK,
	TOOL_JSON_KEYS,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"tcpconnect                # every TCP connect",
	"tcpconnect -t -P 80,443   # connects to ports 80 and 443, with times",
	"tcpconnect -c -d 10       # count connects by destination for 10 seconds",
	"tcpconnect -j -d 5        # 5 seconds as JSON lines",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case 'c': env.count = true; break;
	case 'n': env.name = opt_glob(arg, "NAME"); break;
	case 'p': env.pid = opt_live_pid(arg); break;
	case OPT_PORTS: sock_ports_parse(&env.ports, arg, "PORT"); break;
	}
}

static void print(uint64_t start, const struct attempt *a, const struct sock_tuple *tup,
		  const char *state, double lat_ms)
{
	if (env.count) {
		struct count_key k;
		memset(&k, 0, sizeof(k));
		k.family = tup->family;
		memcpy(k.saddr, tup->saddr, 16);
		memcpy(k.daddr, tup->daddr, 16);
		k.dport = tup->dport;
		agg_add(&env.counts, &k, 1);
		return;
	}
	char s[SOCK_ADDRSTRLEN], d[SOCK_ADDRSTRLEN];
	struct row *r = &env.row;
	row_begin(r, start);
	row_int(r, a->pid);
	row_int(r, a->tid);
	row_str(r, a->comm, sizeof(a->comm));
	row_int(r, tup->family);
	row_word(r, sock_ntop(tup->family, tup->saddr, s, sizeof(s)));
	row_uint(r, tup->sport);
	row_word(r, sock_ntop(tup->family, tup->daddr, d, sizeof(d)));
	row_uint(r, tup->dport);
	row_word(r, state);
	if (lat_ms >= 0)
		row_float(r, lat_ms);
	else
		row_none(r);
	row_end(r);
	env.shown++;
}

/* The connect's outcome: the first change after SYN_SENT, with the port chosen. */
static void on_connect_end(const struct tep_record *end, const struct span_start *start,
			   uint64_t delta, void *data, void *ctx)
{
	struct attempt *a = data;
	struct sock_tuple tup;
	char b[16];
	sock_tuple_read(&env.st.f, end, &tup);
	long long state = reader_num(end, env.st.newstate);
	print(start->ts, a, &tup, sock_state_name(&env.st, state, b, sizeof(b)), delta / 1e6);
}

static void on_state(struct tep_record *rec, void *ctx)
{
	unsigned long long sk = sock_skaddr(&env.st.f, rec);
	long long old = reader_num(rec, env.st.oldstate), new = reader_num(rec, env.st.newstate);
	if (new == env.st.syn_sent) {
		struct tool_run *t = env.t;
		int tid = tep_data_pid(t->s.tep, rec);
		int pid = tool_tgid(t, tid);
		const char *comm = tool_comm(t, tid);
		if ((env.pid && pid != env.pid) || (env.name && fnmatch(env.name, comm, 0))) {
			span_drop(&env.connects, sk, 0);
			return;
		}
		struct attempt *a = span_begin(&env.connects, sk, 0, rec->ts, rec->cpu, 0);
		a->pid = pid;
		a->tid = tid;
		snprintf(a->comm, sizeof(a->comm), "%s", comm);
		sock_tuple_read(&env.st.f, rec, &a->tup);
	} else if (old == env.st.syn_sent) {
		span_end(&env.connects, rec, sk, 0, rec->ts);
	}
}

static enum tool_code prepare(struct tool_run *t)
{
	env.t = t;
	if (sock_states_load(&env.st, &t->s, true)) {
		fprintf(stderr, "tcpconnect: no TCP state-change event in this kernel "
				"(sock:inet_sock_set_state, Linux 4.16; tcp:tcp_set_state in 4.15) "
				"and no kprobes for tcp_set_state (CONFIG_KPROBE_EVENTS)\n");
		return TOOL_FAIL;
	}
	if (env.pid)
		tool_watch(t, env.pid, false);
	if (span_init_run(t, &env.connects, 4096, sizeof(struct attempt), SPAN_LOSS_ALL,
			  on_connect_end, NULL) ||
	    (env.count && agg_init(&env.counts, sizeof(struct count_key), 0)))
		return TOOL_FAIL;
	snprintf(t->traced, sizeof(t->traced), "TCP connects");
	return TOOL_OK;
}

static enum tool_code setup(struct tool_run *t)
{
	char filter[1024], ports[800];
	if (sock_ports_filter(&env.ports, &env.st.f, true, ports, sizeof(ports)))
		return TOOL_FAIL;
	/* Only the changes to and from SYN_SENT reach user space. */
	const char *proto = sock_states_filter(&env.st);
	snprintf(filter, sizeof(filter), "%s%s(newstate == %d || oldstate == %d)%s%s", proto,
		 *proto ? " && " : "", env.st.syn_sent, env.st.syn_sent, *ports ? " && " : "",
		 ports);
	return tool_trace(t, env.st.ev, filter, on_state, NULL);
}

static void header(struct tool_run *t)
{
	if (!env.count)
		row_header(&env.row);
}

/* Attempts still waiting (a destination that does not answer), in the order made. */
struct pending {
	int n, cap;
	struct span_start **s;
};

static bool collect(void *value, void *ctx)
{
	struct pending *p = ctx;
	if (p->n == p->cap) {
		int cap = p->cap ? p->cap * 2 : 64;
		struct span_start **m = realloc(p->s, (size_t)cap * sizeof(*m));
		if (!m)
			return false;
		p->s = m;
		p->cap = cap;
	}
	p->s[p->n++] = value;
	return false;
}

static int by_time(const void *a, const void *b)
{
	const struct span_start *x = *(struct span_start *const *)a,
				*y = *(struct span_start *const *)b;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static void print_count(const void *key, uint64_t count, const void *val, void *ctx)
{
	const struct count_key *k = key;
	char s[SOCK_ADDRSTRLEN], d[SOCK_ADDRSTRLEN];
	row_begin(&env.row, 0);
	row_word(&env.row, sock_ntop(k->family, k->saddr, s, sizeof(s)));
	row_word(&env.row, sock_ntop(k->family, k->daddr, d, sizeof(d)));
	row_uint(&env.row, k->dport);
	row_uint(&env.row, count);
	row_end(&env.row);
}

static void end(struct tool_run *t)
{
	struct pending p = {0};
	pair_del_if(&env.connects.starts, collect, &p);
	if (p.n)
		qsort(p.s, (size_t)p.n, sizeof(*p.s), by_time);
	for (int i = 0; i < p.n; i++) {
		struct attempt *a = span_data(p.s[i]);
		print(p.s[i]->ts, a, &a->tup, "SYN_SENT", -1);
	}
	free(p.s);
	if (env.count) {
		if (!t->o.json)
			row_header(&env.row);
		agg_sorted(&env.counts, print_count, NULL);
	}
	span_report(&env.connects, "tcpconnect", "connect outcomes");
}

static void cleanup(struct tool_run *t)
{
	span_free(&env.connects);
	if (env.count)
		agg_free(&env.counts);
	sock_states_free(&env.st);
}

/* The table of its lines: count_table with count, else table. */
static const struct row_table *table_of(struct tool_run *t)
{
	return env.count ? &count_table : &table;
}

static const struct tool tcpconnect = {
	.name = "tcpconnect",
	.opts = options,
	.examples = examples,
	.formats = (const char *const[]){NULL},
	.rows = (const struct row_table *const[]){&table, &count_table, NULL},
	.option = option,
	.prepare = prepare,
	.setup = setup,
	.header = header,
	.end = end,
	.cleanup = cleanup,
	.table_of = table_of,
	.row = &env.row,
	.header_later = true,
};

int main(int argc, char **argv)
{
	return tool_main(&tcpconnect, argc, argv);
}
