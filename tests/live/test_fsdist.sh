#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of fsdist: file_target vfs makes known operations in a folder of ext4 (11
# reads, 13 writes, its opens of regular files, 6 fsyncs), the same program in a tmpfs
# mounted for the test; fsdist -p counts the first's exactly in its histograms (the fsyncs
# where the kernel has no kprobes, all four operations where it has), nothing of the
# second's; text and JSON; two intervals end the run by themselves; as ext4dist by its name;
# usage errors; tracefs as before.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

need_program FT file_target "${FILE_TARGET:-}"
D=${LIVE_FILE_DIR:-/var/tmp}
fstype() {
	awk -v d="$1/" '{ m = $2 "/"; if (m == "//") m = "/"; if (index(d, m) == 1 && length(m) > l) { l = length(m); t = $3 } } END { print t }' /proc/mounts
}
if [ "$(fstype "$D")" != ext4 ]; then
	skip "fsdist: $D is not ext4 ($(fstype "$D")): LIVE_FILE_DIR names a folder of ext4"
	summary
	exit 0
fi
"$BIN/fsdist" -v > "$TMP/v" 2> "$TMP/verr"
if [ $? -ne 0 ]; then
	skip "fsdist: nothing of ext4 can be traced here: $(cat "$TMP/verr")"
	summary
	exit 0
fi
NOPS=$(grep -vc 'not traced' "$TMP/v")
KPROBES=
grep -q 'kprobe and kretprobe' "$TMP/v" && KPROBES=1
# on X: operation X is timed by a kprobe pair (-v); a function not in kallsyms is said there.
on() { grep -q "^$1  .*kprobe and kretprobe" "$TMP/v"; }
# not_on: what -v says of the operations not timed by kprobes (the counts below are then 0).
not_on() { grep -E '^[RWO]  .*not traced' "$TMP/v" | sed 's/  */ /g' | tr '\n' ';' | sed 's/;$//'; }

A=$D/ftt-fsdist.$$ B=$TMP/tmpfs
mkdir -p "$B"
mount -t tmpfs -o size=4m none "$B" 2> "$TMP/merr" || { notok "a tmpfs mounted for the test" "$TMP/merr"; B=; }
# run TOOL OPTS...: TOOL OPTS (PID: program a's) while a makes its operations in $D (ext4)
# and b the same in the tmpfs; the run ends with a.
run() {
	rm -rf "$TMP/go" "$A"
	mkdir "$A"
	"$FT" vfs "$TMP/go" "$A" > "$TMP/a.out" & P_a=$!
	[ -z "$B" ] || { "$FT" vfs "$TMP/go" "$B" > "$TMP/b.out" & P_b=$!; }
	wait_line "$TMP/a.out" '^[0-9]' 5
	tool=$1
	shift
	opts=$(echo "$*" | sed "s/PID/$P_a/")
	start_bg "$tool" $opts || { touch "$TMP/go"; wait; rm -rf "$A"; return 1; }
	touch "$TMP/go"
	wait $P_a
	TRC=$?
	[ -z "$B" ] || { wait $P_b; TRC=$((TRC + $?)); }
	wait_exit $BGPID 10; RC=$?
	rm -rf "$A"
	[ "$TRC" -eq 0 ] || notok "the test programs ran to the end ($TRC)"
}
# count OP: the count of op OP's object in the output (-j).
count() { sed -n "s/.*\"op\":\"$1\",\"func\":\"[a-z0-9_]*\",\"unit\":\"[a-z]*\",\"count\":\\([0-9]*\\),.*/\\1/p" "$TMP/out" | awk '{ n += $1 } END { print n + 0 }'; }
if run "$BIN/fsdist" -j -p PID; then
	read -r reads writes creates opens fsyncs unlinks openat2 < "$TMP/a.out"
	# its openat2 fails before Linux 5.6 (ENOSYS): no open reaches the file system
	kv=$(uname -r | awk -F. '{ print $1 * 100 + $2 }')
	[ "$openat2" = 1 ] && [ "$kv" -lt 506 ] && opens=$((opens - 1))
	on R || reads=0
	on W || writes=0
	on O || opens=0
	check "fsdist -j -p: one valid object per operation traced ($NOPS), program a's 6 fsyncs ($(count S))" sh -c "
		[ $RC -eq 0 ] && '$JSONCHECK' '$TMP/out' time op func unit count sum_ns hist > /dev/null &&
		[ \$(wc -l < '$TMP/out') -eq $NOPS ] && [ $(count S) -eq 6 ] &&
		grep -q '\"op\":\"S\",\"func\":\"ext4_sync_file[a-z_]*\",\"unit\":\"us\",\"count\":6,' '$TMP/out'"
	if [ -n "$KPROBES" ]; then
		check "fsdist -j -p with kprobes: its $reads reads, $writes writes and $opens opens exactly" sh -c "
			[ $(count R) -eq $reads ] && [ $(count W) -eq $writes ] && [ $(count O) -eq $opens ]"
		[ -z "$(not_on)" ] || skip "fsdist: not all of ext4's operations here: $(not_on)"
	else
		skip "fsdist: reads, writes and opens need kprobes (CONFIG_KPROBE_EVENTS)"
	fi
fi
# The histogram's counts (text) added up: its rows "lo -> hi : N |...|".
if run "$BIN/fsdist" -m -p PID; then
	n=$(sed -n '/^operation = fsyncs/,/^$/p' "$TMP/out" | sed -n 's/.*: *\([0-9][0-9]*\) *|.*/\1/p' | awk '{ n += $1 } END { print n + 0 }')
	check "fsdist -m -p (text): the fsyncs' histogram in ms counts 6 ($n)" sh -c "
		[ $RC -eq 0 ] && [ $n -eq 6 ] && grep -Eq '^operation = fsyncs \\(ext4_sync_file(_enter)?\\)\$' '$TMP/out' &&
		grep -q '(ms)' '$TMP/out'"
fi
[ -n "$B" ] && umount "$B"

# Two intervals of 0.3 s end the run: one object per operation in each.
ln -s "$(cd "$BIN" && pwd)/fsdist" "$TMP/ext4dist"
start_bg "$TMP/ext4dist" -j 0.3 2 && {
	wait_exit $BGPID 10; RC=$?
	check "ext4dist -j 0.3 2: ends by itself after two intervals, $NOPS objects each" sh -c "
		[ $RC -eq 0 ] && [ \$(wc -l < '$TMP/out') -eq $((2 * NOPS)) ]"
}
for bad in "x" "0" "1 0" "-p 0" "--fs ext5" "-d 0" "-a" "EXT4 --fs xfs"; do
	case $bad in EXT4*) cmd=$TMP/ext4dist bad=${bad#EXT4 } name=ext4dist ;; *) cmd=$BIN/fsdist name=fsdist ;; esac
	"$cmd" $bad > "$TMP/out" 2> "$TMP/err"
	check "$name $bad: usage error (exit 2), one line" sh -c \
		"[ $? -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q '^$name: ' '$TMP/err'"
done
check "after every run: tracefs as before" same_state
summary
