"""Do `lti-keys`, `lti-roster` and `lti-push` take the platform's learners into a real course's
roster and its gradebook's grades into the platform, once, and write nothing on a dry run?

The tiny course (testsupport.tiny_course): ada graded (5 of 6 points), bob with nothing
handed in, dee in the roster with no LTI user id; the platform (grader.rehearsal.
lti_platform) lists ada, bob and cy as learners and an instructor.
"""

import csv
import json
import os

import pytest
from nbgrader.api import Gradebook

from grader.cli import main
from grader.lti import lti_push
from grader.settings import load
from testsupport.gradebook import sqlite_url
from testsupport.tiny_course import ASSIGNMENT, POINTS, record_grades


@pytest.fixture(scope="module")
def course(tiny_course, platform):
    roster = os.path.join(tiny_course, "roster-in.csv")
    with open(roster, "w", encoding="utf-8") as handle:
        handle.write("id,first_name,last_name,email,section\n"
                     "ada,Ada,Adams,ADA@example.edu,S1\nbob,,,bob@example.edu,S2\n"
                     "dee,Dee,Dunn,dee@example.edu,S1\n")
    assert main(["roster", roster, "--course", tiny_course]) == 0
    with open(os.path.join(tiny_course, "nbgrader_config.py"), "a", encoding="utf-8") as config:
        config.write("\n" + "".join(f"c.LtiTool.{name} = {value!r}\n" for name, value in {
            **platform.settings, "retries": 2, "backoff_seconds": 0.001}.items()))
    assert main(["lti-keys", "--course", tiny_course]) == 0
    with open(os.path.join(tiny_course, "course-data", "lti", "jwks.json"),
              encoding="utf-8") as handle:
        platform.register_tool("http://127.0.0.1:9/lti/launch", json.load(handle))
    record_grades(tiny_course, "ada", {**POINTS, "answer_value": 0.0})  # 5 of 6
    return tiny_course


def roster_rows(course):
    with open(os.path.join(course, "course-data", "roster.csv"), encoding="utf-8") as handle:
        return {row["id"]: row for row in csv.DictReader(handle)}


def test_the_private_key_is_kept_to_its_owner_and_never_printed(course, capsys):
    assert main(["lti-keys", "--course", course]) == 0
    out = capsys.readouterr().out
    assert out.startswith("kept the tool's key pair (kid ") and "PRIVATE" not in out
    mode = os.stat(os.path.join(course, "course-data", "lti", "private_key.pem")).st_mode
    assert mode & 0o777 == 0o600


def test_the_roster_takes_the_learners_and_loses_nothing_the_instructor_wrote(course, capsys):
    before = roster_rows(course)
    assert main(["lti-roster", "--dry-run", "--course", course]) == 0
    assert roster_rows(course) == before
    assert capsys.readouterr().out.splitlines()[-1].endswith("; dry run: nothing written")
    assert main(["lti-roster", "--course", course]) == 0
    shown = capsys.readouterr().out.splitlines()
    assert shown[1:4] == ["ada      sub-ada  updated: lti_user_id",
                          "bob      sub-bob  updated: lti_user_id, first_name, last_name",
                          "cy       sub-cy  added"]
    assert shown[-1] == ("3 learner(s) on the platform: 1 added, 2 updated, 0 unchanged, 0 not "
                         "taken; 1 student(s) of the roster the platform does not list, kept")
    rows = roster_rows(course)
    assert {s: (r["first_name"], r["email"], r["section"], r["lti_user_id"])
            for s, r in rows.items()} == {
        "ada": ("Ada", "ADA@example.edu", "S1", "sub-ada"),
        "bob": ("Bob", "bob@example.edu", "S2", "sub-bob"),
        "cy": ("Cy", "cy@example.edu", "", "sub-cy"),
        "dee": ("Dee", "dee@example.edu", "S1", "")}
    with Gradebook(sqlite_url(course), "tinycourse") as gb:
        assert (gb.find_student("cy").last_name, gb.find_student("bob").first_name) == (
            "Cole", "Bob")
    assert main(["lti-roster", "--course", course]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith(
        "3 learner(s) on the platform: 0 added, 0 updated, 3 unchanged")


def test_a_dry_run_then_a_push_then_a_second_push_that_posts_nothing(course, platform, capsys):
    assert main(["lti-roster", "--course", course]) == 0
    capsys.readouterr()
    assert main(["lti-push", ASSIGNMENT, "--dry-run", "--course", course]) == 0
    shown = capsys.readouterr().out.splitlines()
    assert (platform.line_items, platform.scores) == ({}, {})
    assert shown[0] == f"{ASSIGNMENT} -> line item (none yet: the push makes it)"
    assert [line.split()[:4] for line in shown[2:6]] == [
        ["ada", "sub-ada", "-", "5"], ["bob", "sub-bob", "-", "0"], ["cy", "sub-cy", "-", "0"],
        ["dee", "-", "-", "0"]]
    assert shown[-1] == "dry run: nothing written (3 score(s) would be posted)"
    assert main(["lti-push", ASSIGNMENT, "--course", course]) == 0
    assert [r for r in platform.requests if r[1] == "/auth"] == []  # AGS needs no launch
    [number] = platform.line_items
    assert {u: (s["scoreGiven"], s["scoreMaximum"]) for u, s in
            platform.results_of(number).items()} == {
        "sub-ada": (5.0, 6.0), "sub-bob": (0.0, 6.0), "sub-cy": (0.0, 6.0)}
    assert capsys.readouterr().out.splitlines()[-1] == (
        "3 score(s) posted, 0 up to date, 1 without an LTI user id, 0 failed")
    assert main(["lti-push", ASSIGNMENT, "--course", course]) == 0
    assert len(platform.scores_of(number)) == 3 and len(platform.line_items) == 1
    assert capsys.readouterr().out.splitlines()[-1] == (
        "0 score(s) posted, 3 up to date, 1 without an LTI user id, 0 failed")


def test_check_config_names_what_the_registration_lacks(course, capsys):
    with open(os.path.join(course, "nbgrader_config.py"), encoding="utf-8") as handle:
        kept = handle.read()
    try:
        with open(os.path.join(course, "nbgrader_config.py"), "a", encoding="utf-8") as handle:
            handle.write("c.LtiTool.client_id = ''\nc.LtiTool.key_set_url = 'jwks'\n")
        assert main(["check-config", "--course", course]) == 2
        err = capsys.readouterr().err
        assert "c.LtiTool.client_id is not set" in err
        assert "c.LtiTool.key_set_url = 'jwks' is not a web address" in err
    finally:
        with open(os.path.join(course, "nbgrader_config.py"), "w", encoding="utf-8") as handle:
            handle.write(kept)


def test_a_line_item_deleted_on_the_platform_is_made_again_with_every_grade_sent_before(
        course, platform):
    """Someone deletes the assignment's column in the LMS; then the grading service pushes the
    grade of the next student whose grade became final (bob's)."""
    assert main(["lti-roster", "--course", course]) == 0
    assert lti_push(load(course), ASSIGNMENT)[1] == 0  # ada 5, bob 0, cy 0 on the platform
    [(number, item)] = [(n, i) for n, i in platform.line_items.items()
                        if i.get("resourceId") == ASSIGNMENT]
    platform.delete_line_item(number)
    lines, status = lti_push(load(course), ASSIGNMENT, students=["bob"])
    assert status == 0
    [(again, _)] = [(n, i) for n, i in platform.line_items.items()
                    if i.get("resourceId") == ASSIGNMENT]
    assert again != number
    assert {u: s["scoreGiven"] for u, s in platform.results_of(again).items()} == {
        "sub-ada": 5.0, "sub-bob": 0.0, "sub-cy": 0.0}
    assert (f"note: the line item {platform.settings['lineitems_url']}/{number} the course made "
            f"for {ASSIGNMENT} is gone from the platform; every grade sent to it before is "
            f"sent again") in lines
    again_lines, _ = lti_push(load(course), ASSIGNMENT, students=["ada"])  # nothing lost now
    assert again_lines[-1].startswith("0 score(s) posted")


def test_push_grades_with_the_ags_class_configured_is_lti_push(course, capsys):
    assert main(["lti-roster", "--course", course]) == 0
    assert main(["lti-push", ASSIGNMENT, "--dry-run", "--course", course]) == 0
    capsys.readouterr()
    assert main(["lti-push", ASSIGNMENT, "--dry-run", "--course", course]) == 0
    lti_push_shown = capsys.readouterr().out
    config = os.path.join(course, "nbgrader_config.py")
    with open(config, encoding="utf-8") as handle:
        kept = handle.read()
    try:
        with open(config, "a", encoding="utf-8") as handle:
            handle.write('\nc.GradePush.plugin_class = "grader.lti.ags_push.AgsGradePush"\n')
        assert main(["push-grades", ASSIGNMENT, "--dry-run", "--course", course]) == 0
        shown = capsys.readouterr().out
    finally:
        with open(config, "w", encoding="utf-8") as handle:
            handle.write(kept)
    assert shown == lti_push_shown
    assert "score(s) would be posted" in shown.splitlines()[-1]
