# SPDX-License-Identifier: GPL-2.0-only
# What the scheduler tools' live suites share (test_runqlat.sh, test_runqslower.sh,
# test_cpudist.sh, test_offcputime.sh), after lib.sh: the test program, what the kernel can
# pair itself, tools run side by side on one workload.

# The test program (tests/live/sched_target.c): children of known switches and naps.
need_program ST sched_target "${SCHED_TARGET:-}"

# Pairing in the kernel: hist triggers with synthetic events, used from Linux 6.1 (before it
# two runs' triggers on the same events hold each other: span.c); binning there too:
# numeric literals in hist expressions (5.16).
K_PAIRS= K_HIST=
kmaj=$(uname -r | cut -d. -f1) kmin=$(uname -r | cut -d. -f2)
if [ "$kmaj" -gt 6 ] || { [ "$kmaj" -eq 6 ] && [ "$kmin" -ge 1 ]; } &&
	[ -e "$T/synthetic_events" ] && grep -q 'hist:keys' "$T/README" 2> /dev/null; then
	K_PAIRS=1
	grep -q numeric_literal "$T/README" && K_HIST=1
fi

# Under qemu's TCG the old kernels take seconds to set up hist triggers, and a tool that
# names user frames seconds to end: the waits here are longer than lib.sh's (SLOW seconds).
SLOW=${SLOW:-60}

# run_bg NAME CMD...: a tool in the background, stdout in $TMP/NAME.out, stderr in
# $TMP/NAME.err; waits until it traces. Its PID is kept for stop_all.
RUNNING=
run_bg() {
	n=$1; shift
	rm -f "$TMP/$n.out" "$TMP/$n.err"
	"$@" > "$TMP/$n.out" 2> "$TMP/$n.err" &
	p=$!
	RUNNING="$RUNNING $n:$p"
	i=0
	while ! grep -Eq '^(Tracing|Counting)' "$TMP/$n.err" 2> /dev/null; do
		kill -0 $p 2> /dev/null && [ $i -lt $((SLOW * 10)) ] || { notok "$* starts" "$TMP/$n.err"; return 1; }
		sleep 0.1
		i=$((i + 1))
	done
}
# stop_all: Ctrl-C to every tool run_bg started; each one's exit status in $TMP/NAME.rc.
stop_all() {
	sleep 0.3
	for np in $RUNNING; do kill -INT "${np#*:}" 2> /dev/null; done
	for np in $RUNNING; do
		# (137: SIGKILL, lib.sh's watchdog may be ended before it says so)
		if wait_exit "${np#*:}" $SLOW && [ $RC != 137 ]; then echo $RC > "$TMP/${np%%:*}.rc"; else
			echo killed > "$TMP/${np%%:*}.rc"
			notok "${np%%:*}: still running $SLOW s after Ctrl-C, killed" "$TMP/${np%%:*}.err"
		fi
	done
	RUNNING=
}

# work MODE A B: the test program's children (spin N MS, or nap MS COUNT), started once the
# tools trace; "child PID NVCSW NIVCSW CPU_US" lines in $TMP/t.
work() {
	rm -f "$TMP/go"
	"$ST" "$TMP/go" "$@" > "$TMP/t" &
	w=$!
	touch "$TMP/go"
	wait $w
}

# The JSON object of a key ("pid":N) in FILE.
obj() { grep "\"$2\":$3," "$1"; }
# A number from an object, not from its histogram: num KEY < line
num() { sed -n -e 's/,"hist":.*//' -e "s/.*\"$1\":\\([0-9]*\\).*/\\1/p"; }

# The switches a tool said the kernel did not record (schedev.h's chain), from its stderr.
unrecorded() { sed -n 's/.*recorded no event for at least \([0-9]*\) switches.*/\1/p' "$1" | head -1 | grep . || echo 0; }
# counted_ok GOT WANT ERRFILE: GOT is WANT, or less by no more than the switches said not
# recorded.
counted_ok() {
	[ -n "$1" ] || return 1
	[ "$1" -eq "$2" ] && return 0
	[ "$1" -lt "$2" ] && [ $(($2 - $1)) -le "$(unrecorded "$3")" ]
}

# wake_start TOOL: the ping-pong of sched_target's wake mode (test_wakeuptime.sh,
# test_offwaketime.sh), N round trips (fewer under qemu's TCG, where each takes
# milliseconds), started waiting for $TMP/go: its PID in P, its output in $TMP/t; in a control
# group of its own where one can be made (v1's pids, else v2; its path in G, removed at the
# exit), for --cgroup. Without sched:sched_waking the suite ends here, a skip naming it.
wake_start() {
	N=2000
	[ -n "${LIVE_GUEST:-}" ] && N=500
	if [ ! -d "$T/events/sched/sched_waking" ]; then
		skip "$1: no sched:sched_waking in this kernel (Linux 4.3)"
		summary
		exit 0
	fi
	G=
	for d in /sys/fs/cgroup/pids /sys/fs/cgroup/unified /sys/fs/cgroup; do
		[ -e "$d/cgroup.procs" ] && mkdir "$d/ftt-live-$$" 2> /dev/null && G=$d/ftt-live-$$ && break
	done
	[ -n "$G" ] && trap 'rmdir "$G" 2> /dev/null' EXIT
	rm -f "$TMP/go"
	if [ -n "$G" ]; then
		sh -c "echo \$\$ > '$G/cgroup.procs' && exec '$ST' '$TMP/go' wake $N 0" > "$TMP/t" &
	else
		"$ST" "$TMP/go" wake $N 0 > "$TMP/t" &
	fi
	P=$!
}
