"""`make similarity` on a class: the CSV and the page under course-data/reports/, readable
by the course team as the grade report is, never in a student's feedback, and a page that
Chromium shows whole on a laptop and on a phone, meeting WCAG 2.1 AA as axe-core sees it."""

import csv
import os
import stat

import pytest

from grader.files import write_atomically
from testsupport.accessibility import AXE, WCAG_TAGS, missing_tools
from testsupport.assignments import ASSIGNMENTS
from testsupport.course import ROOT, copy_course, make
from testsupport.similar_students import COPIED, HONEST, hand_in_each, synthetic_class

SCREENSHOTS = os.path.join(ROOT, "_build", "screenshots")


@pytest.fixture(scope="module")
def reported(tmp_path_factory):
    """A course copy with the synthetic class handed in, a student's feedback already
    there, and `make similarity` run for every assignment."""
    course = copy_course(str(tmp_path_factory.mktemp("similarity") / "course"), for_make=True)
    students, planted = synthetic_class()
    hand_in_each(course, students)
    feedback = os.path.join(course, "course-data", "feedback", "student-00", "parameters")
    os.makedirs(feedback)
    with open(os.path.join(feedback, "parameters.html"), "w") as handle:
        handle.write("<p>feedback</p>")
    result = make(course, "similarity", timeout=300)
    return {"course": course, "result": result, "planted": planted,
            "reports": os.path.join(course, "course-data", "reports")}


def test_make_similarity_writes_the_csv_and_the_page_of_every_assignment(reported):
    result = reported["result"]
    assert result.returncode == 0, result.stdout + result.stderr
    for assignment in sorted(ASSIGNMENTS):
        for ending in ("csv", "html"):
            assert (f"similarity report: course-data/reports/similarity-{assignment}.{ending}"
                    in result.stdout)
    with open(os.path.join(reported["reports"], "similarity-parameters.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    students = HONEST + len(COPIED)
    assert len(rows) == students * (students - 1) // 2
    flagged = {tuple(sorted((r["student_a"], r["student_b"])))
               for r in rows if r["above_threshold"] == "true"}
    assert flagged == {tuple(sorted(p)) for p in reported["planted"]}
    with open(os.path.join(reported["reports"], "similarity-logits-to-text.csv")) as f:
        assert f.read().splitlines() == ["student_a,student_b,similarity,above_threshold"]


def test_the_report_has_the_grade_reports_permissions_and_stays_out_of_feedback(reported):
    probe = write_atomically(os.path.join(reported["reports"], "probe.html"), "as the grade report")
    expected = stat.S_IMODE(os.stat(probe).st_mode)
    os.remove(probe)
    umask = os.umask(0)
    os.umask(umask)
    assert expected == 0o666 & ~umask
    for name in ("similarity-parameters.csv", "similarity-parameters.html"):
        assert stat.S_IMODE(os.stat(os.path.join(reported["reports"], name)).st_mode) == expected
    found = [os.path.relpath(os.path.join(folder, name), reported["course"])
             for folder, _, names in os.walk(reported["course"])
             for name in names if "similarity" in name]
    assert sorted(found) == [f"course-data/reports/similarity-{a}.{e}"
                             for a in sorted(ASSIGNMENTS) for e in ("csv", "html")]
    feedback = os.path.join(reported["course"], "course-data", "feedback")
    texts = [open(os.path.join(folder, name)).read()
             for folder, _, names in os.walk(feedback) for name in names]
    assert texts == ["<p>feedback</p>"]


def test_make_similarity_for_one_assignment_and_an_unknown_one(reported):
    course = reported["course"]
    result = make(course, "similarity", "ASSIGNMENT=parameters", timeout=300)
    assert result.returncode == 0, result.stderr
    assert "similarity-logits-to-text" not in result.stdout
    result = make(course, "similarity", "ASSIGNMENT=nonesuch", timeout=300)
    assert result.returncode == 2 and "nonesuch" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_page_reads_on_a_laptop_and_a_phone_and_meets_wcag_aa(reported):
    from playwright.sync_api import sync_playwright

    if missing_tools():
        pytest.fail(missing_tools())
    page_path = os.path.join(reported["reports"], "similarity-parameters.html")
    text = open(page_path, encoding="utf-8").read()
    assert "src=" not in text and "<link" not in text and "<script" not in text
    os.makedirs(SCREENSHOTS, exist_ok=True)
    requests, seen = [], {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", headless=True,
            args=["--headless", "--no-sandbox", "--disable-gpu"])
        try:
            for name, width in (("laptop", 1280), ("phone", 390)):
                page = browser.new_page(viewport={"width": width, "height": 900})
                page.on("request", lambda request: requests.append(request.url))
                page.goto("file://" + page_path + "#pair-1")
                page.add_script_tag(path=str(AXE))
                violations = page.evaluate(
                    """async tags => (await axe.run(document, {runOnly: {type: "tag",
                    values: tags}})).violations.map(v => v.id + ": " + v.help)""", WCAG_TAGS)
                seen[name] = {
                    "violations": violations,
                    "scroll_width": page.evaluate("document.documentElement.scrollWidth"),
                    "headings": page.eval_on_selector_all(
                        "h1, h2", "hs => hs.map(h => h.textContent)"),
                    "marks": page.eval_on_selector_all("#pair-1 ~ .sides mark",
                                                       "ms => ms.length"),
                    "columns": page.eval_on_selector(  # figures side by side, or one above
                        ".sides", "e => new Set([...e.querySelectorAll('figure')].map("
                                  "f => f.getBoundingClientRect().left)).size"),
                }
                page.screenshot(path=os.path.join(SCREENSHOTS, f"similarity-{name}.png"))
                page.close()
        finally:
            browser.close()
    for name, found in seen.items():
        assert found["violations"] == [], name
        assert found["marks"] > 0
        assert found["headings"][:4] == ["parameters: similarity report",
                                         "Pairs at or above the threshold (6)",
                                         "The most similar pairs below the threshold",
                                         "Not compared (0)"]
    assert seen["phone"]["scroll_width"] <= 390  # nothing wider than a phone
    assert (seen["laptop"]["columns"], seen["phone"]["columns"]) == (2, 1)
    assert [r for r in requests if not r.startswith("file:")] == []
