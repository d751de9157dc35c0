/* SPDX-License-Identifier: GPL-2.0-only */
/* out: buffered stdout that still reaches pipes promptly, and escaping of kernel strings. */
#ifndef FTT_OUT_H
#define FTT_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/spec.h"

/*
 * At start, before any file is opened: standard input, output and error must be open (a
 * closed stdout would make the next open() fd 1, and output would go into that file). A
 * closed stdout is a failure (exit 1, one line); closed stdin or stderr get /dev/null. Also
 * arranges (atexit) that a write error on stdout found at exit (-h, -l, -v to a full disk)
 * turns the exit status into 1 with one line on stderr. tool prefixes those lines and the
 * later ones of out_flush; it is kept, not copied.
 */
void out_check_stdio(const char *tool);

/*
 * -o FILE: standard output goes to the file path from now on, made (0644) or emptied as
 * strace -o does; not through a link (the last name of the path), not a folder, a FIFO only
 * with a reader. Call it before anything is written to stdout and before anything is made in
 * the kernel. Returns 0, or -1 with one line on stderr (prefixed with tool), stdout unchanged.
 */
int out_to_file(const char *path, const char *tool);
/* Its entry in an option table (opt.h), for the tools not on the driver (tool.c has its
 * own, which also says what the command of --exec gets). */
#define OUT_OPT_OUTPUT(opt_id)                                           \
	SPEC(.key = 'o', .name = "output", .arg = "FILE",                \
	     .help = "write the output to FILE (made, or emptied; not\n" \
		     "through a link)",                                  \
	     .id = opt_id)
/* The standard output the tool was given, for the command of --exec. Returns fd 1 without -o,
 * else the copy out_to_file kept of it (close-on-exec, 3 or above, open until the end). */
int out_stdout_before(void);

/* Full buffering on stdout; the reader flushes once per batch of events. */
void out_init(void);
/* Flush stdout (a second signal while it blocks ends the process: sig_blocking_begin).
 * Returns 0 done, 1 its reader went away (EPIPE: the run ends quietly), -1 a write error
 * (said once on stderr: the tool must exit 1); after 1 or -1 the run is asked to stop
 * (sig_request_stop), and every later call returns the same at once. */
int out_flush(void);
/* At the end of the output: flush, then let stdout's reader see its end at once (a pipe's
 * `| head` does not wait for the clean-up after): fd 1 becomes /dev/null. Returns 0 (also when
 * the reader went away), or -1 when writing failed (said once; fd 1 left as it is). */
int out_close(void);
/* Returns true once stdout's reader has gone away or writing failed, else false. */
bool out_closed(void);
/* Returns true when writing to stdout failed (not EPIPE): the exit status must be 1. */
bool out_failed(void);

/*
 * A string s from the kernel (at most max bytes, NUL-terminated or not) as one column token on
 * f: spaces, backslashes, control characters and bytes that are not UTF-8 become \xNN, so
 * columns stay splittable on white space. Padded with spaces to width (a character counts
 * one column, \xNN four).
 */
void out_text(FILE *f, const char *s, size_t max, int width);
/* The same into buf of size bytes, at least 1 (always NUL-terminated; cut to fit, between
 * characters): s, at most max bytes. Returns its length. */
size_t out_text_buf(char *buf, size_t size, const char *s, size_t max);
/* Free text (an event's fields as the kernel's print format renders them), exactly len bytes
 * of s, on f: as out_text, but spaces stay, a NUL byte is \x00 and nothing is padded. One
 * event stays one line whatever its strings hold. */
void out_text_line(FILE *f, const char *s, size_t len);
/* The same for len bytes of s into dst, which holds at least 4 * len bytes (each byte at most
 * \xNN). Returns the bytes written, not terminated. */
size_t out_text_line_buf(char *dst, const char *s, size_t len);
/*
 * One argument of a command line, s (n bytes), as one word on f that cannot be mistaken for
 * two or for another: as it is when it holds only letters, digits, bytes of UTF-8 beyond
 * ASCII and _@%+=:,./- (and is not empty); else, or always with quote, in double quotes, with
 * \" and \\ for quotes and backslashes and \xNN for control characters and bytes that are
 * not UTF-8 (a space stays a space).
 */
void out_text_arg(FILE *f, const char *s, size_t n, bool quote);
/*
 * A string s from the kernel (at most max bytes, NUL-terminated or not) as a JSON string
 * literal with its quotes, on f. Quotes and backslashes are \" and \\, newline and tab \n
 * and \t, other control characters (and DEL) \u00XX; a byte that is not part of valid UTF-8
 * becomes \udcXX (XX: the byte), a lone surrogate that no real text contains, so the original
 * bytes can be recovered exactly (Python: s.encode("utf-8", "surrogateescape")).
 */
void out_json_str(FILE *f, const char *s, size_t max);
/* The same for a buffer s that may hold NUL bytes: exactly len bytes, on f. */
void out_json_bytes(FILE *f, const char *s, size_t len);
/* The same for len bytes of s into dst, which holds at least 6 * len + 2 bytes. Returns the
 * bytes written (the quotes among them), not terminated. */
size_t out_json_bytes_buf(char *dst, const char *s, size_t len);

/* n bytes of s as XML text or an attribute's value (pictures), on f: as out_text_line (spaces
 * stay; control characters, backslashes, bytes that are not UTF-8 and those of U+FFFE and
 * U+FFFF, not XML characters, are \xNN), and & < > " ' as entities. */
void out_xml(FILE *f, const char *s, size_t n);

/* Read once how far the wall clock (CLOCK_REALTIME) is from the trace clock
 * (CLOCK_MONOTONIC), for out_wallclock: a later change of the wall clock is not seen. */
void out_clock_init(void);
/* Trace-clock (CLOCK_MONOTONIC) nanoseconds mono_ns as wall-clock "HH:MM:SS", local time, into
 * buf (the offset read by out_clock_init; none before it). Returns buf (the caller's). */
const char *out_wallclock(uint64_t mono_ns, char buf[16]);

/* v's decimal digits written backwards from end, which has room for 24 bytes before it.
 * Returns where they start, in the caller's buffer. Not terminated. printf's cost on a
 * flood's every number. */
char *out_udec(char *end, unsigned long long v);
/* The same for a signed v, written backwards from end ('-' before the digits). Returns where
 * it starts, in the caller's buffer. */
char *out_dec(char *end, long long v);
/* The same for v's lower-case hex digits (no "0x"), written backwards from end. Returns where
 * they start, in the caller's buffer. */
char *out_hex(char *end, unsigned long long v);
/* Nanoseconds ns as seconds with six decimals on f, a half microsecond rounded up (as the
 * kernel's trace file and trace-cmd report show times). */
void out_seconds(FILE *f, uint64_t ns);
/* The same for ns into dst (48 bytes), not terminated. Returns its length. */
size_t out_seconds_buf(char *dst, uint64_t ns);

/* Tables printed one after another on f (intervals): an empty line between two, none before
 * the first of the process (| head -1 shows a table's first line). */
void out_table_gap(FILE *f);
/* A summary (an interval's, or the end's) with nothing in it: one line on f saying so under
 * its header, "(no " what ")" ("(no I/O)"), where a bare header would leave the reader to
 * wonder whether anything was traced. Text only: in JSON an empty interval is its counts of
 * 0, or no object. */
void out_none(FILE *f, const char *what);

/* The name of a kernel error code returned by a call or a function (code: -ret): "EIO", the
 * kernel's own restart codes a signal leaves ("ERESTARTSYS": the process then sees EINTR, or
 * the call is made again), else "E<n>"; in buf. Returns buf (the caller's). */
const char *out_errname(long long code, char buf[32]);

#endif
