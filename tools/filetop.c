// SPDX-License-Identifier: GPL-2.0-only
/*
 * filetop: the files read and written most, a table every interval: process, reads, writes,
 * KB read and written, type and name. From the syscall tracepoints alone (no kprobes on this
 * kind of kernel): each read/write call's entry (the descriptor) and exit (the bytes), and
 * each descriptor named from the event stream by fdtrack.h: the opens with their path (read
 * by sysarg.h's ladder, as statsnoop reads its paths), dup, dup2, dup3, fcntl F_DUPFD,
 * close, close_range, exec, fork and exit, and /proc/PID/fd for what was open at the start.
 * A descriptor never seen made is shown as such ("[fd N: not seen opened]"), never by a
 * name it may no longer have.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dirent.h>
#include <event-parse.h>

#include "base/out.h"
#include "base/row.h"
#include "count/prom.h"
#include "domain/fdtrack.h"
#include "join/syspair.h"
#include "stream/reader.h"
#include "tool.h"

enum sort { S_ALL, S_READS, S_WRITES, S_RBYTES, S_WBYTES };
static const char *const sort_names[] = {"all", "reads", "writes", "rbytes", "wbytes"};

static struct env {
	bool all;	/* -a */
	bool no_clear;	/* -C */
	long long rows; /* -r */
	enum sort sort; /* -s */
	bool clearing;
	struct tool_run *t;
	struct fdtrack ft;
	struct fdtab_file **used; /* files read or written this interval, each held */
	size_t nused, capused;
	struct row row;
	struct prom_set prom[2]; /* --prom: every shown file's reads, writes from the start */
	uint64_t prom_lost;	 /* rows not kept for --prom: out of memory */
} env = {.rows = 20, .ft = FDTRACK_INIT};

enum { OPT_VIA = OPT_LONG + 1 };

static const struct opt_spec options[] = {
	{'a', NULL, NULL, "all file types (default: regular files only)", 0},
	{'C', NULL, NULL, "do not clear the screen between tables", 0},
	TOOL_DURATION,
	TOOL_JSON("one JSON object per row"),
	TOOL_PID,
	{'r', NULL, "ROWS", "print at most ROWS rows a table (default 20; 0: all)", 0},
	{'s', NULL, "SORT", "sort by all (bytes, the default), reads, writes, rbytes or\nwbytes",
	 0},
	{OPT_VIA, "via", "MECH",
	 "how to read paths: kprobe, eprobe or uprobe (default: the best the\nkernel offers)", 0},
	TOOL_JSON_KEYS,
	TOOL_EXEC,
	TOOL_PROM,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"filetop                   # every second, the top 20 regular files",
	"filetop -a -C 5           # every 5 seconds, all types, the screen not cleared",
	"filetop -s reads -r 10    # the 10 files read most often",
	"filetop -p 181 -j 1 10 > f.json  # PID 181's, ten seconds of JSON lines",
	"filetop -C --prom filetop.prom 15 > /dev/null # counters for node_exporter",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case 'a': env.all = true; break;
	case 'C': env.no_clear = true; break;
	case 'r': env.rows = opt_int(arg, 0, 1LL << 30, "ROWS"); break;
	case 's': env.sort = opt_choice(arg, sort_names, 5, "-s"); break;
	case OPT_VIA: env.ft.sa.via = opt_choice(arg, ustr_via_names, USTR_BEST, "--via"); break;
	}
}

/* --- the tables ----------------------------------------------------------------------------- */

static void use(struct fdtab_file *f, int tid, bool write, long long bytes)
{
	if (!f->listed) {
		if (env.nused == env.capused) {
			size_t cap = env.capused ? env.capused * 2 : 256;
			struct fdtab_file **more = realloc(env.used, cap * sizeof(*more));
			if (!more)
				return;
			env.used = more;
			env.capused = cap;
		}
		fdtab_hold(f);
		f->listed = true;
		env.used[env.nused++] = f;
	}
	snprintf(f->comm, sizeof(f->comm), "%s", tool_comm(env.t, tid));
	if (write) {
		f->writes++;
		f->wbytes += (uint64_t)bytes;
	} else {
		f->reads++;
		f->rbytes += (uint64_t)bytes;
	}
}

static void ended(const struct tep_record *rec, int tid, long long ret,
		  const struct syspair_call *c, int fd, void *ctx)
{
	if (ret < 0)
		return;
	struct fdtab_file *f = fdtrack_file(&env.ft, fdtrack_tgid(&env.ft, tid), fd);
	if (f)
		use(f, tid, fdtrack_rw_calls[c->kind].write, ret);
}

/* --- the run -------------------------------------------------------------------------------- */

static const struct row_col cols[] = {
	ROW_COL_WHEN,
	{"PID", "pid", 7, ROW_INT, 0, 0, "the process"},
	{"COMM", "comm", -16, ROW_STR, 0, 0, "its name, at its last read or write of the file"},
	{"READS", "reads", 6, ROW_UINT, 0, 0, "read calls that returned (0 bytes too)"},
	{"WRITES", "writes", 6, ROW_UINT, 0, 0, "write calls that returned"},
	{"R_KB", NULL, 8, ROW_UINT, 0, ROW_NOJSON, NULL},
	{"W_KB", NULL, 8, ROW_UINT, 0, ROW_NOJSON, NULL},
	{NULL, "read_bytes", 0, ROW_UINT, 0, ROW_NOTEXT, "bytes read"},
	{NULL, "write_bytes", 0, ROW_UINT, 0, ROW_NOTEXT, "bytes written"},
	{"T", "type", 1, ROW_WORD, 0, 0,
	 "R a regular file, S a socket, O other, ? not known (looked at too late)"},
	{"FILE", "file", -4, ROW_STR, 0, 0,
	 "the path as opened (or /proc's name of a file open at the start); a descriptor not "
	 "seen made: \"[fd N: not seen opened]\""},
	{NULL, "named", 0, ROW_JSON, 0, ROW_NOTEXT,
	 "false when file is such a stand-in, not a name"},
};
static const struct row_table table = ROW_TABLE("each file, each interval", cols);

static enum tool_code prepare(struct tool_run *t)
{
	env.t = t;
	if (fdtrack_prepare(&env.ft, t, "filetop") || fdtrack_rw(&env.ft, ended, NULL))
		return TOOL_FAIL;
	return TOOL_OK;
}

static enum tool_code setup(struct tool_run *t)
{
	int ret;
	env.clearing = !t->o.json && !env.no_clear && isatty(STDOUT_FILENO);
	if ((ret = fdtrack_setup(&env.ft, t)))
		return ret;
	snprintf(t->traced, sizeof(t->traced), "reads and writes by file, paths via %s",
		 env.ft.sa.what);
	return TOOL_OK;
}

static uint64_t key(const struct fdtab_file *f)
{
	switch (env.sort) {
	case S_READS: return f->reads;
	case S_WRITES: return f->writes;
	case S_RBYTES: return f->rbytes;
	case S_WBYTES: return f->wbytes;
	default: return f->rbytes + f->wbytes;
	}
}

static int by_key(const void *a, const void *b)
{
	const struct fdtab_file *x = *(struct fdtab_file *const *)a,
				*y = *(struct fdtab_file *const *)b;
	uint64_t kx = key(x), ky = key(y);
	if (kx != ky)
		return kx < ky ? 1 : -1;
	if (x->reads + x->writes != y->reads + y->writes)
		return x->reads + x->writes < y->reads + y->writes ? 1 : -1;
	return x->tgid - y->tgid;
}

static bool shown(const struct fdtab_file *f)
{
	return env.all || f->type == 'R' || (f->type == '?' && !f->unnamed);
}

/* --prom: a file's interval added to its series (by process, name, type and path): reads
 * and their bytes in one set, writes and theirs in the other, the same labels in both. */
static void prom_add(const struct fdtab_file *f)
{
	/* a path of PATH_MAX bytes, each escaped to at most 3 (U+FFFD) */
	static char labels[3 * PATH_MAX + 256];
	char pid[16], type[2] = {f->type, 0};
	char comm[sizeof(f->comm) + 1];
	snprintf(pid, sizeof(pid), "%d", f->tgid);
	snprintf(comm, sizeof(comm), "%.*s", (int)sizeof(f->comm), f->comm);
	/* the name is len bytes and a NUL: one with a NUL in it (never a path) is cut there */
	prom_labels(labels, sizeof(labels), "pid", pid, "comm", comm, "type", type, "file", f->name,
		    NULL);
	struct prom_series *r = prom_series(&env.prom[0], labels),
			   *w = r ? prom_series(&env.prom[1], labels) : NULL;
	if (!w) {
		env.prom_lost++;
		return;
	}
	r->count += f->reads;
	r->sum += f->rbytes;
	w->count += f->writes;
	w->sum += f->wbytes;
}

/* --prom: the totals written, four counters a file. */
static void prom_write(struct tool_run *t)
{
	struct prom *p = tool_prom(t);
	if (!p)
		return;
	static const char *const names[] = {
		"ftrace_tools_filetop_reads_total", "ftrace_tools_filetop_writes_total",
		"ftrace_tools_filetop_read_bytes_total", "ftrace_tools_filetop_write_bytes_total"};
	static const char *const helps[] = {
		"Read calls that returned, by process, file type and file.",
		"Write calls that returned, by process, file type and file.",
		"Bytes those reads returned.", "Bytes those writes returned."};
	for (int k = 0; k < 4; k++) {
		const struct prom_set *set = &env.prom[k % 2];
		prom_family(p, names[k], "counter", helps[k]);
		for (size_t i = 0; i < set->n; i++)
			prom_uint(p, names[k], set->s[i]->labels,
				  k < 2 ? set->s[i]->count : set->s[i]->sum);
	}
	prom_commit(p);
}

static int interval(struct tool_run *t, uint64_t now)
{
	char when[16], type[2] = "";
	out_wallclock(now, when);
	qsort(env.used, env.nused, sizeof(*env.used), by_key);
	if (!t->o.json) {
		if (env.clearing)
			fputs("\033[H\033[2J", stdout);
		else
			out_table_gap(stdout);
		printf("%s\n", when);
		row_header(&env.row);
	}
	long long printed = 0;
	for (size_t i = 0; i < env.nused; i++) {
		struct fdtab_file *f = env.used[i];
		if (t->prom && shown(f))
			prom_add(f);
		if (shown(f) && (!env.rows || printed < env.rows)) {
			printed++;
			struct row *r = &env.row;
			row_begin(r, 0);
			row_word(r, when);
			row_int(r, f->tgid);
			row_str(r, f->comm, sizeof(f->comm));
			row_uint(r, f->reads);
			row_uint(r, f->writes);
			row_uint(r, f->rbytes / 1024);
			row_uint(r, f->wbytes / 1024);
			row_uint(r, f->rbytes);
			row_uint(r, f->wbytes);
			type[0] = f->type;
			row_word(r, type);
			if (f->unnamed)
				row_word(r, f->name);
			else
				row_bytes(r, f->name, f->len);
			FILE *j = row_json(r);
			if (j)
				fputs(f->unnamed ? "false" : "true", j);
			row_end(r);
		}
		f->reads = f->writes = f->rbytes = f->wbytes = 0;
		f->listed = false;
		fdtab_put(f);
	}
	env.nused = 0;
	if (t->prom)
		prom_write(t);
	prom_say_lost(&env.prom_lost, "filetop", "files");
	out_flush();
	return 0;
}

static void end(struct tool_run *t)
{
	if (!t->last_interval)
		interval(t, reader_now());
	fdtrack_report(&env.ft);
}

static void cleanup(struct tool_run *t)
{
	for (size_t i = 0; i < env.nused; i++)
		fdtab_put(env.used[i]);
	free(env.used);
	fdtrack_free(&env.ft);
	prom_set_free(&env.prom[0]);
	prom_set_free(&env.prom[1]);
}

static const struct tool filetop = {
	.name = "filetop",
	.batched = true,
	.opts = options,
	.operand_kind = TOOL_OPERAND_INTERVALS,
	.interval_prints = "tables",
	.interval_default_s = 1,
	.examples = examples,
	.rows = (const struct row_table *const[]){&table, NULL},
	.option = option,
	.prepare = prepare,
	.setup = setup,
	.interval = interval,
	.end = end,
	.cleanup = cleanup,
	.table = &table,
	.row = &env.row,
	.header_later = true,
};

int main(int argc, char **argv)
{
	return tool_main(&filetop, argc, argv);
}
