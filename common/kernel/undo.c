// SPDX-License-Identifier: GPL-2.0-only
#include "kernel/undo.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/runid.h"
#include "base/state.h"
#include "kernel/sweepsay.h"

#define PREFIX "undo-"

int undo_begin(struct undo *u, const char *tool)
{
	char dir[PATH_MAX - 64], tmp[PATH_MAX], name[64];
	u->tool = tool;
	u->fd = -1;
	if (!state_dir(dir, sizeof(dir), true, tool))
		return -1; /* said */
	/* Made under another name and locked first: a sweep never sees it unlocked. */
	snprintf(name, sizeof(name), ".%s%s", PREFIX, runid_self());
	snprintf(tmp, sizeof(tmp), "%s/%s", dir, name);
	snprintf(u->path, sizeof(u->path), "%s/%s%s", dir, PREFIX, runid_self());
	unlink(tmp); /* a file of a run of this PID and start time: none alive */
	u->fd = state_open(dir, name, O_RDWR | O_CREAT | O_EXCL);
	if (u->fd < 0 || flock(u->fd, LOCK_EX) || rename(tmp, u->path)) {
		fprintf(stderr, "%s: cannot make the state file %s: %s\n", tool, u->path,
			strerror(errno));
		if (u->fd >= 0) {
			unlink(tmp);
			close(u->fd);
		}
		u->fd = -1;
		return -1;
	}
	return 0;
}

int undo_add(struct undo *u, const char *path, const char *line)
{
	char buf[8192];
	int n = snprintf(buf, sizeof(buf), "%s\t%s\n", path, line);
	if (strpbrk(path, "\t\n") || strpbrk(line, "\t\n") || n <= 0 || (size_t)n >= sizeof(buf)) {
		fprintf(stderr,
			"%s: cannot keep a line for %s in the state file (too long, or a "
			"tab or newline in it)\n",
			u->tool, path);
		return -1;
	}
	if (u->fd < 0 || write(u->fd, buf, (size_t)n) != n || fdatasync(u->fd)) {
		fprintf(stderr, "%s: cannot write the state file %s: %s\n", u->tool, u->path,
			u->fd < 0 ? "not open" : strerror(errno));
		return -1;
	}
	return 0;
}

void undo_end(struct undo *u)
{
	if (u->fd < 0)
		return;
	/* Emptied first: a sweep that opened it already finds nothing to do. */
	if (ftruncate(u->fd, 0) == 0)
		unlink(u->path);
	close(u->fd);
	u->fd = -1;
}

/* One locked file of a dead run: its lines written, each only to a file inside tracefs
 * (dry: counted). The number of lines that were. */
static int replay(int fd, int *failed, bool dry)
{
	FILE *f = fdopen(dup(fd), "r");
	if (!f)
		return 0;
	char *line = NULL;
	size_t cap = 0;
	int done = 0;
	while (getline(&line, &cap, f) > 0) {
		char *tab = strchr(line, '\t'), *nl = strchr(line, '\n');
		if (!tab || !nl)
			continue;
		*tab = *nl = 0;
		/* Gone: the instance went, and its trigger with it (the run removed it, or its
		 * instance, before it died): nothing is left to undo there. */
		struct stat st;
		if (line[0] == '/' && lstat(line, &st) && errno == ENOENT)
			continue;
		if (!state_tracefs_file(line, NULL)) {
			(*failed)++;
			continue;
		}
		if (dry) {
			done++;
			continue;
		}
		int w = open(line, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
		ssize_t n = w >= 0 ? write(w, tab + 1, strlen(tab + 1)) : -1;
		if (w >= 0)
			close(w);
		/* ENOENT: the instance went with its trigger (a kernel that removes both). */
		if (n == (ssize_t)strlen(tab + 1))
			done++;
		else if (errno != ENOENT && errno != EINVAL)
			(*failed)++;
	}
	free(line);
	fclose(f);
	return done;
}

int undo_recover(const char *tool)
{
	return undo_recover_how(tool, NULL);
}

int undo_recover_how(const char *tool, const struct sweep_how *how)
{
	bool dry = how && how->dry;
	char dir[PATH_MAX - 300];
	if (!state_dir(dir, sizeof(dir), false, tool))
		return 0;
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	int undone = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		struct runid id;
		const char *rest;
		if (strncmp(de->d_name, PREFIX, strlen(PREFIX)) ||
		    runid_parse(de->d_name + strlen(PREFIX), &id, &rest) || *rest)
			continue;
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		int fd = state_open(dir, de->d_name, O_RDWR);
		struct stat st;
		if (fd < 0 && errno == EPERM) {
			sweep_say(how, tool,
				  "%s is not root's with mode 0600, or is a link: not replayed "
				  "(remove it)",
				  path);
			continue;
		}
		/* Held: its run lives. Unlinked meanwhile: its run ended and undid it. */
		if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) || fstat(fd, &st) || st.st_nlink == 0) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		int failed = 0, n = replay(fd, &failed, dry);
		if (failed)
			sweep_say(
				how, tool,
				"%d of the changes left by a run that was killed %s not be undone "
				"(%s kept)",
				failed, dry ? "would" : "could", path);
		else if (!dry)
			unlink(path);
		if (n) {
			sweep_say(how, tool, "%s %d hist trigger%s left by a run that was killed",
				  dry ? "would remove" : "removed", n, n == 1 ? "" : "s");
			undone++;
		}
		close(fd);
	}
	closedir(d);
	return undone;
}
