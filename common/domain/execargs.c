// SPDX-License-Identifier: GPL-2.0-only
/*
 * An exec's command line put back together (execargs.h).
 */
#include "domain/execargs.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/out.h"

const char *const execargs_from_names[] = {"none", "kprobe", "eprobe", "uprobe", "loader", "proc"};

void execargs_clear(struct execargs *a)
{
	memset(a, 0, offsetof(struct execargs, buf));
}

void execargs_copy(struct execargs *to, const struct execargs *from)
{
	memcpy(to, from, offsetof(struct execargs, buf) + from->len);
}

void execargs_add(struct execargs *a, const char *s, size_t n, uint32_t size)
{
	if (a->n == EXECARGS_MAX)
		return;
	if (a->len >= sizeof(a->buf)) { /* no room even for its NUL: the list is cut here */
		a->cut = true;
		return;
	}
	size_t room = sizeof(a->buf) - a->len - 1;
	if (n > room)
		n = room;
	memcpy(a->buf + a->len, s, n);
	a->buf[a->len + n] = 0;
	a->len += (unsigned short)(n + 1);
	a->size[a->n++] = size;
}

const char *execargs_next(const struct execargs *a, size_t *o, size_t *held)
{
	const char *s = a->buf + *o;
	*held = strlen(s);
	*o += *held + 1;
	return s;
}

static bool arg_cut(const struct execargs *a, int i, size_t held)
{
	return a->size[i] != held;
}

bool execargs_whole(const struct execargs *a)
{
	size_t o = 0, held;
	for (int i = 0; i < a->n; i++) {
		execargs_next(a, &o, &held);
		if (arg_cut(a, i, held))
			return false;
	}
	return a->from != EXECARGS_NONE;
}

bool execargs_any_cut(const struct execargs *a)
{
	return a->from != EXECARGS_NONE && (a->cut || !execargs_whole(a));
}

/* How many pointers before the first NULL, at most max; *cut when there is one more. */
static int count_ptrs(const uint64_t *ptr, int max, bool *cut)
{
	int n = max;
	for (int i = 0; i <= max; i++)
		if (!ptr[i]) {
			n = i;
			break;
		}
	*cut = n == max && ptr[max];
	return n;
}

/*
 * argc (the loader) or the pointers say how many there are. A string the kernel could not
 * read makes the record useless (then /proc): an eprobe that cannot read user memory
 * (Debian's 6.1 and 6.12), a page not in memory. A uprobe's record whose last string ($comm,
 * always readable) is missing had a string of 4 KB or more: the last string held before it
 * is a prefix, the ones after it are lost (held empty, cut).
 */
bool execargs_from_record(struct execargs *a, const struct execargs_record *r, int max)
{
	int n = max;
	execargs_clear(a);
	if (max > EXECARGS_MAX)
		max = n = EXECARGS_MAX;
	if (r->has_argc) {
		if (r->argc < n)
			n = r->argc < 0 ? 0 : (int)r->argc;
		a->cut = r->argc > max;
	} else {
		bool cut;
		n = count_ptrs(r->ptr, max, &cut);
		a->cut = cut;
	}
	bool kernel = r->from == EXECARGS_KPROBE || r->from == EXECARGS_EPROBE;
	int last = -1; /* the last string slot holding something (beyond n too: the loader's) */
	for (int i = 0; i < max; i++)
		if (r->str[i] && r->len[i])
			last = i;
	bool stolen = r->has_end && !r->end_len;
	for (int i = 0; i < n; i++) {
		bool lost = stolen && i > last, cut = stolen && i == last;
		const char *s = r->str[i];
		size_t len = s ? r->len[i] : 0;
		/* A uprobe records "" with its NUL and a fault with nothing. A kprobe or eprobe
		 * records "" with nothing (its copy does not count the NUL of an empty string)
		 * and, since Linux 6.4, a fault as the text "(fault)". */
		if (!lost && (!s || (!len && !kernel) ||
			      (kernel && len >= 7 && !strncmp(s, "(fault)", len))))
			return false;
		size_t held = lost ? 0 : len ? strnlen(s, len) : 0;
		/* A uprobe's string without its NUL: read in pieces that it filled (before Linux
		 * 6.12, strpieces.h), longer than held. */
		cut |= !kernel && !lost && len && held == len;
		execargs_add(a, lost ? "" : s, held,
			     lost || cut ? EXECARGS_SIZE_UNKNOWN : (uint32_t)held);
	}
	/* argv[0] read as "" from every exec: an eprobe that reads nothing (6.1). */
	if (r->from == EXECARGS_EPROBE && n && !a->buf[0])
		return false;
	a->from = (unsigned char)r->from;
	return true;
}

void execargs_count(struct execargs *a, const uint64_t *ptr, int max, enum execargs_from from)
{
	bool cut;
	execargs_clear(a);
	if (max > EXECARGS_MAX)
		max = EXECARGS_MAX;
	int n = count_ptrs(ptr, max, &cut);
	for (int i = 0; i < n; i++)
		execargs_add(a, "", 0, EXECARGS_SIZE_UNKNOWN);
	a->cut = cut;
	a->from = (unsigned char)from;
}

/* Each argument's length is the distance to the next one's start, the last one's to
 * envp[0]'s (unknown without an environment). */
void execargs_image_from(struct execargs_image *im, long long argc, const uint64_t *slot, int max)
{
	if (max > EXECARGS_MAX)
		max = EXECARGS_MAX;
	int nslots = max + 2;
	memset(im, 0, sizeof(*im));
	if (argc < 0 || argc > EXECARGS_MAX_LEN)
		return;
	im->known = true;
	im->argc = (int)argc;
	for (int i = 0; i < im->argc && i < max; i++) {
		uint64_t at = slot[i + 1], next = 0;
		if (i + 1 < im->argc)
			next = slot[i + 2];
		else if (im->argc + 2 <= nslots)
			next = slot[im->argc + 2];
		if (!at || next <= at || next - at - 1 > EXECARGS_MAX_LEN)
			break;
		im->size[i] = (uint32_t)(next - at - 1);
		im->nsize = i + 1;
	}
}

bool execargs_sizes_from(struct execargs *a, const struct execargs_image *im)
{
	if (!im->known || a->from == EXECARGS_NONE ||
	    (a->cut ? im->argc <= a->n : im->argc != a->n))
		return false;
	size_t o = 0, held;
	for (int i = 0; i < a->n && i < im->nsize; i++) {
		execargs_next(a, &o, &held);
		if (arg_cut(a, i, held) ? held > im->size[i] : held != im->size[i])
			return false;
	}
	for (int i = 0; i < a->n && i < im->nsize; i++)
		a->size[i] = im->size[i];
	return true;
}

void execargs_from_image(struct execargs *a, const struct execargs_image *im, int max,
			 enum execargs_from from)
{
	execargs_clear(a);
	for (int i = 0; i < im->argc && i < max; i++)
		execargs_add(a, "", 0, i < im->nsize ? im->size[i] : EXECARGS_SIZE_UNKNOWN);
	a->cut = im->argc > max;
	a->from = (unsigned char)from;
}

void execargs_from_cmdline(struct execargs *a, int fd, int max)
{
	char buf[65536], arg[EXECARGS_BYTES];
	size_t held = 0, size = 0;
	ssize_t n;
	bool any = false;
	execargs_clear(a);
	if (max > EXECARGS_MAX)
		max = EXECARGS_MAX;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		any = true;
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i]) {
				if (held < sizeof(arg))
					arg[held++] = buf[i];
				size++;
				continue;
			}
			if (a->n == max) {
				a->cut = true;
				break;
			}
			execargs_add(a, arg, held,
				     size > UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)size);
			held = size = 0;
		}
		if (a->cut)
			break;
	}
	if (!any)
		return;	     /* gone, or a kernel thread */
	if (size && !a->cut) /* a last argument without its NUL (a program that rewrote it) */
		execargs_add(a, arg, held, size > UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)size);
	a->from = EXECARGS_PROC;
}

/* The last resort: the process's command line as it is now (late: it may have changed, or
 * be another program's after a second exec). */
void execargs_from_proc(struct execargs *a, int pid, int max)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		execargs_clear(a);
		return;
	}
	execargs_from_cmdline(a, fd, max);
	close(fd);
}

void execargs_best(struct execargs *a, struct execargs *loader, const struct execargs *fallback,
		   const struct execargs_image *im, int max)
{
	execargs_sizes_from(a, im);
	execargs_sizes_from(loader, im);
	if (execargs_whole(a))
		return;
	if (execargs_whole(loader))
		execargs_copy(a, loader);
	else if (a->from != EXECARGS_NONE)
		; /* the arguments as passed, what of them was read */
	else if (loader->from != EXECARGS_NONE)
		execargs_copy(a, loader);
	else if (fallback->from != EXECARGS_NONE)
		execargs_copy(a, fallback);
	else if (im->known)
		execargs_from_image(a, im, max, EXECARGS_LOADER);
}

void execargs_text(FILE *f, const struct execargs *a, const char *filename, bool quote)
{
	size_t o = 0, held;
	if (a->from == EXECARGS_NONE) {
		/* Not read: the file the kernel ran, when it ran one. */
		if (filename[0]) {
			out_text_arg(f, filename, strlen(filename), quote);
			putc(' ', f);
		}
		fputs("[arguments not read]", f);
		return;
	}
	for (int i = 0; i < a->n; i++) {
		const char *s = execargs_next(a, &o, &held);
		if (i)
			putc(' ', f);
		out_text_arg(f, s, held, quote);
		if (a->size[i] == EXECARGS_SIZE_UNKNOWN)
			fputs(" [cut]", f);
		else if (arg_cut(a, i, held))
			fprintf(f, " [cut: %u byte%s]", a->size[i], a->size[i] == 1 ? "" : "s");
	}
	if (a->cut)
		fputs(" [...]", f);
	if (a->from == EXECARGS_PROC)
		fputs(" [late]", f);
}

void execargs_json(FILE *f, const struct execargs *a)
{
	size_t o = 0, held;
	if (a->from == EXECARGS_NONE) {
		fputs("null", f);
		return;
	}
	putc('[', f);
	for (int i = 0; i < a->n; i++) {
		const char *s = execargs_next(a, &o, &held);
		if (i)
			putc(',', f);
		out_json_str(f, s, held);
	}
	putc(']', f);
}

void execargs_json_sizes(FILE *f, const struct execargs *a)
{
	if (a->from == EXECARGS_NONE) {
		fputs("null", f);
		return;
	}
	putc('[', f);
	for (int i = 0; i < a->n; i++)
		fprintf(f, a->size[i] == EXECARGS_SIZE_UNKNOWN ? "%snull" : "%s%u", i ? "," : "",
			a->size[i]);
	putc(']', f);
}
