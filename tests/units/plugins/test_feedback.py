"""The feedback page: a test cell's docstring and failure message, nothing else; a summary
that names each check, its points and why a missed one failed; student text escaped."""

import os
import re

import nbformat
import nbgrader
import pytest
from traitlets.config import Config

from testsupport import tiny_course as fx
from grader.plugins.feedback import (FeedbackPage, HideTestCode, Outcome, SummaryRow,
                                     feedback_summary, first_line, outcome_of)

# what nbgrader's GenerateFeedback configures for every HTML exporter (its own template)
NBGRADER_FEEDBACK_CONFIG = {"HTMLExporter": {
    "template_name": "feedback",
    "extra_template_basedirs": [os.path.join(os.path.dirname(nbgrader.__file__),
                                             "server_extensions", "formgrader", "templates")]}}
STUDENT = "bob"


def error(message, name="AssertionError"):
    return nbformat.v4.new_output("error", ename=name, evalue=message,
                                  traceback=["long", "traceback", fx.HIDDEN_MARK])


def graded(scores, outputs):
    """The tiny notebook as nbgrader's GetGrades and HideTestCode leave it for the page:
    each graded cell's score and points in its metadata, test cells reduced to their
    docstring and failure message."""
    nb = fx.instructor_notebook()
    for index, cell in enumerate(nb.cells):
        meta = cell.metadata.nbgrader
        if meta.get("grade"):
            meta["score"] = scores[meta["grade_id"]]
        if cell.cell_type == "code":
            cell.outputs = outputs.get(meta["grade_id"], [])
        HideTestCode().preprocess_cell(cell, {}, index)
    return nb


def page(nb, student=STUDENT, score=2.0, late_penalty=0.0, config=None):
    resources = {"nbgrader": {"notebook": fx.NOTEBOOK, "assignment": fx.ASSIGNMENT,
                              "student": student, "score": score, "max_score": fx.MAX_SCORE,
                              "late_penalty": late_penalty}}
    body, _ = FeedbackPage(config=Config(config or {})).from_notebook_node(nb, resources)
    return body


PARTIAL = {"double_visible": 1.0, "double_hidden": 0.0, "ones_values": 0.0, "answer_value": 1.0}
PARTIAL_OUTPUTS = {
    "double_hidden": [error("double gave a wrong value")],
    "ones_values": [nbformat.v4.new_output("stream", name="stdout", text="debug 84"),
                    error("ones should return a torch.Tensor\n(you returned a list: [1.0])")],
}


def test_feedback_preprocessor_keeps_docstring_and_message_only():
    nb = fx.instructor_notebook()
    cell = nb.cells[4]
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="debug 84"),
                    nbformat.v4.new_output("error", ename="AssertionError",
                                           evalue="double gave a wrong value",
                                           traceback=["long", "traceback", fx.HIDDEN_MARK])]
    out, _ = HideTestCode().preprocess_cell(cell, {}, 4)
    assert out.source == '"""Check that double doubles numbers it has not seen"""'
    assert len(out.outputs) == 1
    assert out.outputs[0].traceback == ["AssertionError: double gave a wrong value"]


def test_the_summary_lists_a_passed_a_missed_and_a_hidden_check():
    rows = feedback_summary(graded(PARTIAL, PARTIAL_OUTPUTS))
    assert rows == [
        SummaryRow("double_visible", "Check that double(2) is the int 4", 1.0, 1.0,
                   Outcome.PASSED, "", "check-double_visible"),
        # the hidden check: its docstring and its message, never its code
        SummaryRow("double_hidden", "Check that double doubles numbers it has not seen",
                   0.0, 2.0, Outcome.MISSED, "double gave a wrong value", "check-double_hidden"),
        # a message of several lines: its first line
        SummaryRow("ones_values", "Check that ones(n) is a float tensor of n ones", 0.0, 2.0,
                   Outcome.MISSED, "ones should return a torch.Tensor", "check-ones_values"),
        SummaryRow("answer_value", "Check that answer is the int 42", 1.0, 1.0,
                   Outcome.PASSED, "", "check-answer_value"),
    ]
    assert fx.HIDDEN_MARK not in repr(rows)


def test_a_check_with_no_docstring_is_named_by_its_grade_id_and_keeps_an_errors_name():
    nb = graded(PARTIAL, {"answer_value": [error("name 'answer' is not defined", "NameError")]})
    nb.cells[-1].source = "assert answer == 42"
    nb.cells[-1].metadata.nbgrader["score"] = 0.0
    row = feedback_summary(nb)[-1]
    assert (row.title, row.outcome, row.message) == (
        "answer_value", Outcome.MISSED, "NameError: name 'answer' is not defined")


@pytest.mark.parametrize("text, expected", [
    ("one line", "one line"),
    ("ones should return a torch.Tensor\n(you returned a list)", "ones should return a torch.Tensor"),
    ("\n   \n  after blank lines  \nand more", "after blank lines"),
    ("", ""),
])
def test_first_line_of_a_message(text, expected):
    assert first_line(text) == expected


@pytest.mark.parametrize("score, points, expected", [
    (1.5, 1.5, Outcome.PASSED), (0.0, 1.5, Outcome.MISSED), (0.5, 1.5, Outcome.PARTLY),
    (None, 2.0, Outcome.NOT_GRADED), (0.0, 0.0, Outcome.PASSED),
])
def test_outcome_of_a_graded_cell(score, points, expected):
    assert outcome_of(score, points) == expected


def test_the_page_has_a_language_a_title_one_h1_and_a_summary_linked_to_each_cell():
    html = page(graded(PARTIAL, PARTIAL_OUTPUTS))
    assert re.search(r'<html lang="en">', html)
    assert "<title>Feedback: tiny.ipynb, tiny, bob</title>" in html
    assert len(re.findall(r"<h1[ >]", html)) == 1
    assert "<main>" in html and "<header>" in html and "<footer>" in html
    assert "Score: <strong>2</strong> of 6 points." in html
    links = re.findall(r'<td><a href="#(check-[\w-]+)">', html)
    assert links == ["check-double_visible", "check-double_hidden", "check-ones_values",
                     "check-answer_value"]
    for anchor in links:
        assert f'id="{anchor}"' in html
    # the summary comes before the notebook; the notebook's own "# Tiny homework" is an h3
    assert html.index('id="summary"') < html.index('id="notebook"')
    assert re.search(r"<h3[^>]*>Tiny homework", html)
    assert "0 / 2" in html and "ones should return a torch.Tensor" in html


def test_the_page_hides_the_hidden_test_and_loads_nothing_from_another_host():
    html = page(graded(PARTIAL, PARTIAL_OUTPUTS))
    assert fx.HIDDEN_MARK not in html and "BEGIN HIDDEN TESTS" not in html
    assert "for value in (21, -7, 0)" not in html
    assert re.findall(r"https?://", html) == []
    assert "<script" not in html and "<link" not in html


def test_student_text_in_messages_ids_and_markdown_is_escaped():
    outputs = {"double_hidden": [error("double(1) returned <script>alert(1)</script>")]}
    nb = graded(PARTIAL, outputs)
    nb.cells.insert(1, nbformat.v4.new_markdown_cell(
        "My notes <script>alert(2)</script> <img src=\"https://evil.example/x.png\" "
        "onerror=\"alert(3)\" alt=\"x\"> <a href=\"javascript:alert(4)\">a</a> "
        "<a href=\"data:text/html,<script>alert(5)</script>\">b</a>"))
    html = page(nb, student="<b>bob</b>")
    assert "<script" not in html and "onerror" not in html and "evil.example" not in html
    assert "javascript:" not in html and "data:text" not in html and "My notes" in html
    assert "double(1) returned &lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<title>Feedback: tiny.ipynb, tiny, &lt;b&gt;bob&lt;/b&gt;</title>" in html
    assert "<b>bob</b>" not in html


def test_a_late_penalty_is_shown_beside_the_score():
    html = page(graded(PARTIAL, PARTIAL_OUTPUTS), score=0.0, late_penalty=2.0)
    assert "after a late-submission penalty of\n 2 points" in html
    assert "Late-submission penalty</th><td class=\"points\">−2</td>" in html


def test_the_page_keeps_its_template_whatever_nbgrader_sets_for_html_exporters():
    html = page(graded(PARTIAL, PARTIAL_OUTPUTS), config=NBGRADER_FEEDBACK_CONFIG)
    assert 'id="summary"' in html and "Skip to your notebook" in html
    assert "Test cell</a> (Score:" not in html  # nbgrader's own summary line


@pytest.mark.parametrize("href", [
    "da&#x09;ta:text/html,<script>alert(1)</script>",  # an encoded tab inside the scheme
    "da&#x0A;ta:text/html,hi", " &#x20;data:text/html,hi", "DATA:text/html,hi",
    "%64ata:text/html,hi", "&amp;#x64;ata:text/html,hi", "java&#x09;script:alert(1)",
    "vbscript:msgbox(1)"])
def test_a_link_to_data_or_script_is_dropped_however_its_scheme_is_encoded(href):
    nb = graded(PARTIAL, PARTIAL_OUTPUTS)
    nb.cells.insert(1, nbformat.v4.new_markdown_cell(
        f'My notes <a href="{href}">a trap</a> and <a href="https://example.org/ok">a page</a> '
        '<a href="#summary-of-mine">a heading</a>'))
    html = page(nb)
    trap = re.search(r"<a[^>]*>a trap</a>", html).group(0)
    assert trap == "<a>a trap</a>"  # the link is gone, the student's words stay
    assert '<a href="https://example.org/ok">a page</a>' in html
    assert '<a href="#summary-of-mine">a heading</a>' in html


def test_a_students_text_and_output_are_set_apart_and_never_wear_the_pages_score_style():
    fake = ('<p class="score">Score: <strong>10</strong> of 10 points.</p>'
            '<span class="outcome passed">✓ Passed</span> <div id="summary">x</div>')
    nb = graded(PARTIAL, PARTIAL_OUTPUTS)
    nb.cells.insert(1, nbformat.v4.new_markdown_cell(fake, metadata={"added_by_student": True}))
    printed = nbformat.v4.new_code_cell("print('Score: 10 of 10 points.')")
    printed.outputs = [nbformat.v4.new_output("stream", name="stdout",
                                              text="Score: 10 of 10 points.\n")]
    nb.cells.insert(2, printed)
    html = page(nb)
    assert html.count('class="score"') == 1  # the page's own score line, and only it
    assert html.count('id="summary"') == 1
    assert 'class="outcome passed"' not in html.split('id="notebook"')[1].split(
        "Your answer")[0]  # the student's text above the first answer wears no outcome style
    text = re.search(r'<div class="cell text student-text">(.*?)</div>', html, re.S).group(1)
    assert "Text you added to the notebook (not your grader's)" in text
    assert "<strong>10</strong> of 10 points." in text  # the student's words, in the frame
    framed = re.search(r'<div [^>]*class="student-output"[^>]*>\s*<p class="student-output-label">'
                       r"Printed by the code above \(the notebook's output, not your grader's\)"
                       r"</p>(.*?)</pre>", html, re.S)
    assert framed and "Score: 10 of 10 points." in framed.group(1)


def test_the_graders_own_text_is_never_framed_as_the_students():
    """The grading note and the instructor's text cells are the page's; only the cells the
    autograded notebook marks as added by the student are framed as theirs."""
    from grader.plan import Plan, PlanCell
    from grader.worker.autograded import autograded_notebook

    instructor = fx.instructor_notebook()
    plan = Plan([PlanCell("markdown", "My own notes.")])
    written = autograded_notebook(instructor, plan, {}, "not graded: a reason")
    assert [c.metadata.get("added_by_student") for c in written.cells] == [None, True]
    nb = graded(PARTIAL, PARTIAL_OUTPUTS)
    nb.cells[0:0] = written.cells
    html = page(nb)
    assert html.count('class="cell text student-text"') == 1
    framed = re.search(r'<div class="cell text student-text">(.*?)</div>', html, re.S).group(1)
    assert "My own notes." in framed and "Grading note" not in framed


def test_the_courses_ai_policy_is_shown_above_the_summary_as_escaped_text():
    policy = ("No AI for the answers <script>alert(1)</script>.\n\n"
              "Ask it about <b>errors</b>, [a link](javascript:alert(2)).")
    html = page(graded(PARTIAL, PARTIAL_OUTPUTS),
                config={"AiPolicy": {"policies": {fx.ASSIGNMENT: policy}}})
    section = html[html.index('id="ai-policy"'):html.index('id="summary"')]
    assert re.findall(r"<p>(.*?)</p>", section) == [
        "No AI for the answers &lt;script&gt;alert(1)&lt;/script&gt;.",
        "Ask it about &lt;b&gt;errors&lt;/b&gt;, [a link](javascript:alert(2))."]
    assert ("<h2 id=\"ai-policy-heading\">The course's AI policy for this assignment</h2>"
            in section)
    assert "<script" not in html and "<b>errors" not in html
    assert html.index('id="ai-policy"') < html.index('id="summary"')


def test_an_assignment_without_a_policy_shows_none():
    nb = graded(PARTIAL, PARTIAL_OUTPUTS)
    other = page(nb, config={"AiPolicy": {"policies": {"another": "No AI."}}})
    assert "ai-policy" not in other and "No AI." not in other
    assert other == page(nb) == page(nb, config={"AiPolicy": {"policies": {"tiny": " \n"}}})
