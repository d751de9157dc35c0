#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of funcgraph: a static test program makes a known number of getppid() calls and
# naps of known lengths; funcgraph --exec shows each getppid graph once, well nested, with
# durations that hold their callees', and the naps no shorter than asked (shorter than asked
# with -C, which leaves the sleep out). The top level, which funcgraph owns while it runs:
# a second run names the owner, a top level used by someone else is refused, every setting
# found there (not only the defaults) is written back, on every way of stopping, and after
# SIGKILL by the next run of any tool.
cd "$(dirname "$0")/../.." || exit 1
TOPLEVEL_STATE=1 # its tools may take the top level: its settings are judged too
. tests/live/lib.sh
require_live

ST=${SYS_TARGET:-$BIN/tests/sys_target}
ET=${EXIT_TARGET:-$BIN/tests/exit_target}
need_programs "$ST"
if ! grep -qw function_graph "$T/available_tracers"; then
	save_state
	"$BIN/funcgraph" vfs_read > "$TMP/out" 2> "$TMP/err"
	check "funcgraph without function_graph: exit 1, one line naming CONFIG_FUNCTION_GRAPH_TRACER" sh -c \
		"[ $? -eq 1 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q CONFIG_FUNCTION_GRAPH_TRACER '$TMP/err'"
	check "funcgraph refused: tracefs as before" same_state
	skip "funcgraph: no function_graph tracer (CONFIG_FUNCTION_GRAPH_TRACER); run make vmcheck"
	summary
	exit 0
fi
# The top-level buffer's first use since boot gives it the size it announces ("7 (expanded:
# 1408)"), whoever uses it; no write takes it back. That first use here, before the state
# is saved.
if grep -q expanded "$T/buffer_size_kb"; then
	sed 's/.*expanded: \([0-9]*\).*/\1/' "$T/buffer_size_kb" > "$T/buffer_size_kb"
fi
save_state

F=
for f in __x64_sys_getppid __do_sys_getppid sys_getppid __arm64_sys_getppid; do
	grep -qx "$f" "$T/available_filter_functions" && { F=$f; break; }
done
[ -n "$F" ] || { notok "getppid's function is not in available_filter_functions"; summary; exit 1; }

# The graph's lines as "CPU DEPTH KIND NAME DURATION" (KIND: open, leaf, close).
graph() {
	awk '/^ *[0-9]+\) ------ ([0-9]+ )?events lost ------$/ { c = $1; sub(/\)/, "", c); print c, 0, "lost", "-", "-"; next }
	/^ *[0-9]+\) ------ .* => .* ------$/ { c = $1; sub(/\)/, "", c); print c, "-", "switch", "-", "-"; next }
	/^ *[0-9]+\) / && /\|/ {
		cpu = $0; sub(/\).*/, "", cpu); gsub(/ /, "", cpu)
		dur = match($0, /[0-9]+\.[0-9]+ us \|/) ? substr($0, RSTART, RLENGTH - 5) : "-"
		call = $0; sub(/^[^|]*\|/, "", call); sp = match(call, /[^ ]/) - 1; call = substr(call, sp + 1)
		if (call ~ /\(\) \{$/) { kind = "open"; sub(/\(\) \{$/, "", call) }
		else if (call ~ /\(\);$/) { kind = "leaf"; sub(/\(\);$/, "", call) }
		else { kind = "close"; sub(/^\} \/\* /, "", call); sub(/ \*\/$/, "", call) }
		print cpu, (sp - 2) / 2, kind, call, dur
	}' "$1"
}
# Every CPU's lines nest: a close ends the call opened last at its depth, a leaf or an open
# comes at the depth below the open calls, and a call lasts no less than any of its callees.
# That last can fail by the kernel's records: an interrupt that lands after a function's
# return time is taken but before its record is written (the return stack still holds the
# function) has its tail, outside hardirq context, recorded at the depth of a callee and
# longer than the call (once in some thousands of graphs on 6.12). Up to 2 such, one more
# per 1,000 graphs and one per 20,000 lines, are said, not failed (3 in 546,390 lines on
# 6.12 alone; 10 in 532,549 with another guest and make check on the machine); any line
# out of place fails. After a CPU's "events lost" line its calls are followed, not checked,
# until it is back at depth 0 (what closes may have begun before the loss); after a task
# switch line too (the task switched in may resume a graph begun on another CPU: one blocked
# in a read, then woken elsewhere, failed a 6.12 guest's run, "0 7 open finish_task_switch").
nested() {
	graph "$1" | awk '
		function out(why) { bad++; if (bad == 1) print "#   first out of place (" why "): line " NR ": " $0 }
		{ c = $1; d = $2 }
		$3 == "lost" || $3 == "switch" { cut[c] = 1; next }
		cut[c] && !(d == 0 && $3 != "close") { n[c] = $3 == "open" ? d + 1 : d; name[c, d] = $4; longest[c, d] = 0; next }
		cut[c] { cut[c] = 0; n[c] = 0 }
		$3 == "open" { if (d != n[c]) out("depth"); name[c, d] = $4; longest[c, d] = 0; n[c] = d + 1; graphs += d == 0 }
		$3 == "leaf" { if (d != n[c]) out("depth"); n[c] = d; if (d && $5 > longest[c, d - 1]) longest[c, d - 1] = $5 }
		$3 == "close" {
			if (d != n[c] - 1 || name[c, d] != $4) out("close")
			else if ($5 + 0.001 < longest[c, d]) {
				short++; print "#   shorter than a callee (an interrupt after its return): line " NR ": " $0 }
			n[c] = d; if (d && $5 > longest[c, d - 1]) longest[c, d - 1] = $5 }
		END { exit bad > allow || short > 2 + graphs / 1000 + NR / 20000 }' allow="${2:-0}"
}

# --- the graph -------------------------------------------------------------------------------------
"$BIN/funcgraph" -P "$F" --exec "$ST" 500 0 > "$TMP/out" 2> "$TMP/err"
rc=$?
graph "$TMP/out" > "$TMP/g"
check "funcgraph -P $F --exec: exit 0, 500 graphs of $F, each begun and ended, all of sys_target" sh -c "
	[ $rc -eq 0 ] &&
	[ \$(awk -v f=$F '\$2 == 0 && \$4 == f && \$3 != \"close\"' '$TMP/g' | wc -l) -eq 500 ] &&
	[ \$(awk -v f=$F '\$2 == 0 && \$4 == f && \$3 != \"open\"' '$TMP/g' | wc -l) -eq 500 ] &&
	[ \$(awk '\$2 == 0' '$TMP/g' | wc -l) -eq \$(awk -v f=$F '\$2 == 0 && \$4 == f' '$TMP/g' | wc -l) ] &&
	[ \$(grep -c '^ *[0-9]*) sys_target  *[0-9][0-9]* ' '$TMP/out') -eq \$(wc -l < '$TMP/g') ]" ||
	{ head -20 "$TMP/out"; cat "$TMP/err"; }
check "funcgraph: every CPU's graph nests, each call no shorter than its callees" nested "$TMP/out" ||
	{ nested "$TMP/out"; cp "$TMP/out" /tmp/funcgraph.out; }

# Naps of 1, 60, 1 and 80 ms: hrtimer_nanosleep alone (-m 1), one line each, as long as the
# nap; with -C only the time on the CPU (the test machine's slowest is well under 20 ms).
NAPS="1000 60000 1000 80000"
"$BIN/funcgraph" -m 1 hrtimer_nanosleep --exec "$ST" 0 0 $NAPS > "$TMP/out" 2> "$TMP/err"
rc=$?
graph "$TMP/out" > "$TMP/g"
check "funcgraph -m 1 hrtimer_nanosleep: the four naps as leaves, each as long as asked" sh -c "
	[ $rc -eq 0 ] && [ \$(wc -l < '$TMP/g') -eq 4 ] && [ \$(wc -l < '$TMP/out') -eq 4 ] &&
	awk 'BEGIN { split(\"$NAPS\", nap, \" \") }
	     \$3 != \"leaf\" || \$4 != \"hrtimer_nanosleep\" || \$5 < nap[NR] || \$5 > nap[NR] + 1000000 { bad++ }
	     END { exit bad != 0 }' '$TMP/g'" || { cat "$TMP/out" "$TMP/err"; }
"$BIN/funcgraph" -C -m 1 hrtimer_nanosleep --exec "$ST" 0 0 $NAPS > "$TMP/out" 2> "$TMP/err"
rc=$?
graph "$TMP/out" > "$TMP/g"
check "funcgraph -C: the four naps, each under 20 ms on the CPU" sh -c "
	[ $rc -eq 0 ] && [ \$(wc -l < '$TMP/g') -eq 4 ] &&
	awk '\$3 != \"leaf\" || \$5 >= 20000 { bad++ } END { exit bad != 0 }' '$TMP/g'" ||
	{ cat "$TMP/out" "$TMP/err"; }

# (4.14 may graph a first call without its callees: one line.)
"$BIN/funcgraph" -m 2 -D -H hrtimer_nanosleep --exec "$ST" 0 0 $NAPS > "$TMP/out" 2> "$TMP/err"
check "funcgraph -m 2 -D -H: a header, no durations, nothing below depth 2, 4 naps" sh -c "
	head -1 '$TMP/out' | grep -q '^CPU  *|  FUNCTION CALLS\$' && ! grep -q ' us |' '$TMP/out' &&
	[ \$(grep -c '^ *[0-9]*) |  hrtimer_nanosleep\(() {\|();\)\$' '$TMP/out') -eq 4 ] &&
	[ \$(grep -c '^ *[0-9]*) |  \(} /\* hrtimer_nanosleep \*/\|hrtimer_nanosleep();\)\$' '$TMP/out') -eq 4 ] &&
	! grep -q '^ *[0-9]*) |      ' '$TMP/out'" || { head "$TMP/out"; cat "$TMP/err"; }

"$BIN/funcgraph" -j -t "$F" --exec "$ST" 40 0 > "$TMP/out" 2> "$TMP/err"
check "funcgraph -j: valid JSON lines, 40 calls of $F begun and 40 ended, durations on ends" sh -c "
	'$JSONCHECK' '$TMP/out' time ts cpu pid comm func depth call dur_ns &&
	[ \$(grep -cE '\"func\":\"$F\",\"depth\":0,\"call\":\"(entry|leaf)\"' '$TMP/out') -eq 40 ] &&
	[ \$(grep -cE '\"func\":\"$F\",\"depth\":0,\"call\":\"(exit|leaf)\",\"dur_ns\":[0-9]+}' '$TMP/out') -eq 40 ] &&
	! grep -q '\"call\":\"entry\",\"dur_ns\":[^n]' '$TMP/out' &&
	! grep -q '\"call\":\"\(exit\|leaf\)\",\"dur_ns\":null' '$TMP/out'" || { head -3 "$TMP/out"; cat "$TMP/err"; }
check "after funcgraph: tracefs as before" same_state

# Interrupts during graphed calls: long reads of /dev/urandom (a CPU busy in vfs_read) while
# timers fire. Without -I no interrupt's work is in a graph (4.9 recorded the softirqs run at
# an interrupt's end, run_timer_softirq and its callees, rcu_bh_qs, rcu_irq_exit, at the depth
# of a callee of the read now and then); with -I they are there, which shows that this run
# had some to leave out.
IRQWORK='(irq_enter|irq_enter_rcu|irq_exit|irq_exit_rcu|rcu_irq_enter|rcu_irq_exit|__do_softirq|handle_softirqs|do_softirq_own_stack|run_timer_softirq|call_timer_fn|rcu_bh_qs|[a-z_]*apic_timer_interrupt|hrtimer_interrupt|__sysvec_apic_timer_interrupt|tick_sched_timer)'
# reading CMD...: CMD in the background (stdout, stderr in $TMP/out, err), and reads of
# /dev/urandom (READ_BYTES each, 256 KiB) from when it traces until it has ended (a zombie
# answers kill -0); RC its exit.
reading() {
	rm -f "$TMP/out" "$TMP/err" # (a banner left from the last run is not this one's)
	"$@" > "$TMP/out" 2> "$TMP/err" &
	P=$!
	wait_ready $P "$TMP/err"
	i=0
	while grep -q '^State:[^Z]*$' /proc/$P/status 2> /dev/null && [ $i -lt 400 ]; do
		head -c "${READ_BYTES:-262144}" /dev/urandom > /dev/null
		i=$((i + 1))
	done
	wait_exit $P 20
}
irq_case() { # irq_case [-I]: funcgraph -d 2 vfs_read during the reads; "lines irq-lines" in $TMP/irq
	rm -f "$TMP/out" "$TMP/err"
	# (A buffer of 16 MiB a CPU and reads of 256 KiB: with 2 MiB reads 5.10 under TCG lost
	# 276,390 events, and graphs cut by a loss do not nest.)
	# (2 s of reads of 256 KiB: some 1,000 interrupts' lines with -I in 6.12 under TCG, and
	# 222,000 lines to check, 66 s a run there; 5 s took 80 s. Reads of 32 KiB: an eighth.
	# Reads of 4 MiB of /dev/zero made as many lines in 4.19: a call a page.)
	READ_BYTES=32768 reading env FTT_BUFFER_KB=16384 "$BIN/funcgraph" $1 -d 2 vfs_read
	echo "$(wc -l < "$TMP/out") $(grep -cE "[ |] *$IRQWORK(\(\)|;| \{| \*/)" "$TMP/out")" > "$TMP/irq"
}
irq_case
read -r lines irqs < "$TMP/irq"
rc=$RC
cp "$TMP/out" "$TMP/noirq"
cp "$TMP/err" "$TMP/noirq.err"
irq_case -I
read -r ilines iirqs < "$TMP/irq"
echo "# funcgraph -I vfs_read: $ilines lines, $iirqs of interrupts"
if [ "$iirqs" -gt 0 ]; then
	check "funcgraph vfs_read (no -I) during interrupts: exit 0, $lines lines, $irqs of an interrupt's work" \
		[ "$rc" -eq 0 -a "$lines" -gt 100 -a "$irqs" -eq 0 ] ||
		grep -nE -B4 -A2 "[ |] *$IRQWORK(\(\)|;| \{| \*/)" "$TMP/noirq" | head -20 | sed 's/^/# /'
	check "funcgraph vfs_read (no -I): every CPU's graph nests" nested "$TMP/noirq" ||
		{ echo "# its stderr:"; sed 's/^/#   /' "$TMP/noirq.err"; }
else
	skip "funcgraph without -I: no interrupt landed in vfs_read in 2 s with -I (nothing to leave out)"
fi
check "after funcgraph -I: tracefs as before" same_state

# A graph cut by lost events says where, on the CPU that lost them: a 64 KB buffer and the
# same reads (vfs_read's callees are some thousands of events each).
reading env FTT_BUFFER_KB=64 "$BIN/funcgraph" -d 1 vfs_read
lost=$(sed -n 's/.*: \([0-9]*\) events were lost in all.*/\1/p' "$TMP/err")
# Events the kernel dropped where no page marks (commit overruns: an interrupt's events
# lapping a 64 KB buffer over an uncommitted one), as the tool says: each may cut one graph
# without a mark (seen once in a 6.1 guest: one depth-0 call opened inside another).
unplaced=$(sed -n 's/.*: \([0-9]*\) of them were dropped where no page.*/\1/p' "$TMP/err")
# (4.9 says a page lost events without how many: a mark with no number)
marks=$(awk '/^ *[0-9]+\) ------ [0-9]+ events lost ------$/ { s += $3 } / ------ ([0-9]+ )?events lost ------$/ { n++ } END { print s + 0, n + 0 }' "$TMP/out")
check "funcgraph with a 64 KB buffer: the losses marked where they happened (${marks#* } marks, of ${marks% *} events counted, ${lost:-none} in all), the rest nests" sh -c "
	[ $RC -eq 0 ] && [ '${lost:-0}' -gt 0 ] && [ '${marks#* }' -gt 0 ] && [ '${marks% *}' -le '$lost' ]" &&
	check "... and what is left nests${unplaced:+ (but for the $unplaced events dropped where no page marks)}" \
		nested "$TMP/out" "${unplaced:-0}" || { sed 's/^/# /' "$TMP/err"; grep -c . "$TMP/out"; }
check "after funcgraph with losses: tracefs as before" same_state

# --- the top level: one owner, others refused ------------------------------------------------------
# (-m 1 here and in the stop cases: the kernel patches one function, not all, each way; 10 to
# 30 s a run under TCG in Debian's kernels)
rm -f "$TMP/out1" "$TMP/err1" # (a banner left from the last run is not this one's)
"$BIN/funcgraph" -m 1 hrtimer_nanosleep > "$TMP/out1" 2> "$TMP/err1" &
P1=$!
wait_ready $P1 "$TMP/err1"
"$BIN/funcgraph" vfs_read > "$TMP/out" 2> "$TMP/err"
rc=$?
check "a second funcgraph: exit 1, one line naming the owner funcgraph and its PID" sh -c "
	[ $rc -eq 1 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] &&
	grep -q 'the top-level tracer is in use by funcgraph (PID $P1, since [0-9:]*)' '$TMP/err'" ||
	cat "$TMP/err"
check "the owner still runs: perf-tools' lock names it meanwhile" sh -c \
	"kill -0 $P1 && [ \"\$(cat /var/tmp/.ftrace-lock)\" = $P1 ]"
"$ST" 0 0 1000
kill -INT $P1
wait_exit $P1 10
check "the owner, stopped: exit 0, its nap shown; tracefs as before" sh -c "
	[ $RC -eq 0 ] && grep -q 'hrtimer_nanosleep' '$TMP/out1'" && check "... and tracefs as before" same_state

echo hrtimer_nanosleep > "$T/set_ftrace_filter" # (one function patched, not all)
echo function_graph > "$T/current_tracer" 2> /dev/null || echo function > "$T/current_tracer"
was=$(cat "$T/current_tracer")
"$BIN/funcgraph" vfs_read > "$TMP/out" 2> "$TMP/err"
rc=$?
echo nop > "$T/current_tracer"
echo > "$T/set_ftrace_filter"
check "current_tracer set by someone else ($was): exit 1, one line naming it" sh -c \
	"[ $rc -eq 1 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q 'current_tracer is $was, not set by ftrace-tools' '$TMP/err'"
echo 4242 > /var/tmp/.ftrace-lock
"$BIN/funcgraph" vfs_read > "$TMP/out" 2> "$TMP/err"
rc=$?
rm -f /var/tmp/.ftrace-lock
check "perf-tools' lock present: exit 1, one line naming it and its PID" sh -c \
	"[ $rc -eq 1 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q 'in use by perf-tools: /var/tmp/.ftrace-lock names PID 4242' '$TMP/err'"
echo sched:sched_switch > "$T/set_event"
"$BIN/funcgraph" vfs_read > "$TMP/out" 2> "$TMP/err"
rc=$?
echo > "$T/set_event"
check "an event enabled at the top level: exit 1, one line naming it" sh -c \
	"[ $rc -eq 1 ] && grep -q 'events are enabled there (sched:sched_switch' '$TMP/err'"
check "refused runs: tracefs as before" same_state

# --- every setting written back as it was, not as the defaults ---------------------------------------
echo schedule > "$T/set_graph_function"
echo 7 > "$T/max_graph_depth"
echo 0 > "$T/tracing_on"
echo global > "$T/trace_clock"
echo 2048 > "$T/buffer_size_kb"
echo 0 > "$T/options/sleep-time" 2> /dev/null
save_state
rm -f "$TMP/out" "$TMP/err" # (a banner left from the last run is not this one's)
"$BIN/funcgraph" -m 1 -p $$ hrtimer_nanosleep > "$TMP/out" 2> "$TMP/err" &
P1=$!
wait_ready $P1 "$TMP/err"
check "while funcgraph runs: its settings are in place (-m 1: the function alone traced)" sh -c "
	grep -qx function_graph '$T/current_tracer' && grep -qx hrtimer_nanosleep '$T/set_graph_function' &&
	grep -qx hrtimer_nanosleep '$T/set_ftrace_filter' &&
	grep -qx 1 '$T/max_graph_depth' && grep -qx 1 '$T/tracing_on' && grep -qx $$ '$T/set_ftrace_pid'"
kill -INT $P1
wait_exit $P1 10
check "after it: exit 0, and the settings found (schedule, depth 7, off, global, 2048) are back" sh -c \
	"[ $RC -eq 0 ]" && check "... tracefs as before" same_state
# -p of a process of 1200 threads: every one in set_ftrace_pid (not the 500 to 1000 that 4 KB of IDs
# held, the rest dropped without a word), and the list as found after.
touch "$TMP/threads-go"
"$ET" "$TMP/threads-go" threads 1199 &
MANY=$!
w=0
# (Up to 100 s: the 4.19 guest of a loaded CI failed the check below once, its counts cut
# from the log; threads still starting after the 20 s waited then are the likely cause.)
while [ "$(ls /proc/$MANY/task 2> /dev/null | wc -l)" -lt 1200 ] && [ $w -lt 1000 ]; do
	sleep 0.1
	w=$((w + 1))
done
save_state
rm -f "$TMP/out" "$TMP/err" # (a banner left from the last run is not this one's)
"$BIN/funcgraph" -m 1 -p $MANY hrtimer_nanosleep > "$TMP/out" 2> "$TMP/err" &
P1=$!
# (1.5 s to the banner in the 4.14 guest alone; more than 10 s once, the host busy; the 4.19
# guest of a loaded CI failed the check below again once with 60 s, its reasons not logged)
wait_ready $P1 "$TMP/err" 1800 && ready=seen || ready="not seen"
ready="threads after $w tenths of a second, banner $ready after $i, funcgraph $(kill -0 $P1 2> /dev/null && echo running || echo gone)"
check "funcgraph -p of a process of 1200 threads: all 1200 in set_ftrace_pid" sh -c "
	[ \$(grep -c '^[0-9]' '$T/set_ftrace_pid') -eq 1200 ] && grep -qx $MANY '$T/set_ftrace_pid'" ||
	{
		echo "# $ready"
		echo "# $(grep -c '^[0-9]' "$T/set_ftrace_pid") IDs in set_ftrace_pid, $(ls /proc/$MANY/task | wc -l) threads; head:"
		head -3 "$T/set_ftrace_pid" | sed 's/^/#   /'
		sed 's/^/# err: /' "$TMP/err"
	}
kill -INT $P1
wait_exit $P1 10
kill $MANY
wait $MANY 2> /dev/null
check "... exit 0" sh -c "[ $RC -eq 0 ]" && check "... tracefs as before" same_state

# Naps all along, a few a second: | head -1 has a first line to take. (Not more: under
# qemu's TCG a flood of graphs outruns the reader, and the stop reads all that was recorded.)
( while :; do "$ST" 0 0 1000; sleep 0.1; done ) &
NAPPER=$!
stop_cases "funcgraph -m 1 hrtimer_nanosleep" "$BIN/funcgraph" -m 1 hrtimer_nanosleep
kill $NAPPER; wait $NAPPER 2> /dev/null
check "... and the SIGKILL case's next run said what it wrote back" sh -c \
	"grep -q 'funcgraph (PID [0-9]*) was killed holding the top-level tracer: restored its [0-9]* settings' '$TMP/err2'"
echo nop > "$T/current_tracer"
echo > "$T/set_graph_function"
echo 0 > "$T/max_graph_depth"
echo 1 > "$T/tracing_on"
echo local > "$T/trace_clock"
echo 1 > "$T/options/sleep-time" 2> /dev/null

# --- usage errors change nothing ----------------------------------------------------------------------
save_state
for args in "" "-m 0 vfs_read" "-m x vfs_read" "vfs_read extra" "'a b'" "vfs_read:traceoff" "-Z vfs_read"; do
	eval "\"\$BIN/funcgraph\" $args" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "funcgraph $args: usage error, exit 2, one line" sh -c "[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ]" ||
		cat "$TMP/err"
done
"$BIN/funcgraph" ftt_no_such_function_at_all > "$TMP/out" 2> "$TMP/err"
rc=$?
check "funcgraph of no traceable function: exit 2, one line saying so" sh -c \
	"[ $rc -eq 2 ] && grep -q 'no traceable kernel function matches' '$TMP/err'"
check "usage errors: tracefs as before" same_state
summary
