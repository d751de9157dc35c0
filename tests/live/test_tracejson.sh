#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of --trace-json (iosnoop, runqslower, drsnoop): the tools run on known work
# (direct writes from two dd at once; two busy children pinned to one CPU; cat reading a
# file in a small memory cgroup) with -j and --trace-json
# together, and tracejsoncheck.py checks the file: the Trace Event format, every span well
# formed, the spans of a track nested or disjoint, as many spans as -j lines with their
# members and times, the tracks named as -j printed. The file is whole after SIGTERM, SIGINT
# and -d, only FILE.tmp after SIGKILL (removed by the next run); a path that cannot be
# written, a link, the option twice are usage errors that change nothing; tracefs as before.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
. tests/live/memcg.sh
require_live
save_state
. tests/live/sched_lib.sh

CHECKER=tests/live/tracejsoncheck.py
PY=
command -v python3 > /dev/null 2>&1 && PY=python3
# tracejson_ok KIND FILE LINES: the checker's verdict (its line in $TMP/verdict).
tracejson_ok() {
	$PY "$CHECKER" "$1" "$2" "$3" > "$TMP/verdict" 2>&1
}
verdict() { cat "$TMP/verdict" 2> /dev/null; }

# --- usage errors: exit 2, one line, nothing made -------------------------------------------
mkdir "$TMP/u"
echo keep > "$TMP/u/target"
ln -s "$TMP/u/target" "$TMP/u/link.json"
ls -la "$TMP/u" > "$TMP/u.before"
for args in "--trace-json $TMP/u/none/x.json" "--trace-json $TMP/u/link.json" \
	"--trace-json $TMP/u/target/x.json" "--trace-json $TMP/u/" \
	"--trace-json $TMP/u/a.json --trace-json $TMP/u/b.json"; do
	for tool in iosnoop runqslower drsnoop; do
		"$BIN/$tool" $args 1 > "$TMP/out" 2> "$TMP/err"
		rc=$?
		ls -la "$TMP/u" > "$TMP/u.after"
		check "$tool $args: usage error, exit 2, one line, nothing made or changed" sh -c "
			[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] &&
			grep -q '^$tool: ' '$TMP/err' && cmp -s '$TMP/u.before' '$TMP/u.after' &&
			[ \"\$(cat '$TMP/u/target')\" = keep ]"
	done
done
check "usage errors: tracefs as before" same_state

if [ -z "$PY" ]; then
	skip "--trace-json files: the structure checks need python3 (not in this system)"
	summary
	exit
fi

# --- iosnoop: two dd writing at once, stopped by SIGTERM ------------------------------------
F=${LIVE_FILE_DIR:-/var/tmp}/ftt-tracejson.$$
J=$TMP/io.json
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
	check "iosnoop --trace-json: tracefs as before" same_state
fi

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

# --- runqslower: two busy children on one CPU, stopped by SIGINT ----------------------------
PIN=
[ "$(grep -c '^processor' /proc/cpuinfo)" -ge 2 ] && PIN="taskset -c 1"
R=$TMP/runq.json
run_bg runq $PIN "$BIN/runqslower" -j -t --trace-json "$R" 0
work spin 2 300
stop_all
set -- $(awk '{print $2}' "$TMP/t")
kids=0
for tid in "$@"; do
	grep -q "\"ph\":\"X\",[^}]*\"tid\":$tid,\"args\"" "$R" 2> /dev/null && kids=$((kids + 1))
done
check "runqslower --trace-json, SIGINT: exit 0, FILE.tmp gone" sh -c "[ \"\$(cat '$TMP/runq.rc')\" = 0 ] && [ ! -e '$R.tmp' ]"
tracejson_ok runq "$R" "$TMP/runq.out"
v=$?
check "runqslower --trace-json: the Trace Event format, one track per thread, as -j printed them ($(verdict)), both busy children's waits on their tracks ($kids)" \
	sh -c "[ $v -eq 0 ] && [ $kids -eq 2 ]"
check "runqslower --trace-json: tracefs as before" same_state

# --- drsnoop: cat reads a 16 MB file in no cache from a memory cgroup of 8 MB --------------
D=$TMP/dr.json
F=${LIVE_FILE_DIR:-/var/tmp}/ftt-tracejson-dr.$$
if [ ! -d "$T/events/vmscan/mm_vmscan_memcg_reclaim_begin" ]; then
	skip "drsnoop --trace-json: no vmscan:mm_vmscan_memcg_reclaim_begin (CONFIG_MEMCG)"
elif ! dd if=/dev/zero of="$F" bs=1M count=16 oflag=direct 2> /dev/null; then
	skip "drsnoop --trace-json: cannot write $F with O_DIRECT"
elif ! memcg_make "ftt-tj-$$" 8M; then
	skip "drsnoop --trace-json: $MEMCG_WHY"
else
	if start_bg "$BIN/drsnoop" -j -e -t --trace-json "$D"; then
		memcg_run cat "$F" > /dev/null
		stop_bg
		n=$(grep -c '"comm":"cat"' "$TMP/out")
		tracejson_ok dr "$D" "$TMP/out"
		v=$?
		check "drsnoop --trace-json: exit 0, the Trace Event format, one track per thread, as -j printed them ($(verdict)), cat's $n reclaims" \
			sh -c "[ $RC -eq 0 ] && [ $v -eq 0 ] && [ $n -gt 0 ] && [ ! -e '$D.tmp' ]"
		check "drsnoop --trace-json: tracefs as before" same_state
	fi
	memcg_remove
fi
rm -f "$F"

summary
