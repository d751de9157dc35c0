// SPDX-License-Identifier: GPL-2.0-only
#include "base/opt.h"
#include "base/testhooks.h"
#include "base/out.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

const char *opt_tool = "ftrace-tools";

void opt_init(const char *argv0)
{
	const char *slash = strrchr(argv0, '/');
	opt_tool = slash ? slash + 1 : argv0;
	out_check_stdio(opt_tool);
}

void (*opt_fail_hook)(void);

void opt_fail(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", opt_tool);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (opt_fail_hook)
		opt_fail_hook();
	exit(EXIT_USAGE);
}

const char *opt_shown(const char *s)
{
	static char bufs[4][1024];
	static unsigned turn;
	char *b = bufs[turn++ % 4];
	size_t n = 0;
	const unsigned char *p = (const unsigned char *)s;
	for (; *p && p - (const unsigned char *)s < 200; p++) {
		if (*p == '\'' || *p == '\\')
			n += (size_t)sprintf(b + n, "\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			n += (size_t)sprintf(b + n, "\\x%02x", *p);
		else
			b[n++] = (char)*p;
	}
	if (*p)
		n += (size_t)sprintf(b + n, "...");
	b[n] = 0;
	return b;
}

void opt_version(void)
{
	printf("%s (ftrace-tools) %s\n", opt_tool, FTT_VERSION);
	exit(0);
}

static const struct opt_spec help_version[] = {
	{'h', "help", NULL, "this usage", 0},
	{'V', "version", NULL, "the version", 0},
};

static size_t count_specs(const struct opt_spec *o)
{
	size_t n = 0;
	while (o && o[n].key)
		n++;
	return n;
}

/* The table and -h, -V: spec i of all. */
static const struct opt_spec *spec_at(const struct opt_usage *u, size_t i)
{
	size_t n = count_specs(u->opts), m = count_specs(u->shared);
	return i < n	     ? &u->opts[i] :
	       i < n + m     ? &u->shared[i - n] :
	       i < n + m + 2 ? &help_version[i - n - m] :
			       NULL;
}

/* Flags in one bracket as perf-tools and bcc print them: by letter, lower case first. */
static int flag_order(const void *a, const void *b)
{
	int x = *(const char *)a, y = *(const char *)b;
	int lx = tolower(x), ly = tolower(y);
	return lx != ly ? lx - ly : isupper(x) - isupper(y);
}

/* Words of the synopsis, wrapped at 88 columns under the first one after the tool's name. */
static void words(FILE *f, int indent, int *col, const char *w)
{
	int len = (int)strlen(w);
	if (*col > indent && *col + 1 + len > 88) {
		fprintf(f, "\n%*s", indent, "");
		*col = indent;
	} else if (*col > indent) {
		putc(' ', f);
		(*col)++;
	}
	fputs(w, f);
	*col += len;
}

void opt_usage(FILE *f, const struct opt_usage *u)
{
	char flags[128] = "", w[256];
	int nflags = 0;
	const struct opt_spec *o;
	for (size_t i = 0; (o = spec_at(u, i)); i++)
		if (!o->arg && o->key < OPT_LONG && nflags < (int)sizeof(flags) - 1)
			flags[nflags++] = (char)o->key;
	qsort(flags, (size_t)nflags, 1, flag_order);
	int indent = (int)strlen("USAGE: ") + (int)strlen(u->tool) + 1, col = indent;
	fprintf(f, "USAGE: %s ", u->tool);
	if (nflags) {
		snprintf(w, sizeof(w), "[-%s]", flags);
		words(f, indent, &col, w);
	}
	for (size_t i = 0; (o = spec_at(u, i)); i++) {
		if (!o->arg && o->key < OPT_LONG)
			continue; /* in the bracket of flags */
		if (o->arg && strstr(o->arg, " [ARG...]"))
			continue; /* the rest of the command line: last */
		if (o->key < OPT_LONG)
			snprintf(w, sizeof(w), "[-%c %s]", o->key, o->arg);
		else if (o->arg)
			snprintf(w, sizeof(w), "[--%s %s]", o->name, o->arg);
		else
			snprintf(w, sizeof(w), "[--%s]", o->name);
		words(f, indent, &col, w);
	}
	if (u->operands && *u->operands) {
		/* Operands are one word when they hold a quoted part with spaces. */
		words(f, indent, &col, u->operands);
	}
	for (size_t i = 0; (o = spec_at(u, i)); i++)
		if (o->arg && strstr(o->arg, " [ARG...]")) {
			snprintf(w, sizeof(w), "[--%s %s]", o->name, o->arg);
			words(f, indent, &col, w);
		}
	putc('\n', f);
	for (size_t i = 0; u->more && u->more[i]; i++)
		fprintf(f, "       %s %s\n", u->tool, u->more[i]);
	for (size_t i = 0; (o = spec_at(u, i)); i++) {
		int n;
		if (o->key < OPT_LONG && o->name)
			n = snprintf(w, sizeof(w), "-%c, --%s%s%s", o->key, o->name,
				     o->arg ? " " : "", o->arg ? o->arg : "");
		else if (o->key < OPT_LONG)
			n = snprintf(w, sizeof(w), "-%c%s%s", o->key, o->arg ? " " : "",
				     o->arg ? o->arg : "");
		else
			n = snprintf(w, sizeof(w), "--%s%s%s", o->name, o->arg ? " " : "",
				     o->arg ? o->arg : "");
		fprintf(f, "   %s%*s", w, n < 11 ? 12 - n : 2, "");
		for (const char *h = o->help; *h;) {
			size_t len = strcspn(h, "\n");
			fprintf(f, "%.*s\n", (int)len, h);
			h += len;
			if (*h == '\n' && *++h)
				fprintf(f, "%15s", "");
		}
	}
	if (u->operand_help)
		fputs(u->operand_help, f);
	if (u->examples && u->examples[0]) {
		fputs("  eg,\n", f);
		for (size_t i = 0; u->examples[i]; i++)
			fprintf(f, "       %s\n", u->examples[i]);
	}
}

int opt_parse(int argc, char **argv, const struct opt_usage *u,
	      void (*fn)(const struct opt_spec *spec, const char *arg, void *ctx), void *ctx)
{
	size_t n = count_specs(u->opts) + count_specs(u->shared) + 2;
	char *letters = calloc(2 * n + 2, 1);
	struct option *longs = calloc(n + 1, sizeof(*longs));
	if (!letters || !longs)
		opt_fail("out of memory");
	size_t nl = 0, nlong = 0;
	/* No '+': options anywhere before --exec, as GNU tools take them (funccount 'vfs_*'
	 * -d 4, syscount 0.2 -d 3); "--" ends them, for an operand that starts with '-'. */
	const struct opt_spec *o;
	for (size_t i = 0; (o = spec_at(u, i)); i++) {
		if (o->key < OPT_LONG) {
			letters[nl++] = (char)o->key;
			if (o->arg)
				letters[nl++] = ':';
		}
		if (o->name)
			longs[nlong++] = (struct option){
				o->name, o->arg ? required_argument : no_argument, NULL, o->key};
	}
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, letters, longs, NULL)) != -1) {
		if (c == 'h') {
			opt_usage(stdout, u);
			exit(0);
		}
		if (c == 'V')
			opt_version();
		const struct opt_spec *spec = NULL;
		for (size_t i = 0; c != '?' && c != ':' && (o = spec_at(u, i)); i++)
			if (o->key == c)
				spec = o;
		if (!spec)
			opt_fail("unknown option or missing value: '%s' (see -h)",
				 argv[optind - 1]);
		fn(spec, optarg, ctx);
	}
	free(letters);
	free(longs);
	return optind;
}

int opt_choice(const char *s, const char *const *names, int n, const char *what)
{
	char list[256] = "";
	for (int i = 0; i < n; i++) {
		if (!strcmp(s, names[i]))
			return i;
		size_t len = strlen(list);
		snprintf(list + len, sizeof(list) - len, "%s%s",
			 i == 0	    ? "" :
			 i == n - 1 ? " or " :
				      ", ",
			 names[i]);
	}
	opt_fail("invalid %s: '%s' (%s)", what, opt_shown(s), list);
}

const char *opt_glob(const char *s, const char *what)
{
	if (!*s)
		opt_fail("invalid %s: '' (empty)", what);
	if (strpbrk(s, "\"\\\n"))
		opt_fail("invalid %s: '%s' (no quotes, backslashes or newlines)", what,
			 opt_shown(s));
	/* A '[' must be closed by a ']' after at least one character ("[]x]" is fnmatch's
	 * way of naming ']'), else fnmatch and the kernel read it differently. */
	for (const char *p = s; (p = strchr(p, '[')); p++) {
		const char *q = p + 1;
		if (*q == '!' || *q == '^')
			q++;
		if (*q == ']')
			q++;
		if (!(q = strchr(q, ']')))
			opt_fail("invalid %s: '%s' (a '[' without its ']')", what, opt_shown(s));
		p = q;
	}
	return s;
}

pid_t opt_live_tid(const char *s)
{
	pid_t tid = (pid_t)opt_int(s, 1, INT_MAX, "TID");
	char path[64];
	struct stat st;
	/* /proc/TID exists for every thread, though only processes are listed. */
	snprintf(path, sizeof(path), "/proc/%d", (int)tid);
	if (stat(path, &st))
		opt_fail("no such thread: %s", s);
	return tid;
}

long long opt_int(const char *s, long long min, long long max, const char *what)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (!*s)
		opt_fail("invalid %s: empty (not a whole number)", what);
	if (isspace((unsigned char)*s) || *end || (errno && errno != ERANGE))
		opt_fail("invalid %s: '%s' (not a whole number)", what, opt_shown(s));
	if (errno == ERANGE || v < min || v > max)
		opt_fail("invalid %s: %s (must be %lld to %lld)", what, opt_shown(s), min, max);
	return v;
}

pid_t opt_pid(const char *s)
{
	return (pid_t)opt_int(s, 1, INT_MAX, "PID");
}

uint64_t opt_decimal(const char *s, double scale, const char *what, const char *unit)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	/* strtod also takes hex, "inf" and "nan": allow plain decimals only. */
	if (!*s || strspn(s, "0123456789.") != strlen(s) || *end || errno || !isfinite(v))
		opt_fail("invalid %s: '%s' (not a number of %s)", what, opt_shown(s), unit);
	if (v <= 0 || v * scale > 1e18)
		opt_fail("invalid %s: %s (must be greater than 0 and less than 30 years)", what,
			 opt_shown(s));
	uint64_t ns = (uint64_t)(v * scale + 0.5);
	if (!ns)
		opt_fail("invalid %s: %s (shorter than a nanosecond)", what, s);
	return ns;
}

uint64_t opt_seconds(const char *s, const char *what)
{
	return opt_decimal(s, 1e9, what, "seconds");
}

uint64_t opt_interval(const char *s)
{
	uint64_t ns = opt_seconds(s, "interval");
	if (ns < OPT_INTERVAL_MIN_NS)
		opt_fail("invalid interval: %s (at least 0.01 seconds)", s);
	return ns;
}

pid_t opt_live_pid(const char *s)
{
	pid_t pid = opt_pid(s);
	if (kill(pid, 0) && errno == ESRCH)
		opt_fail("no such process: %s", s);
	return pid;
}

FILE *opt_parse_input(int argc, char **argv, const struct opt_usage *u,
		      void (*fn)(const struct opt_spec *spec, const char *arg, void *ctx),
		      void *ctx, const char **name)
{
	out_check_stdio(u->tool);
	int first = opt_parse(argc, argv, u, fn, ctx);
	if (argc - first > 1)
		opt_fail("unexpected argument: '%s' (see -h)", argv[first + 1]);
	const char *file = first < argc && strcmp(argv[first], "-") ? argv[first] : NULL;
	FILE *in = file ? fopen(file, "r") : stdin;
	if (!in) {
		fprintf(stderr, "%s: cannot open %s: %s\n", u->tool, file, strerror(errno));
		exit(1);
	}
	*name = file ? file : "standard input";
	return in;
}
