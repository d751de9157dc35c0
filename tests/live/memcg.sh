# SPDX-License-Identifier: GPL-2.0-only
# A memory cgroup for the live tests of oomkill and drsnoop (sourced after lib.sh): the
# machine's cgroup v1 memory hierarchy, a cgroup v2 one with the memory controller, or one
# of v2 mounted here (the qemu guests mount none). Removed by memcg_remove.

# memcg_make NAME LIMIT: $MEMCG is the new group's directory, $MEMCG_PATH its path as the
# kernel names it (from the hierarchy's root), $MEMCG_V 1 or 2; 1 (and $MEMCG_WHY) when
# there is no memory controller.
memcg_make() {
	MEMCG= MEMCG_OWN=
	root=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/mounts)
	if [ -n "$root" ]; then
		MEMCG_V=1
	else
		for m in $(awk '$3 == "cgroup2" { print $2 }' /proc/mounts); do
			grep -qw memory "$m/cgroup.controllers" 2> /dev/null && { root=$m; break; }
		done
		if [ -z "$root" ] && grep -q '^memory[[:space:]].*1$' /proc/cgroups 2> /dev/null; then
			mkdir -p "$TMP/cg2"
			mount -t cgroup2 none "$TMP/cg2" 2> /dev/null && MEMCG_OWN=$TMP/cg2
			if [ -n "$MEMCG_OWN" ] && grep -qw memory "$MEMCG_OWN/cgroup.controllers"; then
				root=$MEMCG_OWN
			fi
		fi
		MEMCG_V=2
		[ -n "$root" ] && ! grep -qw memory "$root/cgroup.subtree_control" &&
			echo +memory > "$root/cgroup.subtree_control" 2> /dev/null
	fi
	if [ -z "$root" ]; then
		MEMCG_WHY="no memory cgroup in this kernel (CONFIG_MEMCG), or its controller is bound elsewhere"
		memcg_remove
		return 1
	fi
	MEMCG=$root/$1 MEMCG_PATH=/$1
	mkdir "$MEMCG" || { MEMCG_WHY="cannot make $MEMCG"; MEMCG=; memcg_remove; return 1; }
	if [ $MEMCG_V = 1 ]; then
		echo "$2" > "$MEMCG/memory.limit_in_bytes"
		echo 0 > "$MEMCG/memory.swappiness" 2> /dev/null
	else
		echo "$2" > "$MEMCG/memory.max"
		echo 0 > "$MEMCG/memory.swap.max" 2> /dev/null
	fi
}

# memcg_run CMD [ARG...]: CMD in the group, in the foreground; its exit status.
memcg_run() {
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$MEMCG" "$@"
}
# memcg_start CMD [ARG...]: the same in the background, its PID in $MEMCG_PID.
memcg_start() {
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$MEMCG" "$@" &
	MEMCG_PID=$!
}

# memcg_oom_kills: the kills the kernel counted in the group (4.13+), or nothing.
memcg_oom_kills() {
	sed -n 's/^oom_kill \([0-9]*\)$/\1/p' "$MEMCG/memory.events" "$MEMCG/memory.oom_control" \
		2> /dev/null | head -1
}

# memcg_stat KEY: a counter of the group's memory.stat (v2: pgsteal_direct...), or nothing.
memcg_stat() {
	awk -v k="$1" '$1 == k { print $2 }' "$MEMCG/memory.stat" 2> /dev/null
}

memcg_remove() {
	[ -n "$MEMCG" ] && [ -d "$MEMCG" ] && rmdir "$MEMCG" 2> /dev/null
	[ -n "${MEMCG_OWN:-}" ] && umount "$MEMCG_OWN" 2> /dev/null
	MEMCG_OWN=
	return 0
}
