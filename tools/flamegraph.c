// SPDX-License-Identifier: GPL-2.0-only
/*
 * flamegraph: folded stacks in (tpoint, kprobe, uprobe, functrace --folded; perf's and
 * bcc's folded output), one interactive SVG flame graph out; with --diff BEFORE, a
 * differential one (AFTER's shape, coloured by the change from BEFORE). Needs nothing but
 * the text.
 */
#include "pictures/flame.h"
#include "base/opt.h"
#include "base/out.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct env {
	const char *output; /* -o */
	const char *before; /* --diff */
	bool colors;	    /* --colors given */
	struct flame_opts o;
} env;

static const char *const color_names[] = {"split", "hot"};

enum { OPT_TITLE = OPT_LONG + 1, OPT_COLORS, OPT_ICICLE, OPT_WIDTH, OPT_DIFF, OPT_UNSCALED };

static const struct opt_spec options[] = {
	{OPT_TITLE, "title", "TEXT", "the title (default: Flame graph)", 0},
	{OPT_COLORS, "colors", "SCHEME",
	 "split: kernel frames (NAME_[k]) blue, user frames warm (default);\nhot: all warm", 0},
	{OPT_ICICLE, "icicle", NULL, "the root at the top, callees below it (reversed)", 0},
	{OPT_WIDTH, "width", "PIXELS", "the picture's width (default 1200)", 0},
	{OPT_DIFF, "diff", "BEFORE",
	 "a differential graph: FILE's frames (AFTER), each coloured by\nthe change of its self "
	 "samples from BEFORE's (red more, blue fewer)",
	 0},
	{OPT_UNSCALED, "unscaled", NULL,
	 "with --diff: BEFORE's counts as they are (default: scaled to\nAFTER's total)", 0},
	OUT_OPT_OUTPUT(0),
	{0, NULL, NULL, NULL, 0},
};

static const char *const examples[] = {
	"uprobe -U --folded -d 10 'p:libc:malloc' | flamegraph > malloc.svg",
	"tpoint -s --folded -d 5 sched:sched_switch | flamegraph --title 'off-CPU' > sw.svg",
	"flamegraph --icicle --colors hot stacks.folded > icicle.svg",
	"flamegraph --diff before.folded after.folded > diff.svg",
	NULL,
};

static void option(const struct opt_spec *o, const char *arg, void *ctx)
{
	switch (o->key) {
	case 'o': env.output = arg; break;
	case OPT_TITLE: env.o.title = arg; break;
	case OPT_COLORS:
		env.o.colors = (enum flame_colors)opt_choice(arg, color_names, 2, "--colors");
		env.colors = true;
		break;
	case OPT_DIFF: env.before = arg; break;
	case OPT_UNSCALED: env.o.unscaled = true; break;
	case OPT_ICICLE: env.o.icicle = true; break;
	case OPT_WIDTH: env.o.width = (double)opt_int(arg, 200, 100000, "PIXELS (width)"); break;
	}
}

/* Lines left out for one reason: how many, and the first of them (its end, when long). */
struct refused {
	size_t n, first, len;
	bool cut;
	char text[64];
};

static void refuse(struct refused *r, size_t n, const char *line, size_t len)
{
	if (r->n++)
		return;
	r->first = n;
	if (len && line[len - 1] == '\n')
		len--;
	r->cut = len > sizeof(r->text);
	r->len = r->cut ? sizeof(r->text) : len;
	memcpy(r->text, line + len - r->len, r->len);
}

/* Said with the line as it was (its bytes escaped), so that the reason can be seen; with
 * --diff, with the file's name. */
static void say(const struct refused *r, const char *file, size_t lines, const char *why)
{
	if (!r->n)
		return;
	fprintf(stderr, "flamegraph: %s%s%zu of %zu lines %s: left out (line %zu first: '%s",
		env.before ? file : "", env.before ? ": " : "", r->n, lines, why, r->first,
		r->cut ? "..." : "");
	out_text_line(stderr, r->text, r->len);
	fputs("')\n", stderr);
}

/* The folded lines of in into f, the lines left out said; -1 (said) when in cannot be read,
 * holds no samples, or memory runs out. */
static int read_folded(FILE *in, const char *file, struct flame *f)
{
	char *line = NULL;
	size_t cap = 0, n = 0;
	struct refused refused[2] = {{0}}; /* FLAME_NO_COUNT, FLAME_COUNT_TOO_LARGE */
	ssize_t len;
	while ((len = getline(&line, &cap, in)) > 0) {
		n++;
		enum flame_line r = flame_add_line(f, line, (size_t)len);
		if (r == FLAME_OOM) {
			fprintf(stderr, "flamegraph: out of memory at line %zu of %s\n", n, file);
			free(line);
			return -1;
		}
		if (r == FLAME_NO_COUNT || r == FLAME_COUNT_TOO_LARGE)
			refuse(&refused[r != FLAME_NO_COUNT], n, line, (size_t)len);
	}
	free(line);
	if (ferror(in)) {
		fprintf(stderr, "flamegraph: cannot read %s: %s\n", file, strerror(errno));
		return -1;
	}
	say(&refused[0], file, n,
	    "do not end in white space and a count (digits, a fraction allowed: 'a;b 12', "
	    "'a;b 1.5')");
	say(&refused[1], file, n, "have a count too large to add up");
	if (!(flame_total(f) > 0)) {
		fprintf(stderr, "flamegraph: no samples in %s\n", file);
		return -1;
	}
	return 0;
}

/* SIGPIPE caught rather than ignored: a write to a pipe nobody reads then fails with EPIPE,
 * and this says that it did. */
static volatile sig_atomic_t reader_gone;

static void on_sigpipe(int sig)
{
	reader_gone = 1;
}

int main(int argc, char **argv)
{
	static const struct opt_usage usage = {
		.tool = "flamegraph",
		.opts = options,
		.operands = "[FILE]",
		.operand_help =
			"   FILE        folded stacks, a line each (default: standard input)\n",
		.examples = examples,
	};
	opt_init(argv[0]);
	sigaction(SIGPIPE, &(struct sigaction){.sa_handler = on_sigpipe}, NULL);
	const char *file;
	FILE *in = opt_parse_input(argc, argv, &usage, option, NULL, &file);
	if (env.o.unscaled && !env.before)
		opt_fail("--unscaled is for --diff");
	if (env.before && env.colors)
		opt_fail("--colors with --diff: the colours say the change");
	if (env.before && !strcmp(env.before, "-") && in == stdin)
		opt_fail("--diff - and AFTER both standard input: give AFTER as a file");
	if (env.output && out_to_file(env.output, "flamegraph"))
		return 2;
	struct flame *f = flame_new(), *before = env.before ? flame_new() : NULL;
	int rc = 1;
	if (!f || (env.before && !before)) {
		fprintf(stderr, "flamegraph: out of memory\n");
		goto out;
	}
	if (env.before) {
		FILE *b = strcmp(env.before, "-") ? fopen(env.before, "r") : stdin;
		if (!b) {
			fprintf(stderr, "flamegraph: cannot open %s: %s\n", env.before,
				strerror(errno));
			goto out;
		}
		int r = read_folded(b, b == stdin ? "standard input" : env.before, before);
		if (b != stdin)
			fclose(b);
		if (r)
			goto out;
		env.o.before = before;
	}
	if (read_folded(in, file, f))
		goto out;
	if (flame_svg(f, &env.o, stdout)) {
		fprintf(stderr, "flamegraph: out of memory\n");
		goto out;
	}
	rc = 0;
out:
	flame_free(f);
	flame_free(before);
	if (rc)
		return rc;
	/* | head: the reader went away. Not a failure, as in the tracing tools: exit 0, quietly
	 * (out.c's check at exit cannot tell EPIPE once stdio has dropped what it held). */
	fflush(stdout);
	if (reader_gone)
		_exit(0);
	return 0; /* a write error on standard output: exit 1, said at exit (out.c) */
}
