#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of tcptop on loopback, against the TCP tools' test program (tcp_target.c): three
# connections over IPv4, IPv6 and v4-mapped IPv6 with known bytes each way, and one made
# before tracing began whose client only sends (named from /proc): every row's ends, process
# and bytes exact, summed over the intervals; -4, -6, -p and -n keep exactly theirs; the text
# table's KiB; usage errors; an end by count; every way of stopping.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

TT=${TCP_TARGET:-$BIN/tests/tcp_target}
need_programs "$TT"
JSONCHECK=${JSONCHECK:-$BIN/tests/jsoncheck}

if [ ! -d "$T/events/sock/sock_send_length" ] && [ ! -w "$T/kprobe_events" ]; then
	skip "tcptop: no sock:sock_send_length (Linux 6.3) and no kprobes (CONFIG_KPROBE_EVENTS)"
	"$BIN/tcptop" 1 1 > "$TMP/out" 2> "$TMP/err"
	check "tcptop without either: exit 1 naming sock_send_length (Linux 6.3)" sh -c \
		"[ $? -eq 1 ] && grep -q 'sock:sock_send_length in this kernel (Linux 6.3)' '$TMP/err'"
	check "tcptop without either: tracefs as before" same_state
	summary
	exit $?
fi

P4=$((24000 + ($$ % 2000) * 4))
P6=$((P4 + 1)) PE=$((P4 + 2)) PH=$((P4 + 3))
TX=100000 RX=300000 TXE=123456

# bg NAME ARGS...: tcptop in the background, ready; its PID in $BG_NAME.
bg() {
	n=$1; shift
	rm -f "$TMP/$n.out" "$TMP/$n.err"
	"$BIN/tcptop" "$@" > "$TMP/$n.out" 2> "$TMP/$n.err" &
	eval "BG_$n=$!"
	wait_ready $! "$TMP/$n.err" || notok "tcptop $* starts: $(head -2 "$TMP/$n.err")"
}

# The early connection is made before any tool starts; the three others wait for the go.
rm -f "$TMP/go"
"$TT" "$TMP/go" early $PE $TXE 3000 > "$TMP/early" &
EPID=$!
"$TT" "$TMP/go" conn $P4 $P6 $TX $RX 100 > "$TMP/conn" &
TTPID=$!
"$TT" "$TMP/go" halfclose $PH 5000 4321 > "$TMP/half" &
HPID=$!
wait_line "$TMP/early" '^early ' 10 || notok "the early connection is made"
# Intervals of 0.5 s: the early client sends, then waits 3 s before it closes, so a table is
# printed while it is a sender that neither received nor changed state. The early server,
# which waits for that close, is the last to end: -p watches it.
bg all -j -C 0.5
bg v4 -j -4 30
bg v6 -j -6 30
bg pid -j -p $EPID 30
bg name -j -n 'tcpt-c*' 30
bg text -C 30
touch "$TMP/go"
wait $TTPID
wait $HPID
wait $EPID
# All stopped at once: before Linux 5.9 a run reading its buffers holds every instance, so
# runs that end apart cannot remove theirs (the -p run ends with its process, just before;
# it waits 2 s for the others).
for n in all v4 v6 name text; do eval "kill -INT \$BG_$n"; done
for n in all v4 v6 name text; do
	eval "p=\$BG_$n"
	wait_exit $p 10 || notok "tcptop ($n) stopped within 10 s"
	[ "$RC" = 0 ] || notok "tcptop ($n) exit $RC" "$TMP/$n.err"
done
wait_exit $BG_pid 10 && check "tcptop -p: the run ends when the process does, exit 0" [ "$RC" = 0 ]

# Rows summed over the intervals: "PID IP LADDR LPORT RADDR RPORT TX RX" per line.
sums() {
	sed -n 's/.*"pid":\([0-9]*\),.*"ip":\([0-9]*\),"laddr":"\{0,1\}\([^",]*\)"\{0,1\},"lport":\([0-9a-z]*\),"raddr":"\{0,1\}\([^",]*\)"\{0,1\},"rport":\([0-9a-z]*\),"tx_bytes":\([0-9]*\),"rx_bytes":\([0-9]*\).*/\1 \2 \3 \4 \5 \6 \7 \8/p' "$1" |
		awk '{ k = $1 " " $2 " " $3 " " $4 " " $5 " " $6; tx[k] += $7; rx[k] += $8 }
		END { for (k in tx) print k, tx[k], rx[k] }' | sort
}
sums "$TMP/all.out" > "$TMP/all.sums"
check "tcptop -j: valid JSON" sh -c "'$JSONCHECK' '$TMP/all.out' pid comm ip laddr lport raddr rport tx_bytes rx_bytes time > /dev/null"

# conn FAMILY CLIENT_PID SERVER_PID CLIENT_ADDR CLIENT_PORT SERVER_ADDR SERVER_PORT
: > "$TMP/want.client"
: > "$TMP/want.server"
while read -r _ fam cpid spid caddr cport saddr sport; do
	what="IPv$fam $caddr:$cport -> $saddr:$sport"
	client="$cpid $fam $caddr $cport $saddr $sport $TX $RX"
	server="$spid $fam $saddr $sport $caddr $cport $RX $TX"
	echo "$client" >> "$TMP/want.client"
	echo "$server" >> "$TMP/want.server"
	check "tcptop: $what, the client's row: sent $TX, received $RX" grep -qxF "$client" "$TMP/all.sums"
	check "tcptop: $what, the server's row: sent $RX, received $TX" grep -qxF "$server" "$TMP/all.sums"
done < "$TMP/conn"
[ "$(wc -l < "$TMP/conn")" -eq 3 ] || notok "three connections made: $(cat "$TMP/conn")"

# The early connection: the server's side named on its receives, the client's (a sender
# only, made before tracing) from /proc.
read -r _ ecpid espid eport < "$TMP/early"
check "tcptop: the connection made before tracing, the client's row (named from /proc): sent $TXE" \
	grep -qxF "$ecpid 4 127.0.0.1 $eport 127.0.0.1 $PE $TXE 0" "$TMP/all.sums"
check "tcptop: the connection made before tracing, the server's row: received $TXE" \
	grep -qxF "$espid 4 127.0.0.1 $PE 127.0.0.1 $eport 0 $TXE" "$TMP/all.sums"

# A client that shut its side down and read the server's answer after the server's FIN
# (its socket CLOSE by then): one connection, one row in the run's one table (the bytes
# read after CLOSE were another row, as if a new connection, before).
read -r _ hpid hport < "$TMP/half"
check "tcptop: a half-closed connection's client, one row: sent 5000, received 4321" sh -c "
	[ \$(grep -c '\"pid\":$hpid,.*\"lport\":$hport,' '$TMP/v4.out') -eq 1 ] &&
	grep -q '\"pid\":$hpid,.*\"lport\":$hport,.*\"tx_bytes\":5000,\"rx_bytes\":4321' '$TMP/v4.out'" ||
	grep "\"pid\":$hpid," "$TMP/v4.out" | sed 's/^/# /'

# Filters: each run's rows on these ports are exactly the ones it keeps.
ours() { grep -E " ($P4|$P6|$PE) " "$1" | sort; }
sums "$TMP/v4.out" > "$TMP/v4.sums"
sums "$TMP/v6.out" > "$TMP/v6.sums"
sums "$TMP/pid.out" > "$TMP/pid.sums"
sums "$TMP/name.out" > "$TMP/name.sums"
ours "$TMP/all.sums" | awk '$2 == 4' > "$TMP/want.v4"
ours "$TMP/all.sums" | awk '$2 == 6' > "$TMP/want.v6"
for n in v4 v6 pid name; do ours "$TMP/$n.sums" > "$TMP/$n.ours"; done
read -r _ ecpid espid eport < "$TMP/early"
echo "$espid 4 127.0.0.1 $PE 127.0.0.1 $eport 0 $TXE" > "$TMP/want.pid"
sort "$TMP/want.client" > "$TMP/want.name"
check "tcptop -4: the six IPv4 rows (v4-mapped included), no other" sh -c \
	"[ \$(wc -l < '$TMP/want.v4') -eq 6 ] && cmp -s '$TMP/v4.ours' '$TMP/want.v4'"
check "tcptop -6: the two IPv6 rows, no other" sh -c \
	"[ \$(wc -l < '$TMP/want.v6') -eq 2 ] && cmp -s '$TMP/v6.ours' '$TMP/want.v6'"
check "tcptop -p (the early server): its row only" cmp -s "$TMP/pid.ours" "$TMP/want.pid"
check "tcptop -n 'tcpt-c*': the client's three rows only" cmp -s "$TMP/name.ours" "$TMP/want.name"

# The text table: KiB with one decimal, IPv6 in brackets, no escape code into a file.
read -r _ _ cpid spid caddr cport saddr sport < "$TMP/conn"
check "tcptop text: the IPv4 client's row, 97.7 KiB sent, 293.0 received" \
	grep -qE "^$cpid +tcpt-client +4 127\.0\.0\.1:$cport +127\.0\.0\.1:$P4 +97\.7 +293\.0\$" "$TMP/text.out"
check "tcptop text: the IPv6 server's row in brackets" \
	grep -qE "^[0-9]+ +tcpt-server +6 \[::1\]:$P6 +\[::1\]:[0-9]+ +293\.0 +97\.7\$" "$TMP/text.out"
check "tcptop text: no escape code written to a file" sh -c "! grep -q \"\$(printf '\\033')\" '$TMP/text.out'"

# An end by count: two tables, exit 0.
"$BIN/tcptop" -C 0.2 2 > "$TMP/out" 2> "$TMP/err"
check "tcptop 0.2 2: two tables, exit 0" sh -c "[ $? -eq 0 ] && [ \$(grep -c '^PID ' '$TMP/out') -eq 2 ]"

bad() { # bad EXPECTED-TEXT ARGS...
	want=$1; shift
	"$BIN/tcptop" "$@" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q -- "$want" "$TMP/err" &&
		[ ! -s "$TMP/out" ]; then
		ok "bad input: tcptop $* -> exit 2, '$want'"
	else
		echo "# exit $rc" > "$TMP/why"; cat "$TMP/err" >> "$TMP/why"
		notok "bad input: tcptop $* -> exit 2, '$want'" "$TMP/why"
	fi
}
bad "-4 and -6 exclude each other" -4 -6
bad "invalid MAXROWS: 'x'" -r x
bad "invalid PID: 'abc'" -p abc
bad "no such process: 999999999" -p 999999999
bad "invalid interval: 0" 0
bad "unexpected argument: '3'" 1 2 3
check "bad input changed nothing in tracefs" same_state

stop_cases "tcptop" "$BIN/tcptop" 0.3

check "at the end: tracefs as it was" same_state
summary
