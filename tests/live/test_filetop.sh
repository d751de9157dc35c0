#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of filetop: a test program opens a file, waits, then reads and writes known byte
# counts to files named with a space, a newline and invalid UTF-8, one of them dup2'd and
# closed, one copied by fcntl F_DUPFD, to the file opened before the tool started (named from
# /proc), through a descriptor a child inherited (fork), and into a pipe (not made by an open: shown as such with -a): -p counts each file
# exactly; the whole machine, -s, -r, text escaping, bad input; tracefs as before.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

need_program FT file_target "${FILE_TARGET:-}"
require_syscalls filetop
if [ ! -e "$T/kprobe_events" ] && [ ! -e "$T/uprobe_events" ]; then
	skip "filetop: no kprobe or uprobe events to read paths (CONFIG_KPROBE_EVENTS, CONFIG_UPROBE_EVENTS)"
	summary
	exit 0
fi

D=$TMP/dir
mkdir -p "$D"
# run_target OPTS...: filetop OPTS (PID: the program's) while the program makes its calls.
run_target() {
	rm -f "$TMP/go"
	"$FT" top "$TMP/go" "$D" > "$TMP/target.out" &
	FTPID=$!
	wait_line "$TMP/target.out" '^[0-9]' 5
	opts=$(echo "$*" | sed "s/PID/$FTPID/")
	start_bg "$BIN/filetop" $opts || { touch "$TMP/go"; wait $FTPID; return 1; }
	touch "$TMP/go"
	wait $FTPID
	TRC=$?
	case $opts in
	*-p*) wait_exit $BGPID 10; RC=$? ;; # the run ends with its process
	*) stop_bg ;;
	esac
}
# The objects expected of the program's files: reads, writes, bytes read and written, name.
want() {
	p=P
	cat << END
"pid":$p,"comm":"file_target","reads":0,"writes":1,"read_bytes":0,"write_bytes":5555,"type":"R","file":"$D/early file","named":true}
"pid":$p,"comm":"file_target","reads":2,"writes":6,"read_bytes":1400,"write_bytes":4124,"type":"R","file":"$D/a b","named":true}
"pid":C,"comm":"file_target","reads":0,"writes":1,"read_bytes":0,"write_bytes":300,"type":"R","file":"$D/a b","named":true}
"pid":$p,"comm":"file_target","reads":0,"writes":3,"read_bytes":0,"write_bytes":5010,"type":"R","file":"$D/new\\nline","named":true}
"pid":$p,"comm":"file_target","reads":1,"writes":1,"read_bytes":1234,"write_bytes":1234,"type":"R","file":"$D/\\udcff\\udcfe bad","named":true}
END
}

if run_target -j -p PID 10; then
	want > "$TMP/want"
	check "filetop -j -p: exit 0 with the process, valid JSON" sh -c "
		[ $RC -eq 0 ] && [ $TRC -eq 0 ] && '$JSONCHECK' '$TMP/out' time pid comm reads writes read_bytes write_bytes type file named"
	check "filetop -j -p: each file's reads, writes and bytes exactly, named (space, newline, invalid UTF-8, dup2, F_DUPFD, fork, open before the start), regular files only" sh -c "
		sed 's/^{\"time\":\"[0-9:]*\",//' '$TMP/out' |
		sed 's/\"pid\":$FTPID,/\"pid\":P,/; t; s/\"pid\":[0-9]*,/\"pid\":C,/' | sort > '$TMP/got' && sort '$TMP/want' | cmp -s - '$TMP/got'" ||
		{ echo "# want:"; sed 's/^/#   /' "$TMP/want"; echo "# got:"; sed 's/^/#   /' "$TMP/out"; }
fi
if run_target -a -C -r 0 0.5; then
	check "filetop -a (the machine, text): the program's files among the rows, names escaped; the pipe's write under a stand-in" sh -c "
		[ $RC -eq 0 ] &&
		grep -Eq '^ *$FTPID +file_target +2 +6 +1 +4 R .*/a\\\\x20b\$' '$TMP/out' &&
		grep -Eq '^ *[0-9]+ +file_target +0 +1 +0 +0 R .*/a\\\\x20b\$' '$TMP/out' &&
		grep -Eq '^ *$FTPID +file_target +0 +3 +0 +4 R .*/new\\\\x0aline\$' '$TMP/out' &&
		grep -Eq '^ *$FTPID +file_target +1 +1 +1 +1 R .*/\\\\xff\\\\xfe\\\\x20bad\$' '$TMP/out' &&
		grep -Eq '^ *$FTPID +file_target +0 +1 +0 +0 [?O] \\[fd [0-9]+: not seen opened\\]\$' '$TMP/out' &&
		grep -Eq '^ +PID COMM +READS WRITES +R_KB +W_KB T FILE\$' '$TMP/out'"
fi
if run_target -s reads -r 1 -j -p PID 10; then
	check "filetop -s reads -r 1: one row a table, the file read most often" sh -c "
		[ \$(wc -l < '$TMP/out') -eq 1 ] && grep -q '\"reads\":2,' '$TMP/out'"
fi

for bad in "-s x" "-r x" "0" "1 0" "-p 0"; do
	"$BIN/filetop" $bad > "$TMP/out" 2> "$TMP/err"
	check "filetop $bad: usage error (exit 2), one line" sh -c \
		"[ $? -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q '^filetop: ' '$TMP/err'"
done
# A reader that goes away (| head -1) ends the run quietly, exit 0 (the interval's own
# flush once left the error on stdout, and the exit said 'Input/output error', exit 1).
rm -f "$TMP/rc"
{ "$BIN/filetop" -C 0.2 2> "$TMP/err"; echo $? > "$TMP/rc"; } | head -1 > "$TMP/out"
check "filetop -C 0.2 | head -1: exit 0 ($(cat "$TMP/rc")), no write error said" sh -c "
	[ \"\$(cat '$TMP/rc')\" = 0 ] && ! grep -q 'cannot write' '$TMP/err'"
check "after every run: tracefs as before" same_state
summary
