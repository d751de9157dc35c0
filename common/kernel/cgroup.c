// SPDX-License-Identifier: GPL-2.0-only
#include "kernel/cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#define CGROUP_MAGIC 0x27e0eb
#define CGROUP2_MAGIC 0x63677270

/* The mount of the cgroup file system that holds path (/proc/self/mountinfo): its root
 * inside the hierarchy, its mount point, and its options (v1: the controllers). */
static int find_mount(const char *path, char *root, char *point, char *opts, bool *v2)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -1;
	char line[8192], r[4096], p[4096], fstype[64], super[4096];
	size_t best = 0;
	while (fgets(line, sizeof(line), f)) {
		/* ID PARENT MAJ:MIN ROOT POINT OPTS [optional...] - FSTYPE SOURCE SUPEROPTS */
		const char *dash = strstr(line, " - ");
		if (!dash || sscanf(line, "%*d %*d %*s %4095s %4095s", r, p) != 2 ||
		    sscanf(dash + 3, "%63s %*s %4095s", fstype, super) != 2)
			continue;
		if (strcmp(fstype, "cgroup") && strcmp(fstype, "cgroup2"))
			continue;
		size_t n = strlen(p);
		if (strncmp(path, p, n) || (path[n] && path[n] != '/' && n > 1) || n <= best)
			continue;
		best = n;
		strcpy(root, r);
		strcpy(point, p);
		strcpy(opts, super);
		*v2 = !strcmp(fstype, "cgroup2");
	}
	fclose(f);
	return best ? 0 : -1;
}

int cgroup_open(struct cgroup *cg, const char *path, char *why, size_t whylen)
{
	memset(cg, 0, sizeof(*cg));
	char real[PATH_MAX];
	struct statfs fs;
	struct stat st;
	if (!realpath(path, real) || stat(real, &st)) {
		snprintf(why, whylen, "%s", strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode) || statfs(real, &fs) ||
	    (fs.f_type != CGROUP_MAGIC && fs.f_type != CGROUP2_MAGIC)) {
		snprintf(why, whylen, "not a cgroup (a folder of a cgroup or cgroup2 file system)");
		return -1;
	}
	char root[4096], point[4096], opts[4096];
	if (find_mount(real, root, point, opts, &cg->v2)) {
		snprintf(why, whylen, "its cgroup file system is not in /proc/self/mountinfo");
		return -1;
	}
	snprintf(cg->path, sizeof(cg->path), "%s", real);
	const char *inside = real + strlen(point);
	snprintf(cg->rel, sizeof(cg->rel), "%s%s", strcmp(root, "/") ? root : "",
		 *inside ? inside : "");
	if (!cg->rel[0])
		strcpy(cg->rel, "/");
	if (!cg->v2) {
		/* v1: the hierarchy is named in /proc/PID/cgroup by its controllers, or
		 * "name=X"; the super options list them among others (rw, ...). */
		size_t n = 0;
		char *save = NULL;
		for (char *w = strtok_r(opts, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
			if (!strcmp(w, "rw") || !strcmp(w, "ro") ||
			    !strncmp(w, "release_agent", 13) || !strcmp(w, "clone_children") ||
			    !strcmp(w, "noprefix") || !strncmp(w, "xattr", 5) ||
			    !strcmp(w, "cpuset_v2_mode"))
				continue;
			n += (size_t)snprintf(cg->controllers + n, sizeof(cg->controllers) - n,
					      "%s%s", n ? "," : "", w);
			if (n >= sizeof(cg->controllers))
				break;
		}
	}
	return 0;
}

static int walk(const char *dir, bool v2, void (*fn)(pid_t, void *), void *ctx, int depth)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", dir, v2 ? "cgroup.threads" : "tasks");
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	int n = 0;
	long tid;
	while (fscanf(f, "%ld", &tid) == 1)
		if (tid > 0 && tid <= INT_MAX) {
			fn((pid_t)tid, ctx);
			n++;
		}
	fclose(f);
	DIR *d = depth < 64 ? opendir(dir) : NULL;
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		int k = walk(path, v2, fn, ctx, depth + 1);
		n += k > 0 ? k : 0;
	}
	if (d)
		closedir(d);
	return n;
}

int cgroup_threads(const struct cgroup *cg, void (*fn)(pid_t tid, void *ctx), void *ctx)
{
	return walk(cg->path, cg->v2, fn, ctx, 0);
}

bool cgroup_in(const struct cgroup *cg, const char *text)
{
	size_t rl = strlen(cg->rel);
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		/* "ID:CONTROLLERS:PATH" */
		char line[4096];
		size_t n = strcspn(l, "\n");
		if (n >= sizeof(line))
			continue;
		memcpy(line, l, n);
		line[n] = 0;
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
		if (!b)
			continue;
		*a = *b = 0;
		const char *ctl = a + 1, *p = b + 1;
		if (cg->v2 ? (strcmp(line, "0") || *ctl) : strcmp(ctl, cg->controllers))
			continue;
		return !strcmp(cg->rel, "/") ||
		       (!strncmp(p, cg->rel, rl) && (p[rl] == 0 || p[rl] == '/'));
	}
	return false;
}

bool cgroup_has(const struct cgroup *cg, pid_t tid)
{
	char path[64], text[16384];
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return false;
	text[n] = 0;
	return cgroup_in(cg, text);
}
