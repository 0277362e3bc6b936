"""A claimed hand-in placed where it is graded: a submission in submitted/, a student's check
in the service's own folder (never what is graded), and the time it is graded as handed
in: a student-written timestamp.txt bounded by when it reached the exchange."""

import dataclasses
import datetime
import os

from grader.service import JobSource, JobState, QueuedJob
from grader.service.queue.submitted import (ARRIVAL_TOLERANCE, TIMESTAMP_FORMAT, bounded_timestamp,
                                      checks_folder, place_in_submitted)
from grader.settings import load
from testsupport.tiny_course import ASSIGNMENT, NOTEBOOK

ARRIVED = datetime.datetime(2026, 12, 1, 19, 0, tzinfo=datetime.timezone.utc)


def job(source, job_id=7):
    return QueuedJob(job_id, "ada", ASSIGNMENT, "d" * 64, JobSource(source), JobState.GRADING,
                     1, ARRIVED, None, None, None, [], "")


def stamp(moment):
    return moment.strftime(TIMESTAMP_FORMAT).encode()


def test_a_check_is_graded_beside_the_queue_and_never_replaces_the_submission(tiny_course):
    settings = load(tiny_course)
    notebooks = settings.instructor_notebooks(ASSIGNMENT)
    submitted = place_in_submitted(settings, job("exchange:ada+tiny+x"),
                                   {f"{NOTEBOOK}.ipynb": b"handed in"}, notebooks)
    checked = place_in_submitted(settings, job("check", 8), {f"{NOTEBOOK}.ipynb": b"a try"},
                                 notebooks)
    assert submitted.submitted_dir == os.path.join(settings.submitted, "ada", ASSIGNMENT)
    assert checked.submitted_dir == os.path.join(checks_folder(settings), "ada", ASSIGNMENT)
    with open(os.path.join(submitted.submitted_dir, f"{NOTEBOOK}.ipynb"), "rb") as handle:
        assert handle.read() == b"handed in"
    with open(os.path.join(checked.submitted_dir, f"{NOTEBOOK}.ipynb"), "rb") as handle:
        assert handle.read() == b"a try"
    assert [stat_mode(folder) for folder in (os.path.dirname(checks_folder(settings)),
                                             checks_folder(settings))] == [0o700, 0o700]


def stat_mode(path):
    return os.stat(path).st_mode & 0o777


def test_a_timestamp_written_before_the_hand_in_reached_the_exchange_is_not_believed(capsys):
    exchange = job("exchange:ada+tiny+x")
    two_hours_before = ARRIVED - datetime.timedelta(hours=2)
    assert bounded_timestamp(exchange, stamp(two_hours_before)) == (
        ARRIVED - ARRIVAL_TOLERANCE).strftime(TIMESTAMP_FORMAT)
    said = capsys.readouterr().err
    assert "hand-in 7 of tiny by ada: its timestamp.txt says 2026-12-01T17:00:00+00:00" in said
    assert "graded as handed in at 2026-12-01T18:59:00+00:00" in said
    # what nbgrader submit writes, a moment before the folder is complete: kept as it is
    assert bounded_timestamp(exchange, stamp(ARRIVED - datetime.timedelta(seconds=20))) is None
    # later than it arrived, or unreadable: its arrival
    later = bounded_timestamp(exchange, stamp(ARRIVED + datetime.timedelta(days=1)))
    assert later == ARRIVED.strftime(TIMESTAMP_FORMAT)
    assert bounded_timestamp(exchange, b"yesterday") == ARRIVED.strftime(TIMESTAMP_FORMAT)


def test_an_lms_timestamp_is_kept_and_a_hand_in_without_one_gets_its_arrival():
    lms = job("zip:download.zip")
    assert bounded_timestamp(lms, stamp(ARRIVED - datetime.timedelta(days=3))) is None
    assert bounded_timestamp(dataclasses.replace(lms), None) == ARRIVED.strftime(
        TIMESTAMP_FORMAT)
