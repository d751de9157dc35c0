/* SPDX-License-Identifier: GPL-2.0-only */
/* session: one private ftrace instance per run, torn down on every exit path. */
#ifndef FTT_SESSION_H
#define FTT_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "kernel/clockmap.h"

struct tep_handle;
struct tep_event;
struct tep_format_field;
struct tracefs_instance;
struct probe_set;

/* Instances are named RUNID_INSTANCE_PREFIX<tool>[.<role>]-<run id> (runid.h). */

#define SESSION_MAX_CLEANUPS 16

/* When a cleanup runs: before the instance is removed (files of it that are open keep it
 * busy), or after (the kernel refuses to remove a probe that an instance has enabled). */
enum session_when { SESSION_BEFORE_REMOVE, SESSION_AFTER_REMOVE };

struct session {
	const char *tool;
	const char *role; /* a second instance of a run ("names"): in its name after the tool */
	char name[128];
	char *dir; /* the instance's directory */
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	bool tep_borrowed; /* another session's (session_init_shared): not freed here */
	/* The instance's tracing_on, open from creation to removal: an instance with an open
	 * file cannot be removed (EBUSY), so no other run's sweep can take it; at the stop,
	 * writing 0 to it ends recording while what was recorded is read. */
	int hold_fd;
	int emergency;		  /* the signal module's step that removes the instance */
	struct probe_set *probes; /* dynamic probes of this run (probe.c) */
	/* Record times are CLOCK_MONOTONIC: the trace clock is mono, or (clock_mapped) the
	 * instance kept "local", the same on every CPU, and the reader maps it (clockmap.h). */
	bool mono;
	bool clock_mapped;
	/* Set before session_start by a run whose records must carry CLOCK_MONOTONIC times
	 * themselves (--record's trace.dat): the instance is switched to mono even where local
	 * would do. (A run matching its times with another source's to the microsecond maps
	 * them and allows for the map's error, as swstack does.) */
	bool want_mono;
	struct clockmap clock; /* clock_mapped: local to CLOCK_MONOTONIC */
	bool notrace_self;     /* set_event_notrace_pid excludes this process */
	/* Set before session_start by tools that need no time order across CPUs (counting):
	 * switching the trace clock resets the buffers, ~30 ms of start-up. */
	bool keep_clock;
	/* The last format refused as not whole (session_format_sound): said when its event
	 * is required, not when a system's unused events are loaded. */
	char refused[128], refused_why[128]; /* FORMAT_REFUSED_LEN (format.h) */
	int ncleanups;
	struct {
		enum session_when when;
		void (*fn)(void *arg);
		void *arg;
	} cleanups[SESSION_MAX_CLEANUPS];
};

/*
 * Set s up (cleared first) for tool, the tool's name: find tracefs (mounting it if needed) and
 * load the formats of the given events into a tep of its own: each entry of systems (NULL
 * ends it; systems may be NULL) is a system ("block": all its events) or one event
 * ("syscalls:sys_enter_openat"); one that cannot be loaded is left out without a word. Returns
 * 0, or -1 with a message on stderr (no tracefs, its events or header_page unreadable). Frees:
 * session_close(s), after a failure too.
 */
int session_init(struct session *s, const char *tool, const char *const *systems);
/* n formats more (sys[i]:names[i], kept by the caller) to load with the first formats the
 * run loads (session_init's events or a tool's in prepare()), in the same trial of the
 * parser: a fork each, ~0.5 ms quiet and up to 7 ms under load here (the driver's naming
 * events, known before the tool's). */
void session_preload(size_t n, const char *const *sys, const char *const *names);
/* Set s up (cleared first) for a second instance for the same run of tool (role: "names"),
 * reading formats into tep, which stays the other session's (session_close(s) does not free
 * it). */
void session_init_shared(struct session *s, const char *tool, const char *role,
			 struct tep_handle *tep);
/* Load one more event's format, sys:name, into the tep of s (at once when loaded already).
 * Returns it, owned by that tep (valid until session_close of the session that made it), or
 * NULL, without a word, when the kernel has no such event (or its format cannot be used:
 * session_event says so when the event is required). */
struct tep_event *session_load_event(struct session *s, const char *sys, const char *name);
/* Load n events' formats (sys[i]:names[i]) at once: the parser's trial (below) runs once for
 * all of them. A refused one is left out, as by session_load_event. The formats given to
 * session_preload come along with the first load. */
void session_load_events(struct session *s, size_t n, const char *const *sys,
			 const char *const *names);

/* Load kernel symbols and printk formats into the tep of s, for printing events whose format
 * prints addresses as symbols (%ps) or strings by pointer; megabytes, so only when such an
 * event is printed. A file that cannot be read is left out without a word. */
void session_load_symbols(struct session *s);

/* Look up the event sys:name among those loaded into the tep of s (nothing is loaded here).
 * Returns it, owned by that tep (valid until session_close of the session that made it), or
 * NULL; when required and missing, says on stderr what is missing and why (its format
 * refused, or no such tracepoint and its CONFIG_ option). */
struct tep_event *session_event(struct session *s, const char *sys, const char *name,
				bool required);
/* Look up field, a field of ev. Returns it, owned by ev's tep (valid as long as ev), or NULL;
 * when required and missing, says so on stderr (prefixed with the tool of s). */
struct tep_format_field *session_field(struct session *s, struct tep_event *ev, const char *field,
				       bool required);

/*
 * Install the stop signals and create the instance of s, this run's, with a cross-CPU clock
 * (unless s->keep_clock) and buffer_kb, the per-CPU buffer size (0: kernel default;
 * FTT_BUFFER_KB's when set); session_close(s) is registered with atexit(). (sweep_stale
 * first, before anything of this run is made.) Returns 0, or -1 with a message on stderr;
 * what was made is removed by session_close(s).
 */
int session_start(struct session *s, size_t buffer_kb);

/*
 * The buffer policy. FTT_BUFFER_KB in the environment is the per-CPU size every run then
 * uses instead of its tool's choice (memory traded for lost events; the tests use a tiny one
 * to force losses). session_buffer_env reads it, once, before anything is made: a value that
 * is not a number of KB from 1 to the limit is a usage error (exit 2).
 */
void session_buffer_env(void);
/* The largest FTT_BUFFER_KB this machine's memory allows. Returns it in KB per CPU: a quarter
 * of MemAvailable, spread over the CPUs (4 GB when MemAvailable is unknown; 4 at least). */
long long session_buffer_limit_kb(void);
/* The per-CPU size a run uses. Returns FTT_BUFFER_KB's when set, else wish, the tool's (0: the
 * kernel's default), in KB. session_start applies it to the size it is given. */
size_t session_buffer_kb(size_t wish);

/* The buffer per CPU of a run whose every event is large and frequent, worth the 20 ms a
 * resize costs at start (6.18: whatever the size): funcgraph's top level (function_graph:
 * every call of a CPU), and offwaketime's switches and wake-ups with their kernel stacks
 * (2,549 lost in 1.4 MB by its --cgroup test under load, none in 8 MB; 76,245 in a 60,000-
 * round pipe ping-pong, none in 8 MB). offcputime's and wakeuptime's, half as many events,
 * lost none of that ping-pong in 1.4 MB: they keep it (their banners 20 ms sooner). Every other run
 * keeps a new instance's size (buffer_kb 0), floods too (tpoint, syscount, vfsstat: a burst
 * of a million writes in a second lost nothing either way here). Returns it in KB: 64 MB over
 * the CPUs, between 1.4 and 8 MB each. */
size_t session_big_buffer_kb(void);
/* A new instance's buffer per CPU (the kernel's trace_buf_size unless booted with another). */
#define SESSION_DEFAULT_BUFFER_KB 1408

/*
 * What a run's ring buffers take of the kernel's memory, on f: events_kb per CPU for the
 * tool's events and names_kb per CPU for the naming events (0: none), as session_start
 * sizes them (FTT_BUFFER_KB replaces both), on every online CPU. For -v.
 */
void session_say_memory(FILE *f, const char *tool, size_t events_kb, size_t names_kb);

/* Whether the trace clock "local" reads the same on every CPU here (session.c says how it is
 * judged; read once): then a run that needs its CPUs in time order keeps it instead of
 * switching to mono. why, when not NULL, is set to the reason it is not (NULL when it is; a
 * static string). Returns true if so. */
bool session_local_clock_synced(const char **why);
/* For -v: say on f, under tool, which clock orders a run's events across CPUs, and why. */
void session_say_clock(FILE *f, const char *tool);

/* Enable ev, an event, in the instance of s, this run's, with an optional in-kernel filter
 * (NULL or "": none). Returns 0, or -1 with a message on stderr (the filter rejected, or the
 * event not enabled). */
int session_enable(struct session *s, struct tep_event *ev, const char *filter);

/*
 * Trace in the instance of s only process pid (all its threads, and those it creates later:
 * event-fork) or only thread tid; neither (both 0): everything. Returns 0, or -1 with what
 * failed said on stderr.
 */
int session_set_pids(struct session *s, pid_t pid, pid_t tid);
/* Add the n task IDs of tids to what the instance of s traces (set_event_pid, and
 * set_ftrace_pid where the instance has it and takes it: EPERM there is no failure), in one
 * write each; with fork, what they start later too (event-fork, function-fork where the kernel
 * has it). --cgroup. Returns 0, or -1 with a message on stderr (out of memory: none). */
int session_add_tids(struct session *s, const pid_t *tids, size_t n, bool fork);
/* The same as session_set_pids for pid or tid and the instance's function tracer
 * (set_ftrace_pid; function-fork where the kernel has it: not 4.9). Returns 0, or -1 with what
 * failed said on stderr. */
int session_set_ftrace_pids(struct session *s, pid_t pid, pid_t tid);

/*
 * For tools whose events all happen in process context (syscalls, uprobes): exclude this
 * process from the instance of s with set_event_notrace_pid (5.8+), before its events are
 * written, instead of by a filter (which the kernel applies after writing each event to a
 * temporary buffer). Not for other events: it would also drop interrupts that land on this
 * process. Returns 0 (also on a kernel without it: then session_filter excludes it), or -1
 * with a message on stderr.
 */
int session_exclude_self(struct session *s);

/*
 * Write into buf the filter for every event of a tool: the tool itself excluded (unless
 * set_event_notrace_pid does it for s), then the user's filter and a comm glob (-n), either
 * may be NULL. May be "" (no filter). Returns 0, or -1 when it does not fit in len (buf then
 * holds it cut). After session_start.
 */
int session_filter(const struct session *s, char *buf, size_t len, const char *user,
		   const char *comm);

/* The trace clock of the instance of s ("local", "mono", ...) into out, len bytes: a hist
 * trigger's timestamps are taken on it (the trigger sets it on the whole instance, global by
 * default). Returns 0, or -1 when it cannot be read or does not fit. */
int session_clock(const struct session *s, char *out, size_t len);

/* Stop recording in the instance of s (tracing_on 0): what was recorded stays to be read.
 * Returns 0 (also when s holds no instance), or -1 with errno when the write fails. */
int session_stop_recording(struct session *s);

/* Run fn(arg) when s closes (see enum session_when), once; in registration order. Returns 0,
 * or -1 when SESSION_MAX_CLEANUPS are registered already. */
int session_on_close(struct session *s, enum session_when when, void (*fn)(void *), void *arg);

/* Remove everything this run created in s and free its tep (unless borrowed: the events and
 * fields it gave are no longer valid); safe to call more than once and from atexit. Returns
 * 0, or -1 when the instance could not be removed (said). */
int session_close(struct session *s);

/* Append line to file, a top-level tracefs file (kprobe_events, synthetic_events), in one
 * write(2), as those files take a definition. Returns 0, or -1 with errno on failure (EIO: a
 * short write). */
int session_append(const char *file, const char *line);

/* strerror(err), but an EPERM or EACCES under a kernel locked down for confidentiality says
 * so (/sys/kernel/security/lockdown): a bare "Operation not permitted" would not. Returns the
 * text, not to be freed: strerror()'s, or static storage valid until the next call. */
const char *session_strerror(int err);

#endif
