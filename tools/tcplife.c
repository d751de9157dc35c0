// SPDX-License-Identifier: GPL-2.0-only
/*
 * tcplife: each TCP session when it closes: its process, both ends, the bytes sent and
 * received, and how long it lived. From the state changes of sockets, paired by the
 * socket's address from the first change into SYN_SENT, SYN_RECV or ESTABLISHED to CLOSE
 * (sessions already open when tracing began are left out and counted). The process: the one
 * that connected (SYN_SENT happens in its task), else the acceptor (a return probe on
 * inet_csk_accept, where there are kprobes), else the first task that changed the socket's
 * state in its own context (its close(2)), else the process listening on the port. Bytes:
 * the sum of what sendmsg and recvmsg returned on the socket (sock:sock_send_length and
 * sock_recv_length, Linux 6.3); without them the columns say "-".
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
#include "count/tracejson.h"
#include "domain/sock.h"
#include "join/span.h"
#include "tool.h"

static struct env {
	struct sock_ports lports, rports; /* -L, -D */
	pid_t pid;			  /* -p */
	const char *name;		  /* -n */
	bool wide;			  /* -w */
	struct tool_run *t;
	struct sock_states st;
	struct tep_event *send_ev, *recv_ev, *accept_ev;
	struct tep_format_field *send_sk, *send_ret, *recv_sk, *recv_ret, *recv_flags, *accept_sk;
	struct span lives;
	struct sock_listeners listeners;
	struct row row;
} env;

/* Who a session is shown under, weakest first. */
enum owner { OWN_NONE, OWN_LISTENER, OWN_TASK, OWN_ACCEPT, OWN_CONNECT };

struct life {
	struct sock_tuple tup;
	int pid, tid;
	char comm[16];
	enum owner owner;
	uint64_t tx, rx;
	bool passive;	  /* born in SYN_RECV */
	bool established; /* was ESTABLISHED */
};

#define LIFE_COLS(addr)                                                                     \
	SPEC(ROW_COL_TS, ROW_COL_WALL,                                                      \
	     SPEC(.head = "PID", .key = "pid", .width = 7, .kind = ROW_INT,                 \
		  .doc = "the process (see DESCRIPTION: which one)"),                       \
	     SPEC(.key = "tid", .kind = ROW_INT, .flags = ROW_NOTEXT,                       \
		  .doc = "its thread (null: a listener's owner)"),                          \
	     SPEC(.head = "COMM", .key = "comm", .width = -16, .kind = ROW_STR,             \
		  .doc = "its name then"),                                                  \
	     SOCK_COLS_ENDS(addr),                                                          \
	     SPEC(.head = "TX_KB", .key = "tx_bytes", .width = 6, .kind = ROW_UINT,         \
		  .doc = "sent: bytes in JSON, KiB in text (null or -: not known on this "  \
			 "kernel)"),                                                        \
	     SPEC(.head = "RX_KB", .key = "rx_bytes", .width = 6, .kind = ROW_UINT,         \
		  .doc = "received: bytes in JSON, KiB in text"),                           \
	     SPEC(.head = "MS", .key = "dur_ms", .width = 10, .kind = ROW_FLOAT, .prec = 3, \
		  .doc = "from the first state change seen to CLOSE, ms"))
static const struct row_col cols[] = LIFE_COLS(-15), wide_cols[] = LIFE_COLS(-39);
static const struct row_table table = ROW_TABLE("each session, when it closes", cols);
static const struct row_table wide_table = ROW_TABLE("each session (-w)", wide_cols);

static const struct opt_spec options[] = {
	{'D', NULL, "PORTS", "only sessions with these remote ports (5432,6379)", 0},
	TOOL_DURATION,
	TOOL_JSON("one JSON object per session"),
	{'L', NULL, "PORTS", "only sessions with these local ports (80,443)", 0},
	{'n', NULL, "NAME", "only sessions of processes whose name matches (glob)", 0},
	{'p', NULL, "PID", "only sessions of this process", 0},
	TOOL_TIMESTAMP,
	TOOL_WALLCLOCK,
	{'w', NULL, NULL, "wide columns (room for IPv6 addresses)", 0},
	TOOL_JSON_KEYS,
	TOOL_TRACE_JSON,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"tcplife                   # every TCP session, as it closes",
	"tcplife -t -w             # with times, wide columns for IPv6",
	"tcplife -L 80,443         # sessions on local ports 80 and 443",
	"tcplife -D 5432 -d 60     # to remote port 5432, for a minute",
	"tcplife -j -d 5           # 5 seconds as JSON lines",
	"tcplife --trace-json tcp.json -d 5 # 5 seconds for Perfetto",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case 'D': sock_ports_parse(&env.rports, arg, "PORT"); break;
	case 'L': sock_ports_parse(&env.lports, arg, "PORT"); break;
	case 'n': env.name = opt_glob(arg, "NAME"); break;
	case 'p': env.pid = opt_live_pid(arg); break;
	case 'w': env.wide = true; break;
	}
}

/* --trace-json: the sessions of a process overlap, so each process is a pseudo one of its
 * own (named as COMM), its sessions spread over lanes; a session is named by its remote end. */
static void trace_life(struct tracejson *tj, const struct life *l, const char *laddr,
		       const char *raddr, uint64_t end_ns, uint64_t ns, bool bytes)
{
	int pid = tracejson_pseudo_pid(tj, (uint64_t)(unsigned)l->pid), lane;
	if (pid < 0 || (lane = tracejson_lane(tj, pid, end_ns - ns, end_ns)) < 0)
		return;
	char name[SOCK_ADDRSTRLEN + 16], lname[32];
	snprintf(name, sizeof(name), l->tup.family == 6 ? "[%s]:%u" : "%s:%u", raddr,
		 (unsigned)l->tup.dport);
	snprintf(lname, sizeof(lname), "lane %d", lane);
	tracejson_process_name(tj, pid, l->comm, sizeof(l->comm));
	tracejson_thread_name(tj, pid, lane, lname, sizeof(lname));
	tracejson_span_begin(tj, pid, lane, name, sizeof(name), "tcp", end_ns - ns, ns);
	tracejson_arg_int(tj, "pid", l->pid);
	if (l->tid)
		tracejson_arg_int(tj, "tid", l->tid);
	tracejson_arg_str(tj, "comm", l->comm, sizeof(l->comm));
	tracejson_arg_int(tj, "ip", l->tup.family);
	tracejson_arg_str(tj, "laddr", laddr, SIZE_MAX);
	tracejson_arg_uint(tj, "lport", l->tup.sport);
	tracejson_arg_str(tj, "raddr", raddr, SIZE_MAX);
	tracejson_arg_uint(tj, "rport", l->tup.dport);
	if (bytes) {
		tracejson_arg_uint(tj, "tx_bytes", l->tx);
		tracejson_arg_uint(tj, "rx_bytes", l->rx);
	}
	tracejson_span_end(tj);
}

static void closed(const struct tep_record *end, const struct span_start *start, uint64_t delta,
		   void *data, void *ctx)
{
	struct life *l = data;
	/* A passive open's socket closed before ESTABLISHED was no session: the kernel made it
	 * and let it go (5.10 under two vCPUs: a second child for one request, destroyed). */
	if (l->passive && !l->established)
		return;
	if ((env.pid && l->pid != env.pid) || (env.name && fnmatch(env.name, l->comm, 0)))
		return;
	char a[SOCK_ADDRSTRLEN], b[SOCK_ADDRSTRLEN];
	struct row *r = &env.row;
	bool bytes = env.send_ev && env.recv_ev;
	row_begin(r, end->ts);
	row_int(r, l->pid);
	if (l->tid)
		row_int(r, l->tid);
	else
		row_none(r);
	row_str(r, l->comm, sizeof(l->comm));
	row_int(r, l->tup.family);
	row_word(r, sock_ntop(l->tup.family, l->tup.saddr, a, sizeof(a)));
	row_uint(r, l->tup.sport);
	row_word(r, sock_ntop(l->tup.family, l->tup.daddr, b, sizeof(b)));
	row_uint(r, l->tup.dport);
	if (!bytes) {
		row_none(r);
		row_none(r);
	} else {
		row_uint(r, env.t->o.json ? l->tx : l->tx / 1024);
		row_uint(r, env.t->o.json ? l->rx : l->rx / 1024);
	}
	row_float(r, delta / 1e6);
	row_end(r);
	struct tracejson *tj = tool_trace_json(env.t);
	if (tj)
		trace_life(tj, l, a, b, end->ts, delta, bytes);
}

static void own(struct life *l, enum owner o, int pid, int tid, const char *comm)
{
	if (l->owner >= o)
		return;
	l->owner = o;
	l->pid = pid;
	l->tid = tid;
	snprintf(l->comm, sizeof(l->comm), "%s", comm);
}

static void own_task(struct life *l, enum owner o, struct tep_record *rec)
{
	struct tool_run *t = env.t;
	int tid = tep_data_pid(t->s.tep, rec);
	own(l, o, tool_tgid(t, tid), tid, tool_comm(t, tid));
}

static void on_state(struct tep_record *rec, void *ctx)
{
	long long old = reader_num(rec, env.st.oldstate), new = reader_num(rec, env.st.newstate);
	unsigned long long sk = sock_skaddr(&env.st.f, rec);
	struct sock_tuple tup;
	sock_tuple_read(&env.st.f, rec, &tup);
	if (new == env.st.listen || old == env.st.listen) {
		if (new == env.st.listen && !env.accept_ev) {
			struct sock_listener l = {.family = tup.family, .port = tup.sport};
			memcpy(l.addr, tup.saddr, sizeof(l.addr));
			struct life tmp = {0};
			own_task(&tmp, OWN_LISTENER, rec);
			l.pid = tmp.pid;
			sock_listener_add(&env.listeners, &l);
		}
		if (old != env.st.listen || new == env.st.close)
			return; /* a listener, not a session; 6.x's child goes LISTEN -> SYN_RECV */
	}
	struct span_start *s = span_find(&env.lives, sk, 0);
	struct life *l = s ? span_data(s) : NULL;
	if (!l && (new == env.st.syn_sent || new == env.st.syn_recv || new == env.st.established)) {
		l = span_begin(&env.lives, sk, 0, rec->ts, rec->cpu, 0);
		l->passive = new == env.st.syn_recv;
	}
	if (!l) {
		if (new == env.st.close)
			span_end(&env.lives, rec, sk, 0, rec->ts); /* counted: began before */
		return;
	}
	if (new == env.st.established)
		l->established = true;
	if (tup.sport || !l->tup.family)
		l->tup = tup; /* SYN_SENT's has no source port yet */
	if (new == env.st.syn_sent && sock_in_task(env.t->s.tep, rec))
		own_task(l, OWN_CONNECT, rec);
	else if (sock_in_task(env.t->s.tep, rec))
		own_task(l, OWN_TASK, rec);
	if (l->owner < OWN_LISTENER && !env.accept_ev &&
	    (new == env.st.syn_recv || old == env.st.syn_recv)) {
		const struct sock_listener *ls =
			sock_listener_find(&env.listeners, tup.family, tup.saddr, tup.sport);
		if (ls && ls->pid) {
			const char *comm = tool_comm(env.t, ls->pid);
			own(l, OWN_LISTENER, ls->pid, 0, strcmp(comm, "<...>") ? comm : ls->comm);
		}
	}
	if (new == env.st.close)
		span_end(&env.lives, rec, sk, 0, rec->ts);
}

static void on_accept(struct tep_record *rec, void *ctx)
{
	struct span_start *s =
		span_find(&env.lives, (unsigned long long)reader_num(rec, env.accept_sk), 0);
	if (s)
		own_task(span_data(s), OWN_ACCEPT, rec);
}

static void on_bytes(struct tep_record *rec, void *ctx)
{
	bool send = ctx != NULL;
	long long ret = reader_num(rec, send ? env.send_ret : env.recv_ret);
	if (ret <= 0 || (!send && (reader_num(rec, env.recv_flags) & 2 /* MSG_PEEK */)))
		return;
	struct span_start *s =
		span_find(&env.lives,
			  (unsigned long long)reader_num(rec, send ? env.send_sk : env.recv_sk), 0);
	if (!s)
		return;
	struct life *l = span_data(s);
	*(send ? &l->tx : &l->rx) += (uint64_t)ret;
}

static enum tool_code prepare(struct tool_run *t)
{
	env.t = t;
	if (sock_states_load(&env.st, &t->s, true)) {
		fprintf(stderr, "tcplife: no TCP state-change event in this kernel "
				"(sock:inet_sock_set_state, Linux 4.16; tcp:tcp_set_state in 4.15) "
				"and no kprobes for tcp_set_state (CONFIG_KPROBE_EVENTS)\n");
		return TOOL_FAIL;
	}
	if (env.pid)
		tool_watch(t, env.pid, false);
	env.send_ev = session_load_event(&t->s, "sock", "sock_send_length");
	env.recv_ev = session_load_event(&t->s, "sock", "sock_recv_length");
	if (env.send_ev && env.recv_ev) {
		env.send_sk = tep_find_field(env.send_ev, "sk");
		env.send_ret = tep_find_field(env.send_ev, "ret");
		env.recv_sk = tep_find_field(env.recv_ev, "sk");
		env.recv_ret = tep_find_field(env.recv_ev, "ret");
		env.recv_flags = tep_find_field(env.recv_ev, "flags");
	}
	if (!env.send_sk || !env.send_ret || !env.recv_sk || !env.recv_ret || !env.recv_flags) {
		env.send_ev = env.recv_ev = NULL;
		fprintf(stderr, "tcplife: no sock:sock_send_length in this kernel (Linux 6.3): "
				"TX_KB and RX_KB are not known\n");
	}
	if (probe_available(&t->s, PROBE_KPROBE, true)) {
		env.accept_ev = probe_try(&t->s, PROBE_KPROBE, 'r', "accept_ret", "inet_csk_accept",
					  "sk=$retval:u64");
		env.accept_sk = env.accept_ev ? tep_find_field(env.accept_ev, "sk") : NULL;
		if (!env.accept_sk)
			env.accept_ev = NULL;
	}
	if (!env.accept_ev && sock_listeners_read(&env.listeners, "/proc"))
		fprintf(stderr, "tcplife: /proc/net/tcp cannot be read: listeners older than this "
				"run are not named\n");
	if (span_init_run(t, &env.lives, 16384, sizeof(struct life), SPAN_LOSS_ALL, closed, NULL))
		return TOOL_FAIL;
	snprintf(t->traced, sizeof(t->traced), "TCP sessions");
	return TOOL_OK;
}

static enum tool_code setup(struct tool_run *t)
{
	char filter[2048], lp[800], rp[800];
	if (sock_ports_filter(&env.lports, &env.st.f, false, lp, sizeof(lp)) ||
	    sock_ports_filter(&env.rports, &env.st.f, true, rp, sizeof(rp)))
		return TOOL_FAIL;
	const char *proto = sock_states_filter(&env.st);
	/* Listens pass the port filters: they name the sessions' processes. */
	char ports[1700] = "";
	if (*lp || *rp)
		snprintf(ports, sizeof(ports), "((%s%s%s) || newstate == %d)", lp,
			 *lp && *rp ? " && " : "", rp, env.st.listen);
	snprintf(filter, sizeof(filter), "%s%s%s", proto, *proto && *ports ? " && " : "", ports);
	int ret;
	if ((ret = tool_trace(t, env.st.ev, filter, on_state, NULL)))
		return TOOL_FAIL;
	if (env.accept_ev && (ret = tool_trace(t, env.accept_ev, NULL, on_accept, NULL)))
		return ret;
	if (env.send_ev &&
	    ((ret = tool_trace(t, env.send_ev, "protocol == 6 && ret > 0", on_bytes, &env)) ||
	     (ret = tool_trace(t, env.recv_ev, "protocol == 6 && ret > 0", on_bytes, NULL))))
		return ret;
	return TOOL_OK;
}

static void end(struct tool_run *t)
{
	span_report(&env.lives, "tcplife", "sessions closed");
}

static void cleanup(struct tool_run *t)
{
	span_free(&env.lives);
	sock_listeners_free(&env.listeners);
	sock_states_free(&env.st);
}

/* The table of its lines: wide_table with wide, else table. */
static const struct row_table *table_of(struct tool_run *t)
{
	return env.wide ? &wide_table : &table;
}

static const struct tool tcplife = {
	.name = "tcplife",
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
	.end = end,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&tcplife, argc, argv);
}
