// SPDX-License-Identifier: GPL-2.0-only
/*
 * An exec's command line put back together (execargs.c), from hostile pieces: empty
 * arguments, one of 100 KB, newlines and bytes that are not UTF-8, strings a fetch could not
 * read, a uprobe's record whose strings ran over (the end marker missing), more arguments
 * than are held, a new program's stack whose pointers are out of order, pieces that never
 * came (a loader's record lost with the events of its CPU), and the best of what came.
 */
#include "helpers.h"

#include <stdint.h>

#include "domain/execargs.h"

/* What f() printed of a, as a string (freed by the caller). */
static char *text_of(const struct execargs *a, const char *filename, bool quote)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	execargs_text(f, a, filename, quote);
	fclose(f);
	return buf;
}

static char *json_of(const struct execargs *a, bool sizes)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	if (sizes)
		execargs_json_sizes(f, a);
	else
		execargs_json(f, a);
	fclose(f);
	return buf;
}

static void assert_text(const struct execargs *a, const char *filename, bool quote,
			const char *want)
{
	char *got = text_of(a, filename, quote);
	assert_string_equal(got, want);
	free(got);
}

static void assert_json(const struct execargs *a, bool sizes, const char *want)
{
	char *got = json_of(a, sizes);
	assert_string_equal(got, want);
	free(got);
}

/* A record with n strings given as C strings: the kernel's fetches (len without the NUL, 0
 * for "") or a uprobe's (len with the NUL), pointers for each. */
static void record_of(struct execargs_record *r, enum execargs_from from, const char *const *s,
		      int n)
{
	bool kernel = from == EXECARGS_KPROBE || from == EXECARGS_EPROBE;
	memset(r, 0, sizeof(*r));
	r->from = from;
	for (int i = 0; i < n; i++) {
		r->ptr[i] = 0x7ffd0000 + 0x100 * (uint64_t)i;
		r->str[i] = s[i];
		r->len[i] = strlen(s[i]) + (kernel ? 0 : 1);
	}
}

static void kprobe_record(void **state)
{
	static const char *const argv[] = {"ls", "", "-l", "two words"};
	struct execargs_record r;
	struct execargs a;
	record_of(&r, EXECARGS_KPROBE, argv, 4);
	assert_true(execargs_from_record(&a, &r, 20));
	assert_int_equal(a.n, 4);
	assert_false(a.cut);
	assert_true(execargs_whole(&a));
	assert_false(execargs_any_cut(&a));
	/* The empty argument is one, quoted so that it shows. */
	assert_text(&a, "/bin/ls", false, "ls \"\" -l \"two words\"");
	assert_text(&a, "/bin/ls", true, "\"ls\" \"\" \"-l\" \"two words\"");
	assert_json(&a, false, "[\"ls\",\"\",\"-l\",\"two words\"]");
	assert_json(&a, true, "[2,0,2,9]");
	assert_string_equal(execargs_from_names[a.from], "kprobe");
}

/* A string the kernel could not read: "(fault)" (6.4+) from a kprobe, nothing from a uprobe,
 * a field not there: the record is of no use. An eprobe that reads every argv[0] as "". */
static void unreadable(void **state)
{
	static const char *const fault[] = {"ls", "(fault)"};
	static const char *const empty0[] = {"", "x"};
	struct execargs_record r;
	struct execargs a;
	record_of(&r, EXECARGS_KPROBE, fault, 2);
	assert_false(execargs_from_record(&a, &r, 20));
	record_of(&r, EXECARGS_LIBC, fault, 2);
	r.len[1] = 0; /* a uprobe's fault: nothing, not even the NUL */
	assert_false(execargs_from_record(&a, &r, 20));
	record_of(&r, EXECARGS_LIBC, fault, 2);
	r.str[1] = NULL;
	assert_false(execargs_from_record(&a, &r, 20));
	record_of(&r, EXECARGS_EPROBE, empty0, 2);
	assert_false(execargs_from_record(&a, &r, 20));
	/* The same from a kprobe is an empty argv[0], which a program may pass. */
	record_of(&r, EXECARGS_KPROBE, empty0, 2);
	assert_true(execargs_from_record(&a, &r, 20));
	assert_text(&a, "", false, "\"\" x");
}

/* A uprobe's record whose end marker ($comm) is empty: a string of 4 KB or more took the
 * room of the ones after it. The last one held is a prefix, those after it lost. */
static void uprobe_overrun(void **state)
{
	static const char *const argv[] = {"cp", "abc", "", ""};
	struct execargs_record r;
	struct execargs a;
	record_of(&r, EXECARGS_LIBC, argv, 4);
	r.len[2] = r.len[3] = 0; /* lost: nothing recorded */
	r.has_end = true;
	r.end_len = 0;
	assert_true(execargs_from_record(&a, &r, 20));
	assert_int_equal(a.n, 4);
	assert_int_equal(a.size[0], 2);
	assert_int_equal(a.size[1], EXECARGS_SIZE_UNKNOWN);
	assert_int_equal(a.size[2], EXECARGS_SIZE_UNKNOWN);
	assert_false(execargs_whole(&a));
	assert_true(execargs_any_cut(&a));
	assert_text(&a, "", false, "cp abc [cut] \"\" [cut] \"\" [cut]");
	assert_json(&a, true, "[2,null,null,null]");
	/* The marker there: nothing was cut, so the missing strings are faults. */
	r.end_len = 5;
	assert_false(execargs_from_record(&a, &r, 20));
}

/* More pointers than --max-args: the list is marked cut; argc from the loader likewise. */
static void more_than_max(void **state)
{
	static const char *const argv[] = {"a", "b", "c", "d"};
	struct execargs_record r;
	struct execargs a;
	record_of(&r, EXECARGS_KPROBE, argv, 4);
	assert_true(execargs_from_record(&a, &r, 3));
	assert_int_equal(a.n, 3);
	assert_true(a.cut);
	assert_text(&a, "", false, "a b c [...]");
	assert_true(execargs_any_cut(&a));
	assert_true(execargs_whole(&a)); /* each one held whole: only the list is cut */
	/* Exactly max: not cut. */
	assert_true(execargs_from_record(&a, &r, 4));
	assert_false(a.cut);
	/* The loader's argc. */
	record_of(&r, EXECARGS_LOADER, argv, 4);
	r.has_argc = true;
	r.argc = 1000;
	memset(r.ptr, 0, sizeof(r.ptr));
	assert_true(execargs_from_record(&a, &r, 4));
	assert_int_equal(a.n, 4);
	assert_true(a.cut);
	r.argc = -5; /* garbage on the stack */
	assert_true(execargs_from_record(&a, &r, 4));
	assert_int_equal(a.n, 0);
	assert_false(a.cut);
	/* A max beyond what is held is held to EXECARGS_MAX. */
	uint64_t ptr[EXECARGS_MAX + 1];
	for (int i = 0; i <= EXECARGS_MAX; i++)
		ptr[i] = 1;
	execargs_count(&a, ptr, 1000, EXECARGS_LIBC);
	assert_int_equal(a.n, EXECARGS_MAX);
	assert_true(a.cut);
}

/* Newlines, escapes and bytes that are not UTF-8: one line of text, valid JSON, exact. */
static void hostile_bytes(void **state)
{
	static const char *const argv[] = {"sh", "-c", "echo a\nrm -rf /", "\xff\xfe", "\"\\"};
	struct execargs_record r;
	struct execargs a;
	record_of(&r, EXECARGS_KPROBE, argv, 5);
	assert_true(execargs_from_record(&a, &r, 20));
	assert_text(&a, "", false, "sh -c \"echo a\\x0arm -rf /\" \"\\xff\\xfe\" \"\\\"\\\\\"");
	assert_json(&a, false,
		    "[\"sh\",\"-c\",\"echo a\\nrm -rf /\",\"\\udcff\\udcfe\",\"\\\"\\\\\"]");
}

/* Arguments that overflow the buffer: the one that does not fit is cut there with its
 * length, the next ones leave the list marked cut. */
static void overflow(void **state)
{
	static char big[102400];
	struct execargs a;
	memset(big, 'x', sizeof(big));
	execargs_clear(&a);
	execargs_add(&a, "prog", 4, 4);
	execargs_add(&a, big, sizeof(big), sizeof(big));
	execargs_add(&a, "after", 5, 5);
	assert_int_equal(a.n, 2);
	assert_int_equal(a.len, EXECARGS_BYTES);
	assert_true(a.cut);
	assert_int_equal(strlen(a.buf + 5), EXECARGS_BYTES - 5 - 1);
	a.from = EXECARGS_KPROBE;
	char *t = text_of(&a, "", false);
	assert_non_null(strstr(t, "xxx [cut: 102400 bytes] [...]"));
	assert_int_equal(strlen(t),
			 4 + 1 + (EXECARGS_BYTES - 6) + strlen(" [cut: 102400 bytes] [...]"));
	free(t);
	/* Forty held, the forty-first dropped (the caller knows the count from the pointers). */
	execargs_clear(&a);
	for (int i = 0; i < EXECARGS_MAX + 1; i++)
		execargs_add(&a, "1", 1, 1);
	assert_int_equal(a.n, EXECARGS_MAX);
}

/* A file with the given bytes, opened for reading. */
static int file_of(const void *bytes, size_t n)
{
	char path[] = "/tmp/test_execargs.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(write(fd, bytes, n), (ssize_t)n);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

/* /proc/PID/cmdline: NUL-separated, read to its end for the true lengths of what is cut. */
static void cmdline(void **state)
{
	struct execargs a;
	int fd = file_of("vi\0-R\0\0notes\0", 13);
	execargs_from_cmdline(&a, fd, 20);
	close(fd);
	assert_int_equal(a.from, EXECARGS_PROC);
	assert_text(&a, "", false, "vi -R \"\" notes [late]");
	/* Nothing: a process gone, a kernel thread. */
	fd = file_of("", 0);
	execargs_from_cmdline(&a, fd, 20);
	close(fd);
	assert_int_equal(a.from, EXECARGS_NONE);
	assert_text(&a, "/usr/bin/true", false, "/usr/bin/true [arguments not read]");
	assert_text(&a, "", false, "[arguments not read]");
	assert_json(&a, false, "null");
	assert_json(&a, true, "null");
	assert_false(execargs_any_cut(&a));
	/* A last argument without its NUL (a program that rewrote its command line). */
	fd = file_of("daemon: idle", 12);
	execargs_from_cmdline(&a, fd, 20);
	close(fd);
	assert_text(&a, "", false, "\"daemon: idle\" [late]");
	/* One of 100 KB, across reads of 64 KB. */
	size_t n = 102400 + 3;
	char *buf = malloc(n);
	memset(buf, 'y', 102400);
	memcpy(buf + 102400, "\0z\0", 3);
	fd = file_of(buf, n);
	free(buf);
	execargs_from_cmdline(&a, fd, 20);
	close(fd);
	assert_int_equal(a.n, 1);
	assert_int_equal(a.size[0], 102400);
	assert_true(a.cut); /* "z" found no room */
	assert_json(&a, true, "[102400]");
	/* More than max. */
	fd = file_of("a\0b\0c\0", 6);
	execargs_from_cmdline(&a, fd, 2);
	close(fd);
	assert_text(&a, "", false, "a b [...] [late]");
}

/* The new program's stack: each argument's length is the distance between its pointer and
 * the next (the last one's: envp[0]'s). */
static void image(void **state)
{
	struct execargs_image im;
	/* argc 3: "ls" at 100, "-l" at 103, "/tmp" at 106, NULL, envp[0] at 111. */
	uint64_t slot[EXECARGS_MAX + 3] = {0, 100, 103, 106, 0, 111};
	execargs_image_from(&im, 3, slot, 20);
	assert_true(im.known);
	assert_int_equal(im.argc, 3);
	assert_int_equal(im.nsize, 3);
	assert_int_equal(im.size[0], 2);
	assert_int_equal(im.size[2], 4);
	/* No environment: the last one's length is not known. */
	slot[5] = 0;
	execargs_image_from(&im, 3, slot, 20);
	assert_int_equal(im.nsize, 2);
	/* Out of order: lengths stop there. */
	uint64_t odd[EXECARGS_MAX + 3] = {0, 100, 90, 106, 0, 111};
	execargs_image_from(&im, 3, odd, 20);
	assert_true(im.known);
	assert_int_equal(im.nsize, 0);
	/* Absurd: longer than the kernel allows, or a negative argc. */
	uint64_t far[EXECARGS_MAX + 3] = {0, 100, 100 + EXECARGS_MAX_LEN + 2, 0, 200000000};
	execargs_image_from(&im, 2, far, 20);
	assert_int_equal(im.nsize, 0);
	execargs_image_from(&im, -1, slot, 20);
	assert_false(im.known);
	execargs_image_from(&im, EXECARGS_MAX_LEN + 1, slot, 20);
	assert_false(im.known);
	/* More than max: lengths of the first max, the last one's from the next pointer. */
	uint64_t many[EXECARGS_MAX + 3] = {0, 10, 20, 30, 40};
	execargs_image_from(&im, 5, many, 2);
	assert_int_equal(im.nsize, 2);
	assert_int_equal(im.size[1], 9);
}

/* The image's lengths go to arguments cut, only when they are the same arguments. */
static void sizes_from(void **state)
{
	struct execargs a;
	struct execargs_image im = {.known = true, .argc = 2, .nsize = 2, .size = {2, 5000}};
	execargs_clear(&a);
	execargs_add(&a, "sh", 2, 2);
	execargs_add(&a, "abc", 3, EXECARGS_SIZE_UNKNOWN);
	a.from = EXECARGS_LIBC;
	assert_true(execargs_sizes_from(&a, &im));
	assert_int_equal(a.size[1], 5000);
	assert_text(&a, "", false, "sh abc [cut: 5000 bytes]");
	/* A script: the interpreter's arguments are others (a whole one of another length). */
	struct execargs_image other = {.known = true, .argc = 2, .nsize = 2, .size = {7, 5000}};
	execargs_clear(&a);
	execargs_add(&a, "sh", 2, 2);
	execargs_add(&a, "abc", 3, EXECARGS_SIZE_UNKNOWN);
	a.from = EXECARGS_LIBC;
	assert_false(execargs_sizes_from(&a, &other));
	assert_int_equal(a.size[1], EXECARGS_SIZE_UNKNOWN);
	/* Another count. */
	other.argc = 3;
	assert_false(execargs_sizes_from(&a, &other));
	/* A cut held longer than the image says: not the same. */
	struct execargs_image shorter = {.known = true, .argc = 2, .nsize = 2, .size = {2, 1}};
	assert_false(execargs_sizes_from(&a, &shorter));
	/* Nothing read: nothing to give lengths to. */
	execargs_clear(&a);
	assert_false(execargs_sizes_from(&a, &im));
}

/* The best of what came for one exec, the pieces missing in every way. */
static void best(void **state)
{
	struct execargs a, loader, fallback;
	struct execargs_image im = {.known = true, .argc = 2, .nsize = 2, .size = {2, 4}};
	/* The caller's cut, the loader's whole: the loader's. */
	execargs_clear(&a);
	execargs_add(&a, "vi", 2, 2);
	execargs_add(&a, "", 0, EXECARGS_SIZE_UNKNOWN);
	a.from = EXECARGS_LIBC;
	execargs_clear(&loader);
	execargs_add(&loader, "vi", 2, 2);
	execargs_add(&loader, "a.md", 4, 4);
	loader.from = EXECARGS_LOADER;
	execargs_clear(&fallback);
	execargs_best(&a, &loader, &fallback, &im, 20);
	assert_text(&a, "", false, "vi a.md");
	assert_string_equal(execargs_from_names[a.from], "loader");
	/* The loader's record lost (events of its CPU lost): the caller's, with the true
	 * length from the image. */
	execargs_clear(&a);
	execargs_add(&a, "vi", 2, 2);
	execargs_add(&a, "a.", 2, EXECARGS_SIZE_UNKNOWN);
	a.from = EXECARGS_LIBC;
	execargs_clear(&loader);
	execargs_best(&a, &loader, &fallback, &im, 20);
	assert_text(&a, "", false, "vi a. [cut: 4 bytes]");
	/* Nothing from the caller (a static shell): the loader's, even cut. */
	execargs_clear(&a);
	execargs_clear(&loader);
	execargs_add(&loader, "vi", 2, 2);
	execargs_add(&loader, "a", 1, EXECARGS_SIZE_UNKNOWN);
	loader.from = EXECARGS_LOADER;
	execargs_best(&a, &loader, &fallback, &im, 20);
	assert_text(&a, "", false, "vi a [cut: 4 bytes]");
	/* Only /proc. */
	execargs_clear(&a);
	execargs_clear(&loader);
	execargs_clear(&fallback);
	execargs_add(&fallback, "vi", 2, 2);
	fallback.from = EXECARGS_PROC;
	execargs_best(&a, &loader, &fallback, &im, 20);
	assert_text(&a, "", false, "vi [late]");
	/* Only the image: the lengths. */
	execargs_clear(&a);
	execargs_clear(&fallback);
	execargs_best(&a, &loader, &fallback, &im, 20);
	assert_text(&a, "", false, "\"\" [cut: 2 bytes] \"\" [cut: 4 bytes]");
	assert_json(&a, true, "[2,4]");
	/* Nothing at all. */
	struct execargs_image none = {0};
	execargs_clear(&a);
	execargs_best(&a, &loader, &fallback, &none, 20);
	assert_text(&a, "/bin/vi", false, "/bin/vi [arguments not read]");
	/* The caller's whole: kept, whatever else came. */
	execargs_clear(&a);
	execargs_add(&a, "ed", 2, 2);
	a.from = EXECARGS_KPROBE;
	execargs_add(&fallback, "other", 5, 5);
	fallback.from = EXECARGS_PROC;
	execargs_best(&a, &loader, &fallback, &none, 20);
	assert_text(&a, "", false, "ed");
}

/* A copy holds the same arguments; a pieced record replaces the one before it entirely. */
static void copy_clear(void **state)
{
	static const char *const argv[] = {"x", "y"};
	struct execargs a, b;
	struct execargs_record r;
	record_of(&r, EXECARGS_LIBC, argv, 2);
	assert_true(execargs_from_record(&a, &r, 20));
	memset(&b, 0x5a, sizeof(b));
	execargs_copy(&b, &a);
	assert_text(&b, "", false, "x y");
	assert_true(execargs_from_record(&b, &r, 1));
	assert_text(&b, "", false, "x [...]");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kprobe_record),  cmocka_unit_test(unreadable),
		cmocka_unit_test(uprobe_overrun), cmocka_unit_test(more_than_max),
		cmocka_unit_test(hostile_bytes),  cmocka_unit_test(overflow),
		cmocka_unit_test(cmdline),	  cmocka_unit_test(image),
		cmocka_unit_test(sizes_from),	  cmocka_unit_test(best),
		cmocka_unit_test(copy_clear),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
