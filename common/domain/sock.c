// SPDX-License-Identifier: GPL-2.0-only
#include "domain/sock.h"
#include "join/span.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "base/opt.h"
#include "kernel/probe.h"
#include "stream/reader.h"
#include "kernel/session.h"

/* --- addresses ----------------------------------------------------------------------------- */

static struct tep_format_field *field_sized(struct tep_event *ev, const char *name, int size)
{
	struct tep_format_field *f = tep_find_field(ev, name);
	return f && f->size == size && !(f->flags & TEP_FIELD_IS_DYNAMIC) ? f : NULL;
}

int sock_fields_init(struct sock_fields *f, struct tep_event *ev)
{
	memset(f, 0, sizeof(*f));
	f->family = tep_find_field(ev, "family");
	f->sport = tep_find_field(ev, "sport");
	f->dport = tep_find_field(ev, "dport");
	if (!f->dport && (f->dport = tep_find_field(ev, "dport_be")))
		f->dport_be = true;
	f->saddr = field_sized(ev, "saddr", 4);
	f->daddr = field_sized(ev, "daddr", 4);
	f->saddr6 = field_sized(ev, "saddr_v6", 16);
	f->daddr6 = field_sized(ev, "daddr_v6", 16);
	if (!f->saddr6 && !f->daddr6) {
		f->saddr6 = field_sized(ev, "saddr_v6_lo", 8);
		f->saddr6_hi = field_sized(ev, "saddr_v6_hi", 8);
		f->daddr6 = field_sized(ev, "daddr_v6_lo", 8);
		f->daddr6_hi = field_sized(ev, "daddr_v6_hi", 8);
		if (!f->saddr6_hi || !f->daddr6_hi)
			f->saddr6 = f->daddr6 = f->saddr6_hi = f->daddr6_hi = NULL;
	}
	f->skaddr = tep_find_field(ev, "skaddr");
	/* tcp_send_reset since 6.2: saddr and daddr are sockaddrs (sockaddr_in6's 28 bytes). */
	f->sa_src = field_sized(ev, "saddr", 28);
	f->sa_dst = field_sized(ev, "daddr", 28);
	if (f->sa_src && f->sa_dst)
		return 0;
	f->sa_src = f->sa_dst = NULL;
	if (f->sport && f->dport && ((f->saddr && f->daddr) || (f->saddr6 && f->daddr6)))
		return 0;
	return -1;
}

static void copy_field(unsigned char *dst, const struct tep_record *rec,
		       const struct tep_format_field *f, size_t n)
{
	size_t len = 0;
	const char *p = f ? reader_str(rec, f, &len) : NULL;
	memset(dst, 0, n);
	if (p && len >= n)
		memcpy(dst, p, n);
}

static bool v4mapped(const unsigned char *a)
{
	static const unsigned char prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	return !memcmp(a, prefix, sizeof(prefix));
}

/* An IPv6 address: 16 bytes, or a kprobe's two halves. */
static void copy_v6(unsigned char *dst, const struct tep_record *rec,
		    const struct tep_format_field *f, const struct tep_format_field *hi)
{
	if (!hi) {
		copy_field(dst, rec, f, 16);
		return;
	}
	copy_field(dst, rec, f, 8);
	copy_field(dst + 8, rec, hi, 8);
}

/* An IPv6 address in a, shown as IPv4 when v4-mapped. */
static int v6_or_mapped(unsigned char *a)
{
	if (!v4mapped(a))
		return 6;
	memmove(a, a + 12, 4);
	memset(a + 4, 0, 12);
	return 4;
}

/* A struct sockaddr_in or _in6 in 28 bytes (family in host order, port in network order). */
static int sockaddr_read(const struct tep_record *rec, const struct tep_format_field *f,
			 unsigned char *addr, uint16_t *port)
{
	unsigned char sa[28];
	copy_field(sa, rec, f, sizeof(sa));
	uint16_t fam;
	memcpy(&fam, sa, 2);
	*port = (uint16_t)(sa[2] << 8 | sa[3]);
	memset(addr, 0, 16);
	if (fam == AF_INET) {
		memcpy(addr, sa + 4, 4);
		return 4;
	}
	if (fam == AF_INET6) {
		memcpy(addr, sa + 8, 16);
		return v6_or_mapped(addr);
	}
	return 0;
}

void sock_tuple_read(const struct sock_fields *f, const struct tep_record *rec,
		     struct sock_tuple *t)
{
	memset(t, 0, sizeof(*t));
	if (f->sa_src) {
		int a = sockaddr_read(rec, f->sa_src, t->saddr, &t->sport);
		int b = sockaddr_read(rec, f->sa_dst, t->daddr, &t->dport);
		t->family = a == b ? a : 0;
		return;
	}
	t->sport = (uint16_t)reader_num(rec, f->sport);
	t->dport = (uint16_t)reader_num(rec, f->dport);
	if (f->dport_be)
		t->dport = ntohs(t->dport);
	long long fam = f->family ? reader_num(rec, f->family) : -1;
	if (fam == AF_INET || (fam == -1 && !f->saddr6)) {
		t->family = 4;
		copy_field(t->saddr, rec, f->saddr, 4);
		copy_field(t->daddr, rec, f->daddr, 4);
		return;
	}
	if (fam != AF_INET6 && fam != -1)
		return; /* neither: family 0, no addresses */
	copy_v6(t->saddr, rec, f->saddr6, f->saddr6_hi);
	copy_v6(t->daddr, rec, f->daddr6, f->daddr6_hi);
	/* A v4-mapped pair (an IPv6 socket talking IPv4) is IPv4; so is 4.15's tcp_set_state,
	 * which has no family and gives an IPv4 socket's addresses v4-mapped. */
	int a = v6_or_mapped(t->saddr), b = v6_or_mapped(t->daddr);
	t->family = a == 4 && b == 4 ? 4 : 6;
	if (t->family == 6 && a != b) { /* one side mapped, the other not: show both as v6 */
		copy_v6(t->saddr, rec, f->saddr6, f->saddr6_hi);
		copy_v6(t->daddr, rec, f->daddr6, f->daddr6_hi);
	}
}

unsigned long long sock_skaddr(const struct sock_fields *f, const struct tep_record *rec)
{
	return f->skaddr ? (unsigned long long)reader_num(rec, f->skaddr) : 0;
}

const char *sock_ntop(int family, const unsigned char *a, char *buf, size_t len)
{
	if ((family != 4 && family != 6) ||
	    !inet_ntop(family == 4 ? AF_INET : AF_INET6, a, buf, (socklen_t)len))
		snprintf(buf, len, "-");
	return buf;
}

/* --- names of values, from the print fmt --------------------------------------------------- */

static bool names_of_field(const struct tep_print_arg *a, const char *field)
{
	return a && a->type == TEP_PRINT_FIELD && a->field.name && !strcmp(a->field.name, field);
}

/* The symbol table of field in an argument tree (depth-first), or NULL. */
static const struct tep_print_flag_sym *find_symbols(const struct tep_print_arg *a,
						     const char *field, int depth)
{
	for (; a && depth < 32; a = a->next) {
		const struct tep_print_flag_sym *s = NULL;
		switch (a->type) {
		case TEP_PRINT_SYMBOL:
			if (names_of_field(a->symbol.field, field))
				return a->symbol.symbols;
			s = find_symbols(a->symbol.field, field, depth + 1);
			break;
		case TEP_PRINT_OP:
			if (!(s = find_symbols(a->op.left, field, depth + 1)))
				s = find_symbols(a->op.right, field, depth + 1);
			break;
		case TEP_PRINT_TYPE: s = find_symbols(a->typecast.item, field, depth + 1); break;
		case TEP_PRINT_FUNC: s = find_symbols(a->func.args, field, depth + 1); break;
		default: break;
		}
		if (s)
			return s;
	}
	return NULL;
}

static const char *cut_prefix(const char *name, const char *cut)
{
	size_t n = cut ? strlen(cut) : 0;
	return n && !strncmp(name, cut, n) && name[n] ? name + n : name;
}

int sock_names_read(struct sock_names *s, struct tep_event *ev, const char *field, const char *cut,
		    const struct sock_names *resolve)
{
	memset(s, 0, sizeof(*s));
	const struct tep_print_flag_sym *sym =
		ev ? find_symbols(ev->print_fmt.args, field, 0) : NULL;
	if (!sym)
		return -1;
	int n = 0;
	for (const struct tep_print_flag_sym *p = sym; p; p = p->next)
		n++;
	if (!(s->e = calloc((size_t)n, sizeof(*s->e))))
		return -1;
	for (const struct tep_print_flag_sym *p = sym; p; p = p->next) {
		if (!p->value || !p->str)
			continue;
		char *end;
		errno = 0;
		long long v = strtoll(p->value, &end, 0);
		if (end == p->value || *end || errno) {
			/* An enum's name the kernel left unresolved: the same name's number in
			 * another event's table. */
			v = resolve ? sock_value(resolve, cut_prefix(p->value, cut)) : -1;
			if (v < 0)
				continue;
		}
		s->e[s->n].value = v;
		snprintf(s->e[s->n].name, sizeof(s->e[s->n].name), "%s", cut_prefix(p->str, cut));
		s->n++;
	}
	return 0;
}

void sock_names_tcp_states(struct sock_names *s)
{
	static const char *const states[] = {
		"ESTABLISHED", "SYN_SENT",   "SYN_RECV", "FIN_WAIT1", "FIN_WAIT2", "TIME_WAIT",
		"CLOSE",       "CLOSE_WAIT", "LAST_ACK", "LISTEN",    "CLOSING",   "NEW_SYN_RECV",
	};
	int n = (int)(sizeof(states) / sizeof(*states));
	memset(s, 0, sizeof(*s));
	if (!(s->e = calloc((size_t)n, sizeof(*s->e))))
		return;
	for (int i = 0; i < n; i++) {
		s->e[i].value = i + 1;
		snprintf(s->e[i].name, sizeof(s->e[i].name), "%s", states[i]);
	}
	s->n = n;
}

const char *sock_name(const struct sock_names *s, long long v, char *buf, size_t len)
{
	for (int i = 0; i < s->n; i++)
		if (s->e[i].value == v)
			return s->e[i].name;
	if (!buf)
		return NULL;
	snprintf(buf, len, "%lld", v);
	return buf;
}

long long sock_value(const struct sock_names *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->e[i].name, name))
			return s->e[i].value;
	return -1;
}

void sock_names_free(struct sock_names *s)
{
	free(s->e);
	memset(s, 0, sizeof(*s));
}

/* --- state changes ------------------------------------------------------------------------ */

int sock_kprobe_args(char *buf, size_t len, const char *reg)
{
#if defined(__x86_64__)
	/* struct sock_common: skc_daddr 0, skc_rcv_saddr 4, skc_dport 12, skc_num 14,
	 * skc_family 16, skc_state 18, ..., skc_prot 40, skc_net 48 (CONFIG_NET_NS), then
	 * skc_v6_daddr and skc_v6_rcv_saddr. */
	int v6 = access("/proc/self/ns/net", F_OK) == 0 ? 56 : 48;
	int n = snprintf(buf, len,
			 "skaddr=%s:u64 family=+16(%s):u16 sport=+14(%s):u16 dport_be=+12(%s):u16 "
			 "saddr=+4(%s):u32 daddr=+0(%s):u32 daddr_v6_lo=+%d(%s):u64 "
			 "daddr_v6_hi=+%d(%s):u64 saddr_v6_lo=+%d(%s):u64 saddr_v6_hi=+%d(%s):u64",
			 reg, reg, reg, reg, reg, reg, v6, reg, v6 + 8, reg, v6 + 16, reg, v6 + 24,
			 reg);
	return n > 0 && (size_t)n < len ? 0 : -1;
#else
	(void)buf;
	return -1;
#endif
}

static struct tep_event *states_kprobe(struct session *sess)
{
	char args[1024];
	size_t n;
	if (!probe_available(sess, PROBE_KPROBE, true) ||
	    sock_kprobe_args(args, sizeof(args), "%di"))
		return NULL;
	n = strlen(args);
	/* tcp_set_state(struct sock *sk, int state) */
	snprintf(args + n, sizeof(args) - n, " oldstate=+%d(%%di):u8 newstate=%%si:s32",
		 SOCK_KPROBE_STATE_OFF);
	return probe_create(sess, PROBE_KPROBE, 'p', "set_state", "tcp_set_state", args);
}

int sock_states_load(struct sock_states *s, struct session *sess, bool kprobe)
{
	memset(s, 0, sizeof(*s));
	s->ev = session_load_event(sess, "sock", "inet_sock_set_state");
	if (!s->ev)
		s->ev = session_load_event(sess, "tcp", "tcp_set_state");
	if (!s->ev && kprobe && (s->ev = states_kprobe(sess)))
		s->kprobe = true;
	if (!s->ev || sock_fields_init(&s->f, s->ev) || !s->f.skaddr)
		return -1;
	s->oldstate = tep_find_field(s->ev, "oldstate");
	s->newstate = tep_find_field(s->ev, "newstate");
	s->protocol = tep_find_field(s->ev, "protocol");
	if (!s->oldstate || !s->newstate)
		return -1;
	if (sock_names_read(&s->names, s->ev, "newstate", "TCP_", NULL) || s->names.n < 12) {
		sock_names_free(&s->names);
		sock_names_tcp_states(&s->names);
	}
	static const struct {
		size_t off;
		const char *name;
	} want[] = {
		{offsetof(struct sock_states, established), "ESTABLISHED"},
		{offsetof(struct sock_states, syn_sent), "SYN_SENT"},
		{offsetof(struct sock_states, syn_recv), "SYN_RECV"},
		{offsetof(struct sock_states, fin_wait1), "FIN_WAIT1"},
		{offsetof(struct sock_states, close), "CLOSE"},
		{offsetof(struct sock_states, close_wait), "CLOSE_WAIT"},
		{offsetof(struct sock_states, last_ack), "LAST_ACK"},
		{offsetof(struct sock_states, listen), "LISTEN"},
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(*want); i++) {
		long long v = sock_value(&s->names, want[i].name);
		*(int *)((char *)s + want[i].off) = v < 0 ? -1000 : (int)v;
	}
	return 0;
}

const char *sock_states_filter(const struct sock_states *s)
{
	return s->protocol ? "protocol == 6" : "";
}

const char *sock_state_name(const struct sock_states *s, long long v, char *buf, size_t len)
{
	return sock_name(&s->names, v, buf, len);
}

void sock_states_free(struct sock_states *s)
{
	sock_names_free(&s->names);
}

bool sock_in_task(struct tep_handle *tep, struct tep_record *rec)
{
	/* TRACE_FLAG_HARDIRQ 0x08, TRACE_FLAG_SOFTIRQ 0x10, TRACE_FLAG_NMI 0x40 */
	return !(tep_data_flags(tep, rec) & (0x08 | 0x10 | 0x40));
}

/* --- ports --------------------------------------------------------------------------------- */

void sock_ports_parse(struct sock_ports *p, const char *arg, const char *what)
{
	const char *s = arg;
	if (!*s)
		opt_fail("invalid %s: empty (a port, or ports separated by commas)", what);
	while (*s) {
		size_t n = strcspn(s, ",");
		char tok[16];
		if (n == 0 || n >= sizeof(tok))
			opt_fail("invalid %s: '%s' (a port, or ports separated by commas)", what,
				 opt_shown(arg));
		memcpy(tok, s, n);
		tok[n] = 0;
		unsigned port = (unsigned)opt_int(tok, 1, 65535, what);
		if (!sock_ports_has(p, port)) {
			if (p->n == SOCK_MAX_PORTS)
				opt_fail("invalid %s: '%s' (at most %d ports)", what,
					 opt_shown(arg), SOCK_MAX_PORTS);
			p->port[p->n++] = (uint16_t)port;
		}
		s += n;
		if (*s == ',' && !*++s)
			opt_fail("invalid %s: '%s' (a port, or ports separated by commas)", what,
				 opt_shown(arg));
	}
}

bool sock_ports_has(const struct sock_ports *p, unsigned port)
{
	for (int i = 0; i < p->n; i++)
		if (p->port[i] == port)
			return true;
	return false;
}

int sock_ports_filter(const struct sock_ports *p, const struct sock_fields *f, bool remote,
		      char *buf, size_t len)
{
	size_t o = 0;
	bool be = remote && f->dport_be;
	const char *field = !remote ? "sport" : be ? "dport_be" : "dport";
	buf[0] = 0;
	for (int i = 0; i < p->n; i++) {
		int w = snprintf(buf + o, len - o, "%s%s == %u%s", i ? " || " : "(", field,
				 be ? ntohs(p->port[i]) : p->port[i], i == p->n - 1 ? ")" : "");
		if (w < 0 || (size_t)w >= len - o)
			return -1;
		o += (size_t)w;
	}
	return 0;
}

/* --- listeners from /proc ------------------------------------------------------------------ */

void sock_listener_add(struct sock_listeners *ls, const struct sock_listener *l)
{
	for (int i = 0; i < ls->n; i++) {
		struct sock_listener *o = &ls->l[i];
		if (o->family == l->family && o->port == l->port &&
		    !memcmp(o->addr, l->addr, sizeof(o->addr))) {
			*o = *l;
			return;
		}
	}
	if (ls->n == ls->size) {
		int size = ls->size ? ls->size * 2 : 16;
		struct sock_listener *m = realloc(ls->l, (size_t)size * sizeof(*m));
		if (!m)
			return;
		ls->l = m;
		ls->size = size;
	}
	ls->l[ls->n++] = *l;
}

/* The inodes of the listening sockets in /proc/net/tcp or tcp6 ("0100007F:1F90" is
 * 127.0.0.1:8080: each 32-bit word as the kernel holds it, printed as a number). */
static void read_table(struct sock_listeners *ls, const char *path, int family)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	char line[512];
	if (!fgets(line, sizeof(line), f)) { /* the header */
		fclose(f);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char local[64];
		unsigned port, st;
		unsigned long inode;
		if (sscanf(line, " %*d: %63[0-9A-Fa-f]:%x %*s %x %*s %*s %*s %*s %*s %lu", local,
			   &port, &st, &inode) != 4 ||
		    st != 10 /* TCP_LISTEN */ || strlen(local) != (family == 4 ? 8u : 32u))
			continue;
		struct sock_listener l = {.family = family, .port = (uint16_t)port, .inode = inode};
		for (int w = 0; w < (family == 4 ? 1 : 4); w++) {
			char word[9];
			memcpy(word, local + 8 * w, 8);
			word[8] = 0;
			uint32_t v = (uint32_t)strtoul(word, NULL, 16);
			memcpy(l.addr + 4 * w, &v, 4);
		}
		if (family == 6 && v4mapped(l.addr))
			continue;
		sock_listener_add(ls, &l);
	}
	fclose(f);
}

int sock_listeners_read(struct sock_listeners *ls, const char *proc)
{
	char path[4096];
	memset(ls, 0, sizeof(*ls));
	snprintf(path, sizeof(path), "%s/net/tcp", proc);
	if (access(path, R_OK))
		return -1;
	read_table(ls, path, 4);
	snprintf(path, sizeof(path), "%s/net/tcp6", proc);
	read_table(ls, path, 6);
	int left = ls->n;
	DIR *d = left ? opendir(proc) : NULL;
	struct dirent *de;
	while (d && left && (de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "%s/%s/fd", proc, de->d_name);
		DIR *fd = opendir(path);
		struct dirent *fe;
		while (fd && left && (fe = readdir(fd))) {
			char target[64];
			snprintf(path, sizeof(path), "%s/%s/fd/%s", proc, de->d_name, fe->d_name);
			ssize_t n = readlink(path, target, sizeof(target) - 1);
			unsigned long ino;
			if (n <= 0)
				continue;
			target[n] = 0;
			if (sscanf(target, "socket:[%lu]", &ino) != 1)
				continue;
			for (int i = 0; i < ls->n; i++) {
				if (ls->l[i].inode != ino || ls->l[i].pid)
					continue;
				ls->l[i].pid = atoi(de->d_name);
				snprintf(path, sizeof(path), "%s/%s/comm", proc, de->d_name);
				FILE *c = fopen(path, "re");
				if (c) {
					if (fgets(ls->l[i].comm, sizeof(ls->l[i].comm), c))
						ls->l[i].comm[strcspn(ls->l[i].comm, "\n")] = 0;
					fclose(c);
				}
				left--;
			}
		}
		if (fd)
			closedir(fd);
	}
	if (d)
		closedir(d);
	return 0;
}

const struct sock_listener *sock_listener_find(const struct sock_listeners *ls, int family,
					       const unsigned char *addr, unsigned port)
{
	static const unsigned char any[16];
	const struct sock_listener *wild = NULL, *wild6 = NULL;
	for (int i = 0; i < ls->n; i++) {
		const struct sock_listener *l = &ls->l[i];
		if (l->port != port)
			continue;
		bool is_any = !memcmp(l->addr, any, 16);
		if (l->family == family && !memcmp(l->addr, addr, family == 4 ? 4 : 16))
			return l;
		if (l->family == family && is_any && !wild)
			wild = l;
		if (l->family == 6 && family == 4 && is_any && !wild6)
			wild6 = l;
	}
	return wild ? wild : wild6;
}

void sock_listeners_free(struct sock_listeners *ls)
{
	free(ls->l);
	memset(ls, 0, sizeof(*ls));
}

/* The words of an address in /proc/net/tcp ("0100007F" is 127.0.0.1): each 32-bit word
 * as the kernel holds it, printed as a number. */
static bool proc_addr(const char *hex, int family, unsigned char *a)
{
	if (strlen(hex) != (family == 4 ? 8u : 32u))
		return false;
	memset(a, 0, 16);
	for (int w = 0; w < (family == 4 ? 1 : 4); w++) {
		char word[9];
		memcpy(word, hex + 8 * w, 8);
		word[8] = 0;
		uint32_t v = (uint32_t)strtoul(word, NULL, 16);
		memcpy(a + 4 * w, &v, 4);
	}
	return true;
}

/* The connection with inode ino in a /proc/PID/net/tcp{,6} table, into *t; true if found. */
static bool proc_conn(const char *path, int family, unsigned long ino, struct sock_tuple *t)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	char line[512];
	bool found = false;
	if (!fgets(line, sizeof(line), f)) { /* the header */
		fclose(f);
		return false;
	}
	while (!found && fgets(line, sizeof(line), f)) {
		char local[64], remote[64];
		unsigned lport, rport, st;
		unsigned long inode;
		if (sscanf(line,
			   " %*d: %63[0-9A-Fa-f]:%x %63[0-9A-Fa-f]:%x %x %*s %*s %*s %*s %*s %lu",
			   local, &lport, remote, &rport, &st, &inode) != 6 ||
		    inode != ino || st == 10 /* TCP_LISTEN */)
			continue;
		memset(t, 0, sizeof(*t));
		if (!proc_addr(local, family, t->saddr) || !proc_addr(remote, family, t->daddr))
			continue;
		t->family = family;
		t->sport = (uint16_t)lport;
		t->dport = (uint16_t)rport;
		if (family == 6 && v4mapped(t->saddr) && v4mapped(t->daddr)) {
			t->family = 4;
			memmove(t->saddr, t->saddr + 12, 4);
			memset(t->saddr + 4, 0, 12);
			memmove(t->daddr, t->daddr + 12, 4);
			memset(t->daddr + 4, 0, 12);
		}
		found = true;
	}
	fclose(f);
	return found;
}

int sock_proc_conns(const char *proc, pid_t pid, struct sock_tuple *out, int max)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%d/fd", proc, (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		char target[64];
		unsigned long ino;
		snprintf(path, sizeof(path), "%s/%d/fd/%s", proc, (int)pid, de->d_name);
		ssize_t len = readlink(path, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = 0;
		if (sscanf(target, "socket:[%lu]", &ino) != 1)
			continue;
		struct sock_tuple t;
		char table[4096];
		snprintf(table, sizeof(table), "%s/%d/net/tcp", proc, (int)pid);
		bool found = proc_conn(table, 4, ino, &t);
		if (!found) {
			snprintf(table, sizeof(table), "%s/%d/net/tcp6", proc, (int)pid);
			found = proc_conn(table, 6, ino, &t);
		}
		if (!found)
			continue;
		if (n < max)
			out[n] = t;
		n++;
	}
	closedir(d);
	return n;
}

void sock_known_update(const struct sock_states *st, struct span *socks, struct tep_record *rec)
{
	unsigned long long sk = sock_skaddr(&st->f, rec);
	long long new = reader_num(rec, st->newstate);
	if (new == st->close) {
		span_drop(socks, sk, 0);
		return;
	}
	struct span_start *s = span_find(socks, sk, 0);
	struct sock_known *k = s ? span_data(s) : span_begin(socks, sk, 0, rec->ts, rec->cpu, 0);
	if (!k)
		return;
	sock_tuple_read(&st->f, rec, &k->tup);
	k->state = (int)new;
}
