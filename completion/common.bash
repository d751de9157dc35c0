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
		w=$(kill -l | tr -s '\t )' '\n\n\n' | sed -n 's/^SIG//p') ;;
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
	FILE | TARGET | DIR)
		COMPREPLY=($(compgen -f -- "$cur"))
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

# _ftt_complete OPTIONS ARGS OPERANDS: OPTIONS the tool's option words, ARGS "opt=KIND" for
# those that take a value, OPERANDS the synopsis's operand names.
_ftt_complete() {
	local opts=$1 args=$2 operands=$3 cur prev a i
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	# After --exec CMD: the command's own words are the command's.
	for ((i = 1; i < COMP_CWORD; i++)); do
		if [ "${COMP_WORDS[i]}" = --exec ]; then
			if [ $((i + 1)) -eq "$COMP_CWORD" ]; then
				_ftt_values CMD "$cur"
			else
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
