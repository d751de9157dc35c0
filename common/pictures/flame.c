// SPDX-License-Identifier: GPL-2.0-only
#include "pictures/flame.h"
#include "base/out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct node {
	char *name; /* len bytes, NUL bytes allowed */
	size_t len;
	long double total;
	struct node *parent;
	struct node **kids; /* sorted by name: the same frame under the same path is one */
	size_t nk, cap;
};

struct flame {
	struct node root;
	size_t depth; /* the deepest frame's, the root's being 0 */
};

#define FRAME_H 16
#define PAD 10
#define CHAR_W 7 /* of the 12 px monospace font, rounded down */

struct flame *flame_new(void)
{
	return calloc(1, sizeof(struct flame));
}

/* Without recursion (a stack may have a million frames): down to a leaf, detaching it from
 * its parent on the way, then free it and go back up. */
void flame_free(struct flame *f)
{
	if (!f)
		return;
	struct node *n = &f->root;
	while (n) {
		if (n->nk) {
			n = n->kids[--n->nk];
			continue;
		}
		struct node *up = n->parent;
		free(n->kids);
		free(n->name);
		if (n != &f->root)
			free(n);
		n = up;
	}
	free(f);
}

long double flame_total(const struct flame *f)
{
	return f->root.total;
}

const char *flame_count_text(long double n, char buf[48])
{
	if (n == floorl(n) && n <= 0x1p64L)
		snprintf(buf, 48, "%.0Lf", n);
	else
		snprintf(buf, 48, "%.18Lg", n);
	return buf;
}

static int compare(const char *a, size_t al, const char *b, size_t bl)
{
	int c = memcmp(a, b, al < bl ? al : bl);
	return c ? c : al < bl ? -1 : al > bl;
}

/* Where the child of n named name (len bytes) is, or would be put: *found when it is. */
static size_t lookup(const struct node *n, const char *name, size_t len, bool *found)
{
	size_t lo = 0, hi = n->nk;
	*found = false;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = compare(n->kids[mid]->name, n->kids[mid]->len, name, len);
		if (!c) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The frame of n's callee k's name under other (a node of another graph), or NULL. */
static const struct node *same(const struct node *other, const struct node *k)
{
	bool found;
	if (!other)
		return NULL;
	size_t i = lookup(other, k->name, k->len, &found);
	return found ? other->kids[i] : NULL;
}

/* The child of n named name (len bytes), made when missing; NULL when out of memory. */
static struct node *child(struct node *n, const char *name, size_t len)
{
	bool found;
	size_t lo = lookup(n, name, len, &found);
	if (found)
		return n->kids[lo];
	if (n->nk == n->cap) {
		size_t cap = n->cap ? n->cap * 2 : 4;
		struct node **k = realloc(n->kids, cap * sizeof(*k));
		if (!k)
			return NULL;
		n->kids = k;
		n->cap = cap;
	}
	struct node *c = calloc(1, sizeof(*c));
	if (!c || !(c->name = malloc(len + 1))) {
		free(c);
		return NULL;
	}
	memcpy(c->name, name, len);
	c->name[len] = 0;
	c->len = len;
	c->parent = n;
	memmove(n->kids + lo + 1, n->kids + lo, (n->nk - lo) * sizeof(*n->kids));
	n->kids[lo] = c;
	n->nk++;
	return c;
}

/* ASCII's white space: Perl's \s on bytes. */
static bool space(char c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r' || c == '\n';
}

/*
 * The length of the white space character that ends s (n bytes), 0 if none: Perl's \s on
 * text read as UTF-8, as flamegraph.pl reads it, so also U+0085, U+00A0, U+1680, U+2000
 * to U+200A, U+2028, U+2029, U+202F, U+205F and U+3000 (a no-break space before the count
 * is white space to it).
 */
static size_t space_at_end(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str + n;
	if (n >= 1 && space((char)s[-1]))
		return 1;
	if (n >= 2 && s[-2] == 0xc2 && (s[-1] == 0x85 || s[-1] == 0xa0))
		return 2;
	if (n < 3)
		return 0;
	uint32_t c = (uint32_t)s[-3] << 16 | (uint32_t)s[-2] << 8 | s[-1];
	return (c == 0xe19a80 || (c >= 0xe28080 && c <= 0xe2808a) || c == 0xe280a8 ||
		c == 0xe280a9 || c == 0xe280af || c == 0xe2819f || c == 0xe38080) ?
		       3 :
		       0;
}

/*
 * The count at the end of s (n bytes), as flamegraph.pl's /^(.*)\s+?(\d+(?:\.\d*)?)$/
 * finds it: the greedy (.*) leaves the text after the last white space to be the count,
 * and the lazy \s+? takes one white space character. Its start, and in *stack the length
 * of what precedes that character; NULL when there is no such count.
 */
static const char *count_at_end(const char *s, size_t n, size_t *stack)
{
	size_t i = n, dots = 0;
	while (i && ((s[i - 1] >= '0' && s[i - 1] <= '9') || s[i - 1] == '.'))
		dots += s[--i] == '.';
	size_t ws = space_at_end(s, i);
	if (i == n || s[i] == '.' || dots > 1 || !ws)
		return NULL;
	*stack = i - ws;
	return s + i;
}

/* The count's value: integers of up to 19 digits here, the rest by strtold. */
static long double count_value(const char *p, size_t n)
{
	if (n <= 19 && !memchr(p, '.', n)) {
		uint64_t v = 0;
		for (size_t i = 0; i < n; i++)
			v = v * 10 + (uint64_t)(p[i] - '0');
		return (long double)v;
	}
	char small[64], *buf = n < sizeof(small) ? small : malloc(n + 1);
	if (!buf)
		return -1;
	memcpy(buf, p, n);
	buf[n] = 0;
	long double v = strtold(buf, NULL); /* HUGE_VALL past the range */
	if (buf != small)
		free(buf);
	return v;
}

enum flame_line flame_add_line(struct flame *f, const char *line, size_t n)
{
	if (n && line[n - 1] == '\n')
		n--;
	if (n && line[n - 1] == '\r')
		n--;
	size_t blank = 0;
	while (blank < n && space(line[blank]))
		blank++;
	if (blank == n)
		return FLAME_BLANK;
	size_t slen, before_len;
	const char *c = count_at_end(line, n, &slen);
	if (!c)
		return FLAME_NO_COUNT;
	size_t clen = (size_t)(line + n - c);
	/* "stack before after" (difffolded.pl): the stack is before the first count */
	if (count_at_end(line, slen, &before_len))
		slen = before_len;
	long double count = count_value(c, clen);
	if (count < 0)
		return FLAME_OOM;
	if (!isfinite(count) || !isfinite(f->root.total + count))
		return FLAME_COUNT_TOO_LARGE;
	if (count == 0)
		return FLAME_TAKEN;
	while (slen && line[slen - 1] == ';')
		slen--; /* Perl's split drops trailing empty fields */
	struct node *at = &f->root, *next;
	size_t depth = 0;
	at->total += count;
	for (const char *p = line, *e, *end = line + slen; p < end; p = e + 1, at = next) {
		e = memchr(p, ';', (size_t)(end - p));
		if (!e)
			e = end;
		if (!(next = child(at, p, (size_t)(e - p))))
			return FLAME_OOM;
		next->total += count;
		depth++;
	}
	if (depth > f->depth)
		f->depth = depth;
	return FLAME_TAKEN;
}

/* A kernel frame (NAME_[k]): its length without the suffix. */
static bool kernel(const struct node *n, size_t *len)
{
	*len = n->len;
	if (n->len > 4 && !memcmp(n->name + n->len - 4, "_[k]", 4)) {
		*len -= 4;
		return true;
	}
	return false;
}

/* A frame's colour from its name (the same name, the same colour in every graph). */
static void colour(const char *name, size_t len, bool k, size_t depth, enum flame_colors c,
		   char buf[48])
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 0x100000001b3ULL;
	double a = (double)(h & 0xff) / 255, b = (double)(h >> 8 & 0xff) / 255,
	       v = (double)(h >> 16 & 0xff) / 255;
	if (depth == 0)
		snprintf(buf, 48, "rgb(200,200,200)");
	else if (k && c == FLAME_SPLIT)
		snprintf(buf, 48, "rgb(%d,%d,%d)", 70 + (int)(50 * a), 150 + (int)(60 * b),
			 205 + (int)(50 * v));
	else
		snprintf(buf, 48, "rgb(%d,%d,%d)", 205 + (int)(50 * a), (int)(230 * b),
			 (int)(55 * v));
}

struct draw {
	FILE *out;
	const struct flame_opts *o;
	double W, H, scale; /* pixels per sample */
	long double total;
	long double bscale; /* a differential graph: what each of before's samples counts for */
};

/* Samples in n itself, not in a callee. */
static long double self(const struct node *n)
{
	long double s = n->total;
	for (size_t i = 0; i < n->nk; i++)
		s -= n->kids[i]->total;
	return s > 0 ? s : 0; /* fractions added in another order: never below 0 */
}

const char *flame_diff_colour(long double b, long double a, char buf[48])
{
	long double m = a > b ? a : b;
	double r = m > 0 && isfinite(m) ? (double)((a - b) / m) : 0; /* inf: a scale past range */
	int v = (int)lround(230 - 160 * fabs(r)); /* 70 at most: black labels stay legible */
	if (r > 0)
		snprintf(buf, 48, "rgb(255,%d,%d)", v, v);
	else if (r < 0)
		snprintf(buf, 48, "rgb(%d,%d,255)", v, v);
	else
		snprintf(buf, 48, "rgb(230,230,230)");
	return buf;
}

/* A count of a differential graph: an integer as it is, a scaled one to 2 decimals (fewer
 * when they end in 0), one of 1e15 or more to 18 digits. */
static const char *diff_count(long double n, char buf[48])
{
	if (n == floorl(n) || fabsl(n) >= 1e15L) /* integers, and large ones as flame_count_text */
		return flame_count_text(n, buf);
	size_t len = (size_t)snprintf(buf, 48, "%.2Lf", n); /* under 48 below 1e15 */
	while (len > 0 && buf[len - 1] == '0')
		buf[--len] = 0; /* "2.5", not "2.50" */
	if (len > 0 && buf[len - 1] == '.')
		buf[--len] = 0;
	return buf;
}

/* A change: "+1.5", "-2", "0". */
static const char *diff_delta(long double d, char buf[48])
{
	char n[48];
	snprintf(buf, 48, "%s%s", d > 0 ? "+" : d < 0 ? "-" : "", diff_count(fabsl(d), n));
	return buf;
}

/* The tooltip of a frame of a differential graph: after, before (scaled), the change, for
 * the frame and for its self samples (what its colour says). */
static void diff_title(struct draw *d, const struct node *n, const struct node *b)
{
	long double ta = n->total, tb = b ? b->total * d->bscale : 0, sa = self(n),
		    sb = b ? self(b) * d->bscale : 0;
	char x[48], y[48], z[48];
	fprintf(d->out, " (after %s, before %s, %s samples", diff_count(ta, x), diff_count(tb, y),
		diff_delta(ta - tb, z));
	if (tb > 0)
		fprintf(d->out, ", %+.1f%%", (double)(100 * (ta - tb) / tb));
	else
		fputs(", new", d->out);
	fprintf(d->out, "; self: after %s, before %s, %s)", diff_count(sa, x), diff_count(sb, y),
		diff_delta(sa - sb, z));
}

/* The label that fits w pixels: the name, or its start and "..", or nothing. Cut between
 * UTF-8 sequences. */
static size_t fit(const char *name, size_t len, double w, bool *dots)
{
	double chars = floor((w - 6) / CHAR_W);
	*dots = false;
	if (chars >= (double)len)
		return len;
	if (chars < 3)
		return 0;
	size_t n = (size_t)chars - 2;
	while (n && ((unsigned char)name[n] & 0xc0) == 0x80)
		n--;
	*dots = true;
	return n;
}

/* One frame, at samples from the left; false when it is too narrow to draw (under 0.1
 * pixel: nor are its callees, narrower still). */
static bool frame(struct draw *d, const struct node *n, const struct node *b, size_t depth,
		  long double at)
{
	double x = PAD + (double)(at * d->scale), w = (double)(n->total * d->scale);
	if (w < 0.1)
		return false;
	double y = d->o->icicle ? 50 + (double)depth * FRAME_H :
				  d->H - 36 - (double)(depth + 1) * FRAME_H;
	size_t len = 3;
	const char *name = depth ? n->name : "all";
	bool k = depth && kernel(n, &len);
	char fill[48], count[48];
	if (d->o->before)
		flame_diff_colour(b ? self(b) * d->bscale : 0, self(n), fill);
	else
		colour(name, len, k, depth, d->o->colors, fill);
	flame_count_text(n->total, count);
	fprintf(d->out, "<g class=\"f\" data-d=\"%zu\" data-n=\"%s\"%s data-name=\"", depth, count,
		k ? " data-k=\"1\"" : "");
	out_xml(d->out, name, len);
	fputs("\"><title>", d->out);
	out_xml(d->out, name, len);
	fputs(k ? " [kernel]" : "", d->out);
	if (d->o->before)
		diff_title(d, n, b);
	else
		fprintf(d->out, " (%s samples, %.2f%%)", count,
			(double)(100 * n->total / d->total));
	fputs("</title>", d->out);
	fprintf(d->out,
		"<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\" rx=\"2\"/>"
		"<text x=\"%.2f\" y=\"%.1f\">",
		x, y, w, FRAME_H - 1, fill, x + 3, y + 11.5);
	bool dots;
	size_t show = fit(name, len, w, &dots);
	out_xml(d->out, name, show);
	fprintf(d->out, "%s</text></g>\n", dots ? ".." : "");
	return true;
}

/* A frame on the path being drawn. */
struct visit {
	const struct node *n;
	const struct node *b; /* a differential graph: the same path in before, or NULL */
	long double at;	      /* where its next callee starts, in samples */
	size_t next;
};

/* Every frame, callers before callees and callees in name order, without recursion (a
 * stack may have a million frames): v has room for the deepest path. */
static void frames(struct draw *d, const struct flame *f, struct visit *v)
{
	size_t top = 0;
	const struct node *b = d->o->before ? &d->o->before->root : NULL;
	v[0] = (struct visit){&f->root, b, 0, 0};
	if (!frame(d, &f->root, b, 0, 0))
		return;
	for (;;) {
		struct visit *p = &v[top];
		if (p->next == p->n->nk) {
			if (!top--)
				break;
			continue;
		}
		const struct node *k = p->n->kids[p->next++];
		long double at = p->at;
		p->at += k->total;
		b = same(p->b, k);
		if (frame(d, k, b, top + 1, at))
			v[++top] = (struct visit){k, b, at, 0};
	}
}

/* Zoom on click (also ?z=RE in the address: the first frame matching, root side first),
 * Reset zoom, Search (a regular expression; also ?s=RE) with the share of samples matched;
 * no network, no other file. */
static const char script[] =
	"<script type=\"text/ecmascript\"><![CDATA[\n"
	"var W=+document.documentElement.getAttribute('width'),P=10;\n"
	"var F=[].slice.call(document.querySelectorAll('g.f'));\n"
	"var unzoom=document.getElementById('unzoom'),matched=document.getElementById('matched'),"
	"details=document.getElementById('details');\n"
	"F.forEach(function(g){var r=g.querySelector('rect');g._x=+r.getAttribute('x');"
	"g._w=+r.getAttribute('width');g._fill=r.getAttribute('fill');"
	"g.addEventListener('click',function(){zoom(g);});"
	"g.addEventListener('mouseover',function(){details.textContent="
	"g.querySelector('title').textContent;});"
	"g.addEventListener('mouseout',function(){details.textContent=' ';});});\n"
	"function fit(g,w){var n=g.getAttribute('data-name'),c=Math.floor((w-6)/"
	"7"
	"),t=g.querySelector('text');t.textContent=c>=n.length?n:c>=3?n.slice(0,c-2)+'..':'';}\n"
	"function show(g,x,w,o){g.style.display='';var r=g.querySelector('rect');"
	"r.setAttribute('x',x);r.setAttribute('width',w);"
	"g.querySelector('text').setAttribute('x',x+3);g.style.opacity=o;fit(g,w);}\n"
	"function zoom(z){var x0=z._x,w0=z._w,d0=+z.getAttribute('data-d'),s=(W-2*P)/w0,e=1e-6;"
	"F.forEach(function(g){var d=+g.getAttribute('data-d');"
	"if(d<d0){if(g._x<=x0+e&&g._x+g._w>=x0+w0-e)show(g,P,W-2*P,0.6);"
	"else g.style.display='none';}"
	"else if(g._x>=x0-e&&g._x+g._w<=x0+w0+e)show(g,P+(g._x-x0)*s,g._w*s,1);"
	"else g.style.display='none';});unzoom.style.display='';}\n"
	"function reset(){F.forEach(function(g){show(g,g._x,g._w,1);});"
	"unzoom.style.display='none';}\n"
	"function search(re){var rx=null,sp=[],tot=0,a=0,b=0;"
	"if(re){try{rx=new RegExp(re);}catch(x){matched.textContent='Not a regular expression';"
	"return;}}"
	"F.forEach(function(g){var r=g.querySelector('rect');"
	"if(rx&&rx.test(g.getAttribute('data-name'))){r.setAttribute('fill','rgb(230,0,230)');"
	"g.setAttribute('class','f match');sp.push([g._x,g._x+g._w]);}"
	"else{r.setAttribute('fill',g._fill);g.setAttribute('class','f');}});"
	"sp.sort(function(p,q){return p[0]-q[0];});"
	"sp.forEach(function(s){if(s[0]>b){tot+=b-a;a=s[0];b=s[1];}else if(s[1]>b)b=s[1];});"
	"tot+=b-a;matched.textContent=rx?'Matched: '+(100*tot/(W-2*P)).toFixed(1)+'%':' ';}\n"
	"document.getElementById('search').addEventListener('click',function(){"
	"var re=prompt('Search frames (a regular expression; empty: clear)','');"
	"if(re!==null)search(re);});\n"
	"unzoom.addEventListener('click',reset);\n"
	"var u=new URLSearchParams(location.search),q=u.get('s'),z=u.get('z');if(q)search(q);\n"
	"if(z){try{var zr=new RegExp(z);F.some(function(g){if(zr.test(g.getAttribute('data-name')))"
	"{zoom(g);return true;}return false;});}catch(x){}}\n"
	"]]></script>\n";

/* The samples of before on paths that after does not have (not drawn), walked without
 * recursion as frames() walks; -1 when out of memory. */
static long double missing(const struct flame *before, const struct flame *after)
{
	struct visit *v = calloc(before->depth + 1, sizeof(*v));
	if (!v)
		return -1;
	long double gone = 0;
	size_t top = 0;
	v[0] = (struct visit){&before->root, &after->root, 0, 0};
	for (;;) {
		struct visit *p = &v[top];
		if (p->next == p->n->nk) {
			if (!top--)
				break;
			continue;
		}
		const struct node *k = p->n->kids[p->next++], *a = same(p->b, k);
		if (a)
			v[++top] = (struct visit){k, a, 0, 0};
		else
			gone += k->total;
	}
	free(v);
	return gone;
}

/* The subtitle of a differential graph: what before was, its scale, what is not drawn. */
static void diff_subtitle(struct draw *d, long double gone)
{
	long double bt = d->o->before->root.total;
	char x[48], y[48];
	fprintf(d->out, "; before %s", flame_count_text(bt, x));
	if (d->o->unscaled)
		fputs(" (not scaled)", d->out);
	else
		fprintf(d->out, " (scaled by %.4g)", (double)d->bscale);
	fputs("; red: more self samples, blue: fewer", d->out);
	if (gone > 0)
		fprintf(d->out, "; %s of before (%.2f%%) on paths gone: not drawn",
			diff_count(gone * d->bscale, y), (double)(100 * gone / bt));
}

int flame_svg(struct flame *f, const struct flame_opts *o, FILE *out)
{
	if (!f->root.total)
		return -1;
	struct visit *v = calloc(f->depth + 1, sizeof(*v));
	if (!v)
		return -1;
	struct draw d = {out, o, o->width > 0 ? o->width : 1200, 0, 0, f->root.total, 1};
	long double gone = 0;
	if (o->before) {
		if (!(o->before->root.total > 0) || (gone = missing(o->before, f)) < 0) {
			free(v);
			return -1;
		}
		if (!o->unscaled)
			d.bscale = f->root.total / o->before->root.total;
	}
	d.H = 50 + (double)(f->depth + 1) * FRAME_H + 36;
	d.scale = (d.W - 2 * PAD) / (double)f->root.total;
	char total[48];
	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" font-family=\"monospace\" font-size=\"12\">\n"
		"<style>g.f{cursor:pointer}g.f:hover rect{stroke:#000;stroke-width:0.5}"
		"#search,#unzoom{cursor:pointer}</style>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"rgb(248,248,240)\"/>\n"
		"<text x=\"%.1f\" y=\"24\" font-size=\"17\" text-anchor=\"middle\" "
		"font-family=\"Verdana, sans-serif\">",
		d.W, d.H, d.W, d.H, d.W / 2);
	const char *title = o->title  ? o->title :
			    o->before ? "Differential flame graph" :
					"Flame graph";
	out_xml(out, title, strlen(title));
	fprintf(out,
		"</text>\n<text x=\"%.1f\" y=\"42\" text-anchor=\"middle\" fill=\"#555\">%s "
		"samples",
		d.W / 2, flame_count_text(f->root.total, total));
	if (o->before)
		diff_subtitle(&d, gone);
	else if (o->colors == FLAME_SPLIT)
		fputs("; kernel frames in blue", out);
	fprintf(out,
		"</text>\n"
		"<text id=\"unzoom\" x=\"%d\" y=\"24\" style=\"display:none\">Reset zoom</text>\n"
		"<text id=\"search\" x=\"%.1f\" y=\"24\" text-anchor=\"end\">Search</text>\n"
		"<text id=\"matched\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\"> </text>\n"
		"<text id=\"details\" x=\"%d\" y=\"%.1f\"> </text>\n",
		PAD, d.W - PAD, d.W - PAD, d.H - 14, PAD, d.H - 14);
	fputs("<g id=\"frames\">\n", out);
	frames(&d, f, v);
	free(v);
	fputs("</g>\n", out);
	fputs(script, out);
	fputs("</svg>\n", out);
	return 0;
}
