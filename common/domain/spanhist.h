/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * spanhist: a histogram tool on span.h's pairs (runqlat, cpudist): where the pairs are made
 * (--via: binned in the kernel, paired in the kernel and read one by one, or paired here;
 * by default the first this kernel can), each pair's time in whole units (span_units) added
 * to histbykey.h's histograms by key, every interval, and at the end what was not paired.
 *
 * The tool describes its pairing twice: for here (span_init and its events, with
 * spanhist_done as span's done when the end record names the task as its describe says)
 * and for the kernel (a span_kernel with fields "pid" and, for names, "comm").
 */
#ifndef FTT_SPANHIST_H
#define FTT_SPANHIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/opt.h" /* SPEC */
#include "domain/histbykey.h"
#include "kernel/histtable.h"
#include "join/span.h"

struct tool_run;
struct tep_record;
struct tep_format_field;

enum spanhist_via { SPANHIST_BEST, SPANHIST_HIST, SPANHIST_PAIRS, SPANHIST_USER };

#define SPANHIST_OPT_VIA (OPT_LONG + 0x40)
#define SPANHIST_VIA_OPTION                                                            \
	SPEC(.key = SPANHIST_OPT_VIA, .name = "via", .arg = "HOW",                     \
	     .help = "where the pairs are made: hist (in the kernel, which also\n"     \
		     "bins them: only the histogram is read), pairs (in the kernel,\n" \
		     "each read), user (here, from every event); default: the first\n" \
		     "this kernel can")

struct spanhist {
	/* Set by the tool (options). */
	enum spanhist_via via;
	enum histbykey_key key;
	bool millis;
	/* Set by spanhist_prepare. */
	enum spanhist_via how;
	uint64_t unit;
	struct histbykey hs;
	struct span s;
	struct span_kernel k;
	/* Paired here: the end record's fields that name the task. */
	struct tep_format_field *end_pid, *end_comm;
	struct tep_format_field *pair_pid, *pair_comm;
	struct histtable prev; /* SPANHIST_HIST: the kernel's table at the last read */
	struct tool_run *t;
};

/* --via's value arg into sh->via; a usage error (exit 2) when it is none of them. */
void spanhist_via(struct spanhist *sh, const char *arg);
/* After the options: -P (per_process: then sh's key is the process) with -k tid or comm, and
 * --via hist with -k comm, are usage errors (exit 2); sh->unit set by -m (sh->millis). */
void spanhist_check(struct spanhist *sh, bool per_process);

/*
 * In prepare(): where the pairs are made (t: the tool's run). describe(sh, hist) fills sh->k
 * for the kernel (mode and unit are set after it); what: what is traced ("run queue
 * latency"); counted: what the histograms count ("waits"). Returns a TOOL_ status: TOOL_OK,
 * or TOOL_FAIL when the --via asked for cannot be (said on stderr), out of memory, or the
 * kernel's pair event has no field pid or comm (not said); t->traced says how, "<what>
 * (binned in the kernel)". Frees: spanhist_free(sh).
 */
enum tool_code spanhist_prepare(struct spanhist *sh, struct tool_run *t, const char *what,
				const char *counted,
				void (*describe)(struct spanhist *sh, bool hist));

/* In setup(): sh's pairing in the kernel traced; for here, the tool enables its events itself
 * (after span_init with spanhist_done). Returns a TOOL_ status (TOOL_OK when set up, and
 * always when paired here). */
enum tool_code spanhist_setup(struct spanhist *sh);

/* span's done for pairs made here (ctx: the struct spanhist): the end record names the task by
 * end_pid, end_comm; the value added is span_units of st's and end's times (ns and data are
 * not used). */
void spanhist_done(const struct tep_record *end, const struct span_start *st, uint64_t ns,
		   void *data, void *ctx);

/* The tool's interval(): sh's histograms printed (now: the interval's end), then begun again.
 * Returns 0, or 1 when the kernel's table cannot be read (--via hist: said on stderr, nothing
 * printed, t->failed set): the last interval. */
int spanhist_interval(struct spanhist *sh, uint64_t now);
/* The tool's end(): sh's histograms printed (the partial last interval, unless interval()
 * said the last one was), then what was not paired (what: "switches"). */
void spanhist_end(struct spanhist *sh, const char *what);

/* What sh holds freed: its span, its pairing in the kernel, its histograms and the kernel's
 * table last read. */
void spanhist_free(struct spanhist *sh);

#endif
