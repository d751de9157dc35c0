#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of vfsstat: a static test program waits, then makes 11 reads, 13 writes, 3
# creates, 6 to 8 opens (open(2) and openat2 where there are), 6 fsyncs and 3 unlinks (and removes a directory, no unlink):
# -p counts them exactly, the whole machine at least that many; -v, text, JSON, interval and
# count, bad input; tracefs as before.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

need_program FT file_target "${FILE_TARGET:-}"
require_syscalls vfsstat

"$BIN/vfsstat" -v > "$TMP/out" 2> "$TMP/err"
check "vfsstat -v: exit 0, the mechanism and a line per call" sh -c "
	[ $? -eq 0 ] && grep -q '^mechanism: syscall tracepoints' '$TMP/out' &&
	grep -Eq '^reads +read *\$' '$TMP/out' && grep -Eq '^unlinks +unlinkat +\(not with AT_REMOVEDIR\)' '$TMP/out' &&
	[ \$(wc -l < '$TMP/out') -eq 19 ] && [ ! -s '$TMP/err' ]"
check "after vfsstat -v: tracefs as before" same_state

D=$TMP/dir
mkdir -p "$D"
# run_target OPTS...: vfsstat -j OPTS while the program makes its calls; the program's
# expected counts in $TMP/want, the sums of vfsstat's lines in $TMP/sums, both as
# "reads writes creates opens fsyncs unlinks".
run_target() {
	rm -f "$TMP/go"
	"$FT" vfs "$TMP/go" "$D" > "$TMP/target.out" &
	FTPID=$!
	wait_line "$TMP/target.out" '^[0-9]' 5
	opts=$(echo "$*" | sed "s/PID/$FTPID/")
	start_bg "$BIN/vfsstat" -j $opts || { touch "$TMP/go"; wait $FTPID; return 1; }
	touch "$TMP/go"
	wait $FTPID
	case $opts in
	*-p*) wait_exit $BGPID 10; RC=$? ;; # the run ends with its process
	*) stop_bg ;;
	esac
	read -r r w c o f u o2 < "$TMP/target.out"
	# openat2 is counted where the kernel has its tracepoint (5.6)
	[ "$o2" = 1 ] && [ ! -d "$T/events/syscalls/sys_enter_openat2" ] && o=$((o - 1))
	echo "$r $w $c $o $f $u" > "$TMP/want"
	"$JSONCHECK" "$TMP/out" time secs reads writes creates opens fsyncs unlinks ||
		{ notok "vfsstat -j $opts: valid JSON"; return 1; }
	sed 's/.*"reads":\([0-9]*\),"writes":\([0-9]*\),"creates":\([0-9]*\),"opens":\([0-9]*\),"fsyncs":\([0-9]*\),"unlinks":\([0-9]*\)}.*/\1 \2 \3 \4 \5 \6/' \
		"$TMP/out" | awk '{for (i = 1; i <= 6; i++) s[i] += $i} END {print s[1], s[2], s[3], s[4], s[5], s[6]}' > "$TMP/sums"
}

if run_target -p PID 10; then
	check "vfsstat -p: exit 0 when the process ends, its calls exactly ($(cat "$TMP/want"))" sh -c \
		"[ $RC -eq 0 ] && [ \"\$(cat '$TMP/sums')\" = \"\$(cat '$TMP/want')\" ]" ||
		echo "# counted: $(cat "$TMP/sums")"
fi
if run_target 0.5; then
	check "vfsstat (the machine): at least the program's calls ($(cat "$TMP/want"))" sh -c "
		[ $RC -eq 0 ] && echo \$(cat '$TMP/want') \$(cat '$TMP/sums') |
		awk '{for (i = 1; i <= 6; i++) if (\$(i + 6) < \$i) exit 1}'" ||
		echo "# counted: $(cat "$TMP/sums")"
	# (within a tenth: the 6.12 guest's first interval once took 0.516 s, its vCPU not run)
	check "vfsstat 0.5: secs of each full interval 0.45 to 0.55" sh -c "
		head -1 '$TMP/out' | grep -Eq '\"secs\":0\.(4[5-9][0-9]|5[0-4][0-9]|550),'"
fi

"$BIN/vfsstat" 0.2 3 > "$TMP/out" 2> "$TMP/err"
check "vfsstat 0.2 3: exit 0, the header and three lines of six counts" sh -c "
	[ $? -eq 0 ] && [ \$(wc -l < '$TMP/out') -eq 4 ] &&
	head -1 '$TMP/out' | grep -Eq '^TIME +READ/s +WRITE/s +CREATE/s +OPEN/s +FSYNC/s +UNLINK/s\$' &&
	[ \$(grep -Ec '^[0-9]{2}:[0-9]{2}:[0-9]{2}( +[0-9]+){6}\$' '$TMP/out') -eq 3 ] &&
	[ \$(wc -l < '$TMP/err') -eq 1 ]"

# A flood (two dd of 64-byte blocks: about a million calls a second here): every interval
# still ends on time, and the run with its count (the read of an interval's end looped for
# good once a CPU's pages in memory all came after it).
dd if=/dev/zero of=/dev/null bs=64 count=100000000 2> /dev/null &
D1=$!
dd if=/dev/zero of=/dev/null bs=64 count=100000000 2> /dev/null &
D2=$!
"$BIN/vfsstat" -j 1 3 > "$TMP/out" 2> "$TMP/err" &
VP=$!
wait_exit $VP 20 || RC=killed
kill $D1 $D2 2> /dev/null
wait $D1 $D2 2> /dev/null
check "vfsstat -j 1 3 beside a flood of reads: exit 0 ($RC) with three lines" sh -c "
	[ '$RC' = 0 ] && [ \$(grep -c '\"reads\":' '$TMP/out') -eq 3 ]" || show_output

for bad in "0" "x" "1 0" "-p 0" "1 2 3"; do
	"$BIN/vfsstat" $bad > "$TMP/out" 2> "$TMP/err"
	check "vfsstat $bad: usage error (exit 2), one line" sh -c \
		"[ $? -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q '^vfsstat: ' '$TMP/err'"
done
check "after every run: tracefs as before" same_state
summary
