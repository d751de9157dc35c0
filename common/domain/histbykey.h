/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * histbykey: log2 histograms of one quantity, one in all or one per key (a process, a thread,
 * a task name), with the sum of what each counted, printed every interval alike by the
 * scheduler tools (runqlat, cpudist): in text as hist.h draws them, each under a line naming
 * its key ("pid = 181 sshd"); in JSON one object per histogram (histbykey_rows). Counted by
 * value (a pair made here) or by slot (what the kernel's tables counted, histtable.h).
 */
#ifndef FTT_HISTBYKEY_H
#define FTT_HISTBYKEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/agg.h"
#include "count/hist.h"
#include "count/prom.h"
#include "base/row.h"

struct tool_run;

enum histbykey_key { HISTBYKEY_ALL, HISTBYKEY_PID, HISTBYKEY_TID, HISTBYKEY_COMM };

#define HISTBYKEY_COMM_LEN 16

struct histbykey {
	enum histbykey_key key;
	const char *unit; /* "us", "ms" */
	const char *what; /* what is counted, in the text's header ("waits") */
	struct agg a;	  /* key -> struct histbykey_val (HISTBYKEY_ALL: one key) */
	bool oom;	  /* a key could not be added (said by histbykey_print) */
	struct row row;
	/* --prom (prom.h): the family's name and help, set by the tool after histbykey_init;
	 * each printed histogram is added to its series, kept from the start of the run. */
	const char *prom_name, *prom_help;
	struct prom_set prom;
};

struct histbykey_val {
	struct hist_log2 h;
	uint64_t sum; /* the values added up */
	char comm[HISTBYKEY_COMM_LEN];
};

/* The lines of -j: one per histogram. */
extern const struct row_table histbykey_rows;

/* An empty set s of histograms by key; unit ("us", "ms") and what (what is counted: "waits")
 * are kept as given, not copied. Returns 0, or -1 when out of memory (nothing to free).
 * Frees: histbykey_free(s). */
int histbykey_init(struct histbykey *s, enum histbykey_key key, const char *unit, const char *what);
/* What s holds freed: its histograms and its --prom series. */
void histbykey_free(struct histbykey *s);

/* One value v of process or thread id named comm (at most len bytes: as the kernel recorded
 * it, not NUL-terminated when 16 long), by the set's key, into s. A key that cannot be added
 * (out of memory) loses the value and asks the run to stop (said by histbykey_print). */
void histbykey_add(struct histbykey *s, int id, const char *comm, size_t len, uint64_t v);
/* The same for n values in slot k of hist.h, adding up to sum: into s, of process or thread id
 * named comm (len bytes at most); nothing when n is 0 or k not a slot. */
void histbykey_add_slot(struct histbykey *s, int id, const char *comm, size_t len, int k,
			uint64_t n, uint64_t sum);

/* Every histogram of s on stdout as t (the tool's run) asks, most counted first (one, even
 * empty, without keys), then the set starts again; a key lost for memory since the last print
 * is said on stderr. now: the interval's end (trace clock), JSON's "time" and the text's with
 * -T. With --prom and a prom_name, the file is written too: a histogram in seconds per key
 * (labels pid, tid, comm as the key has them), counted from the start. */
void histbykey_print(struct histbykey *s, struct tool_run *t, uint64_t now);

/* The key a tool's option arg names ("-k comm": HISTBYKEY_COMM). Returns it; a usage error
 * (exit 2) otherwise. */
enum histbykey_key histbykey_key_of(const char *arg);

#endif
