#include "comm.h"
#include "pair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

struct comm_entry {
	uint64_t seen_ns;
	char comm[16];
};

/* The kernel's saved_cmdlines (pid -> comm of recently traced tasks), reread at most every
 * 200 ms: it names tasks that exited before their events were printed. */
static const char *saved_comm(int pid, uint64_t ts)
{
	static struct pair_table saved;
	static uint64_t loaded_ns;
	if (!saved.mem && pair_init(&saved, 8192, 16))
		return NULL;
	char *v = pair_get(&saved, (uint64_t)pid, 0);
	if (v || ts - loaded_ns < 200000000ULL)
		return v;
	loaded_ns = ts;
	char *text = tracefs_instance_file_read(NULL, "saved_cmdlines", NULL);
	char *save = NULL;
	for (char *l = text ? strtok_r(text, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
		int p;
		char name[16];
		if (sscanf(l, "%d %15[^\n]", &p, name) == 2)
			memcpy(pair_put(&saved, (uint64_t)p, 0), name, 16);
	}
	free(text);
	return pair_get(&saved, (uint64_t)pid, 0);
}

const char *comm_lookup(int pid, uint64_t ts)
{
	static struct pair_table comms; /* pid -> comm, refreshed every second (exec renames) */
	if (!comms.mem && pair_init(&comms, 4096, sizeof(struct comm_entry)))
		return "<...>";
	struct comm_entry *e = pair_get(&comms, (uint64_t)pid, 0);
	if (e && ts - e->seen_ns < 1000000000ULL)
		return e->comm;
	if (!e)
		e = pair_put(&comms, (uint64_t)pid, 0);
	e->seen_ns = ts;
	if (pid == 0) {
		strcpy(e->comm, "<idle>");
		return e->comm;
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	FILE *f = fopen(path, "r");
	if (!f || !fgets(e->comm, sizeof(e->comm), f)) {
		const char *saved = saved_comm(pid, ts);
		snprintf(e->comm, sizeof(e->comm), "%s", saved ? saved : "<...>");
	}
	if (f)
		fclose(f);
	e->comm[strcspn(e->comm, "\n")] = 0;
	return e->comm;
}

