// SPDX-License-Identifier: GPL-2.0-only
/*
 * A uprobe's strings read in pieces (kernels before 6.12): the arguments rewritten, every
 * other argument kept as given; the format that the kernel writes for them (6.18's, taken
 * from a real probe) given back with one char field per string, which libtraceevent parses
 * and reader_str reads, a string that filled it without a NUL said cut; what cannot be read
 * so refused with the reason.
 */
#include "helpers.h"

#include "kernel/strpieces.h"
#include "stream/reader.h"

#include <event-parse.h>

static char out[16384], why[512];

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static int rewrite(const char *args, struct strpieces *sp)
{
	why[0] = 0;
	return strpieces_args(args, out, sizeof(out), sp, why, sizeof(why));
}

static void test_args(void **state)
{
	(void)state;
	struct strpieces sp;
	assert_int_equal(rewrite("file=+0(%si):string", &sp), 1);
	assert_int_equal(sp.n, 1);
	assert_int_equal(sp.pieces, STRPIECES_PER_STR);
	assert_string_equal(sp.name[0], "file");
	assert_true(starts(out, "file__0=+0(%si):u64 file__1=+8(%si):u64 file__2=+16(%si):u64 "));
	assert_non_null(strstr(out, " file__31=+248(%si):u64"));
	assert_null(strstr(out, "file__32"));
	assert_null(strstr(out, "string"));

	/* $comm first (a fetch that faults moves the kernel's dynamic data backwards from 4.20
	 * to 6.4: nothing dynamic may come after a piece), the others in order, an unnamed one
	 * named as the kernel named it in its place; a nested fetch, a negative offset,
	 * user-memory syntax, an unnamed string named as the kernel names it (its position). */
	assert_int_equal(rewrite("a=%di:u64 s0=-8(+16(%cx)):ustring %dx:x32 +u0($retval):ustring "
				 "c=$comm",
				 &sp),
			 2);
	assert_string_equal(sp.name[0], "s0");
	assert_string_equal(sp.name[1], "arg4");
	assert_true(starts(out, "c=$comm a=%di:u64 s0__0=-8(+16(%cx)):u64 "
				"s0__1=+0(+16(%cx)):u64 s0__2=+8(+16(%cx)):u64 "));
	assert_non_null(strstr(out,
			       " s0__31=+240(+16(%cx)):u64 arg3=%dx:x32 arg4__0=+u0($retval):u64 "
			       "arg4__1=+u8($retval):u64 "));
	assert_null(strstr(out, "arg4__32"));

	/* Offsets in any base, as the kernel reads them; any white space splits, as the
	 * kernel's (a string after a carriage return is one too) */
	assert_int_equal(rewrite("x=+0x10(%di):string\ry=+010(%si):string", &sp), 2);
	assert_true(starts(out, "x__0=+16(%di):u64 x__1=+24(%di):u64 "));
	assert_non_null(strstr(out, " y__0=+8(%si):u64 y__1=+16(%si):u64 "));

	/* Nothing to do: out is args; $comm and an immediate string are bounded, kept. */
	assert_int_equal(rewrite("a=%di:u64 c=$comm t=\\\"a=b\":string d=$comm:string", &sp), 0);
	assert_string_equal(out, "a=%di:u64 c=$comm t=\\\"a=b\":string d=$comm:string");
	/* An immediate address is read as any pointer: in pieces; one past the 40-bit offsets
	 * the kernel takes, refused */
	assert_int_equal(rewrite("s=\\0x601040:string", &sp), -1);
	assert_non_null(strstr(why, "373b9338"));
	assert_int_equal(sp.n, 0);

	/* Four strings among ten other arguments: 128 arguments at most, (128 - 10) / 4. */
	char many[1024] = "";
	for (int i = 0; i < 10; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), "a%d=%%di ", i);
	strcat(many, "w=+0(%di):string x=+0(%si):string y=+0(%dx):string z=+0(%cx):string");
	assert_int_equal(rewrite(many, &sp), 4);
	assert_int_equal(sp.pieces, 29);
	assert_non_null(strstr(out, " z__28=+224(%cx):u64"));
	assert_null(strstr(out, "z__29"));
}

static void test_refused(void **state)
{
	(void)state;
	struct strpieces sp;
	assert_int_equal(rewrite("s=@0x1000:string", &sp), -1);
	assert_non_null(strstr(why, "373b9338"));
	assert_non_null(strstr(why, "'s=@0x1000:string'"));
	assert_int_equal(rewrite("s=+0(%di):string[2]", &sp), -1);
	assert_int_equal(rewrite("s=%di:string", &sp), -1);
	assert_int_equal(rewrite("a_name_of_twenty_eight_chars=+0(%di):string", &sp), -1);
	assert_non_null(strstr(why, "longer than 27"));
	assert_int_equal(rewrite("a_name_of_twenty_seven_char=+0(%di):string", &sp), 1);
	char strs[2048] = "";
	for (int i = 0; i <= STRPIECES_MAX_STRS; i++)
		snprintf(strs + strlen(strs), sizeof(strs) - strlen(strs), "%ss%d=+0(%%di):string",
			 i ? " " : "", i);
	assert_int_equal(rewrite(strs, &sp), -1);
	char more[64];
	snprintf(more, sizeof(more), "more than %d strings", STRPIECES_MAX_STRS);
	assert_non_null(strstr(why, more));
	/* Too small an output: refused, not cut. */
	assert_int_equal(strpieces_args("s=+0(%di):string", out, 100, &sp, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "too long"));
}

/* 6.18's format of p:ftt_t/x BASH:0x1000 a=%di:u64 s0__0=+0(%si):u64 s0__1=+8(%si):u64
 * b=%dx:x32 s1__0=+0(%cx):u64 s1__1=+8(%cx):u64 */
static const char fmt_x[] =
	"name: x\nID: 2326\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 a;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 s0__0;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 s0__1;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 b;\toffset:40;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 s1__0;\toffset:44;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 s1__1;\toffset:52;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"(%lx) a=%Lu s0__0=%Lu s0__1=%Lu b=0x%x s1__0=%Lu s1__1=%Lu\", "
	"REC->__probe_ip, REC->a, REC->s0__0, REC->s0__1, REC->b, REC->s1__0, REC->s1__1\n";

static const struct strpieces two = {2, 2, {"s0", "s1"}};

static void test_format(void **state)
{
	(void)state;
	char *f = strpieces_format(fmt_x, &two);
	assert_non_null(f);
	assert_non_null(strstr(f, "\tfield:u64 a;\toffset:16;\tsize:8;\tsigned:0;\n"
				  "\tfield:char s0[16];\toffset:24;\tsize:16;\tsigned:0;\n"
				  "\tfield:u32 b;\toffset:40;\tsize:4;\tsigned:0;\n"
				  "\tfield:char s1[16];\toffset:44;\tsize:16;\tsigned:0;\n\n"));
	assert_null(strstr(f, "__1"));
	assert_non_null(strstr(f, "print fmt: \"(%lx) a=%Lu s0=\\\"%s\\\" b=0x%x s1=\\\"%s\\\"\", "
				  "REC->__probe_ip, REC->a, REC->s0, REC->b, REC->s1\n"));

	/* Parsed by libtraceevent: two strings of 16 bytes, read as reader_str reads them. */
	struct tep_handle *t = tep_alloc();
	tep_set_long_size(t, 8);
	assert_int_equal(tep_parse_event(t, f, strlen(f), "ftt_t"), 0);
	free(f);
	struct tep_event *ev = tep_find_event_by_name(t, "ftt_t", "x");
	assert_non_null(ev);
	struct tep_format_field *s0 = tep_find_field(ev, "s0"), *s1 = tep_find_field(ev, "s1");
	assert_non_null(s0);
	assert_non_null(s1);
	assert_int_equal(s0->size, 16);
	assert_true(s0->flags & TEP_FIELD_IS_STRING);
	assert_false(s0->flags & TEP_FIELD_IS_DYNAMIC);
	unsigned char data[60] = {0};
	data[0] = 2326 & 0xff, data[1] = 2326 >> 8;
	memcpy(data + 24, "/etc/passwd", 12);
	memcpy(data + 44, "0123456789abcdef", 16); /* 16 bytes, no NUL: longer than read */
	struct tep_record rec = {.data = data, .size = 60};
	size_t len;
	const char *s = reader_str(&rec, s0, &len);
	assert_int_equal(len, 16);
	assert_string_equal(s, "/etc/passwd");
	assert_false(strpieces_cut(s0, s, len));
	s = reader_str(&rec, s1, &len);
	assert_true(strpieces_cut(s1, s, len));
	char cut[64];
	assert_int_equal(reader_strcpy(cut, sizeof(cut), &rec, s1), 16);
	assert_string_equal(cut, "0123456789abcdef");
	/* A dynamic string is never cut: the kernel measured it. */
	struct tep_format_field loc = {.flags = TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING};
	assert_false(strpieces_cut(&loc, "abc", 3));
	tep_free(t);
}

static void test_format_return(void **state)
{
	(void)state;
	/* A return probe: two arguments before the pieces, the pieces last. */
	const char *fmt = "name: y\nID: 2327\nformat:\n"
			  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n"
			  "\tfield:unsigned long __probe_func;\toffset:8;\tsize:8;\tsigned:0;\n"
			  "\tfield:unsigned long __probe_ret_ip;\toffset:16;\tsize:8;\tsigned:0;\n"
			  "\tfield:u64 line__0;\toffset:24;\tsize:8;\tsigned:0;\n"
			  "\tfield:u64 line__1;\toffset:32;\tsize:8;\tsigned:0;\n\n"
			  "print fmt: \"(%lx <- %lx) line__0=%Lu line__1=%Lu\", REC->__probe_func, "
			  "REC->__probe_ret_ip, REC->line__0, REC->line__1\n";
	const struct strpieces one = {1, 2, {"line"}};
	char *f = strpieces_format(fmt, &one);
	assert_non_null(f);
	assert_non_null(strstr(f, "\tfield:char line[16];\toffset:24;\tsize:16;\tsigned:0;\n\n"
				  "print fmt: \"(%lx <- %lx) line=\\\"%s\\\"\", REC->__probe_func, "
				  "REC->__probe_ret_ip, REC->line\n"));
	free(f);
}

static void test_format_refused(void **state)
{
	(void)state;
	/* A piece missing, one out of place, one not 8 bytes: NULL, nothing made up. */
	const struct strpieces three = {2, 3, {"s0", "s1"}};
	assert_null(strpieces_format(fmt_x, &three));
	char bad[sizeof(fmt_x)];
	strcpy(bad, fmt_x);
	char *o = strstr(bad, "offset:52;");
	o[8] = '3'; /* s1__1 at 53 */
	assert_null(strpieces_format(bad, &two));
	strcpy(bad, fmt_x);
	o = strstr(strstr(bad, "s0__1;"), "size:8");
	o[5] = '4';
	assert_null(strpieces_format(bad, &two));
	assert_null(strpieces_format("no print fmt", &two));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_args),	       cmocka_unit_test(test_refused),
		cmocka_unit_test(test_format),	       cmocka_unit_test(test_format_return),
		cmocka_unit_test(test_format_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
