"""Item analysis on a class whose answer is worked out by hand: each check's mean and its
point-biserial correlation with the rest of the total, and the flags the page shows."""

import csv
import math
from collections import Counter

import pytest

from grader.reports.grades import AssignmentGrades, Check, SubmissionGrades
from grader.reports.items import (ITEM_FIELDS, chart, correlation, item_analysis, item_rows,
                                  items_page, write_item_analysis)
from testsupport.course import plain_settings

CHECKS = [Check("nb", "a", 1.0), Check("nb", "b", 2.0), Check("nb", "c", 1.0),
          Check("nb", "d", 1.0)]
# five students' points on checks a, b, c, d: d everyone earns; c only the weaker students
TABLE = {"s1": (1, 2, 0, 1), "s2": (1, 2, 1, 1), "s3": (0, 0, 1, 1), "s4": (0, 0, 1, 1),
         "s5": (1, 2, 0, 1)}


def synthetic_grades():
    submissions = {}
    for student, points in TABLE.items():
        entry = SubmissionGrades(student, None, 0.0, float(sum(points)), 0.0, 5.0)
        entry.points = {("nb", c.grade_id): float(p) for c, p in zip(CHECKS, points)}
        submissions[student] = entry
    return AssignmentGrades("hw", None, 5.0, CHECKS, submissions)


def point_biserial_by_hand(index):
    """(M1 - M0) / s * sqrt(p q): the rest's mean among those who earned the check (M1) and
    those who did not (M0), the rest's population standard deviation s, p the share who
    earned it. A different formula from the code's Pearson correlation; the same number."""
    rest = {s: sum(p) - p[index] for s, p in TABLE.items()}
    earned = [rest[s] for s, p in TABLE.items() if p[index]]
    missed = [rest[s] for s, p in TABLE.items() if not p[index]]
    values = list(rest.values())
    mean = sum(values) / len(values)
    spread = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
    share = len(earned) / len(values)
    return ((sum(earned) / len(earned) - sum(missed) / len(missed)) / spread
            * math.sqrt(share * (1 - share)))


def test_means_and_discriminations_are_the_hand_computed_ones():
    items = item_analysis(synthetic_grades())
    assert [i.students for i in items] == [5, 5, 5, 5]
    # a: 3 of 5 earn its 1 point; b: 3 of 5 earn 2 of 2; c: 3 of 5; d: all
    assert [round(i.mean, 6) for i in items] == [0.6, 0.6, 0.6, 1.0]
    # a: the rests are 3, 4, 2, 2, 3; earned by s1, s2, s5 (mean 10/3), missed by s3, s4
    # (mean 2); s = sqrt(0.56); r = (10/3 - 2) / sqrt(0.56) * sqrt(0.24) = 0.872872
    assert items[0].discrimination == pytest.approx(0.872872, abs=1e-6)
    for index in range(3):
        assert items[index].discrimination == pytest.approx(point_biserial_by_hand(index))
    # c: earned by s2, s3, s4 whose rests are 4, 1, 1; missed by s1, s5 with 4 and 4;
    # s = sqrt(2.16); r = (2 - 4) / sqrt(2.16) * sqrt(0.24) = -2/3
    assert items[2].discrimination == pytest.approx(-2 / 3)
    assert items[3].discrimination is None  # everyone earned d: no correlation to speak of


def test_the_flags_name_easy_hard_and_negatively_discriminating_checks():
    items = item_analysis(synthetic_grades())
    assert [i.flags for i in items] == [[], [],
                                        ["negative discrimination"], ["almost all pass"]]
    nobody = synthetic_grades()
    for entry in nobody.submissions.values():
        entry.points[("nb", "b")] = 0.0
    assert item_analysis(nobody)[1].flags == ["almost all fail"]


def test_a_partly_earned_check_counts_its_share_of_the_points():
    grades = synthetic_grades()
    grades.submissions["s2"].points[("nb", "b")] = 1.0  # half of b's 2 points
    item = item_analysis(grades)[1]
    assert item.mean == pytest.approx((2 + 1 + 0 + 0 + 2) / 5 / 2)


def test_the_most_frequent_failure_message_and_its_count():
    messages = {("nb", "a"): Counter({"a should be 4": 1, "a gave None": 2}),
                ("nb", "c"): Counter({"z": 1, "y": 1})}
    items = item_analysis(synthetic_grades(), messages)
    assert (items[0].top_failure, items[0].top_failure_students) == ("a gave None", 2)
    assert (items[2].top_failure, items[2].top_failure_students) == ("y", 1)  # a tie: sorted
    assert (items[3].top_failure, items[3].top_failure_students) == ("", 0)


def test_correlation_is_none_without_spread_and_pearson_otherwise():
    assert correlation([1, 1, 1], [1, 2, 3]) is None
    assert correlation([1], [2]) is None
    assert correlation([0, 1, 2], [0, 2, 4]) == pytest.approx(1.0)
    assert correlation([0, 1, 2], [4, 2, 0]) == pytest.approx(-1.0)


@pytest.fixture
def course(tmp_path):
    import nbformat

    settings = plain_settings(str(tmp_path))
    folder = tmp_path / "source" / "hw"
    folder.mkdir(parents=True)
    cells = [nbformat.v4.new_code_cell(f'"""Check {c.grade_id}"""\nassert <{c.grade_id}>',
                                       metadata={"nbgrader": {"grade": True, "grade_id":
                                                              c.grade_id,
                                                              "points": c.max_points}})
             for c in CHECKS]
    nbformat.write(nbformat.v4.new_notebook(cells=cells), str(folder / "nb.ipynb"))
    return settings


def test_the_csv_has_a_row_per_check_and_the_page_shows_each_cell(course):
    csv_path, page_path = write_item_analysis(course, synthetic_grades())
    with open(csv_path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0]) == ITEM_FIELDS
    assert [(r["check"], r["points"], r["students"], r["mean"], r["discrimination"], r["flags"])
            for r in rows] == [
        ("a", "1", "5", "0.6000", "0.8729", ""),
        ("b", "2", "5", "0.6000", f"{point_biserial_by_hand(1):.4f}", ""),
        ("c", "1", "5", "0.6000", "-0.6667", "negative discrimination"),
        ("d", "1", "5", "1.0000", "", "almost all pass")]
    text = open(page_path, encoding="utf-8").read()
    assert text.count("<circle ") == 4
    for check in CHECKS:  # each row links to its cell, which shows the cell's source
        assert f'<a href="#cell-nb-{check.grade_id}">nb/{check.grade_id}</a>' in text
        assert f'<section id="cell-nb-{check.grade_id}">' in text
        assert f"assert &lt;{check.grade_id}&gt;" in text
    assert "source/hw/nb.ipynb" in text
    assert "<script" not in text and "http://" not in text.replace(
        'xmlns="http://www.w3.org/2000/svg"', "")


def test_student_text_in_a_message_is_escaped_on_the_page_and_safe_in_the_csv(course):
    messages = {("nb", "a"): Counter({"=HYPERLINK(1) <b>x</b>": 3})}
    items = item_analysis(synthetic_grades(), messages)
    assert item_rows(items)[0]["top_failure"] == "'=HYPERLINK(1) <b>x</b>"
    page = items_page(course, synthetic_grades(), items)
    assert "=HYPERLINK(1) &lt;b&gt;x&lt;/b&gt; (3)" in page


def test_checks_at_the_same_place_share_one_dot_labelled_with_both_numbers():
    grades = synthetic_grades()
    grades.checks = [CHECKS[0], Check("nb", "a_again", 1.0), CHECKS[3]]
    for entry in grades.submissions.values():
        entry.points[("nb", "a_again")] = entry.points[("nb", "a")]
    svg = chart(item_analysis(grades))
    assert svg.count("<circle ") == 2
    assert ">1, 2</text>" in svg and ">3</text>" in svg
