/*
 * tracer: the generic event tracer behind tpoint, kprobe and uprobe. The tool finds or
 * creates its events; the tracer applies the options they share, enables the events in the
 * session's instance and prints every event (or counts them).
 */
#ifndef FTT_TRACER_H
#define FTT_TRACER_H

#include <stdbool.h>
#include <stdint.h>
#include <getopt.h>
#include <sys/types.h>

struct session;
struct tep_event;

#include "reader.h"

/* Events traced at once: one reader handler each, and one kept for kernel_stack (-s). */
#define TRACER_MAX_EVENTS 63

/* Options shared by tpoint, kprobe and uprobe. */
struct tracer_opts {
	uint64_t duration; /* -d SECS */
	pid_t pid;         /* -p: a process and its threads, also new ones */
	pid_t tid;         /* -L: one thread */
	const char *name;  /* -n: comm glob, filtered in the kernel */
	bool header;       /* -H */
	bool stack;        /* -s */
	bool ustack;       /* -U */
	bool format;       /* -v */
	bool json;         /* -j */
	bool wallclock;    /* -T */
	bool count;        /* -c */
	const char *keys;  /* -k KEY[,KEY...]: counts by fields */
	const char *hist;  /* --hist FIELD: log2 histogram of a numeric field */
};

/* The getopt letters of the shared options, to append to a tool's own. */
#define TRACER_OPTSTRING "cd:HjL:k:n:p:sTUv"
/* The long options of these tools: --help, --version, --json, --hist. */
extern const struct option tracer_longopts[];
#define TRACER_OPT_HIST 0x100

/* Handle a shared option; false when c is not one. */
bool tracer_parse_opt(struct tracer_opts *o, int c, const char *arg);
/* After parsing: options that exclude each other (exit 2). */
void tracer_check_opts(const struct tracer_opts *o);

/* The usage lines of the shared options (after the tool's own). */
extern const char tracer_usage[];

/*
 * Trace the events until stopped: filter (ftrace syntax, may be NULL) on each; what names the
 * events in the banner. Returns the exit status (0, 1, or 2 for a filter the kernel rejected).
 */
int tracer_run(struct session *s, struct tep_event **events, int nevents, const char *filter,
	       const char *what, const struct tracer_opts *o);

#include "probe.h"

/*
 * kprobe and uprobe after option parsing: a session, the probe (target is what the kernel
 * takes: FUNC[+off] or /path:0xOFFSET), then -v or tracing. Returns the exit status; every
 * path removes the probe and the instance.
 */
int tracer_probe(const char *tool, enum probe_kind kind, const struct probe_def *pd,
		 const char *target, const char *filter, const struct tracer_opts *o);

/* -v: print the format of each event; returns 0. */
int tracer_print_formats(struct session *s, struct tep_event **events, int nevents);

#endif
