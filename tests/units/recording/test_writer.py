"""What the writer records (grader.recording.writer): one failed student leaves no files, a
failed write no temporary, and the leftovers of killed writers are removed while those of
running ones are kept."""

import json
import os
import subprocess
import sys
import time

import nbformat
import pytest

from testsupport import tiny_course as fx
from grader import files
from grader.recording import writer as record_module
from grader.files import owner_tag
from grader.results import CheckResult, NotebookResult, StudentResult


def _record(student):
    tests = [CheckResult(g, p, p, "passed") for g, p in fx.POINTS.items()]
    autograded = json.loads(nbformat.writes(fx.instructor_notebook()))
    return StudentResult(student, fx.ASSIGNMENT, notes=["\udce9 note"], seconds=1.0,
                         notebooks=[NotebookResult(fx.NOTEBOOK, "graded", tests=tests,
                                                   autograded=autograded)])


def test_a_failure_while_recording_one_student_is_reported_and_leaves_no_files(tmp_path,
                                                                           monkeypatch):
    from grader.plan import HandIn

    root = str(tmp_path)
    settings = type("S", (), {"autograded": os.path.join(root, "autograded"),
                              "reports": os.path.join(root, "reports"),
                              "db_url": "unused", "course_id": "tinycourse",
                              "late_penalties": lambda self: None})()
    recorded, connections = [], []

    class FakeGradebook:
        def __init__(self, db_url, course_id):
            self.closed = self.gone = False
            connections.append(self)

        def close(self):
            self.closed = True
            if self.gone:
                raise RuntimeError("cannot close: the database went away")

    def fake_record(gradebook, record, timestamp, late_penalties=None):
        assert not gradebook.closed
        if record.student == "broken":
            gradebook.gone = True
            raise RuntimeError("database went away")
        recorded.append((record.student, connections.index(gradebook)))

    monkeypatch.setattr(record_module, "open_gradebook", FakeGradebook)
    monkeypatch.setattr(record_module, "record_in_gradebook", fake_record)
    writer = record_module.Writer(settings, fx.ASSIGNMENT)
    for student in ("broken", "fine", "also-fine"):
        job = HandIn(student, fx.ASSIGNMENT, os.path.join(root, "submitted", student), {})
        writer.record(job, _record(student))
    assert writer.failures == [("broken", False)]
    # the failed student's connection was let go; the next ones share a new one
    assert recorded == [("fine", 1), ("also-fine", 1)] and connections[0].closed
    writer.close()
    assert connections[1].closed and len(connections) == 2
    with open(os.path.join(root, "reports", fx.ASSIGNMENT, "broken.json")) as handle:
        assert "not recorded" in " ".join(json.load(handle)["notes"])
    assert not os.path.exists(os.path.join(root, "autograded", "broken", fx.ASSIGNMENT,
                                           fx.NOTEBOOK + ".ipynb"))
    assert os.path.exists(os.path.join(root, "autograded", "fine", fx.ASSIGNMENT,
                                       fx.NOTEBOOK + ".ipynb"))
    with open(os.path.join(root, "reports", fx.ASSIGNMENT, "fine.json"), encoding="utf-8") as f:
        assert json.load(f)["notes"] == ["\\udce9 note"]
    assert not [p for p in fx.all_files(root) if p.endswith(".tmp")]


def test_a_write_that_fails_leaves_no_temporary_file(tmp_path, monkeypatch):
    def failing_writes(nb, *args, **kwargs):
        raise OSError("disk full")

    record = _record("s")
    staged = files.StagedFiles()
    staged.write(str(tmp_path / "first.txt"), "one")
    monkeypatch.setattr(record_module.nbformat, "writes", failing_writes)
    with pytest.raises(OSError, match="disk full"):
        record_module.write_autograded(str(tmp_path), "s", "a", record,
                                       str(tmp_path / "none"), staged)
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == []


def _leftover(folder, target, tag):
    """A temporary as the writer names it, for `target`, left by the process `tag`."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f".{target}.{tag}.abc123.tmp"
    path.write_text("{")
    return path


def test_what_a_killed_writer_left_is_removed_and_a_running_writer_is_left_alone(tmp_path):
    host = owner_tag().split("-")[0]
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip() + "-1"
    running = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        reports = tmp_path / "reports"
        autograded = tmp_path / "autograded"
        killed = [_leftover(reports / "a", "s1.json", f"{host}-{gone}"),
                  _leftover(reports, "a.json", f"{host}-{gone}"),
                  _leftover(autograded / "s1" / "a", "tiny.ipynb", f"{host}-{gone}")]
        alive = _leftover(reports / "a", "s2.json", owner_tag(running.pid))
        elsewhere = _leftover(reports / "a", "s3.json", f"{host}x-{gone}")
        old = _leftover(reports / "a", "s4.json", f"{host}x-{gone}")
        stale = time.time() - files.STALE_SECONDS - 60
        os.utime(old, (stale, stale))
        other_assignment = _leftover(autograded / "s1" / "b", "tiny.ipynb", f"{host}-{gone}")

        removed = record_module.remove_assignment_leftovers(str(reports), str(autograded), "a")

        assert removed == 4
        assert [p.exists() for p in killed] == [False, False, False]
        assert not old.exists()
        assert alive.exists()  # its writer still runs
        assert elsewhere.exists()  # another machine's writer may still be writing it
        assert other_assignment.exists()  # not this run's to tidy
    finally:
        running.kill()
        running.wait()


def test_a_gradebook_that_stops_answering_is_tried_again_then_stops_the_run_with_one_error(
        tmp_path, monkeypatch, capsys):
    from sqlalchemy.exc import OperationalError

    from grader.plan import HandIn

    root = str(tmp_path)
    settings = type("S", (), {"autograded": os.path.join(root, "autograded"),
                              "reports": os.path.join(root, "reports"),
                              "db_url": "postgresql+psycopg2://grader:secret@db:5432/course",
                              "course_id": "tinycourse", "gradebook_retry_seconds": 30.0,
                              "late_penalties": lambda self: None})()
    tries, answering = [], [True, False, False, True]  # per try: whether the database answers

    class FakeGradebook:
        def __init__(self, db_url, course_id):
            pass

        def close(self):
            pass

    def fake_record(gradebook, record, timestamp, late_penalties=None):
        tries.append(record.student)
        if not (answering.pop(0) if answering else False):
            raise OperationalError("INSERT", {}, Exception("Connection refused"))

    monkeypatch.setattr(record_module, "open_gradebook", FakeGradebook)
    monkeypatch.setattr(record_module, "record_in_gradebook", fake_record)
    writer = record_module.Writer(settings, fx.ASSIGNMENT)

    def hand_in(student):
        return HandIn(student, fx.ASSIGNMENT, os.path.join(root, "submitted", student), {})

    writer.record(hand_in("first"), _record("first"))
    writer.record(hand_in("second"), _record("second"))  # refused twice, then recorded
    assert tries == ["first", "second", "second", "second"] and writer.failures == []
    assert "the gradebook answers again" in capsys.readouterr().err
    settings.gradebook_retry_seconds = 0.3
    with pytest.raises(record_module.GradebookGone) as stopped:
        writer.record(hand_in("third"), _record("third"))  # the database never comes back
    message = str(stopped.value)
    assert message.startswith("the gradebook postgresql+psycopg2://grader:***@db:5432/course "
                              "stopped answering (Connection refused) and did not answer again "
                              "within 0.3 s")
    assert "after 2 student(s) recorded" in message and "secret" not in message
    assert writer.recorded == 2 and writer.failures == []
    assert not os.path.exists(os.path.join(root, "autograded", "third", fx.ASSIGNMENT,
                                           fx.NOTEBOOK + ".ipynb"))  # staged, discarded
    assert not [p for p in fx.all_files(root) if p.endswith(".tmp")]
