// SPDX-License-Identifier: GPL-2.0-only
#include "kernel/session.h"
#include "base/testhooks.h"
#include "kernel/format.h"
#include "base/sig.h"
#include "base/runid.h"
#include "base/opt.h"
#include "base/threads.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

void (*session_after_mkdir)(const char *dir);
const char *session_lockdown_file = "/sys/kernel/security/lockdown";

const char *session_strerror(int err)
{
	static char why[256];
	if (err != EPERM && err != EACCES)
		return strerror(err);
	/* "none integrity [confidentiality]": the word in brackets is the mode in force. */
	char text[128] = "";
	int fd = open(session_lockdown_file, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, text, sizeof(text) - 1) : -1;
	if (fd >= 0)
		close(fd);
	text[n > 0 ? n : 0] = 0;
	if (!strstr(text, "[confidentiality]"))
		return strerror(err);
	snprintf(why, sizeof(why),
		 "%s: the kernel is locked down for confidentiality (%s), which refuses tracing",
		 strerror(err), session_lockdown_file);
	return why;
}

/* The sessions atexit() must still tear down (a run has one, or two with names). */
static struct session *active[4];

/* Which kernel option provides an event system, for the "missing" message. */
static const char *config_for(const char *sys)
{
	static const struct {
		const char *sys, *config;
	} map[] = {
		{"block", "CONFIG_BLOCK and CONFIG_EVENT_TRACING"},
		{"syscalls", "CONFIG_FTRACE_SYSCALLS"},
		{"kprobes", "CONFIG_KPROBE_EVENTS"},
		{"uprobes", "CONFIG_UPROBE_EVENTS"},
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(map[i].sys, sys))
			return map[i].config;
	return "CONFIG_EVENT_TRACING";
}

static struct {
	size_t n;
	const char *const *sys, *const *names;
} preload;

void session_preload(size_t n, const char *const *sys, const char *const *names)
{
	preload.n = n;
	preload.sys = sys;
	preload.names = names;
}

struct tep_event *session_load_event(struct session *s, const char *sys, const char *name)
{
	struct tep_event *ev = tep_find_event_by_name(s->tep, sys, name);
	if (ev)
		return ev;
	if (preload.n) {
		session_load_events(s, 1, &sys, &name);
		return tep_find_event_by_name(s->tep, sys, name);
	}
	int size = 0;
	struct format_text f = {sys, name,
				tracefs_event_file_read(NULL, sys, name, "format", &size), 0};
	if (f.text && size > 0) {
		f.len = (size_t)size;
		format_parse_many(s->tep, &f, 1, s->refused, s->refused_why);
	} else {
		free(f.text);
	}
	return tep_find_event_by_name(s->tep, sys, name);
}

/* Is sys:name among the first n of the list (loaded in this batch already)? */
static bool listed(size_t n, const char *const *sys, const char *const *names, const char *s,
		   const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(sys[i], s) && !strcmp(names[i], name))
			return true;
	return false;
}

void session_load_events(struct session *s, size_t n, const char *const *sys,
			 const char *const *names)
{
	if (preload.n) {
		size_t all = n + preload.n;
		const char **both = calloc(2 * all, sizeof(*both));
		if (both) {
			for (size_t j = 0; j < all; j++) {
				both[j] = j < n ? sys[j] : preload.sys[j - n];
				both[all + j] = j < n ? names[j] : preload.names[j - n];
			}
			preload.n = 0;
			session_load_events(s, all, both, both + all);
			free(both);
			return;
		}
	}
	struct format_text *f = calloc(n ? n : 1, sizeof(*f));
	size_t got = 0;
	for (size_t j = 0; f && j < n; j++) {
		int size = 0;
		if (tep_find_event_by_name(s->tep, sys[j], names[j]) ||
		    listed(j, sys, names, sys[j], names[j]))
			continue;
		char *text = tracefs_event_file_read(NULL, sys[j], names[j], "format", &size);
		if (text && size > 0)
			f[got++] = (struct format_text){sys[j], names[j], text, (size_t)size};
		else
			free(text);
	}
	if (f)
		format_parse_many(s->tep, f, got, s->refused, s->refused_why);
	for (size_t j = 0; !f && j < n; j++)
		session_load_event(s, sys[j], names[j]);
	free(f);
}

int session_init(struct session *s, const char *tool, const char *const *systems)
{
	memset(s, 0, sizeof(*s));
	s->tool = tool;
	s->hold_fd = -1;
	s->emergency = -1;
	/* Finds tracefs, or debugfs/tracing, or mounts tracefs at /sys/kernel/tracing. */
	const char *dir = tracefs_tracing_dir();
	if (!dir) {
		fprintf(stderr, "%s: tracefs not found and could not be mounted (%s)\n", tool,
			geteuid() ? "run as root" : "CONFIG_TRACING");
		return -1;
	}
	char events[4096];
	snprintf(events, sizeof(events), "%s/events", dir);
	if (access(events, R_OK | X_OK)) {
		fprintf(stderr, "%s: cannot read %s: %s%s\n", tool, events, session_strerror(errno),
			errno == EACCES ? " (run as root)" : "");
		return -1;
	}
	/* Only the events the tool uses, and no kernel symbols: loading every format and
	 * /proc/kallsyms (as tracefs_local_events does) costs megabytes and start-up time. */
	s->tep = tep_alloc();
	int len = 0;
	char *header = tracefs_instance_file_read(NULL, "events/header_page", &len);
	int bad = !s->tep || !header || tep_parse_header_page(s->tep, header, len, sizeof(long));
	free(header);
	if (bad) {
		fprintf(stderr, "%s: cannot read %s/events/header_page\n", tool, dir);
		return -1;
	}
	tep_set_long_size(s->tep, tep_get_header_page_size(s->tep));
	tep_set_cpus(s->tep, (int)sysconf(_SC_NPROCESSORS_CONF));
	/* The single events first, all in one trial of the parser (with the preloaded ones). */
	size_t ncolon = 0;
	for (int i = 0; systems && systems[i]; i++)
		ncolon += strchr(systems[i], ':') != NULL;
	char **one = ncolon ? calloc(2 * ncolon, sizeof(*one)) : NULL;
	size_t got = 0;
	for (int i = 0; one && systems[i]; i++) {
		const char *colon = strchr(systems[i], ':');
		if (colon && (one[got] = strndup(systems[i], (size_t)(colon - systems[i]))))
			one[ncolon + got++] = (char *)colon + 1;
	}
	if (got)
		session_load_events(s, got, (const char *const *)one,
				    (const char *const *)one + ncolon);
	for (size_t i = 0; i < got; i++)
		free(one[i]);
	free(one);
	for (int i = 0; systems && systems[i]; i++) {
		const char *colon = strchr(systems[i], ':');
		if (colon) {
			char sys[256];
			snprintf(sys, sizeof(sys), "%.*s", (int)(colon - systems[i]), systems[i]);
			session_load_event(s, sys, colon + 1); /* out of memory above: one by one */
			continue;
		}
		char **names = tracefs_system_events(NULL, systems[i]);
		size_t n = 0;
		while (names && names[n])
			n++;
		const char **sys = calloc(n ? n : 1, sizeof(*sys));
		for (size_t j = 0; sys && j < n; j++)
			sys[j] = systems[i];
		if (sys)
			session_load_events(s, n, sys, (const char *const *)names);
		for (size_t j = 0; !sys && j < n; j++)
			session_load_event(s, systems[i], names[j]);
		free(sys);
		tracefs_list_free(names);
	}
	return 0;
}

void session_init_shared(struct session *s, const char *tool, const char *role,
			 struct tep_handle *tep)
{
	memset(s, 0, sizeof(*s));
	s->tool = tool;
	s->role = role;
	s->tep = tep;
	s->tep_borrowed = true;
	s->hold_fd = -1;
	s->emergency = -1;
}

void session_load_symbols(struct session *s)
{
	char *path = tracefs_get_tracing_file("printk_formats");
	const char *paths[] = {"/proc/kallsyms", path};
	for (int i = 0; i < 2 && paths[i]; i++) {
		FILE *f = fopen(paths[i], "r");
		if (!f)
			continue;
		char *buf = NULL;
		size_t cap = 0;
		ssize_t n = getdelim(&buf, &cap, '\0', f); /* the whole file */
		if (n > 0 && i == 0)
			tep_parse_kallsyms(s->tep, buf);
		else if (n > 0)
			tep_parse_printk_formats(s->tep, buf);
		free(buf);
		fclose(f);
	}
	tracefs_put_tracing_file(path);
}

struct tep_event *session_event(struct session *s, const char *sys, const char *name, bool required)
{
	struct tep_event *ev = tep_find_event_by_name(s->tep, sys, name);
	char full[300];
	snprintf(full, sizeof(full), "%s:%s", sys, name);
	if (!ev && required && !strcmp(full, s->refused))
		fprintf(stderr, "%s: the format of %s cannot be used (%s): cannot trace it\n",
			s->tool, full, s->refused_why);
	else if (!ev && required)
		fprintf(stderr, "%s: tracepoint %s not available in this kernel (%s)\n", s->tool,
			full, config_for(sys));
	return ev;
}

struct tep_format_field *session_field(struct session *s, struct tep_event *ev, const char *field,
				       bool required)
{
	struct tep_format_field *f = tep_find_field(ev, field);
	if (!f && required)
		fprintf(stderr, "%s: event %s:%s has no field '%s' in this kernel\n", s->tool,
			ev->system, ev->name, field);
	return f;
}

static void session_atexit(void)
{
	for (int i = 3; i >= 0; i--)
		if (active[i])
			session_close(active[i]);
}

int session_append(const char *file, const char *line)
{
	char *path = tracefs_get_tracing_file(file);
	int fd = path ? open(path, O_WRONLY | O_APPEND | O_CLOEXEC) : -1;
	tracefs_put_tracing_file(path);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, line, strlen(line));
	int e = errno;
	close(fd);
	errno = n < 0 ? e : n == (ssize_t)strlen(line) ? 0 : EIO;
	return n == (ssize_t)strlen(line) ? 0 : -1;
}

/* --- this run's instance ----------------------------------------------------------------- */

static int write_instance_file(struct session *s, const char *file, const char *val)
{
	if (tracefs_instance_file_write(s->inst, file, val) < 0) {
		fprintf(stderr, "%s: cannot write '%s' to %s of instance %s: %s\n", s->tool, val,
			file, s->name, session_strerror(errno));
		return -1;
	}
	return 0;
}

/* Does "local" (sched_clock) read the same on every CPU, so that the instance can keep it
 * and the reader map it to CLOCK_MONOTONIC (clockmap.h)? On x86 where the TSC runs at a
 * constant rate through idle states (constant_tsc, nonstop_tsc) and the kernel still uses
 * it as its clocksource (it marks the TSC unstable, and sched_clock with it, on any doubt),
 * as trace-cmd and KernelShark merge CPUs on it. Elsewhere, or with FTT_TRACE_CLOCK=mono,
 * the instance is switched to mono. Read once. */
bool session_local_clock_synced(const char **why)
{
	static int known = -1;
	static const char *said;
	if (known < 0) {
		known = 0;
		const char *env = getenv("FTT_TRACE_CLOCK");
#if defined(__x86_64__) || defined(__i386__)
		char src[32] = "";
		FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource",
				"re");
		if (f && !fgets(src, sizeof(src), f))
			src[0] = 0;
		if (f)
			fclose(f);
		bool constant = false, nonstop = false;
		char line[4096];
		f = fopen("/proc/cpuinfo", "re");
		while (f && fgets(line, sizeof(line), f))
			if (!strncmp(line, "flags", 5)) {
				constant = strstr(line, " constant_tsc") != NULL;
				nonstop = strstr(line, " nonstop_tsc") != NULL;
				break;
			}
		if (f)
			fclose(f);
		if (env && !strcmp(env, "mono"))
			said = "FTT_TRACE_CLOCK=mono";
		else if (strcmp(src, "tsc\n"))
			said = "the clocksource is not the TSC";
		else if (!constant || !nonstop)
			said = "the TSC's rate is not constant through idle (no constant_tsc and "
			       "nonstop_tsc)";
		else
			known = 1;
#else
		said = env && !strcmp(env, "mono") ? "FTT_TRACE_CLOCK=mono" :
						     "not known to be the same on every CPU here";
#endif
	}
	if (why)
		*why = said;
	return known == 1;
}

/*
 * Times comparable with clock_gettime(CLOCK_MONOTONIC) and consistent across CPUs: the
 * instance's own "local" where it is the same on every CPU (the reader maps it), else a
 * switch to mono (the switch resets the buffers: an RCU grace period, 19-25 ms on 6.18).
 */
static int set_clock(struct session *s)
{
	char *clocks = tracefs_instance_file_read(s->inst, "trace_clock", NULL);
	const char *want = NULL;
	if (clocks && strstr(clocks, "[local]") && !s->want_mono &&
	    session_local_clock_synced(NULL)) {
		free(clocks);
		s->mono = s->clock_mapped = true;
		return 0;
	}
	if (clocks && strstr(clocks, "mono"))
		want = "mono";
	else if (clocks && strstr(clocks, "global"))
		want = "global";
	free(clocks);
	if (!want)
		return 0; /* kernels before 3.x: keep local */
	s->mono = !strcmp(want, "mono");
	return write_instance_file(s, "trace_clock", want);
}

static size_t env_buffer_kb; /* FTT_BUFFER_KB, 0 when unset */

/* MemAvailable of /proc/meminfo in KB, 0 when unknown. */
static unsigned long long mem_available_kb(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[256];
	unsigned long long kb = 0;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

long long session_buffer_limit_kb(void)
{
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);
	unsigned long long avail = mem_available_kb();
	/* A quarter of what is available, over every CPU's buffer: tracing must not push the
	 * box it looks at into reclaim (8 GB took 15 s to allocate for a 1 s run). */
	long long limit =
		avail ? (long long)(avail / 4 / (unsigned long long)(ncpus > 0 ? ncpus : 1)) :
			1 << 22;
	return limit < 4 ? 4 : limit;
}

void session_buffer_env(void)
{
	const char *kb = getenv("FTT_BUFFER_KB");
	env_buffer_kb = 0;
	if (!kb || !*kb)
		return;
	long long limit = session_buffer_limit_kb();
	long long v = opt_int(kb, 1, 1LL << 40, "FTT_BUFFER_KB (KB per CPU)");
	if (v > limit)
		opt_fail("invalid FTT_BUFFER_KB: %s (KB per CPU; the buffers of all CPUs may "
			 "take at most a quarter of the available memory: %lld)",
			 kb, limit);
	env_buffer_kb = (size_t)v;
}

size_t session_buffer_kb(size_t wish)
{
	return env_buffer_kb ? env_buffer_kb : wish;
}

size_t session_big_buffer_kb(void)
{
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);
	size_t kb = 65536 / (size_t)(ncpus > 0 ? ncpus : 1);
	return kb < SESSION_DEFAULT_BUFFER_KB ? SESSION_DEFAULT_BUFFER_KB : kb > 8192 ? 8192 : kb;
}

/*
 * mkdir, never reuse: an instance that exists belongs to someone else. Then open tracing_on
 * at once. Between the two, a run in another PID namespace may judge the instance
 * abandoned and remove it (it cannot tell our PID is alive): then make it again.
 */
static int create_instance(struct session *s)
{
	char path[PATH_MAX];
	for (int attempt = 0; attempt < 5; attempt++) {
		snprintf(s->name, sizeof(s->name), RUNID_INSTANCE_PREFIX "%s%s%s-%s", s->tool,
			 s->role ? "." : "", s->role ? s->role : "", runid_self());
		snprintf(path, sizeof(path), "%s/instances/%s", tracefs_tracing_dir(), s->name);
		if (mkdir(path, 0750)) {
			fprintf(stderr, "%s: cannot create ftrace instance %s: %s%s\n", s->tool,
				path, session_strerror(errno),
				errno == ENOENT ? " (instances need Linux 3.14)" : "");
			return -1;
		}
		if (session_after_mkdir)
			session_after_mkdir(path);
		char on[PATH_MAX + 16];
		snprintf(on, sizeof(on), "%s/tracing_on", path);
		s->hold_fd = open(on, O_WRONLY | O_CLOEXEC);
		/* Removed under us: again. (ENODEV: tracefs's file of a directory being removed,
		 * seen on 6.18 with two runs in PID namespaces.) */
		if (s->hold_fd < 0 && (errno == ENOENT || errno == ENODEV) && access(path, F_OK))
			continue;
		if (s->hold_fd < 0) {
			fprintf(stderr, "%s: cannot open %s: %s\n", s->tool, on,
				session_strerror(errno));
			rmdir(path);
			return -1;
		}
		s->dir = strdup(path);
		s->inst = tracefs_instance_alloc(NULL, s->name);
		s->emergency = sig_on_emergency_rmdir(path);
		if (!s->dir || !s->inst || s->emergency < 0) {
			fprintf(stderr, "%s: out of memory\n", s->tool);
			return -1;
		}
		return 0;
	}
	fprintf(stderr, "%s: ftrace instance %s was removed each time it was made\n", s->tool,
		s->name);
	return -1;
}

int session_start(struct session *s, size_t buffer_kb)
{
	if (sig_install(s->tool)) {
		fprintf(stderr, "%s: cannot install signal handlers: %s\n", s->tool,
			strerror(errno));
		return -1;
	}
	static bool registered;
	if (!registered) {
		registered = true;
		atexit(session_atexit);
	}
	for (int i = 0; i < 4; i++)
		if (!active[i] || active[i] == s) {
			active[i] = s;
			break;
		}
	if (create_instance(s))
		return -1;
	if (!s->keep_clock && set_clock(s))
		return -1;
	if (s->clock_mapped) {
		char stats[PATH_MAX];
		snprintf(stats, sizeof(stats), "%s/per_cpu/cpu0/stats", s->dir);
		/* No "now ts" to pair the clocks by: mono after all. */
		if (clockmap_open(&s->clock, stats)) {
			s->clock_mapped = false;
			if (write_instance_file(s, "trace_clock", "mono"))
				return -1;
		}
	}
	buffer_kb = session_buffer_kb(buffer_kb);
	if (buffer_kb) {
		char val[32];
		snprintf(val, sizeof(val), "%zu", buffer_kb);
		if (write_instance_file(s, "buffer_size_kb", val))
			return -1;
	}
	/* Wake poll() on the first event; the reader raises this during floods (reader.c). */
	if (tracefs_file_exists(s->inst, "buffer_percent") &&
	    write_instance_file(s, "buffer_percent", "0"))
		return -1;
	return 0;
}

void session_say_memory(FILE *f, const char *tool, size_t events_kb, size_t names_kb)
{
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t def = SESSION_DEFAULT_BUFFER_KB;
	size_t ev = session_buffer_kb(events_kb ? events_kb : def);
	size_t nm = names_kb ? session_buffer_kb(names_kb) : 0;
	char names[96] = "";
	if (nm)
		snprintf(names, sizeof(names), " and %zu KB per CPU for the task-naming events",
			 nm);
	fprintf(f,
		"%s: a run takes %zu KB per CPU of ring buffer for its events%s, on %ld CPUs: "
		"%.1f MB of kernel memory (FTT_BUFFER_KB sets the size per CPU)\n",
		tool, ev, names, ncpus, (double)(ev + nm) * (double)ncpus / 1024);
}

void session_say_clock(FILE *f, const char *tool)
{
	const char *why;
	if (session_local_clock_synced(&why))
		fprintf(f,
			"%s: events ordered across CPUs by the trace clock local (sched_clock: the "
			"TSC, constant and in use as the clocksource), mapped to CLOCK_MONOTONIC\n",
			tool);
	else
		fprintf(f,
			"%s: events ordered across CPUs by the trace clock mono (CLOCK_MONOTONIC): "
			"local is not used because %s\n",
			tool, why);
}

int session_enable(struct session *s, struct tep_event *ev, const char *filter)
{
	if (filter && *filter &&
	    tracefs_event_file_write(s->inst, ev->system, ev->name, "filter", filter) < 0) {
		fprintf(stderr, "%s: kernel rejected filter '%s' on %s:%s\n", s->tool, filter,
			ev->system, ev->name);
		return -1;
	}
	/* Not tracefs_event_enable(): it matches patterns against every event of the system,
	 * a stat() each, ~130 ms for syscalls on eventfs (6.18). */
	if (tracefs_event_file_write(s->inst, ev->system, ev->name, "enable", "1") < 0) {
		fprintf(stderr, "%s: cannot enable %s:%s: %s\n", s->tool, ev->system, ev->name,
			strerror(errno));
		return -1;
	}
	return 0;
}

struct add_to {
	struct session *s;
	const char *file;
};

static int add_task(void *ctx, const char *ids)
{
	struct add_to *to = ctx;
	if (tracefs_instance_file_append(to->s->inst, to->file, ids) >= 0)
		return 0;
	fprintf(stderr, "%s: cannot write %s to %s: %s\n", to->s->tool, ids, to->file,
		strerror(errno));
	return -1;
}

/* -p: the process's threads now; the fork option adds those it creates later. */
static int set_pids(struct session *s, const char *file, enum tracefs_option_id fork_option,
		    pid_t pid, pid_t tid)
{
	if (!pid && !tid)
		return 0;
	struct add_to to = {s, file};
	/* set_event_pid has taken a list a write since it came (4.4); set_ftrace_pid one ID of
	 * less than 64 bytes before 4.10. A write to either costs ~20 ms here (6.18: the
	 * kernel waits for every CPU), so few: 1200 threads one a write took 26 s. */
	bool lists = fork_option == TRACEFS_OPTION_EVENT_FORK ||
		     tracefs_option_is_supported(s->inst, fork_option); /* 4.14: lists since 4.10 */
	if (threads_each_list(s->tool, pid, tid, lists ? 0 : 64, add_task, &to))
		return -1;
	if (tid)
		return 0;
	/* function-fork: not in 4.9 (4.14 has it); without it later children are not followed */
	if (fork_option == TRACEFS_OPTION_FUNCTION_FORK &&
	    !tracefs_option_is_supported(s->inst, fork_option))
		return 0;
	if (tracefs_option_enable(s->inst, fork_option)) {
		fprintf(stderr, "%s: cannot enable the %s option: %s\n", s->tool,
			tracefs_option_name(fork_option), strerror(errno));
		return -1;
	}
	return 0;
}

int session_add_tids(struct session *s, const pid_t *tids, size_t n, bool fork)
{
	static const char *const files[] = {"set_event_pid", "set_ftrace_pid"};
	static const enum tracefs_option_id forks[] = {TRACEFS_OPTION_EVENT_FORK,
						       TRACEFS_OPTION_FUNCTION_FORK};
	/* One write per file: the kernel takes a list of IDs separated by spaces. */
	size_t cap = n * 12 + 2, len = 0;
	char *buf = malloc(cap);
	if (!buf)
		return -1;
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%d", i ? " " : "", (int)tids[i]);
	for (int f = 0; f < 2; f++) {
		/* set_ftrace_pid: only where the instance has the function tracer's files. */
		if (f == 1 && !tracefs_file_exists(s->inst, files[f]))
			continue;
		if (n && tracefs_instance_file_append(s->inst, files[f], buf) < 0) {
			/* set_ftrace_pid refused: the function tracer is refused too (6.18 here),
			 * so nothing of it is traced unfiltered. */
			if (f == 1 && errno == EPERM)
				continue;
			fprintf(stderr, "%s: cannot write %zu task IDs to %s: %s\n", s->tool, n,
				files[f], strerror(errno));
			free(buf);
			return -1;
		}
		if (fork && tracefs_option_is_supported(s->inst, forks[f]) &&
		    !tracefs_option_is_enabled(s->inst, forks[f]) &&
		    tracefs_option_enable(s->inst, forks[f])) {
			fprintf(stderr, "%s: cannot enable the %s option: %s\n", s->tool,
				tracefs_option_name(forks[f]), strerror(errno));
			free(buf);
			return -1;
		}
	}
	free(buf);
	return 0;
}

int session_set_pids(struct session *s, pid_t pid, pid_t tid)
{
	return set_pids(s, "set_event_pid", TRACEFS_OPTION_EVENT_FORK, pid, tid);
}

int session_set_ftrace_pids(struct session *s, pid_t pid, pid_t tid)
{
	return set_pids(s, "set_ftrace_pid", TRACEFS_OPTION_FUNCTION_FORK, pid, tid);
}

int session_exclude_self(struct session *s)
{
	if (!tracefs_file_exists(s->inst, "set_event_notrace_pid"))
		return 0;
	char pid[32];
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (write_instance_file(s, "set_event_notrace_pid", pid))
		return -1;
	s->notrace_self = true;
	return 0;
}

int session_filter(const struct session *s, char *buf, size_t len, const char *user,
		   const char *comm)
{
	/* Never trace ourselves: reading the buffers is read(2), and libc's read a uprobe. But
	 * an interrupt (hardirq 0x08, softirq 0x10, NMI 0x40 in common_flags) that lands on our
	 * task is not ours: a block completion must not be lost because we were running. */
	int n = 0;
	buf[0] = 0;
	if (!s->notrace_self)
		n = snprintf(buf, len, "(common_pid != %d || common_flags & 88)", (int)getpid());
	if (user && *user && n < (int)len)
		n += snprintf(buf + n, len - n, "%s(%s)", n ? " && " : "", user);
	if (comm && n < (int)len)
		n += snprintf(buf + n, len - n, "%scomm ~ \"%s\"", n ? " && " : "", comm);
	return n < (int)len ? 0 : -1;
}

int session_clock(const struct session *s, char *out, size_t len)
{
	char *text = tracefs_instance_file_read(s->inst, "trace_clock", NULL);
	const char *b = text ? strchr(text, '[') : NULL, *e = b ? strchr(b, ']') : NULL;
	int ok = e && (size_t)(e - b) < len;
	if (ok)
		snprintf(out, len, "%.*s", (int)(e - b - 1), b + 1);
	free(text);
	return ok ? 0 : -1;
}

int session_stop_recording(struct session *s)
{
	if (s->hold_fd < 0)
		return 0;
	return pwrite(s->hold_fd, "0", 1, 0) == 1 ? 0 : -1;
}

int session_on_close(struct session *s, enum session_when when, void (*fn)(void *), void *arg)
{
	if (s->ncleanups == SESSION_MAX_CLEANUPS)
		return -1;
	s->cleanups[s->ncleanups].when = when;
	s->cleanups[s->ncleanups].fn = fn;
	s->cleanups[s->ncleanups].arg = arg;
	s->ncleanups++;
	return 0;
}

static void run_cleanups(struct session *s, enum session_when when)
{
	for (int i = 0; i < s->ncleanups; i++)
		if (s->cleanups[i].fn && s->cleanups[i].when == when) {
			void (*fn)(void *) = s->cleanups[i].fn;
			s->cleanups[i].fn = NULL; /* once, also when session_close runs again */
			fn(s->cleanups[i].arg);
		}
}

/*
 * Removing the instance disables its events and frees its buffers. Before Linux 5.9
 * (7ef282e05132, in 5.4.60) an open trace_pipe_raw counted against the tracer, which all
 * instances share (nop), not against its own instance: while another run reads its
 * buffers, no instance can be removed (EBUSY). Runs that end together free each other
 * within moments (each has closed its own buffers by now): wait for them, up to 2 s. When
 * the other run goes on, the instance is left to the next run's sweep, and said. (No
 * process of ours waits to remove it: its removal would race the sweep of a run starting
 * meanwhile, and two removals of one instance at once crash RHEL 8.1's 4.18 in
 * instance_rmdir, seen twice in its guest.)
 */
static int try_remove(struct session *s, int ms)
{
	for (int waited_ms = 0;; waited_ms += 20) {
		if (tracefs_instance_destroy(s->inst) == 0)
			return 0;
		if (errno != EBUSY || waited_ms >= ms)
			return -1;
		nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
	}
}

int session_close(struct session *s)
{
	int ret = 0;
	run_cleanups(s, SESSION_BEFORE_REMOVE);
	if (s->hold_fd >= 0) {
		close(s->hold_fd);
		s->hold_fd = -1;
	}
	clockmap_close(&s->clock);
	if (s->inst && try_remove(s, 2000)) {
		int e = errno;
		fprintf(stderr, "%s: cannot remove ftrace instance %s: %s%s\n", s->tool, s->name,
			strerror(e),
			e == EBUSY ?
				" (before Linux 5.9 another run reading its buffers holds every "
				"instance: the next run of a tool, or reset-ftrace --leftovers, "
				"removes it)" :
				"");
		ret = -1;
	}
	if (s->inst) {
		tracefs_instance_free(s->inst);
		s->inst = NULL;
		sig_forget(s->emergency);
		s->emergency = -1;
	}
	free(s->dir);
	s->dir = NULL;
	/* Only now: the kernel refuses to remove a probe that an instance has enabled. */
	run_cleanups(s, SESSION_AFTER_REMOVE);
	if (s->tep && !s->tep_borrowed)
		tep_free(s->tep);
	s->tep = NULL;
	for (int i = 0; i < 4; i++)
		if (active[i] == s)
			active[i] = NULL;
	return ret;
}
