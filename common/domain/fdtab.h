/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fdtab: each process's descriptor table, kept from the event stream: a descriptor named by
 * the open that made it (its path as passed), copied by dup, dup2, dup3 and fcntl F_DUPFD,
 * gone at close, close_range, exec (those marked close-on-exec) and the process's end,
 * copied into a child at fork, read from /proc/PID/fd for what was open before the run.
 * What was never seen made is not in the table: a descriptor is named by what made it or
 * not at all (the caller says "unknown"), never by a name it had before a change the table
 * could not see. A loss of events forgets every table (fdtab_forget).
 *
 * The descriptors of one open share one struct fdtab_file (dup'd ones too), which counts
 * what is done through them: the tool's counters, kept while a descriptor or the tool holds
 * a reference.
 */
#ifndef FTT_FDTAB_H
#define FTT_FDTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a descriptor is: R a regular file, S a socket, O anything else (pipe, device,
 * directory...), '?' not known (the path was opened and the object gone before it could be
 * looked at). */
struct fdtab_file {
	unsigned refs;
	int tgid;
	char type;
	size_t len;
	uint64_t reads, writes, rbytes, wbytes; /* the tool's */
	bool listed;				/* the tool's: in its list of this interval */
	bool unnamed;  /* a stand-in for a descriptor not seen made: its name says so */
	char comm[16]; /* the tool's: the name of the process that last used it */
	char name[];   /* len bytes, then a NUL */
};

struct fdtab_proc;

struct fdtab {
	struct fdtab_proc **buckets;
	size_t nbuckets, procs;
};

int fdtab_init(struct fdtab *t);
void fdtab_free(struct fdtab *t);

/* Descriptor fd of process tgid is now a new file (name, len bytes; type): it replaces what
 * fd was. Returns the file (one reference is the table's), NULL when out of memory. */
struct fdtab_file *fdtab_open(struct fdtab *t, int tgid, int fd, const char *name, size_t len,
			      char type, bool cloexec);
/* newfd is now what oldfd is (dup, dup2, dup3, F_DUPFD); oldfd unknown: newfd unknown too. */
void fdtab_dup(struct fdtab *t, int tgid, int oldfd, int newfd, bool cloexec);
void fdtab_close(struct fdtab *t, int tgid, int fd);
/* close_range(lo, hi): closed, or with cloexec only marked close-on-exec. */
void fdtab_close_range(struct fdtab *t, int tgid, unsigned lo, unsigned hi, bool cloexec);
void fdtab_set_cloexec(struct fdtab *t, int tgid, int fd, bool cloexec);
/* An exec: the descriptors marked close-on-exec are gone. */
void fdtab_exec(struct fdtab *t, int tgid);
/* A new process: a copy of its parent's table, its files its own (of its tgid, the same names,
 * shared between its descriptors as the parent's were). */
void fdtab_fork(struct fdtab *t, int parent, int child);
void fdtab_exit(struct fdtab *t, int tgid);
/* Every table forgotten (lost events). */
void fdtab_forget(struct fdtab *t);
/* What fd of tgid is, or NULL when not known. */
struct fdtab_file *fdtab_get(struct fdtab *t, int tgid, int fd);

/* A reference of the caller's on f, and its release (the file is freed with the last). */
void fdtab_hold(struct fdtab_file *f);
void fdtab_put(struct fdtab_file *f);

/* The type of a file of mode st_mode (stat's): R, S or O. */
char fdtab_type(unsigned mode);
/* Process tgid's descriptors from proc (a /proc, for the tests a copy): each fd/N's link and
 * fdinfo/N's close-on-exec flag. Returns how many, -1 when the process is not there. */
int fdtab_read_proc(struct fdtab *t, const char *proc, int tgid);

#endif
