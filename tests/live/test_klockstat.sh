#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of klockstat: real contention on one kernel lock (tests/live/lock_target.c: eight
# writer and eight reader threads on one pipe, whose mutex they wait for), traced by three
# runs at once (-j, text, --folded) and, where bpftrace is installed, by a bpftrace one-liner
# counting the same process's contention_begin and contention_end: the waits klockstat pairs
# are exactly the ends bpftrace counts, each run counts the same waits, per lock and per caller
# alike, the callers are the pipe's read and write, the lock's flags say MUTEX, the folded
# stacks weigh the total wait; usage errors; every way of stopping.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

LT=${LOCK_TARGET:-$BIN/tests/lock_target}
JSONCHECK=${JSONCHECK:-$BIN/tests/jsoncheck}

if [ ! -d "$T/events/lock/contention_begin" ]; then
	skip "klockstat: no lock:contention_begin in this kernel (Linux 5.19)"
	"$BIN/klockstat" -d 1 > "$TMP/out" 2> "$TMP/err"
	check "klockstat without the lock events: exit 1 naming Linux 5.19" sh -c \
		"[ $? -eq 1 ] && grep -q 'lock:contention_begin and contention_end in this kernel (Linux 5.19)' '$TMP/err'"
	check "klockstat without the lock events: tracefs as before" same_state
	summary
	exit $?
fi

need_programs "$LT"
"$LT" 8 20000 > "$TMP/lock" &
LP=$!
wait_line "$TMP/lock" '^lock ' 10 || notok "the test program starts"
run() { # run NAME ARGS...: klockstat -p of the test program in the background
	n=$1; shift
	rm -f "$TMP/$n.out" "$TMP/$n.err"
	"$BIN/klockstat" "$@" -p $LP > "$TMP/$n.out" 2> "$TMP/$n.err" &
	eval "K_$n=$!"
	wait_ready $! "$TMP/$n.err" || notok "klockstat $* starts: $(head -2 "$TMP/$n.err")"
}
run json -j --top 0
run text --top 0
run folded --folded
BT=
if command -v bpftrace > /dev/null 2>&1; then
	# (ready from BEGIN, which bpftrace runs once its probes are attached: its "Attaching"
	# line comes before, and a run started on it missed the first wait now and then)
	bpftrace -e "
		tracepoint:lock:contention_begin /pid == $LP/ { @begins = count(); }
		tracepoint:lock:contention_end /pid == $LP/ { @ends = count(); }
		tracepoint:sched:sched_process_exit /pid == $LP && tid == $LP/ { exit(); }
		$BT_READY" \
		> "$TMP/bt.out" 2> "$TMP/bt.err" &
	BT=$!
	wait_line "$TMP/bt.out" '^ready' 30 || { notok "bpftrace starts" "$TMP/bt.err"; BT=; }
fi
kill -USR1 $LP
wait $LP
check "the test program ran its 16 threads to the end" grep -qx done "$TMP/lock"
for n in json text folded; do
	eval "p=\$K_$n"
	wait_exit $p 15 || notok "klockstat ($n) ends with its -p process"
	check "klockstat ($n) -p: exit 0 when the process has ended" [ "$RC" = 0 ]
done

check "klockstat -j: valid JSON" sh -c "'$JSONCHECK' '$TMP/json.out' time count total_ns max_ns avg_ns > /dev/null"
# Sums of count and total_ns over the lock rows and over the caller rows.
sum() { grep "\"$1\"" "$TMP/json.out" | sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p" | awk '{ s += $1 } END { printf "%.0f\n", s }'; }
LOCKS=$(sum lock_addr count) CALLERS=$(sum caller count)
# Two counts of the program's waits are equal but for those of its exit: a run counts until it
# sees the process gone and bpftrace until the main thread's sched_process_exit, and the exit
# path can wait on a lock after it (runs 1 or 2 apart in about half the runs here, with the
# builds before and after 58a8af2; 26,663 against 26,662 ends with the tools started 2 s before
# the workload). near A B: within 2.
near() { [ "$1" -le $(($2 + 2)) ] && [ "$2" -le $(($1 + 2)) ]; }
LNS=$(sum lock_addr total_ns) CNS=$(sum caller total_ns)
echo "# klockstat: $LOCKS waits by lock, $CALLERS by caller, $LNS ns"
check "klockstat: contention seen ($LOCKS waits)" [ "$LOCKS" -gt 0 ]
check "klockstat: the same waits by lock and by caller ($LOCKS, $CALLERS; $LNS ns, $CNS ns)" \
	[ "$LOCKS" = "$CALLERS" ] && [ "$LNS" = "$CNS" ]
check "klockstat: the pipe's write and read among the callers" sh -c \
	"grep -q '\"caller\":\"[a-z_]*pipe_write+' '$TMP/json.out' && grep -q '\"caller\":\"[a-z_]*pipe_read+' '$TMP/json.out'"
check "klockstat: the largest lock's flags say MUTEX (the pipe's mutex)" sh -c \
	"grep '\"lock_addr\"' '$TMP/json.out' | head -1 | grep -q '\"flags\":\"[A-Z|]*MUTEX'"
TEXTN=$(sed -n '/^LOCK /,/^$/p' "$TMP/text.out" | awk '$3 ~ /^[0-9]+$/ { s += $3 } END { print s + 0 }')
# (exact where neither run's buffer overflowed; under the sanitizers or a loaded machine a
# run can lose events, said, and count fewer: then each is at most the kernel's, below)
lost() { grep -q 'events were lost in all' "$TMP/$1.err"; }
if lost text || lost json; then
	check "klockstat text and -j: waits counted, their losses said ($TEXTN, $LOCKS)" \
		[ "$TEXTN" -gt 0 -a "$LOCKS" -gt 0 ]
else
	check "klockstat text: the same waits as -j in another instance, but for the exit's ($TEXTN, $LOCKS)" near "$TEXTN" "$LOCKS"
fi
check "klockstat text: both tables" sh -c "grep -q '^LOCK ' '$TMP/text.out' && grep -q '^CALLER ' '$TMP/text.out'"
FOLDNS=$(awk '{ s += $NF } END { printf "%.0f\n", s }' "$TMP/folded.out")
# (each run's instance stamps the same events itself, after the other instances' events and
# their stacks: two runs' totals differ by what the others' stacks cost, up to 2x under load;
# the counts agree exactly): the lines weigh what the run says they weigh, its waits are -j's
set -- $(sed -n 's/^klockstat: \([0-9]*\) waits, the folded lines weigh \([0-9]*\) ns.*/\1 \2/p' "$TMP/folded.err") - -
# (fewer where its buffer overflowed, said: a stack costs more to fold than to name a caller)
# (and but for the exit's: near)
# (-j's run short of events too: the two lost different ones, not compared here; each is at
# most bpftrace's below. SANITIZE=1's make check had 19,510 against 18,107, both short.)
if lost json; then cmp="(both short of events) beside"
elif grep -q 'events were lost in all' "$TMP/folded.err"; then cmp="fewer than"; else cmp="near"; fi
waits_ok=no FOLDW=$1
case $1 in *[!0-9]* | '') ;; *)
	case $cmp in near) near "$1" "$LOCKS" && waits_ok=yes ;; fewer*) [ "$1" -le "$LOCKS" ] && waits_ok=yes ;;
	*) [ "$1" -gt 0 ] && waits_ok=yes ;; esac ;;
esac
check "klockstat --folded: the stacks weigh what the run says ($FOLDNS ns, $2 ns), its waits -j's ($1 $cmp $LOCKS)" \
	sh -c "[ '$FOLDNS' = '$2' ] && [ $waits_ok = yes ] && [ '$FOLDNS' -gt 0 ]" || sed 's/^/# /' "$TMP/folded.err"
check "klockstat --folded: the writers' stacks through the pipe's write" \
	grep -q '^lockt-writer;.*pipe_write' "$TMP/folded.out"
if [ -n "$BT" ]; then
	wait_exit $BT 20 || notok "bpftrace ends with the process"
	BEGINS=$(sed -n 's/^@begins: //p' "$TMP/bt.out") ENDS=$(sed -n 's/^@ends: //p' "$TMP/bt.out")
	echo "# bpftrace: $BEGINS contention_begin, $ENDS contention_end"
	if lost text || lost json; then
		# (at most 2 more: the waits that end as the probes go, as below; CI had 34283
		# against 34282)
		check "klockstat's waits at most bpftrace's contention_end count (but for the exit's), events lost said ($LOCKS, $TEXTN, --folded $FOLDW; $ENDS)" \
			[ "$LOCKS" -le $((${ENDS:-0} + 2)) -a "$TEXTN" -le $((${ENDS:-0} + 2)) -a "${FOLDW:-x}" -le $((${ENDS:-0} + 2)) ]
	else
		check "klockstat's waits are bpftrace's contention_end count, but for the exit's ($LOCKS, $ENDS)" near "$LOCKS" "${ENDS:-0}"
	fi
else
	skip "side by side with bpftrace: not installed"
fi

bad() { # bad EXPECTED-TEXT ARGS...
	want=$1; shift
	"$BIN/klockstat" "$@" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q -- "$want" "$TMP/err" &&
		[ ! -s "$TMP/out" ]; then
		ok "bad input: klockstat $* -> exit 2, '$want'"
	else
		echo "# exit $rc" > "$TMP/why"; cat "$TMP/err" >> "$TMP/why"
		notok "bad input: klockstat $* -> exit 2, '$want'" "$TMP/why"
	fi
}
bad "not with -j" --folded -j
bad "no interval" --folded 1
bad "invalid N (rows): 'x'" --top x
bad "invalid interval: 0" 0
bad "unknown option" -Z
check "bad input changed nothing in tracefs" same_state

# An end by count: two tables, exit 0.
"$BIN/klockstat" 0.2 2 > "$TMP/out" 2> "$TMP/err"
check "klockstat 0.2 2: two tables, exit 0" sh -c "[ $? -eq 0 ] && [ \$(grep -c '^LOCK ' '$TMP/out') -eq 2 ]"

stop_cases "klockstat" "$BIN/klockstat" 0.3

check "at the end: tracefs as it was" same_state
summary
