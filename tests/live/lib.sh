# SPDX-License-Identifier: GPL-2.0-only
# Live-test helpers: POSIX sh, so the same tests run on this machine and in busybox guests.
# A test calls ok / notok / skip; summary prints "N passed, N failed, N skipped".
# BIN: where the tools are (default build/). Needs root and tracefs.

BIN=${BIN:-build}
PASS=0 FAIL=0 SKIP=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ftt-live.XXXXXX")

ok() { PASS=$((PASS + 1)); echo "ok - $1"; }
notok() {
	FAIL=$((FAIL + 1)); echo "not ok - $1"
	[ "${2:-}" = "$TMP/shown" ] && show_output
	[ -n "${2:-}" ] && [ -r "$2" ] && sed 's/^/#   /' "$2" | head -25
	return 0
}
skip() { SKIP=$((SKIP + 1)); echo "skip - $1"; }
# The last probe of a bpftrace program whose "ready" a test waits for: bpftrace runs BEGIN
# before it attaches the other probes (the first sched_switch 0.3 ms after BEGIN's, the first
# sched_waking 0.5 ms, with 0.17 on 6.18 under a pipe's load), so a "ready" printed there
# came before them, and a workload started on it could begin unseen; an interval probe
# written last fires after they are attached (8 to 10 ms later). It leaves "@ready: 1"
# among the maps printed at the end.
BT_READY='interval:ms:10 /@ready == 0/ { @ready = 1; printf("ready\n"); }'
# check NAME CONDITION-COMMAND...; on failure shows the last tool's output ($TMP/out, err)
# and returns 1 (so that '|| more_diagnostics' runs).
check() {
	name=$1; shift
	if "$@"; then ok "$name"; else notok "$name" "$TMP/shown"; return 1; fi
}
# What a failed check shows: the tool's stdout and stderr, if any.
# (SHOW=NAME: those of a tool run_bg started, $TMP/NAME.out and .err; check_run sets it.)
show_output() {
	_s=${SHOW:+$SHOW.}
	{ echo "stdout:"; head -15 "$TMP/${_s}out"; echo "stderr:"; head -5 "$TMP/${_s}err"; } > "$TMP/shown" 2>/dev/null
}
# check_run NAME DESCRIPTION TEST...: check, showing on failure what the tool run_bg started
# as NAME printed.
check_run() {
	SHOW=$1
	shift
	check "$@"
	_r=$?
	SHOW=
	return $_r
}
# The system's python3, not a version manager's shim found first in PATH (pyenv's took 0.65
# s a start here, against 0.18: test_prom starts it some forty times).
PYTHON3=python3
[ -x /usr/bin/python3 ] && PYTHON3=/usr/bin/python3
summary() {
	rm -rf "$TMP"
	echo "$PASS passed, $FAIL failed, $SKIP skipped"
	[ "$FAIL" -eq 0 ]
}
# need_programs PATH...: the suite's test programs (make check builds them); a missing one
# ends the suite with a failure.
need_programs() {
	for p; do
		[ -x "$p" ] || { notok "test program $p missing (make check builds it)"; summary; exit 1; }
	done
}
# need_program VAR NAME [GIVEN]: VAR set to GIVEN, else to test program NAME as make check
# builds it ($BIN/tests/NAME), else as the guests have it (beside the tools); a missing one
# ends the suite with a failure.
need_program() {
	_p=${3:-$BIN/tests/$2}
	[ -x "$_p" ] || _p=$BIN/$2
	need_programs "$_p"
	eval "$1=\$_p"
}
# require_syscalls TOOL: where the kernel has no syscall tracepoints the suite ends, a skip
# naming them.
require_syscalls() {
	[ -d "$T/events/syscalls/sys_enter_read" ] && return 0
	skip "$1: no syscall tracepoints (CONFIG_FTRACE_SYSCALLS, Linux 2.6.33)"
	summary
	exit 0
}

# Skip everything, with the reason, when the machine cannot run live tests.
require_live() {
	if [ "$(id -u)" != 0 ]; then
		skip "all live tests: not root"; summary; exit 0
	fi
	for T in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -e "$T/events" ] && break
	done
	if [ ! -e "$T/events" ]; then
		# The tools mount tracefs themselves; the test needs it to compare state.
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
		T=/sys/kernel/tracing
	fi
	if [ ! -e "$T/events" ]; then
		skip "all live tests: no tracefs (CONFIG_TRACING)"; summary; exit 0
	fi
}

# What the runs of this suite could have made or changed in tracefs, as text: only that, so
# that the suites pass beside other tracers (another run of these tools, bpftrace, a
# trace-cmd session). Instances, probes and synthetic events of the tools' own form
# (ftrace-tools-<tool>[.<role>]-<pid>_<start>_<hex4>, ftt_<pid>_...) whose process is gone or
# is one of this suite's; someone else's are not ours to judge. The top-level settings only in
# suites whose tools may take the top level (TOPLEVEL_STATE=1: funcgraph, funccount).
tracefs_state() {
	ls "$T/instances" | while read -r n; do
		case $n in ftrace-tools-*) ours_name "${n##*-}" && echo "$n" ;; esac
	done | not_before
	for f in dynamic_events uprobe_events kprobe_events synthetic_events; do
		[ -r "$T/$f" ] || continue
		echo "== $f"
		grep -o 'ftt_[0-9]*_[0-9]*_[0-9a-f]*[^ ]*' "$T/$f" | while read -r g; do
			id=${g#ftt_}
			ours_name "$id" && echo "$g"
		done | not_before
	done
	[ "${TOPLEVEL_STATE:-}" = 1 ] || return 0
	for f in set_event current_tracer tracing_on buffer_size_kb trace_clock buffer_percent \
		set_event_pid tracing_cpumask trace_options \
		set_graph_function set_graph_notrace set_ftrace_pid set_ftrace_notrace_pid \
		max_graph_depth tracing_thresh set_ftrace_filter \
		function_profile_enabled; do
		[ -r "$T/$f" ] && { echo "== $f"; cat "$T/$f"; }
	done
	# The lock of perf-tools, which funcgraph takes while it owns the top level.
	ls -a /var/tmp 2>/dev/null | grep -x .ftrace-lock
}

# ours_name PID_START_HEX...: is the run of this id gone (what it left is a leftover) or a
# process of this suite (a descendant of its shell)?
ours_name() {
	p=${1%%_*} st=${1#*_}
	st=${st%%_*}
	case $p in ''|*[!0-9]*) return 1 ;; esac
	[ -e "/proc/$p" ] || return 0
	# Alive with another start time: another process (PID reuse, or the run was in another
	# PID namespace): what the name's run left.
	[ "$(sed 's/.*) //' "/proc/$p/stat" 2> /dev/null | cut -d' ' -f20)" = "$st" ] || return 0
	while [ -n "$p" ] && [ "$p" -gt 1 ]; do
		[ "$p" = $$ ] && return 0
		p=$(sed 's/.*) [A-Za-z] \([0-9]*\).*/\1/' "/proc/$p/stat" 2> /dev/null)
	done
	return 1
}

# Leftovers that were there before this suite ran anything (a run of someone else's killed
# earlier) are not this suite's: save_state notes them, and they are left out after.
not_before() { if [ -s "$TMP/foreign" ]; then grep -vxF -f "$TMP/foreign"; else cat; fi; }

# Is tracefs as it was when save_state ran?
save_state() {
	: > "$TMP/foreign"
	{ ls "$T/instances" | grep '^ftrace-tools-'
	  cat "$T/dynamic_events" "$T/uprobe_events" "$T/kprobe_events" "$T/synthetic_events" 2> /dev/null |
		grep -o 'ftt_[0-9]*_[0-9]*_[0-9a-f]*[^ ]*'; } > "$TMP/foreign.new" 2> /dev/null
	mv "$TMP/foreign.new" "$TMP/foreign"
	tracefs_state > "$TMP/state.before" 2>&1
}
same_state() {
	tracefs_state > "$TMP/state.after" 2>&1
	if cmp -s "$TMP/state.before" "$TMP/state.after"; then return 0; fi
	diff "$TMP/state.before" "$TMP/state.after" | head -10 | sed 's/^/#   /'
	return 1
}

# Wait (up to 10 s) until the tool with this PID has its instance; 0 when it has.
wait_instance() {
	i=0
	while [ $i -lt 100 ]; do
		ls "$T/instances" | grep -q -- "-$1_" && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# Wait (up to 10 s, or $3 tenths of a second) until the tool with PID $1 has printed its
# banner to file $2: its events are enabled only then. Remove file $2 before starting the
# tool: a background job truncates its output files only once it runs, so a banner left from
# the last run would be taken for this one's (seen in the guests: every event missed).
wait_ready() {
	i=0
	while [ $i -lt "${3:-100}" ]; do
		grep -Eq '^(Tracing|Counting)' "$2" 2>/dev/null && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# ends_within PID SECS: whether PID (a child of this shell) ends within SECS seconds, waited
# for without killing it (a zombie has ended), so that where_stuck can look at one that did not.
ends_within() {
	i=0
	while grep -q '^State:[^Z]*$' /proc/$1/status 2> /dev/null && [ $i -lt $(($2 * 10)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
	! grep -q '^State:[^Z]*$' /proc/$1/status 2> /dev/null
}

# where_stuck PID: as "# " lines, where a process that should have ended is: each thread's
# state, wait channel and kernel stack, its CPU time, and a second of its stacks sampled by
# our profile (how a run spinning after Ctrl-C was found: a fault without end, in 4.19).
where_stuck() {
	for t in /proc/$1/task/*; do
		echo "# $1/${t##*/}: $(grep '^State' "$t/status" 2> /dev/null) wchan $(cat "$t/wchan" 2> /dev/null)"
		sed "s/^/#   /" "$t/stack" 2> /dev/null | head -12
	done
	echo "# $1 user and system ticks: $(cut -d' ' -f14,15 /proc/$1/stat 2> /dev/null)"
	"$BIN/profile" -p $1 -F 999 1 2>&1 | sed 's/^/#   /' | head -40
}

# Wait up to $2 seconds for background PID $1 to end; its exit status in $RC. 0 when it
# ended by itself; 1 when the watchdog had to kill it. (kill -0 cannot tell: a zombie
# answers it until the shell reaps it.)
wait_exit() {
	# (its sleep outlives the kill below: with the suite's output it would hold make check's
	# pipe open, and make check waited up to a minute after each suite for it)
	( sleep "$2"; kill -9 "$1" 2>/dev/null && touch "$TMP/watchdog.$1" ) > /dev/null 2>&1 &
	w=$!
	wait "$1"
	RC=$?
	kill $w 2>/dev/null
	wait $w 2>/dev/null
	if [ -e "$TMP/watchdog.$1" ]; then
		rm -f "$TMP/watchdog.$1"
		return 1
	fi
	return 0
}

# start_bg CMD...: a tool in the background (stdout in $TMP/out, stderr in $TMP/err, its PID
# in $BGPID), ready to trace; 1 (and a failed check) when it does not start. The files are
# removed first: the background job truncates them only once it runs, and the wait must not
# see the last run's banner.
start_bg() {
	rm -f "$TMP/out" "$TMP/err"
	"$@" > "$TMP/out" 2> "$TMP/err" &
	BGPID=$!
	wait_ready $BGPID "$TMP/err" || { notok "$* starts" "$TMP/err"; return 1; }
}
# stop_bg: Ctrl-C to it after half a second (its last events read), its exit status in $RC.
stop_bg() {
	sleep 0.5
	kill -INT $BGPID 2> /dev/null # (a -p run ends with its target)
	wait_exit $BGPID 10
}

# Wait up to $3 seconds until file $1 has a line matching the extended regex $2.
wait_line() {
	i=0
	while [ $i -lt $(($3 * 10)) ]; do
		grep -Eq "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# Direct 4 KiB writes: write_direct FILE-OR-DEV COUNT [SEEK]
write_direct() {
	dd if=/dev/zero of="$1" bs=4096 count="$2" seek="${3:-0}" oflag=direct conv=notrunc \
		2>/dev/null
}

# send_stop SIG NAME: stop $TPID with SIG. Where the tests run with SIGHUP ignored (under
# nohup) the tools keep it ignored, as nohup asks: then check that SIGHUP left the tool
# running, and stop it with SIGINT instead.
send_stop() {
	ign=$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/$$/status 2> /dev/null)
	if [ "$1" = HUP ] && [ -n "$ign" ] && [ $((0x$ign & 1)) -ne 0 ]; then
		kill -HUP $TPID
		sleep 0.5
		check "$2: SIGHUP ignored here (nohup), and so by the tool: still running" kill -0 $TPID
		kill -INT $TPID
	else
		kill -$1 $TPID
	fi
}

# stop_cases NAME TOOL ARGS...: the tool stopped by SIGINT, SIGTERM, SIGHUP, | head -1, and
# killed with SIGKILL then a new run; each time tracefs must end as it was (save_state).
# In the guests (LIVE_GUEST=1, guest-init.sh) SIGINT and SIGKILL only: the other ways end
# the run through the same code (sig.c), and what is kernel-specific, the removal of the
# instance and probes on that kernel and the next run's sweep, the two show; make check runs
# all five here.
stop_cases() {
	sname=$1; shift
	sigs="INT TERM HUP" lim=10
	# (under emulation a tool that restores the function tracer's settings waits for the
	# kernel to patch its code back, seconds when two guests share a core: 10 s was passed)
	[ -n "${LIVE_GUEST:-}" ] && sigs=INT lim=30
	for sig in $sigs; do
		rm -f "$TMP/out" "$TMP/err"
		"$@" > "$TMP/out" 2> "$TMP/err" &
		TPID=$!
		if ! wait_ready $TPID "$TMP/err"; then notok "$sname starts" "$TMP/err"; continue; fi
		send_stop $sig "$sname"
		if wait_exit $TPID $lim; then
			check "$sname stopped by SIG$sig: exit 0" [ "$RC" -eq 0 ]
			check "$sname stopped by SIG$sig: tracefs as before" same_state
		else
			notok "$sname stopped by SIG$sig within $lim s"
		fi
	done
	if [ -z "${LIVE_GUEST:-}" ]; then
		( ( "$@" 2> "$TMP/err"; echo $? > "$TMP/rc" ) | head -1 > "$TMP/out" ) &
		P=$!
		if wait_exit $P 20; then
			check "$sname | head -1: exit 0" [ "$(cat "$TMP/rc")" = 0 ]
			check "$sname | head -1: tracefs as before" same_state
		else
			notok "$sname | head -1: still running after 20 s"; pkill -f "$1"
		fi
	fi
	rm -f "$TMP/out" "$TMP/err"
	"$@" > "$TMP/out" 2> "$TMP/err" &
	TPID=$!
	wait_ready $TPID "$TMP/err"
	kill -9 $TPID; wait $TPID 2>/dev/null
	"$BIN/tpoint" -d 0.2 sched:sched_switch > /dev/null 2> "$TMP/err2"
	check "$sname killed with SIGKILL: the next run removes what it left" sh -c \
		"grep -q 'removed instance .*-${TPID}_' '$TMP/err2'"
	check "$sname killed with SIGKILL, then a new run: tracefs as before" same_state
}

# uprobe_strings_safe: whether this kernel's uprobe events can read a string of 4 KB less
# a few bytes without writing past their per-CPU page (upstream 373b9338, Linux 6.12: before
# it, a string whose length with the event's fixed fields is over 4096 bytes is copied whole
# into a one-page buffer; in the 4.18 and 4.19 guests the bytes beyond it made the tracer
# fault without end and hung the guest). Cases that feed such strings run only where true.
uprobe_strings_safe() {
	set -- $(uname -r | sed 's/[.-]/ /g')
	[ "$1" -gt 6 ] || { [ "$1" -eq 6 ] && [ "$2" -ge 12 ]; }
}

# uprobe_strings_pieced: whether the tools read a uprobe's strings in 8-byte pieces here,
# their first 256 bytes (common/kernel/strpieces.h): before Linux 6.12, or with
# FTT_UPROBE_STRINGS=pieces.
uprobe_strings_pieced() {
	[ "${FTT_UPROBE_STRINGS:-}" = pieces ] || ! uprobe_strings_safe
}

# ucheck DESC CMD...: a check of -U. RHEL 8.1's 4.18 records no user stack for the events of
# an instance (its own trace at the top level has them): there the tool must say so.
ucheck() {
	case $(uname -r) in
	4.18.0-*.el8*)
		check "$1 [4.18.0-el8: none recorded, the tool says so]" \
			grep -Eq "none of the [0-9]+ [a-z]+ shown came with a user stack" "$TMP/err" ;;
	*) check "$@" ;;
	esac
}

# stall_case NAME WORK TOOL ARGS...: the tool writes to a pipe nobody reads; the shell
# command WORK makes events until the tool blocks in write(2) (/proc/PID/syscall says so),
# then two Ctrl-C: the run must end at once, say so, and leave tracefs as it was (what the
# emergency steps of sig.c remove).
stall_case() {
	sname=$1 work=$2
	shift 2
	mkfifo "$TMP/fifo"
	sleep 60 <> "$TMP/fifo" & # holds the pipe open without reading it
	HOLD=$!
	rm -f "$TMP/out" "$TMP/err" # the wait below must not see the last run's banner
	"$@" > "$TMP/fifo" 2> "$TMP/err" &
	TPID=$!
	wait_ready $TPID "$TMP/err"
	case $(uname -m) in x86_64) WRITE=1 ;; *) WRITE=64 ;; esac
	i=0
	while [ $i -lt 20 ] && ! stall_blocked; do
		eval "$work"
		sleep 0.2
		i=$((i + 1))
	done
	if stall_blocked; then
		kill -INT $TPID
		sleep 0.5
		kill -INT $TPID
		if wait_exit $TPID 5; then
			check "$sname: a second Ctrl-C on a stalled output: the run ends at once and says so" \
				grep -q 'stopped at once' "$TMP/err" || { echo "# exit $RC"; sed 's/^/# /' "$TMP/err"; }
			check "$sname: a second Ctrl-C on a stalled output: tracefs as before" same_state
		else
			notok "$sname: a second Ctrl-C on a stalled output: still running after 5 s"
		fi
	else
		notok "$sname: a second Ctrl-C on a stalled output: the tool never blocked on the pipe ($(cat /proc/$TPID/syscall 2> /dev/null))"
		kill -INT $TPID
		wait_exit $TPID 10
	fi
	kill $HOLD 2> /dev/null
	wait $HOLD 2> /dev/null
	rm -f "$TMP/fifo"
}
stall_blocked() { read -r nr rest < "/proc/$TPID/syscall" 2> /dev/null && [ "$nr" = $WRITE ]; }

# The strict JSON-lines checker (tests/live/jsoncheck.c): jsoncheck FILE [KEY...].
JSONCHECK=${JSONCHECK:-$BIN/tests/jsoncheck}

# The test program of the probe tests (tests/live/uprobe_target.c): waits for a start file,
# makes known calls and opens, prints "sum len fd bad-result".
UT=${UPROBE_TARGET:-$BIN/tests/uprobe_target}
# Run the test program, waiting at its start until the tracer is ready; its PID in $UTPID.
# spawn_target [N]: with N, it makes its pair of opens N times.
spawn_target() {
	rm -f "$TMP/go"
	"$UT" "$TMP/go" ${1:-} > "$TMP/target.out" &
	UTPID=$!
}
release_target() { touch "$TMP/go"; wait $UTPID; }
# When a -p case fails: was the waiting program still there? (guests: see tests/vm)
target_state() { echo "# target $UTPID: $(cat /proc/$UTPID/status 2>/dev/null | grep State || echo gone), output: $(cat "$TMP/target.out")"; }

# After starting a tool ($TPID) on the waiting test program: wait until the tool is ready,
# then release the program. When the tool is gone before that (the -p cases that fail now
# and then in the 5.10/6.1 guests), say what the program was doing at that moment.
ready_release() {
	if wait_ready $TPID "$TMP/err"; then
		release_target
		return 0
	fi
	echo "# tool gone before the release: $(target_state | cut -c3-); go file $([ -e "$TMP/go" ] && echo present || echo absent)"
	release_target
	return 1
}

# trace_target [-p] TOOL ARGS...: TOOL traces one run of the test program (with -p: TOOL
# -p <its PID> ARGS); output in $TMP/out and err, the program's in $TMP/target.out.
trace_target() {
	pid_opt=
	[ "$1" = -p ] && { pid_opt=1; shift; }
	spawn_target
	rm -f "$TMP/out" "$TMP/err"
	rm -f "$TMP/out" "$TMP/err" # the wait below must not see the last run's banner
	if [ -n "$pid_opt" ]; then
		tool=$1; shift
		"$tool" -p $UTPID "$@" > "$TMP/out" 2> "$TMP/err" &
	else
		"$@" > "$TMP/out" 2> "$TMP/err" &
	fi
	TPID=$!
	ready_release || { wait_exit $TPID 10; return 1; }
	sleep 0.5
	kill -INT $TPID
	wait_exit $TPID 10
}
