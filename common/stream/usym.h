/* SPDX-License-Identifier: GPL-2.0-only */
/* usym: user-space targets and symbols for uprobes, read from ELF files with libelf. */
#ifndef FTT_USYM_H
#define FTT_USYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/*
 * TARGET (target) as the user gave it: a path; a program found in PATH (only in folders that
 * are absolute, root's and written by nobody else); or a library name (libc, libssl,
 * libc.so.6) found the way the dynamic loader would (its cache, read here and trusted only
 * when it is root's and not a link, then its default folders). No program is run. Returns 0
 * and the real path in path (len bytes), or -1 when none is found (nothing said).
 */
int usym_target(const char *target, char *path, size_t len);

/*
 * The file offset of SYMBOL[+off] (symbol) in the ELF file at path, for uprobe_events, into
 * off. SYMBOL may carry a version (open@@GLIBC_2.2.5) or be an address (0x4004f0). Unless
 * any_type, only functions. Returns 0, or -1 with a reason in why (whylen bytes; also when the
 * address is not in an executable segment).
 */
int usym_offset(const char *path, const char *symbol, bool any_type, unsigned long long *off,
		char *why, size_t whylen);

struct Elf;
/* The file at path as libelf sees it, its descriptor in *fd. Returns it (the caller ends it
 * with elf_end and frees *fd with close(*fd) after), or NULL when it cannot be opened or is not
 * ELF (nothing to close then). */
struct Elf *usym_elf_open(const char *path, int *fd);
/* Virtual address vaddr of elf to file offset, into off, through the loadable segments.
 * Returns 0, or -1 when no segment holds it, -2 when the one that does is not executable
 * (exec: a uprobe there never fires, or patches data: the ELF header at 0x1) or is (!exec: a
 * USDT semaphore is data). */
int usym_elf_offset(struct Elf *elf, unsigned long long vaddr, bool exec, unsigned long long *off);

/* The address (st_value) of a symbol of any type (a variable) in the file at path, by name
 * (symbol; a versioned one matches too), into vaddr. Returns 0, or -1 when the file has none
 * of that name (or is not ELF). */
int usym_symbol_addr(const char *path, const char *symbol, unsigned long long *vaddr);
/* Is path an executable linked at fixed addresses (ELF type ET_EXEC: its symbols' addresses
 * are where they run)? Returns 1 when it is, 0 when not (a shared object, a PIE), -1 when
 * unreadable. */
int usym_fixed(const char *path);

/* The program interpreter the file at path asks for (PT_INTERP: "/lib64/ld-linux-x86-64.so.2"),
 * into interp (len bytes, terminated). Returns 0, or -1 when it has none (a static program,
 * most libraries), or it does not fit, or the file is not ELF. */
int usym_interp(const char *path, char *interp, size_t len);
/* The file offset of the entry point (e_entry) of the file at path, where a uprobe sees the
 * program start with argc and argv on its stack, into off. Returns 0, or -1 (not ELF, no entry
 * point, or not in an executable segment). */
int usym_entry(const char *path, unsigned long long *off);

typedef void (*usym_fn)(const char *name, unsigned long long off, void *ctx);
/*
 * The functions of the file at path whose names (without a version) match glob: fn(name, file
 * offset, ctx) for each symbol in an executable segment, aliases included (the same offset
 * under several names), and twice for one in both .symtab and .dynsym; the name is valid
 * during the call only. IFUNCs are left out (a uprobe there would see their resolver, which
 * runs once at load, not the calls) and counted in *ifuncs (ifuncs may be NULL). Returns how
 * many calls of fn, -1 when the file is not ELF.
 */
int usym_functions(const char *path, const char *glob, usym_fn fn, void *ctx, int *ifuncs);

/* The function symbols of the file at path to out, one per line, sorted, each name once.
 * Returns how many, -1 when the file is not ELF or memory runs out. */
int usym_list(const char *path, FILE *out);

/* Does process pid map the file at path now (its device and inode among its maps)? (A uprobe
 * is on the file: a process that maps another copy, or none, fires none.) Returns true when it
 * does, or when it cannot be told; false when it does not. */
bool usym_maps_file(int pid, const char *path);
/* Read pid's maps now, while it lives, for usym_addr to name its frames after it has exited
 * (a -p target that ends before its events are read). Returns 0, or -1 when they cannot be
 * read. */
int usym_prime(int pid);
/*
 * A user-space address addr of process pid, for stacks: "symbol+0xoff (/path/of/file)", or
 * the address with what is mapped there ("[vdso]", "anonymous"), JIT code named from
 * /tmp/perf-PID.map ("name+0xoff ([perf-PID.map])"), or only the address when the process is
 * gone. Maps and symbol tables are cached (the maps read again when an address is in none of
 * them) until usym_addr_free. The result is in buf (len bytes). Returns buf (the caller's).
 */
const char *usym_addr(int pid, unsigned long long addr, char *buf, size_t len);
/* Free the caches of usym_addr (maps, symbol tables, the JIT map), forget the file indexes of
 * usym_addr_file, and turn usym_lazy and usym_addr_followed off again. */
void usym_addr_free(void);
/* Naming later (a profile printed at its end): where addr of pid is now, as a file (an index
 * for usym_file_name, into file, valid until usym_addr_free) and the offset in it (foff).
 * Returns 1, or 0 when it is in no mapped file (name it now with usym_addr). The file stays
 * known after the process has gone or exec'd. */
int usym_addr_file(int pid, unsigned long long addr, int *file, unsigned long long *foff);
/* "symbol+0xoff (/path)" or "0xVADDR (/path)" of offset foff in a file of usym_addr_file, into
 * buf (len bytes). Returns buf (the caller's). */
const char *usym_file_name(int file, unsigned long long foff, char *buf, size_t len);
/* on: a file mapped at the same path as here has its symbols read when first named, not when
 * its mapping is read (its identity checked then: one replaced since has none); the files
 * that go with their process (deleted, replaced, in another mount namespace) are read at
 * once. Off again at usym_addr_free. */
void usym_lazy(bool on);
/* A mapping of pid told by the kernel (a perf MMAP2 record): start, len bytes, at file offset
 * off of path ("//anon": anonymous memory), added to its maps (read from /proc first while it
 * lives), over what it covers. A process that has exited is named from the mappings told. dev
 * and ino: the mapped file's (ino 0: not known); a file since replaced at its path is read as
 * mapped while the process lives, else has no symbols. Returns 0, or -1 when out of memory. */
int usym_addr_map(int pid, unsigned long long start, unsigned long long len, unsigned long long off,
		  const char *path, dev_t dev, unsigned long long ino);
/* The same from a PERF_RECORD_MMAP2 record's body (len bytes; attr.mmap2, 3.16+: pid, tid,
 * addr, len, pgoff, device or build id, inode, generation, prot, flags, then the file's name).
 * Returns 0, or -1 when it is too short (or its name not terminated) or out of memory. */
int usym_addr_mmap2(const void *body, size_t len);
/* Whether the mappings made after a process is first seen come to usym_addr_map (on: a tool
 * reading attr.mmap2's records): then an address in no map is not one mapped since, and the
 * maps are read again for it only after records were lost (usym_addr_lost), at most once a
 * second per process, not every 50 ms. */
void usym_addr_followed(bool on);
/* The records lost so far (total) of the ring that tells the mappings (PERF_RECORD_LOST):
 * with the mappings followed, a process's maps are read again for an address in none of them
 * only when this grew since they were last read. */
void usym_addr_lost(unsigned long long total);
/* A new process (a fork, a perf FORK record): child's maps are parent's until it execs or
 * maps more (the kernel tells no mapping for a fork). Returns 0, or -1 when parent's are not
 * known (nor readable), parent is child, or memory runs out. */
int usym_addr_fork(int parent, int child);
/* pid called exec: the maps kept for it are forgotten; where the mappings are followed
 * (usym_addr_followed) it has none until the records tell them, else the next address reads
 * them again. */
void usym_addr_forget(int pid);

#endif
