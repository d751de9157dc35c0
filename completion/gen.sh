#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Bash completion for the tools, made from the tools themselves: each tool's -h (printed from
# its option table, the one the man-page check compares) gives its options and which take a
# value, so the completion cannot drift from the code.
# usage: completion/gen.sh BIN OUTDIR TOOL...   (writes OUTDIR/TOOL, one file per tool)
set -eu
bin=$1 out=$2
shift 2
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
for tool in "$@"; do
	help=$("$bin/$tool" -h)
	# Option lines: "   -p PID   ..." or "   -j, --json ..." or "   --top N ...".
	opts=() args=()
	while read -r line; do
		[[ $line =~ ^(-[A-Za-z])(,\ (--[a-z][a-z-]*))?(\ ([A-Z][A-Z_.]*))? ]] ||
			[[ $line =~ ^()()(--[a-z][a-z-]*)(\ ([A-Z][A-Z_.\ \[]*))? ]] || continue
		short=${BASH_REMATCH[1]} long=${BASH_REMATCH[3]} arg=${BASH_REMATCH[5]%% *}
		[ "$arg" = CMD ] && arg=CMD
		for o in $short $long; do
			opts+=("$o")
			[ -n "$arg" ] && args+=("$o=$arg")
		done
	done < <(sed -n 's/^ \{2,\}\(-\)/\1/p' <<< "$help")
	# The operands: the synopsis's words after the options ("[interval [count]]", "EVENT").
	# (Only the first form: "tpoint -l [PATTERN]" on a later line is another.)
	operands=$(sed -n '1,/^   -/p' <<< "$help" | sed '$d' | tr -s ' \n' '  ' |
		sed "s/^USAGE: $tool //; s/ $tool .*//" |
		sed 's/\[-[^]]*\]//g; s/\[--[^]]*\]//g' | tr -d "[].'|" | tr -s ' ')
	# A PATTERN is of functions for the function tools, of paths for the others.
	case $tool in func*) ;; *) operands=${operands//PATTERN/FILE} ;; esac
	{
		echo "# bash completion for $tool (ftrace-tools), made by completion/gen.sh from '$tool -h'"
		sed -n '/^# --- shared/,$p' "$here/common.bash"
		fn=_ftt_${tool//-/_}
		echo "$fn() {"
		echo "	local opts='${opts[*]}'"
		echo "	local args='${args[*]}'"
		echo "	local operands='${operands# }'"
		echo "	_ftt_complete \"\$opts\" \"\$args\" \"\$operands\""
		echo "}"
		# fsslower and fsdist are also installed under the file systems' names (Makefile).
		case $tool in
		fsslower | fsdist) echo "complete -F $fn $tool ext4${tool#fs} xfs${tool#fs} btrfs${tool#fs} nfs${tool#fs}" ;;
		*) echo "complete -F $fn $tool" ;;
		esac
	} > "$out/$tool"
done
