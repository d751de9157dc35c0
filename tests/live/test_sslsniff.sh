#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of sslsniff: openssl s_server and s_client on loopback, each sending one known
# line to the other: sslsniff shows each write with exactly its bytes (read by the kernel at
# the entry) and each read with exactly the bytes received (read from the process after the
# call with --late, marked late and counted on stderr; without it no data, said), as JSON and
# as text cut by --max; where bpftrace
# is installed a one-liner beside it on the same run sees the same SSL_read/SSL_write calls
# with the same results. Bad input and the end leave tracefs as it was.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

for args in "--max 0|--max" "--max 513|--max" "--max x|--max" "-Z|" "1 2|unexpected argument"; do
	eval "\"\$BIN/sslsniff\" ${args%|*}" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "sslsniff ${args%|*}: exit 2, one line '${args#*|}'" sh -c \
		"[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q -- '${args#*|}' '$TMP/err'"
done
check "sslsniff's bad input changed nothing in tracefs" same_state

if [ ! -e "$T/uprobe_events" ]; then
	skip "sslsniff: no uprobes in this kernel (CONFIG_UPROBE_EVENTS)"
	summary; exit $?
fi
if ! command -v openssl > /dev/null 2>&1; then
	# The guests have only static programs: no openssl, no libssl.so to probe.
	skip "sslsniff: no openssl program here (the guests have only static programs, no libssl)"
	summary; exit $?
fi
"$BIN/sslsniff" -d 0.1 > "$TMP/out" 2> "$TMP/err"
if [ $? -eq 1 ] && grep -q 'nothing to probe' "$TMP/err"; then
	skip "sslsniff: no libssl.so.3, libssl.so.1.1 or libgnutls.so.30 here"
	summary; exit $?
fi

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$TMP/k.pem" \
	-out "$TMP/c.pem" -days 1 -subj /CN=localhost > /dev/null 2>&1
PORT=$((20000 + $$ % 20000))
# exchange: the server sends SLINE, the client CLINE; both keep their input open for a second
# (the server ends when it closes, the client when the server has closed).
SLINE=server-says-hello
CLINE=client-line-1
server() {
	rm -f "$TMP/srv.out"
	{ printf '%s\n' $SLINE; sleep 1; } | timeout 10 openssl s_server -naccept 1 \
		-accept 127.0.0.1:$PORT -cert "$TMP/c.pem" -key "$TMP/k.pem" > "$TMP/srv.out" 2>&1 &
	SP=$!
	wait_line "$TMP/srv.out" '^ACCEPT' 5 || { notok "openssl s_server listens" "$TMP/srv.out"; }
	SPID=$(pgrep -P $SP -x openssl)
}
client() {
	{ printf '%s\n' $CLINE; sleep 1; } | timeout 10 openssl s_client -quiet \
		-connect 127.0.0.1:$PORT > "$TMP/cli.out" 2> "$TMP/cli.err"
	wait $SP
}
exchange() { server; client; }

JSONCHECK=${JSONCHECK:-$BIN/tests/jsoncheck}
BT=
if command -v bpftrace > /dev/null 2>&1; then
	# SSL_read and SSL_write of the same processes, each return with its call and result.
	# (the call as a number: bpftrace names a user address only when it prints, and the
	# client may be gone by then)
	bpftrace -e '
		uprobe:libssl:SSL_read /comm == "openssl"/ { @f[tid] = 1; }
		uprobe:libssl:SSL_write /comm == "openssl"/ { @f[tid] = 2; }
		uretprobe:libssl:SSL_read, uretprobe:libssl:SSL_write /@f[tid]/ {
			printf("%s %d\n", @f[tid] == 1 ? "SSL_read" : "SSL_write", (int32)retval);
			delete(@f[tid]); }
		'"$BT_READY" \
		> "$TMP/bt.out" 2> "$TMP/bt.err" &
	BT=$!
	wait_line "$TMP/bt.out" '^ready' 30 || { notok "bpftrace starts" "$TMP/bt.err"; BT=; }
fi
if start_bg "$BIN/sslsniff" -j --late -n openssl; then
	exchange
	stop_bg
	rc=$RC # (wait_exit sets RC again for bpftrace below)
	grep '^{' "$TMP/out" > "$TMP/lines"
	if [ -n "$BT" ]; then
		# bpftrace prints from its own buffers: up to 5 s for it to print as many calls
		i=0
		while [ $i -lt 50 ] && [ "$(grep -c '^SSL_' "$TMP/bt.out")" -lt \
			"$(grep -Ec '"call":"SSL_(read|write)"' "$TMP/lines")" ]; do
			sleep 0.1
			i=$((i + 1))
		done
		kill -INT $BT && wait_exit $BT 20
	fi
	check "sslsniff -j: exit 0, valid objects with every key" sh -c "
		[ $rc -eq 0 ] && [ -s '$TMP/lines' ] && '$JSONCHECK' '$TMP/lines' comm pid tid call ret \
			bytes lat_ns data_late data_len data" || show_output
	check "sslsniff -j: the client's write of its line, exactly, read at the entry" grep -q \
		"\"call\":\"SSL_write\",\"ret\":14,\"bytes\":14,.*\"data_late\":false,\"data_len\":14,\"data\":\"$CLINE\\\\n\"}" \
		"$TMP/lines"
	check "sslsniff -j: the server's write of its line, exactly, read at the entry" grep -q \
		"\"call\":\"SSL_write\",\"ret\":18,\"bytes\":18,.*\"data_late\":false,\"data_len\":18,\"data\":\"$SLINE\\\\n\"}" \
		"$TMP/lines"
	check "sslsniff -j: the server's read of the client's line, exactly, marked late" grep -q \
		"\"call\":\"SSL_read\",\"ret\":14,\"bytes\":14,.*\"data_late\":true,\"data_len\":14,\"data\":\"$CLINE\\\\n\"}" \
		"$TMP/lines"
	check "sslsniff -j: the client's read of the server's line, exactly, marked late" grep -q \
		"\"call\":\"SSL_read\",\"ret\":18,\"bytes\":18,.*\"data_late\":true,\"data_len\":18,\"data\":\"$SLINE\\\\n\"}" \
		"$TMP/lines"
	NDATA=$(grep -c '"data_len":[0-9]' "$TMP/lines")
	NB=$(grep -o '"bytes":[0-9]*' "$TMP/lines" | awk -F: '{s += $2} END {print s + 0}')
	check "sslsniff -j: data on 4 calls only, 64 bytes in all, 2 late reads said on stderr ($NDATA, $NB)" \
		sh -c "[ $NDATA -eq 4 ] && [ $NB -eq 64 ] &&
		grep -q '^sslsniff: 2 reads. data read from the process after the call returned' '$TMP/err'"
	if [ -n "$BT" ]; then
		sed -n 's/.*"call":"\(SSL_[a-z]*\)","ret":\(-*[0-9]*\),.*/\1 \2/p' "$TMP/lines" |
			grep -E '^SSL_(read|write) ' | sort > "$TMP/ours"
		grep -E '^SSL_(read|write) ' "$TMP/bt.out" | sort > "$TMP/theirs"
		check "sslsniff: the same SSL_read/SSL_write calls and results as bpftrace on the same run ($(wc -l < "$TMP/ours"), $(wc -l < "$TMP/theirs"))" \
			sh -c "[ -s '$TMP/ours' ] && cmp -s '$TMP/ours' '$TMP/theirs'" ||
			{ diff "$TMP/ours" "$TMP/theirs"; cat "$TMP/bt.out" "$TMP/bt.err"; } | sed "s/^/#   /"
	else
		skip "sslsniff beside bpftrace: bpftrace not installed"
	fi
fi
[ -n "$BT" ] && kill $BT 2> /dev/null

# Text, -p: the server's calls only, its own libssl found in its maps (-v names it), the data
# cut to 6 bytes; HOW says how each was read.
server
if start_bg "$BIN/sslsniff" -v --late --max 6 -p $SPID; then
	client
	stop_bg
	check "sslsniff -v -p: its libssl probed, named from its maps" \
		grep -Eq '^sslsniff: probing SSL_read in /.*/libssl\.so' "$TMP/err"
	check "sslsniff --max 6 -p: the server's write's first 6 bytes at the entry, its read's late, nothing else" sh -c "
		[ $RC -eq 0 ] && head -1 '$TMP/out' |
			grep -q '^COMM  *PID  *TID CALL  *RET  *BYTES  *LATms HOW  *DATA\$' &&
		grep -Eq '^openssl +$SPID +$SPID SSL_write +18 +18 +[0-9.]+ entry server\$' '$TMP/out' &&
		grep -Eq '^openssl +$SPID +$SPID SSL_read +14 +14 +[0-9.]+ late  client\$' '$TMP/out' &&
		! sed 1d '$TMP/out' | grep -v '^openssl  *$SPID '" || show_output
fi
wait $SP 2> /dev/null
# The _ex forms (Python's ssl module, two SSLObjects over memory BIOs in one process):
# *written and *readbytes, locals of the caller, read from its stack by the return's probe:
# each write's count and data exact, each read's count.
cat > "$TMP/mem.py" << EOF
import ssl
sctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
sctx.load_cert_chain("$TMP/c.pem", "$TMP/k.pem")
cctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
cctx.check_hostname = False
cctx.verify_mode = ssl.CERT_NONE
ci, co, si, so = ssl.MemoryBIO(), ssl.MemoryBIO(), ssl.MemoryBIO(), ssl.MemoryBIO()
c = cctx.wrap_bio(ci, co)
s = sctx.wrap_bio(si, so, server_side=True)
def pump():
    d = co.read()
    if d: si.write(d)
    d = so.read()
    if d: ci.write(d)
for _ in range(10):
    for x in (c, s):
        try: x.do_handshake()
        except ssl.SSLWantReadError: pass
    pump()
for i in range(5):
    c.write(b"ping-%d\\n" % i)
    pump()
    s.read(100)
EOF
if "$PYTHON3" -c 'import ssl' 2> /dev/null; then
	"$BIN/sslsniff" -j --exec "$PYTHON3" "$TMP/mem.py" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	NW=0
	for i in 0 1 2 3 4; do
		grep -qF "\"call\":\"SSL_write_ex\",\"ret\":1,\"bytes\":7," "$TMP/out" &&
			grep -qF "\"data_late\":false,\"data_len\":7,\"data\":\"ping-$i\\n\"}" "$TMP/out" &&
			NW=$((NW + 1))
	done
	NR=$(grep -c '"call":"SSL_read_ex","ret":1,"bytes":7,.*"data_late":null,"data_len":null,"data":null}' "$TMP/out")
	# (without --late a read has no data: the loop reuses its buffer, and a late read showed
	# "ping-4" for each of the five)
	check "sslsniff on SSL_write_ex/SSL_read_ex: exit 0, the 5 writes' counts and data exact, 5 reads of 7 bytes without data, said ($NW, $NR)" \
		sh -c "[ $rc -eq 0 ] && [ $NW -eq 5 ] && [ $NR -eq 5 ] &&
			grep -q '^sslsniff: 5 reads shown without their data' '$TMP/err'" || show_output
else
	skip "sslsniff on the _ex forms: no python3 with its ssl module"
fi
check "sslsniff: tracefs as before after every run" same_state

summary
