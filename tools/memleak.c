// SPDX-License-Identifier: GPL-2.0-only
/*
 * memleak: the allocations of a process still outstanding, by the user stack that made them,
 * every interval and at the end. Uprobes on the C library's allocators (malloc, calloc,
 * realloc, reallocarray, aligned_alloc, memalign, valloc, pvalloc, posix_memalign) give each
 * call's size at its entry and its address at its return, a uprobe on free the addresses
 * given back; on mmap and munmap, the anonymous mappings made and what is unmapped of them.
 * Without -p or --exec, the kernel's: the kmem tracepoints of slab objects and pages, by
 * kernel stack, on every CPU.
 *
 * The probes are not enabled in ftrace: each is opened as a perf event (a tracepoint event of
 * the probe's id, perf_event_open(2), 3.5+) of the process and what it starts, sampled at
 * every hit with its record (PERF_SAMPLE_RAW) and, at an allocator's return, the user call
 * chain as deep as perf_event_max_stack (127 frames, where ftrace's user stack stops at 8).
 * The kernel installs a probe only in the processes its perf events follow (uprobes' perf
 * filter), so the rest of the machine pays nothing. All the events of a CPU write into one
 * ring (PERF_EVENT_IOC_SET_OUTPUT); the rings are read at every wake-up of the driver's
 * reader and merged by time, so that a block freed on another CPU than the one that made it
 * is freed after it was made.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>

#include "base/opt.h"
#include "base/out.h"
#include "base/pair.h"
#include "base/row.h"
#include "base/sig.h"
#include "domain/ustr.h"
#include "count/prom.h"
#include "kernel/perfev.h"
#include "kernel/probe.h"
#include "stream/ksym.h"
#include "stream/usym.h"
#include "tool.h"

/* The allocators, free, and the anonymous mappings: what each argument is (1-based; 0:
 * none). */
enum kind { ALLOC, FREE, MAP, UNMAP };
static const struct func {
	const char *name;
	enum kind kind;
	int size, nmemb, ptr; /* the size, a count it is multiplied by, a block given back */
	int out, flags;	      /* where the block's address is written; mmap's flags */
} funcs[] = {
	{"malloc", ALLOC, 1, 0, 0, 0, 0},
	{"calloc", ALLOC, 2, 1, 0, 0, 0},
	{"realloc", ALLOC, 2, 0, 1, 0, 0},
	{"reallocarray", ALLOC, 3, 2, 1, 0, 0},
	{"aligned_alloc", ALLOC, 2, 0, 0, 0, 0},
	{"memalign", ALLOC, 2, 0, 0, 0, 0},
	{"valloc", ALLOC, 1, 0, 0, 0, 0},
	{"pvalloc", ALLOC, 1, 0, 0, 0, 0},
	{"posix_memalign", ALLOC, 3, 0, 0, 1, 0},
	{"free", FREE, 0, 0, 1, 0, 0},
	{"mmap", MAP, 2, 0, 0, 0, 4},
	{"munmap", UNMAP, 2, 0, 1, 0, 0},
};
#define NFUNCS (int)(sizeof(funcs) / sizeof(*funcs))

/* Without -p or --exec, the kernel's: slab objects by address, pages by physical address
 * (pfn x page size; a struct page's address before the pfn field, 4.?: kernel addresses,
 * which slab objects' are not either). */
enum kkind { KALLOC, KFREE, PALLOC, PFREE };
static const struct kev {
	const char *name;
	enum kkind kind;
	bool required;
} kevs[] = {
	{"kmalloc", KALLOC, true},
	{"kmalloc_node", KALLOC, false}, /* before 6.1; then kmalloc's node field */
	{"kmem_cache_alloc", KALLOC, true},
	{"kmem_cache_alloc_node", KALLOC, false},
	{"kfree", KFREE, true},
	{"kmem_cache_free", KFREE, true},
	{"mm_page_alloc", PALLOC, true},
	{"mm_page_free", PFREE, true},
	{"mm_page_free_batched", PFREE, false}, /* order 0 pages freed in a list */
};
#define NKEVS (int)(sizeof(kevs) / sizeof(*kevs))

#if defined(__x86_64__)
static const char *const argreg[] = {"%di", "%si", "%dx", "%cx"};
#elif defined(__aarch64__)
static const char *const argreg[] = {"%x0", "%x1", "%x2", "%x3"};
#else
#error "memleak: the argument registers of this architecture are not known"
#endif

#define MAXF PERFEV_MAX_STACK
#define NEST 4		/* allocator calls pending in one thread (realloc calling malloc) */
#define HOLD_NS 2000000 /* records this recent wait for the next read: a CPU may be late */
#define NARG 4
/* posix_memalign writes the address into *memptr: its return's record holds the caller's
 * stack top, STACK_WORDS words above the stack pointer, where a local pointer usually is. */
#define STACK_WORDS 32

/* --- settings and options ------------------------------------------------------------------- */

static struct env {
	uint64_t older_ns;
	unsigned long long min_size, max_size;
	long long top;
	uint64_t sample, calls; /* -s: one allocation in sample kept, its counts x sample */
	char sample_note[96];
	bool show_allocs, verbose;
	char lib[PATH_MAX];
	struct tep_event *entry[NFUNCS], *ret[NFUNCS];
	int found; /* functions the library has */
	unsigned long long off[NFUNCS];
	struct {
		int off_a[NARG]; /* entry: the arguments' offsets in the record */
		int off_ret;	 /* return: the value's */
	} f[NFUNCS];
	int off_sp, off_w[STACK_WORDS]; /* posix_memalign's return: the stack pointer, words */
	uint64_t page;
	struct {
		struct mapkey {
			uint64_t start;
			uint32_t pid;
		} * key; /* the mappings outstanding (their blocks in the table): a list, as
			 * munmap looks for every one that overlaps its range */
		size_t n, cap;
	} maps;
	struct perfev pe;
	struct perfev_batch batch;
	bool open;
	unsigned max_stack;
	struct pair_table pending; /* by thread: the allocator calls not yet returned */
	bool kernel;		   /* the kernel's allocations (no -p, no --exec) */
	struct tep_event *kev[NKEVS];
	struct {
		int ptr, bytes, pfn, page, order; /* offsets in the record, -1: none */
	} kf[NKEVS];
	struct ksyms *ksyms;
	uint64_t unpaired, nested, lost_pending, bad, replaced, dropped_exec;
	uint64_t out_late, out_unread; /* posix_memalign: *memptr read after the call, or not */
	struct row row;
	struct tool_run *t;
} env = {.older_ns = 500000000ULL, .max_size = ~0ULL, .top = 10, .sample = 1};

enum { OPT_TOP = OPT_LONG + 1, OPT_OLDER };

/* -s: is this allocation one of the kept? Every sample-th, counted from the first. */
static bool sampled(void)
{
	return env.sample == 1 || env.calls++ % env.sample == 0;
}

static const struct opt_spec options[] = {
	TOOL_DURATION,
	TOOL_PID,
	TOOL_EXEC,
	TOOL_JSON("one JSON object per stack"),
	TOOL_JSON_KEYS,
	TOOL_PROM,
	{'a', "show-allocs", NULL, "list each allocation (address, size, age) under its stack", 0},
	{OPT_OLDER, "older", "MS",
	 "only allocations older than MS milliseconds (default 500;\nall at the end of the "
	 "process)",
	 0},
	{'z', "min-size", "BYTES", "only allocations of at least BYTES", 0},
	{'Z', "max-size", "BYTES", "only allocations of at most BYTES", 0},
	{OPT_TOP, "top", "N", "only the N stacks with the most bytes (default 10)", 0},
	{'s', "sample", "N", "keep one allocation in N, its bytes and count x N", 0},
	{'v', NULL, NULL, "say what would be traced and how, and exit", 0},
	TOOL_OPT_END,
};

static const char *const examples[] = {
	"memleak -p 181                 # PID 181's, every 5 seconds",
	"memleak -p 181 10 3            # every 10 seconds, 3 times",
	"memleak --older 0 --exec ./a.out # a command's, at its end",
	"memleak -a --top 3 -p 181      # each block of the 3 largest stacks",
	"memleak -Z 1000000 -p 181      # up to 1 MB: not the threads' stacks",
	"memleak -s 10 -p 181           # one allocation in 10 kept, counts x 10",
	"memleak -v -p 1                # what would be probed and how",
	"memleak -z 4096 --older 1000 10 1 # the kernel's, 4 KB or more, older than 1 s",
	NULL,
};

static void option(struct tool_run *t, const struct opt_spec *o, const char *arg)
{
	switch (o->key) {
	case 'a': env.show_allocs = true; break;
	case 'v': env.verbose = true; break;
	case 'z': env.min_size = (unsigned long long)opt_int(arg, 0, LLONG_MAX, "BYTES"); break;
	case 'Z': env.max_size = (unsigned long long)opt_int(arg, 0, LLONG_MAX, "BYTES"); break;
	case OPT_TOP: env.top = opt_int(arg, 1, 1LL << 30, "N (stacks)"); break;
	case 's':
		env.sample = (uint64_t)opt_int(arg, 1, 1LL << 30, "N (one allocation in N)");
		if (env.sample > 1)
			snprintf(env.sample_note, sizeof(env.sample_note),
				 "; one allocation in %llu kept, counts x %llu",
				 (unsigned long long)env.sample, (unsigned long long)env.sample);
		break;
	case OPT_OLDER: env.older_ns = (uint64_t)opt_int(arg, 0, 1LL << 32, "MS") * 1000000; break;
	}
}

static void check(struct tool_run *t)
{
	env.kernel = !t->o.pid && !t->o.exec;
	if (t->record_path)
		opt_fail("--record keeps ftrace events; memleak's are perf events: not with "
			 "--record");
	if (env.min_size > env.max_size)
		opt_fail("-z %llu is more than -Z %llu", env.min_size, env.max_size);
}

/* --- the allocations and their stacks ------------------------------------------------------- */

struct stack {
	uint64_t hash;
	uint32_t pid;
	int n, next; /* next: in its hash chain */
	uint64_t u[];
};
static struct {
	struct stack **s;
	int n, cap;
	int *head; /* STACK_BUCKETS chains */
} stacks;
#define STACK_BUCKETS 4096

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h;
}

/* The stack's number, interned; -1 when out of memory. */
static int stack_id(uint32_t pid, const uint64_t *u, int n)
{
	uint64_t h = mix(pid, (uint64_t)n);
	for (int i = 0; i < n; i++)
		h = mix(h, u[i]);
	if (!stacks.head && !(stacks.head = malloc(STACK_BUCKETS * sizeof(int))))
		return -1;
	if (!stacks.n)
		memset(stacks.head, -1, STACK_BUCKETS * sizeof(int));
	for (int i = stacks.head[h % STACK_BUCKETS]; i >= 0; i = stacks.s[i]->next) {
		struct stack *s = stacks.s[i];
		if (s->hash == h && s->pid == pid && s->n == n && !memcmp(s->u, u, n * sizeof(*u)))
			return i;
	}
	if (stacks.n == stacks.cap) {
		int cap = stacks.cap ? stacks.cap * 2 : 256;
		struct stack **m = realloc(stacks.s, (size_t)cap * sizeof(*m));
		if (!m)
			return -1;
		stacks.s = m;
		stacks.cap = cap;
	}
	struct stack *s = malloc(sizeof(*s) + (size_t)n * sizeof(*u));
	if (!s)
		return -1;
	*s = (struct stack){h, pid, n, stacks.head[h % STACK_BUCKETS]};
	memcpy(s->u, u, (size_t)n * sizeof(*u));
	stacks.s[stacks.n] = s;
	stacks.head[h % STACK_BUCKETS] = stacks.n;
	return stacks.n++;
}

/* The blocks outstanding, by process and address: open addressing, linear probing, removal
 * by shifting back (no tombstones), grown at half full. */
struct block {
	uint64_t addr; /* 0: free slot */
	uint64_t size, time;
	uint32_t pid;
	int stack;
	bool map; /* an anonymous mapping, given back by munmap; else a block, by free */
};
static struct {
	struct block *b;
	size_t cap, n; /* cap a power of two */
} blocks;

static void oom(const char *what)
{
	fprintf(stderr, "memleak: out of memory for the %s: ending\n", what);
	env.t->failed = true;
	sig_request_stop();
}

static size_t slot(uint32_t pid, uint64_t addr)
{
	return (size_t)(mix(pid, addr) * 0x9e3779b97f4a7c15ULL >> 20) & (blocks.cap - 1);
}

static struct block *block_find(uint32_t pid, uint64_t addr)
{
	if (!blocks.cap)
		return NULL;
	for (size_t i = slot(pid, addr);; i = (i + 1) & (blocks.cap - 1)) {
		struct block *b = &blocks.b[i];
		if (!b->addr)
			return NULL;
		if (b->addr == addr && b->pid == pid)
			return b;
	}
}

static int block_grow(void)
{
	size_t old = blocks.cap, cap = old ? old * 2 : 4096;
	struct block *was = blocks.b, *b = calloc(cap, sizeof(*b));
	if (!b)
		return -1;
	blocks.b = b;
	blocks.cap = cap;
	for (size_t i = 0; i < old; i++)
		if (was[i].addr) {
			size_t j = slot(was[i].pid, was[i].addr);
			while (b[j].addr)
				j = (j + 1) & (cap - 1);
			b[j] = was[i];
		}
	free(was);
	return 0;
}

static void block_del(struct block *b)
{
	size_t i = (size_t)(b - blocks.b), mask = blocks.cap - 1;
	blocks.b[i].addr = 0;
	blocks.n--;
	/* Move back the entries after it whose home is at or before the hole. */
	for (size_t j = (i + 1) & mask; blocks.b[j].addr; j = (j + 1) & mask) {
		size_t home = slot(blocks.b[j].pid, blocks.b[j].addr);
		if (((j - home) & mask) >= ((j - i) & mask)) {
			blocks.b[i] = blocks.b[j];
			blocks.b[j].addr = 0;
			i = j;
		}
	}
}

static void block_add(uint32_t pid, uint64_t addr, uint64_t size, uint64_t time, int stack,
		      bool map)
{
	struct block *b = block_find(pid, addr);
	if (b) { /* its free was not seen (a lost record, a free not through free()) */
		env.replaced++;
		*b = (struct block){addr, size, time, pid, stack, map};
		return;
	}
	if ((blocks.n + 1) * 2 > blocks.cap && block_grow()) {
		oom("allocations");
		return;
	}
	size_t i = slot(pid, addr);
	while (blocks.b[i].addr)
		i = (i + 1) & (blocks.cap - 1);
	blocks.b[i] = (struct block){addr, size, time, pid, stack, map};
	blocks.n++;
}

static void block_free(uint32_t pid, uint64_t addr)
{
	struct block *b = block_find(pid, addr);
	if (b && !b->map)
		block_del(b);
}

/* An anonymous mapping: a block, and its start in the list munmap searches. */
static void map_add(uint32_t pid, uint64_t start, uint64_t len, uint64_t time, int stack)
{
	if (env.maps.n == env.maps.cap) {
		size_t cap = env.maps.cap ? env.maps.cap * 2 : 64;
		struct mapkey *k = realloc(env.maps.key, cap * sizeof(*k));
		if (!k)
			return oom("mappings");
		env.maps.key = k;
		env.maps.cap = cap;
	}
	env.maps.key[env.maps.n++] = (struct mapkey){start, pid};
	block_add(pid, start, len, time, stack, true);
}

/*
 * [start, start + len) of pid unmapped (munmap, or a new mapping over it): every mapping
 * that overlaps it loses that part: shrunk from either end, split in two by a hole in its
 * middle (the two parts keep its stack and age), or gone.
 */
static void map_remove(uint32_t pid, uint64_t start, uint64_t len)
{
	uint64_t end = start + len < start ? UINT64_MAX : start + len;
	for (size_t i = 0; i < env.maps.n;) {
		struct mapkey k = env.maps.key[i];
		struct block *b = k.pid == pid ? block_find(pid, k.start) : NULL;
		if (k.pid == pid && (!b || !b->map)) { /* replaced by a block: not a mapping */
			env.maps.key[i] = env.maps.key[--env.maps.n];
			continue;
		}
		if (!b || b->addr >= end || b->addr + b->size <= start) {
			i++;
			continue;
		}
		struct block m = *b;
		block_del(b);
		env.maps.key[i] = env.maps.key[--env.maps.n];
		/* the parts left are added at the list's end, and overlap nothing of the range */
		if (m.addr < start)
			map_add(pid, m.addr, start - m.addr, m.time, m.stack);
		if (m.addr + m.size > end)
			map_add(pid, end, m.addr + m.size - end, m.time, m.stack);
	}
}

/* A process that calls exec has a new heap: its blocks are gone. */
static void blocks_drop_pid(uint32_t pid)
{
	for (size_t i = 0; i < env.maps.n;)
		if (env.maps.key[i].pid == pid)
			env.maps.key[i] = env.maps.key[--env.maps.n];
		else
			i++;
	for (size_t i = 0; i < blocks.cap;) {
		if (blocks.b[i].addr && blocks.b[i].pid == pid) {
			block_del(&blocks.b[i]);
			env.dropped_exec++;
			continue; /* another may have moved here */
		}
		i++;
	}
}

/* --- per event ------------------------------------------------------------------------------ */

struct call {
	int fn;
	bool nested, skip; /* skip: a mapping not anonymous */
	uint64_t size, ptr, out;
};
struct pend {
	int depth;
	struct call c[NEST];
};

static uint64_t raw_u64(const struct perfev_sample *s, int off)
{
	uint64_t v = 0;
	if (off >= 0 && (size_t)off + 8 <= s->raw_size)
		memcpy(&v, (const char *)s->raw + off, 8);
	return v;
}

static void on_entry(int i, const struct perfev_sample *s)
{
	const struct func *f = &funcs[i];
	uint64_t a[NARG];
	for (int k = 0; k < NARG; k++)
		a[k] = raw_u64(s, env.f[i].off_a[k]);
	if (f->kind == FREE) {
		if (a[f->ptr - 1])
			block_free(s->pid, a[f->ptr - 1]);
		return;
	}
	if (f->kind == UNMAP) { /* the kernel unmaps whole pages */
		uint64_t start = a[f->ptr - 1] & ~(env.page - 1);
		map_remove(s->pid, start, a[f->ptr - 1] + a[f->size - 1] - start);
		return;
	}
	struct pend *p = pair_put(&env.pending, s->tid, 0);
	if (p->depth == NEST) { /* returns not seen: start again */
		env.unpaired += (uint64_t)p->depth;
		p->depth = 0;
	}
	struct call *c = &p->c[p->depth];
	/* An allocator inside another (glibc's realloc(NULL, n) calls malloc): the outer one
	 * is the caller's, counted once. */
	c->nested = p->depth > 0;
	c->fn = i;
	c->size = a[f->size - 1];
	if (f->nmemb)
		c->size *= a[f->nmemb - 1];
	c->ptr = f->ptr ? a[f->ptr - 1] : 0;
	c->out = f->out ? a[f->out - 1] : 0;
	c->skip = f->flags && !(a[f->flags - 1] & MAP_ANONYMOUS);
	if (f->kind == MAP) /* what the kernel maps: whole pages */
		c->size = (c->size + env.page - 1) & ~(env.page - 1);
	p->depth++;
}

/*
 * posix_memalign's block: what it wrote at *memptr. The return's record has the caller's
 * stack top, where `void *p; posix_memalign(&p, ...)` puts it; elsewhere (a global, a heap
 * structure) it is read from the process now, up to 0.1 s after the call: it may have
 * changed or gone by then, and both are counted and said at the end. 0: not read.
 */
static uint64_t out_value(const struct perfev_sample *s, const struct call *c)
{
	uint64_t sp = raw_u64(s, env.off_sp), at = c->out - sp, v = 0;
	if (c->out >= sp && at < STACK_WORDS * 8 && !(at % 8))
		return raw_u64(s, env.off_w[at / 8]);
	if (ustr_caller_memory((int)s->tid, c->out, (char *)&v, sizeof(v)) == sizeof(v) && v) {
		env.out_late++;
		return v;
	}
	env.out_unread++;
	return 0;
}

static void on_return(int i, const struct perfev_sample *s)
{
	struct pend *p = pair_get(&env.pending, s->tid, 0);
	if (!p || !p->depth || p->c[p->depth - 1].fn != i) {
		/* its entry lost, or the thread's calls out of step: forget them */
		env.unpaired++;
		if (p)
			pair_del(&env.pending, p);
		return;
	}
	struct call c = p->c[--p->depth];
	if (!p->depth)
		pair_del(&env.pending, p);
	if (c.nested) {
		env.nested++;
		return;
	}
	uint64_t addr = raw_u64(s, env.f[i].off_ret);
	if (funcs[i].kind == MAP) {
		if (c.skip || addr > UINT64_MAX - 4096)
			return;			  /* a file's mapping, or MAP_FAILED */
		map_remove(s->pid, addr, c.size); /* MAP_FIXED replaces what was there */
	}
	if (c.out && (addr = (uint32_t)addr ? 0 : out_value(s, &c)) == 0)
		return; /* posix_memalign failed (an error number), or its result not read */
	/* realloc: the old block is given back, unless it failed (NULL for a size > 0) */
	if (c.ptr && (addr || !c.size))
		block_free(s->pid, c.ptr);
	if (!addr || c.size < env.min_size || c.size > env.max_size || !sampled())
		return;
	uint64_t k[1], u[MAXF];
	int nk, nu;
	perfev_chain_split(s->chain, s->nr, k, &nk, 0, u, &nu, MAXF);
	int id = stack_id(s->pid, u, nu);
	if (id < 0)
		return oom("stacks");
	if (funcs[i].kind == MAP) {
		map_add(s->pid, addr, c.size, s->time, id);
	} else {
		block_add(s->pid, addr, c.size, s->time, id, false);
	}
}

static uint64_t raw_field(const struct perfev_sample *s, int off, int size)
{
	uint64_t v = 0;
	if (off >= 0 && (size_t)off + (size_t)size <= s->raw_size)
		memcpy(&v, (const char *)s->raw + off, (size_t)size); /* little-endian */
	return v;
}

static void on_kernel(int i, const struct perfev_sample *s)
{
	uint64_t addr, size;
	if (kevs[i].kind == KALLOC || kevs[i].kind == KFREE) {
		addr = raw_u64(s, env.kf[i].ptr);
		size = raw_u64(s, env.kf[i].bytes);
	} else {
		addr = env.kf[i].pfn >= 0 ? raw_u64(s, env.kf[i].pfn) * env.page :
					    raw_u64(s, env.kf[i].page);
		size = env.page << (env.kf[i].order >= 0 ? raw_field(s, env.kf[i].order, 4) : 0);
	}
	if (!addr)
		return;
	if (kevs[i].kind == KFREE || kevs[i].kind == PFREE) {
		block_free(0, addr);
		return;
	}
	if (size < env.min_size || size > env.max_size || !sampled())
		return block_free(0, addr); /* not kept; nor one before it at that address */
	uint64_t k[MAXF], u[1];
	int nk, nu;
	perfev_chain_split(s->chain, s->nr, k, &nk, MAXF, u, &nu, 0);
	int id = stack_id(0, k, nk);
	if (id < 0)
		return oom("stacks");
	block_add(0, addr, size, s->time, id, false);
}

static void on_sample(const void *body, size_t len)
{
	struct perfev_sample s;
	uint16_t type;
	if (perfev_sample(body, len, env.pe.sample_type, &s) || s.raw_size < 8) {
		env.bad++;
		return;
	}
	memcpy(&type, s.raw, 2); /* common_type: the probe's event id */
	for (int i = 0; env.kernel && i < NKEVS; i++)
		if (env.kev[i] && env.kev[i]->id == type)
			return on_kernel(i, &s);
	for (int i = 0; i < NFUNCS; i++) {
		if (env.entry[i] && env.entry[i]->id == type)
			return on_entry(i, &s);
		if (env.ret[i] && env.ret[i]->id == type)
			return on_return(i, &s);
	}
	env.bad++;
}

static void on_record(const struct perf_event_header *h, const void *body, size_t len)
{
	uint32_t ids[4];
	switch (h->type) {
	case PERF_RECORD_SAMPLE: on_sample(body, len); break;
	case PERF_RECORD_LOST:
	case PERF_RECORD_THROTTLE:
		/* which calls' entries or returns were lost (or not sampled: a throttled event
		 * drops its samples until unthrottled) is not known */
		env.lost_pending += 1;
		pair_clear(&env.pending);
		break;
	case PERF_RECORD_MMAP2: usym_addr_mmap2(body, len); break;
	case PERF_RECORD_COMM:
		if (len >= 8 && (h->misc & PERF_RECORD_MISC_COMM_EXEC)) {
			memcpy(ids, body, 8);
			usym_addr_forget((int)ids[0]);
			blocks_drop_pid(ids[0]);
		}
		break;
	case PERF_RECORD_FORK:
		if (len >= 16) {
			memcpy(ids, body, 16); /* pid, ppid, tid, ptid */
			if (ids[0] != ids[1])
				usym_addr_fork((int)ids[1], (int)ids[0]);
		}
		break;
	}
}

static uint64_t mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void run_one(const struct perf_event_header *h, const void *body, size_t len, uint64_t time,
		    int src, void *ctx)
{
	on_record(h, body, len);
}

/*
 * Read the rings, and handle their records in time order up to HOLD_NS ago (all: every one,
 * at the end): a record of another CPU may still be on its way, and a free handled before
 * the allocation it gives back would leave that block counted for good.
 */
static void drain(bool all)
{
	if (!env.open)
		return;
	uint64_t until = all ? UINT64_MAX : mono_now() - HOLD_NS;
	perfev_batch_add(&env.batch, &env.pe, 0);
	if (env.batch.oom) {
		fprintf(stderr, "memleak: out of memory for the records: ending\n");
		env.t->failed = true;
		sig_request_stop();
		env.batch.oom = false;
	}
	usym_addr_lost(env.pe.lost_records); /* (maps read again only after a loss) */
	perfev_batch_run(&env.batch, until, run_one, NULL);
}

static void wake(struct tool_run *t, uint64_t now)
{
	drain(false);
}

/* --- every interval and at the end ---------------------------------------------------------- */

static const struct row_col cols[] = {
	ROW_COL_WHEN,
	{NULL, "pid", 0, ROW_INT, 0, ROW_NOTEXT,
	 "the process that made the allocations (0: the kernel's)"},
	{NULL, "bytes", 0, ROW_UINT, 0, ROW_NOTEXT, "bytes outstanding from this stack"},
	{NULL, "allocs", 0, ROW_UINT, 0, ROW_NOTEXT, "allocations outstanding from this stack"},
	{NULL, "stack", 0, ROW_JSON, 0, ROW_NOTEXT,
	 "the user stack of the allocator's caller, leaf first: an array of \"symbol+0xoff "
	 "(file)\" strings (the kernel's: \"symbol+0xoff\")"},
	{NULL, "blocks", 0, ROW_JSON, 0, ROW_NOTEXT,
	 "with -a: an array of {\"addr\": \"0x...\", \"size\": bytes, \"age_ms\": ms}; else "
	 "null"},
};
static const struct row_table table = ROW_TABLE("each stack with outstanding allocations", cols);

struct sum {
	uint64_t bytes, allocs;
	int id;
};

static int by_bytes(const void *a, const void *b)
{
	const struct sum *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->allocs != y->allocs)
		return x->allocs > y->allocs ? -1 : 1;
	return x->id - y->id;
}

static int by_age(const void *a, const void *b)
{
	const struct block *x = *(const struct block *const *)a,
			   *y = *(const struct block *const *)b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* -a: the stack's blocks (allocs of them), oldest first. */
static void print_blocks(int id, uint64_t allocs, uint64_t now, uint64_t older, bool json)
{
	const struct block **list = calloc((size_t)allocs + 1, sizeof(*list));
	size_t n = 0;
	for (size_t i = 0; list && i < blocks.cap && n < allocs; i++) {
		const struct block *b = &blocks.b[i];
		if (b->addr && b->stack == id && now - b->time >= older)
			list[n++] = b;
	}
	if (n > 1)
		qsort(list, n, sizeof(*list), by_age);
	FILE *f = json ? row_json(&env.row) : stdout;
	if (json && f)
		fputc('[', f);
	for (size_t i = 0; f && i < n; i++) {
		const struct block *b = list[i];
		unsigned long long age = now > b->time ? (now - b->time) / 1000000 : 0;
		if (json)
			fprintf(f, "%s{\"addr\":\"0x%llx\",\"size\":%llu,\"age_ms\":%llu}",
				i ? "," : "", (unsigned long long)b->addr,
				(unsigned long long)b->size, age);
		else
			printf("\t\taddr = 0x%llx size = %llu age = %llu ms\n",
			       (unsigned long long)b->addr, (unsigned long long)b->size, age);
	}
	if (json && f)
		fputc(']', f);
	if (!list) {
		fprintf(stderr, "memleak: out of memory for the blocks of a stack\n");
		env.t->failed = true;
	}
	free(list);
}

/* Frame i of a stack: symbol+0xoff (file) of the process, or a kernel symbol+0xoff. */
static const char *frame_name(const struct stack *st, int i, char *buf, size_t len)
{
	if (!env.kernel)
		return usym_addr((int)st->pid, st->u[i], buf, len);
	unsigned long long off, addr = st->u[i];
	/* above the innermost, return addresses: the call is the byte before */
	const char *sym =
		env.ksyms ? ksym_find(env.ksyms, i && addr ? addr - 1 : addr, &off) : NULL;
	if (sym)
		snprintf(buf, len, "%s+0x%llx", sym, off + (i && addr ? 1 : 0));
	else
		snprintf(buf, len, "0x%llx", addr);
	return buf;
}

static void print_stack(const struct sum *s, uint64_t now, uint64_t older, const char *when)
{
	const struct stack *st = stacks.s[s->id];
	char buf[PATH_MAX + 256];
	if (env.t->o.json) {
		row_begin(&env.row, 0);
		row_word(&env.row, when);
		row_int(&env.row, st->pid);
		row_uint(&env.row, s->bytes);
		row_uint(&env.row, s->allocs);
		FILE *f = row_json(&env.row);
		if (f) {
			fputc('[', f);
			for (int i = 0; i < st->n; i++) {
				fputs(i ? "," : "", f);
				const char *a = frame_name(st, i, buf, sizeof(buf));
				out_json_str(f, a, strlen(a));
			}
			fputc(']', f);
		}
		if (env.show_allocs)
			print_blocks(s->id, s->allocs, now, older, true);
		else
			row_none(&env.row);
		row_end(&env.row);
		return;
	}
	if (env.kernel)
		printf("\t%llu bytes in %llu allocations from kernel stack\n",
		       (unsigned long long)s->bytes, (unsigned long long)s->allocs);
	else
		printf("\t%llu bytes in %llu allocations from stack (PID %u)\n",
		       (unsigned long long)s->bytes, (unsigned long long)s->allocs, st->pid);
	for (int i = 0; i < st->n; i++) {
		const char *a = frame_name(st, i, buf, sizeof(buf));
		fputs("\t\t", stdout);
		out_text_line(stdout, a, strlen(a));
		fputc('\n', stdout);
	}
	if (!st->n)
		printf("\t\t[no %s stack]\n", env.kernel ? "kernel" : "user");
	if (env.show_allocs)
		print_blocks(s->id, s->allocs, now, older, false);
}

/* --prom: the outstanding bytes and allocations of each process, as the report counts them
 * (older than --older), gauges: what is outstanding now, not a count from the start. */
static void prom_write(uint64_t now, uint64_t older)
{
	struct prom *p = tool_prom(env.t);
	if (!p)
		return;
	struct prom_set set = {0};
	struct prom_series *ps = NULL;
	uint32_t last = 0;
	uint64_t lost = 0;
	char labels[64], pid[16];
	for (size_t i = 0; i < blocks.cap; i++) {
		const struct block *b = &blocks.b[i];
		if (!b->addr || now - b->time < older)
			continue;
		if (!ps || b->pid != last) {
			snprintf(pid, sizeof(pid), "%u", b->pid);
			ps = prom_series(&set,
					 prom_labels(labels, sizeof(labels), "pid", pid, NULL));
			last = b->pid;
		}
		if (!ps) {
			lost++;
			continue;
		}
		ps->count += env.sample;
		ps->sum += b->size * env.sample;
	}
	const char *bytes = "ftrace_tools_memleak_outstanding_bytes",
		   *allocs = "ftrace_tools_memleak_outstanding_allocations";
	prom_family(p, bytes, "gauge", "Bytes allocated and not freed (older than --older).");
	for (size_t i = 0; i < set.n; i++)
		prom_uint(p, bytes, set.s[i]->labels, set.s[i]->sum);
	prom_family(p, allocs, "gauge", "Allocations not freed (older than --older).");
	for (size_t i = 0; i < set.n; i++)
		prom_uint(p, allocs, set.s[i]->labels, set.s[i]->count);
	prom_commit(p);
	prom_set_free(&set);
	prom_say_lost(&lost, "memleak", "blocks");
}

static void report(uint64_t older)
{
	uint64_t now = mono_now();
	struct sum *sums = calloc((size_t)stacks.n + 1, sizeof(*sums));
	if (!sums) {
		fprintf(stderr, "memleak: out of memory for the report\n");
		env.t->failed = true;
		return;
	}
	uint64_t bytes = 0, allocs = 0;
	for (int i = 0; i < stacks.n; i++)
		sums[i].id = i;
	for (size_t i = 0; i < blocks.cap; i++) {
		const struct block *b = &blocks.b[i];
		if (!b->addr || now - b->time < older)
			continue;
		sums[b->stack].bytes += b->size * env.sample;
		sums[b->stack].allocs += env.sample;
		bytes += b->size * env.sample;
		allocs += env.sample;
	}
	if (stacks.n > 1)
		qsort(sums, (size_t)stacks.n, sizeof(*sums), by_bytes);
	int n = 0;
	while (n < stacks.n && sums[n].allocs)
		n++;
	char when[16];
	out_wallclock(now, when);
	if (!env.t->o.json)
		printf("[%s] Top %d stacks with outstanding allocations:\n", when,
		       (int)(n < env.top ? n : env.top));
	for (int i = 0; i < n && i < env.top; i++)
		print_stack(&sums[i], now, older, when);
	if (!env.t->o.json)
		printf("Outstanding: %llu bytes in %llu allocations from %d stacks (older than "
		       "%llu ms%s)\n\n",
		       (unsigned long long)bytes, (unsigned long long)allocs, n,
		       (unsigned long long)(older / 1000000), env.sample_note);
	free(sums);
	if (env.t->prom)
		prom_write(now, older);
}

static int interval(struct tool_run *t, uint64_t now)
{
	drain(false);
	report(env.older_ns);
	return 0;
}

static void end(struct tool_run *t)
{
	if (env.open)
		perfev_disable(&env.pe);
	drain(true);
	/* The process is gone: what it had not freed will never be. */
	/* (a zombie not yet reaped by its parent is gone too: the driver's watch says so) */
	bool gone =
		t->o.exec || t->watch_ended || (t->o.pid && kill(t->o.pid, 0) && errno == ESRCH);
	if (!t->last_interval)
		report(gone ? 0 : env.older_ns);
	if (env.open)
		perfev_report(&env.pe, "memleak");
	if (env.lost_pending)
		fprintf(stderr,
			"memleak: records lost or throttled %llu times: some frees may be missing "
			"(their blocks shown outstanding)%s\n",
			(unsigned long long)env.lost_pending,
			env.kernel ? "" : " and some calls unpaired");
	if (env.unpaired)
		fprintf(stderr, "memleak: %llu allocator calls without their entry or return\n",
			(unsigned long long)env.unpaired);
	if (env.replaced)
		fprintf(stderr,
			"memleak: %llu blocks allocated again at an address whose free was not "
			"seen\n",
			(unsigned long long)env.replaced);
	if (env.bad)
		fprintf(stderr, "memleak: %llu malformed records\n", (unsigned long long)env.bad);
	if (env.out_late)
		fprintf(stderr,
			"memleak: %llu posix_memalign results read from the process after the "
			"call (not on the caller's stack): they may have changed since\n",
			(unsigned long long)env.out_late);
	if (env.out_unread)
		fprintf(stderr,
			"memleak: %llu posix_memalign blocks not counted: their address (not on "
			"the caller's stack) could not be read from the process\n",
			(unsigned long long)env.out_unread);
}

/* --- set up --------------------------------------------------------------------------------- */

static int field_off(struct tep_event *ev, const char *name)
{
	struct tep_format_field *f = tep_find_field(ev, name);
	return f ? f->offset : -1;
}

static bool perf_events_usable(void)
{
	char why[512];
	if (perfev_check(why, sizeof(why))) {
		fprintf(stderr, "memleak: %s\n", why);
		return false;
	}
	return true;
}

/* Without -p or --exec: the kmem tracepoints' formats, their fields by name (they moved
 * between versions: kmem_cache_free got a name in 5.12, kmalloc a node in 6.1). */
static enum tool_code prepare_kernel(struct tool_run *t)
{
	if (env.verbose) {
		printf("tracepoints:");
		for (int i = 0; i < NKEVS; i++)
			printf(" kmem:%s", kevs[i].name);
		printf(" (those this kernel has), read as perf events of every CPU "
		       "(perf_event_open, "
		       "3.5+), every hit sampled with its record and, at an allocation, the kernel "
		       "call chain of up to %u frames; one ring per CPU, read every 100 ms\n",
		       env.max_stack);
		return TOOL_DONE;
	}
	if (!perf_events_usable())
		return TOOL_FAIL;
	for (int i = 0; i < NKEVS; i++) {
		struct tep_event *ev = session_load_event(&t->s, "kmem", kevs[i].name);
		if (!ev && kevs[i].required) {
			session_event(&t->s, "kmem", kevs[i].name, true); /* says why */
			return TOOL_FAIL;
		}
		env.kev[i] = ev;
		if (!ev)
			continue;
		env.kf[i].ptr = field_off(ev, "ptr");
		env.kf[i].bytes = field_off(ev, "bytes_alloc");
		env.kf[i].pfn = field_off(ev, "pfn");
		env.kf[i].page = field_off(ev, "page");
		env.kf[i].order = field_off(ev, "order");
		bool slab = kevs[i].kind == KALLOC || kevs[i].kind == KFREE;
		if (slab ? env.kf[i].ptr < 0 || (kevs[i].kind == KALLOC && env.kf[i].bytes < 0) :
			   env.kf[i].pfn < 0 && env.kf[i].page < 0) {
			fprintf(stderr, "memleak: kmem:%s has no field %s in this kernel\n",
				kevs[i].name, slab ? "ptr or bytes_alloc" : "pfn or page");
			return TOOL_FAIL;
		}
	}
	env.ksyms = ksym_load(); /* without kallsyms, addresses */
	snprintf(t->traced, sizeof(t->traced),
		 "outstanding kernel allocations (kmalloc, kmem_cache_alloc, pages)");
	return TOOL_OK;
}

static enum tool_code prepare(struct tool_run *t)
{
	env.t = t;
	t->follow_names = false;
	t->ordered = false;
	env.page = (uint64_t)sysconf(_SC_PAGESIZE);
	if (env.kernel) {
		unsigned kmax = perfev_max_stack();
		env.max_stack = kmax < MAXF ? kmax : MAXF;
		return prepare_kernel(t);
	}
	if (usym_target("libc", env.lib, sizeof(env.lib))) {
		fprintf(stderr,
			"memleak: no shared C library found to probe (libc.so.6): the allocations "
			"of static programs cannot be traced with uprobes\n");
		return TOOL_FAIL;
	}
	unsigned kmax = perfev_max_stack();
	env.max_stack = kmax < MAXF ? kmax : MAXF;
	if (env.verbose) {
		printf("uprobes on %s:", env.lib);
		unsigned long long offs[NFUNCS];
		for (int i = 0; i < NFUNCS; i++) {
			char why[256];
			offs[i] = 0;
			if (usym_offset(env.lib, funcs[i].name, false, &offs[i], why, sizeof(why)))
				continue;
			int alias = -1;
			for (int k = 0; k < i && alias < 0; k++)
				alias = offs[k] == offs[i] ? k : -1;
			if (alias >= 0)
				printf(" %s (0x%llx: %s's, probed once)", funcs[i].name, offs[i],
				       funcs[alias].name);
			else
				printf(" %s (0x%llx)", funcs[i].name, offs[i]);
		}
		printf("\nread as perf events (perf_event_open, a tracepoint event per probe, "
		       "3.5+), every hit sampled with its record and, at an allocator's return, "
		       "the user call chain of up to %u frames; one ring per CPU, read every "
		       "100 ms\n",
		       env.max_stack);
		return TOOL_DONE;
	}
	if (t->o.pid && !usym_maps_file(t->o.pid, env.lib))
		fprintf(stderr,
			"memleak: WARNING: process %d does not map %s: its allocations (a static "
			"program's, or another C library's) are not seen\n",
			(int)t->o.pid, env.lib);
	if (!probe_available(&t->s, PROBE_UPROBE, false))
		return TOOL_FAIL;
	if (!perf_events_usable())
		return TOOL_FAIL;
	char why[512];
	for (int i = 0; i < NFUNCS; i++) {
		const struct func *f = &funcs[i];
		unsigned long long off;
		if (usym_offset(env.lib, f->name, false, &off, why, sizeof(why)))
			continue; /* not in this C library (pvalloc, reallocarray before 2.26) */
		/* An alias (glibc before 2.38: aligned_alloc is memalign): one probe there,
		 * or each call would be seen twice. */
		bool alias = false;
		for (int k = 0; k < i; k++)
			alias |= env.entry[k] && env.off[k] == off;
		if (alias)
			continue;
		env.off[i] = off;
		char target[PATH_MAX + 32], args[STACK_WORDS * 24 + 64] = "", name[64];
		snprintf(target, sizeof(target), "%s:0x%llx", env.lib, off);
		int n = 0;
		for (int k = 0; k < 5; k++) {
			int a = (int[]){f->size, f->nmemb, f->ptr, f->out, f->flags}[k];
			n = a > n ? a : n;
		}
		for (int k = 0; k < n; k++)
			snprintf(args + strlen(args), sizeof(args) - strlen(args), "%sa%d=%s:u64",
				 k ? " " : "", k + 1, argreg[k]);
		snprintf(name, sizeof(name), "ml_%s", f->name);
		if (!(env.entry[i] = probe_create(&t->s, PROBE_UPROBE, 'p', name, target, args)))
			return TOOL_FAIL;
		for (int k = 0; k < NARG; k++) {
			char a[8];
			snprintf(a, sizeof(a), "a%d", k + 1);
			env.f[i].off_a[k] = field_off(env.entry[i], a);
		}
		if (f->kind == ALLOC || f->kind == MAP) {
			snprintf(name, sizeof(name), "ml_%s_ret", f->name);
			snprintf(args, sizeof(args), "ret=$retval:u64");
			if (f->out) {
				snprintf(args + strlen(args), sizeof(args) - strlen(args),
					 " sp=%%sp:u64");
				for (int k = 0; k < STACK_WORDS; k++)
					snprintf(args + strlen(args), sizeof(args) - strlen(args),
						 " w%d=+%d(%%sp):u64", k, k * 8);
			}
			if (!(env.ret[i] =
				      probe_create(&t->s, PROBE_UPROBE, 'r', name, target, args)))
				return TOOL_FAIL;
			env.f[i].off_ret = field_off(env.ret[i], "ret");
			if (f->out) {
				env.off_sp = field_off(env.ret[i], "sp");
				for (int k = 0; k < STACK_WORDS; k++) {
					char w[8];
					snprintf(w, sizeof(w), "w%d", k);
					env.off_w[k] = field_off(env.ret[i], w);
				}
			}
		}
		env.found++;
	}
	if (!env.entry[0]) {
		fprintf(stderr, "memleak: no malloc in %s\n", env.lib);
		return TOOL_FAIL;
	}
	if (pair_init(&env.pending, 4096, sizeof(struct pend)))
		return TOOL_FAIL;
	snprintf(t->traced, sizeof(t->traced), "outstanding allocations of %s (%d functions of %s)",
		 t->o.exec ? "the command and what it starts" : "the process and what it starts",
		 env.found, env.lib);
	return TOOL_OK;
}

static void close_events(void *arg)
{
	if (env.open)
		perfev_close(&env.pe);
	env.open = false;
}

/* One more event into the rings: the first opens them, pages a CPU (an eighth of it where
 * the locked-memory limit refuses that: perf_event_mlock_kb), the others write into them. */
static int add_event(struct perf_event_attr *a, pid_t pid, bool *first, size_t pages, char *why,
		     size_t len)
{
	if (!*first)
		return perfev_add(&env.pe, a, pid, why, len);
	*first = false;
	int ret = perfev_open(&env.pe, a, pid, -1, -1, pages, why, len);
	if (ret) {
		perfev_close(&env.pe);
		ret = perfev_open(&env.pe, a, pid, -1, -1, pages / 8, why, len);
	}
	env.open = !ret;
	return ret;
}

/*
 * -z/-Z of the kernel's: an allocation event's filter (PERF_EVENT_IOC_SET_FILTER, 2.6.32)
 * keeps the kernel from writing those of other sizes at all, the bulk of the records (the
 * frees are all needed). opened: the event opened the rings (its fds are theirs), else its
 * fds are the last perfev_add made. A filter refused (an older format) costs only records:
 * the sizes are checked here too.
 */
static void size_filter(int i, bool opened)
{
	char f[128];
	if (!env.min_size && env.max_size == ~0ULL)
		return;
	if (kevs[i].kind == KALLOC) {
		snprintf(f, sizeof(f), "bytes_alloc >= %llu && bytes_alloc <= %llu", env.min_size,
			 env.max_size);
	} else {
		int lo = 0, hi = 63;
		while (lo < 63 && (env.page << lo) < env.min_size)
			lo++;
		while (hi >= 0 && (hi >= 52 || (env.page << hi) > env.max_size))
			hi--;
		snprintf(f, sizeof(f), "order >= %d && order <= %d", lo, hi);
	}
	for (int k = 0; k < env.pe.n; k++)
		ioctl(opened ? env.pe.ring[k].fd : env.pe.more[env.pe.nmore - env.pe.n + k],
		      PERF_EVENT_IOC_SET_FILTER, f);
}

static enum tool_code setup(struct tool_run *t)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.sample_period = 1;
	a.sample_type =
		PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW;
	a.exclude_callchain_kernel = 1;
	a.sample_max_stack = (uint16_t)env.max_stack;
	a.inherit = 1; /* the threads and children it makes later */
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC; /* the ages, from mono_now() */
	a.disabled = 1;
	a.watermark = 1;
	a.wakeup_watermark = 1 << 20; /* a MiB in a ring wakes the reader (.batched) */
	pid_t pid = t->o.pid;
	char why[512];
	bool first = true;
	int ret = 0;
	if (session_on_close(&t->s, SESSION_BEFORE_REMOVE, close_events, NULL))
		return TOOL_FAIL;
	if (env.kernel) {
		/* every CPU's, the kernel call chain of each allocation */
		a.inherit = 0;
		a.exclude_callchain_kernel = 0;
		a.exclude_callchain_user = 1;
		for (int i = 0; i < NKEVS && !ret; i++) {
			if (!env.kev[i])
				continue;
			a.config = (uint64_t)env.kev[i]->id;
			/* a free's chain not walked (both parts excluded: nr 0), its record
			 * of the one layout the rings' parser knows */
			a.exclude_callchain_kernel = kevs[i].kind == KFREE || kevs[i].kind == PFREE;
			/* 8 MiB a CPU: the kernel allocates far more often than a program */
			bool opens = first;
			ret = add_event(&a, -1, &first, 2048, why, sizeof(why));
			if (!ret && (kevs[i].kind == KALLOC || kevs[i].kind == PALLOC))
				size_filter(i, opens);
		}
	}
	/* -p: its maps read while it lives (the kernel tells only the mappings made from now
	 * on; the frames are named at the end, which can be after it has exited) */
	if (!t->o.exec && !env.kernel)
		usym_prime(pid);
	for (int i = 0; i < NFUNCS && !ret && !env.kernel; i++)
		for (int r = 0; r < 2 && !ret; r++) {
			struct tep_event *ev = r ? env.ret[i] : env.entry[i];
			if (!ev)
				continue;
			a.config = (uint64_t)ev->id;
			a.exclude_callchain_user = !r; /* the stack of the return only */
			/* The first event also tells the maps, execs and forks (for the names of
			 * the frames of a process that has exited by the end). */
			/* (attr.mmap too: the kernel counts only it, or mmap_data, as asking for
			 * mapping records, and tells none to an event of mmap2 alone) */
			a.mmap = a.mmap2 = a.comm = a.comm_exec = a.task = a.sample_id_all = first;
			/* 2 MiB a CPU: ~10,000 allocations (a return with 20 frames is ~250
			 * bytes) between two reads 100 ms apart; more are lost and said. */
			ret = add_event(&a, pid, &first, 512, why, sizeof(why));
			/* -p: the threads it has now (inherit follows the new ones) */
			if (!ret && perfev_add_threads(&env.pe, &a, pid, why, sizeof(why)) < 0)
				ret = -1;
		}
	usym_addr_followed(!ret); /* its mappings come as MMAP2 records */
	/* The records wait in the rings (.batched) until one holds a MiB, or the driver's
	 * cadence: each wake-up is a context switch. */
	if (!ret && tool_wake_on_rings(t, &env.pe, NULL)) {
		snprintf(why, sizeof(why), "out of memory");
		ret = -1;
	}
	if (!ret)
		ret = perfev_enable(&env.pe, why, sizeof(why));
	if (ret) {
		fprintf(stderr, "memleak: %s\n", why);
		return TOOL_FAIL;
	}
	return TOOL_OK;
}

static void header(struct tool_run *t)
{
}

static void cleanup(struct tool_run *t)
{
	close_events(NULL);
	for (int i = 0; i < stacks.n; i++)
		free(stacks.s[i]);
	free(stacks.s);
	free(stacks.head);
	free(blocks.b);
	free(env.maps.key);
	perfev_batch_free(&env.batch);
	pair_free(&env.pending);
	usym_addr_free();
	ksym_free(env.ksyms);
	env.ksyms = NULL;
}

static const struct tool memleak = {
	.name = "memleak",
	.opts = options,
	.operand_kind = TOOL_OPERAND_INTERVALS,
	.interval_prints = "reports",
	.interval_default_s = 5,
	.examples = examples,
	.rows = (const struct row_table *const[]){&table, NULL},
	.no_cgroup = true, /* a cgroup's perf events would need another filter: not yet */
	.option = option,
	.check = check,
	.prepare = prepare,
	.setup = setup,
	.header = header,
	.table = &table,
	.row = &env.row,
	.interval = interval,
	.wake = wake,
	.end = end,
	.cleanup = cleanup,
	.batched = true,
};

int main(int argc, char **argv)
{
	return tool_main(&memleak, argc, argv);
}
