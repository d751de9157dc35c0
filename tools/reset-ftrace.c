// SPDX-License-Identifier: GPL-2.0-only
/*
 * reset-ftrace: ftrace back at rest. First what killed runs of these tools left (the sweep
 * every tool does when it starts: a killed owner's top-level settings written back, its hist
 * triggers, instances, synthetic events and probes removed; only names of exactly the tools'
 * own form whose run is gone), then the top level as perf-tools' reset-ftrace resets it
 * (reset.h), refusing while someone uses it. One line per thing changed; -n only says.
 */
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include <tracefs.h>

#include "base/opt.h"
#include "base/out.h"
#include "kernel/reset.h"
#include "kernel/sweep.h"

#define TOOL "reset-ftrace"

static struct env {
	const char *output; /* -o */
	bool force, dry, quiet;
	bool leftovers; /* --leftovers: not the top level */
} env;

enum { OPT_LEFTOVERS = OPT_LONG + 1 };

static const struct opt_spec options[] = {
	{'f', NULL, NULL,
	 "reset the top level also while perf-tools' lock file exists (it\nis removed) or a "
	 "process reads the top level's buffers",
	 0},
	{'n', NULL, NULL, "say what would be done, change nothing", 0},
	{'q', NULL, NULL, "say nothing (errors still on stderr)", 0},
	{OPT_LEFTOVERS, "leftovers", NULL,
	 "only what killed runs of these tools left; the top level\nis not touched", 0},
	OUT_OPT_OUTPUT(0),
	{0, NULL, NULL, NULL, 0},
};

static const char *const examples[] = {
	"reset-ftrace -n          # what would be reset",
	"reset-ftrace             # reset, one line per change",
	"reset-ftrace --leftovers # only what killed runs of these tools left",
	"reset-ftrace -f          # also while perf-tools' lock file exists",
	NULL,
};

static void option(const struct opt_spec *o, const char *arg, void *ctx)
{
	switch (o->key) {
	case 'o': env.output = arg; break;
	case 'f': env.force = true; break;
	case 'n': env.dry = true; break;
	case 'q': env.quiet = true; break;
	case OPT_LEFTOVERS: env.leftovers = true; break;
	}
}

int main(int argc, char **argv)
{
	static const struct opt_usage usage = {
		.tool = TOOL,
		.opts = options,
		.examples = examples,
	};
	opt_init(argv[0]);
	int first = opt_parse(argc, argv, &usage, option, NULL);
	if (first < argc)
		opt_fail("unexpected argument: '%s' (see -h)", argv[first]);
	if (env.leftovers && env.force)
		opt_fail("-f is for the top level: not with --leftovers");
	out_check_stdio(TOOL);
	if (env.output && out_to_file(env.output, TOOL))
		return 2;
	if (!tracefs_tracing_dir()) {
		fprintf(stderr, TOOL ": no tracefs (CONFIG_TRACING), or it cannot be mounted%s\n",
			geteuid() ? " (not root)" : "");
		return 1;
	}
	FILE *out = env.quiet ? NULL : stdout;
	/* What killed runs left first: a killed owner's top-level settings are written back
	 * before the top level is judged. */
	struct sweep_how how = {.out = stdout, .quiet = env.quiet, .dry = env.dry, .left = true};
	int swept = sweep_with(TOOL, &how);
	if (!swept && out)
		fprintf(out, "nothing left by killed runs of ftrace-tools\n");
	int ret = 0;
	if (!env.leftovers) {
		struct reset_opts o = {TOOL, out, env.dry, env.force};
		ret = reset_toplevel(&o) ? 1 : 0;
	}
	if (out_close() < 0)
		ret = 1;
	return ret;
}
