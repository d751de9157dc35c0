// SPDX-License-Identifier: GPL-2.0-only
/*
 * sslsniff: each SSL/TLS read and write before encryption (OpenSSL's SSL_read, SSL_write
 * and their _ex forms; GnuTLS's gnutls_record_recv and gnutls_record_send) with its task,
 * its time, its result and the first bytes of its data: a uprobe at each function's entry
 * and a uretprobe at its return, paired per thread here (funcpair.h).
 *
 * A write's data is in its buffer at the entry: the entry's probe reads its first --max
 * bytes there, in the kernel, exactly. A read's data is in its buffer only once the call
 * has returned, and a uretprobe cannot fetch an argument (the kernel refuses $argN there):
 * so by default a read is shown without it (said at the end). With --late its bytes are
 * read from the process when the return is handled here (process_vm_readv: the reader
 * wakes on the first event, in a flood within its 100 ms wake-up), by which time the
 * process may have changed them (a loop reusing its buffer shows its last read): marked
 * as read late (text: HOW "late", JSON: data_late true), counted and said at the end. The
 * byte count of the _ex forms (*readbytes / *written, a local of the caller's, gone when a
 * late read could look) is read by their return's probe from the caller's stack (its
 * first STACK_WORDS words); one elsewhere is unknown, or with --late read late.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "base/opt.h"
#include "base/row.h"
#include "domain/ustr.h"
#include "join/funcpair.h"
#include "stream/reader.h"
#include "stream/usym.h"
#include "tool.h"

/* The functions: their library, whether they write, whether their byte count is in the
 * fourth argument (the _ex forms: the return is 1 or 0). */
enum lib { OPENSSL, GNUTLS };
static const struct func {
	enum lib lib;
	const char *name;
	bool write, ex;
} funcs[] = {
	{OPENSSL, "SSL_write", true, false},	     {OPENSSL, "SSL_read", false, false},
	{OPENSSL, "SSL_write_ex", true, true},	     {OPENSSL, "SSL_read_ex", false, true},
	{GNUTLS, "gnutls_record_send", true, false}, {GNUTLS, "gnutls_record_recv", false, false},
};
#define NFUNCS (int)(sizeof(funcs) / sizeof(*funcs))
/* The libraries looked for, as the loader names them (without -p). */
static const struct {
	enum lib lib;
	const char *name;
} libs[] = {{OPENSSL, "libssl.so.3"}, {OPENSSL, "libssl.so.1.1"}, {GNUTLS, "libgnutls.so.30"}};
#define NLIBS (int)(sizeof(libs) / sizeof(*libs))
#define MAX_FILES 8
#define DATA_MAX (8 * FUNCPAIR_MEM_WORDS) /* bytes of data one entry can carry */
#define DATA_DEFAULT 64
#define STACK_WORDS 64 /* words of the caller's stack the _ex forms' returns fetch */

static struct env {
	int max;
	bool errors, verbose;
	struct file {
		char path[PATH_MAX];
		enum lib lib;
	} file[MAX_FILES];
	int nfiles;
	struct funcpair fp[MAX_FILES * NFUNCS];
	const struct func *fn[MAX_FILES * NFUNCS];
	char spec[MAX_FILES * NFUNCS][PATH_MAX + 64];
	int nfp;
	/* The _ex forms' return: the caller's stack pointer and its first STACK_WORDS words,
	 * where *readbytes / *written usually is (a local of the caller). */
	char ret_extra[STACK_WORDS * 24 + 32];
	struct tep_format_field *spf[MAX_FILES * NFUNCS], *wf[MAX_FILES * NFUNCS][STACK_WORDS];
	uint64_t calls, late, unread, count_late, no_data, no_count;
	bool late_ok; /* --late: reads' data read from the process after the call */
	struct row row;
	struct tool_run *t;
} env = {.max = DATA_DEFAULT};

enum { OPT_MAX = OPT_LONG + 1, OPT_LATE };

static const struct opt_spec options[] = {
	TOOL_DURATION,
	TOOL_JSON("one JSON object per call, the data as a JSON string"),
	TOOL_NAME,
	TOOL_PID,
	TOOL_TID,
	TOOL_TIMESTAMP,
	TOOL_WALLCLOCK,
	{'v', NULL, NULL, "say which files and functions are probed", 0},
	{'x', NULL, NULL, "only the calls that failed (a result of 0 or less)", 0},
	{OPT_MAX, "max", "N", "show at most N bytes of each call's data (1-512, default 64)", 0},
	{OPT_LATE, "late", NULL,
	 "also a read's data (and an _ex count not on the caller's stack),\nread from the "
	 "process after the call returned: marked late,\nit may have changed since",
	 0},
	TOOL_EXEC,
	TOOL_JSON_KEYS,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"sslsniff                       # every SSL/TLS read and write, until Ctrl-C",
	"sslsniff -n curl --max 256     # curl's calls, 256 bytes of each",
	"sslsniff -j -d 10              # 10 seconds as JSON lines",
	"sslsniff -v -x                 # the failed calls, saying what is probed",
	NULL,
};

static const struct row_col cols[] = {
	ROW_COL_TS,
	ROW_COL_WALL,
	{"COMM", "comm", -16, ROW_STR, 0, 0, "the task's name when the call returned"},
	{"PID", "pid", 7, ROW_INT, 0, 0, "its process"},
	{"TID", "tid", 7, ROW_INT, 0, 0, "its thread"},
	{"CALL", "call", -18, ROW_WORD, 0, 0,
	 "SSL_write, SSL_read, SSL_write_ex, SSL_read_ex, gnutls_record_send or "
	 "gnutls_record_recv"},
	{"RET", "ret", 6, ROW_INT, 0, 0,
	 "what the call returned: bytes (the _ex forms: 1), or 0 or less, the library's error"},
	{"BYTES", "bytes", 6, ROW_INT, 0, 0,
	 "bytes read or written (the _ex forms: read from the process after the call); null "
	 "when none or unknown"},
	{"LATms", NULL, 9, ROW_FLOAT, 3, ROW_NOJSON, NULL},
	{NULL, "lat_ns", 0, ROW_UINT, 0, ROW_NOTEXT, "the call's time, entry to return, in ns"},
	{"HOW", NULL, -5, ROW_WORD, 0, ROW_NOJSON, NULL},
	{NULL, "data_late", 0, ROW_JSON, 0, 0,
	 "true: a read's data, read from the process after the call returned (it may have "
	 "changed since); false: a write's, read by the kernel at the entry; null: none"},
	{NULL, "data_len", 0, ROW_UINT, 0, ROW_NOTEXT, "the bytes of data shown"},
	{"DATA", "data", 0, ROW_STR, 0, 0,
	 "the first --max bytes of the data, escaped in text, exact in JSON; null when none "
	 "(in text HOW says how it was read: entry, late, or - for none)"},
};
static const struct row_table table = ROW_TABLE("each SSL/TLS read or write", cols);

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	(void)t;
	if (o->key == 'v')
		env.verbose = true;
	else if (o->key == 'x')
		env.errors = true;
	else if (o->key == OPT_MAX)
		env.max = (int)opt_int(arg, 1, DATA_MAX, "--max");
	else if (o->key == OPT_LATE)
		env.late_ok = true;
}

/* --- the libraries ------------------------------------------------------------------------ */

static void add_file(const char *path, enum lib lib)
{
	for (int i = 0; i < env.nfiles; i++)
		if (!strcmp(env.file[i].path, path))
			return;
	if (env.nfiles < MAX_FILES) {
		snprintf(env.file[env.nfiles].path, sizeof(env.file[0].path), "%s", path);
		env.file[env.nfiles++].lib = lib;
	}
}

/* With -p: the libraries the process has mapped (its own, wherever they are). */
static int files_of_process(pid_t pid)
{
	char maps[64], line[PATH_MAX + 256];
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(maps, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');
		if (!path)
			continue;
		path[strcspn(path, "\n")] = 0;
		const char *base = strrchr(path, '/') + 1;
		if (!strncmp(base, "libssl.so", 9))
			add_file(path, OPENSSL);
		else if (!strncmp(base, "libgnutls.so", 12))
			add_file(path, GNUTLS);
	}
	fclose(f);
	return 0;
}

static enum tool_code find_files(struct tool_run *t)
{
	const char *name = t->tool->name;
	if (t->o.pid) {
		if (files_of_process(t->o.pid)) {
			fprintf(stderr, "%s: cannot read the maps of process %d\n", name,
				(int)t->o.pid);
			return TOOL_FAIL;
		}
		if (!env.nfiles) {
			fprintf(stderr,
				"%s: process %d has no libssl.so or libgnutls.so mapped: nothing "
				"to "
				"probe\n",
				name, (int)t->o.pid);
			return TOOL_FAIL;
		}
		return TOOL_OK;
	}
	for (int i = 0; i < NLIBS; i++) {
		char path[PATH_MAX];
		if (!usym_target(libs[i].name, path, sizeof(path)))
			add_file(path, libs[i].lib);
		else if (env.verbose)
			fprintf(stderr, "%s: %s not found: not probed\n", name, libs[i].name);
	}
	if (!env.nfiles) {
		fprintf(stderr,
			"%s: none of libssl.so.3, libssl.so.1.1, libgnutls.so.30 found: nothing to "
			"probe\n",
			name);
		return TOOL_FAIL;
	}
	return TOOL_OK;
}

static enum tool_code prepare(struct tool_run *t)
{
	env.t = t;
	int ret = find_files(t);
	if (ret)
		return ret;
	size_t o = (size_t)snprintf(env.ret_extra, sizeof(env.ret_extra), "sp=%%sp:u64");
	for (int w = 0; w < STACK_WORDS; w++)
		o += (size_t)snprintf(env.ret_extra + o, sizeof(env.ret_extra) - o,
				      " w%d=+%d(%%sp):u64", w, 8 * w);
	for (int f = 0; f < env.nfiles; f++) {
		for (int i = 0; i < NFUNCS; i++) {
			if (funcs[i].lib != env.file[f].lib)
				continue;
			char why[PATH_MAX + 200];
			unsigned long long off;
			if (usym_offset(env.file[f].path, funcs[i].name, false, &off, why,
					sizeof(why))) {
				if (env.verbose)
					fprintf(stderr, "%s: %s: no %s: not probed\n",
						t->tool->name, env.file[f].path, funcs[i].name);
				continue;
			}
			int n = env.nfp;
			struct funcpair *fp = &env.fp[n];
			snprintf(env.spec[n], sizeof(env.spec[n]), "%s:%s", env.file[f].path,
				 funcs[i].name);
			fp->spec = env.spec[n];
			fp->retval = true;
			fp->nargs = funcs[i].ex ? 4 : 3;
			if (funcs[i].ex)
				fp->ret_extra = env.ret_extra;
			if (funcs[i].write) {
				fp->mem_arg = 2;
				fp->mem_words = (env.max + 7) / 8;
			}
			char prefix[8];
			snprintf(prefix, sizeof(prefix), "ss%d", n);
			if ((ret = funcpair_probes(t, fp, prefix)))
				return ret;
			env.fn[n] = &funcs[i];
			if (funcs[i].ex && !(env.spf[n] = tep_find_field(fp->ret, "sp")))
				return TOOL_FAIL;
			for (int w = 0; funcs[i].ex && w < STACK_WORDS; w++) {
				char name[8];
				snprintf(name, sizeof(name), "w%d", w);
				if (!(env.wf[n][w] = tep_find_field(fp->ret, name)))
					return TOOL_FAIL;
			}
			env.nfp++;
			if (env.verbose)
				fprintf(stderr, "%s: probing %s in %s\n", t->tool->name,
					funcs[i].name, env.file[f].path);
		}
	}
	if (!env.nfp) {
		fprintf(stderr, "%s: none of the SSL/TLS functions found in the libraries\n",
			t->tool->name);
		return TOOL_FAIL;
	}
	o = (size_t)snprintf(t->traced, sizeof(t->traced), "SSL/TLS reads and writes (in");
	for (int f = 0; f < env.nfiles && o < sizeof(t->traced); f++)
		o += (size_t)snprintf(t->traced + o, sizeof(t->traced) - o, " %s",
				      env.file[f].path);
	if (o < sizeof(t->traced))
		snprintf(t->traced + o, sizeof(t->traced) - o, ")");
	return TOOL_OK;
}

/* --- per call ------------------------------------------------------------------------------ */

static void on_call(struct tep_record *ret, const struct funcpair_call *c, void *ctx)
{
	int n = (int)(intptr_t)ctx;
	const struct func *f = env.fn[n];
	struct tool_run *t = env.t;
	struct row *w = &env.row;
	int tid = tep_data_pid(t->s.tep, ret);
	/* int for OpenSSL's (the register's low 32 bits, sign-extended), ssize_t for GnuTLS's */
	long long rv = funcpair_retval(&env.fp[n], ret);
	if (f->lib == OPENSSL)
		rv = (int)rv;
	if (env.errors && rv > 0)
		return;
	env.calls++;
	long long bytes = rv > 0 ? rv : -1;
	if (f->ex && rv > 0) {
		/* *written or *readbytes: on the caller's stack, as the return's probe read it;
		 * elsewhere read from the process now */
		uint64_t v = 0, sp = (uint64_t)reader_num(ret, env.spf[n]), at = c->args[3] - sp;
		if (c->args[3] >= sp && at <= 8 * (STACK_WORDS - 1) && !(at % 8)) {
			bytes = (long long)(uint64_t)reader_num(ret, env.wf[n][at / 8]);
		} else if (!env.late_ok) {
			bytes = -1;
			env.no_count++;
		} else if (ustr_caller_memory(tid, c->args[3], (char *)&v, sizeof(v)) ==
			   sizeof(v)) {
			bytes = (long long)v;
			env.count_late++;
		} else {
			bytes = -1;
			env.unread++;
		}
	}
	char data[DATA_MAX];
	size_t len = 0;
	int how = 0; /* 0 none, 1 at the entry, 2 late */
	if (bytes > 0) {
		len = (size_t)bytes;
		if (len > c->args[2]) /* never more than asked for */
			len = (size_t)c->args[2];
		if (len > (size_t)env.max)
			len = (size_t)env.max;
		if (f->write) {
			memcpy(data, (const char *)(c->args + env.fp[n].nargs), len);
			how = 1;
		} else if (!env.late_ok) {
			env.no_data++;
		} else if (ustr_caller_memory(tid, c->args[1], data, len) == (ssize_t)len) {
			how = 2;
			env.late++;
		} else {
			env.unread++;
		}
	}
	row_begin(w, c->entry_ts);
	row_str(w, tool_comm(t, tid), 16);
	row_int(w, tool_tgid(t, tid));
	row_int(w, tid);
	row_word(w, f->name);
	row_int(w, rv);
	if (bytes >= 0)
		row_int(w, bytes);
	else
		row_none(w);
	row_float(w, c->ns / 1e6);
	row_uint(w, c->ns);
	row_word(w, how == 1 ? "entry" : how == 2 ? "late" : "-");
	FILE *j = row_json(w);
	if (j)
		fputs(how == 1 ? "false" : how == 2 ? "true" : "null", j);
	if (how) {
		row_uint(w, len);
		row_bytes(w, data, len);
	} else {
		row_none(w);
		row_none(w);
	}
	row_end(w);
}

static enum tool_code setup(struct tool_run *t)
{
	for (int n = 0; n < env.nfp; n++) {
		int ret = funcpair_trace(t, &env.fp[n], on_call, (void *)(intptr_t)n);
		if (ret)
			return ret;
	}
	return TOOL_OK;
}

/* --- output --------------------------------------------------------------------------------- */

static void end(struct tool_run *t)
{
	for (int n = 0; n < env.nfp; n++)
		funcpair_report(&env.fp[n], t->tool->name, 0);
	if (env.no_data)
		fprintf(stderr,
			"%s: %llu reads shown without their data: it is in the buffer only once "
			"the "
			"call has returned, where no probe can read it (--late reads it from the "
			"process then, marked late)\n",
			t->tool->name, (unsigned long long)env.no_data);
	if (env.no_count)
		fprintf(stderr,
			"%s: %llu _ex calls shown without their byte count: not on the caller's "
			"stack at the return (--late reads it from the process then)\n",
			t->tool->name, (unsigned long long)env.no_count);
	if (env.late)
		fprintf(stderr,
			"%s: %llu reads' data read from the process after the call returned: it "
			"could have changed since\n",
			t->tool->name, (unsigned long long)env.late);
	if (env.count_late)
		fprintf(stderr,
			"%s: %llu _ex calls' byte counts read from the process after the call "
			"returned\n",
			t->tool->name, (unsigned long long)env.count_late);
	if (env.unread)
		fprintf(stderr,
			"%s: %llu calls shown without their data or count: the process's memory "
			"could not be read after the call (gone, or unmapped)\n",
			t->tool->name, (unsigned long long)env.unread);
}

static void cleanup(struct tool_run *t)
{
	(void)t;
	for (int n = 0; n < env.nfp; n++)
		funcpair_free(&env.fp[n]);
}

static const struct tool sslsniff = {
	.name = "sslsniff",
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
	return tool_main(&sslsniff, argc, argv);
}
