# SPDX-License-Identifier: GPL-2.0-only
# tracejsoncheck.py KIND FILE JSONLINES: is FILE, a tool's --trace-json, the Trace Event
# format, and does it hold what the same run printed with -j (JSONLINES)? KIND: io
# (iosnoop -j -s -t), runq (runqslower -j -t), dr (drsnoop -j -e -t), tcp (tcplife -j -t),
# file (fileslower -j), fslow (funcslower -j), graph (funcgraph -j), off (offcputime -j -s:
# one -j line per stack), bio (biotop -j -r 0: rows of intervals), vfs (vfsstat -j) or cache
# (cachestat -j). Checks: the file is JSON, an object with traceEvents and displayTimeUnit;
# every event has ph, name, pid (an integer), and by kind its members (X: ts and dur numbers
# >= 0, tid, args; M: process_name or thread_name with args.name; C: ts, integer args); the
# spans of one track (pid, tid) are nested or disjoint, never overlapping in part; there are
# as many X events as -j lines, in the same order, each with the -j line's members as args
# and its times; the names of the tracks are those -j printed (io: the processes are the DEV
# column's, tcp: the COMM column's; runq, dr, file, fslow, graph: each thread's name is its
# comm, as last printed). graph: the spans are the calls the graph closed (an exit whose
# entry it showed, a leaf), rebuilt from its lines with the tool's rules, each from its
# entry to its exit. off: the spans' times summed by comm and name are the -j lines' us
# summed by comm and the stack's first frame without "schedule", each line's us cut to the
# microsecond, and each thread's name is the comm of a span on it. bio: the spans summed by
# disk (the process's name), direction and comm are the rows' count, bytes and avg_ms times
# count, and each span's args are iosnoop's. vfs, cache: no span, a counter event per -j
# line with its counts, zeros last. Prints "N spans, N tracks" (or counters) and exits 0, or
# the first thing wrong and exits 1.
import json
import sys
from decimal import Decimal

kind, path, lines = sys.argv[1], sys.argv[2], sys.argv[3]


def fail(why):
    print(why)
    sys.exit(1)


try:
    doc = json.load(open(path, encoding="utf-8", errors="surrogateescape"),
                    parse_float=Decimal)
except ValueError as e:
    fail("not JSON: %s" % e)
if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
    fail("no traceEvents array")
if doc.get("displayTimeUnit") not in ("ns", "ms"):
    fail("displayTimeUnit is not ns or ms")
printed = [json.loads(l, parse_float=Decimal) for l in open(lines, encoding="utf-8",
                                                             errors="surrogateescape") if l.strip()]

num = (int, Decimal)
us = Decimal("0.5")  # -j's times: microseconds, rounded
spans, pnames, tnames, counters = [], {}, {}, []
for i, e in enumerate(doc["traceEvents"]):
    where = "event %d (%s)" % (i, json.dumps(e, default=str)[:200])
    if not isinstance(e, dict) or e.get("ph") not in ("X", "M", "C"):
        fail(where + ": no ph X, M or C")
    if not isinstance(e.get("name"), str) or not isinstance(e.get("pid"), int) \
            or isinstance(e.get("pid"), bool):
        fail(where + ": no name, or no integer pid")
    if e["ph"] == "X":
        if not all(isinstance(e.get(k), num) and e[k] >= 0 for k in ("ts", "dur")):
            fail(where + ": ts or dur not a number >= 0")
        if not isinstance(e.get("tid"), int) or not isinstance(e.get("args"), dict) \
                or not isinstance(e.get("cat"), str):
            fail(where + ": no tid, cat or args")
        spans.append(e)
    elif e["ph"] == "M":
        if e["name"] not in ("process_name", "thread_name") or \
                not isinstance(e.get("args", {}).get("name"), str):
            fail(where + ": not a process_name or thread_name with args.name")
        if e["name"] == "process_name":
            pnames[e["pid"]] = e["args"]["name"]
        else:
            if not isinstance(e.get("tid"), int):
                fail(where + ": thread_name without tid")
            tnames[(e["pid"], e["tid"])] = e["args"]["name"]
    else:
        if not isinstance(e.get("ts"), num) or not isinstance(e.get("args"), dict):
            fail(where + ": counter without ts or args")
        if not all(isinstance(v, int) for v in e["args"].values()):
            fail(where + ": a counter's value not an integer")
        counters.append(e)

# Nested or disjoint on each track: by start, the longer first; a span must end by the end
# of every open span it starts inside.
tracks = {}
for e in spans:
    tracks.setdefault((e["pid"], e["tid"]), []).append(e)
for key, es in tracks.items():
    es.sort(key=lambda e: (e["ts"], -e["dur"]))
    open_ends = []
    for e in es:
        while open_ends and open_ends[-1] <= e["ts"]:
            open_ends.pop()
        if open_ends and e["ts"] + e["dur"] > open_ends[-1]:
            fail("track %s: span at %s (%s us) overlaps the one open until %s in part"
                 % (key, e["ts"], e["dur"], open_ends[-1]))
        open_ends.append(e["ts"] + e["dur"])
    if key not in tnames:
        fail("track %s has no thread_name" % (key,))
    if key[0] not in pnames:
        fail("track %s has no process_name" % (key,))


def wait_name(kstack):
    """offcputime's span name: the innermost frame outside the scheduler."""
    for f in kstack:
        if "schedule" not in f:
            return f
    return kstack[0] if kstack else "off-cpu"


if kind == "off":
    want, got, lines_of = {}, {}, {}
    for p in printed:
        key = (p["comm"], wait_name(p["kstack"]))
        want[key] = want.get(key, 0) + p["us"]
        lines_of[key] = lines_of.get(key, 0) + 1
    for e in spans:
        key = (e["args"].get("comm"), e["name"])
        got[key] = got.get(key, 0) + e["dur"]
        if e["args"].get("tid") != e["tid"] or e["args"].get("pid") != e["pid"] \
                or tnames[(e["pid"], e["tid"])] != e["args"]["comm"] and \
                not any(s["args"]["comm"] == tnames[(e["pid"], e["tid"])]
                        for s in tracks[(e["pid"], e["tid"])]):
            fail("span %s: not on its thread's track, or the track not named by a comm" % e)
    if set(want) != set(got):
        fail("spans by (comm, name) %s, -j printed %s"
             % (sorted(set(got) - set(want))[:3], sorted(set(want) - set(got))[:3]))
    for key, us in want.items():
        # -j cuts each line to the microsecond: the spans' sum is in [us, us + lines)
        if not us <= got[key] < us + lines_of[key]:
            fail("%s: spans %s us in all, -j printed %s us in %d lines"
                 % (key, got[key], us, lines_of[key]))
    print("%d spans, %d tracks, %d names" % (len(spans), len(tracks), len(want)))
    sys.exit(0)

if kind in ("vfs", "cache"):
    # vfsstat, cachestat: a counter event per -j line at its interval's start, its counts
    # as series, then zeros at the last one's end; vfsstat's intervals as long as -j's secs
    # (3 decimals)
    keys = ("reads", "writes", "creates", "opens", "fsyncs", "unlinks") if kind == "vfs" \
        else ("hits", "misses", "dirties")
    tool = "vfsstat" if kind == "vfs" else "cachestat"
    if spans or len(counters) != len(printed) + 1:
        fail("%d spans, %d counters for %d lines" % (len(spans), len(counters), len(printed)))
    for i, e in enumerate(counters):
        if e["name"] != tool or pnames.get(e["pid"]) != tool:
            fail("counter %s not %s's, in a process named so" % (e, tool))
        want = {k: printed[i][k] for k in keys} if i < len(printed) else dict.fromkeys(keys, 0)
        if e["args"] != want:
            fail("counter %s, -j printed %s" % (e, want))
        if i and kind == "vfs" and abs(e["ts"] - counters[i - 1]["ts"] - printed[i - 1]["secs"] * 1000000) > 501:
            fail("counter at %s: %s us after the one before, -j printed %s s"
                 % (e["ts"], e["ts"] - counters[i - 1]["ts"], printed[i - 1]["secs"]))
    print("%d counters, %d intervals" % (len(counters), len(printed)))
    sys.exit(0)

if kind == "graph":
    # funcgraph: the spans the graph's lines make, each thread's calls begun kept by depth
    # (64 at most) as the tool keeps them: an exit closes the one begun at its depth, if
    # shown, and every deeper one; a leaf is a span of its own
    want, stacks, last_comm = [], {}, {}
    for p in printed:
        n, ts = stacks.get(p["pid"], (0, {}))
        d = p["depth"]
        if p["call"] == "entry":
            ts[d] = p["ts"]
            n = d + 1 if 0 <= d < 64 else 0
        else:
            if p["call"] == "leaf" or 0 <= d < n:
                want.append((p, ts.get(d) if p["call"] == "exit" else p["ts"]))
            if 0 <= d < n:
                n = d
        stacks[p["pid"]] = (n, ts)
    if len(spans) != len(want):
        fail("%d spans, %d calls closed in the graph -j printed" % (len(spans), len(want)))
    for e, (p, start) in zip(spans, want):
        a = e["args"]
        if e["name"] != p["func"] or e["tid"] != p["pid"] or \
                {k: a.get(k) for k in ("comm", "pid", "cpu", "depth", "dur_ns")} != \
                {k: p[k] for k in ("comm", "pid", "cpu", "depth", "dur_ns")}:
            fail("span %s, -j printed %s" % (e, p))
        if abs(e["ts"] - start * 1000000) > us or (p["call"] == "exit" and abs(
                e["ts"] + e["dur"] - p["ts"] * 1000000) > 2 * us):
            fail("span %s: not from the entry at %s to the exit %s" % (e, start, p))
        last_comm[(e["pid"], e["tid"])] = p["comm"]
    for key, comm in last_comm.items():
        if tnames[key] != comm:
            fail("thread %s named %r, -j printed %r last" % (key, tnames[key], comm))
    print("%d spans, %d tracks" % (len(spans), len(tracks)))
    sys.exit(0)

if kind == "bio":
    def direction(rwbs):
        if rwbs[:1] == "F" and rwbs[1:]:
            rwbs = rwbs[1:]
        return rwbs[:1] or "N"

    want, got = {}, {}
    for p in printed:
        key = (p["dev"], p["dir"], p["comm"])
        w = want.setdefault(key, [0, 0, Decimal(0)])
        w[0] += p["count"]
        w[1] += p["bytes"]
        w[2] += p["avg_ms"] * 1000 * p["count"]
    for e in spans:
        a = e["args"]
        if set(a) != {"comm", "pid", "type", "dev", "sector", "bytes", "error"} \
                or a["dev"] != pnames[e["pid"]] or a["type"] != e["name"] \
                or not tnames[(e["pid"], e["tid"])].startswith("lane "):
            fail("span %s: not iosnoop's args, or not on a lane of its disk" % e)
        g = got.setdefault((a["dev"], direction(a["type"]), a["comm"]), [0, 0, Decimal(0)])
        g[0] += 1
        g[1] += a["bytes"]
        g[2] += e["dur"]
    for key in set(want) | set(got):
        w, g = want.get(key), got.get(key)
        # avg_ms: 3 decimals at most, so 0.5 us off per I/O
        if not w or not g or w[:2] != g[:2] or abs(w[2] - g[2]) > us * w[0] + 1:
            fail("%s: spans (count, bytes, us) %s, -j rows %s" % (key, g, w))
    print("%d spans, %d tracks, %d rows" % (len(spans), len(tracks), len(want)))
    sys.exit(0)

if len(spans) != len(printed):
    fail("%d spans, %d lines printed with -j" % (len(spans), len(printed)))
last_comm = {}
for e, p in zip(spans, printed):
    a = e["args"]
    if kind == "io":
        keys = ("comm", "pid", "type", "dev", "sector", "bytes", "error")
        start, dur = p["start_s"] * 1000000, p["lat_ms"] * 1000
        if pnames[e["pid"]] != p["dev"] or e["name"] != p["type"]:
            fail("span %s: process %r or name %r, -j printed dev %r type %r"
                 % (e, pnames[e["pid"]], e["name"], p["dev"], p["type"]))
    elif kind == "tcp":
        keys = [k for k in ("pid", "tid", "comm", "ip", "laddr", "lport", "raddr", "rport",
                            "tx_bytes", "rx_bytes") if p.get(k) is not None]
        start, dur = p["ts"] * 1000000 - p["dur_ms"] * 1000, p["dur_ms"] * 1000
        if pnames[e["pid"]] != p["comm"]:
            fail("span %s in process %r, -j printed comm %r" % (e, pnames[e["pid"]], p["comm"]))
    else:
        if kind == "runq":
            keys, tid, lat = ("comm", "tid", "cpu", "prev_comm", "prev_tid"), p["tid"], p["lat_us"]
        elif kind == "fslow":
            keys, tid, lat = ("comm", "pid", "lat_ns", "ret", "func"), p["pid"], \
                Decimal(p["lat_ns"]) / 1000
            if e["name"] != p["func"] or a.get("args") != (" ".join(p["args"]) if p["args"]
                                                           else None):
                fail("span %s: not named %r, or args not %s" % (e, p["func"], p["args"]))
        elif kind == "file":
            keys, tid, lat = ("comm", "tid", "pid", "dir", "call", "fd", "bytes", "errno",
                              "type", "file"), p["tid"], Decimal(p["lat_ns"]) / 1000
            if e["name"] != p["call"] or e["pid"] != p["pid"]:
                fail("span %s named %r in process %d, -j printed call %r pid %d"
                     % (e, e["name"], e["pid"], p["call"], p["pid"]))
        else:
            keys, tid, lat = ("comm", "pid", "type", "pages", "order", "gfp"), p["pid"], \
                p["lat_ms"] * 1000
        # (funcslower's ts is the call's start, the others' its end)
        start, dur = p["ts"] * 1000000 - (lat if kind != "fslow" else 0), lat
        if e["tid"] != tid:
            fail("span %s on thread %d, -j printed %d" % (e, e["tid"], tid))
        if kind == "dr" and e["name"] != p["type"]:
            fail("span %s named %r, -j printed type %r" % (e, e["name"], p["type"]))
        last_comm[(e["pid"], e["tid"])] = p["comm"]
    if {k: a.get(k) for k in keys} != {k: p[k] for k in keys}:
        fail("span args %s, -j printed %s" % (a, p))
    if abs(e["ts"] - start) > us + (us if kind != "io" else 0) or abs(e["dur"] - dur) > us:
        fail("span at %s us for %s us, -j printed start %s us for %s us"
             % (e["ts"], e["dur"], start, dur))
if kind in ("runq", "dr", "file", "fslow"):
    for key, comm in last_comm.items():
        if tnames[key] != comm:
            fail("thread %s named %r, -j printed %r last" % (key, tnames[key], comm))
print("%d spans, %d tracks" % (len(spans), len(tracks)))
