#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of softirqs: its counts per softirq and CPU against the kernel's own counters
# (/proc/softirqs, read before the run starts, once it traces, before it stops and after it
# ended: every count between the inner and the outer difference, and equal to it where
# nothing ran in the gaps), the names the kernel prints (those of /proc/softirqs), times,
# histograms, --raise, --cpu, intervals, -j, bad input and every way of stopping. A
# loopback ping storm makes NET_RX and NET_TX runs, timers and disk writes the others.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

if [ ! -d "$T/events/irq/softirq_entry" ]; then
	skip "softirqs: no irq:softirq_entry tracepoint (CONFIG_EVENT_TRACING)"
	summary
	exit 0
fi

# /proc/softirqs as "NAME CPU COUNT" lines.
proc_soft() {
	awk 'NR == 1 {for (i = 1; i <= NF; i++) cpu[i] = substr($i, 4); next}
	     {n = $1; sub(/:$/, "", n); for (i = 2; i <= NF; i++) print n, cpu[i - 1], $i}' \
		/proc/softirqs > "$1"
}

# Softirqs of every kind: timers, loopback packets (NET_RX), block I/O. ping is busybox's
# where there is no other.
PING=ping
command -v ping > /dev/null || PING="busybox ping"
work() {
	i=0
	while [ $i -lt 10 ]; do sleep 0.01; i=$((i + 1)); done
	$PING -c 30 -i 0.01 -W 1 127.0.0.1 > /dev/null 2>&1
	dd if=/dev/zero of="$TMP/f" bs=4096 count=64 conv=fsync 2> /dev/null
}

# run_counted ARGS...: softirqs ARGS in the background around the workload, /proc/softirqs
# read before it starts ($TMP/p0), when it traces (p1), before its stop (p2), after (p3).
run_counted() {
	proc_soft "$TMP/p0"
	start_bg "$BIN/softirqs" "$@" || return 1
	proc_soft "$TMP/p1"
	work
	proc_soft "$TMP/p2"
	kill -INT $BGPID
	wait_exit $BGPID 10
	proc_soft "$TMP/p3"
}

# compare TOOL-ROWS [SLACK]: "NAME CPU COUNT" of the tool against the four readings. Prints
# "cells exact bad" and the bad ones; every cell of the tool must be a /proc cell. SLACK: so
# many runs the tool said it did not count (any cell's lower bound is that much lower).
compare() {
	awk -v slack="${2:-0}" 'FILENAME ~ /p0$/ {a[$1 " " $2] = $3; next}
	     FILENAME ~ /p1$/ {b[$1 " " $2] = $3; next}
	     FILENAME ~ /p2$/ {c[$1 " " $2] = $3; next}
	     FILENAME ~ /p3$/ {d[$1 " " $2] = $3; next}
	     {t[$1 " " $2] += $3}
	     END {
		for (k in t) if (!(k in d)) { print "not in /proc/softirqs: " k; bad++ }
		for (k in d) {
			n++; got = t[k] + 0; lo = c[k] - b[k] - slack; hi = d[k] - a[k]
			if (got < lo || got > hi) { print k ": " got " not in " lo ".." hi; bad++ }
			else if (a[k] == b[k] && c[k] == d[k]) exact++
		}
		print n + 0, exact + 0, bad + 0
	     }' "$TMP/p0" "$TMP/p1" "$TMP/p2" "$TMP/p3" "$1"
}

# The tool's rows as "NAME CPU COUNT" (text: NAME VEC CPU COUNT ...).
rows() { awk 'NR > 1 && $1 != "TOTAL" {print $1, $3, $4}' "$TMP/out"; }

# -C --per-cpu: every entry, per CPU, as the kernel counts them.
run_counted -C --per-cpu
rows > "$TMP/rows"
compare "$TMP/rows" > "$TMP/cmp"
read -r cells exact bad < "$TMP/cmp" 2> /dev/null || cells=0
check "softirqs -C --per-cpu: exit 0, each of $cells counts within the kernel's (/proc/softirqs) before and after, $exact of them exactly" \
	sh -c "[ $RC -eq 0 ] && [ $cells -gt 0 ] && [ \"\$(tail -1 '$TMP/cmp')\" = '$cells $exact 0' ]" ||
	sed 's/^/# /' "$TMP/cmp" | head -5
check "softirqs -C: the names are those of /proc/softirqs, the loopback's NET_RX among them" \
	sh -c "awk '\$1 == \"NET_RX\" && \$3 > 0' '$TMP/rows' | grep -q . &&
	       ! grep -q 'not in /proc' '$TMP/cmp'"
check "softirqs -C: the TOTAL line is the sum of the rows" sh -c \
	"[ \"\$(awk 'NR > 1 && \$1 != \"TOTAL\" {s += \$4} \$1 == \"TOTAL\" {t = \$4} END {print s == t}' '$TMP/out')\" = 1 ]"

# Times: runs paired per CPU; those under way at the start or the stop are said, and the
# rest are within the kernel's counts.
run_counted --per-cpu
rows > "$TMP/rows"
under=$(sed -n 's/.*softirqs: \([0-9]*\) runs were under way.*/\1/p' "$TMP/err")
compare "$TMP/rows" > "$TMP/cmp"
check "softirqs --per-cpu: runs timed, within the kernel's counts (less ${under:-0} under way at the stop)" \
	sh -c "[ $RC -eq 0 ] && awk -v u=${under:-0} 'END {exit !(\$3 <= u && \$1 > 0)}' '$TMP/cmp'" ||
	sed 's/^/# /' "$TMP/cmp" | head -5
check "softirqs: every row's time above 0 and its average its total over its count" sh -c "
	awk 'NR > 1 && \$4 > 0 {d = \$6 - \$5 / \$4; if (\$5 <= 0 || d > 0.0011 || d < -0.0011) bad = 1} END {exit bad}' '$TMP/out'"

# --hist -j: one object per softirq, its buckets adding up to its count; valid JSON.
"$BIN/softirqs" --hist -j -d 0.5 > "$TMP/out" 2> "$TMP/err"
rc=$?
check "softirqs --hist -j: exit 0, valid JSON, each histogram's buckets add up to its count" sh -c "
	[ $rc -eq 0 ] && [ -s '$TMP/out' ] && '$JSONCHECK' '$TMP/out' time name vec cpu unit count total_us hist &&
	awk '{match(\$0, /\"count\":[0-9]+,/); c = substr(\$0, RSTART + 8, RLENGTH - 9); n = 0; s = \$0
	      while (match(s, /\"count\":[0-9]+}/)) { v = substr(s, RSTART + 8, RLENGTH - 9); n += v; s = substr(s, RSTART + RLENGTH) }
	      if (n != c) exit 1}' '$TMP/out'"

"$BIN/softirqs" -j -d 0.3 > "$TMP/out" 2> "$TMP/err"
check "softirqs -j: valid JSON, a TOTAL object with null name last" sh -c "
	'$JSONCHECK' '$TMP/out' time name vec cpu count total_us avg_us cpu_pct &&
	tail -1 '$TMP/out' | grep -q '\"name\":null,\"vec\":null'"

# --raise: entries paired with the raise they serve; they are entries, within the counts,
# less those whose raise came before tracing (said: on a busy guest ksoftirqd may run a
# softirq raised before the start after /proc/softirqs was read once the tool traced).
run_counted --raise --per-cpu
rows > "$TMP/rows"
unraised=$(sed -n 's/^softirqs: \([0-9]*\) of [0-9]* softirq runs found no start.*/\1/p' "$TMP/err")
compare "$TMP/rows" "${unraised:-0}" > "$TMP/cmp"
check "softirqs --raise: exit 0, the runs served are within the kernel's counts, latencies above 0" \
	sh -c "[ $RC -eq 0 ] && awk 'END {exit !(\$3 == 0 && \$1 > 0)}' '$TMP/cmp' &&
	       awk 'NR > 1 && \$1 != \"TOTAL\" && \$5 <= 0 {bad = 1} END {exit bad}' '$TMP/out'" ||
	{ echo "# exit $RC"; sed 's/^/# /' "$TMP/cmp" "$TMP/err" | head -8; }

# --cpu: rows of that CPU only.
cpu=$(($(grep -c '^processor' /proc/cpuinfo) - 1))
"$BIN/softirqs" -C --cpu $cpu -d 0.5 > "$TMP/out" 2> "$TMP/err"
rc=$?
check "softirqs --cpu $cpu: exit 0, rows of CPU $cpu only" sh -c "
	[ $rc -eq 0 ] && awk 'NR > 1 {n++; if (\$3 != $cpu) bad = 1} END {exit bad || !n}' '$TMP/out'"

"$BIN/softirqs" -T 0.3 2 > "$TMP/out" 2> "$TMP/err"
rc=$?
check "softirqs -T 0.3 2: two tables with their times, then exit 0" sh -c \
	"[ $rc -eq 0 ] && [ \$(grep -c '^SOFTIRQ' '$TMP/out') -eq 2 ] && [ \$(grep -c '^\[[0-9:]*\]$' '$TMP/out') -eq 2 ]"
check "after softirqs: tracefs as before" same_state

for args in "-C --hist|-C and --hist exclude each other" "-N|-N is for --hist" \
	"--cpu 99999|invalid CPU" "--cpu x|invalid CPU" "-C --raise|exclude each other" \
	"-p 1|unknown option" "x|invalid interval" "1 2 3|unexpected argument"; do
	eval "\"\$BIN/softirqs\" ${args%|*}" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "softirqs ${args%|*}: exit 2, one line, '${args#*|}'" sh -c \
		"[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -qF -- '${args#*|}' '$TMP/err'"
done
check "softirqs's bad input changed nothing in tracefs" same_state

stop_cases softirqs "$BIN/softirqs" 1
check "at the end: tracefs as it was" same_state
summary
