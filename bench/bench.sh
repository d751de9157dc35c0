#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make bench: what tracing read(2) costs a program, for ftrace-tools, bpftrace and perf-tools
# side by side, in one run; writes bench/REPORT.md. Needs root and `make all`; `make bench`
# installs bpftrace, perf-tools and GNU time first.
#
# The workload is `dd if=/dev/zero of=/dev/null bs=1 count=N` pinned to one CPU (one read(2)
# per byte); the tracer is pinned to another. Per scenario and tracer, REPS runs:
#   added ns/event  (traced dd time - untraced dd time) / events generated
#   delivered       events the tracer reported / events generated (N reads by dd)
#   tracer CPU      user + system seconds of the tracer process (GNU time)
#   peak RSS        of the tracer process (GNU time)
# plus the time from starting each tracer to its first event, and an I/O scenario.
#
# Environment: BENCH_N (1000000), BENCH_NSYS (100000, the syscall scenario's bytes), BENCH_REPS (3), BENCH_CPU (0: the workload; the tracer gets
# the next CPU), BENCH_REPORT (bench/REPORT.md), BENCH_ONLY (a regex of scenario names).
set -u
set -m # each tracer in its own process group: Ctrl-C reaches all of it, as in a terminal
cd "$(dirname "$0")/.."
B=${B:-build}
N=${BENCH_N:-1000000}
REPS=${BENCH_REPS:-3}
WCPU=${BENCH_CPU:-0}
TCPU=$(((WCPU + 1) % $(nproc)))
REPORT=${BENCH_REPORT:-bench/REPORT.md}
ONLY=${BENCH_ONLY:-.}
WORK=$(mktemp -d /tmp/ftt-bench.XXXXXX)

die() { echo "bench: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root"
for t in "$B/tpoint" "$B/uprobe" "$B/iosnoop"; do [ -x "$t" ] || die "$t missing: make all"; done
for t in bpftrace /usr/bin/time taskset; do
	command -v $t > /dev/null || die "$t not found: make bench-deps"
done
PERF_TPOINT=$(command -v tpoint-perf || command -v /usr/share/perf-tools/tpoint || true)
PERF_IOSNOOP=$(command -v iosnoop-perf || true)
[ $(nproc) -ge 2 ] || die "needs 2 CPUs (one for dd, one for the tracer)"
LIBC=$("$B/uprobe" -l libc > /dev/null 2>&1 && ldconfig -p | awk '/libc.so.6 .*x86-64/ {print $NF; exit}')
[ -n "$LIBC" ] || LIBC=$(ldconfig -p | awk '/libc.so.6/ {print $NF; exit}')

# perf-tools reads /sys/kernel/debug/tracing: mount debugfs for it, and unmount it after.
MOUNTED_DEBUGFS=
if [ -n "$PERF_TPOINT" ] && [ ! -e /sys/kernel/debug/tracing ]; then
	mount -t debugfs debugfs /sys/kernel/debug 2> /dev/null && MOUNTED_DEBUGFS=1
fi
# perf-tools refuses to run while /var/tmp/.ftrace-lock names a PID, even a dead one (a
# killed run leaves it): remove it when that process is gone.
perf_unlock() {
	local l=/var/tmp/.ftrace-lock
	[ -e $l ] && ! kill -0 "$(cat $l 2> /dev/null)" 2> /dev/null && rm -f $l
	return 0
}
perf_unlock
CUR_TP= # the tracer running now, stopped on any exit of this script
cleanup() {
	[ -n "$CUR_TP" ] && stop_tracer $CUR_TP
	[ -n "$MOUNTED_DEBUGFS" ] && umount /sys/kernel/debug
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE

now_ns() { date +%s%N; }

# launch TIMEFILE CMD...: CMD on the tracer CPU under GNU time (CPU seconds, peak RSS), with
# SIGINT at its default even when this script was started with it ignored (a background job):
# perf-tools' bash scripts cannot trap an ignored SIGINT, and would never stop.
launch() {
	local tm=$1
	shift
	exec taskset -c $TCPU /usr/bin/time -f '%U %S %M' -o "$tm" env --default-signal=INT,QUIT "$@"
}

# Ctrl-C to a tracer's process group (GNU time ignores it and reports when the tracer ends);
# SIGKILL after 30 s.
stop_tracer() {
	CUR_TP=
	kill -INT -- -$1 2> /dev/null
	local i=0
	while kill -0 $1 2> /dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	if kill -0 $1 2> /dev/null; then
		echo "bench: tracer $1 ignored SIGINT for 30 s; killed (restore_top repairs what it left)" >&2
		# not GNU time itself (the group's leader): it still reports CPU and memory
		for p in $(pgrep -g $1); do [ $p = $1 ] || kill -KILL $p; done
	fi
	wait $1 2> /dev/null
}

# The workload: dd's elapsed ns in $EL, its PID in $DDPID; with WL=usdt the test program
# firing its USDT probe ftt:values N times instead (the usdt scenario).
WL=
workload() {
	local t0
	t0=$(now_ns)
	if [ "$WL" = usdt ]; then
		taskset -c $WCPU "$UT" loop $N &
	else
		taskset -c $WCPU dd if=/dev/zero of=/dev/null bs=1 count=$N 2> /dev/null &
	fi
	DDPID=$!
	wait $DDPID
	EL=$(($(now_ns) - t0))
}

median() { sort -n | awk '{a[NR] = $1} END {if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }
minmax() { sort -n | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%s-%s", lo, hi}'; }

# Events a tracer reported, from its output (file $1), by output kind $2.
delivered() {
	case $2 in
	ftt-count) # tpoint -c / -k tables: rows whose last field is the count
		awk '$NF ~ /^[0-9]+$/ && NF >= 2 && $1 != "COUNT" {s += $NF} END {print s + 0}' "$1" ;;
	ftt-hist) awk -F: '/->/ {split($2, a, " "); s += a[1]} END {print s + 0}' "$1" ;;
	bt-count) awk '/: [0-9]+$/ && /^(@|\])/ {s += $NF} END {print s + 0}' "$1" ;; # @[k]: n, or ]: n after a stack
	bt-hist) awk '/^\[/ {sub(/^\[[^]\)]*[]\)][ \t]*/, ""); s += $1} END {print s + 0}' "$1" ;;
	lines) grep -cw "$DDPID" "$1" ;;
	none) echo "" ;;
	esac
}

RESULTS=$WORK/results # scenario tracer rep added_ns delivered cpu_s rss_kb
: > "$RESULTS"

# start_tracer READY-REGEX CMD...: start CMD (output in $WORK/out and err, GNU time's in
# $WORK/time); wait up to 30 s for a line matching READY-REGEX. Its PID in $TP; 1 (and the
# tracer stopped) if it never got ready.
start_tracer() {
	local ready=$1 i=0
	shift
	rm -f "$WORK/out" "$WORK/err" "$WORK/time"
	launch "$WORK/time" "$@" > "$WORK/out" 2> "$WORK/err" &
	TP=$!
	CUR_TP=$TP
	while ! grep -Eq "$ready" "$WORK/out" "$WORK/err" 2> /dev/null; do
		sleep 0.05
		i=$((i + 1))
		if [ $i -gt 600 ] || ! kill -0 $TP 2> /dev/null; then
			stop_tracer $TP
			return 1
		fi
	done
}

# run_traced SCENARIO TRACER KIND READY-REGEX CMD...: one traced run of the workload.
run_traced() {
	local scen=$1 tracer=$2 kind=$3 ready=$4 rep=$5
	shift 5
	local out=$WORK/out err=$WORK/err tm=$WORK/time
	if ! start_tracer "$ready" "$@"; then
		echo "$scen/$tracer: did not start: $(head -3 "$err" | tr '\n' ' ')" >&2
		echo "$scen $tracer $rep - - - -" >> "$RESULTS"
		return 1
	fi
	local tp=$TP
	sleep 1 # bpftrace prints "Attaching" before it attaches
	workload
	sleep 1 # let the tracer drain its buffers
	if ! kill -0 $tp 2> /dev/null; then
		wait $tp
		echo "$scen/$tracer: ended early: $(grep -v '^Attaching' "$err" | head -2 | tr '\n' ' ')" >&2
		echo "$scen $tracer $rep - - - -" >> "$RESULTS"
		return 1
	fi
	stop_tracer $tp
	local u s m
	read -r u s m < <(tail -1 "$tm")
	local d
	d=$(delivered "$out" "$kind")
	echo "$scen $tracer $rep $(((EL - BASE) / N)) ${d:--} $(echo "$u + $s" | bc) $m" >> "$RESULTS"
	printf '  %-16s %-10s rep %d: +%d ns/event, delivered %s of %d, cpu %s s, rss %d KB\n' \
		"$scen" "$tracer" "$rep" $(((EL - BASE) / N)) "${d:--}" "$N" "$(echo "$u + $s" | bc)" "$m" >&2
}

# scenario NAME TITLE KIND-OURS OURS-CMD | KIND-BT BPFTRACE-PROGRAM | KIND-PERF PERF-CMD
# Each command is a string; "-" means the tracer has no equivalent (shown in the report).
SCEN=()
scenario() { SCEN+=("$*"); }
T="$B/tpoint"
U="$B/uprobe"
UT=$(cd "$B/tests" 2> /dev/null && pwd)/usdt_target
R='^(Tracing|Counting|Attaching)'
scenario "tp_count|tracepoint entry, count|ftt-count|$T -c syscalls:sys_enter_read|bt-count|tracepoint:syscalls:sys_enter_read { @ = count(); }|-"
scenario "tp_ret_count|tracepoint return, count|ftt-count|$T -c syscalls:sys_exit_read|bt-count|tracepoint:syscalls:sys_exit_read { @ = count(); }|-"
scenario "uprobe_count|uprobe on libc read, count|ftt-count|$U -c p:libc:read|bt-count|uprobe:$LIBC:read { @ = count(); }|-"
scenario "uretprobe_count|uretprobe on libc read, count|ftt-count|$U -c r:libc:read|bt-count|uretprobe:$LIBC:read { @ = count(); }|-"
# (its workload the test program's loop of USDT probes, against that loop untraced)
scenario "usdt_count|USDT probe in a loop (usdt_target), count|ftt-count|$B/usdt -c $UT:ftt:values|bt-count|usdt:$UT:ftt:values { @ = count(); }|-"
scenario "filter|filter fd == 0, count|ftt-count|$T -c syscalls:sys_enter_read fd==0|bt-count|tracepoint:syscalls:sys_enter_read /args->fd == 0/ { @ = count(); }|-"
scenario "count_pid|count by pid|ftt-count|$T -k pid syscalls:sys_enter_read|bt-count|tracepoint:syscalls:sys_enter_read { @[pid] = count(); }|-"
scenario "count_comm|count by comm|ftt-count|$T -k comm syscalls:sys_enter_read|bt-count|tracepoint:syscalls:sys_enter_read { @[comm] = count(); }|-"
scenario "count_pid_comm|count by pid and comm|ftt-count|$T -k pid,comm syscalls:sys_enter_read|bt-count|tracepoint:syscalls:sys_enter_read { @[pid, comm] = count(); }|-"
scenario "hist|log2 histogram of read's size|ftt-hist|$T --hist count syscalls:sys_enter_read|bt-hist|tracepoint:syscalls:sys_enter_read { @ = hist(args->count); }|-"
scenario "kstack|kernel stack|lines|$T -s syscalls:sys_enter_read|bt-count|tracepoint:syscalls:sys_enter_read { @[kstack] = count(); }|-"
scenario "ustack|user stack|lines|$T -U syscalls:sys_enter_read|bt-count|tracepoint:syscalls:sys_enter_read { @[ustack] = count(); }|-"
scenario "print|per-event output to a file|lines|$T syscalls:sys_enter_read|lines|tracepoint:syscalls:sys_enter_read { printf(\"%d %s %d\\n\", pid, comm, args->count); }|lines"
scenario "print_json|per-event JSON to a file|lines|$T -j syscalls:sys_enter_read|lines|tracepoint:syscalls:sys_enter_read { printf(\"{\\\"pid\\\":%d,\\\"comm\\\":\\\"%s\\\",\\\"count\\\":%d}\\n\", pid, comm, args->count); }|-"

# --- runs ------------------------------------------------------------------------------------
echo "bench: N=$N, $REPS runs each, dd on CPU $WCPU, tracers on CPU $TCPU" >&2
untraced=()
for i in $(seq $REPS); do workload; untraced+=($EL); done
BASE=$(printf '%s\n' "${untraced[@]}" | median)
echo "  untraced (before): $((BASE / N)) ns per read" >&2
DDBASE=$BASE
if [[ usdt_count =~ $ONLY ]]; then
	[ -x "$UT" ] && [ -x "$B/usdt" ] || die "$UT or $B/usdt missing: make all $UT"
	WL=usdt
	uloop=()
	for i in $(seq $REPS); do workload; uloop+=($EL); done
	UBASE=$(printf '%s\n' "${uloop[@]}" | median)
	WL=
	echo "  untraced usdt_target loop: $((UBASE / N)) ns per round" >&2
fi

for sc in "${SCEN[@]}"; do
	IFS='|' read -r name title kours ours kbt bt kperf <<< "$sc"
	[[ $name =~ $ONLY ]] || continue
	if [ "$name" = usdt_count ]; then WL=usdt BASE=$UBASE; else WL= BASE=$DDBASE; fi
	for rep in $(seq $REPS); do
		if [ "$ours" != - ]; then
			# shellcheck disable=SC2086
			run_traced "$name" ftrace-tools "$kours" "$R" $rep $ours
		fi
		run_traced "$name" bpftrace "$kbt" "$R" $rep bpftrace -e "$bt"
		if [ "$kperf" != - ] && [ -n "$PERF_TPOINT" ]; then
			run_traced "$name" perf-tools "$kperf" "$R" $rep "$PERF_TPOINT" syscalls:sys_enter_read
		fi
	done
done
WL= BASE=$DDBASE

after=()
for i in $(seq $REPS); do workload; after+=($EL); done
AFTER=$(printf '%s\n' "${after[@]}" | median)
echo "  untraced (after): $((AFTER / N)) ns per read" >&2

# --- time to the first event -----------------------------------------------------------------
# A loop of short dd runs reads from /dev/zero every few ms; each tracer watches dd's reads and
# the clock runs from its start to its first line about one.
FIRST=$WORK/first
: > "$FIRST"
( while :; do dd if=/dev/zero of=/dev/null bs=1 count=1 2> /dev/null; sleep 0.002; done ) &
GEN=$!
# first_event TRACER PATTERN CMD...: ms from starting CMD to a line matching PATTERN in its output.
first_event() {
	local tracer=$1 pat=$2 out=$WORK/first.out t0 i=0
	shift 2
	rm -f "$out"
	t0=$(now_ns)
	env --default-signal=INT,QUIT "$@" > "$out" 2> /dev/null &
	local tp=$!
	CUR_TP=$tp
	while ! grep -q -- "$pat" "$out" 2> /dev/null; do
		sleep 0.002
		i=$((i + 1))
		[ $i -gt 5000 ] && { echo "bench: $tracer saw no event in 10 s" >&2; stop_tracer $tp; return 1; }
	done
	echo "$tracer $(( ($(now_ns) - t0) / 1000000 ))" >> "$FIRST"
	# The kernel memory of a run: the ring buffers of its instances, every CPU's.
	if [ "$tracer" = ftrace-tools ]; then
		local kb=0 f
		for f in /sys/kernel/tracing/instances/ftrace-tools-*-"${tp}"_*/buffer_total_size_kb; do
			[ -r "$f" ] && kb=$((kb + $(cat "$f")))
		done
		echo "kmem $kb $(nproc)" >> "$FIRST"
	fi
	stop_tracer $tp
}
for rep in $(seq $REPS); do
	first_event ftrace-tools sys_enter_read "$T" -n dd syscalls:sys_enter_read
	first_event bpftrace hit bpftrace -e 'tracepoint:syscalls:sys_enter_read /comm == "dd"/ { printf("hit\n"); exit(); }'
	[ -n "$PERF_TPOINT" ] && first_event perf-tools ' dd-' "$PERF_TPOINT" syscalls:sys_enter_read
done
kill -- -$GEN 2> /dev/null; wait $GEN 2> /dev/null

# --- I/O: small direct writes ----------------------------------------------------------------
IOFILE=/var/tmp/ftt-bench.$$
IO=$WORK/io # tracer rep delivered cpu_s rss_kb
: > "$IO"
NIO=${BENCH_NIO:-20000}
io_run() { # TRACER KIND CMD...
	local tracer=$1 rep=$2
	shift 2
	local out=$WORK/out err=$WORK/err tm=$WORK/time
	if ! start_tracer "$R|^COMM|Tracing block" "$@"; then
		echo "io/$tracer: did not start: $(head -3 "$err" | tr '\n' ' ')" >&2
		echo "$tracer $rep - - - $(head -1 "$err" | tr ' ' '_')" >> "$IO"
		return 1
	fi
	local tp=$TP
	sleep 1
	taskset -c $WCPU dd if=/dev/zero of="$IOFILE" bs=4k count=$NIO oflag=direct 2> /dev/null &
	DDPID=$!
	wait $DDPID
	sleep 1
	if ! kill -0 $tp 2> /dev/null; then
		wait $tp
		echo "io/$tracer: ended early: $(grep -v '^Attaching' "$err" | head -1)" >&2
		echo "$tracer $rep - - - $(grep -v '^Attaching' "$err" | head -1 | tr ' ' '_')" >> "$IO"
		rm -f "$IOFILE"
		return 1
	fi
	stop_tracer $tp
	local u s m
	read -r u s m < <(tail -1 "$tm")
	# a tracer that runs but cannot attach says so in a warning: keep it for the report
	local note
	note=$(grep -E 'ERROR|WARNING' "$err" | grep -v RLIMIT_MEMLOCK | head -1 | tr ' ' '_')
	echo "$tracer $rep $(grep -cw "$DDPID" "$out") $(echo "$u + $s" | bc) $m $note" >> "$IO"
	printf '  io %-12s rep %d: %s\n' "$tracer" "$rep" "$(tail -1 "$IO")" >&2
	rm -f "$IOFILE"
}
if [[ io =~ $ONLY ]]; then
	for rep in $(seq $REPS); do
		io_run ftrace-tools $rep "$B/iosnoop"
		[ -n "$PERF_IOSNOOP" ] && io_run perf-tools $rep "$PERF_IOSNOOP"
		io_run bpftrace $rep bpftrace "$(command -v biosnoop.bt || echo /usr/sbin/biosnoop.bt)"
	done
fi

# --- system calls counted, per call: the workload as each tracer's command ----------------------
# `dd bs=1 count=NSYS` (a read and a write per byte) started by syscount --exec, strace -c -f,
# perf trace -s and bpftrace -c (a raw_syscalls:sys_exit count by id for its child): dd's own
# time (its "copied, X s" line, so no tracer's start-up is in it) against dd untraced.
SYSPAIR=$WORK/syspair # tracer rep dd_ns read_calls cpu_s rss_kb
: > "$SYSPAIR"
NSYS=${BENCH_NSYS:-100000}
SYSDD="$(command -v taskset) -c $WCPU $(command -v dd) if=/dev/zero of=/dev/null bs=1 count=$NSYS"
dd_ns() { awk '{for (i = 1; i < NF; i++) if ($i == "copied,") {printf "%.0f\n", $(i + 1) * 1e9; exit}}' "$1"; }
sys_run() { # TRACER REP KIND CMD...
	local tracer=$1 rep=$2 kind=$3 u s m d el
	shift 3
	rm -f "$WORK/out" "$WORK/err" "$WORK/sum" "$WORK/time"
	taskset -c $TCPU /usr/bin/time -f '%U %S %M' -o "$WORK/time" "$@" > "$WORK/out" 2> "$WORK/err"
	el=$(dd_ns "$WORK/err")
	case $kind in
	ftt) d=$(awk '$1 == "read" {print $2}' "$WORK/out") ;;
	strace) d=$(awk '$NF == "read" {print $4}' "$WORK/sum") ;;
	perf) d=$(awk '$1 == "read" {s += $2} END {print s + 0}' "$WORK/sum") ;;
	bt) d=$(awk '$1 == "@[0]:" {print $2}' "$WORK/out") ;;
	none) d=- ;;
	esac
	read -r u s m < <(tail -1 "$WORK/time")
	echo "$tracer $rep ${el:--} ${d:--} $(echo "$u + $s" | bc) $m" >> "$SYSPAIR"
	printf '  syscalls %-12s rep %d: dd %s ns, read counted %s of %d\n' "$tracer" "$rep" \
		"${el:--}" "${d:--}" "$NSYS" >&2
}
if [[ syscalls =~ $ONLY ]]; then
	for rep in $(seq $REPS); do
		# shellcheck disable=SC2086
		sys_run untraced $rep none $SYSDD
		# shellcheck disable=SC2086
		sys_run ftrace-tools $rep ftt "$B/syscount" --exec $SYSDD
		# shellcheck disable=SC2086
		sys_run strace $rep strace strace -c -f -o "$WORK/sum" $SYSDD
		if command -v perf > /dev/null; then
			# shellcheck disable=SC2086
			sys_run perf $rep perf perf trace -s -o "$WORK/sum" -- $SYSDD
		fi
		sys_run bpftrace $rep bt bpftrace -c "$SYSDD" \
			-e 'tracepoint:raw_syscalls:sys_exit /pid == cpid/ { @[args->id] = count(); }'
	done
fi

# --- report ----------------------------------------------------------------------------------
printf '%s\n' "${SCEN[@]}" > "$WORK/scenarios"
python3 bench/report.py "$RESULTS" "$FIRST" "$IO" "$WORK/scenarios" "$N" "$NIO" "$REPS" "$BASE" \
	"$AFTER" "$WCPU" "$TCPU" "$SYSPAIR" "$NSYS" > "$WORK/report.md" || die "the report could not be written"
mv "$WORK/report.md" "$REPORT"
echo "bench: wrote $REPORT" >&2
