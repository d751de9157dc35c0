// SPDX-License-Identifier: GPL-2.0-only
/*
 * tcpaccept: each passive TCP open, one line per connection accepted: who accepted it and
 * both ends. A passive open becomes ESTABLISHED (SYN_RECV to ESTABLISHED) in a softirq,
 * whose task is whoever the packet interrupted, not the acceptor. Where the kernel has
 * kprobes, a return probe on inet_csk_accept gives the socket accept(2) hands over, in the
 * acceptor's own context: the line is written then, paired by the socket's address. Without
 * kprobes the line is written at ESTABLISHED, with the process that listens on that port
 * (seen calling listen(2) while tracing, or found in /proc at start): the acceptor in the
 * common case, not when another process (a worker) accepts from an inherited socket.
 */
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <event-parse.h>

#include "stream/comm.h"
#include "kernel/probe.h"
#include "stream/reader.h"
#include "base/row.h"
#include "domain/sock.h"
#include "join/span.h"
#include "tool.h"

static struct env {
	struct sock_ports ports; /* -P: local ports */
	pid_t pid;		 /* -p */
	const char *name;	 /* -n */
	int via;		 /* --via */
	struct tool_run *t;
	struct sock_states st;
	struct tep_event *accept_ev; /* kretprobe inet_csk_accept */
	struct tep_format_field *accept_sk;
	struct span opens;		 /* established, by socket: until accepted (kprobes) */
	struct sock_listeners listeners; /* without kprobes: who listens where */
	struct row row;
	uint64_t unnamed; /* without kprobes: opens of a listener whose owner was not found */
} env;

static const char *const via_names[] = {"kprobe", "listener"};
enum { VIA_BEST = -1, VIA_KPROBE, VIA_LISTENER };

struct open {
	struct sock_tuple tup;
};

static const struct row_col cols[] = {
	ROW_COL_TS,
	ROW_COL_WALL,
	{"PID", "pid", 7, ROW_INT, 0, 0,
	 "the process that accepted it (kprobes), or that listens on the port"},
	{NULL, "tid", 0, ROW_INT, 0, ROW_NOTEXT, "its thread (null: the listener's owner)"},
	{"COMM", "comm", -16, ROW_STR, 0, 0, "its name then"},
	{"IP", "ip", 2, ROW_INT, 0, 0, "4 or 6 (v4-mapped IPv6: 4)"},
	{"RADDR", "raddr", -15, ROW_WORD, 0, 0, "the remote address"},
	{"RPORT", "rport", 5, ROW_UINT, 0, 0, "the remote port"},
	{"LADDR", "laddr", -15, ROW_WORD, 0, 0, "the local address"},
	{"LPORT", "lport", 5, ROW_UINT, 0, 0, "the local port"},
	{NULL, "wait_ms", 0, ROW_FLOAT, 3, ROW_NOTEXT,
	 "from ESTABLISHED to accept(2), milliseconds (null without kprobes)"},
};
static const struct row_table table = ROW_TABLE("each accepted connection", cols);

enum { OPT_PORTS = 'P', OPT_VIA = OPT_LONG + 1 };

static const struct opt_spec options[] = {
	TOOL_DURATION,
	TOOL_JSON("one JSON object per connection accepted"),
	{'n', NULL, "NAME", "only connections accepted by processes whose name\nmatches (glob)", 0},
	{'p', NULL, "PID", "only connections accepted by this process", 0},
	{OPT_PORTS, NULL, "PORTS", "only connections to these local ports (22,80)", 0},
	TOOL_TIMESTAMP,
	TOOL_WALLCLOCK,
	{OPT_VIA, "via", "MECH",
	 "who is shown: kprobe (the acceptor, from a return probe\non inet_csk_accept) or "
	 "listener (the listening process);\ndefault: kprobe where the kernel has kprobes",
	 0},
	TOOL_JSON_KEYS,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"tcpaccept                 # every TCP connection accepted",
	"tcpaccept -t -P 22        # connections to port 22, with times",
	"tcpaccept --via listener  # the listening process, not the acceptor",
	"tcpaccept -j -d 5         # 5 seconds as JSON lines",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case 'n': env.name = opt_glob(arg, "NAME"); break;
	case 'p': env.pid = opt_live_pid(arg); break;
	case OPT_PORTS: sock_ports_parse(&env.ports, arg, "PORT"); break;
	case OPT_VIA: env.via = opt_choice(arg, via_names, 2, "MECH"); break;
	}
}

static void print(uint64_t ts, int pid, int tid, const char *comm, const struct sock_tuple *tup,
		  double wait_ms)
{
	if ((env.pid && pid != env.pid) || (env.name && fnmatch(env.name, comm, 0)))
		return;
	char r[SOCK_ADDRSTRLEN], l[SOCK_ADDRSTRLEN];
	struct row *w = &env.row;
	row_begin(w, ts);
	row_int(w, pid);
	if (tid)
		row_int(w, tid);
	else
		row_none(w);
	row_str(w, comm, 16);
	row_int(w, tup->family);
	row_word(w, sock_ntop(tup->family, tup->daddr, r, sizeof(r)));
	row_uint(w, tup->dport);
	row_word(w, sock_ntop(tup->family, tup->saddr, l, sizeof(l)));
	row_uint(w, tup->sport);
	if (wait_ms >= 0)
		row_float(w, wait_ms);
	else
		row_none(w);
	row_end(w);
}

/* accept(2) handed the socket over, in the acceptor's context. */
static void accepted(const struct tep_record *end, const struct span_start *start, uint64_t delta,
		     void *data, void *ctx)
{
	struct open *o = data;
	struct tool_run *t = env.t;
	int tid = tep_data_pid(t->s.tep, (struct tep_record *)end);
	int pid = tool_tgid(t, tid);
	print(end->ts, pid, tid, tool_comm(t, tid), &o->tup, delta / 1e6);
}

static void on_accept(struct tep_record *rec, void *ctx)
{
	unsigned long long sk = (unsigned long long)reader_num(rec, env.accept_sk);
	if (sk)
		span_end(&env.opens, rec, sk, 0, rec->ts);
}

static void on_state(struct tep_record *rec, void *ctx)
{
	long long old = reader_num(rec, env.st.oldstate), new = reader_num(rec, env.st.newstate);
	struct sock_tuple tup;
	sock_tuple_read(&env.st.f, rec, &tup);
	if (new == env.st.listen) {
		/* listen(2), in the listener's task: it owns the opens to come on that port. */
		struct tool_run *t = env.t;
		int tid = tep_data_pid(t->s.tep, rec);
		struct sock_listener l = {.family = tup.family, .port = tup.sport};
		memcpy(l.addr, tup.saddr, sizeof(l.addr));
		l.pid = tool_tgid(t, tid);
		snprintf(l.comm, sizeof(l.comm), "%s", tool_comm(t, tid));
		sock_listener_add(&env.listeners, &l);
		return;
	}
	if (new != env.st.established || old != env.st.syn_recv)
		return;
	if (env.accept_ev) {
		struct open *o = span_begin(&env.opens, sock_skaddr(&env.st.f, rec), 0, rec->ts,
					    rec->cpu, 0);
		o->tup = tup;
		return;
	}
	const struct sock_listener *l =
		sock_listener_find(&env.listeners, tup.family, tup.saddr, tup.sport);
	if (!l || !l->pid) {
		env.unnamed++;
		print(rec->ts, 0, 0, "?", &tup, -1);
		return;
	}
	/* The listener's name now (it may have renamed itself since listen(2)). */
	const char *comm = tool_comm(env.t, l->pid);
	print(rec->ts, l->pid, 0, strcmp(comm, "<...>") ? comm : l->comm, &tup, -1);
}

static enum tool_code prepare(struct tool_run *t)
{
	env.t = t;
	if (sock_states_load(&env.st, &t->s, true)) {
		fprintf(stderr, "tcpaccept: no TCP state-change event in this kernel "
				"(sock:inet_sock_set_state, Linux 4.16; tcp:tcp_set_state in 4.15) "
				"and no kprobes for tcp_set_state (CONFIG_KPROBE_EVENTS)\n");
		return TOOL_FAIL;
	}
	if (env.pid)
		tool_watch(t, env.pid, false);
	bool kprobes = probe_available(&t->s, PROBE_KPROBE, true);
	if (env.via == VIA_KPROBE && !kprobes) {
		probe_available(&t->s, PROBE_KPROBE, false); /* says which option */
		return TOOL_FAIL;
	}
	if (kprobes && env.via != VIA_LISTENER) {
		env.accept_ev = probe_create(&t->s, PROBE_KPROBE, 'r', "accept_ret",
					     "inet_csk_accept", "sk=$retval:u64");
		if (!env.accept_ev)
			return TOOL_FAIL;
		env.accept_sk = tep_find_field(env.accept_ev, "sk");
		if (!env.accept_sk)
			return TOOL_FAIL;
		env.via = VIA_KPROBE;
	} else {
		env.via = VIA_LISTENER;
		/* Listeners older than the run: their owners from /proc, before tracing. */
		if (sock_listeners_read(&env.listeners, "/proc"))
			fprintf(stderr, "tcpaccept: /proc/net/tcp cannot be read: listeners older "
					"than this run are not named\n");
	}
	if (span_init_run(t, &env.opens, 4096, sizeof(struct open), SPAN_LOSS_ALL, accepted, NULL))
		return TOOL_FAIL;
	snprintf(t->traced, sizeof(t->traced), "TCP accepts (%s)",
		 env.via == VIA_KPROBE ? "the acceptor from a return probe on inet_csk_accept" :
					 "PID and COMM: the process listening on the port");
	return TOOL_OK;
}

static enum tool_code setup(struct tool_run *t)
{
	char filter[1024], ports[800];
	if (sock_ports_filter(&env.ports, &env.st.f, false, ports, sizeof(ports)))
		return TOOL_FAIL;
	const char *proto = sock_states_filter(&env.st);
	snprintf(filter, sizeof(filter),
		 "%s%s((newstate == %d && oldstate == %d)%s%s || newstate == %d)", proto,
		 *proto ? " && " : "", env.st.established, env.st.syn_recv, *ports ? " && " : "",
		 ports, env.st.listen);
	int ret;
	if ((ret = tool_trace(t, env.st.ev, filter, on_state, NULL)))
		return TOOL_FAIL;
	return env.accept_ev ? tool_trace(t, env.accept_ev, NULL, on_accept, NULL) : TOOL_OK;
}

static void end(struct tool_run *t)
{
	if (env.unnamed)
		fprintf(stderr,
			"tcpaccept: %llu connections to a port whose listening process was not "
			"found: PID 0, COMM ?\n",
			(unsigned long long)env.unnamed);
	span_report(&env.opens, "tcpaccept", "accepts (of connections established)");
}

static void cleanup(struct tool_run *t)
{
	span_free(&env.opens);
	sock_listeners_free(&env.listeners);
	sock_states_free(&env.st);
}

static const struct tool tcpaccept = {
	.name = "tcpaccept",
	.no_cgroup = true,
	.opts = options,
	.examples = examples,
	.formats = (const char *const[]){NULL},
	.rows = (const struct row_table *const[]){&table, NULL},
	.option = option,
	.prepare = prepare,
	.setup = setup,
	.table = &table,
	.row = &env.row,
	.end = end,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	env.via = VIA_BEST;
	return tool_main(&tcpaccept, argc, argv);
}
