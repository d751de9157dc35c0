#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of capable: the test program opens a raw socket as root (CAP_NET_RAW allowed),
# becomes user 65534 (CAP_SETUID allowed) and tries again (CAP_NET_RAW denied): capable must
# show exactly those checks of the program, in order, with their verdicts, audited where the
# kernel says so.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

need_program ST snoop_target "${SNOOP_TARGET:-}"

if [ ! -e "$T/kprobe_events" ] && [ ! -d "$T/events/capability/cap_capable" ]; then
	"$BIN/capable" -d 0.1 > "$TMP/out" 2> "$TMP/err"
	check "capable without kprobes or capability:cap_capable: exit 1 naming both" sh -c \
		"[ $? -eq 1 ] && grep -q CONFIG_KPROBE_EVENTS '$TMP/err' && grep -q 'Linux 6.14' '$TMP/err'"
	summary; exit $?
fi

for args in "-Z|" "1 2|unexpected argument" "-d 0|duration" "-p 1 -L 1|exclude each other"; do
	"$BIN/capable" ${args%|*} > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "capable ${args%|*}: exit 2, one line '${args#*|}'" sh -c \
		"[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q -- '${args#*|}' '$TMP/err'"
done
check "capable's bad input changed nothing in tracefs" same_state

# snoop ARGS...: capable ARGS on the program; its lines (text) without CAP_SYS_ADMIN, which
# the C library's start asks for (brk and mmap's overcommit check, never audited) in
# $TMP/checks, the program's "FD1 FD2 ERRNO2" in $TMP/target.out.
snoop() {
	"$BIN/capable" "$@" --exec "$ST" raw 65534 > "$TMP/out" 2> "$TMP/err"
	RC=$?
	grep -v CAP_SYS_ADMIN "$TMP/out" | grep -v '^[0-9]* -\{0,1\}[0-9]* [0-9]*$' > "$TMP/checks"
	grep '^[0-9]* -\{0,1\}[0-9]* [0-9]*$' "$TMP/out" > "$TMP/target.out"
}

# Audited: 1 with kprobes; the tracepoint does not say (-).
if [ -e "$T/kprobe_events" ]; then
	A=1 AJ=1
else
	A=- AJ=null
fi
snoop
check "capable: the program's checks in order, CAP_NET_RAW allowed, CAP_SETUID allowed, CAP_NET_RAW denied" sh -c "
	[ $RC -eq 0 ] && [ \$(wc -l < '$TMP/checks') -eq 4 ] &&
	head -1 '$TMP/checks' | grep -Eq '^ +PID +COMM +CAP +NAME +AUDIT +VERDICT\$' &&
	grep -q '^[0-9]* -1 1\$' '$TMP/target.out' &&
	sed 1d '$TMP/checks' | awk '{ print \$2, \$3, \$4, \$5, \$6 }' | tr '\\n' ';' |
		grep -qx 'snoop_target 13 CAP_NET_RAW $A allow;snoop_target 7 CAP_SETUID $A allow;snoop_target 13 CAP_NET_RAW $A deny;'"
snoop -x
check "capable -x: only the denied check" sh -c "
	sed 1d '$TMP/checks' | awk '{ print \$3, \$6 }' | tr '\\n' ';' | grep -qx '13 deny;'"
snoop -j
check "capable -j: valid JSON" "$JSONCHECK" "$TMP/checks" pid comm cap name audit verdict ret
check "capable -j: the denied check, exact" grep -q \
	"\"comm\":\"snoop_target\",\"cap\":13,\"name\":\"CAP_NET_RAW\",\"audit\":$AJ,\"insetid\":[0-9a-z]*,\"ret\":-1,\"verdict\":\"deny\"}" "$TMP/checks"

# -s: the raw socket's check comes from inet_create (and the kernel's frames above it).
snoop -s
check "capable -s: each check with its kernel stack, the raw socket's through inet_create" sh -c "
	grep -A12 'CAP_NET_RAW' '$TMP/out' | grep -q '^ => .*inet_create'"
snoop -U
ucheck "capable -U: each check with its user stack" grep -q '<user stack>' "$TMP/out"

if [ -e "$T/kprobe_events" ]; then
	snoop --audit
	check "capable --audit: the audited checks only (not the C library's CAP_SYS_ADMIN)" sh -c "
		! grep -q CAP_SYS_ADMIN '$TMP/out' && [ \$(grep -c CAP_NET_RAW '$TMP/out') -eq 2 ]"
else
	snoop --audit
	check "capable --audit without kprobes: exit 1, said" sh -c \
		"[ $RC -eq 1 ] && grep -q 'needs kprobes (CONFIG_KPROBE_EVENTS)' '$TMP/err'"
fi

stop_cases capable "$BIN/capable"
check "at the end: tracefs as it was" same_state
summary
