#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make fuzz: each target in $F runs for FUZZ_SECONDS from its seeds (tests/fuzz/corpus/TARGET)
# and what it found before ($F/corpus/TARGET); a crash, a hang (over 5 s for one input), a
# sanitizer report or a broken property stops it, and the input is kept as $F/crash-TARGET-*.
# One line per target: executions, corpus size, coverage; exit 1 if any target failed.
set -u
F=${F:?} SECS=${FUZZ_SECONDS:-30}
export LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0
fail=0
for t in "$@"; do
	mkdir -p "$F/corpus/$t"
	seeds=tests/fuzz/corpus/$t
	[ -d "$seeds" ] || seeds=
	# ELF files: programs of this machine, whole, cut short and with bytes flipped.
	if [ $t = fuzz_elf ]; then
		seeds=$F/seeds/$t
		mkdir -p "$seeds"
		for p in /bin/true /usr/bin/env; do
			b=$(basename $p)
			cp $p "$seeds/$b"
			head -c 1024 $p > "$seeds/$b.1k"
			head -c 8192 $p > "$seeds/$b.8k"
			cp $p "$seeds/$b.flip"
			printf '\377\377\377\377' | dd of="$seeds/$b.flip" bs=1 seek=40 conv=notrunc status=none
		done
	fi
	log=$F/$t.log
	"$F/$t" -max_total_time="$SECS" -timeout=5 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$F/crash-$t-" "$F/corpus/$t" $seeds > "$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
	corp=$(ls "$F/corpus/$t" | wc -l)
	if [ $rc -eq 0 ]; then
		echo "fuzz $t: ok, ${runs:-?} runs in ${SECS}s, $cov, corpus $corp"
	else
		fail=1
		echo "fuzz $t: FAILED (exit $rc); the input: $(ls -t "$F"/crash-$t-* 2>/dev/null | head -1)"
		# The report, else (a failure none of these names: a sanitizer's own fatal error,
		# a flag refused) the log's last lines, so that a CI log says what happened.
		grep -E -A25 '^(==[0-9]+==ERROR|.*runtime error|fuzz: |ALARM|==[0-9]+== ERROR)' "$log" | head -12 |
			grep . || grep -v -E '^("|#)' "$log" | tail -12
	fi
done
exit $fail
