#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of funclatency: every call of a user function of the test program (uprobes) and
# of the kernel's getppid function (kprobes, where the kernel has them) lands in the
# histogram once, with --exec and -p, as text and JSON, per name and per thread (-k); units,
# intervals, bad input and every way of stopping.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

ST=${SYS_TARGET:-$BIN/tests/sys_target}
need_programs "$ST" "$UT"
# The calls in a text histogram: the COUNT column of its rows.
calls() { awk '$2 == "->" {s += $5} END {print s + 0}' "$TMP/out"; }

# --- user functions (uprobes) -----------------------------------------------------------------
if [ -e "$T/uprobe_events" ]; then
	trace_target -p "$BIN/funclatency" "$UT:ftt_add"
	check "funclatency -p on the test program's ftt_add: its 3 calls" sh -c \
		"[ \"\$(awk '\$2 == \"->\" {s += \$5} END {print s + 0}' '$TMP/out')\" = 3 ] &&
		 grep -q '^ *>=(us) \.\. <(us) *: calls' '$TMP/out'" || target_state
	trace_target -p "$BIN/funclatency" -N -j "$UT:ftt_add"
	check "funclatency -N -j: one object, 3 calls, in nanoseconds" sh -c \
		"grep -q '\"func\":\"ftt_add\",\"unit\":\"ns\",\"count\":3,\"hist\":\\[' '$TMP/out' &&
		 '$JSONCHECK' '$TMP/out' time func unit count hist"
	# -k comm: the same program under two names, each its own histogram.
	ln -sf "$(cd "$(dirname "$ST")" && pwd)/$(basename "$ST")" "$TMP/ftt_other"
	if start_bg "$BIN/funclatency" -j -k comm "$ST:ftt_nap"; then
		"$ST" 0 0 1000 1000 2000
		"$TMP/ftt_other" 0 0 1000
		stop_bg
		check "funclatency -j -k comm: a histogram per name, 3 calls and 1" sh -c "
			[ $RC -eq 0 ] && [ \$(wc -l < '$TMP/out') -eq 2 ] &&
			grep -q '\"comm\":\"sys_target\",\"unit\":\"us\",\"count\":3,' '$TMP/out' &&
			grep -q '\"comm\":\"ftt_other\",\"unit\":\"us\",\"count\":1,' '$TMP/out' &&
			'$JSONCHECK' '$TMP/out' time func comm unit count hist" || cat "$TMP/out" "$TMP/err"
	fi
	"$BIN/funclatency" -k tid "$ST:ftt_nap" --exec "$ST" 0 0 1000 1000 > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "funclatency -k tid --exec: one histogram under 'tid = N', its 2 calls" sh -c "
		[ $rc -eq 0 ] && [ \$(grep -c '^tid = [0-9][0-9]*\$' '$TMP/out') -eq 1 ] &&
		[ \$(awk '\$2 == \"->\" {s += \$5} END {print s + 0}' '$TMP/out') -eq 2 ]" ||
		cat "$TMP/out" "$TMP/err"
	"$BIN/funclatency" "$UT:no_such_symbol" > "$TMP/out" 2> "$TMP/err"
	check "funclatency on a missing symbol: exit 2, one line" sh -c \
		"[ $? -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q 'no symbol no_such_symbol' '$TMP/err'"
	stop_cases "funclatency (uprobes)" "$BIN/funclatency" -i 1 "$UT:ftt_add"
else
	skip "funclatency on user functions: no uprobe_events (CONFIG_UPROBE_EVENTS)"
fi
check "after the user functions: tracefs as before" same_state

# --- kernel functions (kprobes) -------------------------------------------------------------
F=
for f in __x64_sys_getppid __do_sys_getppid sys_getppid __arm64_sys_getppid; do
	grep -qx "$f" "$T/available_filter_functions" 2> /dev/null && { F=$f; break; }
done
if [ ! -e "$T/kprobe_events" ]; then
	"$BIN/funclatency" vfs_read > "$TMP/out" 2> "$TMP/err"
	check "funclatency without kprobe_events: exit 1, one line naming CONFIG_KPROBE_EVENTS" sh -c \
		"[ $? -eq 1 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q CONFIG_KPROBE_EVENTS '$TMP/err'"
	skip "funclatency on kernel functions: no kprobe_events (CONFIG_KPROBE_EVENTS); run make vmcheck"
elif [ -z "$F" ]; then
	skip "funclatency on kernel functions: getppid's function is not in available_filter_functions"
else
	"$BIN/funclatency" "$F" --exec "$ST" 1234 0 > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "funclatency $F --exec: exit 0, the command's 1234 calls in the histogram" sh -c \
		"[ $rc -eq 0 ] && [ \$(awk '\$2 == \"->\" {s += \$5} END {print s + 0}' '$TMP/out') -eq 1234 ]" ||
		cat "$TMP/out" "$TMP/err"
	"$BIN/funclatency" -j -m "$F" --exec "$ST" 77 0 > "$TMP/out" 2> "$TMP/err"
	check "funclatency -j -m: 77 calls, in milliseconds" \
		grep -q "\"func\":\"$F\",\"unit\":\"ms\",\"count\":77," "$TMP/out"
	"$BIN/funclatency" -i 0.3 -d 1 "$F" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "funclatency -i 0.3 -d 1: exit 0, a histogram per interval (3 or 4), each timed" sh -c \
		"[ $rc -eq 0 ] && n=\$(grep -c '>=(us)' '$TMP/out') && [ \$n -ge 3 ] && [ \$n -le 4 ] &&
		 [ \$(grep -c '^\[[0-9:]*\]\$' '$TMP/out') -eq \$n ]"
	"$BIN/funclatency" ftt_no_such_function > "$TMP/out" 2> "$TMP/err"
	check "funclatency on a function that cannot be traced: exit 2, one line" sh -c \
		"[ $? -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q 'cannot be traced' '$TMP/err'"
	stop_cases funclatency "$BIN/funclatency" -i 1 "$F"
fi
check "after the kernel functions: tracefs as before" same_state

for args in "|no FUNC" "'vfs_*'|invalid FUNC" "-m -N vfs_read|exclude each other" \
	"vfs_read vfs_write|unexpected argument" "nosuchlib_ftt:f|target not found" \
	"-k pid vfs_read|KEY"; do
	eval "\"\$BIN/funclatency\" ${args%|*}" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "funclatency ${args%|*}: exit 2, one line, '${args#*|}'" sh -c \
		"[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -qF '${args#*|}' '$TMP/err'"
done
check "at the end: tracefs as it was" same_state
summary
