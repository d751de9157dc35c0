#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make check: unit tests (cmocka), man pages, live tests; one summary line at the end.
set -u
cd "$(dirname "$0")/.."
B=${B:-build}
pass=0 fail=0 skip=0
failed=()
for t in ${UNIT:-}; do
	t0=$SECONDS
	out=$("$B/tests/$t" 2>&1)
	rc=$?
	p=$(grep -c '^\[       OK \]' <<<"$out")
	# cmocka names a skipped test twice and sums them up once: take its sum.
	s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test(s), listed below:/\1/p' <<<"$out")
	s=${s:-0}
	pass=$((pass + p)) skip=$((skip + s))
	if [ $rc -ne 0 ] || grep -q '^\[  FAILED  \]' <<<"$out"; then
		f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test(s), listed below:/\1/p' <<<"$out")
		[ -n "$f" ] && [ "$f" -gt 0 ] || f=1
		fail=$((fail + f)) failed+=("$t")
		echo "$out"
	fi
	echo "unit $t: $p passed, $rc failed, $s skipped ($((SECONDS - t0)) s)"
done
# Every file of ours says its licence (SPDX), so a copied file keeps it.
# (Recorded fixtures are the kernel's data, fuzz seeds data, and the README's pictures and
# the benchmark reports the tools' output from a run, not ours to license: only the scripts.)
missing=$(git ls-files 2>/dev/null | grep -Ev '^(tests/fixtures/|tests/fuzz/corpus/|docs/pictures/|LICENSE$|README.md$|bench/REPORT.md$|bench/GUEST.md$|\.gitignore$|\.clang-format$|debian/changelog$|debian/copyright$|debian/source/format$)' |
	cat - <(git ls-files 'tests/fixtures/*.sh' 2>/dev/null) |
	while read -r f; do grep -q 'SPDX-License-Identifier:' "$f" || echo "$f"; done)
if [ -z "$missing" ]; then
	pass=$((pass + 1)); echo "licence: ok"
else
	fail=$((fail + 1)); echo "licence: FAILED, no SPDX line in:"; echo "$missing"
fi
# The code's style: .clang-format, as make format applies it.
if out=$(make -s format-check 2>&1); then
	pass=$((pass + 1)); echo "format: ok"
else
	fail=$((fail + 1)); echo "format: FAILED (make format applies .clang-format)"; echo "$out" | head -20
fi
# The modules of common/ are in layers, a folder each, lowest first (the Makefile's LAYERS:
# base kernel stream count, the driver tool.c at the root, join domain tracer pictures):
# every include of a module of common/ is written with its folder and points to the
# module's own layer or one before it, and no circle of #include joins modules (tsort).
layers=" ${LAYERS:-base kernel stream count . join domain tracer pictures} "
rank() { local pre=${layers%% "$1" *}; [ "$pre" = "$layers" ] && echo 99 || wc -w <<< "$pre"; }
bad= pairs=
for c in common/*.c common/*/*.c; do
	m=${c#common/}; m=${m%.c}
	dir=$(dirname "$m"); r=$(rank "$dir")
	for f in "$c" "common/$m.h"; do
		[ -f "$f" ] || continue
		while read -r d; do
			[ -f "common/$d.h" ] || { [ "${d#*/}" = "$d" ] && [ -f "$(dirname "$c")/$d.h" ] &&
				bad="$bad$f: #include \"$d.h\" without its folder"$'\n'; continue; }
			[ "$d" != "$m" ] && echo "$m $d" >> "$B/.pairs"
			dr=$(rank "$(dirname "$d")")
			[ "$dr" -le "$r" ] || bad="$bad$f: includes $d.h, a later layer than $dir"$'\n'
		done < <(grep -ho '^#include "[a-z0-9_/]*\.h"' "$f" | sed 's/#include "\(.*\)\.h"/\1/')
	done
done
pairs=$(cat "$B/.pairs" 2> /dev/null); rm -f "$B/.pairs"
if loop=$(tsort <<< "$pairs" 2>&1 > /dev/null) && [ -z "$loop" ] && [ -z "$bad" ]; then
	pass=$((pass + 1)); echo "includes: ok"
else
	fail=$((fail + 1)); echo "includes: FAILED, in common/:"; printf '%s' "$bad"; echo "$loop"
fi
# Every tool is run by a live suite: its own (test_<tool>.sh) or its family's, and every suite
# is a tool's or in CONTRIBUTING.md's table of suites (with the tools it tests).
tools=$(sed -n 's/^TOOLS *:= *//p' Makefile)
table=$(sed -n 's/^| \(`test_[a-z_]*\.sh`.*\) | \(.*\) |$/\1|\2/p' CONTRIBUTING.md)
bad=""
for t in $tools; do
	own=tests/live/test_${t//-/_}.sh
	suites=$([ -f "$own" ] && echo "$own"; grep -E "[ |,]$t(,| |\()" <<< "$table" | grep -o 'test_[a-z_]*\.sh' | sed 's|^|tests/live/|')
	[ -n "$suites" ] || { bad="$bad$t: no suite of its own and in no family's row"$'\n'; continue; }
	for f in $suites; do
		grep -q "BIN}\?/$t\b" "$f" 2> /dev/null || bad="$bad$t: $f does not run it"$'\n'
	done
done
for f in tests/live/test_*.sh; do
	n=$(basename "$f" .sh); n=${n#test_}
	grep -qw -- "${n//_/-}" <<< "$tools" || grep -q "\`test_$n\.sh\`" <<< "$table" ||
		bad="$bad$f: neither a tool's suite nor in CONTRIBUTING.md's table"$'\n'
done
if [ -z "$bad" ]; then
	pass=$((pass + 1)); echo "suites: ok"
else
	fail=$((fail + 1)); echo "suites: FAILED:"; printf '%s' "$bad"
fi
# docs/design.md's table of the layers names every module of common/ in its folder, and no
# other: the map matches the ground.
map=$(sed -n 's/^| `\([a-z]*\)\/` | \([a-z, ]*\) |.*/\1: \2/p' docs/design.md | tr -d ,)
ground=$(for d in common/*/; do d=${d%/}; echo "${d#common/}: $(ls "$d"/*.c | xargs -n1 basename | sed 's/\.c$//' | tr '\n' ' ')"; done)
norm() { while read -r f rest; do echo "$f $(tr ' ' '\n' <<< "$rest" | grep . | sort | tr '\n' ' ')"; done | sort; }
if diff <(norm <<< "$map") <(norm <<< "$ground") > "$B/.layers.diff"; then
	pass=$((pass + 1)); echo "layers: ok"
else
	fail=$((fail + 1)); echo "layers: FAILED, docs/design.md's table (<) is not common/ (>):"; cat "$B/.layers.diff"
fi
rm -f "$B/.layers.diff"
# Every function a header of common/ declares is documented in design.md's shape (each
# parameter named, what it Returns, who frees a pointer): tests/doc-check.py.
if out=$(python3 tests/doc-check.py common/*.h common/*/*.h 2>&1); then
	pass=$((pass + 1)); echo "doc-check: ok"
else
	fail=$((fail + 1)); echo "doc-check: FAILED"; echo "$out" | tail -20
fi
# The tool codes keep their type: no bare number from an enum tool_code function, no TOOL_
# name from an int one (tests/codes-check.py).
if out=$(python3 tests/codes-check.py common/*.c common/*/*.c tools/*.c 2>&1); then
	pass=$((pass + 1)); echo "codes-check: ok"
else
	fail=$((fail + 1)); echo "codes-check: FAILED"; echo "$out" | tail -20
fi
# Links between the project's pages: each relative link in README.md, CONTRIBUTING.md and
# docs/*.md names a file that exists, and each #anchor a heading of the page it points to,
# spelled as GitHub makes anchors (lower case, punctuation dropped, a hyphen per space, -1,
# -2 for repeats). Code (fenced blocks, `spans`) and addresses with a scheme are not links.
# slugs PAGE: the anchors of the page's headings, one a line.
slugs() {
	awk '/^```/ { code = !code; next }
		!code && /^#+ / {
			h = tolower($0); sub(/^#+ +/, "", h); sub(/ +#* *$/, "", h)
			gsub(/[^a-z0-9 _-]/, "", h); gsub(/ /, "-", h)
			print (seen[h]++ ? h "-" seen[h] - 1 : h)
		}' "$1"
}
broken=$(for page in README.md CONTRIBUTING.md docs/*.md; do
	[ -f "$page" ] || continue # no docs/*.md: the pattern itself
	awk '/^```/ { code = !code; next }
		!code {
			line = $0; gsub(/`[^`]*`/, "", line)
			while (match(line, /\]\([^) ]+( "[^"]*")?\)/)) {
				target = substr(line, RSTART + 2, RLENGTH - 3); sub(/ ".*/, "", target)
				print target; line = substr(line, RSTART + RLENGTH)
			}
		}' "$page" | while IFS= read -r target; do
		case $target in *://* | mailto:*) continue ;; esac
		file=${target%%#*} anchor=
		[ "$file" = "$target" ] || anchor=${target#*#}
		if [ -z "$file" ]; then file=$page; else file=$(dirname "$page")/$file; fi
		if [ ! -e "$file" ]; then
			echo "$page: $target: no such file"
		elif [ -n "$anchor" ] && ! slugs "$file" | grep -qxF -- "$anchor"; then
			echo "$page: $target: no such heading in $file"
		fi
	done
done)
if [ -z "$broken" ]; then
	pass=$((pass + 1)); echo "links: ok"
else
	fail=$((fail + 1)); echo "links: FAILED"; echo "$broken"
fi
# The scripts that build and test run on any machine: they name folders relative to the
# checkout or take them from a variable (VM_IMAGES, VM_CACHE), never one machine's home or
# work folder (.ci/run once looked for the kernel images in the development machine's).
pinned=$(git ls-files .ci Makefile 'tests/*.sh' 'bench/*.sh' debian/rules 2>/dev/null |
	xargs grep -nE '(^|[^A-Za-z0-9_.~-])/(work|home|root|Users)/' 2>/dev/null)
if [ -z "$pinned" ]; then
	pass=$((pass + 1)); echo "paths: ok"
else
	fail=$((fail + 1)); echo "paths: FAILED, a machine's own folder named in:"; echo "$pinned"
fi
# The build as users and distributions make it: their flags on every line, -Werror only here.
if out=$(tests/build-check.sh 2>&1); then
	pass=$((pass + 1)); echo "$out"
else
	fail=$((fail + 1)); echo "$out"
fi
# Man pages: render without warnings; options of -h and of the page agree.
for tool in ${TOOLS:-}; do
	out=$(tests/man-check.sh "$B/$tool" "man/man8/$tool.8" 2>&1)
	if [ $? -eq 0 ]; then
		pass=$((pass + 1)); echo "man $tool: ok"
	else
		fail=$((fail + 1)); echo "man $tool: FAILED"; echo "$out"
	fi
done

# Bash completion (made by make from each tool's -h): loads, offers every option, values by kind.
if out=$(tests/completion-check.sh "$B" "$B/completion" ${TOOLS:-} 2>&1); then
	pass=$((pass + 1)); echo "completion: ok"
else
	fail=$((fail + 1)); echo "completion: FAILED"; echo "$out"
fi

# Live tests: root and a real kernel; they skip (with the reason) when they cannot run.
# LIVE_SKIP: suites this run leaves to another (make check SANITIZE=1 leaves test_examples,
# the man pages' examples, to the plain build's run: the tools' own suites run the same
# code under the sanitizers; test_pictures and test_prom too: their parsing and writing run
# under the sanitizers in fuzz_pictures, test_pictures and test_prom's unit tests), said
# as skips.
for t in tests/live/test_*.sh; do
	t0=$SECONDS
	name=$(basename "$t" .sh)
	if [[ " ${LIVE_SKIP:-} " == *" $name "* ]]; then
		echo "skip - $name: left to another run of make check (LIVE_SKIP)"
		skip=$((skip + 1))
		continue
	fi
	out=$(BIN=$B sh "$t" 2>&1)
	rc=$?
	line=$(tail -n 1 <<<"$out")
	if [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]]; then
		pass=$((pass + BASH_REMATCH[1])) fail=$((fail + BASH_REMATCH[2]))
		skip=$((skip + BASH_REMATCH[3]))
	else
		fail=$((fail + 1))
	fi
	grep -E '^(not ok|skip) ' <<<"$out"
	[ $rc -eq 0 ] || { [[ $line =~ failed ]] || fail=$((fail + 1)); echo "$out" | tail -40; }
	echo "live $t: $line ($((SECONDS - t0)) s)"
done

echo
echo "$pass passed, $fail failed, $skip skipped ($SECONDS s)"
[ $fail -eq 0 ]
