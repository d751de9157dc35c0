#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of offwaketime. Ground truth: sched_target's wake mode (test_wakeuptime.sh):
# threads "ping" and "pong" each block in read(2) 2000 times and are each time woken by the
# other's pipe write; the pair of stacks (the reader's pipe read, the waker's pipe write)
# counted 2000 times each way (less the switches the kernel is said not to have recorded),
# blocked no longer than the program's reads took. Folded lines, -s, usage errors, stopping.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state
. tests/live/sched_lib.sh

O=$BIN/offwaketime
wake_start offwaketime
run_bg j "$O" -p $P -j
run_bg f "$O" -p $P -s --folded
[ -n "$G" ] && run_bg c "$O" -s --cgroup "$G" -j
touch "$TMP/go"
wait $P
stop_all
set -- $(cat "$TMP/t") 0 0 0 0 0 0
ping_us=$(($5 / 1000)) pong_us=$(($6 / 1000))
# obj TARGET WAKER [FILE]: the pipe read woken by the pipe write, "count us"
obj() {
	grep "\"target\":\"$1\"" "${3:-$TMP/j.out}" | grep "\"waker\":\"$2\"" | grep '"kstack":\[[^]]*pipe_read' |
		grep '"waker_kstack":\[[^]]*pipe_write' | sed -n 's/.*"count":\([0-9]*\),"us":\([0-9]*\).*/\1 \2/p'
}
set -- $(obj pong ping) x x
c1=$1 u1=$2
set -- $(obj ping pong) x x
c2=$1 u2=$2
cok=0
counted_ok "$c1" $N "$TMP/j.err" && counted_ok "$c2" $N "$TMP/j.err" && cok=1
check "offwaketime -p -j: valid JSON, exit 0; pong's pipe read woken by ping's pipe write $N times ($c1), ping's by pong's ($c2), less those said not recorded" sh -c "
	[ \"\$(cat '$TMP/j.rc')\" = 0 ] && [ $cok = 1 ] &&
	'$JSONCHECK' '$TMP/j.out' target kstack ustack waker waker_kstack waker_ustack count us" ||
	{ cat "$TMP/t" "$TMP/j.err"; grep -E '"(ping|pong)"' "$TMP/j.out" | cut -c1-400; }
check "offwaketime -j: the blocked times within the reads' as the program measured them (pong $u1 <= $pong_us us, ping $u2 <= $ping_us us)" sh -c "
	[ '$u1' -gt 0 ] && [ '$u1' -le $pong_us ] && [ '$u2' -gt 0 ] && [ '$u2' -le $ping_us ]" 2> /dev/null || cat "$TMP/t"
if [ -n "$G" ]; then
	set -- $(obj pong ping "$TMP/c.out") x x
	cok=0
	counted_ok "$1" $N "$TMP/c.err" && cok=1
	check "offwaketime --cgroup: pong's read woken by ping's write $N times ($1), only the group's tasks blocked" sh -c "
		[ $cok = 1 ] && ! grep -v '\"target\":\"\\(ping\\|pong\\|sched_target\\)\"' '$TMP/c.out' | grep -q ." ||
		{ cat "$TMP/c.err"; grep -o '\"target\":\"[^\"]*\"' "$TMP/c.out" | sort | uniq -c; }
else
	skip "offwaketime --cgroup: no control group could be made here"
fi
# --folded: target;...;pipe_read_[k];...;--;...pipe_write_[k];...;waker (the waker's try_to_wake_up
# first is not asked for: the 4.9 guest's stacks did not match so)
fl=$(grep '^pong;.*pipe_read[^;]*_\[k\];[^ ]*;--;[^ ]*pipe_write[^;]*_\[k\];[^ ]*;ping [0-9]*$' "$TMP/f.out")
check "offwaketime -s --folded: pong;...pipe_read_[k];...;--;...pipe_write_[k];...;ping, kernel frames only (${fl##* } us)" sh -c "
	[ \$(echo '$fl' | grep -c .) -eq 1 ] && [ '${fl##* }' -gt 0 ] && [ '${fl##* }' -le $pong_us ] &&
	awk '{sub(/ [0-9]+\$/, \"\"); n = split(\$0, f, \";\"); for (i = 2; i < n; i++) if (f[i] != \"--\" && f[i] !~ /_\\[k\\]\$/) bad = 1} END {exit bad}' '$TMP/f.out'" ||
	grep -E '^(ping|pong)' "$TMP/f.out" | cut -c1-300 | sed 's/^/# /'
# The frames above __schedule and try_to_wake_up are the tracepoint's: cut, the stacks
# named at the end (the blocked task's innermost frame is before --, the waker's after it)
check "offwaketime -s --folded: no stack starts in the tracepoints' own frames" sh -c "
	grep -q . '$TMP/f.out' &&
	! grep -Eq 'trace_event_raw_event[^;]*_\[k\];--;|;--;trace_event_raw_event' '$TMP/f.out'" ||
	grep -Em 3 'trace_event_raw_event[^;]*_\[k\];--;|;--;trace_event_raw_event' "$TMP/f.out" | cut -c1-300 | sed 's/^/# /'

for args in "--folded -j" "-f -j" "-m x" "-m 5 -M 4" "-p 0" "--pprof $TMP/x.pb.gz 1"; do
	"$O" $args > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "offwaketime $args: usage error, exit 2, one line" sh -c "[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ]" ||
		cat "$TMP/err"
done
check "after the usage errors: tracefs as before" same_state

stop_cases offwaketime "$O" -s -d 3
check "at the end: tracefs as before" same_state
summary
