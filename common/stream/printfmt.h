/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * printfmt: an event's print format rendered without libtraceevent's general printer, for
 * the formats made only of fields, casts of fields and strings with plain conversions (every
 * syscall's, most sched and task events'). Per event, libtraceevent's printer walks the
 * argument tree, compares type names and goes through vsnprintf for each argument: about
 * 40 % of a text line's cost, where a flood of sys_enter_read comes at a few hundred ns an
 * event. A plan is compiled once per event and accepted only when it renders, byte for
 * byte, what libtraceevent renders on probe records of edge values (printfmt_compile):
 * anything it does not model is left to libtraceevent.
 */
#ifndef FTT_PRINTFMT_H
#define FTT_PRINTFMT_H

#include <stddef.h>

struct tep_handle;
struct tep_event;
struct tep_record;
struct printfmt;

/* The plan of ev's print format, tried against tep's printer on probe records. Returns the
 * plan (it keeps nothing of ev), or NULL when libtraceevent must print it (or out of memory).
 * The caller frees it with printfmt_free(). */
struct printfmt *printfmt_compile(struct tep_handle *tep, struct tep_event *ev);
/*
 * The text of rec's event by plan p (what tep_print_event renders as TEP_PRINT_INFO),
 * escaped as out_text_line escapes it, into buf, not terminated. The record must hold every
 * field of its format (evprint's fits()). Returns its length, or -1 when it does not fit in
 * size (or a string of the record lies outside it).
 */
int printfmt_render(const struct printfmt *p, const struct tep_record *rec, char *buf, size_t size);
/* Free plan p (NULL: nothing). */
void printfmt_free(struct printfmt *p);

#endif
