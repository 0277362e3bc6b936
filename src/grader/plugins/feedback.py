"""Feedback a student can read, without the hidden tests: what nbgrader generate_feedback uses.

nbgrader's feedback shows every test cell's full source, hidden tests
included, and lists the checks as "Test cell" with a score. Two classes that
nbgrader_config.py names replace that:

- `HideTestCode`, a preprocessor, replaces each test cell's source by its
  docstring (or "hidden checks") and reduces its outputs to the failure
  message, so a student sees which checks failed and why, never the
  checking code.
- `FeedbackPage`, the exporter, writes the page with the course's template
  (``templates/feedback/`` of the grader package): a summary of every graded cell
  at the top (`feedback_summary`: the check's docstring, its points, the first
  line of the message of a missed one, a link to the cell), the score, then
  the notebook. One self-contained HTML file that loads nothing from anywhere. Above the
  summary, the assignment's AI policy when the course sets one (c.AiPolicy.policies), as
  text: each paragraph escaped, never read as markdown or HTML (`ai_policy_paragraphs`).
"""

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from nbconvert.exporters import HTMLExporter
from nbconvert.preprocessors import Preprocessor
from nbgrader.preprocessors import GetGrades
from nbformat import NotebookNode
from traitlets import Bool
from traitlets.config import Config

from ..cells import docstring_of, nbgrader_meta
from ..safe_text import url_scheme
from ..settings import AiPolicy

# the package's templates/ folder (package data, beside the wings), not this wing's
TEMPLATES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "templates")
TEMPLATE_NAME = "feedback"
# the messages an AssertionError or the grader's own reasons ("timed out ...") carry
# speak for themselves; any other error keeps its name in front ("NameError: ...")
PLAIN_ERRORS = ("AssertionError", "Error")


class HideTestCode(Preprocessor):
    """Test cells show their docstring and failure message only."""

    enabled = Bool(True, help="on unless configured off").tag(config=True)

    def preprocess_cell(self, cell: NotebookNode, resources: dict[str, Any],
                        index: int) -> tuple[NotebookNode, dict[str, Any]]:
        meta = nbgrader_meta(cell)
        if cell.cell_type != "code" or not meta.get("grade") or meta.get("solution"):
            return cell, resources
        doc = docstring_of(cell.source)
        cell.source = f'"""{doc}"""' if doc else "# hidden checks"
        kept = []
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                message = f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"
                output["traceback"] = [message]
                kept.append(output)
        cell.outputs = kept
        return cell, resources


class GetGradesOrWaiting(GetGrades):
    """nbgrader's GetGrades, except that a cell nobody has graded yet (an explain answer
    before a person reads it) gets the score None, not nbgrader's 0: its page says "not
    graded yet" and never "missed"."""

    def _get_score(self, cell: NotebookNode, resources: dict[str, Any]) -> None:
        super()._get_score(cell, resources)
        grade = self.gradebook.find_grade(cell.metadata["nbgrader"]["grade_id"],
                                          self.notebook_id, self.assignment_id, self.student_id)
        if grade.manual_score is None and grade.auto_score is None:
            cell.metadata.nbgrader["score"] = None


class Outcome(StrEnum):
    """How one graded cell went, as the summary says it."""

    PASSED = "passed"
    PARTLY = "partly"  # some of its points (partial credit, or points given by hand)
    MISSED = "missed"
    NOT_GRADED = "not graded yet"  # waiting for manual grading


def outcome_of(score: float | None, points: float) -> Outcome:
    """The outcome of a cell that earned `score` of `points` (None: not graded yet)."""
    if score is None:
        return Outcome.NOT_GRADED
    if score >= points:
        return Outcome.PASSED
    return Outcome.PARTLY if score > 0 else Outcome.MISSED


@dataclass(frozen=True)
class SummaryRow:
    """One graded cell of the notebook as the feedback's summary lists it."""

    grade_id: str
    title: str  # a check's docstring, first line; what an answer cell is otherwise
    score: float | None
    points: float
    outcome: Outcome
    message: str  # the first line of the failure message of a check not passed, else ""
    anchor: str  # the id of the cell on the page


def first_line(text: str) -> str:
    """The first line of `text` that is not blank, stripped; "" if there is none."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def docstring_rest(source: str) -> str:
    """A cell's docstring after its first line (the summary's title), stripped; "" if none."""
    doc = docstring_of(source) or ""
    first = first_line(doc)
    return doc.strip()[len(first):].strip() if first else ""


def failure_message(cell: NotebookNode) -> str:
    """The whole failure message of a test cell: its first error output, "" if none."""
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            name, value = output.get("ename") or "Error", output.get("evalue") or ""
            if not value.strip():
                return name
            return value if name in PLAIN_ERRORS else f"{name}: {value}"
    return ""


def cell_anchor(grade_id: str) -> str:
    """The id of a graded cell on the page: its grade id, made safe for an id and a link."""
    return "check-" + re.sub(r"[^A-Za-z0-9_-]", "-", grade_id)


def is_test_cell(cell: NotebookNode) -> bool:
    """A test cell: a graded code cell that is not the student's answer."""
    meta = nbgrader_meta(cell)
    return cell.get("cell_type") == "code" and bool(meta.get("grade")) and not meta.get("solution")


def _score(value: float | str | None) -> float | None:
    return None if value is None else float(value)


def summary_row(cell: NotebookNode) -> SummaryRow | None:
    """The summary's row for a graded cell (test cell, graded answer, task), else None.

    Reads the score that nbgrader's GetGrades wrote into the cell's metadata; a
    check's title and message come from what `HideTestCode` leaves (its docstring
    and its error output), so nothing of the checking code is read.
    """
    meta = nbgrader_meta(cell)
    if not (meta.get("grade") or meta.get("task")) or not meta.get("grade_id"):
        return None
    grade_id = str(meta["grade_id"])
    if is_test_cell(cell):
        title = first_line(docstring_of(cell.source) or "") or grade_id
        message = failure_message(cell)
    else:
        kind = "Task" if meta.get("task") else "Your answer"
        title, message = f"{kind} ({grade_id}), graded by hand", ""
    score, points = _score(meta.get("score")), float(meta.get("points") or 0)
    outcome = outcome_of(score, points)
    return SummaryRow(grade_id=grade_id, title=title, score=score, points=points,
                      outcome=outcome,
                      message=first_line(message) if outcome != Outcome.PASSED else "",
                      anchor=cell_anchor(grade_id))


def feedback_summary(nb: NotebookNode) -> list[SummaryRow]:
    """A `SummaryRow` per graded cell of the notebook, in notebook order."""
    return [row for row in map(summary_row, nb.cells) if row is not None]


def points_text(value: float | None) -> str:
    """A number of points as a student reads it: 1.5, 2, 0.25; "–" when not graded."""
    if value is None:
        return "–"
    return f"{round(float(value), 2):g}"


def shift_headings(html_text: str, by: int = 2) -> str:
    """HTML with each heading `by` levels lower (h1 -> h3), h6 at most: the page has one h1,
    and a notebook's own headings sit under the page's "Your notebook" heading."""
    def lower(match: re.Match[str]) -> str:
        level = min(6, int(match.group(2)) + by)
        return f"<{match.group(1)}h{level}"
    return re.sub(r"<(/?)h([1-6])(?=[\s>])", lower, html_text)


# what markdown makes (and a notebook's own HTML may hold) that a student's page keeps
MARKDOWN_TAGS = {"a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "div", "dl", "dt",
                 "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "kbd", "li", "ol",
                 "p", "pre", "s", "span", "strong", "sub", "sup", "table", "tbody", "td", "th",
                 "thead", "tr", "ul"}


# the classes and ids of the page's own text (the score, the checks, their outcomes): a
# notebook's HTML never wears them, so nothing a student writes looks like the grader's verdict
PAGE_CLASSES = frozenset({
    "answer", "back", "cell", "cell-label", "check", "checks", "comment", "context", "doc",
    "grading-note", "message", "missed", "not_graded", "note", "outcome", "partly", "passed",
    "points", "policy", "score", "skip", "student-output", "student-output-label",
    "student-text", "totals", "what"})
PAGE_IDS = frozenset({"summary", "summary-heading", "notebook", "notebook-heading",
                      "ai-policy", "ai-policy-heading"})
LINK_SCHEMES = frozenset({"", "http", "https", "mailto"})  # "": within the page, or relative


def _kept_attribute(tag: str, name: str, value: str) -> bool:
    if name == "class":
        return not set(value.split()) & PAGE_CLASSES
    if name == "id":
        return value not in PAGE_IDS and not value.startswith("check-")
    if name == "title":
        return True
    if tag == "a":  # a link, never to a page made of data nor to a script, however encoded
        return name == "href" and url_scheme(value) in LINK_SCHEMES
    if tag == "img":  # an image loads only from the page itself, never from a host
        return name in ("alt", "width", "height") or (
            name == "src" and value.startswith("data:image/"))
    return tag in ("td", "th") and name in ("colspan", "rowspan")


def clean_markdown_html(html_text: str) -> str:
    """A markdown cell's HTML with only what markdown makes: no script, style, form or
    event handler, and no image from another host. Markdown cells a student added are on
    the page, and the instructor opens it too."""
    import bleach  # (nbconvert's own dependency) imported only when a page is written

    return bleach.clean(html_text, tags=MARKDOWN_TAGS, attributes=_kept_attribute,
                        protocols={"http", "https", "mailto", "data"}, strip=True)


def code_styles() -> dict[str, str]:
    """Pygments CSS for code on the page: {"light": ..., "dark": ...}, styles made for
    WCAG contrast (a11y-light and a11y-dark)."""
    from pygments.formatters import HtmlFormatter  # imported only when a page is written

    return {mode: HtmlFormatter(style=f"a11y-{mode}").get_style_defs(".highlight")
            for mode in ("light", "dark")}


def ai_policy_paragraphs(policy: str) -> list[str]:
    """The paragraphs of an AI policy (blank lines part them), each stripped; [] for none."""
    return [part.strip() for part in re.split(r"\n\s*\n", policy) if part.strip()]


class FeedbackPage(HTMLExporter):
    """nbconvert's HTML exporter with the course's feedback template (templates/feedback/).

    nbgrader's GenerateFeedback (and formgrader's *Generate Feedback* button) set
    HTMLExporter's template to nbgrader's own, and settings of a class reach its
    subclasses; this class's own section, given in `default_config`, comes first,
    so the page keeps its template unless c.FeedbackPage.template_name says otherwise.
    """

    @property
    def default_config(self) -> Config:
        config = super().default_config
        config.merge(Config({"FeedbackPage": {"template_name": TEMPLATE_NAME,
                                              "extra_template_basedirs": [TEMPLATES]}}))
        return config

    def default_filters(self) -> Iterator[tuple[str, Callable[..., Any]]]:
        yield from super().default_filters()
        yield "feedback_summary", feedback_summary
        yield "summary_row", summary_row
        yield "failure_message", failure_message
        yield "cell_anchor", cell_anchor
        yield "is_test_cell", is_test_cell
        yield "first_line", first_line
        yield "docstring_rest", docstring_rest
        yield "points_text", points_text
        yield "shift_headings", shift_headings
        yield "clean_markdown_html", clean_markdown_html

    def from_notebook_node(self, nb: NotebookNode, resources: dict[str, Any] | None = None,
                           **kw: Any) -> tuple[str, dict[str, Any]]:
        resources = dict(resources or {})
        resources["code_styles"] = code_styles()
        assignment = str((resources.get("nbgrader") or {}).get("assignment", ""))
        resources["ai_policy"] = ai_policy_paragraphs(
            AiPolicy(config=self.config).policy_of(assignment))
        return super().from_notebook_node(nb, resources, **kw)
