#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of --trace-json (iosnoop, biotop, runqslower, drsnoop, tcplife, offcputime,
# fileslower, vfsstat, cachestat, funcslower, funcgraph): the tools run on known work (direct
# writes from two dd at once; two busy children pinned to one CPU; cat reading a file in a
# small memory cgroup; three TCP connections; this shell waiting for stop_all's sleep 0.3;
# dd's 16 synchronous writes, its 20 reads and writes; the test program's naps and getppid
# calls) with -j and --trace-json together, and tracejsoncheck.py checks the file: the Trace
# Event format, every span well formed, the spans of a track nested or disjoint, as many
# spans as -j lines with their members and times (offcputime: their times summed by name as
# its stacks; biotop: their counts, bytes and times summed as its rows; funcgraph: the calls
# its graph closed; vfsstat, cachestat: a counter event per interval), the tracks named as
# -j printed. The file is whole after SIGTERM, SIGINT, -d, a count and --exec's end, only
# FILE.tmp after SIGKILL (removed by the next run); a path that cannot be written, a link,
# the option twice are usage errors that change nothing; tracefs as before. What a kernel
# lacks (kprobes for cachestat, function_graph for funcgraph, uprobes, syscall tracepoints)
# is a skip that names it.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
. tests/live/memcg.sh
require_live
save_state
. tests/live/sched_lib.sh

CHECKER=tests/live/tracejsoncheck.py
PY=
command -v python3 > /dev/null 2>&1 && PY=$PYTHON3
# tracejson_ok KIND FILE LINES: the checker's verdict (its line in $TMP/verdict).
tracejson_ok() {
	$PY "$CHECKER" "$1" "$2" "$3" > "$TMP/verdict" 2>&1
}
verdict() { cat "$TMP/verdict" 2> /dev/null; }
# traced KIND NAME TOOL ARGS...: TOOL -j --trace-json $TMP/NAME.json ARGS to its end (stdout,
# stderr in $TMP/NAME.out, .err); its exit status in $rc, the checker's verdict in $v.
traced() {
	_k=$1 _n=$2 _t=$3
	shift 3
	"$BIN/$_t" -j --trace-json "$TMP/$_n.json" "$@" > "$TMP/$_n.out" 2> "$TMP/$_n.err"
	rc=$?
	tracejson_ok "$_k" "$TMP/$_n.json" "$TMP/$_n.out"
	v=$?
}
# traced_ok NAME [TEST]: exit 0, NAME.json.tmp gone, the checker's verdict 0, and TEST.
traced_ok() {
	[ $rc -eq 0 ] && [ ! -e "$TMP/$1.json.tmp" ] && [ $v -eq 0 ] && { [ $# -lt 2 ] || sh -c "$2"; }
}

# --- usage errors: exit 2, one line, nothing made -------------------------------------------
mkdir "$TMP/u"
echo keep > "$TMP/u/target"
ln -s "$TMP/u/target" "$TMP/u/link.json"
ls -lA "$TMP/u" > "$TMP/u.before"
# The paths on one tool (the driver checks them for all), the option twice on each.
for case in "iosnoop --trace-json $TMP/u/none/x.json" "iosnoop --trace-json $TMP/u/link.json" \
	"iosnoop --trace-json $TMP/u/target/x.json" "iosnoop --trace-json $TMP/u/" \
	"iosnoop -o $TMP/u/out --trace-json $TMP/u/none/x.json"; do
	set -- $case
	tool=$1; shift
	"$BIN/$tool" "$@" 1 > "$TMP/out" 2> "$TMP/err"
	rc=$?
	ls -lA "$TMP/u" > "$TMP/u.after"
	check "$case: usage error, exit 2, one line, nothing made or changed" sh -c "
		[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] &&
		grep -q '^$tool: ' '$TMP/err' && cmp -s '$TMP/u.before' '$TMP/u.after' &&
		[ \"\$(cat '$TMP/u/target')\" = keep ]"
done
for tool in iosnoop runqslower drsnoop tcplife offcputime biotop fileslower funcslower funcgraph vfsstat cachestat; do
	"$BIN/$tool" --trace-json "$TMP/u/a.json" --trace-json "$TMP/u/b.json" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	ls -lA "$TMP/u" > "$TMP/u.after"
	check "$tool --trace-json A --trace-json B: usage error, exit 2, one line, nothing made" sh -c "
		[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] &&
		grep -q '^$tool: --trace-json given twice' '$TMP/err' && cmp -s '$TMP/u.before' '$TMP/u.after'"
done
check "usage errors: tracefs as before" same_state

if [ -z "$PY" ]; then
	skip "--trace-json files: the structure checks need python3 (not in this system)"
	summary
	exit
fi

# --- iosnoop: two dd writing at once, stopped by SIGTERM ------------------------------------
F=${LIVE_FILE_DIR:-/var/tmp}/ftt-tracejson.$$
J=$TMP/io.json BT=$TMP/bio.json
# biotop at the same time, a table at its end (SIGINT): its I/O on the disks' lanes too
run_bg bio "$BIN/biotop" -j -r 0 --trace-json "$BT" 60
if start_bg "$BIN/iosnoop" -j -s -t --trace-json "$J"; then
	write_direct "$F.1" 32 &
	ddpid=$!
	write_direct "$F.2" 32
	wait $ddpid
	rm -f "$F.1" "$F.2"
	sleep 0.3
	kill -TERM $BGPID
	wait_exit $BGPID 10
	dd=$(grep -c '"comm":"dd"' "$TMP/out")
	check "iosnoop --trace-json, SIGTERM: exit 0, FILE.tmp gone" sh -c "[ $RC -eq 0 ] && [ ! -e '$J.tmp' ]"
	tracejson_ok io "$J" "$TMP/out"
	v=$?
	check "iosnoop --trace-json: the Trace Event format, spans nested or disjoint per lane, as -j printed them ($(verdict); $dd of dd's, 64 written)" \
		sh -c "[ $v -eq 0 ] && [ $dd -ge 64 ]"
	check "iosnoop --trace-json: the number said on stderr is the file's" \
		grep -q "^iosnoop: wrote $(grep -c '"ph":"X"' "$J") spans to $J\$" "$TMP/err"
fi
stop_all
dd=$(grep '"comm":"dd"' "$TMP/bio.out" | sed 's/.*"count":\([0-9]*\).*/\1/' | awk '{n += $1} END {print n + 0}')
tracejson_ok bio "$BT" "$TMP/bio.out"
v=$?
check "biotop --trace-json: exit 0, FILE.tmp gone, the Trace Event format, each I/O on a lane of its disk, as many and as long as the rows counted ($(verdict); $dd of dd's, 64 written)" \
	sh -c "[ \"\$(cat '$TMP/bio.rc')\" = 0 ] && [ ! -e '$BT.tmp' ] && [ $v -eq 0 ] && [ $dd -ge 64 ]"
check "iosnoop, biotop --trace-json: tracefs as before" same_state

# SIGKILL: FILE as it was, FILE.tmp left; the next run removes it and writes FILE, at the
# end of its duration.
echo old > "$J"
if start_bg "$BIN/iosnoop" --trace-json "$J"; then
	kill -9 $BGPID
	wait $BGPID 2> /dev/null
	check "iosnoop --trace-json killed with SIGKILL: FILE as it was, FILE.tmp left" \
		sh -c "[ \"\$(cat '$J')\" = old ] && [ -e '$J.tmp' ]"
	# (and the duration's end, with nothing to write: no I/O is that slow)
	"$BIN/iosnoop" -j -s -t -m 100000 --trace-json "$J" 0.3 > "$TMP/out" 2> "$TMP/err"
	rc=$?
	tracejson_ok io "$J" "$TMP/out"
	v=$?
	check "the next run, to its duration's end, no I/O slower than 100 s: exit 0, FILE.tmp gone, FILE whole with no span ($(verdict))" \
		sh -c "[ $rc -eq 0 ] && [ ! -e '$J.tmp' ] && [ $v -eq 0 ] && grep -qx '0 spans, 0 tracks' '$TMP/verdict'"
	check "iosnoop killed, then a new run: tracefs as before" same_state
fi

# --- runqslower, drsnoop, tcplife and offcputime at once, stopped by SIGINT: two busy
# children on one CPU; cat reading a 16 MB file in no cache from a memory cgroup of 8 MB; the
# test program's three TCP connections, both sides; this shell's wait for stop_all's sleep
PIN=
[ "$(grep -c '^processor' /proc/cpuinfo)" -ge 2 ] && PIN="taskset -c 1"
R=$TMP/runq.json D=$TMP/dr.json L=$TMP/tcp.json O=$TMP/off.json
F=${LIVE_FILE_DIR:-/var/tmp}/ftt-tracejson-dr.$$
TT=${TCP_TARGET:-$BIN/tests/tcp_target}
need_program SYT sys_target "${SYS_TARGET:-}"
run_bg runq $PIN "$BIN/runqslower" -j -t --trace-json "$R" 0
# (offcputime: this shell's switches only, none lost to a full buffer)
run_bg off $PIN "$BIN/offcputime" -s -j -p $$ --trace-json "$O"
DR= TCP=
if [ ! -d "$T/events/vmscan/mm_vmscan_memcg_reclaim_begin" ]; then
	skip "drsnoop --trace-json: no vmscan:mm_vmscan_memcg_reclaim_begin (CONFIG_MEMCG)"
elif ! dd if=/dev/zero of="$F" bs=1M count=16 oflag=direct 2> /dev/null; then
	skip "drsnoop --trace-json: cannot write $F with O_DIRECT"
elif ! memcg_make "ftt-tj-$$" 8M; then
	skip "drsnoop --trace-json: $MEMCG_WHY"
else
	DR=1
	run_bg dr $PIN "$BIN/drsnoop" -j -e -t --trace-json "$D"
fi
if [ ! -d "$T/events/sock/inet_sock_set_state" ] && [ ! -d "$T/events/tcp/tcp_set_state" ]; then
	skip "tcplife --trace-json: no sock:inet_sock_set_state (Linux 4.16) or tcp:tcp_set_state (4.15)"
elif [ ! -x "$TT" ]; then
	notok "test program $TT missing (make check builds it)"
else
	TCP=1
	run_bg tcp $PIN "$BIN/tcplife" -j -t --trace-json "$L"
fi
work spin 2 300
set -- $(awk '{print $2}' "$TMP/t")
[ -n "$DR" ] && memcg_run cat "$F" > /dev/null
if [ -n "$TCP" ]; then
	P4=$((24000 + ($$ % 2000) * 2))
	rm -f "$TMP/go"
	"$TT" "$TMP/go" conn $P4 $((P4 + 1)) 1000 3000 50 > "$TMP/conn" &
	ttpid=$!
	touch "$TMP/go"
	wait $ttpid
fi
# (this shell on CPU 0 for stop_all's wait: this 6.18 host's ftrace records no switch out of
# CPU 1's idle task, and the wait would end unseen; offcputime says so, test_offcputime
# checks that it does)
[ -n "$PIN" ] && MASK=$(taskset -p $$ | sed 's/.*: //') && taskset -p 1 $$ > /dev/null
stop_all
[ -n "$PIN" ] && taskset -p "$MASK" $$ > /dev/null

kids=0
for tid in "$@"; do
	grep -q "\"ph\":\"X\",[^}]*\"tid\":$tid,\"args\"" "$R" 2> /dev/null && kids=$((kids + 1))
done
tracejson_ok runq "$R" "$TMP/runq.out"
v=$?
check_run runq "runqslower --trace-json: exit 0, FILE.tmp gone, the Trace Event format, one track per thread, as -j printed them ($(verdict)), both busy children's waits on their tracks ($kids)" \
	sh -c "[ \"\$(cat '$TMP/runq.rc')\" = 0 ] && [ ! -e '$R.tmp' ] && [ $v -eq 0 ] && [ $kids -eq 2 ]"
if [ -n "$DR" ]; then
	n=$(grep -c '"comm":"cat"' "$TMP/dr.out")
	tracejson_ok dr "$D" "$TMP/dr.out"
	v=$?
	check_run dr "drsnoop --trace-json: exit 0, FILE.tmp gone, the Trace Event format, one track per thread, as -j printed them ($(verdict)), cat's $n reclaims" \
		sh -c "[ \"\$(cat '$TMP/dr.rc')\" = 0 ] && [ ! -e '$D.tmp' ] && [ $v -eq 0 ] && [ $n -gt 0 ]"
	memcg_remove
fi
rm -f "$F"
if [ -n "$TCP" ]; then
	n=$(grep -cE "\"(lport|rport)\":($P4|$((P4 + 1)))," "$TMP/tcp.out")
	tracejson_ok tcp "$L" "$TMP/tcp.out"
	v=$?
	check_run tcp "tcplife --trace-json: exit 0, FILE.tmp gone, the Trace Event format, sessions on lanes of their process, as -j printed them ($(verdict)), the test program's $n sides of 3 connections" \
		sh -c "[ \"\$(cat '$TMP/tcp.rc')\" = 0 ] && [ ! -e '$L.tmp' ] && [ $v -eq 0 ] && [ $n -ge 6 ]"
fi
# offcputime: this shell waiting for stop_all's sleep 0.3 in do_wait, its first frame
# outside the scheduler
n=$(grep -c "\"ph\":\"X\",\"name\":\"do_wait\",[^}]*\"dur\":[2-9][0-9][0-9][0-9][0-9][0-9]\.[0-9]*,\"pid\":$$,\"tid\":$$," "$O" 2> /dev/null)
tracejson_ok off "$O" "$TMP/off.out"
v=$?
check_run off "offcputime --trace-json: exit 0, FILE.tmp gone, the Trace Event format, one track per thread, the times summed by comm and name as -j printed them ($(verdict)), this shell's wait of 0.2 s or more for sleep in do_wait ($n)" \
	sh -c "[ \"\$(cat '$TMP/off.rc')\" = 0 ] && [ ! -e '$O.tmp' ] && [ $v -eq 0 ] && [ $n -ge 1 ]"
check "runqslower, drsnoop, tcplife, offcputime --trace-json: tracefs as before" same_state

# --- fileslower: dd's 16 writes of 64 KiB with O_DSYNC to a file, traced from its start
# (--exec), every call (0 ms) ------------------------------------------------------------
if [ ! -d "$T/events/syscalls/sys_enter_read" ]; then
	skip "fileslower --trace-json: no syscall tracepoints (CONFIG_FTRACE_SYSCALLS, Linux 2.6.33)"
elif [ ! -e "$T/kprobe_events" ] && [ ! -e "$T/uprobe_events" ]; then
	skip "fileslower --trace-json: no kprobe or uprobe events to read paths (CONFIG_KPROBE_EVENTS, CONFIG_UPROBE_EVENTS)"
else
	F=${LIVE_FILE_DIR:-/var/tmp}/ftt-tracejson-fs.$$
	traced file file fileslower 0 --exec dd if=/dev/zero of="$F" bs=64k count=16 oflag=dsync
	rm -f "$F"
	n=$(grep '"ph":"X","name":"write",' "$TMP/file.json" 2> /dev/null | grep -F '"comm":"dd",' |
		grep -F '"bytes":65536,' | grep -cF "\"file\":\"$F\"")
	check "fileslower --trace-json --exec dd: exit 0, FILE.tmp gone, the Trace Event format, one track per thread, as -j printed them ($(verdict)), dd's $n writes of 64 KiB to its file (16)" \
		traced_ok file "[ $n -eq 16 ]"
	check "fileslower --trace-json: tracefs as before" same_state
fi

# --- vfsstat: dd's 20 reads and writes of 4 KiB (--exec), counters per interval ------------
if [ ! -d "$T/events/syscalls/sys_enter_read" ]; then
	skip "vfsstat --trace-json: no syscall tracepoints (CONFIG_FTRACE_SYSCALLS, Linux 2.6.33)"
else
	F=${LIVE_FILE_DIR:-/var/tmp}/ftt-tracejson-vfs.$$
	traced vfs vfs vfsstat 10 --exec dd if=/dev/zero of="$F" bs=4k count=20
	rm -f "$F"
	n=$(grep -c '"ph":"C","name":"vfsstat",[^}]*"args":{"reads":[2-9][0-9],"writes":[2-9][0-9],' "$TMP/vfs.json" 2> /dev/null)
	check "vfsstat --trace-json --exec dd: exit 0, FILE.tmp gone, the Trace Event format, a counter event per interval with -j's counts, zeros at the end ($(verdict)), dd's 20 reads and writes in one ($n)" \
		traced_ok vfs "[ $n -eq 1 ]"
	check "vfsstat --trace-json: tracefs as before" same_state
fi

# --- cachestat: two intervals of 0.2 s, counters ------------------------------------------
if [ ! -e "$T/kprobe_events" ]; then
	skip "cachestat --trace-json: no kprobe events to count page look-ups (CONFIG_KPROBE_EVENTS)"
else
	traced cache cache cachestat 0.2 2
	check "cachestat --trace-json 0.2 2: exit 0, FILE.tmp gone, the Trace Event format, a counter event per interval with -j's counts, zeros at the end ($(verdict))" \
		traced_ok cache "grep -qx '3 counters, 2 intervals' '$TMP/verdict'"
	check "cachestat --trace-json: tracefs as before" same_state
fi

# --- funcslower: the test program's naps of 1 and 30 ms in a function of its own (uprobes) --
if [ ! -e "$T/uprobe_events" ]; then
	skip "funcslower --trace-json: no uprobe events (CONFIG_UPROBE_EVENTS)"
else
	traced fslow func funcslower -a 2 "$SYT:ftt_nap" 0 --exec "$SYT" 0 0 1000 30000
	n=$(grep -c '"ph":"X","name":"ftt_nap",[^}]*"args":"0x3e8 0x3e8"}\|"ph":"X","name":"ftt_nap",[^}]*"args":"0x7530 0x7530"}' "$TMP/func.json" 2> /dev/null)
	check "funcslower --trace-json --exec: exit 0, FILE.tmp gone, the Trace Event format, one track per thread, as -j printed them ($(verdict)), both naps with their arguments ($n)" \
		traced_ok func "[ $n -eq 2 ]"
	check "funcslower --trace-json: tracefs as before" same_state
fi

# --- funcgraph: 40 getppid calls of the test program, each a span with its callees nested
# on its thread's track (the top level is funcgraph's while it runs: its settings judged) --
if ! grep -qw function_graph "$T/available_tracers" 2> /dev/null; then
	skip "funcgraph --trace-json: no function_graph tracer (CONFIG_FUNCTION_GRAPH_TRACER)"
else
	TOPLEVEL_STATE=1
	save_state
	F=sys_getppid
	for f in __x64_sys_getppid __do_sys_getppid sys_getppid __arm64_sys_getppid; do
		grep -qx "$f" "$T/available_filter_functions" && { F=$f; break; }
	done
	traced graph graph funcgraph "$F" --exec "$SYT" 40 0
	n=$(grep -c "\"ph\":\"X\",\"name\":\"$F\",[^}]*\"depth\":0," "$TMP/graph.json" 2> /dev/null)
	deeper=$(grep -c '"ph":"X",[^}]*"depth":[1-9]' "$TMP/graph.json" 2> /dev/null)
	check "funcgraph --trace-json --exec: exit 0, FILE.tmp gone, the Trace Event format, the calls nested per thread, as the graph -j printed them ($(verdict)), 40 getppid calls ($n) with $deeper callees" \
		traced_ok graph "[ $n -eq 40 ] && [ $deeper -gt 0 ]"
	check "funcgraph --trace-json: tracefs and the top level as before" same_state
fi

summary
