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
		COMP_LINE=${COMP_WORDS[*]} COMP_POINT=${#COMP_LINE}
		"_ftt_${1//-/_}" # as completion/gen.sh names it
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
	# (the reply is what bash puts after the colon, the word's last COMP_WORDBREAKS character)
	if [ "$(id -u)" = 0 ] && PATH=$bin:$PATH complete_words tpoint tpoint sched:sched_swi | grep -qx sched_switch; then
		:
	elif [ "$(id -u)" = 0 ]; then
		fail "tpoint sched:sched_swi: no sched:sched_switch (from tpoint -l)"
	fi
fi
# usdt: a file's probes, from usdt -l (the test_sdt fixture, when built)
if [ -r "$dir/usdt" ] && [ -x "$bin/tests/sdt_fixture" ]; then
	PATH=$bin:$PATH complete_words usdt usdt "$bin/tests/sdt_fixture:fix:ga" | grep -qx gated ||
		fail "usdt $bin/tests/sdt_fixture:fix:ga: no fix:gated (from usdt -l)"
fi
if [ -r "$dir/iosnoop" ] && [ -e /sys/class/block ]; then
	d=$(cd /sys/class/block && ls | head -1)
	[ -z "$d" ] || complete_words iosnoop iosnoop -d "$d" | grep -qx "$d" || fail "iosnoop -d $d: not offered"
fi

# In a real interactive bash (tmux), as a user's Tab: bash splits the words at
# COMP_WORDBREAKS (':', '='), which a call of the function above does not show. Each line is
# typed, Tab pressed, and the line must read as expected; once in a bash with no
# bash-completion (a plain bash --norc), once with it loaded where it is installed.
# type_tab SETUP KEYS WANT: the prompt line after typing KEYS then Tab is WANT (the space
# bash adds after a complete word is not seen: tmux drops a line's trailing blanks).
type_tab() {
	local setup=$1 keys=$2 want=$3 n got
	tmux -S "$sock" kill-server 2> /dev/null
	tmux -S "$sock" -f /dev/null new-session -d -x 250 -y 20 \
		env -i HOME="$tmp" TERM=screen PATH="$PATH" COLUMNS=250 bash --norc --noprofile -i ||
		{ fail "tmux: no session"; return; }
	tmux -S "$sock" send-keys -l "PS1='ftt\$ '; $setup; clear" && tmux -S "$sock" send-keys Enter
	for ((n = 0; n < 50; n++)); do
		[ "$(tmux -S "$sock" capture-pane -p | grep -c .)" = 1 ] &&
			tmux -S "$sock" capture-pane -p | grep -qx 'ftt\$' && break
		sleep 0.1
	done
	tmux -S "$sock" send-keys -l "$keys" && tmux -S "$sock" send-keys Tab
	for ((n = 0; n < 50; n++)); do
		got=$(tmux -S "$sock" capture-pane -p | grep '^ftt\$ ' | tail -n 1)
		[ "$got" = "ftt\$ $want" ] && break
		sleep 0.1
	done
	[ "$got" = "ftt\$ $want" ] || fail "bash ($2<Tab>, ${setup:0:60}...): '${got#ftt\$ }', not '$want'"
	tmux -S "$sock" kill-server 2> /dev/null
}
if command -v tmux > /dev/null; then
	tmp=$(mktemp -d /tmp/ftt-compl.XXXXXX)
	sock=$tmp/tmux
	mkdir -p "$tmp/cg/only_folder" && touch "$tmp/cg/only_file"
	comp=$(cd "$dir" && pwd)
	setups=("source '$comp/killsnoop'; source '$comp/tpoint'; source '$comp/iosnoop'")
	bc=/usr/share/bash-completion/bash_completion
	[ -r $bc ] && setups+=("source $bc; ${setups[0]}")
	for setup in "${setups[@]}"; do
		type_tab "$setup" "killsnoop --signal KILL,TE" "killsnoop --signal KILL,TERM"
		type_tab "$setup" "killsnoop --signal=TE" "killsnoop --signal=TERM"
		type_tab "$setup" "iosnoop --cgroup $tmp/cg/o" "iosnoop --cgroup $tmp/cg/only_folder/"
		if [ "$(id -u)" = 0 ]; then
			type_tab "PATH=$(cd "$bin" && pwd):\$PATH; $setup" "tpoint sched:sched_swi" "tpoint sched:sched_switch"
		fi
	done
	rm -rf "$tmp" 2> /dev/null || { sleep 1; rm -rf "$tmp"; } # tmux may not have removed its socket yet
else
	echo "completion: skip: no tmux, the completion is not tried in an interactive bash (make check-deps)"
fi
exit $rc
