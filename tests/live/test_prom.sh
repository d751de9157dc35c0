#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Live tests of --prom FILE (Prometheus' text format for node_exporter's textfile collector):
# each tool run with both -j and --prom, the file checked by promtool (Debian's prometheus)
# and read by a real node_exporter started on loopback, its series equal to what the same
# run printed; the file whole or absent (FILE.tmp renamed), an unwritable folder said at the
# start, a full disk said once while the counting goes on. And -j --tag host,kernel, whose
# members end every object.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live
save_state

PROMTOOL=$(command -v promtool)
EXPORTER=$(command -v prometheus-node-exporter)
if [ -z "$PROMTOOL" ] || [ -z "$EXPORTER" ] || ! command -v python3 > /dev/null; then
	skip "prom: promtool or prometheus-node-exporter or python3 missing (Debian's prometheus, prometheus-node-exporter: make check-deps)"
	summary
	exit 0
fi

D=$TMP/textfile
mkdir -p "$D"
chmod 755 "$TMP" "$D"
EXPID=
MNT=
finish() {
	[ -n "$EXPID" ] && kill "$EXPID" 2> /dev/null && wait "$EXPID" 2> /dev/null
	[ -n "$MNT" ] && umount "$MNT" 2> /dev/null
	EXPID= MNT=
}
trap 'finish' EXIT
trap 'finish; exit 1' INT TERM HUP

# promcmp.py SOURCE JSON METRIC KEYS VALUE [SCALE [RES [SLACK]]]: the series METRIC of SOURCE
# (a file or an http:// URL) are exactly the rows of the -j output JSON: labels from the JSON members KEYS
# (comma-separated, "" for none; KEY? where the member may be null, its label then ""), the value the sum over the intervals of member VALUE, times
# SCALE (1e-6: microseconds to seconds). VALUE "hist": the buckets of histogram METRIC from the
# JSON's log2 slots ("hist"), cumulative. VALUE a*b: the product of members a and b, each
# row's rounding allowed SLACK (in VALUE's unit) per I/O counted.
cat > "$TMP/promcmp.py" <<'PY'
import json, re, sys, urllib.request
src, jfile, metric, keys, value = sys.argv[1:6]
scale = float(sys.argv[6]) if len(sys.argv) > 6 else 1.0
res = float(sys.argv[7]) if len(sys.argv) > 7 else 1e-9 # what the tool measured in
slack = float(sys.argv[8]) if len(sys.argv) > 8 else 0.0
tol = {}
# KEY?: a member that may be null, its label then "" (the format's absent label); a row
# without the member (another table's) is not one of the series
keys = [k for k in keys.split(",") if k]
nullable = set(k[:-1] for k in keys if k.endswith("?"))
keys = [k.rstrip("?") for k in keys]
def lv(o, k):
    return "" if o.get(k) is None else str(o[k])
text = (urllib.request.urlopen(src, timeout=5).read().decode() if src.startswith("http://")
        else open(src).read())
lab = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
def unesc(v):
    return re.sub(r'\\(.)', lambda m: "\n" if m.group(1) == "n" else m.group(1), v)
got = {}
for line in text.splitlines():
    if line.startswith("#") or not line.strip():
        continue
    m = re.match(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$', line)
    if not m:
        sys.exit("not a sample: " + line)
    if m.group(1) != (metric + "_bucket" if value == "hist" else metric):
        continue
    labels = dict((k, unesc(v)) for k, v in lab.findall(m.group(3) or ""))
    # node_exporter serves every file of its folder: other runs' series have other labels.
    if src.startswith("http://") and set(labels) - {"le"} != set(keys):
        continue
    got[tuple(sorted(labels.items()))] = float(m.group(4))
want = {}
# A TOTAL line (its name null) is no series.
def flat(o): # -k's keys (tpoint) as members, by their label names (field.pid: field_pid)
    o.update({re.sub(r"[^a-zA-Z0-9_]", "_", k): v for k, v in o.get("keys", {}).items()})
    return o
rows = [o for o in map(flat, map(json.loads, open(jfile)))
        if all(k in o if k in nullable else o.get(k) is not None for k in keys)]
if value == "hist":
    # METRIC_bucket: each le the count of the printed slots [low, high) whose values (whole
    # nanoseconds) are all <= le, summed over the intervals; +Inf all of them.
    slots, les = {}, {}
    for o in rows:
        if "hist" not in o:
            continue
        k = tuple(sorted((key, lv(o, key)) for key in keys))
        for b in o["hist"]:
            # whole nanoseconds (RES) in slots of SCALE seconds: le = high * SCALE less 1 ns
            slots.setdefault(k, []).append((b["high"] * scale - res if b["low"] is not None else -1, b["count"]))
    for lk in got:
        d = dict(lk)
        le = d.pop("le")
        les.setdefault(tuple(sorted(d.items())), []).append(le)
    for k, sl in slots.items():
        for le in les.get(k, []) + ["+Inf"]:
            lim = float("inf") if le == "+Inf" else float(le)
            want[tuple(sorted(k + (("le", le),)))] = sum(c for h, c in sl if h <= lim * (1 + 1e-12))
        # every slot printed is under a finite le of its own (but the last, 2^63 and up)
        for h, c in sl:
            if not any(abs(float(le) - h) <= 1e-15 + 1e-12 * h for le in les.get(k, [])):
                print("# %s: no bucket le=%s" % (k, h))
                sys.exit(1)
else:
    # VALUE a*b: the product of two members (biotop's avg_ms * count), rounded as printed:
    # each row then may be off by half its last decimal (SLACK, in VALUE's unit) per count.
    vals = value.split("*")
    for o in rows:
        if any(v not in o for v in vals):
            continue
        k = tuple(sorted((key, lv(o, key)) for key in keys))
        x = 1.0
        for v in vals:
            x *= o[v]
        want[k] = want.get(k, 0) + x * scale
        if slack:
            tol[k] = tol.get(k, 0) + slack * o["count"] * scale
if not want:
    sys.exit("no rows in " + jfile)
bad = [(k, want.get(k), got.get(k)) for k in set(want) | set(got)
       if k not in got or k not in want or
       abs(got[k] - want[k]) > tol.get(k, 0) + 1e-9 * max(1, abs(want[k]))]
for b in bad[:5]:
    print("# %s: printed %s, in %s: %s" % (b[0], b[1], src, b[2]))
print("# %d series equal" % len(want))
sys.exit(1 if bad else 0)
PY
promcmp() { $PYTHON3 "$TMP/promcmp.py" "$@"; }
promtool_ok() { "$PROMTOOL" check metrics < "$1" > "$TMP/lint" 2>&1; }

# --- syscount -----------------------------------------------------------------------------------
S=$BIN/syscount
"$S" -j --top 0 --prom "$D/syscount.prom" -d 1 > "$TMP/sj" 2> "$TMP/err"
rc=$?
check "syscount -j --prom: exit 0, the file made, no .tmp left" sh -c "
	[ $rc -eq 0 ] && [ -s '$D/syscount.prom' ] && [ ! -e '$D/syscount.prom.tmp' ]"
check "syscount --prom: promtool check metrics passes" promtool_ok "$D/syscount.prom" || cat "$TMP/lint"
check "syscount --prom: every call's counter equals its -j count" \
	promcmp "$D/syscount.prom" "$TMP/sj" ftrace_tools_syscount_calls_total syscall count
# Intervals: the counters go on from the start, the sum of what the intervals printed.
"$S" -j -L -P --top 0 --prom "$D/syscount-pl.prom" 0.3 3 > "$TMP/spj" 2> "$TMP/err"
check "syscount -P -L 0.3 3 --prom: the calls' counters are the sums of the intervals" \
	promcmp "$D/syscount-pl.prom" "$TMP/spj" ftrace_tools_syscount_calls_total pid,comm count
check "syscount -P -L 0.3 3 --prom: the seconds' counters are the sums of the intervals" \
	promcmp "$D/syscount-pl.prom" "$TMP/spj" ftrace_tools_syscount_call_seconds_total pid,comm total_us 1e-6
check "syscount -P -L --prom: promtool check metrics passes" promtool_ok "$D/syscount-pl.prom" || cat "$TMP/lint"

# --- runqlat, cpudist: histograms ---------------------------------------------------------------
hist_checks() { # NAME FILE JSON METRIC KEYS SCALE: _sum from the JSON's sum (in the unit), or total_us
	check "$1 --prom: promtool check metrics passes" promtool_ok "$2" || cat "$TMP/lint"
	check "$1 --prom: the buckets are the printed slots, cumulative, in seconds" \
		promcmp "$2" "$3" "$4" "$5" hist "$6"
	check "$1 --prom: _count and _sum as printed" sh -c "
		$PYTHON3 '$TMP/promcmp.py' '$2' '$3' '$4'_count '$5' count &&
		if grep -q '\"total_us\"' '$3'; then
			$PYTHON3 '$TMP/promcmp.py' '$2' '$3' '$4'_sum '$5' total_us 1e-6
		else
			$PYTHON3 '$TMP/promcmp.py' '$2' '$3' '$4'_sum '$5' sum $6
		fi"
}
# tcpretrans -c beside it (no time of its own): a listener's full queue refuses a SYN, which
# is sent again a second later (tcp_target backlog, as in test_tcp)
TCPT=${TCP_TARGET:-$BIN/tests/tcp_target}
PBL=$($PYTHON3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
rm -f "$TMP/go" "$TMP/trerr"
"$TCPT" "$TMP/go" backlog $PBL 1400 > "$TMP/bl" 2>&1 &
TTPID=$!
"$BIN/tcpretrans" -c -j --prom "$D/tcpretrans.prom" > "$TMP/trj" 2> "$TMP/trerr" &
TRPID=$!
wait_ready $TRPID "$TMP/trerr"
trready=$?
touch "$TMP/go"
"$BIN/runqlat" -j --prom "$D/runqlat.prom" 0.3 3 > "$TMP/rj" 2> "$TMP/err"
check "runqlat -j --prom 0.3 3: exit 0" [ $? -eq 0 ]
wait $TTPID
kill -INT $TRPID 2> /dev/null
wait_exit $TRPID 10
if [ $trready -ne 0 ]; then
	skip "tcpretrans -c --prom: $(tail -1 "$TMP/trerr" | sed 's/^tcpretrans: //')"
else
	check "tcpretrans -c -j --prom: exit 0, promtool check metrics passes" sh -c "
		[ $RC -eq 0 ] && '$PROMTOOL' check metrics < '$D/tcpretrans.prom'" || cat "$TMP/trerr" "$TMP/lint"
	check "tcpretrans -c --prom: a counter per printed flow, its count; the refused SYN's once" sh -c "
		$PYTHON3 '$TMP/promcmp.py' '$D/tcpretrans.prom' '$TMP/trj' ftrace_tools_tcpretrans_retransmits_total ip,laddr,lport,raddr,rport count &&
		grep -q 'raddr=\"127.0.0.1\",rport=\"$PBL\"} 1\$' '$D/tcpretrans.prom'" || cat "$D/tcpretrans.prom"
fi
hist_checks "runqlat 0.3 3" "$D/runqlat.prom" "$TMP/rj" ftrace_tools_runqlat_wait_seconds "" 1e-6
# profile beside it (no time of its own): samples by task name, the run's own tasks among them
"$BIN/profile" -j -F 199 --prom "$D/profile.prom" -d 1 > "$TMP/prj" 2> "$TMP/prerr" &
PRPID=$!
"$BIN/runqlat" -j -P --prom "$D/runqlat-p.prom" -d 1 > "$TMP/rpj" 2> "$TMP/err"
wait $PRPID
prrc=$?
hist_checks "runqlat -P" "$D/runqlat-p.prom" "$TMP/rpj" ftrace_tools_runqlat_wait_seconds pid,comm 1e-6
if [ $prrc -ne 0 ] && grep -q CONFIG_ "$TMP/prerr"; then
	skip "profile --prom: $(tail -1 "$TMP/prerr" | sed 's/^profile: //')"
else
	check "profile -j -d 1 --prom: exit 0, promtool check metrics passes" sh -c "
		[ $prrc -eq 0 ] && '$PROMTOOL' check metrics < '$D/profile.prom'" || cat "$TMP/prerr" "$TMP/lint"
	check "profile --prom: samples_total by comm the sums of the printed stacks' samples" \
		promcmp "$D/profile.prom" "$TMP/prj" ftrace_tools_profile_samples_total comm samples
fi
"$BIN/cpudist" -j -m -k comm --prom "$D/cpudist.prom" -d 1 > "$TMP/cj" 2> "$TMP/err"
hist_checks "cpudist -m -k comm" "$D/cpudist.prom" "$TMP/cj" ftrace_tools_cpudist_oncpu_seconds comm 1e-3

# --- softirqs, hardirqs: counters by name and number (and CPU), or histograms -------------------
work() { # timers, loopback packets, disk writes: softirqs and interrupts of every kind
	i=0
	while [ $i -lt 5 ]; do
		dd if=/dev/zero of="$TMP/w" bs=4096 count=16 conv=fsync 2> /dev/null
		sleep 0.1
		i=$((i + 1))
	done
}
work &
"$BIN/softirqs" -j --prom "$D/softirqs.prom" 0.3 3 > "$TMP/qj" 2> "$TMP/err"
wait
check "softirqs --prom: promtool check metrics passes" promtool_ok "$D/softirqs.prom" || cat "$TMP/lint"
check "softirqs 0.3 3 --prom: runs_total the sums of the printed counts" \
	promcmp "$D/softirqs.prom" "$TMP/qj" ftrace_tools_softirqs_runs_total name,vec count
check "softirqs 0.3 3 --prom: run_seconds_total the sums of the printed times" \
	promcmp "$D/softirqs.prom" "$TMP/qj" ftrace_tools_softirqs_run_seconds_total name,vec total_us 1e-6
work &
"$BIN/softirqs" -j -C --per-cpu --prom "$D/softirqs-c.prom" -d 1 > "$TMP/qcj" 2> "$TMP/err"
wait
check "softirqs -C --per-cpu --prom: runs_total by name, vec and cpu as printed" \
	promcmp "$D/softirqs-c.prom" "$TMP/qcj" ftrace_tools_softirqs_runs_total name,vec,cpu count
check "softirqs -C --prom: promtool check metrics passes, no seconds" sh -c "
	'$PROMTOOL' check metrics < '$D/softirqs-c.prom' && ! grep -q seconds '$D/softirqs-c.prom'"
work &
"$BIN/softirqs" -j --raise --hist -N --prom "$D/softirqs-r.prom" -d 1 > "$TMP/qrj" 2> "$TMP/err"
wait
hist_checks "softirqs --raise --hist -N" "$D/softirqs-r.prom" "$TMP/qrj" \
	ftrace_tools_softirqs_raise_wait_seconds name,vec 1e-9
work &
"$BIN/hardirqs" -j --hist --per-cpu --prom "$D/hardirqs.prom" -d 1 > "$TMP/hj" 2> "$TMP/err"
wait
if [ -s "$TMP/hj" ]; then
	hist_checks "hardirqs --hist --per-cpu" "$D/hardirqs.prom" "$TMP/hj" \
		ftrace_tools_hardirqs_run_seconds name,irq,cpu 1e-6
else
	skip "hardirqs --prom: no interrupt handler ran in a second"
fi

# --- tpoint -c: a counter per event; -c -k: per event and key, each second ----------------------
"$BIN/tpoint" -c -j --prom "$D/tpoint.prom" 'sched:sched_process_*' -d 1.5 > "$TMP/tpj" 2> "$TMP/err" &
TPJ=$!
"$BIN/tpoint" -c -k comm,field.pid -j --prom "$D/tpoint-k.prom" 'sched:sched_process_e*' -d 1.5 \
	> "$TMP/tpkj" 2> "$TMP/tpkerr" &
TPK=$!
sleep 0.5
/bin/true; /bin/true
wait $TPJ
wait $TPK
check "tpoint -c --prom: promtool check metrics passes" promtool_ok "$D/tpoint.prom" || cat "$TMP/lint"
check "tpoint -c --prom: each event's counter is the sum of its printed counts" \
	promcmp "$D/tpoint.prom" "$TMP/tpj" ftrace_tools_tpoint_events_total event count
check "tpoint -c -k comm,field.pid --prom: promtool check metrics passes" promtool_ok "$D/tpoint-k.prom" ||
	cat "$TMP/lint" "$TMP/tpkerr"
check "tpoint -c -k --prom: each event and key's counter (field_pid) the sum of its printed counts" \
	promcmp "$D/tpoint-k.prom" "$TMP/tpkj" ftrace_tools_tpoint_events_total event,comm,field_pid count
"$BIN/tcpretrans" --prom "$D/bad.prom" -d 0.1 > "$TMP/out" 2> "$TMP/err"
rc=$?
check "tcpretrans --prom (not -c): usage error, exit 2, one line, no file" sh -c "
	[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && [ ! -e '$D/bad.prom' ]" || cat "$TMP/err"
for args in "-k comm --hist prev_pid" "--hist prev_pid" ""; do
	"$BIN/tpoint" $args --prom "$D/bad.prom" sched:sched_switch -d 0.1 > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "tpoint $args --prom (not -c or -k, or --hist): usage error, exit 2, one line, no file" sh -c "
		[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && [ ! -e '$D/bad.prom' ]" || cat "$TMP/err"
done

# --- funccount, funclatency: a counter per function, a histogram per function and comm -------
# On the test program's functions (uprobes: ftt_add 3 calls, ftt_greet 1) and on a kernel one
# (kprobes or the function tracer), the four at once.
UT=${UPROBE_TARGET:-$BIN/tests/uprobe_target}
case $UT in /*) ;; *) UT=$PWD/$UT ;; esac
"$BIN/funccount" -j --prom "$D/funccount.prom" "$UT:ftt_*" --exec "$UT" > "$TMP/fcj" 2> "$TMP/fcerr" &
FC=$!
"$BIN/funclatency" -j -k comm --prom "$D/funclatency.prom" "$UT:ftt_add" --exec "$UT" > "$TMP/flj" 2> "$TMP/flerr" &
FL=$!
"$BIN/funccount" -j --prom "$D/funccount-k.prom" -d 0.5 'vfs_read*' > "$TMP/fckj" 2> "$TMP/fckerr" &
FCK=$!
"$BIN/funclatency" -j --prom "$D/funclatency-k.prom" -d 0.5 vfs_read > "$TMP/flkj" 2> "$TMP/flkerr" &
FLK=$!
wait $FC
fcrc=$?
wait $FL
flrc=$?
check "funccount --prom on ftt_*: exit 0, promtool check metrics passes" sh -c "
	[ $fcrc -eq 0 ] && '$PROMTOOL' check metrics < '$D/funccount.prom'" || cat "$TMP/fcerr" "$TMP/lint"
check "funccount --prom: each function's counter is its printed count (ftt_add 3, ftt_greet 1)" sh -c "
	$PYTHON3 '$TMP/promcmp.py' '$D/funccount.prom' '$TMP/fcj' ftrace_tools_funccount_calls_total func count &&
	grep -q 'ftt_add\"} 3\$' '$D/funccount.prom' && grep -q 'ftt_greet\"} 1\$' '$D/funccount.prom'"
check "funclatency -k comm --prom on ftt_add: exit 0, promtool check metrics passes" sh -c "
	[ $flrc -eq 0 ] && '$PROMTOOL' check metrics < '$D/funclatency.prom'" || cat "$TMP/flerr" "$TMP/lint"
check "funclatency -k comm --prom: the buckets are the printed slots, cumulative, in seconds" \
	promcmp "$D/funclatency.prom" "$TMP/flj" ftrace_tools_funclatency_call_seconds func,comm hist 1e-6
check "funclatency -k comm --prom: _count as printed (3 calls)" sh -c "
	$PYTHON3 '$TMP/promcmp.py' '$D/funclatency.prom' '$TMP/flj' ftrace_tools_funclatency_call_seconds_count func,comm count &&
	grep -q '_count{func=\"ftt_add\",comm=\"uprobe_target\"} 3\$' '$D/funclatency.prom'"
wait $FCK
fckrc=$?
wait $FLK
flkrc=$?
for t in funccount:fck funclatency:flk; do
	tool=${t%:*} f=${t#*:}
	eval "rc=\$${f}rc"
	if [ "$rc" -ne 0 ] && grep -q CONFIG_KPROBE_EVENTS "$TMP/${f}err"; then
		skip "$tool --prom on kernel functions: $(tail -1 "$TMP/${f}err" | sed 's/^[a-z]*: //')"
	elif [ $tool = funccount ]; then
		check "funccount --prom on vfs_read*: exit 0, promtool passes, the counters as printed" sh -c "
			[ $rc -eq 0 ] && '$PROMTOOL' check metrics < '$D/funccount-k.prom' &&
			$PYTHON3 '$TMP/promcmp.py' '$D/funccount-k.prom' '$TMP/fckj' ftrace_tools_funccount_calls_total func count" ||
			cat "$TMP/${f}err"
	else
		check "funclatency --prom on vfs_read: exit 0, promtool passes, the buckets as printed" sh -c "
			[ $rc -eq 0 ] && '$PROMTOOL' check metrics < '$D/funclatency-k.prom' &&
			$PYTHON3 '$TMP/promcmp.py' '$D/funclatency-k.prom' '$TMP/flkj' ftrace_tools_funclatency_call_seconds func hist 1e-6" ||
			cat "$TMP/${f}err"
	fi
done

# --- iolatency, bitesize: block I/O histograms in seconds and bytes ---------------------------
dio() { # direct writes of 8 KiB and 64 KiB
	i=0
	while [ $i -lt 5 ]; do
		dd if=/dev/zero of="$TMP/dio" bs=8192 count=16 oflag=direct 2> /dev/null
		dd if=/dev/zero of="$TMP/dio" bs=65536 count=4 oflag=direct 2> /dev/null
		sleep 0.1
		i=$((i + 1))
	done
}
dio &
# biotop beside iolatency, on the same I/O (no time of its own)
"$BIN/biotop" -j -r 0 --prom "$D/biotop.prom" 0.3 3 > "$TMP/btj" 2> "$TMP/bterr" &
"$BIN/iolatency" -j -D --prom "$D/iolatency.prom" 0.3 3 > "$TMP/ij" 2> "$TMP/err"
wait
if grep -q '"count":[1-9]' "$TMP/ij"; then
	check "iolatency -D --prom: promtool check metrics passes" promtool_ok "$D/iolatency.prom" || cat "$TMP/lint"
	check "iolatency -D 0.3 3 --prom: the buckets are the printed slots, cumulative, in seconds" \
		promcmp "$D/iolatency.prom" "$TMP/ij" ftrace_tools_iolatency_io_seconds dev,disk hist 1e-6
	check "iolatency -D --prom: _count as printed" \
		promcmp "$D/iolatency.prom" "$TMP/ij" ftrace_tools_iolatency_io_seconds_count dev,disk count
else
	skip "iolatency --prom: no block I/O completed (no disk under $TMP?)"
fi
BT=pid,comm,dir,dev,disk
if [ -s "$TMP/btj" ]; then
	check "biotop -r 0 --prom: promtool check metrics passes" promtool_ok "$D/biotop.prom" || cat "$TMP/lint"
	check "biotop 0.3 3 --prom: ios_total the sums of the printed I/O counts" \
		promcmp "$D/biotop.prom" "$TMP/btj" ftrace_tools_biotop_ios_total $BT count
	check "biotop 0.3 3 --prom: io_bytes_total the sums of the printed bytes" \
		promcmp "$D/biotop.prom" "$TMP/btj" ftrace_tools_biotop_io_bytes_total $BT bytes
	check "biotop 0.3 3 --prom: io_seconds_total the printed avg_ms times I/O (to 0.5 us an I/O)" \
		promcmp "$D/biotop.prom" "$TMP/btj" ftrace_tools_biotop_io_seconds_total $BT "avg_ms*count" 1e-3 1e-9 0.0005
else
	skip "biotop --prom: no block I/O completed ($(tail -1 "$TMP/bterr"))"
fi
dio &
# cachestat beside bitesize (no time of its own), the cache's pages of dio's file among its counts
"$BIN/cachestat" -j --prom "$D/cachestat.prom" 0.5 2 > "$TMP/csj" 2> "$TMP/cserr" &
CSPID=$!
"$BIN/bitesize" -j --prom "$D/bitesize.prom" 0.5 2 > "$TMP/bj" 2> "$TMP/err"
wait $CSPID
csrc=$?
wait
if [ -s "$TMP/bj" ]; then
	check "bitesize --prom: promtool check metrics passes" promtool_ok "$D/bitesize.prom" || cat "$TMP/lint"
	check "bitesize --prom: the buckets are the printed KiB slots in whole bytes (le 2^k*1024 - 1)" \
		promcmp "$D/bitesize.prom" "$TMP/bj" ftrace_tools_bitesize_io_bytes pid,comm hist 1024 1
	check "bitesize --prom: _count and _sum (bytes) as printed" sh -c "
		$PYTHON3 '$TMP/promcmp.py' '$D/bitesize.prom' '$TMP/bj' ftrace_tools_bitesize_io_bytes_count pid,comm count &&
		$PYTHON3 '$TMP/promcmp.py' '$D/bitesize.prom' '$TMP/bj' ftrace_tools_bitesize_io_bytes_sum pid,comm bytes"
	check "bitesize --prom: 8 KiB writes under le=\"16383\"" grep -q 'le="16383"' "$D/bitesize.prom"
else
	skip "bitesize --prom: no block I/O issued"
fi

if grep -q CONFIG_KPROBE_EVENTS "$TMP/cserr"; then
	rm -f "$TMP/csj"
	skip "cachestat --prom: page look-ups are counted by kprobes (CONFIG_KPROBE_EVENTS)"
else
	check "cachestat -j --prom 0.5 2: exit 0, promtool check metrics passes" sh -c "
		[ $csrc -eq 0 ] && '$PROMTOOL' check metrics < '$D/cachestat.prom'" || cat "$TMP/cserr" "$TMP/lint"
	for c in hits misses dirties; do
		check "cachestat --prom: ${c}_total the sum of the printed $c" \
			promcmp "$D/cachestat.prom" "$TMP/csj" ftrace_tools_cachestat_${c}_total "" $c
	done
fi

# --- vfsstat, filetop, tcptop, klockstat -------------------------------------------------------
# One process with a hostile name (a quote, a backslash and a newline in its comm) writes and
# reads a file whose path has them too and talks TCP to itself on loopback; lock_target's
# threads wait for one pipe's mutex. The four tools at once, on them (vfsstat on the machine).
cat > "$TMP/hostile.py" <<'PY'
import os, socket, sys, time
go, path = sys.argv[1:3]
print(os.getpid(), flush=True)
while not os.path.exists(go):
    time.sleep(0.02)
with open("/proc/self/comm", "w") as f:
    f.write('x"y\\z\nw')
ls = socket.socket()
ls.bind(("127.0.0.1", 0))
ls.listen(1)
c = socket.create_connection(ls.getsockname())
s, _ = ls.accept()
def move(a, b, n):
    a.sendall(b"y" * n)
    while n > 0:
        n -= len(b.recv(n))
for i in range(6):
    with open(path, "ab") as f:
        f.write(b"x" * 4096)
    with open(path, "rb") as f:
        f.read()
    move(c, s, 1000)
    move(s, c, 500)
    time.sleep(0.1)

PY
HPATH=$(printf '%s/a"b\\c\nd.txt' "$TMP")
rm -f "$TMP/hgo"
$PYTHON3 "$TMP/hostile.py" "$TMP/hgo" "$HPATH" > "$TMP/hpid" 2> "$TMP/herr" &
HP=$!
wait_line "$TMP/hpid" '^[0-9]' 10 || notok "the hostile-named process starts" "$TMP/herr"
LP=
LT=${LOCK_TARGET:-$BIN/tests/lock_target}
if [ -d "$T/events/lock/contention_begin" ] && [ ! -x "$LT" ]; then
	notok "test program $LT missing (make check builds it)"
elif [ -d "$T/events/lock/contention_begin" ]; then
	"$LT" 4 4000 > "$TMP/lock" &
	LP=$!
	wait_line "$TMP/lock" '^lock ' 10 || notok "lock_target starts"
fi
rm -f "$TMP/vferr" "$TMP/fterr" "$TMP/tterr" "$TMP/klerr"
"$BIN/vfsstat" -j --prom "$D/vfsstat.prom" 0.3 3 > "$TMP/vfj" 2> "$TMP/vferr" &
VF=$!
"$BIN/filetop" -j -r 0 --prom "$D/filetop.prom" -p $HP 0.3 > "$TMP/ftj" 2> "$TMP/fterr" &
FT=$!
"$BIN/tcptop" -j -r 0 --prom "$D/tcptop.prom" -p $HP 0.3 > "$TMP/ttj" 2> "$TMP/tterr" &
TT=$!
if [ -n "$LP" ]; then
	rm -f "$TMP/klj" "$TMP/klerr" # (a banner left from the last run is not this one's)
	"$BIN/klockstat" -j --top 0 --prom "$D/klockstat.prom" -p $LP 0.2 > "$TMP/klj" 2> "$TMP/klerr" &
	KL=$!
	wait_ready $KL "$TMP/klerr" || notok "klockstat --prom starts" "$TMP/klerr"
fi
for p in $VF:vferr $FT:fterr $TT:tterr; do
	wait_ready ${p%:*} "$TMP/${p#*:}" || notok "${p#*:}: the tool starts" "$TMP/${p#*:}"
done
touch "$TMP/hgo"
[ -n "$LP" ] && kill -USR1 $LP
wait $HP
[ -n "$LP" ] && wait $LP
for p in VF FT TT ${LP:+KL}; do
	eval "pid=\$$p"
	wait_exit $pid 10
	eval "${p}RC=$RC"
done
check "vfsstat -j --prom 0.3 3: exit 0, promtool check metrics passes" sh -c "
	[ $VFRC -eq 0 ] && '$PROMTOOL' check metrics < '$D/vfsstat.prom'" || cat "$TMP/vferr" "$TMP/lint"
for c in reads writes creates opens fsyncs unlinks; do
	check "vfsstat 0.3 3 --prom: ${c}_total the sum of the printed $c" \
		promcmp "$D/vfsstat.prom" "$TMP/vfj" ftrace_tools_vfsstat_${c}_total "" $c
done
FTK=pid,comm,type,file
check "filetop -p --prom: exit 0, promtool check metrics passes" sh -c "
	[ $FTRC -eq 0 ] && '$PROMTOOL' check metrics < '$D/filetop.prom'" || cat "$TMP/fterr" "$TMP/lint"
for c in reads writes read_bytes write_bytes; do
	check "filetop 0.3 --prom: ${c}_total by $FTK the sum of the printed $c" \
		promcmp "$D/filetop.prom" "$TMP/ftj" ftrace_tools_filetop_${c}_total $FTK $c
done
# The escaped labels as written, single-quoted here: \" \\ and \n.
hostile_file() {
	grep -qF 'comm="x\"y\\z\nw",type="R",file="'"$TMP"'/a\"b\\c\nd.txt"} 24576' "$D/filetop.prom"
}
check "filetop --prom: the hostile comm and path escaped, its 6 writes of 4096 bytes counted" \
	hostile_file || cat "$D/filetop.prom"
TTK='pid,comm,ip,laddr?,lport?,raddr?,rport?'
if [ $TTRC -ne 0 ] && grep -q CONFIG_KPROBE_EVENTS "$TMP/tterr"; then
	rm -f "$TMP/ttj"
	skip "tcptop --prom: $(tail -1 "$TMP/tterr" | sed 's/^tcptop: //')"
else
	check "tcptop -p --prom: exit 0, promtool check metrics passes" sh -c "
		[ $TTRC -eq 0 ] && '$PROMTOOL' check metrics < '$D/tcptop.prom'" || cat "$TMP/tterr" "$TMP/lint"
	check "tcptop 0.3 --prom: sent_bytes_total by process and ends the sum of the printed tx_bytes" \
		promcmp "$D/tcptop.prom" "$TMP/ttj" ftrace_tools_tcptop_sent_bytes_total "$TTK" tx_bytes
	check "tcptop 0.3 --prom: received_bytes_total the sum of the printed rx_bytes" \
		promcmp "$D/tcptop.prom" "$TMP/ttj" ftrace_tools_tcptop_received_bytes_total "$TTK" rx_bytes
	hostile_tcp() {
		grep -F 'comm="x\"y\\z\nw",ip="4"' "$D/tcptop.prom" > "$TMP/tth" &&
			grep -q '^ftrace_tools_tcptop_sent_bytes_total{.*} 6000$' "$TMP/tth" &&
			grep -q '^ftrace_tools_tcptop_sent_bytes_total{.*} 3000$' "$TMP/tth" &&
			grep -q '^ftrace_tools_tcptop_received_bytes_total{.*} 6000$' "$TMP/tth" &&
			grep -q '^ftrace_tools_tcptop_received_bytes_total{.*} 3000$' "$TMP/tth"
	}
	check "tcptop --prom: the hostile comm escaped, its two ends' 6000 and 3000 bytes each way" \
		hostile_tcp || cat "$D/tcptop.prom"
fi
if [ ! -d "$T/events/lock/contention_begin" ]; then
	skip "klockstat --prom: no lock:contention_begin in this kernel (Linux 5.19)"
elif [ -z "$LP" ]; then
	:
else
	check "klockstat -p 0.2 --prom: exit 0, promtool check metrics passes" sh -c "
		[ $KLRC -eq 0 ] && '$PROMTOOL' check metrics < '$D/klockstat.prom'" || cat "$TMP/klerr" "$TMP/lint"
	KLK='lock_addr,symbol?,flags'
	check "klockstat --prom: lock_waits_total by lock the sum of the printed counts" \
		promcmp "$D/klockstat.prom" "$TMP/klj" ftrace_tools_klockstat_lock_waits_total "$KLK" count
	check "klockstat --prom: lock_wait_seconds_total the sum of the printed total_ns, exact" \
		promcmp "$D/klockstat.prom" "$TMP/klj" ftrace_tools_klockstat_lock_wait_seconds_total "$KLK" total_ns 1e-9
	check "klockstat --prom: caller_waits_total by caller the sum of the printed counts" \
		promcmp "$D/klockstat.prom" "$TMP/klj" ftrace_tools_klockstat_caller_waits_total 'caller?' count
	check "klockstat --prom: caller_wait_seconds_total the sum of the printed total_ns" \
		promcmp "$D/klockstat.prom" "$TMP/klj" ftrace_tools_klockstat_caller_wait_seconds_total 'caller?' total_ns 1e-9
	"$BIN/klockstat" --folded --prom "$D/bad.prom" -d 0.1 > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "klockstat --folded --prom: usage error, exit 2, one line, no file" sh -c "
		[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && [ ! -e '$D/bad.prom' ]" || cat "$TMP/err"
fi

# --- wakeuptime, offwaketime, memleak --------------------------------------------------------------
# The machine's own wake-ups for 0.5 s: the counters by the two names the sums of the printed
# lines of those names (their us whole microseconds, each line's cut allowed).
for W in wakeuptime:waker,target offwaketime:target,waker; do
	WT=${W%%:*} WK=${W#*:}
	if [ ! -d "$T/events/sched/sched_waking" ]; then
		skip "$WT --prom: no sched:sched_waking in this kernel (Linux 4.3)"
		continue
	fi
	"$BIN/$WT" -j --prom "$D/$WT.prom" -d 0.5 > "$TMP/wj" 2> "$TMP/werr"
	rc=$?
	check "$WT -j -d 0.5 --prom: exit 0, promtool check metrics passes" sh -c "
		[ $rc -eq 0 ] && '$PROMTOOL' check metrics < '$D/$WT.prom'" || cat "$TMP/werr" "$TMP/lint"
	check "$WT --prom: wakeups_total by $WK the sums of the printed counts" \
		promcmp "$D/$WT.prom" "$TMP/wj" ftrace_tools_${WT}_wakeups_total "$WK" count
	check "$WT --prom: blocked_seconds_total the sums of the printed us (each line's cut allowed)" \
		promcmp "$D/$WT.prom" "$TMP/wj" ftrace_tools_${WT}_blocked_seconds_total "$WK" us 1e-6 1e-9 1
done
# memleak: a program's leaks (leak_target: 12 stacks of its own, and the C library's): the
# gauges of its process the sums of the printed stacks, all of them (--top: the gauges count
# every stack, the text only the first 10 by default).
if [ -x "$BIN/tests/leak_target" ] && "$BIN/uprobe" -l libc > /dev/null 2>&1; then
	"$BIN/memleak" -j --top 100000 --prom "$D/memleak.prom" --exec "$BIN/tests/leak_target" \
		> "$TMP/mj" 2> "$TMP/merr"
	rc=$?
	check "memleak -j --exec --prom: exit 0, promtool check metrics passes" sh -c "
		[ $rc -eq 0 ] && '$PROMTOOL' check metrics < '$D/memleak.prom'" || cat "$TMP/merr" "$TMP/lint"
	check "memleak --prom: outstanding_bytes by pid the sum of the printed stacks' bytes" \
		promcmp "$D/memleak.prom" "$TMP/mj" ftrace_tools_memleak_outstanding_bytes pid bytes
	check "memleak --prom: outstanding_allocations by pid the sum of their allocs" \
		promcmp "$D/memleak.prom" "$TMP/mj" ftrace_tools_memleak_outstanding_allocations pid allocs
else
	skip "memleak --prom: no leak_target or no shared C library here"
fi

# --- the file is read by node_exporter ----------------------------------------------------------
PORT=$($PYTHON3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL=http://127.0.0.1:$PORT/metrics
"$EXPORTER" --web.listen-address=127.0.0.1:$PORT --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory="$D" > "$TMP/exporter" 2>&1 &
EXPID=$!
up=no
i=0
while [ $i -lt 50 ]; do
	$PYTHON3 -c "import urllib.request; urllib.request.urlopen('$URL', timeout=1)" 2> /dev/null && { up=yes; break; }
	sleep 0.1
	i=$((i + 1))
done
if [ $up = yes ]; then
	ok "node_exporter serves $URL"
	check "node_exporter: syscount's counters as printed" \
		promcmp "$URL" "$TMP/sj" ftrace_tools_syscount_calls_total syscall count
	check "node_exporter: syscount -P -L's seconds as printed" \
		promcmp "$URL" "$TMP/spj" ftrace_tools_syscount_call_seconds_total pid,comm total_us 1e-6
	check "node_exporter: runqlat's buckets as printed" \
		promcmp "$URL" "$TMP/rj" ftrace_tools_runqlat_wait_seconds "" hist 1e-6
	check "node_exporter: runqlat -P's buckets as printed" \
		promcmp "$URL" "$TMP/rpj" ftrace_tools_runqlat_wait_seconds pid,comm hist 1e-6
	check "node_exporter: cpudist -m -k comm's buckets as printed" \
		promcmp "$URL" "$TMP/cj" ftrace_tools_cpudist_oncpu_seconds comm hist 1e-3
	check "node_exporter: softirqs' counters as printed" \
		promcmp "$URL" "$TMP/qj" ftrace_tools_softirqs_run_seconds_total name,vec total_us 1e-6
	check "node_exporter: tpoint -c's counters as printed" \
		promcmp "$URL" "$TMP/tpj" ftrace_tools_tpoint_events_total event count
	check "node_exporter: funccount's counters as printed" \
		promcmp "$URL" "$TMP/fcj" ftrace_tools_funccount_calls_total func count
	check "node_exporter: funclatency -k comm's buckets as printed" \
		promcmp "$URL" "$TMP/flj" ftrace_tools_funclatency_call_seconds func,comm hist 1e-6
	[ -s "$TMP/prj" ] && check "node_exporter: profile's samples as printed" \
		promcmp "$URL" "$TMP/prj" ftrace_tools_profile_samples_total comm samples
	[ -s "$TMP/trj" ] && check "node_exporter: tcpretrans -c's counters as printed" \
		promcmp "$URL" "$TMP/trj" ftrace_tools_tcpretrans_retransmits_total ip,laddr,lport,raddr,rport count
	if [ -s "$TMP/btj" ]; then
		check "node_exporter: biotop's bytes as printed" \
			promcmp "$URL" "$TMP/btj" ftrace_tools_biotop_io_bytes_total $BT bytes
	fi
	if [ -s "$TMP/csj" ]; then
		check "node_exporter: cachestat's hits as printed" \
			promcmp "$URL" "$TMP/csj" ftrace_tools_cachestat_hits_total "" hits
	fi
	if [ -s "$TMP/bj" ]; then
		check "node_exporter: bitesize's buckets as printed" \
			promcmp "$URL" "$TMP/bj" ftrace_tools_bitesize_io_bytes pid,comm hist 1024 1
	fi
	check "node_exporter: vfsstat's opens as printed" \
		promcmp "$URL" "$TMP/vfj" ftrace_tools_vfsstat_opens_total "" opens
	check "node_exporter: filetop's write bytes as printed, the hostile names read back" \
		promcmp "$URL" "$TMP/ftj" ftrace_tools_filetop_write_bytes_total $FTK write_bytes
	[ -s "$TMP/ttj" ] && check "node_exporter: tcptop's sent bytes as printed" \
		promcmp "$URL" "$TMP/ttj" ftrace_tools_tcptop_sent_bytes_total "$TTK" tx_bytes
	[ -s "$D/klockstat.prom" ] && check "node_exporter: klockstat's lock waits as printed" \
		promcmp "$URL" "$TMP/klj" ftrace_tools_klockstat_lock_waits_total "$KLK" count
	check "node_exporter: no textfile errors" $PYTHON3 -c "import sys, urllib.request
sys.exit('node_textfile_scrape_error 0' not in urllib.request.urlopen('$URL').read().decode().splitlines())"
else
	notok "node_exporter serves $URL" "$TMP/exporter"
fi

# --- failures -----------------------------------------------------------------------------------
"$S" --prom "$TMP/none/x.prom" -d 1 > "$TMP/out" 2> "$TMP/err"
rc=$?
check "syscount --prom in a folder that is not there: exit 1 at the start, one line, nothing traced" sh -c "
	[ $rc -eq 1 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] && grep -q '^syscount: --prom: cannot write' '$TMP/err' &&
	[ ! -s '$TMP/out' ]" || cat "$TMP/err"
# A full disk: a tmpfs of 16 KiB, filled.
MNT=$TMP/full
mkdir -p "$MNT"
if mount -t tmpfs -o size=16k ftt-prom "$MNT" 2> /dev/null; then
	dd if=/dev/zero of="$MNT/fill" bs=1024 count=64 2> /dev/null
	rm -f "$MNT/fill.small"
	"$S" -j --top 0 --prom "$MNT/x.prom" 0.3 3 > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "syscount --prom on a full disk: exit 1, said once, the counts printed, no file or .tmp left" sh -c "
		[ $rc -eq 1 ] && [ \$(grep -c 'No space left' '$TMP/err') -eq 1 ] &&
		[ \$(grep -c '\"count\"' '$TMP/out') -gt 3 ] && [ ! -e '$MNT/x.prom' ] && [ ! -e '$MNT/x.prom.tmp' ]" ||
		cat "$TMP/err"
	umount "$MNT"
	MNT=
else
	skip "syscount --prom on a full disk: cannot mount a tmpfs (CONFIG_TMPFS)"
fi

# --- -j --tag host,kernel -------------------------------------------------------------------------
# Every object ends with the host's name and the kernel's release, as uname says them: through
# the row (execsnoop, syscount) and evprint's objects made in one buffer (tpoint).
tagged() { # FILE: every line valid JSON, ending with host and kernel
	$PYTHON3 - "$1" "$(uname -n)" "$(uname -r)" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
bad = [l for l in lines if list(json.loads(l))[-2:] != ["host", "kernel"] or
       json.loads(l)["host"] != sys.argv[2] or json.loads(l)["kernel"] != sys.argv[3]]
print("# %d lines, %d without the tags" % (len(lines), len(bad)))
sys.exit(1 if bad or not lines else 0)
PY
}
"$BIN/execsnoop" -j --tag host,kernel --exec /bin/sh -c '/bin/true; /bin/true' > "$TMP/ej" 2> "$TMP/err"
check "execsnoop -j --tag host,kernel: each object ends with host and kernel, as uname says" tagged "$TMP/ej"
"$BIN/tpoint" -j --tag host,kernel sched:sched_process_exec --exec /bin/sh -c /bin/true > "$TMP/tj" 2> "$TMP/err"
check "tpoint -j --tag host,kernel: the same in its one-buffer objects" tagged "$TMP/tj"
"$S" -j --tag kernel,host -d 0.2 > "$TMP/sj2" 2> "$TMP/err"
check "syscount -j --tag kernel,host: the same in its rows" tagged "$TMP/sj2"
"$JSONCHECK" "$TMP/ej" host kernel > /dev/null 2>&1
check "execsnoop -j --tag: jsoncheck passes with both keys" [ $? -eq 0 ]
for args in "--tag host" "-j --tag nope" "-j --tag ,"; do
	"$S" $args -d 0.1 > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "syscount $args: usage error, exit 2, one line" sh -c "[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ]" ||
		cat "$TMP/err"
done

finish
check "at the end: tracefs as before" same_state
summary
