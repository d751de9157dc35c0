// SPDX-License-Identifier: GPL-2.0-only
#include "kernel/sweep.h"
#include "base/runid.h"
#include "kernel/session.h"
#include "kernel/toplevel.h"
#include "kernel/undo.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

/* An instance whose run looks dead, made less than this long ago, may be a run in another
 * PID namespace (its PID here is another process, or none) between its mkdir and its first
 * open file, which makes rmdir fail with EBUSY: a few microseconds, but a run in a second
 * namespace removed a first one's in that gap (4.9 guest, test_trust). So it is tried only
 * once it is this old (the kernel stamps a tracefs folder with its coarse clock). */
#define SWEEP_SETTLE_NS 250000000LL

static void let_settle(const char *inst)
{
	struct stat st;
	struct timespec now;
	if (stat(inst, &st) || clock_gettime(CLOCK_REALTIME, &now))
		return;
	long long age = (long long)(now.tv_sec - st.st_ctim.tv_sec) * 1000000000LL +
			(now.tv_nsec - st.st_ctim.tv_nsec);
	if (age >= 0 && age < SWEEP_SETTLE_NS) {
		struct timespec d = {0, (long)(SWEEP_SETTLE_NS - age)};
		nanosleep(&d, NULL);
	}
}

bool sweep_instance_name(const char *name, struct runid *id)
{
	const size_t plen = strlen(RUNID_INSTANCE_PREFIX);
	if (strncmp(name, RUNID_INSTANCE_PREFIX, plen))
		return false;
	const char *p = name + plen, *rest;
	const char *tool = p;
	while ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_')
		p++;
	if (p == tool)
		return false;
	if (*p == '.') {
		const char *role = ++p;
		while (*p >= 'a' && *p <= 'z')
			p++;
		if (p == role)
			return false;
	}
	return *p == '-' && runid_parse(p + 1, id, &rest) == 0 && !*rest;
}

/* A probe group or synthetic event name "ftt_<run id>[_<more>]": its run, when exactly so. */
static bool group_owner(const char *name, bool more, struct runid *id)
{
	const size_t plen = strlen(RUNID_GROUP_PREFIX);
	const char *rest;
	if (strncmp(name, RUNID_GROUP_PREFIX, plen) || runid_parse(name + plen, id, &rest))
		return false;
	return more ? rest[0] == '_' : !*rest;
}

static int sweep_instances(const char *tool, const struct sweep_how *how)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/instances", tracefs_tracing_dir());
	DIR *d = opendir(path);
	if (!d)
		return 0;
	int removed = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		struct runid id;
		if (!sweep_instance_name(de->d_name, &id))
			continue;
		if (runid_alive(&id)) {
			if (how->left)
				sweep_say(how, tool, "left instance %s: its run (PID %d) is alive",
					  de->d_name, (int)id.pid);
			continue;
		}
		char inst[PATH_MAX + 256];
		snprintf(inst, sizeof(inst), "%s/%s", path, de->d_name);
		/* EBUSY: a file of it is open, so its owner lives (in another PID namespace). */
		if (!how->dry)
			let_settle(inst);
		if (how->dry || rmdir(inst) == 0) {
			char why[64];
			sweep_say(
				how, tool,
				"%s instance %s left by a run that ended without removing it (%s)",
				how->dry ? "would remove" : "removed", de->d_name,
				runid_why_gone(&id, why, sizeof(why)));
			removed++;
		} else if (how->left) {
			sweep_say(how, tool, "left instance %s: %s (%s)", de->d_name,
				  errno == EBUSY ? "a file of it is open, so its run lives (in "
						   "another PID namespace)" :
						   "cannot remove it",
				  strerror(errno));
		}
	}
	closedir(d);
	return removed;
}

/* After the instances: an instance that had a probe enabled keeps it busy. */
static int sweep_probes(const char *tool, const struct sweep_how *how)
{
	/* dynamic_events last: it also lists kprobes and uprobes, removed by then. */
	static const char *const files[] = {"kprobe_events", "uprobe_events", "dynamic_events"};
	int removed = 0;
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		char *text = tracefs_instance_file_read(NULL, files[i], NULL);
		char *save = NULL;
		for (char *l = text ? strtok_r(text, "\n", &save) : NULL; l;
		     l = strtok_r(NULL, "\n", &save)) {
			/* "p:ftt_<run id>/name target args" */
			char *colon = strchr(l, ':'), group[96], event[96], cmd[200];
			struct runid id;
			if (!colon || sscanf(colon + 1, "%95[^/]/%95s", group, event) != 2 ||
			    !group_owner(group, false, &id))
				continue;
			if (runid_alive(&id)) {
				if (how->left)
					sweep_say(how, tool,
						  "left probe %s/%s: its run (PID %d) is alive",
						  group, event, (int)id.pid);
				continue;
			}
			/* Refused (EBUSY) while an instance has it enabled: a live run in another
			 * PID namespace owns it. */
			snprintf(cmd, sizeof(cmd), "-:%s/%s\n", group, event);
			if (how->dry || session_append(files[i], cmd) == 0) {
				char why[64];
				sweep_say(how, tool,
					  "%s probe %s/%s left by a run that ended without "
					  "removing it (%s)",
					  how->dry ? "would remove" : "removed", group, event,
					  runid_why_gone(&id, why, sizeof(why)));
				removed++;
			} else if (how->left) {
				sweep_say(how, tool, "left probe %s/%s: %s", group, event,
					  errno == EBUSY ? "in use (enabled in an instance)" :
							   strerror(errno));
			}
		}
		free(text);
	}
	return removed;
}

/* Synthetic events of killed runs (ftt_<run id>_...), after the instances that enabled them
 * and the hist triggers that fired them are gone. */
static int sweep_synthetic(const char *tool, const struct sweep_how *how)
{
	int removed = 0;
	char *text = tracefs_instance_file_read(NULL, "synthetic_events", NULL);
	char *save = NULL;
	for (char *l = text ? strtok_r(text, "\n", &save) : NULL; l;
	     l = strtok_r(NULL, "\n", &save)) {
		char name[96], cmd[128];
		struct runid id;
		if (sscanf(l, "%95[A-Za-z0-9_]", name) != 1 || !group_owner(name, true, &id))
			continue;
		if (runid_alive(&id)) {
			if (how->left)
				sweep_say(how, tool,
					  "left synthetic event %s: its run (PID %d) is alive",
					  name, (int)id.pid);
			continue;
		}
		/* Refused (EBUSY) while in use: a live run in another PID namespace owns it. */
		snprintf(cmd, sizeof(cmd), "!%s\n", name);
		if (how->dry || session_append("synthetic_events", cmd) == 0) {
			char why[64];
			sweep_say(how, tool,
				  "%s synthetic event %s left by a run that ended without removing "
				  "it (%s)",
				  how->dry ? "would remove" : "removed", name,
				  runid_why_gone(&id, why, sizeof(why)));
			removed++;
		} else if (how->left) {
			sweep_say(how, tool, "left synthetic event %s: %s", name,
				  errno == EBUSY ? "in use" : strerror(errno));
		}
	}
	free(text);
	return removed;
}

int sweep_with(const char *tool, const struct sweep_how *how)
{
	if (!how)
		how = &sweep_default;
	/* The top level first: a killed owner's tracer may be graphing every call. */
	int n = toplevel_recover_how(tool, how);
	/* Then the hist triggers that hold a killed run's instance (undo.h). */
	n += undo_recover_how(tool, how);
	n += sweep_instances(tool, how);
	n += sweep_synthetic(tool, how);
	return n + sweep_probes(tool, how);
}

int sweep_stale(const char *tool)
{
	return sweep_with(tool, &sweep_default);
}
