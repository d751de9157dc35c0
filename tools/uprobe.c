// SPDX-License-Identifier: GPL-2.0-only
/*
 * uprobe: trace a user-space function's entry or return, with arguments. The symbol is
 * resolved to a file offset by reading the ELF file (PIE, libraries, versioned symbols).
 */
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <unistd.h>

#include "kernel/probe.h"
#include "stream/sdt.h"
#include "tracer/tracer.h"
#include "stream/usym.h"

static struct env {
	struct tracer tr;
	bool force;	  /* -F */
	const char *list; /* -l TARGET */
	const char *def;  /* 'p:[alias ]TARGET:SYMBOL[+off] [args]' */
	struct tep_event *ev;
} env;

static const struct opt_spec options[] = {
	{'F', NULL, NULL, "probe SYMBOL even when it is not a function", 0},
	{'l', NULL, "TARGET", "list the function symbols of TARGET, then its USDT probes", 0},
	TRACER_OPTIONS,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"uprobe 'p:bash:readline'                      # bash's readline() calls",
	"uprobe 'r:bash:readline +0($retval):string'   # the lines it returns",
	"uprobe 'p:libc:open file=+0(%di):string'      # open() with its path",
	"uprobe -p 1234 'p:libc:malloc size=%di:u64'   # malloc sizes of PID 1234",
	"uprobe 'r:libc:malloc ret=$retval:x64' 'ret == 0'  # failed mallocs",
	"uprobe 'p:\"/opt/my app/bin/app\":main'         # a path with spaces, quoted",
	"uprobe -l libc | grep ^str                    # list symbols",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	if (o->key == 'F')
		env.force = true;
	else if (o->key == 'l')
		env.list = arg;
	else
		tracer_option(&env.tr, o, arg);
}

/* A USDT probe of the file, once per name (a probe may have several sites). */
struct usdt_seen {
	char names[64][2 * SDT_NAME_MAX + 2];
	int n;
};
static int list_usdt(const struct sdt_probe *p, void *ctx)
{
	struct usdt_seen *u = ctx;
	char name[sizeof(u->names[0])];
	snprintf(name, sizeof(name), "%s:%s", p->note.provider, p->note.name);
	for (int i = 0; i < u->n; i++)
		if (!strcmp(u->names[i], name))
			return 0;
	if (u->n < 64)
		snprintf(u->names[u->n++], sizeof(name), "%s", name);
	printf("usdt:%s\n", name);
	return 0;
}

/* -l needs no tracefs: it lists here and ends the run. */
static void operands(struct tool_run *t, int argc, char **argv)
{
	if (env.list) {
		char path[PATH_MAX];
		if (argc > 0)
			opt_fail("unexpected argument: '%s' (see -h)", argv[0]);
		if (usym_target(env.list, path, sizeof(path)))
			opt_fail("target not found: '%s' (a path, a program in PATH, or a library)",
				 env.list);
		if (usym_list(path, stdout) < 0)
			opt_fail("not an ELF file: '%s'", path);
		/* then its USDT probes, which usdt(8) traces (a malformed note: those before it) */
		static struct usdt_seen seen;
		char why[PATH_MAX + 200];
		sdt_probes(path, list_usdt, &seen, why, sizeof(why));
		exit(0);
	}
	if (argc == 0)
		opt_fail("no probe given: 'p:TARGET:SYMBOL' (see -h)");
	env.def = argv[0];
	if (argc > 1)
		env.tr.filter = argv[1];
	if (argc > 2)
		opt_fail("unexpected argument: '%s' (see -h)", argv[2]);
	tracer_check(&env.tr);
}

static enum tool_code prepare(struct tool_run *t)
{
	char path[PATH_MAX], why[PATH_MAX + 200], alias[64], target[PATH_MAX + 64];
	struct probe_def pd;
	if (probe_parse(env.def, &pd, why, sizeof(why)))
		opt_fail("invalid probe '%s': %s", env.def, why);
	/* TARGET:SYMBOL: the last ':' separates them (a path may hold ':', quoted). */
	char *colon = strrchr(pd.target, ':');
	if (!colon || colon == pd.target || !colon[1])
		opt_fail("invalid probe '%s': TARGET:SYMBOL expected, e.g. p:bash:readline",
			 env.def);
	*colon = 0;
	const char *symbol = colon + 1;
	if (usym_target(pd.target, path, sizeof(path)))
		opt_fail("target not found: '%s' (a path, a program in PATH, or a library)",
			 pd.target);
	unsigned long long off;
	if (usym_offset(path, symbol, env.force, &off, why, sizeof(why)))
		opt_fail("%s", why);
	if (!probe_available(&t->s, PROBE_UPROBE, false))
		return TOOL_FAIL;
	/* The kernel splits a probe line at spaces and the path at its first ':': such a path
	 * goes in as /proc/self/fd/N, which the kernel resolves (to the file) when it makes
	 * the probe. */
	int fd = -1;
	if (strpbrk(path, " \t\n:")) {
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			opt_fail("cannot open '%s'", path);
		snprintf(target, sizeof(target), "/proc/self/fd/%d:0x%llx", fd, off);
	} else {
		snprintf(target, sizeof(target), "%s:0x%llx", path, off);
	}
	/* The default alias and the banner name the symbol, not the file. */
	if (*pd.alias)
		snprintf(alias, sizeof(alias), "%s", pd.alias);
	else
		probe_default_alias(symbol, pd.type, alias, sizeof(alias));
	env.ev = probe_create(&t->s, PROBE_UPROBE, pd.type, alias, target, pd.args);
	if (fd >= 0)
		close(fd);
	if (!env.ev)
		return TOOL_USAGE; /* the kernel said why: a definition it does not accept */
	snprintf(t->traced, sizeof(t->traced), "%s:%s (%s)", env.ev->system, env.ev->name, symbol);
	env.tr.events = &env.ev;
	env.tr.nevents = 1;
	return tracer_prepare(t);
}

static const struct tool uprobe = {
	.name = "uprobe",
	.opts = options,
	.rows = TRACER_ROWS,
	.operands = "'p:[alias ]TARGET:SYMBOL[+off] [args]' | 'r:...' [filter]",
	.operand_help =
		"   filter      an ftrace filter on the probe's fields ('ret == 0')\n"
		"  TARGET: a path (in quotes when it has spaces), a program in PATH, or a\n"
		"          library (libc, libssl).\n"
		"  args: fetch arguments as in uprobe_events: %di, +0(%si):string, $retval ...\n",
	.examples = examples,
	.formats = (const char *const[]){"ftrace:kernel_stack", "ftrace:user_stack", NULL},
	.state = &env.tr,
	.option = option,
	.operands_fn = operands,
	.prepare = prepare,
	.setup = tracer_setup,
	.banner = tracer_banner,
	.header = tracer_header,
	.interval = tracer_interval,
	.end = tracer_end,
	.cleanup = tracer_cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&uprobe, argc, argv);
}
