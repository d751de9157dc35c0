// SPDX-License-Identifier: GPL-2.0-only
/*
 * A process's threads (threads.h).
 */
#include "base/threads.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int threads_read(pid_t pid, pid_t **tids, size_t *n)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	*tids = NULL;
	*n = 0;
	DIR *d = opendir(path);
	if (!d)
		return -1;
	pid_t *ids = NULL;
	size_t len = 0, cap = 0;
	struct dirent *de;
	int err = 0;
	errno = 0;
	while ((de = readdir(d))) {
		char *end;
		long id = strtol(de->d_name, &end, 10);
		errno = 0;
		if (*end || id <= 0 || id > INT32_MAX)
			continue; /* . and .. */
		if (len == cap) {
			pid_t *more = realloc(ids, (cap ? 2 * cap : 64) * sizeof(*ids));
			if (!more) {
				err = ENOMEM;
				break;
			}
			ids = more;
			cap = cap ? 2 * cap : 64;
		}
		ids[len++] = (pid_t)id;
	}
	if (!err && errno)
		err = errno;
	closedir(d);
	if (err) {
		free(ids);
		errno = err;
		return -1;
	}
	*tids = ids;
	*n = len;
	return 0;
}

int threads_each_list(const char *tool, pid_t pid, pid_t tid, size_t chunk,
		      int (*add)(void *ctx, const char *ids), void *ctx)
{
	if (tid) {
		char id[16];
		snprintf(id, sizeof(id), "%d", (int)tid);
		return add(ctx, id);
	}
	pid_t *tids;
	size_t n;
	if (threads_read(pid, &tids, &n)) {
		fprintf(stderr, "%s: cannot read the threads of PID %d (/proc/%d/task): %s\n", tool,
			(int)pid, (int)pid,
			errno == ENOENT ? "the process has exited" : strerror(errno));
		return -1;
	}
	/* Each ID at most 11 bytes and a space. */
	char *buf = malloc(n * 12 + 1);
	if (!buf) {
		fprintf(stderr, "%s: out of memory for a list of %zu thread IDs\n", tool, n);
		free(tids);
		return -1;
	}
	size_t len = 0;
	int ret = 0;
	for (size_t i = 0; i < n && !ret; i++) {
		char id[16];
		int w = snprintf(id, sizeof(id), "%d", (int)tids[i]);
		if (chunk && len && len + 1 + (size_t)w >= chunk) {
			ret = add(ctx, buf);
			len = 0;
		}
		len += (size_t)sprintf(buf + len, "%s%s", len ? " " : "", id);
	}
	if (!ret && len)
		ret = add(ctx, buf);
	free(buf);
	free(tids);
	return ret ? -1 : 0;
}
