/*
 * uprobe: trace a user-space function's entry or return, with arguments. The symbol is
 * resolved to a file offset by reading the ELF file (PIE, libraries, versioned symbols).
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"
#include "probe.h"
#include "tracer.h"
#include "usym.h"

static struct env {
	struct tracer_opts t;
	bool force;         /* -F */
	const char *list;   /* -l TARGET */
	const char *def;    /* 'p:[alias ]TARGET:SYMBOL[+off] [args]' */
	const char *filter; /* ftrace filter */
} env;

static void usage(FILE *f)
{
	fprintf(f, "USAGE: uprobe [-chFHjsTvV] [-d SECS] [-k KEY[,KEY...]] [--hist FIELD]\n"
		   "              [-L TID] [-n NAME] [-p PID]\n"
		   "              {-l TARGET | 'p:[alias ]TARGET:SYMBOL[+off] [args]' | 'r:...' [filter]}\n"
		   "   -F          probe SYMBOL even when it is not a function\n"
		   "   -l TARGET   list the function symbols of TARGET\n"
		   "%s"
		   "  TARGET: a path, a program in PATH, or a library (libc, libssl).\n"
		   "  args: fetch arguments as in uprobe_events: %%di, +0(%%si):string, $retval ...\n"
		   "  eg,\n"
		   "       uprobe 'p:bash:readline'                      # bash's readline() calls\n"
		   "       uprobe 'r:bash:readline +0($retval):string'   # the lines it returns\n"
		   "       uprobe 'p:libc:open file=+0(%%di):string'      # open() with its path\n"
		   "       uprobe -p 1234 'p:libc:malloc size=%%di:u64'   # malloc sizes of PID 1234\n"
		   "       uprobe 'r:libc:malloc ret=$retval:x64' 'ret == 0'  # failed mallocs\n"
		   "       uprobe -l libc | grep ^str                    # list symbols\n",
		tracer_usage);
}

static void parse_args(int argc, char **argv)
{
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+Fl:" TRACER_OPTSTRING "hV", tracer_longopts, NULL)) != -1) {
		if (c == 'F')
			env.force = true;
		else if (c == 'l')
			env.list = optarg;
		else if (!tracer_parse_opt(&env.t, c, optarg))
			opt_common(c, argv, usage);
	}
	if (!env.list) {
		if (optind == argc)
			opt_fail("no probe given: 'p:TARGET:SYMBOL' (see -h)");
		env.def = argv[optind++];
		if (optind < argc)
			env.filter = argv[optind++];
	}
	if (optind < argc)
		opt_fail("unexpected argument: '%s' (see -h)", argv[optind]);
	tracer_check_opts(&env.t);
}

int main(int argc, char **argv)
{
	opt_init(argv[0]);
	parse_args(argc, argv);
	char path[PATH_MAX], why[600];
	if (env.list) {
		if (usym_target(env.list, path, sizeof(path)))
			opt_fail("target not found: '%s' (a path, a program in PATH, or a library)",
				 env.list);
		int n = usym_list(path, stdout);
		if (n < 0)
			opt_fail("not an ELF file: '%s'", path);
		return 0;
	}
	struct probe_def pd;
	if (probe_parse(env.def, &pd, why, sizeof(why)))
		opt_fail("invalid probe '%s': %s", env.def, why);
	/* TARGET:SYMBOL: the last ':' separates them (paths have no ':' in practice). */
	char *colon = strrchr(pd.target, ':');
	if (!colon || colon == pd.target || !colon[1])
		opt_fail("invalid probe '%s': TARGET:SYMBOL expected, e.g. p:bash:readline", env.def);
	*colon = 0;
	const char *symbol = colon + 1;
	if (usym_target(pd.target, path, sizeof(path)))
		opt_fail("target not found: '%s' (a path, a program in PATH, or a library)",
			 pd.target);
	unsigned long long off;
	if (usym_offset(path, symbol, env.force, &off, why, sizeof(why)))
		opt_fail("%s", why);
	char target[PATH_MAX + 32];
	snprintf(target, sizeof(target), "%s:0x%llx", path, off);
	/* The default alias and the banner name the symbol, not the file. */
	memmove(pd.target, symbol, strlen(symbol) + 1);
	return tracer_probe(opt_tool, PROBE_UPROBE, &pd, target, env.filter, &env.t);
}
