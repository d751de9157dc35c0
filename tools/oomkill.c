// SPDX-License-Identifier: GPL-2.0-only
/*
 * oomkill: each OOM kill, one line: the victim (PID and name), the task whose allocation
 * triggered it, the page counts the kernel gives, the memory cgroup whose limit was hit
 * and the load average then, as bcc's oomkill shows it.
 *
 * The victim comes from oom:mark_victim (Linux 4.13; its name, memory and user from 6.9);
 * where there are kprobes, one on oom_kill_process() adds the pages the OOM killer weighed
 * the victim against (the machine's memory or the cgroup's limit: bcc's "pages") and the
 * victim's badness points, and before 4.13 the victim is the process the same task then
 * sends SIGKILL (signal:signal_generate). The memory cgroup is the one the kernel names in
 * its own report of the kill ("oom-kill:...oom_memcg=", Linux 4.19), read from /dev/kmsg.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <event-parse.h>

#include "base/pair.h"
#include "kernel/probe.h"
#include "base/row.h"
#include "tool.h"

#define KMSG_KEEP 16 /* the kernel's reports of kills not yet matched to an event */

/* What the kprobe on oom_kill_process() read, for the victim its task marks next. */
struct chosen {
	long long pages, points;
};

/* The kernel's own report of a kill: the victim's PID and the memory cgroup it names. */
struct report {
	int pid;
	char memcg[1024]; /* a kernel log record holds at most about 1 KB */
};

static struct env {
	struct tool_run *t;
	struct row row;
	struct pair_table chosen; /* tid -> struct chosen */
	/* oom:mark_victim and its fields (comm... NULL before 6.9), the kprobe, and the
	 * SIGKILLs that name the victim before 4.13. */
	struct tep_event *victim_ev, *kprobe_ev, *signal_ev;
	struct tep_format_field *pid, *comm, *total_vm, *anon_rss, *file_rss, *shmem_rss, *uid,
		*pgtables, *score_adj;
	struct tep_format_field *pages, *points, *sig_pid, *sig_comm;
	int kmsg;
	struct report reports[KMSG_KEEP];
	int nreports;
} env = {.kmsg = -1};

static const struct row_col cols[] = {
	ROW_COL_TS,
	{"TIME", "time", -8, ROW_WALL, 0, 0, "wall-clock HH:MM:SS"},
	{"TPID", "trigger_pid", 7, ROW_INT, 0, 0,
	 "the task whose allocation triggered the OOM killer (thread ID)"},
	{"TCOMM", "trigger_comm", -16, ROW_STR, 0, 0, "its name then"},
	{"PID", "pid", 7, ROW_INT, 0, 0, "the victim, killed"},
	{"COMM", "comm", -16, ROW_STR, 0, 0, "its name then"},
	{NULL, "uid", 0, ROW_INT, 0, ROW_NOTEXT, "the victim's user ID (Linux 6.9)"},
	{"PAGES", "pages", 9, ROW_INT, 0, 0,
	 "the pages the victim was weighed against: the memory of the machine or the limit of "
	 "the cgroup, in pages (kprobes)"},
	{NULL, "points", 0, ROW_INT, 0, ROW_NOTEXT, "the victim's badness, in pages (kprobes)"},
	{"RSS_KB", "rss_kb", 9, ROW_INT, 0, 0,
	 "the victim's resident memory, anon + file + shmem, KB (Linux 6.9)"},
	{NULL, "total_vm_kb", 0, ROW_INT, 0, ROW_NOTEXT, "its virtual memory, KB (Linux 6.9)"},
	{NULL, "anon_rss_kb", 0, ROW_INT, 0, ROW_NOTEXT,
	 "its resident anonymous memory, KB (Linux 6.9)"},
	{NULL, "file_rss_kb", 0, ROW_INT, 0, ROW_NOTEXT, "its resident file pages, KB (Linux 6.9)"},
	{NULL, "shmem_rss_kb", 0, ROW_INT, 0, ROW_NOTEXT,
	 "its resident shared memory, KB (Linux 6.9)"},
	{NULL, "pgtables_kb", 0, ROW_INT, 0, ROW_NOTEXT, "its page tables, KB (Linux 6.9)"},
	{NULL, "oom_score_adj", 0, ROW_INT, 0, ROW_NOTEXT, "its oom_score_adj (Linux 6.9)"},
	{"MEMCG", "memcg", -16, ROW_STR, 0, 0,
	 "the memory cgroup whose limit was hit, as the kernel's report names it (Linux 4.19; "
	 "none: the whole machine was out of memory, or no report)"},
	{"LOADAVG", "loadavg", 0, ROW_TEXT, 0, 0, "/proc/loadavg when the kill was read"},
};
static const struct row_table table = ROW_TABLE("each OOM kill", cols);

static const struct opt_spec options[] = {
	TOOL_DURATION, TOOL_JSON("one JSON object per kill"), TOOL_TIMESTAMP, TOOL_JSON_KEYS,
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"oomkill                   # each OOM kill, until Ctrl-C",
	"oomkill -t                # with trace-clock timestamps",
	"oomkill -j -d 3600 > k.json   # an hour of kills as JSON lines",
	NULL,
};

/* --- the kernel's report -------------------------------------------------------------------- */

/* /dev/kmsg writes bytes it will not show as \xNN: back to the bytes. */
static void unescape(char *s)
{
	char *o = s;
	for (char *p = s; *p; p++) {
		unsigned v;
		if (p[0] == '\\' && p[1] == 'x' && sscanf(p + 2, "%2x", &v) == 1 && p[2] && p[3]) {
			*o++ = (char)v;
			p += 3;
		} else {
			*o++ = *p;
		}
	}
	*o = 0;
}

/* "oom-kill:constraint=...,oom_memcg=/a,task_memcg=/a/b,task=NAME,pid=N,uid=N": the PID
 * from the end (a name may hold commas), the cgroup up to ",task_memcg=". */
static void parse_report(char *msg)
{
	char *kill = strstr(msg, "oom-kill:");
	char *pid = kill ? strstr(kill, ",pid=") : NULL,
	     *memcg = kill ? strstr(kill, ",oom_memcg=") : NULL;
	for (char *p = pid; p && (p = strstr(p + 1, ",pid="));)
		pid = p;
	if (!pid || !memcg)
		return;
	memcg += strlen(",oom_memcg=");
	char *memcg_end = strstr(memcg, ",task_memcg=");
	if (!memcg_end)
		return;
	*memcg_end = 0;
	struct report *r = &env.reports[env.nreports++ % KMSG_KEEP];
	r->pid = atoi(pid + 5);
	unescape(memcg);
	snprintf(r->memcg, sizeof(r->memcg), "%s", memcg);
}

/* Every record written since the last look (one per read); the kernel's report of a kill
 * comes before the kill itself. */
static void read_kmsg(void)
{
	char rec[8192];
	ssize_t n;
	while (env.kmsg >= 0 &&
	       ((n = read(env.kmsg, rec, sizeof(rec) - 1)) > 0 || errno == EPIPE)) {
		if (n <= 0)
			continue; /* EPIPE: records were overwritten before they were read */
		rec[n] = 0;
		char *msg = strchr(rec, ';'), *nl = msg ? strchr(msg, '\n') : NULL;
		if (nl)
			*nl = 0;
		if (msg)
			parse_report(msg + 1);
	}
}

static const char *memcg_of(int pid)
{
	read_kmsg();
	for (int i = 0; i < KMSG_KEEP && i < env.nreports; i++) {
		struct report *r = &env.reports[(env.nreports - 1 - i) % KMSG_KEEP];
		if (r->pid == pid) {
			r->pid = 0; /* used */
			return r->memcg;
		}
	}
	return NULL;
}

/* --- per event ------------------------------------------------------------------------------ */

static void num_or_none(const struct tep_record *rec, const struct tep_format_field *f)
{
	if (f)
		row_int(&env.row, reader_num(rec, f));
	else
		row_none(&env.row);
}

/* A victim: from mark_victim (marked: its fields are there), or before 4.13 from a
 * SIGKILL. */
static void print_kill(struct tep_record *rec, bool marked, int victim, const char *name,
		       size_t name_len)
{
	struct tool_run *t = env.t;
	int tid = tep_data_pid(t->s.tep, rec);
	struct chosen *c = pair_get(&env.chosen, (uint64_t)tid, 0);
	char load[128] = "";
	int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, load, sizeof(load) - 1) : -1;
	if (fd >= 0)
		close(fd);
	load[n > 0 ? n : 0] = 0;
	load[strcspn(load, "\n")] = 0;
	const char *memcg = memcg_of(victim);
	row_begin(&env.row, rec->ts);
	row_int(&env.row, tid);
	row_str(&env.row, tool_comm(t, tid), 16);
	row_int(&env.row, victim);
	row_str(&env.row, name, name_len);
	num_or_none(rec, marked ? env.uid : NULL);
	if (c) {
		row_int(&env.row, c->pages);
		row_int(&env.row, c->points);
	} else {
		row_none(&env.row);
		row_none(&env.row);
	}
	if (marked && env.anon_rss && env.file_rss && env.shmem_rss)
		row_int(&env.row, reader_num(rec, env.anon_rss) + reader_num(rec, env.file_rss) +
					  reader_num(rec, env.shmem_rss));
	else
		row_none(&env.row);
	num_or_none(rec, marked ? env.total_vm : NULL);
	num_or_none(rec, marked ? env.anon_rss : NULL);
	num_or_none(rec, marked ? env.file_rss : NULL);
	num_or_none(rec, marked ? env.shmem_rss : NULL);
	num_or_none(rec, marked ? env.pgtables : NULL);
	num_or_none(rec, marked ? env.score_adj : NULL);
	if (memcg)
		row_str(&env.row, memcg, sizeof(((struct report *)0)->memcg));
	else
		row_none(&env.row);
	row_str(&env.row, load, sizeof(load));
	row_end(&env.row);
	if (c)
		pair_del(&env.chosen, c);
}

static void on_victim(struct tep_record *rec, void *ctx)
{
	int victim = (int)reader_num(rec, env.pid);
	if (env.comm) {
		size_t len = 0;
		const char *name = reader_str(rec, env.comm, &len);
		print_kill(rec, true, victim, name ? name : "", name ? len : 0);
	} else {
		print_kill(rec, true, victim, tool_comm(env.t, victim), 16);
	}
}

static void on_chosen(struct tep_record *rec, void *ctx)
{
	int tid = reader_pid(rec);
	struct chosen *c = pair_put(&env.chosen, (uint64_t)tid, 0);
	c->pages = reader_num(rec, env.pages);
	c->points = reader_num(rec, env.points);
}

/* Before 4.13: the SIGKILL a task sends after the kprobe names the victim. */
static void on_signal(struct tep_record *rec, void *ctx)
{
	int tid = reader_pid(rec);
	if (!pair_get(&env.chosen, (uint64_t)tid, 0))
		return;
	size_t len = 0;
	const char *name = reader_str(rec, env.sig_comm, &len);
	print_kill(rec, false, (int)reader_num(rec, env.sig_pid), name ? name : "", name ? len : 0);
}

/* --- setup ---------------------------------------------------------------------------------- */

/* oom_kill_process(oc, message) from Linux 4.10: the pages and points in struct
 * oom_control (totalpages at 32, chosen_points at 48 on 64-bit: the layout has not changed
 * since); before, its arguments (oc, victim, points, totalpages, ...). */
static bool old_signature(void)
{
	struct utsname u;
	int major = 0, minor = 0;
	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return false;
	return major < 4 || (major == 4 && minor < 10);
}

static enum tool_code prepare(struct tool_run *t)
{
	env.t = t;
	env.victim_ev = session_event(&t->s, "oom", "mark_victim", false);
	if (env.victim_ev) {
		env.pid = tep_find_field(env.victim_ev, "pid");
		env.comm = tep_find_field(env.victim_ev, "comm");
		env.total_vm = tep_find_field(env.victim_ev, "total_vm");
		env.anon_rss = tep_find_field(env.victim_ev, "anon_rss");
		env.file_rss = tep_find_field(env.victim_ev, "file_rss");
		env.shmem_rss = tep_find_field(env.victim_ev, "shmem_rss");
		env.uid = tep_find_field(env.victim_ev, "uid");
		env.pgtables = tep_find_field(env.victim_ev, "pgtables");
		env.score_adj = tep_find_field(env.victim_ev, "oom_score_adj");
		if (!env.pid)
			env.victim_ev = NULL;
	}
	bool kprobes = probe_available(&t->s, PROBE_KPROBE, true);
	if (!env.victim_ev && !kprobes) {
		fprintf(stderr,
			"oomkill: needs the tracepoint oom:mark_victim (Linux 4.13) or kprobes "
			"(CONFIG_KPROBE_EVENTS), and this kernel has neither\n");
		return TOOL_FAIL;
	}
	if (pair_init(&env.chosen, 64, sizeof(struct chosen)))
		return TOOL_FAIL;
	/* Only new records: the kernel's reports of kills before this run are not ours. */
	env.kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (env.kmsg >= 0)
		lseek(env.kmsg, 0, SEEK_END);
	return TOOL_OK;
}

static enum tool_code setup(struct tool_run *t)
{
	int ret;
	if (probe_available(&t->s, PROBE_KPROBE, true)) {
		const char *args = old_signature() ? "pages=$arg4:s64 points=$arg3:u32" :
						     "pages=+32($arg1):s64 points=+48($arg1):s64";
		env.kprobe_ev = probe_try(&t->s, PROBE_KPROBE, 'p', "oom_kill_process",
					  "oom_kill_process", args);
		if (env.kprobe_ev) {
			env.pages = tep_find_field(env.kprobe_ev, "pages");
			env.points = tep_find_field(env.kprobe_ev, "points");
			if ((ret = tool_trace(t, env.kprobe_ev, NULL, on_chosen, NULL)))
				return ret;
		}
	}
	if (!env.victim_ev && !env.kprobe_ev) {
		fprintf(stderr, "oomkill: no oom:mark_victim (Linux 4.13) and oom_kill_process() "
				"cannot be probed in this kernel\n");
		return TOOL_FAIL;
	}
	if (env.victim_ev)
		return tool_trace(t, env.victim_ev, NULL, on_victim, NULL);
	env.signal_ev = session_event(&t->s, "signal", "signal_generate", false);
	env.sig_pid = env.signal_ev ? tep_find_field(env.signal_ev, "pid") : NULL;
	env.sig_comm = env.signal_ev ? tep_find_field(env.signal_ev, "comm") : NULL;
	if (!env.sig_pid || !env.sig_comm) {
		fprintf(stderr, "oomkill: no oom:mark_victim (Linux 4.13) nor "
				"signal:signal_generate to name the victim in this kernel\n");
		return TOOL_FAIL;
	}
	return tool_trace(t, env.signal_ev, "sig == 9", on_signal, NULL);
}

static void banner(struct tool_run *t)
{
	fprintf(stderr, "Tracing OOM kills (%s%s%s). Ctrl-C to end.\n",
		env.victim_ev ? "oom:mark_victim" : "signal:signal_generate",
		env.kprobe_ev ? ", kprobe on " : "", env.kprobe_ev ? "oom_kill_process" : "");
	if (!env.kprobe_ev)
		fprintf(stderr, "oomkill: no kprobes in this kernel (CONFIG_KPROBE_EVENTS): PAGES "
				"unknown (-)\n");
}

static void cleanup(struct tool_run *t)
{
	pair_free(&env.chosen);
	if (env.kmsg >= 0)
		close(env.kmsg);
}

static const struct tool oomkill = {
	.name = "oomkill",
	.no_cgroup = true,
	.opts = options,
	.operand_kind = TOOL_OPERAND_DURATION,
	.examples = examples,
	.formats = (const char *const[]){"oom:mark_victim", "signal:signal_generate", NULL},
	.rows = (const struct row_table *const[]){&table, NULL},
	.prepare = prepare,
	.setup = setup,
	.banner = banner,
	.table = &table,
	.row = &env.row,
	.cleanup = cleanup,
};

int main(int argc, char **argv)
{
	return tool_main(&oomkill, argc, argv);
}
