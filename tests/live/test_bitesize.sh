#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of bitesize: one workload of known direct I/O (8 writes of 4 KiB, 4 of 64 KiB,
# 2 reads of BIG KiB, 3 writes of 4 KiB by a process named "a\nb\e[1m\377z"), each by a
# process whose PID is known, seen at once by five runs with different options, each
# counted exactly; then intervals, usage errors and every way of stopping.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live

save_state

# The disk: LIVE_DISK, else null_blk's (the guests), else a loop device over a file (as
# test_block.sh); nothing else writes to any of them.
DISK=${LIVE_DISK:-}
[ -z "$DISK" ] && [ -b /dev/nullb0 ] && DISK=/dev/nullb0
LOOPDEV=
if [ -z "$DISK" ] && command -v losetup > /dev/null 2>&1; then
	truncate -s 64M "$TMP/disk.img" 2> /dev/null ||
		dd if=/dev/zero of="$TMP/disk.img" bs=1M count=64 2> /dev/null
	LOOPDEV=$(losetup -f --show --direct-io=on "$TMP/disk.img" 2> /dev/null ||
		losetup -f --show "$TMP/disk.img" 2> /dev/null)
	DISK=$LOOPDEV
fi
cleanup_loop() { [ -n "$LOOPDEV" ] && losetup -d "$LOOPDEV"; }
trap cleanup_loop EXIT

if [ -n "$DISK" ]; then
	DNAME=$(basename "$DISK")
	# The reads: the largest of 512, 256, 128 KiB the disk takes as one request (old
	# null_blk: 127 KiB at most, then 16 KiB).
	max=$(cat "/sys/block/$DNAME/queue/max_sectors_kb")
	for BIG in 512 256 128 16; do [ "$max" -ge $BIG ] && break; done
	DEVNO=$(tr : , < "/sys/block/$DNAME/dev")
	# Each process waits on a FIFO until the tracers are ready (its PID known before).
	mkfifo "$TMP/go"
	(read x < "$TMP/go"; exec dd if=/dev/zero of="$DISK" bs=4096 count=8 seek=100 oflag=direct conv=notrunc 2> /dev/null) &
	W4=$!
	(read x < "$TMP/go"; exec dd if=/dev/zero of="$DISK" bs=65536 count=4 seek=100 oflag=direct conv=notrunc 2> /dev/null) &
	W64=$!
	(read x < "$TMP/go"; exec dd if="$DISK" of=/dev/null bs=${BIG}k count=2 iflag=direct 2> /dev/null) &
	RB=$!
	# The hostile name: dd run through a link of that name (a task's name at exec is the
	# last part of the path run); argv[0] stays "dd" where the shell can say so (busybox's
	# dd needs it; dash cannot, GNU dd does not care).
	LINK=$TMP/$(printf 'a\nb\033[1m\377z')
	DD=$(command -v dd)
	case $DD in /*) ;; *) # busybox's sh prefers its applets: "dd"
		for d in /bin /usr/bin; do [ -x $d/dd ] && DD=$d/dd && break; done ;;
	esac
	ln -s "$DD" "$LINK"
	if (exec -a dd true) 2> /dev/null; then
		(read x < "$TMP/go"; exec -a dd "$LINK" if=/dev/zero of="$DISK" bs=4096 count=3 seek=5000 oflag=direct conv=notrunc 2> /dev/null) &
	else
		(read x < "$TMP/go"; exec "$LINK" if=/dev/zero of="$DISK" bs=4096 count=3 seek=5000 oflag=direct conv=notrunc 2> /dev/null) &
	fi
	HO=$!
	HNAME_TEXT='a\x0ab\x1b[1m\xffz'
	HNAME_JSON='a\nb\u001b[1m\udcffz'

	"$BIN/bitesize" -j -d "$DISK" > "$TMP/all.json" 2> "$TMP/all.err" & A=$!
	"$BIN/bitesize" -D > "$TMP/disks.txt" 2> "$TMP/disks.err" & B=$!
	"$BIN/bitesize" -j -d "$DISK" -p $W64 > "$TMP/pid.json" 2> "$TMP/pid.err" & C=$!
	"$BIN/bitesize" -j -D -d "$DISK" -i '*R*' > "$TMP/reads.json" 2> "$TMP/reads.err" & D=$!
	"$BIN/bitesize" -j -d "$DISK" -n 'd?' > "$TMP/name.json" 2> "$TMP/name.err" & E=$!
	for p in "$A all" "$B disks" "$C pid" "$D reads" "$E name"; do
		set -- $p
		wait_ready $1 "$TMP/$2.err" || notok "bitesize ($2) starts" "$TMP/$2.err"
	done
	echo go > "$TMP/go"
	wait $W4 $W64 $RB $HO
	# -p: the run ends by itself once its process is gone. Before Linux 5.9 the other
	# four runs, still reading, hold its instance (session.c): it says so and exits 1.
	wait_exit $C 10
	kv=$(uname -r | awk -F. '{print $1 * 1000 + $2}')
	if [ "$kv" -lt 5009 ] && [ "$RC" -eq 1 ] && grep -q 'cannot remove ftrace instance .*before Linux 5.9' "$TMP/pid.err"; then
		ok "bitesize -p: ends by itself when the process exits; its instance held by the others' reads (before 5.9), said, exit 1"
	else
		check "bitesize -p: ends by itself with exit 0 when the process exits" [ "$RC" -eq 0 ] ||
			sed 's/^/# /' "$TMP/pid.err"
	fi
	sleep 0.5
	kill -INT $A $B $D $E
	for p in $A $B $D $E; do wait_exit $p 10; done

	# line PID COMM COUNT BYTES LOW HIGH: the JSON of one histogram, exactly (DEVS: its
	# dev and disk, null without -D).
	DEVS='"dev":null,"disk":null'
	line() {
		printf '%s,"pid":%s,"comm":"%s","unit":"KiB","count":%s,"bytes":%s,"hist":[{"low":%s,"high":%s,"count":%s}]}\n' \
			"$DEVS" "$1" "$2" "$3" "$4" "$5" "$6" "$3"
	}
	line $W4 dd 8 32768 4 8 > "$TMP/w4"
	line $W64 dd 4 262144 64 128 > "$TMP/w64"
	line $RB dd 2 $((2 * BIG * 1024)) $BIG $((2 * BIG)) > "$TMP/rb"
	line $HO "$HNAME_JSON" 3 12288 4 8 > "$TMP/ho"
	DEVS="\"dev\":\"$DEVNO\",\"disk\":\"$DNAME\""
	line $RB dd 2 $((2 * BIG * 1024)) $BIG $((2 * BIG)) > "$TMP/rb.D"
	has() { grep -qF -f "$2" "$1"; }
	# count FILE PID: histograms of that process.
	count() { grep -c "\"pid\":$2," "$1"; }
	cp "$TMP/all.json" "$TMP/out"; cp "$TMP/all.err" "$TMP/err"
	check "bitesize -j: 8 writes of 4 KiB by dd (PID $W4) in [4, 8)" has "$TMP/all.json" "$TMP/w4"
	check "bitesize -j: 4 writes of 64 KiB by dd (PID $W64) in [64, 128)" has "$TMP/all.json" "$TMP/w64"
	check "bitesize -j: 2 reads of $BIG KiB by dd (PID $RB) in [$BIG, $((2 * BIG)))" has "$TMP/all.json" "$TMP/rb"
	check "bitesize -j: 3 writes of 4 KiB by the process named a<LF>b<ESC>[1m<0xff>z, its name exact" has "$TMP/all.json" "$TMP/ho"
	check "bitesize -j: one histogram per process" [ "$(count "$TMP/all.json" $W4)$(count "$TMP/all.json" $W64)$(count "$TMP/all.json" $RB)$(count "$TMP/all.json" $HO)" = 1111 ]
	check "bitesize -j: every line a JSON object with its keys (jsoncheck)" \
		"$JSONCHECK" "$TMP/all.json" time dev disk pid comm unit count bytes hist
	check "bitesize -j: nothing said on stderr but the banner" [ "$(grep -vc '^Tracing' "$TMP/all.err")" -eq 0 ]

	cp "$TMP/pid.json" "$TMP/out"; cp "$TMP/pid.err" "$TMP/err"
	check "bitesize -p $W64: its 4 writes and nothing else" sh -c \
		"[ \$(wc -l < '$TMP/pid.json') -eq 1 ] && grep -qF -f '$TMP/w64' '$TMP/pid.json'"
	cp "$TMP/reads.json" "$TMP/out"; cp "$TMP/reads.err" "$TMP/err"
	check "bitesize -j -D -i '*R*': the 2 reads under disk $DEVNO ($DNAME), none of the writes" sh -c \
		"grep -qF -f '$TMP/rb.D' '$TMP/reads.json' && ! grep -Eq '\"pid\":($W4|$W64|$HO),' '$TMP/reads.json'"
	cp "$TMP/name.json" "$TMP/out"; cp "$TMP/name.err" "$TMP/err"
	check "bitesize -n 'd?': the three dd, not the renamed one" sh -c \
		"grep -qF -f '$TMP/w4' '$TMP/name.json' && grep -qF -f '$TMP/w64' '$TMP/name.json' &&
		grep -qF -f '$TMP/rb' '$TMP/name.json' && ! grep -q '\"pid\":$HO,' '$TMP/name.json'"

	# -D, text: each process's histogram under "disk M,m (name): pid = PID NAME", the name
	# escaped; the rows of that histogram.
	cp "$TMP/disks.txt" "$TMP/out"; cp "$TMP/disks.err" "$TMP/err"
	rows() { # rows PID NAME: that histogram's rows, "LOW HIGH COUNT" for the non-empty ones
		H="disk $DEVNO ($DNAME): pid = $1 $2" awk '
			BEGIN { h = ENVIRON["H"] } # (not -v: awk would undo the \x escapes)
			$0 == h { on = 1; next }
			on && $0 == "" { on = 0 }
			on && $2 == "->" && $5 > 0 { print $1, $3, $5 }' "$TMP/disks.txt"
	}
	check "bitesize -D: dd's 8 writes under its disk $DEVNO ($DNAME), in 4 -> 8" \
		[ "$(rows $W4 dd)" = "4 8 8" ]
	check "bitesize -D: dd's 4 writes of 64 KiB, in 64 -> 128" [ "$(rows $W64 dd)" = "64 128 4" ]
	check "bitesize -D: dd's 2 reads, in $BIG -> $((2 * BIG))" [ "$(rows $RB dd)" = "$BIG $((2 * BIG)) 2" ]
	check "bitesize -D: the renamed process, its name escaped as \\x sequences, 3 in 4 -> 8" \
		[ "$(rows $HO "$HNAME_TEXT")" = "4 8 3" ]
	raw_free() {
		! LC_ALL=C grep -q "$(printf '\033')" "$TMP/disks.txt" &&
			! LC_ALL=C grep -q "$(printf '\377')" "$TMP/disks.txt" && ! grep -q '^b' "$TMP/disks.txt"
	}
	check "bitesize -D: no escape byte, no byte 0xff and no line split by the name in the text" raw_free
else
	skip "bitesize exact counts: no disk to write to (null_blk, losetup or LIVE_DISK)"
fi

# interval count: two intervals, each under its time, then exit 0 by itself.
rm -f "$TMP/out" "$TMP/err"
"$BIN/bitesize" -T 0.3 2 > "$TMP/out" 2> "$TMP/err" &
P=$!
if wait_exit $P 10; then
	check "bitesize -T 0.3 2: exit 0 by itself after two intervals, each under a HH:MM:SS line" \
		[ "$RC" -eq 0 -a "$(grep -c '^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]$' "$TMP/out")" -eq 2 ]
else
	notok "bitesize -T 0.3 2: still running after 10 s"
fi

# --- bad input: exit 2, one line, nothing on stdout, nothing changed ------------------------
bad() { # bad EXPECTED-TEXT ARGS...
	want=$1; shift
	"$BIN/bitesize" "$@" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q -- "$want" "$TMP/err" &&
		[ ! -s "$TMP/out" ]; then
		ok "bad input: bitesize $* -> exit 2, '$want'"
	else
		echo "# exit $rc" > "$TMP/why"; cat "$TMP/err" >> "$TMP/why"
		notok "bad input: bitesize $* -> exit 2, '$want'" "$TMP/why"
	fi
}
bad "invalid device: 'nosuchdisk'" -d nosuchdisk
bad "invalid device: '/etc/passwd'" -d /etc/passwd
bad "invalid TYPE" -i 'R" || 1'
bad "invalid PID: 'abc'" -p abc
bad "invalid PID: -5" -p -5
bad "invalid PID: 99999999999999999999" -p 99999999999999999999
bad "invalid NAME: ''" -n ''
bad "invalid NAME: '\['" -n '['
bad "invalid TYPE: ''" -i ''
bad "no such process: 999999999" -p 999999999
bad "invalid interval: 'x'" x
bad "invalid interval: 0" 0
bad "invalid count: 0" 1 0
bad "invalid count: 99999999999999999999" 1 99999999999999999999
bad "invalid interval: '-5'" -- -5
bad "unexpected argument: '3'" 1 2 3
bad "unknown option" -Z
bad "unknown option" -d
check "bad input changed nothing in tracefs" same_state

# --- every way of stopping leaves tracefs as it was (text every 0.2 s, for | head -1) -------
stop_cases "bitesize -T 0.2" "$BIN/bitesize" -T 0.2

check "at the end: tracefs as it was" same_state
summary
