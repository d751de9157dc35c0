#include "session.h"
#include "opt.h"
#include "reader.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

volatile sig_atomic_t session_stop;

static struct session *active; /* the session atexit() must still tear down */

static void on_stop_signal(int sig)
{
	(void)sig;
	session_stop = 1;
}

void session_request_stop(void)
{
	session_stop = 1;
}

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

/* An event's format into tep; a missing event is not an error (session_event says it). */
static void load_format(struct tep_handle *tep, const char *sys, const char *name)
{
	int size = 0;
	char *fmt = tracefs_event_file_read(NULL, sys, name, "format", &size);
	if (fmt && size > 0)
		tep_parse_event(tep, fmt, size, sys);
	free(fmt);
}

int session_init(struct session *s, const char *tool, const char *const *systems)
{
	memset(s, 0, sizeof(*s));
	s->tool = tool;
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
		fprintf(stderr, "%s: cannot read %s: %s%s\n", tool, events, strerror(errno),
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
	for (int i = 0; systems && systems[i]; i++) {
		const char *colon = strchr(systems[i], ':');
		if (colon) {
			char sys[256];
			snprintf(sys, sizeof(sys), "%.*s", (int)(colon - systems[i]), systems[i]);
			load_format(s->tep, sys, colon + 1);
			continue;
		}
		char **names = tracefs_system_events(NULL, systems[i]);
		for (int j = 0; names && names[j]; j++)
			load_format(s->tep, systems[i], names[j]);
		tracefs_list_free(names);
	}
	return 0;
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

struct tep_event *session_event(struct session *s, const char *sys, const char *name,
				bool required)
{
	struct tep_event *ev = tep_find_event_by_name(s->tep, sys, name);
	if (!ev && required)
		fprintf(stderr, "%s: tracepoint %s:%s not available in this kernel (%s)\n", s->tool,
			sys, name, config_for(sys));
	return ev;
}

struct tep_format_field *session_field(struct session *s, struct tep_event *ev,
				       const char *field, bool required)
{
	struct tep_format_field *f = tep_find_field(ev, field);
	if (!f && required)
		fprintf(stderr, "%s: event %s:%s has no field '%s' in this kernel\n", s->tool,
			ev->system, ev->name, field);
	return f;
}

static void session_atexit(void)
{
	if (active)
		session_close(active);
}

static int install_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal; /* no SA_RESTART: poll() must return EINTR */
	sigemptyset(&sa.sa_mask);
	const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigaction(sigs[i], &sa, NULL))
			return -1;
	return 0;
}

/* The PID at the end of an ftrace-tools instance name, or 0. */
static pid_t instance_pid(const char *name)
{
	if (strncmp(name, SESSION_PREFIX, strlen(SESSION_PREFIX)))
		return 0;
	const char *dash = strrchr(name, '-');
	if (!dash || !dash[1])
		return 0;
	char *end;
	long pid = strtol(dash + 1, &end, 10);
	if (*end || pid <= 0)
		return 0;
	return (pid_t)pid;
}

int session_sweep_stale(const char *tool)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/instances", tracefs_tracing_dir());
	DIR *d = opendir(path);
	if (!d)
		return 0;
	int removed = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		pid_t pid = instance_pid(de->d_name);
		if (!pid || pid == getpid())
			continue;
		if (kill(pid, 0) == 0 || errno != ESRCH)
			continue; /* alive (or not ours to judge) */
		struct tracefs_instance *inst = tracefs_instance_alloc(NULL, de->d_name);
		if (inst && tracefs_instance_destroy(inst) == 0) {
			fprintf(stderr, "%s: removed instance %s left by a run that was killed\n",
				tool, de->d_name);
			removed++;
		}
		tracefs_instance_free(inst);
	}
	closedir(d);
	return removed;
}

static int write_instance_file(struct session *s, const char *file, const char *val)
{
	if (tracefs_instance_file_write(s->inst, file, val) < 0) {
		fprintf(stderr, "%s: cannot write '%s' to %s of instance %s: %s\n", s->tool, val,
			file, s->name, strerror(errno));
		return -1;
	}
	return 0;
}

/* mono is comparable with clock_gettime(CLOCK_MONOTONIC) and consistent across CPUs. */
static int set_clock(struct session *s)
{
	char *clocks = tracefs_instance_file_read(s->inst, "trace_clock", NULL);
	const char *want = NULL;
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

size_t session_flood_buffer_kb(void)
{
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);
	size_t kb = 65536 / (size_t)(ncpus > 0 ? ncpus : 1);
	return kb < 1408 ? 1408 : kb > 8192 ? 8192 : kb;
}

int session_start(struct session *s, size_t buffer_kb)
{
	if (install_signals()) {
		fprintf(stderr, "%s: cannot install signal handlers: %s\n", s->tool,
			strerror(errno));
		return -1;
	}
	session_sweep_stale(s->tool);
	probe_sweep_stale(s->tool);
	snprintf(s->name, sizeof(s->name), SESSION_PREFIX "%s-%d", s->tool, (int)getpid());
	if (!active) {
		active = s;
		atexit(session_atexit);
	}
	s->inst = tracefs_instance_create(s->name);
	if (!s->inst) {
		fprintf(stderr, "%s: cannot create ftrace instance %s: %s (instances need Linux 3.14)\n",
			s->tool, s->name, strerror(errno));
		return -1;
	}
	if (!s->keep_clock && set_clock(s))
		return -1;
	if (opt_buffer_kb)
		buffer_kb = opt_buffer_kb; /* FTT_BUFFER_KB */
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

/* -p: the process's threads now; event-fork adds those it creates later. */
int session_set_pids(struct session *s, pid_t pid, pid_t tid)
{
	if (!pid && !tid)
		return 0;
	char buf[256];
	if (tid) {
		snprintf(buf, sizeof(buf), "%d", (int)tid);
		if (tracefs_instance_file_write(s->inst, "set_event_pid", buf) < 0)
			goto write_failed;
		return 0;
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d) {
		fprintf(stderr, "%s: cannot read the threads of PID %d (%s): %s\n", s->tool,
			(int)pid, path, errno == ENOENT ? "the process has exited" : strerror(errno));
		return -1;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(buf, sizeof(buf), "%.*s", (int)sizeof(buf) - 1, de->d_name);
		if (tracefs_instance_file_append(s->inst, "set_event_pid", buf) < 0) {
			closedir(d);
			goto write_failed;
		}
	}
	closedir(d);
	if (tracefs_option_enable(s->inst, TRACEFS_OPTION_EVENT_FORK)) {
		fprintf(stderr, "%s: cannot enable the event-fork option: %s\n", s->tool,
			strerror(errno));
		return -1;
	}
	return 0;
write_failed:
	fprintf(stderr, "%s: cannot write %s to set_event_pid: %s\n", s->tool, buf,
		strerror(errno));
	return -1;
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

void session_close(struct session *s)
{
	if (s->reader) {
		reader_close(s->reader);
		s->reader = NULL;
	}
	if (s->inst) {
		/* Removing the instance disables its events and frees its buffers. */
		if (tracefs_instance_destroy(s->inst))
			fprintf(stderr, "%s: cannot remove ftrace instance %s: %s\n", s->tool,
				s->name, strerror(errno));
		tracefs_instance_free(s->inst);
		s->inst = NULL;
	}
	/* Only now: the kernel refuses to remove a probe that an instance has enabled. */
	if (s->nprobes)
		probe_remove_all(s);
	if (s->tep) {
		tep_free(s->tep);
		s->tep = NULL;
	}
	if (active == s)
		active = NULL;
}
