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
 * A trial of libtraceevent's parser on fmt in a child: 1.7.1 dereferences NULL on some print
 * fmt arguments it cannot make sense of (found by fuzzing: "__print_symbchar[16]->x"), and a
 * grammar check here would have to know every helper a kernel's formats use. The child parses
 * it and prints a zeroed record of the event (as a tool prints one); dying on a signal or a
 * sanitizer's exit code is the verdict. At start only: a fork (~0.5 ms here) for all the
 * formats loaded together, one per probe made.
 */

int format_trial(struct tep_handle *tep, const struct format_text *f, size_t n, char *why,
		 size_t whylen)
{
	pid_t pid = fork();
	if (pid < 0)
		return 0; /* no trial: the parse below is the one the tool always made */
	if (pid == 0) {
		/* Not this run's handlers: the child owns nothing in the kernel. Signals sent to
		 * the process group (Ctrl-C) are the parent's to act on. */
		static const int ignore[] = {SIGINT,  SIGQUIT, SIGHUP, SIGTERM,
					     SIGPIPE, SIGUSR1, SIGUSR2};
		for (int sig = 1; sig < NSIG; sig++)
			signal(sig, SIG_DFL);
		for (size_t i = 0; i < sizeof(ignore) / sizeof(ignore[0]); i++)
			signal(ignore[i], SIG_IGN);
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0)
			dup2(null, 2); /* the parser's warnings are the parent's to print */
		alarm(5);
		struct tep_handle *t = tep_alloc();
		if (!t)
			_exit(0);
		tep_set_long_size(t, tep_get_long_size(tep));
		static unsigned char data[4096];
		for (size_t i = 0; i < n; i++) {
			struct tep_event *ev = NULL;
			if (tep_parse_format(t, &ev, f[i].text, (unsigned long)f[i].len,
					     f[i].sys) ||
			    !ev)
				continue;
			uint16_t id = (uint16_t)ev->id;
			memcpy(data, &id, sizeof(id));
			struct tep_record rec = {.data = data, .size = sizeof(data), .ts = 1};
			struct trace_seq seq;
			trace_seq_init(&seq);
			tep_print_event(t, &seq, &rec, "%s %s", TEP_PRINT_NAME, TEP_PRINT_INFO);
			trace_seq_destroy(&seq);
		}
		_exit(0);
	}
	int status;
	char sigbuf[16];
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFSIGNALED(status))
		snprintf(why, whylen, "libtraceevent's parser dies on it: %s in a trial",
			 sig_name(WTERMSIG(status), sigbuf));
	else
		snprintf(why, whylen, "libtraceevent's parser fails on it: exit %d in a trial",
			 WEXITSTATUS(status));
	return -1;
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
