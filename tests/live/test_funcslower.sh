#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of funcslower: a static test program naps for known times in a function of its
# own (uprobes) and so in the kernel's nanosleep (kprobes, where the kernel has them); only
# the calls over the threshold are shown, each once, with durations no shorter than the
# naps, their return values and arguments, as text and JSON; -n, bad input and every way of
# stopping. Where the kernel has hist triggers and synthetic events it pairs entry and
# return itself and sends only the slow calls; --user-space pairs them here: both ways give
# the same calls.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

ST=${SYS_TARGET:-$BIN/tests/sys_target}
need_programs "$ST"
# Two long naps among short ones (microseconds): a threshold of 30 ms shows the long ones.
NAPS="1000 60000 1000 80000"

if [ -e "$T/synthetic_events" ] && grep -q 'hist:keys' "$T/README" 2> /dev/null; then
	HOW="filtered in the kernel"
else
	HOW="paired here"
fi

# Each text line of a call ($1 the FUNC): "LAT RET ARGS..." (columns 3.. of the line).
calls() { awk -v f="$1" '$5 == f {$1 = $2 = $5 = ""; print}' "$TMP/out" | tr -s ' ' | sed 's/^ //'; }

# --- user functions (uprobes) -----------------------------------------------------------------
if [ -e "$T/uprobe_events" ]; then
	"$BIN/funcslower" -a 1 "$ST:ftt_nap" 30000 --exec "$ST" 0 0 $NAPS > "$TMP/out" 2> "$TMP/err"
	rc=$?
	calls ftt_nap > "$TMP/calls"
	check "funcslower -a 1 ftt_nap 30000 --exec: exit 0, the two long naps, their values and arguments" sh -c "
		[ $rc -eq 0 ] && [ \$(wc -l < '$TMP/calls') -eq 2 ] &&
		awk 'NR == 1 && \$1 >= 60000 && \$1 < 1060000 && \$2 == 60 && \$3 == \"0xea60\" {a = 1}
		     NR == 2 && \$1 >= 80000 && \$1 < 1080000 && \$2 == 80 && \$3 == \"0x13880\" {b = 1}
		     END {exit !(a && b)}' '$TMP/calls' &&
		head -1 '$TMP/out' | grep -q '^COMM  *PID  *LAT(us)  *RET FUNC ARGS\$' &&
		grep -q '^sys_target  *[0-9][0-9]*  ' '$TMP/out'" || { cat "$TMP/out" "$TMP/err"; }
	check "funcslower on a user function: the banner says how: $HOW" grep -qF "($HOW)" "$TMP/err"

	"$BIN/funcslower" -j -a 2 "$ST:ftt_nap" 0 --exec "$ST" 0 0 $NAPS > "$TMP/out" 2> "$TMP/err"
	rc=$?
	# Each object's lat_ns no shorter than the nap its first argument asked for, and its
	# return value the nap in milliseconds (ftt_nap's).
	json_naps() {
		[ $rc -eq 0 ] && [ $(wc -l < "$TMP/out") -eq 4 ] &&
			"$JSONCHECK" "$TMP/out" time ts pid comm func lat_ns ret args || return 1
		sed 's/.*"lat_ns":\([0-9]*\),"ret":\([0-9-]*\),.*"args":\["\(0x[0-9a-f]*\)",.*/\1 \2 \3/' \
			"$TMP/out" > "$TMP/naps"
		n=0
		while read -r lat ret arg; do
			[ "$lat" -ge $((arg * 1000)) ] && [ "$ret" -eq $((arg / 1000)) ] || return 1
			n=$((n + 1))
		done < "$TMP/naps"
		[ $n -eq 4 ] && [ "$(cut -d' ' -f3 "$TMP/naps" | tr '\n' ' ')" = "0x3e8 0xea60 0x3e8 0x13880 " ] || return 1
		# The time is the call's start: each begins after the one before has returned,
		# and soon after (with return times, the 1 ms nap after the 60 ms one would
		# seem to begin 59 ms before that returned).
		sed 's/.*"ts":\([0-9.]*\),.*"lat_ns":\([0-9]*\),.*/\1 \2/' "$TMP/out" |
			awk 'NR > 1 && ($1 < end - 0.000002 || $1 > end + 0.2) {bad = 1}
			     {end = $1 + $2 / 1e9} END {exit bad}'
	}
	check "funcslower -j -a 2 ftt_nap 0: all four naps, valid JSON, each no shorter than asked" \
		json_naps || cat "$TMP/out" "$TMP/err"

	"$BIN/funcslower" -t -T "$ST:ftt_nap" 70000 --exec "$ST" 0 0 $NAPS > "$TMP/out" 2> "$TMP/err"
	# (the 60 ms nap too when it took over 70 ms: 73 ms once, make check beside a guest)
	check "funcslower -t -T: the 80 ms nap, with both times of its start, and only naps over 70 ms" sh -c "
		grep -Eq '^TIME\(s\) +TIME +COMM ' '$TMP/out' &&
		grep -Eq '^[0-9]+\.[0-9]{6} +[0-9]{2}:[0-9]{2}:[0-9]{2} +sys_target +[0-9]+ +[0-9.]+ +80 ftt_nap\$' '$TMP/out' &&
		awk 'NR > 1 && !(\$5 >= 70000 && (\$6 == 80 || \$6 == 60) && NF == 7) { bad = 1 }
		     END { exit bad || NR < 2 || NR > 3 }' '$TMP/out'"

	"$BIN/funcslower" -U "$ST:ftt_nap" 30000 --exec "$ST" 0 0 $NAPS > "$TMP/out" 2> "$TMP/err"
	rc=$?
	ucheck "funcslower -U ftt_nap 30000: the two long naps, each with its user stack" sh -c "
		[ $rc -eq 0 ] && [ \$(grep -c ' ftt_nap\$' '$TMP/out') -eq 2 ] &&
		awk 'NR == 1 {next} / ftt_nap\$/ {c++; next} /^ <user stack>\$/ {u[c]++; next}
		     /^ => / {f[c]++; next} {bad = 1}
		     END {exit !(!bad && u[1] == 1 && u[2] == 1 && f[1] && f[2])}' '$TMP/out'" ||
		cat "$TMP/out" "$TMP/err"

	# -n: the same program run under another name (a link: the same file, so the same probe).
	ln -sf "$(cd "$(dirname "$ST")" && pwd)/$(basename "$ST")" "$TMP/ftt_other"
	if start_bg "$BIN/funcslower" -n sys_target "$ST:ftt_nap" 0; then
		"$TMP/ftt_other" 0 0 3000
		orc=$?
		"$ST" 0 0 4000
		stop_bg
		check "funcslower -n sys_target: the named task's call, not the other's" sh -c "
			[ $RC -eq 0 ] && [ $orc -eq 0 ] && [ \$(grep -c ' ftt_nap\$' '$TMP/out') -eq 1 ] &&
			grep -Eq '^sys_target +[0-9]+ +[0-9.]+ +4 ftt_nap\$' '$TMP/out'" || cat "$TMP/out"
	fi
	stop_cases "funcslower (uprobes)" "$BIN/funcslower" "$ST:ftt_nap" 0
else
	skip "funcslower on user functions: no uprobe_events (CONFIG_UPROBE_EVENTS)"
fi
check "after the user functions: tracefs as before" same_state

# --- kernel functions (kprobes) -------------------------------------------------------------
F=
for f in hrtimer_nanosleep common_nsleep do_nanosleep; do
	grep -q "^$f\( \|\$\)" "$T/available_filter_functions" 2> /dev/null && { F=$f; break; }
done
if [ ! -e "$T/kprobe_events" ]; then
	"$BIN/funcslower" vfs_read 1000 > "$TMP/out" 2> "$TMP/err"
	check "funcslower without kprobe_events: exit 1, one line naming CONFIG_KPROBE_EVENTS" sh -c \
		"[ $? -eq 1 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q CONFIG_KPROBE_EVENTS '$TMP/err'"
	skip "funcslower on kernel functions: no kprobe_events (CONFIG_KPROBE_EVENTS); run make vmcheck"
elif [ -z "$F" ]; then
	skip "funcslower on kernel functions: no nanosleep function in available_filter_functions"
else
	"$BIN/funcslower" -a 2 "$F" 30000 --exec "$ST" 0 0 $NAPS > "$TMP/out" 2> "$TMP/err"
	rc=$?
	calls "$F" > "$TMP/calls"
	check "funcslower -a 2 $F 30000 --exec: exit 0, the two long naps, returning 0, two arguments" sh -c "
		[ $rc -eq 0 ] && [ \$(wc -l < '$TMP/calls') -eq 2 ] &&
		awk 'NR == 1 && \$1 >= 60000 && \$1 < 1060000 {a = 1}
		     NR == 2 && \$1 >= 80000 && \$1 < 1080000 {b = 1}
		     \$2 != 0 || NF != 4 || \$3 !~ /^0x[0-9a-f]+\$/ {bad = 1}
		     END {exit !(a && b && !bad)}' '$TMP/calls'" || cat "$TMP/out" "$TMP/err"
	check "funcslower on a kernel function: the banner says how: $HOW" grep -qF "($HOW)" "$TMP/err"
	"$BIN/funcslower" --user-space -a 2 "$F" 30000 --exec "$ST" 0 0 $NAPS > "$TMP/out" 2> "$TMP/err"
	rc=$?
	calls "$F" > "$TMP/calls2"
	check "funcslower --user-space -a 2 $F 30000: paired here, the same two naps" sh -c "
		[ $rc -eq 0 ] && grep -qF '(paired here)' '$TMP/err' &&
		[ \$(wc -l < '$TMP/calls2') -eq 2 ] &&
		awk 'NR == 1 && \$1 >= 60000 && \$1 < 1060000 {a = 1}
		     NR == 2 && \$1 >= 80000 && \$1 < 1080000 {b = 1}
		     \$2 != 0 || NF != 4 {bad = 1}
		     END {exit !(a && b && !bad)}' '$TMP/calls2'" || cat "$TMP/out" "$TMP/err"
	# -s: each slow call's callers, the same from the kernel's event (at the return)
	# and from the entry's (paired here): none of the tracing's own frames, not F itself.
	kstacks() {
		awk -v f="$F" '$5 == f {if (c++) print s; s = ""; next} /^ => / {s = s " " $2}
			END {if (c) print s}' "$TMP/out"
	}
	"$BIN/funcslower" -s "$F" 30000 --exec "$ST" 0 0 $NAPS > "$TMP/out" 2> "$TMP/err"
	rc=$?
	kstacks > "$TMP/stacks"
	check "funcslower -s $F 30000: two stacks of callers, the syscall's among them" sh -c "
		[ $rc -eq 0 ] && [ \$(wc -l < '$TMP/stacks') -eq 2 ] &&
		[ \$(grep -c 'nanosleep+0x' '$TMP/stacks') -eq 2 ] &&
		! grep -Eq 'probe|rethook|trampoline|trace|hist|ftrace| $F\\+' '$TMP/stacks'" ||
		cat "$TMP/out" "$TMP/err"
	"$BIN/funcslower" -s --user-space "$F" 30000 --exec "$ST" 0 0 $NAPS > "$TMP/out" 2> "$TMP/err"
	rc=$?
	kstacks > "$TMP/stacks2"
	check "funcslower -s --user-space: the entries' stacks, the same frames" sh -c "
		[ $rc -eq 0 ] && [ -s '$TMP/stacks' ] && cmp -s '$TMP/stacks' '$TMP/stacks2'" ||
		cat "$TMP/stacks" "$TMP/out" "$TMP/err"
	"$BIN/funcslower" -j -s -U "$F" 30000 --exec "$ST" 0 0 $NAPS > "$TMP/out" 2> "$TMP/err"
	rc=$?
	ucheck "funcslower -j -s -U: two valid objects with both stacks; no call said missed" sh -c "
		[ $rc -eq 0 ] && [ \$(wc -l < '$TMP/out') -eq 2 ] &&
		'$JSONCHECK' '$TMP/out' time ts pid comm func lat_ns ret stack ustack &&
		[ \$(grep -c '\"stack\":\[\"[^]]*nanosleep+0x' '$TMP/out') -eq 2 ] &&
		! grep -q 'missed by' '$TMP/err'" || cat "$TMP/out" "$TMP/err"
	# A second Ctrl-C while the output is stalled: the emergency steps remove the hist
	# triggers before the instance, the instance before the probes.
	naps() { "$ST" 0 0 $(awk 'BEGIN {for (i = 0; i < 3000; i++) printf "1 "}'); }
	stall_case funcslower naps "$BIN/funcslower" "$F" 0
	"$BIN/funcslower" ftt_no_such_function 10 > "$TMP/out" 2> "$TMP/err"
	check "funcslower on a function that cannot be traced: exit 2, one line" sh -c \
		"[ $? -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q 'cannot be traced' '$TMP/err'"
	stop_cases funcslower "$BIN/funcslower" "$F" 0
fi
check "after the kernel functions: tracefs as before" same_state

for args in "|no FUNC" "vfs_read|no USECS" "'vfs_*' 10|invalid FUNC" "vfs_read 5x|USECS" \
	"-a 7 vfs_read 10|argument count" "vfs_read 10 20|unexpected argument" \
	"nosuchlib_ftt:f 10|target not found" "-s libc:malloc 10|is a user function"; do
	eval "\"\$BIN/funcslower\" ${args%|*}" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "funcslower ${args%|*}: exit 2, one line, '${args#*|}'" sh -c \
		"[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -qF '${args#*|}' '$TMP/err'"
done
check "at the end: tracefs as it was" same_state
summary
