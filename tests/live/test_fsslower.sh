#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of fsslower: test programs make known operations. file_target vfs in a folder of
# ext4 (11 reads, 13 writes, its opens of regular files, 4 fsyncs of a file with 80 bytes
# not yet written back and 2 fdatasyncs), and the same in a tmpfs mounted for the test; at a
# threshold of 0 the first program's 6 fsyncs are shown exactly (ext4's tracepoints without
# kprobes, ext4_sync_file with them), and with kprobes its reads, writes and opens exactly,
# with their names; nothing of the tmpfs's program (not ext4); -p and -j; bpftrace counts the
# same fsyncs on the same tracepoints. With kprobes, file_target slow's read of 2000 bytes
# and write of 1000, each held 60 ms by a page its buffer waits for (userfaultfd), shown at
# 30 ms with their offset and name, none of its 40 fast ones. --cgroup: the fsyncs of the
# program in a group, none of the same program's outside. As ext4slower by its name;
# usage errors; tracefs as before.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

need_program FT file_target "${FILE_TARGET:-}"
D=${LIVE_FILE_DIR:-/var/tmp}
# The file system type of folder $1 (the longest mount point above it).
fstype() {
	awk -v d="$1/" '{ m = $2 "/"; if (m == "//") m = "/"; if (index(d, m) == 1 && length(m) > l) { l = length(m); t = $3 } } END { print t }' /proc/mounts
}
if [ "$(fstype "$D")" != ext4 ]; then
	skip "fsslower: $D is not ext4 ($(fstype "$D")): LIVE_FILE_DIR names a folder of ext4"
	summary
	exit 0
fi
"$BIN/fsslower" -v > "$TMP/v" 2> "$TMP/verr"
if [ $? -ne 0 ]; then
	skip "fsslower: nothing of ext4 can be traced here: $(cat "$TMP/verr")"
	summary
	exit 0
fi
KPROBES=
grep -q 'kprobe and kretprobe' "$TMP/v" && KPROBES=1
# on X: operation X is timed by a kprobe pair (-v); a function not in kallsyms is said there.
on() { grep -q "^$1  .*kprobe and kretprobe" "$TMP/v"; }
# not_on: what -v says of the operations not timed by kprobes (the counts below are then 0).
not_on() { grep -E '^[RWO]  .*not traced' "$TMP/v" | sed 's/  */ /g' | tr '\n' ';' | sed 's/;$//'; }
check "fsslower -v: fsyncs by ext4_sync_file (kprobes) or ext4's tracepoints, the others named" sh -c "
	grep -Eq '^S  fsyncs  (ext4_sync_file \(kprobe and kretprobe\)|ext4:ext4_sync_file_enter and ext4_sync_file_exit \(tracepoints\))\$' '$TMP/v' &&
	[ \$(grep -Ec '^[RWO]  [a-z]+ +((ext4_file_[a-z_]+|generic_file_read_iter, the calls on ext4_file_operations) \(kprobe and kretprobe\)\$|not traced \(ext4_file_[a-z_]+\): (kprobes not available \(CONFIG_KPROBE_EVENTS\)\$|not in /proc/kallsyms))' '$TMP/v') -eq 3 ]" ||
	sed 's/^/#   /' "$TMP/v"

A=$D/ftt-fsslower.$$ B=$TMP/tmpfs
mkdir -p "$B"
if ! mount -t tmpfs -o size=4m none "$B" 2> "$TMP/merr"; then
	notok "a tmpfs mounted for the test" "$TMP/merr"
	B=
fi
# run OPTS...: fsslower OPTS (PID: program a's) while a makes its calls in $D (ext4) and b
# the same in the tmpfs.
run() {
	rm -rf "$TMP/go" "$A"
	mkdir "$A"
	"$FT" vfs "$TMP/go" "$A" > "$TMP/a.out" & P_a=$!
	P_b=
	[ -z "$B" ] || { "$FT" vfs "$TMP/go" "$B" > "$TMP/b.out" & P_b=$!; }
	wait_line "$TMP/a.out" '^[0-9]' 5
	opts=$(echo "$*" | sed "s/PID/$P_a/")
	# bpftrace's start (seconds on a busy machine) beside the tool's
	[ -z "${BTRACE:-}" ] || bt_start
	start_bg "$BIN/fsslower" $opts || { touch "$TMP/go"; wait $P_a $P_b; rm -rf "$A"; return 1; }
	[ -z "${BTRACE:-}" ] || bt_wait
	touch "$TMP/go"
	wait $P_a
	TRC=$?
	[ -z "$P_b" ] || { wait $P_b; TRC=$((TRC + $?)); }
	case $opts in
	*-p*) wait_exit $BGPID 10; RC=$? ;; # the run ends with its process
	*) stop_bg ;;
	esac
	rm -rf "$A"
	[ "$TRC" -eq 0 ] || notok "the test programs ran to the end ($TRC)"
}
# bpftrace beside the run: program a's fsyncs on ext4's own tracepoint.
bt_start() {
	bpftrace -e "
		tracepoint:ext4:ext4_sync_file_exit /pid == $P_a/ { @s = count(); }
		tracepoint:sched:sched_process_exit /pid == $P_a && tid == $P_a/ { exit(); }
		$BT_READY" \
		> "$TMP/bt.out" 2> "$TMP/bt.err" &
	BT=$!
}
bt_wait() { wait_line "$TMP/bt.out" '^ready' 30 || { notok "bpftrace starts" "$TMP/bt.err"; BT=; }; }
BT= BTRACE= HAVE_BT=
command -v bpftrace > /dev/null 2>&1 && [ -d "$T/events/ext4/ext4_sync_file_exit" ] && HAVE_BT=1

# Program a's rows of op $1 (text: PID and T columns).
rows() { grep -Ec "^[0-9.]+ +file_target +$P_a $1 " "$TMP/out"; }
if run 0; then
	read -r reads writes creates opens fsyncs unlinks openat2 < "$TMP/a.out"
	# its openat2 fails before Linux 5.6 (ENOSYS): no open reaches the file system
	kv=$(uname -r | awk -F. '{ print $1 * 100 + $2 }')
	[ "$openat2" = 1 ] && [ "$kv" -lt 506 ] && opens=$((opens - 1))
	on R || reads=0
	on W || writes=0
	on O || opens=0
	check "fsslower 0 (the machine): program a's 4 fsyncs and 2 fdatasyncs on ext4, each once ($(rows S))" sh -c "
		[ $RC -eq 0 ] && [ $(rows S) -eq 6 ] &&
		grep -Eq '^TIME\\(s\\) +COMM +PID T +BYTES +OFF_KB +LAT\\(ms\\) FILENAME\$' '$TMP/out'"
	if [ -n "$KPROBES" ]; then
		check "fsslower 0 with kprobes: program a's $reads reads, $writes writes and $opens opens exactly, its fsyncs named c0 and c1" sh -c "
			[ $(rows R) -eq $reads ] && [ $(rows W) -eq $writes ] && [ $(rows O) -eq $opens ] &&
			[ \$(grep -Ec ' $P_a S +- +- +[0-9.]+ c0 *\$' '$TMP/out') -eq 4 ] &&
			[ \$(grep -Ec ' $P_a S +- +- +[0-9.]+ c1 *\$' '$TMP/out') -eq 2 ] &&
			{ [ $writes -eq 0 ] || [ \$(grep -Ec ' $P_a W +16 +0 +[0-9.]+ c[012] *\$' '$TMP/out') -ge 5 ]; }"
		[ -z "$(not_on)" ] || skip "fsslower: not all of ext4's operations here: $(not_on)"
	else
		check "fsslower 0 without kprobes: fsyncs only, each as its inode ([ino N]), reads, writes and opens named with CONFIG_KPROBE_EVENTS" sh -c "
			[ \$(grep -Ec ' $P_a S +- +- +[0-9.]+ \\[ino [0-9]+\\]\$' '$TMP/out') -eq 6 ] &&
			[ \$(grep -Ec ' $P_a [RWO] ' '$TMP/out') -eq 0 ] &&
			grep -q '^fsslower: reads (R), writes (W), opens (O) not traced: they need kprobes (CONFIG_KPROBE_EVENTS); tracing fsyncs\$' '$TMP/err'"
	fi
	[ -n "$P_b" ] && check "fsslower: nothing of the same program's operations on tmpfs" \
		sh -c "! grep -Eq '^[0-9.]+ +file_target +$P_b ' '$TMP/out'"
fi

BTRACE=$HAVE_BT
if run -j -p PID 0; then
	check "fsslower -j -p: valid JSON, program a's only, 6 fsyncs: 4 of one file, 2 of another" sh -c "
		[ $RC -eq 0 ] && '$JSONCHECK' '$TMP/out' ts time comm pid tid op func bytes errno offset lat_ns file ino > /dev/null &&
		! grep -vq '\"pid\":$P_a,' '$TMP/out' &&
		[ \$(grep -c '\"op\":\"S\"' '$TMP/out') -eq 6 ] &&
		[ \"\$(grep '\"op\":\"S\"' '$TMP/out' | grep -o '\"file\":[^,]*,\"ino\":[^}]*' | sort | uniq -c | awk '{print \$1}' | sort -n | tr '\n' ' ')\" = '2 4 ' ]"
	if [ -n "$BT" ]; then
		wait_exit $BT 20 || notok "bpftrace ends with the process"
		BTN=$(sed -n 's/^@s: //p' "$TMP/bt.out")
		FSN=$(grep -c '"op":"S"' "$TMP/out")
		check "fsslower: as many fsyncs of the program as bpftrace counts on ext4_sync_file_exit ($FSN, ${BTN:-0})" [ "$FSN" = "${BTN:-0}" ]
	elif [ -z "$BTRACE" ]; then
		skip "fsslower beside bpftrace: bpftrace or ext4:ext4_sync_file_exit not here"
	fi
fi
BTRACE=
[ -n "$B" ] && umount "$B"

# --cgroup: program a in a group of its own (v1 or v2), another (c) outside it, both in ext4.
G= CGT=
for d in /sys/fs/cgroup/pids /sys/fs/cgroup/memory /sys/fs/cgroup/unified /sys/fs/cgroup; do
	if grep -q "^[^ ]* $d cgroup2 " /proc/mounts; then f=cgroup.procs
	elif grep -q "^[^ ]* $d cgroup " /proc/mounts; then f=tasks
	else continue; fi
	mkdir "$d/ftt-fsslower-$$" 2> /dev/null || continue
	G=$d/ftt-fsslower-$$ CGT=$G/$f
	break
done
if [ -z "$G" ]; then
	skip "fsslower --cgroup: no cgroup hierarchy mounted to make a group in (CONFIG_CGROUPS)"
else
	C=$D/ftt-fsslower-c.$$
	rm -rf "$TMP/go" "$A" "$C"
	mkdir "$A" "$C"
	"$FT" vfs "$TMP/go" "$A" > "$TMP/a.out" & P_a=$!
	"$FT" vfs "$TMP/go" "$C" > "$TMP/c.out" & P_c=$!
	wait_line "$TMP/a.out" '^[0-9]' 5 && wait_line "$TMP/c.out" '^[0-9]' 5
	echo $P_a > "$CGT"
	if start_bg "$BIN/fsslower" -j --cgroup "$G" 0; then
		touch "$TMP/go"
		wait $P_a $P_c
		stop_bg
		check "fsslower --cgroup: the group's program's 6 fsyncs, none of the one outside" sh -c "
			[ $RC -eq 0 ] && [ \$(grep -c '\"pid\":$P_a,.*\"op\":\"S\"' '$TMP/out') -eq 6 ] &&
			! grep -q '\"pid\":$P_c,' '$TMP/out'"
	else
		touch "$TMP/go"
		wait $P_a $P_c
	fi
	rm -rf "$A" "$C"
	rmdir "$G"
fi

# Slow reads and writes: file_target slow, run as ext4slower.
if [ -z "$KPROBES" ]; then
	skip "fsslower: reads and writes need kprobes (CONFIG_KPROBE_EVENTS)"
elif ! on R || ! on W; then
	skip "fsslower: slow reads and writes: $(not_on)"
else
	ln -s "$(cd "$BIN" && pwd)/fsslower" "$TMP/ext4slower"
	S=$D/ftt-fsslower-slow.$$
	rm -rf "$TMP/go" "$S"
	mkdir "$S"
	"$FT" slow "$TMP/go" "$S" > "$TMP/s.out" & P_s=$!
	wait_line "$TMP/s.out" '^[01]$' 5
	if start_bg "$TMP/ext4slower" -j -p $P_s 30; then
		touch "$TMP/go"
		wait $P_s; TRC=$?
		wait_exit $BGPID 10; RC=$?
		if [ "$(cat "$TMP/s.out")" = 1 ]; then
			RF=ext4_file_read_iter # or where ext4 has no read_iter (before 4.10):
			grep -q '^R .*generic_file_read_iter' "$TMP/v" && RF=generic_file_read_iter
			cat > "$TMP/want" << END
"comm":"file_target","op":"R","func":"$RF","bytes":2000,"errno":0,"offset":0,
"comm":"file_target","op":"W","func":"ext4_file_write_iter","bytes":1000,"errno":0,"offset":0,
END
			sed 's/^{"ts":[0-9.]*,"time":"[0-9:]*",//; s/"pid":[0-9]*,"tid":[0-9]*,//; s/"lat_ns".*//' "$TMP/out" > "$TMP/got"
			check "ext4slower -j -p 30: the read of 2000 bytes and the write of 1000 held 60 ms, each once, none of the 40 fast ones" sh -c "
				[ $RC -eq 0 ] && [ $TRC -eq 0 ] && cmp -s '$TMP/want' '$TMP/got' &&
				[ \$(grep -c '\"file\":\"slow\\\\n\\\\udcff file\",\"ino\":null}\$' '$TMP/out') -eq 2 ]" ||
				{ echo "# want:"; sed 's/^/#   /' "$TMP/want"; echo "# got:"; sed 's/^/#   /' "$TMP/out"; }
			check "ext4slower: each latency 60 ms or more (the known delay)" sh -c "
				[ \$(grep -o '\"lat_ns\":[0-9]*' '$TMP/out' | sed 's/.*://' | awk '\$1 >= 60000000' | wc -l) -eq 2 ]"
		else
			skip "fsslower: slow reads and writes: no userfaultfd (CONFIG_USERFAULTFD, Linux 4.3)"
		fi
	fi
	rm -rf "$S"
fi

"$BIN/fsslower" -v --fs xfs > "$TMP/out" 2> "$TMP/err"
check "fsslower -v --fs xfs: exit 0 with a function of xfs, or 1 saying why none" sh -c "
	[ $? -eq 0 ] && grep -q 'xfs_file_' '$TMP/out' ||
	{ [ $? -eq 1 ] && grep -Eq '^fsslower: nothing of xfs can be traced: (kprobes not available in this kernel \\(CONFIG_KPROBE_EVENTS\\)|none of its functions is in /proc/kallsyms)' '$TMP/err'; }"
ln -sf "$(cd "$BIN" && pwd)/fsslower" "$TMP/xfsslower"
for bad in "x" "-- -1" "10 20" "-p 0" "--fs ext5" "-d 0" "-m 5" "XFS --fs ext4"; do
	case $bad in XFS*) cmd=$TMP/xfsslower bad=${bad#XFS } name=xfsslower ;; *) cmd=$BIN/fsslower name=fsslower ;; esac
	"$cmd" $bad > "$TMP/out" 2> "$TMP/err"
	check "$name $bad: usage error (exit 2), one line" sh -c \
		"[ $? -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q '^$name: ' '$TMP/err'"
done
check "after every run: tracefs as before" same_state
summary
