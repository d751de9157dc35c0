#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# What timing interrupts costs: hardirqs and softirqs against bpftrace's equivalent programs
# and against no tracing, on workloads heavy in interrupts; writes bench/IRQS.md. Needs root,
# `make all`, cc, bpftrace, python3 (the report) and GNU time (make bench-deps).
#
# Workloads, each pinned to one CPU (the tracer on another), REPS runs each:
#   loopback  UDP packets to 127.0.0.1, each sent and received by one process: a NET_RX
#             softirq run per packet (and the timers' softirqs)
#   timers    a thread sleeping 50 us at a time: local timer interrupts, which are no
#             irq_handler_entry on x86 (system vectors), and the softirqs they raise
#   disk      4 KiB direct writes to a file: a disk interrupt (and BLOCK softirq) per write
# Per tracer and workload:
#   added ns/run   (traced time - untraced time) / runs of the traced kind (hard interrupt
#                  handlers for hardirqs, softirqs for softirqs) on all CPUs in the
#                  workload's time, from the kernel's counters (/proc/interrupts,
#                  /proc/softirqs)
#   counted        the runs the tracer reported / the kernel's count (all CPUs) from just
#                  before its start to just after its end
#   tracer CPU     user + system seconds of the tracer process (GNU time)
#
# Environment: BENCH_REPS (3), BENCH_CPU (0: the workload; the tracer gets the next CPU),
# BENCH_PACKETS (500000), BENCH_NAPS (20000), BENCH_WRITES (5000), BENCH_IRQS_REPORT
# (bench/IRQS.md), BENCH_ONLY (a regex of scenario names).
set -u
set -m
cd "$(dirname "$0")/.."
B=${B:-build}
REPS=${BENCH_REPS:-3}
WCPU=${BENCH_CPU:-0}
TCPU=$(((WCPU + 1) % $(nproc)))
NPKT=${BENCH_PACKETS:-500000}
NNAP=${BENCH_NAPS:-20000}
NWR=${BENCH_WRITES:-5000}
REPORT=${BENCH_IRQS_REPORT:-bench/IRQS.md}
ONLY=${BENCH_ONLY:-.}
WORK=$(mktemp -d /tmp/ftt-bench-irqs.XXXXXX)
IOFILE=/var/tmp/ftt-bench-irqs.$$

die() { echo "bench-irqs: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root"
for t in "$B/hardirqs" "$B/softirqs"; do [ -x "$t" ] || die "$t missing: make all"; done
for t in cc bpftrace python3 /usr/bin/time taskset; do
	command -v $t > /dev/null || die "$t not found: make bench-deps"
done
[ $(nproc) -ge 2 ] || die "needs 2 CPUs (one for the workload, one for the tracer)"

CUR_TP= SIDE_TP=
cleanup() {
	for p in $CUR_TP $SIDE_TP; do stop_tracer $p; done
	rm -rf "$WORK" "$IOFILE"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE

now_ns() { date +%s%N; }
median() { sort -n | awk '{a[NR] = $1} END {if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2)}'; }

# Ctrl-C to a tracer's process group, again every 5 s, SIGKILL to all of it after 30 s.
# bpftrace 0.17 whose program prints nothing misses a SIGINT that comes while it is not in
# epoll_wait (seen here: it then waits there for ever); a second one ends it.
stop_tracer() {
	CUR_TP=
	local i=0
	while kill -0 $1 2> /dev/null && [ $i -lt 300 ]; do
		[ $((i % 50)) = 0 ] && kill -INT -- -$1 2> /dev/null
		sleep 0.1
		i=$((i + 1))
	done
	if kill -0 $1 2> /dev/null; then
		echo "bench-irqs: tracer $1 ignored SIGINT for 30 s: killed" >&2
		kill -KILL -- -$1 2> /dev/null
	fi
	wait $1 2> /dev/null
}

# The workloads (their elapsed ns in $EL): small C programs built here, so that the
# workload's own user time stays small beside the kernel's work per packet or nap.
cat > "$WORK/loopback.c" << 'EOF'
#include <arpa/inet.h>
#include <stdlib.h>
#include <sys/socket.h>
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	int r = socket(AF_INET, SOCK_DGRAM, 0), s = socket(AF_INET, SOCK_DGRAM, 0);
	char b[16];
	if (r < 0 || s < 0 || bind(r, (struct sockaddr *)&a, len) ||
	    getsockname(r, (struct sockaddr *)&a, &len))
		return 1;
	for (long i = 0; i < n; i++)
		if (sendto(s, "x", 1, 0, (struct sockaddr *)&a, len) != 1 ||
		    recv(r, b, sizeof(b), 0) != 1)
			return 1;
	return 0;
}
EOF
cat > "$WORK/timers.c" << 'EOF'
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv)
{
	struct timespec t = {0, 50000};
	for (long i = argc > 1 ? atol(argv[1]) : 0; i > 0; i--)
		nanosleep(&t, NULL);
	return 0;
}
EOF
for w in loopback timers; do
	cc -O2 -o "$WORK/$w" "$WORK/$w.c" || die "cannot build the $w workload (cc)"
done
# Its CPU time (user + system, ns) in $WCPU_NS: on a busy machine the elapsed time is mostly
# waiting, while a softirq run in the workload's context (loopback) is charged to it, with
# what tracing adds to it.
workload() {
	local t0 u s
	t0=$(now_ns)
	case $1 in
	loopback) set -- "$WORK/loopback" $NPKT ;;
	timers) set -- "$WORK/timers" $NNAP ;;
	disk) set -- dd if=/dev/zero of="$IOFILE" bs=4k count=$NWR oflag=direct ;;
	esac
	taskset -c $WCPU /usr/bin/time -f '%U %S' -o "$WORK/wtime" "$@" 2> /dev/null
	EL=$(($(now_ns) - t0))
	read -r u s < "$WORK/wtime"
	WCPU_NS=$(echo "($u + $s) * 1000000000 / 1" | bc)
}

# The kernel's counts: hard interrupts of numbered IRQs (what irq_handler_entry sees) and
# softirqs, on CPU $1 and on all CPUs: "hard_cpu hard_all soft_cpu soft_all".
counts() {
	awk -v c=$1 'FILENAME == "/proc/interrupts" && FNR == 1 {for (i = 1; i <= NF; i++) if ($i == "CPU" c) col = i + 1; n = NF; next}
	     FILENAME == "/proc/interrupts" && $1 ~ /^[0-9]+:$/ {hc += $col; for (i = 2; i <= n + 1; i++) ha += $i; next}
	     FILENAME == "/proc/softirqs" && FNR == 1 {for (i = 1; i <= NF; i++) if ($i == "CPU" c) scol = i + 1; next}
	     FILENAME == "/proc/softirqs" {sc += $scol; for (i = 2; i <= NF; i++) sa += $i}
	     END {print hc + 0, ha + 0, sc + 0, sa + 0}' /proc/interrupts /proc/softirqs
}

# The tracers: "NAME|KIND|READY|COMMAND|PROGRAM" (KIND: hard or soft, what it times; the
# command's words, then bpftrace's program as one argument).
BT_HARD='tracepoint:irq:irq_handler_entry { @s[cpu] = nsecs; }
tracepoint:irq:irq_handler_exit /@s[cpu]/ {
	@t[args->irq] = sum(nsecs - @s[cpu]); @c[args->irq] = count(); delete(@s[cpu]); }'
BT_SOFT='tracepoint:irq:softirq_entry { @s[cpu] = nsecs; }
tracepoint:irq:softirq_exit /@s[cpu]/ {
	@t[args->vec] = sum(nsecs - @s[cpu]); @c[args->vec] = count(); delete(@s[cpu]); }'
TRACERS=(
	"hardirqs|hard|^Tracing|$B/hardirqs|"
	"hardirqs -C|hard|^Tracing|$B/hardirqs -C|"
	"bpftrace hardirqs|hard|^Attaching|bpftrace -e|$BT_HARD"
	"bpftrace hardirqs -C|hard|^Attaching|bpftrace -e|tracepoint:irq:irq_handler_entry { @c[args->irq] = count(); }"
	"softirqs|soft|^Tracing|$B/softirqs|"
	"softirqs -C|soft|^Tracing|$B/softirqs -C|"
	"softirqs --raise|soft|^Tracing|$B/softirqs --raise|"
	"bpftrace softirqs|soft|^Attaching|bpftrace -e|$BT_SOFT"
	"bpftrace softirqs -C|soft|^Attaching|bpftrace -e|tracepoint:irq:softirq_entry { @c[args->vec] = count(); }"
)

# What a tracer counted, from its output: our TOTAL line's count, or the sum of bpftrace's @c.
counted() {
	case $1 in
	bpftrace*) awk '/^@c\[/ {s += $NF} END {print s + 0}' "$WORK/out" ;;
	*) awk '$1 == "TOTAL" {print $3}' "$WORK/out" ;;
	esac
}

RESULTS=$WORK/results # scenario|tracer|rep|el_ns|runs_cpu runs_all|counted|life_all|cpu_s
: > "$RESULTS"

run() { # SCENARIO TRACER-SPEC REP
	local scen=$1 name kind ready cmd prog rep=$3
	IFS='|' read -r -d '' name kind ready cmd prog <<< "$2"
	prog=${prog%$'\n'}
	rm -f "$WORK/out" "$WORK/err" "$WORK/time"
	local tp= l0 l1
	l0=($(counts $WCPU))
	if [ "$name" != none ]; then
		local args=($cmd)
		[ -n "$prog" ] && args+=("$prog")
		taskset -c $TCPU /usr/bin/time -f '%U %S' -o "$WORK/time" env --default-signal=INT \
			"${args[@]}" > "$WORK/out" 2> "$WORK/err" &
		tp=$!
		CUR_TP=$tp
		local i=0
		while ! grep -Eq "$ready" "$WORK/out" "$WORK/err" 2> /dev/null; do
			sleep 0.05
			i=$((i + 1))
			if [ $i -gt 600 ] || ! kill -0 $tp 2> /dev/null; then
				echo "bench-irqs: $name did not start: $(head -2 "$WORK/err")" >&2
				stop_tracer $tp
				return 1
			fi
		done
		sleep 1 # bpftrace says "Attaching" before it has
	fi
	local c0 c1
	c0=($(counts $WCPU))
	workload $scen
	c1=($(counts $WCPU))
	local d
	if [ "$kind" = hard ]; then d="$((c1[0] - c0[0])) $((c1[1] - c0[1]))"; else d="$((c1[2] - c0[2])) $((c1[3] - c0[3]))"; fi
	local got=- cpu=-
	if [ -n "$tp" ]; then
		sleep 0.5
		stop_tracer $tp
		got=$(counted "$name")
		local u s
		read -r u s < <(tail -1 "$WORK/time")
		cpu=$(echo "$u + $s" | bc)
	fi
	l1=($(counts $WCPU))
	local life=$((l1[3] - l0[3]))
	[ "$kind" = hard ] && life=$((l1[1] - l0[1]))
	echo "$scen|$name|$rep|$EL|$d|${got:--}|$life|$cpu|$WCPU_NS" >> "$RESULTS"
	printf '  %-9s %-22s rep %d: %d ms, runs %s, counted %s of %s\n' "$scen" "$name" "$rep" \
		$((EL / 1000000)) "$d" "${got:--}" "$life" >&2
}

echo "bench-irqs: $REPS runs each, workloads on CPU $WCPU, tracers on CPU $TCPU" >&2
for scen in loopback timers disk; do
	[[ $scen =~ $ONLY ]] || continue
	for rep in $(seq $REPS); do
		run $scen "none|soft||" $rep
		for tr in "${TRACERS[@]}"; do run $scen "$tr" $rep; done
	done
done

# --- side by side ----------------------------------------------------------------------------
# Ours and bpftrace at once on the same events, each counting per kind and CPU (-C
# --per-cpu; bpftrace by vector or IRQ and cpu), around a loopback storm and disk writes,
# with the kernel's counters read before both start (reading 0), once both trace (1), before
# the stop (2) and after both ended (3): each count must lie between the inner and the outer
# increase. Then the same with times: the average per kind from each. Lines in $WORK/side:
# "proc N KIND KEY CPU COUNT" and "TRACER MODE KIND KEY CPU COUNT [TOTAL_US]", where KEY is
# what /proc uses: the softirq's name, the IRQ's number.
SIDE=$WORK/side
: > "$SIDE"
proc_rows() { # KIND MODE N
	if [ $1 = soft ]; then
		awk -v m=$2 -v n=$3 'FNR == 1 {for (i = 1; i <= NF; i++) c[i] = substr($i, 4); next}
		     {k = $1; sub(/:$/, "", k); for (i = 2; i <= NF; i++) print "proc", m, n, "soft", k, c[i - 1], $i}' \
			/proc/softirqs >> "$SIDE"
	else
		awk -v m=$2 -v n=$3 'FNR == 1 {for (i = 1; i <= NF; i++) h[i] = substr($i, 4); nc = NF; next}
		     $1 ~ /^[0-9]+:$/ {k = $1; sub(/:$/, "", k); for (i = 2; i <= nc + 1; i++) print "proc", m, n, "hard", k, h[i - 1], $i}' \
			/proc/interrupts >> "$SIDE"
	fi
}
side() { # KIND (hard, soft) MODE (count, time)
	local kind=$1 mode=$2 ours bt
	if [ $kind = soft ]; then
		ours=("$B/softirqs" --per-cpu)
		bt="tracepoint:irq:softirq_entry { @c[args->vec, cpu] = count(); }"
		[ $mode = time ] && bt="tracepoint:irq:softirq_entry { @s[cpu] = nsecs; }
tracepoint:irq:softirq_exit /@s[cpu]/ { @c[args->vec, cpu] = count(); @t[args->vec, cpu] = sum(nsecs - @s[cpu]); delete(@s[cpu]); }"
	else
		ours=("$B/hardirqs" --per-cpu)
		bt="tracepoint:irq:irq_handler_entry { @c[args->irq, cpu] = count(); }"
		[ $mode = time ] && bt="tracepoint:irq:irq_handler_entry { @s[cpu] = nsecs; }
tracepoint:irq:irq_handler_exit /@s[cpu]/ { @c[args->irq, cpu] = count(); @t[args->irq, cpu] = sum(nsecs - @s[cpu]); delete(@s[cpu]); }"
	fi
	[ $mode = count ] && ours+=(-C)
	proc_rows $kind $mode 0
	env --default-signal=INT "${ours[@]}" > "$WORK/o.out" 2> "$WORK/o.err" &
	local op=$!
	env --default-signal=INT bpftrace -e "$bt" > "$WORK/b.out" 2> "$WORK/b.err" &
	local bp=$!
	SIDE_TP="$op $bp"
	local i=0
	until grep -q '^Tracing' "$WORK/o.err" && grep -q '^Attaching' "$WORK/b.out"; do
		sleep 0.05
		i=$((i + 1))
		[ $i -gt 600 ] && break
	done
	sleep 1
	proc_rows $kind $mode 1
	NPKT=20000 workload loopback
	NWR=500 workload disk
	proc_rows $kind $mode 2
	stop_tracer $op
	stop_tracer $bp
	SIDE_TP=
	proc_rows $kind $mode 3
	awk -v k=$kind -v m=$mode 'NR > 1 && $1 != "TOTAL" {print "ours", m, k, (k == "soft" ? $1 : $2), $3, $4, $5}' \
		"$WORK/o.out" >> "$SIDE"
	# bpftrace's @c[NUM, CPU]: N and @t[NUM, CPU]: NS; a vector is named by its line in
	# /proc/softirqs (they are in vector order)
	awk -v k=$kind -v m=$mode 'FILENAME == "/proc/softirqs" {if (FNR > 1) {n = $1; sub(/:$/, "", n); name[FNR - 2] = n}; next}
	     /^@[ct]\[/ {v = substr($0, 2, 1); gsub(/[@ct\[\],:]/, " "); key = k == "soft" ? name[$1] : $1
		if (v == "c") c[key " " $2] = $3; else t[key " " $2] = $3}
	     END {for (x in c) print "bpftrace", m, k, x, c[x], t[x] / 1000}' /proc/softirqs "$WORK/b.out" >> "$SIDE"
}
if [[ side =~ $ONLY ]]; then
	for kind in soft hard; do
		for mode in count time; do
			side $kind $mode
			echo "  side by side: $kind $mode done" >&2
		done
	done
fi

# --- the report ------------------------------------------------------------------------------
python3 - "$RESULTS" "$REPORT" "$REPS" "$NPKT" "$NNAP" "$NWR" "$SIDE" << 'EOF'
import sys, statistics, datetime, os, platform
res, out, reps, npkt, nnap, nwr, side = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:7]), sys.argv[7]
rows = [l.rstrip("\n").split("|") for l in open(res) if l.strip()]
by = {}
for scen, name, rep, el, d, got, life, cpu, wcpu in rows:
    runs_cpu, kall = map(int, d.split())
    by.setdefault((scen, name), []).append((int(el), runs_cpu, kall, got, cpu, int(life), int(wcpu)))
def med(xs): return statistics.median(xs) if xs else None
lines = ["<!-- SPDX-License-Identifier: GPL-2.0-only -->",
         "# Interrupt tools: what timing interrupts costs", "",
         f"Written by bench/bench-irqs.sh on {datetime.date.today()} ({platform.release()}, "
         f"{os.cpu_count()} CPUs), {reps} runs each, the medians; the workload pinned to one "
         "CPU, the tracer to the other.", "",
         f"Workloads: loopback, {npkt} UDP packets sent and received on 127.0.0.1 (a NET_RX "
         f"softirq run each); timers, {nnap} sleeps of 50 us (local timer interrupts, no "
         f"irq_handler_entry on x86); disk, {nwr} direct 4 KiB writes (a disk interrupt and a "
         "BLOCK softirq each).", "",
         "added ns/run (time): (traced - untraced elapsed time) / the runs of the kind the tracer times "
         "(handler runs for hardirqs, softirq runs for softirqs) on all CPUs during the workload; "
         "(CPU): (traced - untraced CPU time of the workload) / those runs on the workload's CPU "
         "(a softirq run in the workload's context is charged to it; a hard interrupt to whatever "
         "it interrupted, so this column is for the loopback); \"-\" where fewer than 1,000 runs "
         "were made (the tracer's events hardly fire: its cost there is in the time columns); "
         "from /proc/interrupts and /proc/softirqs. counted: what the tracer reported over "
         "the kernel's count on all CPUs from just before the tracer started to just after "
         "it ended (it cannot be 100 %: the tracer starts and stops inside that window; "
         "the live tests check the counts exactly). tracer CPU: "
         "the tracer process's user + system seconds.", ""]
for scen in ("loopback", "timers", "disk"):
    base = [r[0] for r in by.get((scen, "none"), [])]
    if not base:
        continue
    b = med(base)
    bc = med([r[6] for r in by[(scen, "none")]])
    lines += [f"## {scen}", "", f"Untraced: {b / 1e6:.0f} ms, {bc / 1e6:.0f} ms of CPU.", "",
              "| tracer | time (ms) | CPU (ms) | runs (its CPU / all) | added ns/run (time) | added ns/run (CPU) | counted | tracer CPU (s) |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for (s, name), rs in by.items():
        if s != scen or name == "none":
            continue
        el = med([r[0] for r in rs]); runs = med([r[1] for r in rs]); kall = med([r[2] for r in rs])
        got = [int(r[3]) for r in rs if r[3].isdigit()]
        cpu = [float(r[4]) for r in rs if r[4] not in ("-", "")]
        # per run only where there are enough runs to carry the difference
        added = f"{(el - b) / kall:.0f}" if kall >= 1000 else "-"
        wc = med([r[6] for r in rs])
        added_cpu = f"{(wc - bc) / runs:.0f}" if runs >= 1000 else "-"
        pct = [100 * int(r[3]) / r[5] for r in rs if r[3].isdigit() and r[5] > 0]
        cnt = f"{min(pct):.1f}-{max(pct):.1f} %" if pct else "-"
        tcpu = f"{med(cpu):.2f}" if cpu else "-"
        lines.append(f"| {name} | {el / 1e6:.0f} | {wc / 1e6:.0f} | {runs:.0f} / {kall:.0f} | {added} | {added_cpu} | {cnt} | {tcpu} |")
    lines.append("")

# Side by side: each count against the kernel's, per kind and CPU.
proc, tr = {}, {}
for l in open(side):
    f = l.split()
    if f[0] == "proc":
        mode, n, kind, key, cpu, v = f[1:]
        proc.setdefault((mode, kind, key, cpu), {})[int(n)] = int(v)
    else:
        who, mode, kind, key, cpu, c = f[:6]
        t = float(f[6]) if len(f) > 6 and f[6] not in ("", "-") else 0.0
        tr[(who, mode, kind, key, cpu)] = (int(c), t)
for kind, title in (("soft", "softirqs"), ("hard", "hardirqs")):
    for mode in ("count", "time"):
        keys = sorted(k for k, v in proc.items() if k[0] == mode and k[1] == kind and len(v) == 4 and v[3] > v[0])
        if not keys:
            continue
        ours_t = "-C --per-cpu" if mode == "count" else "--per-cpu"
        lines += [f"## Side by side: {title} {ours_t} and bpftrace, at once", "",
                  "Each count against the kernel's increase over the same time: inner (from once both "
                  "traced to before the stop) and outer (from before both started to after both ended); "
                  "a count outside is a loss or an error." +
                  (" Times: the average run, microseconds." if mode == "time" else ""), "",
                  "| kind | CPU | kernel inner..outer | ours | bpftrace |" + (" ours avg (us) | bpftrace avg (us) |" if mode == "time" else ""),
                  "| --- | ---: | ---: | ---: | ---: |" + (" ---: | ---: |" if mode == "time" else "")]
        bad = {"ours": 0, "bpftrace": 0}
        for k in keys:
            _, _, key, cpu = k
            v = proc[k]
            lo, hi = v[2] - v[1], v[3] - v[0]
            row = f"| {key} | {cpu} | {lo}..{hi} |"
            avgs = []
            for who in ("ours", "bpftrace"):
                c, t = tr.get((who, mode, kind, key, cpu), (0, 0.0))
                ok = lo <= c <= hi if mode == "count" else c <= hi
                bad[who] += not ok
                row += f" {c}{'' if ok else ' (outside)'} |"
                avgs.append(f"{t / c:.3f}" if c else "-")
            if mode == "time":
                row += f" {avgs[0]} | {avgs[1]} |"
            lines.append(row)
        lines += ["", f"Outside the kernel's bounds: ours {bad['ours']}, bpftrace {bad['bpftrace']}"
                  + (" (times: a count at most the outer increase; runs under way at a start or stop are not timed)" if mode == "time" else "") + ".", ""]
open(out, "w").write("\n".join(lines))
print(f"bench-irqs: wrote {out}", file=sys.stderr)
EOF
