// SPDX-License-Identifier: GPL-2.0-only
#include "pictures/heat.h"
#include "base/out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A value (n = 1) or a bucket of a histogram (n values in [v, 2v), or [0, 1) for v = 0). */
struct point {
	double t, v;
	uint64_t n;
};

struct heat {
	struct point *p;
	size_t n, cap;
	uint64_t total, beyond;
	bool buckets;
};

/* Log rows: one per power of 2 between these; a value beyond is in the last row, which
 * then says "and above" (or "below"). */
#define LOG_MIN -40
#define LOG_MAX 64
#define MAX_COLUMNS 20000

struct heat *heat_new(void)
{
	return calloc(1, sizeof(struct heat));
}

void heat_free(struct heat *h)
{
	if (h)
		free(h->p);
	free(h);
}

uint64_t heat_count(const struct heat *h)
{
	return h->total;
}

uint64_t heat_beyond(const struct heat *h)
{
	return h->beyond;
}

static int push(struct heat *h, double t, double v, uint64_t n)
{
	if (!isfinite(t) || !isfinite(v) || v < 0 || h->total + n < h->total)
		return -1;
	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 1024;
		struct point *p = realloc(h->p, cap * sizeof(*p));
		if (!p)
			return -1;
		h->p = p;
		h->cap = cap;
	}
	h->p[h->n++] = (struct point){t, v, n};
	h->total += n;
	return 0;
}

int heat_add(struct heat *h, double t, double v)
{
	return push(h, t, v, 1);
}

bool heat_bucket_ok(double lo, double hi)
{
	int e;
	return isfinite(lo) && (lo == 0 ? hi == 1 : (frexp(lo, &e) == 0.5 && hi == 2 * lo));
}

int heat_add_bucket(struct heat *h, double t, double lo, double hi, uint64_t count)
{
	if (!heat_bucket_ok(lo, hi))
		return -1;
	h->buckets = true;
	return count ? push(h, t, lo, count) : 0;
}

/* floor(log2 v) for v > 0 */
static int log2_floor(double v)
{
	int e;
	frexp(v, &e); /* v = m 2^e, m in [0.5, 1) */
	return e - 1;
}

/* The log row of v > 0: floor(log2 v), within the rows kept. */
static int log_row(double v)
{
	int e = log2_floor(v);
	return e < LOG_MIN ? LOG_MIN : e > LOG_MAX ? LOG_MAX : e;
}

/* 1, 2 or 5 times a power of 10, at least x. */
static double nice(double x)
{
	double p = pow(10, floor(log10(x)));
	return x <= p ? p : x <= 2 * p ? 2 * p : x <= 5 * p ? 5 * p : 10 * p;
}

static int by_time(const void *a, const void *b)
{
	double x = ((const struct point *)a)->t, y = ((const struct point *)b)->t;
	return x < y ? -1 : x > y;
}

/* Colour of a cell of count c when the fullest has max: log scale, pale yellow (one) through
 * orange to dark red (max). */
static void colour(uint64_t c, uint64_t max, char buf[48])
{
	static const double stop[3][3] = {{255, 226, 140}, {240, 120, 30}, {140, 0, 0}};
	double x = max > 1 ? log((double)c) / log((double)max) : 1;
	int i = x < 0.5 ? 0 : 1;
	double f = x < 0.5 ? x * 2 : (x - 0.5) * 2;
	snprintf(buf, 48, "rgb(%d,%d,%d)",
		 (int)lround(stop[i][0] + f * (stop[i + 1][0] - stop[i][0])),
		 (int)lround(stop[i][1] + f * (stop[i + 1][1] - stop[i][1])),
		 (int)lround(stop[i][2] + f * (stop[i + 1][2] - stop[i][2])));
}

/* A time label: seconds since midnight as HH:MM:SS(.fff), or seconds from the start. */
static void time_label(const struct heat_opts *o, double t, double t0, double width, char buf[32])
{
	if (o->clock) {
		double day = fmod(t, 86400);
		int s = (int)floor(day);
		int frac = width < 1 ? (int)lround((day - s) * 1000) : -1;
		if (frac == 1000)
			s++, frac = 0;
		snprintf(buf, 32, "%02d:%02d:%02d", s / 3600 % 24, s / 60 % 60, s % 60);
		if (frac >= 0)
			snprintf(buf + 8, 24, ".%03d", frac);
	} else {
		snprintf(buf, 32, "%.6g s", t - t0);
	}
}

static void value_label(double v, const char *unit, char buf[48])
{
	snprintf(buf, 48, "%.6g%s%s", v, unit[0] ? " " : "", unit);
}

static void text(FILE *f, const char *s)
{
	out_xml(f, s, strlen(s));
}

int heat_svg(struct heat *h, const struct heat_opts *o, FILE *out, char *why, size_t whylen)
{
	const char *unit = o->unit ? o->unit : "", *what = o->what ? o->what : "values";
	if (!h->n) {
		snprintf(why, whylen, "no values to draw");
		return -1;
	}
	if (h->buckets && o->linear) {
		snprintf(why, whylen,
			 "histogram buckets (powers of 2) cannot be cut into linear rows");
		return -1;
	}
	qsort(h->p, h->n, sizeof(*h->p), by_time);
	double t0 = h->p[0].t, t1 = h->p[h->n - 1].t, vmax = 0;
	bool zero = false, over = false, under = false; /* values past LOG_MAX, LOG_MIN */
	int rmin = LOG_MAX, rmax = LOG_MIN;
	for (size_t i = 0; i < h->n; i++) {
		double v = h->p[i].v;
		vmax = v > vmax ? v : vmax;
		if (v == 0) {
			zero = true;
			continue;
		}
		int e = log2_floor(v), r = log_row(v);
		over |= e > LOG_MAX;
		under |= e < LOG_MIN;
		rmin = r < rmin ? r : rmin;
		rmax = r > rmax ? r : rmax;
	}
	/* Columns: as given; for buckets the histograms' own interval (the smallest step
	 * between them); for values about 100 across the time range. Too many of them, or
	 * times too far apart for any width (-1e308 and 1e308), the options must change: -2. */
	double range = t1 - t0, width = o->width;
	if (!isfinite(range)) {
		snprintf(why, whylen, "the times run from %g s to %g s: too far apart to draw", t0,
			 t1);
		return -2;
	}
	if (width <= 0 && h->buckets) {
		for (size_t i = 1; i < h->n; i++) {
			double d = h->p[i].t - h->p[i - 1].t;
			if (d > 1e-9 && (width <= 0 || d < width))
				width = d;
		}
	} else if (width <= 0) {
		width = range > 0 ? nice(range / 100) : 1;
	}
	if (width <= 0)
		width = 1;
	double span = range / width;
	if (span >= MAX_COLUMNS) {
		snprintf(why, whylen,
			 "the times span %g s: %.0f columns of %g s, more than %d: columns of %g s "
			 "or wider would fit",
			 range, floor(span) + 1, width, MAX_COLUMNS,
			 nice(range / (MAX_COLUMNS - 1)));
		return -2;
	}
	int ncols = (int)floor(span) + 1;
	int nlin = o->linear_rows > 0 ? o->linear_rows : 40;
	double top = o->max > 0 ? o->max : vmax > 0 ? vmax : 1;
	int nrows = o->linear ? nlin : (rmin <= rmax ? rmax - rmin + 1 : 0) + zero;
	uint64_t *cell = calloc((size_t)ncols * (size_t)nrows, sizeof(*cell));
	if (!cell) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	uint64_t cmax = 0, beyond = 0;
	size_t used = 0;
	for (size_t i = 0; i < h->n; i++) {
		const struct point *p = &h->p[i];
		int c = (int)floor((p->t - t0) / width), r;
		if (c >= ncols)
			c = ncols - 1;
		if (o->linear) {
			/* In double until it is known to be a row: 1e12 over a top of 50 is
			 * past any int. */
			double q = floor(p->v / top * nlin);
			if (q >= nlin) {
				beyond += p->v > top ? p->n : 0;
				r = nlin - 1;
			} else {
				r = (int)q;
			}
		} else {
			r = p->v == 0 ? 0 : log_row(p->v) - rmin + zero;
		}
		uint64_t *x = &cell[(size_t)c * (size_t)nrows + (size_t)r];
		used += !*x;
		*x += p->n;
		cmax = *x > cmax ? *x : cmax;
	}

	double cw = 1000.0 / ncols, ch = 400.0 / nrows;
	cw = cw < 1 ? 1 : cw > 80 ? 80 : cw;
	ch = ch < 4 ? 4 : ch > 36 ? 36 : ch;
	const double left = 100, top_y = 56, right = 190, bottom = 64;
	double pw = ncols * cw, ph = nrows * ch, W = left + pw + right, H = top_y + ph + bottom;
	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" font-family=\"Verdana, sans-serif\" font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		"<text x=\"%.1f\" y=\"26\" font-size=\"17\" text-anchor=\"middle\">",
		W, H, W, H, W / 2);
	text(out, o->title ? o->title : "Latency heat map");
	fprintf(out,
		"</text>\n<text x=\"%.1f\" y=\"44\" text-anchor=\"middle\" fill=\"#555\">%llu ",
		W / 2, (unsigned long long)h->total);
	text(out, what);
	fprintf(out, " in %zu cells; columns of %g s, %s rows</text>\n", used, width,
		o->linear ? "linear" : "log2");
	fprintf(out,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fafafa\" "
		"stroke=\"#999\"/>\n<g id=\"cells\">\n",
		left, top_y, pw, ph);
	for (int c = 0; c < ncols; c++) {
		char from[32], to[32];
		time_label(o, t0 + c * width, t0, width, from);
		time_label(o, t0 + (c + 1) * width, t0, width, to);
		for (int r = 0; r < nrows; r++) {
			uint64_t n = cell[(size_t)c * (size_t)nrows + (size_t)r];
			if (!n)
				continue;
			char fill[48], lo[48], hi[48];
			colour(n, cmax, fill);
			double vlo, vhi;
			int lr = r - zero + rmin; /* the log row */
			if (o->linear)
				vlo = top * r / nlin, vhi = top * (r + 1) / nlin;
			else if (zero && r == 0)
				vlo = 0, vhi = h->buckets ? 1 : 0;
			else
				vlo = ldexp(1, lr), vhi = 2 * vlo;
			/* the last log rows hold what is past them too */
			bool above = o->linear ? r == nlin - 1 && beyond : over && lr == LOG_MAX;
			bool below = !o->linear && !(zero && r == 0) && under && lr == LOG_MIN;
			value_label(vlo, unit, lo);
			value_label(vhi, unit, hi);
			fprintf(out,
				"<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
				"fill=\"%s\" data-count=\"%llu\"><title>",
				left + c * cw, top_y + (nrows - 1 - r) * ch, cw, ch, fill,
				(unsigned long long)n);
			text(out, from);
			fputs(" to ", out);
			text(out, to);
			fputs(", ", out);
			if (vhi == vlo) {
				text(out, lo);
			} else if (above) {
				text(out, lo);
				fputs(" and above", out);
			} else if (below) {
				fputs("above 0, below ", out);
				text(out, hi);
			} else {
				text(out, lo);
				fputs(" to ", out);
				text(out, hi);
			}
			fprintf(out, ": %llu</title></rect>\n", (unsigned long long)n);
		}
	}
	fputs("</g>\n", out);

	/* y: each row's lower bound at its lower edge (every k-th when rows are thin). */
	int every = ch >= 12 ? 1 : (int)ceil(12 / ch);
	for (int r = 0; r < nrows; r += every) {
		if (!o->linear && under && r - zero + rmin == LOG_MIN)
			continue; /* holds values down to 0: no bound to show */
		char lo[48];
		double v = o->linear	  ? top * r / nlin :
			   zero && r == 0 ? 0 :
					    ldexp(1, r - zero + rmin);
		value_label(v, unit, lo);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", left - 6,
			top_y + (nrows - r) * ch + 4);
		text(out, lo);
		fputs("</text>\n", out);
	}
	/* and the top row's upper bound at the top */
	if (!(zero && nrows == 1) && !(!o->linear && over)) {
		char hi[48];
		value_label(o->linear ? top : ldexp(1, nrows - zero + rmin), unit, hi);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", left - 6,
			top_y + 4);
		text(out, hi);
		fputs("</text>\n", out);
	}
	fprintf(out,
		"<text transform=\"translate(22,%.1f) rotate(-90)\" text-anchor=\"middle\">"
		"Latency",
		top_y + ph / 2);
	if (unit[0]) {
		fputs(" (", out);
		text(out, unit);
		fputc(')', out);
	}
	fputs("</text>\n", out);
	/* x: a label about every 110 pixels, at a column's start. */
	int step = (int)ceil(110 / cw);
	for (int c = 0; c < ncols; c += step) {
		char at[32];
		time_label(o, t0 + c * width, t0, width, at);
		fprintf(out,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
			left + c * cw, top_y + ph, left + c * cw, top_y + ph + 5, left + c * cw,
			top_y + ph + 19);
		text(out, at);
		fputs("</text>\n", out);
	}
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">Time%s</text>\n",
		left + pw / 2, top_y + ph + 44, o->clock ? "" : " (from the first value)");
	/* Legend: the colour of 1 and of the fullest cell, and steps between on the log scale. */
	double lx = left + pw + 24;
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">", lx, top_y + 10);
	text(out, what);
	fputs(" per cell</text>\n", out);
	uint64_t prev = 0;
	int row = 0;
	for (int i = 0; i <= 5; i++) {
		uint64_t n = (uint64_t)llround(pow((double)cmax, i / 5.0));
		if (n <= prev)
			continue;
		prev = n;
		char fill[48];
		colour(n, cmax, fill);
		double y = top_y + 20 + row++ * 20;
		fprintf(out,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"16\" height=\"14\" fill=\"%s\" "
			"stroke=\"#999\"/><text x=\"%.1f\" y=\"%.1f\">%llu</text>\n",
			lx, y, fill, lx + 22, y + 11, (unsigned long long)n);
	}
	double y = top_y + 20 + row * 20;
	fprintf(out,
		"<rect x=\"%.1f\" y=\"%.1f\" width=\"16\" height=\"14\" fill=\"#fafafa\" "
		"stroke=\"#999\"/><text x=\"%.1f\" y=\"%.1f\">none</text>\n",
		lx, y, lx + 22, y + 11);
	if (beyond)
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">%llu above the top row</text>\n", lx,
			y + 36, (unsigned long long)beyond);
	fputs("</svg>\n", out);
	free(cell);
	h->beyond = beyond;
	return 0;
}
