// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE /* memmem */
#include "kernel/probe.h"
#include "base/runid.h"
#include "kernel/format.h"
#include "kernel/session.h"
#include "kernel/strpieces.h"
#include "base/sig.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

static const char *const events_file[] = {
	[PROBE_KPROBE] = "kprobe_events",
	[PROBE_UPROBE] = "uprobe_events",
	[PROBE_EPROBE] = "dynamic_events",
};

struct probe {
	enum probe_kind kind;
	char event[64]; /* name in the group */
	int emergency;	/* the signal module's step that removes it */
	struct tracefs_dynevent *d;
};

/* The probes of one session, removed after its instance. */
struct probe_set {
	struct session *s;
	int n, cap;
	struct probe *p;
};

const char *probe_group(void)
{
	static char group[64];
	if (!group[0])
		snprintf(group, sizeof(group), RUNID_GROUP_PREFIX "%s", runid_self());
	return group;
}

bool probe_name_valid(const char *name)
{
	if (!*name || strlen(name) > 63 || !(isalpha((unsigned char)*name) || *name == '_'))
		return false;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return false;
	return true;
}

/* Fetch arguments start like this: %reg $arg +off( -off( @sym \\imm, or NAME=... */
static bool looks_like_fetcharg(const char *w, size_t len)
{
	return strchr("%$+-@\\0123456789", w[0]) || memchr(w, '=', len) != NULL;
}

/*
 * The word at s (after spaces): a quoted part ("...") or a backslash joins spaces to it.
 * Unquoted into out; *end after it. -1 for an unclosed quote or a word too long.
 */
static int word(const char *s, char *out, size_t size, const char **start, const char **end)
{
	s += strspn(s, " ");
	*start = s;
	size_t n = 0;
	bool quoted = false;
	for (; *s && (quoted || *s != ' '); s++) {
		if (*s == '"') {
			quoted = !quoted;
			continue;
		}
		if (*s == '\\' && s[1])
			s++;
		if (n + 1 >= size)
			return -1;
		out[n++] = *s;
	}
	out[n] = 0;
	*end = s;
	return quoted ? -1 : 0;
}

int probe_parse(const char *def, struct probe_def *pd, char *why, size_t whylen)
{
	memset(pd, 0, sizeof(*pd));
	if ((def[0] != 'p' && def[0] != 'r') || def[1] != ':') {
		snprintf(why, whylen, "must start with p: (entry) or r: (return)");
		return -1;
	}
	pd->type = def[0];
	char w0[sizeof(pd->target)], w1[sizeof(pd->target)];
	const char *s0, *e0, *s1, *e1;
	if (word(def + 2, w0, sizeof(w0), &s0, &e0) || word(e0, w1, sizeof(w1), &s1, &e1)) {
		snprintf(why, whylen, "a quote without its end, or a target too long");
		return -1;
	}
	if (!*w0) {
		snprintf(why, whylen, "no function or target after %c:", def[0]);
		return -1;
	}
	const char *end = e0;
	if (*w1 && !looks_like_fetcharg(s1, (size_t)(e1 - s1))) {
		if (strlen(w0) >= sizeof(pd->alias)) {
			snprintf(why, whylen, "alias too long");
			return -1;
		}
		memcpy(pd->alias, w0, strlen(w0) + 1);
		if (!probe_name_valid(pd->alias)) {
			snprintf(why, whylen,
				 "invalid alias '%s' (letters, digits and _; a path with "
				 "spaces is written in quotes)",
				 pd->alias);
			return -1;
		}
		memcpy(w0, w1, sizeof(w0));
		end = e1;
	}
	snprintf(pd->target, sizeof(pd->target), "%s", w0);
	pd->args = end + strspn(end, " ");
	return 0;
}

/* A valid default alias from a function or symbol name: do_sys_open+0x10 -> do_sys_open. */
void probe_default_alias(const char *sym, char type, char *alias, size_t len)
{
	size_t n = 0;
	for (const char *p = sym; *p && *p != '+' && *p != '@' && n + 5 < len; p++)
		alias[n++] = (isalnum((unsigned char)*p) || *p == '_') ? *p : '_';
	alias[n] = 0;
	if (!n || isdigit((unsigned char)alias[0]))
		snprintf(alias, len, "probe");
	if (type == 'r')
		strcat(alias, "_ret");
}

bool probe_many_strings_unsafe(void)
{
	struct utsname u;
	return uname(&u) == 0 && !strncmp(u.release, "4.18.0-", 7) && strstr(u.release, ".el8");
}

bool probe_available(struct session *s, enum probe_kind kind, bool quiet)
{
	static const char *const what[][2] = {
		[PROBE_KPROBE] = {"kprobes", "CONFIG_KPROBE_EVENTS"},
		[PROBE_UPROBE] = {"uprobes", "CONFIG_UPROBE_EVENTS"},
		[PROBE_EPROBE] = {"event probes", "CONFIG_EPROBE_EVENTS"},
	};
	/* dynamic_events exists with kprobes or uprobes alone, and its README lists the eprobe
	 * syntax even without CONFIG_EPROBE_EVENTS (6.18): only creating one tells. */
	if (tracefs_file_exists(NULL, events_file[kind]))
		return true;
	if (!quiet)
		fprintf(stderr, "%s: %s not available in this kernel (%s)\n", s->tool,
			what[kind][0], what[kind][1]);
	return false;
}

/* The kernel's explanation of the last rejected command, with its caret, on stderr. */
static void print_error_log(const char *tool)
{
	char *log = tracefs_error_last(NULL);
	if (log && *log) {
		/* error_log entries: "[ts] subsys: error: text\n  Command: ...\n       ^\n" */
		const char *p = strchr(log, ']');
		fprintf(stderr, "%s: the kernel says:%s", tool, p ? p + 1 : log);
		if (log[strlen(log) - 1] != '\n')
			fputc('\n', stderr);
	}
	free(log);
}

/* --- the syntax of older kernels ------------------------------------------------------------ */

unsigned probe_syntax_missing(void)
{
	static int missing = -1;
	if (missing >= 0)
		return (unsigned)missing;
	/* The README lists the fetch-argument syntax the kernel takes. */
	char *readme = tracefs_instance_file_read(NULL, "README", NULL);
	missing = 0;
	if (readme && !strstr(readme, "$arg<N>"))
		missing |= PROBE_NO_ARGN;
	if (readme && !strstr(readme, "ustring"))
		missing |= PROBE_NO_USER;
	if (readme && !strstr(readme, "ref_ctr_offset"))
		missing |= PROBE_NO_REFCTR;
	if (readme && !strstr(readme, "imm-value"))
		missing |= PROBE_NO_IMM;
	free(readme);
	return (unsigned)missing;
}

static bool boundary(const char *args, const char *p)
{
	return p == args || strchr(" =(", p[-1]);
}

int probe_args_compat(const char *args, char type, const char *target, unsigned missing,
		      bool uprobe, char *out, size_t len, char *why, size_t whylen)
{
#if defined(__x86_64__)
	static const char *const regs[] = {"%di", "%si", "%dx", "%cx", "%r8", "%r9"};
	const int nregs = 6, stack_base = 6; /* $arg7 is $stack1: $stack0 is the return address */
	bool user_reads = true;		     /* before 5.5 a kernel read reaches user memory */
	/* Since 4.17 the syscall functions take struct pt_regs; the arguments are saved
	 * registers: di si dx r10 r8 r9 (ia32: bx cx dx si di bp). */
	static const char *const wrappers[][2] = {
		{"__x64_sys_", "+112(%di) +104(%di) +96(%di) +56(%di) +72(%di) +64(%di)"},
		{"__ia32_sys_", "+40(%di) +88(%di) +96(%di) +104(%di) +112(%di) +32(%di)"},
		{NULL, NULL},
	};
#elif defined(__aarch64__)
	static const char *const regs[] = {"%x0", "%x1", "%x2", "%x3", "%x4", "%x5", "%x6", "%x7"};
	const int nregs = 8, stack_base = 9; /* $arg9 is $stack0 */
	bool user_reads = uprobe;	     /* a kernel read does not, with PAN */
	static const char *const wrappers[][2] = {
		{"__arm64_sys_", "+0(%x0) +8(%x0) +16(%x0) +24(%x0) +32(%x0) +40(%x0)"},
		{NULL, NULL},
	};
#else
	static const char *const regs[] = {NULL};
	const int nregs = 0, stack_base = 0;
	bool user_reads = uprobe;
	static const char *const wrappers[][2] = {{NULL, NULL}};
#endif
	size_t o = 0;
	int changed = 0;
	for (const char *p = args; *p;) {
		const char *rep = NULL;
		char num[32];
		size_t skip = 0;
		if ((missing & PROBE_NO_ARGN) && !strncmp(p, "$arg", 4) &&
		    isdigit((unsigned char)p[4]) && boundary(args, p)) {
			char *end;
			long n = strtol(p + 4, &end, 10);
			if (isalnum((unsigned char)*end) || *end == '_' || n < 1 || n > 64)
				goto copy;
			const char *off = strchr(target, '+');
			if (type == 'r' || (off && strtoull(off + 1, NULL, 0))) {
				snprintf(why, whylen,
					 "this kernel has no $argN (Linux 4.20), and it can be "
					 "given "
					 "only as registers at a function's entry");
				return -1;
			}
			for (int w = 0; wrappers[w][0]; w++)
				if (!strncmp(target, wrappers[w][0], strlen(wrappers[w][0]))) {
					snprintf(
						why, whylen,
						"this kernel has no $argN (Linux 4.20), and %.*s "
						"takes the user registers saved at the system call "
						"(struct pt_regs *), not its arguments: they are "
						"%s",
						(int)strcspn(target, "+"), target, wrappers[w][1]);
					return -1;
				}
			if (!nregs) {
				snprintf(why, whylen,
					 "this kernel has no $argN (Linux 4.20): give the argument "
					 "registers of this architecture (%%reg)");
				return -1;
			}
			if (n <= nregs)
				rep = regs[n - 1];
			else {
				snprintf(num, sizeof(num), "$stack%ld", n - stack_base);
				rep = num;
			}
			skip = (size_t)(end - p);
		} else if ((missing & PROBE_NO_USER) && (*p == '+' || *p == '-') && p[1] == 'u' &&
			   (isdigit((unsigned char)p[2]) || p[2] == '(') && boundary(args, p)) {
			if (!user_reads)
				goto nouser;
			snprintf(num, sizeof(num), "%c", *p);
			rep = num;
			skip = 2;
		} else if ((missing & PROBE_NO_USER) && !strncmp(p, ":ustring", 8) &&
			   (!p[8] || p[8] == ' ')) {
			if (!user_reads)
				goto nouser;
			rep = ":string";
			skip = 8;
		}
		if (rep) {
			size_t n = strlen(rep);
			if (o + n >= len)
				goto toolong;
			memcpy(out + o, rep, n);
			o += n;
			p += skip;
			changed = 1;
			continue;
		}
	copy:
		if (o + 1 >= len)
			goto toolong;
		out[o++] = *p++;
	}
	out[o] = 0;
	return changed;
nouser:
	snprintf(why, whylen,
		 "this kernel has no user-memory fetches (+u, :ustring: Linux 5.5), and on this "
		 "architecture its reads do not reach user memory");
	return -1;
toolong:
	snprintf(why, whylen, "the arguments are too long");
	return -1;
}

static struct tracefs_dynevent *describe(enum probe_kind kind, char type, const char *name,
					 const char *target, const char *args);

/* A probe made and removed at once: does the kernel take this definition? */
static bool accepted(enum probe_kind kind, char type, const char *target, const char *args)
{
	struct tracefs_dynevent *d = describe(kind, type, "ftt_try", target, args);
	if (!d)
		return false;
	bool ok = tracefs_dynevent_create(d) == 0;
	if (ok)
		tracefs_dynevent_destroy(d, false);
	tracefs_dynevent_free(d);
	return ok;
}

static bool in_kallsyms(const char *func)
{
	size_t n = strcspn(func, "+");
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512];
	bool found = false;
	while (f && !found && fgets(line, sizeof(line), f)) {
		/* "ffffffff81234567 T name\t[module]" */
		char *name = strchr(line, ' ');
		name = name ? strchr(name + 1, ' ') : NULL;
		if (name && !strncmp(name + 1, func, n) && strchr("\t\n", name[1 + n]))
			found = true;
	}
	if (f)
		fclose(f);
	return found;
}

/*
 * Without error_log (before Linux 5.2) the kernel says only EINVAL: find which part it
 * refuses by trying the probe point alone, then the arguments one more at a time.
 */
static void explain_rejection(const char *tool, enum probe_kind kind, char type, const char *target,
			      const char *args)
{
	if (!accepted(kind, type, target, NULL)) {
		if (kind == PROBE_KPROBE && !in_kallsyms(target))
			fprintf(stderr, "%s: no function %.*s in this kernel (/proc/kallsyms)\n",
				tool, (int)strcspn(target, "+"), target);
		else
			fprintf(stderr,
				"%s: the kernel refuses to probe %s itself (%s); it has no "
				"error_log to say more\n",
				tool, target,
				kind == PROBE_KPROBE ? "not traceable, or an offset inside an "
						       "instruction" :
						       "not a probe point it takes");
		return;
	}
	char so_far[8192] = "";
	size_t o = 0;
	for (const char *p = args ? args : ""; *p;) {
		p += strspn(p, " ");
		size_t n = strcspn(p, " ");
		if (!n)
			break;
		if (o + n + 2 >= sizeof(so_far))
			break;
		if (o)
			so_far[o++] = ' ';
		memcpy(so_far + o, p, n);
		so_far[o += n] = 0;
		if (!accepted(kind, type, target, so_far)) {
			fprintf(stderr,
				"%s: the kernel refuses the argument '%.*s' (the probe takes what "
				"comes before it; this kernel has no error_log to say why)\n",
				tool, (int)n, p);
			return;
		}
		p += n;
	}
	fprintf(stderr,
		"%s: the kernel refuses the arguments together, each one alone is taken; "
		"it has no error_log to say why\n",
		tool);
}

static void remove_all(void *arg);

/* The session's probe set, made (and its removal registered) on first use. */
static struct probe_set *probe_set_of(struct session *s)
{
	if (s->probes)
		return s->probes;
	struct probe_set *ps = calloc(1, sizeof(*ps));
	if (!ps)
		return NULL;
	ps->s = s;
	if (session_on_close(s, SESSION_AFTER_REMOVE, remove_all, ps)) {
		free(ps);
		return NULL;
	}
	return s->probes = ps;
}

static int grow(struct probe_set *ps)
{
	int cap = ps->cap ? ps->cap * 2 : 16;
	struct probe *p = realloc(ps->p, (size_t)cap * sizeof(*p));
	if (!p)
		return -1;
	ps->p = p;
	ps->cap = cap;
	return 0;
}

/* The probe as libtracefs describes it: target is "FUNC[+off]", "/path:0xOFF" or
 * "system.event" as for the kernel's own files. */
static struct tracefs_dynevent *describe(enum probe_kind kind, char type, const char *name,
					 const char *target, const char *args)
{
	const char *group = probe_group(), *fetch = args && *args ? args : NULL;
	char buf[4096];
	snprintf(buf, sizeof(buf), "%s", target);
	if (kind == PROBE_KPROBE)
		return type == 'r' ? tracefs_kretprobe_alloc(group, name, target, fetch, 0) :
				     tracefs_kprobe_alloc(group, name, target, fetch);
	char *sep = strrchr(buf, kind == PROBE_UPROBE ? ':' : '.');
	if (!sep) {
		errno = EINVAL;
		return NULL;
	}
	*sep++ = 0;
	if (kind == PROBE_EPROBE)
		return tracefs_eprobe_alloc(group, name, buf, sep, fetch);
	unsigned long long off = strtoull(sep, NULL, 0);
	return type == 'r' ? tracefs_uretprobe_alloc(group, name, buf, off, fetch) :
			     tracefs_uprobe_alloc(group, name, buf, off, fetch);
}

/* A uprobe with a reference counter, PATH:0xOFF(0xREF) (a USDT semaphore, Linux 4.20), which
 * libtracefs 1.6.4 cannot describe: written here, then taken back as libtracefs reads it so
 * that it is removed as the others are. NULL with errno set when the kernel refuses it. */
static struct tracefs_dynevent *create_refctr(char type, const char *name, const char *target,
					      const char *args)
{
	char *line = NULL;
	if (asprintf(&line, "%c:%s/%s %s%s%s\n", type, probe_group(), name, target,
		     args && *args ? " " : "", args ? args : "") < 0)
		return NULL;
	int ret = tracefs_instance_file_append(NULL, "uprobe_events", line);
	int e = errno;
	free(line);
	if (ret < 0) {
		errno = e;
		return NULL;
	}
	struct tracefs_dynevent *d =
		tracefs_dynevent_get(TRACEFS_DYNEVENT_UPROBE, probe_group(), name);
	if (!d) { /* made but not found again: removed now, not left behind */
		char rm[160];
		snprintf(rm, sizeof(rm), "-:%s/%s\n", probe_group(), name);
		tracefs_instance_file_append(NULL, "uprobe_events", rm);
		errno = ENOENT;
	}
	return d;
}

static struct tep_event *create(struct session *s, enum probe_kind kind, char type,
				const char *name, const char *target, const char *args, bool quiet,
				const char *hide, struct tep_format_field *hidden)
{
	struct probe_set *ps = probe_set_of(s);
	if (!ps || (ps->n == ps->cap && grow(ps))) {
		fprintf(stderr, "%s: out of memory\n", s->tool);
		return NULL;
	}
	/* Older kernels: $argN as registers, +u and ustring as plain reads (x86). */
	static char compat[8192];
	char cwhy[512];
	unsigned missing = kind == PROBE_EPROBE ? 0 : probe_syntax_missing();
	if (kind == PROBE_UPROBE)
		missing &= PROBE_NO_USER; /* $argN is not uprobe syntax on any kernel */
	if (args && missing) {
		int c = probe_args_compat(args, type, target, missing, kind == PROBE_UPROBE, compat,
					  sizeof(compat), cwhy, sizeof(cwhy));
		if (c < 0) {
			if (!quiet)
				fprintf(stderr, "%s: %s\n", s->tool, cwhy);
			errno = EINVAL;
			return NULL;
		}
		if (c > 0) {
			if (!quiet)
				fprintf(stderr,
					"%s: this kernel predates $argN (Linux 4.20) or "
					"user-memory "
					"fetches (5.5): given as '%c:%s %s'\n",
					s->tool, type, target, compat);
			args = compat;
		}
	}
	/* Before Linux 6.12 a uprobe's strings are read in fixed pieces (strpieces.h). */
	static char pieced[16384];
	struct strpieces sp = {0};
	if (kind == PROBE_UPROBE && args && strpieces_needed()) {
		int c = strpieces_args(args, pieced, sizeof(pieced), &sp, cwhy, sizeof(cwhy));
		if (c < 0) {
			if (!quiet)
				fprintf(stderr, "%s: %s\n", s->tool, cwhy);
			errno = EINVAL;
			return NULL;
		}
		if (c > 0)
			args = pieced;
	}
	struct tracefs_dynevent *d = NULL;
	const char *colon = kind == PROBE_UPROBE ? strrchr(target, ':') : NULL;
	bool refctr = colon && strchr(colon, '(');
	if (!refctr && !(d = describe(kind, type, name, target, args))) {
		if (!quiet)
			fprintf(stderr, "%s: cannot describe the probe on %s: %s\n", s->tool,
				target, strerror(errno));
		return NULL;
	}
	tracefs_error_clear(NULL);
	if (refctr ? !(d = create_refctr(type, name, target, args)) : tracefs_dynevent_create(d)) {
		int e = errno;
		tracefs_dynevent_free(d);
		if (quiet)
			return NULL;
		fprintf(stderr, "%s: the kernel rejected the probe '%c:%s/%s %s%s%s': %s\n",
			s->tool, type, probe_group(), name, target, args && *args ? " " : "",
			args ? args : "", strerror(e));
		if (tracefs_file_exists(NULL, "error_log"))
			print_error_log(s->tool);
		else if (e == EINVAL)
			explain_rejection(s->tool, kind, type, target, args);
		return NULL;
	}
	struct probe *p = &ps->p[ps->n++];
	p->kind = kind;
	p->d = d;
	snprintf(p->event, sizeof(p->event), "%s", name);
	/* The emergency step is written here, not by libtracefs: it runs in a signal handler,
	 * where only write(2) and friends may be called. */
	char line[256];
	char *path = tracefs_get_tracing_file(events_file[kind]);
	snprintf(line, sizeof(line), "-:%s/%s\n", probe_group(), name);
	p->emergency = path ? sig_on_emergency_write(path, line) : -1;
	tracefs_put_tracing_file(path);

	/* The new event's format, into the tep the session already has. */
	int size = 0;
	char why[128];
	char *fmt = tracefs_event_file_read(NULL, probe_group(), name, "format", &size);
	why[0] = 0;
	if (fmt && size > 0 && hide) {
		size_t len = (size_t)size;
		if (probe_format_hide(fmt, &len, hide, hidden))
			hidden->name = NULL; /* not found as expected: left in sight */
		size = (int)len;
	}
	if (fmt && size > 0 && sp.n) {
		char *whole = strpieces_format(fmt, &sp);
		free(fmt);
		fmt = whole;
		size = whole ? (int)strlen(whole) : 0;
		if (!whole)
			snprintf(why, sizeof(why), "its strings' pieces not as made");
	}
	if (fmt && size > 0) {
		char *signed_fmt = probe_format_small_signed(fmt);
		if (signed_fmt) {
			free(fmt);
			fmt = signed_fmt;
			size = (int)strlen(fmt);
		}
	}
	if (!fmt || size <= 0 ||
	    format_parse(s->tep, fmt, (size_t)size, probe_group(), why, sizeof(why))) {
		free(fmt);
		fprintf(stderr, "%s: cannot read the format of probe %s/%s%s%s%s\n", s->tool,
			probe_group(), name, why[0] ? " (" : "", why, why[0] ? ")" : "");
		return NULL;
	}
	free(fmt);
	return tep_find_event_by_name(s->tep, probe_group(), name);
}

struct tep_event *probe_create(struct session *s, enum probe_kind kind, char type, const char *name,
			       const char *target, const char *args)
{
	return create(s, kind, type, name, target, args, false, NULL, NULL);
}

struct tep_event *probe_try(struct session *s, enum probe_kind kind, char type, const char *name,
			    const char *target, const char *args)
{
	return create(s, kind, type, name, target, args, true, NULL, NULL);
}

struct tep_event *probe_create_hiding(struct session *s, char type, const char *name,
				      const char *target, const char *args, const char *hide,
				      struct tep_format_field *hidden)
{
	memset(hidden, 0, sizeof(*hidden));
	return create(s, PROBE_KPROBE, type, name, target, args, false, hide, hidden);
}

char *probe_format_small_signed(const char *fmt)
{
	char *out = NULL;
	const char *f = fmt, *print = strstr(fmt, "\nprint fmt: \"");
	while (print && (f = strstr(f, "\tfield:s")) && f < print) {
		f += strlen("\tfield:s");
		const char *len = !strncmp(f, "8 ", 2) ? "hh" : !strncmp(f, "16 ", 3) ? "h" : NULL;
		const char *name = strchr(f, ' '), *semi = name ? strchr(name, ';') : NULL;
		if (!len || !semi || memchr(name, '[', (size_t)(semi - name)))
			continue; /* an array prints each element: left as it is */
		char want[96];
		int n = snprintf(want, sizeof(want), " %.*s=%%d", (int)(semi - name - 1), name + 1);
		if (n < 0 || (size_t)n >= sizeof(want))
			continue;
		const char *src = out ? out : fmt;
		char *at = strstr(strstr(src, "\nprint fmt: \""), want);
		if (!at || (at[n] != ' ' && at[n] != '"'))
			continue;
		char *more = malloc(strlen(src) + 3);
		if (!more)
			break;
		size_t head = (size_t)(at - src) + (size_t)n - 1; /* up to the 'd' */
		sprintf(more, "%.*s%s%s", (int)head, src, len, at + n - 1);
		free(out);
		out = more;
	}
	return out;
}

int probe_format_hide(char *fmt, size_t *len, const char *name, struct tep_format_field *field)
{
	char decl[96], arg[96];
	snprintf(decl, sizeof(decl), " %s;", name);
	snprintf(arg, sizeof(arg), ", REC->%s", name);
	char *end = fmt + *len, *line = NULL;
	/* The field's line: "\tfield:u64 NAME;\toffset:N;\tsize:N;\tsigned:N;\n" */
	for (char *l = fmt, *nl; l < end && (nl = memchr(l, '\n', (size_t)(end - l))); l = nl + 1)
		if (memmem(l, (size_t)(nl - l), decl, strlen(decl)) &&
		    memmem(l, (size_t)(nl - l), "field:", 6)) {
			line = l;
			break;
		}
	char *pf = memmem(fmt, *len, "\nprint fmt: \"", 13);
	if (!line || !pf)
		return -1;
	char *nl = memchr(line, '\n', (size_t)(end - line));
	const char *o = memmem(line, (size_t)(nl - line), "offset:", 7);
	const char *z = memmem(line, (size_t)(nl - line), "size:", 5);
	if (!o || !z)
		return -1;
	field->name = (char *)name;
	field->offset = atoi(o + 7);
	field->size = atoi(z + 5);
	/* In the print fmt: " NAME=<conversion>" in the string and ", REC->NAME" after it. */
	char shown[96];
	snprintf(shown, sizeof(shown), " %s=", name);
	char *q = pf + 13, *qend = memchr(q, '"', (size_t)(end - q));
	char *in = qend ? memmem(q, (size_t)(qend - q), shown, strlen(shown)) : NULL;
	char *ref = qend ? memmem(qend, (size_t)(end - qend), arg, strlen(arg)) : NULL;
	if (!in || !ref ||
	    (ref[strlen(arg)] != ',' && ref[strlen(arg)] != '\n' && ref + strlen(arg) != end))
		return -1;
	size_t in_len = strcspn(in + 1, " \"") + 1;
	/* Cut from the end backwards, so that the earlier places stay where they were. */
	memmove(ref, ref + strlen(arg), (size_t)(end - ref - (ptrdiff_t)strlen(arg)));
	end -= strlen(arg);
	memmove(in, in + in_len, (size_t)(end - in - (ptrdiff_t)in_len));
	end -= in_len;
	memmove(line, nl + 1, (size_t)(end - nl - 1));
	end -= nl + 1 - line;
	*len = (size_t)(end - fmt);
	fmt[*len] = 0;
	return 0;
}

/* Last created, first removed (an eprobe may sit on another probe's event). */
static void remove_all(void *arg)
{
	struct probe_set *ps = arg;
	for (int i = ps->n - 1; i >= 0; i--) {
		/* Not forced: one still enabled somewhere is a bug to report, not to hide. */
		if (tracefs_dynevent_destroy(ps->p[i].d, false))
			fprintf(stderr, "%s: cannot remove probe %s/%s: %s\n", ps->s->tool,
				probe_group(), ps->p[i].event, strerror(errno));
		tracefs_dynevent_free(ps->p[i].d);
		sig_forget(ps->p[i].emergency);
	}
	free(ps->p);
	ps->s->probes = NULL;
	free(ps);
}

bool probe_is_uprobe(const struct session *s, const struct tep_event *ev)
{
	const struct probe_set *ps = s->probes;
	if (!ps || strcmp(ev->system, probe_group()))
		return false;
	for (int i = 0; i < ps->n; i++)
		if (ps->p[i].kind == PROBE_UPROBE && !strcmp(ev->name, ps->p[i].event))
			return true;
	return false;
}

int probe_profile(enum probe_kind kind, probe_profile_fn fn, void *ctx)
{
	if (kind == PROBE_EPROBE)
		return -1;
	char *text = tracefs_instance_file_read(
		NULL, kind == PROBE_UPROBE ? "uprobe_profile" : "kprobe_profile", NULL);
	if (!text)
		return -1;
	char *save = NULL;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		unsigned long long hits, missed = 0;
		char path[4096], name[256];
		if (kind == PROBE_UPROBE ? sscanf(l, "%4095s %255s %llu", path, name, &hits) != 3 :
					   sscanf(l, "%255s %llu %llu", name, &hits, &missed) != 3)
			continue;
		const char *base = strrchr(name, '/'); /* a group in front on some kernels */
		fn(base ? base + 1 : name, hits, missed, ctx);
	}
	free(text);
	return 0;
}
