/* comm: the name of a thread for events that do not record it. */
#ifndef FTT_COMM_H
#define FTT_COMM_H

#include <stdint.h>

/*
 * The name of thread pid at trace time ts (ns): /proc at first sight and again after a
 * second (exec renames), else the kernel's saved_cmdlines (tasks that already exited), else
 * "<...>". Not thread-safe; the string lives until the next call for the same pid.
 */
const char *comm_lookup(int pid, uint64_t ts);

#endif
