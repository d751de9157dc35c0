#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of gethostlatency: the test program looks up "localhost" N times with getaddrinfo,
# once a name with a space, an escape and a byte that is not UTF-8 (refused by the resolver
# before any packet: EAI_NONAME), then "localhost" with gethostbyname and gethostbyname2:
# each lookup exactly once, with its call, result, exact (escaped) name and a latency, as text
# and JSON; names too long for a probe said or counted; -p sees only its process; bad input and the end leave tracefs as it was.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

for args in "-Z|" "1 2|unexpected argument" "-d 0|duration" "-p x|PID"; do
	eval "\"\$BIN/gethostlatency\" ${args%|*}" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "gethostlatency ${args%|*}: exit 2, one line '${args#*|}'" sh -c \
		"[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q -- '${args#*|}' '$TMP/err'"
done
check "gethostlatency's bad input changed nothing in tracefs" same_state

RT=${RESOLVE_TARGET:-$BIN/tests/resolve_target}
if [ ! -e "$T/uprobe_events" ]; then
	skip "gethostlatency: no uprobes in this kernel (CONFIG_UPROBE_EVENTS)"
	summary; exit $?
fi
if [ ! -x "$RT" ]; then
	# The guests have only static programs, whose lookups are not libc.so's.
	skip "gethostlatency: no dynamic test program $RT (the guests' are static: no libc.so to probe)"
	summary; exit $?
fi
"$BIN/gethostlatency" -d 0.1 > "$TMP/out" 2> "$TMP/err"
if [ $? -eq 1 ] && grep -q 'no shared C library' "$TMP/err"; then
	skip "gethostlatency: no shared C library here (libc.so.6)"
	summary; exit $?
fi

BAD='ftt\x20bad\x1b[1m\xff.invalid'
# The lookups as the text must show them: CALL RET HOST, in order.
cat > "$TMP/want" << EOF
getaddrinfo 0 localhost
getaddrinfo 0 localhost
getaddrinfo 0 localhost
getaddrinfo -2 $BAD
gethostbyname 0 localhost
gethostbyname2 0 localhost
EOF

# bpftrace's gethostlatency.bt beside it on the same run, where installed.
BT=
if command -v bpftrace > /dev/null 2>&1 && [ -r /usr/sbin/gethostlatency.bt ]; then
	bpftrace /usr/sbin/gethostlatency.bt > "$TMP/bt.out" 2> "$TMP/bt.err" &
	BT=$!
	# (its BEGIN block's line: attached by then)
	wait_line "$TMP/bt.out" '^Tracing getaddr' 30 || { notok "bpftrace starts" "$TMP/bt.err"; kill $BT; BT=; }
fi
"$BIN/gethostlatency" --exec "$RT" 3 > "$TMP/out" 2> "$TMP/err"
rc=$?
if [ -n "$BT" ]; then
	kill -INT $BT
	wait_exit $BT 20
	# TIME PID COMM LATms HOST: the test program's names (the bad one cut at its space)
	BTN=$(awk '$3 == "resolve_target" { print $5 }' "$TMP/bt.out" | tr '\n' ' ')
	check "gethostlatency.bt beside it sees the same 6 lookups with the same names ($BTN)" \
		[ "$BTN" = "localhost localhost localhost ftt localhost localhost " ]
else
	skip "gethostlatency beside bpftrace: bpftrace or /usr/sbin/gethostlatency.bt not installed"
fi
grep -v '^gai=' "$TMP/out" > "$TMP/lines"
sed 1d "$TMP/lines" | awk '{print $5, $6, $7}' > "$TMP/calls"
check "gethostlatency --exec: exit 0, each lookup once with its call, result and name" sh -c "
	[ $rc -eq 0 ] && cmp -s '$TMP/want' '$TMP/calls' &&
	head -1 '$TMP/lines' | grep -q '^TIME  *PID COMM  *LATms CALL  *RET HOST\$'" ||
	diff "$TMP/want" "$TMP/calls" | sed 's/^/#   /'
check "gethostlatency: each line's time, PID, name and a latency under 5 s" awk '
	NR == 1 {next}
	$1 !~ /^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]$/ || $2 !~ /^[0-9]+$/ || $3 != "resolve_target" ||
		$4 !~ /^[0-9]+\.[0-9][0-9][0-9]$/ || $4 >= 5000 {bad = 1}
	NR > 1 {n++; if (!($2 in pid)) {pid[$2] = 1; np++}}
	END {exit bad || n != 6 || np != 1}' "$TMP/lines"

JSONCHECK=${JSONCHECK:-$BIN/tests/jsoncheck}
"$BIN/gethostlatency" -j --exec "$RT" 1 > "$TMP/out" 2> "$TMP/err"
rc=$?
grep -v '^gai=' "$TMP/out" > "$TMP/lines"
check "gethostlatency -j: exit 0, four valid objects with every key" sh -c "
	[ $rc -eq 0 ] && [ \$(wc -l < '$TMP/lines') -eq 4 ] &&
	'$JSONCHECK' '$TMP/lines' ts time pid comm lat_ns call ret name name_len"
check "gethostlatency -j: the hostile name JSON-escaped exactly, its length 20" grep -qF \
	'"call":"getaddrinfo","ret":-2,"name":"ftt bad\u001b[1m\udcff.invalid","name_len":20}' \
	"$TMP/lines"

# Names longer than a probe reads. Where strings are read whole (Linux 6.12 on): longer than
# its record holds (6.18: a record over 4072 bytes is not written, so the 4060-byte name's
# lookup has no entry: counted), than the kernel reads (4096 bytes: read as nothing, shown as
# [unknown]), or than what is kept (255 bytes of 300, and the length). Where they are read in
# pieces (before 6.12, and here again with FTT_UPROBE_STRINGS=pieces): each name's first 255
# bytes, then [cut], its length not known. The 4060 bytes are what overran the uprobe buffer of
# kernels before 6.12 when read whole (373b9338): fed to them here, in pieces.
MODES="whole pieced"
uprobe_strings_pieced && MODES=pieced
for mode in $MODES; do
	[ $mode = pieced ] && export FTT_UPROBE_STRINGS=pieces
	"$BIN/gethostlatency" --exec "$RT" long > "$TMP/out" 2> "$TMP/err"
	rc=$?
	unset FTT_UPROBE_STRINGS
	if [ $mode = pieced ]; then
		n=0
		for c in a b c; do
			C255=$(head -c 255 /dev/zero | tr '\0' $c)
			grep -Eq " getaddrinfo +-2 $C255 \[cut\]\$" "$TMP/out" && n=$((n + 1))
		done
		check "gethostlatency on names of 4060, 5000 and 300 bytes read in pieces: each its first 255 bytes, [cut] ($n)" \
			sh -c "[ $rc -eq 0 ] && [ \$(grep -vc '^long=' '$TMP/out') -eq 4 ] && [ $n -eq 3 ] &&
				! grep -q 'returns without their entry' '$TMP/err'"
		continue
	fi
	C255=$(head -c 255 /dev/zero | tr '\0' c)
	check "gethostlatency on names of 5000 and 300 bytes: [unknown], cut" sh -c "
		[ $rc -eq 0 ] && [ \$(grep -vc '^long=' '$TMP/out') -eq 3 ] &&
		grep -Eq ' getaddrinfo +-2 \[unknown\]\$' '$TMP/out' &&
		grep -Eq ' getaddrinfo +-2 $C255 \[cut: 300 bytes\]\$' '$TMP/out'"
	check "gethostlatency on a name of 4060 bytes: its return counted unpaired" \
		grep -q '^gethostlatency: 1 returns without their entry' "$TMP/err"
done

# -p: only that process's lookups, not those of another run at the same time.
rm -f "$TMP/go"
"$RT" 2 "$TMP/go" > /dev/null &
P=$!
if start_bg "$BIN/gethostlatency" -p $P; then
	"$RT" 1 > /dev/null
	touch "$TMP/go"
	wait_exit $BGPID 10
	check "gethostlatency -p: ends with its process, exit 0, its 5 lookups only" sh -c "
		[ $RC -eq 0 ] && [ \$(sed 1d '$TMP/out' | wc -l) -eq 5 ] &&
		sed 1d '$TMP/out' | awk '\$2 != $P {bad = 1} END {exit bad}'"
fi
kill $P 2> /dev/null
wait $P 2> /dev/null
check "gethostlatency: tracefs as before after every run" same_state

summary
