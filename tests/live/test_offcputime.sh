#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of offcputime: a thread of the test program naps 4 times 50 ms in ftt_nap: with
# -p, its folded line has the user frames to ftt_nap and the kernel's nanosleep frames, and
# at least the 200 ms; kernel or user stacks alone (-s, -U), -m, JSON; user or kernel
# threads (-u, -k), hostile names, usage errors, every way of stopping.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state
. tests/live/sched_lib.sh

O=$BIN/offcputime
RHEL81=
case $(uname -r) in 4.18.0-*.el8*) RHEL81=1 ;; esac

# The program waits for its go file; its thread stays 1 s after the naps (in ftt_linger),
# so its user frames are named while it lives even when the tools read late.
rm -f "$TMP/go"
FTT_LINGER_MS=1000 "$ST" "$TMP/go" tnap 50 4 > "$TMP/t" &
P=$!
run_bg f "$O" -p $P --folded
run_bg s "$O" -p $P -s --folded
run_bg U "$O" -p $P -U --folded
run_bg m "$O" -p $P -m 40000 --folded
run_bg j "$O" -p $P -j
touch "$TMP/go"
wait $P
stop_all
# The napping child's line: its name, user frames root first to ftt_nap, kernel frames.
nap=$(grep '^sched_target;.*;ftt_nap;.*nanosleep.*_\[k\]' "$TMP/f.out")
us=${nap##* }
if [ -n "$RHEL81" ]; then
	nap=$(grep '^sched_target;.*nanosleep.*_\[k\]' "$TMP/f.out" | sort -t' ' -k2 -n | tail -1)
	us=${nap##* }
	check "offcputime --folded [4.18.0-el8: no user stacks for an instance's events, said]: the naps' kernel stack, 200 ms or more" sh -c "
		[ '${us:-0}' -ge 200000 ] && grep -Eq 'none of the [0-9]+ [a-z]+ shown came with a user stack' '$TMP/f.err'" ||
		{ cat "$TMP/f.err"; grep sched_target "$TMP/f.out"; }
else
	check "offcputime --folded: exit 0, the naps under ftt_nap and the kernel's nanosleep, 200 ms to 2 s" sh -c "
		[ \"\$(cat '$TMP/f.rc')\" = 0 ] && [ \$(echo '$nap' | grep -c .) -eq 1 ] &&
		[ '${us:-0}' -ge 200000 ] && [ '${us:-0}' -lt 2000000 ]" || { cat "$TMP/f.err"; grep sched_target "$TMP/f.out"; }
fi
check "offcputime -s --folded: kernel frames only" sh -c "
	grep -q '^sched_target;.*nanosleep.*_\\[k\\]' '$TMP/s.out' && ! grep -v '^[^;]*;[^ ]*_\\[k\\] [0-9]*\$' '$TMP/s.out' | grep -q ';'"
if [ -z "$RHEL81" ]; then
	check "offcputime -U --folded: user frames only, ftt_nap among them" sh -c "
		grep -q '^sched_target;.*;ftt_nap;clock_nanosleep [0-9]*\$\\|^sched_target;.*;ftt_nap;[^;]*nanosleep[^;]* [0-9]*\$' '$TMP/U.out' &&
		! grep -q '_\\[k\\]' '$TMP/U.out'" || grep sched_target "$TMP/U.out"
fi
# -m 40 ms: each nap counts, the short times off the CPU are left out and said
mnap=$(grep '^sched_target;.*nanosleep.*_\[k\]' "$TMP/m.out" | sort -t' ' -k2 -n | tail -1)
check "offcputime -m 40000: the naps still there, shorter times left out and said" sh -c "
	[ '${mnap##* }' -ge 200000 ] && grep -q 'shorter than 40000 us left out' '$TMP/m.err'" || cat "$TMP/m.err"
check "offcputime -j: valid JSON, the naps' object with its frames and time" sh -c "
	'$JSONCHECK' '$TMP/j.out' comm kstack ustack us &&
	grep '\"comm\":\"sched_target\"' '$TMP/j.out' | grep -q '[\",]nanosleep\\|_nanosleep\"'" ||
	head -3 "$TMP/j.out"

# --- user threads only, kernel threads only ---------------------------------------------------
run_bg u "$O" -u -s --folded
run_bg k "$O" -k -s --folded
work nap 20 2
stop_all
check "offcputime -u: the test program's stacks, no kernel thread's" sh -c "
	grep -q '^sched_target;' '$TMP/u.out' && ! grep -Eq '^(ksoftirqd|kworker|rcu_[a-z]*|migration)/?[^;]*;' '$TMP/u.out'" ||
	cut -d';' -f1 "$TMP/u.out" | sort -u | head
check "offcputime -k: kernel threads' stacks, not the test program's" sh -c "
	! grep -q '^sched_target;' '$TMP/k.out' && grep -Eq '^(ksoftirqd|kworker|rcu_[a-z]*)' '$TMP/k.out'" ||
	cut -d';' -f1 "$TMP/k.out" | sort -u | head

# --- names as the kernel had them ---------------------------------------------------------------
NAME=$(printf 'ftt;\033\nx y')
run_bg hf "$O" -s --folded
run_bg hj "$O" -s -j
FTT_NAME=$NAME work nap 20 2
stop_all
check "offcputime --folded: a name with ';', an escape and a newline, escaped" \
	grep -q '^ftt\\x3b\\x1b\\x0ax y;' "$TMP/hf.out"
check "offcputime -j: that name exact" grep -qF '"comm":"ftt;\u001b\nx y"' "$TMP/hj.out"

# --- usage errors change nothing --------------------------------------------------------------
for args in "-u -k" "--folded -j" "-m x" "-m -1" "1 2" "-p 0"; do
	"$O" $args > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "offcputime $args: usage error, exit 2, one line" sh -c "[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ]" ||
		cat "$TMP/err"
done
check "after the usage errors: tracefs as before" same_state

stop_cases offcputime "$O" -s 0.5
check "at the end: tracefs as before" same_state
summary
