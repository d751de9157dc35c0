// SPDX-License-Identifier: GPL-2.0-only
/*
 * heatmap: JSON lines in (any tool's -j), one SVG latency heat map out. Each line is a value
 * at a time (iosnoop -j: end_s and lat_ms) or a histogram at a time (funclatency -j,
 * iolatency -j: time and hist). Needs nothing but the text: run it on the traced box or
 * anywhere else.
 */
#include "pictures/heat.h"
#include "pictures/json.h"
#include "base/opt.h"
#include "base/out.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct env {
	const char *output; /* -o */
	const char *time, *value, *file;
	struct heat_opts o;
} env;

static const char *const row_names[] = {"log", "linear"};

enum { OPT_TIME = OPT_LONG + 1, OPT_VALUE, OPT_UNIT, OPT_COLUMN, OPT_ROWS, OPT_MAX, OPT_TITLE };

static const struct opt_spec options[] = {
	{OPT_TIME, "time", "FIELD",
	 "the time of each line: seconds, or \"HH:MM:SS\" (default: end_s, else\ntime)", 0},
	{OPT_VALUE, "value", "FIELD",
	 "the value (default: lat_ms, else hist: a histogram, [{low,high,count}])", 0},
	{OPT_UNIT, "unit", "UNIT",
	 "the value's unit for the labels (default: from the field's name,\n_ms _us _ns _s, or "
	 "the line's unit field)",
	 0},
	{OPT_COLUMN, "column", "SECS",
	 "column width (default: the histograms' interval, or about 100\ncolumns across the "
	 "time range)",
	 0},
	{OPT_ROWS, "rows", "SCALE", "log (a row per power of 2, the default) or linear", 0},
	{OPT_MAX, "max", "VALUE",
	 "linear rows: the top row's upper bound (default: the largest value);\nvalues "
	 "above it are counted in the top row, and said",
	 0},
	{OPT_TITLE, "title", "TEXT", "the title (default: Latency heat map)", 0},
	OUT_OPT_OUTPUT(0),
	{0, NULL, NULL, NULL, 0},
};

static const char *const examples[] = {
	"iosnoop -j 10 | heatmap > io.svg          # 10 s of disk I/O latency",
	"funclatency -j -i 1 -d 60 vfs_read | heatmap > read.svg   # a histogram a second",
	"heatmap --rows linear --max 50 --column 0.5 io.json > io.svg",
	NULL,
};

static void option(const struct opt_spec *o, const char *arg, void *ctx)
{
	switch (o->key) {
	case 'o': env.output = arg; break;
	case OPT_TIME: env.time = arg; break;
	case OPT_VALUE: env.value = arg; break;
	case OPT_UNIT: env.o.unit = arg; break;
	case OPT_COLUMN: env.o.width = (double)opt_seconds(arg, "SECS (column)") / 1e9; break;
	case OPT_ROWS: env.o.linear = opt_choice(arg, row_names, 2, "--rows") == 1; break;
	case OPT_MAX: {
		char *end;
		errno = 0;
		env.o.max = strtod(arg, &end);
		if (errno || end == arg || *end || !(env.o.max > 0) || env.o.max > 1e300)
			opt_fail("invalid --max: '%s' (a number greater than 0)", arg);
		break;
	}
	case OPT_TITLE: env.o.title = arg; break;
	}
}

/* A time: a number of seconds, or "HH:MM:SS[.frac]" as seconds since midnight. */
static bool get_time(struct json_span v, double *t, bool *clock)
{
	char s[32];
	int h, m;
	double sec;
	char end;
	if (json_number(v, t)) {
		*clock = false;
		return true;
	}
	if (!json_string(v, s, sizeof(s)) || sscanf(s, "%2d:%2d:%lf%c", &h, &m, &sec, &end) != 3 ||
	    h > 23 || m > 59 || sec < 0 || sec >= 61)
		return false;
	*t = h * 3600 + m * 60 + sec;
	*clock = true;
	return true;
}

static const char *unit_of(const char *field)
{
	static const char *const suffix[][2] = {
		{"_ms", "ms"}, {"_us", "us"}, {"_ns", "ns"}, {"_s", "s"}};
	size_t n = strlen(field);
	for (size_t i = 0; i < 4; i++) {
		size_t l = strlen(suffix[i][0]);
		if (n > l && !strcmp(field + n - l, suffix[i][0]))
			return suffix[i][1];
	}
	return NULL;
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
		.tool = "heatmap",
		.opts = options,
		.operands = "[FILE]",
		.operand_help = "   FILE        JSON lines (default: standard input)\n",
		.examples = examples,
	};
	opt_init(argv[0]);
	sigaction(SIGPIPE, &(struct sigaction){.sa_handler = on_sigpipe}, NULL);
	FILE *in = opt_parse_input(argc, argv, &usage, option, NULL, &env.file);
	if (env.o.max > 0 && !env.o.linear)
		opt_fail("--max is the top of linear rows: give --rows linear too");
	if (env.output && out_to_file(env.output, "heatmap"))
		return 2;
	struct heat *h = heat_new();
	if (!h)
		return 1;
	char *line = NULL, unit[32] = "";
	size_t cap = 0, n = 0, skipped = 0, first_skipped = 0;
	ssize_t len;
	const char *tfield = env.time, *vfield = env.value;
	bool hist = false, clock = false;
	double days = 0, last = -1; /* wall-clock times: seconds added for the days passed */
	while ((len = getline(&line, &cap, in)) > 0) {
		n++;
		struct json_span o = {line, (size_t)len}, t, v;
		/* The fields: given, or the first of the defaults this line has. */
		if (!tfield)
			tfield = json_get(o, "end_s").n ? "end_s" :
				 json_get(o, "time").n	? "time" :
							  NULL;
		if (!vfield) {
			vfield = json_get(o, "lat_ms").n ? "lat_ms" :
				 json_get(o, "hist").n	 ? "hist" :
							   NULL;
			hist = vfield && !strcmp(vfield, "hist");
		}
		double tv, x;
		bool c;
		bool ok = tfield && vfield && (t = json_get(o, tfield)).n &&
			  (v = json_get(o, vfield)).n && get_time(t, &tv, &c);
		/* Wall-clock times go on past midnight: 00:00:01 after 23:59:59 is a day later. */
		if (ok && c) {
			if (last >= 0 && tv + days < last - 43200)
				days += 86400;
			last = tv += days;
		}
		if (ok && !unit[0] && !env.o.unit)
			json_string(json_get(o, "unit"), unit, sizeof(unit));
		if (ok && !hist && v.p[0] == '[')
			hist = true; /* --value naming a histogram */
		/* A histogram is checked whole before any of it is drawn: a line left out (and
		 * counted so) must not have put some of its buckets in the picture, nor may its
		 * counts take the total past 64 bits. */
		uint64_t sum = heat_count(h);
		for (int pass = 0; ok && hist && pass < 2; pass++) {
			struct json_span at = v, b;
			while (ok && (b = json_next(&at)).n) {
				double lo, hi, count;
				struct json_span l = json_get(b, "low");
				if (l.n == 4 && !memcmp(l.p, "null", 4))
					continue; /* negative values: none in a latency */
				ok = json_number(l, &lo) && json_number(json_get(b, "high"), &hi) &&
				     json_number(json_get(b, "count"), &count) && count >= 0 &&
				     count < 1.8e19 && count == floor(count) &&
				     (pass ? heat_add_bucket(h, tv, lo, hi, (uint64_t)count) == 0 :
					     heat_bucket_ok(lo, hi) &&
						      sum + (uint64_t)count >= sum);
				sum += pass ? 0 : (uint64_t)count;
			}
		}
		if (ok && !hist) {
			ok = json_number(v, &x) && heat_add(h, tv, x) == 0;
		}
		if (ok)
			clock = c;
		else if (!skipped++)
			first_skipped = n;
	}
	free(line);
	if (ferror(in)) {
		fprintf(stderr, "heatmap: cannot read %s: %s\n", env.file, strerror(errno));
		return 1;
	}
	if (in != stdin)
		fclose(in);
	if (skipped)
		fprintf(stderr,
			"heatmap: %zu of %zu lines lacked a usable %s or %s: left out (line %zu "
			"first)\n",
			skipped, n, tfield ? tfield : "end_s or time",
			vfield ? vfield : "lat_ms or hist", first_skipped);
	if (!env.o.unit)
		env.o.unit = unit[0] ? unit : vfield ? unit_of(vfield) : NULL;
	env.o.clock = clock;
	char why[160];
	int rc = heat_svg(h, &env.o, stdout, why, sizeof(why));
	if (rc) {
		fprintf(stderr, "heatmap: %s\n", why);
		heat_free(h);
		return rc == -2 ? 2 : 1; /* -2: the columns must change (--column) */
	}
	if (heat_beyond(h))
		fprintf(stderr,
			"heatmap: %llu of %llu values above --max %g: drawn in the top row (\"and "
			"above\")\n",
			(unsigned long long)heat_beyond(h), (unsigned long long)heat_count(h),
			env.o.max);
	heat_free(h);
	/* | head: the reader went away. Not a failure, as in the tracing tools: exit 0, quietly
	 * (out.c's check at exit cannot tell EPIPE once stdio has dropped what it held). */
	fflush(stdout);
	if (reader_gone)
		_exit(0);
	return 0; /* a write error on standard output: exit 1, said at exit (out.c) */
}
