/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The behaviour of gus's HTML pages (html.c): embedded in each page. It
 * reads only the page's own DOM: no data of the recording is in here. */
(function () {
	"use strict";
	var root = document.documentElement;
	var errors = [];
	/* what went wrong, where a test (and a reader) can see it */
	function record(msg) {
		errors.push(String(msg));
		root.setAttribute("data-js-errors", errors.join(" | "));
	}
	window.addEventListener("error", function (e) { record(e.message || "error"); });
	var consoleError = console.error;
	console.error = function () {
		record(Array.prototype.join.call(arguments, " "));
		return consoleError.apply(console, arguments);
	};

	function cellKey(td, numeric) {
		var v = td.getAttribute("data-v");
		if (v === null)
			v = td.textContent;
		if (numeric) {
			var x = parseFloat(v);
			return isNaN(x) ? -Infinity : x;
		}
		return v.toLowerCase();
	}

	/* a click on a column's heading sorts the table by it */
	function sortable(table) {
		var heads = table.querySelectorAll("thead th");
		Array.prototype.forEach.call(heads, function (th, col) {
			th.addEventListener("click", function () {
				var numeric = th.classList.contains("num");
				var dir = th.getAttribute("data-dir") === "desc" ? "asc" : "desc";
				if (!numeric && !th.getAttribute("data-dir"))
					dir = "asc";
				Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("data-dir"); });
				th.setAttribute("data-dir", dir);
				var body = table.tBodies[0];
				var rows = Array.prototype.slice.call(body.rows);
				rows.sort(function (a, b) {
					var x = cellKey(a.cells[col], numeric), y = cellKey(b.cells[col], numeric);
					var c = x < y ? -1 : x > y ? 1 : 0;
					return dir === "asc" ? c : -c;
				});
				rows.forEach(function (r) { body.appendChild(r); });
			});
		});
	}
	Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), sortable);

	/* a source line selects its instructions, an instruction its line */
	function selectSource(scope, key) {
		Array.prototype.forEach.call(scope.querySelectorAll("tr.sel"), function (r) { r.classList.remove("sel"); });
		if (!key)
			return;
		var first = null;
		Array.prototype.forEach.call(scope.querySelectorAll("tr[data-src]"), function (r) {
			if (r.getAttribute("data-src") === key) {
				r.classList.add("sel");
				if (!first && r.closest("table.insn"))
					first = r;
			}
		});
		if (first && first.scrollIntoView)
			first.scrollIntoView({ block: "nearest" });
	}
	Array.prototype.forEach.call(document.querySelectorAll(".annotated"), function (scope) {
		scope.addEventListener("click", function (e) {
			var row = e.target.closest ? e.target.closest("tr[data-src]") : null;
			if (row)
				selectSource(scope, row.getAttribute("data-src"));
		});
	});

	/* open or close every node of a tree */
	Array.prototype.forEach.call(document.querySelectorAll("button[data-tree]"), function (b) {
		b.addEventListener("click", function () {
			var tree = document.getElementById(b.getAttribute("data-tree"));
			if (!tree)
				return;
			var open = b.getAttribute("data-open") !== "1";
			Array.prototype.forEach.call(tree.querySelectorAll("details"), function (d) { d.open = open; });
			b.setAttribute("data-open", open ? "1" : "0");
			b.textContent = open ? "collapse all" : "expand all";
		});
	});

	root.setAttribute("data-ready", "1");
})();
