"""A queue fed one hand-in at a time, with pauses, records what the batch records.

The batch of testsupport.scaling is handed in through a HandInQueue while two
workers grade: each hand-in is put only after the one before has come back, so
every result is taken while the queue is open and empty, as a grading service
would wait for the next hand-in. The gradebook and the files written must be
those of the serial batch run (the folder's reference, tests/scale/conftest.py).
"""

import os
import threading
import time

from grader.autograde import HandIn
from grader.engines import HandInQueue, engine
from grader.recording import Writer
from grader.settings import load
from grader.worker import (close_templates, prepare_assignment, prepare_machine,
                           private_work_root, read_job)
from testsupport.gradebook import sqlite_url
from testsupport.scaling import (ASSIGNMENT, GRADER_TIMEOUT, STUDENTS, batch_course,
                                 gradebook_rows, output_files)

PAUSE = 0.5  # seconds between a result and the next hand-in: the queue stays empty meanwhile


def test_a_queue_fed_one_hand_in_at_a_time_records_what_the_batch_records(
        serial_sqlite_run, released_sqlite_gradebook, tmp_path):
    course, _ = batch_course(str(tmp_path / "course"), released_sqlite_gradebook)
    settings = load(course, db_url=sqlite_url(course))
    prepared = prepare_assignment(settings, ASSIGNMENT, settings.limits)
    notebooks = settings.instructor_notebooks(ASSIGNMENT)
    hand_ins = HandInQueue()
    came_back = threading.Semaphore(0)  # one release per result given by `graded`
    put_at, back_at, late = {}, {}, []

    def feed():
        for student in STUDENTS:
            put_at[student] = time.monotonic()
            hand_ins.put(HandIn(student, ASSIGNMENT,
                                os.path.join(settings.submitted, student, ASSIGNMENT), notebooks))
            if not came_back.acquire(timeout=GRADER_TIMEOUT):
                late.append(student)
                break
            time.sleep(PAUSE)
        hand_ins.close()

    def prepare(hand_in):
        return read_job(prepared, hand_in.student, hand_in.submitted_dir)

    feeder = threading.Thread(target=feed, name="hand-ins", daemon=True)
    writer = Writer(settings, ASSIGNMENT)
    with private_work_root():
        try:
            prepare_machine(prepared, 2)
            with engine(2) as grading:
                writer.start()
                feeder.start()
                for hand_in, result in grading.graded(hand_ins, prepare):
                    writer.record(hand_in, result)
                    back_at[hand_in.student] = time.monotonic()
                    came_back.release()
        finally:
            writer.close()
            close_templates()
    writer.finish()
    feeder.join(timeout=GRADER_TIMEOUT)

    assert late == []
    assert sorted(back_at) == STUDENTS
    # each result came back while the queue was empty, before the next hand-in was put
    assert all(back_at[a] < put_at[b] for a, b in zip(STUDENTS, STUDENTS[1:]))
    db_url = sqlite_url(course)
    assert gradebook_rows(db_url) == serial_sqlite_run.rows
    assert output_files(course) == serial_sqlite_run.files
