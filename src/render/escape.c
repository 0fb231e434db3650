/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one escaping of strings gus did not make, for every format: text,
 * JSON, CSV fields and SVG text (render.h). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "render_internal.h"


/* ------------------------------------------- strings from outside gus --- */
/* The bytes of a valid UTF-8 sequence at S (1 to 4; 1 for the end of the
 * string), or 0 when S starts no valid one: a stray continuation byte,
 * an overlong form, a surrogate, a code point above U+10FFFF, a sequence
 * cut short. */
static size_t utf8_length(const unsigned char *s)
{
	unsigned char c = s[0];
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		unsigned char lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
		return s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		unsigned char lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
		return s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 && (s[3] & 0xc0) == 0x80 ? 4 : 0;
	}
	return 0;
}

enum escape_style { ESCAPE_TEXT, ESCAPE_JSON, ESCAPE_XML };

/* Where escaped text goes: a stream (in a quoted CSV field, its quotes
 * doubled), a buffer (cut at a whole piece when it is full, so that no
 * escape or character is left half), or nowhere but a look at what a CSV
 * field needs. */
struct escape_sink {
	FILE *f;
	bool csv_quoted;
	char *buf;
	size_t size, len;
	bool full;
	bool csv_scan;
	char sep;
	bool csv_needs_quotes;
	char last;
};

static void sink_put(struct escape_sink *o, const char *piece, size_t n)
{
	if (o->csv_scan) {
		for (size_t i = 0; i < n; i++) {
			char c = piece[i];
			if (c == o->sep || c == '"' || c == '\r' || c == '\n' || (c == ' ' && !o->len))
				o->csv_needs_quotes = true;
			o->last = c;
			o->len++;
		}
		return;
	}
	if (o->f && o->csv_quoted) {
		for (size_t i = 0; i < n; i++) {
			if (piece[i] == '"')
				fputc('"', o->f);
			fputc(piece[i], o->f);
		}
		return;
	}
	if (o->f) {
		fwrite(piece, 1, n, o->f);
		return;
	}
	if (o->full || o->len + n >= o->size) {
		o->full = true;
		return;
	}
	memcpy(o->buf + o->len, piece, n);
	o->len += n;
}

/* The one escaping of the renderers (merge.h): S piece by piece, each
 * valid UTF-8 character kept unless it is a control character, each
 * control character and each byte of no valid character written in the
 * convention of STYLE. */
static void escape(struct escape_sink *o, const char *s, enum escape_style style)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	char piece[16];
	while (*p) {
		size_t n = utf8_length(p);
		/* the C1 controls U+0080-U+009F: C2 80 to C2 9F */
		bool c1 = n == 2 && p[0] == 0xc2 && p[1] < 0xa0;
		unsigned char c = p[0];
		if (n > 1 && !c1) {
			sink_put(o, (const char *)p, n);
			p += n;
			continue;
		}
		if (style == ESCAPE_JSON) {
			/* JSON: a control character as its escape, a byte of no
			 * character as the code point of the same number */
			unsigned code = c1 ? p[1] : c;
			const char *named = code == '"' ? "\\\"" : code == '\\' ? "\\\\" : code == '\n' ? "\\n"
					  : code == '\r' ? "\\r" : code == '\t' ? "\\t" : code == '\b' ? "\\b"
					  : code == '\f' ? "\\f" : NULL;
			if (named)
				sink_put(o, named, strlen(named));
			else if (code < 0x20 || code >= 0x7f)
				sink_put(o, piece, (size_t)snprintf(piece, sizeof piece, "\\u%04x", code));
			else
				sink_put(o, (const char *)p, 1);
			p += c1 ? 2 : 1;
			continue;
		}
		if (style == ESCAPE_XML) {
			const char *entity = c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;"
					   : c == '"' ? "&quot;" : c == '\'' ? "&apos;" : NULL;
			if (entity) {
				sink_put(o, entity, strlen(entity));
				p++;
				continue;
			}
		}
		/* what XML and an SVG viewer take as white space */
		if (style == ESCAPE_XML && (c == '\n' || c == '\t')) {
			sink_put(o, (const char *)p, 1);
			p++;
			continue;
		}
		/* text: as ls --quoting-style=escape, but \xNN for every
		 * control character without a letter and every byte of no
		 * character (both bytes of a C1 control) */
		const char *named = c == '\\' ? "\\\\" : c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : NULL;
		if (c1) {
			sink_put(o, piece, (size_t)snprintf(piece, sizeof piece, "\\x%02x\\x%02x", p[0], p[1]));
			p += 2;
			continue;
		}
		if (named)
			sink_put(o, named, 2);
		else if (n == 0 || c < 0x20 || c == 0x7f)
			sink_put(o, piece, (size_t)snprintf(piece, sizeof piece, "\\x%02x", c));
		else
			sink_put(o, (const char *)p, 1);
		p++;
	}
}

void render_text_string(FILE *out, const char *s)
{
	struct escape_sink o = { .f = out };
	escape(&o, s, ESCAPE_TEXT);
}

void rd_text_put(FILE *out, const char *before, const char *s, const char *after)
{
	fputs(before, out);
	render_text_string(out, s);
	fputs(after, out);
}

const char *render_text_escape(char *buf, size_t n, const char *s)
{
	if (!n)
		return "";
	struct escape_sink o = { .buf = buf, .size = n };
	escape(&o, s, ESCAPE_TEXT);
	buf[o.len] = 0;
	return buf;
}

void render_json_string(FILE *out, const char *s)
{
	struct escape_sink o = { .f = out };
	fputc('"', out);
	escape(&o, s, ESCAPE_JSON);
	fputc('"', out);
}

void rd_xml_text(FILE *out, const char *s)
{
	struct escape_sink o = { .f = out };
	escape(&o, s, ESCAPE_XML);
}

void render_html_string(FILE *out, const char *s)
{
	rd_xml_text(out, s);
}

void render_json_number(FILE *out, double v)
{
	if (isnan(v) || isinf(v))
		fputs("null", out);
	else
		fprintf(out, "%.9g", v);
}

/* RFC 4180: a field is quoted when it holds the separator, a quote, a
 * line break, or a space at either end (which readers trim); inside, a
 * quote is doubled. The field is the text escaping of S, so that a CSV
 * file holds one record per line and no control character. */
void render_csv_field(FILE *out, const char *s, char sep)
{
	struct escape_sink scan = { .csv_scan = true, .sep = sep };
	escape(&scan, s, ESCAPE_TEXT);
	bool quoted = scan.csv_needs_quotes || scan.last == ' ';
	struct escape_sink o = { .f = out, .csv_quoted = quoted };
	if (quoted)
		fputc('"', out);
	escape(&o, s, ESCAPE_TEXT);
	if (quoted)
		fputc('"', out);
}
