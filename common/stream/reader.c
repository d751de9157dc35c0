// SPDX-License-Identifier: GPL-2.0-only
#include "stream/reader.h"
#include "stream/cpubuf.h"
#include "kernel/clockmap.h"
#include "kernel/session.h"
#include "base/sig.h"

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
#include <tracefs.h>

/*
 * Events are held back this long behind "now" before an ordered reader dispatches them: an
 * event can be committed on one CPU slightly after a later-stamped one on another CPU.
 */
#define ORDER_SLACK_NS 20000000ULL
/* Longest sleep in poll(): bounds output delay on kernels whose poll waits for a watermark,
 * and how soon a CPU that comes online is noticed. */
#define POLL_MAX_MS 100
/* Pages read from one CPU per batch before dispatching, so one flooded CPU cannot starve. */
#define BATCH_PAGES 256
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

struct handler {
	reader_event_fn fn;
	void *ctx;
	struct handler *next;
};

struct reader_route {
	struct handler *first;
	bool trailer;
	unsigned long long trailers; /* records of a trailer event, attached or not */
};

uint64_t reader_now(void)
{
	return clockmap_now();
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void say(const struct reader *r, const char *fmt, const char *path, int err)
{
	if (!r->tool)
		return;
	fprintf(stderr, "%s: ", r->tool);
	fprintf(stderr, fmt, path);
	fprintf(stderr, ": %s%s\n", session_strerror(err),
		err == EMFILE || err == ENFILE ? " (too many open files: raise ulimit -n)" : "");
}

/* Add the CPU buffers of dir as source r->nsrc. */
static int open_source_cpus(struct reader *r, const char *dir);

static int add_source(struct reader *r, const char *dir, const char *what)
{
	if (r->nsrc == READER_MAX_SOURCES)
		return -1;
	struct reader_source *src = &r->src[r->nsrc];
	src->dir = strdup(dir);
	src->what = what;
	src->tracing_on_fd = -1;
	src->polled = r->nsrc == 0;
	if (!src->dir)
		return -1;
	int ret = open_source_cpus(r, dir);
	if (ret < 0) { /* not a source: the caller will not close it */
		free(src->dir);
		src->dir = NULL;
	}
	return ret;
}

/* The per-CPU buffers of source r->nsrc; returns its index, or -1. */
static int open_source_cpus(struct reader *r, const char *dir)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/per_cpu", dir);
	DIR *d = opendir(path);
	if (!d) {
		say(r, "cannot read %s", path, errno);
		return -1;
	}
	int *ids = NULL, n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "cpu", 3) || !de->d_name[3])
			continue;
		if (n == cap) {
			int *more = realloc(ids, (size_t)(cap = cap ? cap * 2 : 64) * sizeof(*ids));
			if (!more) {
				free(ids);
				closedir(d);
				return -1;
			}
			ids = more;
		}
		ids[n++] = atoi(de->d_name + 3);
	}
	closedir(d);
	if (n)
		qsort(ids, (size_t)n, sizeof(int), cmp_int);
	struct cpubuf *cpus = realloc(r->cpus, (size_t)(r->ncpus + n + 1) * sizeof(*cpus));
	if (!cpus) {
		free(ids);
		return -1;
	}
	r->cpus = cpus;
	int added = 0;
	for (int i = 0; i < n; i++) {
		struct cpubuf *c = &r->cpus[r->ncpus];
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", dir, ids[i]);
		/* An offline CPU opens too: a failure here is real (EMFILE, EACCES), and a CPU
		 * silently not read would lie. */
		if (cpubuf_open(c, path, ids[i], r->nsrc, r->tep, r->subbuf)) {
			say(r, "cannot open %s", path, errno);
			free(ids);
			return -1;
		}
		r->ncpus++;
		added++;
	}
	free(ids);
	if (!added) {
		if (r->tool)
			fprintf(stderr, "%s: no CPU buffers under %s/per_cpu\n", r->tool, dir);
		return -1;
	}
	return r->nsrc++;
}

/* The handle reader_pid() reads common_pid with: every event of a kernel has the same
 * common fields, so the last reader opened serves every record of the run. */
static struct tep_handle *pid_tep;

int reader_pid(struct tep_record *rec)
{
	return tep_data_pid(pid_tep, rec);
}

static int open_cpus(struct reader *r, const char *tool, struct tep_handle *tep, const char *dir,
		     size_t subbuf, bool ordered)
{
	memset(r, 0, sizeof(*r));
	r->tool = tool;
	r->percent_fd = -1;
	r->tep = tep;
	pid_tep = tep;
	r->ordered = ordered;
	r->subbuf = subbuf ? subbuf : (size_t)getpagesize();
	return add_source(r, dir, "events") < 0 ? -1 : 0;
}

int reader_open(struct reader *r, struct tep_handle *tep, const char *dir, size_t subbuf,
		bool ordered)
{
	return open_cpus(r, NULL, tep, dir, subbuf, ordered);
}

static void close_on_session_end(void *arg)
{
	reader_close(arg);
}

/* The buffers of the session's instance, or (top) the top level's, read for the session. */
static int open_for_session(struct reader *r, struct session *s, bool top, int on_fd, bool ordered)
{
	struct tracefs_instance *inst = top ? NULL : s->inst;
	const char *dir = top ? tracefs_tracing_dir() : s->dir;
	size_t subbuf = 0;
	long long kb;
	/* Linux 6.8 made the page (sub-buffer) size configurable. */
	if (tracefs_file_exists(inst, "buffer_subbuf_size_kb") &&
	    !tracefs_instance_file_read_number(inst, "buffer_subbuf_size_kb", &kb) && kb > 0)
		subbuf = (size_t)kb * 1024;
	int ret = dir ? open_cpus(r, s->tool, s->tep, dir, subbuf, ordered) : -1;
	r->mono = s->mono;
	/* (funcgraph gives the top level its instance's clock: the same map) */
	r->clock = s->clock_mapped ? &s->clock : NULL;
	r->src[0].tracing_on_fd = on_fd;
	if (session_on_close(s, SESSION_BEFORE_REMOVE, close_on_session_end, r)) {
		reader_close(r);
		return -1;
	}
	if (top) /* its buffer_percent is not this run's to change */
		return ret;
	char *path = tracefs_instance_get_file(s->inst, "buffer_percent");
	r->percent_fd = path && tracefs_file_exists(s->inst, "buffer_percent") ?
				open(path, O_WRONLY | O_CLOEXEC) :
				-1;
	tracefs_put_tracing_file(path);
	return ret;
}

int reader_open_session(struct reader *r, struct session *s, bool ordered)
{
	return open_for_session(r, s, false, s->hold_fd, ordered);
}

int reader_open_toplevel(struct reader *r, struct session *s, int on_fd, bool ordered)
{
	return open_for_session(r, s, true, on_fd, ordered);
}

static struct reader_route *route(struct reader *r, int id)
{
	if (id < 0)
		return NULL;
	if (id >= r->nroutes) {
		int n = id + 1 > 2 * r->nroutes ? id + 1 : 2 * r->nroutes;
		struct reader_route *more = realloc(r->routes, (size_t)n * sizeof(*more));
		if (!more)
			return NULL;
		memset(more + r->nroutes, 0, (size_t)(n - r->nroutes) * sizeof(*more));
		r->routes = more;
		r->nroutes = n;
	}
	return &r->routes[id];
}

int reader_add_session(struct reader *r, struct session *s, const char *what)
{
	/* Pages of the same size: both instances belong to one run of one kernel. */
	int src = add_source(r, s->dir, what);
	if (src >= 0)
		r->src[src].tracing_on_fd = s->hold_fd;
	return src;
}

int reader_on(struct reader *r, struct tep_event *ev, reader_event_fn fn, void *ctx)
{
	struct reader_route *rt = ev ? route(r, ev->id) : NULL;
	struct handler *h = rt ? calloc(1, sizeof(*h)) : NULL;
	if (!h)
		return -1;
	h->fn = fn;
	h->ctx = ctx;
	struct handler **p = &rt->first;
	while (*p)
		p = &(*p)->next;
	*p = h;
	return 0;
}

int reader_trailer(struct reader *r, struct tep_event *ev)
{
	struct reader_route *rt = ev ? route(r, ev->id) : NULL;
	if (!rt)
		return -1;
	rt->trailer = true;
	return 0;
}

unsigned long long reader_trailers_read(const struct reader *r, const struct tep_event *ev)
{
	return ev && ev->id >= 0 && ev->id < r->nroutes ? r->routes[ev->id].trailers : 0;
}

const struct reader_trailers *reader_record_trailers(const struct tep_record *rec)
{
	return rec->priv;
}

int reader_on_lost_of(struct reader *r, int src, reader_lost_fn fn, void *ctx)
{
	if (r->nlost == READER_MAX_LOST)
		return -1;
	r->on_lost[r->nlost].fn = fn;
	r->on_lost[r->nlost].ctx = ctx;
	r->on_lost[r->nlost].src = src;
	r->nlost++;
	return 0;
}

int reader_on_lost(struct reader *r, reader_lost_fn fn, void *ctx)
{
	return reader_on_lost_of(r, -1, fn, ctx);
}

/*
 * Losses are said as they are found, at most one line a second per source while they go on
 * (a flood lost events on every page: 444 lines in 10 s), with the running total; the exact
 * total comes at the end (report_end). A count the kernel could not give makes the totals
 * "at least".
 */
static void report_lost(struct reader *r, struct cpubuf *c, long long n)
{
	const char *what = r->src[c->src].what;
	struct reader_warn *w = &r->warn[c->src];
	if (n > 0) {
		w->pending += n;
		w->total += n;
		if (c->src == 0)
			r->lost_seen += n;
	} else {
		w->unknown = true;
	}
	if (c->cpu < 64)
		w->cpus |= 1ULL << c->cpu;
	uint64_t now = reader_now();
	if (w->said && now - w->said < 1000000000ULL)
		goto tell;
	char cpus[256] = "";
	size_t len = 0;
	for (int i = 0; i < 64 && len < sizeof(cpus) - 8; i++)
		if (w->cpus >> i & 1)
			len += (size_t)snprintf(cpus + len, sizeof(cpus) - len, "%s%d",
						len ? "," : "", i);
	char count[48] = "", total[64] = "";
	if (w->pending)
		snprintf(count, sizeof(count), "%s%lld ", w->unknown ? "at least " : "",
			 w->pending);
	if (w->said && w->total)
		snprintf(total, sizeof(total), " (%s%lld so far)", w->unknown ? "at least " : "",
			 w->total);
	fprintf(stderr, "WARNING: lost %s%s%s on CPU %s%s\n", count, w->said ? "more " : "", what,
		cpus, total);
	w->said = now;
	w->pending = 0;
	w->cpus = 0;
tell:
	for (int i = 0; i < r->nlost; i++)
		if (r->on_lost[i].src < 0 || r->on_lost[i].src == c->src)
			r->on_lost[i].fn(c->cpu, n, r->on_lost[i].ctx);
}

static struct reader_route *route_of(struct reader *r, void *data, int *id)
{
	struct tep_record tmp = {.data = data};
	*id = tep_data_type(r->tep, &tmp);
	return *id >= 0 && *id < r->nroutes ? &r->routes[*id] : NULL;
}

/* Dispatch the current record of c and move past it and its trailers. */
static void dispatch(struct reader *r, struct cpubuf *c)
{
	if (c->lost) {
		report_lost(r, c, c->lost);
		c->lost = 0;
	}
	struct tep_record rec = {
		.ts = r->clock ? clockmap_mono(r->clock, c->ts) : c->ts,
		.cpu = c->cpu,
		.data = c->cur,
		.size = c->size,
		.priv = &r->trailers,
	};
	int id;
	struct reader_route *rt = route_of(r, rec.data, &id);
	cpubuf_advance(c);
	if (rt && rt->trailer) {
		rt->trailers++;
		return; /* its event was not seen */
	}
	/* Trailers follow their event on its CPU; the pages they sit on stay in memory until
	 * the next fill, so pointers into them hold while the handler runs. */
	struct tep_record trailer[READER_MAX_TRAILERS];
	r->trailers.n = 0;
	while (c->cur && r->trailers.n < READER_MAX_TRAILERS) {
		int tid;
		struct reader_route *trt = route_of(r, c->cur, &tid);
		if (!trt || !trt->trailer)
			break;
		struct tep_record *t = &trailer[r->trailers.n];
		*t = (struct tep_record){.ts = r->clock ? clockmap_mono(r->clock, c->ts) : c->ts,
					 .cpu = c->cpu,
					 .data = c->cur,
					 .size = c->size};
		r->trailers.id[r->trailers.n] = tid;
		r->trailers.rec[r->trailers.n++] = t;
		trt->trailers++;
		cpubuf_advance(c);
	}
	r->events++;
	for (struct handler *h = rt ? rt->first : NULL; h; h = h->next)
		h->fn(&rec, h->ctx);
}

/* A CPU whose records in memory end on its last page while the kernel has more for it: its
 * next record (or a trailer of the last one) is not read yet, so wait for the next fill. */
static bool must_wait(const struct cpubuf *c)
{
	return c->more && c->count <= 1;
}

/* Dispatch everything stamped before limit; CPUs merged by time when ordered. */
static void dispatch_until(struct reader *r, unsigned long long limit)
{
	if (!r->ordered) {
		for (int i = 0; i < r->ncpus; i++) {
			struct cpubuf *c = &r->cpus[i];
			while (c->cur && c->ts <= limit && !must_wait(c))
				dispatch(r, c);
		}
		return;
	}
	for (;;) {
		struct cpubuf *min = NULL;
		for (int i = 0; i < r->ncpus; i++) {
			struct cpubuf *c = &r->cpus[i];
			if (c->cur && (!min || c->ts < min->ts))
				min = c;
		}
		if (!min || min->ts > limit || must_wait(min))
			return;
		dispatch(r, min);
	}
}

/* Read what is there, dispatch what is stamped up to limit (CLOCK_MONOTONIC where the
 * reader's times are). Returns pages read. */
static int fill_and_dispatch(struct reader *r, unsigned long long limit)
{
	/* The kept trace clock's time of limit: the map keeps order, so its records are
	 * merged in their own clock and mapped as they are dispatched. */
	if (r->clock && ~limit) {
		clockmap_sync(r->clock, reader_now());
		limit = clockmap_raw(r->clock, limit);
	}
	int total = 0;
	for (int i = 0; i < r->ncpus; i++) {
		int n = cpubuf_fill(&r->cpus[i], BATCH_PAGES);
		if (n < 0) {
			char what[64];
			snprintf(what, sizeof(what), "CPU %d", r->cpus[i].cpu);
			say(r, "cannot read the ring buffer of %s", what, errno);
			return -1;
		}
		total += n;
	}
	dispatch_until(r, limit);
	return total;
}

/* One batch: read what is there, dispatch what is safe to dispatch. Returns pages read. */
static int batch(struct reader *r, bool all)
{
	uint64_t now = reader_now();
	unsigned long long limit = ~0ULL;
	if (r->ordered && r->mono && !all)
		limit = now > ORDER_SLACK_NS ? now - ORDER_SLACK_NS : 0;
	return fill_and_dispatch(r, limit);
}

uint64_t reader_time(const struct reader *r, uint64_t raw)
{
	return r->clock ? clockmap_mono(r->clock, raw) : raw;
}

int reader_read_until(struct reader *r, uint64_t limit)
{
	bool more;
	int pages;
	/* Until nothing more can be read: a CPU whose pages in memory (CPUBUF_MAX_PENDING)
	 * are all stamped after limit says more but reads none, and waits for the next read
	 * (looping on it spun at full CPU for good under a flood: vfsstat, 2 dd of 64 bytes). */
	do {
		if ((pages = fill_and_dispatch(r, r->mono ? limit : ~0ULL)) < 0)
			return -1;
		more = false;
		for (int i = 0; i < r->ncpus; i++)
			more |= r->cpus[i].more;
	} while (more && pages > 0 && sig_stop < 2);
	return 0;
}

static bool any_left(const struct reader *r)
{
	for (int i = 0; i < r->ncpus; i++)
		if (r->cpus[i].cur || r->cpus[i].more)
			return true;
	return false;
}

int reader_drain(struct reader *r)
{
	do {
		if (batch(r, true) < 0)
			return -1;
	} while (any_left(r) && sig_stop < 2);
	/* A loss flagged on pages with no record after it (the last page held none, or was
	 * dropped as unsound) is reported now: no later record will carry it. */
	for (int i = 0; i < r->ncpus; i++) {
		struct cpubuf *c = &r->cpus[i];
		if (c->lost && !c->cur) {
			report_lost(r, c, c->lost);
			c->lost = 0;
		}
	}
	return 0;
}

/* Should the wake-up mode change (see FLOOD_WAKES)? Counts this wake-up. */
static bool flood_check(struct reader *r, int pages, uint64_t now)
{
	if (r->flood) {
		if (pages)
			return false;
		/* Back to a wake-up per event, counted afresh: the flood's own count of
		 * wake-ups would switch it back at the next one (a write a wake-up). */
		r->wakes = 0;
		r->window_start = now;
		return true;
	}
	if (now - r->window_start >= 100000000ULL) {
		r->window_start = now;
		r->wakes = 0;
	}
	return ++r->wakes >= FLOOD_WAKES;
}

/* A number from a per-CPU stats line ("overrun: 12"); 0 when absent (older kernels). */
static long long stat_value(const char *text, const char *key)
{
	size_t len = strlen(key);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, len) && p[len] == ':')
			return strtoll(p + len + 1, NULL, 10);
	return 0;
}

static int read_stats(const struct reader *r, const struct cpubuf *c, char *buf, size_t len)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", r->src[c->src].dir, c->cpu);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return 0;
}

/* The events src's CPUs lost (-1: unreadable), and of them (unplaced, may be NULL) those
 * dropped where no page marks: a writer that laps the buffer while an interrupted one holds
 * its commit page drops its events there and then, and they cut what they belonged to (a
 * call's end) without a mark; overruns are marked on the next page read. */
static long long lost_counts(const struct reader *r, int src, long long *unplaced)
{
	long long total = 0, dropped = 0;
	char buf[1024];
	for (int i = 0; i < r->ncpus; i++) {
		if (r->cpus[i].src != src)
			continue;
		if (read_stats(r, &r->cpus[i], buf, sizeof(buf)))
			return -1;
		long long d = stat_value(buf, "commit overrun") + stat_value(buf, "dropped events");
		total += stat_value(buf, "overrun") + d;
		dropped += d;
	}
	if (unplaced)
		*unplaced = dropped;
	return total;
}

long long reader_lost_total(const struct reader *r, int src)
{
	return lost_counts(r, src, NULL);
}

/* Records read but not dispatched (a second stop cut the drain short); ends the pages. */
static long long count_pending(struct reader *r)
{
	long long n = 0;
	for (int i = 0; i < r->ncpus; i++) {
		struct cpubuf *c = &r->cpus[i];
		while (c->cur) {
			n++;
			cpubuf_advance(c);
		}
	}
	return n;
}

/* After a stop: what could not be shown, and what the kernel lost, in exact numbers. */
static void report_end(struct reader *r, bool cut_short)
{
	if (!r->tool)
		return;
	if (cut_short) {
		long long left = count_pending(r);
		char buf[1024];
		for (int i = 0; i < r->ncpus; i++)
			if (r->cpus[i].src == 0 && !read_stats(r, &r->cpus[i], buf, sizeof(buf)))
				left += stat_value(buf, "entries");
		fprintf(stderr, "%s: stopped at once: %lld recorded events were not shown\n",
			r->tool, left);
	}
	long long unplaced = 0, lost = lost_counts(r, 0, &unplaced);
	if (lost > 0) {
		fprintf(stderr,
			"%s: %lld events were lost in all: the kernel's buffer was full "
			"(FTT_BUFFER_KB sets a larger one)\n",
			r->tool, lost);
		if (unplaced > 0)
			fprintf(stderr,
				"%s: %lld of them were dropped where no page of the buffer marks "
				"(commit overruns): what they cut is not marked\n",
				r->tool, unplaced);
	} else if (lost < 0 && r->lost_seen)
		fprintf(stderr, "%s: at least %lld events were lost in all\n", r->tool,
			r->lost_seen);
	for (int s = 1; s < r->nsrc; s++)
		if ((lost = reader_lost_total(r, s)) > 0)
			fprintf(stderr,
				"%s: %lld %s were lost: names after them were read from "
				"/proc, and may be later ones\n",
				r->tool, lost, r->src[s].what);
}

/* Offline CPUs are left out of poll(); each wake-up tries them again. Buffers with no
 * event routed are neither polled nor read (events: false). */
static void poll_set(struct reader *r, struct pollfd *pfd, bool events)
{
	for (int i = 0; i < r->ncpus; i++) {
		struct cpubuf *c = &r->cpus[i];
		pfd[i].fd = !events || c->offline || !r->src[c->src].polled ? -1 : c->fd;
		pfd[i].events = POLLIN;
	}
}

/* Whether any event is routed to a handler, or any page kept (--record): a tool whose
 * events all come from elsewhere (profile's perf rings) reads no ftrace buffer at its
 * wake-ups. */
static bool any_route(const struct reader *r)
{
	for (int i = 0; i < r->nroutes; i++)
		if (r->routes[i].first || r->routes[i].trailer)
			return true;
	for (int i = 0; i < r->ncpus; i++)
		if (r->cpus[i].on_page)
			return true;
	return false;
}

int reader_run(struct reader *r, uint64_t duration_ns, uint64_t interval_ns, reader_tick_fn tick,
	       void *tick_ctx, int (*flush)(void))
{
	uint64_t start = reader_now();
	uint64_t deadline = duration_ns ? start + duration_ns : 0;
	uint64_t next_tick = interval_ns ? start + interval_ns : 0;
	/* Then the tool's wake_fds; one more slot: stdout, when it is a pipe or socket whose
	 * reader may go away. */
	struct pollfd *pfd = calloc((size_t)(r->ncpus + r->nwake_fds) + 1, sizeof(*pfd));
	if (!pfd)
		return -1;
	int npfd = r->ncpus, out_slot = -1;
	for (int i = 0; i < r->nwake_fds; i++) {
		pfd[npfd].fd = r->wake_fds[i];
		pfd[npfd++].events = POLLIN;
	}
	struct stat st;
	if (fstat(STDOUT_FILENO, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
		/* | head on an idle system: no event may come to write, so no EPIPE either. */
		out_slot = npfd;
		pfd[npfd].fd = STDOUT_FILENO;
		pfd[npfd].events = 0; /* POLLERR and POLLHUP are always reported */
		npfd++;
	}
	int ret = 0;
	bool output_gone = false, events = any_route(r);
	if (r->batched && r->percent_fd >= 0 &&
	    write(r->percent_fd, FLOOD_PERCENT, strlen(FLOOD_PERCENT)) > 0)
		r->flood = true; /* for good: flood_check is not asked */
	uint64_t sleep_ns = (uint64_t)(r->poll_ms > 0 ? r->poll_ms : POLL_MAX_MS) * 1000000ULL;
	while (!sig_stop) {
		poll_set(r, pfd, events);
		uint64_t now = reader_now();
		uint64_t wake = now + sleep_ns;
		if (deadline && deadline < wake)
			wake = deadline;
		if (next_tick && next_tick < wake)
			wake = next_tick;
		int ms = wake > now ? (int)((wake - now + 999999) / 1000000) : 0;
		if (poll(pfd, (nfds_t)npfd, ms) < 0 && errno != EINTR) {
			ret = -1;
			break;
		}
		if (out_slot >= 0 && (pfd[out_slot].revents & (POLLERR | POLLHUP))) {
			output_gone = true;
			break;
		}
		if (sig_stop)
			break;
		/* Keep reading while whole batches come back: a flood must not wait for poll. */
		int n = 0, pages = 0;
		while (events) {
			n = batch(r, false);
			pages += n > 0 ? n : 0;
			if (n < BATCH_PAGES || sig_stop)
				break;
		}
		if (n < 0) {
			ret = -1;
			break;
		}
		if (!r->batched && r->percent_fd >= 0 && flood_check(r, pages, reader_now())) {
			const char *v = r->flood ? "0" : FLOOD_PERCENT;
			if (write(r->percent_fd, v, strlen(v)) > 0)
				r->flood = !r->flood;
		}
		now = reader_now();
		bool done = false;
		if (next_tick && now >= next_tick) {
			next_tick += interval_ns;
			if (next_tick <= now) /* we were stopped (SIGSTOP): skip missed ticks */
				next_tick = now + interval_ns;
			if (tick && tick(now, tick_ctx))
				done = true;
		}
		int f = flush ? flush() : 0;
		if (f) {
			output_gone = true;
			ret = f < 0 ? -1 : 0;
			break;
		}
		if (done || (deadline && now >= deadline) || (r->ended && r->ended(r->ended_ctx)))
			break;
	}
	free(pfd);
	if (output_gone || ret)
		return ret;
	/* Everything recorded before the stop is read: recording ends first, so the drain
	 * ends too, and a second Ctrl-C (sig_stop 2) cuts it short. */
	for (int i = 0; i < r->nsrc; i++)
		if (r->src[i].tracing_on_fd >= 0 &&
		    pwrite(r->src[i].tracing_on_fd, "0", 1, 0) != 1 && r->tool)
			fprintf(stderr, "%s: cannot stop recording: %s\n", r->tool,
				strerror(errno));
	do {
		if (batch(r, true) < 0)
			return -1;
		int f = flush ? flush() : 0;
		if (f)
			return f < 0 ? -1 : 0;
	} while (any_left(r) && sig_stop < 2);
	report_end(r, any_left(r));
	return 0;
}

void reader_close(struct reader *r)
{
	if (r->percent_fd >= 0)
		close(r->percent_fd);
	r->percent_fd = -1;
	for (int i = 0; i < r->ncpus; i++) {
		cpubuf_close(&r->cpus[i]);
	}
	free(r->cpus);
	r->cpus = NULL;
	r->ncpus = 0;
	for (int i = 0; i < r->nroutes; i++)
		for (struct handler *h = r->routes[i].first, *next; h; h = next) {
			next = h->next;
			free(h);
		}
	free(r->routes);
	r->routes = NULL;
	r->nroutes = 0;
	for (int i = 0; i < r->nsrc; i++)
		free(r->src[i].dir);
	r->nsrc = 0;
}

const char *reader_str(const struct tep_record *rec, const struct tep_format_field *f, size_t *len)
{
	const char *data = rec->data;
	if (!(f->flags & TEP_FIELD_IS_DYNAMIC)) {
		if (!reader_fits(rec->size, f->offset, f->size)) {
			*len = 0;
			return "";
		}
		*len = (size_t)f->size;
		return data + f->offset;
	}
	uint32_t v = 0;
	if (reader_fits(rec->size, f->offset, 4))
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

size_t reader_strcpy(char *dst, size_t size, const struct tep_record *rec,
		     const struct tep_format_field *f)
{
	size_t len = 0;
	const char *src = f ? reader_str(rec, f, &len) : "";
	len = strnlen(src, len);
	if (len >= size)
		len = size - 1;
	memcpy(dst, src, len);
	dst[len] = 0;
	return len;
}

long long reader_num(const struct tep_record *rec, const struct tep_format_field *f)
{
	bool sign = f->flags & TEP_FIELD_IS_SIGNED;
	if (!reader_fits(rec->size, f->offset, f->size))
		return 0;
	const char *p = (const char *)rec->data + f->offset;
	switch (f->size) {
	case 1: return sign ? *(const int8_t *)p : *(const uint8_t *)p;
	case 2: {
		uint16_t v;
		memcpy(&v, p, 2);
		return sign ? (int16_t)v : v;
	}
	case 4: {
		uint32_t v;
		memcpy(&v, p, 4);
		return sign ? (int32_t)v : (long long)v;
	}
	case 8: {
		uint64_t v;
		memcpy(&v, p, 8);
		return (long long)v;
	}
	}
	return 0;
}
