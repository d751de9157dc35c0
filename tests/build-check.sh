#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# build-check.sh: the Makefile builds as users and distributions build it. The flags of the
# user or of dpkg-buildflags (CFLAGS, CPPFLAGS, LDFLAGS) reach every compile and link line;
# warnings are errors only in the project's own checks (WERROR=1: make check, vmcheck-bin,
# CI), not in a plain build; and the code builds at -O0, where gcc's analysis is weaker
# (common/join/span.c once failed there with -Werror=restrict). And make deps is the build's.
set -u
cd "$(dirname "$0")/.."
# The makes below are asked as a user would ask them: not with what the make that runs this
# passes down (make check's variables, CI's WERROR=1 in the environment).
unset MAKEFLAGS MFLAGS MAKELEVEL WERROR SANITIZE
rc=0
fail() { echo "build: $*"; rc=1; }
tmp=$(mktemp -d /tmp/ftt-build.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# The commands make would run for a build from nothing (-n -B: nothing is built).
dry() { make -n -B B="$tmp/b" "$@" 2>&1; }

cpp=-DFTT_CPPFLAGS_SEEN cflags='-O1 -DFTT_CFLAGS_SEEN' ld=-Wl,-z,ftt-ldflags-seen
lines=$(dry CPPFLAGS="$cpp" CFLAGS="$cflags" LDFLAGS="$ld" all static)
compile=$(grep -E -- ' -c -o [^ ]+\.o ' <<< "$lines")
[ -n "$compile" ] || fail "make -n all: no compile line found"
for f in "$cpp" -DFTT_CFLAGS_SEEN; do
	missed=$(grep -vF -- "$f" <<< "$compile")
	[ -z "$missed" ] || fail "compile lines without $f: $(head -n 2 <<< "$missed")"
done
link=$(grep -E -- " -o $tmp/b/(static/)?[a-z-]+ " <<< "$lines")
[ "$(wc -l <<< "$link")" -ge 2 ] || fail "make -n all static: no link lines found"
missed=$(grep -vF -- "$ld" <<< "$link")
[ -z "$missed" ] || fail "link lines without LDFLAGS: $(head -n 2 <<< "$missed")"
missed=$(grep -vF -- -DFTT_CFLAGS_SEEN <<< "$link")
[ -z "$missed" ] || fail "link lines without CFLAGS: $(head -n 2 <<< "$missed")"
grep -- '-dM -E' <<< "$lines" | grep -qF -- "$cpp" || fail "the system call table is read without CPPFLAGS"

# -Werror: not in a plain build, in the project's checks.
dry all | grep -E -- ' -c -o ' | grep -q -- -Werror && fail "make all compiles with -Werror"
dry check | grep -E -- ' -c -o ' | grep -q -- -Werror || fail "make check compiles without -Werror"
dry vmcheck-bin | grep -E -- ' -c -o ' | grep -q -- -Werror ||
	fail "make vmcheck-bin compiles without -Werror"

# make deps (the quick start's first command) installs what building and running need, not
# the tests' packages; each test target installs its own before it needs them.
dry deps | grep -owE 'libcmocka-dev|chromium|qemu-system-x86|clang|trace-cmd|mandoc' | sort -u |
	tr '\n' ' ' | grep . && fail "make deps installs packages of the tests (above)"
for t in "check libcmocka-dev" "check chromium" "check SANITIZE=1 trace-cmd" "vmcheck-bin qemu-system-x86" \
	"vmcheck busybox-static" "fuzz libclang-rt-14-dev" "check libtracefs-dev"; do
	set -- $t
	dry "${@:1:$#-1}" | grep -q -- "DEPS=.*[\" ]${!#}[\" ]" || fail "make ${*:1:$#-1} does not install ${!#}"
done

# -O0 with warnings as errors: the library's objects (the tools' own files are small and
# use the same constructs; the whole build takes a minute more).
if ! out=$(make -s -j2 B="$tmp/o0" CFLAGS=-O0 WERROR=1 "$tmp/o0/libftt.a" 2>&1); then
	fail "make CFLAGS=-O0 WERROR=1 fails:"
	grep -E 'error' <<< "$out" | head -5
fi
[ $rc = 0 ] && echo "build: ok"
exit $rc
