# SPDX-License-Identifier: GPL-2.0-only
# The function tools' counting paths, timed against each other in a qemu guest (make
# bench-guest runs this in the vmcheck guests as their script; busybox sh, the static
# tools in /ftt/bin). Timings under TCG are slow and noisy: only the ratios within one
# guest's run mean anything.
#
# The workload: dd if=/dev/zero of=/dev/null bs=1 count=N, one read() per byte, so N calls
# of vfs_read, timed by the script that runs it (/proc/timer_list's clock). Per path, REPS runs,
# the median: added ns per call (traced - untraced) / N, and the calls the path reported.
# perf-tools' funccount counts with the function profiler (function_profile_enabled);
# perf-tools itself needs bash and awk with GNU extensions, which the guest lacks, so its
# method is run here by hand, as its script does, on the kernels that have the profiler.
T=/sys/kernel/debug/tracing
[ -e $T/events ] || T=/sys/kernel/tracing
B=/ftt/bin
N=${BENCH_N:-200000}
REPS=${BENCH_REPS:-3}
W=/tmp/bench-work.sh
# The clock: /proc/timer_list's "now at N nsecs" (CLOCK_MONOTONIC), else /proc/uptime (10 ms).
if grep -q '^now at' /proc/timer_list 2> /dev/null; then
	CLOCK="awk '/^now at/ {printf \"%.6f\", \$3 / 1e9; exit}' /proc/timer_list"
else
	CLOCK="cut -d' ' -f1 /proc/uptime"
fi
cat > $W << EOF
#!/bin/sh
a=\$($CLOCK)
dd if=/dev/zero of=/dev/null bs=1 count=$N 2> /dev/null
b=\$($CLOCK)
echo \$a \$b > /tmp/bench-time
EOF
chmod +x $W

secs() { awk '{printf "%.4f", $2 - $1}' /tmp/bench-time; }
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

# One path: NAME, then a command that runs $W and prints the calls it counted.
measure() {
	name=$1; shift
	: > /tmp/bench-secs
	: > /tmp/bench-calls
	i=0
	while [ $i -lt $REPS ]; do
		calls=$("$@" 2> /tmp/bench-err)
		secs >> /tmp/bench-secs; echo >> /tmp/bench-secs
		echo "${calls:-0}" >> /tmp/bench-calls
		i=$((i + 1))
	done
	s=$(grep . /tmp/bench-secs | median)
	c=$(median < /tmp/bench-calls)
	echo "BENCH $name $s $c $(grep -c . /tmp/bench-err)"
}

untraced() { $W; echo $N; }
# funccount's kprobe hit counts, no event per call (system-wide: dd's calls and the few of
# others); its default where the kernel has no function profiler.
# system_wide VIA: funccount --via VIA vfs_read for every task while dd runs.
system_wide() {
	# Removed first: the last run's banner would be taken for this one's (the shell
	# truncates the file only once the job runs), and dd would run before the probes.
	rm -f /tmp/bench-out /tmp/bench-err2
	$B/funccount --via $1 vfs_read > /tmp/bench-out 2> /tmp/bench-err2 &
	p=$!
	i=0
	while ! grep -q 'Ctrl-C to end' /tmp/bench-err2 2> /dev/null; do
		kill -0 $p 2> /dev/null && [ $i -lt 300 ] || { cat /tmp/bench-err2 >&2; return; }
		sleep 0.1; i=$((i + 1))
	done
	$W
	kill -INT $p; wait $p
	awk '$1 == "vfs_read" {print $2}' /tmp/bench-out
}
hitcounts() { system_wide hits; }
# funccount --via profile: the function profiler, owned through the top level.
funcprofile() { system_wide profile; }
# funccount --exec: one event per call, counted by the tool.
events() {
	$B/funccount vfs_read --exec $W 2> /dev/null | awk '$1 == "vfs_read" {print $2}'
}
# functrace -c: the function tracer in the run's instance, one event per call.
functracer() {
	$B/functrace -c vfs_read --exec $W 2> /dev/null |
		awk '$1 == "ftrace:function" {s += $2} END {print s + 0}'
}
# funclatency: a kprobe and a kretprobe per call, paired per thread.
latency() {
	$B/funclatency vfs_read --exec $W 2> /dev/null |
		awk '$2 == "->" && $4 == ":" {s += $5} END {print s + 0}'
}
# funcslower with a threshold no call reaches: paired in the kernel (hist triggers, where
# the kernel has them), or here (--user-space: an event per entry and return). Its calls
# are the ones shown: none (no read takes 10 s).
slower() {
	$B/funcslower $1 vfs_read 10000000 --exec $W 2> /dev/null | grep -c ' vfs_read'
}
slower_kernel() { slower ""; }
slower_user() { slower --user-space; }
# tpoint --hist on read(2)'s size: binned by the kernel's hist triggers (two per event, each
# with its filter; no event written), or here (--user-space: an event per read, read and
# binned by the tool).
tphist() {
	$B/tpoint $1 --hist count $2 syscalls:sys_enter_read --exec $W 2> /dev/null |
		awk '/ -> / {s += $5} END {print s + 0}'
}
tphist_kernel() { tphist "" ""; }
tphist_user() { tphist --user-space ""; }
# --linear 1000: in the kernel (.buckets=N, Linux 5.15) two triggers on this unsigned field,
# the 64 slots and the values beyond them, each with its filter; or here.
tplinear_kernel() { tphist "" "--linear 1000"; }
tplinear_user() { tphist --user-space "--linear 1000"; }
# tpoint -c on read(2): one hist trigger per event (none written), or here (an event each).
tpcount() {
	$B/tpoint $1 -c syscalls:sys_enter_read --exec $W 2> /dev/null |
		awk '$1 == "syscalls:sys_enter_read" {s += $2} END {print s + 0}'
}
tpcount_kernel() { tpcount ""; }
tpcount_user() { tpcount --user-space; }
# perf-tools' method: the function profiler on set_ftrace_filter's functions.
profiler() {
	echo vfs_read > $T/set_ftrace_filter
	echo 1 > $T/function_profile_enabled
	$W
	echo 0 > $T/function_profile_enabled
	: > $T/set_ftrace_filter
	cat $T/trace_stat/function* | awk '$1 == "vfs_read" {s += $2} END {print s + 0}'
}

# Time from starting a tool to its banner (Tracing/Counting ... Ctrl-C to end.), each traced
# as a user would (every task), against tpoint on one event: #28 wants none over 2x.
# banner NAME CMD...: the median seconds, and the kernel memory of its run's instances.
banner() {
	name=$1; shift
	: > /tmp/banner-secs
	kb=0
	i=0
	while [ $i -lt $REPS ]; do
		rm -f /tmp/banner-err
		a=$(eval "$CLOCK")
		"$@" > /dev/null 2> /tmp/banner-err &
		p=$!
		j=0
		while ! grep -Eq '^(Tracing|Counting)' /tmp/banner-err 2> /dev/null; do
			kill -0 $p 2> /dev/null && [ $j -lt 3000 ] || break
			sleep 0.02; j=$((j + 1))
		done
		b=$(eval "$CLOCK")
		kb=0
		for f in $T/instances/ftrace-tools-*-${p}_*/buffer_total_size_kb; do
			[ -r "$f" ] && kb=$((kb + $(cat "$f")))
		done
		kill -INT $p 2> /dev/null; wait $p
		grep -Eq '^(Tracing|Counting)' /tmp/banner-err || { echo "BANNERFAIL $name $(head -1 /tmp/banner-err)"; return; }
		echo "$a $b" | awk '{printf "%.4f\n", $2 - $1}' >> /tmp/banner-secs
		i=$((i + 1))
	done
	echo "BANNER $name $(median < /tmp/banner-secs) $kb"
}

echo "BENCHINFO kernel $(uname -r) N $N reps $REPS"
echo "BENCHCPUS $(grep -c '^processor' /proc/cpuinfo)"
banner tpoint $B/tpoint syscalls:sys_enter_read
banner tpoint-c $B/tpoint -c syscalls:sys_enter_read
banner opensnoop $B/opensnoop
banner execsnoop $B/execsnoop
banner syscount $B/syscount
banner iosnoop $B/iosnoop
banner runqlat $B/runqlat
banner offcputime $B/offcputime
banner tcpconnect $B/tcpconnect
if [ -e $T/kprobe_events ]; then
	banner kprobe $B/kprobe p:vfs_read
	banner funccount $B/funccount vfs_read
	banner funclatency $B/funclatency vfs_read
	banner funcslower $B/funcslower vfs_read 10000
fi
if grep -qw function $T/available_tracers 2> /dev/null; then
	banner functrace $B/functrace vfs_read
	banner cachestat $B/cachestat
fi
grep -qw function_graph $T/available_tracers 2> /dev/null && banner funcgraph $B/funcgraph vfs_read
[ -n "${BENCH_BANNER_ONLY:-}" ] && exit 0
measure untraced untraced
measure hitcounts hitcounts
measure events events
measure functracer functracer
measure funclatency latency
if [ -e $T/synthetic_events ] && grep -q 'hist:keys' $T/README; then
	measure funcslower slower_kernel
else
	echo "BENCHSKIP funcslower no hist triggers with synthetic events (CONFIG_HIST_TRIGGERS, 4.17)"
fi
measure funcslower-user slower_user
if [ -d $T/events/syscalls/sys_enter_read ] && grep -q 'hist:keys' $T/README; then
	measure tpoint-hist tphist_kernel
	measure tpoint-count tpcount_kernel
else
	echo "BENCHSKIP tpoint-hist,tpoint-count no hist triggers (CONFIG_HIST_TRIGGERS, 4.7) or syscall tracepoints"
fi
if [ -d $T/events/syscalls/sys_enter_read ] && grep -q '\.buckets' $T/README; then
	measure tpoint-linear tplinear_kernel
else
	echo "BENCHSKIP tpoint-linear no .buckets in hist triggers (Linux 5.15) or syscall tracepoints"
fi
if [ -d $T/events/syscalls/sys_enter_read ]; then
	measure tpoint-linear-user tplinear_user
	measure tpoint-hist-user tphist_user
	measure tpoint-count-user tpcount_user
fi
if [ -e $T/function_profile_enabled ]; then
	measure funcprofile funcprofile
	measure profiler profiler
else
	echo "BENCHSKIP profiler no function profiler in this kernel (CONFIG_FUNCTION_PROFILER)"
fi
measure untraced-after untraced
