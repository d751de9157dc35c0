/* opt: checked parsing of command-line values; a bad value is one line on stderr and exit 2. */
#ifndef FTT_OPT_H
#define FTT_OPT_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define EXIT_USAGE 2

/* The tool's name for messages (set from argv[0] by opt_init). */
extern const char *opt_tool;
/* Also reads the environment the tools share: FTT_BUFFER_KB (see opt_buffer_kb). */
void opt_init(const char *argv0);
/* FTT_BUFFER_KB: the per-CPU buffer size every tool then uses instead of its own choice (to
 * trade memory for lost events; tests use a tiny one to force losses); 0 when unset. */
extern size_t opt_buffer_kb;
/* The largest FTT_BUFFER_KB this machine's memory allows (a quarter of MemAvailable, spread
 * over the CPUs). */
long long opt_buffer_limit_kb(void);

/* "tool: <message>" on stderr, exit 2. */
void opt_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* An integer in [min, max]; what names the value in the error ("PID", "count"). */
long long opt_int(const char *s, long long min, long long max, const char *what);
pid_t opt_pid(const char *s);
/* Seconds, fractions allowed ("0.5"), greater than 0; returned in nanoseconds. */
uint64_t opt_seconds(const char *s, const char *what);
/* A decimal greater than 0 times scale (opt_decimal("1.5", 1e6, "MS", "milliseconds")). */
uint64_t opt_decimal(const char *s, double scale, const char *what, const char *unit);
/* A PID that names a running process. */
pid_t opt_live_pid(const char *s);

/* A block device: "MAJOR,MINOR", "MAJOR:MINOR", a name under /sys/class/block, or a /dev path.
 * Returned in the kernel's encoding (MAJOR << 20 | MINOR), as block tracepoints record it. */
uint32_t opt_blockdev(const char *s);
/* As opt_blockdev, but returns -1 instead of failing (for tests and callers with fallbacks). */
int blockdev_parse(const char *s, uint32_t *kdev);
/* "vda" for a kernel dev_t, or "" when unknown; not for the per-event path. */
const char *blockdev_name(uint32_t kdev, char *buf, size_t len);

#define KDEV_MAJOR(d) ((unsigned)((d) >> 20))
#define KDEV_MINOR(d) ((unsigned)((d) & ((1U << 20) - 1)))

/* Print the version line and exit 0 (-V). */
void opt_version(void) __attribute__((noreturn));

/* The long options every tool has: --help, --version, --json. */
extern const struct option opt_longopts[];
/* The options every tool handles alike: -h (usage on stdout, exit 0), -V, and anything
 * getopt did not know or that lacked its value (exit 2). Call from the switch's default. */
void opt_common(int c, char **argv, void (*usage)(FILE *)) __attribute__((noreturn));

#endif
