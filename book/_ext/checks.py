"""Sphinx extension: checks that ask before they tell.

A check is a question the reader answers before the page shows the answer: they type a
number or a shape, or pick an option, and press *Check*. The feedback names the typical
mistake their answer is (163,009,536 for the tied count: "that is the untied count"),
says "right" with the reason, or says only that it is not the answer; after a first
attempt the worked answer below it can be opened. In MyST::

    :::{check} tied_count_check
    :label: Parameters once tied
    The worked answer, shown after an attempt (MyST, glue roles and all).
    :::

The argument names the check's key, glued by a cell of the same page with
``gptcourse.pages.check``: the answer, the tolerance and the wrong answers with their
feedback, all computed when the page is built, never typed. The key is read while the
page is parsed and written into the page as ``data-check``, a choice's options in an
order of their own (``shuffled``: the right option is not always first, and the build
stops when most of the site's answers sit in one place); ``_static/checks.js`` runs
the form (no request, no library). Without JavaScript the form stays hidden and the
worked answer is a plain "Show the answer"; in print it is there in full.

Accessibility: the field has a visible label (a choice is a fieldset with a legend),
*Check* is a real button, Enter in the field checks, and the feedback is written into a
``role="status"`` live region, which screen readers announce.
"""

import hashlib
import html
import json
import random
import re

from docutils import nodes
from docutils.parsers.rst import directives
from myst_nb.core.variables import RetrievalError
from myst_nb.ext.glue.utils import retrieve_glue_data
from sphinx.errors import ExtensionError
from sphinx.util.docutils import SphinxDirective

CHECK_MIME_TYPE = "application/vnd.gptcourse.check+json"  # gptcourse.pages.Check
_CODE = re.compile(r"`([^`]+)`")
_STRONG = re.compile(r"\*\*([^*]+)\*\*")
_EMPHASIS = re.compile(r"(?<![\w*])\*([^*]+)\*(?![\w*])")


def inline_html(text):
    """The few inline marks a check's feedback and options use: `code`, **strong**, *em*."""
    escaped = html.escape(text, quote=False)
    escaped = _CODE.sub(r"<code>\1</code>", escaped)
    escaped = _STRONG.sub(r"<strong>\1</strong>", escaped)
    return _EMPHASIS.sub(r"<em>\1</em>", escaped)


class check_node(nodes.General, nodes.Element):
    """One check: its form, its live region and its worked answer (the children)."""


def _key_of(document, key):
    """The glued key of check ``key``, as the page's cell wrote it (a dict)."""
    data = retrieve_glue_data(document, key).data
    if CHECK_MIME_TYPE not in data:
        raise RetrievalError(f"the glued value {key!r} is not a check "
                             "(glue it with gptcourse.pages.check)")
    value = data[CHECK_MIME_TYPE]
    return json.loads(value) if isinstance(value, str) else dict(value)


def shuffled(choices, answer, key):
    """``choices`` in an order of their own for the check ``key``, the same at every build:
    the answer, which a page's cell often lists first, at the place the key's SHA-256
    picks, the other options around it in an order drawn from a generator seeded by it."""
    if not choices:
        return []
    seed = hashlib.sha256(key.encode("utf-8")).digest()
    others = [choice for choice in choices if choice != answer]
    random.Random(seed).shuffle(others)
    others.insert(int.from_bytes(seed, "big") % len(choices), answer)
    return others


def for_the_page(spec, key):
    """The key as checks.js reads it: feedback and options as HTML, a choice by its index
    among the options in their shuffled order (``shuffled``)."""
    choices = shuffled(spec.get("choices") or [], spec["answer"], key)
    value = choices.index if spec["kind"] == "choice" else (lambda v: v)
    return {
        "kind": spec["kind"], "answer": value(spec["answer"]), "tolerance": spec["tolerance"],
        "relative": spec["relative"], "right": inline_html(spec.get("right", "")),
        "choices": [inline_html(c) for c in choices],
        "mistakes": [{"value": value(m["value"]), "feedback": inline_html(m["feedback"])}
                     for m in spec["mistakes"]],
    }


class CheckDirective(SphinxDirective):
    """``{check} key``: a question's answer field, feedback and worked answer."""

    required_arguments = 1
    has_content = True
    option_spec = {"label": directives.unchanged}

    def run(self):
        key = self.arguments[0]
        try:
            spec = _key_of(self.state.document, key)
        except RetrievalError as error:
            raise self.error(f"check {key!r}: {error}") from error
        node = check_node()
        node["key"] = key
        node["spec"] = for_the_page(spec, key)
        if spec["kind"] == "choice":
            positions = self.env.course_answer_positions = getattr(
                self.env, "course_answer_positions", {})
            positions.setdefault(self.env.docname, {})[key] = (
                node["spec"]["answer"], len(node["spec"]["choices"]))
        node["label"] = self.options.get("label", "Your answer")
        node["anchor"] = "check-" + re.sub(r"[^a-z0-9]+", "-", key.lower()).strip("-")
        self.set_source_info(node)
        body = nodes.container(classes=["course-check-body"])
        self.state.nested_parse(self.content, self.content_offset, body)
        node += body
        return [node]


def _form(node):
    anchor, spec = node["anchor"], node["spec"]
    label = inline_html(node["label"])
    parts = [f'<form class="course-check-form" hidden>']
    if spec["kind"] == "choice":
        parts.append(f'<fieldset><legend>{label}</legend>')
        for index, choice in enumerate(spec["choices"]):
            parts.append(f'<label class="course-check-choice"><input type="radio" '
                         f'name="{anchor}" value="{index}"> <span>{choice}</span></label>')
        parts.append('</fieldset>')
    else:
        example = "for example 2, 4, 768" if spec["kind"] == "shape" else "a number"
        parts.append(f'<label for="{anchor}-answer">{label}</label>'
                     f'<span class="course-check-row"><input id="{anchor}-answer" '
                     f'type="text" inputmode="{"text" if spec["kind"] == "shape" else "decimal"}" '
                     f'autocomplete="off" spellcheck="false" placeholder="{example}">')
    parts.append('<button type="submit" class="course-check-button">Check</button>')
    if spec["kind"] != "choice":
        parts.append("</span>")
    parts.append("</form>")
    return "".join(parts)


def visit_check(self, node):
    data = html.escape(json.dumps(node["spec"], ensure_ascii=False), quote=True)
    self.body.append(f'<div class="course-check" id="{node["anchor"]}" data-check="{data}">\n')
    self.body.append(_form(node) + "\n")
    self.body.append('<p class="course-check-feedback" role="status" aria-live="polite"></p>\n')
    self.body.append('<details class="course-check-answer">\n'
                     '<summary>Show the answer</summary>\n')


def depart_check(self, node):
    self.body.append("</details>\n</div>\n")


def _skip(self, node):
    raise nodes.SkipNode


MOST_IN_ONE_PLACE = 0.5  # of the site's choice checks, at most this share answer in one place


def answer_places_vary(app, env):
    """Stop the build when the answers of the site's choice checks sit in the same place
    (the first option, say): a reader would learn the place, not the answer."""
    places = [answer for page in getattr(env, "course_answer_positions", {}).values()
              for answer, _ in page.values()]
    if len(places) < 3:
        return
    most = max(places.count(place) for place in set(places))
    if most > MOST_IN_ONE_PLACE * len(places):
        raise ExtensionError(f"{most} of the site's {len(places)} choice checks have their "
                             "answer in the same place: reword or rename a check's key so "
                             "that its options shuffle otherwise")


def _purge(app, env, docname):
    getattr(env, "course_answer_positions", {}).pop(docname, None)


def _merge(app, env, docnames, other):
    mine = env.course_answer_positions = getattr(env, "course_answer_positions", {})
    for docname in docnames:
        if docname in getattr(other, "course_answer_positions", {}):
            mine[docname] = other.course_answer_positions[docname]


def setup(app):
    app.add_node(check_node, html=(visit_check, depart_check),
                 latex=(_skip, None), text=(_skip, None), man=(_skip, None),
                 texinfo=(_skip, None))
    app.add_directive("check", CheckDirective)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("env-check-consistency", answer_places_vary)
    app.add_js_file("checks.js", loading_method="defer")
    app.add_css_file("checks.css")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
