/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fdtrack: fdtab.h's tables kept from a run's events, for the tools that name the descriptor
 * of a read or write (filetop, fileslower): the opens with their path (open, openat,
 * openat2, creat: the path read by sysarg.h's ladder), dup, dup2, dup3, fcntl F_DUPFD and
 * F_SETFD (joined per thread, syspair.h), close and close_range at their entry, a new process
 * (task:task_newtask: a copy of its parent's table; CLONE_FILES without CLONE_THREAD makes
 * both unknowable), exec (close-on-exec), a process's end, and /proc/PID/fd for what was open
 * at the start. A loss of events forgets every table: a descriptor is named by what made it
 * or shown as not seen made, never by a name it may no longer have.
 *
 * The type of an opened file is looked at when its open's exit is read (late_type): trusted
 * only while the descriptor still leads to a name ending with the open's path; else what an
 * absolute path leads to then; else '?'.
 */
#ifndef FTT_FDTRACK_H
#define FTT_FDTRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/spec.h"
#include "domain/fdtab.h"
#include "domain/sysarg.h"
#include "join/syspair.h"

struct tool_run;
struct tep_event;
struct tep_format_field;

#define FDTRACK_CALLS 6 /* dup, dup2, dup3, fcntl, close, close_range */

/* The read and write family the tools name descriptors for (fdtrack_rw): read, pread64,
 * readv, preadv, preadv2 and their writes. */
#define FDTRACK_RW_CALLS 10
extern const struct fdtrack_rw_call {
	const char *name;
	bool write;
} fdtrack_rw_calls[FDTRACK_RW_CALLS];
/* A read or write returned: call's which indexes fdtrack_rw_calls, its ts is the entry's;
 * fd the descriptor it was given. */
typedef void (*fdtrack_rw_fn)(const struct tep_record *exit, int tid, long long ret,
			      const struct syspair_call *call, int fd, void *ctx);

struct fdtrack {
	struct fdtab tab;
	struct sysarg sa;    /* the opens; .via may be set before fdtrack_setup (--via) */
	struct syspair join; /* the dups and fcntl */
	struct fdtrack_ev {
		struct fdtrack *ft;
		int kind;
		struct tep_event *enter, *exit;
		struct tep_format_field *f[3], *ret;
	} ev[FDTRACK_CALLS];
	struct tep_event *newtask, *exec, *exit;
	struct tep_format_field *newtask_pid, *newtask_flags, *exec_pid, *exit_pid, *exit_dead;
	/* fdtrack_rw: the read and write family joined per thread, each return to rw_done */
	struct syspair rw;
	struct fdtrack_rw_ev {
		struct fdtrack *ft;
		int kind;
		struct tep_event *enter, *exit;
		struct tep_format_field *fd, *ret;
	} rwev[FDTRACK_RW_CALLS];
	fdtrack_rw_fn rw_done;
	void *rw_ctx;
	uint64_t unnamed; /* descriptors used that were not seen made (fdtrack_file's stand-ins) */
	struct tool_run *t;
	const char *tool;
};

/* A struct fdtrack's start: paths by the best rung unless the tool's --via says. */
#define FDTRACK_INIT SPEC(.sa.via = USTR_BEST)

/* In prepare(): the events' formats loaded, ft's tables made (t: the tool's run). A kernel
 * without what it needs is said on stderr, prefixed with tool. Returns 0, or -1 when the
 * kernel lacks what it needs (said) or out of memory (not said). Frees: fdtrack_free(ft). */
int fdtrack_prepare(struct fdtrack *ft, struct tool_run *t, const char *tool);
/* After fdtrack_prepare: the read and write family joined too in ft (traced by
 * fdtrack_setup), each return given to done (ctx: handed to done). A kernel without their
 * tracepoints (read's are looked at) is said on stderr; a call of the family without its own
 * is left out. Returns 0, or -1 when the kernel has not read's (said) or out of memory (not
 * said). */
int fdtrack_rw(struct fdtrack *ft, fdtrack_rw_fn done, void *ctx);
/* In setup(): ft's events traced, the reader's losses followed, /proc read (-p's process, or
 * every process but this one); t: the tool's run. Returns a TOOL_ status (TOOL_OK when set
 * up); ft->sa.what says how paths are read. */
enum tool_code fdtrack_setup(struct fdtrack *ft, struct tool_run *t);

/* The process of thread tid, as the task names of ft's run know it. Returns its ID, or tid
 * itself when not known. */
int fdtrack_tgid(struct fdtrack *ft, int tid);
/* What descriptor fd of process tgid is in ft's tables; one not seen made gets a stand-in
 * named "[fd N: not seen opened]" (unnamed, type '?', counted in ft->unnamed), kept until the
 * descriptor is closed or made again (close-on-exec: an exec forgets it too). Returns the
 * file, owned by the table (valid until the descriptor is closed or made again or its table
 * forgotten, unless held with fdtab_hold), or NULL when out of memory or fd is negative or
 * 1 << 20 or more (counted in ft->unnamed all the same). */
struct fdtab_file *fdtrack_file(struct fdtrack *ft, int tgid, int fd);

/* A finished dup, dup2, dup3 or fcntl (its entry's arguments a[], its result ret), applied to
 * tgid's table in ft: what the event handlers do, for the tests. which: 0 dup, 1 dup2, 2 dup3,
 * 3 fcntl (F_DUPFD, F_DUPFD_CLOEXEC and F_SETFD; other commands change nothing). A failed
 * call (ret negative) changes nothing. */
void fdtrack_apply(struct fdtrack *ft, int tgid, int which, const long long a[3], long long ret);

/* The type of what descriptor fd of process tgid became by an open of path (len bytes), looked
 * at now through proc (a /proc; the tests' copy). Returns R, S, O or '?' (see above). */
char fdtrack_late_type(const char *proc, int tgid, int fd, const char *path, size_t len);

/* At the end, on stderr: how many opens' paths ft did not read, and why (nothing when none). */
void fdtrack_report(const struct fdtrack *ft);
/* What ft holds freed: its tables, its joins and its opens' (sysarg_free). An ft as
 * FDTRACK_INIT makes it, never prepared, may be freed. */
void fdtrack_free(struct fdtrack *ft);

#endif
