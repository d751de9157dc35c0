/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * testhooks: the places the unit tests and fuzzers point elsewhere, in one header. Each is
 * defined by its module with the value the tools use; only tests/ and those modules include
 * this header, so no tool can change one by mistake.
 */
#ifndef FTT_TESTHOOKS_H
#define FTT_TESTHOOKS_H

#include <stdbool.h>

/* base/opt: called after a usage error's message instead of exiting (the fuzzers longjmp
 * from it; it must not return: opt_fail would then exit 2). NULL in the tools. Returns:
 * never. */
extern void (*opt_fail_hook)(void);
/* base/state: the folder instead of /run/ftrace-tools (its checks still apply), and whether a
 * replayed write must land on tracefs itself (a fake tree is on tmpfs). */
extern const char *state_dir_for_tests;
extern bool state_fake_tracefs;
/* kernel/reset: a file read instead of /proc/self/mounts (the machine's own tracing folders,
 * which someone may be reading, left out of a test on a fake tree). */
extern const char *reset_mounts_for_tests;
/* kernel/session: where the lockdown mode is read (/sys/kernel/security/lockdown). */
extern const char *session_lockdown_file;
/* kernel/session: called with a new instance's directory dir right after it is made (a fake
 * tracefs tree has no kernel to fill it), NULL in the tools. Returns nothing. */
extern void (*session_after_mkdir)(const char *dir);
/* kernel/toplevel: perf-tools' lock (/var/tmp/.ftrace-lock): its tools refuse to run while
 * it exists, and ours while it does. */
extern const char *toplevel_perf_tools_lock;
/* stream/usym: the loader's cache usym_target reads (/etc/ld.so.cache), and where the
 * separate debug files of stripped files are (/usr/lib/debug). */
extern const char *usym_ld_cache;
extern const char *usym_debug_root;

#endif
