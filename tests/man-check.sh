#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# man-check.sh TOOL PAGE: the page renders without warnings, and the options listed by
# "TOOL -h" are exactly those of the page's OPTIONS section.
set -u
tool=$1 page=$2
rc=0
warn=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
if [ -n "$warn" ]; then
	echo "$page: groff warnings:"; echo "$warn"; rc=1
fi
if command -v mandoc >/dev/null && ! mandoc -Tlint -Wwarning "$page"; then
	echo "$page: mandoc warnings"; rc=1
fi
# Options in the usage: lines that start with spaces and an option.
usage=$("$tool" -h | sed -n 's/^ \{2,\}\(-[A-Za-z]\|--[a-z-]*\)\(, \(--[a-z-]*\)\)\{0,1\}.*/\1 \3/p' |
	tr ' ' '\n' | grep . | sort -u)
# Options in the page: the tags of the OPTIONS section's .TP entries.
page_opts=$(sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$page" | grep -A1 '^\.TP' |
	grep -o '\\-\\\{0,1\}-\{0,1\}[A-Za-z]\([a-z-]\|\\-\)*' | sed 's/\\//g' | sort -u)
if [ "$usage" != "$page_opts" ]; then
	echo "$page: options differ between '$tool -h' (<) and the page (>):"
	diff <(echo "$usage") <(echo "$page_opts")
	rc=1
fi
# The SYNOPSIS as rendered, and the usage's synopsis (its lines before the first option),
# each with white space collapsed: the same words in the same order.
usage_syn=$("$tool" -h | sed -n '1,/^   -/p' | sed '$d' | sed '1s/^USAGE: //' | tr -s ' \n' '  ' | sed 's/ $//')
page_syn=$(mandoc -Tascii -Owidth=1000 "$page" 2>/dev/null | col -bx |
	sed -n '/^SYNOPSIS$/,/^DESCRIPTION$/p' | sed '1d;$d' | tr -s ' \n' '  ' | sed 's/^ //; s/ $//')
if [ "$usage_syn" != "$page_syn" ]; then
	echo "$page: SYNOPSIS differs from '$tool -h':"
	echo "  -h:   $usage_syn"
	echo "  page: $page_syn"
	rc=1
fi
# The keys of -j's objects (the tool's row tables, --json-keys) are exactly those of the
# page's JSON subsection (.SS JSON: a .TP entry with .B KEY each).
if keys=$("$tool" --json-keys 2> /dev/null); then
	code_keys=$(cut -f1 <<< "$keys" | sort -u)
	page_keys=$(sed -n '/^\.SS JSON/,/^\.S[HS] /p' "$page" | sed '1d' | grep -A1 '^\.TP' |
		sed -n 's/^\.B \([^ ]*\).*/\1/p' | sed 's/\\//g' | sort -u)
	if [ "$code_keys" != "$page_keys" ]; then
		echo "$page: JSON keys differ between '$tool --json-keys' (<) and the page's .SS JSON (>):"
		diff <(echo "$code_keys") <(echo "$page_keys")
		rc=1
	fi
fi
# Every section a page must have.
for s in NAME SYNOPSIS DESCRIPTION REQUIREMENTS OPTIONS FIELDS EXAMPLES OVERHEAD \
	"EXIT STATUS" "SEE ALSO"; do
	grep -q "^\.SH $s\$" "$page" || { echo "$page: no section $s"; rc=1; }
done
exit $rc
