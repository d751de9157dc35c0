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
	const char *title;	  /* NULL: "Flame graph" */
	enum flame_colors colors; /* split: kernel frames blue, user frames warm; hot: all warm */
	bool icicle;		  /* the root at the top, callees below */
	double width;		  /* pixels; 0: 1200 */
};

struct flame *flame_new(void);
#define FLAME_MAX_DEPTH 4096 /* frames of a stack (perf keeps 127, the kernel 128) */

/*
 * One folded line (n bytes, its newline optional): frames split on ';', the count after the
 * last space. 0, 1 for a line that is not folded (no count, an empty frame, more than
 * FLAME_MAX_DEPTH frames, a count that would overflow the total: left out), -1 when out of
 * memory.
 */
int flame_add_line(struct flame *f, const char *line, size_t n);
/* Samples added. */
uint64_t flame_total(const struct flame *f);
/* Write the SVG; -1 when nothing was added. */
int flame_svg(struct flame *f, const struct flame_opts *o, FILE *out);
void flame_free(struct flame *f);

#endif
