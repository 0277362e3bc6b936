"""A student's feedback page and the grade report page as the course's own commands write them.

The class is the rehearsal of conftest.py (`make rehearse`: release, submit, sandboxed
autograde, `make feedback`, `make grades`, with the course's nbgrader_config.py), graded
once for these tests and the rehearsal's. bob answered the first half of parameters:
his page's summary must name each check by its docstring, give the points the grader
recorded and, for a missed check, the first line of its message, and link to the
cell. No page may show hidden test code or load anything from another host, and
axe-core finds no WCAG 2.1 A or AA violation on bob's page or the report page, light
or dark, at desktop width or a phone's (where nothing is wider than the screen).
"""

import csv
import html
import os
import re
from pathlib import Path

import pytest

from testsupport.accessibility import DESKTOP, PHONE, ROOT, axe_violations, violations_report
from testsupport.course import assignments, cell_source, hidden_test_lines, read_notebook

ASSIGNMENT = "parameters"
NOTEBOOK = assignments()[ASSIGNMENT]
PARTIAL = "bob"  # the rehearsal's partial student: the first half of the answers
STUDENTS = ["alice", "bob", "carol", "dave"]
ROW = re.compile(r'<tr class="(\w+)">\s*<td><a href="#([\w-]+)">(.*?)</a>'
                 r'(?:<span class="message">(.*?)</span>)?</td>\s*'
                 r'<td class="points">.*?<br\s*/?>([\d.–]+ / [\d.]+)</td>', re.S)
SCREENSHOTS = ROOT / "_build" / "screenshots"
THEMES = ["light", "dark"]
SIZES = {"desktop": DESKTOP, "phone": PHONE}
# Rules switched off, each with the reason; only per rule, never the whole check.
DISABLED_RULES = {}


def feedback_page(rehearsal, student):
    return os.path.join(rehearsal["course_data"], "feedback", student, ASSIGNMENT,
                        NOTEBOOK + ".html")


def report_page(rehearsal):
    return os.path.join(rehearsal["course_data"], "reports", ASSIGNMENT + ".html")


def read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def graded_cells_of_the_notebook():
    """[(grade_id, its title on the page, points, graded by hand)] of each graded cell, in
    order: a check is titled by its docstring's first line, an answer a person grades (the
    explain cell) by its grade id."""
    found = []
    for cell in read_notebook("solutions", ASSIGNMENT)["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell["cell_type"] == "code" and meta.get("grade") and not meta.get("solution"):
            docstring = re.match(r'\s*"""(.*?)"""', cell_source(cell), re.S).group(1)
            found.append((meta["grade_id"], docstring.strip().splitlines()[0].strip(),
                          float(meta["points"]), False))
        elif meta.get("grade") and meta.get("solution"):
            found.append((meta["grade_id"], f"Your answer ({meta['grade_id']}), graded by hand",
                          float(meta["points"]), True))
    return found


def recorded(rehearsal, student):
    """{grade_id: (points, status, message)} of `student` in the grader's report."""
    path = os.path.join(rehearsal["course_data"], "reports", ASSIGNMENT + ".csv")
    with open(path, encoding="utf-8") as handle:
        return {r["grade_id"]: (float(r["points"]), r["status"], r["message"])
                for r in csv.DictReader(handle) if r["student"] == student and r["grade_id"]}


def test_the_rehearsal_wrote_every_page(rehearsal):
    run = rehearsal["run"]
    assert run.returncode == 0, (run.stdout + run.stderr)[-4000:]
    for student in STUDENTS:
        assert os.path.isfile(feedback_page(rehearsal, student)), student
    assert os.path.isfile(report_page(rehearsal))


def test_a_partial_students_summary_names_each_check_its_points_and_why(rehearsal):
    page = read(feedback_page(rehearsal, PARTIAL))
    shown = [(outcome, anchor, html.unescape(title), html.unescape(message or ""), points)
             for outcome, anchor, title, message, points in ROW.findall(page)]
    grades = recorded(rehearsal, PARTIAL)
    expected, by_hand = [], []
    for grade_id, title, points, manual in graded_cells_of_the_notebook():
        if manual:  # nobody has graded it yet: neither missed nor 0
            expected.append(("not_graded", f"check-{grade_id}", title, "", f"– / {points:g}"))
            by_hand.append(points)
            continue
        earned, status, message = grades[grade_id]
        hint = message.splitlines()[0].removeprefix("AssertionError: ") if message else ""
        expected.append(("passed" if status == "passed" else "missed", f"check-{grade_id}",
                         title, "" if status == "passed" else hint,
                         f"{earned:g} / {points:g}"))
    assert shown == expected
    assert len(by_hand) == 1, "parameters asks one explain question"
    assert f'<p class="grading-note">{sum(by_hand):g} of these points\nare not graded yet' in page
    outcomes = [row[0] for row in shown]
    assert "passed" in outcomes and "missed" in outcomes  # a partial submission
    assert ("missed", "check-model_size_mib_any_model",
            "Check that model_size_mib gives the float32 size in MiB of any model, shared "
            "tensors once.", "model_size_mib is not answered yet", "0 / 1") in shown
    for _, anchor, _, _, _ in shown:  # each row links to its cell on the page
        assert page.count(f'id="{anchor}"') == 1, anchor
    score = sum(points for points, _, _ in grades.values())
    most = sum(points for _, _, points, _ in graded_cells_of_the_notebook())
    assert most == 12, "10 points of checks and 2 of the explain question"
    assert f"Score: <strong>{score:g}</strong> of {most:g} points." in page
    assert f"<title>Feedback: {NOTEBOOK}.ipynb, {ASSIGNMENT}, {PARTIAL}</title>" in page


def test_no_feedback_page_holds_hidden_test_code(rehearsal):
    lines = hidden_test_lines(ASSIGNMENT)
    assert len(lines) > 10, "the assignment has hidden tests"
    for student in STUDENTS:
        page = read(feedback_page(rehearsal, student))
        assert "Check that count_parameters counts" in page  # the docstrings are there
        assert "BEGIN HIDDEN TESTS" not in page
        for line in lines:
            assert html.escape(line) not in page and line not in page, (student, line)


def test_the_pages_name_nothing_on_another_host(rehearsal):
    for path in [feedback_page(rehearsal, s) for s in STUDENTS] + [report_page(rehearsal)]:
        page = read(path)
        assert re.findall(r"https?://", page) == [], path
        assert "<script" not in page and "<link" not in page, path


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("which", ["feedback", "report"])
def test_the_page_has_no_wcag_violation(rehearsal, browser, which, theme, size):
    """axe-core finds no WCAG 2.1 A or AA violation; nothing is wider than the screen and
    nothing is fetched but the file itself."""
    path = feedback_page(rehearsal, PARTIAL) if which == "feedback" else report_page(rehearsal)
    page = browser.new_page()
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    try:
        page.set_viewport_size(SIZES[size])
        page.emulate_media(color_scheme=theme)
        page.goto(Path(path).as_uri(), wait_until="load")
        violations = axe_violations(page, DISABLED_RULES)
        width = page.evaluate("document.documentElement.scrollWidth")
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        if (theme, size) in (("light", "desktop"), ("dark", "phone")):
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / f"{which}-{theme}-{size}.png"), full_page=True)
    finally:
        page.close()
    assert violations == [], f"{which} page, {theme}, {size}:\n{violations_report(violations)}"
    assert width <= SIZES[size]["width"], f"{which} page is {width} px wide at {size} width"
    assert [url for url in requested if not url.startswith(("file:", "data:"))] == []
    if which == "feedback":  # the page follows the reader's light or dark setting
        assert background == {"light": "rgb(255, 255, 255)", "dark": "rgb(13, 17, 23)"}[theme]
