// SPDX-License-Identifier: GPL-2.0-only
#include "kernel/reset.h"
#include "base/testhooks.h"
#include "base/runid.h"
#include "kernel/toplevel.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

/* --- reading and writing top-level files ----------------------------------------------------- */

/* The text of a top-level file; NULL with errno (ENOENT: this kernel has no such file). */
static char *top_read(const char *file)
{
	char *path = tracefs_get_tracing_file(file);
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	int e = path ? errno : ENOMEM;
	tracefs_put_tracing_file(path);
	if (fd < 0) {
		errno = e;
		return NULL;
	}
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t n = 0;
	while (buf && (n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (cap - len < 2) {
			char *more = realloc(buf, cap *= 2);
			if (!more)
				free(buf);
			buf = more;
		}
	}
	e = n < 0 ? errno : ENOMEM;
	close(fd);
	if (!buf || n < 0) {
		free(buf);
		errno = e;
		return NULL;
	}
	buf[len] = 0;
	return buf;
}

/* Write value to a top-level file: replacing what it holds (O_TRUNC; an empty value empties
 * it) or added to it (O_APPEND: a probe's removal). -1 with errno. */
static int top_write(const char *file, const char *value, int how)
{
	char *path = tracefs_get_tracing_file(file);
	int fd = path ? open(path, O_WRONLY | how | O_CLOEXEC | O_NOFOLLOW) : -1;
	int e = path ? errno : ENOMEM;
	tracefs_put_tracing_file(path);
	if (fd < 0) {
		errno = e;
		return -1;
	}
	size_t len = strlen(value);
	ssize_t n = len ? write(fd, value, len) : 0;
	e = n < 0 ? errno : EIO;
	if (close(fd) && n == (ssize_t)len)
		return -1;
	if (n != (ssize_t)len) {
		errno = e;
		return -1;
	}
	return 0;
}

/* --- what is said ----------------------------------------------------------------------------- */

struct run {
	const struct reset_opts *o;
	int changed;  /* things changed (dry: that would be) */
	int failed;   /* things that could not be reset */
	bool refused; /* dry, without force: the run would be refused (said); planned all the same */
};

__attribute__((format(printf, 2, 3))) static void say(struct run *r, const char *fmt, ...)
{
	if (!r->o->out)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(r->o->out, fmt, ap);
	va_end(ap);
	putc('\n', r->o->out);
}

/* "a b c" cut to about 60 bytes, "a b ... (12 in all)" */
static void list_of(const char *words, char *buf, size_t len)
{
	size_t n = 1;
	for (const char *p = words; (p = strchr(p, ' ')); p++)
		n++;
	if (strlen(words) < 60 || len < 80) {
		snprintf(buf, len, "%s", words);
		return;
	}
	int cut = 56;
	while (cut > 0 && words[cut] != ' ')
		cut--;
	snprintf(buf, len, "%.*s ... (%zu in all)", cut, words, n);
}

/* --- who uses the top level ------------------------------------------------------------------ */

const char *reset_mounts_for_tests;

/* The tracing folders of this machine: tracefs_tracing_dir(), the mounts of tracefs, and
 * tracing/ in those of debugfs. NUL-separated in buf. */
static size_t tracing_dirs(char *buf, size_t len)
{
	size_t used = 0;
	const char *mine = tracefs_tracing_dir();
	if (mine && strlen(mine) + 1 < len) {
		memcpy(buf, mine, strlen(mine) + 1);
		used = strlen(mine) + 1;
	}
	FILE *f = fopen(reset_mounts_for_tests ? reset_mounts_for_tests : "/proc/self/mounts", "r");
	char line[1024];
	while (f && fgets(line, sizeof(line), f)) {
		char dir[512], type[64];
		if (sscanf(line, "%*s %511s %63s", dir, type) != 2)
			continue;
		if (!strcmp(type, "debugfs"))
			strncat(dir, "/tracing", sizeof(dir) - strlen(dir) - 1);
		else if (strcmp(type, "tracefs"))
			continue;
		if (used + strlen(dir) + 1 < len) {
			memcpy(buf + used, dir, strlen(dir) + 1);
			used += strlen(dir) + 1;
		}
	}
	if (f)
		fclose(f);
	return used;
}

/* Is rel (a path below a tracing folder) one of the top level's buffers? */
static bool top_buffer(const char *rel)
{
	static const char *const files[] = {"trace_pipe", "trace", "snapshot", "trace_pipe_raw",
					    "snapshot_raw"};
	const char *name = rel;
	if (!strncmp(rel, "per_cpu/cpu", 11)) {
		const char *p = rel + 11;
		while (*p >= '0' && *p <= '9')
			p++;
		if (p == rel + 11 || *p != '/')
			return false;
		name = p + 1;
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++)
		if (!strcmp(name, files[i]))
			return true;
	return false;
}

int reset_reader(char *who, size_t len)
{
	char dirs[4096];
	size_t ndirs = tracing_dirs(dirs, sizeof(dirs));
	DIR *proc = opendir("/proc");
	struct dirent *de;
	int found = 0;
	while (!found && proc && (de = readdir(proc))) {
		int pid = atoi(de->d_name);
		if (pid <= 0 || pid == getpid())
			continue;
		char fds[64];
		snprintf(fds, sizeof(fds), "/proc/%d/fd", pid);
		DIR *d = opendir(fds);
		struct dirent *fe;
		while (!found && d && (fe = readdir(d))) {
			char link[PATH_MAX + 64], target[PATH_MAX];
			snprintf(link, sizeof(link), "%s/%s", fds, fe->d_name);
			ssize_t n = readlink(link, target, sizeof(target) - 1);
			if (n <= 0)
				continue;
			target[n] = 0;
			for (size_t at = 0; at < ndirs; at += strlen(dirs + at) + 1) {
				size_t l = strlen(dirs + at);
				if (strncmp(target, dirs + at, l) || target[l] != '/' ||
				    !top_buffer(target + l + 1))
					continue;
				char comm[64] = "?", path[64];
				snprintf(path, sizeof(path), "/proc/%d/comm", pid);
				FILE *f = fopen(path, "r");
				if (f) {
					if (!fgets(comm, sizeof(comm), f))
						snprintf(comm, sizeof(comm), "?");
					fclose(f);
				}
				comm[strcspn(comm, "\n")] = 0;
				snprintf(who, len, "PID %d (%s) reads %s", pid, comm,
					 target + l + 1);
				found = 1;
				break;
			}
		}
		if (d)
			closedir(d);
	}
	if (proc)
		closedir(proc);
	return found;
}

/* Refused, or allowed with force: 0 to go on. */
static int check_users(struct run *r, int *hold)
{
	const struct reset_opts *o = r->o;
	char who[256];
	*hold = -1;
	/* A run of these tools: it gives the top level back as it found it when it ends.
	 * Held from here on, so that none takes it while this resets. */
	if (o->dry ? toplevel_owner(who, sizeof(who)) :
		     (*hold = toplevel_hold(o->tool, who, sizeof(who))) < 0) {
		if (*who && strcmp(who, "nobody"))
			fprintf(stderr,
				"%s: the top-level tracer is in use by %s: not reset (it writes "
				"its settings back when it ends; stop it first)\n",
				o->tool, who);
		return -1;
	}
	int fd = open(toplevel_perf_tools_lock, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0) {
		char text[32] = "";
		ssize_t n = read(fd, text, sizeof(text) - 1);
		close(fd);
		int pid = n > 0 ? atoi(text) : 0;
		bool alive = pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
		snprintf(who, sizeof(who), "%s names PID %d%s", toplevel_perf_tools_lock, pid,
			 pid <= 0 ? "" :
			 alive	  ? ", alive" :
				    ", gone");
		if (!o->force) {
			fprintf(stderr,
				"%s: ftrace is in use by perf-tools: %s: not reset (-f removes the "
				"lock and resets)\n",
				o->tool, who);
			/* -n: what -f would do is said all the same, the lock first. */
			if (!o->dry)
				return -1;
			r->refused = true;
		}
		if (o->dry || unlink(toplevel_perf_tools_lock) == 0) {
			say(r, "%s perf-tools' lock (%s)%s", o->dry ? "would remove" : "removed",
			    who, o->force ? "" : " with -f");
			r->changed++;
		} else {
			fprintf(stderr, "%s: cannot remove %s: %s\n", o->tool,
				toplevel_perf_tools_lock, strerror(errno));
			return -1;
		}
	}
	if (reset_reader(who, sizeof(who))) {
		if (!o->force) {
			fprintf(stderr,
				"%s: the top level is in use: %s: not reset (-f resets it all "
				"the same)\n",
				o->tool, who);
			if (!o->dry)
				return -1;
			r->refused = true;
		}
		say(r, "%s the top level while %s%s", o->dry ? "would reset" : "resetting", who,
		    o->force ? "" : " with -f");
	}
	return 0;
}

/* --- the settings ----------------------------------------------------------------------------- */

/* A file set to value when it holds something else ("0", "nop"). */
static void set_value(struct run *r, const char *file, const char *value)
{
	char *text = top_read(file), now[256];
	if (!text) {
		if (errno != ENOENT) {
			fprintf(stderr, "%s: cannot read %s: %s\n", r->o->tool, file,
				strerror(errno));
			r->failed++;
		}
		return;
	}
	snprintf(now, sizeof(now), "%.*s", (int)strcspn(text, "\n"), text);
	free(text);
	if (!strcmp(now, value))
		return;
	if (!r->o->dry && top_write(file, value, O_TRUNC)) {
		fprintf(stderr, "%s: cannot set %s to %s: %s\n", r->o->tool, file, value,
			strerror(errno));
		r->failed++;
		return;
	}
	say(r, "%s %s from %s to %s", r->o->dry ? "would set" : "set", file, now, value);
	r->changed++;
}

/* A list (of functions, PIDs) emptied when it holds something. */
static void empty_list(struct run *r, const char *file)
{
	char *text = top_read(file);
	if (!text && errno == ENOENT)
		return;
	if (!text) {
		/* 6.18 with lockdown: set_ftrace_filter can be neither read nor written, and
		 * then no function tracer runs to use it. */
		int e = errno;
		if (!r->o->dry && top_write(file, "", O_TRUNC) == 0) {
			say(r, "emptied %s (it could not be read: %s)", file, strerror(e));
			r->changed++;
		} else {
			say(r, "left %s as it is: the kernel refuses it (%s)", file,
			    strerror(r->o->dry ? e : errno));
		}
		return;
	}
	size_t len = strlen(text) + 32;
	char *words = malloc(len), shown[128];
	if (!words || toplevel_normalize(file, text, words, len)) {
		fprintf(stderr, "%s: cannot read %s: out of memory\n", r->o->tool, file);
		r->failed++;
	} else if (*words) {
		list_of(words, shown, sizeof(shown));
		if (!r->o->dry && top_write(file, "", O_TRUNC)) {
			fprintf(stderr, "%s: cannot empty %s: %s\n", r->o->tool, file,
				strerror(errno));
			r->failed++;
		} else {
			say(r, "%s %s (it held %s)", r->o->dry ? "would empty" : "emptied", file,
			    shown);
			r->changed++;
		}
	}
	free(words);
	free(text);
}

/* Every event disabled at the top level (set_event lists the enabled ones). */
static void disable_events(struct run *r)
{
	char *text = top_read("set_event");
	if (!text) {
		if (errno != ENOENT) {
			fprintf(stderr, "%s: cannot read set_event: %s\n", r->o->tool,
				strerror(errno));
			r->failed++;
		}
		return;
	}
	size_t n = 0;
	for (char *p = text; *p; p++)
		if (*p == '\n') {
			*p = p[1] ? ' ' : 0;
			n++;
		}
	if (n) {
		char shown[128];
		list_of(text, shown, sizeof(shown));
		if (!r->o->dry && top_write("events/enable", "0", O_TRUNC)) {
			fprintf(stderr, "%s: cannot disable the events: %s\n", r->o->tool,
				strerror(errno));
			r->failed++;
		} else {
			say(r, "%s %zu event%s at the top level: %s",
			    r->o->dry ? "would disable" : "disabled", n, n == 1 ? "" : "s", shown);
			r->changed++;
		}
	}
	free(text);
}

/* The probes of file (kprobe_events, uprobe_events) that are not these tools' (the sweep
 * removes theirs when their run is gone), each removed unless something has it enabled. */
static void remove_probes(struct run *r, const char *file, const char *what)
{
	char *text = top_read(file), *save = NULL;
	if (!text) {
		if (errno != ENOENT) {
			fprintf(stderr, "%s: cannot read %s: %s\n", r->o->tool, file,
				strerror(errno));
			r->failed++;
		}
		return;
	}
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char group[128], event[128], cmd[300];
		const char *colon = strchr(l, ':'), *rest;
		struct runid id;
		if (!colon || sscanf(colon + 1, "%127[^/]/%127s", group, event) != 2)
			continue;
		if (!strncmp(group, RUNID_GROUP_PREFIX, strlen(RUNID_GROUP_PREFIX)) &&
		    runid_parse(group + strlen(RUNID_GROUP_PREFIX), &id, &rest) == 0 && !*rest)
			continue; /* these tools': a live run's is its own, a dead run's swept */
		snprintf(cmd, sizeof(cmd), "-:%s/%s\n", group, event);
		if (!r->o->dry && top_write(file, cmd, O_APPEND)) {
			say(r, "left %s %s: %s", what, l,
			    errno == EBUSY ? "in use (enabled in an instance, or by perf)" :
					     strerror(errno));
			r->failed++;
		} else {
			say(r, "%s %s %s", r->o->dry ? "would remove" : "removed", what, l);
			r->changed++;
		}
	}
	free(text);
}

int reset_toplevel(const struct reset_opts *o)
{
	struct run r = {o, 0, 0, false};
	int hold;
	if (check_users(&r, &hold))
		return -1;
	/* The tracer first: emptying its filter while it runs would trace every function. */
	set_value(&r, "current_tracer", "nop");
	static const char *const lists[] = {
		"set_ftrace_filter", "set_ftrace_notrace",    "set_graph_function",
		"set_graph_notrace", "set_ftrace_pid",	      "set_ftrace_notrace_pid",
		"set_event_pid",     "set_event_notrace_pid",
	};
	for (size_t i = 0; i < sizeof(lists) / sizeof(*lists); i++)
		empty_list(&r, lists[i]);
	/* The events before the probes: a probe enabled here cannot be removed. */
	disable_events(&r);
	set_value(&r, "tracing_thresh", "0");
	remove_probes(&r, "kprobe_events", "kprobe");
	remove_probes(&r, "uprobe_events", "uprobe");
	set_value(&r, "tracing_on", "1");
	if (!r.changed && !r.failed)
		say(&r, "nothing to reset at the top level");
	if (hold >= 0)
		close(hold); /* the lock goes with it */
	if (r.failed)
		fprintf(stderr, "%s: %d thing%s could not be reset (said above)\n", o->tool,
			r.failed, r.failed == 1 ? "" : "s");
	return r.failed || r.refused ? -1 : 0;
}
