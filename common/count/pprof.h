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

/* An empty profile. Returns it, or NULL when out of memory; the caller frees it with
 * pprof_free(). */
struct pprof *pprof_new(void);
/* Adds to p one folded line of len bytes (without its newline): its frames, root first, and
 * its count. Returns 0, or -1 when it is not one (no count after its last space), or out of
 * memory (no sample added). */
int pprof_add_folded(struct pprof *p, const char *line, size_t len);
/* Adds to p each folded line of text (size bytes, each line ending in '\n'). Returns 0, or
 * -1 at the first that is not one (a last line without '\n' included), or out of memory;
 * the lines before it stay added. */
int pprof_add_folded_text(struct pprof *p, const char *text, size_t size);
/* Makes the one value of p's samples time, not samples: each folded count is nanoseconds of
 * `type` (a static string: "off_cpu"; kept, not copied), the period type the same. Before
 * pprof_encode. */
void pprof_time_values(struct pprof *p, const char *type);
/* Encodes p (not compressed) into *out (malloc'd, *len bytes; the caller frees it with
 * free()): period_ns the CPU time of a sample, time_ns when it started (wall clock),
 * duration_ns how long. p, though const, gets the value names added to its strings. Returns
 * 0, or -1 when out of memory (*out and *len untouched). */
int pprof_encode(const struct pprof *p, uint64_t period_ns, uint64_t time_ns, uint64_t duration_ns,
		 unsigned char **out, size_t *len);
/* The same, p gzip'd into path (written to path.tmp made anew, a file there removed first,
 * mode 0644, then renamed over path), with period_ns, time_ns and duration_ns as above.
 * Returns 0, or -1 with errno (ENOMEM, also when zlib cannot take the file; ENAMETOOLONG;
 * EIO: the write failed; open's or rename's) and path.tmp removed. */
int pprof_write(const struct pprof *p, const char *path, uint64_t period_ns, uint64_t time_ns,
		uint64_t duration_ns);
/* Frees p and all it holds (p NULL: nothing). */
void pprof_free(struct pprof *p);
/* Folded text (size bytes, "stack COUNT" lines) written into path as pprof_write writes:
 * counts of samples of period_ns (time_type NULL), or nanoseconds of time_type
 * (pprof_time_values); time_ns and duration_ns as above. Returns 0, or -1 with errno
 * (EINVAL: a line is not a folded one; ENOMEM; pprof_write's). */
int pprof_write_folded(const char *path, const char *text, size_t size, const char *time_type,
		       uint64_t period_ns, uint64_t time_ns, uint64_t duration_ns);
/* Whether path can be written (at start, before tracing: a folder, a name ending in '/', or a
 * folder that refuses the file is found then): path.tmp is made and removed (one there, a
 * killed run's, removed first). Returns 0, or -1 with errno (EINVAL: not a file name; EISDIR;
 * EEXIST: something was put at path.tmp meanwhile; open's). Nothing is left behind. */
int pprof_check(const char *path);

#endif
