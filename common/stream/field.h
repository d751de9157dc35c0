/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * field: what a field of an event holds, from its type and from how the kernel's own print
 * format shows it, and that value written exactly: as text (one token, escaped) or as JSON.
 * Only char arrays are strings: a u8 array is bytes (numbers), unless the print format shows
 * it as an address (%pI4, %pI6, %pI6c, %pIS[p][c], %pM, %pU).
 */
#ifndef FTT_FIELD_H
#define FTT_FIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct tep_event;
struct tep_format_field;
struct tep_record;

enum field_kind {
	FIELD_SIGNED,
	FIELD_UNSIGNED,
	FIELD_POINTER,	/* an address in the kernel or the traced process: hex */
	FIELD_STRING,	/* char[N] or __data_loc char[]: up to its first NUL */
	FIELD_ARRAY,	/* numbers (u8 arrays included): each element */
	FIELD_IPV4,	/* %pI4: 4 bytes */
	FIELD_IPV6,	/* %pI6: 16 bytes, every group */
	FIELD_IPV6C,	/* %pI6c: 16 bytes, compressed */
	FIELD_SOCKADDR, /* %pIS: struct sockaddr_in or _in6; with port: %pISp */
	FIELD_MAC,	/* %pM: 6 bytes */
	FIELD_UUID,	/* %pU: 16 bytes */
};

struct field_desc {
	enum field_kind kind;
	bool port;	/* FIELD_SOCKADDR: with the port */
	bool is_signed; /* of the number, or of an array's elements */
	/* Bytes of one number: an array's element, or what a scalar's C type takes of its slot
	 * (pid_t: 4 of the 8 a syscall's argument fills); 0: all of them. */
	int width;
};

/*
 * Classify field f of event ev (reads the event's print format once per call: at setup, not
 * per event). A number is as its C type declares it where the type is one field_int_type
 * knows, whatever the format's "signed:" says: the syscall tracepoints declare every argument
 * "signed:0" in an 8-byte slot ("pid_t pid; size:8; signed:0"), which kill(-1, ...) fills
 * with 0xffffffff. Returns the description (nothing to free).
 */
struct field_desc field_describe(struct tep_event *ev, struct tep_format_field *f);

/*
 * The context an event was recorded in, from its common_flags (tep_data_flags): libtraceevent
 * names TRACE_FLAG_HARDIRQ (0x08) and TRACE_FLAG_SOFTIRQ (0x10); the kernel's NMI flag
 * (0x40, FIELD_FLAG_NMI) counts as a hard interrupt. FIELD_IN_INTERRUPT: all three.
 */
#define FIELD_FLAG_NMI 0x40
#define FIELD_IN_INTERRUPT (0x08 | 0x10 | FIELD_FLAG_NMI)
/* The context of an event whose common_flags are flags. Returns "irq", "softirq" or "task", in
 * static storage. */
const char *field_context(int flags);

/* The width in bytes and the sign of an integer C type as a format names it ("pid_t",
 * "unsigned int", "const s32"), into width and is_signed. long is taken as 8 bytes:
 * field_describe never widens. Returns true, or false for any other type (char, whose sign is
 * the machine's, an enum, a struct, a pointer), width and is_signed then untouched. */
bool field_int_type(const char *type, int *width, bool *is_signed);

/* A number field's value in record rec as d says (d from field_describe of f): reader_num's
 * bounds-checked read, cut to the C type's width and extended by its sign. The one way tools
 * that take any field (tpoint's keys) read a number. Returns the value, 0 when the field is not
 * in the record. */
long long field_num(const struct tep_record *rec, const struct tep_format_field *f,
		    const struct field_desc *d);

/* The bytes of field f in rec, as d (its description) says: a string up to its NUL, a
 * __data_loc array as long as recorded; their count in len (0 when the field is not in the
 * record). Returns a pointer into rec's data (valid while the record is), or to a static "". */
const void *field_data(const struct tep_record *rec, const struct tep_format_field *f,
		       const struct field_desc *d, size_t *len);

/* Write a value (len bytes at data, described by d) to out as a JSON value: a number, a
 * string, or an array of numbers; null when out of memory. */
void field_json(FILE *out, const struct field_desc *d, const void *data, size_t len);
/* The same into dst (size bytes, not terminated) for the kinds a flood is made of (numbers,
 * pointers, strings) of d, value len bytes at data. Returns its length, or -1 for another kind
 * or when it does not fit in size (then field_json). */
int field_json_buf(char *dst, size_t size, const struct field_desc *d, const void *data,
		   size_t len);
/* The same (d, len bytes at data) as one text token to out (strings escaped as out_text
 * does; numbers and arrays cut at 511 bytes), padded to width (0: none): text to the left,
 * numbers to the right. */
void field_text(FILE *out, const struct field_desc *d, const void *data, size_t len, int width);

/* Is a value of d a string or an address (printed as text in JSON)? For column alignment.
 * Returns true for strings, pointers and the %p addresses, false for numbers and arrays. */
bool field_is_text(const struct field_desc *d);

#endif
