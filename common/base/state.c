// SPDX-License-Identifier: GPL-2.0-only
#include "base/state.h"
#include "base/testhooks.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <tracefs.h>

const char *state_dir_for_tests;
bool state_fake_tracefs;

#define TRACEFS_MAGIC_NUMBER 0x74726163
#define DEBUGFS_MAGIC_NUMBER 0x64626720

/* A folder only this user (root) can change: theirs, nobody else may write it (sticky or
 * not: /tmp's sticky bit still lets anyone make the name first). */
static bool private_dir(const struct stat *st, mode_t none)
{
	return S_ISDIR(st->st_mode) && st->st_uid == geteuid() && !(st->st_mode & none);
}

const char *state_dir(char *buf, size_t len, bool make, const char *tool)
{
	const char *parent = "/run";
	int n = state_dir_for_tests ? snprintf(buf, len, "%s", state_dir_for_tests) :
				      snprintf(buf, len, "%s/ftrace-tools", parent);
	if (n <= 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	struct stat st;
	if (!state_dir_for_tests && (lstat(parent, &st) || !private_dir(&st, S_IWGRP | S_IWOTH))) {
		if (make)
			fprintf(stderr,
				"%s: no /run that only root writes, to keep the run state in (a "
				"tmpfs "
				"at /run, as systemd mounts it)\n",
				tool);
		errno = ENOENT;
		return NULL;
	}
	if (make && mkdir(buf, 0700) && errno != EEXIST) {
		fprintf(stderr, "%s: cannot make the run state folder %s: %s\n", tool, buf,
			strerror(errno));
		return NULL;
	}
	if (lstat(buf, &st))
		return NULL; /* none yet: nothing to replay */
	if (!private_dir(&st, S_IRWXG | S_IRWXO)) {
		fprintf(stderr,
			"%s: the run state folder %s is not to be trusted (%s, owner %u, mode "
			"%04o; "
			"it must be root's, mode 0700): remove it\n",
			tool, buf,
			S_ISLNK(st.st_mode) ? "a link" :
			S_ISDIR(st.st_mode) ? "a folder" :
					      "not a folder",
			(unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		errno = EPERM;
		return NULL;
	}
	return buf;
}

int state_open(const char *dir, const char *name, int flags)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	int fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC, 0600);
	struct stat st;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) || st.st_nlink != 1) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

bool state_tracefs_file(const char *path, const char *tracing)
{
	if (!tracing)
		tracing = tracefs_tracing_dir();
	size_t tl = tracing ? strlen(tracing) : 0;
	if (!tl || path[0] != '/' || strncmp(path, tracing, tl) || path[tl] != '/')
		return false;
	for (const char *p = path; (p = strchr(p, '/'));) {
		p++;
		if ((p[0] == '.' && (p[1] == '/' || !p[1])) ||
		    (p[0] == '.' && p[1] == '.' && (p[2] == '/' || !p[2])) || p[0] == '/')
			return false;
	}
	struct statfs fs;
	if (state_fake_tracefs)
		return true;
	return statfs(path, &fs) == 0 &&
	       (fs.f_type == TRACEFS_MAGIC_NUMBER || fs.f_type == DEBUGFS_MAGIC_NUMBER);
}
