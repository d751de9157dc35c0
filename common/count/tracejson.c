// SPDX-License-Identifier: GPL-2.0-only
#include "count/tracejson.h"
#include "base/out.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What the table keeps: the hash of the name last written for a process or a thread, or a
 * pseudo PID's index. */
enum { KIND_PROCESS = 1, KIND_THREAD, KIND_PSEUDO };

struct tracejson_entry {
	uint64_t k1, k2; /* k1: kind << 32 | pid, 0 empty */
	uint64_t v;
};

struct tracejson_lanes {
	uint64_t *end; /* each lane's latest end */
	size_t n;
};

static void say(struct tracejson *tj, const char *what, const char *name, int err)
{
	if (!tj->failed)
		fprintf(stderr, "%s: --trace-json: cannot %s '%s': %s\n", tj->tool, what, name,
			strerror(err));
	tj->failed = true;
}

int tracejson_open(struct tracejson *tj, const char *path, const char *tool)
{
	memset(tj, 0, sizeof(*tj));
	tj->path = path;
	tj->tool = tool;
	struct stat st;
	if ((size_t)snprintf(tj->tmp, sizeof(tj->tmp), "%s.tmp", path) >= sizeof(tj->tmp) ||
	    !*path || path[strlen(path) - 1] == '/') {
		fprintf(stderr, "%s: --trace-json: '%s' is not a file name\n", tool, path);
		return -1;
	}
	if (!lstat(path, &st) &&
	    (S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode) || !S_ISREG(st.st_mode))) {
		fprintf(stderr, "%s: --trace-json: '%s' is %s\n", tool, path,
			S_ISDIR(st.st_mode) ? "a folder" :
			S_ISLNK(st.st_mode) ? "a link (not written through)" :
					      "not a regular file");
		return -1;
	}
	/* A FILE.tmp left (a run killed by SIGKILL, or anyone's) is removed; O_EXCL and
	 * O_NOFOLLOW make sure the one written is ours, not a link put there meanwhile. 0644:
	 * the viewer may run as another user. */
	unlink(tj->tmp);
	int fd = open(tj->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || !(tj->f = fdopen(fd, "w"))) {
		say(tj, "write", tj->tmp, errno);
		if (fd >= 0)
			close(fd);
		unlink(tj->tmp);
		return -1;
	}
	/* Whole blocks to the disk, not a write per event. */
	setvbuf(tj->f, NULL, _IOFBF, 1 << 16);
	fputs("{\"traceEvents\":[", tj->f);
	return 0;
}

static void free_tables(struct tracejson *tj)
{
	free(tj->tab);
	for (size_t i = 0; i < tj->nlanes; i++)
		free(tj->lanes[i].end);
	free(tj->lanes);
	tj->tab = NULL;
	tj->lanes = NULL;
	tj->ntab = tj->captab = tj->nlanes = 0;
}

void tracejson_abort(struct tracejson *tj)
{
	if (tj->f) {
		fclose(tj->f);
		tj->f = NULL;
		unlink(tj->tmp);
	}
	free_tables(tj);
}

int tracejson_commit(struct tracejson *tj)
{
	if (!tj->f)
		return -1;
	fprintf(tj->f, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":");
	out_json_str(tj->f, tj->tool, SIZE_MAX);
	fprintf(tj->f, ",\"clock\":\"mono\",\"spans\":%" PRIu64 "}}\n", tj->spans);
	int bad = ferror(tj->f) ? (errno ? errno : EIO) : 0;
	if (fflush(tj->f) && !bad)
		bad = errno;
	if (fclose(tj->f) && !bad)
		bad = errno;
	tj->f = NULL;
	free_tables(tj);
	if (!bad && !tj->failed && rename(tj->tmp, tj->path))
		bad = errno;
	if (bad || tj->failed) {
		say(tj, "write", tj->tmp, bad ? bad : EIO);
		unlink(tj->tmp);
		return -1;
	}
	return 0;
}

/* --- the table of names and pseudo PIDs ------------------------------------------------------ */

static uint64_t mix(uint64_t k1, uint64_t k2)
{
	uint64_t h = k1 * 0x9e3779b97f4a7c15ULL ^ k2 * 0xc2b2ae3d27d4eb4fULL;
	return h ^ (h >> 29);
}

/* The entry of (k1, k2), made (v 0) when absent; NULL out of memory. */
static struct tracejson_entry *entry(struct tracejson *tj, uint64_t k1, uint64_t k2, bool *made)
{
	if (2 * (tj->ntab + 1) > tj->captab) {
		size_t cap = tj->captab ? tj->captab * 2 : 256;
		struct tracejson_entry *t = calloc(cap, sizeof(*t));
		if (!t)
			return NULL;
		for (size_t i = 0; i < tj->captab; i++) {
			if (!tj->tab[i].k1)
				continue;
			size_t j = mix(tj->tab[i].k1, tj->tab[i].k2) & (cap - 1);
			while (t[j].k1)
				j = (j + 1) & (cap - 1);
			t[j] = tj->tab[i];
		}
		free(tj->tab);
		tj->tab = t;
		tj->captab = cap;
	}
	size_t j = mix(k1, k2) & (tj->captab - 1);
	while (tj->tab[j].k1 && (tj->tab[j].k1 != k1 || tj->tab[j].k2 != k2))
		j = (j + 1) & (tj->captab - 1);
	*made = !tj->tab[j].k1;
	if (*made) {
		tj->tab[j] = (struct tracejson_entry){k1, k2, 0};
		tj->ntab++;
	}
	return &tj->tab[j];
}

/* FNV-1a, never 0 (0: nothing written yet). */
static uint64_t name_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return h ? h : 1;
}

/* Before each event: the comma after the one before. */
static bool next_event(struct tracejson *tj)
{
	if (!tj->f)
		return false;
	fputs(tj->nevents++ ? ",\n" : "\n", tj->f);
	return true;
}

static void name_meta(struct tracejson *tj, int kind, int pid, int tid, const char *name,
		      size_t len)
{
	if (!tj->f)
		return;
	len = strnlen(name, len);
	bool made;
	struct tracejson_entry *e =
		entry(tj, (uint64_t)kind << 32 | (uint32_t)pid, (uint32_t)tid, &made);
	uint64_t h = name_hash(name, len);
	if (e && e->v == h)
		return;
	if (e)
		e->v = h;
	next_event(tj);
	fprintf(tj->f, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":",
		kind == KIND_PROCESS ? "process_name" : "thread_name", pid, tid);
	out_json_bytes(tj->f, name, len);
	fputs("}}", tj->f);
}

void tracejson_process_name(struct tracejson *tj, int pid, const char *name, size_t len)
{
	name_meta(tj, KIND_PROCESS, pid, 0, name, len);
}

void tracejson_thread_name(struct tracejson *tj, int pid, int tid, const char *name, size_t len)
{
	name_meta(tj, KIND_THREAD, pid, tid, name, len);
}

int tracejson_pseudo_pid(struct tracejson *tj, uint64_t key)
{
	bool made;
	struct tracejson_entry *e = entry(tj, (uint64_t)KIND_PSEUDO << 32, key, &made);
	if (!e)
		return -1;
	if (made) {
		struct tracejson_lanes *l =
			realloc(tj->lanes, (tj->nlanes + 1) * sizeof(*tj->lanes));
		if (!l) {
			e->v = 0; /* taken again next time; the index is never handed out */
			say(tj, "keep the tracks of", tj->tmp, ENOMEM);
			return -1;
		}
		tj->lanes = l;
		tj->lanes[tj->nlanes] = (struct tracejson_lanes){0};
		e->v = ++tj->nlanes;
	}
	return TRACEJSON_PID_BASE + (int)e->v;
}

int tracejson_lane(struct tracejson *tj, int pid, uint64_t start_ns, uint64_t end_ns)
{
	size_t i = (size_t)(pid - TRACEJSON_PID_BASE - 1);
	if (pid <= TRACEJSON_PID_BASE || i >= tj->nlanes || !tj->f)
		return -1;
	struct tracejson_lanes *l = &tj->lanes[i];
	/* A lane's spans all end by its latest end: start at or after it, and the new span
	 * is disjoint from every one of them (in whatever order the spans come). */
	size_t k = 0;
	while (k < l->n && l->end[k] > start_ns)
		k++;
	if (k == l->n) {
		uint64_t *more = realloc(l->end, (l->n + 1) * sizeof(*more));
		if (!more) {
			say(tj, "keep the tracks of", tj->tmp, ENOMEM);
			return -1;
		}
		l->end = more;
		l->end[l->n++] = 0;
	}
	if (end_ns > l->end[k])
		l->end[k] = end_ns;
	return (int)k + 1;
}

/* --- events ------------------------------------------------------------------------------- */

size_t tracejson_us(char *dst, uint64_t ns)
{
	return (size_t)sprintf(dst, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
}

void tracejson_span_begin(struct tracejson *tj, int pid, int tid, const char *name, size_t len,
			  const char *cat, uint64_t start_ns, uint64_t dur_ns)
{
	if (!next_event(tj))
		return;
	char ts[32], dur[32];
	tracejson_us(ts, start_ns);
	tracejson_us(dur, dur_ns);
	fputs("{\"ph\":\"X\",\"name\":", tj->f);
	out_json_bytes(tj->f, name, strnlen(name, len));
	fprintf(tj->f, ",\"cat\":\"%s\",\"ts\":%s,\"dur\":%s,\"pid\":%d,\"tid\":%d,\"args\":{", cat,
		ts, dur, pid, tid);
	tj->spans++;
	tj->nargs = 0;
}

static bool arg_key(struct tracejson *tj, const char *key)
{
	if (!tj->f)
		return false;
	if (tj->nargs++)
		putc(',', tj->f);
	out_json_str(tj->f, key, SIZE_MAX);
	putc(':', tj->f);
	return true;
}

void tracejson_arg_str(struct tracejson *tj, const char *key, const char *s, size_t max)
{
	if (arg_key(tj, key))
		out_json_str(tj->f, s, max);
}

void tracejson_arg_int(struct tracejson *tj, const char *key, long long v)
{
	if (arg_key(tj, key))
		fprintf(tj->f, "%lld", v);
}

void tracejson_arg_uint(struct tracejson *tj, const char *key, unsigned long long v)
{
	if (arg_key(tj, key))
		fprintf(tj->f, "%llu", v);
}

void tracejson_span_end(struct tracejson *tj)
{
	if (tj->f)
		fputs("}}", tj->f);
}

void tracejson_counters(struct tracejson *tj, int pid, const char *name, uint64_t ts_ns,
			const char *const *series, const long long *v, int n)
{
	if (!next_event(tj))
		return;
	char ts[32];
	tracejson_us(ts, ts_ns);
	fputs("{\"ph\":\"C\",\"name\":", tj->f);
	out_json_str(tj->f, name, SIZE_MAX);
	fprintf(tj->f, ",\"ts\":%s,\"pid\":%d,\"tid\":0,\"args\":{", ts, pid);
	for (int i = 0; i < n; i++) {
		if (i)
			putc(',', tj->f);
		out_json_str(tj->f, series[i], SIZE_MAX);
		fprintf(tj->f, ":%lld", v[i]);
	}
	fputs("}}", tj->f);
}

void tracejson_counter(struct tracejson *tj, int pid, const char *name, uint64_t ts_ns,
		       const char *series, long long v)
{
	tracejson_counters(tj, pid, name, ts_ns, &series, &v, 1);
}

void tracejson_interval(struct tracejson *tj, uint64_t start_ns, const char *const *series,
			const long long *v, int n)
{
	int pid = tracejson_pseudo_pid(tj, 0);
	if (pid < 0)
		return;
	long long zeros[16] = {0};
	if (!v && n > (int)(sizeof(zeros) / sizeof(*zeros)))
		n = (int)(sizeof(zeros) / sizeof(*zeros));
	tracejson_process_name(tj, pid, tj->tool, SIZE_MAX);
	tracejson_counters(tj, pid, tj->tool, start_ns, series, v ? v : zeros, n);
}
