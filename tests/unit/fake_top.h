/* SPDX-License-Identifier: GPL-2.0-only */
/* A fake top level for the tests of what owns it (toplevel.c and its users). */
#ifndef FTT_TEST_FAKE_TOP_H
#define FTT_TEST_FAKE_TOP_H

#include "helpers.h"

#include <tracefs.h>

#include "base/state.h"
#include "kernel/toplevel.h"

/*
 * A tracefs tree made from pattern ("/tmp/ftt-top-XXXXXX") into tree (64 bytes), with the
 * files every owner reads (current_tracer nop, tracing_on 1, no event set) and files (up to
 * one with no name); libtracefs pointed at it; the state folder (run) and perf-tools' lock
 * (lock), 128 bytes each, inside it.
 */
struct fake_file {
	const char *name, *text;
};

static inline void fake_top_make(char *tree, const char *pattern, char *run, char *lock,
				 const struct fake_file *files)
{
	strcpy(tree, pattern);
	assert_non_null(mkdtemp(tree));
	write_file(tree, "current_tracer", "nop\n");
	write_file(tree, "tracing_on", "1\n");
	write_file(tree, "set_event", "");
	for (int i = 0; files && files[i].name; i++)
		write_file(tree, files[i].name, files[i].text);
	assert_int_equal(tracefs_set_tracing_dir(tree), 0);
	snprintf(run, 128, "%s/run", tree);
	snprintf(lock, 128, "%s/ftrace-lock", tree);
	state_dir_for_tests = run;
	state_fake_tracefs = true; /* the tree is on tmpfs: only paths are checked */
	toplevel_perf_tools_lock = lock;
}

#endif
