/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * row: a tool's line of output declared once. A table of columns (the header's name, the
 * JSON key, the text width, what the value is) gives the header, the text line and the JSON
 * object alike, so a column cannot be in one and missing from the other, and the keys are
 * spelled the same in every tool: "time" (wall clock) and "ts" (trace-clock seconds) first,
 * "comm", "pid", "tid", "ppid", "cpu", "lat_us"/"lat_ms", "bytes", "errno", ...
 *
 * A line is written column by column in the table's order:
 *	row_begin(&r, rec->ts); row_str(&r, comm, 16); row_int(&r, pid); ...; row_end(&r);
 * Text: columns separated by one space, padded to their width (negative: left-aligned),
 * strings escaped as one token (out_text), the last column may be free text. JSON: one
 * object per line, strings exact (out_json_str), numbers as numbers. `tool --json-keys` lists
 * the keys of every table a tool declares (struct tool .rows), which make check compares with
 * the man page's JSON section.
 */
#ifndef FTT_ROW_H
#define FTT_ROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/spec.h"

enum row_kind {
	ROW_INT,   /* signed, %lld */
	ROW_UINT,  /* unsigned, %llu */
	ROW_HEX,   /* unsigned as 0x...; a JSON string (JSON numbers lose bits past 2^53) */
	ROW_FLOAT, /* double with .prec decimals */
	ROW_STR,   /* bytes from the kernel or a user: one escaped token; a JSON string */
	ROW_TEXT,  /* free text to the end of the line (the last column): spaces stay */
	ROW_WORD,  /* a word of ours (a state, a type name): as it is, a JSON string */
	ROW_TIME,  /* trace-clock seconds (-t; always in JSON as "ts") */
	ROW_WALL,  /* wall-clock HH:MM:SS (-T; always in JSON as "time") */
	ROW_JSON,  /* a value the tool writes as JSON itself (a histogram's array): JSON only */
};

/* Column flags. */
#define ROW_OPTIONAL 1U /* in text only when row_show() turned it on (JSON: always) */
#define ROW_NOTEXT 2U	/* in JSON only */
#define ROW_NOJSON 4U	/* in text only */

struct row_col {
	const char *head; /* the header's name */
	const char *key;  /* the JSON key */
	int width;	  /* text width; negative: left-aligned */
	enum row_kind kind;
	int prec;	 /* ROW_FLOAT: decimals */
	unsigned flags;	 /* ROW_OPTIONAL, ROW_NOTEXT, ROW_NOJSON */
	const char *doc; /* what it is, for --json-keys and the man page */
};

/* The -t and -T columns every tool spells alike (the first two of a table). */
#define ROW_COL_TS                                                                      \
	SPEC(.head = "TIME(s)", .key = "ts", .width = -14, .kind = ROW_TIME, .prec = 6, \
	     .flags = ROW_OPTIONAL, .doc = "trace-clock seconds (-t)")
#define ROW_COL_WALL                                                                              \
	SPEC(.head = "TIME", .key = "time", .width = -8, .kind = ROW_WALL, .flags = ROW_OPTIONAL, \
	     .doc = "wall-clock HH:MM:SS (-T)")

/* The wall-clock time of a table or histogram a tool prints every interval: in text a line
 * above it (the tool's), in JSON in each of its objects, given with row_word(). */
#define ROW_COL_WHEN                                               \
	SPEC(.key = "time", .kind = ROW_WORD, .flags = ROW_NOTEXT, \
	     .doc = "wall-clock time of the table, HH:MM:SS")

#define ROW_MAX_COLS 32

struct row_table {
	const char *name; /* what its lines are ("each open"): for --json-keys */
	const struct row_col *cols;
	int ncols;
};
#define ROW_TABLE(title, list) \
	SPEC(.name = title, .cols = list, .ncols = (int)(sizeof(list) / sizeof(*(list))))

struct row {
	const struct row_table *table;
	FILE *f;
	bool json;
	uint32_t shown; /* ROW_OPTIONAL columns turned on, by index */
	int at;		/* the next column */
	bool any;	/* a column written on this line */
};

/* Set up r to write the lines of the table t on f (stdout): JSON when json, else text; ts
 * (-t) and wall (-T) turn on the ROW_TIME and ROW_WALL columns. */
void row_init(struct row *r, const struct row_table *t, FILE *f, bool json, bool ts, bool wall);
/* Turn an optional column of r on or off (on) for text, by its JSON key; a key that is not
 * the table's changes nothing. */
void row_show(struct row *r, const char *key, bool on);
/* The header line of r (text only; nothing in JSON). */
void row_header(struct row *r);

/* A line of r: begin with the event's trace-clock time ts_ns (for ROW_TIME and ROW_WALL
 * columns, which are written by row_begin when they lead the table; ROW_WALL as
 * out_wallclock says it), then one call per column, then end. A call past the table's last
 * column writes nothing (a tool's bug). */
void row_begin(struct row *r, uint64_t ts_ns);
/* The next column of r: a signed v. */
void row_int(struct row *r, long long v);
/* The next column of r: an unsigned v. */
void row_uint(struct row *r, unsigned long long v);
/* The next column of r: v as 0x... (in JSON a string). */
void row_hex(struct row *r, unsigned long long v);
/* The next column of r: v with the column's prec decimals. */
void row_float(struct row *r, double v);
/* The next column of r: s, at most max bytes, NUL-terminated or not (NULL: empty). */
void row_str(struct row *r, const char *s, size_t max);
/* The next column of r: exactly len bytes of s (may hold NULs). */
void row_bytes(struct row *r, const char *s, size_t len);
/* The next column of r: w, a word of ours, as it is in text, a JSON string in JSON. */
void row_word(struct row *r, const char *w);
/* A ROW_JSON column of r: the stream to write its value to, as one JSON value
 * (hist_log2_json); NULL in text, where the column has nothing to show. Returns f of row_init
 * (the caller's, left open), or NULL. */
FILE *row_json(struct row *r);
/* A ROW_TEXT column of r the tool writes itself in text (a line of its own making): the
 * stream to write it to; NULL in JSON, where the column has nothing to show, or when the
 * column is not shown. Returns f of row_init (the caller's, left open), or NULL. */
FILE *row_text(struct row *r);
/* No value for the next column of r on this line: "-" in text, null in JSON. */
void row_none(struct row *r);
/* The end of r's line: row_end_open, then row_close. */
void row_end(struct row *r);
/* row_end in two steps, for a line followed by what the tool writes itself (its stacks):
 * row_end_open writes the columns of r not written yet as row_none does, then ends the text
 * line, or leaves the JSON object open for more members (each written with its leading
 * comma). */
void row_end_open(struct row *r);
/* The second step: closes r's JSON object, after the --tag members (row_tags), and its line;
 * nothing in text. */
void row_close(struct row *r);

/* The keys of the table t on f as `--json-keys` prints them: "KEY<TAB>what it is", one per
 * line (columns in text only, or without a key, left out). */
void row_keys(FILE *f, const struct row_table *t);

/*
 * --tag host,kernel: members added at the end of every JSON object (row_close, and
 * evprint's objects made in one buffer), so that the lines of many hosts merged into one
 * stream say where each came from: "host" (uname's nodename) and "kernel" (its release),
 * JSON-escaped. list: names separated by commas. row_tags holds the members as text
 * (",\"host\":\"web1\""), "" without. Returns 0, or -1 with the reason in why (len bytes) for a
 * name that is none of them, no name at all, uname failing or no memory.
 */
int row_tag(const char *list, char *why, size_t len);
extern char row_tags[];
extern size_t row_tags_len;
/* Their keys and what they are on f, for --json-keys (each tool's page lists them). */
void row_tag_keys(FILE *f);

#endif
