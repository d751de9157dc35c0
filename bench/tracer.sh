#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A tracer run beside a workload, for the bench scripts that compare ours with bpftrace's
# (bench-sys.sh, bench-files.sh): sourced after they set WORK (their folder), TCPU (the
# tracer's CPU) and BENCH_NAME (their name, in messages).

# A tracer on the tracer CPU under GNU time (its CPU seconds, peak RSS).
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
# start_tracer READY-REGEX CMD...: output in $WORK/out, err; its PID in $TP.
start_tracer() {
	local ready=$1 i=0
	shift
	: > "$WORK/out"
	: > "$WORK/err"
	(launch "$WORK/time" "$@" > "$WORK/out" 2> "$WORK/err") &
	TP=$!
	CUR_TP=$TP
	while ! grep -Eq "$ready" "$WORK/err" "$WORK/out" 2> /dev/null; do
		sleep 0.1
		i=$((i + 1))
		if [ $i -gt 300 ] || ! kill -0 $TP 2> /dev/null; then
			echo "$BENCH_NAME: $* did not start:" >&2
			head -3 "$WORK/err" >&2
			stop_tracer $TP
			return 1
		fi
	done
	sleep 0.5 # bpftrace says "Attaching" before its probes are on
}

