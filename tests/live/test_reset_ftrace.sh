#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of reset-ftrace. On a machine where others trace (this one), only what the test
# itself made is reset: the leftovers of runs it killed, and -n, which changes nothing. The
# top level is reset for real only where nothing else traces: in the vmcheck guests, or with
# RESET_FTRACE_TOPLEVEL=1.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
FULL=
if [ "${RESET_FTRACE_TOPLEVEL:-}" = 1 ] || [ -e /ftt/suites ] || [ "$BIN" = /ftt/bin ]; then
	FULL=1 TOPLEVEL_STATE=1 # the top level is this suite's to change, and to judge
	# The top-level buffer's first use since boot (a tracer or an event set below) gives
	# it the size it announces ("7 (expanded: 1408)"); no write takes it back. That first
	# use here, before the state is saved (6.12 said 1410 after).
	if grep -q expanded "$T/buffer_size_kb"; then
		sed 's/.*expanded: \([0-9]*\).*/\1/' "$T/buffer_size_kb" > "$T/buffer_size_kb"
	fi
fi
save_state

# --- what killed runs left -------------------------------------------------------------------
start() { rm -f "$TMP/out" "$TMP/err"; "$@" > "$TMP/out" 2> "$TMP/err" & TPID=$!; wait_ready $TPID "$TMP/err"; }
start "$BIN/iosnoop"
INST=$(ls "$T/instances" | grep -- "-${TPID}_" | grep -v '\.names-' | head -1)
"$BIN/reset-ftrace" -n --leftovers > "$TMP/rf" 2> "$TMP/rf.err"
check "reset-ftrace -n --leftovers: a live run's instance is said as left, exit 0" sh -c "
	[ $? -eq 0 ] && grep -qxF 'left instance $INST: its run (PID $TPID) is alive' '$TMP/rf'"
kill -9 $TPID; wait $TPID 2> /dev/null
"$BIN/reset-ftrace" -n --leftovers > "$TMP/rf" 2> "$TMP/rf.err"
check "reset-ftrace -n --leftovers: would remove the killed run's instance, and does not" sh -c "
	[ $? -eq 0 ] && grep -qxF 'would remove instance $INST left by a run that ended without removing it (PID $TPID is gone)' '$TMP/rf' &&
	[ -d '$T/instances/$INST' ]"
"$BIN/reset-ftrace" --leftovers > "$TMP/rf" 2> "$TMP/rf.err"
check "reset-ftrace --leftovers: removes it and says so, on stdout" sh -c "
	[ $? -eq 0 ] && grep -qxF 'removed instance $INST left by a run that ended without removing it (PID $TPID is gone)' '$TMP/rf' &&
	[ ! -d '$T/instances/$INST' ] && [ ! -s '$TMP/rf.err' ]"
# Only the killed run's: others trace here, and their killed runs come and go meanwhile.
check "reset-ftrace --leftovers: nothing of the killed run left in tracefs" sh -c "
	! ls '$T/instances' | grep -q -- '-${TPID}_' &&
	! cat '$T/kprobe_events' '$T/uprobe_events' '$T/synthetic_events' '$T/dynamic_events' 2> /dev/null |
		grep -q 'ftt_${TPID}_'"
"$BIN/reset-ftrace" -q --leftovers > "$TMP/rf" 2> "$TMP/rf.err"
check "reset-ftrace -q --leftovers: nothing said, exit 0" sh -c "[ $? -eq 0 ] && [ ! -s '$TMP/rf' ]"

# Names that only look like the tools' are never judged: one hex digit too many, and a
# dead run's name with a newline and more after it.
FAKE1=ftrace-tools-iosnoop-999999999_1_abcde
FAKE2="ftrace-tools-iosnoop-999999999_1_abcd
x"
if mkdir "$T/instances/$FAKE1" "$T/instances/$FAKE2" 2> /dev/null; then
	"$BIN/reset-ftrace" --leftovers > "$TMP/rf" 2> "$TMP/rf.err"
	check "reset-ftrace --leftovers: instances not exactly of the tools' form are left alone" \
		sh -c "[ -d '$T/instances/$FAKE1' ] && [ -d '$T/instances/$FAKE2' ] &&
			! grep -q 999999999 '$TMP/rf'"
else
	notok "mkdir of two test instances"
fi
rmdir "$T/instances/$FAKE1" "$T/instances/$FAKE2" 2> /dev/null

# A dead run's undo line for a trigger whose instance is gone: nothing left to undo, the
# file goes (it was kept before, and every later run of every tool said so, for ever).
sh -c 'exit 0' & DEAD=$!; wait $DEAD
RUND=/run/ftrace-tools made=
[ -d $RUND ] || { mkdir -m 0700 $RUND && made=1; }
U=$RUND/undo-${DEAD}_1_abcd
printf '%s\t!hist:keys=pid\n' "$T/instances/ftrace-tools-runqlat-${DEAD}_1_abcd/events/sched/sched_wakeup/trigger" > $U
chmod 0600 $U
"$BIN/reset-ftrace" --leftovers > "$TMP/rf" 2> "$TMP/rf.err"
check "reset-ftrace --leftovers: a dead run's undo line for a trigger gone with its instance: nothing to undo, its file removed, nothing said of it" \
	sh -c "[ $? -eq 0 ] && [ ! -e $U ] && ! grep -q 'could not be undone' '$TMP/rf' '$TMP/rf.err'" ||
	cat "$TMP/rf" "$TMP/rf.err"
rm -f $U; [ -n "$made" ] && rmdir $RUND

# -n: the top level judged, nothing changed.
"$BIN/reset-ftrace" -n > "$TMP/rf" 2> "$TMP/rf.err"
rc=$?
if [ $rc -eq 1 ] && grep -q 'not reset' "$TMP/rf.err"; then
	ok "reset-ftrace -n: the top level is in use here, said: $(cat "$TMP/rf.err")"
else
	check "reset-ftrace -n: exit 0, the top level's state said" sh -c "[ $rc -eq 0 ] &&
		grep -Eq '^(nothing to reset at the top level|would )' '$TMP/rf'"
fi
check "reset-ftrace -n: nothing changed" same_state

# --- the top level, where nothing else traces --------------------------------------------------
if [ -z "$FULL" ]; then
	skip "reset-ftrace of the top level: others may trace on this machine (runs in the vmcheck guests, or with RESET_FTRACE_TOPLEVEL=1)"
else
	# What a tracer might leave: each file set where the kernel has it, and the line expected.
	: > "$TMP/want"
	want() { echo "$1" >> "$TMP/want"; }
	if grep -qw function "$T/available_tracers"; then
		echo function > "$T/current_tracer" && want "set current_tracer from function to nop"
		echo vfs_read > "$T/set_ftrace_filter" &&
			want "emptied set_ftrace_filter (it held vfs_read)"
	fi
	echo $$ > "$T/set_ftrace_pid" 2> /dev/null && want "emptied set_ftrace_pid (it held $$)"
	echo 1 > "$T/events/sched/sched_switch/enable" &&
		want "disabled 1 event at the top level: sched:sched_switch"
	if [ -e "$T/tracing_thresh" ]; then
		echo 100 > "$T/tracing_thresh" && want "set tracing_thresh from 100 to 0"
	fi
	if [ -e "$T/kprobe_events" ] && echo 'p:fttreset/k vfs_read' >> "$T/kprobe_events" 2> /dev/null; then
		want "removed kprobe $(grep fttreset "$T/kprobe_events")"
	fi
	echo 0 > "$T/tracing_on" && want "set tracing_on from 0 to 1"

	# In use: perf-tools' lock, then a reader of trace_pipe; refused, nothing changed.
	echo 999999999 > /var/tmp/.ftrace-lock
	"$BIN/reset-ftrace" > "$TMP/rf" 2> "$TMP/rf.err"
	check "reset-ftrace: refused while perf-tools' lock exists, exit 1, nothing changed" sh -c "
		[ $? -eq 1 ] && grep -q 'in use by perf-tools: /var/tmp/.ftrace-lock names PID 999999999, gone: not reset' '$TMP/rf.err' &&
		[ \$(cat '$T/tracing_on') = 0 ] && [ -e /var/tmp/.ftrace-lock ]"
	# -n with the lock: the same refusal, then what -f would do, the lock first (it used to
	# exit 1 having planned nothing).
	"$BIN/reset-ftrace" -n > "$TMP/dry" 2> "$TMP/rf.err"
	rc=$?
	sed 's/^would set /set /; s/^would empty /emptied /; s/^would disable /disabled /; s/^would remove /removed /' \
		"$TMP/dry" | grep -v '^nothing left' > "$TMP/dry.said"
	check "reset-ftrace -n with perf-tools' lock: refusal said, exit 1, then every step of -f, the lock first; nothing changed" sh -c "
		[ $rc -eq 1 ] && grep -q 'names PID 999999999, gone: not reset (-f removes' '$TMP/rf.err' &&
		head -1 '$TMP/dry.said' | grep -qxF \"removed perf-tools' lock (/var/tmp/.ftrace-lock names PID 999999999, gone) with -f\" &&
		tail -n +2 '$TMP/dry.said' | cmp -s - '$TMP/want' &&
		[ \$(cat '$T/tracing_on') = 0 ] && [ -e /var/tmp/.ftrace-lock ]" || sed 's/^/#   /' "$TMP/dry" "$TMP/rf.err"
	rm -f /var/tmp/.ftrace-lock
	cat "$T/trace_pipe" > /dev/null & CAT=$!
	sleep 0.3
	"$BIN/reset-ftrace" > "$TMP/rf" 2> "$TMP/rf.err"
	check "reset-ftrace: refused while a process reads trace_pipe, naming it" sh -c "
		[ $? -eq 1 ] && grep -q 'PID $CAT (cat) reads trace_pipe: not reset' '$TMP/rf.err' &&
		[ \$(cat '$T/tracing_on') = 0 ]"
	kill $CAT; wait $CAT 2> /dev/null

	"$BIN/reset-ftrace" -n > "$TMP/dry" 2> "$TMP/rf.err"
	sed 's/^would set /set /; s/^would empty /emptied /; s/^would disable /disabled /; s/^would remove /removed /' \
		"$TMP/dry" | grep -v '^nothing left' > "$TMP/dry.said"
	check "reset-ftrace -n: each change said as what it would do, nothing changed" sh -c "
		cmp -s '$TMP/dry.said' '$TMP/want' && [ \$(cat '$T/tracing_on') = 0 ]" ||
		diff "$TMP/want" "$TMP/dry.said" | sed 's/^/#   /'
	"$BIN/reset-ftrace" > "$TMP/rf" 2> "$TMP/rf.err"
	grep -v '^nothing left' "$TMP/rf" > "$TMP/said"
	check "reset-ftrace: exit 0, each change said once, in order" sh -c "
		[ $? -eq 0 ] && cmp -s '$TMP/said' '$TMP/want'" || diff "$TMP/want" "$TMP/said" | sed 's/^/#   /'
	check "reset-ftrace: the top level at rest" sh -c "
		[ \$(cat '$T/current_tracer') = nop ] && [ \$(cat '$T/tracing_on') = 1 ] &&
		[ ! -s '$T/set_event' ] && ! grep -q fttreset '$T/kprobe_events' 2> /dev/null &&
		{ [ ! -e '$T/tracing_thresh' ] || [ \$(cat '$T/tracing_thresh') = 0 ]; }"
	"$BIN/reset-ftrace" > "$TMP/rf" 2> "$TMP/rf.err"
	check "reset-ftrace again: nothing to reset" grep -qx 'nothing to reset at the top level' "$TMP/rf"
fi

# --- two runs, the second ends first --------------------------------------------------------
# Before Linux 5.9 a run reading its buffers holds every instance (EBUSY): the run that ends
# first while the other goes on cannot remove its instance; it says so and fails, and the
# next sweep (here reset-ftrace --leftovers) removes it once the other has ended.
start "$BIN/iosnoop"
A=$TPID
"$BIN/iosnoop" 0.5 > "$TMP/b.out" 2> "$TMP/b.err"
brc=$?
B=$(sed -n 's/.*cannot remove ftrace instance \(ftrace-tools-iosnoop-[0-9a-f_]*\): .*before Linux 5.9.*/\1/p' "$TMP/b.err")
kv=$(uname -r | awk -F. '{print $1 * 1000 + $2}')
if [ -n "$B" ]; then
	check "a run that ends while another reads, before 5.9: exit 1, its instance kept and said" sh -c "
		[ $brc -eq 1 ] && [ $kv -lt 5009 ] && [ -d '$T/instances/$B' ]" || cat "$TMP/b.err"
	kill -INT $A; wait $A
	"$BIN/reset-ftrace" --leftovers > "$TMP/rf" 2> "$TMP/rf.err"
	check "... once the other has ended, reset-ftrace --leftovers removes it" sh -c "
		[ ! -d '$T/instances/$B' ] && grep -q 'removed instance $B ' '$TMP/rf'" || cat "$TMP/rf" "$TMP/rf.err"
else
	check "a run that ends while another reads: exit 0, its instance removed at once (5.9 on: each instance its own)" sh -c "
		[ $brc -eq 0 ] && [ $kv -ge 5004 ] && [ -z \"\$(ls '$T/instances' | grep -v -- '-${A}_' | grep -- '-iosnoop-')\" ] " ||
		{ cat "$TMP/b.err"; ls "$T/instances"; }
	kill -INT $A; wait $A
fi

# --- bad input: exit 2, one line, nothing changed --------------------------------------------
for args in "-x" "extra" "-f --leftovers"; do
	"$BIN/reset-ftrace" $args > "$TMP/rf" 2> "$TMP/rf.err"
	check "reset-ftrace $args: usage error, exit 2, one line" sh -c "
		[ $? -eq 2 ] && [ \$(wc -l < '$TMP/rf.err') -eq 1 ] && [ ! -s '$TMP/rf' ]"
done
"$BIN/reset-ftrace" -h > "$TMP/rf" 2> "$TMP/rf.err"
check "reset-ftrace -h: usage on stdout, exit 0" sh -c "[ $? -eq 0 ] && grep -q '^USAGE: reset-ftrace' '$TMP/rf'"
check "at the end: tracefs as it was" same_state
summary
