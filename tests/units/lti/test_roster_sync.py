"""What a platform's hostile or doubled learners do to `make lti-roster`: a name or e-mail address
that a spreadsheet would run as a formula is a plain cell of roster.csv (and the same text
everywhere else), and two learners who give one e-mail address are reported and skipped (the
address names neither), the others taken.

The tiny course (testsupport.tiny_course) with ada in its roster; the platform (grader.rehearsal.
lti_platform) lists ada, bob and cy, and here also two learners whose names and address are
formulas and one who gives ada's e-mail address.
"""

import contextlib
import csv
import io
import json
import os

import pytest
from nbgrader.api import Gradebook

from grader.cli import main
from grader.reports import read_roster, roster_path
from grader.settings import load
from testsupport.gradebook import sqlite_url

FORMULAS = {"given": "=HYPERLINK(\"http://evil.example/\",\"x\")", "family": "-2+3",
            "email": "=cmd@example.edu"}


@pytest.fixture(scope="module")
def course(tiny_course, platform):
    roster = os.path.join(tiny_course, "roster-in.csv")
    with open(roster, "w", encoding="utf-8") as handle:
        handle.write("id,first_name,last_name,email\nada,Ada,Adams,ada@example.edu\n")
    assert main(["roster", roster, "--course", tiny_course]) == 0
    with open(os.path.join(tiny_course, "nbgrader_config.py"), "a", encoding="utf-8") as config:
        config.write("\n" + "".join(f"c.LtiTool.{name} = {value!r}\n" for name, value in {
            **platform.settings, "retries": 2, "backoff_seconds": 0.001}.items()))
    assert main(["lti-keys", "--course", tiny_course]) == 0
    with open(os.path.join(tiny_course, "course-data", "lti", "jwks.json"),
              encoding="utf-8") as handle:
        platform.register_tool("http://127.0.0.1:9/lti/launch", json.load(handle))
    platform.add_member("sub-formula", FORMULAS["given"], FORMULAS["family"], FORMULAS["email"])
    platform.add_member("sub-ada-twin", "Ada", "Twin", "ADA@example.edu")
    platform.add_member("sub-plus", "+1+2", "@SUM(1,2)", "plus@example.edu")
    return tiny_course


def raw_rows(course):
    """roster.csv as a spreadsheet reads it: every cell as written."""
    with open(os.path.join(course, "course-data", "roster.csv"), encoding="utf-8",
              newline="") as handle:
        return list(csv.reader(handle))


@pytest.fixture(scope="module")
def synced(course):
    """(exit status, lines printed) of the first make lti-roster."""
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        status = main(["lti-roster", "--course", course])
    return status, printed.getvalue().splitlines()


def test_names_and_addresses_that_are_formulas_are_plain_cells_of_roster_csv(course, synced):
    cells = [cell for row in raw_rows(course) for cell in row]
    assert [cell for cell in cells if cell[:1] in ("=", "+", "-", "@", "\t", "\r")] == []
    [formula_row] = [row for row in raw_rows(course) if row[0] == "'=cmd"]
    assert formula_row[1:4] == ["'" + FORMULAS["given"], "'" + FORMULAS["family"],
                                "'" + FORMULAS["email"]]
    [plus] = [row for row in raw_rows(course) if row[0] == "plus"]
    assert plus[1:3] == ["'+1+2", "'@SUM(1,2)"]


def test_the_roster_and_the_gradebook_hold_the_names_themselves(course, synced):
    person = {p.id: p for p in read_roster(roster_path(load(course)))}["=cmd"]
    assert (person.first_name, person.last_name, person.email, person.lti_user_id) == (
        FORMULAS["given"], FORMULAS["family"], FORMULAS["email"], "sub-formula")
    with Gradebook(sqlite_url(course), "tinycourse") as gb:
        student = gb.find_student("=cmd")
        assert (student.first_name, student.last_name) == (FORMULAS["given"], FORMULAS["family"])


def test_two_learners_with_one_address_are_reported_and_skipped_the_others_taken(course,
                                                                                   synced):
    status, shown = synced
    for learner, other, address in (("sub-ada", "sub-ada-twin", "ada@example.edu"),
                                    ("sub-ada-twin", "sub-ada", "ADA@example.edu")):
        assert ["-", learner, f"skipped: another learner of the platform ({other}) has the "
                f"same e-mail address ({address}), which so names neither; give the roster's "
                f"student their lti_user_id if it is them"] in [
            line.split(None, 2) for line in shown]
    assert shown[-1] == ("6 learner(s) on the platform: 4 added, 0 updated, 0 unchanged, 0 not "
                         "taken, 2 skipped; 1 student(s) of the roster the platform does not "
                         "list, kept")
    assert status == 0
    assert {p.id: p.lti_user_id for p in read_roster(roster_path(load(course)))} == {
        "ada": "", "bob": "sub-bob", "cy": "sub-cy", "=cmd": "sub-formula", "plus": "sub-plus"}


def test_the_two_are_skipped_again_and_stop_nothing(course, synced, capsys):
    status = main(["lti-roster", "--course", course])
    shown = capsys.readouterr().out.splitlines()
    assert shown[-1].startswith("6 learner(s) on the platform: 0 added, 0 updated, 4 unchanged, "
                                "0 not taken, 2 skipped")
    assert status == 0
