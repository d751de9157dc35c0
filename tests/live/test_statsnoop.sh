#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of statsnoop: the test program stats paths with a space, a newline and bytes that
# are not UTF-8, a missing one, a relative one from a directory descriptor, "", a directory
# with statfs, a bad address (EFAULT), a 3000-byte one and a 100 KB one (ENAMETOOLONG):
# statsnoop must show each with its exact result and path, through every mechanism the
# kernel offers.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

need_program ST snoop_target "${SNOOP_TARGET:-}"

if [ ! -d "$T/events/syscalls/sys_exit_newfstatat" ] && [ ! -d "$T/events/syscalls/sys_exit_statx" ]; then
	"$BIN/statsnoop" -d 0.1 > "$TMP/out" 2> "$TMP/err"
	check "statsnoop without syscall tracepoints: exit 1 naming CONFIG_FTRACE_SYSCALLS" sh -c \
		"[ $? -eq 1 ] && grep -q CONFIG_FTRACE_SYSCALLS '$TMP/err'"
	summary; exit $?
fi

for args in "--via bogus|invalid --via" "-Z|" "1 2|unexpected argument" "-d 0|duration" \
	"-p 1 -L 1|exclude each other" "-n '[a'|NAME"; do
	eval "\"\$BIN/statsnoop\" ${args%|*}" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "statsnoop ${args%|*}: exit 2, one line '${args#*|}'" sh -c \
		"[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q -- '${args#*|}' '$TMP/err'"
done
check "statsnoop's bad input changed nothing in tracefs" same_state

D=$TMP/st
mkdir "$D" && : > "$D/a b" && ln -s "a b" "$D/new
line" && : > "$D/$(printf '\377\376') bad"

# The program's calls as statsnoop must show them, in order: RET ERR PATH (text).
cat > "$TMP/want" << EOF
0 0 $D/a\\x20b
0 0 $D/new\\x0aline
0 0 $D/\\xff\\xfe\\x20bad
-1 2 $D/missing
0 0 a\\x20b
-1 2 ""
0 0 $D
-1 14 [unknown]
EOF

# snoop ARGS...: statsnoop ARGS on the program; its lines without the stats its C library's
# start and stdio make (fstat: "" with AT_EMPTY_PATH, the loader's ones) in $TMP/calls.
snoop() {
	"$BIN/statsnoop" "$@" --exec "$ST" stat "$D" > "$TMP/out" 2> "$TMP/err"
	RC=$?
	grep -v '^-\{0,1\}[0-9]*$' "$TMP/out" > "$TMP/lines"
}
calls() { sed 1d "$TMP/lines" | awk '$5 != "\"\"" || $4 != 0 { print $3, $4, $5 }' | grep -v '^0 0 \[unknown\]$'; }

WORKED=
for via in kprobe eprobe uprobe; do
	# A static program is not seen by uprobes on the C library: only whether the rung is here.
	if [ $via = uprobe ] && [ -n "${SNOOP_TARGET:-}${UPROBE_TARGET:-}" ]; then
		"$BIN/statsnoop" --via $via -d 0.1 > "$TMP/out" 2> "$TMP/err"
		RC=$?
	else
		snoop --via $via
	fi
	if [ $RC -ne 0 ]; then
		check "statsnoop --via $via where it cannot work: exit 1, one line saying why" \
			sh -c "[ $RC -eq 1 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q '^statsnoop: --via $via: ' '$TMP/err'"
		skip "statsnoop via $via: $(sed 's/^statsnoop: //' "$TMP/err")"
		continue
	fi
	if [ $via = uprobe ] && [ -n "${SNOOP_TARGET:-}${UPROBE_TARGET:-}" ]; then
		skip "statsnoop via uprobe: the test program is static (no C library to probe)"
		continue
	fi
	if [ $via = eprobe ] && ! grep -q "a\\\\x20b" "$TMP/out"; then
		skip "statsnoop via eprobe: this kernel's event probes cannot read user strings (paths read as (fault) or empty)"
		continue
	fi
	[ -n "$WORKED" ] || WORKED=$via
	calls | head -8 > "$TMP/got"
	check "statsnoop via $via: each call with its exact result and path" sh -c \
		"[ $RC -eq 0 ] && grep -q 'via ' '$TMP/err' && cmp -s '$TMP/want' '$TMP/got'" ||
		{ echo "# want:"; sed 's/^/#   /' "$TMP/want"; echo "# got:"; sed 's/^/#   /' "$TMP/got"; }
	# The 3000-byte path (ENOENT) whole where it fits an event; the 100 KB one
	# (ENAMETOOLONG): never another call's path, its own cut or "[unknown: 4096 bytes or
	# more]" (the program gone before it could be read).
	calls | sed -n 9,10p > "$TMP/long"
	check "statsnoop via $via: a 3000-byte path whole, a 100 KB one cut or unknown" awk -v d="$D/" '
		BEGIN { long = d; for (i = 0; i < 375; i++) long = long "0000000/" }
		NR == 1 { ok1 = $1 == -1 && $2 == 2 && $3 == long }
		NR == 2 { ok2 = $1 == -1 && $2 == 36 && ($3 == "[unknown:" || index($3, d "0000000/") == 1) }
		END { exit !(ok1 && ok2) }' "$TMP/long" || sed 's/^\(.\{100\}\).*/#   \1.../' "$TMP/long"
done

# The options, through the mechanism statsnoop picks by itself (the first that worked).
if [ -z "$WORKED" ]; then
	skip "statsnoop options: no mechanism here reads the test program's paths"
else
	snoop -x
	check "statsnoop -x: only the failed calls" sh -c "
		sed 1d '$TMP/lines' | awk '\$3 != -1 { bad++ } END { exit bad }' &&
		[ \$(sed 1d '$TMP/lines' | grep -c ' -1 ') -ge 5 ]"
	# statx(2) arrived in Linux 4.11: before, the C library's statx() makes fstatat().
	SX=statx
	[ -d "$T/events/syscalls/sys_enter_statx" ] || SX=newfstatat
	snoop -e
	check "statsnoop -e: CALL and FLAGS: $SX for the missing file, AT_SYMLINK_NOFOLLOW for lstat" sh -c "
		head -1 '$TMP/lines' | grep -Eq '^COMM +PID +CALL +FLAGS +RET +ERR +PATH\$' &&
		grep -Eq ' $SX +0x0 +-1 +2 $D/missing\$' '$TMP/lines' &&
		grep -Eq ' 0x100 +0 +0 $D/new\\\\x0aline\$' '$TMP/lines'"
	snoop -j
	grep '^{' "$TMP/out" > "$TMP/json"
	check "statsnoop -j: valid JSON, the strings exact" sh -c "
		'$JSONCHECK' '$TMP/json' comm pid call dfd flags ret errno path path_cut path_len path_late &&
		grep -q '\"ret\":0,\"errno\":0,\"path\":\"$D/new\\\\nline\",\"path_cut\":false,\"path_len\":$((${#D} + 9)),' '$TMP/json' &&
		grep -q '\"ret\":0,\"errno\":0,\"path\":\"$D/\\\\udcff\\\\udcfe bad\",' '$TMP/json' &&
		grep -q '\"dfd\":-100,.*\"ret\":-1,\"errno\":2,\"path\":\"\",\"path_cut\":false,\"path_len\":0,\"path_late\":false}' '$TMP/json' &&
		grep -q '\"ret\":-1,\"errno\":14,\"path\":null,\"path_cut\":false,\"path_len\":null,\"path_late\":false}' '$TMP/json'"
	# -j with --exec: the command's standard output is not in ours (it goes to standard
	# error), so the whole of our standard output is JSON lines; with -o FILE the events go
	# to FILE and the command keeps our standard output (the program prints its results).
	CMD="echo ftt-command-output; exec '$ST' stat '$D'"
	"$BIN/statsnoop" -j --exec sh -c "$CMD" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "statsnoop -j --exec of a command that prints: only JSON lines on stdout" sh -c "
		[ $rc -eq 0 ] && '$JSONCHECK' '$TMP/out' comm pid call ret errno path &&
		grep -q '\"path\":\"$D/a b\",' '$TMP/out' && ! grep -q ftt-command-output '$TMP/out' &&
		grep -qx ftt-command-output '$TMP/err'"
	rm -f "$TMP/events"
	"$BIN/statsnoop" -j -o "$TMP/events" --exec sh -c "$CMD" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "statsnoop -j -o FILE --exec: the events in FILE (0644), the command's line on stdout" sh -c "
		[ $rc -eq 0 ] && [ \"\$(head -1 '$TMP/out')\" = ftt-command-output ] &&
		! grep -q '{' '$TMP/out' &&
		'$JSONCHECK' '$TMP/events' comm pid call ret errno path &&
		grep -q '\"path\":\"$D/a b\",' '$TMP/events' &&
		ls -l '$TMP/events' | grep -q '^-rw-r--r--'"
	echo old > "$TMP/events"
	"$BIN/statsnoop" -o "$TMP/events" --exec "$ST" stat "$D" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "statsnoop -o FILE (existing): emptied, then the header and lines; on stdout only the command's" sh -c "
		[ $rc -eq 0 ] && ! grep -qv '^-\\{0,1\\}[0-9]*\$' '$TMP/out' &&
		head -1 '$TMP/events' | grep -q '^COMM ' &&
		! grep -q '^old' '$TMP/events' && grep -q ' $D/a\\\\x20b\$' '$TMP/events'"
fi

# Paths longer than a trace event holds (with uprobes on 6.18 a record over 4072 bytes is not
# written at all: about 4,050 bytes of path) or than the kernel copies (4096 bytes with the
# NUL: ENAMETOOLONG). Once [unknown] and counted as "not made through the C library's
# functions", which they were. Now: as much as is read, with the true length, [late] when read
# from the caller after the call; its memory gone, marked too long, never "not through the C
# library". (4090 at most below 4096: a uprobe's string of 4092 to 4095 bytes makes 6.18 warn
# once, WARN_ON_ONCE in prepare_uprobe_buffer.)
LENS="4030 4060 4090 4096 100000"
# lpath LEN: the test program's path of LEN bytes: DIR/ then 0000000/ over and over.
lpath() { awk -v d="$D/" -v n="$1" 'BEGIN { s = d; while (length(s) < n) s = s "0000000/"; print substr(s, 1, n) }'; }
if [ -z "$WORKED" ]; then
	skip "statsnoop long paths: no mechanism here reads the test program's paths"
else
	"$BIN/statsnoop" -j --exec "$ST" long "$D" 5 $LENS > "$TMP/out" 2> "$TMP/err"
	grep '"dfd":-100,.*"ret":-1,' "$TMP/out" > "$TMP/long"
	i=0 bad=
	for len in $LENS; do
		i=$((i + 1))
		p=$(lpath $len) e=2 cut=false
		[ $len -lt 4096 ] || { p=$(printf %s "$p" | head -c 4095); e=36 cut=true; }
		line=$(sed -n "${i}p" "$TMP/long")
		case $line in
		*"\"errno\":$e,\"path\":\"$p\",\"path_cut\":$cut,\"path_len\":$len,\"path_late\":"*) ;;
		*) bad="$bad $len" ;;
		esac
		[ $len -lt 4096 ] || case $line in *'"path_late":true}') ;; *) bad="$bad $len(late)" ;; esac
	done
	check "statsnoop: paths of $LENS bytes, the caller still there: each whole or its first 4095 bytes, its exact length" sh -c \
		"[ -z '$bad' ] && [ \$(wc -l < '$TMP/long') -eq 5 ] && ! grep -q 'calls had paths longer' '$TMP/err'" ||
		{ echo "# wrong:$bad"; sed 's/\(0000000\/\)\{1,\}/.../' "$TMP/long" | cut -c1-300 | sed 's/^/#   /'; }
	# The same, each path's memory unmapped right after its calls: nothing to read late.
	"$BIN/statsnoop" --exec "$ST" long "$D" 0 $LENS > "$TMP/out" 2> "$TMP/err"
	grep -E ' -1 +(2|36) ' "$TMP/out" | sed -E 's/^.* -1 +(2|36) //' > "$TMP/long"
	p=$(lpath 4030)
	via=$(sed -n 's/^Tracing stat calls, paths via \([a-z]*\).*/\1/p' "$TMP/err")
	# Lines shown [unknown] (the loader's calls, not through the C library), as counted.
	unknown=$(grep -c ' \[unknown\]$' "$TMP/out")
	said=$(sed -n "s/^statsnoop: \([0-9]*\) calls were shown with a string not read (\[unknown\]): not made through.*/\1/p" "$TMP/err")
	if [ "$via" = uprobes ]; then
		printf '%s\n' "$p" "[unknown: longer than a trace event holds]" "[unknown: longer than a trace event holds]" \
			"[unknown: 4096 bytes or more]" "[unknown: 4096 bytes or more]" > "$TMP/want"
		check "statsnoop: long paths gone before they could be read: marked too long, counted as such, none as not through the C library" sh -c "
			cmp -s '$TMP/want' '$TMP/long' && grep -q '^statsnoop: 4 calls had paths longer than a trace event holds' '$TMP/err' &&
			[ '${said:-0}' -eq $unknown ]" ||
			{ sed 's/\(0000000\/\)\{1,\}/.../' "$TMP/long" | sed 's/^/#   /'; sed 's/^/#   /' "$TMP/err"; }
	else
		# A kprobe's fetch may fault after the kernel measured the path (seen on 5.10 for
		# 4060 bytes, then shown as ""): [unknown], counted as a fault; never "". A path read
		# from the process before it unmapped it is whole, marked [late] (the 4.9 guest
		# of a loaded CI read 4060 and 4090 so); read after, the memory there may hold the
		# next call's path (a piece of it: the 4.18 guest of a loaded preview), still
		# marked [late], as what was read then.
		faults=$(sed -n 's/^statsnoop: \([0-9]*\) calls were shown with a string not read (\[unknown\]): a bad address, or a fault$/\1/p' "$TMP/err")
		check "statsnoop via $via: long paths gone before they could be read: whole, a prefix marked cut, marked too long, or [unknown] counted as a fault" \
			awk -v d="$D/" -v faults="${faults:-0}" -v unknown="$unknown" '
			BEGIN { s = d; while (length(s) < 4096) s = s "0000000/"; split("4030 4060 4090 4096 100000", l, " ") }
			{ c = index($0, " [cut")
			  late = $0 ~ / \[late\]$/ ? substr($0, 1, length($0) - 7) : ""
			  if (index(late, d) == 1) late = substr(late, length(d) + 1)
			  ok[NR] = (l[NR] < 4096 && ($0 == substr(s, 1, l[NR]) || late ~ /^[0\/]+$/)) ||
				$0 == "[unknown]" ||
				$0 == "[unknown: longer than a trace event holds]" || $0 == "[unknown: 4096 bytes or more]" ||
				(c > 1 && $0 ~ / \[cut(: 4096 bytes or more)?\]$/ && index(s, substr($0, 1, c - 1)) == 1) }
			END { for (i = 1; i <= 5; i++) if (!ok[i]) exit 1; exit NR != 5 || faults != unknown }' "$TMP/long" ||
			{ sed 's/\(0000000\/\)\{1,\}/.../' "$TMP/long" | sed 's/^/#   /'; sed 's/^/#   /' "$TMP/err"; }
	fi
fi

# -o where it must not write: through a link, a folder, a missing folder. A usage error (exit
# 2), one line, nothing made in the kernel, the link's target untouched.
echo target > "$TMP/target"
ln -s "$TMP/target" "$TMP/link"
for o in "$TMP/link|is a link" "$TMP|Is a directory" "$TMP/none/f|No such file"; do
	"$BIN/statsnoop" -d 0.1 -o "${o%|*}" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "statsnoop -o ${o%|*}: exit 2, one line '${o#*|}'" sh -c \
		"[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q -- '${o#*|}' '$TMP/err'"
done
check "statsnoop -o through a link: the target untouched" sh -c "[ \"\$(cat '$TMP/target')\" = target ]"
check "statsnoop -o refused: nothing changed in tracefs" same_state

stop_cases statsnoop "$BIN/statsnoop"
check "at the end: tracefs as it was" same_state
summary
