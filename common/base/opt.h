/* SPDX-License-Identifier: GPL-2.0-only */
/* opt: checked parsing of command-line values; a bad value is one line on stderr and exit 2. */
#ifndef FTT_OPT_H
#define FTT_OPT_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define EXIT_USAGE 2

/* The tool's name for messages (set from argv[0] by opt_init). */
extern const char *opt_tool;
void opt_init(const char *argv0);

/* "tool: <message>" on stderr, exit 2. */
void opt_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* A value the user gave, fit to be shown between single quotes in a message: quotes and
 * backslashes as \' and \\, control characters and bytes past ASCII as \xNN, cut at 200
 * bytes ("..."). In a buffer of its own, four in turn. */
const char *opt_shown(const char *s);

/* An integer in [min, max]; what names the value in the error ("PID", "count"). */
long long opt_int(const char *s, long long min, long long max, const char *what);
pid_t opt_pid(const char *s);
/* Seconds, fractions allowed ("0.5"), greater than 0; returned in nanoseconds. */
uint64_t opt_seconds(const char *s, const char *what);
/* An interval between reports, as opt_seconds and at least 10 ms (perf stat -I's floor):
 * shorter, each report's own reading and printing would be most of the time measured. */
#define OPT_INTERVAL_MIN_NS 10000000ULL
uint64_t opt_interval(const char *s);
/* A decimal greater than 0 times scale (opt_decimal("1.5", 1e6, "MS", "milliseconds")). */
uint64_t opt_decimal(const char *s, double scale, const char *what, const char *unit);
/* A PID that names a running process. */
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

/* The usage: synopsis, options, operands, examples. */
void opt_usage(FILE *f, const struct opt_usage *u);

/*
 * Parse the options of argv with u's table (stopping at the first operand): fn(key, value,
 * ctx) for each. -h prints the usage on stdout and exits 0, -V the version; an unknown
 * option or a missing value exits 2. Returns the index of the first operand.
 */
int opt_parse(int argc, char **argv, const struct opt_usage *u,
	      void (*fn)(const struct opt_spec *spec, const char *arg, void *ctx), void *ctx);

/*
 * For the tools that read text (heatmap, flamegraph): also checks stdio (out_check_stdio),
 * parses the options, takes at most one operand, the input file ("-" or none: standard
 * input), and opens it; one that cannot be opened is one line on stderr and exit 1. *name is
 * the file's name for messages.
 */
FILE *opt_parse_input(int argc, char **argv, const struct opt_usage *u,
		      void (*fn)(const struct opt_spec *spec, const char *arg, void *ctx),
		      void *ctx, const char **name);

/* A name glob (-n, PATTERN): not empty, brackets closed, no quotes or backslashes (they
 * would need escaping in the kernel's filter). Exits 2 naming what with the reason. */
const char *opt_glob(const char *s, const char *what);
/* The index of s among the n names; else a usage error "invalid WHAT: 's' (a, b or c)". */
int opt_choice(const char *s, const char *const *names, int n, const char *what);
/* A thread that exists (-L). */
pid_t opt_live_tid(const char *s);

#endif
