#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# --record FILE (every tracing tool): the run's raw events kept as a trace.dat that
# trace-cmd report reads back with the same events the tool showed, fields and stacks
# included; nothing left behind by a killed run; a bad FILE is a usage error.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

have() { command -v "$1" > /dev/null 2>&1; }
F=$TMP/rec.dat
# A known workload: the test program's 1234 getppid calls (tests/live/sys_target.c).
ST=${SYS_TARGET:-$BIN/tests/sys_target}

if [ -d "$T/events/syscalls/sys_enter_getppid" ]; then
	rm -f "$F"
	"$BIN/tpoint" -j --record "$F" syscalls:sys_enter_getppid --exec "$ST" 1234 > "$TMP/out" 2> "$TMP/err"
	rc=$?
	shown=$(grep -c '"event":"syscalls:sys_enter_getppid"' "$TMP/out")
	check "tpoint -j --record: exit 0, 1234 events shown, and says what it kept" sh -c "
		[ $rc -eq 0 ] && [ $shown -eq 1234 ] && grep -q 'kept [0-9]* pages of events in $F' '$TMP/err'"
	# The file: trace-cmd's magic, version 6, then data of whole pages.
	check "the file starts as trace.dat version 6 does (0x17 0x08 0x44 tracing 6)" [ \
		"$(head -c 12 "$F" | od -An -tx1 | tr -d ' \n')" = 17084474726163696e673600 ]
	if have trace-cmd; then
		trace-cmd report "$F" > "$TMP/report" 2> /dev/null
		n=$(grep -c 'sys_enter_getppid:' "$TMP/report")
		check "trace-cmd report reads it: the same 1234 events" [ "$n" -eq 1234 ] ||
			{ echo "# report has $n"; head -5 "$TMP/report" | sed 's/^/#   /'; }
		# Fields and times: each event's pid and time to the microsecond, in order, all 1234
		# (a half microsecond rounds up in both: ~1 event in 1000 is exactly there).
		sed -n 's/.*"ts":\([0-9.]*\),.*"pid":\([0-9]*\).*/\2 \1/p' "$TMP/out" > "$TMP/a"
		sed -n 's/^ *[^ ]*-\([0-9]*\) *\[[0-9]*\] *\([0-9.]*\): sys_enter_getppid.*/\1 \2/p' "$TMP/report" > "$TMP/b"
		check "trace-cmd report: each event's task and time as the tool showed them" cmp -s "$TMP/a" "$TMP/b" ||
			{ diff "$TMP/a" "$TMP/b" | head -5 | sed 's/^/#   /'; }
		# The trace clock the run used is in the file (a recording is lined up with another
		# by it): the runs' instances use mono where the kernel has it, else global.
		clock=global
		grep -qw mono "$T/trace_clock" && clock=mono
		trace-cmd dump --summary "$F" > "$TMP/dump" 2>&1
		check "trace-cmd dump --summary: the run's trace clock [$clock] saved in the file" \
			sh -c "sed -n '/Tracing clock/{n;p;}' '$TMP/dump' | grep -qx '[[:space:]]*\[$clock\]'" ||
			sed -n '/Tracing clock/,+1p' "$TMP/dump" | sed 's/^/#   /'
		trace-cmd dump --options "$F" > "$TMP/dump" 2>&1
		check "trace-cmd dump --options: a TRACECLOCK option holding [$clock]" \
			sh -c "grep -q 'Option TRACECLOCK' '$TMP/dump' && grep -qx '\[$clock\]' '$TMP/dump'"
		check "trace-cmd report: no warning reading the file" \
			sh -c "trace-cmd report '$F' 2>&1 > /dev/null | grep . && exit 1 || exit 0"
		# Kernel stacks go with their events.
		"$BIN/tpoint" -s --record "$F" -d 0.5 sched:sched_switch > "$TMP/out" 2> /dev/null
		trace-cmd report "$F" > "$TMP/report" 2> /dev/null
		a=$(grep -c '^ => ' "$TMP/out") b=$(grep -c '^=> ' "$TMP/report")
		check "-s --record: the same $a stack frames in the file" sh -c "[ $a -gt 0 ] && [ $a -eq $b ]"
	else
		skip "reading the file back: trace-cmd not installed (make check-deps installs it)"
	fi
else
	skip "tpoint --record: no syscalls:sys_enter_getppid (CONFIG_FTRACE_SYSCALLS)"
fi

# Killed: no file, no pages beside it; tracefs as before.
rm -f "$F"
rm -f "$TMP/err" # (a banner left from the last run is not this one's)
"$BIN/tpoint" --record "$F" sched:sched_switch > /dev/null 2> "$TMP/err" &
TPID=$!
wait_ready $TPID "$TMP/err"
sleep 0.3
kill -9 $TPID
wait $TPID 2> /dev/null
check "--record killed with SIGKILL: no file, nothing beside it" sh -c "! ls '$TMP' | grep -q '^rec.dat'"
"$BIN/tpoint" -d 0.1 sched:sched_switch > /dev/null 2>&1

# A FILE that cannot be written: a usage error before anything is made.
for bad in "$TMP" "$TMP/no/such/folder/x.dat"; do
	"$BIN/tpoint" --record "$bad" -d 0.1 sched:sched_switch > /dev/null 2> "$TMP/err"
	rc=$?
	check "--record $bad: exit 2, one line naming it" sh -c "[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ]"
done
# Never written through a link someone put at the name.
ln -sf "$TMP/victim" "$F"
echo safe > "$TMP/victim"
"$BIN/tpoint" --record "$F" -d 0.2 sched:sched_switch > /dev/null 2> "$TMP/err"
rc=$?
check "--record FILE where FILE is a link: exit 2, the link's target untouched" sh -c "
	[ $rc -eq 2 ] && [ \"\$(cat '$TMP/victim')\" = safe ]"
rm -f "$F"

check "at the end: tracefs as it was" same_state
summary
