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
 * (declaration with a name, offset, size: numbers the kernel could write), a print fmt line
 * that ends, naming only fields the event has? 0, or -1 with the reason in why.
 */
int format_sound(const char *fmt, size_t len, char *why, size_t whylen);

/* A format file's text, read for parsing (text is malloc'd; format_parse_many frees it). */
struct format_text {
	const char *sys, *name;
	char *text;
	size_t len;
};

/* Parse f[0..n) into tep in a child first (one child serves a run's trials until it dies or
 * format_trial_end); 0 when it lived, -1 with the reason (the signal it died of) in why. A
 * failed fork is no verdict: 0. */
int format_trial(struct tep_handle *tep, const struct format_text *f, size_t n, char *why,
		 size_t whylen);
/* Let the child that serves the trials go (reaped): a later trial makes another. */
void format_trial_end(void);

/*
 * Parse the sound ones of n formats into tep, all tried in one batch first (a trial costs
 * more than parsing a format: tpoint 'syscalls:*' has ~700); when that child dies (or outlives
 * its alarm), in halves, until the bad ones are alone and left out. The last refused one is named in refused and
 * why in refused_why (FORMAT_REFUSED_LEN each). The texts are freed.
 */
void format_parse_many(struct tep_handle *tep, struct format_text *f, size_t n, char *refused,
		       char *refused_why);

/* One format parsed into tep when sound and the trial survives: -1 with the reason in why
 * when refused; else tep_parse_event's verdict: 0, or 1 when it failed (an event it could not
 * parse wholly may still be added, its print fmt unused). */
int format_parse(struct tep_handle *tep, const char *fmt, size_t len, const char *sys, char *why,
		 size_t whylen);

#endif
