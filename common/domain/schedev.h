/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * schedev: the scheduler's events as runqlat, runqslower, cpudist and offcputime read them.
 * sched:sched_switch (the task leaving the CPU, its state, the task coming in), and the
 * wake-ups sched:sched_wakeup and sched:sched_wakeup_new (a task made runnable).
 *
 * sched_switch's prev_state is encoded differently by kernel: the sleeping states are bits
 * (S 0x1, D 0x2, ...), and a task switched out while still runnable has none of them, with
 * a bit of its own when it was preempted (printed "R+"): 0x100 from Linux 4.14 on, 0x1000
 * (TASK_STATE_MAX) in 4.9. Which bits mean "not runnable" is read here from the kernel's own
 * print format: each bit is rendered by libtraceevent as the kernel would print it, and the
 * bits that do not print as "R" are the sleeping ones.
 *
 * Some kernels record every state one bit too high (running 0x1, S 0x2, ..., I 0x100, the
 * same as a preemption): RHEL 8.1's 4.18 does, its format the same as a right one (the
 * upstream fix, "task_state_index() uses fls()", is in 4.14.y and 4.19.y stable). A
 * spinning task switched out for another then reads as sleeping. The idle task tells: it is
 * always running when it leaves its CPU, so its prev_state is 0, or 0x1 in such a kernel;
 * from the first such switch on, the bits are read one higher (an I sleeper then reads as
 * preempted: its wake-up replaces the start).
 *
 * The idle tasks are PID 0 on every CPU: they never wait for a CPU and one PID cannot tell
 * them apart, so the tools leave them out (as bcc does).
 */
#ifndef FTT_SCHEDEV_H
#define FTT_SCHEDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct session;
struct span;
struct span_kernel;
struct tool_run;
struct tep_handle;
struct tep_event;
struct tep_format_field;
struct tep_record;

/*
 * Each CPU's chain of sched_switch events: a switch there comes from the task the last one
 * switched to. This project's 6.18 development machine records no sched_switch out of some
 * tasks (the threads of its PID 1, "tokio-rt-worker", for bpftrace too; and at times, for
 * ftrace only, the idle task of one CPU, "swapper/1", every time), with no loss counted
 * anywhere: the next switch on that CPU then comes from another task. Each such break hides
 * one switch, and the times it ends or begins: the task switched out unseen (the CPU's last
 * one in) has its switch out, the task switched in unseen (the next switch's prev) its switch
 * in, at a time not known. Nothing else is unknown: each break is counted once, by the task
 * whose switch out went unseen, and said with the names of the first few, so that a user
 * can tell a kernel that never records some tasks' switches from lost data.
 *
 * A break is seen at the CPU's next recorded switch, or earlier by an event recorded on that
 * CPU by another task than its last one in (sched_chain_seen: a wake-up there of that task,
 * which then starts a wait whose both ends are known).
 *
 * Not where the run records only the switches of some tasks (-p, -L): there the chain has
 * gaps by design, and the tools keep only the traced tasks' times (sched_traced).
 */
struct sched_cpu {
	long long to; /* the task switched to last; SCHED_UNKNOWN, SCHED_BROKEN */
	char comm[16];
};
#define SCHED_UNKNOWN (-1)
#define SCHED_BROKEN (-2) /* left unseen, counted (sched_chain_seen) */

/* A task whose switch out was not recorded, and how many times. */
struct sched_unseen {
	long long pid;
	unsigned long long n;
	char comm[16];
};
#define SCHED_UNSEEN 8 /* tasks kept by name; the breaks of others are counted together */

struct sched_chain {
	bool off; /* the run records only some tasks' switches (-p, -L: set_event_pid) */
	int ncpus;
	struct sched_cpu *cpu;
	unsigned long long breaks;
	struct sched_unseen unseen[SCHED_UNSEEN];
	unsigned long long unseen_other; /* breaks of tasks past those kept */
};

struct sched_events {
	struct tep_event *sw, *wakeup, *wakeup_new;
	struct tep_format_field *prev_pid, *prev_state, *prev_comm, *next_pid, *next_comm;
	struct tep_format_field *wakeup_pid, *wakeup_new_pid;
	struct tep_format_field *wakeup_by, *wakeup_new_by; /* their common_pid */
	/* prev_state bits of a task that left the CPU to sleep (not runnable) */
	uint64_t sleeping;
	bool shifted;	   /* the states are recorded one bit too high (above) */
	struct span *runq; /* sched_runq_trace's */
	struct sched_chain chain;
	struct tool_run *t; /* -p, -L: the traced tasks (sched_traced) */
	/* sched_runq_kernel's filters */
	char runnable_filter[128], sleeping_filter[128], end_filter[96];
};

/*
 * Loads sched_switch (and with wakeups, sched_wakeup and sched_wakeup_new) into s, the
 * session, finds their fields and reads prev_state's encoding, into se (zeroed first).
 * Returns 0, or -1 with one line on stderr (tool's name first) naming what is missing.
 */
int sched_load(struct session *s, struct sched_events *se, bool wakeups);

/*
 * Reads the prev_state bits that mean "not runnable" into *bits, from sw's print format as
 * tep renders it. Returns 0, or -1 when the format does not print prev_state as a state
 * (then nothing can be said; nothing printed, *bits not to be used).
 */
int sched_sleeping_bits(struct tep_handle *tep, struct tep_event *sw, uint64_t *bits);

/* Was the task that left the CPU with prev_state still runnable (preempted, or yielding)?
 * Returns true when prev_state has none of the sleeping bits of se. */
static inline bool sched_runnable(const struct sched_events *se, long long prev_state)
{
	return !((uint64_t)prev_state & se->sleeping);
}

/* The idle task left a CPU with this prev_state: 0x1 (not 0) says the states are recorded
 * one bit too high (above), from now on; se's sleeping bits are shifted then, once. */
static inline void sched_idle_switch(struct sched_events *se, long long prev_state)
{
	if (prev_state == 1 && !se->shifted) {
		se->shifted = true;
		se->sleeping = se->sleeping << 1 & se->sleeping;
	}
}

/* Writes into buf (len bytes, cut when short) the kernel's filter of sched_switch for a
 * runnable (or, not, sleeping) prev task, by se's sleeping bits: "!(prev_state & 0xff)"
 * (Linux 4.17+'s filters). */
void sched_state_filter(const struct sched_events *se, bool runnable, char *buf, size_t len);

/* Follows in c, the chain, a switch on cpu from prev to next (named next_comm, len bytes at
 * most). Returns the task whose switch out the kernel did not record (the CPU's last one in,
 * when it is not prev; counted under its name; 0 for the idle task), or -1: none, or the
 * chain off (-p, -L), or no memory for the CPU (that switch unchecked). */
long long sched_chain_step(struct sched_chain *c, int cpu, long long prev, long long next,
			   const char *next_comm, size_t len);
/* Follows in c an event recorded on cpu by task pid (its common_pid) concerning task tid (a
 * wake-up of it): when tid is the CPU's last one in and pid another task, tid left that CPU
 * unseen (counted as a break, once). Returns tid then, whose start the tool forgets before
 * the event's own; else -1 (also with the chain off). Only tid is compared first: the cost
 * is a load and a compare per wake-up. */
long long sched_chain_seen(struct sched_chain *c, int cpu, long long tid, long long pid);
/* The reader's lost-event listener (reader_on_lost(r, sched_chain_lost, c); ctx: the chain):
 * a loss of n events on cpu breaks the chain of that CPU (of every CPU when cpu is negative;
 * n is not read) without a break said. */
void sched_chain_lost(int cpu, long long n, void *ctx);
/* One line on stderr, headed by tool, when switches were not recorded: the breaks of c with
 * the names of the tasks switched out unseen (the first three by count, then how many more),
 * and what the tool could not count (unknown: "the wait of the task switched in unseen"); or,
 * when per_task is more than the breaks, that count of a task switched out, or in, twice in a
 * row, which a tool that keeps each task's switches by thread counts as its span's replaced
 * starts. Nothing when both are 0. */
void sched_chain_report(const struct sched_chain *c, const char *tool, unsigned long long per_task,
			const char *unknown);
/* Frees the CPUs of c and leaves c zeroed. */
void sched_chain_free(struct sched_chain *c);

/* Is tid one of the tasks the run traces (all without -p and -L, or without se->t; -p: a
 * thread of that process as se->t's names know it)? Under -p the kernel also records the
 * switches and wake-ups between a traced task and others: the others' times are not the
 * run's to count, nor to say were missing. A hash lookup under -p, a compare else. Returns
 * true when it is. */
bool sched_traced(const struct sched_events *se, long long tid);

/*
 * Run-queue waits (runqlat, runqslower): from a task made runnable (woken, new, or switched
 * out still runnable) to the switch that runs it, keyed by thread; a task that switches out
 * to sleep forgets its start (a wake-up that found it still running was no wait). The idle
 * tasks (PID 0) are left out.
 *
 * Paired here, for t, the tool's run: se's events (loaded with wakeups) enabled (not through
 * tool_trace: its filter leaves this process's events out, and a switch from this process to
 * another is that one's end) and handed to s, which the tool made with SPAN_LOSS_ALL; its
 * done() gets the switch that ran the task. Returns 0, or -1 when an event cannot be enabled
 * (said on stderr) or a handler cannot be registered (out of memory, not said).
 */
int sched_runq_trace(struct tool_run *t, struct sched_events *se, struct span *s);
/* Paired in the kernel: k described as such (zeroed first; its mode, unit, hist keys and the
 * end's fields are the tool's to set after); tid: only that thread's waits (0: all). k's
 * filters are kept in se: valid as long as se is, until the next call for se. */
void sched_runq_kernel(struct sched_events *se, struct span_kernel *k, int tid);
/* cpudist's pairing, one switch at a time, into s: the switch rec on cpu at ts from prev to
 * next (named next_comm, len bytes at most), of se's events; rec is handed to s's done(). On
 * the CPU, a slice from the switch in to the switch out on the same CPU; off_cpu, from the
 * switch out to the next switch in anywhere. At a break, the slice of the task switched out
 * unseen is forgotten; the task switched in unseen (prev) has no known start of its slice,
 * and its time off the CPU before ended unseen: neither is counted as an end without a start
 * or a start replaced. */
void sched_slice_switch(struct sched_events *se, struct span *s, bool off_cpu,
			const struct tep_record *rec, int cpu, uint64_t ts, long long prev,
			long long next, const char *next_comm, size_t len);
/* The pairing of sched_runq_trace, one event at a time (the unit tests drive it), in se's
 * span (se->runq): a wake-up of tid recorded on cpu at ts by task pid begins tid's wait, when
 * the run traces it. */
void sched_runq_woken(struct sched_events *se, int cpu, uint64_t ts, long long pid, long long tid);
/* The same in se's span for a switch on cpu at ts from prev (left in prev_state) to next
 * (named next_comm, len bytes at most), rec the record handed to the span's done(): prev's
 * wait begins when it is still runnable (else its start is forgotten), next's ends (each when
 * the run traces it). */
void sched_runq_switch(struct sched_events *se, const struct tep_record *rec, int cpu, uint64_t ts,
		       long long prev, long long prev_state, long long next, const char *next_comm,
		       size_t len);

#endif
