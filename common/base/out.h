/* SPDX-License-Identifier: GPL-2.0-only */
/* out: buffered stdout that still reaches pipes promptly, and escaping of kernel strings. */
#ifndef FTT_OUT_H
#define FTT_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * At start, before any file is opened: standard input, output and error must be open (a
 * closed stdout would make the next open() fd 1, and output would go into that file). A
 * closed stdout is a failure (exit 1, one line); closed stdin or stderr get /dev/null. Also
 * arranges that a write error on stdout found at exit (-h, -l, -v to a full disk) turns the
 * exit status into 1 with one line on stderr.
 */
void out_check_stdio(const char *tool);

/*
 * -o FILE: standard output goes to FILE from now on, made (0644) or emptied as strace -o
 * does; not through a link (the last name of the path), not a folder, a FIFO only with a
 * reader. -1 with one line on stderr (prefixed with tool), nothing changed. Call it before
 * anything is written to stdout and before anything is made in the kernel.
 */
int out_to_file(const char *path, const char *tool);
/* Its entry in an option table (opt.h), for the tools not on the driver (tool.c has its
 * own, which also says what the command of --exec gets). */
#define OUT_OPT_OUTPUT(id)                                                  \
	{                                                                   \
		'o', "output", "FILE",                                      \
			"write the output to FILE (made, or emptied; not\n" \
			"through a link)",                                  \
			id                                                  \
	}
/* The standard output the tool was given (fd 1 without -o): for the command of --exec. */
int out_stdout_before(void);

/* Full buffering on stdout; the reader flushes once per batch of events. */
void out_init(void);
/* Flush stdout: 0 done, 1 its reader went away (EPIPE: the run ends quietly), -1 a write
 * error (said once on stderr: the tool must exit 1). */
int out_flush(void);
/* At the end of the output: flush, then let stdout's reader see its end at once (a pipe's
 * `| head` does not wait for the clean-up after). -1 when writing failed (said once). */
int out_close(void);
/* True once stdout's reader has gone away or writing failed. */
bool out_closed(void);
/* True when writing failed (not EPIPE): the exit status must be 1. */
bool out_failed(void);

/*
 * A string from the kernel (at most max bytes, NUL-terminated or not) as one column token:
 * spaces, backslashes, control characters and bytes that are not UTF-8 become \xNN, so
 * columns stay splittable on white space. Padded with spaces to width.
 */
void out_text(FILE *f, const char *s, size_t max, int width);
/* The same into buf (always NUL-terminated; cut to fit); returns its length. */
size_t out_text_buf(char *buf, size_t size, const char *s, size_t max);
/* Free text (an event's fields as the kernel's print format renders them): as out_text,
 * but spaces stay. One event stays one line whatever its strings hold. */
void out_text_line(FILE *f, const char *s, size_t len);
/* The same into dst, which holds at least 4 * len bytes (each byte at most \xNN); returns
 * the bytes written, not terminated. */
size_t out_text_line_buf(char *dst, const char *s, size_t len);
/*
 * One argument of a command line (n bytes) as one word that cannot be mistaken for two or
 * for another: as it is when it holds only letters, digits, bytes of UTF-8 beyond ASCII and
 * _@%+=:,./- (and is not empty); else, or always with quote, in double quotes, with \" and
 * \\ for quotes and backslashes and \xNN for control characters and bytes that are not
 * UTF-8 (a space stays a space).
 */
void out_text_arg(FILE *f, const char *s, size_t n, bool quote);
/*
 * The same string as a JSON string literal with its quotes. Control characters are \u00XX;
 * a byte that is not part of valid UTF-8 becomes \udcXX (XX: the byte), a lone surrogate
 * that no real text contains, so the original bytes can be recovered exactly (Python:
 * s.encode("utf-8", "surrogateescape")).
 */
void out_json_str(FILE *f, const char *s, size_t max);
/* The same for a buffer that may hold NUL bytes: exactly len bytes. */
void out_json_bytes(FILE *f, const char *s, size_t len);
/* The same into dst, which holds at least 6 * len + 2 bytes; returns the bytes written,
 * not terminated. */
size_t out_json_bytes_buf(char *dst, const char *s, size_t len);

/* n bytes as XML text or an attribute's value (pictures): as out_text_line (spaces stay;
 * control characters, backslashes and bytes that are not UTF-8 are \xNN), and & < > " '
 * as entities. */
void out_xml(FILE *f, const char *s, size_t n);

/* Trace-clock (CLOCK_MONOTONIC) nanoseconds as wall-clock "HH:MM:SS". */
void out_clock_init(void);
const char *out_wallclock(uint64_t mono_ns, char buf[16]);

/* v's digits (decimal, signed decimal, lower-case hex) written backwards from end, which
 * has room for 24 bytes before it; returns where they start. Not terminated. printf's cost
 * on a flood's every number. */
char *out_udec(char *end, unsigned long long v);
char *out_dec(char *end, long long v);
char *out_hex(char *end, unsigned long long v);
/* Nanoseconds as seconds with six decimals, exactly as printf("%.6f", ns / 1e9). */
void out_seconds(FILE *f, uint64_t ns);
/* The same into dst (48 bytes), not terminated; its length. */
size_t out_seconds_buf(char *dst, uint64_t ns);

/* Tables printed one after another (intervals): an empty line between two, none before the
 * first (| head -1 shows a table's first line). */
void out_table_gap(FILE *f);
/* A summary (an interval's, or the end's) with nothing in it: one line saying so under its
 * header, "(no I/O)", where a bare header would leave the reader to wonder whether anything
 * was traced. Text only: in JSON an empty interval is its counts of 0, or no object. */
void out_none(FILE *f, const char *what);

/* The name of a kernel error code returned by a call or a function (-ret): "EIO", the
 * kernel's own restart codes a signal leaves ("ERESTARTSYS": the process then sees EINTR, or
 * the call is made again), else "E<n>"; in buf. */
const char *out_errname(long long code, char buf[32]);

#endif
