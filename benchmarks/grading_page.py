"""What a grader does for a class's explain answers: the grading page against the terminal.

A class of STUDENTS synthetic answers (testsupport/explain_class.py: three lines of
reasoning in each student's own numbers, blanks, one copy) is handed in twice, in two
copies of the course. A scripted grader who knows which rubric items each reasoning earns
grades every answer:

- at the terminal (`make grade-explain`): for each answer, the items' keys typed and Enter;
- on the page, in Chromium: for each group, its link clicked and the items of the group's
  most common reasoning applied to it as drafts, then each answer passed: Enter where the
  draft is right, else its items' number keys and Enter.

Prints the actions (keystrokes and clicks) and the seconds each took, per answer and in
all; the two gradebooks hold the same scores, which it checks. Never fails because the
machine is slow.

    .venv/bin/python benchmarks/grading_page.py [STUDENTS]
"""

import os
import sys
import tempfile
import time
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "src"))

from nbgrader.api import Gradebook  # noqa: E402

from grader.explain import grade_explain, grading_order  # noqa: E402
from grader.settings import load  # noqa: E402
from testsupport.accessibility import CHROMIUM, CHROMIUM_FLAGS, DESKTOP  # noqa: E402
from testsupport.explain_class import synthetic_class  # noqa: E402
from testsupport.explain_course import ASSIGNMENT, explain_course, own_values  # noqa: E402
from testsupport.grading_page import served  # noqa: E402

# what each reasoning earns by rubrics/parameters.yaml (blank: no item)
ITEMS = {"tied-minus-head": ["counts", "head"], "saved-once": ["counts", "shared", "save"],
         "position-shared": ["counts", "wrong-matrix"], "blank": []}
SEED = "benchmark"


def scores(settings):
    with Gradebook(settings.db_url, settings.course_id) as gb:
        return {s.student.id: s.notebooks[0].grades[0].manual_score
                for s in gb.assignment_submissions(ASSIGNMENT)}


def terminal(settings, reasoning):
    """(actions, seconds) of grade-explain fed the scripted grader's replies."""
    order = grading_order(sorted(reasoning), SEED)
    replies = [" ".join(ITEMS[reasoning[s]]) or "none" for s in order]
    actions = sum(len(reply) + 1 for reply in replies)  # each key and Enter
    start = time.perf_counter()
    sitting = grade_explain(settings, ASSIGNMENT, replies, lambda line: None, SEED)
    assert sitting.graded == len(order), sitting
    return actions, time.perf_counter() - start


def page(settings, reasoning):
    """(actions, seconds) of the scripted grader on the page, in Chromium."""
    from playwright.sync_api import sync_playwright

    actions = 0
    with served(settings, {"ta": "benchmark-token"}) as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                             args=CHROMIUM_FLAGS)
        tab = browser.new_context(viewport=DESKTOP).new_page()
        tab.set_default_timeout(120_000)
        tab.goto(f"{base}/login?token=benchmark-token")
        start = time.perf_counter()
        tab.goto(f"{base}/q/{ASSIGNMENT}?view=all")
        links = [a.get_attribute("href") for a in tab.locator("nav a").all()]
        for href in links:
            tab.goto(f"{base}/q/{href}")
            actions += 1  # the group's link
            students = [a.get_attribute("data-student")
                        for a in tab.locator("article[data-student]").all()]
            common = Counter(reasoning[s] for s in students).most_common(1)[0][0]
            for item in ITEMS[common]:
                with tab.expect_navigation():
                    tab.locator(f"form.note button[value='{item}']").click()
                actions += 1
            for student in students:
                article = tab.locator(f"article[data-student='{student}']")
                article.focus()
                wanted = set(ITEMS[reasoning[student]])
                for box in article.locator("input[name=item]").all():
                    if (box.get_attribute("value") in wanted) != box.is_checked():
                        tab.keyboard.press(box.get_attribute("data-key"))
                        actions += 1
                article.focus()
                with tab.expect_navigation():
                    tab.keyboard.press("Enter")
                actions += 1
        seconds = time.perf_counter() - start
        browser.close()
    return actions, seconds


def main(students: int = 300) -> None:
    salt = load(ROOT).variant_salt
    answers, reasoning = synthetic_class(lambda s: own_values(s, salt), students)
    texts = {a.student: a.text for a in answers}
    with tempfile.TemporaryDirectory() as base:
        config = "c.GradingPage.graders = ['ta']\nc.GradingPage.strict = False"
        at_terminal = load(explain_course(os.path.join(base, "terminal"), texts, config))
        on_page = load(explain_course(os.path.join(base, "page"), texts, config))
        typed, typed_s = terminal(at_terminal, reasoning)
        clicked, clicked_s = page(on_page, reasoning)
        same = scores(at_terminal) == scores(on_page)
    print(f"{students} explain answers, one scripted grader")
    print(f"{'':<10}{'actions':>9}{'per answer':>12}{'seconds':>9}{'s per answer':>14}")
    for name, actions, seconds in (("terminal", typed, typed_s), ("page", clicked, clicked_s)):
        print(f"{name:<10}{actions:>9,}{actions / students:>12.2f}{seconds:>9.1f}"
              f"{seconds / students:>14.3f}")
    print(f"page / terminal: {clicked / typed:.2f} of the actions (aim: a third or fewer); "
          f"the same scores in both gradebooks: {same}")


if __name__ == "__main__":
    main(*(int(arg) for arg in sys.argv[1:2]))
