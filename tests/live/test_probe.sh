#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of tpoint, uprobe and kprobe: exact events from a test program with known calls,
# the kernel's explanation of bad definitions, and every way of stopping.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

need_programs "$UT"

# The JSON checker the -j tests rely on must reject what is not JSON.
bad=0
for l in '{"a":1,}' '{"a":01}' '{"a":"x\q"}' '{"a":1} x' '[1]' '{"a":tru}' '{"a":"x	y"}' \
	'{"a":1' '{a:1}' '{"a":-}' '{"a":1.}' '{"a":"\u12"}' ''; do
	printf '%s\n' "$l" > "$TMP/j"
	"$JSONCHECK" "$TMP/j" 2> /dev/null && { echo "# jsoncheck accepted: $l"; bad=1; }
done
printf '%s\n' '{"a":[1,-2.5e3,{"b":null}],"c":"\u00e9\n\"","d":true,"e":false,"f":{}}' > "$TMP/j"
"$JSONCHECK" "$TMP/j" a c || bad=1
"$JSONCHECK" "$TMP/j" b 2> /dev/null && bad=1 # a nested key is not a top-level one
check "jsoncheck rejects 13 malformed lines and accepts valid JSON with its top-level keys" [ $bad -eq 0 ]

# --- tpoint ---------------------------------------------------------------------------------
# -v says what a run takes of the kernel's memory; the run's instances have that (the
# kernel rounds a size up to whole pages of data: 8192 KB is 8195).
"$BIN/tpoint" -v sched:sched_switch > "$TMP/v" 2> /dev/null
vkb=$(sed -n 's/.* takes \([0-9]*\) KB per CPU of ring buffer for its events and \([0-9]*\) KB per CPU.*/\1 \2/p' "$TMP/v")
if start_bg "$BIN/tpoint" -d 5 sched:sched_switch; then
	got="$(cat "$T/instances/ftrace-tools-tpoint-${BGPID}_"*/buffer_size_kb) $(cat "$T/instances/ftrace-tools-tpoint.names-${BGPID}_"*/buffer_size_kb)"
	check "tpoint -v: the buffers it names ($vkb KB per CPU) are the run's ($got)" \
		awk -v w="$vkb" -v g="$got" 'BEGIN { n = split(w, a, " "); split(g, b, " ")
			for (i = 1; i <= 2; i++) if (n != 2 || b[i] < a[i] || b[i] > a[i] * 1.01 + 4) exit 1 }'
	stop_bg
	check "tpoint -v's run: exit 0" [ "$RC" -eq 0 ]
fi
if [ -d "$T/events/syscalls/sys_enter_openat" ]; then
	trace_target -p "$BIN/tpoint" syscalls:sys_enter_openat
	check "tpoint -p: exactly the 2 openat() calls of the test program" \
		[ "$(grep -c 'sys_enter_openat:' "$TMP/out")" -eq 2 -a "$(wc -l < "$TMP/out")" -eq 2 ]
	check "tpoint: the process is named in each line" sh -c "grep -c 'uprobe_target-$UTPID ' '$TMP/out' | grep -qx 2"

	trace_target -p "$BIN/tpoint" -U syscalls:sys_enter_openat
	ucheck "tpoint -U: each openat() followed by its user stack, first frame in the C library's open" sh -c "
		[ \$(grep -c 'sys_enter_openat:' '$TMP/out') -eq 2 ] &&
		[ \$(grep -A2 'sys_enter_openat:' '$TMP/out' | grep -A1 -x ' <user stack>' | grep -Ec '^ => [_a-z0-9]*open[_a-z0-9]*\+0x[0-9a-f]+ \(/') -eq 2 ]"

	# The kernel stack of a syscall event: through do_syscall_64, only the entry code on
	# 4.19 (the frames below it skipped), none at all on 4.9 and 4.14 (4.9's own trace: an empty
	# <stack trace>).
	trace_target -p "$BIN/tpoint" -s -U syscalls:sys_enter_openat
	kwant=2
	case $(uname -r) in 4.9.*|4.14.*) kwant=0 ;; esac
	ucheck "tpoint -s -U: the kernel stack, then a '<user stack>' line, then the user frames" awk -v kwant=$kwant '
		/sys_enter_openat:/ { ev++; part = "k"; seen = 0; next }
		/^ <user stack>$/ { part = "u"; first = 1; next }
		part == "k" && /^ => .*(do_syscall_64|entry_SYSCALL_64)/ && !seen { k++; seen = 1 }
		part == "u" && first { if (/^ => [_a-z0-9]*open[_a-z0-9]*\+0x/) u++; first = 0 }
		END { exit !(ev == 2 && k == kwant && u == 2) }' "$TMP/out"

	# --folded with -s and -U: the 2 openat() calls counted, kernel frames after the user
	# ones, each ending in _[k] (none recorded on 4.9 and 4.14, as above).
	trace_target -p "$BIN/tpoint" -s -U --folded syscalls:sys_enter_openat
	ucheck "tpoint -s -U --folded: counts adding up to 2, kernel frames last with _[k]" awk -v kwant=$kwant '
		{ n += $NF; s = $0; sub(/ [0-9]+$/, "", s); m = split(s, f, ";")
		  if (f[1] != "uprobe_target") bad++
		  first = 0
		  for (i = 2; i <= m; i++)
			if (f[i] ~ /_\[k\]$/) { if (!first) first = i } else if (first) bad++
		  if (first && f[first - 1] ~ /open/) k += $NF
		  if (!first && f[m] ~ /open/) k0 += $NF }
		END { exit !(n == 2 && !bad && (kwant ? k == 2 : k0 == 2)) }' "$TMP/out"

	trace_target -p "$BIN/tpoint" -c syscalls:sys_enter_openat
	check "tpoint -c -p: the counts add up to 2" \
		[ "$(awk '$1 == "syscalls:sys_enter_openat" {s += $2} END {print s + 0}' "$TMP/out")" -eq 2 ] ||
		target_state
else
	skip "tpoint on syscalls: no syscalls:sys_enter_openat (CONFIG_FTRACE_SYSCALLS)"
fi

# The CPUs merged in time order: two threads pinned to CPUs 0 and 1 write in turn, each write
# caused by the other's (sched_target xcpu). Their 2 x 2000 writes must come alternating, each
# on its thread's CPU, the times never going back: a merge that lets one CPU's events pass
# the other's, or clocks of the two CPUs apart, shows two writes of one side in a row.
xcpu_order() { # FILE N
	awk -v n="$2" '
	/"event":"syscalls:sys_enter_write"/ {
		match($0, /"ts":[0-9.]+/); ts = substr($0, RSTART + 5, RLENGTH - 5) + 0
		match($0, /"pid":[0-9]+/); pid = substr($0, RSTART + 6, RLENGTH - 6)
		match($0, /"cpu":[0-9]+/); cpu = substr($0, RSTART + 6, RLENGTH - 6)
		if (!(pid in side)) { if (sides == 2) next; side[pid] = sides++ } # the main thread: its line at the end
		s = side[pid]
		if (s != k % 2 || cpu != s || ts < last) {
			printf "# write %d: pid %s on CPU %s at %.6f, the last at %.6f\n", k + 1, pid, cpu, ts, last
			bad = 1; exit
		}
		last = ts; k++
	}
	END { if (bad || k != 2 * n) { if (!bad) print "# " k " writes of " 2 * n; exit 1 } }' "$1"
}
need_program ST sched_target
if [ "$(nproc)" -lt 2 ]; then
	skip "tpoint: the merge of two CPUs needs 2 CPUs online"
elif [ -d "$T/events/syscalls/sys_enter_write" ]; then
	touch "$TMP/go"
	# By the trace clock -v names (local where it is the same on every CPU, mapped), and
	# where that is local, again by mono (FTT_TRACE_CLOCK=mono): both merges are checked.
	clock=$(sed -n 's/^tpoint: events ordered across CPUs by the trace clock \([a-z]*\).*/\1/p' "$TMP/v")
	clocks=mono
	[ "$clock" = local ] && clocks="local mono"
	for c in $clocks; do
		FTT_TRACE_CLOCK=$c "$BIN/tpoint" -j syscalls:sys_enter_write --exec "$ST" "$TMP/go" xcpu 2000 0 > "$TMP/x.out" 2> "$TMP/x.err" &
		wait_exit $! 60
		check "tpoint --exec, two threads on two CPUs writing in turn: exit 0, 2 x 2000 writes (clock $c)" \
			sh -c "[ $RC -eq 0 ] && grep -q '^xcpu 2000 ' '$TMP/x.err'" &&
			check "tpoint --exec: CPUs merged in time order (xcpu, clock $c)" xcpu_order "$TMP/x.out" 2000
	done
	# Times are CLOCK_MONOTONIC whichever clock ordered them: each getppid() of the program
	# lies between its two readings of CLOCK_MONOTONIC (200 us of leeway: the pairing of a
	# kept clock is read between two readings too). local and mono are 20 ms apart here:
	# times not mapped fail it.
	if [ -d "$T/events/syscalls/sys_enter_getppid" ]; then
		for c in $clocks; do
			FTT_TRACE_CLOCK=$c "$BIN/tpoint" -j syscalls:sys_enter_getppid --exec "$ST" "$TMP/go" clock 20 5 > "$TMP/c.out" 2> "$TMP/c.err"
			check "tpoint -j: each of 20 getppid() at a time between the program's two CLOCK_MONOTONIC readings (clock $c)" \
				awk '
				FNR == NR { if ($1 == "clock") { lo[n] = $2 / 1e9 - 0.0002; hi[n] = $3 / 1e9 + 0.0002; n++ }; next }
				/"event":"syscalls:sys_enter_getppid"/ {
					match($0, /"ts":[0-9.]+/); ts = substr($0, RSTART + 5, RLENGTH - 5) + 0
					if (ts < lo[k] || ts > hi[k]) { printf "# call %d at %.6f, not in [%.6f, %.6f]\n", k + 1, ts, lo[k], hi[k]; bad = 1 }
					k++ }
				END { exit bad || n != 20 || k != 20 }' "$TMP/c.err" "$TMP/c.out"
		done
	fi
	# The whole machine, the writes by their descriptors.
	if start_bg "$BIN/tpoint" -j syscalls:sys_enter_write 'fd >= 900 && fd <= 903'; then
		"$ST" "$TMP/go" xcpu 2000 0 > "$TMP/x.err"
		stop_bg
		check "tpoint, the whole machine: CPUs merged in time order (xcpu)" xcpu_order "$TMP/out" 2000
	fi
fi

if [ -d "$T/events/syscalls/sys_enter_read" ]; then
	rm -f "$TMP/out" "$TMP/err" # the wait below must not see the last run's banner
	"$BIN/tpoint" -k pid -d 1 syscalls:sys_enter_read > "$TMP/out" 2> "$TMP/err" &
	TPID=$!
	wait_exit $TPID 10
	check "tpoint -k pid on read(2): the tool's own reads of the buffers are not counted" sh -c "
		grep -q COUNT '$TMP/out' && ! grep -Eq '^ +$TPID +[0-9]+\$' '$TMP/out'"
fi

# A field whose C type is signed is shown signed, whatever the format's "signed:" says: kill's
# pid_t target is "size:8; signed:0" in the syscall formats (4294967295 for -1 before).
if [ -d "$T/events/syscalls/sys_enter_kill" ]; then
	# A process group of its own (this shell's may be 0, under the guests' init).
	setsid sleep 30 > /dev/null 2>&1 &
	PGID=$!
	sleep 0.3
	start_bg "$BIN/tpoint" -j syscalls:sys_enter_kill "common_pid == $$"
	kill -0 -1 2> /dev/null
	kill -0 -$PGID 2> /dev/null
	stop_bg
	check "tpoint -j: kill -0 -1 and kill -0 -PGID with their pid_t targets negative" sh -c "
		grep -q '\"event\":\"syscalls:sys_enter_kill\",\"fields\":{\"__syscall_nr\":[0-9]*,\"pid\":-1,\"sig\":0}' '$TMP/out' &&
		grep -q '\"pid\":-$PGID,\"sig\":0}' '$TMP/out'"
	kill $PGID 2> /dev/null
	wait $PGID 2> /dev/null
	start_bg "$BIN/tpoint" -k field.pid syscalls:sys_enter_kill "common_pid == $$"
	kill -0 -1 2> /dev/null
	kill -0 -1 2> /dev/null
	stop_bg
	check "tpoint -k field.pid: the two kill -0 -1 counted under -1" \
		grep -Eq '^ +-1 +2$' "$TMP/out"
fi

# --- --hist counted in the kernel (two hist triggers) and here, on hostile values ----------
# 0, -1, -2, -4096, and every power of two with its two neighbours, as 64-bit numbers: the
# kernel's log2 bins the powers of two with the numbers below them and overflows from 2^63.
ST=${SYS_TARGET:-$BIN/tests/sys_target}
V="0 -1 -2 -4096"
k=0
while [ $k -le 63 ]; do
	p=$((1 << k))
	V="$V $p $((p - 1)) $((p + 1))"
	k=$((k + 1))
done
wide=no
grep -q 'hist:keys' "$T/README" && wide=yes
# Fields of less than 8 bytes: from the rework of .log2 (Linux 4.17, with synthetic events).
narrow=$wide
[ -e "$T/synthetic_events" ] || narrow=no
# With --exec (-p, -L): where the triggers count those tasks alone (Linux 5.15: before, the
# syscall events' and probes' triggers saw every task's; numeric literals, 5.16, mark it).
tasks=$wide
grep -q numeric_literal "$T/README" || tasks=no
inkernel=$tasks
# --linear's .buckets=N: Linux 5.15.
buckets=$tasks
grep -q '\.buckets' "$T/README" || buckets=no
# TOOL ARGS...: the histogram counted where the tool chooses (TMP/k) and in user space
# (TMP/u): of the program's values by --exec, or (a uprobe on it: every task's calls are the
# program's) while the tool traces every task.
hist_both() {
	tool=$1
	shift
	for mode in "" --user-space; do
		if [ $tool = uprobe ]; then
			start_bg "$BIN/$tool" $mode "$@" && "$ST" values $V && stop_bg
			cp "$TMP/out" "$TMP/k$mode"
			cp "$TMP/err" "$TMP/ke$mode"
			rc=$RC
		else
			"$BIN/$tool" $mode "$@" --exec "$ST" values $V > "$TMP/k$mode" 2> "$TMP/ke$mode"
			rc=$?
		fi
		[ -z "$mode" ] && krc=$rc || urc=$rc
	done
	grep -v '^[0-9][0-9]:[0-9][0-9]:' "$TMP/k" > "$TMP/k.h"
	grep -v '^[0-9][0-9]:[0-9][0-9]:' "$TMP/k--user-space" > "$TMP/u.h"
}
# WHAT LOW HIGH COUNT: the histogram in TMP/u has COUNT in [LOW, HIGH), 196 in all, and
# TMP/k is the same, counted in the kernel where it has hist triggers.
hist_check() {
	if [ $inkernel = yes ] && ! grep -q '(counted in the kernel)' "$TMP/ke"; then
		notok "$1: counted in the kernel (it has hist triggers)" "$TMP/ke"
		return
	fi
	check "$1 (in the kernel: $inkernel): exit 0, 196 values, $4 in [$2, $3), the same counted here" sh -c "
		[ $krc -eq 0 ] && [ $urc -eq 0 ] &&
		[ \"\$(awk '/ -> / {s += \$5} END {print s}' '$TMP/u.h')\" = 196 ] &&
		awk -v lo='$2' -v hi='$3' -v n='$4' '\$1 == lo && \$3 == hi && \$5 == n {ok = 1} END {exit !ok}' '$TMP/u.h' &&
		cmp -s '$TMP/k.h' '$TMP/u.h'" || diff "$TMP/k.h" "$TMP/u.h" | head -20
}
if [ -d "$T/events/syscalls/sys_enter_write" ]; then
	hist_both tpoint --hist count syscalls:sys_enter_write
	hist_check "tpoint --hist count (size_t) of write(2)" 9223372036854775808 18446744073709551615 5
	# perf-stat-hist's bins: a power of 4 is the kernel's log2 slots two at a time; a power
	# of 10 is counted here on every kernel; a width (.buckets=N, Linux 5.15) in the kernel
	# as three triggers (the 64 slots, beyond them, below 0).
	hist_both tpoint --hist count --power 4 syscalls:sys_enter_write
	hist_check "tpoint --hist count --power 4" 4611686018427387904 18446744073709551615 8
	check "tpoint --hist count --power 4: the banner says the slots" \
		grep -q '^Counting syscalls:sys_enter_write, count in power-of-4 slots' "$TMP/ke"
	inkernel=no
	hist_both tpoint --hist count --power 10 syscalls:sys_enter_write
	hist_check "tpoint --hist count --power 10 (counted here)" 10000000000000000000 18446744073709551615 3
	inkernel=$buckets
	hist_both tpoint --hist count --linear 1000 syscalls:sys_enter_write
	hist_check "tpoint --hist count --linear 1000" 0 1000 31
	check "tpoint --hist count --linear 1000: 3 in [1000, 2000), 147 from 64000 on" sh -c "
		grep -Eq '^ +1000 -> 2000 +: 3 ' '$TMP/u.h' && grep -Eq '^ +64000 -> 18446744073709551615 : 147 ' '$TMP/u.h'"
	inkernel=$tasks
	# -c: each second's table holds that second's values, read from the kernel's tables as
	# they grow: 3 fives, then 2.
	"$BIN/tpoint" -c --hist count syscalls:sys_enter_write --exec /bin/sh -c \
		"'$ST' values 5 5 5; sleep 1.3; '$ST' values 5 5" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "tpoint -c --hist (in the kernel: $inkernel): 3 values in the first second's table, 2 in a later one" sh -c "
		[ $rc -eq 0 ] && [ \"\$(awk '/^ +4 -> 8 / {printf \"%s \", \$5}' '$TMP/out')\" = '3 2 ' ]"
	# -c alone: one trigger per event (in the kernel), the same count here.
	for mode in "" --user-space; do
		"$BIN/tpoint" $mode -c syscalls:sys_enter_write --exec "$ST" values $V > "$TMP/out" 2> "$TMP/err"
		rc=$?
		where="in the kernel: $inkernel"
		[ -n "$mode" ] && where="user space"
		check "tpoint -c ($where): exit 0, the 196 writes counted" sh -c "
			[ $rc -eq 0 ] && [ \$(awk '\$1 == \"syscalls:sys_enter_write\" {s += \$2} END {print s + 0}' '$TMP/out') -eq 196 ]"
		if [ -z "$mode" ] && [ $inkernel = yes ]; then
			check "tpoint -c: the banner says counted in the kernel" grep -q '(counted in the kernel)' "$TMP/err"
		fi
	done
	# -k by a numeric field, and by pid: one trigger per event (in the kernel), the same
	# rows here (compared sorted: rows of equal counts come in no set order).
	"$BIN/tpoint" -k count syscalls:sys_enter_write --exec "$ST" values $V > "$TMP/k" 2> "$TMP/ke"
	krc=$?
	"$BIN/tpoint" --user-space -k count syscalls:sys_enter_write --exec "$ST" values $V > "$TMP/u" 2> "$TMP/ue"
	urc=$?
	grep -v '^[0-9][0-9]:[0-9][0-9]:' "$TMP/k" | sort > "$TMP/k.h"
	grep -v '^[0-9][0-9]:[0-9][0-9]:' "$TMP/u" | sort > "$TMP/u.h"
	check "tpoint -k count (in the kernel: $inkernel): exit 0, 196 writes, 0 twice, the same rows here" sh -c "
		[ $krc -eq 0 ] && [ $urc -eq 0 ] && cmp -s '$TMP/k.h' '$TMP/u.h' &&
		[ \$(awk '\$2 ~ /^[0-9]+\$/ {s += \$2} END {print s}' '$TMP/u.h') -eq 196 ] &&
		grep -Eq '^ +0 +2\$' '$TMP/u.h'" || diff "$TMP/k.h" "$TMP/u.h" | head
	if [ $inkernel = yes ]; then
		check "tpoint -k count: the banner says counted in the kernel" grep -q '(counted in the kernel)' "$TMP/ke"
	fi
	"$BIN/tpoint" -k pid syscalls:sys_enter_write --exec "$ST" values $V > "$TMP/out" 2> "$TMP/err"
	check "tpoint -k pid: one row, the program's 196 writes" sh -c "
		[ \$(grep -Ec '^ +[0-9]+ +196\$' '$TMP/out') -eq 1 ] && [ \$(grep -Ec '^ +[0-9]+ +[0-9]+\$' '$TMP/out') -eq 1 ]"
	# A full table of values (2048 entries: 2100 values from 2^63 on) is said, not silent.
	W=""
	i=1
	while [ $i -le 2100 ]; do
		W="$W -$i"
		i=$((i + 1))
	done
	"$BIN/tpoint" --hist count syscalls:sys_enter_write --exec "$ST" values $W > "$TMP/out" 2> "$TMP/err"
	rc=$?
	if [ $inkernel = yes ]; then
		check "tpoint --hist in the kernel, 2100 values for a table of 2048: the rest said as not counted, exit 0" sh -c "
			[ $rc -eq 0 ] && n=\$(sed -n 's/^tpoint: \([0-9]*\) events not counted: the kernel.s table of values was full.*/\1/p' '$TMP/err') &&
			[ \"\$n\" -gt 0 ] && [ \$(awk '/ -> / {s += \$5} END {print s}' '$TMP/out') -eq \$((2100 - n)) ]"
	else
		check "tpoint --hist here, 2100 values: all counted, exit 0" sh -c "
			[ $rc -eq 0 ] && [ \$(awk '/ -> / {s += \$5} END {print s}' '$TMP/out') -eq 2100 ]"
	fi
fi
if [ -e "$T/uprobe_events" ]; then
	# -k on a signed 4-byte argument: -1 as -1 both ways (the kernel widens it by its sign).
	for mode in "" --user-space; do
		start_bg "$BIN/uprobe" $mode -k v "p:$ST:ftt_value v=%di:s32" && "$ST" values $V && stop_bg
		cp "$TMP/out" "$TMP/keys$mode"
	done
	check "uprobe -k v (s32): the same rows both ways, -1 counted under -1" sh -c "
		grep -v '^[0-9][0-9]:[0-9][0-9]:' '$TMP/keys' | sort > '$TMP/k.h' &&
		grep -v '^[0-9][0-9]:[0-9][0-9]:' '$TMP/keys--user-space' | sort > '$TMP/u.h' &&
		cmp -s '$TMP/k.h' '$TMP/u.h' && grep -Eq '^ +-1 +[0-9]+\$' '$TMP/u.h'" || diff "$TMP/k.h" "$TMP/u.h" | head
	inkernel=$wide
	hist_both uprobe --hist v "p:$ST:ftt_value v=%di:s64"
	hist_check "uprobe --hist v (s64)" 4611686018427387904 9223372036854775808 3
	check "uprobe --hist v (s64): the 5 negative values in their own row" \
		grep -Eq '^ +-inf -> 0 +: 5 ' "$TMP/u.h"
	inkernel=$narrow
	hist_both uprobe --hist v "p:$ST:ftt_value v=%di:s32"
	hist_check "uprobe --hist v (s32)" 1073741824 2147483648 3
	[ $narrow = yes ] && grep -q '\.buckets' "$T/README" || inkernel=no
	hist_both uprobe --hist v --linear 1000 "p:$ST:ftt_value v=%di:s32"
	hist_check "uprobe --hist v --linear 1000 (s32)" 64000 18446744073709551615 46
	check "uprobe --hist v --linear 1000 (s32): the 37 negative values in their own row" \
		grep -Eq '^ +-inf -> 0 +: 37 ' "$TMP/u.h"
	inkernel=$tasks
fi

# -c with -d 1: one table, not a second, empty one for the instant after the last tick.
"$BIN/tpoint" -c -d 1 block:block_rq_issue 'bytes == 12345' > "$TMP/out" 2> "$TMP/err"
check "tpoint -c -d 1: exactly one table" [ "$(grep -c '^EVENT' "$TMP/out")" -eq 1 ]

# Block events with a filter, as JSON with every field. (nr_sector: 4.9 records bytes 0 for
# a file-system request.)
F=${LIVE_FILE_DIR:-/var/tmp}/ftt-probe.$$
rm -f "$TMP/out" "$TMP/err"
"$BIN/tpoint" -j block:block_rq_issue 'nr_sector == 16' > "$TMP/out" 2> "$TMP/err" &
TPID=$!
if wait_ready $TPID "$TMP/err"; then
	write_direct "$F.4k" 3
	# a fresh file: overwriting blocks allocated apart could split a write in two requests
	dd if=/dev/zero of="$F" bs=8192 count=2 oflag=direct 2>/dev/null
	sleep 0.5; kill -INT $TPID; wait_exit $TPID 10
	check "tpoint -j with a filter: the two 8 KiB writes, and only 8 KiB requests" sh -c "
		[ \$(grep '\"comm\":\"dd\"' '$TMP/out' | grep -c '\"rwbs\":\"W') -eq 2 ] &&
		! grep -v '\"nr_sector\":16,' '$TMP/out' | grep -q . &&
		grep -q '\"fields\":{.*\"sector\":[0-9]*,' '$TMP/out'"
	check "tpoint -j: every line is a JSON object with time, ts, cpu, pid, comm, event, fields" \
		"$JSONCHECK" "$TMP/out" time ts cpu pid comm event fields
else
	notok "tpoint block:block_rq_issue starts" "$TMP/err"
fi
rm -f "$F" "$F.4k"

"$BIN/tpoint" -l 'block:block_rq_*' > "$TMP/out"
check "tpoint -l with a pattern lists block_rq_issue and block_rq_complete" sh -c \
	"grep -qx block:block_rq_issue '$TMP/out' && grep -qx block:block_rq_complete '$TMP/out' && ! grep -v '^block:block_rq_' '$TMP/out' | grep -q ."
# A spec that matches nothing, names nothing or matches only what cannot be traced, and
# filters that could never match: usage errors, never a run that traces nothing.
for args in "'sched:'|must be names or globs" "':'|must be names or globs" \
	"'sched:.'|must be names or globs" "-v 'sched:.'|must be names or globs" \
	"'ftrace:*'|cannot be traced" "-n '' sched:sched_switch|(empty)" \
	"-n '[' sched:sched_switch|without its" "-L 999999999 sched:sched_switch|no such thread" \
	"-p 1 -L 2 sched:sched_switch|exclude each other" \
	"nosuch:event|no tracepoint matches" "-k pid --hist prev_comm sched:sched_switch|no numeric field" \
	"-s -c sched:sched_switch|not with -c" "-U -k pid sched:sched_switch|U prints every event" \
	"--folded sched:sched_switch|give one or both" "-s -c --folded sched:sched_switch|counts stacks" \
	"-j -s --folded sched:sched_switch|not with -j" \
	"--power 4 sched:sched_switch|give it" "--hist prev_pid --power 1 sched:sched_switch|invalid base" \
	"--hist prev_pid --linear 0 sched:sched_switch|invalid width" \
	"--hist prev_pid --linear 144115188075855873 sched:sched_switch|invalid width" \
	"--hist prev_pid --linear 10 --power 10 sched:sched_switch|exclude each other" \
	"--hist prev_pid --power x --power 4 sched:sched_switch|invalid base"; do
	eval "\"\$BIN/tpoint\" ${args%|*}" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "tpoint ${args%|*}: exit 2, one line, '${args#*|}'" sh -c \
		"[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q '${args#*|}' '$TMP/err'"
done
check "tpoint's bad input changed nothing in tracefs" same_state
"$BIN/tpoint" -v block:block_rq_issue > "$TMP/out"
check "tpoint -v prints the format" grep -q 'field:.*sector;' "$TMP/out"

# --- uprobe --------------------------------------------------------------------------------
if [ -e "$T/uprobe_events" ]; then
	"$BIN/uprobe" -l "$UT" > "$TMP/out"
	check "uprobe -l lists the test program's functions" sh -c "grep -qx ftt_add '$TMP/out' && grep -qx ftt_greet '$TMP/out'"

	trace_target "$BIN/uprobe" "p:$UT:ftt_add a=%di:s32 b=%si:s32"
	check "uprobe entry with arguments: a=1 b=10, a=2 b=20, a=3 b=30" sh -c "
		[ \"\$(sed -n 's/.* ftt_add: ([0-9a-f]*) //p' '$TMP/out' | tr '\n' ';')\" = 'a=1 b=10;a=2 b=20;a=3 b=30;' ]"

	trace_target "$BIN/uprobe" -k pid,a "p:$UT:ftt_add a=%di:s32 b=%si:s32"
	check "uprobe -k pid,a: one row per argument value, each counted once, for the program" sh -c "
		grep -Eq '^ +pid +a +COUNT\$' '$TMP/out' &&
		[ \$(grep -Ec '^ +$UTPID +[123] +1\$' '$TMP/out') -eq 3 ]"

	trace_target "$BIN/uprobe" -j -k comm "p:$UT:ftt_add"
	check "uprobe -j -k comm: the program's 3 calls as one JSON row" \
		grep -q '"keys":{"comm":"uprobe_target"},"count":3}' "$TMP/out"

	trace_target "$BIN/uprobe" --hist b "p:$UT:ftt_add b=%si:s32"
	check "uprobe --hist b: 10 in [8, 16), 20 and 30 in [16, 32)" sh -c "
		grep -Eq '^ +8 -> 16 +: 1 ' '$TMP/out' && grep -Eq '^ +16 -> 32 +: 2 ' '$TMP/out' &&
		[ \$(grep -Ec ': [1-9]' '$TMP/out') -eq 2 ]"

	trace_target "$BIN/uprobe" -k a --hist b "p:$UT:ftt_add a=%di:s32 b=%si:s32"
	check "uprobe -k a --hist b: one histogram per key, b=10 under a=1, 20 under a=2, 30 under a=3" sh -c "
		[ \"\$(awk '/^a=[0-9]+:\$/ { k = \$1 } / -> .*: [1-9]/ { print k \$1 }' '$TMP/out' | sort | tr '\n' ';')\" = 'a=1:8;a=2:16;a=3:16;' ]"

	trace_target "$BIN/uprobe" -j -k comm --hist b "p:$UT:ftt_add b=%si:s32"
	check "uprobe -j -k comm --hist b: the key's count and its histogram in one JSON row" grep -q \
		'"keys":{"comm":"uprobe_target"},"count":3,"field":"b","hist":\[{"low":8,"high":16,"count":1},{"low":16,"high":32,"count":2}\]}' \
		"$TMP/out"

	# The test program is built with frame pointers: at each return, main is the first frame.
	trace_target "$BIN/uprobe" -U "r:$UT:ftt_add"
	ucheck "uprobe -U on a return: the 3 returns, each with main as its first user frame" sh -c "
		[ \$(grep -c 'ftt_add_ret:' '$TMP/out') -eq 3 ] &&
		[ \$(grep -A2 'ftt_add_ret:' '$TMP/out' | grep -A1 -x ' <user stack>' | grep -c '^ => main+0x[0-9a-f]* (.*uprobe_target)\$') -eq 3 ]"

	# --folded: the same stacks counted, root first: one line, the program's name, then
	# the frames above main (the C library's start, or the static program's own), main last.
	trace_target "$BIN/uprobe" -U --folded "r:$UT:ftt_add"
	ucheck "uprobe -U --folded: one folded line 'uprobe_target;...;main 3'" sh -c "
		[ \$(wc -l < '$TMP/out') -eq 1 ] && grep -Eq '^uprobe_target(;[^;]+)*;main 3\$' '$TMP/out'"

	trace_target "$BIN/uprobe" -j -U "r:$UT:ftt_add"
	ucheck "uprobe -j -U: one object per event, its ustack a field of it, main first" sh -c "
		[ \$(wc -l < '$TMP/out') -eq 3 ] &&
		[ \$(grep -c '^{\"ts\".*\"event\":\"ftt_add_ret\".*,\"ustack\":\[\"main+0x[0-9a-f]* (.*uprobe_target)\"' '$TMP/out') -eq 3 ]"

	"$BIN/uprobe" -k nosuch "p:$UT:ftt_add" > "$TMP/out" 2> "$TMP/err"
	check "uprobe -k on a field the probe lacks: exit 2, one line" sh -c \
		"[ $? -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q \"no field 'nosuch'\" '$TMP/err'"

	trace_target "$BIN/uprobe" "r:$UT:ftt_add ret=\$retval:s32" 'ret > 20'
	check "uprobe return with a filter: ret=22 and ret=33" sh -c "
		[ \"\$(sed -n 's/.* ret=//p' '$TMP/out' | tr '\n' ' ')\" = '22 33 ' ]"

	trace_target "$BIN/uprobe" -j "p:greet $UT:ftt_greet s=+0(%di):string"
	check "uprobe -j with an alias (the event so named, not by the run's probe group) and a string argument" \
		grep -q '"event":"greet","fields":{.*"s":"hello, uprobe"' "$TMP/out"

	if "$BIN/uprobe" -l libc > /dev/null 2>&1 && [ -z "${UPROBE_TARGET:-}" ]; then
		trace_target -p "$BIN/uprobe" 'p:libc:open64 file=+0(%di):string'
		check "uprobe on libc's open64 by name: the two paths the program opened" sh -c "
			grep -q 'file=\"/proc/self/stat\"' '$TMP/out' && grep -q 'file=\"/nonexistent/ftt-file\"' '$TMP/out'"
	else
		skip "uprobe on libc: no shared C library here (static test program)"
	fi

	"$BIN/uprobe" "p:$UT:ftt_add a=%zz" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	says=Command: # without error_log (before 5.2) the tool finds the part refused
	[ -e "$T/error_log" ] || says="refuses the argument 'a=%zz'"
	check "uprobe with a bad argument: exit 2 and the kernel's own explanation" sh -c \
		"[ $rc -eq 2 ] && grep -q \"$says\" '$TMP/err'"
	"$BIN/uprobe" "p:$UT:no_such_symbol" > "$TMP/out" 2> "$TMP/err"
	check "uprobe on a missing symbol: exit 2, one line" sh -c \
		"[ $? -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q 'no symbol no_such_symbol' '$TMP/err'"
	# An offset that wraps around, an address that is not code (the ELF header).
	# (0x1: in the first, read-only segment of a PIE; in no segment of a static program.)
	for def in "p:$UT:ftt_add+0xffffffffffffffff|overflows" "p:$UT:0x1|is not in .* segment of" \
		"p:$UT:ftt_add+-1|invalid offset"; do
		"$BIN/uprobe" "${def%|*}" > "$TMP/out" 2> "$TMP/err"
		rc=$?
		check "uprobe ${def%|*}: exit 2, '${def#*|}'" sh -c \
			"[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q '${def#*|}' '$TMP/err'"
	done
	check "rejected probes changed nothing in tracefs" same_state

	# A program whose path has spaces: quoted in the definition (the kernel cannot take such
	# a path; the tool gives it the file another way).
	mkdir -p "$TMP/my dir"
	cp "$UT" "$TMP/my dir/the target"
	UT_SAVED=$UT
	UT="$TMP/my dir/the target"
	trace_target "$BIN/uprobe" "p:\"$UT\":ftt_add a=%di:s32"
	check "uprobe on a path with spaces (quoted): the 3 calls" \
		[ "$(grep -c 'ftt_add: .* a=[123]$' "$TMP/out")" -eq 3 ]
	UT=$UT_SAVED
	check "after the path with spaces: tracefs as before" same_state
else
	skip "uprobe tests: no uprobe_events (CONFIG_UPROBE_EVENTS)"
fi

# --- kprobe --------------------------------------------------------------------------------
# The open function below the syscalls, with the path as its second argument: do_sys_open
# before Linux 5.6.
OPENFN=do_sys_openat2
grep -q ' do_sys_openat2$' /proc/kallsyms || OPENFN=do_sys_open
BAD_ARG_SAYS="refuses the argument 'x=%zz'"
[ -e "$T/error_log" ] && BAD_ARG_SAYS=Command:
if [ -e "$T/kprobe_events" ]; then
	trace_target -p "$BIN/kprobe" "p:$OPENFN file=+0(\$arg2):ustring"
	check "kprobe entry with a user string: the two paths the program opened" sh -c "
		grep -q 'file=\"/proc/self/stat\"' '$TMP/out' && grep -q 'file=\"/nonexistent/ftt-file\"' '$TMP/out' &&
		[ \$(wc -l < '$TMP/out') -eq 2 ]" || cat "$TMP/err"
	# Before 4.20 (no $argN) and 5.5 (no ustring) the probe is given in that kernel's terms.
	if ! grep -q 'ustring' "$T/README" && [ "$(uname -m)" = x86_64 ]; then
		given="file=+0(\$arg2):string"
		grep -q '\$arg<N>' "$T/README" || given="file=+0(%si):string"
		check "kprobe on a kernel without ustring: the definition used is said ($given)" \
			grep -qF "given as 'p:$OPENFN $given'" "$TMP/err"
	fi

	trace_target -p "$BIN/kprobe" "r:$OPENFN ret=\$retval:s32" 'ret < 0'
	check "kprobe return with a filter: the one failed open, ret=-2" sh -c "
		[ \$(wc -l < '$TMP/out') -eq 1 ] && grep -q 'ret=-2\$' '$TMP/out'" ||
		target_state

	trace_target -p "$BIN/kprobe" -j -k ret "r:$OPENFN ret=\$retval:s32"
	check "kprobe -j -k ret: a signed key stays signed (ret -2 and the fd)" sh -c "
		grep -q '\"keys\":{\"ret\":-2},\"count\":1}' '$TMP/out' &&
		grep -Eq '\"keys\":\\{\"ret\":[0-9]+\\},\"count\":1}' '$TMP/out'"

	trace_target -p "$BIN/kprobe" -U "p:$OPENFN"
	ucheck "kprobe -U: each call followed by the user stack that made it, first frame an open" sh -c "
		[ \$(grep -c '$OPENFN:' '$TMP/out') -eq 2 ] &&
		[ \$(grep -A2 '$OPENFN:' '$TMP/out' | grep -A1 -x ' <user stack>' | grep -Ec '^ => [_a-z0-9]*open[_a-z0-9]*\+0x[0-9a-f]+ \(/') -eq 2 ]"

	trace_target -p "$BIN/kprobe" -s "p:$OPENFN"
	check "kprobe -s: each hit with a kernel stack through the syscall entry" sh -c "
		[ \$(grep -c '$OPENFN:' '$TMP/out') -eq 2 ] && grep -Eq '=> .*(do_syscall_64|entry_SYSCALL_64)' '$TMP/out'"

	# -s: the callers, from the caller on (not the probed function's own frame, which the
	# kernel's stack starts with); where the kernel unwinds by frame pointers (4.x), its
	# stack at an entry lacks the caller, which the tool adds. getppid's function is called
	# by do_syscall_64 (through x64_sys_call on 6.9+, inlined or not).
	ST=${SYS_TARGET:-$BIN/tests/sys_target}
	GETPPID=$(grep -m1 -x -E '__x64_sys_getppid|__do_sys_getppid|sys_getppid' "$T/available_filter_functions")
	if [ -n "$GETPPID" ]; then
		"$BIN/kprobe" -s "p:$GETPPID" --exec "$ST" 3 0 > "$TMP/out" 2> "$TMP/err"
		check "kprobe -s p:$GETPPID: 3 hits, each stack's first frame its caller" awk '
			/^ => / { if (first) { first = 0; if ($2 ~ /^(do_syscall_64|x64_sys_call)\+0x/) good++; else print "# first frame: " $2 } next }
			{ ev++; first = 1 }
			END { exit !(ev == 3 && good == 3) }' "$TMP/out" || head -8 "$TMP/out"
		"$BIN/kprobe" -s --folded "p:$GETPPID" --exec "$ST" 3 0 > "$TMP/out" 2> "$TMP/err"
		check "kprobe -s --folded: the function the leaf, its caller before it, 3 in all" sh -c "
			[ \$(grep -Ec ';(do_syscall_64|x64_sys_call)_\\[k\\];[_a-z0-9]*sys_getppid_\\[k\\] [0-9]+\$' '$TMP/out') -ge 1 ] &&
			[ \$(awk '{ s += \$NF } END { print s }' '$TMP/out') -eq 3 ]" || head -5 "$TMP/out"
		"$BIN/kprobe" -s -j "p:$GETPPID" --exec "$ST" 1 0 > "$TMP/out" 2> "$TMP/err"
		check "kprobe -s -j: the stack from the caller, the tool's own fetch not among the fields" sh -c "
			grep -Eq '\"fields\":\\{\"__probe_ip\":[0-9]+\\},\"stack\":\\[\"(do_syscall_64|x64_sys_call)\\+0x' '$TMP/out'" ||
			head -3 "$TMP/out"
	fi

	# Without error_log (before 5.2) the tool finds the part the kernel refuses.
	"$BIN/kprobe" "p:$OPENFN x=%zz" > "$TMP/out" 2> "$TMP/err"
	check "kprobe with a bad argument: exit 2 and the kernel's own explanation" sh -c \
		"[ $? -eq 2 ] && grep -q \"$BAD_ARG_SAYS\" '$TMP/err'"
	"$BIN/kprobe" p:no_such_function_ftt > "$TMP/out" 2> "$TMP/err"
	check "kprobe on a function that cannot be traced: exit 2" sh -c \
		"[ $? -eq 2 ] && grep -q 'cannot be traced' '$TMP/err'"
else
	"$BIN/kprobe" p:$OPENFN > "$TMP/out" 2> "$TMP/err"
	check "kprobe without kprobe_events: exit 1 naming CONFIG_KPROBE_EVENTS" sh -c \
		"[ $? -eq 1 ] && grep -q 'CONFIG_KPROBE_EVENTS' '$TMP/err' && [ \$(wc -l < '$TMP/err') -eq 1 ]"
	skip "kprobe tracing: no kprobe_events in this kernel (CONFIG_KPROBE_EVENTS); run make vmcheck"
fi
check "after the kprobe tests: tracefs as it was" same_state

# --- every way of stopping, for each tool; a probe must not outlive its run ------------------
stop_cases tpoint "$BIN/tpoint" -H sched:sched_switch
[ -e "$T/uprobe_events" ] && stop_cases uprobe "$BIN/uprobe" -H "p:$UT:ftt_add"
[ -e "$T/kprobe_events" ] && stop_cases kprobe "$BIN/kprobe" -H p:$OPENFN

check "at the end: tracefs as it was" same_state
summary
