#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of fileslower: a test program (file_target slow) makes known slow calls: a
# pread64 of 2000 bytes and a pwrite64 of 1000 to a regular file named with a newline and
# invalid UTF-8, each held 60 ms by a page its buffer waits for (userfaultfd), a read of 10
# bytes from a FIFO whose writer answers 60 ms late, and one a signal interrupts after 60 ms;
# and 20 fast preads and pwrites of the file. Two such programs at once: -p shows one
# program's only, each slow call once with its path, direction, bytes and a latency of 60 ms
# or more, none of the fast ones; the FIFO only with -a, the interrupted read with its error;
# 0 shows the fast calls too; without -p both programs'; the same count as bpftrace on the
# same tracepoints; text escaped, JSON valid; usage errors; tracefs as before.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

need_program FT file_target "${FILE_TARGET:-}"
require_syscalls fileslower
if [ ! -e "$T/kprobe_events" ] && [ ! -e "$T/uprobe_events" ]; then
	skip "fileslower: no kprobe or uprobe events to read paths (CONFIG_KPROBE_EVENTS, CONFIG_UPROBE_EVENTS)"
	summary
	exit 0
fi

NL='
'
SLOW="slow${NL}$(printf '\377') file"
# run OPTS...: fileslower OPTS (PID: program a's) while programs a and b make their calls.
run() {
	rm -rf "$TMP/go" "$TMP/a" "$TMP/b"
	mkdir "$TMP/a" "$TMP/b"
	for x in a b; do "$FT" slow "$TMP/go" "$TMP/$x" > "$TMP/$x.out" & eval "P_$x=\$!"; done
	wait_line "$TMP/a.out" '^[01]$' 5 && wait_line "$TMP/b.out" '^[01]$' 5
	UFFD=$(cat "$TMP/a.out")
	opts=$(echo "$*" | sed "s/PID/$P_a/")
	start_bg "$BIN/fileslower" $opts || { touch "$TMP/go"; wait $P_a; wait $P_b; return 1; }
	[ -z "${BTRACE:-}" ] || bt_start
	touch "$TMP/go"
	wait $P_a
	TRC=$?
	wait $P_b
	TRC=$((TRC + $?))
	case $opts in
	*-p*) wait_exit $BGPID 10; RC=$? ;; # the run ends with its process
	*) stop_bg ;;
	esac
	[ "$TRC" -eq 0 ] || notok "the test programs ran to the end ($TRC)"
}

# The calls of program a at 30 ms or more, by -j, without times, thread and descriptor.
slow_json() {
	grep "\"pid\":$P_a," "$TMP/out" | sed 's/^{"ts":[0-9.]*,"time":"[0-9:]*",//; s/"tid":[0-9]*,"pid":[0-9]*,//; s/"fd":[0-9]*,//; s/"lat_ns":[0-9]*,//'
}
# Every latency of program a's rows at least 60 ms.
all_60ms() {
	grep "\"pid\":$P_a," "$TMP/out" | grep -o '"lat_ns":[0-9]*' | sed 's/.*://' |
		{ n=0; while read -r ns; do [ "$ns" -ge 60000000 ] || return 1; n=$((n + 1)); done; [ $n -gt 0 ]; }
}

A=$TMP/a
KEYS="ts time comm tid pid dir call fd bytes errno lat_ns type file named"
if run -j -p PID 30; then
	{
		[ "$UFFD" = 1 ] && cat << END
"comm":"file_target","dir":"R","call":"pread64","bytes":2000,"errno":0,"type":"R","file":"$A/slow\\n\\udcff file","named":true}
"comm":"file_target","dir":"W","call":"pwrite64","bytes":1000,"errno":0,"type":"R","file":"$A/slow\\n\\udcff file","named":true}
END
	} > "$TMP/want"
	# (without userfaultfd nothing: the JSON is checked in the run of 0 below too)
	check "fileslower -j -p 30: exit 0 with the process, valid JSON" sh -c "
		[ $RC -eq 0 ] && { [ $UFFD = 0 ] || '$JSONCHECK' '$TMP/out' $KEYS > /dev/null; }"
	slow_json > "$TMP/got"
	check "fileslower -j -p 30: each slow call of a regular file once, path exact (newline, invalid UTF-8), bytes returned; no fast call, no FIFO" \
		cmp -s "$TMP/want" "$TMP/got" || { echo "# want:"; sed 's/^/#   /' "$TMP/want"; echo "# got:"; sed 's/^/#   /' "$TMP/out"; }
	[ "$UFFD" = 1 ] && check "fileslower -j: each latency 60 ms or more (the known delay)" all_60ms
	check "fileslower -p: nothing of the other program" sh -c "! grep -q '$TMP/b/' '$TMP/out' && ! grep -vq '\"pid\":$P_a,' '$TMP/out'"
	[ "$UFFD" = 1 ] || skip "fileslower: slow reads and writes of a regular file: no userfaultfd (CONFIG_USERFAULTFD, Linux 4.3)"
fi

# bpftrace beside -a -p: the calls of program a of 30 ms or more on the same tracepoints.
bt_start() {
	c="read,pread64,readv,preadv,preadv2,write,pwrite64,writev,pwritev,pwritev2"
	en=$(echo "$c" | sed 's/\([a-z0-9]*\)/tracepoint:syscalls:sys_enter_\1/g')
	ex=$(echo "$c" | sed 's/\([a-z0-9]*\)/tracepoint:syscalls:sys_exit_\1/g')
	bpftrace -e "
		$en /pid == $P_a/ { @s[tid] = nsecs; }
		$ex /pid == $P_a && @s[tid]/ { if (nsecs - @s[tid] >= 30000000) { @slow = count(); } delete(@s[tid]); }
		tracepoint:sched:sched_process_exit /pid == $P_a && tid == $P_a/ { exit(); }
		$BT_READY" \
		> "$TMP/bt.out" 2> "$TMP/bt.err" &
	BT=$!
	wait_line "$TMP/bt.out" '^ready' 30 || { notok "bpftrace starts" "$TMP/bt.err"; BT=; }
}
BT= BTRACE=
command -v bpftrace > /dev/null 2>&1 && BTRACE=1
if run -a -T 30; then
	n=$((UFFD * 2))
	L="^[0-9.]+ +[0-9:]{8} +file_target +$P_a"
	MS='+(6[0-9]|[7-9][0-9]|[0-9]{3,})\.[0-9]{2}'
	# text: FILENAME escaped; the FIFO's read of 10 bytes and the one a signal interrupted.
	# Of 60 ms or more, only those: a guest beside another and the fuzzers (the CI preview's
	# 4.14) made one of the program's fast calls take over 30 ms once.
	check "fileslower -a -T 30 (text, the machine): the slow calls of the file and of the FIFO, names escaped, the interrupted read by its error" sh -c "
		[ $RC -eq 0 ] &&
		[ \$(grep -Ec '$L R +2000 $MS $A/slow\\\\x0a\\\\xff\\\\x20file\$' '$TMP/out') -eq $UFFD ] &&
		[ \$(grep -Ec '$L W +1000 $MS $A/slow\\\\x0a\\\\xff\\\\x20file\$' '$TMP/out') -eq $UFFD ] &&
		[ \$(grep -Ec '$L R +10 $MS $A/fifo\$' '$TMP/out') -eq 1 ] &&
		[ \$(grep -Ec '$L R ERESTARTSYS $MS $A/fifo\$' '$TMP/out') -eq 1 ] &&
		[ \$(grep -Ec ' $P_a [RW] .*$MS ' '$TMP/out') -eq $((n + 2)) ] &&
		grep -Eq '^TIME\\(s\\) +TIME +COMM +TID D +BYTES +LAT\\(ms\\) FILENAME\$' '$TMP/out'"
	check "fileslower -a (the machine): the other program's slow calls too" sh -c "
		[ \$(grep -Ec ' $P_b [RW] .* $TMP/b/(slow|fifo)' '$TMP/out') -eq $((n + 2)) ]"
	if [ -n "$BT" ]; then
		wait_exit $BT 20 || notok "bpftrace ends with the process"
		BTN=$(sed -n 's/^@slow: //p' "$TMP/bt.out")
		FSN=$(grep -c " $P_a [RW] " "$TMP/out")
		check "fileslower -a: as many slow calls of the program as bpftrace counts on the same tracepoints ($FSN, ${BTN:-0})" [ "$FSN" = "${BTN:-0}" ]
	elif [ -z "$BTRACE" ]; then
		skip "fileslower beside bpftrace: bpftrace not installed"
	fi
fi
BTRACE=
if run 0 -p PID -j; then
	check "fileslower 0: every call, the 20 fast pwrites and 20 fast preads of the file among them; valid JSON" sh -c "
		[ $RC -eq 0 ] && '$JSONCHECK' '$TMP/out' $KEYS > /dev/null &&
		[ \$(grep -c '\"call\":\"pwrite64\",\"fd\":[0-9]*,\"bytes\":100,' '$TMP/out') -eq 20 ] &&
		[ \$(grep -c '\"call\":\"pread64\",\"fd\":[0-9]*,\"bytes\":100,' '$TMP/out') -eq 20 ]"
fi
for bad in "x" "-- -1" "10 20" "-p 0" "--via x" "-d 0" "-m 5"; do
	"$BIN/fileslower" $bad > "$TMP/out" 2> "$TMP/err"
	check "fileslower $bad: usage error (exit 2), one line" sh -c \
		"[ $? -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q '^fileslower: ' '$TMP/err'"
done
check "after every run: tracefs as before" same_state
summary
