// SPDX-License-Identifier: GPL-2.0-only
#include "flame.h"
#include "out.h"

#include <stdlib.h>
#include <string.h>

struct node {
	char *name;
	uint64_t total;
	struct node **kids; /* sorted by name: the same frame under the same path is one */
	size_t nk, cap;
};

struct flame {
	struct node root;
	int depth; /* the deepest frame's, the root's being 0 */
};

#define FRAME_H 16
#define PAD 10
#define CHAR_W 7 /* of the 12 px monospace font, rounded down */

struct flame *flame_new(void)
{
	return calloc(1, sizeof(struct flame));
}

static void free_node(struct node *n)
{
	for (size_t i = 0; i < n->nk; i++) {
		free_node(n->kids[i]);
		free(n->kids[i]);
	}
	free(n->kids);
	free(n->name);
}

void flame_free(struct flame *f)
{
	if (!f)
		return;
	free_node(&f->root);
	free(f);
}

uint64_t flame_total(const struct flame *f)
{
	return f->root.total;
}

/* The child of n named name (len bytes), made when missing; NULL when out of memory. */
static struct node *child(struct node *n, const char *name, size_t len)
{
	size_t lo = 0, hi = n->nk;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const char *m = n->kids[mid]->name;
		size_t ml = strlen(m);
		int c = memcmp(m, name, ml < len ? ml : len);
		if (!c)
			c = ml < len ? -1 : ml > len;
		if (!c)
			return n->kids[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (n->nk == n->cap) {
		size_t cap = n->cap ? n->cap * 2 : 4;
		struct node **k = realloc(n->kids, cap * sizeof(*k));
		if (!k)
			return NULL;
		n->kids = k;
		n->cap = cap;
	}
	struct node *c = calloc(1, sizeof(*c));
	if (!c || !(c->name = strndup(name, len))) {
		free(c);
		return NULL;
	}
	memmove(n->kids + lo + 1, n->kids + lo, (n->nk - lo) * sizeof(*n->kids));
	n->kids[lo] = c;
	n->nk++;
	return c;
}

int flame_add_line(struct flame *f, const char *line, size_t n)
{
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		n--;
	const char *sp = NULL;
	for (size_t i = n; i-- > 0;)
		if (line[i] == ' ') {
			sp = line + i;
			break;
		}
	if (!sp || sp == line || sp + 1 == line + n || memchr(line, 0, n))
		return 1;
	uint64_t count = 0;
	for (const char *p = sp + 1; p < line + n; p++) {
		if (*p < '0' || *p > '9' || count > (UINT64_MAX - 9) / 10)
			return 1;
		count = count * 10 + (uint64_t)(*p - '0');
	}
	/* Every frame must have a name before the path is counted; a path deeper than any real
	 * stack is refused too (the drawing recurses once per frame). */
	int frames = 0;
	for (const char *p = line, *e; p < sp; p = e + 1) {
		e = memchr(p, ';', (size_t)(sp - p));
		if (!e)
			e = sp;
		if (e == p || ++frames > FLAME_MAX_DEPTH)
			return 1;
	}
	if (!count)
		return 0;
	if (f->root.total + count < count)
		return 1; /* the samples would not add up in 64 bits */
	struct node *at = &f->root;
	at->total += count;
	int depth = 0;
	for (const char *p = line, *e; p < sp; p = e + 1) {
		e = memchr(p, ';', (size_t)(sp - p));
		if (!e)
			e = sp;
		if (!(at = child(at, p, (size_t)(e - p))))
			return -1;
		at->total += count;
		depth++;
	}
	if (depth > f->depth)
		f->depth = depth;
	return 0;
}

static bool kernel(const char *name, size_t *len)
{
	*len = strlen(name);
	if (*len > 4 && !strcmp(name + *len - 4, "_[k]")) {
		*len -= 4;
		return true;
	}
	return false;
}

/* A frame's colour from its name (the same name, the same colour in every graph). */
static void colour(const char *name, size_t len, bool k, int depth, enum flame_colors c,
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
	uint64_t total, hidden;
};

/* The label that fits w pixels: the name, or its start and "..", or nothing. Cut between
 * UTF-8 sequences. */
static size_t fit(const char *name, size_t len, double w, bool *dots)
{
	int chars = (int)((w - 6) / CHAR_W);
	*dots = false;
	if (chars >= (int)len)
		return len;
	if (chars < 3)
		return 0;
	size_t n = (size_t)chars - 2;
	while (n && ((unsigned char)name[n] & 0xc0) == 0x80)
		n--;
	*dots = true;
	return n;
}

static void frame(struct draw *d, const struct node *n, int depth, uint64_t at)
{
	double x = PAD + (double)at * d->scale, w = (double)n->total * d->scale;
	if (w < 0.1) {
		d->hidden++;
		return;
	}
	double y = d->o->icicle ? 50 + depth * FRAME_H : d->H - 36 - (depth + 1) * FRAME_H;
	size_t len;
	const char *name = depth ? n->name : "all";
	bool k = depth && kernel(name, &len);
	if (!k)
		len = strlen(name);
	char fill[48];
	colour(name, len, k, depth, d->o->colors, fill);
	fprintf(d->out, "<g class=\"f\" data-d=\"%d\" data-n=\"%llu\"%s data-name=\"", depth,
		(unsigned long long)n->total, k ? " data-k=\"1\"" : "");
	out_xml(d->out, name, len);
	fputs("\"><title>", d->out);
	out_xml(d->out, name, len);
	fprintf(d->out, "%s (%llu samples, %.2f%%)</title>", k ? " [kernel]" : "",
		(unsigned long long)n->total, 100.0 * (double)n->total / (double)d->total);
	fprintf(d->out,
		"<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\" rx=\"2\"/>"
		"<text x=\"%.2f\" y=\"%.1f\">",
		x, y, w, FRAME_H - 1, fill, x + 3, y + 11.5);
	bool dots;
	size_t show = fit(name, len, w, &dots);
	out_xml(d->out, name, show);
	fprintf(d->out, "%s</text></g>\n", dots ? ".." : "");
	for (size_t i = 0; i < n->nk; i++) {
		frame(d, n->kids[i], depth + 1, at);
		at += n->kids[i]->total;
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

int flame_svg(struct flame *f, const struct flame_opts *o, FILE *out)
{
	if (!f->root.total)
		return -1;
	struct draw d = {out, o, o->width > 0 ? o->width : 1200, 0, 0, f->root.total, 0};
	d.H = 50 + (f->depth + 1) * FRAME_H + 36;
	d.scale = (d.W - 2 * PAD) / (double)f->root.total;
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
	out_xml(out, o->title ? o->title : "Flame graph",
		strlen(o->title ? o->title : "Flame graph"));
	fprintf(out,
		"</text>\n<text x=\"%.1f\" y=\"42\" text-anchor=\"middle\" fill=\"#555\">%llu "
		"samples%s</text>\n"
		"<text id=\"unzoom\" x=\"%d\" y=\"24\" style=\"display:none\">Reset zoom</text>\n"
		"<text id=\"search\" x=\"%.1f\" y=\"24\" text-anchor=\"end\">Search</text>\n"
		"<text id=\"matched\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\"> </text>\n"
		"<text id=\"details\" x=\"%d\" y=\"%.1f\"> </text>\n",
		d.W / 2, (unsigned long long)f->root.total,
		o->colors == FLAME_SPLIT ? "; kernel frames in blue" : "", PAD, d.W - PAD,
		d.W - PAD, d.H - 14, PAD, d.H - 14);
	fputs("<g id=\"frames\">\n", out);
	frame(&d, &f->root, 0, 0);
	fputs("</g>\n", out);
	fputs(script, out);
	fputs("</svg>\n", out);
	return 0;
}
