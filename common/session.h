/* session: one private ftrace instance per run, torn down on every exit path. */
#ifndef FTT_SESSION_H
#define FTT_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "probe.h"

struct tep_handle;
struct tep_event;
struct tep_format_field;
struct tracefs_instance;
struct reader;

/* Instances are named PREFIX<tool>-<pid> so a later run can find those of dead processes. */
#define SESSION_PREFIX "ftrace-tools-"


/* Set by SIGINT, SIGTERM, SIGHUP and SIGPIPE; the main loop polls it. */
extern volatile sig_atomic_t session_stop;

struct session {
	const char *tool;
	char name[64];
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	struct reader *reader; /* closed before the instance is removed */
	struct probe probes[PROBE_MAX]; /* removed after the instance */
	int nprobes;
	bool mono;             /* trace clock is CLOCK_MONOTONIC */
	bool notrace_self;     /* set_event_notrace_pid excludes this process */
	/* Set before session_start by tools that need no time order across CPUs (counting):
	 * switching the trace clock resets the buffers, ~30 ms of start-up. */
	bool keep_clock;
};

/*
 * Find tracefs (mounting it if needed) and load the formats of the given events: each entry
 * is a system ("block": all its events) or one event ("syscalls:sys_enter_openat").
 */
int session_init(struct session *s, const char *tool, const char *const *systems);

/* Kernel symbols and printk formats, for printing events whose format prints addresses as
 * symbols (%ps) or strings by pointer; megabytes, so only when such an event is printed. */
void session_load_symbols(struct session *s);

/* Look up an event or a field; when required and missing, say what is missing and why. */
struct tep_event *session_event(struct session *s, const char *sys, const char *name,
				bool required);
struct tep_format_field *session_field(struct session *s, struct tep_event *ev,
				       const char *field, bool required);

/*
 * Install the stop signals, remove instances of dead ftrace-tools runs, create this run's
 * instance with a cross-CPU clock and the given per-CPU buffer size (0: kernel default).
 */
int session_start(struct session *s, size_t buffer_kb);

/*
 * A per-CPU buffer size for tools that may see floods (tpoint, kprobe, uprobe): a burst the
 * reader cannot follow at once waits in the kernel instead of being lost. 64 MB in all,
 * spread over the CPUs, between 1.4 MB (the kernel's default) and 8 MB per CPU.
 */
size_t session_flood_buffer_kb(void);

/* Enable an event in this run's instance, with an optional in-kernel filter. */
int session_enable(struct session *s, struct tep_event *ev, const char *filter);

/*
 * Trace only process pid (all its threads, and those it creates later: event-fork) or only
 * thread tid; neither: everything. Says what failed.
 */
int session_set_pids(struct session *s, pid_t pid, pid_t tid);

/*
 * For tools whose events all happen in process context (syscalls, uprobes): exclude this
 * process with set_event_notrace_pid (5.8+), before its events are written, instead of by a
 * filter (which the kernel applies after writing each event to a temporary buffer). Not for
 * other events: it would also drop interrupts that land on this process.
 */
int session_exclude_self(struct session *s);

/*
 * The filter for every event of a tool: the tool itself excluded (unless set_event_notrace_pid
 * does it), then the user's filter and a comm glob (-n), either may be NULL. May be "" (no
 * filter). -1 when it does not fit in len. After session_start.
 */
int session_filter(const struct session *s, char *buf, size_t len, const char *user,
		   const char *comm);

/* Remove everything this run created; safe to call more than once and from atexit. */
void session_close(struct session *s);

/* Remove instances left by ftrace-tools runs whose process is gone; returns how many. */
int session_sweep_stale(const char *tool);

/* The stop flag is raised by a signal or by a closed output. */
void session_request_stop(void);

#endif
