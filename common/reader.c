#include "reader.h"
#include "session.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <tracefs.h>

/*
 * Events are held back this long behind "now" before an ordered reader dispatches them: an
 * event can be committed on one CPU slightly after a later-stamped one on another CPU.
 */
#define ORDER_SLACK_NS 20000000ULL
/* Longest sleep in poll(): bounds output delay on kernels whose poll waits for a watermark. */
#define POLL_MAX_MS 100
/* Pages read from one CPU per batch before dispatching, so one flooded CPU cannot starve. */
#define BATCH_PAGES 256
/*
 * Pages held per CPU at most. When events come faster than the tool handles them, the
 * backlog stays in the kernel's buffer (where an overflow is counted and reported as lost
 * events) instead of growing this process without bound.
 */
#define MAX_PENDING_PAGES 128
/*
 * Wake-ups. poll() returns on the first event (buffer_percent 0), so a lone event shows at
 * once. In a flood that costs the traced CPU an irq_work and a reader-page swap every few
 * events (~1.3 us per event at 1M events/s, bench/): after FLOOD_WAKES wake-ups within
 * 100 ms the reader asks to be woken at FLOOD_PERCENT of a buffer instead (kernels 6.1+;
 * its own 100 ms wake-up bounds the delay), and for every event again once a wake-up finds
 * the buffers empty.
 */
#define FLOOD_WAKES 100
#define FLOOD_PERCENT "25"

struct reader_cpu {
	int cpu, fd;
	struct kbuffer *kbuf;
	char **pages;            /* ring of pages read but not yet fully dispatched */
	size_t cap, head, count; /* in pages */
	void *cur;               /* current record in the head page, NULL when none */
	unsigned long long ts;   /* its timestamp */
};

uint64_t reader_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

int reader_open(struct reader *r, struct tep_handle *tep, const char *dir, size_t subbuf,
		bool ordered)
{
	memset(r, 0, sizeof(*r));
	r->percent_fd = -1;
	r->tep = tep;
	r->ordered = ordered;
	r->subbuf = subbuf ? subbuf : (size_t)getpagesize();

	char path[4096];
	snprintf(path, sizeof(path), "%s/per_cpu", dir);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	int ids[4096], n = 0;
	struct dirent *de;
	while ((de = readdir(d)) && n < 4096)
		if (!strncmp(de->d_name, "cpu", 3) && de->d_name[3])
			ids[n++] = atoi(de->d_name + 3);
	closedir(d);
	qsort(ids, n, sizeof(int), cmp_int);

	r->cpus = calloc(n ? n : 1, sizeof(*r->cpus));
	if (!r->cpus)
		return -1;
	for (int i = 0; i < n; i++) {
		struct reader_cpu *c = &r->cpus[r->ncpus];
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", dir, ids[i]);
		c->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (c->fd < 0)
			continue; /* a CPU that is not online */
		c->cpu = ids[i];
		c->kbuf = tep_kbuffer(tep);
		if (!c->kbuf) {
			close(c->fd);
			return -1;
		}
		r->ncpus++;
	}
	return r->ncpus ? 0 : -1;
}

int reader_open_session(struct reader *r, struct session *s, bool ordered)
{
	char *dir = tracefs_instance_get_dir(s->inst);
	if (!dir)
		return -1;
	size_t subbuf = 0;
	long long kb;
	/* Linux 6.8 made the page (sub-buffer) size configurable. */
	if (tracefs_file_exists(s->inst, "buffer_subbuf_size_kb") &&
	    !tracefs_instance_file_read_number(s->inst, "buffer_subbuf_size_kb", &kb) && kb > 0)
		subbuf = (size_t)kb * 1024;
	int ret = reader_open(r, s->tep, dir, subbuf, ordered);
	if (ret)
		fprintf(stderr, "%s: cannot open the ring buffers of %s: %s\n", s->tool, dir,
			strerror(errno));
	tracefs_put_tracing_file(dir);
	r->mono = s->mono;
	s->reader = r;
	char *path = tracefs_instance_get_file(s->inst, "buffer_percent");
	r->percent_fd = path && tracefs_file_exists(s->inst, "buffer_percent") ?
				open(path, O_WRONLY | O_CLOEXEC) : -1;
	tracefs_put_tracing_file(path);
	return ret;
}

int reader_on(struct reader *r, struct tep_event *ev, reader_event_fn fn, void *ctx)
{
	if (r->nhandlers == READER_MAX_HANDLERS)
		return -1;
	r->handlers[r->nhandlers].id = ev->id;
	r->handlers[r->nhandlers].fn = fn;
	r->handlers[r->nhandlers].ctx = ctx;
	r->nhandlers++;
	return 0;
}

void reader_on_lost(struct reader *r, reader_lost_fn fn, void *ctx)
{
	r->on_lost = fn;
	r->lost_ctx = ctx;
}

static void report_lost(struct reader *r, struct reader_cpu *c, long long n)
{
	if (n > 0) {
		fprintf(stderr, "WARNING: lost %lld events on CPU %d\n", n, c->cpu);
	} else {
		fprintf(stderr, "WARNING: lost events on CPU %d\n", c->cpu);
	}
	if (r->on_lost)
		r->on_lost(c->cpu, n, r->lost_ctx);
}

/* Make the head page current; returns false when the CPU has no page left. */
static bool load_head(struct reader *r, struct reader_cpu *c)
{
	while (c->count) {
		kbuffer_load_subbuffer(c->kbuf, c->pages[c->head]);
		int missed = kbuffer_missed_events(c->kbuf);
		if (missed)
			report_lost(r, c, missed);
		c->cur = kbuffer_read_event(c->kbuf, &c->ts);
		if (c->cur)
			return true;
		c->head = (c->head + 1) % c->cap;
		c->count--;
	}
	c->cur = NULL;
	return false;
}

static void advance(struct reader *r, struct reader_cpu *c)
{
	c->cur = kbuffer_next_event(c->kbuf, &c->ts);
	if (c->cur)
		return;
	c->head = (c->head + 1) % c->cap;
	c->count--;
	load_head(r, c);
}

/* Pages never move once read: kbuffer keeps pointers into the head page. */
static int grow(struct reader *r, struct reader_cpu *c)
{
	size_t cap = c->cap ? c->cap * 2 : 16;
	char **p = calloc(cap, sizeof(*p));
	if (!p)
		return -1;
	for (size_t i = 0; i < c->cap; i++)
		p[i] = c->pages[(c->head + i) % c->cap];
	for (size_t i = c->cap; i < cap; i++)
		if (!(p[i] = malloc(r->subbuf))) {
			while (i-- > c->cap)
				free(p[i]);
			free(p);
			return -1;
		}
	free(c->pages);
	c->pages = p;
	c->cap = cap;
	c->head = 0;
	return 0;
}

/* Append the pages the kernel has for this CPU now (at most max); returns pages read. */
static int fill(struct reader *r, struct reader_cpu *c, int max)
{
	int got = 0;
	while (got < max && c->count < MAX_PENDING_PAGES) {
		if (c->count == c->cap && grow(r, c))
			return -1;
		char *slot = c->pages[(c->head + c->count) % c->cap];
		ssize_t n = read(c->fd, slot, r->subbuf);
		if (n <= 0) {
			if (n < 0 && errno != EAGAIN && errno != EINTR)
				return -1;
			break;
		}
		if ((size_t)n < r->subbuf)
			memset(slot + n, 0, r->subbuf - (size_t)n);
		c->count++;
		got++;
		if (c->count == 1)
			load_head(r, c);
	}
	return got;
}

static inline void dispatch(struct reader *r, struct reader_cpu *c)
{
	struct tep_record rec = {
		.ts = c->ts,
		.cpu = c->cpu,
		.data = c->cur,
		.size = kbuffer_event_size(c->kbuf),
		.missed_events = 0,
	};
	int id = tep_data_type(r->tep, &rec);
	r->events++;
	for (int i = 0; i < r->nhandlers; i++)
		if (r->handlers[i].id == id) {
			r->handlers[i].fn(&rec, r->handlers[i].ctx);
			break;
		}
}

/* Dispatch everything stamped before limit; CPUs merged by time when ordered. */
static void dispatch_until(struct reader *r, unsigned long long limit)
{
	if (!r->ordered) {
		for (int i = 0; i < r->ncpus; i++) {
			struct reader_cpu *c = &r->cpus[i];
			while (c->cur) {
				dispatch(r, c);
				advance(r, c);
			}
		}
		return;
	}
	for (;;) {
		struct reader_cpu *min = NULL;
		for (int i = 0; i < r->ncpus; i++) {
			struct reader_cpu *c = &r->cpus[i];
			if (c->cur && (!min || c->ts < min->ts))
				min = c;
		}
		if (!min || min->ts > limit)
			return;
		dispatch(r, min);
		advance(r, min);
	}
}

/* One batch: read what is there, dispatch what is safe to dispatch. Returns pages read. */
static int batch(struct reader *r, bool all)
{
	uint64_t now = reader_now();
	int total = 0;
	for (int i = 0; i < r->ncpus; i++) {
		int n = fill(r, &r->cpus[i], all ? 1 << 30 : BATCH_PAGES);
		if (n < 0)
			return -1;
		total += n;
	}
	unsigned long long limit = ~0ULL;
	if (r->ordered && r->mono && !all)
		limit = now > ORDER_SLACK_NS ? now - ORDER_SLACK_NS : 0;
	dispatch_until(r, limit);
	return total;
}

int reader_drain(struct reader *r)
{
	return batch(r, true) < 0 ? -1 : 0;
}

/* Should the wake-up mode change (see FLOOD_WAKES)? Counts this wake-up. */
static bool flood_check(struct reader *r, int pages, uint64_t now)
{
	if (r->flood)
		return pages == 0;
	if (now - r->window_start >= 100000000ULL) {
		r->window_start = now;
		r->wakes = 0;
	}
	return ++r->wakes >= FLOOD_WAKES;
}

int reader_run(struct reader *r, uint64_t duration_ns, uint64_t interval_ns, reader_tick_fn tick,
	       void *tick_ctx, int (*flush)(void))
{
	uint64_t start = reader_now();
	uint64_t deadline = duration_ns ? start + duration_ns : 0;
	uint64_t next_tick = interval_ns ? start + interval_ns : 0;
	/* One more slot: stdout, when it is a pipe or socket whose reader may go away. */
	struct pollfd *pfd = calloc(r->ncpus + 1, sizeof(*pfd));
	if (!pfd)
		return -1;
	for (int i = 0; i < r->ncpus; i++) {
		pfd[i].fd = r->cpus[i].fd;
		pfd[i].events = POLLIN;
	}
	int npfd = r->ncpus;
	struct stat st;
	if (fstat(STDOUT_FILENO, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
		/* | head on an idle system: no event may come to write, so no EPIPE either. */
		pfd[npfd].fd = STDOUT_FILENO;
		pfd[npfd].events = 0; /* POLLERR and POLLHUP are always reported */
		npfd++;
	}
	int ret = 0;
	while (!session_stop) {
		uint64_t now = reader_now();
		uint64_t wake = now + POLL_MAX_MS * 1000000ULL;
		if (deadline && deadline < wake)
			wake = deadline;
		if (next_tick && next_tick < wake)
			wake = next_tick;
		int ms = wake > now ? (int)((wake - now + 999999) / 1000000) : 0;
		if (poll(pfd, npfd, ms) < 0 && errno != EINTR) {
			ret = -1;
			break;
		}
		if (npfd > r->ncpus && (pfd[r->ncpus].revents & (POLLERR | POLLHUP)))
			session_request_stop();
		if (session_stop)
			break;
		/* Keep reading while whole batches come back: a flood must not wait for poll. */
		int n, pages = 0;
		do {
			n = batch(r, false);
			pages += n > 0 ? n : 0;
		} while (n >= BATCH_PAGES && !session_stop);
		if (n < 0) {
			ret = -1;
			break;
		}
		if (r->percent_fd >= 0 && flood_check(r, pages, reader_now())) {
			const char *v = r->flood ? "0" : FLOOD_PERCENT;
			if (write(r->percent_fd, v, strlen(v)) > 0)
				r->flood = !r->flood;
		}
		now = reader_now();
		if (next_tick && now >= next_tick) {
			next_tick += interval_ns;
			if (next_tick <= now) /* we were stopped (SIGSTOP): skip missed ticks */
				next_tick = now + interval_ns;
			if (tick && tick(now, tick_ctx)) {
				if (flush)
					flush();
				free(pfd);
				return reader_drain(r);
			}
		}
		if (flush && flush())
			break;
		if (deadline && now >= deadline)
			break;
	}
	free(pfd);
	if (reader_drain(r))
		ret = -1;
	return ret;
}

void reader_close(struct reader *r)
{
	if (r->percent_fd >= 0)
		close(r->percent_fd);
	r->percent_fd = -1;
	for (int i = 0; i < r->ncpus; i++) {
		close(r->cpus[i].fd);
		kbuffer_free(r->cpus[i].kbuf);
		for (size_t p = 0; p < r->cpus[i].cap; p++)
			free(r->cpus[i].pages[p]);
		free(r->cpus[i].pages);
	}
	free(r->cpus);
	r->cpus = NULL;
	r->ncpus = 0;
}

const char *reader_str(const struct tep_record *rec, const struct tep_format_field *f, size_t *len)
{
	const char *data = rec->data;
	if (!(f->flags & TEP_FIELD_IS_DYNAMIC)) {
		*len = f->offset + f->size <= rec->size ? (size_t)f->size : 0;
		return data + f->offset;
	}
	uint32_t v = 0;
	if (f->offset + 4 <= rec->size)
		memcpy(&v, data + f->offset, 4);
	uint32_t off = v & 0xffff, n = v >> 16;
	if (f->flags & TEP_FIELD_IS_RELATIVE) /* __rel_loc: from the end of the field */
		off += f->offset + f->size;
	if (off >= (uint32_t)rec->size)
		n = off = 0;
	else if (off + n > (uint32_t)rec->size)
		n = rec->size - off;
	*len = n;
	return data + off;
}

long long reader_num(const struct tep_record *rec, const struct tep_format_field *f)
{
	const char *p = (const char *)rec->data + f->offset;
	bool sign = f->flags & TEP_FIELD_IS_SIGNED;
	if (f->offset + f->size > rec->size)
		return 0;
	switch (f->size) {
	case 1: return sign ? *(const int8_t *)p : *(const uint8_t *)p;
	case 2: { uint16_t v; memcpy(&v, p, 2); return sign ? (int16_t)v : v; }
	case 4: { uint32_t v; memcpy(&v, p, 4); return sign ? (int32_t)v : (long long)v; }
	case 8: { uint64_t v; memcpy(&v, p, 8); return (long long)v; }
	}
	return 0;
}
