#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# --cgroup PATH (every tracing tool): only the tasks of a control group (v1 and v2) and its
# descendants, and what they start; a task moved in later is traced from the group's next
# reading; a path that is not a cgroup is a usage error. A known workload in the group and
# another outside it, counted exactly.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

ST=${SYS_TARGET:-$BIN/tests/sys_target}
# Group folders made here, each removed at the end (rmdir of an empty group).
GROUPS=
cleanup_groups() { for g in $GROUPS; do rmdir "$g" 2> /dev/null; done; }
trap cleanup_groups EXIT
# make_group DIR: DIR/ftt-live-$$ made; its path in G, or 1 when it cannot be.
make_group() {
	[ -d "$1" ] || return 1
	G=$1/ftt-live-$$
	mkdir "$G" 2> /dev/null || return 1
	GROUPS="$GROUPS $G"
}

if [ ! -d "$T/events/syscalls/sys_enter_getppid" ]; then
	skip "--cgroup: no syscalls:sys_enter_getppid (CONFIG_FTRACE_SYSCALLS)"
	summary
	exit 0
fi

# A shell in group $1 (its tasks file) that, once the tool is ready, runs sys_target with
# 1234 getppid calls (a child it starts: followed by fork), while one outside makes 777.
run_case() {
	what=$1 tasks=$2
	rm -f "$TMP/go" "$TMP/out" "$TMP/err"
	sh -c "echo \$\$ > '$tasks'; while [ ! -e '$TMP/go' ]; do sleep 0.05; done; '$ST' 1234" &
	IN=$!
	sleep 0.2
	"$BIN/tpoint" -c --cgroup "$G" syscalls:sys_enter_getppid > "$TMP/out" 2> "$TMP/err" &
	TPID=$!
	wait_ready $TPID "$TMP/err"
	touch "$TMP/go"
	"$ST" 777
	wait $IN
	sleep 0.3
	kill -INT $TPID
	wait_exit $TPID 10
	n=$(awk '$1 == "syscalls:sys_enter_getppid" {s += $2} END {print s + 0}' "$TMP/out")
	check "$what: 1234 calls of the group's child counted, none of the 777 outside ($n)" \
		[ "$n" -eq 1234 ]
	check "$what: the banner says the group" grep -q "Only the tasks of cgroup $G" "$TMP/err"
}

if make_group /sys/fs/cgroup/pids || make_group /sys/fs/cgroup/memory ||
	{ [ -e /sys/fs/cgroup/cgroup.procs ] || true; } && [ -n "${G:-}" ]; then
	run_case "cgroup v1 ($G)" "$G/tasks"
else
	skip "--cgroup on cgroup v1: no v1 hierarchy here"
fi
G=
for d in /sys/fs/cgroup/unified /sys/fs/cgroup; do
	grep -q "^[^ ]* $d cgroup2 " /proc/mounts && make_group "$d" && break
done
if [ -n "${G:-}" ]; then
	run_case "cgroup v2 ($G)" "$G/cgroup.procs"
	# A task moved into the group after the start: traced from the group's next reading
	# (about a second).
	rm -f "$TMP/out" "$TMP/err" "$TMP/go"
	"$BIN/tpoint" -c --cgroup "$G" syscalls:sys_enter_getppid > "$TMP/out" 2> "$TMP/err" &
	TPID=$!
	wait_ready $TPID "$TMP/err"
	# (Its shell called getppid at its start, before the move: not counted.)
	sh -c "echo \$\$ > '$G/cgroup.procs'; sleep 1.5; exec '$ST' 55"
	sleep 0.3
	kill -INT $TPID
	wait_exit $TPID 10
	n=$(awk '$1 == "syscalls:sys_enter_getppid" {s += $2} END {print s + 0}' "$TMP/out")
	check "a task moved into the group after the start: traced from the next reading ($n of 55)" \
		[ "$n" -eq 55 ]
else
	skip "--cgroup on cgroup v2: no cgroup2 file system mounted here"
fi

# iosnoop checks the group itself (completions run in interrupts, in any task): 8 direct
# writes of a task in the group shown, 5 of one outside not.
if [ -n "${G:-}" ]; then
	D=${LIVE_FILE_DIR:-/var/tmp}
	rm -f "$TMP/out" "$TMP/err" "$TMP/go"
	# The group's shell starts dd (a task made in the group), which is gone when its
	# completions are read: known by who made it.
	sh -c "echo \$\$ > '$G/cgroup.procs'; while [ ! -e '$TMP/go' ]; do sleep 0.05; done
		dd if=/dev/zero of='$D/ftt-cg-in.$$' bs=4096 count=8 oflag=direct 2> /dev/null; sleep 1" &
	IN=$!
	sleep 0.2
	rm -f "$TMP/out" "$TMP/err" # (a banner left from the last run is not this one's)
	"$BIN/iosnoop" --cgroup "$G" > "$TMP/out" 2> "$TMP/err" &
	TPID=$!
	wait_ready $TPID "$TMP/err"
	touch "$TMP/go"
	dd if=/dev/zero of="$D/ftt-cg-out.$$" bs=4096 count=5 oflag=direct 2> /dev/null
	wait $IN
	sleep 0.5
	kill -INT $TPID
	wait_exit $TPID 10
	rm -f "$D/ftt-cg-in.$$" "$D/ftt-cg-out.$$"
	check "iosnoop --cgroup: the 8 direct writes of the group's dd, none of the other's" sh -c "
		[ \$(grep -c '^dd .* W' '$TMP/out') -eq 8 ]"
fi

# Not a cgroup, and with -p: usage errors that change nothing.
"$BIN/tpoint" --cgroup /tmp -d 0.1 sched:sched_switch > /dev/null 2> "$TMP/err"
rc=$?
check "--cgroup /tmp: exit 2, one line saying it is not a cgroup" sh -c "
	[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q 'not a cgroup' '$TMP/err'"
"$BIN/tpoint" --cgroup /sys/fs/cgroup/ftt-no-such -d 0.1 sched:sched_switch > /dev/null 2> "$TMP/err"
check "--cgroup of a path that is not there: exit 2" [ $? -eq 2 ]
# The tools whose events happen in other tasks' context, or that count at the top level, have
# no --cgroup (a filter by the running task would be wrong there): a usage error, not in -h.
for tool in tcpdrop hardirqs oomkill funcgraph; do
	"$BIN/$tool" --cgroup /sys/fs/cgroup -d 0.1 > /dev/null 2> "$TMP/err"
	rc=$?
	check "$tool --cgroup: exit 2, one line, and -h does not offer it" sh -c "
		[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q -- \"'--cgroup'\" '$TMP/err' &&
		! '$BIN/$tool' -h | grep -q -- --cgroup" || cat "$TMP/err"
done

cleanup_groups
check "at the end: tracefs as it was" same_state
summary
