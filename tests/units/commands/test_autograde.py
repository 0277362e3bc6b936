"""The pure parts of one autograding run (grader.autograde): which students a run takes,
the limits it prints, which hand-ins it refuses and what a refused one earns."""

import os

import nbformat
import pytest

from grader.autograde import HandIn, chosen_students, limits_in_force, refusal, refused_result
from grader.results import CheckStatus, NotebookStatus, StudentStatus
from grader.sandbox import SandboxCgroups
from grader.settings import Limits
from testsupport import tiny_course as fx
from testsupport.course import plain_settings


def course_settings(root, students=(), assignment="hw"):
    """Settings of a course at `root` whose submitted/ holds a folder per student."""
    submitted = os.path.join(root, "course-data", "submitted")
    for student in students:
        os.makedirs(os.path.join(submitted, student, assignment))
    os.makedirs(submitted, exist_ok=True)
    return plain_settings(root, submitted)


STUDENTS = ["ada", "bob", "cy", "dee", "eve"]


def test_a_run_takes_every_student_with_a_submission_sorted(tmp_path):
    settings = course_settings(str(tmp_path), ["eve", "ada", "cy", "bob", "dee"])
    os.makedirs(os.path.join(settings.submitted, "zed", "other"))  # handed in another one
    assert chosen_students(settings, "hw") == STUDENTS


@pytest.mark.parametrize("shard, expected", [
    ((1, 2), ["ada", "cy", "eve"]),
    ((2, 2), ["bob", "dee"]),
    ((1, 3), ["ada", "dee"]),
    ((3, 3), ["cy"]),
    ((1, 1), STUDENTS),
])
def test_the_shards_of_a_class_are_every_nth_sorted_student(tmp_path, shard, expected):
    settings = course_settings(str(tmp_path), STUDENTS)
    assert chosen_students(settings, "hw", shard=shard) == expected


def test_every_student_is_in_exactly_one_shard(tmp_path):
    settings = course_settings(str(tmp_path), STUDENTS)
    shards = [chosen_students(settings, "hw", shard=(k, 3)) for k in (1, 2, 3)]
    assert sorted(s for shard in shards for s in shard) == STUDENTS


def test_named_students_are_taken_in_sorted_order_and_unknown_ones_warned_of(tmp_path, capsys):
    settings = course_settings(str(tmp_path), STUDENTS)
    assert chosen_students(settings, "hw", ["eve", "nobody", "bob", "ada"]) == ["ada", "bob",
                                                                                "eve"]
    assert capsys.readouterr().err == "warning: no submission of hw from: nobody\n"
    assert chosen_students(settings, "hw", ["eve", "bob", "ada"], (2, 2)) == ["bob"]


def test_the_limits_in_force_are_said_in_words_with_or_without_cgroups(monkeypatch):
    limits = Limits(timeout=60)
    monkeypatch.setattr(SandboxCgroups, "available",
                        classmethod(lambda cls: (True, "cgroup v2 memory and pids")))
    assert limits_in_force(limits, "gptcourse", ("count_parameters", "generate_text_simple")) == (
        "sandbox limits: 60 s per cell; 3072 MiB of memory and 128 processes per sandbox in all"
        " (cgroup v2 memory and pids); writable folders 128 MiB each, files up to 64 MiB; no"
        " network; 180 s per notebook in all, restarts included\n"
        "gptcourse functions students must write themselves (stubs in the sandbox): "
        "count_parameters, generate_text_simple")
    monkeypatch.setattr(SandboxCgroups, "available", classmethod(lambda cls: (False, "no cgroup")))
    words = limits_in_force(Limits(timeout=2.5, memory_mib=1536, notebook_budget=10), "pkg", ())
    assert words == (
        "sandbox limits: 2.5 s per cell; per process only: 1536 MiB of address space each, 128"
        " processes per sandbox user (no cgroup); writable folders 128 MiB each, files up to 64"
        " MiB; no network; 10 s per notebook in all, restarts included\n"
        "pkg functions students must write themselves (stubs in the sandbox): none")


def test_a_hand_in_is_refused_for_its_name_or_a_linked_folder_and_otherwise_graded(tmp_path):
    settings = course_settings(str(tmp_path), ["ada"])
    os.symlink(os.path.join(settings.submitted, "ada"), os.path.join(settings.submitted, "bob"))

    def why(student):
        return refusal(settings, HandIn(student, "hw", os.path.join(settings.submitted, student,
                                                                    "hw"), {}))

    assert why("ada") is None
    assert why("bob") == "submission folder is a symbolic link; not graded"
    assert why("\udce9ve") == "the student folder's name is not valid UTF-8 text; not graded"
    assert why("a\tb").startswith("student id 'a\\tb' ") and why("a\tb").endswith("; not graded")


def test_a_refused_hand_in_earns_nothing_for_every_check_of_every_notebook(tmp_path):
    path = str(tmp_path / "tiny.ipynb")
    nbformat.write(fx.instructor_notebook(), path)
    reason = "submission folder is a symbolic link; not graded"
    result = refused_result(HandIn("eve", "tiny", str(tmp_path), {"tiny": path}), reason)
    assert (result.student, result.assignment, result.status) == ("eve", "tiny",
                                                                  StudentStatus.REFUSED)
    assert result.notes == [reason]
    [notebook] = result.notebooks
    assert (notebook.notebook, notebook.status, notebook.message) == (
        "tiny", NotebookStatus.UNREADABLE, reason)
    assert [(t.grade_id, t.points, t.max_points, t.status, t.message) for t in notebook.tests] == [
        (grade_id, 0.0, points, CheckStatus.NOT_RUN, reason)
        for grade_id, points in fx.POINTS.items()]
    assert (result.points, result.max_points) == (0.0, fx.MAX_SCORE)
