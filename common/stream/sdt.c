// SPDX-License-Identifier: GPL-2.0-only
#include "stream/sdt.h"
#include "stream/usym.h"
#include "base/sig.h"

#include <ctype.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define NOTE_OWNER "stapsdt"
#define NOTE_TYPE 3

static unsigned long long get_addr(const unsigned char *p, bool is64)
{
	if (is64) {
		uint64_t v;
		memcpy(&v, p, sizeof(v));
		return v;
	}
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

/* The NUL-terminated string at *pos of desc into dst: 0, or -1 when it runs off the end or
 * does not fit. */
static int take_str(const unsigned char *desc, size_t len, size_t *pos, char *dst, size_t size)
{
	const unsigned char *nul = memchr(desc + *pos, 0, len - *pos);
	if (!nul || (size_t)(nul - (desc + *pos)) >= size)
		return -1;
	memcpy(dst, desc + *pos, (size_t)(nul - (desc + *pos)) + 1);
	*pos = (size_t)(nul - desc) + 1;
	return 0;
}

int sdt_note_parse(const void *desc, size_t len, bool is64, struct sdt_note *n, char *why,
		   size_t whylen)
{
	const unsigned char *d = desc;
	size_t w = is64 ? 8 : 4, pos = 3 * w;
	if (len < pos) {
		snprintf(why, whylen, "note of %zu bytes, shorter than its 3 addresses", len);
		return -1;
	}
	n->pc = get_addr(d, is64);
	n->base = get_addr(d + w, is64);
	n->sem = get_addr(d + 2 * w, is64);
	if (take_str(d, len, &pos, n->provider, sizeof(n->provider)) ||
	    take_str(d, len, &pos, n->name, sizeof(n->name))) {
		snprintf(why, whylen, "note's provider or name not terminated or over %d bytes",
			 SDT_NAME_MAX - 1);
		return -1;
	}
	/* The arguments' string may be missing in notes of version 1 (no arguments). */
	n->args[0] = 0;
	if (pos < len && take_str(d, len, &pos, n->args, sizeof(n->args))) {
		snprintf(why, whylen, "note's arguments not terminated or over %d bytes",
			 SDT_ARGS_MAX - 1);
		return -1;
	}
	return 0;
}

/* The address of section name, or 0 when the file has none. */
static unsigned long long section_addr(Elf *elf, const char *name, Elf_Scn **found)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;
		if (gelf_getshdr(scn, &sh) && (n = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    !strcmp(n, name)) {
			if (found)
				*found = scn;
			return sh.sh_addr;
		}
	}
	return 0;
}

int sdt_probes(const char *path, sdt_fn fn, void *ctx, char *why, size_t whylen)
{
	int fd, count = 0;
	struct Elf *elf = usym_elf_open(path, &fd);
	if (!elf) {
		snprintf(why, whylen, "%s is not an ELF file", path);
		return -1;
	}
	Elf_Scn *notes = NULL;
	unsigned long long base = section_addr(elf, ".stapsdt.base", NULL);
	section_addr(elf, ".note.stapsdt", &notes);
	Elf_Data *data = notes ? elf_getdata(notes, NULL) : NULL;
	bool is64 = gelf_getclass(elf) == ELFCLASS64;
	size_t pos = 0, next;
	bool stopped = false;
	GElf_Nhdr nh;
	size_t name_at, desc_at;
	while (data && pos < data->d_size &&
	       (next = gelf_getnote(data, pos, &nh, &name_at, &desc_at)) > 0) {
		pos = next;
		const char *owner = (const char *)data->d_buf + name_at;
		if (nh.n_type != NOTE_TYPE || nh.n_namesz != sizeof(NOTE_OWNER) ||
		    memcmp(owner, NOTE_OWNER, sizeof(NOTE_OWNER)))
			continue;
		struct sdt_probe p = {0};
		char reason[160];
		if (sdt_note_parse((const char *)data->d_buf + desc_at, nh.n_descsz, is64, &p.note,
				   reason, sizeof(reason))) {
			snprintf(why, whylen, "%s: probe %d: %s", path, count + 1, reason);
			count = -1;
			break;
		}
		/* Moved (prelink): .stapsdt.base is elsewhere than where the note saw it. */
		unsigned long long shift = base && p.note.base ? base - p.note.base : 0;
		p.addr = p.note.pc + shift;
		p.sem = p.note.sem ? p.note.sem + shift : 0;
		if (usym_elf_offset(elf, p.addr, true, &p.off) ||
		    (p.sem && usym_elf_offset(elf, p.sem, false, &p.sem_off))) {
			snprintf(why, whylen, "%s: probe %s:%s at 0x%llx: %s not in the file's %s",
				 path, p.note.provider, p.note.name, p.addr,
				 p.sem ? "it or its semaphore" : "address",
				 p.sem ? "segments" : "code");
			count = -1;
			break;
		}
		count++;
		if (fn && fn(&p, ctx)) {
			stopped = true;
			break;
		}
	}
	/* A note cut short (its sizes past the section's end) ends gelf_getnote's walk. */
	if (count >= 0 && !stopped && data && pos < data->d_size && pos + 12 <= data->d_size) {
		snprintf(why, whylen, "%s: a malformed note after %d probes", path, count);
		count = -1;
	}
	elf_end(elf);
	close(fd);
	return count;
}

/* x86-64 registers by every name a note may use, as uprobe_events names them. */
static const struct {
	const char *name;
	const char *reg;
} x86_regs[] = {
	{"rax", "ax"},	{"eax", "ax"},	{"ax", "ax"},	{"al", "ax"},	{"rbx", "bx"},
	{"ebx", "bx"},	{"bx", "bx"},	{"bl", "bx"},	{"rcx", "cx"},	{"ecx", "cx"},
	{"cx", "cx"},	{"cl", "cx"},	{"rdx", "dx"},	{"edx", "dx"},	{"dx", "dx"},
	{"dl", "dx"},	{"rsi", "si"},	{"esi", "si"},	{"si", "si"},	{"sil", "si"},
	{"rdi", "di"},	{"edi", "di"},	{"di", "di"},	{"dil", "di"},	{"rbp", "bp"},
	{"ebp", "bp"},	{"bp", "bp"},	{"bpl", "bp"},	{"rsp", "sp"},	{"esp", "sp"},
	{"sp", "sp"},	{"spl", "sp"},	{"rip", "ip"},	{"r8", "r8"},	{"r9", "r9"},
	{"r10", "r10"}, {"r11", "r11"}, {"r12", "r12"}, {"r13", "r13"}, {"r14", "r14"},
	{"r15", "r15"},
};

/* "%edi" (at p, len n) as "di"; r8d/r8w/r8b/r8l as r8. NULL when not a register. */
static const char *reg_name(const char *p, size_t n)
{
	char name[8];
	if (n < 2 || n >= sizeof(name) || *p != '%')
		return NULL;
	memcpy(name, p + 1, n - 1);
	name[n - 1] = 0;
	size_t l = strlen(name);
	if (name[0] == 'r' && isdigit((unsigned char)name[1]) && l > 2 &&
	    strchr("dwbl", name[l - 1]))
		name[l - 1] = 0;
	for (size_t i = 0; i < sizeof(x86_regs) / sizeof(x86_regs[0]); i++)
		if (!strcmp(name, x86_regs[i].name))
			return x86_regs[i].reg;
	return NULL;
}

/* A signed decimal or 0x number filling [p, end): 0, or -1. */
static int number(const char *p, const char *end, long long *v)
{
	char buf[32], *e;
	if (end - p < 1 || (size_t)(end - p) >= sizeof(buf))
		return -1;
	memcpy(buf, p, (size_t)(end - p));
	buf[end - p] = 0;
	if (!isdigit((unsigned char)buf[buf[0] == '-' || buf[0] == '+']))
		return -1;
	errno = 0;
	if (buf[0] == '-')
		*v = strtoll(buf, &e, 0);
	else /* 8@$0xffffffffffffffff: unsigned, kept in its bits */
		*v = (long long)strtoull(buf + (buf[0] == '+'), &e, 0);
	return *e || errno ? -1 : 0;
}

int sdt_arg_parse(const char *spec, struct sdt_arg *a, char *why, size_t whylen)
{
	const char *at = strchr(spec, '@'), *op = spec;
	memset(a, 0, sizeof(*a));
	a->size = 8; /* notes of version 1 give no size: a word */
	if (at) {
		long long size;
		if (number(spec, at, &size) || (llabs(size) != 1 && llabs(size) != 2 &&
						llabs(size) != 4 && llabs(size) != 8)) {
			snprintf(why, whylen, "'%s': size not one of 1, 2, 4, 8 (- for signed)",
				 spec);
			return -1;
		}
		a->is_signed = size < 0;
		a->size = (int)llabs(size);
		op = at + 1;
	}
	snprintf(a->type, sizeof(a->type), "%c%d", a->is_signed ? 's' : 'u', a->size * 8);
	size_t n = strlen(op);
	const char *reg, *paren = strchr(op, '(');
	if (op[0] == '$') {
		a->kind = SDT_CONST;
		if (number(op + 1, op + n, &a->value)) {
			snprintf(why, whylen, "'%s': not a number (a symbol's address?)", spec);
			return -1;
		}
		return 0;
	}
	if ((reg = reg_name(op, n))) {
		if (!strcmp(reg, "ip"))
			goto unsupported;
		a->kind = SDT_REG;
		snprintf(a->fetch, sizeof(a->fetch), "%%%s", reg);
		return 0;
	}
	if (paren && op[n - 1] == ')') {
		long long off = 0;
		if (paren > op && strcmp(paren, "(%rip)") && number(op, paren, &off)) {
			snprintf(why, whylen, "'%s': not a number before '(' (a symbol?)", spec);
			return -1;
		}
		const char *r = paren + 1;
		/* SYMBOL[+-N](%rip): a variable (the number alone would be relative to an
		 * instruction the note does not name). */
		if (!strcmp(r, "%rip)") && paren > op &&
		    (isalpha((unsigned char)*op) || *op == '_' || *op == '.')) {
			size_t sl = strcspn(op, "+-(");
			if (sl >= sizeof(a->symbol) ||
			    (op[sl] != '(' && number(op + sl, paren, &a->value))) {
				snprintf(why, whylen, "'%s': not SYMBOL[+-N](%%rip)", spec);
				return -1;
			}
			memcpy(a->symbol, op, sl);
			a->symbol[sl] = 0;
			a->kind = SDT_GLOBAL;
			return 0;
		}
		if (strchr(r, ',') || !(reg = reg_name(r, (size_t)(op + n - 1 - r))) ||
		    !strcmp(reg, "ip"))
			goto unsupported;
		a->kind = SDT_MEM;
		snprintf(a->fetch, sizeof(a->fetch), "%+lld(%%%s)", off, reg);
		return 0;
	}
unsupported:
	snprintf(why, whylen,
		 "'%s': an operand uprobes cannot fetch (register, OFF(%%reg) and $constant "
		 "are)",
		 spec);
	return -1;
}

int sdt_fetch_args(const char *args, int string_arg, bool imm, const char *path,
		   const struct sdt_probe *site, char *out, size_t len, unsigned *consts,
		   long long *values, char *why, size_t whylen)
{
	size_t o = 0;
	int argc = 0;
	*consts = 0;
	if (len)
		out[0] = 0;
	for (const char *p = args; *p;) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		const char *end = strchr(p, ' ');
		size_t l = end ? (size_t)(end - p) : strlen(p);
		char spec[128];
		struct sdt_arg a;
		if (argc == SDT_ARGC_MAX) {
			snprintf(why, whylen, "more than %d arguments", SDT_ARGC_MAX);
			return -1;
		}
		if (l >= sizeof(spec)) {
			snprintf(why, whylen, "argument %d: over %zu bytes", argc + 1,
				 sizeof(spec) - 1);
			return -1;
		}
		memcpy(spec, p, l);
		spec[l] = 0;
		p += l;
		argc++;
		if (sdt_arg_parse(spec, &a, why, whylen))
			return -1;
		char one[128];
		if (a.kind == SDT_GLOBAL) {
			unsigned long long addr;
			if (!site || usym_symbol_addr(path, a.symbol, &addr)) {
				snprintf(why, whylen, "argument %d (%s): no symbol %s in %s", argc,
					 spec, a.symbol, path ? path : "the file");
				return -1;
			}
			/* In an executable linked at fixed addresses, the variable's own address;
			 * else its distance from the probe, from the probe's file offset, which
			 * the kernel turns into an address (@+: 5.10's read 0 for a static
			 * program's variable there, where 4.19's and 6.18's read it right). */
			if (usym_fixed(path) == 1)
				snprintf(a.fetch, sizeof(a.fetch), "@0x%llx",
					 addr + (unsigned long long)a.value);
			else
				snprintf(a.fetch, sizeof(a.fetch), "@+0x%llx",
					 site->off +
						 (addr + (unsigned long long)a.value - site->addr));
			a.kind = SDT_MEM;
		}
		if (argc == string_arg) {
			if (a.kind == SDT_CONST) {
				snprintf(why, whylen,
					 "argument %d is a constant (%s): not a string", argc,
					 spec);
				return -1;
			}
			/* The pointer in a register, or one more dereference for one in memory. */
			snprintf(one, sizeof(one), " arg%d=+0(%s):string", argc, a.fetch);
		} else if (a.kind == SDT_CONST) {
			values[argc - 1] = a.value;
			if (!imm) {
				*consts |= 1u << (argc - 1);
				continue;
			}
			if (a.is_signed)
				snprintf(one, sizeof(one), " arg%d=\\%lld:%s", argc, a.value,
					 a.type);
			else
				snprintf(one, sizeof(one), " arg%d=\\%llu:%s", argc,
					 (unsigned long long)a.value, a.type);
		} else {
			snprintf(one, sizeof(one), " arg%d=%s:%s", argc, a.fetch, a.type);
		}
		size_t ol = strlen(one + (o == 0));
		if (o + ol >= len) {
			snprintf(why, whylen, "fetch arguments over %zu bytes", len - 1);
			return -1;
		}
		memcpy(out + o, one + (o == 0), ol + 1);
		o += ol;
	}
	return argc;
}

/* Where pid maps file offset off of the file (device, inode): 0, or -1. */
static int mapped_at(int pid, dev_t dev, ino_t ino, unsigned long long off,
		     unsigned long long *addr)
{
	char maps[48], line[PATH_MAX + 128];
	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	FILE *f = fopen(maps, "r");
	int ret = -1;
	if (!f)
		return -1;
	while (ret && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff, inode;
		unsigned major, minor;
		if (sscanf(line, "%llx-%llx %*s %llx %x:%x %llu", &start, &end, &pgoff, &major,
			   &minor, &inode) == 6 &&
		    inode == (unsigned long long)ino && makedev(major, minor) == dev &&
		    off >= pgoff && off - pgoff + 2 <= end - start) {
			*addr = start + (off - pgoff);
			ret = 0;
		}
	}
	fclose(f);
	return ret;
}

int sdt_sem_raise(struct sdt_sem *s, int pid, const char *path, unsigned long long sem_off,
		  char *why, size_t whylen)
{
	struct stat st;
	uint16_t v;
	memset(s, 0, sizeof(*s));
	s->emergency = -1;
	if (stat(path, &st) || mapped_at(pid, st.st_dev, st.st_ino, sem_off, &s->addr)) {
		snprintf(why, whylen, "process %d does not map %s", pid, path);
		return -1;
	}
	snprintf(s->mem, sizeof(s->mem), "/proc/%d/mem", pid);
	int fd = open(s->mem, O_RDWR | O_CLOEXEC);
	if (fd < 0 || pread(fd, &v, sizeof(v), (off_t)s->addr) != (ssize_t)sizeof(v) ||
	    v == UINT16_MAX) {
		snprintf(why, whylen, "cannot read the semaphore at 0x%llx of process %d", s->addr,
			 pid);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* The step first: a signal right after the write still lowers it. */
	s->emergency = sig_on_emergency_decrement(s->mem, s->addr);
	v++;
	if (s->emergency < 0 || pwrite(fd, &v, sizeof(v), (off_t)s->addr) != (ssize_t)sizeof(v)) {
		sig_forget(s->emergency);
		snprintf(why, whylen, "cannot write the semaphore at 0x%llx of process %d", s->addr,
			 pid);
		close(fd);
		return -1;
	}
	close(fd);
	s->raised = true;
	return 0;
}

void sdt_sem_lower(struct sdt_sem *s)
{
	uint16_t v;
	if (!s->raised)
		return;
	s->raised = false;
	sig_forget(s->emergency);
	int fd = open(s->mem, O_RDWR | O_CLOEXEC);
	if (fd >= 0 && pread(fd, &v, sizeof(v), (off_t)s->addr) == (ssize_t)sizeof(v) && v) {
		v--;
		if (pwrite(fd, &v, sizeof(v), (off_t)s->addr) != (ssize_t)sizeof(v))
			v = 0; /* the process is gone, or its memory with it */
	}
	if (fd >= 0)
		close(fd);
}
