// SPDX-License-Identifier: GPL-2.0-only
/*
 * usdt: list and trace the statically defined probes of a program or library (<sys/sdt.h>,
 * DTrace's USDT: python, OpenJDK, PostgreSQL...). Each probe site is a uprobe whose fetch
 * arguments come from its note (common/usdt.h); the tracer prints, counts and histograms
 * them as uprobe does. A probe with a semaphore is made with the kernel's reference counter
 * (PATH:OFF(REF), Linux 4.20): the kernel raises the semaphore in every process that maps
 * the file while the probe is enabled, and lowers it when it is removed.
 */
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <event-parse.h>

#include "kernel/probe.h"
#include "tracer/tracer.h"
#include "stream/sdt.h"
#include "stream/usym.h"

#define MAX_SITES 64
enum { OPT_VIA = OPT_LONG + 0x30, OPT_STRING };
/* How a semaphore is raised: by the kernel's reference counter, or here in one process. */
enum { VIA_KERNEL, VIA_PROC, VIA_BEST };
static const char *const via_names[] = {"kernel", "proc"};

static struct env {
	struct tracer tr;
	bool list;					 /* -l */
	int string_arg;					 /* --string N */
	const char *spec;				 /* PATH:PROVIDER:NAME */
	char path[PATH_MAX];				 /* PATH resolved */
	char provider[SDT_NAME_MAX], name[SDT_NAME_MAX]; /* globs */
	struct sdt_probe sites[MAX_SITES];
	int nsites, matched;
	struct tep_event *events[MAX_SITES];
	char labels[MAX_SITES][2 * SDT_NAME_MAX + 2]; /* PROVIDER:NAME, as -c, -j, --prom say */
	const char *label[MAX_SITES];
	int via; /* VIA_* */
	struct sdt_sem sems[MAX_SITES];
	int nsems;
} env = {.via = VIA_BEST};

static const struct opt_spec options[] = {
	{'l', NULL, NULL, "list the probes of PATH (or of every file PID maps, with -p)", 0},
	{OPT_STRING, "string", "N", "read argument N as the string it points to", 0},
	{OPT_VIA, "via", "HOW",
	 "how semaphores are raised: kernel (its reference counter, Linux\n"
	 "4.20) or proc (by usdt in the process of -p, through /proc/PID/mem;\n"
	 "default: kernel where it can)",
	 0},
	TRACER_OPTIONS_HEAD,
	TRACER_OPTIONS_TAIL,
	TRACER_OPT_USTACK,
	TRACER_OPT_USER,
	TOOL_EXEC,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"usdt -l /usr/bin/python3                        # python's probes",
	"usdt -l -p 1234                                 # of every file PID 1234 maps",
	"usdt --string 2 /usr/bin/python3:python:function__entry  # functions called",
	"usdt -c '/usr/bin/python3:python:gc__*'         # collections per second",
	"usdt -k arg1 /usr/bin/python3:python:gc__start  # collections by generation",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	if (o->key == 'l')
		env.list = true;
	else if (o->key == OPT_STRING)
		env.string_arg = (int)opt_int(arg, 1, SDT_ARGC_MAX, "argument number");
	else if (o->key == OPT_VIA)
		env.via = opt_choice(arg, via_names, VIA_BEST, "--via");
	else
		tracer_option(&env.tr, o, arg);
}

/* --- -l ------------------------------------------------------------------------------------ */

struct lister {
	const char *path; /* printed first when listing a process's files */
	int n;
};

static int list_one(const struct sdt_probe *p, void *ctx)
{
	struct lister *l = ctx;
	char sem[24] = "-";
	if (p->sem)
		snprintf(sem, sizeof(sem), "0x%llx", p->sem);
	if (l->path)
		printf("%s ", l->path);
	printf("%-16s %-28s 0x%-16llx %-18s %s\n", p->note.provider, p->note.name, p->addr, sem,
	       p->note.args);
	l->n++;
	return 0;
}

static void list_header(bool paths)
{
	printf("%s%-16s %-28s %-18s %-18s %s\n", paths ? "PATH " : "", "PROVIDER", "NAME",
	       "ADDRESS", "SEMAPHORE", "ARGS");
}

/* The probes of every file pid maps, each file once (in the order of its maps). */
static int list_process(pid_t pid)
{
	char maps[64], line[PATH_MAX + 128], why[PATH_MAX + 200];
	char **seen = NULL;
	int nseen = 0, total = 0;
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(maps, "r");
	if (!f)
		opt_fail("no process %d", (int)pid);
	list_header(true);
	while (fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');
		if (!path)
			continue;
		path[strcspn(path, "\n")] = 0;
		if (strstr(path, " (deleted)"))
			continue;
		bool dup = false;
		for (int i = 0; i < nseen && !dup; i++)
			dup = !strcmp(seen[i], path);
		if (dup)
			continue;
		char **more = realloc(seen, (size_t)(nseen + 1) * sizeof(*seen));
		if (!more || !(more[nseen] = strdup(path)))
			break;
		seen = more;
		nseen++;
		struct lister l = {seen[nseen - 1], 0};
		/* A file that is not ELF (a locale archive) or cannot be read lists nothing. */
		if (sdt_probes(path, list_one, &l, why, sizeof(why)) < 0 && l.n == 0 &&
		    !strstr(why, "not an ELF file"))
			fprintf(stderr, "usdt: %s\n", why);
		total += l.n;
	}
	fclose(f);
	for (int i = 0; i < nseen; i++)
		free(seen[i]);
	free(seen);
	return total;
}

static void list(struct tool_run *t, int argc, char **argv)
{
	char why[PATH_MAX + 200];
	if (t->o.pid) {
		if (argc > 0)
			opt_fail("-l -p lists the files of the process: no PATH too");
		list_process(t->o.pid);
		exit(0);
	}
	if (argc != 1)
		opt_fail(argc ? "unexpected argument: '%s' (see -h)" :
				"-l needs a PATH, or -p PID%s",
			 argc ? argv[1] : "");
	if (usym_target(argv[0], env.path, sizeof(env.path)))
		opt_fail("target not found: '%s' (a path, a program in PATH, or a library)",
			 argv[0]);
	struct lister l = {NULL, 0};
	list_header(false);
	if (sdt_probes(env.path, list_one, &l, why, sizeof(why)) < 0) {
		fprintf(stderr, "usdt: %s\n", why);
		exit(1);
	}
	exit(0);
}

/* --- tracing ------------------------------------------------------------------------------- */

static void operands(struct tool_run *t, int argc, char **argv)
{
	if (env.list)
		list(t, argc, argv);
	if (argc == 0)
		opt_fail("no probe given: PATH:PROVIDER:NAME (see -h)");
	if (argc > 2)
		opt_fail("unexpected argument: '%s' (see -h)", argv[2]);
	env.spec = argv[0];
	if (argc > 1)
		env.tr.filter = argv[1];
	/* PATH:PROVIDER:NAME: the last two ':' (a path may hold ':'). */
	char spec[PATH_MAX];
	snprintf(spec, sizeof(spec), "%s", env.spec);
	char *c2 = strrchr(spec, ':'), *c1 = NULL;
	if (c2) {
		*c2 = 0;
		c1 = strrchr(spec, ':');
	}
	if (!c1 || c1 == spec || !c2[1] || c2 == c1 + 1)
		opt_fail("invalid probe '%s': PATH:PROVIDER:NAME expected (globs on PROVIDER "
			 "and NAME)",
			 env.spec);
	*c1 = *c2 = 0;
	if (strlen(c1 + 1) >= sizeof(env.provider) || strlen(c2 + 1) >= sizeof(env.name))
		opt_fail("invalid probe '%s': provider or name over %d bytes", env.spec,
			 SDT_NAME_MAX - 1);
	strcpy(env.provider, c1 + 1);
	strcpy(env.name, c2 + 1);
	if (usym_target(spec, env.path, sizeof(env.path)))
		opt_fail("target not found: '%s' (a path, a program in PATH, or a library)", spec);
	tracer_check(&env.tr);
}

static int match(const struct sdt_probe *p, void *ctx)
{
	if (fnmatch(env.provider, p->note.provider, 0) || fnmatch(env.name, p->note.name, 0))
		return 0;
	if (env.nsites < MAX_SITES)
		env.sites[env.nsites++] = *p;
	env.matched++;
	return 0;
}

/* The event's name: the probe's, _2, _3... for its further sites (a probe in an inlined
 * function has one per copy); "usdt_N" when the name is not an event name. */
static void event_name(int i, char *name, size_t len)
{
	const struct sdt_probe *p = &env.sites[i];
	int copy = 1;
	for (int j = 0; j < i; j++)
		copy += !strcmp(env.sites[j].note.name, p->note.name);
	if (copy > 1)
		snprintf(name, len, "%s_%d", p->note.name, copy);
	else
		snprintf(name, len, "%s", p->note.name);
	if (!probe_name_valid(name))
		snprintf(name, len, "usdt_%d", i + 1);
}

static enum tool_code make_probe(struct tool_run *t, int i, int fd, unsigned missing)
{
	const struct sdt_probe *p = &env.sites[i];
	char args[2048], why[300], target[PATH_MAX + 80], name[80], where[PATH_MAX];
	unsigned consts;
	long long values[SDT_ARGC_MAX];
	int n = sdt_fetch_args(p->note.args, env.string_arg, !(missing & PROBE_NO_IMM), env.path, p,
			       args, sizeof(args), &consts, values, why, sizeof(why));
	if (n < 0) {
		fprintf(stderr, "usdt: %s:%s at 0x%llx: %s\n", p->note.provider, p->note.name,
			p->addr, why);
		return TOOL_FAIL;
	}
	if (env.string_arg > n) {
		fprintf(stderr, "usdt: --string %d: %s:%s has %d argument%s\n", env.string_arg,
			p->note.provider, p->note.name, n, n == 1 ? "" : "s");
		return TOOL_USAGE;
	}
	for (int a = 0; a < n; a++)
		if (consts & (1u << a))
			fprintf(stderr,
				"usdt: %s:%s: arg%d is the constant %lld, left out: this kernel "
				"has no immediate fetch arguments (\\VALUE, Linux 5.7)\n",
				p->note.provider, p->note.name, a + 1, values[a]);
	/* The kernel splits a probe line at spaces and the path at its first ':': such a path
	 * goes in as /proc/self/fd/N, which the kernel resolves when it makes the probe. */
	if (fd >= 0)
		snprintf(where, sizeof(where), "/proc/self/fd/%d", fd);
	else
		snprintf(where, sizeof(where), "%s", env.path);
	if (p->sem && env.via == VIA_KERNEL)
		snprintf(target, sizeof(target), "%s:0x%llx(0x%llx)", where, p->off, p->sem_off);
	else
		snprintf(target, sizeof(target), "%s:0x%llx", where, p->off);
	event_name(i, name, sizeof(name));
	if (!(env.events[i] = probe_create(&t->s, PROBE_UPROBE, 'p', name, target, args)))
		return TOOL_FAIL;
	snprintf(env.labels[i], sizeof(env.labels[i]), "%s:%s", p->note.provider, name);
	env.label[i] = env.labels[i];
	return TOOL_OK;
}

static enum tool_code prepare(struct tool_run *t)
{
	char why[PATH_MAX + 200];
	if (sdt_probes(env.path, match, NULL, why, sizeof(why)) < 0) {
		fprintf(stderr, "usdt: %s\n", why);
		return TOOL_FAIL;
	}
	/* (the kernel's uprobes are on the file: a process that maps another copy, or none,
	 * fires none of them, which said nothing) */
	if (t->o.pid && !usym_maps_file(t->o.pid, env.path))
		fprintf(stderr,
			"usdt: WARNING: process %d does not map %s now: its probes fire only "
			"once it does\n",
			(int)t->o.pid, env.path);
	if (!env.nsites) {
		fprintf(stderr, "usdt: no probe %s:%s in %s (usdt -l lists them)\n", env.provider,
			env.name, env.path);
		return TOOL_USAGE;
	}
	if (env.matched > MAX_SITES) {
		fprintf(stderr,
			"usdt: %d probe sites match %s:%s, more than %d: narrow the globs\n",
			env.matched, env.provider, env.name, MAX_SITES);
		return TOOL_USAGE;
	}
	if (!probe_available(&t->s, PROBE_UPROBE, false))
		return TOOL_FAIL;
	unsigned missing = probe_syntax_missing();
	bool sems = false;
	for (int i = 0; i < env.nsites; i++)
		sems |= env.sites[i].sem != 0;
	if (env.via == VIA_BEST)
		env.via = (missing & PROBE_NO_REFCTR) && t->o.pid ? VIA_PROC : VIA_KERNEL;
	if (sems && env.via == VIA_PROC && !t->o.pid) {
		fprintf(stderr,
			"usdt: --via proc raises semaphores in the process of -p: give it\n");
		return TOOL_USAGE;
	}
	if (sems && env.via == VIA_KERNEL && (missing & PROBE_NO_REFCTR)) {
		fprintf(stderr,
			"usdt: %s:%s has a semaphore: the kernel raises semaphores from Linux 4.20 "
			"(uprobe ref_ctr_offset), this one refuses them (with -p, usdt raises "
			"it in that process)\n",
			env.sites[0].note.provider, env.sites[0].note.name);
		return TOOL_FAIL;
	}
	int fd = -1, ret = TOOL_OK;
	if (strpbrk(env.path, " \t\n:") && (fd = open(env.path, O_RDONLY | O_CLOEXEC)) < 0) {
		fprintf(stderr, "usdt: cannot open '%s'\n", env.path);
		return TOOL_FAIL;
	}
	for (int i = 0; i < env.nsites && ret == TOOL_OK; i++)
		ret = make_probe(t, i, fd, missing);
	if (fd >= 0)
		close(fd);
	if (ret != TOOL_OK)
		return ret;
	const char *base = strrchr(env.path, '/');
	snprintf(t->traced, sizeof(t->traced), "%d USDT probe%s %s:%s of %s", env.nsites,
		 env.nsites == 1 ? "" : "s", env.provider, env.name, base ? base + 1 : env.path);
	env.tr.events = env.events;
	env.tr.nevents = env.nsites;
	env.tr.names = env.label;
	return tracer_prepare(t);
}

/* --via proc: each semaphore raised once in the process of -p, after its probes are made. */
static enum tool_code setup(struct tool_run *t)
{
	int ret = tracer_setup(t);
	char why[PATH_MAX + 100];
	for (int i = 0; i < env.nsites && ret == TOOL_OK && env.via == VIA_PROC; i++) {
		bool seen = !env.sites[i].sem;
		for (int j = 0; j < i && !seen; j++)
			seen = env.sites[j].sem == env.sites[i].sem;
		if (seen)
			continue;
		if (sdt_sem_raise(&env.sems[env.nsems], t->o.pid, env.path, env.sites[i].sem_off,
				  why, sizeof(why))) {
			fprintf(stderr, "usdt: %s\n", why);
			return TOOL_FAIL;
		}
		env.nsems++;
	}
	return ret;
}

/* Every path: the semaphores lowered again (a SIGKILL leaves them raised). */
static void cleanup(struct tool_run *t)
{
	for (int i = 0; i < env.nsems; i++)
		sdt_sem_lower(&env.sems[i]);
	env.nsems = 0;
	tracer_cleanup(t);
}

static const struct tool usdt = {
	.name = "usdt",
	.opts = options,
	.rows = TRACER_ROWS,
	.operands = "PATH:PROVIDER:NAME [filter] | -l PATH | -l -p PID",
	.operand_help =
		"   PATH        a path, a program in PATH, or a library (libc, libpython3.11)\n"
		"   PROVIDER, NAME  globs: every site of every matching probe is traced\n"
		"   filter      an ftrace filter on the arguments ('arg1 > 100')\n"
		"  Arguments are named arg1..argN, decoded from the probe's note with\n"
		"  their sizes and signs; a string (--string) is cut by the kernel at 4095\n"
		"  bytes (before Linux 6.12, read here in pieces: at 256).\n",
	.examples = examples,
	.formats = (const char *const[]){"ftrace:user_stack", NULL},
	.state = &env.tr,
	.option = option,
	.operands_fn = operands,
	.prepare = prepare,
	.setup = setup,
	.banner = tracer_banner,
	.header = tracer_header,
	.interval = tracer_interval,
	.end = tracer_end,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&usdt, argc, argv);
}
