#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# heatmap and flamegraph: counts that add up from known input, valid XML whatever the text
# holds, bad input; a flame graph from live tracing (uprobe -U --folded on the test
# program); and in a real browser where one is installed (headless Chromium, make deps):
# the pictures (a differential flame graph too) render, and the flame graph's search finds
# the frame it should.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

# xml FILE: well-formed XML (xmllint, where installed; the guests have none).
XMLLINT=$(command -v xmllint)
xml() { [ -z "$XMLLINT" ] || "$XMLLINT" --noout "$1"; }
[ -n "$XMLLINT" ] || skip "XML validity: xmllint not installed (libxml2-utils)"
# cells FILE: the sum of a heat map's cell counts; frames FILE: its data-n of frame NAME.
cells() { grep -o 'data-count="[0-9]*"' "$1" | awk -F'"' '{ n += $2 } END { print n + 0 }'; }

# --- bad input ------------------------------------------------------------------------
for args in "heatmap --rows cubic|invalid --rows" "heatmap --max -1|invalid --max" \
	"heatmap a b|unexpected argument" "heatmap --column 0|invalid" \
	"flamegraph --colors pink|invalid --colors" "flamegraph --width 5|invalid" \
	"heatmap /nonexistent|cannot open" "flamegraph /nonexistent|cannot open" \
	"heatmap --max 50|give --rows linear too" "flamegraph --unscaled|--unscaled is for --diff" \
	"flamegraph --diff /dev/null --colors hot|--colors with --diff" \
	"flamegraph --diff -|both standard input" "flamegraph --diff /nonexistent|cannot open"; do
	eval "\"\$BIN/\"${args%|*}" < /dev/null > "$TMP/out" 2> "$TMP/err"
	rc=$?
	want=2
	case $args in *nonexistent*) want=1 ;; esac
	check "${args%|*}: exit $want, one line, '${args#*|}'" sh -c \
		"[ $rc -eq $want ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q -- '${args#*|}' '$TMP/err'"
done
"$BIN/heatmap" < /dev/null > "$TMP/out" 2> "$TMP/err"
check "heatmap with no input: exit 1, 'no values to draw', nothing on stdout" sh -c \
	"[ $? -eq 1 ] && grep -q 'no values to draw' '$TMP/err' && [ ! -s '$TMP/out' ]"
printf 'not folded\n' | "$BIN/flamegraph" > "$TMP/out" 2> "$TMP/err"
check "flamegraph with no samples: exit 1, the line without a count said, nothing on stdout" sh -c \
	"[ $? -eq 1 ] && grep -q \"1 of 1 lines do not end in white space and a count .*(line 1 first: 'not folded')\" '$TMP/err' && grep -q 'no samples' '$TMP/err' && [ ! -s '$TMP/out' ]"

# -o FILE: the picture in FILE, nothing on stdout; through a link: refused (exit 2).
printf '{"end_s":1,"lat_ms":2}\n' > "$TMP/heatmap.in"
printf 'a;b 1\n' > "$TMP/flamegraph.in"
ln -s "$TMP/heatmap.in" "$TMP/link"
for t in heatmap flamegraph; do
	"$BIN/$t" -o "$TMP/$t.svg" "$TMP/$t.in" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	"$BIN/$t" -o "$TMP/link" "$TMP/$t.in" > /dev/null 2> "$TMP/err2"
	rc2=$?
	check "$t -o FILE: the picture in FILE, stdout empty; -o LINK: exit 2, one line" sh -c "
		[ $rc -eq 0 ] && [ ! -s '$TMP/out' ] && grep -q '</svg>' '$TMP/$t.svg' &&
		[ $rc2 -eq 2 ] && [ \$(wc -l < '$TMP/err2') -eq 1 ] && grep -q 'is a link' '$TMP/err2'"
done
if [ -w /dev/full ]; then
	printf '{"end_s":1,"lat_ms":2}\n' > "$TMP/heatmap.in"
	printf 'a;b 1\n' > "$TMP/flamegraph.in"
	for t in heatmap flamegraph; do
		"$BIN/$t" "$TMP/$t.in" > /dev/full 2> "$TMP/err"
		check "$t > /dev/full: exit 1, one line" sh -c \
			"[ $? -eq 1 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q 'cannot write' '$TMP/err'"
	done
fi

# | head: the reader goes away while megabytes are still to be written; exit 0 and nothing
# said, as the tracing tools (before: killed by SIGPIPE, 141). iolatency --heatmap too.
awk 'BEGIN { for (i = 0; i < 20000; i++) printf "{\"end_s\":%d,\"lat_ms\":%d}\n", i, i % 1000 + 1 }' > "$TMP/many.json"
awk 'BEGIN { for (i = 0; i < 20000; i++) printf "a%d;b%d 1\n", i % 100, i }' > "$TMP/many.folded"
for t in "heatmap --column 2 many.json" "flamegraph --width 100000 many.folded" \
	"iolatency --heatmap iol.svg 0.2 3"; do
	set -- $t
	tool=$1 opt=$2 val=$3 arg=$4
	[ $tool = iolatency ] && val=$TMP/$val || arg=$TMP/$arg
	( ( "$BIN/$tool" $opt $val $arg 2> "$TMP/err"; echo $? > "$TMP/rc" ) | head -1 > "$TMP/out" )
	head_ok() {
		[ "$(cat "$TMP/rc")" = 0 ] && [ -s "$TMP/out" ] &&
			{ [ $tool = iolatency ] || { [ ! -s "$TMP/err" ] && grep -q '^<?xml' "$TMP/out"; }; }
	}
	check "$t | head -1: exit 0$([ $tool = iolatency ] || echo ', nothing said')" head_ok
done

# --- known input ----------------------------------------------------------------------
# 1,000 values as iosnoop -j prints them, over 10 s, one of them 100 times slower; a line
# of junk among them, said and left out.
awk 'BEGIN { for (i = 0; i < 1000; i++) printf "{\"time\":\"12:00:00\",\"end_s\":%.6f,\"comm\":\"dd\",\"lat_ms\":%.3f}\n", 100 + i / 100, i == 500 ? 40 : 0.2 + (i % 7) / 20; print "junk" }' > "$TMP/io.json"
"$BIN/heatmap" "$TMP/io.json" > "$TMP/io.svg" 2> "$TMP/err"
io_ok() { [ "$(cells "$TMP/io.svg")" -eq 1000 ] && grep -q '1 of 1001 lines lacked' "$TMP/err" && xml "$TMP/io.svg"; }
check "heatmap of 1,000 values: cells add up to 1,000, the junk line said, valid XML" io_ok
check "heatmap: the slow value is a cell of its own, counted 1, at 32 to 64 ms" \
	grep -q 'data-count="1"><title>[^<]*, 32 ms to 64 ms: 1</title>' "$TMP/io.svg"
# Histograms as funclatency -j and iolatency -j print them: a column per line, wall-clock
# labels.
for s in 1 2 3; do
	printf '{"time":"23:59:5%d","unit":"us","count":%d,"hist":[{"low":0,"high":1,"count":1},{"low":64,"high":128,"count":%d}]}\n' \
		"$s" $((s * 10 + 1)) $((s * 10))
done > "$TMP/hist.json"
"$BIN/heatmap" < "$TMP/hist.json" > "$TMP/hist.svg" 2> "$TMP/err"
hist_ok() {
	[ "$(cells "$TMP/hist.svg")" -eq 63 ] && grep -q 'columns of 1 s' "$TMP/hist.svg" &&
		grep -q '>23:59:51<' "$TMP/hist.svg" && [ ! -s "$TMP/err" ] && xml "$TMP/hist.svg"
}
check "heatmap of 3 histograms: 63 values, 3 columns of 1 s, HH:MM:SS labels, valid XML" hist_ok
# A histogram with one bucket that is not a power of 2: the whole line left out, none of it
# drawn.
printf '{"time":"12:00:00","hist":[{"low":4,"high":8,"count":3},{"low":3,"high":6,"count":2}]}\n{"time":"12:00:01","hist":[{"low":4,"high":8,"count":5}]}\n' |
	"$BIN/heatmap" > "$TMP/part.svg" 2> "$TMP/err"
part_ok() { [ "$(cells "$TMP/part.svg")" -eq 5 ] && grep -q '1 of 2 lines lacked' "$TMP/err"; }
check "heatmap: a histogram with a bad bucket is left out whole (5 drawn, not 8), said" part_ok
# Counts that would take the number of values past 2^64 - 1 (it wrapped around), or that
# are not whole: that line left out whole, said.
printf '{"time":"12:00:00","hist":[{"low":4,"high":8,"count":10000000000000000000}]}\n{"time":"12:00:01","hist":[{"low":4,"high":8,"count":1},{"low":8,"high":16,"count":9000000000000000000}]}\n{"time":"12:00:02","hist":[{"low":4,"high":8,"count":1.5}]}\n' |
	"$BIN/heatmap" > "$TMP/wrap.svg" 2> "$TMP/err"
wrap_ok() {
	[ "$(grep -c 'data-count=' "$TMP/wrap.svg")" -eq 1 ] &&
		grep -q 'data-count="10000000000000000000"' "$TMP/wrap.svg" &&
		grep -q '2 of 3 lines lacked' "$TMP/err" &&
		grep -q '>10000000000000000000 values in 1 cells' "$TMP/wrap.svg"
}
check "heatmap: counts past 2^64 - 1 in all, or not whole: those lines left out whole, said" wrap_ok
# Past midnight: 00:00:00 comes 7 s after 23:59:53, in the 10th column.
printf '{"time":"00:00:00","unit":"us","count":1,"hist":[{"low":64,"high":128,"count":1}]}\n' > "$TMP/midnight.json"
cat "$TMP/hist.json" "$TMP/midnight.json" | "$BIN/heatmap" > "$TMP/m.svg" 2> "$TMP/err"
check "heatmap: times past midnight follow 23:59:5x (10 columns, 00:00:00 the last)" \
	grep -q '<title>00:00:00 to 00:00:01, 64 us to 128 us: 1</title>' "$TMP/m.svg"
"$BIN/heatmap" --rows linear < "$TMP/hist.json" > /dev/null 2> "$TMP/err"
check "heatmap: histograms cannot take linear rows: exit 1, said" sh -c \
	"[ $? -eq 1 ] && grep -q 'cannot be cut into linear rows' '$TMP/err'"

# Values far past --max (1e12 and 1e300 over a top of 50; any value over 1e-10) are counted
# in the top row, which says so, and said; once they crashed heatmap (a row index past int).
printf '{"end_s":1,"lat_ms":2}\n{"end_s":2,"lat_ms":1e12}\n{"end_s":3,"lat_ms":1e300}\n' > "$TMP/far.json"
for max in 50 1e-10; do
	"$BIN/heatmap" --rows linear --max $max "$TMP/far.json" > "$TMP/far.svg" 2> "$TMP/err"
	rc=$?
	n=2
	[ $max = 50 ] || n=3
	far_ok() {
		[ $rc -eq 0 ] && [ "$(cells "$TMP/far.svg")" -eq 3 ] &&
			grep -q ">$n above the top row<" "$TMP/far.svg" &&
			grep -q "^heatmap: $n of 3 values above --max $max: drawn in the top row" "$TMP/err" &&
			[ "$(wc -l < "$TMP/err")" -eq 1 ] && xml "$TMP/far.svg"
	}
	check "heatmap --rows linear --max $max, values up to 1e300: exit 0, $n above the top row, said" far_ok
done

# Times too far apart to draw: a usage error that says what would do, nothing drawn.
printf '{"end_s":-1e308,"lat_ms":2}\n{"end_s":1e308,"lat_ms":1}\n' |
	"$BIN/heatmap" > "$TMP/out" 2> "$TMP/err"
check "heatmap, times -1e308 and 1e308: exit 2, 'too far apart to draw', nothing on stdout" sh -c \
	"[ $? -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q 'from -1e+308 s to 1e+308 s: too far apart to draw' '$TMP/err' && [ ! -s '$TMP/out' ]"
printf '{"end_s":0,"lat_ms":2}\n{"end_s":100000,"lat_ms":1}\n' |
	"$BIN/heatmap" --column 1 > "$TMP/out" 2> "$TMP/err"
check "heatmap --column 1 across 100,000 s: exit 2, 'columns of 10 s or wider would fit'" sh -c \
	"[ $? -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q '100001 columns of 1 s, more than 20000: columns of 10 s or wider would fit' '$TMP/err' && [ ! -s '$TMP/out' ]"

# Text that could break the XML: in the title, the unit and frame names.
t=$(printf 'a<b>&"c\047 \001\377')
"$BIN/heatmap" --title "$t" --unit "$t" "$TMP/io.json" > "$TMP/t.svg" 2> /dev/null
odd_heat() { xml "$TMP/t.svg" && grep -q 'a&lt;b&gt;&amp;&quot;c&apos; \\x01\\xff' "$TMP/t.svg"; }
check "heatmap: a title and unit with < > & quotes, a control byte and a non-UTF-8 byte: valid XML, escaped" odd_heat
printf '%s;f<&>;g\001\377 5\nmain;x 3\n' "$t" > "$TMP/odd.folded"
"$BIN/flamegraph" --title "$t" "$TMP/odd.folded" > "$TMP/odd.svg" 2> "$TMP/err"
odd_flame() {
	xml "$TMP/odd.svg" && grep -q 'data-name="f&lt;&amp;&gt;"' "$TMP/odd.svg" &&
		grep -q '>8 samples' "$TMP/odd.svg"
}
check "flamegraph: frames with < > & quotes, control and non-UTF-8 bytes: valid XML, 8 samples" odd_flame

# Lines flamegraph.pl takes (a tab or two spaces before the count, fractions, empty frames,
# no frame, difffolded.pl's two counts, 2^64 - 1, 5,000 frames) are taken, with its totals
# (checked against it: 25.75 + 3 here; 2^64 - 1 + 1); those it leaves out are left out,
# each reason said with the first line. Before, all of them were "not folded stacks".
{
	printf 't;tab\t2\nt;two  3\ne;;b 1\n;lead 2\ntrail;; 4\n 5\nf 1.5\nf 0.25\nd;x 1 7\n'
	awk 'BEGIN { for (i = 0; i < 5000; i++) printf "f%d;", i; print " 3" }'
	printf 'a;b 1e3\na;b 2 \na;b -1\n\n'
} > "$TMP/pl.folded"
"$BIN/flamegraph" "$TMP/pl.folded" > "$TMP/pl.svg" 2> "$TMP/err"
pl_ok() {
	grep -q 'data-d="0" data-n="28.75" data-name="all"' "$TMP/pl.svg" &&
		grep -q 'data-d="1" data-n="5" data-name="t"' "$TMP/pl.svg" &&
		grep -q 'data-d="2" data-n="1" data-name=""' "$TMP/pl.svg" &&
		grep -q 'data-d="1" data-n="1.75" data-name="f"' "$TMP/pl.svg" &&
		grep -q 'data-d="2" data-n="7" data-name="x"' "$TMP/pl.svg" &&
		grep -q 'data-d="5000" data-n="3" data-name="f4999"' "$TMP/pl.svg" &&
		[ "$(wc -l < "$TMP/err")" -eq 1 ] &&
		grep -q "^flamegraph: 3 of 14 lines do not end in white space and a count (.*): left out (line 11 first: 'a;b 1e3')$" "$TMP/err" &&
		xml "$TMP/pl.svg"
}
check "flamegraph takes the lines flamegraph.pl takes, with its totals; the rest said with the reason" pl_ok
printf 'u 18446744073709551615\nv 1\n' | "$BIN/flamegraph" > "$TMP/u.svg" 2> "$TMP/err"
check "flamegraph: counts of 2^64 - 1 and 1 add up to 2^64, exactly" sh -c \
	"[ $? -eq 0 ] && [ ! -s '$TMP/err' ] && grep -q 'data-d=\"0\" data-n=\"18446744073709551616\" data-name=\"all\"' '$TMP/u.svg'"
awk 'BEGIN { printf "a 1"; for (i = 0; i < 5000; i++) printf "0"; print ""; print "b 2" }' |
	"$BIN/flamegraph" > "$TMP/big.svg" 2> "$TMP/err"
check "flamegraph: a count of 5,001 digits left out, said as too large; the rest drawn" sh -c \
	"[ $? -eq 0 ] && grep -q '^flamegraph: 1 of 2 lines have a count too large to add up: left out (line 1 first: .\.\.\.00*.)$' '$TMP/err' && grep -q 'data-n=\"2\" data-name=\"all\"' '$TMP/big.svg'"

# --diff: AFTER's frames coloured by the change of their self samples from BEFORE's (scaled
# to AFTER's total: 8 to 10, 1.25 each): a grew (red), b shrank (blue), d is new (the deepest red),
# x;y is only in BEFORE (not drawn, said); valid XML. A BEFORE without samples: exit 1.
printf 'm;a 2\nm;b 2\nm;c 2\nx;y 2\n' > "$TMP/before.folded"
printf 'm;a 4\nm;b 1\nm;c 2.5\nm;d 2.5\n' > "$TMP/after.folded"
"$BIN/flamegraph" --diff "$TMP/before.folded" "$TMP/after.folded" > "$TMP/diff.svg" 2> "$TMP/err"
rc=$?
diff_ok() {
	[ $rc -eq 0 ] && [ ! -s "$TMP/err" ] && xml "$TMP/diff.svg" &&
		grep -q '>Differential flame graph<' "$TMP/diff.svg" &&
		grep -q '>10 samples; before 8 (scaled by 1.25); red: more self samples, blue: fewer; 2.5 of before (25.00%) on paths gone: not drawn<' "$TMP/diff.svg" &&
		grep -q 'data-name="a"><title>a (after 4, before 2.5, +1.5 samples, +60.0%; self: after 4, before 2.5, +1.5)</title><rect [^>]*fill="rgb(255,170,170)"' "$TMP/diff.svg" &&
		grep -q 'data-name="b"><title>b (after 1, before 2.5, -1.5 samples, -60.0%; [^<]*</title><rect [^>]*fill="rgb(134,134,255)"' "$TMP/diff.svg" &&
		grep -q 'data-name="d"><title>d (after 2.5, before 0, +2.5 samples, new; [^<]*</title><rect [^>]*fill="rgb(255,70,70)"' "$TMP/diff.svg" &&
		! grep -q 'data-name="[xy]"' "$TMP/diff.svg"
}
check "flamegraph --diff: a red, b blue, d the deepest red, x;y not drawn but said, valid XML" diff_ok
"$BIN/flamegraph" --diff "$TMP/before.folded" --unscaled < "$TMP/after.folded" > "$TMP/diffu.svg" 2> "$TMP/err"
check "flamegraph --diff --unscaled (AFTER on stdin): a 2 to 4 (rgb(255,150,150)), not scaled" sh -c "
	[ $? -eq 0 ] && grep -q '>10 samples; before 8 (not scaled);' '$TMP/diffu.svg' &&
	grep -q 'data-name=\"a\"><title>a (after 4, before 2, +2 samples, +100.0%;[^<]*</title><rect [^>]*fill=\"rgb(255,150,150)\"' '$TMP/diffu.svg'"
printf 'junk\n' > "$TMP/junk.folded"
"$BIN/flamegraph" --diff "$TMP/junk.folded" "$TMP/after.folded" > "$TMP/out" 2> "$TMP/err"
check "flamegraph --diff BEFORE with no samples: exit 1, its line said with its name, nothing drawn" sh -c "
	[ $? -eq 1 ] && [ ! -s '$TMP/out' ] &&
	grep -q \"^flamegraph: $TMP/junk.folded: 1 of 1 lines do not end\" '$TMP/err' &&
	grep -q \"^flamegraph: no samples in $TMP/junk.folded\$\" '$TMP/err'"

# --- from tracing: the test program's call chain ------------------------------------------
if [ -e "$T/uprobe_events" ]; then
	trace_target "$BIN/uprobe" -U --folded "r:$UT:ftt_add"
	"$BIN/flamegraph" "$TMP/out" > "$TMP/ut.svg" 2> "$TMP/ut.err"
	case $(uname -r) in
	4.18.0-*.el8*) skip "uprobe -U --folded | flamegraph: RHEL 8.1's 4.18 records no user stack in an instance" ;;
	*)
		ut_ok() {
			grep -q '<g class="f" data-d="1" data-n="3" data-name="uprobe_target">' "$TMP/ut.svg" &&
				grep -q 'data-n="3" data-name="main"><title>main (3 samples, 100.00%)' "$TMP/ut.svg" &&
				xml "$TMP/ut.svg"
		}
		check "uprobe -U --folded | flamegraph: main 3 samples, on top of the program's name" ut_ok ;;
	esac
else
	skip "uprobe -U --folded | flamegraph: no uprobe_events in this kernel (CONFIG_UPROBE_EVENTS)"
fi

# --- in a browser ---------------------------------------------------------------------
CHROMIUM=$(command -v chromium || command -v chromium-browser)
if [ -n "$CHROMIUM" ] && command -v python3 > /dev/null && [ -s "${TMP}/ut.svg" ]; then
	browse() { "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars "$@" 2> /dev/null; }
	for p in io ut diff; do
		(cd "$TMP" && browse --window-size=1300,700 --screenshot="$TMP/$p.png" "file://$TMP/$p.svg" > /dev/null)
		check "Chromium renders the $p picture: not a blank page ($(python3 tests/live/pngcheck.py "$TMP/$p.png" 2>&1))" \
			sh -c "python3 tests/live/pngcheck.py $TMP/$p.png > /dev/null"
	done
	# The page's own search, as ?s= runs it on load: main matched, magenta, 100% of samples.
	browse --dump-dom "file://$TMP/ut.svg?s=%5Emain%24" > "$TMP/dom" 
	check "Chromium: the flame graph's search for ^main\$ marks main (magenta) and says 'Matched: 100.0%'" sh -c "
		grep -q '<g class=\"f match\" [^>]*data-name=\"main\">.*fill=\"rgb(230,0,230)\"' '$TMP/dom' &&
		[ \$(grep -c 'class=\"f match\"' '$TMP/dom') -eq 1 ] && grep -q '>Matched: 100.0%<' '$TMP/dom'"
	browse --dump-dom "file://$TMP/ut.svg?s=nosuchframe" > "$TMP/dom"
	check "Chromium: a search that matches nothing marks nothing, 'Matched: 0.0%'" sh -c "
		! grep -q 'class=\"f match\"' '$TMP/dom' && grep -q '>Matched: 0.0%<' '$TMP/dom'"
	# Zoom, as a click does it (?z= zooms into the first frame matching): a (3 of 4
	# samples) across the whole width, its callees b and c at 2:1, its callers faded, q and
	# x (not on its path) hidden.
	printf 'p;a;b 2\np;a;c 1\nq;x 1\n' | "$BIN/flamegraph" > "$TMP/z.svg"
	browse --dump-dom "file://$TMP/z.svg?z=%5Ea%24" > "$TMP/dom"
	zoomed() {
		frame() { grep -o "<g class=\"f\"[^>]*data-name=\"$1\"[^>]*><title>[^<]*</title><rect[^>]*>" "$TMP/dom"; }
		frame a | grep -q 'opacity: 1;.*<rect x="10" y="[0-9.]*" width="1180"' &&
			frame b | grep -q 'width="786.66' && frame c | grep -q 'x="796.66[^"]*" y="[0-9.]*" width="393.33' &&
			frame p | grep -q 'opacity: 0.6;' && frame q | grep -q 'display: none;' &&
			frame x | grep -q 'display: none;'
	}
	check "Chromium: zooming into a frame (?z=^a\$) spreads it and its callees across the width, hides the rest" zoomed
else
	skip "pictures in a browser: chromium or python3 not installed (make deps installs them), or no traced flame graph"
fi

check "the pictures changed nothing in tracefs" same_state
summary
