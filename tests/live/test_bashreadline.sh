#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of bashreadline: a typist (pty_bash) drives an interactive bash on a
# pseudo-terminal through known lines, hostile ones among them (an escape sequence, a newline
# typed with Ctrl-V, bytes that are not UTF-8, a backslash, an empty line, a line too long for a trace event,
# one of 3000 bytes that fits): each line exactly once, in order, escaped in text and exact in
# JSON; the one too long said as unknown and counted; -p sees only its bash; -v says where
# readline is; bad input and every run leave tracefs as it was.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

for args in "-Z|" "1 2|unexpected argument" "-d 0|duration" "-p x|PID" \
	"--bash /nonexistent/bash|bash not found"; do
	eval "\"\$BIN/bashreadline\" ${args%|*}" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "bashreadline ${args%|*}: exit 2, one line '${args#*|}'" sh -c \
		"[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q -- '${args#*|}' '$TMP/err'"
done
check "bashreadline's bad input changed nothing in tracefs" same_state

PB=${PTY_BASH:-$BIN/tests/pty_bash}
if [ ! -x /bin/bash ]; then
	skip "bashreadline: no /bin/bash here (the guests are busybox)"
	summary; exit $?
fi
"$BIN/bashreadline" -v > "$TMP/out" 2> "$TMP/err"
check "bashreadline -v: exit 0, where readline is (bash's own or a libreadline)" sh -c "
	[ $? -eq 0 ] && grep -Eq '^readline at offset 0x[0-9a-f]+ of /.* \((bash.s own, linked in|a shared libreadline: bash has none of its own)\)\$' '$TMP/out'"
if [ ! -e "$T/uprobe_events" ]; then
	skip "bashreadline: no uprobes in this kernel (CONFIG_UPROBE_EVENTS)"
	summary; exit $?
fi
if [ ! -x "$PB" ]; then
	notok "test program $PB missing (make check builds it)"
	summary; exit 1
fi

# readline's 8-bit input, so that bytes over 0x7f reach the line as they are.
printf 'set input-meta on\nset output-meta on\nset convert-meta off\n' > "$TMP/inputrc"
L_ESC=$(printf '#ftt\033[1m esc')
L_NL=$(printf '#ftt\nsecond')
L_BAD=$(printf '#ftt \377\376 bad')
L_LONG="#$(head -c 5000 /dev/zero | tr '\0' x)"
L_3K="#$(head -c 2999 /dev/zero | tr '\0' y)"

# want_text MODE: the lines as shown, where strings are read whole or in pieces (their first
# 256 bytes, then [cut]: lib.sh, uprobe_strings_pieced).
want_text() {
	if [ "$1" = pieced ]; then
		long="$(echo "$L_LONG" | head -c 256) [cut]"
		three="$(echo "$L_3K" | head -c 256) [cut]"
	else
		long="[unknown: longer than a trace event holds]"
		three=$L_3K
	fi
	cat > "$TMP/want" << EOF
echo\\x20hi
""
#ftt\\x1b[1m\\x20esc
#ftt\\x0asecond
#ftt\\x20\\xff\\xfe\\x20bad
#ftt\\x20back\\x5cslash
$long
$three
#after
exit\\x200
EOF
}

# bpftrace's bashreadline.bt beside it on the same run, where installed.
BT=
if command -v bpftrace > /dev/null 2>&1 && [ -r /usr/sbin/bashreadline.bt ]; then
	bpftrace /usr/sbin/bashreadline.bt > "$TMP/bt.out" 2> "$TMP/bt.err" &
	BT=$!
	# (its BEGIN block's line: attached by then)
	wait_line "$TMP/bt.out" '^Tracing bash' 30 || { notok "bpftrace starts" "$TMP/bt.err"; kill $BT; BT=; }
fi
# As this kernel reads strings, then (where that is whole) in pieces as before Linux 6.12.
MODES="whole pieced"
uprobe_strings_pieced && MODES=pieced
for mode in $MODES; do
	want_text $mode
	[ $mode = pieced ] && export FTT_UPROBE_STRINGS=pieces
	INPUTRC=$TMP/inputrc "$BIN/bashreadline" --exec "$PB" /bin/bash 'echo hi' '' "$L_ESC" \
		"$L_NL" "$L_BAD" '#ftt back\slash' "$L_LONG" "$L_3K" '#after' > "$TMP/out" 2> "$TMP/err"
	rc=$?
	if [ -n "$BT" ]; then
		kill -INT $BT
		wait_exit $BT 20
		# TIME PID LINE, the line raw (its newline splits it) and cut at 64 bytes
		# (bpftrace's strings): the lines of the same bash, and the plain ones as they are.
		BP=$(sed -n '2s/^[^ ]*  *\([0-9]*\) .*/\1/p' "$TMP/out")
		grep -aE "^[0-9:]+ +$BP( |\$)" "$TMP/bt.out" | sed -E 's/^[0-9:]+ +[0-9]+ *//' > "$TMP/bt.lines"
		check "bashreadline.bt beside it sees the same bash's 10 lines, the plain ones the same ($(wc -l < "$TMP/bt.lines"))" sh -c "
			[ \$(wc -l < '$TMP/bt.lines') -eq 10 ] && [ \"\$(sed -n '1p;2p;9p;10p' '$TMP/bt.lines' | tr '\\n' '|')\" = 'echo hi||#after|exit 0|' ]" ||
			cut -c1-60 "$TMP/bt.lines" | sed "s/^/#bt   /"
		BT=
	elif [ $mode = whole ] || [ "$MODES" = pieced ]; then
		skip "bashreadline beside bpftrace: bpftrace or /usr/sbin/bashreadline.bt not installed"
	fi
	sed 1d "$TMP/out" | cut -c18- > "$TMP/lines"
	check "bashreadline --exec ($mode): exit 0, every line once, in order, escaped" sh -c "
		[ $rc -eq 0 ] && cmp -s '$TMP/want' '$TMP/lines' &&
		head -1 '$TMP/out' | grep -q '^TIME  *PID LINE\$'" ||
		diff "$TMP/want" "$TMP/lines" | cut -c1-80 | sed 's/^/#   /'
	check "bashreadline ($mode): each line's time and one PID, bash's" awk '
		NR == 1 {next}
		$1 !~ /^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]$/ || $2 !~ /^[0-9]+$/ {bad = 1}
		{if (!($2 in pid)) {pid[$2] = 1; np++}}
		END {exit bad || np != 1}' "$TMP/out"
	if [ $mode = whole ]; then
		check "bashreadline: the line too long for an event counted on stderr" \
			grep -q '^bashreadline: 1 lines could not be shown: too long for a trace event' "$TMP/err"
	else
		check "bashreadline (pieced): the long lines cut, none unknown, so none counted" \
			sh -c "! grep -q 'could not be shown' '$TMP/err'"
	fi
	unset FTT_UPROBE_STRINGS
done

JSONCHECK=${JSONCHECK:-$BIN/tests/jsoncheck}
if uprobe_strings_pieced; then
	JLONG="\"$(echo "$L_LONG" | head -c 256)\",\"line_len\":null"
	J3K="\"$(echo "$L_3K" | head -c 256)\",\"line_len\":null"
else
	JLONG='null,"line_len":null'
	J3K="\"$L_3K\",\"line_len\":3000"
fi
INPUTRC=$TMP/inputrc "$BIN/bashreadline" -j --exec "$PB" /bin/bash "$L_ESC" "$L_NL" "$L_BAD" \
	'#ftt back\slash' "$L_LONG" "$L_3K" > "$TMP/out" 2> "$TMP/err"
rc=$?
sed 's/.*"line":\(.*\)}$/\1/' "$TMP/out" > "$TMP/lines"
cat > "$TMP/want" << EOF
"#ftt\\u001b[1m esc","line_len":12
"#ftt\\nsecond","line_len":11
"#ftt \\udcff\\udcfe bad","line_len":11
"#ftt back\\\\slash","line_len":15
$JLONG
$J3K
"exit 0","line_len":6
EOF
check "bashreadline -j: exit 0, valid objects, each line exact with its length" sh -c "
	[ $rc -eq 0 ] && '$JSONCHECK' '$TMP/out' ts time pid line line_len &&
	cmp -s '$TMP/want' '$TMP/lines'" || diff "$TMP/want" "$TMP/lines" | cut -c1-80 | sed 's/^/#   /'

# -p: only that bash's lines, not another's typed at the same time. The bash waits in
# readline at its prompt when tracing starts: that call's return has no uretprobe (the probe
# takes the return address at the entry), so the line it reads, empty here, is not seen.
rm -f "$TMP/go" "$TMP/ready"
INPUTRC=$TMP/inputrc "$PB" -w "$TMP/go" /bin/bash '#one' '#two' > "$TMP/ready" &
P=$!
wait_line "$TMP/ready" '^ready$' 10
B=$(cat /proc/$P/task/$P/children 2> /dev/null)
B=${B%% *}
if [ -n "$B" ] && start_bg "$BIN/bashreadline" -p "$B"; then
	INPUTRC=$TMP/inputrc "$PB" /bin/bash '#other' > /dev/null
	touch "$TMP/go"
	wait_exit $BGPID 10
	check "bashreadline -p: ends with its bash, exit 0, its lines only (not the one in progress)" sh -c "
		[ $RC -eq 0 ] && [ \"\$(sed 1d '$TMP/out' | awk '{print \$2, \$3, \$4}' | tr '\n' '|')\" = \
			'$B #one |$B #two |$B exit\\x200 |' ]"
else
	notok "bashreadline -p: the typist's bash did not start"
fi
kill $P 2> /dev/null
wait $P 2> /dev/null
check "bashreadline: tracefs as before after every run" same_state

summary
