#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of exitsnoop: a test program that ends in each known way (an exit code, exit from
# a second thread, a thread's pthread_exit, SIGSEGV, SIGTERM and SIGKILL from outside) is
# reported with exactly that, its parent and its age; -x, -p, -j, --threads, bad input and
# every way of stopping.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

ET=${EXIT_TARGET:-$BIN/tests/exit_target}
need_programs "$ET"
if [ ! -d "$T/events/syscalls/sys_enter_exit_group" ] || [ ! -d "$T/events/signal/signal_deliver" ]; then
	skip "exitsnoop: no syscalls:sys_enter_exit_group (CONFIG_FTRACE_SYSCALLS) or signal events"
	summary
	exit 0
fi

# run_case OPTS -- MODE ARGS...: exitsnoop OPTS while one exit_target ends by MODE (for
# "wait": killed with $KILLSIG); output in $TMP/out, the program's PID in $ETPID.
run_case() {
	opts=
	while [ "$1" != -- ]; do opts="$opts $1"; shift; done
	shift
	rm -f "$TMP/go" "$TMP/out" "$TMP/err"
	"$ET" "$TMP/go" "$@" &
	ETPID=$!
	"$BIN/exitsnoop" $opts > "$TMP/out" 2> "$TMP/err" &
	TPID=$!
	wait_ready $TPID "$TMP/err"
	touch "$TMP/go"
	if [ "$1" = wait ]; then
		sleep 0.6
		kill -$KILLSIG $ETPID
	fi
	wait $ETPID 2> /dev/null
	sleep 0.3
	kill -INT $TPID
	wait_exit $TPID 10
}
# The line of PID $ETPID (-n exit_target: other processes end meanwhile).
line() { awk -v p="$ETPID" '$2 == p' "$TMP/out"; }
EXIT_COL='{ $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +/, ""); print }'

run_case -n exit_target -- code 3
check "exit(3): one line, EXIT 3" [ "$(line | awk "$EXIT_COL")" = 3 ]
check "exit(3): PPID is the shell that started it" [ "$(line | awk '{print $3}')" = $$ ]
check "exit(3): TID is the PID (the process's own exit)" [ "$(line | awk '{print $4}')" = "$ETPID" ]
check "exit(3): AGE at least the 0.3 s it waited, under 10 s" \
	awk -v a="$(line | awk '{print $5}')" 'BEGIN { exit !(a >= 0.3 && a < 10) }'

run_case -n exit_target -- thread 5
check "exit(5) from a second thread: one line for the process, EXIT 5" \
	[ "$(awk -v p="$ETPID" '$2 == p' "$TMP/out" | wc -l)" -eq 1 -a "$(line | awk "$EXIT_COL")" = 5 ]

run_case --threads -n exit_target -- pthread
check "--threads: the thread that called pthread_exit ends with 0, the process with 7" sh -c "
	[ \$(awk -v p=$ETPID '\$2 == p && \$4 != p {print \$6}' '$TMP/out') = 0 ] &&
	[ \$(awk -v p=$ETPID '\$2 == p && \$4 == p {print \$6}' '$TMP/out') = 7 ]"

run_case -n exit_target -- segv
check "SIGSEGV: 'signal 11 (SIGSEGV), core'" [ "$(line | awk "$EXIT_COL")" = "signal 11 (SIGSEGV), core" ]

KILLSIG=TERM run_case -n exit_target -- wait
check "SIGTERM from outside (sent as SIGKILL by the kernel's fast path): 'signal 15 (SIGTERM)'" \
	[ "$(line | awk "$EXIT_COL")" = "signal 15 (SIGTERM)" ]
KILLSIG=KILL run_case -n exit_target -- wait
check "SIGKILL: 'signal 9 (SIGKILL)'" [ "$(line | awk "$EXIT_COL")" = "signal 9 (SIGKILL)" ]

run_case -x -n exit_target -- code 0
check "-x: an exit with 0 is not shown" [ -z "$(line)" ]

# The status the parent sees is the low 8 bits of exit()'s argument (the kernel keeps
# (code & 0xff) << 8): exit(256) is a success, exit(257) 1, exit(-1) 255. They were shown
# as 256 (and listed by -x), 257 and 4294967295.
run_case -x -n exit_target -- code 256
check "exit(256): the parent sees 0, so -x does not show it" [ -z "$(line)" ]
run_case -n exit_target -- thread 257
check "exit(257) from a second thread: EXIT 1" [ "$(line | awk "$EXIT_COL")" = 1 ]
run_case -j -n exit_target -- code -1
check "-j: exit(-1) as \"exit_code\":255" grep -q "\"pid\":$ETPID,.*\"exit_code\":255," "$TMP/out"

# -p: only that process, even when the signal that kills it comes from outside.
rm -f "$TMP/go" "$TMP/out" "$TMP/err"
"$ET" "$TMP/go" wait &
ETPID=$!
"$BIN/exitsnoop" -j -p $ETPID > "$TMP/out" 2> "$TMP/err" &
TPID=$!
wait_ready $TPID "$TMP/err"
touch "$TMP/go"
sleep 0.6
sh -c 'exit 4' # another process: not shown
kill -TERM $ETPID
wait $ETPID 2> /dev/null
sleep 0.3
kill -INT $TPID
wait_exit $TPID 10
check "-j -p: exactly one object, the process's, with signal 15, no exit code, every key of --json-keys" sh -c "
	[ \$(wc -l < '$TMP/out') -eq 1 ] &&
	grep -q '\"pid\":$ETPID,\"ppid\":$$,\"tid\":$ETPID,.*\"exit_code\":null,\"signal\":15,\"signal_name\":\"SIGTERM\",\"core\":false}' '$TMP/out' &&
	'$JSONCHECK' '$TMP/out' $("$BIN/exitsnoop" --json-keys | cut -f1 | grep -vx -e host -e kernel | tr '\n' ' ')"

for args in "-p 0|invalid PID" "-n ''|(empty)" "-x extra|unexpected argument"; do
	eval "\"\$BIN/exitsnoop\" ${args%|*}" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "exitsnoop ${args%|*}: exit 2, one line, '${args#*|}'" sh -c \
		"[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -qF '${args#*|}' '$TMP/err'"
done
check "exitsnoop's bad input changed nothing in tracefs" same_state

stop_cases exitsnoop "$BIN/exitsnoop"
check "at the end: tracefs as it was" same_state
summary
