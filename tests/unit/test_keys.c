// SPDX-License-Identifier: GPL-2.0-only
/*
 * Counting by key (-k) and histograms (--hist) on records built to real format files of
 * Linux 6.18: addresses and long strings are whole keys (127.0.0.1 and 0.0.0.0 are two keys,
 * two paths that share their first 32 bytes are two keys), the task's name and PID are the
 * task's, and the output is exact.
 */
#include "helpers.h"

#include <stdint.h>

#include <event-parse.h>

#include "count/keys.h"
#include "count/prom.h"

#define FORMATS FIXTURES "/formats-6.18"

static struct tep_handle *tep;
static struct tep_event *sock_ev, *exec_ev;

static struct tep_event *load(const char *sys, const char *name)
{
	char rel[256], buf[16384];
	snprintf(rel, sizeof(rel), "%s/%s/format", sys, name);
	assert_non_null(read_file(FORMATS, rel, buf, sizeof(buf)));
	assert_int_equal(tep_parse_event(tep, buf, strlen(buf), sys), 0);
	return tep_find_event_by_name(tep, sys, name);
}

static int setup(void **state)
{
	(void)state;
	tep = tep_alloc();
	tep_set_long_size(tep, 8);
	sock_ev = load("sock", "inet_sock_set_state");
	exec_ev = load("sched", "sched_process_exec");
	assert_non_null(sock_ev);
	assert_non_null(exec_ev);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tep_free(tep);
	return 0;
}

static unsigned char data[4096];

static struct tep_record rec_of(struct tep_event *ev, int pid, size_t size)
{
	memset(data, 0, sizeof(data));
	uint16_t type = (uint16_t)ev->id;
	memcpy(data, &type, 2);
	memcpy(data + 4, &pid, 4);
	return (struct tep_record){.data = data, .size = (int)size};
}

static void put(struct tep_event *ev, const char *field, const void *v, size_t len)
{
	struct tep_format_field *f = tep_find_field(ev, field);
	assert_non_null(f);
	memcpy(data + f->offset, v, len);
}

/* A connection's state change from saddr, by a task. */
static struct tep_record sock(int pid, unsigned a, unsigned b, unsigned c, unsigned d)
{
	struct tep_record r = rec_of(sock_ev, pid, 80);
	unsigned char addr[4] = {(unsigned char)a, (unsigned char)b, (unsigned char)c,
				 (unsigned char)d};
	int state = 7;
	put(sock_ev, "saddr", addr, 4);
	put(sock_ev, "newstate", &state, 4);
	return r;
}

/* An exec of path (a __data_loc string after the fixed part). */
static struct tep_record exec(int pid, const char *path)
{
	struct tep_record r = rec_of(exec_ev, pid, 0);
	struct tep_format_field *f = tep_find_field(exec_ev, "filename");
	uint32_t off = 20, len = (uint32_t)strlen(path) + 1;
	uint32_t loc = len << 16 | off;
	memcpy(data + f->offset, &loc, 4);
	memcpy(data + off, path, len);
	r.size = (int)(off + len);
	return r;
}

static char out[8192];

static void print(struct keys *k, bool json)
{
	fflush(stdout);
	FILE *saved = stdout;
	stdout = fmemopen(out, sizeof(out), "w");
	keys_print(k, "12:00:00", json);
	fclose(stdout);
	stdout = saved;
}

static void test_addresses_are_whole_keys(void **state)
{
	(void)state;
	char why[256];
	struct tep_event *evs[] = {sock_ev};
	struct keys *k = keys_new(evs, 1, "saddr", NULL, why, sizeof(why));
	assert_non_null(k);
	struct tep_record r;
	for (int i = 0; i < 3; i++) {
		r = sock(10, 127, 0, 0, 1);
		assert_int_equal(keys_add(k, &r, 0, "x"), 0);
	}
	r = sock(10, 0, 0, 0, 0);
	assert_int_equal(keys_add(k, &r, 0, "x"), 0);
	r = sock(10, 127, 0, 0, 2);
	assert_int_equal(keys_add(k, &r, 0, "x"), 0);
	print(k, true);
	/* highest count first; equal counts in any order */
	assert_non_null(strstr(out, "{\"time\":\"12:00:00\",\"event\":\"sock:inet_sock_set_state\","
				    "\"keys\":{\"saddr\":\"127.0.0.1\"},\"count\":3}\n"));
	assert_non_null(strstr(out, "\"keys\":{\"saddr\":\"0.0.0.0\"},\"count\":1}\n"));
	assert_non_null(strstr(out, "\"keys\":{\"saddr\":\"127.0.0.2\"},\"count\":1}\n"));
	assert_true(keys_empty(k)); /* printed: counting starts again */
	keys_free(k);
}

static void test_long_strings_stay_whole(void **state)
{
	(void)state;
	char why[256];
	struct tep_event *evs[] = {exec_ev};
	struct keys *k = keys_new(evs, 1, "filename,pid", NULL, why, sizeof(why));
	assert_non_null(k);
	const char *a = "/usr/lib/very/long/path/that/goes/on/program-a";
	const char *b = "/usr/lib/very/long/path/that/goes/on/program-b";
	struct tep_record r = exec(5, a);
	assert_int_equal(keys_add(k, &r, 0, "x"), 0);
	r = exec(5, b);
	assert_int_equal(keys_add(k, &r, 0, "x"), 0);
	r = exec(5, b);
	assert_int_equal(keys_add(k, &r, 0, "x"), 0);
	print(k, false);
	assert_string_equal(
		out, "12:00:00\n"
		     "filename                  pid        COUNT\n"
		     "/usr/lib/very/long/path/that/goes/on/program-b            5            2\n"
		     "/usr/lib/very/long/path/that/goes/on/program-a            5            1\n");
	keys_free(k);
}

/* comm and pid are the task's; field.pid is the event's own field of that name. */
static void test_task_keys_and_hist(void **state)
{
	(void)state;
	char why[256];
	struct tep_event *evs[] = {exec_ev};
	struct keys *k = keys_new(evs, 1, "comm,field.pid", "old_pid", why, sizeof(why));
	assert_non_null(k);
	assert_true(keys_need_comm(k));
	struct tep_record r = exec(42, "/bin/true");
	int32_t pid = 7, old = 3;
	put(exec_ev, "pid", &pid, 4);
	put(exec_ev, "old_pid", &old, 4);
	assert_int_equal(keys_add(k, &r, 0, "a name\n"), 0);
	print(k, true);
	assert_string_equal(
		out, "{\"time\":\"12:00:00\",\"event\":\"sched:sched_process_exec\","
		     "\"keys\":{\"comm\":\"a name\\n\",\"field.pid\":7},\"count\":1,"
		     "\"field\":\"old_pid\",\"hist\":[{\"low\":2,\"high\":4,\"count\":1}]}\n");
	keys_free(k);
}

/* --prom (-k): a series per key from the start, its labels the event and each key by a name
 * a label can have (field.pid: field_pid), values as the table shows them, escaped; added up
 * across prints. */
static void test_prom_series(void **state)
{
	(void)state;
	char why[256];
	struct tep_event *evs[] = {exec_ev};
	struct keys *k = keys_new(evs, 1, "comm,field.pid", NULL, why, sizeof(why));
	assert_non_null(k);
	struct prom_set set = {0};
	uint64_t cut = 0;
	for (int round = 0; round < 2; round++) {
		struct tep_record r = exec(42, "/bin/true");
		int32_t pid = 7;
		put(exec_ev, "pid", &pid, 4);
		assert_int_equal(keys_add(k, &r, 0, "a \"name\""), 0);
		assert_int_equal(keys_add(k, &r, 0, "a \"name\""), 0);
		pid = -1;
		put(exec_ev, "pid", &pid, 4);
		assert_int_equal(keys_add(k, &r, 0, "b"), 0);
		assert_int_equal(keys_prom_add(k, &set, &cut), 0);
		print(k, true); /* and starts again */
	}
	assert_int_equal(set.n, 2);
	assert_int_equal(cut, 0);
	assert_string_equal(
		set.s[0]->labels,
		"event=\"sched:sched_process_exec\",comm=\"a \\\"name\\\"\",field_pid=\"7\"");
	assert_int_equal(set.s[0]->count, 4);
	assert_string_equal(set.s[1]->labels,
			    "event=\"sched:sched_process_exec\",comm=\"b\",field_pid=\"-1\"");
	assert_int_equal(set.s[1]->count, 2);
	prom_set_free(&set);
	keys_free(k);
}

/* Counted elsewhere (the kernel's hist triggers): numeric keys only, and the same rows as
 * from the records: a signed field's -1, widened by its sign, shows as -1. */
static void test_values_counted_elsewhere(void **state)
{
	(void)state;
	char why[256];
	struct tep_event *evs[] = {exec_ev};
	const struct tep_format_field *f[3];
	struct keys *k = keys_new(evs, 1, "comm", NULL, why, sizeof(why));
	assert_int_equal(keys_fields(k, 0, f, 3), -1); /* a name */
	keys_free(k);
	k = keys_new(evs, 1, "filename", NULL, why, sizeof(why));
	assert_int_equal(keys_fields(k, 0, f, 3), -1); /* bytes */
	keys_free(k);
	k = keys_new(evs, 1, "pid,old_pid,pid,pid", NULL, why, sizeof(why));
	assert_int_equal(keys_fields(k, 0, f, 3), -1); /* more than asked for */
	keys_free(k);

	k = keys_new(evs, 1, "pid,field.pid", NULL, why, sizeof(why));
	assert_non_null(k);
	assert_int_equal(keys_fields(k, 0, f, 3), 2);
	assert_null(f[0]); /* the task */
	assert_string_equal(f[1]->name, "pid");
	struct tep_record r = exec(42, "/bin/true");
	int32_t pid = -1;
	put(exec_ev, "pid", &pid, 4);
	assert_int_equal(keys_add(k, &r, 0, ""), 0);
	print(k, false);
	char from_records[sizeof(out)];
	snprintf(from_records, sizeof(from_records), "%s", out);
	uint64_t vals[2] = {42, (uint64_t)-1};
	assert_int_equal(keys_add_values(k, 0, vals, 1), 0);
	print(k, false);
	assert_string_equal(out, from_records);
	assert_non_null(strstr(out, "          42           -1            1\n"));
	keys_free(k);
}

static void test_bad_keys(void **state)
{
	(void)state;
	char why[256];
	struct tep_event *evs[] = {exec_ev};
	assert_null(keys_new(evs, 1, "nosuch", NULL, why, sizeof(why)));
	assert_string_equal(why, "nosuch: sched:sched_process_exec has no field 'nosuch' "
				 "(-v shows the fields)");
	assert_null(keys_new(evs, 1, NULL, "filename", why, sizeof(why)));
	assert_non_null(strstr(why, "no numeric field 'filename'"));
	assert_null(keys_new(evs, 1, ",", NULL, why, sizeof(why)));
	assert_string_equal(why, "no key given");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_addresses_are_whole_keys, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_strings_stay_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_task_keys_and_hist, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_keys, setup, teardown),
		cmocka_unit_test_setup_teardown(test_values_counted_elsewhere, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prom_series, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
