#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of iosnoop and iolatency on this kernel: exact numbers from known direct I/O,
# every way of stopping, concurrent runs, kill -9 recovery, bad options.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live

save_state

# A loop device over a file: known sectors (seek), and a scheduler we may switch.
LOOPDEV=""
if command -v losetup >/dev/null 2>&1; then
	truncate -s 64M "$TMP/disk.img" 2>/dev/null || dd if=/dev/zero of="$TMP/disk.img" bs=1M count=64 2>/dev/null
	LOOPDEV=$(losetup -f --show --direct-io=on "$TMP/disk.img" 2>/dev/null ||
		losetup -f --show "$TMP/disk.img" 2>/dev/null)
fi
cleanup_loop() { [ -n "$LOOPDEV" ] && losetup -d "$LOOPDEV"; }
trap cleanup_loop EXIT
# DISK: the device the exact-sector tests write to (LIVE_DISK overrides, e.g. in a guest).
DISK=${LIVE_DISK:-$LOOPDEV}

# Start TOOL ARGS in the background, output in $TMP/out, stderr in $TMP/err; PID in $TPID.
start() {
	# The previous run's banner must not be taken for this one's.
	rm -f "$TMP/out" "$TMP/err"
	"$@" > "$TMP/out" 2> "$TMP/err" &
	TPID=$!
	wait_ready $TPID "$TMP/err"
}

# --- exact numbers -----------------------------------------------------------------------
# Eight direct 4 KiB writes at 4 KiB block 100: sectors 800, 808, ... 856, 4096 bytes each.
exact_rows() { # exact_rows SCHEDULER
	sched=$1 name=$(basename "$DISK")
	q=/sys/block/$name/queue/scheduler
	if [ -w "$q" ] && ! grep -q "$sched" "$q"; then
		skip "iosnoop exact rows with $sched: scheduler not available"; return
	fi
	[ -w "$q" ] && echo "$sched" > "$q"
	if ! start "$BIN/iosnoop" -d "$DISK"; then
		notok "iosnoop starts (scheduler $sched)" "$TMP/err"; return
	fi
	write_direct "$DISK" 8 100
	sleep 0.5
	kill -INT $TPID; wait_exit $TPID 10
	awk '$1 == "dd" && $3 ~ /W/' "$TMP/out" > "$TMP/rows"
	want=$(printf '%s\n' 800 808 816 824 832 840 848 856)
	got=$(awk '{print $5}' "$TMP/rows")
	bytes=$(awk '$6 != 4096' "$TMP/rows" | wc -l)
	lat=$(awk '!($7 ~ /^[0-9]+\.[0-9]+$/ && $7 > 0)' "$TMP/rows" | wc -l)
	if [ "$got" = "$want" ] && [ "$bytes" -eq 0 ] && [ "$lat" -eq 0 ]; then
		ok "iosnoop: 8 dd writes, sectors 800..856, 4096 bytes, latency (scheduler $sched)"
	else
		notok "iosnoop: 8 dd writes, sectors 800..856, 4096 bytes, latency (scheduler $sched)" "$TMP/out"
	fi
}
if [ -n "$DISK" ]; then
	exact_rows none
	exact_rows mq-deadline
else
	skip "iosnoop exact rows: no loop device (losetup) and no LIVE_DISK"
fi

# A file on the root file system (here a virtio disk with the kernel's default scheduler).
F=${LIVE_FILE_DIR:-/var/tmp}/ftt-live.$$
if start "$BIN/iosnoop" -j; then
	write_direct "$F" 16
	sleep 0.5
	kill -TERM $TPID; wait_exit $TPID 10
	n=$(grep -c '"comm":"dd".*"type":"W[^"]*".*"bytes":4096,' "$TMP/out")
	check "iosnoop -j: the 16 direct writes of dd to a file, 4096 bytes each" [ "$n" -eq 16 ]
	check "iosnoop -j: every line is a JSON object with comm, pid, type, dev, sector, bytes, lat_ms (jsoncheck)" \
		"$JSONCHECK" "$TMP/out" comm pid type dev sector bytes lat_ms
	# The same with python's parser, where there is one (not in the guests).
	if command -v python3 >/dev/null 2>&1; then
		check "iosnoop -j: every line is a JSON object (python3)" python3 -c '
import json, sys
for line in open(sys.argv[1]):
    o = json.loads(line)
    assert {"comm", "pid", "type", "dev", "sector", "bytes", "lat_ms"} <= o.keys(), o
' "$TMP/out"
	fi
	# A discard after rm (file systems mounted with -o discard) is issued by a kworker; who
	# queued it depends on the kernel (rm at journal commit, or ext4's own worker). The
	# kernel's record of block_bio_queue, taken in a test instance, says who it was.
	KI=$T/instances/ftt-livetest-$$
	mkdir "$KI" && echo 1 > "$KI/events/block/block_bio_queue/enable"
	start "$BIN/iosnoop"
	sync; rm -f "$F"; sync
	# ext4 issues the discard when its journal commits: wait for it a little.
	wait_line "$TMP/out" '^[^ ]+ +[0-9]+ +[A-Z]*D' 5
	kill -INT $TPID; wait_exit $TPID 10
	sed -n 's/.*block_bio_queue: \([0-9]*,[0-9]*\) [A-Z]*D[A-Z]* \([0-9]*\) + [0-9]* \[\(.*\)\]$/\1 \2 \3/p' \
		"$KI/trace" > "$TMP/queued_by"
	rmdir "$KI"
	awk '$3 ~ /D/ {print $4, $5, $1}' "$TMP/out" > "$TMP/shown_as"
	if [ -s "$TMP/shown_as" ]; then
		check "iosnoop: each discard is shown as the process that queued it ($(awk '{print $3}' "$TMP/shown_as" | sort -u | tr '\n' ' '))" \
			sh -c "! grep -vxF -f '$TMP/queued_by' '$TMP/shown_as'"
	else
		# virtio-blk takes discards from Linux 5.0 on.
		fsdev=$(awk -v d="${LIVE_FILE_DIR:-/var/tmp}" '$2 == d {print $1}' /proc/mounts)
		dmax=/sys/block/$(basename "${fsdev:-none}")/queue/discard_max_bytes
		if [ -r "$dmax" ] && [ "$(cat "$dmax")" = 0 ]; then
			skip "iosnoop discard attribution: $fsdev takes no discards (virtio-blk: Linux 5.0)"
		else
			skip "iosnoop discard attribution: no discard issued (file system not mounted with discard)"
		fi
	fi
else
	notok "iosnoop -j starts" "$TMP/err"
fi
rm -f "$F"

if [ -n "$DISK" ]; then
	# -p: only the given process, also when its I/O goes through a kworker.
	mkfifo "$TMP/go"
	( read x < "$TMP/go"; exec dd if=/dev/zero of="$DISK" bs=4096 count=5 seek=300 oflag=direct 2>/dev/null ) &
	DDPID=$!
	start "$BIN/iosnoop" -p $DDPID
	write_direct "$DISK" 3 400 # another process: must not show
	echo go > "$TMP/go"; wait $DDPID
	sleep 0.5
	kill -INT $TPID; wait_exit $TPID 10
	rows=$(awk 'NR > 1' "$TMP/out" | wc -l)
	mine=$(awk -v p=$DDPID 'NR > 1 && $2 == p && $5 >= 2400 && $5 < 2440' "$TMP/out" | wc -l)
	check "iosnoop -p: the 5 writes of that process and nothing else" [ "$rows" -eq 5 -a "$mine" -eq 5 ]

	# -i: type filter, in the kernel.
	start "$BIN/iosnoop" -d "$DISK" -i '*R*'
	write_direct "$DISK" 4 10
	dd if="$DISK" of=/dev/null bs=4096 count=3 skip=20 iflag=direct 2>/dev/null
	sleep 0.5
	kill -INT $TPID; wait_exit $TPID 10
	reads=$(awk 'NR > 1 && $3 ~ /R/' "$TMP/out" | wc -l)
	writes=$(awk 'NR > 1 && $3 ~ /W/' "$TMP/out" | wc -l)
	check "iosnoop -i '*R*': the 3 reads, no writes" [ "$reads" -eq 3 -a "$writes" -eq 0 ]

	# -m: nothing on a fast device is slower than 10 s.
	start "$BIN/iosnoop" -d "$DISK" -m 10000
	write_direct "$DISK" 4 10
	sleep 0.5
	kill -INT $TPID; wait_exit $TPID 10
	check "iosnoop -m 10000: no I/O that fast is shown" [ "$(wc -l < "$TMP/out")" -eq 1 ]

	# -s -t -T columns.
	start "$BIN/iosnoop" -d "$DISK" -stT
	write_direct "$DISK" 2 10
	sleep 0.5
	kill -INT $TPID; wait_exit $TPID 10
	check "iosnoop -stT: TIME STARTs ENDs columns, end after start" awk '
		NR == 1 { ok = ($1 == "TIME" && $2 == "STARTs" && $3 == "ENDs" && $4 == "COMM") }
		NR > 1 { n++; if ($1 !~ /^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]$/ || $3 < $2) ok = 0 }
		END { exit !(ok && n == 2) }' "$TMP/out"

	# -n: by process name (glob); cp's I/O must not show.
	start "$BIN/iosnoop" -d "$DISK" -n 'd?'
	write_direct "$DISK" 3 10
	dd if="$DISK" of="$TMP/copy" bs=4096 count=2 skip=30 iflag=direct 2>/dev/null
	cp "$DISK" /dev/null 2>/dev/null &
	sleep 0.5; kill $! 2>/dev/null; wait $! 2>/dev/null
	kill -INT $TPID; wait_exit $TPID 10
	check "iosnoop -n 'd?': the 5 I/O of dd and nothing else" \
		[ "$(awk 'NR > 1 && $1 == "dd"' "$TMP/out" | wc -l)" -eq 5 -a "$(awk 'NR > 1' "$TMP/out" | wc -l)" -eq 5 ]

	# -Q on the same I/O as a plain run: queue-to-completion is never shorter. Each instance
	# stamps an event with its own clock read, so the same event differs between the two runs
	# by microseconds here: allow 0.2 ms. Under single-threaded TCG a vCPU can be paused for
	# the other's time slice between the two stamps (the guests set LIVE_CLOCK_SLACK_MS: a
	# debug loop on 5.10 saw +2.2 ms). (The exact -Q start is checked by the unit tests on
	# recorded events.)
	slack=${LIVE_CLOCK_SLACK_MS:-0.2}
	"$BIN/iosnoop" -d "$DISK" > "$TMP/plain" 2> "$TMP/plain.err" & A=$!
	"$BIN/iosnoop" -Q -d "$DISK" > "$TMP/queued" 2> "$TMP/queued.err" & B=$!
	wait_ready $A "$TMP/plain.err"; wait_ready $B "$TMP/queued.err"
	write_direct "$DISK" 10 600
	sleep 0.5
	kill -INT $A $B; wait_exit $A 10; wait_exit $B 10
	check "iosnoop -Q: same 10 writes, each latency at least the issue-to-completion one" awk '
		NR == FNR { if ($1 == "dd") plain[$5] = $7; next }
		$1 == "dd" && ($5 in plain) { n++; if ($7 + slack < plain[$5] + 0) bad++ }
		END { exit !(n == 10 && bad == 0) }' slack="$slack" "$TMP/plain" "$TMP/queued" ||
		paste "$TMP/plain" "$TMP/queued" | head -14 | sed 's/^/#   /'

	# -T: a time above each histogram.
	start "$BIN/iolatency" -T -d "$DISK" 0.5 2
	wait_exit $TPID 10
	check "iolatency -T 0.5 2: two histograms, each under a HH:MM:SS line" \
		[ "$(grep -c '^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]$' "$TMP/out")" -eq 2 -a "$(grep -c '>=(us)' "$TMP/out")" -eq 2 ]

	# iolatency counts at least every I/O dd issued, in the histogram rows.
	start "$BIN/iolatency" -j -d "$DISK" 1 3
	write_direct "$DISK" 50 10
	wait_exit $TPID 10
	total=$(sed 's/.*"count":\([0-9]*\),"hist".*/\1/' "$TMP/out" | awk '{s += $1} END {print s + 0}')
	lines=$(wc -l < "$TMP/out")
	check "iolatency -j 1 3: three intervals, at least the 50 writes counted (got $total)" \
		[ "$total" -ge 50 -a "$lines" -eq 3 -a "$RC" -eq 0 ]
	start "$BIN/iolatency" -d "$DISK" 1 1
	write_direct "$DISK" 20 10
	wait_exit $TPID 10
	rowsum=$(awk '$2 == "->" {s += $5} END {print s + 0}' "$TMP/out")
	check "iolatency text histogram: rows add up to at least 20 (got $rowsum)" [ "$rowsum" -ge 20 ]
	# --heatmap: the same histograms as a picture, its cells adding up to the I/O the
	# histograms counted (the 20 writes and nothing else on the loop disk); and iosnoop -j
	# through heatmap, a cell count per line.
	start "$BIN/iolatency" -d "$DISK" --heatmap "$TMP/iol.svg" 0.5 2
	write_direct "$DISK" 20 10
	wait_exit $TPID 10
	rowsum=$(awk '$2 == "->" {s += $5} END {print s + 0}' "$TMP/out")
	cellsum=$(grep -o 'data-count="[0-9]*"' "$TMP/iol.svg" 2> /dev/null | awk -F'"' '{s += $2} END {print s + 0}')
	check "iolatency --heatmap: cells add up to the histograms' $rowsum I/O (got $cellsum), at least 20" \
		[ "$cellsum" -eq "$rowsum" -a "$rowsum" -ge 20 ]
	if start "$BIN/iosnoop" -j -d "$DISK"; then
		write_direct "$DISK" 12 10
		sleep 0.5
		kill -INT $TPID; wait_exit $TPID 10
		"$BIN/heatmap" "$TMP/out" > "$TMP/io.svg" 2> "$TMP/heat.err"
		cellsum=$(grep -o 'data-count="[0-9]*"' "$TMP/io.svg" | awk -F'"' '{s += $2} END {print s + 0}')
		check "iosnoop -j | heatmap: a cell count per I/O line ($(wc -l < "$TMP/out") lines, $cellsum counted), at least 12" \
			[ "$cellsum" -eq "$(wc -l < "$TMP/out")" -a "$cellsum" -ge 12 -a ! -s "$TMP/heat.err" ]
	else
		notok "iosnoop -j starts for heatmap" "$TMP/err"
	fi
	start "$BIN/iolatency" -d "$DISK" --heatmap "$TMP/none.svg" 0.2 1
	wait_exit $TPID 10
	check "iolatency --heatmap with no I/O: said, no file left" sh -c \
		"grep -q 'no values to draw: $TMP/none.svg not written' '$TMP/err' && [ ! -e '$TMP/none.svg' ]"
	"$BIN/iolatency" --heatmap /nonexistent/x.svg 1 1 > /dev/null 2> "$TMP/err"
	check "iolatency --heatmap to a file that cannot be written: exit 1 before tracing, one line" sh -c \
		"[ $? -eq 1 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q 'cannot write /nonexistent/x.svg' '$TMP/err'"
	start "$BIN/iolatency" -D -m 1 1
	write_direct "$DISK" 5 10
	wait_exit $TPID 10
	check "iolatency -D -m: a histogram headed by the loop disk, in ms" sh -c \
		"grep -q '^disk $(cat /sys/block/$(basename $DISK)/dev | tr : ,) ($(basename $DISK)):' '$TMP/out' && grep -q '>=(ms)' '$TMP/out'"

	# Two iosnoop and an iolatency at once, each seeing the I/O.
	"$BIN/iosnoop" -d "$DISK" > "$TMP/a" 2> "$TMP/a.err" & A=$!
	"$BIN/iosnoop" -j -d "$DISK" > "$TMP/b" 2> "$TMP/b.err" & B=$!
	"$BIN/iolatency" -j -d "$DISK" 2 1 > "$TMP/c" 2> "$TMP/c.err" & C=$!
	wait_ready $A "$TMP/a.err"; wait_ready $B "$TMP/b.err"; wait_ready $C "$TMP/c.err"
	write_direct "$DISK" 6 500
	sleep 0.5
	kill -INT $A $B; wait_exit $A 10; wait_exit $B 10; wait_exit $C 10
	na=$(awk '$1 == "dd" && $5 >= 4000 && $5 < 4048' "$TMP/a" | wc -l)
	nb=$(grep -c '"comm":"dd"' "$TMP/b")
	nc=$(sed 's/.*"count":\([0-9]*\),.*/\1/' "$TMP/c")
	check "two iosnoop and an iolatency at once: each sees the 6 writes ($na, $nb, ${nc:-0})" \
		[ "$na" -eq 6 -a "$nb" -eq 6 -a "${nc:-0}" -ge 6 ]
fi

# --- every way of stopping leaves tracefs as it was -------------------------------------------
for tool in iosnoop iolatency; do
	for sig in INT TERM HUP; do
		if ! start "$BIN/$tool"; then notok "$tool starts" "$TMP/err"; continue; fi
		send_stop $sig $tool
		if wait_exit $TPID 10; then
			check "$tool stopped by SIG$sig: exit 0" [ "$RC" -eq 0 ]
			check "$tool stopped by SIG$sig: nothing left in tracefs" same_state
		else
			kill -9 $TPID; notok "$tool stopped by SIG$sig within 10 s"
		fi
	done
done

# | head -1: the reader goes away; the tool must notice and clean up, both when it has more
# to write (I/O going on) and when it has not (an idle disk: no write, no EPIPE).
pipe_head() { # pipe_head NAME LOAD TOOL ARGS...
	pname=$1 load=$2; shift 2
	if [ "$load" = load ]; then
		( while [ ! -e "$TMP/stop" ]; do write_direct "$F.pipe" 4; sleep 0.1; done ) &
		LOAD=$!
	fi
	# One process for the watchdog to wait on: the subshell that holds the pipeline.
	( ( "$@" 2> "$TMP/err"; echo $? > "$TMP/rc" ) | head -1 > "$TMP/out" ) &
	P=$!
	if wait_exit $P 20; then
		check "$pname: ends by itself with exit 0" [ "$(cat "$TMP/rc")" = 0 ]
		check "$pname: nothing left in tracefs" same_state
	else
		notok "$pname: still running after 20 s"
		pkill -f "$BIN/$1"; sleep 1
	fi
	if [ "$load" = load ]; then
		touch "$TMP/stop"; wait $LOAD; rm -f "$TMP/stop" "$F.pipe"
	fi
}
pipe_head "iosnoop | head -1, with I/O" load "$BIN/iosnoop"
pipe_head "iolatency 0.2 | head -1" load "$BIN/iolatency" 0.2
if [ -n "$DISK" ]; then
	pipe_head "iosnoop -d DISK | head -1, no I/O on DISK" idle "$BIN/iosnoop" -d "$DISK"
else
	skip "iosnoop | head -1 on an idle disk: no loop device (losetup) and no LIVE_DISK"
fi

# A normal end: duration, and count.
"$BIN/iosnoop" 0.5 > /dev/null 2>&1
check "iosnoop 0.5: ends by itself with exit 0, nothing left" sh -c "[ $? -eq 0 ]"
check "iosnoop with a duration: nothing left in tracefs" same_state

# kill -9 leaves an instance; the next run removes it and says so.
start "$BIN/iosnoop"
kill -9 $TPID; wait $TPID 2>/dev/null
if ls "$T/instances" | grep -q "ftrace-tools-iosnoop-${TPID}_"; then
	"$BIN/iolatency" 0.2 1 > /dev/null 2> "$TMP/err"
	check "after kill -9, the next run removes the stale instance and says so" \
		grep -q "removed instance ftrace-tools-iosnoop-${TPID}_" "$TMP/err"
	check "after kill -9 and a new run: nothing left in tracefs" same_state
else
	notok "kill -9 left no instance behind (the test cannot check recovery)"
fi

# --- bad input: exit 2, one line, nothing changed -----------------------------------------------
bad() { # bad EXPECTED-TEXT TOOL ARGS...
	want=$1; shift
	"$BIN/$@" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q -- "$want" "$TMP/err" &&
		[ ! -s "$TMP/out" ]; then
		ok "bad input: $* -> exit 2, '$want'"
	else
		echo "# exit $rc" > "$TMP/why"; cat "$TMP/err" >> "$TMP/why"
		notok "bad input: $* -> exit 2, '$want'" "$TMP/why"
	fi
}
bad "invalid PID: 'abc'" iosnoop -p abc
bad "no such process: 999999999" iosnoop -p 999999999
bad "invalid device: 'nosuchdisk'" iosnoop -d nosuchdisk
bad "invalid device: '/etc/passwd'" iolatency -d /etc/passwd
bad "invalid TYPE" iosnoop -i 'R" || 1'
"$BIN/iosnoop" -i "$(head -c 100000 /dev/zero | tr '\0' R)" > "$TMP/out" 2> "$TMP/err"
check "bad input: iosnoop -i of 100,000 letters -> exit 2, one line, 'longer than 64 characters'" sh -c "
	[ $? -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q 'longer than 64 characters' '$TMP/err' && [ ! -s '$TMP/out' ]"
bad "invalid MS" iosnoop -m 0
bad "invalid MS: 'x'" iosnoop -m x
bad "invalid duration: 0" iosnoop 0
bad "invalid duration: '-5'" iosnoop -- -5
bad "unexpected argument: '2'" iosnoop 1 2
bad "invalid interval: 'x'" iolatency x
bad "invalid count: 0" iolatency 1 0
bad "unexpected argument: '3'" iolatency 1 2 3
bad "unknown option" iosnoop -Z
bad "unknown option" iolatency -d
check "bad input changed nothing in tracefs" same_state

for tool in iosnoop iolatency; do
	"$BIN/$tool" -h > "$TMP/out" 2> "$TMP/err"
	check "$tool -h: usage on stdout, exit 0" sh -c "[ $? -eq 0 ] && grep -q '^USAGE: $tool' '$TMP/out' && [ ! -s '$TMP/err' ]"
	"$BIN/$tool" --version > "$TMP/out"
	check "$tool --version: exit 0" sh -c "[ $? -eq 0 ] && grep -q '^$tool (ftrace-tools)' '$TMP/out'"
done

check "at the end: tracefs as it was" same_state
summary
