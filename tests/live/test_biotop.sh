#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of biotop on this kernel: one workload of known direct I/O on a disk of the
# test's own (a loop device, else null_blk), read by four runs at once (text, -j, -n and -i
# filters, -p with --clear): exact counts and KiB per process and direction, a hostile
# process name, no escape codes into a file; then usage errors, an end by count, and every
# way of stopping.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live

save_state

# The disk: LIVE_DISK, else a loop device over a file (util-linux's losetup, or busybox's),
# else null_blk's first (the guests have it).
LOOPDEV=""
if [ -z "${LIVE_DISK:-}" ] && command -v losetup > /dev/null 2>&1; then
	dd if=/dev/zero of="$TMP/disk.img" bs=1M count=8 2> /dev/null
	LOOPDEV=$(losetup -f --show --direct-io=on "$TMP/disk.img" 2> /dev/null ||
		losetup -f --show "$TMP/disk.img" 2> /dev/null)
	if [ -z "$LOOPDEV" ] && d=$(losetup -f 2> /dev/null) && losetup "$d" "$TMP/disk.img" 2> /dev/null; then
		LOOPDEV=$d
	fi
	# udev reads a new disk's label: let it finish before the counts start
	command -v udevadm > /dev/null 2>&1 && udevadm settle 2> /dev/null
fi
cleanup_loop() { [ -n "$LOOPDEV" ] && losetup -d "$LOOPDEV"; }
trap cleanup_loop EXIT
DISK=${LIVE_DISK:-$LOOPDEV}
[ -z "$DISK" ] && [ -b /dev/nullb0 ] && DISK=/dev/nullb0
if [ -z "$DISK" ]; then
	skip "biotop: no disk of the test's own (no losetup, no null_blk: CONFIG_BLK_DEV_LOOP or CONFIG_BLK_DEV_NULL_BLK)"
	summary
	exit 0
fi
NAME_OF_DISK=$(basename "$DISK")
DEV=$(tr : , < "/sys/class/block/$NAME_OF_DISK/dev")

# A process named with an escape sequence, a newline and a byte that is not UTF-8: dd through
# a link of that name (the kernel names a task after the file it executes). Busybox's dd
# (the guests) runs as "busybox<anything> dd".
# (busybox's sh says "dd" for an applet: then /bin/dd, its link)
DD=$(command -v dd)
case $DD in /*) ;; *) DD=/bin/dd ;; esac
REAL=$(readlink -f "$DD")
case $REAL in */busybox) PREFIX=busybox ARG0=dd ;; *) PREFIX=ftt ARG0= ;; esac
HOSTILE=$(printf '%s\033[2J\nx\377' "$PREFIX")
ln -s "$REAL" "$TMP/$HOSTILE"
ESCAPED="$PREFIX\\x1b[2J\\x0ax\\xff"
JSONNAME="$PREFIX\\u001b[2J\\nx\\udcff"

# The hostile dd waits for a go, so that -p can name it before it runs.
mkfifo "$TMP/go"
( read -r _ < "$TMP/go"; exec "$TMP/$HOSTILE" $ARG0 if=/dev/zero of="$DISK" bs=4096 count=5 \
	seek=200 oflag=direct conv=notrunc 2> /dev/null ) &
HPID=$!

run() { # run NAME ARGS...: biotop in the background, output in $TMP/NAME.out, .err
	n=$1; shift
	rm -f "$TMP/$n.out" "$TMP/$n.err"
	"$BIN/biotop" "$@" > "$TMP/$n.out" 2> "$TMP/$n.err" &
	eval "P_$n=\$!"
}
run a -C -d "$DISK" 1
run b -j -d "$DISK" 1
run c -j -d "$DISK" -n 'd?' -i '*W*' 1
run d -p $HPID --clear 1
ready=1
for n in a b c d; do
	eval "p=\$P_$n"
	wait_ready $p "$TMP/$n.err" || { ready=0; notok "biotop ($n) starts" "$TMP/$n.err"; }
done
# The workload: 8 writes of 4 KiB and 3 reads of 8 KiB by dd, 5 writes of 4 KiB by the other.
write_direct "$DISK" 8 100
dd if="$DISK" of=/dev/null bs=8192 count=3 skip=10 iflag=direct 2> /dev/null
echo go > "$TMP/go"
wait $HPID
sleep 0.5
kill -INT $P_a $P_b $P_c
for n in a b c d; do
	eval "p=\$P_$n"
	wait_exit $p 20 || notok "biotop ($n) ends within 20 s"
	eval "RC_$n=\$RC"
done

# sums FILE COMM DIR: "COUNT KBYTES" of the text rows of that process and direction on the
# disk, over every table (an I/O counts in the interval in which it completed).
sums() {
	# (the name through the environment: awk -v would undo its backslashes)
	C=$2 awk -v d="$3" -v dev="$DEV" -v disk="$NAME_OF_DISK" '
		NF == 8 && $2 == ENVIRON["C"] && $3 == d && $4 == dev && $5 == disk { n += $6; k += $7 }
		END { printf "%d %.1f\n", n, k }' "$1"
}
# jsums FILE COMM-AS-JSON DIR: "COUNT BYTES" likewise from -j's lines.
jsums() {
	grep -F "\"comm\":\"$2\",\"dir\":\"$3\",\"dev\":\"$DEV\",\"disk\":\"$NAME_OF_DISK\"," "$1" |
		sed 's/.*"count":\([0-9]*\),"bytes":\([0-9]*\),.*/\1 \2/' |
		awk '{ n += $1; b += $2 } END { printf "%d %d\n", n, b }'
}

if [ $ready = 1 ]; then
	cp "$TMP/a.out" "$TMP/out"; cp "$TMP/a.err" "$TMP/err"
	check "biotop: dd's 8 writes, 32 KiB, on $NAME_OF_DISK ($DEV) (got $(sums "$TMP/a.out" dd W))" \
		[ "$(sums "$TMP/a.out" dd W)" = "8 32.0" ]
	check "biotop: dd's 3 reads, 24 KiB (got $(sums "$TMP/a.out" dd R))" \
		[ "$(sums "$TMP/a.out" dd R)" = "3 24.0" ]
	check "biotop: the hostile name escaped as one token, its 5 writes, 20 KiB (got $(sums "$TMP/a.out" "$ESCAPED" W))" \
		[ "$(sums "$TMP/a.out" "$ESCAPED" W)" = "5 20.0" ]
	C=$ESCAPED check "biotop: PID is the submitting process's, AVGms a latency in ms" awk -v p=$HPID '
		NF == 8 && $2 == ENVIRON["C"] { n++; if ($1 != p) bad++ }
		NF == 8 && $3 ~ /^[RW]$/ && $8 !~ /^[0-9]+\.[0-9][0-9][0-9]$/ { bad++ }
		END { exit !(n > 0 && !bad) }' "$TMP/a.out"
	check "biotop: each table under 'HH:MM:SS loadavg: ...' and the column header" awk '
		/ loadavg: / { t++; if ($0 !~ /^[0-9][0-9]:[0-9][0-9]:[0-9][0-9] loadavg: [0-9.]+ [0-9.]+ [0-9.]+ [0-9]+\/[0-9]+ [0-9]+$/) bad++;
			getline; if ($0 !~ /^PID +COMM +D +DEV +DISK +I\/O +KBYTES +AVGms$/) bad++ }
		END { exit !(t > 0 && !bad) }' "$TMP/a.out"
	check "biotop into a file: no escape code, not even the name's" \
		awk -v e="$(printf '\033')" 'index($0, e) { exit 1 }' "$TMP/a.out"
	check "biotop -C stopped by SIGINT: exit 0" [ "$RC_a" -eq 0 ]

	cp "$TMP/b.out" "$TMP/out"; cp "$TMP/b.err" "$TMP/err"
	check "biotop -j: valid JSON lines with every key" \
		"$JSONCHECK" "$TMP/b.out" time pid comm dir dev disk count bytes avg_ms
	check "biotop -j: dd's writes 8 and 32768 bytes, reads 3 and 24576 (got $(jsums "$TMP/b.out" dd W), $(jsums "$TMP/b.out" dd R))" \
		[ "$(jsums "$TMP/b.out" dd W)" = "8 32768" -a "$(jsums "$TMP/b.out" dd R)" = "3 24576" ]
	check "biotop -j: the hostile name exact, 5 writes, 20480 bytes, its PID (got $(jsums "$TMP/b.out" "$JSONNAME" W))" \
		sh -c "[ \"\$(grep -cF '\"pid\":$HPID,\"comm\":\"$JSONNAME\"' '$TMP/b.out')\" -ge 1 ] && [ '$(jsums "$TMP/b.out" "$JSONNAME" W)' = '5 20480' ]"

	cp "$TMP/c.out" "$TMP/out"; cp "$TMP/c.err" "$TMP/err"
	others=$(grep -cvF '"comm":"dd","dir":"W"' "$TMP/c.out")
	check "biotop -n 'd?' -i '*W*': dd's 8 writes and nothing else (got $(jsums "$TMP/c.out" dd W), $others other lines)" \
		[ "$(jsums "$TMP/c.out" dd W)" = "8 32768" -a "$others" -eq 0 ]
	# -i filters the issue in the kernel, not the completion (its type may differ): the
	# reads complete without an issue seen, and are said with their count.
	notw=$(grep -v '"dir":"W"' "$TMP/b.out" | sed 's/.*"count":\([0-9]*\),.*/\1/' | awk '{ n += $1 } END { print n + 0 }')
	check "biotop -i '*W*': the $notw completions of other types said at the end, with their count" \
		grep -q "^biotop: $notw of [0-9]* completions (of any type: -i selects the issues) found no start (.*): not counted$" "$TMP/c.err"

	cp "$TMP/d.out" "$TMP/out"; cp "$TMP/d.err" "$TMP/err"
	check "biotop -p: ends when the process does, exit 0, only its 5 writes (got $(sums "$TMP/d.out" "$ESCAPED" W))" \
		sh -c "[ '$RC_d' -eq 0 ] && [ '$(sums "$TMP/d.out" "$ESCAPED" W)' = '5 20.0' ] && [ \$(awk 'NF == 8 && \$1 ~ /^[0-9]+\$/' '$TMP/d.out' | wc -l) -eq 1 ]"
	check "biotop --clear into a file: the screen cleared before each table" \
		[ "$(grep -c "$(printf '\033\\[H\033\\[2J')" "$TMP/d.out")" -ge 1 ]
fi

# An end by count: two tables, exit 0.
rm -f "$TMP/out" "$TMP/err"
"$BIN/biotop" -d "$DISK" 0.2 2 > "$TMP/out" 2> "$TMP/err"
check "biotop 0.2 2: two tables, exit 0" sh -c "[ $? -eq 0 ] && [ \$(grep -c ' loadavg: ' '$TMP/out') -eq 2 ]"

# --- bad input: exit 2, one line, nothing changed -----------------------------------------------
bad() { # bad EXPECTED-TEXT ARGS...
	want=$1; shift
	"$BIN/biotop" "$@" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q -- "$want" "$TMP/err" &&
		[ ! -s "$TMP/out" ]; then
		ok "bad input: biotop $* -> exit 2, '$want'"
	else
		echo "# exit $rc" > "$TMP/why"; cat "$TMP/err" >> "$TMP/why"
		notok "bad input: biotop $* -> exit 2, '$want'" "$TMP/why"
	fi
}
bad "invalid MAXROWS: 'x'" -r x
bad "invalid MAXROWS: -1" -r -1
bad "-C and --clear exclude each other" -C --clear
bad "--clear and -j exclude each other" --clear -j
bad "invalid PID: 'abc'" -p abc
bad "no such process: 999999999" -p 999999999
bad "invalid device: 'nosuchdisk'" -d nosuchdisk
bad "invalid TYPE" -i 'R" || 1'
bad "invalid interval: 0" 0
bad "invalid count: 0" 1 0
bad "unexpected argument: '3'" 1 2 3
bad "unknown option" -Z
check "bad input changed nothing in tracefs" same_state

stop_cases "biotop" "$BIN/biotop" 0.3

check "at the end: tracefs as it was" same_state
summary
