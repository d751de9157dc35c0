#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of drsnoop: cat reads a 32 MB file that is in no cache from a memory cgroup of an
# 8 MB limit, so it must reclaim at least 24 MB of page cache itself. drsnoop must show those
# reclaims as cat's, of the memory cgroup, and their pages must add up to the cgroup's own
# count of pages reclaimed directly (cgroup v2's pgsteal_direct) or, where the cgroup has no
# such count (v1), to at least the 6144 pages that had to go.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
. tests/live/memcg.sh
require_live
save_state

if [ ! -d "$T/events/vmscan/mm_vmscan_direct_reclaim_begin" ]; then
	"$BIN/drsnoop" -d 0.1 > "$TMP/out" 2> "$TMP/err"
	check "drsnoop without the vmscan tracepoints: exit 1 naming them" sh -c \
		"[ $? -eq 1 ] && grep -q 'vmscan:mm_vmscan_direct_reclaim_begin' '$TMP/err'"
	summary; exit $?
fi

for args in "-Z|" "1 2|unexpected argument" "-d 0|duration" "-m x|MS" "-p 0|PID"; do
	"$BIN/drsnoop" ${args%|*} > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "drsnoop ${args%|*}: exit 2, one line '${args#*|}'" sh -c \
		"[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q -- '${args#*|}' '$TMP/err'"
done
check "drsnoop's bad input changed nothing in tracefs" same_state

# A file in no cache: written around it (O_DIRECT), on a disk (not tmpfs, whose pages are
# not reclaimed without swap).
F=${LIVE_FILE_DIR:-/var/tmp}/ftt-drsnoop.$$
if ! dd if=/dev/zero of="$F" bs=1M count=32 oflag=direct 2> /dev/null; then
	skip "drsnoop's reclaim: cannot write $F with O_DIRECT"
elif ! memcg_make "ftt-dr-$$" 8M; then
	skip "drsnoop's reclaim in a memory cgroup: $MEMCG_WHY"
else
	before=$(memcg_stat pgsteal_direct)
	start_bg "$BIN/drsnoop" -j
	memcg_start cat "$F" > /dev/null
	CPID=$MEMCG_PID
	wait $CPID
	stop_bg
	after=$(memcg_stat pgsteal_direct)
	cp "$TMP/out" "$TMP/dr.json"
	check "drsnoop -j: valid JSON" "$JSONCHECK" "$TMP/dr.json" pid comm type lat_ms pages order gfp
	pages=$(awk -v p="\"pid\":$CPID," 'index($0, p) && /"type":"memcg"/ {
		sub(/.*"pages":/, ""); s += $0 + 0; n++ } END { print s + 0 }' "$TMP/dr.json")
	n=$(grep -c "\"pid\":$CPID," "$TMP/dr.json")
	check "drsnoop: cat's reclaims shown ($n), all of its memory cgroup, each with a latency" sh -c "
		[ $n -gt 0 ] && [ \$(grep \"\\\"pid\\\":$CPID,\" '$TMP/dr.json' | grep -c '\"comm\":\"cat\",\"pid\":$CPID,\"type\":\"memcg\",\"lat_ms\":[0-9]*\\.[0-9]\\{3\\},') -eq $n ]"
	if [ -n "$after" ]; then
		check "drsnoop: cat's pages reclaimed ($pages) are what the cgroup counted ($((after - before)))" \
			[ "$pages" -eq $((after - before)) ]
	else
		check "drsnoop: cat's pages reclaimed ($pages) are at least the 6144 that had to go" \
			[ "$pages" -ge 6144 ]
	fi

	# Text, -e: the allocation's order and flags.
	start_bg "$BIN/drsnoop" -e -t
	memcg_run cat "$F" > /dev/null
	stop_bg
	check "drsnoop -e -t (text): the header and cat's reclaims with ORDER and GFP" sh -c "
		head -1 '$TMP/out' | grep -Eq '^TIME\\(s\\) +COMM +PID +TYPE +LAT\\(ms\\) +PAGES +ORDER +GFP\$' &&
		grep -Eq '^[0-9]+\\.[0-9]{6} +cat +[0-9]+ memcg +[0-9]+\\.[0-9]{3} +[0-9]+ +[0-9]+ 0x[0-9a-f]+\$' '$TMP/out'"

	# --direct-only: a cgroup's reclaim is not direct reclaim of the machine.
	start_bg "$BIN/drsnoop" --direct-only -n cat
	memcg_run cat "$F" > /dev/null
	stop_bg
	check "drsnoop --direct-only: none of cat's cgroup reclaims" [ "$(wc -l < "$TMP/out")" -eq 1 ]
fi
memcg_remove
rm -f "$F"

stop_cases drsnoop "$BIN/drsnoop"
check "at the end: tracefs as it was" same_state
summary
