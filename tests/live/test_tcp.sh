#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of the TCP tools (tcpconnect, tcpaccept, tcplife, tcpstates, tcpretrans,
# tcpdrop) on loopback, against a test program that says what it did
# (tests/live/tcp_target.c): three connections over IPv4, IPv6 and v4-mapped IPv6 with known
# bytes and lifetimes, each tool's row exact (addresses, ports, process, name at the time,
# bytes, states in order); connects refused by a port without a listener (two drops, with
# their ends from the resets); a listener whose full queue refuses a SYN (retransmitted:
# the kernel's ListenDrops counter says so, and it is no drop); data dropped by nftables
# where nft is installed (retransmits counted exactly as /proc/net/snmp, and as bpftrace
# where it is installed); a connect whose SYNs nftables drops on output (tcpdrop: each drop
# with its ends and SYN_SENT, as bpftrace reads them from the packet's socket where it is
# installed); hostile names; usage errors; every way of stopping.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

TT=${TCP_TARGET:-$BIN/tests/tcp_target}
need_programs "$TT"
HAVE_KPROBES=
[ -w "$T/kprobe_events" ] && HAVE_KPROBES=1
# Before 4.15/4.16 the tools take kprobes on tcp_set_state and tcp_retransmit_skb.
HAVE_STATES=1
[ -d "$T/events/sock/inet_sock_set_state" ] || [ -d "$T/events/tcp/tcp_set_state" ] ||
	[ -n "$HAVE_KPROBES" ] || HAVE_STATES=
HAVE_RETRANS=1
[ -d "$T/events/tcp/tcp_retransmit_skb" ] || [ -n "$HAVE_KPROBES" ] || HAVE_RETRANS=
HAVE_BYTES=1
[ -d "$T/events/sock/sock_send_length" ] || HAVE_BYTES=
HAVE_REASON=
grep -q 'field:.* reason;' "$T/events/skb/kfree_skb/format" 2>/dev/null && HAVE_REASON=1
# tcp_send_reset with the packet's sockaddrs (6.2): the ends of a drop for a closed port.
HAVE_RESET_SKB=
grep -q 'field:__u8 saddr\[28\]' "$T/events/tcp/tcp_send_reset/format" 2>/dev/null && HAVE_RESET_SKB=1
# tcp_retransmit_skb of failed retransmits too, with err (6.17): the ends of a retransmitted
# packet dropped on output.
HAVE_RETRANS_ERR=
grep -q 'field:int err;' "$T/events/tcp/tcp_retransmit_skb/format" 2>/dev/null && HAVE_RETRANS_ERR=1

# Ports of this run (another run of the suite may be on the machine).
P4=$((20000 + ($$ % 2000) * 8))
P6=$((P4 + 1)) PREF=$((P4 + 2)) PSRC=$((P4 + 3)) PBL=$((P4 + 4)) PRT=$((P4 + 5))
PSYN=$((P4 + 6)) PSS=$((P4 + 7))
TX=1000 RX=300000 HOLD=150

# bg NAME CMD...: a tool in the background, ready; its PID in $BG_NAME.
bg() {
	n=$1; shift
	rm -f "$TMP/$n.out" "$TMP/$n.err"
	"$@" > "$TMP/$n.out" 2> "$TMP/$n.err" &
	eval "BG_$n=$!"
	wait_ready $! "$TMP/$n.err" || notok "$n starts: $(head -2 "$TMP/$n.err")"
}
# stop NAME...: Ctrl-C to each, after their last events; exit 0 expected.
stop() {
	sleep 0.5
	for n in "$@"; do eval "kill -INT \$BG_$n" 2>/dev/null; done
	for n in "$@"; do
		eval "p=\$BG_$n"
		wait_exit $p 10 || notok "$n stopped within 10 s"
		[ "$RC" = 0 ] || notok "$n exit $RC: $(head -3 "$TMP/$n.err")"
	done
}
# The value of key in a JSON line on stdin (strings without their quotes).
val() { sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\).*/\1/p"; }
jcheck() { "$JSONCHECK" "$@" > "$TMP/jc" 2>&1 || { cat "$TMP/jc"; return 1; }; }

if [ -z "$HAVE_STATES" ]; then
	skip "connections: no sock:inet_sock_set_state (Linux 4.16) or tcp:tcp_set_state (4.15)"
	for tool in tcpconnect tcpaccept tcplife tcpstates; do
		"$BIN/$tool" -d 1 > "$TMP/out" 2> "$TMP/err"
		check "$tool without state changes or kprobes: exit 1 naming inet_sock_set_state (Linux 4.16)" \
			sh -c "[ $? -eq 1 ] && grep -q 'inet_sock_set_state, Linux 4.16' '$TMP/err'"
	done
else
	# --- three connections, every tool at once --------------------------------------
	rm -f "$TMP/go"
	"$TT" "$TMP/go" conn $P4 $P6 $TX $RX $HOLD > "$TMP/conn" &
	TTPID=$!
	bg connect "$BIN/tcpconnect" -j -P $P4,$P6
	bg accept "$BIN/tcpaccept" -j -P $P4,$P6
	# Both sides: unfiltered (the client's local ports are ephemeral), its lines by port.
	bg life "$BIN/tcplife" -j
	bg lifep "$BIN/tcplife" -j -p $TTPID
	bg states "$BIN/tcpstates" -j
	bg text "$BIN/tcpconnect" -t -P $P4,$P6
	touch "$TMP/go"
	wait $TTPID
	check "the test program made its three connections" [ "$(grep -c '^conn ' "$TMP/conn")" -eq 3 ]
	stop connect accept life states text
	wait_exit $BG_lifep 10 && check "tcplife -p: the run ends when the process does, exit 0" [ "$RC" = 0 ]
	SPID=$TTPID
	CPID=$(awk 'NR == 1 {print $3}' "$TMP/conn")
	i=0
	while read -r _ ip cpid spid caddr cport saddr sport; do
		i=$((i + 1))
		what="connection $i (IPv$ip $caddr:$cport -> $saddr:$sport)"
		check "tcpconnect: $what, by tcpt-client (PID $cpid), ESTABLISHED" \
			grep -q "\"pid\":$cpid,\"tid\":$cpid,\"comm\":\"tcpt-client\",\"ip\":$ip,\"saddr\":\"$caddr\",\"sport\":$cport,\"daddr\":\"$saddr\",\"dport\":$sport,\"state\":\"ESTABLISHED\"" "$TMP/connect.out"
		check "tcpconnect text: $what" grep -Eq "^[0-9.]+ +$cpid tcpt-client +$ip $caddr +$cport $saddr +$sport\$" "$TMP/text.out"
		if [ -n "$HAVE_KPROBES" ]; then
			who="accepted by tcpt-server (PID $spid, thread $spid: kprobe)"
			pat="\"pid\":$spid,\"tid\":$spid,\"comm\":\"tcpt-server\""
		else
			who="under the listener tcpt-server (PID $spid)"
			pat="\"pid\":$spid,\"tid\":null,\"comm\":\"tcpt-server\""
		fi
		check "tcpaccept: $what, $who" \
			grep -q "$pat,\"ip\":$ip,\"raddr\":\"$caddr\",\"rport\":$cport,\"laddr\":\"$saddr\",\"lport\":$sport," "$TMP/accept.out"
		if [ -n "$HAVE_BYTES" ]; then ctx="\"tx_bytes\":$TX,\"rx_bytes\":$RX" stx="\"tx_bytes\":$RX,\"rx_bytes\":$TX" b="$TX/$RX bytes"
		else ctx="\"tx_bytes\":null,\"rx_bytes\":null" stx=$ctx b="bytes not known (no sock:sock_send_length, Linux 6.3)"; fi
		check "tcplife: $what, the client's side: tcpt-client, $b" \
			grep -q "\"pid\":$cpid,\"tid\":$cpid,\"comm\":\"tcpt-client\",\"ip\":$ip,\"laddr\":\"$caddr\",\"lport\":$cport,\"raddr\":\"$saddr\",\"rport\":$sport,$ctx," "$TMP/life.out"
		check "tcplife: $what, the server's side: tcpt-server, the other way" \
			grep -q "\"pid\":$spid,\"tid\":$spid,\"comm\":\"tcpt-server\",\"ip\":$ip,\"laddr\":\"$saddr\",\"lport\":$sport,\"raddr\":\"$caddr\",\"rport\":$cport,$stx," "$TMP/life.out"
		dur=$(grep "\"lport\":$cport," "$TMP/life.out" | val dur_ms)
		check "tcplife: $what lived at least the ${HOLD} ms it was held, under 5 s ($dur)" \
			awk -v d="$dur" -v h=$HOLD 'BEGIN { exit !(d >= h && d < 5000) }'
		sk=$(grep "\"lport\":$cport,.*\"newstate\":\"ESTABLISHED\"" "$TMP/states.out" | val skaddr)
		# This connection's: its own port's changes, after the last change with no port yet
		# (connect() before a port is picked) that came before them. A socket's address is
		# reused by other connections, before and after, and so is the way to the server.
		seq=$(grep "\"skaddr\":\"$sk\"" "$TMP/states.out" | grep -E "\"lport\":($cport|0),\"raddr\":\"$saddr\",\"rport\":$sport," |
			sed 's/.*"lport":\([0-9]*\),.*"oldstate":"\([A-Z_0-9]*\)","newstate":"\([A-Z_0-9]*\)".*/\1 \2>\3/' |
			awk -v p=$cport '$1 == 0 { if (on) exit; pend = $2 " "; next } { if (!on) out = pend; on = 1; out = out $2 " " } END { printf "%s", out }')
		check "tcpstates: $what, the client's socket: every change, in order ($seq)" \
			[ "$seq" = "CLOSE>SYN_SENT SYN_SENT>ESTABLISHED ESTABLISHED>FIN_WAIT1 FIN_WAIT1>FIN_WAIT2 FIN_WAIT2>CLOSE " ]
		held=$(grep "\"skaddr\":\"$sk\".*\"newstate\":\"FIN_WAIT1\"" "$TMP/states.out" | val ms)
		check "tcpstates: ESTABLISHED for at least the ${HOLD} ms ($held)" \
			awk -v d="$held" -v h=$HOLD 'BEGIN { exit !(d >= h && d < 5000) }'
		check "tcpstates: the server's LAST_ACK in its own close(2): tcpt-server, context task" \
			grep -q "\"pid\":$spid,\"comm\":\"tcpt-server\",\"context\":\"task\",\"ip\":$ip,\"laddr\":\"$saddr\",\"lport\":$sport,\"raddr\":\"$caddr\",\"rport\":$cport,\"oldstate\":\"CLOSE_WAIT\",\"newstate\":\"LAST_ACK\"" "$TMP/states.out"
	done < "$TMP/conn"
	check "tcpconnect: exactly the three connects, valid JSON" sh -c \
		"[ \$(wc -l < '$TMP/connect.out') -eq 3 ] && '$JSONCHECK' '$TMP/connect.out' pid comm ip saddr sport daddr dport"
	check "tcpaccept: exactly three, valid JSON" sh -c \
		"[ \$(wc -l < '$TMP/accept.out') -eq 3 ] && '$JSONCHECK' '$TMP/accept.out' pid comm ip raddr rport laddr lport"
	n=$(grep -Ec "\"(lport|rport)\":($P4|$P6)," "$TMP/life.out")
	check "tcplife: exactly six sessions on the ports (both sides of three: $n)" [ "$n" -eq 6 ] ||
		sed 's/^/#   /' "$TMP/life.out" | head -20
	check "tcplife: valid JSON" jcheck "$TMP/life.out" pid comm laddr lport raddr rport dur_ms
	check "tcplife -p (the server): its three sides only" sh -c \
		"[ \$(grep -c '\"pid\":$SPID,' '$TMP/lifep.out') -eq 3 ] && [ \$(wc -l < '$TMP/lifep.out') -eq 3 ]"
	check "tcpstates: valid JSON" jcheck "$TMP/states.out" skaddr pid comm context oldstate newstate ms
	check "the client renamed itself after: no line names it so" sh -c \
		"! grep -h tcpt-renamed '$TMP/connect.out' '$TMP/life.out' '$TMP/states.out'"

	# --- a hostile name: text escaped, JSON exact ---------------------------------------
	rm -f "$TMP/go"
	"$TT" "$TMP/go" conn $P4 $P6 10 10 0 "$(printf 'a\nb\033[2J\t')" > "$TMP/conn" &
	TTPID=$!
	bg connect "$BIN/tcpconnect" -j -P $P4
	bg text "$BIN/tcpconnect" -P $P4
	touch "$TMP/go"
	wait $TTPID
	stop connect text
	check "tcpconnect -j: a name with a newline, an escape and a tab, exact" \
		grep -q '"comm":"a\\nb\\u001b\[2J\\t"' "$TMP/connect.out"
	check "tcpconnect text: the name escaped in one token, no control character" sh -c \
		"[ \$(wc -l < '$TMP/text.out') -eq 3 ] && ! grep -q \"\$(printf '\\033')\" '$TMP/text.out' && [ \$(grep -cF ' a\\x0ab\\x1b[2J\\x09 ' '$TMP/text.out') -eq 2 ]"

	# --- a port where nothing listens: refused, and dropped ---------------------------
	rm -f "$TMP/go"
	"$TT" "$TMP/go" refused $PREF $PSRC > "$TMP/ref" &
	TTPID=$!
	bg connect "$BIN/tcpconnect" -j -P $PREF
	bg drop "$BIN/tcpdrop" -j
	touch "$TMP/go"
	wait $TTPID
	stop connect drop
	RPID=$(awk 'NR == 1 {print $3}' "$TMP/ref")
	check "refused: both connects failed with ECONNREFUSED" [ "$(grep -c " $PSRC 111\$" "$TMP/ref")" -eq 2 ]
	for ip in 4 6; do
		[ $ip = 4 ] && a=127.0.0.1 || a=::1
		check "tcpconnect: the refused IPv$ip connect from port $PSRC, state CLOSE" \
			grep -q "\"pid\":$RPID,.*\"ip\":$ip,\"saddr\":\"$a\",\"sport\":$PSRC,\"daddr\":\"$a\",\"dport\":$PREF,\"state\":\"CLOSE\"" "$TMP/connect.out"
		# Received in the connect's task (loopback's softirq run as it sends), or by
		# ksoftirqd: until 2023 ('softirq: Let ksoftirqd do its job', 4.9, reverted) a
		# softirq raised while ksoftirqd is runnable is left to it, as 5.10 under load does.
		line=$(grep -E "\"pid\":($RPID,|[0-9]+,\"comm\":\"ksoftirqd/[0-9]+\",).*\"ip\":$ip,.*\"location\":\"tcp_v${ip}_rcv" "$TMP/drop.out")
		check "tcpdrop: the IPv$ip SYN dropped at tcp_v${ip}_rcv, once" [ "$(echo "$line" | grep -c .)" -eq 1 ]
		# No socket received it: not the state of the connect's socket (SYN_SENT) that
		# sent it, whose thread it was dropped in.
		check "tcpdrop: its state null (no socket received it), not the connecting socket's" \
			sh -c "echo '$line' | grep -q '\"state\":null,'"
		if [ -n "$HAVE_REASON" ]; then
			check "tcpdrop: its reason NO_SOCKET" sh -c "echo '$line' | grep -q '\"reason\":\"NO_SOCKET\"'"
		else
			skip "tcpdrop: drop reasons (skb:kfree_skb's reason, Linux 5.17)"
		fi
		if [ -n "$HAVE_RESET_SKB" ]; then
			check "tcpdrop: its ends from the reset sent for it: $a:$PREF <- $a:$PSRC" sh -c \
				"echo '$line' | grep -q '\"laddr\":\"$a\",\"lport\":$PREF,\"raddr\":\"$a\",\"rport\":$PSRC,'"
		else
			skip "tcpdrop: the ends of a drop for a closed port (tcp:tcp_send_reset with the packet's addresses, Linux 6.2)"
		fi
	done
	check "tcpdrop: valid JSON" jcheck "$TMP/drop.out" pid comm ip reason location

	# --- a full accept queue: the SYN refused and retransmitted, not a drop -----------------
	if [ -n "$HAVE_RETRANS" ]; then
		ld() { awk '/^TcpExt:/ { if (!h) { split($0, k); h = 1 } else { split($0, v);
			for (i in k) if (k[i] == "ListenDrops") print v[i] } }' /proc/net/netstat; }
		before=$(ld)
		rm -f "$TMP/go"
		"$TT" "$TMP/go" backlog $PBL 1400 > "$TMP/bl" &
		TTPID=$!
		bg retrans "$BIN/tcpretrans" -j
		bg drop "$BIN/tcpdrop" -j
		touch "$TMP/go"
		wait $TTPID
		stop retrans drop
		after=$(ld)
		S2=$(awk '{print $3}' "$TMP/bl")
		n=$(grep -c "\"lport\":$S2,\"type\":\"R\",\"raddr\":\"127.0.0.1\",\"rport\":$PBL,\"state\":\"SYN_SENT\"" "$TMP/retrans.out")
		check "tcpretrans: the third client's SYN retransmitted in SYN_SENT, once in 1.4 s ($n)" [ "$n" -eq 1 ]
		check "the kernel counted the refused SYNs in ListenDrops ($before -> $after)" [ "$after" -gt "$before" ]
		check "tcpdrop: no drop for it (the kernel consumes a SYN a full queue refuses)" sh -c \
			"! grep -q '\"lport\":$PBL,' '$TMP/drop.out'"
		check "tcpretrans: valid JSON" jcheck "$TMP/retrans.out" ip laddr lport type raddr rport state
	else
		skip "retransmits: no tcp:tcp_retransmit_skb (Linux 4.15)"
	fi

	# --- data dropped by nftables: retransmits in ESTABLISHED, counted exactly --------------
	if [ -z "$HAVE_RETRANS" ]; then
		:
	elif ! command -v nft > /dev/null 2>&1; then
		skip "data retransmits: nft (nftables) not installed (the guests have none; make deps installs it)"
	else
		tbl=ftt_test_$$
		rs() { awk '/^Tcp:/ { if (!h) { split($0, k); h = 1 } else { split($0, v);
			for (i in k) if (k[i] == "RetransSegs") print v[i] } }' /proc/net/snmp; }
		if nft add table inet $tbl && nft add chain inet $tbl in '{ type filter hook input priority 0; }' &&
			nft add rule inet $tbl in tcp dport $PRT 'tcp flags & psh == psh' drop; then
			bt=
			if command -v bpftrace > /dev/null 2>&1; then
				bpftrace -e "tracepoint:tcp:tcp_retransmit_skb /args->dport == $PRT/ { printf(\"R %d %d\\n\", args->sport, args->dport); }" > "$TMP/bt.out" 2> "$TMP/bt.err" &
				bt=$!
				if ! wait_line "$TMP/bt.out" Attaching 15; then
					kill $bt; wait_exit $bt 5; bt=
					skip "tcpretrans beside bpftrace: bpftrace did not attach in 15 s ($(tail -1 "$TMP/bt.err"))"
				fi
			fi
			before=$(rs)
			rm -f "$TMP/go"
			"$TT" "$TMP/go" retrans $PRT 100 4000 > "$TMP/rt" &
			TTPID=$!
			bg retrans "$BIN/tcpretrans" -j
			touch "$TMP/go"
			sleep 1
			nft delete table inet $tbl
			wait $TTPID
			stop retrans
			after=$(rs)
			S=$(awk '{print $3}' "$TMP/rt")
			n=$(grep -c "\"lport\":$S,\"type\":\"R\",\"raddr\":\"127.0.0.1\",\"rport\":$PRT,\"state\":\"ESTABLISHED\"" "$TMP/retrans.out")
			check "nft: the 100 bytes arrived once the rule was gone" [ "$(awk '{print $4}' "$TMP/rt")" = 100 ]
			check "tcpretrans: the dropped data retransmitted in ESTABLISHED ($n times)" [ "$n" -ge 2 ]
			check "tcpretrans: as many as the kernel's RetransSegs counted meanwhile ($((after - before)))" \
				[ "$n" -eq $((after - before)) ]
			if [ -n "$bt" ]; then
				sleep 0.3; kill -INT $bt; wait_exit $bt 5
				check "tcpretrans: as many as bpftrace on the same tracepoint ($(grep -c "^R $S " "$TMP/bt.out"))" \
					[ "$n" -eq "$(grep -c "^R $S " "$TMP/bt.out")" ]
			elif ! command -v bpftrace > /dev/null 2>&1; then
				skip "tcpretrans beside bpftrace: bpftrace not installed"
			fi
		else
			notok "nft could not make the test's table"
		fi
		nft delete table inet $tbl 2> /dev/null
	fi

	# --- a connect's SYNs dropped on output by nftables: their ends and SYN_SENT ----------
	if ! command -v nft > /dev/null 2>&1; then
		skip "SYNs dropped on output: nft (nftables) not installed"
	else
		otbl=ftt_test_out_$$
		trap 'nft delete table inet $otbl 2> /dev/null' EXIT
		trap 'exit 1' INT TERM
		if nft add table inet $otbl && nft add chain inet $otbl out '{ type filter hook output priority 0; }' &&
			nft add rule inet $otbl out tcp dport $PSYN drop; then
			bt=
			if command -v bpftrace > /dev/null 2>&1 && [ -e /sys/kernel/btf/vmlinux ]; then
				# bpftrace reads the dropped packet's socket (skb->sk) through BTF.
				bpftrace -e "tracepoint:skb:kfree_skb { \$sk = ((struct sk_buff *)args->skbaddr)->sk;
					if (\$sk != 0 && \$sk->__sk_common.skc_num == $PSS && bswap(\$sk->__sk_common.skc_dport) == $PSYN) {
					printf(\"D %d\\n\", \$sk->__sk_common.skc_state); } }" > "$TMP/bt.out" 2> "$TMP/bt.err" &
				bt=$!
				if ! wait_line "$TMP/bt.out" Attaching 15; then
					kill $bt; wait_exit $bt 5; bt=
					skip "tcpdrop beside bpftrace: bpftrace did not attach in 15 s ($(tail -1 "$TMP/bt.err"))"
				fi
			fi
			rm -f "$TMP/go"
			"$TT" "$TMP/go" syndrop $PSYN $PSS 1500 > "$TMP/sd" &
			TTPID=$!
			# and one from a port the kernel picks in connect(), after SYN_SENT
			"$TT" "$TMP/go" syndrop $PSYN 0 1500 > "$TMP/sd0" &
			TTPID0=$!
			bg drop "$BIN/tcpdrop" -j
			bg all "$BIN/tcpdrop" -j --all-ip
			touch "$TMP/go"
			wait $TTPID $TTPID0
			stop drop all
			nft delete table inet $otbl
			SPID=$(awk '{print $2}' "$TMP/sd")
			ends="\"ip\":4,\"laddr\":\"127.0.0.1\",\"lport\":$PSS,\"raddr\":\"127.0.0.1\",\"rport\":$PSYN,\"state\":\"SYN_SENT\""
			why=
			[ -n "$HAVE_REASON" ] && why=',"reason":"NETFILTER_DROP"'
			check "tcpdrop: the connect's SYN dropped on output in its task, with its ends, SYN_SENT$why" \
				[ "$(grep -c "\"pid\":$SPID,.*\"context\":\"task\",$ends$why" "$TMP/drop.out")" -eq 1 ]
			n=$(grep -c "$ends$why" "$TMP/drop.out")
			if [ -n "$HAVE_RETRANS_ERR" ]; then
				check "tcpdrop: its retransmits dropped too, with their ends (softirq: $((n - 1)))" sh -c \
					"[ $n -ge 2 ] && [ \$(grep -c '\"context\":\"softirq\",$ends' '$TMP/drop.out') -eq $((n - 1)) ]"
			else
				skip "tcpdrop: the ends of retransmitted SYNs dropped on output (tcp:tcp_retransmit_skb of failed retransmits, Linux 6.17)"
			fi
			read -r _ SPID0 S0 _ < "$TMP/sd0"
			check "tcpdrop: an unbound connect's SYN: its ends, the local port null (not chosen at SYN_SENT)" \
				[ "$(grep -c "\"pid\":$SPID0,.*\"context\":\"task\",\"ip\":4,\"laddr\":\"127.0.0.1\",\"lport\":null,\"raddr\":\"127.0.0.1\",\"rport\":$PSYN,\"state\":\"SYN_SENT\"" "$TMP/drop.out")" -eq 1 ]
			if [ -n "$HAVE_RETRANS_ERR" ]; then
				check "tcpdrop: its retransmits with the port the kernel picked ($S0)" \
					grep -q "\"context\":\"softirq\",\"ip\":4,\"laddr\":\"127.0.0.1\",\"lport\":$S0,\"raddr\":\"127.0.0.1\",\"rport\":$PSYN,\"state\":\"SYN_SENT\"" "$TMP/drop.out"
			fi
			check "tcpdrop --all-ip: the same drops with the same ends ($n)" \
				[ "$(grep -c "$ends$why" "$TMP/all.out")" -eq "$n" ]
			if [ -n "$bt" ]; then
				sleep 0.3; kill -INT $bt; wait_exit $bt 5
				nb=$(grep -c '^D 2$' "$TMP/bt.out")
				if [ -n "$HAVE_RETRANS_ERR" ]; then
					check "tcpdrop: as many as bpftrace saw of the socket's packets dropped, in SYN_SENT ($nb)" [ "$n" -eq "$nb" ]
				else
					check "tcpdrop: bpftrace saw the retransmits too ($nb), tcpdrop the first SYN" [ "$nb" -ge 2 ]
				fi
			elif ! command -v bpftrace > /dev/null 2>&1; then
				skip "tcpdrop beside bpftrace: bpftrace not installed"
			fi
			check "tcpdrop: valid JSON" jcheck "$TMP/drop.out" pid comm ip reason location
		else
			notok "nft could not make the test's output table"
		fi
		nft delete table inet $otbl 2> /dev/null
		trap - EXIT INT TERM
	fi
fi

# --- tools without their events, kprobes, usage errors -----------------------------------
if [ -z "$HAVE_RETRANS" ]; then
	"$BIN/tcpretrans" -d 1 > "$TMP/out" 2> "$TMP/err"
	check "tcpretrans without tcp_retransmit_skb or kprobes: exit 1 naming it (Linux 4.15)" sh -c \
		"[ $? -eq 1 ] && grep -q 'tcp_retransmit_skb in this kernel (Linux 4.15)' '$TMP/err'"
fi
if [ -z "$HAVE_KPROBES" ]; then
	"$BIN/tcpretrans" -l -d 1 > "$TMP/out" 2> "$TMP/err"
	check "tcpretrans -l without kprobes: exit 1 naming CONFIG_KPROBE_EVENTS" sh -c \
		"[ $? -eq 1 ] && grep -q CONFIG_KPROBE_EVENTS '$TMP/err'"
	"$BIN/tcpaccept" --via kprobe -d 1 > "$TMP/out" 2> "$TMP/err"
	check "tcpaccept --via kprobe without kprobes: exit 1 naming CONFIG_KPROBE_EVENTS" sh -c \
		"[ $? -eq 1 ] && grep -q CONFIG_KPROBE_EVENTS '$TMP/err'"
elif [ -n "$HAVE_STATES" ]; then
	"$BIN/tcpretrans" -l -d 0.5 > "$TMP/out" 2> "$TMP/err"
	check "tcpretrans -l with kprobes: runs, exit 0" [ $? -eq 0 ]
fi
for args in "tcpconnect -P 0|must be 1 to 65535" "tcpconnect -P 65536|must be 1 to 65535" \
	"tcpconnect -P 80,|ports separated by commas" "tcplife -L x|not a whole number" \
	"tcplife -D ''|PORT: empty (a port" "tcpconnect -P ''|PORT: empty (a port" "tcpstates -L 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33|at most 32 ports" \
	"tcpaccept --via bogus|MECH" "tcpaccept -p 0|invalid PID" "tcpretrans 5|unexpected argument" \
	"tcpdrop -x|unknown option" "tcpdrop -d 0|" "tcplife -n ''|(empty)"; do
	eval "\"\$BIN\"/${args%|*}" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "${args%|*}: exit 2, one line, '${args#*|}'" sh -c \
		"[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -qF -- '${args#*|}' '$TMP/err'"
done
for t in tcpconnect tcpaccept tcplife tcpstates tcpretrans tcpdrop; do
	"$BIN/$t" --json-keys > "$TMP/out" 2>&1
	check "$t --json-keys: exit 0, keys listed" sh -c "[ $? -eq 0 ] && grep -q '^ts	' '$TMP/out'"
done
check "usage errors changed nothing in tracefs" same_state

if [ -n "$HAVE_STATES" ]; then
	stop_cases tcplife "$BIN/tcplife"
fi
bg drop "$BIN/tcpdrop" -s
stop drop
check "tcpdrop -s: stopped by SIGINT, exit 0, tracefs as before" same_state
check "at the end: tracefs as it was" same_state
summary
