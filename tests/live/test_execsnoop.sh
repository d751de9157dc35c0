#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of execsnoop: a test program execs the static sys_target in every way a program
# can (the C library's execv, the system call itself, from a thread, execveat, fexecve) with
# arguments that need quoting, and each exec must be shown once with its PID, parent, result
# and exact arguments, by whichever mechanism this kernel offers (each one forced with --via
# where the kernel has it); failures, --max-args, -n, -l, --exec, quoting, bad input and
# every way of stopping.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

ET=${EXEC_TARGET:-$BIN/tests/exec_target}
ST=${SYS_TARGET:-$BIN/tests/sys_target}
need_programs "$ET" "$ST"
if [ ! -d "$T/events/syscalls/sys_enter_execve" ] || [ ! -d "$T/events/sched/sched_process_exec" ]; then
	skip "execsnoop: no syscall tracepoints (CONFIG_FTRACE_SYSCALLS) or sched_process_exec"
	summary
	exit 0
fi

# start ARGS...: execsnoop in the background (output in $TMP/out), ready to trace; stop:
# Ctrl-C, and its exit status in $RC.
start() { start_bg "$BIN/execsnoop" "$@"; }
stop() { stop_bg; }
# Where the best way to the arguments is /proc (RHEL 8.1's 4.18 in its static guest: no
# kprobe rung there, execsnoop(8), and no C library to probe), a short-lived exec has none:
# the checks of arguments' contents are skipped, with that reason.
PROC_ONLY=
"$BIN/execsnoop" -d 0.1 2>&1 > /dev/null | grep -q '^Tracing exec()s, arguments via /proc' && PROC_ONLY=1
acheck() {
	if [ -n "$PROC_ONLY" ]; then
		skip "$1: arguments only from /proc here (no kprobe rung on RHEL 8.1's 4.18, no C library to probe): a short-lived exec has none"
		return 0
	fi
	check "$@"
}
# line PID: execsnoop's JSON line of the exec by PID whose program is sys_target (the exec
# of the test program itself is another line).
line() { grep "\"pcomm\":\"sys_target\",\"pid\":$1," "$TMP/out"; }
json_args() { printf '%s' "\"args\":[\"$ST\",\"$1 1\",\"q\\\"x\",\"\"],\"args_cut\":false"; }

# fexecve (execveat on a file descriptor, AT_EMPTY_PATH) fails with ENOENT in Debian's 5.10
# guest; where it fails untraced, execsnoop must show that failure (with -x), not a success.
FEXECVE_ERR=
"$ET" fexecve "$ST" 0 0 > /dev/null 2> "$TMP/fexecve.err" ||
	FEXECVE_ERR=$(sed 's/^exec_target: fexecve [^:]*: //' "$TMP/fexecve.err")

# --- the best mechanism here, and every way to exec ---------------------------------------------
for via in "" kprobe eprobe uprobe proc; do
	if [ -n "$via" ]; then
		"$BIN/execsnoop" --via $via -d 0.1 > /dev/null 2> "$TMP/err"
		if [ $? -ne 0 ]; then
			check "--via $via where the kernel has none: exit 1 naming what is missing" \
				grep -q "^execsnoop: --via $via: " "$TMP/err"
			continue
		fi
	fi
	start -x -j ${via:+--via $via} || continue
	mech=$(sed -n 's/^Tracing exec()s, arguments via \([^ ]*\).*/\1/p' "$TMP/err" | sed 's/\.$//')
	vname=${via:-best ($mech)}
	for how in libc raw thread execveat fexecve; do
		"$ET" $how "$ST" "$how 1" 'q"x' '' > "$TMP/pid.$how" 2> /dev/null
	done
	"$ET" libc /nonexistent/ftt-exec a > "$TMP/pid.fail" 2> /dev/null
	stop
	check "--via $vname: exit 0, valid JSON lines" sh -c \
		"[ $RC -eq 0 ] && '$JSONCHECK' '$TMP/out' pcomm pid ppid ret args"
	for how in libc raw thread execveat fexecve; do
		pid=$(cat "$TMP/pid.$how")
		call=execve
		[ $how = execveat ] || [ $how = fexecve ] && call=execveat
		if [ $how = fexecve ] && [ -n "$FEXECVE_ERR" ]; then
			check "--via $vname, fexecve failing here ($FEXECVE_ERR, untraced too): shown, execveat, RET -2" \
				grep -qF "\"pcomm\":\"exec_target\",\"pid\":$pid,\"ppid\":$$,\"call\":\"execveat\",\"ret\":-2," "$TMP/out"
			continue
		fi
		# Where the arguments of a static program exec'd without the C library can
		# come from: kprobes and eprobes see every exec; uprobes do not, then /proc.
		line "$pid" > "$TMP/line"
		# fexecve: 4.9 and 4.19 name the program after the descriptor ("/dev/fd/3",
		# comm "3"; 6.1 after the file): the line is the pid's execveat of /dev/fd/N.
		if [ $how = fexecve ] && [ ! -s "$TMP/line" ]; then
			grep -E "\"pcomm\":\"[0-9]+\",\"pid\":$pid,\"ppid\":$$,\"call\":\"execveat\",\"ret\":0,\"filename\":\"/dev/fd/[0-9]+\"" "$TMP/out" > "$TMP/line"
		fi
		if [ $how = raw ] && { [ "$mech" = uprobes ] || [ "$mech" = /proc/PID/cmdline ]; }; then
			check "--via $vname, $how: shown once, from /proc ([late]) or without arguments" sh -c "
				[ \$(wc -l < '$TMP/line') -eq 1 ] &&
				grep -Eq '\"args_from\":\"(proc|none)\"' '$TMP/line'" || cat "$TMP/line"
			continue
		fi
		# An eprobe that reads no user memory (6.1, 6.12): /proc, marked.
		want=$(json_args "$how")
		if [ "$mech" = event ] && grep -q '"args_from":"proc"' "$TMP/line"; then
			want="$want,\"args_from\":\"proc\""
		fi
		# /proc only: read after the exec, too late for a program that ends at once.
		if [ "$mech" = /proc/PID/cmdline ] && grep -q '"args_from":"none"' "$TMP/line"; then
			want='"args":null,"args_cut":false,"args_from":"none"'
		elif [ "$mech" = /proc/PID/cmdline ]; then
			want="$want,\"args_from\":\"proc\""
		fi
		check "--via $vname, $how: one line, PID $pid, parent $$, $call, exact arguments" sh -c "
			[ \$(wc -l < '$TMP/line') -eq 1 ] &&
			grep -qF '\"ppid\":$$,\"call\":\"$call\",\"ret\":0,' '$TMP/line' &&
			grep -qF '$want' '$TMP/line'" || { echo "# want $want"; sed 's/^/#   /' "$TMP/line"; }
	done
	pid=$(cat "$TMP/pid.fail")
	if [ "$mech" = /proc/PID/cmdline ]; then
		check "--via $vname: the failed exec, RET -2, no arguments" \
			grep -qF "\"pcomm\":\"exec_target\",\"pid\":$pid,\"ppid\":$$,\"call\":\"execve\",\"ret\":-2,\"filename\":null,\"args\":null" "$TMP/out"
	else
		check "--via $vname: the failed exec, RET -2, its arguments" \
			grep -qF "\"pcomm\":\"exec_target\",\"pid\":$pid,\"ppid\":$$,\"call\":\"execve\",\"ret\":-2,\"filename\":null,\"args\":[\"/nonexistent/ftt-exec\",\"a\"]" "$TMP/out"
	fi
	check "--via $vname: tracefs as before" same_state
done

# /proc only, a program that lives long enough (2,000,000 getppid calls): its arguments, late.
if start -j --via proc; then
	"$ET" libc "$ST" 2000000 0 > "$TMP/pid.proc"
	stop
	line "$(cat "$TMP/pid.proc")" > "$TMP/line"
	check "--via proc: a program still running when read: its arguments, marked as from /proc" \
		grep -qF "\"args\":[\"$ST\",\"2000000\",\"0\"],\"args_cut\":false,\"args_from\":\"proc\"" "$TMP/line"
fi

# On this machine's kind of kernel (uprobes only): a dynamically linked program exec'd by the
# system call itself, not the C library: its arguments from the loader's entry.
if [ -x /bin/true ] && grep -q ld-linux /bin/true &&
	"$BIN/execsnoop" --via uprobe -d 0.1 > /dev/null 2>&1 && start -j --via uprobe; then
	"$ET" raw /bin/true "raw 2" 'q"x' > "$TMP/pid.raw"
	stop
	pid=$(cat "$TMP/pid.raw")
	if grep -q "and .*ld-linux" "$TMP/err"; then
		check "uprobe: a dynamic program exec'd without the C library: arguments from the loader" \
			grep -qF "\"pcomm\":\"true\",\"pid\":$pid,\"ppid\":$$,\"call\":\"execve\",\"ret\":0,\"filename\":\"/bin/true\",\"args\":[\"/bin/true\",\"raw 2\",\"q\\\"x\"],\"args_cut\":false,\"args_from\":\"loader\"" "$TMP/out"
	else
		skip "execsnoop at the loader's entry: the loader could not be probed here"
	fi
else
	skip "execsnoop at the loader's entry: no uprobes on a dynamic loader here (static guest)"
fi

# --- long arguments: whole, or cut and said so with their length --------------------------------
# One trace event holds about 4 KB: an argument of 5,000 bytes was a silent prefix of a few
# hundred bytes (the uprobes here), or the whole exec showed "[no arguments]" (kprobes, and
# uprobes with 2 x 3,000 bytes). Now each argument is whole, or cut with its true length
# (null: a length no mechanism here can tell), and args_cut says so.
A5000=$(head -c 5000 /dev/zero | tr '\0' a)
B3000=$(head -c 3000 /dev/zero | tr '\0' b)
L0=${#ST}
# long_case NAME PID ARGS-ERE TAIL-ERE: the line of PID's exec of sys_target has arguments
# matching ARGS-ERE and, from "args_cut" to its end, TAIL-ERE.
long_case() {
	line "$2" > "$TMP/line"
	grep -o '"args_cut":.*' "$TMP/line" > "$TMP/tail"
	acheck "$1" sh -c "grep -Eq '\"args\":\\[$3\\]' '$TMP/line' && grep -Eq '^$4}\$' '$TMP/tail'" ||
		cut -c1-300 "$TMP/line"
}
if start -j; then
	"$ET" libc "$ST" "$A5000" x > "$TMP/pid.l1"
	"$ET" libc "$ST" "$B3000" "$B3000" y > "$TMP/pid.l2"
	"$ET" libc "$ST" "$(head -c 100 /dev/zero | tr '\0' c)" > "$TMP/pid.l3"
	stop
	long_case "a 5,000-byte argument: a prefix of it, cut, its length 5000 (or not known), never whole" \
		"$(cat "$TMP/pid.l1")" "\"($ST)?\",\"a*\",\"x?\"" \
		"\"args_cut\":true,\"args_from\":\"[a-z]+\",\"arg_lengths\":\\[($L0|null),(5000|null),(1|null)\\]"
	long_case "2 x 3,000 bytes (more than an event holds): four arguments, cut, not none" \
		"$(cat "$TMP/pid.l2")" "\"($ST)?\",\"b*\",\"b*\",\"y?\"" \
		"\"args_cut\":true,\"args_from\":\"[a-z]+\",\"arg_lengths\":\\[($L0|null),(3000|null),(3000|null),(1|null)\\]"
	long_case "a 100-byte argument: whole, not cut, length 100" \
		"$(cat "$TMP/pid.l3")" "\"$ST\",\"c{100}\"" \
		"\"args_cut\":false,\"args_from\":\"[a-z]+\",\"arg_lengths\":\\[$L0,100\\]"
fi
if start -n sys_target; then
	"$ET" libc "$ST" "$A5000" > /dev/null
	stop
	# (A kprobe's record too large is not written: then each argument empty, with its length.)
	acheck "text: the cut argument marked, with its length where it is known" \
		grep -Eq "^sys_target .* ($ST|\"\" \\[cut: $L0 bytes\\]) (a*|\"\") \\[cut(: 5000 bytes)?\\]\$" "$TMP/out"
fi
# A dynamic program's loader reads its stack: exact lengths even without the C library.
if [ -x /bin/true ] && grep -q ld-linux /bin/true &&
	"$BIN/execsnoop" --via uprobe -d 0.1 > /dev/null 2>&1 && start -j --via uprobe &&
	grep -q "and .*ld-linux" "$TMP/err"; then
	"$ET" raw /bin/true "$A5000" > "$TMP/pid.raw"
	stop
	pid=$(cat "$TMP/pid.raw")
	check "uprobe, a dynamic program exec'd without the C library: cut, length 5000 from its stack" \
		grep -Eq "\"pid\":$pid,.*\"args\":\[\"/bin/true\",\"a*\"\],\"args_cut\":true,\"args_from\":\"loader\",\"arg_lengths\":\[9,5000\]}" "$TMP/out"
fi
# /proc: read to its end, for the true length of what the buffer does not hold.
if start -j --via proc; then
	"$ET" libc "$ST" 2000000 0 "$A5000" > "$TMP/pid.proc"
	stop
	long_case "--via proc: a 5,000-byte argument cut with its length" "$(cat "$TMP/pid.proc")" \
		"\"$ST\",\"2000000\",\"0\",\"a+\"" \
		"\"args_cut\":true,\"args_from\":\"proc\",\"arg_lengths\":\\[$L0,7,1,5000\\]"
fi

# --- text, filters, options ------------------------------------------------------------------
if start -n sys_target; then
	"$ET" libc "$ST" "a b" 'q"x' '' 'back\slash' "$(printf 'nl\nx')" ftt-plain > "$TMP/pid.t"
	stop
	pid=$(cat "$TMP/pid.t")
	acheck "text: each argument one word, quoted and escaped only where needed" \
		grep -qF "$ST \"a b\" \"q\\\"x\" \"\" \"back\\\\slash\" \"nl\\x0ax\" ftt-plain" "$TMP/out"
	check "-n sys_target: only that program's lines (header and its one exec)" sh -c "
		[ \$(wc -l < '$TMP/out') -eq 2 ] && grep -q '^sys_target  *$pid  *$$  *0 ' '$TMP/out'"
fi
if start -q -l 'ftt-mark-*'; then
	"$ET" libc "$ST" ftt-mark-1 > /dev/null
	"$ET" libc "$ST" other > /dev/null
	stop
	acheck "-q -l 'ftt-mark-*': the two execs with that argument, every argument quoted" sh -c "
		[ \$(grep -c . '$TMP/out') -eq 3 ] && grep -qF '\"$ST\" \"ftt-mark-1\"' '$TMP/out' &&
		grep -qF '\"$ET\" \"libc\" \"$ST\" \"ftt-mark-1\"' '$TMP/out'"
fi
if start --max-args 3; then
	"$ET" libc "$ST" 1 2 3 4 5 > /dev/null
	"$ET" libc "$ST" 1 > /dev/null
	stop
	acheck "--max-args 3: a longer argv cut and marked, a shorter one whole" sh -c "
		grep -q '$ST 1 2 \\[\\.\\.\\.\\]\$' '$TMP/out' && grep -q '$ST 1\$' '$TMP/out'"
fi
if start -j; then
	set -- 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25
	"$ET" libc "$ST" "$@" > "$TMP/pid.long"
	stop
	line "$(cat "$TMP/pid.long")" > "$TMP/line"
	acheck "25 arguments: the default 20 shown, marked as cut in JSON" sh -c "
		cat '$TMP/line' | grep -qF '\"args\":[\"$ST\",\"1\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\",\"8\",\"9\",\"10\",\"11\",\"12\",\"13\",\"14\",\"15\",\"16\",\"17\",\"18\",\"19\"],\"args_cut\":true'"
fi

# --exec: the command's own exec, then what it runs; nothing else.
"$BIN/execsnoop" --exec "$ET" libc "$ST" ftt-e1 > "$TMP/out" 2> "$TMP/err"
rc=$?
acheck "--exec: exit 0, the command's exec and the one it makes, nothing else" sh -c "
	[ $rc -eq 0 ] && [ \$(grep -v '^[0-9]*\$' '$TMP/out' | grep -vc '^PCOMM') -eq 2 ] &&
	grep -q '^exec_target .* $ET libc $ST ftt-e1\$' '$TMP/out' &&
	grep -q '^sys_target .* $ST ftt-e1\$' '$TMP/out'"

for args in "--max-args 0|invalid N" "--max-args 41|invalid N" "--via x|invalid --via" \
	"-l ''|invalid ARG" "-n '['|invalid NAME" "-p 1 --exec true|not with -p" "extra|unexpected"; do
	eval "\"\$BIN/execsnoop\" ${args%|*}" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "execsnoop ${args%|*}: exit 2, one line, '${args#*|}'" sh -c \
		"[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -qF '${args#*|}' '$TMP/err'"
done
check "execsnoop's bad input changed nothing in tracefs" same_state

stop_cases execsnoop "$BIN/execsnoop"
check "at the end: tracefs as it was" same_state
summary
