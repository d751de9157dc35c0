// SPDX-License-Identifier: GPL-2.0-only
/*
 * tcpstates: each state change of a TCP socket, with the time it spent in the state it
 * leaves (since its previous change seen, by the socket's address). The task shown is the
 * one the change happened in: the socket's process in its own calls (connect, listen,
 * close), and whatever task a softirq interrupted for changes driven by packets (a passive
 * open, the peer's FIN); the JSON's context says which.
 */
#include <stdbool.h>
#include <stdio.h>

#include <event-parse.h>

#include "stream/comm.h"
#include "stream/field.h"
#include "stream/reader.h"
#include "base/row.h"
#include "domain/sock.h"
#include "join/span.h"
#include "tool.h"

static struct env {
	struct sock_ports lports, rports; /* -L, -D */
	bool wide;			  /* -w */
	struct tool_run *t;
	struct sock_states st;
	struct span last; /* by socket address: its previous change */
	struct row row;
} env;

#define STATES_COLS(addr)                                                                          \
	SPEC(ROW_COL_TS, ROW_COL_WALL,                                                             \
	     SPEC(.head = "SKADDR", .key = "skaddr", .width = -18, .kind = ROW_HEX,                \
		  .doc = "the socket's kernel address"),                                           \
	     SPEC(.head = "PID", .key = "pid", .width = 7, .kind = ROW_INT,                        \
		  .doc = "the process the change happened in"),                                    \
	     SPEC(.head = "COMM", .key = "comm", .width = -16, .kind = ROW_STR,                    \
		  .doc = "its thread's name then"),                                                \
	     SPEC(.key = "context", .kind = ROW_WORD, .flags = ROW_NOTEXT,                         \
		  .doc = "task (the process's own call), or softirq or irq (a packet's: the task " \
			 "was only "                                                               \
			 "interrupted)"),                                                          \
	     SOCK_COLS_ENDS(addr),                                                                 \
	     SPEC(.head = "OLDSTATE", .key = "oldstate", .width = -11, .kind = ROW_WORD,           \
		  .doc = "the state it leaves"),                                                   \
	     SPEC(.head = "NEWSTATE", .key = "newstate", .width = -11, .kind = ROW_WORD,           \
		  .doc = "the state it enters"),                                                   \
	     SPEC(.head = "MS", .key = "ms", .width = 10, .kind = ROW_FLOAT, .prec = 3,            \
		  .doc = "time in the old state, ms (- or null: the first change seen)"))
static const struct row_col cols[] = STATES_COLS(-15), wide_cols[] = STATES_COLS(-39);
static const struct row_table table = ROW_TABLE("each state change", cols);
static const struct row_table wide_table = ROW_TABLE("each state change (-w)", wide_cols);

static const struct opt_spec options[] = {
	{'D', NULL, "PORTS", "only sockets with these remote ports (443)", 0},
	TOOL_DURATION,
	TOOL_JSON("one JSON object per state change"),
	{'L', NULL, "PORTS", "only sockets with these local ports (80)", 0},
	TOOL_TIMESTAMP,
	TOOL_WALLCLOCK,
	{'w', NULL, NULL, "wide columns (room for IPv6 addresses)", 0},
	TOOL_JSON_KEYS,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"tcpstates                 # every TCP state change",
	"tcpstates -t -L 80        # sockets on local port 80, with times",
	"tcpstates -D 443 -w       # to remote port 443, wide columns",
	"tcpstates -j -d 5         # 5 seconds as JSON lines",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case 'D': sock_ports_parse(&env.rports, arg, "PORT"); break;
	case 'L': sock_ports_parse(&env.lports, arg, "PORT"); break;
	case 'w': env.wide = true; break;
	}
}

/* Never called: the starts are updated in place and dropped at CLOSE. */
static void on_state(struct tep_record *rec, void *ctx)
{
	struct tool_run *t = env.t;
	long long old = reader_num(rec, env.st.oldstate), new = reader_num(rec, env.st.newstate);
	unsigned long long sk = sock_skaddr(&env.st.f, rec);
	struct sock_tuple tup;
	sock_tuple_read(&env.st.f, rec, &tup);
	struct span_start *s = span_find(&env.last, sk, 0);
	double ms = s && rec->ts >= s->ts ? (rec->ts - s->ts) / 1e6 : -1;
	if (new == env.st.close)
		span_drop(&env.last, sk, 0);
	else if (s)
		s->ts = rec->ts;
	else
		span_begin(&env.last, sk, 0, rec->ts, rec->cpu, 0);

	int tid = tep_data_pid(t->s.tep, rec), flags = tep_data_flags(t->s.tep, rec);
	char a[SOCK_ADDRSTRLEN], b[SOCK_ADDRSTRLEN], o[16], n[16];
	struct row *r = &env.row;
	row_begin(r, rec->ts);
	row_hex(r, sk);
	row_int(r, tool_tgid(t, tid));
	row_str(r, tool_comm(t, tid), 16);
	row_word(r, field_context(flags));
	row_int(r, tup.family);
	row_word(r, sock_ntop(tup.family, tup.saddr, a, sizeof(a)));
	row_uint(r, tup.sport);
	row_word(r, sock_ntop(tup.family, tup.daddr, b, sizeof(b)));
	row_uint(r, tup.dport);
	row_word(r, sock_state_name(&env.st, old, o, sizeof(o)));
	row_word(r, sock_state_name(&env.st, new, n, sizeof(n)));
	if (ms >= 0)
		row_float(r, ms);
	else
		row_none(r);
	row_end(r);
}

static enum tool_code prepare(struct tool_run *t)
{
	env.t = t;
	if (sock_states_load(&env.st, &t->s, true)) {
		fprintf(stderr, "tcpstates: no TCP state-change event in this kernel "
				"(sock:inet_sock_set_state, Linux 4.16; tcp:tcp_set_state in 4.15) "
				"and no kprobes for tcp_set_state (CONFIG_KPROBE_EVENTS)\n");
		return TOOL_FAIL;
	}
	if (span_init_run(t, &env.last, 16384, 0, SPAN_LOSS_ALL, NULL, NULL))
		return TOOL_FAIL;
	snprintf(t->traced, sizeof(t->traced), "TCP state changes");
	return TOOL_OK;
}

static enum tool_code setup(struct tool_run *t)
{
	char filter[1800], lp[800], rp[800];
	if (sock_ports_filter(&env.lports, &env.st.f, false, lp, sizeof(lp)) ||
	    sock_ports_filter(&env.rports, &env.st.f, true, rp, sizeof(rp)))
		return TOOL_FAIL;
	const char *proto = sock_states_filter(&env.st);
	snprintf(filter, sizeof(filter), "%s%s%s%s%s", proto, *proto && *lp ? " && " : "", lp,
		 (*proto || *lp) && *rp ? " && " : "", rp);
	return tool_trace(t, env.st.ev, filter, on_state, NULL);
}

static void cleanup(struct tool_run *t)
{
	span_free(&env.last);
	sock_states_free(&env.st);
}

/* The table of its lines: wide_table with wide, else table. */
static const struct row_table *table_of(struct tool_run *t)
{
	return env.wide ? &wide_table : &table;
}

static const struct tool tcpstates = {
	.name = "tcpstates",
	.no_cgroup = true,
	.opts = options,
	.examples = examples,
	.formats = (const char *const[]){NULL},
	.rows = (const struct row_table *const[]){&table, NULL},
	.option = option,
	.prepare = prepare,
	.setup = setup,
	.table_of = table_of,
	.row = &env.row,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&tcpstates, argc, argv);
}
