#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of oomkill: a process named with a space, a newline and a byte that is not
# UTF-8 is OOM-killed in a memory cgroup of a 16 MB limit. oomkill must show it exactly
# once, named exactly, with the cgroup the kernel names and, where the kprobe runs, the
# limit in pages; the kernel's own counts agree (the group's oom_kill, its log line), and
# exitsnoop sees the victim killed by SIGKILL.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
. tests/live/memcg.sh
require_live
save_state

need_program ST snoop_target "${SNOOP_TARGET:-}"

if [ ! -d "$T/events/oom/mark_victim" ] && [ ! -e "$T/kprobe_events" ]; then
	"$BIN/oomkill" -d 0.1 > "$TMP/out" 2> "$TMP/err"
	check "oomkill without oom:mark_victim or kprobes: exit 1 naming both" sh -c \
		"[ $? -eq 1 ] && grep -q 'Linux 4.13' '$TMP/err' && grep -q CONFIG_KPROBE_EVENTS '$TMP/err'"
	summary; exit $?
fi

# Usage errors: one line, exit 2, nothing changed.
for args in "-Z|" "1 2|unexpected argument" "-d 0|duration" "-p 1|unknown option"; do
	"$BIN/oomkill" ${args%|*} > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "oomkill ${args%|*}: exit 2, one line '${args#*|}'" sh -c \
		"[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q -- '${args#*|}' '$TMP/err'"
done
check "oomkill's bad input changed nothing in tracefs" same_state

NAME=$(printf 'oom v\nic\377')
if ! memcg_make "ftt-oom-$$" 16M; then
	skip "oomkill's OOM kill in a memory cgroup: $MEMCG_WHY"
else
	rm -f "$TMP/x.out" "$TMP/x.err"
	"$BIN/exitsnoop" -j > "$TMP/x.out" 2> "$TMP/x.err" &
	XPID=$!
	start_bg "$BIN/oomkill" -j
	wait_ready $XPID "$TMP/x.err"
	memcg_start "$ST" oom "$NAME" 64 > "$TMP/victim.out"
	VPID=$MEMCG_PID
	wait $VPID
	VRC=$?
	stop_bg
	kill -INT $XPID
	wait_exit $XPID 10
	cp "$TMP/out" "$TMP/oom.json"
	check "oomkill: the victim was killed (exit 137), not left to finish" \
		sh -c "[ $VRC -eq 137 ] && ! grep -q survived '$TMP/victim.out'"
	check "oomkill -j: valid JSON, one object per kill" "$JSONCHECK" "$TMP/oom.json" pid comm trigger_pid memcg loadavg
	check "oomkill: exactly one kill, of the victim's PID, named exactly, triggered by itself" sh -c "
		[ \$(wc -l < '$TMP/oom.json') -eq 1 ] &&
		grep -q '\"trigger_pid\":$VPID,\"trigger_comm\":\"oom v\\\\nic\\\\udcff\",\"pid\":$VPID,\"comm\":\"oom v\\\\nic\\\\udcff\"' '$TMP/oom.json'"
	kills=$(memcg_oom_kills)
	if [ -n "$kills" ]; then
		check "oomkill: as many kills as the cgroup counted ($kills)" [ "$kills" -eq 1 ]
	fi
	# The kernel's report names the cgroup from Linux 4.19; before, none is shown. (The
	# victim's name splits the log's lines where it has a newline.)
	if dmesg 2> /dev/null | grep -q "oom-kill:.*oom_memcg=$MEMCG_PATH,"; then
		check "oomkill: the memory cgroup as the kernel's report names it ($MEMCG_PATH)" \
			grep -q "\"memcg\":\"$MEMCG_PATH\"" "$TMP/oom.json"
	else
		check "oomkill: no memory cgroup where the kernel's log names none" \
			grep -q '"memcg":null' "$TMP/oom.json"
	fi
	# The kprobe's pages: the cgroup's limit (16 MB, no swap: 4096 pages).
	if grep -q 'kprobe on oom_kill_process' "$TMP/err"; then
		check "oomkill: PAGES is the cgroup's limit in pages (4096)" grep -q '"pages":4096,' "$TMP/oom.json"
	else
		check "oomkill: no kprobes: PAGES unknown (null), and said" sh -c \
			"grep -q '\"pages\":null,' '$TMP/oom.json' && grep -q CONFIG_KPROBE_EVENTS '$TMP/err'"
	fi
	# The victim's memory from mark_victim where it has the fields: the kernel's log line
	# "Killed process PID (...) total-vm:NkB, anon-rss:NkB, file-rss:NkB, shmem-rss:NkB".
	line=$(dmesg 2> /dev/null | awk -v p="Killed process $VPID " 'l { print l $0; exit }
		index($0, p) { l = $0; if (/total-vm/) { print; exit } }')
	if grep -q anon_rss "$T/events/oom/mark_victim/format" 2> /dev/null && [ -n "$line" ]; then
		want=$(echo "$line" | sed 's/.*total-vm:\([0-9]*\)kB, anon-rss:\([0-9]*\)kB, file-rss:\([0-9]*\)kB, shmem-rss:\([0-9]*\)kB.*/"total_vm_kb":\1,"anon_rss_kb":\2,"file_rss_kb":\3,"shmem_rss_kb":\4,/')
		check "oomkill: the victim's memory as the kernel's log says it ($want)" grep -q "$want" "$TMP/oom.json"
	else
		check "oomkill: no memory fields where mark_victim has none" grep -q '"rss_kb":null' "$TMP/oom.json"
	fi
	check "exitsnoop: the victim ended by SIGKILL" \
		grep -q "\"pid\":$VPID,.*\"signal\":9,\"signal_name\":\"SIGKILL\"" "$TMP/x.out"

	# Text: one line, the name escaped, TIME first.
	start_bg "$BIN/oomkill"
	memcg_run "$ST" oom "$NAME" 64 > /dev/null
	stop_bg
	check "oomkill (text): the header and one line with the names escaped" sh -c "
		[ \$(wc -l < '$TMP/out') -eq 2 ] &&
		head -1 '$TMP/out' | grep -Eq '^TIME +TPID +TCOMM +PID +COMM +PAGES +RSS_KB +MEMCG +LOADAVG\$' &&
		grep -Eq '^[0-9]{2}:[0-9]{2}:[0-9]{2} +[0-9]+ oom\\\\x20v\\\\x0aic\\\\xff +[0-9]+ oom\\\\x20v\\\\x0aic\\\\xff .* [0-9.]+ [0-9.]+ [0-9.]+ [0-9]+/[0-9]+ [0-9]+\$' '$TMP/out'"
fi
memcg_remove

stop_cases oomkill "$BIN/oomkill"
check "at the end: tracefs as it was" same_state
summary
