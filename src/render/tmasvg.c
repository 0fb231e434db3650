/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The measured TMA tree as a standalone SVG: one row per node shown, in the
 * text output's order (depth first, children indented under their parent),
 * each a box with the name and value and a bar on a common 0-100 % scale.
 * Marks follow the text output: the bottleneck path (and candidates),
 * MISMEASURED, multiplexing, n/a for what could not be computed. Hover
 * texts (<title>) carry notes and descriptions: no scripts, no external
 * resources, so the file opens in any browser and survives being mailed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render_internal.h"

/* layout, in pixels */
#define LEFT 20.0
#define TOP 70.0
#define ROW_H 26.0
#define BOX_H 20.0
#define INDENT 22.0
#define NAME_W 300.0	/* level-1 box; deeper boxes end at the same x */
#define BAR_GAP 14.0
#define BAR_W 240.0
#define BAR_H 12.0
#define MARK_GAP 14.0
#define CHAR_W 6.6	/* a sans-serif character at 12 px, on average */

static bool shown(const struct td_tree *tree, size_t i)
{
	return tree->res[i].status != TD_NOT_SELECTED;
}

static bool computable(const struct td_result *r)
{
	return r->status != TD_NOT_COMPUTABLE && !isnan(r->value);
}

/* the text output's order: a node, then its subtree */
static void order_nodes(const struct td_tree *tree, int parent, int *rows, size_t *n)
{
	const struct td_table *t = tree->table;
	for (size_t i = 0; i < t->n_nodes; i++)
		if (t->nodes[i].parent == parent && shown(tree, i)) {
			rows[(*n)++] = (int)i;
			order_nodes(tree, (int)i, rows, n);
		}
}

struct look {
	const char *cls;	/* class of the row's group, for styling and tests */
	const char *box_fill, *box_stroke, *dash;
	double stroke_w;
	const char *text, *bar;
	bool bold;
};

/* The row's look: what the text output marks decides, the worst first. */
static struct look node_look(const struct td_result *r)
{
	if (!computable(r))
		return (struct look){ "node na", "#f2f2f2", "#ccc", NULL, 1, "#999", NULL, false };
	if (r->status == TD_MISMEASURED)
		return (struct look){ "node mismeasured", "#fff", "#b00", "2 2", 1.5, "#b00", "#d77", false };
	if (r->bottleneck)
		return (struct look){ r->candidate ? "node bottleneck candidate" : "node bottleneck", "#fde8e8",
				      "#b00", r->candidate ? "5 2" : NULL, 2, "#b00", "#c33", true };
	if (r->flagged)
		return (struct look){ "node flagged", "#fff6e8", "#d80", NULL, 1.5, "#222", "#e0a040", false };
	return (struct look){ "node", "#f7f9fc", "#999", NULL, 1, "#222", "#6b8fc7", false };
}

static void mux_text(const struct td_result *r, char *buf, size_t n)
{
	buf[0] = 0;
	if (computable(r) && r->mux < 0.999)
		snprintf(buf, n, "mux %.0f%%", r->mux * 100);
}

static const char *mark_text(const struct td_result *r)
{
	if (!computable(r))
		return "";
	return r->status == TD_MISMEASURED ? "MISMEASURED"
	       : r->bottleneck ? (r->candidate ? "<== candidate" : "<==")
	       : "";
}

/* what follows the bar, for the width of the picture */
static size_t marks_len(const struct td_tree *tree, int i)
{
	const struct td_result *r = &tree->res[i];
	char mux[24];
	mux_text(r, mux, sizeof mux);
	return strlen(rd_unit_label(tree->table->nodes[i].unit)) + strlen(mux) + strlen(mark_text(r)) +
	       strlen(r->note) + 4;
}

static void node_row(FILE *out, const struct td_tree *tree, int i, double y)
{
	const struct td_node *nd = &tree->table->nodes[i];
	const struct td_result *r = &tree->res[i];
	struct look lk = node_look(r);
	bool ok = computable(r);
	double x = LEFT + (nd->level - 1) * INDENT, x_end = LEFT + NAME_W;
	double bx = x_end + BAR_GAP, by = y + (BOX_H - BAR_H) / 2;

	fprintf(out, "<g class=\"%s\">\n<title>", lk.cls);
	rd_xml_text(out, nd->name);
	if (ok)
		fprintf(out, ": %.1f %s", r->value * 100, rd_unit_label(nd->unit));
	else
		fputs(": not computable", out);
	fprintf(out, ", threshold %.0f %%", nd->threshold * 100);
	if (ok && r->bottleneck)
		fputs(r->candidate ? "; a candidate for the bottleneck" : "; on the bottleneck path", out);
	else if (ok && r->flagged)
		fputs("; above its threshold", out);
	if (ok && r->status == TD_MISMEASURED)
		fputs("; outside [-5 %, 105 %]: mismeasured", out);
	if (ok && r->mux < 0.999)
		fprintf(out, "; events counted %.0f %% of the time (multiplexed)", r->mux * 100);
	if (r->note[0]) {
		fputs("; ", out);
		rd_xml_text(out, r->note);
	}
	if (nd->desc && *nd->desc) {
		fputs("\n", out);
		rd_xml_text(out, nd->desc);
	}
	fputs("</title>\n", out);

	/* the box: name and value */
	fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\" rx=\"3\" fill=\"%s\" stroke=\"%s\" stroke-width=\"%g\"",
		x, y, x_end - x, BOX_H, lk.box_fill, lk.box_stroke, lk.stroke_w);
	if (lk.dash)
		fprintf(out, " stroke-dasharray=\"%s\"", lk.dash);
	fputs("/>\n", out);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\"%s>", x + 8, y + 14.5, lk.text,
		lk.bold ? " font-weight=\"bold\"" : "");
	rd_xml_text(out, nd->name);
	fputs("</text>\n", out);
	if (ok)
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"%s\"%s>%.1f %%</text>\n", x_end - 8,
			y + 14.5, lk.text, lk.bold ? " font-weight=\"bold\"" : "", r->value * 100);
	else
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"#999\">n/a</text>\n", x_end - 8,
			y + 14.5);

	/* the bar on the common 0-100 % scale; beyond it, an arrow says the
	 * value did not fit: red when that made it mismeasured, grey within
	 * the tolerance (a point below 0 is noise, not an error) */
	fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" fill=\"%s\" stroke=\"#ddd\"/>\n", bx, by,
		BAR_W, BAR_H, ok ? "#f4f4f4" : "#fafafa");
	if (ok) {
		double v = r->value < 0 ? 0 : r->value > 1 ? 1 : r->value;
		if (v > 0)
			fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\" fill=\"%s\"/>\n", bx, by,
				BAR_W * v, BAR_H, lk.bar);
		const char *arrow = r->status == TD_MISMEASURED ? "#b00" : "#999";
		if (r->value > 1)
			fprintf(out, "<path d=\"M%.1f %.1fl7 %.1fl-7 %.1fz\" fill=\"%s\"/>\n", bx + BAR_W + 2, by,
				BAR_H / 2, BAR_H / 2, arrow);
		else if (r->value < 0)
			fprintf(out, "<path d=\"M%.1f %.1fl-7 %.1fl7 %.1fz\" fill=\"%s\"/>\n", bx - 2, by, BAR_H / 2,
				BAR_H / 2, arrow);
	}

	/* unit, marks and note, as the text output's columns */
	double mx = bx + BAR_W + MARK_GAP;
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">", mx, y + 14.5);
	if (ok) {
		char mux[24];
		mux_text(r, mux, sizeof mux);
		fprintf(out, "<tspan fill=\"#555\">%s</tspan>", rd_unit_label(nd->unit));
		if (mux[0])
			fprintf(out, " <tspan fill=\"#a60\">%s</tspan>", mux);
		const char *mark = mark_text(r);
		if (*mark) {
			fputs(" <tspan fill=\"#b00\" font-weight=\"bold\">", out);
			rd_xml_text(out, mark);
			fputs("</tspan>", out);
		}
	}
	if (r->note[0]) {
		fputs(ok ? " <tspan fill=\"#777\">" : "<tspan fill=\"#999\">", out);
		rd_xml_text(out, r->note);
		fputs("</tspan>", out);
	}
	fputs("</text>\n</g>\n", out);
}

/* a swatch and its meaning, for the legend; returns the next x */
static double legend_item(FILE *out, double x, double y, const char *fill, const char *stroke, double sw,
			  const char *dash, const char *label)
{
	fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"18\" height=\"12\" rx=\"2\" fill=\"%s\" stroke=\"%s\" stroke-width=\"%g\"",
		x, y - 10, fill, stroke, sw);
	if (dash)
		fprintf(out, " stroke-dasharray=\"%s\"", dash);
	fprintf(out, "/>\n<text x=\"%.1f\" y=\"%.1f\" fill=\"#555\">", x + 24, y);
	rd_xml_text(out, label);
	fputs("</text>\n", out);
	return x + 24 + CHAR_W * (double)strlen(label) + 18;
}

void render_tma_svg(FILE *out, const struct td_tree *tree, const char *title)
{
	const struct td_table *t = tree->table;
	int *rows = calloc(t->n_nodes ? t->n_nodes : 1, sizeof(*rows));
	double *row_y = calloc(t->n_nodes ? t->n_nodes : 1, sizeof(*row_y));
	size_t n = 0;
	if (rows && row_y)
		order_nodes(tree, -1, rows, &n);

	double marks_x = LEFT + NAME_W + BAR_GAP + BAR_W + MARK_GAP;
	size_t longest = 0;
	for (size_t k = 0; k < n; k++) {
		size_t l = marks_len(tree, rows[k]);
		if (l > longest)
			longest = l;
	}
	double width = marks_x + CHAR_W * (double)longest + LEFT;
	if (width < 860)
		width = 860;
	double tree_h = (n ? (double)n : 1) * ROW_H;
	double height = TOP + tree_h + 80;

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		     "font-family=\"sans-serif\" font-size=\"12\">\n", width, height, width, height);
	fputs("<title>gus stat: Top-Down (TMA)", out);
	if (title && *title) {
		fputs(" of ", out);
		rd_xml_text(out, title);
	}
	fputs("</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n", out);
	fprintf(out, "<text x=\"%.0f\" y=\"24\" font-size=\"15\">Top-Down (TMA) for ", LEFT);
	rd_xml_text(out, t->full_name);
	fputs(" (", out);
	rd_xml_text(out, t->id);
	if (tree->max_level > 1)
		fprintf(out, "), levels 1-%d</text>\n", tree->max_level);
	else
		fprintf(out, "), level %d</text>\n", tree->max_level);
	if (title && *title) {
		fprintf(out, "<text x=\"%.0f\" y=\"42\" fill=\"#555\">", LEFT);
		rd_xml_text(out, title);
		fputs("</text>\n", out);
	}
	/* the bar scale */
	double bx = LEFT + NAME_W + BAR_GAP;
	for (int k = 0; k <= 4; k++) {
		double gx = bx + BAR_W * k / 4;
		fprintf(out, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\" fill=\"#555\" font-size=\"10\">%d%%</text>\n",
			gx, TOP - 8, 25 * k);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n", gx, TOP - 4, gx,
			TOP + tree_h - (ROW_H - BOX_H));
	}

	for (size_t k = 0; k < n; k++)
		row_y[rows[k]] = TOP + (double)k * ROW_H;
	/* tree lines first, so that the boxes cover their ends */
	fputs("<g fill=\"none\" stroke=\"#bbb\">\n", out);
	for (size_t k = 0; k < n; k++) {
		const struct td_node *nd = &t->nodes[rows[k]];
		if (nd->parent < 0)
			continue;
		double px = LEFT + (nd->level - 2) * INDENT + INDENT / 2, py = row_y[nd->parent] + BOX_H;
		double cy = row_y[rows[k]] + BOX_H / 2, cx = LEFT + (nd->level - 1) * INDENT;
		fprintf(out, "<path d=\"M%.1f %.1fV%.1fH%.1f\"/>\n", px, py, cy, cx);
	}
	fputs("</g>\n", out);
	for (size_t k = 0; k < n; k++)
		node_row(out, tree, rows[k], row_y[rows[k]]);
	if (!n)
		fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" fill=\"#999\">no nodes evaluated</text>\n", LEFT, TOP + 14);

	double fy = TOP + tree_h + 22;
	fprintf(out, "<text x=\"%.0f\" y=\"%.0f\">", LEFT, fy);
	if (isnan(tree->level1_sum))
		fputs("level-1 sum: not computable", out);
	else
		fprintf(out, "level-1 sum %.1f %%", tree->level1_sum * 100);
	if (!isnan(tree->level1_sum) && tree->level1_sum_bad)
		fputs(" <tspan fill=\"#b00\" font-weight=\"bold\">MISMEASURED: farther than 5 points from 100 %; "
		      "no bottleneck is marked</tspan>", out);
	fputs("</text>\n", out);
	double lx = LEFT, ly = fy + 26;
	lx = legend_item(out, lx, ly, "#fde8e8", "#b00", 2, NULL, "bottleneck path (<==)");
	lx = legend_item(out, lx, ly, "#fde8e8", "#b00", 2, "5 2", "candidate");
	lx = legend_item(out, lx, ly, "#fff6e8", "#d80", 1.5, NULL, "above threshold");
	lx = legend_item(out, lx, ly, "#fff", "#b00", 1.5, "2 2", "mismeasured");
	legend_item(out, lx, ly, "#f2f2f2", "#ccc", 1, NULL, "n/a: not computable");
	fprintf(out, "<text x=\"%.0f\" y=\"%.0f\" fill=\"#777\" font-size=\"10\">a child is flagged only under a flagged parent; hover a node for its note</text>\n",
		LEFT, ly + 20);
	fputs("</svg>\n", out);
	free(rows);
	free(row_y);
}
