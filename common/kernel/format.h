/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * format: event format files checked before libtraceevent parses them. The kernel writes
 * whole files; a broken tracefs or a cut read may not, and libtraceevent 1.7.1's parser
 * dereferences NULL on a field line cut short or mangled, and on some print fmt arguments
 * that are not C. So a format is first checked here (format_sound), then parsed, and a
 * zeroed record of it printed, in a child (format_trial): only what survives both is parsed
 * in the tool.
 */
#ifndef FTT_FORMAT_H
#define FTT_FORMAT_H

#include <stddef.h>

struct tep_handle;

/* The last refused format and why, in buffers of this size (session.h). */
#define FORMAT_REFUSED_LEN 128

/*
 * Is fmt (len bytes, a tracefs format file) whole: a name, an ID, field lines each complete
 * (declaration with a name, offset, size: numbers the kernel could write; 128 at most), a print
 * fmt line that ends, naming only fields the event has, and no NUL byte? Returns 0, or -1 with
 * the reason in why (whylen bytes).
 */
int format_sound(const char *fmt, size_t len, char *why, size_t whylen);

/* A format file's text, read for parsing (text is malloc'd; format_parse_many frees it). */
struct format_text {
	const char *sys, *name;
	char *text;
	size_t len;
};

/* Parse f[0..n) in a child first, as into tep (a handle of its own, of tep's long size; tep is
 * not changed), and print a zeroed record of each (one child serves a run's trials until it
 * dies or format_trial_end; one that went without a verdict is made again once). Returns 0
 * when it lived, or -1 with the reason (the signal it died of, or its exit status) in why,
 * whylen bytes. A failed fork is no verdict: 0. */
int format_trial(struct tep_handle *tep, const struct format_text *f, size_t n, char *why,
		 size_t whylen);
/* Let the child that serves the trials go (killed, reaped; only by the process that made it): a
 * later trial makes another. */
void format_trial_end(void);

/*
 * Parse the sound ones of the n formats of f into tep, all tried in one batch first (a trial
 * costs more than parsing a format: tpoint 'syscalls:*' has ~700); when that child dies (or
 * outlives its alarm), in halves, until the bad ones are alone and left out. The last refused
 * one is named in refused and why in refused_why (FORMAT_REFUSED_LEN each; left as they were
 * when none is). A parse that fails is not said. The texts are freed (free()), and f's entries
 * are moved (the sound ones first): f is not to be read after.
 */
void format_parse_many(struct tep_handle *tep, struct format_text *f, size_t n, char *refused,
		       char *refused_why);

/* One format, fmt (len bytes, of system sys), parsed into tep when sound and the trial
 * survives; fmt stays the caller's. Returns -1 with the reason in why (whylen bytes) when
 * refused; else tep_parse_event's verdict: 0, or 1 when it failed (an event it could not parse
 * wholly may still be added, its print fmt unused). */
int format_parse(struct tep_handle *tep, const char *fmt, size_t len, const char *sys, char *why,
		 size_t whylen);

#endif
