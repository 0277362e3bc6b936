"""`make rehearse-lti`: a class whose LMS is an LTI 1.3 platform on 127.0.0.1.

One platform for the module (grader.rehearsal.lti_platform); the rehearsal runs on it
twice on the parameters assignment (alice, bob partial, carol, dave late with an
extension): once as it is, once with the platform recording one score wrongly.
"""

import contextlib
import csv
import io
import os

import pytest

from grader.lti.commands import course_tool
from grader.rehearsal import RehearsalError
from grader.rehearsal.lti import rehearse_lti
from grader.rehearsal.lti_platform import LtiPlatform
from testsupport.course import ROOT


@pytest.fixture(scope="module")
def platform():
    served = LtiPlatform().start()
    yield served
    served.stop()


@pytest.fixture(scope="module")
def rehearsal(platform, tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("rehearsal-lti") / "class")
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        outcome = rehearse_lti(ROOT, folder, ["parameters"], course_tool, platform=platform)
    return {**outcome, "out": shown.getvalue(),
            "line_items": dict(platform.line_items),
            "scores": {n: platform.scores_of(n) for n in platform.line_items},
            "requests": list(platform.requests)}


def test_the_one_student_who_launched_was_checked_by_the_tool(rehearsal):
    assert rehearsal["launched"]["user_id"] == "lti-10001"
    assert rehearsal["launched"]["name"] == "Alice Archer"
    assert [r for r in rehearsal["requests"] if r[1] == "/auth"] == [("GET", "/auth", 200)]


def test_the_platforms_scores_are_the_gradebooks_for_every_student(rehearsal):
    with open(os.path.join(rehearsal["course"], "course-data", "grades.csv"),
              encoding="utf-8") as handle:
        exported = {r["student_id"]: float(r["score"]) for r in csv.DictReader(handle)
                    if r["assignment"] == "parameters"}
    [number] = rehearsal["line_items"]
    posted = {s["userId"]: s["scoreGiven"] for s in rehearsal["scores"][number]}
    assert posted == {f"lti-{10000 + i}": exported[s]
                      for i, s in enumerate(["alice", "bob", "carol", "dave"], 1)}
    assert 0 < posted["lti-10002"] < 10 and posted["lti-10004"] == 10.0  # the extension
    assert all(not line.endswith("DIFFERENT") for line in rehearsal["table"])
    assert len(rehearsal["table"]) == 5


def test_students_who_never_launched_get_their_scores_each_once(rehearsal):
    [number] = rehearsal["line_items"]
    posted = [s["userId"] for s in rehearsal["scores"][number]]
    assert sorted(posted) == ["lti-10001", "lti-10002", "lti-10003", "lti-10004"]
    assert rehearsal["again"]["parameters"].splitlines()[-1] == (
        "0 score(s) posted, 4 up to date, 0 without an LTI user id, 0 failed")


def test_the_roster_took_the_lti_user_ids_by_the_institutions_id(rehearsal):
    assert rehearsal["roster"].splitlines()[-1] == (
        "4 learner(s) on the platform: 0 added, 4 updated, 0 unchanged, 0 not taken; 0 "
        "student(s) of the roster the platform does not list, kept")


def test_a_wrong_score_on_the_platform_fails_the_rehearsal_and_the_line_item_is_reused(
        rehearsal, platform, tmp_path):
    with platform.lock:  # the line item kept, its scores gone: the push posts them again
        platform.scores.clear()
    platform.record_wrongly("lti-10003", 1.5)
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown), pytest.raises(
            RehearsalError, match=r"1 score\(s\) on the platform differ"):
        rehearse_lti(ROOT, str(tmp_path / "class"), ["parameters"], course_tool,
                     platform=platform)
    assert "parameters  carol    lti-10003    10         11.5      DIFFERENT" in shown.getvalue()
    assert list(platform.line_items) == list(rehearsal["line_items"])  # found, not made again
