// SPDX-License-Identifier: GPL-2.0-only
#include "kernel/toplevel.h"
#include "base/testhooks.h"
#include "base/sig.h"
#include "base/state.h"
#include "kernel/sweepsay.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

const char *toplevel_perf_tools_lock = "/var/tmp/.ftrace-lock";

#define STATE_FILE "top-level"

static char *read_all(int fd)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t n;
	while (buf && (n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (cap - len < 2) {
			char *more = realloc(buf, cap *= 2);
			if (!more)
				free(buf);
			buf = more;
		}
	}
	if (buf)
		buf[len] = 0;
	return buf;
}

static char *read_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	char *text = read_all(fd);
	int e = errno;
	close(fd);
	errno = e;
	return text;
}

/* Replace what the file holds with value; the kernel may take a list one word per write. */
static int write_path_flags(const char *path, const char *value, int flags)
{
	int fd = open(path, O_WRONLY | flags | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	for (const char *p = value, *end = p + strlen(p); p < end;) {
		ssize_t n = write(fd, p, (size_t)(end - p));
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;
			close(fd);
			errno = e;
			return -1;
		}
		p += n;
	}
	return close(fd);
}

static int write_path(const char *path, const char *value)
{
	return write_path_flags(path, value, O_TRUNC);
}

static bool is_list(const char *file)
{
	return !strncmp(file, "set_", 4);
}

int toplevel_normalize(const char *file, const char *text, char *out, size_t len)
{
	size_t n = 0;
	out[0] = 0;
	if (!strcmp(file, "trace_clock")) {
		const char *b = strchr(text, '['), *e = b ? strchr(b, ']') : NULL;
		if (!e || (size_t)(e - b) > len)
			return -1;
		snprintf(out, len, "%.*s", (int)(e - b - 1), b + 1);
		return 0;
	}
	if (!strcmp(file, "buffer_size_kb") && text[0] == 'X')
		return -1;
	if (!strcmp(file, "buffer_size_kb") && strstr(text, "(expanded: ")) {
		/* Unused since boot: the kernel gives it this size on first use, and no write
		 * takes it back to the placeholder. */
		snprintf(out, len, "%lld", atoll(strstr(text, "(expanded: ") + 11));
		return 0;
	}
	if (!is_list(file)) {
		size_t l = strcspn(text, "\n");
		if (l >= len)
			return -1;
		snprintf(out, len, "%.*s", (int)l, text);
		return 0;
	}
	for (const char *line = text; *line;) {
		size_t l = strcspn(line, "\n");
		if (l && line[0] != '#' && !(l == 6 && !memcmp(line, "no pid", 6))) {
			if (n + l + 2 > len)
				return -1;
			n += (size_t)snprintf(out + n, len - n, "%s%.*s", n ? " " : "", (int)l,
					      line);
		}
		line += l + (line[l] == '\n');
	}
	return 0;
}

static void path_of(const struct toplevel *tl, const char *file, char *buf, size_t len)
{
	if (snprintf(buf, len, "%s/%s", tl->dir, file) >= (int)len)
		buf[0] = 0; /* no such file: said by what fails to open it */
}

/* Append a line to the state file (it is only ever appended to while owned). */
static int state_line(struct toplevel *tl, const char *fmt, const char *a, const char *b)
{
	char line[PATH_MAX + 64];
	int n = snprintf(line, sizeof(line), fmt, a, b);
	if (n < 0 || (size_t)n >= sizeof(line))
		return -1;
	return write(tl->lock_fd, line, (size_t)n) == n ? 0 : -1;
}

static int save(struct toplevel *tl, const char *file)
{
	for (int i = 0; i < tl->n; i++)
		if (!strcmp(tl->set[i].file, file))
			return 0;
	if (tl->n == TOPLEVEL_MAX_SETTINGS || strlen(file) >= sizeof(tl->set[0].file)) {
		errno = ENOSPC;
		return -1;
	}
	char path[PATH_MAX + 64];
	path_of(tl, file, path, sizeof(path));
	char *text = read_path(path);
	if (!text)
		return -1;
	size_t len = strlen(text) + 32;
	char *value = malloc(len);
	if (!value || toplevel_normalize(file, text, value, len)) {
		free(text);
		free(value);
		errno = value ? ENOTSUP : ENOMEM;
		return -1;
	}
	free(text);
	/* The state first: killed from here on, the next run finds what to write back. */
	struct toplevel_setting *s = &tl->set[tl->n];
	if (state_line(tl, "set %s %s\n", file, value) ||
	    (s->emergency = sig_on_emergency_replace(path, value)) < 0) {
		free(value);
		return -1;
	}
	snprintf(s->file, sizeof(s->file), "%s", file);
	s->saved = value;
	tl->n++;
	return 0;
}

static int change(struct toplevel *tl, const char *file, const char *value, int flags)
{
	char path[PATH_MAX + 64];
	path_of(tl, file, path, sizeof(path));
	if (save(tl, file) || write_path_flags(path, value, flags)) {
		int e = errno;
		if (flags & O_APPEND)
			fprintf(stderr, "%s: cannot add '%s' to %s at the top level: %s%s\n",
				tl->tool, value, path, strerror(e),
				e == EPERM ? " (the kernel refuses it)" : "");
		else
			fprintf(stderr, "%s: cannot set %s to '%s' at the top level: %s%s\n",
				tl->tool, path, value, strerror(e),
				e == EPERM ? " (the kernel refuses it)" : "");
		errno = e;
		return -1;
	}
	return 0;
}

int toplevel_set(struct toplevel *tl, const char *file, const char *value)
{
	return change(tl, file, value, O_TRUNC);
}

int toplevel_add(struct toplevel *tl, const char *file, const char *value)
{
	return change(tl, file, value, O_APPEND);
}

/* Write the saved settings back: the tracer first (stopping it before its filters are
 * emptied, which would graph every function for a moment), then the others newest first.
 * Returns how many could not be written; their names in failed. */
static int restore(const char *dir, char *const *files, char *const *values, int n, char *failed,
		   size_t len)
{
	int bad = 0;
	failed[0] = 0;
	for (int k = 0; k < n; k++) {
		int i = k == 0 ? 0 : n - k;
		char path[PATH_MAX + 64];
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		if (!state_tracefs_file(path, dir))
			errno = EPERM; /* a state file's line naming a file outside tracefs */
		if (!state_tracefs_file(path, dir) || write_path(path, values[i])) {
			size_t used = strlen(failed);
			snprintf(failed + used, len - used, "%s%s (%s)", bad ? ", " : "", files[i],
				 strerror(errno));
			bad++;
		}
	}
	return bad;
}

static void remove_perf_lock(const char *pid)
{
	char *text = read_path(toplevel_perf_tools_lock);
	if (text && (int)strtol(text, NULL, 10) == atoi(pid))
		unlink(toplevel_perf_tools_lock);
	free(text);
}

/* Who the state file names as its owner: "funcgraph (PID 12, since 10:00:01)"; 0 when it
 * names nobody ("another ftrace-tools run"). */
static int owner_of(int fd, char *who, size_t len)
{
	lseek(fd, 0, SEEK_SET);
	char *text = read_all(fd);
	int pid = 0;
	char owner[64] = "another ftrace-tools run";
	long long since = 0;
	if (text && !strncmp(text, "owner ", 6))
		sscanf(text + 6, "%d %63s %lld", &pid, owner, &since);
	free(text);
	char when[32] = "";
	time_t t = (time_t)since;
	struct tm tm;
	if (since && localtime_r(&t, &tm))
		strftime(when, sizeof(when), ", since %H:%M:%S", &tm);
	if (pid)
		snprintf(who, len, "%s (PID %d%s)", owner, pid, when);
	else
		snprintf(who, len, "%s", owner);
	return pid != 0;
}

/* A "dir" line of a state file: this run's tracing folder, or another mount of tracefs
 * (the owner found it under debugfs, this run elsewhere). Anything else is not written to. */
static bool tracing_dir(const char *dir)
{
	const char *mine = tracefs_tracing_dir();
	char probe[PATH_MAX + 16];
	if (mine && !strcmp(dir, mine))
		return true;
	snprintf(probe, sizeof(probe), "%s/current_tracer", dir);
	return state_tracefs_file(probe, dir);
}

/* With the lock held: what a dead owner left in the state file, written back (with a dry
 * how: said). */
static int recover_locked(int fd, const char *tool, const struct sweep_how *how)
{
	lseek(fd, 0, SEEK_SET);
	char *text = read_all(fd);
	if (!text || !*text) {
		free(text);
		return 0;
	}
	char *files[TOPLEVEL_MAX_SETTINGS], *values[TOPLEVEL_MAX_SETTINGS];
	int n = 0, pid = 0;
	char owner[64] = "a run", dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", tracefs_tracing_dir() ? tracefs_tracing_dir() : "");
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		if (!strncmp(line, "owner ", 6))
			sscanf(line + 6, "%d %63s", &pid, owner);
		else if (!strncmp(line, "dir ", 4) && tracing_dir(line + 4))
			snprintf(dir, sizeof(dir), "%s", line + 4);
		else if (!strncmp(line, "perf-lock ", 10))
			remove_perf_lock(line + 10);
		else if (!strncmp(line, "set ", 4) && n < TOPLEVEL_MAX_SETTINGS) {
			char *sp = strchr(line + 4, ' ');
			if (!sp)
				continue;
			*sp = 0;
			files[n] = line + 4;
			values[n++] = sp + 1;
		}
	}
	if (how && how->dry) {
		char list[1024] = "";
		for (int i = 0, used = 0; i < n && used < (int)sizeof(list); i++)
			used += snprintf(list + used, sizeof(list) - (size_t)used, "%s%s='%s'",
					 i ? ", " : "", files[i], values[i]);
		sweep_say(how, tool,
			  "%s (PID %d) was killed holding the top-level tracer: would write back "
			  "its %d settings (%s)",
			  owner, pid, n, list);
		free(text);
		return 1;
	}
	char failed[512];
	int bad = restore(dir, files, values, n, failed, sizeof(failed));
	if (bad)
		sweep_say(how, tool,
			  "%s (PID %d) was killed holding the top-level tracer; could not write "
			  "back: %s",
			  owner, pid, failed);
	else
		sweep_say(how, tool,
			  "%s (PID %d) was killed holding the top-level tracer: restored its %d "
			  "settings",
			  owner, pid, n);
	free(text);
	if (ftruncate(fd, 0))
		return -1;
	return 1;
}

int toplevel_recover(const char *tool)
{
	return toplevel_recover_how(tool, NULL);
}

int toplevel_recover_how(const char *tool, const struct sweep_how *how)
{
	char dir[PATH_MAX - 16];
	if (!state_dir(dir, sizeof(dir), false, tool))
		return 0;
	int fd = state_open(dir, STATE_FILE, O_RDWR);
	if (fd < 0 && errno == EPERM)
		sweep_say(how, tool,
			  "%s/" STATE_FILE " is not root's with mode 0600, or is a link: not "
			  "replayed (remove it)",
			  dir);
	if (fd < 0)
		return 0;
	int ret = 0;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
		ret = recover_locked(fd, tool, how) > 0;
	} else if (how && how->left) {
		char who[128];
		owner_of(fd, who, sizeof(who));
		sweep_say(how, tool, "left the top level: %s owns it", who);
	}
	close(fd);
	return ret;
}

int toplevel_owner(char *who, size_t len)
{
	char dir[PATH_MAX - 16];
	snprintf(who, len, "nobody");
	if (!state_dir(dir, sizeof(dir), false, "toplevel"))
		return 0;
	int fd = state_open(dir, STATE_FILE, O_RDONLY);
	if (fd < 0)
		return 0;
	/* A shared lock is refused exactly while the owner holds its exclusive one. */
	int owned = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
	if (owned)
		owner_of(fd, who, len);
	close(fd);
	return owned;
}

int toplevel_hold(const char *tool, char *who, size_t len)
{
	char dir[PATH_MAX - 16];
	who[0] = 0;
	if (!state_dir(dir, sizeof(dir), true, tool))
		return -1; /* said */
	int fd = state_open(dir, STATE_FILE, O_RDWR | O_CREAT);
	if (fd < 0) {
		fprintf(stderr,
			"%s: cannot open the top-level tracer's state file %s/" STATE_FILE ": %s\n",
			tool, dir,
			errno == EPERM ? "not root's with mode 0600, or a link (remove it)" :
					 strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno == EWOULDBLOCK)
			owner_of(fd, who, len);
		else
			fprintf(stderr, "%s: cannot lock %s/" STATE_FILE ": %s\n", tool, dir,
				strerror(errno));
		close(fd);
		return -1;
	}
	if (recover_locked(fd, tool, NULL) < 0) {
		fprintf(stderr, "%s: cannot empty %s/" STATE_FILE ": %s\n", tool, dir,
			strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* toplevel_try: who holds the top level is not said. */
static bool quiet;

__attribute__((format(printf, 1, 2))) static void busy(const char *fmt, ...)
{
	if (quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static void say_owner(const char *tool, int fd)
{
	char who[128];
	if (owner_of(fd, who, sizeof(who)))
		busy("%s: the top-level tracer is in use by %s; one run at a time can own it\n",
		     tool, who);
	else
		busy("%s: the top-level tracer is in use by %s\n", tool, who);
}

/* Is the top level free of other users? (Those that are not ftrace-tools runs.) */
static int check_free(struct toplevel *tl)
{
	char path[PATH_MAX + 64], *text;
	path_of(tl, "current_tracer", path, sizeof(path));
	if (!(text = read_path(path))) {
		fprintf(stderr, "%s: cannot read %s: %s\n", tl->tool, path, strerror(errno));
		return -1;
	}
	text[strcspn(text, "\n")] = 0;
	if (strcmp(text, "nop")) {
		busy("%s: the top-level tracer is in use: current_tracer is %s, not set by "
		     "ftrace-tools (write nop to %s when nobody uses it)\n",
		     tl->tool, text, path);
		free(text);
		return -1;
	}
	free(text);
	path_of(tl, "set_event", path, sizeof(path));
	if ((text = read_path(path)) && *text) {
		const char *nl = strchr(text, '\n');
		busy("%s: the top-level buffer is in use: events are enabled there (%.*s%s in "
		     "%s)\n",
		     tl->tool, (int)strcspn(text, "\n"), text, nl && nl[1] ? ", ..." : "", path);
		free(text);
		return -1;
	}
	free(text);
	if ((text = read_path(toplevel_perf_tools_lock))) {
		busy("%s: ftrace is in use by perf-tools: %s names PID %d (remove it if no "
		     "perf-tools tool runs)\n",
		     tl->tool, toplevel_perf_tools_lock, atoi(text));
		free(text);
		return -1;
	}
	return 0;
}

/* perf-tools' tools refuse to start while this exists: they would take the tracer. */
static int take_perf_lock(struct toplevel *tl)
{
	int fd = open(toplevel_perf_tools_lock, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return errno == EEXIST ? check_free(tl) : 0; /* no /var/tmp: nothing to tell */
	char pid[32];
	int n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	tl->perf_lock = write(fd, pid, (size_t)n) == n;
	close(fd);
	if (!tl->perf_lock) {
		unlink(toplevel_perf_tools_lock);
		return 0;
	}
	pid[n - 1] = 0;
	return state_line(tl, "perf-lock %s%s\n", pid, "");
}

int toplevel_acquire(struct toplevel *tl, const char *tool)
{
	memset(tl, 0, sizeof(*tl));
	tl->tool = tool;
	tl->lock_fd = tl->on_fd = -1;
	const char *dir = tracefs_tracing_dir();
	char path[PATH_MAX];
	if (!dir) {
		fprintf(stderr, "%s: no tracefs (CONFIG_TRACING)\n", tool);
		return -1;
	}
	snprintf(tl->dir, sizeof(tl->dir), "%s", dir);
	char state[PATH_MAX - 16];
	if (!state_dir(state, sizeof(state), true, tool))
		return -1; /* said */
	snprintf(path, sizeof(path), "%s/" STATE_FILE, state);
	if ((tl->lock_fd = state_open(state, STATE_FILE, O_RDWR | O_CREAT)) < 0) {
		fprintf(stderr, "%s: cannot open the top-level tracer's state file %s: %s\n", tool,
			path,
			errno == EPERM ? "not root's with mode 0600, or a link (remove it)" :
					 strerror(errno));
		return -1;
	}
	snprintf(tl->state, sizeof(tl->state), "%s", path);
	if (flock(tl->lock_fd, LOCK_EX | LOCK_NB)) {
		if (errno == EWOULDBLOCK)
			say_owner(tool, tl->lock_fd);
		else
			fprintf(stderr, "%s: cannot lock %s: %s\n", tool, path, strerror(errno));
		close(tl->lock_fd);
		tl->lock_fd = -1;
		return -1;
	}
	char owner[PATH_MAX + 64];
	snprintf(owner, sizeof(owner), "%d %s %lld", (int)getpid(), tool, (long long)time(NULL));
	if (recover_locked(tl->lock_fd, tool, NULL) < 0 || check_free(tl) ||
	    ftruncate(tl->lock_fd, 0) || lseek(tl->lock_fd, 0, SEEK_SET) ||
	    state_line(tl, "owner %s\ndir %s\n", owner, tl->dir) || take_perf_lock(tl) ||
	    save(tl, "current_tracer")) {
		int e = errno;
		toplevel_release(tl);
		errno = e;
		return -1;
	}
	path_of(tl, "tracing_on", path, sizeof(path));
	tl->on_fd = open(path, O_WRONLY | O_CLOEXEC);
	return 0;
}

void toplevel_release(struct toplevel *tl)
{
	if (tl->lock_fd < 0)
		return;
	if (tl->on_fd >= 0)
		close(tl->on_fd);
	tl->on_fd = -1;
	char *files[TOPLEVEL_MAX_SETTINGS], *values[TOPLEVEL_MAX_SETTINGS], failed[512];
	for (int i = 0; i < tl->n; i++) {
		files[i] = tl->set[i].file;
		values[i] = tl->set[i].saved;
	}
	if ((tl->failed = restore(tl->dir, files, values, tl->n, failed, sizeof(failed)) > 0))
		fprintf(stderr,
			"%s: could not write back at the top level: %s (the state stays in %s for "
			"the next run)\n",
			tl->tool, failed, tl->state);
	else if (ftruncate(tl->lock_fd, 0) == 0 && tl->perf_lock)
		unlink(toplevel_perf_tools_lock);
	for (int i = 0; i < tl->n; i++) {
		sig_forget(tl->set[i].emergency);
		free(tl->set[i].saved);
	}
	tl->n = 0;
	tl->perf_lock = false;
	close(tl->lock_fd); /* the lock goes with it */
	tl->lock_fd = -1;
}

int toplevel_try(struct toplevel *tl, const char *tool)
{
	quiet = true;
	int ret = toplevel_acquire(tl, tool);
	quiet = false;
	return ret;
}
