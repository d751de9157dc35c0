#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-only
# /init of the vmcheck guest: load modules, probe tracing features, run the live tests.
# Everything the host reads goes to /dev/ttyS1 (the kernel's console is on ttyS0).
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
# The tools keep their run state in /run/ftrace-tools, never under /tmp (state.h).
mkdir -p /run && mount -t tmpfs -o mode=0755 run /run
mkdir -p /var/tmp /mnt
OUT=/dev/ttyS1
say() { echo "$*" > $OUT; }
finish() {
	say "FTT-END $1"
	sync
	# isa-debug-exit ends qemu at once; poweroff is the fallback.
	printf '\000' | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
	poweroff -f
}

for m in $(cat /ftt/modules.order); do
	insmod /ftt/modules/$m > /dev/null 2>&1 || say "# insmod $m failed"
done
sleep 1 # let the disks appear
ip link set lo up # tests that connect to 127.0.0.1
say "# time boot $(cut -d. -f1 /proc/uptime) s"

# elsewhere NAME: the guests of this run NAME runs in instead of this one (vmcheck.sh's
# ONE_GUEST), or nothing. NAME may hold brackets ("test_block[nullb0]").
elsewhere() { awk -v n="$1" '$1 == n { print $2 }' /ftt/elsewhere 2> /dev/null; }

# FEATURE yes|no NAME (the name may have spaces)
feature() { if eval "$2" > /dev/null 2>&1; then say "FEATURE yes $1"; else say "FEATURE no $1"; fi; }

# Nothing is mounted yet: the tools must mount tracefs themselves.
/ftt/bin/iolatency 0.2 1 > /tmp/o 2> /tmp/e
rc=$?
if [ $rc -eq 0 ] && grep -q ' tracefs ' /proc/mounts; then
	say "ok - with nothing mounted, iolatency mounts tracefs and runs"
	R=1
else
	say "not ok - with nothing mounted, iolatency mounts tracefs and runs (exit $rc: $(cat /tmp/e | head -2))"
	R=0
fi
say "$R passed, $((1 - R)) failed, 0 skipped"
T=$(awk '$3 == "tracefs" {print $2; exit}' /proc/mounts)
[ -n "$T" ] && umount "$T"

# From here on only debugfs is mounted: tracefs is reached as /sys/kernel/debug/tracing.
mount -t debugfs debugfs /sys/kernel/debug
T=/sys/kernel/debug/tracing
feature "tracefs-under-debugfs" "[ -e $T/events ]"
feature "instances" "[ -d $T/instances ]"
feature "kprobe_events" "[ -e $T/kprobe_events ]"
feature "uprobe_events" "[ -e $T/uprobe_events ]"
feature "dynamic_events" "[ -e $T/dynamic_events ]"
# The tracefs README lists the eprobe syntax even without CONFIG_EPROBE_EVENTS (6.18): create one.
feature "eprobes" "echo 'e:fttfeat/e syscalls.sys_enter_openat' >> $T/dynamic_events && echo '-:fttfeat/e' >> $T/dynamic_events"
feature "error_log" "[ -e $T/error_log ]"
feature "set_event_pid" "[ -e $T/set_event_pid ]"
feature "event-fork" "[ -e $T/options/event-fork ]"
feature "hist triggers" "grep -q 'hist:keys' $T/README"
feature "synthetic_events" "[ -e $T/synthetic_events ]"
feature "function tracer" "grep -qw function $T/available_tracers"
feature "function_graph tracer" "grep -qw function_graph $T/available_tracers"
feature "trace clock mono" "grep -qw mono $T/trace_clock"
feature "buffer_percent" "[ -e $T/buffer_percent ]"
feature "\$argN in probes" "grep -q '\$arg<N>' $T/README"
feature "+u and :ustring in probes" "grep -q ustring $T/README"
feature "comm in event filters" "echo 'comm ~ \"x*\"' > $T/events/sched/sched_switch/filter && echo 0 > $T/events/sched/sched_switch/filter"
feature "block_bio_queue (iosnoop submitter)" "[ -d $T/events/block/block_bio_queue ]"
feature "block_rq_insert (iosnoop -Q)" "[ -d $T/events/block/block_rq_insert ]"
feature "block_rq_issue ioprio field" "grep -q ioprio $T/events/block/block_rq_issue/format"
feature "virtio_blk disk" "[ -b /dev/vda ]"
feature "null_blk disk" "[ -b /dev/nullb0 ]"

# A file system on a disk, for the file and discard tests.
mount -o discard /dev/vdb /mnt 2> /tmp/e || say "# mount /dev/vdb: $(cat /tmp/e)"

# A script given to vmcheck (VM_DEBUG_SCRIPT) runs instead of the suite, in a shell of its
# own: sourced here, a function of it named like one of init's (finish) replaced init's.
if [ -x /ftt/debug.sh ]; then
	T=$T BIN=/ftt/bin sh /ftt/debug.sh > $OUT 2>&1
	finish 0
fi

# Every live suite (a glob, as make check runs them: a new suite cannot be left out here);
# the block suite once per disk. VM_PROBE_TESTS=0 on the host (kernel argument ftt.probe=0)
# runs the block suite only.
# LIVE_CLOCK_SLACK_MS: see the -Q test in test_block.sh (vCPUs take turns under TCG).
export LIVE_GUEST=1 BIN=/ftt/bin JSONCHECK=/ftt/bin/jsoncheck UPROBE_TARGET=/ftt/bin/uprobe_target \
	NAMES_TARGET=/ftt/bin/names_target EXIT_TARGET=/ftt/bin/exit_target \
	SYS_TARGET=/ftt/bin/sys_target EXEC_TARGET=/ftt/bin/exec_target TCP_TARGET=/ftt/bin/tcp_target LOCK_TARGET=/ftt/bin/lock_target LIVE_FILE_DIR=/mnt TMPDIR=/tmp LIVE_CLOCK_SLACK_MS=5
# test_examples: the pages vmcheck.sh names (VM_EXAMPLES), or all.
[ -s /ftt/example-pages ] && export EXAMPLE_PAGES="$(cat /ftt/example-pages)"
runs=1
for t in /ftt/tests/live/test_*.sh; do
	name=$(basename "$t" .sh)
	# VM_SUITES on the host: only the suites named there.
	if [ -e /ftt/suites ] && ! grep -qw "$name" /ftt/suites; then
		continue
	fi
	if [ "$name" = test_block ]; then
		for disk in /dev/vda /dev/nullb0; do
			if [ ! -b $disk ]; then
				say "skip - live tests on $disk: no such device"
				say "0 passed, 0 failed, 1 skipped"
				runs=$((runs + 1))
				continue
			fi
			# (the null_blk run in some guests only: vmcheck.sh, ONE_GUEST)
			other=$(elsewhere "$name[$(basename $disk)]")
			if [ -n "$other" ]; then
				say "# $name[$(basename $disk)]: run in the $other guest only"
				continue
			fi
			say "# live tests with LIVE_DISK=$disk"
			t0=$(cut -d. -f1 /proc/uptime)
			# Streamed, so that a guest that hangs still shows how far it got.
			LIVE_DISK=$disk sh "$t" 2>&1 |
				sed "s#^\(ok\|not ok\|skip\) - #\1 - [$(basename $disk)] #" > $OUT
			say "# time $name[$(basename $disk)] $(($(cut -d. -f1 /proc/uptime) - t0)) s"
			runs=$((runs + 1))
		done
		continue
	fi
	grep -q 'ftt.probe=0' /proc/cmdline && continue
	# A suite the host runs in another guest of this run (vmcheck.sh, ONE_GUEST).
	other=$(elsewhere "$name")
	if [ -n "$other" ]; then
		say "# $name: run in the $other guest only"
		continue
	fi
	say "# live tests: $name"
	t0=$(cut -d. -f1 /proc/uptime)
	sh "$t" 2>&1 > $OUT
	say "# time $name $(($(cut -d. -f1 /proc/uptime) - t0)) s"
	runs=$((runs + 1))
done
# Which mechanism opensnoop chose for paths here (its banner says "via ...").
banner=$(/ftt/bin/opensnoop -d 0.1 2>&1 > /dev/null | grep '^Tracing')
case $banner in
*"via kprobes ("*) via=kprobe:$(echo "$banner" | sed 's/.*via kprobes (\([a-z_]*\)).*/\1/') ;;
*"via event probes"*) via=eprobe ;;
*"via uprobes"*) via=uprobe ;;
*) via=none ;;
esac
say "FEATURE $via opensnoop reads paths via"
banner=$(/ftt/bin/execsnoop -d 0.1 2>&1 > /dev/null | grep '^Tracing')
case $banner in
*"via kprobes on "*) via=kprobe:$(echo "$banner" | sed 's/.*via kprobes on \([a-z_0-9]*\).*/\1/') ;;
*"via event probes"*) via=eprobe ;;
*"via uprobes"*) via=uprobe ;;
*) via=proc ;;
esac
say "FEATURE $via execsnoop reads arguments via"
say "FTT-RUNS $runs"
finish 0
