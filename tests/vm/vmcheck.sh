#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make vmcheck: run the live test suite inside Debian kernels booted under qemu (TCG).
#
# For each suite (default: bullseye's 5.10, bookworm's 6.1, bookworm-backports' 6.12) the
# kernel package is fetched from the machine's own Debian registry (apt sources derived from
# the machine's, only the suite name changed) and cached in $VM_CACHE, outside the clone.
# The guest boots an initramfs with busybox, the static tools, the live tests and the modules
# they need; it reports on a second serial port and must end with an FTT-END line, or the
# kernel counts as failed (with the console tail shown).
#
# Old kernels (4.9, 4.14, 4.18, 4.19) are bootable images with everything built in, in
# $VM_IMAGES (default: $VM_CACHE/images, where tests/vm/kernels/build.sh puts what it builds):
# a name in VM_KERNELS with a vmlinuz-NAME there boots that image, without modules. By default
# every image there runs after Debian's suites; VM_IMAGES= (empty) leaves them out; a folder
# without images fails, saying how to get them.
#
# Every tests/live/test_*.sh runs in each guest (the block suite once per disk).
# Environment: VM_KERNELS (suites and image names), VM_SUITES (live suites to run, by name:
# "test_trust test_block"; default all), VM_JOBS (guests at once, default 2), VM_IMAGES,
# VM_CACHE, VM_TIMEOUT (s per kernel), VM_ONE_GUEST, VM_EXAMPLES, VM_FIRST and VM_HOLD (below), VM_KEEP=1 (keep the
# work folder), VM_SMP (vCPUs, 2), VM_PROBE_TESTS=0 (block suites only), VM_DEBUG_SCRIPT (a script run in the
# guest instead of the suites), VM_APPEND (kernel arguments), VM_MONITOR=1 (a qemu monitor
# socket), VM_ACCEL and VM_CPU (qemu's accelerator and CPU model), BIN (static tools,
# default build/static).
set -u
cd "$(dirname "$0")/../.."
BIN=${BIN:-build/static}
CACHE=${VM_CACHE:-/var/cache/ftrace-tools-vm}
IMAGES=${VM_IMAGES-$CACHE/images}
if [ -n "${VM_KERNELS:-}" ]; then
	KERNELS=$VM_KERNELS
else
	KERNELS="bullseye bookworm bookworm-backports"
	if [ -n "$IMAGES" ]; then
		ls "$IMAGES"/vmlinuz-* > /dev/null 2>&1 || {
			echo "vmcheck: no old-kernel images (vmlinuz-*) in $IMAGES: build them with" \
				"tests/vm/kernels/build.sh SRCDIR $IMAGES, or point VM_IMAGES at a folder" \
				"that has them; VM_IMAGES= leaves the old kernels out" >&2
			exit 1
		}
		# Newest first, as the Debian suites.
		KERNELS="$KERNELS $(ls "$IMAGES"/vmlinuz-* | sed 's#.*/vmlinuz-##' | sort -rV | tr '\n' ' ')"
	fi
fi
# Suites that run in one guest only, SUITE=KERNEL: what they check does not depend on the
# kernel beyond what that one has, and they cost minutes under TCG. test_examples runs every
# man page's examples: as written on this machine's kernel (make check) and in 4.19, which
# has kprobes, uprobes and the function tracers (about 200 s there; about 600 s in 6.12,
# where switching function_graph patches every function); the tools' own suites check each
# kernel. test_pictures: heatmap and flamegraph read files; its one traced part (uprobe -U
# --folded) is test_probe's in every guest. The function tracers' suites (funcgraph: 209 s
# in 5.10 under TCG, switching function_graph patches every function) and test_trust (88
# s: hostile names, values and files, through the same code on every kernel) in the oldest
# kernel that has every feature and the newest Debian one. funcslower and funccount (39 to
# 69 s a guest) choose between hist triggers with or without synthetic events (4.17), the
# function profiler and kprobes: one kernel of each kind (4.9 or 4.14: hist triggers without
# synthetic events; 4.19: all of them; 6.12: the newest). test_probe (56 to 88 s a guest)
# checks the probe syntax each kernel takes: the oldest (4.9), 4.18 (no $argN, no +u, as
# 4.14 and 4.19) and 6.12 (both) span it; 5.10 and 6.1 take 6.12's. test_offwaketime joins
# the pairing and stacks that test_wakeuptime and test_offcputime check in every guest: 4.9
# and 4.14. test_fsdist times what test_fsslower times (every guest), binned: 4.9 (ext4
# through generic_file_read_iter) and 6.12. test_sslsniff only says in a guest that it has no
# libssl: 4.14 says it. (4.19 runs the man pages' examples, the longest guest: 1051 s in a
# CI run of 2026-11-30, its suites there and 1.5 times that on a slower day; test_probe,
# test_offwaketime and test_sslsniff moved off it then.) The block suite runs on a virtio
# disk in every guest and on null_blk (another driver under the same block tracepoints:
# completed at once, no I/O scheduler) in the oldest kernel, 4.19 and the newest (35 s a
# guest, 7 and a half minutes of a CI run's guests before). VM_ONE_GUEST= runs them all in
# every guest.
ONE_GUEST=${VM_ONE_GUEST-test_block[nullb0]=4.9.337+4.19.222+bookworm-backports test_examples=4.19.222 test_pictures=4.9.337 test_funcgraph=4.19.222+bookworm-backports test_functrace=4.19.222+bookworm-backports test_trust=4.19.222+bookworm-backports test_funcslower=4.14.325+4.19.222+bookworm-backports test_funccount=4.9.337+4.19.222+bookworm-backports test_probe=4.9.337+4.18.0-147.5.1.el8_1.x86_64+bookworm-backports test_offwaketime=4.9.337+4.14.325 test_fsdist=4.9.337+bookworm-backports test_sslsniff=4.14.325}
# test_examples runs there only the examples the host's make check skips on this machine's
# 6.18 (no kprobes, the function tracer refused): the pages of the tools that trace kernel
# functions, and capable (--audit) and heatmap (funclatency). They took 435 s of 4.19's
# 1175 s, every page's examples, in the CI run of 2026-11-30; the others run on the host.
# VM_EXAMPLES=all runs every page's.
EXAMPLES=${VM_EXAMPLES-cachestat capable funccount funcgraph funclatency funcslower functrace heatmap kprobe}
# (A guest under CI's load took 1.3 to 1.6 times its time alone: 1800 s leaves the longest,
# 4.19, a margin; a hung guest still ends the run well inside CI's 90 minutes.)
TIMEOUT=${VM_TIMEOUT:-1800}
WORK=$(mktemp -d /tmp/ftt-vm.XXXXXX)
[ "${VM_KEEP:-}" = 1 ] || trap 'rm -rf "$WORK"' EXIT
# Modules the tests need: virtio disks, loop, null_blk, ext4 for a file system on a disk.
WANT_MODULES="virtio_pci virtio_blk loop null_blk ext4 crc32c_generic"

die() { echo "vmcheck: $*" >&2; exit 1; }
for t in qemu-system-x86_64 busybox depmod mkfs.ext4 dpkg-deb apt-get; do
	command -v $t >/dev/null || die "$t not found: run 'make vmcheck-deps' (qemu-system-x86, busybox-static, kmod, e2fsprogs)"
done
for t in $(ls tools/*.c | sed 's#tools/##; s#\.c$##') uprobe_target names_target exit_target sys_target exec_target tcp_target lock_target jsoncheck; do
	[ -x "$BIN/$t" ] || die "$BIN/$t missing: run 'make static'"
done

# is_image NAME: NAME is a kernel image in $IMAGES, not a Debian suite.
is_image() { [ -n "$IMAGES" ] && [ -f "$IMAGES/vmlinuz-$1" ]; }

# root SUITE: where the kernel of SUITE is unpacked (an image: an empty module tree).
root() { if is_image "$1"; then echo "$WORK/root-$1"; else echo "$CACHE/root-$1"; fi; }

# fetch SUITE: the kernel package of that suite, unpacked under $CACHE/root-SUITE; an image
# gets a root of its own with boot/vmlinuz-NAME and no modules.
fetch() {
	local suite=$1 d=$CACHE/apt-$1 root
	root=$(root "$1")
	if is_image "$suite"; then
		mkdir -p "$root/boot" "$root/lib/modules/$suite"
		ln -sf "$IMAGES/vmlinuz-$suite" "$root/boot/vmlinuz-$suite"
		return 0
	fi
	[ -e "$root/.complete" ] && return 0
	mkdir -p "$d/lists/partial" "$d/parts" "$d/cache"
	# The machine's main Debian source, with only the suite changed.
	src=$(ls /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
	if [ -n "$src" ]; then
		awk 'BEGIN{RS=""; ORS="\n\n"} /Suites:/ && !/security/ {print; exit}' "$src" |
			sed "s/^Suites:.*/Suites: $suite/" > "$d/parts/$suite.sources"
	else
		grep -m1 '^deb ' /etc/apt/sources.list | awk -v s="$suite" '{$3 = s; print}' > "$d/parts/$suite.list"
	fi
	local A=(-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$d/parts"
		-o Dir::State::Lists="$d/lists" -o Dir::Cache="$d/cache" -o APT::Sandbox::User=root)
	apt-get "${A[@]}" -qq update || return 1
	local pkg
	pkg=$(apt-cache "${A[@]}" depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
	[ -n "$pkg" ] || { echo "no kernel package in $suite"; return 1; }
	rm -f "$d"/*.deb
	(cd "$d" && apt-get "${A[@]}" -qq download "$pkg") || return 1
	rm -rf "$root"; mkdir -p "$root"
	dpkg-deb -x "$d"/"$pkg"_*.deb "$root" || return 1
	touch "$root/.complete"
}

# initramfs SUITE OUT: busybox, tools, tests, modules (deps first, decompressed).
initramfs() {
	local root out=$2 krel
	root=$(root "$1")
	krel=$(ls "$root/lib/modules")
	local ir=$WORK/ir-$1
	rm -rf "$ir"; mkdir -p "$ir"/{bin,proc,sys,dev,tmp,mnt,ftt/bin,ftt/modules,ftt/tests/live}
	cp "$(command -v busybox)" "$ir/bin/busybox"
	cp "$BIN"/* "$ir/ftt/bin/"
	cp tests/live/*.sh "$ir/ftt/tests/live/"
	# The man pages: test_examples runs the examples they give.
	mkdir -p "$ir/ftt/man/man8" && cp man/man8/*.8 "$ir/ftt/man/man8/"
	cp tests/vm/guest-init.sh "$ir/init"; chmod +x "$ir/init"
	[ -n "${VM_DEBUG_SCRIPT:-}" ] && install -m 0755 "$VM_DEBUG_SCRIPT" "$ir/ftt/debug.sh"
	echo "$krel" > "$ir/ftt/kernel"
	[ -n "${VM_SUITES:-}" ] && echo "$VM_SUITES" > "$ir/ftt/suites"
	[ "$EXAMPLES" = all ] || echo "$EXAMPLES" > "$ir/ftt/example-pages"
	# Suites run in some guests of the run only (ONE_GUEST: SUITE=K1+K2), when one of
	# those guests is in the run.
	: > "$ir/ftt/elsewhere"
	local pair k here inrun
	for pair in $ONE_GUEST; do
		here= inrun=
		for k in $(echo "${pair#*=}" | tr '+' ' '); do
			case " $KERNELS " in *" $k "*) inrun=1 ;; esac
			[ "$k" = "$1" ] && here=1
		done
		[ -n "$inrun" ] && [ -z "$here" ] && echo "${pair%%=*} ${pair#*=}" >> "$ir/ftt/elsewhere"
	done
	local dep=$root/lib/modules/$krel/modules.dep order=$ir/ftt/modules.order
	: > "$order"
	if is_image "$1"; then # everything built in
		(cd "$ir" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1) > "$out"
		return
	fi
	[ -e "$dep" ] || depmod -b "$root" "$krel" || return 1
	add() { # add MODULE-PATH: its dependencies first
		grep -qx "$(basename "$1")" "$order" 2>/dev/null && return
		local deps
		deps=$(grep "^$1:" "$dep" | cut -d: -f2)
		for d in $(echo $deps | tr ' ' '\n' | tac); do add "$d"; done
		local f=$root/lib/modules/$krel/$1 name
		name=$(basename "$1" | sed 's/\.\(xz\|zst\)$//')
		grep -qx "$name" "$order" && return
		case $1 in
		*.xz) xz -dc "$f" > "$ir/ftt/modules/$name" ;;
		*.zst) zstd -qdc "$f" > "$ir/ftt/modules/$name" ;;
		*) cp "$f" "$ir/ftt/modules/$name" ;;
		esac
		echo "$name" >> "$order"
	}
	for m in $WANT_MODULES; do
		p=$(grep -oE "^[^:]*/$m\.ko(\.xz|\.zst)?:" "$dep" | head -1 | tr -d :)
		[ -n "$p" ] && add "$p" # absent: built in (or not there; the tests say so)
	done
	(cd "$ir" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1) > "$out"
}

# watch_stall SUITE PID: a guest whose kernel has reported a stall or lockup three times on
# the console since its last result, and whose results have not grown for STALL_SECS (240 s;
# a lasting RCU stall is reported every minute or so, a soft lockup more often), is hung (CI's
# 4.18 guest of 2026-11-30 said "rcu_sched self-detected stall" for 18 minutes, until
# VM_TIMEOUT); so is one whose results have not grown for QUIET_SECS (600 s; the longest check
# waits 180 s) whatever its console says. qemu is ended then, not at VM_TIMEOUT, and why is
# kept for the guest's failure.
STALL_SECS=${VM_STALL_SECS:-240}
QUIET_SECS=${VM_QUIET_SECS:-600}
watch_stall() {
	local suite=$1 pid=$2 still=0 size last= cons=0 why= n
	while kill -0 "$pid" 2> /dev/null; do
		sleep 10
		size=$(stat -c %s "$WORK/$suite.results" 2> /dev/null)
		if [ "$size" = "$last" ]; then
			still=$((still + 10))
		else
			still=0
			cons=$(stat -c %s "$WORK/$suite.console" 2> /dev/null || echo 0)
		fi
		last=$size
		n=$(tail -c +$((cons + 1)) "$WORK/$suite.console" 2> /dev/null |
			grep -cE 'detected stall|soft lockup|blocked for more than')
		if [ $still -ge "$QUIET_SECS" ]; then
			why="no result for ${QUIET_SECS} s"
		elif [ $still -ge "$STALL_SECS" ] && [ "$n" -ge 3 ]; then
			why="the kernel stalled ($n reports), no result for ${STALL_SECS} s"
		fi
		if [ -n "$why" ]; then
			echo "$why" > "$WORK/$suite.stalled"
			kill "$pid"
			return
		fi
	done
}

# boot SUITE: run the guest; results in $WORK/SUITE.results, console in $WORK/SUITE.console.
boot() {
	local suite=$1 root krel
	root=$(root "$1")
	krel=$(ls "$root/lib/modules")
	initramfs "$suite" "$WORK/$suite.initrd" || return 1
	truncate -s 128M "$WORK/$suite.disk"
	truncate -s 128M "$WORK/$suite.fs"
	mkfs.ext4 -q -F -O ^metadata_csum "$WORK/$suite.fs"
	# Single-threaded TCG: with one host thread per vCPU (thread=multi) the 6.12 guest died of
	# "Oops: int3" in __schedule (a tracepoint's static key being patched with int3 while the
	# other vCPU ran it) three times in a row on 2026-11-21; thread=single passed all three
	# kernels at about the same speed. loglevel=5: warnings too, as a stall's backtrace is.
	timeout "$TIMEOUT" qemu-system-x86_64 -accel "${VM_ACCEL:-tcg,thread=single}" -cpu "${VM_CPU:-max,-tsc-deadline}" -m 1024 -smp "${VM_SMP:-2}" \
		-kernel "$root/boot/vmlinuz-$krel" -initrd "$WORK/$suite.initrd" \
		-append "console=ttyS0 loglevel=5 panic=-1 rdinit=/init ${VM_APPEND:-} $([ "${VM_PROBE_TESTS:-}" = 0 ] && echo ftt.probe=0)" \
		-display none -no-reboot -nic none \
		-monitor "$([ "${VM_MONITOR:-}" = 1 ] && echo "unix:$WORK/$suite.mon,server,nowait" || echo none)" \
		-serial file:"$WORK/$suite.console" -serial file:"$WORK/$suite.results" \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
		-drive file="$WORK/$suite.disk",if=virtio,format=raw \
		-drive file="$WORK/$suite.fs",if=virtio,format=raw,discard=unmap &
	local qpid=$!
	watch_stall "$suite" $qpid &
	local wpid=$!
	wait $qpid
	echo $? > "$WORK/$suite.qemu-rc"
	kill $wpid 2> /dev/null
	wait $wpid 2> /dev/null
}

# run_kernel SUITE: fetch, boot, read the results; everything it prints goes to
# $WORK/SUITE.log (shown whole when the kernel is done, so that two guests at once do not
# interleave), its summary line to $WORK/SUITE.summary, failed kernels to $WORK/SUITE.failed.
run_kernel() {
	local suite=$1 start secs res krel p f s runs expect
	echo "=== $suite"
	if ! fetch "$suite" > "$WORK/$suite.fetch" 2>&1; then
		cat "$WORK/$suite.fetch"
		echo "$suite: FAILED (could not fetch the kernel)" > "$WORK/$suite.summary"
		touch "$WORK/$suite.failed"
		return
	fi
	start=$(date +%s)
	boot "$suite"
	secs=$(($(date +%s) - start))
	res=$WORK/$suite.results
	tr -d '\r' < "$res" > "$res.txt" 2>/dev/null
	krel=$(ls "$(root "$suite")/lib/modules")
	if ! grep -q '^FTT-END' "$res.txt"; then
		# As a failed check with its reasons ("# " lines), which CI's summary keeps: the
		# suite it was in, the last results and the console's end (a panic, the OOM killer).
		echo "not ok - the guest did not report an end (qemu exit $(cat "$WORK/$suite.qemu-rc"), ${secs}s,$(cat "$WORK/$suite.stalled" 2> /dev/null | sed 's/^/ /;s/$/,/') in $(grep '^# live tests' "$res.txt" | tail -n 1 | sed 's/^# live tests[^:]*: //'))"
		tail -n 8 "$res.txt" | sed 's/^/# result: /'
		# The console from the kernel's first complaint (a stall repeats itself to the end),
		# else its end.
		awk '/BUG|Oops|panic|stall|WARNING|Call Trace|blocked for more than/ { n = 30 }
			n > 0 { print; n-- }' "$WORK/$suite.console" | head -n 30 > "$WORK/$suite.complaint"
		[ -s "$WORK/$suite.complaint" ] || tail -n 30 "$WORK/$suite.console" > "$WORK/$suite.complaint"
		sed 's/^/# console: /' "$WORK/$suite.complaint"
		echo "$krel ($suite): FAILED (no end reported)" > "$WORK/$suite.summary"
		touch "$WORK/$suite.failed"
		return
	fi
	if [ -n "${VM_DEBUG_SCRIPT:-}" ]; then
		echo "--- output of $VM_DEBUG_SCRIPT:"; grep -v '^FTT-' "$res.txt"
		echo "$krel ($suite): ran $VM_DEBUG_SCRIPT, ${secs}s" > "$WORK/$suite.summary"
		return
	fi
	# Each failure with the "# " lines that say why right after it (CI's log shows these),
	# then the suites' other notes.
	awk '/^(not ok|skip) / { print; n = /^not ok/ ? 30 : 0; next }
		n > 0 && /^#/ && !/^# time / { n--; print; next } { n = 0 }' "$res.txt"
	grep -E '^#' "$res.txt" | grep -v '^# time ' | head -40
	# Each suite's time in the guest, longest first (CI's budget: README, Tests).
	grep '^# time ' "$res.txt" | sort -k4,4nr | awk '{ printf "%s%s %s s", n++ ? ", " : "time: ", $3, $4 } END { if (n) print "" }'
	p=0 f=0 s=0
	while read -r a _ b _ c _; do p=$((p + a)) f=$((f + b)) s=$((s + c)); done \
		< <(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$res.txt")
	runs=$(grep -cE '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$res.txt")
	expect=$(grep -m1 '^FTT-RUNS' "$res.txt" | cut -d' ' -f2)
	if [ "$runs" != "$expect" ]; then
		f=$((f + 1)); echo "not ok - only $runs of ${expect:-?} test runs reported a summary"
	fi
	[ $f -gt 0 ] && touch "$WORK/$suite.failed"
	echo "$krel ($suite): $p passed, $f failed, $s skipped, ${secs}s" > "$WORK/$suite.summary"
	grep '^FEATURE ' "$res.txt" | sed "s/^FEATURE /$krel /" > "$WORK/$suite.features"
}

# VM_JOBS guests at once (default 2: one per core of the development machine; each guest is
# one single-threaded TCG process). Fetches share the cache: done one after another first.
# While the file VM_HOLD names exists, one guest at a time: CI runs the sanitizer suites on
# the other core meanwhile, and removes the file when they are done.
JOBS=${VM_JOBS:-2}
for suite in $KERNELS; do
	is_image "$suite" || fetch "$suite" > "$WORK/$suite.fetch" 2>&1 || true
done
# The order the guests start in. CI has one guest at a time for its first half hour or so
# (make check and its sanitizer run) and two after: the two longest (6.12 17 min, 4.19 16
# min, the one-guest suites) fill the first part, and the other five, 6.6 to 11.2 min each,
# are queued so that the two lanes they make end together (4.18, 4.9 and 4.14 on one, 6.1
# and 5.10 on the other: 22 min each in the last run's times). The summaries and the
# features table keep KERNELS' order.
FIRST=${VM_FIRST-bookworm-backports 4.19.222 4.18.0-147.5.1.el8_1.x86_64 bookworm 4.9.337 bullseye 4.14.325}
START=
for suite in $FIRST; do
	case " $KERNELS " in *" $suite "*) START="$START $suite" ;; esac
done
for suite in $KERNELS; do
	case " $START " in *" $suite "*) ;; *) START="$START $suite" ;; esac
done
pids=()
running() { # how many guests run now
	local n=0 p
	for p in "${pids[@]}"; do kill -0 "$p" 2> /dev/null && n=$((n + 1)); done
	echo $n
}
for suite in $START; do
	while :; do
		limit=$JOBS
		[ -n "${VM_HOLD:-}" ] && [ -e "$VM_HOLD" ] && limit=1
		[ "$(running)" -lt "$limit" ] && break
		sleep 2
	done
	( run_kernel "$suite" > "$WORK/$suite.log" 2>&1; cat "$WORK/$suite.log" ) &
	pids+=($!)
done
wait
total_fail=0
summary=()
for suite in $KERNELS; do
	summary+=("$(cat "$WORK/$suite.summary" 2> /dev/null || echo "$suite: FAILED (no summary)")")
	[ -e "$WORK/$suite.failed" ] || [ ! -e "$WORK/$suite.summary" ] && total_fail=$((total_fail + 1))
	cat "$WORK/$suite.features" >> "$WORK/features" 2> /dev/null
done

echo
echo "=== kernels"
printf '%s\n' "${summary[@]}"
if [ -s "$WORK/features" ]; then
	echo
	echo "=== features (yes: present)"
	awk '{ kern = $1; val = $2; name = $0; sub(/^[^ ]+ [^ ]+ /, "", name)
		v[kern, name] = val
		if (!(name in seen)) { seen[name]; order[n++] = name }
		if (!(kern in kseen)) { kseen[kern]; korder[m++] = kern } }
		END {
			printf "| %-36s |", "feature"; for (j = 0; j < m; j++) printf " %s |", korder[j]; print ""
			printf "| %-36s |", "---"; for (j = 0; j < m; j++) printf " --- |"; print ""
			for (i = 0; i < n; i++) { printf "| %-36s |", order[i]
				for (j = 0; j < m; j++) printf " %s |", v[korder[j], order[i]]; print "" }
		}' "$WORK/features"
fi
echo
[ $total_fail -eq 0 ] && echo "vmcheck: all kernels passed" || echo "vmcheck: $total_fail kernel(s) failed"
[ $total_fail -eq 0 ]
