// SPDX-License-Identifier: GPL-2.0-only
#include "count/keys.h"
#include "base/agg.h"
#include "stream/field.h"
#include "count/hist.h"
#include "base/out.h"
#include "count/prom.h"
#include "base/row.h"
#include "stream/reader.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#define MAX_KEYS 8
#define COMM_LEN 16

enum key_kind { KEY_PID, KEY_COMM, KEY_NUM, KEY_BYTES };

/* Interned values: bytes -> an id, so a key slot is 8 bytes however long the value. */
struct interned {
	size_t off, len;
};
struct intern {
	char *arena;
	size_t used, cap;
	struct interned *ent; /* by id - 1 */
	size_t n, nent;
	uint32_t *slot; /* open addressing: id, 0 empty */
	size_t mask;
};

struct keys {
	int nevents;
	struct tep_event **events;
	int nkeys;
	struct key {
		char *name;
		enum key_kind kind;
		size_t off;		     /* in the key */
		struct tep_format_field **f; /* per event */
		struct field_desc *d;	     /* per event */
	} k[MAX_KEYS];
	size_t keysize;
	struct tep_format_field **hf; /* --hist, per event */
	struct field_desc *hd;	      /* and how its number reads */
	const char *hist;
	struct hist_log2 h; /* --hist without keys */
	struct hist_bins bins;
	struct agg agg;
	unsigned char *key; /* scratch */
	struct intern in;
	bool json;
	const char *when;
};

static uint64_t hash(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3ULL;
	return h ^ (h >> 29);
}

static int intern_grow(struct intern *in)
{
	size_t cap = in->mask ? (in->mask + 1) * 2 : 256;
	uint32_t *slot = calloc(cap, sizeof(*slot));
	if (!slot)
		return -1;
	for (size_t i = 0; in->slot && i <= in->mask; i++) {
		uint32_t id = in->slot[i];
		if (!id)
			continue;
		size_t j = hash(in->arena + in->ent[id - 1].off, in->ent[id - 1].len) & (cap - 1);
		while (slot[j])
			j = (j + 1) & (cap - 1);
		slot[j] = id;
	}
	free(in->slot);
	in->slot = slot;
	in->mask = cap - 1;
	return 0;
}

/* The id of these bytes (made when new); 0 when out of memory. */
static uint32_t intern(struct intern *in, const void *p, size_t len)
{
	if ((in->n + 1) * 2 > in->mask + 1 && intern_grow(in))
		return 0;
	size_t i = hash(p, len) & in->mask;
	for (uint32_t id; (id = in->slot[i]); i = (i + 1) & in->mask)
		if (in->ent[id - 1].len == len && !memcmp(in->arena + in->ent[id - 1].off, p, len))
			return id;
	if (in->used + len > in->cap) {
		size_t cap = in->cap ? in->cap : 4096;
		while (cap < in->used + len)
			cap *= 2;
		char *a = realloc(in->arena, cap);
		if (!a)
			return 0;
		in->arena = a;
		in->cap = cap;
	}
	if (in->n == in->nent) {
		size_t n = in->nent ? in->nent * 2 : 256;
		void *e = realloc(in->ent, n * sizeof(*in->ent));
		if (!e)
			return 0;
		in->ent = e;
		in->nent = n;
	}
	memcpy(in->arena + in->used, p, len);
	in->ent[in->n].off = in->used;
	in->ent[in->n].len = len;
	in->used += len;
	in->slot[i] = (uint32_t)++in->n;
	return (uint32_t)in->n;
}

static void intern_reset(struct intern *in)
{
	if (in->slot)
		memset(in->slot, 0, (in->mask + 1) * sizeof(*in->slot));
	in->n = in->used = 0;
}

static void intern_free(struct intern *in)
{
	free(in->arena);
	free(in->ent);
	free(in->slot);
}

static bool numeric(const struct tep_format_field *f)
{
	return !(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING));
}

static struct keys *fail(struct keys *k, char *why, size_t len, const char *fmt, const char *a,
			 const struct tep_event *ev)
{
	char what[512];
	snprintf(what, sizeof(what), fmt, a, a);
	snprintf(why, len, "%s: %s:%s has no %s (-v shows the fields)", a, ev->system, ev->name,
		 what);
	keys_free(k);
	return NULL;
}

struct keys *keys_new(struct tep_event **events, int nevents, const char *spec, const char *hist,
		      char *why, size_t whylen)
{
	struct keys *k = calloc(1, sizeof(*k));
	if (!k) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	k->nevents = nevents;
	k->events = events;
	k->hist = hist;
	if (hist) {
		k->hf = calloc((size_t)nevents, sizeof(*k->hf));
		k->hd = calloc((size_t)nevents, sizeof(*k->hd));
		for (int i = 0; k->hf && k->hd && i < nevents; i++) {
			struct tep_format_field *f = tep_find_field(events[i], hist);
			if (!f || !numeric(f))
				return fail(k, why, whylen, "numeric field '%s'", hist, events[i]);
			k->hf[i] = f;
			k->hd[i] = field_describe(events[i], f);
		}
	}
	k->keysize = 8; /* the event's index, 8 for alignment */
	char *list = spec ? strdup(spec) : NULL, *save = NULL;
	for (char *name = list ? strtok_r(list, ",", &save) : NULL; name;
	     name = strtok_r(NULL, ",", &save)) {
		if (k->nkeys == MAX_KEYS) {
			snprintf(why, whylen, "at most %d keys", MAX_KEYS);
			free(list);
			keys_free(k);
			return NULL;
		}
		struct key *key = &k->k[k->nkeys++];
		key->name = strdup(name);
		key->f = calloc((size_t)nevents, sizeof(*key->f));
		key->d = calloc((size_t)nevents, sizeof(*key->d));
		if (!key->name || !key->f || !key->d) {
			free(list);
			snprintf(why, whylen, "out of memory");
			keys_free(k);
			return NULL;
		}
		key->off = k->keysize;
		if (!strcmp(name, "pid") || !strcmp(name, "common_pid")) {
			key->kind = KEY_PID;
		} else if (!strcmp(name, "comm")) {
			key->kind = KEY_COMM;
			key->off = k->keysize;
			k->keysize += COMM_LEN - 8; /* the name inline, whole */
		} else {
			const char *field = strncmp(name, "field.", 6) ? name : name + 6;
			key->kind = KEY_NUM;
			for (int i = 0; i < nevents; i++) {
				struct tep_format_field *f = tep_find_field(events[i], field);
				if (!f) {
					fail(k, why, whylen, "field '%s'", field, events[i]);
					free(list);
					return NULL;
				}
				key->f[i] = f;
				key->d[i] = field_describe(events[i], f);
				if (!numeric(f))
					key->kind = KEY_BYTES;
			}
		}
		k->keysize += 8;
	}
	free(list);
	if (spec && !k->nkeys) {
		snprintf(why, whylen, "no key given");
		keys_free(k);
		return NULL;
	}
	if (agg_init(&k->agg, k->keysize, hist ? sizeof(struct hist_log2) : 0) ||
	    !(k->key = calloc(1, k->keysize))) {
		snprintf(why, whylen, "out of memory");
		keys_free(k);
		return NULL;
	}
	return k;
}

bool keys_need_comm(const struct keys *k)
{
	for (int j = 0; j < k->nkeys; j++)
		if (k->k[j].kind == KEY_COMM)
			return true;
	return false;
}

/* --hist: a signed field's negative values (errors returned) get a row of their own. */
static void hist_add(struct keys *k, struct hist_log2 *h, const struct tep_record *rec, int idx)
{
	long long v = field_num(rec, k->hf[idx], &k->hd[idx]);
	if (k->hd[idx].is_signed)
		hist_bins_add_signed(h, &k->bins, v);
	else
		hist_bins_add(h, &k->bins, (uint64_t)v);
}

int keys_add(struct keys *k, const struct tep_record *rec, int idx, const char *comm)
{
	if (!k->nkeys) {
		hist_add(k, &k->h, rec, idx);
		return 0;
	}
	unsigned char *key = k->key;
	memset(key, 0, k->keysize);
	memcpy(key, &idx, sizeof(idx));
	for (int j = 0; j < k->nkeys; j++) {
		const struct key *kk = &k->k[j];
		unsigned char *dst = key + kk->off;
		uint64_t v = 0;
		if (kk->kind == KEY_PID) {
			v = (uint64_t)(int64_t)tep_data_pid(k->events[idx]->tep,
							    (struct tep_record *)rec);
		} else if (kk->kind == KEY_COMM) {
			memcpy(dst, comm, strnlen(comm, COMM_LEN));
			continue;
		} else if (kk->kind == KEY_NUM) {
			v = (uint64_t)field_num(rec, kk->f[idx], &kk->d[idx]);
		} else {
			size_t len;
			const void *p = field_data(rec, kk->f[idx], &kk->d[idx], &len);
			if (!(v = intern(&k->in, p, len)))
				return -1;
		}
		memcpy(dst, &v, 8);
	}
	struct hist_log2 *h = agg_add(&k->agg, key, 1);
	if (!h)
		return -1;
	if (k->hist)
		hist_add(k, h, rec, idx);
	return 0;
}

int keys_fields(const struct keys *k, int idx, const struct tep_format_field **f, int max)
{
	if (k->nkeys > max || k->hist)
		return -1;
	for (int j = 0; j < k->nkeys; j++) {
		if (k->k[j].kind != KEY_PID && k->k[j].kind != KEY_NUM)
			return -1;
		f[j] = k->k[j].kind == KEY_PID ? NULL : k->k[j].f[idx];
	}
	return k->nkeys;
}

int keys_add_values(struct keys *k, int idx, const uint64_t *vals, uint64_t n)
{
	unsigned char *key = k->key;
	memset(key, 0, k->keysize);
	memcpy(key, &idx, sizeof(idx));
	for (int j = 0; j < k->nkeys; j++)
		memcpy(key + k->k[j].off, &vals[j], 8);
	return agg_add(&k->agg, key, n) ? 0 : -1;
}

void keys_set_bins(struct keys *k, const struct hist_bins *b)
{
	k->bins = *b;
}

struct hist_log2 *keys_total(struct keys *k)
{
	return k->nkeys ? NULL : &k->h;
}

bool keys_empty(const struct keys *k)
{
	return k->nkeys ? k->agg.used == 0 : k->h.total == 0;
}

/* The value of key j in a stored key, as text (width) or JSON. */
static void print_value_to(FILE *out, bool json, struct keys *k, const unsigned char *key, int j,
			   int idx, int width)
{
	const struct key *kk = &k->k[j];
	const unsigned char *p = key + kk->off;
	uint64_t v;
	memcpy(&v, p, 8);
	struct field_desc d = {.kind = FIELD_SIGNED};
	const void *data = &v;
	size_t len = 8;
	char comm[COMM_LEN + 1];
	if (kk->kind == KEY_COMM) {
		memcpy(comm, p, COMM_LEN);
		comm[COMM_LEN] = 0;
		d.kind = FIELD_STRING;
		data = comm;
		len = strlen(comm);
	} else if (kk->kind == KEY_NUM) {
		d = kk->d[idx];
		len = 8; /* stored widened by field_num */
		d.width = 0;
	} else if (kk->kind == KEY_BYTES) {
		d = kk->d[idx];
		data = v ? k->in.arena + k->in.ent[v - 1].off : "";
		len = v ? k->in.ent[v - 1].len : 0;
	}
	if (json)
		field_json(out, &d, data, len);
	else
		field_text(out, &d, data, len, width);
}

static void print_value(struct keys *k, const unsigned char *key, int j, int idx, int width)
{
	print_value_to(stdout, k->json, k, key, j, idx, width);
}

static bool key_is_text(const struct keys *k, int j)
{
	const struct key *kk = &k->k[j];
	return kk->kind == KEY_COMM || (kk->kind == KEY_BYTES && field_is_text(&kk->d[0])) ||
	       (kk->kind == KEY_NUM && kk->d[0].kind == FIELD_POINTER);
}

/* JSON: each key's count (and histogram with --hist) an object; --hist alone, one. */
#define KEYS_COL_KEYS                                                                         \
	{                                                                                     \
		NULL, "keys", 0, ROW_JSON, 0, 0,                                              \
			"-k: an object, each key by its name with the value counted under it" \
	}
#define KEYS_COL_FIELD                                                                       \
	{                                                                                    \
		NULL, "field", 0, ROW_STR, 0, 0, "--hist: the field whose values are binned" \
	}
#define KEYS_COL_HIST                                                                           \
	{                                                                                       \
		NULL, "hist", 0, ROW_JSON, 0, 0,                                                \
			"--hist: its histogram (log2, or the bins of --power or --linear), an " \
			"array of {low, high, count} (low null: the negative values)"           \
	}
static const struct row_col count_cols[] = {ROW_COL_WHEN, KEYS_COL_EVENT, KEYS_COL_KEYS,
					    KEYS_COL_COUNT};
static const struct row_col hist_cols[] = {ROW_COL_WHEN,   KEYS_COL_EVENT, KEYS_COL_KEYS,
					   KEYS_COL_COUNT, KEYS_COL_FIELD, KEYS_COL_HIST};
static const struct row_col total_cols[] = {ROW_COL_WHEN, KEYS_COL_FIELD, KEYS_COL_HIST};
const struct row_table keys_count_keys = ROW_TABLE("each key's count (-k)", count_cols);
const struct row_table keys_hist_keys = ROW_TABLE("each key's histogram (-k, --hist)", hist_cols);
const struct row_table keys_total_keys = ROW_TABLE("the histogram (--hist)", total_cols);

static void print_row(const void *keyp, uint64_t count, const void *val, void *ctx)
{
	struct keys *k = ctx;
	const unsigned char *key = keyp;
	int idx;
	memcpy(&idx, key, sizeof(idx));
	struct tep_event *ev = k->events[idx];
	if (k->json) {
		struct row w;
		char name[160];
		snprintf(name, sizeof(name), "%s:%s", ev->system, ev->name);
		row_init(&w, k->hist ? &keys_hist_keys : &keys_count_keys, stdout, true, false,
			 false);
		row_begin(&w, 0);
		row_word(&w, k->when);
		row_str(&w, name, sizeof(name));
		FILE *f = row_json(&w);
		putc('{', f);
		for (int j = 0; j < k->nkeys; j++) {
			if (j)
				putc(',', f);
			out_json_str(f, k->k[j].name, strlen(k->k[j].name));
			putc(':', f);
			print_value(k, key, j, idx, 0);
		}
		putc('}', f);
		row_uint(&w, count);
		if (k->hist) {
			row_str(&w, k->hist, strlen(k->hist));
			hist_bins_json(row_json(&w), val, &k->bins);
		}
		row_end(&w);
		return;
	}
	if (k->hist) { /* "[event ]key=value key=value:", then the histogram */
		if (k->nevents > 1)
			printf("%s ", ev->name);
		for (int j = 0; j < k->nkeys; j++) {
			printf("%s%s=", j ? " " : "", k->k[j].name);
			print_value(k, key, j, idx, 0);
		}
		printf(":\n");
		hist_bins_print(stdout, val, &k->bins, k->hist, "count");
		return;
	}
	if (k->nevents > 1)
		printf("%-32s ", ev->name);
	for (int j = 0; j < k->nkeys; j++) {
		print_value(k, key, j, idx, key_is_text(k, j) ? 16 : 12);
		putchar(' ');
	}
	printf("%12llu\n", (unsigned long long)count);
}

/* --prom: a label name from a key's name ("field.comm": field_comm; "event", the event's own
 * label, and "__probe_ip", of a prefix Prometheus keeps for itself: field_event,
 * field__probe_ip). */
static void label_name(char *dst, size_t len, const char *name)
{
	size_t n = 0;
	if (!strcmp(name, "event") || (*name >= '0' && *name <= '9') ||
	    (name[0] == '_' && name[1] == '_'))
		n = (size_t)snprintf(dst, len, "field_");
	for (; *name && n + 1 < len; name++)
		dst[n++] = (*name >= 'a' && *name <= 'z') || (*name >= 'A' && *name <= 'Z') ||
					   (*name >= '0' && *name <= '9') ?
				   *name :
				   '_';
	dst[n] = 0;
}

struct prom_ctx {
	struct keys *k;
	struct prom_set *set;
	int failed;
	uint64_t cut;
};

/* A key's labels: event="SYS:NAME", then each key; its count added to their series. */
static void prom_row(const void *keyp, uint64_t count, const void *val, void *ctx)
{
	struct prom_ctx *c = ctx;
	struct keys *k = c->k;
	const unsigned char *key = keyp;
	int idx;
	memcpy(&idx, key, sizeof(idx));
	char labels[2048], name[160], value[512];
	snprintf(name, sizeof(name), "%s:%s", k->events[idx]->system, k->events[idx]->name);
	size_t n = (size_t)snprintf(labels, sizeof(labels), "event=\"");
	size_t w = prom_escape(labels + n, sizeof(labels) - n, name, strlen(name));
	bool whole = w != SIZE_MAX;
	n += whole ? w : 0;
	for (int j = 0; whole && j < k->nkeys; j++) {
		const struct key *kk = &k->k[j];
		const char *text = value;
		size_t tlen;
		uint64_t v;
		memcpy(&v, key + kk->off, 8);
		if (kk->kind == KEY_COMM) { /* strings as they are: the label's escape is enough */
			text = (const char *)key + kk->off;
			tlen = strnlen(text, COMM_LEN);
		} else if (kk->kind == KEY_BYTES && kk->d[idx].kind == FIELD_STRING) {
			text = v ? k->in.arena + k->in.ent[v - 1].off : "";
			tlen = v ? strnlen(text, k->in.ent[v - 1].len) : 0;
		} else { /* numbers, addresses, bytes: as the table prints them */
			FILE *f = fmemopen(value, sizeof(value), "w");
			if (!f) {
				c->failed = -1;
				return;
			}
			print_value_to(f, false, k, key, j, idx, 0);
			long len = ftell(f);
			fclose(f);
			if (len < 0 || (size_t)len >= sizeof(value)) {
				whole = false;
				break;
			}
			tlen = (size_t)len;
		}
		char lname[64];
		label_name(lname, sizeof(lname), k->k[j].name);
		int m = snprintf(labels + n, sizeof(labels) - n, "\",%s=\"", lname);
		if (m < 0 || (size_t)m >= sizeof(labels) - n) {
			whole = false;
			break;
		}
		n += (size_t)m;
		w = prom_escape(labels + n, sizeof(labels) - n, text, tlen);
		whole = w != SIZE_MAX;
		n += whole ? w : 0;
	}
	/* values too long to label whole: their series would be another key's */
	if (!whole || n + 2 > sizeof(labels)) {
		c->cut += count;
		return;
	}
	labels[n++] = '"';
	labels[n] = 0;
	struct prom_series *ps = prom_series(c->set, labels);
	if (!ps)
		c->failed = -1;
	else
		ps->count += count;
}

int keys_prom_add(struct keys *k, struct prom_set *set, uint64_t *cut)
{
	struct prom_ctx c = {k, set, 0, 0};
	if (k->nkeys)
		agg_sorted(&k->agg, prom_row, &c);
	*cut += c.cut;
	return c.failed;
}

void keys_print(struct keys *k, const char *when, bool json)
{
	k->json = json;
	k->when = when;
	if (!k->nkeys) {
		if (json) {
			struct row w;
			row_init(&w, &keys_total_keys, stdout, true, false, false);
			row_begin(&w, 0);
			row_word(&w, when);
			row_str(&w, k->hist, strlen(k->hist));
			hist_bins_json(row_json(&w), &k->h, &k->bins);
			row_end(&w);
		} else {
			out_table_gap(stdout);
			printf("%s\n", when);
			hist_bins_print(stdout, &k->h, &k->bins, k->hist, "count");
		}
		hist_log2_reset(&k->h);
		return;
	}
	if (!json) {
		out_table_gap(stdout);
		printf("%s\n", when);
	}
	if (!json && !k->hist) {
		if (k->nevents > 1)
			printf("%-32s ", "EVENT");
		for (int j = 0; j < k->nkeys; j++)
			printf(key_is_text(k, j) ? "%-16s " : "%12s ", k->k[j].name);
		printf("%12s\n", "COUNT");
	}
	if (!json && !k->agg.used)
		out_none(stdout, "events");
	agg_sorted(&k->agg, print_row, k);
	agg_reset(&k->agg);
	intern_reset(&k->in);
}

void keys_free(struct keys *k)
{
	if (!k)
		return;
	for (int j = 0; j < k->nkeys; j++) {
		free(k->k[j].name);
		free(k->k[j].f);
		free(k->k[j].d);
	}
	free(k->hf);
	free(k->hd);
	free(k->key);
	agg_free(&k->agg);
	intern_free(&k->in);
	free(k);
}
