#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# What a sampling profiler costs, side by side in one run: profile (perf_event_open read
# here), perf record -g and bpftrace's profile probe, each sampling every CPU with kernel and
# user stacks at 49, 99 and 999 Hz; writes bench/PROFILE.md. Needs root, `make all`, perf
# and bpftrace (make bench-deps).
#
# The workload: profile_target's clock loop ("stolen SECS DEPTH"), one per CPU, pinned, for
# SECS seconds, DEPTH calls deep: CPU-bound, and it sees every gap between two of its clock
# readings over 2 us, time taken from it (interrupts, the sampling among them; other tasks,
# the profiler among them). Per profiler and rate, REPS runs, each after an untraced one:
#   slowdown      the time taken from the workload, traced less untraced, over its CPU time
#                 (every cost the profiler puts on a CPU-bound task: its sampling interrupt,
#                 bpftrace's BPF there, its own run time on the workload's CPUs)
#   us a sample   that extra time over the loops' samples at the rate asked (HZ a second on
#                 each CPU: the profilers' own counts cover more than the loops' time)
#   CPU ms/s      the profiler's own CPU time (its threads' run time, schedstat) while the
#                 workload ran, per second of it
#   BPF ms/s      bpftrace's BPF programs' run time, as the kernel counts it
#                 (kernel.bpf_stats_enabled, on for the run), per second: its per-sample
#                 work, done in the sampling interrupt, in the workload's time
#   peak RSS      the profiler's VmHWM at the end (MiB)
#   samples       what the profiler said it took in the whole run (profile: "N samples
#                 counted"; bpftrace: the sum of its map; perf: perf report's count)
# perf record writes its perf.data to a tmpfs folder; its report is not part of its cost.
#
# Environment: BENCH_SECS (the workload's seconds, 4), BENCH_DEPTH (its calls deep, 32),
# BENCH_REPS (3), BENCH_RATES ("49 99 999"), BENCH_REPORT (bench/PROFILE.md), BENCH_ONLY (a
# regex of names).
set -u
set -m # each profiler in its own process group
cd "$(dirname "$0")/.."
B=${B:-build}
SECS=${BENCH_SECS:-4}
DEPTH=${BENCH_DEPTH:-32}
REPS=${BENCH_REPS:-3}
RATES=${BENCH_RATES:-49 99 999}
REPORT=${BENCH_REPORT:-bench/PROFILE.md}
ONLY=${BENCH_ONLY:-.}
WORK=$(mktemp -d /tmp/ftt-bench-profile.XXXXXX)
STATS=/proc/sys/kernel/bpf_stats_enabled
STATS_WAS=$(cat $STATS 2> /dev/null)
trap 'rm -rf "$WORK"; [ -z "$STATS_WAS" ] || echo "$STATS_WAS" > $STATS' EXIT

die() { echo "bench-profile: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root"
[ -x "$B/profile" ] || die "$B/profile missing: make all"
PT=$B/tests/profile_target
[ -x "$PT" ] || die "$PT missing: make $PT"
for t in bpftrace perf taskset; do command -v $t > /dev/null || die "$t not found: make bench-deps"; done
NCPU=$(nproc)

# The workload: the ns taken from it, summed over the CPUs.
work() {
	local c pids=()
	for c in $(seq 0 $((NCPU - 1))); do
		taskset -c "$c" "$PT" stolen "$SECS" "$DEPTH" > "$WORK/loop.$c" &
		pids+=($!)
	done
	wait "${pids[@]}"
	cat "$WORK"/loop.* | awk '{ s += $2 } END { printf "%.0f\n", s }'
}
# The CPU time of PID so far in ns, all its threads (the scheduler's sum_exec_runtime: a
# tick of /proc/PID/stat is 10 ms, more than the measure at 49 Hz).
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2> /dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'; }
# The run time of PID's BPF programs so far in ns (0 when it has none, or without bpf_stats).
bpf_ns() { cat /proc/"$1"/fdinfo/* 2> /dev/null | awk '/^run_time_ns:/ { s += $2 } END { printf "%.0f\n", s }'; }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR ? v[int((NR + 1) / 2)] : "-") }'; }

# start NAME CMD...: the profiler in the background; its PID in $PROF once it samples.
start() {
	local name=$1
	shift
	"$@" > "$WORK/out" 2> "$WORK/err" &
	PROF=$!
	local i=0
	case $name in
	profile*) until grep -q '^Tracing' "$WORK/err" || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done ;;
	bpftrace*) until grep -q '^Attaching' "$WORK/out" || [ $i -ge 300 ]; do sleep 0.1; i=$((i + 1)); done ;;
	perf*) sleep 1 ;; # perf record says nothing until its end
	esac
	sleep 0.5
}
stop() {
	kill -INT "$PROF" 2> /dev/null
	wait "$PROF" 2> /dev/null
}
# The samples the profiler took, from its own words.
samples() {
	case $1 in
	profile*) sed -n 's/^profile: \([0-9]*\) samples counted.*/\1/p' "$WORK/err" ;;
	bpftrace*) awk '/^@\[/ { on = 1 } on && /\]: [0-9]+$/ { s += $NF } END { print s + 0 }' "$WORK/out" ;;
	perf*) perf report -i "$WORK/perf.data" --stdio --sort comm 2> /dev/null |
		sed -n 's/^# Samples: \([0-9.]*\)\([KM]\?\) .*/\1 \2/p' | head -1 |
		awk '{ m = $2 == "K" ? 1000 : $2 == "M" ? 1000000 : 1; printf "%.0f\n", $1 * m }' ;;
	esac
}

work > /dev/null # warm
{
	echo "<!-- SPDX-License-Identifier: GPL-2.0-only (written by bench/bench-profile.sh) -->"
	echo "# Profilers side by side: every CPU, kernel and user stacks"
	echo
	echo "Measured $(date -u +%Y-%m-%d) on $(uname -r), $NCPU CPUs ($(uname -m)), by bench/bench-profile.sh:"
	echo "profile_target's clock loop on each CPU, $DEPTH calls deep, for $SECS s (CPU-bound; a gap of over"
	echo "2 us between two of its clock readings is time taken from it), median of $REPS runs, each"
	echo "after an untraced one. Slowdown: the time taken from the loops, traced less untraced, over"
	echo "their CPU time: all a profiler costs a CPU-bound task (its sampling interrupt, bpftrace's"
	echo "BPF programs there, its own run time on their CPUs); us a sample: that time over the"
	echo "loops' samples at the rate asked. CPU ms/s: the profiler's own CPU time per second; BPF ms/s: bpftrace's BPF"
	echo "programs' run time per second, as the kernel counts it (kernel.bpf_stats_enabled): its"
	echo "per-sample work, done in the interrupt. perf: \`perf record -F HZ -a -g\` (perf.data on"
	echo "tmpfs, its report not counted); bpftrace: \`profile:hz:HZ { @[kstack, ustack, comm] ="
	echo "count(); }\`; profile: \`profile -F HZ -f\`."
	echo
	echo "| profiler | Hz | slowdown % | us a sample | CPU ms/s | BPF ms/s | peak RSS MiB | samples |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
} > "$REPORT.new"
for hz in $RATES; do
	for name in profile perf bpftrace; do
		[[ $name =~ $ONLY ]] || continue
		case $name in
		profile) cmd=("$B/profile" -F "$hz" -f) ;;
		perf) cmd=(perf record -q -F "$hz" -a -g -o "$WORK/perf.data") ;;
		bpftrace) cmd=(bpftrace -e "profile:hz:$hz { @[kstack, ustack, comm] = count(); }") ;;
		esac
		slow=() per=() cpu=() bpf=() rss=() smp=()
		[ "$name" != bpftrace ] || [ -z "$STATS_WAS" ] || echo 1 > $STATS
		for _ in $(seq 1 "$REPS"); do
			base=$(work)
			start "$name" "${cmd[@]}"
			c0=$(cpu_ns "$PROF") b0=$(bpf_ns "$PROF")
			w=$(work)
			c1=$(cpu_ns "$PROF") b1=$(bpf_ns "$PROF")
			r=$(awk '/^VmHWM/ { print int($2 / 1024) }' "/proc/$PROF/status" 2> /dev/null)
			stop
			n=$(samples "$name")
			smp+=("${n:-0}")
			slow+=("$(echo "$w $base $SECS $NCPU" | awk '{ printf "%.2f\n", ($1 - $2) / 1e7 / ($3 * $4) }')")
			per+=("$(echo "$w $base $hz $SECS $NCPU" | awk '{ printf "%.2f\n", ($1 - $2) / 1000 / ($3 * $4 * $5) }')")
			cpu+=("$(echo "$c0 $c1 $SECS" | awk '{ printf "%.2f\n", ($2 - $1) / 1e6 / $3 }')")
			bpf+=("$(echo "$b0 $b1 $SECS" | awk '{ printf "%.2f\n", ($2 - $1) / 1e6 / $3 }')")
			rss+=("${r:--}")
		done
		[ -z "$STATS_WAS" ] || echo "$STATS_WAS" > $STATS
		b=$(printf '%s\n' "${bpf[@]}" | median)
		[ "$name" = bpftrace ] && [ -n "$STATS_WAS" ] || b=-
		printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$hz" \
			"$(printf '%s\n' "${slow[@]}" | median)" "$(printf '%s\n' "${per[@]}" | median)" \
			"$(printf '%s\n' "${cpu[@]}" | median)" \
			"$b" "$(printf '%s\n' "${rss[@]}" | median)" "$(printf '%s\n' "${smp[@]}" | median)" >> "$REPORT.new"
		echo "bench-profile: $name at $hz Hz done" >&2
	done
done

# Side by side at the same time, on the same workload: profile_target's three functions that
# burn CPU in the shares 1:2:3 (5 s), sampled by the three at 99 Hz at once; each one's shares
# of the samples whose user stack holds one of them.
if [[ side =~ $ONLY ]]; then
	rm -f "$WORK/go"
	"$PT" ratio 5 "$WORK/go" > /dev/null &
	TP=$!
	"$B/profile" -F 99 -f -p $TP > "$WORK/side.prof" 2> /dev/null &
	P1=$!
	perf record -q -F 99 -g -p $TP -o "$WORK/side.data" > /dev/null 2>&1 &
	P2=$!
	# (bpftrace names user frames when it prints, at its end: it must end while the
	# process lives, else its frames are bare addresses; 4 of the 5 s then)
	bpftrace -e "profile:hz:99 /pid == $TP/ { @[ustack] = count(); } interval:s:5 { exit(); }" \
		> "$WORK/side.bt" 2> /dev/null &
	P3=$!
	i=0
	until grep -q '^Attaching' "$WORK/side.bt" || [ $i -ge 300 ]; do sleep 0.1; i=$((i + 1)); done
	sleep 1
	touch "$WORK/go"
	wait $TP
	kill -INT $P2 $P3 2> /dev/null
	wait $P1 $P2 $P3 2> /dev/null
	# "one two three total" samples of each
	fromfolded() { awk '{ n = $NF; for (f = 1; f <= 3; f++) if (index($0, ";burn_" w[f] ";")) { s[f] += n; t += n } }
		BEGIN { split("one two three", w) } END { print s[1] + 0, s[2] + 0, s[3] + 0, t + 0 }' "$1"; }
	fromblocks() { awk '/^@\[/ { b = "" } { b = b " " $0 } /\]: [0-9]+$/ { n = $NF
		for (f = 1; f <= 3; f++) if (index(b, "burn_" w[f] "+")) { s[f] += n; t += n } }
		BEGIN { split("one two three", w) } END { print s[1] + 0, s[2] + 0, s[3] + 0, t + 0 }' "$1"; }
	fromperf() { perf script -i "$1" -F ip,sym 2> /dev/null | awk '
		/^$/ { for (f = 1; f <= 3; f++) if (index(b, " burn_" w[f] " ")) { s[f]++; t++ }; b = ""; next }
		{ b = b " " $2 " " } BEGIN { split("one two three", w) }
		END { print s[1] + 0, s[2] + 0, s[3] + 0, t + 0 }'; }
	shares() { awk '{ if ($4) printf "%.1f / %.1f / %.1f | %d", $1 * 100 / $4, $2 * 100 / $4, $3 * 100 / $4, $4; else printf "- | 0" }'; }
	{
		echo
		echo "## Side by side: the same 1:2:3 workload, sampled by the three at once at 99 Hz"
		echo
		echo "profile_target ratio 5 (burn_one, burn_two, burn_three: 16.7 / 33.3 / 50.0 % of its"
		echo "CPU time); each profiler's shares of the samples whose user stack holds one of them"
		echo "(bpftrace's of 4 s: it names user frames at its end, and must end while the process lives)."
		echo
		echo "| profiler | burn_one / burn_two / burn_three % | samples |"
		echo "| --- | --- | --- |"
		echo "| profile -F 99 -f -p | $(fromfolded "$WORK/side.prof" | shares) |"
		echo "| perf record -F 99 -g -p | $(fromperf "$WORK/side.data" | shares) |"
		echo "| bpftrace profile:hz:99 | $(fromblocks "$WORK/side.bt" | shares) |"
	} >> "$REPORT.new"
fi
mv "$REPORT.new" "$REPORT"
cat "$REPORT"
