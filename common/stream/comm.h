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
 * trace clock as the tool's session s) and read the names of the tasks there are (only those
 * of process pid, or thread tid, when the tool traces only them; both 0: every task), before
 * the tool's own events are enabled. Returns the table, or NULL with a message on stderr when
 * the kernel lacks the events, the instance cannot be made or enabled, or memory runs out.
 * The caller frees it with comm_free(), which removes the instance.
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
/* What comm_follow asks of session_start. Returns COMM_BUFFER_KB on machines of more than
 * COMM_SHRINK_CPUS CPUs, else 0 (the new instance's size). */
size_t comm_buffer_kb(void);
/* What comm_buffer_kb is per CPU, for -v (session_say_memory). Returns COMM_BUFFER_KB, or
 * SESSION_DEFAULT_BUFFER_KB where the instance keeps the size it was made with. */
size_t comm_buffer_kb_said(void);
/* Read the naming events of t with the tool's, in reader r (reader_add_session), and register
 * the handlers: before the tool's, so a name changes before later events. A table without an
 * instance (comm_new: a fixture tree) has its events among the tool's. Returns 0, or -1 when
 * a handler cannot be registered or the instance's buffers cannot be opened (said on stderr
 * when r has a tool). */
int comm_attach(struct comm_table *t, struct reader *r);

/* The name of task pid in table t at the current point of the event stream: at most 15 bytes
 * and a NUL, as the kernel keeps it; a task not known yet is read from /proc (then
 * saved_cmdlines). Returns the name ("<idle>" for pid 0), or "<...>" when it cannot be known.
 * It is owned by the table and valid until the next call on t (a lookup, or an event read,
 * may move the table). */
const char *comm_get(struct comm_table *t, int pid);

/* Remove t's instance and free t (NULL: nothing). Returns 0, or -1 when its instance stayed
 * (said on stderr); t is freed either way. */
int comm_free(struct comm_table *t);

/* What is known of a task: its process (thread group), that process's parent when the task
 * was made (a process whose parent exits is adopted later, which no event says), and when
 * it was made (trace clock, CLOCK_MONOTONIC ns; /proc's start time for a task older than
 * the run). From task:task_newtask and /proc. */
struct comm_task {
	int tgid, ppid;
	uint64_t start_ns;
};
/* Fill info with what table t knows of task pid (read from /proc when the table does not know
 * its process). Returns 0, or -1 when its process cannot be known (info untouched). */
int comm_task(struct comm_table *t, int pid, struct comm_task *info);

/* A table without a session, for the unit tests: the handlers follow the events fork
 * (sched_process_fork), rename (task_rename) and newtask (task_newtask), each NULL or lacking
 * a field it reads: not followed. Returns the table, or NULL when out of memory. The caller
 * frees it with comm_free(). */
struct comm_table *comm_new(struct tep_event *fork, struct tep_event *rename,
			    struct tep_event *newtask);
/* The per-event handlers, declared for the unit tests; ctx: the table. task:task_newtask's:
 * the new task rec names gets its creator's name, and the process and parent its clone flags
 * give it. */
void comm_on_newtask(struct tep_record *rec, void *ctx);
/* sched:sched_process_fork's: parent and child named as rec says (ctx: the table). */
void comm_on_fork(struct tep_record *rec, void *ctx);
/* task:task_rename's: the task renamed named as rec says (ctx: the table). */
void comm_on_rename(struct tep_record *rec, void *ctx);
/* Lost events' (reader_on_lost; cpu and n, where and how many, not used): every name is
 * forgotten (ctx: the table), read again from /proc when looked up. */
void comm_on_lost(int cpu, long long n, void *ctx);
/* Where the name of pid in table t came from, for the tests. Returns 0 unknown (or not looked
 * up yet), 1 an event, 2 /proc, 3 saved_cmdlines. */
int comm_source(struct comm_table *t, int pid);

#endif
