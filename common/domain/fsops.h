/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fsops: one file system's reads, writes, opens and fsyncs timed at its own file operations
 * (fsslower, fsdist): a kprobe and a kretprobe on its function for each (found in
 * /proc/kallsyms), paired per thread by funcpair; without kprobes what its tracepoints pair
 * from an entry to an exit (ext4's fsyncs). The tools are also run by the names users type
 * (ext4slower, ext4dist): fsops_alias reads the file system from it.
 */
#ifndef FTT_FSOPS_H
#define FTT_FSOPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "join/funcpair.h"

struct ksyms;
struct tool_run;
struct tep_format_field;

/* The operations, in the order of their letters R, W, O, S. */
enum { FSOPS_R, FSOPS_W, FSOPS_O, FSOPS_S, FSOPS_N };
/* The file systems: ext4, xfs, btrfs, nfs (their names, NULL-terminated, for opt_choice). */
#define FSOPS_NFS 4
extern const char *const fsops_fs_names[FSOPS_NFS + 1];

struct fsops {
	/* Set before fsops_prepare. */
	int fs;	      /* index in fsops_fs_names */
	bool names;   /* fetch each operation's file name and a read's or write's offset */
	bool verbose; /* -v: say what would time each operation on stdout, make nothing */
	/* Set by fsops_plan / fsops_prepare. */
	bool kprobes;		  /* the kernel has kprobe events */
	bool on[FSOPS_N];	  /* traced */
	bool by_tp[FSOPS_N];	  /* by the file system's tracepoints */
	const char *why[FSOPS_N]; /* not traced: why */
	struct funcpair fp[FSOPS_N];
	char fetch_name[FSOPS_N][64];
	struct tep_format_field *ino; /* the tracepoints' inode number */
	/* A read through generic_file_read_iter (the file system has no read_iter of its own,
	 * as ext4 before 4.10): kept only when the file's f_op is the file system's. */
	bool generic;
	unsigned long long fops; /* <fs>_file_operations' address (CONFIG_KALLSYMS_ALL) */
	funcpair_fn fn;
	struct fsops_op {
		struct fsops *f;
		int op;
	} ctx[FSOPS_N];
	char traced[64]; /* "reads, writes, opens, fsyncs": what is traced */
};

/* The letter of op (FSOPS_R ..: not checked). Returns it ("R"), a static string. */
const char *fsops_letter(int op);
/* What op counts. Returns it ("reads"), a static string. */
const char *fsops_what(int op);
/* The function of op for fs (an index in fsops_fs_names). Returns it ("ext4_file_read_iter"),
 * a static string. */
const char *fsops_func(int fs, int op);
/* The file system a program's name chooses: argv0's last component is "<fs><suffix>"
 * (ext4slower with "slower"). Returns its index in fsops_fs_names, or -1. */
int fsops_alias(const char *argv0, const char *suffix);
/* In main(): the file system a program's name chooses (fsops_alias of argv0 and suffix), its
 * name then written into name, of len bytes ("ext4slower"). Returns the file system's
 * index, else -1 and name untouched. */
int fsops_tool_name(const char *argv0, const char *suffix, char *name, size_t len);
/* In check(): the file system of the name the tool is run by (alias >= 0), set in f, where
 * --fs (fs_given, in f->fs) may name only that one (a usage error naming tool and base,
 * "fsslower", otherwise: a line on stderr and exit 2). */
void fsops_check(struct fsops *f, int alias, bool fs_given, const char *tool, const char *base);
/* Where struct file keeps f_path.dentry in the kernel of this release ("6.12.1"). Returns
 * its offset: 24 before Linux 6.12, 72 from 6.12 on and when release is not "N.N...". */
int fsops_dentry_offset(const char *release);
/* Writes into out (len bytes) the entry's fetch of the file's name for op (dentry:
 * fsops_dentry_offset's). */
void fsops_name_fetch(int op, int dentry, char *out, size_t len);

/* Plans what can time each operation of f's file system (nothing made): kprobes where the
 * kernel has them (kprobes) and k names the function, else the fs's fsync tracepoints where
 * have_sync_tp. A read without the file system's own function: generic_file_read_iter, kept
 * when the file's operations are <fs>_file_operations, found in the data symbols kdata
 * (CONFIG_KALLSYMS_ALL), with struct file as before 6.12 (dentry, fsops_dentry_offset's, 24:
 * f_op at 40). Sets kprobes, on, by_tp, generic, fops, why and traced in f. Returns how many
 * operations are on. */
int fsops_plan(struct fsops *f, bool kprobes, const struct ksyms *k, const struct ksyms *kdata,
	       int dentry, bool have_sync_tp);
/* Writes into out (len bytes, cut when short) the one line on what f leaves out ("reads (R),
 * ... not traced: ...; tracing fsyncs"), or an empty string when nothing is. */
void fsops_left_out(const struct fsops *f, char *out, size_t len);

/*
 * In prepare() of t, the tool's run: plan f, then make the probes (or load the tracepoints)
 * of what is on. Says on stderr, as tool, what is left out (one line), or that nothing can be
 * traced (TOOL_FAIL); with verbose prints the plan on stdout and returns TOOL_DONE. Returns a
 * TOOL_ status: TOOL_OK, TOOL_DONE, or a failure said on stderr (TOOL_FAIL; TOOL_USAGE from
 * funcpair_probes for a function the kernel cannot trace).
 */
enum tool_code fsops_prepare(struct tool_run *t, struct fsops *f);
/* In setup() of t, the tool's run: each operation on in f, paired, to fn with ctx the
 * operation (intptr_t); a generic read of another file system's file left out. Returns
 * TOOL_OK, or funcpair_trace's failure status. */
enum tool_code fsops_trace(struct tool_run *t, struct fsops *f, funcpair_fn fn);
/* In end(): the losses of f's pairs, on stderr headed by tool (funcpair_report). */
void fsops_report(struct fsops *f, const char *tool);
/* Frees the pairs of f (each operation's, funcpair_free). */
void fsops_free(struct fsops *f);

#endif
