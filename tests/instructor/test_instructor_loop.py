"""The instructor's make targets: mistakes in nbgrader_config.py or a name stop them before
nbgrader runs, deadlines reach the gradebook, a student's side runs in their own home,
and grading installs only what grading uses.

Each make target runs in a throw-away copy of the course (testsupport.course.copy_course).
"""

import os
import re
import sqlite3
import subprocess
import sys

import pytest

from testsupport.course import ROOT, copy_course, make, ready_for_make

# every target that runs nbgrader (or the grader), with what it needs besides ASSIGNMENT
NBGRADER_TARGETS = {"release": [], "release-to-exchange": [], "collect": [], "autograde": [],
                    "feedback": [], "release-feedback": [], "grades": [],
                    "fetch": [], "submit": [], "fetch-feedback": [],
                    "roster": ["ROSTER=students.csv"], "check-config": []}
SHARED_EXCHANGE = "/usr/local/share/nbgrader/exchange"


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """A copy of the course, released once with a due date, handed to bob with make fetch."""
    folder = copy_course(str(tmp_path_factory.mktemp("make") / "course"), for_make=True)
    release = make(folder, "release", "ASSIGNMENT=parameters",
                   "DUEDATE=2026-12-01 17:00:00 UTC")
    out = make(folder, "release-to-exchange", "ASSIGNMENT=parameters")
    fetch = make(folder, "fetch", "ASSIGNMENT=parameters", "STUDENT=bob")
    submit = make(folder, "submit", "ASSIGNMENT=parameters", "STUDENT=bob")
    collect = make(folder, "collect", "ASSIGNMENT=parameters")
    return {"folder": folder, "release": release, "release-to-exchange": out, "fetch": fetch,
            "submit": submit, "collect": collect}


def with_config(folder, change):
    """nbgrader_config.py of the copy with `change` (old, new) applied; returns the line."""
    path = os.path.join(folder, "nbgrader_config.py")
    with open(os.path.join(ROOT, "nbgrader_config.py"), encoding="utf-8") as handle:
        text = handle.read()
    old, new = change
    assert old in text
    text = text.replace(old, new, 1)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    return text[:text.index(new)].count("\n") + 1


def test_release_with_a_due_date_records_it_in_the_gradebook(course):
    assert course["release"].returncode == 0, course["release"].stderr[-3000:]
    database = os.path.join(course["folder"], "course-data", "gradebook.db")
    with sqlite3.connect(database) as db:
        due = db.execute("select duedate from assignment where name = 'parameters'").fetchone()
    assert due[0].startswith("2026-12-01 17:00:00")


def test_a_simulated_student_fetches_and_submits_in_a_home_of_their_own(course):
    for step in ("release-to-exchange", "fetch", "submit", "collect"):
        assert course[step].returncode == 0, (step, course[step].stderr[-3000:])
    home = os.path.join(course["folder"], "course-data", "students", "bob")
    assert os.path.isfile(os.path.join(home, "parameters", "parameters.ipynb"))
    # nbgrader keeps what bob submitted in bob's own cache, not the instructor's
    cache = os.path.join(home, ".local", "share", "jupyter", "nbgrader_cache", "gptcourse")
    assert [name for name in os.listdir(cache) if name.startswith("bob+parameters+")]
    submitted = os.path.join(course["folder"], "course-data", "submitted", "bob", "parameters")
    assert os.path.isfile(os.path.join(submitted, "parameters.ipynb"))


def test_a_bad_due_date_stops_release_before_nbgrader_runs(course):
    result = make(course["folder"], "release", "ASSIGNMENT=parameters", "DUEDATE=next friday-ish")
    assert result.returncode == 2
    assert "due date 'next friday-ish' is not a date" in result.stderr
    assert "generate_assignment" not in result.stdout


@pytest.mark.parametrize("mistake, message", [
    (("c.Execute.timeout = 60", "c.Execute.timeout = (60"), "was never closed"),
    (("c.Execute.timeout = 60", "c.Execute.timeout = sixty"), "NameError: name 'sixty'"),
    (('c.CourseDirectory.course_id = "gptcourse"',
      'c.CourseDirectory.course_id = "gptcourse"\nos.environ["HOME"]["x"]'), "TypeError"),
], ids=["syntax error", "undefined name", "exception"])
def test_a_broken_config_stops_every_nbgrader_target_with_its_file_and_line(
        course, tmp_path, mistake, message):
    folder = copy_course(str(tmp_path / "course"), for_make=True)
    data = os.path.join(folder, "course-data")
    os.makedirs(data)
    with open(os.path.join(data, "grades.csv"), "w", encoding="utf-8") as handle:
        handle.write("the grades of last week\n")
    with open(os.path.join(folder, "students.csv"), "w", encoding="utf-8") as handle:
        handle.write("id\nalice\n")
    line = with_config(folder, mistake)
    if "\n" in mistake[1]:
        line += 1
    exchange_existed = os.path.exists(SHARED_EXCHANGE)
    # every target for the first mistake; two for the others (the same check runs)
    targets = NBGRADER_TARGETS if "never closed" in message else ["grades", "release"]
    for target in targets:
        extra = NBGRADER_TARGETS[target]
        result = make(folder, target, "ASSIGNMENT=parameters", "STUDENT=bob", *extra)
        assert result.returncode == 2, (target, result.stdout, result.stderr)
        assert f"nbgrader_config.py, line {line}: " in result.stderr, (target, result.stderr)
        assert message in result.stderr, (target, result.stderr)
    assert sorted(os.listdir(folder)) == sorted(["Makefile", "nbgrader_config.py",
                                                 "requirements.lock", "requirements.txt",
                                                 "pyproject.toml",
                                                 "solutions", "exercises", ".venv",
                                                 "course-data", "students.csv"])
    assert os.listdir(data) == ["grades.csv"]
    with open(os.path.join(data, "grades.csv"), encoding="utf-8") as handle:
        assert handle.read() == "the grades of last week\n"
    assert os.path.exists(SHARED_EXCHANGE) == exchange_existed


def test_an_unknown_assignment_fails_every_target(course):
    solutions = os.path.join(course["folder"], "solutions")
    released = sorted(name for name in os.listdir(solutions)
                      if os.path.isdir(os.path.join(solutions, name)))
    assert {"parameters", "logits-to-text"} <= set(released)
    for target, extra in NBGRADER_TARGETS.items():
        result = make(course["folder"], target, "ASSIGNMENT=parametres", "STUDENT=bob", *extra)
        assert result.returncode == 2, (target, result.stdout, result.stderr)
        assert "unknown assignment 'parametres'" in result.stderr
        assert f"({', '.join(released)})" in result.stderr


def test_a_setting_of_the_wrong_type_is_a_clear_error_not_a_traceback(tmp_path):
    folder = copy_course(str(tmp_path / "course"), for_make=True)
    line = with_config(folder, ("c.SandboxGrader.memory_mib = 3072",
                                'c.SandboxGrader.memory_mib = "lots"'))
    grader = subprocess.run([sys.executable, "-m", "grader", "autograde", "parameters"],
                            cwd=folder, capture_output=True, text=True)
    assert grader.returncode == 2
    assert "Traceback" not in grader.stderr
    assert (f"nbgrader_config.py, line {line}: c.SandboxGrader.memory_mib = 'lots': "
            f"The 'memory_mib' trait expected an int, not the str 'lots'") in grader.stderr
    result = make(folder, "autograde", "ASSIGNMENT=parameters")
    assert result.returncode == 2 and "expected an int" in result.stderr


def test_a_misspelt_setting_name_warns_with_the_line_and_the_likely_name(tmp_path):
    folder = copy_course(str(tmp_path / "course"), for_make=True)
    line = with_config(folder, ("c.Execute.timeout = 60", "c.Execute.timout = 60"))
    result = make(folder, "check-config")
    assert result.returncode == 0, result.stderr
    assert (f"nbgrader_config.py, line {line}: warning: c.Execute.timout is ignored: Execute "
            f"has no setting 'timout' (did you mean timeout?)") in result.stderr
    with_config(folder, ("c.SandboxGrader.memory_mib = 3072", "c.SandboxGrder.memory_mib = 3072"))
    result = make(folder, "check-config")
    assert "c.SandboxGrder.memory_mib is ignored" in result.stderr
    assert "(did you mean SandboxGrader?)" in result.stderr


def test_the_course_config_is_clean():
    result = subprocess.run([sys.executable, "-m", "grader", "check-config"],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0 and result.stderr == "", result.stderr


def test_make_help_lists_every_target():
    with open(os.path.join(ROOT, "Makefile"), encoding="utf-8") as handle:
        targets = set(re.findall(r"^([a-z][a-z-]*):", handle.read(), re.M))
    assert {"test", "book", "autograde", "rehearse", "fetch-feedback", "roster"} <= targets
    shown = make(ROOT, "help").stdout
    listed = set(re.findall(r"^  make ([a-z-]+)", shown, re.M))
    assert targets - {"help"} == listed, (targets, listed)


def fake_machine(tmp_path, missing):
    """A PATH on which the commands `missing` do not exist and apt-get only records its
    arguments (in the file it returns)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for folder in ("/usr/local/bin", "/usr/bin", "/bin"):
        for name in os.listdir(folder):
            target = bin_dir / name
            if name in missing or name == "apt-get" or os.path.lexists(target):
                continue
            target.symlink_to(os.path.join(folder, name))
    log = tmp_path / "apt-get.log"
    apt = bin_dir / "apt-get"
    apt.write_text(f'#!/bin/sh\necho "$@" >> {log}\n')
    apt.chmod(0o755)
    return str(bin_dir), log


def test_grading_installs_only_the_sandbox_and_the_tests_install_everything(tmp_path):
    path, log = fake_machine(tmp_path, {"bwrap", "chromium", "npm"})
    env = {"PATH": path}
    make(ROOT, "autograde", "ASSIGNMENT=no-such-assignment", env=env)
    installs = [line for line in log.read_text().splitlines() if line.startswith("install")]
    assert len(installs) == 1 and installs[0].split()[-1] == "bubblewrap", installs
    assert not re.search(r"chromium|npm|postgresql", log.read_text())
    log.write_text("")
    make(ROOT, "system", env=env)
    installs = [line for line in log.read_text().splitlines() if line.startswith("install")]
    assert installs and {"bubblewrap", "chromium", "npm"} <= set(installs[0].split())


def test_make_autograde_passes_student_ids_with_spaces_accents_and_dashes_intact(tmp_path):
    from testsupport.hand_in import hand_in
    from testsupport.tiny_course import ASSIGNMENT, NOTEBOOK, correct, make_course, released

    course = ready_for_make(make_course(str(tmp_path / "course")))
    nb = released(course)
    for student in ("José María", "José", "María", "-x"):
        hand_in(course, student, ASSIGNMENT, {NOTEBOOK + ".ipynb": correct(nb)})
    result = make(course, "autograde", f"ASSIGNMENT={ASSIGNMENT}", "JOBS=1",
                  "STUDENTS=José María,-x")
    assert "autograding tiny: 2 submission(s)" in result.stderr, result.stderr[-3000:]
    assert "José María: 6/6" in result.stderr
    graded = os.listdir(os.path.join(course, "course-data", "reports", ASSIGNMENT))
    assert "José%20María.json" in graded  # one student, not "José" and "María"
    assert "José.json" not in graded and "María.json" not in graded
