#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of --exec in the tools that are not syscount's (tests/live/test_syscount.sh has
# its own): the command is traced from its first call, with the processes it starts, the
# tool ends with it, and nothing is left in tracefs.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

ST=${SYS_TARGET:-$BIN/tests/sys_target}
need_programs "$ST"
if [ ! -d "$T/events/syscalls/sys_enter_getppid" ]; then
	skip "--exec: no syscall tracepoints (CONFIG_FTRACE_SYSCALLS)"
	summary
	exit 0
fi

# Two runs of the program under a shell: 100 + 200 getppid() calls, all of them its own.
"$BIN/tpoint" -k comm syscalls:sys_enter_getppid --exec sh -c "$ST 100 0; $ST 200 0" \
	> "$TMP/out" 2> "$TMP/err"
rc=$?
check "tpoint -k comm --exec sh -c 'two runs': exit 0, the children's 300 calls, no task but sh's" sh -c "
	[ $rc -eq 0 ] && awk '\$1 == \"sys_target\" && \$2 == 300 {ok = 1}
		\$1 != \"sys_target\" && \$1 != \"sh\" && \$2 ~ /^[0-9]+\$/ {bad = 1}
		END {exit !(ok && !bad)}' '$TMP/out'"

"$BIN/tpoint" -c syscalls:sys_enter_getppid --exec "$ST" 5 0 > "$TMP/out" 2> "$TMP/err"
rc=$?
check "tpoint -c --exec: ends with the command, exit 0, its 5 calls in all" sh -c "
	[ $rc -eq 0 ] && awk '\$NF ~ /^[0-9]+\$/ {s += \$NF} END {exit s != 5}' '$TMP/out'"

# Nothing the tool does to start the command is counted, whatever counts: the command (static,
# no loader) makes exactly 12 reads, and -j, -c and --hist say 12, at the calls' entry and at
# their exit (a child held in a read of a pipe showed that read's exit every run, and its
# entry when it reached the read after tracing began).
for ev in sys_enter_read sys_exit_read; do
	"$BIN/tpoint" -j syscalls:$ev --exec "$ST" reads 12 > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "tpoint -j $ev --exec (12 reads): exit 0, 12 events, all the command's" sh -c "
		[ $rc -eq 0 ] && [ \$(wc -l < '$TMP/out') -eq 12 ] &&
		[ \$(grep -c '\"comm\":\"sys_target\"' '$TMP/out') -eq 12 ]"
	"$BIN/tpoint" -c -j syscalls:$ev --exec "$ST" reads 12 > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "tpoint -c -j $ev --exec (12 reads): count 12" sh -c "
		[ $rc -eq 0 ] && awk -F'\"count\":' 'NF == 2 {s += \$2 + 0} END {exit s != 12}' '$TMP/out'"
done
"$BIN/tpoint" --hist count --power 10 syscalls:sys_enter_read --exec "$ST" reads 12 \
	> "$TMP/out" 2> "$TMP/err"
rc=$?
check "tpoint --hist count --power 10 --exec (12 reads of 1 byte): 12 in [1, 10), no other" sh -c "
	[ $rc -eq 0 ] && awk '\$2 == \"->\" && \$4 == \":\" {s += \$5; if (\$1 == 1) one = \$5}
		END {exit !(s == 12 && one == 12)}' '$TMP/out'"
for L in "" -L; do
	"$BIN/syscount" $L --exec "$ST" reads 12 > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "syscount $L --exec (12 reads): read 12, execve 1" sh -c "
		[ $rc -eq 0 ] && awk '\$1 == \"read\" {r = \$2} \$1 == \"execve\" {e = \$2}
			END {exit !(r == 12 && e == 1)}' '$TMP/out'"
done
# Before the command's exec only its execve call is seen (no read's exit), and the exec is
# seen; no SIGCHLD of the held child's continuing (CLD_CONTINUED, 6) goes to the tool, only
# the exit's (CLD_EXITED, 1; 4.9 shows the code with the kernel's class bits: 0x40001).
"$BIN/tpoint" 'raw_syscalls:*' --exec "$ST" reads 1 > "$TMP/out" 2> "$TMP/err"
rc=$?
check "tpoint raw_syscalls:* --exec: first the execve's entry, then its exit as the command" sh -c "
	[ $rc -eq 0 ] && awk '/ sys_(enter|exit): NR / {n++
			if (n == 1) a = (\$0 ~ /sys_enter: NR 59 /)
			if (n == 2) b = (\$0 ~ /^ *sys_target-.*sys_exit: NR 59 = 0/) }
		END {exit !(a && b)}' '$TMP/out'"
"$BIN/tpoint" signal:signal_generate --exec "$ST" reads 1 > "$TMP/out" 2> "$TMP/err"
rc=$?
check "tpoint signal_generate --exec: only the SIGCHLD of the command's exit" sh -c "
	[ $rc -eq 0 ] && [ \$(grep -c 'signal_generate:' '$TMP/out') -eq 1 ] &&
	awk '/signal_generate: sig=17 / {
			for (i = 1; i <= NF; i++) if (\$i ~ /^code=/) code = substr(\$i, 6) + 0 }
		END {exit code % 65536 != 1}' '$TMP/out'"

# opensnoop sees the command's opens, and only its own (cat: dynamically linked on this
# machine, where only the C library's opens can be seen; busybox's in the guests).
"$BIN/opensnoop" -x '/nonexistent/*' --exec cat /nonexistent/ftt-a /nonexistent/ftt-b \
	> "$TMP/out" 2> "$TMP/err"
rc=$?
check "opensnoop -x PATTERN --exec cat A B: exit 0, the 2 failed opens of cat, nothing else" sh -c "
	[ $rc -eq 0 ] && [ \$(grep -c '^cat .* /nonexistent/ftt-[ab]\$' '$TMP/out') -eq 2 ] &&
	[ \$(grep -vc '^COMM' '$TMP/out') -eq 2 ] && grep -q \"'cat' exited with status 1\" '$TMP/err'"

# How the command ended, when it failed or was killed, is the last thing said, in every
# tool (the driver's): capable, a streaming tool; syscount, whose summary comes first.
"$BIN/capable" --exec false > "$TMP/out" 2> "$TMP/err"
rc=$?
check "capable --exec false: exit 0, its status said last on stderr" sh -c "
	[ $rc -eq 0 ] && tail -1 '$TMP/err' | grep -qxF \"capable: 'false' exited with status 1\"" ||
	sed 's/^/# /' "$TMP/err"
"$BIN/syscount" --exec sh -c 'kill -TERM $$' > "$TMP/out" 2>&1
rc=$?
check "syscount --exec of a command killed by SIGTERM: exit 0, said after the counts" sh -c "
	[ $rc -eq 0 ] && grep -q '^SYSCALL' '$TMP/out' &&
	tail -1 '$TMP/out' | grep -qxF \"syscount: 'sh' was killed by signal 15 (SIGTERM)\"" ||
	sed 's/^/# /' "$TMP/out"

"$BIN/tpoint" --exec > "$TMP/out" 2> "$TMP/err"
rc=$?
check "tpoint --exec without a command: exit 2, one line" sh -c \
	"[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q 'no command given' '$TMP/err'"
"$BIN/opensnoop" --exec /nonexistent/ftt-cmd > "$TMP/out" 2> "$TMP/err"
rc=$?
check "opensnoop --exec of a command that is not there: exit 1, one line" sh -c \
	"[ $rc -eq 1 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q 'cannot run' '$TMP/err'"
"$BIN/iosnoop" --exec true > "$TMP/out" 2> "$TMP/err"
rc=$?
check "iosnoop has no --exec: a usage error (exit 2)" sh -c "[ $rc -eq 2 ]"

# Stopped before the command ends: the tool says the command still runs, and does not wait.
# (sleep 30, not 3: a loaded machine (make check SANITIZE=1 beside the guests) took over 3 s
# from start to end, the command had ended, and nothing was to be said.)
"$BIN/tpoint" -d 0.3 syscalls:sys_enter_getppid --exec sleep 30 > "$TMP/out" 2> "$TMP/err"
rc=$?
check "tpoint -d 0.3 --exec sleep 30: exit 0 at once, 'still running' said" sh -c \
	"[ $rc -eq 0 ] && grep -q \"'sleep' (PID [0-9]*) is still running\" '$TMP/err'"
left=$(sed -n "s/.*'sleep' (PID \([0-9]*\)) is still running.*/\1/p" "$TMP/err")
[ -n "$left" ] && kill "$left" 2> /dev/null
check "at the end: tracefs as it was" same_state
summary
