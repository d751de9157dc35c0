// SPDX-License-Identifier: GPL-2.0-only
#include "kernel/perfev.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SCRATCH_SIZE 65536 /* a record's size is a u16 */

static int sys_perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu, int group,
			       unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, a, pid, cpu, group, flags);
}

static void say_errno(int e, char *why, size_t len)
{
	if (e == ENOENT || e == ENOSYS || e == EOPNOTSUPP)
		snprintf(why, len, "no perf events in this kernel (CONFIG_PERF_EVENTS): %s",
			 strerror(e));
	else if (e == EACCES || e == EPERM)
		snprintf(why, len,
			 "perf events not allowed: run as root, or with CAP_PERFMON (5.8+) or "
			 "CAP_SYS_ADMIN, or lower /proc/sys/kernel/perf_event_paranoid: %s",
			 strerror(e));
	else
		snprintf(why, len, "perf_event_open: %s", strerror(e));
}

void perfev_cpu_clock(struct perf_event_attr *a, unsigned hz, uint64_t period, bool kernel,
		      bool user, unsigned max_stack)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	if (hz) {
		a->freq = 1;
		a->sample_freq = hz;
	} else {
		a->sample_period = period;
	}
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	a->exclude_callchain_kernel = !kernel;
	a->exclude_callchain_user = !user;
	a->sample_max_stack = (uint16_t)max_stack;
	a->disabled = 1;
	/* Woken per batch, not per sample: the reader drains on its own wake-ups. */
	a->watermark = 1;
	a->wakeup_watermark = 16384;
}

int perfev_check(char *why, size_t len)
{
	struct perf_event_attr a;
	perfev_cpu_clock(&a, 0, 10000000, true, true, 0);
	int fd = sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		say_errno(errno, why, len);
		return -1;
	}
	close(fd);
	return 0;
}

unsigned perfev_max_stack(void)
{
	unsigned v = PERFEV_MAX_STACK;
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_stack", "re");
	if (f) {
		if (fscanf(f, "%u", &v) != 1)
			v = PERFEV_MAX_STACK;
		fclose(f);
	}
	return v;
}

/* The CPUs online now ("0-3,5"): a bitmap in on, up to max. */
static int online_cpus(bool *on, int max)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	int n = 0;
	if (!f)
		return -1;
	int a, b;
	char c;
	while (fscanf(f, "%d", &a) == 1) {
		b = a;
		c = (char)fgetc(f);
		if (c == '-') {
			if (fscanf(f, "%d", &b) != 1)
				break;
			c = (char)fgetc(f);
		}
		for (int i = a; i <= b && i < max; i++) {
			on[i] = true;
			n = i + 1 > n ? i + 1 : n;
		}
		if (c != ',')
			break;
	}
	fclose(f);
	return n;
}

static int open_one(struct perfev *p, struct perf_event_attr *attr, pid_t pid, int cpu,
		    int cgroup_fd, char *why, size_t len)
{
	unsigned long flags = PERF_FLAG_FD_CLOEXEC;
	if (cgroup_fd >= 0) {
		pid = cgroup_fd;
		flags |= PERF_FLAG_PID_CGROUP;
	}
	int fd = sys_perf_event_open(attr, pid, cpu, -1, flags);
	if (fd < 0 && errno == E2BIG && attr->sample_max_stack) {
		/* Before 4.8 the field is not known: the kernel's own maximum (127). */
		attr->sample_max_stack = 0;
		fd = sys_perf_event_open(attr, pid, cpu, -1, flags);
	}
	if (fd < 0 && errno == ENODEV)
		return 0; /* a CPU gone offline meanwhile */
	if (fd < 0) {
		int e = errno;
		say_errno(e, why, len);
		if (e == EINVAL && cgroup_fd >= 0)
			snprintf(why, len, "perf events by cgroup refused (CONFIG_CGROUP_PERF): %s",
				 strerror(e));
		return -1;
	}
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *base = mmap(NULL, (p->pages + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		snprintf(why, len,
			 "cannot map the ring of CPU %d (%zu KiB; perf_event_mlock_kb?): %s", cpu,
			 p->pages * page / 1024, strerror(errno));
		close(fd);
		return -1;
	}
	p->ring[p->n++] = (struct perfev_ring){fd, cpu, base, p->pages * page};
	return 0;
}

int perfev_open(struct perfev *p, struct perf_event_attr *attr, pid_t pid, int cpu, int cgroup_fd,
		size_t pages, char *why, size_t len)
{
	enum { MAXCPU = 4096 };
	static bool on[MAXCPU];
	memset(p, 0, sizeof(*p));
	p->pages = pages;
	p->sample_type = attr->sample_type;
	p->scratch = malloc(SCRATCH_SIZE);
	int ncpu = cpu >= 0 ? cpu + 1 : online_cpus(on, MAXCPU);
	if (ncpu <= 0) {
		snprintf(why, len, "cannot read /sys/devices/system/cpu/online");
		return -1;
	}
	p->ring = calloc((size_t)ncpu, sizeof(*p->ring));
	if (!p->ring || !p->scratch) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	for (int c = cpu >= 0 ? cpu : 0; c < ncpu; c++)
		if ((cpu >= 0 || on[c]) && open_one(p, attr, pid, c, cgroup_fd, why, len))
			return -1;
	if (!p->n) {
		snprintf(why, len, "no CPU to sample");
		return -1;
	}
	return 0;
}

int perfev_add(struct perfev *p, struct perf_event_attr *attr, pid_t pid, char *why, size_t len)
{
	for (int i = 0; i < p->n; i++) {
		int *m = realloc(p->more, (size_t)(p->nmore + 1) * sizeof(*m));
		if (!m) {
			snprintf(why, len, "out of memory");
			return -1;
		}
		p->more = m;
		int fd = sys_perf_event_open(attr, pid, p->ring[i].cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0 && errno == ESRCH)
			return 0; /* the thread is gone */
		if (fd < 0 || ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, p->ring[i].fd)) {
			int err = errno;
			if (fd >= 0)
				close(fd);
			snprintf(why, len, "thread %d: %s", (int)pid, strerror(err));
			return -1;
		}
		p->more[p->nmore++] = fd;
	}
	return 0;
}

static int add_tasks(struct perfev *p, struct perf_event_attr *attr, pid_t pid, bool main,
		     char *why, size_t len);

int perfev_add_threads(struct perfev *p, struct perf_event_attr *attr, pid_t pid, char *why,
		       size_t len)
{
	return add_tasks(p, attr, pid, false, why, len);
}

int perfev_add_process(struct perfev *p, struct perf_event_attr *attr, pid_t pid, char *why,
		       size_t len)
{
	return add_tasks(p, attr, pid, true, why, len);
}

static int add_tasks(struct perfev *p, struct perf_event_attr *attr, pid_t pid, bool main,
		     char *why, size_t len)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d) {
		snprintf(why, len, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	int added = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		int tid = atoi(e->d_name);
		if (tid <= 0 || (tid == pid && !main))
			continue;
		int before = p->nmore;
		if (perfev_add(p, attr, tid, why, len)) {
			closedir(d);
			return -1;
		}
		added += p->nmore > before;
	}
	closedir(d);
	return added;
}

int perfev_enable(struct perfev *p, char *why, size_t len)
{
	for (int i = 0; i < p->nmore; i++)
		ioctl(p->more[i], PERF_EVENT_IOC_ENABLE, 0);
	for (int i = 0; i < p->n; i++)
		if (ioctl(p->ring[i].fd, PERF_EVENT_IOC_ENABLE, 0)) {
			snprintf(why, len, "cannot enable the event of CPU %d: %s", p->ring[i].cpu,
				 strerror(errno));
			return -1;
		}
	return 0;
}

void perfev_disable(struct perfev *p)
{
	for (int i = 0; i < p->nmore; i++)
		ioctl(p->more[i], PERF_EVENT_IOC_DISABLE, 0);
	for (int i = 0; p->ring && i < p->n; i++)
		ioctl(p->ring[i].fd, PERF_EVENT_IOC_DISABLE, 0);
}

void perfev_close(struct perfev *p)
{
	for (int i = 0; i < p->nmore; i++)
		close(p->more[i]); /* before the rings they write into */
	free(p->more);
	p->more = NULL;
	p->nmore = 0;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	for (int i = 0; p->ring && i < p->n; i++) {
		ioctl(p->ring[i].fd, PERF_EVENT_IOC_DISABLE, 0);
		munmap(p->ring[i].base, p->ring[i].data_size + page);
		close(p->ring[i].fd);
	}
	free(p->ring);
	free(p->scratch);
	p->ring = NULL;
	p->scratch = NULL;
	p->n = 0;
}

size_t perfev_ring_read(struct perfev *p, const char *data, size_t size, uint64_t head,
			uint64_t *tail, perfev_fn fn, void *ctx)
{
	size_t n = 0;
	uint64_t t = *tail;
	/* More than a buffer between tail and head cannot be: the kernel does not overwrite
	 * unread data (it counts it lost); a bad head ends the read. */
	if (head - t > size) {
		p->bad++;
		*tail = head;
		return 0;
	}
	while (head - t >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		size_t off = (size_t)(t & (size - 1));
		/* The header itself may wrap (8 bytes: the kernel aligns records to 8, so it
		 * does not, but a bad ring must not make us read outside it). */
		for (size_t i = 0; i < sizeof(h); i++)
			((char *)&h)[i] = data[(off + i) & (size - 1)];
		if (h.size < sizeof(h) || h.size > head - t) {
			p->bad++;
			t = head;
			break;
		}
		const char *rec;
		if (off + h.size <= size) {
			rec = data + off;
		} else { /* across the end: made whole */
			size_t first = size - off;
			memcpy(p->scratch, data + off, first);
			memcpy(p->scratch + first, data, h.size - first);
			rec = p->scratch;
		}
		const char *body = rec + sizeof(h);
		size_t blen = h.size - sizeof(h);
		uint64_t v;
		switch (h.type) {
		case PERF_RECORD_LOST:
			if (blen >= 16) {
				memcpy(&v, body + 8, 8);
				p->lost += v;
				p->lost_records++;
			}
			break;
		case PERF_RECORD_THROTTLE: p->throttled++; break;
		case PERF_RECORD_UNTHROTTLE: p->unthrottled++; break;
		}
		p->records++;
		n++;
		fn(&h, body, blen, ctx);
		t += h.size;
	}
	*tail = t;
	return n;
}

size_t perfev_drain(struct perfev *p, perfev_fn fn, void *ctx)
{
	size_t n = 0;
	for (int i = 0; i < p->n; i++) {
		struct perf_event_mmap_page *m = p->ring[i].base;
		const char *data = (const char *)m + sysconf(_SC_PAGESIZE);
		/* The kernel writes the data, then data_head: read head before the data. */
		uint64_t head = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE);
		uint64_t tail = m->data_tail;
		n += perfev_ring_read(p, data, p->ring[i].data_size, head, &tail, fn, ctx);
		/* The data read before the kernel may write over it again. */
		__atomic_store_n(&m->data_tail, tail, __ATOMIC_RELEASE);
	}
	return n;
}

void perfev_batch_keep(struct perfev_batch *b, const struct perf_event_header *h, const void *body,
		       size_t len, uint64_t time, int src)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 1024;
		struct perfev_held *m = realloc(b->h, cap * sizeof(*m));
		if (!m) {
			b->oom = true;
			return;
		}
		b->h = m;
		b->cap = cap;
	}
	size_t need = (sizeof(*h) + len + 7) & ~(size_t)7;
	if (b->used + need > b->size) {
		size_t size = (b->used + need) * 2;
		char *m = realloc(b->blob, size);
		if (!m) {
			b->oom = true;
			return;
		}
		b->blob = m;
		b->size = size;
	}
	b->h[b->n++] = (struct perfev_held){time, b->seq++, b->used, src};
	memcpy(b->blob + b->used, h, sizeof(*h));
	memcpy(b->blob + b->used + sizeof(*h), body, len);
	b->used += need;
}

struct batch_add {
	struct perfev_batch *b;
	struct perfev *p;
	int src;
};

static void batch_add_one(const struct perf_event_header *h, const void *body, size_t len,
			  void *ctx)
{
	struct batch_add *a = ctx;
	perfev_batch_keep(a->b, h, body, len, perfev_time(h, body, len, a->p->sample_type), a->src);
}

void perfev_batch_add(struct perfev_batch *b, struct perfev *p, int src)
{
	struct batch_add a = {b, p, src};
	perfev_drain(p, batch_add_one, &a);
}

static int held_by_time(const void *x, const void *y)
{
	const struct perfev_held *a = x, *b = y;
	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The end of the run of records in order from s (exclusive). */
static size_t run_end(const struct perfev_held *h, size_t s, size_t n)
{
	while (++s < n && held_by_time(&h[s - 1], &h[s]) <= 0)
		;
	return s;
}

/*
 * The records in time order. They come as one run in order per ring (and one for those kept
 * from the last run): merged pairwise (log2 of the rings' count passes, no allocation once
 * tmp has grown), where qsort was an allocation and n log n compares a drain (5% of
 * profile's CPU at 999 Hz).
 */
static void sort_held(struct perfev_batch *b)
{
	size_t n = b->n;
	if (n < 2 || run_end(b->h, 0, n) == n)
		return;
	if (b->tmp_cap < n) {
		struct perfev_held *t = realloc(b->tmp, n * sizeof(*t));
		if (!t) {
			qsort(b->h, n, sizeof(*b->h), held_by_time);
			return;
		}
		b->tmp = t;
		b->tmp_cap = n;
	}
	struct perfev_held *src = b->h, *dst = b->tmp;
	for (size_t runs = 0; runs != 1;) {
		runs = 0;
		for (size_t s = 0; s < n; runs++) {
			size_t m = run_end(src, s, n), e = m < n ? run_end(src, m, n) : n;
			size_t i = s, j = m, o = s;
			while (i < m && j < e)
				dst[o++] = held_by_time(&src[j], &src[i]) < 0 ? src[j++] : src[i++];
			while (i < m)
				dst[o++] = src[i++];
			while (j < e)
				dst[o++] = src[j++];
			s = e;
		}
		struct perfev_held *t = src;
		src = dst;
		dst = t;
	}
	if (src != b->h)
		memcpy(b->h, src, n * sizeof(*src));
}

size_t perfev_batch_run(struct perfev_batch *b, uint64_t until, perfev_batch_fn fn, void *ctx)
{
	sort_held(b);
	size_t i = 0;
	for (; i < b->n && b->h[i].time <= until; i++) {
		struct perf_event_header h;
		memcpy(&h, b->blob + b->h[i].at, sizeof(h));
		fn(&h, b->blob + b->h[i].at + sizeof(h), h.size - sizeof(h), b->h[i].time,
		   b->h[i].src, ctx);
	}
	size_t ran = i, used = 0, n = 0;
	/* The later ones into a new blob, in order, for the next run (moved in place, one
	 * could land on another not yet moved: the blob is in arrival order, not time). */
	char *blob = i < b->n ? malloc(b->size) : NULL;
	if (i < b->n && !blob) {
		b->oom = true;
		i = b->n; /* dropped */
	}
	for (; i < b->n; i++) {
		struct perf_event_header h;
		memcpy(&h, b->blob + b->h[i].at, sizeof(h));
		size_t sz = (h.size + 7) & ~(size_t)7;
		memcpy(blob + used, b->blob + b->h[i].at, sz);
		b->h[n] = b->h[i];
		b->h[n++].at = used;
		used += sz;
	}
	if (blob) {
		free(b->blob);
		b->blob = blob;
	}
	b->n = n;
	b->used = used;
	return ran;
}

void perfev_batch_free(struct perfev_batch *b)
{
	free(b->h);
	free(b->tmp);
	free(b->blob);
	memset(b, 0, sizeof(*b));
}

int perfev_sample(const void *body, size_t len, uint64_t type, struct perfev_sample *s)
{
	const char *b = body, *e = b + len;
	memset(s, 0, sizeof(*s));
#define TAKE(dst, n)                       \
	do {                               \
		if ((size_t)(e - b) < (n)) \
			return -1;         \
		memcpy((dst), b, (n));     \
		b += (n);                  \
	} while (0)
	uint32_t two[2];
	if (type & PERF_SAMPLE_IDENTIFIER)
		b += 8;
	if (type & PERF_SAMPLE_IP)
		TAKE(&s->ip, 8);
	if (type & PERF_SAMPLE_TID) {
		TAKE(two, 8);
		s->pid = two[0];
		s->tid = two[1];
	}
	if (type & PERF_SAMPLE_TIME)
		TAKE(&s->time, 8);
	if (type & PERF_SAMPLE_ADDR)
		b += 8;
	if (type & PERF_SAMPLE_ID)
		b += 8;
	if (type & PERF_SAMPLE_STREAM_ID)
		b += 8;
	if (type & PERF_SAMPLE_CPU) {
		TAKE(two, 8);
		s->cpu = two[0];
	}
	if (type & PERF_SAMPLE_PERIOD)
		TAKE(&s->period, 8);
	if (type & PERF_SAMPLE_READ)
		return -1; /* not asked by this module */
	if (type & PERF_SAMPLE_CALLCHAIN) {
		TAKE(&s->nr, 8);
		if (b > e || s->nr > (uint64_t)(e - b) / 8)
			return -1;
		s->chain = (const uint64_t *)(const void *)b;
		b += s->nr * 8;
	}
	if (type & PERF_SAMPLE_RAW) {
		TAKE(&s->raw_size, 4);
		if (s->raw_size > (uint64_t)(e - b))
			return -1;
		s->raw = b;
		b += s->raw_size;
	}
#undef TAKE
	return b > e ? -1 : 0;
}

uint64_t perfev_time(const struct perf_event_header *h, const void *body, size_t len, uint64_t type)
{
	if (!(type & PERF_SAMPLE_TIME))
		return 0;
	if (h->type == PERF_RECORD_SAMPLE) {
		struct perfev_sample s;
		return perfev_sample(body, len, type, &s) ? 0 : s.time;
	}
	/* sample_id: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER, each 8 bytes when asked */
	static const uint64_t id_bits[] = {PERF_SAMPLE_TID, PERF_SAMPLE_TIME,
					   PERF_SAMPLE_ID,  PERF_SAMPLE_STREAM_ID,
					   PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER};
	size_t n = 0;
	for (size_t i = 0; i < sizeof(id_bits) / sizeof(*id_bits); i++)
		n += type & id_bits[i] ? 8 : 0;
	size_t at = len - n + (type & PERF_SAMPLE_TID ? 8 : 0);
	uint64_t t;
	if (len < n)
		return 0;
	memcpy(&t, (const char *)body + at, 8);
	return t;
}

int64_t perfev_switch_in(const struct perf_event_header *h, const void *body, size_t len,
			 uint64_t type)
{
	if ((h->type != PERF_RECORD_SWITCH && h->type != PERF_RECORD_SWITCH_CPU_WIDE) ||
	    (h->misc & PERF_RECORD_MISC_SWITCH_OUT) || !(type & PERF_SAMPLE_TID))
		return -1;
	size_t n = 0; /* the sample_id's size, as perfev_time counts it */
	static const uint64_t id_bits[] = {PERF_SAMPLE_TID, PERF_SAMPLE_TIME,
					   PERF_SAMPLE_ID,  PERF_SAMPLE_STREAM_ID,
					   PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER};
	for (size_t i = 0; i < sizeof(id_bits) / sizeof(*id_bits); i++)
		n += type & id_bits[i] ? 8 : 0;
	if (len < n)
		return -1;
	uint32_t tid; /* pid, then tid */
	memcpy(&tid, (const char *)body + len - n + 4, 4);
	return tid;
}

int perfev_chain_split(const uint64_t *chain, uint64_t nr, uint64_t *k, int *nk, int kmax,
		       uint64_t *u, int *nu, int umax)
{
	*nk = *nu = 0;
	/* Frames before any marker: the kernel always starts with one; none is taken as
	 * neither. */
	int ctx = 0; /* 1 kernel, 2 user, 0 other */
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t a = chain[i];
		if (a >= (uint64_t)PERF_CONTEXT_MAX) {
			ctx = a == (uint64_t)PERF_CONTEXT_KERNEL ? 1 :
			      a == (uint64_t)PERF_CONTEXT_USER	 ? 2 :
								   0;
			continue;
		}
		if (ctx == 1 && *nk < kmax)
			k[(*nk)++] = a;
		else if (ctx == 2 && *nu < umax)
			u[(*nu)++] = a;
	}
	return *nk + *nu;
}

void perfev_report(const struct perfev *p, const char *tool)
{
	if (p->lost)
		fprintf(stderr, "%s: %llu samples lost (the ring of a CPU was full: %llu times)\n",
			tool, (unsigned long long)p->lost, (unsigned long long)p->lost_records);
	if (p->throttled)
		fprintf(stderr,
			"%s: sampling throttled %llu times by the kernel "
			"(perf_event_max_sample_rate, perf_cpu_time_max_percent)\n",
			tool, (unsigned long long)p->throttled);
	if (p->bad)
		fprintf(stderr, "%s: %llu malformed ring positions skipped\n", tool,
			(unsigned long long)p->bad);
}
