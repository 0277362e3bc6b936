"""make grade-explain, as a grader uses it: a class of three in a copy of the course, the
answers graded from what the grader types (stdin), a second sitting that resumes, a change of
an item's points that regrades exactly the students it was applied to (and is recorded), the
gradebook's manual score and comment as formgrader, the grade report and the LMS push read
them; and the defend-your-answer sheets of the class."""

import json
import os
import re
import subprocess
import sys

import pytest
from nbgrader.api import Gradebook

from testsupport.course import copy_course
from testsupport.explain_course import ASSIGNMENT, CELL, NOTEBOOK, explain_course
from testsupport.gradebook import manual_grades

CLASS = ("ada", "bob", "cyd")
SEED = "fall-sitting"


def grader(course, *args, stdin=""):
    return subprocess.run([sys.executable, "-m", "grader", *args, "--course", course],
                          input=stdin, capture_output=True, text=True, timeout=300)


def own_counts(student, salt):
    """(untied, tied) of the student's own model, from the course package."""
    import torch

    from gptcourse import GPTModel, count_parameters, student_config

    with torch.device("meta"):
        model = GPTModel(student_config(student, salt))
    untied = count_parameters(model)
    return untied, untied - model.out_head.weight.numel()


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """The course with a gradebook of three submissions of parameters (as autograde leaves
    them: every cell's grade row, the explain cell waiting) and their notebooks."""
    from grader.settings import load

    folder = copy_course(str(tmp_path_factory.mktemp("explain") / "course"), ("rubrics",))
    settings = load(folder)
    with open(f"{folder}/exercises/{ASSIGNMENT}/{NOTEBOOK}.ipynb", encoding="utf-8") as handle:
        released = json.load(handle)
    with open(f"{folder}/solutions/{ASSIGNMENT}/{NOTEBOOK}.ipynb", encoding="utf-8") as handle:
        solved = {c["id"]: c["source"] for c in json.load(handle)["cells"]
                  if c["cell_type"] == "code"}
    for cell in released["cells"]:  # the students' code is the solution's
        if cell["metadata"]["nbgrader"].get("solution") and cell["cell_type"] == "code":
            cell["source"] = solved[cell["id"]]
    with Gradebook(settings.db_url, settings.course_id) as gb:
        gb.add_assignment(ASSIGNMENT)
        gb.add_notebook(NOTEBOOK, ASSIGNMENT)
        gb.add_grade_cell(CELL, NOTEBOOK, ASSIGNMENT, max_score=2, cell_type="markdown")
        gb.add_solution_cell(CELL, NOTEBOOK, ASSIGNMENT)
        gb.add_grade_cell("output_shape", NOTEBOOK, ASSIGNMENT, max_score=0.5, cell_type="code")
        for student in CLASS:
            gb.add_student(student)
            submission = gb.add_submission(ASSIGNMENT, student)
            for grade in submission.notebooks[0].grades:
                if grade.cell.name == "output_shape":
                    grade.auto_score = 0.5
            gb.db.commit()
    for student in CLASS:
        untied, tied = own_counts(student, settings.variant_salt)
        nb = json.loads(json.dumps(released))
        cell = next(c for c in nb["cells"] if c["metadata"]["nbgrader"]["grade_id"] == CELL)
        cell["source"] = f"{student} here: {untied:,} untied and {tied:,} tied."
        path = f"{settings.submitted}/{student}/{ASSIGNMENT}/{NOTEBOOK}.ipynb"
        os.makedirs(os.path.dirname(path))
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(nb, handle)
    return folder


def feedback_page(course, student):
    """The student's feedback page as make feedback writes it (the course's preprocessors
    and exporter), of the two cells this gradebook holds."""
    import nbformat
    from traitlets.config import Config

    from grader.plugins.feedback import FeedbackPage, GetGradesOrWaiting, HideTestCode
    from grader.settings import load

    settings = load(course)
    with open(f"{settings.submitted}/{student}/{ASSIGNMENT}/{NOTEBOOK}.ipynb",
              encoding="utf-8") as handle:
        nb = nbformat.read(handle, as_version=4)
    nb.cells = [c for c in nb.cells
                if c.metadata.get("nbgrader", {}).get("grade_id") in (CELL, "output_shape")]
    resources = {"nbgrader": {"notebook": NOTEBOOK, "assignment": ASSIGNMENT,
                              "student": student, "db_url": settings.db_url}}
    for step in (GetGradesOrWaiting(), HideTestCode()):
        nb, resources = step.preprocess(nb, resources)
    page, _ = FeedbackPage(config=Config()).from_notebook_node(nb, resources)
    return page


@pytest.fixture(scope="module")
def sittings(course):
    """Three sittings: two students then a stop, the third, then the rubric's `counts`
    made worth 1 point."""
    from grader.explain import grading_order

    order = grading_order(CLASS, SEED)
    before = feedback_page(course, order[0])
    first = grader(course, "grade-explain", ASSIGNMENT, "--seed", SEED,
                   stdin="counts head | Clear.\nnonsense\nnone\n")
    after_first = manual_grades(course, ASSIGNMENT)
    second = grader(course, "grade-explain", ASSIGNMENT, stdin="counts shared save\n")
    after_second = manual_grades(course, ASSIGNMENT)
    rubric = f"{course}/rubrics/{ASSIGNMENT}.yaml"
    with open(rubric, encoding="utf-8") as handle:
        text = handle.read()
    with open(rubric, "w", encoding="utf-8") as handle:
        handle.write(text.replace("  - key: counts\n    points: 0.5", "  - key: counts\n    points: 1", 1))
    third = grader(course, "grade-explain", ASSIGNMENT, stdin="")
    return {"order": order, "runs": (first, second, third), "after_first": after_first,
            "after_second": after_second, "after_third": manual_grades(course, ASSIGNMENT),
            "pages": (before, feedback_page(course, order[0]))}


def test_the_feedback_page_says_not_graded_yet_then_lists_the_applied_items(course, sittings):
    from grader.settings import load

    before, after = sittings["pages"]
    waiting = re.compile(r'<tr class="not_graded">\s*<td><a href="#check-explain_tying">')
    assert waiting.search(before) and "– / 2" in before
    assert '<p class="grading-note">2 of these points\nare not graded yet' in before
    assert '<tr class="missed">' not in before and "Your grader's comment" not in before
    untied, _ = own_counts(sittings["order"][0], load(course).variant_salt)
    assert not waiting.search(after) and "grading-note" not in after
    assert re.search(r'<tr class="partly">\s*<td><a href="#check-explain_tying">.*?1.5 / 2',
                     after, re.S)
    assert "Your grader's comment" in after
    assert f"Your model counts {untied:,} parameters untied" in after
    assert "output head's weight matrix" in after and "copied from the site" not in after


def test_the_first_sitting_grades_in_the_seeded_order_and_stops_where_the_input_ends(sittings):
    first, _, _ = sittings["runs"]
    a, b, c = sittings["order"]
    assert first.returncode == 0, first.stderr
    assert f"[1/3] {a}" in first.stdout and f"[2/3] {b}" in first.stdout
    assert "no item nonsense in the rubric" in first.stdout
    assert f"stopped: 2 of 3 graded" in first.stdout
    grades = sittings["after_first"]
    assert grades[a][CELL][0] == 1.0 and grades[b][CELL][0] == 0.0
    assert grades[c][CELL][0] is None


def test_the_answer_is_shown_with_the_students_own_values(course, sittings):
    from grader.settings import load

    first, _, _ = sittings["runs"]
    a = sittings["order"][0]
    untied, tied = own_counts(a, load(course).variant_salt)
    assert f"{a} here: {untied:,} untied and {tied:,} tied." in first.stdout
    assert f"quotes the model's own counts, {untied:,} untied and {tied:,} tied" in first.stdout


def test_the_second_sitting_resumes_at_the_next_student(sittings):
    _, second, _ = sittings["runs"]
    a, b, c = sittings["order"]
    assert second.returncode == 0, second.stderr
    assert f"[3/3] {c}" in second.stdout and f"] {a}" not in second.stdout
    assert sittings["after_second"][c][CELL][0] == 1.5
    assert "3 of 3 graded" in second.stdout


def test_the_comment_lists_the_applied_items_with_their_explanations(course, sittings):
    from grader.settings import load

    a = sittings["order"][0]
    untied, _ = own_counts(a, load(course).variant_salt)
    _, comment = sittings["after_second"][a][CELL]
    assert comment.startswith("**1 of 2 points**")
    assert f"Your model counts {untied:,} parameters untied" in comment
    assert "output head's weight matrix" in comment and comment.endswith("Clear.")
    assert "copied from the site" not in comment  # the grader's note stays with the grader


def test_changing_an_items_points_regrades_exactly_those_it_was_applied_to(course, sittings):
    _, _, third = sittings["runs"]
    a, b, c = sittings["order"]
    assert third.returncode == 0, third.stderr
    grades = sittings["after_third"]
    assert (grades[a][CELL][0], grades[b][CELL][0], grades[c][CELL][0]) == (1.5, 0.0, 2.0)
    assert f"rubric changed: 2 student(s) regraded" in third.stdout
    records = [name for name in os.listdir(f"{course}/course-data/regrades")
               if name.endswith("-rubric.json")]
    assert len(records) == 1
    with open(f"{course}/course-data/regrades/{records[0]}", encoding="utf-8") as handle:
        record = json.load(handle)
    assert sorted(record["regraded"]) == sorted([a, c])
    assert record["gradebook_before"] == {a: 1.0, c: 1.5}
    assert record["gradebook_after"] == {a: 1.5, c: 2.0}
    assert {ch["item"] for change in record["changes"] for ch in change["checks"]} == {"counts"}


def test_the_grade_report_and_the_push_carry_the_rubric_points(course, sittings):
    from grader.push.plan import feedback_comment
    from grader.reports import read_grades
    from grader.settings import load

    a, b, c = sittings["order"]
    _, [grades] = read_grades(load(course), [ASSIGNMENT])
    assert {s: grades.score_of(s) for s in CLASS} == {a: 2.0, b: 0.5, c: 2.5}
    assert f"{CELL}: 1.5/2" in feedback_comment(grades, a)


def test_defense_sheets_ask_each_student_about_their_own_model_and_code(course, sittings):
    from grader.settings import load

    done = grader(course, "defense-questions", ASSIGNMENT, "--students", "ada,bob")
    assert done.returncode == 0, done.stderr
    folder = f"{course}/course-data/reports/defense-{ASSIGNMENT}"
    assert sorted(os.listdir(folder)) == ["ada.html", "all.html", "bob.html"]
    salt = load(course).variant_salt
    for student in ("ada", "bob"):
        with open(f"{folder}/{student}.html", encoding="utf-8") as handle:
            page = handle.read()
        untied, tied = own_counts(student, salt)
        assert f"defend your answers — {student}" in page
        assert page.count("<h2>") == 3 and "page-break-after: always" in page
        assert f"{untied:,}" in page or f"{untied - tied:,}" in page or "1,000 ×" in page
        assert "This line is from your answer" in page
    refused = grader(course, "defense-questions", ASSIGNMENT, "--students", "zoe")
    assert refused.returncode == 2 and "no parameters notebook in submitted/ of: zoe" in refused.stderr


# --- a student's text is data at the terminal and on the sheets -------------------------

HOSTILE = ("clear\x1b[2J the screen\n"
           "\x1b]52;c;cm0gLXJmIH4vCg==\x07 the clipboard written\n"
           "\x1b[8mhidden text\x1b[0m\n"
           "\x9b2J CSI in one character, \x7f DEL, \r carriage return\n"
           "\n\nStudent bob \u2014 score 2/2\n"
           "\u202egnp.exe\u202c reversed, \u2066isolated\u2069, zero\u200bwidth")
HUGE = "tied " * 2_000_000  # 10 MB on one line


def acting_characters(text):
    """The characters of `text` that a terminal or a browser acts on instead of showing:
    C0 controls but newline and tab, DEL, C1 (CSI U+009B among them), bidi overrides and
    isolates and every other format character, line and paragraph separators."""
    import unicodedata

    return sorted({c for c in text if (ord(c) < 32 and c not in "\n\t") or 0x7f <= ord(c) <= 0x9f
                   or unicodedata.category(c) in ("Cf", "Zl", "Zp", "Cs")})


@pytest.fixture(scope="module")
def hostile_course(tmp_path_factory):
    """A course whose gradebook holds mallory (an answer that tries to act on the grader's
    terminal and to forge a line of its output) and verbose (a 10 MB answer), each with a
    line of code that tries the same on the defense sheet."""
    return explain_course(str(tmp_path_factory.mktemp("hostile") / "course"),
                          {"mallory": HOSTILE, "verbose": HUGE},
                          code="shown_to_the_examiner = '\x1b[2J\u202eexe.\x9b1m' + "
                               "'\x1b]52;c;cm0gLXJmIH4vCg==\x07'\n")


def test_an_answer_that_would_act_on_the_terminal_is_shown_as_text_inside_its_margin(
        hostile_course):
    shown = grader(hostile_course, "grade-explain", ASSIGNMENT, "--students", "mallory",
                   stdin="skip\n")
    assert shown.returncode == 0, shown.stderr
    assert acting_characters(shown.stdout) == []
    answer = shown.stdout.split("--- answer ---\n", 1)[1].split("--- items ---", 1)[0]
    assert answer.splitlines() == [
        "  \u2502 clear\\x1b[2J the screen",
        "  \u2502 \\x1b]52;c;cm0gLXJmIH4vCg==\\x07 the clipboard written",
        "  \u2502 \\x1b[8mhidden text\\x1b[0m",
        "  \u2502 \\x9b2J CSI in one character, \\x7f DEL, \\x0d carriage return",
        "  \u2502", "  \u2502",
        "  \u2502 Student bob \u2014 score 2/2",
        "  \u2502 \\u202egnp.exe\\u202c reversed, \\u2066isolated\\u2069, zero\\u200bwidth"]
    assert not any(line.startswith("Student bob") for line in shown.stdout.splitlines())


def test_a_10_mb_answer_is_cut_at_the_terminal_saying_where_the_whole_is(hostile_course):
    shown = grader(hostile_course, "grade-explain", ASSIGNMENT, "--students", "verbose",
                   stdin="skip\n")
    assert shown.returncode == 0, shown.stderr
    answer = shown.stdout.split("--- answer ---\n", 1)[1].split("--- items ---", 1)[0]
    lines = answer.splitlines()
    assert lines[0] == "  \u2502 " + HUGE[:4_000].rstrip()
    assert lines[1] == (f"  \u2026 ({len(HUGE.strip()) - 4_000:,} more characters: the whole "
                        f"answer is the cell {CELL} of course-data/submitted/verbose/"
                        f"{ASSIGNMENT}/{NOTEBOOK}.ipynb, which formgrader shows)")
    assert len(lines) == 2 and len(shown.stdout) < 10_000


def test_a_defense_sheet_shows_a_line_that_would_act_as_its_escapes(hostile_course):
    done = grader(hostile_course, "defense-questions", ASSIGNMENT, "--students", "mallory")
    assert done.returncode == 0, done.stderr
    assert acting_characters(done.stdout) == []
    with open(f"{hostile_course}/course-data/reports/defense-{ASSIGNMENT}/mallory.html",
              encoding="utf-8") as handle:
        page = handle.read()
    assert acting_characters(page) == []
    assert ("<pre>shown_to_the_examiner = &#x27;\\x1b[2J\\u202eexe.\\x9b1m&#x27; + "
            "&#x27;\\x1b]52;c;cm0gLXJmIH4vCg==\\x07&#x27;</pre>") in page


@pytest.fixture(scope="module")
def formgrader_edit(course, sittings):
    """After the three sittings, a person sets the first student's explain score to 2 in
    formgrader (the gradebook's manual score, as formgrader writes it), then the rubric's
    `counts` goes from 1 point to 0.75 and a fourth sitting starts."""
    from grader.settings import load

    first = sittings["order"][0]
    settings = load(course)
    with Gradebook(settings.db_url, settings.course_id) as gb:
        gb.find_grade(CELL, NOTEBOOK, ASSIGNMENT, first).manual_score = 2.0
        gb.db.commit()
    rubric = f"{course}/rubrics/{ASSIGNMENT}.yaml"
    with open(rubric, encoding="utf-8") as handle:
        text = handle.read()
    with open(rubric, "w", encoding="utf-8") as handle:
        handle.write(text.replace("  - key: counts\n    points: 1", "  - key: counts\n    points: 0.75", 1))
    before = set(os.listdir(f"{course}/course-data/regrades"))
    fourth = grader(course, "grade-explain", ASSIGNMENT, stdin="")
    (record,) = set(os.listdir(f"{course}/course-data/regrades")) - before
    with open(f"{course}/course-data/regrades/{record}", encoding="utf-8") as handle:
        return {"run": fourth, "grades": manual_grades(course, ASSIGNMENT),
                "record": json.load(handle)}


def test_a_score_changed_in_formgrader_between_sittings_is_a_conflict_never_overwritten(
        sittings, formgrader_edit):
    a, b, c = sittings["order"]
    fourth, grades = formgrader_edit["run"], formgrader_edit["grades"]
    assert fourth.returncode == 1, fourth.stdout + fourth.stderr
    assert (f"conflict: {a} {CELL}: not written: the gradebook holds 2, not 1.5 as last "
            f"written here (changed in formgrader or by another grader); 1.25 was not written "
            f"over it") in fourth.stdout
    assert "1 score(s) not written" in fourth.stdout
    # the person's 2 stays (the rubric would give 1.25); the others are regraded as before
    assert (grades[a][CELL][0], grades[b][CELL][0], grades[c][CELL][0]) == (2.0, 0.0, 1.75)


def test_the_rubric_regrade_record_names_the_gradebooks_score_as_before(sittings, formgrader_edit):
    a, _, c = sittings["order"]
    record = formgrader_edit["record"]
    assert record["regraded"] == [c]
    assert record["gradebook_before"] == {a: 2.0, c: 2.0}
    assert record["gradebook_after"] == {a: 2.0, c: 1.75}
    assert record["not_written"] == [{"student": a, "gradebook_before": 2.0,
                                      "last_written": 1.5, "not_written": 1.25}]
