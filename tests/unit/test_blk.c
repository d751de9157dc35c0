// SPDX-License-Identifier: GPL-2.0-only
/*
 * Block request pairing on raw pages recorded from Linux 6.18 on a virtio disk with
 * mq-deadline (tests/fixtures/block-6.18*): four 4 KiB direct writes and two 8 KiB direct
 * reads by dd, then a discard that rm queued and a kworker issued. Expected values are those
 * of the kernel's own rendering in trace.txt.
 */
#include "helpers.h"

#include <dirent.h>

#include <event-parse.h>
#include <tracefs.h>

#include "domain/blk.h"
#include "base/opt.h"
#include "stream/reader.h"
#include "kernel/session.h"

#define ONE FIXTURES "/block-6.18"
#define XCPU FIXTURES "/block-6.18-xcpu"

struct got {
	int n;
	struct blk_io io[16];
};

static void collect(const struct blk_io *io, void *ctx)
{
	struct got *g = ctx;
	if (g->n < 16)
		g->io[g->n] = *io;
	g->n++;
}

/* Drop an event's handler, as on a kernel that lacks it. */
enum { ALL, NO_BIO_QUEUE, NO_QUEUE_EVENTS };

static void run(const char *dir, bool queued, int without, struct got *g)
{
	static const char *const systems[] = {"block", NULL};
	struct session s = {.tool = "test_blk"};
	s.tep = fixture_tep(dir, systems);
	assert_non_null(s.tep);
	struct blk b;
	assert_int_equal(blk_prepare(&b, &s, queued, collect, g), 0);
	if (without >= NO_BIO_QUEUE)
		b.bio_queue.id = -1;
	if (without >= NO_QUEUE_EVENTS)
		b.insert.id = -1;
	struct reader r;
	memset(g, 0, sizeof(*g));
	assert_int_equal(reader_open(&r, s.tep, dir, 4096, true), 0);
	assert_int_equal(blk_register(&b, &r), 0);
	assert_int_equal(reader_drain(&r), 0);
	assert_int_equal(b.inflight.unpaired, 0);
	reader_close(&r);
	blk_free(&b);
	tep_free(s.tep);
}

static long lat_us(const struct blk_io *io)
{
	return (long)((io->end_ns - io->start_ns + 500) / 1000);
}

/* Latency from the text's microsecond stamps may differ by one from the exact one. */
#define assert_lat(io, us) assert_in_range(lat_us(io), (us)-1, (us) + 1)

static void test_pairs_issue_to_complete(void **state)
{
	(void)state;
	struct got g;
	run(ONE, false, ALL, &g);
	assert_int_equal(g.n, 7);
	static const struct {
		uint64_t sector;
		uint32_t bytes;
		const char *rwbs, *comm;
		int pid, lat;
	} want[] = {
		{33750240, 4096, "WS", "dd", 2792, 216},
		{33750248, 4096, "WS", "dd", 2792, 44},
		{33750256, 4096, "WS", "dd", 2792, 37},
		{33750264, 4096, "WS", "dd", 2792, 34},
		{33750240, 8192, "RS", "dd", 2793, 123},
		{33750256, 8192, "RS", "dd", 2793, 54},
		/* issued by kworker/1:1H-58, queued by rm-2794 */
		{33750240, 16384, "DS", "rm", 2794, 196},
	};
	for (int i = 0; i < 7; i++) {
		assert_int_equal(g.io[i].sector, want[i].sector);
		assert_int_equal(g.io[i].bytes, want[i].bytes);
		assert_int_equal(g.io[i].dev, 254U << 20);
		assert_string_equal(g.io[i].rwbs, want[i].rwbs);
		assert_string_equal(g.io[i].comm, want[i].comm);
		assert_int_equal(g.io[i].pid, want[i].pid);
		assert_int_equal(g.io[i].error, 0);
		assert_lat(&g.io[i], want[i].lat);
	}
}

/* -Q: from block_bio_queue (302.022916 for the first write, 302.025967 for the discard). */
static void test_queued_start(void **state)
{
	(void)state;
	struct got g;
	run(ONE, true, ALL, &g);
	assert_int_equal(g.n, 7);
	assert_lat(&g.io[0], 232);
	assert_lat(&g.io[6], 214);
}

/* Without bio_queue the insert names the submitter; without both, the issuer is all we have. */
static void test_submitter_fallbacks(void **state)
{
	(void)state;
	struct got g;
	run(ONE, false, NO_BIO_QUEUE, &g);
	assert_int_equal(g.n, 7);
	assert_string_equal(g.io[6].comm, "rm");
	assert_int_equal(g.io[6].pid, 2794);
	run(ONE, false, NO_QUEUE_EVENTS, &g);
	assert_int_equal(g.n, 7);
	assert_string_equal(g.io[6].comm, "kworker/1:1H");
	assert_int_equal(g.io[6].pid, 58);
	assert_string_equal(g.io[0].comm, "dd");
}

/* Issue on CPU 0, completion on CPU 1: every request still pairs. */
static void test_cross_cpu(void **state)
{
	(void)state;
	struct got g;
	run(XCPU, false, ALL, &g);
	assert_int_equal(g.n, 7);
	for (int i = 0; i < 7; i++) {
		assert_true(g.io[i].end_ns > g.io[i].start_ns);
		assert_string_equal(g.io[i].comm, i < 6 ? "dd" : "rm");
	}
	assert_int_equal(g.io[0].sector, 33724440);
}

/* One issue and one completion of sector 777, written by hand on the 6.18 block formats. */
struct two {
	struct session s;
	struct blk b;
	struct got g;
	char issue[64], complete[64];
	struct tep_record ri, rc;
};

static void two_setup(struct two *p)
{
	static const char *const systems[] = {"block", NULL};
	memset(p, 0, sizeof(*p));
	p->s.tool = "test_blk";
	p->s.tep = fixture_tep(ONE, systems);
	assert_int_equal(blk_prepare(&p->b, &p->s, false, collect, &p->g), 0);
	p->ri = (struct tep_record){.ts = 1000, .data = p->issue, .size = 64};
	p->rc = (struct tep_record){.ts = 5000, .data = p->complete, .size = 64};
	memcpy(p->issue + p->b.issue.sector.offset, &(uint64_t){777}, 8);
	memcpy(p->complete + p->b.complete.sector.offset, &(uint64_t){777}, 8);
}

static void two_free(struct two *p)
{
	blk_free(&p->b);
	tep_free(p->s.tep);
}

static void report(const void *b)
{
	blk_report(b, "test_blk");
}

/* Lost events between issue and completion: the pair is dropped, not mis-joined. */
static void test_lost_clears_pairs(void **state)
{
	(void)state;
	struct two p;
	two_setup(&p);
	blk_on_issue(&p.ri, &p.b);
	blk_on_lost(0, 5, &p.b);
	blk_on_complete(&p.rc, &p.b);
	assert_int_equal(p.g.n, 0);
	assert_int_equal(p.b.inflight.unpaired, 1);
	/* and without the loss it pairs */
	blk_on_issue(&p.ri, &p.b);
	blk_on_complete(&p.rc, &p.b);
	assert_int_equal(p.g.n, 1);
	assert_int_equal(p.g.io[0].end_ns - p.g.io[0].start_ns, 4000);
	/* and the completion that found no issue is said at the end, with the loss */
	char err[512];
	assert_int_equal(run_child(report, &p.b, err, sizeof(err)), 0);
	assert_string_equal(err, "test_blk: 1 of 2 completions found no start (begun before "
				 "tracing, or after lost events (1 starts forgotten then)): not "
				 "counted\n");
	two_free(&p);
}

/* Linux 4.9 records bytes 0 for a file-system request (only pass-through ones carry it):
 * the size is nr_sector's. A record that does carry bytes keeps them. */
static void test_bytes_from_sectors(void **state)
{
	(void)state;
	struct two p;
	two_setup(&p);
	memcpy(p.issue + p.b.issue.nr_sector.offset, &(uint32_t){8}, 4);
	blk_on_issue(&p.ri, &p.b);
	blk_on_complete(&p.rc, &p.b);
	memcpy(p.issue + p.b.issue.bytes.offset, &(uint32_t){512}, 4);
	blk_on_issue(&p.ri, &p.b);
	blk_on_complete(&p.rc, &p.b);
	assert_int_equal(p.g.n, 2);
	assert_int_equal(p.g.io[0].bytes, 4096);
	assert_int_equal(p.g.io[1].bytes, 512);
	two_free(&p);
}

static void test_type_glob_check(void **state)
{
	(void)state;
	assert_null(blk_type_invalid("*R*"));
	assert_null(blk_type_invalid("W"));
	assert_null(blk_type_invalid("[RW]S"));
	assert_non_null(blk_type_invalid(""));
	assert_non_null(blk_type_invalid("\" || 1"));
	assert_non_null(blk_type_invalid("R && dev"));
}

static void call_dev(const void *s)
{
	blk_opt_dev(s);
}

static void test_blockdev_pairs(void **state)
{
	(void)state;
	uint32_t d;
	assert_int_equal(blk_dev_parse("8,0", &d), 0);
	assert_int_equal(d, 8U << 20);
	assert_int_equal(blk_dev_parse("254:17", &d), 0);
	assert_int_equal(BLK_MAJOR(d), 254);
	assert_int_equal(BLK_MINOR(d), 17);
	assert_int_equal(blk_dev_parse("", &d), -1);
	assert_int_equal(blk_dev_parse("8,", &d), -1);
	assert_int_equal(blk_dev_parse("8,0,1", &d), -1);
	assert_int_equal(blk_dev_parse("-8,0", &d), -1);
	assert_int_equal(blk_dev_parse("4096,0", &d), -1);
	assert_int_equal(blk_dev_parse("..", &d), -1);
	assert_int_equal(blk_dev_parse("../../etc", &d), -1);
	assert_int_equal(blk_dev_parse("/etc/passwd", &d), -1);
	assert_int_equal(blk_dev_parse("no-such-disk", &d), -1);
	assert_usage_error(call_dev, "no-such-disk", "invalid device: 'no-such-disk'");
	/* numbers of no device here: refused as an unknown name is (traced nothing before) */
	assert_usage_error(call_dev, "4095,1048575", "no block device 4095,1048575");
	assert_usage_error(call_dev, "4095:1048574", "no block device 4095,1048574");
}

/* A name and a /dev path resolve to what sysfs says, for a block device this machine has. */
static void test_blockdev_names(void **state)
{
	(void)state;
	DIR *d = opendir("/sys/class/block");
	struct dirent *de = NULL;
	while (d && (de = readdir(d)) && de->d_name[0] == '.')
		;
	if (!de) {
		if (d)
			closedir(d);
		skip(); /* no block devices in this environment */
	}
	char name[256], rel[300], want[64], got_name[64];
	snprintf(name, sizeof(name), "%s", de->d_name);
	closedir(d);
	snprintf(rel, sizeof(rel), "%s/dev", name);
	assert_non_null(read_file("/sys/class/block", rel, want, sizeof(want)));
	unsigned maj, min;
	assert_int_equal(sscanf(want, "%u:%u", &maj, &min), 2);
	uint32_t kdev;
	assert_int_equal(blk_dev_parse(name, &kdev), 0);
	assert_int_equal(kdev, maj << 20 | min);
	assert_string_equal(blk_dev_name(kdev, got_name, sizeof(got_name)), name);
	char dev_path[300];
	snprintf(dev_path, sizeof(dev_path), "/dev/%s", name);
	if (access(dev_path, F_OK) == 0) {
		assert_int_equal(blk_dev_parse(dev_path, &kdev), 0);
		assert_int_equal(kdev, maj << 20 | min);
	}
	/* and by its numbers, which it has */
	char pair[32];
	snprintf(pair, sizeof(pair), "%u,%u", maj, min);
	assert_int_equal(blk_opt_dev(pair), maj << 20 | min);
}

int main(void)
{
	opt_init("test_blk");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blockdev_pairs),
		cmocka_unit_test(test_blockdev_names),
		cmocka_unit_test(test_pairs_issue_to_complete),
		cmocka_unit_test(test_queued_start),
		cmocka_unit_test(test_submitter_fallbacks),
		cmocka_unit_test(test_cross_cpu),
		cmocka_unit_test(test_lost_clears_pairs),
		cmocka_unit_test(test_bytes_from_sectors),
		cmocka_unit_test(test_type_glob_check),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
