/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Source lines from DWARF, checked on this test binary itself (built with
 * -g): functions whose lines are known here through __LINE__; a missing,
 * a non-ELF and a debug-stripped file. Then the TMA tree as SVG: rendered
 * from a small table and checked for well-formed XML, names, values,
 * escaping and the marks of the text output. */
#include "tap.h"
#include "merge.h"
#include "render.h"

#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

static char err[256];
static volatile int sink;

/* The entry of a function maps to the line of its declaration or its
 * opening brace (gcc), or, with a location view, to the first statement;
 * the test accepts the declaration line to two lines below it. */
enum { probe_a_line = __LINE__ + 1 };
__attribute__((noinline)) static void probe_a(void)
{
	sink++;
}

enum { probe_b_line = __LINE__ + 1 };
__attribute__((noinline)) static int probe_b(int n)
{
	for (int i = 0; i < n; i++)
		sink += i;
	return sink;
}
enum { probe_b_end = __LINE__ - 1 };

/* dl_iterate_phdr lists the executable first: its dlpi_addr is the load
 * bias that turns runtime addresses into link-time ones */
static int first_bias(struct dl_phdr_info *info, size_t size, void *arg)
{
	*(uint64_t *)arg = info->dlpi_addr;
	return 1;
}

static uint64_t link_addr(uintptr_t runtime)
{
	uint64_t bias = 0;
	dl_iterate_phdr(first_bias, &bias);
	return (uint64_t)runtime - bias;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = s ? strlen(s) : 0, b = strlen(suffix);
	return s && a >= b && !strcmp(s + a - b, suffix);
}

/* binutils' addr2line reads the same tables independently: where it is
 * installed, both must name the same line for every byte of a function
 * (which of several rows at one address counts is where readers differ) */
static void addr2line_agrees(struct merge_srclines *s, const char *exe, uint64_t start, uint64_t size)
{
	char cmd[8192];
	int cl = snprintf(cmd, sizeof cmd, "addr2line -e '%s'", exe);
	for (uint64_t x = start; x < start + size && cl > 0 && (size_t)cl < sizeof cmd - 24; x++)
		cl += snprintf(cmd + cl, sizeof cmd - (size_t)cl, " 0x%llx", (unsigned long long)x);
	FILE *p = NULL;
	if (system("command -v addr2line >/dev/null 2>&1") != 0 || !size || (size_t)cl >= sizeof cmd - 24 ||
	    !(p = popen(cmd, "r"))) {
		tap_ok(1, "# SKIP addr2line is not there to compare with");
		return;
	}
	char buf[4096];
	int same = 0, differ = 0;
	for (uint64_t x = start; x < start + size && fgets(buf, sizeof buf, p); x++) {
		/* FILE:LINE, maybe followed by " (discriminator N)"; ??:0 when unknown */
		buf[strcspn(buf, " \n")] = 0;
		char *colon = strrchr(buf, ':');
		int want = colon ? atoi(colon + 1) : 0;
		const char *file = NULL;
		int line = 0;
		if (!merge_srcline(s, x, &file, &line))
			line = 0;
		if (line == want)
			same++;
		else {
			if (!differ)
				printf("# 0x%llx: addr2line says %s, we say %s:%d\n", (unsigned long long)x, buf,
				       file ? file : "??", line);
			differ++;
		}
	}
	int st = pclose(p);
	tap_ok(st == 0 && same == (int)size && !differ, "addr2line names the same lines for all %d bytes of probe_b (%d differ)",
	       (int)size, differ);
}

static void srclines_self(const char *exe)
{
	struct merge_srclines *s = merge_srclines_open(exe, err, sizeof err);
	if (!tap_ok(s != NULL, "the test binary opens (%s)", s ? exe : err))
		return;
	tap_ok(merge_srclines_have_lines(s), "it has line tables (built with -g)");

	const char *file = NULL;
	int line = 0;
	uint64_t a = link_addr((uintptr_t)&probe_a);
	bool found = merge_srcline(s, a, &file, &line);
	tap_ok(found && ends_with(file, "test_srcline.c"), "probe_a at 0x%llx is in %s", (unsigned long long)a,
	       found ? file : "(not found)");
	tap_ok(found && line >= probe_a_line && line <= probe_a_line + 2,
	       "probe_a's entry is at line %d, want %d..%d", line, probe_a_line, probe_a_line + 2);

	/* the symbol table agrees on the address: the bias is right, and
	 * every byte of probe_b belongs to probe_b's lines */
	uint64_t start = 0, size = 0;
	uint64_t b = link_addr((uintptr_t)&probe_b);
	int rc = merge_elf_symbol(exe, "probe_b", &start, &size, err, sizeof err);
	tap_ok(rc == 0 && start == b, "probe_b at 0x%llx as its symbol says (0x%llx%s%s)", (unsigned long long)b,
	       (unsigned long long)start, rc ? ": " : "", rc ? err : "");
	found = merge_srcline(s, b, &file, &line);
	tap_ok(found && line >= probe_b_line && line <= probe_b_line + 2,
	       "probe_b's entry is at line %d, want %d..%d", line, probe_b_line, probe_b_line + 2);
	int inside = 0, outside = 0;
	for (uint64_t x = start; rc == 0 && x < start + size; x++)
		if (merge_srcline(s, x, &file, &line)) {
			if (ends_with(file, "test_srcline.c") && line >= probe_b_line && line <= probe_b_end)
				inside++;
			else {
				if (!outside)
					printf("# 0x%llx: %s:%d\n", (unsigned long long)x, file, line);
				outside++;
			}
		}
	tap_ok(inside > 0 && outside == 0, "all %llu bytes of probe_b map to lines %d-%d (%d do, %d elsewhere)",
	       (unsigned long long)size, probe_b_line, probe_b_end, inside, outside);
	addr2line_agrees(s, exe, start, size);
	tap_ok(!merge_srcline(s, 0, &file, &line) && !merge_srcline(s, UINT64_MAX - 16, &file, &line),
	       "addresses outside the code have no line");
	merge_srclines_free(s);
}

static void srclines_bad_files(const char *exe)
{
	const char *missing = "/nonexistent/gus-test-srcline.bin";
	struct merge_srclines *s = merge_srclines_open(missing, err, sizeof err);
	tap_ok(!s && strstr(err, missing) && strstr(err, "No such file"), "a missing file: NULL, '%s'", err);
	merge_srclines_free(s);

	const char *tmp = getenv("TMPDIR");
	char path[512];
	snprintf(path, sizeof path, "%s/gus-srcline-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	int fd = mkstemp(path);
	if (fd >= 0) {
		static const char text[] = "not an ELF file, just text\n";
		bool wrote = write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1);
		close(fd);
		err[0] = 0;
		s = wrote ? merge_srclines_open(path, err, sizeof err) : NULL;
		tap_ok(wrote && !s && strstr(err, path) && strstr(err, "not an ELF"), "a text file: NULL, '%s'", err);
		merge_srclines_free(s);
		unlink(path);
	} else {
		tap_ok(0, "mkstemp %s", path);
	}

	/* a copy without .debug_*: opens, but knows no lines */
	snprintf(path, sizeof path, "%s/gus-srcline-strip-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(path);
	if (fd < 0) {
		tap_ok(0, "mkstemp %s", path);
		return;
	}
	close(fd);
	char cmd[8192];
	int cl = snprintf(cmd, sizeof cmd, "objcopy --strip-debug '%s' '%s' 2>/dev/null", exe, path);
	if (cl < 0 || (size_t)cl >= sizeof cmd || system(cmd) != 0) {
		tap_ok(1, "# SKIP objcopy --strip-debug failed or is missing");
		tap_ok(1, "# SKIP objcopy --strip-debug failed or is missing");
		unlink(path);
		return;
	}
	s = merge_srclines_open(path, err, sizeof err);
	tap_ok(s && !merge_srclines_have_lines(s), "a debug-stripped copy opens without lines (%s)", s ? "" : err);
	const char *file = NULL;
	int line = 0;
	tap_ok(s && !merge_srcline(s, link_addr((uintptr_t)&probe_a), &file, &line),
	       "and finds no line for probe_a");
	merge_srclines_free(s);
	unlink(path);
	tap_ok(!merge_srclines_have_lines(NULL) && !merge_srcline(NULL, 0, &file, &line),
	       "NULL has no lines");
}

/* ------------------------------------------------------------- SVG --- */

/* Enough of XML to catch what a renderer gets wrong: tags nest and close,
 * attributes are quoted, '&' starts an entity, no '<' in text. Returns NULL
 * or what is wrong. */
static const char *xml_check(const char *s)
{
	static char why[160];
	char stack[64][32];
	int depth = 0, roots = 0;
	for (const char *p = s; *p; p++) {
		if (*p == '&') {
			static const char *const ents[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&#" };
			bool ok = false;
			for (size_t i = 0; i < sizeof ents / sizeof *ents; i++)
				ok |= !strncmp(p, ents[i], strlen(ents[i]));
			if (!ok) {
				snprintf(why, sizeof why, "bare '&' at '%.20s'", p);
				return why;
			}
			continue;
		}
		if (*p == '>') {
			snprintf(why, sizeof why, "'>' outside a tag at '%.20s'", p);
			return why;
		}
		if (*p != '<')
			continue;
		if (p[1] == '?') {
			const char *e = strstr(p, "?>");
			if (!e || p != s)
				return "misplaced <?...?>";
			p = e + 1;
			continue;
		}
		bool closing = p[1] == '/';
		const char *n = p + 1 + closing;
		size_t len = strcspn(n, " \t\n/>");
		if (!len || len >= sizeof stack[0]) {
			snprintf(why, sizeof why, "bad tag name at '%.20s'", p);
			return why;
		}
		const char *q = n + len;
		bool quoted = false;
		for (; *q && (quoted || *q != '>'); q++) {
			if (*q == '"')
				quoted = !quoted;
			else if (!quoted && *q == '<')
				return "'<' inside a tag";
		}
		if (!*q)
			return "unterminated tag";
		if (closing) {
			if (!depth || strncmp(stack[depth - 1], n, len) || stack[depth - 1][len]) {
				snprintf(why, sizeof why, "</%.*s> closes <%s>", (int)len, n, depth ? stack[depth - 1] : "");
				return why;
			}
			depth--;
		} else if (q[-1] != '/') {
			if (depth == 64)
				return "nested too deep";
			if (!depth)
				roots++;
			memcpy(stack[depth], n, len);
			stack[depth++][len] = 0;
		}
		p = q;
	}
	if (depth) {
		snprintf(why, sizeof why, "<%s> never closed", stack[depth - 1]);
		return why;
	}
	return roots == 1 ? NULL : "not exactly one root element";
}

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* The <g>...</g> of the node whose box says NAME; "" if none. */
static const char *node_group(const char *svg, const char *name, char *buf, size_t n)
{
	char key[128];
	snprintf(key, sizeof key, ">%s</text>", name);
	const char *hit = strstr(svg, key);
	buf[0] = 0;
	if (!hit)
		return buf;
	const char *g = hit;
	while (g > svg && strncmp(g, "<g class=", 9))
		g--;
	const char *e = strstr(hit, "</g>");
	if (e && e > g && (size_t)(e - g) < n)
		snprintf(buf, n, "%.*s", (int)(e - g), g);
	return buf;
}

static void tma_svg(void)
{
	const char *text =
		"table t \"Test core & <uncore>\"\n"
		"event A code=1\nevent B code=2\nevent C code=3\nevent D code=4\nevent E code=5\n"
		"event F code=6\nevent G code=7\n"
		"node Frontend_Bound parent=- unit=slots threshold=0.2 = A\n"
		"node Backend_Bound parent=- unit=slots threshold=0.2 desc=\"Stalls & <waits>\" = B\n"
		"node Retiring parent=- unit=slots threshold=0.2 = C\n"
		"node Memory_Bound parent=Backend_Bound unit=slots threshold=0.05 = D\n"
		"node Core_Bound parent=Backend_Bound unit=slots threshold=0.05 = E\n"
		"node Huge parent=Frontend_Bound unit=clocks threshold=0.1 = G\n"
		"node Missing parent=Retiring unit=clocks threshold=0.1 = F\n"
		"node Deep parent=Memory_Bound unit=stalls threshold=0.1 = D / 2\n";
	struct td_table *t = td_table_parse(text, "svg", err, sizeof err);
	if (!tap_ok(t != NULL, "SVG table parses (%s)", t ? "" : err))
		return;
	struct td_countset cs;
	td_countset_init(&cs);
	td_countset_add(&cs, "A", 0.15, 0, 0);
	td_countset_add(&cs, "B", 0.60, 0, 0);
	td_countset_add(&cs, "C", 0.25, 0, 0);
	td_countset_add(&cs, "D", 0.225, 4e8, 2e8);	/* multiplexed: scaled to 0.45 */
	td_countset_add(&cs, "E", 0.15, 0, 0);
	td_countset_add(&cs, "G", 1.3, 0, 0);
	td_countset_add_uncounted(&cs, "F", "not supported");
	struct td_tree tr;
	struct td_eval_opts o = { .max_level = 2 };
	err[0] = 0;
	if (!tap_ok(td_eval(t, &cs, &o, &tr, err, sizeof err) == 0, "SVG tree evaluates (%s)", err)) {
		td_countset_free(&cs);
		td_table_free(t);
		return;
	}
	/* the table parser takes identifiers only; a name with XML in it
	 * shows that names are escaped wherever they are printed */
	int core = td_node_index(t, "Core_Bound");
	free(t->nodes[core].name);
	t->nodes[core].name = strdup("Core<&>Bound");

	char *svg = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&svg, &len);
	render_tma_svg(f, &tr, "./a.out \"x\" <in & out>");
	fclose(f);

	const char *first = strchr(svg + (strncmp(svg, "<?xml", 5) ? 0 : 1), '<');
	tap_ok(first && !strncmp(first, "<svg ", 5) && strstr(svg, "xmlns=\"http://www.w3.org/2000/svg\""),
	       "the document is an <svg> with its namespace");
	tap_ok(len > 7 && !strcmp(svg + len - 7, "</svg>\n"), "and ends with </svg>");
	const char *why = xml_check(svg);
	tap_ok(!why, "it is well-formed XML (%s)", why ? why : "tags nest, entities escaped");
	tap_ok(count(svg, "<g ") + count(svg, "<g>") == count(svg, "</g>") && count(svg, "</g>") >= 7,
	       "every <g> is closed (%zu)", count(svg, "</g>"));
	tap_ok(!strstr(svg, "<script") && !strstr(svg, "href"), "no scripts, no external resources");
	tap_ok(strstr(svg, ">Frontend_Bound<") && strstr(svg, ">Backend_Bound<") && strstr(svg, ">Retiring<") &&
		       strstr(svg, ">Memory_Bound<") && strstr(svg, ">Huge<"),
	       "node names are drawn");
	tap_ok(!strstr(svg, ">Deep<"), "a level-3 node is left out of a level-2 tree");
	tap_ok(strstr(svg, ">60.0 %<") && strstr(svg, ">15.0 %<") && strstr(svg, ">25.0 %<") && strstr(svg, ">45.0 %<"),
	       "values in %%");
	tap_ok(strstr(svg, ">Core&lt;&amp;&gt;Bound<") && !strstr(svg, "Core<&"), "a node name is escaped");
	tap_ok(strstr(svg, "./a.out &quot;x&quot; &lt;in &amp; out&gt;") && strstr(svg, "Test core &amp; &lt;uncore&gt;"),
	       "title and table name are escaped");
	tap_ok(strstr(svg, "Stalls &amp; &lt;waits&gt;") != NULL, "a description is escaped in the hover text");

	char g[4096];
	node_group(svg, "Backend_Bound", g, sizeof g);
	tap_ok(strstr(g, "class=\"node bottleneck\"") && strstr(g, "&lt;==") && strstr(g, "font-weight=\"bold\""),
	       "Backend_Bound (60 %%) is on the bottleneck path, marked <== in bold");
	node_group(svg, "Memory_Bound", g, sizeof g);
	tap_ok(strstr(g, "bottleneck") && strstr(g, "mux 50%"), "Memory_Bound follows it and says it was multiplexed");
	node_group(svg, "Frontend_Bound", g, sizeof g);
	tap_ok(g[0] && !strstr(g, "bottleneck") && !strstr(g, "flagged") && !strstr(g, "&lt;=="),
	       "Frontend_Bound (15 %%, under its threshold) is not marked");
	node_group(svg, "Huge", g, sizeof g);
	tap_ok(strstr(g, "class=\"node mismeasured\"") && strstr(g, ">130.0 %<") && strstr(g, "MISMEASURED") &&
		       strstr(g, "<path"),
	       "Huge (130 %%) is flagged MISMEASURED, its bar clipped with an arrow");
	node_group(svg, "Missing", g, sizeof g);
	tap_ok(strstr(g, "class=\"node na\"") && strstr(g, ">n/a<") && strstr(g, "#f2f2f2") && strstr(g, "needs F"),
	       "Missing is greyed, n/a, with the reason");
	tap_ok(strstr(svg, "level-1 sum 100.0 %") != NULL, "the level-1 sum is printed");
	/* rows in the text output's order: a parent, then its subtree */
	const char *fe = strstr(svg, ">Frontend_Bound<"), *hu = strstr(svg, ">Huge<"),
		   *be = strstr(svg, ">Backend_Bound<"), *mb = strstr(svg, ">Memory_Bound<");
	tap_ok(fe && hu && be && mb && fe < hu && hu < be && be < mb, "nodes come depth first, as in the text output");

	if (system("command -v xmllint >/dev/null 2>&1") == 0) {
		char path[512];
		const char *tmp = getenv("TMPDIR");
		snprintf(path, sizeof path, "%s/gus-tma-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		int fd = mkstemp(path);
		bool ok = false;
		if (fd >= 0) {
			ok = write(fd, svg, len) == (ssize_t)len;
			close(fd);
			char cmd[600];
			snprintf(cmd, sizeof cmd, "xmllint --noout '%s'", path);
			ok = ok && system(cmd) == 0;
			unlink(path);
		}
		tap_ok(ok, "xmllint reads it");
	} else {
		tap_ok(1, "# SKIP xmllint is not installed");
	}
	free(svg);

	/* a level-1 sum far from 100 %: said, and nothing claimed */
	td_tree_free(&tr);
	td_countset_free(&cs);
	td_countset_init(&cs);
	td_countset_add(&cs, "A", 0.15, 0, 0);
	td_countset_add(&cs, "B", 0.20, 0, 0);
	td_countset_add(&cs, "C", 0.10, 0, 0);
	o.max_level = 1;
	if (td_eval(t, &cs, &o, &tr, err, sizeof err) == 0) {
		f = open_memstream(&svg, &len);
		render_tma_svg(f, &tr, NULL);
		fclose(f);
		tap_ok(strstr(svg, "MISMEASURED: farther than 5 points") && !strstr(svg, "class=\"node bottleneck") &&
			       !strstr(svg, ">Memory_Bound<") && !xml_check(svg),
		       "a level-1 sum of 45 %% is called mismeasured, no bottleneck, level 1 only");
		free(svg);
		td_tree_free(&tr);
	} else {
		tap_ok(0, "level-1 tree evaluates: %s", err);
	}
	td_countset_free(&cs);
	td_table_free(t);
}

int main(void)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = 0;
		srclines_self(exe);
		srclines_bad_files(exe);
	} else {
		tap_ok(0, "readlink /proc/self/exe");
	}
	(void)probe_b(3);
	probe_a();
	tma_svg();
	return tap_done();
}
