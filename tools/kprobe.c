/*
 * kprobe: trace a kernel function's entry or return, with arguments, perf-tools' kprobe in C.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

#include "opt.h"
#include "probe.h"
#include "tracer.h"

static struct env {
	struct tracer_opts t;
	bool force;         /* -F */
	const char *def;    /* 'p:[alias] FUNC[+off] [args]' */
	const char *filter; /* ftrace filter */
} env;

static void usage(FILE *f)
{
	fprintf(f, "USAGE: kprobe [-chFHjsTvV] [-d SECS] [-k KEY[,KEY...]] [--hist FIELD]\n"
		   "              [-L TID] [-n NAME] [-p PID]\n"
		   "              'p:[alias] FUNC[+off] [args]' | 'r:[alias] FUNC [args]' [filter]\n"
		   "   -F          skip the check that FUNC can be traced\n"
		   "%s"
		   "  args: fetch arguments as in kprobe_events: %%di, $arg1, +0($arg2):string,\n"
		   "        $retval, with types :u32 :s64 :string :ustring ...\n"
		   "  eg,\n"
		   "       kprobe p:do_sys_openat2                     # trace opens\n"
		   "       kprobe 'p:do_sys_openat2 file=+0($arg2):ustring'   # with the path\n"
		   "       kprobe 'r:do_sys_openat2 ret=$retval:s32' 'ret < 0'   # failed opens\n"
		   "       kprobe -s p:tcp_retransmit_skb              # with kernel stacks\n"
		   "       kprobe -c p:vfs_read                        # count per second\n"
		   "       kprobe -v p:do_sys_openat2                  # show the event format\n",
		tracer_usage);
}

static void parse_args(int argc, char **argv)
{
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+F" TRACER_OPTSTRING "hV", tracer_longopts, NULL)) != -1) {
		if (c == 'F')
			env.force = true;
		else if (!tracer_parse_opt(&env.t, c, optarg))
			opt_common(c, argv, usage);
	}
	if (optind == argc)
		opt_fail("no probe given: 'p:FUNC' (see -h)");
	env.def = argv[optind++];
	if (optind < argc)
		env.filter = argv[optind++];
	if (optind < argc)
		opt_fail("unexpected argument: '%s' (see -h)", argv[optind]);
	tracer_check_opts(&env.t);
}

/* FUNC must be in available_filter_functions, when the kernel lets us read it. */
static bool traceable(const char *func)
{
	char *path = tracefs_get_tracing_file("available_filter_functions");
	FILE *f = path ? fopen(path, "r") : NULL;
	tracefs_put_tracing_file(path);
	if (!f)
		return true; /* cannot tell: let the kernel decide */
	char line[512], name[256];
	size_t len = strcspn(func, "+");
	bool found = false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%255s", name) == 1 && strlen(name) == len &&
			!strncmp(name, func, len);
	fclose(f);
	return found;
}

int main(int argc, char **argv)
{
	opt_init(argv[0]);
	parse_args(argc, argv);
	char why[300];
	struct probe_def pd;
	if (probe_parse(env.def, &pd, why, sizeof(why)))
		opt_fail("invalid probe '%s': %s", env.def, why);
	if (strpbrk(pd.target, "/:"))
		opt_fail("invalid probe '%s': '%s' is not a kernel function (for user space: uprobe)",
			 env.def, pd.target);
	if (!env.force && tracefs_tracing_dir() &&
	    tracefs_file_exists(NULL, "kprobe_events") && !traceable(pd.target))
		opt_fail("%.*s cannot be traced: not in available_filter_functions (-F to try anyway)",
			 (int)strcspn(pd.target, "+"), pd.target);
	return tracer_probe(opt_tool, PROBE_KPROBE, &pd, pd.target, env.filter, &env.t);
}
