#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The scheduler tools' cost on a context-switch storm, against bpftrace doing the same and
# against no tracing; writes bench/SCHED.md. Needs root, `make all` and the test program
# (make build/tests/sched_target), and bpftrace (make bench-deps).
#
# The workload is sched_target's pong: two processes pinned to one CPU pass a byte back and
# forth N times through pipes, two context switches each (and a wake-up each). The tracer is
# pinned to the other CPU. Per tracer, REPS runs:
#   ns/switch     (traced time - untraced time) / switches (2 N), each traced run against an
#                 untraced one just before it, the median run
#   tracer ns/sw  the tracer's CPU time (user + system, GNU time) / switches, the median run
#   counted       the waits (or slices, or times off the CPU) of the two pong processes the
#                 tracer reported / 2 N
#   lost          events the tool said it lost (ftrace-tools only)
#
# Environment: BENCH_N (50000), BENCH_REPS (3), BENCH_REPORT (bench/SCHED.md), BENCH_ONLY (a
# regex of tracer names).
set -u
set -m # each tracer in its own process group
cd "$(dirname "$0")/.."
B=${B:-build}
N=${BENCH_N:-50000}
REPS=${BENCH_REPS:-3}
REPORT=${BENCH_REPORT:-bench/SCHED.md}
ONLY=${BENCH_ONLY:-.}
ST=$B/tests/sched_target
WORK=$(mktemp -d /tmp/ftt-bench-sched.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

die() { echo "bench-sched: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root"
for t in runqlat runqslower cpudist offcputime; do [ -x "$B/$t" ] || die "$B/$t missing: make all"; done
[ -x "$ST" ] || die "$ST missing: make $ST"
for t in bpftrace /usr/bin/time taskset; do command -v $t > /dev/null || die "$t not found: make bench-deps"; done
[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs"

# The peers: bpftrace doing what each tool does, counted per process name so the pong's can
# be told. TASK_RUNNING is 0; a preempted task's prev_state has the bit above the states
# (0x100 from Linux 4.14): runqlat.bt tests only == 0 and so misses preempted tasks; this one
# takes both, as runqlat does.
BT_RUNQLAT='tracepoint:sched:sched_wakeup,tracepoint:sched:sched_wakeup_new { if (args->pid) { @q[args->pid] = nsecs; } }
tracepoint:sched:sched_switch {
	if (args->prev_pid && (args->prev_state & 0xff) == 0) { @q[args->prev_pid] = nsecs; }
	else { delete(@q[args->prev_pid]); }
	$t = @q[args->next_pid];
	if ($t) { @us = hist((nsecs - $t) / 1000); @n[args->next_comm] = count(); delete(@q[args->next_pid]); } }
END { clear(@q); }'
BT_CPUDIST='tracepoint:sched:sched_switch {
	$t = @on[args->prev_pid];
	if ($t && args->prev_pid) { @us = hist((nsecs - $t) / 1000); @n[args->prev_comm] = count(); }
	delete(@on[args->prev_pid]);
	if (args->next_pid) { @on[args->next_pid] = nsecs; } }
END { clear(@on); }'
BT_OFFCPU='tracepoint:sched:sched_switch {
	if (args->prev_pid) { @s[args->prev_pid] = kstack; @t[args->prev_pid] = nsecs; }
	$t = @t[args->next_pid];
	if ($t) { @us[args->next_comm, @s[args->next_pid]] = sum((nsecs - $t) / 1000); @n[args->next_comm] = count();
		delete(@t[args->next_pid]); delete(@s[args->next_pid]); } }
END { clear(@s); clear(@t); }'

# name|command (the tracer's; BT: a bpftrace program by name)|how its count is read
TRACERS=(
	"runqlat|$B/runqlat -k comm -j|json"
	"runqslower|$B/runqslower 10000|none"
	"cpudist|$B/cpudist -k comm -j|json"
	"offcputime -s|$B/offcputime -s --folded|folded"
	"offcputime|$B/offcputime --folded|folded"
	"offcputime -U|$B/offcputime -U --folded|folded"
	"bpftrace runqlat|BT BT_RUNQLAT|bt"
	"bpftrace cpudist|BT BT_CPUDIST|bt"
	"bpftrace offcpu kstack|BT BT_OFFCPU|bt"
)

# pong: the storm, untraced or under a tracer already running; its time in ns.
pong() {
	rm -f "$WORK/go"; touch "$WORK/go"
	"$ST" "$WORK/go" pong "$N" 0 | awk '{print $3}'
}

# start NAME COMMAND...: the tracer on CPU 1 under GNU time, ready; its PID in $TP.
start() {
	local what=$1; shift
	rm -f "$WORK/out" "$WORK/err" "$WORK/time"
	if [ "$1" = BT ]; then
		printf '%s\n' "${!2}" > "$WORK/prog.bt"
		taskset -c 1 /usr/bin/time -f '%U %S %M' -o "$WORK/time" env --default-signal=INT bpftrace "$WORK/prog.bt" > "$WORK/out" 2> "$WORK/err" &
	else
		taskset -c 1 /usr/bin/time -f '%U %S %M' -o "$WORK/time" "$@" > "$WORK/out" 2> "$WORK/err" &
	fi
	TP=$!
	for _ in $(seq 1 300); do
		grep -qE '^(Tracing|Attaching)' "$WORK/err" "$WORK/out" 2> /dev/null && return 0
		sleep 0.1
	done
	die "$what did not start: $(head -3 "$WORK/err")"
}
# stop: Ctrl-C to the tracer; SIGTERM after 10 s (bpftrace 0.17 was seen to miss a SIGINT
# now and then; it ends on either, printing its maps).
stop() {
	kill -INT -- -$TP 2> /dev/null
	for _ in $(seq 1 100); do kill -0 $TP 2> /dev/null || break; sleep 0.1; done
	kill -TERM -- -$TP 2> /dev/null
	wait $TP 2> /dev/null
}

# The count of the pong's (comm sched_target) from the tracer's output.
counted() {
	case $1 in
	json) grep '"comm":"sched_target"' "$WORK/out" | sed -e 's/,"hist":.*//' -e 's/.*"count":\([0-9]*\).*/\1/' ;;
	folded) echo - ;;
	bt) sed -n 's/^@n\[sched_target\]: \([0-9]*\)/\1/p' "$WORK/out" ;;
	*) echo - ;;
	esac
}

median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

T0=$(pong)
SW=$((2 * N))
{
	echo "<!-- SPDX-License-Identifier: GPL-2.0-only (written by bench/bench-sched.sh) -->"
	echo "# The scheduler tools on a context-switch storm"
	echo
	echo "Made by bench/bench-sched.sh on $(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%d): $N round trips"
	echo "of sched_target's pong (two processes on CPU 0, $SW switches and as many wake-ups), the"
	echo "tracer on CPU 1; the median of $REPS runs, each against an untraced run just before it."
	echo "Untraced, the first time: $((T0 / 1000000)) ms, $((T0 / SW)) ns a switch."
	echo "Load average when it began: $(cut -d' ' -f1-3 /proc/loadavg) (the machine is shared: the"
	echo "numbers move from run to run: the added time is within the noise of a 10 us switch; the"
	echo "tracer's own CPU is the steadier measure). The pong's processes also switch as they start"
	echo "and end: a few more than 2 N are counted. The tracer's CPU includes its start and end"
	echo "(bpftrace's compiling of its program). The tools pair as this kernel lets them (here: in"
	echo "the tool, this 6.18 having no hist triggers); work done in the kernel at each event (the"
	echo "hist triggers of --via pairs and hist elsewhere) would count in the pong's time."
	echo
	echo "| tracer | ns/switch added | tracer CPU ns/switch | pong's counted / switches | lost (said) | peak RSS MB |"
	echo "| --- | --- | --- | --- | --- | --- |"
} > "$REPORT.new"
for t in "${TRACERS[@]}"; do
	name=${t%%|*}; rest=${t#*|}; cmd=${rest%|*}; how=${rest##*|}
	[[ $name =~ $ONLY ]] || continue
	adds=() cpus=() rss=() counts=() lost=
	for _ in $(seq 1 "$REPS"); do
		t0=$(pong)
		# shellcheck disable=SC2086
		start "$name" $cmd
		adds+=($((($(pong) - t0) / SW)))
		sleep 0.5
		stop
		read -r u s m < "$WORK/time"
		cpus+=("$(echo "($u + $s) * 1000000000 / $SW" | bc)")
		rss+=("$((m / 1024))")
		counts+=("$(counted "$how")")
		l=$(sed -n 's/.*\([0-9][0-9]*\) events were lost in all.*/\1/p' "$WORK/err")
		lost="$lost${lost:+ }${l:-0}"
	done
	c=$(printf '%s\n' "${counts[@]}" | median)
	printf '| %s | %s | %s | %s | %s | %s |\n' "$name" "$(printf '%s\n' "${adds[@]}" | median)" \
		"$(printf '%s\n' "${cpus[@]}" | median)" \
		"$([ "$c" = - ] || [ -z "$c" ] && echo - || echo "$c / $SW")" \
		"$([[ $name == bpftrace* ]] && echo - || echo "$lost")" \
		"$(printf '%s\n' "${rss[@]}" | median)" >> "$REPORT.new"
	echo "bench-sched: $name done" >&2
done
mv "$REPORT.new" "$REPORT"
cat "$REPORT"
