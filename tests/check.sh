#!/usr/bin/env bash
# make check: unit tests (cmocka), man pages, live tests; one summary line at the end.
set -u
cd "$(dirname "$0")/.."
B=${B:-build}
pass=0 fail=0 skip=0
failed=()
for t in ${UNIT:-}; do
	out=$("$B/tests/$t" 2>&1)
	rc=$?
	p=$(grep -c '^\[       OK \]' <<<"$out")
	s=$(grep -c '^\[  SKIPPED \]' <<<"$out")
	pass=$((pass + p)) skip=$((skip + s))
	if [ $rc -ne 0 ] || grep -q '^\[  FAILED  \]' <<<"$out"; then
		f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test(s), listed below:/\1/p' <<<"$out")
		[ -n "$f" ] && [ "$f" -gt 0 ] || f=1
		fail=$((fail + f)) failed+=("$t")
		echo "$out"
	fi
	echo "unit $t: $p passed, $rc failed, $s skipped"
done
echo
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
