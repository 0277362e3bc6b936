"""A class on a real JupyterHub, driven in headless Chromium, from release to feedback.

The hub runs deploy/ (docs/jupyterhub.md) with real Unix accounts: four
students and a grader. In the browser each student logs in, opens the
Assignments tab, fetches every assignment (the folders of solutions/), answers in
the notebook (alice everything, bob part, carol everything but after the due date,
dave nothing), validates and submits. The grader, in ~/gptcourse as on the
hub's terminal, releases, collects, grades with `make autograde` (the sandbox),
writes and releases feedback; formgrader's Autograde button and `nbgrader
autograde` refuse. Each student then fetches feedback in the browser.
Every step leaves a screenshot in _build/hub-screenshots/.
"""

import datetime
import glob
import json
import os

import pytest

from testsupport.assignments import ASSIGNMENTS
from testsupport.course import assignments, solution_answers
from testsupport.hub import GRADER, PASSWORD, ROOT, STUDENTS, Hub

NOTEBOOKS = assignments()
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]
SCREENSHOTS = os.path.join(ROOT, "_build", "hub-screenshots")
ALICE, BOB, CAROL, DAVE = STUDENTS
# what each student writes: every answer, some, every answer but late, none
WORK = {ALICE: "correct", BOB: "partial", CAROL: "correct", DAVE: "untouched"}
# the points the checks give; carol's late work then loses them all (the course's
# nbgrader_config.py: LateSubmissionPlugin.penalty_method = "zero")
EXPECTED = {ALICE: {name: row.max_score for name, row in ASSIGNMENTS.items()},
            BOB: {name: row.partial_score for name, row in ASSIGNMENTS.items()},
            CAROL: {name: row.max_score for name, row in ASSIGNMENTS.items()},
            DAVE: {name: 0.0 for name in ASSIGNMENTS}}
AFTER_PENALTY = {**EXPECTED, CAROL: {name: 0.0 for name in ASSIGNMENTS}}
# bounded waits for one step in the browser; a kernel run (Validate) builds the 124M model
PAGE = 60_000
LAB = 180_000
VALIDATE = 240_000


def explain_answers(assignment):
    """{grade_id: the instructor's model answer} of the explain cell, a markdown answer."""
    path = os.path.join(ROOT, "solutions", assignment, NOTEBOOKS[assignment] + ".ipynb")
    with open(path, encoding="utf-8") as handle:
        cells = json.load(handle)["cells"]
    return {c["metadata"]["nbgrader"]["grade_id"]: "".join(c["source"]) for c in cells
            if c["cell_type"] == "markdown" and c["metadata"].get("nbgrader", {}).get("solution")}


def answers_for(student, assignment):
    answers = {**solution_answers(assignment), **explain_answers(assignment)}
    kind = WORK[student]
    if kind == "partial":
        return {k: answers[k] for k in ASSIGNMENTS[assignment].partial}
    return answers if kind == "correct" else {}


def answer_cell_indexes(assignment):
    """{grade_id: index} of the answer cells in the student's notebook."""
    path = os.path.join(ROOT, "exercises", assignment, NOTEBOOKS[assignment] + ".ipynb")
    with open(path, encoding="utf-8") as handle:
        cells = json.load(handle)["cells"]
    return {c["metadata"]["nbgrader"]["grade_id"]: i for i, c in enumerate(cells)
            if c["metadata"].get("nbgrader", {}).get("solution")}


class Screens:
    """Numbered screenshots of every step, one folder per run."""

    def __init__(self):
        os.makedirs(SCREENSHOTS, exist_ok=True)
        for old in glob.glob(os.path.join(SCREENSHOTS, "*")):
            os.remove(old)
        self.count = 0

    def take(self, page, name):
        self.count += 1
        path = os.path.join(SCREENSHOTS, f"{self.count:02d}-{name}.png")
        page.screenshot(path=path, full_page=False)
        return path

    def failed(self, page, who):
        """A screenshot and the page's HTML where a step failed."""
        path = self.take(page, f"{who}-FAILED")
        with open(path[:-4] + ".html", "w", encoding="utf-8") as handle:
            handle.write(page.content())


def log_in(browser, hub, user, screens):
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(PAGE)
    page = context.new_page()
    page.goto(hub.url + "/hub/login")
    page.fill("#username_input", user)
    page.fill("#password_input", PASSWORD)
    screens.take(page, f"{user}-login")
    page.click("#login_submit")
    expect(page.locator("#jp-main-dock-panel")).to_be_visible(timeout=LAB)
    expect(page.get_by_text("Nbgrader", exact=True)).to_be_visible(timeout=LAB)
    return context, page


def nbgrader_menu(page):
    """Open the Nbgrader menu; the labels of its items."""
    from playwright.sync_api import expect

    page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").click()
    menu = page.locator(".lm-Menu")
    expect(menu).to_be_visible(timeout=PAGE)
    return [item for item in menu.locator(".lm-Menu-itemLabel").all_inner_texts() if item]


def open_assignments(page):
    """Nbgrader -> Assignment List; the menu's items and the Assignments panel."""
    from playwright.sync_api import expect

    items = nbgrader_menu(page)
    page.locator(".lm-Menu-itemLabel", has_text="Assignment List").click()
    panel = page.locator("#assignments")
    expect(panel).to_be_visible(timeout=PAGE)
    expect(page.locator("#released_assignments_list_loading")).to_be_hidden(timeout=PAGE)
    return items, panel


def fetched_item(assignments, assignment):
    return assignments.locator("#fetched_assignments_list > .list_item").filter(
        has_text=assignment).first


def expand(item):
    """Show a downloaded assignment's notebooks in the Assignments panel."""
    from playwright.sync_api import expect

    notebooks = item.locator(".nested_list_item").first
    if not notebooks.is_visible():  # one assignment is open at a time (an accordion)
        item.locator(".assignment-notebooks-link").click()
    expect(notebooks).to_be_visible(timeout=PAGE)


def back_to_assignments(page):
    page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab", has_text="Assignments").click()


def write_answers(page, assignments, student, assignment):
    """Open the notebook from the Assignments panel, type the answers, save."""
    from playwright.sync_api import expect

    item = fetched_item(assignments, assignment)
    expand(item)
    item.locator(".nested_list_item .item_name a").click()
    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    cells = panel.locator(".jp-Notebook .jp-Cell")
    indexes = answer_cell_indexes(assignment)
    expect(cells.nth(max(indexes.values()))).to_be_visible(timeout=LAB)
    # the kernel's first answer updates the notebook's metadata: type once it is idle
    expect(page.locator("#jp-main-statusbar")).to_contain_text("Idle", timeout=LAB)
    explain = explain_answers(assignment)
    for grade_id, source in answers_for(student, assignment).items():
        if grade_id in explain:  # a rendered markdown answer: its editor opens on a double click
            cells.nth(indexes[grade_id]).dblclick()
        cells.nth(indexes[grade_id]).locator(".cm-content").click()
        page.keyboard.press("Control+a")
        page.keyboard.insert_text(source)
    page.keyboard.press("Escape")
    page.keyboard.press("Control+s")
    dirty = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current.jp-mod-dirty")
    expect(dirty).to_have_count(0, timeout=PAGE)


def validate(page, assignments, assignment, screens, student):
    """Validate the downloaded notebook from the Assignments panel; the dialog's text."""
    from playwright.sync_api import expect

    item = fetched_item(assignments, assignment)
    expand(item)
    item.get_by_role("button", name="Validate").click()
    dialog = page.locator(".jp-Dialog")
    expect(dialog).to_be_visible(timeout=VALIDATE)
    text = dialog.inner_text()
    screens.take(page, f"{student}-{assignment}-validated")
    dialog.get_by_role("button").last.click()
    expect(dialog).to_be_hidden(timeout=PAGE)
    return text


def student_works(browser, hub, student, screens, validations, late_hook=None):
    """Log in, fetch both assignments, answer, validate, submit, in the browser.

    The student's browser stays open, on the Assignments tab, for their feedback.
    """
    from playwright.sync_api import expect

    context, page = log_in(browser, hub, student, screens)
    try:
        validations[student + "-menu"], assignments = open_assignments(page)
        screens.take(page, f"{student}-assignments")
        for assignment in NOTEBOOKS:
            released = assignments.locator("#released_assignments_list > .list_item").filter(
                has_text=assignment)
            released.get_by_role("button", name="Fetch").click()
            expect(fetched_item(assignments, assignment)).to_be_visible(timeout=PAGE)
        screens.take(page, f"{student}-fetched")
        for assignment in NOTEBOOKS:
            if answers_for(student, assignment):
                write_answers(page, assignments, student, assignment)
                screens.take(page, f"{student}-{assignment}-answered")
                back_to_assignments(page)
        for assignment in NOTEBOOKS:
            if (student, assignment) in VALIDATED:
                validations[(student, assignment)] = validate(page, assignments, assignment,
                                                              screens, student)
        if late_hook:
            late_hook()
        for assignment in NOTEBOOKS:
            fetched_item(assignments, assignment).get_by_role("button", name="Submit").click()
            submitted = assignments.locator("#submitted_assignments_list > .list_item").filter(
                has_text=assignment)
            expect(submitted.first).to_be_visible(timeout=PAGE)
        screens.take(page, f"{student}-submitted")
        return context, page, assignments
    except Exception:
        screens.failed(page, student)
        context.close()
        raise


# who validates what: a passing notebook of every assignment, a failing one of the last
# assignment, an untouched one of the first
FIRST, LAST = list(NOTEBOOKS)[0], list(NOTEBOOKS)[-1]
VALIDATED = {*((ALICE, assignment) for assignment in NOTEBOOKS), (BOB, LAST), (DAVE, FIRST)}


def gradebook(hub):
    """{(student, assignment): (score, seconds late, late penalty)} from the gradebook."""
    script = ("import json\nfrom nbgrader.api import Gradebook\n"
              "out = {}\n"
              "with Gradebook('sqlite:///course-data/gradebook.db') as gb:\n"
              "    for a in [assignment.name for assignment in gb.assignments]:\n"
              "        for s in gb.assignment_submissions(a):\n"
              "            out[s.student.id + '/' + a] = [s.score, s.total_seconds_late,\n"
              "                                           s.late_submission_penalty]\n"
              "print(json.dumps(out))\n")
    result = hub.as_grader("python", "-c", script)
    return {tuple(k.split("/")): tuple(v) for k, v in json.loads(result.stdout).items()}


def autograde_button(browser, hub, screens):
    """formgrader's Autograde button for bob's `parameters`: the dialog's text."""
    from playwright.sync_api import expect

    context, page = log_in(browser, hub, GRADER, screens)
    try:
        menu = nbgrader_menu(page)
        page.keyboard.press("Escape")
        page.goto(f"{hub.url}/user/{GRADER}/formgrader/manage_submissions/parameters")
        row = page.locator("tr").filter(has_text=BOB)
        expect(row).to_be_visible(timeout=PAGE)
        screens.take(page, "grader-formgrader-submissions")
        row.locator(".autograde a").click()
        modal = page.locator("#error-modal, #success-modal")
        expect(modal).to_be_visible(timeout=VALIDATE)
        expect(modal).to_have_css("opacity", "1", timeout=PAGE)  # the dialog has faded in
        text = modal.inner_text()
        screens.take(page, "grader-autograde-button")
        return {"menu": menu, "modal": text, "modal_id": modal.get_attribute("id")}
    except Exception:
        screens.failed(page, GRADER)
        raise
    finally:
        context.close()


def fetch_feedback(session, hub, student, screens):
    """Fetch Feedback in the student's Assignments tab; the pages now in their home."""
    from playwright.sync_api import expect

    context, page, assignments = session
    try:
        assignments.locator("#refresh_assignments_list").click()
        expect(page.locator("#submitted_assignments_list_loading")).to_be_hidden(timeout=PAGE)
        pages = {}
        home = hub.accounts[student].pw_dir
        for assignment in NOTEBOOKS:
            item = assignments.locator("#submitted_assignments_list > .list_item").filter(
                has_text=assignment).first
            item.get_by_role("button", name="Fetch Feedback").click()
            expect(item.get_by_text("view feedback")).to_be_visible(timeout=PAGE)
            pages[assignment] = glob.glob(os.path.join(home, assignment, "feedback", "*",
                                                       "*.html"))
        screens.take(page, f"{student}-feedback-fetched")
        for assignment, found in pages.items():
            feedback = context.new_page()
            feedback.goto(f"{hub.url}/user/{student}/files/{os.path.relpath(found[0], home)}")
            expect(feedback.get_by_text("Score:").first).to_be_visible(timeout=PAGE)
            screens.take(feedback, f"{student}-{assignment}-feedback")
        return pages
    except Exception:
        screens.failed(page, student)
        raise
    finally:
        context.close()


@pytest.fixture(scope="module")
def class_on_hub():
    if os.geteuid() != 0:
        pytest.fail("the JupyterHub test makes Unix accounts and starts servers as them: "
                    "it runs as root (make test on the course's CI machine does)")
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: `make system` installs Debian's chromium")
    from playwright.sync_api import sync_playwright

    hub = Hub()
    screens = Screens()
    found = {"validations": {}}
    try:
        hub.start()
        hub.as_grader("make", "release")
        hub.as_grader("make", "release-to-exchange")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                                 args=CHROMIUM_FLAGS)
            sessions = {}
            try:
                due = {}

                def set_due_date():  # the deadline passes just before carol hands in
                    due["at"] = datetime.datetime.now(datetime.timezone.utc)
                    stamp = due["at"].strftime("%Y-%m-%d %H:%M:%S UTC")
                    for assignment in NOTEBOOKS:
                        hub.as_grader("nbgrader", "db", "assignment", "add", assignment,
                                      "--duedate", stamp)

                for student in (ALICE, BOB, DAVE, CAROL):
                    sessions[student] = student_works(
                        browser, hub, student, screens, found["validations"],
                        late_hook=set_due_date if student == CAROL else None)
                found["collect"] = hub.as_grader("make", "collect")
                found["autograde"] = hub.as_grader("make", "autograde", "JOBS=2",
                                                   timeout=1200)
                found["grades"] = gradebook(hub)
                found["button"] = autograde_button(browser, hub, screens)
                found["grades_after_button"] = gradebook(hub)
                found["cli"] = hub.as_grader("nbgrader", "autograde", LAST,
                                             "--student", BOB, check=False)
                found["grades_after_cli"] = gradebook(hub)
                found["feedback"] = hub.as_grader("make", "feedback")
                found["release_feedback"] = hub.as_grader("make", "release-feedback")
                found["fetched_feedback"] = {
                    student: fetch_feedback(sessions.pop(student), hub, student, screens)
                    for student in STUDENTS}
                found["exchange"] = sorted(
                    os.path.relpath(os.path.join(d, f), hub.exchange)
                    for d, _, files in os.walk(hub.exchange) for f in files)
                found["course_exchange"] = os.path.exists(
                    os.path.join(hub.course, "course-data", "exchange"))
                found["feedback_texts"] = {
                    (student, assignment): [open(p, encoding="utf-8").read() for p in paths]
                    for student, by in found["fetched_feedback"].items()
                    for assignment, paths in by.items()}
            finally:
                for context, _, _ in sessions.values():
                    context.close()
                browser.close()
        yield found
    finally:
        hub.stop()


def test_students_see_the_assignments_tab_and_no_grading_tools(class_on_hub):
    for student in STUDENTS:
        assert class_on_hub["validations"][student + "-menu"] == ["Assignment List"]
    assert "Formgrader" in class_on_hub["button"]["menu"]


def test_release_on_the_hub_goes_to_the_shared_exchange(class_on_hub):
    files = class_on_hub["exchange"]
    for assignment, notebook in NOTEBOOKS.items():
        assert f"gptcourse/outbound/{assignment}/{notebook}.ipynb" in files
    assert not class_on_hub["course_exchange"], "the course's own exchange was used"


def test_validate_passes_a_correct_notebook_and_names_failures(class_on_hub):
    texts = class_on_hub["validations"]
    for assignment in NOTEBOOKS:
        assert "Success! Your notebook passes all the tests." in texts[(ALICE, assignment)]
    assert "Success!" not in texts[(BOB, LAST)]
    assert "failed" in texts[(BOB, LAST)].lower()
    assert "Success!" not in texts[(DAVE, FIRST)]


def test_the_sandboxed_grades_of_browser_submissions_are_exact(class_on_hub):
    assert class_on_hub["autograde"].returncode == 0
    grades = class_on_hub["grades"]
    for student, scores in EXPECTED.items():
        for assignment, score in scores.items():
            assert grades[(student, assignment)][0] == score, (student, assignment)


def test_a_submission_after_the_due_date_is_recorded_late(class_on_hub):
    grades = class_on_hub["grades"]
    for assignment in NOTEBOOKS:
        score, late, penalty = grades[(CAROL, assignment)]
        assert late > 0 and penalty == score == ASSIGNMENTS[assignment].max_score
        for student in (ALICE, BOB, DAVE):
            late, penalty = grades[(student, assignment)][1:]
            assert late == 0 and not penalty


def test_formgrader_autograde_button_refuses_and_points_to_make_autograde(class_on_hub):
    button = class_on_hub["button"]
    assert button["modal_id"] == "error-modal"
    assert "make autograde" in button["modal"]
    assert "outside the grading sandbox" in button["modal"]
    assert class_on_hub["grades_after_button"] == class_on_hub["grades"]


def test_nbgrader_autograde_command_refuses_and_keeps_the_grades(class_on_hub):
    cli = class_on_hub["cli"]
    assert cli.returncode == 1
    assert "make autograde" in cli.stdout + cli.stderr
    assert class_on_hub["grades_after_cli"] == class_on_hub["grades"]


def test_make_release_feedback_releases_every_students_pages(class_on_hub):
    assert class_on_hub["release_feedback"].returncode == 0
    feedback = [f for f in class_on_hub["exchange"] if "/feedback/" in f]
    assert len(feedback) == len(STUDENTS) * len(NOTEBOOKS)


def test_each_student_fetches_only_their_own_feedback(class_on_hub):
    for (student, assignment), texts in class_on_hub["feedback_texts"].items():
        assert len(texts) == 1, (student, assignment)
        score = AFTER_PENALTY[student][assignment]
        assert f"<h1>Feedback on {NOTEBOOKS[assignment]}.ipynb</h1>" in texts[0]
        assert (f"Score: <strong>{score:g}</strong> of "
                f"{ASSIGNMENTS[assignment].worth:g} points") in texts[0]
        for other in STUDENTS:
            if other != student:
                assert other not in texts[0]
