"""The single writer: gradebook rows, autograded notebooks, the grade report and summary.txt.

Workers only compute (grade.py); the grader's main process records each
student's `StudentResult` through one `Writer`, which owns every write of a run
and its order: the student's autograded notebooks and report part are staged,
the gradebook is changed in one database transaction, and only then are the
files put in place. A run that is interrupted (Ctrl-C, kill) leaves every
student either fully recorded or as before, and running again overwrites
cleanly; what a killed writer left is removed by the next run (files.py).
"""

import csv
import io
import json
import os
import sys

import nbformat
from nbgrader.api import Comment, Grade, Gradebook, Student, SubmittedAssignment, SubmittedNotebook
from nbgrader.utils import parse_utc

from .files import StagedFiles, remove_left_over_files, write_atomically
from .notebooks import clean_name, clean_text, shown_id, student_id_problem, without_controls
from .results import FAILED, NO_SANDBOX, REFUSED, StudentResult

REPORT_FIELDS = ["student", "notebook", "notebook_status", "grade_id", "points", "max_points",
                 "status", "message"]


class Writer:
    """Records one assignment's results, one student at a time, in the grader's main process.

    `start()` before the first student (the reports folder, and what killed
    writers left), `record()` for each student's result, `finish()` at the end
    (the assignment's report rebuilt from every student's part). A student
    the writer fails on is reported for that student and the run goes on;
    `failures` lists them as (student, whether the sandbox failed).
    """

    def __init__(self, settings, assignment):
        self.settings, self.assignment = settings, assignment
        self.failures = []

    def start(self):
        os.makedirs(self.settings.reports, exist_ok=True)
        remove_assignment_leftovers(self.settings.reports, self.settings.autograded,
                                    self.assignment)

    def finish(self):
        return write_assignment_report(self.settings.reports, self.assignment)

    def record(self, submission, result):
        """Record one student's result: files staged, gradebook committed, files published.

        A grader killed between the commit and the publishing leaves the new
        grades with the previous files (and its temporaries); the next run
        regrades every student and removes them.
        """
        settings = self.settings
        student = clean_name(submission.student)
        if result.status in (FAILED, NO_SANDBOX):
            self.failures.append((student, result.status == NO_SANDBOX))
            print(f"error grading {student}: {clean_text(result.error)}", file=sys.stderr)
            self._report_only(submission, f"not graded: the grader failed on this submission "
                                          f"({result.error})")
            return
        staged = StagedFiles()
        # a refused folder is not read at all (it may be a link to someone else's files)
        submitted_dir = None if result.status == REFUSED else submission.submitted_dir
        try:
            timestamp, note = read_timestamp(submitted_dir) if submitted_dir else (None, None)
            if note:
                result.notes.append(note)
            if student != submission.student or student_id_problem(student):  # not storable
                result.student = shown_id(student)
                write_student_report(settings.reports, self.assignment, result, staged)
                staged.publish()
                return
            write_autograded(settings.autograded, submission.student, self.assignment, result,
                             submitted_dir, staged)
            write_student_report(settings.reports, self.assignment, result, staged)
            record_in_gradebook(settings.db_url, settings.course_id, result, timestamp,
                                settings.late_penalties())
            staged.publish()
        except Exception as error:  # noqa: BLE001 (reported for this student; the run goes on)
            staged.discard()
            self.failures.append((student, False))
            message = clean_text(f"{type(error).__name__}: {error}")
            print(f"error recording {student}: {message}", file=sys.stderr)
            self._report_only(submission, f"not recorded: the grader failed while recording "
                                          f"this submission ({message})")
            return
        except BaseException:
            staged.discard()
            raise
        states = ", ".join(f"{nb.notebook}: {nb.status}" for nb in result.notebooks)
        print(f"{student}: {result.points:g}/{result.max_points:g} ({states}) in "
              f"{result.seconds:.1f} s", file=sys.stderr)

    def _report_only(self, submission, note):
        """A report entry saying why a student has no new result (best effort)."""
        student = clean_name(submission.student)
        try:
            write_student_report(self.settings.reports, self.assignment,
                                 StudentResult(student, self.assignment, FAILED, [note]))
        except Exception as error:  # noqa: BLE001 (already failing; say so and go on)
            print(f"error reporting on {student}: {clean_text(repr(error))}", file=sys.stderr)


def read_timestamp(submitted_dir):
    """The submission time from nbgrader's timestamp.txt, or (None, note) if unusable."""
    path = os.path.join(submitted_dir, "timestamp.txt")
    if not os.path.isfile(path) or os.path.islink(path):
        return None, None
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read(200).strip()
        return (parse_utc(text), None) if text else (None, None)
    except (ValueError, OSError, OverflowError, UnicodeDecodeError):
        return None, "timestamp.txt could not be read; the submission time is unknown"


def record_in_gradebook(db_url, course_id, result, timestamp, late_penalties=None):
    """Write one student's auto scores (a StudentResult) in one transaction, as nbgrader's
    autograde would.

    `late_penalties` is nbgrader's AssignLatePenalties built with the course's
    settings (Settings.late_penalties); a submission after the due date gets, per
    notebook, the penalty its plugin gives, exactly as stock nbgrader assigns it.
    Without it nbgrader's default applies (no penalty).
    """
    if late_penalties is None:
        from nbgrader.preprocessors import AssignLatePenalties

        late_penalties = AssignLatePenalties()
        late_penalties.init_plugin()
    with Gradebook(db_url, course_id) as gb:
        db = gb.db
        try:
            if db.query(Student).filter(Student.id == result.student).one_or_none() is None:
                db.add(Student(id=result.student))
                db.flush()
            assignment = gb.find_assignment(result.assignment)
            submission = (db.query(SubmittedAssignment)
                          .filter(SubmittedAssignment.assignment == assignment,
                                  SubmittedAssignment.student_id == result.student)
                          .one_or_none())
            if submission is None:
                submission = SubmittedAssignment(assignment=assignment,
                                                 student=db.get(Student, result.student))
                db.add(submission)
                db.flush()
            submission.timestamp = timestamp
            _complete_structure(db, assignment, submission)
            statuses = {nb.notebook: nb.status for nb in result.notebooks}
            for notebook in assignment.notebooks:
                submitted = _submitted_notebook(db, notebook, submission)
                names = {c.id: c.name for c in list(notebook.grade_cells) + list(notebook.task_cells)}
                scores = result.scores(notebook.name)
                graded = statuses.get(notebook.name) == "graded"  # not missing or unreadable
                for grade in db.query(Grade).filter(Grade.notebook_id == submitted.id):
                    name = names.get(grade.cell_id)
                    if name in scores:
                        grade.auto_score = float(scores[name])
                    else:  # a manually graded answer or task: a person grades it
                        grade.auto_score = None if graded else 0.0
                    grade.needs_manual_grade = (grade.manual_score is not None
                                                or grade.auto_score is None)
                db.flush()
                db.refresh(submitted)  # its score, a column computed from the grades
                _assign_late_penalty(late_penalties, submission, submitted)
            db.commit()
        except BaseException:
            db.rollback()
            raise


def _assign_late_penalty(late_penalties, submission, notebook):
    """What nbgrader's AssignLatePenalties.preprocess does for one submitted notebook."""
    notebook.late_submission_penalty = None
    seconds_late = submission.total_seconds_late
    if seconds_late > 0:
        penalty = late_penalties.plugin_inst.late_submission_penalty(
            submission.student_id, notebook.score, seconds_late)
        if penalty is not None:
            notebook.late_submission_penalty = late_penalties._check_late_penalty(notebook,
                                                                                  penalty)


def _submitted_notebook(db, notebook, submission):
    return (db.query(SubmittedNotebook)
            .filter(SubmittedNotebook.notebook_id == notebook.id,
                    SubmittedNotebook.assignment_id == submission.id)
            .one_or_none())


def _complete_structure(db, assignment, submission):
    """The rows nbgrader's add_submission creates (a notebook, grades and comments), if missing."""
    for notebook in assignment.notebooks:
        submitted = _submitted_notebook(db, notebook, submission)
        if submitted is None:
            submitted = SubmittedNotebook(notebook_id=notebook.id, assignment_id=submission.id)
            db.add(submitted)
            db.flush()
        grades = {g.cell_id for g in db.query(Grade).filter(Grade.notebook_id == submitted.id)}
        comments = {c.cell_id for c in db.query(Comment).filter(Comment.notebook_id == submitted.id)}
        for cell in list(notebook.grade_cells) + list(notebook.task_cells):
            if cell.id not in grades:
                db.add(Grade(cell_id=cell.id, notebook_id=submitted.id))
        for cell in list(notebook.solution_cells) + list(notebook.task_cells):
            if cell.id not in comments:
                db.add(Comment(cell_id=cell.id, notebook_id=submitted.id))
        db.flush()


def clean_record(value):
    """`value` with every string writable as UTF-8 (lone surrogates escaped), recursively."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean_record(k): clean_record(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean_record(v) for v in value]
    return value


def write_autograded(autograded_root, student, assignment, result, submitted_dir, staged=None):
    """Autograded notebooks (and the timestamp) into autograded/<student>/<assignment>/.

    With `staged` (a StagedFiles) the files are only staged; the caller publishes.
    """
    own = staged is None
    staged = StagedFiles() if own else staged
    folder = os.path.join(autograded_root, student, assignment)
    os.makedirs(folder, exist_ok=True)
    try:
        for notebook in result.notebooks:
            target = os.path.join(folder, notebook.notebook + ".ipynb")
            if notebook.autograded is None:
                staged.remove(target)
                continue
            nb = nbformat.from_dict(clean_record(notebook.autograded))
            staged.write(target, nbformat.writes(nb))
        stamp = os.path.join(submitted_dir, "timestamp.txt") if submitted_dir else None
        if stamp is None:  # no usable submission folder: no timestamp either
            staged.remove(os.path.join(folder, "timestamp.txt"))
        elif os.path.isfile(stamp) and not os.path.islink(stamp):
            with open(stamp, encoding="utf-8", errors="replace") as handle:
                staged.write(os.path.join(folder, "timestamp.txt"), handle.read(200))
        # nbgrader's release_feedback needs the submission's secret beside the feedback
        secret = os.path.join(submitted_dir, "submission_secret.txt") if submitted_dir else None
        if secret and os.path.isfile(secret) and not os.path.islink(secret):
            with open(secret, encoding="utf-8", errors="replace") as handle:
                staged.write(os.path.join(folder, "submission_secret.txt"), handle.read(200))
    except BaseException:
        staged.discard()
        raise
    if own:
        staged.publish()


def report_rows(result):
    """One row per student, notebook and test cell, plus rows for notes."""
    rows = []
    for note in result.notes:
        rows.append(_row(result, "", "", "", "", "", "note", note))
    for notebook in result.notebooks:
        for note in notebook.notes:
            rows.append(_row(result, notebook.notebook, notebook.status, "", "", "", "note", note))
        for test in notebook.tests:
            rows.append(_row(result, notebook.notebook, notebook.status, test.grade_id,
                             test.points, test.max_points, test.status, test.message))
    return rows


def _row(result, notebook, nb_status, grade_id, points, max_points, status, message):
    return {"student": without_controls(result.student), "notebook": notebook,
            "notebook_status": nb_status, "grade_id": grade_id, "points": points,
            "max_points": max_points, "status": status, "message": without_controls(message)}


def spreadsheet_safe(value):
    """A CSV cell that no spreadsheet reads as a formula: '=1+2' becomes \"'=1+2\"."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def write_student_report(reports_root, assignment, result, staged=None):
    """reports/<assignment>/<student>.json: the part of the report for one student.

    With `staged` (a StagedFiles) the file is only staged; the caller publishes.
    """
    part = clean_record(result.to_json())
    folder = os.path.join(reports_root, assignment)
    os.makedirs(folder, exist_ok=True)
    target = os.path.join(folder, _safe_name(part["student"]) + ".json")
    text = json.dumps(part, indent=1, ensure_ascii=False, sort_keys=True)
    if staged is None:
        write_atomically(target, text)
    else:
        staged.write(target, text)


def read_student_parts(reports_root, assignment):
    """Every student's part of an assignment's report (reports/<assignment>/*.json), by student,
    as StudentResult."""
    folder = os.path.join(reports_root, assignment)
    records = []
    if os.path.isdir(folder):
        for name in sorted(os.listdir(folder)):
            if name.endswith(".json"):
                with open(os.path.join(folder, name), encoding="utf-8") as handle:
                    records.append(StudentResult.from_json(json.load(handle)))
    return sorted(records, key=lambda r: r.student)


def rebuild_assignment_reports(settings, assignments):
    """reports/<assignment>.csv and .json of each of `assignments` that has student parts,
    rebuilt: complete even if graders on several machines wrote the parts."""
    for name in assignments:
        if os.path.isdir(os.path.join(settings.reports, name)):
            write_assignment_report(settings.reports, name)


def write_assignment_report(reports_root, assignment):
    """reports/<assignment>.csv and .json rebuilt from every student's part."""
    records = read_student_parts(reports_root, assignment)
    rows = [row for record in records for row in report_rows(record)]
    write_atomically(os.path.join(reports_root, assignment + ".json"),
                  json.dumps({"assignment": assignment, "rows": rows}, indent=1,
                             ensure_ascii=False))
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, REPORT_FIELDS)
    writer.writeheader()
    writer.writerows({key: spreadsheet_safe(value) for key, value in row.items()} for row in rows)
    write_atomically(os.path.join(reports_root, assignment + ".csv"), text.getvalue())
    return records


def _safe_name(student):
    return "".join(c if c.isalnum() or c in "-_." else f"%{ord(c):x}" for c in student)


def remove_assignment_leftovers(reports_root, autograded_root, assignment):
    """What killed writers left in every folder the writer writes for `assignment`,
    removed (files.remove_left_over_files); returns how many."""
    removed = remove_left_over_files(reports_root) + remove_left_over_files(
        os.path.join(reports_root, assignment))
    if os.path.isdir(autograded_root):
        for student in os.listdir(autograded_root):
            removed += remove_left_over_files(os.path.join(autograded_root, student, assignment))
    return removed


def write_summary(settings, assignments, people=None, grades=None):
    """reports/summary.txt for `assignments` (summary.py); returns its text."""
    from .summary import summary_text

    text = summary_text(settings, assignments, people, grades)
    write_atomically(os.path.join(settings.reports, "summary.txt"), text)
    return text


def write_report_pages(settings, people, grades):
    """reports/<assignment>.html for each AssignmentGrades in `grades` (report_page.py);
    returns the paths."""
    from .report_page import render

    paths = []
    for assignment in grades:
        path = os.path.join(settings.reports, assignment.name + ".html")
        write_atomically(path, render(settings, people, assignment))
        paths.append(path)
    return paths
