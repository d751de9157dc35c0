// SPDX-License-Identifier: GPL-2.0-only
#include "base/ladder.h"

#include <stdio.h>

int ladder_climb(const ladder_rung_fn *rungs, const char *const *names, int n, int *via, void *ctx,
		 const char *tool)
{
	const char *why = "";
	int ret = -1;
	if (*via >= 0 && *via < n) {
		if ((ret = rungs[*via](ctx, &why)) == -1)
			fprintf(stderr, "%s: --via %s: %s\n", tool, names[*via], why);
		return ret;
	}
	for (*via = 0; *via < n; (*via)++)
		if ((ret = rungs[*via](ctx, &why)) != -1)
			return ret;
	return -1;
}
