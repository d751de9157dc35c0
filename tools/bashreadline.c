// SPDX-License-Identifier: GPL-2.0-only
/*
 * bashreadline: each line an interactive bash reads with readline(), with the time and the
 * process: a uretprobe on readline reads the line it returns. Debian's bash has readline
 * linked in (the symbol is in /bin/bash); a bash built with the shared libreadline has it
 * there, and the probe goes on that library. Only the return is probed: the line is all
 * there is to show, and an entry probe would double the traps for nothing.
 *
 * A line longer than a trace event holds (about 4,050 bytes on 6.18) is not recorded at all
 * by the kernel: a second uretprobe at the same address, recording only the line's address,
 * says a line came, shown as unknown. Reading it from bash's memory later is no answer: bash
 * frees it at once (seen: another line's bytes came back).
 */
#define _GNU_SOURCE /* memmem */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <event-parse.h>

#include "base/opt.h"
#include "base/out.h"
#include "base/pair.h"
#include "kernel/probe.h"
#include "kernel/strpieces.h"
#include "stream/reader.h"
#include "base/row.h"
#include "tool.h"
#include "stream/usym.h"

/* A line's bytes kept: the kernel copies at most 4096 with the NUL in a probe. */
#define LINE_MAX_KEPT 4096

/* One return of readline, until both its records have come: the string probe's (the line)
 * and the bare one's (that it returned, and where the line was). */
struct pending {
	uint64_t at, ts;
	int tid;
	bool have_line, have_bare, fault;
	bool cut; /* longer than read: before Linux 6.12, 256 bytes (strpieces.h) */
	size_t len;
	char line[LINE_MAX_KEPT];
};

static struct env {
	const char *bash; /* --bash PATH */
	bool verbose;	  /* -v */
	char path[PATH_MAX];
	unsigned long long off;
	bool in_lib; /* readline is libreadline's, not bash's own */
	struct tep_event *line_ev, *bare_ev;
	struct tep_format_field *line_f, *at_f, *bare_at_f;
	struct pair_table pending; /* tid -> its return whose other record has not come */
	unsigned long long unknown, eof;
	struct row row;
} env = {.bash = "/bin/bash"};

enum { OPT_BASH = OPT_LONG + 1 };

static const struct opt_spec options[] = {
	TOOL_DURATION,
	TOOL_JSON("one JSON object per line"),
	TOOL_NAME,
	TOOL_PID,
	TOOL_TIMESTAMP,
	{'v', NULL, NULL, "say where readline was found, then exit", 0},
	{OPT_BASH, "bash", "PATH",
	 "the bash to trace (default /bin/bash), or a libreadline\nit uses", 0},
	TOOL_EXEC,
	TOOL_JSON_KEYS,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"bashreadline                   # every line typed at a bash, until Ctrl-C",
	"bashreadline -p 181            # PID 181's",
	"bashreadline -j -d 60          # a minute as JSON lines",
	"bashreadline -v                # where readline is, and exit",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	if (o->key == 'v')
		env.verbose = true;
	else if (o->key == OPT_BASH)
		env.bash = arg;
}

static const struct row_col cols[] = {
	ROW_COL_TS,
	{"TIME", "time", -8, ROW_WALL, 0, 0, "wall-clock HH:MM:SS when readline returned the line"},
	{"PID", "pid", 7, ROW_INT, 0, 0, "the bash (its thread ID)"},
	{"LINE", "line", 0, ROW_STR, 0, 0,
	 "the line, escaped in text, exact in JSON (null: it could not be read); before Linux "
	 "6.12 its first 256 bytes, then \" [cut]\" in text, when longer"},
	{NULL, "line_len", 0, ROW_UINT, 0, ROW_NOTEXT,
	 "its length in bytes; null when not known (cut)"},
};
static const struct row_table table = ROW_TABLE("each line", cols);

/* Does the ELF file name a shared libreadline among what it needs? (Its DT_NEEDED names are
 * in its dynamic string table: the bytes "libreadline.so" anywhere in it are enough for a
 * fallback that the symbol lookup then confirms.) */
static bool uses_libreadline(const char *path)
{
	FILE *f = fopen(path, "re");
	static char buf[1 << 16];
	const char *name = "libreadline.so";
	size_t n, have = 0, len = strlen(name);
	bool found = false;
	if (!f)
		return false;
	while (!found && (n = fread(buf + have, 1, sizeof(buf) - have, f)) > 0) {
		have += n;
		found = memmem(buf, have, name, len) != NULL;
		if (have > len) { /* keep the tail: a name across two reads */
			memmove(buf, buf + have - len, len);
			have = len;
		}
	}
	fclose(f);
	return found;
}

/* readline in the bash, else in the libreadline the loader finds, when the bash uses it. */
static void find_readline(void)
{
	char why[PATH_MAX + 200], lib[PATH_MAX];
	if (usym_target(env.bash, env.path, sizeof(env.path)))
		opt_fail("bash not found: '%s' (a path, a program in PATH, or a library)",
			 env.bash);
	if (!usym_offset(env.path, "readline", false, &env.off, why, sizeof(why)))
		return;
	if (!uses_libreadline(env.path) || usym_target("libreadline", lib, sizeof(lib)) ||
	    usym_offset(lib, "readline", false, &env.off, why, sizeof(why)))
		opt_fail("no readline in %s, which uses no shared libreadline either: a bash "
			 "without line editing?",
			 env.path);
	snprintf(env.path, sizeof(env.path), "%s", lib);
	env.in_lib = true;
}

static enum tool_code prepare(struct tool_run *t)
{
	char target[PATH_MAX + 32];
	find_readline();
	if (env.verbose) {
		printf("readline at offset 0x%llx of %s (%s)\n", env.off, env.path,
		       env.in_lib ? "a shared libreadline: bash has none of its own" :
				    "bash's own, linked in");
		return TOOL_DONE;
	}
	if (strpbrk(env.path, " \t\n:"))
		opt_fail("the path '%s' has a space or ':', which uprobe_events cannot take: use a "
			 "link to it",
			 env.path);
	if (!probe_available(&t->s, PROBE_UPROBE, false))
		return TOOL_FAIL;
	snprintf(target, sizeof(target), "%s:0x%llx", env.path, env.off);
	/* Two records per return, paired per thread whichever comes first (the order of the
	 * handlers at one address is the kernel's: 6.18 writes the bare one first). */
	if (!(env.bare_ev =
		      probe_create(&t->s, PROBE_UPROBE, 'r', "brl_at", target, "at=$retval:u64")) ||
	    !(env.line_ev = probe_create(&t->s, PROBE_UPROBE, 'r', "brl_line", target,
					 "at=$retval:u64 line=+0($retval):string")))
		return TOOL_USAGE; /* the kernel said why */
	if (!(env.bare_at_f = tep_find_field(env.bare_ev, "at")) ||
	    !(env.at_f = tep_find_field(env.line_ev, "at")) ||
	    !(env.line_f = tep_find_field(env.line_ev, "line")))
		return TOOL_FAIL;
	snprintf(t->traced, sizeof(t->traced), "lines read by bash (readline in %s)", env.path);
	return TOOL_OK;
}

/* --- per line ------------------------------------------------------------------------------ */

static void print_line(uint64_t ts, int tid, const struct pending *p)
{
	struct row *w = &env.row;
	row_begin(w, ts);
	row_int(w, tid);
	if (!p->have_line || p->fault) {
		if (w->json)
			row_none(w);
		else
			row_word(w, "[unknown: longer than a trace event holds]");
		row_none(w);
	} else {
		char text[4 * 256 + 16];
		if (!p->len && !w->json)
			row_word(w, "\"\""); /* an empty line (Enter alone), as statsnoop's path */
		else if (p->cut && !w->json) {
			size_t n = out_text_buf(text, sizeof(text) - 8, p->line, p->len);
			snprintf(text + n, sizeof(text) - n, " [cut]");
			row_word(w, text);
		} else
			row_bytes(w, p->line, p->len);
		if (p->cut)
			row_none(w);
		else
			row_uint(w, p->len);
	}
	row_end(w);
}

/* A return whose two records have come, or one whose other will not (a line too long for
 * the string probe's record; a bare record lost): shown, or counted when it was the end of
 * input (readline returned NULL: Ctrl-D). */
static void resolve(const struct pending *p)
{
	if (!p->at)
		env.eof++;
	else {
		env.unknown += !p->have_line || p->fault;
		print_line(p->ts, p->tid, p);
	}
}

/* The tid's return in progress that this record completes, or a fresh one (a stale one,
 * of another return, resolved first). */
static struct pending *pending_for(int tid, uint64_t at, bool line)
{
	struct pending *p = pair_get(&env.pending, (uint64_t)tid, 0);
	if (p && p->at == at &&
	    (line ? p->have_bare && !p->have_line : p->have_line && !p->have_bare))
		return p;
	if (p) {
		resolve(p);
		pair_del(&env.pending, p);
	}
	p = pair_put(&env.pending, (uint64_t)tid, 0);
	p->at = at;
	p->tid = tid;
	return p;
}

/* The string probe's record: the line. */
static void on_line(struct tep_record *rec, void *ctx)
{
	int tid = reader_pid(rec);
	struct pending *p = pending_for(tid, (uint64_t)reader_num(rec, env.at_f), true);
	size_t len = 0;
	const char *s = reader_str(rec, env.line_f, &len);
	p->fault = !len; /* a read that faulted records nothing, not even the NUL */
	p->cut = strpieces_cut(env.line_f, s, len);
	p->len = strnlen(s, len);
	if (p->len > LINE_MAX_KEPT - 1)
		p->len = LINE_MAX_KEPT - 1;
	memcpy(p->line, s, p->len);
	p->have_line = true;
	if (!p->ts)
		p->ts = rec->ts;
	if (p->have_bare) {
		resolve(p);
		pair_del(&env.pending, p);
	}
}

/* The bare probe's record: every return of readline, whatever the line's length. The
 * kernel runs the two probes' handlers in an order of its own (6.18: this one's first):
 * either may come first. */
static void on_return(struct tep_record *rec, void *ctx)
{
	int tid = reader_pid(rec);
	struct pending *p = pending_for(tid, (uint64_t)reader_num(rec, env.bare_at_f), false);
	p->have_bare = true;
	if (!p->ts)
		p->ts = rec->ts;
	if (p->have_line) {
		resolve(p);
		pair_del(&env.pending, p);
	}
}

/* A loss could leave a line recorded for a return that was lost: forget them. */
static void on_lost(int cpu, long long n, void *ctx)
{
	pair_clear(&env.pending);
}

static enum tool_code setup(struct tool_run *t)
{
	int ret;
	if (pair_init(&env.pending, 64, sizeof(struct pending)) ||
	    reader_on_lost(&t->r, on_lost, NULL))
		return TOOL_FAIL;
	if ((ret = tool_trace(t, env.line_ev, NULL, on_line, NULL)) ||
	    (ret = tool_trace(t, env.bare_ev, NULL, on_return, NULL)))
		return ret;
	return TOOL_OK;
}

/* --- output --------------------------------------------------------------------------------- */

/* At the end, what still waits for its other record: a line too long for its own. */
static bool flush(void *value, void *ctx)
{
	resolve(value);
	return true;
}

static void end(struct tool_run *t)
{
	pair_del_if(&env.pending, flush, NULL);
	if (env.unknown)
		fprintf(stderr,
			"%s: %llu lines could not be shown: too long for a trace event (about "
			"4,000 "
			"bytes)\n",
			t->tool->name, env.unknown);
}

static void cleanup(struct tool_run *t)
{
	pair_free(&env.pending);
}

static const struct tool bashreadline = {
	.name = "bashreadline",
	.opts = options,
	.operand_kind = TOOL_OPERAND_DURATION,
	.examples = examples,
	.rows = (const struct row_table *const[]){&table, NULL},
	.option = option,
	.prepare = prepare,
	.setup = setup,
	.table = &table,
	.row = &env.row,
	.end = end,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&bashreadline, argc, argv);
}
