/* SPDX-License-Identifier: GPL-2.0-only */
/* opt: checked parsing of command-line values; a bad value is one line on stderr and exit 2. */
#ifndef FTT_OPT_H
#define FTT_OPT_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "base/spec.h" /* SPEC, for the option tables */

#define EXIT_USAGE 2

/* The tool's name for messages (set from argv[0] by opt_init). */
extern const char *opt_tool;
/* Set opt_tool to the last part of argv0 (a pointer into it, not a copy), then check the
 * standard streams (out_check_stdio: a closed stdout is exit 1). */
void opt_init(const char *argv0);

/* "tool: <message>" on stderr (opt_tool, then fmt formatted with the arguments, a newline),
 * exit 2; opt_fail_hook (the tests') is called before the exit when set. */
void opt_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* A value the user gave, s, fit to be shown between single quotes in a message: quotes and
 * backslashes as \' and \\, control characters and bytes past ASCII as \xNN, cut at 200
 * bytes ("..."). Returns it in a static buffer of its own, four in turn: valid until the
 * fourth call after. */
const char *opt_shown(const char *s);

/* The integer s (decimal, a sign allowed, no white space) in [min, max]; what names the value
 * in the error ("PID", "count"). Returns it; one that is empty, not a whole number or out of
 * range is a usage error (one line on stderr, exit 2). */
long long opt_int(const char *s, long long min, long long max, const char *what);
/* A PID s: opt_int in [1, INT_MAX], named "PID" in the error. Returns it; else exit 2. */
pid_t opt_pid(const char *s);
/* Seconds s, fractions allowed ("0.5"), greater than 0, as opt_decimal checks them; what names
 * the value in the error. Returns them in nanoseconds; else exit 2. */
uint64_t opt_seconds(const char *s, const char *what);
/* The floor of an interval between reports, 10 ms (perf stat -I's): shorter, each report's
 * own reading and printing would be most of the time measured. */
#define OPT_INTERVAL_MIN_NS 10000000ULL
/* An interval between reports s, as opt_seconds and at least OPT_INTERVAL_MIN_NS. Returns it
 * in nanoseconds; else exit 2 ("invalid interval: ..."). */
uint64_t opt_interval(const char *s);
/* A decimal s greater than 0 times scale, rounded (opt_decimal("1.5", 1e6, "MS",
 * "milliseconds")): digits and one point only (no sign, exponent, hex, "inf" or "nan"); what
 * names the value in the error, unit what it counts. Returns it; one that is not such a
 * decimal, is past 1e18 once scaled (said as 30 years of nanoseconds) or rounds to 0 is a
 * usage error (exit 2). */
uint64_t opt_decimal(const char *s, double scale, const char *what, const char *unit);
/* A PID s that names a running process (kill(pid, 0) does not fail with ESRCH: one of another
 * user counts). Returns it; else exit 2 ("no such process: ..."). */
pid_t opt_live_pid(const char *s);

/* Print the version line and exit 0 (-V). */
void opt_version(void) __attribute__((noreturn));

/*
 * A tool's options as one table: getopt's letters and long names, the usage text (and so
 * what the man-page check compares with the page's SYNOPSIS and OPTIONS) all come from it.
 */

struct opt_spec {
	int key;	  /* the letter; an option with a long name only: OPT_LONG + n */
	const char *name; /* the long name, or NULL */
	const char *arg;  /* the value's name ("SECS"), NULL for a flag; with "..." in it, the
			   * rest of the command line: last in the synopsis */
	const char *help; /* one line; a '\n' starts another, indented alike */
	int id;		  /* for the driver (tool.h): which shared option this is, 0: none */
};
#define OPT_LONG 0x100

/* What the usage says besides the options. */
struct opt_usage {
	const char *tool;
	const struct opt_spec *opts;   /* ends with a key of 0; -h and -V are added */
	const struct opt_spec *shared; /* after them: what every tool of the kind has, or NULL */
	const char *operands;	       /* the synopsis after the options: "[duration]" */
	const char *const *more;       /* other synopsis lines, each after the tool's name */
	const char *operand_help;      /* lines after the options, each "   NAME    what" */
	const char *const *examples;   /* "tool -x   # what it does" */
};

/* The usage of u on f: synopsis, options, operands, examples. */
void opt_usage(FILE *f, const struct opt_usage *u);

/*
 * Parse the options of argv (argc words) with u's table: fn(spec, arg, ctx) for each, arg
 * NULL for a flag. As getopt_long does by default, options may follow operands (argv is
 * permuted to put the operands last) until "--". -h prints the usage on stdout and exits 0,
 * -V the version; an unknown option or a missing value exits 2, as does running out of
 * memory. Returns the index in argv of the first operand (argc when there is none).
 */
int opt_parse(int argc, char **argv, const struct opt_usage *u,
	      void (*fn)(const struct opt_spec *spec, const char *arg, void *ctx), void *ctx);

/*
 * For the tools that read text (heatmap, flamegraph): also checks stdio (out_check_stdio),
 * parses the options of argv (argc words) with u's table as opt_parse does (fn and ctx as
 * there), takes at most one operand (more: exit 2), the input file ("-" or none: standard
 * input), and opens it; one that cannot be opened is one line on stderr and exit 1. *name is
 * the file's name for messages: the operand itself, or "standard input" (static). Returns
 * the stream, never NULL: stdin, or a file the caller closes with fclose().
 */
FILE *opt_parse_input(int argc, char **argv, const struct opt_usage *u,
		      void (*fn)(const struct opt_spec *spec, const char *arg, void *ctx),
		      void *ctx, const char **name);

/* A name glob s (-n, PATTERN): not empty, brackets closed, no quotes, backslashes (they
 * would need escaping in the kernel's filter) or newlines. Returns s itself (the caller's);
 * else exits 2 naming what with the reason. */
const char *opt_glob(const char *s, const char *what);
/* The index of s among the n names; what names the value in the error. Returns it; else a
 * usage error, exit 2: "invalid WHAT: 's' (a, b or c)". */
int opt_choice(const char *s, const char *const *names, int n, const char *what);
/* A thread s that exists (-L): opt_int in [1, INT_MAX] named "TID", with a /proc/TID. Returns
 * it; else exit 2 ("no such thread: ..."). */
pid_t opt_live_tid(const char *s);

#endif
