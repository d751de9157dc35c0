#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# bitesize beside bpftrace's bitesize.bt: what each counted of known direct I/O, and what
# tracing costs per request; writes bench/BITESIZE.md. Needs root, `make all`, losetup,
# bpftrace and GNU time (make bench-deps).
#
# Counts: dd writes 4 KiB x 100, 64 KiB x 50 and 512 KiB x 20 (reads of 256 KiB where the
# loop disk takes no 512 KiB request) with oflag=direct to a loop device over a file,
# with the disk's scheduler none and then mq-deadline; bitesize -j and bitesize.bt run at
# once on the same I/O; each one's histogram of dd's I/O, bucket by bucket.
# Cost: 10,000 (BENCH_N) direct 4 KiB writes to the loop device pinned to one CPU (the tracer on the
# other), BENCH_REPS runs untraced, under bitesize (no -d: the loop disk's requests and its
# backing file's on the real disk, as bitesize.bt sees them) and under bitesize.bt:
#   added us/request  (dd's CPU time traced - untraced) / requests of dd
#   tracer CPU        user + system seconds of the tracer process; peak RSS
#
# Environment: BENCH_REPS (3), BENCH_CPU (0: the workload; the tracer the next CPU),
# BENCH_REPORT (bench/BITESIZE.md).
set -u
set -m # each tracer in its own process group
cd "$(dirname "$0")/.."
B=${B:-build}
REPS=${BENCH_REPS:-3}
WCPU=${BENCH_CPU:-0}
TCPU=$(((WCPU + 1) % $(nproc)))
REPORT=${BENCH_REPORT:-bench/BITESIZE.md}
BT=${BITESIZE_BT:-/usr/sbin/bitesize.bt}
WORK=$(mktemp -d /var/tmp/ftt-bench-block.XXXXXX)
N=${BENCH_N:-10000}

die() { echo "bench-block: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root"
[ -x "$B/bitesize" ] || die "$B/bitesize missing: make all"
for t in bpftrace /usr/bin/time taskset losetup bc; do
	command -v $t > /dev/null || die "$t not found: make bench-deps"
done
[ -r "$BT" ] || die "$BT not found (Debian's bpftrace has it)"
[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs"

LOOP=
CUR_TP=
cleanup() {
	for p in $CUR_TP ${FTP:-} ${BTP:-}; do stop_tracer $p; done
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE

truncate -s 256M "$WORK/disk.img"
LOOP=$(losetup -f --show --direct-io=on "$WORK/disk.img") || die "losetup failed"
L=$(basename "$LOOP")
SCHED=/sys/block/$L/queue/scheduler

launch() {
	local tm=$1
	shift
	exec taskset -c $TCPU /usr/bin/time -f '%U %S %M' -o "$tm" env --default-signal=INT "$@"
}
stop_tracer() {
	CUR_TP=
	kill -INT -- -$1 2> /dev/null
	local i=0
	while kill -0 $1 2> /dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	kill -0 $1 2> /dev/null && kill -KILL -- -$1 2> /dev/null
	wait $1 2> /dev/null
}
# start_tracer NAME READY-REGEX CMD...: output in $WORK/NAME.out, .err, time; PID in $TP.
start_tracer() {
	local name=$1 ready=$2 i=0
	shift 2
	: > "$WORK/$name.out"
	: > "$WORK/$name.err"
	(launch "$WORK/$name.time" "$@" > "$WORK/$name.out" 2> "$WORK/$name.err") &
	TP=$!
	CUR_TP=$TP
	while ! grep -Eq "$ready" "$WORK/$name.err" "$WORK/$name.out" 2> /dev/null; do
		sleep 0.1
		i=$((i + 1))
		if [ $i -gt 300 ] || ! kill -0 $TP 2> /dev/null; then
			echo "bench-block: $* did not start:" >&2
			head -3 "$WORK/$name.err" >&2
			stop_tracer $TP
			return 1
		fi
	done
	sleep 0.5 # bpftrace says "Attaching" before its probes are on
}
median() { sort -n | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }

# dd's histogram in each tracer's output, as "LOW_KiB COUNT" lines.
ftt_rows() { # the -j objects of comm dd, their buckets
	grep '"comm":"dd"' "$1" | grep -o '{"low":[0-9]*,"high":[0-9]*,"count":[0-9]*}' |
		sed 's/{"low":\([0-9]*\),"high":[0-9]*,"count":\([0-9]*\)}/\1 \2/' |
		awk '{ c[$1] += $2 } END { for (k in c) print k, c[k] }' | sort -n
}
bt_rows() { # bitesize.bt's @[dd]: "[4K, 8K)  N |...|", bytes: the low bound in KiB
	awk '/^@\[dd\]:/ { on = 1; next } on && /^$/ { on = 0 }
		on && /^\[/ {
			lo = $1; sub(/^\[/, "", lo); sub(/,$/, "", lo); sub(/\)$/, "", lo); sub(/\]$/, "", lo)
			m = 1
			if (lo ~ /K$/) m = 1024; else if (lo ~ /M$/) m = 1048576
			sub(/[KM]$/, "", lo)
			for (i = 2; i <= NF; i++) if ($i ~ /^\|/) { n = $(i - 1); break }
			if (n > 0) print int(lo * m / 1024), n
		}' "$1" | awk '{ c[$1] += $2 } END { for (k in c) print k, c[k] }' | sort -n
}

# --- the counts, side by side ---------------------------------------------------------------
max=$(cat "/sys/block/$L/queue/max_sectors_kb")
BIG=512
[ "$max" -ge 512 ] || BIG=256
: > "$WORK/compare"
# Sequential: one dd after the other; parallel: four dd of 4 KiB writes at once, 400 each
# (requests then wait in the scheduler and may be dispatched by another task).
for c in none:seq mq-deadline:seq mq-deadline:par; do
	s=${c%:*} how=${c#*:}
	if [ -w "$SCHED" ] && ! echo $s > "$SCHED" 2> /dev/null; then
		echo "| $s | $how | (scheduler not available) | | |" >> "$WORK/compare"
		continue
	fi
	start_tracer ftt '^Tracing' "$B/bitesize" -j || die "bitesize did not start"
	FTP=$TP
	start_tracer bt 'Attaching' bpftrace "$BT" || die "bpftrace did not start"
	BTP=$TP
	if [ $how = seq ]; then
		dd if=/dev/zero of="$LOOP" bs=4k count=100 oflag=direct 2> /dev/null
		dd if=/dev/zero of="$LOOP" bs=64k count=50 oflag=direct 2> /dev/null
		dd if=/dev/zero of="$LOOP" bs=${BIG}k count=20 oflag=direct 2> /dev/null
	else
		pids=
		for i in 1 2 3 4; do
			dd if=/dev/zero of="$LOOP" bs=4k count=400 seek=$((i * 10000)) oflag=direct conv=notrunc 2> /dev/null &
			pids="$pids $!"
		done
		wait $pids # (not the tracers)
	fi
	sleep 1
	stop_tracer $BTP
	stop_tracer $FTP
	FTP= BTP=
	f=$(ftt_rows "$WORK/ftt.out" | awk '{ printf "%s%s KiB: %s", (NR > 1 ? ", " : ""), $1, $2 }')
	b=$(bt_rows "$WORK/bt.out" | awk '{ printf "%s%s KiB: %s", (NR > 1 ? ", " : ""), $1, $2 }')
	same=no
	[ "$f" = "$b" ] && same=yes
	echo "| $s | $how | $f | $b | $same |" >> "$WORK/compare"
	# Who bitesize.bt names besides dd: the issuing tasks of I/O submitted by others.
	grep -o '^@\[[^]]*\]' "$WORK/bt.out" | sed 's/^@\[//; s/\]$//' | sort -u | tr '\n' ' ' > "$WORK/bt.names.$s.$how"
	grep -o '"comm":"[^"]*"' "$WORK/ftt.out" | sed 's/"comm":"//; s/"$//' | sort -u | tr '\n' ' ' > "$WORK/ftt.names.$s.$how"
done
[ -w "$SCHED" ] && echo none > "$SCHED"

# --- the cost -------------------------------------------------------------------------------
RESULTS=$WORK/results # tracer rep cpu reported tcpu rss
: > "$RESULTS"
run() {
	/usr/bin/time -f '%U %S' -o "$WORK/wtime" taskset -c $WCPU \
		dd if=/dev/zero of="$LOOP" bs=4k count=$N oflag=direct > /dev/null 2>&1
	CPU=$(tail -1 "$WORK/wtime" | awk '{ print $1 + $2 }')
}
for rep in $(seq "$REPS"); do
	run
	echo "none $rep $CPU - - -" >> "$RESULTS"
	for tracer in ftt bt; do
		if [ $tracer = ftt ]; then
			start_tracer ftt '^Tracing' "$B/bitesize" -j || continue
		else
			start_tracer bt 'Attaching' bpftrace "$BT" || continue
		fi
		run
		sleep 1
		stop_tracer $TP
		if [ $tracer = ftt ]; then
			n=$(ftt_rows "$WORK/ftt.out" | awk '{ s += $2 } END { print s + 0 }')
		else
			n=$(bt_rows "$WORK/bt.out" | awk '{ s += $2 } END { print s + 0 }')
		fi
		read -r u s m < <(tail -1 "$WORK/$tracer.time")
		echo "$tracer $rep $CPU $n $(echo "$u + $s" | bc) $m" >> "$RESULTS"
	done
done

{
	echo "<!-- SPDX-License-Identifier: GPL-2.0-only -->"
	echo "# bitesize beside bpftrace's bitesize.bt (bench/bench-block.sh)"
	echo
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -r), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "(a machine shared with other work), bpftrace $(bpftrace --version 2> /dev/null | awk '{ print $2 }'),"
	echo "a loop device over a file (direct I/O to it) on a virtio disk."
	echo
	echo "## The same I/O, counted by both"
	echo
	echo "dd with oflag=direct: one after the other (seq), 100 writes of 4 KiB, 50 of 64 KiB, 20 of"
	echo "$BIG KiB; or four at once (par), 400 writes of 4 KiB each. dd's histogram in each"
	echo "(bitesize.bt's byte buckets given in KiB), the disk's scheduler as named."
	echo
	echo "| scheduler | dd | bitesize | bitesize.bt | same |"
	echo "| --- | --- | --- | --- | --- |"
	cat "$WORK/compare"
	echo
	for c in none.seq mq-deadline.seq mq-deadline.par; do
		[ -e "$WORK/bt.names.$c" ] || continue
		echo "Names with $c: bitesize $(cat "$WORK/ftt.names.$c"); bitesize.bt $(cat "$WORK/bt.names.$c")"
		echo
	done
	echo "## The cost"
	echo
	echo "$N direct 4 KiB writes by dd pinned to one CPU, $REPS runs each, medians; each"
	echo "request of dd is also one of the loop device's worker on the virtio disk, which both"
	echo "tracers count too."
	echo
	echo "| tracer | dd CPU s | added us/request | dd's requests counted | tracer CPU s | peak RSS MB |"
	echo "| --- | --- | --- | --- | --- | --- |"
	base=$(awk '$1 == "none" { print $3 }' "$RESULTS" | median)
	for tracer in none ftt bt; do
		cpu=$(awk -v r=$tracer '$1 == r { print $3 }' "$RESULTS" | median)
		[ -n "$cpu" ] || continue
		rep=$(awk -v r=$tracer '$1 == r { print $4 }' "$RESULTS" | median)
		tcpu=$(awk -v r=$tracer '$1 == r { print $5 }' "$RESULTS" | median)
		rss=$(awk -v r=$tracer '$1 == r { print $6 }' "$RESULTS" | median)
		added=-
		[ $tracer != none ] && added=$(echo "scale=2; ($cpu - $base) * 1000000 / $N" | bc)
		name=$tracer
		[ $tracer = ftt ] && name=bitesize
		[ $tracer = bt ] && name=bitesize.bt
		[ $tracer = none ] && name=untraced
		echo "| $name | $cpu | $added | $rep | $tcpu | $(echo "scale=1; ${rss:-0} / 1024" | bc) |"
	done
	echo
	echo "GNU time counts CPU in 10 ms steps; the tracer's CPU is its own process's (bpftrace's"
	echo "programs run in the traced tasks and interrupts, so their cost is in the added column)."
} > "$REPORT"
cat "$REPORT"
