// SPDX-License-Identifier: GPL-2.0-only
/*
 * fdtab: descriptor tables per process (fdtab.h). A hash of processes, each an array indexed
 * by descriptor (descriptors are small: the kernel gives the lowest free one).
 */
#include "domain/fdtab.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct fdtab_slot {
	struct fdtab_file *f;
	bool cloexec;
};

struct fdtab_proc {
	struct fdtab_proc *next;
	int tgid;
	unsigned n; /* slots */
	struct fdtab_slot *fd;
};

/* Descriptors above this are not kept (a table of that many slots would be megabytes): the
 * kernel's default limit is 1024, and its hard one 1048576. */
#define FDTAB_MAX_FD (1U << 20)

int fdtab_init(struct fdtab *t)
{
	t->nbuckets = 1024;
	t->procs = 0;
	t->buckets = calloc(t->nbuckets, sizeof(*t->buckets));
	return t->buckets ? 0 : -1;
}

void fdtab_hold(struct fdtab_file *f)
{
	f->refs++;
}

void fdtab_put(struct fdtab_file *f)
{
	if (f && !--f->refs)
		free(f);
}

static struct fdtab_proc **find(struct fdtab *t, int tgid)
{
	struct fdtab_proc **p = &t->buckets[(unsigned)tgid % t->nbuckets];
	while (*p && (*p)->tgid != tgid)
		p = &(*p)->next;
	return p;
}

static struct fdtab_proc *proc(struct fdtab *t, int tgid, bool make)
{
	struct fdtab_proc **p = find(t, tgid);
	if (*p || !make)
		return *p;
	if (!(*p = calloc(1, sizeof(**p))))
		return NULL;
	(*p)->tgid = tgid;
	t->procs++;
	return *p;
}

static void drop(struct fdtab *t, struct fdtab_proc **p)
{
	struct fdtab_proc *q = *p;
	for (unsigned i = 0; i < q->n; i++)
		fdtab_put(q->fd[i].f);
	free(q->fd);
	*p = q->next;
	free(q);
	t->procs--;
}

/* The slot of fd, grown to hold it; NULL when out of memory or too large. */
static struct fdtab_slot *slot(struct fdtab_proc *p, unsigned fd)
{
	if (fd >= FDTAB_MAX_FD)
		return NULL;
	if (fd >= p->n) {
		unsigned n = p->n ? p->n : 64;
		while (n <= fd)
			n *= 2;
		struct fdtab_slot *more = realloc(p->fd, n * sizeof(*more));
		if (!more)
			return NULL;
		memset(more + p->n, 0, (n - p->n) * sizeof(*more));
		p->fd = more;
		p->n = n;
	}
	return &p->fd[fd];
}

static void set(struct fdtab_slot *s, struct fdtab_file *f, bool cloexec)
{
	if (f)
		fdtab_hold(f);
	fdtab_put(s->f);
	s->f = f;
	s->cloexec = cloexec;
}

struct fdtab_file *fdtab_open(struct fdtab *t, int tgid, int fd, const char *name, size_t len,
			      char type, bool cloexec)
{
	struct fdtab_proc *p = proc(t, tgid, true);
	struct fdtab_slot *s = p && fd >= 0 ? slot(p, (unsigned)fd) : NULL;
	struct fdtab_file *f = s ? calloc(1, sizeof(*f) + len + 1) : NULL;
	if (!f) {
		/* not named: better unknown than the name it had */
		if (s)
			set(s, NULL, false);
		return NULL;
	}
	f->tgid = tgid;
	f->type = type;
	f->len = len;
	memcpy(f->name, name, len);
	set(s, f, cloexec);
	return f;
}

struct fdtab_file *fdtab_get(struct fdtab *t, int tgid, int fd)
{
	struct fdtab_proc *p = proc(t, tgid, false);
	return p && fd >= 0 && (unsigned)fd < p->n ? p->fd[fd].f : NULL;
}

void fdtab_dup(struct fdtab *t, int tgid, int oldfd, int newfd, bool cloexec)
{
	struct fdtab_proc *p = proc(t, tgid, true);
	struct fdtab_file *f = fdtab_get(t, tgid, oldfd);
	struct fdtab_slot *s = p && newfd >= 0 ? slot(p, (unsigned)newfd) : NULL;
	if (s)
		set(s, f, cloexec);
}

void fdtab_close(struct fdtab *t, int tgid, int fd)
{
	struct fdtab_proc *p = proc(t, tgid, false);
	if (p && fd >= 0 && (unsigned)fd < p->n)
		set(&p->fd[fd], NULL, false);
}

void fdtab_close_range(struct fdtab *t, int tgid, unsigned lo, unsigned hi, bool cloexec)
{
	struct fdtab_proc *p = proc(t, tgid, false);
	for (unsigned i = lo; p && i < p->n && i <= hi; i++) {
		if (cloexec)
			p->fd[i].cloexec = true;
		else
			set(&p->fd[i], NULL, false);
	}
}

void fdtab_set_cloexec(struct fdtab *t, int tgid, int fd, bool cloexec)
{
	struct fdtab_proc *p = proc(t, tgid, false);
	if (p && fd >= 0 && (unsigned)fd < p->n)
		p->fd[fd].cloexec = cloexec;
}

void fdtab_exec(struct fdtab *t, int tgid)
{
	struct fdtab_proc *p = proc(t, tgid, false);
	for (unsigned i = 0; p && i < p->n; i++)
		if (p->fd[i].cloexec)
			set(&p->fd[i], NULL, false);
}

void fdtab_fork(struct fdtab *t, int parent, int child)
{
	struct fdtab_proc **c = find(t, child);
	if (*c)
		drop(t, c); /* a process ID used again */
	struct fdtab_proc *p = proc(t, parent, false), *q;
	if (!p || !(q = proc(t, child, true)))
		return;
	/* Files of the child's own (its reads and writes are its own rows), shared between its
	 * descriptors as the parent's were (a dup'd pair stays one file). */
	for (unsigned i = 0; i < p->n; i++) {
		struct fdtab_file *f = p->fd[i].f, *copy = NULL;
		struct fdtab_slot *s;
		if (!f || !(s = slot(q, i)))
			continue;
		for (unsigned j = 0; j < i && !copy && f->refs > 1; j++)
			if (p->fd[j].f == f)
				copy = q->fd[j].f;
		if (!copy && (copy = calloc(1, sizeof(*copy) + f->len + 1))) {
			copy->tgid = child;
			copy->type = f->type;
			copy->unnamed = f->unnamed;
			copy->len = f->len;
			memcpy(copy->name, f->name, f->len);
			set(s, copy, p->fd[i].cloexec);
			continue;
		}
		set(s, copy, p->fd[i].cloexec);
	}
}

void fdtab_exit(struct fdtab *t, int tgid)
{
	struct fdtab_proc **p = find(t, tgid);
	if (*p)
		drop(t, p);
}

void fdtab_forget(struct fdtab *t)
{
	for (size_t b = 0; b < t->nbuckets; b++)
		while (t->buckets[b])
			drop(t, &t->buckets[b]);
}

void fdtab_free(struct fdtab *t)
{
	if (!t->buckets)
		return;
	fdtab_forget(t);
	free(t->buckets);
	t->buckets = NULL;
}

char fdtab_type(unsigned mode)
{
	if (S_ISREG(mode))
		return 'R';
	return S_ISSOCK(mode) ? 'S' : 'O';
}

int fdtab_read_proc(struct fdtab *t, const char *procdir, int tgid)
{
	char dir[PATH_MAX], path[PATH_MAX + 64], link[PATH_MAX], line[256];
	snprintf(dir, sizeof(dir), "%s/%d/fd", procdir, tgid);
	DIR *d = opendir(dir);
	int n = 0;
	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d));) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);
		if (*end || end == e->d_name || fd < 0 || fd > INT_MAX)
			continue;
		snprintf(path, sizeof(path), "%s/%ld", dir, fd);
		ssize_t len = readlink(path, link, sizeof(link));
		struct stat st;
		if (len < 0 || (size_t)len == sizeof(link))
			continue;
		char type = stat(path, &st) ? '?' : fdtab_type(st.st_mode);
		/* a socket's link is "socket:[inode]" */
		if (len > 7 && !memcmp(link, "socket:", 7))
			type = 'S';
		bool cloexec = false;
		snprintf(path, sizeof(path), "%s/%d/fdinfo/%ld", procdir, tgid, fd);
		FILE *f = fopen(path, "re");
		unsigned long flags;
		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "flags: %lo", &flags) == 1)
				cloexec = flags & O_CLOEXEC;
		if (f)
			fclose(f);
		if (fdtab_open(t, tgid, (int)fd, link, (size_t)len, type, cloexec))
			n++;
	}
	closedir(d);
	return n;
}
