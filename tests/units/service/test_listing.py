"""`python -m grader queue`: every hand-in the service knows, as a table (below the
service's state, test_status.py) or as JSON with exactly the keys QUEUE_FIELDS names
(student, assignment, kind, state, attempts, arrived, graded, score, max_score,
late_penalty, recorded, release, release_current)."""

import datetime
import json

from grader.cli import main
from grader.service import QUEUE_FIELDS, JobState, course_store, queue_table

ARRIVED = datetime.datetime(2026, 12, 1, 16, 59, 30, tzinfo=datetime.timezone.utc)
NOTEBOOK = b'{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n'
OTHER_NOTEBOOK = NOTEBOOK.replace(b"{}", b"{\"edited\": true}")


def course_with_queue(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text(
        "c = get_config()\nc.CourseDirectory.submitted_directory = 'course-data/submitted'\n")
    store = course_store(str(tmp_path / "course-data"))
    graded = store.hand_in("ada", "tiny", {"tiny.ipynb": NOTEBOOK}, "submit", ARRIVED)
    store.claim("w1", 60)
    store.finish(graded.id, JobState.GRADED, 5.0, 6.0, [])
    store.hand_in("ada", "tiny", {"tiny.ipynb": NOTEBOOK}, "submit", ARRIVED)
    store.hand_in("bob", "tiny", {"tiny.ipynb": NOTEBOOK + b" "}, "submit", ARRIVED)
    return store


def test_queue_json_lists_every_hand_in_with_exactly_its_keys_in_utc(tmp_path, capsys):
    store = course_with_queue(tmp_path)
    assert main(["queue", "--json", "--course", str(tmp_path)]) == 0
    listed = json.loads(capsys.readouterr().out)
    graded_at = store.jobs()[0].graded.isoformat().replace("+00:00", "Z")
    # no gradebook in this course: each score is the queue's own, none recorded
    unrecorded = {"kind": "submission", "late_penalty": None, "recorded": False,
                  "release": None, "release_current": None}
    assert listed == [
        {"student": "ada", "assignment": "tiny", "state": "graded", "attempts": 1,
         "arrived": "2026-12-01T16:59:30Z", "graded": graded_at, "score": 5.0,
         "max_score": 6.0, **unrecorded},
        {"student": "ada", "assignment": "tiny", "state": "duplicate", "attempts": 0,
         "arrived": "2026-12-01T16:59:30Z", "graded": None, "score": None, "max_score": None,
         **unrecorded},
        {"student": "bob", "assignment": "tiny", "state": "waiting", "attempts": 0,
         "arrived": "2026-12-01T16:59:30Z", "graded": None, "score": None, "max_score": None,
         **unrecorded}]
    assert all(list(record) == list(QUEUE_FIELDS) for record in listed)


def test_queue_prints_a_table_with_a_header_and_a_line_per_hand_in(tmp_path, capsys):
    course_with_queue(tmp_path)
    assert main(["queue", "--course", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == ["service: never started on this queue", ""]  # status.py, above
    assert lines[2].split() == ["student", "assignment", "kind", "state", "attempts",
                                "arrived", "graded", "score"]
    assert [line.split()[:5] for line in lines[3:]] == [
        ["ada", "tiny", "submission", "graded", "1"],
        ["ada", "tiny", "submission", "duplicate", "0"],
        ["bob", "tiny", "submission", "waiting", "0"]]
    assert lines[3].split()[-1] == "5/6"


def test_an_empty_queue_says_so():
    assert queue_table([]) == ["no hand-ins in the queue"]


def test_what_submitted_holds_is_queued_once_and_unchanged_folders_are_duplicates(tmp_path):
    from grader.service import queue_submitted
    from grader.settings import load

    store = course_with_queue(tmp_path)
    for student, content in (("cyd", NOTEBOOK), ("dee", OTHER_NOTEBOOK)):
        folder = tmp_path / "course-data" / "submitted" / student / "tiny"
        folder.mkdir(parents=True)
        (folder / "tiny.ipynb").write_bytes(content)
        (folder / "timestamp.txt").write_text("2026-12-01 16:00:00.000000 UTC")
    settings = load(str(tmp_path))
    first = queue_submitted(settings, store, "tiny", "zip:download.zip")
    again = queue_submitted(settings, store, "tiny", "zip:download.zip")
    queued = store.jobs()[3:]
    assert first == [f"tiny: cyd queued as hand-in {queued[0].id} (waiting)",
                     f"tiny: dee queued as hand-in {queued[1].id} (waiting)"]
    assert again == [f"tiny: cyd queued as hand-in {queued[2].id} (duplicate)",
                     f"tiny: dee queued as hand-in {queued[3].id} (duplicate)"]
    assert store.files(queued[0]) == {"tiny.ipynb": NOTEBOOK,
                                      "timestamp.txt": b"2026-12-01 16:00:00.000000 UTC"}


def test_a_hand_in_graded_against_an_earlier_release_is_marked_so(tmp_path):
    from grader.service.page.listing import queue_record

    store = course_with_queue(tmp_path)
    graded = store.jobs()[0]
    earlier = queue_record(graded, release="ab" * 32, current="cd" * 32)
    assert (earlier["release"], earlier["release_current"]) == ("ab" * 6, False)
    assert queue_record(graded, release="cd" * 32, current="cd" * 32)["release_current"] is True
    assert queue_record(graded)["release"] is None
