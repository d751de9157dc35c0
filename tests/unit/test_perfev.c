// SPDX-License-Identifier: GPL-2.0-only
/* perfev: ring records parsed (one across the buffer's end), samples decoded, call chains
 * split at their context markers, and deep stacks folded (profile's aggregation). */
#include "helpers.h"

#include "stream/folded.h"
#include "kernel/perfev.h"
#include "stream/usym.h"

#include <stdlib.h>
#include <string.h>

#define TYPE                                                                     \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

/* A sample record as the kernel writes it for TYPE: header, ip, pid/tid, time, cpu/res,
 * period, nr, chain. Returns its size. */
static size_t make_sample(char *out, uint32_t pid, uint32_t tid, const uint64_t *chain, uint64_t nr)
{
	struct perf_event_header h = {PERF_RECORD_SAMPLE, 0, 0};
	char *p = out + sizeof(h);
	uint64_t ip = nr ? chain[1] : 0, time = 123456789, period = 10101010;
	uint32_t ids[2] = {pid, tid}, cpu[2] = {3, 0};
	memcpy(p, &ip, 8), p += 8;
	memcpy(p, ids, 8), p += 8;
	memcpy(p, &time, 8), p += 8;
	memcpy(p, cpu, 8), p += 8;
	memcpy(p, &period, 8), p += 8;
	memcpy(p, &nr, 8), p += 8;
	memcpy(p, chain, nr * 8), p += nr * 8;
	h.size = (uint16_t)(p - out);
	memcpy(out, &h, sizeof(h));
	return h.size;
}

static size_t make_lost(char *out, uint64_t lost)
{
	struct perf_event_header h = {PERF_RECORD_LOST, 0, sizeof(h) + 16};
	uint64_t id = 7;
	memcpy(out, &h, sizeof(h));
	memcpy(out + sizeof(h), &id, 8);
	memcpy(out + sizeof(h) + 8, &lost, 8);
	return h.size;
}

struct seen {
	int n, samples;
	uint32_t tid[8];
	uint64_t nr[8], last[8];
	uint32_t types[8];
};

static void on_record(const struct perf_event_header *h, const void *body, size_t len, void *ctx)
{
	struct seen *s = ctx;
	s->types[s->n] = h->type;
	if (h->type == PERF_RECORD_SAMPLE) {
		struct perfev_sample ps;
		assert_int_equal(perfev_sample(body, len, TYPE, &ps), 0);
		assert_int_equal(ps.cpu, 3);
		assert_int_equal(ps.time, 123456789);
		assert_int_equal(ps.period, 10101010);
		s->tid[s->n] = ps.tid;
		s->nr[s->n] = ps.nr;
		s->last[s->n] = ps.nr ? ps.chain[ps.nr - 1] : 0;
		s->samples++;
	}
	s->n++;
}

/* Write rec at ring position pos (mod size), as the kernel does, wrapping. */
static void ring_put(char *ring, size_t size, uint64_t pos, const char *rec, size_t len)
{
	for (size_t i = 0; i < len; i++)
		ring[(pos + i) % size] = rec[i];
}

/*
 * A 512-byte ring whose tail is far along (positions only grow): a sample, a lost record, a
 * sample that crosses the end of the data and one after it. Every record read whole, in
 * order; the lost samples counted; tail moved to head.
 */
static void test_ring_wraps(void **state)
{
	(void)state;
	enum { SIZE = 512 };
	char *ring = calloc(1, SIZE), rec[1024];
	struct perfev p = {.scratch = malloc(65536)};
	uint64_t chain[20];
	chain[0] = PERF_CONTEXT_KERNEL;
	for (int i = 1; i < 20; i++)
		chain[i] = 0xffffffff81000000ULL + (uint64_t)i;
	uint64_t start = 10 * SIZE + 200, pos = start;
	size_t n = make_sample(rec, 100, 101, chain, 3);
	ring_put(ring, SIZE, pos, rec, n), pos += n;
	n = make_lost(rec, 42);
	ring_put(ring, SIZE, pos, rec, n), pos += n;
	n = make_sample(rec, 100, 102, chain, 20); /* 216 bytes: crosses the end */
	assert_true(pos % SIZE + n > SIZE);
	ring_put(ring, SIZE, pos, rec, n), pos += n;
	n = make_sample(rec, 100, 103, chain, 2);
	ring_put(ring, SIZE, pos, rec, n), pos += n;
	struct seen s = {0};
	uint64_t tail = start;
	assert_int_equal(perfev_ring_read(&p, ring, SIZE, pos, &tail, on_record, &s), 4);
	assert_int_equal(tail, pos);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.samples, 3);
	assert_int_equal(s.types[1], PERF_RECORD_LOST);
	assert_int_equal(p.lost, 42);
	assert_int_equal(s.tid[0], 101);
	assert_int_equal(s.tid[2], 102);
	assert_int_equal(s.nr[2], 20);
	assert_int_equal(s.last[2], chain[19]); /* its last bytes came from the ring's start */
	assert_int_equal(s.tid[3], 103);
	/* Nothing new: nothing read. */
	assert_int_equal(perfev_ring_read(&p, ring, SIZE, pos, &tail, on_record, &s), 0);
	free(ring);
	free(p.scratch);
}

/* A record whose size says it goes past head, or is smaller than a header: the read stops
 * there (counted), never reading past what the kernel wrote. */
static void test_ring_bad(void **state)
{
	(void)state;
	char ring[256] = {0};
	struct perfev p = {.scratch = malloc(65536)};
	struct perf_event_header h = {PERF_RECORD_SAMPLE, 0, 200};
	memcpy(ring, &h, sizeof(h));
	struct seen s = {0};
	uint64_t tail = 0;
	assert_int_equal(perfev_ring_read(&p, ring, sizeof(ring), 64, &tail, on_record, &s), 0);
	assert_int_equal(p.bad, 1);
	assert_int_equal(tail, 64);
	h.size = 0;
	memcpy(ring + 64, &h, sizeof(h));
	assert_int_equal(perfev_ring_read(&p, ring, sizeof(ring), 128, &tail, on_record, &s), 0);
	assert_int_equal(p.bad, 2);
	free(p.scratch);
}

/* The time of a sample, and of another record from its trailing sample_id (sample_id_all):
 * TID, TIME, CPU at its end. */
static void test_time(void **state)
{
	(void)state;
	char rec[256];
	uint64_t chain[2] = {PERF_CONTEXT_USER, 1};
	size_t n = make_sample(rec, 1, 1, chain, 2);
	struct perf_event_header h;
	memcpy(&h, rec, sizeof(h));
	assert_int_equal(perfev_time(&h, rec + sizeof(h), n - sizeof(h), TYPE), 123456789);
	/* a COMM record: pid, tid, "sh\0" padded to 8, then pid/tid, time, cpu/res */
	char comm[16 + 24] = {0};
	uint64_t t = 987654321;
	memcpy(comm + 8, "sh", 3);
	memcpy(comm + 16 + 8, &t, 8);
	struct perf_event_header c = {PERF_RECORD_COMM, 0, sizeof(c) + sizeof(comm)};
	assert_int_equal(perfev_time(&c, comm, sizeof(comm), TYPE), 987654321);
	assert_int_equal(perfev_time(&c, comm, 8, TYPE), 0); /* too short for a sample_id */
	assert_int_equal(perfev_time(&c, comm, sizeof(comm), PERF_SAMPLE_TID), 0);
}

/*
 * A task back on a CPU: SWITCH (a task's event: the sample_id only) and SWITCH_CPU_WIDE (a
 * CPU's: next_prev pid and tid first) records without the SWITCH_OUT flag, the task from the
 * sample_id's tid (pid, tid, time, cpu/res with TYPE); a switch out, another record, one too
 * short or a sample_id without TID: none.
 */
static void test_switch_in(void **state)
{
	(void)state;
	uint32_t wide[8] = {77, 78, 10, 11, 0x5678, 0x1234, 1, 0}; /* next_prev 77/78 */
	const char *id = (const char *)(wide + 2);
	struct perf_event_header sw = {PERF_RECORD_SWITCH, 0, sizeof(sw) + 24},
				 cw = {PERF_RECORD_SWITCH_CPU_WIDE, 0, sizeof(cw) + 32};
	assert_int_equal(perfev_switch_in(&sw, id, 24, TYPE), 11);
	assert_int_equal(perfev_switch_in(&cw, wide, 32, TYPE), 11);
	sw.misc = cw.misc = PERF_RECORD_MISC_SWITCH_OUT;
	assert_int_equal(perfev_switch_in(&sw, id, 24, TYPE), -1);
	assert_int_equal(perfev_switch_in(&cw, wide, 32, TYPE), -1);
	sw.misc = 0;
	assert_int_equal(perfev_switch_in(&sw, id, 16, TYPE), -1); /* too short */
	assert_int_equal(perfev_switch_in(&sw, id, 24, PERF_SAMPLE_TIME | PERF_SAMPLE_CPU), -1);
	/* only TID and TIME in the sample_id: the tid 16 bytes from the end */
	assert_int_equal(perfev_switch_in(&sw, id, 16, PERF_SAMPLE_TID | PERF_SAMPLE_TIME), 11);
	struct perf_event_header comm = {PERF_RECORD_COMM, 0, sizeof(comm) + 24};
	assert_int_equal(perfev_switch_in(&comm, id, 24, TYPE), -1);
}

/* A sample shorter than its chain says: refused. */
static void test_sample_short(void **state)
{
	(void)state;
	char rec[256];
	uint64_t chain[4] = {PERF_CONTEXT_USER, 1, 2, 3};
	size_t n = make_sample(rec, 1, 1, chain, 4);
	struct perfev_sample s;
	const char *body = rec + sizeof(struct perf_event_header);
	size_t len = n - sizeof(struct perf_event_header);
	assert_int_equal(perfev_sample(body, len, TYPE, &s), 0);
	assert_int_equal(s.nr, 4);
	assert_int_equal(perfev_sample(body, len - 8, TYPE, &s), -1);
	assert_int_equal(perfev_sample(body, 20, TYPE, &s), -1);
}

/* A tracepoint's sample (memleak's: TID, TIME, CALLCHAIN, RAW): the raw record after the
 * chain, its size as the kernel wrote it; a raw size past the end refused. */
static void test_sample_raw(void **state)
{
	(void)state;
	const uint64_t type =
		PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW;
	uint64_t body[8] = {0};
	uint32_t ids[2] = {41, 42}, raw_size = 20;
	memcpy(&body[0], ids, 8);
	body[1] = 777;					 /* time */
	body[2] = 2;					 /* nr */
	body[3] = PERF_CONTEXT_USER, body[4] = 0x401000; /* chain */
	char *b = (char *)&body[5];
	memcpy(b, &raw_size, 4);
	memcpy(b + 4, "0123456789abcdefghij", 20);
	struct perfev_sample s;
	assert_int_equal(perfev_sample(body, 5 * 8 + 24, type, &s), 0);
	assert_int_equal(s.tid, 42);
	assert_int_equal(s.time, 777);
	assert_int_equal(s.nr, 2);
	assert_int_equal(s.chain[1], 0x401000);
	assert_int_equal(s.raw_size, 20);
	assert_memory_equal(s.raw, "0123456789abcdefghij", 20);
	assert_int_equal(perfev_sample(body, 5 * 8 + 23, type, &s), -1);
	assert_int_equal(perfev_sample(body, 5 * 8 + 2, type, &s), -1);
}

/* perfev_batch: records of two rings handed in time order; those after `until` kept, in
 * order and intact, for the next run (kept records that arrived in the other order than
 * their times: moving them in place would overwrite one with the other). */
struct batch_seen {
	char body[16][40];
	int n;
};
static void batch_fn(const struct perf_event_header *h, const void *body, size_t len, uint64_t time,
		     int src, void *ctx)
{
	struct batch_seen *s = ctx;
	assert_true(len < sizeof(s->body[0]));
	snprintf(s->body[s->n++], sizeof(s->body[0]), "%llu:%d:%.*s", (unsigned long long)time, src,
		 (int)len, (const char *)body);
}

static void test_batch(void **state)
{
	(void)state;
	struct perfev_batch b = {0};
	struct batch_seen s = {.n = 0};
	/* arrival: ring 0's 10, 40 (long), 30; ring 1's 20, 35 (short) */
	static const struct {
		uint64_t t;
		int src;
		const char *body;
	} in[] = {{10, 0, "a"},
		  {40, 0, "late-and-longer-body"},
		  {30, 0, "c"},
		  {20, 1, "b"},
		  {35, 1, "dd"}};
	for (size_t i = 0; i < sizeof(in) / sizeof(*in); i++) {
		size_t len = strlen(in[i].body);
		struct perf_event_header h = {PERF_RECORD_SAMPLE, 0, (uint16_t)(sizeof(h) + len)};
		perfev_batch_keep(&b, &h, in[i].body, len, in[i].t, in[i].src);
	}
	assert_int_equal(perfev_batch_run(&b, 30, batch_fn, &s), 3);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.body[0], "10:0:a");
	assert_string_equal(s.body[1], "20:1:b");
	assert_string_equal(s.body[2], "30:0:c");
	assert_int_equal(b.n, 2);
	struct perf_event_header h = {PERF_RECORD_SAMPLE, 0, (uint16_t)(sizeof(h) + 1)};
	perfev_batch_keep(&b, &h, "e", 1, 38, 1);
	assert_int_equal(perfev_batch_run(&b, UINT64_MAX, batch_fn, &s), 3);
	assert_string_equal(s.body[3], "35:1:dd");
	assert_string_equal(s.body[4], "38:1:e");
	assert_string_equal(s.body[5], "40:0:late-and-longer-body");
	assert_int_equal(b.n, 0);
	/* nothing due: both kept, the later-arrived earlier one first, the other intact */
	s.n = 0;
	struct perf_event_header big = {PERF_RECORD_SAMPLE, 0, (uint16_t)(sizeof(h) + 20)};
	perfev_batch_keep(&b, &big, "twenty-bytes-of-body", 20, 70, 0);
	perfev_batch_keep(&b, &h, "y", 1, 60, 1);
	assert_int_equal(perfev_batch_run(&b, 50, batch_fn, &s), 0);
	assert_int_equal(perfev_batch_run(&b, UINT64_MAX, batch_fn, &s), 2);
	assert_string_equal(s.body[0], "60:1:y");
	assert_string_equal(s.body[1], "70:0:twenty-bytes-of-body");
	assert_false(b.oom);
	perfev_batch_free(&b);
}

/* Many rings' runs, times repeated across them: handed by time, equal times in arrival
 * order (the merge is stable), every record once. */
struct order_seen {
	uint64_t last_time, n;
	unsigned last_seq;
	bool bad;
};
static void order_fn(const struct perf_event_header *h, const void *body, size_t len, uint64_t time,
		     int src, void *ctx)
{
	struct order_seen *o = ctx;
	unsigned seq;
	assert_int_equal(len, sizeof(seq));
	memcpy(&seq, body, sizeof(seq));
	if (o->n && (time < o->last_time || (time == o->last_time && seq < o->last_seq)))
		o->bad = true;
	o->last_time = time;
	o->last_seq = seq;
	o->n++;
}

static void test_batch_many_rings(void **state)
{
	(void)state;
	struct perfev_batch b = {0};
	unsigned seq = 0, r = 12345;
	for (int pass = 0; pass < 2; pass++) {
		for (int ring = 0; ring < 7; ring++) {
			uint64_t t = 0;
			for (int i = 0; i < 300 + ring * 50; i++) {
				r = r * 1103515245 + 12345;
				t += (r >> 16) % 4; /* steps of 0 to 3: ties within and across */
				struct perf_event_header h = {PERF_RECORD_SAMPLE, 0,
							      (uint16_t)(sizeof(h) + sizeof(seq))};
				perfev_batch_keep(&b, &h, &seq, sizeof(seq), t, ring);
				seq++;
			}
		}
		struct order_seen o = {0};
		size_t n = b.n;
		assert_int_equal(perfev_batch_run(&b, UINT64_MAX, order_fn, &o), n);
		assert_int_equal(o.n, n);
		assert_false(o.bad);
	}
	assert_false(b.oom);
	perfev_batch_free(&b);
}

/* Kernel frames after PERF_CONTEXT_KERNEL, user frames after PERF_CONTEXT_USER, each leaf
 * first; a guest's or hypervisor's frames left out; the limits kept. */
static void test_chain_split(void **state)
{
	(void)state;
	uint64_t chain[] = {PERF_CONTEXT_KERNEL,
			    0xffffffff81000001ULL,
			    0xffffffff81000002ULL,
			    PERF_CONTEXT_USER,
			    0x401000,
			    0x402000,
			    0x403000,
			    PERF_CONTEXT_HV,
			    0x1234};
	uint64_t k[8], u[8];
	int nk, nu;
	assert_int_equal(perfev_chain_split(chain, 9, k, &nk, 8, u, &nu, 8), 5);
	assert_int_equal(nk, 2);
	assert_int_equal(nu, 3);
	assert_int_equal(k[0], 0xffffffff81000001ULL);
	assert_int_equal(k[1], 0xffffffff81000002ULL);
	assert_int_equal(u[0], 0x401000);
	assert_int_equal(u[2], 0x403000);
	/* -U: no kernel frames; the user ones cut at 2 */
	assert_int_equal(perfev_chain_split(chain, 9, k, &nk, 0, u, &nu, 2), 2);
	assert_int_equal(nk, 0);
	assert_int_equal(u[1], 0x402000);
	/* A user-only chain (a sample in user space) */
	uint64_t user[] = {PERF_CONTEXT_USER, 0x401000};
	assert_int_equal(perfev_chain_split(user, 2, k, &nk, 8, u, &nu, 8), 1);
	assert_int_equal(nk, 0);
	/* No marker: nothing known */
	assert_int_equal(perfev_chain_split(user + 1, 1, k, &nk, 8, u, &nu, 8), 0);
}

/* Stacks deeper than offcputime's (127 user frames): counted by all their frames, folded
 * root first, the same stack twice one line of 2. */
static void test_fold_deep(void **state)
{
	(void)state;
	struct folded *f = folded_new_depth(NULL, PERFEV_MAX_STACK, PERFEV_MAX_STACK);
	assert_non_null(f);
	unsigned long long k[PERFEV_MAX_STACK], u[1] = {0x401000};
	for (int i = 0; i < PERFEV_MAX_STACK; i++)
		k[i] = 0xffffffff81000000ULL + (unsigned long long)i;
	assert_int_equal(folded_add(f, "deep (12)", 0x7ffffffe, k, PERFEV_MAX_STACK, u, 1), 0);
	assert_int_equal(folded_add(f, "deep (12)", 0x7ffffffe, k, PERFEV_MAX_STACK, u, 1), 0);
	k[0]++; /* another leaf: another line */
	assert_int_equal(folded_add(f, "deep (12)", 0x7ffffffe, k, PERFEV_MAX_STACK, u, 1), 0);
	char *buf = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&buf, &size);
	assert_int_equal(folded_print(f, m), 2);
	fclose(m);
	/* the root frame (the last recorded) first after the user frame, the leaf last */
	assert_non_null(strstr(buf, "deep (12);[unknown];0xffffffff8100007e_[k];"));
	assert_non_null(strstr(buf, ";0xffffffff81000001_[k];0xffffffff81000000_[k] 2\n"));
	assert_non_null(strstr(buf, ";0xffffffff81000001_[k];0xffffffff81000001_[k] 1\n"));
	size_t frames = 0;
	for (char *p = buf; (p = strstr(p, "_[k]")); p++)
		frames++;
	assert_int_equal(frames, 2 * PERFEV_MAX_STACK);
	free(buf);
	folded_free(f);
	usym_addr_free();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_wraps),   cmocka_unit_test(test_ring_bad),
		cmocka_unit_test(test_sample_short), cmocka_unit_test(test_sample_raw),
		cmocka_unit_test(test_batch),	     cmocka_unit_test(test_batch_many_rings),
		cmocka_unit_test(test_chain_split),  cmocka_unit_test(test_time),
		cmocka_unit_test(test_fold_deep),    cmocka_unit_test(test_switch_in),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
