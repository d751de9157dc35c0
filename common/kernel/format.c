// SPDX-License-Identifier: GPL-2.0-only
#include "kernel/format.h"
#include "base/sig.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event-parse.h>

static bool ident_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool ident_char(int c)
{
	return ident_start(c) || (c >= '0' && c <= '9');
}

/* A field's offset and size at most: more than a record can hold (a sub-buffer). */
#define FIELD_MAX (1UL << 20)

/* "key:DIGITS;" at *p (after a tab), its value at most max; moves past it. The kernel writes
 * no sign and no offset or size near int's range (4294967295 parsed as -1 read before the
 * record). */
static bool number_item(const char **p, const char *end, const char *key, unsigned long max)
{
	size_t k = strlen(key);
	if ((size_t)(end - *p) < k + 2 || memcmp(*p, key, k))
		return false;
	const char *q = *p + k, *digits = q;
	unsigned long v = 0;
	while (q < end && *q >= '0' && *q <= '9' && v <= max)
		v = v * 10 + (unsigned long)(*q++ - '0');
	if (q == digits || v > max || q >= end || *q != ';')
		return false;
	*p = q + 1;
	return true;
}

/* One field line without its "\tfield:": "DECL NAME[N];\toffset:N;\tsize:N;[\tsigned:N;]".
 * Its name goes into name (at most 63 bytes). */
static bool field_line(const char *p, const char *end, char name[64])
{
	const char *semi = memchr(p, ';', (size_t)(end - p));
	if (!semi)
		return false;
	int depth = 0;
	for (const char *q = p; q < semi; q++) {
		depth += *q == '[' ? 1 : *q == ']' ? -1 : 0;
		if (depth < 0 || depth > 1)
			return false;
	}
	if (depth)
		return false;
	/* The name: the identifier before the last '[' (an array) or at the end. */
	const char *e = semi;
	if (e > p && e[-1] == ']')
		while (e > p && *e != '[')
			e--;
	const char *b = e;
	while (b > p && ident_char((unsigned char)b[-1]))
		b--;
	if (b == e || !ident_start((unsigned char)*b) || e - b > 63 || b == p)
		return false;
	memcpy(name, b, (size_t)(e - b));
	name[e - b] = 0;
	p = semi + 1;
	if (p >= end || *p++ != '\t' || !number_item(&p, end, "offset:", FIELD_MAX) || p >= end ||
	    *p++ != '\t' || !number_item(&p, end, "size:", FIELD_MAX))
		return false;
	if (p < end && *p == '\t') {
		p++;
		if (!number_item(&p, end, "signed:", 1))
			return false;
	}
	return p == end;
}

int format_sound(const char *fmt, size_t len, char *why, size_t whylen)
{
	const char *end = fmt + len, *line = fmt;
	char names[128][64];
	int nnames = 0;
	bool have_name = false, have_id = false, have_format = false, have_print = false;
	if (memchr(fmt, 0, len)) {
		snprintf(why, whylen, "a NUL byte in it");
		return -1;
	}
	for (int n = 1; line < end; n++) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		if (!nl) {
			snprintf(why, whylen, "line %d cut short", n);
			return -1;
		}
		if (!strncmp(line, "name: ", 6))
			have_name = nl > line + 6;
		else if (!strncmp(line, "ID: ", 4))
			have_id = nl > line + 4;
		else if (!strncmp(line, "format:", 7))
			have_format = true;
		else if (!strncmp(line, "\tfield:", 7)) {
			if (nnames == 128 || !field_line(line + 7, nl, names[nnames])) {
				snprintf(why, whylen, "field line %d is not one", n);
				return -1;
			}
			nnames++;
		} else if (!strncmp(line, "print fmt: \"", 12)) {
			have_print = true;
			/* Fields it names (REC->x, __get_str(x) and the like) must exist. */
			for (const char *q = line; q < nl; q++) {
				const char *id = NULL;
				if (nl - q > 5 && !memcmp(q, "REC->", 5))
					id = q + 5;
				else if (nl - q > 6 && !memcmp(q, "__get_", 6)) {
					const char *paren = memchr(q, '(', (size_t)(nl - q));
					if (paren && paren - q < 40)
						id = paren + 1;
				}
				if (!id)
					continue;
				const char *e = id;
				while (e < nl && ident_char((unsigned char)*e))
					e++;
				if (e == id || e - id > 63)
					continue; /* not a name: left to the parser */
				int i = 0;
				while (i < nnames && (strlen(names[i]) != (size_t)(e - id) ||
						      memcmp(names[i], id, (size_t)(e - id))))
					i++;
				if (i == nnames) {
					snprintf(why, whylen,
						 "its print fmt names a field it lacks: %.*s",
						 (int)(e - id), id);
					return -1;
				}
				q = e - 1;
			}
		}
		line = nl + 1;
	}
	if (!have_name || !have_id || !have_format || !have_print) {
		snprintf(why, whylen, "no %s line",
			 !have_name   ? "name" :
			 !have_id     ? "ID" :
			 !have_format ? "format" :
					"print fmt");
		return -1;
	}
	return 0;
}

/*
 * A trial of libtraceevent's parser on formats in a child: 1.7.1 dereferences NULL on some
 * print fmt arguments it cannot make sense of (found by fuzzing: "__print_symbchar[16]->x"),
 * and a grammar check here would have to know every helper a kernel's formats use. The child
 * parses them and prints a zeroed record of each event (as a tool prints one); dying on a
 * signal or a sanitizer's exit code is the verdict.
 *
 * One child serves every trial of a start (a fork is 2-2.5 ms here, and filetop loads 47
 * formats one by one): it takes a batch over a socket, answers one byte, and waits for the
 * next. One that died is reaped for its verdict and made again at the next trial;
 * format_trial_end() lets it go (the driver, before a run's banner).
 */
static struct {
	pid_t pid, owner; /* the child, and the process that made it (a fork inherits this) */
	int fd;
	int long_size;
} server = {.fd = -1};

/* All of len bytes at buf read from the socket fd, or (out) sent to it; false at its end or
 * an error (never SIGPIPE: the child may have died). */
static bool transfer(int fd, void *buf, size_t len, bool out)
{
	char *p = buf;
	while (len) {
		ssize_t n = out ? send(fd, p, len, MSG_NOSIGNAL) : read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

static bool read_all(int fd, void *buf, size_t len)
{
	return transfer(fd, buf, len, false);
}

static bool send_all(int fd, const void *buf, size_t len)
{
	return transfer(fd, (void *)buf, len, true);
}

/* The child: batches of (count; then each: sys length, sys, text length, text), each
 * answered "k" once parsed and printed, until the socket closes. */
static void serve(int fd, int long_size)
{
	static unsigned char data[4096];
	for (;;) {
		uint32_t n;
		if (!read_all(fd, &n, sizeof(n)))
			_exit(0);
		alarm(5);
		struct tep_handle *t = tep_alloc();
		if (!t)
			_exit(0);
		tep_set_long_size(t, long_size);
		for (uint32_t i = 0; i < n; i++) {
			uint32_t len[2];
			if (!read_all(fd, len, sizeof(len)) || len[0] > 4096 || len[1] > (1U << 26))
				_exit(0);
			char *sys = malloc(len[0] + 1), *text = malloc(len[1] + 1);
			if (!sys || !text || !read_all(fd, sys, len[0]) ||
			    !read_all(fd, text, len[1]))
				_exit(0);
			sys[len[0]] = text[len[1]] = 0;
			struct tep_event *ev = NULL;
			if (!tep_parse_format(t, &ev, text, len[1], sys) && ev) {
				uint16_t id = (uint16_t)ev->id;
				memcpy(data, &id, sizeof(id));
				struct tep_record rec = {
					.data = data, .size = sizeof(data), .ts = 1};
				struct trace_seq seq;
				trace_seq_init(&seq);
				tep_print_event(t, &seq, &rec, "%s %s", TEP_PRINT_NAME,
						TEP_PRINT_INFO);
				trace_seq_destroy(&seq);
			}
			free(sys);
			free(text);
		}
		tep_free(t);
		alarm(0);
		if (!send_all(fd, "k", 1))
			_exit(0);
	}
}

static int server_start(int long_size)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (pid == 0) {
		/* Not this run's handlers: the child owns nothing in the kernel. Signals sent to
		 * the process group (Ctrl-C) are the parent's to act on. Nothing of the parent's
		 * is kept open (a file of an instance would keep it from being removed). */
		static const int ignore[] = {SIGINT,  SIGQUIT, SIGHUP, SIGTERM,
					     SIGPIPE, SIGUSR1, SIGUSR2};
		for (int sig = 1; sig < NSIG; sig++)
			signal(sig, SIG_DFL);
		for (size_t i = 0; i < sizeof(ignore) / sizeof(ignore[0]); i++)
			signal(ignore[i], SIG_IGN);
		for (int fd = 3; fd < sv[1]; fd++)
			close(fd);
		if (syscall(SYS_close_range, sv[1] + 1, ~0U, 0)) /* Linux 5.9 */
			for (int fd = sv[1] + 1; fd < 1024; fd++)
				close(fd);
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0)
			dup2(null, 2); /* the parser's warnings are the parent's to print */
		serve(sv[1], long_size);
		_exit(0);
	}
	close(sv[1]);
	server.owner = getpid();
	server.pid = pid;
	server.fd = sv[0];
	server.long_size = long_size;
	return 0;
}

/* The child has gone (closed its end: only by exiting, as no other process has it) or was
 * killed: its exit status, reaped; -1 when it cannot be had (reaped by someone else). */
static int server_reap(void)
{
	int status = -1;
	if (server.fd >= 0)
		close(server.fd);
	server.fd = -1;
	while (server.pid > 0 && waitpid(server.pid, &status, 0) < 0)
		if (errno != EINTR) {
			status = -1;
			break;
		}
	server.pid = 0;
	return status;
}

void format_trial_end(void)
{
	/* Not by closing the socket alone: a process forked since (the command of --exec,
	 * held until tracing is on) has a copy of it open, and the child would wait on. */
	if (server.pid > 0 && server.owner == getpid()) {
		kill(server.pid, SIGKILL);
		server_reap();
	}
}

/* One batch to the child: 1 when it lived, 0 when it went without a verdict (closed, or
 * reaped by someone else), -1 with why when it died of it. */
static int try_batch(const struct format_text *f, size_t n, char *why, size_t whylen)
{
	uint32_t count = (uint32_t)n;
	bool sent = send_all(server.fd, &count, sizeof(count));
	for (size_t i = 0; sent && i < n; i++) {
		uint32_t len[2] = {(uint32_t)strlen(f[i].sys), (uint32_t)f[i].len};
		sent = send_all(server.fd, len, sizeof(len)) &&
		       send_all(server.fd, f[i].sys, len[0]) &&
		       send_all(server.fd, f[i].text, len[1]);
	}
	char k;
	if (sent && read_all(server.fd, &k, 1) && k == 'k')
		return 1;
	int status = server_reap();
	char sigbuf[16];
	if (status == -1)
		return 0;
	if (WIFSIGNALED(status))
		snprintf(why, whylen, "libtraceevent's parser dies on it: %s in a trial",
			 sig_name(WTERMSIG(status), sigbuf));
	else if (WIFEXITED(status) && WEXITSTATUS(status))
		snprintf(why, whylen, "libtraceevent's parser fails on it: exit %d in a trial",
			 WEXITSTATUS(status));
	else
		return 0;
	return -1;
}

int format_trial(struct tep_handle *tep, const struct format_text *f, size_t n, char *why,
		 size_t whylen)
{
	int long_size = tep_get_long_size(tep);
	if (server.pid > 0 && server.owner != getpid()) {
		/* A fork's copy of its parent's: not ours to use or reap. */
		close(server.fd);
		server.fd = -1;
		server.pid = 0;
	}
	if (server.pid > 0 && server.long_size != long_size)
		server_reap();
	/* A child that went without a verdict is made again once. */
	for (int attempt = 0; attempt < 2; attempt++) {
		if (server.pid <= 0 && server_start(long_size))
			return 0; /* no trial: the parse below is the one the tool always made */
		int r = try_batch(f, n, why, whylen);
		if (r)
			return r > 0 ? 0 : -1;
	}
	return 0;
}

/* The trial of n formats, halved while it fails: the ones that fail alone are refused (the
 * last one named in refused). A few forks for one bad format among thousands, and a batch
 * too slow for the trial's alarm (5,000 formats under ASan on a busy machine) is judged in
 * smaller ones, not format by format. */
static void trial_halves(struct tep_handle *tep, struct format_text *f, size_t n, bool *bad,
			 char *refused, char *refused_why)
{
	char why[128];
	if (!n || !format_trial(tep, f, n, why, sizeof(why)))
		return;
	if (n == 1) {
		*bad = true;
		snprintf(refused, FORMAT_REFUSED_LEN, "%s:%s", f->sys, f->name);
		snprintf(refused_why, FORMAT_REFUSED_LEN, "%s", why);
		return;
	}
	trial_halves(tep, f, n / 2, bad, refused, refused_why);
	trial_halves(tep, f + n / 2, n - n / 2, bad + n / 2, refused, refused_why);
}

void format_parse_many(struct tep_handle *tep, struct format_text *f, size_t n, char *refused,
		       char *refused_why)
{
	char why[128];
	size_t sound = 0;
	for (size_t i = 0; i < n; i++) {
		if (format_sound(f[i].text, f[i].len, why, sizeof(why))) {
			snprintf(refused, FORMAT_REFUSED_LEN, "%s:%s", f[i].sys, f[i].name);
			snprintf(refused_why, FORMAT_REFUSED_LEN, "%s", why);
			free(f[i].text);
			continue;
		}
		f[sound++] = f[i];
	}
	bool *bad = calloc(sound ? sound : 1, sizeof(*bad));
	if (bad)
		trial_halves(tep, f, sound, bad, refused, refused_why);
	for (size_t i = 0; i < sound; i++) {
		bool refuse = bad ? bad[i] : format_trial(tep, &f[i], 1, why, sizeof(why)) != 0;
		if (refuse && !bad) {
			snprintf(refused, FORMAT_REFUSED_LEN, "%s:%s", f[i].sys, f[i].name);
			snprintf(refused_why, FORMAT_REFUSED_LEN, "%s", why);
		}
		if (!refuse)
			tep_parse_event(tep, f[i].text, (unsigned long)f[i].len, f[i].sys);
		free(f[i].text);
	}
	free(bad);
}

int format_parse(struct tep_handle *tep, const char *fmt, size_t len, const char *sys, char *why,
		 size_t whylen)
{
	struct format_text f = {.sys = sys, .text = (char *)fmt, .len = len};
	if (format_sound(fmt, len, why, whylen) || format_trial(tep, &f, 1, why, whylen))
		return -1;
	return tep_parse_event(tep, fmt, (unsigned long)len, sys) ? 1 : 0;
}
