"""Sphinx extension: what a page teaches and how long it takes, at the top of the page.

``{objectives}`` holds the page's "After this page you can" list; the extension adds
the reading time, computed when the page is built from what the reader meets on it:
its words at WORDS_PER_MINUTE, and a minute for each code cell (to read and run) and
each check (``{check}``, book/_ext/checks.py). Nothing in it is typed, so it follows
the page as it grows.

The instructors' page reads the same figures for every page: ``{reading-time}`page```
puts one page's time into a sentence, and ``{page-times}`` a table of them all, in the
order of the table of contents.
"""

import math
from pathlib import Path

import yaml
from docutils import nodes
from sphinx.util.docutils import SphinxDirective, SphinxRole

from checks import check_node

WORDS_PER_MINUTE = 180  # technical prose, read to be understood
MINUTES_PER_CELL = 1
MINUTES_PER_CHECK = 1
ROUND_TO = 5  # minutes: a plan needs "about 35", not 33
SKIPPED = (nodes.literal_block, nodes.raw, nodes.comment, nodes.math_block, nodes.math,
           nodes.literal)


class plan_node(nodes.General, nodes.Element):
    """The box at the top of a page: the reading time, then the objectives (children)."""


class time_reference(nodes.Inline, nodes.Element):
    """A page's reading time, filled in once every page has been read."""


class times_table(nodes.General, nodes.Element):
    """The table of every page's reading time, filled in once every page has been read."""


def measure(document):
    """(words, code cells, checks) of a page, as a reader meets them."""
    words = 0
    for text in document.findall(nodes.Text):
        parent = text.parent
        inside = []
        while parent is not None:
            inside.append(parent)
            parent = parent.parent
        if any(isinstance(n, SKIPPED + (plan_node,)) or n.get("nb_element") == "cell_code"
               for n in inside if isinstance(n, nodes.Element)):
            continue
        words += len(text.astext().split())
    cells = sum(1 for n in document.findall(nodes.container) if n.get("nb_element") == "cell_code")
    checks = sum(1 for _ in document.findall(check_node))
    return words, cells, checks


def minutes(words, cells, checks):
    exact = words / WORDS_PER_MINUTE + MINUTES_PER_CELL * cells + MINUTES_PER_CHECK * checks
    return max(ROUND_TO, ROUND_TO * math.ceil(exact / ROUND_TO))


def _count(number, one, many):
    return f"{number:,} {one if number == 1 else many}"


def in_words(plan):
    """"About 35 minutes: 2,100 words, 12 code cells and 6 checks." """
    parts = [_count(plan["words"], "word", "words")]
    if plan["cells"]:
        parts.append(_count(plan["cells"], "code cell", "code cells"))
    if plan["checks"]:
        parts.append(_count(plan["checks"], "check", "checks"))
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"About {plan['minutes']} minutes: {listed}."


class ObjectivesDirective(SphinxDirective):
    """``{objectives}``: the page's "After this page you can" list (a bullet list)."""

    has_content = True

    def run(self):
        node = plan_node()
        self.set_source_info(node)
        self.state.nested_parse(self.content, self.content_offset, node)
        return [node]


class ReadingTimeRole(SphinxRole):
    """``{reading-time}`book/counting```: "about 30 minutes"."""

    def run(self):
        node = time_reference(docname=self.text.strip())
        self.env.course_plan_readers = getattr(self.env, "course_plan_readers", set())
        self.env.course_plan_readers.add(self.env.docname)
        return [node], []


class PageTimesDirective(SphinxDirective):
    """``{page-times}``: every page of the table of contents with its reading time."""

    def run(self):
        self.env.course_plan_readers = getattr(self.env, "course_plan_readers", set())
        self.env.course_plan_readers.add(self.env.docname)
        return [times_table()]


def _record(app, doctree):
    words, cells, checks = measure(doctree)
    plan = {"words": words, "cells": cells, "checks": checks,
            "minutes": minutes(words, cells, checks)}
    if not hasattr(app.env, "course_plans"):
        app.env.course_plans = {}
    app.env.course_plans[app.env.docname] = plan
    for node in doctree.findall(plan_node):
        node["plan"] = plan


def _purge(app, env, docname):
    getattr(env, "course_plans", {}).pop(docname, None)
    getattr(env, "course_plan_readers", set()).discard(docname)


def _merge(app, env, docnames, other):
    env.course_plans = {**getattr(env, "course_plans", {}), **getattr(other, "course_plans", {})}
    env.course_plan_readers = (getattr(env, "course_plan_readers", set())
                               | getattr(other, "course_plan_readers", set()))


def _readers_again(app, env):
    """The pages that quote other pages' times are written again whenever a page changed."""
    return sorted(getattr(env, "course_plan_readers", set()))


def _toc_order(app):
    toc = yaml.safe_load((Path(app.srcdir) / "_toc.yml").read_text(encoding="utf-8"))
    return [toc["root"]] + [chapter["file"] for chapter in toc["chapters"]]


def _resolve(app, doctree, docname):
    plans = getattr(app.env, "course_plans", {})
    for node in list(doctree.findall(time_reference)):
        target = node["docname"]
        if target not in plans:
            raise KeyError(f"{docname}: {{reading-time}} names {target!r}, not a page")
        node.replace_self(nodes.inline(text=f"about {plans[target]['minutes']} minutes"))
    for node in list(doctree.findall(times_table)):
        node.replace_self(_table(app, plans, docname))


def _table(app, plans, here):
    table = nodes.table(classes=["course-page-times"])
    group = nodes.tgroup(cols=5)
    table += group
    for width in (4, 2, 2, 2, 2):
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    group += head
    head += _row(["page", "minutes", "words", "code cells", "checks"])
    body = nodes.tbody()
    group += body
    for page in _toc_order(app):
        if page == here or page not in plans:
            continue
        title = app.env.titles[page].astext() if page in app.env.titles else page
        link = nodes.reference(internal=True, refuri=app.builder.get_relative_uri(here, page),
                               text=title)
        plan = plans[page]
        body += _row([link, f"{plan['minutes']}", f"{plan['words']:,}", f"{plan['cells']}",
                      f"{plan['checks']}"])
    return table


def _row(cells):
    row = nodes.row()
    for cell in cells:
        entry = nodes.entry()
        paragraph = nodes.paragraph()
        paragraph += cell if isinstance(cell, nodes.Node) else nodes.Text(cell)
        entry += paragraph
        row += entry
    return row


def visit_plan(self, node):
    plan = node.get("plan") or {"words": 0, "cells": 0, "checks": 0, "minutes": ROUND_TO}
    self.body.append('<div class="course-plan">\n'
                     f'<p class="course-plan-time">{in_words(plan)}</p>\n'
                     '<p class="course-plan-title">After this page you can</p>\n')


def depart_plan(self, node):
    self.body.append("</div>\n")


def _skip(self, node):
    raise nodes.SkipNode


def setup(app):
    app.add_node(plan_node, html=(visit_plan, depart_plan), latex=(_skip, None),
                 text=(_skip, None), man=(_skip, None), texinfo=(_skip, None))
    app.add_node(time_reference)
    app.add_node(times_table)
    app.add_directive("objectives", ObjectivesDirective)
    app.add_directive("page-times", PageTimesDirective)
    app.add_role("reading-time", ReadingTimeRole())
    app.connect("doctree-read", _record)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("env-get-updated", _readers_again)
    app.connect("doctree-resolved", _resolve)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": 1}
