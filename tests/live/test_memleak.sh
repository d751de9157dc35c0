#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of memleak: the test program leaks 7 blocks of 1000 bytes from the bottom of a
# chain of 10 functions (deeper than ftrace's 8-frame user stacks), 3000 bytes by calloc and
# 2000 by realloc from two others, 2 x 4321 bytes from a thread (made before -p attaches),
# a block through each other allocator from a function of its own (2 x 1111 posix_memalign,
# 2560 aligned_alloc, 1280 memalign, 5000 valloc, 6000 pvalloc, 300000 malloc that glibc
# maps), and 3 anonymous mappings left of two partly unmapped (12288 bytes in 2 from one
# call, 8192 from the other), and frees all that churn() makes through every allocator and
# mmap (in parts too) and the 50 blocks the thread hands to the main thread: memleak shows
# exactly those 12 stacks, 358184 bytes in 21 allocations, the frames named, nothing of
# churn() nor of the handed blocks nor of its file mapping; --exec and -p, -z, -j with -a; a
# report while the process lives, with --older; -s sampling; the same count as bpftrace's
# uprobes on malloc/free; the kernel's allocations (no -p) of pipes held and closed; bad
# input and every run leave tracefs as they found it. -Z 1000000 leaves out the thread's
# stack (8 MiB, mapped by pthread_create).
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

for args in "-p 1 --older x|MS" "-p 1 -z 5 -Z 4|-Z 4" "-p 1 --top 0|N" "-p 1 -s 0|N" \
	"-p x|PID" "-p 1 1 2 3|unexpected"; do
	eval "\"\$BIN/memleak\" ${args%|*}" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "memleak ${args%|*}: exit 2, one line '${args#*|}'" sh -c \
		"[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q -- '${args#*|}' '$TMP/err'"
done
check "memleak's bad input changed nothing in tracefs" same_state

# The kernel's (no -p): a program grows 20 pipes to 64 buffers and closes them, then 20
# more that it holds: the kernel's arrays of 64 pipe_buffers (2560 bytes asked; SLUB and
# SLAB give 4096, SLOB (the 4.19 guest) 2568) kmalloc'ed under pipe_fcntl are exactly the
# 20 held, 20 times one size, none of the closed. (SLOB's own pages under pipe_fcntl are
# pages, their first frame the page allocator's.)
need_program KT kleak_target
rm -f "$TMP/ready" "$TMP/done"
if start_bg "$BIN/memleak" -z 2560 -Z 4096 --older 0 --top 100000; then
	"$KT" 20 20 "$TMP/ready" "$TMP/done" &
	P=$!
	i=0
	while [ ! -e "$TMP/ready" ] && [ $i -lt 100 ] && kill -0 $P 2> /dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -INT $BGPID
	wait_exit $BGPID 10
	touch "$TMP/done"
	wait $P
	check "memleak (the kernel's): exit 0, the 20 arrays of the pipes held, under pipe_fcntl" sh -c "
		[ $RC -eq 0 ] && awk '
		/ bytes in .* from kernel stack\$/ { b = \$1; n = \$4; first = 1; next }
		first { k = /kmalloc/; first = 0 }
		/^\t\tpipe_fcntl\+0x/ && k { bytes += b; allocs += n }
		END { exit !(allocs == 20 && bytes % 20 == 0 && bytes / 20 >= 2560 &&
			bytes / 20 <= 4096) }' '$TMP/out'" ||
		{ grep -B4 pipe_fcntl "$TMP/out" | sed 's/^/#   /'; sed 's/^/#   /' "$TMP/err"; }
fi
touch "$TMP/done"

if [ ! -e "$T/uprobe_events" ]; then
	skip "memleak: no uprobes in this kernel (CONFIG_UPROBE_EVENTS)"
	summary; exit $?
fi
LT=$BIN/tests/leak_target
if [ ! -x "$LT" ]; then
	# The guests have only static programs, whose allocations are not libc.so's.
	skip "memleak: no dynamic test program $LT (the guests' are static: no libc.so to probe)"
	summary; exit $?
fi

# The 3 stacks as text must show them: the count line, then the target's own frames.
cat > "$TMP/want" << 'EOF2'
300000 bytes in 1 allocations from stack
leak_big main
12288 bytes in 2 allocations from stack
leak_mmap main
8642 bytes in 2 allocations from stack
thread_leak worker
8192 bytes in 1 allocations from stack
leak_mmap main
7000 bytes in 7 allocations from stack
deep_leak deep9 deep8 deep7 deep6 deep5 deep4 deep3 deep2 deep1 main
6000 bytes in 1 allocations from stack
leak_pvalloc main
5000 bytes in 1 allocations from stack
leak_valloc main
3000 bytes in 1 allocations from stack
leak_calloc main
2560 bytes in 1 allocations from stack
leak_aligned main
2222 bytes in 2 allocations from stack
leak_posix_memalign main
2000 bytes in 1 allocations from stack
leak_realloc main
1280 bytes in 1 allocations from stack
leak_memalign main
Outstanding: 358184 bytes in 21 allocations from 12 stacks
EOF2
# stacks FILE: each stack's line and its frames of leak_target, by name, on one line.
stacks() {
	awk '
	/ bytes in .* from stack/ { if (f != "") print f; f = ""; sub(/^\t/, ""); sub(/ \(PID.*/, ""); print; next }
	/^\t\t/ && /leak_target\)$/ { n = $1; sub(/\+0x.*/, "", n); f = f (f == "" ? "" : " ") n; next }
	/^Outstanding:/ { if (f != "") print f; f = ""; sub(/ \(older.*/, ""); print }
	' "$1"
}

# -z 500: the C library's own blocks (272 bytes from ld.so for the thread's TLS, made before
# -p attaches) are outstanding too; every block of the test is 555 bytes or more.
ML="$BIN/memleak -z 500 -Z 1000000 --top 20"
$ML --exec "$LT" > "$TMP/out" 2> "$TMP/err"
rc=$?
stacks "$TMP/out" > "$TMP/got"
check "memleak --exec: exit 0, exactly the 12 leaking stacks, 358184 bytes in 21 blocks, frames named" \
	sh -c "[ $rc -eq 0 ] && cmp -s '$TMP/want' '$TMP/got'" ||
	{ diff "$TMP/want" "$TMP/got" | sed 's/^/#   /'; sed 's/^/#   /' "$TMP/err"; }
check "memleak --exec: nothing of the freed blocks (churn, the handed ones), no losses said" \
	sh -c "! grep -Eq 'churn|free_handed' '$TMP/out' && [ \$(wc -l < '$TMP/err') -eq 1 ]"

"$BIN/memleak" -z 1500 -Z 4000 -j -a --exec "$LT" > "$TMP/out" 2> "$TMP/err"
rc=$?
need_program JC jsoncheck
check "memleak -z 1500 -Z 4000 -j -a: the 3000, 2560 and 2000 byte stacks only, as JSON with their blocks" sh -c "
	[ $rc -eq 0 ] && [ \$(wc -l < '$TMP/out') -eq 3 ] &&
	'$JC' '$TMP/out' time pid bytes allocs stack blocks &&
	head -1 '$TMP/out' | grep -q '\"bytes\":3000,\"allocs\":1,\"stack\":\[\"leak_calloc+' &&
	head -1 '$TMP/out' | grep -q '\"blocks\":\[{\"addr\":\"0x[0-9a-f]*\",\"size\":3000,\"age_ms\":[0-9]*}\]}\$' &&
	sed -n 2p '$TMP/out' | grep -q '\"bytes\":2560,\"allocs\":1,\"stack\":\[\"leak_aligned+' &&
	tail -1 '$TMP/out' | grep -q '\"bytes\":2000,\"allocs\":1,\"stack\":\[\"leak_realloc+'"

# -s 2: the 7 blocks of 1000 bytes (the test's only ones of that size) kept 1 in 2, the
# 1st, 3rd, 5th and 7th: 4 kept, counted twice each, and said.
"$BIN/memleak" -s 2 -z 1000 -Z 1000 --exec "$LT" > "$TMP/out" 2> "$TMP/err"
rc=$?
check "memleak -s 2: 4 of the 7 blocks kept, counted as 8000 bytes in 8, said" sh -c "
	[ $rc -eq 0 ] && [ \$(grep -c 'from stack' '$TMP/out') -eq 1 ] &&
	grep -q '^	8000 bytes in 8 allocations from stack' '$TMP/out' &&
	grep -qx 'Outstanding: 8000 bytes in 8 allocations from 1 stacks (older than 0 ms; one allocation in 2 kept, counts x 2)' '$TMP/out'" ||
	sed 's/^/#   /' "$TMP/out"

# -p: that process's blocks only, not those of another run of the program meanwhile.
# Beside it bpftrace, its own uprobes on the same C library's malloc and free (the path
# from memleak -v) on the same run: the malloc blocks of 900 to 1100 bytes not freed (the
# test's are all deep_leak's 7 of 1000) are those of memleak's stack of deep_leak.
rm -f "$TMP/go"
"$LT" "$TMP/go" &
P=$!
BT=
if command -v bpftrace > /dev/null 2>&1; then
	LIBC=$("$BIN/memleak" -v -p 1 | sed -n 's/^uprobes on \(.*\): malloc .*/\1/p')
	bpftrace -e "
		uprobe:$LIBC:malloc /pid == $P/ { @size[tid] = arg0; }
		uretprobe:$LIBC:malloc /pid == $P && @size[tid]/ {
			if (@size[tid] >= 900 && @size[tid] <= 1100 && retval) {
				@out[retval] = @size[tid]; @n++; @bytes += @size[tid]; }
			delete(@size[tid]); }
		uprobe:$LIBC:free /pid == $P && @out[arg0]/ {
			@n--; @bytes -= @out[arg0]; delete(@out[arg0]); }
		tracepoint:sched:sched_process_exit /pid == $P && tid == $P/ { exit(); }
		END { printf(\"bpftrace: %d bytes in %d\\n\", @bytes, @n);
			clear(@out); clear(@size); clear(@n); clear(@bytes); clear(@ready); }
		$BT_READY" \
		> "$TMP/bt.out" 2> "$TMP/bt.err" &
	BT=$!
	wait_line "$TMP/bt.out" '^ready' 30 || { notok "bpftrace starts" "$TMP/bt.err"; BT=; }
else
	skip "memleak beside bpftrace: no bpftrace"
fi
if start_bg $ML -a -p $P; then
	"$LT"
	touch "$TMP/go"
	wait_exit $BGPID 10
	stacks "$TMP/out" > "$TMP/got"
	check "memleak -p: ends with its process, exit 0, its 12 stacks only" \
		sh -c "[ $RC -eq 0 ] && cmp -s '$TMP/want' '$TMP/got' &&
			! grep 'from stack' '$TMP/out' | grep -v '(PID $P)\$'" ||
		{ diff "$TMP/want" "$TMP/got" | sed 's/^/#   /'; sed 's/^/#   /' "$TMP/err"; }
	check "memleak -a: each of the 21 blocks under its stack, 358184 bytes, oldest first" awk '
		/ bytes in .* from stack/ { last = -1 }
		/^\t\taddr = 0x[0-9a-f]+ size = [0-9]+ age = [0-9]+ ms$/ {
			n++; sum += $6; if (last >= 0 && $9 > last) bad = 1; last = $9 }
		END { exit !(n == 21 && sum == 358184 && !bad) }' "$TMP/out"
	if [ -n "$BT" ] && wait_exit $BT 10; then
		bt=$(sed -n 's/^bpftrace: //p' "$TMP/bt.out")
		check "memleak -p beside bpftrace's uprobes on malloc/free: the same 7000 bytes in 7" \
			sh -c "[ '$bt' = '7000 bytes in 7' ] &&
				grep -q '^	$bt allocations from stack' '$TMP/out' &&
				grep -A1 '^	$bt allocations from stack' '$TMP/out' | grep -q deep_leak" ||
			sed 's/^/#   /' "$TMP/bt.out"
	fi
fi
touch "$TMP/go"
kill $P $BT 2> /dev/null
wait $P $BT 2> /dev/null

# A report while the process lives, after 1 s: every block with --older 0, none of them with
# --older 5000 (all younger); the count of 1 ends the run, not the process. The program
# leaks one more block here, 3333 bytes by posix_memalign into a global: its address is not
# on the caller's stack and is read from the living process, counted, said.
for older in 0 5000; do
	rm -f "$TMP/go" "$TMP/done"
	"$LT" "$TMP/go" "$TMP/done" &
	P=$!
	if start_bg $ML --older $older -p $P 1 1; then
		touch "$TMP/go"
		wait_exit $BGPID 10
		if [ $older = 0 ]; then
			want='Outstanding: 361517 bytes in 22 allocations from 13 stacks (older than 0 ms)'
		else
			want='Outstanding: 0 bytes in 0 allocations from 0 stacks (older than 5000 ms)'
		fi
		check "memleak --older $older -p PID 1 1: one report while it lives, exit 0" sh -c "
			[ $RC -eq 0 ] && kill -0 $P && [ \$(grep -c '^Outstanding' '$TMP/out') -eq 1 ] &&
			grep -qx '$want' '$TMP/out'" || sed 's/^/#   /' "$TMP/out"
		if [ $older = 0 ]; then
			check "memleak -p: posix_memalign's address in a global read from the process, its stack shown, said" sh -c "
				grep -A1 '^	3333 bytes in 1 allocations from stack' '$TMP/out' | grep -q leak_posix_memalign_global &&
				grep -qx 'memleak: 1 posix_memalign results read from the process after the call (not on the caller.s stack): they may have changed since' '$TMP/err'" ||
				sed 's/^/#   /' "$TMP/err"
		fi
	fi
	touch "$TMP/done"
	wait $P 2> /dev/null
done
# A static program maps no libc.so: said, not a silent empty report.
need_program ST sched_target
rm -f "$TMP/go"
"$ST" "$TMP/go" nap 1 1 > /dev/null &
P=$!
"$BIN/memleak" -p $P -d 0.1 > "$TMP/out" 2> "$TMP/err"
rc=$?
check "memleak -p of a static program: exit 0, the warning that it maps no C library" sh -c "
	[ $rc -eq 0 ] && grep -q '^memleak: WARNING: process $P does not map .*libc' '$TMP/err'" ||
	sed 's/^/#   /' "$TMP/err"
touch "$TMP/go"
wait $P
check "memleak: tracefs as before after every run" same_state

summary
