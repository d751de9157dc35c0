/* SPDX-License-Identifier: GPL-2.0-only */
/* A tep from a recorded tracefs folder (tests/fixtures/...): its header page and the formats
 * of the systems named, nothing else. tracefs_local_events_system() would also read the
 * machine's /proc/kallsyms (megabytes, grown by realloc): 20 s a call under ASan. */
#ifndef FTT_FIXTURE_TEP_H
#define FTT_FIXTURE_TEP_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

static inline char *fixture_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n = getdelim(&buf, &cap, '\0', f);
	fclose(f);
	if (n <= 0) {
		free(buf);
		return NULL;
	}
	*len = (size_t)n;
	return buf;
}

static inline void fixture_system(struct tep_handle *tep, const char *dir, const char *sys)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/events/%s", dir, sys);
	DIR *d = opendir(path);
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		char fmt[4600];
		snprintf(fmt, sizeof(fmt), "%s/%s/format", path, e->d_name);
		size_t len;
		char *buf = fixture_slurp(fmt, &len);
		if (buf)
			tep_parse_event(tep, buf, len, sys);
		free(buf);
	}
	closedir(d);
}

/* systems NULL: every system in the folder. NULL when the header page cannot be read. */
static inline struct tep_handle *fixture_tep(const char *dir, const char *const *systems)
{
	struct tep_handle *tep = tep_alloc();
	char path[4096];
	snprintf(path, sizeof(path), "%s/events/header_page", dir);
	size_t len;
	char *hdr = fixture_slurp(path, &len);
	if (!tep || !hdr || tep_parse_header_page(tep, hdr, (unsigned long)len, sizeof(long))) {
		free(hdr);
		tep_free(tep);
		return NULL;
	}
	free(hdr);
	tep_set_long_size(tep, tep_get_header_page_size(tep));
	tep_set_page_size(tep, (int)sysconf(_SC_PAGESIZE));
	if (systems) {
		for (int i = 0; systems[i]; i++)
			fixture_system(tep, dir, systems[i]);
		return tep;
	}
	snprintf(path, sizeof(path), "%s/events", dir);
	DIR *d = opendir(path);
	for (struct dirent *e; d && (e = readdir(d));)
		if (e->d_name[0] != '.' && e->d_type == DT_DIR)
			fixture_system(tep, dir, e->d_name);
	if (d)
		closedir(d);
	return tep;
}

#endif
