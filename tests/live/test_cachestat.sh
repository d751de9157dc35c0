#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of cachestat: 48 MiB written to a file (12288 pages dirtied), read cold after
# the caches are dropped (12288 misses) and read again (12288 hits), read again while another
# 48 MiB are written (12288 hits, 12288 dirtied); -v, text and JSON,
# interval and count, bad input and every way of stopping. The counts are of the whole
# system: the test's own commands (starting dd, the greps and sleeps that wait for the tool)
# look up pages too, 1,700 to 3,200 in the guests as measured by a run of the same commands
# on no file, and more in a slow guest, where the waits for the tool poll longer (the 4.19
# guest of a loaded CI failed the cold read's check once, its numbers cut from the log, now
# printed on failure): the hits may be up to 8192 over, still short of
# the 12288 that a read counted on the wrong side would add.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

if [ ! -e "$T/kprobe_events" ]; then
	"$BIN/cachestat" 1 1 > "$TMP/out" 2> "$TMP/err"
	check "cachestat without kprobe_events: exit 1, one line naming CONFIG_KPROBE_EVENTS" sh -c \
		"[ $? -eq 1 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q CONFIG_KPROBE_EVENTS '$TMP/err' &&
		 [ ! -s '$TMP/out' ]"
	skip "cachestat's counts: no kprobe_events (CONFIG_KPROBE_EVENTS); run make vmcheck"
else
	"$BIN/cachestat" -v > "$TMP/out" 2> "$TMP/err"
	check "cachestat -v: exit 0, the three counts and where each is taken" sh -c "
		[ $? -eq 0 ] && [ \$(wc -l < '$TMP/out') -eq 3 ] &&
		grep -Eq '^accessed +(folio_mark_accessed|mark_page_accessed) \(kprobe hits' '$TMP/out' &&
		grep -Eq '^added +(filemap_add_folio|add_to_page_cache_lru|mm_filemap_add_to_page_cache) ' '$TMP/out'" ||
		cat "$TMP/out" "$TMP/err"
	cat "$TMP/out" | sed 's/^/# /'
	check "after cachestat -v: tracefs as before" same_state

	F=${LIVE_FILE_DIR:-$TMP}/ftt-cachestat.$$
	# phase NAME CMD: cachestat -j 0.5 during CMD; the sums of its lines in $TMP/sums:
	# "hits misses dirties lines".
	phase() {
		start_bg "$BIN/cachestat" -j 0.5 || return 1
		eval "$2"
		stop_bg
		"$JSONCHECK" "$TMP/out" time hits misses dirties ratio buffers_mb cached_mb accessed \
			added dirtied || { notok "cachestat -j during $1: valid JSON"; return 1; }
		sed 's/.*"hits":\([0-9]*\),"misses":\([0-9]*\),"dirties":\([0-9]*\),.*/\1 \2 \3/' \
			"$TMP/out" | awk '{h += $1; m += $2; d += $3} END {print h, m, d, NR}' > "$TMP/sums"
		echo "# $1: hits misses dirties lines: $(cat "$TMP/sums")"
	}
		if phase "a 48 MiB write" "dd if=/dev/zero of='$F' bs=1M count=48 2> /dev/null"; then
		read -r h m d n < "$TMP/sums"
		# (A write looks up no page. Where pages dirtied are events and pages added a
		# kprobe's count, 6.12, an interval once took the count with events of it still in
		# the buffer: 88 to 141 misses, none of them real.)
		check "cachestat during a 48 MiB write: 12288 pages dirtied, no misses of its own" sh -c \
			"[ $RC -eq 0 ] && [ $d -ge 12288 ] && [ $d -le 12352 ] && [ $m -le 64 ]" ||
			{ echo "# exit $RC: $h hits, $m misses, $d dirtied"; sed 's/^/# /' "$TMP/out" "$TMP/err"; }
	fi
	sync
	echo 3 > /proc/sys/vm/drop_caches
	if phase "the commands alone" "dd if=/dev/null of=/dev/null 2> /dev/null"; then
		read -r h m d n < "$TMP/sums"
		check "cachestat during no file I/O: no misses, no dirtied pages" sh -c \
			"[ $RC -eq 0 ] && [ $m -le 64 ] && [ $d -le 64 ]"
	fi
	if phase "a cold read" "dd if='$F' of=/dev/null bs=1M 2> /dev/null"; then
		read -r h m d n < "$TMP/sums"
		check "cachestat during a cold read of 48 MiB: 12288 misses, fewer hits than that" sh -c \
			"[ $RC -eq 0 ] && [ $m -ge 12288 ] && [ $m -le 12352 ] && [ $h -le 8192 ] && [ $d -le 64 ]" ||
			{ echo "# exit $RC: $h hits, $m misses, $d dirtied"; sed 's/^/# /' "$TMP/out" "$TMP/err"; }
	fi
	if phase "a warm read" "dd if='$F' of=/dev/null bs=1M 2> /dev/null"; then
		read -r h m d n < "$TMP/sums"
		check "cachestat during a warm read of 48 MiB: 12288 hits and the commands', no misses" sh -c \
			"[ $RC -eq 0 ] && [ $h -ge 12288 ] && [ $h -le 20480 ] && [ $m -le 64 ]" ||
			{ echo "# exit $RC: $h hits, $m misses, $d dirtied"; sed 's/^/# /' "$TMP/out" "$TMP/err"; }
	fi
	# Writes look up no page (4.9 to 6.12): they take no hits away. perf-tools' and bcc's
	# formula subtracted buffers dirtied, four a page on the guests' 1 KiB-block ext4:
	# HITS 0 in every interval with a write.
	if phase "a warm read during a 48 MiB write" \
		"dd if=/dev/zero of='$F.w' bs=1M count=48 2> /dev/null & dd if='$F' of=/dev/null bs=1M 2> /dev/null; wait \$!"; then
		read -r h m d n < "$TMP/sums"
		# (No upper bound on hits here: the write's buffers, and the journal's, are marked
		# accessed on some kernels: 26778 hits on 5.10's 1 KiB-block ext4.)
		check "cachestat during a warm read and a write: at least the read's 12288 hits, 12288 dirtied, no misses" sh -c \
			"[ $RC -eq 0 ] && [ $h -ge 12288 ] && [ $d -ge 12288 ] && [ $d -le 12352 ] && [ $m -le 64 ]" ||
			{ echo "# exit $RC: $h hits, $m misses, $d dirtied"; sed 's/^/# /' "$TMP/out"; }
	fi
	rm -f "$F" "$F.w"

	"$BIN/cachestat" -T 0.3 3 > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "cachestat -T 0.3 3: exit 0, a header and 3 timed lines" sh -c "
		[ $rc -eq 0 ] && [ \$(wc -l < '$TMP/out') -eq 4 ] &&
		head -1 '$TMP/out' | grep -Eq '^TIME +HITS +MISSES +DIRTIES +HITRATIO +BUFFERS_MB +CACHED_MB\$' &&
		[ \$(grep -Ec '^[0-9]{2}:[0-9]{2}:[0-9]{2} +[0-9]+ +[0-9]+ +[0-9]+ +([0-9.]+%|-) +[0-9]+ +[0-9]+\$' '$TMP/out') -eq 3 ]" ||
		cat "$TMP/out" "$TMP/err"
	stop_cases cachestat "$BIN/cachestat" 0.2
fi
check "after the counts: tracefs as before" same_state

for args in "0|interval" "1 0|count" "x|interval" "1 2 3|unexpected argument" "-p 1|"; do
	eval "\"\$BIN/cachestat\" ${args%|*}" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "cachestat ${args%|*}: exit 2, one line, '${args#*|}'" sh -c \
		"[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -qF '${args#*|}' '$TMP/err'"
done
check "at the end: tracefs as it was" same_state
summary
