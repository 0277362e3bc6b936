"""Sphinx extension: a table of three columns or more reflows on a phone.

Each such table gets the class ``reflow`` and each of its data cells the heading
of its column as ``data-label``; ``book/_static/course.css`` then shows, on a
narrow screen, one card per row with every value under its column's name, instead
of a table that has to be scrolled sideways.
"""

import html
import re

MIN_COLUMNS = 3
_TABLE = re.compile(r"<table\b[^>]*>.*?</table>", re.S)
_HEAD = re.compile(r"<th\b[^>]*>(.*?)</th>", re.S)
_ROW = re.compile(r"<tr\b[^>]*>.*?</tr>", re.S)
_CELL = re.compile(r"<td\b")
_TAG = re.compile(r"<[^>]+>")


def _label(cell_html):
    return html.escape(re.sub(r"\s+", " ", html.unescape(_TAG.sub("", cell_html))).strip())


def reflow(table):
    """The table's HTML with the reflow class and a data-label on every cell."""
    head, _, body = table.partition("</thead>")
    labels = [_label(cell) for cell in _HEAD.findall(head)]
    if len(labels) < MIN_COLUMNS or not body:
        return table

    def label_row(row):
        names = iter(labels)
        return _CELL.sub(lambda m: f'<td data-label="{next(names, "")}"', row.group(0))

    head = re.sub(r'<table\b([^>]*?)class="([^"]*)"', r'<table\1class="\2 reflow"', head, 1)
    return head + "</thead>" + _ROW.sub(label_row, body)


def _reflow_tables(app, pagename, templatename, context, doctree):
    if "body" in context:
        context["body"] = _TABLE.sub(lambda m: reflow(m.group(0)), context["body"])


def setup(app):
    app.connect("html-page-context", _reflow_tables)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
