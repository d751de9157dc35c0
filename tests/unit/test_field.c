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

#include "field.h"

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
	struct field_desc bytes = {.kind = FIELD_ARRAY, .elemsize = 1};
	const unsigned char b[4] = {1, 0, 255, 7};
	assert_string_equal(json(&bytes, b, 4), "[1,0,255,7]");
	struct field_desc s32 = {.kind = FIELD_ARRAY, .elemsize = 4, .is_signed = true};
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_kinds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_addresses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_numbers_and_strings, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
