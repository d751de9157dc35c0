#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# What tracing TCP costs a connection storm, for the TCP tools and bpftrace programs on the
# same tracepoints (bpftrace's own tcpconnect.bt, tcpaccept.bt, tcplife.bt and tcpretrans.bt
# need kprobes, and its tcpdrop.bt kernel headers: none of them runs on a kernel without
# kprobes or headers, as this machine's 6.18). Writes bench/NET.md. Needs root, `make all
# build/tests/tcp_target`, bpftrace, GNU time and taskset (`make bench-deps`).
#
# The workloads (tests/live/tcp_target.c), pinned to one CPU, the tracer to another:
#   storm      N loopback connections made, accepted and closed (by a reset: no TIME_WAIT)
#   refusals   N connects to a port where nothing listens (each a reset and a drop)
# Per tracer, REPS runs: added us per connection ((traced - untraced) / N), the rows it
# printed for the workload's port against those expected (delivered), its CPU seconds and
# peak RSS (GNU time).
#
# Environment: BENCH_NET_N (20000), BENCH_REPS (3), BENCH_CPU (0: the workload; the tracer
# gets the next CPU), BENCH_NET_REPORT (bench/NET.md), BENCH_ONLY (a regex of tracer names),
# BENCH_NET_RESULTS and BENCH_NET_REPORT_ONLY (below).
set -u
set -m # each tracer in its own process group
cd "$(dirname "$0")/.."
B=${B:-build}
N=${BENCH_NET_N:-20000}
REPS=${BENCH_REPS:-3}
WCPU=${BENCH_CPU:-0}
TCPU=$(((WCPU + 1) % $(nproc)))
REPORT=${BENCH_NET_REPORT:-bench/NET.md}
ONLY=${BENCH_ONLY:-.}
TT=$B/tests/tcp_target
WORK=$(mktemp -d /tmp/ftt-bench-net.XXXXXX)
PORT=$((21000 + $$ % 1000)) # below the ephemeral ports: a connect to a closed one may meet itself
GO=$WORK/go

die() { echo "bench-net: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root"
for t in tcpconnect tcpaccept tcplife tcpstates tcpdrop tests/tcp_target; do
	[ -x "$B/$t" ] || die "$B/$t missing: make all $B/tests/tcp_target"
done
for t in bpftrace /usr/bin/time taskset; do
	command -v $t > /dev/null || die "$t not found: make bench-deps"
done
[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs (one for the workload, one for the tracer)"
touch "$GO"
CUR=
cleanup() {
	[ -n "$CUR" ] && { kill -INT -- -$CUR 2> /dev/null; wait $CUR 2> /dev/null; }
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE

# workload KIND: its elapsed seconds (the program's own clock) on stdout.
workload() {
	local p=$PORT
	[ "$1" = refusals ] && p=$((PORT + 1))
	taskset -c $WCPU "$TT" "$GO" "$1" $p $N | awk '{print $3}'
}

# The NO_SOCKET drop reason's number on this kernel (its kfree_skb table).
T=/sys/kernel/tracing
[ -e $T/events ] || T=/sys/kernel/debug/tracing
NO_SOCKET=$(grep -o '{ [0-9]*, "NO_SOCKET" }' $T/events/skb/kfree_skb/format | grep -o '[0-9]*')
P=$PORT R=$((PORT + 1))

# name#workload#expected rows per connection#ready regex#command (eval'd)#the pattern of its
# rows for the workload's port (grep -Ec)
TRACERS="
none#storm#0###
tcpconnect#storm#1#^Tracing#$B/tcpconnect -P $P#127.0.0.1 +$P\$
bt-connect#storm#1#Attaching#bpftrace -e 'tracepoint:sock:inet_sock_set_state /args->protocol == 6 && args->newstate == 2 && args->dport == $P/ { printf(\"%d %s %d\\n\", pid, comm, args->dport); }'# $P\$
tcpaccept#storm#1#^Tracing#$B/tcpaccept -P $P#127.0.0.1 +$P\$
bt-accept#storm#1#Attaching#bpftrace -e 'tracepoint:sock:inet_sock_set_state /args->protocol == 6 && args->oldstate == 3 && args->newstate == 1 && args->sport == $P/ { printf(\"%d %s %d %d\\n\", pid, comm, args->dport, args->sport); }'# $P\$
tcplife#storm#2#^Tracing#$B/tcplife#127.0.0.1 +$P 
bt-life#storm#2#Attaching#bpftrace -e 'tracepoint:sock:inet_sock_set_state /args->protocol == 6/ { \$sk = args->skaddr; if (args->newstate < 4 && @birth[\$sk] == 0) { @birth[\$sk] = nsecs; @pid[\$sk] = pid; @comm[\$sk] = comm; } if (args->newstate == 7 && @birth[\$sk] != 0) { printf(\"%d %s %d %d %d\\n\", @pid[\$sk], @comm[\$sk], args->sport, args->dport, (nsecs - @birth[\$sk]) / 1000000); delete(@birth[\$sk]); delete(@pid[\$sk]); delete(@comm[\$sk]); } } END { clear(@birth); clear(@pid); clear(@comm); }'# $P 
tcpstates#storm#0#^Tracing#$B/tcpstates -L $P#127.0.0.1 +$P 
bt-states#storm#0#Attaching#bpftrace -e 'tracepoint:sock:inet_sock_set_state /args->protocol == 6 && args->sport == $P/ { printf(\"%p %d %s %d %d %d\\n\", args->skaddr, pid, comm, args->sport, args->oldstate, args->newstate); }'# $P 
none#refusals#0###
tcpdrop#refusals#1#^Tracing#$B/tcpdrop#127.0.0.1 +$R 
bt-drop#refusals#1#Attaching#bpftrace -e 'tracepoint:skb:kfree_skb /args->reason == $NO_SOCKET && (args->protocol == 2048 || args->protocol == 34525)/ { printf(\"%d %s %d %s\\n\", pid, comm, args->reason, ksym(args->location)); }'# $NO_SOCKET 
"

# BENCH_NET_RESULTS=FILE keeps the runs' numbers there; with BENCH_NET_REPORT_ONLY=1 the
# report is written again from that file, without running anything (with the BENCH_NET_N
# and BENCH_REPS it ran with).
RESULTS=${BENCH_NET_RESULTS:-$WORK/results}
[ "${BENCH_NET_REPORT_ONLY:-}" = 1 ] || : > "$RESULTS"
declare -A BASE

run() { # name workload expect ready cmd pattern rep
	local name=$1 wl=$2 expect=$3 ready=$4 cmd=$5 pat=$6 rep=$7 el
	if [ "$name" = none ]; then
		el=$(workload "$wl")
		echo "$wl none $rep $el - - -" >> "$RESULTS"
		return
	fi
	rm -f "$WORK/out" "$WORK/err" "$WORK/time"
	eval "taskset -c $TCPU /usr/bin/time -f '%U %S %M' -o '$WORK/time' $cmd" > "$WORK/out" 2> "$WORK/err" &
	CUR=$!
	local i=0
	while ! grep -Eq "$ready" "$WORK/out" "$WORK/err" 2> /dev/null; do
		sleep 0.1
		i=$((i + 1))
		if [ $i -gt 300 ] || ! kill -0 $CUR 2> /dev/null; then
			echo "bench-net: $name did not start: $(head -2 "$WORK/err")" >&2
			kill -INT -- -$CUR 2> /dev/null; wait $CUR; CUR=
			return
		fi
	done
	[ "$ready" = Attaching ] && sleep 1 # bpftrace prints it before it attaches
	el=$(workload "$wl")
	sleep 1 # the last events read
	kill -INT -- -$CUR 2> /dev/null
	wait $CUR 2> /dev/null
	CUR=
	local rows cpu rss
	case $name in
	bt-drop) rows=$(grep -c " $NO_SOCKET " "$WORK/out") ;;
	tcpdrop) rows=$(grep -c "NO_SOCKET" "$WORK/out") ;;
	*) rows=$(grep -Ec -- "$pat" "$WORK/out") ;;
	esac
	read -r u s rss < <(tail -1 "$WORK/time")
	cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
	echo "$wl $name $rep $el $rows $cpu $rss" >> "$RESULTS"
}

RUNS=$REPS
[ "${BENCH_NET_REPORT_ONLY:-}" = 1 ] && RUNS=0 # (give the BENCH_NET_N and REPS it ran with)
for rep in $(seq 1 "$RUNS"); do
	while IFS='#' read -r name wl expect ready cmd pat; do
		[ -n "$name" ] || continue
		[ "$name" = none ] || echo "$name" | grep -Eq "$ONLY" || continue
		echo "bench-net: $wl / $name, run $rep" >&2
		run "$name" "$wl" "$expect" "$ready" "$cmd" "$pat" "$rep"
	done <<< "$TRACERS"
done

{
	echo "<!-- SPDX-License-Identifier: GPL-2.0-only (written by bench/bench-net.sh) -->"
	echo "# The TCP tools on a connection storm"
	echo
	echo "$(date -u +%Y-%m-%d), $(uname -r), $(nproc) CPUs; bench/bench-net.sh, N=$N connections per run, $REPS runs"
	echo "each (the middle run; of two, the faster; added cost over the runs min-max). Noisy: other work shared the machine. The workload on CPU $WCPU, the tracer on CPU $TCPU; output to a file."
	echo "bt-* are bpftrace programs on the same tracepoints (its tcp*.bt need kprobes or kernel"
	echo "headers, which this kernel lacks). 'storm': connect, accept, close by reset; 'refusals':"
	echo "connects to a closed port (a reset and a NO_SOCKET drop each)."
	echo
	echo "| workload | tracer | conns/s | added us/conn | rows / expected | tracer CPU s | peak RSS MB |"
	echo "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
	while IFS='#' read -r name wl expect ready cmd pat; do
		[ -n "$name" ] || continue
		grep -q "^$wl $name " "$RESULTS" || continue
		base=$(awk -v w="$wl" '$1 == w && $2 == "none" {print $4}' "$RESULTS" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
		awk -v w="$wl" -v n="$name" -v N="$N" -v base="$base" -v ex="$expect" '
			$1 == w && $2 == n { el[++k] = $4; rows[k] = $5; cpu[k] = $6; rss[k] = $7 }
			function med(a, k,   i, j, t) { for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }; return a[int((k + 1) / 2)] }
			END {
				if (!k) exit
				for (i = 1; i <= k; i++) { add[i] = (el[i] - base) / N * 1e6; r[i] = rows[i] }
				lo = add[1]; hi = add[1]; for (i = 1; i <= k; i++) { if (add[i] < lo) lo = add[i]; if (add[i] > hi) hi = add[i] }
				m = med(el, k)
				if (n == "none") { printf "| %s | (untraced) | %.0f | - | - | - | - |\n", w, N / m; exit }
				e = ex * N
				printf "| %s | %s | %.0f | %.1f (%.1f-%.1f) | %s |  %s | %.0f |\n", w, n, N / m, (m - base) / N * 1e6, lo, hi,
					e ? sprintf("%d / %d", med(r, k), e) : sprintf("%d", med(r, k)), med(cpu, k), med(rss, k) / 1024
			}' "$RESULTS"
	done <<< "$TRACERS"
	echo
	echo "tcpstates and bt-states print every change of the listening port's sockets (no fixed"
	echo "count: a reset close has fewer); tcplife and bt-life both sides of each connection."
} > "$REPORT"
cat "$REPORT"
