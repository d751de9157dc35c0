#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of opensnoop: the test program opens one file that exists and one that does not;
# FD, ERR and PATH must be exact through every mechanism this kernel offers.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

need_programs "$UT"
if [ ! -d "$T/events/syscalls/sys_exit_openat" ]; then
	"$BIN/opensnoop" > "$TMP/out" 2> "$TMP/err"
	check "opensnoop without syscall tracepoints: exit 1 naming CONFIG_FTRACE_SYSCALLS" sh -c \
		"[ $? -eq 1 ] && grep -q CONFIG_FTRACE_SYSCALLS '$TMP/err'"
	summary; exit $?
fi

# snoop ARGS...: opensnoop -p (the waiting test program) ARGS; output in $TMP/out, and in $FD
# the descriptor open() returned, as the program printed it.
snoop() {
	trace_target -p "$BIN/opensnoop" "$@"
	FD=$(cut -d' ' -f3 "$TMP/target.out")
}

# Each mechanism this kernel offers; the others are skipped with the reason.
for via in kprobe eprobe uprobe; do
	"$BIN/opensnoop" --via $via -d 0.1 > /dev/null 2> "$TMP/err"
	rc=$?
	if [ $rc -ne 0 ]; then
		check "opensnoop --via $via where it cannot work: exit 1, one line saying why" \
			sh -c "[ $rc -eq 1 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q '^opensnoop: --via $via: ' '$TMP/err'"
		skip "opensnoop via $via: $(sed 's/^opensnoop: //' "$TMP/err")"
		continue
	fi
	if [ $via = uprobe ] && { [ -n "${UPROBE_TARGET:-}" ] || ! "$BIN/uprobe" -l libc > /dev/null 2>&1; }; then
		skip "opensnoop via uprobe: the test program is static (no C library to probe)"
		continue
	fi
	snoop --via $via
	if [ $via = eprobe ] && grep -q 'unknown]$' "$TMP/out" && ! grep -q /proc/self/stat "$TMP/out"; then
		skip "opensnoop via eprobe: this kernel's event probes cannot read user strings (paths read as (fault) or empty)"
		continue
	fi
	check "opensnoop via $via: exactly the two opens, FD, ERR and PATH exact" sh -c "
		grep -q 'via ' '$TMP/err' && [ \$(wc -l < '$TMP/out') -eq 3 ] &&
		head -1 '$TMP/out' | grep -Eq '^COMM +PID +FD +ERR +PATH\$' &&
		grep -Eq '^uprobe_target +$UTPID +$FD +0 /proc/self/stat\$' '$TMP/out' &&
		grep -Eq '^uprobe_target +$UTPID +-1 +2 /nonexistent/ftt-file\$' '$TMP/out'" ||
		target_state
done

# A path longer than the kernel copies (4,500 bytes: ENAMETOOLONG before any kprobe sees it, too
# long for a uprobe's string) was [unknown] / null. The shell's own open: it is still there
# to be read after the call, so the path is what it passed, cut with its length, late.
LONG=/$(head -c 4500 /dev/zero | tr '\0' a)
if start_bg "$BIN/opensnoop" -j -p $$; then
	{ read -r x < "$LONG"; } 2> /dev/null
	cat "$LONG" 2> /dev/null || :
	stop_bg
	check "a 4,500-byte path, opened by this shell: a prefix of it, cut, length 4501, late" \
		grep -Eq "\"pid\":$$,.*\"err\":36,.*\"path\":\"/a+\",\"path_cut\":true,\"path_len\":4501,\"path_late\":true}" "$TMP/out"
	check "a 4,500-byte path, by a process gone before it could be read: marked cut, not unknown" \
		grep -Eq "\"comm\":\"cat\",.*\"err\":36,.*\"path\":(\"/a*\"|null),\"path_cut\":true,\"path_len\":null," "$TMP/out"
fi

# The options, through the mechanism opensnoop picks by itself.
"$BIN/opensnoop" -d 0.1 > /dev/null 2> "$TMP/err"
via=$(sed -n 's/^Tracing open()s via \([a-z]*\).*/\1/p' "$TMP/err")
if [ "$via" = uprobes ] && [ -n "${UPROBE_TARGET:-}" ]; then
	skip "opensnoop options: only uprobes here, and the test program is static"
else
	snoop -x
	check "opensnoop -x: only the failed open" sh -c "
		[ \$(wc -l < '$TMP/out') -eq 2 ] && grep -Eq ' -1 +2 /nonexistent/ftt-file\$' '$TMP/out'"

	# Lost events: 4 KB of buffer per CPU (FTT_BUFFER_KB) against 20000 pairs of opens. A
	# path must never be joined to another open's result. (Removing the clearing of the
	# joins after a loss did not make this fail here in 4 runs: the losses did not happen to
	# fall between an entry and its exit. The check stands for the property, not that code.)
	# At least 10 paths shown: the sanitized tools, slower, showed under 100 of the 40,000
	# opens once (79,856 events lost, reported).
	spawn_target 20000
	rm -f "$TMP/out" "$TMP/err" # the wait below must not see the last run's banner
	FTT_BUFFER_KB=4 "$BIN/opensnoop" -p $UTPID > "$TMP/out" 2> "$TMP/err" &
	TPID=$!
	if ready_release; then
		sleep 1; kill -INT $TPID; wait_exit $TPID 10
		check "opensnoop under lost events (FTT_BUFFER_KB=4): reported, and each path with its own open's result" awk '
			NR == 1 { next }
			$NF == "/proc/self/stat" { n++; if ($3 < 0 || $4 != 0) bad++ }
			$NF == "/nonexistent/ftt-file" { n++; if ($3 != -1 || $4 != 2) bad++ }
			FILENAME != ARGV[1] && /WARNING: lost/ { lost = 1 }
			END { if (bad) print "# " bad " of " n " paths with another open'"'"'s result"
				exit !(n >= 10 && !bad && lost) }' "$TMP/out" "$TMP/err" || target_state
	else
		notok "opensnoop with FTT_BUFFER_KB=4 starts" "$TMP/err"
	fi

	snoop -j
	check "opensnoop -j: both opens as JSON with call, fd, err, flags, mode and path, every key --json-keys lists" sh -c "
		grep -q '\"comm\":\"uprobe_target\",\"pid\":$UTPID,\"call\":\"openat\",\"fd\":$FD,\"err\":0,\"flags\":0,\"mode\":0,\"path\":\"/proc/self/stat\",\"path_cut\":false,\"path_len\":15,\"path_late\":false}' '$TMP/out' &&
		grep -q '\"fd\":-1,\"err\":2,\"flags\":0,\"mode\":0,\"path\":\"/nonexistent/ftt-file\",\"path_cut\":false,\"path_len\":21,\"path_late\":false}' '$TMP/out' &&
		[ \$(wc -l < '$TMP/out') -eq 2 ] &&
		'$JSONCHECK' '$TMP/out' $("$BIN/opensnoop" --json-keys | cut -f1 | grep -vx -e host -e kernel | tr '\n' ' ')"

	snoop -e -t 'ftt-file'
	check "opensnoop -e -t PATTERN: FLAGS and MODE columns, only the matching path" sh -c "
		head -1 '$TMP/out' | grep -Eq '^TIME\\(s\\) +COMM +PID +FD +ERR +FLAGS +MODE +PATH\$' &&
		[ \$(wc -l < '$TMP/out') -eq 2 ] &&
		grep -Eq '^[0-9]+\\.[0-9]{6} +uprobe_target +$UTPID +-1 +2 00000000 0000 /nonexistent/ftt-file\$' '$TMP/out'"

	snoop -T '/proc/*'
	check "opensnoop -T with a glob: HH:MM:SS, only /proc/self/stat" sh -c "
		[ \$(wc -l < '$TMP/out') -eq 2 ] &&
		grep -Eq '^[0-9]{2}:[0-9]{2}:[0-9]{2} +uprobe_target .* /proc/self/stat\$' '$TMP/out'"

	snoop -n 'uprobe_tar*'
	check "opensnoop -n with a matching glob: both opens" [ "$(wc -l < "$TMP/out")" -eq 3 ]
	snoop -n 'no-such-name'
	check "opensnoop -n with no match: nothing" [ "$(wc -l < "$TMP/out")" -eq 1 ]

	# Paths longer than a trace event holds: with uprobes on 6.18 the record of a 4,030-byte
	# path and the program's name is over 4072 bytes and not written; the open was not shown
	# at all and counted as "without the C library's open functions". 4096 bytes and more:
	# ENAMETOOLONG. Each now shown, as far as it can be read, with its exact length. (Below
	# 4050 bytes: a uprobe string of about 4050 to 4095 makes 6.18 warn once.)
	ST=${SNOOP_TARGET:-$BIN/tests/snoop_target}
	[ -x "$ST" ] || ST=$BIN/snoop_target
	lpath() { awk -v d="$TMP/" -v n="$1" 'BEGIN { s = d; while (length(s) < n) s = s "0000000/"; print substr(s, 1, n) }'; }
	"$BIN/opensnoop" -j --exec "$ST" long "$TMP" 5 4030 4096 100000 > "$TMP/out" 2> "$TMP/err"
	grep '"err":\(2\|36\),' "$TMP/out" | grep "\"path\":\"$TMP/0000000/" > "$TMP/long"
	i=0 bad=
	for len in 4030 4096 100000; do
		i=$((i + 1))
		p=$(lpath $len) e=2 cut=false
		[ $len -lt 4096 ] || { p=$(printf %s "$p" | head -c 4095); e=36 cut=true; }
		line=$(sed -n "${i}p" "$TMP/long")
		case $line in
		*"\"err\":$e,"*"\"path\":\"$p\",\"path_cut\":$cut,\"path_len\":$len,\"path_late\":"*) ;;
		*) bad="$bad $len" ;;
		esac
	done
	check "opensnoop: paths of 4030, 4096 and 100000 bytes, the caller still there: whole or its first 4095 bytes, exact length" sh -c \
		"[ -z '$bad' ] && [ \$(wc -l < '$TMP/long') -eq 3 ]" ||
		{ echo "# wrong:$bad"; sed 's/\(0000000\/\)\{1,\}/.../' "$TMP/out" | cut -c1-300 | sed 's/^/#   /'; }
	# Each path's memory unmapped right after its call: what the probes read, marked.
	"$BIN/opensnoop" --exec "$ST" long "$TMP" 0 4030 4096 100000 > "$TMP/out" 2> "$TMP/err"
	grep -E ' -1 +(2|36) ' "$TMP/out" | sed -E 's/^.* -1 +(2|36) //' > "$TMP/long"
	check "opensnoop: the same paths gone before they could be read: each shown, whole, a prefix marked cut, or marked too long" awk -v d="$TMP/" '
		BEGIN { s = d; while (length(s) < 4096) s = s "0000000/"; split("4030 4096 100000", l, " ") }
		{ c = index($0, " [cut")
		  ok[NR] = (l[NR] < 4096 && $0 == substr(s, 1, l[NR])) ||
			$0 == (l[NR] < 4096 ? "[unknown: longer than a trace event holds]" : "[unknown: 4096 bytes or more]") ||
			(l[NR] >= 4096 && c > 1 && substr($0, c) == " [cut: 4096 bytes or more]" && index(s, substr($0, 1, c - 1)) == 1) }
		END { for (i = 1; i <= 3; i++) if (!ok[i]) exit 1; exit NR != 3 }' "$TMP/long" ||
		sed 's/^\(.\{100\}\).*/#   \1.../' "$TMP/long"
fi

# Bad input: one line, exit 2, nothing changed.
for args in "--via bogus|invalid --via" "-p 0|PID" "-d 0|duration" "-p 1 -L 1|exclude each other" \
	"a b|unexpected argument" "-Z|" "FTT_BUFFER_KB=4k|invalid FTT_BUFFER_KB"; do
	case $args in FTT_BUFFER_KB=*) envs=${args%|*}; args="|${args#*|}" ;; *) envs= ;; esac
	eval "$envs \"\$BIN/opensnoop\" ${args%|*}" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "opensnoop ${envs:-}${args%|*}: exit 2, one line '${args#*|}'" sh -c \
		"[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q -- '${args#*|}' '$TMP/err'"
done
check "opensnoop's bad input changed nothing in tracefs" same_state

stop_cases opensnoop "$BIN/opensnoop"
check "at the end: tracefs as it was" same_state
summary
