#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of funccount: a static test program makes a known number of getppid() calls,
# and funccount counts the kernel's getppid function to the call, in the kernel (kprobe hit
# counts) and as events, for every task and for --exec; -j, -v, intervals, bad input and
# every way of stopping.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

ST=${SYS_TARGET:-$BIN/tests/sys_target}
[ -x "$ST" ] || { notok "test program $ST missing (make check builds it)"; summary; exit 1; }
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

# Every task: nothing else in the guest calls getppid while the program runs.
for via in "" events; do
	start_bg "$BIN/funccount" ${via:+--via $via} "$F" || continue
	"$ST" 1234 0
	stop_bg
	how=${via:-hits}
	check "funccount ($how): $F counted 1234 times" sh -c \
		"[ $RC -eq 0 ] && [ \"\$(awk -v f=$F '\$1 == f {print \$2}' '$TMP/out')\" = 1234 ]" ||
		cat "$TMP/out" "$TMP/err"
	check "funccount ($how): the banner says how" \
		grep -q "^Counting calls of 1 kernel function, $([ $how = hits ] && echo counted in the kernel || echo each call an event)" "$TMP/err"
done

"$BIN/funccount" "$F" --exec "$ST" 777 0 > "$TMP/out" 2> "$TMP/err"
rc=$?
check "funccount --exec: exit 0, the command's 777 calls" sh -c \
	"[ $rc -eq 0 ] && [ \"\$(awk -v f=$F '\$1 == f {print \$2}' '$TMP/out')\" = 777 ]"
"$BIN/funccount" -j "$F" --exec "$ST" 77 0 > "$TMP/out" 2> "$TMP/err"
check "funccount -j: the row as JSON" sh -c \
	"grep -q '\"func\":\"$F\",\"count\":77}' '$TMP/out' && '$JSONCHECK' '$TMP/out' time func count"

"$BIN/funccount" -v "$F" > "$TMP/out" 2> "$TMP/err"
rc=$?
check "funccount -v: the function listed, counted in the kernel, exit 0" sh -c \
	"[ $rc -eq 0 ] && [ \"\$(cat '$TMP/out')\" = '$F' ] && grep -q 'kprobe hit counts' '$TMP/err'"
"$BIN/funccount" -v -p 1 "$F" > "$TMP/out" 2> "$TMP/err"
check "funccount -v -p: each call an event" grep -q 'each call an event' "$TMP/err"
check "funccount -v changed nothing in tracefs" same_state

"$BIN/funccount" -i 0.3 -d 1 "$F" > "$TMP/out" 2> "$TMP/err"
rc=$?
check "funccount -i 0.3 -d 1: exit 0, a table per interval (3 or 4), each timed" sh -c \
	"[ $rc -eq 0 ] && n=\$(grep -c '^FUNC' '$TMP/out') && [ \$n -ge 3 ] && [ \$n -le 4 ] &&
	 [ \$(grep -c '^\[[0-9:]*\]\$' '$TMP/out') -eq \$n ]"

for args in "|no PATTERN" "'a b'|invalid PATTERN" "--via x $F|invalid --via" \
	"--via hits -p 1 $F|not with -p" "--top -1 $F|invalid N" \
	"ftt_no_such_function_*|no traceable kernel function matches"; do
	eval "\"\$BIN/funccount\" ${args%|*}" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "funccount ${args%|*}: exit 2, one line, '${args#*|}'" sh -c \
		"[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -qF '${args#*|}' '$TMP/err'"
done
check "funccount's bad input changed nothing in tracefs" same_state

stop_cases funccount "$BIN/funccount" -i 1 "$F"
check "at the end: tracefs as it was" same_state
summary
