// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's function profiler (funcprof.h).
 */
#include "kernel/funcprof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "kernel/toplevel.h"

bool funcprof_available(void)
{
	return tracefs_file_exists(NULL, "function_profile_enabled");
}

bool funcprof_alike(const char *a, const char *b)
{
	return strlen(a) >= FUNCPROF_NAME && strlen(b) >= FUNCPROF_NAME &&
	       !strncmp(a, b, FUNCPROF_NAME);
}

bool funcprof_shows(const char *shown, const char *name)
{
	return !strcmp(shown, name) ||
	       (strlen(shown) >= FUNCPROF_NAME && !strncmp(shown, name, FUNCPROF_NAME));
}

int funcprof_take(struct toplevel *tl, const char *tool, bool must)
{
	if ((must ? toplevel_acquire : toplevel_try)(tl, tool))
		return must ? -1 : 1;
	char *on = tracefs_instance_file_read(NULL, "function_profile_enabled", NULL);
	bool idle = on && atoi(on) == 0;
	free(on);
	if (idle)
		return 0;
	toplevel_release(tl);
	if (!must)
		return 1;
	fprintf(stderr, "%s: the function profiler is in use (function_profile_enabled is not 0)\n",
		tool);
	return -1;
}

int funcprof_start(struct toplevel *tl, const char *const *words, int n, const char *tool)
{
	size_t len = 1;
	for (int i = 0; i < n; i++)
		len += strlen(words[i]) + 1;
	char *text = malloc(len), *p = text;
	if (!text) {
		fprintf(stderr, "%s: out of memory\n", tool);
		return -1;
	}
	*p = 0;
	for (int i = 0; i < n; i++)
		p += sprintf(p, "%s%s", i ? " " : "", words[i]);
	int ret = toplevel_set(tl, "set_ftrace_filter", text) ||
				  toplevel_set(tl, "function_profile_enabled", "1") ?
			  -1 :
			  0;
	free(text);
	return ret;
}

/* "  Function    Hit    Time ..." and "  --------    ---" first: no number after a name. */
void funcprof_parse(char *text, void (*fn)(const char *name, unsigned long long hits, void *ctx),
		    void *ctx)
{
	char *save = NULL;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char name[256];
		unsigned long long hits;
		if (sscanf(l, "%255s %llu", name, &hits) == 2)
			fn(name, hits, ctx);
	}
}

int funcprof_read(void (*fn)(const char *name, unsigned long long hits, void *ctx), void *ctx)
{
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);
	int cpus = 0;
	for (int cpu = 0; cpu < (ncpus > 0 ? ncpus : 1); cpu++) {
		char file[64];
		snprintf(file, sizeof(file), "trace_stat/function%d", cpu);
		char *text = tracefs_instance_file_read(NULL, file, NULL);
		if (!text)
			continue;
		cpus++;
		funcprof_parse(text, fn, ctx);
		free(text);
	}
	return cpus ? 0 : -1;
}
