#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of killsnoop: known signals sent by this shell (kill, exact target, signal and
# result, errors), --signal, -x, -s, -j; -K with the kernel's own SIGSEGV; bad input and
# every way of stopping.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

ET=${EXIT_TARGET:-$BIN/tests/exit_target}
if [ ! -d "$T/events/syscalls/sys_enter_kill" ]; then
	skip "killsnoop: no syscalls:sys_enter_kill (CONFIG_FTRACE_SYSCALLS)"
	summary
	exit 0
fi

# start OPTS...: killsnoop running, ready; its output in $TMP/out. stop: Ctrl-C.
start() { start_bg "$BIN/killsnoop" "$@"; }
stop() { stop_bg; }
mine() { awk -v p=$$ '$2 == p' "$TMP/out"; }

start
sleep 30 &
VICTIM=$!
kill -TERM $VICTIM
wait $VICTIM 2> /dev/null
kill -0 999999999 2> /dev/null
stop
check "kill -TERM from this shell: PID, TPID, 15, result 0, kill" \
	[ "$(mine | awk -v v=$VICTIM '$3 == v {print $4, $5, $6}')" = "15 0 kill" ]
check "kill -0 to no process: result -3 (ESRCH)" \
	[ "$(mine | awk '$3 == 999999999 {print $4, $5, $6}')" = "0 -3 kill" ]

# The group and broadcast forms: kill(-1, ...) and kill(-PGID, ...), whose target the
# syscall formats hold in an "unsigned" 8-byte slot (they were 4294967295 and 2^32-PGID).
# The group: a sleep in a session of its own (its PGID is its PID; this shell's group may be
# 0, as under the guests' init).
setsid sleep 30 > /dev/null 2>&1 &
PGID=$!
sleep 0.3
[ "$(sed 's/.*) //' /proc/$PGID/stat 2> /dev/null | cut -d' ' -f3)" = "$PGID" ] || PGID=
start
kill -0 -1 2> /dev/null
[ -n "$PGID" ] && kill -0 -$PGID 2> /dev/null
stop
check "kill -0 -1: TPID -1 (every process it may signal), signal 0, result 0" \
	[ "$(mine | awk '$3 == -1 {print $4, $5, $6}')" = "0 0 kill" ]
if [ -n "$PGID" ]; then
	check "kill -0 -PGID: TPID -$PGID (its process group), result 0" \
		[ "$(mine | awk -v g=-$PGID '$3 == g {print $4, $5, $6}')" = "0 0 kill" ]
	start -j
	kill -0 -$PGID 2> /dev/null
	stop
	check "-j: kill -0 -PGID as \"tpid\":-$PGID" \
		grep -q "\"pid\":$$,\"call\":\"kill\",\"tpid\":-$PGID,\"sig\":0," "$TMP/out"
	kill $PGID 2> /dev/null
	wait $PGID 2> /dev/null
else
	skip "killsnoop kill -PGID: no setsid here to make a process group"
fi

start -x -s --signal 0,TERM
kill -0 999999999 2> /dev/null
kill -HUP 999999999 2> /dev/null
sleep 30 &
VICTIM=$!
kill -TERM $VICTIM
wait $VICTIM 2> /dev/null
stop
check "-x -s --signal 0,TERM: only the failed signal 0, named" sh -c "
	[ \$(awk -v p=$$ '\$2 == p' '$TMP/out' | wc -l) -eq 1 ] &&
	[ \"\$(awk -v p=$$ '\$2 == p {print \$3, \$4, \$5}' '$TMP/out')\" = '999999999 0 -3' ]"

start -j
kill -USR1 999999999 2> /dev/null
stop
check "-j: the call as one object, valid JSON" sh -c "
	grep -q '\"pid\":$$,\"call\":\"kill\",\"tpid\":999999999,\"sig\":10,\"signal_name\":\"SIGUSR1\",\"result\":-3}' '$TMP/out' &&
	'$JSONCHECK' '$TMP/out' ts time comm pid call tpid sig signal_name result &&
	[ \"\$('$BIN/killsnoop' --json-keys | cut -f1 | tr '\\n' ' ')\" = 'ts time comm pid call tpid sig signal_name result target_pidfd tcomm host kernel ' ]"

if [ -x "$ET" ] && [ -d "$T/events/signal/signal_generate" ]; then
	rm -f "$TMP/go"
	"$ET" "$TMP/go" segv &
	ETPID=$!
	start -K -s
	touch "$TMP/go"
	wait $ETPID 2> /dev/null
	stop
	check "-K: the kernel's SIGSEGV to the crashing program, delivered" \
		[ "$(awk -v p=$ETPID '$2 == p && $3 == p {print $5, $6}' "$TMP/out")" = "SIGSEGV delivered" ]
	check "-K: its SIGCHLD to this shell" \
		[ "$(awk -v p=$ETPID -v s=$$ '$2 == p && $3 == s {print $5}' "$TMP/out")" = SIGCHLD ]
else
	skip "killsnoop -K: no signal:signal_generate or no $ET"
fi

for args in "--signal FOO|invalid signal: 'FOO'" "--signal 65|from 0, the existence check, to 64" \
	"--signal TERM,,KILL|an empty item" "--signal TERM,|an empty item" "-p 0|invalid PID" \
	"x|unexpected argument"; do
	# -d 1: an input wrongly taken ends the run anyway.
	eval "\"\$BIN/killsnoop\" -d 1 ${args%|*}" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "killsnoop ${args%|*}: exit 2, one line, '${args#*|}'" sh -c \
		"[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -qF \"${args#*|}\" '$TMP/err'"
done
check "killsnoop's bad input changed nothing in tracefs" same_state

stop_cases killsnoop "$BIN/killsnoop"
check "at the end: tracefs as it was" same_state
summary
