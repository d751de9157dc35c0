#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The cost of oomkill, drsnoop, capable, statsnoop and mountsnoop, each beside a bpftrace
# program on the same events, and what each reported of a known workload; writes
# bench/SYS.md. Needs root, `make all` and the test program (make build/tests/snoop_target),
# bpftrace and GNU time (make bench-deps).
#
# Per tool, a workload of known events pinned to one CPU (the tracer on the other), REPS runs
# untraced, under the tool (text to a file) and under bpftrace:
#   added us/event  (workload CPU time traced - untraced) / events: the cost paid in the
#                   traced process (its user + system time; elapsed time is noise on a
#                   shared machine), per event of the workload
#   reported        events the tracer showed of the workload's, of those made
#   tracer CPU      user + system seconds of the tracer process; peak RSS
# Workloads: 100,000 stat() calls of one path (statsnoop); 100,000 raw sockets (capable:
# a CAP_NET_RAW check each); 1,000 tmpfs mounts and unmounts (mountsnoop); cat of a 64 MB
# file in no cache from an 8 MB memory cgroup (drsnoop: its reclaims); 10 processes
# OOM-killed in a 16 MB memory cgroup (oomkill).
#
# Environment: BENCH_REPS (3), BENCH_CPU (0: the workload; the tracer the next CPU),
# BENCH_REPORT (bench/SYS.md), BENCH_ONLY (a regex of tool names).
set -u
set -m # each tracer in its own process group
cd "$(dirname "$0")/.."
B=${B:-build}
REPS=${BENCH_REPS:-3}
WCPU=${BENCH_CPU:-0}
TCPU=$(((WCPU + 1) % $(nproc)))
REPORT=${BENCH_REPORT:-bench/SYS.md}
ONLY=${BENCH_ONLY:-.}
WORK=$(mktemp -d /tmp/ftt-bench-sys.XXXXXX)
ST=$B/tests/snoop_target

die() { echo "bench-sys: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root"
for t in oomkill drsnoop capable statsnoop mountsnoop; do [ -x "$B/$t" ] || die "$B/$t missing: make all"; done
[ -x "$ST" ] || die "$ST missing: make $ST"
for t in bpftrace /usr/bin/time taskset; do
	command -v $t > /dev/null || die "$t not found: make bench-deps"
done
[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs"
. tests/live/memcg.sh
TMP=$WORK

CUR_TP=
cleanup() {
	[ -n "$CUR_TP" ] && stop_tracer "$CUR_TP"
	[ -n "${MEMCG:-}" ] && memcg_remove
	umount "$WORK/mnt" 2> /dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE

BENCH_NAME=bench-sys
# shellcheck source=bench/tracer.sh
. bench/tracer.sh

# The workload, pinned: its user + system seconds in $CPU.
run() {
	/usr/bin/time -f '%U %S' -o "$WORK/wtime" taskset -c $WCPU "$@" > /dev/null 2>&1
	# (GNU time says "Command exited with non-zero status N" first: the oom victims' shell.)
	CPU=$(tail -1 "$WORK/wtime" | awk '{ print $1 + $2 }')
}

median() { sort -n | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }

RESULTS=$WORK/results # tool tracer rep cpu reported tcpu rss
: > "$RESULTS"

# scenario TOOL EVENTS COUNT-CMD WORKLOAD... : untraced, the tool, bpftrace ($BT, a program,
# with $BT_COUNT counting its lines of the workload); COUNT-CMD counts the tool's.
scenario() {
	local tool=$1 events=$2 count=$3
	shift 3
	echo "$tool" | grep -Eq "$ONLY" || return 0
	echo "== $tool ($events events a run)" >&2
	for rep in $(seq "$REPS"); do
		run "$@"
		echo "$tool none $rep $CPU - - -" >> "$RESULTS"
		for tracer in ftt bpftrace; do
			if [ $tracer = ftt ]; then
				start_tracer '^Tracing' "$B/$tool" $TOOL_ARGS || continue
			else
				start_tracer 'Attaching' bpftrace -e "$BT" || continue
			fi
			run "$@"
			sleep 1
			stop_tracer $TP
			local n
			if [ $tracer = ftt ]; then n=$(eval "$count"); else n=$(eval "$BT_COUNT"); fi
			read -r u s m < <(tail -1 "$WORK/time")
			echo "$tool $tracer $rep $CPU $n $(echo "$u + $s" | bc) $m" >> "$RESULTS"
			cp "$WORK/out" "$WORK/$tool.$tracer.out"
		done
	done
	echo "$tool $events" >> "$WORK/events"
}

# --- statsnoop: 100,000 stat() of one path -------------------------------------------------
N=100000
TOOL_ARGS="-n snoop_target"
BT='tracepoint:syscalls:sys_enter_newfstatat /comm == "snoop_target"/ { @f[tid] = args->filename; }
tracepoint:syscalls:sys_exit_newfstatat /@f[tid]/ { printf("%-6d %-16s %3d %s\n", pid, comm,
args->ret >= 0 ? 0 : - args->ret, str(@f[tid])); delete(@f[tid]); }'
BT_COUNT='grep -c " /etc/hostname$" "$WORK/out"'
scenario statsnoop $N 'grep -c " /etc/hostname$" "$WORK/out"' "$ST" stats $N /etc/hostname

# --- capable: 100,000 raw sockets (CAP_NET_RAW) ------------------------------------------------
TOOL_ARGS="-n snoop_target"
BT='tracepoint:capability:cap_capable /comm == "snoop_target"/ { time("%H:%M:%S ");
printf("%-6d %-16s %-4d %d\n", pid, comm, args->cap, args->ret); }'
if [ ! -d /sys/kernel/tracing/events/capability ]; then
	BT='kprobe:cap_capable /comm == "snoop_target"/ { time("%H:%M:%S "); printf("%-6d %-16s %-4d %d\n", pid, comm, arg2, arg3); }'
fi
BT_COUNT='grep -c " 13 " "$WORK/out"'
scenario capable $N 'grep -c CAP_NET_RAW "$WORK/out"' "$ST" raws $N -

# --- mountsnoop: 1,000 tmpfs mounts and unmounts ------------------------------------------------
M=1000
mkdir -p "$WORK/mnt"
TOOL_ARGS="-n snoop_target"
BT='tracepoint:syscalls:sys_enter_mount /comm == "snoop_target"/ { @s[tid] = args->dev_name;
@d[tid] = args->dir_name; @t[tid] = args->type; }
tracepoint:syscalls:sys_exit_mount /@d[tid]/ { printf("%s mount(\"%s\", \"%s\", \"%s\") = %d\n",
comm, str(@s[tid]), str(@d[tid]), str(@t[tid]), args->ret); delete(@s[tid]); delete(@d[tid]);
delete(@t[tid]); }
tracepoint:syscalls:sys_enter_umount /comm == "snoop_target"/ { @u[tid] = args->name; }
tracepoint:syscalls:sys_exit_umount /@u[tid]/ { printf("%s umount(\"%s\") = %d\n", comm,
str(@u[tid]), args->ret); delete(@u[tid]); }'
BT_COUNT='grep -c "mount(\"" "$WORK/out"'
scenario mountsnoop $((2 * M)) 'grep -c "mount(\"" "$WORK/out"' "$ST" mounts $M "$WORK/mnt"

# --- drsnoop: cat of a 64 MB file from an 8 MB cgroup ---------------------------------------------
F=/var/tmp/ftt-bench-sys.$$
if memcg_make "ftt-bench-dr-$$" 8M && dd if=/dev/zero of="$F" bs=1M count=64 oflag=direct 2> /dev/null; then
	TOOL_ARGS="-n cat"
	BT='tracepoint:vmscan:mm_vmscan_memcg_reclaim_begin,tracepoint:vmscan:mm_vmscan_direct_reclaim_begin
/comm == "cat"/ { @b[tid] = nsecs; }
tracepoint:vmscan:mm_vmscan_memcg_reclaim_end,tracepoint:vmscan:mm_vmscan_direct_reclaim_end
/@b[tid]/ { printf("%-16s %-6d %8d %d\n", comm, tid, (nsecs - @b[tid]) / 1000, args->nr_reclaimed);
delete(@b[tid]); }'
	BT_COUNT='grep -c "^cat " "$WORK/out"'
	# Events: what drsnoop saw in its first run (reclaims vary by run; counted per run).
	scenario drsnoop 0 'grep -c "^cat " "$WORK/out"' sh -c 'echo $$ > "$0/cgroup.procs" && exec cat "$1"' "$MEMCG" "$F"
	memcg_remove
	MEMCG=
	# pages: the sum of each tracer's last run
	DR_PAGES_FTT=$(awk '$1 == "cat" { s += $5 } END { print s + 0 }' "$WORK/drsnoop.ftt.out" 2> /dev/null)
	DR_PAGES_BT=$(awk '$1 == "cat" { s += $4 } END { print s + 0 }' "$WORK/drsnoop.bpftrace.out" 2> /dev/null)
	DR_N_FTT=$(grep -c '^cat ' "$WORK/drsnoop.ftt.out" 2> /dev/null)
	DR_N_BT=$(grep -c '^cat ' "$WORK/drsnoop.bpftrace.out" 2> /dev/null)
fi
rm -f "$F"

# --- oomkill: 10 OOM kills in a 16 MB cgroup ------------------------------------------------------
K=10
if memcg_make "ftt-bench-oom-$$" 16M; then
	TOOL_ARGS=
	BT='tracepoint:oom:mark_victim { time("%H:%M:%S "); printf("Triggered by PID %d (\"%s\"), OOM kill of PID %d, loadavg: ", tid, comm, args->pid); cat("/proc/loadavg"); }'
	BT_COUNT='grep -c "OOM kill of PID" "$WORK/out"'
	cat > "$WORK/kills.sh" << EOF
for i in \$(seq $K); do sh -c 'echo \$\$ > "\$0/cgroup.procs" && exec "\$@"' "$MEMCG" "$ST" oom victim 64; done
EOF
	scenario oomkill $K 'sed 1d "$WORK/out" | grep -c victim' sh "$WORK/kills.sh"
	memcg_remove
	MEMCG=
	# Idle: 10 s without a kill, the tracers' own CPU.
	echo oomkill | grep -Eq "$ONLY" || tracers=
	for tracer in ${tracers-ftt bpftrace}; do
		if [ $tracer = ftt ]; then start_tracer '^Tracing' "$B/oomkill"; else start_tracer Attaching bpftrace -e "$BT"; fi
		sleep 10
		stop_tracer $TP
		read -r u s m < <(tail -1 "$WORK/time")
		echo "$tracer $(echo "$u + $s" | bc) $m" >> "$WORK/idle"
	done
fi

# --- the report -----------------------------------------------------------------------------------
{
	echo "<!-- SPDX-License-Identifier: GPL-2.0-only -->"
	echo "# The system tools' cost beside bpftrace (bench/bench-sys.sh)"
	echo
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -r), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "(a machine shared with other work: compare within a table, not across runs), $REPS runs"
	echo "each, medians. bpftrace $(bpftrace --version 2> /dev/null | awk '{ print $2 }'); the tools write"
	echo "text to a file, bpftrace prints the same fields."
	echo
	echo "| tool | events a run | tracer | workload CPU s | added us/event | reported | tracer CPU s | peak RSS MB |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
	for tool in statsnoop capable mountsnoop drsnoop oomkill; do
		grep -q "^$tool " "$RESULTS" || continue
		ev=$(awk -v t=$tool '$1 == t { print $2 }' "$WORK/events")
		base=$(awk -v t=$tool '$1 == t && $2 == "none" { print $4 }' "$RESULTS" | median)
		for tracer in none ftt bpftrace; do
			cpu=$(awk -v t=$tool -v r=$tracer '$1 == t && $2 == r { print $4 }' "$RESULTS" | median)
			[ -n "$cpu" ] || continue
			rep=$(awk -v t=$tool -v r=$tracer '$1 == t && $2 == r { print $5 }' "$RESULTS" | median)
			tcpu=$(awk -v t=$tool -v r=$tracer '$1 == t && $2 == r { print $6 }' "$RESULTS" | median)
			rss=$(awk -v t=$tool -v r=$tracer '$1 == t && $2 == r { print $7 }' "$RESULTS" | median)
			n=$ev
			[ "$tool" = drsnoop ] && n=$(awk -v t=$tool '$1 == t && $2 == "ftt" { print $5 }' "$RESULTS" | median)
			added=-
			[ $tracer != none ] && [ "${n:-0}" -gt 0 ] 2> /dev/null &&
				added=$(echo "scale=2; ($cpu - $base) * 1000000 / $n" | bc)
			name=$tracer
			[ $tracer = ftt ] && name=$tool
			[ $tracer = none ] && name="untraced"
			echo "| $tool | ${n:-?} | $name | $cpu | $added | $rep | $tcpu | $(echo "scale=1; ${rss:-0} / 1024" | bc) |"
		done
	done
	echo
	[ -n "${DR_PAGES_FTT:-}" ] && echo "drsnoop: cat's reclaims in each tracer's last run: drsnoop $DR_N_FTT reclaims, $DR_PAGES_FTT pages; bpftrace $DR_N_BT reclaims, $DR_PAGES_BT pages (each traced its own run of cat)."
	if [ -s "$WORK/idle" ]; then
		read -r _ fc fm < <(grep '^ftt ' "$WORK/idle")
		read -r _ bc bm < <(grep '^bpftrace ' "$WORK/idle")
		echo "oomkill idle for 10 s (no kill): oomkill ${fc:-?} s CPU, $((${fm:-0} / 1024)) MB; bpftrace ${bc:-?} s CPU, $((${bm:-0} / 1024)) MB."
	fi
	echo
	echo "GNU time counts CPU in 10 ms steps: rows whose workload adds less than a few of them"
	echo "(mountsnoop's 2,000 calls, oomkill's 10 kills) say only that the cost is small."
	echo "drsnoop's events are cat's reclaims as drsnoop counted them in each run (they vary with"
	echo "what the page cache held); its added time is per reclaim. statsnoop here reads paths"
	echo "by uprobes on the C library (no kprobes in this kernel): a trap per stat() besides the"
	echo "tracepoints, which bpftrace, reading user memory in its tracepoint program, does not pay."
} > "$REPORT"
cat "$REPORT"
