"""Two graders grade a class of 60 synthetic explain answers on the grading page, in
Chromium: three lines of reasoning written with each student's own numbers, blanks and
one answer copied from a classmate (testsupport/explain_class.py)."""

import re

import pytest
from nbgrader.api import Gradebook

from testsupport.accessibility import (CHROMIUM, CHROMIUM_FLAGS, DESKTOP, WAIT_MS,
                                      axe_violations, violations_report)
from testsupport.explain_class import COPIED_FROM, synthetic_class
from testsupport.explain_course import ASSIGNMENT, CELL, NOTEBOOK, explain_course, own_values
from testsupport.grading_page import groups_in_chromium, served

TOKENS = {"ta1": "token-of-ta1-" + "c" * 20, "ta2": "token-of-ta2-" + "d" * 20}


@pytest.fixture(scope="module")
def classroom(tmp_path_factory):
    """The course with the 60 answers handed in, {student: reasoning}, and the copier."""
    from grader.settings import load
    from testsupport.course import ROOT

    salt = load(ROOT).variant_salt
    answers, reasoning = synthetic_class(lambda student: own_values(student, salt))
    copier = answers[-1].student
    folder = str(tmp_path_factory.mktemp("grading-page-browser") / "course")
    explain_course(folder, {a.student: a.text for a in answers},
                   "c.GradingPage.graders = ['ta1', 'ta2']\nc.GradingPage.seed = 'two-tas'")
    return load(folder), reasoning, copier


@pytest.fixture(scope="module")
def page(classroom):
    """The page on 127.0.0.1, a free port, in a thread of this process."""
    with served(classroom[0], TOKENS) as address:
        yield address


@pytest.fixture(scope="module")
def graders(page):
    """Chromium with a context (cookies of its own) per grader, each signed in by their
    own address; the page's script policy bypassed only so that axe-core can be added."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                             args=CHROMIUM_FLAGS)
        tabs = {}
        for name in TOKENS:
            context = browser.new_context(viewport=DESKTOP, bypass_csp=True)
            context.set_default_timeout(WAIT_MS)
            tab = context.new_page()
            tab.goto(f"{page}/login?token={TOKENS[name]}")
            tabs[name] = tab
        yield tabs
        browser.close()


def scores(course):
    with Gradebook(course.db_url, course.course_id) as gb:
        return {s.student.id: s.notebooks[0].grades[0].manual_score
                for s in gb.assignment_submissions(ASSIGNMENT)}


def group_links(tab, page, view):
    tab.goto(f"{page}/q/{ASSIGNMENT}?view={view}")
    return [a.get_attribute("href") for a in tab.locator("nav a").all()]


def test_the_groups_put_one_reasoning_together_across_variants(graders, page, classroom):
    """Every answer of the class is in one group; purity >= 0.9; blanks a group of their own."""
    _, reasoning, _ = classroom
    tab = graders["ta1"]
    members = [[a.get_attribute("data-student") for a in articles]
               for articles in groups_in_chromium(tab, page, ASSIGNMENT)]
    assert sorted(s for group in members for s in group) == sorted(reasoning)
    kept = sum(max(sum(reasoning[s] == r for s in group) for r in set(reasoning.values()))
               for group in members)
    assert kept / len(reasoning) >= 0.9, f"purity {kept / len(reasoning):.3f}: {members}"
    blank = [group for group in members if all(reasoning[s] == "blank" for s in group)]
    assert len(blank) == 1 and len(blank[0]) == sum(r == "blank" for r in reasoning.values())


def test_the_copied_answer_is_flagged_with_its_owner_and_no_other(graders, page, classroom):
    course, _, copier = classroom
    tab = graders["ta1"]
    flagged = []
    for articles in groups_in_chromium(tab, page, ASSIGNMENT):
        for article in articles:
            if article.locator(".flag").count():
                flagged.append((article.get_attribute("data-student"),
                                article.locator(".flag").first.inner_text()))
    assert [student for student, _ in flagged] == [copier]
    assert f"of {COPIED_FROM}, not of this student's own model" in flagged[0][1]


def test_group_apply_scores_nobody_and_each_answer_is_saved_by_a_key(graders, page, classroom):
    """ta1 applies an item to her part of a group: nothing is scored; then each answer is
    passed and saved by Enter, one score per key."""
    course = classroom[0]
    tab = graders["ta1"]
    first = group_links(tab, page, "mine")[0]
    tab.goto(f"{page}/q/{first}")
    mine = [a.get_attribute("data-student") for a in tab.locator("article[data-student]").all()]
    before = scores(course)
    with tab.expect_navigation():
        tab.locator("form.note button[value=counts]").click()
    assert "drafted on" in tab.locator("[role=status]").inner_text()
    assert scores(course) == before
    saved = []
    for student in mine:
        article = tab.locator(f"article[data-student='{student}']")
        assert article.locator("input[value=counts]").is_checked()  # the draft is shown
        article.focus()
        with tab.expect_navigation():
            tab.keyboard.press("Enter")
        saved.append(student)
        now = scores(course)
        assert {s for s in now if now[s] != before[s]} == set(saved)
    assert all(scores(course)[s] == 0.5 for s in mine)


def test_keys_apply_items_and_a_formgrader_change_meanwhile_shows_as_a_conflict(
        graders, page, classroom):
    course = classroom[0]
    tab = graders["ta2"]
    tab.goto(f"{page}/q/{group_links(tab, page, 'mine')[0]}")
    article = tab.locator("article[data-state=open]").first
    student = article.get_attribute("data-student")
    article.focus()
    tab.keyboard.press("1")
    tab.keyboard.press("2")
    assert article.locator("input[data-key='1']").is_checked()
    with Gradebook(course.db_url, course.course_id) as gb:  # formgrader, in between
        grade = gb.find_grade(CELL, NOTEBOOK, ASSIGNMENT, student)
        grade.manual_score = 1.75
        gb.db.commit()
    with tab.expect_navigation():
        tab.keyboard.press("Enter")
    alert = tab.locator("[role=alert]").inner_text()
    assert re.search(r"the gradebook holds 1\.75, not no score as this page showed", alert)
    assert scores(course)[student] == 1.75


def test_the_page_has_no_accessibility_violations(graders, page):
    tab = graders["ta2"]
    tab.goto(f"{page}/q/{group_links(tab, page, 'all')[0]}")
    violations = axe_violations(tab)
    assert violations == [], violations_report(violations)
