// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sockets of TCP events read by field name, on raw pages recorded from Linux 6.18
 * (tests/fixtures/net-6.18, recorded by record-net.sh): connections over IPv4, IPv6 and
 * v4-mapped IPv6, connects refused with resets and drops, a SYN retransmitted. Every record
 * is checked against the kernel's own rendering of it in trace.txt: the family, ports,
 * addresses (the v4 fields where the kernel shows IPv4, the v6 ones otherwise), the TCP
 * states and drop reasons by the names the print fmt gives them. Then the port lists, and
 * the listeners of a fake /proc.
 */
#include "helpers.h"

#include <arpa/inet.h>

#include <event-parse.h>
#include <tracefs.h>

#include "base/opt.h"
#include "stream/reader.h"
#include "kernel/session.h"
#include "domain/sock.h"

#define NET FIXTURES "/net-6.18"

/* --- the kernel's text ------------------------------------------------------------------- */

struct line {
	int cpu;
	unsigned long long us;
	char event[32];
	char rest[1024];
	bool used;
};
static struct line lines[256];
static int nlines;

static void load_text(void)
{
	static char buf[1 << 18];
	nlines = 0;
	assert_non_null(read_file(NET, "trace.txt", buf, sizeof(buf)));
	for (char *l = strtok(buf, "\n"); l && nlines < 256; l = strtok(NULL, "\n")) {
		if (l[0] == '#')
			continue;
		struct line *x = &lines[nlines];
		unsigned long s, us;
		int off = 0;
		char *b = strchr(l, '[');
		assert_non_null(b);
		assert_int_equal(sscanf(b, "[%d] %*s %lu.%lu: %31[^:]: %n", &x->cpu, &s, &us,
					x->event, &off),
				 4);
		x->us = s * 1000000ULL + us;
		snprintf(x->rest, sizeof(x->rest), "%s", b + off);
		nlines++;
	}
	assert_true(nlines > 50);
}

/* The text line of a record: same CPU, event and microsecond, not used before. */
static struct line *line_of(const struct tep_record *rec, const char *event)
{
	for (int i = 0; i < nlines; i++) {
		struct line *x = &lines[i];
		if (!x->used && x->cpu == rec->cpu &&
		    x->us == (rec->ts + 500) / 1000 && /* rounded, as ns2usecs */
		    !strcmp(x->event, event)) {
			x->used = true;
			return x;
		}
	}
	fail_msg("no text line for %s at cpu %d ts %llu", event, rec->cpu,
		 (unsigned long long)rec->ts);
	return NULL;
}

/* The value of key= in a line (up to the next space). */
static const char *val(const struct line *x, const char *key, char *buf, size_t len)
{
	char k[64];
	snprintf(k, sizeof(k), " %s=", key);
	char pad[1100];
	snprintf(pad, sizeof(pad), " %s", x->rest);
	const char *p = strstr(pad, k);
	if (!p) {
		snprintf(k, sizeof(k), " %s: ", key); /* kfree_skb's "reason: X" */
		p = strstr(pad, k);
	}
	assert_non_null(p);
	p += strlen(k);
	size_t n = strcspn(p, " ");
	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), p);
	return buf;
}

/* --- decoding ------------------------------------------------------------------------------ */

static struct {
	struct tep_event *set_state, *retrans, *reset, *kfree;
	struct sock_fields fs, fr, fx;
	struct sock_names states, rstates, xstates, reasons, rst_reasons;
	int n_state, n_retrans, n_reset, n_kfree, v4, v6, mapped;
} g;

/* The addresses the kernel shows for a tuple: the v4 fields' for IPv4 (also for an IPv6
 * socket whose addresses are v4-mapped), the v6 fields' otherwise. */
static void check_tuple(const struct line *x, const struct sock_tuple *t, bool has_family)
{
	char b[64], a[SOCK_ADDRSTRLEN];
	if (has_family) {
		int fam = !strcmp(val(x, "family", b, sizeof(b)), "AF_INET") ? 4 : 6;
		if (fam == 6 && t->family == 4) {
			g.mapped++;
			assert_true(!strncmp(val(x, "saddrv6", b, sizeof(b)), "::ffff:", 7));
		} else {
			assert_int_equal(t->family, fam);
		}
	}
	assert_int_equal(t->sport, atoi(val(x, "sport", b, sizeof(b))));
	assert_int_equal(t->dport, atoi(val(x, "dport", b, sizeof(b))));
	const char *sk = t->family == 4 ? "saddr" : "saddrv6";
	const char *dk = t->family == 4 ? "daddr" : "daddrv6";
	assert_string_equal(sock_ntop(t->family, t->saddr, a, sizeof(a)), val(x, sk, b, sizeof(b)));
	assert_string_equal(sock_ntop(t->family, t->daddr, a, sizeof(a)), val(x, dk, b, sizeof(b)));
	t->family == 4 ? g.v4++ : g.v6++;
}

static void on_state(struct tep_record *rec, void *ctx)
{
	(void)ctx;
	struct line *x = line_of(rec, "inet_sock_set_state");
	struct sock_tuple t;
	sock_tuple_read(&g.fs, rec, &t);
	check_tuple(x, &t, true);
	char b[64], want[64];
	snprintf(want, sizeof(want), "TCP_%s",
		 sock_name(&g.states, reader_num(rec, tep_find_field(g.set_state, "oldstate")),
			   NULL, 0));
	assert_string_equal(want, val(x, "oldstate", b, sizeof(b)));
	snprintf(want, sizeof(want), "TCP_%s",
		 sock_name(&g.states, reader_num(rec, tep_find_field(g.set_state, "newstate")),
			   NULL, 0));
	assert_string_equal(want, val(x, "newstate", b, sizeof(b)));
	assert_true(sock_skaddr(&g.fs, rec) != 0);
	g.n_state++;
}

static void on_retrans(struct tep_record *rec, void *ctx)
{
	(void)ctx;
	struct line *x = line_of(rec, "tcp_retransmit_skb");
	struct sock_tuple t;
	sock_tuple_read(&g.fr, rec, &t);
	check_tuple(x, &t, true);
	char b[64], want[64];
	/* Its table names the states by enum (TCP_SYN_SENT), resolved by set_state's. */
	snprintf(want, sizeof(want), "TCP_%s",
		 sock_name(&g.rstates, reader_num(rec, tep_find_field(g.retrans, "state")), NULL,
			   0));
	assert_string_equal(want, val(x, "state", b, sizeof(b)));
	g.n_retrans++;
}

/* tcp_send_reset of 6.2+: the flow as sockaddrs ("127.0.0.1:47303", "[::1]:47303"). */
static void on_reset(struct tep_record *rec, void *ctx)
{
	(void)ctx;
	struct line *x = line_of(rec, "tcp_send_reset");
	struct sock_tuple t;
	sock_tuple_read(&g.fx, rec, &t);
	char b[64], a[SOCK_ADDRSTRLEN], want[80];
	sock_ntop(t.family, t.saddr, a, sizeof(a));
	snprintf(want, sizeof(want), t.family == 6 ? "[%s]:%u" : "%s:%u", a, t.sport);
	assert_string_equal(want, val(x, "src", b, sizeof(b)));
	sock_ntop(t.family, t.daddr, a, sizeof(a));
	snprintf(want, sizeof(want), t.family == 6 ? "[%s]:%u" : "%s:%u", a, t.dport);
	assert_string_equal(want, val(x, "dest", b, sizeof(b)));
	assert_string_equal(sock_name(&g.rst_reasons,
				      reader_num(rec, tep_find_field(g.reset, "reason")), NULL, 0),
			    val(x, "reason", b, sizeof(b)));
	g.n_reset++;
}

static void on_kfree(struct tep_record *rec, void *ctx)
{
	(void)ctx;
	struct line *x = line_of(rec, "kfree_skb");
	char b[64];
	assert_string_equal(
		sock_name(&g.reasons, reader_num(rec, tep_find_field(g.kfree, "reason")), NULL, 0),
		val(x, "reason", b, sizeof(b)));
	struct sock_fields none;
	assert_int_equal(sock_fields_init(&none, g.kfree), -1); /* no addresses there */
	g.n_kfree++;
}

static void test_fixture_against_kernel_text(void **state)
{
	(void)state;
	static const char *const systems[] = {"sock", "tcp", "skb", NULL};
	struct tep_handle *tep = fixture_tep(NET, systems);
	assert_non_null(tep);
	memset(&g, 0, sizeof(g));
	g.set_state = tep_find_event_by_name(tep, "sock", "inet_sock_set_state");
	g.retrans = tep_find_event_by_name(tep, "tcp", "tcp_retransmit_skb");
	g.reset = tep_find_event_by_name(tep, "tcp", "tcp_send_reset");
	g.kfree = tep_find_event_by_name(tep, "skb", "kfree_skb");
	assert_non_null(g.set_state);
	assert_int_equal(sock_fields_init(&g.fs, g.set_state), 0);
	assert_int_equal(sock_fields_init(&g.fr, g.retrans), 0);
	assert_int_equal(sock_fields_init(&g.fx, g.reset), 0);
	assert_non_null(g.fx.sa_src);
	assert_int_equal(sock_names_read(&g.states, g.set_state, "newstate", "TCP_", NULL), 0);
	assert_int_equal(g.states.n, 12);
	assert_int_equal(sock_value(&g.states, "ESTABLISHED"), 1);
	/* Unresolved enum names: nothing without another table, every state with it. */
	assert_int_equal(sock_names_read(&g.xstates, g.retrans, "state", "TCP_", NULL), 0);
	assert_int_equal(g.xstates.n, 0);
	assert_int_equal(sock_names_read(&g.rstates, g.retrans, "state", "TCP_", &g.states), 0);
	assert_int_equal(g.rstates.n, 12);
	assert_int_equal(sock_names_read(&g.reasons, g.kfree, "reason", NULL, NULL), 0);
	assert_true(g.reasons.n > 100); /* 6.18: 127 reasons */
	assert_int_equal(sock_value(&g.reasons, "NO_SOCKET"), 3);
	/* Inside "REC->state ? __print_symbolic(...) : ..." and the reason after it. */
	assert_int_equal(sock_names_read(&g.rst_reasons, g.reset, "reason", NULL, NULL), 0);
	assert_int_equal(sock_value(&g.rst_reasons, "NO_SOCKET"), 1);
	sock_names_free(&g.xstates);
	assert_int_equal(sock_names_read(&g.xstates, g.set_state, "nosuchfield", NULL, NULL), -1);

	load_text();
	struct reader r;
	assert_int_equal(reader_open(&r, tep, NET, 4096, true), 0);
	assert_int_equal(reader_on(&r, g.set_state, on_state, NULL), 0);
	assert_int_equal(reader_on(&r, g.retrans, on_retrans, NULL), 0);
	assert_int_equal(reader_on(&r, g.reset, on_reset, NULL), 0);
	assert_int_equal(reader_on(&r, g.kfree, on_kfree, NULL), 0);
	assert_int_equal(reader_drain(&r), 0);
	reader_close(&r);
	/* Every record of the four events had its line, and each line its record. */
	int want_state = 0, want_retrans = 0, want_reset = 0, want_kfree = 0;
	for (int i = 0; i < nlines; i++) {
		want_state += !strcmp(lines[i].event, "inet_sock_set_state");
		want_retrans += !strcmp(lines[i].event, "tcp_retransmit_skb");
		want_reset += !strcmp(lines[i].event, "tcp_send_reset");
		want_kfree += !strcmp(lines[i].event, "kfree_skb");
	}
	assert_int_equal(g.n_state, want_state);
	assert_int_equal(g.n_retrans, want_retrans);
	assert_int_equal(g.n_reset, want_reset);
	assert_int_equal(g.n_kfree, want_kfree);
	assert_true(g.n_retrans >= 1 && g.n_reset >= 2);
	assert_true(g.v4 > 10 && g.v6 > 5 && g.mapped > 3);
	sock_names_free(&g.states);
	sock_names_free(&g.rstates);
	sock_names_free(&g.xstates);
	sock_names_free(&g.reasons);
	sock_names_free(&g.rst_reasons);
	tep_free(tep);
}

static void test_names_fallback(void **state)
{
	(void)state;
	struct sock_names s;
	char b[16];
	sock_names_tcp_states(&s);
	assert_string_equal(sock_name(&s, 1, b, sizeof(b)), "ESTABLISHED");
	assert_string_equal(sock_name(&s, 12, b, sizeof(b)), "NEW_SYN_RECV");
	assert_string_equal(sock_name(&s, 99, b, sizeof(b)), "99");
	assert_string_equal(sock_name(&s, -5, b, sizeof(b)), "-5");
	assert_null(sock_name(&s, 0, NULL, 0));
	assert_int_equal(sock_value(&s, "nope"), -1);
	sock_names_free(&s);
}

/* Addresses: IPv4, IPv6, none. */
static void test_ntop(void **state)
{
	(void)state;
	unsigned char a[16] = {127, 0, 0, 1}, b6[16] = {0};
	char buf[SOCK_ADDRSTRLEN];
	b6[15] = 1;
	assert_string_equal(sock_ntop(4, a, buf, sizeof(buf)), "127.0.0.1");
	assert_string_equal(sock_ntop(6, b6, buf, sizeof(buf)), "::1");
	assert_string_equal(sock_ntop(0, a, buf, sizeof(buf)), "-");
	memset(b6, 0xff, 16);
	assert_string_equal(sock_ntop(6, b6, buf, sizeof(buf)),
			    "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff");
}

static void parse_ports(const void *arg)
{
	struct sock_ports p = {0};
	sock_ports_parse(&p, arg, "PORT");
}

static void test_ports(void **state)
{
	(void)state;
	struct sock_ports p = {0};
	char f[256];
	sock_ports_parse(&p, "80,443,80,65535", "PORT");
	assert_int_equal(p.n, 3);
	assert_true(sock_ports_has(&p, 443) && sock_ports_has(&p, 65535) && !sock_ports_has(&p, 8));
	struct sock_fields tp = {0}, kp = {.dport_be = true};
	assert_int_equal(sock_ports_filter(&p, &tp, true, f, sizeof(f)), 0);
	assert_string_equal(f, "(dport == 80 || dport == 443 || dport == 65535)");
	assert_int_equal(sock_ports_filter(&p, &kp, false, f, sizeof(f)), 0);
	assert_string_equal(f, "(sport == 80 || sport == 443 || sport == 65535)");
	/* A kprobe's destination port as the socket holds it: in network order. */
	assert_int_equal(sock_ports_filter(&p, &kp, true, f, sizeof(f)), 0);
	assert_string_equal(f, "(dport_be == 20480 || dport_be == 47873 || dport_be == 65535)");
	assert_int_equal(sock_ports_filter(&p, &tp, true, f, 20), -1);
	struct sock_ports none = {0};
	assert_int_equal(sock_ports_filter(&none, &tp, true, f, sizeof(f)), 0);
	assert_string_equal(f, "");
	/* empty, said in words (it showed as ''), and quotes, newlines and escapes shown escaped */
	assert_usage_error(parse_ports, "", "invalid PORT: empty (a port");
	assert_usage_error(parse_ports, "''", "invalid PORT: '\\'\\'' (not a whole number)");
	assert_usage_error(parse_ports, "8\n\x1b[2J", "invalid PORT: '8\\x0a\\x1b[2J'");
	assert_usage_error(parse_ports, "80,'", "invalid PORT: '\\'' (not a whole number)");
	assert_usage_error(parse_ports, "80,", "invalid PORT: '80,'");
	assert_usage_error(parse_ports, ",80", "invalid PORT: ',80'");
	assert_usage_error(parse_ports, "0", "must be 1 to 65535");
	assert_usage_error(parse_ports, "65536", "must be 1 to 65535");
	assert_usage_error(parse_ports, "-1", "must be 1 to 65535");
	assert_usage_error(parse_ports, "8x", "not a whole number");
	assert_usage_error(parse_ports, "99999999999999999999999", "invalid PORT: '9999");
	char many[400] = "";
	for (int i = 1; i <= SOCK_MAX_PORTS + 1; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), "%s%d", i > 1 ? "," : "",
			 i);
	assert_usage_error(parse_ports, many, "at most 32 ports");
}

/* A fake /proc: listeners on 127.0.0.1:8080 (held by PID 4242, "srv\nx"), [::]:22 (no
 * process), a connected socket (not listening), and a v4-mapped IPv6 listener (left out). */
static void test_listeners(void **state)
{
	(void)state;
	char dir[] = "/tmp/ftt-sock-XXXXXX";
	assert_non_null(mkdtemp(dir));
	write_file(dir, "net/tcp",
		   "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt"
		   "   uid  timeout inode\n"
		   "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000"
		   "     0        0 5001 1 0000000000000000 100 0 0 10 0\n"
		   "   1: 0100007F:1F90 0100007F:C000 01 00000000:00000000 00:00000000 00000000"
		   "     0        0 5002 1 0000000000000000 100 0 0 10 0\n");
	write_file(
		dir, "net/tcp6",
		"  sl  local_address                         remote_address                    "
		"    st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
		"   0: 00000000000000000000000000000000:0016 00000000000000000000000000000000:0000"
		" 0A 00000000:00000000 00:00000000 00000000     0        0 6001 1\n"
		"   1: 0000000000000000FFFF00000100007F:0050 00000000000000000000000000000000:0000"
		" 0A 00000000:00000000 00:00000000 00000000     0        0 6002 1\n");
	write_file(dir, "4242/comm", "srv\nx\n");
	write_file(dir, "4242/fd/.keep", "");
	char path[4096];
	snprintf(path, sizeof(path), "%s/4242/fd/3", dir);
	assert_int_equal(symlink("socket:[5001]", path), 0);
	snprintf(path, sizeof(path), "%s/4242/fd/4", dir);
	assert_int_equal(symlink("socket:[5002]", path), 0);
	struct sock_listeners ls;
	assert_int_equal(sock_listeners_read(&ls, dir), 0);
	assert_int_equal(ls.n, 2);
	unsigned char lo[16] = {127, 0, 0, 1}, other[16] = {10, 0, 0, 1}, six[16] = {0};
	six[15] = 1;
	const struct sock_listener *l = sock_listener_find(&ls, 4, lo, 8080);
	assert_non_null(l);
	assert_int_equal(l->pid, 4242);
	assert_string_equal(l->comm, "srv"); /* up to the first newline, as the kernel's */
	assert_null(sock_listener_find(&ls, 4, other, 8080));
	l = sock_listener_find(&ls, 6, six, 22);
	assert_non_null(l);
	assert_int_equal(l->pid, 0);
	assert_non_null(sock_listener_find(&ls, 4, other, 22)); /* [::] takes IPv4 too */
	assert_null(sock_listener_find(&ls, 4, lo, 80));	/* the v4-mapped one left out */
	struct sock_listener nl = {.family = 4, .port = 8080, .pid = 7};
	memcpy(nl.addr, lo, 4);
	sock_listener_add(&ls, &nl); /* a listen seen while tracing replaces it */
	assert_int_equal(ls.n, 2);
	assert_int_equal(sock_listener_find(&ls, 4, lo, 8080)->pid, 7);
	sock_listeners_free(&ls);
	assert_int_equal(sock_listeners_read(&ls, "/nonexistent"), -1);
	rm_rf(dir);
}

/* A fake /proc for PID 4343: a connection over IPv4, one v4-mapped in tcp6, one IPv6, a
 * listener (left out), a socket of another table's inode (not its), a pipe. */
static void test_proc_conns(void **state)
{
	(void)state;
	char dir[] = "/tmp/ftt-sock-XXXXXX";
	assert_non_null(mkdtemp(dir));
	write_file(dir, "4343/net/tcp",
		   "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt"
		   "   uid  timeout inode\n"
		   "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000"
		   "     0        0 7001 1 0000000000000000 100 0 0 10 0\n"
		   "   1: 0100007F:C000 0100007F:1F90 01 00000000:00000000 00:00000000 00000000"
		   "     0        0 7002 1 0000000000000000 100 0 0 10 0\n");
	write_file(
		dir, "4343/net/tcp6",
		"  sl  local_address                         remote_address                    "
		"    st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
		"   0: 0000000000000000FFFF00000100007F:C001 0000000000000000FFFF00000100007F:1F90"
		" 01 00000000:00000000 00:00000000 00000000     0        0 7003 1\n"
		"   1: 00000000000000000000000001000000:C002 00000000000000000000000001000000:0050"
		" 06 00000000:00000000 00:00000000 00000000     0        0 7004 1\n");
	write_file(dir, "4343/fd/.keep", "");
	static const char *const links[] = {"socket:[7001]", "socket:[7002]", "socket:[7003]",
					    "socket:[7004]", "socket:[9999]", "pipe:[7002]"};
	char path[4096];
	for (int i = 0; i < 6; i++) {
		snprintf(path, sizeof(path), "%s/4343/fd/%d", dir, i + 3);
		assert_int_equal(symlink(links[i], path), 0);
	}
	struct sock_tuple t[8];
	int n = sock_proc_conns(dir, 4343, t, 8);
	assert_int_equal(n, 3);
	char a[SOCK_ADDRSTRLEN], b[SOCK_ADDRSTRLEN];
	int seen = 0;
	for (int i = 0; i < n; i++) {
		sock_ntop(t[i].family, t[i].saddr, a, sizeof(a));
		sock_ntop(t[i].family, t[i].daddr, b, sizeof(b));
		if (t[i].sport == 0xC000) {
			assert_int_equal(t[i].family, 4);
			assert_string_equal(a, "127.0.0.1");
			assert_string_equal(b, "127.0.0.1");
			assert_int_equal(t[i].dport, 8080);
			seen |= 1;
		} else if (t[i].sport == 0xC001) {
			assert_int_equal(t[i].family, 4); /* v4-mapped */
			assert_string_equal(a, "127.0.0.1");
			assert_int_equal(t[i].dport, 8080);
			seen |= 2;
		} else {
			assert_int_equal(t[i].sport, 0xC002);
			assert_int_equal(t[i].family, 6);
			assert_string_equal(a, "::1");
			assert_string_equal(b, "::1");
			assert_int_equal(t[i].dport, 80);
			seen |= 4;
		}
	}
	assert_int_equal(seen, 7);
	assert_int_equal(sock_proc_conns(dir, 4343, t, 1), 3); /* more than fit: said */
	assert_int_equal(sock_proc_conns(dir, 4444, t, 8), -1);
	rm_rf(dir);
}

int main(void)
{
	opt_init("test_sock");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_against_kernel_text),
		cmocka_unit_test(test_names_fallback),
		cmocka_unit_test(test_ntop),
		cmocka_unit_test(test_ports),
		cmocka_unit_test(test_listeners),
		cmocka_unit_test(test_proc_conns),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
