#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of hardirqs: its counts per IRQ and CPU against the kernel's own counters
# (/proc/interrupts, read before the run starts, once it traces, before it stops and after
# it ended: every count between the inner and the outer difference, and equal to it where
# nothing came in the gaps), the handlers' names as /proc/interrupts lists them, times,
# histograms, --cpu, intervals, -j, bad input and every way of stopping. Direct reads of a
# disk make its interrupts.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

if [ ! -d "$T/events/irq/irq_handler_entry" ]; then
	skip "hardirqs: no irq:irq_handler_entry tracepoint (CONFIG_EVENT_TRACING)"
	summary
	exit 0
fi

# /proc/interrupts' numbered lines as "IRQ CPU COUNT SHARED" (SHARED 1: more than one handler,
# whose runs hardirqs counts each while the kernel counts the interrupt once).
proc_hard() {
	awk 'NR == 1 {for (i = 1; i <= NF; i++) cpu[i] = substr($i, 4); n = NF; next}
	     $1 ~ /^[0-9]+:$/ {irq = $1; sub(/:$/, "", irq); sh = index($0, ", ") > 0
		for (i = 2; i <= n + 1; i++) print irq, cpu[i - 1], $i, sh}' /proc/interrupts > "$1"
}

DISK=
for d in vda sda nvme0n1 xvda; do [ -b /dev/$d ] && { DISK=/dev/$d; break; }; done
# Interrupts of a disk: 200 direct reads of it, or (where it cannot be opened: this machine's
# lockdown) 200 direct writes to a file on it.
work() {
	dd if="$DISK" of=/dev/null bs=4096 count=200 iflag=direct 2> /dev/null ||
		write_direct "$TMP/f" 200
	sleep 0.1
}

run_counted() {
	proc_hard "$TMP/p0"
	start_bg "$BIN/hardirqs" "$@" || return 1
	proc_hard "$TMP/p1"
	work
	proc_hard "$TMP/p2"
	kill -INT $BGPID
	wait_exit $BGPID 10
	proc_hard "$TMP/p3"
}

# compare TOOL-ROWS ("IRQ CPU COUNT", a line per handler): per IRQ and CPU against the four
# readings; shared IRQs are left out. Prints "cells exact bad shared", the bad ones first.
compare() {
	awk 'FILENAME ~ /p0$/ {a[$1 " " $2] = $3; next}
	     FILENAME ~ /p1$/ {b[$1 " " $2] = $3; next}
	     FILENAME ~ /p2$/ {c[$1 " " $2] = $3; next}
	     FILENAME ~ /p3$/ {d[$1 " " $2] = $3; if ($4) sh[$1 " " $2] = 1; next}
	     {t[$1 " " $2] += $3}
	     END {
		for (k in t) if (!(k in d)) { print "not in /proc/interrupts: " k; bad++ }
		for (k in d) {
			if (k in sh) { shared++; continue }
			n++; got = t[k] + 0; lo = c[k] - b[k]; hi = d[k] - a[k]
			if (got < lo || got > hi) { print k ": " got " not in " lo ".." hi; bad++ }
			else if (a[k] == b[k] && c[k] == d[k]) exact++
		}
		print n + 0, exact + 0, bad + 0, shared + 0
	     }' "$TMP/p0" "$TMP/p1" "$TMP/p2" "$TMP/p3" "$1"
}

# The tool's rows as "IRQ CPU COUNT" (text: NAME IRQ CPU COUNT ...; not the line under the
# table that says what the times include).
rows() { awk 'NR > 1 && $1 != "TOTAL" && !/^\(/ {print $2, $3, $4}' "$TMP/out"; }

run_counted -C --per-cpu
cp "$TMP/out" "$TMP/out.C"
rows > "$TMP/rows"
compare "$TMP/rows" > "$TMP/cmp"
read -r cells exact bad shared < "$TMP/cmp" 2> /dev/null || cells=0
check "hardirqs -C --per-cpu: exit 0, each of $cells counts within the kernel's (/proc/interrupts) before and after, $exact of them exactly ($shared shared left out)" \
	sh -c "[ $RC -eq 0 ] && [ $cells -gt 0 ] && [ \"\$(tail -1 '$TMP/cmp')\" = '$cells $exact 0 $shared' ]" ||
	sed 's/^/# /' "$TMP/cmp" | head -5
# Each handler named as /proc/interrupts names its IRQ (a multi-queue disk has a handler per
# queue: virtio0-req.0, virtio0-req.1; a shared line lists its handlers with commas).
awk 'NR > 1 && $1 != "TOTAL" {n = $1; gsub(/\\x20/, " ", n); print $2, n}' "$TMP/out" > "$TMP/names"
check "hardirqs -C: at least the disk's 200 I/O counted, each handler named as in /proc/interrupts" \
	sh -c "[ \$(awk '\$1 == \"TOTAL\" {print \$4}' '$TMP/out') -ge 200 ] &&
	       while read -r irq name; do
		       grep -Eq \"^ *\$irq:.*[ ,]\$name(,|\\\$)\" /proc/interrupts || { echo \"# \$irq \$name\"; exit 1; }
	       done < '$TMP/names'"
check "hardirqs -C: the TOTAL line is the sum of the rows" sh -c \
	"[ \"\$(awk 'NR > 1 && \$1 != \"TOTAL\" {s += \$4} \$1 == \"TOTAL\" {t = \$4} END {print s == t}' '$TMP/out')\" = 1 ]"

run_counted --per-cpu
rows > "$TMP/rows"
under=$(sed -n 's/.*hardirqs: \([0-9]*\) runs were under way.*/\1/p' "$TMP/err")
compare "$TMP/rows" > "$TMP/cmp"
check "hardirqs --per-cpu: runs timed, within the kernel's counts (less ${under:-0} under way at the stop)" \
	sh -c "[ $RC -eq 0 ] && awk -v u=${under:-0} 'END {exit !(\$3 <= u && \$1 > 0)}' '$TMP/cmp'" ||
	sed 's/^/# /' "$TMP/cmp" | head -5
# The times include the events' writing (nothing is subtracted): the line under the table
# says so, once, last; not where nothing is timed (-C).
check "hardirqs --per-cpu: one line under the last table says what the times include" sh -c "
	tail -1 '$TMP/out' | grep -q '^(the times include the writing of the entry and exit events' &&
	[ \$(grep -c '^(the times include' '$TMP/out') -eq 1 ]" || tail -3 "$TMP/out"
check "hardirqs -C: no such line" sh -c "! grep -q 'times include' '$TMP/out.C'"
check "hardirqs: every row's time above 0 and its average its total over its count" sh -c "
	awk 'NR > 1 && !/^\(/ && \$4 > 0 {d = \$6 - \$5 / \$4; if (\$5 <= 0 || d > 0.0011 || d < -0.0011) bad = 1} END {exit bad}' '$TMP/out'"

# --hist -N -j during disk reads: one object per handler, its buckets adding up to its count.
start_bg "$BIN/hardirqs" --hist -N -j && { work; stop_bg; }
check "hardirqs --hist -N -j: exit 0, valid JSON in ns, each histogram's buckets add up to its count" sh -c "
	[ $RC -eq 0 ] && [ -s '$TMP/out' ] && '$JSONCHECK' '$TMP/out' time name irq cpu unit count total_us hist &&
	grep -q '\"unit\":\"ns\"' '$TMP/out' &&
	awk '{match(\$0, /\"count\":[0-9]+,/); c = substr(\$0, RSTART + 8, RLENGTH - 9); n = 0; s = \$0
	      while (match(s, /\"count\":[0-9]+}/)) { v = substr(s, RSTART + 8, RLENGTH - 9); n += v; s = substr(s, RSTART + RLENGTH) }
	      if (n != c) exit 1}' '$TMP/out'"

start_bg "$BIN/hardirqs" -j && { work; stop_bg; }
check "hardirqs -j: valid JSON, a TOTAL object with null name last" sh -c "
	'$JSONCHECK' '$TMP/out' time name irq cpu count total_us avg_us cpu_pct &&
	tail -1 '$TMP/out' | grep -q '\"name\":null,\"irq\":null'"

cpu=$(($(grep -c '^processor' /proc/cpuinfo) - 1))
start_bg "$BIN/hardirqs" -C --cpu $cpu && { work; stop_bg; }
check "hardirqs --cpu $cpu: exit 0, rows of CPU $cpu only" sh -c "
	[ $RC -eq 0 ] && awk 'NR > 1 {if (\$3 != $cpu) bad = 1} END {exit bad}' '$TMP/out'"

"$BIN/hardirqs" -T 0.3 2 > "$TMP/out" 2> "$TMP/err"
rc=$?
check "hardirqs -T 0.3 2: two tables with their times, then exit 0" sh -c \
	"[ $rc -eq 0 ] && [ \$(grep -c '^HARDIRQ' '$TMP/out') -eq 2 ] && [ \$(grep -c '^\[[0-9:]*\]$' '$TMP/out') -eq 2 ]"
check "after hardirqs: tracefs as before" same_state

for args in "-C --hist|-C and --hist exclude each other" "-N|-N is for --hist" \
	"--cpu 99999|invalid CPU" "--cpu -1|invalid CPU" "--raise|unknown option" \
	"-d 0|invalid duration" "-p 1|unknown option" "0.5 x|invalid count"; do
	eval "\"\$BIN/hardirqs\" ${args%|*}" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "hardirqs ${args%|*}: exit 2, one line, '${args#*|}'" sh -c \
		"[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -qF -- '${args#*|}' '$TMP/err'"
done
check "hardirqs's bad input changed nothing in tracefs" same_state

stop_cases hardirqs "$BIN/hardirqs" 1
check "at the end: tracefs as it was" same_state
summary
