// SPDX-License-Identifier: GPL-2.0-only
/*
 * funccount: calls of the kernel functions that match globs, counted, and of user functions
 * (LIB:GLOB). Each function gets a kprobe (uprobe) of this run. By default the kernel counts
 * them: kprobe_profile (uprobe_profile) counts a probe's hits before its event's filter, and
 * the filter drops every event, so no event is sent per call; the counts are read every
 * interval. Where the kernel has the function profiler and nobody uses the top level, it
 * counts instead (no probe per function; set_ftrace_filter and function_profile_enabled are
 * the top level's, owned through toplevel.h). For a subset of tasks (-p, -L, -n, --exec)
 * neither can tell tasks apart: then each call is an event of the run's instance (which
 * follows only those tasks), counted here.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "kernel/ftrace.h"
#include "base/ladder.h"
#include "kernel/funcprof.h"
#include "count/fieldhist.h"
#include "base/opt.h"
#include "base/out.h"
#include "kernel/probe.h"
#include "count/prom.h"
#include "stream/reader.h"
#include "base/row.h"
#include "tool.h"
#include "kernel/toplevel.h"
#include "stream/usym.h"

/* Counting by probes costs a kprobe (uprobe) per function, made, enabled, disabled and
 * removed one by one: measured in the TCG guests 30 to 300 ms each (6.12: 78 functions 14 s,
 * 618 functions 189 s; 4.19: 375 functions 31 s), a few ms on hardware. The function
 * tracer takes any number at once (one pass of the kernel over its functions per pattern:
 * 0.2 s for *alloc*, 1,044 functions, in the 6.12 guest), but sends an event per call,
 * read here: 2.3 to 3 times the hit counts' cost per call (bench/GUEST.md). By default,
 * kernel functions are counted by probes up to this many, by the function tracer beyond. */
#define PROBES_BEST 50
/* At most this many probes in one run (--via hits or events, user functions). */
#define MAX_PROBES 1000

enum via { VIA_BEST, VIA_HITS, VIA_EVENTS, VIA_PROFILE, VIA_FTRACE, VIA_HIST };
static const char *const via_names[] = {"best",	  "hits", "events", "profile",
					"ftrace", "hist", NULL};
/* The ways to count, best first: --via best takes the first that can count this run. */
enum way { WAY_PROFILE, WAY_FTRACE, WAY_HIST, WAY_EVENTS, WAY_HITS, NWAYS };
static const char *const way_names[] = {"profile", "ftrace", "hist", "events", "hits"};
static const int way_of_via[] = {
	[VIA_BEST] = NWAYS,	     [VIA_HITS] = WAY_HITS,	[VIA_EVENTS] = WAY_EVENTS,
	[VIA_PROFILE] = WAY_PROFILE, [VIA_FTRACE] = WAY_FTRACE, [VIA_HIST] = WAY_HIST};

static struct env {
	char **globs;
	int nglobs;
	enum via via;
	enum way way;	      /* the way chosen */
	bool kprobes, tracer; /* what the kernel has */
	bool verbose;	      /* -v */
	long long top;	      /* --top, 0: all */
	struct func {
		char *name;   /* as shown: the kernel function, or LIB:FUNC */
		char *target; /* a user function's PATH:0xOFFSET, NULL for a kernel one */
		struct tep_event *ev;
		uint64_t count;	       /* this interval */
		uint64_t total;	       /* --prom: from the start */
		uint64_t hits, missed; /* kprobe_profile's (the profiler's hits), last read */
		uint64_t sum;	       /* the profiler's hits over the CPUs, being read */
	} * f;
	int n, cap;
	uint64_t unknown;  /* tracer records at no counted function's address */
	int not_unique;	   /* names the kernel has more than once: left out */
	char **dups;	   /* those names, sorted */
	int *matched;	   /* functions each pattern matched */
	int ifuncs;	   /* user functions that are IFUNCs: left out */
	bool kernel, user; /* kinds of function asked for */
	uint64_t missed;   /* calls the kernel's kprobes missed (nmissed), in all */
	bool profile;	   /* counted by the function profiler, at the top level */
	struct toplevel tl;
	bool ftrace;	       /* each call an event of the instance's function tracer */
	struct tep_event *fev; /* ftrace:function */
	struct tep_format_field *ipf;
	struct addr {
		unsigned long long addr;
		int idx; /* -1: a name left out as not unique (its calls are not counted) */
	} * addrs;	 /* the functions by address, for the tracer's ip */
	int naddrs, capaddrs;
	/* Each probe's calls counted by a hist trigger on it (those of the traced tasks). */
	bool hist;
	struct kerncount kc;
	struct tep_event **kc_ev; /* the probes made */
	int *kc_func;		  /* the function of each */
	uint64_t *kc_counts;
	uint64_t end_ns; /* -d: when the run ends (reader_now's clock) */
	bool deferred;	 /* its tick came: its table is printed by end() */
	struct tool_run *t;
} env;

enum { OPT_TOP = OPT_LONG + 1, OPT_VIA };

static const struct opt_spec options[] = {
	TOOL_DURATION,
	{'i', NULL, "SECS", "print the counts every SECS seconds (default: at the end)", 0},
	TOOL_JSON("one JSON object per row"),
	TOOL_NAME,
	TOOL_PID,
	TOOL_TID,
	{'T', NULL, NULL, "the wall-clock time above each table", TOOL_OPT_WALLCLOCK},
	{'v', NULL, NULL, "list the functions that match and how they are counted, then exit", 0},
	{OPT_TOP, "top", "N", "print the N largest rows (default: all)", 0},
	{OPT_VIA, "via", "HOW",
	 "profile: counted by the kernel's function profiler\n(kernel functions, every task; "
	 "one run at a time);\nhits: counted in the kernel (probe hit counts);\nevents: each "
	 "call an event, counted here (the way\nfor -n); hist: each call counted in the kernel "
	 "by a\nhist trigger on its probe (-p, -L, --exec); ftrace:\neach call an event of the "
	 "function tracer (kernel\nfunctions); best (default): the profiler where it is\nfree, "
	 "else hits (hist for -p, -L, --exec where\nthe kernel has hist triggers, else events) "
	 "for up\nto 50 functions, the function tracer for more or\nwithout kprobes",
	 0},
	TOOL_JSON_KEYS,
	TOOL_PROM,
	TOOL_EXEC,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"funccount 'vfs_*'                # calls of the VFS functions, at Ctrl-C",
	"funccount -i 1 'tcp_send*'       # every second",
	"funccount -p 181 'ext4_*'        # only PID 181's calls",
	"funccount --top 5 -d 10 '*alloc*' # the five most called, after 10 s",
	"funccount -v 'vfs_*'             # which functions, counted how",
	"funccount 'libc:str*'            # user functions: the C library's str*",
	"funccount -i 15 --prom fc.prom 'vfs_*' > /dev/null # counters for node_exporter",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case 'i': t->o.interval = opt_interval(arg); break;
	case 'v': env.verbose = true; break;
	case OPT_TOP: env.top = opt_int(arg, 0, 1LL << 30, "N (rows)"); break;
	case OPT_VIA: env.via = (enum via)opt_choice(arg, via_names, 6, "--via"); break;
	}
}

static void operands(struct tool_run *t, int argc, char **argv)
{
	if (argc < 1)
		opt_fail("no PATTERN: which kernel functions? (see -h)");
	for (int i = 0; i < argc; i++) {
		const char *colon = strrchr(argv[i], ':');
		if (!*argv[i] || strpbrk(argv[i], " \t\n") ||
		    (colon && (colon == argv[i] || !colon[1])))
			opt_fail("invalid PATTERN: '%s' (a kernel function or glob, or LIB:GLOB)",
				 argv[i]);
		*(colon ? &env.user : &env.kernel) = true;
	}
	env.globs = argv;
	env.nglobs = argc;
}

/* --- the functions ------------------------------------------------------------------------- */

static bool out_of_memory; /* a function could not be added: the run fails, not omits it */

/* A function to the list: its name as shown, and a user function's PATH:0xOFFSET. */
static void append(const char *name, const char *target)
{
	if (env.n == env.cap) {
		int cap = env.cap ? env.cap * 2 : 256;
		struct func *more = realloc(env.f, (size_t)cap * sizeof(*more));
		if (!more) {
			out_of_memory = true;
			return;
		}
		env.f = more;
		env.cap = cap;
	}
	char *n = strdup(name), *t = target ? strdup(target) : NULL;
	if (!n || (target && !t)) {
		free(n);
		free(t);
		out_of_memory = true;
		return;
	}
	env.f[env.n++] = (struct func){.name = n, .target = t};
}

static void add(const char *name, const char *mod, void *ctx)
{
	bool any = false;
	for (int g = 0; g < env.nglobs; g++)
		if (!strchr(env.globs[g], ':') && !fnmatch(env.globs[g], name, 0)) {
			env.matched[g]++;
			any = true;
		}
	if (any)
		append(name, NULL);
}

static int by_name(const void *a, const void *b)
{
	const struct func *x = a, *y = b;
	return strcmp(x->name, y->name);
}

/* User functions: by file and offset, then name (the first name of an address is kept). */
static int by_target(const void *a, const void *b)
{
	const struct func *x = a, *y = b;
	int c = strcmp(x->target, y->target);
	return c ? c : strcmp(x->name, y->name);
}

/* The file being read for a LIB:GLOB: the LIB as given (shown) and its path. */
struct user_file {
	const char *lib;
	int glob; /* its index in globs */
	char path[PATH_MAX];
};

static void add_user(const char *name, unsigned long long off, void *ctx)
{
	const struct user_file *u = ctx;
	env.matched[u->glob]++;
	char shown[512], target[PATH_MAX + 32];
	snprintf(shown, sizeof(shown), "%s:%s", u->lib, name);
	snprintf(target, sizeof(target), "%s:0x%llx", u->path, off);
	append(shown, target);
}

/* LIB:GLOB patterns: the functions of each file, one per address (aliases are the same
 * code). */
static void collect_user(void)
{
	int first = env.n;
	for (int g = 0; g < env.nglobs; g++) {
		char lib[PATH_MAX];
		const char *colon = strrchr(env.globs[g], ':');
		if (!colon)
			continue;
		snprintf(lib, sizeof(lib), "%.*s", (int)(colon - env.globs[g]), env.globs[g]);
		struct user_file u = {.lib = lib, .glob = g};
		if (usym_target(lib, u.path, sizeof(u.path)))
			opt_fail("target not found: '%s' (a path, a program in PATH, or a library)",
				 lib);
		if (strpbrk(u.path, " \t\n:"))
			opt_fail("the path of '%s' has a space or ':', which uprobe_events cannot "
				 "take: use a link to it",
				 lib);
		int ifuncs = 0;
		if (usym_functions(u.path, colon + 1, add_user, &u, &ifuncs) < 0)
			opt_fail("not an ELF file: '%s'", u.path);
		env.ifuncs += ifuncs;
		if (!env.matched[g] && ifuncs)
			env.matched[g] = -1; /* IFUNCs only */
	}
	if (env.n > first)
		qsort(env.f + first, (size_t)(env.n - first), sizeof(*env.f), by_target);
	int k = first;
	for (int i = first; i < env.n; i++) {
		if (k > first && !strcmp(env.f[k - 1].target, env.f[i].target)) {
			free(env.f[i].name);
			free(env.f[i].target);
			continue;
		}
		env.f[k++] = env.f[i];
	}
	env.n = k;
}

/* The functions that match, sorted. A name the kernel lists twice (static functions of two
 * files) is left out: a kprobe by name takes one of them (6.x refuses it), so the count would
 * not be the name's. */
static enum tool_code collect(bool kprobes)
{
	if (!(env.matched = calloc((size_t)env.nglobs, sizeof(*env.matched)))) {
		fprintf(stderr, "funccount: out of memory\n");
		return TOOL_FAIL;
	}
	if (env.kernel && ftrace_functions(NULL, add, NULL) < 0) {
		if (errno == EPERM)
			fprintf(stderr,
				"funccount: %sthe kernel refuses to list its traceable "
				"functions (available_filter_functions: %s)\n",
				!kprobes && env.via == VIA_BEST ?
					"no kprobe events (CONFIG_KPROBE_EVENTS), and " :
					"",
				strerror(errno));
		else
			fprintf(stderr, "funccount: no list of traceable functions "
					"(available_filter_functions; CONFIG_FUNCTION_TRACER)\n");
		return TOOL_FAIL;
	}
	if (env.n)
		qsort(env.f, (size_t)env.n, sizeof(*env.f), by_name);
	if (env.n && !(env.dups = calloc((size_t)env.n, sizeof(*env.dups)))) {
		fprintf(stderr, "funccount: out of memory\n");
		return TOOL_FAIL;
	}
	int k = 0, matched = env.n;
	for (int i = 0; i < env.n;) {
		int j = i + 1;
		while (j < env.n && !strcmp(env.f[i].name, env.f[j].name))
			j++;
		if (j - i > 1) {
			env.dups[env.not_unique++] = env.f[i].name; /* sorted too */
			env.f[i].name = NULL;
		} else {
			env.f[k++] = env.f[i];
		}
		for (int x = j - i > 1 ? i : j; x < j; x++)
			free(env.f[x].name);
		i = j;
	}
	env.n = k;
	collect_user();
	/* A pattern that matches nothing is a mistake, not a count of 0 (the other
	 * patterns' functions would be counted as if it were fine). */
	for (int g = 0; g < env.nglobs; g++)
		if (env.matched[g] <= 0) {
			fprintf(stderr, "funccount: %s '%s'%s\n",
				env.matched[g] < 0	  ? "only IFUNCs match" :
				strchr(env.globs[g], ':') ? "no function matches" :
							    "no traceable kernel function matches",
				env.globs[g],
				env.matched[g] < 0 ? " (a uprobe would count their resolver, which "
						     "runs once at load)" :
						     "");
			return TOOL_USAGE;
		}
	if (out_of_memory) {
		fprintf(stderr, "funccount: out of memory for the list of functions\n");
		return TOOL_FAIL;
	}
	if (!env.n) {
		fprintf(stderr, "funccount: %s\n",
			matched	   ? "only functions whose names are not unique match (a kprobe by "
				     "name cannot tell them apart)" :
			env.ifuncs ? "only IFUNCs match (a uprobe would count their resolver, "
				     "which runs once at load)" :
			env.user   ? "no function matches" :
				     "no traceable kernel function matches");
		return TOOL_USAGE;
	}
	return TOOL_OK;
}

/* Options only events can follow: the counts in the kernel are of every task. */
static bool filtered(const struct tool_run *t)
{
	return t->o.pid || t->o.tid || t->o.name || t->o.exec;
}

/* Each call an event of the run (the tracer's, or a probe's; a hist trigger that the
 * kernel refused leaves the probe's events on): not counted in the kernel. */
static bool by_events(void)
{
	return env.way != WAY_PROFILE && env.way != WAY_HITS;
}

/* The function profiler's table cuts names: two of ours alike in their first characters
 * could not be told apart there. The first such name, or NULL. */
static const char *profile_ambiguous(void)
{
	for (int i = 1; i < env.n; i++) /* sorted by name */
		if (funcprof_alike(env.f[i - 1].name, env.f[i].name))
			return env.f[i].name;
	return NULL;
}

/* --- how the calls are counted: the ladder's rungs (ctx: the run) ------------------------- */

/* The function profiler: it exists, it can count these (kernel functions, every task, names
 * it shows whole enough), and the top level is ours with the profiler off. With --via
 * profile, why not is said; with best, the next way counts instead. */
static int way_profile(void *ctx, const char **why)
{
	struct tool_run *t = ctx;
	bool must = env.via == VIA_PROFILE;
	const char *alike = profile_ambiguous();
	*why = "no function profiler in this kernel (CONFIG_FUNCTION_PROFILER)";
	if (!funcprof_available())
		return -1;
	*why = "not for user functions, -p, -L, -n or --exec"; /* --via profile: a usage error */
	if (env.user || filtered(t))
		return -1;
	*why = "names alike in the profiler's table";
	if (alike && !must)
		return -1;
	if (alike) {
		fprintf(stderr,
			"funccount: %s and another matching name are alike in their first %d "
			"characters, all the profiler shows: use --via hits\n",
			alike, FUNCPROF_NAME);
		return TOOL_USAGE;
	}
	int ret = funcprof_take(&env.tl, "funccount", must);
	*why = "the top level or the profiler is in use";
	return ret < 0 ? TOOL_FAIL : ret ? -1 : 0;
}

/* The function tracer: asked for, or without kprobes, or more functions than probes are
 * quick to make (PROBES_BEST). */
static int way_ftrace(void *ctx, const char **why)
{
	*why = "no function tracer in this kernel (CONFIG_FUNCTION_TRACER)";
	if (!env.tracer)
		return -1;
	if (env.via == VIA_FTRACE)
		return 0;
	*why = "probes for user functions, or for this few";
	return env.kernel && !env.user && (!env.kprobes || env.n > PROBES_BEST) ? 0 : -1;
}

/* A probe per function: not more than MAX_PROBES. */
static enum tool_code probes_fit(void)
{
	if (env.n <= MAX_PROBES)
		return TOOL_OK;
	fprintf(stderr,
		"funccount: %d functions match; at most %d can be counted by probes (one "
		"each)%s\n",
		env.n, MAX_PROBES,
		env.user ? ": narrow the pattern" : ": narrow the pattern, or --via ftrace");
	return TOOL_USAGE;
}

/* -p, -L, --exec: a hist trigger per probe where the kernel has them and they count the
 * traced tasks alone (fieldhist_tasks_ok), not -n (4.9's filters know no comm), nor --record
 * (which keeps the events); by default for up to PROBES_BEST functions. */
static int way_hist(void *ctx, const char **why)
{
	struct tool_run *t = ctx;
	int ret = probes_fit();
	if (ret)
		return ret;
	*why = "every task counted, -n, --record or many functions";
	if (env.via != VIA_HIST &&
	    (!filtered(t) || t->o.name || t->record_path || env.n > PROBES_BEST))
		return -1;
	*why = "no hist triggers in this kernel (CONFIG_HIST_TRIGGERS, Linux 4.7)";
	if (!fieldhist_can())
		return -1;
	*why = "this kernel's triggers count every task's probe hits, not those of -p, -L or "
	       "--exec alone (before Linux 5.15)";
	return filtered(t) && !fieldhist_tasks_ok() ? -1 : 0;
}

/* Each call an event, counted here: the way for -n, and for -p, -L, --exec otherwise. */
static int way_events(void *ctx, const char **why)
{
	int ret = probes_fit();
	if (ret)
		return ret;
	*why = "every task: counted in the kernel";
	return env.via == VIA_EVENTS || filtered(ctx) ? 0 : -1;
}

/* The probes' hit counts, every task's (--via hits with -p, ...: a usage error). */
static int way_hits(void *ctx, const char **why)
{
	return probes_fit();
}

static void release_top(void *arg)
{
	struct tool_run *t = arg;
	toplevel_release(&env.tl);
	if (env.tl.failed)
		t->failed = true;
}

/*
 * What set_ftrace_filter is given (the profiler's, the tracer's): the patterns themselves
 * where the kernel matches them as fnmatch does, else the names. The kernel makes a pass
 * over all its functions per word it is given, whether a name or a glob (0.28 s each in the
 * 6.12 guest: 1,044 names took minutes; 300 names 15 s on 4.19), so the patterns are given
 * where they can be: full globs from Linux 4.10 (its README says "glob-matching-pattern"),
 * before that only a '*' at either end. Functions the patterns match that are not counted
 * (names not unique) are traced too and their calls dropped. The words, NULL-terminated;
 * NULL when out of memory.
 */
static const char **filter_words(int *n)
{
	static int full = -1;
	if (full < 0) {
		char *readme = tracefs_instance_file_read(NULL, "README", NULL);
		full = readme && strstr(readme, "glob-matching-pattern");
		free(readme);
	}
	bool globs = true;
	for (int g = 0; g < env.nglobs && globs; g++) {
		const char *p = env.globs[g];
		size_t len = strlen(p);
		const char *inner = len > 2 ? strpbrk(p + 1, "*?[") : NULL;
		if (!full && (strpbrk(p, "?[") || (inner && inner < p + len - 1)))
			globs = false; /* 4.9 would take "a*b" as "a*" */
	}
	*n = globs ? env.nglobs : env.n;
	const char **w = calloc((size_t)*n + 1, sizeof(*w));
	for (int i = 0; w && i < *n; i++)
		w[i] = globs ? env.globs[i] : env.f[i].name;
	return w;
}

/* set_ftrace_filter (filter_words), then the profiler on. */
static enum tool_code start_profiler(void)
{
	int n;
	const char **words = filter_words(&n);
	if (!words) {
		fprintf(stderr, "funccount: out of memory\n");
		return TOOL_FAIL;
	}
	int ret = funcprof_start(&env.tl, words, n, "funccount") ? TOOL_FAIL : TOOL_OK;
	free(words);
	return ret;
}

/* --- the function tracer's way ---------------------------------------------------------- */

static int by_name_key(const void *key, const void *elem)
{
	return strcmp(key, ((const struct func *)elem)->name);
}

static int by_addr(const void *a, const void *b)
{
	const struct addr *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int by_str(const void *key, const void *elem)
{
	return strcmp(key, *(char *const *)elem);
}

static int add_addr(unsigned long long a, int idx)
{
	if (env.naddrs == env.capaddrs) {
		int cap = env.capaddrs ? env.capaddrs * 2 : 1024;
		struct addr *more = realloc(env.addrs, (size_t)cap * sizeof(*more));
		if (!more)
			return -1;
		env.addrs = more;
		env.capaddrs = cap;
	}
	env.addrs[env.naddrs++] = (struct addr){a, idx};
	return 0;
}

/* The functions by address: the tracer's records carry the address it was called at. Read
 * from /proc/kallsyms in one pass, keeping only ours (and the names left out, whose calls
 * the patterns bring too): a name looked up in the whole table each took minutes for a
 * thousand names in the 6.12 guest. */
static enum tool_code prepare_ftrace(void)
{
	if (!(env.fev = session_load_event(&env.t->s, "ftrace", "function")) ||
	    !(env.ipf = tep_find_field(env.fev, "ip"))) {
		fprintf(stderr, "funccount: no ftrace:function event format in this kernel\n");
		return TOOL_FAIL;
	}
	FILE *f = fopen("/proc/kallsyms", "re");
	if (!f) {
		fprintf(stderr, "funccount: cannot read the kernel's symbols (/proc/kallsyms)\n");
		return TOOL_FAIL;
	}
	char line[512];
	int known = 0;
	while (fgets(line, sizeof(line), f)) {
		/* "ffffffff81234560 T name [module]": parsed by hand, sscanf took 3 s of the
		 * 6.12 guest's 169,000 lines */
		char *p, *name;
		unsigned long long a = strtoull(line, &p, 16);
		if (!a || p[0] != ' ' || (p[1] != 't' && p[1] != 'T') || p[2] != ' ')
			continue;
		name = p + 3;
		name[strcspn(name, " \t\n")] = 0;
		struct func *fn = bsearch(name, env.f, (size_t)env.n, sizeof(*env.f), by_name_key);
		bool dup =
			!fn && env.not_unique &&
			bsearch(name, env.dups, (size_t)env.not_unique, sizeof(*env.dups), by_str);
		if ((fn || dup) && add_addr(a, fn ? (int)(fn - env.f) : -1)) {
			fclose(f);
			fprintf(stderr, "funccount: out of memory\n");
			return TOOL_FAIL;
		}
		known += fn != NULL;
	}
	fclose(f);
	if (!known) {
		fprintf(stderr, "funccount: none of the functions is in /proc/kallsyms (are "
				"addresses hidden? kptr_restrict)\n");
		return TOOL_FAIL;
	}
	qsort(env.addrs, (size_t)env.naddrs, sizeof(*env.addrs), by_addr);
	return TOOL_OK;
}

/* The filter and the tasks before the tracer: it records from the moment it is set. */
static enum tool_code instance(struct tool_run *t)
{
	if (!env.ftrace)
		return TOOL_OK;
	int n;
	const char **words = filter_words(&n);
	if (!words)
		return TOOL_FAIL;
	int bad = ftrace_set_functions(t->s.inst, "set_ftrace_filter", words, n, "funccount") ||
		  session_set_ftrace_pids(&t->s, t->o.pid, t->o.tid) ||
		  ftrace_set_tracer(t->s.inst, "function", "funccount");
	free(words);
	return bad ? TOOL_FAIL : TOOL_OK;
}

/* A function entry the tracer recorded: its address is the function's, or a few bytes in
 * (the call to the tracer after an endbr64). This run's own calls are left out. */
static void on_traced(struct tep_record *rec, void *ctx)
{
	struct tool_run *t = ctx;
	int pid = tep_data_pid(t->s.tep, rec);
	if (pid == (int)getpid() || (t->o.name && fnmatch(t->o.name, tool_comm(t, pid), 0)))
		return;
	unsigned long long ip = (unsigned long long)reader_num(rec, env.ipf);
	int lo = 0, hi = env.naddrs - 1, at = -1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		if (env.addrs[mid].addr <= ip) {
			at = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	if (at >= 0 && ip - env.addrs[at].addr < 32) {
		if (env.addrs[at].idx >= 0)
			env.f[env.addrs[at].idx].count++;
	} else {
		env.unknown++;
	}
}

static enum tool_code prepare(struct tool_run *t)
{
	int ret;
	env.t = t;
	env.tl.lock_fd = -1;
	if (env.via == VIA_HITS && filtered(t)) {
		fprintf(stderr, "funccount: --via hits counts every task: not with -p, -L, -n or "
				"--exec\n");
		return TOOL_USAGE;
	}
	if (env.via == VIA_PROFILE && (filtered(t) || env.user)) {
		fprintf(stderr, "funccount: --via profile counts kernel functions of every task: "
				"not with -p, -L, -n, --exec or LIB:GLOB\n");
		return TOOL_USAGE;
	}
	if (env.via == VIA_FTRACE && env.user) {
		fprintf(stderr, "funccount: --via ftrace counts kernel functions: not with "
				"LIB:GLOB\n");
		return TOOL_USAGE;
	}
	if (env.via == VIA_HIST && (t->o.name || t->record_path)) {
		fprintf(stderr, "funccount: --via hist: not with %s\n",
			t->o.name ?
				"-n (a name the kernel's filters cannot match on every kernel)" :
				"--record (no event is written to keep)");
		return TOOL_USAGE;
	}
	bool tracer = env.tracer = ftrace_tracer_available("function");
	if (env.via == VIA_FTRACE && !tracer) {
		fprintf(stderr, "funccount: no function tracer in this kernel "
				"(CONFIG_FUNCTION_TRACER)\n");
		return TOOL_FAIL;
	}
	bool kprobes = env.kprobes = env.kernel && probe_available(&t->s, PROBE_KPROBE, true);
	/* Without kprobes, kernel functions are counted by the function tracer. */
	if (env.kernel && !kprobes && env.via != VIA_PROFILE && env.via != VIA_FTRACE &&
	    (env.via != VIA_BEST || env.user || !tracer)) {
		probe_available(&t->s, PROBE_KPROBE, false); /* says which option */
		return TOOL_FAIL;
	}
	if (env.user && !probe_available(&t->s, PROBE_UPROBE, false))
		return TOOL_FAIL;
	if ((ret = collect(kprobes)))
		return ret;
	if (env.not_unique)
		fprintf(stderr,
			"funccount: %d matching names the kernel has more than once are left out\n",
			env.not_unique);
	if (env.ifuncs)
		fprintf(stderr,
			"funccount: %d matching IFUNCs are left out (a uprobe would count their "
			"resolver, which runs once at load, not the calls)\n",
			env.ifuncs);
	static const ladder_rung_fn ways[] = {way_profile, way_ftrace, way_hist, way_events,
					      way_hits};
	int way = way_of_via[env.via];
	if ((ret = ladder_climb(ways, way_names, NWAYS, &way, t, "funccount")))
		return ret == -1 ? TOOL_FAIL : ret;
	env.way = (enum way)way;
	env.profile = env.way == WAY_PROFILE;
	env.ftrace = env.way == WAY_FTRACE;
	env.hist = env.way == WAY_HIST;
	static const char *const hows[] = {
		[WAY_PROFILE] = "counted in the kernel: the function profiler",
		[WAY_FTRACE] = "each call an event of the function tracer, counted here",
		[WAY_HIST] = "counted in the kernel: a hist trigger on each probe",
		[WAY_EVENTS] = "each call an event, counted here",
		[WAY_HITS] = "counted in the kernel: probe hit counts",
	};
	const char *how = hows[env.way];
	if (env.verbose) {
		toplevel_release(&env.tl);
		fprintf(stderr, "funccount: %d function%s, %s\n", env.n, env.n == 1 ? "" : "s",
			how);
		for (int i = 0; i < env.n; i++)
			puts(env.f[i].name);
		return TOOL_DONE;
	}
	if (env.profile) {
		/* Given back before the instance goes, whatever ends the run. */
		if (session_on_close(&t->s, SESSION_BEFORE_REMOVE, release_top, t))
			return TOOL_FAIL;
		snprintf(t->traced, sizeof(t->traced), "calls of %d kernel function%s, %s", env.n,
			 env.n == 1 ? "" : "s", how);
		return TOOL_OK;
	}
	if (env.ftrace) {
		if ((ret = prepare_ftrace()))
			return ret;
		t->follow_names = t->o.name != NULL;
		t->ordered = t->follow_names;
		snprintf(t->traced, sizeof(t->traced), "calls of %d kernel function%s, %s", env.n,
			 env.n == 1 ? "" : "s", how);
		return TOOL_OK;
	}
	/* Only this run's names: the profile lists a probe by its name, without its group. */
	int made = 0, refused = 0;
	char first[128] = "";
	for (int i = 0; i < env.n; i++) {
		char name[64];
		snprintf(name, sizeof(name), "fc%d_%d", i, (int)getpid());
		env.f[i].ev =
			env.f[i].target ?
				probe_try(&t->s, PROBE_UPROBE, 'p', name, env.f[i].target, NULL) :
				probe_try(&t->s, PROBE_KPROBE, 'p', name, env.f[i].name, NULL);
		if (env.f[i].ev)
			made++;
		else if (!refused++)
			snprintf(first, sizeof(first), "%s", env.f[i].name);
	}
	if (!made) {
		fprintf(stderr,
			"funccount: the kernel refused a probe on every matching function "
			"(%s, ...)\n",
			first);
		return TOOL_FAIL;
	}
	if (refused)
		fprintf(stderr,
			"funccount: %d of %d functions cannot be probed and are left out "
			"(%s%s)\n",
			refused, env.n, first, refused > 1 ? ", ..." : "");
	t->follow_names = t->o.name != NULL;
	t->ordered = t->follow_names;
	snprintf(t->traced, sizeof(t->traced), "calls of %d %sfunction%s, %s", made,
		 env.user ? "" : "kernel ", made == 1 ? "" : "s", how);
	return TOOL_OK;
}

static void on_call(struct tep_record *rec, void *ctx)
{
	env.f[(intptr_t)ctx].count++;
}

static int read_hits(void);

/* The hist triggers written on the probes; -1 when the kernel refused one (each call is
 * then an event, counted here: a refusal is its own to say, as a filter's). */
static int start_hist(struct tool_run *t)
{
	char why[300];
	int m = 0;
	env.kc_ev = calloc((size_t)env.n, sizeof(*env.kc_ev));
	env.kc_func = calloc((size_t)env.n, sizeof(*env.kc_func));
	env.kc_counts = calloc((size_t)env.n, sizeof(*env.kc_counts));
	if (!env.kc_ev || !env.kc_func || !env.kc_counts)
		return -1;
	for (int i = 0; i < env.n; i++)
		if (env.f[i].ev) {
			env.kc_func[m] = i;
			env.kc_ev[m++] = env.f[i].ev;
		}
	if (!kerncount_start(&env.kc, &t->s, env.kc_ev, m, NULL, why, sizeof(why)))
		return 0;
	kerncount_free(&env.kc);
	env.hist = false;
	return -1;
}

static enum tool_code setup(struct tool_run *t)
{
	/* Hit counts: the filter drops every event, after the profile has counted the hit. */
	const char *filter = by_events() ? NULL : "common_pid < 0";
	int ret;
	if (env.profile)
		return start_profiler(); /* its counts start at 0 when it is enabled */
	if (env.ftrace)
		return reader_on(&t->r, env.fev, on_traced, t) ? TOOL_FAIL : TOOL_OK;
	if (env.hist && !start_hist(t))
		return TOOL_OK;
	for (int i = 0; i < env.n; i++)
		if (env.f[i].ev &&
		    (ret = tool_trace(t, env.f[i].ev, filter, on_call, (void *)(intptr_t)i)))
			return ret;
	/* The hits so far are of the setup itself (enabling each probe allocates and
	 * patches code, which the probes enabled before count: __kmalloc 75,000 of them on
	 * 4.19): the counts start from here. */
	if (!by_events() && read_hits() == 0)
		for (int i = 0; i < env.n; i++)
			env.f[i].count = 0;
	return TOOL_OK;
}

/* A profile line of one of our probes (fc<index>_<pid>): the calls since the last read are
 * added to its function's count. */
static void hit(const char *name, unsigned long long hits, unsigned long long missed, void *ctx)
{
	int i, pid;
	if (sscanf(name, "fc%d_%d", &i, &pid) != 2 || pid != (int)getpid() || i < 0 || i >= env.n)
		return;
	struct func *f = &env.f[i];
	f->count += hits - f->hits;
	env.missed += missed - f->missed;
	f->hits = hits;
	f->missed = missed;
}

/* The function we count that the profiler shows as name (cut to FUNCPROF_NAME characters):
 * one at most (profile_ambiguous). */
static struct func *profiled(const char *name)
{
	struct func *f = bsearch(name, env.f, (size_t)env.n, sizeof(*env.f), by_name_key);
	if (f || strlen(name) < FUNCPROF_NAME)
		return f;
	for (int i = 0; i < env.n; i++)
		if (funcprof_shows(name, env.f[i].name))
			return &env.f[i];
	return NULL;
}

static void profile_line(const char *name, unsigned long long hits, void *ctx)
{
	struct func *f = profiled(name);
	if (f)
		f->sum += hits;
}

/* trace_stat/function<cpu>: "  name  hits  [time ...]" after two header lines; the calls
 * since the last read are added to each function's count. */
static int read_profile(void)
{
	for (int i = 0; i < env.n; i++)
		env.f[i].sum = 0;
	if (funcprof_read(profile_line, NULL))
		return -1;
	for (int i = 0; i < env.n; i++) {
		struct func *f = &env.f[i];
		f->count += f->sum - f->hits;
		f->hits = f->sum;
	}
	return 0;
}

static int read_hits(void)
{
	if (env.profile)
		return read_profile();
	if ((env.kernel && probe_profile(PROBE_KPROBE, hit, NULL) < 0) ||
	    (env.user && probe_profile(PROBE_UPROBE, hit, NULL) < 0))
		return -1;
	return 0;
}

/* --- output --------------------------------------------------------------------------------- */

static int by_count(const void *a, const void *b)
{
	const struct func *x = *(const struct func *const *)a, *y = *(const struct func *const *)b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* The counts since the last table (read from the kernel where it counts); -1 when they
 * cannot be (said; the run fails). */
static int take_counts(struct tool_run *t)
{
	if (env.hist) {
		char why[300];
		if (kerncount_read(&env.kc, env.kc_counts, why, sizeof(why))) {
			fprintf(stderr, "funccount: %s: the counts are lost\n", why);
			t->failed = true;
			return -1;
		}
		for (int j = 0; j < env.kc.nevents; j++) {
			env.f[env.kc_func[j]].count += env.kc_counts[j];
			env.kc_counts[j] = 0;
		}
		return 0;
	}
	/* The counts would be short: the run ends, and fails. */
	if (!by_events() && read_hits()) {
		fprintf(stderr, "funccount: cannot read the %s: the counts are lost\n",
			env.profile ? "function profiler's counts (trace_stat/function*)" :
			env.kernel  ? "probes' hit counts (kprobe_profile)" :
				      "probes' hit counts (uprobe_profile)");
		t->failed = true;
		return -1;
	}
	return 0;
}

/* A row of the table; its time is the table's, above it in text, in each object in JSON. A
 * user function's name comes from its file: escaped like any text. */
static const struct row_col cols[] = {
	ROW_COL_WHEN,
	{"FUNC", "func", -40, ROW_STR, 0, 0, "the function (LIB:FUNC for a user one)"},
	{"COUNT", "count", 12, ROW_UINT, 0, 0, "its calls in the interval"},
};
static const struct row_table table = ROW_TABLE("each function", cols);

/* --prom: the table's counts added to the totals (every function's, not only the --top
 * N), and the file written: a counter per function called since the start. */
static void prom_write(struct tool_run *t)
{
	for (int i = 0; i < env.n; i++)
		env.f[i].total += env.f[i].count;
	struct prom *p = tool_prom(t);
	if (!p)
		return;
	const char *name = "ftrace_tools_funccount_calls_total";
	prom_family(p, name, "counter", "Calls counted, by function.");
	for (int i = 0; i < env.n; i++) {
		char labels[600];
		if (env.f[i].total)
			prom_uint(p, name,
				  prom_labels(labels, sizeof(labels), "func", env.f[i].name, NULL),
				  env.f[i].total);
	}
	prom_commit(p);
}

static void print_table(struct tool_run *t, uint64_t now)
{
	char when[16];
	out_wallclock(now, when);
	struct func **rows = malloc((size_t)env.n * sizeof(*rows));
	int n = 0;
	for (int i = 0; rows && i < env.n; i++)
		if (env.f[i].count)
			rows[n++] = &env.f[i];
	if (rows)
		qsort(rows, (size_t)n, sizeof(*rows), by_count);
	if (env.top && env.top < n)
		n = (int)env.top;
	struct row r;
	row_init(&r, &table, stdout, t->o.json, false, false);
	if (!t->o.json) {
		out_table_gap(stdout);
		if (t->o.wallclock || t->o.interval)
			printf("[%s]\n", when);
		row_header(&r);
	}
	for (int i = 0; i < n; i++) {
		row_begin(&r, 0);
		row_word(&r, when);
		row_bytes(&r, rows[i]->name, strlen(rows[i]->name));
		row_uint(&r, rows[i]->count);
		row_end(&r);
	}
	free(rows);
	if (t->prom)
		prom_write(t);
	for (int i = 0; i < env.n; i++)
		env.f[i].count = 0;
}

static int interval(struct tool_run *t, uint64_t now)
{
	/* The tick at the end of -d (-i 1 -d 2): its table is end()'s, after the last
	 * events are read, not a second one of the few calls in between. */
	if (env.end_ns && now >= env.end_ns) {
		env.deferred = true;
		return 0;
	}
	if (take_counts(t))
		return 1;
	print_table(t, now);
	return 0;
}

static void banner(struct tool_run *t)
{
	/* The reader starts its clock for -d just after this. */
	if (t->o.duration)
		env.end_ns = reader_now() + t->o.duration;
	fprintf(stderr, "Counting %s. Ctrl-C to end.\n", t->traced);
}

/* At the end: the counts (all of them without intervals; the partial last one with them),
 * and the calls the kprobes missed. */
static void end(struct tool_run *t)
{
	bool any = false;
	if (!t->last_interval && !take_counts(t)) {
		for (int i = 0; i < env.n; i++)
			any |= env.f[i].count != 0;
		/* With -i, the last table: the one of -d's last tick, or one of the calls since
		 * the last (none: Ctrl-C just after a tick); without, the one table. */
		if (!t->o.interval || env.deferred || any)
			print_table(t, reader_now());
	}
	if (env.unknown)
		fprintf(stderr,
			"funccount: %llu function tracer records at no counted function's address "
			"are left out\n",
			(unsigned long long)env.unknown);
	if (env.missed)
		fprintf(stderr,
			"funccount: %llu calls were missed by the kernel (kprobe_profile's "
			"nmissed: "
			"a probe hit while another probe ran)\n",
			(unsigned long long)env.missed);
}

static void cleanup(struct tool_run *t)
{
	for (int i = 0; i < env.n; i++) {
		free(env.f[i].name);
		free(env.f[i].target);
	}
	free(env.f);
	for (int i = 0; i < env.not_unique; i++)
		free(env.dups[i]);
	free(env.dups);
	free(env.matched);
	free(env.addrs);
	kerncount_free(&env.kc);
	free(env.kc_ev);
	free(env.kc_func);
	free(env.kc_counts);
}

static const struct tool funccount = {
	.name = "funccount",
	.batched = true,
	.no_cgroup = true,
	.opts = options,
	.operands = "PATTERN...",
	.operand_help = "   PATTERN     kernel functions: names or globs ('vfs_*'), as\n"
			"               available_filter_functions lists them; or LIB:GLOB,\n"
			"               functions of a program or library ('libc:str*')\n",
	.examples = examples,
	.rows = (const struct row_table *const[]){&table, NULL},
	.option = option,
	.operands_fn = operands,
	.prepare = prepare,
	.instance = instance,
	.setup = setup,
	.banner = banner,
	.interval = interval,
	.end = end,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&funccount, argc, argv);
}
