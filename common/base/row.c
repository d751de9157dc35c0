// SPDX-License-Identifier: GPL-2.0-only
#include "base/row.h"
#include "base/out.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

void row_init(struct row *r, const struct row_table *t, FILE *f, bool json, bool ts, bool wall)
{
	memset(r, 0, sizeof(*r));
	r->table = t;
	r->f = f;
	r->json = json;
	for (int i = 0; i < t->ncols && i < ROW_MAX_COLS; i++)
		if ((t->cols[i].kind == ROW_TIME && ts) || (t->cols[i].kind == ROW_WALL && wall))
			r->shown |= 1U << i;
}

void row_show(struct row *r, const char *key, bool on)
{
	for (int i = 0; i < r->table->ncols && i < ROW_MAX_COLS; i++)
		if (r->table->cols[i].key && !strcmp(r->table->cols[i].key, key)) {
			if (on)
				r->shown |= 1U << i;
			else
				r->shown &= ~(1U << i);
		}
}

/* Is column i in this line's text, or its JSON object? */
static bool in_text(const struct row *r, int i)
{
	const struct row_col *c = &r->table->cols[i];
	if ((c->flags & ROW_NOTEXT) || c->kind == ROW_JSON)
		return false;
	return !(c->flags & ROW_OPTIONAL) || (r->shown >> i & 1);
}

static bool in_json(const struct row *r, int i)
{
	return !(r->table->cols[i].flags & ROW_NOJSON) && r->table->cols[i].key;
}

void row_header(struct row *r)
{
	if (r->json)
		return;
	bool any = false;
	for (int i = 0; i < r->table->ncols; i++) {
		const struct row_col *c = &r->table->cols[i];
		if (!in_text(r, i))
			continue;
		if (any)
			fputc(' ', r->f);
		bool last = i == r->table->ncols - 1 || c->kind == ROW_TEXT;
		if (last && c->width < 0)
			fputs(c->head, r->f); /* no trailing spaces */
		else
			fprintf(r->f, "%*s", c->width, c->head);
		any = true;
	}
	fputc('\n', r->f);
}

/* The column about to be written, or NULL past the end (a tool's bug: nothing written). */
static const struct row_col *next(struct row *r, bool *text, bool *json)
{
	if (r->at >= r->table->ncols)
		return NULL;
	int i = r->at++;
	*text = !r->json && in_text(r, i);
	*json = r->json && in_json(r, i);
	const struct row_col *c = &r->table->cols[i];
	if (*text && r->any)
		fputc(' ', r->f);
	if (*json) {
		if (r->any)
			putc(',', r->f);
		putc('"', r->f);
		fputs(c->key, r->f);
		fputs("\":", r->f);
	}
	if (*text || *json)
		r->any = true;
	return c;
}

/* Trailing spaces of the last column are left out. */
static int width_of(const struct row *r, const struct row_col *c)
{
	return c == &r->table->cols[r->table->ncols - 1] && c->width < 0 ? 0 : c->width;
}

void row_begin(struct row *r, uint64_t ts_ns)
{
	r->at = 0;
	r->any = false;
	if (r->json)
		fputc('{', r->f);
	/* The time columns that lead the table. */
	while (r->at < r->table->ncols) {
		const struct row_col *c = &r->table->cols[r->at];
		bool text, json;
		if (c->kind == ROW_TIME) {
			next(r, &text, &json);
			/* Six decimals (every time column's) as the trace file shows them */
			char buf[48];
			int len = json || (text && c->prec == 6) ?
					  (int)out_seconds_buf(buf, ts_ns) :
					  0;
			if (text && c->prec == 6)
				fprintf(r->f, "%*.*s", width_of(r, c), len, buf);
			else if (text)
				fprintf(r->f, "%*.*f", width_of(r, c), c->prec, ts_ns / 1e9);
			if (json)
				fwrite(buf, 1, (size_t)len, r->f);
		} else if (c->kind == ROW_WALL) {
			char buf[16];
			next(r, &text, &json);
			out_wallclock(ts_ns, buf);
			if (text)
				fprintf(r->f, "%*s", width_of(r, c), buf);
			if (json) { /* "HH:MM:SS": nothing to escape */
				putc('"', r->f);
				fputs(buf, r->f);
				putc('"', r->f);
			}
		} else {
			break;
		}
	}
}

void row_int(struct row *r, long long v)
{
	bool text, json;
	const struct row_col *c = next(r, &text, &json);
	if (c && text)
		fprintf(r->f, "%*lld", width_of(r, c), v);
	if (c && json) {
		char buf[24], *end = buf + sizeof(buf), *d = out_dec(end, v);
		fwrite(d, 1, (size_t)(end - d), r->f);
	}
}

void row_uint(struct row *r, unsigned long long v)
{
	bool text, json;
	const struct row_col *c = next(r, &text, &json);
	if (c && text)
		fprintf(r->f, "%*llu", width_of(r, c), v);
	if (c && json) {
		char buf[24], *end = buf + sizeof(buf), *d = out_udec(end, v);
		fwrite(d, 1, (size_t)(end - d), r->f);
	}
}

void row_hex(struct row *r, unsigned long long v)
{
	bool text, json;
	const struct row_col *c = next(r, &text, &json);
	char buf[24];
	snprintf(buf, sizeof(buf), "0x%llx", v);
	if (c && text)
		fprintf(r->f, "%*s", width_of(r, c), buf);
	if (c && json)
		fprintf(r->f, "\"%s\"", buf);
}

void row_float(struct row *r, double v)
{
	bool text, json;
	const struct row_col *c = next(r, &text, &json);
	if (c && text)
		fprintf(r->f, "%*.*f", width_of(r, c), c->prec, v);
	if (c && json)
		fprintf(r->f, "%.*f", c->prec, v);
}

static void text_bytes(struct row *r, const struct row_col *c, const char *s, size_t len)
{
	int w = width_of(r, c);
	if (c->kind == ROW_TEXT) {
		out_text_line(r->f, s, len);
		return;
	}
	/* out_text pads to a left-aligned width; a right-aligned one is padded here (the
	 * last column, of width 0, is written whole by out_text: no buffer cuts it). */
	if (w > 0) {
		char buf[512];
		size_t n = out_text_buf(buf, sizeof(buf), s, len);
		fprintf(r->f, "%*s", w, buf);
		(void)n;
		return;
	}
	out_text(r->f, s, len, -w);
}

void row_str(struct row *r, const char *s, size_t max)
{
	size_t len = s ? strnlen(s, max) : 0;
	row_bytes(r, s ? s : "", len);
}

void row_bytes(struct row *r, const char *s, size_t len)
{
	bool text, json;
	const struct row_col *c = next(r, &text, &json);
	if (c && text)
		text_bytes(r, c, s, len);
	if (c && json)
		out_json_bytes(r->f, s, len);
}

void row_word(struct row *r, const char *w)
{
	bool text, json;
	const struct row_col *c = next(r, &text, &json);
	if (c && text)
		fprintf(r->f, "%*s", width_of(r, c), w);
	if (c && json)
		out_json_str(r->f, w, strlen(w));
}

FILE *row_json(struct row *r)
{
	bool text, json;
	const struct row_col *c = next(r, &text, &json);
	return c && json ? r->f : NULL;
}

FILE *row_text(struct row *r)
{
	bool text, json;
	const struct row_col *c = next(r, &text, &json);
	return c && text ? r->f : NULL;
}

void row_none(struct row *r)
{
	bool text, json;
	const struct row_col *c = next(r, &text, &json);
	if (c && text)
		fprintf(r->f, "%*s", width_of(r, c), "-");
	if (c && json)
		fputs("null", r->f);
}

void row_end_open(struct row *r)
{
	/* Columns the tool did not write: none in text, null in JSON (a bug of the tool, but
	 * the object stays valid). */
	while (r->at < r->table->ncols)
		row_none(r);
	if (!r->json)
		fputc('\n', r->f);
}

void row_close(struct row *r)
{
	if (r->json) {
		fwrite(row_tags, 1, row_tags_len, r->f);
		fputs("}\n", r->f);
	}
}

/* Room for both members: a nodename and a release are 64 bytes each (utsname), 6 bytes
 * each at most once escaped (\u00XX). */
char row_tags[2 * (16 + 6 * 65)];
size_t row_tags_len;

int row_tag(const char *list, char *why, size_t len)
{
	struct utsname u;
	bool host = false, kernel = false;
	char *copy = strdup(list), *save = NULL;
	if (!copy) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (!strcmp(w, "host")) {
			host = true;
		} else if (!strcmp(w, "kernel")) {
			kernel = true;
		} else {
			snprintf(why, len, "'%.64s' is not a tag (host, kernel)", w);
			free(copy);
			return -1;
		}
	}
	free(copy);
	if (!host && !kernel) {
		snprintf(why, len, "no tag named (host, kernel)");
		return -1;
	}
	if (uname(&u)) {
		snprintf(why, len, "uname: %s", strerror(errno));
		return -1;
	}
	size_t o = 0;
	if (host) {
		memcpy(row_tags + o, ",\"host\":", 8);
		o += 8;
		o += out_json_bytes_buf(row_tags + o, u.nodename, strnlen(u.nodename, 64));
	}
	if (kernel) {
		memcpy(row_tags + o, ",\"kernel\":", 10);
		o += 10;
		o += out_json_bytes_buf(row_tags + o, u.release, strnlen(u.release, 64));
	}
	row_tags_len = o;
	row_tags[o] = 0;
	return 0;
}

void row_tag_keys(FILE *f)
{
	fprintf(f, "host\tthe host's name, uname's nodename (--tag host)\n"
		   "kernel\tthe running kernel's release, uname -r (--tag kernel)\n");
}

void row_end(struct row *r)
{
	row_end_open(r);
	row_close(r);
}

void row_keys(FILE *f, const struct row_table *t)
{
	for (int i = 0; i < t->ncols; i++)
		if (t->cols[i].key && !(t->cols[i].flags & ROW_NOJSON))
			fprintf(f, "%s\t%s\n", t->cols[i].key,
				t->cols[i].doc ? t->cols[i].doc : "");
}
