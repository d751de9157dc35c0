// SPDX-License-Identifier: GPL-2.0-only
/*
 * tcptop: the TCP connections moving the most bytes, a table every interval, as bcc's tcptop:
 * per process and connection, the bytes sent and received, largest total first.
 *
 * Bytes: what sendmsg and recvmsg returned on each TCP socket (sock:sock_send_length and
 * sock_recv_length, Linux 6.3), counted under the task that made the call. These events carry
 * the socket's kernel address, not its ends: those are learnt from what the kernel says of
 * the same address (sock:inet_sock_set_state when a connection is made, tcp:tcp_rcv_space_adjust
 * whenever one receives), so a connection opened before tracing is named once it receives,
 * and one that only sends is shown with "-" for its ends. Below 6.3, where there are kprobes,
 * kprobes on tcp_sendmsg (the size asked) and tcp_cleanup_rbuf (the bytes copied), which read
 * the ends from the socket themselves.
 */
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "base/agg.h"
#include "stream/comm.h"
#include "base/out.h"
#include "base/pair.h"
#include "kernel/probe.h"
#include "count/prom.h"
#include "stream/reader.h"
#include "base/row.h"
#include "domain/sock.h"
#include "tool.h"

static struct env {
	pid_t pid;	   /* -p */
	const char *name;  /* -n */
	int family;	   /* -4, -6; 0: both */
	long long maxrows; /* -r, 0: all */
	bool noclear;	   /* -C */
	bool clearing;	   /* decided at setup */
	struct tool_run *t;
	bool kprobes; /* the kprobe path (below 6.3) */
	struct tep_event *send_ev, *recv_ev, *adjust_ev, *recvmsg_ev;
	struct pair_table copied; /* kprobes: tid -> what its receive has copied so far */
	struct tep_format_field *send_sk, *send_ret, *send_fam, *recv_sk, *recv_ret, *recv_fam,
		*recv_flags;
	struct sock_fields fsend, frecv, fadjust; /* the ends in kprobes, tcp_rcv_space_adjust */
	struct sock_states st;
	bool states;
	struct pair_table names; /* socket address -> struct name */
	struct agg conns;	 /* struct key -> struct bytes */
	uint64_t not_kept;	 /* calls not counted: no memory for a new row */
	uint64_t losses;
	uint64_t lives; /* the last life numbered */
	struct row row;
	struct prom_set prom; /* --prom: every row's bytes from the start (count tx, sum rx) */
	uint64_t prom_lost;   /* rows not kept for --prom: out of memory */
} env = {.maxrows = 20};

/*
 * A socket's life at an address: the kernel reuses a closed socket's memory for the next
 * (seen on 6.18: a server's accepted IPv6 socket closed, and the client's next socket, an
 * AF_INET6 one too, had its address), so a row is a life, numbered here, not an address.
 */
struct name {
	uint64_t life; /* from 1, never reused */
	struct sock_tuple tup;
	bool named;  /* the ends are known */
	bool closed; /* CLOSE seen: its next use is a new life */
};

/* A row: a socket's life in a process, the process named as it was at its calls. */
struct key {
	uint64_t sk, life;
	int32_t pid;
	int32_t family; /* the socket's own (4 or 6), for a socket not named */
	char comm[16];
};

struct bytes {
	uint64_t tx, rx;
	struct sock_tuple tup; /* the ends as known at the last call */
	bool named;
};

static const struct row_col cols[] = {
	{"TIME", "time", -8, ROW_WALL, 0, ROW_OPTIONAL, "the interval's end, wall-clock HH:MM:SS"},
	{"PID", "pid", -7, ROW_INT, 0, 0, "the process that sent and received"},
	{"COMM", "comm", -16, ROW_STR, 0, 0, "its name when it did"},
	{"IP", "ip", 2, ROW_INT, 0, 0, "4 or 6 (v4-mapped IPv6 shown as IPv4: 4)"},
	{"LADDR:LPORT", NULL, -26, ROW_WORD, 0, ROW_NOJSON,
	 "the local end (IPv6 in brackets; -: not known)"},
	{"RADDR:RPORT", NULL, -26, ROW_WORD, 0, ROW_NOJSON, "the remote end"},
	{NULL, "laddr", 0, ROW_WORD, 0, ROW_NOTEXT, "the local address (null: not known)"},
	{NULL, "lport", 0, ROW_UINT, 0, ROW_NOTEXT, "the local port"},
	{NULL, "raddr", 0, ROW_WORD, 0, ROW_NOTEXT, "the remote address"},
	{NULL, "rport", 0, ROW_UINT, 0, ROW_NOTEXT, "the remote port"},
	{"TX_KB", NULL, 10, ROW_FLOAT, 1, ROW_NOJSON, "sent in the interval, KiB"},
	{"RX_KB", NULL, 10, ROW_FLOAT, 1, ROW_NOJSON, "received in the interval, KiB"},
	{NULL, "tx_bytes", 0, ROW_UINT, 0, ROW_NOTEXT, "sent in the interval, bytes"},
	{NULL, "rx_bytes", 0, ROW_UINT, 0, ROW_NOTEXT, "received in the interval, bytes"},
};
static const struct row_table table =
	ROW_TABLE("each row: a connection of a process in an interval", cols);

static const struct opt_spec options[] = {
	{'4', NULL, NULL, "only IPv4 connections (v4-mapped IPv6 included)", 0},
	{'6', NULL, NULL, "only IPv6 connections (v4-mapped IPv6 left out)", 0},
	{'C', NULL, NULL, "do not clear the screen between tables", 0},
	TOOL_JSON("one JSON object per row, each with its interval's time"),
	{'n', NULL, "NAME", "only processes whose name matches (glob)", 0},
	{'p', NULL, "PID", "only this process (any of its threads)", 0},
	{'r', NULL, "MAXROWS", "print at most MAXROWS rows a table (default 20; 0: all)", 0},
	TOOL_JSON_KEYS,
	TOOL_PROM,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"tcptop                   # the top 20 connections every second",
	"tcptop -C 5              # every 5 seconds, the screen not cleared",
	"tcptop -r 5 1 10         # the top 5, ten times",
	"tcptop -6 -p 181         # the IPv6 connections of PID 181",
	"tcptop -j 1 5 > top.json # five tables as JSON lines",
	"tcptop -C --prom tcptop.prom 15 > /dev/null # counters for node_exporter",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case '4':
	case '6':
		if (env.family && env.family != o->key - '0')
			opt_fail("-4 and -6 exclude each other");
		env.family = o->key - '0';
		break;
	case 'C': env.noclear = true; break;
	case 'n': env.name = opt_glob(arg, "NAME"); break;
	case 'p': env.pid = opt_live_pid(arg); break;
	case 'r': env.maxrows = opt_int(arg, 0, 1LL << 30, "MAXROWS"); break;
	}
}

/* --- the ends of sockets -------------------------------------------------------------------- */

/* The life at sk now: the one known, else a new one (first seen; or, where a state change
 * or new ends begin one, after CLOSE). Bytes after CLOSE are the closed life's: a socket
 * reads what it was sent before its peer's FIN after it (shutdown(SHUT_WR), then a
 * receive: one connection was two rows). */
static struct name *life_of(uint64_t sk, bool begins)
{
	struct name *n = pair_get(&env.names, sk, 0);
	if (n && (!n->closed || !begins))
		return n;
	n = pair_put(&env.names, sk, 0);
	memset(n, 0, sizeof(*n));
	n->life = ++env.lives;
	return n;
}

static void name_life(struct name *n, const struct sock_tuple *tup)
{
	if (!tup->family)
		return;
	n->tup = *tup;
	n->named = true;
}

/* A state change: a connection's ends when it is made (SYN_SENT's has no source port yet:
 * ESTABLISHED's comes after) and at every later change (a connection made before tracing,
 * at its close), its end at CLOSE. */
static void on_state(struct tep_record *rec, void *ctx)
{
	long long new = reader_num(rec, env.st.newstate);
	uint64_t sk = sock_skaddr(&env.st.f, rec);
	if (!sk || new == env.st.listen)
		return;
	if (new == env.st.close) {
		struct name *n = pair_get(&env.names, sk, 0);
		if (n)
			n->closed = true;
		return;
	}
	struct sock_tuple tup;
	sock_tuple_read(&env.st.f, rec, &tup);
	struct name *n = life_of(sk, true);
	if (tup.sport || !n->named)
		name_life(n, &tup);
}

/* A receive (tcp_rcv_space_adjust): names a socket made before tracing. */
static void on_adjust(struct tep_record *rec, void *ctx)
{
	uint64_t sk = sock_skaddr(&env.fadjust, rec);
	if (!sk)
		return;
	struct name *n = life_of(sk, false);
	if (n->named)
		return;
	struct sock_tuple tup;
	sock_tuple_read(&env.fadjust, rec, &tup);
	name_life(n, &tup);
}

/* Lost events: a socket closed and its address reused in the gap would keep the old ends. */
static void on_lost(int cpu, long long n, void *ctx)
{
	pair_clear(&env.names);
	if (env.kprobes)
		pair_clear(&env.copied);
	env.losses++;
}

/* --- bytes ---------------------------------------------------------------------------------- */

/* Per call: a look-up of the socket's life and one hash update. */
static void count(struct tep_record *rec, const struct name *life, uint64_t sk, int family,
		  uint64_t n, bool send)
{
	struct tool_run *t = env.t;
	int tid = tep_data_pid(t->s.tep, rec);
	int pid = tool_tgid(t, tid);
	if (env.pid && pid != env.pid)
		return;
	const char *comm = tool_comm(t, tid);
	if (env.name && fnmatch(env.name, comm, 0))
		return;
	struct key k;
	memset(&k, 0, sizeof(k));
	k.sk = sk;
	k.life = life->life;
	k.pid = pid;
	k.family = family;
	memcpy(k.comm, comm, strnlen(comm, sizeof(k.comm)));
	struct bytes *b = agg_add(&env.conns, &k, 1);
	if (!b) {
		env.not_kept++;
		return;
	}
	*(send ? &b->tx : &b->rx) += n;
	if (life->named && !b->named) {
		b->tup = life->tup;
		b->named = true;
	}
}

static void on_bytes(struct tep_record *rec, void *ctx)
{
	bool send = ctx != NULL;
	long long ret = reader_num(rec, send ? env.send_ret : env.recv_ret);
	if (ret <= 0 || (!send && (reader_num(rec, env.recv_flags) & 2 /* MSG_PEEK */)))
		return;
	uint64_t sk = (uint64_t)reader_num(rec, send ? env.send_sk : env.recv_sk);
	int family = reader_num(rec, send ? env.send_fam : env.recv_fam) == 10 ? 6 : 4;
	count(rec, life_of(sk, false), sk, family, (uint64_t)ret, send);
}

/* A receive begins: what tcp_cleanup_rbuf says next is counted from 0. */
static void on_recvmsg(struct tep_record *rec, void *ctx)
{
	uint64_t *copied = pair_put(&env.copied, (uint64_t)reader_pid(rec), 0);
	*copied = 0;
}

/* Below 6.3: tcp_sendmsg(sk, msg, size) and tcp_cleanup_rbuf(sk, copied) with the ends. */
static void on_kprobe(struct tep_record *rec, void *ctx)
{
	bool send = ctx != NULL;
	const struct sock_fields *f = send ? &env.fsend : &env.frecv;
	long long n = reader_num(rec, send ? env.send_ret : env.recv_ret);
	if (n <= 0)
		return;
	/* tcp_recvmsg calls tcp_cleanup_rbuf before each wait for more data and at its end,
	 * each time with all it has copied so far (4.19): only the growth is new (none: nothing
	 * new). Smaller than before without a tcp_recvmsg between: another caller's
	 * (tcp_read_sock). */
	if (!send) {
		uint64_t *before = pair_put(&env.copied, (uint64_t)reader_pid(rec), 0);
		uint64_t now = (uint64_t)n;
		n = now >= *before ? (long long)(now - *before) : (long long)now;
		*before = now;
		if (!n)
			return;
	}
	uint64_t sk = sock_skaddr(f, rec);
	struct sock_tuple tup;
	sock_tuple_read(f, rec, &tup);
	/* Other ends at the same address: a new life (no CLOSE is traced on this path where
	 * the kernel has no inet_sock_set_state). Not a local port of 0, nor after CLOSE: the
	 * kernel gives the port back at CLOSE, and what the socket still reads is its
	 * connection's (the 5.10 guest: the read after CLOSE was a row of its own, port 0). */
	struct name *life = life_of(sk, false);
	bool ends = tup.sport && !life->closed;
	if (ends && life->named && memcmp(&life->tup, &tup, sizeof(tup))) {
		life->closed = true;
		life = life_of(sk, true);
	}
	if (ends)
		name_life(life, &tup);
	count(rec, life, sk, tup.family ? tup.family : 4, (uint64_t)n, send);
}

/* --- output --------------------------------------------------------------------------------- */

struct line {
	struct key k;
	struct bytes b;
};

struct lines {
	struct line *v;
	size_t n;
};

static void collect(const void *key, uint64_t calls, const void *val, void *ctx)
{
	struct lines *l = ctx;
	struct line *x = &l->v[l->n++];
	memcpy(&x->k, key, sizeof(x->k));
	memcpy(&x->b, val, sizeof(x->b));
	/* Named since its last call (its close, a receive of the other process's)? */
	const struct name *n = pair_get(&env.names, x->k.sk, 0);
	if (!x->b.named && n && n->life == x->k.life && n->named) {
		x->b.tup = n->tup;
		x->b.named = true;
	}
}

/* The candidates from /proc, less every connection already named. */
struct candidates {
	struct sock_tuple t[64];
	int n;
};

static bool same_ends(const struct sock_tuple *a, const struct sock_tuple *b)
{
	return a->family == b->family && a->sport == b->sport && a->dport == b->dport &&
	       !memcmp(a->saddr, b->saddr, 16) && !memcmp(a->daddr, b->daddr, 16);
}

/* A visit of every name (pair_del_if that deletes none): strike it from the candidates. */
static bool strike_named(void *value, void *ctx)
{
	struct candidates *c = ctx;
	const struct name *n = value;
	for (int i = 0; n->named && i < c->n; i++)
		if (same_ends(&c->t[i], &n->tup))
			c->t[i--] = c->t[--c->n];
	return false;
}

/*
 * A socket made before tracing that neither changed state nor received is named from /proc
 * when that is certain: its process made the call, so it holds the socket open; when the
 * process has exactly one such socket without ends and exactly one TCP connection in /proc
 * whose ends no other socket has, they are the same. Per interval: /proc read only for
 * processes with a socket not named.
 */
static void name_from_proc(struct lines *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct line *x = &l->v[i];
		if (x->b.named)
			continue;
		int unnamed = 0;
		for (size_t j = 0; j < l->n; j++)
			unnamed += l->v[j].k.pid == x->k.pid && !l->v[j].b.named;
		if (unnamed != 1)
			continue;
		struct candidates c;
		c.n = sock_proc_conns("/proc", x->k.pid, c.t, 64);
		if (c.n <= 0 || c.n > 64)
			continue;
		pair_del_if(&env.names, strike_named, &c);
		if (c.n != 1)
			continue;
		struct name *n = pair_get(&env.names, x->k.sk, 0);
		if (n && n->life == x->k.life)
			name_life(n, &c.t[0]);
		x->b.named = true;
		x->b.tup = c.t[0];
	}
}

/* -4, -6: on the ends (v4-mapped is IPv4), or the socket's family when not named. */
static void keep_family(struct lines *l)
{
	size_t kept = 0;
	for (size_t i = 0; i < l->n; i++) {
		int family = l->v[i].b.named ? l->v[i].b.tup.family : l->v[i].k.family;
		if (!env.family || family == env.family)
			l->v[kept++] = l->v[i];
	}
	l->n = kept;
}

/* Most bytes first; then by process, name and the order the sockets were seen in. */
static int by_total(const void *a, const void *b)
{
	const struct line *x = a, *y = b;
	uint64_t tx = x->b.tx + x->b.rx, ty = y->b.tx + y->b.rx;
	if (tx != ty)
		return tx < ty ? 1 : -1;
	if (x->k.pid != y->k.pid)
		return x->k.pid < y->k.pid ? -1 : 1;
	int c = memcmp(x->k.comm, y->k.comm, sizeof(x->k.comm));
	if (c)
		return c;
	return x->k.life < y->k.life ? -1 : x->k.life > y->k.life;
}

/* "ADDR:PORT", an IPv6 address in brackets. */
static void end_text(int family, const unsigned char *a, unsigned port, char *buf, size_t len)
{
	char s[SOCK_ADDRSTRLEN];
	sock_ntop(family, a, s, sizeof(s));
	snprintf(buf, len, family == 6 ? "[%s]:%u" : "%s:%u", s, port);
}

/* --prom: the interval's rows (all of them, not only the -r first) added to the totals, by
 * process and ends ("" where not known: the connections of a process not named are one
 * series), and the file written: two counters. */
static void prom_rows(struct tool_run *t, const struct lines *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct line *x = &l->v[i];
		const struct sock_tuple *tup = x->b.named ? &x->b.tup : NULL;
		char labels[512], pid[16], ip[4], comm[sizeof(x->k.comm) + 1];
		char la[SOCK_ADDRSTRLEN] = "", ra[SOCK_ADDRSTRLEN] = "", lp[8] = "", rp[8] = "";
		snprintf(pid, sizeof(pid), "%d", (int)x->k.pid);
		snprintf(comm, sizeof(comm), "%.*s", (int)sizeof(x->k.comm), x->k.comm);
		snprintf(ip, sizeof(ip), "%d", tup ? tup->family : x->k.family);
		if (tup) {
			sock_ntop(tup->family, tup->saddr, la, sizeof(la));
			sock_ntop(tup->family, tup->daddr, ra, sizeof(ra));
			snprintf(lp, sizeof(lp), "%u", tup->sport);
			snprintf(rp, sizeof(rp), "%u", tup->dport);
		}
		struct prom_series *ps = prom_series(
			&env.prom,
			prom_labels(labels, sizeof(labels), "pid", pid, "comm", comm, "ip", ip,
				    "laddr", la, "lport", lp, "raddr", ra, "rport", rp, NULL));
		if (!ps) {
			env.prom_lost++;
			continue;
		}
		ps->count += x->b.tx;
		ps->sum += x->b.rx;
	}
	prom_say_lost(&env.prom_lost, "tcptop", "rows");
	struct prom *p = tool_prom(t);
	if (!p)
		return;
	static const char *const names[] = {"ftrace_tools_tcptop_sent_bytes_total",
					    "ftrace_tools_tcptop_received_bytes_total"};
	static const char *const helps[] = {
		"TCP bytes sent (what sendmsg returned), by process and connection.",
		"TCP bytes received (what recvmsg returned), by process and connection."};
	for (int f = 0; f < 2; f++) {
		prom_family(p, names[f], "counter", helps[f]);
		for (size_t i = 0; i < env.prom.n; i++)
			prom_uint(p, names[f], env.prom.s[i]->labels,
				  f ? env.prom.s[i]->sum : env.prom.s[i]->count);
	}
	prom_commit(p);
}

static bool closed_name(void *value, void *ctx)
{
	return ((struct name *)value)->closed;
}

static int interval(struct tool_run *t, uint64_t now)
{
	char when[16];
	out_wallclock(now, when);
	struct lines l = {calloc(env.conns.used ? env.conns.used : 1, sizeof(*l.v)), 0};
	if (!l.v) {
		fprintf(stderr, "tcptop: out of memory for a table of %zu rows\n", env.conns.used);
		t->failed = true;
		return 1;
	}
	agg_sorted(&env.conns, collect, &l);
	name_from_proc(&l);
	keep_family(&l);
	qsort(l.v, l.n, sizeof(*l.v), by_total);
	if (t->prom)
		prom_rows(t, &l);
	if (!t->o.json) {
		if (env.clearing)
			fputs("\033[H\033[2J", stdout); /* what clear(1) writes for xterm */
		else
			out_table_gap(stdout);
		printf("%s\n", when);
		row_header(&env.row);
		if (!l.n)
			out_none(stdout, "TCP traffic");
	}
	size_t shown = env.maxrows && (size_t)env.maxrows < l.n ? (size_t)env.maxrows : l.n;
	for (size_t i = 0; i < shown; i++) {
		const struct line *x = &l.v[i];
		const struct sock_tuple *tup = x->b.named ? &x->b.tup : NULL;
		struct row *r = &env.row;
		row_begin(r, now);
		row_int(r, x->k.pid);
		row_str(r, x->k.comm, sizeof(x->k.comm));
		row_int(r, tup ? tup->family : x->k.family);
		if (tup) {
			char le[SOCK_ADDRSTRLEN + 10], re[SOCK_ADDRSTRLEN + 10];
			char la[SOCK_ADDRSTRLEN], ra[SOCK_ADDRSTRLEN];
			end_text(tup->family, tup->saddr, tup->sport, le, sizeof(le));
			end_text(tup->family, tup->daddr, tup->dport, re, sizeof(re));
			row_word(r, le);
			row_word(r, re);
			row_word(r, sock_ntop(tup->family, tup->saddr, la, sizeof(la)));
			row_uint(r, tup->sport);
			row_word(r, sock_ntop(tup->family, tup->daddr, ra, sizeof(ra)));
			row_uint(r, tup->dport);
		} else {
			for (int c = 0; c < 6; c++)
				row_none(r);
		}
		row_float(r, x->b.tx / 1024.0);
		row_float(r, x->b.rx / 1024.0);
		row_uint(r, x->b.tx);
		row_uint(r, x->b.rx);
		row_end(r);
	}
	free(l.v);
	agg_reset(&env.conns);
	pair_del_if(&env.names, closed_name, NULL);
	if (env.not_kept) {
		fprintf(stderr,
			"tcptop: WARNING: %llu calls not counted (out of memory for rows)\n",
			(unsigned long long)env.not_kept);
		env.not_kept = 0;
	}
	return 0;
}

/* Stopped mid-interval (Ctrl-C, -p's process gone): the table so far. */
static void end(struct tool_run *t)
{
	if (!t->last_interval && env.conns.used)
		interval(t, reader_now());
	else if (t->prom && !t->intervals) /* stopped before the first table: a file all the same */
		prom_rows(t, &(struct lines){NULL, 0});
	if (env.losses)
		fprintf(stderr, "tcptop: the ends learnt were forgotten at %llu losses of events\n",
			(unsigned long long)env.losses);
}

/* --- the run -------------------------------------------------------------------------------- */

static int load_tracepoints(struct tool_run *t)
{
	env.send_ev = session_load_event(&t->s, "sock", "sock_send_length");
	env.recv_ev = session_load_event(&t->s, "sock", "sock_recv_length");
	if (!env.send_ev || !env.recv_ev)
		return -1;
	env.send_sk = tep_find_field(env.send_ev, "sk");
	env.send_ret = tep_find_field(env.send_ev, "ret");
	env.send_fam = tep_find_field(env.send_ev, "family");
	env.recv_sk = tep_find_field(env.recv_ev, "sk");
	env.recv_ret = tep_find_field(env.recv_ev, "ret");
	env.recv_fam = tep_find_field(env.recv_ev, "family");
	env.recv_flags = tep_find_field(env.recv_ev, "flags");
	if (!env.send_sk || !env.send_ret || !env.send_fam || !env.recv_sk || !env.recv_ret ||
	    !env.recv_fam || !env.recv_flags)
		return -1;
	env.states = sock_states_load(&env.st, &t->s, false) == 0;
	env.adjust_ev = session_load_event(&t->s, "tcp", "tcp_rcv_space_adjust");
	if (env.adjust_ev && sock_fields_init(&env.fadjust, env.adjust_ev))
		env.adjust_ev = NULL;
	return 0;
}

static int load_kprobes(struct tool_run *t)
{
	char base[1024], args[1200];
	if (!probe_available(&t->s, PROBE_KPROBE, true) ||
	    sock_kprobe_args(base, sizeof(base), "%di"))
		return -1;
	snprintf(args, sizeof(args), "%s size=%%dx:s64", base);
	env.send_ev = probe_create(&t->s, PROBE_KPROBE, 'p', "send", "tcp_sendmsg", args);
	snprintf(args, sizeof(args), "%s copied=%%si:s32", base);
	env.recv_ev = probe_create(&t->s, PROBE_KPROBE, 'p', "recv", "tcp_cleanup_rbuf", args);
	if (!env.send_ev || !env.recv_ev || sock_fields_init(&env.fsend, env.send_ev) ||
	    sock_fields_init(&env.frecv, env.recv_ev) ||
	    !(env.send_ret = tep_find_field(env.send_ev, "size")) ||
	    !(env.recv_ret = tep_find_field(env.recv_ev, "copied")))
		return -1;
	env.recvmsg_ev = probe_create(&t->s, PROBE_KPROBE, 'p', "recvmsg", "tcp_recvmsg", "");
	if (!env.recvmsg_ev || pair_init(&env.copied, 4096, sizeof(uint64_t)))
		return -1;
	env.kprobes = true;
	return 0;
}

static enum tool_code prepare(struct tool_run *t)
{
	env.t = t;
	if (env.pid)
		tool_watch(t, env.pid, false);
	if (load_tracepoints(t)) {
		env.send_ev = env.recv_ev = NULL;
		if (!probe_available(&t->s, PROBE_KPROBE, true)) {
			fprintf(stderr,
				"tcptop: no sock:sock_send_length in this kernel (Linux 6.3) "
				"and no kprobes for tcp_sendmsg (CONFIG_KPROBE_EVENTS)\n");
			return TOOL_FAIL;
		}
		if (load_kprobes(t)) {
			fprintf(stderr,
				"tcptop: no sock:sock_send_length in this kernel (Linux 6.3) "
				"and the kprobes on tcp_sendmsg and tcp_cleanup_rbuf could "
				"not be made\n");
			return TOOL_FAIL;
		}
	}
	if (pair_init(&env.names, 16384, sizeof(struct name)) ||
	    agg_init(&env.conns, sizeof(struct key), sizeof(struct bytes)))
		return TOOL_FAIL;
	snprintf(t->traced, sizeof(t->traced), "TCP send and receive");
	return TOOL_OK;
}

static enum tool_code setup(struct tool_run *t)
{
	env.clearing = !t->o.json && !env.noclear && isatty(STDOUT_FILENO);
	int ret;
	if (reader_on_lost(&t->r, on_lost, NULL))
		return TOOL_FAIL;
	if (env.kprobes) {
		if ((ret = tool_trace(t, env.send_ev, "size > 0", on_kprobe, &env)) ||
		    (ret = tool_trace(t, env.recvmsg_ev, NULL, on_recvmsg, NULL)) ||
		    (ret = tool_trace(t, env.recv_ev, "copied > 0", on_kprobe, NULL)))
			return ret;
		return TOOL_OK;
	}
	/* -6 is an AF_INET6 socket (the kernel filters); -4 is decided on the ends, since an
	 * AF_INET6 socket may hold a v4-mapped, IPv4 connection. */
	const char *filter = env.family == 6 ? "protocol == 6 && ret > 0 && family == 10" :
					       "protocol == 6 && ret > 0";
	if ((ret = tool_trace(t, env.send_ev, filter, on_bytes, &env)) ||
	    (ret = tool_trace(t, env.recv_ev, filter, on_bytes, NULL)))
		return ret;
	if (env.states &&
	    (ret = tool_trace(t, env.st.ev, sock_states_filter(&env.st), on_state, NULL)))
		return ret;
	if (env.adjust_ev && (ret = tool_trace(t, env.adjust_ev, NULL, on_adjust, NULL)))
		return ret;
	return TOOL_OK;
}

static void banner(struct tool_run *t)
{
	fprintf(stderr,
		"Tracing TCP send and receive%s. Output every %.6g seconds. Ctrl-C to end.\n",
		env.kprobes ? " (kprobes)" : "", t->o.interval / 1e9);
}

static void cleanup(struct tool_run *t)
{
	agg_free(&env.conns);
	prom_set_free(&env.prom);
	pair_free(&env.names);
	if (env.kprobes)
		pair_free(&env.copied);
	if (env.states)
		sock_states_free(&env.st);
}

static const struct tool tcptop = {
	.name = "tcptop",
	.batched = true,
	.no_cgroup = true,
	.opts = options,
	.operand_kind = TOOL_OPERAND_INTERVALS,
	.interval_prints = "tables",
	.interval_default_s = 1,
	.examples = examples,
	.formats = (const char *const[]){NULL},
	.rows = (const struct row_table *const[]){&table, NULL},
	.option = option,
	.prepare = prepare,
	.setup = setup,
	.banner = banner,
	.interval = interval,
	.end = end,
	.cleanup = cleanup,
	.table = &table,
	.row = &env.row,
	.header_later = true,
};

int main(int argc, char **argv)
{
	return tool_main(&tcptop, argc, argv);
}
