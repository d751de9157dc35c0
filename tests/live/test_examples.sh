#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Every example of every man page, run as written, here and in each guest: the commands of
# the EXAMPLES section of each man/man8/*.8 (".TP" then ".B COMMAND"; a page added later is
# found the same way). Each runs in a scratch folder (its "> file" lands there), with the
# tools first in PATH through small wrappers that keep each tool's PID, standard error and
# exit status. A tool that traces is stopped with SIGINT as soon as it says so (its
# "Tracing ..." or "Counting ..." line) and a little disk I/O has happened, unless it ends
# first by itself (-v, -l, --exec). The example passes when every tool in it started (said
# so, or ended by itself), every tool and the example's last command exited 0, no instance
# or probe of its tools' runs is left (by their PIDs: other tracers on the machine, and the
# sweeps of what they leave, are not judged), and the top level is as before.
#
# What cannot be run as written on every machine is replaced, and only this:
#   -p N, -L N (181, 1234, ...)       the PID of a sleep the test starts (-p N,N: two sleeps)
#   -d DEV of iosnoop and iolatency   DEV if /sys/block has it, else the first disk there
#   FILE                              a file of the test
#   ./app, ./app:parse, ./app input   the probe tests' program (uprobe_target), its ftt_add,
#                                     and its run without waiting
#   --exec CMD ... with CMD not here  --exec sys_target 100 0 (make in the guests)
#   io.json, stacks.folded,           saved output read back: a few lines the test writes
#   before.folded, after.folded
# Skipped, saying why: an example whose program or library is not here (bash, python3, the C
# library of the guests' static world, which gethostlatency probes, the libssl or libgnutls
# sslsniff probes, and the /bin/bash of bashreadline), and one whose tool exits 1 naming a kernel feature it lacks
# (CONFIG_...) or a refusal of the kernel (this machine's 6.18 and the function tracer).
#
# EXAMPLE_PAGES="funccount kprobe ...": only those pages' examples (make vmcheck's guests:
# the pages the host's make check cannot run, VM_EXAMPLES in tests/vm/vmcheck.sh).
#
# Cost, per example: the tool's own start and stop, and 0.15 s of the test's (a state check,
# the wrappers). Measured 2026-11-24: the 113 examples of the 18 pages took 196 s in the
# 4.19 guest (1.9 s each on average, CPUs busy 55 % of it) and about 600 s in the 6.12 one
# (funcgraph's six 25 to 47 s each: switching function_graph on and off patches every
# function under TCG; syscount -L 13 s on 4.19). The time and CPU share are said at the end,
# and each example's after it.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live

MAN=${MAN_DIR:-man/man8}
UT=${UPROBE_TARGET:-$BIN/tests/uprobe_target}
ST=${SYS_TARGET:-$BIN/tests/sys_target}
if ! ls "$MAN"/*.8 > /dev/null 2>&1; then
	notok "no man pages in $MAN"
	summary
	exit 1
fi
need_programs "$UT" "$ST"
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
case $UT in /*) ;; *) UT=$PWD/$UT ;; esac
case $ST in /*) ;; *) ST=$PWD/$ST ;; esac
start=$(cut -d' ' -f1 /proc/uptime)
read -r _ u0 n0 s0 i0 _ < /proc/stat

# The example commands of a page, one a line, roff's escapes undone (\- \(aq \e); a line
# with any other escape or a quoted argument is printed as "?LINE" (not understood).
examples() {
	sed -n '/^\.SH EXAMPLES/,/^\.SH /p' "$1" |
		awk '/^\.TP/ { tp = 1; next } tp && /^\.B / { sub(/^\.B /, ""); print } { tp = 0 }' |
		sed "s/\\\\-/-/g; s/\\\\(aq/'/g; s/\\\\e/\\\\/g" |
		sed '/\\[^\\]\|"/s/^/?/'
}

# Wrappers: PATH's first folder holds one per tool, which runs it (a tracing tool in the
# background, so that its PID is known), keeping its PID, standard error and exit status in
# $EXDIR. A tool whose synopsis ends in [FILE] reads text (heatmap, flamegraph): it runs in
# the foreground, its standard input the pipe's.
WRAP=$TMP/wrap
mkdir -p "$WRAP"
for page in "$MAN"/*.8; do # the tools: a page each (not the test programs beside them)
	name=${page##*/}
	name=${name%.8}
	t=$BIN/$name
	[ -x "$t" ] || { notok "${page##*/}: no tool $t"; continue; }
	if "$t" -h | sed -n '1,3p' | grep -q '\[FILE\]$'; then
		cat > "$WRAP/$name" << EOF
#!/bin/sh
"$t" "\$@" 2> "\$EXDIR/err.\$\$"
rc=\$?
echo "$name \$rc reader" > "\$EXDIR/status.\$\$"
exit \$rc
EOF
	else
		cat > "$WRAP/$name" << EOF
#!/bin/sh
"$t" "\$@" < /dev/null 2> "\$EXDIR/err.\$\$" &
echo "$name \$!" > "\$EXDIR/pid.\$\$"
wait \$!
rc=\$?
echo "$name \$rc" > "\$EXDIR/status.\$\$"
exit \$rc
EOF
	fi
	chmod +x "$WRAP/$name"
done

sleep 1000 &
SLEEPER=$!
sleep 1000 &
SLEEPER2=$!
DISK=
for d in /sys/block/*; do
	case ${d##*/} in loop* | ram* | zram* | '*') continue ;; esac
	DISK=${d##*/}
	break
done
have_libc() {
	for f in /lib/x86_64-linux-gnu/libc.so.6 /lib64/libc.so.6 /usr/lib64/libc.so.6 \
		/lib/aarch64-linux-gnu/libc.so.6 /lib/libc.so.6; do
		[ -e "$f" ] && return 0
	done
	return 1
}
IOFILE=${LIVE_FILE_DIR:-$PWD}/ftt-examples.$$

# substitute LINE: the line with its placeholders replaced (see the top).
substitute() {
	line=$1
	case $line in *-[pL]\ [0-9]* | *-d\ * | *FILE* | *./app* | *--exec*) ;; *) echo "$line"; return ;; esac
	line=$(echo "$line" | sed -E "s/(^| )-p [0-9]+,[0-9,]+( |\$)/\\1-p $SLEEPER,$SLEEPER2\\2/g
		s/(^| )-([pL]) [0-9]+( |\$)/\\1-\\2 $SLEEPER\\3/g")
	case $line in
	iosnoop* | iolatency*)
		dev=$(echo "$line" | sed -n -E 's/.* -d ([A-Za-z0-9]+)( .*|$)/\1/p')
		if [ -n "$dev" ] && [ ! -e "/sys/block/$dev" ] && [ -n "$DISK" ]; then
			line=$(echo "$line" | sed -E "s/ -d $dev( |\$)/ -d $DISK\\1/")
		fi ;;
	esac
	line=$(echo "$line" | sed -E "s#(^| )FILE( |\$)#\\1$EX/file\\2#g;
		s#\\./app:parse#$UT:ftt_add#g; s#\\./app input#$UT $EX/go#g; s#\\./app#$UT#g")
	cmd=$(echo "$line" | sed -n -E 's/.*--exec ([^ |]+).*/\1/p')
	if [ -n "$cmd" ] && ! command -v "$cmd" > /dev/null 2>&1 && [ ! -x "$cmd" ]; then
		line=$(echo "$line" | sed -E "s#--exec [^|]*#--exec $ST 100 0 #")
	fi
	echo "$line"
}

# missing LINE: what the example needs that is not here, or nothing.
# absent CONFIG_X: the kernel has not the feature, as this test finds it (not as the tool
# says); a feature not in this list counts as present.
absent() {
	case $1 in
	CONFIG_KPROBE_EVENTS) [ ! -e "$T/kprobe_events" ] ;;
	CONFIG_UPROBE_EVENTS) [ ! -e "$T/uprobe_events" ] ;;
	CONFIG_EPROBE_EVENTS) ! grep -q '^[[:space:]]*e\[:' "$T/README" 2> /dev/null ;;
	CONFIG_FTRACE_SYSCALLS) [ ! -d "$T/events/syscalls" ] ;;
	CONFIG_HIST_TRIGGERS) [ ! -e "$T/events/sched/sched_switch/hist" ] ;;
	CONFIG_FUNCTION_TRACER) ! grep -qw function "$T/available_tracers" ;;
	CONFIG_FUNCTION_GRAPH_TRACER) ! grep -qw function_graph "$T/available_tracers" ;;
	CONFIG_FUNCTION_PROFILER) [ ! -e "$T/function_profile_enabled" ] ;;
	CONFIG_USER_STACKTRACE_SUPPORT) [ ! -e "$T/options/userstacktrace" ] ;;
	CONFIG_STACKTRACE) [ ! -e "$T/options/stacktrace" ] ;;
	CONFIG_PERF_EVENTS) [ ! -e /proc/sys/kernel/perf_event_paranoid ] ;;
	CONFIG_BLOCK) [ ! -d "$T/events/block" ] ;;
	*) return 1 ;;
	esac
}
# said_absent ERRFILE: the tool's message names a kernel feature, and the kernel lacks every
# CONFIG_ option it names (the function tracer's files refused: reading them fails here
# too), or an event it names as missing (SYSTEM:EVENT not in tracefs here).
said_absent() {
	local f n=0
	for f in $(grep -Eo 'CONFIG_[A-Z_]+' "$1" | sort -u); do
		absent "$f" || return 1
		n=$((n + 1))
	done
	for f in $(grep -Eo '(^|[ (:])no [a-z_0-9]+:[a-z_0-9]+' "$1" | sed 's/.*no //' | sort -u); do
		[ ! -d "$T/events/${f%%:*}/${f#*:}" ] && n=$((n + 1))
	done
	if grep -q 'refuses' "$1"; then
		! head -c 1 "$T/available_filter_functions" > /dev/null 2>&1 || return 1
		n=$((n + 1))
	fi
	[ $n -gt 0 ]
}
missing() {
	case $1 in *libc:* | *" -l libc"*) have_libc || { echo "no shared C library here"; return; } ;; esac
	case $1 in *bash:*) command -v bash > /dev/null 2>&1 || { echo "no bash here"; return; } ;; esac
	case $1 in gethostlatency* | memleak*) have_libc || { echo "no shared C library here"; return; } ;; esac
	case $1 in sslsniff*) [ -n "$(ls /lib/*/libssl.so.* /usr/lib/*/libssl.so.* /lib*/libssl.so.* \
		/usr/lib*/libssl.so.* /lib/*/libgnutls.so.* /usr/lib/*/libgnutls.so.* 2> /dev/null)" ] ||
		{ echo "no libssl.so or libgnutls.so here"; return; } ;; esac
	case $1 in bashreadline*) [ -x /bin/bash ] || { echo "no /bin/bash here"; return; } ;; esac
	case $1 in */usr/bin/python3*) [ -x /usr/bin/python3 ] || { echo "no /usr/bin/python3 here"; return; } ;; esac
	case $1 in *"go tool pprof"*) command -v go > /dev/null 2>&1 || echo "no go here (golang-go)" ;; esac
}

# The top level as the tools that take it (funcgraph, funccount's profiler, functrace -s on
# kernels whose func_stack_trace is the kernel's) must leave it.
TOPFILES=
for f in current_tracer tracing_on buffer_size_kb trace_clock set_event set_ftrace_filter \
	set_ftrace_pid set_ftrace_notrace_pid set_graph_function set_graph_notrace \
	max_graph_depth function_profile_enabled options/func_stack_trace \
	options/funcgraph-irqs options/sleep-time options/function-fork; do
	[ -e "$T/$f" ] && TOPFILES="$TOPFILES $T/$f"
done
toplevel() { # (one grep for all: a fork per file is felt in the guests)
	# A buffer unused since boot ("7 (expanded: 1408)") has its size once used.
	grep -s -H '' $TOPFILES /var/tmp/.ftrace-lock | sed 's/:[0-9]* (expanded: \([0-9]*\))$/:\1/'
}
# left: what the runs of this example's tools left in tracefs (instances and probes named
# with their PIDs), and how the top level changed.
left() {
	for p in "$EX"/pid.*; do
		[ -e "$p" ] || continue
		read -r name pid < "$p"
		ls "$T/instances" | grep -- "-${pid}_"
		cat "$T"/*_events 2> /dev/null | grep -o "ftt_${pid}_[0-9]*_[0-9a-f]*[^ ]*"
	done
	toplevel > "$TMP/top.after"
	cmp -s "$TMP/top.before" "$TMP/top.after" || diff "$TMP/top.before" "$TMP/top.after" | head -6
}

# ready: every tracing tool that started has said it traces, or has ended; and at least one
# tool has started. Reader tools are not waited for (they end with their input).
ready() {
	n=0
	for p in "$EX"/pid.*; do
		[ -e "$p" ] || continue
		n=$((n + 1))
		w=${p##*.}
		[ -e "$EX/status.$w" ] && continue
		grep -Eq '^(Tracing|Counting)' "$EX/err.$w" 2> /dev/null || return 1
	done
	[ $n -gt 0 ] || [ -n "$(ls "$EX" | grep '^status\.')" ]
}

n_ex=0 left=0
for p in ${EXAMPLE_PAGES:-}; do # (a name with no page would leave its examples unrun, unsaid)
	[ -f "$MAN/$p.8" ] || notok "EXAMPLE_PAGES: no page $p.8 in $MAN"
done
for page in "$MAN"/*.8; do
	# EXAMPLE_PAGES (the guests of make vmcheck): only these pages' examples here.
	if [ -n "${EXAMPLE_PAGES:-}" ] && ! echo " $EXAMPLE_PAGES " | grep -qF " $(basename "$page" .8) "; then
		left=$((left + 1))
		continue
	fi
	examples "$page" > "$TMP/examples"
	if [ ! -s "$TMP/examples" ]; then
		notok "${page##*/}: no examples found (.TP, then .B COMMAND, in EXAMPLES)"
		continue
	fi
	while IFS= read -r raw; do
		n_ex=$((n_ex + 1))
		case $raw in "?"*)
			notok "${page##*/}: an example the test cannot read (a roff escape or quotes): ${raw#?}"
			continue ;;
		esac
		why=$(missing "$raw")
		if [ -n "$why" ]; then
			skip "${page##*/}: $raw ($why)"
			continue
		fi
		EX=$TMP/ex.$n_ex
		mkdir -p "$EX"
		echo "text of the examples test" > "$EX/file"
		touch "$EX/go"
		echo '{"time":"12:00:00","start_s":10.0,"end_s":10.002,"comm":"dd","pid":42,"type":"WS","dev":"254,0","sector":8,"bytes":4096,"lat_ms":2.0,"error":0}' > "$EX/io.json"
		echo '{"time":"12:00:01","start_s":11.0,"end_s":11.004,"comm":"dd","pid":42,"type":"WS","dev":"254,0","sector":16,"bytes":4096,"lat_ms":4.0,"error":0}' >> "$EX/io.json"
		printf 'sh;main;read_[k] 3\nsh;main;write_[k] 1\n' > "$EX/stacks.folded"
		printf 'sh;main;read_[k] 3\nsh;main;write_[k] 1\n' > "$EX/before.folded"
		printf 'sh;main;read_[k] 1\nsh;main;write_[k] 5\n' > "$EX/after.folded"
		line=$(substitute "$raw")
		t0=$(cut -d' ' -f1 /proc/uptime)
		toplevel > "$TMP/top.before"
		( cd "$EX" && EXDIR=$EX PATH=$WRAP:$PATH exec sh -c "$line" ) \
			> "$EX/out" 2> "$EX/sh.err" < /dev/null &
		SH=$!
		i=0
		while ! ready && kill -0 $SH 2> /dev/null && [ $i -lt 1200 ]; do
			sleep 0.05
			i=$((i + 1))
		done
		# A little disk I/O for the block tools to see (iosnoop | heatmap draws it), then
		# the stop.
		case $line in *iosnoop* | *iolatency*)
			dd if=/dev/zero of="$IOFILE" bs=4096 count=4 oflag=direct conv=fsync 2> /dev/null ;;
		esac
		# Some CPU time for the profiler to sample (idle CPUs are left out: stopped at its
		# banner on an idle machine, profile -f had no sample, and flamegraph exited 1 on
		# no stack: CI of 53c04ca, under make check SANITIZE=1).
		case $line in profile*)
			n=0
			while [ $n -lt 100000 ]; do n=$((n + 1)); done ;;
		esac
		for p in "$EX"/pid.*; do
			[ -e "$p" ] && [ ! -e "$EX/status.${p##*.}" ] && read -r name pid < "$p" &&
				kill -INT "$pid" 2> /dev/null
		done
		started=yes
		[ $i -ge 1200 ] && started=no
		wait_exit $SH 30 || RC="killed after 30 s"
		rc=$RC
		bad= feature=
		for s in "$EX"/status.*; do
			[ -e "$s" ] || continue
			read -r name trc rest < "$s"
			[ "$trc" = 0 ] && continue
			err=$EX/err.${s##*.}
			# (a skip only where the test's own look at the kernel finds the feature
			# named missing: a tool that wrongly says CONFIG_X is a failure)
			if [ "$trc" = 1 ] && [ -z "$rest" ] && said_absent "$err"; then
				feature=$(grep -Eo '[^:]*(CONFIG_[A-Z_]+|refuses|Linux [0-9.]+)[^)]*\)?' "$err" | head -1)
			else
				bad="$bad $name exited $trc;"
			fi
		done
		# (what read a tool's output that ended that way may have failed for want of it)
		if [ -n "$feature" ]; then
			skip "${page##*/}: $raw (the kernel lacks it:$feature)"
		elif [ "$started" = yes ] && [ -z "$bad" ] && [ "$rc" = 0 ]; then
			ok "${page##*/}: $raw"
		else
			notok "${page##*/}: $raw (ran as: $line; started: $started;$bad last command: $rc)"
			for e in "$EX"/err.* "$EX/sh.err"; do [ -s "$e" ] && sed 's/^/#   /' "$e" | head -5; done
		fi
		left > "$TMP/left"
		check "${page##*/}: $raw: nothing left in tracefs" [ ! -s "$TMP/left" ] ||
			sed 's/^/#   /' "$TMP/left"
		echo "# $(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.2f", b - a }') s"
		rm -rf "$EX"
	done < "$TMP/examples"
done
rm -f "$IOFILE"
kill $SLEEPER $SLEEPER2 2> /dev/null
wait $SLEEPER $SLEEPER2 2> /dev/null
end=$(cut -d' ' -f1 /proc/uptime)
read -r _ u1 n1 s1 i1 _ < /proc/stat
[ $left -eq 0 ] || skip "the examples of $left pages: left to make check on the host (EXAMPLE_PAGES: $EXAMPLE_PAGES only)"
echo "# $n_ex examples of $(($(ls "$MAN"/*.8 | wc -l) - left)) pages in $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s; CPUs busy $(( (u1 + n1 + s1 - u0 - n0 - s0) * 100 / (u1 + n1 + s1 + i1 - u0 - n0 - s0 - i0 + 1) )) % of it"
summary
