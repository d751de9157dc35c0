// SPDX-License-Identifier: GPL-2.0-only
/*
 * tcpretrans: each TCP retransmit: both ends and the socket's state, from
 * tcp:tcp_retransmit_skb (Linux 4.15), and each SYN-ACK a listener sends again from
 * tcp:tcp_retransmit_synack (4.15); with -l the tail loss probes too (a kprobe on
 * tcp_send_loss_probe: no tracepoint marks them), whose ends come from the state changes
 * of the socket seen while tracing. -c counts them by flow instead. No process is shown:
 * retransmits are sent from timers and softirqs, in whatever task they interrupted.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <event-parse.h>

#include "base/agg.h"
#include "kernel/probe.h"
#include "count/prom.h"
#include "stream/reader.h"
#include "base/row.h"
#include "domain/sock.h"
#include "join/span.h"
#include "tool.h"

static struct env {
	bool count; /* -c */
	bool tlp;   /* -l */
	struct tool_run *t;
	struct tep_event *retrans, *synack, *tlp_ev;
	struct sock_fields fr, fs;
	struct tep_format_field *state, *tlp_sk;
	struct sock_states st;	   /* the names of states; -l: the sockets' ends */
	struct sock_names rstates; /* tcp_retransmit_skb's own table, resolved */
	struct span socks;	   /* -l: by socket address, its ends and state */
	struct agg counts;	   /* -c: by struct flow */
	struct prom *prom;	   /* --prom: -c's counts written at the end */
	struct row row;
	uint64_t tlp_unknown; /* -l: probes on sockets not seen changing state */
} env;

struct flow {
	struct sock_tuple tup;
};

static const struct row_col cols[] = {
	ROW_COL_TS,
	ROW_COL_WALL,
	{"IP", "ip", 2, ROW_INT, 0, 0, "4 or 6 (v4-mapped IPv6: 4)"},
	{"LADDR", "laddr", -15, ROW_WORD, 0, 0, "the local address"},
	{"LPORT", "lport", 5, ROW_UINT, 0, 0, "the local port"},
	{"T", "type", -1, ROW_WORD, 0, 0,
	 "R a retransmit, S a SYN-ACK sent again, L a tail loss probe (-l)"},
	{"RADDR", "raddr", -15, ROW_WORD, 0, 0, "the remote address"},
	{"RPORT", "rport", 5, ROW_UINT, 0, 0, "the remote port"},
	{"STATE", "state", -12, ROW_WORD, 0, 0,
	 "the socket's TCP state (- or null: 4.18 and 4.19 without kprobes)"},
};
static const struct row_table table = ROW_TABLE("each retransmit", cols);

static const struct row_col count_cols[] = {
	{"IP", "ip", 2, ROW_INT, 0, 0, "4 or 6"},
	{"LADDR", "laddr", -15, ROW_WORD, 0, 0, "the local address"},
	{"LPORT", "lport", 5, ROW_UINT, 0, 0, "the local port"},
	{"RADDR", "raddr", -15, ROW_WORD, 0, 0, "the remote address"},
	{"RPORT", "rport", 5, ROW_UINT, 0, 0, "the remote port"},
	{"RETRANSMITS", "count", 11, ROW_UINT, 0, 0, "retransmits of the flow (-c)"},
};
static const struct row_table count_table = ROW_TABLE("each flow, with -c", count_cols);

static const struct opt_spec options[] = {
	{'c', NULL, NULL, "count retransmits by flow; print at the end", 0},
	TOOL_DURATION,
	TOOL_JSON("one JSON object per retransmit (or per flow with -c)"),
	{'l', NULL, NULL, "also tail loss probes (kprobes)", 0},
	TOOL_TIMESTAMP,
	TOOL_WALLCLOCK,
	TOOL_JSON_KEYS,
	TOOL_PROM,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"tcpretrans                # every TCP retransmit",
	"tcpretrans -T             # with wall-clock times",
	"tcpretrans -c -d 10       # retransmits by flow over 10 seconds",
	"tcpretrans -j -d 5        # 5 seconds as JSON lines",
	"tcpretrans -c --prom tr.prom -d 60 # a minute's counts by flow, node_exporter",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	if (o->key == 'c')
		env.count = true;
	else if (o->key == 'l')
		env.tlp = true;
}

static void operands(struct tool_run *t, int argc, char **argv)
{
	if (argc > 0)
		opt_fail("unexpected argument: '%s' (see -h)", argv[0]);
	if (t->prom_path && !env.count)
		opt_fail("--prom writes the counts of -c: give it");
}

static void print(uint64_t ts, const struct sock_tuple *tup, const char *type, const char *state)
{
	if (env.count) {
		struct flow f;
		memset(&f, 0, sizeof(f));
		f.tup = *tup;
		agg_add(&env.counts, &f, 1);
		return;
	}
	char a[SOCK_ADDRSTRLEN], b[SOCK_ADDRSTRLEN];
	struct row *r = &env.row;
	row_begin(r, ts);
	row_int(r, tup->family);
	row_word(r, sock_ntop(tup->family, tup->saddr, a, sizeof(a)));
	row_uint(r, tup->sport);
	row_word(r, type);
	row_word(r, sock_ntop(tup->family, tup->daddr, b, sizeof(b)));
	row_uint(r, tup->dport);
	if (state)
		row_word(r, state);
	else
		row_none(r);
	row_end(r);
}

static void on_retrans(struct tep_record *rec, void *ctx)
{
	struct sock_tuple tup;
	char b[16];
	sock_tuple_read(&env.fr, rec, &tup);
	print(rec->ts, &tup, "R",
	      env.state ? sock_name(&env.rstates, reader_num(rec, env.state), b, sizeof(b)) : NULL);
}

static void on_synack(struct tep_record *rec, void *ctx)
{
	struct sock_tuple tup;
	sock_tuple_read(&env.fs, rec, &tup);
	/* A listener's request (its socket's state is NEW_SYN_RECV): the handshake's SYN_RECV. */
	print(rec->ts, &tup, "S", "SYN_RECV");
}

static void on_tlp(struct tep_record *rec, void *ctx)
{
	struct span_start *s =
		span_find(&env.socks, (unsigned long long)reader_num(rec, env.tlp_sk), 0);
	if (!s) {
		env.tlp_unknown++;
		return;
	}
	struct sock_known *k = span_data(s);
	char b[16];
	print(rec->ts, &k->tup, "L", sock_state_name(&env.st, k->state, b, sizeof(b)));
}

static void on_state(struct tep_record *rec, void *ctx)
{
	sock_known_update(&env.st, &env.socks, rec);
}

static enum tool_code prepare(struct tool_run *t)
{
	env.t = t;
	env.retrans = session_load_event(&t->s, "tcp", "tcp_retransmit_skb");
	char args[1024];
	size_t n;
	bool kprobes = probe_available(&t->s, PROBE_KPROBE, true);
	/* The tracepoint has the socket's state from 5.x on (not 4.18, 4.19): before, where
	 * there are kprobes, the kprobe, which reads it. */
	if (env.retrans && !tep_find_field(env.retrans, "state") && kprobes)
		env.retrans = NULL;
	/* Before 4.15: a kprobe on tcp_retransmit_skb(sk, skb, segs), which fires for every
	 * attempt (the tracepoint: for those sent). */
	if (!env.retrans && kprobes && !sock_kprobe_args(args, sizeof(args), "%di")) {
		n = strlen(args);
		snprintf(args + n, sizeof(args) - n, " state=+%d(%%di):u8", SOCK_KPROBE_STATE_OFF);
		env.retrans = probe_create(&t->s, PROBE_KPROBE, 'p', "retransmit",
					   "tcp_retransmit_skb", args);
	}
	if (!env.retrans || sock_fields_init(&env.fr, env.retrans)) {
		fprintf(stderr, "tcpretrans: no tcp:tcp_retransmit_skb in this kernel (Linux 4.15) "
				"and no kprobes for tcp_retransmit_skb (CONFIG_KPROBE_EVENTS)\n");
		return TOOL_FAIL;
	}
	env.state = tep_find_field(env.retrans, "state"); /* NULL: "-" */
	env.synack = session_load_event(&t->s, "tcp", "tcp_retransmit_synack");
	if (env.synack && sock_fields_init(&env.fs, env.synack))
		env.synack = NULL;
	bool states = sock_states_load(&env.st, &t->s, env.tlp) == 0;
	if (!states)
		sock_names_tcp_states(&env.st.names);
	/* Its own table, whose values are enum names on some kernels (6.x): resolved by the
	 * state changes' numbers. */
	if (sock_names_read(&env.rstates, env.retrans, "state", "TCP_", &env.st.names) ||
	    env.rstates.n < 12) {
		sock_names_free(&env.rstates);
		sock_names_tcp_states(&env.rstates);
	}
	if (env.tlp) {
		if (!states) {
			fprintf(stderr, "tcpretrans: -l needs sock:inet_sock_set_state (Linux "
					"4.16) for the ends of the probed sockets\n");
			return TOOL_FAIL;
		}
		if (!probe_available(&t->s, PROBE_KPROBE, false))
			return TOOL_FAIL;
		char why[256];
		int c = probe_args_compat("sk=$arg1:u64", 'p', "tcp_send_loss_probe",
					  probe_syntax_missing(), false, args, sizeof(args), why,
					  sizeof(why));
		if (c < 0) {
			fprintf(stderr, "tcpretrans: -l: %s\n", why);
			return TOOL_FAIL;
		}
		env.tlp_ev = probe_create(&t->s, PROBE_KPROBE, 'p', "tlp", "tcp_send_loss_probe",
					  c ? args : "sk=$arg1:u64");
		if (!env.tlp_ev || !(env.tlp_sk = tep_find_field(env.tlp_ev, "sk")))
			return TOOL_FAIL;
		if (span_init_run(t, &env.socks, 16384, sizeof(struct sock_known), SPAN_LOSS_ALL,
				  NULL, NULL))
			return TOOL_FAIL;
	}
	if (env.count && agg_init(&env.counts, sizeof(struct flow), 0))
		return TOOL_FAIL;
	snprintf(t->traced, sizeof(t->traced), "TCP retransmits%s",
		 env.tlp ? " and tail loss probes" : "");
	return TOOL_OK;
}

static enum tool_code setup(struct tool_run *t)
{
	int ret;
	if ((ret = tool_trace(t, env.retrans, NULL, on_retrans, NULL)))
		return ret;
	if (env.synack && (ret = tool_trace(t, env.synack, NULL, on_synack, NULL)))
		return ret;
	if (env.tlp_ev &&
	    ((ret = tool_trace(t, env.st.ev, sock_states_filter(&env.st), on_state, NULL)) ||
	     (ret = tool_trace(t, env.tlp_ev, NULL, on_tlp, NULL))))
		return ret ? ret : TOOL_FAIL;
	return TOOL_OK;
}

static void header(struct tool_run *t)
{
	if (!env.count)
		row_header(&env.row);
}

static void print_count(const void *key, uint64_t count, const void *val, void *ctx)
{
	const struct flow *f = key;
	char a[SOCK_ADDRSTRLEN], b[SOCK_ADDRSTRLEN];
	struct row *r = &env.row;
	row_begin(r, 0);
	row_int(r, f->tup.family);
	row_word(r, sock_ntop(f->tup.family, f->tup.saddr, a, sizeof(a)));
	row_uint(r, f->tup.sport);
	row_word(r, sock_ntop(f->tup.family, f->tup.daddr, b, sizeof(b)));
	row_uint(r, f->tup.dport);
	row_uint(r, count);
	row_end(r);
	if (env.prom) {
		char labels[512], ip[4], lport[8], rport[8];
		snprintf(ip, sizeof(ip), "%d", (int)f->tup.family);
		snprintf(lport, sizeof(lport), "%u", (unsigned)f->tup.sport);
		snprintf(rport, sizeof(rport), "%u", (unsigned)f->tup.dport);
		prom_uint(env.prom, "ftrace_tools_tcpretrans_retransmits_total",
			  prom_labels(labels, sizeof(labels), "ip", ip, "laddr", a, "lport", lport,
				      "raddr", b, "rport", rport, NULL),
			  count);
	}
}

static void end(struct tool_run *t)
{
	if (env.count) {
		if (!t->o.json)
			row_header(&env.row);
		/* --prom: one file, at the end, made as the table is printed */
		if (t->prom && (env.prom = tool_prom(t)))
			prom_family(env.prom, "ftrace_tools_tcpretrans_retransmits_total",
				    "counter",
				    "TCP retransmits (and SYN-ACKs sent again, tail loss probes "
				    "with -l), by flow.");
		agg_sorted(&env.counts, print_count, NULL);
		if (env.prom)
			prom_commit(env.prom);
	}
	if (env.tlp_unknown)
		fprintf(stderr,
			"tcpretrans: %llu tail loss probes on sockets that changed state before "
			"tracing began (their ends are not known): not shown\n",
			(unsigned long long)env.tlp_unknown);
}

static void cleanup(struct tool_run *t)
{
	if (env.tlp_ev)
		span_free(&env.socks);
	if (env.count)
		agg_free(&env.counts);
	sock_names_free(&env.rstates);
	sock_states_free(&env.st);
}

/* The table of its lines: count_table with count, else table. */
static const struct row_table *table_of(struct tool_run *t)
{
	return env.count ? &count_table : &table;
}

static const struct tool tcpretrans = {
	.name = "tcpretrans",
	.no_cgroup = true,
	.opts = options,
	.examples = examples,
	.formats = (const char *const[]){NULL},
	.rows = (const struct row_table *const[]){&table, &count_table, NULL},
	.option = option,
	.operands_fn = operands,
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
	return tool_main(&tcpretrans, argc, argv);
}
