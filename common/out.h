/* out: buffered stdout that still reaches pipes promptly, and escaping of kernel strings. */
#ifndef FTT_OUT_H
#define FTT_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Full buffering on stdout; the reader flushes once per batch of events. */
void out_init(void);
/* Flush stdout. A closed pipe (EPIPE) stops the session quietly; returns non-zero then. */
int out_flush(void);
/* True once stdout's reader has gone away. */
int out_closed(void);

/*
 * A string from the kernel (at most max bytes, NUL-terminated or not) as one column token:
 * spaces, backslashes, control characters and bytes that are not UTF-8 become \xNN, so
 * columns stay splittable on white space. Padded with spaces to width.
 */
void out_text(FILE *f, const char *s, size_t max, int width);
/* The same string as a JSON string literal with its quotes. Bytes that are not valid UTF-8
 * become \u0080-\u00ff escapes (valid UTF-8 is never escaped, so such escapes mean bytes). */
void out_json_str(FILE *f, const char *s, size_t max);

/* Trace-clock (CLOCK_MONOTONIC) nanoseconds as wall-clock "HH:MM:SS". */
void out_clock_init(void);
const char *out_wallclock(uint64_t mono_ns, char buf[16]);

#endif
