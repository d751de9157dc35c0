# SPDX-License-Identifier: GPL-2.0-only
# The part of every tool's completion that is the same (completion/gen.sh copies it in).
# --- shared
# Values by the name of an option's argument in -h; operands by their name in the synopsis.
_ftt_values() {
	local kind=$1 cur=$2 w
	case $kind in
	PID | TID)
		w=$(cd /proc && echo [0-9]*) ;;
	NAME)
		w=$(cat /proc/[0-9]*/comm 2> /dev/null | sort -u) ;;
	DEV)
		w=$(cd /sys/class/block 2> /dev/null && echo *) ;;
	LIST | SIGNAL)
		# Comma-separated (KILL,TERM): the names before the last comma are kept.
		local pre=
		[[ $cur == *,* ]] && pre=${cur%,*},
		w=$(kill -l | tr -s '\t )' '\n\n\n' | sed -n 's/^SIG//p')
		COMPREPLY=($(compgen -P "$pre" -W "$w" -- "${cur##*,}"))
		return ;;
	ERRNO)
		w="EPERM ENOENT ESRCH EINTR EIO ENXIO E2BIG ENOEXEC EBADF ECHILD EAGAIN ENOMEM EACCES EFAULT EBUSY EEXIST EXDEV ENODEV ENOTDIR EISDIR EINVAL ENFILE EMFILE ENOTTY ETXTBSY EFBIG ENOSPC ESPIPE EROFS EMLINK EPIPE ERANGE ENAMETOOLONG ENOSYS ENOTEMPTY ELOOP ETIMEDOUT ECONNREFUSED ECONNRESET EADDRINUSE EINPROGRESS EOPNOTSUPP" ;;
	EVENT | EVENTS | TRACEPOINT | SYSTEM:EVENT*)
		# The running kernel's tracepoints, as tpoint lists them (read once per shell).
		[ -n "${_ftt_events:-}" ] || _ftt_events=$(tpoint -l 2> /dev/null)
		w=$_ftt_events ;;
	FUNC | PATTERN | FUNCS | GLOB)
		local t
		for t in /sys/kernel/tracing /sys/kernel/debug/tracing; do
			[ -r $t/available_filter_functions ] || continue
			[ -n "${_ftt_funcs:-}" ] || _ftt_funcs=$(cut -d' ' -f1 $t/available_filter_functions 2> /dev/null)
			w=$_ftt_funcs
			break
		done ;;
	PATH:PROVIDER:NAME)
		# usdt: a file, then its probes as usdt -l lists them (PATH:PROVIDER:NAME).
		if [[ $cur == *:* ]]; then
			local file=${cur%%:*} w
			w=$(usdt -l "$file" 2> /dev/null | awk -v f="$file" 'NR > 1 { print f ":" $1 ":" $2 }')
			COMPREPLY=($(compgen -W "$w" -- "$cur"))
		else
			compopt -o filenames -o nospace 2> /dev/null
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		return
		;;
	FILE | TARGET | DIR)
		compopt -o filenames 2> /dev/null
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	PATH)
		# --cgroup PATH: a cgroup's folder, from the cgroup root when nothing is typed.
		compopt -o filenames 2> /dev/null
		[ -n "$cur" ] || cur=/sys/fs/cgroup/
		COMPREPLY=($(compgen -d -- "$cur"))
		return ;;
	CMD)
		COMPREPLY=($(compgen -c -- "$cur"))
		return ;;
	*)
		COMPREPLY=()
		return ;;
	esac
	COMPREPLY=($(compgen -W "$w" -- "$cur"))
}

# _ftt_words: the command line's words as the user sees them, into _ftt_w (the word being
# completed is _ftt_w[_ftt_cw]). Bash splits COMP_WORDS at COMP_WORDBREAKS too, so
# "sched:sched_sw" comes as three words, "sched", ":" and "sched_sw", and "--signal=TE" as
# "--signal", "=" and "TE": the pieces not separated by blanks in COMP_LINE are joined again
# (what bash-completion's _get_comp_words_by_ref -n does; ours, as it may not be installed).
_ftt_words() {
	local line=${COMP_LINE:0:COMP_POINT} i w j=-1 blank
	_ftt_w=() _ftt_cw=0
	for ((i = 0; i <= COMP_CWORD && i < ${#COMP_WORDS[@]}; i++)); do
		w=${COMP_WORDS[i]}
		blank=0
		while [[ $line == [[:blank:]]* ]]; do line=${line:1} blank=1; done
		[ $i = "$COMP_CWORD" ] && w=${w:0:${#line}} # up to the cursor
		if ((i > 0 && !blank)); then _ftt_w[j]+=$w; else _ftt_w[++j]=$w; fi
		line=${line#"$w"}
	done
	_ftt_cw=$j
}

# _ftt_complete OPTIONS ARGS OPERANDS: OPTIONS the tool's option words, ARGS "opt=KIND" for
# those that take a value, OPERANDS the synopsis's operand names.
_ftt_complete() {
	local opts=$1 args=$2 operands=$3 cur prev a i
	_ftt_words
	cur=${_ftt_w[_ftt_cw]} prev=
	((_ftt_cw > 0)) && prev=${_ftt_w[_ftt_cw - 1]}
	# --opt=VALUE: the value of --opt.
	if [[ $cur == --*=* ]]; then
		prev=${cur%%=*} cur=${cur#*=}
	fi
	_ftt_complete_word "$cur" "$prev" "$opts" "$args" "$operands"
	# Bash puts a reply in place of the text after the last COMP_WORDBREAKS character of
	# the word (after "sched:" in "sched:sched_sw"), not of the whole word: the replies
	# lose what comes before it (bash-completion's __ltrim_colon_completions, for every
	# character of COMP_WORDBREAKS).
	local keep=
	[ -z "${COMP_WORDBREAKS:-}" ] || keep=${cur%"${cur##*["$COMP_WORDBREAKS"]}"}
	if [ -n "$keep" ]; then
		for i in "${!COMPREPLY[@]}"; do COMPREPLY[i]=${COMPREPLY[i]#"$keep"}; done
	fi
}

_ftt_complete_word() {
	local cur=$1 prev=$2 opts=$3 args=$4 operands=$5 a i
	# After --exec CMD: the command's own words are the command's.
	for ((i = 1; i < _ftt_cw; i++)); do
		if [ "${_ftt_w[i]}" = --exec ]; then
			if [ $((i + 1)) -eq "$_ftt_cw" ]; then
				_ftt_values CMD "$cur"
			else
				compopt -o filenames 2> /dev/null
				COMPREPLY=($(compgen -f -- "$cur"))
			fi
			return
		fi
	done
	for a in $args; do
		if [ "$prev" = "${a%%=*}" ]; then
			_ftt_values "${a#*=}" "$cur"
			return
		fi
	done
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi
	# The first operand's kind, for tools whose operands are events or functions.
	_ftt_values "${operands%% *}" "$cur"
}
