#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The container image (make image, oci/build.sh) run by podman on this machine: the archive
# loads under the version's tag, its labels say the version the binaries print, its one layer
# holds make static's binaries (the same files), the man pages, the completion and the licence
# and nothing else; a tool's --help in it prints what the binary prints here; and tpoint in
# it, privileged with the host's PID namespace and tracefs, counts exactly the opens of a
# host process it is given by its host PID; execsnoop in it sees a host process's exec, with
# its host PIDs and arguments. After: tracefs as before, no container left.
# Cost: about 20 s here once the image is built (make check builds it: make image, about
# 25 s, after make static); three containers are started, about 2 s each on this machine.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib.sh
require_live

ARCHIVE=${IMAGE_ARCHIVE:-$BIN/ftrace-tools.oci.tar}
if ! command -v podman > /dev/null || ! command -v runc > /dev/null; then
	skip "image: podman or runc not found (Debian's podman, runc: make check-deps; the guests have none)"
	summary
	exit 0
fi
if [ ! -f "$ARCHIVE" ]; then
	# make check builds it, but not under SANITIZE=1 (BIN=build/san): the image holds make
	# static's binaries, which that build has none of.
	skip "image: no $ARCHIVE (make image)"
	summary
	exit 0
fi
save_state
TOOLS=${TOOLS:-$(sed -n 's/^TOOLS *:= //p' Makefile)}

# How this machine runs a container. Its root lacks CAP_SYS_RESOURCE, so podman's defaults
# for root (open files and processes raised to 1048576) are refused ("setrlimit: Operation not
# permitted"): limits lowered instead, which any host allows. And it has cgroup v1 with a
# cgroup2 beside it, which crun refuses ("cgroups in hybrid mode not supported"): runc. The
# rest is the README's line, --network=none as there (the tools need none; it saves the
# network's setup, about 1.5 s a container here).
RUN="podman run --rm --network=none --runtime runc --ulimit nofile=4096:4096 --ulimit nproc=4096:4096"
NAME=ftt-image-test-$$
VERSION=$("$BIN/static/tpoint" --version | sed 's/.* //')
TAG=$(printf '%s' "$VERSION" | tr -c 'A-Za-z0-9_.-' -)

podman load -q -i "$ARCHIVE" > "$TMP/out" 2> "$TMP/err"
check "podman load of the archive: localhost/ftrace-tools:$TAG" \
	grep -qx "Loaded image: localhost/ftrace-tools:$TAG" "$TMP/out"
IMG=localhost/ftrace-tools:$TAG

# The labels and the user, in one question to podman (each costs about half a second).
podman image inspect --format '{{index .Labels "org.opencontainers.image.version"}}
{{index .Labels "org.opencontainers.image.source"}}
{{index .Labels "org.opencontainers.image.revision"}}
{{.Config.User}}' "$IMG" > "$TMP/inspect"
field() { sed -n "$1p" "$TMP/inspect"; }
check "label version: $VERSION, as the binaries print it" [ "$(field 1)" = "$VERSION" ]
check "label source: the project's home (debian/control)" \
	[ "$(field 2)" = "$(sed -n 's/^Homepage: //p' debian/control)" ]
# (built outside git: no commit in the version, and no revision)
rev=$(field 3)
short=$(printf '%s' "$VERSION" | sed -n 's/.*+git[0-9]*\.g\([0-9a-f]*\).*/\1/p')
case $short/$rev in
/) ok "label revision: none, as the version has no commit" ;;
?*/"$short"*) ok "label revision: the commit of the version ($rev)" ;;
*) notok "label revision '$rev' is not the commit of $VERSION" ;;
esac
check "user root (0:0), stated" [ "$(field 4)" = 0:0 ]

# What is in it, from the archive itself: its manifest's layers, unpacked by GNU tar, which
# reads a layer to its end. (umoci 0.4.7's insert left that end out: GNU tar and scanners
# refuse such a layer, runtimes take it; oci/build.sh does without insert.)
layers=$(tar -xOf "$ARCHIVE" ./index.json | python3 -c '
import json, subprocess, sys
for m in json.load(sys.stdin)["manifests"]:
    blob = "./blobs/" + m["digest"].replace(":", "/")
    manifest = subprocess.run(["tar", "-xOf", sys.argv[1], blob], capture_output=True).stdout
    for layer in json.loads(manifest)["layers"]:
        print("./blobs/" + layer["digest"].replace(":", "/"))
' "$ARCHIVE")
mkdir "$TMP/root"
: > "$TMP/out"
: > "$TMP/err"
for l in $layers; do
	tar -xOf "$ARCHIVE" "$l" | tar -xzf - -C "$TMP/root" 2>> "$TMP/err" || echo "$l" >> "$TMP/out"
done
n=$(echo $layers | wc -w)
bad=$(cat "$TMP/out" "$TMP/err")
check "the archive has one layer ($n), a whole tar file (GNU tar reads it to its end)" [ "$n/$bad" = "1/" ]
for t in $TOOLS; do
	echo "usr/sbin/$t"
	echo "usr/share/man/man8/$t.8"
	echo "usr/share/bash-completion/completions/$t"
done > "$TMP/want"
echo usr/share/doc/ftrace-tools/LICENSE >> "$TMP/want"
(cd "$TMP/root" && find . ! -type d | sed 's#^\./##') | sort > "$TMP/have"
sort -o "$TMP/want" "$TMP/want"
check "the image holds the tools, their man pages and completion, the licence, nothing else (no shell)" \
	cmp -s "$TMP/want" "$TMP/have" || diff "$TMP/want" "$TMP/have" | head -5 | sed 's/^/#   /'
differ=$(for t in $TOOLS; do cmp -s "$TMP/root/usr/sbin/$t" "$BIN/static/$t" || echo "$t"; done)
check "its binaries are make static's, byte for byte" [ -z "$differ" ] || echo "# differ: $differ"
rm -rf "$TMP/root"

$RUN --name $NAME "$IMG" execsnoop --help > "$TMP/out" 2> "$TMP/err"
rc=$?
"$BIN/static/execsnoop" --help > "$TMP/want" 2>&1
check "execsnoop --help in the image: exit 0 ($rc), what the binary prints here" \
	sh -c '[ $1 -eq 0 ] && cmp -s "$2/out" "$2/want"' - $rc "$TMP"

# A host process waits to make 2 x 500 opens; tpoint in the image, given its host PID, counts
# them: all, and no other process's.
spawn_target 500
rm -f "$TMP/out" "$TMP/err"
$RUN --name $NAME --privileged --pid=host -v /sys/kernel/tracing:/sys/kernel/tracing "$IMG" \
	tpoint -c -p $UTPID -d 2 syscalls:sys_enter_openat > "$TMP/out" 2> "$TMP/err" &
TPID=$!
ready_release
if wait_exit $TPID 30; then
	n=$(awk '$1 == "syscalls:sys_enter_openat" { n += $2 } END { print n + 0 }' "$TMP/out")
	check "tpoint -c -p HOST-PID in the image: exit 0 ($RC), the host process's 1000 opens counted ($n)" \
		[ "$RC.$n" = 0.1000 ]
else
	notok "tpoint in the image done within 30 s" "$TMP/err"
	podman rm -f $NAME > /dev/null 2>&1
fi

# A host process's exec, seen by execsnoop in the image: its host PID and PPID (this shell's)
# and its arguments, read from its memory at the exec. Where the kernel has no kprobes (this
# one) execsnoop reads them through uprobes on the C library, which it looks for among the
# container's files: the host's, mounted as the README says (without them, it reads /proc
# after the exec, [late], and a short-lived program's are lost).
rm -f "$TMP/out" "$TMP/err" "$TMP/pid"
$RUN --name $NAME --privileged --pid=host -v /sys/kernel/tracing:/sys/kernel/tracing \
	-v /usr/lib:/usr/lib:ro "$IMG" execsnoop -d 2 > "$TMP/out" 2> "$TMP/err" &
TPID=$!
wait_ready $TPID "$TMP/err" && sh -c 'echo $$ > "$1/pid"; exec /bin/true "ftt-image-$2"' - "$TMP" $$
if wait_exit $TPID 30; then
	pid=$(cat "$TMP/pid" 2> /dev/null)
	check "execsnoop -d 2 in the image: exit 0 ($RC), the host's exec of /bin/true with its PID $pid, PPID and arguments" \
		sh -c '[ "$1" = 0 ] && grep -Eq "$2" "$3"' - "$RC" "^true +$pid +$$ +0 +/bin/true ftt-image-$$\$" "$TMP/out"
else
	notok "execsnoop in the image done within 30 s" "$TMP/err"
	podman rm -f $NAME > /dev/null 2>&1
fi
# runqlat 1 1 as the README's DaemonSet runs it: its histogram printed, and its --prom file
# written into a folder of the host (node_exporter's textfile directory there), readable.
mkdir -p "$TMP/textfile"
rm -f "$TMP/out" "$TMP/err"
$RUN --name $NAME --privileged --pid=host -v /sys/kernel/tracing:/sys/kernel/tracing \
	-v "$TMP/textfile:/textfile" "$IMG" runqlat --prom /textfile/runqlat.prom 1 1 \
	> "$TMP/out" 2> "$TMP/err" &
TPID=$!
if wait_exit $TPID 30; then
	n=$(awk '$2 == "->" { n += $5 } END { printf "%.0f\n", n }' "$TMP/out")
	c=$(sed -n 's/^ftrace_tools_runqlat_[a-z_]*seconds_count \([0-9]*\)$/\1/p' "$TMP/textfile/runqlat.prom")
	check "runqlat --prom /textfile/runqlat.prom 1 1 in the image: exit 0 ($RC), waits in the histogram ($n) and in the host's file ($c)" \
		sh -c '[ "$1" = 0 ] && [ "$2" -gt 0 ] && [ "$2" = "$3" ]' - "$RC" "$n" "$c" ||
		{ head -3 "$TMP/err"; head -5 "$TMP/textfile/runqlat.prom"; } 2> /dev/null | sed 's/^/# /'
else
	notok "runqlat in the image done within 30 s" "$TMP/err"
	podman rm -f $NAME > /dev/null 2>&1
fi
check "tracefs as before" same_state
check "no container left (podman ps -a)" [ -z "$(podman ps -a -q --filter name=$NAME)" ]
summary
