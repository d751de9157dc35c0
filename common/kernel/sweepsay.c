// SPDX-License-Identifier: GPL-2.0-only
#include "kernel/sweepsay.h"

#include <stdarg.h>

const struct sweep_how sweep_default = {.prefix = true};

void sweep_say(const struct sweep_how *how, const char *tool, const char *fmt, ...)
{
	if (!how)
		how = &sweep_default;
	FILE *f = how->out ? how->out : stderr;
	if (how->quiet)
		return;
	if (how->prefix)
		fprintf(f, "%s: ", tool);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	putc('\n', f);
}
