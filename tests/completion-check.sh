#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# completion-check.sh BIN COMPDIR TOOL...: the bash completion made by completion/gen.sh
# loads, offers every option of each tool's -h for "-", and completes values by kind:
# signal names, PIDs, block devices, commands after --exec, tracepoints as operands.
set -u
bin=$1 dir=$2
shift 2
rc=0
complete_words() { # TOOL WORD...: COMPREPLY of completing the last word
	(
		source "$dir/$1" || exit 1
		COMP_WORDS=("${@:2}")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		"_ftt_$1"
		printf '%s\n' "${COMPREPLY[@]}"
	)
}
fail() { echo "completion: $*"; rc=1; }
for tool in "$@"; do
	[ -r "$dir/$tool" ] || { fail "$tool: no completion file"; continue; }
	bash -n "$dir/$tool" || { fail "$tool: not valid bash"; continue; }
	want=$("$bin/$tool" -h | sed -n 's/^ \{2,\}\(-[A-Za-z]\|--[a-z-]*\)\(, \(--[a-z][a-z-]*\)\)\{0,1\}.*/\1 \3/p' |
		tr ' ' '\n' | grep . | sort -u)
	got=$(complete_words "$tool" "$tool" - | sort -u)
	missing=$(comm -23 <(echo "$want") <(echo "$got"))
	[ -z "$missing" ] || fail "$tool: options not offered for '-': $(echo $missing)"
done
# Values by kind, where those tools are.
if [ -r "$dir/killsnoop" ]; then
	complete_words killsnoop killsnoop --signal TE | grep -qx TERM || fail "killsnoop --signal TE: no TERM"
	complete_words killsnoop killsnoop -p 1 | grep -qx 1 || fail "killsnoop -p 1: PID 1 not offered"
fi
if [ -r "$dir/tpoint" ]; then
	complete_words tpoint tpoint --exec tru | grep -qx true || fail "tpoint --exec tru: no 'true'"
	# after --exec CMD the words are the command's (files), not tpoint's options
	complete_words tpoint tpoint --exec ls --js | grep -q -- --json && fail "tpoint --exec ls --js: offered tpoint's --json"
	if [ "$(id -u)" = 0 ] && PATH=$bin:$PATH complete_words tpoint tpoint sched:sched_swi | grep -qx sched:sched_switch; then
		:
	elif [ "$(id -u)" = 0 ]; then
		fail "tpoint sched:sched_swi: no sched:sched_switch (from tpoint -l)"
	fi
fi
if [ -r "$dir/iosnoop" ] && [ -e /sys/class/block ]; then
	d=$(cd /sys/class/block && ls | head -1)
	[ -z "$d" ] || complete_words iosnoop iosnoop -d "$d" | grep -qx "$d" || fail "iosnoop -d $d: not offered"
fi
exit $rc
