// SPDX-License-Identifier: GPL-2.0-only
#include "stream/field.h"
#include "base/out.h"
#include "stream/reader.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <ctype.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include <event-parse.h>

/* char[N], __data_loc char[], const char[]: text. Not unsigned char, u8, __u8. */
static bool char_type(const char *type)
{
	static const char *const skip[] = {"__data_loc ", "__rel_loc ", "const ", "volatile "};
	for (bool again = true; again;) {
		again = false;
		for (size_t i = 0; i < sizeof(skip) / sizeof(*skip); i++)
			if (!strncmp(type, skip[i], strlen(skip[i]))) {
				type += strlen(skip[i]);
				again = true;
			}
	}
	return !strncmp(type, "char", 4) && (type[4] == '[' || type[4] == ' ' || !type[4]);
}

static const char *arg_field(struct tep_print_arg *a)
{
	while (a && a->type == TEP_PRINT_TYPE) /* a cast around it */
		a = a->typecast.item;
	return a && a->type == TEP_PRINT_FIELD ? a->field.name : NULL;
}

/* The %p extension the print format uses for field name, or -1. */
static int address_kind(struct tep_event *ev, const char *name, bool *port)
{
	struct tep_print_arg *arg = ev->print_fmt.args;
	for (const char *p = ev->print_fmt.format; p && *p; p++) {
		if (*p != '%')
			continue;
		if (*++p == '%')
			continue;
		while (*p && strchr("-+ #0", *p))
			p++;
		if (*p == '*') { /* the width is an argument */
			arg = arg ? arg->next : NULL;
			p++;
		}
		while (isdigit((unsigned char)*p))
			p++;
		if (*p == '.' && *++p == '*') {
			arg = arg ? arg->next : NULL;
			p++;
		}
		while (isdigit((unsigned char)*p))
			p++;
		while (*p && strchr("hlLqjzZt", *p))
			p++;
		if (!*p)
			break;
		if (*p == 'p') {
			const char *ext = p + 1;
			size_t n = 0;
			while (isalnum((unsigned char)ext[n]))
				n++;
			p += n;
			const char *f = arg_field(arg);
			if (f && !strcmp(f, name) && n) {
				int kind = -1;
				if (!strncmp(ext, "I4", 2) || !strncmp(ext, "i4", 2))
					kind = FIELD_IPV4;
				else if (!strncmp(ext, "I6c", 3))
					kind = FIELD_IPV6C;
				else if (!strncmp(ext, "I6", 2) || !strncmp(ext, "i6", 2))
					kind = FIELD_IPV6;
				else if (!strncmp(ext, "IS", 2) || !strncmp(ext, "iS", 2)) {
					kind = FIELD_SOCKADDR;
					*port = memchr(ext + 2, 'p', n - 2) != NULL;
				} else if (ext[0] == 'M' || ext[0] == 'm')
					kind = FIELD_MAC;
				else if (ext[0] == 'U')
					kind = FIELD_UUID;
				return kind;
			}
		}
		arg = arg ? arg->next : NULL;
	}
	return -1;
}

/* The integer types of the kernel's formats whose width and sign are the same on every
 * machine (long: 8, never more than the field holds). */
static const struct int_type {
	const char *name;
	signed char width; /* negative: signed */
} int_types[] = {
	{"signed char", -1},
	{"short", -2},
	{"short int", -2},
	{"signed short", -2},
	{"int", -4},
	{"signed", -4},
	{"signed int", -4},
	{"long", -8},
	{"long int", -8},
	{"signed long", -8},
	{"long long", -8},
	{"long long int", -8},
	{"signed long long", -8},
	{"s8", -1},
	{"s16", -2},
	{"s32", -4},
	{"s64", -8},
	{"__s8", -1},
	{"__s16", -2},
	{"__s32", -4},
	{"__s64", -8},
	{"int8_t", -1},
	{"int16_t", -2},
	{"int32_t", -4},
	{"int64_t", -8},
	{"pid_t", -4},
	{"__kernel_pid_t", -4},
	{"ssize_t", -8},
	{"__kernel_ssize_t", -8},
	{"off_t", -8},
	{"__kernel_off_t", -8},
	{"loff_t", -8},
	{"__kernel_loff_t", -8},
	{"time_t", -8},
	{"time64_t", -8},
	{"ktime_t", -8},
	{"clockid_t", -4},
	{"__kernel_clockid_t", -4},
	{"timer_t", -4},
	{"__kernel_timer_t", -4},
	{"mqd_t", -4},
	{"__kernel_mqd_t", -4},
	{"key_t", -4},
	{"__kernel_key_t", -4},
	{"key_serial_t", -4},
	{"rwf_t", -4},
	{"__kernel_rwf_t", -4},
	{"unsigned char", 1},
	{"unsigned short", 2},
	{"unsigned short int", 2},
	{"unsigned", 4},
	{"unsigned int", 4},
	{"unsigned long", 8},
	{"unsigned long int", 8},
	{"unsigned long long", 8},
	{"unsigned long long int", 8},
	{"u8", 1},
	{"u16", 2},
	{"u32", 4},
	{"u64", 8},
	{"__u8", 1},
	{"__u16", 2},
	{"__u32", 4},
	{"__u64", 8},
	{"uint8_t", 1},
	{"uint16_t", 2},
	{"uint32_t", 4},
	{"uint64_t", 8},
	{"bool", 1},
	{"_Bool", 1},
	{"size_t", 8},
	{"__kernel_size_t", 8},
	{"uid_t", 4},
	{"gid_t", 4},
	{"qid_t", 4},
	{"umode_t", 2},
	{"mode_t", 4},
	{"aio_context_t", 8},
};

bool field_int_type(const char *type, int *width, bool *is_signed)
{
	while (!strncmp(type, "const ", 6) || !strncmp(type, "volatile ", 9))
		type += type[0] == 'c' ? 6 : 9;
	for (size_t i = 0; i < sizeof(int_types) / sizeof(*int_types); i++)
		if (!strcmp(type, int_types[i].name)) {
			*is_signed = int_types[i].width < 0;
			*width = *is_signed ? -int_types[i].width : int_types[i].width;
			return true;
		}
	return false;
}

struct field_desc field_describe(struct tep_event *ev, struct tep_format_field *f)
{
	struct field_desc d = {.kind = FIELD_UNSIGNED, .width = (int)f->elementsize};
	bool port = false;
	int addr = address_kind(ev, f->name, &port);
	d.is_signed = f->flags & TEP_FIELD_IS_SIGNED;
	if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) {
		if (char_type(f->type))
			d.kind = FIELD_STRING;
		else if (addr >= 0)
			d.kind = (enum field_kind)addr;
		else
			d.kind = FIELD_ARRAY;
		if (d.width <= 0 || d.width > 8)
			d.width = 1;
	} else if (addr >= 0 && addr != FIELD_SOCKADDR) {
		d.kind = (enum field_kind)addr; /* a __be32 shown with %pI4 */
	} else if (f->flags & TEP_FIELD_IS_POINTER) {
		d.kind = FIELD_POINTER;
	} else {
		int width;
		bool sign;
		d.width = f->size;
		if (field_int_type(f->type, &width, &sign)) {
			d.is_signed = sign;
			if (width < f->size)
				d.width = width;
		}
		d.kind = d.is_signed ? FIELD_SIGNED : FIELD_UNSIGNED;
	}
	d.port = port;
	return d;
}

/* The number held by the first width bytes in value order (0: all) of len bytes at p: a C
 * type's part of a wider slot is its low-order bytes. Read by reader_num on a record of just
 * those bytes, so it is bounds-checked like every other number. */
static long long number_at(const void *p, size_t len, int width, bool sign)
{
	int size = width > 0 && (size_t)width < len ? width : (int)len, off = 0;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	off = (int)len - size;
#endif
	struct tep_record rec = {.data = (void *)p, .size = (int)len};
	struct tep_format_field f = {
		.offset = off, .size = size, .flags = sign ? TEP_FIELD_IS_SIGNED : 0};
	return reader_num(&rec, &f);
}

long long field_num(const struct tep_record *rec, const struct tep_format_field *f,
		    const struct field_desc *d)
{
	size_t len;
	const void *p = field_data(rec, f, d, &len);
	return number_at(p, len, d->width, d->is_signed);
}

const void *field_data(const struct tep_record *rec, const struct tep_format_field *f,
		       const struct field_desc *d, size_t *len)
{
	if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) {
		const char *s = reader_str(rec, f, len);
		if (d->kind == FIELD_STRING)
			*len = strnlen(s, *len);
		return s;
	}
	if (!reader_fits(rec->size, f->offset, f->size)) {
		*len = 0;
		return "";
	}
	*len = (size_t)f->size;
	return (const char *)rec->data + f->offset;
}

/* An address as the kernel's %p extension prints it; false when the bytes do not fit. */
static bool address(char *buf, size_t size, const struct field_desc *d, const unsigned char *p,
		    size_t len)
{
	char a[INET6_ADDRSTRLEN];
	switch (d->kind) {
	case FIELD_IPV4:
		if (len < 4)
			return false;
		snprintf(buf, size, "%u.%u.%u.%u", p[0], p[1], p[2], p[3]);
		return true;
	case FIELD_IPV6:
		if (len < 16)
			return false;
		snprintf(buf, size,
			 "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x",
			 p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11],
			 p[12], p[13], p[14], p[15]);
		return true;
	case FIELD_IPV6C: return len >= 16 && inet_ntop(AF_INET6, p, buf, (socklen_t)size);
	case FIELD_SOCKADDR: {
		uint16_t family, port;
		if (len < 4)
			return false;
		memcpy(&family, p, 2);
		memcpy(&port, p + 2, 2);
		port = ntohs(port);
		if (family == AF_INET && len >= 8) {
			snprintf(a, sizeof(a), "%u.%u.%u.%u", p[4], p[5], p[6], p[7]);
			if (d->port)
				snprintf(buf, size, "%s:%u", a, port);
			else
				snprintf(buf, size, "%s", a);
			return true;
		}
		if (family == AF_INET6 && len >= 24 && inet_ntop(AF_INET6, p + 8, a, sizeof(a))) {
			if (d->port)
				snprintf(buf, size, "[%s]:%u", a, port);
			else
				snprintf(buf, size, "%s", a);
			return true;
		}
		return false;
	}
	case FIELD_MAC:
		if (len < 6)
			return false;
		snprintf(buf, size, "%02x:%02x:%02x:%02x:%02x:%02x", p[0], p[1], p[2], p[3], p[4],
			 p[5]);
		return true;
	case FIELD_UUID:
		if (len < 16)
			return false;
		snprintf(buf, size,
			 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
			 p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11],
			 p[12], p[13], p[14], p[15]);
		return true;
	default: return false;
	}
}

bool field_is_text(const struct field_desc *d)
{
	return d->kind != FIELD_SIGNED && d->kind != FIELD_UNSIGNED && d->kind != FIELD_ARRAY;
}

/* Numbers, pointers and arrays into buf; false for strings and addresses. */
static bool number(char *buf, size_t size, const struct field_desc *d, const unsigned char *p,
		   size_t len, bool json)
{
	size_t n = 0;
	switch (d->kind) {
	case FIELD_SIGNED:
		snprintf(buf, size, "%lld", number_at(p, len, d->width, true));
		return true;
	case FIELD_UNSIGNED:
		snprintf(buf, size, "%llu", (unsigned long long)number_at(p, len, d->width, false));
		return true;
	case FIELD_POINTER:
		snprintf(buf, size, json ? "\"0x%llx\"" : "0x%llx",
			 (unsigned long long)number_at(p, len, 0, false));
		return true;
	case FIELD_ARRAY:
	default: /* an address whose bytes do not fit its kind: its bytes */
		n += (size_t)snprintf(buf + n, size - n, "[");
		for (size_t i = 0, w = d->width > 0 ? (size_t)d->width : 1;
		     i + w <= len && n < size; i += w) {
			long long v = number_at(p + i, w, 0, d->is_signed);
			n += (size_t)(d->is_signed ? snprintf(buf + n, size - n, "%s%lld",
							      i ? "," : "", v) :
						     snprintf(buf + n, size - n, "%s%llu",
							      i ? "," : "", (unsigned long long)v));
		}
		if (n < size)
			snprintf(buf + n, size - n, "]");
		return true;
	}
}

int field_json_buf(char *dst, size_t size, const struct field_desc *d, const void *data, size_t len)
{
	if (d->kind == FIELD_STRING) {
		if (6 * len + 2 > size)
			return -1;
		return (int)out_json_bytes_buf(dst, data, len);
	}
	if (d->kind != FIELD_SIGNED && d->kind != FIELD_UNSIGNED && d->kind != FIELD_POINTER)
		return -1;
	/* Numbers, the most of a flood's fields, without snprintf. */
	char buf[32], *end = buf + sizeof(buf), *p;
	long long v = number_at(data, len, d->kind == FIELD_POINTER ? 0 : d->width,
				d->kind == FIELD_SIGNED);
	if (d->kind == FIELD_SIGNED) {
		p = out_dec(end, v);
	} else if (d->kind == FIELD_UNSIGNED) {
		p = out_udec(end, (unsigned long long)v);
	} else {
		*--end = '"';
		p = out_hex(end, (unsigned long long)v);
		*--p = 'x';
		*--p = '0';
		*--p = '"';
		end++;
	}
	size_t n = (size_t)(end - p);
	if (n > size)
		return -1;
	memcpy(dst, p, n);
	return (int)n;
}

void field_json(FILE *out, const struct field_desc *d, const void *data, size_t len)
{
	char buf[4096];
	int n;
	if (d->kind == FIELD_STRING) {
		out_json_bytes(out, data, len); /* of any length */
	} else if ((n = field_json_buf(buf, sizeof(buf), d, data, len)) >= 0) {
		fwrite(buf, 1, (size_t)n, out);
	} else if (d->kind >= FIELD_IPV4 && address(buf, sizeof(buf), d, data, len)) {
		fprintf(out, "\"%s\"", buf);
	} else {
		char *big = NULL;
		size_t need = 24 * (len + 1);
		char *b = need <= sizeof(buf) ? buf : (big = malloc(need));
		if (b && number(b, big ? need : sizeof(buf), d, data, len, true))
			fputs(b, out);
		else
			fputs("null", out);
		free(big);
	}
}

void field_text(FILE *out, const struct field_desc *d, const void *data, size_t len, int width)
{
	char buf[512];
	if (d->kind == FIELD_STRING) {
		out_text(out, data, len, width);
		return;
	}
	if (!(d->kind >= FIELD_IPV4 && address(buf, sizeof(buf), d, data, len)))
		number(buf, sizeof(buf), d, data, len, false);
	if (field_is_text(d))
		fprintf(out, "%-*s", width, buf);
	else
		fprintf(out, "%*s", width, buf);
}

const char *field_context(int flags)
{
	return flags & (TRACE_FLAG_HARDIRQ | FIELD_FLAG_NMI) ? "irq" :
	       flags & TRACE_FLAG_SOFTIRQ		     ? "softirq" :
							       "task";
}
