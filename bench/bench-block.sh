#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# What biotop costs, against a bpftrace one-liner that counts the same I/O and against no
# tracing; writes bench/BLOCK.md. Needs root, `make all`, losetup, bpftrace, bc and GNU time
# (make bench-deps).
#
# Workload: N direct 4 KiB writes by dd to a loop device over a file (direct I/O on the
# file too, where the kernel can), pinned to one CPU, the tracer on another; REPS runs each:
#   added us/I/O   (dd's CPU time traced - untraced) / N: what tracing costs the process
#                  doing the I/O (its user + system time; elapsed time is noise on a shared
#                  machine)
#   tracer us/I/O  the tracer's own CPU time (user + system) / N
#   counted        the writes dd made that the tracer reported (biotop: its dd W rows, over
#                  every table; bpftrace: its count for dd)
#
# Environment: BENCH_REPS (3), BENCH_CPU (0: the workload; the tracer the next CPU),
# BENCH_WRITES (20000), BENCH_BLOCK_REPORT (bench/BLOCK.md).
set -u
set -m # each tracer in its own process group
cd "$(dirname "$0")/.."
B=${B:-build}
REPS=${BENCH_REPS:-3}
WCPU=${BENCH_CPU:-0}
TCPU=$(((WCPU + 1) % $(nproc)))
N=${BENCH_WRITES:-20000}
REPORT=${BENCH_BLOCK_REPORT:-bench/BLOCK.md}
WORK=$(mktemp -d /tmp/ftt-bench-block.XXXXXX)

die() { echo "bench-block: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root"
[ -x "$B/biotop" ] || die "$B/biotop missing: make all"
for t in losetup bpftrace bc taskset /usr/bin/time; do
	command -v $t > /dev/null || die "$t not found: make bench-deps"
done
[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs"

LOOP= TP=
cleanup() {
	[ -n "$TP" ] && kill -INT -- -$TP 2> /dev/null && wait $TP 2> /dev/null
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

truncate -s $((N * 4096 + 1048576)) "$WORK/disk.img"
LOOP=$(losetup -f --show --direct-io=on "$WORK/disk.img" 2> /dev/null ||
	losetup -f --show "$WORK/disk.img") || die "cannot make a loop device"
command -v udevadm > /dev/null && udevadm settle
DEV=$(tr : , < "/sys/class/block/${LOOP#/dev/}/dev")
KDEV=$(( $(cut -d: -f1 < "/sys/class/block/${LOOP#/dev/}/dev") << 20 | $(cut -d: -f2 < "/sys/class/block/${LOOP#/dev/}/dev") ))

BT="tracepoint:block:block_rq_issue /args->dev == $KDEV/ { @io[comm] = count(); @bytes[comm] = sum(args->bytes); }"

cpu_ns() { local u s; read -r u s < "$1"; echo "($u + $s) * 1000000000 / 1" | bc; }

RESULTS=$WORK/results # tracer dd_cpu_ns tracer_cpu_ns counted
: > "$RESULTS"
run() { # NAME
	local name=$1 tp_cpu=0 counted=-
	rm -f "$WORK/out" "$WORK/err" "$WORK/time"
	TP=
	case $name in
	biotop) taskset -c $TCPU /usr/bin/time -f '%U %S' -o "$WORK/time" "$B/biotop" -C -r 0 -d "$LOOP" 1 \
		> "$WORK/out" 2> "$WORK/err" & TP=$! ready='^Tracing' ;;
	bpftrace) taskset -c $TCPU /usr/bin/time -f '%U %S' -o "$WORK/time" bpftrace -e "$BT" \
		> "$WORK/out" 2> "$WORK/err" & TP=$! ready='^Attaching' ;;
	esac
	if [ -n "$TP" ]; then
		local i=0
		until grep -Eq "$ready" "$WORK/out" "$WORK/err" 2> /dev/null; do
			sleep 0.05; i=$((i + 1))
			[ $i -lt 600 ] && kill -0 $TP 2> /dev/null || die "$name did not start: $(head -2 "$WORK/err")"
		done
		sleep 1 # bpftrace says "Attaching" before it has
	fi
	taskset -c $WCPU /usr/bin/time -f '%U %S' -o "$WORK/wtime" \
		dd if=/dev/zero of="$LOOP" bs=4096 count=$N oflag=direct 2> /dev/null
	if [ -n "$TP" ]; then
		sleep 1
		kill -INT -- -$TP; wait $TP; TP=
		tp_cpu=$(cpu_ns "$WORK/time")
		case $name in
		biotop) counted=$(awk -v dev="$DEV" 'NF == 8 && $2 == "dd" && $3 == "W" && $4 == dev { n += $6 } END { print n + 0 }' "$WORK/out") ;;
		bpftrace) counted=$(awk '/^@io\[dd\]:/ { print $2 }' "$WORK/out") ;;
		esac
	fi
	echo "$name $(cpu_ns "$WORK/wtime") $tp_cpu ${counted:-0}" >> "$RESULTS"
}

for rep in $(seq "$REPS"); do
	for name in none biotop bpftrace; do
		run $name
	done
done

median() { sort -n | awk '{a[NR] = $1} END {if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }
base=$(awk '$1 == "none" {print $2}' "$RESULTS" | median)
{
	echo "<!-- SPDX-License-Identifier: GPL-2.0-only -->"
	echo "# Block I/O: biotop against bpftrace"
	echo
	echo "Made by bench/bench-block.sh on $(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%d):"
	echo "$N direct 4 KiB writes by dd to a loop device, $REPS runs each (medians)."
	echo
	echo "| tracer | added us/I/O (dd's CPU) | tracer us/I/O | counted |"
	echo "| --- | --- | --- | --- |"
	for name in none biotop bpftrace; do
		d=$(awk -v n=$name '$1 == n {print $2}' "$RESULTS" | median)
		t=$(awk -v n=$name '$1 == n {print $3}' "$RESULTS" | median)
		c=$(awk -v n=$name '$1 == n {print $4}' "$RESULTS" | sort -u | tr '\n' ' ')
		awk -v n="$name" -v d="$d" -v b="$base" -v t="$t" -v N=$N -v c="$c" 'BEGIN {
			printf "| %s | %.2f | %.2f | %s|\n", n, (d - b) / N / 1000, t / N / 1000, (n == "none" ? "- " : c "of " N " ") }'
	done
	echo
	echo "The tracer's CPU time is the whole run's: its start counts too (bpftrace compiles and"
	echo "loads its program, about 0.4 s of CPU here), so per I/O it is an upper bound that falls"
	echo "as N grows. dd's own CPU time varies by tens of percent between runs on a shared"
	echo "machine: the added time per I/O is within that noise unless N is large."
	echo
	echo "Raw (tracer, dd CPU ns, tracer CPU ns, counted):"
	echo
	sed 's/^/    /' "$RESULTS"
} > "$REPORT"
cat "$REPORT"
