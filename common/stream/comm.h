/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * comm: the name of each task as it was when each of its events happened. Events carry only
 * the PID, and /proc or the kernel's saved_cmdlines say what a PID is called later, or what
 * a PID that is now someone else was called. So the run also records the rare events that
 * name tasks (sched:sched_process_fork: a new task has its parent's name; task:task_rename:
 * exec and prctl/pthread_setname_np renames; task:task_newtask: a thread or a process, and
 * whose), in a small instance of their own, and the
 * reader merges them in time order with the tool's events: a lookup gives the name at that
 * point of the stream. The tasks
 * that exist when following starts are named from /proc then (before the tool's own events
 * are on); a task not seen either way (after lost events) is named from /proc when looked up.
 */
#ifndef FTT_COMM_H
#define FTT_COMM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct session;
struct reader;
struct tep_event;
struct tep_record;
struct comm_table;

/*
 * Make the instance of the naming events (filtered only to leave this process out, the same
 * trace clock as the tool's session s) and read the names of the tasks there are (only those of process pid, or thread tid,
 * when the tool traces only them), before the tool's own events are enabled. NULL with a
 * message when the kernel lacks the events.
 */
struct comm_table *comm_follow(struct session *s, pid_t pid, pid_t tid);
/* The events comm_follow enables, for session_preload. */
#define COMM_NFORMATS 3
extern const char *const comm_format_sys[COMM_NFORMATS], *const comm_format_names[COMM_NFORMATS];
/* The naming instance's buffer per CPU: forks and renames are rare, and the reader takes
 * them every wake-up, so 512 KB would do; but shrinking a new instance's buffer (the kernel's
 * default, 1408 KB) made a run start 7-22 ms later on 6.18. It is kept as made on machines of
 * up to COMM_SHRINK_CPUS CPUs (at most 56 MB more), shrunk above. */
#define COMM_BUFFER_KB 512
#define COMM_SHRINK_CPUS 64
/* What comm_follow asks of session_start (0: the new instance's size), and what that is
 * per CPU, for -v (session_say_memory). */
size_t comm_buffer_kb(void);
size_t comm_buffer_kb_said(void);
/* Read the naming events with the tool's (reader_add_session) and register the handlers:
 * before the tool's, so a name changes before later events. */
int comm_attach(struct comm_table *t, struct reader *r);

/* The name of task pid at the current point of the event stream: at most 15 bytes and a
 * NUL, as the kernel keeps it; "<...>" when it cannot be known. Valid until the next call. */
const char *comm_get(struct comm_table *t, int pid);

int comm_free(struct comm_table *t); /* -1: its instance stayed (said) */

/* What is known of a task: its process (thread group), that process's parent when the task
 * was made (a process whose parent exits is adopted later, which no event says), and when
 * it was made (trace clock, CLOCK_MONOTONIC ns; /proc's start time for a task older than
 * the run). From task:task_newtask and /proc. */
struct comm_task {
	int tgid, ppid;
	uint64_t start_ns;
};
int comm_task(struct comm_table *t, int pid, struct comm_task *info);

/* The per-event handlers and the lookup on a table without a session, for the unit tests. */
struct comm_table *comm_new(struct tep_event *fork, struct tep_event *rename,
			    struct tep_event *newtask);
void comm_on_newtask(struct tep_record *rec, void *ctx);
void comm_on_fork(struct tep_record *rec, void *ctx);
void comm_on_rename(struct tep_record *rec, void *ctx);
void comm_on_lost(int cpu, long long n, void *ctx);
/* Where a name came from, for the tests: 0 unknown, 1 an event, 2 /proc, 3 saved_cmdlines. */
int comm_source(struct comm_table *t, int pid);

#endif
