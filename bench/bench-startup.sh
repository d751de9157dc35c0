#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Start-up: the time from exec to the first event line of tpoint syscalls:sys_enter_openat,
# ours beside perf-tools' tpoint (interleaved, BENCH_REPS runs each, medians), and every
# tool's time from exec to its banner; writes bench/STARTUP.md. Needs root, `make all`,
# python3 and perf-tools-unstable (make bench-deps).
#
# A load of opens (one every millisecond, python3) runs throughout, so the first event comes
# as soon as a tool traces. perf-tools' scripts need debugfs at /sys/kernel/debug: where it
# is not mounted, the runs happen in a mount namespace of their own that has it (the
# machine's mounts are not changed).
#
# Environment: BENCH_REPS (5), BENCH_REPORT (bench/STARTUP.md), BENCH_ONLY (a regex of tool
# names for the banner table), BENCH_NO_BANNERS (1: the first table only), BENCH_ALSO (the
# path of another build's tpoint, timed in turn with the two: a change's before and after).
set -u
cd "$(dirname "$0")/.."
B=${B:-build}
export B
export REPS=${BENCH_REPS:-5}
export REPORT=${BENCH_REPORT:-bench/STARTUP.md}
export ONLY=${BENCH_ONLY:-.}
export NO_BANNERS=${BENCH_NO_BANNERS:-0}
export BENCH_ALSO=${BENCH_ALSO:-}
PT=/usr/sbin/tpoint-perf

die() { echo "bench-startup: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root"
[ -x "$B/tpoint" ] || die "$B/tpoint missing: make all"
[ -x "$PT" ] || die "$PT missing: make bench-deps (perf-tools-unstable)"
command -v python3 > /dev/null || die "python3 not found: make bench-deps"
[ -e /var/tmp/.ftrace-lock ] && die "perf-tools' lock /var/tmp/.ftrace-lock exists: a perf-tools tool runs (or was killed)"

if [ "${FTT_BENCH_NS:-}" != 1 ] && [ ! -d /sys/kernel/debug/tracing ]; then
	exec unshare -m --propagation private env FTT_BENCH_NS=1 \
		sh -c 'mount -t debugfs debugfs /sys/kernel/debug && exec "$0" "$@"' "$0" "$@"
fi
[ -d /sys/kernel/debug/tracing ] || die "no /sys/kernel/debug/tracing (debugfs) for perf-tools"

exec python3 - "$PT" << 'EOF'
import os, select, signal, statistics, subprocess, sys, time

B, PT = os.environ["B"], sys.argv[1]
REPS, ONLY = int(os.environ["REPS"]), os.environ["ONLY"]
EVENT = "syscalls:sys_enter_openat"

# One open a millisecond, for the whole bench.
load = subprocess.Popen([sys.executable, "-c",
    "import os, time\n"
    "while True:\n"
    "    os.close(os.open('/dev/null', os.O_RDONLY)); time.sleep(0.001)\n"])

# Each tracer in a session of its own, stopped as Ctrl-C stops it: SIGINT to its group
# (perf-tools' script ends, and cleans up, once its cat of trace_pipe has).
# A perf-tools script killed leaves its lock and its event on at the top level: every later
# run of it would refuse to start, and the machine stay traced. reset-ftrace -f undoes both,
# said on stderr.
def stop(p):
    try:
        os.killpg(p.pid, signal.SIGINT)
    except ProcessLookupError:
        pass
    try:
        p.wait(10)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        if p.args[0] == PT:
            print("bench-startup: %s killed after 10 s: reset-ftrace -f" % PT, file=sys.stderr)
            subprocess.run([B + "/reset-ftrace", "-f"], stdout=sys.stderr)

def first_line(cmd, want, banner_on_stdout=False, timeout=10):
    """ms from exec to the banner and to the first line with `want` on stdout."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True)
    bufs = {p.stdout.fileno(): b"", p.stderr.fileno(): b""}
    banner = event = None
    while time.monotonic() - t0 < timeout and event is None:
        r, _, _ = select.select(list(bufs), [], [], 0.05)
        now = time.monotonic()
        for fd in r:
            d = os.read(fd, 65536)
            if not d:
                del bufs[fd]
                continue
            bufs[fd] += d
            lines = bufs[fd].split(b"\n")
            if banner is None and any(l.startswith((b"Tracing", b"Counting")) for l in lines):
                banner = (now - t0) * 1000
            if fd == p.stdout.fileno() and any(want in l and not l.startswith(b"Tracing")
                                               for l in lines[:-1]):
                event = (now - t0) * 1000
        if not bufs:
            break
    stop(p)
    return banner, event

ALSO = os.environ.get("BENCH_ALSO", "")
ours, theirs, ours_banner, also = [], [], [], []
first_line([B + "/tpoint", EVENT], b"openat")  # caches warmed, not counted
first_line([PT, EVENT], b"openat")
for i in range(REPS):
    b, e = first_line([B + "/tpoint", EVENT], b"openat")
    if e is not None:
        ours.append(e)
    if b is not None:
        ours_banner.append(b)
    b, e = first_line([PT, EVENT], b"openat")
    if e is not None:
        theirs.append(e)
    if ALSO:
        b, e = first_line([ALSO, EVENT], b"openat")
        if e is not None:
            also.append(e)

def med(v):
    return "%.0f" % statistics.median(v) if v else "-"

def rng(v):
    return "%.0f-%.0f" % (min(v), max(v)) if v else "-"

# Every tool to its banner: a command line that starts it on this kernel.
sleeper = subprocess.Popen(["sleep", "1000"])
args = {
    "tpoint": [EVENT], "kprobe": ["p:vfs_read"], "uprobe": ["p:/usr/bin/bash:readline"],
    "funccount": ["vfs_read"], "funclatency": ["vfs_read"], "functrace": ["vfs_read"],
    "funcgraph": ["vfs_read"], "funcslower": ["vfs_read", "10"],
    "usdt": ["-p", str(sleeper.pid), "/usr/bin/python3:python:function__entry"],
    "memleak": ["-p", str(sleeper.pid)],
}
skip = {"heatmap", "flamegraph", "reset-ftrace"}  # read files, trace nothing
tools = []
if os.environ["NO_BANNERS"] != "1":
    import re
    mk = open("Makefile").read()
    names = re.search(r"^TOOLS\s*:=(.*)$", mk, re.M).group(1).split()
    for t in names:
        if t in skip or not re.search(ONLY, t):
            continue
        runs, said = [], ""
        for i in range(3):
            cmd = [B + "/" + t] + args.get(t, [])
            t0 = time.monotonic()
            p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                 start_new_session=True)
            buf, got = b"", None
            while time.monotonic() - t0 < 10:
                r, _, _ = select.select([p.stderr], [], [], 0.05)
                if r:
                    d = os.read(p.stderr.fileno(), 4096)
                    if not d:
                        break
                    buf += d
                    if any(l.startswith((b"Tracing", b"Counting")) for l in buf.split(b"\n")):
                        got = (time.monotonic() - t0) * 1000
                        break
            stop(p)
            if got is None:
                said = buf.decode(errors="replace").split("\n")[0]
                break
            runs.append(got)
        tools.append((t, runs, said))
sleeper.kill()
sleeper.wait()
load.kill()
load.wait()

u = os.uname()
la = open("/proc/loadavg").read().split()[:3]
out = []
w = out.append
w("<!-- SPDX-License-Identifier: GPL-2.0-only -->")
w("# Start-up: exec to the first event, and to the banner (bench/bench-startup.sh)")
w("")
w("%s, %s, %d CPUs, load average %s (a machine shared with other work)." %
  (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), u.release, os.cpu_count(), " ".join(la)))
w("")
w("`tpoint %s` while a process opens /dev/null every millisecond: milliseconds from exec"
  % EVENT)
w("to the first event line on standard output, %d runs each, ours and perf-tools' in turn." % REPS)
w("")
w("| tracer | first event, median ms | range ms | banner, median ms |")
w("| --- | --- | --- | --- |")
w("| tpoint (ours) | %s | %s | %s |" % (med(ours), rng(ours), med(ours_banner)))
w("| tpoint-perf (perf-tools) | %s | %s | - |" % (med(theirs), rng(theirs)))
if ALSO:
    w("| %s | %s | %s | - |" % (ALSO, med(also), rng(also)))
if ours and theirs:
    w("")
    w("Ours over perf-tools': %.2fx." % (statistics.median(ours) / statistics.median(theirs)))
if tools:
    w("")
    base = [statistics.median(r) for t, r, _ in tools if t == "tpoint" and r]
    base = base[0] if base else 0
    w("Every tool from exec to its banner (3 runs, median), and over tpoint's in this table:")
    w("")
    w("| tool | banner, median ms | over tpoint's |")
    w("| --- | --- | --- |")
    for t, runs, said in tools:
        if not runs:
            w("| %s | - | does not start here: %s |" % (t, said.replace("|", "/")[:110]))
        else:
            m = statistics.median(runs)
            w("| %s | %.0f | %s |" % (t, m, "%.1fx" % (m / base) if base else "-"))
text = "\n".join(out) + "\n"
open(os.environ["REPORT"], "w").write(text)
sys.stdout.write(text)
EOF
