#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of syscount: a static test program makes 1234 getppid() calls and 56 failing
# opens, and syscount --exec counts them to the call, in the kernel (hist triggers, where the
# kernel has them) and in user space alike; -P, -L, -x -e, -j, intervals, --exec's status,
# bad input and every way of stopping.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

ST=${SYS_TARGET:-$BIN/tests/sys_target}
need_programs "$ST"
if [ ! -d "$T/events/syscalls/sys_exit_getppid" ]; then
	skip "syscount: no syscall tracepoints (CONFIG_FTRACE_SYSCALLS)"
	summary
	exit 0
fi
row() { awk -v c="$1" '$1 == c {print $2}' "$TMP/out"; }
hist=no
grep -q 'hist:keys' "$T/README" && hist=yes

for mode in "" --user-space; do
	[ -z "$mode" ] && where="counted in the kernel: $hist" || where="user space"
	"$BIN/syscount" $mode --top 0 --exec "$ST" 1234 56 > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "syscount --exec ($where): exit 0, getppid counted 1234 times" sh -c \
		"[ $rc -eq 0 ] && [ \"\$(awk '\$1 == \"getppid\" {print \$2}' '$TMP/out')\" = 1234 ]"
	"$BIN/syscount" $mode -x -e ENOENT --exec "$ST" 10 56 > "$TMP/out" 2> "$TMP/err"
	check "syscount -x -e ENOENT ($where): exactly the 56 failed opens, nothing else" sh -c \
		"[ \"\$(awk '\$1 == \"openat\" || \$1 == \"open\" {s += \$2} END {print s}' '$TMP/out')\" = 56 ] &&
		 [ -z \"\$(awk '\$1 == \"getppid\"' '$TMP/out')\" ]"
	"$BIN/syscount" $mode -j --exec "$ST" 77 0 > "$TMP/out" 2> "$TMP/err"
	check "syscount -j ($where): getppid's row as JSON" sh -c \
		"grep -q '\"syscall\":\"getppid\",\"count\":77}' '$TMP/out' && '$JSONCHECK' '$TMP/out' syscall count"
	"$BIN/syscount" $mode -P --exec "$ST" 500 0 > "$TMP/out" 2> "$TMP/err"
	check "syscount -P ($where): the program's row, with at least its 500 calls" sh -c "
		awk '\$2 == \"sys_target\" && \$3 >= 500 {ok = 1} END {exit !ok}' '$TMP/out'"
	# The child's calls between its fork and its exec are its own (a row of their own named
	# syscount before): one process, one row.
	check "syscount -P --exec ($where): one row, the program's, none named syscount" sh -c "
		[ \$(awk '\$1 ~ /^[0-9]+\$/' '$TMP/out' | wc -l) -eq 1 ] && ! grep -q ' syscount ' '$TMP/out'"
	check "syscount ($where): every call of this kernel named (the table checked at start)" \
		sh -c "! grep -q 'not in the table' '$TMP/err'"
	# Intervals: two bursts of 300 calls 1.5 s apart, each in its interval's table (in the
	# kernel every table after the first was empty: its trigger was gone).
	"$BIN/syscount" $mode 1 --exec /bin/sh -c "'$ST' 300 0; sleep 1.5; '$ST' 300 0" \
		> "$TMP/out" 2> "$TMP/err"
	check "syscount 1 ($where): two bursts of 300 getppid in two tables (the shell's own in the first), nothing on stderr but the banner" sh -c "
		awk '\$1 == \"getppid\" {n++; c[n] = \$2} END {exit !(n == 2 && c[1] >= 300 && c[1] <= 303 && c[2] == 300)}' '$TMP/out' &&
		[ \$(wc -l < '$TMP/err') -eq 1 ]"
done

# Start-up as fast as one event's (raw_syscalls), whatever the kernel: a Ctrl-C half a second
# in ends the run at once (it took 4 to 8 s while ~700 events were enabled one by one), and
# a process that lives 1.5 s is traced (it was gone before tracing began: "has exited").
"$BIN/syscount" > "$TMP/out" 2> "$TMP/err" &
P=$!
sleep 0.5
kill -INT $P
if wait_exit $P 3; then
	check "syscount stopped half a second after its start: exit 0 within 3 s" [ "$RC" -eq 0 ]
else
	notok "syscount stopped half a second after its start: still running after 3 s"
fi
"$ST" 0 0 1500000 &
SP=$!
rm -f "$TMP/out" "$TMP/err"
"$BIN/syscount" -p $SP > "$TMP/out" 2> "$TMP/err" &
P=$!
wait $SP
sleep 0.3
kill -INT $P
wait_exit $P 10
check "syscount -p of a program that lives 1.5 s: its one nanosleep counted" sh -c "
	[ $RC -eq 0 ] && awk '\$1 == \"nanosleep\" || \$1 == \"clock_nanosleep\" {s += \$2}
		END {exit !(s == 1)}' '$TMP/out'" 

"$BIN/syscount" -L --exec "$ST" 300 0 > "$TMP/out" 2> "$TMP/err"
check "syscount -L: 300 getppid with a total and an average above 0" sh -c "
	awk '\$1 == \"getppid\" && \$2 == 300 && \$3 > 0 && \$4 > 0 && \$4 <= \$3 {ok = 1} END {exit !ok}' '$TMP/out'"

"$BIN/syscount" --exec sh -c 'exit 3' > "$TMP/out" 2> "$TMP/err"
rc=$?
check "--exec: the command's failure said on stderr, the tool's status its own (0)" sh -c \
	"[ $rc -eq 0 ] && grep -q \"syscount: 'sh' exited with status 3\" '$TMP/err'"

"$BIN/syscount" --exec /nonexistent/ftt-cmd > "$TMP/out" 2> "$TMP/err"
rc=$?
check "--exec of a command that is not there: exit 1, one line naming it" sh -c \
	"[ $rc -eq 1 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] &&
	 grep -q \"cannot run '/nonexistent/ftt-cmd': No such file\" '$TMP/err'"

printf '#!/nonexistent/ftt-interpreter\n' > "$TMP/script"
chmod +x "$TMP/script"
"$BIN/syscount" --exec "$TMP/script" > "$TMP/out" 2> "$TMP/err"
rc=$?
check "--exec of a script whose interpreter is not there: exit 1, the error said" sh -c \
	"[ $rc -eq 1 ] && grep -q \"cannot run '$TMP/script': No such file\" '$TMP/err'"

"$BIN/syscount" 0.5 2 > "$TMP/out" 2> "$TMP/err"
rc=$?
check "syscount 0.5 2: two tables, then exit 0" sh -c \
	"[ $rc -eq 0 ] && [ \$(grep -c '^SYSCALL' '$TMP/out') -eq 2 ]"
check "after syscount: tracefs as before" same_state

for args in "-e EWHAT|invalid ERRNO" "--top -1|invalid N" "--exec|no command given" \
	"-p 1 --exec true|not with -p" "x|invalid interval"; do
	eval "\"\$BIN/syscount\" ${args%|*}" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "syscount ${args%|*}: exit 2, one line, '${args#*|}'" sh -c \
		"[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -qF '${args#*|}' '$TMP/err'"
done
check "syscount's bad input changed nothing in tracefs" same_state

stop_cases syscount "$BIN/syscount" 1
check "at the end: tracefs as it was" same_state
summary
