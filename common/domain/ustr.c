// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE /* process_vm_readv */
#include "domain/ustr.h"
#include "kernel/probe.h"
#include "kernel/session.h"
#include "stream/usym.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

const char *const ustr_via_names[USTR_BEST] = {"kprobe", "eprobe", "uprobe"};

const char *ustr_arg_reg(int n)
{
#if defined(__x86_64__)
	static const char *const regs[] = {"%di", "%si", "%dx", "%cx", "%r8", "%r9"};
#elif defined(__aarch64__)
	static const char *const regs[] = {"%x0", "%x1", "%x2", "%x3", "%x4", "%x5"};
#elif defined(__riscv) && __riscv_xlen == 64
	static const char *const regs[] = {"%a0", "%a1", "%a2", "%a3", "%a4", "%a5"};
#endif
#if defined(__x86_64__) || defined(__aarch64__) || (defined(__riscv) && __riscv_xlen == 64)
	return n >= 1 && n <= (int)(sizeof(regs) / sizeof(*regs)) ? regs[n - 1] : NULL;
#else
	(void)n;
	return NULL;
#endif
}

int ustr_expand(const char *tmpl, char *out, size_t len)
{
	size_t o = 0;
	for (const char *p = tmpl; *p; p++) {
		const char *add = NULL;
		char one[2] = {*p, 0};
		if (p[0] == '$' && p[1] >= '1' && p[1] <= '9') {
			if (!(add = ustr_arg_reg(p[1] - '0')))
				return -1;
			p++;
		} else {
			add = one;
		}
		size_t n = strlen(add);
		if (o + n >= len)
			return -1;
		memcpy(out + o, add, n);
		o += n;
	}
	out[o] = 0;
	return 0;
}

struct tep_event *ustr_kprobe(struct session *s, const char *name, const struct ustr_kfunc *fs,
			      int n, int *which)
{
	if (!probe_available(s, PROBE_KPROBE, true))
		return NULL;
	for (int i = 0; i < n; i++) {
		struct tep_event *ev =
			probe_try(s, PROBE_KPROBE, fs[i].type, name, fs[i].func, fs[i].args);
		if (ev) {
			*which = i;
			return ev;
		}
	}
	return NULL;
}

struct tep_event *ustr_eprobe(struct session *s, const char *name, const char *call,
			      const char *args)
{
	char target[96];
	if (!probe_available(s, PROBE_EPROBE, true))
		return NULL;
	snprintf(target, sizeof(target), "syscalls.sys_enter_%s", call);
	return probe_try(s, PROBE_EPROBE, 'e', name, target, args);
}

int ustr_uprobes(struct session *s, const struct ustr_func *fs, int n,
		 void (*made)(struct tep_event *ev, int i, void *ctx), void *ctx, char *lib,
		 size_t liblen, const char **why)
{
	char err[256], target[PATH_MAX + 32], args[4096];
	unsigned long long offs[64];
	int done = 0;
	*why = "no uprobes (CONFIG_UPROBE_EVENTS) in this kernel";
	if (!probe_available(s, PROBE_UPROBE, true))
		return -1;
	*why = "no shared C library found to probe (libc.so.6)";
	if (usym_target("libc", lib, liblen))
		return -1;
	*why = "the argument registers of this architecture are not known";
	for (int i = 0; i < n && done < (int)(sizeof(offs) / sizeof(*offs)); i++) {
		unsigned long long off;
		if (usym_offset(lib, fs[i].sym, false, &off, err, sizeof(err)))
			continue;
		bool dup = false;
		for (int j = 0; j < done; j++)
			dup |= offs[j] == off;
		if (dup)
			continue;
		if (ustr_expand(fs[i].args, args, sizeof(args)))
			return -1;
		offs[done++] = off;
		snprintf(target, sizeof(target), "%s:0x%llx", lib, off);
		struct tep_event *ev = probe_try(s, PROBE_UPROBE, 'p',
						 fs[i].name ? fs[i].name : fs[i].sym, target, args);
		if (!ev) {
			*why = "the kernel refused a uprobe on the C library";
			return -1;
		}
		made(ev, i, ctx);
	}
	*why = "the C library has none of the functions";
	return done ? done : -1;
}

int ustr_bare_args(const char *tmpl, char *out, size_t len)
{
	size_t o = 0;
	out[0] = 0;
	for (const char *p = tmpl; *p;) {
		size_t n = strcspn(p, " ");
		unsigned slot;
		char arg[16];
		int used = 0;
		/* sN=+0(ARG):string, ARG a $N or a register */
		if (sscanf(p, "s%u=+0(%15[^)]):string%n", &slot, arg, &used) == 2 &&
		    (size_t)used == n) {
			int w = snprintf(out + o, len - o, "%sp%u=%s:u64", o ? " " : "", slot, arg);
			if (w < 0 || (size_t)w >= len - o)
				return -1;
			o += (size_t)w;
		}
		p += n;
		p += strspn(p, " ");
	}
	return 0;
}

ssize_t ustr_caller_memory(int tid, uint64_t at, char *buf, size_t len)
{
	struct iovec local = {buf, len}, remote = {(void *)(uintptr_t)at, len};
	ssize_t n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
	if (n >= 0 || errno != ENOSYS)
		return n;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/mem", tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = pread(fd, buf, len, (off_t)at);
	close(fd);
	return n;
}

bool ustr_read_late(int tid, uint64_t at, char *buf, size_t size, size_t *len)
{
	char more[4096];
	ssize_t n = ustr_caller_memory(tid, at, buf, size - 1);
	if (n <= 0)
		return false;
	buf[n] = 0;
	*len = strnlen(buf, (size_t)n);
	/* Its length: on to the NUL, at most the 128 KB of the kernel's MAX_ARG_STRLEN. */
	for (size_t off = (size_t)n; *len == off && off < 131072; off += (size_t)n) {
		if ((n = ustr_caller_memory(tid, at + off, more, sizeof(more))) <= 0) {
			*len = SIZE_MAX;
			break;
		}
		*len += strnlen(more, (size_t)n);
	}
	if (*len >= 131072)
		*len = SIZE_MAX;
	return true;
}
