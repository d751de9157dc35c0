// SPDX-License-Identifier: GPL-2.0-only
/* pprof: folded lines encoded as profile.proto, read back here by a small decoder: the
 * strings, the samples' frames leaf first and their values, the types and the period; the
 * gzip'd file is the same bytes. */
#include "helpers.h"

#include "count/pprof.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static uint64_t varint(const unsigned char **p, const unsigned char *end)
{
	uint64_t v = 0;
	for (int shift = 0; *p < end && shift < 64; shift += 7) {
		unsigned char c = *(*p)++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	fail_msg("bad varint");
	return 0;
}

/* Each field of a message: fn(field, wire type, varint value or bytes). */
typedef void (*field_fn)(unsigned f, int wt, uint64_t v, const unsigned char *d, size_t n,
			 void *ctx);
static void fields(const unsigned char *p, size_t len, field_fn fn, void *ctx)
{
	const unsigned char *end = p + len;
	while (p < end) {
		uint64_t key = varint(&p, end);
		int wt = (int)(key & 7);
		if (wt == 0) {
			fn((unsigned)(key >> 3), 0, varint(&p, end), NULL, 0, ctx);
		} else if (wt == 2) {
			uint64_t n = varint(&p, end);
			assert_true(n <= (uint64_t)(end - p));
			fn((unsigned)(key >> 3), 2, 0, p, (size_t)n, ctx);
			p += n;
		} else {
			fail_msg("wire type %d not written by us", wt);
		}
	}
}

struct prof {
	char *str[64];
	int nstr;
	uint64_t loc[8][8]; /* per sample, location ids */
	int nloc[8];
	uint64_t val[8][2];
	int nval[8];
	uint64_t type_name[4]; /* the sample types' type strings */
	int nsamples, types, locations, functions;
	uint64_t period_type;
	uint64_t period, duration, time;
};

static void packed(const unsigned char *d, size_t n, uint64_t *out, int *count)
{
	const unsigned char *end = d + n;
	while (d < end)
		out[(*count)++] = varint(&d, end);
}

static void sample_field(unsigned f, int wt, uint64_t v, const unsigned char *d, size_t n,
			 void *ctx)
{
	(void)v;
	struct prof *p = ctx;
	int i = p->nsamples;
	assert_int_equal(wt, 2);
	if (f == 1) {
		packed(d, n, p->loc[i], &p->nloc[i]);
	} else if (f == 2) {
		packed(d, n, p->val[i], &p->nval[i]);
		assert_true(p->nval[i] == 1 || p->nval[i] == 2);
	}
}

/* A ValueType's type (field 1). */
static void vtype_field(unsigned f, int wt, uint64_t v, const unsigned char *d, size_t n, void *ctx)
{
	(void)wt;
	(void)d;
	(void)n;
	if (f == 1)
		*(uint64_t *)ctx = v;
}

static void top_field(unsigned f, int wt, uint64_t v, const unsigned char *d, size_t n, void *ctx)
{
	struct prof *p = ctx;
	switch (f) {
	case 1:
		if (p->types < 4)
			fields(d, n, vtype_field, &p->type_name[p->types]);
		p->types++;
		break;
	case 11: fields(d, n, vtype_field, &p->period_type); break;
	case 2:
		fields(d, n, sample_field, p);
		p->nsamples++;
		break;
	case 4: p->locations++; break;
	case 5: p->functions++; break;
	case 6:
		assert_int_equal(wt, 2);
		/* (not strndup: the string may end the buffer, unterminated, and strndup's
		 * interceptor under ASan reads one byte past it) */
		p->str[p->nstr] = malloc(n + 1);
		assert_non_null(p->str[p->nstr]);
		memcpy(p->str[p->nstr], d, n);
		p->str[p->nstr++][n] = 0;
		break;
	case 9: p->time = v; break;
	case 10: p->duration = v; break;
	case 12: p->period = v; break;
	}
}

static void test_encode(void **state)
{
	(void)state;
	struct pprof *pp = pprof_new();
	assert_non_null(pp);
	const char *a = "app;main;work;sys_read_[k] 3", *b = "app;main;a\\x3bb 2";
	assert_int_equal(pprof_add_folded(pp, a, strlen(a)), 0);
	assert_int_equal(pprof_add_folded(pp, b, strlen(b)), 0);
	assert_int_equal(pprof_add_folded(pp, "no count", 8), -1);
	assert_int_equal(pprof_add_folded(pp, "x 12y", 5), -1);
	unsigned char *d;
	size_t n;
	assert_int_equal(pprof_encode(pp, 10101010, 1700000000000000000ULL, 5000000000ULL, &d, &n),
			 0);
	struct prof p = {0};
	fields(d, n, top_field, &p);
	assert_int_equal(p.types, 2);
	assert_string_equal(p.str[p.type_name[0]], "samples");
	assert_string_equal(p.str[p.type_name[1]], "cpu");
	assert_int_equal(p.nval[0], 2);
	assert_int_equal(p.nsamples, 2);
	assert_int_equal(p.period, 10101010);
	assert_int_equal(p.duration, 5000000000ULL);
	assert_int_equal(p.time, 1700000000000000000ULL);
	assert_string_equal(p.str[0], "");
	/* one location and one function per string but "" */
	assert_int_equal(p.locations, p.nstr - 1);
	assert_int_equal(p.functions, p.nstr - 1);
	/* leaf first; the escape undone */
	assert_int_equal(p.nloc[0], 4);
	assert_string_equal(p.str[p.loc[0][0]], "sys_read_[k]");
	assert_string_equal(p.str[p.loc[0][3]], "app");
	assert_int_equal(p.nloc[1], 3);
	assert_string_equal(p.str[p.loc[1][0]], "a;b");
	assert_int_equal(p.loc[1][1], p.loc[0][2]); /* main: one location */
	assert_int_equal(p.val[0][0], 3);
	assert_int_equal(p.val[0][1], 3 * 10101010ULL);
	assert_int_equal(p.val[1][0], 2);
	/* the file: the same bytes gzip'd */
	char path[] = "/tmp/ftt-pprof-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(pprof_write(pp, path, 10101010, 1700000000000000000ULL, 5000000000ULL), 0);
	gzFile gz = gzopen(path, "rb");
	assert_non_null(gz);
	unsigned char *back = malloc(n + 16);
	assert_int_equal(gzread(gz, back, (unsigned)n + 16), (int)n);
	gzclose(gz);
	assert_memory_equal(back, d, n);
	unlink(path);
	free(back);
	free(d);
	for (int i = 0; i < p.nstr; i++)
		free(p.str[i]);
	pprof_free(pp);
}

/* Off-CPU time: one value per sample, the line's nanoseconds, named by the type given. */
static void test_time_values(void **state)
{
	(void)state;
	struct pprof *pp = pprof_new();
	assert_non_null(pp);
	const char text[] = "app;main;nap;do_nanosleep_[k] 200000000\napp;main;read 7\n";
	assert_int_equal(pprof_add_folded_text(pp, text, sizeof(text) - 1), 0);
	assert_int_equal(pprof_add_folded_text(pp, "app;x 3", 7), -1); /* no newline */
	pprof_time_values(pp, "off_cpu");
	unsigned char *d;
	size_t n;
	assert_int_equal(pprof_encode(pp, 1, 1700000000000000000ULL, 2000000000ULL, &d, &n), 0);
	struct prof p = {0};
	fields(d, n, top_field, &p);
	assert_int_equal(p.types, 1);
	assert_string_equal(p.str[p.type_name[0]], "off_cpu");
	assert_string_equal(p.str[p.period_type], "off_cpu");
	assert_int_equal(p.period, 1);
	assert_int_equal(p.nsamples, 2);
	assert_int_equal(p.nval[0], 1);
	assert_int_equal(p.val[0][0], 200000000);
	assert_string_equal(p.str[p.loc[0][0]], "do_nanosleep_[k]");
	assert_int_equal(p.nval[1], 1);
	assert_int_equal(p.val[1][0], 7);
	free(d);
	for (int i = 0; i < p.nstr; i++)
		free(p.str[i]);
	pprof_free(pp);
}

/* --pprof's path: checked at start (nothing left), written whole or not at all. */
static void test_paths(void **state)
{
	(void)state;
	char dir[] = "/tmp/ftt-pprof-dir-XXXXXX", path[64], tmp[80];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/p.pb.gz", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	assert_int_equal(pprof_check(dir), -1);
	assert_int_equal(errno, EISDIR);
	assert_int_equal(pprof_check("/nonexistent-ftt/p.pb.gz"), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(pprof_check(""), -1);
	assert_int_equal(pprof_check(path), 0);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(access(tmp, F_OK), -1);
	struct pprof *pp = pprof_new();
	assert_int_equal(pprof_add_folded(pp, "a;b 1", 5), 0);
	assert_int_equal(pprof_write(pp, path, 1, 0, 0), 0);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(access(tmp, F_OK), -1);
	assert_int_equal(pprof_write(pp, "/nonexistent-ftt/p.pb.gz", 1, 0, 0), -1);
	/* path.tmp left by a killed run, or a hard link to a file of someone's put there: the
	 * check passes, the write makes its own (the linked file untouched). */
	char other[80];
	snprintf(other, sizeof(other), "%s/other", dir);
	FILE *o = fopen(other, "w");
	assert_non_null(o);
	fputs("keep", o);
	fclose(o);
	assert_int_equal(link(other, tmp), 0);
	assert_int_equal(pprof_check(path), 0);
	assert_int_equal(access(tmp, F_OK), -1);
	assert_int_equal(link(other, tmp), 0);
	assert_int_equal(pprof_write(pp, path, 1, 0, 0), 0);
	assert_int_equal(access(tmp, F_OK), -1);
	char kept[8] = "";
	o = fopen(other, "r");
	assert_non_null(o);
	assert_non_null(fgets(kept, sizeof(kept), o));
	fclose(o);
	assert_string_equal(kept, "keep");
	unlink(other);
	pprof_free(pp);
	/* From folded text: written whole; a line that is not folded writes nothing. */
	assert_int_equal(pprof_write_folded(path, "a;b 1\nc 2\n", 10, "off_cpu", 1, 0, 0), 0);
	assert_int_equal(access(path, F_OK), 0);
	unlink(path);
	assert_int_equal(pprof_write_folded(path, "a;b 1\nno-count\n", 15, NULL, 1, 0, 0), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(access(tmp, F_OK), -1);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode),
		cmocka_unit_test(test_time_values),
		cmocka_unit_test(test_paths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
