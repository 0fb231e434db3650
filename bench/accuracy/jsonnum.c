/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jsonnum.c - print the number stored under a top-level key of the JSON
 * object read from stdin: `jsonnum KEY < file.json`.
 *
 * Only keys of the outermost object count; a key of the same name inside
 * a nested object or array is skipped. Exit status: 0 when found (the
 * number's text is printed as it appears), 1 when the key is missing or its
 * value is not a number, 2 on malformed input or usage errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *p;		/* cursor into the input */

static void ws(void)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
}

/* parse a string at p (which is at '"'); copy up to cap-1 raw bytes of
 * its contents into out (escapes are kept as written); 0 or -1 */
static int string(char *out, size_t cap)
{
	size_t n = 0;
	if (*p != '"')
		return -1;
	p++;
	while (*p && *p != '"') {
		if (*p == '\\') {
			if (out && n + 1 < cap)
				out[n++] = *p;
			p++;
			if (!*p)
				return -1;
		}
		if (out && n + 1 < cap)
			out[n++] = *p;
		p++;
	}
	if (*p != '"')
		return -1;
	p++;
	if (out)
		out[n] = '\0';
	return 0;
}

/* skip one value of any type; 0 or -1 */
static int value(int depth)
{
	ws();
	if (depth > 256)
		return -1;
	if (*p == '"')
		return string(NULL, 0);
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';
		int obj = *p == '{';
		p++;
		ws();
		if (*p == close) {
			p++;
			return 0;
		}
		for (;;) {
			ws();
			if (obj) {
				if (string(NULL, 0))
					return -1;
				ws();
				if (*p++ != ':')
					return -1;
			}
			if (value(depth + 1))
				return -1;
			ws();
			if (*p == ',') {
				p++;
				continue;
			}
			if (*p == close) {
				p++;
				return 0;
			}
			return -1;
		}
	}
	/* number, true, false, null */
	const char *s = p;
	while (*p && !strchr(",]} \t\r\n", *p))
		p++;
	return p > s ? 0 : -1;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: jsonnum KEY < file.json\n");
		return 2;
	}
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + len, 1, cap - len - 1, stdin)) > 0) {
		len += got;
		if (len + 1 == cap) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb)
				free(buf);
			buf = nb;
		}
	}
	if (!buf)
		return 2;
	buf[len] = '\0';

	p = buf;
	ws();
	if (*p++ != '{')
		return 2;
	ws();
	if (*p == '}')
		return 1;
	for (;;) {
		char key[256];
		ws();
		if (string(key, sizeof(key)))
			return 2;
		ws();
		if (*p++ != ':')
			return 2;
		ws();
		if (!strcmp(key, argv[1])) {
			char *end;
			strtod(p, &end);
			if (end == p || !strchr(",} \t\r\n", *end))
				return 1;
			printf("%.*s\n", (int)(end - p), p);
			return 0;
		}
		if (value(1))
			return 2;
		ws();
		if (*p == ',') {
			p++;
			continue;
		}
		return *p == '}' ? 1 : 2;
	}
}
