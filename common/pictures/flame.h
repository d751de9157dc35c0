/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * flame: a flame graph of folded stacks ("comm;root;...;leaf COUNT", the lines --folded
 * prints) as one interactive SVG: a frame per function on a path, as wide as the samples
 * through it, its callers below it (above it in icicle mode). Frames named "..._[k]" are
 * kernel frames: shown without the suffix, in their own colours. The page's own script
 * zooms into a frame on click and searches frame names by a regular expression (the Search
 * button, or ?s=REGEX in the address), with nothing fetched from a network; each frame says
 * its name, samples and share on mouse-over.
 */
#ifndef FTT_FLAME_H
#define FTT_FLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct flame;

enum flame_colors { FLAME_SPLIT, FLAME_HOT };

struct flame_opts {
	const char *title;	  /* NULL: "Flame graph" ("Differential flame graph") */
	enum flame_colors colors; /* split: kernel frames blue, user frames warm; hot: all warm */
	bool icicle;		  /* the root at the top, callees below */
	double width;		  /* pixels; 0: 1200 */
	/*
	 * A differential graph: the widths are this graph's (AFTER), each frame coloured by
	 * the change of its own (self) samples from before's frame on the same path, red for
	 * more, blue for fewer, the deeper the larger the relative change; colors is then
	 * unused. Frames only in before are not drawn: their samples are said in the
	 * subtitle. NULL: an ordinary graph.
	 */
	const struct flame *before;
	bool unscaled; /* with before: its counts as they are, not scaled to this total */
};

/* A new graph, with nothing added. Returns it, or NULL when out of memory; flame_free frees
 * it. */
struct flame *flame_new(void);

/* What became of a line. */
enum flame_line {
	FLAME_OOM = -1,	      /* out of memory: part of the line counted, draw nothing */
	FLAME_TAKEN = 0,      /* counted (a count of 0 adds nothing) */
	FLAME_BLANK,	      /* empty or white space only: nothing to count */
	FLAME_NO_COUNT,	      /* no white space and count at its end: left out */
	FLAME_COUNT_TOO_LARGE /* the count, or the total with it, past a long double */
};

/*
 * Add one folded line to f: line, n bytes, its newline optional, read as flamegraph.pl reads
 * it: the count is what follows the last white space (space, tab, \v, \f, \r, and as Perl's
 * \s on UTF-8 text U+00A0 and the other Unicode spaces), digits with an optional fraction
 * ("12", "1.5", "3."); the stack is what precedes that white space, its frames split on ';'
 * (empty frames are frames, trailing ones are dropped, as Perl's split drops them; no frame
 * at all is a sample of the root alone). A stack that itself ends in white space and a count
 * is difffolded.pl's "stack before after": the stack before it, drawn with the second count.
 * Unlike flamegraph.pl, a \r before the newline is taken as part of it (a file written with
 * CRLF line ends), and a NUL byte is a byte of its frame. Any number of frames. Counts are
 * added in a long double: every integer up to 2^64 exactly, fractions to 64 bits. Returns
 * what became of the line (enum flame_line).
 */
enum flame_line flame_add_line(struct flame *f, const char *line, size_t n);
/* Returns the samples added to f: the sum of the counts taken. */
long double flame_total(const struct flame *f);
/* A count n as the picture shows it: an integer up to 2^64 exactly, else 18 significant
 * digits ("1.5", "3.68934881474191032e+19"); in buf. Returns buf (the caller's). */
const char *flame_count_text(long double n, char buf[48]);
/*
 * The colour of a frame whose self samples went from b to a (b already scaled):
 * r = (a - b) / max(a, b), from -1 (all gone) to 1 (all new); with v = 230 - 160|r|, r > 0
 * rgb(255, v, v), r < 0 rgb(v, v, 255), r = 0 (or both 0, or the larger not finite)
 * rgb(230,230,230); in buf. Returns buf (the caller's).
 */
const char *flame_diff_colour(long double b, long double a, char buf[48]);
/* Write the SVG of f, drawn as o says, to out. Returns 0; -1 (nothing written) when nothing
 * was added, when o->before has no samples, or out of memory. A write error is left to out's
 * error flag (ferror). */
int flame_svg(struct flame *f, const struct flame_opts *o, FILE *out);
/* Free f and its frames (NULL: nothing). */
void flame_free(struct flame *f);

#endif
