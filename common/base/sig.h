/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sig: how a run stops. Every catchable signal whose default is to end the process asks the
 * main loop to stop (the handler only counts); a second one while the run is finishing means
 * "now". Faults (SIGSEGV, SIGABRT, ...) and a second signal that arrives while the process is
 * blocked writing its output run the emergency steps registered here (remove the instance and
 * the probes, with async-signal-safe system calls only), then the process ends.
 */
#ifndef FTT_SIG_H
#define FTT_SIG_H

#include <signal.h>
#include <stdbool.h>

/* Stop requests so far: 0 running, 1 stop after reading what was recorded, 2+ stop now. */
extern volatile sig_atomic_t sig_stop;

/* Install the handlers (again: harmless); tool prefixes the handlers' own messages (copied,
 * at most 63 bytes; NULL keeps the one before). SIGHUP stays ignored when it was (nohup).
 * Returns 0, or -1 with errno when a handler cannot be installed (sigaction). */
int sig_install(const char *tool);
/* A stop from the program itself (output closed, out of memory): as one signal. */
void sig_request_stop(void);
/* Stop at once: as a second signal. */
void sig_request_stop_now(void);

/* Around a write that may block (a stalled pipe or terminal): a second signal during it
 * runs the emergency steps and ends the process, instead of waiting for the write. */
void sig_blocking_begin(void);
/* The end of such a write (sig_blocking_begin). */
void sig_blocking_end(void);

/*
 * An emergency step that removes the folder path (rmdir). Emergency steps run once each, in
 * the order registered, except that the rmdir(path) steps run before all others (an instance
 * must go before the probes it has enabled can), the last registered first, and that a step
 * of sig_on_emergency_write_before runs before the step it names; the others write(line) to
 * path. The strings are copied now. Before the steps, the process closes its files (an open
 * file keeps an instance busy). Returns a handle for sig_forget, or -1 when out of memory.
 */
int sig_on_emergency_rmdir(const char *path);
/* An emergency step that appends line to path (a file that cannot be opened is left alone).
 * Returns a handle for sig_forget, or -1 when out of memory. */
int sig_on_emergency_write(const char *path, const char *line);
/* The same, with the file truncated first: line replaces what path holds. Returns a handle
 * for sig_forget, or -1 when out of memory. */
int sig_on_emergency_replace(const char *path, const char *line);
/* The same as sig_on_emergency_write (line appended to path), run before the step of handle
 * before (at the end when before is -1): what must go before the instance can (a hist
 * trigger that holds it). Returns a handle for sig_forget, or -1 when out of memory. */
int sig_on_emergency_write_before(int before, const char *path, const char *line);
/* A counter of 16 bits at offset of path (a USDT semaphore in /proc/PID/mem) lowered by one,
 * unless it is 0. Returns a handle for sig_forget, or -1 when out of memory. */
int sig_on_emergency_decrement(const char *path, unsigned long long offset);
/* The step of handle is done by the normal path, or no longer wanted: it will not run (a
 * handle that is none: nothing). */
void sig_forget(int handle);
/* Run the steps now (tests; also what the handler does), each that has not run yet, after
 * closing every file but standard input, output and error. Async-signal-safe. */
void sig_emergency(void);

/* The name of signal sig ("SIGTERM"), "SIGRT0" to "SIGRT32" for 32 to 64 (the kernel's
 * count; asm-generic numbers: x86-64, arm64, riscv64), else its number in buf. Returns a
 * static name, or buf (the caller's). */
const char *sig_name(int sig, char buf[16]);
/* What SIG_DFL does with sig. Returns 'T' end the process, 'C' end it and dump core, 'I'
 * nothing, 'S' stop; 'T' for a signal it does not name. */
char sig_default(int sig);

#endif
