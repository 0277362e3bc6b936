"""Grading a batch with several workers gives what grading it with one gives.

The batch (see testsupport.scaling) mixes correct, partial, empty, crashing and
unreadable submissions; the serial run into SQLite is the reference.
"""

import os
import signal
import time

import pytest

from grader.files import owner_tag
from testsupport.assignments import ASSIGNMENTS
from testsupport.course import run_grader
from testsupport.scaling import (ASSIGNMENT, GRADER_TIMEOUT, STUDENTS, batch_course, finish,
                                 gradebook_rows, output_files, start_grader,
                                 wait_for_recorded)
from testsupport.gradebook import sqlite_url

# logits-to-text, 10 points of checks and 2 of its explain cell. partial fills answers 1, 3 and 5: next_token_ids (1 + 1.5)
# and token_ids_to_text (1); generated_text needs the unfilled generate_text_simple.
PARTIAL_POINTS = 3.5
# crashing: next_token_ids raises before it is defined, so every check that calls it
# (its own and the generation checks) fails; text_to_token_ids and token_ids_to_text (1 + 1)
CRASHING_POINTS = 2.0


def total_scores(rows):
    """{student: (score, max score)} over every graded cell of the assignment."""
    totals = {}
    for (student, _, _), (score, top) in rows["grades"].items():
        got, most = totals.get(student, (0.0, 0.0))
        totals[student] = (got + (score or 0.0), most + top)
    return totals


def test_serial_run_grades_every_student_once_with_the_expected_totals(serial_sqlite_run):
    rows, kinds = serial_sqlite_run.rows, serial_sqlite_run.kinds
    assert [student for student, _ in rows["submissions"]] == STUDENTS
    assert all(count == 1 for _, count in rows["submissions"])
    totals = total_scores(rows)
    by_kind = {}
    for student, kind in kinds.items():
        by_kind.setdefault(kind, set()).add(totals[student])
    # of the 12 points, the explain cell's 2 wait for a person: nobody has them yet
    worth = ASSIGNMENTS[ASSIGNMENT].worth
    assert worth == 12.0
    assert by_kind["correct"] == {(10.0, worth)}  # the instructor's answers: full marks
    assert by_kind["empty"] == {(0.0, worth)}  # the untouched student version
    assert by_kind["unreadable"] == {(0.0, worth)}
    assert by_kind["partial"] == {(PARTIAL_POINTS, worth)}
    assert by_kind["crashing"] == {(CRASHING_POINTS, worth)}


def test_two_workers_give_the_same_grades_reports_and_autograded_files(
        serial_sqlite_run, released_sqlite_gradebook, tmp_path):
    course, _ = batch_course(str(tmp_path / "course"), released_sqlite_gradebook)
    run_grader(course, ASSIGNMENT, "--jobs", "2", timeout=GRADER_TIMEOUT, check=True)
    assert gradebook_rows(sqlite_url(course)) == serial_sqlite_run.rows
    files = output_files(course)
    assert sorted(files) == sorted(serial_sqlite_run.files)
    different = [path for path in files if files[path] != serial_sqlite_run.files[path]]
    assert different == []


def test_run_killed_part_way_then_run_again_ends_consistent(
        serial_sqlite_run, released_sqlite_gradebook, tmp_path):
    course, _ = batch_course(str(tmp_path / "course"), released_sqlite_gradebook)
    db_url = sqlite_url(course)
    first = start_grader(course, "--jobs", "2")
    # killed as soon as the first student is recorded: the other five take seconds
    # each, so the kill lands part way however slow the machine is
    wait_for_recorded(db_url, 1, first)
    os.kill(first.pid, signal.SIGKILL)  # the grader's main process, without warning
    code, _ = finish(first)
    assert code == -signal.SIGKILL
    leftover = processes_in_group(first.pid, wait=10)
    if leftover:
        os.killpg(first.pid, signal.SIGKILL)  # tidy up before failing
    assert leftover == [], "the killed grader's workers kept running"
    recorded = gradebook_rows(db_url)["submissions"]
    assert 1 <= len(recorded) < len(STUDENTS)  # killed part way
    assert all(count == 1 for _, count in recorded)
    # what a kill between a student's gradebook commit and putting its files in
    # place leaves (the kill above lands there only by chance)
    left = os.path.join(course, "course-data", "reports", ASSIGNMENT,
                        f".{STUDENTS[0]}.json.{owner_tag().split('-')[0]}-{first.pid}-1.x.tmp")
    with open(left, "w") as handle:
        handle.write("{")

    run_grader(course, ASSIGNMENT, "--jobs", "2", timeout=GRADER_TIMEOUT, check=True)
    assert not os.path.exists(left)
    rows = gradebook_rows(db_url)
    assert rows["submissions"] == [(student, 1) for student in STUDENTS]
    assert rows == serial_sqlite_run.rows
    assert output_files(course) == serial_sqlite_run.files


def processes_in_group(group, wait):
    """Ids of processes still in process group ``group`` after up to ``wait`` seconds."""
    deadline = time.monotonic() + wait
    while True:
        alive = []
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    with open(f"/proc/{name}/stat") as handle:
                        fields = handle.read().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if int(fields[2]) == group and fields[0] != "Z":  # pgrp, not a zombie
                    alive.append(int(name))
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.2)
