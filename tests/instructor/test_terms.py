"""A term carried over and a term kept, on the tiny course.

make new-term: next term's course in a new folder, due dates moved by whole weeks on the
course's clock (weekday and time of day kept across daylight saving time), a new salt, a
course id of its own, nothing of this term's state (a file of every kind planted stays
behind); never this term's id on this term's exchange, never over an existing folder.
make archive-term / restore-term: the term's data and what regrading it as graded needs
(rubrics, the released-solutions record, the explain state) in one archive whose checksum
is checked, restored elsewhere whole; every file of the students' work or values (the
defense sheets and similarity reports included) removed only after the grace period and a
confirmation, the grade record kept and both listed; the archive restored and the class
regraded, agreeing."""

import datetime
import hashlib
import json
import os
import shutil
import subprocess
import sys
import zoneinfo

import pytest
from nbgrader.api import Gradebook

from testsupport.course import nbgrader_env, run_grader
from testsupport.gradebook import gradebook_scores, sqlite_url
from testsupport.hand_in import hand_in
from testsupport.term_state import TERM_STATE, plant
from testsupport.tiny_course import (ASSIGNMENT, NOTEBOOK, correct, make_course, released,
                                     tree_hashes)

BERLIN = zoneinfo.ZoneInfo("Europe/Berlin")
OLD_ID, NEW_ID = "tinycourse-2026-fall", "tinycourse-2027-spring"
# this term's due dates, on Berlin's clock: both in summer time (+02:00)
DUES = {ASSIGNMENT: datetime.datetime(2026, 9, 8, 17, 0), "second": datetime.datetime(
    2026, 10, 20, 23, 59)}


def grader(course, *args):
    return subprocess.run([sys.executable, "-m", "grader", *args], cwd=course,
                          env=nbgrader_env(), capture_output=True, text=True, timeout=600)


def utc(local):
    return local.replace(tzinfo=BERLIN).astimezone(datetime.timezone.utc).replace(tzinfo=None)


def berlin(naive_utc):
    return naive_utc.replace(tzinfo=datetime.timezone.utc).astimezone(BERLIN)


@pytest.fixture(scope="module")
def this_term(tmp_path_factory):
    """The tiny course as a term: its id names the term, two assignments with due dates, a
    student with a grade and an extension, a rubric, and a file of every kind a term
    leaves (its released solutions, reports, defense sheets, queue, ...)."""
    course = make_course(str(tmp_path_factory.mktemp("terms") / "course-2026-fall"))
    config = os.path.join(course, "nbgrader_config.py")
    text = open(config).read().replace('"tinycourse"', f'"{OLD_ID}"')
    open(config, "w").write(text + 'c.StudentVariants.salt = "2026-fall"\n')
    shutil.copytree(os.path.join(course, "source", ASSIGNMENT),
                    os.path.join(course, "source", "second"))
    with Gradebook(sqlite_url(course), OLD_ID) as gb:
        for name, due in DUES.items():
            gb.update_or_create_assignment(name, duedate=utc(due))
        gb.update_or_create_student("alice", first_name="Alice")
        gb.add_submission(ASSIGNMENT, "alice").extension = datetime.timedelta(hours=48)
        gb.db.commit()
    for name in ("extensions.csv", "regrade-requests.csv", "gradebook-url.txt"):
        open(os.path.join(course, name), "w").write("alice,tiny,48,,\n")
    hand_in(course, "alice", ASSIGNMENT, {NOTEBOOK + ".ipynb": correct(released(course))})
    os.makedirs(os.path.join(course, "rubrics"))
    open(os.path.join(course, "rubrics", f"{ASSIGNMENT}.yaml"), "w").write("cell: explain\n")
    with open(os.path.join(course, "solutions-released.csv"), "w") as handle:
        handle.write(f"assignment,latest_due_utc,released_utc\n{ASSIGNMENT},2026-09-10 15:00:00,"
                     f"2026-09-11 09:00:00\n")
    plant(course)
    return course


@pytest.fixture(scope="module")
def next_term(this_term):
    target = os.path.join(os.path.dirname(this_term), "course-2027-spring")
    run = grader(this_term, "new-term", target, "--term", "2027-spring", "--start",
                 "2027-01-18", "--zone", "Europe/Berlin")
    assert run.returncode == 0, run.stdout + run.stderr
    return target, run.stdout


def test_the_due_dates_move_by_whole_weeks_keeping_weekday_and_time_in_berlin(next_term):
    target, said = next_term
    with Gradebook(sqlite_url(target), NEW_ID) as gb:
        dues = {a.name: a.duedate for a in gb.assignments}
    # the first due date (Tuesday 2026-09-08) moves to the first Tuesday on or after the
    # start, 2027-01-19: 19 weeks, from summer time (+02:00) into winter time (+01:00)
    assert dues == {ASSIGNMENT: datetime.datetime(2027, 1, 19, 16, 0),
                    "second": datetime.datetime(2027, 3, 2, 22, 59)}
    for name, due in dues.items():
        assert berlin(due).strftime("%A %H:%M") == DUES[name].strftime("%A %H:%M")
        assert berlin(due).utcoffset() == datetime.timedelta(hours=1)
    assert "due dates moved by 19 week(s)" in said
    assert f"  {ASSIGNMENT}: due 2027-01-19 16:00 UTC" in said


def test_the_new_term_has_a_new_salt_and_course_id_and_nothing_of_the_students(next_term,
                                                                                this_term):
    target, said = next_term
    config = open(os.path.join(target, "nbgrader_config.py")).read()
    assert f"c.CourseDirectory.course_id = {NEW_ID!r}" in config
    [salt_line] = [line for line in config.splitlines() if "StudentVariants.salt" in line]
    salt = salt_line.split("=", 1)[1].strip().strip("'")
    assert salt.startswith("2027-spring-") and len(salt) == len("2027-spring-") + 8
    assert salt in said and "2026-fall" not in salt
    # the course's content only: not one of the term's files planted in this_term
    source, release = (sorted(f"{folder}/{name}" for name in tree_hashes(
        os.path.join(this_term, folder))) for folder in ("source", "release"))
    assert sorted(tree_hashes(target)) == sorted(
        ["course-data/gradebook.db", "nbgrader_config.py", f"rubrics/{ASSIGNMENT}.yaml",
         *source, *release])
    assert not set(tree_hashes(target)) & set(TERM_STATE.values()) - {"course-data/gradebook.db"}
    assert ("  left behind: course-data/, extensions.csv, gradebook-url.txt, "
            "regrade-requests.csv, solutions-released.csv") in said
    # so the new term's make publish puts out no solutions on its first day
    from grader.publish.solutions_policy import assignments_with_public_solutions
    from grader.settings import load  # the publishing wing's own reading of the record
    assert assignments_with_public_solutions(load(target)) == []
    assert assignments_with_public_solutions(load(this_term)) == [ASSIGNMENT]
    assert f"  course id: {NEW_ID} (named after the term; this term's is {OLD_ID})" in said
    with Gradebook(sqlite_url(target), NEW_ID) as gb:
        assert gb.students == []
        assert [s for a in gb.assignments for s in a.submissions] == []
    # the instructor's and the students' notebooks are carried over as they were
    for folder in ("source", "release"):
        assert tree_hashes(os.path.join(target, folder)) == tree_hashes(
            os.path.join(this_term, folder))
    # this term is left as it was
    assert "2026-fall" in open(os.path.join(this_term, "nbgrader_config.py")).read()


def test_on_a_shared_exchange_the_new_term_gets_an_id_of_its_own_and_never_this_terms(
        tmp_path):
    """The hub's exchange is every course's: a new course with this term's id would take
    this term's hand-ins from its inbound folder."""
    course = make_course(str(tmp_path / "course"))
    shared = str(tmp_path / "exchange")
    config = os.path.join(course, "nbgrader_config.py")
    text = open(config).read()
    local = 'c.Exchange.root = os.path.join(ROOT, "course-data", "exchange")'
    assert local in text
    open(config, "w").write(text.replace(local, f"c.Exchange.root = {shared!r}"))
    made = grader(course, "new-term", str(tmp_path / "next"), "--term", "2027-spring",
                  "--weeks", "19")
    assert made.returncode == 0, made.stdout + made.stderr
    assert "c.CourseDirectory.course_id = 'tinycourse-2027-spring'" in open(
        tmp_path / "next" / "nbgrader_config.py").read()
    assert ("  course id: tinycourse-2027-spring (named after the term; this term's is "
            "tinycourse)") in made.stdout
    kept = grader(course, "new-term", str(tmp_path / "kept"), "--term", "2027-spring",
                  "--weeks", "19", "--course-id", "tinycourse")
    assert kept.returncode == 2, kept.stdout + kept.stderr
    assert (f"the new course would keep the course id 'tinycourse' on this term's exchange, "
            f"{shared}: its grading service would take this term's hand-ins from "
            f"tinycourse/inbound there") in kept.stderr
    assert sorted(os.listdir(tmp_path)) == ["course", "next"]


def test_make_release_in_the_new_course_keeps_its_due_dates(next_term):
    target, _ = next_term
    run = subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment", ASSIGNMENT,
                          "--force"], cwd=target, env=nbgrader_env(), capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    with Gradebook(sqlite_url(target), NEW_ID) as gb:
        assert gb.find_assignment(ASSIGNMENT).duedate == datetime.datetime(2027, 1, 19, 16, 0)


def test_new_term_never_writes_over_an_existing_folder(next_term, this_term):
    target, _ = next_term
    before = tree_hashes(target)
    run = grader(this_term, "new-term", target, "--term", "2027-spring", "--start",
                 "2027-01-18")
    assert run.returncode == 2
    assert f"{target} exists already" in run.stderr and "never over another" in run.stderr
    assert tree_hashes(target) == before
    empty = os.path.join(os.path.dirname(target), "empty")
    os.mkdir(empty)
    assert grader(this_term, "new-term", empty, "--term", "x", "--weeks", "1").returncode == 2
    assert os.listdir(empty) == []


def test_a_start_before_this_terms_due_dates_writes_nothing(this_term):
    parent = os.path.dirname(this_term)
    before = sorted(os.listdir(parent))
    run = grader(this_term, "new-term", os.path.join(parent, "too-early"), "--term",
                 "2026-summer", "--start", "2026-06-01", "--zone", "Europe/Berlin")
    assert run.returncode == 2 and "is not after this term's first due date" in run.stderr
    assert sorted(os.listdir(parent)) == before


STUDENTS = {"alice": {}, "bob": {"double_answer": "def double(x):\n    return 2.0 * x\n"},
            "carol": {"answer_answer": "answer = 41\n"}}


def data_hashes(course):
    return tree_hashes(os.path.join(course, "course-data"))


# what graded_term plants of a term's files (grading and the commands write the others)
PLANTED = ("defense sheet", "defense sheets to print", "explain state", "service check try",
           "LMS file", "exchange hand-in")
# what grading the explain answers again as they were graded needs, besides the notebooks
REGRADING_AS_GRADED = (f"rubrics/{ASSIGNMENT}.yaml", "solutions-released.csv",
                       TERM_STATE["explain state"], "nbgrader_config.py")


@pytest.fixture(scope="module")
def graded_term(tmp_path_factory):
    """The tiny class handed in, graded, its feedback, grades, item analysis and similarity
    report written, one hand-in in the grading service's queue, a rubric, the record of the
    released solutions, and planted: defense sheets, the explain grading state, a check
    tried through the service, an LMS file, a hand-in in the local exchange; then
    archived."""
    course = make_course(str(tmp_path_factory.mktemp("archive") / "course"))
    for student, answers in STUDENTS.items():
        hand_in(course, student, ASSIGNMENT,
                {NOTEBOOK + ".ipynb": correct(released(course), **answers)})
    run_grader(course, ASSIGNMENT, check=True)
    subprocess.run([sys.executable, "-m", "nbgrader", "generate_feedback", ASSIGNMENT,
                    "--force"], cwd=course, env=nbgrader_env(), check=True,
                   capture_output=True, timeout=600)
    assert grader(course, "grades").returncode == 0
    assert grader(course, "similarity", ASSIGNMENT).returncode == 0
    os.makedirs(os.path.join(course, "rubrics"))
    open(os.path.join(course, "rubrics", f"{ASSIGNMENT}.yaml"), "w").write("cell: explain\n")
    open(os.path.join(course, "solutions-released.csv"), "w").write(
        f"assignment,latest_due_utc,released_utc\n{ASSIGNMENT},2026-09-10 15:00:00,"
        f"2026-09-11 09:00:00\n")
    plant(course, PLANTED)
    from grader.service import JobSource, SourceKind, course_store  # the service's own queue
    store = course_store(os.path.join(course, "course-data"))
    store.hand_in("alice", ASSIGNMENT, {NOTEBOOK + ".ipynb": b'{"cells": []}'},
                  JobSource.of(SourceKind.ZIP, "download.zip"))
    before = data_hashes(course)
    run = grader(course, "archive-term")
    assert run.returncode == 0, run.stdout + run.stderr
    [archive] = [os.path.join(course, "term-archives", n)
                 for n in os.listdir(os.path.join(course, "term-archives"))
                 if n.endswith(".tar.gz")]
    return course, archive, before, run.stdout


def test_the_archive_holds_the_terms_data_and_its_checksum_checks(graded_term):
    course, archive, before, said = graded_term
    digest = hashlib.sha256(open(archive, "rb").read()).hexdigest()
    assert open(archive + ".sha256").read() == f"{digest}  {os.path.basename(archive)}\n"
    assert subprocess.run(["sha256sum", "-c", os.path.basename(archive) + ".sha256"],
                          cwd=os.path.dirname(archive), capture_output=True).returncode == 0
    assert f"sha256 {digest}" in said
    from grader.terms import read_archive  # the archive's own reader
    files = read_archive(archive).files
    for path in ("course-data/gradebook.db", "course-data/service/queue.db",
                 "course-data/reports/tiny-items.csv", "nbgrader_config.py",
                 f"source/{ASSIGNMENT}/{NOTEBOOK}.ipynb", *REGRADING_AS_GRADED,
                 "course-data/reports/similarity-tiny.csv",
                 *(TERM_STATE[kind] for kind in PLANTED)):
        assert path in files, path
    for student in STUDENTS:
        assert f"course-data/submitted/{student}/{ASSIGNMENT}/{NOTEBOOK}.ipynb" in files
        assert f"course-data/feedback/{student}/{ASSIGNMENT}/{NOTEBOOK}.html" in files
    assert any(p.startswith("course-data/service/blobs/") for p in files)
    # every file but the SQLite databases (copied through SQLite's backup) as it is
    assert {p: h for p, h in files.items() if p.startswith("course-data/")
            and not p.endswith(".db")} == {
        "course-data/" + p: h for p, h in before.items() if not p.endswith(".db")}


def test_the_archive_restored_elsewhere_holds_what_regrading_as_graded_needs(graded_term,
                                                                             tmp_path):
    _, archive, _, _ = graded_term
    run = grader(str(tmp_path), "restore-term", archive)
    assert run.returncode == 0, run.stdout + run.stderr
    from grader.terms import read_archive  # the archive's own reader
    files = read_archive(archive).files
    for path in REGRADING_AS_GRADED:
        restored = hashlib.sha256(open(os.path.join(tmp_path, path), "rb").read()).hexdigest()
        assert restored == files[path], path
    assert open(tmp_path / "rubrics" / f"{ASSIGNMENT}.yaml").read() == "cell: explain\n"
    assert set(tree_hashes(str(tmp_path))) == set(files)


def test_a_damaged_archive_is_refused(graded_term, tmp_path):
    _, archive, _, _ = graded_term
    damaged = tmp_path / os.path.basename(archive)
    data = bytearray(open(archive, "rb").read())
    data[len(data) // 2] ^= 0xFF
    damaged.write_bytes(bytes(data))
    shutil.copy(archive + ".sha256", str(damaged) + ".sha256")
    run = grader(str(tmp_path), "restore-term", str(damaged))
    assert run.returncode == 2 and "the archive is damaged" in run.stderr
    os.unlink(str(damaged) + ".sha256")
    run = grader(str(tmp_path), "restore-term", str(damaged))
    assert run.returncode == 2 and ".sha256 is missing" in run.stderr
    assert sorted(os.listdir(tmp_path)) == [damaged.name]


@pytest.fixture(scope="module")
def purged(graded_term):
    course, archive, before, _ = graded_term
    refusals = [grader(course, "archive-term", "--purge", "--confirm")]
    assert data_hashes(course) == before
    with open(os.path.join(course, "nbgrader_config.py"), "a") as handle:
        handle.write("c.TermRetention.grace_days = 0\n")
    refusals.append(grader(course, "archive-term", "--purge"))
    assert data_hashes(course) == before
    scores = gradebook_scores(course, ASSIGNMENT)
    run = grader(course, "archive-term", "--purge", "--confirm")
    assert run.returncode == 0, run.stdout + run.stderr
    return course, archive, before, refusals, scores, run.stdout


def test_the_purge_is_refused_before_the_grace_period_and_without_confirmation(purged):
    _, _, _, (early, unconfirmed), _, _ = purged
    assert early.returncode == 2
    assert "the students' files stay until" in early.stderr
    assert "c.TermRetention.grace_days = 180 days" in early.stderr
    assert unconfirmed.returncode == 2
    assert "run again with CONFIRM=yes" in unconfirmed.stderr


# of the data folder, what holds the students' work or values: every file under these
STUDENT_WORK_FOLDERS = ("submitted/", "autograded/", "feedback/", "service/blobs/",
                        "service/checks/", "explain/", "lms/", "exchange/",
                        f"reports/{ASSIGNMENT}/", f"reports/defense-{ASSIGNMENT}/")
STUDENT_WORK_FILES = {f"reports/{ASSIGNMENT}.csv", f"reports/{ASSIGNMENT}.json",
                      f"reports/similarity-{ASSIGNMENT}.csv",
                      f"reports/similarity-{ASSIGNMENT}.html"}


def test_the_purge_removes_the_students_work_and_values_and_keeps_the_grade_record(purged):
    course, _, before, _, scores, said = purged
    after = data_hashes(course)
    gone = set(before) - set(after)
    assert gone == {p for p in before if p.startswith(STUDENT_WORK_FOLDERS)} | STUDENT_WORK_FILES
    # the defense sheets print each student's code and values; the similarity report shows
    # their code side by side; the explain state holds the comments filled with their values
    for kind in ("defense sheet", "defense sheets to print", "explain state",
                 "service check try", "similarity table", "similarity page"):
        assert not os.path.exists(os.path.join(course, TERM_STATE[kind])), kind
    for kept in ("gradebook.db", "service/queue.db", "grades.csv", "reports/tiny-items.csv",
                 "reports/tiny-items.html", "reports/summary.txt", "reports/tiny.html"):
        assert kept in after, kept
    assert after["reports/tiny-items.csv"] == before["reports/tiny-items.csv"]
    assert gradebook_scores(course, ASSIGNMENT) == scores
    assert scores["bob"]["double_visible"] == 0 and scores["alice"]["double_visible"] == 1
    record = json.load(open(os.path.join(course, "course-data", "purged-term.json")))
    assert record["files"] == len(gone)
    lines = said.splitlines()
    assert lines[0].startswith(f"removed {len(gone)} file(s) of the students' work and values")
    removed = [line[len("  removed: "):] for line in lines if line.startswith("  removed: ")]
    assert removed == record["removed"]
    assert "course-data/reports/defense-tiny/ (2 file(s))" in removed
    assert "course-data/reports/similarity-tiny.html" in removed
    handed_in = len([p for p in gone if p.startswith("submitted/")])
    assert handed_in == 2 * len(STUDENTS)  # each notebook and its timestamp.txt
    assert f"course-data/submitted/ ({handed_in} file(s))" in removed
    kept = [line[len("  kept: "):] for line in lines if line.startswith("  kept: ")]
    assert kept == record["kept"]
    assert {"course-data/gradebook.db", "course-data/reports/summary.txt",
            "course-data/reports/tiny-items.csv", "course-data/service/queue.db",
            "solutions-released.csv"} <= set(kept)
    assert not {k for k in kept if "defense" in k or "similarity" in k or "explain" in k}


def test_the_archive_restored_gives_the_files_back_and_a_regrade_agrees(purged):
    course, archive, before, _, scores, _ = purged
    run = grader(course, "restore-term", archive)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "checksum" in run.stdout and "restored" in run.stdout
    # the grace period set after the archive stays as it is here, and is named
    assert "kept as it is here (the archive's differs): nbgrader_config.py" in run.stdout
    assert "grace_days = 0" in open(os.path.join(course, "nbgrader_config.py")).read()
    after = data_hashes(course)
    assert {p: h for p, h in after.items() if p in before and not p.endswith(".db")} == {
        p: h for p, h in before.items() if not p.endswith(".db")}
    again = grader(course, "regrade", ASSIGNMENT)
    assert again.returncode == 0, again.stdout + again.stderr
    first = again.stdout.splitlines()[0]
    assert first == ("regrade of tiny (dry run: nothing changed): 3 student(s) graded again "
                     "against the current release; 0 change(s)")
    assert gradebook_scores(course, ASSIGNMENT) == scores
    # restoring again changes nothing: every file is there with the same content
    twice = grader(course, "restore-term", archive)
    assert twice.returncode == 0 and "0 file(s) restored" in twice.stdout


def test_a_restore_over_other_grades_is_refused_writing_nothing(purged, tmp_path):
    course, archive, _, _, _, _ = purged
    copy = str(tmp_path / "course")
    shutil.copytree(course, copy)
    shutil.rmtree(os.path.join(copy, "course-data", "submitted"))
    with open(os.path.join(copy, "course-data", "reports", "summary.txt"), "a") as handle:
        handle.write("changed\n")
    before = tree_hashes(copy)
    run = grader(copy, "restore-term", archive)
    assert run.returncode == 2
    assert "with other content (first: course-data/reports/summary.txt)" in run.stderr
    assert tree_hashes(copy) == before
