/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sock: what the TCP tools share about sockets in events. The addresses and ports of an
 * event read by field name (sock:inet_sock_set_state, tcp:tcp_set_state of 4.15,
 * tcp:tcp_retransmit_skb and the other tcp events: family, sport, dport, saddr, daddr,
 * saddr_v6, daddr_v6; or tcp_send_reset's sockaddrs), v4-mapped IPv6 shown as IPv4; the
 * names of a symbolic field's values (TCP states, drop reasons) read from the event's print
 * fmt on the running kernel, where they differ by version; port lists (-P, -L, -D) and their
 * kernel filter; the listening sockets and their owners from /proc (who a passive open
 * belongs to, when the kernel cannot say who accepted it).
 */
#ifndef FTT_SOCK_H
#define FTT_SOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/row.h"

struct session;
struct tep_event;
struct tep_format_field;
struct tep_handle;
struct tep_record;

/* One side and the other of a connection, as an event gives them. */
struct sock_tuple {
	int family; /* 4 or 6 (v4-mapped IPv6 is 4); 0: unknown */
	unsigned char saddr[16], daddr[16];
	uint16_t sport, dport;
};

/* Room for an address as text (an IPv6 address, or "-"). */
#define SOCK_ADDRSTRLEN 46

/* The fields of one event that say where its socket is. */
struct sock_fields {
	struct tep_format_field *family, *sport, *dport, *saddr, *daddr, *saddr6, *daddr6;
	/* A kprobe's (sock_kprobe_args): the destination port as the socket holds it (network
	 * order), the IPv6 addresses in two 8-byte halves (no arrays before Linux 5.1). */
	bool dport_be;
	struct tep_format_field *saddr6_hi, *daddr6_hi;
	/* tcp_send_reset (6.2+): the flow as two struct sockaddr_in6-sized sockaddrs. */
	struct tep_format_field *sa_src, *sa_dst;
	struct tep_format_field *skaddr; /* the socket's kernel address, when there is one */
};

/* Finds the fields of ev that say where its socket is, into f (zeroed first; the fields are
 * ev's, valid as long as ev is). Returns 0, or -1 when ev has neither the address fields
 * (sport, dport and saddr, daddr or their IPv6 ones) nor the sockaddrs (nothing printed; f
 * keeps what was found). */
int sock_fields_init(struct sock_fields *f, struct tep_event *ev);
/* Reads the tuple of rec, an event with fields f, into t. IPv6 fields holding a v4-mapped
 * address give family 4 with the v4 address (one side mapped and the other not: both as
 * IPv6); without a family field (4.15's tcp_set_state) the IPv6 fields say which. A family
 * other than IPv4 and IPv6 (or two sockaddrs of different families) gives family 0. */
void sock_tuple_read(const struct sock_fields *f, const struct tep_record *rec,
		     struct sock_tuple *t);
/* Reads the socket's kernel address in rec, an event with fields f. Returns it, or 0 when the
 * event has none. */
unsigned long long sock_skaddr(const struct sock_fields *f, const struct tep_record *rec);

/* Writes address a of family (4 or 6; a holds 4 or 16 bytes) as text in buf, of len bytes
 * (SOCK_ADDRSTRLEN holds any): inet_ntop's form ("127.0.0.1", "::1"); "-" for family 0 (a
 * not read), another family, or a buf too short. Returns buf, the caller's. */
const char *sock_ntop(int family, const unsigned char *a, char *buf, size_t len);

/*
 * The names of a field's values as the event's print fmt gives them (its
 * __print_symbolic(REC->field, ...) table, also inside a ?: as tcp_send_reset has it),
 * with a prefix cut ("TCP_" of the states). A table whose values are enum names rather than
 * numbers (tcp_retransmit_skb's state on 6.x) is resolved by the names of another table
 * (resolve), e.g. inet_sock_set_state's, which the kernel gives as numbers.
 */
struct sock_names {
	int n;
	struct sock_name {
		long long value;
		char name[40];
	} * e;
};
/* Reads into s the names of the values of field from ev's print fmt, as above: cut is the
 * prefix taken off each name ("TCP_"; NULL: none), resolve the table that gives enum names
 * their numbers (NULL: such values left out, as those it does not name). Returns 0 with the
 * table read; -1 when ev is NULL, the print fmt has no such table, or out of memory (s left
 * empty, nothing printed). Frees: sock_names_free(s). */
int sock_names_read(struct sock_names *s, struct tep_event *ev, const char *field, const char *cut,
		    const struct sock_names *resolve);
/* Fills s with the TCP states of include/net/tcp_states.h (ESTABLISHED 1 .. NEW_SYN_RECV
 * 12), for a kernel with no TCP tracepoint to read them from (before 4.15: kprobes only).
 * Out of memory, s is left empty (nothing printed). Frees: sock_names_free(s). */
void sock_names_tcp_states(struct sock_names *s);
/* Looks up the name of v in s. Returns it (s's, valid until sock_names_free), or else v's
 * number as text in buf (len bytes) and buf; NULL when v has no name and buf is NULL. */
const char *sock_name(const struct sock_names *s, long long v, char *buf, size_t len);
/* Looks up the value of name in s. Returns it, or -1 when s has no such name. */
long long sock_value(const struct sock_names *s, const char *name);
/* Frees the table of s and leaves s empty (freeing it again does nothing). */
void sock_names_free(struct sock_names *s);

/*
 * Writes into buf (len bytes) the fetch arguments of a kprobe that reads a struct sock * in
 * register reg ("%di") as the TCP tracepoints give it: skaddr, family, sport, dport_be,
 * saddr, daddr and the IPv6 addresses in halves (saddr_v6_lo/hi, daddr_v6_lo/hi), from
 * struct sock_common, whose layout to there is the same from Linux 3.x to 6.x on x86-64
 * (with CONFIG_NET_NS, which /proc/self/ns/net says, the IPv6 addresses are 8 bytes
 * further). Returns 0, or -1 when they do not fit in len or on another architecture
 * (nothing printed).
 */
int sock_kprobe_args(char *buf, size_t len, const char *reg);
/* The offset of skc_state in struct sock_common (a u8), for a kprobe's own state field. */
#define SOCK_KPROBE_STATE_OFF 18

/*
 * The state changes of TCP sockets: sock:inet_sock_set_state (Linux 4.16; also SCTP's and
 * MPTCP's, left out by the filter) or 4.15's tcp:tcp_set_state, with their fields and the
 * names of the states read from the event (the ABI's when it has none). Before 4.15, with
 * kprobe (true) and kprobes in the kernel, a kprobe on tcp_set_state() with the same
 * fields (sock_kprobe_args; oldstate read from the socket, newstate its argument): it sees
 * the changes made through tcp_set_state, not the ones the kernel stores directly (LISTEN,
 * a passive open's SYN_RECV), and fires before the change.
 */
struct sock_states {
	struct tep_event *ev;
	struct sock_fields f;
	struct tep_format_field *oldstate, *newstate, *protocol;
	struct sock_names names;
	bool kprobe; /* the kprobe on tcp_set_state, not a tracepoint */
	/* The states the tools act on, by name from the table. */
	int established, syn_sent, syn_recv, fin_wait1, close, close_wait, last_ack, listen;
};
/* A socket's ends and state as its last state change gave them, kept in a span by its
 * address (key skaddr, 0) from the change that makes it until CLOSE: what tcpdrop and
 * tcpretrans know of a socket whose later event (a drop, a retransmit) carries less. */
struct sock_known {
	struct sock_tuple tup;
	int state;
};
struct span;
struct tep_record;
/* Keeps the tuple and new state of rec, a state change of st, in socks (the span of struct
 * sock_known, key skaddr, 0), beginning its entry when there is none; at CLOSE, drops it. The
 * handler's work for a state change (per event: a hash lookup, the fields read). */
void sock_known_update(const struct sock_states *st, struct span *socks, struct tep_record *rec);

/* Loads the state changes into s from the kernel of sess, the session; with kprobe, by the
 * kprobe when it has neither tracepoint. A state the names do not have is -1000 in s.
 * Returns 0, or -1 when it has neither event or the event lacks skaddr, oldstate or newstate
 * (not said: the tool says what it cannot do without them; but a kprobe the kernel rejects
 * is explained on stderr by probe_create). Frees: sock_states_free(s) (the kprobe is the
 * session's). */
int sock_states_load(struct sock_states *s, struct session *sess, bool kprobe);
/* The kernel filter that keeps the TCP changes of s only. Returns "protocol == 6", or ""
 * (4.15's event is TCP's only, as the kprobe is): static strings. */
const char *sock_states_filter(const struct sock_states *s);
/* Looks up the name of state v of s ("ESTABLISHED"). Returns it (s's, valid until
 * sock_states_free), or else v's number as text in buf (len bytes) and buf; NULL when v has no
 * name and buf is NULL. */
const char *sock_state_name(const struct sock_states *s, long long v, char *buf, size_t len);
/* Frees the names of s. */
void sock_states_free(struct sock_states *s);

/* Did rec happen in a task's own context (a system call), not in an interrupt or a softirq
 * that only borrowed the task (its PID says nothing of the socket there)? Returns true when
 * its flags, read with tep, have no hardirq, softirq or NMI bit. */
bool sock_in_task(struct tep_handle *tep, struct tep_record *rec);

/* A list of ports (-P 80,443): parsed strictly, as a usage error when bad (exit 2). */
#define SOCK_MAX_PORTS 32
struct sock_ports {
	int n;
	uint16_t port[SOCK_MAX_PORTS];
};
/* Adds the ports of arg ("80,443") to p, each once; p is zeroed, or holds the ports of an
 * earlier option (they add up). A bad list (empty, a bad port, more than SOCK_MAX_PORTS) is a
 * usage error: a line on stderr naming what ("PORT"), and exit 2 (opt_fail). */
void sock_ports_parse(struct sock_ports *p, const char *arg, const char *what);
/* Is port in p? Returns true when it is. */
bool sock_ports_has(const struct sock_ports *p, unsigned port);
/* Writes into buf (len bytes) a kernel filter for the list p on the local (sport) or remote
 * (dport) port of an event with fields f ("(dport == 80 || dport == 443)"; a kprobe's
 * dport_be in network order), "" when empty. Returns 0, or -1 when it does not fit (buf then
 * holds a part). */
int sock_ports_filter(const struct sock_ports *p, const struct sock_fields *f, bool remote,
		      char *buf, size_t len);

/*
 * The listening sockets of this machine and the process holding each (the first found
 * with it open), from /proc/net/tcp, /proc/net/tcp6 and /proc/PID/fd: for the passive opens
 * of sockets that listened before tracing began.
 */
struct sock_listener {
	int family; /* 4 or 6 */
	unsigned char addr[16];
	uint16_t port;
	pid_t pid; /* 0: no process found */
	char comm[16];
	unsigned long inode; /* of /proc's socket: links in /proc/PID/fd name it */
};
struct sock_listeners {
	int n, size;
	struct sock_listener *l;
};
/* Reads the listening sockets and their owners into ls (zeroed first). proc: "/proc" (a fake
 * tree in the tests); a missing tcp6 table, an unreadable fd folder or no memory for more
 * leaves some out. Returns 0, or -1 when /proc/net/tcp cannot be read (nothing printed).
 * Frees: sock_listeners_free(ls). */
int sock_listeners_read(struct sock_listeners *ls, const char *proc);
/* Finds in ls the listener a passive open to (family, addr, port) belongs to: the exact
 * address, else a wildcard one (an IPv6 wildcard takes IPv4 too unless it is v6only, which
 * /proc does not say: the first found). Returns it (ls's, valid until the next
 * sock_listener_add or sock_listeners_free), or NULL when none. */
const struct sock_listener *sock_listener_find(const struct sock_listeners *ls, int family,
					       const unsigned char *addr, unsigned port);
/* Adds a copy of l to ls, or replaces the one of the same address and port with it (a listen
 * seen while tracing). Out of memory, it is left out (nothing printed). */
void sock_listener_add(struct sock_listeners *ls, const struct sock_listener *l);
/* Frees the listeners of ls and leaves ls empty. */
void sock_listeners_free(struct sock_listeners *ls);

/*
 * Finds the TCP connections (not listening sockets) process pid holds open, from its descriptors
 * (/proc/PID/fd) and the tables of its network namespace (/proc/PID/net/tcp, tcp6), matched
 * by inode; v4-mapped IPv6 as IPv4. At most max in out, the caller's array. Returns how many
 * there are (more than max when some did not fit), or -1 when the process's descriptors
 * cannot be read (errno set by opendir, nothing printed). proc: "/proc" (a fake tree in the
 * tests).
 */
int sock_proc_conns(const char *proc, pid_t pid, struct sock_tuple *out, int max);

/* The columns of a connection's two ends, as tcplife and tcpstates show them (ADDR: the
 * addresses' text width, -15 for IPv4's, -39 for -w's IPv6). */
#define SOCK_COLS_ENDS(addr)                                                           \
	SPEC(.head = "IP", .key = "ip", .width = 2, .kind = ROW_INT,                   \
	     .doc = "4 or 6 (v4-mapped IPv6: 4)"),                                     \
		SPEC(.head = "LADDR", .key = "laddr", .width = addr, .kind = ROW_WORD, \
		     .doc = "the local address"),                                      \
		SPEC(.head = "LPORT", .key = "lport", .width = 5, .kind = ROW_UINT,    \
		     .doc = "the local port"),                                         \
		SPEC(.head = "RADDR", .key = "raddr", .width = addr, .kind = ROW_WORD, \
		     .doc = "the remote address"),                                     \
		SPEC(.head = "RPORT", .key = "rport", .width = 5, .kind = ROW_UINT,    \
		     .doc = "the remote port")

#endif
