// SPDX-License-Identifier: GPL-2.0-only
#include "field.h"
#include "out.h"
#include "reader.h"

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

struct field_desc field_describe(struct tep_event *ev, struct tep_format_field *f)
{
	struct field_desc d = {.kind = FIELD_UNSIGNED, .elemsize = f->elementsize};
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
		if (d.elemsize <= 0 || d.elemsize > 8)
			d.elemsize = 1;
	} else if (addr >= 0 && addr != FIELD_SOCKADDR) {
		d.kind = (enum field_kind)addr; /* a __be32 shown with %pI4 */
	} else if (f->flags & TEP_FIELD_IS_POINTER) {
		d.kind = FIELD_POINTER;
	} else {
		d.kind = d.is_signed ? FIELD_SIGNED : FIELD_UNSIGNED;
	}
	d.port = port;
	return d;
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

static unsigned long long unsigned_at(const unsigned char *p, size_t size)
{
	switch (size) {
	case 1: return *p;
	case 2: {
		uint16_t v;
		memcpy(&v, p, 2);
		return v;
	}
	case 4: {
		uint32_t v;
		memcpy(&v, p, 4);
		return v;
	}
	case 8: {
		uint64_t v;
		memcpy(&v, p, 8);
		return v;
	}
	}
	return 0;
}

static long long signed_at(const unsigned char *p, size_t size)
{
	switch (size) {
	case 1: return (int8_t)*p;
	case 2: {
		int16_t v;
		memcpy(&v, p, 2);
		return v;
	}
	case 4: {
		int32_t v;
		memcpy(&v, p, 4);
		return v;
	}
	case 8: {
		int64_t v;
		memcpy(&v, p, 8);
		return v;
	}
	}
	return 0;
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
	case FIELD_SIGNED: snprintf(buf, size, "%lld", signed_at(p, len)); return true;
	case FIELD_UNSIGNED: snprintf(buf, size, "%llu", unsigned_at(p, len)); return true;
	case FIELD_POINTER:
		snprintf(buf, size, json ? "\"0x%llx\"" : "0x%llx", unsigned_at(p, len));
		return true;
	case FIELD_ARRAY:
	default: /* an address whose bytes do not fit its kind: its bytes */
		n += (size_t)snprintf(buf + n, size - n, "[");
		for (size_t i = 0; i + (size_t)d->elemsize <= len && n < size;
		     i += (size_t)d->elemsize)
			n += (size_t)(d->is_signed ?
					      snprintf(buf + n, size - n, "%s%lld", i ? "," : "",
						       signed_at(p + i, (size_t)d->elemsize)) :
					      snprintf(buf + n, size - n, "%s%llu", i ? "," : "",
						       unsigned_at(p + i, (size_t)d->elemsize)));
		if (n < size)
			snprintf(buf + n, size - n, "]");
		return true;
	}
}

void field_json(FILE *out, const struct field_desc *d, const void *data, size_t len)
{
	char buf[4096];
	if (d->kind == FIELD_STRING) {
		out_json_bytes(out, data, len);
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
