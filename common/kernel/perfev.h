/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perfev: sampling through the kernel's perf_event_open(2) interface, without the perf tool
 * or BPF: one event per CPU (for every task, a task and what it starts, or a cgroup's), each
 * with its mmap'd ring buffer read here (data_head with acquire, data_tail with release),
 * the records handed one by one to the caller; PERF_RECORD_LOST and THROTTLE/UNTHROTTLE
 * counted for the report at the end. The parsing of samples and of their call chains is
 * pure (no kernel) and unit-tested.
 */
#ifndef FTT_PERFEV_H
#define FTT_PERFEV_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PERFEV_MAX_STACK 127 /* the kernel's default perf_event_max_stack */

struct perfev_ring {
	int fd, cpu;
	void *base;	  /* the metadata page, then the data */
	size_t data_size; /* a power of two */
};

struct perfev {
	struct perfev_ring *ring;
	int n;
	int *more; /* events writing into the ring of their CPU (other threads: SET_OUTPUT) */
	int nmore;
	size_t pages; /* data pages per ring */
	uint64_t sample_type;
	uint64_t records, lost, lost_records, throttled, unthrottled, bad;
	char *scratch; /* a record that wraps the buffer's end, made whole */
};

/*
 * Can perf events be opened here? A cpu-clock event of this task is opened and closed. Returns
 * 0, or -1 with what is missing in why, len bytes (CONFIG_PERF_EVENTS, perf_event_paranoid or
 * CAP_PERFMON).
 */
int perfev_check(char *why, size_t len);

/* Fill in a (cleared first) with the cpu-clock sampling attributes: freq HZ (hz > 0) or every
 * period ns; kernel/user: which parts of the call chain; max_stack: frames (0: the kernel's
 * default). The event starts disabled, its sample_type IP, TID, TIME, CPU, PERIOD and
 * CALLCHAIN, its reader woken every 16 KiB. */
void perfev_cpu_clock(struct perf_event_attr *a, unsigned hz, uint64_t period, bool kernel,
		      bool user, unsigned max_stack);

/*
 * Open attr into p (cleared first) on each CPU (cpu < 0: every online one; a CPU that goes
 * offline meanwhile is left out) for pid (-1: every task; with cgroup_fd >= 0: that cgroup's
 * tasks) with a ring of pages data pages each, disabled (perfev_enable starts them).
 * A kernel that does not know sample_max_stack (before 4.8: E2BIG) is asked again without
 * it (attr->sample_max_stack is then 0). Returns 0, or -1 with the reason in why (len bytes),
 * what was opened kept in p. Frees: perfev_close(p), after a failure too.
 */
int perfev_open(struct perfev *p, struct perf_event_attr *attr, pid_t pid, int cpu, int cgroup_fd,
		size_t pages, char *why, size_t len);
/*
 * After perfev_open of p for a process's PID, pid: its other threads now, each with an event
 * of attr per CPU writing into that CPU's ring (PERF_EVENT_IOC_SET_OUTPUT): inherit follows
 * only the threads made after the open. A thread gone meanwhile is left out. Returns how many
 * threads were added, or -1 with the reason in why, len bytes (/proc/PID/task that cannot be
 * read, too).
 */
int perfev_add_threads(struct perfev *p, struct perf_event_attr *attr, pid_t pid, char *why,
		       size_t len);
/* The same for another process, pid, its first thread too: each of its threads now, an event
 * of attr writing into the rings of the events perfev_open made in p (profile -p PID,PID).
 * Returns how many threads were added (0: the process went while its threads were read), or
 * -1 with the reason in why, len bytes (a process gone before: /proc/PID/task cannot be
 * read). */
int perfev_add_process(struct perfev *p, struct perf_event_attr *attr, pid_t pid, char *why,
		       size_t len);
/*
 * After perfev_open: one more event, attr for pid (a thread or, with attr->inherit, what it
 * starts), on each CPU of p writing into that CPU's ring (PERF_EVENT_IOC_SET_OUTPUT), so
 * that several events come in one time-ordered stream per CPU. Their sample_type must be
 * p's. Returns 0 (pid gone: 0 too, nothing more added; those of CPUs before stay), or -1 with
 * the reason in why, len bytes (the events of CPUs before kept in p).
 */
int perfev_add(struct perfev *p, struct perf_event_attr *attr, pid_t pid, char *why, size_t len);
/* Start sampling: every event of p enabled (those perfev_add made without a check). Returns 0,
 * or -1 with the CPU whose event could not be in why, len bytes (those before it are on). */
int perfev_enable(struct perfev *p, char *why, size_t len);
/* Stop sampling in p (what is in the rings stays to be read). */
void perfev_disable(struct perfev *p);
/* Close every event of p, unmap its rings and free what it holds; p is left empty (closed
 * again, nothing happens). */
void perfev_close(struct perfev *p);

/* A record: its header and its body (len bytes after the header). */
typedef void (*perfev_fn)(const struct perf_event_header *h, const void *body, size_t len,
			  void *ctx);

/*
 * Hand every record of a ring's data (size a power of two) from *tail up to head to fn(h,
 * body, len, ctx) (body valid during the call only); a record across the data's end is copied
 * whole into p's scratch (64 KiB) first. LOST, THROTTLE and UNTHROTTLE are counted in p and
 * handed to fn too. Advances *tail. Returns the records read. A header smaller than itself or
 * past head ends the read, and more than size between *tail and head reads nothing: each
 * counted in p->bad, *tail moved to head (what was left there skipped).
 */
size_t perfev_ring_read(struct perfev *p, const char *data, size_t size, uint64_t head,
			uint64_t *tail, perfev_fn fn, void *ctx);

/* Hand every new record of each ring of p to fn(h, body, len, ctx), as perfev_ring_read, the
 * kernel told what was read (data_tail). Returns how many. */
size_t perfev_drain(struct perfev *p, perfev_fn fn, void *ctx);

/*
 * The records of several rings (one event's CPUs, or more events) in time order: each CPU's
 * ring is in order, but a task's records on two CPUs (a block allocated on one and freed on
 * another, an exec on one and its samples on the next) are in order only once merged.
 * perfev_batch_add copies every new record of p's rings (tagged src, for the caller);
 * perfev_batch_run sorts them by time (then arrival) and hands to fn those at or before
 * until, keeping the later ones for the next run (a record of another CPU may still be on
 * its way: until = now less a margin; UINT64_MAX at the end).
 */
struct perfev_held {
	uint64_t time, seq;
	size_t at; /* in the blob: the header, then the body */
	int src;
};
struct perfev_batch {
	struct perfev_held *h, *tmp; /* tmp: where a sort merges (cap too) */
	size_t n, cap, tmp_cap;
	char *blob;
	size_t used, size;
	uint64_t seq;
	bool oom; /* a record could not be kept (said by the caller, then cleared) */
};
typedef void (*perfev_batch_fn)(const struct perf_event_header *h, const void *body, size_t len,
				uint64_t time, int src, void *ctx);
/* Keep one record in b (zeroed before its first use): its header h and body (len bytes)
 * copied, with its time and src (what perfev_batch_add does for each). Out of memory, it is
 * dropped and b->oom set. */
void perfev_batch_keep(struct perfev_batch *b, const struct perf_event_header *h, const void *body,
		       size_t len, uint64_t time, int src);
/* Copy every new record of the rings of p into b, tagged src, each with its time
 * (perfev_time by p's sample_type). */
void perfev_batch_add(struct perfev_batch *b, struct perfev *p, int src);
/* Sort the records of b by time (then arrival) and hand those at or before until to fn(h,
 * body, len, time, src, ctx) (h and body valid during the call only), keeping the later ones
 * for the next run (out of memory, they are dropped and b->oom set). Returns how many records
 * were handed to fn. */
size_t perfev_batch_run(struct perfev_batch *b, uint64_t until, perfev_batch_fn fn, void *ctx);
/* Free what b holds and zero it. */
void perfev_batch_free(struct perfev_batch *b);

struct perfev_sample {
	uint64_t ip;
	uint32_t pid, tid, cpu;
	uint64_t time, period;
	uint64_t nr; /* call chain entries, markers included */
	const uint64_t *chain;
	uint32_t raw_size; /* PERF_SAMPLE_RAW: a tracepoint's record as ftrace writes it */
	const void *raw;
};

/* Read into s (cleared first) a PERF_RECORD_SAMPLE's body (len bytes) as sample_type says (IP,
 * TID, TIME, CPU, PERIOD, CALLCHAIN, RAW in the kernel's order; IDENTIFIER, ADDR, ID and
 * STREAM_ID skipped); s->chain and s->raw point into body, valid as long as it is. Returns 0,
 * or -1 when it is shorter than that, or sample_type has READ (not read here). */
int perfev_sample(const void *body, size_t len, uint64_t sample_type, struct perfev_sample *s);

/* The time of a record (h, then body: len bytes): a sample's, or with attr.sample_id_all
 * (3.0+) the one at the end of any other record, as sample_type lays it out. Returns it, or 0
 * when sample_type has no TIME or the record is too short; a record without a sample_id
 * (attr.sample_id_all off) cannot be told: the bytes where it would be are returned. */
uint64_t perfev_time(const struct perf_event_header *h, const void *body, size_t len,
		     uint64_t sample_type);

/*
 * A task coming back onto a CPU: a PERF_RECORD_SWITCH or PERF_RECORD_SWITCH_CPU_WIDE record
 * (h, then body: len bytes; attr.context_switch, 4.3+) without PERF_RECORD_MISC_SWITCH_OUT.
 * Its task is the one of the sample_id at its end (attr.sample_id_all with PERF_SAMPLE_TID in
 * type): the task switching in, in both kinds. Returns its tid, or -1 for any other record (a
 * switch out, too short, no TID in the sample_id).
 */
int64_t perfev_switch_in(const struct perf_event_header *h, const void *body, size_t len,
			 uint64_t type);

/*
 * Split chain, a call chain of nr entries, at its context markers (PERF_CONTEXT_KERNEL,
 * _USER, ...): kernel frames into k (at most kmax, *nk of them), user frames into u (at most
 * umax, *nu), each leaf first; frames of other contexts (hypervisor, guest), and any before
 * the first marker, left out. Returns *nk + *nu.
 */
int perfev_chain_split(const uint64_t *chain, uint64_t nr, uint64_t *k, int *nk, int kmax,
		       uint64_t *u, int *nu, int umax);

/* Say what p counted at the end, on stderr under tool, the tool's name: samples lost, throttles
 * and malformed ring positions, a line each (nothing when there was none). */
void perfev_report(const struct perfev *p, const char *tool);

/* Read the frames a call chain may have. Returns /proc/sys/kernel/perf_event_max_stack, or 127
 * when it cannot be read (before 4.8). */
unsigned perfev_max_stack(void);

#endif
