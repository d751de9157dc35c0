#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# memleak's cost per uprobe hit, against bpftrace doing the same on the same uprobes and
# against no tracing; writes bench/MEMLEAK.md. Needs root, `make all` and the test program
# (make build/tests/leak_target), and bpftrace (make bench-deps).
#
# The workload is leak_target --loop: N pairs of malloc(64) and free, on CPU 0, timed by the
# program itself from its first call to its last (the tracers' start and end left out). A
# pair is 3 uprobe hits: malloc's entry, its return, free's entry. Per tracer, REPS runs:
#   us/hit       (traced loop time - untraced loop time) / 3 N, each traced run against an
#                untraced one just before it, the median run
#   tracer us/hit  the tracer's CPU time (user + system, GNU time, start and end included)
#                / 3 N, the median run
#   outstanding  what the tracer counted as not freed at the end (all were: 0)
#
# Environment: BENCH_N (20000), BENCH_REPS (3), BENCH_REPORT (bench/MEMLEAK.md).
set -u
set -m # each tracer in its own process group
cd "$(dirname "$0")/.."
B=${B:-build}
N=${BENCH_N:-20000}
REPS=${BENCH_REPS:-3}
REPORT=${BENCH_REPORT:-bench/MEMLEAK.md}
LT=$B/tests/leak_target
WORK=$(mktemp -d /tmp/ftt-bench-memleak.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

die() { echo "bench-memleak: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root"
[ -x "$B/memleak" ] || die "$B/memleak missing: make all"
[ -x "$LT" ] || die "$LT missing: make $LT"
for t in bpftrace /usr/bin/time taskset; do command -v $t > /dev/null || die "$t not found: make bench-deps"; done
[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs"
LIBC=$("$B/memleak" -v -p 1 | sed -n 's/^uprobes on \(.*\): malloc .*/\1/p')
[ -n "$LIBC" ] || die "memleak -v names no C library"

# bpftrace keeping what memleak keeps: each block's size and user stack at malloc's return,
# dropped at its free.
bt_prog() {
	cat << EOF
BEGIN { printf("Ready\n"); }
uprobe:$LIBC:malloc /pid == $1/ { @size[tid] = arg0; }
uretprobe:$LIBC:malloc /pid == $1 && @size[tid]/ {
	@out[retval] = @size[tid]; @stack[retval] = ustack; @n++; delete(@size[tid]); }
uprobe:$LIBC:free /pid == $1 && @out[arg0]/ { @n--; delete(@out[arg0]); delete(@stack[arg0]); }
END { printf("outstanding %d\n", @n); clear(@out); clear(@stack); clear(@size); clear(@n); }
EOF
}

# run [TRACER...]: one loop, under the tracer (started on CPU 1 once the program waits,
# ready before it goes); its time in ns in $NS (not a $(run): job control, the tracer's own
# process group for the Ctrl-C, is off in a subshell). The tracer's CPU in $WORK/time, its
# output in $WORK/out and $WORK/err.
run() {
	rm -f "$WORK/go" "$WORK/out" "$WORK/err" "$WORK/time"
	taskset -c 0 "$LT" --loop "$N" "$WORK/go" > "$WORK/loop" &
	local p=$! tp=
	if [ $# -gt 0 ]; then
		if [ "$1" = BT ]; then
			bt_prog $p > "$WORK/prog.bt"
			taskset -c 1 /usr/bin/time -f '%U %S' -o "$WORK/time" env --default-signal=INT \
				bpftrace "$WORK/prog.bt" > "$WORK/out" 2> "$WORK/err" &
		else
			taskset -c 1 /usr/bin/time -f '%U %S' -o "$WORK/time" "$@" -p $p \
				> "$WORK/out" 2> "$WORK/err" &
		fi
		tp=$!
		for _ in $(seq 1 300); do
			grep -qE "^(Tracing|Ready)" "$WORK/err" "$WORK/out" 2> /dev/null && break
			sleep 0.1
		done
	fi
	touch "$WORK/go"
	wait $p
	if [ -n "$tp" ]; then # memleak ends with its process; bpftrace on Ctrl-C
		sleep 0.3
		kill -INT -- -$tp 2> /dev/null
		wait $tp 2> /dev/null
	fi
	NS=$(awk '{print $2}' "$WORK/loop")
}

median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

HITS=$((3 * N))
run
T0=$NS
{
	echo "<!-- SPDX-License-Identifier: GPL-2.0-only (written by bench/bench-memleak.sh) -->"
	echo "# memleak against bpftrace on the C library's malloc and free"
	echo
	echo "Made by bench/bench-memleak.sh on $(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%d): $N pairs"
	echo "of malloc(64) and free by leak_target --loop on CPU 0 ($HITS uprobe hits), the tracer on"
	echo "CPU 1; the median of $REPS runs, each against an untraced run just before it. Untraced:"
	echo "$((T0 / N)) ns a pair. Load average when it began: $(cut -d' ' -f1-3 /proc/loadavg) (the"
	echo "machine is shared). Both tracers use the same uprobes (a trap into the kernel at each"
	echo "hit, most of the cost); memleak has each hit written to a perf ring (a return with its"
	echo "user call chain) and read by the tool, bpftrace runs its program in the kernel (the"
	echo "stack as a map key). The tracer's CPU includes its start and end (bpftrace's compiling)."
	echo
	echo "| tracer | us/hit added | tracer CPU us/hit | outstanding at the end |"
	echo "| --- | --- | --- | --- |"
} > "$REPORT.new"
for name in "memleak" "bpftrace"; do
	adds=() cpus=() outs=()
	for _ in $(seq 1 "$REPS"); do
		run
		t0=$NS
		if [ $name = memleak ]; then
			run "$B/memleak" --older 0
			outs+=("$(sed -n 's/^Outstanding: [0-9]* bytes in \([0-9]*\) allocations.*/\1/p' "$WORK/out" | tail -1)")
		else
			run BT
			outs+=("$(sed -n 's/^outstanding //p' "$WORK/out")")
		fi
		adds+=("$(echo "scale=2; ($NS - $t0) / $HITS / 1000" | bc)")
		read -r u s < "$WORK/time"
		cpus+=("$(echo "scale=2; ($u + $s) * 1000000 / $HITS" | bc)")
	done
	printf '| %s | %s | %s | %s |\n' "$name" "$(printf '%s\n' "${adds[@]}" | median)" \
		"$(printf '%s\n' "${cpus[@]}" | median)" "$(printf '%s\n' "${outs[@]}" | median)" \
		>> "$REPORT.new"
	echo "bench-memleak: $name done" >&2
done
mv "$REPORT.new" "$REPORT"
cat "$REPORT"
