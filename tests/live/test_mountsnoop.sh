#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of mountsnoop: mount(8) mounts a tmpfs whose source has a space, a newline and a
# byte that is not UTF-8, with options, then unmounts it twice (the second fails with
# EINVAL); the test program mounts one with the new mount API (fsopen, fsconfig, fsmount,
# move_mount). mountsnoop must show each call exactly, through every mechanism the kernel
# offers.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

need_program ST snoop_target "${SNOOP_TARGET:-}"

if [ ! -d "$T/events/syscalls/sys_exit_mount" ]; then
	"$BIN/mountsnoop" -d 0.1 > "$TMP/out" 2> "$TMP/err"
	check "mountsnoop without syscall tracepoints: exit 1 naming CONFIG_FTRACE_SYSCALLS" sh -c \
		"[ $? -eq 1 ] && grep -q CONFIG_FTRACE_SYSCALLS '$TMP/err'"
	summary; exit $?
fi

for args in "--via bogus|invalid --via" "-Z|" "1 2|unexpected argument" "-d 0|duration" \
	"-p 1 -L 1|exclude each other"; do
	"$BIN/mountsnoop" ${args%|*} > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "mountsnoop ${args%|*}: exit 2, one line '${args#*|}'" sh -c \
		"[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q -- '${args#*|}' '$TMP/err'"
done
check "mountsnoop's bad input changed nothing in tracefs" same_state

M=$TMP/mnt
mkdir "$M"
SRC=$(printf 'ftt fs\n\377')

# mount(8), umount(8): a tmpfs and its unmounts, run by mountsnoop (--exec: no wait for it to
# start or to read its last events).
mounts() {
	"$BIN/mountsnoop" "$@" --exec /bin/sh -c \
		'mount -t tmpfs -o size=1m,mode=0700 "$1" "$2"; umount "$2"; umount "$2" 2> /dev/null; exit 0' \
		sh "$SRC" "$M" > "$TMP/out" 2> "$TMP/err"
}

mounts -j
grep '^{' "$TMP/out" > "$TMP/json"
check "mountsnoop -j: valid JSON" "$JSONCHECK" "$TMP/json" comm pid call ret errno source target fstype data flags text
check "mountsnoop -j: the tmpfs mount exactly (source, target, type, options), then its unmount, then the failed one" sh -c "
	grep -q '\"call\":\"mount\",\"ret\":0,\"errno\":0,\"source\":\"ftt fs\\\\n\\\\udcff\",\"target\":\"$M\",\"fstype\":\"tmpfs\",\"key\":null,\"data\":\"size=1m,mode=0700\",' '$TMP/json' &&
	[ \$(grep -c '\"call\":\"umount\",\"ret\":0,\"errno\":0,\"source\":null,\"target\":\"$M\",' '$TMP/json') -eq 1 ] &&
	[ \$(grep -c '\"call\":\"umount\",\"ret\":-1,\"errno\":22,\"source\":null,\"target\":\"$M\",' '$TMP/json') -eq 1 ]"

mounts
check "mountsnoop (text): the calls as they were made, the source's bytes escaped inside its quotes" sh -c "
	head -1 '$TMP/out' | grep -Eq '^COMM +PID +RET +ERR +CALL\$' &&
	grep -Fq ' 0   0 mount(\"ftt fs\\x0a\\xff\", \"$M\", \"tmpfs\", ' '$TMP/out' &&
	grep -Fq ', \"size=1m,mode=0700\")' '$TMP/out' &&
	grep -Fq ' 0   0 umount(\"$M\", 0)' '$TMP/out' && grep -Fq ' -1  22 umount(\"$M\", 0)' '$TMP/out'"

mounts -x
check "mountsnoop -x: only the failed unmount" sh -c "
	[ \$(wc -l < '$TMP/out') -eq 2 ] && grep -Fq ' -1  22 umount(\"$M\", 0)' '$TMP/out'"

# The new mount API (Linux 5.2), through each mechanism: the calls and their results in order.
if [ ! -d "$T/events/syscalls/sys_enter_fsopen" ]; then
	skip "mountsnoop of the new mount API: no fsopen(2) in this kernel (Linux 5.2)"
else
	for via in kprobe eprobe uprobe; do
		# A static program is not seen by uprobes: only whether the rung is here.
		if [ $via = uprobe ] && [ -n "${SNOOP_TARGET:-}${UPROBE_TARGET:-}" ]; then
			"$BIN/mountsnoop" --via $via -d 0.1 > "$TMP/out" 2> "$TMP/err"
		else
			"$BIN/mountsnoop" --via $via --exec "$ST" newmount "$M" > "$TMP/out" 2> "$TMP/err"
		fi
		rc=$?
		if [ $rc -ne 0 ]; then
			check "mountsnoop --via $via where it cannot work: exit 1, one line saying why" \
				sh -c "[ $rc -eq 1 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q '^mountsnoop: --via $via: ' '$TMP/err'"
			skip "mountsnoop via $via: $(sed 's/^mountsnoop: //' "$TMP/err")"
			continue
		fi
		if [ $via = uprobe ] && [ -n "${SNOOP_TARGET:-}${UPROBE_TARGET:-}" ]; then
			skip "mountsnoop via uprobe: the test program is static (no C library to probe)"
			continue
		fi
		if [ $via = eprobe ] && ! grep -q '"tmpfs"' "$TMP/out"; then
			skip "mountsnoop via eprobe: this kernel's event probes cannot read user strings"
			continue
		fi
		grep '^-\{0,1\}[0-9]*$' "$TMP/out" > "$TMP/target.out"
		FS=$(sed -n 1p "$TMP/target.out") MNT=$(sed -n 4p "$TMP/target.out")
		grep -v '^-\{0,1\}[0-9]*$' "$TMP/out" | sed 1d | sed 's/^[^ ]* *[0-9]* *//' > "$TMP/got"
		cat > "$TMP/want" << EOF
$FS   0 fsopen("tmpfs", 0)
0   0 fsconfig($FS, FSCONFIG_SET_STRING, "size", "1m", 0)
0   0 fsconfig($FS, FSCONFIG_CMD_CREATE, NULL, NULL, 0)
$MNT   0 fsmount($FS, 0, 0)
0   0 move_mount($MNT, "", AT_FDCWD, "$M", MOVE_MOUNT_F_EMPTY_PATH)
0   0 umount("$M", 0)
EOF
		check "mountsnoop via $via: the new mount API's calls, exact" cmp -s "$TMP/want" "$TMP/got" ||
			{ echo "# want:"; sed 's/^/#   /' "$TMP/want"; echo "# got:"; sed 's/^/#   /' "$TMP/got"; }
	done
fi
umount "$M" 2> /dev/null

stop_cases mountsnoop "$BIN/mountsnoop"
check "at the end: tracefs as it was" same_state
summary
