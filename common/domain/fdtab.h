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

/* An empty set of tables in t. Returns 0, or -1 when out of memory (errno set; nothing to
 * free). Frees: fdtab_free(t). */
int fdtab_init(struct fdtab *t);
/* Every table of t forgotten (their files put) and t's memory freed; t may be freed again. */
void fdtab_free(struct fdtab *t);

/* Descriptor fd of process tgid in t is now a new file (name, len bytes, copied; type): it
 * replaces what fd was; cloexec: marked close-on-exec. Returns the file (one reference is the
 * table's: valid until fd is closed or replaced or its table forgotten, unless the caller holds
 * it with fdtab_hold), or NULL when out of memory, or fd is negative or too large to be kept
 * (1 << 20 or more): then fd is unknown. */
struct fdtab_file *fdtab_open(struct fdtab *t, int tgid, int fd, const char *name, size_t len,
			      char type, bool cloexec);
/* In t's table of process tgid, newfd is now what oldfd is (dup, dup2, dup3, F_DUPFD), marked
 * close-on-exec when cloexec; oldfd unknown: newfd unknown too. */
void fdtab_dup(struct fdtab *t, int tgid, int oldfd, int newfd, bool cloexec);
/* Descriptor fd of process tgid in t closed: unknown from now on. */
void fdtab_close(struct fdtab *t, int tgid, int fd);
/* close_range(lo, hi) of process tgid in t, hi included: closed, or with cloexec only marked
 * close-on-exec. */
void fdtab_close_range(struct fdtab *t, int tgid, unsigned lo, unsigned hi, bool cloexec);
/* Descriptor fd of process tgid in t marked close-on-exec or not (cloexec). */
void fdtab_set_cloexec(struct fdtab *t, int tgid, int fd, bool cloexec);
/* An exec of process tgid in t: the descriptors marked close-on-exec are gone. */
void fdtab_exec(struct fdtab *t, int tgid);
/* A new process child of process parent in t: a copy of its parent's table (none when the
 * parent has none), its files its own (of its tgid, the same names, shared between its
 * descriptors as the parent's were). A table child had before (its process ID used again) is
 * forgotten first; a file that cannot be copied (out of memory) is unknown. */
void fdtab_fork(struct fdtab *t, int parent, int child);
/* The end of process tgid: its table in t forgotten. */
void fdtab_exit(struct fdtab *t, int tgid);
/* Every table of t forgotten (lost events). */
void fdtab_forget(struct fdtab *t);
/* What descriptor fd of process tgid is in t. Returns its file, owned by the table (valid
 * until fd is closed or replaced or its table forgotten, unless held with fdtab_hold), or NULL
 * when not known. */
struct fdtab_file *fdtab_get(struct fdtab *t, int tgid, int fd);

/* A reference of the caller's on f (not NULL): f stays valid until the caller's fdtab_put. */
void fdtab_hold(struct fdtab_file *f);
/* A reference on f released: the file is freed with the last. f NULL: nothing. */
void fdtab_put(struct fdtab_file *f);

/* The type of a file of mode mode (stat's st_mode). Returns R, S or O. */
char fdtab_type(unsigned mode);
/* Process tgid's descriptors into t from proc (a /proc, for the tests a copy): each fd/N's
 * link and fdinfo/N's close-on-exec flag; a link that cannot be read is left out, one whose
 * object cannot be looked at is of type '?'. Returns how many were entered, or -1 when
 * proc/tgid/fd cannot be opened (the process is not there, or not ours to read; errno set). */
int fdtab_read_proc(struct fdtab *t, const char *proc, int tgid);

#endif
