/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * strpieces: a uprobe's strings read as fixed 8-byte pieces, on the kernels whose uprobe
 * events would write a long string past their buffer.
 *
 * Before Linux 6.12 (upstream 373b9338) a uprobe event copies its fetch arguments, strings
 * whole, into a one-page per-CPU buffer before it checks their size: a string of nearly 4 KB
 * (the kernel reads up to 4096 bytes) with the event's other fields runs past that page over
 * other kernel memory (4.18 and 4.19 guests: the tracer faulting without end, the machine
 * hung). There a `NAME=+OFF(FETCH):string` argument is made as NAME__0=+OFF(FETCH):u64,
 * NAME__1=+(OFF+8)(FETCH):u64, ... (a fixed size, nothing copied past it), and the event's
 * format is given to libtraceevent with those pieces as one field, `char NAME[8 * pieces]`:
 * the tools read it as the string field it was asked for. A string that fills it without a
 * NUL is longer than was read (strpieces_cut). A piece the process cannot read whole (the
 * string ends within 8 bytes of unmapped memory) reads as zeros there.
 */
#ifndef FTT_STRPIECES_H
#define FTT_STRPIECES_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <event-parse.h>

#define STRPIECES_MAX_STRS 64
#define STRPIECES_PER_STR 32   /* 256 bytes of each string: NAME_MAX and a NUL, as bcc's */
#define STRPIECES_MAX_ARGS 128 /* the kernel's MAX_TRACE_ARGS */
#define STRPIECES_NAME_MAX 27  /* with "__31", the kernel's 31 bytes of an argument's name */

/* The strings one probe's arguments read in pieces. */
struct strpieces {
	int n;	    /* strings */
	int pieces; /* 8-byte pieces each */
	char name[STRPIECES_MAX_STRS][STRPIECES_NAME_MAX + 1];
};

/* Does this kernel's uprobe events need it (Linux before 6.12; the release uname gives, a
 * stable kernel's backport not seen), or does FTT_UPROBE_STRINGS=pieces in the environment ask
 * for it? Read once. Returns true if so. */
bool strpieces_needed(void);

/*
 * A uprobe's fetch arguments args with each string read from user memory
 * ([NAME=]+OFF(FETCH):string or :ustring, also -OFF and +uOFF) as pieces, into out (len
 * bytes), the strings in *sp (an unnamed one named argN, as the kernel names it). Other
 * strings are left as they are: $comm and immediate ones (\"...") have a bounded length.
 * Returns how many strings were rewritten (0: out holds args), or -1 with the reason in why
 * (whylen bytes): a string read otherwise (@ADDR, an array of strings), more than
 * STRPIECES_MAX_STRS strings, a name too long for its pieces, or out too short.
 */
int strpieces_args(const char *args, char *out, size_t len, struct strpieces *sp, char *why,
		   size_t whylen);

/*
 * The event format fmt of such a probe, whose strings sp names, with each string's pieces as
 * one field: the first
 * piece's line as "field:char NAME[8*pieces];", the others' left out, and in the print fmt
 * NAME=\"%s\" with REC->NAME in the first piece's place. Returns a new string, the caller
 * frees it with free(); NULL when fmt does not have every piece in order, 8 bytes apart (or
 * out of memory).
 */
char *strpieces_format(const char *fmt, const struct strpieces *sp);

/* Is a probe's string field f, holding s (len bytes, as reader_str gives it), one made of
 * pieces that the string filled without its NUL, so longer than was read? (A __data_loc
 * field is the kernel's own string, its length measured: never cut.) Returns true if so. */
static inline bool strpieces_cut(const struct tep_format_field *f, const char *s, size_t len)
{
	return !(f->flags & TEP_FIELD_IS_DYNAMIC) && len > 0 && !memchr(s, 0, len);
}

#endif
