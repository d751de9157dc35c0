// SPDX-License-Identifier: GPL-2.0-only
#include "domain/sysnr.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

struct entry {
	long nr;
	const char *name;
};

/* Every __NR_ of the compiler's headers, as {__NR_read, "read"}: made by the Makefile. */
static const struct entry table[] = {
#include "sysnr_table.h"
};

/*
 * Calls newer than the headers the tools may be built with (Debian 12's end at 450): since
 * Linux 5.1 a new call has the same number on x86_64, arm64 and riscv64 (from the kernel's
 * syscall tables). x86_64 has two of its own.
 */
static const struct entry newer[] = {
#if defined(__x86_64__) || defined(__aarch64__) || (defined(__riscv) && __riscv_xlen == 64)
	{451, "cachestat"},	    {452, "fchmodat2"},	       {453, "map_shadow_stack"},
	{454, "futex_wake"},	    {455, "futex_wait"},       {456, "futex_requeue"},
	{457, "statmount"},	    {458, "listmount"},	       {459, "lsm_get_self_attr"},
	{460, "lsm_set_self_attr"}, {461, "lsm_list_modules"}, {462, "mseal"},
	{463, "setxattrat"},	    {464, "getxattrat"},       {465, "listxattrat"},
	{466, "removexattrat"},	    {467, "open_tree_attr"},   {468, "file_getattr"},
	{469, "file_setattr"},	    {470, "listns"},
#endif
#if defined(__x86_64__)
	{335, "uretprobe"},	    {336, "uprobe"},
#endif
};

static int in_kernel(const char *const *kernel, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(kernel[i], name))
			return i;
	return -1;
}

/* The kernel's name of a call the headers name otherwise: its SYSCALL_DEFINE's
 * ("newstat", "sendfile64", "umount" for umount2, "sysctl" for _sysctl); NULL when it has
 * no event of it. */
static const char *kernel_name(const char *const *kernel, int n, const char *name, char *buf,
			       size_t len)
{
	if (!n || in_kernel(kernel, n, name) >= 0)
		return name;
	snprintf(buf, len, "new%s", name);
	if (in_kernel(kernel, n, buf) >= 0)
		return buf;
	snprintf(buf, len, "%s64", name);
	if (in_kernel(kernel, n, buf) >= 0)
		return buf;
	if (name[0] == '_' && in_kernel(kernel, n, name + 1) >= 0)
		return name + 1;
	size_t l = strlen(name);
	if (l > 1 && name[l - 1] >= '0' && name[l - 1] <= '9') {
		snprintf(buf, len, "%.*s", (int)(l - 1), name);
		if (in_kernel(kernel, n, buf) >= 0)
			return buf;
	}
	return NULL;
}

static int add(struct sysnr *t, const struct entry *e, const char *const *kernel, int n,
	       char *named)
{
	char buf[96];
	if (e->nr < 0 || e->nr >= t->max || t->name[e->nr])
		return 0;
	const char *k = kernel_name(kernel, n, e->name, buf, sizeof(buf));
	if (k && n) {
		int i = in_kernel(kernel, n, k);
		if (named[i])
			return 0; /* the kernel's call has a number already */
		named[i] = 1;
	}
	/* A call the kernel has no event for keeps the headers' name (rt_sigreturn). */
	if (!(t->name[e->nr] = strdup(k ? k : e->name)))
		return -1;
	return 0;
}

int sysnr_init(struct sysnr *t, const char *const *kernel, int n)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < sizeof(table) / sizeof(*table); i++)
		if (table[i].nr >= t->max)
			t->max = (int)table[i].nr + 1;
	for (size_t i = 0; i < sizeof(newer) / sizeof(*newer); i++)
		if (newer[i].nr >= t->max)
			t->max = (int)newer[i].nr + 1;
	char *named = calloc((size_t)n + 1, 1);
	t->name = calloc((size_t)t->max, sizeof(*t->name));
	if (!named || !t->name) {
		free(named);
		return -1;
	}
	int ret = 0;
	for (size_t i = 0; !ret && i < sizeof(table) / sizeof(*table); i++)
		ret = add(t, &table[i], kernel, n, named);
	/* Only where the headers have neither the number nor the name. */
	for (size_t i = 0; !ret && i < sizeof(newer) / sizeof(*newer); i++) {
		bool known = false;
		for (size_t j = 0; j < sizeof(table) / sizeof(*table) && !known; j++)
			known = !strcmp(table[j].name, newer[i].name);
		if (!known)
			ret = add(t, &newer[i], kernel, n, named);
	}
	t->kernel = n;
	size_t o = 0;
	for (int i = 0; i < n; i++) {
		if (named[i]) {
			t->named++;
			continue;
		}
		if (t->unnamed++ < 8 && o < sizeof(t->unnamed_list))
			o += (size_t)snprintf(t->unnamed_list + o, sizeof(t->unnamed_list) - o,
					      "%s%s", o ? ", " : "", kernel[i]);
	}
	free(named);
	if (ret)
		sysnr_free(t);
	return ret;
}

const char *sysnr_name(const struct sysnr *t, long nr, char *buf, size_t len)
{
	if (nr >= 0 && nr < t->max && t->name[nr])
		return t->name[nr];
	snprintf(buf, len, "syscall_%ld", nr);
	return buf;
}

long sysnr_number(const struct sysnr *t, const char *name)
{
	for (int i = 0; i < t->max; i++)
		if (t->name[i] && !strcmp(t->name[i], name))
			return i;
	return -1;
}

void sysnr_free(struct sysnr *t)
{
	for (int i = 0; t->name && i < t->max; i++)
		free((char *)t->name[i]);
	free(t->name);
	memset(t, 0, sizeof(*t));
}
