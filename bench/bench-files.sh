#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The cost of filetop, vfsstat, fileslower and tcptop, each beside a bpftrace program on the
# same events, and what each reported of a known read/write storm; writes bench/FILES.md.
# Needs root, `make all`, bpftrace, python3 (tcptop's) and GNU time (make bench-deps).
#
# The workload: dd copying a file to another in 64-byte blocks (BENCH_N blocks, 100,000:
# as many read() calls on the one file and write() calls on the other, status=none), pinned
# to one CPU, the tracer on the other. It is started stopped (a shell that stops itself
# before it execs dd), the tracer is given its PID (-p; bpftrace: pid == PID) and started,
# then the workload is let go: the tracer sees all of dd and nothing of the shell before it.
# tcptop's workload: dd writing the file to a TCP connection on the loopback (N sends). Per tool REPS runs untraced, under the tool (text to a file)
# and under bpftrace:
#   added us/event  (workload CPU time traced - untraced) / events: the cost paid in the
#                   traced process (its user + system time; elapsed time is noise on a
#                   shared machine), per read or write (send, receive) call
#   reported        filetop: the READS of the first file's row plus the WRITES of the
#                   second's, summed over the intervals (bpftrace: the same per descriptor);
#                   vfsstat: its reads + writes summed over the intervals (-j: counts, not
#                   rates; all of dd's calls, its loader's reads of the libraries too);
#                   fileslower 0: its lines of the two files (bpftrace: its lines of
#                   descriptors 0 and 1, where dd has the two files); tcptop: the bytes
#                   sent and received over its intervals, over 64 (-j: bytes exactly)
#   tracer CPU      user + system seconds of the tracer process; peak RSS
# This kernel has no kprobes: the bpftrace programs use the syscall tracepoints the tools
# use (bcc's tools put kprobes on vfs_read and vfs_write).
#
# Environment: BENCH_N (100000), BENCH_REPS (3), BENCH_CPU (0: the workload; the tracer the
# next CPU), BENCH_REPORT (bench/FILES.md), BENCH_ONLY (a regex of tool names).
set -u
set -m # each tracer in its own process group
cd "$(dirname "$0")/.."
B=${B:-build}
N=${BENCH_N:-100000}
REPS=${BENCH_REPS:-3}
WCPU=${BENCH_CPU:-0}
TCPU=$(((WCPU + 1) % $(nproc)))
REPORT=${BENCH_REPORT:-bench/FILES.md}
ONLY=${BENCH_ONLY:-.}
WORK=$(mktemp -d /var/tmp/ftt-bench-files.XXXXXX)

die() { echo "bench-files: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root"
for t in filetop vfsstat fileslower; do [ -x "$B/$t" ] || die "$B/$t missing: make all"; done
for t in bpftrace /usr/bin/time taskset dd; do
	command -v $t > /dev/null || die "$t not found: make bench-deps"
done
[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs"

CUR_TP=
WPID=
RECV=
cleanup() {
	[ -n "$CUR_TP" ] && stop_tracer "$CUR_TP"
	[ -n "$WPID" ] && kill -KILL "$WPID" 2> /dev/null
	[ -n "$RECV" ] && kill "$RECV" 2> /dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE

BENCH_NAME=bench-files
# shellcheck source=bench/tracer.sh
. bench/tracer.sh

# The workload, pinned and stopped before its exec: its PID in $WPID.
work_start() {
	rm -f "$WORK/in.out" "$WORK/wpid"
	(exec /usr/bin/time -f '%U %S' -o "$WORK/wtime" taskset -c $WCPU \
		sh -c 'echo $$ > "$0.tmp" && mv "$0.tmp" "$0" && kill -STOP $$ && exec "$@"' "$WORK/wpid" \
		"${WORKLOAD[@]}" > /dev/null 2>&1) &
	WJOB=$!
	local i=0
	while [ $i -lt 100 ]; do
		[ -s "$WORK/wpid" ] && WPID=$(cat "$WORK/wpid") &&
			[ "$(awk '{ print $3 }' "/proc/$WPID/stat" 2> /dev/null)" = T ] && return 0
		sleep 0.05
		i=$((i + 1))
	done
	die "the workload did not start"
}
# Let it go and wait for it: its user + system seconds in $CPU.
work_run() {
	kill -CONT "$WPID"
	wait $WJOB
	WPID=
	CPU=$(tail -1 "$WORK/wtime" | awk '{ print $1 + $2 }')
}

median() { sort -n | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }

RESULTS=$WORK/results # tool tracer rep cpu reported tcpu rss
: > "$RESULTS"

# scenario TOOL COUNT-CMD: untraced, the tool ($TOOL_ARGS, then -p PID), bpftrace ($BT, a
# program in which PID stands for the workload's, with $BT_COUNT counting what it reported);
# COUNT-CMD counts the tool's.
scenario() {
	local tool=$1 count=$2
	echo "$tool" | grep -Eq "$ONLY" || return 0
	echo "== $tool ($EVENTS events a run)" >&2
	echo "$tool $EVENTS" >> "$WORK/events"
	for rep in $(seq "$REPS"); do
		work_start
		work_run
		echo "$tool none $rep $CPU - - -" >> "$RESULTS"
		for tracer in ftt bpftrace; do
			work_start
			if [ $tracer = ftt ]; then
				# shellcheck disable=SC2086
				start_tracer '^Tracing' "$B/$tool" $TOOL_ARGS -p "$WPID" || { work_run; continue; }
			else
				start_tracer 'Attaching' bpftrace -e "${BT//PID/$WPID}" || { work_run; continue; }
			fi
			work_run
			sleep 1
			stop_tracer $TP
			local n
			if [ $tracer = ftt ]; then n=$(eval "$count"); else n=$(eval "$BT_COUNT"); fi
			read -r u s m < <(tail -1 "$WORK/time")
			echo "$tool $tracer $rep $CPU $n $(echo "$u + $s" | bc) $m" >> "$RESULTS"
			cp "$WORK/out" "$WORK/$tool.$tracer.out"
		done
	done
}

head -c $((64 * N)) /dev/zero > "$WORK/in" || die "cannot write $WORK/in"
WORKLOAD=(dd if="$WORK/in" of="$WORK/in.out" bs=64 count="$N" status=none)
EVENTS=$((2 * N))
IN_RE=$(printf '%s' "$WORK/in" | sed 's/[.]/[.]/g')

# --- filetop: reads and writes per open file, each interval --------------------------------------
# bpftrace: per process and descriptor, the calls that did not fail and their bytes, printed
# and cleared every second (the descriptor at the entry, the bytes at the exit, as filetop).
TOOL_ARGS="-r 0"
BT='tracepoint:syscalls:sys_enter_read /pid == PID/ { @rfd[tid] = args->fd + 1; }
tracepoint:syscalls:sys_exit_read /@rfd[tid]/ { if (args->ret >= 0) { @reads[pid, comm, @rfd[tid] - 1] = count();
@rbytes[pid, comm, @rfd[tid] - 1] = sum(args->ret); } delete(@rfd[tid]); }
tracepoint:syscalls:sys_enter_write /pid == PID/ { @wfd[tid] = args->fd + 1; }
tracepoint:syscalls:sys_exit_write /@wfd[tid]/ { if (args->ret >= 0) { @writes[pid, comm, @wfd[tid] - 1] = count();
@wbytes[pid, comm, @wfd[tid] - 1] = sum(args->ret); } delete(@wfd[tid]); }
interval:s:1 { time("%H:%M:%S\n"); print(@reads); print(@writes); print(@rbytes); print(@wbytes);
clear(@reads); clear(@writes); clear(@rbytes); clear(@wbytes); }
END { print(@reads); print(@writes); print(@rbytes); print(@wbytes); clear(@reads); clear(@writes);
clear(@rbytes); clear(@wbytes); clear(@rfd); clear(@wfd); }'
BT_COUNT='grep -E "^@(reads\[[0-9]+, dd, 0\]|writes\[[0-9]+, dd, 1\]): " "$WORK/out" | awk "{ s += \$NF } END { print s + 0 }"'
scenario filetop 'awk -v a="$WORK/in" -v b="$WORK/in.out" "\$NF == a { s += \$3 } \$NF == b { s += \$4 } END { print s + 0 }" "$WORK/out"'

# --- vfsstat: the calls of each kind, each interval ----------------------------------------------
# bpftrace: the same system calls' entries counted by probe, printed and cleared every second.
TOOL_ARGS="-j"
sc=
for c in read pread64 readv preadv preadv2 write pwrite64 writev pwritev pwritev2 creat open openat openat2 fsync fdatasync unlink unlinkat; do
	[ -d /sys/kernel/tracing/events/syscalls/sys_enter_$c ] && sc="$sc${sc:+,}tracepoint:syscalls:sys_enter_$c"
done
BT="$sc /pid == PID/ { @[probe] = count(); }
interval:s:1 { time(\"%H:%M:%S\\n\"); print(@); clear(@); }
END { print(@); clear(@); }"
BT_COUNT='grep -E "^@\[tracepoint:syscalls:sys_enter_p?(read|write)v?[0-9]*\]: " "$WORK/out" | awk "{ s += \$NF } END { print s + 0 }"'
scenario vfsstat 'sed -n "s/.*\"reads\":\([0-9]*\),\"writes\":\([0-9]*\),.*/\1 \2/p" "$WORK/out" | awk "{ s += \$1 + \$2 } END { print s + 0 }"'

# --- fileslower 0: every read and write, with its latency -----------------------------------------
# bpftrace: the entry's time and descriptor per thread, a line at the exit.
TOOL_ARGS="0"
BT='tracepoint:syscalls:sys_enter_read,tracepoint:syscalls:sys_enter_write /pid == PID/ { @s[tid] = nsecs; @fd[tid] = args->fd; }
tracepoint:syscalls:sys_exit_read /@s[tid]/ { $us = (nsecs - @s[tid]) / 1000;
printf("%-16s %-7d R %7d %5d.%03d fd %d\n", comm, tid, args->ret, $us / 1000, $us % 1000, @fd[tid]); delete(@s[tid]); delete(@fd[tid]); }
tracepoint:syscalls:sys_exit_write /@s[tid]/ { $us = (nsecs - @s[tid]) / 1000;
printf("%-16s %-7d W %7d %5d.%03d fd %d\n", comm, tid, args->ret, $us / 1000, $us % 1000, @fd[tid]); delete(@s[tid]); delete(@fd[tid]); }
END { clear(@s); clear(@fd); }'
BT_COUNT='grep -cE "^dd .* (R .* fd 0|W .* fd 1)$" "$WORK/out"'
scenario fileslower 'grep -cE " (R .* $IN_RE|W .* $IN_RE[.]out)$" "$WORK/out"'

# --- tcptop: the bytes each connection sent and received, each interval --------------------------
# The workload: dd writing the file in 64-byte blocks to a TCP connection on the loopback (N
# sends; bash's /dev/tcp connects it), read to the end by a python3 receiver not traced.
# bpftrace: the same tracepoints' bytes summed per process and socket, printed and cleared every
# second (tcptop also follows inet_sock_set_state and tcp_rcv_space_adjust to name the ends).
if [ -d /sys/kernel/tracing/events/sock/sock_send_length ] && command -v python3 > /dev/null &&
	command -v bash > /dev/null && echo tcptop | grep -Eq "$ONLY"; then
	python3 -c 'import socket, sys
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(4)
with open(sys.argv[1] + ".tmp", "w") as f: print(l.getsockname()[1], file=f)
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    c = l.accept()[0]
    while c.recv(1 << 20): pass
    c.close()' "$WORK/port" &
	RECV=$!
	i=0
	while [ ! -s "$WORK/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	WORKLOAD=(bash -c 'exec > "/dev/tcp/127.0.0.1/$0" && exec dd if="$1" bs=64 count="$2" status=none' "$(cat "$WORK/port")" "$WORK/in" "$N")
	EVENTS=$N
	TOOL_ARGS="-j -r 0"
	BT='tracepoint:sock:sock_send_length /pid == PID && args->protocol == 6 && args->ret > 0/ { @tx[pid, comm, args->sk] = sum(args->ret); }
tracepoint:sock:sock_recv_length /pid == PID && args->protocol == 6 && args->ret > 0 && !(args->flags & 2)/ { @rx[pid, comm, args->sk] = sum(args->ret); }
interval:s:1 { time("%H:%M:%S\n"); print(@tx); print(@rx); clear(@tx); clear(@rx); }
END { print(@tx); print(@rx); clear(@tx); clear(@rx); }'
	BT_COUNT='grep -E "^@(tx|rx)\[" "$WORK/out" | awk "{ s += \$NF } END { print s / 64 }"'
	scenario tcptop 'sed -n "s/.*\"tx_bytes\":\([0-9]*\),\"rx_bytes\":\([0-9]*\).*/\1 \2/p" "$WORK/out" | awk "{ s += \$1 + \$2 } END { print s / 64 }"'
	kill "$RECV"
	wait "$RECV" 2> /dev/null
	RECV=
fi

# --- the report -----------------------------------------------------------------------------------
{
	echo "<!-- SPDX-License-Identifier: GPL-2.0-only -->"
	echo "# The file tools' and tcptop's cost beside bpftrace (bench/bench-files.sh)"
	echo
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -r), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "(a machine shared with other work: compare within a table, not across runs), $REPS runs"
	echo "each, medians. bpftrace $(bpftrace --version 2> /dev/null | awk '{ print $2 }'); the tools write"
	echo "text to a file. The workload: dd copying a file in 64-byte blocks, $N read() and $N"
	echo "write() calls ($((2 * N)) events a run), each tracer given its PID."
	echo
	echo "| tool | events a run | tracer | workload CPU s | added us/event | reported | tracer CPU s | peak RSS MB |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
	for tool in filetop vfsstat fileslower tcptop; do
		grep -q "^$tool " "$RESULTS" || continue
		ev=$(awk -v t=$tool '$1 == t { print $2 }' "$WORK/events")
		base=$(awk -v t=$tool '$1 == t && $2 == "none" { print $4 }' "$RESULTS" | median)
		for tracer in none ftt bpftrace; do
			cpu=$(awk -v t=$tool -v r=$tracer '$1 == t && $2 == r { print $4 }' "$RESULTS" | median)
			[ -n "$cpu" ] || continue
			rep=$(awk -v t=$tool -v r=$tracer '$1 == t && $2 == r { print $5 }' "$RESULTS" | median)
			tcpu=$(awk -v t=$tool -v r=$tracer '$1 == t && $2 == r { print $6 }' "$RESULTS" | median)
			rss=$(awk -v t=$tool -v r=$tracer '$1 == t && $2 == r { print $7 }' "$RESULTS" | median)
			added=-
			[ $tracer != none ] && added=$(echo "scale=2; ($cpu - $base) * 1000000 / $ev" | bc)
			name=$tracer
			[ $tracer = ftt ] && name=$tool
			[ $tracer = none ] && name="untraced"
			echo "| $tool | $ev | $name | $cpu | $added | $rep | $tcpu | $(echo "scale=1; ${rss:-0} / 1024" | bc) |"
		done
	done
	echo
	echo "reported: filetop, the reads of the first file's row and the writes of the second's"
	echo "summed over its intervals (bpftrace: its counts of descriptors 0 and 1, where dd has"
	echo "the two files: it does not name files); vfsstat, its reads and writes summed over its"
	echo "intervals (-j: counts rather than rates), all of dd's calls: the dynamic loader's reads"
	echo "of the libraries too, a few more than the storm's; fileslower with a threshold of 0,"
	echo "its lines for the two files (bpftrace: its lines for descriptors 0 and 1); tcptop, the"
	echo "bytes sent and received summed over its intervals (-j: the bytes exactly), over 64."
	echo "tcptop's workload: dd writing the file in 64-byte blocks to a TCP connection on the"
	echo "loopback ($N sends; bash's /dev/tcp connects it), read by a python3 receiver not"
	echo "traced; its bpftrace sums the bytes of the same tracepoints (sock:sock_send_length,"
	echo "sock_recv_length) per socket."
	echo
	echo "No kprobes in this kernel: bcc's tools time and count vfs_read and vfs_write by"
	echo "kprobes, the bpftrace programs here use the syscall tracepoints the tools use."
	echo "filetop and fileslower also read the paths of opens by uprobes on the C library"
	echo "(no cost during the storm: dd opens its two files before it). GNU time counts CPU in"
	echo "10 ms steps: $(printf "%.2f" "$(echo "scale=3; 10000 / (2 * $N)" | bc)") us/event for the file tools' storm,"
	echo "$(printf "%.2f" "$(echo "scale=3; 10000 / $N" | bc)") for tcptop's."
	echo
	echo "bpftrace's interval counts can fall short of the calls (filetop's and tcptop's rows): its"
	echo "maps are printed, then cleared, in two steps, and what is counted between the two is in"
	echo "neither (so we read it; a run crossing fewer second boundaries loses less). Its"
	echo "fileslower program prints a line per call through a perf buffer, which can drop lines"
	echo "when bpftrace reads it late: an earlier run reported 193,962 of 200,000."
} > "$REPORT"
cat "$REPORT"
