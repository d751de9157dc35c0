// SPDX-License-Identifier: GPL-2.0-only
#include "stream/printfmt.h"
#include "base/out.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

enum step_kind { STEP_TEXT, STEP_NUM, STEP_STR };

struct step {
	enum step_kind kind;
	/* STEP_TEXT */
	const char *text;
	size_t len;
	/* STEP_NUM and STEP_STR: where the field is */
	int offset, size;
	bool dynamic, relative; /* __data_loc / __rel_loc string */
	/* STEP_NUM: the cast of the print format's argument (bits 64: none), then the
	 * conversion's length (8, 16, 32, 64 bits) */
	int cast_bits, conv_bits;
	bool cast_signed;
	char conv; /* d u x X s */
	int width;
	bool left, zero, alt, plus, space;
	bool plain; /* STEP_TEXT: nothing in it to escape */
};

struct printfmt {
	int n;
	struct step *steps;
	char *text; /* the format's literal text, unescaped; steps point into it */
	/* A string meets other text that may carry on a UTF-8 sequence it began (two %s in a
	 * row): rendered as it is, then escaped whole, as the line always was. */
	bool whole;
};

void printfmt_free(struct printfmt *p)
{
	if (!p)
		return;
	free(p->steps);
	free(p->text);
	free(p);
}

/* C's integer types as a cast names them: bits and sign; 0 for what is not modelled. */
static int type_bits(const char *type, bool *is_signed)
{
	static const struct {
		const char *name;
		int bits;
		bool sign;
	} types[] = {
		{"char", 8, true},
		{"signed char", 8, true},
		{"unsigned char", 8, false},
		{"short", 16, true},
		{"unsigned short", 16, false},
		{"int", 32, true},
		{"unsigned int", 32, false},
		{"unsigned", 32, false},
		{"long", 64, true},
		{"unsigned long", 64, false},
		{"long long", 64, true},
		{"unsigned long long", 64, false},
		{"u8", 8, false},
		{"s8", 8, true},
		{"u16", 16, false},
		{"s16", 16, true},
		{"u32", 32, false},
		{"s32", 32, true},
		{"u64", 64, false},
		{"s64", 64, true},
		{"size_t", 64, false},
		{"ssize_t", 64, true},
		{"pid_t", 32, true},
	};
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(type, types[i].name)) {
			*is_signed = types[i].sign;
			return types[i].bits;
		}
	return 0;
}

static const struct tep_format_field *field_named(struct tep_event *ev, const char *name)
{
	return name ? tep_find_any_field(ev, name) : NULL;
}

/* "__data_loc char[]" (or __rel_loc, const char): a string as the kernel's __string(). */
static bool char_string(const char *type)
{
	if (!strncmp(type, "__data_loc ", 11))
		type += 11;
	else if (!strncmp(type, "__rel_loc ", 10))
		type += 10;
	else
		return false;
	if (!strncmp(type, "const ", 6))
		type += 6;
	return !strncmp(type, "char[", 5);
}

static bool numeric(const struct tep_format_field *f)
{
	return f &&
	       !(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING)) &&
	       (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8);
}

/* The argument of a conversion into s; false when it is not of a modelled shape. */
static bool take_arg(struct tep_event *ev, const struct tep_print_arg *a, struct step *s)
{
	const struct tep_format_field *f = NULL;
	s->cast_bits = 64;
	if (s->conv == 's') {
		if (a->type == TEP_PRINT_STRING) {
			f = a->string.field ? a->string.field : field_named(ev, a->string.string);
			/* char strings only: libtraceevent reads others (u8[]) to a NUL past
			 * their length */
			if (!f || !(f->flags & TEP_FIELD_IS_DYNAMIC) || f->size != 4 ||
			    !char_string(f->type))
				return false;
			s->dynamic = true;
			s->relative = f->flags & TEP_FIELD_IS_RELATIVE;
		} else if (a->type == TEP_PRINT_FIELD) {
			f = a->field.field ? a->field.field : field_named(ev, a->field.name);
			if (!f || (f->flags & TEP_FIELD_IS_DYNAMIC) ||
			    !(f->flags & TEP_FIELD_IS_ARRAY) || f->size <= 0 ||
			    strncmp(f->type, "char", 4))
				return false;
		} else {
			return false;
		}
	} else {
		if (a->type == TEP_PRINT_TYPE) {
			if (strchr(a->typecast.type, '*'))
				s->cast_bits = 64; /* a pointer: the value as it is */
			else if (!(s->cast_bits = type_bits(a->typecast.type, &s->cast_signed)))
				return false;
			a = a->typecast.item;
		}
		if (!a || a->type != TEP_PRINT_FIELD)
			return false;
		f = a->field.field ? a->field.field : field_named(ev, a->field.name);
		if (!numeric(f))
			return false;
	}
	s->offset = f->offset;
	s->size = f->size;
	return true;
}

/* One conversion at *fmt (past its '%') into s; false when it is not modelled. */
static bool conversion(const char **fmt, struct step *s)
{
	const char *p = *fmt;
	for (;; p++) {
		if (*p == '-')
			s->left = true;
		else if (*p == '0')
			s->zero = true;
		else if (*p == '#')
			s->alt = true;
		else if (*p == '+')
			s->plus = true;
		else if (*p == ' ')
			s->space = true;
		else
			break;
	}
	while (*p >= '0' && *p <= '9' && s->width < 1000)
		s->width = s->width * 10 + (*p++ - '0');
	if (*p >= '0' && *p <= '9')
		return false;
	int l = 0, h = 0;
	for (;; p++) {
		if (*p == 'l')
			l++;
		else if (*p == 'L' || *p == 'z' || *p == 'j' || *p == 't')
			l = 2;
		else if (*p == 'h')
			h++;
		else
			break;
	}
	s->conv_bits = h >= 2 ? 8 : h ? 16 : l ? 64 : 32;
	switch (*p) {
	case 'd':
	case 'i': s->conv = 'd'; break;
	case 'u':
	case 'x':
	case 'X': s->conv = *p; break;
	case 's':
		if (l || h || s->zero || s->alt || s->plus || s->space)
			return false;
		s->conv = 's';
		break;
	default: return false; /* %p and its kinds, %c, %o, precision, '*' */
	}
	*fmt = p + 1;
	return true;
}

/* Can step s's text end inside a UTF-8 sequence (a string, or literal text whose last byte
 * is not ASCII)? Numbers and padding are ASCII. */
static bool may_end_inside(const struct step *s)
{
	return s->kind == STEP_STR ||
	       (s->kind == STEP_TEXT && s->len && (unsigned char)s->text[s->len - 1] >= 0x80);
}

/* Can step s's text begin with a byte that carries one on (a string, or literal text whose
 * first byte is not ASCII)? */
static bool may_go_on(const struct step *s)
{
	return s->kind == STEP_STR ||
	       (s->kind == STEP_TEXT && s->len && (unsigned char)s->text[0] >= 0x80);
}

static struct printfmt *parse(struct tep_event *ev)
{
	const char *fmt = ev->print_fmt.format;
	if (!fmt)
		return NULL;
	size_t len = strlen(fmt);
	struct printfmt *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->text = malloc(len + 1);
	p->steps = calloc(len + 1, sizeof(*p->steps));
	if (!p->text || !p->steps)
		goto no;
	char *t = p->text;
	const struct tep_print_arg *arg = ev->print_fmt.args;
	for (const char *c = fmt; *c;) {
		if (*c != '%' || c[1] == '%') {
			/* Literal text up to the next conversion; escapes as C writes them. */
			struct step *s = &p->steps[p->n++];
			s->kind = STEP_TEXT;
			s->text = t;
			while (*c && (*c != '%' || c[1] == '%')) {
				if (*c == '%') {
					*t++ = '%';
					c += 2;
				} else if (*c == '\\') {
					switch (c[1]) {
					case 'n': *t++ = '\n'; break;
					case 't': *t++ = '\t'; break;
					case '"':
					case '\\': *t++ = c[1]; break;
					default: goto no;
					}
					c += 2;
				} else {
					*t++ = *c++;
				}
			}
			s->len = (size_t)(t - s->text);
			s->plain = true;
			for (size_t i = 0; i < s->len; i++)
				if (s->text[i] < ' ' || s->text[i] > '~' || s->text[i] == '\\')
					s->plain = false;
			continue;
		}
		c++;
		struct step *s = &p->steps[p->n++];
		if (!conversion(&c, s) || !arg || !take_arg(ev, arg, s))
			goto no;
		s->kind = s->conv == 's' ? STEP_STR : STEP_NUM;
		arg = arg->next;
	}
	if (arg) /* more arguments than conversions */
		goto no;
	for (int i = 0; i + 1 < p->n; i++)
		if (may_end_inside(&p->steps[i]) && may_go_on(&p->steps[i + 1]))
			p->whole = true;
	return p;
no:
	printfmt_free(p);
	return NULL;
}

static uint64_t extend(uint64_t v, int bits, bool is_signed)
{
	if (bits >= 64)
		return v;
	uint64_t mask = (1ULL << bits) - 1;
	v &= mask;
	if (is_signed && v >> (bits - 1))
		v |= ~mask;
	return v;
}

/* Pad n bytes of c at o; false when they do not fit. */
static bool pad(char *buf, size_t size, size_t *o, int n, char c)
{
	if (n <= 0)
		return true;
	if (*o + (size_t)n > size)
		return false;
	memset(buf + *o, c, (size_t)n);
	*o += (size_t)n;
	return true;
}

static bool put(char *buf, size_t size, size_t *o, const char *s, size_t n)
{
	if (*o + n > size)
		return false;
	memcpy(buf + *o, s, n);
	*o += n;
	return true;
}

static bool number(const struct step *s, uint64_t v, char *buf, size_t size, size_t *o)
{
	v = extend(v, s->cast_bits, s->cast_signed);
	bool neg = false;
	if (s->conv == 'd') {
		v = extend(v, s->conv_bits, true);
		if ((int64_t)v < 0) {
			neg = true;
			v = -v;
		}
	} else {
		v = extend(v, s->conv_bits, false);
	}
	char digits[24];
	int n = 0;
	if (s->conv == 'x' || s->conv == 'X') {
		const char *hex = s->conv == 'x' ? "0123456789abcdef" : "0123456789ABCDEF";
		do
			digits[sizeof(digits) - ++n] = hex[v & 15];
		while (v >>= 4);
	} else {
		do
			digits[sizeof(digits) - ++n] = (char)('0' + v % 10);
		while (v /= 10);
	}
	char pre[2];
	int npre = 0;
	if (s->conv == 'd' && (neg || s->plus || s->space))
		pre[npre++] = neg ? '-' : s->plus ? '+' : ' ';
	else if (s->alt && (s->conv == 'x' || s->conv == 'X') &&
		 !(n == 1 && digits[sizeof(digits) - 1] == '0'))
		pre[npre++] = '0', pre[npre++] = s->conv;
	int fill = s->width - n - npre;
	if (!s->left && !s->zero && !pad(buf, size, o, fill, ' '))
		return false;
	if (!put(buf, size, o, pre, (size_t)npre))
		return false;
	if (!s->left && s->zero && !pad(buf, size, o, fill, '0'))
		return false;
	if (!put(buf, size, o, digits + sizeof(digits) - n, (size_t)n))
		return false;
	return !s->left || pad(buf, size, o, fill, ' ');
}

static bool string(const struct step *s, const char *data, int rec_size, char *buf, size_t size,
		   size_t *o, bool escape)
{
	const char *str = data + s->offset;
	size_t max = (size_t)s->size;
	if (s->dynamic) {
		uint32_t loc;
		memcpy(&loc, data + s->offset, 4);
		uint32_t off = loc & 0xffff;
		if (s->relative)
			off += (uint32_t)(s->offset + s->size);
		max = loc >> 16;
		if (off + max > (uint32_t)rec_size) /* fits() said it does */
			return false;
		str = data + off;
	}
	size_t n = strnlen(str, max);
	int fill = s->width - (int)n;
	if (!s->left && !pad(buf, size, o, fill, ' '))
		return false;
	if (!escape) {
		if (!put(buf, size, o, str, n))
			return false;
	} else if (*o + 4 * n > size) { /* escaped, each byte at most \xNN */
		return false;
	} else {
		*o += out_text_line_buf(buf + *o, str, n);
	}
	return !s->left || pad(buf, size, o, fill, ' ');
}

/* The steps into buf; strings and literal text escaped, or (escape false) as they are. */
static int render(const struct printfmt *p, const struct tep_record *rec, char *buf, size_t size,
		  bool escape)
{
	const char *data = rec->data;
	size_t o = 0;
	for (int i = 0; i < p->n; i++) {
		const struct step *s = &p->steps[i];
		bool ok;
		if (s->kind == STEP_TEXT && (s->plain || !escape)) {
			ok = put(buf, size, &o, s->text, s->len);
		} else if (s->kind == STEP_TEXT) {
			ok = o + 4 * s->len <= size;
			if (ok)
				o += out_text_line_buf(buf + o, s->text, s->len);
		} else if (s->kind == STEP_STR) {
			ok = string(s, data, rec->size, buf, size, &o, escape);
		} else {
			uint64_t v = 0;
			memcpy(&v, data + s->offset,
			       (size_t)s->size); /* little-endian: the low bytes */
			ok = number(s, v, buf, size, &o);
		}
		if (!ok)
			return -1;
	}
	return (int)o;
}

int printfmt_render(const struct printfmt *p, const struct tep_record *rec, char *buf, size_t size)
{
	if (!p->whole)
		return render(p, rec, buf, size, true);
	/* As it is, then escaped whole: room for 4 bytes a byte. */
	char raw[8192];
	int n = render(p, rec, raw, size / 4 < sizeof(raw) ? size / 4 : sizeof(raw), false);
	return n < 0 ? -1 : (int)out_text_line_buf(buf, raw, (size_t)n);
}

/* --- the plan's trial against libtraceevent ------------------------------------------------ */

/* Values every numeric field takes in turn: the edges of each width and sign. */
static const uint64_t probes[] = {
	0,
	1,
	0x7f,
	0x80,
	0xff,
	0x7fff,
	0x8000,
	0xffff,
	0x7fffffff,
	0x80000000,
	0xffffffff,
	0x123456789abcdef0,
	0x7fffffffffffffff,
	0x8000000000000000,
	0xffffffffffffffff,
	1000000007,
};
#define NPROBES (sizeof(probes) / sizeof(probes[0]))
/* Strings the string fields take in turn: empty, plain, a space, a newline, bytes that are
 * not UTF-8. */
static const char *const strs[] = {"",
				   "a",
				   "ab c",
				   "x\ny",
				   "\xff\xfe\x80",
				   "0123456789abcdef",
				   "caf\xe2\x82",
				   "\xac!",
				   "\xc3\xa9\xe2\x82\xac"};
#define NSTRS (sizeof(strs) / sizeof(strs[0]))

/* A record of ev with probe k in every field; its strings after the fixed fields. */
static int probe_record(struct tep_event *ev, size_t k, char *data, int cap)
{
	memset(data, 0, (size_t)cap);
	int end = 0;
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next)
		if (f->offset + f->size > end)
			end = f->offset + f->size;
	for (struct tep_format_field *f = ev->format.common_fields; f; f = f->next)
		if (f->offset + f->size > end)
			end = f->offset + f->size;
	if (end + 64 > cap)
		return -1;
	struct tep_format_field *type = tep_find_common_field(ev, "common_type");
	if (!type || type->size != 2)
		return -1;
	/* The common fields take the probe's value too (a format may cast one). */
	for (struct tep_format_field *f = ev->format.common_fields; f; f = f->next)
		if (f != type && !(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) &&
		    (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8)) {
			uint64_t v = probes[k % NPROBES];
			memcpy(data + f->offset, &v, (size_t)f->size);
		}
	uint16_t id = (uint16_t)ev->id;
	memcpy(data + type->offset, &id, 2);
	/* Each field the next string: neighbours may split a character between them. */
	size_t j = k;
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next, j++) {
		const char *str = strs[j % NSTRS];
		size_t slen = strlen(str);
		if (f->flags & TEP_FIELD_IS_DYNAMIC) {
			if (f->size != 4 || end + (int)slen + 1 > cap)
				return -1;
			uint32_t off = (uint32_t)end;
			if (f->flags & TEP_FIELD_IS_RELATIVE)
				off -= (uint32_t)(f->offset + f->size);
			uint32_t loc = ((uint32_t)(slen + 1) << 16) | off;
			memcpy(data + f->offset, &loc, 4);
			memcpy(data + end, str, slen + 1);
			end += (int)slen + 1;
		} else if (f->flags & TEP_FIELD_IS_ARRAY) {
			if (f->size > 0)
				memcpy(data + f->offset, str,
				       slen < (size_t)f->size ? slen : (size_t)f->size - 1);
		} else if (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8) {
			uint64_t v = probes[k % NPROBES];
			memcpy(data + f->offset, &v, (size_t)f->size);
		}
	}
	return end;
}

struct printfmt *printfmt_compile(struct tep_handle *tep, struct tep_event *ev)
{
	struct printfmt *p = parse(ev);
	if (!p)
		return NULL;
	char data[4096], mine[4 * 4096], theirs[4 * 4096];
	struct trace_seq seq;
	trace_seq_init(&seq);
	bool same = true;
	for (size_t k = 0; same && k < NPROBES + NSTRS; k++) {
		int size = probe_record(ev, k, data, (int)sizeof(data));
		if (size < 0) {
			same = false;
			break;
		}
		struct tep_record rec = {.data = data, .size = size, .ts = 1};
		trace_seq_reset(&seq);
		tep_print_event(tep, &seq, &rec, "%s", TEP_PRINT_INFO);
		trace_seq_terminate(&seq);
		int n = printfmt_render(p, &rec, mine, sizeof(mine));
		size_t len =
			seq.len < sizeof(data) ? out_text_line_buf(theirs, seq.buffer, seq.len) : 0;
		same = n >= 0 && seq.len < sizeof(data) && (size_t)n == len &&
		       !memcmp(mine, theirs, len);
	}
	trace_seq_destroy(&seq);
	if (!same) {
		printfmt_free(p);
		return NULL;
	}
	return p;
}
