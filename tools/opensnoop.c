/*
 * opensnoop: trace open(), openat(), openat2() and creat() with the path, the result and the
 * process. The result always comes from the syscall's exit tracepoint; the path from the best
 * mechanism the kernel offers: a kprobe where the kernel has already copied it, an event probe
 * on the syscall's entry, or uprobes on the C library's open functions. Entry, path and exit
 * are joined per thread.
 */
#include <fnmatch.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "comm.h"
#include "opt.h"
#include "out.h"
#include "pair.h"
#include "probe.h"
#include "reader.h"
#include "session.h"
#include "usym.h"

enum via { VIA_KPROBE, VIA_EPROBE, VIA_UPROBE, VIA_BEST };
static const char *const via_names[] = {"kprobe", "eprobe", "uprobe"};

static struct env {
	uint64_t duration;   /* -d */
	pid_t pid, tid;      /* -p, -L */
	const char *name;    /* -n */
	const char *pattern; /* only paths containing it (a glob when it has * ? [) */
	bool glob;
	bool timestamp;      /* -t */
	bool wallclock;      /* -T */
	bool failed;         /* -x */
	bool extended;       /* -e */
	bool json;           /* -j */
	enum via via;        /* --via */
} env = {.via = VIA_BEST};

static void usage(FILE *f)
{
	fputs("USAGE: opensnoop [-ehjtTxV] [-d SECS] [-L TID] [-n NAME] [-p PID] [--via MECH] [PATTERN]\n"
	      "   -d SECS     trace for this many seconds, then exit\n"
	      "   -e          FLAGS and MODE columns (octal)\n"
	      "   -j, --json  one JSON object per open\n"
	      "   -L TID      only this thread\n"
	      "   -n NAME     only processes whose name matches (glob)\n"
	      "   -p PID      only this process (all its threads, also new ones)\n"
	      "   -t          TIME(s) column: trace-clock seconds\n"
	      "   -T          TIME column: wall-clock time HH:MM:SS\n"
	      "   -x          only failed opens\n"
	      "   --via MECH  how to read paths: kprobe, eprobe or uprobe (default: the best the\n"
	      "               kernel offers)\n"
	      "   PATTERN     only paths containing PATTERN (a glob when it has * ? or [)\n"
	      "   -h, --help  this usage\n"
	      "   -V, --version  the version\n"
	      "  eg,\n"
	      "       opensnoop                 # trace file opens\n"
	      "       opensnoop -x              # only failed opens\n"
	      "       opensnoop -T -p 181       # PID 181 only, with wall-clock times\n"
	      "       opensnoop -n nginx -e     # processes named nginx, with flags and mode\n"
	      "       opensnoop '/etc/*'        # paths under /etc\n"
	      "       opensnoop -j -d 10 > o.json   # 10 seconds as JSON lines\n",
	      f);
}

static void parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{"json", no_argument, NULL, 'j'},
		{"via", required_argument, NULL, 1},
		{NULL, 0, NULL, 0},
	};
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+d:ejL:n:p:tTxhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': env.duration = opt_seconds(optarg, "duration"); break;
		case 'e': env.extended = true; break;
		case 'j': env.json = true; break;
		case 'L': env.tid = (pid_t)opt_int(optarg, 1, 1 << 30, "TID"); break;
		case 'n':
			if (strpbrk(optarg, "\"\\\n"))
				opt_fail("invalid NAME: '%s' (no quotes or backslashes)", optarg);
			env.name = optarg;
			break;
		case 'p': env.pid = opt_live_pid(optarg); break;
		case 't': env.timestamp = true; break;
		case 'T': env.wallclock = true; break;
		case 'x': env.failed = true; break;
		case 1:
			for (env.via = 0; env.via < VIA_BEST; env.via++)
				if (!strcmp(optarg, via_names[env.via]))
					break;
			if (env.via == VIA_BEST)
				opt_fail("invalid --via: '%s' (kprobe, eprobe or uprobe)", optarg);
			break;
		default:
			opt_common(c, argv, usage);
		}
	}
	if (optind < argc) {
		env.pattern = argv[optind++];
		env.glob = strpbrk(env.pattern, "*?[") != NULL;
	}
	if (optind < argc)
		opt_fail("unexpected argument: '%s' (see -h)", argv[optind]);
	if (env.pid && env.tid)
		opt_fail("-p and -L exclude each other");
}

/* --- events ----------------------------------------------------------------------------------
 * Every event gets a role. ENTER starts a thread's open (flags and mode, and with eprobes and
 * uprobes the path too), NAME adds the path a kprobe read, EXIT ends it with the result. */

enum role { ENTER, NAME, EXIT };

#define O_CREAT_ 0100
#define O_TMPFILE_ 020000000 /* __O_TMPFILE: mode matters with it too */
#define CREAT_FLAGS 01101    /* creat(): O_CREAT | O_WRONLY | O_TRUNC */

struct evinfo {
	struct tep_event *ev;
	enum role role;
	const char *call; /* the system call, for EXIT */
	bool creat;       /* creat(): implied flags */
	struct tep_format_field *file, *flags, *mode, *comm, *ret;
};

#define MAX_EVENTS 24
static struct evinfo evinfo[MAX_EVENTS];
static int nevinfo;

/* One open in progress, per thread. */
struct open_state {
	long long flags, mode; /* -1: unknown */
	bool named;
	char comm[16];
	char path[PATH_MAX];
};

static struct {
	struct pair_table threads; /* tid -> struct open_state */
	unsigned long long unpaired;
	enum via via; /* the mechanism in use */
	struct tep_handle *tep;
	struct comm_table *names;
	char what[PATH_MAX + 128];   /* the banner's "via ..." */
	const char *why;             /* why the mechanism tried last is not available */
} st;

/* The system calls, each traced where the kernel has it (arm64 has no open, 6.x has openat2). */
static const char *const calls[] = {"open", "openat", "openat2", "creat"};
#define NCALLS 4

static struct evinfo *add_event(struct session *s, struct tep_event *ev, enum role role,
				const char *call)
{
	char filter[512];
	if (nevinfo == MAX_EVENTS || session_filter(s, filter, sizeof(filter), NULL, env.name) ||
	    session_enable(s, ev, filter))
		return NULL;
	struct evinfo *ei = &evinfo[nevinfo++];
	ei->role = role;
	ei->call = call;
	ei->creat = call && !strcmp(call, "creat");
	ei->file = tep_find_field(ev, "file");
	ei->flags = tep_find_field(ev, "flags");
	ei->mode = tep_find_field(ev, "mode");
	ei->comm = tep_find_field(ev, "comm");
	ei->ret = tep_find_field(ev, "ret");
	ei->ev = ev;
	return ei;
}

/* The tracepoint syscalls:sys_<dir>_<call>, or NULL. */
static struct tep_event *syscall_event(struct session *s, const char *dir, const char *call)
{
	char name[64];
	snprintf(name, sizeof(name), "sys_%s_%s", dir, call);
	return tep_find_event_by_name(s->tep, "syscalls", name);
}

/* kprobes: the path as the kernel copied it from user space. do_filp_open() gets it first
 * (struct filename, name at offset 0); getname() returns it on kernels where that is not
 * probeable. */
static int via_kprobe(struct session *s)
{
	static const struct {
		char type;
		const char *func, *args;
	} name_probes[] = {
		{'p', "do_filp_open", "file=+0(+0($arg2)):string comm=$comm"},
		{'r', "getname", "file=+0(+0($retval)):string comm=$comm"},
	};
	st.why = "no kprobes (CONFIG_KPROBE_EVENTS) in this kernel";
	if (!probe_available(s, PROBE_KPROBE, true))
		return -1;
	for (size_t i = 0; i < sizeof(name_probes) / sizeof(name_probes[0]); i++) {
		struct tep_event *ev = probe_try(s, PROBE_KPROBE, name_probes[i].type, "path",
						 name_probes[i].func, name_probes[i].args);
		if (!ev)
			continue;
		for (int c = 0; c < NCALLS; c++) {
			struct tep_event *enter = syscall_event(s, "enter", calls[c]);
			if (enter && !add_event(s, enter, ENTER, calls[c]))
				return -2;
		}
		if (!add_event(s, ev, NAME, NULL))
			return -2;
		snprintf(st.what, sizeof(st.what), "kprobes (%s)", name_probes[i].func);
		return 0;
	}
	st.why = "neither do_filp_open() nor getname() can be probed in this kernel";
	return -1;
}

/* Event probes on the syscall entries, reading the path from user memory. On Debian's 6.1
 * and 6.12 every path reads "(fault)" (whatever the fetch syntax): kprobes come first. $comm
 * must be typed here: untyped, an eprobe records the address of the name. */
static int via_eprobe(struct session *s)
{
	static const char *const args[NCALLS] = {
		"file=+0($filename):ustring flags=$flags:u64 mode=$mode:u64 comm=$comm:string",
		"file=+0($filename):ustring flags=$flags:u64 mode=$mode:u64 comm=$comm:string",
		"file=+0($filename):ustring flags=+u0($how):u64 mode=+u8($how):u64 comm=$comm:string",
		"file=+0($pathname):ustring mode=$mode:u64 comm=$comm:string",
	};
	st.why = "no event probes on syscall tracepoints (CONFIG_EPROBE_EVENTS) in this kernel";
	if (!probe_available(s, PROBE_EPROBE, true))
		return -1;
	int n = 0;
	for (int c = 0; c < NCALLS; c++) {
		if (!syscall_event(s, "enter", calls[c]))
			continue;
		char target[64];
		snprintf(target, sizeof(target), "syscalls.sys_enter_%s", calls[c]);
		struct tep_event *ev = probe_try(s, PROBE_EPROBE, 'e', calls[c], target, args[c]);
		if (!ev && n == 0)
			return -1; /* no eprobes in this kernel (CONFIG_EPROBE_EVENTS) */
		if (!ev || !add_event(s, ev, ENTER, calls[c]))
			return -2;
		n++;
	}
	snprintf(st.what, sizeof(st.what), "event probes on syscalls:sys_enter_open*");
	return n ? 0 : -1;
}

/* uprobes on the C library's open functions: programs that make the system call without
 * the C library are not seen. The argument registers are the ABI's. */
#if defined(__x86_64__)
#define R1 "%di"
#define R2 "%si"
#define R3 "%dx"
#define R4 "%cx"
#elif defined(__aarch64__)
#define R1 "%x0"
#define R2 "%x1"
#define R3 "%x2"
#define R4 "%x3"
#endif

static int via_uprobe(struct session *s)
{
#ifdef R1
	static const char a_open[] = "file=+0(" R1 "):string flags=" R2 ":u64 mode=" R3 ":u64 comm=$comm";
	static const char a_open2[] = "file=+0(" R1 "):string flags=" R2 ":u64 comm=$comm";
	static const char a_openat[] = "file=+0(" R2 "):string flags=" R3 ":u64 mode=" R4 ":u64 comm=$comm";
	static const char a_openat2[] = "file=+0(" R2 "):string flags=" R3 ":u64 comm=$comm";
	static const char a_creat[] = "file=+0(" R1 "):string mode=" R2 ":u64 comm=$comm";
	/* Aliases share an address and get one probe: the first name listed. */
	static const struct {
		const char *sym, *args;
	} funcs[] = {
		{"open64", a_open},	      {"open", a_open},
		{"__open64", a_open},	      {"__open", a_open},
		{"__open64_nocancel", a_open}, {"__open_nocancel", a_open},
		{"__open64_2", a_open2},      {"__open_2", a_open2},
		{"openat64", a_openat},       {"openat", a_openat},
		{"__openat64_2", a_openat2},  {"__openat_2", a_openat2},
		{"creat64", a_creat},	      {"creat", a_creat},
	};
	char libc[PATH_MAX], why[256], target[PATH_MAX + 32];
	unsigned long long offs[sizeof(funcs) / sizeof(funcs[0])];
	int n = 0;
	st.why = "no uprobes (CONFIG_UPROBE_EVENTS) in this kernel";
	if (!probe_available(s, PROBE_UPROBE, true))
		return -1;
	st.why = "no shared C library found to probe (libc.so.6)";
	if (usym_target("libc", libc, sizeof(libc)))
		return -1;
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		unsigned long long off;
		if (usym_offset(libc, funcs[i].sym, false, &off, why, sizeof(why)))
			continue;
		bool dup = false;
		for (int j = 0; j < n; j++)
			dup |= offs[j] == off;
		if (dup)
			continue;
		offs[n++] = off;
		snprintf(target, sizeof(target), "%s:0x%llx", libc, off);
		struct tep_event *ev = probe_try(s, PROBE_UPROBE, 'p', funcs[i].sym, target,
						 funcs[i].args);
		if (!ev || !add_event(s, ev, ENTER, NULL))
			return -2;
		if (funcs[i].args == a_creat)
			evinfo[nevinfo - 1].creat = true;
	}
	st.why = "the C library has none of the open functions";
	if (!n)
		return -1;
	snprintf(st.what, sizeof(st.what), "uprobes on %d functions of %s", n, libc);
	return 0;
#else
	(void)s;
	st.why = "the argument registers of this architecture are not known to opensnoop";
	return -1;
#endif
}

static int setup(struct session *s)
{
	static int (*const via_fn[])(struct session *) = {via_kprobe, via_eprobe, via_uprobe};
	if (!syscall_event(s, "exit", "openat")) {
		fprintf(stderr, "%s: tracepoint syscalls:sys_exit_openat not available in this kernel "
				"(CONFIG_FTRACE_SYSCALLS)\n", s->tool);
		return -1;
	}
	int ret = -1;
	if (env.via != VIA_BEST) {
		ret = via_fn[env.via](s);
		if (ret == -1)
			fprintf(stderr, "%s: --via %s: %s\n", s->tool, via_names[env.via], st.why);
	} else {
		for (env.via = 0; env.via < VIA_BEST; env.via++)
			if ((ret = via_fn[env.via](s)) != -1)
				break;
		if (ret == 0 && env.via == VIA_UPROBE)
			fprintf(stderr, "%s: no kprobes or event probes in this kernel "
					"(CONFIG_KPROBE_EVENTS, CONFIG_EPROBE_EVENTS): only "
					"programs that open files through the C library are seen\n",
				s->tool);
		if (ret == -1)
			fprintf(stderr, "%s: no way to read paths in this kernel: needs kprobes "
					"(CONFIG_KPROBE_EVENTS), event probes (CONFIG_EPROBE_EVENTS) "
					"or uprobes (CONFIG_UPROBE_EVENTS)\n", s->tool);
	}
	if (ret)
		return -1;
	st.via = env.via;
	for (int c = 0; c < NCALLS; c++) {
		struct tep_event *ex = syscall_event(s, "exit", calls[c]);
		if (ex && !add_event(s, ex, EXIT, calls[c]))
			return -1;
	}
	return 0;
}

/* --- per event ------------------------------------------------------------------------------- */

static void copy_str(char *dst, size_t size, const struct tep_record *rec,
		     const struct tep_format_field *f)
{
	size_t len = 0;
	const char *src = f ? reader_str(rec, f, &len) : "";
	len = strnlen(src, len);
	if (len >= size)
		len = size - 1;
	memcpy(dst, src, len);
	dst[len] = 0;
}

static void on_enter(struct tep_record *rec, const struct evinfo *ei, int tid)
{
	struct open_state *o = pair_put(&st.threads, (uint64_t)tid, 0);
	o->flags = ei->creat ? CREAT_FLAGS : ei->flags ? reader_num(rec, ei->flags) : -1;
	o->mode = ei->mode ? reader_num(rec, ei->mode) : -1;
	o->named = ei->file != NULL;
	copy_str(o->path, sizeof(o->path), rec, ei->file);
	copy_str(o->comm, sizeof(o->comm), rec, ei->comm);
}

static void on_name(struct tep_record *rec, const struct evinfo *ei, int tid)
{
	/* Only within an open: do_filp_open() also serves execve(), getname() most syscalls. */
	struct open_state *o = pair_get(&st.threads, (uint64_t)tid, 0);
	if (!o || o->named)
		return;
	o->named = true;
	copy_str(o->path, sizeof(o->path), rec, ei->file);
	copy_str(o->comm, sizeof(o->comm), rec, ei->comm);
}

static bool path_matches(const char *path)
{
	if (!env.pattern)
		return true;
	return env.glob ? fnmatch(env.pattern, path, 0) == 0 : strstr(path, env.pattern) != NULL;
}

static void print_open(const struct tep_record *rec, const struct open_state *o, int tid,
		       const char *call, long long ret)
{
	int fd = ret >= 0 ? (int)ret : -1, err = ret < 0 ? (int)-ret : 0;
	/* An eprobe that cannot read user memory records "" (6.1) or "(fault)" (6.12). */
	bool known = o->named && o->path[0] && strcmp(o->path, "(fault)");
	const char *path = known ? o->path : "[unknown]";
	if ((env.failed && ret >= 0) || !path_matches(path))
		return;
	const char *comm = o->comm[0] ? o->comm : comm_get(st.names, tid);
	/* The mode is an argument only when a file may be created. */
	long long mode = o->flags >= 0 && !(o->flags & (O_CREAT_ | O_TMPFILE_)) ? 0 : o->mode;
	char when[16];
	if (env.json) {
		printf("{\"time\":\"%s\",\"ts\":%.6f,\"pid\":%d,\"comm\":", out_wallclock(rec->ts, when),
		       rec->ts / 1e9, tid);
		out_json_str(stdout, comm, 16);
		printf(",\"call\":\"%s\",\"fd\":%d,\"err\":%d,", call, fd, err);
		printf(o->flags >= 0 ? "\"flags\":%lld," : "\"flags\":null,", o->flags);
		printf(mode >= 0 ? "\"mode\":%lld,\"path\":" : "\"mode\":null,\"path\":", mode);
		if (known)
			out_json_str(stdout, o->path, sizeof(o->path));
		else
			fputs("null", stdout);
		fputs("}\n", stdout);
		return;
	}
	if (env.timestamp)
		printf("%-14.6f ", rec->ts / 1e9);
	if (env.wallclock)
		printf("%-8s ", out_wallclock(rec->ts, when));
	out_text(stdout, comm, 16, 16);
	printf(" %7d %4d %3d ", tid, fd, err);
	if (env.extended) {
		if (o->flags >= 0)
			printf("%08llo ", o->flags);
		else
			printf("%8s ", "-");
		if (mode >= 0)
			printf("%04llo ", mode);
		else
			printf("%4s ", "-");
	}
	out_text(stdout, path, sizeof(o->path), 0);
	putchar('\n');
}

static void on_event(struct tep_record *rec, void *ctx)
{
	const struct evinfo *ei = ctx;
	int tid = tep_data_pid(st.tep, rec);
	if (ei->role == ENTER) {
		on_enter(rec, ei, tid);
	} else if (ei->role == NAME) {
		on_name(rec, ei, tid);
	} else {
		struct open_state *o = pair_get(&st.threads, (uint64_t)tid, 0);
		if (!o) {
			st.unpaired++; /* began before tracing, after lost events, or not via libc */
			return;
		}
		print_open(rec, o, tid, ei->call, reader_num(rec, ei->ret));
		pair_del(&st.threads, o);
	}
}

/* Lost events: an entry may be gone, and a path must never be attached to the wrong open. */
static void on_lost(int cpu, long long n, void *ctx)
{
	(void)cpu;
	(void)n;
	(void)ctx;
	pair_clear(&st.threads);
}

static void print_header(void)
{
	if (env.json)
		return;
	if (env.timestamp)
		printf("%-14s ", "TIME(s)");
	if (env.wallclock)
		printf("%-8s ", "TIME");
	printf("%-16s %7s %4s %3s ", "COMM", "PID", "FD", "ERR");
	if (env.extended)
		printf("%-8s %-4s ", "FLAGS", "MODE");
	printf("PATH\n");
}

int main(int argc, char **argv)
{
	opt_init(argv[0]);
	parse_args(argc, argv);
	const char *systems[2 * NCALLS + 1];
	char names[2 * NCALLS][48];
	for (int i = 0; i < 2 * NCALLS; i++) {
		snprintf(names[i], sizeof(names[i]), "syscalls:sys_%s_%s", i < NCALLS ? "enter" : "exit",
			 calls[i % NCALLS]);
		systems[i] = names[i];
	}
	systems[2 * NCALLS] = NULL;
	struct session s = {0};
	struct reader r;
	int ret = 1;
	if (pair_init(&st.threads, 1024, sizeof(struct open_state)) ||
	    session_init(&s, opt_tool, systems) || session_start(&s, 0) ||
	    /* before any event is enabled: on 6.12, events enabled first were not filtered */
	    session_set_pids(&s, env.pid, env.tid) || session_exclude_self(&s) ||
	    !(st.names = comm_follow(&s)) || setup(&s) || reader_open_session(&r, &s, true) ||
	    comm_attach(st.names, &r))
		goto out;
	st.tep = s.tep;
	for (int i = 0; i < nevinfo; i++)
		if (reader_on(&r, evinfo[i].ev, on_event, &evinfo[i]))
			goto out;
	out_init();
	out_clock_init();
	fprintf(stderr, "Tracing open()s via %s. Ctrl-C to end.\n", st.what);
	print_header();
	reader_on_lost(&r, on_lost, NULL);
	ret = reader_run(&r, env.duration, 0, NULL, NULL, out_flush) ? 1 : 0;
	out_flush();
	if (st.via == VIA_UPROBE && st.unpaired && !out_closed())
		fprintf(stderr, "%s: %llu opens without the C library's open functions were not "
				"shown\n", opt_tool, st.unpaired);
out:
	session_close(&s);
	comm_free(st.names);
	pair_free(&st.threads);
	return ret;
}
