// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fields as their type and the kernel's print format say: on real format files of Linux 6.18
 * (tests/fixtures/formats-6.18) and records built to them. A u8 array is numbers unless the
 * print format shows it as an address; only char arrays are strings.
 */
#include "helpers.h"

#include <arpa/inet.h>
#include <stdint.h>

#include <event-parse.h>

#include "stream/field.h"

#define FORMATS FIXTURES "/formats-6.18"

static struct tep_handle *tep;

static struct tep_event *load(const char *sys, const char *name)
{
	char rel[256], buf[16384];
	snprintf(rel, sizeof(rel), "%s/%s/format", sys, name);
	assert_non_null(read_file(FORMATS, rel, buf, sizeof(buf)));
	assert_int_equal(tep_parse_event(tep, buf, strlen(buf), sys), 0);
	struct tep_event *ev = tep_find_event_by_name(tep, sys, name);
	assert_non_null(ev);
	return ev;
}

static int setup(void **state)
{
	(void)state;
	tep = tep_alloc();
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tep_free(tep);
	return 0;
}

static struct field_desc describe(struct tep_event *ev, const char *name)
{
	struct tep_format_field *f = tep_find_field(ev, name);
	assert_non_null(f);
	return field_describe(ev, f);
}

static char *json(const struct field_desc *d, const void *data, size_t len)
{
	static char buf[1024];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	field_json(f, d, data, len);
	fclose(f);
	return buf;
}

static char *text(const struct field_desc *d, const void *data, size_t len, int width)
{
	static char buf[1024];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	field_text(f, d, data, len, width);
	fclose(f);
	return buf;
}

static void test_kinds(void **state)
{
	(void)state;
	struct tep_event *sk = load("sock", "inet_sock_set_state");
	assert_int_equal(describe(sk, "saddr").kind, FIELD_IPV4);
	assert_int_equal(describe(sk, "saddr_v6").kind, FIELD_IPV6C);
	assert_int_equal(describe(sk, "skaddr").kind, FIELD_POINTER);
	assert_int_equal(describe(sk, "oldstate").kind, FIELD_SIGNED);
	assert_int_equal(describe(sk, "sport").kind, FIELD_UNSIGNED);
	struct tep_event *tcp = load("tcp", "tcp_bad_csum");
	struct field_desc sa = describe(tcp, "saddr");
	assert_int_equal(sa.kind, FIELD_SOCKADDR);
	assert_true(sa.port);
	struct tep_event *br = load("bridge", "br_mdb_full");
	assert_int_equal(describe(br, "grpmac").kind, FIELD_MAC);
	assert_int_equal(describe(br, "dev").kind, FIELD_STRING);
	struct tep_event *ex = load("sched", "sched_process_exec");
	assert_int_equal(describe(ex, "filename").kind, FIELD_STRING);
	struct tep_event *wk = load("sched", "sched_wakeup");
	assert_int_equal(describe(wk, "comm").kind, FIELD_STRING);
}

/* 127.0.0.1 was "\u007f" and 0.0.0.0 "" when every u8 array was a string. */
static void test_addresses(void **state)
{
	(void)state;
	struct tep_event *sk = load("sock", "inet_sock_set_state");
	struct field_desc v4 = describe(sk, "saddr"), v6 = describe(sk, "saddr_v6");
	const unsigned char lo[4] = {127, 0, 0, 1}, any[4] = {0};
	assert_string_equal(json(&v4, lo, 4), "\"127.0.0.1\"");
	assert_string_equal(json(&v4, any, 4), "\"0.0.0.0\"");
	unsigned char a6[16] = {0};
	a6[15] = 1;
	assert_string_equal(json(&v6, a6, 16), "\"::1\"");
	assert_string_equal(text(&v4, lo, 4, 12), "127.0.0.1   ");
	struct tep_event *tcp = load("tcp", "tcp_bad_csum");
	struct field_desc sa = describe(tcp, "saddr");
	unsigned char s4[28] = {0}, s6[28] = {0};
	uint16_t fam = AF_INET, port = htons(8080);
	memcpy(s4, &fam, 2);
	memcpy(s4 + 2, &port, 2);
	memcpy(s4 + 4, lo, 4);
	assert_string_equal(json(&sa, s4, 28), "\"127.0.0.1:8080\"");
	fam = AF_INET6;
	memcpy(s6, &fam, 2);
	memcpy(s6 + 2, &port, 2);
	s6[8 + 15] = 1;
	assert_string_equal(json(&sa, s6, 28), "\"[::1]:8080\"");
	struct tep_event *br = load("bridge", "br_mdb_full");
	struct field_desc mac = describe(br, "grpmac");
	const unsigned char m[6] = {0x01, 0x00, 0x5e, 0x7f, 0xff, 0xfa};
	assert_string_equal(json(&mac, m, 6), "\"01:00:5e:7f:ff:fa\"");
	/* Bytes that do not fit the address kind are shown as the numbers they are. */
	assert_string_equal(json(&v4, lo, 3), "[127,0,0]");
}

static void test_numbers_and_strings(void **state)
{
	(void)state;
	struct field_desc bytes = {.kind = FIELD_ARRAY, .width = 1};
	const unsigned char b[4] = {1, 0, 255, 7};
	assert_string_equal(json(&bytes, b, 4), "[1,0,255,7]");
	struct field_desc s32 = {.kind = FIELD_ARRAY, .width = 4, .is_signed = true};
	int32_t v[2] = {-2, 5};
	assert_string_equal(json(&s32, v, 8), "[-2,5]");
	struct field_desc sn = {.kind = FIELD_SIGNED};
	int64_t m = -2;
	assert_string_equal(json(&sn, &m, 8), "-2");
	struct field_desc un = {.kind = FIELD_UNSIGNED};
	uint64_t big = 18446744073709551615ULL;
	assert_string_equal(json(&un, &big, 8), "18446744073709551615");
	/* Pointers are hex strings: exact in any JSON reader (2^53 and up are not). */
	struct field_desc ptr = {.kind = FIELD_POINTER};
	uint64_t p = 0xffff888003a1b2c0ULL;
	assert_string_equal(json(&ptr, &p, 8), "\"0xffff888003a1b2c0\"");
	struct field_desc str = {.kind = FIELD_STRING};
	assert_string_equal(json(&str, "a\"b\n", 4), "\"a\\\"b\\n\"");
	assert_string_equal(text(&str, "a b", 3, 0), "a\\x20b");
	assert_string_equal(text(&un, &big, 8, 22), "  18446744073709551615");
}

/* A record of the event ev with the 8-byte value v at field name, and that field. */
static struct tep_format_field *slot(struct tep_event *ev, const char *name, uint64_t v,
				     unsigned char *rec, size_t len)
{
	struct tep_format_field *f = tep_find_field(ev, name);
	assert_non_null(f);
	assert_int_equal(f->size, 8);
	memset(rec, 0, len);
	memcpy(rec + f->offset, &v, 8);
	return f;
}

/* The syscall tracepoints declare every argument "signed:0" in an 8-byte slot; the C type
 * says what the call took: kill(-1, 0) records 0x00000000ffffffff, shown as 4294967295
 * before the type was read. */
static void test_declared_types(void **state)
{
	(void)state;
	unsigned char data[64];
	struct tep_record rec = {.data = data, .size = sizeof(data)};
	struct tep_event *kill = load("syscalls", "sys_enter_kill");
	struct tep_format_field *pid = slot(kill, "pid", 0xffffffffULL, data, sizeof(data));
	assert_false(pid->flags & TEP_FIELD_IS_SIGNED); /* what the kernel says */
	struct field_desc d = describe(kill, "pid");
	assert_int_equal(d.kind, FIELD_SIGNED);
	assert_int_equal(d.width, 4);
	assert_string_equal(json(&d, data + pid->offset, 8), "-1");
	assert_string_equal(text(&d, data + pid->offset, 8, 0), "-1");
	assert_int_equal(field_num(&rec, pid, &d), -1);
	/* kill(-PGID): a process group. The upper half is the call's to ignore, as it does. */
	slot(kill, "pid", 0xdeadbeef00000000ULL | (uint32_t)-4242, data, sizeof(data));
	assert_int_equal(field_num(&rec, pid, &d), -4242);
	assert_string_equal(json(&d, data + pid->offset, 8), "-4242");
	struct tep_format_field *sig = slot(kill, "sig", 9, data, sizeof(data));
	struct field_desc sd = describe(kill, "sig");
	assert_int_equal(sd.kind, FIELD_SIGNED);
	assert_int_equal(field_num(&rec, sig, &sd), 9);
	/* off_t is 8 bytes: lseek(fd, -100, SEEK_CUR) as the whole slot, signed. */
	struct tep_event *lseek = load("syscalls", "sys_enter_lseek");
	struct tep_format_field *off = slot(lseek, "offset", (uint64_t)-100, data, sizeof(data));
	struct field_desc od = describe(lseek, "offset");
	assert_int_equal(od.width, 8);
	assert_int_equal(field_num(&rec, off, &od), -100);
	/* unsigned int fd: 4 bytes of the slot, unsigned. */
	struct tep_format_field *fd = slot(lseek, "fd", 0x1ffffffffULL, data, sizeof(data));
	struct field_desc fdd = describe(lseek, "fd");
	assert_int_equal(fdd.kind, FIELD_UNSIGNED);
	assert_string_equal(json(&fdd, data + fd->offset, 8), "4294967295");
	/* The exit's long ret was right already: still is. */
	struct tep_event *x = load("syscalls", "sys_exit_kill");
	struct tep_format_field *ret = slot(x, "ret", (uint64_t)-3, data, sizeof(data));
	struct field_desc rd = describe(x, "ret");
	assert_int_equal(field_num(&rec, ret, &rd), -3);
	/* A record too short for the field: 0, never a read past it. */
	struct tep_record shortrec = {.data = data, .size = pid->offset + 2};
	assert_int_equal(field_num(&shortrec, pid, &d), 0);
	/* Types whose sign is the machine's, or not an integer: the format's word stands. */
	int w;
	bool sign;
	assert_false(field_int_type("char", &w, &sign));
	assert_false(field_int_type("enum landlock_rule_type", &w, &sign));
	assert_true(field_int_type("const clockid_t", &w, &sign));
	assert_true(sign);
	assert_int_equal(w, 4);
	assert_true(field_int_type("umode_t", &w, &sign));
	assert_false(sign);
	assert_int_equal(w, 2);
}

/* The context of a record from its common_flags: an NMI is an interrupt too, irqs-off alone
 * is a task's. */
static void test_context(void **state)
{
	(void)state;
	assert_string_equal(field_context(0), "task");
	assert_string_equal(field_context(0x01 | 0x04), "task");
	assert_string_equal(field_context(0x08), "irq");
	assert_string_equal(field_context(0x40), "irq");
	assert_string_equal(field_context(0x10), "softirq");
	assert_string_equal(field_context(0x18), "irq"); /* a hard one over a soft one */
	assert_int_equal(FIELD_IN_INTERRUPT, 0x58);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_kinds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_addresses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_numbers_and_strings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_declared_types, setup, teardown),
		cmocka_unit_test(test_context),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
