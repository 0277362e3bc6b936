"""A submission becomes a job of plain data (grader.worker.job): the notebook and the
student's files as bytes, a notebook that cannot be read kept as its reason."""

import os
import pickle

from grader.plan import submission as submission_module
from grader.settings import Limits
from grader.worker import Assignment, read_job


INSTRUCTOR = {"hw": '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'}


HW = Assignment("hw", INSTRUCTOR, Limits(timeout=60), "gptcourse")


def handed_in(folder, notebook=b'{"cells": []}', **files):
    os.makedirs(folder, exist_ok=True)
    if notebook is not None:
        with open(os.path.join(folder, "hw.ipynb"), "wb") as handle:
            handle.write(notebook)
    for name, content in files.items():
        path = os.path.join(folder, name.replace("__", os.sep))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(content)
    return folder


def test_a_job_carries_the_notebook_and_the_students_files_as_bytes(tmp_path):
    folder = handed_in(str(tmp_path / "ada"), b'{"cells": [1]}', **{"data.csv": b"1,2\n",
                                                                   "sub__notes.txt": b"hi"})
    os.symlink("/etc/passwd", os.path.join(folder, "secret.txt"))
    job = read_job(HW, "ada", folder)
    assert job.submission == {"hw": b'{"cells": [1]}'}
    assert job.files == {"data.csv": b"1,2\n", os.path.join("sub", "notes.txt"): b"hi"}
    assert job.folder_notes == ["symbolic link 'secret.txt' was ignored"]
    assert job.unreadable == {}
    assert pickle.loads(pickle.dumps(job)) == job  # what a worker on another machine gets
    assert folder not in repr(job)  # no path of the course travels with it


def test_a_notebook_over_the_size_cap_is_reported_unread_as_before(tmp_path, monkeypatch):
    monkeypatch.setattr(submission_module, "MAX_NOTEBOOK_BYTES", 1 << 20)
    folder = handed_in(str(tmp_path / "ada"), b" " * ((1 << 20) + 1))
    job = read_job(HW, "ada", folder)
    assert job.submission == {}
    assert job.unreadable == {"hw": "notebook too large (1 MiB; at most 1 MiB): not graded"}


def test_a_linked_or_missing_notebook_is_kept_as_its_reason(tmp_path):
    linked = handed_in(str(tmp_path / "ada"), None)
    os.symlink("/etc/hostname", os.path.join(linked, "hw.ipynb"))
    job = read_job(HW, "ada", linked)
    assert job.unreadable == {"hw": "notebook could not be read: it is a symbolic link"}
    missing = read_job(HW, "bob", handed_in(str(tmp_path / "bob"), None))
    assert missing.submission == {} and missing.unreadable == {}
