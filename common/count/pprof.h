/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pprof: stacks written as pprof's profile.proto (github.com/google/pprof, proto/profile.proto),
 * gzip'd, for `go tool pprof` and the tools that read it. Our own small protobuf encoder
 * (varints and length-delimited fields: all the format needs). Stacks come as folded lines
 * ("comm;root;...;leaf COUNT", folded.h), so the profile has the same frames and totals as
 * the folded output: one function and one location per frame name (kernel frames keep their
 * _[k]), the task's name as the root frame, two values per sample: the samples and the CPU
 * time they stand for (samples x period); or, for off-CPU time (pprof_time_values), one: the
 * nanoseconds of the line.
 */
#ifndef FTT_PPROF_H
#define FTT_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pprof;

struct pprof *pprof_new(void);
/* One folded line (without its newline): its frames, root first, and its count. -1 when it
 * is not one, or out of memory. */
int pprof_add_folded(struct pprof *p, const char *line, size_t len);
/* Each folded line of text (size bytes, each line ending in '\n'); -1 at the first that is
 * not one, or out of memory. */
int pprof_add_folded_text(struct pprof *p, const char *text, size_t size);
/* The samples' one value is time, not samples: each folded count is nanoseconds of `type`
 * (a static string: "off_cpu"), the period type the same. Before pprof_encode. */
void pprof_time_values(struct pprof *p, const char *type);
/* The encoded profile (not compressed), in *out (malloc'd, *len bytes): period_ns the CPU
 * time of a sample, time_ns when it started (wall clock), duration_ns how long. 0 or -1. */
int pprof_encode(const struct pprof *p, uint64_t period_ns, uint64_t time_ns, uint64_t duration_ns,
		 unsigned char **out, size_t *len);
/* The same, gzip'd into path (written to path.tmp, mode 0644, then renamed over path): 0, or
 * -1 with errno (path.tmp removed). */
int pprof_write(const struct pprof *p, const char *path, uint64_t period_ns, uint64_t time_ns,
		uint64_t duration_ns);
void pprof_free(struct pprof *p);
/* Folded text (size bytes, "stack COUNT" lines) written as pprof_write writes: counts of
 * samples of period_ns (time_type NULL), or nanoseconds of time_type (pprof_time_values).
 * 0, or -1 with errno (EINVAL: a line is not a folded one; ENOMEM). */
int pprof_write_folded(const char *path, const char *text, size_t size, const char *time_type,
		       uint64_t period_ns, uint64_t time_ns, uint64_t duration_ns);
/* Can path be written (at start, before tracing: a folder, a name ending in '/', or a folder
 * that refuses the file is found then)? 0, or -1 with errno. Nothing is left behind. */
int pprof_check(const char *path);

#endif
