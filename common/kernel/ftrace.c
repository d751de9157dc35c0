// SPDX-License-Identifier: GPL-2.0-only
#include "kernel/ftrace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracefs.h>

#include "base/sig.h"

bool ftrace_name_valid(const char *name)
{
	return *name && strcmp(name, ".") && strcmp(name, "..") && !strchr(name, '/');
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Subdirectories of dir matching glob, sorted; a name without glob characters is looked up
 * directly. Listing is slow on eventfs (6.x): only when needed. */
static char **list_dirs(const char *dir, const char *glob, int *n)
{
	char path[PATH_MAX];
	char **names = NULL;
	*n = 0;
	if (!strpbrk(glob, "*?[")) {
		snprintf(path, sizeof(path), "%s/%s", dir, glob);
		if (is_dir(path) && (names = malloc(sizeof(*names))) && (names[0] = strdup(glob)))
			*n = 1;
		return names;
	}
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN) ||
		    fnmatch(glob, de->d_name, 0))
			continue;
		if (de->d_type == DT_UNKNOWN) {
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			if (!is_dir(path))
				continue;
		}
		char **more = realloc(names, (size_t)(*n + 1) * sizeof(*names));
		if (!more)
			break;
		names = more;
		if ((names[*n] = strdup(de->d_name)))
			(*n)++;
	}
	if (d)
		closedir(d);
	if (*n)
		qsort(names, (size_t)*n, sizeof(*names), cmp_str);
	return names;
}

static void free_list(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int ftrace_events(const char *spec, void (*fn)(const char *sys, const char *ev, void *ctx),
		  void *ctx, int *skipped, char *why, size_t whylen)
{
	const char *colon = strchr(spec, ':');
	char sys_glob[256], ev_glob[256];
	if (skipped)
		*skipped = 0;
	if (!colon) {
		snprintf(why, whylen, "SYSTEM:EVENT expected, e.g. block:block_rq_issue");
		return -1;
	}
	snprintf(sys_glob, sizeof(sys_glob), "%.*s", (int)(colon - spec), spec);
	snprintf(ev_glob, sizeof(ev_glob), "%s", colon + 1);
	if (!ftrace_name_valid(sys_glob) || !ftrace_name_valid(ev_glob) || strchr(ev_glob, ':')) {
		snprintf(why, whylen,
			 "SYSTEM and EVENT must be names or globs, not empty, '.', "
			 "'..' or with '/'");
		return -1;
	}
	char events[PATH_MAX];
	snprintf(events, sizeof(events), "%s/events", tracefs_tracing_dir());
	int n = 0, nsys, nev;
	char **systems = list_dirs(events, sys_glob, &nsys);
	for (int i = 0; i < nsys; i++) {
		char sysdir[PATH_MAX + 256], enable[PATH_MAX + 300];
		snprintf(sysdir, sizeof(sysdir), "%s/%s", events, systems[i]);
		/* Events that cannot be enabled have no enable file: those of the ftrace system
		 * (the function, stack and print records the tracers write themselves). Since
		 * 6.x the system has none either; on 5.10 it has one, so its events are looked at
		 * one by one (a stat each: only there, it is slow on eventfs). */
		snprintf(enable, sizeof(enable), "%s/enable", sysdir);
		bool traceable = access(enable, F_OK) == 0, each = !strcmp(systems[i], "ftrace");
		char **evs = list_dirs(sysdir, ev_glob, &nev);
		for (int j = 0; j < nev; j++) {
			bool ok = traceable;
			if (ok && each) {
				snprintf(enable, sizeof(enable), "%s/%s/enable", sysdir, evs[j]);
				ok = access(enable, F_OK) == 0;
			}
			if (!ok) {
				if (skipped)
					(*skipped)++;
				continue;
			}
			fn(systems[i], evs[j], ctx);
			n++;
		}
		free_list(evs, nev);
	}
	free_list(systems, nsys);
	return n;
}

int ftrace_functions(const char *glob, void (*fn)(const char *name, const char *mod, void *ctx),
		     void *ctx)
{
	char *path = tracefs_get_tracing_file("available_filter_functions");
	FILE *f = path ? fopen(path, "re") : NULL;
	int e = errno;
	tracefs_put_tracing_file(path);
	if (!f) {
		errno = path ? e : ENOENT;
		return -1;
	}
	char line[1024];
	int n = 0;
	while (fgets(line, sizeof(line), f)) {
		/* "name", "name [module]"; 6.x may add an address column first with options */
		line[strcspn(line, "\n")] = 0;
		char *mod = strchr(line, ' ');
		if (mod) {
			*mod++ = 0;
			if (*mod == '[') {
				mod++;
				mod[strcspn(mod, "]")] = 0;
			} else {
				mod = NULL;
			}
		}
		if (!glob || !fnmatch(glob, line, 0)) {
			if (fn)
				fn(line, mod, ctx);
			n++;
		}
	}
	if (ferror(f)) {
		e = errno;
		fclose(f);
		errno = e;
		return -1;
	}
	fclose(f);
	return n;
}

int ftrace_function_traceable(const char *func)
{
	char name[512];
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(func, "+"), func);
	/* A name with glob characters would match others: look it up escaped. */
	if (strpbrk(name, "*?[\\"))
		return 0;
	int n = ftrace_functions(name, NULL, NULL);
	return n < 0 ? -1 : n > 0;
}

bool ftrace_tracer_available(const char *tracer)
{
	char *list = tracefs_instance_file_read(NULL, "available_tracers", NULL);
	bool found = false;
	char *save = NULL;
	for (char *w = list ? strtok_r(list, " \n", &save) : NULL; w && !found;
	     w = strtok_r(NULL, " \n", &save))
		found = !strcmp(w, tracer);
	free(list);
	return found;
}

int ftrace_set_tracer(struct tracefs_instance *inst, const char *tracer, const char *tool)
{
	if (tracefs_instance_file_write(inst, "current_tracer", tracer) >= 0)
		return 0;
	int e = errno;
	if (e == EPERM || e == EACCES)
		fprintf(stderr, "%s: the kernel refuses the %s tracer (%s)\n", tool, tracer,
			strerror(e));
	else if (!ftrace_tracer_available(tracer))
		fprintf(stderr, "%s: no %s tracer in this kernel (CONFIG_%s)\n", tool, tracer,
			!strcmp(tracer, "function_graph") ? "FUNCTION_GRAPH_TRACER" :
							    "FUNCTION_TRACER");
	else
		fprintf(stderr, "%s: cannot set the %s tracer%s: %s\n", tool, tracer,
			inst ? " in an instance" : "", strerror(e));
	errno = e;
	return -1;
}

int ftrace_set_functions(struct tracefs_instance *inst, const char *file, const char *const *funcs,
			 int n, const char *tool)
{
	char *path = tracefs_instance_get_file(inst, file);
	int fd = path ? open(path, O_WRONLY | O_TRUNC | O_CLOEXEC) : -1;
	int e = errno;
	if (fd < 0) {
		fprintf(stderr, "%s: cannot open %s: %s%s\n", tool, path ? path : file, strerror(e),
			e == EPERM ? " (the kernel refuses it)" : "");
		tracefs_put_tracing_file(path);
		errno = e;
		return -1;
	}
	for (int i = 0; i < n; i++) {
		/* Each glob with its newline, in one write: the kernel's parser takes a word
		 * only at the whitespace that ends it, so words written bare run together
		 * across writes ("vfs_read" then "vfs_write*" is one word that matches
		 * nothing, and a filter emptied at close traces every function). */
		char word[512];
		int len = snprintf(word, sizeof(word), "%s\n", funcs[i]);
		if (len < 0 || (size_t)len >= sizeof(word) ||
		    write(fd, word, (size_t)len) != (ssize_t)len) {
			e = len < 0 || (size_t)len >= sizeof(word) ? ENAMETOOLONG : errno;
			fprintf(stderr, "%s: the kernel rejected '%s' in %s: %s%s\n", tool,
				funcs[i], file, strerror(e),
				e == EINVAL ? " (no such traceable function)" : "");
			close(fd);
			tracefs_put_tracing_file(path);
			errno = e;
			return -1;
		}
	}
	close(fd);
	/* Never an empty filter where functions were asked for: it means all of them. */
	fd = n ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	char head[8] = "";
	ssize_t got = fd >= 0 ? read(fd, head, sizeof(head)) : 0;
	if (fd >= 0)
		close(fd);
	if (n && (got <= 0 || head[0] == '#')) {
		fprintf(stderr, "%s: %s holds none of the functions written to it\n", tool, path);
		tracefs_put_tracing_file(path);
		errno = EINVAL;
		return -1;
	}
	tracefs_put_tracing_file(path);
	return 0;
}

/* A tracefs file's first character ('0', '1'), or 0 when it cannot be read. */
static char read_flag(const char *path)
{
	char c = 0;
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd >= 0 && read(fd, &c, 1) != 1)
		c = 0;
	if (fd >= 0)
		close(fd);
	return c;
}

static int write_flag(const char *path, char c)
{
	int fd = path ? open(path, O_WRONLY | O_TRUNC | O_CLOEXEC) : -1;
	int ok = fd >= 0 && write(fd, &c, 1) == 1;
	int e = errno;
	if (fd >= 0)
		close(fd);
	errno = e;
	return ok ? 0 : -1;
}

int ftrace_func_stack_on(struct tracefs_instance *inst, const char *tool)
{
	char *mine = tracefs_instance_get_file(inst, "options/func_stack_trace");
	char *top = tracefs_instance_get_file(NULL, "options/func_stack_trace");
	char was = read_flag(top), now = read_flag(mine);
	int step = was ? sig_on_emergency_replace(top, was == '1' ? "1" : "0") : -1;
	int ret = 0;
	/* The kernel switches an instance's tracer to stacks when the option goes from 0 to
	 * 1 while that tracer runs: found at 1 (another run's or anyone's, the kernel's own
	 * value on 4.x to 6.12), it is lowered and raised again. */
	if ((now == '1' && write_flag(mine, '0')) || write_flag(mine, '1')) {
		fprintf(stderr, "%s: cannot enable stack traces (%s): %s\n", tool,
			mine ? mine : "options/func_stack_trace", strerror(errno));
		ret = -1;
	}
	/* Where the option is the kernel's, not the instance's (4.9 to 6.12: the top level
	 * shows the change), it is set back at once through the top level. A write there
	 * changes the value only, unless the top level's own tracer is the function tracer:
	 * then that tracer is handed its plain callback, the one it has with the option at
	 * 0 (4.x registers it again, 6.x sees it unchanged). */
	if (was && read_flag(top) != was && write_flag(top, was)) {
		fprintf(stderr,
			"%s: could not set %s back to %c: %s (every function tracer started "
			"later records stacks: write %c there)\n",
			tool, top, was, strerror(errno), was);
		ret = -1;
	} else {
		sig_forget(step);
	}
	tracefs_put_tracing_file(mine);
	tracefs_put_tracing_file(top);
	return ret;
}
