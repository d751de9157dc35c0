#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of funccount: test programs make known calls, and funccount counts them to the
# call, in the kernel (the function profiler where there is one, probe hit counts) and as
# events (kprobes, or the instance's function tracer): the test program's own functions (uprobes), the kernel's getppid function
# (kprobes), for every task, -p and --exec; one profiler owner at a time; -j, -v,
# intervals, bad input and every way of stopping.
cd "$(dirname "$0")/../.." || exit 1
TOPLEVEL_STATE=1 # its tools may take the top level: its settings are judged too
. tests/live/lib.sh
require_live
save_state

ST=${SYS_TARGET:-$BIN/tests/sys_target}
need_programs "$ST" "$UT"

# --- user functions (uprobes): the test program calls ftt_add 3 times, ftt_greet once ------
if [ -e "$T/uprobe_events" ]; then
	trace_target "$BIN/funccount" "$UT:ftt_add"
	check "funccount on the test program's ftt_add (hits): its 3 calls" sh -c \
		"[ \"\$(awk '\$1 ~ /:ftt_add\$/ {print \$2}' '$TMP/out')\" = 3 ] &&
		 grep -q 'counted in the kernel: probe hit counts' '$TMP/err'" || target_state
	trace_target -p "$BIN/funccount" -j "$UT:ftt_*"
	check "funccount -p -j on ftt_* (the tasks followed): ftt_add 3, ftt_greet 1" sh -c \
		"grep -q ':ftt_add\",\"count\":3}' '$TMP/out' && grep -q ':ftt_greet\",\"count\":1}' '$TMP/out' &&
		 '$JSONCHECK' '$TMP/out' time func count" || target_state
	"$BIN/funccount" "$UT:no_such_*" > "$TMP/out" 2> "$TMP/err"
	check "funccount on a glob no user function matches: exit 2, one line" sh -c \
		"[ $? -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q 'no function matches' '$TMP/err'"
	# The C library's strlen is an IFUNC on x86-64: its resolver is not its calls.
	if "$BIN/uprobe" -l libc 2> /dev/null | grep -qx strlen && [ "$(uname -m)" = x86_64 ]; then
		"$BIN/funccount" libc:strlen > "$TMP/out" 2> "$TMP/err"
		check "funccount libc:strlen (an IFUNC): exit 2, said" sh -c \
			"[ $? -eq 2 ] && grep -q 'only IFUNCs match' '$TMP/err'"
	fi
	stop_cases "funccount (uprobes)" "$BIN/funccount" -i 1 "$UT:ftt_add"
else
	skip "funccount on user functions: no uprobe_events (CONFIG_UPROBE_EVENTS)"
fi
check "after the user functions: tracefs as before" same_state
if [ ! -e "$T/kprobe_events" ]; then
	"$BIN/funccount" vfs_read > "$TMP/out" 2> "$TMP/err"
	check "funccount without kprobe_events: exit 1, one line naming CONFIG_KPROBE_EVENTS" sh -c \
		"[ $? -eq 1 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q CONFIG_KPROBE_EVENTS '$TMP/err'"
	skip "funccount: no kprobe_events in this kernel (CONFIG_KPROBE_EVENTS); run make vmcheck"
	summary
	exit 0
fi
# getppid's function: __x64_sys_getppid since 4.17, sys_getppid before; 6.1 lists only
# __do_sys_getppid (the others are aliases of it).
F=
for f in __x64_sys_getppid __do_sys_getppid sys_getppid __arm64_sys_getppid; do
	grep -qx "$f" "$T/available_filter_functions" 2> /dev/null && { F=$f; break; }
done
if [ -z "$F" ]; then
	skip "funccount: getppid's function is not in available_filter_functions"
	summary
	exit 0
fi
count() { awk -v f="$F" '$1 == f {print $2}' "$TMP/out"; }

# The best way for every task: the function profiler where the kernel has one (4.x), else
# the probes' hit counts.
if [ -e "$T/function_profile_enabled" ]; then
	PROF=yes BEST="counted in the kernel: the function profiler"
else
	PROF= BEST="counted in the kernel: probe hit counts"
fi
# The tasks of -p, -L, --exec: a hist trigger on each probe where the kernel has them and
# they count those tasks alone (Linux 5.15; numeric literals, 5.16, mark it).
HIST= HISTTASKS=
TASKS="each call an event, counted here"
if grep -q 'hist:keys' "$T/README"; then
	HIST=yes
	if grep -q numeric_literal "$T/README"; then
		HISTTASKS=yes TASKS="counted in the kernel: a hist trigger on each probe"
	fi
fi
# Every task: nothing else in the guest calls getppid while the program runs.
for via in "" hits events ftrace ${PROF:+profile} ${HIST:+hist}; do
	start_bg "$BIN/funccount" ${via:+--via $via} "$F" || continue
	"$ST" 1234 0
	stop_bg
	case ${via:-best} in
	best) how=$BEST ;;
	hits) how="counted in the kernel: probe hit counts" ;;
	events) how="each call an event, counted here" ;;
	ftrace) how="each call an event of the function tracer, counted here" ;;
	profile) how="counted in the kernel: the function profiler" ;;
	hist) how="counted in the kernel: a hist trigger on each probe" ;;
	esac
	check "funccount (${via:-best}): $F counted 1234 times" sh -c \
		"[ $RC -eq 0 ] && [ \"\$(awk -v f=$F '\$1 == f {print \$2}' '$TMP/out')\" = 1234 ]" ||
		cat "$TMP/out" "$TMP/err"
	check "funccount (${via:-best}): the banner says how: $how" \
		grep -q "^Counting calls of 1 kernel function, $how" "$TMP/err"
done
check "after the ways of counting: tracefs as before" same_state

if [ -n "$PROF" ]; then
	# One run at a time owns the profiler: the next counts by hits, or with --via profile
	# is refused naming the owner.
	# (No shell starts while it counts: busybox sh calls getppid as it starts.)
	start_bg "$BIN/funccount" --via profile "$F"
	"$BIN/funccount" -v "$F" > "$TMP/out2" 2> "$TMP/err2"
	"$BIN/funccount" --via profile "$F" > "$TMP/out3" 2> "$TMP/err3"
	rc=$?
	"$ST" 55 0
	stop_bg
	check "funccount -v while another run profiles: probe hit counts" \
		grep -q 'probe hit counts' "$TMP/err2"
	check "funccount --via profile while another run profiles: exit 1, one line naming it" sh -c \
		"[ $rc -eq 1 ] && [ \$(wc -l < '$TMP/err3') -eq 1 ] &&
		 grep -q 'in use by funccount (PID $BGPID' '$TMP/err3'" || cat "$TMP/err3"
	check "funccount --via profile: its count unchanged by the refused runs (55)" sh -c \
		"[ $RC -eq 0 ] && [ \"\$(awk -v f=$F '\$1 == f {print \$2}' '$TMP/out')\" = 55 ]"
	"$BIN/funccount" --via profile -p 1 "$F" > "$TMP/out2" 2> "$TMP/err2"
	check "funccount --via profile -p: exit 2, one line, every task" sh -c \
		"[ $? -eq 2 ] && [ \$(wc -l < '$TMP/err2') -eq 1 ] && grep -q 'every task' '$TMP/err2'"
	check "after the profiler: tracefs as before" same_state
else
	"$BIN/funccount" --via profile "$F" > "$TMP/out2" 2> "$TMP/err2"
	check "funccount --via profile without a profiler: exit 1, one line naming CONFIG_FUNCTION_PROFILER" sh -c \
		"[ $? -eq 1 ] && [ \$(wc -l < '$TMP/err2') -eq 1 ] && grep -q CONFIG_FUNCTION_PROFILER '$TMP/err2'"
fi

"$BIN/funccount" "$F" --exec "$ST" 777 0 > "$TMP/out" 2> "$TMP/err"
rc=$?
check "funccount --exec: exit 0, the command's 777 calls" sh -c \
	"[ $rc -eq 0 ] && [ \"\$(awk -v f=$F '\$1 == f {print \$2}' '$TMP/out')\" = 777 ]"
"$BIN/funccount" --via ftrace "$F" --exec "$ST" 777 0 > "$TMP/out" 2> "$TMP/err"
rc=$?
check "funccount --via ftrace --exec: exit 0, the command's 777 calls" sh -c \
	"[ $rc -eq 0 ] && [ \"\$(awk -v f=$F '\$1 == f {print \$2}' '$TMP/out')\" = 777 ]" ||
	cat "$TMP/out" "$TMP/err"
for via in events ${HISTTASKS:+hist}; do
	"$BIN/funccount" --via $via "$F" --exec "$ST" 777 0 > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "funccount --via $via --exec: exit 0, the command's 777 calls" sh -c \
		"[ $rc -eq 0 ] && [ \"\$(awk -v f=$F '\$1 == f {print \$2}' '$TMP/out')\" = 777 ]" ||
		cat "$TMP/out" "$TMP/err"
done
if [ -z "$HISTTASKS" ]; then
	"$BIN/funccount" --via hist -p 1 "$F" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	[ -n "$HIST" ] && why="before Linux 5.15" || why=CONFIG_HIST_TRIGGERS
	check "funccount --via hist -p where the triggers cannot count one process's calls: exit 1, one line naming $why" sh -c \
		"[ $rc -eq 1 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q '$why' '$TMP/err'"
fi
"$BIN/funccount" -j "$F" --exec "$ST" 77 0 > "$TMP/out" 2> "$TMP/err"
check "funccount -j: the row as JSON" sh -c \
	"grep -q '\"func\":\"$F\",\"count\":77}' '$TMP/out' && '$JSONCHECK' '$TMP/out' time func count"

"$BIN/funccount" -v "$F" > "$TMP/out" 2> "$TMP/err"
rc=$?
check "funccount -v: the function listed, $BEST, exit 0" sh -c \
	"[ $rc -eq 0 ] && [ \"\$(cat '$TMP/out')\" = '$F' ] && grep -q '$BEST' '$TMP/err'"
"$BIN/funccount" -v -p 1 "$F" > "$TMP/out" 2> "$TMP/err"
check "funccount -v -p: $TASKS" grep -q "$TASKS" "$TMP/err"
"$BIN/funccount" -v -p 1 -n init "$F" > "$TMP/out" 2> "$TMP/err"
check "funccount -v -p -n: each call an event (a name no trigger filter matches everywhere)" \
	grep -q 'each call an event, counted here' "$TMP/err"
check "funccount -v changed nothing in tracefs" same_state

# -d a multiple of -i: one table per interval, the last printed once its calls are read (a
# third, partial table with the second's time came after it).
"$BIN/funccount" -i 1 -d 2 "$F" > "$TMP/out" 2> "$TMP/err"
rc=$?
check "funccount -i 1 -d 2: exit 0, two tables, each timed" sh -c \
	"[ $rc -eq 0 ] && [ \$(grep -c '^FUNC' '$TMP/out') -eq 2 ] &&
	 [ \$(grep -c '^\[[0-9:]*\]\$' '$TMP/out') -eq 2 ]" || cat "$TMP/out"

# Every pattern must match: one that matches nothing is a usage error naming it, even beside
# one that does (it exited 0, counting the other).
"$BIN/funccount" -v "$F" ftt_no_such_fn > "$TMP/out" 2> "$TMP/err"
rc=$?
check "funccount -v $F ftt_no_such_fn: exit 2, one line naming ftt_no_such_fn, nothing listed" sh -c \
	"[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q \"matches 'ftt_no_such_fn'\" '$TMP/err' &&
	 [ ! -s '$TMP/out' ]" || cat "$TMP/err"

# A glob of hundreds or thousands of functions (funccount(8)'s example: 1,038 on 6.12, which
# refused more than 1000; 376 on 4.19 took 18 to 37 s to start): counted by the profiler or
# the function tracer, started in a few seconds even here (a probe each takes 0.1 to 0.3 s
# under TCG). The run's own time in seconds to its banner, measured by the test.
now_s() { cut -d' ' -f1 /proc/uptime; }
t0=$(now_s)
start_bg "$BIN/funccount" --top 5 '*alloc*'
t1=$(now_s)
"$ST" 10 0
stop_bg
secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", b - a + 0.5 }')
echo "# funccount --top 5 '*alloc*': $(head -1 "$TMP/err" | cut -c1-120); banner after $secs s"
check "funccount --top 5 '*alloc*': exit 0, at most 5 rows, by the profiler or the function tracer" sh -c \
	"[ $RC -eq 0 ] && [ \$(grep -vc '^FUNC' '$TMP/out') -ge 1 ] && [ \$(grep -vc '^FUNC' '$TMP/out') -le 5 ] &&
	 grep -Eq 'Counting calls of [0-9]+ kernel functions, (counted in the kernel: the function profiler|each call an event of the function tracer)' '$TMP/err'" ||
	cat "$TMP/out" "$TMP/err"
check "funccount --top 5 '*alloc*': counting within 15 s of its start ($secs s)" [ "$secs" -le 15 ]
# The patterns themselves to set_ftrace_filter: the kernel matches them as the tool does.
"$BIN/funccount" --via ftrace '*sys_getpp*' --exec "$ST" 321 0 > "$TMP/out" 2> "$TMP/err"
check "funccount --via ftrace '*sys_getpp*' --exec: the command's 321 calls of $F" sh -c \
	"[ \"\$(awk -v f=$F '\$1 == f {print \$2}' '$TMP/out')\" = 321 ]" || cat "$TMP/out" "$TMP/err"
check "after the large globs: tracefs as before" same_state

"$BIN/funccount" -i 0.3 -d 1 "$F" > "$TMP/out" 2> "$TMP/err"
rc=$?
check "funccount -i 0.3 -d 1: exit 0, a table per interval (3 or 4), each timed" sh -c \
	"[ $rc -eq 0 ] && n=\$(grep -c '^FUNC' '$TMP/out') && [ \$n -ge 3 ] && [ \$n -le 4 ] &&
	 [ \$(grep -c '^\[[0-9:]*\]\$' '$TMP/out') -eq \$n ]"

for args in "|no PATTERN" "'a b'|invalid PATTERN" "--via x $F|invalid --via" \
	"--via hits -p 1 $F|not with -p" "--top -1 $F|invalid N" "--via hist -n x $F|not with -n" \
	"--via ftrace 'libc:str*'|not with LIB:GLOB" \
	"ftt_no_such_function_*|no traceable kernel function matches"; do
	eval "\"\$BIN/funccount\" ${args%|*}" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "funccount ${args%|*}: exit 2, one line, '${args#*|}'" sh -c \
		"[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -qF '${args#*|}' '$TMP/err'"
done
check "funccount's bad input changed nothing in tracefs" same_state

stop_cases funccount "$BIN/funccount" -i 1 "$F"
stop_cases "funccount --via ftrace" "$BIN/funccount" --via ftrace -i 1 "$F"
[ -n "$PROF" ] && stop_cases "funccount --via profile" "$BIN/funccount" --via profile -i 1 "$F"
check "at the end: tracefs as it was" same_state
summary
