// SPDX-License-Identifier: GPL-2.0-only
/*
 * gethostlatency: each host name lookup through the C library (getaddrinfo, gethostbyname,
 * gethostbyname2) with its task, its time and the name asked for: a uprobe at each
 * function's entry reads the name, a uretprobe its result, paired per thread here
 * (funcpair.h). The C library is the one the loader would find (libc.so.6, as statsnoop's
 * uprobes find it): static programs and those of another mount namespace with a library of
 * their own are not seen.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <event-parse.h>

#include "join/funcpair.h"
#include "base/opt.h"
#include "base/out.h"
#include "base/row.h"
#include "tool.h"
#include "stream/usym.h"

/* The lookups, each with the argument that is the name (1-based). */
static const char *const funcs[] = {"getaddrinfo", "gethostbyname", "gethostbyname2"};
#define NFUNCS (int)(sizeof(funcs) / sizeof(*funcs))
/* Bytes of a name kept (a DNS name has at most 253; longer ones are shown cut, with their
 * length). */
#define HOST_MAX 256

static struct env {
	struct funcpair fp[NFUNCS];
	char spec[NFUNCS][PATH_MAX + 64];
	char lib[PATH_MAX];
	struct row row;
	struct tool_run *t;
} env;

static const struct opt_spec options[] = {
	TOOL_DURATION, TOOL_JSON("one JSON object per lookup"),
	TOOL_NAME,     TOOL_PID,
	TOOL_TID,      TOOL_TIMESTAMP,
	TOOL_EXEC,     TOOL_JSON_KEYS,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"gethostlatency                 # every lookup, until Ctrl-C",
	"gethostlatency -p 181          # PID 181's",
	"gethostlatency -j -d 10        # 10 seconds as JSON lines",
	"gethostlatency --exec getent ahosts localhost # one command's",
	NULL,
};

static const struct row_col cols[] = {
	ROW_COL_TS,
	{"TIME", "time", -8, ROW_WALL, 0, 0, "wall-clock HH:MM:SS when the lookup began"},
	{"PID", "pid", 7, ROW_INT, 0, 0, "the thread that looked up"},
	{"COMM", "comm", -16, ROW_STR, 0, 0, "its name when the lookup returned"},
	{"LATms", NULL, 10, ROW_FLOAT, 3, ROW_NOJSON, NULL},
	{NULL, "lat_ns", 0, ROW_UINT, 0, ROW_NOTEXT, "the lookup's time, entry to return, in ns"},
	{"CALL", "call", -14, ROW_WORD, 0, 0, "getaddrinfo, gethostbyname or gethostbyname2"},
	{"RET", "ret", 4, ROW_INT, 0, 0,
	 "getaddrinfo's result (0, or an EAI_ code: -2 EAI_NONAME...); the others' 0 when they "
	 "returned a host, -1 when NULL"},
	{"HOST", "name", 0, ROW_STR, 0, 0,
	 "the name asked for, escaped in text, exact in JSON (null when it could not be read)"},
	{NULL, "name_len", 0, ROW_UINT, 0, ROW_NOTEXT,
	 "its length in bytes (more than shown: cut); null when not read"},
};
static const struct row_table table = ROW_TABLE("each lookup", cols);

static enum tool_code prepare(struct tool_run *t)
{
	env.t = t;
	if (usym_target("libc", env.lib, sizeof(env.lib))) {
		fprintf(stderr,
			"%s: no shared C library found to probe (libc.so.6): the lookups of static "
			"programs cannot be traced with uprobes\n",
			t->tool->name);
		return TOOL_FAIL;
	}
	for (int i = 0; i < NFUNCS; i++) {
		struct funcpair *fp = &env.fp[i];
		snprintf(env.spec[i], sizeof(env.spec[i]), "%s:%s", env.lib, funcs[i]);
		fp->spec = env.spec[i];
		fp->retval = true;
		fp->str_arg = 1;
		fp->nargs = 1; /* the name's pointer: NULL read in pieces is not "" */
		fp->str_size = HOST_MAX;
		char prefix[8];
		snprintf(prefix, sizeof(prefix), "gh%d", i);
		int ret = funcpair_probes(t, fp, prefix);
		if (ret)
			return ret;
	}
	snprintf(t->traced, sizeof(t->traced),
		 "host name lookups (getaddrinfo, gethostbyname, gethostbyname2 in %s)", env.lib);
	/* The wall-clock time always, as users of bcc's tool know it. */
	return TOOL_OK;
}

/* --- per lookup ---------------------------------------------------------------------------- */

static void on_call(struct tep_record *ret, const struct funcpair_call *c, void *ctx)
{
	int i = (int)(intptr_t)ctx;
	struct tool_run *t = env.t;
	struct row *w = &env.row;
	int tid = tep_data_pid(t->s.tep, ret);
	long long rv = funcpair_retval(&env.fp[i], ret);
	row_begin(w, c->entry_ts);
	row_int(w, tid);
	row_str(w, tool_comm(t, tid), 16);
	row_float(w, c->ns / 1e6);
	row_uint(w, c->ns);
	row_word(w, funcs[i]);
	/* getaddrinfo returns an int: the register's low 32 bits, sign-extended */
	row_int(w, i == 0 ? (long long)(int)rv : rv ? 0 : -1);
	if (!c->str) { /* a bad address, or 4096 bytes or more (the kernel's string limit) */
		if (w->json)
			row_none(w);
		else
			row_word(w, "[unknown]");
		row_none(w);
	} else {
		size_t kept = c->str_len < HOST_MAX ? c->str_len : HOST_MAX - 1;
		if ((kept < c->str_len || c->str_cut) && !w->json) {
			char text[4 * HOST_MAX + 64];
			size_t n = out_text_buf(text, sizeof(text), c->str, kept);
			if (c->str_cut) /* read in pieces, its length not known */
				snprintf(text + n, sizeof(text) - n, " [cut]");
			else
				snprintf(text + n, sizeof(text) - n, " [cut: %zu bytes]",
					 c->str_len);
			row_word(w, text);
		} else {
			row_bytes(w, c->str, kept);
		}
		if (c->str_cut)
			row_none(w);
		else
			row_uint(w, c->str_len);
	}
	row_end(w);
}

static enum tool_code setup(struct tool_run *t)
{
	for (int i = 0; i < NFUNCS; i++) {
		int ret = funcpair_trace(t, &env.fp[i], on_call, (void *)(intptr_t)i);
		if (ret)
			return ret;
	}
	return TOOL_OK;
}

/* --- output --------------------------------------------------------------------------------- */

static void end(struct tool_run *t)
{
	for (int i = 0; i < NFUNCS; i++)
		funcpair_report(&env.fp[i], t->tool->name, 0);
}

static void cleanup(struct tool_run *t)
{
	for (int i = 0; i < NFUNCS; i++)
		funcpair_free(&env.fp[i]);
}

static const struct tool gethostlatency = {
	.name = "gethostlatency",
	.opts = options,
	.operand_kind = TOOL_OPERAND_DURATION,
	.examples = examples,
	.rows = (const struct row_table *const[]){&table, NULL},
	.prepare = prepare,
	.setup = setup,
	.table = &table,
	.row = &env.row,
	.end = end,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&gethostlatency, argc, argv);
}
