// SPDX-License-Identifier: GPL-2.0-only
/*
 * tcpdrop: each TCP packet the kernel drops: where (the function of the drop site), why (the
 * kernel's reason, Linux 5.17+), and both ends where an event says them; -s the kernel stack
 * of the drop. From skb:kfree_skb, which names no addresses: they come from the socket that
 * received the packet (its rx_sk, 6.11, whose ends its state changes gave), from the reset
 * the kernel sent in reply to it just before (tcp:tcp_send_reset of the same packet: a SYN
 * to a port where nothing listens), for a packet dropped on the way out from the socket the
 * thread just moved to SYN_SENT (its connect's first SYN) or from the failed retransmit
 * recorded right after the drop (tcp:tcp_retransmit_skb with err, 6.17). TCP's drops are
 * those of IP packets at a drop site in TCP's code (tcp_*, __tcp_*, inet_csk_*, sk_stream_*)
 * or of a TCP socket; --all-ip shows every IP packet dropped. Drops without a reason
 * (NOT_SPECIFIED) are left out where the kernel gives reasons, as bcc's and bpftrace's
 * tcpdrop do.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "stream/comm.h"
#include "stream/evprint.h"
#include "stream/field.h"
#include "stream/ksym.h"
#include "base/pair.h"
#include "stream/reader.h"
#include "base/row.h"
#include "domain/sock.h"
#include "join/span.h"
#include "tool.h"

static struct env {
	bool stack;  /* -s */
	bool all_ip; /* --all-ip */
	struct tool_run *t;
	struct tep_event *kfree, *reset, *retrans, *kstack;
	struct tep_format_field *skbaddr, *location, *protocol, *reason, *rx_sk;
	struct tep_format_field *reset_skb, *reset_state, *retrans_state;
	struct sock_fields rf, tf;
	struct sock_names reasons;
	long long not_specified; /* its value, -1: no reasons */
	struct sock_states st;	 /* rx_sk's ends, by its state changes */
	bool socks_on;
	struct span socks;	      /* by socket address: ends and state */
	struct span resets;	      /* by packet address and CPU: the reset sent for it */
	struct pair_table connecting; /* by thread: the socket it just moved to SYN_SENT */
	struct pair_table tcp_site;   /* location -> 1 TCP's, 2 not */
	/* Per CPU: a drop with no ends yet, waiting for the failed retransmit that may follow. */
	struct drop *held;
	int ncpus;
	unsigned long long wakes, shown, without_ends;
	struct ksyms *ksyms;
	struct evprint *stacks;
	struct row row;
} env;

/* A drop as its record gave it, for a line printed now or once its ends are known. */
struct drop {
	bool held;
	uint64_t ts, wakes;
	int tid, pid, flags;
	char comm[17];
	long long proto, reason;
	unsigned long long loc;
	bool tcp_site;
};

static const struct row_col cols[] = {
	ROW_COL_TS,
	ROW_COL_WALL,
	{"PID", "pid", 7, ROW_INT, 0, 0, "the task the drop happened in"},
	{"COMM", "comm", -16, ROW_STR, 0, 0, "its name then"},
	{NULL, "context", 0, ROW_WORD, 0, ROW_NOTEXT,
	 "task, softirq or irq (then the task was only interrupted)"},
	{"IP", "ip", 2, ROW_INT, 0, 0,
	 "4 or 6 (from the packet's protocol when no ends are known)"},
	{"LADDR", "laddr", -15, ROW_WORD, 0, 0, "this host's end (- or null: not known)"},
	{"LPORT", "lport", 5, ROW_UINT, 0, 0, "its port"},
	{"RADDR", "raddr", -15, ROW_WORD, 0, 0, "the other end"},
	{"RPORT", "rport", 5, ROW_UINT, 0, 0, "its port"},
	{"STATE", "state", -11, ROW_WORD, 0, 0, "the socket's TCP state (null: not known)"},
	{"REASON", "reason", -20, ROW_WORD, 0, 0, "the kernel's drop reason (5.17+)"},
	{"LOCATION", "location", 0, ROW_WORD, 0, 0, "the drop site: function+offset"},
};
static const struct row_table table = ROW_TABLE("each drop", cols);

enum { OPT_ALL_IP = OPT_LONG + 1 };

static const struct opt_spec options[] = {
	TOOL_DURATION,
	TOOL_JSON("one JSON object per drop"),
	{'s', NULL, NULL, "the kernel stack of each drop", 0},
	TOOL_TIMESTAMP,
	TOOL_WALLCLOCK,
	{OPT_ALL_IP, "all-ip", NULL, "every IP packet dropped, not only TCP's", 0},
	TOOL_JSON_KEYS,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"tcpdrop                   # every TCP packet dropped",
	"tcpdrop -s                # with the kernel stack of each drop",
	"tcpdrop -T --all-ip       # every IP packet dropped, wall-clock times",
	"tcpdrop -j -d 5           # 5 seconds as JSON lines",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	if (o->key == 's')
		env.stack = true;
	else if (o->key == OPT_ALL_IP)
		env.all_ip = true;
}

static bool tcp_function(const char *f)
{
	static const char *const prefixes[] = {"tcp", "__tcp", "inet_csk", "sk_stream"};
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(*prefixes); i++)
		if (!strncmp(f, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* Is the drop site in TCP's code? Decided once per site. */
static bool tcp_site(unsigned long long loc)
{
	unsigned char *v = pair_get(&env.tcp_site, loc, 0);
	if (!v) {
		unsigned long long off;
		const char *f = env.ksyms ? ksym_find(env.ksyms, loc, &off) : NULL;
		v = pair_put(&env.tcp_site, loc, 0);
		*v = f && tcp_function(f) ? 1 : 2;
	}
	return *v == 1;
}

/* One line: k the ends and state when an event gave them (NULL: none), state_known whether
 * k's state is the socket's. */
static void print_drop(const struct drop *d, const struct sock_known *k, bool state_known)
{
	char a[SOCK_ADDRSTRLEN], b[SOCK_ADDRSTRLEN], st[16], why[16], where[160];
	struct row *r = &env.row;
	env.shown++;
	if (!k)
		env.without_ends++;
	row_begin(r, d->ts);
	row_int(r, d->pid);
	row_str(r, d->comm, 16);
	row_word(r, field_context(d->flags));
	row_int(r, k ? k->tup.family : d->proto == 0x86dd ? 6 : 4);
	if (k) {
		row_word(r, sock_ntop(k->tup.family, k->tup.saddr, a, sizeof(a)));
		/* 0: not chosen yet when the event was made (a connect's SYN_SENT, before the
		 * kernel picks the source port) */
		if (k->tup.sport)
			row_uint(r, k->tup.sport);
		else
			row_none(r);
		row_word(r, sock_ntop(k->tup.family, k->tup.daddr, b, sizeof(b)));
		row_uint(r, k->tup.dport);
	} else {
		for (int i = 0; i < 4; i++)
			row_none(r);
	}
	if (state_known)
		row_word(r, sock_state_name(&env.st, k->state, st, sizeof(st)));
	else
		row_none(r);
	if (env.reason)
		row_word(r, sock_name(&env.reasons, d->reason, why, sizeof(why)));
	else
		row_none(r);
	unsigned long long off;
	const char *f = env.ksyms ? ksym_find(env.ksyms, d->loc, &off) : NULL;
	if (f)
		snprintf(where, sizeof(where), "%.120s+0x%llx", f, off);
	else
		snprintf(where, sizeof(where), "0x%llx", d->loc);
	row_word(r, where);
}

/* A drop whose ends no event gave: shown without them (not at all without --all-ip when its
 * site is not TCP's: an IP packet of another protocol, as far as anything says). */
static void print_unknown(const struct drop *d, struct tep_record *rec)
{
	if (!env.all_ip && !d->tcp_site)
		return;
	print_drop(d, NULL, false);
	row_end_open(&env.row);
	if (env.stacks && rec)
		evprint_trailers(env.stacks, rec);
	row_close(&env.row);
}

static void flush_held(int cpu)
{
	if (cpu < 0 || cpu >= env.ncpus || !env.held[cpu].held)
		return;
	env.held[cpu].held = false;
	print_unknown(&env.held[cpu], NULL);
}

static void on_lost(int cpu, long long n, void *ctx)
{
	if (cpu < 0)
		for (int i = 0; i < env.ncpus; i++)
			flush_held(i);
	else
		flush_held(cpu);
	pair_clear(&env.connecting);
}

static void on_state(struct tep_record *rec, void *ctx)
{
	flush_held(rec->cpu);
	sock_known_update(&env.st, &env.socks, rec);
	/* A connect: its first SYN is sent by this thread before connect() returns, right
	 * after this change (tcp_v4_connect, tcp_v6_connect). */
	if (reader_num(rec, env.st.newstate) == env.st.syn_sent && sock_in_task(env.t->s.tep, rec))
		*(unsigned long long *)pair_put(&env.connecting, (uint64_t)reader_pid(rec), 0) =
			sock_skaddr(&env.st.f, rec);
}

/* A reset sent in reply to a packet: the packet's ends, from this host's side. */
static void on_reset(struct tep_record *rec, void *ctx)
{
	flush_held(rec->cpu);
	unsigned long long skb = (unsigned long long)reader_num(rec, env.reset_skb);
	if (!skb)
		return; /* a reset of a socket's own (an abort), for no packet */
	struct sock_known *k =
		span_begin(&env.resets, skb, (uint64_t)rec->cpu, rec->ts, rec->cpu, 0);
	sock_tuple_read(&env.rf, rec, &k->tup);
	k->state = env.reset_state ? (int)reader_num(rec, env.reset_state) : 0;
}

/*
 * A retransmit that failed (tcp_retransmit_skb with err, Linux 6.17+, filtered in setup()):
 * the packet it sent was dropped on the way out (netfilter's OUTPUT, a qdisc, no route) just
 * before, on this CPU in the same context, and that drop's record is the CPU's last. Its skb
 * is a clone of the one this event names, so the addresses cannot be compared.
 */
static void on_retrans(struct tep_record *rec, void *ctx)
{
	if (rec->cpu < 0 || rec->cpu >= env.ncpus)
		return;
	struct drop *d = &env.held[rec->cpu];
	int flags = tep_data_flags(env.t->s.tep, rec);
	if (!d->held || (d->flags & FIELD_IN_INTERRUPT) != (flags & FIELD_IN_INTERRUPT)) {
		flush_held(rec->cpu);
		return;
	}
	d->held = false;
	struct sock_known k;
	sock_tuple_read(&env.tf, rec, &k.tup);
	k.state = (int)reader_num(rec, env.retrans_state);
	print_drop(d, &k, true);
	row_end_open(&env.row);
	row_close(&env.row);
}

static void on_kfree(struct tep_record *rec, void *ctx)
{
	struct tool_run *t = env.t;
	flush_held(rec->cpu);
	struct drop d = {0};
	d.ts = rec->ts;
	d.loc = (unsigned long long)reader_num(rec, env.location);
	d.proto = reader_num(rec, env.protocol);
	d.reason = env.reason ? reader_num(rec, env.reason) : 0;
	d.tid = tep_data_pid(t->s.tep, rec);
	d.flags = tep_data_flags(t->s.tep, rec);
	unsigned long long skb = (unsigned long long)reader_num(rec, env.skbaddr);
	struct sock_known k = {0};
	bool known = false, state_known = false;
	struct span_start *s = span_find(&env.resets, skb, (uint64_t)rec->cpu);
	if (s) {
		k = *(struct sock_known *)span_data(s);
		known = true;
		state_known = k.state != 0;
		span_drop(&env.resets, skb, (uint64_t)rec->cpu);
	}
	unsigned long long rx = env.rx_sk ? (unsigned long long)reader_num(rec, env.rx_sk) : 0;
	struct span_start *rs = rx && env.socks_on ? span_find(&env.socks, rx, 0) : NULL;
	if (rs) {
		if (!known)
			k = *(struct sock_known *)span_data(rs);
		known = state_known = true;
	}
	/* Not received: this thread's own connect's SYN, dropped on the way out. Never at a
	 * site in TCP's code: a packet TCP drops itself is one it received (tcp_v4_rcv,
	 * tcp_v6_rcv, a socket's backlog processed in a task by release_sock), which, where no
	 * rx_sk (6.11) or reset (6.2) gave its ends, is not the connect's. The thread's entry
	 * then stays for its SYN's own drop. */
	unsigned long long *conn = !known && !rx && !(d.flags & FIELD_IN_INTERRUPT) &&
						   env.socks_on && !tcp_site(d.loc) ?
					   pair_get(&env.connecting, (uint64_t)d.tid, 0) :
					   NULL;
	if (conn) {
		struct span_start *cs = span_find(&env.socks, *conn, 0);
		if (cs && ((struct sock_known *)span_data(cs))->state == env.st.syn_sent) {
			k = *(struct sock_known *)span_data(cs);
			known = state_known = true;
		}
		pair_del(&env.connecting, conn);
	}
	d.tcp_site = known || tcp_site(d.loc);
	d.pid = tool_tgid(t, d.tid);
	snprintf(d.comm, sizeof(d.comm), "%s", tool_comm(t, d.tid));
	if (!known && !rx && env.held && rec->cpu >= 0 && rec->cpu < env.ncpus) {
		d.held = true;
		d.wakes = env.wakes;
		env.held[rec->cpu] = d;
		return;
	}
	if (!known) {
		print_unknown(&d, rec);
		return;
	}
	print_drop(&d, &k, state_known);
	/* Text: the stack's lines after the line; JSON: its member inside the object. */
	row_end_open(&env.row);
	if (env.stacks)
		evprint_trailers(env.stacks, rec);
	row_close(&env.row);
}

static enum tool_code prepare(struct tool_run *t)
{
	env.t = t;
	env.kfree = session_load_event(&t->s, "skb", "kfree_skb");
	if (!env.kfree || !(env.skbaddr = tep_find_field(env.kfree, "skbaddr")) ||
	    !(env.location = tep_find_field(env.kfree, "location")) ||
	    !(env.protocol = tep_find_field(env.kfree, "protocol"))) {
		fprintf(stderr, "tcpdrop: no skb:kfree_skb in this kernel (CONFIG_EVENT_TRACING, "
				"CONFIG_NET)\n");
		return TOOL_FAIL;
	}
	env.reason = tep_find_field(env.kfree, "reason");
	env.rx_sk = tep_find_field(env.kfree, "rx_sk");
	env.not_specified = -1;
	if (env.reason) {
		sock_names_read(&env.reasons, env.kfree, "reason", "SKB_DROP_REASON_", NULL);
		env.not_specified = sock_value(&env.reasons, "NOT_SPECIFIED");
	}
	bool states = sock_states_load(&env.st, &t->s, false) == 0;
	if (!states)
		sock_names_tcp_states(&env.st.names);
	env.socks_on = states;
	env.reset = session_load_event(&t->s, "tcp", "tcp_send_reset");
	if (env.reset && (sock_fields_init(&env.rf, env.reset) ||
			  !(env.reset_skb = tep_find_field(env.reset, "skbaddr"))))
		env.reset = NULL;
	env.reset_state = env.reset ? tep_find_field(env.reset, "state") : NULL;
	/* Since 6.17 a failed retransmit has its event too (with err): the ends of the packet
	 * dropped just before it. Its drop is held until then, which -s cannot (its stack
	 * comes with the drop's record). */
	env.retrans = env.stack ? NULL : session_load_event(&t->s, "tcp", "tcp_retransmit_skb");
	if (env.retrans &&
	    (sock_fields_init(&env.tf, env.retrans) || !tep_find_field(env.retrans, "err") ||
	     !(env.retrans_state = tep_find_field(env.retrans, "state"))))
		env.retrans = NULL;
	if (env.retrans) {
		long ncpus = sysconf(_SC_NPROCESSORS_CONF);
		env.ncpus = ncpus > 0 ? (int)ncpus : 1;
		if (!(env.held = calloc((size_t)env.ncpus, sizeof(*env.held))))
			return TOOL_FAIL;
	}
	/* Read at the first drop (one stall of the reader, ~50 ms, the kernel's buffers
	 * holding the events meanwhile), not before the banner: drops are rare */
	if (!(env.ksyms = ksym_load_late(false)))
		fprintf(stderr, "tcpdrop: /proc/kallsyms cannot be read: drop sites are shown "
				"as addresses, and only drops of known TCP sockets are TCP's\n");
	if (span_init_run(t, &env.socks, 16384, sizeof(struct sock_known), SPAN_LOSS_ALL, NULL,
			  NULL) ||
	    span_init_run(t, &env.resets, 256, sizeof(struct sock_known), SPAN_LOSS_CPU, NULL,
			  NULL) ||
	    pair_init(&env.tcp_site, 4096, 1) ||
	    pair_init(&env.connecting, 1024, sizeof(unsigned long long)))
		return TOOL_FAIL;
	snprintf(t->traced, sizeof(t->traced), "%s drops%s",
		 env.all_ip ? "IP packet" : "TCP packet",
		 env.reason ? "" : " (no drop reasons before Linux 5.17)");
	return TOOL_OK;
}

static enum tool_code setup(struct tool_run *t)
{
	int ret;
	char filter[256];
	/* IP packets (ETH_P_IP, ETH_P_IPV6) with a reason: the kernel frees others as drops
	 * all the time. */
	int n = snprintf(filter, sizeof(filter), "(protocol == 2048 || protocol == 34525)");
	if (env.not_specified >= 0)
		snprintf(filter + n, sizeof(filter) - (size_t)n, " && reason != %lld",
			 env.not_specified);
	if (env.stack) {
		struct tep_event *ustack;
		if ((ret = tool_stacks(t, true, false, false, &env.kstack, &ustack)))
			return ret;
		if (!(env.stacks = evprint_new(t->s.tep, t->o.json, t->o.wallclock)))
			return TOOL_FAIL;
		evprint_stacks(env.stacks, env.kstack, env.ksyms, NULL);
		/* From the drop site: the tracepoint's own frame left out. */
		static const char *const skip[] = {"trace_event_raw_event_kfree_skb", NULL};
		evprint_kstack_after(env.stacks, skip);
	}
	if (reader_on_lost(&t->r, on_lost, NULL))
		return TOOL_FAIL;
	if (env.socks_on &&
	    (ret = tool_trace(t, env.st.ev, sock_states_filter(&env.st), on_state, NULL)))
		return ret;
	if (env.reset && (ret = tool_trace(t, env.reset, NULL, on_reset, NULL)))
		return ret;
	/* Failed, and not before anything was sent (6.18's __tcp_retransmit_skb: -EBUSY still
	 * queued in the host, -EAGAIN no window, -EINVAL already acknowledged): those drop
	 * nothing. */
	if (env.retrans &&
	    (ret = tool_trace(t, env.retrans, "err != 0 && err != -16 && err != -11 && err != -22",
			      on_retrans, NULL)))
		return ret;
	return tool_trace(t, env.kfree, filter, on_kfree, NULL);
}

/* A CPU whose next record does not come would hold its drop indefinitely: shown once it is
 * half a second old (the retransmit that names it comes microseconds after it), or after ten
 * wake-ups of the reader where the trace clock is not the monotonic one. */
static void wake(struct tool_run *t, uint64_t now)
{
	for (int i = 0; i < env.ncpus; i++) {
		struct drop *d = &env.held[i];
		if (d->held &&
		    (t->r.mono ? now > d->ts + 500000000ULL : env.wakes - d->wakes >= 10))
			flush_held(i);
	}
	env.wakes++;
}

static void end(struct tool_run *t)
{
	for (int i = 0; i < env.ncpus; i++)
		flush_held(i);
	if (env.without_ends)
		fprintf(stderr,
			"tcpdrop: %llu of %llu drops shown without their ends: no event of this "
			"kernel tied those packets to a socket (tcpdrop(8), ENDS)\n",
			env.without_ends, env.shown);
}

static void cleanup(struct tool_run *t)
{
	free(env.held);
	pair_free(&env.connecting);
	span_free(&env.socks);
	span_free(&env.resets);
	pair_free(&env.tcp_site);
	if (env.stacks)
		evprint_free(env.stacks);
	if (env.ksyms)
		ksym_free(env.ksyms);
	sock_names_free(&env.reasons);
	sock_states_free(&env.st);
}

static const struct tool tcpdrop = {
	.name = "tcpdrop",
	.no_cgroup = true,
	.opts = options,
	.examples = examples,
	.formats = (const char *const[]){NULL},
	.rows = (const struct row_table *const[]){&table, &evprint_kstack_keys, NULL},
	.option = option,
	.prepare = prepare,
	.setup = setup,
	.table = &table,
	.row = &env.row,
	.wake = wake,
	.end = end,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&tcpdrop, argc, argv);
}
