#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of functrace: a static test program makes a known number of getppid() calls and
# functrace --exec shows each call of the kernel's getppid function once, as text, JSON, per
# second counts and with kernel stacks; bad input and every way of stopping.
cd "$(dirname "$0")/../.." || exit 1
TOPLEVEL_STATE=1 # its tools may take the top level: its settings are judged too
. tests/live/lib.sh
require_live
save_state

ST=${SYS_TARGET:-$BIN/tests/sys_target}
need_programs "$ST"
if ! grep -qw function "$T/available_tracers"; then
	"$BIN/functrace" vfs_read > "$TMP/out" 2> "$TMP/err"
	check "functrace without the function tracer: exit 1, one line naming CONFIG_FUNCTION_TRACER" sh -c \
		"[ $? -eq 1 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q CONFIG_FUNCTION_TRACER '$TMP/err'"
	skip "functrace: no function tracer (CONFIG_FUNCTION_TRACER)"
	summary
	exit 0
fi
if ! head -c 1 "$T/available_filter_functions" > /dev/null 2>&1; then
	# This machine's 6.18: the function tracer is listed, but its files refuse (EPERM).
	"$BIN/functrace" vfs_read > "$TMP/out" 2> "$TMP/err"
	check "functrace where the kernel refuses the tracer's files: exit 1, one line saying so" sh -c \
		"[ $? -eq 1 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q 'cannot read available_filter_functions' '$TMP/err'"
	check "functrace refused: tracefs as before" same_state
	skip "functrace: the kernel refuses available_filter_functions here; run make vmcheck"
	summary
	exit 0
fi
F=
for f in __x64_sys_getppid __do_sys_getppid sys_getppid __arm64_sys_getppid; do
	grep -qx "$f" "$T/available_filter_functions" && { F=$f; break; }
done
if [ -z "$F" ]; then
	skip "functrace: getppid's function is not in available_filter_functions"
	summary
	exit 0
fi

"$BIN/functrace" "$F" --exec "$ST" 1234 0 > "$TMP/out" 2> "$TMP/err"
rc=$?
# (6.1 names __do_sys_getppid's address __x64_sys_getppid: aliases of one address)
check "functrace $F --exec: exit 0, each of the 1234 calls once, named, with its caller" sh -c \
	"[ $rc -eq 0 ] && [ \$(grep -c ' function: *[_a-z0-9]*sys_getppid <-- [a-z_0-9]' '$TMP/out') -eq 1234 ] &&
	 [ \$(wc -l < '$TMP/out') -eq 1234 ] && grep -q '^ *sys_target-[0-9]' '$TMP/out'" ||
	{ head -3 "$TMP/out"; cat "$TMP/err"; }
# Two patterns, the second matching a function the program never calls: only the first's
# calls. (The kernel takes a word of set_ftrace_filter at the whitespace that ends it: written
# bare, the two ran together into one that matched nothing, and the filter left empty traced
# every function. '*getpgid': 4.9 and 4.14 list getpgid's function as SyS_getpgid, whose
# sys_getpgid is an alias not in available_filter_functions.)
"$BIN/functrace" "$F" '*getpgid' --exec "$ST" 50 0 > "$TMP/out" 2> "$TMP/err"
rc=$?
check "functrace $F '*getpgid' --exec: exit 0, the 50 calls of $F and nothing else" sh -c \
	"[ $rc -eq 0 ] && [ \$(grep -c ' function: *[_a-z0-9]*sys_getppid <-- ' '$TMP/out') -eq 50 ] &&
	 [ \$(wc -l < '$TMP/out') -eq 50 ]" || { head -3 "$TMP/out"; head -3 "$TMP/err"; }
"$BIN/functrace" -c "$F" --exec "$ST" 1234 0 > "$TMP/out" 2> "$TMP/err"
check "functrace -c: the counts add up to 1234" \
	[ "$(awk '$1 == "ftrace:function" {s += $2} END {print s + 0}' "$TMP/out")" -eq 1234 ]
"$BIN/functrace" -j "$F" --exec "$ST" 77 0 > "$TMP/out" 2> "$TMP/err"
check "functrace -j: 77 objects with ip and parent_ip" sh -c \
	"[ \$(grep -c '\"event\":\"ftrace:function\",\"fields\":{\"ip\":[0-9]*,\"parent_ip\":[0-9]*' '$TMP/out') -eq 77 ] &&
	 '$JSONCHECK' '$TMP/out' time ts cpu pid comm event fields"
# -s: every call with its stack, on every run (4.x and 6.12 keep func_stack_trace for the
# whole kernel: the first run after boot set it there and left it, so later runs had none), the
# first frame its caller (the call's parent_ip: not the traced function itself, nor the
# trampoline's marker 0x7fffffff of 6.x or a made-up frame of 4.19), and the option at the top
# level as it was, 0 or 1.
stacks_ok() { # stacks_ok FILE: 3 calls, each followed by its stack, whose first frame is the caller
	awk '
	/ function: / { ev++; if (want != "") bad++; want = $NF; next }
	/^ => / { if (want != "") { stacks++; if (index($2, want "+0x") != 1) { bad++; print "# first frame " $2 ", caller " want } } want = "" }
	END { if (want != "") bad++; exit !(ev == 3 && stacks == 3 && !bad) }' "$1"
}
FST=$T/options/func_stack_trace
top_fst() { cat "$FST" 2> /dev/null || echo none; }
before=$(top_fst)
for run in 1 2; do
	"$BIN/functrace" -s "$F" --exec "$ST" 3 0 > "$TMP/out" 2> "$TMP/err"
	check "functrace -s, run $run: 3 calls, each followed by its kernel stack from its caller" \
		stacks_ok "$TMP/out"
	check "functrace -s, run $run: func_stack_trace at the top level as it was ($before)" \
		[ "$(top_fst)" = "$before" ]
done
if [ -w "$FST" ] && [ "$(cat "$T/current_tracer")" = nop ]; then
	# Set by someone else (nobody traces at the top level: nothing changes but the flag).
	echo 1 > "$FST"
	"$BIN/functrace" -s "$F" --exec "$ST" 3 0 > "$TMP/out" 2> "$TMP/err"
	check "functrace -s with func_stack_trace set at the top level: the stacks" stacks_ok "$TMP/out"
	check "functrace -s with func_stack_trace set at the top level: still 1 after" [ "$(top_fst)" = 1 ]
	echo "$before" > "$FST"
fi
check "after functrace: tracefs as before" same_state

for args in "|no PATTERN" "'a:b'|invalid PATTERN" "'!x'|invalid PATTERN" \
	"ftt_no_such_function_*|no traceable kernel function matches" "-s -c $F|not with -c"; do
	eval "\"\$BIN/functrace\" ${args%|*}" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "functrace ${args%|*}: exit 2, one line, '${args#*|}'" sh -c \
		"[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -qF '${args#*|}' '$TMP/err'"
done
check "functrace's bad input changed nothing in tracefs" same_state

stop_cases functrace "$BIN/functrace" -c "$F"
check "at the end: tracefs as it was" same_state
summary
