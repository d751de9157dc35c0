/*
 * tpoint: trace tracepoints, one line per event (or counts with -c). Wildcards in the system
 * or event name enable several; -l lists them.
 */
#include <dirent.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <event-parse.h>
#include <tracefs.h>

#include "opt.h"
#include "session.h"
#include "tracer.h"

static struct env {
	struct tracer_opts t;
	bool list;          /* -l */
	const char *spec;   /* SYSTEM:EVENT, globs allowed */
	const char *filter; /* ftrace filter */
} env;

static void usage(FILE *f)
{
	fprintf(f, "USAGE: tpoint [-chHjsTvV] [-d SECS] [-k KEY[,KEY...]] [--hist FIELD]\n"
		   "              [-L TID] [-n NAME] [-p PID] SYSTEM:EVENT [filter]\n"
		   "       tpoint -l [PATTERN]\n"
		   "   -l          list tracepoints (matching PATTERN, a glob on SYSTEM:EVENT)\n"
		   "%s"
		   "  eg,\n"
		   "       tpoint -l 'block:*'                       # list block tracepoints\n"
		   "       tpoint block:block_rq_issue               # trace block I/O issue\n"
		   "       tpoint -j 'block:block_rq_*'              # several, as JSON\n"
		   "       tpoint syscalls:sys_enter_openat 'flags & 64'   # with a filter (O_CREAT)\n"
		   "       tpoint -p 181 -d 5 'syscalls:sys_enter_read'    # one process, 5 s\n"
		   "       tpoint -c 'sched:sched_switch'            # count per second\n"
		   "       tpoint -k comm,pid syscalls:sys_enter_read      # reads by process\n"
		   "       tpoint --hist count syscalls:sys_enter_read     # read sizes, log2\n"
		   "       tpoint -v sched:sched_wakeup              # show the format\n",
		tracer_usage);
}

static void parse_args(int argc, char **argv)
{
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+l" TRACER_OPTSTRING "hV", tracer_longopts, NULL)) != -1) {
		if (c == 'l')
			env.list = true;
		else if (!tracer_parse_opt(&env.t, c, optarg))
			opt_common(c, argv, usage);
	}
	if (env.list) {
		if (optind < argc)
			env.spec = argv[optind++];
	} else {
		if (optind == argc)
			opt_fail("no tracepoint given: SYSTEM:EVENT (see -h)");
		env.spec = argv[optind++];
		if (!strchr(env.spec, ':'))
			opt_fail("invalid tracepoint: '%s' (SYSTEM:EVENT, e.g. block:block_rq_issue)",
				 env.spec);
		if (optind < argc)
			env.filter = argv[optind++];
	}
	if (optind < argc)
		opt_fail("unexpected argument: '%s' (see -h)", argv[optind]);
	tracer_check_opts(&env.t);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Subdirectories of events/ (or of events/SYS) matching glob, sorted; a name without glob
 * characters is looked up directly. Listing is slow on eventfs (6.x): only when needed. */
static char **list_dirs(const char *sys, const char *glob, int *n)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/events%s%s", tracefs_tracing_dir(), sys ? "/" : "",
		 sys ? sys : "");
	char **names = NULL;
	*n = 0;
	if (!strpbrk(glob, "*?[")) {
		struct stat st;
		size_t len = strlen(path);
		snprintf(path + len, sizeof(path) - len, "/%s", glob);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode) && (names = malloc(sizeof(*names))))
			names[(*n)++] = strdup(glob);
		return names;
	}
	DIR *d = opendir(path);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN) ||
		    fnmatch(glob, de->d_name, 0))
			continue;
		char **more = realloc(names, (*n + 1) * sizeof(*names));
		if (!more)
			break;
		names = more;
		names[(*n)++] = strdup(de->d_name);
	}
	if (d)
		closedir(d);
	qsort(names, *n, sizeof(*names), cmp_str);
	return names;
}

static void free_list(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Every SYSTEM:EVENT of this kernel that matches the glob spec; calls fn for each. */
static int each_match(const char *spec, void (*fn)(const char *sys, const char *ev, void *),
		      void *ctx)
{
	char *colon = strchr(spec, ':');
	char sys_glob[256], ev_glob[256];
	snprintf(sys_glob, sizeof(sys_glob), "%.*s", colon ? (int)(colon - spec) : (int)strlen(spec),
		 spec);
	snprintf(ev_glob, sizeof(ev_glob), "%s", colon ? colon + 1 : "*");
	int n = 0, nsys, nev;
	char **systems = list_dirs(NULL, sys_glob, &nsys);
	for (int i = 0; i < nsys; i++) {
		char **events = list_dirs(systems[i], ev_glob, &nev);
		for (int j = 0; j < nev; j++) {
			fn(systems[i], events[j], ctx);
			n++;
		}
		free_list(events, nev);
	}
	free_list(systems, nsys);
	return n;
}

static void print_one(const char *sys, const char *ev, void *ctx)
{
	(void)ctx;
	printf("%s:%s\n", sys, ev);
}

struct matches {
	char **systems;
	int nsystems, n;
	struct session *s;
	struct tep_event *events[TRACER_MAX_EVENTS];
	int nevents;
};

/* The formats to load: only the matching events ("sys:event"), not their whole systems. */
static void add_name(const char *sys, const char *ev, void *ctx)
{
	struct matches *m = ctx;
	if (m->n++ >= TRACER_MAX_EVENTS)
		return; /* counted, to say how many */
	size_t len = strlen(sys) + strlen(ev) + 2;
	char *name = malloc(len);
	if (name) {
		snprintf(name, len, "%s:%s", sys, ev);
		m->systems[m->nsystems++] = name;
	}
}

static void add_event(const char *sys, const char *ev, void *ctx)
{
	struct matches *m = ctx;
	struct tep_event *e = tep_find_event_by_name(m->s->tep, sys, ev);
	if (e && m->nevents < TRACER_MAX_EVENTS)
		m->events[m->nevents++] = e;
}

int main(int argc, char **argv)
{
	opt_init(argv[0]);
	parse_args(argc, argv);
	if (!tracefs_tracing_dir()) {
		fprintf(stderr, "tpoint: tracefs not found and could not be mounted (CONFIG_TRACING)\n");
		return 1;
	}
	if (env.list) {
		int n = each_match(env.spec ? env.spec : "*:*", print_one, NULL);
		if (!n && env.spec)
			opt_fail("no tracepoint matches '%s'", env.spec);
		return 0;
	}

	/* One name per event, the stack events for -s and -U, and the NULL at the end. */
	static char *systems[TRACER_MAX_EVENTS + 3];
	struct session s = {0};
	struct matches m = {.systems = systems, .s = &s};
	int ret = 1;
	int n = each_match(env.spec, add_name, &m);
	if (n == 0)
		opt_fail("no tracepoint matches '%s' (tpoint -l lists them)", env.spec);
	if (n > TRACER_MAX_EVENTS)
		opt_fail("'%s' matches %d tracepoints; at most %d at once", env.spec, n,
			 TRACER_MAX_EVENTS);
	systems[m.nsystems++] = "ftrace:kernel_stack"; /* for -s */
	systems[m.nsystems++] = "ftrace:user_stack";   /* for -U */
	if (session_init(&s, opt_tool, (const char *const *)systems))
		goto out;
	for (int i = 0; i < m.nsystems - 2; i++) {
		char *colon = strchr(systems[i], ':');
		*colon = 0;
		add_event(systems[i], colon + 1, &m);
		*colon = ':';
	}
	if (env.t.format)
		ret = tracer_print_formats(&s, m.events, m.nevents);
	else
		ret = tracer_run(&s, m.events, m.nevents, env.filter, env.spec, &env.t);
out:
	session_close(&s);
	return ret;
}
